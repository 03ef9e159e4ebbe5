/*
 * `tilescope sql`, run as a program on the sample report and trace: the
 * text table, CSV and JSON read back and checked, the per-tile functions
 * against the report's plain totals, refusals (exit 2, one line), -o,
 * options after the operands, and the help. Every test writes only in its
 * own temporary directory.
 *
 * usage: test_cli_sql TILESCOPE SAMPLE_DIR
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *tilescope, *samples;
static char report[1024], trace[1024];

/* One run: exit status, stdout and stderr. */
typedef struct run_result {
	int status;
	char *out, *err;
} run_result;

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0;

	assert_non_null(f);
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	for (int c; (c = fgetc(f)) != EOF;)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

/* Runs tilescope with args (NULL-terminated) in directory `dir`. */
static run_result run(const char *dir, const char *const *args)
{
	char out_path[1100], err_path[1100];
	run_result r;
	pid_t pid;
	int st;

	snprintf(out_path, sizeof(out_path), "%s/stdout.txt", dir);
	snprintf(err_path, sizeof(err_path), "%s/stderr.txt", dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *argv[32] = {tilescope};
		size_t n = 1;
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		for (; args[n - 1] && n < 31; n++)
			argv[n] = args[n - 1];
		argv[n] = NULL;
		if (o < 0 || e < 0 || chdir(dir) != 0)
			_exit(127);
		dup2(o, 1);
		dup2(e, 2);
		execv(tilescope, (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	r.status = WEXITSTATUS(st);
	r.out = slurp(out_path);
	r.err = slurp(err_path);
	return r;
}

static void done(run_result *r)
{
	free(r->out);
	free(r->err);
}

static int setup(void **state)
{
	char *dir = strdup("/tmp/tilescope-sql-XXXXXX");

	if (!dir || !mkdtemp(dir))
		return -1;
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	char cmd[1200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", (char *)*state);
	if (system(cmd) != 0)
		return -1;
	free(*state);
	return 0;
}

/* The default table: a header, a rule, numbers right-aligned. */
static void test_table(void **state)
{
	const char *args[] = {"sql", report,
	                      "SELECT s.text AS name, c.cycles_sum FROM compute_set c "
	                      "JOIN string s ON s.id = c.name ORDER BY c.cycles_sum DESC LIMIT 4",
	                      NULL};
	run_result r = run(*state, args);
	char *lines[8] = {0};
	size_t n = 0;

	assert_int_equal(r.status, 0);
	assert_string_equal(r.err, "");
	for (char *save, *l = strtok_r(r.out, "\n", &save); l && n < 8; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	assert_int_equal(n, 6);
	assert_non_null(strstr(lines[0], "name"));
	assert_non_null(strstr(lines[0], "cycles_sum"));
	assert_int_equal(strspn(lines[1], "- "), strlen(lines[1]));
	/* Right-aligned: every row ends at the header's width. */
	for (size_t i = 2; i < n; i++) {
		assert_int_equal(strlen(lines[i]), strlen(lines[0]));
		assert_true(lines[i][strlen(lines[i]) - 1] >= '0' && lines[i][strlen(lines[i]) - 1] <= '9');
	}
	done(&r);
}

/* CSV: RFC 4180 quoting, CRLF, NULL as an empty field. */
static void test_csv(void **state)
{
	const char *args[] = {"sql", "--csv", report,
	                      "SELECT 'a,b' AS x, 'say \"hi\"' AS y, 12 AS n, NULL AS z", NULL};
	run_result r = run(*state, args);

	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "x,y,n,z\r\n\"a,b\",\"say \"\"hi\"\"\",12,\r\n");
	done(&r);
}

/* JSON: an array of objects, 64-bit integers exact; the per-tile sum
 * equals the plain column beside the blob for every compute set. */
static void test_json(void **state)
{
	const char *big[] = {"sql", report, "--json",
	                     "SELECT 9223372036854775807 AS big, 'x' AS s, NULL AS z, 1.5 AS r", NULL};
	const char *tiles[] = {"sql", "--json", report,
	                       "SELECT id, tile_sum(cycles_by_tile) AS s, cycles_sum, "
	                       "tile_max(cycles_by_tile) AS m, cycles FROM compute_set",
	                       NULL};
	run_result r = run(*state, big);
	cJSON *doc, *row;
	int n = 0;

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"big\":9223372036854775807"));
	doc = cJSON_Parse(r.out);
	assert_non_null(doc);
	assert_true(cJSON_IsArray(doc));
	assert_int_equal(cJSON_GetArraySize(doc), 1);
	row = cJSON_GetArrayItem(doc, 0);
	assert_string_equal(cJSON_GetObjectItem(row, "s")->valuestring, "x");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(row, "z")));
	assert_true(cJSON_GetObjectItem(row, "r")->valuedouble == 1.5);
	cJSON_Delete(doc);
	done(&r);

	r = run(*state, tiles);
	assert_int_equal(r.status, 0);
	doc = cJSON_Parse(r.out);
	assert_non_null(doc);
	cJSON_ArrayForEach(row, doc) {
		assert_int_equal(cJSON_GetObjectItem(row, "s")->valueint,
		                 cJSON_GetObjectItem(row, "cycles_sum")->valueint);
		assert_int_equal(cJSON_GetObjectItem(row, "m")->valueint,
		                 cJSON_GetObjectItem(row, "cycles")->valueint);
		n++;
	}
	assert_true(n >= 2);
	cJSON_Delete(doc);
	done(&r);
}

