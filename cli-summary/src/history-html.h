/*
 * `tilescope history report` (history-html.c), which cmd-history.c calls
 * once it has parsed the command line.
 */
#pragma once

#include "cli.h"

/* What the command line chose. */
typedef struct cli_history_report_args {
	const char *store;
	const char *const *globs;  /* --metric patterns; none: the series that changed */
	size_t n_globs;
	const char *branch, *label; /* NULL: any */
	size_t last;               /* the newest runs of each series; 0: all */
	const char *output;        /* -o: a file, or "-" for standard output */
} cli_history_report_args;

/* Writes the page; returns CLI_EXIT_OK, or CLI_EXIT_ERROR with one line
 * printed. */
int cli_history_report(const cli_history_report_args *a);
