/*
 * The views the formats ship, named in a caller's SQL (issue 26 item 6):
 * v_step, v_program, v_variable and v_compute_set over the sample
 * reports and tracepoint_stats over the sample trace answer row for row
 * what the same query written out longhand answers (and have rows), and
 * the definition that answers is the format's, not the file's:
 *
 *  - a file whose stored v_step differs from profile.sql's (a slow one, a
 *    wrong one) or whose tracepoint_stats differs is refused by the schema
 *    check before anything is read, naming the view;
 *  - a file that replaced a view with a table of the same name holding
 *    made-up rows (which the schema check lets through: tables are the
 *    file's data) still gets the format's view, over its real tables;
 *  - a file without the views at all gets them too;
 *  - `main.v_step`, the file's own copy, is still not run, with a message
 *    saying to name the view without the schema.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test-util.h"

#include <tilescope/report.h>
#include <tilescope/trace.h>

#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The working directory of the whole run (tsi_test_mkdtemp). */
static char *workdir;

/* The rows of a query as text: one line per row, each value with its
 * type, so that two answers compare with strcmp. */
typedef struct answer {
	char *text;
	size_t len, cap, rows, columns;
} answer;

static void put(answer *a, const char *s, size_t n)
{
	if (a->len + n + 1 > a->cap) {
		a->cap = (a->len + n + 1) * 2;
		a->text = realloc(a->text, a->cap);
		assert_non_null(a->text);
	}
	memcpy(a->text + a->len, s, n);
	a->len += n;
	a->text[a->len] = 0;
}

static int keep_columns(void *data, size_t n, const char *const *names)
{
	answer *a = data;

	(void)names;
	a->columns = n;
	return 0;
}

static int keep_row(void *data, size_t n, const char *const *names, const tsr_value *values)
{
	answer *a = data;
	char buf[64];

	(void)names;
	for (size_t i = 0; i < n; i++) {
		const tsr_value *v = &values[i];

		switch (v->type) {
		case TSR_VALUE_INTEGER:
			put(a, buf, (size_t)snprintf(buf, sizeof(buf), "i%lld|", (long long)v->integer));
			break;
		case TSR_VALUE_REAL:
			put(a, buf, (size_t)snprintf(buf, sizeof(buf), "r%.17g|", v->real));
			break;
		case TSR_VALUE_TEXT:
		case TSR_VALUE_BLOB:
			put(a, v->type == TSR_VALUE_TEXT ? "t" : "b", 1);
			put(a, v->data, v->size);
			put(a, "|", 1);
			break;
		default:
			put(a, "null|", 5);
			break;
		}
	}
	put(a, "\n", 1);
	a->rows++;
	return 0;
}

/* Runs `sql` on the report (trace NULL) or the trace's first file,
 * asserting that it answers. */
static answer run(tsr_report *r, tsr_trace *tr, const char *sql)
{
	answer a = {NULL, 0, 0, 0, 0};
	int rc = r ? tsr_report_query(r, sql, keep_columns, keep_row, &a)
	           : tsr_trace_query(tr, 0, sql, keep_columns, keep_row, &a);

	if (rc != TSR_OK)
		fail_msg("%s: %s", sql, r ? tsr_report_error(r) : tsr_trace_error(tr));
	put(&a, "", 0);
	return a;
}

/* The view query and its longhand answer the same rows, and some. */
static void assert_same(tsr_report *r, tsr_trace *tr, const char *view_sql,
                        const char *longhand_sql, size_t min_rows)
{
	answer v = run(r, tr, view_sql), l = run(r, tr, longhand_sql);

	printf("  %-60.60s %zu rows\n", view_sql, v.rows);
	if (v.rows < min_rows)
		fail_msg("%s: %zu rows, expected at least %zu", view_sql, v.rows, min_rows);
	assert_int_equal(v.columns, l.columns);
	assert_int_equal(v.rows, l.rows);
	assert_string_equal(v.text, l.text);
	free(v.text);
	free(l.text);
}

/* Each view of profile.sql, as a query and written out (the view's text
 * with the names it gives). */
