/*
 * The charts of the HTML pages (html.h): each one a <figure> with its
 * title, description, legend and a table equivalent under a <details>,
 * so that the figure reads without the picture, by a screen reader and
 * with JavaScript off.
 */
#define _GNU_SOURCE
#include "html-private.h"

#include <tilescope/numfmt.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A value as the unit writes it in a table and a hover ("262,144 B",
 * "1,216 cycles", "3.41 ms", "91.5%"). */
static const char *fmt_value(char *buf, size_t size, cli_html_unit unit, double v)
{
	char digits[TSB_NUMBER_MAX], grouped[TSB_NUMBER_MAX];

	if (!isfinite(v))
		return tsb_format_axis(buf, size, v);
	switch (unit) {
	case CLI_HTML_BYTES:
		snprintf(digits, sizeof digits, "%.0f", fabs(v) < 1e30 ? v : 0);
		snprintf(buf, size, "%s B", tsb_group_digits(grouped, sizeof grouped, digits));
		return buf;
	case CLI_HTML_CYCLES:
		snprintf(buf, size, "%s cycles", tsb_format_axis(grouped, sizeof grouped, v));
		return buf;
	case CLI_HTML_NS:
		return tsb_format_duration(buf, size, v, TSB_DURATION_ASCII);
	case CLI_HTML_PERCENT:
		snprintf(buf, size, "%s%s", v < 0 ? "-" : "", tsb_format_percent(grouped, sizeof grouped, fabs(v)));
		return buf;
	case CLI_HTML_COUNT:
	default:
		return tsb_format_axis(buf, size, v);
	}
}

/* A value cell of a chart's table: shown by the unit, sorted by value. */
static void value_cell(cli_html *h, cli_html_unit unit, double v)
{
	char buf[TSB_NUMBER_MAX + 16];

	cli_html_cell_num(h, fmt_value(buf, sizeof buf, unit, v), v, NULL);
}

/* The figure's head: its caption and description, then (for the
 * charts' SVG) the place of the picture. */
static void figure_begin(cli_html *h, const char *id, const char *title, const char *desc)
{
	char safe[64];

	html_id(safe, id);
	html_printf(h, "<figure class=\"chart\" id=\"%s\">\n<figcaption>", safe);
	html_esc(h, title);
	html_put(h, "</figcaption>\n");
	if (desc) {
		html_put(h, "<p class=\"desc\">");
		html_esc(h, desc);
		html_put(h, "</p>\n");
	}
}

static void table_open(cli_html *h)
{
	html_put(h, "<details><summary>Table</summary>\n");
}

static void figure_end(cli_html *h)
{
	html_put(h, "</details>\n</figure>\n");
}

/* The total of item i over the series. */
static double item_total(const cli_html_series *series, size_t n_series, size_t i)
{
	double t = 0;
	size_t s;

	for (s = 0; s < n_series; s++) {
		double v = series[s].values[i];

		if (!isnan(v))
			t += v;
	}
	return t;
}

/* At most this many columns (buckets of items, pixel columns). */
#define MAX_COLUMNS 600

void cli_html_chart_stacked(cli_html *h, const char *id, const char *title, const char *desc,
                            const char *item_name, cli_html_unit unit,
                            const cli_html_series *series, size_t n_series, size_t n_items)
{
	size_t n_cols = n_items < MAX_COLUMNS ? n_items : MAX_COLUMNS;
	size_t n_head = 5 + n_series, c, s;
	const char **heads;
	bool *num;

	if (h->failed)
		return;
	figure_begin(h, id, title, desc);
	heads = calloc(n_head, sizeof *heads);
	num = calloc(n_head, sizeof *num);
	if (!heads || !num) {
		free(heads);
		free(num);
		h->failed = true;
		return;
	}
	heads[0] = "First";
	heads[1] = "Last";
	heads[2] = "Largest";
	for (s = 0; s < n_series; s++)
		heads[3 + s] = series[s].name;
	heads[3 + n_series] = "Largest total";
	heads[4 + n_series] = "Smallest total";
	for (c = 2; c < n_head; c++)
		num[c] = true;
	table_open(h);
	cli_html_table_begin(h, item_name, n_head, heads, num);
	for (c = 0; c < n_cols; c++) {
		size_t first = c * n_items / n_cols, end = (c + 1) * n_items / n_cols, i, arg = first;
		double mn = INFINITY, mx = -INFINITY;

		for (i = first; i < end; i++) {
			double t = item_total(series, n_series, i);

			if (t < mn)
				mn = t;
			if (t > mx)
				mx = t, arg = i;
		}
		cli_html_row_begin(h);
		cli_html_cell_u64(h, first, NULL);
		cli_html_cell_u64(h, end - 1, NULL);
		cli_html_cell_u64(h, arg, NULL);
		for (s = 0; s < n_series; s++)
			value_cell(h, unit, series[s].values[arg]);
		value_cell(h, unit, mx);
		value_cell(h, unit, mn);
		cli_html_row_end(h);
	}
	cli_html_table_end(h);
	figure_end(h);
	free(heads);
	free(num);
}

