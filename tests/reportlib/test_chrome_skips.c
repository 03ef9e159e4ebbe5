/*
 * What a Chrome trace-event JSON import leaves out, said (issue 33, item
 * 6): tsr_trace_list_skipped lists by file and kind the events the import
 * skipped (spans nested past 250 levels, B never ended, E with nothing
 * begun, negative durations, phases not read, arguments over 1 MiB), with
 * the line `tilescope trace` prints; a .pvti or a complete import lists
 * nothing. Also: a JSON file is recognised past any amount of leading
 * white space (it stopped at 512 bytes), named or found in a directory;
 * and an import past the memory cap names the file.
 */
#include "test-util.h"

#include <tilescope/trace.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef SAMPLE_REPORTS
#error SAMPLE_REPORTS must name the sample-reports directory
#endif

/* --- Helpers ---------------------------------------------------------------- */

static char *path_in(const char *dir, const char *name)
{
	char *path = NULL;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	return path;
}

static tsr_trace *open_paths(const char *const *paths, size_t n)
{
	tsr_trace *tr = NULL;
	int rc = tsr_trace_open(&tr, paths, n, NULL);

	if (rc != TSR_OK)
		fail_msg("%s: %s", paths[0], tsr_last_error());
	return tr;
}

/* `n` bytes of JSON white space, all four kinds. */
static void put_space(FILE *f, size_t n)
{
	static const char ws[] = " \n\t \r\n  ";

	for (size_t i = 0; i < n; i++)
		fputc(ws[i % (sizeof(ws) - 1)], f);
}

/*
 * A file with one of each thing the import skips, on threads of their own:
 *   tid 1: 10,000 X spans each inside the one before: 250 kept, 9,750 too deep;
 *   tid 2: 300 B then 300 E: 250 kept, 50 too deep;
 *   tid 3: two B never ended;
 *   tid 4: three E with nothing begun;
 *   tid 5: an X of negative dur, and an E before its B (both dropped);
 *   tid 6: phases b, b, s and a bare number: four events not read;
 *   tid 7: an X whose args pass 1 MiB (kept, without them), and a plain X.
 */
static char *write_skipping(const char *dir)
{
	char *path = path_in(dir, "skips.json");
	FILE *f = fopen(path, "w");
	int i;

	assert_non_null(f);
	fputc('[', f);
	for (i = 0; i < 10000; i++)
		fprintf(f, "{\"ph\":\"X\",\"name\":\"deep\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},\n", i,
		        100000 - 2 * i);
	for (i = 0; i < 300; i++)
		fprintf(f, "{\"ph\":\"B\",\"name\":\"be\",\"pid\":1,\"tid\":2,\"ts\":%d},\n", i);
	for (i = 0; i < 300; i++)
		fprintf(f, "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":%d},\n", 1000 - i);
	fputs("{\"ph\":\"B\",\"name\":\"open\",\"pid\":1,\"tid\":3,\"ts\":1},\n"
	      "{\"ph\":\"B\",\"name\":\"open2\",\"pid\":1,\"tid\":3,\"ts\":2},\n",
	      f);
	for (i = 0; i < 3; i++)
		fprintf(f, "{\"ph\":\"E\",\"pid\":1,\"tid\":4,\"ts\":%d},\n", 10 + i);
	fputs("{\"ph\":\"X\",\"name\":\"neg\",\"pid\":1,\"tid\":5,\"ts\":50,\"dur\":-3},\n"
	      "{\"ph\":\"B\",\"name\":\"late\",\"pid\":1,\"tid\":5,\"ts\":60},\n"
	      "{\"ph\":\"E\",\"pid\":1,\"tid\":5,\"ts\":59},\n"
	      "{\"ph\":\"b\",\"name\":\"a\",\"id\":1,\"pid\":1,\"tid\":6,\"ts\":5},\n"
	      "{\"ph\":\"b\",\"name\":\"a\",\"id\":2,\"pid\":1,\"tid\":6,\"ts\":6},\n"
	      "{\"ph\":\"s\",\"name\":\"f\",\"id\":1,\"pid\":1,\"tid\":6,\"ts\":7},\n"
	      "5,\n"
	      "{\"ph\":\"X\",\"name\":\"big\",\"pid\":1,\"tid\":7,\"ts\":1,\"dur\":2,\"args\":{\"s\":\"",
	      f);
	for (i = 0; i < (1 << 20) + 10; i++)
		fputc('x', f);
	fputs("\"}},\n"
	      "{\"ph\":\"X\",\"name\":\"plain\",\"pid\":1,\"tid\":7,\"ts\":5,\"dur\":2}]\n",
	      f);
	fclose(f);
	return path;
}

