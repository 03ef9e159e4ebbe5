/*
 * Host side shared by tutorials 6 and 7 (see matrix-host.h).
 */
#include "matrix-host.h"
#include "example-util.h"
#include "matrix-codelets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each dimension and the matrix's element count are bounded so the host
 * buffers (and the simulated device memory) stay a few hundred MB. */
#define MAX_DIM 1000000u
#define MAX_ELEMENTS 100000000ull

/* Exactly two arguments, each a plain positive decimal number (or --help). */
void matrix_parse_args_or_exit(int argc, char **argv, const char *program, unsigned *rows,
                               unsigned *cols)
{
	if (argc == 2 && ex_is_help(argv[1]))
		ex_usage_exit(program, "ROWS COLS", NULL, NULL);
	if (argc != 3)
		ex_usage_exit(program, "ROWS COLS",
		              argc < 3 ? "missing arguments" : "too many arguments", NULL);
	if (ex_parse_dim(argv[1], MAX_DIM, rows) != 0)
		ex_usage_exit(program, "ROWS COLS", "ROWS must be an integer from 1 to 1000000, not", argv[1]);
	if (ex_parse_dim(argv[2], MAX_DIM, cols) != 0)
		ex_usage_exit(program, "ROWS COLS", "COLS must be an integer from 1 to 1000000, not", argv[2]);
	if ((unsigned long long)*rows * *cols > MAX_ELEMENTS)
		ex_usage_exit(program, "ROWS COLS", "the matrix may have at most 100000000 elements", NULL);
}

/* Values cycle through small patterns so rows differ and many sums are
 * non-zero; products are multiples of 1/8 below 2, exact in float. */
void matrix_fill_inputs(float *matrix, float *vector, unsigned rows, unsigned cols)
{
	for (unsigned c = 0; c < cols; c++)
		vector[c] = (float)((int)(c % 5) - 2) * 0.5f;
	for (unsigned r = 0; r < rows; r++) {
		for (unsigned c = 0; c < cols; c++) {
			unsigned k = (r * 7u + c * 3u) % 11u;

			matrix[(size_t)r * cols + c] = (float)((int)k - 5) * 0.25f;
		}
	}
}

/*
 * The tolerance is relative with a floor of one, so an expected value of
 * zero does not demand an exactly zero result from a sum of rounded terms.
 */
int matrix_check_result(const float *matrix, const float *vector, const float *result,
                        unsigned rows, unsigned cols)
{
	for (unsigned r = 0; r < rows; r++) {
		double expected = 0;
		double scale;

		for (unsigned c = 0; c < cols; c++)
			expected += (double)matrix[(size_t)r * cols + c] * vector[c];
		scale = fabs(expected) > 1 ? fabs(expected) : 1;
		if (!(fabs(result[r] - expected) <= 1e-5 * scale)) {
			printf("ERROR: output %u: expected=%g, actual=%g\n", r, expected,
			       (double)result[r]);
			return 1;
		}
	}
	printf("Multiplication result OK\n");
	return 0;
}

void matrix_env_setup(matrix_env *env, const tsi_ipu_model_options *model, unsigned rows,
                      unsigned cols)
{
	tsi_graph *g;

	memset(env, 0, sizeof(*env));
	printf("Multiplying matrix of size %ux%u by vector of size %u\n", rows, cols, cols);
	env->h_matrix = malloc((size_t)rows * cols * sizeof(*env->h_matrix));
	env->h_input = malloc((size_t)cols * sizeof(*env->h_input));
	env->h_output = calloc(rows, sizeof(*env->h_output));
	if (!env->h_matrix || !env->h_input || !env->h_output)
		ex_fail("allocating host buffers", "out of memory");
	matrix_fill_inputs(env->h_matrix, env->h_input, rows, cols);

	printf("Creating environment (compiling vertex programs)\n");
	if (tsi_device_new_ipu_model(&env->device, model) != TSI_OK)
		ex_fail("creating the IPU Model device", tsi_error_last());
	if (tsi_graph_new(&env->graph, tsi_device_get_target(env->device), 1) != TSI_OK)
		ex_fail("creating the graph", tsi_error_last());
	g = env->graph;
	ex_must_rc(g, matrix_add_codelets(g), "adding the codelets");

	printf("Constructing compute graph and control program\n");
	env->matrix = ex_must(g, tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(rows, cols), "matrix"),
	                      "adding matrix");
	env->input_vector = ex_must(g, tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(cols),
	                                                      "inputVector"),
	                            "adding inputVector");
	env->output_vector = ex_must(g, tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(rows),
	                                                       "outputVector"),
	                             "adding outputVector");
}

void matrix_env_free(matrix_env *env)
{
	tsi_graph_free(env->graph);
	tsi_device_free(env->device);
	free(env->h_matrix);
	free(env->h_input);
	free(env->h_output);
	memset(env, 0, sizeof(*env));
}
