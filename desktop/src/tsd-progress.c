/*
 * The worker-to-main-thread progress relay of both desktop apps
 * (tsd-progress.h).
 */
#include "tilescope/tsd-progress.h"

#include <stdbool.h>
#include <string.h>

struct _TsdProgress {
	gatomicrefcount ref;
	TsdProgressFunc func;
	gpointer data;
	GDestroyNotify destroy;
	GCancellable *cancellable;
	GMainContext *context;
	GMutex lock;
	double fraction;       /* under lock */
	char message[96];      /* under lock */
	bool idle_pending;     /* under lock */
	bool finished;         /* under lock: the load has ended */
	double offset, scale;  /* the current phase (worker only) */
};

TsdProgress *tsd_progress_new(TsdProgressFunc func, gpointer data, GDestroyNotify destroy,
                              GCancellable *cancellable)
{
	TsdProgress *p = g_new0(TsdProgress, 1);

	g_atomic_ref_count_init(&p->ref);
	g_mutex_init(&p->lock);
	p->func = func;
	p->data = data;
	p->destroy = destroy;
	p->cancellable = cancellable ? g_object_ref(cancellable) : g_cancellable_new();
	p->context = g_main_context_ref_thread_default();
	p->scale = 1;
	return p;
}

TsdProgress *tsd_progress_ref(TsdProgress *p)
{
	g_atomic_ref_count_inc(&p->ref);
	return p;
}

void tsd_progress_unref(TsdProgress *p)
{
	if (!p || !g_atomic_ref_count_dec(&p->ref))
		return;
	if (p->destroy)
		p->destroy(p->data);
	g_clear_object(&p->cancellable);
	g_main_context_unref(p->context);
	g_mutex_clear(&p->lock);
	g_free(p);
}

GCancellable *tsd_progress_get_cancellable(TsdProgress *p)
{
	return p->cancellable;
}

/* The idle on the main thread: shows the latest progress, unless the load
 * ended or was cancelled in the meantime. */
static gboolean show(gpointer data)
{
	TsdProgress *p = data;
	char message[sizeof(p->message)];
	double fraction;
	bool finished;

	g_mutex_lock(&p->lock);
	fraction = p->fraction;
	memcpy(message, p->message, sizeof(message));
	p->idle_pending = false;
	finished = p->finished;
	g_mutex_unlock(&p->lock);
	if (p->func && !finished && !g_cancellable_is_cancelled(p->cancellable))
		p->func(fraction, message, p->data);
	return G_SOURCE_REMOVE;
}

int tsd_progress_report_cb(double fraction, const char *message, void *relay)
{
	TsdProgress *p = relay;
	bool schedule;

	if (g_cancellable_is_cancelled(p->cancellable))
		return 1;
	if (!p->func)
		return 0;
	g_mutex_lock(&p->lock);
	p->fraction = p->offset + p->scale * fraction;
	g_strlcpy(p->message, message ? message : "", sizeof(p->message));
	schedule = !p->idle_pending && !p->finished;
	p->idle_pending |= schedule;
	g_mutex_unlock(&p->lock);
	if (schedule) {
		GSource *src = g_idle_source_new();

		g_source_set_callback(src, show, tsd_progress_ref(p), (GDestroyNotify)tsd_progress_unref);
		g_source_attach(src, p->context);
		g_source_unref(src);
	}
	return 0;
}

void tsd_progress_set_phase(TsdProgress *p, double offset, double scale)
{
	p->offset = offset;
	p->scale = scale;
}

void tsd_progress_finish(TsdProgress *p)
{
	g_mutex_lock(&p->lock);
	p->finished = true;
	g_mutex_unlock(&p->lock);
}
