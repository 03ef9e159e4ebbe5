/*
 * Tutorial 1, programs and variables: the complete version of the Poplar
 * tutorial in C. It creates an IPU Model device and a graph, adds
 * variables and maps them to tiles, initialises one from a constant,
 * copies between variables and slices of them, prints tensors from the
 * device with PrintTensor, moves data with host read/write handles, and
 * feeds a variable from a host-to-device data stream whose host buffer is
 * used as a circular buffer.
 */
#include "example-util.h"

#include <tilescope/ipu.h>

#include <stdio.h>

/* Builds, compiles and runs the tutorial's graph; exits 1 on any failure. */
int main(void)
{
	tsi_ipu_model_options model = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *device = NULL;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	tsi_program *prog;
	tsi_stream *in_stream;
	tsi_tensor *v1, *v2, *v3, *v4, *c1;
	tsi_tensor *v1slice, *v3slice;
	const float c1_values[4] = {1.0f, 1.5f, 2.0f, 2.5f};
	float h3[4 * 4] = {0};
	int in_data[10 * 3];

	ex_init("tut1_variables");

	/* Create the IPU Model device and a graph for its target. */
	if (tsi_device_new_ipu_model(&device, &model) != TSI_OK)
		ex_fail("creating the IPU Model device", tsi_error_last());
	if (tsi_graph_new(&graph, tsi_device_get_target(device), 1) != TSI_OK)
		ex_fail("creating the graph", tsi_error_last());

	/* Add variables to the graph. */
	v1 = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(4), "v1"), "adding v1");
	v2 = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(4), "v2"), "adding v2");
	v3 = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(4, 4), "v3"),
	             "adding v3");
	v4 = ex_must(graph, tsi_graph_add_variable(graph, TSI_INT, TSI_SHAPE(10), "v4"), "adding v4");

	/* v1 lives on tile 0; v2 is spread over tiles 0..3; v3 and v4 get
	 * tiles of their own. */
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, v1, 0), "mapping v1");
	for (size_t i = 0; i < 4; i++)
		ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, tsi_tensor_index(v2, i), (unsigned)i),
		           "mapping v2");
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, v3, 4), "mapping v3");
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, v4, 5), "mapping v4");

	/* A control program: a sequence of steps. */
	prog = ex_must(graph, tsi_prog_sequence(graph, "prog"), "creating the program");

	/* A constant on tile 0 initialises v1. */
	c1 = ex_must(graph, tsi_graph_add_constant_float(graph, TSI_FLOAT, TSI_SHAPE(4), c1_values,
	                                                 "c1"),
	             "adding c1");
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, c1, 0), "mapping c1");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_copy(graph, c1, v1)), "copying c1 to v1");

	/* Debug print v1 to the host console, copy it to v2 and print that. */
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_print_tensor(graph, "v1-debug", v1)),
	           "printing v1");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_copy(graph, v1, v2)), "copying v1 to v2");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_print_tensor(graph, "v2-debug", v2)),
	           "printing v2");

	/* Host read/write handles for v3. */
	ex_must_rc(graph, tsi_graph_create_host_write(graph, "v3-write", v3), "creating v3-write");
	ex_must_rc(graph, tsi_graph_create_host_read(graph, "v3-read", v3), "creating v3-read");

	/* Copy the first three elements of v1 into the middle of row 1 of v3:
	 * slices are views, no new state. */
	v1slice = ex_must(graph, tsi_tensor_slice(v1, 0, 3), "slicing v1");
	v3slice = ex_must(graph,
	                  tsi_tensor_slice_md(v3, (const size_t[]){1, 1}, (const size_t[]){2, 4}, 2),
	                  "slicing v3");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_copy(graph, v1slice, v3slice)),
	           "copying the v1 slice to the v3 slice");

	/* A data stream fills v4 twice, printing it after each copy. */
	in_stream = ex_must(graph,
	                    tsi_graph_add_host_to_device_fifo(graph, "v4-input-stream", TSI_INT, 10,
	                                                      TSI_REPLICATED_STREAM_BROADCAST),
	                    "adding v4-input-stream");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_copy_from_stream(graph, in_stream, v4)),
	           "copying the stream to v4");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_print_tensor(graph, "v4-0", v4)),
	           "printing v4");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_copy_from_stream(graph, in_stream, v4)),
	           "copying the stream to v4");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_print_tensor(graph, "v4-1", v4)),
	           "printing v4");

	/* Compile the graph and program, and load them onto the device. */
	if (tsi_engine_new(&engine, graph, &prog, 1, NULL) != TSI_OK)
		ex_fail("creating the engine", tsi_error_last());
	ex_must_engine(engine, tsi_engine_load(engine, device), "loading the engine");

	/* Zero v3 on the device through its write handle. */
	ex_must_engine(engine, tsi_engine_write_tensor(engine, "v3-write", h3, sizeof(h3)),
	               "writing v3");

	/* 30 integers feed the stream of 10-element copies as a circular buffer. */
	for (int i = 0; i < 10 * 3; i++)
		in_data[i] = i;
	ex_must_engine(engine,
	               tsi_engine_connect_stream(engine, "v4-input-stream", &in_data[0],
	                                         &in_data[10 * 3]),
	               "connecting v4-input-stream");

	printf("Running program\n");
	fflush(stdout);
	ex_must_engine(engine, tsi_engine_run(engine, 0), "running the program");
	printf("Program complete\n");

	/* Read v3 back and print it as a 4x4 grid. */
	ex_must_engine(engine, tsi_engine_read_tensor(engine, "v3-read", h3, sizeof(h3)),
	               "reading v3");
	printf("\nh3 data:\n");
	for (unsigned i = 0; i < 4; i++) {
		printf(" ");
		for (unsigned j = 0; j < 4; j++)
			printf(" %g", h3[i * 4 + j]);
		printf("\n");
	}

	tsi_engine_free(engine);
	tsi_graph_free(graph);
	tsi_device_free(device);
	return 0;
}
