/*
 * A second handle over the same traces (tsr_trace_reopen) and what a
 * directory gives (tsr_trace_open of a directory).
 *
 * What is checked:
 *   - a Chrome JSON trace is parsed once: the file is overwritten with
 *     junk after the first open, and the reopened handle still gives the
 *     same figures (it reads the first handle's database in memory); the
 *     first handle freed, the second still answers (the image lives with
 *     its last handle); both handles used at once from two threads agree;
 *   - a .pvti is opened again; a mix keeps the order of the files; a
 *     memory cap below the image fails; a NULL trace is refused;
 *   - a directory without .pvti files gives its Chrome traces found by
 *     content (any name), skipping other JSON; several are merged; with
 *     .pvti files only those are taken; with neither, one message naming
 *     it; a damaged trace in it is named.
 */
#include "test-util.h"

#include <tilescope/trace.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SAMPLE SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti"

/* --- Helpers ---------------------------------------------------------------- */

static tsr_trace *open_path(const char *path)
{
	tsr_trace *tr = NULL;

	if (tsr_trace_open(&tr, &path, 1, NULL) != TSR_OK)
		fail_msg("%s: %s", path, tsr_last_error());
	return tr;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* dir/name, malloc'd. */
static char *join(const char *dir, const char *name)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

/* Writes the sample's Chrome JSON export to dir/name; returns the path. */
static char *export_sample(const char *dir, const char *name)
{
	tsr_trace *tr = open_path(SAMPLE);
	char *path = join(dir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(tsr_trace_export_chrome(f, tr, NULL), TSR_OK);
	assert_int_equal(fclose(f), 0);
	tsr_trace_free(tr);
	return path;
}

/* The label statistics with medians over the whole trace. */
static tsr_trace_label_stat *stats_of(tsr_trace *tr, size_t *n)
{
	tsr_trace_label_stat *st = NULL;

	assert_int_equal(tsr_trace_list_label_stats(&st, n, tr, NULL), TSR_OK);
	assert_true(*n > 0);
	return st;
}

/* Two handles give the same trace: info, threads, label statistics (with
 * medians, so every chunk is decoded) and the first thread's events. */
static void assert_same(tsr_trace *a, tsr_trace *b)
{
	const tsr_trace_info *ia = tsr_trace_get_info(a), *ib = tsr_trace_get_info(b);
	tsr_trace_label_stat *sa, *sb;
	tsr_trace_item *ea = NULL, *eb = NULL;
	size_t na, nb;

	assert_int_equal(ia->events, ib->events);
	assert_int_equal(ia->threads, ib->threads);
	assert_int_equal(ia->start_ns, ib->start_ns);
	assert_int_equal(ia->end_ns, ib->end_ns);
	assert_int_equal(ia->processes, ib->processes);
	sa = stats_of(a, &na);
	sb = stats_of(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_string_equal(tsr_trace_get_name(a, sa[i].name), tsr_trace_get_name(b, sb[i].name));
		assert_int_equal(sa[i].count, sb[i].count);
		assert_int_equal(sa[i].total_ns, sb[i].total_ns);
		assert_int_equal(sa[i].self_ns, sb[i].self_ns);
		assert_int_equal(sa[i].median_ns, sb[i].median_ns);
	}
	free(sa);
	free(sb);
	assert_int_equal(tsr_trace_list_events(&ea, &na, a, 0, ia->start_ns, ia->end_ns + 1, 0),
	                 TSR_OK);
	assert_int_equal(tsr_trace_list_events(&eb, &nb, b, 0, ib->start_ns, ib->end_ns + 1, 0),
	                 TSR_OK);
	assert_int_equal(na, nb);
	assert_true(na > 0);
	/* Name ids are per handle (a .pvti and its export intern in their own
	 * orders): names are compared as text. */
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(ea[i].start_ns, eb[i].start_ns);
		assert_int_equal(ea[i].end_ns, eb[i].end_ns);
		assert_int_equal(ea[i].depth, eb[i].depth);
		assert_int_equal(ea[i].parent, eb[i].parent);
		assert_string_equal(tsr_trace_get_name(a, ea[i].name), tsr_trace_get_name(b, eb[i].name));
	}
	free(ea);
	free(eb);
}

/* --- Reopening -------------------------------------------------------------- */

static void test_reopen_json_parsed_once(void **state)
{
	char *dir = tsi_test_mkdtemp(), *path = export_sample(dir, "trace.json");
	tsr_trace *a = open_path(path), *b = NULL, *ref = open_path(SAMPLE), *junk = NULL;
	const char *p = path;

	(void)state;
	/* From now on the file is not a trace: parsing it again would fail. */
	write_text(path, "{\"traceEvents\": [ {\"ph\": ");
	assert_int_equal(tsr_trace_open(&junk, &p, 1, NULL), TSR_ERR_CORRUPT);
	assert_int_equal(tsr_trace_reopen(&b, a, NULL), TSR_OK);
	assert_same(a, b);
	{
		const tsr_trace_process *pa, *pb;
		size_t na, nb;

		assert_int_equal(tsr_trace_get_processes(&pa, &na, a), TSR_OK);
		assert_int_equal(tsr_trace_get_processes(&pb, &nb, b), TSR_OK);
		assert_int_equal(na, 1);
		assert_int_equal(nb, 1);
		assert_string_equal(pa[0].path, pb[0].path);
	}
	/* The first handle gone, the second still reads the image. */
	tsr_trace_free(a);
	assert_same(ref, b);
	tsr_trace_free(b);
	tsr_trace_free(ref);
	free(path);
	tsi_test_rmtree(dir);
}

static void test_reopen_pvti_and_mix(void **state)
{
	char *dir = tsi_test_mkdtemp(), *json = export_sample(dir, "x.json");
	const char *paths[] = {SAMPLE, json};
	tsr_trace *a = NULL, *b = NULL;
	const tsr_trace_process *pa, *pb;
	size_t na, nb;

	(void)state;
	assert_int_equal(tsr_trace_open(&a, paths, 2, NULL), TSR_OK);
	assert_int_equal(tsr_trace_reopen(&b, a, NULL), TSR_OK);
	assert_same(a, b);
	assert_int_equal(tsr_trace_get_processes(&pa, &na, a), TSR_OK);
	assert_int_equal(tsr_trace_get_processes(&pb, &nb, b), TSR_OK);
	assert_int_equal(na, 2);
	assert_int_equal(nb, 2);
	for (size_t i = 0; i < na; i++)
		assert_string_equal(pa[i].path, pb[i].path);
	assert_string_equal(pb[0].path, SAMPLE);
	tsr_trace_free(b);
	tsr_trace_free(a);
	free(json);
	tsi_test_rmtree(dir);
}

static void test_reopen_limits(void **state)
{
	char *dir = tsi_test_mkdtemp(), *json = export_sample(dir, "x.json");
	tsr_trace *a = open_path(json), *b = (tsr_trace *)1;
	tsr_trace_open_options o = TSR_TRACE_OPEN_OPTIONS_INIT;

	(void)state;
	assert_int_equal(tsr_trace_reopen(&b, NULL, NULL), TSR_ERR_INVALID_ARGUMENT);
	assert_null(b);
	assert_int_equal(tsr_trace_reopen(NULL, a, NULL), TSR_ERR_INVALID_ARGUMENT);
	/* The image counts against the new handle's cap too. */
	o.memory_cap = 4096;
	assert_int_equal(tsr_trace_reopen(&b, a, &o), TSR_ERR_TOO_LARGE);
	assert_null(b);
	assert_non_null(strstr(tsr_last_error(), "memory cap"));
	/* a is untouched by the failure. */
	assert_int_equal(tsr_trace_reopen(&b, a, NULL), TSR_OK);
	assert_same(a, b);
	tsr_trace_free(b);
	tsr_trace_free(a);
	free(json);
	tsi_test_rmtree(dir);
}

typedef struct stats_job {
	tsr_trace *tr;
	tsr_trace_label_stat *st;
	size_t n;
	int rc;
} stats_job;

static void *stats_worker(void *arg)
{
	stats_job *j = arg;

	for (int i = 0; i < 20 && j->rc == TSR_OK; i++) {
		free(j->st);
		j->st = NULL;
		j->rc = tsr_trace_list_label_stats(&j->st, &j->n, j->tr, NULL);
	}
	return NULL;
}

/* Two handles sharing an image, each used by its own thread at once. */
static void test_reopen_threads(void **state)
{
	char *dir = tsi_test_mkdtemp(), *json = export_sample(dir, "x.json");
	stats_job jobs[2] = {{open_path(json), NULL, 0, TSR_OK}, {NULL, NULL, 0, TSR_OK}};
	pthread_t th[2];

	(void)state;
	assert_int_equal(tsr_trace_reopen(&jobs[1].tr, jobs[0].tr, NULL), TSR_OK);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, stats_worker, &jobs[i]), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(jobs[i].rc, TSR_OK);
	assert_int_equal(jobs[0].n, jobs[1].n);
	assert_memory_equal(jobs[0].st, jobs[1].st, jobs[0].n * sizeof(*jobs[0].st));
	for (int i = 0; i < 2; i++) {
		free(jobs[i].st);
		tsr_trace_free(jobs[i].tr);
	}
	free(json);
	tsi_test_rmtree(dir);
}

