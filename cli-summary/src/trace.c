/*
 * `tilescope trace TRACE...`: statistics of .pvti system traces
 * (reportlib's trace.h): per label (count, total, self, mean, median, min,
 * max), totals per channel and per thread, and the counter series, as
 * text or JSON. Several files of one job are merged onto one time axis.
 *
 * JSON keys (nanoseconds are exact integers):
 *   processes  [{path, pid, host, name, complete}]
 *   window     {from_ns, to_ns} on the merged axis (null: the whole trace)
 *   spans      spans in the statistics
 *   labels     [{channel, name, count, total_ns, self_ns, mean_ns,
 *               median_ns (null with --no-median), median_exact, min_ns,
 *               max_ns}] sorted as --sort says; all of them unless --top
 *   channels   [{name, spans, self_ns}]
 *   threads    [{process, pid, thread, tid, name, spans, busy_ns}]
 *   series     [{graph, name, unit, samples, min, max}]
 */
#include "cli.h"

#include "tilescope/summary.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = "usage: tilescope trace [OPTIONS] TRACE...\n";

static const char help[] =
	"usage: tilescope trace [OPTIONS] TRACE...\n"
	"\n"
	"Statistics of system traces (.pvti files as PVTI_OPTIONS writes them, or\n"
	"directories of them; several files of one job are merged onto one time\n"
	"axis): for each label (channel and tracepoint name) the count, total time,\n"
	"self time (total minus nested spans), mean, median, minimum and maximum;\n"
	"then totals per channel and per thread, and the counter series.\n"
	"\n"
	"Options:\n"
	"  --top N            labels shown (default 20 in text, all in JSON; 0: all)\n"
	"  --sort KEY         order of the labels: total (default), self, count, mean,\n"
	"                     median, max\n"
	"  --thread T         only the spans of thread T: its name, or its index as\n"
	"                     listed under \"By thread\"\n"
	"  --from MS, --to MS only the spans starting in the window from MS milliseconds\n"
	"                     after the trace's first event to MS after it\n"
	"  --no-median        skip medians (faster on a whole trace: reads the stored\n"
	"                     statistics instead of every span)\n"
	"  --json             JSON instead of text (keys in the README, \"tilescope trace\n"
	"                     --json\"); nanoseconds are exact integers\n"
	"  --colours=WHEN     auto (default), always or never\n"
	"  -o, --output FILE  write to FILE instead of standard output\n"
	"  -h, --help         this help\n"
	"\n"
	"Exit status: 0 printed, 2 an error (bad arguments, an unreadable or damaged\n"
	"trace).\n";

enum {
	OPT_TOP = 256,
	OPT_SORT,
	OPT_THREAD,
	OPT_FROM,
	OPT_TO,
	OPT_NO_MEDIAN,
	OPT_JSON,
	OPT_COLOURS
};

