/*
 * Issue 16, across to the Graph Analyser: a traced engine that writes an
 * autoReport records, on its compile span and on each run span, the
 * report's directory, its name and the run's index, and reportlib reads
 * them back (tsr_trace_dup_span_report). Two cases:
 *  - tut4_profiling run as a user runs it, with autoReport.all and
 *    PVTI_OPTIONS: every "Run program N" span of a kept run names run k
 *    of the report, and run k of the report is of program N;
 *  - two engines in one process reporting to one directory: the first's
 *    files move into its subdirectory when the second comes, and its
 *    compile span still leads to them.
 */
#include "test-util.h"

#include <tilescope/ipu.h>
#include <tilescope/pvti.h>
#include <tilescope/report.h>
#include <tilescope/trace.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *tut4_exe;

/* A span found by name prefix: its thread and seq. */
typedef struct span_ref {
	size_t thread;
	int64_t seq, start_ns;
	char name[128];
} span_ref;

/* Every span of `t` whose name starts with `prefix`, in start order
 * (malloc'd array, *n of them). */
static span_ref *find_spans(tsr_trace *t, const char *prefix, size_t *n)
{
	const tsr_trace_thread *threads;
	size_t n_threads, cap = 0;
	span_ref *out = NULL;

	*n = 0;
	assert_int_equal(tsr_trace_get_threads(&threads, &n_threads, t), TSR_OK);
	for (size_t th = 0; th < n_threads; th++) {
		tsr_trace_item *items = NULL;
		size_t n_items = 0;

		assert_int_equal(tsr_trace_list_events(&items, &n_items, t, th, INT64_MIN / 2,
		                                       INT64_MAX / 2, 0),
		                 TSR_OK);
		for (size_t i = 0; i < n_items; i++) {
			const char *name = tsr_trace_get_name(t, items[i].name);

			if (items[i].kind != TSR_TRACE_ITEM_EVENT || !name ||
			    strncmp(name, prefix, strlen(prefix)) != 0)
				continue;
			if (*n == cap) {
				cap = cap ? cap * 2 : 8;
				out = realloc(out, cap * sizeof(*out));
				assert_non_null(out);
			}
			out[*n].thread = th;
			out[*n].seq = items[i].seq;
			out[*n].start_ns = items[i].start_ns;
			snprintf(out[*n].name, sizeof(out[*n].name), "%s", name);
			(*n)++;
		}
		free(items);
	}
	for (size_t i = 1; i < *n; i++) /* insertion sort by start: a handful */
		for (size_t j = i; j > 0 && out[j].start_ns < out[j - 1].start_ns; j--) {
			span_ref tmp = out[j];
			out[j] = out[j - 1];
			out[j - 1] = tmp;
		}
	return out;
}

static void test_example_links_runs(void **state)
{
	char *dir = tsi_test_mkdtemp(), cmd[4096], rel[PATH_MAX], want[PATH_MAX], tracedir[PATH_MAX];
	char *path, *link_dir = NULL, *engine = NULL;
	const char *paths[1];
	tsr_trace *t = NULL;
	tsr_report *r = NULL;
	const tsr_run *runs;
	size_t n_runs, n_compile, n_run, linked = 0;
	span_ref *compile, *run, *other;
	int64_t k = 0;

	(void)state;
	snprintf(cmd, sizeof(cmd),
	         "cd '%s' && POPLAR_ENGINE_OPTIONS='{\"autoReport.all\":\"true\","
	         "\"autoReport.directory\":\"report\"}' "
	         "PVTI_OPTIONS='{\"enable\":\"true\",\"directory\":\"trace\"}' '%s' >/dev/null",
	         dir, tut4_exe);
	assert_int_equal(system(cmd), 0);
	snprintf(rel, sizeof(rel), "%s/report", dir);
	assert_non_null(realpath(rel, want)); /* the link is absolute */
	snprintf(tracedir, sizeof(tracedir), "%s/trace", dir);
	path = tsi_test_only_file(tracedir, ".pvti");
	paths[0] = path;
	assert_int_equal(tsr_trace_open(&t, paths, 1, NULL), TSR_OK);
	assert_int_equal(tsr_report_open(&r, want, NULL), TSR_OK);
	assert_int_equal(tsr_report_get_runs(&runs, &n_runs, r), TSR_OK);
	assert_true(n_runs >= 1);

	/* The compile span: the report, no run. */
	compile = find_spans(t, "Compiling ", &n_compile);
	assert_int_equal(n_compile, 1);
	assert_int_equal(tsr_trace_dup_span_report(&link_dir, &engine, &k, t, compile[0].thread,
	                                           compile[0].seq),
	                 TSR_OK);
	assert_string_equal(link_dir, want);
	assert_string_equal(engine, "engine0"); /* tut4 names no engine */
	assert_int_equal(k, -1);
	free(link_dir);
	free(engine);

	/* Each run span of a kept run: runs 0, 1, ... in order, each of the
	 * program its span names. */
	run = find_spans(t, "Run program ", &n_run);
	assert_true(n_run >= n_runs);
	for (size_t i = 0; i < n_run; i++) {
		unsigned program;

		link_dir = engine = NULL;
		assert_int_equal(tsr_trace_dup_span_report(&link_dir, NULL, &k, t, run[i].thread,
		                                           run[i].seq),
		                 TSR_OK);
		assert_string_equal(link_dir, want);
		free(link_dir);
		if (k < 0)
			continue; /* a run past executionProfileProgramRunCount */
		assert_int_equal(k, (int64_t)linked);
		assert_true((size_t)k < n_runs);
		assert_int_equal(sscanf(run[i].name, "Run program %u", &program), 1);
		assert_int_equal(runs[k].program, program);
		linked++;
	}
	assert_int_equal(linked, n_runs);

	/* A span without a link says so. */
	other = find_spans(t, "Graph construction", &n_compile);
	assert_true(n_compile >= 1);
	link_dir = (char *)"unchanged";
	assert_int_equal(tsr_trace_dup_span_report(&link_dir, NULL, NULL, t, other[0].thread,
	                                           other[0].seq),
	                 TSR_ERR_NO_DATA);
	assert_null(link_dir);
	assert_non_null(strstr(tsr_trace_error(t), "no autoReport"));

	free(compile);
	free(run);
	free(other);
	tsr_report_free(r);
	tsr_trace_free(t);
	free(path);
	tsi_test_rmtree(dir);
}

