/*
 * Tutorial 4, profiling output: ((m1 x m2) x m3) with poplin matmuls on
 * the IPU Model (m1 [800, 500], m2 [500, 400], m3 [400, 200] float,
 * streamed in from the host), checked against the host's product, then
 * the profile summary of the guide's Profiling chapter, as the guide's
 * tut4 prints it with engine.printProfileSummary(std::cout,
 * {{"showExecutionSteps", "true"}}): the engine writes its report
 * (autoReport), and reportlib reads it back and prints the summary. The
 * engine is instrumented (debug.instrument) as the tutorial's is, unless
 * --no-instrument is given.
 *
 * The report goes to a temporary directory that is removed at the end,
 * unless POPLAR_ENGINE_OPTIONS asks for autoReport: then it is written
 * (and kept) where Poplar would put it, autoReport.directory or ".".
 *
 * Usage: tut4_profiling [--ipu mk1|mk2|bow] [--no-instrument]
 */
#include "example-util.h"
#include "tut4-model.h"

#include <tilescope/ipu.h>
#include <tilescope/report.h>
#include <tilescope/summary.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROGRAM "tut4_profiling"

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

/*
 * Where the report goes when POPLAR_ENGINE_OPTIONS asks for one (malloc'd),
 * or NULL when the variable does not mention autoReport: the environment
 * wins over the options given in code, so that is where the engine writes
 * it — its autoReport.directory, else ".", Poplar's default. Only a user
 * who asked for no report gets a temporary one, removed at the end.
 */
static char *env_report_directory(void)
{
	const char *text = getenv("POPLAR_ENGINE_OPTIONS");
	cJSON *root, *item;
	char *out = NULL;

	if (!text || !*text)
		return NULL;
	root = cJSON_Parse(text);
	item = cJSON_GetObjectItemCaseSensitive(root, "autoReport.directory");
	if (cJSON_IsString(item) && item->valuestring[0]) {
		out = strdup(item->valuestring);
	} else {
		cJSON_ArrayForEach(item, root) {
			if (item->string && strncmp(item->string, "autoReport.", 11) == 0) {
				out = strdup(".");
				break;
			}
		}
	}
	cJSON_Delete(root);
	return out;
}

/* The temporary report directory, removed at exit ("" when none). */
static char tmp_report_dir[PATH_MAX];

/* Removes the temporary report directory and what the engine wrote in it
 * (files only: autoReport makes no subdirectory for one engine); run at
 * exit, so that failures remove it too. */
static void remove_report_dir(void)
{
	const char *dir = tmp_report_dir;
	DIR *d = *dir ? opendir(dir) : NULL;
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
			unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* Opens the report in `dir` and prints its summary with the execution
 * steps, as the guide's tutorial does; exits through ex_fail on failure. */
static void print_summary(const char *dir)
{
	tsr_summary_options opts = TSR_SUMMARY_OPTIONS_INIT;
	tsr_report *report = NULL;
	int rc;

	if (tsr_report_open(&report, dir, NULL) != TSR_OK)
		ex_fail("opening the profile", tsr_last_error());
	opts.show_execution_steps = true;
	printf("\n");
	fflush(stdout);
	rc = tsr_summary_print(stdout, report, &opts);
	if (rc != TSR_OK) {
		char message[600];

		snprintf(message, sizeof(message), "%s", tsr_report_error(report));
		tsr_report_free(report);
		ex_fail("printing the profile summary", message);
	}
	tsr_report_free(report);
}

/* Builds, runs and checks the model and prints the profile summary;
 * exits 0 when the result is right, 1 when not (or on a failure), 2 for
 * bad arguments. */
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
	char *report_dir;
	const char *tmp_base = getenv("TMPDIR");
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
	/* The report the summary is read from: in a temporary directory
	 * unless the environment names one. */
	report_dir = env_report_directory();
	if (!report_dir) {
		snprintf(tmp_report_dir, sizeof(tmp_report_dir), "%s/tut4_profiling.XXXXXX",
		         tmp_base && *tmp_base ? tmp_base : "/tmp");
		if (!mkdtemp(tmp_report_dir))
			ex_fail("creating a directory for the profile", tmp_report_dir);
		atexit(remove_report_dir);
		report_dir = strdup(tmp_report_dir);
		if (!report_dir)
			ex_fail("allocating host buffers", "out of memory");
	}
	ex_must_rc(NULL, tsi_options_set(opts, "autoReport.outputGraphProfile", "true"),
	           "setting autoReport.outputGraphProfile");
	ex_must_rc(NULL, tsi_options_set(opts, "autoReport.outputExecutionProfile", "true"),
	           "setting autoReport.outputExecutionProfile");
	ex_must_rc(NULL, tsi_options_set(opts, "autoReport.directory", report_dir),
	           "setting autoReport.directory");
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

	/* Freeing the engine completes the report (runs not yet streamed). */
	tsi_engine_free(engine);
	print_summary(report_dir);
	free(report_dir);

	tsi_options_free(opts);
	tsi_graph_free(graph);
	tsi_device_free(device);
	free(m1);
	free(m2);
	free(m3);
	free(result);
	return 0;
}
