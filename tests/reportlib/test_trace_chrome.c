/*
 * Chrome trace-event JSON opened as a trace (reportlib/src/trace-chrome.c).
 *
 * What is checked:
 *   - round trip: the sample reports' .pvti files and a trace made here
 *     with the pvti API (nesting, two threads, instants, a counter, span
 *     metadata) exported with tsr_trace_export_chrome (what `tilescope
 *     export --chrome-trace` writes) and opened again give the same
 *     statistics by label (count, total, self, min, max, median, over the
 *     whole trace and over a window), spans per thread, instants and
 *     counter samples;
 *   - hand-written files for each phase: X nesting (depth, parent), B/E
 *     matched as a stack, an unmatched E and an unterminated B counted,
 *     i/I/n instants, C counters, M names, args as span metadata, ts/dur
 *     as exact nanoseconds, string pids and tids, unknown phases counted,
 *     the object and the array form (its closing ']' optional), the format
 *     found by content whatever the file's name;
 *   - hostile files (truncated, deep nesting, invalid UTF-8, huge and
 *     very long numbers, a string longer than a block, a memory cap) give
 *     TSR_ERR_CORRUPT or TSR_ERR_TOO_LARGE with a message naming the file
 *     and the byte, or open with what can be read.
 */
#include "test-util.h"

#include <tilescope/pvti.h>
#include <tilescope/trace.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* --- Helpers ---------------------------------------------------------------- */