/* Compiles an empty program as engine `name` with autoReport into `dir`. */
static tsi_engine *compile_named(tsi_test_model *m, const char *dir, const char *name)
{
	tsi_options *opts = tsi_options_new();
	tsi_program *seq = tsi_prog_sequence(m->graph, "main");
	tsi_engine *e = NULL;

	assert_non_null(opts);
	assert_non_null(seq);
	assert_int_equal(tsi_options_set(opts, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(opts, "autoReport.directory", dir), TSI_OK);
	assert_int_equal(tsi_engine_new_named(&e, m->graph, &seq, 1, opts, name), TSI_OK);
	tsi_options_free(opts);
	return e;
}

static void test_moved_report_followed(void **state)
{
	char *dir = tsi_test_mkdtemp(), report[PATH_MAX], real[PATH_MAX], want[PATH_MAX + 16];
	char *path = NULL;
	char *link_dir = NULL, *engine = NULL;
	const char *paths[1];
	pvti_options opts = PVTI_OPTIONS_INIT;
	tsi_test_model m;
	tsi_engine *first, *second;
	tsr_trace *t = NULL;
	span_ref *spans;
	size_t n;

	(void)state;
	snprintf(report, sizeof(report), "%s/report", dir);
	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), TSI_OK);
	path = pvti_dup_file_name();
	tsi_test_model_init(&m, 1, 4, 1);
	first = compile_named(&m, report, "first");
	second = compile_named(&m, report, "second"); /* moves first's files */
	tsi_engine_free(first);
	tsi_engine_free(second);
	tsi_test_model_free(&m);
	assert_int_equal(pvti_close(), TSI_OK);
	assert_non_null(realpath(report, real));

	paths[0] = path;
	assert_int_equal(tsr_trace_open(&t, paths, 1, NULL), TSR_OK);
	spans = find_spans(t, "Compiling engine ", &n);
	assert_int_equal(n, 2);
	assert_string_equal(spans[0].name, "Compiling engine first");
	assert_int_equal(tsr_trace_dup_span_report(&link_dir, &engine, NULL, t, spans[0].thread,
	                                           spans[0].seq),
	                 TSR_OK);
	snprintf(want, sizeof(want), "%s/first", real);
	assert_string_equal(link_dir, want);
	assert_string_equal(engine, "first");
	free(link_dir);
	free(engine);
	assert_int_equal(tsr_trace_dup_span_report(&link_dir, &engine, NULL, t, spans[1].thread,
	                                           spans[1].seq),
	                 TSR_OK);
	snprintf(want, sizeof(want), "%s/second", real);
	assert_string_equal(link_dir, want);
	assert_string_equal(engine, "second");
	free(link_dir);
	free(engine);
	free(spans);
	tsr_trace_free(t);
	free(path);
	tsi_test_rmtree(dir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_links_runs),
		cmocka_unit_test(test_moved_report_followed),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: test_trace_report_link TUT4_PROFILING_EXECUTABLE\n");
		return 2;
	}
	tut4_exe = realpath(argv[1], NULL);
	if (!tut4_exe) {
		fprintf(stderr, "test_trace_report_link: %s: not found\n", argv[1]);
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
