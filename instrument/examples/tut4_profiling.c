/*
 * Tutorial 4, profiling output: ((m1 x m2) x m3) with poplin matmuls on
 * the IPU Model (m1 [800, 500], m2 [500, 400], m3 [400, 200] float,
 * streamed in from the host), checked against the host's product, then a
 * short overview of the profile read through the profile API: memory
 * (total with gaps, the fullest tile, always-live and peak live bytes)
 * and execution (total cycles, tile cycles by kind of step, the longest
 * steps). The engine is instrumented (debug.instrument) as the tutorial's
 * is, unless --no-instrument is given.
 *
 * The full summary of the guide's Profiling chapter (printProfileSummary)
 * comes with the reportlib formatter; until then this overview answers
 * the tutorial's questions: how much memory is used, how long the
 * computation took, which steps belong to which matmul, and how much time
 * the exchanges take.
 *
 * Usage: tut4_profiling [--ipu mk1|mk2|bow] [--no-instrument]
 */
#include "example-util.h"
#include "tut4-model.h"

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRAM "tut4_profiling"
/* Steps listed by the overview, longest first. */
#define LONGEST_STEPS 5

/* Usage: with `problem` NULL (--help) prints it and exits 0, else says
 * what is wrong on stderr and exits 2 (ex_usage_exit). */
static _Noreturn void usage_exit(const char *problem, const char *arg)
{
	ex_usage_exit(PROGRAM, "[--ipu mk1|mk2|bow] [--no-instrument]", problem, arg);
}

/* Parses the command line; anything wrong ends through usage_exit. */
static void parse_args(int argc, char **argv, tsi_ipu_version *version, bool *instrument)
{
	*version = TSI_IPU_MK2;
	*instrument = true;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (ex_is_help(arg))
			usage_exit(NULL, NULL);
		const char *value;

		if (!strcmp(arg, "--no-instrument")) {
			*instrument = false;
			continue;
		}
		if (strncmp(arg, "--ipu", 5) != 0 || (arg[5] != '\0' && arg[5] != '='))
			usage_exit("unknown argument", arg);
		if (arg[5] == '=')
			value = arg + 6;
		else if (i + 1 < argc)
			value = argv[++i];
		else
			usage_exit("--ipu needs a value", NULL);
		if (ex_parse_ipu(value, version) != 0)
			usage_exit("--ipu wants mk1, mk2 or bow, not", value);
	}
}

/* `part` as a percentage of `whole` (0 when whole is 0). */
static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/*
 * Memory: the sum over tiles of the memory used including gaps, the
 * fullest tile, the always-live bytes and the peak of live bytes (the
 * always-live ones plus the largest not-always-live total of any
 * liveness step).
 */
static void print_memory(const tsi_graph_profile *gp)
{
	const tsi_target *t = &gp->target;
	uint64_t total = 0, total_gaps = 0, max = 0, peak_nal = 0;
	uint32_t max_tile = 0;
	size_t peak_step = 0;

	for (uint32_t tile = 0; tile < t->num_tiles; tile++) {
		const tsi_tile_memory *tm = &gp->by_tile[tile];

		total += tm->total;
		total_gaps += tm->total_including_gaps;
		if (tm->total_including_gaps > max) {
			max = tm->total_including_gaps;
			max_tile = tile;
		}
	}
	for (size_t s = 0; s < gp->n_liveness; s++) {
		if (gp->liveness[s].not_always_live_bytes > peak_nal) {
			peak_nal = gp->liveness[s].not_always_live_bytes;
			peak_step = s;
		}
	}
	printf("Memory\n");
	printf("  Total memory used, including gaps: %" PRIu64 " bytes (%.1f%% of %" PRIu64 ")\n",
	       total_gaps, percent(total_gaps, t->bytes_per_tile * t->num_tiles),
	       t->bytes_per_tile * t->num_tiles);
	printf("  Total memory used, excluding gaps: %" PRIu64 " bytes\n", total);
	printf("  Max tile memory, including gaps: %" PRIu64 " bytes on tile %" PRIu32
	       " (%.1f%% of %" PRIu64 ")\n",
	       max, max_tile, percent(max, t->bytes_per_tile), t->bytes_per_tile);
	printf("  Always-live bytes: %" PRIu64 "\n", gp->always_live_bytes);
	printf("  Peak live bytes: %" PRIu64 " (always-live + %" PRIu64
	       " not-always-live at liveness step %zu of %zu)\n",
	       gp->always_live_bytes + peak_nal, peak_nal, peak_step, gp->n_liveness);
	if (gp->n_oom_tiles)
		printf("  Out of memory: %zu tiles\n", gp->n_oom_tiles);
}

