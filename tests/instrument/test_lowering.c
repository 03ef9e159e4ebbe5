/*
 * Unit tests of the compiler model's lowering and exchange planning: the
 * lowered program list (the guide's program type tags), exchanges where
 * data crosses tiles and none where it does not, cross-IPU data as
 * GlobalExchange, host transfers as StreamCopy, function programs, the
 * program trace of a run, and graph counts.
 */
#include "test-util.h"

#include <string.h>

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

static bool sum_compute(const tsi_field *f, size_t n)
{
	const float *in = f[0].data;
	float *out = f[1].data;
	(void)n;
	*out = 0;
	for (size_t i = 0; i < f[0].count; i++)
		*out += in[i];
	return true;
}

static const tsi_field_def sum_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};
/* A sum costs one floating-point add per input element. */
static uint64_t sum_flops(const tsi_field *f, size_t n)
{
	(void)n;
	return f[0].count;
}

static const tsi_codelet sum_vertex = {
	.name = "SumVertex", .fields = sum_fields, .n_fields = 2, .compute = sum_compute,
	.flops = sum_flops, .state_bytes = 8, .code_bytes = 64,
};

/* A model on 2 IPUs x 8 tiles: v1 on tile 0, four SumVertex on tiles
 * 0, 3, 6 (IPU 0) and 9 (IPU 1) each summing a suffix of v1 into v2. */
typedef struct fixture {
	tsi_device *dev;
	tsi_graph *g;
	tsi_tensor *v1, *v2;
	tsi_compute_set *cs;
	tsi_engine *e;
} fixture;

static void build(fixture *f)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;

	o.num_ipus = 2;
	o.tiles_per_ipu = 8;
	assert_int_equal(tsi_device_new_ipu_model(&f->dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&f->g, tsi_device_get_target(f->dev), 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelet(f->g, &sum_vertex), TSI_OK);
	f->v1 = tsi_graph_add_variable(f->g, TSI_FLOAT, TSI_SHAPE(4), "v1");
	f->v2 = tsi_graph_add_variable(f->g, TSI_FLOAT, TSI_SHAPE(4), "v2");
	tsi_graph_set_tile_mapping(f->g, f->v1, 0);
	f->cs = tsi_graph_add_compute_set(f->g, "suffixSums");
	for (unsigned i = 0; i < 4; i++) {
		tsi_graph_set_tile_mapping(f->g, tsi_tensor_index(f->v2, i), i * 3);
		tsi_vertex *v = tsi_graph_add_vertex(f->g, f->cs, "SumVertex");
		tsi_graph_connect(f->g, v, "in", tsi_tensor_slice(f->v1, i, 4));
		tsi_graph_connect(f->g, v, "out", tsi_tensor_index(f->v2, i));
		tsi_graph_set_vertex_tile(f->g, v, i * 3);
	}
}

static void destroy(fixture *f)
{
	tsi_engine_free(f->e);
	tsi_graph_free(f->g);
	tsi_device_free(f->dev);
}

/* Finds the first lowered program of `type` (and name, if given). */
static int find_program(const tsi_graph_profile *gp, tsi_lowered_type type, const char *name)
{
	for (size_t i = 0; i < gp->n_programs; i++)
		if (gp->programs[i].type == type &&
		    (!name || (gp->programs[i].name && strcmp(gp->programs[i].name, name) == 0)))
			return (int)i;
	return -1;
}

