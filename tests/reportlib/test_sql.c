/*
 * Read-only SQL over a report and a trace (tsr_report_query,
 * tsr_trace_query): answers and their types, the per-tile functions
 * against reportlib's own decoding, refusals of everything but one read
 * (and the handle still working after them), and a callback stopping a
 * query. Reports come from the fixture's model, traces from the pvti API,
 * each in the test's own temporary directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report-fixture.h"

#include <tilescope/pvti.h>
#include <tilescope/trace.h>

#include <stdlib.h>
#include <string.h>

/* Rows of a query kept as integers (NULL and text as -1). */
typedef struct rows {
	size_t n_columns, n;
	char names[8][64];
	int64_t v[4096][4];
	tsr_value_type types[8];   /* of the first row */
	int stop_after;            /* > 0: return 7 after that many rows */
} rows;

static int keep_columns(void *data, size_t n, const char *const *names)
{
	rows *r = data;

	r->n_columns = n;
	for (size_t i = 0; i < n && i < 8; i++)
		snprintf(r->names[i], sizeof(r->names[i]), "%s", names[i]);
	return 0;
}

static int keep_row(void *data, size_t n, const char *const *names, const tsr_value *values)
{
	rows *r = data;

	(void)names;
	assert_int_equal(n, r->n_columns);
	if (r->n == 0)
		for (size_t i = 0; i < n && i < 8; i++)
			r->types[i] = values[i].type;
	assert_true(r->n < 4096);
	for (size_t i = 0; i < n && i < 4; i++)
		r->v[r->n][i] = values[i].type == TSR_VALUE_INTEGER ? values[i].integer : -1;
	r->n++;
	return r->stop_after > 0 && r->n == (size_t)r->stop_after ? 7 : 0;
}

/* Runs `sql` on the fixture's report into a fresh `rows`, asserting success. */
static rows *query(tsr_report *report, const char *sql)
{
	rows *r = calloc(1, sizeof(*r));
	int rc;

	assert_non_null(r);
	rc = tsr_report_query(report, sql, keep_columns, keep_row, r);
	if (rc != TSR_OK)
		print_error("%s: %s\n", sql, tsr_report_error(report));
	assert_int_equal(rc, TSR_OK);
	return r;
}

/* Counts and every value type, exact 64-bit integers, column names. */
static void test_report_answers(void **state)
{
	tsr_fixture *f = *state;
	const tsr_graph_counts *counts = tsr_report_get_counts(f->report);
	const tsr_compute_set *cs;
	size_t n_cs;
	rows *r;

	assert_int_equal(tsr_report_get_compute_sets(&cs, &n_cs, f->report), TSR_OK);
	r = query(f->report, "SELECT COUNT(*) AS n FROM compute_set");
	assert_int_equal(r->n_columns, 1);
	assert_string_equal(r->names[0], "n");
	assert_int_equal(r->n, 1);
	assert_int_equal(r->v[0][0], (int64_t)n_cs);
	free(r);
	r = query(f->report, "SELECT COUNT(*) FROM run");
	assert_int_equal(r->v[0][0], (int64_t)counts->runs);
	free(r);

	r = query(f->report, "SELECT 9223372036854775807, 2.5, 'x', NULL, x'0102', -9223372036854775808");
	assert_int_equal(r->n_columns, 6);
	assert_int_equal(r->types[0], TSR_VALUE_INTEGER);
	assert_true(r->v[0][0] == INT64_MAX);
	assert_int_equal(r->types[1], TSR_VALUE_REAL);
	assert_int_equal(r->types[2], TSR_VALUE_TEXT);
	assert_int_equal(r->types[3], TSR_VALUE_NULL);
	assert_int_equal(r->types[4], TSR_VALUE_BLOB);
	assert_int_equal(r->types[5], TSR_VALUE_INTEGER);
	free(r);

	/* No rows: the columns are still given. */
	r = query(f->report, "SELECT id, name FROM compute_set WHERE 0");
	assert_int_equal(r->n_columns, 2);
	assert_string_equal(r->names[1], "name");
	assert_int_equal(r->n, 0);
	free(r);
}

