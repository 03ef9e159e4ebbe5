/*
 * Engine option flags: the ordered store (set, replace, get, count, at),
 * validation through tsi_engine_new (unknown names with a suggestion, bad
 * bool / enum / integer / decimal values, hex integers, unmodelled options
 * logged at INFO) and the public table of options (sorted, unique names,
 * defaults among the accepted values). POPLAR_ENGINE_OPTIONS itself is
 * covered by test_engine_config.
 */
#include "test-util.h"

#include <tilescope/ipu.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A graph with one empty program, enough for tsi_engine_new to compile. */
typedef struct opt_fixture {
	tsi_graph *graph;
	tsi_program *prog;
	tsi_options *opts;
	char *saved_env; /* the caller's POPLAR_ENGINE_OPTIONS, unset meanwhile */
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
	if (getenv("POPLAR_ENGINE_OPTIONS"))
		fx->saved_env = strdup(getenv("POPLAR_ENGINE_OPTIONS"));
	unsetenv("POPLAR_ENGINE_OPTIONS"); /* these tests give options in code only */
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	opt_fixture *fx = *state;

	if (fx->saved_env)
		setenv("POPLAR_ENGINE_OPTIONS", fx->saved_env, 1);
	free(fx->saved_env);
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
	assert_string_equal(tsi_options_lookup(fx->opts, "autoReport.all"), "true");

	assert_int_equal(tsi_options_set(fx->opts, "autoReport.all", "false"), TSI_OK);
	assert_int_equal(tsi_options_count(fx->opts), 2);
	assert_string_equal(tsi_options_lookup(fx->opts, "autoReport.all"), "false");

	assert_int_equal(tsi_options_at(&name, &value, fx->opts, 0), TSI_OK);
	assert_string_equal(name, "autoReport.all");
	assert_string_equal(value, "false");
	assert_int_equal(tsi_options_at(&name, NULL, fx->opts, 1), TSI_OK);
	assert_string_equal(name, "autoReport.directory");
	assert_int_equal(tsi_options_at(NULL, &value, fx->opts, 1), TSI_OK);
	assert_string_equal(value, "/tmp/x");
	assert_int_not_equal(tsi_options_at(&name, &value, fx->opts, 2), TSI_OK);

	assert_null(tsi_options_lookup(fx->opts, "autoReport.ALL")); /* names are case-sensitive */
	assert_null(tsi_options_lookup(fx->opts, NULL));
	assert_null(tsi_options_lookup(NULL, "autoReport.all"));
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
	assert_int_equal(tsi_options_at(NULL, &got, fx->opts, 57), TSI_OK);
	assert_string_equal(got, "v57");
	assert_string_equal(tsi_options_lookup(fx->opts, "k99"), "v99");
}

/* NULL arguments are refused; freeing NULL is harmless. */
static void test_null_arguments(void **state)
{
	opt_fixture *fx = *state;

	assert_int_equal(tsi_options_set(NULL, "a", "b"), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_options_set(fx->opts, NULL, "b"), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_options_set(fx->opts, "a", NULL), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_options_at(NULL, NULL, NULL, 0), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_options_count(fx->opts), 0);
	tsi_options_free(NULL);
}

/* Documented options with good values compile; so do no options at all. */
static void test_known_options_accepted(void **state)
{
	opt_fixture *fx = *state;
	char *dir = tsi_test_mkdtemp(); /* autoReport.all writes reports there */

	assert_int_equal(engine_with_options(fx), TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "autoReport.directory", dir), TSI_OK);
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
	tsi_test_rmtree(dir);
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

/* Reads the log file at `path` into `text` (NUL-terminated). */
static void read_log(const char *path, char *text, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(text, 1, size - 1, f);
	text[n] = '\0';
	fclose(f);
}

/* A valid but unmodelled option is logged at INFO, once; a modelled one is
 * not logged. */
