/*
 * Unit tests of the engine's program interpreter: every program kind
 * (Sequence, Execute with BSP semantics, Repeat, RepeatWhileTrue/False, If,
 * Switch, Copy, Call, Sync, WriteUndef, PrintTensor), vertex field shapes
 * (VECTOR_LIST, INOUT), named programs and run-time errors. Codelets are
 * written here in C against the public API.
 */
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>

/* --- Codelets ---------------------------------------------------------------- */

/* out = in (one float). */
static bool copy_f_compute(const tsi_field *f, size_t n)
{
	(void)n;
	*(float *)f[1].data = *(const float *)f[0].data;
	return true;
}

static const tsi_field_def copy_f_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

/* v += 1 (one int, InOut). */
static bool inc_i_compute(const tsi_field *f, size_t n)
{
	(void)n;
	(*(int32_t *)f[0].data)++;
	return true;
}

static const tsi_field_def inc_i_fields[] = {
	{"v", TSI_FIELD_INOUT, TSI_FIELD_SCALAR, TSI_INT, 0},
};

/* out = a < b (ints to bool). */
static bool less_i_compute(const tsi_field *f, size_t n)
{
	(void)n;
	*(uint8_t *)f[2].data = *(const int32_t *)f[0].data < *(const int32_t *)f[1].data;
	return true;
}

/* out = a == b (ints to bool). */
static bool eq_i_compute(const tsi_field *f, size_t n)
{
	(void)n;
	*(uint8_t *)f[2].data = *(const int32_t *)f[0].data == *(const int32_t *)f[1].data;
	return true;
}

static const tsi_field_def cmp_i_fields[] = {
	{"a", TSI_FIELD_INPUT, TSI_FIELD_SCALAR, TSI_INT, 0},
	{"b", TSI_FIELD_INPUT, TSI_FIELD_SCALAR, TSI_INT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_BOOL, 0},
};

/* out[k] = sum of sub-vector k of in; also checks the offsets agree with
 * the count. */
static bool sum_list_compute(const tsi_field *f, size_t n)
{
	const float *in = f[0].data;
	float *out = f[1].data;

	(void)n;
	if (f[0].offsets[f[0].n_vectors] != f[0].count || f[1].count != f[0].n_vectors)
		return false;
	for (size_t k = 0; k < f[0].n_vectors; k++) {
		float s = 0;
		for (size_t i = f[0].offsets[k]; i < f[0].offsets[k + 1]; i++)
			s += in[i];
		out[k] = s;
	}
	return true;
}

static const tsi_field_def sum_list_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};

/* v[i] += d[i]; v is InOut. */
static bool add_inout_compute(const tsi_field *f, size_t n)
{
	float *v = f[0].data;
	const float *d = f[1].data;

	(void)n;
	if (f[0].count != f[1].count || f[0].n_vectors != 1 || f[0].offsets[1] != f[0].count)
		return false;
	for (size_t i = 0; i < f[0].count; i++)
		v[i] += d[i];
	return true;
}

static const tsi_field_def add_inout_fields[] = {
	{"v", TSI_FIELD_INOUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"d", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};

/* Writes 7 into its output then fails when its input is negative. */
static bool checked_compute(const tsi_field *f, size_t n)
{
	(void)n;
	*(float *)f[1].data = 7.0f;
	return *(const float *)f[0].data >= 0.0f;
}

static const tsi_codelet codelets[] = {
	{"CopyF", copy_f_fields, 2, copy_f_compute, NULL, NULL, 8, 16, false},
	{"IncI", inc_i_fields, 1, inc_i_compute, NULL, NULL, 4, 16, false},
	{"LessI", cmp_i_fields, 3, less_i_compute, NULL, NULL, 12, 16, false},
	{"EqI", cmp_i_fields, 3, eq_i_compute, NULL, NULL, 12, 16, false},
	{"SumList", sum_list_fields, 2, sum_list_compute, NULL, NULL, 16, 32, false},
	{"AddInOut", add_inout_fields, 2, add_inout_compute, NULL, NULL, 16, 32, false},
	{"CheckedVertex", copy_f_fields, 2, checked_compute, NULL, NULL, 8, 16, false},
};

/* --- Fixture ------------------------------------------------------------------- */

#define TILES 4

typedef tsi_test_model fx;

/* A one-IPU, four-tile graph with the codelets above. */
static void fx_init(fx *f)
{
	tsi_test_model_init(f, 1, TILES, 1);
	assert_int_equal(tsi_graph_add_codelets(f->graph, codelets,
	                                        sizeof(codelets) / sizeof(*codelets)),
	                 TSI_OK);
}

/* A mapped constant of `n` floats. */
static tsi_tensor *const_f(fx *f, size_t n, const float *values, const char *name)
{
	size_t shape[1] = {n};
	tsi_tensor *t = tsi_graph_add_constant_float(f->graph, TSI_FLOAT, 1, shape, values, name);

	assert_non_null(t);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, t, 0), TSI_OK);
	return t;
}

/* A mapped scalar int constant. */
static tsi_tensor *const_i(fx *f, int32_t value, const char *name)
{
	tsi_tensor *t = tsi_graph_add_constant(f->graph, TSI_INT, 0, NULL, &value, name);

	assert_non_null(t);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, t, 0), TSI_OK);
	return t;
}

