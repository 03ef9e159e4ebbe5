/*
 * Unit tests of tensor views: shapes and element order of every view, the
 * contiguity and constness queries, error reporting, and the cost of row
 * slicing a large matrix.
 *
 * Element order is observed through the public API only: element k of a
 * source variable is mapped to tile k, so the tile of element j of a view
 * names the source element that sits at position j.
 */
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>

/* Maps element k of `v` to tile first_tile + k, one element at a time. */
static void map_identity(tsi_graph *g, const tsi_tensor *v, unsigned first_tile)
{
	tsi_tensor *flat = tsi_tensor_flatten(v);

	assert_non_null(flat);
	for (size_t k = 0; k < tsi_tensor_numel(v); k++)
		assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_index(flat, k),
		                                            first_tile + (unsigned)k),
		                 TSI_OK);
}

/* The tile of every element of `t` (malloc'd, numel entries), read through
 * the tile mapping intervals. */
static unsigned *tiles_of(tsi_graph *g, const tsi_tensor *t)
{
	tsi_mapping_interval *iv = NULL;
	size_t n = 0, numel = tsi_tensor_numel(t), pos = 0;
	unsigned *tiles = malloc((numel ? numel : 1) * sizeof(*tiles));

	assert_non_null(tiles);
	assert_int_equal(tsi_graph_list_tile_mapping(&iv, &n, g, t), TSI_OK);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(iv[i].begin, pos);
		for (size_t e = iv[i].begin; e < iv[i].end; e++)
			tiles[e] = iv[i].tile;
		pos = iv[i].end;
	}
	assert_int_equal(pos, numel);
	free(iv);
	return tiles;
}

/* Asserts that element j of `t` is element expected[j] of the identity-mapped
 * source, for every j, and that `t` has exactly n elements. */
static void assert_order(tsi_graph *g, const tsi_tensor *t, const unsigned *expected, size_t n)
{
	unsigned *tiles;

	assert_non_null(t);
	assert_int_equal(tsi_tensor_numel(t), n);
	tiles = tiles_of(g, t);
	for (size_t j = 0; j < n; j++) {
		if (tiles[j] != expected[j])
			print_error("element %zu: got source element %u, expected %u\n", j, tiles[j],
			            expected[j]);
		assert_int_equal(tiles[j], expected[j]);
		/* The single-element query agrees with the intervals. */
		assert_int_equal(tsi_graph_get_tile_of(g, t, j), expected[j]);
	}
	free(tiles);
}

#define ASSERT_ORDER(g, t, ...)                                                  \
	do {                                                                         \
		const unsigned expected_[] = {__VA_ARGS__};                              \
		assert_order((g), (t), expected_, sizeof(expected_) / sizeof(unsigned)); \
	} while (0)

/* Asserts the rank and dimensions of `t`. */
static void assert_shape(const tsi_tensor *t, size_t rank, const size_t *shape)
{
	size_t got[TSI_MAX_RANK];

	assert_non_null(t);
	assert_int_equal(tsi_tensor_rank(t), rank);
	assert_int_equal(tsi_tensor_fill_shape(got, t), rank);
	for (size_t d = 0; d < rank; d++) {
		assert_int_equal(got[d], shape[d]);
		assert_int_equal(tsi_tensor_dim(t, d), shape[d]);
	}
}

#define ASSERT_SHAPE(t, ...) assert_shape((t), TSI_SHAPE(__VA_ARGS__))

/* --- Accessors -------------------------------------------------------------- */

