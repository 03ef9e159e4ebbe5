/*
 * Unit tests of the compiler model's tile memory layout (the graph
 * profile's "memory" section): categories against byTile with the overlap
 * identity, gaps, always-live aggregates, control code and stacks on every
 * tile, vertex code once per type and tile, vertex data by compute set and
 * type, overlap of variables with disjoint lifetimes, out-of-memory tiles
 * and instrumentation results. Public API only: small graphs are compiled
 * into engines (no device needed) and their graph profiles read.
 */
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

/* --- Codelets ---------------------------------------------------------------- */

/* out[i] = in[i] for the common length. */
static bool work_compute(const tsi_field *f, size_t n)
{
	size_t k = f[0].count < f[1].count ? f[0].count : f[1].count;

	(void)n;
	memcpy(f[1].data, f[0].data, k * sizeof(float));
	return true;
}

static const tsi_field_def work_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};

/* out = sum of every sub-vector of in. */
static bool list_compute(const tsi_field *f, size_t n)
{
	float s = 0;

	(void)n;
	for (size_t i = 0; i < f[0].count; i++)
		s += ((const float *)f[0].data)[i];
	*(float *)f[1].data = s;
	return true;
}

static const tsi_field_def list_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

/* Reads its input and does nothing. */
static bool sink_compute(const tsi_field *f, size_t n)
{
	(void)f;
	(void)n;
	return true;
}

static const tsi_field_def sink_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};

/* State sizes that are not multiples of 4 exercise the padding. */
#define WORK_STATE 10u
#define WORK_CODE  1000u
#define LIST_STATE 8u
#define LIST_CODE  200u
#define SINK_STATE 4u
#define SINK_CODE  100u

static const tsi_codelet codelets[] = {
	{"Work", work_fields, 2, work_compute, NULL, NULL, WORK_STATE, WORK_CODE, false},
	{"ListV", list_fields, 2, list_compute, NULL, NULL, LIST_STATE, LIST_CODE, false},
	{"Sink", sink_fields, 1, sink_compute, NULL, NULL, SINK_STATE, SINK_CODE, false},
};

/* --- Helpers ----------------------------------------------------------------- */

/* A graph on one Mk1 IPU (256 KiB tiles) of `tiles` tiles, with the codelets. */
static tsi_graph *new_graph(unsigned tiles)
{
	tsi_target target;
	tsi_graph *g = NULL;

	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK1, 1, tiles), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelets(g, codelets, 3), TSI_OK);
	return g;
}

/* A float variable of `n` elements, all on `tile`. */
static tsi_tensor *var_on(tsi_graph *g, const char *name, size_t n, unsigned tile)
{
	tsi_tensor *t = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(n), name);

	assert_non_null(t);
	assert_int_equal(tsi_graph_set_tile_mapping(g, t, tile), TSI_OK);
	return t;
}

/* Adds a Work vertex in -> out on `tile` to `cs`. */
static void add_work(tsi_graph *g, tsi_compute_set *cs, const tsi_tensor *in,
                     const tsi_tensor *out, unsigned tile)
{
	tsi_vertex *v = tsi_graph_add_vertex(g, cs, "Work");

	assert_non_null(v);
	assert_int_equal(tsi_graph_connect(g, v, "in", in), TSI_OK);
	assert_int_equal(tsi_graph_connect(g, v, "out", out), TSI_OK);
	assert_int_equal(tsi_graph_set_vertex_tile(g, v, tile), TSI_OK);
}

/* Compiles one program (with `opts`, may be NULL) and returns the engine. */
static tsi_engine *compile1(tsi_graph *g, tsi_program *prog, const tsi_options *opts)
{
	tsi_engine *e = NULL;
	int rc = tsi_engine_new(&e, g, &prog, 1, opts);

	if (rc)
		print_error("tsi_engine_new: %s\n", tsi_error_last());
	assert_int_equal(rc, TSI_OK);
	assert_non_null(tsi_engine_get_graph_profile(e));
	return e;
}

/* `cat` on `tile` summed over regions, in the overlapped column or not. */
static uint64_t cat_column(const tsi_graph_profile *gp, tsi_mem_category cat, uint32_t tile,
                           bool overlapped)
{
	uint64_t s = 0;

	for (int r = 0; r < TSI_REGION_COUNT; r++)
		s += tsi_graph_profile_category(gp, cat, (tsi_mem_region)r, overlapped, tile);
	return s;
}

/* `cat` on `tile` summed over regions and both columns. */
static uint64_t cat_total(const tsi_graph_profile *gp, tsi_mem_category cat, uint32_t tile)
{
	return cat_column(gp, cat, tile, false) + cat_column(gp, cat, tile, true);
}

static const tsi_variable_profile *find_var(const tsi_graph_profile *gp, const char *name)
{
	for (size_t i = 0; i < gp->n_variables; i++)
		if (gp->variables[i].name && strcmp(gp->variables[i].name, name) == 0)
			return &gp->variables[i];
	return NULL;
}

static size_t find_type(const tsi_graph_profile *gp, const char *name)
{
	for (size_t i = 0; i < gp->n_vertex_types; i++)
		if (strcmp(gp->vertex_types[i].name, name) == 0)
			return i;
	fail_msg("no vertex type %s", name);
	return 0;
}

static size_t find_cs(const tsi_graph_profile *gp, const char *name)
{
	for (size_t i = 0; i < gp->n_compute_sets; i++)
		if (gp->compute_sets[i].name && strcmp(gp->compute_sets[i].name, name) == 0)
			return i;
	fail_msg("no compute set %s", name);
	return 0;
}

/*
 * The overlap pool the model should build on `tile`, recomputed from the
 * variables list: the peak over liveness steps of the bytes of the
 * not-always-live entries live there (a peak starts at some entry's
 * live_from, so only those steps are tried). Entries live nowhere
 * (live_from = UINT32_MAX) take no room.
 */
static uint64_t expected_pool(const tsi_graph_profile *gp, uint32_t tile)
{
	uint64_t peak = 0;

	for (size_t i = 0; i < gp->n_variables; i++) {
		const tsi_variable_profile *a = &gp->variables[i];
		uint64_t live = 0;

		if (a->always_live || a->live_from == UINT32_MAX ||
		    tsi_tile_values_get(&a->bytes_by_tile, tile) == 0)
			continue;
		for (size_t j = 0; j < gp->n_variables; j++) {
			const tsi_variable_profile *v = &gp->variables[j];
			if (!v->always_live && v->live_from != UINT32_MAX && v->live_from <= a->live_from &&
			    a->live_from <= v->live_to)
				live += tsi_tile_values_get(&v->bytes_by_tile, tile);
		}
		if (live > peak)
			peak = live;
	}
	return peak;
}

