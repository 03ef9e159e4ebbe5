/*
 * Poplar-style logging: POPLAR_LOG_LEVEL parsing, the line format, level
 * filtering, POPLAR_LOG_DEST files, the fallback for unknown levels and
 * unopenable files, and lines from several threads not interleaving.
 */
#include "test-util.h"

#include <tilescope/ipu.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct log_fixture {
	char *dir;
	char *log_path;
	char *err_path;
	int saved_stderr; /* dup of fd 2 while stderr is captured, else -1 */
} log_fixture;

static int setup(void **state)
{
	log_fixture *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->dir = tsi_test_mkdtemp();
	fx->log_path = malloc(strlen(fx->dir) + 16);
	fx->err_path = malloc(strlen(fx->dir) + 16);
	assert_non_null(fx->log_path);
	assert_non_null(fx->err_path);
	sprintf(fx->log_path, "%s/poplar.log", fx->dir);
	sprintf(fx->err_path, "%s/stderr.txt", fx->dir);
	fx->saved_stderr = -1;
	*state = fx;
	return 0;
}

/* Sends fd 2 to err_path until restore_stderr(). */
static void capture_stderr(log_fixture *fx)
{
	int fd = open(fx->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	fflush(stderr);
	fx->saved_stderr = dup(2);
	assert_true(fx->saved_stderr >= 0);
	assert_true(dup2(fd, 2) >= 0);
	close(fd);
}

static void restore_stderr(log_fixture *fx)
{
	if (fx->saved_stderr < 0)
		return;
	fflush(stderr);
	dup2(fx->saved_stderr, 2);
	close(fx->saved_stderr);
	fx->saved_stderr = -1;
}

static int teardown(void **state)
{
	log_fixture *fx = *state;

	restore_stderr(fx);
	unsetenv("POPLAR_LOG_LEVEL");
	unsetenv("POPLAR_LOG_DEST");
	tsi_log_reconfigure(); /* closes the log file */
	free(fx->log_path);
	free(fx->err_path);
	tsi_test_rmtree(fx->dir);
	free(fx);
	return 0;
}

/* Every documented level parses in any case; anything else is refused. */
static void test_level_parse(void **state)
{
	static const struct {
		const char *text;
		tsi_log_level level;
	} cases[] = {
		{"OFF", TSI_LOG_OFF},     {"err", TSI_LOG_ERR},     {"Warn", TSI_LOG_WARN},
		{"INFO", TSI_LOG_INFO},   {"debug", TSI_LOG_DEBUG}, {"TrAcE", TSI_LOG_TRACE},
	};
	tsi_log_level level;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		level = TSI_LOG_OFF;
		if (cases[i].level == TSI_LOG_OFF)
			level = TSI_LOG_TRACE;
		assert_int_equal(tsi_log_level_parse(&level, cases[i].text), TSI_OK);
		assert_int_equal(level, cases[i].level);
	}
	assert_int_equal(tsi_log_level_parse(&level, "verbose"), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_error_last(), "verbose"));
	assert_int_equal(tsi_log_level_parse(&level, ""), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_log_level_parse(&level, NULL), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_log_level_parse(NULL, "INFO"), TSI_ERR_INVALID_ARGUMENT);
}

/* At INFO, INFO and above are written with the PO prefix; DEBUG is not. */
static void test_info_written_debug_suppressed(void **state)
{
	log_fixture *fx = *state;
	char prefix[64], *text;

	setenv("POPLAR_LOG_DEST", fx->log_path, 1);
	setenv("POPLAR_LOG_LEVEL", "INFO", 1);
	tsi_log_reconfigure();

	assert_true(tsi_log_enabled(TSI_LOG_INFO));
	assert_true(tsi_log_enabled(TSI_LOG_WARN));
	assert_true(tsi_log_enabled(TSI_LOG_ERR));
	assert_false(tsi_log_enabled(TSI_LOG_DEBUG));
	assert_false(tsi_log_enabled(TSI_LOG_TRACE));
	assert_false(tsi_log_enabled(TSI_LOG_OFF));

	tsi_log(TSI_LOG_INFO, "ENGINE", "Compiling graph %d", 42);
	tsi_log(TSI_LOG_DEBUG, "ENGINE", "a debug detail");
	tsi_log(TSI_LOG_TRACE, "ENGINE", "a trace detail");
	tsi_log(TSI_LOG_WARN, "GRAPH", "careful");
	tsi_log(TSI_LOG_ERR, "COMPILE", "broken\n");

	text = tsi_test_read_file(fx->log_path);
	/* "PO:ENGINE   <pid>.<tid> I: ..." with the component padded to 8. */
	snprintf(prefix, sizeof(prefix), "PO:ENGINE   %d.", (int)getpid());
	assert_true(strncmp(text, prefix, strlen(prefix)) == 0);
	assert_non_null(strstr(text, " I: Compiling graph 42\n"));
	assert_non_null(strstr(text, "PO:GRAPH    "));
	assert_non_null(strstr(text, " W: careful\n"));
	/* A trailing newline in the message does not make an empty line. */
	assert_non_null(strstr(text, " E: broken\n"));
	assert_null(strstr(text, "\n\n"));
	assert_null(strstr(text, "debug detail"));
	assert_null(strstr(text, "trace detail"));
	free(text);
}

/* TRACE lets everything through, with the right level letters. */
static void test_trace_writes_all_levels(void **state)
{
	log_fixture *fx = *state;
	char *text;

	setenv("POPLAR_LOG_DEST", fx->log_path, 1);
	setenv("POPLAR_LOG_LEVEL", "trace", 1);
	tsi_log_reconfigure();
	assert_true(tsi_log_enabled(TSI_LOG_TRACE));
	tsi_log(TSI_LOG_TRACE, "T", "t-line");
	tsi_log(TSI_LOG_DEBUG, "T", "d-line");
	text = tsi_test_read_file(fx->log_path);
	assert_non_null(strstr(text, " T: t-line\n"));
	assert_non_null(strstr(text, " D: d-line\n"));
	free(text);
}

