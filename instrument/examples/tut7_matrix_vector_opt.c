/*
 * Tutorial 7, matrix-vector multiplication optimisation, in C. One vertex
 * per row (tutorial 6) leaves most workers idle and broadcasts the whole
 * input vector to every tile. Here each row is cut into `split` segments:
 * a first compute set (mulCS) computes the dot product of every (row,
 * segment) pair into a partials tensor {rows, split}, and a second one
 * (reduceCS) sums each row's partials into the output. The split is
 * chosen before building the graph by estimating, for every possible
 * split, the cycles of the busiest tile in both phases (compute plus the
 * exchange that brings it its operands) and keeping the cheapest.
 *
 * After checking the result it prints the simulated cycles of the
 * multiplication, as the guide's IPU Model report does ("Program cycles:
 * 5071" for 10000 x 1000 on a Mk1 IPU). To measure the multiplication
 * alone, the host transfers run as programs of their own: program 0
 * streams the inputs in, program 1 multiplies, program 2 streams the
 * result out, and the figure is the cycles of program 1's run.
 *
 * Usage: tut7_matrix_vector_opt [--ipu mk1|mk2|bow] ROWS COLS
 */
#include "example-util.h"
#include "matrix-codelets.h"
#include "matrix-host.h"

#include <tilescope/ipu.h>

#include <tilescope/profile.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "tut7_matrix_vector_opt"
/* Each dimension and the matrix's element count are bounded so the host
 * buffers (and the simulated device memory) stay a few hundred MB (the
 * limits of tutorial 6). */
#define MAX_DIM 1000000u
#define MAX_ELEMENTS 100000000ull

/* The engine programs, in the order they run. */
enum { PROG_UPLOAD = 0, PROG_MULTIPLY, PROG_DOWNLOAD, N_PROGS };

/* The estimated cycles of one split, by phase. */
typedef struct split_cost {
	unsigned split;            /* segments per row */
	uint64_t compute;          /* mulCS: compute of the busiest tile */
	uint64_t exchange;         /* mulCS: receiving its input-vector segments */
	uint64_t reduce_exchange;  /* reduceCS: receiving the partial sums */
	uint64_t reduce_compute;   /* reduceCS: compute of the busiest tile */
	uint64_t total;            /* sum of the four */
} split_cost;

/* a / b rounded up. */
static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/*
 * Tile cycles to run `vertices` vertices of `cycles` worker cycles each.
 * A tile interleaves its worker contexts round-robin, one instruction
 * each per turn, so a worker's cycle costs `workers` tile cycles whether
 * or not the other workers are busy; the vertices run in
 * ceil(vertices / workers) rounds.
 */
static uint64_t tile_compute_cycles(uint64_t vertices, unsigned workers, uint64_t cycles)
{
	return ceil_div(vertices, workers) * workers * cycles;
}

/*
 * Estimates the cycles of multiplying a rows x cols matrix with each row
 * cut into `split` segments, on `target`. The work items (segment s, row
 * r) are numbered s * rows + r and spread evenly over the tiles in that
 * order, as build_multiply_program() places them, so the busiest tile has
 * ceil(items / tiles) of them, which cover at most
 * ceil((items_per_tile - 1) / rows) + 1 distinct segments. The estimate
 * assumes every vector segment and every partial sum a tile uses comes
 * from another tile (the worst case for the busiest tile).
 */
static split_cost estimate_cycles(const tsi_target *target, unsigned rows, unsigned cols,
                                  unsigned split)
{
	const unsigned tiles = target->num_tiles;
	const unsigned workers = target->num_worker_contexts ? target->num_worker_contexts : 1;
	const uint64_t bytes_per_cycle =
	    target->exchange_bytes_per_cycle ? target->exchange_bytes_per_cycle : 1;
	const uint64_t items = (uint64_t)rows * split;
	const uint64_t items_per_tile = ceil_div(items, tiles);
	const uint64_t segment = ceil_div(cols, split);
	uint64_t segments_per_tile = ceil_div(items_per_tile - 1, rows) + 1;
	const uint64_t rows_per_tile = ceil_div(rows, tiles);
	split_cost c;

	if (segments_per_tile > split)
		segments_per_tile = split;
	c.split = split;
	c.compute = tile_compute_cycles(items_per_tile, workers, matrix_dot_product_cycles(segment));
	c.exchange = ceil_div(segments_per_tile * segment * sizeof(float), bytes_per_cycle);
	c.reduce_exchange = ceil_div(rows_per_tile * split * sizeof(float), bytes_per_cycle);
	c.reduce_compute = tile_compute_cycles(rows_per_tile, workers, matrix_reduce_cycles(split));
	c.total = c.compute + c.exchange + c.reduce_exchange + c.reduce_compute;
	return c;
}