/* Adds a vertex of `type` on `tile` with fields connected in order. */
static tsi_vertex *vertex(fx *f, tsi_compute_set *cs, const char *type, unsigned tile,
                          const char *f1, const tsi_tensor *t1, const char *f2,
                          const tsi_tensor *t2, const char *f3, const tsi_tensor *t3)
{
	tsi_vertex *v = tsi_graph_add_vertex(f->graph, cs, type);

	assert_non_null(v);
	assert_int_equal(tsi_graph_set_vertex_tile(f->graph, v, tile), TSI_OK);
	if (f1)
		assert_int_equal(tsi_graph_connect(f->graph, v, f1, t1), TSI_OK);
	if (f2)
		assert_int_equal(tsi_graph_connect(f->graph, v, f2, t2), TSI_OK);
	if (f3)
		assert_int_equal(tsi_graph_connect(f->graph, v, f3, t3), TSI_OK);
	return v;
}

static float read_f(fx *f, const char *name)
{
	float x = -1;
	assert_int_equal(tsi_engine_read_tensor(f->engine, name, &x, sizeof(x)), TSI_OK);
	return x;
}

static int32_t read_i(fx *f, const char *name)
{
	int32_t x = -1;
	assert_int_equal(tsi_engine_read_tensor(f->engine, name, &x, sizeof(x)), TSI_OK);
	return x;
}

static void write_i(fx *f, const char *name, int32_t x)
{
	assert_int_equal(tsi_engine_write_tensor(f->engine, name, &x, sizeof(x)), TSI_OK);
}

/* --- Tests ----------------------------------------------------------------------- */

/* Steps of a sequence run in the order they were added. */
static void test_sequence_order(void **state)
{
	fx f;
	const float one = 1, two = 2;
	(void)state;

	fx_init(&f);
	tsi_tensor *x = tsi_test_var(&f, TSI_FLOAT, 1, 0, "x");
	tsi_tensor *y = tsi_test_var(&f, TSI_FLOAT, 1, 0, "y");
	tsi_tensor *c1 = const_f(&f, 1, &one, "c1");
	tsi_tensor *c2 = const_f(&f, 1, &two, "c2");
	tsi_program *seq = tsi_prog_sequence(f.graph, "seq");
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy(f.graph, c1, x)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy(f.graph, x, y)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy(f.graph, c2, x)), TSI_OK);
	tsi_test_model_load(&f, &seq, 1, NULL);
	assert_int_equal(tsi_engine_num_programs(f.engine), 1);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_close(read_f(&f, "y"), 1.0, 0);
	assert_close(read_f(&f, "x"), 2.0, 0);
	assert_string_equal(tsi_engine_error(f.engine), "");
	tsi_test_model_free(&f);
}

/* Two vertices of one compute set swap x and y: each reads its input as
 * it was before the compute set (BSP), on different tiles or the same. */