/* OFF (the default) writes nothing and does not even create the file. */
static void test_off_writes_nothing(void **state)
{
	log_fixture *fx = *state;
	struct stat st;

	setenv("POPLAR_LOG_DEST", fx->log_path, 1);
	setenv("POPLAR_LOG_LEVEL", "OFF", 1);
	tsi_log_reconfigure();
	assert_false(tsi_log_enabled(TSI_LOG_ERR));
	tsi_log(TSI_LOG_ERR, "ENGINE", "should not appear");
	assert_int_not_equal(stat(fx->log_path, &st), 0);

	unsetenv("POPLAR_LOG_LEVEL");
	tsi_log_reconfigure();
	assert_false(tsi_log_enabled(TSI_LOG_ERR));
	tsi_log(TSI_LOG_ERR, "ENGINE", "should not appear either");
	assert_int_not_equal(stat(fx->log_path, &st), 0);
}

/* An unknown level says so once on stderr and turns logging off. */
static void test_unknown_level_disables(void **state)
{
	log_fixture *fx = *state;
	char *err;
	struct stat st;

	setenv("POPLAR_LOG_DEST", fx->log_path, 1);
	setenv("POPLAR_LOG_LEVEL", "LOUD", 1);
	capture_stderr(fx);
	tsi_log_reconfigure();
	tsi_log(TSI_LOG_ERR, "ENGINE", "should not appear");
	restore_stderr(fx);

	assert_false(tsi_log_enabled(TSI_LOG_ERR));
	assert_int_not_equal(stat(fx->log_path, &st), 0);
	err = tsi_test_read_file(fx->err_path);
	assert_non_null(strstr(err, "PO: unknown POPLAR_LOG_LEVEL 'LOUD' (use OFF, ERR, WARN, INFO, "
	                            "DEBUG or TRACE); logging is off\n"));
	/* Exactly one line. */
	size_t newlines = 0;
	for (const char *p = err; *p; p++)
		newlines += *p == '\n';
	assert_int_equal(newlines, 1);
	free(err);
}

/* A destination that cannot be opened falls back to stderr, saying so. */
static void test_unopenable_dest_falls_back(void **state)
{
	log_fixture *fx = *state;
	char bad[512], *err;

	snprintf(bad, sizeof(bad), "%s/no-such-dir/x.log", fx->dir);
	setenv("POPLAR_LOG_DEST", bad, 1);
	setenv("POPLAR_LOG_LEVEL", "WARN", 1);
	capture_stderr(fx);
	tsi_log_reconfigure();
	tsi_log(TSI_LOG_WARN, "ENGINE", "still visible");
	tsi_log(TSI_LOG_INFO, "ENGINE", "below the level");
	restore_stderr(fx);

	err = tsi_test_read_file(fx->err_path);
	assert_non_null(strstr(err, "cannot open POPLAR_LOG_DEST"));
	assert_non_null(strstr(err, "no-such-dir"));
	assert_non_null(strstr(err, " W: still visible\n"));
	assert_null(strstr(err, "below the level"));
	free(err);
}

/* A log file is appended to, not truncated, when logging is reconfigured. */
static void test_dest_appends(void **state)
{
	log_fixture *fx = *state;
	char *text;

	setenv("POPLAR_LOG_DEST", fx->log_path, 1);
	setenv("POPLAR_LOG_LEVEL", "INFO", 1);
	tsi_log_reconfigure();
	tsi_log(TSI_LOG_INFO, "A", "first");
	tsi_log_reconfigure();
	tsi_log(TSI_LOG_INFO, "A", "second");
	text = tsi_test_read_file(fx->log_path);
	assert_non_null(strstr(text, "first"));
	assert_non_null(strstr(text, "second"));
	free(text);
}

#define N_THREADS 4
#define N_LINES 300

static void *log_thread_cb(void *arg)
{
	int id = (int)(intptr_t)arg;

	for (int i = 0; i < N_LINES; i++)
		tsi_log(TSI_LOG_INFO, "THREAD", "thread %d line %d %s", id, i,
		        "padding-padding-padding-padding-padding-padding-padding-padding");
	return NULL;
}

/* Lines written by several threads at once come out whole. */
static void test_threads_do_not_interleave(void **state)
{
	log_fixture *fx = *state;
	pthread_t threads[N_THREADS];
	char *text, *line, *save = NULL;
	int lines = 0;

	setenv("POPLAR_LOG_DEST", fx->log_path, 1);
	setenv("POPLAR_LOG_LEVEL", "INFO", 1);
	tsi_log_reconfigure();
	for (int i = 0; i < N_THREADS; i++)
		assert_int_equal(pthread_create(&threads[i], NULL, log_thread_cb, (void *)(intptr_t)i), 0);
	for (int i = 0; i < N_THREADS; i++)
		pthread_join(threads[i], NULL);

	text = tsi_test_read_file(fx->log_path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int id, n;
		char pad[80];

		assert_true(strncmp(line, "PO:THREAD   ", 12) == 0);
		assert_int_equal(sscanf(strstr(line, " I: "), " I: thread %d line %d %79s", &id, &n, pad),
		                 3);
		assert_string_equal(pad,
		                    "padding-padding-padding-padding-padding-padding-padding-padding");
		lines++;
	}
	assert_int_equal(lines, N_THREADS * N_LINES);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_level_parse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_info_written_debug_suppressed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trace_writes_all_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_off_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_level_disables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unopenable_dest_falls_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dest_appends, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_do_not_interleave, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
