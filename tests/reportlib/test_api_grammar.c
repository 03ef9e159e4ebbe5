/*
 * The empty-error convention of the three libraries, checked: every
 * message accessor (tsr_last_error, tsr_report_error, tsr_trace_error,
 * tsi_error_last, tsi_graph_get_error, tsi_engine_error; pvti shares
 * tsi_error_last) returns "" and never NULL when there has been no
 * failure (on a fresh thread, a fresh handle, a NULL handle), and a
 * message after a failure. The thread-local ones are checked on threads
 * of their own, so no earlier test of this process can have set them.
 */
#include "report-fixture.h"

#include <tilescope/ipu.h>
#include <tilescope/trace.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* What one fresh thread saw: each message before and after a failure. */
typedef struct thread_seen {
	bool tsr_before_null, tsi_before_null; /* the accessors returned NULL */
	char tsr_before[512], tsi_before[512]; /* what they held (they are buffers the
	                                          failures below overwrite) */
	char tsr_after[512], tsi_after[512], pvti_after[512];
	int open_rc, graph_rc;
	bool channel_null;
} thread_seen;

static void copy_msg(char *dst, size_t size, const char *msg)
{
	snprintf(dst, size, "%s", msg ? msg : "(NULL)");
}

/* Runs on a new thread: the thread-local messages start empty, and a
 * failure of each library leaves one. */
static void *fresh_thread(void *arg)
{
	thread_seen *s = arg;
	tsr_report *r = NULL;
	tsi_graph *g = NULL;

	s->tsr_before_null = tsr_last_error() == NULL;
	copy_msg(s->tsr_before, sizeof(s->tsr_before), tsr_last_error());
	s->tsi_before_null = tsi_error_last() == NULL;
	copy_msg(s->tsi_before, sizeof(s->tsi_before), tsi_error_last());
	s->open_rc = tsr_report_open(&r, "/nonexistent/tilescope/profile.pop", NULL);
	copy_msg(s->tsr_after, sizeof(s->tsr_after), tsr_last_error());
	tsr_report_free(r);
	s->graph_rc = tsi_graph_new(&g, NULL, 1);
	copy_msg(s->tsi_after, sizeof(s->tsi_after), tsi_error_last());
	tsi_graph_free(g);
	return NULL;
}

/* A second fresh thread: pvti's failures land in the shared tsi_error_last. */
static void *pvti_thread(void *arg)
{
	thread_seen *s = arg;

	s->tsi_before_null = tsi_error_last() == NULL;
	copy_msg(s->tsi_before, sizeof(s->tsi_before), tsi_error_last());
	s->channel_null = pvti_channel_new("") == NULL;
	copy_msg(s->pvti_after, sizeof(s->pvti_after), tsi_error_last());
	return NULL;
}

static void test_thread_messages(void **state)
{
	thread_seen s;
	pthread_t th;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(pthread_create(&th, NULL, fresh_thread, &s), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_false(s.tsr_before_null);
	assert_string_equal(s.tsr_before, "");
	assert_false(s.tsi_before_null);
	assert_string_equal(s.tsi_before, "");
	assert_int_equal(s.open_rc, TSR_ERR_NOT_FOUND);
	assert_non_null(strstr(s.tsr_after, "/nonexistent/tilescope"));
	assert_true(s.graph_rc < 0);
	assert_string_not_equal(s.tsi_after, "");

	memset(&s, 0, sizeof(s));
	assert_int_equal(pthread_create(&th, NULL, pvti_thread, &s), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_false(s.tsi_before_null);
	assert_string_equal(s.tsi_before, "");
	assert_true(s.channel_null);
	assert_string_not_equal(s.pvti_after, "");
}

/* The handle accessors: "" for NULL, "" on a fresh handle, a message
 * after a failing call on it. */
static void test_handle_messages(void **state)
{
	tsr_fixture *f = *state;
	const tsr_step *steps;
	size_t n;
	const tsr_run *runs;
	size_t n_runs;

	assert_string_equal(tsr_report_error(NULL), "");
	assert_string_equal(tsr_trace_error(NULL), "");
	assert_string_equal(tsi_graph_get_error(NULL), "");
	assert_string_equal(tsi_engine_error(NULL), "");

	/* reportlib's report. */
	assert_non_null(tsr_report_error(f->report));
	assert_string_equal(tsr_report_error(f->report), "");
	assert_int_equal(tsr_report_get_runs(&runs, &n_runs, f->report), TSR_OK);
	assert_int_equal(tsr_report_get_steps(&steps, &n, f->report, n_runs + 5),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_string_not_equal(tsr_report_error(f->report), "");

	/* The runtime's graph and engine: built and run without a failure. */
	assert_int_equal(tsi_graph_error_code(f->graph), TSI_OK);
	assert_non_null(tsi_graph_get_error(f->graph));
	assert_string_equal(tsi_graph_get_error(f->graph), "");
	assert_non_null(tsi_engine_error(f->engine));
	assert_string_equal(tsi_engine_error(f->engine), "");
	assert_true(tsi_engine_run(f->engine, 1000) < 0);
	assert_string_not_equal(tsi_engine_error(f->engine), "");
}

/* A graph that records an error has its message; one that does not, "". */
static void test_graph_message(void **state)
{
	tsi_target target;
	tsi_graph *g = NULL;
	tsi_tensor *v;

	(void)state;
	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK2, 1, 4), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	assert_string_equal(tsi_graph_get_error(g), "");
	v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "grammar_var");
	assert_non_null(v);
	assert_int_equal(tsi_graph_set_tile_mapping(g, v, 99), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(g), "grammar_var"));
	tsi_graph_free(g);
}

/* The trace handle: "" when opened, a message after a bad thread index. */
static void test_trace_message(void **state)
{
	char *dir = tsi_test_mkdtemp();
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *ch = pvti_channel_framework();
	tsr_trace *tr = NULL;
	tsr_trace_item *items = NULL;
	size_t n = 0;
	char *path;

	(void)state;
	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	assert_non_null(path);
	pvti_begin(ch, "grammar");
	pvti_end(ch);
	assert_int_equal(pvti_close(), 0);

	assert_int_equal(tsr_trace_open(&tr, (const char *const *)&path, 1, NULL), TSR_OK);
	assert_non_null(tsr_trace_error(tr));
	assert_string_equal(tsr_trace_error(tr), "");
	assert_int_equal(tsr_trace_list_events(&items, &n, tr, 1000, 0, INT64_MAX, 0),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_string_not_equal(tsr_trace_error(tr), "");
	free(items);
	tsr_trace_free(tr);
	free(path);
	tsi_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(test_thread_messages),
		cmocka_unit_test(test_graph_message),
		cmocka_unit_test(test_trace_message),
	};
	const struct CMUnitTest with_report[] = {
		cmocka_unit_test(test_handle_messages),
	};
	int failed = cmocka_run_group_tests_name("empty errors", plain, NULL, NULL);

	failed += cmocka_run_group_tests_name("empty errors (report)", with_report,
	                                      tsr_fixture_new_matmul, tsr_fixture_delete);
	return failed;
}