/* Prints one estimate in the layout of the Poplar tutorial's report. */
static void print_cost(const split_cost *c)
{
	printf("colsAxisSplit=%u, total cost=%" PRIu64 " (compute cost=%" PRIu64
	       ", exchange cost=%" PRIu64 ", reduce exchange cost=%" PRIu64
	       ", reduce compute cost=%" PRIu64 ")\n",
	       c->split, c->total, c->compute, c->exchange, c->reduce_exchange, c->reduce_compute);
}

/*
 * Tries every split from 1 (whole rows) to cols (one column per segment)
 * and returns the cheapest; ties go to the smaller split, which makes
 * fewer vertices. Prints the choice and the worst estimate seen.
 */
static unsigned calc_optimal_col_axis_split(const tsi_target *target, unsigned rows,
                                            unsigned cols)
{
	split_cost best = estimate_cycles(target, rows, cols, 1);
	uint64_t worst = best.total;

	for (unsigned split = 2; split <= cols; split++) {
		split_cost c = estimate_cycles(target, rows, cols, split);

		if (c.total < best.total)
			best = c;
		if (c.total > worst)
			worst = c.total;
	}
	printf("Best split chosen:\n");
	print_cost(&best);
	printf("Worst cost seen: %" PRIu64 "\n", worst);
	return best.split;
}

/*
 * Builds the two compute sets and returns the program executing them in
 * order. Work item (segment s, row r) runs on tile
 * (s * rows + r) * tiles / (rows * split), next to its slice of the
 * matrix and its partial sum; segment s of the input vector lives on the
 * first tile of its segment's run; the reduction of row r, and out[r],
 * on tile r * tiles / rows.
 */
static tsi_program *build_multiply_program(tsi_graph *graph, tsi_tensor *matrix, tsi_tensor *in,
                                           tsi_tensor *out)
{
	const tsi_target *target = tsi_graph_get_target(graph);
	const unsigned tiles = target->num_tiles;
	const unsigned rows = (unsigned)tsi_tensor_dim(matrix, 0);
	const unsigned cols = (unsigned)tsi_tensor_dim(matrix, 1);
	const unsigned split = calc_optimal_col_axis_split(target, rows, cols);
	const uint64_t items = (uint64_t)rows * split;
	tsi_compute_set *mul_cs, *reduce_cs;
	tsi_tensor *partials;
	tsi_program *prog;

	partials = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(rows, split),
	                                                 "partials"),
	                   "adding partials");

	mul_cs = ex_must(graph, tsi_graph_add_compute_set(graph, "mulCS"), "adding mulCS");
	for (unsigned s = 0; s < split; s++) {
		/* Segment boundaries rounded down, so every segment is non-empty
		 * while split <= cols. */
		size_t begin = (size_t)((uint64_t)s * cols / split);
		size_t end = (size_t)((uint64_t)(s + 1) * cols / split);
		tsi_tensor *in_segment = ex_must(graph, tsi_tensor_slice(in, begin, end),
		                                 "slicing the input vector");

		ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, in_segment,
		                                             (unsigned)((uint64_t)s * tiles / split)),
		           "mapping the input vector");
		for (unsigned r = 0; r < rows; r++) {
			unsigned tile = (unsigned)(((uint64_t)s * rows + r) * tiles / items);
			tsi_tensor *row = tsi_tensor_index(matrix, r);
			tsi_tensor *a = ex_must(graph, tsi_tensor_slice(row, begin, end), "slicing the matrix");
			tsi_tensor *partial = ex_must(graph,
			                              tsi_tensor_index(tsi_tensor_index(partials, r), s),
			                              "indexing partials");
			tsi_vertex *v = ex_must(graph, tsi_graph_add_vertex(graph, mul_cs, "DotProductVertex"),
			                        "adding a DotProductVertex");

			ex_must_rc(graph, tsi_graph_connect(graph, v, "a", a), "connecting a");
			ex_must_rc(graph, tsi_graph_connect(graph, v, "b", in_segment), "connecting b");
			ex_must_rc(graph, tsi_graph_connect(graph, v, "out", partial), "connecting out");
			ex_must_rc(graph, tsi_graph_set_vertex_tile(graph, v, tile), "mapping a vertex");
			ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, a, tile), "mapping the matrix");
			ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, partial, tile),
			           "mapping partials");
		}
	}

	reduce_cs = ex_must(graph, tsi_graph_add_compute_set(graph, "reduceCS"), "adding reduceCS");
	for (unsigned r = 0; r < rows; r++) {
		unsigned tile = (unsigned)((uint64_t)r * tiles / rows);
		tsi_tensor *row_partials = ex_must(graph, tsi_tensor_index(partials, r),
		                                   "indexing partials");
		tsi_tensor *out_elem = ex_must(graph, tsi_tensor_index(out, r), "indexing out");
		tsi_vertex *v = ex_must(graph, tsi_graph_add_vertex(graph, reduce_cs, "ReduceVertex"),
		                        "adding a ReduceVertex");

		ex_must_rc(graph, tsi_graph_connect(graph, v, "in", row_partials), "connecting in");
		ex_must_rc(graph, tsi_graph_connect(graph, v, "out", out_elem), "connecting out");
		ex_must_rc(graph, tsi_graph_set_vertex_tile(graph, v, tile), "mapping a vertex");
		ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, out_elem, tile), "mapping out");
	}

	prog = ex_must(graph, tsi_prog_sequence(graph, "multiply"), "creating the program");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_execute(graph, mul_cs)), "executing mulCS");
	ex_must_rc(graph, tsi_sequence_add(prog, tsi_prog_execute(graph, reduce_cs)),
	           "executing reduceCS");
	return prog;
}

