/*
 * A model over several IPUs: a two-layer perceptron trained with a
 * pipeline split over two IPUs, replicated for data parallelism.
 *
 * The target has 4 IPUs and the graph 2 replicas, so each replica owns 2
 * IPUs. Each replica's model is cut into two stages, each on a virtual
 * graph over one IPU's tiles:
 *
 *   stage 0 (IPU 0): h = relu(x W1 + b1)              backward: dW1, db1
 *   stage 1 (IPU 1): p = softmax(h W2 + b2), loss      backward: dW2, db2, dh
 *
 * The activations h go from stage 0 to stage 1 and the gradient dh back
 * by copies between the IPUs (GlobalExchange steps in the profile). Each
 * replica reads its own batches from per-replica streams and computes
 * its gradients; an allReduce over the replicas sums them (more
 * GlobalExchanges, after external syncs) and every replica applies the
 * same update W -= lr / (B * replicas) * sum of dW. One run of the
 * training program is a Repeat of that step.
 *
 * The program checks that every replica ends with the same parameters,
 * and that they equal a host computation of the same data-parallel
 * training; it prints each replica's loss per step and what the run
 * profile shows of the multi-IPU traffic. Exits 1 on a failed check or
 * any failure, 2 for bad arguments.
 *
 * Usage: multi_ipu_pipeline [--steps N] [--tiles-per-ipu T]
 */
#include "example-util.h"
#include "pipeline-model.h"

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "multi_ipu_pipeline"
#define DEFAULT_STEPS 8u
#define MAX_STEPS 1000u
/* Largest accepted difference between the device's parameters and the
 * host's, relative to the largest parameter (float against double). */
#define PARAM_TOLERANCE 1e-4

/* Usage: with `problem` NULL (--help) prints it and exits 0, else says
 * what is wrong on stderr and exits 2 (ex_usage_exit). */
static _Noreturn void usage_exit(const char *problem, const char *arg)
{
	ex_usage_exit(PROGRAM, "[--steps N] [--tiles-per-ipu T]", problem, arg);
}

/* Parses [--steps N] [--tiles-per-ipu T] (values as the next argument or
 * after '='). T = 0 keeps the IPU's 1,472 tiles. */
static void parse_args(int argc, char **argv, unsigned *steps, unsigned *tiles_per_ipu)
{
	*steps = DEFAULT_STEPS;
	*tiles_per_ipu = 0;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (ex_is_help(arg))
			usage_exit(NULL, NULL);
		const char *eq = strchr(arg, '=');
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
		const char *value;
		bool is_steps = len == 7 && !strncmp(arg, "--steps", 7);

		if (!is_steps && !(len == 15 && !strncmp(arg, "--tiles-per-ipu", 15)))
			usage_exit("unknown argument", arg);
		if (eq)
			value = eq + 1;
		else if (i + 1 < argc)
			value = argv[++i];
		else
			usage_exit(is_steps ? "--steps needs a value" : "--tiles-per-ipu needs a value",
			           NULL);
		if (is_steps && ex_parse_dim(value, MAX_STEPS, steps) != 0)
			usage_exit("--steps wants a whole number from 1 to 1000, not", value);
		/* The lower bound: every stage needs room for its matmuls. */
		if (!is_steps && (ex_parse_dim(value, 1472, tiles_per_ipu) != 0 || *tiles_per_ipu < 4))
			usage_exit("--tiles-per-ipu wants a whole number from 4 to 1472, not", value);
	}
}

/*
 * Reads every parameter from every replica; fails unless all replicas
 * hold the same bits, and unless replica 0's values are within
 * PARAM_TOLERANCE of the host reference `ref`.
 */
static void check_params(tsi_engine *engine, float *const ref[PIPELINE_N_PARAMS])
{
	double worst = 0.0;

	for (int p = 0; p < PIPELINE_N_PARAMS; p++) {
		size_t n = pipeline_param_sizes[p];
		float *got[PIPELINE_REPLICAS];
		double largest = 0.0;

		for (unsigned r = 0; r < PIPELINE_REPLICAS; r++) {
			got[r] = malloc(n * sizeof(float));
			if (!got[r])
				ex_fail("reading the parameters", "out of memory");
			ex_must_engine(engine,
			               tsi_engine_read_tensor_replica(engine, pipeline_param_names[p], r,
			                                              got[r], n * sizeof(float)),
			               "reading the parameters");
			if (r > 0 && memcmp(got[r], got[0], n * sizeof(float)) != 0) {
				char msg[96];
				snprintf(msg, sizeof(msg), "replica %u's %s differs from replica 0's", r,
				         pipeline_param_names[p]);
				ex_fail("checking the replicas", msg);
			}
		}
		for (size_t i = 0; i < n; i++)
			largest = fmax(largest, fabs(ref[p][i]));
		for (size_t i = 0; i < n; i++) {
			double d = fabs((double)got[0][i] - ref[p][i]) / fmax(largest, 1e-3);
			if (d > worst)
				worst = d;
			if (!(d <= PARAM_TOLERANCE)) {
				char msg[160];
				snprintf(msg, sizeof(msg), "%s[%zu] = %.7g, the host computed %.7g",
				         pipeline_param_names[p], i, (double)got[0][i], (double)ref[p][i]);
				ex_fail("checking against the host", msg);
			}
		}
		for (unsigned r = 0; r < PIPELINE_REPLICAS; r++)
			free(got[r]);
	}
	printf("Replicas agree: W1, b1, W2, b2 are identical on all %u replicas\n", PIPELINE_REPLICAS);
	printf("Host reference agrees: largest difference %.1e of the largest parameter\n", worst);
}

