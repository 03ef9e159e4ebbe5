/*
 * The span table of a trace's SQL (issue 27 item 6): over the sample
 * trace sample-reports/tut5_ml/tut5_ml.pvti, over a trace of many chunks
 * written here, and over a Chrome JSON file read as a trace,
 *
 *  - its rows are the decoder's spans one by one (tsr_trace_list_events
 *    at resolution 0, every thread of the file), on the file's own time
 *    axis, with thread, name, channel, depth, seq, id and parent;
 *  - parent and depth agree: a span's parent is the span of its thread
 *    one level out that encloses it, and only depth-0 spans have none;
 *  - count and sum(dur_ns) by channel and name are tsr_trace's label
 *    statistics (what `tilescope trace` prints);
 *  - a query over span keeps its bounds: a cross join stops at its time
 *    limit with the time-limit message, and at a cancel from the
 *    progress callback; the caller's authorizer still refuses what it
 *    refused; a report has no span table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test-util.h"

#include <tilescope/pvti.h>
#include <tilescope/report.h>
#include <tilescope/trace.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *workdir;

/* One row of `SELECT ... FROM span` (see span_sql). */
typedef struct span_row {
	int64_t id, thread, seq, start_ns, end_ns, dur_ns, depth, parent; /* parent -1: NULL */
	char name[128], channel[64], thread_name[64];
} span_row;

typedef struct span_rows {
	span_row *v;
	size_t n, cap;
} span_rows;

static const char span_sql[] =
	"SELECT id, thread, seq, start_ns, end_ns, dur_ns, depth, parent, name, channel, "
	"thread_name FROM span ORDER BY thread, seq";

static void copy_text(char *dst, size_t size, const tsr_value *v)
{
	assert_int_equal(v->type, TSR_VALUE_TEXT);
	snprintf(dst, size, "%.*s", (int)v->size, (const char *)v->data);
}

static int keep_span(void *data, size_t n, const char *const *names, const tsr_value *v)
{
	span_rows *r = data;
	span_row *s;

	(void)names;
	assert_int_equal(n, 11);
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->v = realloc(r->v, r->cap * sizeof(*r->v));
		assert_non_null(r->v);
	}
	s = &r->v[r->n++];
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(v[i].type, TSR_VALUE_INTEGER);
	s->id = v[0].integer;
	s->thread = v[1].integer;
	s->seq = v[2].integer;
	s->start_ns = v[3].integer;
	s->end_ns = v[4].integer;
	s->dur_ns = v[5].integer;
	s->depth = v[6].integer;
	if (v[7].type == TSR_VALUE_NULL) {
		s->parent = -1;
	} else {
		assert_int_equal(v[7].type, TSR_VALUE_INTEGER);
		s->parent = v[7].integer;
	}
	copy_text(s->name, sizeof(s->name), &v[8]);
	copy_text(s->channel, sizeof(s->channel), &v[9]);
	copy_text(s->thread_name, sizeof(s->thread_name), &v[10]);
	return 0;
}

/* The first integer of a one-row answer. */
static int keep_int(void *data, size_t n, const char *const *names, const tsr_value *v)
{
	(void)names;
	assert_true(n >= 1);
	assert_int_equal(v[0].type, TSR_VALUE_INTEGER);
	*(int64_t *)data = v[0].integer;
	return 0;
}

static int64_t query_int(tsr_trace *tr, const char *sql)
{
	int64_t x = -1;

	if (tsr_trace_query(tr, 0, sql, NULL, keep_int, &x) != TSR_OK)
		fail_msg("%s: %s", sql, tsr_trace_error(tr));
	return x;
}

