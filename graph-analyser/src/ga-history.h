/*
 * A history store opened for the Graph Analyser (docs/history.md): its
 * runs in commit order and, for every metric, its value in each run and
 * its change points, read and searched once in a worker thread so that
 * the History view (ga-history-view.h) only draws.
 *
 * The change points are those `tilescope history changes` prints: each
 * label's runs are a series of their own, oldest first, the runs of one
 * commit in a row that commit's samples (cli-summary's
 * cmd-history-changes.c builds the series the same way), searched by
 * tsr_series_list_changes with its default options.
 *
 * A loaded GaHistory is immutable and may be read from any thread.
 */
#pragma once

#include <gio/gio.h>
#include <tilescope/history-changes.h>
#include <tilescope/history.h>
#include <tilescope/tsd-load.h>

G_BEGIN_DECLS

typedef struct _GaHistory GaHistory;

#define GA_TYPE_HISTORY (ga_history_get_type())
GType ga_history_get_type(void) G_GNUC_CONST;

GaHistory *ga_history_ref(GaHistory *history);
void ga_history_unref(GaHistory *history);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GaHistory, ga_history_unref)

/* One change point, in run indices (ga_history_get_run). */
typedef struct ga_history_change {
	guint run;                 /* the first run of the commit after the change */
	guint first, last;         /* the first runs of the range's first and last commits */
	const char *label;         /* the series' label ("" for none) */
	tsr_change_point point;    /* as tsr_series_list_changes gave it */
} ga_history_change;

/* One metric: its value in every run and its changes. */
typedef struct ga_history_metric {
	char *name;
	tsr_metric_unit unit;
	gboolean noisy;
	double *values;            /* n_runs: sample 0 of each run, NaN where the run lacks it */
	double latest;             /* the newest run's value that is there, NaN for none */
	ga_history_change *changes; /* oldest first within each label */
	guint n_changes;
} ga_history_metric;

/* Whether `file` is a history store: an SQLite file whose application_id
 * is the store's ('TSHS'), whatever its name. Reads 72 bytes. */
gboolean ga_history_file_is_store(GFile *file);

/* Opens the store `file` and reads the runs on `branch` (NULL: every
 * branch) with every metric's series and change points, in a worker
 * thread, with progress (metric by metric) and cancellation. */
void ga_history_load_async(GFile *file, const char *branch, GCancellable *cancellable,
                           TsdProgressFunc progress, gpointer progress_data,
                           GDestroyNotify progress_destroy, GAsyncReadyCallback callback,
                           gpointer user_data);
/* The store, or NULL with *error set to reportlib's one line. */
GaHistory *ga_history_load_finish(GAsyncResult *result, GError **error);
/* The same on the calling thread (tests). */
GaHistory *ga_history_load(GFile *file, const char *branch, GCancellable *cancellable,
                           GError **error);

GFile *ga_history_get_file(GaHistory *history);
/* The branch the runs were read on, or NULL for every branch. */
const char *ga_history_get_branch(GaHistory *history);
/* Every branch and label of the store's runs (NULL-terminated, sorted;
 * a run without a label is ""), whatever the branch read. */
const char *const *ga_history_get_branches(GaHistory *history);
const char *const *ga_history_get_labels(GaHistory *history);
/* The runs in commit order (oldest first). */
guint ga_history_get_n_runs(GaHistory *history);
const tsr_history_run *ga_history_get_run(GaHistory *history, guint i);
guint ga_history_get_n_metrics(GaHistory *history);
const ga_history_metric *ga_history_get_metric(GaHistory *history, guint i);
/* The report of run `i` as a file: its stored path, taken from the
 * store's directory when relative. */
GFile *ga_history_dup_report_file(GaHistory *history, guint i);

G_END_DECLS
