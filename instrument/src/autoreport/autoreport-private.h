/*
 * autoReport inside the runtime: the engine configuration resolved from
 * options given in code and POPLAR_ENGINE_OPTIONS, the profile.pop writer
 * (SQLite, schema db-schema/profile.sql) and the debug.cbor writer
 * (libcbor). engine.c drives them; nothing here is public.
 */
#pragma once

#include "../ipu-private.h"
#include "tilescope/profile.h"

/* --- Engine configuration (engine-config.c) ------------------------------------ */

/* What the engine options (code + environment) ask for, resolved once per
 * engine. Strings are malloc'd and freed by tsi_engine_config_clear(). */
typedef struct tsi_engine_config {
	/* autoReport.* */
	bool report_graph;          /* outputGraphProfile (or all) */
	bool report_execution;      /* outputExecutionProfile (or all) */
	bool report_debug_info;     /* outputDebugInfo (or all) */
	bool report_lowered_vars;   /* outputLoweredVars (or all) */
	bool report_archive;        /* outputArchive (or all) */
	bool stream_at_each_run;    /* streamAtEachRun */
	char *report_directory;     /* autoReport.directory, NULL when unset (cwd) */
	uint64_t run_count;         /* executionProfileProgramRunCount: runs of each
	                               program kept in the execution profile */
	/* profiler.* */
	bool include_flops;         /* includeFlopEstimates */
	bool include_cycles;        /* includeCycleEstimates */
	unsigned replica_to_profile;
	/* debug.* */
	bool retain_debug_info;     /* retainDebugInformation */
	char *graph_report_dest;    /* debug.graphReportDestination or
	                               POPLAR_GRAPH_REPORT_DEST, NULL when unset */
} tsi_engine_config;

/* True when any autoReport output is asked for. */
static inline bool tsi_engine_config_wants_report(const tsi_engine_config *c)
{
	return c->report_graph || c->report_execution || c->report_debug_info;
}

/*
 * Merges `code_opts` (may be NULL) with POPLAR_ENGINE_OPTIONS (the
 * environment wins), validates every option against the table, and fills
 * `cfg`. *effective receives the merged options (caller frees with
 * tsi_options_free) so that the compiler reads the same values. On error
 * returns TSI_ERR_BAD_OPTION with a message (invalid JSON quoting where it
 * broke, unknown name with the nearest known one, bad value with the
 * accepted values), and *effective is NULL.
 */
int tsi_engine_config_resolve(tsi_engine_config *cfg, tsi_options **effective,
                              const tsi_options *code_opts);
void tsi_engine_config_clear(tsi_engine_config *cfg);

/* --- profile.pop (report/profile-writer.c) ------------------------------- */

/* Facts about the process and engine that go into the report's metadata. */
typedef struct tsi_report_meta {
	const tsi_options *options;   /* the options in force (effective) */
	const char *command_line;     /* argv joined by spaces, or NULL */
	int64_t created_unix_ns;      /* wall-clock creation time */
	const char *report_id;        /* this engine's report identity (32 hex
	                                 digits), in profile.pop and debug.cbor */
	const char *tilescope_version;
	const char *engine_name;      /* or NULL */
	bool lowered_vars;            /* autoReport.outputLoweredVars */
	bool include_flops;           /* profiler.includeFlopEstimates */
	bool include_cycles;          /* profiler.includeCycleEstimates */
} tsi_report_meta;

/* --- Report files kept whole (report-files.c) ---------------------------- */

/* The hidden temporary name for building `path` beside it
 * (".<basename>.<pid>.<n>.tmp"); malloc'd, NULL when out of memory. */
char *tsi_report_temp_path(const char *path);
/* Starts writing `file`'s data to the disk and waits (best effort). */
void tsi_report_sync_data(const char *file);
/* Renames the finished `tmp` over `path` durably (file synced before,
 * directory after). */
int tsi_report_publish(const char *tmp, const char *path);
/* Removes the temporaries of dead writers beside `path`. */
void tsi_report_remove_stale_temporaries(const char *path);
/* Copies `from` to the new file `to`, with its permissions. */
int tsi_report_copy_file(const char *from, const char *to);

/* --- The profile.pop writer (profile-writer.c) ---------------------------- */

typedef struct tsi_report_writer tsi_report_writer;

/*
 * Writes `gp` as a complete profile.pop at `path`: built under a temporary
 * name in the same directory, then renamed, so `path` is either absent or
 * a complete report. Keeps what it needs to add runs later. The writer
 * copies nothing from `gp`, which must outlive it.
 */
int tsi_report_writer_new(tsi_report_writer **out, const char *path,
                          const tsi_graph_profile *gp, const tsi_report_meta *meta);
/*
 * The same in three steps, so the second can run on another thread and
 * the first runs can join the graph profile before it is published:
 * _create makes the temporary file and opens it (what fails when the
 * directory is not writable, so the caller learns it at once);
 * _write_graph fills it and leaves it open; _publish (or the first
 * tsi_report_writer_add_runs) completes it and renames it over `path`.
 * `meta` and `gp` must stay valid until _write_graph returns; nothing
 * else may use the writer meanwhile. A writer freed before it is
 * published leaves no file; a failed _write_graph leaves none either.
 */
int tsi_report_writer_create(tsi_report_writer **out, const char *path,
                             const tsi_graph_profile *gp, const tsi_report_meta *meta);
