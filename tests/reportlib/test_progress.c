/*
 * Progress callbacks and cancelling (report.h's tsr_progress_cb): every
 * call that reports gives fractions that start at 0, never go back, stay
 * in [0, 1] and end at exactly 1 on success; a non-zero return stops the
 * call with TSR_ERR_CANCELLED, nothing returned (an open's *out NULL) and
 * the handle still usable; version 1 option structs still open (without
 * progress). Reports come from report-fixture.c, traces are written here
 * with the pvti API; each test has its own temporary directory.
 *
 * Timing: nothing is asserted on a clock. A cancel takes effect "soon"
 * in work, not time: the call that asked to stop is the last one the
 * callback sees. Between part boundaries the library calls the callback
 * at most every 10 ms, so how many calls an open makes depends on the
 * machine's speed; the tests count on the boundaries alone. The time
 * from asking to returning is printed; the figure for a large report is
 * tests/bench/report-open.c's.
 */
#include "report-fixture.h"

#include <tilescope/compare.h>
#include <tilescope/pvti.h>
#include <tilescope/trace.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CALLS 100000

/* What a callback saw, and when to ask to stop. */
typedef struct recorder {
	double fractions[MAX_CALLS];
	size_t n;
	bool bad_message;        /* a NULL or empty message */
	double cancel_at;        /* ask to stop at the first fraction >= this (> 1: never) */
	size_t cancel_call;      /* ... or at this call (0-based; SIZE_MAX: never) */
	bool cancelled;          /* it asked */
	size_t asked_call;       /* at which call it first asked (0-based) */
	struct timespec asked;   /* when it asked */
} recorder;

static void recorder_init(recorder *rec, double cancel_at, size_t cancel_call)
{
	memset(rec, 0, sizeof(*rec));
	rec->cancel_at = cancel_at;
	rec->cancel_call = cancel_call;
}

static int record_cb(double fraction, const char *message, void *user_data)
{
	recorder *rec = user_data;
	size_t call = rec->n;

	if (rec->n < MAX_CALLS)
		rec->fractions[rec->n++] = fraction;
	if (!message || !*message)
		rec->bad_message = true;
	if (fraction >= rec->cancel_at || call == rec->cancel_call) {
		if (!rec->cancelled) {
			rec->asked_call = call;
			clock_gettime(CLOCK_MONOTONIC, &rec->asked);
		}
		rec->cancelled = true;
		return 1;
	}
	return 0;
}

/* Seconds since `t0` (CLOCK_MONOTONIC). */
static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The fractions of one call: from 0, never back, in [0, 1]; ending at 1
 * when `complete`. */
static void check_fractions(const recorder *rec, bool complete)
{
	assert_true(rec->n >= 1);
	assert_false(rec->bad_message);
	assert_true(rec->fractions[0] == 0.0);
	for (size_t i = 0; i < rec->n; i++) {
		assert_true(rec->fractions[i] >= 0.0 && rec->fractions[i] <= 1.0);
		if (i)
			assert_true(rec->fractions[i] >= rec->fractions[i - 1]);
	}
	if (complete)
		assert_true(rec->fractions[rec->n - 1] == 1.0);
	else
		assert_true(rec->fractions[rec->n - 1] < 1.0);
}

static recorder *recorder_new(double cancel_at, size_t cancel_call)
{
	recorder *rec = malloc(sizeof(*rec));

	assert_non_null(rec);
	recorder_init(rec, cancel_at, cancel_call);
	return rec;
}

/* --- Reports ----------------------------------------------------------------- */

/* Opening reports its parts in order and ends at 1. */
static void test_open_progress(void **state)
{
	tsr_fixture *f = *state;
	tsr_open_options o = TSR_OPEN_OPTIONS_INIT;
	recorder *rec = recorder_new(2.0, SIZE_MAX);
	tsr_report *r = NULL;

	o.progress = record_cb;
	o.progress_data = rec;
	assert_int_equal(tsr_report_open(&r, f->report_dir, &o), TSR_OK);
	assert_non_null(r);
	check_fractions(rec, true);
	/* One call per part at least: the header, a dozen tables, the end. */
	assert_true(rec->n >= 12);
	assert_int_equal(tsr_report_get_counts(r)->compute_sets,
	                 tsr_report_get_counts(f->report)->compute_sets);
	/* Calls that do not report leave the callback alone. */
	rec->n = 0;
	{
		const tsr_variable *vars;
		size_t n;

		assert_int_equal(tsr_report_get_variables(&vars, &n, r), TSR_OK);
	}
	assert_int_equal(rec->n, 0);
	tsr_report_free(r);
	free(rec);
}

/* Cancelling half way: TSR_ERR_CANCELLED, *out NULL, and no call of the
 * callback after the one that asked. */
