/*
 * The printProfileSummary formatter: a report as text in the layout of the
 * Poplar user guide's "Profile summary output" (Target, Graph, Memory
 * Usage with its region / data type / vertex data / by-tile histogram
 * parts, Variable Storage Liveness, Execution, Cycles by vertex type,
 * Steps), and the same figures as JSON. The `tilescope summary` command,
 * the Graph Analyser's summary page and tut4_profiling print it.
 *
 * Threads (report.h's contract): the report is used by one thread at a
 * time, so two threads printing summaries need a handle each (they may
 * open the same file). tsr_colours_enabled reads the environment only.
 * These calls do not report progress (see tsr_progress_cb).
 */
#pragma once

#include "report.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsr_colours {
	TSR_COLOURS_AUTO = 0, /* when `out` is a terminal, honouring NO_COLOR, CLICOLOR,
	                         CLICOLOR_FORCE */
	TSR_COLOURS_ALWAYS,
	TSR_COLOURS_NEVER
} tsr_colours;

typedef struct tsr_summary_options {
	unsigned version;            /* TSR_SUMMARY_OPTIONS_VERSION */
	bool show_var_storage;       /* liveness per step with the call-stack tree */
	bool show_optimizations;     /* optimizationInfo */
	bool show_execution_steps;   /* every step of the run */
	bool show_per_ipu_memory;    /* memory usage per IPU */
	tsr_colours colours;
	int64_t run;                 /* which run's execution (-1: the last one kept) */
} tsr_summary_options;
#define TSR_SUMMARY_OPTIONS_VERSION 1
#define TSR_SUMMARY_OPTIONS_INIT {TSR_SUMMARY_OPTIONS_VERSION, false, false, false, false, \
                                  TSR_COLOURS_AUTO, -1}

/* Whether colours are used for `out` under `mode` and the environment
 * (NO_COLOR set: never; CLICOLOR_FORCE non-zero: always; CLICOLOR=0:
 * never; else when `out` is a terminal). */
TSR_API bool tsr_colours_enabled(tsr_colours mode, FILE *out);

/* Prints the summary of `report` to `out`. `opts` may be NULL. A report
 * without runs prints the graph parts and says there is no execution. */
TSR_API int tsr_summary_print(FILE *out, tsr_report *report, const tsr_summary_options *opts);

/* The summary as one JSON object (keys documented in the README's
 * "tilescope summary --json" section; every integer exact). *out is
 * malloc'd, NUL-terminated; the caller frees it with free(). */
TSR_API int tsr_summary_json(char **out, tsr_report *report, const tsr_summary_options *opts);

#ifdef __cplusplus
}
#endif
