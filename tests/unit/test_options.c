/*
 * Engine option flags: the ordered store (set, replace, get, count, at)
 * and validation through tsi_engine_new (unknown names with a suggestion,
 * bad bool / enum / integer values, unmodelled options logged at INFO).
 */
#include "test-util.h"

#include <tilescope/ipu.h>

#include <stdlib.h>
#include <string.h>

/* A graph with one empty program, enough for tsi_engine_new to compile. */
typedef struct opt_fixture {
	tsi_graph *graph;
	tsi_program *prog;
	tsi_options *opts;
} opt_fixture;

static int setup(void **state)
{
	opt_fixture *fx = calloc(1, sizeof(*fx));
	tsi_target target;

	assert_non_null(fx);
	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK2, 1, 4), TSI_OK);
	assert_int_equal(tsi_graph_new(&fx->graph, &target, 1), TSI_OK);
	fx->prog = tsi_prog_sequence(fx->graph, "main");
	assert_non_null(fx->prog);
	fx->opts = tsi_options_new();
	assert_non_null(fx->opts);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	opt_fixture *fx = *state;

	tsi_options_free(fx->opts);
	tsi_graph_free(fx->graph);
	free(fx);
	return 0;
}

/* Compiles the fixture's program with its options; returns the code. */
static int engine_with_options(opt_fixture *fx)
{
	tsi_engine *engine = (tsi_engine *)&engine; /* must be reset to NULL on failure */
	int rc = tsi_engine_new(&engine, fx->graph, &fx->prog, 1, fx->opts);

	if (rc != TSI_OK)
		assert_null(engine);
	tsi_engine_free(rc == TSI_OK ? engine : NULL);
	return rc;
}

/* Set keeps insertion order, replaces in place, and copies its strings. */
static void test_set_get_replace(void **state)
{
	opt_fixture *fx = *state;
	const char *name = NULL, *value = NULL;
	char buf[32];

	assert_int_equal(tsi_options_count(fx->opts), 0);
	strcpy(buf, "true");
	assert_int_equal(tsi_options_set(fx->opts, "autoReport.all", buf), TSI_OK);
	strcpy(buf, "clobbered");
	assert_int_equal(tsi_options_set(fx->opts, "autoReport.directory", "/tmp/x"), TSI_OK);
	assert_int_equal(tsi_options_count(fx->opts), 2);
	assert_string_equal(tsi_options_get(fx->opts, "autoReport.all"), "true");

	assert_int_equal(tsi_options_set(fx->opts, "autoReport.all", "false"), TSI_OK);
	assert_int_equal(tsi_options_count(fx->opts), 2);
	assert_string_equal(tsi_options_get(fx->opts, "autoReport.all"), "false");

	assert_int_equal(tsi_options_at(fx->opts, 0, &name, &value), TSI_OK);
	assert_string_equal(name, "autoReport.all");
	assert_string_equal(value, "false");
	assert_int_equal(tsi_options_at(fx->opts, 1, &name, NULL), TSI_OK);
	assert_string_equal(name, "autoReport.directory");
	assert_int_equal(tsi_options_at(fx->opts, 1, NULL, &value), TSI_OK);
	assert_string_equal(value, "/tmp/x");
	assert_int_not_equal(tsi_options_at(fx->opts, 2, &name, &value), TSI_OK);

	assert_null(tsi_options_get(fx->opts, "autoReport.ALL")); /* names are case-sensitive */
	assert_null(tsi_options_get(fx->opts, NULL));
	assert_null(tsi_options_get(NULL, "autoReport.all"));
	assert_int_equal(tsi_options_count(NULL), 0);
}

/* Many options grow the store past its first allocation. */
static void test_many_options(void **state)
{
	opt_fixture *fx = *state;
	char name[32], value[32];
	const char *got = NULL;

	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "k%d", i);
		snprintf(value, sizeof(value), "v%d", i);
		assert_int_equal(tsi_options_set(fx->opts, name, value), TSI_OK);
	}
	assert_int_equal(tsi_options_count(fx->opts), 100);
	assert_int_equal(tsi_options_at(fx->opts, 57, NULL, &got), TSI_OK);
	assert_string_equal(got, "v57");
	assert_string_equal(tsi_options_get(fx->opts, "k99"), "v99");
}

/* NULL arguments are refused; freeing NULL is harmless. */
static void test_null_arguments(void **state)
{
	opt_fixture *fx = *state;

	assert_int_equal(tsi_options_set(NULL, "a", "b"), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_options_set(fx->opts, NULL, "b"), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_options_set(fx->opts, "a", NULL), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_options_at(NULL, 0, NULL, NULL), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_options_count(fx->opts), 0);
	tsi_options_free(NULL);
}