static char *write_file(const char *dir, const char *name, const char *text)
{
	char *path = NULL;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Opening must fail with `code`, naming the file and the byte. */
static void open_fails(const char *path, int code)
{
	tsr_trace *tr = NULL;
	int rc = tsr_trace_open(&tr, &path, 1, NULL);

	assert_null(tr);
	if (rc != code)
		fail_msg("%s: %d, not %d: %s", path, rc, code, tsr_last_error());
	assert_non_null(strstr(tsr_last_error(), path));
	if (code == TSR_ERR_CORRUPT && !strstr(tsr_last_error(), "byte"))
		fail_msg("no byte offset in: %s", tsr_last_error());
}

static const char *channel_name(tsr_trace *tr, uint32_t ch)
{
	const tsr_trace_channel *c;
	size_t n;

	assert_int_equal(tsr_trace_get_channels(&c, &n, tr), TSR_OK);
	assert_true(ch < n);
	return c[ch].name;
}

/* The statistics of both traces agree label by label (found by channel
 * and name text, as ids differ between handles). */
static void assert_same_stats(tsr_trace *a, tsr_trace *b, const tsr_trace_stats_options *o)
{
	tsr_trace_label_stat *sa = NULL, *sb = NULL;
	size_t na = 0, nb = 0, i, j;

	assert_int_equal(tsr_trace_list_label_stats(&sa, &na, a, o), TSR_OK);
	assert_int_equal(tsr_trace_list_label_stats(&sb, &nb, b, o), TSR_OK);
	assert_int_equal(na, nb);
	for (i = 0; i < na; i++) {
		const char *name = tsr_trace_get_name(a, sa[i].name);
		const char *chan = channel_name(a, sa[i].channel);

		for (j = 0; j < nb; j++)
			if (strcmp(tsr_trace_get_name(b, sb[j].name), name) == 0 &&
			    strcmp(channel_name(b, sb[j].channel), chan) == 0)
				break;
		if (j == nb)
			fail_msg("label %s/%s missing after the round trip", chan, name);
		assert_int_equal(sa[i].count, sb[j].count);
		assert_int_equal(sa[i].total_ns, sb[j].total_ns);
		assert_int_equal(sa[i].self_ns, sb[j].self_ns);
		assert_int_equal(sa[i].min_ns, sb[j].min_ns);
		assert_int_equal(sa[i].max_ns, sb[j].max_ns);
		assert_int_equal(sa[i].median_ns, sb[j].median_ns);
	}
	free(sa);
	free(sb);
}

static size_t count_instants(tsr_trace *tr)
{
	tsr_trace_instant *in = NULL;
	size_t n = 0;

	assert_int_equal(tsr_trace_list_instants(&in, &n, tr, -1, INT64_MIN, INT64_MAX, 0), TSR_OK);
	free(in);
	return n;
}

/* Exports `tr` to dir/name and opens that. */
static tsr_trace *round_trip(tsr_trace *tr, const char *dir, const char *name, char **path)
{
	FILE *f;

	assert_true(asprintf(path, "%s/%s", dir, name) > 0);
	f = fopen(*path, "w");
	assert_non_null(f);
	assert_int_equal(tsr_trace_export_chrome(f, tr, NULL), TSR_OK);
	fclose(f);
	return tsi_test_open_trace(*path);
}

/* Everything a trace and its round trip must share. */
static void assert_same_trace(tsr_trace *a, tsr_trace *b)
{
	const tsr_trace_info *ia = tsr_trace_get_info(a), *ib = tsr_trace_get_info(b);
	const tsr_trace_series *sa, *sb;
	size_t na, nb, s;
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	int64_t mid_a = ia->start_ns + (ia->end_ns - ia->start_ns) / 2;

	assert_int_equal(ia->events, ib->events);
	assert_int_equal(ia->threads, ib->threads);
	assert_true(ib->complete);
	/* The export's origin keeps the trace on its own axis. */
	assert_int_equal(ia->start_ns, ib->start_ns);
	assert_int_equal(ia->end_ns, ib->end_ns);
	assert_int_equal(ia->origin_wall_ns, ib->origin_wall_ns);
	/* Whole trace: the files' label_stats (no medians), then the chunks. */
	o.median = false;
	assert_same_stats(a, b, &o);
	o.median = true;
	assert_same_stats(a, b, &o);
	/* A window (the chunks of both), on each trace's own axis. */
	o.from_ns = ia->start_ns;
	o.to_ns = mid_a;
	{
		tsr_trace_label_stat *x = NULL, *y = NULL;
		size_t nx = 0, ny = 0;
		tsr_trace_stats_options p = o;
		uint64_t cx = 0, cy = 0;

		p.from_ns = ib->start_ns;
		p.to_ns = ib->start_ns + (mid_a - ia->start_ns);
		assert_int_equal(tsr_trace_list_label_stats(&x, &nx, a, &o), TSR_OK);
		assert_int_equal(tsr_trace_list_label_stats(&y, &ny, b, &p), TSR_OK);
		assert_int_equal(nx, ny);
		for (size_t i = 0; i < nx; i++) {
			cx += x[i].count + x[i].total_ns;
			cy += y[i].count + y[i].total_ns;
		}
		assert_int_equal(cx, cy);
		free(x);
		free(y);
	}
	assert_int_equal(count_instants(a), count_instants(b));
	assert_int_equal(tsr_trace_get_series(&sa, &na, a), TSR_OK);
	assert_int_equal(tsr_trace_get_series(&sb, &nb, b), TSR_OK);
	assert_int_equal(na, nb);
	for (s = 0; s < na; s++) {
		tsr_trace_counter_bucket *ba = NULL, *bb = NULL;
		size_t ka = 0, kb = 0;
		double before;

		assert_string_equal(sa[s].graph, sb[s].graph);
		assert_string_equal(sa[s].name, sb[s].name);
		assert_int_equal(tsr_trace_list_counter_buckets(&ba, &ka, &before, a, s, INT64_MIN / 2,
		                                                INT64_MAX / 2, UINT64_MAX / 4),
		                 TSR_OK);
		assert_int_equal(tsr_trace_list_counter_buckets(&bb, &kb, &before, b, s, INT64_MIN / 2,
		                                                INT64_MAX / 2, UINT64_MAX / 4),
		                 TSR_OK);
		assert_int_equal(ka, kb);
		for (size_t k = 0; k < ka; k++) {
			assert_int_equal(ba[k].count, bb[k].count);
			assert_true(ba[k].min == bb[k].min && ba[k].max == bb[k].max);
		}
		free(ba);
		free(bb);
	}
}

/* --- Round trips ---------------------------------------------------------------- */

static void test_round_trip_samples(void **state)
{
	char *dir = tsi_test_mkdtemp(), path[4096];
	const char *names[] = {"tut4_profiling", "tut5_ml", "tut7_mk1", "tut7_mk1_small"};
	size_t done = 0;

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		DIR *d;
		struct dirent *e;

		snprintf(path, sizeof(path), "%s/%s", SAMPLE_REPORTS, names[i]);
		d = opendir(path);
		if (!d)
			continue;
		while ((e = readdir(d))) {
			size_t len = strlen(e->d_name);
			char *full = NULL, *json = NULL;
			tsr_trace *a, *b;

			if (len < 5 || strcmp(e->d_name + len - 5, ".pvti") != 0)
				continue;
			assert_true(asprintf(&full, "%s/%s", path, e->d_name) > 0);
			a = tsi_test_open_trace(full);
			b = round_trip(a, dir, e->d_name, &json);
			assert_same_trace(a, b);
			tsr_trace_free(a);
			tsr_trace_free(b);
			free(full);
			free(json);
			done++;
		}
		closedir(d);
	}
	assert_true(done >= 1);
	tsi_test_rmtree(dir);
}

