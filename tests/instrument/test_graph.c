/*
 * Unit tests of graph-level behaviour: variables and constants, tile
 * mapping and its queries, linear mapping, virtual and replicated graphs,
 * and the sticky building error.
 */
#include "test-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>

/* A graph on one Mk2 IPU whose tile count is `tiles` (0: all 1,472). */
static tsi_graph *new_graph(unsigned tiles)
{
	tsi_target target;
	tsi_graph *g = NULL;

	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK2, 1, tiles), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	assert_non_null(g);
	return g;
}

/* Asserts that `t`'s mapping in `g` is exactly the `n` intervals given as
 * (tile, begin, end) triples. */
static void assert_mapping(const tsi_graph *g, const tsi_tensor *t, const unsigned *triples,
                           size_t n)
{
	tsi_mapping_interval *iv = NULL;
	size_t count = 0;

	assert_int_equal(tsi_graph_list_tile_mapping(&iv, &count, g, t), TSI_OK);
	if (count != n) {
		for (size_t i = 0; i < count; i++)
			print_error("interval %zu: tile %u [%zu, %zu)\n", i, iv[i].tile, iv[i].begin,
			            iv[i].end);
	}
	assert_int_equal(count, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(iv[i].tile, triples[3 * i]);
		assert_int_equal(iv[i].begin, triples[3 * i + 1]);
		assert_int_equal(iv[i].end, triples[3 * i + 2]);
	}
	free(iv);
}

#define ASSERT_MAPPING(g, t, ...)                                                          \
	do {                                                                                   \
		const unsigned triples_[] = {__VA_ARGS__};                                         \
		assert_mapping((g), (t), triples_, sizeof(triples_) / sizeof(unsigned) / 3);       \
	} while (0)

/* --- Variables and constants ------------------------------------------------- */

static void test_add_variable(void **state)
{
	tsi_graph *g = new_graph(0);
	size_t shape[TSI_MAX_RANK];
	(void)state;

	tsi_tensor *v = tsi_graph_add_variable(g, TSI_UNSIGNED_SHORT, TSI_SHAPE(3, 5), "weights");
	assert_non_null(v);
	assert_int_equal(tsi_tensor_fill_shape(shape, v), 2);
	assert_int_equal(shape[0], 3);
	assert_int_equal(shape[1], 5);
	assert_int_equal(tsi_tensor_numel(v), 15);
	assert_int_equal(tsi_tensor_type(v), TSI_UNSIGNED_SHORT);
	assert_string_equal(tsi_tensor_name(v), "weights");
	assert_false(tsi_tensor_is_constant(v));
	assert_ptr_equal(tsi_tensor_graph(v), g);
	/* A new variable has no tile. */
	assert_false(tsi_graph_is_mapped(g, v));
	assert_int_equal(tsi_graph_get_tile_of(g, v, 0), TSI_NO_TILE);

	/* Unnamed variables get a generated name. */
	tsi_tensor *anon = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2), NULL);
	assert_non_null(anon);
	assert_non_null(tsi_tensor_name(anon));
	assert_non_null(strstr(tsi_tensor_name(anon), "var"));

	/* A scalar variable. */
	tsi_tensor *s = tsi_graph_add_variable(g, TSI_BOOL, 0, NULL, "flag");
	assert_non_null(s);
	assert_int_equal(tsi_tensor_rank(s), 0);
	assert_int_equal(tsi_tensor_numel(s), 1);
	assert_string_equal(tsi_graph_get_error(g), "");

	assert_null(tsi_graph_add_variable(NULL, TSI_FLOAT, TSI_SHAPE(2), "nograph"));
	tsi_graph_free(g);
}