static void test_execute_bsp_swap(void **state)
{
	fx f;
	(void)state;

	fx_init(&f);
	tsi_tensor *x = tsi_test_var(&f, TSI_FLOAT, 1, 0, "x");
	tsi_tensor *y = tsi_test_var(&f, TSI_FLOAT, 1, 0, "y");
	tsi_compute_set *cs = tsi_graph_add_compute_set(f.graph, "swap");
	vertex(&f, cs, "CopyF", 0, "in", x, "out", y, NULL, NULL);
	vertex(&f, cs, "CopyF", 1, "in", y, "out", x, NULL, NULL);
	tsi_program *ex = tsi_prog_execute(f.graph, cs);
	tsi_test_model_load(&f, &ex, 1, NULL);
	const float x0 = 3.5f, y0 = -2.0f;
	assert_int_equal(tsi_engine_write_tensor(f.engine, "x", &x0, sizeof(x0)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(f.engine, "y", &y0, sizeof(y0)), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_close(read_f(&f, "x"), -2.0, 0);
	assert_close(read_f(&f, "y"), 3.5, 0);
	/* Again: swapped back (the cached layout is reused). */
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_close(read_f(&f, "x"), 3.5, 0);
	assert_close(read_f(&f, "y"), -2.0, 0);
	tsi_test_model_free(&f);
}

/* An in-out field that another vertex of the set reads, and an output
 * overlapping another vertex's input by one element: the readers still
 * see the values from before the compute set (BSP), while the fields
 * nobody else touches are used in place (engine-plan-fields.c's in-place
 * rule). */
static void test_execute_bsp_overlaps(void **state)
{
	fx f;
	const float init[4] = {1, 2, 3, 4};
	const float d[2] = {10, 20};
	float got[4];
	(void)state;

	fx_init(&f);
	tsi_tensor *v = tsi_test_var(&f, TSI_FLOAT, 4, 0, "v");
	tsi_tensor *w = tsi_test_var(&f, TSI_FLOAT, 1, 0, "w");
	tsi_tensor *z = tsi_test_var(&f, TSI_FLOAT, 1, 0, "z");
	tsi_tensor *dc = const_f(&f, 2, d, "d");
	tsi_compute_set *cs = tsi_graph_add_compute_set(f.graph, "overlaps");
	/* v[0..2) += d; another vertex copies v[1] (read while being added to). */
	vertex(&f, cs, "AddInOut", 0, "v", tsi_tensor_slice(v, 0, 2), "d", dc, NULL, NULL);
	vertex(&f, cs, "CopyF", 1, "in", tsi_tensor_slice(v, 1, 2), "out", w, NULL, NULL);
	/* v[3] = v[2]: an output next to, not on, what is read. */
	vertex(&f, cs, "CopyF", 2, "in", tsi_tensor_slice(v, 2, 3), "out",
	       tsi_tensor_slice(v, 3, 4), NULL, NULL);
	/* z = w: w is written by vertex 1 in the same set; z must get the old w. */
	vertex(&f, cs, "CopyF", 3, "in", w, "out", z, NULL, NULL);
	tsi_program *ex = tsi_prog_execute(f.graph, cs);
	tsi_test_model_load(&f, &ex, 1, NULL);
	const float w0 = -7.0f;
	assert_int_equal(tsi_engine_write_tensor(f.engine, "v", init, sizeof(init)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(f.engine, "w", &w0, sizeof(w0)), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.engine, "v", got, sizeof(got)), TSI_OK);
	const float want[4] = {11, 22, 3, 3};
	for (int i = 0; i < 4; i++)
		assert_close(got[i], want[i], 0);
	assert_close(read_f(&f, "w"), 2.0, 0);   /* v[1] before the add */
	assert_close(read_f(&f, "z"), -7.0, 0);  /* w before the set */
	tsi_test_model_free(&f);
}

/* Repeat runs its body exactly `count` times; zero times is allowed. */
static void test_repeat(void **state)
{
	fx f;
	(void)state;

	fx_init(&f);
	tsi_tensor *c = tsi_test_var(&f, TSI_INT, 0, 0, "c");
	tsi_compute_set *cs = tsi_graph_add_compute_set(f.graph, "inc");
	vertex(&f, cs, "IncI", 0, "v", c, NULL, NULL, NULL, NULL);
	tsi_program *progs[2] = {
		tsi_prog_repeat(f.graph, 7, tsi_prog_execute(f.graph, cs)),
		tsi_prog_repeat(f.graph, 0, tsi_prog_execute(f.graph, cs)),
	};
	tsi_test_model_load(&f, progs, 2, NULL);
	assert_int_equal(read_i(&f, "c"), 0); /* variables start zeroed */
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(read_i(&f, "c"), 7);
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_OK);
	assert_int_equal(read_i(&f, "c"), 7);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(read_i(&f, "c"), 14);
	tsi_test_model_free(&f);
}

/* RepeatWhileTrue: cond computes counter < 5 by a vertex, the body
 * increments the counter; cond runs once more than the body. */
static void test_repeat_while_true(void **state)
{
	fx f;
	(void)state;

	fx_init(&f);
	tsi_tensor *counter = tsi_test_var(&f, TSI_INT, 0, 0, "counter");
	tsi_tensor *body_runs = tsi_test_var(&f, TSI_INT, 0, 0, "body_runs");
	tsi_tensor *cond_runs = tsi_test_var(&f, TSI_INT, 0, 0, "cond_runs");
	tsi_tensor *pred = tsi_test_var(&f, TSI_BOOL, 0, 0, "pred");
	tsi_tensor *limit = const_i(&f, 5, "limit");
	tsi_compute_set *cond_cs = tsi_graph_add_compute_set(f.graph, "cond");
	vertex(&f, cond_cs, "LessI", 0, "a", counter, "b", limit, "out", pred);
	vertex(&f, cond_cs, "IncI", 1, "v", cond_runs, NULL, NULL, NULL, NULL);
	tsi_compute_set *body_cs = tsi_graph_add_compute_set(f.graph, "body");
	vertex(&f, body_cs, "IncI", 0, "v", counter, NULL, NULL, NULL, NULL);
	vertex(&f, body_cs, "IncI", 1, "v", body_runs, NULL, NULL, NULL, NULL);
	tsi_program *loop = tsi_prog_repeat_while_true(f.graph, tsi_prog_execute(f.graph, cond_cs),
	                                               pred, tsi_prog_execute(f.graph, body_cs));
	assert_non_null(loop);
	tsi_test_model_load(&f, &loop, 1, NULL);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(read_i(&f, "counter"), 5);
	assert_int_equal(read_i(&f, "body_runs"), 5);
	assert_int_equal(read_i(&f, "cond_runs"), 6);

	/* Starting past the limit: cond runs once, the body never. */
	write_i(&f, "counter", 9);
	write_i(&f, "body_runs", 0);
	write_i(&f, "cond_runs", 0);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(read_i(&f, "counter"), 9);
	assert_int_equal(read_i(&f, "body_runs"), 0);
	assert_int_equal(read_i(&f, "cond_runs"), 1);
	tsi_test_model_free(&f);
}

/* RepeatWhileFalse: loop until counter == 3. */
static void test_repeat_while_false(void **state)
{
	fx f;
	(void)state;

	fx_init(&f);
	tsi_tensor *counter = tsi_test_var(&f, TSI_INT, 0, 0, "counter");
	tsi_tensor *cond_runs = tsi_test_var(&f, TSI_INT, 0, 0, "cond_runs");
	tsi_tensor *done = tsi_test_var(&f, TSI_BOOL, 0, 0, "done");
	tsi_tensor *three = const_i(&f, 3, "three");
	tsi_compute_set *cond_cs = tsi_graph_add_compute_set(f.graph, "cond");
	vertex(&f, cond_cs, "EqI", 0, "a", counter, "b", three, "out", done);
	vertex(&f, cond_cs, "IncI", 0, "v", cond_runs, NULL, NULL, NULL, NULL);
	tsi_compute_set *body_cs = tsi_graph_add_compute_set(f.graph, "body");
	vertex(&f, body_cs, "IncI", 0, "v", counter, NULL, NULL, NULL, NULL);
	tsi_program *loop = tsi_prog_repeat_while_false(f.graph, tsi_prog_execute(f.graph, cond_cs),
	                                                done, tsi_prog_execute(f.graph, body_cs));
	assert_non_null(loop);
	tsi_test_model_load(&f, &loop, 1, NULL);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(read_i(&f, "counter"), 3);
	assert_int_equal(read_i(&f, "cond_runs"), 4);
	tsi_test_model_free(&f);
}

/* If with an else body, and without one. */
static void test_if(void **state)
{
	fx f;
	const float one = 1, two = 2;
	uint8_t p;
	(void)state;

	fx_init(&f);
	tsi_tensor *pred = tsi_test_var(&f, TSI_BOOL, 0, 0, "pred");
	tsi_tensor *out = tsi_test_var(&f, TSI_FLOAT, 1, 0, "out");
	tsi_tensor *c1 = const_f(&f, 1, &one, "c1");
	tsi_tensor *c2 = const_f(&f, 1, &two, "c2");
	tsi_program *progs[2] = {
		tsi_prog_if(f.graph, pred, tsi_prog_copy(f.graph, c1, out),
		            tsi_prog_copy(f.graph, c2, out)),
		tsi_prog_if(f.graph, pred, tsi_prog_copy(f.graph, c1, out), NULL),
	};
	tsi_test_model_load(&f, progs, 2, NULL);

	p = 1;
	assert_int_equal(tsi_engine_write_tensor(f.engine, "pred", &p, 1), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_close(read_f(&f, "out"), 1.0, 0);
	p = 0;
	assert_int_equal(tsi_engine_write_tensor(f.engine, "pred", &p, 1), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_close(read_f(&f, "out"), 2.0, 0);
	/* No else: a false predicate leaves out alone. */
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_OK);
	assert_close(read_f(&f, "out"), 2.0, 0);
	p = 1;
	assert_int_equal(tsi_engine_write_tensor(f.engine, "pred", &p, 1), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_OK);
	assert_close(read_f(&f, "out"), 1.0, 0);
	tsi_test_model_free(&f);
}

/* Switch: each case, the default, and a Switch with no default. */
static void test_switch(void **state)
{
	fx f;
	const float v10 = 10, v50 = 50, vm1 = -1, v0 = 0;
	(void)state;

	fx_init(&f);
	tsi_tensor *ctl = tsi_test_var(&f, TSI_INT, 0, 0, "ctl");
	tsi_tensor *out = tsi_test_var(&f, TSI_FLOAT, 1, 0, "out");
	tsi_tensor *c10 = const_f(&f, 1, &v10, "c10");
	tsi_tensor *c50 = const_f(&f, 1, &v50, "c50");
	tsi_tensor *cm1 = const_f(&f, 1, &vm1, "cm1");
	tsi_tensor *c0 = const_f(&f, 1, &v0, "c0");
	tsi_program *sw = tsi_prog_switch(f.graph, ctl, tsi_prog_copy(f.graph, cm1, out));
	assert_int_equal(tsi_switch_add_case(sw, 0, tsi_prog_copy(f.graph, c10, out)), TSI_OK);
	assert_int_equal(tsi_switch_add_case(sw, 5, tsi_prog_copy(f.graph, c50, out)), TSI_OK);
	tsi_program *sw2 = tsi_prog_switch(f.graph, ctl, NULL);
	assert_int_equal(tsi_switch_add_case(sw2, -4, tsi_prog_copy(f.graph, c0, out)), TSI_OK);
	tsi_program *progs[2] = {sw, sw2};
	tsi_test_model_load(&f, progs, 2, NULL);

	write_i(&f, "ctl", 0);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_close(read_f(&f, "out"), 10.0, 0);
	write_i(&f, "ctl", 5);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_close(read_f(&f, "out"), 50.0, 0);
	write_i(&f, "ctl", 7);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_close(read_f(&f, "out"), -1.0, 0);
	/* No default and no matching case: nothing happens. */
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_OK);
	assert_close(read_f(&f, "out"), -1.0, 0);
	/* A negative case value matches. */
	write_i(&f, "ctl", -4);
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_OK);
	assert_close(read_f(&f, "out"), 0.0, 0);
	tsi_test_model_free(&f);
}