static void *worker(void *arg)
{
	pvti_channel *ch = pvti_channel_new("Work");

	(void)arg;
	pvti_thread_set_name("worker");
	for (int i = 0; i < 3000; i++) {
		pvti_begin(ch, "work");
		pvti_begin(ch, "sub");
		pvti_end(ch);
		pvti_end(ch);
	}
	return NULL;
}

/* A trace with deep nesting, many chunks' worth of spans, metadata,
 * instants and a counter, through JSON and back. */
static void test_round_trip_made(void **state)
{
	char *dir = tsi_test_mkdtemp(), *path, *json = NULL, *meta = NULL;
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_series *loss = pvti_graph_add_series(pvti_graph_new("loss", ""), "train");
	pvti_channel *fw = pvti_channel_framework();
	pthread_t t;
	tsr_trace *a, *b;

	(void)state;
	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	pthread_create(&t, NULL, worker, NULL);
	for (int i = 0; i < 40000; i++) {
		pvti_begin(fw, "outer");
		if (i == 7)
			assert_int_equal(pvti_event_metadata("{\"step\":7,\"s\":\"\\u00e9\"}"), 0);
		for (int d = 0; d < i % 5; d++)
			pvti_begin(fw, "nest");
		for (int d = 0; d < i % 5; d++)
			pvti_end(fw);
		if (i % 100 == 0) {
			pvti_instant(fw, "tick");
			pvti_series_add(loss, (double)i / 3.0);
		}
		pvti_end(fw);
	}
	pthread_join(t, NULL);
	assert_int_equal(pvti_close(), 0);
	a = tsi_test_open_trace(path);
	b = round_trip(a, dir, "made.json", &json);
	assert_same_trace(a, b);
	/* The metadata of span seq 7... found by search of "outer" #7. */
	{
		tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;
		tsr_trace_found *f = NULL;
		size_t n = 0;
		uint64_t total = 0;

		q.pattern = "outer";
		q.limit = 8;
		assert_int_equal(tsr_trace_search(&f, &n, &total, b, &q), TSR_OK);
		assert_int_equal(total, 40000);
		assert_int_equal(n, 8);
		assert_int_equal(tsr_trace_dup_event_metadata(&meta, b, f[7].thread, f[7].event.seq),
		                 TSR_OK);
		assert_non_null(meta);
		/* The export wraps it as {"metadata": ...}; the values survive. */
		assert_non_null(strstr(meta, "\"step\":7"));
		assert_non_null(strstr(meta, "\"s\":\"\\u00e9\""));
		free(meta);
		free(f);
	}
	tsr_trace_free(a);
	tsr_trace_free(b);
	free(path);
	free(json);
	tsi_test_rmtree(dir);
}

