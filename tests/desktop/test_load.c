/*
 * tsd_load_async and friends (tsd-load.h): the work runs off the main
 * thread; its reports reach the main thread coalesced (many reports while
 * the main loop is busy show once, with the latest fraction and message);
 * nothing shows once the caller has its result; cancelling stops the work
 * and completes with G_IO_ERROR_CANCELLED; the synchronous form and the
 * error mapping. No fixed waits: every wait is on a condition, with a
 * generous deadline.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/report.h>
#include <tilescope/tsd-load.h>

#define DEADLINE_US (60 * G_USEC_PER_SEC)

/* The tasks' source tags (an object's address, not a function's: ISO C). */
static int report_tag, cancel_tag;

/* What the main thread and the worker share in one test. */
typedef struct fixture {
	GMutex lock;
	GCond cond;
	gboolean reported;     /* the worker has made all its reports */
	gboolean go;           /* the main thread lets the worker return */
	GThread *main_thread;
	GThread *worker;       /* the thread the work ran on */
	TsdProgress *relay;    /* the work's relay, kept by the test */
	int n_reports;         /* reports the work makes */
	/* main thread only */
	int shown;             /* progress callbacks */
	double fraction;       /* the last one's */
	char message[64];
	gboolean shown_off_main;
	gboolean done;         /* the ready callback has run */
	int shown_after_done;
	gpointer result;
	GError *error;
	gboolean data_freed;
	GCancellable *cancel;  /* cancelled at the first progress shown, or NULL */
} fixture;

static void on_progress(double fraction, const char *message, gpointer data)
{
	fixture *f = data;

	f->shown++;
	f->fraction = fraction;
	g_strlcpy(f->message, message, sizeof(f->message));
	f->shown_off_main |= g_thread_self() != f->main_thread;
	if (f->done)
		f->shown_after_done++;
}

static void wait_for(fixture *f, gboolean *flag)
{
	gint64 end = g_get_monotonic_time() + DEADLINE_US;

	g_mutex_lock(&f->lock);
	while (!*flag)
		if (!g_cond_wait_until(&f->cond, &f->lock, end))
			break;
	g_mutex_unlock(&f->lock);
	assert_true(*flag);
}

static void set_flag(fixture *f, gboolean *flag)
{
	g_mutex_lock(&f->lock);
	*flag = TRUE;
	g_cond_broadcast(&f->cond);
	g_mutex_unlock(&f->lock);
}

/* The work: n_reports reports, then waits for the main thread's go. */
static gpointer report_then_wait(gpointer data, TsdProgress *relay, GError **error)
{
	fixture *f = data;

	(void)error;
	f->worker = g_thread_self();
	f->relay = tsd_progress_ref(relay);
	tsd_progress_set_phase(relay, 0.5, 0.5);
	for (int i = 0; i < f->n_reports; i++) {
		char message[32];

		g_snprintf(message, sizeof(message), "step %d", i);
		tsd_progress_report_cb((double)(i + 1) / f->n_reports, message, relay);
	}
	set_flag(f, &f->reported);
	wait_for(f, &f->go);
	return g_strdup("the result");
}

static void on_ready(GObject *source, GAsyncResult *result, gpointer data)
{
	fixture *f = data;

	(void)source;
	f->result = tsd_load_finish(result, &report_tag, &f->error);
	f->done = TRUE;
}

static void free_data(gpointer data)
{
	g_atomic_int_set(&((fixture *)data)->data_freed, TRUE);
}

/* Runs the main context until `flag` is set (or the deadline passes);
 * polls, as a flag may be set by a worker without waking the context. */
static void iterate_until(gboolean *flag)
{
	gint64 end = g_get_monotonic_time() + DEADLINE_US;

	while (!g_atomic_int_get(flag) && g_get_monotonic_time() < end)
		if (!g_main_context_iteration(NULL, FALSE))
			g_usleep(1000);
	assert_true(*flag);
}

/* Dispatches whatever is pending, without blocking. */
static void drain(void)
{
	while (g_main_context_iteration(NULL, FALSE))
		;
}