/* The name the overview gives a step: its lowered program's name, and
 * for a compute step the compute set's. */
static void step_name(const tsi_graph_profile *gp, const tsi_step *st, char *buf, size_t size)
{
	const char *prog = st->program < gp->n_programs ? gp->programs[st->program].name : NULL;

	if (st->type == TSI_STEP_ON_TILE_EXECUTE && st->compute_set >= 0 &&
	    (size_t)st->compute_set < gp->n_compute_sets)
		snprintf(buf, size, "%s", gp->compute_sets[st->compute_set].name);
	else if (st->type == TSI_STEP_SYNC)
		snprintf(buf, size, "%s sync before %s",
		         st->sync_type == TSI_SYNC_INTERNAL ? "internal" : "external",
		         prog ? prog : "(unnamed)");
	else
		snprintf(buf, size, "%s", prog ? prog : "(unnamed)");
}

/*
 * Execution: the run's cycles, the tile cycles of each kind of step
 * (summed over tiles, so the shares are of the tiles' time) and the
 * longest steps. A selection of LONGEST_STEPS indexes, longest first,
 * earlier first on ties.
 */
static void print_execution(const tsi_graph_profile *gp, const tsi_run_profile *run)
{
	const tsi_tile_cycles *tc = &run->tile_cycles;
	uint64_t exchange = tc->do_exchange + tc->global_exchange;
	uint64_t all = tc->compute + exchange + tc->stream_copy + tc->sync + tc->copy_shared_structure;
	size_t best[LONGEST_STEPS], n_best = 0;

	printf("Execution\n");
	printf("  Total cycles: %" PRIu64 " (%.1f us at %.2f GHz), %zu steps\n", run->cycles,
	       (double)run->cycles / ((double)gp->target.clock_hz / 1e6),
	       (double)gp->target.clock_hz / 1e9, run->n_steps);
	printf("  Tile cycles by step kind (summed over tiles):\n");
	printf("    compute:       %15" PRIu64 " (%5.1f%%), of which active %" PRIu64 "\n",
	       tc->compute, percent(tc->compute, all), tc->active_compute);
	printf("    exchange:      %15" PRIu64 " (%5.1f%%)\n", exchange, percent(exchange, all));
	printf("    sync:          %15" PRIu64 " (%5.1f%%)\n", tc->sync, percent(tc->sync, all));
	printf("    host exchange: %15" PRIu64 " (%5.1f%%)\n", tc->stream_copy,
	       percent(tc->stream_copy, all));

	for (size_t i = 0; i < run->n_steps; i++) {
		size_t j = n_best < LONGEST_STEPS ? n_best++ : LONGEST_STEPS;

		while (j > 0 && run->steps[best[j - 1]].cycles < run->steps[i].cycles) {
			if (j < LONGEST_STEPS)
				best[j] = best[j - 1];
			j--;
		}
		if (j < LONGEST_STEPS)
			best[j] = i;
	}
	printf("  Longest steps:\n");
	for (size_t i = 0; i < n_best; i++) {
		const tsi_step *st = &run->steps[best[i]];
		char name[256];

		step_name(gp, st, name, sizeof(name));
		printf("    %zu. %-13s %-40s %9" PRIu64 " cycles (%.1f%%)\n", i + 1,
		       tsi_step_type_name(st->type), name, st->cycles, percent(st->cycles, run->cycles));
	}
}