/* Bytes of the not-always-live entries on `tile`. */
static uint64_t not_always_live_on(const tsi_graph_profile *gp, uint32_t tile)
{
	uint64_t s = 0;

	for (size_t i = 0; i < gp->n_variables; i++)
		if (!gp->variables[i].always_live)
			s += tsi_tile_values_get(&gp->variables[i].bytes_by_tile, tile);
	return s;
}

/*
 * Checks, for every tile, the identity the model implements:
 *   nonOverlapped cells + pool = total,
 *   overlapped cells = the not-always-live entries' bytes on the tile,
 * so all cells = total + (overlapped bytes - pool), "what overlapping
 * saved"; and the byTile invariants: total is the sum of the regions,
 * each region's extent covers its bytes, the total with gaps covers both.
 */
static void assert_tile_identities(const tsi_graph_profile *gp)
{
	for (uint32_t t = 0; t < gp->target.num_tiles; t++) {
		const tsi_tile_memory *tm = &gp->by_tile[t];
		uint64_t non = 0, ovl = 0, all = 0;

		for (int c = 0; c < TSI_MEM_CATEGORY_COUNT; c++) {
			non += cat_column(gp, (tsi_mem_category)c, t, false);
			ovl += cat_column(gp, (tsi_mem_category)c, t, true);
		}
		all = non + ovl;
		uint64_t pool = expected_pool(gp, t);
		assert_int_equal(non + pool, tm->total);
		assert_int_equal(ovl, not_always_live_on(gp, t));
		assert_int_equal(all, tm->total + (ovl - pool));
		assert_int_equal(tm->total, tm->region[TSI_REGION_INTERLEAVED] +
		                                tm->region[TSI_REGION_NON_INTERLEAVED] +
		                                tm->region[TSI_REGION_OVERFLOWED]);
		for (int r = 0; r < TSI_REGION_COUNT; r++)
			assert_true(tm->region_including_gaps[r] >= tm->region[r]);
		assert_true(tm->total_including_gaps >= tm->total);
		assert_true(tm->total_including_gaps >= tm->region_including_gaps[TSI_REGION_NON_INTERLEAVED]);
		/* Data placed in the non-interleaved region stays below the
		 * interleaved one, which starts at or before the middle of the tile. */
		assert_true(tm->region_including_gaps[TSI_REGION_NON_INTERLEAVED] <= gp->target.bytes_per_tile / 2);
	}
}

/* --- Tests ----------------------------------------------------------------- */

/*
 * A graph with on-tile work, an internal exchange, an on-tile copy, a
 * copy between tiles and a host stream: the identities hold on every
 * tile, and every kind of data shows up in its category.
 */
static void test_identity_and_gaps(void **state)
{
	tsi_graph *g = new_graph(4);
	(void)state;

	tsi_tensor *x = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 64), "x");
	tsi_tensor *y = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 64), "y");
	tsi_tensor *z = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 64), "z");
	tsi_tensor *w = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 64), "w");
	tsi_tensor *big = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 512), "big");
	assert_int_equal(tsi_graph_map_linearly(g, x, 64), TSI_OK);
	assert_int_equal(tsi_graph_map_linearly(g, y, 64), TSI_OK);
	assert_int_equal(tsi_graph_map_linearly(g, z, 64), TSI_OK);
	assert_int_equal(tsi_graph_map_linearly(g, w, 64), TSI_OK);
	assert_int_equal(tsi_graph_map_linearly(g, big, 512), TSI_OK);

	tsi_compute_set *local = tsi_graph_add_compute_set(g, "local");
	tsi_compute_set *shift = tsi_graph_add_compute_set(g, "shift");
	for (unsigned t = 0; t < 4; t++) {
		add_work(g, local, tsi_tensor_index(x, t), tsi_tensor_index(y, t), t);
		tsi_vertex *sv = tsi_graph_add_vertex(g, local, "Sink");
		assert_int_equal(tsi_graph_connect(g, sv, "in", tsi_tensor_index(big, t)), TSI_OK);
		assert_int_equal(tsi_graph_set_vertex_tile(g, sv, t), TSI_OK);
		/* Reads the next tile's row: an internal exchange. */
		add_work(g, shift, tsi_tensor_index(y, (t + 1) % 4), tsi_tensor_index(z, t), t);
	}
	tsi_stream *in = tsi_graph_add_host_to_device_fifo(g, "in", TSI_FLOAT, 256,
	                                                   TSI_REPLICATED_STREAM_BROADCAST);
	assert_non_null(in);
	tsi_program *seq = tsi_prog_sequence(g, "main");
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy_from_stream(g, in, tsi_tensor_flatten(x))), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, local)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, shift)), TSI_OK);
	/* Same-tile copy (generated compute set), then a rotated copy (exchange). */
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy(g, z, w)), TSI_OK);
	tsi_tensor *rot = tsi_tensor_concat2(tsi_tensor_slice(z, 1, 4), tsi_tensor_slice(z, 0, 1), 0);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy(g, rot, y)), TSI_OK);

	tsi_engine *e = compile1(g, seq, NULL);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);

	assert_non_null(gp->by_tile);
	assert_non_null(gp->by_category);
	assert_int_equal(gp->n_oom_tiles, 0);
	assert_tile_identities(gp);
	for (uint32_t t = 0; t < 4; t++) {
		/* x, y, z, w: 256 bytes each; big: 2 KiB, interleaved. */
		assert_true(cat_total(gp, TSI_MEM_VARIABLE, t) >= 4 * 256 + 2048);
		assert_true(gp->by_tile[t].region[TSI_REGION_INTERLEAVED] >= 2048);
		assert_true(gp->by_tile[t].total_including_gaps >= gp->target.bytes_per_tile / 2 + 2048);
		assert_true(cat_total(gp, TSI_MEM_INTERNAL_EXCHANGE_CODE, t) > 0);
		assert_true(cat_total(gp, TSI_MEM_HOST_EXCHANGE_CODE, t) > 0);
		assert_true(cat_total(gp, TSI_MEM_HOST_EXCHANGE_PACKET_HEADER, t) > 0);
		assert_true(cat_total(gp, TSI_MEM_COPY_DESCRIPTOR, t) > 0);
		/* Code and vertex data are never interleaved. */
		assert_int_equal(tsi_graph_profile_category(gp, TSI_MEM_VERTEX_CODE, TSI_REGION_INTERLEAVED,
		                                            false, t), 0);
		assert_true(tsi_graph_profile_category(gp, TSI_MEM_VERTEX_CODE, TSI_REGION_NON_INTERLEAVED,
		                                       false, t) > 0);
		assert_int_equal(gp->by_tile[t].region[TSI_REGION_OVERFLOWED], 0);
	}
	/* Out-of-range queries read zero. */
	assert_int_equal(tsi_graph_profile_category(gp, TSI_MEM_STACK, TSI_REGION_NON_INTERLEAVED, false,
	                                            gp->target.num_tiles), 0);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/*
 * always_live_bytes is the sum of the always-live entries, the computed
 * categories appear as always-live entries named like the guide's
 * listing, and each aggregate's bytes on a tile equal its category cells.
 */
