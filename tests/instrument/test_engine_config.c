/*
 * The engine configuration (white-box: tsi_engine_config_resolve): options
 * from code merged with POPLAR_ENGINE_OPTIONS, the environment winning;
 * JSON values of every kind; invalid JSON quoted where it broke; unknown
 * names and bad values from either source; autoReport.all against one
 * output set to false; defaults (run count, directory, streaming);
 * POPLAR_GRAPH_REPORT_DEST; unmodelled options logged once. Each test sets
 * the variables it needs and the fixture puts the caller's back.
 */
#include "test-util.h"

#if __has_include("autoreport/autoreport-private.h")

#include "autoreport/autoreport-private.h"

#include <stdlib.h>
#include <string.h>

/* The variables these tests change, saved by setup and restored by teardown. */
static const char *const touched_vars[] = {"POPLAR_ENGINE_OPTIONS", "POPLAR_GRAPH_REPORT_DEST",
                                           "POPLAR_LOG_DEST", "POPLAR_LOG_LEVEL"};
#define N_TOUCHED (sizeof(touched_vars) / sizeof(touched_vars[0]))

typedef struct cfg_fixture {
	char *saved[N_TOUCHED]; /* the caller's values, NULL when unset */
	tsi_options *code;      /* options "given in code" */
	tsi_options *effective; /* from the last resolve, or NULL */
	tsi_engine_config cfg;
} cfg_fixture;

static int setup(void **state)
{
	cfg_fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	for (size_t i = 0; i < N_TOUCHED; i++) {
		const char *v = getenv(touched_vars[i]);

		fx->saved[i] = v ? strdup(v) : NULL;
		unsetenv(touched_vars[i]);
	}
	fx->code = tsi_options_new();
	assert_non_null(fx->code);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	cfg_fixture *fx = *state;

	for (size_t i = 0; i < N_TOUCHED; i++) {
		if (fx->saved[i])
			setenv(touched_vars[i], fx->saved[i], 1);
		else
			unsetenv(touched_vars[i]);
		free(fx->saved[i]);
	}
	tsi_log_reconfigure();
	tsi_engine_config_clear(&fx->cfg);
	tsi_options_free(fx->effective);
	tsi_options_free(fx->code);
	free(fx);
	return 0;
}

/* Resolves the fixture's code options (NULL when `no_code`) with the
 * environment as it is; returns the code and checks the failure contract. */
static int resolve_opts(cfg_fixture *fx, bool no_code)
{
	int rc;

	tsi_engine_config_clear(&fx->cfg);
	tsi_options_free(fx->effective);
	fx->effective = (tsi_options *)&fx->effective; /* must be reset */
	memset(&fx->cfg, 0xA5, sizeof(fx->cfg));       /* must be overwritten */
	rc = tsi_engine_config_resolve(&fx->cfg, &fx->effective, no_code ? NULL : fx->code);
	if (rc != TSI_OK) {
		tsi_engine_config cleared;

		memset(&cleared, 0, sizeof(cleared));
		assert_null(fx->effective);
		assert_memory_equal(&fx->cfg, &cleared, sizeof(cleared));
	} else {
		assert_non_null(fx->effective);
	}
	return rc;
}

static int resolve(cfg_fixture *fx)
{
	return resolve_opts(fx, false);
}

/* Resolves with POPLAR_ENGINE_OPTIONS set to `json`. */
static int resolve_env(cfg_fixture *fx, const char *json)
{
	setenv("POPLAR_ENGINE_OPTIONS", json, 1);
	return resolve(fx);
}

/* Fails unless the last error contains `needle`. */
static void assert_error_has(const char *needle)
{
	const char *msg = tsi_error_last();

	if (!strstr(msg, needle)) {
		print_error("error message \"%s\" lacks \"%s\"\n", msg, needle);
		fail();
	}
}

