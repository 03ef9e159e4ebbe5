/*
 * Helpers shared by the unit tests: a fresh temporary directory per test,
 * float comparison with a tolerance (cmocka 1.1.5 has none), capturing what
 * a block writes to a FILE*, copying a file, and, where their headers are
 * on the include path, a trace opener (reportlib) and an IPU Model fixture
 * shared by the runtime tests.
 */
#pragma once

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

/* Creates a new directory under $TMPDIR (or /tmp); returns a malloc'd path. */
char *tsi_test_mkdtemp(void);
/* Seconds on CLOCK_MONOTONIC, for deadlines and printed durations (never
 * for an assertion on speed). */
double tsi_test_now_s(void);
/* Removes a directory tree made by tsi_test_mkdtemp and frees the path. */
void tsi_test_rmtree(char *path);
/* The path of the one file in `dir` whose name ends in `suffix`
 * (".pvti"), malloc'd; fails the test unless there is exactly one. */
char *tsi_test_only_file(const char *dir, const char *suffix);
/* A whole file as a malloc'd, NUL-terminated string ("" when the file
 * does not exist). The caller frees it. */
char *tsi_test_read_file(const char *path);
/* Fails the test unless |a - b| <= tol. */
#define assert_close(a, b, tol) tsi_test_assert_close((double)(a), (double)(b), (double)(tol), \
                                                      #a, __FILE__, __LINE__)
void tsi_test_assert_close(double a, double b, double tol, const char *expr,
                           const char *file, int line);
/* A FILE* writing to memory; tsi_test_capture_text() returns what was
 * written so far (NUL-terminated, owned by the capture). */
typedef struct tsi_test_capture {
	FILE *file;
	char *buf;
	size_t len;
} tsi_test_capture;
void tsi_test_capture_open(tsi_test_capture *cap);
const char *tsi_test_capture_text(tsi_test_capture *cap);
void tsi_test_capture_close(tsi_test_capture *cap);
/* Copies file `from` to `to` (replacing it), e.g. a report to damage. */
void tsi_test_copy_file(const char *from, const char *to);

/* The trace at `path` opened alone, failing the test with reportlib's
 * message if it does not open. Free with tsr_trace_free. */
#if __has_include(<tilescope/trace.h>)
#include <tilescope/trace.h>
tsr_trace *tsi_test_open_trace(const char *path);
#endif

/* The rest needs the runtime (tests that link it). */
#if __has_include(<tilescope/ipu.h>)
#include <tilescope/ipu.h>

/* An IPU Model device, a graph on its target, an optional sequence and
 * the engine compiled from it. Every helper asserts success. */
typedef struct tsi_test_model {
	tsi_device *device;
	tsi_graph *graph;
	tsi_program *seq;  /* "seq" from tsi_test_model_new; NULL after _init */
	tsi_engine *engine;
} tsi_test_model;

/* Sets up `m`: a device of `ipus` IPUs of `version` with `tiles_per_ipu`
 * tiles each, and a graph of `replicas` replicas on its target. */
void tsi_test_model_init_ipu(tsi_test_model *m, tsi_ipu_version version, unsigned ipus,
                             unsigned tiles_per_ipu, unsigned replicas);
/* tsi_test_model_init_ipu with a Mk2 IPU. */
void tsi_test_model_init(tsi_test_model *m, unsigned ipus, unsigned tiles_per_ipu,
                         unsigned replicas);
/* A graph alone (no device) on one full Mk2 IPU, 1,472 tiles, one
 * replica; free with tsi_graph_free. */
tsi_graph *tsi_test_graph_mk2(void);
/* A heap model of one Mk2 IPU, one replica, with an empty sequence "seq";
 * for cmocka setup functions (free with tsi_test_model_delete). */
tsi_test_model *tsi_test_model_new(unsigned tiles_per_ipu);
/* Compiles programs[0..n) (NULL: m->seq alone) with `opts` (may be NULL)
 * into m->engine and loads it onto m->device. */
void tsi_test_model_load(tsi_test_model *m, tsi_program *const *progs, size_t n,
                         const tsi_options *opts);
/* Runs program `index` of `engine`. */
void tsi_test_run(tsi_engine *engine, size_t index);
/* Frees the engine, graph and device of `m` (any may be NULL) and zeroes it. */
void tsi_test_model_free(tsi_test_model *m);
/* tsi_test_model_free, then frees `m` itself (a cmocka teardown). */
int tsi_test_model_delete(void **state);

/* A variable of `n` elements (0: a rank-0 scalar) on `tile`, with host
 * read and write handles named after it. */
tsi_tensor *tsi_test_var(tsi_test_model *m, tsi_type type, size_t n, unsigned tile,
                         const char *name);

/* Writes or reads `n` floats through host handle `handle` of `engine`;
 * the _halves forms convert to and from half on the device side. */
void tsi_test_write_floats(tsi_engine *engine, const char *handle, const float *v, size_t n);
void tsi_test_read_floats(tsi_engine *engine, const char *handle, float *out, size_t n);
void tsi_test_write_halves(tsi_engine *engine, const char *handle, const float *v, size_t n);
void tsi_test_read_halves(tsi_engine *engine, const char *handle, float *out, size_t n);
#endif
