/*
 * One or several .pvti traces opened for the System Analyser: reportlib's
 * handle over all of them (one time axis), loaded in a worker with
 * coalesced progress and Cancel, and the statistics of a window computed
 * in a worker too.
 *
 * Threads. reportlib's handles are used by one thread at a time. The
 * document's main handle belongs to the main thread once the load has
 * completed (the timeline queries it while drawing). Statistics, and the
 * other details' queries (search, call tree, span details:
 * sa_document_run_async), run on a second handle over the same files
 * (tsr_trace_reopen: a Chrome JSON trace is parsed once and held in
 * memory once for both), opened by the first worker and used by one
 * worker at a time (a lock), so a long query never blocks drawing.
 */
#pragma once

#include <gtk/gtk.h>
#include <tilescope/trace.h>
#include <tilescope/tsd-load.h>

G_BEGIN_DECLS

/* Errors of a load: the reportlib code, negated into a GError code (1:
 * a file that is not local). */
#define SA_DOCUMENT_ERROR TSD_LOAD_ERROR

typedef struct _SaDocument SaDocument;

#define SA_TYPE_DOCUMENT (sa_document_get_type())
GType sa_document_get_type(void) G_GNUC_CONST;

SaDocument *sa_document_ref(SaDocument *doc);
void sa_document_unref(SaDocument *doc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SaDocument, sa_document_unref)

/* Opens files[0..n) (.pvti or Chrome JSON files, or directories of them,
 * as tsr_trace_open takes them) onto one time axis in a worker. `progress` is called on the main thread at most once
 * per main-loop iteration; its data is released with `progress_destroy`
 * when the load is over. Completes with sa_document_load_finish(). */
void sa_document_load_async(GFile *const *files, guint n_files, GCancellable *cancellable,
                            TsdProgressFunc progress, gpointer progress_data,
                            GDestroyNotify progress_destroy, GAsyncReadyCallback callback,
                            gpointer user_data);
/* The document, or NULL with reportlib's one-line message in `error`
 * (G_IO_ERROR_CANCELLED when cancelled). */
SaDocument *sa_document_load_finish(GAsyncResult *result, GError **error);
/* The same on the calling thread (tests, benchmarks). */
SaDocument *sa_document_load(GFile *const *files, guint n_files, GError **error);

/* "tut5_ml.pvti", or "3 traces" for several files. */
const char *sa_document_get_title(SaDocument *doc);
/* What the Chrome JSON imports skipped, one line per file and kind
 * ("deep.json: 9,750 events skipped: nested past 250 levels", the line
 * `tilescope trace` prints), or NULL when they skipped nothing. */
const char *sa_document_get_skipped(SaDocument *doc);
/* The main handle (main thread only, see Threads). */
tsr_trace *sa_document_get_trace(SaDocument *doc);
/* The files and directories opened, NULL-terminated (what a reload opens
 * again and the recent list records). */
const char *const *sa_document_get_paths(SaDocument *doc);

/* The statistics of one window: what `tilescope trace --from --to --json`
 * prints for it (tsr_trace_list_label_stats with medians, and the spans of
 * tsr_trace_totals_new). */
typedef struct sa_stats {
	int64_t from_ns, to_ns;       /* spans starting in [from_ns, to_ns); INT64_MIN /
	                                 INT64_MAX: the whole trace */
	tsr_trace_label_stat *labels; /* largest total first */
	size_t n_labels;
	uint64_t spans;               /* spans in the window */
} sa_stats;
void sa_stats_free(sa_stats *stats);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(sa_stats, sa_stats_free)

/* Computes the statistics of [from_ns, to_ns) in a worker; completes with
 * sa_document_stats_finish() (the caller frees the answer with
 * sa_stats_free). */
void sa_document_stats_async(SaDocument *doc, int64_t from_ns, int64_t to_ns,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data);
sa_stats *sa_document_stats_finish(GAsyncResult *result, GError **error);
/* The same on the calling thread (tests, benchmarks). */
sa_stats *sa_document_stats(SaDocument *doc, int64_t from_ns, int64_t to_ns, GError **error);

/* --- Other work on the second handle ------------------------------------------ */

/* Work for a worker on the document's second handle (the statistics'
 * one, under its lock, with a progress callback that only cancels): a
 * result, or NULL with `error` set (tsd_load_set_error). */
typedef gpointer (*SaDocumentJobFunc)(tsr_trace *trace, gpointer data, GCancellable *cancellable,
                                      GError **error);

/* Runs `func` (with `data`, released with `data_free`) in a worker;
 * completes with sa_document_run_finish(), whose result the caller frees
 * with `result_free` (also used when nobody takes it). */
void sa_document_run_async(SaDocument *doc, SaDocumentJobFunc func, gpointer data,
                           GDestroyNotify data_free, GDestroyNotify result_free,
                           GCancellable *cancellable, GAsyncReadyCallback callback,
                           gpointer user_data);
gpointer sa_document_run_finish(GAsyncResult *result, GError **error);
/* The same on the calling thread (tests, benchmarks). */
gpointer sa_document_run(SaDocument *doc, SaDocumentJobFunc func, gpointer data,
                         GCancellable *cancellable, GError **error);

G_END_DECLS
