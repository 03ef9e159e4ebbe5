/*
 * Unit tests of the compiler model's compute-set cycle estimates (six
 * round-robin worker contexts per tile, supervisor vertices,
 * setCycleEstimate, flops) and of the BSP simulation of a run (steps back
 * to back, syncs before exchanges, tileCycles, balances).
 */
#include "test-util.h"

#include <string.h>

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

/* --- Codelets ------------------------------------------------------------------- */

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

/* 10 cycles per input element. */
static uint64_t work_cycles(const tsi_field *f, size_t n, const tsi_target *t)
{
	(void)n;
	(void)t;
	return 10 * f[0].count;
}

/* One flop per input element. */
static uint64_t work_flops(const tsi_field *f, size_t n)
{
	(void)n;
	return f[0].count;
}

static uint64_t sup_cycles(const tsi_field *f, size_t n, const tsi_target *t)
{
	(void)f;
	(void)n;
	(void)t;
	return 100;
}

static const tsi_field_def sum_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

static const tsi_codelet codelets[] = {
	{.name = "Work", .fields = sum_fields, .n_fields = 2, .compute = sum_compute,
	 .cycles = work_cycles, .flops = work_flops, .state_bytes = 8, .code_bytes = 64},
	{.name = "NoEstimate", .fields = sum_fields, .n_fields = 2, .compute = sum_compute,
	 .state_bytes = 8, .code_bytes = 64},
	{.name = "Super", .fields = sum_fields, .n_fields = 2, .compute = sum_compute,
	 .cycles = sup_cycles, .state_bytes = 8, .code_bytes = 64, .supervisor = true},
};

/* --- Fixture --------------------------------------------------------------------- */

/* One IPU of 4 tiles; `data` (5 floats) and `out` (16 floats) on tile 0,
 * `far` (5 floats) on tile 1. */
typedef struct fixture {
	tsi_device *dev;
	tsi_graph *g;
	tsi_tensor *data, *out, *far;
	size_t next_out;
	tsi_compute_set *sets[2]; /* test_instrumentation */
	size_t g_sets;
	tsi_engine *e;
} fixture;

static void build(fixture *f)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;

	memset(f, 0, sizeof(*f));
	o.tiles_per_ipu = 4;
	assert_int_equal(tsi_device_new_ipu_model(&f->dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&f->g, tsi_device_get_target(f->dev), 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelets(f->g, codelets, 3), TSI_OK);
	f->data = tsi_graph_add_variable(f->g, TSI_FLOAT, TSI_SHAPE(5), "data");
	f->out = tsi_graph_add_variable(f->g, TSI_FLOAT, TSI_SHAPE(16), "out");
	f->far = tsi_graph_add_variable(f->g, TSI_FLOAT, TSI_SHAPE(5), "far");
	assert_int_equal(tsi_graph_set_tile_mapping(f->g, f->data, 0), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->g, f->out, 0), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->g, f->far, 1), TSI_OK);
}

static void destroy(fixture *f)
{
	tsi_engine_free(f->e);
	tsi_graph_free(f->g);
	tsi_device_free(f->dev);
}

/* Adds a vertex of `type` on tile 0 reading `in` and writing the next
 * element of `out`. */
static tsi_vertex *add(fixture *f, tsi_compute_set *cs, const char *type, const tsi_tensor *in)
{
	tsi_vertex *v = tsi_graph_add_vertex(f->g, cs, type);

	assert_non_null(v);
	assert_int_equal(tsi_graph_connect(f->g, v, "in", in), TSI_OK);
	assert_int_equal(tsi_graph_connect(f->g, v, "out", tsi_tensor_index(f->out, f->next_out++)),
	                 TSI_OK);
	assert_int_equal(tsi_graph_set_vertex_tile(f->g, v, 0), TSI_OK);
	return v;
}

/* A compute set of `n` Work vertices on tile 0 (each E = 50 cycles). */
static tsi_compute_set *work_set(fixture *f, const char *name, unsigned n)
{
	tsi_compute_set *cs = tsi_graph_add_compute_set(f->g, name);

	for (unsigned i = 0; i < n; i++)
		add(f, cs, "Work", f->data);
	return cs;
}