static const struct option options[] = {
	{"top", required_argument, NULL, OPT_TOP},
	{"sort", required_argument, NULL, OPT_SORT},
	{"thread", required_argument, NULL, OPT_THREAD},
	{"from", required_argument, NULL, OPT_FROM},
	{"to", required_argument, NULL, OPT_TO},
	{"no-median", no_argument, NULL, OPT_NO_MEDIAN},
	{"json", no_argument, NULL, OPT_JSON},
	{"colours", required_argument, NULL, OPT_COLOURS},
	{"colors", required_argument, NULL, OPT_COLOURS},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

typedef enum { SORT_TOTAL, SORT_SELF, SORT_COUNT, SORT_MEAN, SORT_MEDIAN, SORT_MAX } sort_key;
static const char *const sort_names[] = {"total", "self", "count", "mean", "median", "max"};

/* What the statistics are taken over, and the figures gathered. */
typedef struct trace_view {
	tsr_trace *trace;
	const tsr_trace_info *info;
	const tsr_trace_process *procs;
	size_t n_procs;
	const tsr_trace_thread *threads;
	size_t n_threads;
	const tsr_trace_channel *channels;
	size_t n_channels;
	int64_t thread;            /* -1: all */
	int64_t from_ns, to_ns;
	bool windowed, median;
	tsr_trace_label_stat *labels;
	size_t n_labels;
	uint64_t spans;
	uint64_t *channel_spans, *channel_self;  /* per channel */
	uint64_t *thread_spans, *thread_busy;    /* per thread (only those in the view) */
} trace_view;

static sort_key g_sort;

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

/* Sums of label statistics: spans and self time of the view; per channel
 * when `per_channel`. */
static void sum_labels(trace_view *v, const tsr_trace_label_stat *labels, size_t n,
                       uint64_t *spans, uint64_t *self, bool per_channel)
{
	*spans = *self = 0;
	for (size_t i = 0; i < n; i++) {
		*spans += labels[i].count;
		*self += labels[i].self_ns;
		if (per_channel && labels[i].channel < v->n_channels) {
			v->channel_spans[labels[i].channel] += labels[i].count;
			v->channel_self[labels[i].channel] += labels[i].self_ns;
		}
	}
}

/* Gathers the statistics: the labels of the view, per channel, and per
 * thread (busy time: the self times of its spans, the time some span of
 * it was open). */
static int gather(trace_view *v)
{
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	uint64_t self;
	int rc;

	o.thread = v->thread;
	o.from_ns = v->from_ns;
	o.to_ns = v->to_ns;
	o.median = v->median;
	v->channel_spans = calloc(v->n_channels + 1, sizeof(uint64_t));
	v->channel_self = calloc(v->n_channels + 1, sizeof(uint64_t));
	v->thread_spans = calloc(v->n_threads + 1, sizeof(uint64_t));
	v->thread_busy = calloc(v->n_threads + 1, sizeof(uint64_t));
	if (!v->channel_spans || !v->channel_self || !v->thread_spans || !v->thread_busy)
		return cli_error("out of memory");
	cli_progress_begin("Computing statistics");
	rc = tsr_trace_label_stats(v->trace, &v->labels, &v->n_labels, &o);
	if (rc == TSR_OK)
		sum_labels(v, v->labels, v->n_labels, &v->spans, &self, true);
	for (size_t t = 0; rc == TSR_OK && t < v->n_threads; t++) {
		tsr_trace_label_stat *per = NULL;
		size_t n = 0;

		if (v->thread >= 0 && (size_t)v->thread != t)
			continue;
		if (v->thread >= 0) {
			/* The view is this one thread: its sums are the view's. */
			v->thread_spans[t] = v->spans;
			v->thread_busy[t] = self;
			continue;
		}
		o.thread = (int64_t)t;
		o.median = false;
		rc = tsr_trace_label_stats(v->trace, &per, &n, &o);
		if (rc == TSR_OK)
			sum_labels(v, per, n, &v->thread_spans[t], &v->thread_busy[t], false);
		free(per);
	}
	cli_progress_end();
	if (rc != TSR_OK)
		return cli_error("%s", tsr_trace_error(v->trace));
	return CLI_EXIT_OK;
}

/* --- Text ---------------------------------------------------------------------------- */

/* A duration with three significant digits and a unit that fits it. */
static const char *fmt_ns(char buf[24], double ns)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double x = ns / units[i].scale;
		if (x >= 1.0 || units[i].scale == 1) {
			int decimals = x >= 100 || units[i].scale == 1 ? 0 : x >= 10 ? 1 : 2;
			snprintf(buf, 24, "%.*f %s", decimals, x, units[i].unit);
			return buf;
		}
	}
	return buf;
}

static const char *fmt_count(char buf[32], uint64_t v)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), out = 0;

	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			buf[out++] = ',';
		buf[out++] = tmp[i];
	}
	buf[out] = '\0';
	return buf;
}

/* Writes a name from the file with control characters replaced, padded
 * or cut to `width` display bytes. */