/* Copy between tensors, into a strided view, and an overlapping shift of
 * a variable onto itself (must behave as if through a temporary). */
static void test_copy(void **state)
{
	fx f;
	const float init[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	float got[8];
	(void)state;

	fx_init(&f);
	tsi_tensor *v = tsi_test_var(&f, TSI_FLOAT, 8, 0, "v");
	tsi_tensor *w = tsi_test_var(&f, TSI_FLOAT, 8, 0, "w");
	tsi_tensor *m = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(2, 4), "m");
	assert_int_equal(tsi_graph_set_tile_mapping(f.graph, m, 1), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f.graph, "m", m), TSI_OK);
	tsi_tensor *c = const_f(&f, 8, init, "c");
	tsi_program *progs[3] = {
		tsi_prog_copy(f.graph, c, w),
		tsi_prog_copy(f.graph, tsi_tensor_slice(v, 0, 7), tsi_tensor_slice(v, 1, 8)),
		/* w (as 4x2) into m's transpose: m[j][i] = w[i*2+j]. */
		tsi_prog_copy(f.graph, tsi_tensor_reshape(w, TSI_SHAPE(4, 2)), tsi_tensor_transpose(m)),
	};
	tsi_test_model_load(&f, progs, 3, NULL);

	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.engine, "w", got, sizeof(got)), TSI_OK);
	for (int i = 0; i < 8; i++)
		assert_close(got[i], init[i], 0);

	assert_int_equal(tsi_engine_write_tensor(f.engine, "v", init, sizeof(init)), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.engine, "v", got, sizeof(got)), TSI_OK);
	const float shifted[8] = {0, 0, 1, 2, 3, 4, 5, 6};
	for (int i = 0; i < 8; i++)
		assert_close(got[i], shifted[i], 0);

	assert_int_equal(tsi_engine_run(f.engine, 2), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.engine, "m", got, sizeof(got)), TSI_OK);
	const float transposed[8] = {0, 2, 4, 6, 1, 3, 5, 7};
	for (int i = 0; i < 8; i++)
		assert_close(got[i], transposed[i], 0);
	tsi_test_model_free(&f);
}

