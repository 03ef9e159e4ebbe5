/*
 * `tilescope trace TRACE...`: statistics of .pvti system traces and
 * Chrome trace-event JSON files (reportlib's trace.h): per label (count, total, self, mean, median, min,
 * max), totals per channel and per thread, and the counter series, as
 * text, JSON or an HTML page (trace-html.c). Several files of one job are
 * merged onto one time axis.
 *
 * JSON keys (nanoseconds are exact integers, on the merged time axis of
 * trace.h unless said otherwise):
 *   trace      {files, threads, spans, start_ns, end_ns, origin_wall_ns,
 *               complete}: the whole trace, whatever --thread / --from say
 *   processes  [{path, pid, host, name, complete}], one per file
 *   window     {from_ns, to_ns (null: the end)}, or null for the whole trace
 *   spans      spans in the statistics (the thread and window asked for)
 *   labels     [{channel, name, count, total_ns, self_ns, mean_ns (a
 *               fraction), median_ns (null with --no-median), median_exact,
 *               min_ns, max_ns}] sorted as --sort says; all unless --top
 *   channels   [{name, spans, self_ns}], channels with spans in the view
 *   threads    [{process, pid, thread, tid, name, spans, busy_ns, first_ns,
 *               last_ns}]: busy is the sum of the self times of its spans
 *               in the view; first / last its earliest span start and
 *               latest span end in the whole trace (null: no spans)
 *   series     [{process, graph, name, unit, samples, min, max}] over the
 *               window (min and max null without samples)
 *   heatmaps   [{process, name, unit, edges, samples, first_ns, last_ns,
 *               counts, skipped}]: samples, first / last over the whole
 *               heatmap; counts (one per bucket, n edges + 1) over the window
 *   call_tree  with --call-tree: {spans, inclusive_ns, roots: [{channel,
 *               name, count, inclusive_ns, exclusive_ns, children: [...]}]}
 *               (tsr_trace_call_tree_new over the view; children by
 *               inclusive time)
 */
#include "cli.h"
#include "cli-options.h"
#include "trace-view.h"
#include <tilescope/utf8.h>

#include "tilescope/summary.h"
#include "tilescope/units.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_FIRST_ = 255,
#define TS_OPT(id, long_name, short_name, kind, arg, choices, help) OPT_##id,
#include "cli-options-x.h"
#include "../options/trace.def"
};

static const cli_item items[] = {
#include "cli-options-items.h"
#include "../options/trace.def"
};

typedef enum { SORT_TOTAL, SORT_SELF, SORT_COUNT, SORT_MEAN, SORT_MEDIAN, SORT_MAX } sort_key;
static const char *const sort_names[] = {"total", "self", "count", "mean", "median", "max"};
#define N_SORT_NAMES (sizeof(sort_names) / sizeof(sort_names[0]))

/* The sort key of the current command: qsort() takes no context. */
static sort_key g_sort;

/* The value of `s` that --sort orders by. */
static uint64_t sort_value(const tsr_trace_label_stat *s)
{
	switch (g_sort) {
	case SORT_SELF: return s->self_ns;
	case SORT_COUNT: return s->count;
	case SORT_MEAN: return (uint64_t)s->mean_ns;
	case SORT_MEDIAN: return s->median_ns;
	case SORT_MAX: return s->max_ns;
	case SORT_TOTAL:
	default: return s->total_ns;
	}
}

/* qsort() order of labels: the sort key descending, then total time
 * descending, then channel and name id, so that the order is the same on
 * every run. */
static int cmp_labels(const void *a, const void *b)
{
	const tsr_trace_label_stat *x = a, *y = b;
	uint64_t vx = sort_value(x), vy = sort_value(y);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->channel != y->channel)
		return x->channel < y->channel ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/*
 * Gathers the statistics: the labels of the view, and its totals per
 * channel and per thread (trace.h's tsr_trace_totals).
 */
static int gather(trace_view *v)
{
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_totals_options to = TSR_TRACE_TOTALS_OPTIONS_INIT;
	int rc;

	o.thread = to.thread = v->thread;
	o.from_ns = to.from_ns = v->from_ns;
	o.to_ns = to.to_ns = v->to_ns;
	o.median = v->median;
	cli_progress_begin("Computing statistics");
	rc = tsr_trace_list_label_stats(&v->labels, &v->n_labels, v->trace, &o);
	if (rc == TSR_OK)
		rc = tsr_trace_totals_new(&v->totals, v->trace, &to);
	if (rc == TSR_OK && v->call_tree) {
		tsr_trace_call_tree_options co = TSR_TRACE_CALL_TREE_OPTIONS_INIT;

		co.thread = v->thread;
		co.from_ns = v->from_ns;
		co.to_ns = v->to_ns;
		rc = tsr_trace_call_tree_new(&v->tree, v->trace, &co);
	}
	cli_progress_end();
	if (rc != TSR_OK)
		return cli_trace_fail(v->trace);
	return CLI_EXIT_OK;
}

/* The window of the counter queries: the view's, or the whole trace
 * (end inclusive, hence + 1). */