static const struct {
	const char *view, *longhand;
	size_t min_rows;
} report_views[] = {
	{"SELECT * FROM v_step ORDER BY run, id",
	 "SELECT t.run, t.id, t.type, t.program, p.text AS program_name, "
	 "t.compute_set, c.text AS compute_set_name, t.exchange, x.text AS exchange_name, "
	 "t.sync_type, t.cycles_from, t.cycles_to, t.cycles, t.cycles_overlapped, "
	 "t.active_tiles, t.tile_balance, t.active_tile_balance, t.thread_balance, "
	 "t.total_data, t.data_balance "
	 "FROM step t JOIN program pr ON pr.id = t.program "
	 "LEFT JOIN string p ON p.id = pr.name "
	 "LEFT JOIN compute_set cs ON cs.id = t.compute_set "
	 "LEFT JOIN string c ON c.id = cs.name "
	 "LEFT JOIN exchange ex ON ex.id = t.exchange AND ex.kind = CASE t.type "
	 "WHEN 'DoExchange' THEN 'internal' WHEN 'GlobalExchange' THEN 'external' "
	 "WHEN 'StreamCopy' THEN 'host' END "
	 "LEFT JOIN string x ON x.id = ex.name ORDER BY t.run, t.id",
	 1},
	{"SELECT * FROM v_program ORDER BY id",
	 "SELECT p.id, p.type, s.text AS name, p.compute_set, p.exchange, p.function, "
	 "p.sync_type, p.repeat_count, p.debug_context, p.instr_total "
	 "FROM program p LEFT JOIN string s ON s.id = p.name ORDER BY p.id",
	 1},
	{"SELECT * FROM v_variable ORDER BY id",
	 "SELECT v.id, s.text AS name, v.category, v.type, v.bytes, v.shape, v.tiles, "
	 "v.always_live, v.live_from, v.live_to, v.debug_context "
	 "FROM variable v JOIN string s ON s.id = v.name ORDER BY v.id",
	 1},
	{"SELECT * FROM v_compute_set ORDER BY id",
	 "SELECT cs.id, s.text AS name, cs.tiles, cs.cycles, cs.cycles_sum, cs.active_cycles, "
	 "cs.active_cycles_sum, cs.flops, cs.debug_context "
	 "FROM compute_set cs JOIN string s ON s.id = cs.name ORDER BY cs.id",
	 1},
	/* Named in joins, aggregates and with a schema-less name as users write them. */
	{"SELECT compute_set_name, sum(cycles) FROM v_step WHERE compute_set IS NOT NULL "
	 "GROUP BY compute_set_name ORDER BY 2 DESC, 1",
	 "SELECT c.text, sum(t.cycles) FROM step t JOIN compute_set cs ON cs.id = t.compute_set "
	 "JOIN string c ON c.id = cs.name GROUP BY c.text ORDER BY 2 DESC, 1",
	 1},
};

static const char *const tracepoint_stats_longhand =
	"SELECT c.name AS channel, s.value AS name, l.count, l.total_ns, l.self_ns, "
	"l.min_ns, l.max_ns, l.total_ns / l.count AS mean_ns "
	"FROM label_stats AS l JOIN channel AS c ON c.id = l.channel "
	"JOIN string AS s ON s.id = l.name ORDER BY total_ns DESC, channel, name";

/* Copies `from` to workdir/`name` and runs `sql` on the copy with a
 * plain connection; returns the copy's path (static storage). */
static const char *edited_copy(const char *from, const char *name, const char *sql)
{
	static char path[PATH_MAX];
	char *data, *err = NULL;
	FILE *in, *out;
	long size;
	sqlite3 *db = NULL;

	snprintf(path, sizeof(path), "%s/%s", workdir, name);
	in = fopen(from, "rb");
	assert_non_null(in);
	assert_int_equal(fseek(in, 0, SEEK_END), 0);
	size = ftell(in);
	rewind(in);
	data = malloc((size_t)size);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)size, in), (size_t)size);
	fclose(in);
	out = fopen(path, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(data, 1, (size_t)size, out), (size_t)size);
	assert_int_equal(fclose(out), 0);
	free(data);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("editing %s: %s", name, err);
	sqlite3_close(db);
	return path;
}

