/*
 * The HTML page writer of `--format=html` (cli-summary/src/html.c,
 * html-chart.c): escaping of hostile names in text and
 * in the embedded JSON, a page that references nothing and whose CSP
 * hashes are those of its style and script, the same bytes on a second
 * run, a table equivalent for every chart, the level of detail's bound on
 * a 5,888-tile chart, and a failed write reported by cli_html_end.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "html.h"
#include <tilescope/sha256.h>

#include <cjson/cJSON.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVIL "</script><img src=x onerror=alert(1)>"

static void test_escape(void **state)
{
	char *e;

	(void)state;
	e = cli_html_escape(EVIL, (size_t)-1);
	assert_string_equal(e, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;");
	free(e);
	e = cli_html_escape("a\"b'c&d", (size_t)-1);
	assert_string_equal(e, "a&quot;b&#39;c&amp;d");
	free(e);
	/* U+2028 is text in HTML; é stays. */
	e = cli_html_escape("x\xE2\x80\xA8y\xC3\xA9", (size_t)-1);
	assert_string_equal(e, "x\xE2\x80\xA8y\xC3\xA9");
	free(e);
	/* Not UTF-8: a stray continuation, a lead byte cut short, an
	 * overlong '/', a surrogate; each bad byte one U+FFFD. */
	e = cli_html_escape("a\x80" "b\xC3" "c\xC0\xAF" "d\xED\xA0\x80", (size_t)-1);
	assert_string_equal(e, "a\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\xEF\xBF\xBD\xEF\xBF\xBD"
	                       "d\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
	free(e);
	/* Controls (C0 with tab and newline, DEL, C1) and a NUL inside a
	 * counted run. */
	/* NULL is the empty text, whatever length comes with it. */
	e = cli_html_escape(NULL, 5);
	assert_string_equal(e, "");
	free(e);
	e = cli_html_escape("\x01\t\n\x7F\xC2\x85z\0q", 9);
	assert_string_equal(e, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
	                       "z\xEF\xBF\xBDq");
	free(e);
}

static void test_escape_json(void **state)
{
	const char *doc = "{\"name\":\"" EVIL "<!-- & \xE2\x80\xA8\xE2\x80\xA9 \\\"\"}";
	cJSON *a, *b;
	char *e;

	(void)state;
	e = cli_html_escape_json(doc);
	assert_null(strchr(e, '<'));
	assert_null(strchr(e, '>'));
	assert_null(strchr(e, '&'));
	assert_null(strstr(e, "\xE2\x80\xA8"));
	assert_null(strstr(e, "\xE2\x80\xA9"));
	assert_non_null(strstr(e, "\\u003c/script\\u003e"));
	assert_non_null(strstr(e, "\\u2028\\u2029"));
	a = cJSON_Parse(doc);
	b = cJSON_Parse(e);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(cJSON_Compare(a, b, true));
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(e);
}

/* The charts a page of the tests draws. */
#define N_CHARTS 4

/* A page with every call, hostile names wherever a name goes; its bytes
 * in a malloc'd string. */
