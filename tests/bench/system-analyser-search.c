/*
 * Benchmark: the System Analyser's search on a large trace. Writes a
 * trace of SPANS spans (default 10 M) with the pvti API over THREADS
 * threads (default 64; each: "step" spans holding six "op"s, three of
 * which hold a "kernel", and a rare "checkpoint" every 10,000 steps),
 * opens it as the app does (sa_document_load) and times, on the
 * document's second handle as the search bar's worker runs them
 * (sa-search-job.h):
 *   sa.search_new_ms      median over 5 runs of a new search of every
 *                         name (regular expression "."): the names
 *                         matched, the hits counted, the first hit found
 *                         (what typing in the bar costs); and the same
 *                         for "op", "kernel" and "checkpoint"
 *   sa.search_step_ms     median and max of 50 Next then 50 Previous
 *                         steps, for a frequent and a rare name
 *   sa.search_scan_ms     reference: one tsr_trace_search over the whole
 *                         trace (what counting by decoding every span
 *                         would cost)
 *   sa.call_tree_half_ms  the Call Tree tab's query (tsr_trace_call_tree_new)
 *                         of a window holding half the trace, median of 3,
 *                         interleaved with the statistics of the same
 *                         window without medians (the decoding both share),
 *                         and the median ratio of the pairs
 * and checks (exit 1 on a wrong answer, never on a timing) that the
 * counts equal tsr_trace_search's totals and that 50 Next steps from the
 * first hit land where tsr_trace_search's 51st hit is, and 50 Previous
 * steps back on the first.
 *
 * Usage: bench-system-analyser-search [SPANS [THREADS]]
 */
#define _GNU_SOURCE 1

#include "bench-trace.h"
#include "bench-util.h"
#include "sa-document.h"
#include "sa-search-job.h"


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS 5
#define STEPS 50

/* What one pattern is searched with. */
typedef struct query {
	const char *label, *pattern;
	tsr_trace_match mode;
} query;

/* The first `limit` hits and the total by one tsr_trace_search of the
 * whole trace (the reference). */
static int scan(tsr_trace *trace, const query *qu, size_t limit, tsr_trace_found **hits,
                size_t *n, uint64_t *total)
{
	tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;

	q.pattern = qu->pattern;
	q.mode = qu->mode;
	q.limit = limit;
	return tsr_trace_search(hits, n, total, trace, &q);
}

static gboolean same_hit(const tsr_trace_found *a, const tsr_trace_found *b)
{
	return a->thread == b->thread && a->event.seq == b->event.seq &&
	       a->event.start_ns == b->event.start_ns;
}

/* Times a new search, steps, and checks them against the reference. */
static int bench_query(tsr_trace *trace, const query *qu)
{
	double t[RUNS], steps[2 * STEPS], t0;
	tsr_trace_found first = {0}, hit, *ref = NULL;
	gboolean found = FALSE;
	uint64_t total = 0, ref_total = 0;
	size_t names = 0, n_ref = 0, n_steps = 0;
	int rc = 0;

	for (int r = 0; r < RUNS; r++) {
		t0 = bench_now_ms();
		if (sa_search_count(&total, &names, trace, qu->pattern, qu->mode) != TSR_OK ||
		    sa_search_step(&first, &found, trace, qu->pattern, qu->mode, NULL, TRUE, total) !=
		        TSR_OK) {
			fprintf(stderr, "bench-system-analyser-search: %s\n", tsr_trace_error(trace));
			return 1;
		}
		t[r] = bench_now_ms() - t0;
	}
	qsort(t, RUNS, sizeof(t[0]), bench_compare_double);
	printf("sa.search_new_ms[%s] %.1f ms (target <= 200; %llu hits of %zu names)\n", qu->label,
	       t[RUNS / 2], (unsigned long long)total, names);

	t0 = bench_now_ms();
	if (scan(trace, qu, STEPS + 1, &ref, &n_ref, &ref_total) != TSR_OK) {
		fprintf(stderr, "bench-system-analyser-search: %s\n", tsr_trace_error(trace));
		return 1;
	}
	printf("sa.search_scan_ms[%s] %.1f ms (reference: every span decoded)\n", qu->label,
	       bench_now_ms() - t0);
	if (ref_total == 0 && total == 0 && !found)
		goto done;
	if (ref_total != total || !found || n_ref == 0 || !same_hit(&first, &ref[0])) {
		fprintf(stderr, "bench-system-analyser-search: %s: %llu hits, tsr_trace_search %llu; "
		        "the first hit differs: %d\n", qu->label, (unsigned long long)total,
		        (unsigned long long)ref_total, n_ref == 0 || !same_hit(&first, &ref[0]));
		rc = 1;
		goto done;
	}
	/* Next STEPS times (as far as the hits go), then back. */
	hit = first;
	for (size_t i = 1; i < n_ref; i++, n_steps++) {
		t0 = bench_now_ms();
		sa_search_step(&hit, &found, trace, qu->pattern, qu->mode, &hit, TRUE, total);
		steps[n_steps] = bench_now_ms() - t0;
		if (!found || !same_hit(&hit, &ref[i])) {
			fprintf(stderr, "bench-system-analyser-search: %s: Next %zu landed elsewhere\n",
			        qu->label, i);
			rc = 1;
			goto done;
		}
	}
	for (size_t i = n_ref - 1; i-- > 0; n_steps++) {
		t0 = bench_now_ms();
		sa_search_step(&hit, &found, trace, qu->pattern, qu->mode, &hit, FALSE, total);
		steps[n_steps] = bench_now_ms() - t0;
		if (!found || !same_hit(&hit, &ref[i])) {
			fprintf(stderr, "bench-system-analyser-search: %s: Previous to %zu landed "
			        "elsewhere\n", qu->label, i);
			rc = 1;
			goto done;
		}
	}
	if (n_steps) {
		qsort(steps, n_steps, sizeof(steps[0]), bench_compare_double);
		printf("sa.search_step_ms[%s] median %.2f ms, max %.2f ms over %zu steps\n", qu->label,
		       steps[n_steps / 2], steps[n_steps - 1], n_steps);
	}
done:
	free(ref);
	return rc;
}

