/*
 * Reading .pvti traces (reportlib/include/tilescope/trace.h). Every trace
 * is made here with the pvti API, in the test's own directory, with a
 * known shape: a "main" thread tracing N "outer" spans on Framework, each
 * holding three "inner" ones, the middle one holding a "leaf" on a user
 * channel, a "tick" instant every ten outers and a sample of "loss/train"
 * per outer; a "worker" thread tracing "work" spans each holding a "sub".
 *
 * What is checked:
 *   - at resolution 0 every span comes back once, with its name, depth,
 *     parent and nesting in time as traced; at other resolutions the
 *     counts of the items add up to the spans in the window, and the
 *     level of detail (the file's, and the one built from the chunks)
 *     accounts for every span and for the outermost spans' time;
 *   - statistics by label equal a brute-force computation from the spans
 *     (and the file's label_stats agree with the chunks);
 *   - search, counters (against the sample table read directly),
 *     instants, metadata;
 *   - two files of two processes merged on one axis;
 *   - a trace whose process was killed opens without summaries;
 *   - hostile files (truncated, a chunk lying about its count, garbage
 *     blobs, missing names, other application ids, other versions) give
 *     their error codes;
 *   - the Chrome JSON export parses with cJSON and holds every event.
 */
#include "test-util.h"

#include <tilescope/pvti.h>
#include <tilescope/trace.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* --- Making traces ---------------------------------------------------------- */

#define WORK_SPANS 500
#define SMALL_OUTERS 2000
#define LARGE_OUTERS 70000 /* 350,000 spans on main: past the decode budget */

static void *worker_main(void *arg)
{
	pvti_channel *ch = pvti_channel_new("TestChan");
	long i, n = (long)(intptr_t)arg;

	pvti_thread_set_name("worker");
	for (i = 0; i < n; i++) {
		pvti_begin(ch, "work");
		pvti_begin(ch, "sub");
		pvti_end(ch);
		pvti_end(ch);
	}
	return NULL;
}

/* Traces the shape described above with `outers` outer spans into `dir`
 * (with a worker thread when `worker`); returns the file's path. */
static char *make_trace(const char *dir, long outers, bool worker)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *fw = pvti_channel_framework(), *user = pvti_channel_new("TestChan");
	pvti_series *loss = pvti_graph_add_series(pvti_graph_new("loss", "%"), "train");
	pthread_t th;
	char *path;
	long i;
	int j;

	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	assert_non_null(path);
	assert_int_equal(pvti_trace_metadata("test.key", "{\"answer\":42}"), 0);
	assert_int_equal(pvti_thread_set_name("main"), 0);
	if (worker)
		assert_int_equal(pthread_create(&th, NULL, worker_main, (void *)(intptr_t)WORK_SPANS), 0);
	for (i = 0; i < outers; i++) {
		pvti_begin(fw, "outer");
		if (i == 5)
			assert_int_equal(pvti_event_metadata("{\"step\":5}"), 0);
		for (j = 0; j < 3; j++) {
			pvti_begin(fw, "inner");
			if (j == 1) {
				pvti_begin(user, "leaf");
				pvti_end(user);
			}
			pvti_end(fw);
		}
		if (i % 10 == 0)
			pvti_instant(fw, "tick");
		pvti_series_add(loss, (double)(i % 7) * 1.5 - (double)(i % 3));
		pvti_end(fw);
	}
	if (worker)
		assert_int_equal(pthread_join(th, NULL), 0);
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