/* Documented options with good values compile; so do no options at all. */
static void test_known_options_accepted(void **state)
{
	opt_fixture *fx = *state;

	assert_int_equal(engine_with_options(fx), TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "autoReport.directory", "./report"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "autoReport.executionProfileProgramRunCount", "10"),
	                 TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "debug.instrument", "TRUE"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "debug.computeInstrumentationLevel", "vertex"),
	                 TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "profiler.includeFlopEstimates", "False"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "opt.internalExchangeOptimisationTarget",
	                                 "balanced"),
	                 TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_OK);

	tsi_engine *engine = NULL;
	assert_int_equal(tsi_engine_new(&engine, fx->graph, &fx->prog, 1, NULL), TSI_OK);
	assert_non_null(engine);
	tsi_engine_free(engine);
}

/* A misspelt name fails and suggests the nearest documented one. */
static void test_unknown_option_suggests(void **state)
{
	opt_fixture *fx = *state;

	assert_int_equal(tsi_options_set(fx->opts, "autoReport.al", "true"), TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(),
	                       "unknown engine option 'autoReport.al'; did you mean 'autoReport.all'?"));

	/* Case slips are typos too. */
	tsi_options_free(fx->opts);
	fx->opts = tsi_options_new();
	assert_int_equal(tsi_options_set(fx->opts, "debug.Instrument", "true"), TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "did you mean 'debug.instrument'?"));
}

/* A name far from every known one fails without a misleading suggestion. */
static void test_unknown_option_without_suggestion(void **state)
{
	opt_fixture *fx = *state;

	assert_int_equal(tsi_options_set(fx->opts, "completely.madeUp", "1"), TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "unknown engine option 'completely.madeUp'"));
	assert_null(strstr(tsi_error_last(), "did you mean"));
}

/* A bool option refuses anything but true/false, naming both. */
static void test_bad_bool_value(void **state)
{
	opt_fixture *fx = *state;

	assert_int_equal(tsi_options_set(fx->opts, "debug.instrument", "yes"), TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "'debug.instrument'"));
	assert_non_null(strstr(tsi_error_last(), "'yes'"));
	assert_non_null(strstr(tsi_error_last(), "true or false"));
}

/* An enum option lists the values it accepts. */
static void test_bad_enum_value(void **state)
{
	opt_fixture *fx = *state;

	assert_int_equal(tsi_options_set(fx->opts, "debug.computeInstrumentationLevel", "core"),
	                 TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "'debug.computeInstrumentationLevel'"));
	assert_non_null(strstr(tsi_error_last(), "'core'"));
	assert_non_null(strstr(tsi_error_last(), "tile|vertex|device|ipu"));
}

/* An integer option refuses words, signs and trailing junk. */
static void test_bad_integer_value(void **state)
{
	opt_fixture *fx = *state;
	static const char *const bad[] = {"ten", "-1", "10x", "", "99999999999999999999"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(tsi_options_set(fx->opts, "autoReport.executionProfileProgramRunCount",
		                                 bad[i]),
		                 TSI_OK);
		assert_int_equal(engine_with_options(fx), TSI_ERR_BAD_OPTION);
		assert_non_null(strstr(tsi_error_last(), "'autoReport.executionProfileProgramRunCount'"));
		assert_non_null(strstr(tsi_error_last(), "integer"));
	}
	assert_int_equal(tsi_options_set(fx->opts, "autoReport.executionProfileProgramRunCount", "0"),
	                 TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_OK);
}

/* A valid but unmodelled option is logged at INFO, once. */
static void test_unmodelled_option_logged(void **state)
{
	opt_fixture *fx = *state;
	char *dir = tsi_test_mkdtemp();
	char path[512];
	char text[4096] = "";
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/log.txt", dir);
	setenv("POPLAR_LOG_DEST", path, 1);
	setenv("POPLAR_LOG_LEVEL", "INFO", 1);
	tsi_log_reconfigure();
	assert_int_equal(tsi_options_set(fx->opts, "profiler.includeFlopEstimates", "true"), TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_OK);
	unsetenv("POPLAR_LOG_DEST");
	unsetenv("POPLAR_LOG_LEVEL");
	tsi_log_reconfigure();

	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	const char *hit = strstr(text, "option 'profiler.includeFlopEstimates' is accepted but not "
	                               "modelled by the IPU Model");
	assert_non_null(hit);
	assert_null(strstr(hit + 1, "option 'profiler.includeFlopEstimates'"));
	assert_non_null(strstr(text, " I: "));
	tsi_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_set_get_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_known_options_accepted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_option_suggests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_option_without_suggestion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_bool_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_enum_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_integer_value, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmodelled_option_logged, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