static int by_seq(const void *a, const void *b)
{
	const tsr_trace_item *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The rows of span are the decoder's spans of file 0, one by one, in
 * (thread, seq) order. Returns how many. */
static size_t check_rows_are_decoder_spans(tsr_trace *tr)
{
	const tsr_trace_process *procs;
	const tsr_trace_thread *threads;
	const tsr_trace_channel *channels;
	span_rows rows = {NULL, 0, 0};
	size_t np, nt, nc, at = 0;

	assert_int_equal(tsr_trace_get_processes(&procs, &np, tr), TSR_OK);
	assert_int_equal(tsr_trace_get_threads(&threads, &nt, tr), TSR_OK);
	assert_int_equal(tsr_trace_get_channels(&channels, &nc, tr), TSR_OK);
	if (tsr_trace_query(tr, 0, span_sql, NULL, keep_span, &rows) != TSR_OK)
		fail_msg("%s", tsr_trace_error(tr));
	for (size_t t = procs[0].first_thread; t < procs[0].first_thread + procs[0].n_threads; t++) {
		tsr_trace_item *items = NULL;
		size_t n = 0;

		assert_int_equal(tsr_trace_list_events(&items, &n, tr, t, INT64_MIN, INT64_MAX, 0),
		                 TSR_OK);
		assert_int_equal(n, threads[t].events);
		qsort(items, n, sizeof(*items), by_seq);
		for (size_t i = 0; i < n; i++, at++) {
			const tsr_trace_item *e = &items[i];
			const span_row *s;

			assert_int_equal(e->kind, TSR_TRACE_ITEM_EVENT);
			if (at >= rows.n)
				fail_msg("span has %zu rows, the decoder more", rows.n);
			s = &rows.v[at];
			assert_int_equal(s->thread, threads[t].id);
			assert_string_equal(s->thread_name, threads[t].name);
			assert_int_equal(s->seq, e->seq);
			assert_int_equal(s->id, threads[t].id * 4294967296LL + e->seq);
			assert_int_equal(s->start_ns, e->start_ns - procs[0].offset_ns);
			assert_int_equal(s->end_ns, e->end_ns - procs[0].offset_ns);
			assert_int_equal(s->dur_ns, e->end_ns - e->start_ns);
			assert_int_equal(s->depth, e->depth);
			assert_int_equal(s->parent,
			                 e->parent < 0 ? -1 : threads[t].id * 4294967296LL + e->parent);
			assert_string_equal(s->name, tsr_trace_get_name(tr, e->name));
			assert_true(e->channel < nc);
			assert_string_equal(s->channel, channels[e->channel].name);
		}
		free(items);
	}
	assert_int_equal(at, rows.n);
	/* Parents by id (rows come by id, as by thread then seq): one level
	 * out on the same thread, enclosing the span. */
	for (size_t i = 0; i < rows.n; i++) {
		const span_row *s = &rows.v[i], *p;
		size_t lo = 0, hi = rows.n;

		assert_int_equal(s->parent < 0, s->depth == 0);
		if (i)
			assert_true(rows.v[i - 1].id < s->id);
		if (s->parent < 0)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (rows.v[mid].id < s->parent)
				lo = mid + 1;
			else
				hi = mid;
		}
		assert_true(lo < rows.n);
		p = &rows.v[lo];
		assert_int_equal(p->id, s->parent);
		assert_int_equal(p->thread, s->thread);
		assert_int_equal(p->depth + 1, s->depth);
		assert_true(p->start_ns <= s->start_ns && p->end_ns >= s->end_ns);
	}
	free(rows.v);
	return at;
}

/* The same in SQL, a self-join on parent = id (a lookup by id per span).
 * Returns the spans with a parent. */
static int64_t check_parents(tsr_trace *tr)
{
	int64_t bad = query_int(tr, "SELECT count(*) FROM span c LEFT JOIN span p ON p.id = c.parent "
	                            "WHERE (c.parent IS NULL) <> (c.depth = 0) "
	                            "OR (c.parent IS NOT NULL AND (p.id IS NULL "
	                            "OR p.thread <> c.thread OR p.depth + 1 <> c.depth "
	                            "OR p.start_ns > c.start_ns OR p.end_ns < c.end_ns))");

	assert_int_equal(bad, 0);
	return query_int(tr, "SELECT count(*) FROM span WHERE parent IS NOT NULL");
}

/* count and sum(dur_ns) by channel and name against the label statistics. */
typedef struct label_rows {
	tsr_trace *tr;
	const tsr_trace_label_stat *stats;
	size_t n_stats, seen;
} label_rows;

static int check_label(void *data, size_t n, const char *const *names, const tsr_value *v)
{
	label_rows *l = data;
	const tsr_trace_channel *channels;
	size_t nc;
	char channel[64], name[256];

	(void)names;
	assert_int_equal(n, 4);
	assert_int_equal(tsr_trace_get_channels(&channels, &nc, l->tr), TSR_OK);
	copy_text(channel, sizeof(channel), &v[0]);
	copy_text(name, sizeof(name), &v[1]);
	for (size_t i = 0; i < l->n_stats; i++) {
		const tsr_trace_label_stat *s = &l->stats[i];

		if (strcmp(channels[s->channel].name, channel) ||
		    strcmp(tsr_trace_get_name(l->tr, s->name), name))
			continue;
		assert_int_equal(v[2].integer, s->count);
		assert_int_equal(v[3].integer, s->total_ns);
		l->seen++;
		return 0;
	}
	fail_msg("span has label %s / %s, the statistics do not", channel, name);
	return 1;
}