/* The thread index called `name`. */
static size_t thread_named(tsr_trace *tr, const char *name)
{
	const tsr_trace_thread *t;
	size_t n, i;

	assert_int_equal(tsr_trace_get_threads(&t, &n, tr), TSR_OK);
	for (i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return i;
	fail_msg("no thread %s", name);
	return 0;
}

/* The name id of `text`, or TSR_TRACE_NO_NAME. */
static uint32_t name_id(tsr_trace *tr, const char *text)
{
	uint32_t i;

	for (i = 0; i < tsr_trace_get_info(tr)->names; i++)
		if (strcmp(tsr_trace_get_name(tr, i), text) == 0)
			return i;
	return TSR_TRACE_NO_NAME;
}

/* Every span of a thread at resolution 0 (all EVENT items). */
static tsr_trace_item *all_spans(tsr_trace *tr, size_t thread, size_t *n)
{
	tsr_trace_item *items = NULL;
	size_t i;

	assert_int_equal(tsr_trace_list_events(&items, n, tr, thread, INT64_MIN, INT64_MAX, 0), TSR_OK);
	for (i = 0; i < *n; i++) {
		assert_int_equal(items[i].kind, TSR_TRACE_ITEM_EVENT);
		assert_int_equal(items[i].count, 1);
	}
	return items;
}

/* position[seq] = the index in spans[0..n) of the span with that seq
 * (SIZE_MAX when none); *n_pos entries. The caller frees it. */
static size_t *seq_index(const tsr_trace_item *spans, size_t n, size_t *n_pos)
{
	size_t *pos, i, max = 0;

	for (i = 0; i < n; i++)
		if ((size_t)spans[i].seq + 1 > max)
			max = (size_t)spans[i].seq + 1;
	pos = malloc((max + 1) * sizeof(*pos));
	assert_non_null(pos);
	for (i = 0; i <= max; i++)
		pos[i] = SIZE_MAX;
	for (i = 0; i < n; i++) {
		assert_true(spans[i].seq >= 0);
		assert_int_equal(pos[spans[i].seq], SIZE_MAX); /* seqs are unique in a thread */
		pos[spans[i].seq] = i;
	}
	*n_pos = max;
	return pos;
}

/* The span with seq `seq` (fails when there is none). */
static const tsr_trace_item *by_seq(const tsr_trace_item *spans, const size_t *pos, size_t n_pos,
                                    int64_t seq)
{
	assert_true(seq >= 0 && (size_t)seq < n_pos && pos[seq] != SIZE_MAX);
	return &spans[pos[seq]];
}

static bool in_window(const tsr_trace_item *e, int64_t from, int64_t to)
{
	if (e->start_ns >= to)
		return false;
	return e->end_ns > from || (e->end_ns == e->start_ns && e->start_ns >= from);
}

/* Checks the items of one query against the spans: counts add up to the
 * spans in the window, depths are ordered, every EVENT is a real span. */
static void check_window(tsr_trace *tr, size_t thread, const tsr_trace_item *spans, size_t n_spans,
                         int64_t from, int64_t to, uint64_t res)
{
	tsr_trace_item *items = NULL;
	size_t n = 0, i, n_pos, *pos = seq_index(spans, n_spans, &n_pos);
	uint64_t expect = 0, got = 0;

	for (i = 0; i < n_spans; i++)
		expect += in_window(&spans[i], from, to);
	assert_int_equal(tsr_trace_list_events(&items, &n, tr, thread, from, to, res), TSR_OK);
	for (i = 0; i < n; i++) {
		const tsr_trace_item *it = &items[i];

		assert_true(it->kind != TSR_TRACE_ITEM_SUMMARY);
		assert_true(it->count >= 1);
		got += it->count;
		if (i)
			assert_true(items[i - 1].depth < it->depth ||
			            (items[i - 1].depth == it->depth &&
			             items[i - 1].start_ns <= it->start_ns));
		if (it->kind == TSR_TRACE_ITEM_EVENT) {
			const tsr_trace_item *e = by_seq(spans, pos, n_pos, it->seq);

			assert_int_equal(e->start_ns, it->start_ns);
			assert_int_equal(e->end_ns, it->end_ns);
			assert_int_equal(e->name, it->name);
			assert_true(in_window(it, from, to));
		} else {
			assert_int_equal(it->kind, TSR_TRACE_ITEM_MERGED);
			assert_true(it->count >= 2);
			assert_true(it->end_ns >= it->start_ns);
			assert_true(res > 0);
		}
	}
	assert_int_equal(got, expect);
	free(items);
	free(pos);
}

/* --- Events ------------------------------------------------------------------ */

/* Every span at resolution 0, as traced; windows at several resolutions
 * add up; bad arguments give their codes. */
static void check_lod(tsr_trace *tr, size_t thread, uint64_t res, uint64_t events,
                      uint64_t busy, uint32_t top);

static void test_events(void **state)
{
	char *path = make_trace(*state, SMALL_OUTERS, true);
	tsr_trace *tr = tsi_test_open_trace(path);
	const tsr_trace_info *info = tsr_trace_get_info(tr);
	const tsr_trace_thread *threads;
	const tsr_trace_channel *chans;
	tsr_trace_item *spans, *items = NULL;
	size_t n_threads, n_chans, n, i, main_t = thread_named(tr, "main");
	size_t worker_t = thread_named(tr, "worker"), n_pos, *pos;
	uint32_t outer = name_id(tr, "outer"), inner = name_id(tr, "inner"), leaf = name_id(tr, "leaf");
	long per_name[3] = {0, 0, 0};
	int64_t span_ns, from, to;
	uint64_t res;
	int k;

	assert_true(info->complete);
	assert_int_equal(info->processes, 1);
	assert_int_equal(info->events, SMALL_OUTERS * 5 + WORK_SPANS * 2);
	assert_int_equal(tsr_trace_get_threads(&threads, &n_threads, tr), TSR_OK);
	assert_int_equal(threads[main_t].events, SMALL_OUTERS * 5);
	assert_int_equal(threads[worker_t].events, WORK_SPANS * 2);
	assert_int_equal(tsr_trace_get_channels(&chans, &n_chans, tr), TSR_OK);
	for (i = 0; i < n_chans; i++)
		if (strcmp(chans[i].name, "TestChan") == 0)
			break;
	assert_true(i < n_chans);
	assert_null(tsr_trace_get_name(tr, (uint32_t)info->names));

	/* Resolution 0: every span, as traced. */
	spans = all_spans(tr, main_t, &n);
	assert_int_equal(n, SMALL_OUTERS * 5);
	pos = seq_index(spans, n, &n_pos);
	for (i = 0; i < n; i++) {
		const tsr_trace_item *e = &spans[i];

		if (e->name == outer) {
			per_name[0]++;
			assert_int_equal(e->depth, 0);
			assert_int_equal(e->parent, -1);
		} else if (e->name == inner) {
			per_name[1]++;
			assert_int_equal(e->depth, 1);
		} else {
			assert_int_equal(e->name, leaf);
			per_name[2]++;
			assert_int_equal(e->depth, 2);
		}
		if (e->parent >= 0) {
			const tsr_trace_item *up = by_seq(spans, pos, n_pos, e->parent);

			assert_int_equal(up->depth + 1, e->depth);
			assert_true(up->start_ns <= e->start_ns && e->end_ns <= up->end_ns);
		}
	}
	assert_int_equal(per_name[0], SMALL_OUTERS);
	assert_int_equal(per_name[1], 3 * SMALL_OUTERS);
	assert_int_equal(per_name[2], SMALL_OUTERS);

	/* Windows and resolutions. */
	span_ns = threads[main_t].last_ns - threads[main_t].first_ns;
	for (k = 0; k < 24; k++) {
		from = threads[main_t].first_ns + span_ns * (k % 6) / 7;
		to = from + span_ns / (1 + k % 4 * 10) + 1;
		res = k < 6 ? 0 : k < 12 ? 50 : k < 18 ? (uint64_t)span_ns / 500 : (uint64_t)span_ns / 20;
		check_window(tr, main_t, spans, n, from, to, res);
	}
	check_window(tr, main_t, spans, n, INT64_MIN, INT64_MAX, (uint64_t)span_ns);
	/* A coarse resolution merges: fewer items than spans, same total. */
	assert_int_equal(tsr_trace_list_events(&items, &i, tr, main_t, INT64_MIN, INT64_MAX,
	                                       (uint64_t)span_ns / 10),
	                 TSR_OK);
	assert_true(i < n / 10);
	free(items);
	/* A decode budget below the thread's spans: the same window comes from
	 * the level of detail (SUMMARY items, every span counted); back to
	 * the default, decoded again. */
	{
		uint64_t busy = 0;

		for (size_t s = 0; s < n; s++)
			if (spans[s].depth == 0)
				busy += (uint64_t)(spans[s].end_ns - spans[s].start_ns);
		assert_int_equal(tsr_trace_set_decode_budget(tr, 1000), TSR_OK);
		check_lod(tr, main_t, (uint64_t)span_ns / 100, n, busy, TSR_TRACE_NO_NAME);
	}
	assert_int_equal(tsr_trace_set_decode_budget(tr, 0), TSR_OK);
	assert_int_equal(tsr_trace_list_events(&items, &i, tr, main_t, INT64_MIN, INT64_MAX,
	                                       (uint64_t)span_ns / 100),
	                 TSR_OK);
	assert_true(i > 0 && items[0].kind != TSR_TRACE_ITEM_SUMMARY);
	free(items);
	assert_int_equal(tsr_trace_set_decode_budget(NULL, 1), TSR_ERR_INVALID_ARGUMENT);

	/* Bad arguments. */
	assert_int_equal(tsr_trace_list_events(&items, &i, tr, n_threads, 0, 10, 0), TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_trace_list_events(&items, &i, tr, main_t, 10, 0, 0),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_true(strlen(tsr_trace_error(tr)) > 0);
	assert_int_equal(tsr_trace_list_events(&items, &i, tr, main_t, 0, 0, 0), TSR_OK);
	assert_int_equal(i, 0);
	free(spans);
	free(pos);
	tsr_trace_free(tr);
	free(path);
}

/* Checks a whole-thread query answered from a level of detail: SUMMARY
 * items accounting for every span and every ns of the outermost spans,
 * named `top` (unless TSR_TRACE_NO_NAME). */
static void check_lod(tsr_trace *tr, size_t thread, uint64_t res, uint64_t events,
                      uint64_t busy, uint32_t top)
{
	tsr_trace_item *items = NULL;
	uint64_t count = 0, covered = 0;
	size_t n = 0, i;

	assert_int_equal(tsr_trace_list_events(&items, &n, tr, thread, INT64_MIN, INT64_MAX, res), TSR_OK);
	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(items[i].kind, TSR_TRACE_ITEM_SUMMARY);
		assert_int_equal(items[i].depth, 0);
		if (i)
			assert_true(items[i].start_ns >= items[i - 1].end_ns);
		count += items[i].count;
		covered += items[i].busy_ns;
		if (items[i].busy_ns && top != TSR_TRACE_NO_NAME)
			assert_int_equal(items[i].name, top);
	}
	assert_int_equal(count, events);
	assert_int_equal(covered, busy);
	free(items);
}

/* A trace past the decode budget: coarse windows come from the file's
 * level of detail, finer ones from the one built from the chunks. */
static void test_level_of_detail(void **state)
{
	char *path = make_trace(*state, LARGE_OUTERS, false);
	tsr_trace *tr = tsi_test_open_trace(path);
	const tsr_trace_thread *threads;
	tsr_trace_item *spans;
	size_t n_threads, n, i, main_t = thread_named(tr, "main");
	uint32_t outer = name_id(tr, "outer");
	uint64_t busy = 0, span_ns;
	int64_t from;

	assert_int_equal(tsr_trace_get_threads(&threads, &n_threads, tr), TSR_OK);
	spans = all_spans(tr, main_t, &n);
	assert_int_equal(n, LARGE_OUTERS * 5);
	for (i = 0; i < n; i++)
		if (spans[i].depth == 0)
			busy += (uint64_t)(spans[i].end_ns - spans[i].start_ns);
	span_ns = (uint64_t)(threads[main_t].last_ns - threads[main_t].first_ns);
	/* The file's level 0 has at most 4096 buckets over the trace: a pixel
	 * of span / 1000 uses it, one of span / 3000 may not, span / 8000
	 * needs the finer one built from the chunks (16384 buckets here). */
	check_lod(tr, main_t, span_ns / 1000, n, busy, outer);
	check_lod(tr, main_t, span_ns / 3000, n, busy, outer);
	check_lod(tr, main_t, span_ns / 8000, n, busy, outer);
	check_lod(tr, main_t, span_ns * 2, n, busy, outer);
	/* A window of 1 % is decoded exactly, merging at its resolution. */
	from = threads[main_t].first_ns + (int64_t)(span_ns / 3);
	check_window(tr, main_t, spans, n, from, from + (int64_t)(span_ns / 100), span_ns / 100000);
	check_window(tr, main_t, spans, n, from, from + 1000, 1);
	free(spans);
	tsr_trace_free(tr);
	free(path);
}

/* --- Statistics --------------------------------------------------------------- */

typedef struct brute_stat {
	uint32_t name;
	uint64_t count, total, self, min, max;
	uint64_t *dur;
} brute_stat;

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Statistics of the spans of `threads` starting in [from, to), self time
 * from the parent links. */
static size_t brute_stats(tsr_trace *tr, brute_stat *out, size_t max, const size_t *threads,
                          size_t n_threads, int64_t from, int64_t to)
{
	size_t n_out = 0, t, i, j;

	for (t = 0; t < n_threads; t++) {
		size_t n, n_pos, *pos;
		tsr_trace_item *s = all_spans(tr, threads[t], &n);
		uint64_t *child = calloc(n + 1, sizeof(*child));

		assert_non_null(child);
		pos = seq_index(s, n, &n_pos);
		/* Children's time, by parent. */
		for (i = 0; i < n; i++)
			if (s[i].parent >= 0)
				child[by_seq(s, pos, n_pos, s[i].parent) - s] +=
				    (uint64_t)(s[i].end_ns - s[i].start_ns);
		free(pos);
		for (i = 0; i < n; i++) {
			uint64_t d = (uint64_t)(s[i].end_ns - s[i].start_ns);
			brute_stat *b;

			if (s[i].start_ns < from || s[i].start_ns >= to)
				continue;
			for (j = 0; j < n_out; j++)
				if (out[j].name == s[i].name)
					break;
			if (j == n_out) {
				assert_true(n_out < max);
				memset(&out[n_out], 0, sizeof(out[0]));
				out[n_out].name = s[i].name;
				out[n_out].min = UINT64_MAX;
				out[n_out].dur = calloc(n, sizeof(uint64_t));
				n_out++;
			}
			b = &out[j];
			b->dur[b->count++] = d;
			b->total += d;
			b->self += d > child[i] ? d - child[i] : 0;
			b->min = d < b->min ? d : b->min;
			b->max = d > b->max ? d : b->max;
		}
		free(child);
		free(s);
	}
	return n_out;
}

static uint64_t brute_median(brute_stat *b)
{
	qsort(b->dur, b->count, sizeof(uint64_t), compare_u64);
	if (b->count % 2)
		return b->dur[b->count / 2];
	return b->dur[b->count / 2 - 1] / 2 + b->dur[b->count / 2] / 2 +
	       (b->dur[b->count / 2 - 1] & b->dur[b->count / 2] & 1);
}

/* Compares tsr_trace_list_label_stats (with the options given) with brute force. */
static void check_stats(tsr_trace *tr, const tsr_trace_stats_options *o, const size_t *threads,
                        size_t n_threads, bool median)
{
	brute_stat b[16];
	size_t nb = brute_stats(tr, b, 16, threads, n_threads, o->from_ns, o->to_ns), n = 0, i, j;
	tsr_trace_label_stat *s = NULL;

	assert_int_equal(tsr_trace_list_label_stats(&s, &n, tr, o), TSR_OK);
	assert_int_equal(n, nb);
	for (i = 0; i < n; i++) {
		if (i)
			assert_true(s[i - 1].total_ns >= s[i].total_ns);
		for (j = 0; j < nb; j++)
			if (b[j].name == s[i].name)
				break;
		assert_true(j < nb);
		assert_int_equal(s[i].count, b[j].count);
		assert_int_equal(s[i].total_ns, b[j].total);
		assert_int_equal(s[i].self_ns, b[j].self);
		assert_int_equal(s[i].min_ns, b[j].min);
		assert_int_equal(s[i].max_ns, b[j].max);
		assert_close(s[i].mean_ns, (double)b[j].total / (double)b[j].count, 1e-6);
		if (median) {
			assert_true(s[i].median_exact);
			assert_int_equal(s[i].median_ns, brute_median(&b[j]));
		}
	}
	for (j = 0; j < nb; j++)
		free(b[j].dur);
	free(s);
}

static void test_stats(void **state)
{
	char *path = make_trace(*state, SMALL_OUTERS, true);
	tsr_trace *tr = tsi_test_open_trace(path);
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	const tsr_trace_thread *threads;
	tsr_trace_label_stat *s = NULL;
	size_t n_threads, n, i, all[2], main_t = thread_named(tr, "main");
	uint32_t outer = name_id(tr, "outer");

	assert_int_equal(tsr_trace_get_threads(&threads, &n_threads, tr), TSR_OK);
	assert_int_equal(n_threads, 2);
	all[0] = 0;
	all[1] = 1;
	/* From the chunks, with medians. */
	check_stats(tr, &o, all, 2, true);
	/* From label_stats (a clean close, no medians). */
	o.median = false;
	check_stats(tr, &o, all, 2, false);
	/* One thread, a window. */
	o.median = true;
	o.thread = (int64_t)main_t;
	o.from_ns = threads[main_t].first_ns + (threads[main_t].last_ns - threads[main_t].first_ns) / 3;
	o.to_ns = o.from_ns + (threads[main_t].last_ns - threads[main_t].first_ns) / 4;
	check_stats(tr, &o, &main_t, 1, true);
	/* A cap on the durations kept: counts stay exact, medians sampled. */
	o = (tsr_trace_stats_options)TSR_TRACE_STATS_OPTIONS_INIT;
	o.max_durations = 100;
	assert_int_equal(tsr_trace_list_label_stats(&s, &n, tr, &o), TSR_OK);
	for (i = 0; i < n && s[i].name != outer; i++)
		;
	assert_true(i < n);
	assert_int_equal(s[i].count, SMALL_OUTERS);
	assert_false(s[i].median_exact);
	assert_true(s[i].median_ns >= s[i].min_ns && s[i].median_ns <= s[i].max_ns);
	free(s);
	o.thread = 7;
	assert_int_equal(tsr_trace_list_label_stats(&s, &n, tr, &o), TSR_ERR_OUT_OF_RANGE);
	tsr_trace_free(tr);
	free(path);
}

/* --- Totals per process, thread and channel ------------------------------------------ */

/* Adds the spans of `thread` starting in [from, to) to *th and chan[] by
 * brute force from every span: a span's self time is its duration less
 * its children's (the spans whose parent it is). */
static void brute_totals(tsr_trace *tr, size_t thread, int64_t from, int64_t to,
                         tsr_trace_span_totals *th, tsr_trace_channel_totals *chan, size_t n_chan)
{
	size_t n, n_pos, i;
	tsr_trace_item *s = all_spans(tr, thread, &n);
	size_t *pos = seq_index(s, n, &n_pos);
	uint64_t *child = calloc(n + 1, sizeof(*child));

	assert_non_null(child);
	for (i = 0; i < n; i++)
		if (s[i].parent >= 0)
			child[by_seq(s, pos, n_pos, s[i].parent) - s] +=
			    (uint64_t)(s[i].end_ns - s[i].start_ns);
	for (i = 0; i < n; i++) {
		uint64_t d = (uint64_t)(s[i].end_ns - s[i].start_ns);
		uint64_t self = d > child[i] ? d - child[i] : 0;

		if (s[i].start_ns < from || s[i].start_ns >= to)
			continue;
		if (!th->spans || s[i].start_ns < th->first_ns)
			th->first_ns = s[i].start_ns;
		if (!th->spans || s[i].end_ns > th->last_ns)
			th->last_ns = s[i].end_ns;
		th->spans++;
		th->busy_ns += self;
		assert_true(s[i].channel < n_chan);
		chan[s[i].channel].spans++;
		chan[s[i].channel].self_ns += self;
	}
	free(child);
	free(pos);
	free(s);
}

/* Compares tsr_trace_totals_new (with `o`; NULL: all) with brute force,
 * and checks that threads add up to processes and processes to the view. */
static void check_totals(tsr_trace *tr, const tsr_trace_totals_options *o)
{
	tsr_trace_totals_options all = TSR_TRACE_TOTALS_OPTIONS_INIT;
	const tsr_trace_thread *threads;
	const tsr_trace_channel *chans;
	size_t n_threads, n_chans, i;
	tsr_trace_span_totals want[8];
	tsr_trace_channel_totals want_chan[8];
	tsr_trace_totals *t = NULL;
	uint64_t spans = 0, busy = 0, proc_spans = 0, proc_busy = 0;

	assert_int_equal(tsr_trace_get_threads(&threads, &n_threads, tr), TSR_OK);
	assert_int_equal(tsr_trace_get_channels(&chans, &n_chans, tr), TSR_OK);
	assert_true(n_threads <= 8 && n_chans <= 8);
	memset(want, 0, sizeof(want));
	memset(want_chan, 0, sizeof(want_chan));
	if (!o)
		o = &all;
	for (i = 0; i < n_threads; i++)
		if (o->thread < 0 || (size_t)o->thread == i)
			brute_totals(tr, i, o->from_ns, o->to_ns, &want[i], want_chan, n_chans);

	assert_int_equal(tsr_trace_totals_new(&t, tr, o == &all ? NULL : o), TSR_OK);
	assert_non_null(t);
	assert_int_equal(t->n_threads, n_threads);
	assert_int_equal(t->n_channels, n_chans);
	for (i = 0; i < n_threads; i++) {
		assert_int_equal(t->threads[i].spans, want[i].spans);
		assert_int_equal(t->threads[i].busy_ns, want[i].busy_ns);
		assert_int_equal(t->threads[i].first_ns, want[i].first_ns);
		assert_int_equal(t->threads[i].last_ns, want[i].last_ns);
		spans += want[i].spans;
		busy += want[i].busy_ns;
	}
	for (i = 0; i < n_chans; i++) {
		assert_int_equal(t->channels[i].spans, want_chan[i].spans);
		assert_int_equal(t->channels[i].self_ns, want_chan[i].self_ns);
	}
	for (i = 0; i < t->n_processes; i++) {
		tsr_trace_span_totals p = {0, 0, 0, 0};

		for (size_t k = 0; k < n_threads; k++) {
			if (threads[k].process != i || !want[k].spans)
				continue;
			if (!p.spans || want[k].first_ns < p.first_ns)
				p.first_ns = want[k].first_ns;
			if (!p.spans || want[k].last_ns > p.last_ns)
				p.last_ns = want[k].last_ns;
			p.spans += want[k].spans;
			p.busy_ns += want[k].busy_ns;
		}
		assert_int_equal(t->processes[i].spans, p.spans);
		assert_int_equal(t->processes[i].busy_ns, p.busy_ns);
		assert_int_equal(t->processes[i].first_ns, p.first_ns);
		assert_int_equal(t->processes[i].last_ns, p.last_ns);
		proc_spans += t->processes[i].spans;
		proc_busy += t->processes[i].busy_ns;
	}
	assert_int_equal(t->spans, spans);
	assert_int_equal(t->self_ns, busy);
	assert_int_equal(proc_spans, spans);
	assert_int_equal(proc_busy, busy);
	tsr_trace_totals_free(t);
}

/* The index of channel `name`. */
static size_t channel_named(tsr_trace *tr, const char *name)
{
	const tsr_trace_channel *c;
	size_t n, i;

	assert_int_equal(tsr_trace_get_channels(&c, &n, tr), TSR_OK);
	for (i = 0; i < n; i++)
		if (strcmp(c[i].name, name) == 0)
			return i;
	fail_msg("no channel %s", name);
	return 0;
}

/*
 * Two files: one process tracing from one thread (300 outers; a whole
 * trace query reads its label_stats) and one from two (200 outers and the
 * worker; always from the chunks). Totals over the whole trace, one
 * thread, and windows equal brute force; the counts equal what was traced.
 */
static void test_totals(void **state)
{
	const tsr_trace_process *procs;
	const tsr_trace_thread *threads;
	tsr_trace_totals_options o = TSR_TRACE_TOTALS_OPTIONS_INIT;
	tsr_trace_label_stat *s = NULL;
	struct timespec pause = {0, 20000000};
	tsr_trace_totals *t = NULL;
	tsr_trace *tr = NULL;
	const char *dir = *state;
	size_t n_threads, n_procs, n, i, worker_t, fw, user;
	uint32_t outer;
	uint64_t outer_ns = 0;
	int status;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		free(make_trace(dir, 300, false));
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	nanosleep(&pause, NULL);
	free(make_trace(dir, 200, true));
	assert_int_equal(tsr_trace_open(&tr, &dir, 1, NULL), TSR_OK);
	assert_int_equal(tsr_trace_get_threads(&threads, &n_threads, tr), TSR_OK);
	assert_int_equal(n_threads, 3);
	worker_t = thread_named(tr, "worker");
	fw = channel_named(tr, "Framework");
	user = channel_named(tr, "TestChan");

	/* What was traced: 5 spans an outer on main, 2 a work on the worker. */
	assert_int_equal(tsr_trace_totals_new(&t, tr, NULL), TSR_OK);
	assert_int_equal(t->spans, (300 + 200) * 5 + WORK_SPANS * 2);
	assert_int_equal(t->threads[worker_t].spans, WORK_SPANS * 2);
	assert_int_equal(tsr_trace_get_processes(&procs, &n_procs, tr), TSR_OK);
	assert_int_equal(n_procs, 2);
	for (i = 0; i < n_threads; i++)
		if (i != worker_t)
			assert_int_equal(t->threads[i].spans,
			                 procs[threads[i].process].n_threads == 1 ? 300 * 5 : 200 * 5);
	assert_int_equal(t->channels[fw].spans, (300 + 200) * 4);
	assert_int_equal(t->channels[user].spans, 300 + 200 + WORK_SPANS * 2);
	/* Everything on a main thread nests in its outers: its busy time is
	 * theirs, which label_stats totals independently. */
	assert_int_equal(tsr_trace_list_label_stats(&s, &n, tr, NULL), TSR_OK);
	outer = name_id(tr, "outer");
	for (i = 0; i < n; i++)
		if (s[i].name == outer)
			outer_ns = s[i].total_ns;
	free(s);
	assert_true(outer_ns > 0);
	assert_int_equal(t->self_ns - t->threads[worker_t].busy_ns, outer_ns);
	tsr_trace_totals_free(t);

	check_totals(tr, NULL);
	for (i = 0; i < n_threads; i++) {
		int64_t len = threads[i].last_ns - threads[i].first_ns;

		o = (tsr_trace_totals_options)TSR_TRACE_TOTALS_OPTIONS_INIT;
		o.thread = (int64_t)i;
		check_totals(tr, &o);
		o.from_ns = threads[i].first_ns + len / 3;
		o.to_ns = o.from_ns + len / 4;
		check_totals(tr, &o);
		/* The same window over every thread. */
		o.thread = -1;
		check_totals(tr, &o);
	}
	/* An empty window: nothing, and first / last 0. */
	o = (tsr_trace_totals_options)TSR_TRACE_TOTALS_OPTIONS_INIT;
	o.from_ns = o.to_ns = tsr_trace_get_info(tr)->end_ns + 1;
	assert_int_equal(tsr_trace_totals_new(&t, tr, &o), TSR_OK);
	assert_int_equal(t->spans, 0);
	for (i = 0; i < n_threads; i++)
		assert_true(t->threads[i].spans == 0 && t->threads[i].first_ns == 0 &&
		            t->threads[i].last_ns == 0);
	tsr_trace_totals_free(t);

	/* Bad options leave *out NULL. */
	t = (tsr_trace_totals *)&o;
	o.thread = (int64_t)n_threads;
	assert_int_equal(tsr_trace_totals_new(&t, tr, &o), TSR_ERR_OUT_OF_RANGE);
	assert_null(t);
	o.thread = -1;
	o.from_ns = 10;
	o.to_ns = 5;
	assert_int_equal(tsr_trace_totals_new(&t, tr, &o), TSR_ERR_INVALID_ARGUMENT);
	o = (tsr_trace_totals_options)TSR_TRACE_TOTALS_OPTIONS_INIT;
	o.version = 99;
	assert_int_equal(tsr_trace_totals_new(&t, tr, &o), TSR_ERR_INVALID_ARGUMENT);
	tsr_trace_totals_free(NULL);
	tsr_trace_free(tr);
}

/* --- Search, counters, instants, metadata ------------------------------------------- */

static void test_search(void **state)
{
	char *path = make_trace(*state, SMALL_OUTERS, true);
	tsr_trace *tr = tsi_test_open_trace(path);
	tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;
	tsr_trace_found *found = NULL;
	uint32_t *ids = NULL;
	uint64_t total = 0;
	size_t n = 0, i;

	assert_int_equal(tsr_trace_list_matching_names(&ids, &n, tr, "nne",
	                                               TSR_TRACE_MATCH_SUBSTRING), TSR_OK);
	assert_int_equal(n, 1);
	assert_string_equal(tsr_trace_get_name(tr, ids[0]), "inner");
	free(ids);
	assert_int_equal(tsr_trace_list_matching_names(&ids, &n, tr, "^(OUTER|leaf)$",
	                                               TSR_TRACE_MATCH_REGEX_ICASE),
	                 TSR_OK);
	assert_int_equal(n, 2);
	free(ids);
	assert_int_equal(tsr_trace_list_matching_names(&ids, &n, tr, "(", TSR_TRACE_MATCH_REGEX),
	                 TSR_ERR_INVALID_ARGUMENT);

	q.pattern = "^(outer|sub)$";
	q.mode = TSR_TRACE_MATCH_REGEX;
	q.limit = 100;
	assert_int_equal(tsr_trace_search(&found, &n, &total, tr, &q), TSR_OK);
	assert_int_equal(total, SMALL_OUTERS + WORK_SPANS);
	assert_int_equal(n, 100);
	for (i = 1; i < n; i++)
		assert_true(found[i - 1].event.start_ns <= found[i].event.start_ns);
	for (i = 0; i < n; i++) {
		const char *name = tsr_trace_get_name(tr, found[i].event.name);

		assert_true(strcmp(name, "outer") == 0 || strcmp(name, "sub") == 0);
	}
	free(found);
	q.pattern = "WORK";
	q.mode = TSR_TRACE_MATCH_SUBSTRING_ICASE;
	q.thread = (int64_t)thread_named(tr, "main");
	assert_int_equal(tsr_trace_search(&found, &n, &total, tr, &q), TSR_OK);
	assert_int_equal(total, 0);
	assert_int_equal(n, 0);
	free(found);
	q.thread = -1;
	q.limit = 0;
	assert_int_equal(tsr_trace_search(&found, &n, &total, tr, &q), TSR_OK);
	assert_int_equal(total, WORK_SPANS);
	assert_int_equal(n, WORK_SPANS);
	free(found);
	q.pattern = "nothing matches this";
	assert_int_equal(tsr_trace_search(&found, &n, &total, tr, &q), TSR_OK);
	assert_int_equal(total, 0);
	free(found);
	tsr_trace_free(tr);
	free(path);
}

/* Samples read straight from the file, for comparing. */
static size_t read_samples(const char *path, int64_t **t, double **v)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t n = 0;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT t_ns, value FROM sample ORDER BY t_ns", -1,
	                                    &st, NULL),
	                 SQLITE_OK);
	*t = malloc(SMALL_OUTERS * sizeof(**t));
	*v = malloc(SMALL_OUTERS * sizeof(**v));
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(n < SMALL_OUTERS);
		(*t)[n] = sqlite3_column_int64(st, 0);
		(*v)[n++] = sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static void test_counters_instants_metadata(void **state)
{
	char *path = make_trace(*state, SMALL_OUTERS, true);
	tsr_trace *tr = tsi_test_open_trace(path);
	const tsr_trace_series *series;
	tsr_trace_counter_bucket *b = NULL;
	tsr_trace_instant *in = NULL;
	tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;
	tsr_trace_found *found = NULL;
	int64_t *t, from, to;
	double *v, before;
	uint64_t total;
	size_t n_series, n, ns = read_samples(path, &t, &v), i, j, main_t = thread_named(tr, "main");
	char *json = NULL;
	uint64_t widths[] = {7, 997, 50000, 1000000, UINT32_MAX};

	/* Counters: every bucket against the samples. */
	assert_int_equal(ns, SMALL_OUTERS);
	assert_int_equal(tsr_trace_get_series(&series, &n_series, tr), TSR_OK);
	assert_int_equal(n_series, 1);
	assert_string_equal(series[0].graph, "loss");
	assert_string_equal(series[0].unit, "%");
	assert_string_equal(series[0].name, "train");
	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		uint64_t count = 0;

		from = t[ns / 10] + 1;
		to = t[ns - 5];
		if ((uint64_t)(to - from) / widths[i] >= (16u << 20))
			continue;
		assert_int_equal(tsr_trace_list_counter_buckets(&b, &n, &before, tr, 0, from, to,
		                                                widths[i]), TSR_OK);
		for (j = ns; t[j - 1] >= from; j--)
			;
		assert_true(v[j - 1] == before);
		for (j = 0; j < n; j++) {
			size_t a = 0, e;
			double mn = INFINITY, mx = -INFINITY;

			while (t[a] < b[j].from_ns)
				a++;
			for (e = a; e < ns && t[e] < b[j].to_ns; e++) {
				mn = fmin(mn, v[e]);
				mx = fmax(mx, v[e]);
			}
			assert_int_equal(b[j].count, e - a);
			assert_true(b[j].min == mn && b[j].max == mx);
			assert_true(b[j].first == v[a] && b[j].last == v[e - 1]);
			assert_true(b[j].from_ns >= from && b[j].to_ns <= to);
			count += b[j].count;
		}
		for (j = 0, total = 0; j < ns; j++)
			total += t[j] >= from && t[j] < to;
		assert_int_equal(count, total);
		free(b);
	}
	assert_int_equal(tsr_trace_list_counter_buckets(&b, &n, NULL, tr, 0, 0, 10,
	                                                0), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_trace_list_counter_buckets(&b, &n, NULL, tr, 1, 0, 10,
	                                                1), TSR_ERR_OUT_OF_RANGE);

	/* Instants. */
	assert_int_equal(tsr_trace_list_instants(&in, &n, tr, -1, INT64_MIN, INT64_MAX, 0), TSR_OK);
	assert_int_equal(n, SMALL_OUTERS / 10);
	for (i = 0; i < n; i++) {
		assert_string_equal(tsr_trace_get_name(tr, in[i].name), "tick");
		assert_int_equal(in[i].thread, main_t);
		assert_int_equal(in[i].depth, 1);
		assert_true(in[i].parent >= 0);
		if (i)
			assert_true(in[i - 1].t_ns <= in[i].t_ns);
	}
	from = in[3].t_ns;
	free(in);
	assert_int_equal(tsr_trace_list_instants(&in, &n, tr, (int64_t)main_t, from, INT64_MAX,
	                                         5), TSR_OK);
	assert_int_equal(n, 5);
	assert_int_equal(in[0].t_ns, from);
	free(in);
	assert_int_equal(tsr_trace_list_instants(&in, &n, tr, (int64_t)thread_named(tr, "worker"),
	                                         INT64_MIN, INT64_MAX, 0),
	                 TSR_OK);
	assert_int_equal(n, 0);
	free(in);

	/* Metadata: the trace's and the sixth outer span's. */
	assert_string_equal(tsr_trace_lookup_metadata(tr, 0, "test.key"), "{\"answer\":42}");
	assert_string_equal(tsr_trace_lookup_metadata(tr, 0, "pvti.complete"), "true");
	assert_null(tsr_trace_lookup_metadata(tr, 0, "no.such.key"));
	q.pattern = "outer";
	q.limit = 6;
	assert_int_equal(tsr_trace_search(&found, &n, &total, tr, &q), TSR_OK);
	assert_int_equal(n, 6);
	assert_int_equal(tsr_trace_dup_event_metadata(&json, tr, main_t, found[5].event.seq), TSR_OK);
	assert_string_equal(json, "{\"step\":5}");
	free(json);
	assert_int_equal(tsr_trace_dup_event_metadata(&json, tr, main_t, found[4].event.seq), TSR_OK);
	assert_null(json);
	free(found);
	free(t);
	free(v);
	tsr_trace_free(tr);
	free(path);
}

