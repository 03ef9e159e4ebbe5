/*
 * The synthetic trace the trace benchmarks write with the pvti API: each
 * thread a run of "step" spans, each holding six "op" spans three of which
 * hold a "kernel" (three depths, ten spans a step), with optional rare
 * spans and counters. The same shape everywhere, so the figures of
 * bench-trace-viewport, bench-trace-stats and the System Analyser's
 * benchmarks speak of the same kind of trace.
 */
#pragma once

#include <stdbool.h>

typedef struct bench_trace_options {
	long spans;          /* in all, about (ten a step, split over the threads) */
	int threads;         /* writer threads "worker N" (1 to 256); 0: the calling
	                      * thread, named "main" */
	bool checkpoints;    /* a "checkpoint" span before step 5,000 of every 10,000 */
	int counter_threads; /* the first this many threads also add a sample to
	                      * their own series of the graph "Load" at every step
	                      * and an instant "checkpoint" every 1,000 steps */
} bench_trace_options;

#define BENCH_TRACE_OPTIONS_INIT {10000000, 0, false, 0}

/* Writes the trace into `dir`; returns the file's path (the caller frees)
 * or NULL when pvti could not write it. */
char *bench_write_trace(const char *dir, const bench_trace_options *opts);
