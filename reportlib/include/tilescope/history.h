/*
 * The history store (prefix tsr_history_): the figures of many reports in
 * one SQLite file (db-schema/history.sql), one run per report added at a
 * commit, so that CI can ask when a figure changed and gate a report
 * against an earlier commit's. The figures are the metrics of
 * `tilescope diff` (compare.h) under the names its JSON prints.
 *
 * Conventions are report.h's: TSR_OK or a negative tsr_error, the
 * out-parameters first, list_ results are one block the caller frees
 * with free() (the strings inside it too), and a handle's message
 * (tsr_history_error) says why a call failed; tsr_history_open's failure
 * is tsr_last_error().
 *
 * Several processes may write one store at once: it is in WAL mode, a
 * writer waits up to TSR_HISTORY_BUSY_TIMEOUT_MS for another, and a run
 * is added in one transaction, so concurrent adds lose nothing and a
 * killed one leaves nothing half-written.
 *
 * Threads. A tsr_history is used by one thread at a time; different
 * handles (on one file or several) may be used by different threads.
 */
#pragma once

#include "compare.h"
#include "trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How long a write waits for another process's transaction, in ms. */
#define TSR_HISTORY_BUSY_TIMEOUT_MS 30000

typedef struct tsr_history tsr_history;

/* Flags of tsr_history_open. */
typedef enum tsr_history_open_flags {
	TSR_HISTORY_CREATE = 1 << 0 /* a missing or empty file becomes an empty store */
} tsr_history_open_flags;

/*
 * Opens the store at `path` for reading and writing; with
 * TSR_HISTORY_CREATE in `flags`, creates it (with its schema) when the
 * file does not exist or is empty (without: TSR_ERR_NOT_FOUND and
 * TSR_ERR_NOT_REPORT for those). Refused, *out NULL and one line in
 * tsr_last_error(): a file that is not SQLite (TSR_ERR_NOT_SQLITE), an
 * SQLite file of another kind (TSR_ERR_NOT_REPORT), a store of a newer
 * schema (TSR_ERR_SCHEMA_TOO_NEW, naming both versions), a damaged one
 * (TSR_ERR_CORRUPT). The caller frees with tsr_history_free().
 */
TSR_API int tsr_history_open(tsr_history **out, const char *path, unsigned flags);
TSR_API void tsr_history_free(tsr_history *h);
/* The message of the last failure on `h`, "" when none (and for NULL). */
TSR_API const char *tsr_history_error(const tsr_history *h);

/* Where a run came from. Strings are the caller's; NULL parent or branch:
 * not known. */
typedef struct tsr_history_run {
	int64_t id;                /* run id (ignored by the adds) */
	const char *commit;        /* the commit it was made at (not empty) */
	const char *parent;        /* its parent commit, or NULL */
	const char *branch;        /* its branch, or NULL */
	int64_t time;              /* seconds since 1970 UTC; adds: -1 for now */
	const char *label;         /* what ran; NULL or "" for none */
	const char *host;          /* adds: NULL for this host's name */
	const char *report_path;   /* the profile.pop it was read from */
	const char *report_sha256; /* SHA-256 of its bytes, 64 lowercase hex digits */
} tsr_history_run;

/* One figure of a run: a metric of compare.h with its value. */
typedef struct tsr_history_figure {
	const char *metric;        /* the diff's name ("cycles.total") */
	tsr_metric_unit unit;
	bool noisy;                /* a wall-clock figure that varies between runs */
	uint32_t sample;           /* 0; 0, 1, ... for repeated samples of a noisy one */
	uint64_t value;            /* below 2^63 */
} tsr_history_figure;

/*
 * Adds one run with its `n` figures in one transaction. A run already in
 * the store (the same commit, label and report hash) is not added again:
 * *added is false and *out_id is that run's id. A metric's unit or
 * noisiness that contradicts the store's, two figures of one metric and
 * sample, or a value past 2^63 - 1 is TSR_ERR_INVALID_ARGUMENT with
 * nothing written. out_id and added may be NULL.
 */
TSR_API int tsr_history_add(int64_t *out_id, bool *added, tsr_history *h,
                            const tsr_history_run *run, const tsr_history_figure *figures,
                            size_t n);
/*
 * The figures of `report`: the metrics `tilescope diff` compares, with
 * runs chosen as its default (every program's kept runs averaged), each
 * with its value in `report`. The caller frees *out with free().
 */
TSR_API int tsr_history_list_report_figures(tsr_history_figure **out, size_t *n,
                                            tsr_report *report);
/*
 * tsr_history_add of `report`'s figures (tsr_history_list_report_figures);
 * run->report_path and run->report_sha256 are ignored: they are the
 * report's profile.pop and the hash of its bytes. A failure reading the
 * report is on the report's handle and copied to h's message.
 */
TSR_API int tsr_history_add_report(int64_t *out_id, bool *added, tsr_history *h,
                                   const tsr_history_run *run, tsr_report *report);

/*
 * The wall-clock figures of `trace`, all noisy, sample 0: "trace.wall_ns",
 * the time from its first event to its last (TSR_UNIT_NS), and per span
 * name, over every channel and thread that has it,
 * "trace.label.NAME.total_ns" (the spans' summed durations) and
 * "trace.label.NAME.count" (TSR_UNIT_COUNT), by name. The caller frees
 * *out with free(); a failure reading the trace is on its handle.
 */