static void test_accessors(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *x = tsi_graph_add_variable(g, TSI_HALF, TSI_SHAPE(2, 3, 4), "x");
	size_t shape[TSI_MAX_RANK];
	(void)state;

	ASSERT_SHAPE(x, 2, 3, 4);
	assert_int_equal(tsi_tensor_type(x), TSI_HALF);
	assert_int_equal(tsi_tensor_numel(x), 24);
	assert_int_equal(tsi_tensor_dim(x, 3), 0);
	assert_ptr_equal(tsi_tensor_graph(x), g);
	assert_string_equal(tsi_tensor_name(x), "x");
	assert_true(tsi_tensor_is_contiguous(x));
	assert_false(tsi_tensor_is_constant(x));

	/* A view has no name and reports the source's type. */
	tsi_tensor *row = tsi_tensor_index(x, 1);
	assert_null(tsi_tensor_name(row));
	assert_int_equal(tsi_tensor_type(row), TSI_HALF);
	assert_ptr_equal(tsi_tensor_graph(row), g);
	ASSERT_SHAPE(row, 3, 4);

	/* NULL is accepted everywhere. */
	assert_int_equal(tsi_tensor_rank(NULL), 0);
	assert_int_equal(tsi_tensor_numel(NULL), 0);
	assert_int_equal(tsi_tensor_dim(NULL, 0), 0);
	assert_int_equal(tsi_tensor_fill_shape(shape, NULL), 0);
	assert_null(tsi_tensor_graph(NULL));
	assert_null(tsi_tensor_name(NULL));
	assert_false(tsi_tensor_is_contiguous(NULL));
	assert_false(tsi_tensor_is_constant(NULL));
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/* A rank-0 variable through TSI_SCALAR: one element, mappable. */
static void test_scalar_shape(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *loss = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SCALAR, "loss");

	(void)state;
	assert_non_null(loss);
	assert_int_equal(tsi_tensor_rank(loss), 0);
	assert_int_equal(tsi_tensor_numel(loss), 1);
	assert_string_equal(tsi_tensor_name(loss), "loss");
	assert_int_equal(tsi_graph_set_tile_mapping(g, loss, 3), TSI_OK);
	/* Broadcast to a vector, as a model adds a scalar to a batch. */
	ASSERT_SHAPE(tsi_tensor_broadcast(tsi_tensor_reshape(loss, TSI_SHAPE(1)), 4, 0), 4);
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/* --- Index and slices ---------------------------------------------------------- */

static void test_index(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "v");
	(void)state;

	map_identity(g, v, 0);
	tsi_tensor *row = tsi_tensor_index(v, 1);
	ASSERT_SHAPE(row, 4);
	ASSERT_ORDER(g, row, 4, 5, 6, 7);
	assert_true(tsi_tensor_is_contiguous(row));

	/* Rank 1 gives a rank-0 scalar of one element. */
	tsi_tensor *s = tsi_tensor_index(tsi_tensor_index(v, 2), 3);
	assert_non_null(s);
	assert_int_equal(tsi_tensor_rank(s), 0);
	assert_int_equal(tsi_tensor_numel(s), 1);
	ASSERT_ORDER(g, s, 11);

	/* Index of a rank-3 variable keeps the inner two dimensions. */
	tsi_tensor *c = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 2, 3), "c");
	map_identity(g, c, 100);
	tsi_tensor *m = tsi_tensor_index(c, 1);
	ASSERT_SHAPE(m, 2, 3);
	ASSERT_ORDER(g, m, 106, 107, 108, 109, 110, 111);
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/* Tutorial 1: v1.slice(0, 3) and v3.slice({1,1},{2,4}). */
static void test_slice_tutorial(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *v1 = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "v1");
	tsi_tensor *v3 = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 4), "v3");
	(void)state;

	map_identity(g, v1, 0);
	map_identity(g, v3, 0);
	tsi_tensor *s1 = tsi_tensor_slice(v1, 0, 3);
	ASSERT_SHAPE(s1, 3);
	ASSERT_ORDER(g, s1, 0, 1, 2);
	assert_true(tsi_tensor_is_contiguous(s1));

	const size_t begin[] = {1, 1}, end[] = {2, 4};
	tsi_tensor *s3 = tsi_tensor_slice_md(v3, begin, end, 2);
	ASSERT_SHAPE(s3, 1, 3);
	ASSERT_ORDER(g, s3, 5, 6, 7);

	/* Two rows, two columns: not one run. */
	const size_t b2[] = {1, 1}, e2[] = {3, 3};
	tsi_tensor *sq = tsi_tensor_slice_md(v3, b2, e2, 2);
	ASSERT_SHAPE(sq, 2, 2);
	ASSERT_ORDER(g, sq, 5, 6, 9, 10);
	assert_false(tsi_tensor_is_contiguous(sq));

	/* Slicing only the first of two dims equals a plain slice. */
	const size_t b1[] = {2}, e1[] = {4};
	tsi_tensor *rows = tsi_tensor_slice_md(v3, b1, e1, 1);
	ASSERT_SHAPE(rows, 2, 4);
	ASSERT_ORDER(g, rows, 8, 9, 10, 11, 12, 13, 14, 15);

	/* An empty slice is a tensor of no elements. */
	tsi_tensor *empty = tsi_tensor_slice(v1, 2, 2);
	ASSERT_SHAPE(empty, 0);
	assert_int_equal(tsi_tensor_numel(empty), 0);
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

static void test_slice_inner_dim(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "v");
	tsi_tensor *c = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 3, 4), "c");
	(void)state;

	map_identity(g, v, 0);
	map_identity(g, c, 100);
	tsi_tensor *cols = tsi_tensor_slice_dim(v, 1, 3, 1);
	ASSERT_SHAPE(cols, 3, 2);
	ASSERT_ORDER(g, cols, 1, 2, 5, 6, 9, 10);
	assert_false(tsi_tensor_is_contiguous(cols));

	tsi_tensor *mid = tsi_tensor_slice_dim(c, 1, 2, 1);
	ASSERT_SHAPE(mid, 2, 1, 4);
	ASSERT_ORDER(g, mid, 104, 105, 106, 107, 116, 117, 118, 119);

	tsi_tensor *last = tsi_tensor_slice_dim(c, 3, 4, 2);
	ASSERT_SHAPE(last, 2, 3, 1);
	ASSERT_ORDER(g, last, 103, 107, 111, 115, 119, 123);

	/* Full range of every dimension: the whole variable, contiguous. */
	tsi_tensor *all = tsi_tensor_slice_dim(c, 0, 4, 2);
	ASSERT_SHAPE(all, 2, 3, 4);
	assert_true(tsi_tensor_is_contiguous(all));
	/* All of one variable goes by its name (graph.h), a part does not. */
	assert_string_equal(tsi_tensor_name(all), "c");
	assert_null(tsi_tensor_name(last));
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/* --- Reshape, transpose, shuffle ----------------------------------------------- */

