/*
 * Heatmaps of .pvti traces (trace.h: tsr_trace_get_heatmaps,
 * tsr_trace_list_heatmap_counts): a trace written through the public
 * pvti API, its list and its per-column counts checked against plain SQL
 * over the file, and hostile rows (bad edges, buckets out of range,
 * counts below 1) refused or skipped and counted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test-sqlite.h"
#include "test-util.h"
#include <tilescope/pvti.h>
#include <tilescope/trace.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 3000

/* A trace with heatmap "latency" (edges 1, 10, 100 ms: four buckets)
 * sampled SAMPLES times with values that move between buckets, and
 * heatmap "idle" (one edge, 0.1 + 0.2, which 15 digits do not spell)
 * never sampled; returns its path. */
static char *make_trace(const char *dir)
{
	static const double edges[] = {1, 10, 100}, idle_edge = 0.1 + 0.2;
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_heatmap *lat, *idle;
	char *path;

	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	lat = pvti_heatmap_new("latency", "ms", edges, 3);
	idle = pvti_heatmap_new("idle", "", &idle_edge, 1);
	assert_non_null(lat);
	assert_non_null(idle);
	for (int i = 0; i < SAMPLES; i++) {
		double v[5] = {0.5 * (i % 3), 5.0 + i % 7, 50.0 * (i % 4), 1000.0, (double)i};

		pvti_begin(pvti_channel_framework(), "step");
		assert_int_equal(pvti_heatmap_add(lat, v, (size_t)(1 + i % 5)), 0);
		pvti_end(pvti_channel_framework());
	}
	assert_int_equal(pvti_close(), 0);
	return path;
}

static int setup(void **state)
{
	*state = tsi_test_mkdtemp();
	return 0;
}

static int teardown(void **state)
{
	pvti_close();
	tsi_test_rmtree(*state);
	return 0;
}

/* The counts of bucket b of heatmap "latency" in [lo, hi), by SQL. */
static uint64_t sql_count(sqlite3 *db, int b, int64_t lo, int64_t hi)
{
	sqlite3_stmt *st = NULL;
	uint64_t v;

	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "SELECT coalesce(sum(s.count), 0) FROM heatmap_sample s "
	                                    "JOIN heatmap h ON h.id = s.heatmap WHERE h.name = "
	                                    "'latency' AND bucket = ? AND t_ns >= ? AND t_ns < ? "
	                                    "AND count >= 1 AND bucket BETWEEN 0 AND 3",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	sqlite3_bind_int(st, 1, b);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, hi);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Every column of `columns` over [from, to) agrees with SQL. */
static void check_columns(tsr_trace *tr, const char *path, int64_t from, int64_t to,
                          size_t columns)
{
	uint64_t *v = NULL;
	sqlite3 *db = NULL;
	uint64_t span = (uint64_t)(to - from);

	assert_int_equal(tsr_trace_list_heatmap_counts(&v, tr, 0, from, to, columns), TSR_OK);
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	for (size_t c = 0; c < columns; c++) {
		int64_t lo = from + (int64_t)(span * c / columns);
		int64_t hi = from + (int64_t)(span * (c + 1) / columns);

		for (int b = 0; b < 4; b++)
			assert_int_equal(v[c * 4 + b], sql_count(db, b, lo, hi));
	}
	sqlite3_close(db);
	free(v);
}

