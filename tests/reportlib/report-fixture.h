/*
 * The reports reportlib's tests read: small real models compiled and run
 * by the runtime with autoReport (every output) into a fresh temporary
 * directory, kept alive beside the opened report so that tests compare
 * what reportlib reconstructs with the simulator's own in-memory profile
 * (tsi_engine_get_graph_profile / tsi_engine_get_run_profile).
 */
#pragma once

#include "test-util.h"

#include <tilescope/ipu.h>
#include <tilescope/profile.h>
#include <tilescope/report.h>

typedef enum tsr_fixture_model {
	/* Two Mk2 IPUs of 16 tiles: streams in, a user layer "layer1" holding
	 * a poplin matmul and a popops add, a Repeat of a popops mul, a copy
	 * to the second IPU (GlobalExchange), a stream out. Program 0 runs
	 * twice and program 1 (a small popops sub) once: three runs kept. */
	TSR_FIXTURE_MATMUL = 0,
	/* One IPU of 4 tiles whose tile 0 holds more than it has: out of
	 * memory, so the report has a graph profile and no runs. */
	TSR_FIXTURE_OOM,
} tsr_fixture_model;

typedef struct tsr_fixture {
	char *dir;                     /* the temporary directory (removed at teardown) */
	char report_dir[512];          /* dir/report: profile.pop, debug.cbor */
	char profile_path[600];        /* dir/report/profile.pop */
	tsi_device *device;
	tsi_graph *graph;
	tsi_engine *engine;
	const tsi_graph_profile *gp;   /* the simulator's own */
	size_t n_runs;
	const tsi_run_profile *runs[8];
	tsr_report *report;            /* opened from report_dir */
} tsr_fixture;

/* Builds, compiles, runs (when it fits) and opens the report. Asserts. */
void tsr_fixture_setup(tsr_fixture *f, tsr_fixture_model model);
void tsr_fixture_teardown(tsr_fixture *f);

/* cmocka group or test setups: a heap fixture of each model in *state,
 * and the teardown that frees either. */
int tsr_fixture_new_matmul(void **state);
int tsr_fixture_new_oom(void **state);
int tsr_fixture_delete(void **state);

/*
 * Calls every query reportlib offers on `r` (the first `limit` indexes of
 * every list, every IPU, both variants of each flag) and, when
 * `formatters` is set, the summary (text and JSON) and the exports; for the
 * bad-file and fuzz tests, so it never asserts on results. Returns how
 * many calls failed.
 */
size_t tsr_fixture_query_all(tsr_report *r, size_t limit, bool formatters);

/* --- Traces ---------------------------------------------------------------- */

/* Writes a trace into `dir` with a "main" thread of `outers` "outer"
 * spans (channel Framework), each holding four spans, the third named
 * "needle" and the others "inner". Returns its path (the caller frees). */
char *tsr_fixture_make_trace(const char *dir, long outers);
/* cmocka setup / teardown: a temporary directory in *state; the teardown
 * closes any trace left open and removes the directory. */
int tsr_fixture_trace_dir_new(void **state);
int tsr_fixture_trace_dir_delete(void **state);
