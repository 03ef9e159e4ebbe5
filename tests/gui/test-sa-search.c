/*
 * The search bar's queries (sa-search-job.h) without a window, against
 * tsr_trace_search on the same trace: a trace written here with the pvti
 * API over four threads (steps of "op"s and "kernel"s, and a rare
 * "Checkpoint"), and tutorial 5's sample trace. For each pattern and
 * mode, the count equals tsr_trace_search's total, Next from nothing
 * then from each hit visits every hit in tsr_trace_search's order and
 * then finds none, Previous visits them in reverse; a bad expression is
 * TSR_ERR_INVALID_ARGUMENT with regcomp's message; nothing matching
 * counts 0 and finds nothing.
 */
#include "sa-search-job.h"

#include <tilescope/pvti.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test-util.h"

#include <glib/gstdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define TRACE SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti"

static void *writer(void *arg)
{
	pvti_channel *fw = pvti_channel_framework();
	long index = (long)(intptr_t)arg;
	char name[32];

	snprintf(name, sizeof(name), "worker %ld", index);
	pvti_thread_set_name(name);
	for (long i = 0; i < 400; i++) {
		if (i % 150 == 7 + index) {
			pvti_begin(fw, "Checkpoint");
			pvti_end(fw);
		}
		pvti_begin(fw, "step");
		for (int j = 0; j < 4; j++) {
			pvti_begin(fw, "op");
			if (j == 2) {
				pvti_begin(fw, "kernel");
				pvti_end(fw);
			}
			pvti_end(fw);
		}
		pvti_end(fw);
	}
	return NULL;
}

static char *make_trace(const char *dir)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pthread_t th[4];
	char *path;

	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	for (long t = 0; t < 4; t++)
		assert_int_equal(pthread_create(&th[t], NULL, writer, (void *)(intptr_t)t), 0);
	for (int t = 0; t < 4; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	assert_int_equal(pvti_close(), 0);
	return path;
}

static gboolean same_hit(const tsr_trace_found *a, const tsr_trace_found *b)
{
	return a->thread == b->thread && a->event.seq == b->event.seq &&
	       a->event.start_ns == b->event.start_ns && a->event.name == b->event.name;
}

/* Checks one pattern against tsr_trace_search's full answer. */
static void check_pattern(tsr_trace *tr, const char *pattern, tsr_trace_match mode)
{
	tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;
	tsr_trace_found *all = NULL, hit, prev;
	uint64_t total = 0, ref_total = 0;
	size_t names = 0, n = 0, i;
	gboolean found;

	q.pattern = pattern;
	q.mode = mode;
	q.limit = 100000;
	assert_int_equal(tsr_trace_search(&all, &n, &ref_total, tr, &q), TSR_OK);
	assert_int_equal(n, ref_total);
	assert_int_equal(sa_search_count(&total, &names, tr, pattern, mode), TSR_OK);
	assert_int_equal(total, ref_total);
	assert_true(names > 0 || total == 0);
	/* Forward through every hit, then nothing. */
	assert_int_equal(sa_search_step(&hit, &found, tr, pattern, mode, NULL, TRUE, total), TSR_OK);
	for (i = 0; i < n; i++) {
		if (!found || !same_hit(&hit, &all[i]))
			fail_msg("'%s': Next number %zu of %zu is not tsr_trace_search's", pattern, i + 1, n);
		prev = hit;
		assert_int_equal(sa_search_step(&hit, &found, tr, pattern, mode, &prev, TRUE, total),
		                 TSR_OK);
	}
	assert_false(found);
	/* Backward from the end through every hit, then nothing. */
	assert_int_equal(sa_search_step(&hit, &found, tr, pattern, mode, NULL, FALSE, total),
	                 TSR_OK);
	for (i = n; i-- > 0;) {
		if (!found || !same_hit(&hit, &all[i]))
			fail_msg("'%s': Previous to number %zu of %zu is not tsr_trace_search's", pattern,
			         i + 1, n);
		prev = hit;
		assert_int_equal(sa_search_step(&hit, &found, tr, pattern, mode, &prev, FALSE, total),
		                 TSR_OK);
	}
	assert_false(found);
	free(all);
}

static void test_synthetic(void **state)
{
	char *dir = g_dir_make_tmp("sa-search-XXXXXX", NULL);
	char *path;
	tsr_trace *tr;
	uint64_t total = 7;
	size_t names = 7;
	tsr_trace_found hit;
	gboolean found = TRUE;

	(void)state;
	assert_non_null(dir);
	path = make_trace(dir);
	tr = tsi_test_open_trace(path);
	check_pattern(tr, "Checkpoint", TSR_TRACE_MATCH_SUBSTRING);
	check_pattern(tr, "checkpoint", TSR_TRACE_MATCH_SUBSTRING_ICASE);
	check_pattern(tr, "^(kernel|Check)", TSR_TRACE_MATCH_REGEX);
	check_pattern(tr, "STEP", TSR_TRACE_MATCH_REGEX_ICASE);
	check_pattern(tr, "o", TSR_TRACE_MATCH_SUBSTRING);
	/* Case counts: "checkpoint" matches nothing with case. */
	assert_int_equal(sa_search_count(&total, &names, tr, "checkpoint", TSR_TRACE_MATCH_SUBSTRING),
	                 TSR_OK);
	assert_int_equal(total, 0);
	assert_int_equal(names, 0);
	assert_int_equal(sa_search_step(&hit, &found, tr, "checkpoint", TSR_TRACE_MATCH_SUBSTRING,
	                                NULL, TRUE, 0),
	                 TSR_OK);
	assert_false(found);
	/* A bad expression. */
	assert_int_equal(sa_search_count(&total, &names, tr, "op(", TSR_TRACE_MATCH_REGEX),
	                 TSR_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsr_trace_error(tr), "regular expression"));
	tsr_trace_free(tr);
	g_unlink(path);
	g_rmdir(dir);
	free(path);
	g_free(dir);
}

static void test_sample(void **state)
{
	tsr_trace *tr = tsi_test_open_trace(TRACE);
	uint64_t total = 0;
	size_t names = 0;

	(void)state;
	check_pattern(tr, "Run program", TSR_TRACE_MATCH_SUBSTRING);
	check_pattern(tr, "callback", TSR_TRACE_MATCH_SUBSTRING_ICASE);
	check_pattern(tr, ".", TSR_TRACE_MATCH_REGEX);
	assert_int_equal(sa_search_count(&total, &names, tr, "run program",
	                                 TSR_TRACE_MATCH_SUBSTRING_ICASE),
	                 TSR_OK);
	assert_int_equal(total, 3);
	assert_int_equal(names, 3);
	tsr_trace_free(tr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