/* One function called from two places (two calls in one program and one
 * in another) runs each time it is called. */
static void test_call(void **state)
{
	fx f;
	(void)state;

	fx_init(&f);
	tsi_tensor *c = tsi_test_var(&f, TSI_INT, 0, 0, "c");
	tsi_compute_set *cs = tsi_graph_add_compute_set(f.graph, "inc");
	vertex(&f, cs, "IncI", 0, "v", c, NULL, NULL, NULL, NULL);
	tsi_function *fn = tsi_graph_add_function(f.graph, tsi_prog_execute(f.graph, cs));
	assert_non_null(fn);
	tsi_program *a = tsi_prog_sequence(f.graph, "a");
	assert_int_equal(tsi_sequence_add(a, tsi_prog_call(f.graph, fn)), TSI_OK);
	assert_int_equal(tsi_sequence_add(a, tsi_prog_call(f.graph, fn)), TSI_OK);
	tsi_program *b = tsi_prog_call(f.graph, fn);
	tsi_program *progs[2] = {a, b};
	tsi_test_model_load(&f, progs, 2, NULL);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(read_i(&f, "c"), 2);
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_OK);
	assert_int_equal(read_i(&f, "c"), 3);
	tsi_test_model_free(&f);
}

/* Sync of every kind and WriteUndef run and leave data alone. */
static void test_sync_and_write_undef(void **state)
{
	fx f;
	const float four = 4;
	(void)state;

	fx_init(&f);
	tsi_tensor *x = tsi_test_var(&f, TSI_FLOAT, 1, 0, "x");
	tsi_tensor *c = const_f(&f, 1, &four, "c");
	tsi_program *seq = tsi_prog_sequence(f.graph, NULL);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy(f.graph, c, x)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_sync(f.graph, TSI_SYNC_INTERNAL)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_sync(f.graph, TSI_SYNC_EXTERNAL)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_sync(f.graph, TSI_SYNC_GLOBAL)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_write_undef(f.graph, x)), TSI_OK);
	tsi_test_model_load(&f, &seq, 1, NULL);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_close(read_f(&f, "x"), 4.0, 0);
	tsi_test_model_free(&f);
}