static void test_add_variable_errors(void **state)
{
	tsi_graph *g = new_graph(0);
	(void)state;

	assert_null(tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(1, 1, 1, 1, 1, 1, 1, 1, 2), "deep"));
	assert_string_not_equal(tsi_graph_get_error(g), "");
	assert_non_null(strstr(tsi_graph_get_error(g), "deep"));
	assert_non_null(strstr(tsi_graph_get_error(g), "9"));
	assert_int_equal(tsi_graph_error_code(g), TSI_ERR_INVALID_ARGUMENT);
	tsi_graph_free(g);

	g = new_graph(0);
	assert_null(tsi_graph_add_variable(g, TSI_TYPE_COUNT, TSI_SHAPE(2), "oddtype"));
	assert_string_not_equal(tsi_graph_get_error(g), "");
	assert_non_null(strstr(tsi_graph_get_error(g), "oddtype"));
	tsi_graph_free(g);

	g = new_graph(0);
	assert_null(tsi_graph_add_constant(g, TSI_INT, TSI_SHAPE(2), NULL, "novalues"));
	assert_string_not_equal(tsi_graph_get_error(g), "");
	assert_non_null(strstr(tsi_graph_get_error(g), "novalues"));
	tsi_graph_free(g);
}

static void test_add_constants(void **state)
{
	tsi_graph *g = new_graph(0);
	const int32_t ints[] = {1, 2, 3, 4};
	const float floats[] = {0.5f, 1.5f, 2.5f};
	(void)state;

	tsi_tensor *c = tsi_graph_add_constant(g, TSI_INT, TSI_SHAPE(2, 2), ints, "ci");
	assert_non_null(c);
	assert_int_equal(tsi_tensor_type(c), TSI_INT);
	assert_int_equal(tsi_tensor_rank(c), 2);
	assert_int_equal(tsi_tensor_dim(c, 0), 2);
	assert_int_equal(tsi_tensor_dim(c, 1), 2);
	assert_true(tsi_tensor_is_constant(c));
	assert_string_equal(tsi_tensor_name(c), "ci");

	tsi_tensor *h = tsi_graph_add_constant_float(g, TSI_HALF, TSI_SHAPE(3), floats, "ch");
	assert_non_null(h);
	assert_int_equal(tsi_tensor_type(h), TSI_HALF);
	assert_int_equal(tsi_tensor_numel(h), 3);
	assert_true(tsi_tensor_is_constant(h));

	tsi_tensor *f = tsi_graph_add_constant_fill(g, TSI_FLOAT, TSI_SHAPE(2, 3), 2.5, NULL);
	assert_non_null(f);
	assert_int_equal(tsi_tensor_type(f), TSI_FLOAT);
	assert_int_equal(tsi_tensor_numel(f), 6);
	assert_true(tsi_tensor_is_constant(f));
	assert_non_null(tsi_tensor_name(f));
	/* Views of a constant are constant; constants are unmapped until mapped. */
	assert_true(tsi_tensor_is_constant(tsi_tensor_index(f, 1)));
	assert_false(tsi_graph_is_mapped(g, f));
	assert_int_equal(tsi_graph_set_tile_mapping(g, f, 9), TSI_OK);
	assert_true(tsi_graph_is_mapped(g, f));
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

/* --- Tile mapping -------------------------------------------------------------- */

static void test_set_tile_mapping(void **state)
{
	tsi_graph *g = new_graph(0);
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(8), "v");
	(void)state;

	/* Unmapped: one interval of TSI_NO_TILE. */
	ASSERT_MAPPING(g, v, TSI_NO_TILE, 0, 8);

	/* Slices; adjacent runs on one tile merge into one interval. */
	assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_slice(v, 2, 5), 3), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_slice(v, 5, 6), 3), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_index(v, 7), 1), TSI_OK);
	ASSERT_MAPPING(g, v, TSI_NO_TILE, 0, 2, 3, 2, 6, TSI_NO_TILE, 6, 7, 1, 7, 8);
	assert_false(tsi_graph_is_mapped(g, v));
	assert_true(tsi_graph_is_mapped(g, tsi_tensor_slice(v, 2, 6)));
	assert_int_equal(tsi_graph_get_tile_of(g, v, 4), 3);
	assert_int_equal(tsi_graph_get_tile_of(g, v, 6), TSI_NO_TILE);
	assert_int_equal(tsi_graph_get_tile_of(g, v, 8), TSI_NO_TILE); /* past the end */

	/* The mapping of a view is in the view's element order. */
	tsi_tensor *j = tsi_tensor_concat2(tsi_tensor_slice(v, 7, 8), tsi_tensor_slice(v, 2, 4), 0);
	ASSERT_MAPPING(g, j, 1, 0, 1, 3, 1, 3);

	/* Mapping the whole tensor replaces everything. */
	assert_int_equal(tsi_graph_set_tile_mapping(g, v, 1471), TSI_OK);
	ASSERT_MAPPING(g, v, 1471, 0, 8);
	assert_true(tsi_graph_is_mapped(g, v));

	/* A mapping of a 2-D variable by rows, read through its transpose. */
	tsi_tensor *m = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 3), "m");
	assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_index(m, 0), 10), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_index(m, 1), 11), TSI_OK);
	ASSERT_MAPPING(g, m, 10, 0, 3, 11, 3, 6);
	ASSERT_MAPPING(g, tsi_tensor_transpose(m), 10, 0, 1, 11, 1, 2, 10, 2, 3, 11, 3, 4, 10, 4, 5,
	               11, 5, 6);
	assert_string_equal(tsi_graph_get_error(g), "");
	tsi_graph_free(g);
}

