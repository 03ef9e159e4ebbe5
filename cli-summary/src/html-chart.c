/*
 * The charts of the HTML pages (html.h), inline SVG written here: each a
 * <figure> with its title, description, the picture (role="img" labelled
 * by its <title> and <desc>), a legend, and a table equivalent under a
 * <details>, so that the figure reads without the picture, by a screen
 * reader and with JavaScript off. Every mark has a <title> child (the
 * native tooltip; the page's script shows it nicer). Colours are classes
 * (.s0 ... .s9, the stylesheet's), never style attributes, which the
 * page's policy would block. Level of detail as the chart kit's: at most
 * MAX_COLUMNS columns, each drawing the extremes of the items under it,
 * so the size of a chart does not grow with its items. Coordinates are
 * written with one decimal, so that the same input gives the same bytes.
 */
#define _GNU_SOURCE
#include "html-private.h"

#include <tilescope/axis.h>
#include <tilescope/lod.h>
#include <tilescope/numfmt.h>
#include <tilescope/utf8.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* At most this many columns (buckets of items, or of a lane's time). */
#define MAX_COLUMNS 600
/* The picture's width in SVG units, and the plot's margins. */
#define W 960.0
#define MT 16.0
#define MB 46.0
#define MR 20.0
/* The spans of one lane listed in the table: the first this many. */
#define LANE_TABLE_MAX 200

/* A value as the unit writes it in a table ("262,144 B", "1,216 cycles",
 * "3.41 ms", "91.5%"). */
static const char *fmt_value(char *buf, size_t size, cli_html_unit unit, double v)
{
	char digits[TSB_NUMBER_MAX], grouped[TSB_NUMBER_MAX];

	if (!isfinite(v))
		return tsb_format_axis(buf, size, v);
	switch (unit) {
	case CLI_HTML_BYTES:
		/* Past 2^60 no report's: the axis rule's short form. */
		if (fabs(v) >= 1e18) {
			snprintf(buf, size, "%s B", tsb_format_axis(grouped, sizeof grouped, v));
			return buf;
		}
		snprintf(digits, sizeof digits, "%.0f", v);
		snprintf(buf, size, "%s B", tsb_group_digits(grouped, sizeof grouped, digits));
		return buf;
	case CLI_HTML_CYCLES:
		snprintf(buf, size, "%s cycles", tsb_format_axis(grouped, sizeof grouped, v));
		return buf;
	case CLI_HTML_NS:
		return tsb_format_duration(buf, size, v, TSB_DURATION_MICRO);
	case CLI_HTML_PERCENT:
		snprintf(buf, size, "%s%s", v < 0 ? "-" : "", tsb_format_percent(grouped, sizeof grouped, fabs(v)));
		return buf;
	case CLI_HTML_COUNT:
	default:
		return tsb_format_axis(buf, size, v);
	}
}

/* A value on an axis: sizes in binary units ("256.0 KiB"), cycles
 * without their unit (the axis' title says it). */
static const char *fmt_axis(char *buf, size_t size, cli_html_unit unit, double v)
{
	char s[TSB_NUMBER_MAX];

	if (unit == CLI_HTML_BYTES && isfinite(v) && fabs(v) < 1e18) {
		snprintf(buf, size, "%s%s", v < 0 ? "-" : "",
		         tsb_format_size(s, sizeof s, (uint64_t)llround(fabs(v))));
		return buf;
	}
	if (unit == CLI_HTML_CYCLES)
		return tsb_format_axis(buf, size, v);
	return fmt_value(buf, size, unit, v);
}

/* A value in a hover: a size in binary units ("256.0 KiB"; the table
 * has the bytes), anything else as in a table. */
static const char *fmt_hover(char *buf, size_t size, cli_html_unit unit, double v)
{
	return unit == CLI_HTML_BYTES ? fmt_axis(buf, size, unit, v) : fmt_value(buf, size, unit, v);
}

/* A tick of an axis whose ticks are `step` apart: times and sizes all in
 * the one unit that `unit_step` (the step of the axis' coarsest ticks)
 * reads best in ("0 ms" beside "50 ms", never "0 ns"; "0 KiB" beside
 * "64 KiB", never "0 B"), with the decimals `step` needs; anything else
 * as fmt_axis writes it. */
