/*
 * Long reportlib work on a worker thread, as both desktop apps run it: a
 * report's or a trace's load, a comparison, a search. The work runs in a
 * GTask thread with a progress relay (tsd-progress.h: reports coalesced
 * into one idle on the main thread, a cancelled GCancellable makes
 * reportlib stop); once the work returns, the relay is finished, so an
 * idle still queued shows nothing after the result (GTask completes at a
 * higher priority than idles).
 *
 * Threads: tsd_load_async and _finish on the main thread, the TsdLoadFunc
 * on the worker.
 */
#pragma once

#include <tilescope/tsd-progress.h>

G_BEGIN_DECLS

/* The work, on the worker: a result, or NULL with *error set. `relay`
 * (borrowed) is reportlib's progress callback data for
 * tsd_progress_report_cb; its cancellable is the work's. */
typedef gpointer (*TsdLoadFunc)(gpointer data, TsdProgress *relay, GError **error);

/* Runs func(data, relay, error) in a worker thread. Takes `relay` (the
 * task holds it until it ends) and `data` (released with `data_free`,
 * may be NULL, once the task is over); a result nobody takes is released
 * with `result_free`. `source_tag` identifies the task for
 * tsd_load_finish (the app's _async function). */
void tsd_load_async(TsdProgress *relay, TsdLoadFunc func, gpointer data, GDestroyNotify data_free,
                    GDestroyNotify result_free, gpointer source_tag,
                    GAsyncReadyCallback callback, gpointer user_data);

/* The result of a tsd_load_async of `source_tag` (the caller owns it), or
 * NULL with *error set (G_IO_ERROR_CANCELLED when it was cancelled). */
gpointer tsd_load_finish(GAsyncResult *result, gpointer source_tag, GError **error);

/* The same work on the calling thread (tests, benchmarks), cancelled by
 * `cancellable` (may be NULL), with no progress shown. */
gpointer tsd_load_run(TsdLoadFunc func, gpointer data, GCancellable *cancellable, GError **error);

/* The errors of a load: reportlib's code (a TSR_ERR_*), negated into the
 * GError's code, with reportlib's one-line message. */
#define TSD_LOAD_ERROR (tsd_load_error_quark())
GQuark tsd_load_error_quark(void);

/* A GError from reportlib's code and message: cancellation as GIO's
 * G_IO_ERROR_CANCELLED "Cancelled", any other code in TSD_LOAD_ERROR. */
void tsd_load_set_error(GError **error, int code, const char *message);

G_END_DECLS