static void test_always_live_consistent(void **state)
{
	tsi_graph *g = new_graph(2);
	(void)state;

	tsi_tensor *a = var_on(g, "a", 16, 0);
	tsi_tensor *b = var_on(g, "b", 16, 1);
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "cs");
	add_work(g, cs, a, b, 1); /* a crosses to tile 1: an exchange */
	tsi_program *prog = tsi_prog_execute(g, cs);
	tsi_engine *e = compile1(g, prog, NULL);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);
	uint64_t sum = 0;

	for (size_t i = 0; i < gp->n_variables; i++) {
		const tsi_variable_profile *v = &gp->variables[i];
		assert_int_equal(v->bytes, tsi_tile_values_sum(&v->bytes_by_tile));
		if (v->always_live)
			sum += v->bytes;
	}
	assert_int_equal(gp->always_live_bytes, sum);

	static const struct {
		const char *name;
		tsi_mem_category cat;
	} aggregates[] = {
		{"controlCode", TSI_MEM_CONTROL_CODE},
		{"stack", TSI_MEM_STACK},
		{"vertexCode", TSI_MEM_VERTEX_CODE},
		{"vertexInstanceState", TSI_MEM_VERTEX_INSTANCE_STATE},
		{"internalExchangeCode", TSI_MEM_INTERNAL_EXCHANGE_CODE},
	};
	for (size_t k = 0; k < sizeof(aggregates) / sizeof(aggregates[0]); k++) {
		const tsi_variable_profile *v = find_var(gp, aggregates[k].name);
		assert_non_null(v);
		assert_true(v->always_live);
		assert_int_equal(v->category, aggregates[k].cat);
		assert_true(v->bytes > 0);
		for (uint32_t t = 0; t < gp->target.num_tiles; t++)
			assert_int_equal(tsi_tile_values_get(&v->bytes_by_tile, t),
			                 cat_total(gp, aggregates[k].cat, t));
	}
	/* No aggregate for what is listed variable by variable, nor for empty
	 * categories. */
	assert_null(find_var(gp, "variable"));
	assert_null(find_var(gp, "constant"));
	assert_null(find_var(gp, "instrumentationResults"));
	assert_null(find_var(gp, "vectorListDescriptor"));
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/* Control code and stacks are on every tile, even tiles with nothing else. */
static void test_control_code_and_stack_every_tile(void **state)
{
	tsi_graph *g = new_graph(8);
	(void)state;

	tsi_tensor *a = var_on(g, "a", 8, 0);
	tsi_tensor *b = var_on(g, "b", 8, 0);
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "cs");
	add_work(g, cs, a, b, 0);
	tsi_program *seq = tsi_prog_sequence(g, NULL);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, cs)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_repeat(g, 3, tsi_prog_execute(g, cs))), TSI_OK);
	tsi_engine *e = compile1(g, seq, NULL);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);
	uint64_t control0 = cat_total(gp, TSI_MEM_CONTROL_CODE, 0);
	uint64_t stack0 = cat_total(gp, TSI_MEM_STACK, 0);

	assert_true(control0 > 0);
	assert_true(stack0 > 0);
	for (uint32_t t = 0; t < 8; t++) {
		assert_int_equal(cat_total(gp, TSI_MEM_CONTROL_CODE, t), control0);
		assert_int_equal(cat_total(gp, TSI_MEM_STACK, t), stack0);
		/* Non-interleaved, not overlapped. */
		assert_int_equal(tsi_graph_profile_category(gp, TSI_MEM_STACK, TSI_REGION_NON_INTERLEAVED,
		                                            false, t), stack0);
		assert_int_equal(tsi_graph_profile_category(gp, TSI_MEM_CONTROL_CODE,
		                                            TSI_REGION_NON_INTERLEAVED, false, t), control0);
		assert_true(gp->by_tile[t].total >= control0 + stack0);
		if (t > 0) {
			/* Nothing else on an empty tile. */
			assert_int_equal(gp->by_tile[t].total, control0 + stack0);
			assert_int_equal(cat_total(gp, TSI_MEM_VERTEX_CODE, t), 0);
		}
	}
	/* The control code grows with the lowered programs. */
	assert_int_equal(control0 % gp->n_programs, 0);
	assert_int_equal(find_var(gp, "stack")->bytes, 8 * stack0);
	assert_int_equal(find_var(gp, "controlCode")->bytes, 8 * control0);
	assert_tile_identities(gp);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/*
 * Issue 19: a tile holds the control code of the programs that run on
 * its IPU, not of every program. Two IPUs of 4 tiles: engine program 0
 * computes on IPU 0 only, program 1 repeats a compute set on IPU 1 only.
 * Each IPU's tiles carry the same control code; neither carries every
 * program's; IPU 1 (a Repeat and its body) carries more than IPU 0; every
 * program is charged somewhere.
 */