/* --- Phases -------------------------------------------------------------------- */

/* The spans of thread 0 at resolution 0. */
static tsr_trace_item *events_of(tsr_trace *tr, size_t thread, size_t *n)
{
	tsr_trace_item *it = NULL;

	assert_int_equal(tsr_trace_list_events(&it, n, tr, thread, INT64_MIN, INT64_MAX, 0), TSR_OK);
	return it;
}

static const tsr_trace_item *find_item(tsr_trace *tr, const tsr_trace_item *it, size_t n,
                                       const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(tsr_trace_get_name(tr, it[i].name), name) == 0)
			return &it[i];
	fail_msg("no span %s", name);
	return NULL;
}

static void test_phase_x_nesting(void **state)
{
	char *dir = tsi_test_mkdtemp();
	/* Out of order on purpose; times with sub-microsecond decimals. */
	char *path = write_file(dir, "x.json",
	                        "[{\"ph\":\"X\",\"name\":\"child\",\"cat\":\"c\",\"pid\":1,\"tid\":2,"
	                        "\"ts\":10.5,\"dur\":2.25},\n"
	                        " {\"ph\":\"X\",\"name\":\"parent\",\"cat\":\"c\",\"pid\":1,\"tid\":2,"
	                        "\"ts\":10,\"dur\":5.0005},\n"
	                        " {\"ph\":\"X\",\"name\":\"grandchild\",\"pid\":1,\"tid\":2,"
	                        "\"ts\":11,\"dur\":1e-3},\n"
	                        " {\"ph\":\"X\",\"name\":\"after\",\"pid\":1,\"tid\":2,\"ts\":20,\"dur\":0}]");
	tsr_trace *tr = tsi_test_open_trace(path);
	size_t n;
	tsr_trace_item *it = events_of(tr, 0, &n);
	const tsr_trace_item *p, *c, *g, *a;

	(void)state;
	assert_int_equal(n, 4);
	p = find_item(tr, it, n, "parent");
	c = find_item(tr, it, n, "child");
	g = find_item(tr, it, n, "grandchild");
	a = find_item(tr, it, n, "after");
	/* Times start at 0: the earliest event. */
	assert_int_equal(p->start_ns, 0);
	assert_int_equal(p->end_ns, 5001); /* 5.0005 us: 5000.5 ns, to the nearest */
	assert_int_equal(c->start_ns, 500);
	assert_int_equal(c->end_ns - c->start_ns, 2250);
	assert_int_equal(g->start_ns, 1000);
	assert_int_equal(g->end_ns - g->start_ns, 1);
	assert_int_equal(a->start_ns, 10000);
	assert_int_equal(p->depth, 0);
	assert_int_equal(c->depth, 1);
	assert_int_equal(g->depth, 2);
	assert_int_equal(a->depth, 0);
	assert_int_equal(c->parent, p->seq);
	assert_int_equal(g->parent, c->seq);
	assert_int_equal(a->parent, -1);
	assert_string_equal(channel_name(tr, c->channel), "c");
	assert_string_equal(channel_name(tr, g->channel), "default");
	free(it);
	tsr_trace_free(tr);
	free(path);
	tsi_test_rmtree(dir);
}

