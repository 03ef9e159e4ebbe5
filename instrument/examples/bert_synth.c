/*
 * bert_synth: a BERT-shaped encoder (bert-model.h) on a 4-IPU Mk2 system
 * of the IPU Model, the large synthetic model the benchmarks profile. It
 * builds the graph, compiles it (printing the graph's size and each
 * phase's time) and, unless --compile-only, runs the forward pass on
 * pseudo-random data and prints a checksum; --check compares the output
 * with the same pass computed on the host (the default for --size small).
 *
 * Run it with POPLAR_ENGINE_OPTIONS='{"autoReport.all":"true"}' to get its
 * profile.pop, as with any model.
 */
#include "bert-model.h"
#include "example-util.h"

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROGRAM "bert_synth"
#define ARGS                                                                                   \
	"[--size small|large] [--layers N] [--hidden N] [--heads N] [--ffn N] [--seq N]\n"         \
	"       [--batch N] [--vocab N] [--ipus N] [--ipu mk2|bow] [--compile-only]\n"             \
	"       [--runs N] [--seed N] [--check | --no-check]"

/*
 * The presets. Large is issue 8's model: on 4 x 1,472 Mk2 tiles it has
 * 20,375 compute sets (>= 20,000), 1.68 M vertices (>= 1 M), 137,217
 * variables (>= 100,000) and 69,121 steps per run (>= 50,000). Control
 * code is charged where it runs (a pipeline stage's programs on its own
 * IPU), so it is not near a ceiling: --layers 20 (2.58 M vertices) still
 * fits every tile, and tests/bench/run.sh builds, runs and checks it.
 * Small runs in a fraction of a second for the tests, over two IPUs so
 * that the inter-IPU copy is exercised.
 */
static const bert_config large = {13, 128, 16, 256, 32, 8, 4, 1024};
static const bert_config small = {2, 32, 2, 64, 8, 2, 2, 64};

/* Seconds on a monotonic clock, for the phase times. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --help: every option and the exit status, on stdout. */
static void usage(void)
{
	printf("usage: " PROGRAM " " ARGS "\n"
	       "Builds, compiles and runs a BERT-shaped encoder on the IPU Model.\n"
	       "  --size small|large  a preset (default large: %u layers, hidden %u, %u heads,\n"
	       "                      ffn %u, %u sequences of %u tokens, vocabulary %u,\n"
	       "                      %u IPUs); the options below change one size of it\n"
	       "  --layers N          encoder layers\n"
	       "  --hidden N          model width (a multiple of --heads)\n"
	       "  --heads N           attention heads\n"
	       "  --ffn N             feed-forward width\n"
	       "  --seq N             tokens per sequence\n"
	       "  --batch N           sequences\n"
	       "  --vocab N           word embedding rows\n"
	       "  --ipus N            pipeline stages, one IPU each (at most --layers)\n"
	       "  --ipu mk2|bow       the IPU (default mk2, 1,472 tiles)\n"
	       "  --compile-only      compile with connection type NEVER; run nothing\n"
	       "  --runs N            run the program N times (default 1)\n"
	       "  --seed N            the pseudo-random data (default 1)\n"
	       "  --check, --no-check compare the output with the host's forward pass\n"
	       "                      (default: on for small models)\n"
	       "Prints the graph counts and each phase's time (build_s, compile_s, load_s, run_s:\n"
	       "seconds per run; with --runs N > 1 also first_run_s and later_run_s, the\n"
	       "mean of the others), the run's steps and a checksum of the output.\n"
	       "Exit status: 0 success, 1 the output differs from the host's or a\n"
	       "failure, 2 bad arguments.\n",
	       large.layers, large.hidden, large.heads, large.ffn, large.batch, large.seq,
	       large.vocab, large.ipus);
	exit(0);
}

/* The value of option `argv[*i]` ("--x N" or "--x=N"), advancing *i past
 * a separate value; a missing value is a usage error. */
static const char *value_of(int argc, char **argv, int *i, const char *name)
{
	size_t len = strlen(name);
	const char *arg = argv[*i];

	if (arg[len] == '=')
		return arg + len + 1;
	if (*i + 1 >= argc)
		ex_usage_exit(PROGRAM, ARGS, "missing value for", name);
	return argv[++*i];
}

