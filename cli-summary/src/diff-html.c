/*
 * `tilescope diff --format=html` (diff-render.h): one self-contained page
 * for a CI artifact (html.h writes it). From the top: a pass/fail banner
 * naming every exceeded limit with both values; the reports and the runs
 * compared; the limit checks; the totals; memory per tile of the new
 * report minus the base; liveness of both reports on one axis; then a
 * table per group, largest change first, cut by --top and widened by
 * --all as the text and Markdown outputs are.
 *
 * The page embeds the document --format=json prints with its "deltas"
 * cut to the rows the page shows (cli_diff_json), so that a large
 * report's page stays small: a report of 5,888 tiles has some 300,000
 * deltas, a 70 MB document, of which the page shows a few hundred. With
 * --all --top 0 the embedded document is the whole of --format=json's.
 * Every figure from it carries its pointer ("/deltas/12/new"). The two
 * charts read per-tile memory and liveness from reportlib, which the
 * JSON does not hold.
 */
#define _GNU_SOURCE
#include "diff-render.h"

#include "cli.h"
#include "html.h"

#include <tilescope/numfmt.h>

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The page being written. */
typedef struct page {
	cli_html *h;
	const cli_diff *d;
	const tsr_delta *first;    /* the comparison's deltas start here */
	size_t *index;             /* per delta: its index in the embedded "deltas" */
	bool oom;                  /* memory ran out */
} page;

/* The rows of one group (cli_diff_select_group). */
typedef struct group_rows {
	const tsr_delta **rows;
	size_t n, more, n_changed;
} group_rows;

/* "/deltas/INDEX/KEY" of delta `x` into `buf`. */
static const char *delta_pointer(char buf[64], const page *p, const tsr_delta *x, const char *key)
{
	snprintf(buf, 64, "/deltas/%zu/%s", p->index[x - p->first], key);
	return buf;
}

/* `pointer`, or NULL when `name` holds a control character: the page
 * writes those as U+FFFD (html.h), so the text is not the JSON's string. */
static const char *name_pointer(const char *name, const char *pointer)
{
	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		if (*s < 0x20 || *s == 0x7f)
			return NULL;
	return pointer;
}

/* The banner's text: the limits met, or each exceeded one with both
 * values. Malloc'd; NULL when out of memory. */
