/*
 * How the graph keeps its memory small (white-box): a variable's tile map
 * held as canonical runs (checked against a table of a tile per element
 * under random mappings), and scratch views (views made inside
 * tsi_graph_scratch_begin/end are freed at the end; what a vertex field,
 * a program or a host handle holds is a kept copy with the same
 * elements; the view cache never hands out a freed view).
 */
#include "test-util.h"

#if __has_include("ipu-private.h")

#include "ipu-private.h"

#include <stdlib.h>
#include <string.h>

/* --- Tile maps ------------------------------------------------------------------ */

/* Fails unless `v`'s runs are canonical and give table[i] for every i. */
static void check_runs(const tsi_var *v, const uint32_t *table)
{
	if (v->numel == 0) {
		assert_int_equal(v->n_tile_runs, 0);
		return;
	}
	assert_true(v->n_tile_runs >= 1);
	assert_int_equal(v->tile_runs[0].begin, 0);
	for (uint32_t r = 1; r < v->n_tile_runs; r++) {
		assert_true(v->tile_runs[r].begin > v->tile_runs[r - 1].begin);
		assert_true(v->tile_runs[r].begin < v->numel);
		assert_int_not_equal(v->tile_runs[r].tile, v->tile_runs[r - 1].tile);
	}
	for (size_t i = 0; i < v->numel;) {
		size_t stop;
		uint32_t tile = tsi_var_tile_at(v, i, v->numel, &stop);

		assert_true(stop > i && stop <= v->numel);
		for (size_t k = i; k < stop; k++)
			assert_int_equal(tile, table[k]);
		/* The stretch is maximal: the next element is on another tile. */
		if (stop < v->numel)
			assert_int_not_equal(table[stop], tile);
		i = stop;
	}
}

/* Random ranges mapped to a few tiles, in random and in increasing order,
 * against a table; then a whole map from a table. */
static void test_tile_runs_match_table(void **state)
{
	(void)state;
	enum { N = 300 };
	tsi_var v = {.numel = N};
	uint32_t table[N];

	srand(19);
	assert_int_equal(tsi_var_tiles_init(&v), TSI_OK);
	for (size_t i = 0; i < N; i++)
		table[i] = TSI_NO_TILE;
	check_runs(&v, table);
	for (int round = 0; round < 4000; round++) {
		size_t a = (size_t)rand() % N;
		size_t len = 1 + (size_t)rand() % (round % 3 == 0 ? N - a : (N - a < 8 ? N - a : 8));
		uint32_t tile = (uint32_t)(rand() % 4);

		if (round % 7 == 0)
			tile = TSI_NO_TILE;
		assert_int_equal(tsi_var_set_tiles(&v, a, len, tile), TSI_OK);
		for (size_t k = a; k < a + len; k++)
			table[k] = tile;
		check_runs(&v, table);
	}
	for (size_t i = 0; i < N; i++)
		table[i] = (uint32_t)(i / 7 % 3);
	assert_int_equal(tsi_var_set_tiles_from(&v, table), TSI_OK);
	check_runs(&v, table);
	assert_int_equal(v.n_tile_runs, (N + 6) / 7);
	tsi_var_tiles_free(&v);
}

/* A variable mapped through the public API reads back the same way, and
 * a block-mapped variable holds one run per block. */
static void test_tile_runs_through_graph(void **state)
{
	(void)state;
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *x = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(64, 100), "x");
	const tsi_var *v;

	assert_non_null(x);
	v = tsi_graph_var(g, (uint32_t)x->var);
	assert_int_equal(v->n_tile_runs, 1);
	assert_false(tsi_graph_is_mapped(g, x));
	for (size_t r = 0; r < 64; r++)
		assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_index(x, r), (unsigned)(r / 4)),
		                 TSI_OK);
	assert_int_equal(v->n_tile_runs, 16);
	assert_true(tsi_graph_is_mapped(g, x));
	assert_int_equal(tsi_graph_get_tile_of(g, x, 4 * 100 * 3 + 5), 3);
	/* A column cuts every run into three. */
	assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_slice_dim(x, 10, 11, 1), 99),
	                 TSI_OK);
	assert_int_equal(v->n_tile_runs, 16 + 2 * 64);
	assert_int_equal(tsi_graph_get_tile_of(g, x, 100 * 63 + 10), 99);
	assert_int_equal(tsi_graph_get_tile_of(g, x, 100 * 63 + 11), 15);
	/* A linear spread over the 1,472 tiles: 5 elements each. */
	assert_int_equal(tsi_graph_map_linearly(g, x, 1), TSI_OK);
	assert_int_equal(v->n_tile_runs, (6400 + 4) / 5);
	assert_int_equal(tsi_graph_get_tile_of(g, x, 6399), 6399 / 5);
	tsi_graph_free(g);
}

/* --- Scratch views ------------------------------------------------------------------ */