static void test_reshape_flatten(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *c = tsi_graph_add_variable(g, TSI_INT, TSI_SHAPE(2, 3, 4), "c");
	unsigned expected[24];
	(void)state;

	map_identity(g, c, 0);
	for (unsigned k = 0; k < 24; k++)
		expected[k] = k;
	tsi_tensor *r = tsi_tensor_reshape(c, TSI_SHAPE(4, 6));
	ASSERT_SHAPE(r, 4, 6);
	assert_int_equal(tsi_tensor_type(r), TSI_INT);
	assert_order(g, r, expected, 24);
	assert_true(tsi_tensor_is_contiguous(r));
	assert_string_equal(tsi_tensor_name(r), "c");

	tsi_tensor *f = tsi_tensor_flatten(c);
	ASSERT_SHAPE(f, 24);
	assert_order(g, f, expected, 24);

	/* Reshaping a transposed view keeps the transposed order. */
	tsi_tensor *m = tsi_tensor_reshape(c, TSI_SHAPE(6, 4));
	tsi_tensor *tf = tsi_tensor_flatten(tsi_tensor_transpose(m));
	ASSERT_SHAPE(tf, 24);
	unsigned *tiles = tiles_of(g, tf);
	for (unsigned j = 0; j < 24; j++)
		assert_int_equal(tiles[j], (j % 6) * 4 + j / 6);
	free(tiles);

	/* Rank 0 from one element and back. */
	tsi_tensor *one = tsi_tensor_slice(f, 5, 6);
	tsi_tensor *scalar = tsi_tensor_reshape(one, 0, NULL);
	assert_non_null(scalar);
	assert_int_equal(tsi_tensor_rank(scalar), 0);
	ASSERT_ORDER(g, scalar, 5);
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

static void test_transpose(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 3), "v");
	(void)state;

	map_identity(g, v, 0);
	tsi_tensor *t = tsi_tensor_transpose(v);
	ASSERT_SHAPE(t, 3, 2);
	ASSERT_ORDER(g, t, 0, 3, 1, 4, 2, 5);
	assert_false(tsi_tensor_is_contiguous(t));

	/* Transposing twice restores the order (and contiguity). */
	tsi_tensor *tt = tsi_tensor_transpose(t);
	ASSERT_SHAPE(tt, 2, 3);
	ASSERT_ORDER(g, tt, 0, 1, 2, 3, 4, 5);
	assert_true(tsi_tensor_is_contiguous(tt));

	/* A 1 x n matrix transposes to the same run. */
	tsi_tensor *row = tsi_tensor_slice(v, 1, 2);
	tsi_tensor *col = tsi_tensor_transpose(row);
	ASSERT_SHAPE(col, 3, 1);
	ASSERT_ORDER(g, col, 3, 4, 5);
	assert_true(tsi_tensor_is_contiguous(col));
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

static void test_dim_shuffle(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *c = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 3, 4), "c");
	const size_t perm[] = {2, 0, 1};
	unsigned expected[24];
	(void)state;

	map_identity(g, c, 0);
	tsi_tensor *s = tsi_tensor_dim_shuffle(c, perm);
	ASSERT_SHAPE(s, 4, 2, 3);
	/* s[i][j][k] = c[j][k][i]. */
	for (unsigned i = 0; i < 4; i++)
		for (unsigned j = 0; j < 2; j++)
			for (unsigned k = 0; k < 3; k++)
				expected[(i * 2 + j) * 3 + k] = j * 12 + k * 4 + i;
	assert_order(g, s, expected, 24);

	/* The identity permutation changes nothing. */
	const size_t id[] = {0, 1, 2};
	tsi_tensor *same = tsi_tensor_dim_shuffle(c, id);
	ASSERT_SHAPE(same, 2, 3, 4);
	assert_true(tsi_tensor_is_contiguous(same));

	/* {1, 0} on a matrix is a transpose. */
	tsi_tensor *m = tsi_tensor_reshape(c, TSI_SHAPE(4, 6));
	const size_t swap[] = {1, 0};
	unsigned *a = tiles_of(g, tsi_tensor_dim_shuffle(m, swap));
	unsigned *b = tiles_of(g, tsi_tensor_transpose(m));
	assert_memory_equal(a, b, 24 * sizeof(*a));
	free(a);
	free(b);
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/* --- Concat, broadcast, expand ---------------------------------------------------- */

static void test_concat(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 3), "a");
	tsi_tensor *b = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 2), "b");
	tsi_tensor *c = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(1, 3), "c");
	(void)state;

	map_identity(g, a, 0);
	map_identity(g, b, 100);
	map_identity(g, c, 200);

	tsi_tensor *ab = tsi_tensor_concat2(a, b, 1);
	ASSERT_SHAPE(ab, 2, 5);
	ASSERT_ORDER(g, ab, 0, 1, 2, 100, 101, 3, 4, 5, 102, 103);

	tsi_tensor *ac = tsi_tensor_concat2(a, c, 0);
	ASSERT_SHAPE(ac, 3, 3);
	ASSERT_ORDER(g, ac, 0, 1, 2, 3, 4, 5, 200, 201, 202);

	/* Three at once, with a view in the middle. */
	tsi_tensor *parts[] = {c, tsi_tensor_slice(a, 1, 2), c};
	tsi_tensor *cac = tsi_tensor_concat(parts, 3, 0);
	ASSERT_SHAPE(cac, 3, 3);
	ASSERT_ORDER(g, cac, 200, 201, 202, 3, 4, 5, 200, 201, 202);

	/* Rank-1 tensors along dimension 0. */
	tsi_tensor *fa = tsi_tensor_flatten(a), *fb = tsi_tensor_flatten(b);
	tsi_tensor *fab = tsi_tensor_concat2(fb, fa, 0);
	ASSERT_SHAPE(fab, 10);
	ASSERT_ORDER(g, fab, 100, 101, 102, 103, 0, 1, 2, 3, 4, 5);

	/* A single tensor is its own concatenation. */
	tsi_tensor *only = tsi_tensor_concat(&a, 1, 1);
	ASSERT_SHAPE(only, 2, 3);
	ASSERT_ORDER(g, only, 0, 1, 2, 3, 4, 5);
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