static void test_phase_b_e(void **state)
{
	char *dir = tsi_test_mkdtemp();
	char *path = write_file(dir, "be.json",
	                        "{\"traceEvents\":[\n"
	                        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":0},\n"
	                        "{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,"
	                        "\"args\":{\"k\":[1,2,{\"x\":null}]}},\n"
	                        "{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2},\n"
	                        "{\"ph\":\"B\",\"name\":\"other\",\"pid\":1,\"tid\":9,\"ts\":2},\n"
	                        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":4,\"args\":{\"end\":true}},\n"
	                        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":8},\n"
	                        "{\"ph\":\"B\",\"name\":\"never\",\"pid\":1,\"tid\":1,\"ts\":9}\n"
	                        "],\"displayTimeUnit\":\"ms\",\"metadata\":{\"x\":[{}]}}");
	tsr_trace *tr = tsi_test_open_trace(path);
	size_t n;
	tsr_trace_item *it = events_of(tr, 0, &n);
	const tsr_trace_item *a, *b;
	char *meta = NULL;
	tsr_trace_label_stat *st = NULL;

	(void)state;
	assert_int_equal(n, 2);
	a = find_item(tr, it, n, "a");
	b = find_item(tr, it, n, "b");
	assert_int_equal(a->end_ns - a->start_ns, 7000);
	assert_int_equal(b->end_ns - b->start_ns, 2000);
	assert_int_equal(b->parent, a->seq);
	assert_int_equal(tsr_trace_dup_event_metadata(&meta, tr, 0, a->seq), TSR_OK);
	assert_string_equal(meta, "{\"k\":[1,2,{\"x\":null}]}");
	free(meta);
	assert_int_equal(tsr_trace_dup_event_metadata(&meta, tr, 0, b->seq), TSR_OK);
	assert_string_equal(meta, "{\"end\":true}");
	free(meta);
	/* One E with nothing open; "never" and "other" never end. */
	assert_string_equal(tsr_trace_lookup_metadata(tr, 0, "pvti.unbalanced_ends"), "1");
	assert_string_equal(tsr_trace_lookup_metadata(tr, 0, "pvti.unclosed_begins"), "2");
	assert_string_equal(tsr_trace_lookup_metadata(tr, 0, "chrome.form"), "\"object\"");
	assert_int_equal(tsr_trace_list_label_stats(&st, &n, tr, NULL), TSR_OK);
	assert_int_equal(n, 2);
	assert_int_equal(st[0].self_ns, 5000); /* a: 7 us less b's 2 */
	free(st);
	free(it);
	tsr_trace_free(tr);
	free(path);
	tsi_test_rmtree(dir);
}