static void test_control_code_where_it_runs(void **state)
{
	tsi_target target;
	tsi_graph *g = NULL;
	tsi_program *progs[2];
	tsi_engine *e = NULL;
	(void)state;

	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK1, 2, 4), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelets(g, codelets, 3), TSI_OK);
	tsi_tensor *a = var_on(g, "a", 8, 0);
	tsi_tensor *b = var_on(g, "b", 8, 0);
	tsi_tensor *c = var_on(g, "c", 8, 4);
	tsi_tensor *d = var_on(g, "d", 8, 4);
	tsi_compute_set *cs0 = tsi_graph_add_compute_set(g, "onIpu0");
	tsi_compute_set *cs1 = tsi_graph_add_compute_set(g, "onIpu1");
	add_work(g, cs0, a, b, 0);
	add_work(g, cs1, c, d, 4);
	progs[0] = tsi_prog_execute(g, cs0);
	progs[1] = tsi_prog_repeat(g, 3, tsi_prog_execute(g, cs1));
	assert_int_equal(tsi_engine_new(&e, g, progs, 2, NULL), TSI_OK);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);
	uint64_t ipu0 = cat_total(gp, TSI_MEM_CONTROL_CODE, 0);
	uint64_t ipu1 = cat_total(gp, TSI_MEM_CONTROL_CODE, 4);
	uint64_t every = 8 * gp->n_programs;

	for (uint32_t t = 0; t < 8; t++)
		assert_int_equal(cat_total(gp, TSI_MEM_CONTROL_CODE, t), t < 4 ? ipu0 : ipu1);
	assert_true(ipu0 > 0 && ipu0 < every);
	assert_true(ipu1 > ipu0 && ipu1 < every);
	assert_true(ipu0 + ipu1 >= every);
	assert_int_equal(find_var(gp, "controlCode")->bytes, 4 * ipu0 + 4 * ipu1);
	assert_tile_identities(gp);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/*
 * Issue 19: a Switch's jump table is controlTable, 4 bytes per case and
 * default, on every tile of the IPU it runs on (one IPU here: all tiles).
 */
static void test_control_table_of_a_switch(void **state)
{
	tsi_graph *g = new_graph(4);
	(void)state;

	tsi_tensor *a = var_on(g, "a", 8, 0);
	tsi_tensor *b = var_on(g, "b", 8, 0);
	tsi_tensor *which = tsi_graph_add_variable(g, TSI_INT, TSI_SCALAR, "which");
	assert_int_equal(tsi_graph_set_tile_mapping(g, which, 0), TSI_OK);
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "cs");
	add_work(g, cs, a, b, 0);
	tsi_program *sw = tsi_prog_switch(g, which, tsi_prog_execute(g, cs));
	assert_non_null(sw);
	for (int k = 0; k < 3; k++)
		assert_int_equal(tsi_switch_add_case(sw, k, tsi_prog_execute(g, cs)), TSI_OK);
	tsi_engine *e = compile1(g, sw, NULL);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);
	uint64_t want = 0;

	for (size_t i = 0; i < gp->n_programs; i++)
		if (gp->programs[i].type == TSI_LP_SWITCH)
			want += 4 * (uint64_t)gp->programs[i].n_children;
	assert_true(want >= 4 * 4); /* three cases and the default */
	for (uint32_t t = 0; t < 4; t++)
		assert_int_equal(cat_total(gp, TSI_MEM_CONTROL_TABLE, t), want);
	assert_tile_identities(gp);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/*
 * Issue 17: a piece larger than either region (400,000 B on a Mk2 tile:
 * 256 KiB non-interleaved, 368 KiB interleaved) still fits on an
 * otherwise empty tile of 624 KiB, across the boundary, instead of
 * putting that tile out of memory.
 */
static void test_large_piece_spans_regions(void **state)
{
	tsi_target target;
	tsi_graph *g = NULL;
	tsi_engine *e = NULL;
	(void)state;

	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK2, 1, 4), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	tsi_tensor *big = var_on(g, "big", 100000, 0);
	tsi_tensor *copy = var_on(g, "copy", 100000, 1);
	tsi_program *prog = tsi_prog_copy(g, big, copy);
	assert_int_equal(tsi_engine_new(&e, g, &prog, 1, NULL), TSI_OK);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);
	const tsi_tile_memory *t0 = &gp->by_tile[0];

	assert_int_equal(t0->region[TSI_REGION_OVERFLOWED], 0);
	assert_true(t0->region[TSI_REGION_NON_INTERLEAVED] > 0);
	assert_true(t0->region[TSI_REGION_INTERLEAVED] > 0);
	assert_true(t0->total >= 400000);
	assert_true(t0->total_including_gaps <= gp->target.bytes_per_tile);
	for (size_t i = 0; i < gp->n_oom_tiles; i++)
		assert_int_not_equal(gp->oom_tiles[i], 0);
	assert_tile_identities(gp);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/*
 * A type's code counts once per tile however many of its vertices and
 * compute sets are there; vertex state, padding, edge pointers and vector
 * list descriptors by compute set and by type.
 */