static char *write_page(size_t *len)
{
	static const char *const heads[] = { "Name " EVIL, "Bytes" };
	static const bool num[] = { false, true };
	static const char *const lanes[] = { "Lane " EVIL, "Lane 'two'" };
	static const char *const labels[] = { EVIL, "b\xFF" };
	static const double bars[] = { 1216, 5 };
	double a[50], b[50];
	cli_html_series series[2] = { { "A " EVIL, a }, { "B \xE2\x80\xA8", b } };
	cli_html_span spans[3] = { { 0, 10, EVIL, 0, NULL }, { 12, 12.001, "tiny", 1, NULL }, { 5, 40, "wide", 1, NULL } };
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	cli_html *h;

	for (int i = 0; i < 50; i++)
		a[i] = i * 1000.0, b[i] = i == 7 ? NAN : 50000 - i;
	h = cli_html_begin(f, "Report " EVIL, "/tmp/x/" EVIL);
	assert_non_null(h);
	cli_html_banner(h, false, EVIL);
	cli_html_section_begin(h, "summary\"x", "Summary " EVIL);
	cli_html_para(h, EVIL);
	cli_html_textf(h, "%s and %d", EVIL, 3);
	cli_html_figures_begin(h, "Target " EVIL);
	cli_html_figure(h, "Tiles " EVIL, "1,216", "/target/tiles\"><img");
	cli_html_figures_end(h);
	cli_html_table_begin(h, "Table " EVIL, 2, heads, num);
	cli_html_row_begin(h);
	cli_html_cell(h, EVIL, "/x");
	cli_html_cell_u64(h, 262144, "/y");
	cli_html_row_end(h);
	cli_html_table_end(h);
	cli_html_chart_stacked(h, "mem", "Memory " EVIL, EVIL, "Tile " EVIL, CLI_HTML_BYTES, series, 2, 50);
	cli_html_chart_lines(h, "live", "Liveness " EVIL, EVIL, "Step " EVIL, CLI_HTML_BYTES, series, 2, 50);
	cli_html_chart_bars(h, "bars", "Bars " EVIL, EVIL, CLI_HTML_CYCLES, labels, bars, 2);
	cli_html_chart_lanes(h, "lanes", "Lanes " EVIL, EVIL, CLI_HTML_NS, lanes, 2, spans, 3);
	cli_html_section_end(h);
	assert_int_equal(cli_html_end(h, "{\"path\":\"http://x//y " EVIL "\xE2\x80\xA8\"}"), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* The text between `open` and the next `close` after it, malloc'd. */
static char *between(const char *s, const char *open, const char *close)
{
	const char *a = strstr(s, open), *b;

	assert_non_null(a);
	a += strlen(open);
	b = strstr(a, close);
	assert_non_null(b);
	return strndup(a, (size_t)(b - a));
}

/* The part of `page` from `open` to the next `close` (included). */
static char *element(const char *page, const char *open, const char *close)
{
	const char *a = strstr(page, open), *b;

	assert_non_null(a);
	b = strstr(a, close);
	assert_non_null(b);
	return strndup(a, (size_t)(b - a) + strlen(close));
}

static void test_page_inert(void **state)
{
	size_t len;
	char *page = write_page(&len), *json, *p;

	(void)state;
	assert_int_equal(strlen(page), len);
	/* The hostile name is text everywhere: no element from it, and the
	 * only "</script" are the two the page closes. */
	assert_null(strstr(page, "<img"));
	assert_int_equal(count(page, "</script"), 2);
	/* The JSON block's text parses to the document given. */
	json = between(page, "<script type=\"application/json\" id=\"tilescope-data\">", "</script>");
	assert_null(strstr(json, "\xE2\x80\xA8"));
	cJSON *doc = cJSON_Parse(json);
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItem(doc, "path")->valuestring,
	                    "http://x//y " EVIL "\xE2\x80\xA8");
	cJSON_Delete(doc);
	/* Outside the JSON (a user's path in it is data), no reference of
	 * any kind: the JSON's text blanked, then every tag's attributes
	 * read. */
	p = strstr(page, json);
	memset(p, ' ', strlen(json));
	free(json);
	/* Nor are the policy's hashes (base64 has '/', so "//" by chance). */
	for (p = strstr(page, "'sha256-"); p; p = strstr(p, "'sha256-"))
		for (p++; *p != '\''; p++)
			*p = ' ';
	assert_null(strstr(page, "http:"));
	assert_null(strstr(page, "https:"));
	assert_null(strstr(page, "//"));
	assert_null(strstr(page, "url("));
	assert_null(strstr(page, "@import"));
	for (p = strchr(page, '<'); p; p = strchr(p + 1, '<')) {
		const char *end = strchr(p, '>');
		char *tag;

		assert_non_null(end);
		/* The style and script texts are checked above (no reference);
		 * their '<'s, if any, are not tags. */
		tag = strndup(p, (size_t)(end - p));
		for (char *q = tag; *q; q++)
			if (*q == '"')
				for (q++; *q && *q != '"'; q++)
					*q = 'x';  /* attribute values are not names */
		assert_null(strstr(tag, " on"));
		assert_null(strstr(tag, " style="));
		assert_null(strstr(tag, " src="));
		assert_null(strstr(tag, " href="));
		assert_null(strstr(tag, " xlink:"));
		free(tag);
		if (strncmp(p, "<style>", 7) == 0 || strncmp(p, "<script>", 8) == 0)
			p = strstr(p, "</");
	}
	free(page);
}

static void test_page_csp(void **state)
{
	char *page = write_page(&(size_t){ 0 }), *css, *js, *csp, expect[256];
	char hc[TSB_SHA256_BASE64_LEN], hj[TSB_SHA256_BASE64_LEN];

	(void)state;
	assert_int_equal(count(page, "<style>"), 1);
	assert_int_equal(count(page, "<script>"), 1);
	css = between(page, "<style>", "</style>");
	js = between(page, "<script>", "</script>");
	csp = between(page, "<meta http-equiv=\"Content-Security-Policy\" content=\"", "\"");
	tsb_sha256_base64(css, strlen(css), hc);
	tsb_sha256_base64(js, strlen(js), hj);
	snprintf(expect, sizeof expect, "default-src 'none'; style-src 'sha256-%s'; script-src 'sha256-%s'", hc, hj);
	assert_string_equal(csp, expect);
	assert_true(strlen(css) > 1000);
	assert_true(strlen(js) > 1000);
	free(css);
	free(js);
	free(csp);
	free(page);
}

static void test_page_deterministic(void **state)
{
	size_t l1, l2;
	char *p1 = write_page(&l1), *p2 = write_page(&l2);

	(void)state;
	assert_int_equal(l1, l2);
	assert_memory_equal(p1, p2, l1);
	free(p1);
	free(p2);
}

/* Every chart a <figure> with a table under a <details>. */
static void test_chart_tables(void **state)
{
	char *page = write_page(&(size_t){ 0 });

	(void)state;
	assert_int_equal(count(page, "<figure class=\"chart\""), N_CHARTS);
	assert_int_equal(count(page, "<details><summary>Table</summary>\n<div class=\"table-wrap\"><table"),
	                 N_CHARTS);
	/* 50 items in 600 columns: a row per item, its values and total. */
	char *mem = element(page, "<figure class=\"chart\" id=\"mem\">", "</figure>");
	assert_int_equal(count(mem, "<tr>"), 1 + 50);
	assert_non_null(strstr(mem, "<button type=\"button\">Total</button>"));
	assert_null(strstr(mem, "Largest total"));
	assert_non_null(strstr(mem, "<tr><td class=\"num\" data-sort=\"49\">49</td><td class=\"num\" "
	                            "data-sort=\"49000\">49,000 B</td><td class=\"num\" data-sort=\"49951\">"
	                            "49,951 B</td><td class=\"num\" data-sort=\"98951\">98,951 B</td></tr>"));
	free(mem);
	/* The lines' table: a row per step, its gap as "–". */
	char *live = element(page, "<figure class=\"chart\" id=\"live\">", "</figure>");
	assert_int_equal(count(live, "<tr>"), 1 + 50);
	assert_non_null(strstr(live, "<td class=\"num\" data-sort=\"7\">7</td><td class=\"num\" "
	                             "data-sort=\"7000\">7,000 B</td><td class=\"num\" data-sort=\"NaN\">\xE2\x80\x93</td>"));
	free(live);
	/* The lanes' table lists the tiny span that the picture folds. */
	assert_non_null(strstr(page, "<td>tiny</td>"));
	free(page);
}

/* A chart alone on a page, its bytes. */
typedef void (*draw_fn)(cli_html *h, void *data);

static char *one_chart(draw_fn draw, void *data)
{
	/* Static: gcc 12 takes a local's address kept by the stream for a
	 * dangling pointer in the caller. */
	static size_t len;
	static char *buf;
	FILE *f = open_memstream(&buf, &len);
	cli_html *h = cli_html_begin(f, "t", NULL);

	draw(h, data);
	assert_int_equal(cli_html_end(h, NULL), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

#define N_TILES 5888

static void draw_tiles(cli_html *h, void *data)
{
	static const char *const names[6] = { "variable", "constant", "vertexCode", "stack", "message", "other" };
	double (*v)[N_TILES] = data;
	cli_html_series series[6];

	for (int s = 0; s < 6; s++)
		series[s] = (cli_html_series){ names[s], v[s] };
	cli_html_chart_stacked(h, "tiles", "Memory per tile", "d", "Tile", CLI_HTML_BYTES, series, 6, N_TILES);
}

/* 5,888 tiles of 6 categories: the level of detail keeps the picture to
 * a mark per column per category and one hover per column, and the
 * column of the largest tile shows it. */
static void test_stacked_budget(void **state)
{
	static double v[6][N_TILES];
	char *page, *svg;

	(void)state;
	for (int s = 0; s < 6; s++)
		for (int i = 0; i < N_TILES; i++)
			v[s][i] = 1000 * (s + 1) + (i * 7919 + s * 104729) % 5000;
	v[2][4321] = 600000;
	page = one_chart(draw_tiles, v);
	svg = element(page, "<svg class=\"chart-svg\"", "</svg></div>");
	/* 600 hover rectangles, 6 paths of columns, one of the smallest
	 * totals, axes: not 5,888 x 6 rectangles. */
	assert_int_equal(count(svg, "<rect"), 600);
	assert_int_equal(count(svg, "<path"), 7);
	assert_true(count(svg, "<") < 1500 * 2);
	assert_true(strlen(page) < 1000 * 1000);
	/* The column holding tile 4321 names it, with its total. */
	assert_non_null(strstr(svg, "Largest: Tile 4,321\nTotal: 614.7 KiB"));
	/* The table equivalent has a row per column: tile 4321's. */
	assert_int_equal(count(page, "<tr><td class=\"num\""), 600);
	assert_non_null(strstr(page, "<td class=\"num\" data-sort=\"4321\">4,321</td>"));
	free(svg);
	free(page);
}

static void draw_diff(cli_html *h, void *data)
{
	cli_html_series series[1] = { { "New - base", data } };

	cli_html_chart_stacked(h, "diff", "Memory per tile, new - base", "d", "Tile", CLI_HTML_BYTES,
	                       series, 1, 1216);
}

/* One series of differences: a column holding the most growing and the
 * most shrinking tile spans both from the zero line, and its hover and
 * table name both tiles. */
static void test_stacked_diverging(void **state)
{
	static double v[1216];
	double zero, x0, top, x1, bottom;
	char *page, *svg, *path, *p;
	bool across = false;

	(void)state;
	for (int i = 0; i < 1216; i++)
		v[i] = 100;
	v[10] = 27584;
	v[11] = -26400;
	page = one_chart(draw_diff, v);
	svg = element(page, "<svg class=\"chart-svg\"", "</svg></div>");
	p = strstr(svg, "<line class=\"zero\"");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "<line class=\"zero\" x1=\"%*f\" y1=\"%lf\"", &zero), 1);
	path = element(svg, "<path class=\"s0\" d=\"", "\"/>");
	for (p = strchr(path, 'M'); p; p = strchr(p + 1, 'M')) {
		assert_int_equal(sscanf(p, "M%lf %lfH%lfV%lfH", &x0, &bottom, &x1, &top), 4);
		across |= bottom > zero + 10 && top < zero - 10;
	}
	assert_true(across);
	assert_non_null(strstr(svg, "Tile 10\u2013" "11\nLargest: Tile 10\nTotal: 26.9 KiB"));
	assert_non_null(strstr(svg, "\nSmallest: Tile 11, total -25.8 KiB</title>"));
	assert_non_null(strstr(page, "<td class=\"num\" data-sort=\"11\">11</td><td class=\"num\" "
	                             "data-sort=\"-26400\">-26,400 B</td></tr>"));
	free(path);
	free(svg);
	free(page);
}

static void draw_lanes(cli_html *h, void *data)
{
	static const char *const lanes[] = { "main", "worker" };
	cli_html_span *spans = data;

	cli_html_chart_lanes(h, "lanes", "Execution", "d", CLI_HTML_NS, lanes, 2, spans, 2001);
}

/* Spans narrower than a column fold into counted marks; every span is
 * in exactly one mark, and the table lists 200 per lane and a count. */
static void test_lanes_fold(void **state)
{
	static cli_html_span spans[2001];
	size_t total = 0;
	char *page, *svg, *p;

	(void)state;
	for (int i = 0; i < 2000; i++)
		spans[i] = (cli_html_span){ i * 500.0, i * 500.0 + 3, "tiny", 1, NULL };
	spans[2000] = (cli_html_span){ 0, 1e6, "whole", 0, NULL };
	page = one_chart(draw_lanes, spans);
	svg = element(page, "<svg class=\"chart-svg\"", "</svg></div>");
	for (p = strstr(svg, "<rect class=\""); p; p = strstr(p + 1, "<rect class=\"")) {
		const char *t = strstr(p, "<title>") + 7;

		if (strncmp(p, "<rect class=\"fold\"", 18) == 0)
			total += strtoul(t, NULL, 10);
		else if (strncmp(p, "<rect class=\"span", 17) == 0)
			total++;
	}
	assert_int_equal(total, 2001);
	/* A fold is half a span's height: it does not read as a grey span. */
	assert_non_null(strstr(svg, "<rect class=\"fold\" x=\"0.0\" y=\"32.0\" width=\"1.3\" height=\"8.0\">"));
	assert_non_null(strstr(svg, "<rect class=\"span s"));
	assert_non_null(strstr(svg, "\" y=\"4.0\" width=\"770.0\" height=\"16.0\"><title>whole\n"));
	assert_true(count(svg, "<rect") <= 600 + 1 + 1);
	assert_int_equal(count(page, "<td>tiny</td>"), 200);
	assert_non_null(strstr(page, "and 1,800 more spans"));
	/* The spans in any order: the same page (marks and table sorted). */
	for (int i = 0; i < 2001 / 2; i++) {
		cli_html_span t = spans[i];

		spans[i] = spans[2000 - i];
		spans[2000 - i] = t;
	}
	char *again = one_chart(draw_lanes, spans);
	assert_string_equal(again, page);
	free(again);
	free(svg);
	free(page);
}

static void draw_lines(cli_html *h, void *data)
{
	cli_html_series series[1] = { { "live", data } };

	cli_html_chart_lines(h, "live", "Liveness", "d", "Step", CLI_HTML_COUNT, series, 1, 10000);
}

/* A line over 10,000 steps: 600 columns of min/max, the peak named with
 * its value and step, a gap where values are NaN, zoomable. */
static void test_lines_peak(void **state)
{
	static double v[10000];
	char *page, *path;

	(void)state;
	for (int i = 0; i < 10000; i++)
		v[i] = i >= 5000 && i < 5100 ? NAN : i % 100;
	v[7777] = 1216;
	page = one_chart(draw_lines, v);
	assert_non_null(strstr(page, ">Peak 1,216 at Step 7,777</text>"));
	assert_non_null(strstr(page, " data-zoom=\"x\""));
	/* The labels of a tenfold zoom are there, hidden until the script
	 * zooms: steps of 200 between the ticks of 2,000. */
	assert_non_null(strstr(page, " visibility=\"hidden\">200</text>"));
	assert_non_null(strstr(page, " visibility=\"hidden\">9,800</text>"));
	assert_null(strstr(page, " visibility=\"hidden\">2,000</text>"));
	assert_non_null(strstr(page, " text-anchor=\"middle\">2,000</text>"));
	path = element(page, "<path class=\"line s0\" d=\"", "\"/>");
	/* One move to start and one after the gap. */
	assert_int_equal(count(path, "M"), 2);
	assert_int_equal(count(path, "L") + 2, 2 * 600 - 2 * 6);
	free(path);
	free(page);
}

static void draw_ticks(cli_html *h, void *data)
{
	cli_html_series series[1] = { { "bytes", data } };

	cli_html_chart_stacked(h, "t", "Memory per tile", "d", "Tile", CLI_HTML_BYTES, series, 1, 1200);
}

/* The smallest-total tick of a column is drawn only where it is more
 * than about a pixel below the column's top: 1,200 tiles of 100,000 B
 * give or take 10 (a comb of ticks at the tops before), one column whose
 * smallest tile holds half; the legend names the tick only when one is
 * drawn. */
static void test_stacked_ticks(void **state)
{
	static double v[1200];
	char *page, *path;

	(void)state;
	for (int i = 0; i < 1200; i++)
		v[i] = 100000 + i % 2 * 10;
	page = one_chart(draw_ticks, v);
	assert_null(strstr(page, "class=\"minmark\""));
	free(page);
	v[601] = 50000;
	page = one_chart(draw_ticks, v);
	path = element(page, "<path class=\"minmark\" d=\"", "\"/>");
	assert_int_equal(count(path, "M"), 1);
	assert_int_equal(count(page, "class=\"minmark\""), 2);
	assert_non_null(strstr(page, "<rect class=\"swatch\" width=\"12\" height=\"12\" rx=\"2\"/><path "
	                             "class=\"minmark\" d=\"M0 6H12\"/></svg>Smallest total of a column's items"));
	free(path);
	free(page);
}

static void draw_time(cli_html *h, void *data)
{
	static const char *const lanes[] = { "main" };
	static const char *const labels[] = { "compile", "write" };
	static const double bars[] = { 73493549, 483629 };
	static const cli_html_span spans[] = { { 0, 263e6, "run", 0, NULL }, { 1e6, 1.4e6, "io", 0, NULL } };

	(void)data;
	cli_html_chart_bars(h, "bars", "Time", "d", CLI_HTML_NS, labels, bars, 2);
	cli_html_chart_lanes(h, "lanes", "Timeline", "d", CLI_HTML_NS, lanes, 1, spans, 2);
}

/* Times on a page read "µs" (UTF-8), and the ticks of a time axis share
 * one unit, chosen from their step: "0 ms" beside "50 ms", never "0 ns";
 * the fine ticks of a zoom too ("5 ms"). */
static void test_time_units(void **state)
{
	char *page = one_chart(draw_time, NULL);

	(void)state;
	assert_non_null(strstr(page, ">484 \xC2\xB5s</text>"));
	assert_non_null(strstr(page, "<td class=\"num\" data-sort=\"400000\">400 \xC2\xB5s</td>"));
	assert_null(strstr(page, " us<"));
	assert_null(strstr(page, " us\n"));
	assert_null(strstr(page, ">0 ns</text>"));
	assert_non_null(strstr(page, "text-anchor=\"middle\">0 ms</text>"));
	assert_non_null(strstr(page, "text-anchor=\"middle\">50 ms</text>"));
	assert_non_null(strstr(page, "visibility=\"hidden\">5 ms</text>"));
	assert_non_null(strstr(page, "text-anchor=\"middle\">80 ms</text>"));
	free(page);
}

static void draw_sizes(cli_html *h, void *data)
{
	static const double v[4] = { 0, 12000, 26600, 9000 };
	cli_html_series series[1] = { { "Bytes", (double *)v } };

	(void)data;
	cli_html_chart_lines(h, "sizes", "Sizes", "d", "Step", CLI_HTML_BYTES, series, 1, 4);
}

/* The ticks of a size axis share one binary unit, chosen from their
 * step: "0 KiB" beside "10 KiB", never "0 B" (nor "10.0 KiB" beside it). */
static void test_size_units(void **state)
{
	char *page = one_chart(draw_sizes, NULL);

	(void)state;
	assert_null(strstr(page, ">0 B</text>"));
	assert_null(strstr(page, ">0.0 B</text>"));
	assert_non_null(strstr(page, "text-anchor=\"end\">0 KiB</text>"));
	assert_non_null(strstr(page, "text-anchor=\"end\">10 KiB</text>"));
	assert_non_null(strstr(page, "text-anchor=\"end\">30 KiB</text>"));
	free(page);
}

static void draw_peaks(cli_html *h, void *data)
{
	cli_html_series series[2] = { { "Base", data }, { "New", (double *)data + 16 } };

	cli_html_chart_lines(h, "live", "Liveness", "d", "Step", CLI_HTML_BYTES, series, 2, 16);
}

/* Two peaks at one step near the top of the axis: each label stands
 * above its own marker (its line is below it there), and the two do not
 * share a line of text on the same side of the step. */
static void test_peak_labels(void **state)
{
	double v[32], cy[2], y[2], x[2];
	char anchor[2][8];
	char *page, *p;

	(void)state;
	for (int i = 0; i < 16; i++)
		v[i] = v[16 + i] = 1e6;
	v[8] = 48e6;
	v[16 + 8] = 47e6;
	page = one_chart(draw_peaks, v);
	p = page;
	for (int s = 0; s < 2; s++) {
		p = strstr(p, "<circle class=\"peak");
		assert_non_null(p);
		assert_int_equal(sscanf(strstr(p, " cy=\""), " cy=\"%lf\"", &cy[s]), 1);
		p = strstr(p, "<text class=\"peak-label\"");
		assert_non_null(p);
		assert_int_equal(sscanf(strstr(p, " x=\""), " x=\"%lf\"", &x[s]), 1);
		assert_int_equal(sscanf(strstr(p, " y=\""), " y=\"%lf\"", &y[s]), 1);
		assert_int_equal(sscanf(strstr(p, " text-anchor=\""), " text-anchor=\"%7[a-z]\"", anchor[s]), 1);
		assert_true(y[s] < cy[s] - 4);
	}
	assert_true(fabs(x[0] - x[1]) < 0.01);
	assert_true(fabs(y[0] - y[1]) >= 14 || strcmp(anchor[0], anchor[1]) != 0);
	free(page);
}

static void draw_names(cli_html *h, void *data)
{
	static const char *const lanes[] = { "WWWWWWWWWWWWWWWWWWWWWWWWWW", "short" };
	static const cli_html_span spans[] = { { 0, 10, "a", 0, NULL }, { 0, 10, "b", 1, NULL } };
	const char *const *labels = data;
	static const double bars[] = { 1, 2 };

	cli_html_chart_lanes(h, "lanes", "Threads", "d", CLI_HTML_NS, lanes, 2, spans, 2);
	cli_html_chart_bars(h, "bars", "Bars", "d", CLI_HTML_COUNT, labels, bars, 2);
}

/* A lane name of 26 wide letters fits its column (which grows; 26 bytes
 * were shown in 170 units, the first letters cut off at the left edge);
 * a longer one is cut with "…" to the column; a bar's label likewise,
 * each with the whole name in a <title>. */
static void test_names_fit(void **state)
{
	char long_name[301];
	const char *labels[] = { "Internal Exchange Message Buffers", long_name };
	double plot_x, bar_x;
	char *page, *text, *p;

	(void)state;
	memset(long_name, 'M', 300);
	long_name[300] = '\0';
	page = one_chart(draw_names, labels);
	p = strstr(page, "<svg class=\"plot\" x=\"");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "<svg class=\"plot\" x=\"%lf\"", &plot_x), 1);
	/* A W is about an em (11 units) in the sans fonts a page gets. */
	assert_true(plot_x - 8 >= 26 * 11 * 0.95);
	assert_non_null(strstr(page, ">WWWWWWWWWWWWWWWWWWWWWWWWWW<title>WWWWWWWWWWWWWWWWWWWWWWWWWW</title></text>"));
	assert_non_null(strstr(page, ">Internal Exchange Message Buffers<title>Internal Exchange Message Buffers</title>"));
	p = strstr(page, "<rect class=\"bar s0\" x=\"");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "<rect class=\"bar s0\" x=\"%lf\"", &bar_x), 1);
	assert_true(bar_x > 220 && bar_x <= 480);
	text = between(page, ">MMM", "<title>MMM");
	assert_true(strlen(text) > 8 && strcmp(text + strlen(text) - 3, "\xE2\x80\xA6") == 0);
	assert_true((strlen(text) - 3 + 3) * 11 * 0.95 <= bar_x - 8);
	assert_non_null(strstr(page, long_name));
	free(text);
	free(page);
}