/* A positive count of at most 1 << 20 for option `name`, or a usage error. */
static unsigned parse_count(const char *text, const char *name)
{
	unsigned v;

	if (ex_parse_dim(text, 1u << 20, &v) != 0)
		ex_usage_exit(PROGRAM, ARGS, "needs a positive number:", name);
	return v;
}

/* Parses the options, then builds, compiles and (unless --compile-only)
 * runs the model, printing figures as it goes so that a slow phase shows. */
int main(int argc, char **argv)
{
	bert_config cfg = large;
	tsi_ipu_version ipu = TSI_IPU_MK2;
	bool compile_only = false;
	int check = -1;
	unsigned runs = 1, seed = 1;
	struct {
		const char *name;
		unsigned *field;
	} dims[] = {{"--layers", &cfg.layers}, {"--hidden", &cfg.hidden}, {"--heads", &cfg.heads},
	            {"--ffn", &cfg.ffn},       {"--seq", &cfg.seq},       {"--batch", &cfg.batch},
	            {"--ipus", &cfg.ipus},     {"--vocab", &cfg.vocab}};
	bert_config set = {0};
	unsigned *set_fields[] = {&set.layers, &set.hidden, &set.heads, &set.ffn,
	                          &set.seq,    &set.batch,  &set.ipus,  &set.vocab};

	ex_init(PROGRAM);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		bool matched = false;

		if (ex_is_help(arg))
			usage();
		for (size_t k = 0; k < sizeof(dims) / sizeof(dims[0]); k++) {
			size_t len = strlen(dims[k].name);
			if (strncmp(arg, dims[k].name, len) == 0 && (arg[len] == '\0' || arg[len] == '=')) {
				*set_fields[k] = parse_count(value_of(argc, argv, &i, dims[k].name),
				                             dims[k].name);
				matched = true;
			}
		}
		if (matched)
			continue;
		if (strncmp(arg, "--size", 6) == 0 && (arg[6] == '\0' || arg[6] == '=')) {
			const char *v = value_of(argc, argv, &i, "--size");
			if (strcmp(v, "small") == 0)
				cfg = small;
			else if (strcmp(v, "large") == 0)
				cfg = large;
			else
				ex_usage_exit(PROGRAM, ARGS, "--size wants small or large, not", v);
		} else if (strncmp(arg, "--ipu", 5) == 0 && (arg[5] == '\0' || arg[5] == '=')) {
			const char *v = value_of(argc, argv, &i, "--ipu");
			if (ex_parse_ipu(v, &ipu) != 0 || ipu == TSI_IPU_MK1)
				ex_usage_exit(PROGRAM, ARGS, "--ipu wants mk2 or bow, not", v);
		} else if (strncmp(arg, "--runs", 6) == 0 && (arg[6] == '\0' || arg[6] == '=')) {
			runs = parse_count(value_of(argc, argv, &i, "--runs"), "--runs");
		} else if (strncmp(arg, "--seed", 6) == 0 && (arg[6] == '\0' || arg[6] == '=')) {
			seed = parse_count(value_of(argc, argv, &i, "--seed"), "--seed");
		} else if (strcmp(arg, "--compile-only") == 0) {
			compile_only = true;
		} else if (strcmp(arg, "--check") == 0) {
			check = 1;
		} else if (strcmp(arg, "--no-check") == 0) {
			check = 0;
		} else {
			ex_usage_exit(PROGRAM, ARGS, "unknown argument", arg);
		}
	}
	/* Sizes given one by one override the preset's. */
	for (size_t k = 0; k < sizeof(dims) / sizeof(dims[0]); k++)
		if (*set_fields[k])
			*dims[k].field = *set_fields[k];
	const char *problem = bert_config_check(&cfg);
	if (problem)
		ex_usage_exit(PROGRAM, ARGS, problem, NULL);
	if (check < 0)
		check = cfg.layers * (uint64_t)cfg.hidden * cfg.hidden * cfg.batch * cfg.seq <= 50000000;
	if (compile_only)
		check = 0;

	tsi_ipu_model_options mo = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *device = NULL;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	mo.ipu_version = ipu;
	mo.num_ipus = cfg.ipus;
	mo.connection = compile_only ? TSI_CONNECT_NEVER : TSI_CONNECT_ALWAYS;
	if (tsi_device_new_ipu_model(&device, &mo) != TSI_OK)
		ex_fail("creating the device", tsi_error_last());
	const tsi_target *target = tsi_device_get_target(device);
	printf(PROGRAM ": %u layers, hidden %u, %u heads, ffn %u, %u sequences of %u tokens, "
	       "vocabulary %u, on %u IPUs x %u tiles\n",
	       cfg.layers, cfg.hidden, cfg.heads, cfg.ffn, cfg.batch, cfg.seq, cfg.vocab, cfg.ipus,
	       target->tiles_per_ipu);
	fflush(stdout);

	double t0 = now();
	if (tsi_graph_new(&graph, target, 1) != TSI_OK)
		ex_fail("creating the graph", tsi_error_last());
	tsi_program *prog = bert_model_build(graph, &cfg);
	double t1 = now();
	printf("build_s %.3f\n", t1 - t0);
	fflush(stdout);
	if (tsi_engine_new(&engine, graph, &prog, 1, NULL) != TSI_OK)
		ex_fail("compiling", tsi_error_last());
	double t2 = now();
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(engine);
	printf("compile_s %.3f\n", t2 - t1);
	printf("counts.compute_sets %llu\ncounts.vertices %llu\ncounts.variables %llu\n"
	       "counts.edges %llu\n",
	       (unsigned long long)gp->num_compute_sets, (unsigned long long)gp->num_vertices,
	       (unsigned long long)gp->num_vars, (unsigned long long)gp->num_edges);
	fflush(stdout);

	int status = 0;
	if (!compile_only) {
		bert_host host;
		if (bert_host_new(&host, &cfg, seed) != 0)
			ex_fail("making the data", "out of memory");
		double load0 = now();
		ex_must_engine(engine, tsi_engine_load(engine, device), "loading");
		printf("load_s %.3f\n", now() - load0);
		bert_host_write(&host, engine);
		double t3 = now(), first_end = t3;
		for (unsigned r = 0; r < runs; r++) {
			ex_must_engine(engine, tsi_engine_run(engine, 0), "running");
			if (r == 0)
				first_end = now();
		}
		double t4 = now();
		ex_must_engine(engine, tsi_engine_read_tensor(engine, "output", host.output,
		                                              host.n_output * sizeof(float)),
		               "reading the output");
		printf("run_s %.3f\n", (t4 - t3) / runs);
		/* The first run builds the engine's plans; later runs reuse them. */
		if (runs > 1)
			printf("first_run_s %.3f\nlater_run_s %.3f\n", first_end - t3,
			       (t4 - first_end) / (runs - 1));
		if (tsi_engine_num_run_profiles(engine))
			printf("counts.steps %zu\n", tsi_engine_get_run_profile(engine, 0)->n_steps);
		double sum = 0.0;
		for (size_t i = 0; i < host.n_output; i++)
			sum += fabs((double)host.output[i]);
		printf("checksum %.6f\n", sum);
		if (check) {
			float *ref = malloc(host.n_output * sizeof(float));
			double worst = 0.0;
			if (!ref || bert_model_reference(&cfg, &host, cfg.layers, ref) != 0)
				ex_fail("the host reference", "out of memory");
			for (size_t i = 0; i < host.n_output; i++)
				worst = fmax(worst, fabs((double)host.output[i] - (double)ref[i]));
			/* Layer norm keeps values near 1: an absolute tolerance suits. */
			printf("reference: max |device - host| = %.3g over %zu values: %s\n", worst,
			       host.n_output, worst <= 1e-3 ? "OK" : "MISMATCH");
			status = worst <= 1e-3 ? 0 : 1;
			free(ref);
		}
		bert_host_free(&host);
	}
	tsi_engine_free(engine);
	tsi_graph_free(graph);
	tsi_device_free(device);
	return status;
}