static void test_set_tile_mapping_errors(void **state)
{
	tsi_graph *g = new_graph(16);
	tsi_graph *other = new_graph(16);
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "mapme");
	tsi_tensor *w = tsi_graph_add_variable(other, TSI_FLOAT, TSI_SHAPE(4), "foreign");
	tsi_mapping_interval *iv = NULL;
	size_t n = 7;
	(void)state;

	/* NULL tensors are quiet: the error was recorded when they were made. */
	assert_int_equal(tsi_graph_set_tile_mapping(g, NULL, 0), TSI_ERR_INVALID_GRAPH);
	assert_string_equal(tsi_graph_get_error(g), "");
	assert_int_not_equal(tsi_graph_list_tile_mapping(&iv, &n, g, NULL), TSI_OK);
	assert_null(iv);
	assert_int_equal(n, 0);

	/* A tile beyond the target's 16. */
	assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_slice(v, 1, 3), 16),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_string_not_equal(tsi_graph_get_error(g), "");
	assert_non_null(strstr(tsi_graph_get_error(g), "mapme"));
	assert_non_null(strstr(tsi_graph_get_error(g), "16"));
	/* Nothing was mapped. */
	assert_false(tsi_graph_is_mapped(g, tsi_tensor_index(v, 1)));

	/* A tensor of another graph. */
	assert_int_equal(tsi_graph_set_tile_mapping(other, v, 0), TSI_ERR_INVALID_ARGUMENT);
	assert_string_not_equal(tsi_graph_get_error(other), "");
	assert_non_null(strstr(tsi_graph_get_error(other), "mapme"));
	assert_false(tsi_graph_is_mapped(g, v));
	assert_false(tsi_graph_is_mapped(other, w));
	tsi_graph_free(other);
	tsi_graph_free(g);
}