static void test_vertex_code_once_per_type_per_tile(void **state)
{
	tsi_graph *g = new_graph(4);
	(void)state;

	tsi_tensor *a = var_on(g, "a", 12, 0);
	tsi_tensor *b = var_on(g, "b", 12, 0);
	tsi_tensor *c = var_on(g, "c", 4, 1);
	tsi_tensor *d = var_on(g, "d", 4, 1);
	tsi_tensor *s = var_on(g, "s", 1, 0);
	tsi_compute_set *cs1 = tsi_graph_add_compute_set(g, "cs1");
	tsi_compute_set *cs2 = tsi_graph_add_compute_set(g, "cs2");
	for (size_t i = 0; i < 3; i++) {
		add_work(g, cs1, tsi_tensor_slice(a, 4 * i, 4 * i + 4), tsi_tensor_slice(b, 4 * i, 4 * i + 4), 0);
		add_work(g, cs2, tsi_tensor_slice(b, 4 * i, 4 * i + 4), tsi_tensor_slice(a, 4 * i, 4 * i + 4), 0);
	}
	add_work(g, cs1, c, d, 1);
	/* A vector list of three sub-vectors: 18 bytes of edge pointers -> 20. */
	tsi_vertex *lv = tsi_graph_add_vertex(g, cs1, "ListV");
	assert_int_equal(tsi_graph_connect(g, lv, "in", tsi_tensor_reshape(a, 2, (const size_t[]){3, 4})), TSI_OK);
	assert_int_equal(tsi_graph_connect(g, lv, "out", s), TSI_OK);
	assert_int_equal(tsi_graph_set_vertex_tile(g, lv, 0), TSI_OK);

	tsi_program *seq = tsi_prog_sequence(g, NULL);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, cs1)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, cs2)), TSI_OK);
	tsi_engine *e = compile1(g, seq, NULL);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);
	size_t work = find_type(gp, "Work"), list = find_type(gp, "ListV");
	size_t i1 = find_cs(gp, "cs1"), i2 = find_cs(gp, "cs2");

	/* vertexCode: Work + ListV on tile 0, Work on tile 1. */
	assert_int_equal(cat_total(gp, TSI_MEM_VERTEX_CODE, 0), WORK_CODE + LIST_CODE);
	assert_int_equal(cat_total(gp, TSI_MEM_VERTEX_CODE, 1), WORK_CODE);
	assert_int_equal(cat_total(gp, TSI_MEM_VERTEX_CODE, 2), 0);
	assert_int_equal(tsi_tile_values_get(&gp->by_vertex_type[work].code_bytes, 0), WORK_CODE);
	assert_int_equal(tsi_tile_values_get(&gp->by_vertex_type[work].code_bytes, 1), WORK_CODE);
	assert_int_equal(gp->by_vertex_type[work].code_bytes.n, 2);
	assert_int_equal(tsi_tile_values_get(&gp->by_compute_set[i1].code_bytes, 0), WORK_CODE + LIST_CODE);
	assert_int_equal(tsi_tile_values_get(&gp->by_compute_set[i2].code_bytes, 0), WORK_CODE);
	assert_int_equal(tsi_tile_values_get(&gp->by_compute_set[i2].code_bytes, 1), 0);

	/* Instance state: 6 Work + 1 ListV on tile 0; rounding to 4 is padding. */
	assert_int_equal(cat_total(gp, TSI_MEM_VERTEX_INSTANCE_STATE, 0), 6 * WORK_STATE + LIST_STATE);
	assert_int_equal(cat_total(gp, TSI_MEM_VERTEX_INSTANCE_STATE, 1), WORK_STATE);
	assert_int_equal(tsi_tile_values_get(&gp->by_compute_set[i1].vertex_data_bytes, 0),
	                 3 * WORK_STATE + LIST_STATE);
	assert_int_equal(tsi_tile_values_get(&gp->by_compute_set[i1].padding_bytes, 0), 3 * 2);
	assert_int_equal(tsi_tile_values_get(&gp->by_vertex_type[work].padding_bytes, 0), 6 * 2);
	assert_int_equal(tsi_tile_values_get(&gp->by_vertex_type[work].vertex_data_bytes, 0), 6 * WORK_STATE);
	assert_int_equal(tsi_tile_values_get(&gp->by_vertex_type[list].padding_bytes, 0), 0);

	/* The vector list: edge pointers and one descriptor. */
	assert_int_equal(cat_total(gp, TSI_MEM_VERTEX_FIELD_DATA, 0), 20);
	assert_int_equal(cat_total(gp, TSI_MEM_VECTOR_LIST_DESCRIPTOR, 0), 8);
	assert_int_equal(cat_total(gp, TSI_MEM_VERTEX_FIELD_DATA, 1), 0);
	assert_int_equal(tsi_tile_values_get(&gp->by_vertex_type[list].edge_ptr_bytes, 0), 20);
	assert_int_equal(tsi_tile_values_get(&gp->by_compute_set[i1].descriptor_bytes, 0), 8);

	/* totalBytes is the sum of the parts. */
	const tsi_vertex_memory *m1 = &gp->by_compute_set[i1];
	assert_int_equal(tsi_tile_values_get(&m1->total_bytes, 0),
	                 WORK_CODE + LIST_CODE + 3 * WORK_STATE + LIST_STATE + 3 * 2 + 20 + 8);
	assert_int_equal(tsi_tile_values_get(&m1->copy_ptr_bytes, 0), 0);
	assert_tile_identities(gp);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/* A copy on one tile: a generated copy vertex, its state, code and copy
 * descriptors. */
static void test_generated_copy(void **state)
{
	tsi_graph *g = new_graph(2);
	(void)state;

	tsi_tensor *a = var_on(g, "a", 32, 0);
	tsi_tensor *b = var_on(g, "b", 32, 0);
	/* Two contiguous runs: b[0:16] <- a[16:32], b[16:32] <- a[0:16]. */
	tsi_tensor *swapped = tsi_tensor_concat2(tsi_tensor_slice(a, 16, 32), tsi_tensor_slice(a, 0, 16), 0);
	tsi_program *prog = tsi_prog_copy(g, swapped, b);
	tsi_engine *e = compile1(g, prog, NULL);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);
	size_t memcpy_type = find_type(gp, "poplar_rt::Memcpy64BitSupervisor");
	const tsi_vertex_type_profile *vt = &gp->vertex_types[memcpy_type];

	assert_true(gp->n_compute_sets >= 1);
	const tsi_vertex_memory *gm = &gp->by_compute_set[gp->n_compute_sets - 1];
	assert_int_equal(cat_total(gp, TSI_MEM_COPY_DESCRIPTOR, 0), 2 * 8);
	assert_int_equal(cat_total(gp, TSI_MEM_VERTEX_INSTANCE_STATE, 0), vt->state_bytes);
	assert_int_equal(cat_total(gp, TSI_MEM_VERTEX_CODE, 0), vt->code_bytes);
	assert_int_equal(cat_total(gp, TSI_MEM_COPY_DESCRIPTOR, 1), 0);
	assert_int_equal(tsi_tile_values_get(&gm->copy_ptr_bytes, 0), 16);
	assert_int_equal(tsi_tile_values_get(&gm->vertex_data_bytes, 0), vt->state_bytes);
	assert_int_equal(tsi_tile_values_get(&gp->by_vertex_type[memcpy_type].code_bytes, 0),
	                 vt->code_bytes);
	assert_int_equal(tsi_tile_values_get(&gm->total_bytes, 0),
	                 vt->code_bytes + vt->state_bytes + 16 + tsi_tile_values_get(&gm->padding_bytes, 0));
	assert_int_equal(find_var(gp, "copyDescriptor")->bytes, 16);
	assert_tile_identities(gp);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/* A variable mapped on tiles 0-3 of 8 is on exactly those tiles. */