static void test_list_and_counts(void **state)
{
	char *path = make_trace(*state);
	tsr_trace *tr = tsi_test_open_trace(path);
	const tsr_trace_heatmap *h;
	uint64_t *v = NULL, total = 0;
	size_t n;
	int64_t first, last;

	assert_int_equal(tsr_trace_get_heatmaps(&h, &n, tr), TSR_OK);
	assert_int_equal(n, 2);
	assert_string_equal(h[0].name, "latency");
	assert_string_equal(h[0].unit, "ms");
	assert_int_equal(h[0].n_edges, 3);
	assert_true(h[0].edges[0] == 1 && h[0].edges[1] == 10 && h[0].edges[2] == 100);
	assert_int_equal(h[0].samples, tsi_test_sqlite_file_int(path, "SELECT count(DISTINCT t_ns) FROM heatmap_sample"));
	first = tsi_test_sqlite_file_int(path, "SELECT min(t_ns) FROM heatmap_sample");
	last = tsi_test_sqlite_file_int(path, "SELECT max(t_ns) FROM heatmap_sample");
	assert_int_equal(h[0].first_ns, first);
	assert_int_equal(h[0].last_ns, last);
	assert_string_equal(h[1].name, "idle");
	assert_true(h[1].n_edges == 1 && h[1].edges[0] == 0.1 + 0.2);
	assert_int_equal(h[1].samples, 0);
	assert_int_equal(h[1].first_ns, 0);

	/* The whole heatmap in one column: every value once. */
	assert_int_equal(tsr_trace_list_heatmap_counts(&v, tr, 0, first, last + 1, 1), TSR_OK);
	for (int b = 0; b < 4; b++)
		total += v[b];
	free(v);
	assert_int_equal(total, tsi_test_sqlite_file_int(path, "SELECT sum(count) FROM heatmap_sample"));
	/* Columns of one row, of a few rows, of many blocks, and a window
	 * starting and ending inside the samples. */
	check_columns(tr, path, first, last + 1, 1000);
	check_columns(tr, path, first, last + 1, 7);
	check_columns(tr, path, first - 1000, last + 1000, 3);
	check_columns(tr, path, first + (last - first) / 3, first + (last - first) / 2, 50);
	assert_int_equal(h[0].skipped, 0);
	/* Nothing outside. */
	assert_int_equal(tsr_trace_list_heatmap_counts(&v, tr, 1, first, last + 1, 10), TSR_OK);
	for (int i = 0; i < 10 * 2; i++)
		assert_int_equal(v[i], 0);
	free(v);

	/* Bad arguments: one line each, nothing returned. */
	v = (uint64_t *)1;
	assert_int_equal(tsr_trace_list_heatmap_counts(&v, tr, 2, first, last, 10),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_null(v);
	assert_int_equal(tsr_trace_list_heatmap_counts(&v, tr, 0, first, last, 0),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_trace_list_heatmap_counts(&v, tr, 0, last, first, 10),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_trace_list_heatmap_counts(&v, tr, 0, first, last, SIZE_MAX / 2),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_true(strlen(tsr_trace_error(tr)) > 0);
	assert_int_equal(tsr_trace_get_heatmaps(NULL, &n, tr), TSR_ERR_INVALID_ARGUMENT);
	tsr_trace_free(tr);
	free(path);
}

/* A copy of `good` at `path` with `sql` run on it. */
static void damaged_copy(const char *good, const char *path, const char *sql)
{
	char *text = NULL;
	sqlite3 *db = NULL;

	tsi_test_copy_file(good, path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &text) != SQLITE_OK)
		fail_msg("%s: %s", sql, text);
	sqlite3_close(db);
}

static void test_hostile(void **state)
{
	/* Each with the codec's reason (tests/format/test_heatmap_edges.c has them all). */
	static const char *const bad_edges[][2] = {
		{"[10, 1, 100]", "not strictly ascending"}, {"[1, 1]", "not strictly ascending"},
		{"[]", "no edges"}, {"{}", "not a JSON array"}, {"not json", "not JSON"},
		{"[1, 10, 100] x", "bytes after the array"}, {"[1, \"x\"]", "not a number"},
		{"[1e999]", "not a finite number"}, {"NaN", "not JSON"}, {"[1, null]", "not a number"},
	};
	char *good = make_trace(*state), bad[1024];
	const tsr_trace_heatmap *h;
	uint64_t *v = NULL, total = 0;
	tsr_trace *tr;
	size_t n;
	int64_t all;

	snprintf(bad, sizeof(bad), "%s/bad.pvti", (char *)*state);
	for (size_t i = 0; i < sizeof(bad_edges) / sizeof(bad_edges[0]); i++) {
		char sql[256];

		snprintf(sql, sizeof(sql), "UPDATE heatmap SET edges = '%s' WHERE name = 'latency'",
		         bad_edges[i][0]);
		damaged_copy(good, bad, sql);
		tr = tsi_test_open_trace(bad);
		assert_int_equal(tsr_trace_get_heatmaps(&h, &n, tr), TSR_ERR_CORRUPT);
		assert_null(h);
		assert_non_null(strstr(tsr_trace_error(tr), "heatmap 'latency' has bad edges: "));
		assert_non_null(strstr(tsr_trace_error(tr), bad_edges[i][1]));
		tsr_trace_free(tr);
	}
	/* Rows out of range, empty or not integers: skipped and counted. */
	all = tsi_test_sqlite_file_int(good, "SELECT sum(count) FROM heatmap_sample WHERE rowid NOT IN (10, 20, 30, "
	                    "40, 50)");
	damaged_copy(good, bad,
	             "UPDATE heatmap_sample SET bucket = 4 WHERE rowid = 10;"
	             "UPDATE heatmap_sample SET bucket = -1 WHERE rowid = 20;"
	             "UPDATE heatmap_sample SET count = 0 WHERE rowid = 30;"
	             "UPDATE heatmap_sample SET bucket = 'two' WHERE rowid = 40;"
	             "UPDATE heatmap_sample SET count = 1.5 WHERE rowid = 50");
	tr = tsi_test_open_trace(bad);
	assert_int_equal(tsr_trace_get_heatmaps(&h, &n, tr), TSR_OK);
	assert_int_equal(tsr_trace_list_heatmap_counts(&v, tr, 0, INT64_MIN, INT64_MAX, 1), TSR_OK);
	for (int b = 0; b < 4; b++)
		total += v[b];
	free(v);
	assert_int_equal(h[0].skipped, 5);
	assert_int_equal(total, all);
	tsr_trace_free(tr);

	/* A memory cap too small for the rows: an error, the handle usable. */
	{
		tsr_trace_open_options o = TSR_TRACE_OPEN_OPTIONS_INIT;
		const char *p = good;

		o.memory_cap = 1 << 20;
		damaged_copy(good, bad, "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM "
		                        "k WHERE i < 200000) INSERT INTO heatmap_sample SELECT h.id, i, 1, "
		                        "1 FROM k, heatmap h WHERE h.name = 'idle'");
		p = bad;
		assert_int_equal(tsr_trace_open(&tr, &p, 1, &o), TSR_OK);
		assert_int_equal(tsr_trace_get_heatmaps(&h, &n, tr), TSR_OK);
		assert_int_equal(h[1].samples, 200000);
		assert_int_equal(tsr_trace_list_heatmap_counts(&v, tr, 1, INT64_MIN, INT64_MAX, 1),
		                 TSR_ERR_TOO_LARGE);
		assert_int_equal(tsr_trace_list_heatmap_counts(&v, tr, 0, INT64_MIN, INT64_MAX, 1),
		                 TSR_OK);
		free(v);
		tsr_trace_free(tr);
	}
	free(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list_and_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