/* A clean file: two spans, nothing to skip. */
static char *write_clean(const char *dir, const char *name)
{
	char *path = path_in(dir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":10},"
	      "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":3}]",
	      f);
	fclose(f);
	return path;
}

static const struct {
	tsr_trace_skip_kind kind;
	uint64_t count;
	const char *message;
} want[] = {
	{TSR_TRACE_SKIP_TOO_DEEP, 9800, "9,800 events skipped: nested past 250 levels"},
	{TSR_TRACE_SKIP_UNCLOSED, 2, "2 events skipped: begun (B) and never ended"},
	{TSR_TRACE_SKIP_UNMATCHED_END, 3, "3 events skipped: ended (E) with nothing begun"},
	{TSR_TRACE_SKIP_BAD_TIME, 2,
	 "2 events skipped: a negative duration, or an end before the begin"},
	{TSR_TRACE_SKIP_PHASE, 4, "4 events skipped: phases not read (b, s, others)"},
	{TSR_TRACE_SKIP_ARGS, 1, "1 event kept without their arguments: over 1 MiB"},
};
#define N_WANT (sizeof(want) / sizeof(want[0]))

/* The list of `tr` is `want`, all for process `process`. */
static void check_skips(tsr_trace *tr, size_t process)
{
	tsr_trace_skip *skips = NULL;
	size_t n = 0;

	assert_int_equal(tsr_trace_list_skipped(&skips, &n, tr), TSR_OK);
	assert_int_equal(n, N_WANT);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(skips[i].process, process);
		assert_int_equal(skips[i].kind, want[i].kind);
		assert_int_equal(skips[i].count, want[i].count);
		assert_string_equal(skips[i].message, want[i].message);
	}
	free(skips);
}

/* --- Skips ------------------------------------------------------------------- */

static void test_skips_by_kind(void **state)
{
	char *dir = tsi_test_mkdtemp();
	char *path = write_skipping(dir);
	const char *p = path;
	tsr_trace *tr = open_paths(&p, 1), *again = NULL;
	tsr_trace_label_stat *labels = NULL;
	size_t n_labels = 0;
	tsr_trace_stats_options so = TSR_TRACE_STATS_OPTIONS_INIT;

	(void)state;
	/* What was kept: 250 + 250 nested, the big and the plain span. */
	assert_int_equal(tsr_trace_get_info(tr)->events, 250 + 250 + 2);
	assert_int_equal(tsr_trace_list_label_stats(&labels, &n_labels, tr, &so), TSR_OK);
	free(labels);
	check_skips(tr, 0);
	/* A second handle over the same import says the same. */
	assert_int_equal(tsr_trace_reopen(&again, tr, NULL), TSR_OK);
	check_skips(again, 0);
	tsr_trace_free(again);
	tsr_trace_free(tr);
	free(path);
	tsi_test_rmtree(dir);
}

/* Nothing is listed for a .pvti, or for an import that kept everything;
 * among several files each entry names its own. */
static void test_nothing_skipped(void **state)
{
	char *dir = tsi_test_mkdtemp();
	char *clean = write_clean(dir, "clean.json"), *skipping = write_skipping(dir);
	const char *pvti = SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti";
	const char *both[] = {pvti, clean, skipping};
	tsr_trace_skip *skips = (tsr_trace_skip *)1;
	size_t n = 99;
	tsr_trace *tr;

	(void)state;
	tr = open_paths(&pvti, 1);
	assert_int_equal(tsr_trace_list_skipped(&skips, &n, tr), TSR_OK);
	assert_int_equal(n, 0);
	assert_null(skips);
	tsr_trace_free(tr);
	tr = open_paths(both, 2);
	skips = (tsr_trace_skip *)1;
	assert_int_equal(tsr_trace_list_skipped(&skips, &n, tr), TSR_OK);
	assert_int_equal(n, 0);
	assert_null(skips);
	tsr_trace_free(tr);
	tr = open_paths(both, 3);
	check_skips(tr, 2);
	assert_int_equal(tsr_trace_list_skipped(NULL, &n, tr), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_trace_list_skipped(&skips, NULL, tr), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_trace_list_skipped(&skips, &n, NULL), TSR_ERR_INVALID_ARGUMENT);
	tsr_trace_free(tr);
	free(clean);
	free(skipping);
	tsi_test_rmtree(dir);
}

