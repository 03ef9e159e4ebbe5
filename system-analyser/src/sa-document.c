/*
 * Loading traces for the System Analyser (sa-document.h): reportlib's
 * open with its progress callback, then each thread's level of detail of
 * the whole trace built once (the first paint's queries), all in one
 * GTask thread; the main thread gets a finished document or reportlib's
 * one-line message. Statistics run on a second handle in workers.
 */
#include "sa-document.h"

#include <tilescope/tsd-load.h>

#include <string.h>

/* Spans one frame of the timeline may decode one by one, all threads
 * together; past a thread's share its query answers from the level of
 * detail (the main handle's budget, set at load). */
#define FRAME_DECODE_BUDGET (1u << 18)

/* Allocated with g_atomic_rc_box_new0: the box holds the reference count. */
struct _SaDocument {
	char **paths;                 /* the files and directories opened (NULL-terminated) */
	char *title;
	char *skipped;                /* what the imports left out, one line per file and
	                                 kind (sa_document_get_skipped), or NULL */
	tsr_trace *trace;             /* main thread */
	GMutex stats_lock;            /* guards stats_trace */
	tsr_trace *stats_trace;       /* the statistics workers', opened on first use */
};

G_DEFINE_BOXED_TYPE(SaDocument, sa_document, sa_document_ref, sa_document_unref)

SaDocument *sa_document_ref(SaDocument *doc)
{
	return g_atomic_rc_box_acquire(doc);
}

/* What the document holds, freed with its last reference. */
static void clear(gpointer data)
{
	SaDocument *doc = data;

	tsr_trace_free(doc->trace);
	tsr_trace_free(doc->stats_trace);
	g_mutex_clear(&doc->stats_lock);
	g_strfreev(doc->paths);
	g_free(doc->title);
	g_free(doc->skipped);
}

void sa_document_unref(SaDocument *doc)
{
	if (doc)
		g_atomic_rc_box_release_full(doc, clear);
}

/* --- The load ------------------------------------------------------------------- */

/* The local paths of files[0..n), or NULL with an error for a file that is
 * not local (reportlib reads paths). */
static char **paths_of(GFile *const *files, guint n, GError **error)
{
	char **paths = g_new0(char *, n + 1);

	for (guint i = 0; i < n; i++) {
		paths[i] = g_file_get_path(files[i]);
		if (!paths[i]) {
			g_autofree char *uri = g_file_get_uri(files[i]);

			g_set_error(error, SA_DOCUMENT_ERROR, 1, "%s: not a local file", uri);
			g_strfreev(paths);
			return NULL;
		}
	}
	return paths;
}

/* "tut5_ml.pvti" (or "trace.json": reportlib reads Chrome trace-event
 * JSON through the same tsr_trace_open) for one file, "DIR" for a
 * directory, "3 traces" for several files. */
static char *make_title(tsr_trace *trace, char **paths)
{
	const tsr_trace_process *procs;
	size_t n;

	if (tsr_trace_get_processes(&procs, &n, trace) == TSR_OK && n > 1)
		return g_strdup_printf("%zu traces", n);
	return g_path_get_basename(paths[0]);
}

/*
 * What the Chrome JSON imports of `trace` skipped, one line per file and
 * kind: reportlib's line (tsr_trace_list_skipped, the one `tilescope
 * trace` prints) after the file's name, as the CLI prints it but with the
 * base name, which is what the window shows of a file. NULL when nothing
 * was skipped, or when the list cannot be had (the banner is then left
 * out rather than the trace).
 */
static char *make_skipped(tsr_trace *trace)
{
	const tsr_trace_process *procs;
	tsr_trace_skip *skips = NULL;
	size_t n = 0, n_procs = 0;
	GString *text;

	if (tsr_trace_get_processes(&procs, &n_procs, trace) != TSR_OK ||
	    tsr_trace_list_skipped(&skips, &n, trace) != TSR_OK || n == 0)
		return NULL;
	text = g_string_new(NULL);
	for (size_t i = 0; i < n; i++) {
		g_autofree char *base = NULL;

		if (skips[i].process >= n_procs)
			continue;
		base = g_path_get_basename(procs[skips[i].process].path);
		g_string_append_printf(text, "%s%s: %s", text->len ? "\n" : "", base, skips[i].message);
	}
	free(skips);
	return g_string_free(text, text->len == 0);
}

/*
 * The load of `data` (a GPtrArray of GFiles), on the worker (TsdLoadFunc):
 * opens the files (the first four fifths of the bar), then asks each
 * thread once for the whole trace at a coarse resolution, which builds
 * the in-memory level of detail of a file that has none, so the first
 * paint on the main thread costs what any later one does (each thread's
 * a slice of the last fifth). The handle gets the timeline's decode
 * budget first: under reportlib's default one a thread of up to 256 Ki
 * spans was decoded whole here, every span of a 5 M-span trace over 64
 * threads read at open for nothing (a decoded answer is not kept, and
 * the paint asks with the frame's budget, answered by the level of detail).
 */