/* Compiles a sequence executing `n` compute sets. */
static const tsi_graph_profile *compile_sets(fixture *f, tsi_compute_set **sets, size_t n)
{
	tsi_program *seq = tsi_prog_sequence(f->g, "main");

	for (size_t i = 0; i < n; i++)
		assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(f->g, sets[i])), TSI_OK);
	assert_int_equal(tsi_engine_new(&f->e, f->g, &seq, 1, NULL), TSI_OK);
	return tsi_engine_get_graph_profile(f->e);
}

/* Sum over a compute set's vertex types of active_cycles_by_type. */
static uint64_t by_type_sum(const tsi_compute_set_profile *cs)
{
	uint64_t s = 0;

	for (uint32_t i = 0; i < cs->n_types; i++)
		s += cs->active_cycles_by_type[i];
	return s;
}

/* --- Estimates ---------------------------------------------------------------------- */

/* One worker vertex of E cycles costs 6E tile cycles (plus a fixed
 * overhead); six run in the same time; a seventh needs a second round. */
static void test_barrel_rounds(void **state)
{
	fixture f;
	tsi_compute_set *sets[3];
	const uint64_t E = 50;
	(void)state;

	build(&f);
	sets[0] = work_set(&f, "one", 1);
	sets[1] = work_set(&f, "six", 6);
	sets[2] = work_set(&f, "seven", 7);
	const tsi_graph_profile *gp = compile_sets(&f, sets, 3);
	assert_non_null(gp);
	assert_int_equal(gp->n_compute_sets, 3);

	const tsi_compute_set_profile *one = &gp->compute_sets[0], *six = &gp->compute_sets[1],
	                              *seven = &gp->compute_sets[2];
	uint64_t c1 = tsi_tile_values_get(&one->cycles_by_tile, 0);
	assert_true(c1 >= 6 * E);
	uint64_t overhead = c1 - 6 * E;
	assert_true(overhead < E); /* a launch cost, not a vertex's worth */

	assert_int_equal(tsi_tile_values_get(&one->active_cycles_by_tile, 0), E);
	assert_int_equal(tsi_tile_values_get(&six->cycles_by_tile, 0), overhead + 6 * E);
	assert_int_equal(tsi_tile_values_get(&six->active_cycles_by_tile, 0), 6 * E);
	assert_int_equal(tsi_tile_values_get(&seven->cycles_by_tile, 0), overhead + 12 * E);
	assert_int_equal(tsi_tile_values_get(&seven->active_cycles_by_tile, 0), 7 * E);
	/* Only tile 0 runs anything. */
	assert_int_equal(seven->cycles_by_tile.n, 1);
	assert_int_equal(tsi_tile_values_get(&seven->cycles_by_tile, 1), 0);
	/* By type: one type, all the active cycles. */
	assert_int_equal(seven->n_types, 1);
	assert_int_equal(by_type_sum(seven), 7 * E);
	/* flops: one per input element, 5 per vertex. */
	assert_int_equal(one->flops, 5);
	assert_int_equal(seven->flops, 35);
	/* The target's sync model. */
	assert_true(gp->min_sync_delay > 0);
	assert_non_null(gp->relative_sync_delay_by_tile);
	assert_true(gp->relative_sync_delay_by_tile[0] <= gp->relative_sync_delay_by_tile[3]);
	destroy(&f);
}

/* setCycleEstimate wins over the codelet's estimator; a codelet without
 * one costs 20 + the elements of its fields. */
static void test_estimate_sources(void **state)
{
	fixture f;
	tsi_compute_set *sets[3];
	(void)state;

	build(&f);
	sets[0] = tsi_graph_add_compute_set(f.g, "override");
	tsi_vertex *v = add(&f, sets[0], "Work", f.data);
	assert_int_equal(tsi_graph_set_cycle_estimate(f.g, v, 1000), TSI_OK);
	sets[1] = tsi_graph_add_compute_set(f.g, "default");
	add(&f, sets[1], "NoEstimate", f.data); /* 5 in + 1 out */
	sets[2] = work_set(&f, "plain", 1);
	const tsi_graph_profile *gp = compile_sets(&f, sets, 3);
	uint64_t overhead = tsi_tile_values_get(&gp->compute_sets[2].cycles_by_tile, 0) - 6 * 50;

	assert_int_equal(tsi_tile_values_get(&gp->compute_sets[0].active_cycles_by_tile, 0), 1000);
	assert_int_equal(tsi_tile_values_get(&gp->compute_sets[0].cycles_by_tile, 0),
	                 overhead + 6000);
	/* setCycleEstimate changes cycles, not the flops of the work. */
	assert_int_equal(gp->compute_sets[0].flops, 5);
	assert_int_equal(tsi_tile_values_get(&gp->compute_sets[1].active_cycles_by_tile, 0), 26);
	assert_int_equal(tsi_tile_values_get(&gp->compute_sets[1].cycles_by_tile, 0),
	                 overhead + 6 * 26);
	assert_int_equal(gp->compute_sets[1].flops, 0);
	destroy(&f);
}

