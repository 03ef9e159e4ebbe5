/*
 * Benchmark of reading traces (reportlib, trace.h): a 10 M-span trace is
 * made with the pvti API (one thread: "step" spans each holding six "op"
 * spans, three of which hold a "kernel": three depths, ten spans a step), then
 * a timeline's viewport query (tsr_trace_list_events, 2,000 pixels) is timed
 * at five zoom levels from the whole trace down to a 1 us window, at
 * positions spread over the trace. Prints one line per figure,
 *   NAME VALUE UNIT (target OP VALUE)
 * plus '#' lines of context (making and opening the trace, the first
 * query of each zoom, which may build the in-memory level of detail).
 * A benchmark reports; it never fails on a timing.
 *
 * Usage: bench-trace-viewport [spans]   (default 10000000)
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

#define PIXELS 2000
#define POSITIONS 25

int main(int argc, char **argv)
{
	long spans = argc > 1 ? atol(argv[1]) : 10000000;
	char dir[] = "/tmp/bench-trace-viewport-XXXXXX";
	static const char *const names[5] = {"whole", "1/100", "1/10000", "10us", "1us"};
	const tsr_trace_thread *threads;
	tsr_trace *tr = NULL;
	const char *path;
	char *file;
	size_t n_threads;
	struct stat sb;
	double t0, ms;
	int64_t first, span, window[5];
	int z, rc = 1;

	if (spans < 1000 || !mkdtemp(dir)) {
		fprintf(stderr, "usage: bench-trace-viewport [spans >= 1000]\n");
		return 2;
	}
	t0 = bench_now_ms();
	file = bench_write_trace(dir, &(bench_trace_options){.spans = spans});
	if (!file) {
		fprintf(stderr, "bench-trace-viewport: tracing failed\n");
		goto cleanup;
	}
	ms = bench_now_ms() - t0;
	stat(file, &sb);
	printf("# made a trace of %ld spans in %.0f ms (%.1f MB, %.1f bytes/span)\n", spans, ms,
	       (double)sb.st_size / 1e6, (double)sb.st_size / (double)spans);
	path = file;
	t0 = bench_now_ms();
	if (tsr_trace_open(&tr, &path, 1, NULL) != TSR_OK) {
		fprintf(stderr, "bench-trace-viewport: %s\n", tsr_last_error());
		goto cleanup;
	}
	printf("trace_open %.2f ms\n", bench_now_ms() - t0);
	tsr_trace_get_threads(&threads, &n_threads, tr);
	first = threads[0].first_ns;
	span = threads[0].last_ns - first + 1;
	printf("# thread 'main': %llu spans over %.3f ms\n", (unsigned long long)threads[0].events,
	       (double)span / 1e6);
	window[0] = span;
	window[1] = span / 100;
	window[2] = span / 10000;
	window[3] = 10000;
	window[4] = 1000;
	for (z = 0; z < 5; z++) {
		double times[POSITIONS], sum = 0;
		size_t items = 0, total_items = 0;
		int k;

		for (k = -1; k < POSITIONS; k++) {
			int64_t from = first + (span - window[z]) / (POSITIONS - 1) * (k < 0 ? 0 : k);
			uint64_t res = (uint64_t)window[z] / PIXELS ? (uint64_t)window[z] / PIXELS : 1;
			tsr_trace_item *out = NULL;

			t0 = bench_now_ms();
			if (tsr_trace_list_events(&out, &items, tr, 0, from, from + window[z], res) != TSR_OK) {
				fprintf(stderr, "bench-trace-viewport: %s\n", tsr_trace_error(tr));
				goto cleanup;
			}
			ms = bench_now_ms() - t0;
			free(out);
			if (k < 0) {
				printf("# zoom %s: first query %.2f ms\n", names[z], ms);
				continue;
			}
			times[k] = ms;
			sum += ms;
			total_items += items;
		}
		qsort(times, POSITIONS, sizeof(times[0]), bench_compare_double);
		printf("# zoom %s: window %.3f us, %zu items per query on average, max %.2f ms\n",
		       names[z], (double)window[z] / 1e3, total_items / POSITIONS, times[POSITIONS - 1]);
		printf("viewport_%s_median %.3f ms (target <= 10 ms)\n", names[z], times[POSITIONS / 2]);
		(void)sum;
	}
	{
		tsr_trace_label_stat *s = NULL;
		tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
		size_t n;

		o.median = false;
		t0 = bench_now_ms();
		tsr_trace_list_label_stats(&s, &n, tr, &o);
		printf("# label statistics from label_stats: %.2f ms\n", bench_now_ms() - t0);
		free(s);
		o.median = true;
		t0 = bench_now_ms();
		tsr_trace_list_label_stats(&s, &n, tr, &o);
		printf("# label statistics with medians (all chunks): %.0f ms\n", bench_now_ms() - t0);
		free(s);
	}
	rc = 0;
cleanup:
	tsr_trace_free(tr);
	free(file);
	bench_remove_tree(dir);
	return rc;
}
