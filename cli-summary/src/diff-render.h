/*
 * The four outputs of `tilescope diff`: text for a terminal, JSON for
 * scripts, Markdown for pull-request comments and JUnit XML for CI
 * systems that show test reports. Each renders the same comparison and
 * limit checks; none decides anything.
 */
#pragma once

#include "limits.h"

#include <stdio.h>

typedef enum cli_diff_format {
	CLI_DIFF_TEXT = 0,
	CLI_DIFF_JSON,
	CLI_DIFF_MARKDOWN,
	CLI_DIFF_JUNIT
} cli_diff_format;

typedef struct cli_diff {
	const char *base_path, *new_path;  /* as the user named them */
	int64_t base_run, new_run;         /* the runs compared (-1: no runs) */
	size_t base_runs, new_runs;        /* runs each report keeps */
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
 * out (JSON). */
int cli_diff_render(FILE *out, const cli_diff *d, cli_diff_format format);

/* One line per exceeded limit ("tilescope: regression: METRIC went from
 * A to B, over the limit --OPTION"), for stderr, so a CI log shows why
 * even when the output went to a file. */
void cli_diff_print_regressions(FILE *out, const cli_diff *d);

/* XML text escaping (& < > " ' and control characters) of `s` into a
 * malloc'd string; NULL when out of memory. For the tests too. */
char *cli_xml_escape(const char *s);
/* Markdown table cell escaping ('|', '\', '`', '<', newlines); malloc'd. */
char *cli_markdown_escape(const char *s);