/* --- Several files; a crash -------------------------------------------------------- */

/* Two processes, one after the other, in one directory: one axis. */
static void test_two_files(void **state)
{
	const tsr_trace_process *procs;
	const tsr_trace_thread *threads;
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_label_stat *s = NULL;
	struct timespec pause = {0, 20000000};
	tsr_trace *tr = NULL;
	const char *dir = *state;
	size_t n_procs, n_threads, n, i;
	int status;
	pid_t pid = fork();
	char *path;
	uint64_t outers = 0;

	assert_true(pid >= 0);
	if (pid == 0) {
		free(make_trace(dir, 300, false));
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	nanosleep(&pause, NULL);
	path = make_trace(dir, 200, true);
	assert_int_equal(tsr_trace_open(&tr, &dir, 1, NULL), TSR_OK);
	assert_int_equal(tsr_trace_get_processes(&procs, &n_procs, tr), TSR_OK);
	assert_int_equal(n_procs, 2);
	assert_true(procs[0].pid != procs[1].pid);
	assert_true((procs[0].offset_ns == 0) != (procs[1].offset_ns == 0));
	for (i = 0; i < 2; i++) {
		const tsr_trace_process *pr = &procs[i];

		assert_true(pr->complete);
		assert_int_equal(pr->offset_ns, pr->start_wall_ns - tsr_trace_get_info(tr)->origin_wall_ns);
		if (pr->pid == pid)
			assert_int_equal(pr->offset_ns, 0);
		else
			assert_true(pr->offset_ns >= 20000000);
	}
	assert_int_equal(tsr_trace_get_threads(&threads, &n_threads, tr), TSR_OK);
	assert_int_equal(n_threads, 3);
	for (i = 0; i < n_threads; i++) {
		const tsr_trace_process *pr = &procs[threads[i].process];

		assert_true(threads[i].first_ns >= pr->offset_ns);
		assert_true(i >= pr->first_thread && i < pr->first_thread + pr->n_threads);
	}
	/* Names and channels merged: one "outer" with both processes' spans. */
	o.median = false;
	assert_int_equal(tsr_trace_list_label_stats(&s, &n, tr, &o), TSR_OK);
	for (i = 0; i < n; i++)
		if (strcmp(tsr_trace_get_name(tr, s[i].name), "outer") == 0)
			outers += s[i].count;
	assert_int_equal(outers, 500);
	free(s);
	o.median = true;
	assert_int_equal(tsr_trace_list_label_stats(&s, &n, tr, &o), TSR_OK);
	for (i = 0, outers = 0; i < n; i++)
		if (strcmp(tsr_trace_get_name(tr, s[i].name), "outer") == 0)
			outers += s[i].count;
	assert_int_equal(outers, 500);
	free(s);
	tsr_trace_free(tr);
	/* The same two files given as paths. */
	{
		const char *paths[2] = {path, NULL};
		DIR *d = opendir(dir);
		struct dirent *e;
		char other[1024] = "";

		assert_non_null(d);
		while ((e = readdir(d)) != NULL)
			if (strstr(e->d_name, ".pvti") && !strstr(path, e->d_name))
				snprintf(other, sizeof(other), "%s/%s", dir, e->d_name);
		closedir(d);
		paths[1] = other;
		assert_int_equal(tsr_trace_open(&tr, paths, 2, NULL), TSR_OK);
		assert_int_equal(tsr_trace_get_info(tr)->processes, 2);
		assert_int_equal(tsr_trace_get_info(tr)->events, 5 * 500 + 2 * WORK_SPANS);
		tsr_trace_free(tr);
	}
	free(path);
}

/* A child traces LARGE_OUTERS outers of three inners, flushes, says so,
 * keeps tracing; it is killed. */
static void test_crashed(void **state)
{
	const char *dir = *state;
	tsr_trace *tr = NULL;
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	const tsr_trace_thread *threads;
	tsr_trace_item *spans;
	int fds[2], status;
	size_t n_threads, n, i, main_t;
	uint64_t busy = 0;
	pid_t pid;
	char c;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pvti_options opts = PVTI_OPTIONS_INIT;
		pvti_channel *fw = pvti_channel_framework();
		long k;

		close(fds[0]);
		opts.directory = dir;
		if (pvti_open(&opts) != 0)
			_exit(2);
		pvti_thread_set_name("main");
		for (k = 0; k < LARGE_OUTERS; k++) {
			pvti_begin(fw, "outer");
			for (int j = 0; j < 3; j++) {
				pvti_begin(fw, "inner");
				pvti_end(fw);
			}
			pvti_end(fw);
		}
		if (pvti_flush() != 0 || write(fds[1], "x", 1) != 1)
			_exit(3);
		for (;;) {
			pvti_begin(fw, "post");
			pvti_end(fw);
		}
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);

	assert_int_equal(tsr_trace_open(&tr, &dir, 1, NULL), TSR_OK);
	assert_false(tsr_trace_get_info(tr)->complete);
	assert_null(tsr_trace_lookup_metadata(tr, 0, "pvti.complete"));
	assert_int_equal(tsr_trace_get_threads(&threads, &n_threads, tr), TSR_OK);
	main_t = thread_named(tr, "main");
	spans = all_spans(tr, main_t, &n);
	assert_true(n >= 4 * LARGE_OUTERS);
	assert_int_equal(n, threads[main_t].events);
	for (i = 0; i < n; i++)
		if (spans[i].depth == 0)
			busy += (uint64_t)(spans[i].end_ns - spans[i].start_ns);
	/* No timeline_lod: the level of detail comes from the chunks. */
	check_lod(tr, main_t, (uint64_t)(threads[main_t].last_ns - threads[main_t].first_ns) / 500,
	          n, busy, TSR_TRACE_NO_NAME);
	free(spans);
	/* No label_stats: statistics from the chunks, with or without medians. */
	o.median = false;
	check_stats(tr, &o, &main_t, 1, false);
	o.median = true;
	check_stats(tr, &o, &main_t, 1, true);
	tsr_trace_free(tr);
}