/* Anything but one read: exit 2 and one line naming it. */
static void test_refusals(void **state)
{
	static const char *const cases[][2] = {
		{"UPDATE compute_set SET flops = 0", "UPDATE"},
		{"ATTACH 'x.db' AS x", "ATTACH"},
		{"PRAGMA writable_schema=1", "writable_schema"},
		{"DROP TABLE string", "DROP TABLE"},
		{"SELECT 1; SELECT 2", "second"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = {"sql", report, cases[i][0], NULL};
		run_result r = run(*state, args);

		assert_int_equal(r.status, 2);
		assert_string_equal(r.out, "");
		assert_non_null(strstr(r.err, cases[i][1]));
		assert_ptr_equal(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
		done(&r);
	}
}

/* A .pvti answers too; -o writes the file and nothing on stdout, with
 * the option after the operands. */
static void test_trace_and_output(void **state)
{
	const char *args[] = {"sql", trace, "SELECT COUNT(*) AS n FROM thread", "--csv", "-o",
	                      "out.csv", NULL};
	char path[1100];
	run_result r = run(*state, args);
	char *text;

	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "");
	snprintf(path, sizeof(path), "%s/out.csv", (char *)*state);
	text = slurp(path);
	assert_int_equal(strncmp(text, "n\r\n", 3), 0);
	assert_true(atoi(text + 3) > 0);
	free(text);
	done(&r);
}

/* The help names the per-tile functions with an example; usage errors. */
static void test_help_and_usage(void **state)
{
	const char *help[] = {"sql", "--help", NULL};
	const char *top[] = {"--help", NULL};
	const char *no_sql[] = {"sql", report, NULL};
	const char *both[] = {"sql", "--csv", "--json", report, "SELECT 1", NULL};
	run_result r = run(*state, help);

	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "tile_sum(c.cycles_by_tile)"));
	assert_non_null(strstr(r.out, "FROM compute_set"));
	assert_non_null(strstr(r.out, "tile_runs"));
	done(&r);
	r = run(*state, top);
	assert_non_null(strstr(r.out, "  sql "));
	done(&r);
	r = run(*state, no_sql);
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(r.err, "usage: tilescope sql"));
	assert_non_null(strstr(r.err, "Try 'tilescope sql --help'."));
	done(&r);
	r = run(*state, both);
	assert_int_equal(r.status, 2);
	done(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_csv, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_and_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_and_usage, setup, teardown),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: test_cli_sql TILESCOPE SAMPLE_DIR\n");
		return 2;
	}
	tilescope = realpath(argv[1], NULL);
	samples = realpath(argv[2], NULL);
	if (!tilescope || !samples)
		return 2;
	snprintf(report, sizeof(report), "%s/tut4_profiling", samples);
	snprintf(trace, sizeof(trace), "%s/tut5_ml/tut5_ml.pvti", samples);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