static gpointer load(gpointer data, TsdProgress *relay, GError **error)
{
	GPtrArray *files = data;
	tsr_trace_open_options opts = TSR_TRACE_OPEN_OPTIONS_INIT;
	const tsr_trace_thread *threads;
	const tsr_trace_info *info;
	SaDocument *doc;
	char **paths = paths_of((GFile *const *)files->pdata, files->len, error);
	size_t n_threads;
	int rc;

	if (!paths)
		return NULL;
	doc = g_atomic_rc_box_new0(SaDocument);
	g_mutex_init(&doc->stats_lock);
	doc->paths = paths;
	opts.progress = tsd_progress_report_cb;
	opts.progress_data = relay;
	tsd_progress_set_phase(relay, 0, 0.8);
	rc = tsr_trace_open(&doc->trace, (const char *const *)doc->paths, files->len, &opts);
	if (rc) {
		tsd_load_set_error(error, rc, tsr_last_error());
		goto fail;
	}
	doc->title = make_title(doc->trace, doc->paths);
	doc->skipped = make_skipped(doc->trace);
	info = tsr_trace_get_info(doc->trace);
	rc = tsr_trace_get_threads(&threads, &n_threads, doc->trace);
	if (rc == TSR_OK)
		tsr_trace_set_decode_budget(doc->trace, MAX(FRAME_DECODE_BUDGET / MAX(n_threads, 1), 4096));
	double share = 0.2 / (double)(n_threads ? n_threads : 1);

	for (size_t t = 0; rc == TSR_OK && t < n_threads; t++) {
		int64_t from = info->start_ns, to = info->end_ns + 1;
		tsr_trace_item *items = NULL;
		size_t n;

		tsd_progress_set_phase(relay, 0.8 + share * (double)t, share);
		if (tsd_progress_report_cb(0, "Building the timeline", relay)) {
			rc = TSR_ERR_CANCELLED;
			break;
		}
		rc = tsr_trace_list_events(&items, &n, doc->trace, t, from, to,
		                           (uint64_t)(to - from) / 1000 + 1);
		free(items);
	}
	if (rc) {
		tsd_load_set_error(error, rc, rc == TSR_ERR_CANCELLED ? "" : tsr_trace_error(doc->trace));
		goto fail;
	}
	/* From now on the main thread owns the handle; its later progress
	 * (tsr_trace_list_events building a level of detail) goes nowhere. */
	tsr_trace_set_progress(doc->trace, NULL, NULL);
	return doc;
fail:
	sa_document_unref(doc);
	return NULL;
}

/* `files`[0..n) as the load's data: a GPtrArray of refs. */
static GPtrArray *files_ref(GFile *const *files, guint n)
{
	GPtrArray *a = g_ptr_array_new_full(n, g_object_unref);

	for (guint i = 0; i < n; i++)
		g_ptr_array_add(a, g_object_ref(files[i]));
	return a;
}

void sa_document_load_async(GFile *const *files, guint n_files, GCancellable *cancellable,
                            TsdProgressFunc progress, gpointer progress_data,
                            GDestroyNotify progress_destroy, GAsyncReadyCallback callback,
                            gpointer user_data)
{
	tsd_load_async(tsd_progress_new(progress, progress_data, progress_destroy, cancellable), load,
	               files_ref(files, n_files), (GDestroyNotify)g_ptr_array_unref,
	               (GDestroyNotify)sa_document_unref, sa_document_load_async, callback,
	               user_data);
}

SaDocument *sa_document_load_finish(GAsyncResult *result, GError **error)
{
	return tsd_load_finish(result, sa_document_load_async, error);
}

SaDocument *sa_document_load(GFile *const *files, guint n_files, GError **error)
{
	g_autoptr(GPtrArray) a = files_ref(files, n_files);

	return tsd_load_run(load, a, NULL, error);
}

const char *sa_document_get_title(SaDocument *doc)
{
	return doc->title;
}

tsr_trace *sa_document_get_trace(SaDocument *doc)
{
	return doc->trace;
}

const char *sa_document_get_skipped(SaDocument *doc)
{
	return doc->skipped;
}

const char *const *sa_document_get_paths(SaDocument *doc)
{
	return (const char *const *)doc->paths;
}

/* --- Statistics ------------------------------------------------------------------ */

void sa_stats_free(sa_stats *stats)
{
	if (!stats)
		return;
	free(stats->labels);
	g_free(stats);
}

/*
 * Opens the second handle on first use (under stats_lock), over the files
 * the main one holds: a Chrome JSON file is not parsed again, both
 * handles read the one database in memory reportlib built from it
 * (tsr_trace_reopen, which may run while the main thread uses the main
 * handle).
 */
static int open_second(SaDocument *doc)
{
	if (doc->stats_trace)
		return TSR_OK;
	return tsr_trace_reopen(&doc->stats_trace, doc->trace, NULL);
}