/* A supervisor vertex adds its E to the tile after the workers' part and
 * to the active cycles; by-type cycles split by vertex type. */
static void test_supervisor(void **state)
{
	fixture f;
	tsi_compute_set *sets[2];
	(void)state;

	build(&f);
	sets[0] = work_set(&f, "ref", 1);
	sets[1] = tsi_graph_add_compute_set(f.g, "mixed");
	add(&f, sets[1], "Super", f.data);
	add(&f, sets[1], "Work", f.data);
	add(&f, sets[1], "Work", f.data);
	const tsi_graph_profile *gp = compile_sets(&f, sets, 2);
	uint64_t overhead = tsi_tile_values_get(&gp->compute_sets[0].cycles_by_tile, 0) - 6 * 50;
	const tsi_compute_set_profile *m = &gp->compute_sets[1];

	/* Two workers on two contexts: 6 x 50; the supervisor 100 after. */
	assert_int_equal(tsi_tile_values_get(&m->cycles_by_tile, 0), overhead + 300 + 100);
	assert_int_equal(tsi_tile_values_get(&m->active_cycles_by_tile, 0), 200);
	assert_int_equal(m->n_types, 2);
	assert_int_equal(by_type_sum(m), 200);
	for (uint32_t i = 0; i < m->n_types; i++) {
		const char *name = gp->vertex_types[m->vertex_types[i]].name;
		if (strcmp(name, "Super") == 0)
			assert_int_equal(m->active_cycles_by_type[i], 100);
		else
			assert_int_equal(m->active_cycles_by_type[i], 100); /* 2 x 50 */
	}
	assert_int_equal(m->flops, 10); /* the supervisor codelet has no flops */
	destroy(&f);
}

/* Compute sets never executed keep empty cycle fields. */
static void test_unexecuted_set(void **state)
{
	fixture f;
	tsi_compute_set *sets[1];
	(void)state;

	build(&f);
	work_set(&f, "unused", 2);
	sets[0] = work_set(&f, "used", 1);
	const tsi_graph_profile *gp = compile_sets(&f, sets, 1);
	assert_int_equal(gp->compute_sets[0].cycles_by_tile.n, 0);
	assert_int_equal(gp->compute_sets[0].flops, 0);
	assert_int_equal(gp->compute_sets[1].cycles_by_tile.n, 1);
	destroy(&f);
}

/* A Copy between variables on one tile becomes a generated copy compute
 * set: 20 + ceil(bytes / 8) cycles on the tile, all of them active. */
static void test_generated_copy(void **state)
{
	fixture f;
	(void)state;

	build(&f);
	tsi_tensor *dst = tsi_graph_add_variable(f.g, TSI_FLOAT, TSI_SHAPE(16), "dst");
	tsi_tensor *odd = tsi_graph_add_variable(f.g, TSI_FLOAT, TSI_SHAPE(3), "odd");
	assert_int_equal(tsi_graph_set_tile_mapping(f.g, dst, 0), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f.g, odd, 1), TSI_OK);
	tsi_program *seq = tsi_prog_sequence(f.g, "main");
	tsi_sequence_add(seq, tsi_prog_copy(f.g, f.out, dst));
	tsi_sequence_add(seq, tsi_prog_copy(f.g, tsi_tensor_slice(f.far, 0, 3), odd));
	assert_int_equal(tsi_engine_new(&f.e, f.g, &seq, 1, NULL), TSI_OK);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f.e);

	/* No user compute set ran: the two generated ones follow the user's. */
	assert_int_equal(gp->n_compute_sets, 2);
	const tsi_compute_set_profile *c64 = &gp->compute_sets[0], *c12 = &gp->compute_sets[1];
	assert_int_equal(tsi_tile_values_get(&c64->cycles_by_tile, 0), 20 + 8);  /* 64 bytes */
	assert_int_equal(tsi_tile_values_get(&c64->active_cycles_by_tile, 0), 28);
	assert_int_equal(c64->n_types, 1);
	assert_string_equal(gp->vertex_types[c64->vertex_types[0]].name,
	                    "poplar_rt::Memcpy64BitSupervisor");
	assert_int_equal(c64->active_cycles_by_type[0], 28);
	assert_int_equal(tsi_tile_values_get(&c12->cycles_by_tile, 1), 20 + 2); /* 12 bytes */
	assert_int_equal(c12->cycles_by_tile.n, 1);
	assert_int_equal(c64->flops, 0);
	destroy(&f);
}

