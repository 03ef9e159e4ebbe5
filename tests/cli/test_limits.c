/*
 * `tilescope diff`'s limits (reportlib's tsr_compare_limits_*, compare.h;
 * the limits file in cli-summary/src/limits.c) and the escaping of its
 * Markdown and JUnit outputs (diff-render.c): option values, the JSON
 * limits file, the pass/fail rule, evaluation against deltas made here
 * (no report files), overriding the file from the command line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "diff-render.h"
#include "limits.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char err[1024];

static const tsr_limit *find(const tsr_compare_limits *l, const char *option, const char *metric)
{
	for (size_t i = 0; i < tsr_compare_limits_get_count(l); i++) {
		const tsr_limit *x = tsr_compare_limits_get_limit(l, i);
		if (strcmp(x->option, option) == 0 && strcmp(x->metric, metric) == 0)
			return x;
	}
	return NULL;
}

/* An empty set of limits. */
static tsr_compare_limits *fresh(void)
{
	tsr_compare_limits *l = NULL;

	assert_int_equal(tsr_compare_limits_new(&l), TSR_OK);
	return l;
}

/* Empties *l (a new set). */
static void reset(tsr_compare_limits **l)
{
	tsr_compare_limits_free(*l);
	*l = fresh();
}

/* tsr_compare_limits_set_option: 0, or -1 with its message in e. */
static int option(tsr_compare_limits *l, const char *opt, const char *value, char *e, size_t n)
{
	if (tsr_compare_limits_set_option(l, opt, value) == TSR_OK)
		return 0;
	snprintf(e, n, "%s", tsr_compare_limits_get_error(l));
	return -1;
}

/* A byte size as --max-tile-memory reads it. */
static bool parse_bytes(const char *s, uint64_t *v)
{
	tsr_compare_limits *l = fresh();
	bool ok = tsr_compare_limits_set_option(l, "max-tile-memory", s) == TSR_OK;

	if (ok)
		*v = tsr_compare_limits_get_limit(l, 0)->amount;
	tsr_compare_limits_free(l);
	return ok;
}

/* A percentage as --max-increase reads it on a metric that takes only one. */
static bool parse_percent(const char *s, double *v)
{
	tsr_compare_limits *l = fresh();
	char text[64];
	bool ok;

	snprintf(text, sizeof(text), "graph.edges:%s", s);
	ok = tsr_compare_limits_set_option(l, "max-increase", text) == TSR_OK;
	if (ok)
		*v = tsr_compare_limits_get_limit(l, 0)->percent;
	tsr_compare_limits_free(l);
	return ok;
}

static void test_parse_bytes(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_true(parse_bytes("512", &v));
	assert_int_equal(v, 512);
	assert_true(parse_bytes("512B", &v));
	assert_int_equal(v, 512);
	assert_true(parse_bytes("64KB", &v));
	assert_int_equal(v, 64000);
	assert_true(parse_bytes("64k", &v));
	assert_int_equal(v, 64000);
	assert_true(parse_bytes("1.5 MiB", &v));
	assert_int_equal(v, 1572864);
	assert_true(parse_bytes("2gib", &v));
	assert_true(v == 2147483648ULL);
	assert_true(parse_bytes("0.0001KB", &v));
	assert_int_equal(v, 0);
	assert_false(parse_bytes("1.5", &v));      /* a fraction of a byte */
	assert_false(parse_bytes("1.5B", &v));
	assert_false(parse_bytes("12 parsecs", &v));
	assert_false(parse_bytes("-1KB", &v));
	assert_false(parse_bytes("KB", &v));
	assert_false(parse_bytes("1e9", &v));
	assert_false(parse_bytes("inf", &v));
	assert_false(parse_bytes("99999999999GB", &v)); /* past 2^64 */
	assert_false(parse_bytes("1  KB", &v));
}

