/*
 * A history store read for the History view (ga-history.h): the runs,
 * every metric's values by run and its change points, gathered in one
 * pass over the store (tsr_history_query_series) in a worker thread.
 */
#include "ga-history.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct _GaHistory {
	gatomicrefcount ref;
	GFile *file;
	char *branch;                /* or NULL */
	tsr_history_run *all_runs;   /* tsr_history_list_runs' block, newest first */
	tsr_history_run **runs;      /* those on `branch`, oldest first (into all_runs) */
	guint n_runs;
	ga_history_metric *metrics;
	guint n_metrics;
	GStrv branches, labels;
	GStringChunk *strings;       /* the changes' labels */
};

G_DEFINE_BOXED_TYPE(GaHistory, ga_history, ga_history_ref, ga_history_unref)

GaHistory *ga_history_ref(GaHistory *history)
{
	g_atomic_ref_count_inc(&history->ref);
	return history;
}

void ga_history_unref(GaHistory *history)
{
	if (!history || !g_atomic_ref_count_dec(&history->ref))
		return;
	for (guint i = 0; i < history->n_metrics; i++) {
		g_free(history->metrics[i].name);
		g_free(history->metrics[i].values);
		g_free(history->metrics[i].changes);
	}
	g_free(history->metrics);
	g_free(history->runs);
	free(history->all_runs);
	g_strfreev(history->branches);
	g_strfreev(history->labels);
	if (history->strings)
		g_string_chunk_free(history->strings);
	g_clear_object(&history->file);
	g_free(history->branch);
	g_free(history);
}

gboolean ga_history_file_is_store(GFile *file)
{
	g_autofree char *path = g_file_get_path(file);
	unsigned char head[72];
	FILE *f = path && g_file_test(path, G_FILE_TEST_IS_REGULAR) ? fopen(path, "rb") : NULL;
	gboolean store;

	if (!f)
		return FALSE;
	store = fread(head, 1, sizeof(head), f) == sizeof(head) &&
	        memcmp(head, "SQLite format 3", 16) == 0 && memcmp(head + 68, "TSHS", 4) == 0;
	fclose(f);
	return store;
}

/* --- Loading --------------------------------------------------------------------- */

typedef struct load_args {
	GFile *file;
	char *branch;
} load_args;

static void load_args_free(gpointer data)
{
	load_args *a = data;

	g_object_unref(a->file);
	g_free(a->branch);
	g_free(a);
}

/* What the walk over the series carries. */
typedef struct load_walk {
	GaHistory *history;
	GHashTable *run_index;       /* run id -> index + 1 in history->runs */
	TsdProgress *relay;
	guint n_metrics;             /* listed before the walk: the progress's whole */
	int rc;                      /* a failure of the walk's own */
} load_walk;

/* A point's label, "" for none. */
static const char *label_of(const tsr_history_run *run)
{
	return run->label ? run->label : "";
}

/* The change points of the points of `p` labelled `label`, in the one
 * series every reader searches (tsr_history_fill_series), each with the
 * runs of its commits. */
static int label_changes(GArray *out, load_walk *w, const tsr_history_metric *m,
                         const tsr_history_point *p, size_t n, const char *label)
{
	g_autofree size_t *offsets = g_new(size_t, n + 1);
	g_autofree double *values = g_new(double, n + 1);
	g_autofree size_t *first_point = g_new(size_t, n + 1);
	g_autofree guint *first_run = g_new(guint, n + 1);
	tsr_change_point *c = NULL;
	size_t n_commits = tsr_history_fill_series(offsets, values, first_point, p, n, label),
	       n_changes = 0;
	int rc;

	for (size_t i = 0; i < n_commits; i++)
		first_run[i] = GPOINTER_TO_UINT(g_hash_table_lookup(w->run_index,
		                                                    &p[first_point[i]].run.id)) - 1;
	tsr_series series = {n_commits, offsets, values, !m->noisy};
	rc = tsr_series_list_changes(&c, &n_changes, &series, NULL);
	for (size_t k = 0; rc == TSR_OK && k < n_changes; k++) {
		ga_history_change ch = {first_run[c[k].commit], first_run[c[k].first],
		                        first_run[c[k].last],
		                        g_string_chunk_insert_const(w->history->strings, label), c[k]};

		g_array_append_val(out, ch);
	}
	free(c);
	return rc;
}