/* Counts what the run profile shows of the traffic between IPUs. */
static void print_profile(const tsi_engine *engine)
{
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(engine);
	const tsi_run_profile *run =
	    tsi_engine_num_run_profiles(engine) ? tsi_engine_get_run_profile(engine, 0) : NULL;
	size_t global = 0, ext_sync = 0, int_sync = 0, internal = 0, host = 0;

	if (!run)
		ex_fail("reading the execution profile", "the training run was not recorded");
	for (size_t i = 0; i < run->n_steps; i++) {
		const tsi_step *st = &run->steps[i];
		switch (st->type) {
		case TSI_STEP_GLOBAL_EXCHANGE: global++; break;
		case TSI_STEP_DO_EXCHANGE: internal++; break;
		case TSI_STEP_STREAM_COPY: host++; break;
		case TSI_STEP_SYNC:
			if (st->sync_type == TSI_SYNC_INTERNAL)
				int_sync++;
			else
				ext_sync++;
			break;
		default: break;
		}
	}
	printf("Graph profile: %u IPUs, replication factor %u, %zu IPU-to-IPU exchanges\n",
	       gp->target.num_ipus * gp->replication_factor, gp->replication_factor,
	       gp->n_exchanges[TSI_EXCHANGE_EXTERNAL]);
	printf("Run profile: %" PRIu64 " cycles in %zu steps\n", run->cycles, run->n_steps);
	printf("GlobalExchange steps: %zu\n", global);
	printf("External syncs: %zu\n", ext_sync);
	printf("Internal exchanges: %zu, internal syncs: %zu, host exchanges: %zu\n", internal,
	       int_sync, host);
}

/* Builds, trains and checks the model; exits 0, 1 or 2 (see the top). */
int main(int argc, char **argv)
{
	tsi_ipu_model_options model = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *device = NULL;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	tsi_program *train;
	pipeline_data h;
	double *ref_loss;
	unsigned steps, tiles_per_ipu;

	ex_init(PROGRAM);
	parse_args(argc, argv, &steps, &tiles_per_ipu);
	memset(&h, 0, sizeof(h));
	pipeline_make_data(&h, steps);
	ref_loss = malloc((size_t)steps * PIPELINE_REPLICAS * sizeof(*ref_loss));
	if (!ref_loss)
		ex_fail("allocating host data", "out of memory");

	model.num_ipus = PIPELINE_NUM_IPUS;
	model.tiles_per_ipu = tiles_per_ipu;
	if (tsi_device_new_ipu_model(&device, &model) != TSI_OK)
		ex_fail("creating the IPU Model device", tsi_error_last());
	if (tsi_graph_new(&graph, tsi_device_get_target(device), PIPELINE_REPLICAS) != TSI_OK)
		ex_fail("creating the graph", tsi_error_last());
	printf("MLP %u-%u-%u on %u IPUs of %u tiles: %u replicas of a 2-stage pipeline, "
	       "batches of %u per replica, %u steps\n",
	       PIPELINE_IN, PIPELINE_HIDDEN, PIPELINE_CLASSES, PIPELINE_NUM_IPUS,
	       tsi_device_get_target(device)->tiles_per_ipu, PIPELINE_REPLICAS, PIPELINE_BATCH, steps);
	train = pipeline_build(graph, steps);
	ex_must(graph, train, "building the model");

	if (tsi_engine_new(&engine, graph, &train, 1, NULL) != TSI_OK)
		ex_fail("creating the engine", tsi_error_last());
	ex_must_engine(engine, tsi_engine_load(engine, device), "loading the engine");
	pipeline_connect(engine, &h);
	ex_must_engine(engine, tsi_engine_run(engine, 0), "training");

	pipeline_host_train(&h, ref_loss);
	for (unsigned s = 0; s < steps; s++) {
		printf("Step %u:", s + 1);
		for (unsigned r = 0; r < PIPELINE_REPLICAS; r++) {
			double got = h.loss[r][s] / PIPELINE_BATCH;
			double want = ref_loss[s * PIPELINE_REPLICAS + r] / PIPELINE_BATCH;

			printf(" replica %u loss %.4f%s", r, got, r + 1 < PIPELINE_REPLICAS ? "," : "\n");
			if (!(fabs(got - want) <= 1e-4 * fmax(1.0, fabs(want)))) {
				char msg[128];
				snprintf(msg, sizeof(msg), "step %u, replica %u: loss %.6f, the host computed %.6f",
				         s + 1, r, got, want);
				ex_fail("checking the loss", msg);
			}
		}
	}
	check_params(engine, h.params);
	print_profile(engine);

	tsi_engine_free(engine);
	tsi_graph_free(graph);
	tsi_device_free(device);
	pipeline_data_free(&h);
	free(ref_loss);
	return 0;
}