static void test_coalesced_then_silent(void **state)
{
	fixture f = {0};

	(void)state;
	g_mutex_init(&f.lock);
	g_cond_init(&f.cond);
	f.main_thread = g_thread_self();
	f.n_reports = 1000;
	tsd_load_async(tsd_progress_new(on_progress, &f, NULL, NULL), report_then_wait, &f, free_data,
	               g_free, &report_tag, on_ready, &f);
	/* A thousand reports while the main loop was away: one idle, with the
	 * last of them, mapped into the phase [0.5, 1]. */
	wait_for(&f, &f.reported);
	drain();
	assert_int_equal(f.shown, 1);
	assert_true(f.fraction > 0.999 && f.fraction <= 1.0);
	assert_string_equal(f.message, "step 999");
	assert_false(f.shown_off_main);
	assert_true(f.worker != f.main_thread);
	/* A report after the main loop caught up shows again. */
	tsd_progress_set_phase(f.relay, 0, 1);
	tsd_progress_report_cb(0.25, "again", f.relay);
	drain();
	assert_int_equal(f.shown, 2);
	assert_string_equal(f.message, "again");

	set_flag(&f, &f.go);
	iterate_until(&f.done);
	assert_null(f.error);
	assert_string_equal(f.result, "the result");
	/* The caller has its result: a report now (a reportlib call that
	 * still holds the relay) shows nothing. */
	tsd_progress_report_cb(0.5, "stale", f.relay);
	drain();
	assert_int_equal(f.shown_after_done, 0);
	assert_int_equal(f.shown, 2);
	tsd_progress_unref(f.relay);
	/* The task lets its data go once the worker has let the task go. */
	iterate_until(&f.data_freed);
	g_free(f.result);
	g_cond_clear(&f.cond);
	g_mutex_clear(&f.lock);
}

/* The work: reports until told to stop, as reportlib does when its
 * progress callback answers non-zero. */
static gpointer until_cancelled(gpointer data, TsdProgress *relay, GError **error)
{
	gint64 end = g_get_monotonic_time() + DEADLINE_US;

	(void)data;
	while (g_get_monotonic_time() < end) {
		if (tsd_progress_report_cb(0.1, "working", relay)) {
			tsd_load_set_error(error, TSR_ERR_CANCELLED, "cancelled in the work");
			return NULL;
		}
		g_thread_yield();
	}
	return g_strdup("never cancelled");
}

static void on_cancelled_ready(GObject *source, GAsyncResult *result, gpointer data)
{
	fixture *f = data;

	(void)source;
	f->result = tsd_load_finish(result, &cancel_tag, &f->error);
	f->done = TRUE;
}

static void cancel_on_progress(double fraction, const char *message, gpointer data)
{
	fixture *f = data;

	on_progress(fraction, message, data);
	g_cancellable_cancel(f->cancel);
}

static void test_cancel(void **state)
{
	fixture f = {0};
	GCancellable *cancellable = g_cancellable_new();

	(void)state;
	f.main_thread = g_thread_self();
	f.cancel = cancellable;
	tsd_load_async(tsd_progress_new(cancel_on_progress, &f, NULL, cancellable), until_cancelled,
	               &f, NULL, g_free, &cancel_tag, on_cancelled_ready, &f);
	iterate_until(&f.done);
	/* The first progress shown cancelled the work; none shows after. */
	assert_int_equal(f.shown, 1);
	assert_null(f.result);
	assert_non_null(f.error);
	assert_true(g_error_matches(f.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
	drain();
	assert_int_equal(f.shown, 1);
	assert_false(f.shown_off_main);
	g_clear_error(&f.error);
	g_object_unref(cancellable);
}

/* The synchronous form: the same work on the calling thread, cancelled by
 * its cancellable, progress going nowhere. */
static gpointer sync_work(gpointer data, TsdProgress *relay, GError **error)
{
	int *calls = data;

	(*calls)++;
	if (tsd_progress_report_cb(0.5, "half", relay)) {
		tsd_load_set_error(error, TSR_ERR_CANCELLED, "");
		return NULL;
	}
	return g_strdup("done");
}

static void test_run(void **state)
{
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	g_autoptr(GError) error = NULL;
	g_autofree char *result = NULL;
	int calls = 0;

	(void)state;
	result = tsd_load_run(sync_work, &calls, NULL, &error);
	assert_string_equal(result, "done");
	assert_null(error);
	g_cancellable_cancel(cancellable);
	assert_null(tsd_load_run(sync_work, &calls, cancellable, &error));
	assert_true(g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
	assert_int_equal(calls, 2);
	drain();
}

static void test_set_error(void **state)
{
	g_autoptr(GError) cancelled = NULL;
	g_autoptr(GError) bad = NULL;

	(void)state;
	tsd_load_set_error(&cancelled, TSR_ERR_CANCELLED, "ignored");
	assert_true(g_error_matches(cancelled, G_IO_ERROR, G_IO_ERROR_CANCELLED));
	assert_string_equal(cancelled->message, "Cancelled");
	tsd_load_set_error(&bad, TSR_ERR_CORRUPT, "profile.pop: not a profile");
	assert_true(g_error_matches(bad, TSD_LOAD_ERROR, -TSR_ERR_CORRUPT));
	assert_string_equal(bad->message, "profile.pop: not a profile");
	/* NULL error: nothing to set, no crash. */
	tsd_load_set_error(NULL, TSR_ERR_CORRUPT, "x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coalesced_then_silent),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_set_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