static void test_map_linearly(void **state)
{
	tsi_graph *g = new_graph(4);
	(void)state;

	/* 10 elements over 4 tiles: 3 per tile, the last tile gets the rest. */
	tsi_tensor *a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(10), "a");
	assert_int_equal(tsi_graph_map_linearly(g, a, 1), TSI_OK);
	ASSERT_MAPPING(g, a, 0, 0, 3, 1, 3, 6, 2, 6, 9, 3, 9, 10);
	assert_true(tsi_graph_is_mapped(g, a));

	/* A grain of 4 rounds each tile's share up to 4: tile 3 is left empty. */
	tsi_tensor *b = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 5), "b");
	assert_int_equal(tsi_graph_map_linearly(g, b, 4), TSI_OK);
	ASSERT_MAPPING(g, b, 0, 0, 4, 1, 4, 8, 2, 8, 10);

	/* Fewer elements than tiles with a big grain: one tile holds them all. */
	tsi_tensor *c = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3), "c");
	assert_int_equal(tsi_graph_map_linearly(g, c, 8), TSI_OK);
	ASSERT_MAPPING(g, c, 0, 0, 3);

	/* On a full IPU every tile but the last gets whole grains. */
	tsi_graph *big = new_graph(0);
	tsi_tensor *d = tsi_graph_add_variable(big, TSI_FLOAT, TSI_SHAPE(100000), "d");
	tsi_mapping_interval *iv = NULL;
	size_t n = 0;
	assert_int_equal(tsi_graph_map_linearly(big, d, 16), TSI_OK);
	assert_int_equal(tsi_graph_list_tile_mapping(&iv, &n, big, d), TSI_OK);
	assert_true(n > 1 && n <= 1472);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(iv[i].tile, i);
		if (i + 1 < n)
			assert_int_equal((iv[i].end - iv[i].begin) % 16, 0);
	}
	assert_int_equal(iv[n - 1].end, 100000);
	free(iv);

	/* A view is spread in its own element order. */
	tsi_tensor *m = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 4), "m");
	assert_int_equal(tsi_graph_map_linearly(g, tsi_tensor_transpose(m), 2), TSI_OK);
	/* Transposed order m00 m10 m01 m11 m02 m12 m03 m13 -> tiles 0 0 1 1 2 2 3 3. */
	ASSERT_MAPPING(g, m, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 0, 4, 5, 1, 5, 6, 2, 6, 7, 3, 7, 8);
	assert_string_equal(tsi_graph_get_error(g), "");
	assert_string_equal(tsi_graph_get_error(big), "");
	tsi_graph_free(big);
	tsi_graph_free(g);
}

/* --- Virtual and replicated graphs ---------------------------------------------- */

static void test_virtual_graphs(void **state)
{
	tsi_graph *g = new_graph(0);
	(void)state;

	tsi_graph *vg = tsi_graph_create_virtual(g, 100, 200);
	assert_non_null(vg);
	assert_int_equal(tsi_graph_get_target(vg)->num_tiles, 100);
	assert_int_equal(tsi_graph_get_target(g)->num_tiles, 1472);
	assert_int_equal(tsi_graph_get_tile_offset(vg), 100);
	assert_int_equal(tsi_graph_get_tile_offset(g), 0);

	/* Tile 5 of the virtual graph is tile 105 of its parent. */
	tsi_tensor *v = tsi_graph_add_variable(vg, TSI_FLOAT, TSI_SHAPE(4), "vv");
	assert_ptr_equal(tsi_tensor_graph(v), vg);
	assert_int_equal(tsi_graph_set_tile_mapping(vg, tsi_tensor_slice(v, 0, 2), 5), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(vg, tsi_tensor_slice(v, 2, 4), 99), TSI_OK);
	assert_int_equal(tsi_graph_get_tile_of(vg, v, 0), 5);
	assert_int_equal(tsi_graph_get_tile_of(g, v, 0), 105);
	ASSERT_MAPPING(g, v, 105, 0, 2, 199, 2, 4);
	ASSERT_MAPPING(vg, v, 5, 0, 2, 99, 2, 4);

	/* A parent variable on a tile outside the window has no tile there. */
	tsi_tensor *p = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2), "pv");
	assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_index(p, 0), 50), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_index(p, 1), 150), TSI_OK);
	ASSERT_MAPPING(vg, p, TSI_NO_TILE, 0, 1, 50, 1, 2);

	/* Nested: [10, 20) of [100, 200) is [110, 120) of the top graph. */
	tsi_graph *inner = tsi_graph_create_virtual(vg, 10, 20);
	assert_non_null(inner);
	assert_int_equal(tsi_graph_get_tile_offset(inner), 110);
	assert_int_equal(tsi_graph_get_target(inner)->num_tiles, 10);
	tsi_tensor *w = tsi_graph_add_variable(inner, TSI_FLOAT, TSI_SHAPE(3), "inner_v");
	assert_int_equal(tsi_graph_map_linearly(inner, w, 1), TSI_OK);
	ASSERT_MAPPING(g, w, 110, 0, 1, 111, 1, 2, 112, 2, 3);
	assert_string_equal(tsi_graph_get_error(g), "");

	/* Freeing a virtual graph is a no-op; the top graph frees it. */
	tsi_graph_free(inner);
	tsi_graph_free(vg);
	assert_int_equal(tsi_graph_get_tile_of(vg, v, 0), 5);
	tsi_graph_free(g);
}

