/*
 * tsr_trace_dup_span_report on links a hostile trace could hold: each
 * span of a hand-made trace carries one autoReport link (or none), and
 * the function must read the good ones (an absolute directory as older
 * traces hold it, a relative one against the trace's directory), follow
 * a report that moved into its subdirectory, and refuse the malformed ones with TSR_ERR_CORRUPT
 * (TSR_ERR_NO_DATA without a link), never guess.
 */
#include "test-util.h"

#include <tilescope/pvti.h>
#include <tilescope/trace.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One span per case, named by its index, with `json` as its metadata
 * (NULL: none). */
typedef struct link_case {
	const char *json;
	int rc;           /* what tsr_trace_dup_span_report returns */
	const char *dir;  /* the directory it gives, below the test's */
	const char *engine;
	int64_t run;
} link_case;

static void test_links(void **state)
{
	char *dir = tsi_test_mkdtemp(), moved[PATH_MAX], pop[PATH_MAX + 16], *path;
	char json[6][PATH_MAX + 200];
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *ch = pvti_channel_framework();
	tsr_trace *tr = NULL;
	tsr_trace_item *items = NULL;
	size_t n = 0;
	const char *paths[1];
	FILE *f;

	(void)state;
	/* A report that moved into its subdirectory "eng" of dir/rep. */
	snprintf(moved, sizeof(moved), "%s/rep", dir);
	assert_int_equal(mkdir(moved, 0777), 0);
	snprintf(moved, sizeof(moved), "%s/rep/eng", dir);
	assert_int_equal(mkdir(moved, 0777), 0);
	snprintf(pop, sizeof(pop), "%s/profile.pop", moved);
	f = fopen(pop, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(json[0], sizeof(json[0]),
	         "{\"autoReport\":{\"directory\":\"%s/rep\",\"subdirectory\":\"eng\","
	         "\"engine\":\"training\",\"run\":3}}", dir);
	snprintf(json[1], sizeof(json[1]),
	         "{\"autoReport\":{\"directory\":\"%s/none\",\"subdirectory\":\"eng\","
	         "\"engine\":\"e\"}}", dir);
	const link_case cases[] = {
		{json[0], TSR_OK, "/rep/eng", "training", 3},
		{json[1], TSR_OK, "/none", "e", -1}, /* nothing there: as recorded */
		{NULL, TSR_ERR_NO_DATA, NULL, NULL, -1},
		{"{\"step\":5}", TSR_ERR_NO_DATA, NULL, NULL, -1},
		/* Relative (as written since issue 26): against the trace's
		 * directory, "." and ".." taken out, the subdirectory followed. */
		{"{\"autoReport\":{\"directory\":\"relative/dir\",\"engine\":\"r\"}}", TSR_OK,
		 "/relative/dir", "r", -1},
		{"{\"autoReport\":{\"directory\":\"./rep/x/..\",\"subdirectory\":\"eng\","
		 "\"engine\":\"e\",\"run\":1}}",
		 TSR_OK, "/rep/eng", "e", 1},
		{"{\"autoReport\":{\"directory\":\".\",\"engine\":\"d\"}}", TSR_OK, "", "d", -1},
		{"{\"autoReport\":{\"directory\":\"\"}}", TSR_ERR_CORRUPT, NULL, NULL, -1},
		{"{\"autoReport\":{\"directory\":\"/x\",\"run\":-1}}", TSR_ERR_CORRUPT, NULL, NULL, -1},
		{"{\"autoReport\":{\"directory\":\"/x\",\"run\":1.5}}", TSR_ERR_CORRUPT, NULL, NULL, -1},
		{"{\"autoReport\":{\"directory\":\"/x\",\"run\":\"2\"}}", TSR_ERR_CORRUPT, NULL, NULL, -1},
		{"{\"autoReport\":{\"directory\":\"/x\",\"subdirectory\":\"../up\"}}", TSR_ERR_CORRUPT,
		 NULL, NULL, -1},
		{"{\"autoReport\":{\"directory\":\"/x\",\"engine\":7}}", TSR_ERR_CORRUPT, NULL, NULL, -1},
		{"{\"autoReport\":{\"directory\":42}}", TSR_ERR_CORRUPT, NULL, NULL, -1},
		{"{\"autoReport\":[1,2]}", TSR_ERR_NO_DATA, NULL, NULL, -1},
	};
	const size_t n_cases = sizeof(cases) / sizeof(cases[0]);

	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), TSI_OK);
	path = pvti_dup_file_name();
	for (size_t i = 0; i < n_cases; i++) {
		char name[16];

		snprintf(name, sizeof(name), "case %zu", i);
		pvti_begin(ch, name);
		if (cases[i].json)
			assert_int_equal(pvti_event_metadata(cases[i].json), TSI_OK);
		pvti_end(ch);
	}
	assert_int_equal(pvti_close(), TSI_OK);

	paths[0] = path;
	assert_int_equal(tsr_trace_open(&tr, paths, 1, NULL), TSR_OK);
	assert_int_equal(tsr_trace_list_events(&items, &n, tr, 0, INT64_MIN / 2, INT64_MAX / 2, 0),
	                 TSR_OK);
	assert_int_equal(n, n_cases);
	for (size_t k = 0; k < n; k++) {
		const char *name = tsr_trace_get_name(tr, items[k].name);
		size_t i;
		char *d = (char *)"untouched", *e = (char *)"untouched", want[PATH_MAX + 32];
		int64_t run = 99;

		assert_int_equal(sscanf(name, "case %zu", &i), 1);
		assert_true(i < n_cases);
		if (tsr_trace_dup_span_report(&d, &e, &run, tr, 0, items[k].seq) != cases[i].rc)
			fail_msg("case %zu (%s): not %d: %s", i, cases[i].json ? cases[i].json : "none",
			         cases[i].rc, tsr_trace_error(tr));
		if (cases[i].rc != TSR_OK) {
			assert_null(d);
			assert_null(e);
			assert_int_equal(run, -1);
			continue;
		}
		snprintf(want, sizeof(want), "%s%s", dir, cases[i].dir);
		assert_string_equal(d, want);
		assert_string_equal(e, cases[i].engine);
		assert_int_equal(run, cases[i].run);
		free(d);
		free(e);
	}
	/* Bad arguments. */
	assert_int_equal(tsr_trace_dup_span_report(NULL, NULL, NULL, tr, 0, 0),
	                 TSR_ERR_INVALID_ARGUMENT);
	{
		char *d = NULL;

		assert_int_equal(tsr_trace_dup_span_report(&d, NULL, NULL, tr, 99, 0),
		                 TSR_ERR_OUT_OF_RANGE);
		assert_null(d);
	}
	free(items);
	tsr_trace_free(tr);
	free(path);
	tsi_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_links),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