/* tile_value / tile_sum / tile_max / tile_runs give what
 * tsr_report_fill_compute_set_cycles_by_tile decodes, for every compute set. */
static void test_tile_functions(void **state)
{
	tsr_fixture *f = *state;
	const tsr_target *t = tsr_report_get_target(f->report);
	const tsr_compute_set *cs;
	uint64_t by_tile[64];
	size_t n_cs;
	char sql[256];
	rows *r;

	assert_true(t->num_tiles <= 64);
	assert_int_equal(tsr_report_get_compute_sets(&cs, &n_cs, f->report), TSR_OK);
	assert_true(n_cs > 0);
	for (size_t i = 0; i < n_cs; i++) {
		uint64_t sum = 0, max = 0;

		assert_int_equal(tsr_report_fill_compute_set_cycles_by_tile(by_tile, 64, f->report, i, false),
		                 TSR_OK);
		for (size_t k = 0; k < t->num_tiles; k++) {
			sum += by_tile[k];
			max = by_tile[k] > max ? by_tile[k] : max;
		}
		snprintf(sql, sizeof(sql),
		         "SELECT tile_sum(cycles_by_tile), tile_max(cycles_by_tile), cycles_sum, cycles "
		         "FROM compute_set WHERE id = %zu", i);
		r = query(f->report, sql);
		assert_int_equal(r->n, 1);
		assert_int_equal(r->v[0][0], (int64_t)sum);
		assert_int_equal(r->v[0][1], (int64_t)max);
		assert_int_equal(r->v[0][0], r->v[0][2]);
		assert_int_equal(r->v[0][1], r->v[0][3]);
		free(r);
		snprintf(sql, sizeof(sql),
		         "SELECT r.tile, r.value, tile_value(c.cycles_by_tile, r.tile) FROM compute_set c, "
		         "tile_runs(c.cycles_by_tile) r WHERE c.id = %zu ORDER BY r.tile", i);
		r = query(f->report, sql);
		assert_int_equal(r->n, t->num_tiles);
		for (size_t k = 0; k < t->num_tiles; k++) {
			assert_int_equal(r->v[k][0], (int64_t)k);
			assert_int_equal(r->v[k][1], (int64_t)by_tile[k]);
			assert_int_equal(r->v[k][2], (int64_t)by_tile[k]);
		}
		free(r);
	}
}

/* Everything but one read is refused with a message naming it, and the
 * handle's own queries work afterwards. */
