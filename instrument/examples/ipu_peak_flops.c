/*
 * IPU peak TFLOPS on the IPU Model, after Graphcore's "IPU Peak
 * teraFlops" notebook: on a Bow IPU (1,472 tiles at 1.85 GHz) every tile
 * runs one AMP matmul vertex, poplin::ConvPartial1x1Out<half,float,true,
 * false>, computing [N,16] x [16,16] in half, for N = 16, 32, ... 128 (or
 * up to --max-n). The cycles of the compute set's OnTileExecute step in
 * the run's profile give the achieved TFLOPS,
 *     2 * N * 16 * 16 * tiles / (cycles / clock) / 1e12,
 * which is printed beside the notebook's measurement on real hardware and
 * the relative error. The results are checked against the host's product.
 *
 * The model must reproduce the measurements within 5% at every measured
 * N; the program exits 1 when it does not (or on any failure), 2 for bad
 * arguments.
 *
 * Usage: ipu_peak_flops [--max-n N]   (N a multiple of 16, 16 to 2048)
 *
 * The default (N up to 128) takes a couple of seconds; --max-n 2048 runs
 * 128 benchmarks whose products the engine really computes, about ten
 * minutes.
 */
#include "example-util.h"

#include <tilescope/ipu.h>
#include <tilescope/poplin.h>
#include <tilescope/profile.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "ipu_peak_flops"
#define AMP_VERTEX "poplin::ConvPartial1x1Out<half,float,true,false>"
/* The contracted and output widths of the benchmark: one AMP block. */
#define K 16
#define STEP 16
#define MAX_N 2048u
#define DEFAULT_MAX_N 128u
/* Largest accepted relative error against a measurement, percent. */
#define TOLERANCE_PERCENT 5.0

/* The notebook's measurements on a Bow IPU, TFLOPS, for N = 16, 32, ... 128. */
static const double measured_tflops[] = {55.5, 96.7, 127.7, 152.8, 170.7, 186.9, 201.2, 211.1};
#define N_MEASURED (sizeof(measured_tflops) / sizeof(measured_tflops[0]))

/* Usage: with `problem` NULL (--help) prints it and exits 0, else says
 * what is wrong on stderr and exits 2 (ex_usage_exit). */
static _Noreturn void usage_exit(const char *problem, const char *arg)
{
	ex_usage_exit(PROGRAM, "[--max-n N]   (N a multiple of 16, 16 to 2048; default 128)", problem, arg);
}

/* Parses [--max-n N] (value as the next argument or after '='). */
static unsigned parse_args(int argc, char **argv)
{
	unsigned max_n = DEFAULT_MAX_N;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (ex_is_help(arg))
			usage_exit(NULL, NULL);
		const char *value;

		if (strncmp(arg, "--max-n", 7) != 0 || (arg[7] != '\0' && arg[7] != '='))
			usage_exit("unknown argument", arg);
		if (arg[7] == '=')
			value = arg + 8;
		else if (i + 1 < argc)
			value = argv[++i];
		else
			usage_exit("--max-n needs a value", NULL);
		if (ex_parse_dim(value, MAX_N, &max_n) != 0 || max_n % STEP != 0)
			usage_exit("--max-n wants a multiple of 16 from 16 to 2048, not", value);
	}
	return max_n;
}

/* Small multiples of 1/4 in [-1, 1] from a pattern: exact in half, and
 * every product and 16-term sum is exact in float. */
static uint16_t pattern(size_t a, size_t b, size_t c)
{
	return tsi_half_from_float((float)((int)((a + 3 * b + 5 * c) % 9u) - 4) * 0.25f);
}

/*
 * Builds the benchmark for N rows on every tile of `device`, runs it,
 * checks every tile's product and returns the cycles of the compute
 * set's OnTileExecute step. Exits through ex_fail on any failure.
 */