static void test_execute_exchanges(void **state)
{
	fixture f = {0};
	tsi_program *prog;
	const tsi_graph_profile *gp;
	(void)state;

	build(&f);
	prog = tsi_prog_sequence(f.g, "main");
	tsi_sequence_add(prog, tsi_prog_execute(f.g, f.cs));
	assert_int_equal(tsi_engine_new(&f.e, f.g, &prog, 1, NULL), TSI_OK);
	gp = tsi_engine_get_graph_profile(f.e);
	assert_non_null(gp);

	/* Tiles 3 and 6 fetch 3 and 2 floats from tile 0 over the IPU's
	 * exchange; tile 9 on the other IPU fetches 1 float over IPU-Link. */
	assert_int_equal(gp->n_exchanges[TSI_EXCHANGE_INTERNAL], 1);
	assert_int_equal(gp->n_exchanges[TSI_EXCHANGE_EXTERNAL], 1);
	const tsi_exchange_profile *in = &gp->exchanges[TSI_EXCHANGE_INTERNAL][0];
	assert_string_equal(in->name, "suffixSums/ExchangePre");
	assert_int_equal(tsi_tile_values_get(&in->bytes_received, 3), 12);
	assert_int_equal(tsi_tile_values_get(&in->bytes_received, 6), 8);
	assert_int_equal(tsi_tile_values_get(&in->bytes_received, 0), 0);
	/* Tile 0 sends v1[1..4) once: tiles 3 and 6 both take what they
	 * need from the exchange fabric as it goes by. */
	assert_int_equal(tsi_tile_values_get(&in->bytes_sent, 0), 12);
	assert_true(tsi_tile_values_get(&in->cycles, 3) > tsi_tile_values_get(&in->cycles, 6));
	const tsi_exchange_profile *ext = &gp->exchanges[TSI_EXCHANGE_EXTERNAL][0];
	assert_int_equal(tsi_tile_values_get(&ext->bytes_received, 9), 4);

	int pre = find_program(gp, TSI_LP_DO_EXCHANGE, "suffixSums/ExchangePre");
	int glob = find_program(gp, TSI_LP_GLOBAL_EXCHANGE, NULL);
	int ote = find_program(gp, TSI_LP_ON_TILE_EXECUTE, "suffixSums");
	assert_true(pre >= 0 && glob >= 0 && ote >= 0);
	assert_int_equal(gp->programs[ote].compute_set, 0);
	assert_int_equal(gp->programs[pre].exchange, 0);
	/* Code for 2 receive runs, 1 merged send, a mux + delay per receiver. */
	const tsi_exchange_instructions *ins = &gp->programs[pre].memory_by_instruction;
	assert_int_equal(ins->receive_address, 8);
	assert_int_equal(ins->send, 4);
	assert_int_equal(ins->total,
	                 ins->delay + ins->receive_address + ins->receive_mux + ins->send);
	/* Outputs are all local: no post exchange. */
	assert_int_equal(find_program(gp, TSI_LP_DO_EXCHANGE, "suffixSums/ExchangePost"), -1);

	/* The main Sequence lists the exchanges before the OnTileExecute. */
	int main_seq = find_program(gp, TSI_LP_SEQUENCE, "main");
	assert_true(main_seq >= 0);
	const tsi_lowered_program *m = &gp->programs[main_seq];
	assert_int_equal(m->n_children, 3);
	assert_int_equal(m->children[0], pre);
	assert_int_equal(m->children[1], glob);
	assert_int_equal(m->children[2], ote);

	assert_int_equal(gp->num_vertices, 4);
	assert_int_equal(gp->num_edges, 8);
	/* v1 and v2, and the compiler's: message buffers and the always-live
	 * data by category (the schema's "user and compiler"). */
	assert_int_equal(gp->num_vars, gp->n_variables);
	assert_true(gp->num_vars > 2);
	assert_int_equal(gp->n_vertex_types, 1);
	assert_string_equal(gp->vertex_types[0].name, "SumVertex");
	assert_int_equal(gp->vertex_types[0].instances, 4);
	assert_int_equal(gp->compute_sets[0].n_types, 1);
	assert_int_equal(gp->compute_sets[0].vertex_counts[0], 4);
	/* FLOPs: suffix sums of 4, 3, 2 and 1 elements. */
	assert_int_equal(gp->compute_sets[0].flops, 10);
	assert_int_equal(gp->vertex_types[0].flops, 10);
	assert_int_equal(gp->profiler_mode, TSI_PROFILER_IPU_MODEL);
	assert_string_equal(tsi_profiler_mode_name(gp->profiler_mode), "IPU_MODEL");
	destroy(&f);
}

