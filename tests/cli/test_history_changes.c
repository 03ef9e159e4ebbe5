/*
 * `tilescope history changes` (cmd-history-changes.c) on a store of 200
 * runs written here through history.h: an exact figure with two steps
 * and a run that lacks it, one that never changes, and a noisy one (three
 * samples a run) with one step; and 50 runs of another label (another
 * model) at the same commits, whose figures are a series of their own. JSON and text name the commits that made
 * each change; bad input exits 2 with one line.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "cli.h"

#include "tilescope/history.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUNS 200

static char dir[] = "/tmp/test-history-changes-XXXXXX";
static char store[64], out_path[64];

static double normal(uint64_t *s)
{
	double u[2];
	for (int i = 0; i < 2; i++) {
		*s = *s * 6364136223846793005u + 1442695040888963407u;
		u[i] = ((double)(*s >> 11) + 0.5) * 0x1p-53;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/* cycles.total: 1000, 1100 from run 60, 1050 from run 140, none in run
 * 100; memory.total: 5000 always; time.compile (noisy, 3 samples): about
 * 1,000,000 (sd 10,000), 1,200,000 from run 120. Label "big", runs 150 to
 * 199 (added later): cycles.total 9999 always. */
static int setup(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(store, sizeof(store), "%s/h.db", dir);
	snprintf(out_path, sizeof(out_path), "%s/out.txt", dir);
	tsr_history *h;
	assert_int_equal(tsr_history_open(&h, store, TSR_HISTORY_CREATE), TSR_OK);
	uint64_t rng = 11;
	for (int i = 0; i < RUNS; i++) {
		char commit[16], sha[65];
		snprintf(commit, sizeof(commit), "c%03d", i);
		snprintf(sha, sizeof(sha), "%064x", i);
		tsr_history_run run = { .commit = commit, .branch = "main", .time = 1000 + i,
		                        .report_path = "profile.pop", .report_sha256 = sha };
		tsr_history_figure f[5];
		size_t n = 0;
		if (i != 100)
			f[n++] = (tsr_history_figure){ "cycles.total", TSR_UNIT_CYCLES, false, 0,
			                               i < 60 ? 1000 : i < 140 ? 1100 : 1050 };
		f[n++] = (tsr_history_figure){ "memory.total", TSR_UNIT_BYTES, false, 0, 5000 };
		for (uint32_t k = 0; k < 3; k++)
			f[n++] = (tsr_history_figure){ "time.compile", TSR_UNIT_COUNT, true, k,
			                               (uint64_t)((i < 120 ? 1e6 : 1.2e6) +
			                                          1e4 * normal(&rng)) };
		if (tsr_history_add(NULL, NULL, h, &run, f, n) != TSR_OK)
			fail_msg("%s", tsr_history_error(h));
		if (i < 150)
			continue;
		snprintf(sha, sizeof(sha), "%064x", 1000 + i);
		run.label = "big";
		run.time = 5000 + i; /* after every run of the other label */
		f[0] = (tsr_history_figure){ "cycles.total", TSR_UNIT_CYCLES, false, 0, 9999 };
		if (tsr_history_add(NULL, NULL, h, &run, f, 1) != TSR_OK)
			fail_msg("%s", tsr_history_error(h));
	}
	tsr_history_free(h);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	remove(store);
	remove(out_path);
	char path[96];
	snprintf(path, sizeof(path), "%s-wal", store);
	remove(path);
	snprintf(path, sizeof(path), "%s-shm", store);
	remove(path);
	rmdir(dir);
	return 0;
}

/* `tilescope history changes STORE ARGS... -o out_path`'s exit status. */
static int run(const char *a1, const char *a2, const char *a3, const char *a4)
{
	char *argv[16] = { "history", "changes", store, "-o", out_path };
	int argc = 5;
	const char *more[] = { a1, a2, a3, a4 };
	for (int i = 0; i < 4 && more[i]; i++)
		argv[argc++] = (char *)more[i];
	return cli_cmd_history(argc, argv);
}