static void draw_kinds(cli_html *h, void *data)
{
	static const char *const lanes[] = { "Program 0 (run 1)" };
	static const cli_html_span spans[] = {
		{ 0, 100, "OnTileExecute: matmul", 0, "OnTileExecute" },
		{ 100, 200, "DoExchange: x", 0, "DoExchange" },
		{ 200, 300, "OnTileExecute: relu", 0, "OnTileExecute" },
	};

	(void)data;
	cli_html_chart_lanes(h, "lanes", "Execution", "d", CLI_HTML_CYCLES, lanes, 1, spans, 3);
}

/* Spans that carry a kind (the summary's step types) are coloured by it,
 * not by their label, and the legend names each kind with its colour. */
static void test_lanes_kinds(void **state)
{
	char *page = one_chart(draw_kinds, NULL);

	(void)state;
	assert_int_equal(count(page, "<rect class=\"span s0\""), 2);
	assert_int_equal(count(page, "<rect class=\"span s1\""), 1);
	assert_non_null(strstr(page, "\"><title>OnTileExecute: matmul\n"));
	assert_non_null(strstr(page, "<rect class=\"s0\" width=\"12\" height=\"12\" rx=\"2\"/></svg>OnTileExecute</li>"));
	assert_non_null(strstr(page, "<rect class=\"s1\" width=\"12\" height=\"12\" rx=\"2\"/></svg>DoExchange</li>"));
	free(page);
}

