/*
 * `tilescope history changes` (cmd-history-changes.c), which cmd-history.c
 * calls once it has parsed the command line.
 */
#pragma once

#include "cli.h"

#include "tilescope/history.h"

/* Prints the change points of the metrics of `store` matching the GLOB
 * `metric` (NULL: all) over the runs of `branch` and `label` (NULL: any),
 * as text or JSON, to `output` (NULL or "-": standard output). Returns
 * CLI_EXIT_OK, or CLI_EXIT_ERROR with one line printed. */
int cli_history_changes(const char *store, const char *metric, const char *branch,
                        const char *label, bool json, const char *output);
