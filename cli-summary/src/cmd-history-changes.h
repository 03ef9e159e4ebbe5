/*
 * `tilescope history changes` (cmd-history-changes.c), which cmd-history.c
 * calls once it has parsed the command line, and the series it builds
 * from a store's points, which the report page (history-html.c) draws.
 */
#pragma once

#include "cli.h"

#include "tilescope/history-changes.h"
#include "tilescope/history.h"

/* Prints the change points of the metrics of `store` matching the GLOB
 * `metric` (NULL: all) over the runs of `branch` and `label` (NULL: any),
 * as text or JSON, to `output` (NULL or "-": standard output). Returns
 * CLI_EXIT_OK, or CLI_EXIT_ERROR with one line printed. */
int cli_history_changes(const char *store, const char *metric, const char *branch,
                        const char *label, bool json, const char *output);

/* One label's series of a metric in the form tsr_series_list_changes
 * takes, with the commit of each entry (borrowed from the points). */
typedef struct cli_history_series {
	size_t n;                  /* commits */
	size_t *offsets;           /* n + 1 */
	double *values;
	const char **commit;       /* n */
} cli_history_series;

/* The label after `after` (NULL: the first) among the points' labels in
 * strcmp order, "" for none; NULL after the last: each label's series is
 * walked once, by name. */
const char *cli_history_next_label(const tsr_history_point *p, size_t n, const char *after);
/* Fills `s` from the points of `p` (newest first, one point per sample
 * of each run) labelled `label`: oldest first, consecutive points of one
 * commit as one entry. False when out of memory (free `s` still). */
bool cli_history_series_fill(cli_history_series *s, const tsr_history_point *p, size_t n,
                             const char *label);
void cli_history_series_free(cli_history_series *s);
/* A value as text with separators ("1,040,206"), and up to two decimals
 * when it has any (the median of an even number of samples:
 * "1,040,206.5"). */
const char *cli_history_fmt_value(char buf[48], double v);
/* Appends to `list` the object of change `c` of metric `m`'s series `s`
 * of `label`, as `history changes --format json` prints it. */
bool cli_history_change_json(cJSON *list, const tsr_history_metric *m, const char *label,
                             const cli_history_series *s, const tsr_change_point *c);