/* Compiles the same two compute sets (one Work vertex on tile 0, two on
 * tile 0 plus one on tile 2) with `level` instrumentation (NULL: none) and
 * returns tile `tile`'s cycles and active cycles of set `which`. */
static void instrumented(fixture *f, const char *level, unsigned which, unsigned tile,
                         uint64_t *cycles, uint64_t *active)
{
	tsi_options *o = NULL;
	tsi_engine *e;
	tsi_program *seq = tsi_prog_sequence(f->g, NULL);

	for (size_t i = 0; i < f->g_sets; i++)
		tsi_sequence_add(seq, tsi_prog_execute(f->g, f->sets[i]));
	if (level) {
		o = tsi_options_new();
		assert_int_equal(tsi_options_set(o, "debug.instrument", "true"), TSI_OK);
		assert_int_equal(tsi_options_set(o, "debug.computeInstrumentationLevel", level), TSI_OK);
	}
	assert_int_equal(tsi_engine_new(&e, f->g, &seq, 1, o), TSI_OK);
	const tsi_compute_set_profile *cs = &tsi_engine_get_graph_profile(e)->compute_sets[which];
	*cycles = tsi_tile_values_get(&cs->cycles_by_tile, tile);
	*active = tsi_tile_values_get(&cs->active_cycles_by_tile, tile);
	tsi_engine_free(e);
	tsi_options_free(o);
}

/* Instrumentation costs cycles where its level says: every tile (tile),
 * every vertex (vertex), one tile (device). */
static void test_instrumentation(void **state)
{
	fixture f;
	uint64_t base_c, base_a, c, a, base_c2, base_a2, c2, a2;
	(void)state;

	build(&f);
	f.sets[0] = work_set(&f, "single", 1);
	f.sets[1] = work_set(&f, "spread", 2);
	tsi_vertex *v = add(&f, f.sets[1], "Work", f.far);
	assert_int_equal(tsi_graph_set_vertex_tile(f.g, v, 2), TSI_OK);
	f.g_sets = 2;

	instrumented(&f, NULL, 0, 0, &base_c, &base_a);
	instrumented(&f, "tile", 0, 0, &c, &a);
	uint64_t d = c - base_c;
	assert_true(c > base_c);
	assert_int_equal(a, base_a); /* the supervisor reads the counter */
	instrumented(&f, NULL, 1, 2, &base_c2, &base_a2);
	instrumented(&f, "tile", 1, 2, &c2, &a2);
	assert_int_equal(c2 - base_c2, d); /* every tile pays */

	/* Vertex level: each vertex's own thread pays, six-fold in tile time
	 * when it runs alone. */
	instrumented(&f, "vertex", 0, 0, &c, &a);
	assert_int_equal(a - base_a, d);
	assert_int_equal(c - base_c, 6 * d);

	/* Device level: only the lowest tile of the compute set pays. */
	instrumented(&f, "device", 1, 2, &c2, &a2);
	assert_int_equal(c2, base_c2);
	instrumented(&f, NULL, 1, 0, &base_c, &base_a);
	instrumented(&f, "device", 1, 0, &c, &a);
	assert_int_equal(c - base_c, d);
	destroy(&f);
}

/* --- The simulation ----------------------------------------------------------------- */

/* Checks what every run must satisfy: steps back to back from 0 adding up
 * to the run's cycles, balances in [0, 1], a sync right before every
 * exchange, tileCycles equal to the sums over the steps. */
