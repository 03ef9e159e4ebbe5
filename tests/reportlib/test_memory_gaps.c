/*
 * The one rule for "including gaps" (tsr_tile_memory_get_gaps /
 * tsr_tile_memory_get_bytes) and the overlap rule on a tile
 * (tsr_report_fill_sharing_by_tile), on a report written by a real model
 * and on the sample reports (overlapped storage, an interleaved region
 * far above the non-interleaved one): a tile's parts, split any way, add
 * up to the figures every screen shows.
 */
#include "report-fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rule per tile: data + gaps = total including gaps, whichever way the
 * data is split; the totals, largest tiles and histogram follow it. */
static void check_gaps_rule(tsr_report *r, bool want_region_gap)
{
	const tsr_tile_memory *m;
	tsr_memory_totals all;
	size_t n;
	uint64_t sum = 0;
	bool region_gap_short = false;
	uint32_t *largest;
	size_t n_largest;

	assert_int_equal(tsr_report_get_tile_memory(&m, &n, r), TSR_OK);
	for (size_t t = 0; t < n; t++) {
		uint64_t regions = 0, regions_with_gaps = 0;

		assert_int_equal(tsr_tile_memory_get_bytes(&m[t], false), m[t].total);
		assert_int_equal(tsr_tile_memory_get_bytes(&m[t], true), m[t].total_including_gaps);
		assert_int_equal(tsr_tile_memory_get_gaps(&m[t]),
		                 m[t].total_including_gaps - m[t].total);
		for (int k = 0; k < TSR_REGION_COUNT; k++) {
			regions += m[t].region[k];
			regions_with_gaps += m[t].region_including_gaps[k];
		}
		/* By region, the data and one "Gaps" part make the total with gaps. */
		assert_int_equal(regions + tsr_tile_memory_get_gaps(&m[t]),
		                 tsr_tile_memory_get_bytes(&m[t], true));
		/* The regions' own gaps are only the padding inside them. */
		assert_true(regions_with_gaps <= m[t].total_including_gaps);
		region_gap_short = region_gap_short || regions_with_gaps < m[t].total_including_gaps;
		sum += tsr_tile_memory_get_bytes(&m[t], true);
	}
	/* Where the interleaved region sits above the other, adding the
	 * regions' gaps misses the space between them (the old chart's 24 B
	 * against 239 KB on tut5's tile 0). */
	if (want_region_gap)
		assert_true(region_gap_short);
	assert_int_equal(tsr_report_fill_memory_totals(&all, r, -1), TSR_OK);
	assert_int_equal(all.total_including_gaps, sum);
	assert_int_equal(all.max_tile_bytes, tsr_tile_memory_get_bytes(&m[all.max_tile], true));
	/* The lowest of tiles that tie, as the largest-tiles list ranks. */
	assert_int_equal(tsr_report_list_largest_tiles(&largest, &n_largest, r, -1, true, 1), TSR_OK);
	assert_int_equal(largest[0], all.max_tile);
	free(largest);
	assert_int_equal(tsr_report_list_largest_tiles(&largest, &n_largest, r, -1, false, 1),
	                 TSR_OK);
	assert_int_equal(largest[0], all.max_tile_excluding_gaps);
	free(largest);
}

/* The overlap rule on every tile: the categories' bytes by tile (before
 * sharing, own and overlapped) add up to the sharing's parts, and parts -
 * shared = the tile's total; the tiles' sums are the summary's. */