static void test_virtual_graph_errors(void **state)
{
	tsi_graph *g = new_graph(0);
	(void)state;

	tsi_graph *vg = tsi_graph_create_virtual(g, 100, 200);
	tsi_tensor *v = tsi_graph_add_variable(vg, TSI_FLOAT, TSI_SHAPE(4), "window_var");
	/* Tile 100 of a 100-tile virtual graph does not exist. */
	assert_int_equal(tsi_graph_set_tile_mapping(vg, v, 100), TSI_ERR_INVALID_ARGUMENT);
	const char *msg = tsi_graph_get_error(vg);
	assert_string_not_equal(msg, "");
	assert_non_null(strstr(msg, "window_var"));
	assert_non_null(strstr(msg, "100"));
	/* The error belongs to the whole graph. */
	assert_ptr_equal(tsi_graph_get_error(g), msg);
	assert_false(tsi_graph_is_mapped(g, v));
	tsi_graph_free(g);

	g = new_graph(0);
	assert_null(tsi_graph_create_virtual(g, 5, 5));
	assert_string_not_equal(tsi_graph_get_error(g), "");
	assert_non_null(strstr(tsi_graph_get_error(g), "[5, 5)"));
	tsi_graph_free(g);

	g = new_graph(0);
	assert_null(tsi_graph_create_virtual(g, 0, 1473));
	assert_string_not_equal(tsi_graph_get_error(g), "");
	assert_non_null(strstr(tsi_graph_get_error(g), "1473"));
	assert_null(tsi_graph_create_virtual(NULL, 0, 1));
	tsi_graph_free(g);
}

static void test_replicated_graph(void **state)
{
	tsi_target target;
	tsi_graph *g = NULL;
	(void)state;

	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK2, 4, 8), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 2), TSI_OK);
	assert_int_equal(tsi_graph_get_replication_factor(g), 2);
	/* Each replica holds 2 IPUs of 8 tiles. */
	assert_int_equal(tsi_graph_get_target(g)->num_tiles, 16);
	assert_int_equal(tsi_graph_get_target(g)->num_ipus, 2);
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "rv");
	assert_int_equal(tsi_graph_set_tile_mapping(g, v, 15), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(g, v, 16), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(g), "rv"));
	tsi_graph_free(g);

	/* Unreplicated graphs report a factor of 1. */
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	assert_int_equal(tsi_graph_get_replication_factor(g), 1);
	assert_int_equal(tsi_graph_get_target(g)->num_tiles, 32);
	tsi_graph_free(g);

	/* Replicas need whole IPUs, and at least one replica. */
	g = (tsi_graph *)&target; /* must be reset to NULL on failure */
	assert_int_equal(tsi_graph_new(&g, &target, 3), TSI_ERR_INVALID_ARGUMENT);
	assert_null(g);
	assert_non_null(strstr(tsi_error_last(), "3"));
	assert_int_equal(tsi_graph_new(&g, &target, 0), TSI_ERR_INVALID_ARGUMENT);
	assert_null(g);
	assert_int_not_equal(tsi_graph_new(&g, NULL, 1), TSI_OK);
	tsi_graph_free(NULL);
}

/* --- The sticky building error ------------------------------------------------------ */