static const tsi_codelet *test_codelet(void)
{
	static const tsi_field_def fields[] = {
	    {"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	    {"rows", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},
	};
	static tsi_codelet c;

	c.name = "TestScratch";
	c.fields = fields;
	c.n_fields = 2;
	c.compute = NULL;
	return &c;
}

static bool nop_compute(const tsi_field *f, size_t n)
{
	(void)f;
	(void)n;
	return true;
}

/* Fails unless `t` is a kept view of x's elements [begin, begin + n). */
static void check_kept(const tsi_tensor *t, const tsi_tensor *x, size_t begin, size_t n)
{
	assert_non_null(t);
	assert_false(t->scratch);
	assert_int_equal(t->numel, n);
	assert_int_equal(t->n_regions, 1);
	assert_int_equal(t->regions[0].var, x->regions[0].var);
	assert_int_equal(t->regions[0].begin, begin);
	assert_int_equal(t->regions[0].len, n);
}

static void test_scratch_views_kept_where_stored(void **state)
{
	(void)state;
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_codelet c = *test_codelet();
	tsi_tensor *x, *made_outside, *again;
	tsi_compute_set *cs;
	tsi_vertex *v;
	tsi_program *copy;

	c.compute = nop_compute;
	assert_int_equal(tsi_graph_add_codelet(g, &c), TSI_OK);
	x = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(8, 16), "x");
	cs = tsi_graph_add_compute_set(g, "cs");
	v = tsi_graph_add_vertex(g, cs, "TestScratch");
	made_outside = tsi_tensor_slice(tsi_tensor_index(x, 1), 0, 16);
	assert_non_null(made_outside);
	assert_false(made_outside->scratch);
	assert_true(tsi_tensor_keep(made_outside) == made_outside);

	tsi_graph_scratch_begin(g);
	tsi_graph_scratch_begin(g); /* scopes nest */
	tsi_tensor *block = tsi_tensor_slice_dim(tsi_tensor_slice(x, 2, 4), 4, 12, 1);
	tsi_tensor *flat = tsi_tensor_flatten(block);
	tsi_tensor *piece = tsi_tensor_slice(flat, 0, 8);
	assert_true(block->scratch && flat->scratch && piece->scratch);
	/* Equal to a view made outside: the cache hands that one out. */
	assert_true(tsi_tensor_slice(tsi_tensor_index(x, 1), 0, 16) == made_outside);
	/* A whole variable made inside is never scratch. */
	tsi_tensor *y = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "y");
	assert_false(y->scratch);
	assert_int_equal(tsi_graph_connect(g, v, "in", piece), TSI_OK);
	assert_int_equal(tsi_graph_connect(g, v, "rows", block), TSI_OK);
	copy = tsi_prog_copy(g, piece, tsi_tensor_slice(tsi_tensor_index(x, 7), 0, 8));
	assert_non_null(copy);
	assert_int_equal(tsi_graph_create_host_read(g, "piece", piece), TSI_OK);
	tsi_graph_scratch_end(g);
	assert_int_equal(g->core->scratch_depth, 1);
	assert_true(piece->scratch); /* still alive in the outer scope */
	tsi_graph_scratch_end(g);
	assert_int_equal(g->core->scratch_depth, 0);
	assert_int_equal(g->core->n_scratch_slots, 0);

	/* What was stored is a kept copy with the same elements. */
	check_kept(v->fields[0].tensors[0], x, 2 * 16 + 4, 8);
	assert_int_equal(v->fields[1].n, 2);
	check_kept(v->fields[1].tensors[0], x, 2 * 16 + 4, 8);
	check_kept(v->fields[1].tensors[1], x, 3 * 16 + 4, 8);
	check_kept(copy->src, x, 2 * 16 + 4, 8);
	check_kept(copy->dst, x, 7 * 16, 8);
	check_kept(tsi_graph_find_host_handle(g, "piece", false)->tensor, x, 2 * 16 + 4, 8);
	/* Keeping one view twice gives one copy (the cache), and the field's
	 * view is what the same slice made now returns. */
	assert_true(copy->src == v->fields[0].tensors[0]);
	again = tsi_tensor_slice(tsi_tensor_flatten(tsi_tensor_slice_dim(tsi_tensor_slice(x, 2, 4), 4,
	                                                                  12, 1)),
	                         0, 8);
	assert_true(again == v->fields[0].tensors[0]);
	assert_false(again->scratch);
	/* An unbalanced end is ignored. */
	tsi_graph_scratch_end(g);
	assert_int_equal(g->core->scratch_depth, 0);
	tsi_graph_free(g);
}

/* A scratch view left in the cache when its scope ends is dropped: the
 * same view asked for again is a new, live one. */
static void test_scratch_cache_emptied(void **state)
{
	(void)state;
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *x = tsi_graph_add_variable(g, TSI_HALF, TSI_SHAPE(32, 32), "x");
	tsi_tensor *t;

	tsi_graph_scratch_begin(g);
	for (size_t r = 0; r < 32; r++)
		assert_true(tsi_tensor_slice_dim(tsi_tensor_index(x, r), 3, 9, 0)->scratch);
	assert_true(g->core->n_scratch_slots > 0);
	tsi_graph_scratch_end(g);
	for (size_t i = 0; i < ((size_t)1 << 16); i++)
		assert_true(!g->core->view_cache[i] || !g->core->view_cache[i]->scratch);
	t = tsi_tensor_slice_dim(tsi_tensor_index(x, 5), 3, 9, 0);
	assert_false(t->scratch);
	assert_int_equal(t->regions[0].begin, 5 * 32 + 3);
	assert_int_equal(t->numel, 6);
	tsi_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tile_runs_match_table),
	    cmocka_unit_test(test_tile_runs_through_graph),
	    cmocka_unit_test(test_scratch_views_kept_where_stored),
	    cmocka_unit_test(test_scratch_cache_emptied),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* built as a public-API test: the private header is out of reach */

#include <stdio.h>

int main(void)
{
	fprintf(stderr, "test_graph_memory is a white-box test: list it under internal_tests "
	                "in tests/instrument/meson.build\n");
	return 77;
}

#endif
