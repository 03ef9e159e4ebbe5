/*
 * The thread contract of report.h: different handles may be used at the
 * same time from different threads, also on the same file, and give what
 * one thread alone gets; tsr_last_error() is per thread. Run under TSan
 * as well as ASan (see the report of the branch that added it).
 *
 * What is checked:
 *   - two threads each opening the same profile.pop and querying it at
 *     once (summary JSON, operations, a comparison with itself) get the
 *     single-thread answers; so do two threads each opening the same .pvti
 *     and computing statistics and searching;
 *   - a report handle opened in one thread and used in another (one at a
 *     time) answers the same;
 *   - a failed open in one thread leaves its message in that thread only.
 */
#include "report-fixture.h"

#include <tilescope/compare.h>
#include <tilescope/pvti.h>
#include <tilescope/summary.h>
#include <tilescope/trace.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 2
#define ROUNDS 3

/* --- Reports ------------------------------------------------------------------ */

/* What one pass of queries over a report gives, as one malloc'd string:
 * the summary JSON with every part, the operations and a comparison of
 * the report with itself. NULL on any failure. */
static char *report_digest(tsr_report *r)
{
	tsr_summary_options so = TSR_SUMMARY_OPTIONS_INIT;
	tsr_comparison *cmp = NULL;
	tsr_operation *ops = NULL;
	char *json = NULL, *out = NULL;
	size_t n_ops = 0, n_deltas = 0;
	uint64_t sum = 0;

	so.show_var_storage = true;
	so.show_execution_steps = true;
	so.show_per_ipu_memory = true;
	so.colours = TSR_COLOURS_NEVER;
	if (tsr_summary_dup_json(&json, r, &so) != TSR_OK)
		goto cleanup;
	if (tsr_report_list_operations(&ops, &n_ops, r, -1) != TSR_OK)
		goto cleanup;
	for (size_t i = 0; i < n_ops; i++)
		sum += ops[i].variable_bytes + ops[i].vertex_bytes;
	if (tsr_compare(&cmp, r, r, -1, -1) != TSR_OK)
		goto cleanup;
	n_deltas = tsr_comparison_get_count(cmp);
	for (size_t i = 0; i < n_deltas; i++)
		sum += tsr_comparison_get_delta(cmp, i)->base;
	if (asprintf(&out, "%s\n%zu %zu %llu", json, n_ops, n_deltas, (unsigned long long)sum) < 0)
		out = NULL;
cleanup:
	free(json);
	free(ops);
	tsr_comparison_free(cmp);
	return out;
}

typedef struct report_job {
	const char *path;
	pthread_barrier_t *start;
	char *digest[ROUNDS]; /* what each round gave */
	int rc;
} report_job;

/* Opens the report and queries it ROUNDS times, starting with the others. */
static void *report_worker(void *arg)
{
	report_job *job = arg;

	pthread_barrier_wait(job->start);
	for (int k = 0; k < ROUNDS; k++) {
		tsr_report *r = NULL;

		job->rc = tsr_report_open(&r, job->path, NULL);
		if (job->rc)
			break;
		job->digest[k] = report_digest(r);
		tsr_report_free(r);
	}
	return NULL;
}

/* Two threads on one file at once: each gets the single-thread answer. */
static void test_same_report(void **state)
{
	tsr_fixture *f = *state;
	char *alone = report_digest(f->report);
	pthread_barrier_t start;
	pthread_t th[THREADS];
	report_job jobs[THREADS];

	assert_non_null(alone);
	assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (int i = 0; i < THREADS; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].path = f->report_dir;
		jobs[i].start = &start;
		assert_int_equal(pthread_create(&th[i], NULL, report_worker, &jobs[i]), 0);
	}
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < THREADS; i++) {
		assert_int_equal(jobs[i].rc, TSR_OK);
		for (int k = 0; k < ROUNDS; k++) {
			assert_non_null(jobs[i].digest[k]);
			assert_string_equal(jobs[i].digest[k], alone);
			free(jobs[i].digest[k]);
		}
	}
	free(alone);
}