/* PrintTensor in Poplar's layout: 1D, 2D, 3D, scalar, INT, HALF, BOOL. */
static void test_print_tensor(void **state)
{
	fx f;
	tsi_test_capture cap;
	const float v1[4] = {1, 1.5f, 2, 2.5f};
	const float v3[4] = {5, 4.5f, 4, 3.5f};
	const float v8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	const int32_t ints[3] = {-3, 0, 70000};
	const uint16_t halves[3] = {tsi_half_from_float(0.5f), tsi_half_from_float(1.25f),
	                            tsi_half_from_float(65504.0f)};
	const uint8_t bools[2] = {1, 0};
	const float odd[3] = {1234567.0f, 1e-7f, -0.1f};
	int32_t five = 5;
	(void)state;

	fx_init(&f);
	tsi_tensor *t1 = const_f(&f, 4, v1, "t1");
	tsi_tensor *t2 = tsi_graph_add_constant_float(f.graph, TSI_FLOAT, TSI_SHAPE(2, 2), v3, "t2");
	tsi_tensor *t3 = tsi_graph_add_constant_float(f.graph, TSI_FLOAT, TSI_SHAPE(2, 2, 2), v8, "t3");
	tsi_tensor *s = tsi_graph_add_constant(f.graph, TSI_INT, 0, NULL, &five, "s");
	tsi_tensor *ti = tsi_graph_add_constant(f.graph, TSI_INT, TSI_SHAPE(3), ints, "ti");
	tsi_tensor *th = tsi_graph_add_constant(f.graph, TSI_HALF, TSI_SHAPE(3), halves, "th");
	tsi_tensor *tb = tsi_graph_add_constant(f.graph, TSI_BOOL, TSI_SHAPE(2), bools, "tb");
	tsi_tensor *to = const_f(&f, 3, odd, "to");
	tsi_tensor *all[] = {t2, t3, s, ti, th, tb};
	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		assert_int_equal(tsi_graph_set_tile_mapping(f.graph, all[i], 0), TSI_OK);
	tsi_program *seq = tsi_prog_sequence(f.graph, "print");
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_print_tensor(f.graph, "v1-debug", t1)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_print_tensor(f.graph, "v3", t2)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_print_tensor(f.graph, "cube", t3)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_print_tensor(f.graph, "s", s)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_print_tensor(f.graph, "ints", ti)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_print_tensor(f.graph, "halves", th)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_print_tensor(f.graph, "bools", tb)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_print_tensor(f.graph, "odd", to)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_print_tensor(
	                                            f.graph, "col", tsi_tensor_slice_dim(t2, 1, 2, 1))),
	                 TSI_OK);
	tsi_test_model_load(&f, &seq, 1, NULL);
	tsi_test_capture_open(&cap);
	tsi_engine_set_print_stream(f.engine, cap.file);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_string_equal(tsi_test_capture_text(&cap),
	                    "v1-debug: {1,1.5,2,2.5}\n"
	                    "v3: {\n"
	                    " {5,4.5},\n"
	                    " {4,3.5}\n"
	                    "}\n"
	                    "cube: {\n"
	                    " {\n"
	                    "  {1,2},\n"
	                    "  {3,4}\n"
	                    " },\n"
	                    " {\n"
	                    "  {5,6},\n"
	                    "  {7,8}\n"
	                    " }\n"
	                    "}\n"
	                    "s: 5\n"
	                    "ints: {-3,0,70000}\n"
	                    "halves: {0.5,1.25,65504}\n"
	                    "bools: {1,0}\n"
	                    "odd: {1.23457e+06,1e-07,-0.1}\n"
	                    "col: {\n"
	                    " {4.5},\n"
	                    " {3.5}\n"
	                    "}\n");
	tsi_engine_set_print_stream(f.engine, NULL);
	tsi_test_capture_close(&cap);
	tsi_test_model_free(&f);
}

/* Program names are kept and reported in the engine's INFO log. */
static void test_named_programs(void **state)
{
	fx f;
	char *dir, path[512], line[512];
	bool found = false;
	(void)state;

	fx_init(&f);
	tsi_tensor *c = tsi_test_var(&f, TSI_INT, 0, 0, "c");
	tsi_compute_set *cs = tsi_graph_add_compute_set(f.graph, "inc");
	vertex(&f, cs, "IncI", 0, "v", c, NULL, NULL, NULL, NULL);
	tsi_program *p = tsi_prog_execute(f.graph, cs);
	assert_null(tsi_program_name(p));
	assert_ptr_equal(tsi_program_set_name(p, "train"), p);
	assert_string_equal(tsi_program_name(p), "train");
	assert_int_equal(tsi_program_get_kind(p), TSI_PROG_EXECUTE);
	tsi_program *q = tsi_prog_sequence(f.graph, "inference");
	assert_string_equal(tsi_program_name(q), "inference");
	tsi_program *progs[2] = {p, q};
	tsi_test_model_load(&f, progs, 2, NULL);

	dir = tsi_test_mkdtemp();
	snprintf(path, sizeof(path), "%s/log.txt", dir);
	setenv("POPLAR_LOG_LEVEL", "INFO", 1);
	setenv("POPLAR_LOG_DEST", path, 1);
	tsi_log_reconfigure();
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	unsetenv("POPLAR_LOG_LEVEL");
	unsetenv("POPLAR_LOG_DEST");
	tsi_log_reconfigure();
	FILE *log = fopen(path, "r");
	assert_non_null(log);
	while (fgets(line, sizeof(line), log))
		if (strstr(line, "ENGINE") && strstr(line, "Running program 0 ('train')"))
			found = true;
	fclose(log);
	assert_true(found);
	assert_int_equal(read_i(&f, "c"), 1);
	tsi_test_rmtree(dir);
	tsi_test_model_free(&f);
}

/* VECTOR_LIST fields: rows of a matrix (tsi_graph_connect on rank 2) and a
 * list of tensors of different lengths (tsi_graph_connect_list). */