static void series_window(const trace_view *v, int64_t *from, int64_t *to)
{
	*from = v->windowed && v->from_ns != INT64_MIN ? v->from_ns : v->info->start_ns;
	*to = v->windowed && v->to_ns != INT64_MAX ? v->to_ns : v->info->end_ns + 1;
	if (*to <= *from)
		*to = *from + 1;
}

/* The samples of series `i` in the view as one bucket in *b (NULL when
 * there are none; the caller frees it). Errors are printed. */
static int series_bucket(trace_view *v, size_t i, tsr_trace_counter_bucket **b)
{
	tsr_trace_counter_bucket *buckets = NULL;
	size_t n = 0;
	int64_t from, to;

	*b = NULL;
	series_window(v, &from, &to);
	if (tsr_trace_list_counter_buckets(&buckets, &n, NULL, v->trace, i, from, to,
	                                   (uint64_t)(to - from)) !=
	    TSR_OK)
		return cli_trace_fail(v->trace);
	if (n == 0) {
		free(buckets);
		return CLI_EXIT_OK;
	}
	*b = buckets;
	return CLI_EXIT_OK;
}

/* The counts per bucket of heatmap `i` in the view (the series' window)
 * in *counts (the caller frees it). Errors are printed. */
static int heatmap_counts(trace_view *v, size_t i, uint64_t **counts)
{
	int64_t from, to;

	series_window(v, &from, &to);
	if (tsr_trace_list_heatmap_counts(counts, v->trace, i, from, to, 1) != TSR_OK)
		return cli_trace_fail(v->trace);
	return CLI_EXIT_OK;
}

/* --- Text ---------------------------------------------------------------------------- */

/* A duration (or a time after the trace's start) as reportlib writes it
 * for people, the System Analyser's too (tilescope/units.h). */
static const char *fmt_ns(char buf[32], double ns)
{
	return tsr_format_duration(buf, 32, ns, TSR_DURATION_ASCII);
}

/* Columns a name takes: one per UTF-8 sequence, and one per byte that is
 * not UTF-8 (put_name prints it as '?'). */
static int name_columns(const char *s)
{
	int cols = 0;

	for (const unsigned char *p = (const unsigned char *)(s ? s : "?"); *p; cols++) {
		uint32_t cp;
		size_t len = tsb_utf8_decode(p, SIZE_MAX, &cp);

		p += len ? len : 1;
	}
	return cols;
}

/*
 * Writes a string read from the file: control characters become '?' so
 * a name cannot move the cursor, and with `width` >= 0 it is cut (ending
 * in "…") or padded to `width` columns, counting UTF-8 sequences as one
 * column each; -1 writes it whole.
 */
static void put_name(FILE *out, const char *s, int width)
{
	int cols = name_columns(s), kept = 0;
	const unsigned char *p = (const unsigned char *)(s ? s : "?");

	if (width == 0 && cols > 0)
		return;
	while (*p) {
		uint32_t cp;
		size_t len = tsb_utf8_decode(p, SIZE_MAX, &cp);

		if (width >= 0 && cols > width && kept == width - 1) {
			/* Keep width - 1 columns, then the ellipsis. */
			fputs("\u2026", out);
			return;
		}
		if (len == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
			fputc('?', out); /* a control, or a byte that is not UTF-8 */
			p += len ? len : 1;
		} else {
			fwrite(p, 1, len, out);
			p += len;
		}
		kept++;
	}
	for (; kept < width; kept++)
		fputc(' ', out);
}

void cli_trace_put_name(FILE *out, const char *s, int width)
{
	put_name(out, s, width);
}

/* The name of channel index `c` ("?" past the end). */
static const char *channel_name(const trace_view *v, uint32_t c)
{
	return c < v->n_channels ? v->channels[c].name : "?";
}


/* The header: what the trace holds (whatever the view), its files, and
 * the view when narrowed. */
static void print_header(FILE *out, const trace_view *v, const char *bold, const char *reset)
{
	char a[32], b[32], n1[32];

	fprintf(out, "%sTrace:%s %zu file%s, %zu thread%s, %s spans over %s\n", bold, reset,
	        v->n_procs, v->n_procs == 1 ? "" : "s", v->n_threads, v->n_threads == 1 ? "" : "s",
	        cli_fmt_count(n1, v->info->events),
	        fmt_ns(a, (double)(v->info->end_ns - v->info->start_ns)));
	for (size_t p = 0; p < v->n_procs; p++) {
		fputs("  ", out);
		if (v->n_procs > 1)
			fprintf(out, "[%zu] ", p);
		put_name(out, v->procs[p].name, -1);
		fprintf(out, " (pid %" PRId64 " on ", v->procs[p].pid);
		put_name(out, v->procs[p].host, -1);
		fprintf(out, ")%s: ", v->procs[p].complete ? "" : ", ended without closing the trace");
		put_name(out, v->procs[p].path, -1);
		fputc('\n', out);
	}
	if (v->windowed) {
		fmt_ns(a, v->from_ns == INT64_MIN ? 0.0 : (double)(v->from_ns - v->info->start_ns));
		if (v->to_ns == INT64_MAX)
			fprintf(out, "  window: spans starting from %s after the first event\n", a);
		else
			fprintf(out, "  window: spans starting between %s and %s after the first event\n", a,
			        fmt_ns(b, (double)(v->to_ns - v->info->start_ns)));
	}
	if (v->thread >= 0) {
		fprintf(out, "  thread: %" PRId64 " (", v->thread);
		put_name(out, v->threads[v->thread].name, -1);
		fputs(")\n", out);
	}
}

