/*
 * Unit tests of how the engine hands a compute set's fields to its
 * vertices (engine-plan.c, engine-compute-sets.c): inputs that several
 * vertices read alike are gathered once and shared, a list of rows lying
 * back to back in one variable is read in place, the rows of a transposed
 * view are gathered as one block, lists cut alike share their offsets,
 * a failing vertex is named right among vertices of several types, and a
 * loop body's made fields follow the scratch arena. Each test checks the
 * values the vertices compute and, where the layout is the point, where
 * their data pointers lead.
 */
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>

/* --- Codelets ---------------------------------------------------------------- */

/* The data pointer of the "in" field each ListSum vertex saw, in the
 * order they ran (the test compute sets run their vertices in order). */
#define MAX_SEEN 16
static const void *seen[MAX_SEEN];
static size_t n_seen;
/* The "in" offsets each ListSum vertex saw, in the order they ran. */
static const size_t *seen_offsets[MAX_SEEN];
static size_t n_seen_offsets;

/* out[k] = sum of sub-vector k of in, summed in order; records in's data
 * pointer. */
static bool list_sum_compute(const tsi_field *f, size_t n)
{
	const float *in = f[0].data;
	float *out = f[1].data;

	(void)n;
	if (f[1].count != f[0].n_vectors || f[0].offsets[f[0].n_vectors] != f[0].count)
		return false;
	if (n_seen < MAX_SEEN)
		seen[n_seen++] = f[0].data;
	if (n_seen_offsets < MAX_SEEN)
		seen_offsets[n_seen_offsets++] = f[0].offsets;
	for (size_t k = 0; k < f[0].n_vectors; k++) {
		float s = 0;
		for (size_t i = f[0].offsets[k]; i < f[0].offsets[k + 1]; i++)
			s += in[i];
		out[k] = s;
	}
	return true;
}

static const tsi_field_def list_sum_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};

/* out = dot(in, w) for vectors; records in's data pointer. */
static bool dot_compute(const tsi_field *f, size_t n)
{
	const float *in = f[0].data, *w = f[1].data;
	float s = 0;

	(void)n;
	if (f[0].count != f[1].count)
		return false;
	if (n_seen < MAX_SEEN)
		seen[n_seen++] = f[0].data;
	for (size_t i = 0; i < f[0].count; i++)
		s += in[i] * w[i];
	*(float *)f[2].data = s;
	return true;
}

static const tsi_field_def dot_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"w", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

/* Fails on a negative input. */
static bool positive_compute(const tsi_field *f, size_t n)
{
	(void)n;
	return *(const float *)f[0].data >= 0;
}

static const tsi_field_def positive_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

static const tsi_codelet codelets[] = {
	{"ListSum", list_sum_fields, 2, list_sum_compute, NULL, NULL, 16, 32, false},
	{"Dot", dot_fields, 3, dot_compute, NULL, NULL, 12, 32, false},
	{"Positive", positive_fields, 1, positive_compute, NULL, NULL, 4, 32, false},
};
#define N_CODELETS (sizeof(codelets) / sizeof(codelets[0]))

/* --- Helpers ----------------------------------------------------------------- */

/* A one-IPU graph of 4 tiles with the codelets; `m` is zeroed first. */
static void model_init(tsi_test_model *m)
{
	memset(m, 0, sizeof(*m));
	tsi_test_model_init(m, 1, 4, 1);
	assert_int_equal(tsi_graph_add_codelets(m->graph, codelets, N_CODELETS), TSI_OK);
	n_seen = 0;
	n_seen_offsets = 0;
}

/* A [rows, cols] float variable on tile 0 holding v[i] = i + 1, with host
 * handles named `name`. */
static tsi_tensor *matrix(tsi_test_model *m, size_t rows, size_t cols, const char *name)
{
	tsi_tensor *t = tsi_graph_add_variable(m->graph, TSI_FLOAT, TSI_SHAPE(rows, cols), name);

	assert_non_null(t);
	assert_int_equal(tsi_graph_set_tile_mapping(m->graph, t, 0), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(m->graph, name, t), TSI_OK);
	return t;
}

