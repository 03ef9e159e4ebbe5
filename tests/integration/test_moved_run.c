/*
 * A run folder moved (issue 26 item 12): EXAMPLE (tutorial 4) runs with
 * autoReport into run/report and PVTI_OPTIONS into run/trace, as a user
 * sets them; the folder is copied elsewhere and the original removed.
 * The trace's compile and run spans must still lead to the copy's
 * report: the link is stored relative to the trace's directory
 * ("../report"), and reportlib (tsr_trace_dup_span_report, which the
 * System Analyser's "Open in Graph Analyser" uses) resolves it against
 * the directory of the trace file it read, whether that file was named
 * by an absolute or a relative path. The report it finds opens and has
 * the run the span names. The shipped sample trace, copied elsewhere
 * with its report, does the same (its link is ".").
 *
 *   test_moved_run EXAMPLE SAMPLE_REPORTS
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "test-util.h"

#include <tilescope/report.h>
#include <tilescope/trace.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *example, *samples;

/* Runs `cmd` with /bin/sh, asserting success. */
static void shell(const char *cmd)
{
	int rc = system(cmd);

	if (rc != 0)
		fail_msg("'%s' exited %d", cmd, rc);
}

/* Checks every linked span of the trace at `trace_path` against the
 * report directory `want` (real path), its stored directory being
 * `stored`; returns how many spans link. */
static size_t check_links(const char *trace_path, const char *want, const char *stored)
{
	tsr_trace *tr = NULL;
	tsr_trace_item *items = NULL;
	size_t n = 0, linked = 0, runs_seen = 0;

	if (tsr_trace_open(&tr, &trace_path, 1, NULL) != TSR_OK)
		fail_msg("%s: %s", trace_path, tsr_last_error());
	assert_int_equal(tsr_trace_list_events(&items, &n, tr, 0, INT64_MIN / 2, INT64_MAX / 2, 0),
	                 TSR_OK);
	for (size_t k = 0; k < n; k++) {
		char *dir = NULL, *engine = NULL, *json = NULL;
		int64_t run = -2;
		int rc = tsr_trace_dup_span_report(&dir, &engine, &run, tr, 0, items[k].seq);

		if (rc == TSR_ERR_NO_DATA)
			continue;
		if (rc != TSR_OK)
			fail_msg("span %s: %s", tsr_trace_get_name(tr, items[k].name),
			         tsr_trace_error(tr));
		/* Stored relative: nothing of the old place is in the file. */
		assert_int_equal(tsr_trace_dup_event_metadata(&json, tr, 0, items[k].seq), TSR_OK);
		printf("  %-28s %s\n    -> %s (run %lld)\n", tsr_trace_get_name(tr, items[k].name),
		       json, dir, (long long)run);
		{
			char key[64];

			snprintf(key, sizeof(key), "\"directory\":\"%s\"", stored);
			assert_non_null(strstr(json, key));
		}
		assert_string_equal(dir, want);
		if (run >= 0) {
			tsr_report *r = NULL;
			size_t n_runs = 0;
			const tsr_run *runs;

			if (tsr_report_open(&r, dir, NULL) != TSR_OK)
				fail_msg("%s: %s", dir, tsr_last_error());
			assert_int_equal(tsr_report_get_runs(&runs, &n_runs, r), TSR_OK);
			assert_true((size_t)run < n_runs);
			tsr_report_free(r);
			runs_seen++;
		}
		linked++;
		free(json);
		free(dir);
		free(engine);
	}
	assert_true(runs_seen >= 1);
	free(items);
	tsr_trace_free(tr);
	return linked;
}

