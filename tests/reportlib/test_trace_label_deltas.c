/*
 * Comparing two traces' statistics by label (trace.h,
 * tsr_trace_list_label_deltas). The traces are made here with the pvti API,
 * each in its own directory: A has a "main" thread of 10 "outer" spans
 * (each with three "inner" ones, the middle one holding a "leaf" on
 * TestChan) and a "worker" thread of "work" spans holding a "sub"; B has
 * 25 outers and no worker.
 *
 * What is checked:
 *   - every label of either side is listed once, with both sides'
 *     statistics exactly as tsr_trace_list_label_stats gave them, the
 *     right in_a / in_b, deltas B - A and the percentage of A's total;
 *   - the order: |delta total| never grows down the list;
 *   - a trace against itself: every delta zero;
 *   - two windows of one trace: the counts of the two halves add up to
 *     the whole trace's;
 *   - a label listed twice, a name id the trace does not have and NULL
 *     arguments give their error codes and a message.
 */
#include "test-util.h"

#include <tilescope/pvti.h>
#include <tilescope/trace.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WORK_SPANS 200

static void *worker_main(void *arg)
{
	pvti_channel *ch = pvti_channel_new("TestChan");

	(void)arg;
	pvti_thread_set_name("worker");
	for (int i = 0; i < WORK_SPANS; i++) {
		pvti_begin(ch, "work");
		pvti_begin(ch, "sub");
		pvti_end(ch);
		pvti_end(ch);
	}
	return NULL;
}

/* Traces `outers` outer spans (and the worker when `worker`) into a new
 * directory `sub` of `dir`; returns the directory (caller frees). */
static char *make_trace(const char *dir, const char *sub, int outers, bool worker)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *fw = pvti_channel_framework(), *user = pvti_channel_new("TestChan");
	char *path = NULL;
	pthread_t th;

	assert_true(asprintf(&path, "%s/%s", dir, sub) > 0);
	assert_int_equal(mkdir(path, 0700), 0);
	opts.directory = path;
	assert_int_equal(pvti_open(&opts), 0);
	assert_int_equal(pvti_thread_set_name("main"), 0);
	if (worker)
		assert_int_equal(pthread_create(&th, NULL, worker_main, NULL), 0);
	for (int i = 0; i < outers; i++) {
		pvti_begin(fw, "outer");
		for (int j = 0; j < 3; j++) {
			pvti_begin(fw, "inner");
			if (j == 1) {
				pvti_begin(user, "leaf");
				pvti_end(user);
			}
			pvti_end(fw);
		}
		pvti_end(fw);
	}
	if (worker)
		assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(pvti_close(), 0);
	return path;
}

static tsr_trace *open_dir(const char *dir)
{
	tsr_trace *tr = NULL;

	assert_int_equal(tsr_trace_open(&tr, &dir, 1, NULL), TSR_OK);
	return tr;
}

/* The statistics of [from, to) with medians, as the apps ask for them. */
static tsr_trace_label_stat *stats_of(tsr_trace *tr, int64_t from, int64_t to, size_t *n)
{
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_label_stat *s = NULL;

	o.from_ns = from;
	o.to_ns = to;
	assert_int_equal(tsr_trace_list_label_stats(&s, n, tr, &o), TSR_OK);
	return s;
}

/* The row of `name`, or NULL. */
static const tsr_trace_label_delta *row_named(const tsr_trace_label_delta *d, size_t n,
                                              const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(d[i].name, name) == 0)
			return &d[i];
	return NULL;
}

/* The label of `name` in s[0..n), or NULL. */
static const tsr_trace_label_stat *stat_named(tsr_trace *tr, const tsr_trace_label_stat *s,
                                              size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(tsr_trace_get_name(tr, s[i].name), name) == 0)
			return &s[i];
	return NULL;
}