static void check_run(const tsi_graph_profile *gp, const tsi_run_profile *run)
{
	uint64_t t = 0, sum = 0;
	tsi_tile_cycles tc;
	uint32_t num_tiles = gp->target.num_tiles;

	memset(&tc, 0, sizeof(tc));
	for (size_t i = 0; i < run->n_steps; i++) {
		const tsi_step *s = &run->steps[i];

		/* Monotone; gaps only where a consensus took time. */
		assert_true(s->cycles_from >= t);
		assert_int_equal(s->cycles_to, s->cycles_from + s->cycles);
		assert_int_equal(s->cycles_overlapped, 0);
		assert_true(s->tile_balance >= 0.0 && s->tile_balance <= 1.0);
		assert_true(s->active_tile_balance >= 0.0 && s->active_tile_balance <= 1.0);
		assert_true(s->thread_balance >= 0.0 && s->thread_balance <= 1.0);
		assert_true(s->data_balance >= 0.0 && s->data_balance <= 1.0);
		assert_true(s->active_tiles <= num_tiles);
		assert_true(s->program < gp->n_programs);
		sum += s->cycles;
		switch (s->type) {
		case TSI_STEP_ON_TILE_EXECUTE: {
			const tsi_compute_set_profile *cs = &gp->compute_sets[s->compute_set];
			assert_int_equal(s->cycles, tsi_tile_values_max(&cs->cycles_by_tile));
			tc.compute += tsi_tile_values_sum(&cs->cycles_by_tile);
			tc.active_compute += tsi_tile_values_sum(&cs->active_cycles_by_tile);
			break;
		}
		case TSI_STEP_DO_EXCHANGE:
		case TSI_STEP_GLOBAL_EXCHANGE:
		case TSI_STEP_STREAM_COPY: {
			tsi_exchange_kind k = s->type == TSI_STEP_DO_EXCHANGE       ? TSI_EXCHANGE_INTERNAL
			                      : s->type == TSI_STEP_GLOBAL_EXCHANGE ? TSI_EXCHANGE_EXTERNAL
			                                                            : TSI_EXCHANGE_HOST;
			const tsi_exchange_profile *ex = &gp->exchanges[k][s->exchange];
			uint64_t cyc = tsi_tile_values_sum(&ex->cycles);

			/* BSP: the step before an exchange is a sync of the right kind. */
			assert_true(i > 0);
			assert_int_equal(run->steps[i - 1].type, TSI_STEP_SYNC);
			if (k != TSI_EXCHANGE_INTERNAL)
				assert_int_equal(run->steps[i - 1].sync_type, TSI_SYNC_EXTERNAL);
			assert_int_equal(s->cycles, tsi_tile_values_max(&ex->cycles));
			if (k == TSI_EXCHANGE_INTERNAL)
				tc.do_exchange += cyc;
			else if (k == TSI_EXCHANGE_EXTERNAL)
				tc.global_exchange += cyc;
			else
				tc.stream_copy += cyc;
			break;
		}
		case TSI_STEP_SYNC:
			assert_true(s->cycles >= gp->min_sync_delay);
			tc.sync += s->cycles * num_tiles;
			break;
		default:
			fail();
		}
		t = s->cycles_to;
	}
	/* Nothing overlaps, so the steps add up to the run, give or take the
	 * consensus steps that take time without a step of their own. */
	assert_true(run->cycles >= sum);
	assert_true(run->n_steps == 0 || run->cycles >= run->steps[run->n_steps - 1].cycles_to);
	assert_int_equal(tc.compute, run->tile_cycles.compute);
	assert_int_equal(tc.active_compute, run->tile_cycles.active_compute);
	assert_int_equal(tc.do_exchange, run->tile_cycles.do_exchange);
	assert_int_equal(tc.global_exchange, run->tile_cycles.global_exchange);
	assert_int_equal(tc.stream_copy, run->tile_cycles.stream_copy);
	assert_int_equal(tc.sync, run->tile_cycles.sync);
	assert_true(run->tile_cycles.active_compute <= run->tile_cycles.compute);
}

/* Counts a run's steps of `type`. */
static size_t count_steps(const tsi_run_profile *run, tsi_step_type type)
{
	size_t n = 0;

	for (size_t i = 0; i < run->n_steps; i++)
		n += run->steps[i].type == type;
	return n;
}

/* A stream copy in, a Repeat(3) of a compute set that fetches data from
 * another tile, a stream copy out. */