/* Usage: with `problem` NULL (--help) prints it and exits 0, else says
 * what is wrong on stderr and exits 2 (ex_usage_exit). */
static _Noreturn void usage_exit(const char *problem, const char *arg)
{
	ex_usage_exit(PROGRAM, "[--ipu mk1|mk2|bow] ROWS COLS", problem, arg);
}

/*
 * Parses [--ipu mk1|mk2|bow] ROWS COLS (the option anywhere, its value
 * as the next argument or after '='). Anything wrong ends the program
 * through usage_exit.
 */
static void parse_args(int argc, char **argv, tsi_ipu_version *version, unsigned *rows,
                       unsigned *cols)
{
	const char *dims[2];
	int n_dims = 0;

	*version = TSI_IPU_MK2;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (ex_is_help(arg))
			usage_exit(NULL, NULL);
		const char *value;

		if (strncmp(arg, "--ipu", 5) != 0 || (arg[5] != '\0' && arg[5] != '=')) {
			if (arg[0] == '-' && arg[1] != '\0')
				usage_exit("unknown option", arg);
			if (n_dims == 2)
				usage_exit("too many arguments", NULL);
			dims[n_dims++] = arg;
			continue;
		}
		if (arg[5] == '=')
			value = arg + 6;
		else if (i + 1 < argc)
			value = argv[++i];
		else
			usage_exit("--ipu needs a value", NULL);
		if (ex_parse_ipu(value, version) != 0)
			usage_exit("--ipu wants mk1, mk2 or bow, not", value);
	}
	if (n_dims < 2)
		usage_exit("missing arguments", NULL);
	if (ex_parse_dim(dims[0], MAX_DIM, rows) != 0)
		usage_exit("ROWS must be an integer from 1 to 1000000, not", dims[0]);
	if (ex_parse_dim(dims[1], MAX_DIM, cols) != 0)
		usage_exit("COLS must be an integer from 1 to 1000000, not", dims[1]);
	if ((unsigned long long)*rows * *cols > MAX_ELEMENTS)
		usage_exit("the matrix may have at most 100000000 elements", NULL);
}

/* The simulated cycles of the first recorded run of engine program
 * `index`; exits through ex_fail when the engine recorded none. */
