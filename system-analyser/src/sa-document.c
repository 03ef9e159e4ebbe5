/*
 * Loading traces for the System Analyser (sa-document.h): reportlib's
 * open with its progress callback, then each thread's level of detail of
 * the whole trace built once (the first paint's queries), all in one
 * GTask thread; the main thread gets a finished document or reportlib's
 * one-line message. Statistics run on a second handle in workers.
 */
#include "sa-document.h"

#include <tilescope/tsd-progress.h>

#include <string.h>

struct _SaDocument {
	gatomicrefcount ref;
	char **paths;                 /* the files and directories opened (NULL-terminated) */
	char *title;
	char *skipped;                /* what the imports left out, one line per file and
	                                 kind (sa_document_get_skipped), or NULL */
	tsr_trace *trace;             /* main thread */
	GMutex stats_lock;            /* guards stats_trace */
	tsr_trace *stats_trace;       /* the statistics workers', opened on first use */
	double load_seconds;
};

G_DEFINE_BOXED_TYPE(SaDocument, sa_document, sa_document_ref, sa_document_unref)
G_DEFINE_QUARK(sa-document-error-quark, sa_document_error)

SaDocument *sa_document_ref(SaDocument *doc)
{
	g_return_val_if_fail(doc, NULL);
	g_atomic_ref_count_inc(&doc->ref);
	return doc;
}

void sa_document_unref(SaDocument *doc)
{
	if (!doc || !g_atomic_ref_count_dec(&doc->ref))
		return;
	tsr_trace_free(doc->trace);
	tsr_trace_free(doc->stats_trace);
	g_mutex_clear(&doc->stats_lock);
	g_strfreev(doc->paths);
	g_free(doc->title);
	g_free(doc->skipped);
	g_free(doc);
}

/* --- Progress, from the worker to the main thread ---------------------------- */

/* What a load's worker needs: the paths and the progress relay
 * (tsd-progress.h: coalesced, cancel-aware, silent once the load ended).
 * The timeline's threads are built after the files are read: the relay's
 * phase maps reportlib's fractions into 0-0.8, then each thread's into a
 * slice of the rest. */
typedef struct load_state {
	char **paths;
	TsdProgress *relay;
} load_state;

static void load_state_free(load_state *ls)
{
	g_strfreev(ls->paths);
	tsd_progress_unref(ls->relay);
	g_free(ls);
}

/* --- The load ------------------------------------------------------------------- */

/* A GError from reportlib's code and message (cancellation as GIO's). */
static void set_error(GError **error, int code, const char *message)
{
	if (code == TSR_ERR_CANCELLED)
		g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Cancelled");
	else
		g_set_error_literal(error, SA_DOCUMENT_ERROR, -code, message);
}

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
 * The load, on the worker (or the caller's thread when `ls` has no
 * context): opens the files (the first four fifths of the bar), then asks
 * each thread once for the whole trace at a coarse resolution, which
 * builds the in-memory level of detail of a file that has none, so the
 * first paint on the main thread costs what any later one does.
 */
static SaDocument *load(load_state *ls, GError **error)
{
	tsr_trace_open_options opts = TSR_TRACE_OPEN_OPTIONS_INIT;
	gint64 t0 = g_get_monotonic_time();
	const tsr_trace_thread *threads;
	const tsr_trace_info *info;
	SaDocument *doc;
	size_t n_threads, n_paths = g_strv_length(ls->paths);
	int rc;

	doc = g_new0(SaDocument, 1);
	g_atomic_ref_count_init(&doc->ref);
	g_mutex_init(&doc->stats_lock);
	doc->paths = g_strdupv(ls->paths);
	opts.progress = tsd_progress_report_cb;
	opts.progress_data = ls->relay;
	tsd_progress_set_phase(ls->relay, 0, 0.8);
	rc = tsr_trace_open(&doc->trace, (const char *const *)doc->paths, n_paths, &opts);
	if (rc) {
		set_error(error, rc, tsr_last_error());
		goto fail;
	}
	doc->title = make_title(doc->trace, doc->paths);
	doc->skipped = make_skipped(doc->trace);
	info = tsr_trace_get_info(doc->trace);
	rc = tsr_trace_get_threads(&threads, &n_threads, doc->trace);
	double share = 0.2 / (double)(n_threads ? n_threads : 1);

	for (size_t t = 0; rc == TSR_OK && t < n_threads; t++) {
		int64_t from = info->start_ns, to = info->end_ns + 1;
		tsr_trace_item *items = NULL;
		size_t n;

		tsd_progress_set_phase(ls->relay, 0.8 + share * (double)t, share);
		if (tsd_progress_report_cb(0, "Building the timeline", ls->relay)) {
			rc = TSR_ERR_CANCELLED;
			break;
		}
		rc = tsr_trace_list_events(&items, &n, doc->trace, t, from, to,
		                           (uint64_t)(to - from) / 1000 + 1);
		free(items);
	}
	if (rc) {
		set_error(error, rc, rc == TSR_ERR_CANCELLED ? "" : tsr_trace_error(doc->trace));
		goto fail;
	}
	/* From now on the main thread owns the handle; its later progress
	 * (tsr_trace_list_events building a level of detail) goes nowhere. */
	tsr_trace_set_progress(doc->trace, NULL, NULL);
	doc->load_seconds = (double)(g_get_monotonic_time() - t0) / 1e6;
	return doc;
fail:
	sa_document_unref(doc);
	return NULL;
}