static const char *fmt_tick(char *buf, size_t size, cli_html_unit unit, double v, double step,
                            double unit_step)
{
	typedef struct {
		double scale;
		const char *name;
	} tick_unit;
	static const tick_unit times[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\xC2\xB5s" }, { 1, "ns" } };
	static const tick_unit sizes[] = { { 0x1p60, "EiB" }, { 0x1p50, "PiB" }, { 0x1p40, "TiB" },
	                                   { 0x1p30, "GiB" }, { 0x1p20, "MiB" }, { 0x1p10, "KiB" },
	                                   { 1, "B" } };
	const tick_unit *units = unit == CLI_HTML_NS ? times : sizes;
	size_t n_units = unit == CLI_HTML_NS ? sizeof times / sizeof times[0]
	                                     : sizeof sizes / sizeof sizes[0];
	char digits[TSB_NUMBER_MAX], grouped[TSB_NUMBER_MAX], *point;
	size_t u = 0;
	int d = 0;

	if ((unit != CLI_HTML_NS && unit != CLI_HTML_BYTES) || !(step > 0) || !(unit_step > 0) ||
	    !isfinite(v) || fabs(v) >= 1e18)
		return fmt_axis(buf, size, unit, v);
	while (u + 1 < n_units && unit_step < units[u].scale * (1 - 1e-9))
		u++;
	for (double q = step / units[u].scale; d < 3 && fabs(q - round(q)) > 1e-6 * fmax(1, q); d++)
		q *= 10;
	/* A tick is a multiple of the step: |v| < step / 2 is zero. */
	if (fabs(v) < step / 2)
		v = 0;
	snprintf(digits, sizeof digits, "%.*f", d, fabs(v) / units[u].scale);
	point = strchr(digits, '.');
	if (point)
		*point = '\0';
	snprintf(buf, size, "%s%s%s%s %s", v < 0 ? "-" : "", tsb_group_digits(grouped, sizeof grouped, digits),
	         point ? "." : "", point ? point + 1 : "", units[u].name);
	return buf;
}

static const char *unit_title(cli_html_unit unit)
{
	static const char *const t[] = { "count", "bytes", "cycles", "time", "percent" };

	return (unsigned)unit < sizeof t / sizeof t[0] ? t[unit] : "";
}

/* A coordinate: one decimal, no "-0.0", and within reach of the
 * picture whatever the value was (NaN at 0). */
static double X(double v)
{
	if (!(fabs(v) >= 0.05))
		return 0;
	return fmax(-1e6, fmin(1e6, v));
}

/* A value cell of a chart's table: shown by the unit, sorted by value. */
static void value_cell(cli_html *h, cli_html_unit unit, double v)
{
	char buf[TSB_NUMBER_MAX + 16];

	cli_html_cell_num(h, fmt_value(buf, sizeof buf, unit, v), v, NULL);
}

/* The font size of a chart's text in SVG units (page.css). */
#define FONT 11.0

/* About how wide a character is in ems, on the wide side of the sans
 * fonts a page may get: a label measured so fits what it is shown in.
 * Bytes that are not UTF-8 show as U+FFFD, about an em. */
static double char_em(uint32_t cp)
{
	if (cp >= 0x1100)
		return 1.25; /* CJK, emoji: full width and more */
	if (cp >= 0x80)
		return 1.0;
	if (strchr("mwMW@%", (int)cp))
		return 1.0;
	if (strchr("iljtfrI.,:;'!|() ", (int)cp))
		return 0.4;
	if (cp >= 'A' && cp <= 'Z')
		return 0.8;
	return 0.65;
}

/* The length of the longest start of `s` that is at most `max_em` wide
 * (the whole of it: strlen), and its width in *em (may be NULL). */
static size_t fit_em(const char *s, double max_em, double *em)
{
	size_t i = 0, n = s ? strlen(s) : 0, k;
	double w = 0;
	uint32_t cp;

	while (i < n) {
		k = tsb_utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (!k)
			k = 1, cp = 0xFFFD;
		if (w + char_em(cp) > max_em)
			break;
		w += char_em(cp);
		i += k;
	}
	if (em)
		*em = w;
	return i;
}

/* The width of `s` in SVG units at the charts' font size. */
static double text_width(const char *s)
{
	double em;

	fit_em(s, INFINITY, &em);
	return em * FONT;
}

/* Escaped text cut with "…" to fit `width` SVG units. */
static void esc_fit(cli_html *h, const char *s, double width)
{
	size_t n = s ? strlen(s) : 0, cut = fit_em(s, width / FONT, NULL);
	char *e;

	if (cut == n) {
		html_esc(h, s);
		return;
	}
	e = cli_html_escape(s, fit_em(s, width / FONT - 1, NULL));
	if (!e) {
		h->failed = true;
		return;
	}
	html_put(h, e);
	html_put(h, "\xE2\x80\xA6");
	free(e);
}

/* The figure's head and the <svg> of `height` units: labelled by its
 * title and description; zoomable ones say so to the script. */
static void figure_begin(cli_html *h, char id[64], const char *title, const char *desc,
                         double height, bool zoom)
{
	html_printf(h, "<figure class=\"chart\" id=\"%s\">\n<figcaption>", id);
	html_esc(h, title);
	html_put(h, "</figcaption>\n");
	if (desc) {
		html_put(h, "<p class=\"desc\">");
		html_esc(h, desc);
		html_put(h, "</p>\n");
	}
	html_printf(h, "<div class=\"chart-box\"><svg class=\"chart-svg\" viewBox=\"0 0 %.0f %.1f\" "
	               "role=\"img\" aria-labelledby=\"%s-title\" aria-describedby=\"%s-desc\"%s>\n"
	               "<title id=\"%s-title\">", W, height, id, id, zoom ? " data-zoom=\"x\"" : "", id);
	html_esc(h, title);
	html_printf(h, "</title><desc id=\"%s-desc\">", id);
	html_esc(h, desc ? desc : title);
	html_put(h, "</desc>\n");
}

/* The end of the picture. */
static void svg_end(cli_html *h)
{
	html_put(h, "</svg></div>\n");
}

/* Opens the legend (the caller closes it) with the series' colours. */
static void legend_series(cli_html *h, const cli_html_series *series, size_t n_series)
{
	size_t s;

	html_put(h, "<ul class=\"legend\">\n");
	for (s = 0; s < n_series; s++) {
		html_printf(h, "<li><svg viewBox=\"0 0 12 12\" aria-hidden=\"true\"><rect class=\"s%zu\" "
		               "width=\"12\" height=\"12\" rx=\"2\"/></svg>", s % 10);
		html_esc(h, series[s].name);
		html_put(h, "</li>\n");
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

/* A value axis from lo to hi (data), widened to whole ticks. */
typedef struct vaxis {
	double lo, hi, step;
	double top, height; /* the plot's top and height in SVG units */
} vaxis;

/* Nice ticks of [lo, hi] in `unit`: sizes step in whole binary units
 * (100 KiB, not 97.7 KiB), the unit fitting the larger end. */
static unsigned nice_ticks(double lo, double hi, cli_html_unit unit, unsigned max_ticks,
                           double *step, double *first)
{
	double scale = 1, top = fmax(fabs(lo), fabs(hi));
	unsigned n;

	if (unit == CLI_HTML_BYTES)
		while (top / scale >= 1024 && scale < 0x1p50)
			scale *= 1024;
	n = tsb_axis_nice_ticks(lo / scale, hi / scale, max_ticks, unit == CLI_HTML_PERCENT ? 0 : 1 / scale,
	                        step, first);
	*step *= scale;
	*first *= scale;
	return n;
}

/* The axis of [lo, hi] widened to whole ticks; `zero`: and to 0. */
static void vaxis_span(vaxis *a, double lo, double hi, bool zero, cli_html_unit unit, double top,
                       double height)
{
	double first;

	if (!isfinite(lo) || !isfinite(hi) || hi < lo)
		lo = 0, hi = 1;
	if (zero) {
		lo = fmin(lo, 0);
		hi = fmax(hi, 0);
	}
	if (hi == lo)
		hi = lo + 1;
	if (nice_ticks(lo, hi, unit, 6, &a->step, &first) == 0 || !(a->step > 0))
		a->step = hi - lo;
	a->lo = floor(lo / a->step + 1e-9) * a->step;
	a->hi = ceil(hi / a->step - 1e-9) * a->step;
	if (a->hi <= a->lo)
		a->hi = a->lo + a->step;
	a->top = top;
	a->height = height;
}

static void vaxis_init(vaxis *a, double lo, double hi, cli_html_unit unit, double top, double height)
{
	vaxis_span(a, lo, hi, true, unit, top, height);
}

static double vy(const vaxis *a, double v)
{
	return a->top + a->height - (v - a->lo) / (a->hi - a->lo) * a->height;
}

/* One column of a line's path at x: a point at its maximum and, when
 * its minimum is lower, a vertical stroke down to it, so that the line
 * keeps every column's extremes; a column with no value (mn > mx)
 * lifts the pen. */
static void path_column(cli_html *h, bool *pen, const vaxis *ax, double x, double mn, double mx)
{
	if (mn > mx) {
		*pen = false;
		return;
	}
	html_printf(h, "%c%.1f %.1f", *pen ? 'L' : 'M', X(x), X(vy(ax, mx)));
	if (mn < mx)
		html_printf(h, "L%.1f %.1f", X(x), X(vy(ax, mn)));
	*pen = true;
}

/* Horizontal grid lines and their labels left of the plot (x0..x1), the
 * unit's name along the left edge, the zero line. */
static void vaxis_draw(cli_html *h, const vaxis *a, cli_html_unit unit, double x0, double x1)
{
	char buf[TSB_NUMBER_MAX + 16];
	double v;
	int i;

	for (i = 0, v = a->lo; v <= a->hi + a->step * 1e-6 && i < 64; i++, v = a->lo + i * a->step) {
		double y = vy(a, v);

		html_printf(h, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
		            fabs(v) < a->step * 1e-6 ? "zero" : "grid", X(x0), X(y), X(x1), X(y),
		            X(x0 - 6), X(y + 4), fmt_tick(buf, sizeof buf, unit, fabs(v) < a->step * 1e-6 ? 0 : v, a->step, a->step));
	}
	html_printf(h, "<text class=\"axis-title\" x=\"12\" y=\"%.1f\" text-anchor=\"middle\" "
	               "transform=\"rotate(-90 12 %.1f)\">%s</text>\n",
	            X(a->top + a->height / 2), X(a->top + a->height / 2), unit_title(unit));
}

/* The grid and its labels of `ax` in the outer picture, below its top
 * margin; the marks go in the plot (plot_begin), whose x the script
 * zooms. */
static void grid_draw(cli_html *h, const vaxis *ax, cli_html_unit unit, double left, double pw)
{
	vaxis g = *ax;

	g.top = MT;
	vaxis_draw(h, &g, unit, left, left + pw);
}

/* Opens the plot: an inner picture of pw x ph at (left, MT) whose
 * coordinates are its own, stretched as the script zooms it. */
static void plot_begin(cli_html *h, double left, double pw, double ph)
{
	html_printf(h, "<svg class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
	               "viewBox=\"0 0 %.1f %.1f\" preserveAspectRatio=\"none\">\n",
	            left, MT, pw, ph, pw, ph);
}

/* The ticks of an x axis at one level: `max_ticks` of them, and of the
 * fine level (`coarse` > 0, the step of the coarse one) only those
 * between coarse ticks. Returns the step. */
static double xticks(cli_html *h, double px, double pw, double y, double lo, double hi, bool items,
                     cli_html_unit unit, bool zoom, unsigned max_ticks, double coarse)
{
	char buf[TSB_NUMBER_MAX + 16];
	double step, first, span = items ? hi - lo + 1 : hi - lo;
	unsigned n, i;

	if (items)
		n = tsb_axis_nice_ticks(lo, hi, max_ticks, 1, &step, &first);
	else
		n = nice_ticks(lo, hi, unit, max_ticks, &step, &first);
	for (i = 0; i < n && i < 2 * max_ticks && span > 0; i++) {
		double v = first + i * step;
		double lx = ((v - lo) + (items ? 0.5 : 0)) / span * pw, k = v / coarse;

		if (coarse > 0 && fabs(k - round(k)) < 1e-6)
			continue;
		if (items)
			tsb_format_u64(buf, sizeof buf, (uint64_t)llround(v));
		else
			fmt_tick(buf, sizeof buf, unit, v, step, coarse > 0 ? coarse : step);
		if (zoom)
			html_printf(h, "<line class=\"axis%s\" data-x=\"%.1f\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			               "y2=\"%.1f\"%s/><text%s data-x=\"%.1f\" x=\"%.1f\" y=\"%.1f\" "
			               "text-anchor=\"middle\"%s>%s</text>\n",
			            coarse > 0 ? " fine" : "", X(lx), X(px + lx), X(y), X(px + lx), X(y + 5),
			            coarse > 0 ? " visibility=\"hidden\"" : "", coarse > 0 ? " class=\"fine\"" : "",
			            X(lx), X(px + lx), X(y + 17), coarse > 0 ? " visibility=\"hidden\"" : "", buf);
		else
			html_printf(h, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			            X(px + lx), X(y), X(px + lx), X(y + 5), X(px + lx), X(y + 17), buf);
	}
	return step;
}

/* Ticks along the bottom for x values lo..hi: item indices (`items`:
 * centred in their item, whole numbers) or the unit's values. A
 * zoomable axis also has the fine ticks of a tenfold zoom, hidden, and
 * each tick carries its plot x (data-x): the script moves them and
 * shows the fine ones once they are far enough apart. The title `name`
 * under them. */
static void xaxis_draw(cli_html *h, double px, double pw, double y, double lo, double hi, bool items,
                       cli_html_unit unit, bool zoom, const char *name)
{
	double step;

	html_printf(h, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
	            X(px), X(y), X(px + pw), X(y));
	step = xticks(h, px, pw, y, lo, hi, items, unit, zoom, 9, 0);
	if (zoom && step > 0)
		xticks(h, px, pw, y, lo, hi, items, unit, zoom, 81, step);
	html_printf(h, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
	            X(px + pw / 2), X(y + 36));
	html_esc(h, name);
	html_put(h, "</text>\n");
}

/* "Tile 52" or "Tile 48-59" into a <title>. */
static void item_range(cli_html *h, const char *item_name, size_t first, size_t last)
{
	char a[TSB_NUMBER_MAX], b[TSB_NUMBER_MAX];

	html_esc(h, item_name);
	if (first == last)
		html_printf(h, " %s", tsb_format_u64(a, sizeof a, first));
	else
		html_printf(h, " %s\xE2\x80\x93%s", tsb_format_u64(a, sizeof a, first),
		            tsb_format_u64(b, sizeof b, last));
}

static bool *all_numeric(size_t n)
{
	bool *num = malloc((n ? n : 1) * sizeof *num);

	for (size_t i = 0; num && i < n; i++)
		num[i] = true;
	return num;
}

void cli_html_chart_stacked(cli_html *h, const char *id, const char *title, const char *desc,
                            const char *item_name, cli_html_unit unit,
                            const cli_html_series *series, size_t n_series, size_t n_items)
{
	const double left = 84, height = 300, ph = height - MT - MB, pw = W - left - MR;
	size_t n_cols = n_items < MAX_COLUMNS ? n_items : MAX_COLUMNS;
	size_t n_head = 6 + n_series, c, s, i, k, ticks = 0;
	double *totals = NULL, lo = 0, hi = 0;
	size_t *argmin = NULL;
	tsb_span *cols = NULL, low;
	tsb_pyramid *pyr = NULL, *neg = NULL;
	const char **heads = NULL;
	bool *num = NULL, folded = false, diverging;
	char buf[2 * TSB_NUMBER_MAX + 16], id_s[64];
	vaxis ax;

	if (h->failed)
		return;
	html_id(id_s, id);
	totals = calloc(n_items ? n_items : 1, sizeof *totals);
	cols = calloc(n_cols ? n_cols : 1, sizeof *cols);
	argmin = calloc(n_cols ? n_cols : 1, sizeof *argmin);
	heads = calloc(n_head, sizeof *heads);
	num = all_numeric(n_head);
	if (!totals || !cols || !argmin || !heads || !num)
		goto oom;
	/* NaN and the infinities are no value: left out of totals and marks. */
	for (i = 0; i < n_items; i++)
		for (s = 0; s < n_series; s++)
			if (isfinite(series[s].values[i]))
				totals[i] += series[s].values[i];
	pyr = tsb_pyramid_new(totals, n_items);
	/* The smallest item of a column is the largest of the negated totals. */
	for (i = 0; i < n_items; i++)
		totals[i] = -totals[i];
	neg = tsb_pyramid_new(totals, n_items);
	if (n_items && (!pyr || !neg))
		goto oom;
	/* Each column: its items' extremes, and the stack of the largest
	 * item, whose positive values go up from zero and negative down. */
	for (c = 0; c < n_cols; c++) {
		size_t first = c * n_items / n_cols, end = (c + 1) * n_items / n_cols;
		double up = 0, down = 0;

		tsb_pyramid_query(pyr, first, end, &cols[c]);
		tsb_pyramid_query(neg, first, end, &low);
		argmin[c] = low.argmax;
		for (s = 0; s < n_series; s++) {
			double v = series[s].values[cols[c].argmax];

			if (v > 0 && isfinite(v))
				up += v;
			else if (v < 0 && isfinite(v))
				down += v;
		}
		lo = fmin(lo, fmin(down, cols[c].min));
		hi = fmax(hi, fmax(up, cols[c].max));
		folded |= end - first > 1;
	}
	/* One series with values below zero (a difference B - A): each
	 * column spans both its extremes from the zero line, so the most
	 * shrinking item shows as well as the most growing. */
	diverging = n_series == 1 && lo < 0;
	figure_begin(h, id_s, title, desc, height, false);
	vaxis_init(&ax, lo, hi, unit, MT, ph);
	vaxis_draw(h, &ax, unit, left, left + pw);
	for (s = 0; s < n_series; s++) {
		html_printf(h, "<path class=\"s%zu\" d=\"", s % 10);
		for (c = 0; c < n_cols; c++) {
			size_t a = cols[c].argmax;
			double x0 = left + c * pw / n_cols, x1 = left + (c + 1) * pw / n_cols;
			double v = series[s].values[a], base = 0;

			if (diverging) {
				base = fmin(0, cols[c].min);
				v = fmax(0, cols[c].max) - base;
			} else {
				/* This series' place in the stack: after the series
				 * before it of the same sign. */
				for (k = 0; k < s; k++) {
					double u = series[k].values[a];

					if (isfinite(u) && (u > 0) == (v > 0))
						base += u;
				}
			}
			if (!isfinite(v) || v == 0)
				continue;
			html_printf(h, "M%.1f %.1fH%.1fV%.1fH%.1fZ", X(x0), X(vy(&ax, base)), X(x1),
			            X(vy(&ax, base + v)), X(x0));
		}
		html_put(h, "\"/>\n");
	}
	/* The tick of a folded column: its smallest total (diverging: the
	 * extreme nearest zero, when all its items are on one side), only
	 * where it is more than a unit (about a pixel) from the column's top:
	 * elsewhere it would only draw a comb over the columns. */
	for (c = 0; c < n_cols; c++) {
		double t = cols[c].min;

		if (diverging)
			t = cols[c].min > 0 ? cols[c].min : cols[c].max < 0 ? cols[c].max : NAN;
		if (isnan(t) || !(fabs(vy(&ax, cols[c].min) - vy(&ax, cols[c].max)) > 1))
			continue;
		if (!ticks++)
			html_put(h, "<path class=\"minmark\" d=\"");
		html_printf(h, "M%.1f %.1fH%.1f", X(left + c * pw / n_cols), X(vy(&ax, t)),
		            X(left + (c + 1) * pw / n_cols));
	}
	if (ticks)
		html_put(h, "\"/>\n");
	for (c = 0; c < n_cols; c++) {
		size_t first = c * n_items / n_cols, end = (c + 1) * n_items / n_cols, a = cols[c].argmax;

		html_printf(h, "<rect class=\"hit\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>",
		            X(left + c * pw / n_cols), MT, X(pw / n_cols), ph);
		item_range(h, item_name, first, end - 1);
		if (end - first > 1) {
			html_put(h, "\nLargest: ");
			item_range(h, item_name, a, a);
		}
		html_printf(h, "\nTotal: %s", fmt_hover(buf, sizeof buf, unit, cols[c].max));
		for (s = 0; s < n_series; s++) {
			html_put(h, "\n");
			html_esc(h, series[s].name);
			html_printf(h, ": %s", fmt_hover(buf, sizeof buf, unit, series[s].values[a]));
		}
		if (end - first > 1) {
			html_put(h, "\nSmallest: ");
			item_range(h, item_name, argmin[c], argmin[c]);
			html_printf(h, ", total %s", fmt_hover(buf, sizeof buf, unit, cols[c].min));
		}
		html_put(h, "</title></rect>\n");
	}
	xaxis_draw(h, left, pw, MT + ph, 0, n_items ? (double)n_items - 1 : 0, true, unit, false, item_name);
	svg_end(h);
	legend_series(h, series, n_series);
	/* The tick's swatch is a box like the series' with the tick across
	 * it: a bare line read as a dash before the text. */
	if (ticks)
		html_printf(h, "<li><svg viewBox=\"0 0 12 12\" aria-hidden=\"true\"><rect class=\"swatch\" "
		               "width=\"12\" height=\"12\" rx=\"2\"/><path class=\"minmark\" "
		               "d=\"M0 6H12\"/></svg>%s</li>\n",
		            diverging ? "Item nearest zero in a column (each column spans its largest and "
		                        "smallest item)"
		                      : "Smallest total of a column's items (each column is the stack of "
		                        "its largest)");
	html_put(h, "</ul>\n");
	/* A row per column: per item when each column is one, else the
	 * column's range, its largest item and its smallest. */
	k = 0;
	if (folded) {
		heads[k++] = "First";
		heads[k++] = "Last";
		heads[k++] = "Largest";
	} else {
		heads[k++] = item_name;
	}
	for (s = 0; s < n_series; s++)
		heads[k++] = series[s].name;
	heads[k++] = folded ? "Largest total" : "Total";
	if (folded) {
		heads[k++] = "Smallest";
		heads[k++] = "Smallest total";
	}
	table_open(h);
	cli_html_table_begin(h, title, k, heads, num);
	for (c = 0; c < n_cols; c++) {
		size_t first = c * n_items / n_cols, end = (c + 1) * n_items / n_cols;

		cli_html_row_begin(h);
		if (folded) {
			cli_html_cell_u64(h, first, NULL);
			cli_html_cell_u64(h, end - 1, NULL);
		}
		cli_html_cell_u64(h, cols[c].argmax, NULL);
		for (s = 0; s < n_series; s++)
			value_cell(h, unit, series[s].values[cols[c].argmax]);
		value_cell(h, unit, cols[c].max);
		if (folded) {
			cli_html_cell_u64(h, argmin[c], NULL);
			value_cell(h, unit, cols[c].min);
		}
		cli_html_row_end(h);
	}
	cli_html_table_end(h);
	figure_end(h);
	goto out;
oom:
	h->failed = true;
out:
	tsb_pyramid_free(pyr);
	tsb_pyramid_free(neg);
	free(totals);
	free(cols);
	free(argmin);
	free(heads);
	free(num);
}

/* The extremes of a series over a column's points, NaN and the
 * infinities left out (a column of those only: min > max, a gap). */
static void col_extremes(const double *v, size_t first, size_t end, double *mn, double *mx)
{
	*mn = INFINITY;
	*mx = -INFINITY;
	for (size_t i = first; i < end; i++) {
		if (!isfinite(v[i]))
			continue;
		*mn = fmin(*mn, v[i]);
		*mx = fmax(*mx, v[i]);
	}
}

/* A peak's label: its baseline, whether it ends at the marker (else
 * starts there), and the box it takes in SVG units. */
typedef struct label_box {
	double y;
	bool end;
	double x0, x1, top, bottom;
} label_box;

/*
 * Places the label of peak `s` (`width` units wide) of the marker at x, y
 * (the text is 6 units aside from it, its dx) into boxes[s], clear of the labels of the peaks before it: above the
 * marker, where its own line cannot be (a peak is its series' largest
 * value), beside it on the side `end_first` prefers, else on the other
 * side, else a line higher; when no place above is free, below the
 * marker the same way; when none is, above it.
 */
static void place_peak_label(label_box *boxes, size_t s, double width, double x, double y, bool end_first)
{
	for (int below = 0; below < 2; below++) {
		for (size_t level = 0; level <= s; level++) {
			for (int side = 0; side < 2; side++) {
				label_box b;
				size_t k;

				b.end = side ? !end_first : end_first;
				b.y = below ? y + 18 + 14 * (double)level : y - 8 - 14 * (double)level;
				b.x0 = b.end ? x - 6 - width : x + 6;
				b.x1 = b.x0 + width;
				b.top = b.y - FONT;
				b.bottom = b.y + 3;
				if (b.x0 < 0 || b.x1 > W || b.top < 0)
					continue;
				for (k = 0; k < s; k++)
					if (b.x0 < boxes[k].x1 + 4 && boxes[k].x0 < b.x1 + 4 &&
					    b.top < boxes[k].bottom && boxes[k].top < b.bottom)
						break;
				if (k == s) {
					boxes[s] = b;
					return;
				}
			}
		}
	}
	boxes[s] = (label_box){ fmax(FONT, y - 8), end_first, 0, 0, 0, 0 };
	boxes[s].x0 = end_first ? x - 6 - width : x + 6;
	boxes[s].x1 = boxes[s].x0 + width;
	boxes[s].top = boxes[s].y - FONT;
	boxes[s].bottom = boxes[s].y + 3;
}

void cli_html_chart_lines(cli_html *h, const char *id, const char *title, const char *desc,
                          const char *x_name, cli_html_unit unit,
                          const cli_html_series *series, size_t n_series, size_t n_points)
{
	const double left = 84, height = 300, ph = height - MT - MB, pw = W - left - MR;
	size_t n_cols = n_points < MAX_COLUMNS ? n_points : MAX_COLUMNS;
	size_t n_head = 2 + 2 * n_series, c, s, i, k;
	bool folded = n_points > MAX_COLUMNS;
	double lo = 0, hi = 0, cw = n_cols ? pw / n_cols : pw;
	const char **heads = NULL;
	char **owned = NULL, buf[2 * TSB_NUMBER_MAX + 16], ib[TSB_NUMBER_MAX], id_s[64];
	bool *num = NULL;
	label_box *boxes = NULL;
	vaxis ax;

	if (h->failed)
		return;
	html_id(id_s, id);
	heads = calloc(n_head, sizeof *heads);
	owned = calloc(n_head, sizeof *owned);
	boxes = calloc(n_series ? n_series : 1, sizeof *boxes);
	num = all_numeric(n_head);
	if (!heads || !owned || !boxes || !num)
		goto oom;
	for (s = 0; s < n_series; s++)
		for (i = 0; i < n_points; i++)
			if (isfinite(series[s].values[i]))
				lo = fmin(lo, series[s].values[i]), hi = fmax(hi, series[s].values[i]);
	figure_begin(h, id_s, title, desc, height, true);
	vaxis_init(&ax, lo, hi, unit, 0, ph);
	grid_draw(h, &ax, unit, left, pw);
	plot_begin(h, left, pw, ph);
	for (s = 0; s < n_series; s++) {
		bool pen = false;

		html_printf(h, "<path class=\"line s%zu\" d=\"", s % 10);
		for (c = 0; c < n_cols; c++) {
			double mn, mx, x = (c + 0.5) * cw;

			col_extremes(series[s].values, c * n_points / n_cols, (c + 1) * n_points / n_cols, &mn, &mx);
			path_column(h, &pen, &ax, x, mn, mx);
		}
		html_put(h, "\"/>\n");
	}
	for (c = 0; c < n_cols; c++) {
		size_t first = c * n_points / n_cols, end = (c + 1) * n_points / n_cols;

		html_printf(h, "<rect class=\"hit\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.1f\"><title>",
		            X(c * cw), X(cw), ph);
		item_range(h, x_name, first, end - 1);
		for (s = 0; s < n_series; s++) {
			double mn, mx;

			col_extremes(series[s].values, first, end, &mn, &mx);
			html_put(h, "\n");
			html_esc(h, series[s].name);
			html_printf(h, ": %s", fmt_hover(buf, sizeof buf, unit, mn <= mx ? mx : NAN));
			if (mn < mx)
				html_printf(h, " (smallest %s)", fmt_hover(buf, sizeof buf, unit, mn));
		}
		html_put(h, "</title></rect>\n");
	}
	html_put(h, "</svg>\n");
	/* Each series' peak (its first largest point), marked and named. */
	for (s = 0; s < n_series; s++) {
		size_t best = n_points, name_len;
		const char *name = series[s].name ? series[s].name : "";
		double x, y, lx;
		char *label;

		for (i = 0; i < n_points; i++)
			if (isfinite(series[s].values[i]) &&
			    (best == n_points || series[s].values[i] > series[s].values[best]))
				best = i;
		if (best == n_points)
			continue;
		c = best * n_cols / n_points;
		while (c + 1 < n_cols && (c + 1) * n_points / n_cols <= best)
			c++;
		while (c > 0 && c * n_points / n_cols > best)
			c--;
		lx = (c + 0.5) * cw;
		x = left + lx;
		y = MT + vy(&ax, series[s].values[best]);
		html_printf(h, "<circle class=\"peak s%zu\" data-x=\"%.1f\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>Peak of ",
		            s % 10, X(lx), X(x), X(y));
		html_esc(h, series[s].name);
		html_printf(h, ": %s at ", fmt_hover(buf, sizeof buf, unit, series[s].values[best]));
		html_esc(h, x_name);
		html_printf(h, " %s</title></circle>\n", tsb_format_u64(ib, sizeof ib, best));
		/* The name cut to 24 bytes, the whole in the table and legend. */
		name_len = n_series > 1 ? tsb_utf8_truncate(name, SIZE_MAX, 24) : 0;
		if (asprintf(&label, "Peak %.*s%s%s%s at %s %s", (int)name_len, name,
		             n_series > 1 && name[name_len] ? "\xE2\x80\xA6" : "",
		             n_series > 1 ? " " : "", fmt_axis(buf, sizeof buf, unit, series[s].values[best]),
		             x_name ? x_name : "", ib) < 0)
			goto oom;
		place_peak_label(boxes, s, text_width(label), x, y, lx > pw * 0.6);
		html_printf(h, "<text class=\"peak-label\" data-x=\"%.1f\" x=\"%.1f\" dx=\"%d\" y=\"%.1f\" "
		               "text-anchor=\"%s\">",
		            X(lx), X(x), boxes[s].end ? -6 : 6, X(boxes[s].y), boxes[s].end ? "end" : "start");
		html_esc(h, label);
		html_put(h, "</text>\n");
		free(label);
	}
	xaxis_draw(h, left, pw, MT + ph, 0, n_points ? (double)n_points - 1 : 0, true, unit, true, x_name);
	svg_end(h);
	legend_series(h, series, n_series);
	html_put(h, "</ul>\n");
	/* A row per point, or per column of points with each series'
	 * extremes there. */
	k = 0;
	if (folded) {
		heads[k++] = "First";
		heads[k++] = "Last";
	} else {
		heads[k++] = x_name;
	}
	for (s = 0; s < n_series; s++) {
		if (!folded) {
			heads[k++] = series[s].name;
			continue;
		}
		if (asprintf(&owned[k], "%s smallest", series[s].name) < 0)
			goto oom;
		heads[k] = owned[k];
		k++;
		if (asprintf(&owned[k], "%s largest", series[s].name) < 0)
			goto oom;
		heads[k] = owned[k];
		k++;
	}
	table_open(h);
	cli_html_table_begin(h, title, k, heads, num);
	for (c = 0; c < n_cols; c++) {
		size_t first = c * n_points / n_cols, end = (c + 1) * n_points / n_cols;

		cli_html_row_begin(h);
		cli_html_cell_u64(h, first, NULL);
		if (folded)
			cli_html_cell_u64(h, end - 1, NULL);
		for (s = 0; s < n_series; s++) {
			double mn, mx;

			col_extremes(series[s].values, first, end, &mn, &mx);
			if (folded)
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
	free(boxes);
	free(num);
}

void cli_html_chart_bars(cli_html *h, const char *id, const char *title, const char *desc,
                         cli_html_unit unit, const char *const *labels, const double *values,
                         size_t n)
{
	static const char *const heads[] = { "Name", "Value" };
	static const bool num[] = { false, true };
	const double right = 120, row = 22, top = 8, ph = row * (double)n, height = top + ph + MB;
	double left = 220, pw, lo = 0, hi = 0, step, first;
	char buf[2 * TSB_NUMBER_MAX + 16], id_s[64];
	unsigned nt, t;
	size_t i;

	if (h->failed)
		return;
	html_id(id_s, id);
	/* The labels' column widens to the longest label, up to the half of
	 * the picture; a label longer still is cut (its <title> whole). */
	for (i = 0; i < n; i++) {
		left = fmax(left, fmin(W / 2 - 100, text_width(labels[i]) + 16));
		if (isfinite(values[i]))
			lo = fmin(lo, values[i]), hi = fmax(hi, values[i]);
	}
	pw = W - left - right;
	figure_begin(h, id_s, title, desc, height, false);
	/* The value axis runs along the bottom: the same ticks as a
	 * vertical one, on x. */
	{
		vaxis ax;

		vaxis_init(&ax, lo, hi, unit, 0, pw);
		lo = ax.lo;
		hi = ax.hi;
		nt = nice_ticks(lo, hi, unit, 9, &step, &first);
	}
	for (t = 0; t < nt && t < 64; t++) {
		double v = first + t * step, x = left + (v - lo) / (hi - lo) * pw;

		html_printf(h, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
		            fabs(v) < step * 1e-6 ? "zero" : "grid", X(x), top, X(x), X(top + ph), X(x),
		            X(top + ph + 17), fmt_tick(buf, sizeof buf, unit, fabs(v) < step * 1e-6 ? 0 : v, step, step));
	}
	html_printf(h, "<text class=\"axis-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
	            X(left + pw / 2), X(top + ph + 36), unit_title(unit));
	for (i = 0; i < n; i++) {
		double y = top + row * (double)i, v = isfinite(values[i]) ? values[i] : 0;
		double x0 = left + (fmin(v, 0) - lo) / (hi - lo) * pw, x1 = left + (fmax(v, 0) - lo) / (hi - lo) * pw;

		html_printf(h, "<text class=\"lane-name\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", left - 8,
		            X(y + row / 2 + 4));
		esc_fit(h, labels[i], left - 16);
		html_put(h, "<title>");
		html_esc(h, labels[i]);
		html_printf(h, "</title></text><rect class=\"bar s0\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>",
		            X(x0), X(y + 4), X(x1 - x0), row - 8);
		html_esc(h, labels[i]);
		html_printf(h, "\n%s</title></rect><text class=\"bar-value\" x=\"%.1f\" y=\"%.1f\">%s</text>\n",
		            fmt_hover(buf, sizeof buf, unit, values[i]), X(x1 + 6), X(y + row / 2 + 4),
		            fmt_axis(buf, sizeof buf, unit, values[i]));
	}
	svg_end(h);
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

/* Spans in lane order, then by start, end and index: the order of the
 * marks and of the table, the same whatever qsort does with ties. */
static int span_cmp(const void *pa, const void *pb, void *spans)
{
	size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
	const cli_html_span *a = (const cli_html_span *)spans + ia, *b = (const cli_html_span *)spans + ib;

	if (a->lane != b->lane)
		return a->lane < b->lane ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

/* A label's colour: the same label has the same class on every lane. */
static unsigned label_class(const char *label)
{
	uint32_t x = 2166136261u;

	for (const unsigned char *p = (const unsigned char *)(label ? label : ""); *p; p++)
		x = (x ^ *p) * 16777619u;
	return x % 10;
}

/* The kinds of a chart's spans, in the order they first come: the first
 * ten take a colour each (the legend names them), any further one the
 * colour of its name. */
typedef struct kinds {
	const char *names[10];
	size_t n;
} kinds;

/* A span's colour: its kind's when it has one, else its label's. */
static unsigned span_class(kinds *k, const cli_html_span *sp)
{
	size_t i;

	if (!sp->kind)
		return label_class(sp->label);
	for (i = 0; i < k->n; i++)
		if (strcmp(k->names[i], sp->kind) == 0)
			return (unsigned)i;
	if (k->n < 10) {
		k->names[k->n] = sp->kind;
		return (unsigned)k->n++;
	}
	return label_class(sp->kind);
}

/* A mark of a lanes chart from local x0 to x1 on the row at y. */
static void span_rect(cli_html *h, const char *cls, double x0, double x1, double y, double mh)
{
	html_printf(h, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>",
	            cls, X(x0), X(y), X(x1 - x0), mh);
}

/* The folded spans of one column: their count and extent. */
typedef struct fold {
	size_t count, one; /* spans, and the index of the first */
	double start, end;
	long col;          /* -1: none */
} fold;

static void fold_flush(cli_html *h, fold *f, const cli_html_span *spans, kinds *k, cli_html_unit unit,
                       double cw, double y, double mh)
{
	char a[TSB_NUMBER_MAX + 16], b[TSB_NUMBER_MAX + 16], n[TSB_NUMBER_MAX], cls[16];

	if (f->col < 0)
		return;
	if (f->count == 1) {
		snprintf(cls, sizeof cls, "span s%u", span_class(k, &spans[f->one]));
		span_rect(h, cls, f->col * cw, (f->col + 1) * cw, y, mh);
		html_esc(h, spans[f->one].label);
	} else {
		/* Half height: a fold never reads as a span of a grey label. */
		span_rect(h, "fold", f->col * cw, (f->col + 1) * cw, y + mh / 4, mh / 2);
		html_printf(h, "%s spans", tsb_format_u64(n, sizeof n, f->count));
	}
	html_printf(h, "\n%s \xE2\x80\x93 %s</title></rect>\n", fmt_value(a, sizeof a, unit, f->start),
	            fmt_value(b, sizeof b, unit, f->end));
	f->col = -1;
}

void cli_html_chart_lanes(cli_html *h, const char *id, const char *title, const char *desc,
                          cli_html_unit unit, const char *const *lane_names, size_t n_lanes,
                          const cli_html_span *spans, size_t n_spans)
{
	static const char *const heads[] = { "Lane", "Span", "Start", "End", "Duration" };
	static const bool num[] = { false, false, true, true, true };
	const double row = 24, mh = 16;
	const double ph = row * (double)(n_lanes ? n_lanes : 1), height = MT + ph + MB;
	double left = 170, pw, cw, t0 = INFINITY, t1 = -INFINITY, scale;
	kinds kn = { { NULL }, 0 };
	char a[TSB_NUMBER_MAX + 16], b[TSB_NUMBER_MAX + 16], d[TSB_NUMBER_MAX + 16], id_s[64], cls[16];
	size_t *order, i, j, l;

	if (h->failed)
		return;
	html_id(id_s, id);
	order = malloc((n_spans ? n_spans : 1) * sizeof *order);
	if (!order) {
		h->failed = true;
		return;
	}
	for (i = 0, j = 0; i < n_spans; i++) {
		if (spans[i].lane >= n_lanes || !isfinite(spans[i].start) || !isfinite(spans[i].end))
			continue;
		order[j++] = i;
		t0 = fmin(t0, spans[i].start);
		t1 = fmax(t1, fmax(spans[i].end, spans[i].start));
	}
	n_spans = j;
	/* The names' column widens to the longest name, up to 360; a name
	 * longer still is cut (its <title> whole). */
	for (l = 0; l < n_lanes; l++)
		left = fmax(left, fmin(360, text_width(lane_names[l]) + 16));
	pw = W - left - MR;
	cw = pw / MAX_COLUMNS;
	qsort_r(order, n_spans, sizeof *order, span_cmp, (void *)spans);
	if (!(t0 <= t1))
		t0 = 0, t1 = 1;
	if (t1 == t0)
		t1 = t0 + 1;
	scale = pw / (t1 - t0);
	figure_begin(h, id_s, title, desc, height, true);
	for (l = 0; l < n_lanes; l++) {
		double y = MT + row * (double)l;

		html_printf(h, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
		               "<text class=\"lane-name\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
		            left, X(y + row), left + pw, X(y + row), left - 8, X(y + row / 2 + 4));
		esc_fit(h, lane_names[l], left - 16);
		html_put(h, "<title>");
		html_esc(h, lane_names[l]);
		html_put(h, "</title></text>\n");
	}
	plot_begin(h, left, pw, ph);
	/* A span at least a column wide is a mark of its own; narrower ones
	 * fold into one counted mark per column, never vanish. */
	for (i = 0; i < n_spans;) {
		const cli_html_span *first = &spans[order[i]];
		double y = row * first->lane + (row - mh) / 2;
		fold f = { 0, 0, 0, 0, -1 };

		for (; i < n_spans && spans[order[i]].lane == first->lane; i++) {
			const cli_html_span *sp = &spans[order[i]];
			double x0 = (sp->start - t0) * scale, x1 = (sp->end - t0) * scale;
			long col;

			if (x1 - x0 >= cw) {
				snprintf(cls, sizeof cls, "span s%u", span_class(&kn, sp));
				span_rect(h, cls, x0, x1, y, mh);
				html_esc(h, sp->label);
				html_printf(h, "\n%s \xE2\x80\x93 %s (%s)</title></rect>\n",
				            fmt_value(a, sizeof a, unit, sp->start), fmt_value(b, sizeof b, unit, sp->end),
				            fmt_value(d, sizeof d, unit, sp->end - sp->start));
				continue;
			}
			col = (long)fmin(floor(x0 / cw), MAX_COLUMNS - 1);
			if (col != f.col) {
				fold_flush(h, &f, spans, &kn, unit, cw, y, mh);
				f = (fold){ 0, order[i], sp->start, sp->end, col };
			}
			f.count++;
			f.end = fmax(f.end, sp->end);
		}
		fold_flush(h, &f, spans, &kn, unit, cw, y, mh);
	}
	html_put(h, "</svg>\n");
	xaxis_draw(h, left, pw, MT + ph, t0, t1, false, unit, true, unit_title(unit));
	svg_end(h);
	html_put(h, "<ul class=\"legend\">\n");
	for (i = 0; i < kn.n; i++) {
		html_printf(h, "<li><svg viewBox=\"0 0 12 12\" aria-hidden=\"true\"><rect class=\"s%zu\" "
		               "width=\"12\" height=\"12\" rx=\"2\"/></svg>", i);
		html_esc(h, kn.names[i]);
		html_put(h, "</li>\n");
	}
	html_put(h, "<li><svg viewBox=\"0 0 12 12\" aria-hidden=\"true\"><rect class=\"fold\" y=\"3\" "
	            "width=\"12\" height=\"6\"/></svg>Spans narrower than a column, counted</li>\n");
	html_put(h, "</ul>\n");
	table_open(h);
	cli_html_table_begin(h, title, 5, heads, num);
	for (i = 0; i < n_spans;) {
		size_t lane = spans[order[i]].lane, shown = 0;

		for (; i < n_spans && spans[order[i]].lane == lane; i++, shown++) {
			const cli_html_span *sp = &spans[order[i]];

			if (shown >= LANE_TABLE_MAX)
				continue;
			cli_html_row_begin(h);
			cli_html_cell(h, lane_names[lane], NULL);
			cli_html_cell(h, sp->label, NULL);
			value_cell(h, unit, sp->start);
			value_cell(h, unit, sp->end);
			value_cell(h, unit, sp->end - sp->start);
			cli_html_row_end(h);
		}
		if (shown > LANE_TABLE_MAX) {
			cli_html_row_begin(h);
			cli_html_cell(h, lane_names[lane], NULL);
			html_printf(h, "<td colspan=\"4\">and %s more spans</td>",
			            tsb_format_u64(a, sizeof a, shown - LANE_TABLE_MAX));
			cli_html_row_end(h);
		}
	}
	cli_html_table_end(h);
	free(order);
	figure_end(h);
}

/* Trend charts: at most this many columns (a history of 10,000 commits
 * is 300 hovers and a path of 600 points, whatever its length). */
#define TREND_COLUMNS 300

/* The first sample of item i (offsets NULL: one sample per item). */
static size_t trend_off(const size_t *offsets, size_t i)
{
	return offsets ? offsets[i] : i;
}

/* The item of sample k: the last item whose first sample is <= k. */
static size_t trend_item(const size_t *offsets, size_t n_items, size_t k)
{
	size_t lo = 0, hi = n_items;

	if (!offsets)
		return k;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (offsets[mid] <= k)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The column of item i when n items fill n_cols columns (column c holds
 * items c n / n_cols up to (c + 1) n / n_cols). */
static size_t trend_col(size_t i, size_t n, size_t n_cols)
{
	return ((i + 1) * n_cols - 1) / n;
}

void cli_html_chart_trend(cli_html *h, const char *id, const char *title, const char *desc,
                          const char *x_name, cli_html_unit unit, const double *values,
                          const size_t *offsets, size_t n_items, const char *const *item_names,
                          const cli_html_mark *marks, size_t n_marks)
{
	const double left = 84, height = 300, ph = height - MT - MB, pw = W - left - MR;
	size_t n_cols = n_items < TREND_COLUMNS ? n_items : TREND_COLUMNS;
	size_t n_samples = n_items ? trend_off(offsets, n_items) : 0, c, i;
	double lo = INFINITY, hi = -INFINITY, cw = n_cols ? pw / n_cols : pw, *neg = NULL;
	tsb_pyramid *pyr = NULL, *low = NULL;
	tsb_span *cols = NULL, *mins = NULL;
	bool pen = false, shown[3] = { false, false, false };
	char buf[2 * TSB_NUMBER_MAX + 16], b2[2 * TSB_NUMBER_MAX + 16], ib[TSB_NUMBER_MAX],
	    ib2[TSB_NUMBER_MAX], id_s[64];
	vaxis ax;

	if (h->failed)
		return;
	html_id(id_s, id);
	cols = calloc(n_cols ? n_cols : 1, sizeof *cols);
	mins = calloc(n_cols ? n_cols : 1, sizeof *mins);
	neg = malloc((n_samples ? n_samples : 1) * sizeof *neg);
	if (!cols || !mins || !neg)
		goto oom;
	/* The smallest sample of a column is the largest of the negated. */
	for (i = 0; i < n_samples; i++)
		neg[i] = -values[i];
	pyr = tsb_pyramid_new(values, n_samples);
	low = tsb_pyramid_new(neg, n_samples);
	if (n_samples && (!pyr || !low))
		goto oom;
	for (c = 0; c < n_cols; c++) {
		size_t first = trend_off(offsets, c * n_items / n_cols);
		size_t end = trend_off(offsets, (c + 1) * n_items / n_cols);

		if (first == end) {
			cols[c] = mins[c] = (tsb_span){ INFINITY, -INFINITY, 0, first };
			continue;
		}
		tsb_pyramid_query(pyr, first, end, &cols[c]);
		tsb_pyramid_query(low, first, end, &mins[c]);
		lo = fmin(lo, -mins[c].max);
		hi = fmax(hi, cols[c].max);
	}
	figure_begin(h, id_s, title, desc, height, true);
	/* The axis fits the values, from 0 only when they span a good part
	 * of their size: a history's step of 1 % must show. */
	vaxis_span(&ax, lo, hi, !(lo > 0 && hi - lo < hi / 2), unit, 0, ph);
	grid_draw(h, &ax, unit, left, pw);
	plot_begin(h, left, pw, ph);
	/* The bands of the marks of a range of items, under the line. */
	for (i = 0; i < n_marks; i++) {
		size_t c0 = trend_col(marks[i].first, n_items, n_cols);
		size_t c1 = trend_col(marks[i].last, n_items, n_cols);

		if (marks[i].last >= n_items || marks[i].first >= marks[i].last)
			continue;
		html_printf(h, "<rect class=\"change-band%s\" x=\"%.1f\" y=\"0\" width=\"%.1f\" "
		               "height=\"%.1f\"/>\n",
		            marks[i].unsure ? " unsure" : "", X(c0 * cw), X((c1 - c0 + 1) * cw), ph);
	}
	html_put(h, "<path class=\"line s0\" d=\"");
	for (c = 0; c < n_cols; c++)
		path_column(h, &pen, &ax, (c + 0.5) * cw, -mins[c].max, cols[c].max);
	html_put(h, "\"/>\n");
	/* A hover per column: its item, or its items' extremes and where. */
	for (c = 0; c < n_cols; c++) {
		size_t first = c * n_items / n_cols, end = (c + 1) * n_items / n_cols;
		size_t n_in = trend_off(offsets, end) - trend_off(offsets, first);
		double mx = cols[c].max, mn = -mins[c].max;

		html_printf(h, "<rect class=\"hit\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.1f\"><title>",
		            X(c * cw), X(cw), ph);
		if (end - first == 1) {
			html_esc(h, item_names[first]);
			if (n_in == 1)
				html_printf(h, "\n%s", fmt_value(buf, sizeof buf, unit, mx));
			else if (n_in > 1)
				html_printf(h, "\n%zu samples: %s \xE2\x80\x93 %s", n_in,
				            fmt_value(buf, sizeof buf, unit, mn), fmt_value(b2, sizeof b2, unit, mx));
		} else {
			html_esc(h, x_name);
			html_printf(h, " %s\xE2\x80\x93%s\n", tsb_format_u64(ib, sizeof ib, first),
			            tsb_format_u64(ib2, sizeof ib2, end - 1));
			html_printf(h, "Largest %s at ", fmt_value(buf, sizeof buf, unit, mx));
			html_esc(h, item_names[trend_item(offsets, n_items, cols[c].argmax)]);
			html_printf(h, "\nSmallest %s at ", fmt_value(buf, sizeof buf, unit, mn));
			html_esc(h, item_names[trend_item(offsets, n_items, mins[c].argmax)]);
		}
		html_put(h, "</title></rect>\n");
	}
	/* The marks over everything: a line at the item that changed, a flag
	 * on top to point at (over the range, or 6 units wide at the line),
	 * the hover saying what changed. */
	for (i = 0; i < n_marks; i++) {
		const cli_html_mark *m = &marks[i];
		size_t ca, c0, c1;
		double x0, x1;

		if (m->last >= n_items || m->first > m->last || m->at < m->first || m->at > m->last)
			continue;
		ca = trend_col(m->at, n_items, n_cols);
		c0 = trend_col(m->first, n_items, n_cols);
		c1 = trend_col(m->last, n_items, n_cols);
		x0 = m->first < m->last ? c0 * cw : (ca + 0.5) * cw - 3;
		x1 = m->first < m->last ? (c1 + 1) * cw : (ca + 0.5) * cw + 3;
		shown[m->unsure ? 2 : m->first < m->last ? 1 : 0] = true;
		html_printf(h, "<g class=\"change%s\"><title>", m->unsure ? " unsure" : "");
		/* Each line escaped, the line ends kept (html_esc makes them U+FFFD). */
		for (const char *t = m->text ? m->text : "", *nl; !h->failed; t = nl + 1) {
			char *e;

			nl = strchr(t, '\n');
			if (!(e = cli_html_escape(t, nl ? (size_t)(nl - t) : strlen(t)))) {
				h->failed = true;
				break;
			}
			html_put(h, e);
			free(e);
			if (!nl)
				break;
			html_put(h, "\n");
		}
		html_printf(h, "</title><line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.1f\"/>"
		               "<rect class=\"change-flag\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"8\"/></g>\n",
		            X((ca + 0.5) * cw), X((ca + 0.5) * cw), ph, X(x0), X(x1 - x0));
	}
	html_put(h, "</svg>\n");
	xaxis_draw(h, left, pw, MT + ph, 0, n_items ? (double)n_items - 1 : 0, true, unit, true, x_name);
	svg_end(h);
	html_put(h, "<ul class=\"legend\">\n<li><svg viewBox=\"0 0 12 12\" aria-hidden=\"true\"><rect "
	            "class=\"s0\" width=\"12\" height=\"12\" rx=\"2\"/></svg>");
	html_esc(h, n_items > n_cols ? "Value (each column spans its commits' smallest and largest)"
	                             : "Value");
	html_put(h, "</li>\n");
	if (shown[0])
		html_put(h, "<li><svg viewBox=\"0 0 12 12\" aria-hidden=\"true\"><g class=\"change\"><line "
		            "x1=\"6\" y1=\"0\" x2=\"6\" y2=\"12\"/></g></svg>Change at one commit</li>\n");
	if (shown[1])
		html_put(h, "<li><svg viewBox=\"0 0 12 12\" aria-hidden=\"true\"><rect class=\"change-band\" "
		            "width=\"12\" height=\"12\"/><g class=\"change\"><line x1=\"6\" y1=\"0\" x2=\"6\" "
		            "y2=\"12\"/></g></svg>Change within a range of commits</li>\n");
	if (shown[2])
		html_put(h, "<li><svg viewBox=\"0 0 12 12\" aria-hidden=\"true\"><g class=\"change unsure\">"
		            "<line x1=\"6\" y1=\"0\" x2=\"6\" y2=\"12\"/></g></svg>Unsure, rerun</li>\n");
	html_put(h, "</ul>\n</figure>\n");
	goto out;
oom:
	h->failed = true;
out:
	tsb_pyramid_free(pyr);
	tsb_pyramid_free(low);
	free(cols);
	free(mins);
	free(neg);
}