typedef struct handoff_job {
	tsr_report *r;
	char *digest;
} handoff_job;

static void *handoff_worker(void *arg)
{
	handoff_job *job = arg;

	job->digest = report_digest(job->r);
	return NULL;
}

/* A handle opened here and used by another thread, then by a third (one
 * at a time): the same answers as a fresh handle used here. */
static void test_handoff(void **state)
{
	tsr_fixture *f = *state;
	handoff_job job = {NULL, NULL};
	tsr_report *fresh = NULL;
	char *alone;
	pthread_t th;

	assert_int_equal(tsr_report_open(&job.r, f->profile_path, NULL), TSR_OK);
	assert_int_equal(tsr_report_open(&fresh, f->profile_path, NULL), TSR_OK);
	alone = report_digest(fresh);
	assert_non_null(alone);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(pthread_create(&th, NULL, handoff_worker, &job), 0);
		assert_int_equal(pthread_join(th, NULL), 0);
		assert_non_null(job.digest);
		assert_string_equal(job.digest, alone);
		free(job.digest);
		job.digest = NULL;
	}
	tsr_report_free(job.r);
	tsr_report_free(fresh);
	free(alone);
}

/* --- Errors ------------------------------------------------------------------- */

typedef struct error_job {
	const char *bad_path;      /* opened to fail, or NULL */
	const char *good_path;
	pthread_barrier_t *step;
	char seen_before[512];     /* tsr_last_error() after the other's failure */
	char seen_after[512];      /* after its own */
	int rc;
} error_job;

/*
 * Thread "bad" fails an open while thread "good" has succeeded; then
 * "good" looks at its last error (must not be the other's), and fails an
 * open of its own, after which "bad" looks at its (must still be its own).
 */
static void *error_worker(void *arg)
{
	error_job *job = arg;
	tsr_report *r = NULL;

	if (job->bad_path) {
		job->rc = tsr_report_open(&r, job->bad_path, NULL);
		pthread_barrier_wait(job->step); /* 1: failed */
		pthread_barrier_wait(job->step); /* 2: the other failed too */
		snprintf(job->seen_after, sizeof(job->seen_after), "%s", tsr_last_error());
	} else {
		job->rc = tsr_report_open(&r, job->good_path, NULL);
		tsr_report_free(r);
		pthread_barrier_wait(job->step); /* 1 */
		snprintf(job->seen_before, sizeof(job->seen_before), "%s", tsr_last_error());
		r = (tsr_report *)(uintptr_t)1;
		if (tsr_report_open(&r, "/nonexistent/tilescope-thread-b.pop", NULL) != TSR_ERR_NOT_FOUND)
			job->rc = -100;
		snprintf(job->seen_after, sizeof(job->seen_after), "%s", tsr_last_error());
		pthread_barrier_wait(job->step); /* 2 */
	}
	return NULL;
}

static void test_error_per_thread(void **state)
{
	tsr_fixture *f = *state;
	pthread_barrier_t step;
	pthread_t th[2];
	char bad[700];
	error_job bad_job, good_job;

	snprintf(bad, sizeof(bad), "%s/tilescope-thread-a.pop", f->dir);
	memset(&bad_job, 0, sizeof(bad_job));
	memset(&good_job, 0, sizeof(good_job));
	assert_int_equal(pthread_barrier_init(&step, NULL, 2), 0);
	bad_job.bad_path = bad;
	bad_job.step = &step;
	good_job.good_path = f->profile_path;
	good_job.step = &step;
	assert_int_equal(pthread_create(&th[0], NULL, error_worker, &bad_job), 0);
	assert_int_equal(pthread_create(&th[1], NULL, error_worker, &good_job), 0);
	assert_int_equal(pthread_join(th[0], NULL), 0);
	assert_int_equal(pthread_join(th[1], NULL), 0);
	pthread_barrier_destroy(&step);

	assert_int_equal(bad_job.rc, TSR_ERR_NOT_FOUND);
	assert_int_equal(good_job.rc, TSR_OK);
	/* The good thread never saw the bad one's message ... */
	assert_null(strstr(good_job.seen_before, "thread-a"));
	assert_string_equal(good_job.seen_before, "");
	assert_non_null(strstr(good_job.seen_after, "thread-b"));
	/* ... and its own failure did not replace the bad one's. */
	assert_non_null(strstr(bad_job.seen_after, "thread-a"));
	assert_null(strstr(bad_job.seen_after, "thread-b"));
	/* Nor does either show in this thread. */
	assert_null(strstr(tsr_last_error(), "thread-"));
}

