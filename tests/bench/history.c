/*
 * The history store at the scale of issue 32: 10,000 runs of 500
 * metrics, grown by tsr_history_add one run at a time as CI grows it (the
 * metrics are a sample report's, padded with made-up compute sets up to
 * 500). Prints, as medians of repeats on the full store:
 *
 *   history.add_ms      one more run (open the store, add, close)
 *   history.show_ms     one metric's whole series (open, list, close)
 *   history.check_ms    the report against the newest run: open the store
 *                       and the report, find the run, compare, check a limit
 *   history.add_trace_ms    with TRACE: a run of a trace's wall-clock
 *                       figures (open the store and the trace, add, close)
 *   history.add_sample_ms   with TRACE: its figures as the next sample of
 *                       the newest run (add --repeat)
 *   history.size_mb     the store's file (and its WAL, checkpointed)
 *   history.changes_e2e_ms  with TILESCOPE: `TILESCOPE history changes
 *                       STORE -o /dev/null`, the command the user runs
 *                       (median of 5; the store's reads and the search)
 *   history.report_ms   with TILESCOPE: `TILESCOPE history report STORE -o
 *                       PAGE` (median of 5), and history.report_kb the page
 *
 * usage: bench-history REPORT [RUNS [METRICS [TILESCOPE [TRACE]]]]
 */
#include "bench-util.h"

#include "tilescope/history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define REPEATS 21
#define CHANGES_REPEATS 5
#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* The median of n timings (sorts them). */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_compare_double);
	return v[n / 2];
}

/* Adds run `i` of the synthetic history: every value grows by one now
 * and then, as a real series steps. */
static int add_run(tsr_history *h, tsr_history_figure *figs, const uint64_t *base, size_t n,
                   size_t i)
{
	char commit[48];
	tsr_history_run r = {.commit = commit, .branch = "main", .time = (int64_t)i,
	                     .report_path = "profile.pop", .report_sha256 = SHA};

	snprintf(commit, sizeof(commit), "%040zx", i);
	for (size_t k = 0; k < n; k++)
		figs[k].value = base[k] + (i / 97 + k) % 5;
	return tsr_history_add(NULL, NULL, h, &r, figs, n);
}

/* Runs `tilescope history VERB path -o output`; its wall-clock ms, or a
 * negative number when it did not exit 0. */