static void check_label_sums(tsr_trace *tr)
{
	tsr_trace_label_stat *stats = NULL;
	label_rows l = {tr, NULL, 0, 0};

	assert_int_equal(tsr_trace_list_label_stats(&stats, &l.n_stats, tr, NULL), TSR_OK);
	l.stats = stats;
	if (tsr_trace_query(tr, 0,
	                    "SELECT channel, name, count(*), sum(dur_ns) FROM span "
	                    "GROUP BY channel, name",
	                    NULL, check_label, &l) != TSR_OK)
		fail_msg("%s", tsr_trace_error(tr));
	assert_true(l.n_stats > 0);
	assert_int_equal(l.seen, l.n_stats);
	free(stats);
}

static tsr_trace *open_trace(const char *path)
{
	tsr_trace *tr = NULL;

	if (tsr_trace_open(&tr, &path, 1, NULL) != TSR_OK)
		fail_msg("%s: %s", path, tsr_last_error());
	return tr;
}

static void test_sample_trace(void **state)
{
	tsr_trace *tr = open_trace(SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti");
	size_t n;

	(void)state;
	n = check_rows_are_decoder_spans(tr);
	assert_int_equal(n, tsr_trace_get_info(tr)->events);
	assert_true(n >= 10);
	assert_true(check_parents(tr) > 0);
	check_label_sums(tr);
	/* A thread's spans only, and a lookup by id, give the same rows as
	 * the whole scan filtered. */
	assert_int_equal(query_int(tr, "SELECT count(*) FROM span WHERE thread = 1"),
	                 query_int(tr, "SELECT count(*) FROM (SELECT * FROM span) WHERE thread + 0 = 1"));
	assert_int_equal(query_int(tr, "SELECT count(*) FROM span WHERE id = 4294967297"), 1);
	/* Narrowed or looked up, the answer is SQLite's comparison's: an
	 * integral real or numeric text matches, NULL and 1.5 do not. */
	assert_int_equal(query_int(tr, "SELECT count(*) FROM span WHERE thread = 1.0"),
	                 query_int(tr, "SELECT count(*) FROM span WHERE thread = 1"));
	assert_int_equal(query_int(tr, "SELECT count(*) FROM span WHERE thread = '1'"),
	                 query_int(tr, "SELECT count(*) FROM span WHERE thread = 1"));
	assert_int_equal(query_int(tr, "SELECT count(*) FROM span WHERE thread = 1.5"), 0);
	assert_int_equal(query_int(tr, "SELECT count(*) FROM span WHERE id = NULL"), 0);
	assert_int_equal(query_int(tr, "SELECT count(*) FROM span WHERE id = '4294967297'"), 1);
	assert_int_equal(query_int(tr, "SELECT count(*) FROM span WHERE id = 4294967297.0"), 1);
	assert_int_equal(query_int(tr, "SELECT count(*) FROM span WHERE id = -1"), 0);
	tsr_trace_free(tr);
}

/* A trace of several chunks per thread, written here. */
static void test_many_chunks(void **state)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *ch;
	tsr_trace *tr;
	char *file;
	size_t n;

	(void)state;
	opts.directory = workdir;
	pvti_close();
	if (pvti_open(&opts) != 0)
		fail_msg("pvti_open failed");
	file = pvti_dup_file_name();
	assert_non_null(file);
	ch = pvti_channel_new("SpanTable");
	for (int i = 0; i < 60000; i++) {
		pvti_begin(ch, "outer");
		pvti_begin(ch, i % 3 ? "inner" : "other");
		pvti_end(ch);
		pvti_end(ch);
	}
	assert_int_equal(pvti_close(), 0);
	tr = open_trace(file);
	n = check_rows_are_decoder_spans(tr);
	assert_int_equal(n, 120000);
	assert_true(query_int(tr, "SELECT count(*) FROM event_chunk") >= 2);
	assert_int_equal(check_parents(tr), 60000);
	check_label_sums(tr);
	tsr_trace_free(tr);
	free(file);
}

