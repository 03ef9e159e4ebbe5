/*
 * Host side shared by tutorials 6 and 7: argument parsing, deterministic
 * input data and the check of the device's result.
 */
#pragma once

#include <stddef.h>

#include <tilescope/ipu.h>

/* Parses "ROWS COLS" from the command line. On a missing, non-numeric,
 * zero or too large value prints what is wrong and a usage line on stderr
 * and exits with status 2. */
void matrix_parse_args_or_exit(int argc, char **argv, const char *program, unsigned *rows,
                               unsigned *cols);
/* Fills the rows x cols matrix (row-major) and the cols-element vector with
 * small multiples of 1/4 and 1/2: every product and partial sum is exact
 * in float, so any summation order gives the host's answer. */
void matrix_fill_inputs(float *matrix, float *vector, unsigned rows, unsigned cols);
/* Compares `result` with the host's product. Prints "Multiplication result
 * OK" and returns 0, or prints the first wrong element and returns 1. */
int matrix_check_result(const float *matrix, const float *vector, const float *result,
                        unsigned rows, unsigned cols);

/* What both matrix-vector tutorials set up before building their
 * programs: filled host buffers, the device, the graph with the matrix
 * codelets, and the matrix, inputVector and outputVector variables. */
typedef struct matrix_env {
	float *h_matrix, *h_input, *h_output; /* host buffers (malloc) */
	tsi_device *device;
	tsi_graph *graph;
	tsi_tensor *matrix, *input_vector, *output_vector;
} matrix_env;

/* Prints the tutorial's opening lines while it builds `env` for a rows x
 * cols problem on an IPU Model made with `model`; exits through ex_fail
 * on any failure. */
void matrix_env_setup(matrix_env *env, const tsi_ipu_model_options *model, unsigned rows,
                      unsigned cols);
/* Frees what matrix_env_setup made (engines first: they use the graph). */
void matrix_env_free(matrix_env *env);
