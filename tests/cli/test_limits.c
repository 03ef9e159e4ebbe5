/*
 * `tilescope diff`'s limits (cli-summary/src/limits.c) and the escaping of
 * its Markdown and JUnit outputs (diff-render.c): option values, the JSON
 * limits file, the pass/fail rule, overriding the file from the command
 * line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "diff-render.h"
#include "limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err[1024];

static const cli_limit *find(const cli_limits *l, const char *option, const char *metric)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].option, option) == 0 && strcmp(l->items[i].metric, metric) == 0)
			return &l->items[i];
	return NULL;
}

static void test_option_values(void **state)
{
	cli_limits l = {0};
	const cli_limit *x;

	(void)state;
	assert_int_equal(cli_limits_option(&l, "max-cycles-increase", "1", err, sizeof(err)), 0);
	x = find(&l, "max-cycles-increase", "cycles.total");
	assert_non_null(x);
	assert_int_equal(x->kind, CLI_LIMIT_PERCENT);
	assert_true(x->percent == 1.0);
	assert_int_equal(cli_limits_option(&l, "max-cycles-increase", "500cycles", err, sizeof(err)),
	                 0);
	x = find(&l, "max-cycles-increase", "cycles.total");
	assert_int_equal(x->kind, CLI_LIMIT_INCREASE);
	assert_int_equal(x->amount, 500);
	assert_int_equal(l.n, 1); /* replaced, not added */

	/* Memory: two metrics; a percentage or bytes. */
	assert_int_equal(cli_limits_option(&l, "max-memory-increase", "2.5%", err, sizeof(err)), 0);
	assert_non_null(find(&l, "max-memory-increase", "memory.total_including_gaps"));
	assert_non_null(find(&l, "max-memory-increase", "memory.total"));
	assert_int_equal(cli_limits_option(&l, "max-memory-increase", "64KiB", err, sizeof(err)), 0);
	x = find(&l, "max-memory-increase", "memory.total");
	assert_int_equal(x->kind, CLI_LIMIT_INCREASE);
	assert_int_equal(x->amount, 65536);

	assert_int_equal(cli_limits_option(&l, "max-tile-memory", "600KB", err, sizeof(err)), 0);
	x = find(&l, "max-tile-memory", "memory.max_tile");
	assert_int_equal(x->kind, CLI_LIMIT_CEILING);
	assert_int_equal(x->amount, 600000);
	assert_int_equal(cli_limits_option(&l, "fail-on-oom", NULL, err, sizeof(err)), 0);
	x = find(&l, "fail-on-oom", "memory.oom_tiles");
	assert_int_equal(x->kind, CLI_LIMIT_CEILING);
	assert_int_equal(x->amount, 0);

	assert_int_equal(cli_limits_option(&l, "max-category-increase", "vertexCode:5%", err,
	                                   sizeof(err)), 0);
	assert_non_null(find(&l, "max-category-increase", "memory.category.vertexCode"));
	/* A metric name may hold colons; the value is after the last one. */
	assert_int_equal(cli_limits_option(&l, "max-increase", "cycles.vertex_type.a::B<1>:10",
	                                   err, sizeof(err)), 0);
	x = find(&l, "max-increase", "cycles.vertex_type.a::B<1>");
	assert_non_null(x);
	assert_true(x->percent == 10.0);
	cli_limits_free(&l);
}

static void test_bad_values(void **state)
{
	static const char *const bad[][2] = {
		{"max-cycles-increase", "fast"}, {"max-cycles-increase", "-1"},
		{"max-cycles-increase", "64KB"}, /* bytes are not cycles */
		{"max-cycles-increase", ""}, {"max-memory-increase", "1e3"},
		{"max-memory-increase", "5 %"}, {"max-tile-memory", "5%"},
		{"max-tile-memory", "lots"}, {"max-category-increase", "vertexCode"},
		{"max-category-increase", "noSuchCategory:5"},
		{"max-category-increase", ":5"}, {"max-increase", "cycles.total"},
		{"max-increase", "cycles.total:x"}, {"max-memory-increase", "99999999999GB"},
	};
	cli_limits l = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (cli_limits_option(&l, bad[i][0], bad[i][1], err, sizeof(err)) != -1)
			fail_msg("--%s=%s accepted", bad[i][0], bad[i][1]);
		assert_non_null(strstr(err, bad[i][0]));
	}
	assert_int_equal(l.n, 0);
	/* The category error lists the valid names. */
	cli_limits_option(&l, "max-category-increase", "noSuchCategory:5", err, sizeof(err));
	assert_non_null(strstr(err, "vertexCode"));
	cli_limits_free(&l);
}

