/*
 * A report opened for the Graph Analyser: the reportlib handle and every
 * figure the views show, read once in a worker thread so that switching
 * views never waits for the file.
 *
 * Threads. ga_document_load_async() opens the file and gathers the
 * figures in a GTask thread; from its completion on, the document belongs
 * to the main thread (reportlib's contract: one thread at a time per
 * handle). The progress of a load reaches the main thread coalesced: at
 * most one pending idle callback carries the latest fraction and message.
 */
#pragma once

#include <gio/gio.h>
#include <tilescope/tsd-load.h>
#include <tilescope/compare.h>
#include <tilescope/report.h>
#include <tilescope/summary.h>

G_BEGIN_DECLS

/* Errors of a load: the reportlib code, negated into a GError code. */
#define GA_DOCUMENT_ERROR TSD_LOAD_ERROR

typedef struct _GaDocument GaDocument;

#define GA_TYPE_DOCUMENT (ga_document_get_type())
GType ga_document_get_type(void) G_GNUC_CONST;

GaDocument *ga_document_ref(GaDocument *doc);
void ga_document_unref(GaDocument *doc);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(GaDocument, ga_document_unref)

/* Called on the main thread while a load runs: fraction in [0, 1] and a
 * short message ("Reading compute sets"). */
typedef TsdProgressFunc GaLoadProgressFunc;

/* Opens `file` (a profile.pop or an autoReport directory) in a worker
 * thread. Cancelling `cancellable` stops the read within reportlib's
 * progress granularity (milliseconds) and completes with
 * G_IO_ERROR_CANCELLED. */
void ga_document_load_async(GFile *file, GCancellable *cancellable,
                            GaLoadProgressFunc progress, gpointer progress_data,
                            GDestroyNotify progress_destroy, GAsyncReadyCallback callback,
                            gpointer user_data);
/* The document, or NULL with *error set to reportlib's one-line message. */
GaDocument *ga_document_load_finish(GAsyncResult *result, GError **error);

/* Opens synchronously on the calling thread (tests, benchmarks). */
GaDocument *ga_document_load(GFile *file, GCancellable *cancellable, GError **error);

/* The file opened (the profile.pop itself, also for a directory given). */
GFile *ga_document_get_file(GaDocument *doc);
/* The name to show: the autoReport directory's name, or the file's. */
const char *ga_document_get_title(GaDocument *doc);
/* The reportlib handle (main thread only). */
tsr_report *ga_document_get_report(GaDocument *doc);
/* The summary's figures with per-IPU memory and variable storage. */
const tsr_summary_figures *ga_document_get_figures(GaDocument *doc);

/* Per-tile memory of every tile of one replica (num_tiles entries). */
const tsr_tile_memory *ga_document_get_tiles(GaDocument *doc, size_t *n);
/* Bytes of memory category `category` (tsr_category_name order) on every
 * tile, num_tiles entries; NULL when the report has no such category. */
const uint64_t *ga_document_get_category_by_tile(GaDocument *doc, size_t category);
/* Always-live bytes on every tile (num_tiles entries): the listed
 * always-live variables (all of them with autoReport.outputLoweredVars). */
const uint64_t *ga_document_get_always_live_by_tile(GaDocument *doc);
/* What a program cost in one run: its own steps and those of every program
 * below it (children, and a Call's function body), in wall-clock cycles. */
typedef struct ga_program_cost {
	uint64_t cycles;              /* sum of the steps' cycles */
	uint64_t steps;               /* steps counted; 0: the program did not run */
} ga_program_cost;
/* The cost of every program (tsr_report_get_programs order) in run `run`,
 * or NULL when there is no such run. A program shared by several parents
 * (a function called from two places) counts in each of them, with all
 * of its steps of the run. */
const ga_program_cost *ga_document_get_program_costs(GaDocument *doc, size_t run);
/* Runs with costs (tsr_report_get_runs' count). */
size_t ga_document_get_n_runs(GaDocument *doc);
/* The programs below `program` in the tree the views show: its children,
 * then a Call's function body. *n ids written to `buf` (a GArray of
 * guint32, resized), returned as its data; valid until `buf` changes. */
const uint32_t *ga_document_get_program_below(GaDocument *doc, uint32_t program, GArray *buf,
                                              size_t *n);
/* What each debug context made, in id order (an operation's id is its
 * index + 1), with its costs in run `run`, or without costs (cycles and
 * FLOPs 0) for run -1; NULL with *n 0 when there is no such run. Read
 * once by the loader (listing them scans the run's steps). */
const tsr_operation *ga_document_get_operations(GaDocument *doc, gint64 run, size_t *n);
/* Figures of an operation that tsr_operation does not hold, added up by the
 * loader from the compute sets and exchange programs each debug context
 * made; like tsr_operation's totals they include the descendants'. */
typedef struct ga_operation_extra {
	uint64_t vertices;            /* vertices of its compute sets */
	uint64_t exchange_bytes;      /* bytes received by its exchange programs' exchanges */
} ga_operation_extra;
/* One per operation (ga_document_get_operations' order), or NULL. */
const ga_operation_extra *ga_document_get_operation_extras(GaDocument *doc);
/* Compares `base` (report A) with `new_doc` (report B) as `tilescope
 * diff A B` does (tsr_compare_programs: runs matched by program and
 * averaged) in a worker thread;
 * neither document may be used elsewhere until it completes (the window
 * runs it before handing them to the session). Progress as for a load;
 * cancelling completes with G_IO_ERROR_CANCELLED. */
void ga_document_compare_async(GaDocument *base, GaDocument *new_doc, GCancellable *cancellable,
                               GaLoadProgressFunc progress, gpointer progress_data,
                               GDestroyNotify progress_destroy, GAsyncReadyCallback callback,
                               gpointer user_data);
/* The comparison (the caller frees it with tsr_comparison_free, or hands
 * it to ga_document_set_comparison), or NULL with *error set. */
tsr_comparison *ga_document_compare_finish(GAsyncResult *result, GError **error);
/* The same on the calling thread (benchmarks, tests). */
tsr_comparison *ga_document_compare(GaDocument *base, GaDocument *new_doc, GError **error);
/* Report B keeps its comparison with report A: takes `cmp` (NULL: none). */
void ga_document_set_comparison(GaDocument *doc, tsr_comparison *cmp);
/* The comparison `doc` keeps (borrowed), or NULL; `doc` may be NULL. */
const tsr_comparison *ga_document_get_comparison(GaDocument *doc);
/* Seconds the load took, split into open and the figures. */
double ga_document_get_load_seconds(GaDocument *doc);

G_END_DECLS