/* --- Hostile files ------------------------------------------------------------------ */

/* Runs `sql` on a copy of `good` at `path`. */
static void damaged_copy(const char *good, const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *err = NULL;

	tsi_test_copy_file(good, path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
	sqlite3_close(db);
}

/* A copy of `good` whose first thread has one chunk of `n` outermost
 * spans that all overlap ([0, 1 ms): flags 0, start delta 0, duration
 * 1,000,000 as LEB128), and no timeline_lod, so a coarse query builds the
 * level of detail from that chunk. */
static void overlapping_copy(const char *good, const char *path, size_t n)
{
	static const uint8_t ev[5] = {0x00, 0x00, 0xc0, 0x84, 0x3d};
	uint8_t *blob = malloc(1 + 5 * n);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t i;

	assert_non_null(blob);
	blob[0] = 1;
	for (i = 0; i < n; i++)
		memcpy(blob + 1 + 5 * i, ev, 5);
	damaged_copy(good, path,
	             "DELETE FROM event_chunk; DELETE FROM timeline_lod; UPDATE thread SET events = NULL");
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
	                                    "INSERT INTO event_chunk(thread, first_ns, last_ns, count, "
	                                    "data) VALUES ((SELECT min(id) FROM thread), 0, 1000000, ?, ?)",
	                                    -1, &st, NULL),
	                 SQLITE_OK);
	sqlite3_bind_int64(st, 1, (int64_t)n);
	sqlite3_bind_blob(st, 2, blob, (int)(1 + 5 * n), SQLITE_TRANSIENT);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(blob);
}