static void test_parse_percent(void **state)
{
	double v = -1;

	(void)state;
	assert_true(parse_percent("5", &v));
	assert_true(fabs(v - 5) < 1e-12);
	assert_true(parse_percent("2.5%", &v));
	assert_true(fabs(v - 2.5) < 1e-12);
	assert_true(parse_percent("0", &v));
	assert_true(v == 0);
	assert_false(parse_percent("-1", &v));
	assert_false(parse_percent("5%%", &v));
	assert_false(parse_percent("nan", &v));
	assert_false(parse_percent("%", &v));
	assert_false(parse_percent("5 %", &v));
}

static void test_option_values(void **state)
{
	tsr_compare_limits *l = fresh();
	const tsr_limit *x;

	(void)state;
	assert_int_equal(option(l, "max-cycles-increase", "1", err, sizeof(err)), 0);
	x = find(l, "max-cycles-increase", "cycles.total");
	assert_non_null(x);
	assert_int_equal(x->kind, TSR_LIMIT_PERCENT);
	assert_true(x->percent == 1.0);
	assert_int_equal(option(l, "max-cycles-increase", "500cycles", err, sizeof(err)),
	                 0);
	x = find(l, "max-cycles-increase", "cycles.total");
	assert_int_equal(x->kind, TSR_LIMIT_INCREASE);
	assert_int_equal(x->amount, 500);
	assert_int_equal(tsr_compare_limits_get_count(l), 1); /* replaced, not added */

	/* Memory: two metrics; a percentage or bytes. */
	assert_int_equal(option(l, "max-memory-increase", "2.5%", err, sizeof(err)), 0);
	assert_non_null(find(l, "max-memory-increase", "memory.total_including_gaps"));
	assert_non_null(find(l, "max-memory-increase", "memory.total"));
	assert_int_equal(option(l, "max-memory-increase", "64KiB", err, sizeof(err)), 0);
	x = find(l, "max-memory-increase", "memory.total");
	assert_int_equal(x->kind, TSR_LIMIT_INCREASE);
	assert_int_equal(x->amount, 65536);

	assert_int_equal(option(l, "max-tile-memory", "600KB", err, sizeof(err)), 0);
	x = find(l, "max-tile-memory", "memory.max_tile");
	assert_int_equal(x->kind, TSR_LIMIT_CEILING);
	assert_int_equal(x->amount, 600000);
	assert_int_equal(option(l, "fail-on-oom", NULL, err, sizeof(err)), 0);
	x = find(l, "fail-on-oom", "memory.oom_tiles");
	assert_int_equal(x->kind, TSR_LIMIT_CEILING);
	assert_int_equal(x->amount, 0);

	assert_int_equal(option(l, "max-category-increase", "vertexCode:5%", err,
	                                   sizeof(err)), 0);
	assert_non_null(find(l, "max-category-increase", "memory.category.vertexCode"));
	/* A metric name may hold colons; the value is after the last one. */
	assert_int_equal(option(l, "max-increase", "cycles.vertex_type.a::B<1>:10",
	                                   err, sizeof(err)), 0);
	x = find(l, "max-increase", "cycles.vertex_type.a::B<1>");
	assert_non_null(x);
	assert_true(x->percent == 10.0);
	tsr_compare_limits_free(l);
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
		{"max-memory-increase", "-5%"},
		{"max-memory-increase", "9999999999999999999999999999999999999999999"}, /* too long */
		{"max-cycles-increase", "99999999999999999999cycles"},
		{"max-cycles-increase", "inf"}, {"max-cycles-increase", "nan%"},
		{"max-memory-increase", "5%%"}, {"max-tile-memory", "-1KB"},
		/* An absolute amount must be in the metric's unit. */
		{"max-increase", "cycles.total:1MB"}, {"max-increase", "memory.total:5cycles"},
		{"max-increase", "graph.edges:5cycles"}, {"max-increase", "flops.total:1KB"},
	};
	tsr_compare_limits *l = fresh();

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (option(l, bad[i][0], bad[i][1], err, sizeof(err)) != -1)
			fail_msg("--%s=%s accepted", bad[i][0], bad[i][1]);
		assert_non_null(strstr(err, bad[i][0]));
	}
	assert_int_equal(tsr_compare_limits_get_count(l), 0);
	/* The category error lists the valid names. */
	option(l, "max-category-increase", "noSuchCategory:5", err, sizeof(err));
	assert_non_null(strstr(err, "vertexCode"));
	assert_non_null(strstr(err, "stack"));
	tsr_compare_limits_free(l);
}