static int compare_names(gconstpointer a, gconstpointer b, gpointer data)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One metric's series (tsr_history_series_cb): its values by run and the
 * change points of each label's series. */
static int metric_series(void *data, const tsr_history_metric *m, const tsr_history_point *p,
                         size_t n)
{
	load_walk *w = data;
	GaHistory *h = w->history;
	ga_history_metric *out = &h->metrics[h->n_metrics];
	g_autoptr(GArray) changes = g_array_new(FALSE, FALSE, sizeof(ga_history_change));
	g_autoptr(GHashTable) labels = g_hash_table_new(g_str_hash, g_str_equal);
	int rc = TSR_OK;

	if (h->n_metrics == w->n_metrics) {
		w->rc = TSR_ERR_CORRUPT;     /* the store grew a metric since it was listed */
		return w->rc;
	}
	out->name = g_strdup(m->name);
	out->unit = m->unit;
	out->noisy = m->noisy;
	out->values = g_new(double, h->n_runs);
	out->latest = NAN;
	h->n_metrics++;
	for (guint i = 0; i < h->n_runs; i++)
		out->values[i] = NAN;
	/* Newest first: a run's first point seen is its last sample; the
	 * figure charted is sample 0. */
	for (size_t k = 0; k < n; k++) {
		guint i = GPOINTER_TO_UINT(g_hash_table_lookup(w->run_index, &p[k].run.id));

		if (i > 0 && p[k].sample == 0) {
			out->values[i - 1] = (double)p[k].value;
			if (isnan(out->latest))
				out->latest = (double)p[k].value;
		}
		g_hash_table_add(labels, (gpointer)label_of(&p[k].run));
	}
	/* Each label once, by name, as the command walks them. */
	g_autofree gpointer *names = g_hash_table_get_keys_as_array(labels, NULL);
	g_qsort_with_data(names, g_hash_table_size(labels), sizeof(gpointer), compare_names, NULL);
	for (guint k = 0; rc == TSR_OK && names[k]; k++)
		rc = label_changes(changes, w, m, p, n, names[k]);
	out->n_changes = changes->len;
	out->changes = (ga_history_change *)(void *)g_array_free(g_steal_pointer(&changes), FALSE);
	if (rc == TSR_OK) {
		g_autofree char *what = g_strdup_printf("Searching %s for change points", m->name);

		if (tsd_progress_report_cb((double)h->n_metrics / w->n_metrics, what, w->relay))
			rc = TSR_ERR_CANCELLED;
	}
	if (rc != TSR_OK)
		w->rc = rc;
	return rc;
}

/* The sorted, distinct values of `field` over the runs, NULL-terminated. */
static GStrv distinct(const tsr_history_run *runs, size_t n, gboolean branch)
{
	g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
	g_autoptr(GStrvBuilder) b = g_strv_builder_new();
	g_autofree gpointer *names = NULL;
	guint count;

	for (size_t i = 0; i < n; i++) {
		const char *v = branch ? runs[i].branch : label_of(&runs[i]);

		if (v)
			g_hash_table_add(seen, (gpointer)v);
	}
	names = g_hash_table_get_keys_as_array(seen, &count);
	g_qsort_with_data(names, count, sizeof(gpointer), compare_names, NULL);
	for (guint i = 0; i < count; i++)
		g_strv_builder_add(b, names[i]);
	return g_strv_builder_end(b);
}

/* The worker: the store opened, its runs, every metric's series and
 * change points. */
