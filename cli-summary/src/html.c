/*
 * The page writer of `--format=html` (html.h): the page's frame with its
 * Content-Security-Policy, escaped text, figures and sortable tables. The
 * charts are html-chart.c's. Everything is written straight to the
 * stream; a failed write or allocation sets `failed`, after which every
 * call does nothing and cli_html_end returns -1.
 */
#define _GNU_SOURCE
#include "html-private.h"
#include <tilescope/sha256.h>

#include <tilescope/numfmt.h>
#include <tilescope/utf8.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef TILESCOPE_VERSION
#define TILESCOPE_VERSION "unknown"
#endif

void html_put(cli_html *h, const char *markup)
{
	if (h->failed)
		return;
	if (fputs(markup, h->out) == EOF)
		h->failed = true;
}

void html_esc(cli_html *h, const char *text)
{
	char *e;

	if (h->failed)
		return;
	e = cli_html_escape(text ? text : "", (size_t)-1);
	if (!e) {
		h->failed = true;
		return;
	}
	html_put(h, e);
	free(e);
}

void html_printf(cli_html *h, const char *fmt, ...)
{
	va_list ap;

	if (h->failed)
		return;
	va_start(ap, fmt);
	if (vfprintf(h->out, fmt, ap) < 0)
		h->failed = true;
	va_end(ap);
}

void html_pointer_attr(cli_html *h, const char *pointer)
{
	if (!pointer)
		return;
	html_put(h, " data-json=\"");
	html_esc(h, pointer);
	html_put(h, "\"");
}

/*
 * The escaping rule of every name on a page: the five characters that
 * end text or an attribute become entities, and anything that is not a
 * printable character (a byte that is not UTF-8, a C0 or C1 control, DEL)
 * becomes U+FFFD, so that the text shows where the name was odd rather
 * than hiding it. At most 6 bytes come out for each byte in (&quot;).
 */
char *cli_html_escape(const char *s, size_t len)
{
	const unsigned char *p;
	char *out, *o;
	size_t i = 0;

	if (!s)
		s = "", len = 0;
	if (len == (size_t)-1)
		len = strlen(s);
	p = (const unsigned char *)s;
	if (len > (SIZE_MAX - 1) / 6)
		return NULL;
	out = malloc(len * 6 + 1);
	if (!out)
		return NULL;
	o = out;
	while (i < len) {
		uint32_t cp = 0;
		size_t n = tsb_utf8_decode(p + i, len - i, &cp);
		const char *ent = NULL;

		switch (n ? cp : 0xFFFD) {
		case '&': ent = "&amp;"; break;
		case '<': ent = "&lt;"; break;
		case '>': ent = "&gt;"; break;
		case '"': ent = "&quot;"; break;
		case '\'': ent = "&#39;"; break;
		default: break;
		}
		if (n == 0 || cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) {
			ent = "\xEF\xBF\xBD";
			if (n == 0)
				n = 1;
		}
		if (ent) {
			size_t el = strlen(ent);

			memcpy(o, ent, el);
			o += el;
		} else {
			memcpy(o, p + i, n);
			o += n;
		}
		i += n;
	}
	*o = '\0';
	return out;
}

/*
 * The JSON document inside <script type="application/json">: only "</"
 * or "<!--" could end or confuse the element, and U+2028/9 are line ends
 * to older JavaScript; all five are written as the \u escapes JSON
 * allows inside strings (and no valid JSON has them outside one), so the
 * block parses to the same document.
 */
char *cli_html_escape_json(const char *json)
{
	/* The five sequences and their escapes; JSON strings themselves are
	 * escaped by whoever wrote the document (base's tsb_json_*). */
	static const struct {
		const char *from, *to;
	} swap[] = {
		{ "<", "\\u003c" }, { ">", "\\u003e" }, { "&", "\\u0026" },
		{ "\xE2\x80\xA8", "\\u2028" }, { "\xE2\x80\xA9", "\\u2029" },
	};
	size_t len, i, k;
	char *out, *o;

	if (!json)
		json = "";
	len = strlen(json);
	if (len > (SIZE_MAX - 1) / 6)
		return NULL;
	out = malloc(len * 6 + 1);
	if (!out)
		return NULL;
	o = out;
	for (i = 0; i < len;) {
		for (k = 0; k < sizeof swap / sizeof swap[0]; k++)
			if (strncmp(json + i, swap[k].from, strlen(swap[k].from)) == 0)
				break;
		if (k == sizeof swap / sizeof swap[0]) {
			*o++ = json[i++];
			continue;
		}
		memcpy(o, swap[k].to, 6);
		o += 6;
		i += strlen(swap[k].from);
	}
	*o = '\0';
	return out;
}