/* --- Traces ------------------------------------------------------------------- */

/* Statistics (with medians, from the chunks) and a search, as a string. */
static char *trace_digest(const char *path)
{
	tsr_trace_stats_options so = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;
	tsr_trace_label_stat *stats = NULL;
	tsr_trace_found *found = NULL;
	tsr_trace *tr = NULL;
	char *out = NULL, line[200];
	size_t n = 0, n_found = 0, len = 0;
	uint64_t total = 0;

	if (tsr_trace_open(&tr, &path, 1, NULL) != TSR_OK)
		return NULL;
	q.pattern = "needle";
	q.limit = 10;
	if (tsr_trace_list_label_stats(&stats, &n, tr, &so) != TSR_OK ||
	    tsr_trace_search(&found, &n_found, &total, tr, &q) != TSR_OK)
		goto cleanup;
	out = calloc(1, (n + n_found + 1) * sizeof(line));
	if (!out)
		goto cleanup;
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, sizeof(line), "%s %llu %llu %llu %llu\n",
		                        tsr_trace_get_name(tr, stats[i].name),
		                        (unsigned long long)stats[i].count,
		                        (unsigned long long)stats[i].total_ns,
		                        (unsigned long long)stats[i].self_ns,
		                        (unsigned long long)stats[i].median_ns);
	for (size_t i = 0; i < n_found; i++)
		len += (size_t)snprintf(out + len, sizeof(line), "%lld %lld\n",
		                        (long long)found[i].event.seq,
		                        (long long)found[i].event.start_ns);
	snprintf(out + len, sizeof(line), "%llu\n", (unsigned long long)total);
cleanup:
	free(stats);
	free(found);
	tsr_trace_free(tr);
	return out;
}

typedef struct trace_job {
	const char *path;
	pthread_barrier_t *start;
	char *digest[ROUNDS];
} trace_job;

static void *trace_worker(void *arg)
{
	trace_job *job = arg;

	pthread_barrier_wait(job->start);
	for (int k = 0; k < ROUNDS; k++)
		job->digest[k] = trace_digest(job->path);
	return NULL;
}

/* Two threads on one trace at once: each gets the single-thread answer. */
static void test_same_trace(void **state)
{
	char *path = tsr_fixture_make_trace(*state, 5000);
	char *alone = trace_digest(path);
	pthread_barrier_t start;
	pthread_t th[THREADS];
	trace_job jobs[THREADS];

	assert_non_null(alone);
	assert_non_null(strstr(alone, "needle 5000 "));
	assert_int_equal(pthread_barrier_init(&start, NULL, THREADS), 0);
	for (int i = 0; i < THREADS; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].path = path;
		jobs[i].start = &start;
		assert_int_equal(pthread_create(&th[i], NULL, trace_worker, &jobs[i]), 0);
	}
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	pthread_barrier_destroy(&start);
	for (int i = 0; i < THREADS; i++)
		for (int k = 0; k < ROUNDS; k++) {
			assert_non_null(jobs[i].digest[k]);
			assert_string_equal(jobs[i].digest[k], alone);
			free(jobs[i].digest[k]);
		}
	free(alone);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_same_report, tsr_fixture_new_matmul,
		                                tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_handoff, tsr_fixture_new_matmul,
		                                tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_error_per_thread, tsr_fixture_new_oom,
		                                tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_same_trace, tsr_fixture_trace_dir_new, tsr_fixture_trace_dir_delete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
