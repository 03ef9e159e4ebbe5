/*
 * Long reportlib work on a worker thread (tsd-load.h): one GTask shape for
 * every load, comparison and query of both apps.
 */
#include "tilescope/tsd-load.h"

#include <tilescope/report.h>

/* What the task holds while it runs. */
typedef struct load_task {
	TsdProgress *relay;
	TsdLoadFunc func;
	gpointer data;
	GDestroyNotify data_free, result_free;
} load_task;

static void load_task_free(load_task *lt)
{
	if (lt->data_free)
		lt->data_free(lt->data);
	tsd_progress_unref(lt->relay);
	g_free(lt);
}

static void load_thread(GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
	load_task *lt = task_data;
	GError *error = NULL;
	gpointer result = lt->func(lt->data, lt->relay, &error);

	(void)source;
	(void)cancellable;
	/* GTask completes at a higher priority than idles: progress still
	 * queued then is stale, and must show nothing. */
	tsd_progress_finish(lt->relay);
	if (result)
		g_task_return_pointer(task, result, lt->result_free);
	else
		g_task_return_error(task, error);
}

void tsd_load_async(TsdProgress *relay, TsdLoadFunc func, gpointer data, GDestroyNotify data_free,
                    GDestroyNotify result_free, gpointer source_tag,
                    GAsyncReadyCallback callback, gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(NULL, tsd_progress_get_cancellable(relay), callback,
	                                   user_data);
	load_task *lt = g_new0(load_task, 1);

	lt->relay = relay;
	lt->func = func;
	lt->data = data;
	lt->data_free = data_free;
	lt->result_free = result_free;
	g_task_set_source_tag(task, source_tag);
	g_task_set_task_data(task, lt, (GDestroyNotify)load_task_free);
	g_task_run_in_thread(task, load_thread);
}

gpointer tsd_load_finish(GAsyncResult *result, gpointer source_tag, GError **error)
{
	g_return_val_if_fail(g_task_is_valid(result, NULL), NULL);
	g_return_val_if_fail(g_task_get_source_tag(G_TASK(result)) == source_tag, NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}

gpointer tsd_load_run(TsdLoadFunc func, gpointer data, GCancellable *cancellable, GError **error)
{
	g_autoptr(TsdProgress) relay = tsd_progress_new(NULL, NULL, NULL, cancellable);
	gpointer result = func(data, relay, error);

	tsd_progress_finish(relay);
	return result;
}

G_DEFINE_QUARK(tsd-load-error-quark, tsd_load_error)

void tsd_load_set_error(GError **error, int code, const char *message)
{
	if (code == TSR_ERR_CANCELLED)
		g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
	else
		g_set_error_literal(error, TSD_LOAD_ERROR, -code, message);
}
