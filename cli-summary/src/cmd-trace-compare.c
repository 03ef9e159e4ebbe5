/*
 * `tilescope trace --compare A B`: the statistics by label of trace A and
 * trace B (each a .pvti file or a directory of them, opened on its own
 * time axis) side by side, with the change B - A, as the System
 * Analyser's Compare tab shows them: reportlib computes each side
 * (tsr_trace_list_label_stats, the window of --from / --to taken on each
 * side's own axis) and pairs them (tsr_trace_list_label_deltas), largest
 * |Δ total| first.
 *
 * JSON keys (nanoseconds as exact integers):
 *   a, b       {paths, files, spans (in the window), start_ns, end_ns}
 *   window     {from_ns, to_ns (null: the end)} after each side's first
 *              event, or null for the whole traces
 *   labels     [{channel, name, in_a, in_b, a, b, delta_count,
 *               delta_total_ns, delta_self_ns, delta_mean_ns,
 *               delta_median_ns (null with --no-median), delta_total_pct
 *               (null when A's total is 0)}]; a and b are {count,
 *               total_ns, self_ns, mean_ns, median_ns, min_ns, max_ns},
 *               or null on the side without the label
 */
#include "cli.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One side: its handle, window and statistics. */
typedef struct side {
	const char *path;
	tsr_trace *trace;
	const tsr_trace_info *info;
	size_t n_files;
	int64_t from_ns, to_ns;
	tsr_trace_label_stat *labels;
	size_t n_labels;
	uint64_t spans;            /* in the window: the labels' counts summed */
} side;

/* Opens one side and takes its statistics (errors printed). */
static int load_side(side *s, const char *path, const char *usage, const char *from,
                     const char *to, bool median)
{
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	const tsr_trace_process *procs;
	int rc;

	s->path = path;
	if (cli_open_trace(&s->trace, &path, 1))
		return CLI_EXIT_ERROR;
	cli_trace_print_skipped(s->trace);
	s->info = tsr_trace_get_info(s->trace);
	if (tsr_trace_get_processes(&procs, &s->n_files, s->trace) != TSR_OK)
		return cli_trace_fail(s->trace);
	if (cli_trace_window("trace", usage, s->trace, from, to, &s->from_ns, &s->to_ns))
		return CLI_EXIT_ERROR;
	o.from_ns = s->from_ns;
	o.to_ns = s->to_ns;
	o.median = median;
	cli_progress_begin("Computing statistics");
	rc = tsr_trace_list_label_stats(&s->labels, &s->n_labels, s->trace, &o);
	cli_progress_end();
	if (rc != TSR_OK)
		return cli_trace_fail(s->trace);
	for (size_t i = 0; i < s->n_labels; i++)
		s->spans += s->labels[i].count;
	return CLI_EXIT_OK;
}

/* "1,234.567 us": exact nanoseconds, as the System Analyser writes them
 * (with "us", as the rest of `tilescope trace`). */
static const char *fmt_us(char buf[48], int64_t ns, bool sign)
{
	char n1[32];
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, 48, "%s%s.%03" PRIu64 " us", sign && ns > 0 ? "+" : ns < 0 ? "-" : "",
	         cli_fmt_count(n1, a / 1000), a % 1000);
	return buf;
}

/* --- Text ------------------------------------------------------------------------------- */

static void print_text(FILE *out, const side *a, const side *b, const tsr_trace_label_delta *d,
                       size_t n, size_t top, bool colours)
{
	const char *bold = colours ? "\033[1m" : "", *reset = colours ? "\033[0m" : "";
	size_t shown = top && top < n ? top : n;
	char c1[32], c2[32], t1[48], t2[48], t3[48], pct[32];

	for (int i = 0; i < 2; i++) {
		const side *x = i ? b : a;

		fprintf(out, "%s%c:%s ", bold, i ? 'B' : 'A', reset);
		cli_trace_put_name(out, x->path, -1);
		fprintf(out, " (%s spans in the window)\n", cli_fmt_count(c1, x->spans));
	}
	fprintf(out, "\n%sLabels by |change of total|%s (%zu labels):\n", bold, reset, n);
	fprintf(out, "  %-10s %-40s %9s %9s %18s %18s %18s %9s\n", "channel", "name", "count A",
	        "count B", "total A", "total B", "change", "change %");
	for (size_t i = 0; i < shown; i++) {
		const tsr_trace_label_delta *r = &d[i];

		if (!r->in_a)
			snprintf(pct, sizeof(pct), "only B");
		else if (!r->in_b)
			snprintf(pct, sizeof(pct), "only A");
		else if (isnan(r->delta_total_pct))
			snprintf(pct, sizeof(pct), "-");
		else
			snprintf(pct, sizeof(pct), "%+.1f%%", r->delta_total_pct);
		/* Names come from the files: written safely (no control bytes). */
		fputs("  ", out);
		cli_trace_put_name(out, r->channel, 10);
		fputc(' ', out);
		cli_trace_put_name(out, r->name, 40);
		fprintf(out, " %9s %9s %18s %18s %18s %9s\n",
		        r->in_a ? cli_fmt_count(c1, r->a.count) : "-",
		        r->in_b ? cli_fmt_count(c2, r->b.count) : "-",
		        r->in_a ? fmt_us(t1, (int64_t)r->a.total_ns, false) : "-",
		        r->in_b ? fmt_us(t2, (int64_t)r->b.total_ns, false) : "-",
		        fmt_us(t3, r->delta_total_ns, true), pct);
	}
	if (shown < n)
		fprintf(out, "  ... %zu more (--top 0 shows all)\n", n - shown);
}

/* --- JSON ------------------------------------------------------------------------------- */