/* Absolute amounts in the unit of the metric --max-increase names. */
static void test_generic_units(void **state)
{
	tsr_compare_limits *l = fresh();
	const tsr_limit *x;

	(void)state;
	assert_int_equal(option(l, "max-increase", "memory.variable.w:2KiB", err,
	                                   sizeof(err)), 0);
	x = find(l, "max-increase", "memory.variable.w");
	assert_true(x->kind == TSR_LIMIT_INCREASE && x->amount == 2048);
	assert_int_equal(option(l, "max-increase", "cycles.program.p:7 cycles", err,
	                                   sizeof(err)), 0);
	x = find(l, "max-increase", "cycles.program.p");
	assert_true(x->kind == TSR_LIMIT_INCREASE && x->amount == 7);
	assert_int_equal(option(l, "max-increase", "graph.edges:3.5%", err,
	                                   sizeof(err)), 0);
	x = find(l, "max-increase", "graph.edges");
	assert_true(x->kind == TSR_LIMIT_PERCENT && x->percent == 3.5);
	tsr_compare_limits_free(l);
}

/* The rule: a percentage of the base, an absolute increase, a ceiling. */
static void test_passes(void **state)
{
	tsr_limit pct = {.kind = TSR_LIMIT_PERCENT, .percent = 1.0};
	tsr_limit zero = {.kind = TSR_LIMIT_PERCENT, .percent = 0.0};
	tsr_limit inc = {.kind = TSR_LIMIT_INCREASE, .amount = 100};
	tsr_limit ceil = {.kind = TSR_LIMIT_CEILING, .amount = 1000};

	(void)state;
	assert_true(tsr_limit_get_passed(&pct, true, 1000, true, 1010));   /* +1.0% */
	assert_false(tsr_limit_get_passed(&pct, true, 1000, true, 1011));  /* +1.1% */
	assert_true(tsr_limit_get_passed(&pct, true, 1000, true, 10));     /* better */
	assert_false(tsr_limit_get_passed(&pct, true, 0, true, 1));        /* from nothing */
	assert_true(tsr_limit_get_passed(&pct, true, 0, true, 0));
	assert_false(tsr_limit_get_passed(&pct, false, 0, true, 5));       /* new item */
	assert_true(tsr_limit_get_passed(&pct, true, 5, false, 0));        /* gone */
	assert_false(tsr_limit_get_passed(&zero, true, 1000, true, 1001));
	assert_true(tsr_limit_get_passed(&zero, true, 1000, true, 1000));
	assert_true(tsr_limit_get_passed(&inc, true, 1000, true, 1100));
	assert_false(tsr_limit_get_passed(&inc, true, 1000, true, 1101));
	assert_true(tsr_limit_get_passed(&inc, true, UINT64_MAX, true, 0));
	assert_true(tsr_limit_get_passed(&ceil, true, 5000, true, 1000));  /* base irrelevant */
	assert_false(tsr_limit_get_passed(&ceil, true, 0, true, 1001));
}

/* Deltas for tsr_compare_limits_list_checks_from without report files. */
typedef struct delta_set {
	const tsr_delta *d;
	size_t n;
} delta_set;

static const tsr_delta *lookup_cb(const void *ctx, const char *metric)
{
	const delta_set *set = ctx;

	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->d[i].metric, metric) == 0)
			return &set->d[i];
	return NULL;
}

/* A delta as compare.c makes it (change, percent and the verdict are not
 * read by the limits). */
#define DELTA(name, b, n) {name, TSR_UNIT_COUNT, true, true, b, n, 0, 0.0, TSR_VERDICT_SAME}