static void test_broadcast(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3), "v");
	tsi_tensor *m = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 3), "m");
	(void)state;

	map_identity(g, v, 0);
	map_identity(g, m, 10);

	tsi_tensor *b = tsi_tensor_broadcast(v, 2, 0);
	ASSERT_SHAPE(b, 6);
	ASSERT_ORDER(g, b, 0, 1, 2, 0, 1, 2);
	assert_false(tsi_tensor_is_contiguous(b));

	/* A row vector repeated as the rows of a matrix (the usual idiom). */
	tsi_tensor *rows = tsi_tensor_broadcast(tsi_tensor_expand(v, 0), 2, 0);
	ASSERT_SHAPE(rows, 2, 3);
	ASSERT_ORDER(g, rows, 0, 1, 2, 0, 1, 2);

	/* A column vector repeated along the columns. */
	tsi_tensor *cols = tsi_tensor_broadcast(tsi_tensor_expand(v, 1), 2, 1);
	ASSERT_SHAPE(cols, 3, 2);
	ASSERT_ORDER(g, cols, 0, 0, 1, 1, 2, 2);

	/* An inner dimension of size > 1: each row repeated as a whole. */
	tsi_tensor *mb = tsi_tensor_broadcast(m, 2, 1);
	ASSERT_SHAPE(mb, 2, 6);
	ASSERT_ORDER(g, mb, 10, 11, 12, 10, 11, 12, 13, 14, 15, 13, 14, 15);

	tsi_tensor *m0 = tsi_tensor_broadcast(m, 3, 0);
	ASSERT_SHAPE(m0, 6, 3);
	ASSERT_ORDER(g, m0, 10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15, 10, 11, 12, 13, 14, 15);

	/* A scalar made into a vector of four copies. */
	tsi_tensor *s4 = tsi_tensor_broadcast(tsi_tensor_expand(tsi_tensor_index(v, 1), 0), 4, 0);
	ASSERT_SHAPE(s4, 4);
	ASSERT_ORDER(g, s4, 1, 1, 1, 1);

	/* Once is the identity. */
	tsi_tensor *once = tsi_tensor_broadcast(m, 1, 1);
	ASSERT_SHAPE(once, 2, 3);
	assert_true(tsi_tensor_is_contiguous(once));
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

static void test_expand(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *m = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 3), "m");
	(void)state;

	map_identity(g, m, 0);
	tsi_tensor *e0 = tsi_tensor_expand(m, 0);
	ASSERT_SHAPE(e0, 1, 2, 3);
	ASSERT_ORDER(g, e0, 0, 1, 2, 3, 4, 5);
	ASSERT_SHAPE(tsi_tensor_expand(m, 1), 2, 1, 3);
	ASSERT_SHAPE(tsi_tensor_expand(m, 2), 2, 3, 1);
	assert_true(tsi_tensor_is_contiguous(e0));

	/* A scalar becomes a one-element vector. */
	tsi_tensor *s = tsi_tensor_expand(tsi_tensor_index(tsi_tensor_index(m, 1), 2), 0);
	ASSERT_SHAPE(s, 1);
	ASSERT_ORDER(g, s, 5);
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/* --- Composition ------------------------------------------------------------------- */

static void test_views_of_views(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "v");
	(void)state;

	map_identity(g, v, 0);
	/* Transpose of a slice. */
	tsi_tensor *ts = tsi_tensor_transpose(tsi_tensor_slice(v, 1, 3));
	ASSERT_SHAPE(ts, 4, 2);
	ASSERT_ORDER(g, ts, 4, 8, 5, 9, 6, 10, 7, 11);

	/* Slice of a transpose. */
	tsi_tensor *t = tsi_tensor_transpose(v);
	tsi_tensor *st = tsi_tensor_slice(t, 1, 3);
	ASSERT_SHAPE(st, 2, 3);
	ASSERT_ORDER(g, st, 1, 5, 9, 2, 6, 10);

	/* Index, inner slice and concat of transposed pieces. */
	ASSERT_ORDER(g, tsi_tensor_index(t, 3), 3, 7, 11);
	ASSERT_ORDER(g, tsi_tensor_slice_dim(t, 1, 3, 1), 4, 8, 5, 9, 6, 10, 7, 11);
	tsi_tensor *j = tsi_tensor_concat2(tsi_tensor_slice(t, 3, 4), tsi_tensor_slice(t, 0, 1), 0);
	ASSERT_SHAPE(j, 2, 3);
	ASSERT_ORDER(g, j, 3, 7, 11, 0, 4, 8);

	/* Broadcast of a column of the transpose, then a slice of that. */
	tsi_tensor *bc = tsi_tensor_broadcast(tsi_tensor_slice_dim(t, 2, 3, 1), 2, 1);
	ASSERT_SHAPE(bc, 4, 2);
	ASSERT_ORDER(g, bc, 8, 8, 9, 9, 10, 10, 11, 11);
	ASSERT_ORDER(g, tsi_tensor_slice(bc, 1, 2), 9, 9);

	/* Adjacent row slices joined again form one run of the variable. */
	tsi_tensor *joined = tsi_tensor_concat2(tsi_tensor_slice(v, 0, 1), tsi_tensor_slice(v, 1, 3), 0);
	assert_true(tsi_tensor_is_contiguous(joined));
	ASSERT_SHAPE(joined, 3, 4);
	tsi_tensor *swapped =
	    tsi_tensor_concat2(tsi_tensor_slice(v, 1, 3), tsi_tensor_slice(v, 0, 1), 0);
	assert_false(tsi_tensor_is_contiguous(swapped));
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/* --- Contiguity and constness --------------------------------------------------------- */

static void test_contiguous_and_constant(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 4), "v");
	tsi_tensor *k = tsi_graph_add_constant_fill(g, TSI_FLOAT, TSI_SHAPE(4), 1.5, "k");
	(void)state;

	assert_true(tsi_tensor_is_contiguous(v));
	assert_true(tsi_tensor_is_contiguous(tsi_tensor_slice(v, 1, 3)));
	assert_true(tsi_tensor_is_contiguous(tsi_tensor_index(v, 2)));
	assert_false(tsi_tensor_is_contiguous(tsi_tensor_slice_dim(v, 0, 2, 1)));
	/* One column of one row is a single element: contiguous. */
	assert_true(tsi_tensor_is_contiguous(tsi_tensor_slice_dim(tsi_tensor_slice(v, 2, 3), 1, 2, 1)));
	/* Two different variables are never one run. */
	assert_false(tsi_tensor_is_contiguous(tsi_tensor_concat2(tsi_tensor_index(v, 0), k, 0)));

	assert_true(tsi_tensor_is_constant(k));
	assert_true(tsi_tensor_is_constant(tsi_tensor_slice(k, 1, 3)));
	assert_true(tsi_tensor_is_constant(tsi_tensor_broadcast(k, 3, 0)));
	assert_false(tsi_tensor_is_constant(v));
	assert_false(tsi_tensor_is_constant(tsi_tensor_concat2(k, tsi_tensor_index(v, 0), 0)));
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/* --- Errors ------------------------------------------------------------------------------ */

