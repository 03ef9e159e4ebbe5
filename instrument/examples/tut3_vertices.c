/*
 * Tutorial 3, writing vertex code: the complete version of the Poplar
 * tutorial in C. A codelet (SumVertex: Input<Vector<float>> in,
 * Output<float> out) is written as a C compute function with a field
 * table, added to the graph, and instantiated four times in one compute
 * set: vertex i sums the suffix v1[i..4) into v2[i] and runs on tile i.
 * Each vertex gets a fixed cycle estimate of 20 (setCycleEstimate), and
 * the control program executes the compute set once.
 */
#include "example-util.h"

#include <tilescope/ipu.h>

#include <stdio.h>

/* Device code of SumVertex: *out = sum of in. */
static bool sum_vertex_compute(const tsi_field *fields, size_t n_fields)
{
	const float *in = fields[0].data;
	float *out = fields[1].data;

	if (n_fields != 2)
		return false;
	*out = 0;
	for (size_t i = 0; i < fields[0].count; i++)
		*out += in[i];
	return true;
}

static const tsi_field_def sum_vertex_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

/* No estimator of its own: every vertex gets setCycleEstimate(20). Vertex
 * state is a pointer and length for `in` and a pointer for `out`. */
static const tsi_codelet sum_vertex = {
	.name = "SumVertex",
	.fields = sum_vertex_fields,
	.n_fields = sizeof(sum_vertex_fields) / sizeof(sum_vertex_fields[0]),
	.compute = sum_vertex_compute,
	.cycles = NULL,
	.flops = NULL,
	.state_bytes = 12,
	.code_bytes = 64,
	.supervisor = false,
};

/* Builds, compiles and runs the tutorial's graph; exits 1 on any failure. */
int main(void)
{
	tsi_ipu_model_options model = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *device = NULL;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	tsi_program *prog;
	tsi_compute_set *compute_set;
	tsi_tensor *v1, *v2, *c1;
	const float c1_values[4] = {1.0f, 1.5f, 2.0f, 2.5f};

	ex_init("tut3_vertices");

	if (tsi_device_new_ipu_model(&device, &model) != TSI_OK)
		ex_fail("creating the IPU Model device", tsi_error_last());
	if (tsi_graph_new(&graph, tsi_device_get_target(device), 1) != TSI_OK)
		ex_fail("creating the graph", tsi_error_last());

	/* Add the codelet to the graph. */
	ex_must_rc(graph, tsi_graph_add_codelet(graph, &sum_vertex), "adding SumVertex");

	/* Two vectors of four floats, element i on tile i. */
	v1 = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(4), "v1"), "adding v1");
	v2 = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(4), "v2"), "adding v2");
	for (size_t i = 0; i < 4; i++) {
		ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, tsi_tensor_index(v1, i), (unsigned)i),
		           "mapping v1");
		ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, tsi_tensor_index(v2, i), (unsigned)i),
		           "mapping v2");
	}

	/* Initialise v1 from a constant. */
	prog = ex_must(graph, tsi_prog_sequence(graph, "prog"), "creating the program");
	c1 = ex_must(graph, tsi_graph_add_constant_float(graph, TSI_FLOAT, TSI_SHAPE(4), c1_values,
	                                                 "c1"),
	             "adding c1");
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, c1, 0), "mapping c1");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_copy(graph, c1, v1)), "copying c1 to v1");

	/* One compute set of four vertices: vertex i sums v1[i..4) into v2[i]. */
	compute_set = ex_must(graph, tsi_graph_add_compute_set(graph, "computeSet"),
	                      "adding the compute set");
	for (size_t i = 0; i < 4; i++) {
		tsi_vertex *vtx = ex_must(graph, tsi_graph_add_vertex(graph, compute_set, "SumVertex"),
		                          "adding a SumVertex");

		ex_must_rc(graph, tsi_graph_connect(graph, vtx, "in", tsi_tensor_slice(v1, i, 4)),
		           "connecting in");
		ex_must_rc(graph, tsi_graph_connect(graph, vtx, "out", tsi_tensor_index(v2, i)),
		           "connecting out");
		ex_must_rc(graph, tsi_graph_set_vertex_tile(graph, vtx, (unsigned)i), "mapping a vertex");
		ex_must_rc(graph, tsi_graph_set_cycle_estimate(graph, vtx, 20), "setting a cycle estimate");
	}

	/* Execute the compute set, then print the result. */
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_execute(graph, compute_set)),
	           "executing the compute set");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_print_tensor(graph, "v2", v2)),
	           "printing v2");

	if (tsi_engine_new(&engine, graph, &prog, 1, NULL) != TSI_OK)
		ex_fail("creating the engine", tsi_error_last());
	ex_must_engine(engine, tsi_engine_load(engine, device), "loading the engine");
	ex_must_engine(engine, tsi_engine_run(engine, 0), "running the program");

	tsi_engine_free(engine);
	tsi_graph_free(graph);
	tsi_device_free(device);
	return 0;
}