/* profilerMode follows the instrumentation options as the guide lists. */
static void test_profiler_mode(void **state)
{
	static const struct {
		const char *level; /* NULL: debug.instrumentExternalExchange only */
		tsi_profiler_mode mode;
	} cases[] = {
		{"tile", TSI_PROFILER_COMPUTE_SETS},
		{"vertex", TSI_PROFILER_VERTICES},
		{"device", TSI_PROFILER_SINGLE_TILE_COMPUTE_SETS},
		{"ipu", TSI_PROFILER_SINGLE_TILE_COMPUTE_SETS},
		{NULL, TSI_PROFILER_EXTERNAL_EXCHANGES},
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fixture f = {0};
		tsi_options *o = tsi_options_new();
		build(&f);
		if (cases[i].level) {
			tsi_options_set(o, "debug.instrument", "true");
			tsi_options_set(o, "debug.computeInstrumentationLevel", cases[i].level);
		} else {
			tsi_options_set(o, "debug.instrumentExternalExchange", "true");
		}
		tsi_program *prog = tsi_prog_execute(f.g, f.cs);
		assert_int_equal(tsi_engine_new(&f.e, f.g, &prog, 1, o), TSI_OK);
		assert_int_equal(tsi_engine_get_graph_profile(f.e)->profiler_mode, cases[i].mode);
		tsi_options_free(o);
		destroy(&f);
	}
}

static void test_local_data_needs_no_exchange(void **state)
{
	fixture f = {0};
	tsi_compute_set *cs;
	tsi_program *prog;
	(void)state;

	build(&f);
	/* A compute set whose single vertex reads only its own tile's data. */
	cs = tsi_graph_add_compute_set(f.g, "local");
	tsi_vertex *v = tsi_graph_add_vertex(f.g, cs, "SumVertex");
	tsi_graph_connect(f.g, v, "in", f.v1);
	tsi_graph_connect(f.g, v, "out", tsi_tensor_index(f.v2, 0));
	tsi_graph_set_vertex_tile(f.g, v, 0);
	prog = tsi_prog_execute(f.g, cs);
	assert_int_equal(tsi_engine_new(&f.e, f.g, &prog, 1, NULL), TSI_OK);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f.e);
	assert_int_equal(gp->n_exchanges[TSI_EXCHANGE_INTERNAL], 0);
	assert_int_equal(gp->n_exchanges[TSI_EXCHANGE_EXTERNAL], 0);
	assert_true(find_program(gp, TSI_LP_ON_TILE_EXECUTE, "local") >= 0);
	destroy(&f);
}