static const tsr_delta deltas[] = {
	DELTA("cycles.total", 1000, 1011),            /* +1.1% */
	DELTA("memory.total", 100000, 100900),        /* +0.9%, +900 B */
	DELTA("memory.total_including_gaps", 100000, 101100), /* +1.1%, +1,100 B */
	DELTA("memory.max_tile", 600, 610),
	DELTA("memory.oom_tiles", 0, 2),
	DELTA("memory.category.stack", 0, 64),        /* from nothing */
	DELTA("memory.category.vertexCode", 5000, 4000), /* better */
	{"cycles.vertex_type.Gone", TSR_UNIT_CYCLES, true, false, 800, 0, -800, -100.0, TSR_VERDICT_BETTER},
	{"cycles.vertex_type.New", TSR_UNIT_CYCLES, false, true, 0, 50, 50, 0.0, TSR_VERDICT_WORSE},
	{"steps.total", TSR_UNIT_COUNT, true, false, 4, 0, -4, -100.0, TSR_VERDICT_BETTER},
	{"memory.ipu1.total_including_gaps", TSR_UNIT_BYTES, false, true, 0, 9, 9, 0.0, TSR_VERDICT_WORSE},
};
static const delta_set all_deltas = {deltas, sizeof(deltas) / sizeof(deltas[0])};

/* The checks of `l` against all_deltas: 0, or -1 with the message in err. */
static int evaluate(tsr_compare_limits *l, tsr_limit_check **checks, size_t *n)
{
	if (tsr_compare_limits_list_checks_from(checks, n, l, lookup_cb, &all_deltas) == TSR_OK)
		return 0;
	snprintf(err, sizeof(err), "%s", tsr_compare_limits_get_error(l));
	return -1;
}

/* Adds the option, evaluates all limits, returns whether limit `i` passed. */
static bool eval_one(tsr_compare_limits *l, const char *opt, const char *value, size_t i)
{
	tsr_limit_check *checks = NULL;
	size_t n = 0;
	bool passed;

	assert_int_equal(option(l, opt, value, err, sizeof(err)), 0);
	assert_int_equal(evaluate(l, &checks, &n), 0);
	assert_int_equal(n, tsr_compare_limits_get_count(l));
	assert_true(i < n);
	passed = checks[i].passed;
	free(checks);
	return passed;
}

/* The limits against deltas: percent, absolute, base 0, a decrease, the
 * OOM and tile ceilings, an option over an earlier value. */
static void test_evaluate(void **state)
{
	tsr_compare_limits *l = fresh();
	tsr_limit_check *checks = NULL;
	size_t n = 0;

	(void)state;
	assert_false(eval_one(l, "max-cycles-increase", "1", 0));     /* 1.1% > 1% */
	assert_true(eval_one(l, "max-cycles-increase", "1.1%", 0));   /* replaced: passes */
	assert_int_equal(tsr_compare_limits_get_count(l), 1);
	assert_true(eval_one(l, "max-cycles-increase", "11cycles", 0));
	assert_false(eval_one(l, "max-cycles-increase", "10 cycles", 0));
	reset(&l);

	/* Memory: both totals; the one with gaps exceeds 1%. */
	assert_int_equal(option(l, "max-memory-increase", "1%", err, sizeof(err)), 0);
	assert_int_equal(evaluate(l, &checks, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(checks[i].limit->metric, "memory.total") == 0)
			assert_true(checks[i].passed);
		else if (strcmp(checks[i].limit->metric, "memory.total_including_gaps") == 0)
			assert_false(checks[i].passed);
		else
			fail_msg("unexpected metric %s", checks[i].limit->metric);
	}
	assert_int_equal(checks[0].base, 100000);
	free(checks);
	assert_false(eval_one(l, "max-memory-increase", "1000B", 0)); /* +1,100 B */
	assert_true(eval_one(l, "max-memory-increase", "1.1KB", 0));
	reset(&l);

	assert_false(eval_one(l, "max-tile-memory", "609", 0));
	assert_true(eval_one(l, "max-tile-memory", "610B", 0));
	reset(&l);
	assert_false(eval_one(l, "fail-on-oom", NULL, 0));
	reset(&l);

	/* From nothing: any percentage fails, an absolute amount may pass. */
	assert_false(eval_one(l, "max-category-increase", "stack:1000", 0));
	assert_true(eval_one(l, "max-category-increase", "stack:64B", 0));
	/* A decrease passes even a 0% limit. */
	assert_true(eval_one(l, "max-category-increase", "vertexCode:0", 1));
	reset(&l);

	/* An item gone from the new report passes; a new item grew from 0. */
	assert_true(eval_one(l, "max-increase", "cycles.vertex_type.Gone:0", 0));
	assert_false(eval_one(l, "max-increase", "cycles.vertex_type.New:50", 1));
	assert_true(eval_one(l, "max-increase", "cycles.vertex_type.New:50cycles", 1));
	tsr_compare_limits_free(l);
}

