/*
 * The History view's store as the Graph Analyser reads it (ga-history.h,
 * issue 32 item 3): the runs in commit order, each label's series and its
 * change points as `tilescope history changes` finds them, the branch
 * filter searching the branch's runs alone, relative report paths from
 * the store's directory, recognition by application_id whatever the
 * name, cancellation and a file that is not a store. No display needed.
 */
#include "ga-history.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define SHA2 "1123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define STEP 6 /* small enough against the jitter for a range of two commits */

/* A run: commit, branch, label, value of "m". */
typedef struct {
	const char *commit, *branch, *label;
	uint64_t value;
} test_run;

/* Oldest first. Label "": 100, 100, 150 (topic), 200: changes at b1 and
 * a3 over every branch, at a3 (100 -> 200) on main. Label "big": 7, 9. */
static const test_run runs[] = {
	{"a1", "main", "", 100}, {"a2", "main", "", 100},   {"b1", "topic", "", 150},
	{"a3", "main", "", 200}, {"a3", "main", "big", 7}, {"a4", "main", "big", 9},
};

/* The store in `dir` (its file name says nothing of what it is). */
static char *make_store(const char *dir)
{
	char *path = g_build_filename(dir, "runs.data", NULL);
	tsr_history *h = NULL;

	assert_int_equal(tsr_history_open(&h, path, TSR_HISTORY_CREATE), TSR_OK);
	for (size_t i = 0; i < G_N_ELEMENTS(runs); i++) {
		tsr_history_run run = {0, runs[i].commit, NULL, runs[i].branch, (int64_t)(i + 1) * 60,
		                       runs[i].label, "host", "rel/profile.pop", SHA};
		tsr_history_figure fig = {"m", TSR_UNIT_CYCLES, false, 0, runs[i].value};

		assert_int_equal(tsr_history_add(NULL, NULL, h, &run, &fig, 1), TSR_OK);
	}
	tsr_history_free(h);
	return path;
}

static void test_all_branches(void **state)
{
	g_autofree char *dir = g_dir_make_tmp("ga-history-XXXXXX", NULL);
	g_autofree char *path = make_store(dir);
	g_autoptr(GFile) file = g_file_new_for_path(path);
	g_autoptr(GError) error = NULL;
	g_autoptr(GaHistory) h = NULL;
	const ga_history_metric *m;

	(void)state;
	assert_true(ga_history_file_is_store(file));
	h = ga_history_load(file, NULL, NULL, &error);
	assert_non_null(h);
	assert_int_equal(ga_history_get_n_runs(h), G_N_ELEMENTS(runs));
	for (guint i = 0; i < G_N_ELEMENTS(runs); i++)
		assert_string_equal(ga_history_get_run(h, i)->commit, runs[i].commit);
	assert_string_equal(ga_history_get_branches(h)[0], "main");
	assert_string_equal(ga_history_get_branches(h)[1], "topic");
	assert_null(ga_history_get_branches(h)[2]);
	assert_string_equal(ga_history_get_labels(h)[0], "");
	assert_string_equal(ga_history_get_labels(h)[1], "big");
	assert_int_equal(ga_history_get_n_metrics(h), 1);
	m = ga_history_get_metric(h, 0);
	assert_string_equal(m->name, "m");
	for (guint i = 0; i < G_N_ELEMENTS(runs); i++)
		assert_true(m->values[i] == (double)runs[i].value);
	assert_true(m->latest == 9);
	/* Label "" first (by name), oldest first: b1 (run 2), a3 (run 3);
	 * then "big": a4 (run 5). */
	assert_int_equal(m->n_changes, 3);
	assert_int_equal(m->changes[0].run, 2);
	assert_true(m->changes[0].point.before == 100 && m->changes[0].point.after == 150);
	assert_int_equal(m->changes[1].run, 3);
	assert_true(m->changes[1].point.before == 150 && m->changes[1].point.after == 200);
	assert_string_equal(m->changes[2].label, "big");
	assert_int_equal(m->changes[2].run, 5);
	assert_true(m->changes[2].point.before == 7 && m->changes[2].point.after == 9);
	/* The report's relative path, from the store's directory. */
	g_autoptr(GFile) report = ga_history_dup_report_file(h, 0);
	g_autofree char *report_path = g_file_get_path(report);
	g_autofree char *want = g_build_filename(dir, "rel", "profile.pop", NULL);
	assert_string_equal(report_path, want);
	g_unlink(path);
	g_rmdir(dir);
}

/* On main the topic run is not there: one change of label "", at a3,
 * 100 -> 200, as `history changes --branch main` finds it. */
