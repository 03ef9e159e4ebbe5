/*
 * Memory read back from real reports against the simulator's in-memory
 * graph profile: every tile, totals per IPU, largest tiles, histograms,
 * out-of-memory tiles, every category by region and overlap (all tiles,
 * each IPU, each tile), vertex memory by compute set and vertex type,
 * and the listed variables with their bytes on each tile.
 */
#include "report-fixture.h"

#include <stdlib.h>
#include <string.h>

/* Every tile's regions and totals. */
static void test_tiles(void **state)
{
	tsr_fixture *f = *state;
	const tsr_tile_memory *m;
	size_t n;

	assert_int_equal(tsr_report_get_tile_memory(&m, &n, f->report), TSR_OK);
	assert_int_equal(n, f->gp->target.num_tiles);
	for (size_t t = 0; t < n; t++) {
		const tsi_tile_memory *g = &f->gp->by_tile[t];

		for (int k = 0; k < TSR_REGION_COUNT; k++) {
			assert_int_equal(m[t].region[k], g->region[k]);
			assert_int_equal(m[t].region_including_gaps[k], g->region_including_gaps[k]);
		}
		assert_int_equal(m[t].total, g->total);
		assert_int_equal(m[t].total_including_gaps, g->total_including_gaps);
	}
	assert_true(m[0].total > 0);
	assert_int_equal(tsr_report_get_tile_memory(NULL, &n, f->report), TSR_ERR_INVALID_ARGUMENT);
}

/* Totals of all tiles and of each IPU, recomputed from the profile. */
static void test_totals(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	unsigned per = gp->target.tiles_per_ipu;
	tsr_memory_totals all, ipu[2];

	assert_int_equal(gp->target.num_ipus, 2);
	assert_int_equal(tsr_report_fill_memory_totals(&all, f->report, -1), TSR_OK);
	for (int i = 0; i < 2; i++) {
		uint64_t total = 0, gaps = 0, max = 0, min = UINT64_MAX;
		uint32_t max_tile = 0;

		assert_int_equal(tsr_report_fill_memory_totals(&ipu[i], f->report, i), TSR_OK);
		for (unsigned t = i * per; t < (i + 1) * per; t++) {
			const tsi_tile_memory *g = &gp->by_tile[t];

			total += g->total;
			gaps += g->total_including_gaps;
			if (g->total_including_gaps > max) {
				max = g->total_including_gaps;
				max_tile = t;
			}
			if (g->total_including_gaps < min)
				min = g->total_including_gaps;
		}
		assert_int_equal(ipu[i].total, total);
		assert_int_equal(ipu[i].total_including_gaps, gaps);
		assert_int_equal(ipu[i].max_tile, max_tile);
		assert_int_equal(ipu[i].max_tile_bytes, max);
		assert_int_equal(ipu[i].min_tile_bytes, min);
		assert_int_equal(ipu[i].capacity, gp->target.bytes_per_tile * per);
		assert_close(ipu[i].mean_tile_bytes, (double)gaps / per, 1e-6);
		assert_int_equal(ipu[i].oom_tiles, 0);
	}
	assert_int_equal(all.total, ipu[0].total + ipu[1].total);
	assert_int_equal(all.total_including_gaps,
	                 ipu[0].total_including_gaps + ipu[1].total_including_gaps);
	for (int k = 0; k < TSR_REGION_COUNT; k++)
		assert_int_equal(all.region[k], ipu[0].region[k] + ipu[1].region[k]);
	assert_int_equal(all.capacity, gp->target.bytes_per_tile * gp->target.num_tiles);
	assert_int_equal(tsr_report_fill_memory_totals(&all, f->report, 2), TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_report_fill_memory_totals(&all, f->report, -2), TSR_ERR_OUT_OF_RANGE);
}

