/*
 * The tutorial 4 model: ((m1 x m2) x m3) with poplin matmuls, its
 * deterministic inputs and the host check of its result. tut4_profiling.c
 * runs it and prints a profile overview; the integration tests build the
 * same model to check the profile's invariants (and, on a shrunk target,
 * what running out of tile memory reports).
 *
 * Building records errors in the graph, cairo-style, and reports the
 * first one at the end, so the caller decides what a failure means.
 */
#pragma once

#include <tilescope/ipu.h>

#include <stddef.h>

/* Sizes of the tutorial's matrices: m1 [m, k], m2 [k, n], m3 [n, p]. */
typedef struct tut4_sizes {
	size_t m, k, n, p;
} tut4_sizes;

/* The guide's tutorial 4 sizes: m1 [800, 500], m2 [500, 400], m3 [400, 200]. */
#define TUT4_SIZES_DEFAULT ((tut4_sizes){800, 500, 400, 200})

/* The model as built. The streams are named "m1", "m2", "m3" (host to
 * device) and "result" (device to host). */
typedef struct tut4_model {
	tut4_sizes sizes;
	tsi_tensor *m1, *m2, *m3; /* FLOAT inputs, mapped linearly */
	tsi_tensor *m4;           /* m1 x m2 */
	tsi_tensor *m5;           /* m4 x m3, the result [m, p] */
	tsi_program *prog;        /* the one engine program: copy in, multiply, copy out */
} tut4_model;

/*
 * Adds poplin's codelets, the three inputs (mapped linearly over the
 * graph's tiles, as poputil::mapTensorLinearly does), their streams and
 * the program to `graph`, filling `m`. Returns TSI_OK, or the graph's
 * first error code (message: tsi_graph_get_error()).
 */
int tut4_model_build(tut4_model *m, tsi_graph *graph, const tut4_sizes *sizes);

/* Fills the host inputs (m*k, k*n and n*p floats, row-major) with small
 * multiples of 1/4 from fixed patterns. */
void tut4_fill_inputs(const tut4_sizes *s, float *m1, float *m2, float *m3);

/*
 * Compares `result` (m*p floats) with ((m1 x m2) x m3) computed on the
 * host in double. Returns -1 when every element agrees within a relative
 * tolerance of 1e-5 (floor 1), else the index of the first that does not,
 * with the expected value in *expected.
 */
long tut4_check_result(const tut4_sizes *s, const float *m1, const float *m2, const float *m3,
                       const float *result, double *expected);

/* Connects the model's four streams of the loaded `engine` to the host
 * buffers (sizes as tut4_fill_inputs; `result` holds m*p floats).
 * Returns TSI_OK or the engine's error code (message: tsi_engine_error()). */
int tut4_model_connect(tsi_engine *engine, const tut4_model *m, float *m1, float *m2, float *m3,
                       float *result);