/* The call tree of the first half of the trace, against the statistics
 * of the same window, interleaved A B A B A B. */
static int bench_call_tree(tsr_trace *trace)
{
	const tsr_trace_info *info = tsr_trace_get_info(trace);
	tsr_trace_call_tree_options o = TSR_TRACE_CALL_TREE_OPTIONS_INIT;
	tsr_trace_stats_options so = TSR_TRACE_STATS_OPTIONS_INIT;
	double tree_ms[3], stats_ms[3], ratio[3], t0;
	uint64_t spans = 0;

	o.from_ns = so.from_ns = info->start_ns;
	o.to_ns = so.to_ns = info->start_ns + (info->end_ns - info->start_ns) / 2;
	so.median = false;
	for (int r = 0; r < 3; r++) {
		tsr_trace_call_tree *t = NULL;
		tsr_trace_label_stat *ls = NULL;
		size_t n = 0;

		t0 = bench_now_ms();
		if (tsr_trace_call_tree_new(&t, trace, &o) != TSR_OK)
			goto fail;
		tree_ms[r] = bench_now_ms() - t0;
		spans = t->spans;
		tsr_trace_call_tree_free(t);
		t0 = bench_now_ms();
		if (tsr_trace_list_label_stats(&ls, &n, trace, &so) != TSR_OK)
			goto fail;
		stats_ms[r] = bench_now_ms() - t0;
		free(ls);
		ratio[r] = tree_ms[r] / stats_ms[r];
	}
	qsort(tree_ms, 3, sizeof(double), bench_compare_double);
	qsort(stats_ms, 3, sizeof(double), bench_compare_double);
	qsort(ratio, 3, sizeof(double), bench_compare_double);
	printf("sa.call_tree_half_ms %.0f ms (%llu spans; statistics of the window %.0f ms; "
	       "ratio median %.2f, range %.2f-%.2f)\n", tree_ms[1], (unsigned long long)spans,
	       stats_ms[1], ratio[1], ratio[0], ratio[2]);
	return 0;
fail:
	fprintf(stderr, "bench-system-analyser-search: %s\n", tsr_trace_error(trace));
	return 1;
}

static gpointer run_all(tsr_trace *trace, gpointer data, GCancellable *cancellable,
                        GError **error)
{
	static const query queries[] = {
		{"all", ".", TSR_TRACE_MATCH_REGEX},
		{"op", "op", TSR_TRACE_MATCH_SUBSTRING},
		{"kernel", "KERNEL", TSR_TRACE_MATCH_SUBSTRING_ICASE},
		{"checkpoint", "^check", TSR_TRACE_MATCH_REGEX},
	};
	int *rc = data;

	(void)cancellable;
	(void)error;
	for (size_t i = 0; i < G_N_ELEMENTS(queries); i++)
		*rc |= bench_query(trace, &queries[i]);
	*rc |= bench_call_tree(trace);
	return rc;
}

int main(int argc, char **argv)
{
	long spans = argc > 1 ? atol(argv[1]) : 10000000;
	int threads = argc > 2 ? atoi(argv[2]) : 64;
	char dir[] = "/tmp/bench-sa-search-XXXXXX";
	g_autoptr(SaDocument) doc = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GFile) file = NULL;
	char *path;
	double t0;
	int rc = 1, answer = 0;

	if (spans < 1000 || threads < 1 || threads > 256 || !mkdtemp(dir)) {
		fprintf(stderr, "usage: bench-system-analyser-search [SPANS >= 1000 [THREADS]]\n");
		return 2;
	}
	t0 = bench_now_ms();
	path = bench_write_trace(dir, &(bench_trace_options){.spans = spans, .threads = threads,
	                                                     .checkpoints = true});
	if (!path) {
		fprintf(stderr, "bench-system-analyser-search: tracing failed\n");
		goto cleanup;
	}
	printf("# made a trace of %ld spans over %d threads in %.1f s\n", spans, threads,
	       (bench_now_ms() - t0) / 1e3);
	file = g_file_new_for_path(path);
	doc = sa_document_load(&file, 1, &error);
	if (!doc) {
		fprintf(stderr, "bench-system-analyser-search: %s\n", error->message);
		goto cleanup;
	}
	/* Open the second handle first, so that no figure includes it. */
	t0 = bench_now_ms();
	sa_document_stats(doc, 0, 1, NULL);
	printf("# the second handle opened in %.0f ms\n", bench_now_ms() - t0);
	if (!sa_document_run(doc, run_all, &answer, NULL, &error)) {
		fprintf(stderr, "bench-system-analyser-search: %s\n", error->message);
		goto cleanup;
	}
	rc = answer;
cleanup:
	bench_remove_tree(dir);
	free(path);
	return rc;
}