static char *banner_text(const cli_diff *d)
{
	char *text = NULL, b[32], n[32], c[TSB_NUMBER_MAX], lim[CLI_DIFF_LIMIT_TEXT];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	if (d->n_checks == 0)
		fputs("no limits were set; the reports are compared below", f);
	else if (!d->failed)
		fprintf(f, d->n_checks == 1 ? "the limit is met" : "all %zu limits met", d->n_checks);
	else
		fprintf(f, "%zu of %zu limit%s exceeded:", d->failed, d->n_checks,
		        d->n_checks == 1 ? "" : "s");
	for (size_t i = 0, k = 0; i < d->n_checks; i++) {
		const tsr_limit_check *x = &d->checks[i];

		if (x->passed)
			continue;
		fprintf(f, "%s %s went from %s to %s (%s%s), over the limit %s", k++ ? ";" : "",
		        x->limit->metric, x->in_base ? cli_fmt_count(b, x->base) : "none",
		        x->in_new ? cli_fmt_count(n, x->new_value) : "none",
		        cli_diff_check_change(x) > 0 ? "+" : "",
		        tsb_format_i64(c, sizeof(c), cli_diff_check_change(x)),
		        tsr_limit_fill_option(x->limit, lim, sizeof(lim)));
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* The reports, the runs compared and the notes. */
static void write_reports(page *p)
{
	const cli_diff *d = p->d;
	cli_html *h = p->h;
	size_t n_programs = tsr_comparison_get_program_count(d->cmp), n_notes = 0;
	char ptr[64];

	cli_html_section_begin(h, "reports", "Reports");
	cli_html_figures_begin(h, "Compared");
	cli_html_figure(h, "Base", d->base_path, name_pointer(d->base_path, "/base"));
	cli_html_figure(h, "New", d->new_path, name_pointer(d->new_path, "/new"));
	if (!d->by_program) {
		char run[TSB_NUMBER_MAX];
		if (d->base_run >= 0)
			cli_html_figure(h, "Base run", tsb_format_i64(run, sizeof(run), d->base_run),
			                "/base_run");
		if (d->new_run >= 0)
			cli_html_figure(h, "New run", tsb_format_i64(run, sizeof(run), d->new_run),
			                "/new_run");
	}
	if (d->fell_back) {
		snprintf(ptr, sizeof(ptr), "/notes/%zu", n_notes++);
		cli_html_figure(h, "Note",
		                "no program has runs in both reports; the last run of each is compared",
		                ptr);
	}
	if (cli_diff_memory_mixed(d->cmp)) {
		snprintf(ptr, sizeof(ptr), "/notes/%zu", n_notes++);
		cli_html_figure(h, "Note", cli_diff_memory_mixed_note(d->cmp), ptr);
	}
	cli_html_figures_end(h);
	if (n_programs) {
		static const char *const heads[] = {"Base program", "New program", "Base runs",
		                                    "New runs"};
		static const bool numeric[] = {false, false, true, true};

		cli_html_table_begin(h,
		                     d->by_program ? "Runs matched by program (kept runs averaged)"
		                                   : "Programs compared",
		                     4, heads, numeric);
		for (size_t i = 0; i < n_programs; i++) {
			const tsr_compared_program *cp = tsr_comparison_get_program(d->cmp, i);
			cli_html_row_begin(h);
			snprintf(ptr, sizeof(ptr), "/programs/%zu/base", i);
			cli_html_cell(h, cp->base_name ? cp->base_name : "",
			              cp->base_name ? name_pointer(cp->base_name, ptr) : NULL);
			snprintf(ptr, sizeof(ptr), "/programs/%zu/new", i);
			cli_html_cell(h, cp->new_name ? cp->new_name : "",
			              cp->new_name ? name_pointer(cp->new_name, ptr) : NULL);
			snprintf(ptr, sizeof(ptr), "/programs/%zu/base_runs", i);
			cli_html_cell_u64(h, cp->base_runs, ptr);
			snprintf(ptr, sizeof(ptr), "/programs/%zu/new_runs", i);
			cli_html_cell_u64(h, cp->new_runs, ptr);
			cli_html_row_end(h);
		}
		cli_html_table_end(h);
	}
	cli_html_section_end(h);
}

/* A percent change as a cell: the number (the JSON's percent, already
 * times 100, so the text has no '%': html.h's rule would read "6.3%" as
 * 630), or "new" for an item grown from nothing; `pointer` is the
 * JSON's percent, null exactly when `has` is false. */
static void percent_cell(cli_html *h, bool has, double percent, bool from_nothing,
                         const char *pointer)
{
	char text[32];

	if (!has) {
		cli_html_cell(h, from_nothing ? "new" : "", NULL);
		return;
	}
	/* A whole percentage is an integer in the JSON (cJSON writes 100.0
	 * as 100), and is one here. */
	snprintf(text, sizeof(text), percent == trunc(percent) && fabs(percent) < 1e15 ? "%.0f" : "%.1f",
	         percent);
	cli_html_cell_num(h, text, percent, pointer);
}

/* The limit checks: each limit, its metric, both values and the change. */
static void write_limits(page *p)
{
	static const char *const heads[] = {"Result", "Limit", "Threshold", "Metric", "Base", "New",
	                                    "Change", "Change (%)"};
	static const bool numeric[] = {false, false, false, false, true, true, true, true};
	const cli_diff *d = p->d;
	cli_html *h = p->h;
	char ptr[64];

	if (!d->n_checks)
		return;
	cli_html_section_begin(h, "limits", "Limits");
	cli_html_table_begin(h, "Limit checks", 8, heads, numeric);
	for (size_t i = 0; i < d->n_checks; i++) {
		const tsr_limit_check *k = &d->checks[i];
		cli_html_row_begin(h);
		cli_html_cell(h, k->passed ? "pass" : "FAIL", NULL);
		snprintf(ptr, sizeof(ptr), "/limits/%zu/limit", i);
		cli_html_cell(h, k->limit->option, ptr);
		snprintf(ptr, sizeof(ptr), "/limits/%zu/threshold", i);
		cli_html_cell(h, k->limit->threshold, ptr);
		snprintf(ptr, sizeof(ptr), "/limits/%zu/metric", i);
		cli_html_cell(h, k->limit->metric, name_pointer(k->limit->metric, ptr));
		snprintf(ptr, sizeof(ptr), "/limits/%zu/base", i);
		if (k->in_base)
			cli_html_cell_u64(h, k->base, ptr);
		else
			cli_html_cell(h, "none", NULL);
		snprintf(ptr, sizeof(ptr), "/limits/%zu/new", i);
		if (k->in_new)
			cli_html_cell_u64(h, k->new_value, ptr);
		else
			cli_html_cell(h, "none", NULL);
		snprintf(ptr, sizeof(ptr), "/limits/%zu/change", i);
		cli_html_cell_i64(h, cli_diff_check_change(k), ptr);
		snprintf(ptr, sizeof(ptr), "/limits/%zu/percent", i);
		percent_cell(h, k->in_base && k->in_new && k->base != 0,
		             ((double)k->new_value - (double)k->base) * 100.0 / (double)k->base,
		             k->new_value > 0, ptr);
		cli_html_row_end(h);
	}
	cli_html_table_end(h);
	cli_html_section_end(h);
}

/* One group's table: metric, base and new (or which report lacks the
 * item), unit, change, percent and verdict, each from the JSON. */
static void write_group(page *p, tsr_metric_group g, const group_rows *r)
{
	static const char *const heads[] = {"Metric", "Base", "New", "Unit", "Change",
	                                    "Change (%)", "Verdict"};
	static const bool numeric[] = {false, true, true, false, true, true, false};
	cli_html *h = p->h;
	char id[48], caption[160], ptr[64];

	if (r->n == 0)
		return;
	snprintf(id, sizeof(id), "group-%s", cli_diff_group_key(g));
	cli_html_section_begin(h, id, cli_diff_group_title(g));
	if (g == TSR_GROUP_TOTAL)
		snprintf(caption, sizeof(caption), "Every total of both reports");
	else
		snprintf(caption, sizeof(caption), "%s: %zu changed%s", cli_diff_group_title(g),
		         r->n_changed, g == TSR_GROUP_RUN ? "" : ", largest change first");
	cli_html_table_begin(h, caption, 7, heads, numeric);
	for (size_t i = 0; i < r->n; i++) {
		const tsr_delta *x = r->rows[i];
		cli_html_row_begin(h);
		cli_html_cell(h, x->metric, name_pointer(x->metric, delta_pointer(ptr, p, x, "metric")));
		if (x->in_base)
			cli_html_cell_u64(h, x->base, delta_pointer(ptr, p, x, "base"));
		else
			cli_html_cell(h, "only in new", NULL);
		if (x->in_new)
			cli_html_cell_u64(h, x->new_value, delta_pointer(ptr, p, x, "new"));
		else
			cli_html_cell(h, "only in base", NULL);
		cli_html_cell(h,
		              x->unit == TSR_UNIT_BYTES    ? "bytes"
		              : x->unit == TSR_UNIT_CYCLES ? "cycles"
		              : x->unit == TSR_UNIT_TILES  ? "tiles"
		              : x->unit == TSR_UNIT_FLOPS  ? "flops"
		                                           : "count",
		              delta_pointer(ptr, p, x, "unit"));
		cli_html_cell_i64(h, x->change, delta_pointer(ptr, p, x, "change"));
		percent_cell(h, x->in_base && x->in_new && x->base != 0,
		             ((double)x->new_value - (double)x->base) * 100.0 / (double)x->base,
		             (!x->in_base || x->base == 0) && x->in_new && x->new_value > 0,
		             delta_pointer(ptr, p, x, "percent"));
		cli_html_cell(h, tsr_verdict_get_name(x->verdict), delta_pointer(ptr, p, x, "verdict"));
		cli_html_row_end(h);
	}
	cli_html_table_end(h);
	if (r->more) {
		snprintf(caption, sizeof(caption), "… and %zu more (--top 0 shows all)", r->more);
		cli_html_para(h, caption);
	}
	cli_html_section_end(h);
}

/* "52 (+1,024 B)" for tile 52 changed by 1,024 bytes, into buf[80]. */
static const char *tile_change(char buf[80], size_t tile, double change)
{
	char bytes[TSB_NUMBER_MAX];

	snprintf(buf, 80, "%zu (%s%s B)", tile, change > 0 ? "+" : "",
	         tsb_format_i64(bytes, sizeof(bytes), (int64_t)change));
	return buf;
}

/* Memory per tile, including gaps (the figure that decides whether a
 * tile fits), of the new report minus the base: one signed series. */
static void write_tile_chart(page *p)
{
	const cli_diff *d = p->d;
	const tsr_tile_memory *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, n, up = 0, down = 0;
	double *values;
	char desc[512], tiles[TSB_NUMBER_MAX], grow[80], drop[80];

	if (tsr_report_get_tile_memory(&a, &na, d->base_report) != TSR_OK ||
	    tsr_report_get_tile_memory(&b, &nb, d->new_report) != TSR_OK) {
		snprintf(desc, sizeof(desc), "No memory per tile: %s",
		         *tsr_report_error(d->base_report) ? tsr_report_error(d->base_report)
		                                           : tsr_report_error(d->new_report));
		cli_html_para(p->h, desc);
		return;
	}
	n = na > nb ? na : nb;
	values = malloc((n + 1) * sizeof(*values));
	if (!values) {
		p->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		double va = i < na ? (double)tsr_tile_memory_get_bytes(&a[i], true) : 0;
		double vb = i < nb ? (double)tsr_tile_memory_get_bytes(&b[i], true) : 0;
		values[i] = vb - va;
		if (values[i] > values[up])
			up = i;
		if (values[i] < values[down])
			down = i;
	}
	/* The largest increase and decrease, each only when there is one. */
	snprintf(desc, sizeof(desc),
	         "Memory including gaps of each of %s tiles in the new report minus the base "
	         "report's, up where the new report needs more. %s%s; %s%s.",
	         tsb_format_u64(tiles, sizeof(tiles), n),
	         n && values[up] > 0 ? "Largest increase: tile " : "No tile grew",
	         n && values[up] > 0 ? tile_change(grow, up, values[up]) : "",
	         n && values[down] < 0 ? "largest decrease: tile " : "no tile shrank",
	         n && values[down] < 0 ? tile_change(drop, down, values[down]) : "");
	cli_html_chart_stacked(p->h, "tile-memory", "Memory per tile, new − base", desc, "Tile",
	                       CLI_HTML_BYTES, &(cli_html_series){"New − base", values}, 1, n);
	free(values);
}

/* Live bytes (always-live plus not-always-live) at each liveness step of
 * `r` into a malloc'd *out of *n values; *n = 0 for a report without
 * steps. False when out of memory. */
static bool live_bytes(double **out, size_t *n, tsr_report *r, size_t *peak)
{
	const tsr_liveness_step *steps = NULL;
	uint64_t always = tsr_report_get_always_live_bytes(r);
	int rc = tsr_report_get_liveness_steps(&steps, n, r);

	*out = NULL;
	*peak = 0;
	if (rc == TSR_ERR_NO_MEMORY)
		return false;
	if (rc != TSR_OK)
		*n = 0;
	*out = malloc((*n + 1) * sizeof(**out));
	if (!*out)
		return false;
	for (size_t i = 0; i < *n; i++) {
		(*out)[i] = (double)(always + steps[i].not_always_live);
		if ((*out)[i] > (*out)[*peak])
			*peak = i;
	}
	return true;
}

/* A series' peak for the description: "1,234 B at step 5" or "none". */
static const char *peak_text(char buf[96], const double *v, size_t n, size_t peak)
{
	char bytes[TSB_NUMBER_MAX];

	if (n == 0)
		return "no liveness steps";
	snprintf(buf, 96, "%s B at step %zu", tsb_format_u64(bytes, sizeof(bytes), (uint64_t)v[peak]),
	         peak);
	return buf;
}

/* Liveness of both reports over their steps, on one axis; the shorter
 * one ends in a gap. */
static void write_liveness_chart(page *p)
{
	double *a = NULL, *b = NULL;
	size_t na, nb, pa, pb, n;
	char desc[512], ta[96], tb[96];

	if (!live_bytes(&a, &na, p->d->base_report, &pa) ||
	    !live_bytes(&b, &nb, p->d->new_report, &pb)) {
		p->oom = true;
		goto cleanup;
	}
	n = na > nb ? na : nb;
	if (n == 0) {
		cli_html_para(p->h, "Neither report has liveness steps.");
		goto cleanup;
	}
	snprintf(desc, sizeof(desc),
	         "Always-live plus not-always-live bytes at each liveness step, both reports on one "
	         "axis. Base peak: %s; new peak: %s.", peak_text(ta, a, na, pa),
	         peak_text(tb, b, nb, pb));
	{
		double *wa = realloc(a, n * sizeof(*a)), *wb = realloc(b, n * sizeof(*b));
		if (wa)
			a = wa;
		if (wb)
			b = wb;
		if (!wa || !wb) {
			p->oom = true;
			goto cleanup;
		}
	}
	for (size_t i = na; i < n; i++)
		a[i] = NAN;
	for (size_t i = nb; i < n; i++)
		b[i] = NAN;
	cli_html_chart_lines(p->h, "liveness", "Live memory over steps, base and new", desc, "Step",
	                     CLI_HTML_BYTES,
	                     (cli_html_series[]){{"Base", a}, {"New", b}}, 2, n);
cleanup:
	free(a);
	free(b);
}

/* The page (the top of this file); 0, or -1 when memory ran out or a
 * write failed. */
int cli_diff_render_html(FILE *out, const cli_diff *d)
{
	size_t total = tsr_comparison_get_count(d->cmp), kept = 0;
	group_rows groups[TSR_N_GROUPS] = {0};
	bool *keep = calloc(total + 1, sizeof(*keep));
	page p = {.d = d, .first = tsr_comparison_get_delta(d->cmp, 0),
	          .index = malloc((total + 1) * sizeof(size_t))};
	char *json = NULL, *banner = NULL, *subtitle = NULL;
	int rc = -1;

	if (!keep || !p.index)
		goto cleanup;
	for (tsr_metric_group g = 0; g < TSR_N_GROUPS; g++) {
		group_rows *r = &groups[g];
		r->rows = cli_diff_select_group(d, g, &r->n, &r->more, &r->n_changed);
		if (!r->rows)
			goto cleanup;
		for (size_t i = 0; i < r->n; i++)
			keep[r->rows[i] - p.first] = true;
	}
	for (size_t i = 0; i < total; i++)
		p.index[i] = keep[i] ? kept++ : 0;
	json = cli_diff_json(d, keep);
	banner = banner_text(d);
	if (!json || !banner || asprintf(&subtitle, "%s → %s", d->base_path, d->new_path) < 0) {
		subtitle = NULL;
		goto cleanup;
	}
	p.h = cli_html_begin(out, "tilescope diff", subtitle);
	if (!p.h)
		goto cleanup;
	cli_html_banner(p.h, d->failed == 0, banner);
	write_reports(&p);
	write_limits(&p);
	write_group(&p, TSR_GROUP_TOTAL, &groups[TSR_GROUP_TOTAL]);
	cli_html_section_begin(p.h, "charts", "Memory per tile and liveness");
	write_tile_chart(&p);
	write_liveness_chart(&p);
	cli_html_section_end(p.h);
	for (tsr_metric_group g = TSR_GROUP_TOTAL + 1; g < TSR_N_GROUPS; g++)
		write_group(&p, g, &groups[g]);
	rc = cli_html_end(p.h, json) == 0 && !p.oom ? 0 : -1;
cleanup:
	for (tsr_metric_group g = 0; g < TSR_N_GROUPS; g++)
		free(groups[g].rows);
	free(keep);
	free(p.index);
	cJSON_free(json);
	free(banner);
	free(subtitle);
	return rc;
}
