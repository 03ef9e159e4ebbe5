/*
 * Tutorial 6, matrix-vector multiplication: the complete version of the
 * Poplar tutorial in C. One compute set holds a DotProductVertex per row
 * of the matrix; each vertex runs on the tile that holds its row and its
 * output element, and reads the whole input vector (spread linearly over
 * the tiles), so the vector is broadcast to every tile in use. The host
 * writes the matrix and the vector through host write handles, runs the
 * program, reads the result through a read handle and checks it.
 *
 * Usage: tut6_matrix_vector ROWS COLS
 */
#include "example-util.h"
#include "matrix-codelets.h"
#include "matrix-host.h"

#include <tilescope/ipu.h>

#include <stdio.h>
#include <stdlib.h>

/*
 * Builds the program multiplying `matrix` (rows x cols) by `in` into `out`:
 * a single compute set "mulCS" executed once. Maps the matrix rows, the
 * output and the vertices over the target's tiles.
 */
static tsi_program *build_multiply_program(tsi_graph *graph, tsi_tensor *matrix, tsi_tensor *in,
                                           tsi_tensor *out)
{
	unsigned num_tiles = tsi_graph_get_target(graph)->num_tiles;
	size_t rows = tsi_tensor_dim(matrix, 0);
	tsi_compute_set *mul_cs;
	tsi_program *prog;

	ex_must_rc(graph, tsi_graph_map_linearly(graph, in, 1), "mapping the input vector");
	mul_cs = ex_must(graph, tsi_graph_add_compute_set(graph, "mulCS"), "adding mulCS");
	for (size_t row = 0; row < rows; row++) {
		unsigned tile = (unsigned)((unsigned long long)row * num_tiles / rows);
		tsi_tensor *matrix_row = ex_must(graph, tsi_tensor_index(matrix, row), "indexing matrix");
		tsi_tensor *out_elem = ex_must(graph, tsi_tensor_index(out, row), "indexing out");
		tsi_vertex *v = ex_must(graph, tsi_graph_add_vertex(graph, mul_cs, "DotProductVertex"),
		                        "adding a DotProductVertex");

		ex_must_rc(graph, tsi_graph_connect(graph, v, "a", matrix_row), "connecting a");
		ex_must_rc(graph, tsi_graph_connect(graph, v, "b", in), "connecting b");
		ex_must_rc(graph, tsi_graph_connect(graph, v, "out", out_elem), "connecting out");
		ex_must_rc(graph, tsi_graph_set_vertex_tile(graph, v, tile), "mapping a vertex");
		ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, matrix_row, tile), "mapping a row");
		ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, out_elem, tile),
		           "mapping an output element");
	}
	prog = ex_must(graph, tsi_prog_sequence(graph, "multiply"), "creating the program");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_execute(graph, mul_cs)),
	           "executing mulCS");
	return prog;
}

/* Parses ROWS COLS, builds and runs the multiplication and checks the
 * result: exits 0 when it is right, 1 when not (or on a failure), 2 for
 * bad arguments. */
int main(int argc, char **argv)
{
	tsi_ipu_model_options model = TSI_IPU_MODEL_OPTIONS_INIT;
	matrix_env env;
	tsi_engine *engine = NULL;
	tsi_program *prog;
	unsigned rows, cols;
	int status;

	ex_init("tut6_matrix_vector");
	matrix_parse_args_or_exit(argc, argv, "tut6_matrix_vector", &rows, &cols);
	matrix_env_setup(&env, &model, rows, cols);
	prog = build_multiply_program(env.graph, env.matrix, env.input_vector, env.output_vector);

	/* Host handles move the data in and out around the run. */
	ex_must_rc(env.graph, tsi_graph_create_host_write(env.graph, "matrix", env.matrix),
	           "creating a handle");
	ex_must_rc(env.graph, tsi_graph_create_host_write(env.graph, "inputVector", env.input_vector),
	           "creating a handle");
	ex_must_rc(env.graph, tsi_graph_create_host_read(env.graph, "outputVector", env.output_vector),
	           "creating a handle");

	if (tsi_engine_new(&engine, env.graph, &prog, 1, NULL) != TSI_OK)
		ex_fail("creating the engine", tsi_error_last());
	ex_must_engine(engine, tsi_engine_load(engine, env.device), "loading the engine");
	ex_must_engine(engine,
	               tsi_engine_write_tensor(engine, "matrix", env.h_matrix,
	                                       (size_t)rows * cols * sizeof(*env.h_matrix)),
	               "writing the matrix");
	ex_must_engine(engine,
	               tsi_engine_write_tensor(engine, "inputVector", env.h_input,
	                                       (size_t)cols * sizeof(*env.h_input)),
	               "writing the input vector");

	printf("Running graph program to multiply matrix by vector\n");
	fflush(stdout);
	ex_must_engine(engine, tsi_engine_run(engine, 0), "running the program");
	ex_must_engine(engine,
	               tsi_engine_read_tensor(engine, "outputVector", env.h_output,
	                                      (size_t)rows * sizeof(*env.h_output)),
	               "reading the result");

	status = matrix_check_result(env.h_matrix, env.h_input, env.h_output, rows, cols);

	tsi_engine_free(engine);
	matrix_env_free(&env);
	return status;
}