static void test_control_flow_and_copies(void **state)
{
	fixture f = {0};
	(void)state;

	build(&f);
	const float init[4] = {1, 1.5f, 2, 2.5f};
	tsi_tensor *c1 = tsi_graph_add_constant_float(f.g, TSI_FLOAT, TSI_SHAPE(4), init, "c1");
	tsi_graph_set_tile_mapping(f.g, c1, 0);
	tsi_tensor *pred = tsi_graph_add_constant_fill(f.g, TSI_INT, TSI_SHAPE(1), 1, "pred");
	tsi_graph_set_tile_mapping(f.g, pred, 5);
	tsi_program *prog = tsi_prog_sequence(f.g, "main");
	tsi_sequence_add(prog, tsi_prog_copy(f.g, c1, f.v1)); /* same tile: on-tile copy */
	tsi_program *body = tsi_prog_sequence(f.g, "body");
	tsi_sequence_add(body, tsi_prog_execute(f.g, f.cs));
	tsi_function *fn = tsi_graph_add_function(f.g, body);
	tsi_sequence_add(prog, tsi_prog_repeat(f.g, 3, tsi_prog_call(f.g, fn)));
	/* v2[0..2) lives on tiles 0 and 3; v1[2..4) on tile 0. */
	tsi_sequence_add(prog, tsi_prog_if(f.g, pred,
	                                   tsi_prog_copy(f.g, tsi_tensor_slice(f.v2, 0, 2),
	                                                 tsi_tensor_slice(f.v1, 2, 4)),
	                                   NULL));
	tsi_sequence_add(prog, tsi_prog_print_tensor(f.g, "v2", f.v2));
	assert_int_equal(tsi_engine_new(&f.e, f.g, &prog, 1, NULL), TSI_OK);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f.e);

	/* Function programs: the body lowered once, called from the Repeat. */
	assert_int_equal(gp->n_function_programs, 1);
	int call = find_program(gp, TSI_LP_CALL, NULL);
	assert_true(call >= 0);
	assert_int_equal(gp->programs[call].function, 0);
	int rep = find_program(gp, TSI_LP_REPEAT, NULL);
	assert_int_equal(gp->programs[rep].repeat_count, 3);
	assert_int_equal(gp->programs[rep].children[0], call);

	/* If: SetLocalConsensusFromVar and an internal Sync precede it. */
	int main_seq = find_program(gp, TSI_LP_SEQUENCE, "main");
	const tsi_lowered_program *m = &gp->programs[main_seq];
	int iff = find_program(gp, TSI_LP_IF, NULL);
	assert_true(iff >= 0);
	int pos = -1;
	for (uint32_t i = 0; i < m->n_children; i++)
		if ((int)m->children[i] == iff)
			pos = (int)i;
	assert_true(pos >= 2);
	assert_int_equal(gp->programs[m->children[pos - 2]].type, TSI_LP_SET_LOCAL_CONSENSUS);
	assert_int_equal(gp->programs[m->children[pos - 1]].type, TSI_LP_SYNC);
	assert_int_equal(gp->programs[m->children[pos - 1]].sync, TSI_SYNC_INTERNAL);

	/* Copies: same-tile parts are generated compute sets of copy vertices,
	 * the cross-tile element (tile 3 -> 0) an exchange of 4 bytes. */
	assert_int_equal(gp->n_compute_sets, 3); /* suffixSums + 2 generated */
	assert_string_equal(gp->compute_sets[1].name, "Copy/OnTileCopy");
	assert_string_equal(gp->vertex_types[gp->compute_sets[1].vertex_types[0]].name,
	                    "poplar_rt::Memcpy64BitSupervisor");
	int cex = find_program(gp, TSI_LP_DO_EXCHANGE, "Copy/Exchange");
	assert_true(cex >= 0);
	const tsi_exchange_profile *x =
	    &gp->exchanges[TSI_EXCHANGE_INTERNAL][gp->programs[cex].exchange];
	assert_int_equal(tsi_tile_values_sum(&x->bytes_received), 4);
	assert_int_equal(tsi_tile_values_get(&x->bytes_sent, 3), 4);
	/* Issue 17: the graph counts are of user and compiler items alike, as
	 * the schema says: the generated copy sets, their copy vertices, and
	 * every variable the profile lists (message buffers, always-live data). */
	{
		uint64_t vertices = 0;

		for (size_t i = 0; i < gp->n_compute_sets; i++)
			for (uint32_t k = 0; k < gp->compute_sets[i].n_types; k++)
				vertices += gp->compute_sets[i].vertex_counts[k];
		assert_int_equal(gp->num_compute_sets, gp->n_compute_sets);
		assert_int_equal(gp->num_vertices, vertices);
		assert_true(gp->num_vertices > tsi_compute_set_num_vertices(f.cs));
		assert_int_equal(gp->num_vars, gp->n_variables);
	}

	/* PrintTensor: an external Sync then a device-to-host StreamCopy of
	 * the tensor's 16 bytes from the tiles that hold it. */
	int sc = find_program(gp, TSI_LP_STREAM_COPY, "v2");
	assert_true(sc >= 0);
	const tsi_exchange_profile *h = &gp->exchanges[TSI_EXCHANGE_HOST][gp->programs[sc].exchange];
	assert_int_equal(tsi_tile_values_sum(&h->bytes_sent), 16);
	assert_int_equal(h->bytes_sent.n, 4);
	/* Four runs sent: a send and a format word each. */
	assert_int_equal(gp->programs[sc].memory_by_instruction.send, 16);
	assert_int_equal(gp->programs[sc].memory_by_instruction.total, 32);
	assert_int_equal(gp->programs[m->children[m->n_children - 2]].sync, TSI_SYNC_EXTERNAL);

	/* The run's program trace: leaves in execution order, the function
	 * body three times, then the If's consensus and its copy. */
	tsi_test_capture cap;
	tsi_test_capture_open(&cap);
	tsi_engine_set_print_stream(f.e, cap.file);
	assert_int_equal(tsi_engine_load(f.e, f.dev), TSI_OK);
	assert_int_equal(tsi_engine_run(f.e, 0), TSI_OK);
	assert_string_equal(tsi_test_capture_text(&cap), "v2: {7,6,4.5,2.5}\n");
	tsi_test_capture_close(&cap);
	assert_int_equal(tsi_engine_num_run_profiles(f.e), 1);
	const tsi_run_profile *rp = tsi_engine_get_run_profile(f.e, 0);
	size_t ote_count = 0, slc = 0;
	int ote = find_program(gp, TSI_LP_ON_TILE_EXECUTE, "suffixSums");
	for (size_t i = 0; i < rp->n_trace; i++) {
		ote_count += rp->program_trace[i] == (uint32_t)ote;
		slc += gp->programs[rp->program_trace[i]].type == TSI_LP_SET_LOCAL_CONSENSUS;
		assert_true(rp->program_trace[i] < gp->n_programs);
		assert_int_not_equal(gp->programs[rp->program_trace[i]].type, TSI_LP_SEQUENCE);
	}
	assert_int_equal(ote_count, 3);
	assert_int_equal(slc, 1);
	assert_int_equal(rp->program_trace[rp->n_trace - 1], sc);
	destroy(&f);
}