static void test_branch(void **state)
{
	g_autofree char *dir = g_dir_make_tmp("ga-history-XXXXXX", NULL);
	g_autofree char *path = make_store(dir);
	g_autoptr(GFile) file = g_file_new_for_path(path);
	g_autoptr(GError) error = NULL;
	g_autoptr(GaHistory) h = ga_history_load(file, "main", NULL, &error);
	const ga_history_metric *m;

	(void)state;
	assert_non_null(h);
	assert_string_equal(ga_history_get_branch(h), "main");
	assert_int_equal(ga_history_get_n_runs(h), 5);
	/* Every branch is still offered. */
	assert_string_equal(ga_history_get_branches(h)[1], "topic");
	m = ga_history_get_metric(h, 0);
	assert_int_equal(m->n_changes, 2);
	assert_string_equal(ga_history_get_run(h, m->changes[0].run)->commit, "a3");
	assert_string_equal(m->changes[0].label, "");
	assert_true(m->changes[0].point.before == 100 && m->changes[0].point.after == 200);
	assert_string_equal(ga_history_get_run(h, m->changes[1].run)->commit, "a4");
	g_unlink(path);
	g_rmdir(dir);
}

/* A noisy metric of two runs per commit (the runs of one commit in a
 * row are its samples): the view's change points are those
 * tsr_series_list_changes gives for the per-commit series, at the first
 * run of each commit of the change and of its range. */
static void test_noisy(void **state)
{
	enum { COMMITS = 40, SAMPLES = 2 };
	g_autofree char *dir = g_dir_make_tmp("ga-history-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "noisy", NULL);
	g_autoptr(GFile) file = g_file_new_for_path(path);
	g_autoptr(GaHistory) h = NULL;
	size_t offsets[COMMITS + 1];
	double values[COMMITS * SAMPLES];
	tsr_change_point *want = NULL;
	size_t n_want = 0;
	tsr_history *store = NULL;
	const ga_history_metric *m;

	(void)state;
	assert_int_equal(tsr_history_open(&store, path, TSR_HISTORY_CREATE), TSR_OK);
	for (int c = 0; c < COMMITS; c++) {
		g_autofree char *commit = g_strdup_printf("c%02d", c);

		offsets[c] = (size_t)c * SAMPLES;
		for (int k = 0; k < SAMPLES; k++) {
			/* A step of STEP at commit 23 under a fixed jitter of 0..14. */
			uint64_t v = 1000 + (c >= 23 ? STEP : 0) + (uint64_t)((c * 7 + k * 3) % 15);
			tsr_history_run run = {0, commit, NULL, "main", c * 10 + k, NULL, "host",
			                       "profile.pop", k ? SHA2 : SHA};
			tsr_history_figure fig = {"t", TSR_UNIT_COUNT, true, 0, v};

			values[c * SAMPLES + k] = (double)v;
			assert_int_equal(tsr_history_add(NULL, NULL, store, &run, &fig, 1), TSR_OK);
		}
	}
	tsr_history_free(store);
	offsets[COMMITS] = COMMITS * SAMPLES;
	tsr_series series = {COMMITS, offsets, values, false};
	assert_int_equal(tsr_series_list_changes(&want, &n_want, &series, NULL), TSR_OK);
	/* The data make a change whose range is more than its commit. */
	assert_true(n_want > 0 && want[0].first < want[0].last);
	h = ga_history_load(file, NULL, NULL, NULL);
	assert_non_null(h);
	m = ga_history_get_metric(h, 0);
	assert_true(m->noisy);
	assert_int_equal(m->n_changes, n_want);
	for (size_t i = 0; i < n_want; i++) {
		assert_int_equal(m->changes[i].run, want[i].commit * SAMPLES);
		assert_int_equal(m->changes[i].first, want[i].first * SAMPLES);
		assert_int_equal(m->changes[i].last, want[i].last * SAMPLES);
		assert_true(m->changes[i].point.before == want[i].before);
		assert_true(m->changes[i].point.p_value == want[i].p_value);
	}
	free(want);
	g_unlink(path);
	g_rmdir(dir);
}

/* A cancelled load, a report and a file that is no store. */
static void test_refused(void **state)
{
	g_autofree char *dir = g_dir_make_tmp("ga-history-XXXXXX", NULL);
	g_autofree char *path = make_store(dir);
	g_autofree char *text = g_build_filename(dir, "store.db", NULL);
	g_autoptr(GFile) file = g_file_new_for_path(path);
	g_autoptr(GFile) other = g_file_new_for_path(text);
	g_autoptr(GCancellable) cancel = g_cancellable_new();
	g_autoptr(GError) error = NULL;
	g_autoptr(GaHistory) h = NULL;

	(void)state;
	g_cancellable_cancel(cancel);
	h = ga_history_load(file, NULL, cancel, &error);
	assert_null(h);
	assert_true(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
	g_clear_error(&error);
	assert_true(g_file_set_contents(text, "SQLite format 3 but not really", -1, NULL));
	assert_false(ga_history_file_is_store(other));
	h = ga_history_load(other, NULL, NULL, &error);
	assert_null(h);
	assert_non_null(strstr(error->message, "store.db"));
	assert_null(strchr(error->message, '\n'));
	g_unlink(text);
	g_unlink(path);
	g_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_branches),
		cmocka_unit_test(test_branch),
		cmocka_unit_test(test_noisy),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
