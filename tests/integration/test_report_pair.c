/*
 * Issue 33: reading a report while a model rewrites it. A writer process
 * runs a model again and again into one autoReport directory (each run a
 * new process, so each report has a new identity: a new profile.pop and
 * a new debug.cbor), while this process opens the report and reads its
 * operations (which read debug.cbor and check it against profile.pop)
 * hundreds of times. The pair rule (db-schema/profile.sql) promises that
 * no read ever fails: the writer keeps a matching pair or profile.pop
 * alone in the directory, and the reader takes both files from one
 * moment.
 *
 * Nothing here waits for a time: the reads go on until READS_WANTED
 * reads have been made and the writer has replaced the report at least
 * REWRITES_WANTED times while they ran, under a deadline far above what
 * any machine needs.
 */
#include "test-util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tilescope/ipu.h>
#include <tilescope/popops.h>
#include <tilescope/report.h>

#define READS_WANTED 500
#define REWRITES_WANTED 5
#define DEADLINE_S 600.0 /* idle: a few seconds */

typedef struct fixture {
	char *dir;    /* temporary directory; the report goes to dir/report */
	pid_t writer; /* the writer process, killed in teardown when still set */
	int ran;      /* read end of the writer's pipe: one byte per report, or -1 */
} fixture;

/* One model run as a user's model would do it: x + y on 8 tiles, the
 * report (profile.pop with its run, debug.cbor) in `report_dir`. Exits
 * 0 when the report was written. */
static void model_once(const char *report_dir)
{
	tsi_test_model m;
	tsi_tensor *x, *y;
	char json[4400];

	snprintf(json, sizeof(json), "{\"autoReport.all\":\"true\",\"autoReport.directory\":\"%s\"}",
	         report_dir);
	setenv("POPLAR_ENGINE_OPTIONS", json, 1);
	tsi_test_model_init(&m, 1, 8, 1);
	if (tsi_popops_add_codelets(m.graph))
		_exit(3);
	x = tsi_graph_add_variable(m.graph, TSI_FLOAT, TSI_SHAPE(64), "x");
	y = tsi_graph_add_variable(m.graph, TSI_FLOAT, TSI_SHAPE(64), "y");
	if (!x || !y)
		_exit(3);
	tsi_graph_map_linearly(m.graph, x, 1);
	tsi_graph_map_linearly(m.graph, y, 1);
	m.seq = tsi_prog_sequence(m.graph, NULL);
	if (!tsi_popops_add(m.graph, x, y, m.seq, "sum") ||
	    tsi_engine_new(&m.engine, m.graph, &m.seq, 1, NULL) ||
	    tsi_engine_load(m.engine, m.device) || tsi_engine_run(m.engine, 0))
		_exit(4);
	tsi_test_model_free(&m); /* the report is complete when the engine is freed */
	_exit(0);
}

/* The writer: runs the model in a new process again and again, writing
 * a byte to `ran` after each; ends when a run fails or the pipe closes. */
static void writer_main(const char *report_dir, int ran)
{
	char byte = 'w';

	signal(SIGPIPE, SIG_IGN);
	for (;;) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			_exit(5);
		if (pid == 0)
			model_once(report_dir);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			_exit(6);
		if (write(ran, &byte, 1) != 1)
			_exit(0);
	}
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->dir = tsi_test_mkdtemp();
	f->ran = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	if (f->writer > 0) {
		kill(f->writer, SIGKILL);
		waitpid(f->writer, NULL, 0);
	}
	if (f->ran >= 0)
		close(f->ran);
	tsi_test_rmtree(f->dir);
	free(f);
	return 0;
}

/* Bytes waiting on the writer's pipe (reports written since the last
 * call); fails the test when the writer has ended. */
static int drain(fixture *f)
{
	struct pollfd p = {.fd = f->ran, .events = POLLIN};
	char buf[64];
	int n = 0;

	while (poll(&p, 1, 0) == 1) {
		ssize_t k = read(f->ran, buf, sizeof(buf));

		if (k <= 0) {
			int status = 0;

			waitpid(f->writer, &status, 0);
			f->writer = 0;
			fail_msg("the writer ended (status %d) after %d reports", status, n);
		}
		n += (int)k;
	}
	return n;
}

static void test_reads_while_rewritten(void **state)
{
	fixture *f = *state;
	char report_dir[4200], pop[4300];
	int p[2], reads = 0, rewrites = 0, with_debug = 0, ops_min = -1;
	double deadline = tsi_test_now_s() + DEADLINE_S;

	snprintf(report_dir, sizeof(report_dir), "%s/report", f->dir);
	snprintf(pop, sizeof(pop), "%s/profile.pop", report_dir);
	assert_int_equal(pipe(p), 0);
	f->writer = fork();
	assert_true(f->writer >= 0);
	if (f->writer == 0) {
		close(p[0]);
		writer_main(report_dir, p[1]);
	}
	close(p[1]);
	f->ran = p[0];
	/* The first report, before any read can expect one. */
	while (!drain(f)) {
		if (tsi_test_now_s() > deadline)
			fail_msg("the writer wrote no report by the deadline");
		poll(NULL, 0, 1);
	}
	while (reads < READS_WANTED || rewrites < REWRITES_WANTED) {
		tsr_report *r = NULL;
		tsr_operation *ops = NULL;
		size_t n_ops = 0;
		int rc;

		if (tsi_test_now_s() > deadline)
			fail_msg("by the deadline: %d reads while the report was replaced %d times "
			         "(%d and %d wanted)",
			         reads, rewrites, READS_WANTED, REWRITES_WANTED);
		rc = tsr_report_open(&r, report_dir, NULL);
		if (rc)
			fail_msg("read %d: open: %s", reads + 1, tsr_last_error());
		if (tsr_report_get_debug_info_path(r))
			with_debug++;
		rc = tsr_report_list_operations(&ops, &n_ops, r, -1);
		if (rc) {
			char why[600];

			snprintf(why, sizeof(why), "%s", tsr_report_error(r));
			tsr_report_free(r);
			fail_msg("read %d: operations: %s", reads + 1, why);
		}
		if (ops_min < 0 || (int)n_ops < ops_min)
			ops_min = (int)n_ops;
		free(ops);
		tsr_report_free(r);
		reads++;
		rewrites += drain(f);
	}
	print_message("%d reads while the report was replaced %d times, %d of them with a "
	              "debug.cbor, no failure\n",
	              reads, rewrites, with_debug);
	/* The reads saw the debug information, not only profile.pop alone. */
	assert_true(with_debug > 0);
	assert_true(ops_min > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reads_while_rewritten, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