/* A limit that cannot be checked is an error, not a pass. */
static void test_evaluate_errors(void **state)
{
	tsr_compare_limits *l = fresh();
	size_t n = 99;
	tsr_limit_check *checks = (tsr_limit_check *)&n;

	(void)state;
	assert_int_equal(option(l, "max-increase", "cycles.vertex_type.Typo:5", err,
	                                   sizeof(err)), 0);
	assert_int_equal(evaluate(l, &checks, &n), -1);
	assert_null(checks);
	assert_int_equal(n, 0);
	assert_non_null(strstr(err, "'cycles.vertex_type.Typo' is in neither report"));
	reset(&l);
	/* A total only the base has: the new report keeps no runs. */
	assert_int_equal(option(l, "max-increase", "steps.total:5", err, sizeof(err)),
	                 0);
	assert_int_equal(evaluate(l, &checks, &n), -1);
	assert_non_null(strstr(err, "'steps.total' is only in the base report"));
	assert_non_null(strstr(err, "does the new report keep no runs?"));
	reset(&l);
	/* A total of an IPU the base does not have: not about runs. */
	assert_int_equal(option(l, "max-increase",
	                                   "memory.ipu1.total_including_gaps:5", err, sizeof(err)),
	                 0);
	assert_int_equal(evaluate(l, &checks, &n), -1);
	assert_non_null(strstr(err, "is only in the new report, so it cannot be compared"));
	assert_null(strstr(err, "runs"));
	reset(&l);
	/* No limits: nothing to check, no error. */
	assert_int_equal(evaluate(l, &checks, &n), 0);
	assert_int_equal(n, 0);
	free(checks);
	tsr_compare_limits_free(l);
}