enum bad_view {
	BAD_INDEX,
	BAD_INDEX_SCALAR,
	BAD_SLICE_END,
	BAD_SLICE_ORDER,
	BAD_SLICE_DIM,
	BAD_SLICE_SCALAR,
	BAD_SLICE_MD_RANK,
	BAD_SLICE_MD_RANGE,
	BAD_RESHAPE_NUMEL,
	BAD_RESHAPE_RANK,
	BAD_TRANSPOSE_RANK,
	BAD_PERM_REPEAT,
	BAD_PERM_RANGE,
	BAD_CONCAT_TYPE,
	BAD_CONCAT_SHAPE,
	BAD_CONCAT_DIM,
	BAD_CONCAT_GRAPH,
	BAD_BROADCAST_DIM,
	BAD_EXPAND_DIM,
	BAD_EXPAND_RANK,
	BAD_VIEW_COUNT
};

/* Makes the bad view `which` of `v` (a 3 x 4 float variable "errvar"). */
static tsi_tensor *make_bad_view(tsi_graph *g, tsi_tensor *v, enum bad_view which,
                                 tsi_graph **other)
{
	static const size_t b3[] = {0, 0, 0}, e3[] = {1, 1, 1};
	static const size_t b2[] = {1, 2}, e2[] = {2, 7};
	static const size_t perm_rep[] = {0, 0}, perm_big[] = {0, 2};

	switch (which) {
	case BAD_INDEX:
		return tsi_tensor_index(v, 3);
	case BAD_INDEX_SCALAR:
		return tsi_tensor_index(tsi_tensor_index(tsi_tensor_index(v, 1), 1), 0);
	case BAD_SLICE_END:
		return tsi_tensor_slice(v, 2, 5);
	case BAD_SLICE_ORDER:
		return tsi_tensor_slice(v, 2, 1);
	case BAD_SLICE_DIM:
		return tsi_tensor_slice_dim(v, 0, 1, 2);
	case BAD_SLICE_SCALAR:
		return tsi_tensor_slice(tsi_tensor_index(tsi_tensor_index(v, 1), 1), 0, 1);
	case BAD_SLICE_MD_RANK:
		return tsi_tensor_slice_md(v, b3, e3, 3);
	case BAD_SLICE_MD_RANGE:
		return tsi_tensor_slice_md(v, b2, e2, 2);
	case BAD_RESHAPE_NUMEL:
		return tsi_tensor_reshape(v, TSI_SHAPE(5, 5));
	case BAD_RESHAPE_RANK:
		return tsi_tensor_reshape(v, TSI_SHAPE(1, 1, 1, 1, 1, 1, 1, 3, 4));
	case BAD_TRANSPOSE_RANK:
		return tsi_tensor_transpose(tsi_tensor_flatten(v));
	case BAD_PERM_REPEAT:
		return tsi_tensor_dim_shuffle(v, perm_rep);
	case BAD_PERM_RANGE:
		return tsi_tensor_dim_shuffle(v, perm_big);
	case BAD_CONCAT_TYPE:
		return tsi_tensor_concat2(
		    v, tsi_graph_add_variable(g, TSI_HALF, TSI_SHAPE(3, 4), "halfvar"), 0);
	case BAD_CONCAT_SHAPE:
		return tsi_tensor_concat2(
		    v, tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 5), "widevar"), 0);
	case BAD_CONCAT_DIM:
		return tsi_tensor_concat2(v, v, 2);
	case BAD_CONCAT_GRAPH:
		*other = tsi_test_graph_mk2();
		return tsi_tensor_concat2(
		    v, tsi_graph_add_variable(*other, TSI_FLOAT, TSI_SHAPE(3, 4), "othervar"), 0);
	case BAD_BROADCAST_DIM:
		return tsi_tensor_broadcast(v, 2, 2);
	case BAD_EXPAND_DIM:
		return tsi_tensor_expand(v, 3);
	case BAD_EXPAND_RANK:
		return tsi_tensor_expand(tsi_tensor_reshape(v, TSI_SHAPE(1, 1, 1, 1, 1, 1, 3, 4)), 0);
	case BAD_VIEW_COUNT:
		break;
	}
	return NULL;
}

/* A substring the message of each bad view must contain besides the tensor. */
static const char *const bad_view_value[BAD_VIEW_COUNT] = {
	[BAD_INDEX] = "3",
	[BAD_INDEX_SCALAR] = "scalar",
	[BAD_SLICE_END] = "5",
	[BAD_SLICE_ORDER] = "[2, 1)",
	[BAD_SLICE_DIM] = "dimension 2",
	[BAD_SLICE_SCALAR] = "scalar",
	[BAD_SLICE_MD_RANK] = "3",
	[BAD_SLICE_MD_RANGE] = "7",
	[BAD_RESHAPE_NUMEL] = "[5, 5]",
	[BAD_RESHAPE_RANK] = "9",
	[BAD_TRANSPOSE_RANK] = "1 dimension",
	[BAD_PERM_REPEAT] = "permutation",
	[BAD_PERM_RANGE] = "permutation",
	[BAD_CONCAT_TYPE] = "half",
	[BAD_CONCAT_SHAPE] = "widevar",
	[BAD_CONCAT_DIM] = "dimension 2",
	[BAD_CONCAT_GRAPH] = "different graphs",
	[BAD_BROADCAST_DIM] = "dimension 2",
	[BAD_EXPAND_DIM] = "3",
	[BAD_EXPAND_RANK] = "8",
};