static void test_variable_on_tiles_0_to_3(void **state)
{
	tsi_graph *g = new_graph(8);
	(void)state;

	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 300), "v");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "cs");
	for (unsigned t = 0; t < 4; t++) {
		assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_index(v, t), t), TSI_OK);
		tsi_vertex *sv = tsi_graph_add_vertex(g, cs, "Sink");
		assert_int_equal(tsi_graph_connect(g, sv, "in", tsi_tensor_index(v, t)), TSI_OK);
		assert_int_equal(tsi_graph_set_vertex_tile(g, sv, t), TSI_OK);
	}
	tsi_engine *e = compile1(g, tsi_prog_execute(g, cs), NULL);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);
	const tsi_variable_profile *vp = find_var(gp, "v");

	assert_non_null(vp);
	assert_int_equal(vp->category, TSI_MEM_VARIABLE);
	assert_int_equal(vp->bytes, 4 * 1200);
	assert_int_equal(vp->bytes_by_tile.n, 4);
	for (uint32_t t = 0; t < 8; t++) {
		uint64_t var = cat_total(gp, TSI_MEM_VARIABLE, t);
		if (t < 4) {
			assert_int_equal(tsi_tile_values_get(&vp->bytes_by_tile, t), 1200);
			assert_int_equal(var, 1200);
			/* 1,200 bytes: interleaved. */
			assert_true(gp->by_tile[t].region[TSI_REGION_INTERLEAVED] >= 1200);
			assert_int_equal(cat_total(gp, TSI_MEM_VERTEX_CODE, t), SINK_CODE);
		} else {
			assert_int_equal(var, 0);
			assert_int_equal(gp->by_tile[t].region[TSI_REGION_INTERLEAVED], 0);
			/* Nothing interleaved: the total with gaps ends in the
			 * non-interleaved region. */
			assert_int_equal(gp->by_tile[t].total_including_gaps,
			                 gp->by_tile[t].region_including_gaps[TSI_REGION_NON_INTERLEAVED]);
		}
	}
	assert_tile_identities(gp);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/*
 * Two variables on one tile whose lifetimes do not meet share memory: the
 * tile holds the larger of the two, not their sum.
 */
static void test_disjoint_lifetimes_overlap(void **state)
{
	tsi_graph *g = new_graph(1);
	(void)state;

	tsi_tensor *src = var_on(g, "src", 512, 0);
	tsi_tensor *a = var_on(g, "a", 512, 0);
	tsi_tensor *b = var_on(g, "b", 512, 0);
	tsi_tensor *out = var_on(g, "out", 512, 0);
	tsi_compute_set *wa = tsi_graph_add_compute_set(g, "writeA");
	tsi_compute_set *ra = tsi_graph_add_compute_set(g, "readA");
	tsi_compute_set *wb = tsi_graph_add_compute_set(g, "writeB");
	tsi_compute_set *rb = tsi_graph_add_compute_set(g, "readB");
	add_work(g, wa, src, a, 0);
	add_work(g, ra, a, out, 0);
	add_work(g, wb, src, b, 0);
	add_work(g, rb, b, out, 0);
	tsi_program *seq = tsi_prog_sequence(g, NULL);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, wa)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, ra)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, wb)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, rb)), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(g, "out", out), TSI_OK);
	tsi_engine *e = compile1(g, seq, NULL);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);
	const tsi_variable_profile *va = find_var(gp, "a"), *vb = find_var(gp, "b");

	assert_non_null(va);
	assert_non_null(vb);
	assert_false(va->always_live);
	assert_false(vb->always_live);
	assert_true(va->live_to < vb->live_from);

	uint64_t non = 0, ovl = cat_column(gp, TSI_MEM_VARIABLE, 0, true);
	for (int c = 0; c < TSI_MEM_CATEGORY_COUNT; c++)
		non += cat_column(gp, (tsi_mem_category)c, 0, false);
	uint64_t pool = gp->by_tile[0].total - non;
	/* Both counted at their own size in the overlapped column ... */
	assert_true(ovl >= 2 * 2048);
	/* ... but the tile holds one of them: the pool is at most the sum
	 * minus one of the two, and at least one of them. */
	assert_true(pool >= 2048);
	assert_true(pool <= ovl - 2048);
	assert_int_equal(pool, expected_pool(gp, 0));
	assert_tile_identities(gp);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/*
 * A 320,000-byte variable on a 256 KiB Mk1 tile: it fits in neither
 * region, so it is placed at the start of the interleaved region
 * (128 KiB) and runs past the tile's end by 128 KiB + 320,000 - 256 KiB.
 * Its first access is a read, so it is always live: one item of its own,
 * split between the interleaved and overflowed cells.
 */
static void test_oom_tile_excess(void **state)
{
	tsi_graph *g = new_graph(4);
	(void)state;

	tsi_tensor *big = var_on(g, "big", 80000, 0);
	tsi_tensor *small = var_on(g, "small", 16, 1);
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "cs");
	tsi_vertex *sv = tsi_graph_add_vertex(g, cs, "Sink");
	assert_int_equal(tsi_graph_connect(g, sv, "in", big), TSI_OK);
	assert_int_equal(tsi_graph_set_vertex_tile(g, sv, 0), TSI_OK);
	sv = tsi_graph_add_vertex(g, cs, "Sink");
	assert_int_equal(tsi_graph_connect(g, sv, "in", small), TSI_OK);
	assert_int_equal(tsi_graph_set_vertex_tile(g, sv, 1), TSI_OK);
	tsi_engine *e = compile1(g, tsi_prog_execute(g, cs), NULL);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);
	const uint64_t B = 256 * 1024, I = 128 * 1024, excess = I + 320000 - B;
	const tsi_tile_memory *tm = &gp->by_tile[0];

	assert_true(find_var(gp, "big")->always_live);
	assert_int_equal(gp->target.bytes_per_tile, B);
	assert_int_equal(gp->n_oom_tiles, 1);
	assert_int_equal(gp->oom_tiles[0], 0);
	assert_int_equal(tm->total_including_gaps - B, excess);
	assert_int_equal(tm->region[TSI_REGION_OVERFLOWED], excess);
	assert_int_equal(tm->region_including_gaps[TSI_REGION_OVERFLOWED], excess);
	assert_int_equal(tm->region_including_gaps[TSI_REGION_INTERLEAVED], B - I);
	/* The variable's bytes: the interleaved part and the overflow. */
	uint64_t il = 0, of = 0;
	for (int col = 0; col < 2; col++) {
		il += tsi_graph_profile_category(gp, TSI_MEM_VARIABLE, TSI_REGION_INTERLEAVED, col, 0);
		of += tsi_graph_profile_category(gp, TSI_MEM_VARIABLE, TSI_REGION_OVERFLOWED, col, 0);
	}
	assert_int_equal(il, B - I);
	assert_int_equal(of, excess);
	for (uint32_t t = 1; t < 4; t++)
		assert_true(gp->by_tile[t].total_including_gaps <= B);
	assert_tile_identities(gp);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/* Compiles the instrumentation graph on two IPUs of two tiles with the
 * option `name` = "true" (NULL: none) and `level` (NULL: default) and
 * returns the engine. cs1 has vertices of two types on tile 0 (three
 * vertices) and one on tile 1, cs2 one on tile 0; a host stream writes c
 * on tile 1 (a host exchange). */