TSR_API int tsr_history_list_trace_figures(tsr_history_figure **out, size_t *n,
                                           tsr_trace *trace);
/*
 * tsr_history_add of a new run with the figures of `report` and of
 * `trace` (either may be NULL, not both): one run of a commit's report
 * and the trace of the same job. run->report_path and run->report_sha256
 * are ignored: they are the report's profile.pop and the hash of its
 * bytes, or without a report the trace's first file and the SHA-256 of
 * its files' bytes one after another (tsr_trace_get_processes' order). A
 * failure reading either is copied to h's message.
 */
TSR_API int tsr_history_add_files(int64_t *out_id, bool *added, tsr_history *h,
                                  const tsr_history_run *run, tsr_report *report,
                                  tsr_trace *trace);
/*
 * Adds `figures` to the newest run of run->commit and run->label (NULL or
 * "": none; the other fields are ignored) in one transaction, as a
 * repeated sample: a noisy figure as the next sample of its metric in
 * that run (0 when the run has none; figures[i].sample is ignored), an
 * exact one as sample 0 when the run lacks its metric. An exact figure
 * that the run has with another value is TSR_ERR_INVALID_ARGUMENT (a
 * simulated figure cannot differ between samples) and no run of the
 * commit and label TSR_ERR_NOT_FOUND, nothing written. *out_id is the
 * run's id and *out_sample the highest sample number given (both may be
 * NULL).
 */
TSR_API int tsr_history_add_sample(int64_t *out_id, uint32_t *out_sample, tsr_history *h,
                                   const tsr_history_run *run,
                                   const tsr_history_figure *figures, size_t n);

/*
 * The runs, newest first (time, then id): those whose commit starts with
 * `commit` (a SHA or its prefix; NULL: any), on `branch` (NULL: any), of
 * `label` (NULL: any; "" is none), at most `last` (0: all). The caller
 * frees *out with free().
 */
TSR_API int tsr_history_list_runs(tsr_history_run **out, size_t *n, tsr_history *h,
                                  const char *commit, const char *branch, const char *label,
                                  size_t last);

/* A metric of the store. */
typedef struct tsr_history_metric {
	const char *name;
	tsr_metric_unit unit;
	bool noisy;
} tsr_history_metric;

/* The store's metrics whose names match the GLOB pattern `pattern`
 * (SQLite's GLOB: * ? [...]; NULL: all), by name. Freed with free(). */
TSR_API int tsr_history_list_metrics(tsr_history_metric **out, size_t *n, tsr_history *h,
                                     const char *pattern);

/* One point of a series: a run's value of one metric. */
typedef struct tsr_history_point {
	tsr_history_run run;       /* its strings point into the same block */
	uint32_t sample;
	uint64_t value;
} tsr_history_point;

/*
 * The series of `metric`: its figures in the runs on `branch` (NULL:
 * every branch) of `label` (NULL: any), newest first, the points of at
 * most `last` runs (0: all; a run with several samples gives one point
 * per sample). A metric the store lacks is TSR_ERR_NOT_FOUND. Freed with
 * free().
 */
TSR_API int tsr_history_list_series(tsr_history_point **out, size_t *n, tsr_history *h,
                                    const char *metric, const char *branch, const char *label,
                                    size_t last);

/* Called by tsr_history_query_series with one metric's series: `n`
 * points as tsr_history_list_series gives them, valid during the call
 * only. A value other than TSR_OK stops the query and is returned. */
typedef int (*tsr_history_series_cb)(void *user_data, const tsr_history_metric *metric,
                                     const tsr_history_point *points, size_t n);

/*
 * tsr_history_list_series of every metric matching the GLOB `pattern`
 * (NULL: all), by name, each handed to `series_cb` (a metric without
 * points on `branch` and of `label` too, with n 0). The runs are read
 * once and shared by the points (their strings are not copied per
 * point): a query over a whole store costs a fraction of one list call
 * per metric.
 */
TSR_API int tsr_history_query_series(tsr_history *h, const char *pattern, const char *branch,
                                     const char *label, tsr_history_series_cb series_cb,
                                     void *user_data);

/* The figures of run `run` (sample 0 of each metric), by metric name.
 * TSR_ERR_NOT_FOUND for a run id the store lacks. Freed with free(). */
TSR_API int tsr_history_list_figures(tsr_history_figure **out, size_t *n, tsr_history *h,
                                     int64_t run);

/*
 * Compares run `base_run` of the store (its exact figures, as the base)
 * with `report` (as the new report) as tsr_compare would compare the two
 * reports, for the metrics either has (a run's noisy figures, from a
 * trace, are not a report's and are left out): a comparison tsr_compare_limits_*
 * and every getter of compare.h take (it lists no programs). The caller
 * frees with tsr_comparison_free().
 */
TSR_API int tsr_history_compare(tsr_comparison **out, tsr_history *h, int64_t base_run,
                                tsr_report *report);

/*
 * Adds to `h` every run of the store at `other_path` that `h` lacks (by
 * commit, label and report hash), with its figures, in one transaction;
 * *added (may be NULL) counts them. The other store is refused as
 * tsr_history_open (without TSR_HISTORY_CREATE) refuses, with the message
 * on `h`.
 */
TSR_API int tsr_history_merge(size_t *added, tsr_history *h, const char *other_path);

#ifdef __cplusplus
}
#endif