static void assert_same_stat(const tsr_trace_label_stat *x, const tsr_trace_label_stat *y)
{
	assert_int_equal(x->count, y->count);
	assert_int_equal(x->total_ns, y->total_ns);
	assert_int_equal(x->self_ns, y->self_ns);
	assert_int_equal(x->min_ns, y->min_ns);
	assert_int_equal(x->max_ns, y->max_ns);
	assert_int_equal(x->median_ns, y->median_ns);
	assert_true(x->mean_ns == y->mean_ns);
}

static void test_two_traces(void **state)
{
	const char *dir = *state;
	char *da = make_trace(dir, "a", 10, true), *db = make_trace(dir, "b", 25, false);
	tsr_trace *a = open_dir(da), *b = open_dir(db);
	size_t n_a, n_b, n;
	tsr_trace_label_stat *sa = stats_of(a, INT64_MIN, INT64_MAX, &n_a);
	tsr_trace_label_stat *sb = stats_of(b, INT64_MIN, INT64_MAX, &n_b);
	tsr_trace_label_delta *d = NULL;
	static const char *const names[] = {"outer", "inner", "leaf", "work", "sub"};

	assert_int_equal(n_a, 5);
	assert_int_equal(n_b, 3);
	assert_int_equal(tsr_trace_list_label_deltas(&d, &n, a, sa, n_a, b, sb, n_b), TSR_OK);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < 5; i++) {
		const tsr_trace_label_delta *r = row_named(d, n, names[i]);
		const tsr_trace_label_stat *x = stat_named(a, sa, n_a, names[i]);
		const tsr_trace_label_stat *y = stat_named(b, sb, n_b, names[i]);

		assert_non_null(r);
		assert_string_equal(r->channel, i < 2 ? "Framework" : "TestChan");
		assert_int_equal(r->in_a, x != NULL);
		assert_int_equal(r->in_b, y != NULL);
		if (x)
			assert_same_stat(&r->a, x);
		else
			assert_int_equal(r->a.count, 0);
		if (y)
			assert_same_stat(&r->b, y);
		else
			assert_int_equal(r->b.count, 0);
		assert_int_equal(r->delta_count, (int64_t)r->b.count - (int64_t)r->a.count);
		assert_int_equal(r->delta_total_ns, (int64_t)r->b.total_ns - (int64_t)r->a.total_ns);
		assert_int_equal(r->delta_self_ns, (int64_t)r->b.self_ns - (int64_t)r->a.self_ns);
		assert_int_equal(r->delta_median_ns, (int64_t)r->b.median_ns - (int64_t)r->a.median_ns);
		assert_true(r->delta_mean_ns == r->b.mean_ns - r->a.mean_ns);
		if (r->a.total_ns)
			assert_true(fabs(r->delta_total_pct - 100.0 * (double)r->delta_total_ns /
			                                          (double)r->a.total_ns) < 1e-9);
		else
			assert_true(isnan(r->delta_total_pct));
	}
	/* What was traced: B has 15 more outers, 45 more inners; no work. */
	assert_int_equal(row_named(d, n, "outer")->delta_count, 15);
	assert_int_equal(row_named(d, n, "inner")->delta_count, 45);
	assert_int_equal(row_named(d, n, "work")->delta_count, -WORK_SPANS);
	assert_false(row_named(d, n, "work")->in_b);
	assert_true(row_named(d, n, "work")->delta_total_pct == -100.0);
	for (size_t i = 1; i < n; i++)
		assert_true(llabs(d[i - 1].delta_total_ns) >= llabs(d[i].delta_total_ns));
	free(d);

	/* The other way round: only-in-B labels, and the signs flip. */
	assert_int_equal(tsr_trace_list_label_deltas(&d, &n, b, sb, n_b, a, sa, n_a), TSR_OK);
	assert_int_equal(n, 5);
	assert_false(row_named(d, n, "sub")->in_a);
	assert_true(row_named(d, n, "sub")->in_b);
	assert_true(isnan(row_named(d, n, "sub")->delta_total_pct));
	assert_int_equal(row_named(d, n, "outer")->delta_count, -15);
	free(d);

	/* A trace against itself: nothing moved. */
	assert_int_equal(tsr_trace_list_label_deltas(&d, &n, a, sa, n_a, a, sa, n_a), TSR_OK);
	assert_int_equal(n, n_a);
	for (size_t i = 0; i < n; i++) {
		assert_true(d[i].in_a && d[i].in_b);
		assert_int_equal(d[i].delta_total_ns, 0);
		assert_int_equal(d[i].delta_count, 0);
		assert_true(d[i].delta_total_pct == 0.0);
	}
	free(d);
	free(sa);
	free(sb);
	tsr_trace_free(a);
	tsr_trace_free(b);
	free(da);
	free(db);
}