static void load_thread(GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
	load_state *ls = task_data;
	GError *error = NULL;
	SaDocument *doc = load(ls, &error);

	(void)source;
	(void)cancellable;
	/* GTask completes at a higher priority than idles: progress still
	 * queued then is stale, and must show nothing. */
	tsd_progress_finish(ls->relay);
	if (doc)
		g_task_return_pointer(task, doc, (GDestroyNotify)sa_document_unref);
	else
		g_task_return_error(task, error);
}

static load_state *load_state_new(char **paths, GCancellable *cancellable,
                                  SaLoadProgressFunc progress, gpointer progress_data,
                                  GDestroyNotify progress_destroy)
{
	load_state *ls = g_new0(load_state, 1);

	ls->paths = paths;
	ls->relay = tsd_progress_new(progress, progress_data, progress_destroy, cancellable);
	return ls;
}

void sa_document_load_async(GFile *const *files, guint n_files, GCancellable *cancellable,
                            SaLoadProgressFunc progress, gpointer progress_data,
                            GDestroyNotify progress_destroy, GAsyncReadyCallback callback,
                            gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(NULL, cancellable, callback, user_data);
	GError *error = NULL;
	char **paths = paths_of(files, n_files, &error);

	g_task_set_source_tag(task, sa_document_load_async);
	if (!paths) {
		if (progress_destroy)
			progress_destroy(progress_data);
		g_task_return_error(task, error);
		return;
	}
	g_task_set_task_data(task,
	                     load_state_new(paths, cancellable, progress, progress_data,
	                                    progress_destroy),
	                     (GDestroyNotify)load_state_free);
	g_task_run_in_thread(task, load_thread);
}