static void draw_figures(cli_html *h, void *data)
{
	(void)data;
	cli_html_figures_begin(h, "Compared");
	cli_html_figure(h, "Base", "/tmp/a/base", NULL);
	cli_html_figure(h, "New", "/tmp/a/new-longer", NULL);
	cli_html_figure(h, "Tiles", "1,216", NULL);
	cli_html_figure(h, "Change", "-5", NULL);
	cli_html_figures_end(h);
}

/* In a block of figures numbers line up on the right and text (paths)
 * on the left, so two paths of different lengths start at one x; the
 * stylesheet's rules for both. */
static void test_figures_align(void **state)
{
	char *page = one_chart(draw_figures, NULL);

	(void)state;
	assert_non_null(strstr(page, "<dd class=\"text\">/tmp/a/base</dd>"));
	assert_non_null(strstr(page, "<dd class=\"text\">/tmp/a/new-longer</dd>"));
	assert_non_null(strstr(page, "<dd>1,216</dd>"));
	assert_non_null(strstr(page, "<dd>-5</dd>"));
	assert_non_null(strstr(page, ".figures dd.text { text-align: left; }"));
	/* A table's short text column keeps its words whole ("Framework",
	 * not "Framewor" and "k"): a word breaks only when it alone is wider
	 * than the room. */
	assert_non_null(strstr(page, "table.data td { overflow-wrap: break-word; }"));
	free(page);
}