static void test_two_windows(void **state)
{
	const char *dir = *state;
	char *da = make_trace(dir, "a", 40, true);
	tsr_trace *a = open_dir(da);
	const tsr_trace_info *info = tsr_trace_get_info(a);
	int64_t mid = info->start_ns + (info->end_ns - info->start_ns) / 2;
	size_t n_all, n_1, n_2, n;
	tsr_trace_label_stat *all = stats_of(a, INT64_MIN, INT64_MAX, &n_all);
	tsr_trace_label_stat *s1 = stats_of(a, INT64_MIN, mid, &n_1);
	tsr_trace_label_stat *s2 = stats_of(a, mid, INT64_MAX, &n_2);
	tsr_trace_label_delta *d = NULL;

	assert_int_equal(tsr_trace_list_label_deltas(&d, &n, a, s1, n_1, a, s2, n_2), TSR_OK);
	assert_int_equal(n, n_all);
	for (size_t i = 0; i < n_all; i++) {
		const char *name = tsr_trace_get_name(a, all[i].name);
		const tsr_trace_label_delta *r = row_named(d, n, name);

		assert_non_null(r);
		assert_int_equal(r->a.count + r->b.count, all[i].count);
		assert_int_equal(r->a.total_ns + r->b.total_ns, all[i].total_ns);
		assert_int_equal(r->in_a, r->a.count > 0);
		assert_int_equal(r->in_b, r->b.count > 0);
	}
	free(d);
	free(all);
	free(s1);
	free(s2);
	tsr_trace_free(a);
	free(da);
}

static void test_bad_input(void **state)
{
	const char *dir = *state;
	char *da = make_trace(dir, "a", 5, false);
	tsr_trace *a = open_dir(da);
	size_t n_a, n = 7;
	tsr_trace_label_stat *sa = stats_of(a, INT64_MIN, INT64_MAX, &n_a);
	tsr_trace_label_stat twice[2], bad;
	tsr_trace_label_delta *d = (tsr_trace_label_delta *)1;

	assert_true(n_a >= 1);
	twice[0] = twice[1] = sa[0];
	assert_int_equal(tsr_trace_list_label_deltas(&d, &n, a, twice, 2, a, sa, n_a),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_null(d);
	assert_int_equal(n, 0);
	assert_non_null(strstr(tsr_trace_error(a), "twice"));
	bad = sa[0];
	bad.name = 1000000;
	assert_int_equal(tsr_trace_list_label_deltas(&d, &n, a, sa, n_a, a, &bad, 1),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_non_null(strstr(tsr_last_error(), "trace B"));
	bad = sa[0];
	bad.channel = 1000;
	assert_int_equal(tsr_trace_list_label_deltas(&d, &n, a, &bad, 1, a, sa, n_a),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_trace_list_label_deltas(&d, &n, a, NULL, 3, a, sa, n_a),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_trace_list_label_deltas(&d, &n, NULL, sa, n_a, a, sa, n_a),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_trace_list_label_deltas(NULL, &n, a, sa, n_a, a, sa, n_a),
	                 TSR_ERR_INVALID_ARGUMENT);
	/* Nothing on either side: an empty answer, not an error. */
	assert_int_equal(tsr_trace_list_label_deltas(&d, &n, a, NULL, 0, a, NULL, 0), TSR_OK);
	assert_int_equal(n, 0);
	free(d);
	free(sa);
	tsr_trace_free(a);
	free(da);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_two_traces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_windows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