int tsi_report_writer_write_graph(tsi_report_writer *w);
/* TSI_OK when the report is at its path (also when it already was). */
int tsi_report_writer_publish(tsi_report_writer *w);
/*
 * After _write_graph: puts a copy of the graph profile at `path` (complete,
 * by rename) while the writer's own file stays open for the first runs,
 * which replace it when they are published.
 */
int tsi_report_writer_show_graph(tsi_report_writer *w);
/* True once the report is at its path (false for NULL). */
bool tsi_report_writer_is_published(const tsi_report_writer *w);
/*
 * Adds runs to the report: each run of `runs[0..n)` not yet in the file
 * (runs are numbered by position, so pass all runs kept so far) is
 * written in one transaction. Before the report is published they go
 * into its open temporary file, which is then published (a failure to
 * add them still publishes the graph profile, and returns the failure);
 * afterwards into a copy that replaces `path` by rename.
 */
int tsi_report_writer_add_runs(tsi_report_writer *w, const tsi_run_profile *const *runs,
                               size_t n_runs);
/* True after tsi_report_writer_add_runs failed because the file at the
 * writer's path is another writer's report (another process reporting to
 * the same directory replaced it); the caller then writes its report
 * elsewhere. */
bool tsi_report_writer_was_replaced(const tsi_report_writer *w);
/* Moves the report to `new_path` (rename; an unpublished report is
 * published first); later writes go there. */
int tsi_report_writer_move(tsi_report_writer *w, const char *new_path);
/* The current path. */
const char *tsi_report_writer_path(const tsi_report_writer *w);
/* Frees the writer; the file stays. NULL is ignored. */
void tsi_report_writer_free(tsi_report_writer *w);

/* --- debug.cbor (report/debug-cbor.c) ------------------------------------ */

/*
 * Writes the debug contexts of `gp` to `path` (temporary name, then
 * rename) as one CBOR map: {"version": 1, "contexts": [ {"id", "parent",
 * "name", "layer", "api", "programs": [...], "computeSets": [...],
 * "variables": [...]} ... ]} where the lists hold the ids of the lowered
 * programs, compute sets and variables of gp that the context made
 * (the same ids profile.pop uses), plus "report" and "created" from
 * `meta` when it has a report_id (NULL: none).
 */
int tsi_debug_cbor_write(const char *path, const tsi_graph_profile *gp,
                         const tsi_report_meta *meta);

/* --- The autoReport driver (report/autoreport.c) ------------------------- */

typedef struct tsi_autoreport tsi_autoreport;

/*
 * Prepares autoReport for an engine about to be compiled: decides its
 * directory (autoReport.directory, created if missing; when a process makes
 * several engines that report to one directory, each gets a subdirectory
 * named after the engine's name or "engine<index>", and the first
 * engine's files move into its own), and remembers the options and the
 * command line. *out is NULL, with TSI_OK, when no report is asked for.
 */
int tsi_autoreport_new(tsi_autoreport **out, const tsi_engine_config *cfg,
                       const tsi_options *effective, const char *engine_name,
                       unsigned engine_index);
/* The tsi_profile_hook callback: creates profile.pop and debug.cbor and
 * fills them on a thread of its own (in place when the graph does not
 * fit). A failure is kept for tsi_autoreport_error(); one of the
 * background job is kept when a later call waits for it. */
void tsi_autoreport_graph_ready_cb(const struct tsi_graph_profile *gp, void *user_data);
/* TSI_OK, or the code of the first failure to write known so far
 * (message in the thread-local error when it happened, and in *message);
 * does not wait for the background job. */
int tsi_autoreport_error(const tsi_autoreport *ar, const char **message);
/* After a run whose profile was kept, with every run kept so far: adds
 * the new ones to profile.pop now (streamAtEachRun), or does nothing and
 * leaves them to tsi_autoreport_flush. */
int tsi_autoreport_add_runs(tsi_autoreport *ar, const tsi_run_profile *const *runs,
                            size_t n_runs);
/* Waits for the graph profile's files, then adds every run not yet in
 * profile.pop (the engine calls it before it is freed). */
int tsi_autoreport_flush(tsi_autoreport *ar, const tsi_run_profile *const *runs, size_t n_runs);
/* Waits for the background job; TSI_OK (also for NULL) or the report's
 * error, said again on the caller's thread. */
int tsi_autoreport_wait(tsi_autoreport *ar);
/* The profile.pop written (waiting for the background job), or NULL. */
const char *tsi_autoreport_profile_path(tsi_autoreport *ar);
/* Attaches the report's directory, engine and `run` (-1: none) to the
 * calling thread's innermost open span as its trace metadata, when a
 * trace is recording and the engine writes profile.pop (the link the
 * System Analyser follows to the Graph Analyser; format in autoreport.c
 * and db-schema/pvti.sql). NULL ignored. */
void tsi_autoreport_trace_span(tsi_autoreport *ar, int64_t run);
/* Frees; the files stay. NULL ignored. */
void tsi_autoreport_free(tsi_autoreport *ar);

/* --- The graph summary after compile (report/graph-report.c) ------------- */

/* Prints the graph summary of `gp` to `dest` ("stdout", "stderr" or a
 * file, created or truncated) through the installed summary printer,
 * reading `report_path` when autoReport wrote one, else a temporary
 * report written for the purpose and removed. Returns TSI_OK or a
 * negative code with the message set. */
int tsi_graph_report_print(const char *dest, const struct tsi_graph_profile *gp,
                           const tsi_options *options, const char *report_path);