static void test_open_cancel(void **state)
{
	tsr_fixture *f = *state;
	tsr_open_options o = TSR_OPEN_OPTIONS_INIT;
	recorder *rec = recorder_new(0.5, SIZE_MAX);
	tsr_report *r = (tsr_report *)(uintptr_t)1;
	double latency;
	int rc;

	o.progress = record_cb;
	o.progress_data = rec;
	rc = tsr_report_open(&r, f->profile_path, &o);
	latency = since(&rec->asked);
	assert_int_equal(rc, TSR_ERR_CANCELLED);
	assert_null(r);
	assert_true(rec->cancelled);
	assert_int_equal(rec->n, rec->asked_call + 1); /* stopped at once */
	check_fractions(rec, false);
	assert_true(rec->fractions[rec->n - 1] >= 0.5);
	assert_non_null(strstr(tsr_last_error(), "cancelled"));
	assert_non_null(strstr(tsr_last_error(), "profile.pop"));
	print_message("open cancelled at %.2f: returned %.3f ms after the callback asked\n",
	              rec->fractions[rec->n - 1], latency * 1e3);

	/* At the very first call, and at every later one in turn: each stops
	 * the open cleanly (no leak under ASan), and the call that asked is
	 * the last. The calls between part boundaries come by time, so one
	 * open may make fewer than the one before: the loop ends at the first
	 * open that completes, which made at least its boundaries (one per
	 * part: a dozen), and whose last call (1: done) could not cancel. */
	for (size_t call = 0;; call++) {
		recorder_init(rec, 2.0, call);
		rc = tsr_report_open(&r, f->profile_path, &o);
		if (rc == TSR_OK) {
			assert_true(rec->n >= 12 && rec->n <= call + 1);
			assert_true(rec->fractions[rec->n - 1] == 1.0);
			tsr_report_free(r);
			break;
		}
		assert_int_equal(rc, TSR_ERR_CANCELLED);
		assert_null(r);
		assert_int_equal(rec->n, call + 1);
	}
	free(rec);
	assert_string_equal(tsr_error_name(TSR_ERR_CANCELLED), "TSR_ERR_CANCELLED");
}

/* A version 1 options struct (without the progress fields) still opens,
 * and its memory cap still applies. */
static void test_open_options_v1(void **state)
{
	struct v1 {
		unsigned version;
		uint64_t memory_cap;
	} old = {1, 0};
	tsr_fixture *f = *state;
	tsr_report *r = NULL;

	assert_int_equal(tsr_report_open(&r, f->profile_path, (const tsr_open_options *)&old),
	                 TSR_OK);
	assert_non_null(r);
	tsr_report_free(r);
	old.memory_cap = 1024;
	assert_int_equal(tsr_report_open(&r, f->profile_path, (const tsr_open_options *)&old),
	                 TSR_ERR_TOO_LARGE);
	assert_null(r);
	old.version = 0;
	assert_int_equal(tsr_report_open(&r, f->profile_path, (const tsr_open_options *)&old),
	                 TSR_ERR_INVALID_ARGUMENT);
}

/* tsr_compare reports through the base's callback; cancelling leaves no
 * comparison and both reports usable. */
static void test_compare_progress(void **state)
{
	tsr_fixture *f = *state;
	recorder *rec = recorder_new(2.0, SIZE_MAX);
	tsr_comparison *cmp = (tsr_comparison *)(uintptr_t)1;
	tsr_report *other = NULL;
	size_t n;

	assert_int_equal(tsr_report_open(&other, f->profile_path, NULL), TSR_OK);
	assert_int_equal(tsr_report_set_progress(f->report, record_cb, rec), TSR_OK);
	assert_int_equal(tsr_report_set_progress(NULL, record_cb, rec), TSR_ERR_INVALID_ARGUMENT);

	/* Cancelled at the start, and half way (between the two reports). */
	recorder_init(rec, 2.0, 0);
	assert_int_equal(tsr_compare(&cmp, f->report, other, -1, -1), TSR_ERR_CANCELLED);
	assert_null(cmp);
	recorder_init(rec, 0.45, SIZE_MAX);
	assert_int_equal(tsr_compare(&cmp, f->report, other, -1, -1), TSR_ERR_CANCELLED);
	assert_null(cmp);
	check_fractions(rec, false);
	assert_non_null(strstr(tsr_report_error(other), "cancelled"));

	/* Then a whole comparison, the same as without a callback. */
	recorder_init(rec, 2.0, SIZE_MAX);
	assert_int_equal(tsr_compare(&cmp, f->report, other, -1, -1), TSR_OK);
	check_fractions(rec, true);
	n = tsr_comparison_get_count(cmp);
	assert_true(n > 10);
	tsr_comparison_free(cmp);
	assert_int_equal(tsr_report_set_progress(f->report, NULL, NULL), TSR_OK);
	rec->n = 0;
	assert_int_equal(tsr_compare(&cmp, f->report, other, -1, -1), TSR_OK);
	assert_int_equal(tsr_comparison_get_count(cmp), n);
	assert_int_equal(rec->n, 0);
	tsr_comparison_free(cmp);
	tsr_report_free(other);
	free(rec);
}

/* --- Traces ------------------------------------------------------------------- */

/* Open, level of detail, statistics and search: each reports from 0 to
 * 1, each can be cancelled (at its first call: the others come every
 * 10 ms, too late to count on with a trace this small), and the handle
 * answers the same afterwards. */