static void test_vector_list(void **state)
{
	fx f;
	const float mv[6] = {1, 2, 3, 10, 20, 30};
	const float lv[5] = {1, 1, 2, 2, 2};
	float got[3];
	(void)state;

	fx_init(&f);
	tsi_tensor *m = tsi_graph_add_constant_float(f.graph, TSI_FLOAT, TSI_SHAPE(2, 3), mv, "m");
	assert_int_equal(tsi_graph_map_linearly(f.graph, m, 1), TSI_OK);
	tsi_tensor *l = const_f(&f, 5, lv, "l");
	tsi_tensor *rows_out = tsi_test_var(&f, TSI_FLOAT, 2, 0, "rows_out");
	tsi_tensor *list_out = tsi_test_var(&f, TSI_FLOAT, 3, 0, "list_out");
	tsi_compute_set *cs = tsi_graph_add_compute_set(f.graph, "sums");
	vertex(&f, cs, "SumList", 1, "in", m, "out", rows_out, NULL, NULL);
	tsi_vertex *v = vertex(&f, cs, "SumList", 2, "out", list_out, NULL, NULL, NULL, NULL);
	tsi_tensor *parts[3] = {tsi_tensor_slice(l, 0, 2), tsi_tensor_slice(l, 2, 5),
	                        tsi_tensor_slice(m, 0, 1)};
	assert_int_equal(tsi_graph_connect_list(f.graph, v, "in", parts, 3), TSI_OK);
	tsi_program *ex = tsi_prog_execute(f.graph, cs);
	tsi_test_model_load(&f, &ex, 1, NULL);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.engine, "rows_out", got, 2 * sizeof(float)), TSI_OK);
	assert_close(got[0], 6, 0);
	assert_close(got[1], 60, 0);
	assert_int_equal(tsi_engine_read_tensor(f.engine, "list_out", got, 3 * sizeof(float)), TSI_OK);
	assert_close(got[0], 2, 0);
	assert_close(got[1], 6, 0);
	assert_close(got[2], 6, 0);
	tsi_test_model_free(&f);
}

/* INOUT fields read the old value and write the new one; a strided view
 * (a column) works as a field too. */
static void test_inout(void **state)
{
	fx f;
	const float init[6] = {1, 2, 3, 4, 5, 6};
	const float d[2] = {100, 200};
	float got[6];
	(void)state;

	fx_init(&f);
	tsi_tensor *v = tsi_test_var(&f, TSI_FLOAT, 6, 0, "v");
	tsi_tensor *dc = const_f(&f, 2, d, "d");
	tsi_tensor *col = tsi_tensor_slice_dim(tsi_tensor_reshape(v, TSI_SHAPE(2, 3)), 1, 2, 1);
	tsi_compute_set *cs = tsi_graph_add_compute_set(f.graph, "add");
	vertex(&f, cs, "AddInOut", 3, "v", tsi_tensor_flatten(col), "d", dc, NULL, NULL);
	tsi_program *ex = tsi_prog_execute(f.graph, cs);
	tsi_test_model_load(&f, &ex, 1, NULL);
	assert_int_equal(tsi_engine_write_tensor(f.engine, "v", init, sizeof(init)), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.engine, "v", got, sizeof(got)), TSI_OK);
	const float want[6] = {1, 202, 3, 4, 405, 6};
	for (int i = 0; i < 6; i++)
		assert_close(got[i], want[i], 0);
	tsi_test_model_free(&f);
}

/* A vertex returning false stops the run with TSI_ERR_VERTEX_FAILED naming
 * its type and compute set (its outputs are then undefined, vertex.h). */
static void test_vertex_failed(void **state)
{
	fx f;
	const float neg = -1.0f;
	(void)state;

	fx_init(&f);
	tsi_tensor *in = tsi_test_var(&f, TSI_FLOAT, 1, 0, "in");
	tsi_tensor *out = tsi_test_var(&f, TSI_FLOAT, 1, 0, "out");
	tsi_compute_set *cs = tsi_graph_add_compute_set(f.graph, "checks");
	vertex(&f, cs, "CheckedVertex", 0, "in", in, "out", out, NULL, NULL);
	tsi_program *ex = tsi_prog_execute(f.graph, cs);
	tsi_test_model_load(&f, &ex, 1, NULL);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_close(read_f(&f, "out"), 7.0, 0);
	assert_int_equal(tsi_engine_write_tensor(f.engine, "out", &neg, sizeof(neg)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(f.engine, "in", &neg, sizeof(neg)), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_ERR_VERTEX_FAILED);
	assert_non_null(strstr(tsi_engine_error(f.engine), "CheckedVertex"));
	assert_non_null(strstr(tsi_engine_error(f.engine), "checks"));
	assert_string_equal(tsi_error_last(), tsi_engine_error(f.engine));
	tsi_test_model_free(&f);
}

/* Running an index beyond the programs, and running before loading. */
static void test_run_errors(void **state)
{
	fx f;
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	float x;
	(void)state;

	fx_init(&f);
	tsi_test_var(&f, TSI_FLOAT, 1, 0, "x");
	tsi_program *seq = tsi_prog_sequence(f.graph, NULL);
	assert_int_equal(tsi_engine_new(&f.engine, f.graph, &seq, 1, NULL), TSI_OK);
	assert_string_equal(tsi_engine_error(f.engine), "");
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_ERR_NOT_ATTACHED);
	assert_non_null(strstr(tsi_engine_error(f.engine), "call tsi_engine_load first"));
	assert_int_equal(tsi_engine_read_tensor(f.engine, "x", &x, sizeof(x)), TSI_ERR_NOT_ATTACHED);

	/* A device of another size does not fit the graph. */
	tsi_device_free(f.device);
	o.tiles_per_ipu = TILES * 2;
	assert_int_equal(tsi_device_new_ipu_model(&f.device, &o), TSI_OK);
	assert_int_equal(tsi_engine_load(f.engine, f.device), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_engine_error(f.engine), "does not match"));
	tsi_device_free(f.device);

	o.tiles_per_ipu = TILES;
	assert_int_equal(tsi_device_new_ipu_model(&f.device, &o), TSI_OK);
	assert_int_equal(tsi_engine_load(f.engine, f.device), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_OK);
	assert_int_equal(tsi_engine_run(f.engine, 1), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_engine_error(f.engine), "index 1"));
	assert_non_null(strstr(tsi_engine_error(f.engine), "1 program"));
	assert_int_equal(tsi_engine_run(f.engine, 99), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_error_last(), "99"));

	/* A detached device cannot run. */
	tsi_device_detach(f.device);
	assert_int_equal(tsi_engine_run(f.engine, 0), TSI_ERR_NOT_ATTACHED);
	assert_non_null(strstr(tsi_engine_error(f.engine), "detached"));

	/* NULL is harmless where documented. */
	assert_string_equal(tsi_engine_error(NULL), "");
	assert_int_equal(tsi_engine_num_programs(NULL), 0);
	tsi_engine_free(NULL);
	tsi_test_model_free(&f);
}