/* The rule: a percentage of the base, an absolute increase, a ceiling. */
static void test_passes(void **state)
{
	cli_limit pct = {.kind = CLI_LIMIT_PERCENT, .percent = 1.0};
	cli_limit zero = {.kind = CLI_LIMIT_PERCENT, .percent = 0.0};
	cli_limit inc = {.kind = CLI_LIMIT_INCREASE, .amount = 100};
	cli_limit ceil = {.kind = CLI_LIMIT_CEILING, .amount = 1000};

	(void)state;
	assert_true(cli_limit_passes(&pct, true, 1000, true, 1010));   /* +1.0% */
	assert_false(cli_limit_passes(&pct, true, 1000, true, 1011));  /* +1.1% */
	assert_true(cli_limit_passes(&pct, true, 1000, true, 10));     /* better */
	assert_false(cli_limit_passes(&pct, true, 0, true, 1));        /* from nothing */
	assert_true(cli_limit_passes(&pct, true, 0, true, 0));
	assert_false(cli_limit_passes(&pct, false, 0, true, 5));       /* new item */
	assert_true(cli_limit_passes(&pct, true, 5, false, 0));        /* gone */
	assert_false(cli_limit_passes(&zero, true, 1000, true, 1001));
	assert_true(cli_limit_passes(&zero, true, 1000, true, 1000));
	assert_true(cli_limit_passes(&inc, true, 1000, true, 1100));
	assert_false(cli_limit_passes(&inc, true, 1000, true, 1101));
	assert_true(cli_limit_passes(&inc, true, UINT64_MAX, true, 0));
	assert_true(cli_limit_passes(&ceil, true, 5000, true, 1000));  /* base irrelevant */
	assert_false(cli_limit_passes(&ceil, true, 0, true, 1001));
}

/* Writes `text` to a new file in a new temporary directory. */
static char *write_file(const char *text, char **dir)
{
	char *path = malloc(256);

	*dir = strdup("/tmp/tilescope-limits.XXXXXX");
	assert_non_null(*dir);
	assert_non_null(mkdtemp(*dir));
	snprintf(path, 256, "%s/limits.json", *dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void remove_file(char *path, char *dir)
{
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

static void test_file(void **state)
{
	char *dir, *path = write_file(
	    "{\"max_memory_increase\": \"2%\", \"max_cycles_increase\": 1.5,"
	    " \"max_tile_memory\": \"600KB\", \"fail_on_oom\": true,"
	    " \"categories\": {\"vertexCode\": 5, \"stack\": \"1KiB\"},"
	    " \"metrics\": {\"cycles.vertex_type.Dot\": \"10%\"}}",
	    &dir);
	cli_limits l = {0};
	const cli_limit *x;

	(void)state;
	assert_int_equal(cli_limits_load(&l, path, err, sizeof(err)), 0);
	assert_int_equal(l.n, 8);
	x = find(&l, "max-cycles-increase", "cycles.total");
	assert_true(x->kind == CLI_LIMIT_PERCENT && x->percent == 1.5);
	assert_string_equal(x->threshold, "1.5");
	x = find(&l, "max-category-increase", "memory.category.stack");
	assert_true(x->kind == CLI_LIMIT_INCREASE && x->amount == 1024);
	assert_non_null(find(&l, "max-increase", "cycles.vertex_type.Dot"));
	assert_non_null(find(&l, "fail-on-oom", "memory.oom_tiles"));
	/* The command line overrides the file. */
	assert_int_equal(cli_limits_option(&l, "max-cycles-increase", "3", err, sizeof(err)), 0);
	assert_int_equal(l.n, 8);
	x = find(&l, "max-cycles-increase", "cycles.total");
	assert_true(x->percent == 3.0);
	cli_limits_free(&l);
	remove_file(path, dir);
}

static void test_bad_files(void **state)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{"{\"max_cycles_increase\": 1,", "not valid JSON"},
		{"[1, 2]", "one JSON object"},
		{"{\"max_cycle_increase\": 1}", "unknown key \"max_cycle_increase\""},
		{"{\"max_cycles_increase\": true}", "\"max_cycles_increase\" must be"},
		{"{\"max_cycles_increase\": -2}", "\"max_cycles_increase\" must be"},
		{"{\"max_cycles_increase\": \"fast\"}", "\"max_cycles_increase\": --max-cycles-increase"},
		{"{\"fail_on_oom\": \"yes\"}", "\"fail_on_oom\" must be true or false"},
		{"{\"categories\": [\"stack\"]}", "\"categories\" must be an object"},
		{"{\"categories\": {\"bogus\": 5}}", "\"categories\".\"bogus\""},
		{"{\"metrics\": {\"cycles.total\": null}}", "must be a string or a number"},
	};
	cli_limits l = {0};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *dir, *path = write_file(bad[i].text, &dir);
		err[0] = '\0';
		assert_int_equal(cli_limits_load(&l, path, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].says) || !strstr(err, path))
			fail_msg("%s: '%s' does not say '%s' and name the file", bad[i].text, err,
			         bad[i].says);
		cli_limits_free(&l);
		remove_file(path, dir);
	}
	assert_int_equal(cli_limits_load(&l, "/nonexistent/limits.json", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/limits.json"));
}

static void test_escaping(void **state)
{
	char *x = cli_xml_escape("a<b>&\"c'\x01\n");
	char *m = cli_markdown_escape("a|b`c<d>\ne_f");

	(void)state;
	assert_string_equal(x, "a&lt;b&gt;&amp;&quot;c&apos;?\n");
	assert_string_equal(m, "a\\|b\\`c&lt;d&gt; e\\_f");
	free(x);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option_values),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_passes),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_escaping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