static cJSON *j_side(const side *s)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !cli_json_put(o, "path", cli_json_str(s->path)) ||
	    !cli_json_put(o, "files", cli_json_u64(s->n_files)) ||
	    !cli_json_put(o, "spans", cli_json_u64(s->spans)) ||
	    !cli_json_put(o, "start_ns", cli_json_i64(s->info->start_ns)) ||
	    !cli_json_put(o, "end_ns", cli_json_i64(s->info->end_ns))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *j_stat(bool present, const tsr_trace_label_stat *s, bool median)
{
	cJSON *o;

	if (!present)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	if (!o || !cli_json_put(o, "count", cli_json_u64(s->count)) ||
	    !cli_json_put(o, "total_ns", cli_json_u64(s->total_ns)) ||
	    !cli_json_put(o, "self_ns", cli_json_u64(s->self_ns)) ||
	    !cli_json_put(o, "mean_ns", cJSON_CreateNumber(s->mean_ns)) ||
	    !cli_json_put(o, "median_ns", median ? cli_json_u64(s->median_ns) : cJSON_CreateNull()) ||
	    !cli_json_put(o, "min_ns", cli_json_u64(s->min_ns)) ||
	    !cli_json_put(o, "max_ns", cli_json_u64(s->max_ns))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static int print_json(FILE *out, const side *a, const side *b, const char *from, const char *to,
                      const tsr_trace_label_delta *d, size_t n, size_t top, bool median)
{
	size_t shown = top && top < n ? top : n;
	cJSON *root = cJSON_CreateObject(), *arr = NULL, *o = NULL;
	bool ok = root && cli_json_put(root, "a", j_side(a)) && cli_json_put(root, "b", j_side(b));
	char *text = NULL;
	int status;

	if (ok && (from || to)) {
		int64_t f = 0, t = 0;

		/* The window as given, after each side's first event. */
		ok = (!from || cli_parse_ms(from, &f)) && (!to || cli_parse_ms(to, &t)) &&
		     cli_json_put(root, "window", o = cJSON_CreateObject()) &&
		     cli_json_put(o, "from_ns", cli_json_i64(f)) &&
		     cli_json_put(o, "to_ns", to ? cli_json_i64(t) : cJSON_CreateNull());
	} else if (ok) {
		ok = cli_json_put(root, "window", cJSON_CreateNull());
	}
	ok = ok && cli_json_put(root, "labels", arr = cJSON_CreateArray());
	for (size_t i = 0; ok && i < shown; i++) {
		const tsr_trace_label_delta *r = &d[i];

		ok = cli_json_put(arr, NULL, o = cJSON_CreateObject()) &&
		     cli_json_put(o, "channel", cli_json_str(r->channel)) &&
		     cli_json_put(o, "name", cli_json_str(r->name)) &&
		     cli_json_put(o, "in_a", cJSON_CreateBool(r->in_a)) &&
		     cli_json_put(o, "in_b", cJSON_CreateBool(r->in_b)) &&
		     cli_json_put(o, "a", j_stat(r->in_a, &r->a, median)) &&
		     cli_json_put(o, "b", j_stat(r->in_b, &r->b, median)) &&
		     cli_json_put(o, "delta_count", cli_json_i64(r->delta_count)) &&
		     cli_json_put(o, "delta_total_ns", cli_json_i64(r->delta_total_ns)) &&
		     cli_json_put(o, "delta_self_ns", cli_json_i64(r->delta_self_ns)) &&
		     cli_json_put(o, "delta_mean_ns", cJSON_CreateNumber(r->delta_mean_ns)) &&
		     cli_json_put(o, "delta_median_ns", median ? cli_json_i64(r->delta_median_ns)
		                                               : cJSON_CreateNull()) &&
		     cli_json_put(o, "delta_total_pct", isnan(r->delta_total_pct)
		                                            ? cJSON_CreateNull()
		                                            : cJSON_CreateNumber(r->delta_total_pct));
	}
	text = ok ? cJSON_Print(root) : NULL;
	if (!text) {
		status = cli_error("out of memory");
	} else {
		fputs(text, out);
		fputc('\n', out);
		status = CLI_EXIT_OK;
	}
	cJSON_free(text);
	cJSON_Delete(root);
	return status;
}

int cli_trace_compare(const char *path_a, const char *path_b, const char *usage, const char *from,
                      const char *to, bool median, size_t top, bool json, tsr_colours colours,
                      const char *output)
{
	side s[2] = {{0}, {0}};
	tsr_trace_label_delta *d = NULL;
	size_t n = 0;
	cli_output *out = NULL;
	int status = CLI_EXIT_ERROR;

	if (load_side(&s[0], path_a, usage, from, to, median) ||
	    load_side(&s[1], path_b, usage, from, to, median))
		goto cleanup;
	if (tsr_trace_list_label_deltas(&d, &n, s[0].trace, s[0].labels, s[0].n_labels, s[1].trace,
	                                s[1].labels, s[1].n_labels) != TSR_OK) {
		cli_trace_fail(s[0].trace);
		goto cleanup;
	}
	out = cli_output_open(output);
	if (!out)
		goto cleanup;
	if (json) {
		status = print_json(cli_output_stream(out), &s[0], &s[1], from, to, d, n, top, median);
	} else {
		print_text(cli_output_stream(out), &s[0], &s[1], d, n, top,
		           tsr_colours_enabled(colours, cli_output_stream(out)));
		status = CLI_EXIT_OK;
	}
	if (cli_output_close(out, status == CLI_EXIT_OK) != CLI_EXIT_OK)
		status = CLI_EXIT_ERROR;
cleanup:
	free(d);
	for (int i = 0; i < 2; i++) {
		free(s[i].labels);
		tsr_trace_free(s[i].trace);
	}
	return status;
}