/* Opens `path` and reads everything: returns the first error code. */
static int read_all(const char *path)
{
	tsr_trace *tr = NULL;
	tsr_trace_item *items = NULL;
	tsr_trace_label_stat *s = NULL;
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	size_t n, t;
	int rc = tsr_trace_open(&tr, &path, 1, NULL);

	if (rc != TSR_OK) {
		assert_null(tr);
		assert_true(strlen(tsr_last_error()) > 0);
		return rc;
	}
	for (t = 0; t < tsr_trace_get_info(tr)->threads && rc == TSR_OK; t++) {
		rc = tsr_trace_list_events(&items, &n, tr, t, INT64_MIN, INT64_MAX, 0);
		free(items);
		items = NULL;
	}
	if (rc == TSR_OK) {
		o.median = false;
		rc = tsr_trace_list_label_stats(&s, &n, tr, &o);
		free(s);
		s = NULL;
	}
	if (rc == TSR_OK) {
		o.median = true;
		rc = tsr_trace_list_label_stats(&s, &n, tr, &o);
		free(s);
	}
	if (rc != TSR_OK)
		assert_true(strlen(tsr_trace_error(tr)) > 0);
	tsr_trace_free(tr);
	return rc;
}

static void test_hostile(void **state)
{
	char *good = make_trace(*state, SMALL_OUTERS, true);
	char bad[1024];
	FILE *f;
	long size;
	sqlite3 *db = NULL;
	tsr_trace *tr = NULL;
	const char *p = bad;
	int i;

	assert_int_equal(read_all(good), TSR_OK);
	snprintf(bad, sizeof(bad), "%s/bad.pvti", (char *)*state);

	/* No such file; random bytes; an empty file. */
	assert_int_equal(read_all("/nonexistent/x.pvti"), TSR_ERR_NOT_FOUND);
	f = fopen(bad, "wb");
	for (i = 0; i < 10000; i++)
		fputc((i * 7919) & 0xff, f);
	fclose(f);
	assert_int_equal(read_all(bad), TSR_ERR_NOT_SQLITE);
	f = fopen(bad, "wb");
	fclose(f);
	assert_int_equal(read_all(bad), TSR_ERR_NOT_SQLITE);

	/* Truncated to half. */
	tsi_test_copy_file(good, bad);
	f = fopen(bad, "rb+");
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	fclose(f);
	assert_int_equal(truncate(bad, size / 2), 0);
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);

	/* A chunk lying about its count (thread.events still agreeing, so
	 * only the blob tells), up and down. */
	damaged_copy(good, bad,
	             "UPDATE event_chunk SET count = count + 1 WHERE id = (SELECT min(id) FROM "
	             "event_chunk); UPDATE thread SET events = NULL");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	damaged_copy(good, bad,
	             "UPDATE event_chunk SET count = count - 1 WHERE id = (SELECT min(id) FROM "
	             "event_chunk); UPDATE thread SET events = NULL");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	/* The same caught at open by thread.events. */
	damaged_copy(good, bad,
	             "UPDATE event_chunk SET count = count - 1 WHERE id = (SELECT min(id) FROM "
	             "event_chunk)");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	/* A count no blob could hold. */
	damaged_copy(good, bad, "UPDATE event_chunk SET count = 1000000000; UPDATE thread SET events = NULL");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	/* Garbage blobs of every length. */
	for (i = 1; i < 40; i += 3) {
		char sql[256];

		snprintf(sql, sizeof(sql),
		         "UPDATE event_chunk SET data = x'01' || randomblob(%d), count = 1; "
		         "UPDATE thread SET events = NULL",
		         i * 7);
		damaged_copy(good, bad, sql);
		assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	}
	/* A blob whose bytes are flipped. */
	damaged_copy(good, bad,
	             "UPDATE event_chunk SET data = x'02' || substr(data, 2) WHERE id = "
	             "(SELECT max(id) FROM event_chunk)");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	/* Outermost spans that overlap: decoded exactly they are only odd; the
	 * level of detail built from them is refused rather than quadratic. */
	overlapping_copy(good, bad, 300000);
	p = bad;
	assert_int_equal(tsr_trace_open(&tr, &p, 1, NULL), TSR_OK);
	{
		tsr_trace_item *items = NULL;
		size_t n = 0;

		assert_int_equal(tsr_trace_list_events(&items, &n, tr, 0, INT64_MIN, INT64_MAX, 0), TSR_OK);
		assert_int_equal(n, 300000);
		free(items);
		assert_int_equal(tsr_trace_list_events(&items, &n, tr, 0, INT64_MIN, INT64_MAX, 1000),
		                 TSR_ERR_CORRUPT);
		assert_null(items);
	}
	tsr_trace_free(tr);
	tr = NULL;
	/* A name or channel the chunks use is gone. */
	damaged_copy(good, bad, "DELETE FROM string WHERE value = 'inner'");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	damaged_copy(good, bad, "DELETE FROM channel WHERE name = 'TestChan'");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	/* A chunk of a thread that does not exist; a table missing. */
	damaged_copy(good, bad, "UPDATE event_chunk SET thread = 99");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	damaged_copy(good, bad, "DROP TABLE thread");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	/* Lying summaries. */
	damaged_copy(good, bad, "UPDATE label_stats SET self_ns = total_ns + 1");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	damaged_copy(good, bad, "UPDATE thread SET events = events + 1");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	/* A trigger or a view pvti.sql does not define is refused at open
	 * (they would never run, but Tilescope did not write the file). */
	damaged_copy(good, bad, "CREATE VIEW v AS SELECT abs(-9223372036854775807 - 1)");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	damaged_copy(good, bad,
	             "CREATE TRIGGER tg BEFORE DELETE ON string BEGIN SELECT abs(-9223372036854775807 - 1); END");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);
	/* A view standing in for a table is refused, not run. */
	damaged_copy(good, bad,
	             "ALTER TABLE string RENAME TO s2; "
	             "CREATE VIEW string AS SELECT id, upper(value) AS value FROM s2");
	assert_int_equal(read_all(bad), TSR_ERR_CORRUPT);

	/* Other applications and versions. */
	damaged_copy(good, bad, "PRAGMA application_id = 305419896");
	assert_int_equal(read_all(bad), TSR_ERR_NOT_REPORT);
	damaged_copy(good, bad, "PRAGMA application_id = 1414746182"); /* "TSPF": a profile */
	assert_int_equal(read_all(bad), TSR_ERR_NOT_REPORT);
	assert_non_null(strstr(tsr_last_error(), "profile"));
	damaged_copy(good, bad, "PRAGMA user_version = 2");
	assert_int_equal(read_all(bad), TSR_ERR_SCHEMA_TOO_NEW);
	assert_non_null(strstr(tsr_last_error(), "2"));
	damaged_copy(good, bad, "PRAGMA user_version = 0");
	assert_int_equal(read_all(bad), TSR_ERR_SCHEMA_TOO_OLD);
	unlink(bad);
	assert_int_equal(sqlite3_open(bad, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(read_all(bad), TSR_ERR_NOT_REPORT);

	/* A memory cap too small for the trace. */
	{
		tsr_trace_open_options opts = TSR_TRACE_OPEN_OPTIONS_INIT;

		opts.memory_cap = 4096;
		p = good;
		assert_int_equal(tsr_trace_open(&tr, &p, 1, &opts), TSR_ERR_TOO_LARGE);
		assert_null(tr);
	}
	/* A directory without traces; no paths. */
	unlink(bad);
	{
		char empty[1024];

		snprintf(empty, sizeof(empty), "%s/empty", (char *)*state);
		assert_int_equal(mkdir(empty, 0700), 0);
		p = empty;
		assert_int_equal(tsr_trace_open(&tr, &p, 1, NULL), TSR_ERR_NOT_FOUND);
	}
	assert_int_equal(tsr_trace_open(&tr, &p, 0, NULL), TSR_ERR_INVALID_ARGUMENT);
	free(good);
}

/* --- Chrome JSON ------------------------------------------------------------------------ */

static void test_chrome_export(void **state)
{
	char *path = make_trace(*state, SMALL_OUTERS, true);
	tsr_trace *tr = tsi_test_open_trace(path);
	char *text = NULL;
	size_t len = 0, outer_seen = 0;
	FILE *out = open_memstream(&text, &len);
	cJSON *doc, *events, *e;
	long x = 0, inst = 0, counters = 0, pnames = 0, tnames = 0, with_args = 0;
	tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;
	tsr_trace_found *found = NULL;
	uint64_t total;
	size_t n;

	assert_non_null(out);
	assert_int_equal(tsr_trace_export_chrome(out, tr, NULL), TSR_OK);
	fclose(out);
	doc = cJSON_Parse(text);
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(doc, "displayTimeUnit")->valuestring, "ns");
	events = cJSON_GetObjectItem(doc, "traceEvents");
	assert_true(cJSON_IsArray(events));
	q.pattern = "outer";
	q.limit = 1;
	assert_int_equal(tsr_trace_search(&found, &n, &total, tr, &q), TSR_OK);
	cJSON_ArrayForEach(e, events) {
		const char *ph = cJSON_GetObjectItem(e, "ph")->valuestring;

		assert_true(cJSON_IsNumber(cJSON_GetObjectItem(e, "pid")));
		if (strcmp(ph, "X") == 0) {
			const char *name = cJSON_GetObjectItem(e, "name")->valuestring;
			double ts = cJSON_GetObjectItem(e, "ts")->valuedouble;

			x++;
			assert_true(cJSON_GetObjectItem(e, "dur")->valuedouble >= 0);
			assert_non_null(cJSON_GetObjectItem(e, "cat"));
			if (strcmp(name, "outer") == 0 && fabs(ts * 1000.0 - (double)found[0].event.start_ns) < 0.5) {
				assert_close(cJSON_GetObjectItem(e, "dur")->valuedouble * 1000.0,
				             (double)(found[0].event.end_ns - found[0].event.start_ns), 0.5);
				outer_seen++;
			}
			if (cJSON_GetObjectItem(e, "args")) {
				cJSON *meta = cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "metadata");

				assert_int_equal(cJSON_GetObjectItem(meta, "step")->valueint, 5);
				with_args++;
			}
		} else if (strcmp(ph, "i") == 0) {
			assert_string_equal(cJSON_GetObjectItem(e, "name")->valuestring, "tick");
			inst++;
		} else if (strcmp(ph, "C") == 0) {
			assert_string_equal(cJSON_GetObjectItem(e, "name")->valuestring, "loss");
			assert_true(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(e, "args"), "train")));
			counters++;
		} else {
			const char *name = cJSON_GetObjectItem(e, "name")->valuestring;

			assert_string_equal(ph, "M");
			if (strcmp(name, "process_name") == 0)
				pnames++;
			else if (strcmp(name, "thread_name") == 0)
				tnames++;
		}
	}
	assert_int_equal(x, SMALL_OUTERS * 5 + WORK_SPANS * 2);
	assert_int_equal(inst, SMALL_OUTERS / 10);
	assert_int_equal(counters, SMALL_OUTERS);
	assert_int_equal(pnames, 1);
	assert_int_equal(tnames, 2);
	assert_int_equal(with_args, 1);
	assert_int_equal(outer_seen, 1);
	cJSON_Delete(doc);
	free(text);
	free(found);
	tsr_trace_free(tr);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_level_of_detail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_totals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_search, setup, teardown),
		cmocka_unit_test_setup_teardown(test_counters_instants_metadata, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crashed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chrome_export, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