/* --- The views over the sample files ------------------------------------------------------- */

static void check_report_views(const char *path)
{
	tsr_report *r = NULL;

	printf("%s\n", path);
	if (tsr_report_open(&r, path, NULL) != TSR_OK)
		fail_msg("%s: %s", path, tsr_last_error());
	for (size_t i = 0; i < sizeof(report_views) / sizeof(report_views[0]); i++)
		assert_same(r, NULL, report_views[i].view, report_views[i].longhand,
		            report_views[i].min_rows);
	tsr_report_free(r);
}

static void test_report_views(void **state)
{
	(void)state;
	check_report_views(SAMPLE_REPORTS "/tut5_ml/profile.pop");
	check_report_views(SAMPLE_REPORTS "/tut4_profiling/profile.pop");
}

static void test_trace_view(void **state)
{
	const char *path = SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti";
	tsr_trace *tr = NULL;

	(void)state;
	if (tsr_trace_open(&tr, &path, 1, NULL) != TSR_OK)
		fail_msg("%s: %s", path, tsr_last_error());
	assert_same(NULL, tr, "SELECT * FROM tracepoint_stats ORDER BY total_ns DESC, channel, name",
	            tracepoint_stats_longhand, 5);
	/* docs/profiling.md's "top tracepoints". */
	assert_same(NULL, tr,
	            "SELECT channel, name, count, total_ns / 1000 AS total_us, self_ns / 1000 AS "
	            "self_us FROM tracepoint_stats ORDER BY total_ns DESC LIMIT 6",
	            "SELECT c.name, s.value, l.count, l.total_ns / 1000, l.self_ns / 1000 "
	            "FROM label_stats l JOIN channel c ON c.id = l.channel JOIN string s ON "
	            "s.id = l.name ORDER BY l.total_ns DESC LIMIT 6",
	            6);
	tsr_trace_free(tr);
}

/* --- Whose definition answers ------------------------------------------------------------- */

/* A stored view that differs from the format's is refused at open,
 * whatever it would do: slow, or quietly wrong. */