/*
 * The statistics of a window (data: an sa_stats holding only its range),
 * taken as `tilescope trace` takes them (cmd-trace.c's gather:
 * tsr_trace_list_label_stats with medians over all threads, the span
 * count from tsr_trace_totals_new), on the second handle
 * (SaDocumentJobFunc).
 */
static gpointer stats_job(tsr_trace *trace, gpointer data, GCancellable *cancellable,
                          GError **error)
{
	const sa_stats *range = data;
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_totals_options to = TSR_TRACE_TOTALS_OPTIONS_INIT;
	tsr_trace_totals *totals = NULL;
	sa_stats *s = g_new0(sa_stats, 1);
	int rc;

	s->from_ns = o.from_ns = to.from_ns = range->from_ns;
	s->to_ns = o.to_ns = to.to_ns = range->to_ns;
	rc = tsr_trace_list_label_stats(&s->labels, &s->n_labels, trace, &o);
	if (rc == TSR_OK)
		rc = tsr_trace_totals_new(&totals, trace, &to);
	if (rc) {
		tsd_load_set_error(error, rc, tsr_trace_error(trace));
		sa_stats_free(s);
		return NULL;
	}
	s->spans = totals->spans;
	tsr_trace_totals_free(totals);
	return s;
}

/* The range of the statistics to take, as stats_job's data. */
static sa_stats *stats_range(int64_t from_ns, int64_t to_ns)
{
	sa_stats *range = g_new0(sa_stats, 1);

	range->from_ns = from_ns;
	range->to_ns = to_ns;
	return range;
}

void sa_document_stats_async(SaDocument *doc, int64_t from_ns, int64_t to_ns,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data)
{
	sa_document_run_async(doc, stats_job, stats_range(from_ns, to_ns),
	                      (GDestroyNotify)sa_stats_free, (GDestroyNotify)sa_stats_free,
	                      cancellable, callback, user_data);
}

sa_stats *sa_document_stats_finish(GAsyncResult *result, GError **error)
{
	return sa_document_run_finish(result, error);
}

sa_stats *sa_document_stats(SaDocument *doc, int64_t from_ns, int64_t to_ns, GError **error)
{
	g_autoptr(sa_stats) range = stats_range(from_ns, to_ns);

	return sa_document_run(doc, stats_job, range, NULL, error);
}

/* --- Other work on the second handle ---------------------------------------------- */

/* A job and its document (TsdLoadFunc's data). */
typedef struct run_task {
	SaDocument *doc;
	SaDocumentJobFunc func;
	gpointer data;
	GDestroyNotify data_free;
} run_task;

static void run_task_free(gpointer data)
{
	run_task *rt = data;

	if (rt->data_free)
		rt->data_free(rt->data);
	sa_document_unref(rt->doc);
	g_free(rt);
}

/* Runs the job on the second handle (opened on first use) under its lock,
 * the relay wired to reportlib's progress: only a way to cancel
 * (TsdLoadFunc). */
static gpointer run_job(gpointer data, TsdProgress *relay, GError **error)
{
	run_task *rt = data;
	SaDocument *doc = rt->doc;
	GCancellable *cancellable = tsd_progress_get_cancellable(relay);
	gpointer result = NULL;
	int rc = TSR_OK;

	g_mutex_lock(&doc->stats_lock);
	if ((rc = open_second(doc)) != TSR_OK) {
		tsd_load_set_error(error, rc, tsr_last_error());
	} else if (g_cancellable_set_error_if_cancelled(cancellable, error)) {
		/* Superseded while it waited for the lock. */
	} else {
		tsr_trace_set_progress(doc->stats_trace, tsd_progress_report_cb, relay);
		result = rt->func(doc->stats_trace, rt->data, cancellable, error);
		tsr_trace_set_progress(doc->stats_trace, NULL, NULL);
	}
	g_mutex_unlock(&doc->stats_lock);
	return result;
}

void sa_document_run_async(SaDocument *doc, SaDocumentJobFunc func, gpointer data,
                           GDestroyNotify data_free, GDestroyNotify result_free,
                           GCancellable *cancellable, GAsyncReadyCallback callback,
                           gpointer user_data)
{
	run_task *rt = g_new0(run_task, 1);

	rt->doc = sa_document_ref(doc);
	rt->func = func;
	rt->data = data;
	rt->data_free = data_free;
	tsd_load_async(tsd_progress_new(NULL, NULL, NULL, cancellable), run_job, rt, run_task_free,
	               result_free, sa_document_run_async, callback, user_data);
}

gpointer sa_document_run_finish(GAsyncResult *result, GError **error)
{
	return tsd_load_finish(result, sa_document_run_async, error);
}

gpointer sa_document_run(SaDocument *doc, SaDocumentJobFunc func, gpointer data,
                         GCancellable *cancellable, GError **error)
{
	run_task rt = {doc, func, data, NULL};

	return tsd_load_run(run_job, &rt, cancellable, error);
}