static uint64_t run_cycles(const tsi_engine *engine, size_t index)
{
	for (size_t r = 0; r < tsi_engine_num_run_profiles(engine); r++) {
		const tsi_run_profile *run = tsi_engine_get_run_profile(engine, r);

		if (run && run->program_index == index)
			return run->cycles;
	}
	ex_fail("reading the execution profile", "the multiplication's run was not recorded");
}

/* Parses the arguments, builds and runs the multiplication and checks the
 * result: exits 0 when it is right, 1 when not (or on a failure), 2 for
 * bad arguments. */
int main(int argc, char **argv)
{
	tsi_ipu_model_options model = TSI_IPU_MODEL_OPTIONS_INIT;
	matrix_env env;
	tsi_engine *engine = NULL;
	tsi_stream *in_stream_v, *in_stream_m, *out_stream;
	tsi_program *progs[N_PROGS];
	unsigned rows, cols;
	tsi_ipu_version version;
	int status;

	ex_init(PROGRAM);
	parse_args(argc, argv, &version, &rows, &cols);
	model.ipu_version = version;
	matrix_env_setup(&env, &model, rows, cols);
	progs[PROG_MULTIPLY] =
	    build_multiply_program(env.graph, env.matrix, env.input_vector, env.output_vector);

	/* Data streams move the inputs in and the result out. */
	in_stream_v = ex_must(env.graph,
	                      tsi_graph_add_host_to_device_fifo(env.graph, "inputVector", TSI_FLOAT,
	                                                        cols, TSI_REPLICATED_STREAM_BROADCAST),
	                      "adding the inputVector stream");
	in_stream_m = ex_must(env.graph,
	                      tsi_graph_add_host_to_device_fifo(env.graph, "inputMatrix", TSI_FLOAT,
	                                                        (size_t)rows * cols,
	                                                        TSI_REPLICATED_STREAM_BROADCAST),
	                      "adding the inputMatrix stream");
	out_stream = ex_must(env.graph,
	                     tsi_graph_add_device_to_host_fifo(env.graph, "out", TSI_FLOAT, rows),
	                     "adding the out stream");
	progs[PROG_UPLOAD] = ex_must(env.graph, tsi_prog_sequence(env.graph, "upload"),
	                             "creating the upload program");
	ex_must_rc(env.graph,
	           tsi_sequence_add(progs[PROG_UPLOAD],
	                            tsi_prog_copy_from_stream(env.graph, in_stream_v, env.input_vector)),
	           "copying the input vector");
	ex_must_rc(env.graph,
	           tsi_sequence_add(progs[PROG_UPLOAD],
	                            tsi_prog_copy_from_stream(env.graph, in_stream_m, env.matrix)),
	           "copying the matrix");
	progs[PROG_DOWNLOAD] = ex_must(env.graph, tsi_prog_sequence(env.graph, "download"),
	                               "creating the download program");
	ex_must_rc(env.graph,
	           tsi_sequence_add(progs[PROG_DOWNLOAD],
	                            tsi_prog_copy_to_stream(env.graph, env.output_vector, out_stream)),
	           "copying the result");

	if (tsi_engine_new(&engine, env.graph, progs, N_PROGS, NULL) != TSI_OK)
		ex_fail("creating the engine", tsi_error_last());
	ex_must_engine(engine, tsi_engine_load(engine, env.device), "loading the engine");
	ex_must_engine(engine,
	               tsi_engine_connect_stream(engine, "inputVector", env.h_input, env.h_input + cols),
	               "connecting the inputVector stream");
	ex_must_engine(engine,
	               tsi_engine_connect_stream(engine, "inputMatrix", env.h_matrix,
	                                         env.h_matrix + (size_t)rows * cols),
	               "connecting the inputMatrix stream");
	ex_must_engine(engine, tsi_engine_connect_stream(engine, "out", env.h_output, env.h_output + rows),
	               "connecting the out stream");

	printf("Running graph program to multiply matrix by vector\n");
	fflush(stdout);
	for (size_t i = 0; i < N_PROGS; i++)
		ex_must_engine(engine, tsi_engine_run(engine, i), "running the program");

	status = matrix_check_result(env.h_matrix, env.h_input, env.h_output, rows, cols);
	if (status == 0)
		printf("Program cycles: %" PRIu64 "\n", run_cycles(engine, PROG_MULTIPLY));

	tsi_engine_free(engine);
	matrix_env_free(&env);
	return status;
}