/* The table of labels: the first `top` (0: all) of the sorted labels,
 * with the name column as wide as the longest name shown (at most 60). */
static void print_labels(FILE *out, const trace_view *v, size_t top, const char *bold,
                         const char *reset)
{
	char a[32], b[32], c[32], d[32], e[32], f[32], n1[32];
	size_t shown = top && top < v->n_labels ? top : v->n_labels;
	int name_w = 24;

	for (size_t i = 0; i < shown; i++) {
		int len = name_columns(tsr_trace_get_name(v->trace, v->labels[i].name));
		if (len > name_w)
			name_w = len < 60 ? len : 60;
	}
	fprintf(out, "\n%sSpans by label%s (by %s; %s span%s, %zu label%s):\n", bold, reset,
	        sort_names[g_sort], cli_fmt_count(n1, v->totals->spans), v->totals->spans == 1 ? "" : "s", v->n_labels,
	        v->n_labels == 1 ? "" : "s");
	fprintf(out, "  %-10s %-*s %10s %10s %10s %10s %10s %10s %10s\n", "channel", name_w, "name",
	        "count", "total", "self", "mean", "median", "min", "max");
	for (size_t i = 0; i < shown; i++) {
		const tsr_trace_label_stat *s = &v->labels[i];
		fputs("  ", out);
		put_name(out, channel_name(v, s->channel), 10);
		fputc(' ', out);
		put_name(out, tsr_trace_get_name(v->trace, s->name), name_w);
		fprintf(out, " %10s %10s %10s %10s %10s %10s %10s\n", cli_fmt_count(n1, s->count),
		        fmt_ns(a, (double)s->total_ns), fmt_ns(b, (double)s->self_ns),
		        fmt_ns(c, s->mean_ns), v->median ? fmt_ns(d, (double)s->median_ns) : "-",
		        fmt_ns(e, (double)s->min_ns), fmt_ns(f, (double)s->max_ns));
	}
	if (shown < v->n_labels)
		fprintf(out, "  ... %zu more (--top 0 shows all)\n", v->n_labels - shown);
}

/* Totals per channel (those with spans in the view) and per thread. */
static void print_totals(FILE *out, const trace_view *v, const char *bold, const char *reset)
{
	char a[32], b[32], c[32], n1[32];

	fprintf(out, "\n%sBy channel:%s\n  %-12s %10s %12s\n", bold, reset, "channel", "spans",
	        "self time");
	for (size_t ch = 0; ch < v->n_channels && ch < v->totals->n_channels; ch++) {
		const tsr_trace_channel_totals *ct = &v->totals->channels[ch];

		if (!ct->spans)
			continue;
		fputs("  ", out);
		put_name(out, v->channels[ch].name, 12);
		fprintf(out, " %10s %12s\n", cli_fmt_count(n1, ct->spans), fmt_ns(a, (double)ct->self_ns));
	}

	fprintf(out, "\n%sBy thread:%s\n  %5s  %-24s %-24s %10s %10s %10s %10s\n", bold, reset,
	        "index", "process (pid)", "thread (tid)", "spans", "busy", "first", "last");
	for (size_t t = 0; t < v->n_threads; t++) {
		const tsr_trace_thread *th = &v->threads[t];
		const tsr_trace_process *p = th->process < v->n_procs ? &v->procs[th->process] : NULL;
		bool any = th->events > 0 || th->first_ns != th->last_ns;
		char who[160], tname[160];

		if (v->thread >= 0 && (size_t)v->thread != t)
			continue;
		snprintf(who, sizeof(who), "%s (%" PRId64 ")", p && p->name ? p->name : "?",
		         p ? p->pid : 0);
		snprintf(tname, sizeof(tname), "%s (%" PRId64 ")", th->name ? th->name : "?", th->tid);
		fprintf(out, "  %5zu  ", t);
		put_name(out, who, 24);
		fputc(' ', out);
		put_name(out, tname, 24);
		fprintf(out, " %10s %10s %10s %10s\n", cli_fmt_count(n1, v->totals->threads[t].spans),
		        fmt_ns(a, (double)v->totals->threads[t].busy_ns),
		        any ? fmt_ns(b, (double)(th->first_ns - v->info->start_ns)) : "-",
		        any ? fmt_ns(c, (double)(th->last_ns - v->info->start_ns)) : "-");
	}
}

/* The counter series: samples, min and max over the view (one bucket
 * each); nothing when the trace has none. */