cli_html *cli_html_begin(FILE *out, const char *title, const char *subtitle)
{
	char css_hash[TSB_SHA256_BASE64_LEN], js_hash[TSB_SHA256_BASE64_LEN];
	cli_html *h = calloc(1, sizeof *h);

	if (!h)
		return NULL;
	h->out = out;
	tsb_sha256_base64(cli_html_css, cli_html_css_len, css_hash);
	tsb_sha256_base64(cli_html_js, cli_html_js_len, js_hash);
	html_put(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	            "<meta name=\"color-scheme\" content=\"light dark\">\n");
	html_printf(h, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	               "style-src 'sha256-%s'; script-src 'sha256-%s'\">\n", css_hash, js_hash);
	html_put(h, "<meta name=\"generator\" content=\"tilescope " TILESCOPE_VERSION "\">\n<title>");
	html_esc(h, title);
	html_put(h, "</title>\n<style>");
	if (!h->failed && fwrite(cli_html_css, 1, cli_html_css_len, h->out) != cli_html_css_len)
		h->failed = true;
	html_put(h, "</style>\n</head>\n<body>\n<header class=\"page-header\">\n<h1>");
	html_esc(h, title);
	html_put(h, "</h1>\n");
	if (subtitle) {
		html_put(h, "<p class=\"subtitle\">");
		html_esc(h, subtitle);
		html_put(h, "</p>\n");
	}
	html_put(h, "</header>\n<main>\n");
	return h;
}

int cli_html_end(cli_html *h, const char *json)
{
	int rc;

	if (!h)
		return -1;
	html_put(h, "</main>\n<footer class=\"page-footer\">Written by tilescope "
	            TILESCOPE_VERSION "</footer>\n");
	if (json) {
		char *e = cli_html_escape_json(json);

		if (!e)
			h->failed = true;
		html_put(h, "<script type=\"application/json\" id=\"tilescope-data\">");
		html_put(h, e ? e : "");
		html_put(h, "</script>\n");
		free(e);
	}
	html_put(h, "<script>");
	if (!h->failed && fwrite(cli_html_js, 1, cli_html_js_len, h->out) != cli_html_js_len)
		h->failed = true;
	html_put(h, "</script>\n</body>\n</html>\n");
	if (fflush(h->out) != 0 || ferror(h->out))
		h->failed = true;
	rc = h->failed ? -1 : 0;
	free(h->numeric);
	free(h);
	return rc;
}

void cli_html_banner(cli_html *h, bool pass, const char *text)
{
	html_put(h, pass ? "<div class=\"banner pass\" role=\"status\"><strong>Passed</strong> "
	                 : "<div class=\"banner fail\" role=\"alert\"><strong>Failed</strong> ");
	html_esc(h, text);
	html_put(h, "</div>\n");
}

void html_id(char out[64], const char *id)
{
	size_t i;

	for (i = 0; id && id[i] && i < 63; i++) {
		char c = id[i];

		out[i] = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ? c : '-';
	}
	out[i] = '\0';
}

void cli_html_section_begin(cli_html *h, const char *id, const char *title)
{
	char safe[64];

	html_id(safe, id);
	html_printf(h, "<section id=\"%s\">\n<h2>", safe);
	html_esc(h, title);
	html_put(h, "</h2>\n");
}

void cli_html_section_end(cli_html *h)
{
	html_put(h, "</section>\n");
}

void cli_html_para(cli_html *h, const char *text)
{
	html_put(h, "<p>");
	html_esc(h, text);
	html_put(h, "</p>\n");
}

void cli_html_textf(cli_html *h, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	if (h->failed)
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		h->failed = true;
		return;
	}
	html_esc(h, s);
	free(s);
}

void cli_html_raw(cli_html *h, const char *markup)
{
	html_put(h, markup);
}