SaDocument *sa_document_load_finish(GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(g_task_is_valid(result, NULL), NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}

SaDocument *sa_document_load(GFile *const *files, guint n_files, GError **error)
{
	char **paths = paths_of(files, n_files, error);
	load_state *ls;
	SaDocument *doc;

	if (!paths)
		return NULL;
	ls = load_state_new(paths, NULL, NULL, NULL, NULL);
	doc = load(ls, error);
	load_state_free(ls);
	return doc;
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

double sa_document_get_load_seconds(SaDocument *doc)
{
	return doc->load_seconds;
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

/* Statistics progress: only a way to cancel. */
static int stats_progress(double fraction, const char *message, void *data)
{
	(void)fraction;
	(void)message;
	return g_cancellable_is_cancelled(data) ? 1 : 0;
}

/*
 * The statistics of [from_ns, to_ns), taken as `tilescope trace` takes
 * them (cmd-trace.c's gather: tsr_trace_list_label_stats with medians over
 * all threads, the span count from tsr_trace_totals_new), on the second
 * handle under its lock.
 */
static sa_stats *compute_stats(SaDocument *doc, int64_t from_ns, int64_t to_ns,
                               GCancellable *cancellable, GError **error)
{
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_totals_options to = TSR_TRACE_TOTALS_OPTIONS_INIT;
	tsr_trace_totals *totals = NULL;
	sa_stats *s = g_new0(sa_stats, 1);
	int rc = TSR_OK;

	s->from_ns = o.from_ns = to.from_ns = from_ns;
	s->to_ns = o.to_ns = to.to_ns = to_ns;
	g_mutex_lock(&doc->stats_lock);
	if ((rc = open_second(doc)) != TSR_OK) {
		set_error(error, rc, tsr_last_error());
		goto fail;
	}
	tsr_trace_set_progress(doc->stats_trace, cancellable ? stats_progress : NULL, cancellable);
	rc = tsr_trace_list_label_stats(&s->labels, &s->n_labels, doc->stats_trace, &o);
	if (rc == TSR_OK)
		rc = tsr_trace_totals_new(&totals, doc->stats_trace, &to);
	tsr_trace_set_progress(doc->stats_trace, NULL, NULL);
	if (rc) {
		set_error(error, rc, tsr_trace_error(doc->stats_trace));
		goto fail;
	}
	s->spans = totals->spans;
	tsr_trace_totals_free(totals);
	g_mutex_unlock(&doc->stats_lock);
	return s;
fail:
	g_mutex_unlock(&doc->stats_lock);
	sa_stats_free(s);
	return NULL;
}

typedef struct stats_task {
	SaDocument *doc;
	int64_t from_ns, to_ns;
} stats_task;

static void stats_task_free(stats_task *st)
{
	sa_document_unref(st->doc);
	g_free(st);
}

static void stats_thread(GTask *task, gpointer source, gpointer task_data,
                         GCancellable *cancellable)
{
	stats_task *st = task_data;
	GError *error = NULL;
	sa_stats *s = compute_stats(st->doc, st->from_ns, st->to_ns, cancellable, &error);

	(void)source;
	if (s)
		g_task_return_pointer(task, s, (GDestroyNotify)sa_stats_free);
	else
		g_task_return_error(task, error);
}

void sa_document_stats_async(SaDocument *doc, int64_t from_ns, int64_t to_ns,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(NULL, cancellable, callback, user_data);
	stats_task *st = g_new0(stats_task, 1);

	st->doc = sa_document_ref(doc);
	st->from_ns = from_ns;
	st->to_ns = to_ns;
	g_task_set_source_tag(task, sa_document_stats_async);
	g_task_set_task_data(task, st, (GDestroyNotify)stats_task_free);
	g_task_run_in_thread(task, stats_thread);
}

sa_stats *sa_document_stats_finish(GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(g_task_is_valid(result, NULL), NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}

sa_stats *sa_document_stats(SaDocument *doc, int64_t from_ns, int64_t to_ns, GError **error)
{
	return compute_stats(doc, from_ns, to_ns, NULL, error);
}

/* --- Other work on the second handle ---------------------------------------------- */

void sa_document_set_error(GError **error, int code, const char *message)
{
	set_error(error, code, message);
}

/* Runs `func` on the second handle (opened on first use) under its lock,
 * the cancellable wired to reportlib's progress. */
static gpointer run_job(SaDocument *doc, SaDocumentJobFunc func, gpointer data,
                        GCancellable *cancellable, GError **error)
{
	gpointer result = NULL;
	int rc = TSR_OK;

	g_mutex_lock(&doc->stats_lock);
	if ((rc = open_second(doc)) != TSR_OK) {
		set_error(error, rc, tsr_last_error());
	} else if (g_cancellable_set_error_if_cancelled(cancellable, error)) {
		/* Superseded while it waited for the lock. */
	} else {
		tsr_trace_set_progress(doc->stats_trace, cancellable ? stats_progress : NULL,
		                       cancellable);
		result = func(doc->stats_trace, data, cancellable, error);
		tsr_trace_set_progress(doc->stats_trace, NULL, NULL);
	}
	g_mutex_unlock(&doc->stats_lock);
	return result;
}

typedef struct run_task {
	SaDocument *doc;
	SaDocumentJobFunc func;
	gpointer data;
	GDestroyNotify data_free, result_free;
} run_task;

static void run_task_free(run_task *rt)
{
	if (rt->data_free)
		rt->data_free(rt->data);
	sa_document_unref(rt->doc);
	g_free(rt);
}

static void run_thread(GTask *task, gpointer source, gpointer task_data,
                       GCancellable *cancellable)
{
	run_task *rt = task_data;
	GError *error = NULL;
	gpointer result = run_job(rt->doc, rt->func, rt->data, cancellable, &error);

	(void)source;
	if (result)
		g_task_return_pointer(task, result, rt->result_free);
	else
		g_task_return_error(task, error);
}

void sa_document_run_async(SaDocument *doc, SaDocumentJobFunc func, gpointer data,
                           GDestroyNotify data_free, GDestroyNotify result_free,
                           GCancellable *cancellable, GAsyncReadyCallback callback,
                           gpointer user_data)
{
	g_autoptr(GTask) task = g_task_new(NULL, cancellable, callback, user_data);
	run_task *rt = g_new0(run_task, 1);

	rt->doc = sa_document_ref(doc);
	rt->func = func;
	rt->data = data;
	rt->data_free = data_free;
	rt->result_free = result_free;
	g_task_set_source_tag(task, sa_document_run_async);
	g_task_set_task_data(task, rt, (GDestroyNotify)run_task_free);
	g_task_run_in_thread(task, run_thread);
}

gpointer sa_document_run_finish(GAsyncResult *result, GError **error)
{
	g_return_val_if_fail(g_task_is_valid(result, NULL), NULL);
	return g_task_propagate_pointer(G_TASK(result), error);
}

gpointer sa_document_run(SaDocument *doc, SaDocumentJobFunc func, gpointer data,
                         GCancellable *cancellable, GError **error)
{
	return run_job(doc, func, data, cancellable, error);
}