static gpointer load(gpointer data, TsdProgress *relay, GError **error)
{
	load_args *a = data;
	g_autofree char *path = g_file_get_path(a->file);
	g_autoptr(GaHistory) h = g_new0(GaHistory, 1);
	g_autoptr(GHashTable) run_index = g_hash_table_new(g_int64_hash, g_int64_equal);
	tsr_history *store = NULL;
	tsr_history_metric *metrics = NULL;
	size_t n_all = 0, n_metrics = 0;
	load_walk w = {h, run_index, relay, 0, TSR_OK};
	int rc;

	g_atomic_ref_count_init(&h->ref);
	h->file = g_object_ref(a->file);
	h->branch = g_strdup(a->branch);
	h->strings = g_string_chunk_new(64);
	tsd_progress_report_cb(0, "Opening the history store", relay);
	if (!path) {
		tsd_load_set_error(error, TSR_ERR_NOT_FOUND, "not a local file");
		return NULL;
	}
	rc = tsr_history_open(&store, path, 0);
	if (rc != TSR_OK) {
		tsd_load_set_error(error, rc, tsr_last_error());
		return NULL;
	}
	rc = tsr_history_list_runs(&h->all_runs, &n_all, store, NULL, NULL, NULL, 0);
	if (rc == TSR_OK)
		rc = tsr_history_list_metrics(&metrics, &n_metrics, store, NULL);
	if (rc == TSR_OK && (n_all > G_MAXUINT || n_metrics > G_MAXUINT))
		rc = TSR_ERR_TOO_LARGE;
	if (rc == TSR_OK) {
		h->branches = distinct(h->all_runs, n_all, TRUE);
		h->labels = distinct(h->all_runs, n_all, FALSE);
		h->runs = g_new(tsr_history_run *, n_all);
		for (size_t k = n_all; k-- > 0;) {
			tsr_history_run *r = &h->all_runs[k];

			if (a->branch && g_strcmp0(r->branch, a->branch))
				continue;
			h->runs[h->n_runs++] = r;
			g_hash_table_insert(run_index, &r->id, GUINT_TO_POINTER(h->n_runs));
		}
		h->metrics = g_new0(ga_history_metric, n_metrics);
		w.n_metrics = (guint)n_metrics;
		rc = tsr_history_query_series(store, NULL, a->branch, NULL, metric_series, &w);
	}
	if (rc != TSR_OK) {
		/* The walk's own failures leave no message on the store. */
		g_autofree char *msg = *tsr_history_error(store)
		                           ? g_strdup(tsr_history_error(store))
		                           : g_strdup_printf("'%s': %s", path, tsr_error_name(rc));

		tsd_load_set_error(error, rc, msg);
	}
	free(metrics);
	tsr_history_free(store);
	return rc == TSR_OK ? g_steal_pointer(&h) : NULL;
}

void ga_history_load_async(GFile *file, const char *branch, GCancellable *cancellable,
                           TsdProgressFunc progress, gpointer progress_data,
                           GDestroyNotify progress_destroy, GAsyncReadyCallback callback,
                           gpointer user_data)
{
	load_args *a = g_new0(load_args, 1);

	a->file = g_object_ref(file);
	a->branch = g_strdup(branch);
	tsd_load_async(tsd_progress_new(progress, progress_data, progress_destroy, cancellable), load,
	               a, load_args_free, (GDestroyNotify)ga_history_unref, ga_history_load_async,
	               callback, user_data);
}

GaHistory *ga_history_load_finish(GAsyncResult *result, GError **error)
{
	return tsd_load_finish(result, ga_history_load_async, error);
}

GaHistory *ga_history_load(GFile *file, const char *branch, GCancellable *cancellable,
                           GError **error)
{
	load_args a = {file, (char *)branch};

	return tsd_load_run(load, &a, cancellable, error);
}

/* --- Reading ----------------------------------------------------------------------- */

GFile *ga_history_get_file(GaHistory *history)
{
	return history->file;
}

const char *ga_history_get_branch(GaHistory *history)
{
	return history->branch;
}

const char *const *ga_history_get_branches(GaHistory *history)
{
	return (const char *const *)history->branches;
}

const char *const *ga_history_get_labels(GaHistory *history)
{
	return (const char *const *)history->labels;
}

guint ga_history_get_n_runs(GaHistory *history)
{
	return history->n_runs;
}

const tsr_history_run *ga_history_get_run(GaHistory *history, guint i)
{
	return i < history->n_runs ? history->runs[i] : NULL;
}

guint ga_history_get_n_metrics(GaHistory *history)
{
	return history->n_metrics;
}

const ga_history_metric *ga_history_get_metric(GaHistory *history, guint i)
{
	return i < history->n_metrics ? &history->metrics[i] : NULL;
}

GFile *ga_history_dup_report_file(GaHistory *history, guint i)
{
	const tsr_history_run *run = ga_history_get_run(history, i);
	g_autoptr(GFile) dir = g_file_get_parent(history->file);

	if (!run || !run->report_path)
		return NULL;
	return g_file_resolve_relative_path(dir, run->report_path);
}