void cli_html_figures_begin(cli_html *h, const char *title)
{
	html_put(h, "<div class=\"figures\">\n");
	if (title) {
		html_put(h, "<h3>");
		html_esc(h, title);
		html_put(h, "</h3>\n");
	}
	html_put(h, "<dl>\n");
}

void cli_html_figure(cli_html *h, const char *caption, const char *value, const char *pointer)
{
	/* Numbers line up on the right, text (a path, a name) on the left. */
	const char *d = value && value[0] == '-' ? value + 1 : value;

	html_put(h, "<div><dt>");
	html_esc(h, caption);
	html_put(h, d && *d >= '0' && *d <= '9'
	                ? "</dt><dd"
	                : "</dt><dd class=\"text\"");
	html_pointer_attr(h, pointer);
	html_put(h, ">");
	html_esc(h, value);
	html_put(h, "</dd></div>\n");
}

void cli_html_figures_end(cli_html *h)
{
	html_put(h, "</dl>\n</div>\n");
}

void cli_html_table_begin(cli_html *h, const char *caption, size_t n_cols,
                          const char *const *headers, const bool *numeric)
{
	size_t i;

	if (h->failed)
		return;
	free(h->numeric);
	h->numeric = calloc(n_cols ? n_cols : 1, sizeof *h->numeric);
	if (!h->numeric) {
		h->failed = true;
		return;
	}
	h->n_cols = n_cols;
	for (i = 0; numeric && i < n_cols; i++)
		h->numeric[i] = numeric[i];
	html_put(h, "<div class=\"table-wrap\"><table class=\"data\">");
	if (caption) {
		html_put(h, "<caption>");
		html_esc(h, caption);
		html_put(h, "</caption>");
	}
	html_put(h, "\n<thead><tr>");
	for (i = 0; i < n_cols; i++) {
		html_put(h, h->numeric[i] ? "<th scope=\"col\" class=\"num\"><button type=\"button\">"
		                          : "<th scope=\"col\"><button type=\"button\">");
		html_esc(h, headers ? headers[i] : "");
		html_put(h, "</button></th>");
	}
	html_put(h, "</tr></thead>\n<tbody>\n");
}

void cli_html_row_begin(cli_html *h)
{
	h->col = 0;
	html_put(h, "<tr>");
}

/* The opening of the next cell: right-aligned in a numeric column. */
static void cell_open(cli_html *h, const char *sort, const char *pointer)
{
	bool num = h->col < h->n_cols && h->numeric[h->col];

	html_put(h, num ? "<td class=\"num\"" : "<td");
	if (sort)
		html_printf(h, " data-sort=\"%s\"", sort);
	html_pointer_attr(h, pointer);
	html_put(h, ">");
	h->col++;
}

void cli_html_cell(cli_html *h, const char *text, const char *pointer)
{
	cell_open(h, NULL, pointer);
	html_esc(h, text);
	html_put(h, "</td>");
}

void cli_html_cell_num(cli_html *h, const char *text, double sort_value, const char *pointer)
{
	char sort[40];

	/* %.17g gives the double back exactly; NaN sorts as text would. */
	if (sort_value == sort_value && sort_value - sort_value == 0)
		snprintf(sort, sizeof sort, "%.17g", sort_value);
	else
		snprintf(sort, sizeof sort, "NaN");
	cell_open(h, sort, pointer);
	html_esc(h, text);
	html_put(h, "</td>");
}

void cli_html_cell_u64(cli_html *h, uint64_t v, const char *pointer)
{
	char text[TSB_NUMBER_MAX], sort[24];

	snprintf(sort, sizeof sort, "%" PRIu64, v);
	cell_open(h, sort, pointer);
	html_put(h, tsb_format_u64(text, sizeof text, v));
	html_put(h, "</td>");
}

void cli_html_cell_i64(cli_html *h, int64_t v, const char *pointer)
{
	char text[TSB_NUMBER_MAX], sort[24];

	snprintf(sort, sizeof sort, "%" PRId64, v);
	cell_open(h, sort, pointer);
	html_put(h, tsb_format_i64(text, sizeof text, v));
	html_put(h, "</td>");
}

void cli_html_row_end(cli_html *h)
{
	html_put(h, "</tr>\n");
}

void cli_html_table_end(cli_html *h)
{
	html_put(h, "</tbody></table></div>\n");
	free(h->numeric);
	h->numeric = NULL;
	h->n_cols = 0;
}