void cli_html_chart_lines(cli_html *h, const char *id, const char *title, const char *desc,
                          const char *x_name, cli_html_unit unit,
                          const cli_html_series *series, size_t n_series, size_t n_points)
{
	size_t n_cols = n_points < MAX_COLUMNS ? n_points : MAX_COLUMNS;
	size_t n_head = 2 + 2 * n_series, c, s;
	const char **heads;
	char **owned;
	bool *num;

	if (h->failed)
		return;
	figure_begin(h, id, title, desc);
	heads = calloc(n_head, sizeof *heads);
	owned = calloc(n_head, sizeof *owned);
	num = calloc(n_head, sizeof *num);
	if (!heads || !owned || !num)
		goto oom;
	heads[0] = "First";
	heads[1] = "Last";
	for (s = 0; s < n_series; s++) {
		if (asprintf(&owned[2 + 2 * s], "%s min", series[s].name) < 0 ||
		    asprintf(&owned[3 + 2 * s], "%s max", series[s].name) < 0)
			goto oom;
		heads[2 + 2 * s] = owned[2 + 2 * s];
		heads[3 + 2 * s] = owned[3 + 2 * s];
	}
	for (c = 0; c < n_head; c++)
		num[c] = true;
	table_open(h);
	cli_html_table_begin(h, x_name, n_head, heads, num);
	for (c = 0; c < n_cols; c++) {
		size_t first = c * n_points / n_cols, end = (c + 1) * n_points / n_cols, i;

		cli_html_row_begin(h);
		cli_html_cell_u64(h, first, NULL);
		cli_html_cell_u64(h, end - 1, NULL);
		for (s = 0; s < n_series; s++) {
			double mn = INFINITY, mx = -INFINITY;

			for (i = first; i < end; i++) {
				double v = series[s].values[i];

				if (v < mn)
					mn = v;
				if (v > mx)
					mx = v;
			}
			value_cell(h, unit, mn <= mx ? mn : NAN);
			value_cell(h, unit, mn <= mx ? mx : NAN);
		}
		cli_html_row_end(h);
	}
	cli_html_table_end(h);
	figure_end(h);
	goto out;
oom:
	h->failed = true;
out:
	for (c = 0; owned && c < n_head; c++)
		free(owned[c]);
	free(owned);
	free(heads);
	free(num);
}

void cli_html_chart_bars(cli_html *h, const char *id, const char *title, const char *desc,
                         cli_html_unit unit, const char *const *labels, const double *values,
                         size_t n)
{
	static const char *const heads[] = { "Name", "Value" };
	static const bool num[] = { false, true };
	size_t i;

	if (h->failed)
		return;
	figure_begin(h, id, title, desc);
	table_open(h);
	cli_html_table_begin(h, title, 2, heads, num);
	for (i = 0; i < n; i++) {
		cli_html_row_begin(h);
		cli_html_cell(h, labels[i], NULL);
		value_cell(h, unit, values[i]);
		cli_html_row_end(h);
	}
	cli_html_table_end(h);
	figure_end(h);
}

/* The spans of one lane listed in the table: the first this many. */
#define LANE_TABLE_MAX 200

void cli_html_chart_lanes(cli_html *h, const char *id, const char *title, const char *desc,
                          cli_html_unit unit, const char *const *lane_names, size_t n_lanes,
                          const cli_html_span *spans, size_t n_spans)
{
	static const char *const heads[] = { "Lane", "Span", "Start", "End", "Duration" };
	static const bool num[] = { false, false, true, true, true };
	size_t l, i;

	if (h->failed)
		return;
	figure_begin(h, id, title, desc);
	table_open(h);
	cli_html_table_begin(h, title, 5, heads, num);
	for (l = 0; l < n_lanes; l++) {
		size_t shown = 0, more = 0;

		for (i = 0; i < n_spans; i++) {
			if (spans[i].lane != l)
				continue;
			if (shown == LANE_TABLE_MAX) {
				more++;
				continue;
			}
			shown++;
			cli_html_row_begin(h);
			cli_html_cell(h, lane_names[l], NULL);
			cli_html_cell(h, spans[i].label, NULL);
			value_cell(h, unit, spans[i].start);
			value_cell(h, unit, spans[i].end);
			value_cell(h, unit, spans[i].end - spans[i].start);
			cli_html_row_end(h);
		}
		if (more) {
			char buf[TSB_NUMBER_MAX];

			cli_html_row_begin(h);
			cli_html_cell(h, lane_names[l], NULL);
			html_printf(h, "<td colspan=\"4\">and %s more spans</td>",
			            tsb_format_u64(buf, sizeof buf, more));
			cli_html_row_end(h);
		}
	}
	cli_html_table_end(h);
	figure_end(h);
}