static void test_error_is_sticky(void **state)
{
	tsi_graph *g = new_graph(16);
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "first_var");
	tsi_tensor *w = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "second_var");
	(void)state;

	assert_string_equal(tsi_graph_get_error(g), "");
	assert_int_equal(tsi_graph_error_code(g), TSI_OK);

	assert_int_equal(tsi_graph_set_tile_mapping(g, v, 40), TSI_ERR_INVALID_ARGUMENT);
	assert_string_not_equal(tsi_graph_get_error(g), "");
	char *first = strdup(tsi_graph_get_error(g));
	assert_non_null(first);
	assert_non_null(strstr(first, "first_var"));
	assert_non_null(strstr(first, "40"));

	/* Later errors do not replace the first one, but are still the
	 * thread's last error. */
	assert_null(tsi_tensor_slice(w, 3, 9));
	assert_string_equal(tsi_graph_get_error(g), first);
	assert_null(strstr(tsi_graph_get_error(g), "second_var"));
	assert_non_null(strstr(tsi_error_last(), "second_var"));
	assert_int_equal(tsi_graph_error_code(g), TSI_ERR_INVALID_ARGUMENT);

	/* Building goes on working after an error. */
	tsi_tensor *x = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2), "after");
	assert_non_null(x);
	assert_int_equal(tsi_graph_set_tile_mapping(g, x, 3), TSI_OK);
	assert_int_equal(tsi_graph_get_tile_of(g, x, 1), 3);
	assert_string_equal(tsi_graph_get_error(g), first);
	free(first);
	tsi_graph_free(g);

	assert_string_equal(tsi_graph_get_error(NULL), "");
	assert_int_not_equal(tsi_graph_error_code(NULL), TSI_OK);
}

/* A compute function that does nothing, for codelets looked up by name. */
static bool nothing(const tsi_field *fields, size_t n_fields)
{
	(void)fields;
	(void)n_fields;
	return true;
}

/* A second one, so that two tables with one name differ. */
static bool nothing_else(const tsi_field *fields, size_t n_fields)
{
	(void)fields;
	(void)n_fields;
	return false;
}

/*
 * Codelets are found by name through the graph's hash, whatever their
 * number (the table grows while they are added): each name gives its own
 * codelet, a name never added gives NULL, re-adding the same table is
 * harmless and a different table under a taken name is refused.
 */
static void test_codelet_lookup(void **state)
{
	enum { N = 300 };
	static char names[N][16];
	static const tsi_field_def field = {
	    .name = "out", .dir = TSI_FIELD_OUTPUT, .shape = TSI_FIELD_VECTOR, .type = TSI_FLOAT};
	tsi_graph *g = new_graph(0);
	(void)state;

	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "Type%d", i);
		tsi_codelet c = {.name = names[i], .fields = &field, .n_fields = 1, .compute = nothing};
		assert_int_equal(tsi_graph_add_codelet(g, &c), TSI_OK);
	}
	for (int i = 0; i < N; i++) {
		const tsi_codelet *c = tsi_graph_lookup_codelet(g, names[i]);
		assert_non_null(c);
		assert_string_equal(c->name, names[i]);
	}
	assert_null(tsi_graph_lookup_codelet(g, "Type300"));
	assert_null(tsi_graph_lookup_codelet(g, "Type"));
	assert_null(tsi_graph_lookup_codelet(g, ""));

	tsi_codelet same = {.name = "Type7", .fields = &field, .n_fields = 1, .compute = nothing};
	assert_int_equal(tsi_graph_add_codelet(g, &same), TSI_OK);
	tsi_codelet other = {.name = "Type7", .fields = &field, .n_fields = 1,
	                     .compute = nothing_else};
	assert_int_equal(tsi_graph_add_codelet(g, &other), TSI_ERR_INVALID_ARGUMENT);
	assert_ptr_equal(tsi_graph_lookup_codelet(g, "Type7")->compute, nothing);

	/* A vertex takes its codelet from the lookup. */
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "cs");
	tsi_vertex *v = tsi_graph_add_vertex(g, cs, "Type299");
	assert_non_null(v);
	assert_string_equal(tsi_vertex_type_name(v), "Type299");
	tsi_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_variable),
		cmocka_unit_test(test_add_variable_errors),
		cmocka_unit_test(test_add_constants),
		cmocka_unit_test(test_set_tile_mapping),
		cmocka_unit_test(test_set_tile_mapping_errors),
		cmocka_unit_test(test_map_linearly),
		cmocka_unit_test(test_virtual_graphs),
		cmocka_unit_test(test_virtual_graph_errors),
		cmocka_unit_test(test_replicated_graph),
		cmocka_unit_test(test_error_is_sticky),
		cmocka_unit_test(test_codelet_lookup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