/* Largest tiles are sorted and tie-broken; the histogram counts them all. */
static void test_largest_and_histogram(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	unsigned nt = gp->target.num_tiles;
	uint32_t *tiles;
	uint64_t *counts, width, sum = 0;
	size_t n, nb;

	assert_int_equal(tsr_report_list_largest_tiles(&tiles, &n, f->report, -1, true, 5), TSR_OK);
	assert_int_equal(n, 5);
	for (size_t i = 1; i < n; i++) {
		uint64_t a = gp->by_tile[tiles[i - 1]].total_including_gaps;
		uint64_t b = gp->by_tile[tiles[i]].total_including_gaps;

		assert_true(a > b || (a == b && tiles[i - 1] < tiles[i]));
	}
	for (unsigned t = 0; t < nt; t++)
		assert_true(gp->by_tile[t].total_including_gaps <=
		            gp->by_tile[tiles[0]].total_including_gaps);
	free(tiles);
	assert_int_equal(tsr_report_list_largest_tiles(&tiles, &n, f->report, 1, false, 1000), TSR_OK);
	assert_int_equal(n, gp->target.tiles_per_ipu);
	for (size_t i = 0; i < n; i++)
		assert_true(tiles[i] >= gp->target.tiles_per_ipu);
	free(tiles);

	assert_int_equal(tsr_report_list_tile_histogram(&counts, &nb, &width, f->report, -1, true, 0),
	                 TSR_OK);
	assert_true(nb >= 1 && nb <= 20);
	for (size_t b = 0; b < nb; b++)
		sum += counts[b];
	assert_int_equal(sum, nt);
	for (size_t b = 0; b < nb; b++) {
		uint64_t expect = 0;

		for (unsigned t = 0; t < nt; t++)
			expect += gp->by_tile[t].total_including_gaps / width == b;
		assert_int_equal(counts[b], expect);
	}
	free(counts);
	assert_int_equal(tsr_report_list_tile_histogram(&counts, &nb, &width, f->report, 0, false, 1024),
	                 TSR_OK);
	assert_int_equal(width, 1024);
	sum = 0;
	for (size_t b = 0; b < nb; b++)
		sum += counts[b];
	assert_int_equal(sum, gp->target.tiles_per_ipu);
	free(counts);
	/* An IPU past the target. */
	assert_int_equal(tsr_report_list_tile_histogram(&counts, &nb, NULL, f->report, 5, true, 0),
	                 TSR_ERR_OUT_OF_RANGE);
}

/* Every category x region x overlap, for all tiles and each IPU, and by tile. */
static void test_categories(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	unsigned nt = gp->target.num_tiles, per = gp->target.tiles_per_ipu;
	uint64_t *by_tile = calloc(nt, sizeof(*by_tile));
	uint64_t grand = 0;

	assert_non_null(by_tile);
	assert_int_equal(tsr_category_count(), TSI_MEM_CATEGORY_COUNT);
	for (size_t c = 0; c < tsr_category_count(); c++)
		assert_string_equal(tsr_category_name(c), tsi_mem_category_name((tsi_mem_category)c));
	assert_null(tsr_category_name(tsr_category_count()));
	/* Labels are the summary's ("Control Code"), one per category, none a
	 * stored name (the screens show these, the JSON the names). */
	assert_string_equal(tsr_category_label(TSR_MEM_CONTROL_CODE), "Control Code");
	for (size_t c = 0; c < tsr_category_count(); c++) {
		assert_non_null(tsr_category_label(c));
		assert_string_not_equal(tsr_category_label(c), tsr_category_name(c));
		for (size_t d = 0; d < c; d++)
			assert_string_not_equal(tsr_category_label(c), tsr_category_label(d));
	}
	assert_null(tsr_category_label(tsr_category_count()));
	for (int ipu = -1; ipu < 2; ipu++) {
		tsr_category_memory *cats;
		size_t n;
		unsigned lo = ipu < 0 ? 0 : ipu * per, hi = ipu < 0 ? nt : (ipu + 1) * per;

		assert_int_equal(tsr_report_list_memory_by_category(&cats, &n, f->report, ipu), TSR_OK);
		assert_int_equal(n, TSI_MEM_CATEGORY_COUNT);
		for (size_t c = 0; c < n; c++) {
			uint64_t total = 0, ovl = 0;

			assert_int_equal(cats[c].category, (int)c);
			assert_string_equal(tsr_category_name(cats[c].category),
			                    tsi_mem_category_name((tsi_mem_category)c));
			for (int r = 0; r < TSR_REGION_COUNT; r++)
				for (int o = 0; o < 2; o++) {
					uint64_t s = 0;

					for (unsigned t = lo; t < hi; t++)
						s += tsi_graph_profile_category(gp, (tsi_mem_category)c,
						                                (tsi_mem_region)r, o, t);
					assert_int_equal(cats[c].bytes[r][o], s);
					total += s;
					if (o)
						ovl += s;
				}
			assert_int_equal(cats[c].total, total);
			assert_int_equal(cats[c].overlapped, ovl);
			assert_int_equal(cats[c].non_overlapped, total - ovl);
			if (ipu < 0)
				grand += total;
		}
		free(cats);
	}
	assert_true(grand > 0);
	for (size_t c = 0; c < tsr_category_count(); c++) {
		assert_int_equal(tsr_report_fill_category_by_tile(by_tile, nt, f->report, c), TSR_OK);
		for (unsigned t = 0; t < nt; t++) {
			uint64_t s = 0;

			for (int r = 0; r < TSR_REGION_COUNT; r++)
				for (int o = 0; o < 2; o++)
					s += tsi_graph_profile_category(gp, (tsi_mem_category)c,
					                                (tsi_mem_region)r, o, t);
			assert_int_equal(by_tile[t], s);
		}
	}
	assert_int_equal(tsr_report_fill_category_by_tile(by_tile, nt, f->report,
	                                                  25), TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_report_fill_category_by_tile(by_tile, nt - 1, f->report, 0),
	                 TSR_ERR_INVALID_ARGUMENT);
	free(by_tile);
}