static tsi_engine *instrumented(tsi_graph **gout, const char *name, const char *level)
{
	tsi_target target;
	tsi_graph *g = NULL;
	tsi_options *opts = tsi_options_new();

	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK1, 2, 2), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelets(g, codelets, 3), TSI_OK);
	tsi_tensor *a = var_on(g, "a", 8, 0);
	tsi_tensor *b = var_on(g, "b", 8, 0);
	tsi_tensor *c = var_on(g, "c", 8, 1);
	tsi_tensor *d = var_on(g, "d", 8, 1);
	tsi_compute_set *cs1 = tsi_graph_add_compute_set(g, "cs1");
	tsi_compute_set *cs2 = tsi_graph_add_compute_set(g, "cs2");
	add_work(g, cs1, tsi_tensor_slice(a, 0, 4), tsi_tensor_slice(b, 0, 4), 0);
	add_work(g, cs1, tsi_tensor_slice(a, 4, 8), tsi_tensor_slice(b, 4, 8), 0);
	tsi_vertex *sv = tsi_graph_add_vertex(g, cs1, "Sink");
	assert_int_equal(tsi_graph_connect(g, sv, "in", a), TSI_OK);
	assert_int_equal(tsi_graph_set_vertex_tile(g, sv, 0), TSI_OK);
	add_work(g, cs1, c, d, 1);
	add_work(g, cs2, b, a, 0);
	tsi_stream *in = tsi_graph_add_host_to_device_fifo(g, "in", TSI_FLOAT, 8,
	                                                   TSI_REPLICATED_STREAM_BROADCAST);
	tsi_program *seq = tsi_prog_sequence(g, NULL);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy_from_stream(g, in, c)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, cs1)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, cs2)), TSI_OK);
	if (name)
		assert_int_equal(tsi_options_set(opts, name, "true"), TSI_OK);
	if (level)
		assert_int_equal(tsi_options_set(opts, "debug.computeInstrumentationLevel", level), TSI_OK);
	tsi_engine *e = compile1(g, seq, opts);
	tsi_options_free(opts);
	*gout = g;
	return e;
}

/* debug.instrument adds 8-byte cycle counts where the level puts them:
 * per executed compute set or vertex, and per host exchange on the tiles
 * it writes. */
static void test_instrumentation_results(void **state)
{
	static const struct {
		const char *option, *level;
		uint64_t tile[4];
	} cases[] = {
		{NULL, NULL, {0, 0, 0, 0}},
		{"debug.instrument", NULL, {16, 16, 0, 0}},       /* "tile": cs per tile with vertices */
		{"debug.instrument", "tile", {16, 16, 0, 0}},
		{"debug.instrument", "vertex", {32, 16, 0, 0}},   /* per vertex */
		{"debug.instrument", "device", {16, 8, 0, 0}},    /* per cs on tile 0 */
		{"debug.instrument", "ipu", {16, 8, 16, 0}},      /* per cs on each IPU's first tile */
		{"debug.instrumentCompute", NULL, {16, 8, 0, 0}}, /* no exchange records */
		{"debug.instrumentExternalExchange", NULL, {0, 8, 0, 0}},
	};
	(void)state;

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		tsi_graph *g = NULL;
		tsi_engine *e = instrumented(&g, cases[k].option, cases[k].level);
		const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);
		uint64_t sum = 0;

		for (uint32_t t = 0; t < 4; t++) {
			if (cat_total(gp, TSI_MEM_INSTRUMENTATION_RESULTS, t) != cases[k].tile[t])
				print_error("case %zu tile %u\n", k, t);
			assert_int_equal(cat_total(gp, TSI_MEM_INSTRUMENTATION_RESULTS, t), cases[k].tile[t]);
			sum += cases[k].tile[t];
		}
		const tsi_variable_profile *v = find_var(gp, "instrumentationResults");
		if (sum) {
			assert_non_null(v);
			assert_true(v->always_live);
			assert_int_equal(v->bytes, sum);
		} else {
			assert_null(v);
		}
		assert_tile_identities(gp);
		tsi_engine_free(e);
		tsi_graph_free(g);
	}
}

/*
 * Two IPUs of one tile whose vertices read each other's data: a global
 * exchange in which both tiles send and receive. Its code, packet headers
 * and message buffers land in the global categories, and external
 * exchange instrumentation records it once per tile.
 */