static char *slurp(void)
{
	FILE *f = fopen(out_path, "rb");
	assert_non_null(f);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_json(void **state)
{
	(void)state;
	assert_int_equal(run("--format", "json", NULL, NULL), CLI_EXIT_OK);
	cJSON *root = cJSON_Parse(slurp());
	assert_non_null(root);
	cJSON *changes = cJSON_GetObjectItem(root, "changes");
	assert_int_equal(cJSON_GetArraySize(changes), 3);
	/* By metric name, then commit. */
	const char *metric[] = { "cycles.total", "cycles.total", "time.compile" };
	for (int i = 0; i < 3; i++) {
		cJSON *c = cJSON_GetArrayItem(changes, i);
		assert_string_equal(cJSON_GetObjectItem(c, "metric")->valuestring, metric[i]);
		assert_string_equal(cJSON_GetObjectItem(c, "label")->valuestring, "");
	}
	cJSON *c = cJSON_GetArrayItem(changes, 0);
	assert_string_equal(cJSON_GetObjectItem(c, "commit")->valuestring, "c060");
	assert_string_equal(cJSON_GetObjectItem(c, "firstCommit")->valuestring, "c060");
	assert_string_equal(cJSON_GetObjectItem(c, "lastCommit")->valuestring, "c060");
	assert_true(cJSON_GetObjectItem(c, "before")->valuedouble == 1000);
	assert_true(cJSON_GetObjectItem(c, "after")->valuedouble == 1100);
	assert_null(cJSON_GetObjectItem(c, "pValue"));
	assert_string_equal(cJSON_GetObjectItem(c, "verdict")->valuestring, "changed");
	c = cJSON_GetArrayItem(changes, 1);
	assert_string_equal(cJSON_GetObjectItem(c, "commit")->valuestring, "c140");
	assert_true(cJSON_GetObjectItem(c, "change")->valuedouble == -50);
	/* The noisy one: a range of commits holding c120, a p-value. */
	c = cJSON_GetArrayItem(changes, 2);
	int first = atoi(cJSON_GetObjectItem(c, "firstCommit")->valuestring + 1);
	int last = atoi(cJSON_GetObjectItem(c, "lastCommit")->valuestring + 1);
	assert_true(first <= 120 && 120 <= last && last - first < 10);
	assert_true(cJSON_GetObjectItem(c, "pValue")->valuedouble < 0.01);
	assert_string_equal(cJSON_GetObjectItem(c, "verdict")->valuestring, "changed");
	cJSON_Delete(root);
}

static void test_text(void **state)
{
	(void)state;
	assert_int_equal(run("--metric", "cycles.*", NULL, NULL), CLI_EXIT_OK);
	assert_string_equal(slurp(), "cycles.total  c060  1,000 -> 1,100  +100 (+10.00 %)\n"
	                             "cycles.total  c140  1,100 -> 1,050  -50 (-4.55 %)\n");
	assert_int_equal(run("--metric", "cycles.*", "--label", "big"), CLI_EXIT_OK);
	assert_string_equal(slurp(), "no changes\n");
	assert_int_equal(run("--metric", "memory.*", "--branch", "main"), CLI_EXIT_OK);
	assert_string_equal(slurp(), "no changes\n");
	assert_int_equal(run("--metric", "time.*", NULL, NULL), CLI_EXIT_OK);
	assert_non_null(strstr(slurp(), "  changed\n"));
}

static void test_bad_input(void **state)
{
	(void)state;
	assert_int_equal(run("--format", "junit", NULL, NULL), CLI_EXIT_ERROR);
	assert_int_equal(run("--metric", "nothing.*", NULL, NULL), CLI_EXIT_ERROR);
	assert_int_equal(run("--last", "3", NULL, NULL), CLI_EXIT_ERROR);
	char *argv[] = { "history", "changes", "/nonexistent/h.db", NULL };
	assert_int_equal(cli_cmd_history(3, argv), CLI_EXIT_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
