/*
 * What `tilescope trace` gathered for one view of a trace, shared by its
 * text and JSON (cmd-trace.c) and its HTML page (trace-html.c).
 */
#pragma once

#include "tilescope/trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the statistics are taken over, and the figures gathered. */
typedef struct trace_view {
	tsr_trace *trace;
	const tsr_trace_info *info;
	const tsr_trace_process *procs;
	size_t n_procs;
	const tsr_trace_thread *threads;
	size_t n_threads;
	const tsr_trace_channel *channels;
	size_t n_channels;
	int64_t thread;            /* the one thread asked for; -1: all */
	int64_t from_ns, to_ns;    /* the window (INT64_MIN / INT64_MAX: open) */
	bool windowed;             /* --from or --to given */
	bool median;               /* medians computed */
	tsr_trace_label_stat *labels;
	size_t n_labels;
	tsr_trace_totals *totals;  /* per process, thread and channel in the view */
	bool call_tree;            /* --call-tree */
	tsr_trace_call_tree *tree; /* its call tree, with --call-tree */
} trace_view;

/*
 * Writes the page of `--format=html` to `out`: the view's labels (as
 * `json`, the document `--format=json` prints for it, lists them: sorted
 * by `sort`, the first `top`, 0: all), its call tree and a level-of-detail
 * timeline of each thread, with `json` embedded and every figure taken
 * from it pointing into it. Returns the exit code (errors printed; write
 * errors are left to cli_output_close()).
 */
int cli_trace_html(FILE *out, trace_view *v, const char *json, const char *sort, size_t top);