/* Builds, runs and checks the model and prints the overview; exits 0
 * when the result is right, 1 when not (or on a failure), 2 for bad
 * arguments. */
int main(int argc, char **argv)
{
	tsi_ipu_model_options model = TSI_IPU_MODEL_OPTIONS_INIT;
	const tut4_sizes sizes = TUT4_SIZES_DEFAULT;
	tsi_device *device = NULL;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	tsi_options *opts = NULL;
	tut4_model m;
	float *m1, *m2, *m3, *result;
	const tsi_target *target;
	const tsi_run_profile *run;
	double expected = 0.0;
	bool instrument;
	long bad;

	ex_init(PROGRAM);
	parse_args(argc, argv, &model.ipu_version, &instrument);

	m1 = malloc(sizes.m * sizes.k * sizeof(*m1));
	m2 = malloc(sizes.k * sizes.n * sizeof(*m2));
	m3 = malloc(sizes.n * sizes.p * sizeof(*m3));
	result = calloc(sizes.m * sizes.p, sizeof(*result));
	opts = tsi_options_new();
	if (!m1 || !m2 || !m3 || !result || !opts)
		ex_fail("allocating host buffers", "out of memory");
	tut4_fill_inputs(&sizes, m1, m2, m3);

	if (tsi_device_new_ipu_model(&device, &model) != TSI_OK)
		ex_fail("creating the IPU Model device", tsi_error_last());
	target = tsi_device_get_target(device);
	printf("Multiplying ((m1 [%zux%zu] x m2 [%zux%zu]) x m3 [%zux%zu]) on %s (%u tiles)\n",
	       sizes.m, sizes.k, sizes.k, sizes.n, sizes.n, sizes.p, target->name, target->num_tiles);
	if (tsi_graph_new(&graph, target, 1) != TSI_OK)
		ex_fail("creating the graph", tsi_error_last());
	ex_must_rc(graph, tut4_model_build(&m, graph, &sizes), "building the model");

	if (instrument)
		ex_must_rc(NULL, tsi_options_set(opts, "debug.instrument", "true"),
		           "setting debug.instrument");
	if (tsi_engine_new(&engine, graph, &m.prog, 1, opts) != TSI_OK)
		ex_fail("creating the engine", tsi_error_last());
	ex_must_engine(engine, tsi_engine_load(engine, device), "loading the engine");
	ex_must_engine(engine, tut4_model_connect(engine, &m, m1, m2, m3, result),
	               "connecting the streams");
	ex_must_engine(engine, tsi_engine_run(engine, 0), "running the program");

	bad = tut4_check_result(&sizes, m1, m2, m3, result, &expected);
	if (bad >= 0) {
		printf("ERROR: m5[%ld][%ld]: expected=%g, actual=%g\n", bad / (long)sizes.p,
		       bad % (long)sizes.p, expected, (double)result[bad]);
		return 1;
	}
	printf("Result OK: m5 [%zux%zu] matches the host's product\n", sizes.m, sizes.p);

	run = tsi_engine_num_run_profiles(engine) ? tsi_engine_get_run_profile(engine, 0) : NULL;
	if (!run)
		ex_fail("reading the execution profile", "the run was not recorded");
	printf("\nProfile overview%s:\n", instrument ? " (instrumented)" : "");
	print_memory(tsi_engine_get_graph_profile(engine));
	print_execution(tsi_engine_get_graph_profile(engine), run);

	tsi_engine_free(engine);
	tsi_options_free(opts);
	tsi_graph_free(graph);
	tsi_device_free(device);
	free(m1);
	free(m2);
	free(m3);
	free(result);
	return 0;
}