/* A program that shares one step in two places lowers it once. */
static void test_shared_program_lowered_once(void **state)
{
	fixture f = {0};
	(void)state;

	build(&f);
	tsi_program *step = tsi_prog_execute(f.g, f.cs);
	tsi_program *prog = tsi_prog_sequence(f.g, "main");
	tsi_sequence_add(prog, step);
	tsi_sequence_add(prog, step);
	assert_int_equal(tsi_engine_new(&f.e, f.g, &prog, 1, NULL), TSI_OK);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f.e);
	size_t otes = 0;
	for (size_t i = 0; i < gp->n_programs; i++)
		otes += gp->programs[i].type == TSI_LP_ON_TILE_EXECUTE;
	assert_int_equal(otes, 1);
	const tsi_lowered_program *m = &gp->programs[find_program(gp, TSI_LP_SEQUENCE, "main")];
	assert_int_equal(m->n_children, 6); /* pre, global pre, execute; twice */
	assert_int_equal(m->children[0], m->children[3]);
	destroy(&f);
}

/* Streams: one StreamCopy per copy, received by the tiles of the tensor. */
static void test_stream_copy(void **state)
{
	fixture f = {0};
	(void)state;

	build(&f);
	tsi_stream *s = tsi_graph_add_host_to_device_fifo(f.g, "in", TSI_FLOAT, 4,
	                                                  TSI_REPLICATED_STREAM_BROADCAST);
	tsi_program *prog = tsi_prog_sequence(f.g, "main");
	tsi_sequence_add(prog, tsi_prog_copy_from_stream(f.g, s, f.v2));
	/* 4 KiB on each of tiles 1 and 2 of IPU 0 through one host link. */
	tsi_tensor *big = tsi_graph_add_variable(f.g, TSI_FLOAT, TSI_SHAPE(2048), "big");
	tsi_graph_set_tile_mapping(f.g, tsi_tensor_slice(big, 0, 1024), 1);
	tsi_graph_set_tile_mapping(f.g, tsi_tensor_slice(big, 1024, 2048), 2);
	tsi_stream *s2 = tsi_graph_add_host_to_device_fifo(f.g, "bigIn", TSI_FLOAT, 2048,
	                                                   TSI_REPLICATED_STREAM_BROADCAST);
	tsi_sequence_add(prog, tsi_prog_copy_from_stream(f.g, s2, big));
	assert_int_equal(tsi_engine_new(&f.e, f.g, &prog, 1, NULL), TSI_OK);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f.e);
	assert_int_equal(gp->n_exchanges[TSI_EXCHANGE_HOST], 2);
	const tsi_exchange_profile *h = &gp->exchanges[TSI_EXCHANGE_HOST][0];
	assert_string_equal(h->name, "in");
	assert_int_equal(h->bytes_received.n, 4);
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(tsi_tile_values_get(&h->bytes_received, i * 3), 4);
	/* The host link of an IPU is shared: the tile whose data comes second
	 * finishes 4 KiB / host bytes per cycle later. */
	const tsi_exchange_profile *h2 = &gp->exchanges[TSI_EXCHANGE_HOST][1];
	uint64_t c1 = tsi_tile_values_get(&h2->cycles, 1), c2 = tsi_tile_values_get(&h2->cycles, 2);
	assert_true(c1 > 0 && c2 > c1);
	assert_int_equal(c2 - c1, 4096 / 16);
	assert_int_equal(gp->n_control_programs, 1);
	const tsi_lowered_program *m = &gp->programs[find_program(gp, TSI_LP_SEQUENCE, "main")];
	assert_int_equal(m->n_children, 4);
	assert_int_equal(gp->programs[m->children[0]].type, TSI_LP_SYNC);
	assert_int_equal(gp->programs[m->children[0]].sync, TSI_SYNC_EXTERNAL);
	assert_int_equal(gp->programs[m->children[1]].type, TSI_LP_STREAM_COPY);
	destroy(&f);
}