static int print_series_text(FILE *out, trace_view *v, const char *bold, const char *reset)
{
	const tsr_trace_series *series;
	size_t n;

	if (tsr_trace_get_series(&series, &n, v->trace) != TSR_OK)
		return cli_trace_fail(v->trace);
	if (n == 0)
		return CLI_EXIT_OK;
	fprintf(out, "\n%sCounters:%s\n  %-30s %-12s %10s %12s %12s\n", bold, reset,
	        "graph / series", "unit", "samples", "min", "max");
	for (size_t i = 0; i < n; i++) {
		tsr_trace_counter_bucket *b;
		char label[256], n1[32];
		int plen = 0;

		if (series_bucket(v, i, &b) != CLI_EXIT_OK)
			return CLI_EXIT_ERROR;
		/* With several files, the series of each are told apart by its index. */
		if (v->n_procs > 1)
			plen = snprintf(label, sizeof(label), "[%zu] ", series[i].process);
		snprintf(label + plen, sizeof(label) - (size_t)plen, "%s / %s",
		         series[i].graph ? series[i].graph : "?", series[i].name ? series[i].name : "?");
		fputs("  ", out);
		put_name(out, label, 30);
		fputc(' ', out);
		put_name(out, series[i].unit, 12);
		if (b)
			fprintf(out, " %10s %12.6g %12.6g\n", cli_fmt_count(n1, b->count), b->min, b->max);
		else
			fprintf(out, " %10s %12s %12s\n", "0", "-", "-");
		free(b);
	}
	return CLI_EXIT_OK;
}

/* The heatmaps: buckets, samples and values over the view, the most
 * filled bucket; nothing when the trace has none. */
static int print_heatmaps_text(FILE *out, trace_view *v, const char *bold, const char *reset)
{
	const tsr_trace_heatmap *h;
	size_t n;

	if (tsr_trace_get_heatmaps(&h, &n, v->trace) != TSR_OK)
		return cli_trace_fail(v->trace);
	if (n == 0)
		return CLI_EXIT_OK;
	fprintf(out, "\n%sHeatmaps:%s\n  %-30s %-12s %7s %10s %12s  %s\n", bold, reset, "heatmap",
	        "unit", "buckets", "samples", "values", "fullest bucket");
	for (size_t i = 0; i < n; i++) {
		uint64_t *c = NULL, values = 0;
		size_t top = 0, nb = h[i].n_edges + 1;
		char label[256], n1[32], n2[32], range[64];

		if (heatmap_counts(v, i, &c) != CLI_EXIT_OK)
			return CLI_EXIT_ERROR;
		for (size_t b = 0; b < nb; b++) {
			values += c[b];
			top = c[b] > c[top] ? b : top;
		}
		free(c);
		/* With several files, the heatmaps of each are told apart by its index. */
		if (v->n_procs > 1)
			snprintf(label, sizeof(label), "[%zu] %s", h[i].process, h[i].name);
		else
			snprintf(label, sizeof(label), "%s", h[i].name);
		if (top == 0)
			snprintf(range, sizeof(range), "< %.6g", h[i].edges[0]);
		else if (top == nb - 1)
			snprintf(range, sizeof(range), ">= %.6g", h[i].edges[top - 1]);
		else
			snprintf(range, sizeof(range), "%.6g – %.6g", h[i].edges[top - 1], h[i].edges[top]);
		fputs("  ", out);
		put_name(out, label, 30);
		fputc(' ', out);
		put_name(out, h[i].unit, 12);
		fprintf(out, " %7zu %10s %12s  %s\n", nb, cli_fmt_count(n1, h[i].samples),
		        cli_fmt_count(n2, values), values ? range : "-");
		if (h[i].skipped)
			fprintf(out, "  (%s malformed rows skipped)\n", cli_fmt_count(n1, h[i].skipped));
	}
	return CLI_EXIT_OK;
}

/* Node `i` of the call tree and the nodes below it, depth first, while
 * *left rows remain (SIZE_MAX: all). */
static void print_call_node(FILE *out, const trace_view *v, size_t i, size_t *left)
{
	const tsr_trace_call_node *nd = &v->tree->nodes[i];
	char a[32], b[32], n1[32];

	if (*left == 0)
		return;
	(*left)--;
	fprintf(out, "  %10s %10s %10s  ", fmt_ns(a, (double)nd->inclusive_ns),
	        fmt_ns(b, (double)nd->exclusive_ns), cli_fmt_count(n1, nd->count));
	put_name(out, channel_name(v, nd->channel), 10);
	fputc(' ', out);
	for (uint32_t d = 0; d < nd->depth; d++)
		fputs("  ", out);
	put_name(out, tsr_trace_get_name(v->trace, nd->name), -1);
	fputc('\n', out);
	for (size_t k = 0; k < nd->n_children; k++)
		print_call_node(out, v, nd->first_child + k, left);
}

/* The call tree (--call-tree): its first `top` rows depth first (0: all). */
static void print_call_tree(FILE *out, const trace_view *v, size_t top, const char *bold,
                            const char *reset)
{
	size_t left = top ? top : SIZE_MAX;
	char n1[32], n2[32];

	fprintf(out, "\n%sCall tree%s (by inclusive time; %s span%s, %s path%s):\n", bold, reset,
	        cli_fmt_count(n1, v->tree->spans), v->tree->spans == 1 ? "" : "s",
	        cli_fmt_count(n2, v->tree->n_nodes), v->tree->n_nodes == 1 ? "" : "s");
	fprintf(out, "  %10s %10s %10s  %-10s %s\n", "inclusive", "exclusive", "count", "channel",
	        "path");
	for (size_t r = 0; r < v->tree->n_roots; r++)
		print_call_node(out, v, r, &left);
	if (top && top < v->tree->n_nodes)
		fprintf(out, "  ... %zu more (--top 0 shows all)\n", v->tree->n_nodes - top);
}