/* No options anywhere: Poplar's defaults, and an empty effective set. */
static void test_defaults(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(resolve_opts(fx, true), TSI_OK);
	assert_int_equal(tsi_options_count(fx->effective), 0);
	assert_false(fx->cfg.report_graph);
	assert_false(fx->cfg.report_execution);
	assert_false(fx->cfg.report_debug_info);
	assert_false(fx->cfg.report_lowered_vars);
	assert_false(fx->cfg.report_archive);
	assert_false(tsi_engine_config_wants_report(&fx->cfg));
	assert_true(fx->cfg.stream_at_each_run);
	assert_null(fx->cfg.report_directory);
	assert_int_equal(fx->cfg.run_count, 2);
	assert_false(fx->cfg.include_flops);
	assert_false(fx->cfg.include_cycles);
	assert_int_equal(fx->cfg.replica_to_profile, 0);
	assert_true(fx->cfg.retain_debug_info);
	assert_null(fx->cfg.graph_report_dest);

	/* An empty or blank variable is unset, not invalid JSON. */
	assert_int_equal(resolve_env(fx, ""), TSI_OK);
	assert_int_equal(tsi_options_count(fx->effective), 0);
	assert_int_equal(resolve_env(fx, " \n\t "), TSI_OK);
	assert_int_equal(fx->cfg.run_count, 2);
	assert_false(fx->cfg.report_graph);
}

/* Options given in code fill the configuration and the effective set. */
static void test_code_options(void **state)
{
	cfg_fixture *fx = *state;
	const char *name = NULL, *value = NULL;

	assert_int_equal(tsi_options_set(fx->code, "autoReport.outputGraphProfile", "TRUE"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "autoReport.directory", "/tmp/reports"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "profiler.includeFlopEstimates", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "profiler.includeCycleEstimates", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "profiler.replicaToProfile", "3"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "autoReport.streamAtEachRun", "false"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "debug.retainDebugInformation", "false"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "debug.instrument", "true"), TSI_OK);
	assert_int_equal(resolve(fx), TSI_OK);

	assert_true(fx->cfg.report_graph);
	assert_false(fx->cfg.report_execution);
	assert_false(fx->cfg.report_debug_info);
	assert_true(tsi_engine_config_wants_report(&fx->cfg));
	assert_string_equal(fx->cfg.report_directory, "/tmp/reports");
	assert_true(fx->cfg.include_flops);
	assert_true(fx->cfg.include_cycles);
	assert_int_equal(fx->cfg.replica_to_profile, 3);
	assert_false(fx->cfg.stream_at_each_run);
	assert_false(fx->cfg.retain_debug_info);

	/* The compiler reads the instrumentation options from the effective set. */
	assert_int_equal(tsi_options_count(fx->effective), 8);
	assert_int_equal(tsi_options_at(&name, &value, fx->effective, 0), TSI_OK);
	assert_string_equal(name, "autoReport.outputGraphProfile");
	assert_string_equal(value, "TRUE");
	assert_string_equal(tsi_options_lookup(fx->effective, "debug.instrument"), "true");
}

/* autoReport.all turns every output on; one set to false stays off, in
 * whichever order the two come, and from either source. */