static void test_errors(void **state)
{
	(void)state;

	for (int which = 0; which < BAD_VIEW_COUNT; which++) {
		tsi_graph *g = tsi_test_graph_mk2(), *other = NULL;
		tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "errvar");
		tsi_tensor *bad = make_bad_view(g, v, (enum bad_view)which, &other);
		const char *msg = tsi_graph_get_error(g);

		if (bad || !*msg || !strstr(msg, "errvar") || !strstr(msg, bad_view_value[which]))
			print_error("case %d: view %p, message \"%s\"\n", which, (void *)bad,
			            *msg ? msg : "(none)");
		assert_null(bad);
		assert_non_null(msg);
		assert_int_equal(tsi_graph_error_code(g), TSI_ERR_INVALID_ARGUMENT);
		assert_non_null(strstr(msg, "errvar"));
		assert_non_null(strstr(msg, bad_view_value[which]));
		/* The error is only in the graph that was asked. */
		if (other)
			assert_string_equal(tsi_graph_get_error(other), "");
		tsi_graph_free(other);
		tsi_graph_free(g);
	}
}

/* A NULL input gives NULL and records nothing. */
static void test_null_propagates(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "v");
	const size_t b[] = {0}, e[] = {1}, perm[] = {1, 0};
	tsi_tensor *with_null[] = {v, NULL};
	(void)state;

	assert_null(tsi_tensor_index(NULL, 0));
	assert_null(tsi_tensor_slice(NULL, 0, 1));
	assert_null(tsi_tensor_slice_dim(NULL, 0, 1, 0));
	assert_null(tsi_tensor_slice_md(NULL, b, e, 1));
	assert_null(tsi_tensor_reshape(NULL, TSI_SHAPE(12)));
	assert_null(tsi_tensor_flatten(NULL));
	assert_null(tsi_tensor_transpose(NULL));
	assert_null(tsi_tensor_dim_shuffle(NULL, perm));
	assert_null(tsi_tensor_concat2(v, NULL, 0));
	assert_null(tsi_tensor_concat2(NULL, v, 0));
	assert_null(tsi_tensor_concat(with_null, 2, 0));
	assert_null(tsi_tensor_broadcast(NULL, 2, 0));
	assert_null(tsi_tensor_expand(NULL, 0));
	assert_string_equal(tsi_graph_get_error(g), "");

	/* After a failure, the chain of views built on it stays NULL and the
	 * first message is kept. */
	tsi_tensor *bad = tsi_tensor_slice(v, 0, 9);
	assert_null(bad);
	const char *first = tsi_graph_get_error(g);
	assert_non_null(first);
	assert_non_null(strstr(first, "9"));
	assert_null(tsi_tensor_transpose(tsi_tensor_index(bad, 0)));
	assert_null(tsi_tensor_index(v, 7));
	assert_ptr_equal(tsi_graph_get_error(g), first);
	assert_null(strstr(tsi_graph_get_error(g), "7"));
	tsi_graph_free(g);
}

/* Tensors of two virtual graphs of one graph share a core and may be joined. */
static void test_concat_virtual_graphs(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_graph *lo = tsi_graph_create_virtual(g, 0, 10);
	tsi_graph *hi = tsi_graph_create_virtual(g, 10, 20);
	(void)state;

	assert_non_null(lo);
	assert_non_null(hi);
	tsi_tensor *a = tsi_graph_add_variable(lo, TSI_FLOAT, TSI_SHAPE(2), "a");
	tsi_tensor *b = tsi_graph_add_variable(hi, TSI_FLOAT, TSI_SHAPE(2), "b");
	assert_int_equal(tsi_graph_set_tile_mapping(lo, a, 3), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(hi, b, 4), TSI_OK);
	tsi_tensor *ab = tsi_tensor_concat2(a, b, 0);
	ASSERT_SHAPE(ab, 4);
	assert_ptr_equal(tsi_tensor_graph(ab), lo);
	/* In top-level numbering: 0 + 3 and 10 + 4. */
	ASSERT_ORDER(g, ab, 3, 3, 14, 14);
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/* --- Randomised composition against a reference model -------------------------------- */

/* A view in the reference model: its shape and the source element at each
 * position. */
typedef struct ref_view {
	size_t rank;
	size_t shape[TSI_MAX_RANK];
	size_t numel;
	unsigned *el;
} ref_view;

/* A small deterministic generator, so failures reproduce. */
static unsigned next_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 16) & 0x7fff;
}

/* Splits linear position `k` of `shape` into a multi-index. */
static void unravel(size_t k, size_t rank, const size_t *shape, size_t *idx)
{
	for (size_t d = rank; d-- > 0;) {
		idx[d] = k % shape[d];
		k /= shape[d];
	}
}

static size_t ravel(size_t rank, const size_t *shape, const size_t *idx)
{
	size_t k = 0;

	for (size_t d = 0; d < rank; d++)
		k = k * shape[d] + idx[d];
	return k;
}

/* Allocates a reference view of the given shape (elements unset). */
static void ref_alloc(ref_view *r, size_t rank, const size_t *shape)
{
	r->rank = rank;
	r->numel = 1;
	for (size_t d = 0; d < rank; d++) {
		r->shape[d] = shape[d];
		r->numel *= shape[d];
	}
	r->el = malloc((r->numel ? r->numel : 1) * sizeof(*r->el));
	assert_non_null(r->el);
}