static void test_run_steps(void **state)
{
	fixture f;
	float in_buf[5] = {1, 2, 3, 4, 5}, out_buf[16];
	(void)state;

	build(&f);
	tsi_stream *h2d = tsi_graph_add_host_to_device_fifo(f.g, "in", TSI_FLOAT, 5,
	                                                    TSI_REPLICATED_STREAM_BROADCAST);
	tsi_stream *d2h = tsi_graph_add_device_to_host_fifo(f.g, "out", TSI_FLOAT, 16);
	tsi_compute_set *cs = tsi_graph_add_compute_set(f.g, "fetch");
	add(&f, cs, "Work", f.far); /* far lives on tile 1: an exchange first */
	add(&f, cs, "Work", f.data);
	tsi_program *seq = tsi_prog_sequence(f.g, "main");
	tsi_sequence_add(seq, tsi_prog_copy_from_stream(f.g, h2d, f.far));
	tsi_sequence_add(seq, tsi_prog_repeat(f.g, 3, tsi_prog_execute(f.g, cs)));
	tsi_sequence_add(seq, tsi_prog_copy_to_stream(f.g, f.out, d2h));
	assert_int_equal(tsi_engine_new(&f.e, f.g, &seq, 1, NULL), TSI_OK);
	assert_int_equal(tsi_engine_load(f.e, f.dev), TSI_OK);
	assert_int_equal(tsi_engine_connect_stream(f.e, "in", in_buf, in_buf + 5), TSI_OK);
	assert_int_equal(tsi_engine_connect_stream(f.e, "out", out_buf, out_buf + 16), TSI_OK);
	assert_int_equal(tsi_engine_run(f.e, 0), TSI_OK);

	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f.e);
	assert_int_equal(tsi_engine_num_run_profiles(f.e), 1);
	const tsi_run_profile *run = tsi_engine_get_run_profile(f.e, 0);
	assert_non_null(run);
	assert_int_equal(run->program_index, 0);
	assert_true(run->n_trace > 0);
	check_run(gp, run);
	/* Nothing here takes time without a step: the steps are the run. */
	uint64_t sum = 0;
	for (size_t i = 0; i < run->n_steps; i++)
		sum += run->steps[i].cycles;
	assert_int_equal(sum, run->cycles);
	assert_int_equal(run->steps[run->n_steps - 1].cycles_to, run->cycles);
	for (size_t i = 1; i < run->n_steps; i++)
		assert_int_equal(run->steps[i].cycles_from, run->steps[i - 1].cycles_to);

	assert_int_equal(count_steps(run, TSI_STEP_ON_TILE_EXECUTE), 3);
	assert_int_equal(count_steps(run, TSI_STEP_DO_EXCHANGE), 3);
	assert_int_equal(count_steps(run, TSI_STEP_STREAM_COPY), 2);
	/* One sync before each of the five exchanges, none doubled. */
	assert_int_equal(count_steps(run, TSI_STEP_SYNC), 5);
	assert_int_equal(run->steps[0].type, TSI_STEP_SYNC);
	assert_int_equal(run->steps[0].sync_type, TSI_SYNC_EXTERNAL);
	assert_int_equal(run->steps[1].type, TSI_STEP_STREAM_COPY);
	assert_int_equal(run->steps[1].total_data, 20);
	assert_int_equal(run->steps[run->n_steps - 1].type, TSI_STEP_STREAM_COPY);
	assert_int_equal(run->steps[run->n_steps - 1].total_data, 64);

	/* The OnTileExecute steps: tile 0 only, two of six threads busy. */
	for (size_t i = 0; i < run->n_steps; i++) {
		const tsi_step *s = &run->steps[i];
		if (s->type == TSI_STEP_DO_EXCHANGE) {
			assert_int_equal(s->total_data, 20);
			assert_int_equal(s->active_tiles, 2); /* tile 1 sends, tile 0 receives */
			assert_close(s->data_balance, 40.0 / (20.0 * 4), 1e-9);
		}
		if (s->type != TSI_STEP_ON_TILE_EXECUTE)
			continue;
		const tsi_compute_set_profile *c = &gp->compute_sets[s->compute_set];
		uint64_t cyc = tsi_tile_values_get(&c->cycles_by_tile, 0);
		assert_int_equal(s->compute_set, 0);
		assert_int_equal(s->active_tiles, 1);
		assert_close(s->tile_balance, 0.25, 1e-9);
		assert_close(s->active_tile_balance, 1.0, 1e-9);
		assert_close(s->thread_balance, 100.0 / (double)cyc, 1e-9);
		assert_true(s->thread_balance < 2.0 / 6.0 + 1e-9);
		assert_true(s->thread_balance > 1.0 / 6.0);
	}
	assert_int_equal(run->tile_cycles.compute,
	                 3 * tsi_tile_values_sum(&gp->compute_sets[0].cycles_by_tile));
	assert_int_equal(run->tile_cycles.active_compute, 300);
	destroy(&f);
}