static void test_changed_view_refused(void **state)
{
	static const struct {
		const char *from, *name, *sql, *named;
	} cases[] = {
		{SAMPLE_REPORTS "/tut5_ml/profile.pop", "slow-v_step.pop",
		 "DROP VIEW v_step; CREATE VIEW v_step AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
		 "SELECT i + 1 FROM n WHERE i < 1000000000) SELECT step.* FROM step, n",
		 "changes the view v_step"},
		{SAMPLE_REPORTS "/tut5_ml/profile.pop", "wrong-v_step.pop",
		 "DROP VIEW v_step; CREATE VIEW v_step AS SELECT run, id, type, program, "
		 "'forged' AS program_name, compute_set, NULL AS compute_set_name, exchange, "
		 "NULL AS exchange_name, sync_type, cycles_from, cycles_to, cycles * 2 AS cycles, "
		 "cycles_overlapped, active_tiles, tile_balance, active_tile_balance, thread_balance, "
		 "total_data, data_balance FROM step",
		 "changes the view v_step"},
		{SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti", "wrong-stats.pvti",
		 "DROP VIEW tracepoint_stats; CREATE VIEW tracepoint_stats AS SELECT 'x' AS channel, "
		 "'y' AS name, 1 AS count, 0 AS total_ns, 0 AS self_ns, 0 AS min_ns, 0 AS max_ns, "
		 "0 AS mean_ns",
		 "changes the view tracepoint_stats"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = edited_copy(cases[i].from, cases[i].name, cases[i].sql);
		const char *msg;
		int rc;

		if (strstr(path, ".pop")) {
			tsr_report *r = NULL;

			rc = tsr_report_open(&r, path, NULL);
			tsr_report_free(r);
		} else {
			tsr_trace *tr = NULL;

			rc = tsr_trace_open(&tr, &path, 1, NULL);
			tsr_trace_free(tr);
		}
		msg = tsr_last_error();
		printf("  %-18s %s\n", cases[i].name, msg);
		assert_int_equal(rc, TSR_ERR_CORRUPT);
		assert_non_null(strstr(msg, cases[i].named));
		assert_non_null(strstr(msg, "refusing"));
	}
}

/* A table in a view's place (its rows made up) and a file without the
 * views: the format's views answer, over the file's real tables. */
static void test_format_definition_answers(void **state)
{
	const char *pop = edited_copy(
		SAMPLE_REPORTS "/tut5_ml/profile.pop", "table-v_step.pop",
		"DROP VIEW v_step; CREATE TABLE v_step AS SELECT * FROM step LIMIT 0; "
		"INSERT INTO v_step (run, id, type, program, cycles) VALUES (0, 0, 'forged', 0, 1); "
		"DROP VIEW v_program; DROP VIEW v_variable");
	const char *pvti;
	tsr_report *r = NULL;
	tsr_trace *tr = NULL;
	answer a;

	(void)state;
	if (tsr_report_open(&r, pop, NULL) != TSR_OK)
		fail_msg("%s: %s", pop, tsr_last_error());
	for (size_t i = 0; i < 3; i++)
		assert_same(r, NULL, report_views[i].view, report_views[i].longhand, 2);
	a = run(r, NULL, "SELECT count(*) FROM v_step WHERE type = 'forged'");
	assert_string_equal(a.text, "i0|\n");
	free(a.text);
	/* The file's own copy stays unrun, with what to do instead. */
	assert_int_equal(tsr_report_query(r, "SELECT * FROM main.v_compute_set", NULL, NULL, NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	printf("  %s\n", tsr_report_error(r));
	assert_non_null(strstr(tsr_report_error(r), "v_compute_set"));
	assert_non_null(strstr(tsr_report_error(r), "without a schema"));
	tsr_report_free(r);

	pvti = edited_copy(SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti", "table-stats.pvti",
	                   "DROP VIEW tracepoint_stats; CREATE TABLE tracepoint_stats AS SELECT "
	                   "'x' AS channel, 'forged' AS name, 1 AS count, 0 AS total_ns, 0 AS "
	                   "self_ns, 0 AS min_ns, 0 AS max_ns, 0 AS mean_ns");
	if (tsr_trace_open(&tr, &pvti, 1, NULL) != TSR_OK)
		fail_msg("%s: %s", pvti, tsr_last_error());
	assert_same(NULL, tr, "SELECT * FROM tracepoint_stats ORDER BY total_ns DESC, channel, name",
	            tracepoint_stats_longhand, 5);
	tsr_trace_free(tr);
}

/* Queries after a refused one and many in a row: the views are made
 * once and the handle's own reads still work. */
static void test_views_stay(void **state)
{
	tsr_report *r = NULL;
	const tsr_compute_set *cs;
	size_t n;
	answer a;

	(void)state;
	assert_int_equal(tsr_report_open(&r, SAMPLE_REPORTS "/tut5_ml/profile.pop", NULL), TSR_OK);
	assert_int_equal(tsr_report_query(r, "DROP VIEW v_step", NULL, NULL, NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_query(r, "CREATE TEMP VIEW v_x AS SELECT 1", NULL, NULL, NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	for (int i = 0; i < 3; i++) {
		a = run(r, NULL, "SELECT count(*) FROM v_compute_set");
		assert_int_equal(a.rows, 1);
		assert_int_equal(tsr_report_get_compute_sets(&cs, &n, r), TSR_OK);
		{
			char want[32];

			snprintf(want, sizeof(want), "i%zu|\n", n);
			assert_string_equal(a.text, want);
		}
		free(a.text);
	}
	tsr_report_free(r);
}

static int setup(void **state)
{
	(void)state;
	workdir = tsi_test_mkdtemp();
	return workdir ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	tsi_test_rmtree(workdir);
	workdir = NULL;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_views),
		cmocka_unit_test(test_trace_view),
		cmocka_unit_test(test_changed_view_refused),
		cmocka_unit_test(test_format_definition_answers),
		cmocka_unit_test(test_views_stay),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