/* Applies one random view to both `t` and the reference `r` (replaced). */
static tsi_tensor *random_step(tsi_tensor *t, ref_view *r, unsigned *seed)
{
	size_t idx[TSI_MAX_RANK], sidx[TSI_MAX_RANK], shape[TSI_MAX_RANK];
	ref_view out;
	tsi_tensor *res = NULL;
	unsigned op = next_rand(seed) % 7;
	size_t dim = r->rank ? next_rand(seed) % r->rank : 0;

	if (r->rank == 0 || r->numel > 600)
		op = 5; /* expand a scalar; reshape something big (no growth) */
	if (r->numel > 600 && op == 5)
		op = 6;
	memcpy(shape, r->shape, sizeof(shape));
	switch (op) {
	case 0: { /* slice_dim */
		size_t n = r->shape[dim];
		size_t b = next_rand(seed) % n, e = b + 1 + next_rand(seed) % (n - b);
		res = tsi_tensor_slice_dim(t, b, e, dim);
		shape[dim] = e - b;
		ref_alloc(&out, r->rank, shape);
		for (size_t k = 0; k < out.numel; k++) {
			unravel(k, out.rank, out.shape, idx);
			idx[dim] += b;
			out.el[k] = r->el[ravel(r->rank, r->shape, idx)];
		}
		break;
	}
	case 1: { /* dim_shuffle */
		size_t perm[TSI_MAX_RANK];
		for (size_t d = 0; d < r->rank; d++)
			perm[d] = d;
		for (size_t d = r->rank; d > 1; d--) {
			size_t j = next_rand(seed) % d, tmp = perm[d - 1];
			perm[d - 1] = perm[j];
			perm[j] = tmp;
		}
		res = tsi_tensor_dim_shuffle(t, perm);
		for (size_t d = 0; d < r->rank; d++)
			shape[d] = r->shape[perm[d]];
		ref_alloc(&out, r->rank, shape);
		for (size_t k = 0; k < out.numel; k++) {
			unravel(k, out.rank, out.shape, idx);
			for (size_t d = 0; d < r->rank; d++)
				sidx[perm[d]] = idx[d];
			out.el[k] = r->el[ravel(r->rank, r->shape, sidx)];
		}
		break;
	}
	case 2: { /* broadcast */
		size_t n = 1 + next_rand(seed) % 3;
		res = tsi_tensor_broadcast(t, n, dim);
		shape[dim] *= n;
		ref_alloc(&out, r->rank, shape);
		for (size_t k = 0; k < out.numel; k++) {
			unravel(k, out.rank, out.shape, idx);
			idx[dim] %= r->shape[dim];
			out.el[k] = r->el[ravel(r->rank, r->shape, idx)];
		}
		break;
	}
	case 3: { /* index */
		size_t i = next_rand(seed) % r->shape[0];
		res = tsi_tensor_index(t, i);
		ref_alloc(&out, r->rank - 1, r->shape + 1);
		memcpy(out.el, r->el + i * out.numel, out.numel * sizeof(*out.el));
		break;
	}
	case 4: { /* concat with a slice of itself along dim */
		size_t n = r->shape[dim], b = next_rand(seed) % n;
		tsi_tensor *part = tsi_tensor_slice_dim(t, b, n, dim);
		res = tsi_tensor_concat2(t, part, dim);
		shape[dim] = n + (n - b);
		ref_alloc(&out, r->rank, shape);
		for (size_t k = 0; k < out.numel; k++) {
			unravel(k, out.rank, out.shape, idx);
			if (idx[dim] >= n)
				idx[dim] = idx[dim] - n + b;
			out.el[k] = r->el[ravel(r->rank, r->shape, idx)];
		}
		break;
	}
	case 5: { /* expand (bounded rank) or, when full, flatten */
		if (r->rank >= 5) {
			res = tsi_tensor_flatten(t);
			shape[0] = r->numel;
			ref_alloc(&out, 1, shape);
		} else {
			size_t at = next_rand(seed) % (r->rank + 1);
			res = tsi_tensor_expand(t, at);
			for (size_t d = 0, s = 0; d <= r->rank; d++)
				shape[d] = d == at ? 1 : r->shape[s++];
			ref_alloc(&out, r->rank + 1, shape);
		}
		memcpy(out.el, r->el, out.numel * sizeof(*out.el));
		break;
	}
	default: { /* reshape: split off a factor of 2 or 3, or flatten */
		size_t n = r->numel;
		if (n % 3 == 0 && n > 3) {
			shape[0] = 3;
			shape[1] = n / 3;
			res = tsi_tensor_reshape(t, 2, shape);
			ref_alloc(&out, 2, shape);
		} else if (n % 2 == 0 && n > 2) {
			shape[0] = n / 2;
			shape[1] = 2;
			res = tsi_tensor_reshape(t, 2, shape);
			ref_alloc(&out, 2, shape);
		} else {
			shape[0] = n;
			res = tsi_tensor_flatten(t);
			ref_alloc(&out, 1, shape);
		}
		memcpy(out.el, r->el, out.numel * sizeof(*out.el));
		break;
	}
	}
	free(r->el);
	*r = out;
	return res;
}

static void test_random_compositions(void **state)
{
	unsigned seed = 12345;
	(void)state;

	for (int round = 0; round < 150; round++) {
		tsi_graph *g = tsi_test_graph_mk2();
		tsi_tensor *t = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 3, 5), "src");
		ref_view r;

		map_identity(g, t, 0);
		ref_alloc(&r, 3, (const size_t[]){4, 3, 5});
		for (unsigned k = 0; k < 60; k++)
			r.el[k] = k;
		for (int step = 0; step < 6; step++) {
			t = random_step(t, &r, &seed);
			assert_shape(t, r.rank, r.shape);
			assert_order(g, t, r.el, r.numel);
		}
		free(r.el);
		assert_string_equal(tsi_graph_get_error(g), "");
		tsi_graph_free(g);
	}
}

/* --- Scale ------------------------------------------------------------------------------- */