static void put_name(FILE *out, const char *s, int width)
{
	int n = 0;

	if (!s)
		s = "?";
	for (; *s && n < width; s++, n++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
	for (; n < width; n++)
		fputc(' ', out);
}

static const char *channel_name(const trace_view *v, uint32_t c)
{
	return c < v->n_channels ? v->channels[c].name : "?";
}

static void print_text(FILE *out, trace_view *v, size_t top, bool colours)
{
	const char *bold = colours ? "\033[1m" : "", *reset = colours ? "\033[0m" : "";
	char a[24], b[24], c[24], d[24], e[24], f[24], n1[32];
	size_t shown = top && top < v->n_labels ? top : v->n_labels;
	int name_w = 24;

	fprintf(out, "%sTrace:%s %zu file%s, %zu thread%s, %s spans over %s\n", bold, reset,
	        v->n_procs, v->n_procs == 1 ? "" : "s", v->n_threads, v->n_threads == 1 ? "" : "s",
	        fmt_count(n1, v->info->events),
	        fmt_ns(a, (double)(v->info->end_ns - v->info->start_ns)));
	for (size_t p = 0; p < v->n_procs; p++) {
		fputs("  ", out);
		put_name(out, v->procs[p].name, (int)strlen(v->procs[p].name ? v->procs[p].name : "?"));
		fprintf(out, " (pid %" PRId64 " on ", v->procs[p].pid);
		put_name(out, v->procs[p].host, (int)strlen(v->procs[p].host ? v->procs[p].host : "?"));
		fprintf(out, ")%s: ", v->procs[p].complete ? "" : ", ended without closing the trace");
		put_name(out, v->procs[p].path, (int)strlen(v->procs[p].path));
		fputc('\n', out);
	}
	if (v->windowed)
		fprintf(out, "  window: %s to %s after the first event\n",
		        fmt_ns(a, (double)(v->from_ns - v->info->start_ns)),
		        v->to_ns == INT64_MAX ? "the end" : fmt_ns(b, (double)(v->to_ns - v->info->start_ns)));
	if (v->thread >= 0) {
		fputs("  thread: ", out);
		put_name(out, v->threads[v->thread].name, 40);
		fputc('\n', out);
	}

	for (size_t i = 0; i < shown; i++) {
		const char *name = tsr_trace_name(v->trace, v->labels[i].name);
		int len = name ? (int)strlen(name) : 1;
		if (len > name_w)
			name_w = len < 60 ? len : 60;
	}
	fprintf(out, "\n%sSpans by label%s (by %s; %s spans, %zu labels):\n", bold, reset,
	        sort_names[g_sort], fmt_count(n1, v->spans), v->n_labels);
	fprintf(out, "  %-10s %-*s %10s %10s %10s %10s %10s %10s %10s\n", "channel", name_w, "name",
	        "count", "total", "self", "mean", "median", "min", "max");
	for (size_t i = 0; i < shown; i++) {
		const tsr_trace_label_stat *s = &v->labels[i];
		fputs("  ", out);
		put_name(out, channel_name(v, s->channel), 10);
		fputc(' ', out);
		put_name(out, tsr_trace_name(v->trace, s->name), name_w);
		fprintf(out, " %10s %10s %10s %10s %10s %10s %10s\n", fmt_count(n1, s->count),
		        fmt_ns(a, (double)s->total_ns), fmt_ns(b, (double)s->self_ns),
		        fmt_ns(c, s->mean_ns), v->median ? fmt_ns(d, (double)s->median_ns) : "-",
		        fmt_ns(e, (double)s->min_ns), fmt_ns(f, (double)s->max_ns));
	}
	if (shown < v->n_labels)
		fprintf(out, "  ... %zu more (--top 0 shows all)\n", v->n_labels - shown);

	fprintf(out, "\n%sBy channel:%s\n  %-12s %10s %12s\n", bold, reset, "channel", "spans",
	        "self time");
	for (size_t ch = 0; ch < v->n_channels; ch++) {
		if (!v->channel_spans[ch])
			continue;
		fputs("  ", out);
		put_name(out, v->channels[ch].name, 12);
		fprintf(out, " %10s %12s\n", fmt_count(n1, v->channel_spans[ch]),
		        fmt_ns(a, (double)v->channel_self[ch]));
	}

	fprintf(out, "\n%sBy thread:%s\n  %5s  %-24s %-20s %10s %12s\n", bold, reset, "index",
	        "process (pid)", "thread (tid)", "spans", "busy");
	for (size_t t = 0; t < v->n_threads; t++) {
		const tsr_trace_thread *th = &v->threads[t];
		const tsr_trace_process *p = th->process < v->n_procs ? &v->procs[th->process] : NULL;
		char who[160], tname[160];

		if (v->thread >= 0 && (size_t)v->thread != t)
			continue;
		snprintf(who, sizeof(who), "%s (%" PRId64 ")", p && p->name ? p->name : "?",
		         p ? p->pid : 0);
		snprintf(tname, sizeof(tname), "%s (%" PRId64 ")", th->name ? th->name : "?", th->tid);
		fprintf(out, "  %5zu  ", t);
		put_name(out, who, 24);
		fputc(' ', out);
		put_name(out, tname, 20);
		fprintf(out, " %10s %12s\n", fmt_count(n1, v->thread_spans[t]),
		        fmt_ns(a, (double)v->thread_busy[t]));
	}
}

/* Prints the counter series: samples, min and max over the view, one
 * bucket each. */
static int print_series_text(FILE *out, trace_view *v, bool colours)
{
	const tsr_trace_series *series;
	size_t n;
	int rc = tsr_trace_series_list(v->trace, &series, &n);

	if (rc != TSR_OK)
		return cli_error("%s", tsr_trace_error(v->trace));
	if (n == 0)
		return CLI_EXIT_OK;
	fprintf(out, "\n%sCounters:%s\n  %-30s %-12s %10s %12s %12s\n", colours ? "\033[1m" : "",
	        colours ? "\033[0m" : "", "graph / series", "unit", "samples", "min", "max");
	for (size_t i = 0; i < n; i++) {
		tsr_trace_counter_bucket *b = NULL;
		size_t nb = 0;
		int64_t from = v->windowed ? v->from_ns : v->info->start_ns;
		int64_t to = v->windowed && v->to_ns != INT64_MAX ? v->to_ns : v->info->end_ns + 1;
		char label[256], n1[32];

		rc = tsr_trace_counter(v->trace, &b, &nb, NULL, i, from, to,
		                       (uint64_t)(to - from > 0 ? to - from : 1));
		if (rc != TSR_OK)
			return cli_error("%s", tsr_trace_error(v->trace));
		snprintf(label, sizeof(label), "%s / %s", series[i].graph, series[i].name);
		fputs("  ", out);
		put_name(out, label, 30);
		fputc(' ', out);
		put_name(out, series[i].unit, 12);
		if (nb)
			fprintf(out, " %10s %12.6g %12.6g\n", fmt_count(n1, b[0].count), b[0].min, b[0].max);
		else
			fprintf(out, " %10s %12s %12s\n", "0", "-", "-");
		free(b);
	}
	return CLI_EXIT_OK;
}

/* --- JSON ---------------------------------------------------------------------------- */

static cJSON *j_str(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static int print_json(FILE *out, trace_view *v, size_t top)
{
	cJSON *root = cJSON_CreateObject(), *arr, *o, *w;
	size_t shown = top && top < v->n_labels ? top : v->n_labels;
	const tsr_trace_series *series = NULL;
	size_t n_series = 0;
	bool ok = root != NULL;
	char *text;
	int status = CLI_EXIT_ERROR;

	if (tsr_trace_series_list(v->trace, &series, &n_series) != TSR_OK) {
		cJSON_Delete(root);
		return cli_error("%s", tsr_trace_error(v->trace));
	}
	ok = ok && cli_json_put(root, "processes", arr = cJSON_CreateArray());
	for (size_t p = 0; ok && p < v->n_procs; p++) {
		ok = cli_json_put(arr, NULL, o = cJSON_CreateObject()) &&
		     cli_json_put(o, "path", j_str(v->procs[p].path)) &&
		     cli_json_put(o, "pid", cli_json_i64(v->procs[p].pid)) &&
		     cli_json_put(o, "host", j_str(v->procs[p].host)) &&
		     cli_json_put(o, "name", j_str(v->procs[p].name)) &&
		     cli_json_put(o, "complete", cJSON_CreateBool(v->procs[p].complete));
	}
	if (ok && v->windowed)
		ok = cli_json_put(root, "window", w = cJSON_CreateObject()) &&
		     cli_json_put(w, "from_ns", cli_json_i64(v->from_ns)) &&
		     cli_json_put(w, "to_ns",
		                  v->to_ns == INT64_MAX ? cJSON_CreateNull() : cli_json_i64(v->to_ns));
	else if (ok)
		ok = cli_json_put(root, "window", cJSON_CreateNull());
	ok = ok && cli_json_put(root, "spans", cli_json_u64(v->spans)) &&
	     cli_json_put(root, "labels", arr = cJSON_CreateArray());
	for (size_t i = 0; ok && i < shown; i++) {
		const tsr_trace_label_stat *s = &v->labels[i];
		ok = cli_json_put(arr, NULL, o = cJSON_CreateObject()) &&
		     cli_json_put(o, "channel", j_str(channel_name(v, s->channel))) &&
		     cli_json_put(o, "name", j_str(tsr_trace_name(v->trace, s->name))) &&
		     cli_json_put(o, "count", cli_json_u64(s->count)) &&
		     cli_json_put(o, "total_ns", cli_json_u64(s->total_ns)) &&
		     cli_json_put(o, "self_ns", cli_json_u64(s->self_ns)) &&
		     cli_json_put(o, "mean_ns", cJSON_CreateNumber(s->mean_ns)) &&
		     cli_json_put(o, "median_ns", v->median ? cli_json_u64(s->median_ns) : cJSON_CreateNull()) &&
		     cli_json_put(o, "median_exact", cJSON_CreateBool(v->median &&
		         s->median_exact)) &&
		     cli_json_put(o, "min_ns", cli_json_u64(s->min_ns)) &&
		     cli_json_put(o, "max_ns", cli_json_u64(s->max_ns));
	}
	ok = ok && cli_json_put(root, "channels", arr = cJSON_CreateArray());
	for (size_t ch = 0; ok && ch < v->n_channels; ch++) {
		if (!v->channel_spans[ch])
			continue;
		ok = cli_json_put(arr, NULL, o = cJSON_CreateObject()) &&
		     cli_json_put(o, "name", j_str(v->channels[ch].name)) &&
		     cli_json_put(o, "spans", cli_json_u64(v->channel_spans[ch])) &&
		     cli_json_put(o, "self_ns", cli_json_u64(v->channel_self[ch]));
	}
	ok = ok && cli_json_put(root, "threads", arr = cJSON_CreateArray());
	for (size_t t = 0; ok && t < v->n_threads; t++) {
		const tsr_trace_thread *th = &v->threads[t];
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
		     cli_json_put(o, "spans", cli_json_u64(v->thread_spans[t])) &&
		     cli_json_put(o, "busy_ns", cli_json_u64(v->thread_busy[t]));
	}
	ok = ok && cli_json_put(root, "series", arr = cJSON_CreateArray());
	for (size_t i = 0; ok && i < n_series; i++) {
		tsr_trace_counter_bucket *b = NULL;
		size_t nb = 0;
		int64_t from = v->windowed ? v->from_ns : v->info->start_ns;
		int64_t to = v->windowed && v->to_ns != INT64_MAX ? v->to_ns : v->info->end_ns + 1;

		if (tsr_trace_counter(v->trace, &b, &nb, NULL, i, from, to,
		                      (uint64_t)(to - from > 0 ? to - from : 1)) != TSR_OK) {
			cJSON_Delete(root);
			return cli_error("%s", tsr_trace_error(v->trace));
		}
		ok = cli_json_put(arr, NULL, o = cJSON_CreateObject()) &&
		     cli_json_put(o, "graph", j_str(series[i].graph)) &&
		     cli_json_put(o, "name", j_str(series[i].name)) &&
		     cli_json_put(o, "unit", j_str(series[i].unit)) &&
		     cli_json_put(o, "samples", cli_json_u64(nb ? b[0].count : 0)) &&
		     cli_json_put(o, "min", nb &&
		         isfinite(b[0].min) ? cJSON_CreateNumber(b[0].min) : cJSON_CreateNull()) &&
		     cli_json_put(o, "max", nb &&
		         isfinite(b[0].max) ? cJSON_CreateNumber(b[0].max) : cJSON_CreateNull());
		free(b);
	}
	text = ok ? cJSON_Print(root) : NULL;
	if (!text)
		status = cli_error("out of memory");
	else if (fputs(text, out) >= 0 && fputc('\n', out) != EOF)
		status = CLI_EXIT_OK;
	cJSON_free(text);
	cJSON_Delete(root);
	return status;
}

/* --- The command ------------------------------------------------------------------------- */

/* Finds the thread named or numbered `which`; -1 (printed) when none. */
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

int cli_cmd_trace(int argc, char **argv)
{
	trace_view v = {0};
	const char *output = NULL, *from = NULL, *to = NULL, *thread = NULL;
	size_t top = 20;
	bool top_given = false, json = false;
	tsr_colours colours = TSR_COLOURS_AUTO;
	cli_output *out = NULL;
	int c, status = CLI_EXIT_ERROR;

	g_sort = SORT_TOTAL;
	v.median = true;
	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, "+:ho:", options, NULL)) != -1) {
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
			for (k = 0; k < sizeof(sort_names) / sizeof(sort_names[0]); k++)
				if (strcmp(optarg, sort_names[k]) == 0)
					break;
			if (k == sizeof(sort_names) / sizeof(sort_names[0]))
				return cli_usage_error("trace", usage,
				                       "--sort wants total, self, count, mean, median or max, "
				                       "not '%s'",
				                       optarg);
			g_sort = (sort_key)k;
			break;
		}
		case OPT_THREAD: thread = optarg; break;
		case OPT_FROM: from = optarg; break;
		case OPT_TO: to = optarg; break;
		case OPT_NO_MEDIAN: v.median = false; break;
		case OPT_JSON: json = true; break;
		case OPT_COLOURS:
			if (!cli_parse_colours(optarg, &colours))
				return cli_usage_error("trace", usage,
				                       "--colours wants auto, always or never, not '%s'", optarg);
			break;
		case 'o': output = optarg; break;
		case 'h': fputs(help, stdout); return CLI_EXIT_OK;
		default: return cli_option_error("trace", usage, c, argv);
		}
	}
	if (optind == argc)
		return cli_usage_error("trace", usage, "no TRACE given");
	if (g_sort == SORT_MEDIAN && !v.median)
		return cli_usage_error("trace", usage, "--sort median needs the medians: drop --no-median");
	if (!top_given && json)
		top = 0;
	if (cli_open_trace(&v.trace, (const char *const *)argv + optind, (size_t)(argc - optind)))
		return CLI_EXIT_ERROR;
	v.info = tsr_trace_get_info(v.trace);
	if (tsr_trace_processes(v.trace, &v.procs, &v.n_procs) != TSR_OK ||
	    tsr_trace_threads(v.trace, &v.threads, &v.n_threads) != TSR_OK ||
	    tsr_trace_channels(v.trace, &v.channels, &v.n_channels) != TSR_OK) {
		cli_error("%s", tsr_trace_error(v.trace));
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
	if (json) {
		status = print_json(cli_output_stream(out), &v, top);
	} else {
		bool col = tsr_colours_enabled(colours, cli_output_stream(out));
		print_text(cli_output_stream(out), &v, top, col);
		status = print_series_text(cli_output_stream(out), &v, col);
	}
	status = cli_output_close(out, status == CLI_EXIT_OK) == CLI_EXIT_OK ? status
	                                                                     : CLI_EXIT_ERROR;
	out = NULL;
cleanup:
	if (out)
		cli_output_close(out, false);
	free(v.labels);
	free(v.channel_spans);
	free(v.channel_self);
	free(v.thread_spans);
	free(v.thread_busy);
	tsr_trace_free(v.trace);
	return status;
}