/* --- Directories ---------------------------------------------------------------- */

/* The processes' file names (after the last '/'), joined by ' '. */
static char *file_names(tsr_trace *tr)
{
	const tsr_trace_process *p;
	size_t n;
	char *s = calloc(1, 1);

	assert_int_equal(tsr_trace_get_processes(&p, &n, tr), TSR_OK);
	for (size_t i = 0; i < n; i++) {
		const char *base = strrchr(p[i].path, '/');
		char *t = NULL;

		assert_true(asprintf(&t, "%s%s%s", s, i ? " " : "", base ? base + 1 : p[i].path) > 0);
		free(s);
		s = t;
	}
	return s;
}

static void test_dir_json_by_content(void **state)
{
	char *dir = tsi_test_mkdtemp(), *sub = join(dir, "sub"), *f;
	tsr_trace *tr, *ref = open_path(SAMPLE);
	char *names;

	(void)state;
	/* A trace whose name says nothing, and JSON that is no trace. */
	free(export_sample(dir, "run-a.trace"));
	write_text(f = join(dir, "settings.json"), "{\"ph\": 1}\n");
	free(f);
	write_text(f = join(dir, "list.json"), "[1, 2, 3]\n");
	free(f);
	write_text(f = join(dir, "notes.txt"), "notes\n");
	free(f);
	assert_int_equal(mkdir(sub, 0700), 0);
	free(export_sample(sub, "deeper.json"));
	tr = open_path(dir);
	names = file_names(tr);
	assert_string_equal(names, "run-a.trace");
	free(names);
	assert_same(ref, tr);
	tsr_trace_free(tr);
	/* A second one: both, sorted by name, on one axis (a second
	 * recording: a byte for byte copy would be read once). */
	f = export_sample(dir, "run-b.json");
	{
		FILE *fp = fopen(f, "a");

		assert_non_null(fp);
		fputc('\n', fp);
		fclose(fp);
	}
	free(f);
	tr = open_path(dir);
	names = file_names(tr);
	assert_string_equal(names, "run-a.trace run-b.json");
	free(names);
	assert_int_equal(tsr_trace_get_info(tr)->events, 2 * tsr_trace_get_info(ref)->events);
	tsr_trace_free(tr);
	tsr_trace_free(ref);
	free(sub);
	tsi_test_rmtree(dir);
}