/* The whole text output. Write errors are left to cli_output_close(). */
static int print_text(FILE *out, trace_view *v, size_t top, bool colours)
{
	const char *bold = colours ? "\033[1m" : "", *reset = colours ? "\033[0m" : "";

	print_header(out, v, bold, reset);
	print_labels(out, v, top, bold, reset);
	if (v->tree)
		print_call_tree(out, v, top, bold, reset);
	print_totals(out, v, bold, reset);
	if (print_series_text(out, v, bold, reset) != CLI_EXIT_OK)
		return CLI_EXIT_ERROR;
	return print_heatmaps_text(out, v, bold, reset);
}

/* --- JSON ---------------------------------------------------------------------------- */

/* A string from the file, or null. */
static cJSON *j_str(const char *s)
{
	return cli_json_str(s);
}

/* A time in ns as an exact integer, or null when `known` is false. */
static cJSON *j_ns(bool known, int64_t ns)
{
	return known ? cli_json_i64(ns) : cJSON_CreateNull();
}

/* Adds "trace", "processes" and "window" to `root`. */
static bool json_trace(cJSON *root, const trace_view *v)
{
	cJSON *arr = NULL, *o = NULL;
	bool ok = cli_json_put(root, "trace", o = cJSON_CreateObject()) &&
	          cli_json_put(o, "files", cli_json_u64(v->n_procs)) &&
	          cli_json_put(o, "threads", cli_json_u64(v->n_threads)) &&
	          cli_json_put(o, "spans", cli_json_u64(v->info->events)) &&
	          cli_json_put(o, "start_ns", cli_json_i64(v->info->start_ns)) &&
	          cli_json_put(o, "end_ns", cli_json_i64(v->info->end_ns)) &&
	          cli_json_put(o, "origin_wall_ns", cli_json_i64(v->info->origin_wall_ns)) &&
	          cli_json_put(o, "complete", cJSON_CreateBool(v->info->complete)) &&
	          cli_json_put(root, "processes", arr = cJSON_CreateArray());

	for (size_t p = 0; ok && p < v->n_procs; p++) {
		ok = cli_json_put(arr, NULL, o = cJSON_CreateObject()) &&
		     cli_json_put(o, "path", j_str(v->procs[p].path)) &&
		     cli_json_put(o, "pid", cli_json_i64(v->procs[p].pid)) &&
		     cli_json_put(o, "host", j_str(v->procs[p].host)) &&
		     cli_json_put(o, "name", j_str(v->procs[p].name)) &&
		     cli_json_put(o, "complete", cJSON_CreateBool(v->procs[p].complete));
	}
	if (ok && v->windowed)
		ok = cli_json_put(root, "window", o = cJSON_CreateObject()) &&
		     cli_json_put(o, "from_ns", cli_json_i64(v->from_ns == INT64_MIN ? v->info->start_ns
		                                                                      : v->from_ns)) &&
		     cli_json_put(o, "to_ns", j_ns(v->to_ns != INT64_MAX, v->to_ns));
	else if (ok)
		ok = cli_json_put(root, "window", cJSON_CreateNull());
	return ok;
}

/* Adds "spans" and the first `top` (0: all) of the sorted "labels". */
static bool json_labels(cJSON *root, const trace_view *v, size_t top)
{
	size_t shown = top && top < v->n_labels ? top : v->n_labels;
	cJSON *arr = NULL, *o = NULL;
	bool ok = cli_json_put(root, "spans", cli_json_u64(v->totals->spans)) &&
	          cli_json_put(root, "labels", arr = cJSON_CreateArray());

	for (size_t i = 0; ok && i < shown; i++) {
		const tsr_trace_label_stat *s = &v->labels[i];
		ok = cli_json_put(arr, NULL, o = cJSON_CreateObject()) &&
		     cli_json_put(o, "channel", j_str(channel_name(v, s->channel))) &&
		     cli_json_put(o, "name", j_str(tsr_trace_get_name(v->trace, s->name))) &&
		     cli_json_put(o, "count", cli_json_u64(s->count)) &&
		     cli_json_put(o, "total_ns", cli_json_u64(s->total_ns)) &&
		     cli_json_put(o, "self_ns", cli_json_u64(s->self_ns)) &&
		     cli_json_put(o, "mean_ns", cJSON_CreateNumber(s->mean_ns)) &&
		     cli_json_put(o, "median_ns",
		                  v->median ? cli_json_u64(s->median_ns) : cJSON_CreateNull()) &&
		     cli_json_put(o, "median_exact", cJSON_CreateBool(v->median && s->median_exact)) &&
		     cli_json_put(o, "min_ns", cli_json_u64(s->min_ns)) &&
		     cli_json_put(o, "max_ns", cli_json_u64(s->max_ns));
	}
	return ok;
}