static void test_trace_progress(void **state)
{
	char *path = tsr_fixture_make_trace(*state, 70000); /* 350,000 spans: past the decode budget */
	const char *paths[1] = {path};
	tsr_trace_open_options o = TSR_TRACE_OPEN_OPTIONS_INIT;
	tsr_trace_stats_options so = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;
	recorder *rec = recorder_new(2.0, SIZE_MAX);
	tsr_trace *tr = (tsr_trace *)(uintptr_t)1;
	tsr_trace_label_stat *stats = NULL;
	tsr_trace_found *found = NULL;
	tsr_trace_item *items = NULL;
	const tsr_trace_info *info;
	uint64_t total = 0, res;
	size_t n = 0, n_stats;

	o.progress = record_cb;
	o.progress_data = rec;
	/* Open, cancelled half way then at its first call. */
	recorder_init(rec, 0.5, SIZE_MAX);
	assert_int_equal(tsr_trace_open(&tr, paths, 1, &o), TSR_ERR_CANCELLED);
	assert_null(tr);
	check_fractions(rec, false);
	assert_non_null(strstr(tsr_last_error(), "cancelled"));
	recorder_init(rec, 2.0, 0);
	assert_int_equal(tsr_trace_open(&tr, paths, 1, &o), TSR_ERR_CANCELLED);
	assert_null(tr);
	/* A version 1 struct: no progress. */
	o.version = 1;
	rec->n = 0;
	assert_int_equal(tsr_trace_open(&tr, paths, 1, &o), TSR_OK);
	assert_int_equal(rec->n, 0);
	tsr_trace_free(tr);
	o.version = TSR_TRACE_OPEN_OPTIONS_VERSION;
	recorder_init(rec, 2.0, SIZE_MAX);
	assert_int_equal(tsr_trace_open(&tr, paths, 1, &o), TSR_OK);
	check_fractions(rec, true);
	info = tsr_trace_get_info(tr);
	assert_int_equal(info->events, 350000);

	/* The level of detail built from the chunks: a pixel of span / 8000
	 * is finer than the file's (as in test_trace.c). */
	res = (uint64_t)(info->end_ns - info->start_ns) / 8000;
	recorder_init(rec, 2.0, 0);
	assert_int_equal(tsr_trace_list_events(&items, &n, tr, 0, INT64_MIN, INT64_MAX, res),
	                 TSR_ERR_CANCELLED);
	assert_null(items);
	assert_int_equal(rec->n, 1);
	recorder_init(rec, 2.0, SIZE_MAX);
	assert_int_equal(tsr_trace_list_events(&items, &n, tr, 0, INT64_MIN, INT64_MAX, res), TSR_OK);
	check_fractions(rec, true);
	assert_true(n > 0 && items[0].kind == TSR_TRACE_ITEM_SUMMARY);
	free(items);
	/* Built once: the next query does not report. */
	rec->n = 0;
	assert_int_equal(tsr_trace_list_events(&items, &n, tr, 0, INT64_MIN, INT64_MAX, res), TSR_OK);
	assert_int_equal(rec->n, 0);
	free(items);

	/* Statistics from the chunks (medians). */
	recorder_init(rec, 2.0, 0);
	assert_int_equal(tsr_trace_list_label_stats(&stats, &n_stats, tr, &so), TSR_ERR_CANCELLED);
	assert_null(stats);
	assert_non_null(strstr(tsr_trace_error(tr), "cancelled"));
	recorder_init(rec, 2.0, SIZE_MAX);
	assert_int_equal(tsr_trace_list_label_stats(&stats, &n_stats, tr, &so), TSR_OK);
	check_fractions(rec, true);
	assert_int_equal(n_stats, 3);
	free(stats);

	/* Search. */
	q.pattern = "needle";
	recorder_init(rec, 2.0, 0);
	assert_int_equal(tsr_trace_search(&found, &n, &total, tr, &q), TSR_ERR_CANCELLED);
	assert_null(found);
	assert_int_equal(tsr_trace_set_progress(tr, record_cb, rec), TSR_OK);
	recorder_init(rec, 2.0, SIZE_MAX);
	assert_int_equal(tsr_trace_search(&found, &n, &total, tr, &q), TSR_OK);
	check_fractions(rec, true);
	assert_int_equal(total, 70000);
	free(found);
	/* Removed: not called any more. */
	assert_int_equal(tsr_trace_set_progress(tr, NULL, NULL), TSR_OK);
	assert_int_equal(tsr_trace_set_progress(NULL, NULL, NULL), TSR_ERR_INVALID_ARGUMENT);
	rec->n = 0;
	assert_int_equal(tsr_trace_search(&found, &n, &total, tr, &q), TSR_OK);
	assert_int_equal(rec->n, 0);
	free(found);

	tsr_trace_free(tr);
	free(path);
	free(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_open_progress, tsr_fixture_new_matmul,
		                                tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_open_cancel, tsr_fixture_new_matmul,
		                                tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_open_options_v1, tsr_fixture_new_matmul,
		                                tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_compare_progress, tsr_fixture_new_matmul,
		                                tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_trace_progress, tsr_fixture_trace_dir_new, tsr_fixture_trace_dir_delete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