/* The sample trace written as Chrome JSON and read back as a trace. */
static void test_chrome_json(void **state)
{
	tsr_trace *tr = open_trace(SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti"), *js;
	char path[4096];
	FILE *out;

	(void)state;
	snprintf(path, sizeof(path), "%s/tut5.json", workdir);
	out = fopen(path, "w");
	assert_non_null(out);
	assert_int_equal(tsr_trace_export_chrome(out, tr, NULL), TSR_OK);
	assert_int_equal(fclose(out), 0);
	js = open_trace(path);
	assert_int_equal(check_rows_are_decoder_spans(js), tsr_trace_get_info(tr)->events);
	assert_true(check_parents(js) > 0);
	check_label_sums(js);
	assert_int_equal(query_int(js, "SELECT sum(dur_ns) FROM span"),
	                 query_int(tr, "SELECT sum(dur_ns) FROM span"));
	tsr_trace_free(js);
	tsr_trace_free(tr);
}

/* The statement a bound must stop: 42^6 rows at least. */
static const char cross_join[] =
	"SELECT count(*) FROM span a, span b, span c, span d, span e, span f";

static void test_time_limit(void **state)
{
	tsr_trace *tr = open_trace(SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti");
	tsr_query_limits limits = TSR_QUERY_LIMITS_INIT;

	(void)state;
	limits.time_ms = 50;
	assert_int_equal(tsr_trace_set_query_limits(tr, &limits), TSR_OK);
	assert_int_equal(tsr_trace_query(tr, 0, cross_join, NULL, NULL, NULL), TSR_ERR_TOO_LARGE);
	if (!strstr(tsr_trace_error(tr), "longer than its time limit (0.05 s)"))
		fail_msg("%s", tsr_trace_error(tr));
	/* The handle answers the next statement. */
	assert_int_equal(query_int(tr, "SELECT count(*) FROM span"), tsr_trace_get_info(tr)->events);
	tsr_trace_free(tr);
}

/* Cancels at the first report after the query's start. */
static int cancel_cb(double fraction, const char *message, void *data)
{
	int *calls = data;

	(void)fraction;
	(void)message;
	return ++*calls >= 2;
}

static void test_cancel(void **state)
{
	tsr_trace *tr = open_trace(SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti");
	int calls = 0;

	(void)state;
	assert_int_equal(tsr_trace_set_progress(tr, cancel_cb, &calls), TSR_OK);
	assert_int_equal(tsr_trace_query(tr, 0, cross_join, NULL, NULL, NULL), TSR_ERR_CANCELLED);
	if (!strstr(tsr_trace_error(tr), "cancelled while running the query"))
		fail_msg("%s", tsr_trace_error(tr));
	assert_int_equal(tsr_trace_set_progress(tr, NULL, NULL), TSR_OK);
	assert_int_equal(query_int(tr, "SELECT count(*) FROM span"), tsr_trace_get_info(tr)->events);
	tsr_trace_free(tr);
}

/* Reading span changes nothing else the caller may or may not do. */
static void test_authorizer(void **state)
{
	tsr_trace *tr = open_trace(SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti");
	tsr_report *r = NULL;

	(void)state;
	assert_int_equal(tsr_trace_query(tr, 0, "SELECT load_extension('x') FROM span", NULL, NULL,
	                                 NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsr_trace_error(tr), "refused the function load_extension()"));
	assert_int_equal(tsr_trace_query(tr, 0, "SELECT * FROM span, pragma_module_list", NULL, NULL,
	                                 NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_trace_query(tr, 0, "CREATE TEMP TABLE t AS SELECT * FROM span", NULL,
	                                 NULL, NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsr_trace_error(tr), "only reads are allowed"));
	assert_int_equal(query_int(tr, "SELECT count(*) FROM main.span"),
	                 tsr_trace_get_info(tr)->events);
	/* A report's connection has none. */
	assert_int_equal(tsr_report_open(&r, SAMPLE_REPORTS "/tut5_ml/profile.pop", NULL), TSR_OK);
	assert_int_equal(tsr_report_query(r, "SELECT * FROM span", NULL, NULL, NULL),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsr_report_error(r), "no such table: span"));
	tsr_report_free(r);
	tsr_trace_free(tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_trace), cmocka_unit_test(test_many_chunks),
		cmocka_unit_test(test_chrome_json),  cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_cancel),       cmocka_unit_test(test_authorizer),
	};
	int failed;

	workdir = tsi_test_mkdtemp();
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	tsi_test_rmtree(workdir);
	return failed;
}