static void draw_degenerate(cli_html *h, void *data)
{
	static const double odd[4] = { NAN, INFINITY, -INFINITY, 1e300 };
	static const char *const labels[4] = { "nan", "inf", "-inf", "huge" };
	static const char *const lanes[1] = { "lane" };
	static const cli_html_span spans[3] = {
		{ NAN, 1, "nan", 0, NULL }, { 5, 2, "backwards", 0, NULL }, { 0, 1, "no lane", 7, NULL } };
	cli_html_series none[1] = { { "none", odd } };

	(void)data;
	cli_html_chart_stacked(h, "a", "t", NULL, "Tile", CLI_HTML_BYTES, none, 0, 0);
	cli_html_chart_stacked(h, "b", "t", NULL, "Tile", CLI_HTML_BYTES, none, 1, 4);
	cli_html_chart_lines(h, "c", "t", NULL, "Step", CLI_HTML_PERCENT, none, 1, 0);
	cli_html_chart_lines(h, "d", "t", NULL, "Step", CLI_HTML_NS, none, 1, 4);
	cli_html_chart_bars(h, "e", "t", NULL, CLI_HTML_CYCLES, labels, odd, 0);
	cli_html_chart_bars(h, "f", "t", NULL, CLI_HTML_COUNT, labels, odd, 4);
	cli_html_chart_lanes(h, "g", "t", NULL, CLI_HTML_NS, lanes, 0, spans, 0);
	cli_html_chart_lanes(h, "h", "t", NULL, CLI_HTML_NS, lanes, 1, spans, 3);
}