static void test_unmodelled_option_logged(void **state)
{
	opt_fixture *fx = *state;
	char *dir = tsi_test_mkdtemp();
	char path[512];
	char text[8192] = "";

	snprintf(path, sizeof(path), "%s/log.txt", dir);
	setenv("POPLAR_LOG_DEST", path, 1);
	setenv("POPLAR_LOG_LEVEL", "INFO", 1);
	tsi_log_reconfigure();
	assert_int_equal(tsi_options_set(fx->opts, "opt.maxCompilationThreads", "4"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "profiler.includeFlopEstimates", "true"), TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_OK);
	unsetenv("POPLAR_LOG_DEST");
	unsetenv("POPLAR_LOG_LEVEL");
	tsi_log_reconfigure();

	read_log(path, text, sizeof(text));
	const char *hit = strstr(text, "option 'opt.maxCompilationThreads' is accepted but not "
	                               "modelled by the IPU Model");
	assert_non_null(hit);
	assert_null(strstr(hit + 1, "option 'opt.maxCompilationThreads'"));
	assert_null(strstr(text, "option 'profiler.includeFlopEstimates' is accepted"));
	assert_non_null(strstr(text, " I: "));
	tsi_test_rmtree(dir);
}

/* Integers may be written in hex, as Poplar accepts ("0x200"); words that
 * an option lists ("auto") pass; decimals take one point. */
static void test_hex_and_decimal_values(void **state)
{
	opt_fixture *fx = *state;
	static const char *const bad_decimal[] = {"", ".", "1.2.3", "-1", "1e3", "ten"};

	assert_int_equal(tsi_options_set(fx->opts, "target.workerStackSizeInBytes", "0x200"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "opt.maxCopyMergeSize", "0X7fffFFFF"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "streamCallbacks.numWorkerThreads", "auto"), TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "streamCallbacks.maxLookahead", "unlimited"),
	                 TSI_OK);
	assert_int_equal(tsi_options_set(fx->opts, "target.hostSyncTimeout", "300.00"), TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_OK);

	assert_int_equal(tsi_options_set(fx->opts, "target.workerStackSizeInBytes", "0x"), TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "'target.workerStackSizeInBytes' has value '0x'"));
	assert_int_equal(tsi_options_set(fx->opts, "target.workerStackSizeInBytes", "0x8000000000000000"),
	                 TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_ERR_BAD_OPTION);
	assert_int_equal(tsi_options_set(fx->opts, "target.workerStackSizeInBytes", "0x7fffffffffffffff"),
	                 TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_OK);

	/* "auto" belongs to numWorkerThreads only. */
	assert_int_equal(tsi_options_set(fx->opts, "opt.maxCompilationThreads", "auto"), TSI_OK);
	assert_int_equal(engine_with_options(fx), TSI_ERR_BAD_OPTION);
	assert_non_null(strstr(tsi_error_last(), "it accepts a non-negative integer"));
	assert_int_equal(tsi_options_set(fx->opts, "opt.maxCompilationThreads", "0"), TSI_OK);

	for (size_t i = 0; i < sizeof(bad_decimal) / sizeof(bad_decimal[0]); i++) {
		assert_int_equal(tsi_options_set(fx->opts, "target.hostSyncTimeout", bad_decimal[i]),
		                 TSI_OK);
		assert_int_equal(engine_with_options(fx), TSI_ERR_BAD_OPTION);
		assert_non_null(strstr(tsi_error_last(), "'target.hostSyncTimeout'"));
	}
}

/* True when `value` is one of the '|'-separated `values`. */
static bool in_list(const char *values, const char *value)
{
	size_t n = strlen(value);

	for (const char *p = values; p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && strncmp(p, value, n) == 0)
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return false;
}

/* The option table: sorted unique names in the documented groups, known
 * types, bool defaults true/false, enum defaults among their values, one
 * line of description each; NULL past the end. */