static void test_all_with_one_false(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(tsi_options_set(fx->code, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(resolve(fx), TSI_OK);
	assert_true(fx->cfg.report_graph && fx->cfg.report_execution && fx->cfg.report_debug_info &&
	            fx->cfg.report_lowered_vars && fx->cfg.report_archive);

	assert_int_equal(tsi_options_set(fx->code, "autoReport.outputExecutionProfile", "false"),
	                 TSI_OK);
	assert_int_equal(resolve(fx), TSI_OK);
	assert_true(fx->cfg.report_graph);
	assert_false(fx->cfg.report_execution);
	assert_true(fx->cfg.report_debug_info);
	assert_true(fx->cfg.report_lowered_vars);
	assert_true(fx->cfg.report_archive);

	/* The false first, then all: the same answer. */
	tsi_options_free(fx->code);
	fx->code = tsi_options_new();
	assert_int_equal(tsi_options_set(fx->code, "autoReport.outputDebugInfo", "false"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(resolve(fx), TSI_OK);
	assert_true(fx->cfg.report_graph);
	assert_true(fx->cfg.report_execution);
	assert_false(fx->cfg.report_debug_info);

	/* all in the environment, the false in code. */
	tsi_options_free(fx->code);
	fx->code = tsi_options_new();
	assert_int_equal(tsi_options_set(fx->code, "autoReport.outputGraphProfile", "false"), TSI_OK);
	assert_int_equal(resolve_env(fx, "{\"autoReport.all\": \"true\"}"), TSI_OK);
	assert_false(fx->cfg.report_graph);
	assert_true(fx->cfg.report_execution);

	/* all=false with one output on: only that one. */
	assert_int_equal(resolve_env(fx, "{\"autoReport.all\": false, "
	                                 "\"autoReport.outputGraphProfile\": true}"),
	                 TSI_OK);
	assert_true(fx->cfg.report_graph);
	assert_false(fx->cfg.report_execution);
	assert_false(fx->cfg.report_lowered_vars);
}

/* executionProfileProgramRunCount: 2 unless set; decimal, hex or a JSON
 * number; 63-bit values kept exactly. */
static void test_run_count(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(resolve(fx), TSI_OK);
	assert_int_equal(fx->cfg.run_count, 2);
	assert_int_equal(tsi_options_set(fx->code, "autoReport.executionProfileProgramRunCount", "7"),
	                 TSI_OK);
	assert_int_equal(resolve(fx), TSI_OK);
	assert_int_equal(fx->cfg.run_count, 7);
	assert_int_equal(
	    tsi_options_set(fx->code, "autoReport.executionProfileProgramRunCount", "0x10"), TSI_OK);
	assert_int_equal(resolve(fx), TSI_OK);
	assert_int_equal(fx->cfg.run_count, 16);
	assert_int_equal(tsi_options_set(fx->code, "autoReport.executionProfileProgramRunCount", "0"),
	                 TSI_OK);
	assert_int_equal(resolve(fx), TSI_OK);
	assert_int_equal(fx->cfg.run_count, 0);

	/* 2^53 + 1 has no double: it must come from the JSON text. */
	assert_int_equal(
	    resolve_env(fx, "{\"autoReport.executionProfileProgramRunCount\": 9007199254740993}"),
	    TSI_OK);
	assert_true(fx->cfg.run_count == UINT64_C(9007199254740993));
	assert_string_equal(
	    tsi_options_lookup(fx->effective, "autoReport.executionProfileProgramRunCount"),
	    "9007199254740993");

	/* The source scan survives escapes, delimiters inside strings and
	 * whitespace that cJSON allows (any byte up to space). */
	assert_int_equal(resolve_env(fx, "{\"autoReport.direc\\u0074ory\": \"a,\\\"b}c:\", "
	                                 "\"debug.instrument\":true,\f\"autoReport."
	                                 "executionProfileProgramRunCount\":\v9007199254740995\f}"),
	                 TSI_OK);
	assert_string_equal(fx->cfg.report_directory, "a,\"b}c:");
	assert_true(fx->cfg.run_count == UINT64_C(9007199254740995));
}

/* autoReport.directory: NULL (the working directory) unless set; empty is unset. */
static void test_directory(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(resolve(fx), TSI_OK);
	assert_null(fx->cfg.report_directory);
	assert_int_equal(tsi_options_set(fx->code, "autoReport.directory", ""), TSI_OK);
	assert_int_equal(resolve(fx), TSI_OK);
	assert_null(fx->cfg.report_directory);
	assert_int_equal(resolve_env(fx, "{\"autoReport.directory\": \"./graph_profile\"}"), TSI_OK);
	assert_string_equal(fx->cfg.report_directory, "./graph_profile");
}

/* The ALCF guide's command line works as written. */
static void test_env_valid(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(resolve_env(fx, "{\"autoReport.all\":\"true\", "
	                                 "\"autoReport.directory\":\"./graph_profile\", "
	                                 "\"profiler.includeFlopEstimates\": \"true\"}"),
	                 TSI_OK);
	assert_true(fx->cfg.report_graph);
	assert_true(fx->cfg.report_execution);
	assert_true(fx->cfg.include_flops);
	assert_string_equal(fx->cfg.report_directory, "./graph_profile");
	assert_int_equal(tsi_options_count(fx->effective), 3);

	/* A name given twice keeps its last value, as a JSON reader would. */
	assert_int_equal(resolve_env(fx, "{\"autoReport.all\":\"true\",\"autoReport.all\":\"false\"}"),
	                 TSI_OK);
	assert_false(fx->cfg.report_graph);
	assert_int_equal(tsi_options_count(fx->effective), 1);
}

/* The environment wins over code, name by name; the effective set keeps
 * code order first, then new names from the environment. */
static void test_env_over_code(void **state)
{
	cfg_fixture *fx = *state;
	const char *name = NULL, *value = NULL;

	assert_int_equal(tsi_options_set(fx->code, "autoReport.directory", "from-code"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "debug.instrument", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "autoReport.outputGraphProfile", "true"), TSI_OK);
	assert_int_equal(resolve_env(fx, "{\"autoReport.directory\":\"from-env\", "
	                                 "\"autoReport.outputGraphProfile\": false, "
	                                 "\"autoReport.outputDebugInfo\": true}"),
	                 TSI_OK);
	assert_string_equal(fx->cfg.report_directory, "from-env");
	assert_false(fx->cfg.report_graph);
	assert_true(fx->cfg.report_debug_info);
	assert_int_equal(tsi_options_count(fx->effective), 4);
	assert_int_equal(tsi_options_at(&name, &value, fx->effective, 0), TSI_OK);
	assert_string_equal(name, "autoReport.directory");
	assert_string_equal(value, "from-env");
	assert_int_equal(tsi_options_at(&name, &value, fx->effective, 1), TSI_OK);
	assert_string_equal(name, "debug.instrument");
	assert_string_equal(value, "true");
	assert_int_equal(tsi_options_at(&name, &value, fx->effective, 3), TSI_OK);
	assert_string_equal(name, "autoReport.outputDebugInfo");
	assert_string_equal(value, "true");

	/* A bad value in code that the environment replaces is never used. */
	assert_int_equal(tsi_options_set(fx->code, "debug.instrument", "yes"), TSI_OK);
	assert_int_equal(resolve_env(fx, "{\"debug.instrument\":\"false\"}"), TSI_OK);
	assert_string_equal(tsi_options_lookup(fx->effective, "debug.instrument"), "false");
	/* ... and one that it does not replace is refused, without blaming it. */
	assert_int_equal(resolve_env(fx, "{\"autoReport.all\":\"false\"}"), TSI_ERR_BAD_OPTION);
	assert_error_has("engine option 'debug.instrument' has value 'yes'");
	assert_null(strstr(tsi_error_last(), "POPLAR_ENGINE_OPTIONS"));
}

/* true/false and numbers become text; numbers keep the text written. */
static void test_env_non_string_values(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(resolve_env(fx, "{\"autoReport.all\": true, \"debug.instrument\": false, "
	                                 "\"autoReport.executionProfileProgramRunCount\": 3, "
	                                 "\"target.hostSyncTimeout\": 1.5, "
	                                 "\"opt.maxCompilationThreads\":0}"),
	                 TSI_OK);
	assert_string_equal(tsi_options_lookup(fx->effective, "autoReport.all"), "true");
	assert_string_equal(tsi_options_lookup(fx->effective, "debug.instrument"), "false");
	assert_string_equal(
	    tsi_options_lookup(fx->effective, "autoReport.executionProfileProgramRunCount"), "3");
	assert_string_equal(tsi_options_lookup(fx->effective, "target.hostSyncTimeout"), "1.5");
	assert_string_equal(tsi_options_lookup(fx->effective, "opt.maxCompilationThreads"), "0");
	assert_int_equal(fx->cfg.run_count, 3);
	assert_true(fx->cfg.report_graph);

	/* 20 digits: exact in the message, and too large for the option. */
	assert_int_equal(
	    resolve_env(fx, "{\"autoReport.executionProfileProgramRunCount\": 12345678901234567890}"),
	    TSI_ERR_BAD_OPTION);
	assert_error_has("'autoReport.executionProfileProgramRunCount' has value "
	                 "'12345678901234567890'");
	/* A number where a bool goes is named with its text. */
	assert_int_equal(resolve_env(fx, "{\"debug.instrument\": 1}"), TSI_ERR_BAD_OPTION);
	assert_error_has("'debug.instrument' has value '1'; accepted values are true or false");
	assert_int_equal(resolve_env(fx, "{\"opt.maxCompilationThreads\": -2}"), TSI_ERR_BAD_OPTION);
	assert_error_has("'opt.maxCompilationThreads' has value '-2'");
	/* A string that holds a number is a number too. */
	assert_int_equal(resolve_env(fx, "{\"autoReport.executionProfileProgramRunCount\": \"0x20\"}"),
	                 TSI_OK);
	assert_int_equal(fx->cfg.run_count, 32);
}

/* null, arrays and objects are refused, naming the option. */
static void test_env_null_array_object(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(resolve_env(fx, "{\"autoReport.directory\": null}"), TSI_ERR_BAD_OPTION);
	assert_error_has("POPLAR_ENGINE_OPTIONS: option 'autoReport.directory' is null");
	assert_int_equal(resolve_env(fx, "{\"autoReport.all\":\"true\", \"debug.instrument\": [true]}"),
	                 TSI_ERR_BAD_OPTION);
	assert_error_has("option 'debug.instrument' is an array");
	assert_int_equal(resolve_env(fx, "{\"profiler.format\": {\"v\": 3}}"), TSI_ERR_BAD_OPTION);
	assert_error_has("option 'profiler.format' is an object");
	assert_error_has("give a string, a number or true/false");
}

/* Invalid JSON is an error quoting where it broke, with the byte offset. */
static void test_env_invalid_json(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(tsi_options_set(fx->code, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(resolve_env(fx, "{\"autoReport.all\":tru}"), TSI_ERR_BAD_OPTION);
	assert_error_has("POPLAR_ENGINE_OPTIONS is not valid JSON at byte 18: "
	                 "{\"autoReport.all\":<here>tru}");

	/* Single quotes (a shell habit) break at the first one; cJSON stops
	 * one byte into a string it cannot read. */
	assert_int_equal(resolve_env(fx, "{'autoReport.all':'true'}"), TSI_ERR_BAD_OPTION);
	assert_error_has("at byte 2: {'<here>autoReport.all':'true'}");

	/* A long value is cut on both sides, 24 bytes from the break. */
	assert_int_equal(resolve_env(fx, "{\"autoReport.directory\": \"./reports\",\n"
	                                 " \"autoReport.all\": \"true\" \"debug.instrument\": "
	                                 "\"true\", \"autoReport.outputDebugInfo\": \"true\"}"),
	                 TSI_ERR_BAD_OPTION);
	assert_error_has("at byte 64: ...autoReport.all\": \"true\" <here>\"debug.instrument\": "
	                 "\"tru...");

	/* A newline in the quote shows as a space: the message stays one line. */
	assert_int_equal(resolve_env(fx, "{\n\"autoReport.all\":tru}"), TSI_ERR_BAD_OPTION);
	assert_error_has("at byte 19: { \"autoReport.all\":<here>tru}");

	/* The quote is never cut inside a UTF-8 character (2 bytes each here). */
	assert_int_equal(resolve_env(fx, "{\"autoReport.directory\": \"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	                                 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
	                                 "\xc3\xa9\xc3\xa9\"  x}"),
	                 TSI_ERR_BAD_OPTION);
	{
		const char *cut = strstr(tsi_error_last(), ": ...");

		assert_non_null(cut);
		assert_true(((unsigned char)cut[5] & 0xc0) != 0x80);
		assert_error_has("\xc3\xa9\"  <here>x}");
	}

	/* Trailing text after the object, and an unfinished object. */
	assert_int_equal(resolve_env(fx, "{\"autoReport.all\":\"true\"} x"), TSI_ERR_BAD_OPTION);
	assert_error_has("not valid JSON at byte");
	assert_int_equal(resolve_env(fx, "{\"autoReport.all\":\"true\""), TSI_ERR_BAD_OPTION);
	assert_error_has("not valid JSON at byte");
}

/* The top level must be an object. */
static void test_env_not_object(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(resolve_env(fx, "[\"autoReport.all\", \"true\"]"), TSI_ERR_BAD_OPTION);
	assert_error_has("POPLAR_ENGINE_OPTIONS must be a JSON object");
	assert_error_has("it is an array");
	assert_int_equal(resolve_env(fx, "\"autoReport.all\""), TSI_ERR_BAD_OPTION);
	assert_error_has("it is a string");
	assert_int_equal(resolve_env(fx, "true"), TSI_ERR_BAD_OPTION);
	assert_error_has("it is true or false");
}

/* An unknown name in the environment is named with the nearest known one. */
static void test_env_unknown_name(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(resolve_env(fx, "{\"autoReport.outputGraphProfil\":\"true\"}"),
	                 TSI_ERR_BAD_OPTION);
	assert_error_has("POPLAR_ENGINE_OPTIONS: unknown engine option 'autoReport.outputGraphProfil'; "
	                 "did you mean 'autoReport.outputGraphProfile'?");
	assert_int_equal(resolve_env(fx, "{\"\": \"true\"}"), TSI_ERR_BAD_OPTION);
	assert_error_has("unknown engine option ''");
}

/* A bad value in the environment names the option and what it accepts. */
static void test_env_bad_value(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(resolve_env(fx, "{\"debug.computeInstrumentationLevel\":\"core\"}"),
	                 TSI_ERR_BAD_OPTION);
	assert_error_has("POPLAR_ENGINE_OPTIONS: engine option 'debug.computeInstrumentationLevel' "
	                 "has value 'core'; accepted values are tile|vertex|device|ipu");
	assert_int_equal(resolve_env(fx, "{\"target.hostSyncTimeout\":\"soon\"}"), TSI_ERR_BAD_OPTION);
	assert_error_has("'target.hostSyncTimeout' has value 'soon'; it accepts seconds");
	assert_int_equal(resolve_env(fx, "{\"streamCallbacks.numWorkerThreads\":\"many\"}"),
	                 TSI_ERR_BAD_OPTION);
	assert_error_has("it accepts a non-negative integer or auto");
	assert_int_equal(resolve_env(fx, "{\"streamCallbacks.numWorkerThreads\":\"auto\"}"), TSI_OK);
}

/* profiler.replicaToProfile must fit an unsigned. */
static void test_replica_to_profile(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(resolve_env(fx, "{\"profiler.replicaToProfile\": 4294967295}"), TSI_OK);
	assert_int_equal(fx->cfg.replica_to_profile, 4294967295u);
	assert_int_equal(resolve_env(fx, "{\"profiler.replicaToProfile\": 4294967296}"),
	                 TSI_ERR_BAD_OPTION);
	assert_error_has("'profiler.replicaToProfile' is 4294967296");
}

/* POPLAR_GRAPH_REPORT_DEST wins over debug.graphReportDestination. */
static void test_graph_report_dest(void **state)
{
	cfg_fixture *fx = *state;

	assert_int_equal(resolve(fx), TSI_OK);
	assert_null(fx->cfg.graph_report_dest);
	assert_int_equal(tsi_options_set(fx->code, "debug.graphReportDestination", "stdout"), TSI_OK);
	assert_int_equal(resolve(fx), TSI_OK);
	assert_string_equal(fx->cfg.graph_report_dest, "stdout");
	setenv("POPLAR_GRAPH_REPORT_DEST", "report.txt", 1);
	assert_int_equal(resolve(fx), TSI_OK);
	assert_string_equal(fx->cfg.graph_report_dest, "report.txt");
	setenv("POPLAR_GRAPH_REPORT_DEST", "", 1);
	assert_int_equal(resolve(fx), TSI_OK);
	assert_string_equal(fx->cfg.graph_report_dest, "stdout");
	assert_int_equal(tsi_options_set(fx->code, "debug.graphReportDestination", ""), TSI_OK);
	setenv("POPLAR_GRAPH_REPORT_DEST", "stderr", 1);
	assert_int_equal(resolve(fx), TSI_OK);
	assert_string_equal(fx->cfg.graph_report_dest, "stderr");
}

/* Reads a whole small file into `buf` (NUL-terminated). */
static void read_file_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* How many times `needle` occurs in `hay`. */
static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Options Poplar has but the Model ignores are accepted and logged at INFO
 * once each, from either source; modelled ones are not logged. */
static void test_unmodelled_logged_once(void **state)
{
	cfg_fixture *fx = *state;
	char *dir = tsi_test_mkdtemp();
	char path[512];
	char text[8192];

	snprintf(path, sizeof(path), "%s/log.txt", dir);
	setenv("POPLAR_LOG_DEST", path, 1);
	setenv("POPLAR_LOG_LEVEL", "INFO", 1);
	tsi_log_reconfigure();
	assert_int_equal(tsi_options_set(fx->code, "opt.maxCompilationThreads", "8"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "target.syncReplicasIndependently", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->code, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(resolve_env(fx, "{\"opt.maxCompilationThreads\": 4, "
	                                 "\"streamCallbacks.multiThreadMode\": \"collaborative\", "
	                                 "\"target.hostSyncTimeout\": \"30\", "
	                                 "\"debug.instrument\": \"true\"}"),
	                 TSI_OK);
	unsetenv("POPLAR_LOG_DEST");
	unsetenv("POPLAR_LOG_LEVEL");
	tsi_log_reconfigure();

	read_file_text(path, text, sizeof(text));
	assert_int_equal(count_of(text, "option 'opt.maxCompilationThreads' is accepted but not "
	                                "modelled by the IPU Model"),
	                 1);
	assert_int_equal(count_of(text, "option 'target.syncReplicasIndependently' is accepted"), 1);
	assert_int_equal(count_of(text, "option 'streamCallbacks.multiThreadMode' is accepted"), 1);
	assert_int_equal(count_of(text, "option 'target.hostSyncTimeout' is accepted"), 1);
	assert_int_equal(count_of(text, "'autoReport.all'"), 0);
	assert_int_equal(count_of(text, "'debug.instrument'"), 0);
	assert_int_equal(count_of(text, " I: "), 4);
	assert_string_equal(tsi_options_lookup(fx->effective, "opt.maxCompilationThreads"), "4");
	tsi_test_rmtree(dir);
}

/* Every default in the table is a value its own option accepts. */
static void test_table_defaults_resolve(void **state)
{
	cfg_fixture *fx = *state;
	size_t n = tsi_engine_option_count();

	for (size_t i = 0; i < n; i++) {
		const tsi_option_info *info = tsi_engine_option_info(i);

		if (*info->default_value)
			assert_int_equal(tsi_options_set(fx->code, info->name, info->default_value), TSI_OK);
	}
	assert_true(tsi_options_count(fx->code) > 30);
	if (resolve(fx) != TSI_OK)
		fail_msg("a default is refused: %s", tsi_error_last());
	/* The table's defaults are the configuration's defaults. */
	assert_false(fx->cfg.report_graph);
	assert_true(fx->cfg.stream_at_each_run);
	assert_int_equal(fx->cfg.run_count, 2);
	assert_true(fx->cfg.retain_debug_info);
	assert_int_equal(fx->cfg.replica_to_profile, 0);
}

/* Clearing NULL or a cleared configuration is harmless; NULL arguments fail. */
static void test_null_arguments(void **state)
{
	cfg_fixture *fx = *state;
	tsi_options *effective = (tsi_options *)&effective;

	tsi_engine_config_clear(NULL);
	tsi_engine_config_clear(&fx->cfg);
	tsi_engine_config_clear(&fx->cfg);
	assert_int_equal(tsi_engine_config_resolve(NULL, &effective, NULL), TSI_ERR_INVALID_ARGUMENT);
	assert_null(effective);
	assert_int_equal(tsi_engine_config_resolve(&fx->cfg, NULL, NULL), TSI_ERR_INVALID_ARGUMENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_code_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_with_one_false, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_valid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_over_code, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_non_string_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_null_array_object, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_invalid_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_not_object, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_unknown_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_bad_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replica_to_profile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_graph_report_dest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmodelled_logged_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_defaults_resolve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_arguments, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* built as a public-API test: the private header is out of reach */

#include <stdio.h>

/* This file tests internals (tsi_engine_config_resolve); it belongs in the
 * internal_tests list of tests/instrument/meson.build. Skipped (77) until then. */
int main(void)
{
	fprintf(stderr, "test_engine_config is a white-box test: list it under internal_tests "
	                "in tests/instrument/meson.build\n");
	return 77;
}

#endif