/* Six threads always busy: thread balance near 1; If and explicit syncs
 * in the trace: consensus time, explicit sync steps, no doubled syncs. */
static void test_thread_balance_and_control(void **state)
{
	fixture f;
	(void)state;

	build(&f);
	tsi_compute_set *six = work_set(&f, "six", 6);
	tsi_tensor *pred = tsi_graph_add_constant_fill(f.g, TSI_INT, TSI_SHAPE(1), 1, "pred");
	tsi_graph_set_tile_mapping(f.g, pred, 0);
	tsi_program *seq = tsi_prog_sequence(f.g, "main");
	tsi_sequence_add(seq, tsi_prog_execute(f.g, six));
	tsi_sequence_add(seq, tsi_prog_sync(f.g, TSI_SYNC_INTERNAL));
	tsi_sequence_add(seq, tsi_prog_sync(f.g, TSI_SYNC_GLOBAL));
	tsi_sequence_add(seq, tsi_prog_if(f.g, pred, tsi_prog_execute(f.g, six), NULL));
	assert_int_equal(tsi_engine_new(&f.e, f.g, &seq, 1, NULL), TSI_OK);
	assert_int_equal(tsi_engine_load(f.e, f.dev), TSI_OK);
	assert_int_equal(tsi_engine_run(f.e, 0), TSI_OK);
	assert_int_equal(tsi_engine_run(f.e, 0), TSI_OK);
	assert_int_equal(tsi_engine_num_run_profiles(f.e), 2);

	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f.e);
	const tsi_run_profile *run = tsi_engine_get_run_profile(f.e, 1);
	check_run(gp, run);
	assert_int_equal(count_steps(run, TSI_STEP_ON_TILE_EXECUTE), 2);
	/* Explicit internal, global (as external), the If's internal. */
	assert_int_equal(count_steps(run, TSI_STEP_SYNC), 3);
	assert_int_equal(run->steps[2].sync_type, TSI_SYNC_EXTERNAL);
	assert_true(run->steps[2].cycles > run->steps[1].cycles);
	/* SetLocalConsensusFromVar takes a little time but is not a step. */
	uint64_t sum = 0;
	for (size_t i = 0; i < run->n_steps; i++)
		sum += run->steps[i].cycles;
	assert_true(run->cycles > sum);
	assert_true(run->cycles - sum < 100);
	for (size_t i = 0; i < run->n_steps; i++) {
		if (run->steps[i].type == TSI_STEP_ON_TILE_EXECUTE) {
			assert_true(run->steps[i].thread_balance > 0.9);
			assert_true(run->steps[i].thread_balance <= 1.0);
		}
	}
	/* Both runs simulate the same thing. */
	assert_int_equal(tsi_engine_get_run_profile(f.e, 0)->cycles, run->cycles);
	destroy(&f);
}

/* Two IPUs: data from the other IPU comes by GlobalExchange after an
 * external sync; a long loop gives a long trace, simulated step by step. */