static uint64_t run_benchmark(tsi_device *device, size_t n)
{
	const tsi_target *target = tsi_device_get_target(device);
	const size_t tiles = target->num_tiles;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	tsi_tensor *lhs, *rhs, *out;
	tsi_compute_set *cs;
	tsi_program *prog;
	uint16_t *h_lhs = malloc(tiles * n * K * sizeof(*h_lhs));
	uint16_t *h_rhs = malloc(tiles * K * K * sizeof(*h_rhs));
	float *h_out = malloc(tiles * n * K * sizeof(*h_out));
	const tsi_run_profile *run;
	uint64_t cycles = 0;
	size_t found = 0;

	if (!h_lhs || !h_rhs || !h_out)
		ex_fail("allocating host buffers", "out of memory");
	if (tsi_graph_new(&graph, target, 1) != TSI_OK)
		ex_fail("creating the graph", tsi_error_last());
	ex_must_rc(graph, tsi_poplin_add_codelets(graph), "adding the poplin codelets");
	lhs = tsi_graph_add_variable(graph, TSI_HALF, TSI_SHAPE(tiles, n, K), "lhs");
	rhs = tsi_graph_add_variable(graph, TSI_HALF, TSI_SHAPE(tiles, K, K), "rhs");
	out = tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(tiles, n * K), "out");
	cs = tsi_graph_add_compute_set(graph, "amp");
	/* Everything a tile's vertex touches lives on that tile: the compute
	 * set runs with no exchange, as the notebook's tile_map does. */
	for (size_t t = 0; t < tiles; t++) {
		tsi_tensor *a = tsi_tensor_index(lhs, t);
		tsi_tensor *w = tsi_tensor_index(rhs, t);
		tsi_tensor *o = tsi_tensor_index(out, t);
		tsi_vertex *v = tsi_graph_add_vertex(graph, cs, AMP_VERTEX);

		tsi_graph_set_tile_mapping(graph, a, (unsigned)t);
		tsi_graph_set_tile_mapping(graph, w, (unsigned)t);
		tsi_graph_set_tile_mapping(graph, o, (unsigned)t);
		tsi_graph_connect(graph, v, "in", a); /* one sub-vector per row */
		tsi_graph_connect(graph, v, "weights", tsi_tensor_flatten(w));
		tsi_graph_connect(graph, v, "out", o);
		tsi_graph_set_vertex_tile(graph, v, (unsigned)t);
	}
	tsi_graph_create_host_write(graph, "lhs", lhs);
	tsi_graph_create_host_write(graph, "rhs", rhs);
	tsi_graph_create_host_read(graph, "out", out);
	prog = tsi_prog_sequence(graph, "benchmark");
	tsi_sequence_add(prog, tsi_prog_execute(graph, cs));
	/* Graph calls record their first error and pass NULL on quietly. */
	ex_must(graph, prog, "building the benchmark");

	if (tsi_engine_new(&engine, graph, &prog, 1, NULL) != TSI_OK)
		ex_fail("creating the engine", tsi_error_last());
	ex_must_engine(engine, tsi_engine_load(engine, device), "loading the engine");
	for (size_t t = 0; t < tiles; t++) {
		for (size_t i = 0; i < n; i++)
			for (size_t q = 0; q < K; q++)
				h_lhs[(t * n + i) * K + q] = pattern(t, i, q);
		for (size_t q = 0; q < K; q++)
			for (size_t j = 0; j < K; j++)
				h_rhs[(t * K + q) * K + j] = pattern(t + 1, j, q);
	}
	ex_must_engine(engine, tsi_engine_write_tensor(engine, "lhs", h_lhs,
	                                               tiles * n * K * sizeof(*h_lhs)),
	               "writing lhs");
	ex_must_engine(engine, tsi_engine_write_tensor(engine, "rhs", h_rhs,
	                                               tiles * K * K * sizeof(*h_rhs)),
	               "writing rhs");
	ex_must_engine(engine, tsi_engine_run(engine, 0), "running the benchmark");
	ex_must_engine(engine, tsi_engine_read_tensor(engine, "out", h_out,
	                                              tiles * n * K * sizeof(*h_out)),
	               "reading the result");

	/* The host's product, from the inputs widened once (exact: the
	 * inputs are quarters, the sums of 16 products exact in float). */
	for (size_t t = 0; t < tiles; t++) {
		float w[K][K];

		for (size_t q = 0; q < K; q++)
			for (size_t j = 0; j < K; j++)
				w[q][j] = tsi_half_to_float(h_rhs[(t * K + q) * K + j]);
		for (size_t i = 0; i < n; i++) {
			const uint16_t *a = &h_lhs[(t * n + i) * K];
			const float *got = &h_out[(t * n + i) * K];
			float row[K];

			for (size_t q = 0; q < K; q++)
				row[q] = tsi_half_to_float(a[q]);
			for (size_t j = 0; j < K; j++) {
				float want = 0.0f;
				for (size_t q = 0; q < K; q++)
					want += row[q] * w[q][j];
				if (got[j] != want) {
					char msg[160];
					snprintf(msg, sizeof(msg), "N=%zu, tile %zu, out[%zu][%zu] = %g, expected %g",
					         n, t, i, j, (double)got[j], (double)want);
					ex_fail("checking the product", msg);
				}
			}
		}
	}

	run = tsi_engine_num_run_profiles(engine) ? tsi_engine_get_run_profile(engine, 0) : NULL;
	for (size_t i = 0; run && i < run->n_steps; i++) {
		if (run->steps[i].type == TSI_STEP_ON_TILE_EXECUTE) {
			cycles = run->steps[i].cycles;
			found++;
		}
	}
	if (found != 1)
		ex_fail("reading the execution profile", "expected exactly one OnTileExecute step");

	tsi_engine_free(engine);
	tsi_graph_free(graph);
	free(h_lhs);
	free(h_rhs);
	free(h_out);
	return cycles;
}