/* Sum of a sparse per-tile array over [lo, hi). */
static uint64_t tv_range(const tsi_tile_values *tv, unsigned lo, unsigned hi)
{
	uint64_t s = 0;

	for (size_t i = 0; i < tv->n; i++)
		if (tv->tiles[i] >= lo && tv->tiles[i] < hi)
			s += tv->values[i];
	return s;
}

/* A tsr_vertex_memory against the profile's breakdown over [lo, hi). */
static void check_vertex_memory(const tsr_vertex_memory *m, const tsi_vertex_memory *g,
                                unsigned lo, unsigned hi)
{
	assert_int_equal(m->code, tv_range(&g->code_bytes, lo, hi));
	assert_int_equal(m->copy_ptr, tv_range(&g->copy_ptr_bytes, lo, hi));
	assert_int_equal(m->descriptor, tv_range(&g->descriptor_bytes, lo, hi));
	assert_int_equal(m->edge_ptr, tv_range(&g->edge_ptr_bytes, lo, hi));
	assert_int_equal(m->padding, tv_range(&g->padding_bytes, lo, hi));
	assert_int_equal(m->vertex_data, tv_range(&g->vertex_data_bytes, lo, hi));
	assert_int_equal(m->total, tv_range(&g->total_bytes, lo, hi));
}

/* Vertex memory by compute set, by vertex type and in total, per IPU. */
static void test_vertex_memory(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	unsigned nt = gp->target.num_tiles, per = gp->target.tiles_per_ipu;
	tsr_vertex_memory m, tot;
	uint64_t sum_total = 0;

	for (int ipu = -1; ipu < 2; ipu++) {
		unsigned lo = ipu < 0 ? 0 : ipu * per, hi = ipu < 0 ? nt : (ipu + 1) * per;
		uint64_t expect_total = 0;

		for (size_t i = 0; i < gp->n_compute_sets; i++) {
			assert_int_equal(tsr_report_fill_compute_set_memory(&m, f->report, i, ipu), TSR_OK);
			check_vertex_memory(&m, &gp->by_compute_set[i], lo, hi);
		}
		for (size_t i = 0; i < gp->n_vertex_types; i++) {
			assert_int_equal(tsr_report_fill_vertex_type_memory(&m, f->report, i, ipu), TSR_OK);
			check_vertex_memory(&m, &gp->by_vertex_type[i], lo, hi);
			expect_total += m.total;
		}
		assert_int_equal(tsr_report_fill_vertex_memory_totals(&tot, f->report, ipu), TSR_OK);
		assert_int_equal(tot.total, expect_total);
		if (ipu < 0)
			sum_total = tot.total;
	}
	assert_true(sum_total > 0);
	assert_int_equal(tsr_report_fill_compute_set_memory(&m, f->report, gp->n_compute_sets, -1),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_report_fill_vertex_type_memory(&m, f->report, gp->n_vertex_types, -1),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_report_fill_vertex_type_memory(&m, f->report, 0, 7), TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_report_fill_vertex_memory_totals(NULL, f->report, -1),
	                 TSR_ERR_INVALID_ARGUMENT);
}

