/*
 * The HTML pages of `tilescope summary|diff|trace --format=html`: one
 * self-contained file each, for a CI artifact that a reviewer clicks.
 *
 * A page fetches nothing. Its Content-Security-Policy is
 * `default-src 'none'` with the page's one <style> and one <script>
 * allowed by their SHA-256; there is no inline style="" attribute, no
 * event-handler attribute, no URL of any scheme. It reads well with
 * JavaScript off: every figure is an HTML table or definition list and
 * every chart inline SVG written here, each chart with a <title>, a
 * <desc> and a table equivalent (a <details> under it). The script (a
 * few KB of plain JavaScript) only adds hover values, sorting of tables
 * by a click on a header, and zoom of the line and lane charts. Light
 * and dark follow prefers-color-scheme; a print stylesheet drops the
 * controls. The same input gives the same bytes.
 *
 * The data a page shows is the document `--format=json` prints, embedded
 * in <script type="application/json" id="tilescope-data"> (cli_html_end).
 * An element showing one of its figures carries data-json="POINTER", an
 * RFC 6901 JSON pointer into that document ("/memory/total"): the page
 * and browser tests check every such element against the document with
 * one rule (tests/cli/html_check.py's agrees): the element's text equals
 * the string at POINTER; or, its thousands separators (',') removed, it
 * starts with a number that shows the number at POINTER: an integer
 * exactly (no digit or '.' after it), a fraction to the decimals shown,
 * and a number followed by '%' as a percentage ("2.5%" for 0.025).
 *
 * Names are escaped wherever they go (text, attributes, SVG): & < > " '
 * become entities, bytes that are not UTF-8 and control characters
 * become U+FFFD, so no name read from a report can end an element or
 * add one.
 *
 * Every call after a failure (out of memory, a failed write) does
 * nothing; cli_html_end reports it. Numbers are written with
 * libtilescope-base's rules (tilescope/numfmt.h), the ones the text
 * output uses, and axes take their ticks from tilescope/axis.h, as the
 * chart kit's do.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct cli_html cli_html;

/* The unit of a chart's values: how its axis, hover values and table
 * equivalent write them. */
typedef enum cli_html_unit {
	CLI_HTML_COUNT = 0,  /* "1,216" */
	CLI_HTML_BYTES,      /* "256.0 KiB" on axes, "262,144 B" in tables */
	CLI_HTML_CYCLES,     /* "1,216 cycles" */
	CLI_HTML_NS,         /* "3.41 ms" (tsb_format_duration) */
	CLI_HTML_PERCENT     /* values are fractions: "91.5%" */
} cli_html_unit;

/*
 * Starts a page on `out`: the doctype, <head> with the policy, <title>
 * `title`, the stylesheet, then <body> and a header with `title` and
 * `subtitle` (may be NULL), both escaped. NULL when out of memory.
 */
cli_html *cli_html_begin(FILE *out, const char *title, const char *subtitle);
/*
 * Ends the page: the embedded document `json` (the text --format=json
 * prints; NULL for none) with '<', '>', '&', U+2028 and U+2029 written
 * as \uXXXX escapes so that nothing in it ends the block, the page's
 * script, </body></html>. Frees `h`. Returns 0, or -1 when anything
 * since cli_html_begin failed (memory or a write).
 */
int cli_html_end(cli_html *h, const char *json);

/* A banner at the top of the content: `pass` true gives the passed
 * style, false the failed one; `text` escaped. */