/* No items, no series, NaN and infinite values, a span ending before it
 * starts or on no lane: each chart is still a whole figure, with finite
 * coordinates. */
static void test_degenerate(void **state)
{
	char *page = one_chart(draw_degenerate, NULL);

	(void)state;
	assert_int_equal(count(page, "<figure"), 8);
	assert_int_equal(count(page, "</figure>"), 8);
	assert_int_equal(count(page, "<svg class=\"chart-svg\""), 8);
	assert_int_equal(count(page, "</svg></div>"), 8);
	assert_null(strstr(page, "=\"nan"));
	assert_null(strstr(page, "=\"-nan"));
	assert_null(strstr(page, "=\"inf"));
	assert_null(strstr(page, "=\"-inf"));
	free(page);
}

/* A failed write: every call does nothing and the end says so. */
static void test_failed_write(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	cli_html *h;

	(void)state;
	assert_non_null(f);
	h = cli_html_begin(f, "t", NULL);
	assert_non_null(h);
	for (int i = 0; i < 1000; i++)
		cli_html_para(h, "a paragraph long enough to fill the stream's buffer soon");
	assert_int_equal(cli_html_end(h, "{}"), -1);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_json),
		cmocka_unit_test(test_page_inert),
		cmocka_unit_test(test_page_csp),
		cmocka_unit_test(test_page_deterministic),
		cmocka_unit_test(test_chart_tables),
		cmocka_unit_test(test_stacked_budget),
		cmocka_unit_test(test_stacked_diverging),
		cmocka_unit_test(test_lanes_fold),
		cmocka_unit_test(test_lines_peak),
		cmocka_unit_test(test_stacked_ticks),
		cmocka_unit_test(test_time_units),
		cmocka_unit_test(test_size_units),
		cmocka_unit_test(test_peak_labels),
		cmocka_unit_test(test_names_fit),
		cmocka_unit_test(test_figures_align),
		cmocka_unit_test(test_lanes_kinds),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_failed_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