static void check_sharing(tsr_report *r, bool want_shared)
{
	const tsr_tile_memory *m;
	size_t n, nc = tsr_category_count();
	tsr_memory_sharing *sh;
	uint64_t *all, *own, *ov, sum_own = 0, sum_ov = 0;
	tsr_category_memory *cats;
	size_t n_cats;
	uint64_t cat_own = 0, cat_ov = 0;
	bool any_shared = false;

	assert_int_equal(tsr_report_get_tile_memory(&m, &n, r), TSR_OK);
	sh = calloc(n, sizeof(*sh));
	all = calloc(n, sizeof(*all));
	own = calloc(n, sizeof(*own));
	ov = calloc(n, sizeof(*ov));
	assert_non_null(sh);
	assert_non_null(all);
	assert_non_null(own);
	assert_non_null(ov);
	assert_int_equal(tsr_report_fill_sharing_by_tile(sh, n, r), TSR_OK);
	for (size_t t = 0; t < n; t++) {
		uint64_t parts = 0, o = 0, v = 0;

		for (size_t c = 0; c < nc; c++) {
			assert_int_equal(tsr_report_fill_category_by_tile(all, n, r, c), TSR_OK);
			assert_int_equal(tsr_report_fill_category_by_tile_overlap(own, n, r, c, false),
			                 TSR_OK);
			assert_int_equal(tsr_report_fill_category_by_tile_overlap(ov, n, r, c, true),
			                 TSR_OK);
			assert_int_equal(all[t], own[t] + ov[t]);
			parts += all[t];
			o += own[t];
			v += ov[t];
		}
		assert_int_equal(sh[t].parts, parts);
		assert_int_equal(sh[t].not_overlapped, o);
		assert_int_equal(sh[t].overlapped, v);
		assert_int_equal(sh[t].after_overlapping, m[t].total - o);
		assert_int_equal(sh[t].parts - sh[t].shared, m[t].total);
		any_shared = any_shared || sh[t].shared > 0;
		sum_own += o;
		sum_ov += v;
		/* One tile is enough to check the 3 x categories fills against;
		 * the rest against the sharing alone. */
		if (t == 0)
			break;
	}
	for (size_t t = 0; t < n; t++) {
		assert_int_equal(sh[t].parts - sh[t].shared, m[t].total);
		assert_int_equal(sh[t].not_overlapped + sh[t].after_overlapping, m[t].total);
		any_shared = any_shared || sh[t].shared > 0;
		if (t > 0) {
			sum_own += sh[t].not_overlapped;
			sum_ov += sh[t].overlapped;
		}
	}
	if (want_shared)
		assert_true(any_shared);
	assert_int_equal(tsr_report_list_memory_by_category(&cats, &n_cats, r, -1), TSR_OK);
	for (size_t c = 0; c < n_cats; c++) {
		cat_own += cats[c].non_overlapped;
		cat_ov += cats[c].overlapped;
	}
	free(cats);
	assert_int_equal(sum_own, cat_own);
	assert_int_equal(sum_ov, cat_ov);
	/* Too small an array, NULL. */
	assert_int_equal(tsr_report_fill_sharing_by_tile(sh, n - 1, r), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_fill_sharing_by_tile(NULL, n, r), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_fill_category_by_tile_overlap(own, n, r, nc, true),
	                 TSR_ERR_OUT_OF_RANGE);
	free(sh);
	free(all);
	free(own);
	free(ov);
}

static void test_fixture(void **state)
{
	tsr_fixture *f = *state;

	check_gaps_rule(f->report, false);
	check_sharing(f->report, false);
}

/* Each sample report: every one has overlapped storage, and tut5's
 * interleaved region lies far above its non-interleaved one. */
static void test_samples(void **state)
{
	static const char *const names[] = {"tut4_profiling", "tut5_ml", "tut7_mk1"};

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[1024];
		tsr_report *r = NULL;

		snprintf(path, sizeof(path), "%s/%s/profile.pop", SAMPLE_REPORTS, names[i]);
		assert_int_equal(tsr_report_open(&r, path, NULL), TSR_OK);
		check_gaps_rule(r, true);
		check_sharing(r, true);
		tsr_report_free(r);
	}
}

/* What a malformed file could hold: no negative gaps, no wrapped sums. */
static void test_malformed(void **state)
{
	tsr_tile_memory m = {{0}, {0}, 100, 40};
	tsr_memory_sharing s;

	(void)state;
	assert_int_equal(tsr_tile_memory_get_gaps(&m), 0);
	assert_int_equal(tsr_tile_memory_get_bytes(&m, true), 100);
	assert_int_equal(tsr_tile_memory_get_bytes(&m, false), 100);
	assert_int_equal(tsr_tile_memory_get_gaps(NULL), 0);
	assert_int_equal(tsr_tile_memory_get_bytes(NULL, true), 0);
	m.total_including_gaps = 160;
	assert_int_equal(tsr_tile_memory_get_gaps(&m), 60);
	assert_int_equal(tsr_tile_memory_get_bytes(&m, true), 160);
	/* 100 B on the tile: 30 of its own, 200 overlapped sharing 70. */
	tsr_memory_fill_sharing(&s, 100, 30, 200);
	assert_int_equal(s.parts, 230);
	assert_int_equal(s.after_overlapping, 70);
	assert_int_equal(s.shared, 130);
	assert_int_equal(s.parts - s.shared, 100);
	/* More of its own than the tile holds, sums past 2^64. */
	tsr_memory_fill_sharing(&s, 10, 30, 5);
	assert_int_equal(s.after_overlapping, 0);
	assert_int_equal(s.shared, 5);
	tsr_memory_fill_sharing(&s, 10, UINT64_MAX, 5);
	assert_int_equal(s.parts, UINT64_MAX);
	tsr_memory_fill_sharing(NULL, 1, 1, 1);
}

int main(void)
{
	const struct CMUnitTest fixture_tests[] = {
		cmocka_unit_test(test_fixture),
	};
	const struct CMUnitTest plain_tests[] = {
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_malformed),
	};
	int failed = cmocka_run_group_tests_name("matmul", fixture_tests, tsr_fixture_new_matmul,
	                                         tsr_fixture_delete);

	return failed + cmocka_run_group_tests_name("samples", plain_tests, NULL, NULL);
}