void cli_html_banner(cli_html *h, bool pass, const char *text);
/* <section id="ID"><h2>TITLE</h2> ... </section>; id is [a-z0-9-]. */
void cli_html_section_begin(cli_html *h, const char *id, const char *title);
void cli_html_section_end(cli_html *h);
/* A paragraph of escaped text. */
void cli_html_para(cli_html *h, const char *text);
/* Escaped text, printf-style (the whole result is escaped). */
void cli_html_textf(cli_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Markup written as it is: only for literals of the page writers, never
 * for anything read from a file. */
void cli_html_raw(cli_html *h, const char *markup);

/* A definition list of captioned figures (the summary's Target, Graph,
 * ... blocks): caption and value escaped; pointer may be NULL. */
void cli_html_figures_begin(cli_html *h, const char *title);
void cli_html_figure(cli_html *h, const char *caption, const char *value, const char *pointer);
void cli_html_figures_end(cli_html *h);

/*
 * A table: caption and headers escaped; numeric[i] true right-aligns
 * column i and sorts it by number. The script sorts a table by a click
 * on a header (or Enter on it: headers are buttons).
 */
void cli_html_table_begin(cli_html *h, const char *caption, size_t n_cols,
                          const char *const *headers, const bool *numeric);
void cli_html_row_begin(cli_html *h);
/* A text cell (escaped); pointer may be NULL. */
void cli_html_cell(cli_html *h, const char *text, const char *pointer);
/* A number cell: `text` as shown (escaped), sorted by `sort_value`. */
void cli_html_cell_num(cli_html *h, const char *text, double sort_value, const char *pointer);
/* An integer cell with thousands separators ("1,216"). */
void cli_html_cell_u64(cli_html *h, uint64_t v, const char *pointer);
void cli_html_cell_i64(cli_html *h, int64_t v, const char *pointer);
void cli_html_row_end(cli_html *h);
void cli_html_table_end(cli_html *h);

/* One series of a chart: `values[0..n)`, n given to the chart call. */
typedef struct cli_html_series {
	const char *name;
	const double *values;
} cli_html_series;

/*
 * Stacked columns over `n_items` items (memory per tile stacked by
 * category): at most 600 columns, each bucket of items drawn as the
 * stack of its largest item (largest total) with a tick at the bucket's
 * smallest total, the chart kit's min/max level of detail, so a
 * 5,888-tile report is a few thousand SVG elements. `item_name` labels
 * the x axis and the hover ("Tile 52"). With one series, values may be
 * negative (B - A): columns go down from a zero line, each spanning its
 * bucket's largest and smallest item. The table equivalent lists the
 * buckets (first and last item, min, max), or the items when there are
 * at most 600. NaN and infinite values count as none, in every chart.
 */
void cli_html_chart_stacked(cli_html *h, const char *id, const char *title, const char *desc,
                            const char *item_name, cli_html_unit unit,
                            const cli_html_series *series, size_t n_series, size_t n_items);
/*
 * Lines over `n_points` x positions (liveness over steps; A and B on one
 * axis): min/max per pixel column, the peak of each series marked and
 * named. NaN values are gaps. Zoomable by the script.
 */
void cli_html_chart_lines(cli_html *h, const char *id, const char *title, const char *desc,
                          const char *x_name, cli_html_unit unit,
                          const cli_html_series *series, size_t n_series, size_t n_points);
/* A change marked on a trend chart: it is at item `at` and came with
 * one of the items first..last (first <= at <= last < n_items). */
typedef struct cli_html_mark {
	size_t at, first, last;
	bool unsure;           /* drawn dashed: the samples near it overlap */
	const char *text;      /* its hover, escaped line by line ('\n' ends a line) */
} cli_html_mark;
/*
 * One series over `n_items` items in their order (a metric over the
 * commits of a history, oldest left): item i's samples are
 * values[offsets[i]] .. values[offsets[i + 1] - 1] (offsets NULL: one
 * value per item), item_names[i] naming it in the hovers. At most 300
 * columns, each drawn from the smallest to the largest sample of its
 * items (tsb_pyramid, so a one-item spike shows whatever the length)
 * and hovered with both and the items they are of. The value axis fits
 * the values (from 0 only when they span much of their size). Each
 * mark is a band over its items' columns, a line at `at` and a flag on
 * top with its hover. Zoomable. No table: the caller writes the one
 * the marks read in (a history's changes) right under it.
 */
void cli_html_chart_trend(cli_html *h, const char *id, const char *title, const char *desc,
                          const char *x_name, cli_html_unit unit, const double *values,
                          const size_t *offsets, size_t n_items, const char *const *item_names,
                          const cli_html_mark *marks, size_t n_marks);
/* Horizontal bars, one per label, in the order given (cycles by
 * program, by step type). */
void cli_html_chart_bars(cli_html *h, const char *id, const char *title, const char *desc,
                         cli_html_unit unit, const char *const *labels, const double *values,
                         size_t n);

/* A span on a lane of a lanes chart. */
typedef struct cli_html_span {
	double start, end;     /* in the chart's unit, end >= start */
	const char *label;     /* escaped where shown */
	uint32_t lane;         /* < n_lanes */
	const char *kind;      /* the colour's key and legend entry (a step
	                          type); NULL: coloured by label */
} cli_html_span;
/*
 * Lanes of spans along one axis (a run's execution per program; a
 * trace's threads): spans narrower than a pixel column fold into one
 * counted mark per column ("37 spans"), never vanish. Spans of a kind
 * share a colour, named in the legend (the first ten kinds; the rest
 * and spans of no kind take their name's colour). The table
 * equivalent lists per lane its spans (the first 200, then a count).
 * Zoomable by the script.
 */
void cli_html_chart_lanes(cli_html *h, const char *id, const char *title, const char *desc,
                          cli_html_unit unit, const char *const *lane_names, size_t n_lanes,
                          const cli_html_span *spans, size_t n_spans);

/* Escapes `s` (len bytes, or strlen when len is (size_t)-1) for HTML
 * text and attributes into a malloc'd string; NULL when out of memory.
 * For the tests too. */
char *cli_html_escape(const char *s, size_t len);
/* Escapes a JSON text for the embedded block (above); malloc'd. */
char *cli_html_escape_json(const char *json);