/* Fills the `rows` x `cols` matrix behind host handle `name` with i + 1. */
static void fill(tsi_test_model *m, const char *name, size_t rows, size_t cols)
{
	float *v = malloc(rows * cols * sizeof(float));

	assert_non_null(v);
	for (size_t i = 0; i < rows * cols; i++)
		v[i] = (float)(i + 1);
	tsi_test_write_floats(m->engine, name, v, rows * cols);
	free(v);
}

/* Adds a vertex of `type` on tile 0 with its fields connected in order
 * (f3 may be NULL). */
static void add(tsi_test_model *m, tsi_compute_set *cs, const char *type, const char *f1,
                const tsi_tensor *t1, const char *f2, const tsi_tensor *t2, const char *f3,
                const tsi_tensor *t3)
{
	tsi_vertex *v = tsi_graph_add_vertex(m->graph, cs, type);

	assert_non_null(v);
	assert_int_equal(tsi_graph_set_vertex_tile(m->graph, v, 0), TSI_OK);
	assert_int_equal(tsi_graph_connect(m->graph, v, f1, t1), TSI_OK);
	assert_int_equal(tsi_graph_connect(m->graph, v, f2, t2), TSI_OK);
	if (f3)
		assert_int_equal(tsi_graph_connect(m->graph, v, f3, t3), TSI_OK);
}

/* --- Tests ----------------------------------------------------------------------- */

/*
 * Two vertices read the same column of a matrix (a strided view, made
 * twice, so two different view objects) and a third reads another: the
 * first two see one gathered copy, the third its own; all three compute
 * the right dot products.
 */
static void test_same_strided_input_gathered_once(void **state)
{
	tsi_test_model m;
	float got[3];
	(void)state;

	model_init(&m);
	tsi_tensor *a = matrix(&m, 6, 4, "a");
	tsi_tensor *w = tsi_test_var(&m, TSI_FLOAT, 6, 0, "w");
	tsi_tensor *out = tsi_test_var(&m, TSI_FLOAT, 3, 0, "out");
	tsi_tensor *at = tsi_tensor_transpose(a);
	tsi_compute_set *cs = tsi_graph_add_compute_set(m.graph, "dots");
	add(&m, cs, "Dot", "in", tsi_tensor_index(at, 1), "w", w, "out", tsi_tensor_index(out, 0));
	add(&m, cs, "Dot", "in", tsi_tensor_index(at, 1), "w", w, "out", tsi_tensor_index(out, 1));
	add(&m, cs, "Dot", "in", tsi_tensor_index(at, 2), "w", w, "out", tsi_tensor_index(out, 2));
	tsi_program *ex = tsi_prog_execute(m.graph, cs);
	tsi_test_model_load(&m, &ex, 1, NULL);
	fill(&m, "a", 6, 4);
	const float ones[6] = {1, 1, 1, 1, 1, 1};
	tsi_test_write_floats(m.engine, "w", ones, 6);
	assert_int_equal(tsi_engine_run(m.engine, 0), TSI_OK);
	tsi_test_read_floats(m.engine, "out", got, 3);
	/* Column 1 of a (a[r][c] = 4r + c + 1): 2 + 6 + ... + 22 = 72. */
	assert_close(got[0], 72, 0);
	assert_close(got[1], 72, 0);
	assert_close(got[2], 78, 0);
	assert_int_equal(n_seen, 3);
	assert_ptr_equal(seen[0], seen[1]);
	assert_ptr_not_equal(seen[0], seen[2]);
	tsi_test_model_free(&m);
}

/*
 * A list field connected to rows that lie back to back in one variable
 * (a slice of a row-major matrix) is read in place: two vertices that
 * read overlapping row ranges see pointers exactly the rows' distance
 * apart, which a scratch copy per field could not give.
 */
