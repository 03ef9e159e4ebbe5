/*
 * The outputs of `tilescope diff`: text for a terminal, JSON for scripts,
 * Markdown for pull-request comments, JUnit XML for CI systems that show
 * test reports, an HTML page for a CI artifact (diff-html.c) and
 * OpenMetrics text for GitLab's metrics report (diff-openmetrics.c).
 * Each renders the same comparison and limit checks; none decides
 * anything.
 */
#pragma once

#include "limits.h"

#include <stdio.h>

/* Room for a limit spelt as its option (tsr_limit_fill_option): the
 * option, a metric name (limits.c keeps them below 512 bytes) and the
 * value. */
#define CLI_DIFF_LIMIT_TEXT 2048

typedef enum cli_diff_format {
	CLI_DIFF_TEXT = 0,
	CLI_DIFF_JSON,
	CLI_DIFF_MARKDOWN,
	CLI_DIFF_JUNIT,
	CLI_DIFF_HTML,
	CLI_DIFF_OPENMETRICS
} cli_diff_format;

typedef struct cli_diff {
	const char *base_path, *new_path;  /* as the user named them */
	int64_t base_run, new_run;         /* the runs compared (-1: no runs) */
	size_t base_runs, new_runs;        /* runs each report keeps */
	tsr_report *base_report, *new_report;  /* HTML: per-tile memory, liveness */
	const tsr_comparison *cmp;
	const tsr_limit_check *checks;
	size_t n_checks, failed;
	bool all;                          /* unchanged items too */
	size_t top;                        /* changed items per group (0: all) */
	bool colours;                      /* text only */
	bool by_program;                   /* runs matched by program name (the
	                                      comparison's program list), not
	                                      base_run / new_run */
	bool fell_back;                    /* by program asked, none in common:
	                                      the last runs */
	const char *program;               /* --program, or NULL; with it,
	                                      base_run / new_run count that
	                                      program's runs (-1: its last) */
} cli_diff;

/* True when total memory including gaps and excluding gaps moved in
 * opposite directions: the outputs then call neither better nor worse
 * and say why. */
bool cli_diff_memory_mixed(const tsr_comparison *cmp);

/* Writes `d` to `out`; returns 0, or -1 when a write failed or memory ran
 * out. */
int cli_diff_render(FILE *out, const cli_diff *d, cli_diff_format format);

/* One line per exceeded limit ("tilescope: regression: METRIC went from
 * A to B, over the limit --OPTION"), for stderr, so a CI log shows why
 * even when the output went to a file. */
void cli_diff_print_regressions(FILE *out, const cli_diff *d);
/* The text --format=json prints, without its final newline, into memory;
 * NULL when out of memory. With `keep` (one flag per delta of the
 * comparison) its "deltas" hold only the marked ones, in the same order:
 * the document the HTML page embeds, whose every other key is the same.
 * The caller frees it with cJSON_free(). */
char *cli_diff_json(const cli_diff *d, const bool *keep);

/* What the outputs share with the page (diff-html.c) and OpenMetrics. */
/* The deltas of `group` an output shows: changed ones (every one with
 * --all; totals and runs always whole), largest change first, cut to
 * --top; *more counts the cut ones, *n_changed the changed ones. The
 * pointers point into the comparison's one array of deltas, so
 * `x - tsr_comparison_get_delta(cmp, 0)` is a delta's index in the
 * JSON's "deltas". The caller frees the array; NULL when out of memory. */
const tsr_delta **cli_diff_select_group(const cli_diff *d, tsr_metric_group group, size_t *n,
                                        size_t *more, size_t *n_changed);
/* "Memory by category" (text and Markdown headings) and "category" (the
 * JSON's group); static storage. */
const char *cli_diff_group_title(tsr_metric_group group);
const char *cli_diff_group_key(tsr_metric_group group);
/* The note cli_diff_memory_mixed calls for; static storage. */
const char *cli_diff_memory_mixed_note(const tsr_comparison *cmp);
/* new - base of a limit check, saturated. */
int64_t cli_diff_check_change(const tsr_limit_check *k);
/* The HTML page (diff-html.c) and the OpenMetrics text
 * (diff-openmetrics.c); 0, or -1 when memory ran out or a write failed. */
int cli_diff_render_html(FILE *out, const cli_diff *d);
int cli_diff_render_openmetrics(FILE *out, const cli_diff *d);

/* XML text escaping (& < > " ' and control characters) of `s` into a
 * malloc'd string; NULL when out of memory. For the tests too. */
char *cli_xml_escape(const char *s);
/* Markdown table cell escaping ('|', '\', '`', '<', newlines); malloc'd. */
char *cli_markdown_escape(const char *s);
