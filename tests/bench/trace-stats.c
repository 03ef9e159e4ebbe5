/*
 * Benchmark of statistics by label over a window (reportlib, trace.h),
 * as the System Analyser's Statistics tab asks for them: label
 * statistics with medians plus the totals, over the first half of a
 * trace. The trace is the System Analyser benchmark's shape (steps of ten
 * spans, three deep, over `threads` threads), written with the pvti API,
 * or an existing trace given by path so that two builds can be compared
 * on one file. Prints one line per figure,
 *   NAME VALUE UNIT (target OP VALUE)
 * plus '#' lines of context. A benchmark reports; it never fails on a
 * timing.
 *
 * Usage: bench-trace-stats [spans [threads]]   (default 10000000 64)
 *        bench-trace-stats --write DIR [spans [threads]]   (keeps the trace)
 *        bench-trace-stats TRACE.pvti
 */
#define _GNU_SOURCE 1

#include "bench-trace.h"
#include "bench-util.h"

#include <tilescope/trace.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RUNS 5

int main(int argc, char **argv)
{
	char tmp[] = "/tmp/bench-trace-stats-XXXXXX";
	const char *dir = NULL, *path = NULL;
	char *file = NULL;
	bool keep = false;
	long spans = 10000000;
	int threads = 64, rc = 1, a = 1;
	tsr_trace *tr = NULL;
	double times[RUNS], t0;
	struct stat sb;

	if (argc > 2 && strcmp(argv[1], "--write") == 0) {
		dir = argv[2];
		keep = true;
		a = 3;
	}
	if (argc > a && stat(argv[a], &sb) == 0 && S_ISREG(sb.st_mode)) {
		path = argv[a];
	} else {
		if (argc > a)
			spans = atol(argv[a]);
		if (argc > a + 1)
			threads = atoi(argv[a + 1]);
		if (!dir && !(dir = mkdtemp(tmp)))
			return 2;
		t0 = bench_now_ms();
		file = threads < 1 ? NULL
		                   : bench_write_trace(dir, &(bench_trace_options){.spans = spans,
		                                                                   .threads = threads});
		if (!file) {
			fprintf(stderr, "bench-trace-stats: tracing failed\n");
			goto cleanup;
		}
		printf("# made %s: %ld spans over %d threads in %.0f ms\n", file, spans, threads,
		       bench_now_ms() - t0);
		path = file;
	}
	if (tsr_trace_open(&tr, &path, 1, NULL) != TSR_OK) {
		fprintf(stderr, "bench-trace-stats: %s\n", tsr_last_error());
		goto cleanup;
	}
	for (int r = 0; r < RUNS; r++) {
		const tsr_trace_info *info = tsr_trace_get_info(tr);
		tsr_trace_stats_options so = TSR_TRACE_STATS_OPTIONS_INIT;
		tsr_trace_totals_options to = TSR_TRACE_TOTALS_OPTIONS_INIT;
		tsr_trace_label_stat *st = NULL;
		tsr_trace_totals *totals = NULL;
		size_t n = 0;

		so.from_ns = to.from_ns = info->start_ns;
		so.to_ns = to.to_ns = info->start_ns + (info->end_ns - info->start_ns) / 2;
		double t1;

		t0 = bench_now_ms();
		if (tsr_trace_list_label_stats(&st, &n, tr, &so) != TSR_OK) {
			fprintf(stderr, "bench-trace-stats: %s\n", tsr_trace_error(tr));
			goto cleanup;
		}
		t1 = bench_now_ms();
		if (tsr_trace_totals_new(&totals, tr, &to) != TSR_OK) {
			fprintf(stderr, "bench-trace-stats: %s\n", tsr_trace_error(tr));
			goto cleanup;
		}
		times[r] = bench_now_ms() - t0;
		printf("# run %d: %.1f ms (labels %.1f, totals %.1f), %zu labels, %llu spans in the "
		       "window, median of '%s' %llu ns\n",
		       r, times[r], t1 - t0, bench_now_ms() - t1, n, (unsigned long long)totals->spans,
		       n ? tsr_trace_get_name(tr, st[0].name) : "", n ? (unsigned long long)st[0].median_ns : 0ull);
		free(st);
		tsr_trace_totals_free(totals);
	}
	qsort(times, RUNS, sizeof(times[0]), bench_compare_double);
	printf("trace.stats_half_ms %.0f ms (target <= 300)\n", times[RUNS / 2]);
	rc = 0;
cleanup:
	tsr_trace_free(tr);
	free(file);
	if (dir && !keep)
		bench_remove_tree(dir);
	return rc;
}