static void test_contiguous_rows_read_in_place(void **state)
{
	tsi_test_model m;
	float got[5];
	(void)state;

	model_init(&m);
	tsi_tensor *a = matrix(&m, 6, 4, "a");
	tsi_tensor *o1 = tsi_test_var(&m, TSI_FLOAT, 3, 0, "o1");
	tsi_tensor *o2 = tsi_test_var(&m, TSI_FLOAT, 2, 0, "o2");
	tsi_compute_set *cs = tsi_graph_add_compute_set(m.graph, "sums");
	add(&m, cs, "ListSum", "in", tsi_tensor_slice(a, 1, 4), "out", o1, NULL, NULL);
	add(&m, cs, "ListSum", "in", tsi_tensor_slice(a, 2, 4), "out", o2, NULL, NULL);
	tsi_program *ex = tsi_prog_execute(m.graph, cs);
	tsi_test_model_load(&m, &ex, 1, NULL);
	fill(&m, "a", 6, 4);
	assert_int_equal(tsi_engine_run(m.engine, 0), TSI_OK);
	tsi_test_read_floats(m.engine, "o1", got, 3);
	tsi_test_read_floats(m.engine, "o2", got + 3, 2);
	/* Row r sums 4 * (4r + 1) + 6 = 16r + 10. */
	const float want[5] = {26, 42, 58, 42, 58};
	for (int i = 0; i < 5; i++)
		assert_close(got[i], want[i], 0);
	assert_int_equal(n_seen, 2);
	assert_ptr_equal((const float *)seen[0] + 4, seen[1]);
	tsi_test_model_free(&m);
}

/*
 * The rows of a transposed matrix (its columns) as a list: gathered as
 * one block, in tiles of rows, whatever the number of rows (here 37: two
 * full tiles and a part) and columns; every row sums right, also when
 * the list reads only part of the transposed view.
 */
static void test_transposed_rows_gathered_as_block(void **state)
{
	enum { R = 9, C = 37 };
	tsi_test_model m;
	float got[C + 10];
	(void)state;

	model_init(&m);
	tsi_tensor *a = matrix(&m, R, C, "a");
	tsi_tensor *all = tsi_test_var(&m, TSI_FLOAT, C, 0, "all");
	tsi_tensor *part = tsi_test_var(&m, TSI_FLOAT, 10, 0, "part");
	tsi_tensor *at = tsi_tensor_transpose(a);
	tsi_compute_set *cs = tsi_graph_add_compute_set(m.graph, "colsums");
	add(&m, cs, "ListSum", "in", at, "out", all, NULL, NULL);
	add(&m, cs, "ListSum", "in", tsi_tensor_slice_dim(tsi_tensor_slice(at, 20, 30), 2, 7, 1),
	    "out", part, NULL, NULL);
	tsi_program *ex = tsi_prog_execute(m.graph, cs);
	tsi_test_model_load(&m, &ex, 1, NULL);
	fill(&m, "a", R, C);
	assert_int_equal(tsi_engine_run(m.engine, 0), TSI_OK);
	tsi_test_read_floats(m.engine, "all", got, C);
	tsi_test_read_floats(m.engine, "part", got + C, 10);
	for (int c = 0; c < C; c++) {
		float s = 0;
		for (int r = 0; r < R; r++)
			s += (float)(r * C + c + 1);
		assert_close(got[c], s, 0);
	}
	for (int c = 20; c < 30; c++) {
		float s = 0;
		for (int r = 2; r < 7; r++)
			s += (float)(r * C + c + 1);
		assert_close(got[C + c - 20], s, 0);
	}
	tsi_test_model_free(&m);
}

/* Connects ListSum vertex's "in" to rows `rows[0..n)` of `a` (one
 * sub-vector each) and its "out" to `out`, on tile 0. */
static void add_rows(tsi_test_model *m, tsi_compute_set *cs, tsi_tensor *a, const size_t *rows,
                     size_t n, const tsi_tensor *out)
{
	tsi_tensor *list[8];
	tsi_vertex *v = tsi_graph_add_vertex(m->graph, cs, "ListSum");

	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++)
		assert_non_null(list[i] = tsi_tensor_index(a, rows[i]));
	assert_non_null(v);
	assert_int_equal(tsi_graph_set_vertex_tile(m->graph, v, 0), TSI_OK);
	assert_int_equal(tsi_graph_connect_list(m->graph, v, "in", list, n), TSI_OK);
	assert_int_equal(tsi_graph_connect(m->graph, v, "out", out), TSI_OK);
}