static double time_verb(const char *tilescope, const char *verb, const char *path,
                        const char *output)
{
	char *argv[] = {(char *)tilescope, "history", (char *)verb, (char *)path, "-o",
	                (char *)output, NULL};
	double t0 = bench_now_ms();
	pid_t pid;
	int status;

	if (posix_spawn(&pid, tilescope, NULL, NULL, argv, environ) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return bench_now_ms() - t0;
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

int main(int argc, char **argv)
{
	size_t runs = argc > 2 ? strtoul(argv[2], NULL, 10) : 10000;
	size_t metrics = argc > 3 ? strtoul(argv[3], NULL, 10) : 500;
	char dir[] = "/tmp/tilescope-bench-history.XXXXXX", path[256], wal[300], page[256];
	tsr_history_figure *real = NULL, *figs;
	char (*names)[64];
	uint64_t *base;
	size_t n_real = 0;
	double add[REPEATS], show[REPEATS], check[REPEATS], changes[CHANGES_REPEATS],
	    page_ms[CHANGES_REPEATS], t0;
	double add_trace[REPEATS], add_sample[REPEATS];
	const char *trace_path = argc > 5 ? argv[5] : NULL;
	tsr_report *report = NULL;
	tsr_history *h = NULL;

	if (argc < 2 || !runs || metrics < 2) {
		fprintf(stderr, "usage: bench-history REPORT [RUNS [METRICS [TILESCOPE [TRACE]]]]\n");
		return 2;
	}
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/history.db", dir);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	snprintf(page, sizeof(page), "%s/trends.html", dir);
	if (tsr_report_open(&report, argv[1], NULL) ||
	    tsr_history_list_report_figures(&real, &n_real, report)) {
		fprintf(stderr, "bench-history: %s: %s\n", argv[1], tsr_last_error());
		return 1;
	}
	figs = calloc(metrics, sizeof(*figs));
	names = calloc(metrics, sizeof(*names));
	base = calloc(metrics, sizeof(*base));
	for (size_t k = 0; k < metrics; k++) {
		if (k < n_real) {
			snprintf(names[k], sizeof(names[k]), "%s", real[k].metric);
			figs[k].unit = real[k].unit;
			base[k] = real[k].value;
		} else {
			snprintf(names[k], sizeof(names[k]), "cycles.compute_set.synthetic/cs%04zu", k);
			figs[k].unit = TSR_UNIT_CYCLES;
			base[k] = 1000 + 37 * k;
		}
		figs[k].metric = names[k];
	}
	printf("# %zu runs x %zu metrics (%zu of them %s's)\n", runs, metrics,
	       n_real < metrics ? n_real : metrics, argv[1]);
	fflush(stdout);
	if (tsr_history_open(&h, path, TSR_HISTORY_CREATE))
		goto fail;
	t0 = bench_now_ms();
	for (size_t i = 0; i + REPEATS < runs; i++)
		if (add_run(h, figs, base, metrics, i))
			goto fail;
	tsr_history_free(h);
	h = NULL;
	printf("# grown to %zu runs in %.1f s\n", runs - REPEATS, (bench_now_ms() - t0) / 1000);
	/* The last runs, each as a CI job adds one: open, add, close. */
	for (size_t r = 0; r < REPEATS; r++) {
		t0 = bench_now_ms();
		if (tsr_history_open(&h, path, 0) || add_run(h, figs, base, metrics, runs - REPEATS + r))
			goto fail;
		tsr_history_free(h);
		h = NULL;
		add[r] = bench_now_ms() - t0;
	}
	for (size_t r = 0; r < REPEATS; r++) {
		tsr_history_point *p = NULL;
		size_t n = 0;

		t0 = bench_now_ms();
		if (tsr_history_open(&h, path, 0) ||
		    tsr_history_list_series(&p, &n, h, figs[r % metrics].metric, NULL, NULL, 0))
			goto fail;
		if (n != runs) {
			fprintf(stderr, "bench-history: a series of %zu points, not %zu\n", n, runs);
			goto fail;
		}
		free(p);
		tsr_history_free(h);
		h = NULL;
		show[r] = bench_now_ms() - t0;
	}
	tsr_report_free(report);
	report = NULL;
	for (size_t r = 0; r < REPEATS; r++) {
		tsr_history_run *last = NULL;
		tsr_compare_limits *limits = NULL;
		tsr_comparison *cmp = NULL;
		tsr_limit_check *checks = NULL;
		size_t n = 0;

		t0 = bench_now_ms();
		if (tsr_history_open(&h, path, 0) || tsr_report_open(&report, argv[1], NULL) ||
		    tsr_history_list_runs(&last, &n, h, NULL, "main", "", 1) || n != 1 ||
		    tsr_history_compare(&cmp, h, last[0].id, report) ||
		    tsr_compare_limits_new(&limits) ||
		    tsr_compare_limits_set_option(limits, "max-memory-increase", "1%") ||
		    tsr_compare_limits_list_checks(&checks, &n, limits, cmp))
			goto fail;
		free(checks);
		free(last);
		tsr_compare_limits_free(limits);
		tsr_comparison_free(cmp);
		tsr_report_free(report);
		report = NULL;
		tsr_history_free(h);
		h = NULL;
		check[r] = bench_now_ms() - t0;
	}
	/* A trace's run, then its figures as samples of the newest run
	 * (whose 500 metrics the trace's join), each as a CI job adds it. */
	for (size_t r = 0; trace_path && r < REPEATS; r++) {
		tsr_history_figure *tf = NULL;
		tsr_trace *trace = NULL;
		char commit[48];
		tsr_history_run tr = {.commit = commit, .branch = "main", .time = (int64_t)(runs + r)};
		size_t n = 0;

		snprintf(commit, sizeof(commit), "trace%zu", r);
		t0 = bench_now_ms();
		if (tsr_history_open(&h, path, 0) || tsr_trace_open(&trace, &trace_path, 1, NULL) ||
		    tsr_history_add_files(NULL, NULL, h, &tr, NULL, trace))
			goto fail;
		tsr_trace_free(trace);
		tsr_history_free(h);
		h = NULL;
		add_trace[r] = bench_now_ms() - t0;
		snprintf(commit, sizeof(commit), "%040zx", runs - 1);
		t0 = bench_now_ms();
		if (tsr_history_open(&h, path, 0) || tsr_trace_open(&trace, &trace_path, 1, NULL) ||
		    tsr_history_list_trace_figures(&tf, &n, trace) ||
		    tsr_history_add_sample(NULL, NULL, h, &tr, tf, n))
			goto fail;
		free(tf);
		tsr_trace_free(trace);
		tsr_history_free(h);
		h = NULL;
		add_sample[r] = bench_now_ms() - t0;
	}
	/* The size a CI cache keeps: the store, its WAL checkpointed in by
	 * the last close. */
	printf("history.add_ms %.2f ms (target <= 50)\n", median(add, REPEATS));
	printf("history.show_ms %.2f ms (target <= 20)\n", median(show, REPEATS));
	printf("history.check_ms %.2f ms (target <= 200)\n", median(check, REPEATS));
	if (trace_path) {
		printf("history.add_trace_ms %.2f ms (target <= 50)\n", median(add_trace, REPEATS));
		printf("history.add_sample_ms %.2f ms (target <= 50)\n", median(add_sample, REPEATS));
	}
	printf("history.size_mb %.1f MB (target <= 100)\n",
	       (double)(file_size(path) + file_size(wal)) / 1e6);
	for (size_t r = 0; argc > 4 && r < CHANGES_REPEATS; r++)
		if ((changes[r] = time_verb(argv[4], "changes", path, "/dev/null")) < 0 ||
		    (page_ms[r] = time_verb(argv[4], "report", path, page)) < 0) {
			fprintf(stderr, "bench-history: %s history changes|report %s failed\n", argv[4],
			        path);
			bench_remove_tree(dir);
			return 1;
		}
	if (argc > 4) {
		printf("history.changes_e2e_ms %.0f ms (target <= 5000)\n",
		       median(changes, CHANGES_REPEATS));
		printf("history.report_ms %.0f ms\n", median(page_ms, CHANGES_REPEATS));
		printf("history.report_kb %.0f KB\n", (double)file_size(page) / 1e3);
	}
	free(real);
	free(figs);
	free(names);
	free(base);
	bench_remove_tree(dir);
	return 0;
fail:
	fprintf(stderr, "bench-history: %s\n", h ? tsr_history_error(h) : tsr_last_error());
	bench_remove_tree(dir);
	return 1;
}