/* Total bytes of a memory category over every tile, region and column. */
static uint64_t category_total(const tsi_graph_profile *gp, tsi_mem_category cat)
{
	uint64_t sum = 0;
	for (uint32_t t = 0; t < gp->target.num_tiles; t++)
		for (int r = 0; r < TSI_REGION_COUNT; r++)
			sum += tsi_graph_profile_category(gp, cat, (tsi_mem_region)r, false, t) +
			       tsi_graph_profile_category(gp, cat, (tsi_mem_region)r, true, t);
	return sum;
}

/* debug.instrumentControlFlow: a counter per control-flow program on every
 * tile, and each branch decision pays for reading it. */
static void test_control_flow_instrumentation(void **state)
{
	uint64_t bytes[2], cycles[2];
	(void)state;

	for (int on = 0; on < 2; on++) {
		fixture f = {0};
		tsi_options *o = tsi_options_new();
		build(&f);
		tsi_tensor *pred = tsi_graph_add_constant_fill(f.g, TSI_INT, TSI_SHAPE(1), 1, "pred");
		tsi_graph_set_tile_mapping(f.g, pred, 0);
		tsi_program *prog = tsi_prog_sequence(f.g, "main");
		tsi_sequence_add(prog, tsi_prog_repeat(f.g, 2, tsi_prog_if(f.g, pred,
		                                                           tsi_prog_execute(f.g, f.cs),
		                                                           NULL)));
		if (on)
			tsi_options_set(o, "debug.instrumentControlFlow", "true");
		assert_int_equal(tsi_engine_new(&f.e, f.g, &prog, 1, o), TSI_OK);
		const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f.e);
		bytes[on] = category_total(gp, TSI_MEM_INSTRUMENTATION_RESULTS);
		if (on) /* Repeat and If: 2 counters of 8 bytes on each of 16 tiles */
			assert_int_equal(bytes[on], 2 * 8 * 16);
		assert_int_equal(tsi_engine_load(f.e, f.dev), TSI_OK);
		assert_int_equal(tsi_engine_run(f.e, 0), TSI_OK);
		cycles[on] = tsi_engine_get_run_profile(f.e, 0)->cycles;
		tsi_options_free(o);
		destroy(&f);
	}
	assert_int_equal(bytes[0], 0);
	assert_true(cycles[1] > cycles[0]); /* two branch decisions, each paying */
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(tsi_lowered_type_name(TSI_LP_ON_TILE_EXECUTE), "OnTileExecute");
	assert_string_equal(tsi_lowered_type_name(TSI_LP_SET_LOCAL_CONSENSUS),
	                    "SetLocalConsensusFromVar");
	assert_string_equal(tsi_lowered_type_name(TSI_LP_TYPE_COUNT), "Unknown");
	assert_string_equal(tsi_mem_category_name(TSI_MEM_VERTEX_INSTANCE_STATE),
	                    "vertexInstanceState");
	assert_string_equal(tsi_mem_category_name(TSI_MEM_INTERNAL_EXCHANGE_CODE),
	                    "internalExchangeCode");
	assert_string_equal(tsi_step_type_name(TSI_STEP_DO_EXCHANGE), "DoExchange");
	tsi_tile_values none = {0};
	assert_int_equal(tsi_tile_values_get(&none, 7), 0);
	assert_int_equal(tsi_tile_values_sum(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_execute_exchanges),
		cmocka_unit_test(test_local_data_needs_no_exchange),
		cmocka_unit_test(test_control_flow_and_copies),
		cmocka_unit_test(test_shared_program_lowered_once),
		cmocka_unit_test(test_stream_copy),
		cmocka_unit_test(test_profiler_mode),
		cmocka_unit_test(test_control_flow_instrumentation),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