/*
 * Lists gathered from rows that do not lie back to back: two cut into
 * the same sub-vector sizes (two rows of 4) share one copy of their
 * offsets, a third (three rows) has its own; a vertex of another type
 * between them does not disturb the order, and every sum is right.
 */
static void test_equal_lists_share_offsets(void **state)
{
	tsi_test_model m;
	float got[8];
	(void)state;

	model_init(&m);
	tsi_tensor *a = matrix(&m, 6, 4, "a");
	tsi_tensor *w = tsi_test_var(&m, TSI_FLOAT, 4, 0, "w");
	tsi_tensor *o1 = tsi_test_var(&m, TSI_FLOAT, 2, 0, "o1");
	tsi_tensor *o2 = tsi_test_var(&m, TSI_FLOAT, 2, 0, "o2");
	tsi_tensor *o3 = tsi_test_var(&m, TSI_FLOAT, 3, 0, "o3");
	tsi_tensor *dot = tsi_test_var(&m, TSI_FLOAT, 1, 0, "dot");
	tsi_compute_set *cs = tsi_graph_add_compute_set(m.graph, "lists");
	const size_t r1[] = {0, 3}, r2[] = {1, 5}, r3[] = {0, 2, 4};
	add_rows(&m, cs, a, r1, 2, o1);
	add(&m, cs, "Dot", "in", tsi_tensor_index(a, 1), "w", w, "out", tsi_tensor_index(dot, 0));
	add_rows(&m, cs, a, r2, 2, o2);
	add_rows(&m, cs, a, r3, 3, o3);
	tsi_program *ex = tsi_prog_execute(m.graph, cs);
	tsi_test_model_load(&m, &ex, 1, NULL);
	fill(&m, "a", 6, 4);
	const float ones[4] = {1, 1, 1, 1};
	tsi_test_write_floats(m.engine, "w", ones, 4);
	assert_int_equal(tsi_engine_run(m.engine, 0), TSI_OK);
	tsi_test_read_floats(m.engine, "o1", got, 2);
	tsi_test_read_floats(m.engine, "o2", got + 2, 2);
	tsi_test_read_floats(m.engine, "o3", got + 4, 3);
	tsi_test_read_floats(m.engine, "dot", got + 7, 1);
	/* Row r sums 16r + 10. */
	const float want[8] = {10, 58, 26, 90, 10, 42, 74, 26};
	for (int i = 0; i < 8; i++)
		assert_close(got[i], want[i], 0);
	assert_int_equal(n_seen_offsets, 3);
	assert_ptr_equal(seen_offsets[0], seen_offsets[1]);
	assert_ptr_not_equal(seen_offsets[0], seen_offsets[2]);
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(seen_offsets[0][k], 4 * k);
	for (size_t k = 0; k < 4; k++)
		assert_int_equal(seen_offsets[2][k], 4 * k);
	tsi_test_model_free(&m);
}

/*
 * A vertex that fails among vertices of other types (the plan runs them
 * as runs of one codelet each) is named by its own id and type, and the
 * run stops with TSI_ERR_VERTEX_FAILED.
 */