static void test_option_table(void **state)
{
	static const char *const groups[] = {"autoReport.", "debug.",    "exchange.", "opt.",
	                                     "profiler.",   "streamCallbacks.", "target."};
	size_t n = tsi_engine_option_count();
	size_t modelled = 0;

	(void)state;
	assert_true(n >= 40);
	assert_null(tsi_engine_option_info(n));
	for (size_t i = 0; i < n; i++) {
		const tsi_option_info *info = tsi_engine_option_info(i);
		bool grouped = false;

		assert_non_null(info);
		assert_non_null(info->name);
		if (i > 0 && strcmp(tsi_engine_option_info(i - 1)->name, info->name) >= 0)
			fail_msg("option table out of order or repeated at '%s'", info->name);
		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++)
			grouped |= strncmp(info->name, groups[g], strlen(groups[g])) == 0;
		if (!grouped)
			fail_msg("option '%s' is in no documented group", info->name);
		assert_non_null(info->default_value);
		assert_non_null(info->accepted);
		assert_true(*info->accepted);
		assert_non_null(info->description);
		assert_true(*info->description);
		assert_null(strchr(info->description, '\n'));
		if (strcmp(info->type, "bool") == 0) {
			if (strcmp(info->default_value, "true") && strcmp(info->default_value, "false"))
				fail_msg("bool option '%s' has default '%s'", info->name, info->default_value);
		} else if (strcmp(info->type, "enum") == 0) {
			if (!in_list(info->accepted, info->default_value))
				fail_msg("enum option '%s' has default '%s', not in %s", info->name,
				         info->default_value, info->accepted);
		} else if (strcmp(info->type, "integer") && strcmp(info->type, "decimal") &&
		           strcmp(info->type, "string")) {
			fail_msg("option '%s' has type '%s'", info->name, info->type);
		}
		modelled += info->modelled;
	}
	assert_true(modelled >= 20 && modelled < n);
}

/* Spot checks of rows the rest of Tilescope relies on. */
static void test_option_table_rows(void **state)
{
	const tsi_option_info *all = NULL, *count = NULL, *threads = NULL, *level = NULL;

	(void)state;
	for (size_t i = 0; i < tsi_engine_option_count(); i++) {
		const tsi_option_info *info = tsi_engine_option_info(i);

		if (strcmp(info->name, "autoReport.all") == 0)
			all = info;
		else if (strcmp(info->name, "autoReport.executionProfileProgramRunCount") == 0)
			count = info;
		else if (strcmp(info->name, "opt.maxCompilationThreads") == 0)
			threads = info;
		else if (strcmp(info->name, "debug.computeInstrumentationLevel") == 0)
			level = info;
	}
	assert_non_null(all);
	assert_true(all->modelled);
	assert_string_equal(all->type, "bool");
	assert_string_equal(all->default_value, "false");
	assert_non_null(count);
	assert_string_equal(count->type, "integer");
	assert_string_equal(count->default_value, "2");
	assert_non_null(threads);
	assert_false(threads->modelled);
	assert_non_null(level);
	assert_string_equal(level->default_value, "tile");
	assert_true(in_list(level->accepted, "vertex"));
}

/* The manual's sentence (docs/runtime.md) "lists the N options Tilescope
 * knows" says what the table says. */
static void test_docs_match_table(void **state)
{
	const char *root = getenv("TILESCOPE_SOURCE_ROOT");
	char path[4096], expect[128];
	FILE *f;
	char *text;
	long size;

	(void)state;
	if (!root)
		skip();
	snprintf(path, sizeof(path), "%s/docs/runtime.md", root);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	assert_true(size > 0);
	rewind(f);
	text = malloc((size_t)size + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
	text[size] = '\0';
	fclose(f);
	snprintf(expect, sizeof(expect), "lists the %zu options Tilescope knows",
	         tsi_engine_option_count());
	if (!strstr(text, expect))
		fail_msg("docs/runtime.md does not say \"%s\"", expect);
	free(text);
}

/* What unset means for debug.allowOutOfMemory is what the table says. */
static void test_allow_out_of_memory_default(void **state)
{
	const tsi_option_info *row = NULL;

	(void)state;
	for (size_t i = 0; i < tsi_engine_option_count(); i++)
		if (strcmp(tsi_engine_option_info(i)->name, "debug.allowOutOfMemory") == 0)
			row = tsi_engine_option_info(i);
	assert_non_null(row);
	/* compiler.c reads it with opt_bool(opts, ..., true): unset is true. */
	assert_string_equal(row->default_value, "true");
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
		cmocka_unit_test_setup_teardown(test_hex_and_decimal_values, setup, teardown),
		cmocka_unit_test(test_option_table),
		cmocka_unit_test(test_option_table_rows),
		cmocka_unit_test(test_docs_match_table),
		cmocka_unit_test(test_allow_out_of_memory_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