static void test_global_exchange(void **state)
{
	tsi_target target;
	tsi_graph *g = NULL;
	tsi_options *opts = tsi_options_new();
	(void)state;

	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK1, 2, 1), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelets(g, codelets, 3), TSI_OK);
	tsi_tensor *p = var_on(g, "p", 64, 0);
	tsi_tensor *q = var_on(g, "q", 64, 1);
	tsi_tensor *r = var_on(g, "r", 64, 0);
	tsi_tensor *s = var_on(g, "s", 64, 1);
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "cross");
	add_work(g, cs, q, r, 0);
	add_work(g, cs, p, s, 1);
	assert_int_equal(tsi_options_set(opts, "debug.instrumentExternalExchange", "true"), TSI_OK);
	tsi_engine *e = compile1(g, tsi_prog_execute(g, cs), opts);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);

	assert_true(gp->n_exchanges[TSI_EXCHANGE_EXTERNAL] >= 1);
	for (uint32_t t = 0; t < 2; t++) {
		assert_true(cat_total(gp, TSI_MEM_GLOBAL_EXCHANGE_CODE, t) > 0);
		assert_true(cat_total(gp, TSI_MEM_GLOBAL_EXCHANGE_PACKET_HEADER, t) > 0);
		/* The received 256 bytes, overlapped. */
		assert_int_equal(cat_column(gp, TSI_MEM_GLOBAL_MESSAGE, t, true), 256);
		assert_int_equal(cat_column(gp, TSI_MEM_GLOBAL_MESSAGE, t, false), 0);
		/* One record per exchange per tile, though it sends and receives. */
		assert_int_equal(cat_total(gp, TSI_MEM_INSTRUMENTATION_RESULTS, t),
		                 8 * gp->n_exchanges[TSI_EXCHANGE_EXTERNAL]);
		assert_int_equal(cat_total(gp, TSI_MEM_INTERNAL_EXCHANGE_CODE, t), 0);
	}
	assert_tile_identities(gp);
	tsi_options_free(opts);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/*
 * Issue 19: a Copy between tensors laid out on different tiles receives
 * the source's data laid out for the destination: a rearrangement buffer
 * on the receiving tile (overlapped: live only over the copy), not an
 * exchange message; a compute set's remote input stays a message.
 */
static void test_copy_rearrangement(void **state)
{
	tsi_graph *g = new_graph(3);
	(void)state;

	tsi_tensor *a = var_on(g, "a", 64, 0);
	tsi_tensor *b = var_on(g, "b", 64, 1);
	tsi_tensor *d = var_on(g, "d", 32, 2);
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "use");
	add_work(g, cs, tsi_tensor_slice(b, 0, 32), d, 2); /* reads b remotely */
	tsi_program *seq = tsi_prog_sequence(g, "main");
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy(g, a, b)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, cs)), TSI_OK);
	tsi_engine *e = compile1(g, seq, NULL);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);

	/* The copy: 256 bytes received on tile 1. */
	assert_int_equal(cat_column(gp, TSI_MEM_REARRANGEMENT, 1, true), 256);
	assert_int_equal(cat_column(gp, TSI_MEM_REARRANGEMENT, 1, false), 0);
	assert_int_equal(cat_total(gp, TSI_MEM_MESSAGE, 1), 0);
	assert_int_equal(cat_total(gp, TSI_MEM_REARRANGEMENT, 0), 0);
	/* The vertex's remote input: 128 bytes of message on tile 2. */
	assert_int_equal(cat_column(gp, TSI_MEM_MESSAGE, 2, true), 128);
	assert_int_equal(cat_total(gp, TSI_MEM_REARRANGEMENT, 2), 0);
	size_t n_rearr = 0;
	for (size_t i = 0; i < gp->n_variables; i++) {
		const tsi_variable_profile *v = &gp->variables[i];
		if (v->category != TSI_MEM_REARRANGEMENT)
			continue;
		n_rearr++;
		assert_false(v->always_live);
		assert_int_equal(v->bytes, 256);
		assert_true(v->live_from != UINT32_MAX && v->live_from <= v->live_to);
	}
	assert_int_equal(n_rearr, 1);
	assert_tile_identities(gp);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

/*
 * Issue 19: a vertex that writes a variable of another tile keeps that
 * output on its own tile until the exchange after the compute set moves
 * it: an outputEdge buffer of the bytes sent, live from the compute set
 * to the exchange and no longer.
 */
static void test_output_edge(void **state)
{
	tsi_graph *g = new_graph(2);
	(void)state;

	tsi_tensor *in = var_on(g, "in", 40, 0);
	tsi_tensor *out = var_on(g, "out", 40, 1);
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "writer");
	add_work(g, cs, in, out, 0);
	tsi_engine *e = compile1(g, tsi_prog_execute(g, cs), NULL);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(e);

	assert_int_equal(cat_column(gp, TSI_MEM_OUTPUT_EDGE, 0, true), 160);
	assert_int_equal(cat_column(gp, TSI_MEM_OUTPUT_EDGE, 0, false), 0);
	assert_int_equal(cat_total(gp, TSI_MEM_OUTPUT_EDGE, 1), 0);
	/* The receiver's buffer is still a message. */
	assert_int_equal(cat_column(gp, TSI_MEM_MESSAGE, 1, true), 160);
	const tsi_variable_profile *edge = NULL;
	for (size_t i = 0; i < gp->n_variables; i++)
		if (gp->variables[i].category == TSI_MEM_OUTPUT_EDGE)
			edge = &gp->variables[i];
	assert_non_null(edge);
	assert_int_equal(strncmp(edge->name, "<outputEdge:", 12), 0);
	/* Live from the OnTileExecute through the exchange after it. */
	assert_true(edge->live_from < edge->live_to);
	assert_true(edge->live_to < gp->n_liveness);
	assert_int_equal(gp->programs[gp->liveness[edge->live_from].program].type,
	                 TSI_LP_ON_TILE_EXECUTE);
	assert_int_equal(gp->programs[gp->liveness[edge->live_to].program].type,
	                 TSI_LP_DO_EXCHANGE);
	/* Tile 0 holds the output and nothing else overlaps it. */
	assert_true(gp->by_tile[0].total >= 160 + 160);
	assert_tile_identities(gp);
	tsi_engine_free(e);
	tsi_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identity_and_gaps),
		cmocka_unit_test(test_always_live_consistent),
		cmocka_unit_test(test_control_code_and_stack_every_tile),
		cmocka_unit_test(test_control_code_where_it_runs),
		cmocka_unit_test(test_large_piece_spans_regions),
		cmocka_unit_test(test_control_table_of_a_switch),
		cmocka_unit_test(test_vertex_code_once_per_type_per_tile),
		cmocka_unit_test(test_generated_copy),
		cmocka_unit_test(test_variable_on_tiles_0_to_3),
		cmocka_unit_test(test_disjoint_lifetimes_overlap),
		cmocka_unit_test(test_oom_tile_excess),
		cmocka_unit_test(test_instrumentation_results),
		cmocka_unit_test(test_global_exchange),
		cmocka_unit_test(test_copy_rearrangement),
		cmocka_unit_test(test_output_edge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