/* Runs the benchmark for every N and prints the table; exits 1 when a
 * measured N is off by more than TOLERANCE_PERCENT. */
int main(int argc, char **argv)
{
	tsi_ipu_model_options model = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *device = NULL;
	const tsi_target *target;
	unsigned max_n;
	double worst = 0.0;
	unsigned worst_n = 0;

	ex_init(PROGRAM);
	max_n = parse_args(argc, argv);
	model.ipu_version = TSI_IPU_BOW;
	if (tsi_device_new_ipu_model(&device, &model) != TSI_OK)
		ex_fail("creating the IPU Model device", tsi_error_last());
	target = tsi_device_get_target(device);

	printf("On-tile AMP matmul: one %s vertex per tile\n", AMP_VERTEX);
	printf("computing half [N,%d] x [%d,%d] on %s (%u tiles at %.2f GHz)\n", K, K, K,
	       target->name, target->num_tiles, (double)target->clock_hz / 1e9);
	printf("Peak: %.1f TFLOPS (%u flops per tile-cycle)\n",
	       tsi_target_peak_flops(target) / 1e12, target->fp16_amp_flops_per_cycle);
	printf("%6s %7s %7s %9s %7s\n", "N", "cycles", "TFLOPS", "measured", "error%");
	fflush(stdout);
	for (unsigned n = STEP; n <= max_n; n += STEP) {
		uint64_t cycles = run_benchmark(device, n);
		double flops = 2.0 * n * K * K * target->num_tiles;
		double tflops = flops / ((double)cycles / (double)target->clock_hz) / 1e12;
		size_t m = n / STEP - 1;

		if (m < N_MEASURED) {
			double err = 100.0 * (tflops - measured_tflops[m]) / measured_tflops[m];
			printf("%6u %7" PRIu64 " %7.1f %9.1f %7.1f\n", n, cycles, tflops,
			       measured_tflops[m], err);
			if (fabs(err) > fabs(worst)) {
				worst = err;
				worst_n = n;
			}
		} else {
			printf("%6u %7" PRIu64 " %7.1f %9s %7s\n", n, cycles, tflops, "-", "-");
		}
		fflush(stdout);
	}
	tsi_device_free(device);

	if (fabs(worst) > TOLERANCE_PERCENT) {
		fprintf(stderr, "%s: at N=%u the model is %.1f%% off the measurement (limit %.0f%%)\n",
		        PROGRAM, worst_n, worst, TOLERANCE_PERCENT);
		return 1;
	}
	printf("Every measured N within %.0f%% of the notebook (largest error %.1f%% at N=%u)\n",
	       TOLERANCE_PERCENT, worst, worst_n);
	return 0;
}
