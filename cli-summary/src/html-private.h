/*
 * What html.c (the page, its text and tables) and html-chart.c (the SVG
 * charts) share: the writer's state, its escaping writers and the
 * embedded stylesheet and script (written by assets/embed.py at build
 * time).
 */
#pragma once

#include "html.h"

extern const char cli_html_css[];
extern const size_t cli_html_css_len;
extern const char cli_html_js[];
extern const size_t cli_html_js_len;

struct cli_html {
	FILE *out;
	bool failed;          /* memory or a write failed: every call does nothing */
	size_t n_cols;        /* columns of the open table */
	bool *numeric;        /* n_cols: right-aligned, sorted by number */
	size_t col;           /* the next cell's column in the open row */
};

/* Markup as it is / text escaped, on the page. */
void html_put(cli_html *h, const char *markup);
void html_esc(cli_html *h, const char *text);
void html_printf(cli_html *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `id` cut to 63 bytes with anything but [a-z0-9-] as '-' (html.h's
 * rule for ids, enforced rather than trusted). */
void html_id(char out[64], const char *id);
/* ` data-json="POINTER"` when pointer is not NULL. */
void html_pointer_attr(cli_html *h, const char *pointer);