static void test_phase_instants_counters_metadata(void **state)
{
	char *dir = tsi_test_mkdtemp();
	/* Named .trace: found by content, not by name. No closing ']': the
	 * array form allows it. */
	char *path = write_file(dir, "t.trace",
	                        "  \n[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":\"gpu\","
	                        "\"args\":{\"name\":\"Device\"}},\n"
	                        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":\"gpu\",\"tid\":\"stream 7\","
	                        "\"args\":{\"labels\":\"x\",\"name\":\"Stream seven\"}},\n"
	                        "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":7,"
	                        "\"args\":{\"sort_index\":1}},\n"
	                        "{\"ph\":\"X\",\"name\":\"kernel\",\"pid\":\"gpu\",\"tid\":\"stream 7\","
	                        "\"ts\":100,\"dur\":10},\n"
	                        "{\"ph\":\"X\",\"name\":\"host\",\"pid\":7,\"tid\":7,\"ts\":100,\"dur\":50},\n"
	                        "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":7,\"tid\":7,\"ts\":120,\"s\":\"t\"},\n"
	                        "{\"ph\":\"I\",\"name\":\"mark2\",\"pid\":7,\"tid\":7,\"ts\":160},\n"
	                        "{\"ph\":\"n\",\"name\":\"mark3\",\"pid\":7,\"tid\":7,\"ts\":170,\"id\":1},\n"
	                        "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":7,\"ts\":100,"
	                        "\"args\":{\"used\":10.5,\"free\":-2e1,\"note\":\"x\"}},\n"
	                        "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":7,\"ts\":130,\"args\":{\"used\":11}},\n"
	                        "{\"ph\":\"b\",\"name\":\"async\",\"pid\":7,\"ts\":1,\"id\":3},\n"
	                        "{\"ph\":\"s\",\"name\":\"flow\",\"pid\":7,\"ts\":1,\"id\":3},\n"
	                        "{\"ph\":\"s\",\"name\":\"flow\",\"pid\":7,\"ts\":1,\"id\":4},\n"
	                        "{\"ph\":\"Zq\",\"ts\":1},\n");
	tsr_trace *tr = tsi_test_open_trace(path);
	const tsr_trace_thread *th;
	const tsr_trace_process *pr;
	const tsr_trace_series *se;
	tsr_trace_instant *in = NULL;
	tsr_trace_item *it;
	tsr_trace_counter_bucket *bk = NULL;
	size_t n, k;
	double before;

	(void)state;
	assert_int_equal(tsr_trace_get_processes(&pr, &n, tr), TSR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(pr[0].name, "Device");
	assert_int_equal(tsr_trace_get_threads(&th, &n, tr), TSR_OK);
	assert_int_equal(n, 2);
	assert_string_equal(th[0].name, "Device: Stream seven");
	assert_string_equal(th[1].name, "pid 7: tid 7");
	assert_int_equal(th[1].tid, 7);
	it = events_of(tr, 0, &k);
	assert_int_equal(k, 1);
	/* Time 0 is the earliest event read (skipped phases do not count). */
	assert_int_equal(it[0].start_ns, 0);
	free(it);
	assert_int_equal(tsr_trace_list_instants(&in, &n, tr, -1, INT64_MIN, INT64_MAX, 0), TSR_OK);
	assert_int_equal(n, 3);
	assert_int_equal(in[0].t_ns, 20000);
	assert_int_equal(in[0].depth, 1); /* inside "host" */
	assert_int_equal(in[2].t_ns, 70000);
	assert_int_equal(in[2].depth, 0);
	free(in);
	assert_int_equal(tsr_trace_get_series(&se, &n, tr), TSR_OK);
	assert_int_equal(n, 2);
	assert_string_equal(se[0].graph, "mem");
	assert_string_equal(se[0].name, "used");
	assert_string_equal(se[1].name, "free");
	assert_int_equal(tsr_trace_list_counter_buckets(&bk, &k, &before, tr, 0, 0, 1000000, 1000), TSR_OK);
	assert_int_equal(k, 2);
	assert_true(bk[0].min == 10.5 && bk[1].min == 11.0);
	free(bk);
	assert_int_equal(tsr_trace_list_counter_buckets(&bk, &k, &before, tr, 1, 0, 1000000, 1000), TSR_OK);
	assert_int_equal(k, 1);
	assert_true(bk[0].min == -20.0);
	free(bk);
	assert_string_equal(tsr_trace_lookup_metadata(tr, 0, "chrome.skipped_phases"),
	                    "{\"other\":1,\"b\":1,\"s\":2}");
	assert_string_equal(tsr_trace_lookup_metadata(tr, 0, "chrome.form"), "\"array\"");
	tsr_trace_free(tr);
	free(path);
	tsi_test_rmtree(dir);
}

/*
 * Progress while a big JSON file is read, and Cancel from it. Between part
 * boundaries the library calls back only when 10 ms have passed since
 * the last call (report.h), checking every 4,096 events: how many calls
 * a read makes depends on the machine's speed, and a fast one could read
 * the whole file between two. So the callback itself takes longer than
 * that period (it sleeps 11 ms, a least time) while the test counts on
 * the calls: then the read calls back at every check, however fast.
 */
typedef struct progress_log {
	double last;
	int calls;
	double cancel_at;          /* > 1: never */
	int slow;                  /* calls left that outlast the period */
} progress_log;

static int on_progress(double fraction, const char *message, void *data)
{
	progress_log *l = data;

	(void)message;
	assert_true(fraction >= l->last - 1e-9 && fraction <= 1.0 + 1e-9);
	l->last = fraction;
	l->calls++;
	if (l->slow > 0) {
		struct timespec period = {0, 11000000};

		l->slow--;
		while (nanosleep(&period, &period) != 0)
			;
	}
	return fraction >= l->cancel_at;
}

static void test_progress_cancel(void **state)
{
	char *dir = tsi_test_mkdtemp(), *path = NULL;
	tsr_trace_open_options o = TSR_TRACE_OPEN_OPTIONS_INIT;
	progress_log log = {0, 0, 2.0, 5};
	tsr_trace *tr = NULL;
	const char *p;
	FILE *f;

	(void)state;
	assert_true(asprintf(&path, "%s/big.json", dir) > 0);
	f = fopen(path, "w");
	fputc('[', f);
	for (int i = 0; i < 300000; i++)
		fprintf(f, "%s{\"ph\":\"X\",\"name\":\"s%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1}",
		        i ? ",\n" : "", i % 10, 2 * i);
	fputc(']', f);
	fclose(f);
	p = path;
	o.progress = on_progress;
	o.progress_data = &log;
	assert_int_equal(tsr_trace_open(&tr, &p, 1, &o), TSR_OK);
	assert_true(log.calls > 3);
	tsr_trace_free(tr);
	tr = NULL;
	log.last = 0;
	log.calls = 0;
	log.cancel_at = 0.3;
	log.slow = 1000; /* every call up to the cancel: one every 4,096 events */
	assert_int_equal(tsr_trace_open(&tr, &p, 1, &o), TSR_ERR_CANCELLED);
	assert_null(tr);
	assert_true(log.last < 0.8); /* stopped while reading the JSON */
	free(path);
	tsi_test_rmtree(dir);
}

/* A byte order mark before the JSON, as some editors write. */
static void test_bom(void **state)
{
	char *dir = tsi_test_mkdtemp();
	char *path = write_file(dir, "bom.json", "\xef\xbb\xbf [{\"ph\":\"X\",\"name\":\"x\",\"ts\":0,\"dur\":1}]");
	tsr_trace *tr = tsi_test_open_trace(path);

	(void)state;
	assert_int_equal(tsr_trace_get_info(tr)->events, 1);
	tsr_trace_free(tr);
	free(path);
	tsi_test_rmtree(dir);
}

/* Several files, JSON and .pvti, merge on one axis. */
static void test_json_beside_pvti(void **state)
{
	char *dir = tsi_test_mkdtemp();
	char *json = write_file(dir, "a.json", "[{\"ph\":\"X\",\"name\":\"x\",\"pid\":3,\"tid\":3,"
	                                       "\"ts\":0,\"dur\":1}]");
	const char *paths[2] = {json, SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti"};
	tsr_trace *tr = NULL;

	(void)state;
	assert_int_equal(tsr_trace_open(&tr, paths, 2, NULL), TSR_OK);
	assert_int_equal(tsr_trace_get_info(tr)->processes, 2);
	tsr_trace_free(tr);
	free(json);
	tsi_test_rmtree(dir);
}

/* --- Hostile files ------------------------------------------------------------------ */

static void test_hostile(void **state)
{
	char *dir = tsi_test_mkdtemp(), *path, *big;
	FILE *f;
	size_t i;
	tsr_trace *tr;

	(void)state;
	path = write_file(dir, "trunc.json", "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a");
	open_fails(path, TSR_ERR_CORRUPT);
	free(path);
	path = write_file(dir, "trunc2.json", "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1}");
	open_fails(path, TSR_ERR_CORRUPT);
	free(path);
	path = write_file(dir, "utf8.json", "[{\"ph\":\"X\",\"name\":\"\xff\xfe\",\"ts\":1,\"dur\":1}]");
	open_fails(path, TSR_ERR_CORRUPT);
	free(path);
	path = write_file(dir, "ctl.json", "[{\"ph\":\"X\",\"name\":\"a\nb\",\"ts\":1,\"dur\":1}]");
	open_fails(path, TSR_ERR_CORRUPT);
	free(path);
	path = write_file(dir, "huge.json", "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1e300,\"dur\":1}]");
	open_fails(path, TSR_ERR_CORRUPT);
	free(path);
	path = write_file(dir, "lit.json", "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1,\"x\":nul}]");
	open_fails(path, TSR_ERR_CORRUPT);
	free(path);
	path = write_file(dir, "after.json", "[] []");
	open_fails(path, TSR_ERR_CORRUPT);
	free(path);
	path = write_file(dir, "noevents.json", "{\"other\":1}");
	open_fails(path, TSR_ERR_CORRUPT);
	free(path);
	path = write_file(dir, "nots.json", "[{\"ph\":\"X\",\"name\":\"a\",\"dur\":1}]");
	open_fails(path, TSR_ERR_CORRUPT);
	free(path);
	/* A million '[' in an argument. */
	big = malloc(2000100);
	assert_non_null(big);
	strcpy(big, "[{\"ph\":\"X\",\"ts\":1,\"args\":");
	for (i = strlen(big); i < 2000000; i++)
		big[i] = '[';
	big[i] = '\0';
	path = write_file(dir, "deep.json", big);
	open_fails(path, TSR_ERR_CORRUPT);
	free(path);
	/* A number of a million digits (skipped: an unknown key), and one as ts. */
	strcpy(big, "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"n\":");
	for (i = strlen(big); i < 1000040; i++)
		big[i] = '7';
	strcpy(big + i, ".5e-3}]");
	path = write_file(dir, "longnum.json", big);
	tr = tsi_test_open_trace(path);
	assert_int_equal(tsr_trace_get_info(tr)->events, 1);
	tsr_trace_free(tr);
	free(path);
	strcpy(big, "[{\"ph\":\"X\",\"dur\":1,\"ts\":0.");
	for (i = strlen(big); i < 1000040; i++)
		big[i] = '0';
	strcpy(big + i, "1}]");
	path = write_file(dir, "longts.json", big);
	tr = tsi_test_open_trace(path);
	assert_int_equal(tsr_trace_get_info(tr)->events, 1);
	tsr_trace_free(tr);
	free(path);
	free(big);
	/* A name longer than a block: cut at the name limit. */
	assert_true(asprintf(&path, "%s/longname.json", dir) > 0);
	f = fopen(path, "w");
	fputs("[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"name\":\"", f);
	for (i = 0; i < 3u << 20; i++)
		fputc('a' + (int)(i % 26), f);
	fputs("\\u00e9\"}]", f);
	fclose(f);
	tr = tsi_test_open_trace(path);
	assert_int_equal(strlen(tsr_trace_get_name(tr, 0)), 16384);
	tsr_trace_free(tr);
	/* The memory cap holds. */
	f = fopen(path, "w");
	fputc('[', f);
	for (i = 0; i < 200000; i++)
		fprintf(f, "%s{\"ph\":\"X\",\"name\":\"n%zu\",\"pid\":1,\"tid\":%zu,\"ts\":%zu,\"dur\":1}",
		        i ? "," : "", i % 1000, i % 7, i);
	fputc(']', f);
	fclose(f);
	{
		tsr_trace_open_options o = TSR_TRACE_OPEN_OPTIONS_INIT;
		const char *p = path;

		o.memory_cap = 1 << 20;
		tr = NULL;
		assert_int_equal(tsr_trace_open(&tr, &p, 1, &o), TSR_ERR_TOO_LARGE);
		assert_null(tr);
		o.memory_cap = 0;
		assert_int_equal(tsr_trace_open(&tr, &p, 1, &o), TSR_OK);
		assert_int_equal(tsr_trace_get_info(tr)->events, 200000);
		tsr_trace_free(tr);
	}
	free(path);
	tsi_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_samples),
		cmocka_unit_test(test_round_trip_made),
		cmocka_unit_test(test_phase_x_nesting),
		cmocka_unit_test(test_phase_b_e),
		cmocka_unit_test(test_phase_instants_counters_metadata),
		cmocka_unit_test(test_bom),
		cmocka_unit_test(test_progress_cancel),
		cmocka_unit_test(test_json_beside_pvti),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