static void test_failing_vertex_named(void **state)
{
	tsi_test_model m;
	char want[64];
	(void)state;

	model_init(&m);
	tsi_tensor *a = matrix(&m, 2, 4, "a");
	tsi_tensor *x = tsi_test_var(&m, TSI_FLOAT, 2, 0, "x");
	tsi_tensor *o = tsi_test_var(&m, TSI_FLOAT, 2, 0, "o");
	tsi_compute_set *cs = tsi_graph_add_compute_set(m.graph, "checks");
	add(&m, cs, "ListSum", "in", a, "out", o, NULL, NULL);
	tsi_vertex *ok = tsi_graph_add_vertex(m.graph, cs, "Positive");
	tsi_vertex *bad = tsi_graph_add_vertex(m.graph, cs, "Positive");
	assert_non_null(ok);
	assert_non_null(bad);
	assert_int_equal(tsi_graph_set_vertex_tile(m.graph, ok, 0), TSI_OK);
	assert_int_equal(tsi_graph_set_vertex_tile(m.graph, bad, 0), TSI_OK);
	assert_int_equal(tsi_graph_connect(m.graph, ok, "in", tsi_tensor_index(x, 0)), TSI_OK);
	assert_int_equal(tsi_graph_connect(m.graph, bad, "in", tsi_tensor_index(x, 1)), TSI_OK);
	tsi_program *ex = tsi_prog_execute(m.graph, cs);
	tsi_test_model_load(&m, &ex, 1, NULL);
	const float fine[2] = {1, 2}, fails[2] = {1, -2};
	tsi_test_write_floats(m.engine, "x", fine, 2);
	assert_int_equal(tsi_engine_run(m.engine, 0), TSI_OK);
	tsi_test_write_floats(m.engine, "x", fails, 2);
	assert_int_equal(tsi_engine_run(m.engine, 0), TSI_ERR_VERTEX_FAILED);
	/* Vertices are numbered in the order they were made: ListSum 0,
	 * the passing Positive 1, the failing one 2. */
	snprintf(want, sizeof(want), "vertex 2 (type 'Positive') in compute set 'checks'");
	assert_non_null(strstr(tsi_engine_error(m.engine), want));
	tsi_test_model_free(&m);
}

/*
 * A compute set run more than once in a run (a loop body) keeps its
 * fields made; they must follow the scratch arena when a larger compute
 * set grows it, and see what that set wrote. Here `small` sums rows 0 and
 * 3 of a (gathered: not back to back) twice in a Repeat, `big` then
 * writes row 0 of a from a transposed 200-row matrix (growing the arena),
 * and `small` runs again: its sums must be the new row's.
 */
static void test_loop_body_follows_arena(void **state)
{
	enum { R = 200 };
	tsi_test_model m;
	float got[2];
	(void)state;

	model_init(&m);
	tsi_tensor *a = matrix(&m, 6, 4, "a");
	tsi_tensor *b = matrix(&m, R, 4, "b");
	tsi_tensor *o = tsi_test_var(&m, TSI_FLOAT, 2, 0, "o");
	tsi_compute_set *small = tsi_graph_add_compute_set(m.graph, "small");
	tsi_compute_set *big = tsi_graph_add_compute_set(m.graph, "big");
	const size_t rows[] = {0, 3};
	add_rows(&m, small, a, rows, 2, o);
	add(&m, big, "ListSum", "in", tsi_tensor_transpose(b), "out", tsi_tensor_index(a, 0), NULL,
	    NULL);
	tsi_program *seq = tsi_prog_sequence(m.graph, "body");
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_repeat(m.graph, 2,
	                                                       tsi_prog_execute(m.graph, small))),
	                 TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(m.graph, big)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(m.graph, small)), TSI_OK);
	tsi_test_model_load(&m, &seq, 1, NULL);
	fill(&m, "a", 6, 4);
	fill(&m, "b", R, 4);
	assert_int_equal(tsi_engine_run(m.engine, 0), TSI_OK);
	tsi_test_read_floats(m.engine, "o", got, 2);
	/* Row 0 of a is now b's column sums: all of b, 1 + ... + 4R. */
	assert_close(got[0], (float)(4 * R) * (4 * R + 1) / 2, 0);
	assert_close(got[1], 58, 0);
	/* A second run starts from the same made fields. */
	fill(&m, "a", 6, 4);
	assert_int_equal(tsi_engine_run(m.engine, 0), TSI_OK);
	tsi_test_read_floats(m.engine, "o", got, 2);
	assert_close(got[0], (float)(4 * R) * (4 * R + 1) / 2, 0);
	tsi_test_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_strided_input_gathered_once),
		cmocka_unit_test(test_contiguous_rows_read_in_place),
		cmocka_unit_test(test_transposed_rows_gathered_as_block),
		cmocka_unit_test(test_equal_lists_share_offsets),
		cmocka_unit_test(test_failing_vertex_named),
		cmocka_unit_test(test_loop_body_follows_arena),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