/* The listed variables against the profile's, with bytes on each tile. */
static void test_variables(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	const tsr_report_info *info = tsr_report_get_info(f->report);
	unsigned nt = gp->target.num_tiles;
	uint64_t *by_tile = calloc(nt, sizeof(*by_tile));
	const tsr_variable *v;
	size_t n, listed = 0;
	bool saw_user = false;

	assert_non_null(by_tile);
	assert_int_equal(tsr_report_get_variables(&v, &n, f->report), TSR_OK);
	for (size_t i = 0; i < gp->n_variables; i++)
		if (info->lowered_vars || gp->variables[i].category == TSI_MEM_VARIABLE ||
		    gp->variables[i].category == TSI_MEM_CONSTANT)
			listed++;
	assert_int_equal(n, listed);
	assert_int_equal(n, tsr_report_get_counts(f->report)->listed_variables);
	for (size_t i = 0; i < n; i++) {
		const tsi_variable_profile *g;
		bool live;

		assert_true(v[i].id < gp->n_variables);
		if (i)
			assert_true(v[i].id > v[i - 1].id);
		g = &gp->variables[v[i].id];
		assert_string_equal(v[i].name, g->name ? g->name : "");
		assert_int_equal(v[i].mem_category, (int)g->category);
		assert_string_equal(tsr_category_name(v[i].mem_category), tsi_mem_category_name(g->category));
		assert_int_equal(v[i].bytes, g->bytes);
		assert_int_equal(v[i].tiles, g->bytes_by_tile.n);
		assert_int_equal(v[i].always_live, g->always_live);
		live = !g->always_live && g->live_from != UINT32_MAX && g->live_from <= g->live_to;
		assert_int_equal(v[i].live_from, live ? (int64_t)g->live_from : -1);
		assert_int_equal(v[i].live_to, live ? (int64_t)g->live_to : -1);
		assert_int_equal(v[i].debug_context, g->debug_context ? (int64_t)g->debug_context : -1);
		assert_int_equal(v[i].data_type, (int)g->type);
		assert_string_equal(v[i].data_type_name, tsr_data_type_name(v[i].data_type));
		assert_true(v[i].shape[0] == '[');
		if (!strcmp(v[i].name, "on_ipu1")) {
			assert_string_equal(v[i].shape, "[24,16]");
			assert_int_equal(v[i].data_type, TSR_DATA_FLOAT);
			assert_string_equal(v[i].data_type_name, "float");
			saw_user = true;
		}
		assert_int_equal(tsr_report_fill_variable_by_tile(by_tile, nt, f->report, i), TSR_OK);
		for (unsigned t = 0; t < nt; t++)
			assert_int_equal(by_tile[t], tsi_tile_values_get(&g->bytes_by_tile, t));
	}
	assert_true(saw_user);
	assert_int_equal(tsr_report_fill_variable_by_tile(by_tile, nt, f->report,
	                                                  n), TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_report_fill_variable_by_tile(by_tile, 0, f->report, 0),
	                 TSR_ERR_INVALID_ARGUMENT);
	free(by_tile);
}

/* Always-live bytes by tile: the runtime's always-live variables summed,
 * tile by tile, and the sum over tiles is the always-live total of the
 * listed variables. */
static void test_always_live_by_tile(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	const tsr_report_info *info = tsr_report_get_info(f->report);
	unsigned nt = gp->target.num_tiles;
	uint64_t *got = calloc(nt, sizeof(*got)), *want = calloc(nt, sizeof(*want));
	uint64_t sum = 0, any = 0;

	assert_non_null(got);
	assert_non_null(want);
	for (size_t i = 0; i < gp->n_variables; i++) {
		const tsi_variable_profile *g = &gp->variables[i];

		if (!g->always_live || !(info->lowered_vars || g->category == TSI_MEM_VARIABLE ||
		                         g->category == TSI_MEM_CONSTANT))
			continue;
		for (unsigned t = 0; t < nt; t++)
			want[t] += tsi_tile_values_get(&g->bytes_by_tile, t);
	}
	assert_int_equal(tsr_report_fill_always_live_by_tile(got, nt, f->report), TSR_OK);
	for (unsigned t = 0; t < nt; t++) {
		assert_int_equal(got[t], want[t]);
		sum += got[t];
		any |= got[t];
	}
	assert_true(any != 0); /* the model has always-live data to find */
	assert_true(sum <= tsr_report_get_always_live_bytes(f->report));
	assert_int_equal(tsr_report_fill_always_live_by_tile(got, nt - 1, f->report),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_fill_always_live_by_tile(NULL, nt, f->report),
	                 TSR_ERR_INVALID_ARGUMENT);
	free(got);
	free(want);
}

/* The OOM model: its tile 0 does not fit and is listed. */
static void test_oom(void **state)
{
	tsr_fixture *f = *state;
	const uint32_t *tiles;
	tsr_memory_totals t;
	size_t n;

	assert_int_equal(tsr_report_get_oom_tiles(&tiles, &n, f->report), TSR_OK);
	assert_int_equal(n, f->gp->n_oom_tiles);
	assert_true(n >= 1);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(tiles[i], f->gp->oom_tiles[i]);
	assert_int_equal(tiles[0], 0);
	assert_int_equal(tsr_report_fill_memory_totals(&t, f->report, -1), TSR_OK);
	assert_int_equal(t.oom_tiles, n);
	assert_int_equal(t.max_tile, 0);
	assert_true(t.max_tile_bytes > tsr_report_get_target(f->report)->bytes_per_tile);
	assert_int_equal(tsr_report_get_oom_tiles(NULL, &n, f->report), TSR_ERR_INVALID_ARGUMENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiles),
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_largest_and_histogram),
		cmocka_unit_test(test_categories),
		cmocka_unit_test(test_vertex_memory),
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_always_live_by_tile),
	};
	const struct CMUnitTest oom_tests[] = {
		cmocka_unit_test(test_oom),
	};
	int failed = cmocka_run_group_tests_name("matmul", tests, tsr_fixture_new_matmul, tsr_fixture_delete);

	return failed + cmocka_run_group_tests_name("oom", oom_tests, tsr_fixture_new_oom, tsr_fixture_delete);
}