/* --- Leading white space ----------------------------------------------------------- */

/* A file of `space` bytes of white space (after a byte order mark when
 * `bom`) then a trace of two spans, in the array or the object form. */
static char *write_spaced(const char *dir, const char *name, size_t space, bool bom, bool object)
{
	char *path = path_in(dir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	if (bom)
		fputs("\xef\xbb\xbf", f);
	put_space(f, space);
	fputs(object ? "{\"traceEvents\":[" : "[", f);
	fputs("{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":10},"
	      "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":3}]",
	      f);
	fputs(object ? "}\n" : "\n", f);
	fclose(f);
	return path;
}

static void test_leading_white_space(void **state)
{
	static const size_t sizes[] = {0, 511, 512, 513, 600, 4096, 70000, (1u << 20) + 3};
	char *dir = tsi_test_mkdtemp();

	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (int form = 0; form < 4; form++) {
			char name[64];
			char *path;
			const char *p;
			tsr_trace *tr = NULL;
			int rc;

			snprintf(name, sizeof(name), "spaced-%zu-%d.trace", sizes[i], form);
			path = write_spaced(dir, name, sizes[i], form & 1, form & 2);
			p = path;
			rc = tsr_trace_open(&tr, &p, 1, NULL);
			if (rc != TSR_OK)
				fail_msg("%zu bytes of white space (form %d): %s", sizes[i], form,
				         tsr_last_error());
			assert_int_equal(tsr_trace_get_info(tr)->events, 2);
			tsr_trace_free(tr);
			free(path);
		}
	}
	tsi_test_rmtree(dir);

	/* Found in a directory too: its "traceEvents" lies past 64 KiB. */
	dir = tsi_test_mkdtemp();
	{
		char *path = write_spaced(dir, "far.json", 100000, false, true);
		const char *p = dir;
		const tsr_trace_process *procs;
		size_t n;
		tsr_trace *tr = open_paths(&p, 1);

		assert_int_equal(tsr_trace_get_processes(&procs, &n, tr), TSR_OK);
		assert_int_equal(n, 1);
		assert_string_equal(procs[0].path, path);
		assert_int_equal(tsr_trace_get_info(tr)->events, 2);
		tsr_trace_free(tr);
		free(path);
	}
	tsi_test_rmtree(dir);

	/* Only white space: not a trace of either kind, named. */
	dir = tsi_test_mkdtemp();
	{
		char *path = path_in(dir, "blank.json");
		FILE *f = fopen(path, "w");
		const char *p = path;
		tsr_trace *tr = NULL;

		assert_non_null(f);
		put_space(f, 3000);
		fclose(f);
		assert_int_not_equal(tsr_trace_open(&tr, &p, 1, NULL), TSR_OK);
		assert_null(tr);
		assert_non_null(strstr(tsr_last_error(), path));
		free(path);
	}
	tsi_test_rmtree(dir);
}

/* --- The memory cap -------------------------------------------------------------- */

/* An import that passes the cap says which file, also beside another. */
static void test_cap_names_the_file(void **state)
{
	char *dir = tsi_test_mkdtemp();
	char *path = path_in(dir, "many.json");
	FILE *f = fopen(path, "w");
	tsr_trace_open_options o = TSR_TRACE_OPEN_OPTIONS_INIT;
	const char *paths[] = {SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti", path};
	tsr_trace *tr = NULL;

	(void)state;
	assert_non_null(f);
	fputc('[', f);
	for (int i = 0; i < 200000; i++)
		fprintf(f, "%s{\"ph\":\"X\",\"name\":\"n%d\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":1}",
		        i ? "," : "", i % 1000, i % 7, i);
	fputc(']', f);
	fclose(f);
	o.memory_cap = 1 << 20;
	for (size_t first = 0; first < 2; first++) {
		assert_int_equal(tsr_trace_open(&tr, paths + 1 - first, 1 + first, &o),
		                 TSR_ERR_TOO_LARGE);
		assert_null(tr);
		if (!strstr(tsr_last_error(), path))
			fail_msg("the file is not named: %s", tsr_last_error());
	}
	free(path);
	tsi_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skips_by_kind),
		cmocka_unit_test(test_nothing_skipped),
		cmocka_unit_test(test_leading_white_space),
		cmocka_unit_test(test_cap_names_the_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
