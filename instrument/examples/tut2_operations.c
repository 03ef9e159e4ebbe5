/*
 * Tutorial 2, using Poplibs: the complete version of the Poplar tutorial
 * in C. Library operations add their own codelets to the graph
 * (tsi_popops_add_codelets, popops::addCodelets) and extend a program
 * sequence with the compute sets that do the work: here three elementwise
 * additions of 2x2 matrices, the last one reading its second operand
 * through a transposed view, which moves no data until the add's exchange.
 */
#include "example-util.h"

#include <tilescope/ipu.h>
#include <tilescope/popops.h>

#include <stdio.h>

/* Builds, compiles and runs the tutorial's graph; exits 1 on any failure. */
int main(void)
{
	tsi_ipu_model_options model = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *device = NULL;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	tsi_program *prog;
	tsi_tensor *v1, *v2, *v3, *v4, *v5, *c1, *c2;
	const float c1_values[4] = {1.0f, 1.5f, 2.0f, 2.5f};
	const float c2_values[4] = {4.0f, 3.0f, 2.0f, 1.0f};

	ex_init("tut2_operations");

	if (tsi_device_new_ipu_model(&device, &model) != TSI_OK)
		ex_fail("creating the IPU Model device", tsi_error_last());
	if (tsi_graph_new(&graph, tsi_device_get_target(device), 1) != TSI_OK)
		ex_fail("creating the graph", tsi_error_last());

	/* The library's device code must be in the graph before its operations
	 * are used. */
	ex_must_rc(graph, tsi_popops_add_codelets(graph), "adding the popops codelets");

	/* Two 2x2 matrices, one element per tile; v2 is mapped column-major so
	 * that the adds below need some exchange. */
	v1 = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(2, 2), "v1"),
	             "adding v1");
	v2 = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(2, 2), "v2"),
	             "adding v2");
	for (size_t i = 0; i < 2; i++) {
		for (size_t j = 0; j < 2; j++) {
			tsi_tensor *e1 = tsi_tensor_index(tsi_tensor_index(v1, i), j);
			tsi_tensor *e2 = tsi_tensor_index(tsi_tensor_index(v2, i), j);

			ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, e1, (unsigned)(i * 2 + j)),
			           "mapping v1");
			ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, e2, (unsigned)(j * 2 + i)),
			           "mapping v2");
		}
	}

	/* Initialise both from constants on tile 0. */
	prog = ex_must(graph, tsi_prog_sequence(graph, "prog"), "creating the program");
	c1 = ex_must(graph, tsi_graph_add_constant_float(graph, TSI_FLOAT, TSI_SHAPE(2, 2),
	                                                 c1_values, "c1"),
	             "adding c1");
	c2 = ex_must(graph, tsi_graph_add_constant_float(graph, TSI_FLOAT, TSI_SHAPE(2, 2),
	                                                 c2_values, "c2"),
	             "adding c2");
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, c1, 0), "mapping c1");
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, c2, 0), "mapping c2");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_copy(graph, c1, v1)), "copying c1 to v1");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_copy(graph, c2, v2)), "copying c2 to v2");

	/* Extend the program with an elementwise add; v3 is a new variable. */
	v3 = ex_must(graph, tsi_popops_add(graph, v1, v2, prog, "Add"), "adding v1 and v2");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_print_tensor(graph, "v3", v3)),
	           "printing v3");

	/* Add v2 to the result. */
	v4 = ex_must(graph, tsi_popops_add(graph, v3, v2, prog, "Add"), "adding v3 and v2");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_print_tensor(graph, "v4", v4)),
	           "printing v4");

	/* An elementwise add through a transposed view of v2. */
	v5 = ex_must(graph, tsi_popops_add(graph, v1, tsi_tensor_transpose(v2), prog, "Add"),
	             "adding v1 and the transpose of v2");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_print_tensor(graph, "v5", v5)),
	           "printing v5");

	if (tsi_engine_new(&engine, graph, &prog, 1, NULL) != TSI_OK)
		ex_fail("creating the engine", tsi_error_last());
	ex_must_engine(engine, tsi_engine_load(engine, device), "loading the engine");
	ex_must_engine(engine, tsi_engine_run(engine, 0), "running the program");

	tsi_engine_free(engine);
	tsi_graph_free(graph);
	tsi_device_free(device);
	return 0;
}