static void test_dir_pvti_wins(void **state)
{
	char *dir = tsi_test_mkdtemp(), *copy = join(dir, "tut5_ml.pvti"), *names;
	char *cmd = NULL;
	tsr_trace *tr;

	(void)state;
	free(export_sample(dir, "tut5_ml.json"));
	assert_true(asprintf(&cmd, "cp '%s' '%s'", SAMPLE, copy) > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	tr = open_path(dir);
	names = file_names(tr);
	assert_string_equal(names, "tut5_ml.pvti");
	free(names);
	tsr_trace_free(tr);
	free(copy);
	tsi_test_rmtree(dir);
}

static void test_dir_without_trace(void **state)
{
	char *dir = tsi_test_mkdtemp(), *f, *cut;
	const char *p = dir;
	tsr_trace *tr = NULL;
	char *text;

	(void)state;
	/* Empty. */
	assert_int_equal(tsr_trace_open(&tr, &p, 1, NULL), TSR_ERR_NOT_FOUND);
	assert_null(tr);
	assert_non_null(strstr(tsr_last_error(), dir));
	assert_non_null(strstr(tsr_last_error(), "no trace in this directory"));
	/* Only JSON that is no trace. */
	write_text(f = join(dir, "config.json"), "{\"colour\": \"blue\"}\n");
	free(f);
	assert_int_equal(tsr_trace_open(&tr, &p, 1, NULL), TSR_ERR_NOT_FOUND);
	assert_non_null(strstr(tsr_last_error(), "no trace in this directory"));
	/* A damaged trace is not skipped: it is named. */
	f = export_sample(dir, "whole.json");
	text = tsi_test_read_file(f);
	text[300] = '\0';
	write_text(cut = join(dir, "cut.json"), text);
	assert_int_equal(tsr_trace_open(&tr, &p, 1, NULL), TSR_ERR_CORRUPT);
	assert_non_null(strstr(tsr_last_error(), cut));
	free(text);
	free(cut);
	free(f);
	tsi_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reopen_json_parsed_once),
		cmocka_unit_test(test_reopen_pvti_and_mix),
		cmocka_unit_test(test_reopen_limits),
		cmocka_unit_test(test_reopen_threads),
		cmocka_unit_test(test_dir_json_by_content),
		cmocka_unit_test(test_dir_pvti_wins),
		cmocka_unit_test(test_dir_without_trace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