/* Options are validated before compiling: a known one is accepted, a
 * misspelt one fails with TSI_ERR_BAD_OPTION and no engine. Compilation
 * errors come back through tsi_engine_new too. */
static void test_engine_options(void **state)
{
	fx f;
	tsi_engine *e = NULL;
	tsi_options *opts = tsi_options_new();
	(void)state;

	assert_non_null(opts);
	fx_init(&f);
	tsi_test_var(&f, TSI_FLOAT, 1, 0, "x");
	tsi_program *seq = tsi_prog_sequence(f.graph, NULL);
	assert_int_equal(tsi_options_set(opts, "debug.instrument", "true"), TSI_OK);
	assert_int_equal(tsi_engine_new(&e, f.graph, &seq, 1, opts), TSI_OK);
	assert_non_null(e);
	tsi_engine_free(e);
	assert_int_equal(tsi_options_set(opts, "debug.instrumnet", "true"), TSI_OK);
	e = (tsi_engine *)opts; /* must be reset to NULL */
	assert_int_equal(tsi_engine_new(&e, f.graph, &seq, 1, opts), TSI_ERR_BAD_OPTION);
	assert_null(e);
	assert_non_null(strstr(tsi_error_last(), "debug.instrumnet"));
	tsi_options_free(opts);

	/* An unmapped variable copied by a program fails compilation. */
	tsi_tensor *u = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(1), "unmapped");
	tsi_program *copy = tsi_prog_copy(f.graph, u, tsi_graph_add_variable(f.graph, TSI_FLOAT,
	                                                                     TSI_SHAPE(1), "u2"));
	assert_int_equal(tsi_engine_new(&e, f.graph, &copy, 1, NULL), TSI_ERR_UNMAPPED_TENSOR);
	assert_null(e);
	assert_non_null(strstr(tsi_error_last(), "unmapped"));
	tsi_test_model_free(&f);
}

/* A graph that recorded a building error is refused with its message. */
static void test_invalid_graph(void **state)
{
	fx f;
	tsi_engine *e = (tsi_engine *)&f; /* must be reset to NULL */
	(void)state;

	fx_init(&f);
	tsi_tensor *x = tsi_test_var(&f, TSI_FLOAT, 4, 0, "x");
	assert_null(tsi_tensor_slice(x, 2, 9));
	tsi_program *seq = tsi_prog_sequence(f.graph, NULL);
	assert_int_equal(tsi_engine_new(&e, f.graph, &seq, 1, NULL), TSI_ERR_INVALID_GRAPH);
	assert_null(e);
	assert_non_null(strstr(tsi_error_last(), tsi_graph_get_error(f.graph)));
	tsi_test_model_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequence_order),
		cmocka_unit_test(test_execute_bsp_swap),
		cmocka_unit_test(test_execute_bsp_overlaps),
		cmocka_unit_test(test_repeat),
		cmocka_unit_test(test_repeat_while_true),
		cmocka_unit_test(test_repeat_while_false),
		cmocka_unit_test(test_if),
		cmocka_unit_test(test_switch),
		cmocka_unit_test(test_copy),
		cmocka_unit_test(test_call),
		cmocka_unit_test(test_sync_and_write_undef),
		cmocka_unit_test(test_print_tensor),
		cmocka_unit_test(test_named_programs),
		cmocka_unit_test(test_vector_list),
		cmocka_unit_test(test_inout),
		cmocka_unit_test(test_vertex_failed),
		cmocka_unit_test(test_run_errors),
		cmocka_unit_test(test_engine_options),
		cmocka_unit_test(test_invalid_graph),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