static void test_global_exchange_loop(void **state)
{
	fixture f;
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	const uint64_t n = 20000;
	(void)state;

	memset(&f, 0, sizeof(f));
	o.num_ipus = 2;
	o.tiles_per_ipu = 2;
	assert_int_equal(tsi_device_new_ipu_model(&f.dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&f.g, tsi_device_get_target(f.dev), 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelets(f.g, codelets, 3), TSI_OK);
	tsi_tensor *in = tsi_graph_add_variable(f.g, TSI_FLOAT, TSI_SHAPE(2), "in");
	f.out = tsi_graph_add_variable(f.g, TSI_FLOAT, TSI_SHAPE(1), "out");
	assert_int_equal(tsi_graph_set_tile_mapping(f.g, in, 0), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f.g, f.out, 3), TSI_OK);
	tsi_compute_set *cs = tsi_graph_add_compute_set(f.g, "remote");
	tsi_vertex *v = add(&f, cs, "Work", in);
	assert_int_equal(tsi_graph_set_vertex_tile(f.g, v, 3), TSI_OK);
	tsi_program *loop = tsi_prog_repeat(f.g, n, tsi_prog_execute(f.g, cs));
	assert_int_equal(tsi_engine_new(&f.e, f.g, &loop, 1, NULL), TSI_OK);
	assert_int_equal(tsi_engine_load(f.e, f.dev), TSI_OK);
	assert_int_equal(tsi_engine_run(f.e, 0), TSI_OK);

	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f.e);
	const tsi_run_profile *run = tsi_engine_get_run_profile(f.e, 0);
	assert_non_null(run);
	assert_int_equal(gp->n_exchanges[TSI_EXCHANGE_EXTERNAL], 1);
	check_run(gp, run);
	assert_int_equal(run->n_steps, 3 * n);
	assert_int_equal(count_steps(run, TSI_STEP_GLOBAL_EXCHANGE), n);
	assert_int_equal(count_steps(run, TSI_STEP_ON_TILE_EXECUTE), n);
	assert_int_equal(run->steps[0].type, TSI_STEP_SYNC);
	assert_int_equal(run->steps[0].sync_type, TSI_SYNC_EXTERNAL);
	assert_int_equal(run->steps[1].type, TSI_STEP_GLOBAL_EXCHANGE);
	assert_int_equal(run->steps[1].total_data, 8);
	assert_int_equal(run->steps[1].exchange, 0);
	const tsi_exchange_profile *ex = &gp->exchanges[TSI_EXCHANGE_EXTERNAL][0];
	assert_int_equal(run->tile_cycles.global_exchange, n * tsi_tile_values_sum(&ex->cycles));
	assert_int_equal(run->tile_cycles.do_exchange, 0);
	assert_int_equal(run->tile_cycles.sync, n * run->steps[0].cycles * 4);
	uint64_t per_iter = run->steps[0].cycles + run->steps[1].cycles + run->steps[2].cycles;
	assert_int_equal(run->cycles, n * per_iter);
	destroy(&f);
}

/* 200,000 vertices over a whole IPU: every tile estimated, sums exact. */
static void test_many_vertices(void **state)
{
	fixture f;
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	const size_t n = 200000;
	(void)state;

	memset(&f, 0, sizeof(f));
	assert_int_equal(tsi_device_new_ipu_model(&f.dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&f.g, tsi_device_get_target(f.dev), 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelets(f.g, codelets, 3), TSI_OK);
	unsigned tiles = tsi_device_get_target(f.dev)->num_tiles;
	tsi_tensor *in = tsi_graph_add_variable(f.g, TSI_FLOAT, TSI_SHAPE(n), "in");
	tsi_tensor *out = tsi_graph_add_variable(f.g, TSI_FLOAT, TSI_SHAPE(n), "out");
	tsi_compute_set *cs = tsi_graph_add_compute_set(f.g, "big");
	assert_int_equal(tsi_graph_map_linearly(f.g, in, 1), TSI_OK);
	assert_int_equal(tsi_graph_map_linearly(f.g, out, 1), TSI_OK);
	for (size_t i = 0; i < n; i++) {
		tsi_vertex *v = tsi_graph_add_vertex(f.g, cs, "Work");
		tsi_graph_connect(f.g, v, "in", tsi_tensor_index(in, i));
		tsi_graph_connect(f.g, v, "out", tsi_tensor_index(out, i));
		tsi_graph_set_vertex_tile(f.g, v, tsi_graph_get_tile_of(f.g, out, i));
	}
	tsi_program *p = tsi_prog_execute(f.g, cs);
	assert_int_equal(tsi_engine_new(&f.e, f.g, &p, 1, NULL), TSI_OK);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f.e);
	const tsi_compute_set_profile *c = &gp->compute_sets[0];
	assert_int_equal(tsi_tile_values_sum(&c->active_cycles_by_tile), 10 * n);
	assert_true(c->cycles_by_tile.n > tiles / 2 && c->cycles_by_tile.n <= tiles);
	assert_int_equal(c->active_cycles_by_tile.n, c->cycles_by_tile.n);
	assert_int_equal(c->flops, n);
	destroy(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_barrel_rounds),
		cmocka_unit_test(test_estimate_sources),
		cmocka_unit_test(test_supervisor),
		cmocka_unit_test(test_unexecuted_set),
		cmocka_unit_test(test_instrumentation),
		cmocka_unit_test(test_generated_copy),
		cmocka_unit_test(test_run_steps),
		cmocka_unit_test(test_thread_balance_and_control),
		cmocka_unit_test(test_global_exchange_loop),
		cmocka_unit_test(test_many_vertices),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