/* Adds "channels" and "threads". */
static bool json_totals(cJSON *root, const trace_view *v)
{
	cJSON *arr = NULL, *o = NULL;
	bool ok = cli_json_put(root, "channels", arr = cJSON_CreateArray());

	for (size_t ch = 0; ok && ch < v->n_channels && ch < v->totals->n_channels; ch++) {
		const tsr_trace_channel_totals *ct = &v->totals->channels[ch];

		if (!ct->spans)
			continue;
		ok = cli_json_put(arr, NULL, o = cJSON_CreateObject()) &&
		     cli_json_put(o, "name", j_str(v->channels[ch].name)) &&
		     cli_json_put(o, "spans", cli_json_u64(ct->spans)) &&
		     cli_json_put(o, "self_ns", cli_json_u64(ct->self_ns));
	}
	ok = ok && cli_json_put(root, "threads", arr = cJSON_CreateArray());
	for (size_t t = 0; ok && t < v->n_threads; t++) {
		const tsr_trace_thread *th = &v->threads[t];
		bool any = th->events > 0 || th->first_ns != th->last_ns;

		if (v->thread >= 0 && (size_t)v->thread != t)
			continue;
		ok = cli_json_put(arr, NULL, o = cJSON_CreateObject()) &&
		     cli_json_put(o, "process", cli_json_u64(th->process)) &&
		     cli_json_put(o, "pid", cli_json_i64(th->process < v->n_procs
		                                             ? v->procs[th->process].pid
		                                             : 0)) &&
		     cli_json_put(o, "thread", cli_json_u64(t)) &&
		     cli_json_put(o, "tid", cli_json_i64(th->tid)) &&
		     cli_json_put(o, "name", j_str(th->name)) &&
		     cli_json_put(o, "spans", cli_json_u64(v->totals->threads[t].spans)) &&
		     cli_json_put(o, "busy_ns", cli_json_u64(v->totals->threads[t].busy_ns)) &&
		     cli_json_put(o, "first_ns", j_ns(any, th->first_ns)) &&
		     cli_json_put(o, "last_ns", j_ns(any, th->last_ns));
	}
	return ok;
}

/* Adds "series". Returns CLI_EXIT_ERROR (printed) when a query fails;
 * *ok goes false when JSON cannot be built. */
static int json_series(cJSON *root, trace_view *v, bool *ok)
{
	const tsr_trace_series *series = NULL;
	size_t n = 0;
	cJSON *arr = NULL, *o = NULL;

	if (tsr_trace_get_series(&series, &n, v->trace) != TSR_OK)
		return cli_trace_fail(v->trace);
	*ok = *ok && cli_json_put(root, "series", arr = cJSON_CreateArray());
	for (size_t i = 0; *ok && i < n; i++) {
		tsr_trace_counter_bucket *b;

		if (series_bucket(v, i, &b) != CLI_EXIT_OK)
			return CLI_EXIT_ERROR;
		*ok = cli_json_put(arr, NULL, o = cJSON_CreateObject()) &&
		      cli_json_put(o, "process", cli_json_u64(series[i].process)) &&
		      cli_json_put(o, "graph", j_str(series[i].graph)) &&
		      cli_json_put(o, "name", j_str(series[i].name)) &&
		      cli_json_put(o, "unit", j_str(series[i].unit)) &&
		      cli_json_put(o, "samples", cli_json_u64(b ? b->count : 0)) &&
		      cli_json_put(o, "min", b && isfinite(b->min) ? cJSON_CreateNumber(b->min)
		                                                   : cJSON_CreateNull()) &&
		      cli_json_put(o, "max", b && isfinite(b->max) ? cJSON_CreateNumber(b->max)
		                                                   : cJSON_CreateNull());
		free(b);
	}
	return CLI_EXIT_OK;
}

/* Adds "heatmaps", as json_series. */
static int json_heatmaps(cJSON *root, trace_view *v, bool *ok)
{
	const tsr_trace_heatmap *h = NULL;
	size_t n = 0;
	cJSON *arr = NULL, *o = NULL, *edges = NULL, *counts = NULL;

	if (tsr_trace_get_heatmaps(&h, &n, v->trace) != TSR_OK)
		return cli_trace_fail(v->trace);
	*ok = *ok && cli_json_put(root, "heatmaps", arr = cJSON_CreateArray());
	for (size_t i = 0; *ok && i < n; i++) {
		uint64_t *c = NULL;

		if (heatmap_counts(v, i, &c) != CLI_EXIT_OK)
			return CLI_EXIT_ERROR;
		*ok = cli_json_put(arr, NULL, o = cJSON_CreateObject()) &&
		      cli_json_put(o, "process", cli_json_u64(h[i].process)) &&
		      cli_json_put(o, "name", j_str(h[i].name)) &&
		      cli_json_put(o, "unit", j_str(h[i].unit)) &&
		      cli_json_put(o, "edges", edges = cJSON_CreateDoubleArray(h[i].edges,
		                                                               (int)h[i].n_edges)) &&
		      cli_json_put(o, "samples", cli_json_u64(h[i].samples)) &&
		      cli_json_put(o, "first_ns", j_ns(h[i].samples > 0, h[i].first_ns)) &&
		      cli_json_put(o, "last_ns", j_ns(h[i].samples > 0, h[i].last_ns)) &&
		      cli_json_put(o, "counts", counts = cJSON_CreateArray()) &&
		      cli_json_put(o, "skipped", cli_json_u64(h[i].skipped));
		for (size_t b = 0; *ok && b <= h[i].n_edges; b++)
			*ok = cli_json_put(counts, NULL, cli_json_u64(c[b]));
		free(c);
	}
	return CLI_EXIT_OK;
}