static void test_refusals(void **state)
{
	static const struct {
		const char *sql, *named;
	} cases[] = {
		{"UPDATE compute_set SET flops = 0", "UPDATE"},
		{"INSERT INTO string VALUES (100000, 'x')", "INSERT"},
		{"DELETE FROM string", "DELETE"},
		{"ATTACH 'other.db' AS other", "ATTACH"},
		{"DETACH main", "DETACH"},
		{"PRAGMA writable_schema = 1", "writable_schema"},
		{"PRAGMA query_only = 0", "query_only"},
		{"DROP TABLE string", "DROP TABLE"},
		{"CREATE TABLE t (x)", "CREATE TABLE"},
		{"SELECT 1; SELECT 2", "second"},
		{"SELECT 1; DROP TABLE string", "second"},
		{"VACUUM", "VACUUM"},
		{"BEGIN", "BEGIN"},
		{"SELECT load_extension('x')", "load_extension"},
		{"SELECT * FROM nope", "nope"},
		{"", "no SQL"},
	};
	tsr_fixture *f = *state;
	uint64_t by_tile[64];
	const tsr_step *steps;
	size_t n;
	rows *r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = tsr_report_query(f->report, cases[i].sql, NULL, NULL, NULL);

		if (rc != TSR_ERR_INVALID_ARGUMENT || !strstr(tsr_report_error(f->report), cases[i].named))
			print_error("%s: %d %s\n", cases[i].sql, rc, tsr_report_error(f->report));
		assert_int_equal(rc, TSR_ERR_INVALID_ARGUMENT);
		assert_non_null(strstr(tsr_report_error(f->report), cases[i].named));
		assert_null(strchr(tsr_report_error(f->report), '\n'));
	}
	/* Trailing blanks, semicolons and comments are one statement. */
	r = query(f->report, "SELECT 1;  -- done\n");
	assert_int_equal(r->n, 1);
	free(r);
	r = query(f->report, "PRAGMA table_info(compute_set)");
	assert_true(r->n > 5);
	free(r);
	assert_int_equal(tsr_report_fill_compute_set_cycles_by_tile(by_tile, 64, f->report, 0,
	                                                            true), TSR_OK);
	assert_int_equal(tsr_report_get_steps(&steps, &n, f->report, 0), TSR_OK);
	assert_true(n > 0);
	/* A bad argument to a per-tile function is the caller's error. */
	assert_int_equal(tsr_report_query(f->report, "SELECT tile_sum('text')", NULL, NULL, NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_query(f->report, "SELECT * FROM tile_runs", NULL, NULL, NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_query(NULL, "SELECT 1", NULL, NULL, NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
}

/* A callback's non-zero value stops the query and is returned. */
/* A query that never returns a row and never ends (a runaway recursive
 * query) is stopped by the statement budget, and the handle still
 * answers. SQLite counts a statement's steps only when it returns, so
 * this is what tells a budget kept by the handler's own calls from one
 * that never fires. */
static void test_runaway_query_stopped(void **state)
{
	tsr_fixture *f = *state;
	const tsr_step *steps;
	size_t n;
	int rc = tsr_report_query(f->report,
	                          "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
	                          "SELECT count(*) FROM c",
	                          NULL, NULL, NULL);

	assert_int_equal(rc, TSR_ERR_TOO_LARGE);
	assert_non_null(strstr(tsr_report_error(f->report), "steps"));
	assert_int_equal(tsr_report_get_steps(&steps, &n, f->report, 0), TSR_OK);
	assert_true(n > 0);
}

static void test_callback_stops(void **state)
{
	tsr_fixture *f = *state;
	rows *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->stop_after = 2;
	assert_int_equal(tsr_report_query(f->report, "SELECT id FROM string", keep_columns, keep_row, r),
	                 7);
	assert_int_equal(r->n, 2);
	free(r);
}

/* A trace of one file: its tables answer, the file index is checked, and
 * writes are refused there too. */
static void test_trace_query(void **state)
{
	tsr_fixture *f = *state;
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *ch;
	tsr_trace *tr = NULL;
	const char *path;
	char *file;
	rows *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	opts.directory = f->dir;
	pvti_close(); /* whatever the model's run left open */
	if (pvti_open(&opts) != 0)
		fail_msg("pvti_open: %s", tsi_error_last());
	file = pvti_dup_file_name();
	assert_non_null(file);
	ch = pvti_channel_new("SqlChan");
	for (int i = 0; i < 10; i++) {
		pvti_begin(ch, "outer");
		pvti_begin(ch, "inner");
		pvti_end(ch);
		pvti_end(ch);
	}
	assert_int_equal(pvti_close(), 0);
	path = file;
	assert_int_equal(tsr_trace_open(&tr, &path, 1, NULL), TSR_OK);
	if (tsr_trace_query(tr, 0,
	                    "SELECT l.count FROM label_stats l JOIN string s "
	                    "ON s.id = l.name WHERE s.value = 'inner'",
	                    keep_columns, keep_row, r) != TSR_OK)
		fail_msg("%s", tsr_trace_error(tr));
	assert_int_equal(r->n, 1);
	assert_int_equal(r->v[0][0], 10);
	assert_int_equal(tsr_trace_query(tr, 1, "SELECT 1", NULL, NULL, NULL), TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_trace_query(tr, 0, "DELETE FROM string", NULL, NULL, NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsr_trace_error(tr), "DELETE"));
	assert_int_equal(tsr_trace_query(tr, 0, "PRAGMA writable_schema = ON", NULL, NULL, NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	tsr_trace_free(tr);
	free(file);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_answers),
		cmocka_unit_test(test_tile_functions),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_runaway_query_stopped),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_trace_query),
	};

	return cmocka_run_group_tests(tests, tsr_fixture_new_matmul, tsr_fixture_delete);
}
