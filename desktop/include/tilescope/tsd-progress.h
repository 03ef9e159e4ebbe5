/*
 * A load's progress, from the worker thread that reads a file with
 * reportlib to the main thread that shows it: what both desktop apps need
 * around every long reportlib call. The worker reports as often as
 * reportlib calls back; the main thread sees at most one pending idle at a
 * time, carrying the latest fraction and message (coalesced, so a fast
 * load never floods the main loop); a cancelled GCancellable makes
 * reportlib stop; and once the caller has been told the load ended
 * (tsd_progress_finish), an idle still queued shows nothing.
 *
 * Threads: tsd_progress_new and the callback run on the thread whose main
 * context was current at creation; tsd_progress_report_cb and _set_phase
 * on the worker; _finish (the worker calls it just before returning its
 * result), _ref and _unref anywhere.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Called on the main thread: fraction in [0, 1] and a short message
 * ("Reading compute sets"). */
typedef void (*TsdProgressFunc)(double fraction, const char *message, gpointer user_data);

typedef struct _TsdProgress TsdProgress;

/* A relay to `func` (may be NULL: progress is dropped, cancellation still
 * works) on the current thread-default main context; `destroy` frees
 * `data` with the last reference. `cancellable` NULL: one of its own. */
TsdProgress *tsd_progress_new(TsdProgressFunc func, gpointer data, GDestroyNotify destroy,
                              GCancellable *cancellable);
TsdProgress *tsd_progress_ref(TsdProgress *p);
void tsd_progress_unref(TsdProgress *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TsdProgress, tsd_progress_unref)

/* The relay's cancellable (borrowed). */
GCancellable *tsd_progress_get_cancellable(TsdProgress *p);

/* reportlib's progress callback (tsr_progress_cb), on the worker, with
 * the relay as its data: maps `fraction` into the current phase, records
 * it, schedules the idle unless one is pending; non-zero (cancel) once
 * the cancellable is cancelled. */
int tsd_progress_report_cb(double fraction, const char *message, void *relay);

/* The share of the bar the next reports fill: [offset, offset + scale]
 * (default [0, 1]). Worker side. */
void tsd_progress_set_phase(TsdProgress *p, double offset, double scale);

/* The load has ended: queued idles show nothing from now (any thread). */
void tsd_progress_finish(TsdProgress *p);

G_END_DECLS