/* Call-tree node `i` as an object with its children, or NULL when out
 * of memory. */
static cJSON *json_call_node(const trace_view *v, size_t i)
{
	const tsr_trace_call_node *nd = &v->tree->nodes[i];
	cJSON *o = cJSON_CreateObject(), *kids = NULL;
	bool ok = o && cli_json_put(o, "channel", j_str(channel_name(v, nd->channel))) &&
	          cli_json_put(o, "name", j_str(tsr_trace_get_name(v->trace, nd->name))) &&
	          cli_json_put(o, "count", cli_json_u64(nd->count)) &&
	          cli_json_put(o, "inclusive_ns", cli_json_u64(nd->inclusive_ns)) &&
	          cli_json_put(o, "exclusive_ns", cli_json_u64(nd->exclusive_ns)) &&
	          cli_json_put(o, "children", kids = cJSON_CreateArray());

	for (size_t k = 0; ok && k < nd->n_children; k++)
		ok = cli_json_put(kids, NULL, json_call_node(v, nd->first_child + k));
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Adds "call_tree" (with --call-tree). */
static bool json_call_tree(cJSON *root, const trace_view *v)
{
	cJSON *o = NULL, *roots = NULL;
	bool ok;

	if (!v->tree)
		return true;
	ok = cli_json_put(root, "call_tree", o = cJSON_CreateObject()) &&
	     cli_json_put(o, "spans", cli_json_u64(v->tree->spans)) &&
	     cli_json_put(o, "inclusive_ns", cli_json_u64(v->tree->inclusive_ns)) &&
	     cli_json_put(o, "roots", roots = cJSON_CreateArray());
	for (size_t r = 0; ok && r < v->tree->n_roots; r++)
		ok = cli_json_put(roots, NULL, json_call_node(v, r));
	return ok;
}

/* The JSON document (keys at the top of this file) in *text, for
 * cJSON_free(); the HTML page embeds the same text. Errors are printed. */
static int json_document(char **text, trace_view *v, size_t top)
{
	cJSON *root = cJSON_CreateObject();
	bool ok = root && json_trace(root, v) && json_labels(root, v, top) && json_totals(root, v) &&
	          json_call_tree(root, v);
	int status = CLI_EXIT_ERROR;

	*text = NULL;
	if (root && (json_series(root, v, &ok) != CLI_EXIT_OK ||
	             json_heatmaps(root, v, &ok) != CLI_EXIT_OK))
		goto cleanup;
	*text = ok ? cJSON_Print(root) : NULL;
	status = *text ? CLI_EXIT_OK : cli_error("out of memory");
cleanup:
	cJSON_Delete(root);
	return status;
}

/* The JSON output, or the page that embeds it. Write errors are left to
 * cli_output_close(). */
static int print_document(FILE *out, trace_view *v, size_t top, bool html)
{
	char *text = NULL;
	int status = json_document(&text, v, top);

	if (status == CLI_EXIT_OK && html)
		status = cli_trace_html(out, v, text, sort_names[g_sort], top);
	else if (status == CLI_EXIT_OK)
		fprintf(out, "%s\n", text);
	cJSON_free(text);
	return status;
}

/* --- The command ------------------------------------------------------------------------- */

/* The index of the thread named or numbered `which`; -1 (printed) when
 * there is none, or several of that name. */
static int64_t find_thread(const trace_view *v, const char *which)
{
	uint64_t index;
	int64_t found = -1;

	if (cli_parse_u64(which, &index)) {
		if (index < v->n_threads)
			return (int64_t)index;
		cli_error("--thread %s: the traces have %zu thread(s) (0 to %zu)", which, v->n_threads,
		          v->n_threads ? v->n_threads - 1 : 0);
		return -1;
	}
	for (size_t t = 0; t < v->n_threads; t++) {
		if (v->threads[t].name && strcmp(v->threads[t].name, which) == 0) {
			if (found >= 0) {
				cli_error("--thread %s: several threads have that name; give its index", which);
				return -1;
			}
			found = (int64_t)t;
		}
	}
	if (found < 0)
		cli_error("--thread %s: no thread of that name", which);
	return found;
}

/* `tilescope trace`: parses the options, opens the traces, gathers the
 * statistics of the view and prints them (cli.h). */
int cli_cmd_trace(int argc, char **argv)
{
	trace_view v = {0};
	const char *output = NULL, *from = NULL, *to = NULL, *thread = NULL;
	size_t top = 20;
	bool top_given = false, json = false, html = false, compare = false, sort_given = false;
	const char *format = "text";
	tsr_colours colours = TSR_COLOURS_AUTO;
	cli_output *out = NULL;
	int c, status = CLI_EXIT_ERROR;
	cli_options o;
	char usage[256], compare_usage[128];

	g_sort = SORT_TOTAL;
	v.median = true;
	/* Each form's own line in its errors. */
	cli_options_usage_line(items, CLI_ITEMS_COUNT(items), 0, usage, sizeof(usage));
	cli_options_usage_line(items, CLI_ITEMS_COUNT(items), 1, compare_usage, sizeof(compare_usage));
	cli_options_init(&o, items, CLI_ITEMS_COUNT(items));
	while ((c = cli_options_next(&o, argc, argv)) != -1) {
		switch (c) {
		case OPT_TOP: {
			uint64_t n;
			if (!cli_parse_u64(optarg, &n) || n > 1000000000)
				return cli_usage_error("trace", usage, "--top wants a count (0: all), not '%s'",
				                       optarg);
			top = (size_t)n;
			top_given = true;
			break;
		}
		case OPT_SORT: {
			size_t k;
			for (k = 0; k < N_SORT_NAMES; k++)
				if (strcmp(optarg, sort_names[k]) == 0)
					break;
			if (k == N_SORT_NAMES)
				return cli_usage_error("trace", usage,
				                       "--sort wants total, self, count, mean, median or max, "
				                       "not '%s'",
				                       optarg);
			g_sort = (sort_key)k;
			sort_given = true;
			break;
		}
		case OPT_THREAD: thread = optarg; break;
		case OPT_FROM: from = optarg; break;
		case OPT_TO: to = optarg; break;
		case OPT_NO_MEDIAN: v.median = false; break;
		case OPT_CALL_TREE: v.call_tree = true; break;
		case OPT_JSON: json = true; break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") != 0 && strcmp(optarg, "json") != 0 &&
			    strcmp(optarg, "html") != 0)
				return cli_usage_error("trace", usage,
				                       "--format wants text, json or html, not '%s'", optarg);
			format = optarg;
			break;
		case OPT_COMPARE: compare = true; break;
		case OPT_COLOURS:
			if (!cli_parse_colours(optarg, &colours))
				return cli_usage_error("trace", usage,
				                       "--colours wants auto, always or never, not '%s'", optarg);
			break;
		case OPT_OUTPUT: output = optarg; break;
		case OPT_HELP:
			cli_options_print_help(items, CLI_ITEMS_COUNT(items), stdout);
			return CLI_EXIT_OK;
		default: return cli_option_error("trace", usage, c, argv);
		}
	}
	if (optind == argc)
		return cli_usage_error("trace", usage, "no TRACE given");
	if (json && strcmp(format, "text") != 0 && strcmp(format, "json") != 0)
		return cli_usage_error("trace", usage, "--json and --format=%s ask for two formats",
		                       format);
	json = json || strcmp(format, "json") == 0;
	html = strcmp(format, "html") == 0;
	/* The page shows the call tree, and embeds the document that has it. */
	v.call_tree = v.call_tree || html;
	if (g_sort == SORT_MEDIAN && !v.median)
		return cli_usage_error("trace", usage, "--sort median needs the medians: drop --no-median");
	if (!top_given && (json || html))
		top = 0;
	if (compare) {
		if (html)
			return cli_usage_error("trace", compare_usage,
			                       "--format=html is not offered with --compare (use "
			                       "--format=json)");
		if (argc - optind != 2)
			return cli_usage_error("trace", compare_usage,
			                       "--compare takes two traces, A and B (%d given)",
			                       argc - optind);
		if (thread || sort_given || v.call_tree)
			return cli_usage_error("trace", compare_usage, "--%s does not apply to --compare",
			                       thread ? "thread" : sort_given ? "sort" : "call-tree");
		return cli_trace_compare(argv[optind], argv[optind + 1], compare_usage, from, to,
		                         v.median, top,
		                         json, colours, output);
	}
	if (cli_open_trace(&v.trace, (const char *const *)argv + optind, (size_t)(argc - optind)))
		return CLI_EXIT_ERROR;
	/* What an import left out: the counts below would hide it. */
	cli_trace_print_skipped(v.trace);
	v.info = tsr_trace_get_info(v.trace);
	if (tsr_trace_get_processes(&v.procs, &v.n_procs, v.trace) != TSR_OK ||
	    tsr_trace_get_threads(&v.threads, &v.n_threads, v.trace) != TSR_OK ||
	    tsr_trace_get_channels(&v.channels, &v.n_channels, v.trace) != TSR_OK) {
		cli_trace_fail(v.trace);
		goto cleanup;
	}
	v.thread = -1;
	if (thread && (v.thread = find_thread(&v, thread)) < 0)
		goto cleanup;
	if (cli_trace_window("trace", usage, v.trace, from, to, &v.from_ns, &v.to_ns))
		goto cleanup;
	v.windowed = from || to;
	if (gather(&v) != CLI_EXIT_OK)
		goto cleanup;
	qsort(v.labels, v.n_labels, sizeof(*v.labels), cmp_labels);

	out = cli_output_open(output);
	if (!out)
		goto cleanup;
	if (json || html)
		status = print_document(cli_output_stream(out), &v, top, html);
	else
		status = print_text(cli_output_stream(out), &v, top,
		                    tsr_colours_enabled(colours, cli_output_stream(out)));
	/* Closing reports a failed write (and removes a half-written file). */
	if (cli_output_close(out, status == CLI_EXIT_OK) != CLI_EXIT_OK)
		status = CLI_EXIT_ERROR;
cleanup:
	free(v.labels);
	tsr_trace_totals_free(v.totals);
	tsr_trace_call_tree_free(v.tree);
	tsr_trace_free(v.trace);
	return status;
}
