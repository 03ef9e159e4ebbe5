/*
 * `tilescope history bisect` (cmd-history-bisect.c), which cmd-history.c
 * calls once it has parsed the command line.
 */
#pragma once

#include "cli.h"

/* The exit codes of a `git bisect run` script besides 0 (good) and 1
 * (bad): this commit cannot be tested, and stop the bisection. */
#define CLI_HISTORY_BISECT_SKIP 125
#define CLI_HISTORY_BISECT_ABORT 128

/* bisect's options as given (NULL: not given). */
typedef struct cli_history_bisect_args {
	const char *good_value;    /* --good-value V */
	const char *store, *good;  /* --store STORE --good SHA */
	const char *limit;         /* --limit: diff's --max-increase VALUE */
	const char *build, *run;   /* shell commands */
	const char *report;        /* the report the run command writes */
} cli_history_bisect_args;

/* Builds, runs the model and judges `metric` of its report against the
 * good value: 0 within the limit, 1 past it, CLI_HISTORY_BISECT_SKIP when
 * the build or the run fails or writes no report, CLI_HISTORY_BISECT_ABORT
 * (or CLI_EXIT_ERROR, which the caller maps to it) for bisect's own
 * errors, one line printed. `label` chooses the store's run (NULL: the
 * run without a label); `usage` is history's usage line. */
int cli_history_bisect(const cli_history_bisect_args *a, const char *metric, const char *label,
                       const char *usage);