/*
 * Tutorial 7's pattern: a 10,000 x 1,000 matrix cut into its rows, each row
 * into five segments. Each view must cost in proportion to the regions it
 * touches, not the matrix's ten million elements; this just runs it and
 * checks a few tiles.
 */
static void test_big_row_slices(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *big = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(10000, 1000), "big");
	(void)state;

	assert_non_null(big);
	for (size_t r = 0; r < 10000; r++)
		assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_slice(big, r, r + 1),
		                                            (unsigned)(r % 1472)),
		                 TSI_OK);
	/* Row 1234, columns [600, 800): a different tile. */
	assert_int_equal(tsi_graph_set_tile_mapping(
	                     g, tsi_tensor_slice(tsi_tensor_index(big, 1234), 600, 800), 7),
	                 TSI_OK);

	for (size_t r = 0; r < 10000; r++) {
		tsi_tensor *row = tsi_tensor_index(big, r);
		assert_non_null(row);
		assert_true(tsi_tensor_is_contiguous(row));
		for (size_t s = 0; s < 5; s++) {
			tsi_tensor *seg = tsi_tensor_slice(row, s * 200, s * 200 + 200);
			unsigned want = r == 1234 && s == 3 ? 7u : (unsigned)(r % 1472);
			assert_non_null(seg);
			assert_int_equal(tsi_tensor_numel(seg), 200);
			assert_true(tsi_tensor_is_contiguous(seg));
			assert_int_equal(tsi_graph_get_tile_of(g, seg, 0), want);
			assert_int_equal(tsi_graph_get_tile_of(g, seg, 199), want);
		}
	}
	/* A block spanning the rows on both sides of row 1234's odd segment. */
	const size_t b[] = {1233, 599}, e[] = {1236, 601};
	tsi_tensor *blk = tsi_tensor_slice_md(big, b, e, 2);
	ASSERT_ORDER(g, blk, 1233, 1233, 1234, 7, 1235, 1235);
	/* A big dimension-0 slice of the contiguous matrix is still one run. */
	assert_true(tsi_tensor_is_contiguous(tsi_tensor_slice(big, 100, 9100)));
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/*
 * Equal views are one tensor: the graph keeps recently made views and
 * returns the same one for the same elements, type and shape, while any
 * difference (elements, shape, graph) gives a different tensor, and the
 * variable's own tensor is never handed out for a view.
 */
static void test_equal_views_shared(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 6), "v");
	(void)state;

	assert_non_null(v);
	map_identity(g, v, 0);
	tsi_tensor *a = tsi_tensor_slice_dim(v, 1, 3, 1);
	tsi_tensor *b = tsi_tensor_slice_dim(v, 1, 3, 1);
	tsi_tensor *c = tsi_tensor_slice_dim(v, 1, 4, 1);
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	ASSERT_ORDER(g, a, 1, 2, 7, 8, 13, 14, 19, 20);
	ASSERT_ORDER(g, c, 1, 2, 3, 7, 8, 9, 13, 14, 15, 19, 20, 21);

	/* The same elements under another shape are another tensor. */
	tsi_tensor *row = tsi_tensor_index(v, 2);
	tsi_tensor *row2d = tsi_tensor_slice(v, 2, 3);
	assert_ptr_not_equal(row, row2d);
	assert_int_equal(tsi_tensor_rank(row), 1);
	assert_int_equal(tsi_tensor_rank(row2d), 2);
	assert_ptr_equal(row, tsi_tensor_index(v, 2));

	/* Transposes walk element by element; equal ones are shared too. */
	tsi_tensor *t1 = tsi_tensor_transpose(v), *t2 = tsi_tensor_transpose(v);
	assert_ptr_equal(t1, t2);
	ASSERT_ORDER(g, tsi_tensor_index(t1, 1), 1, 7, 13, 19);

	/* A view of all of v is not v's own tensor, but goes by v's name. */
	tsi_tensor *all = tsi_tensor_slice(v, 0, 4);
	assert_ptr_not_equal(all, v);
	assert_string_equal(tsi_tensor_name(all), "v");

	/* The same slice in a virtual graph is that graph's tensor. */
	tsi_graph *vg = tsi_graph_create_virtual(g, 0, 8);
	assert_non_null(vg);
	tsi_tensor *w = tsi_graph_add_variable(vg, TSI_FLOAT, TSI_SHAPE(4), "w");
	tsi_tensor *wa = tsi_tensor_slice(w, 1, 3);
	assert_ptr_equal(tsi_tensor_graph(wa), vg);
	assert_ptr_equal(wa, tsi_tensor_slice(w, 1, 3));
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/* A variable of more than UINT32_MAX elements is refused with a message
 * that says so (views hold element counts in 32 bits). */
static void test_variable_size_limit(void **state)
{
	tsi_graph *g = tsi_test_graph_mk2();
	(void)state;

	assert_null(tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(65536, 65537), "huge"));
	assert_non_null(strstr(tsi_graph_get_error(g), "at most 4294967295 in one variable"));
	assert_non_null(strstr(tsi_graph_get_error(g), "'huge'"));
	tsi_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accessors),
		cmocka_unit_test(test_scalar_shape),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_slice_tutorial),
		cmocka_unit_test(test_slice_inner_dim),
		cmocka_unit_test(test_reshape_flatten),
		cmocka_unit_test(test_transpose),
		cmocka_unit_test(test_dim_shuffle),
		cmocka_unit_test(test_concat),
		cmocka_unit_test(test_broadcast),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_views_of_views),
		cmocka_unit_test(test_contiguous_and_constant),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_null_propagates),
		cmocka_unit_test(test_concat_virtual_graphs),
		cmocka_unit_test(test_random_compositions),
		cmocka_unit_test(test_big_row_slices),
		cmocka_unit_test(test_equal_views_shared),
		cmocka_unit_test(test_variable_size_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