/* The limits as messages spell them. */
static void test_format(void **state)
{
	tsr_compare_limits *l = fresh();
	char buf[256];

	(void)state;
	assert_int_equal(option(l, "max-cycles-increase", "1", err, sizeof(err)), 0);
	assert_int_equal(option(l, "fail-on-oom", NULL, err, sizeof(err)), 0);
	assert_int_equal(option(l, "max-category-increase", "stack:2%", err,
	                                   sizeof(err)), 0);
	assert_int_equal(option(l, "max-increase", "cycles.vertex_type.a:b:10", err,
	                                   sizeof(err)), 0);
	assert_string_equal(tsr_limit_fill_option(tsr_compare_limits_get_limit(l, 0), buf, sizeof(buf)),
	                    "--max-cycles-increase=1");
	assert_string_equal(tsr_limit_fill_option(tsr_compare_limits_get_limit(l, 1), buf, sizeof(buf)), "--fail-on-oom");
	assert_string_equal(tsr_limit_fill_option(tsr_compare_limits_get_limit(l, 2), buf, sizeof(buf)),
	                    "--max-category-increase=stack:2%");
	assert_string_equal(tsr_limit_fill_option(tsr_compare_limits_get_limit(l, 3), buf, sizeof(buf)),
	                    "--max-increase=cycles.vertex_type.a:b:10");
	assert_string_equal(tsr_limit_fill_option(tsr_compare_limits_get_limit(l, 3), buf, 8), "--max-i");
	tsr_compare_limits_free(l);
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
	tsr_compare_limits *l = fresh();
	const tsr_limit *x;

	(void)state;
	assert_int_equal(cli_limits_load(l, path, err, sizeof(err)), 0);
	assert_int_equal(tsr_compare_limits_get_count(l), 8);
	x = find(l, "max-cycles-increase", "cycles.total");
	assert_true(x->kind == TSR_LIMIT_PERCENT && x->percent == 1.5);
	assert_string_equal(x->threshold, "1.5");
	x = find(l, "max-category-increase", "memory.category.stack");
	assert_true(x->kind == TSR_LIMIT_INCREASE && x->amount == 1024);
	assert_non_null(find(l, "max-increase", "cycles.vertex_type.Dot"));
	assert_non_null(find(l, "fail-on-oom", "memory.oom_tiles"));
	/* The command line overrides the file. */
	assert_int_equal(option(l, "max-cycles-increase", "3", err, sizeof(err)), 0);
	assert_int_equal(tsr_compare_limits_get_count(l), 8);
	x = find(l, "max-cycles-increase", "cycles.total");
	assert_true(x->percent == 3.0);
	tsr_compare_limits_free(l);
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
		{"{\"metrics\": {\"cycles.total\": null}}", "must be a string or a non-negative number"},
		{"{\"max_tile_memory\": \"5%\"}", "\"max_tile_memory\": --max-tile-memory wants"},
		{"{\"metrics\": {\"cycles.total\": \"1MB\"}}", "\"metrics\".\"cycles.total\""},
		{"", "not valid JSON"},
	};
	tsr_compare_limits *l = fresh();

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *dir, *path = write_file(bad[i].text, &dir);
		err[0] = '\0';
		assert_int_equal(cli_limits_load(l, path, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].says) || !strstr(err, path))
			fail_msg("%s: '%s' does not say '%s' and name the file", bad[i].text, err,
			         bad[i].says);
		reset(&l);
		remove_file(path, dir);
	}
	assert_int_equal(cli_limits_load(l, "/nonexistent/limits.json", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent/limits.json"));
	tsr_compare_limits_free(l);
}

static void test_escaping(void **state)
{
	static const struct {
		const char *in, *out;
	} xml[] = {
		{"a<b>&\"c'\x01\n", "a&lt;b&gt;&amp;&quot;c&apos;?\n"},
		{"\t\r\x1f\x7f", "\t\r?\x7f"},
		/* Well-formed UTF-8 stays: é, €, U+1F600. */
		{"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"},
		/* Not UTF-8, or not allowed in XML: a byte each. */
		{"a\xff" "b", "a?b"},
		{"\xc3", "?"},                  /* cut short at the end */
		{"\xc3(", "?("},
		{"\xc0\xaf", "??"},             /* overlong '/' */
		{"\xed\xa0\x80", "???"},        /* a surrogate */
		{"\xef\xbf\xbe", "???"},        /* U+FFFE */
		{"\xf4\x90\x80\x80", "????"},   /* above U+10FFFF */
		{"", ""},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(xml) / sizeof(xml[0]); i++) {
		char *x = cli_xml_escape(xml[i].in);
		assert_non_null(x);
		assert_string_equal(x, xml[i].out);
		free(x);
	}
	char *m = cli_markdown_escape("a|b`c<d>\ne_f");
	assert_string_equal(m, "a\\|b\\`c&lt;d&gt; e\\_f");
	free(m);
	m = cli_markdown_escape("||");
	assert_string_equal(m, "\\|\\|");
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_bytes),
		cmocka_unit_test(test_parse_percent),
		cmocka_unit_test(test_option_values),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_generic_units),
		cmocka_unit_test(test_evaluate),
		cmocka_unit_test(test_evaluate_errors),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_passes),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_escaping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