static void test_moved_run_folder(void **state)
{
	char *root = tsi_test_mkdtemp(), cmd[4 * PATH_MAX + 256], run[PATH_MAX + 16];
	char moved[PATH_MAX + 64], want[PATH_MAX + 128], cwd[PATH_MAX], *trace_dir, *trace, *real;
	struct stat sb;

	(void)state;
	assert_non_null(root);
	assert_true(strlen(root) < PATH_MAX);
	assert_true(snprintf(run, sizeof(run), "%s/run", root) < (int)sizeof(run));
	assert_true(snprintf(moved, sizeof(moved), "%s/elsewhere/deeper/copy of run", root) <
	            (int)sizeof(moved));
	assert_int_equal(mkdir(run, 0777), 0);
	assert_true(snprintf(cmd, sizeof(cmd),
	         "cd '%s' && POPLAR_ENGINE_OPTIONS='{\"autoReport.all\":\"true\","
	         "\"autoReport.directory\":\"report\"}' "
	         "PVTI_OPTIONS='{\"enable\":\"true\",\"directory\":\"trace\"}' '%s' >/dev/null",
	         run, example) < (int)sizeof(cmd));
	shell(cmd);
	/* Moved: copied elsewhere, the original gone. */
	assert_true(snprintf(cmd, sizeof(cmd),
	                     "mkdir -p '%s/elsewhere/deeper' && cp -R '%s' '%s' && rm -rf '%s'", root,
	                     run, moved, run) < (int)sizeof(cmd));
	shell(cmd);
	assert_int_not_equal(stat(run, &sb), 0);

	assert_true(snprintf(want, sizeof(want), "%s/report", moved) < (int)sizeof(want));
	real = realpath(want, NULL);
	assert_non_null(real);
	snprintf(cmd, sizeof(cmd), "%s/trace", moved);
	trace_dir = strdup(cmd);
	trace = tsi_test_only_file(trace_dir, ".pvti");
	assert_non_null(trace);

	/* Named by an absolute path. */
	assert_true(check_links(trace, real, "../report") >= 2);
	/* And by a relative one, from the copied folder and from its trace
	 * directory (the trace's directory is then "."). */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(moved), 0);
	snprintf(cmd, sizeof(cmd), "trace/%s", strrchr(trace, '/') + 1);
	assert_true(check_links(cmd, real, "../report") >= 2);
	assert_int_equal(chdir(trace_dir), 0);
	assert_true(check_links(strrchr(trace, '/') + 1, real, "../report") >= 2);
	assert_int_equal(chdir(cwd), 0);

	free(real);
	free(trace);
	free(trace_dir);
	tsi_test_rmtree(root);
}

/* The shipped sample trace links to the report beside it: in place, and
 * in a copy of its folder made elsewhere. */
static void test_sample_trace(void **state)
{
	char *root = tsi_test_mkdtemp(), cmd[3 * PATH_MAX + 64], dir[PATH_MAX + 32];
	char trace[PATH_MAX + 64], *real;

	(void)state;
	assert_non_null(root);
	assert_true(strlen(root) < PATH_MAX && strlen(samples) < PATH_MAX);
	snprintf(dir, sizeof(dir), "%s/tut5_ml", samples);
	real = realpath(dir, NULL);
	assert_non_null(real);
	snprintf(trace, sizeof(trace), "%s/tut5_ml.pvti", real);
	assert_int_equal(check_links(trace, real, "."), 4); /* the compile span and 3 runs */
	free(real);

	snprintf(cmd, sizeof(cmd), "cp -R '%s' '%s/copy'", dir, root);
	shell(cmd);
	snprintf(dir, sizeof(dir), "%s/copy", root);
	real = realpath(dir, NULL);
	assert_non_null(real);
	snprintf(trace, sizeof(trace), "%s/tut5_ml.pvti", real);
	assert_int_equal(check_links(trace, real, "."), 4);
	free(real);
	tsi_test_rmtree(root);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_moved_run_folder),
		cmocka_unit_test(test_sample_trace),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: test_moved_run EXAMPLE SAMPLE_REPORTS\n");
		return 2;
	}
	samples = argv[2];
	example = realpath(argv[1], NULL); /* the run happens in another directory */
	if (!example) {
		fprintf(stderr, "test_moved_run: %s: not found\n", argv[1]);
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
