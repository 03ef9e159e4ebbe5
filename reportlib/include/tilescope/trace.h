/*
 * reportlib: reading .pvti system traces (libtilescope-report, prefix
 * tsr_trace_). The `tilescope trace` command and the System Analyser ask
 * this for every figure: processes, threads, channels; the events of a
 * thread in a time window at a given resolution; statistics by label;
 * counter series; heatmaps; instants; search; metadata; and a Chrome trace-event
 * JSON export that Perfetto and chrome://tracing open.
 *
 * One handle holds one or several .pvti files of one job, merged onto one
 * time axis: time 0 is the earliest trace origin among the files (their
 * process.start_wall_ns), and every time below is integer nanoseconds on
 * that axis.
 *
 * Cost. Events are stored as packed per-thread chunks (db-schema/pvti.sql).
 * Opening reads the small tables and the chunk index (one row per chunk,
 * not per event). A viewport query decodes only the chunks overlapping
 * its window; when that would be many events and the resolution is
 * coarse, it answers from the level-of-detail data instead (the file's
 * timeline_lod, or the same built in memory from the chunks once per
 * thread when the file has none, e.g. after a crash), so one query costs
 * about O(pixels x log n), not a scan of the trace.
 *
 * Safety. Files are opened read-only and defensively, as profile.pop is
 * (report.h): nothing defined in the file runs, every count, id, time and
 * blob read is checked against what it refers to, and memory is capped. A
 * bad file gets an error code and a one-line message, never a crash, a
 * hang or an unbounded allocation.
 *
 * Conventions (report.h's): functions return TSR_OK or a negative
 * tsr_error, out-parameters first; the verb says who owns the answer
 * (get_: borrowed, valid until tsr_trace_free(); list_: an array the
 * caller frees with free(); dup_: a string the caller frees; lookup_: may
 * find nothing); the handle keeps a message for its last failure
 * (tsr_trace_error: "" when none, never NULL); "none" is TSR_NONE (-1),
 * TSR_TRACE_NO_NAME in uint32_t name ids.
 *
 * Threads (report.h's contract). A handle is used by one thread at a
 * time, the `const` getters included: queries build indexes and load
 * series into it on first use. Different handles may be used at the same
 * time from different threads, also on the same files. tsr_last_error()
 * is per thread; tsr_trace_error() belongs to the handle.
 *
 * Progress. tsr_trace_open takes a tsr_progress_cb (report.h) in its
 * options and the handle keeps it for tsr_trace_list_events (while it builds a
 * thread's level of detail), tsr_trace_list_label_stats, tsr_trace_search
 * and tsr_trace_query; tsr_trace_set_progress replaces it. A non-zero return cancels the call:
 * TSR_ERR_CANCELLED, nothing returned, the handle still usable. The
 * callback must not call into the handle.
 */
#pragma once

#include "report.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tsr_trace tsr_trace;

/* "No name": a name id field that names nothing; (uint32_t)TSR_NONE, the
 * library's one "none" (report.h) in a uint32_t field. */
#define TSR_TRACE_NO_NAME UINT32_MAX

/* --- Opening ------------------------------------------------------------- */

/* Version 1 ended after memory_cap; it is still accepted (without
 * progress). */
typedef struct tsr_trace_open_options {
	unsigned version;     /* TSR_TRACE_OPEN_OPTIONS_VERSION */
	uint64_t memory_cap;  /* bytes reportlib may hold for this handle; 0: 2 GiB */
	tsr_progress_cb progress; /* version 2: progress of the open, then kept by the handle
	                             (tsr_trace_set_progress); NULL: none */
	void *progress_data;  /* version 2: its user_data */
} tsr_trace_open_options;
#define TSR_TRACE_OPEN_OPTIONS_VERSION 2
#define TSR_TRACE_OPEN_OPTIONS_INIT {TSR_TRACE_OPEN_OPTIONS_VERSION, 0, NULL, NULL}

/*
 * Opens paths[0..n_paths): .pvti files, Chrome trace-event JSON files
 * (told apart by content: the first byte past white space is '[' or '{';
 * read with a streaming parser into a .pvti in memory, one process per
 * file, see README "Chrome trace-event JSON"), or directories. A
 * directory gives its regular files (not its subdirectories), sorted by
 * name: its *.pvti files; when it has none, its files holding a Chrome
 * trace whatever their names (JSON whose first 64 KiB hold
 * "traceEvents", or an array whose events' "ph" key is there: other JSON
 * is skipped). Never both: a JSON file beside .pvti files is most often
 * their export, which would count every span twice. `opts` may be NULL.
 * On failure *out is NULL and tsr_last_error() says why in one line naming
 * the file: TSR_ERR_NOT_FOUND (also a directory without traces: "DIR: no
 * trace in this directory ..."), TSR_ERR_NOT_SQLITE,
 * TSR_ERR_NOT_REPORT (another application's file, or a profile.pop),
 * TSR_ERR_SCHEMA_TOO_NEW / _TOO_OLD (naming both versions),
 * TSR_ERR_CORRUPT, TSR_ERR_TOO_LARGE, or TSR_ERR_CANCELLED when
 * opts->progress asked to stop. A trace whose process died (no
 * summary tables) opens; its summaries are computed from the chunks when
 * asked for. The caller frees with tsr_trace_free().
 */
TSR_API int tsr_trace_open(tsr_trace **out, const char *const *paths, size_t n_paths,
                           const tsr_trace_open_options *opts);
/*
 * A second handle over the files `trace` holds (tsr_trace_get_processes'
 * paths, in its order), for another thread: the System Analyser draws
 * with one and computes statistics with the other. A .pvti file is opened
 * again (and shows what it holds now); a Chrome trace-event JSON file is
 * not read again: both handles read one read-only database in memory,
 * built when `trace` was opened and freed with the last handle holding it
 * (each handle counts its size against its own memory cap). `trace` is
 * only read, and only what tsr_trace_open fixed, so this may run on
 * another thread while `trace` is in use (not while it is being freed).
 * `opts` as tsr_trace_open's. Fails as tsr_trace_open does; the caller
 * frees the answer with tsr_trace_free().
 */
TSR_API int tsr_trace_reopen(tsr_trace **out, const tsr_trace *trace,
                             const tsr_trace_open_options *opts);
/* NULL-safe. */
TSR_API void tsr_trace_free(tsr_trace *trace);
/* Replaces the handle's progress callback (`cb` NULL: none) for the later
 * calls that report. Not from inside a callback. */
TSR_API int tsr_trace_set_progress(tsr_trace *trace, tsr_progress_cb cb, void *user_data);
/* The message of the handle's last failure: "" when none (and for a NULL
 * handle), never NULL. */
TSR_API const char *tsr_trace_error(const tsr_trace *trace);

/* --- What the trace holds ---------------------------------------------------- */

typedef struct tsr_trace_info {
	int64_t origin_wall_ns;  /* time 0: ns since 1970-01-01 UTC (the earliest origin) */
	int64_t start_ns, end_ns;/* the earliest and latest time of any event, instant or
	                            sample (0, 0 when there are none) */
	uint64_t events;         /* spans, all threads (from the chunk counts) */
	size_t processes, threads, channels, names, series;
	bool complete;           /* every file was closed cleanly (has its summaries) */
} tsr_trace_info;
TSR_API const tsr_trace_info *tsr_trace_get_info(const tsr_trace *trace);

/* One traced process: one file. */
typedef struct tsr_trace_process {
	const char *path;          /* the .pvti file */
	int64_t pid;
	const char *host, *name;   /* host name, program name */
	const char *command_line;  /* or NULL */
	int64_t start_wall_ns;     /* its origin: ns since 1970-01-01 UTC */
	int64_t start_mono_ns;     /* its origin on the host's CLOCK_MONOTONIC */
	int64_t offset_ns;         /* where its origin lies on the merged axis (>= 0) */
	const char *clock;         /* "rdtsc" or "monotonic" */
	double ticks_per_s;        /* rdtsc: measured frequency (Hz); 0 when unknown */
	bool complete;             /* closed cleanly: label_stats and timeline_lod present */
	size_t first_thread, n_threads; /* its threads in tsr_trace_get_threads() */
	size_t n_metadata;         /* trace_metadata: keys and JSON values */
	const char *const *metadata_keys;
	const char *const *metadata_values;
} tsr_trace_process;
TSR_API int tsr_trace_get_processes(const tsr_trace_process **out, size_t *n, tsr_trace *trace);
/* The JSON value of trace_metadata key `key` of `process`, or NULL. */
TSR_API const char *tsr_trace_lookup_metadata(const tsr_trace *trace, size_t process,
                                              const char *key);

/*
 * What importing a Chrome trace-event JSON file left out (README "Chrome
 * trace-event JSON"), so that a tool can say so instead of showing fewer
 * spans than the file holds. The import keeps these counts in the file's
 * trace_metadata (the keys below, what tsr_trace_lookup_metadata reads);
 * this lists them by kind, each with the line to show.
 */
typedef enum tsr_trace_skip_kind {
	TSR_TRACE_SKIP_TOO_DEEP = 0,   /* spans nested past 250 levels, the .pvti
	                                  writer's limit (pvti.too_deep) */
	TSR_TRACE_SKIP_UNCLOSED,       /* B events never ended (pvti.unclosed_begins) */
	TSR_TRACE_SKIP_UNMATCHED_END,  /* E events with no B open (pvti.unbalanced_ends) */
	TSR_TRACE_SKIP_BAD_TIME,       /* X events of negative dur, E events before
	                                  their B (chrome.bad_times) */
	TSR_TRACE_SKIP_PHASE,          /* events of phases not read: async, flow,
	                                  sample, object ... (chrome.skipped_phases) */
	TSR_TRACE_SKIP_ARGS            /* events kept without their args, over 1 MiB
	                                  (chrome.args_dropped) */
} tsr_trace_skip_kind;

typedef struct tsr_trace_skip {
	size_t process;                /* the file: index into tsr_trace_get_processes() */
	tsr_trace_skip_kind kind;
	uint64_t count;                /* events */
	const char *message;           /* the line to show, without the file's name:
	                                  "9,750 events skipped: nested past 250 levels" */
} tsr_trace_skip;
/*
 * What the imports of `trace`'s Chrome JSON files skipped: one entry per
 * file and kind with a non-zero count, by process then kind; none for a
 * .pvti file (its writer's own counts are not an import's). *out is one
 * block the caller frees with free() (the messages are inside it), NULL
 * when *n is 0. TSR_ERR_NO_MEMORY, or TSR_ERR_INVALID_ARGUMENT for a NULL
 * argument.
 */
TSR_API int tsr_trace_list_skipped(tsr_trace_skip **out, size_t *n, tsr_trace *trace);

/* A thread, by process then thread id. Thread indexes (0-based, over all
 * files) are what the queries below take. */
typedef struct tsr_trace_thread {
	size_t process;            /* index into tsr_trace_get_processes() */
	int64_t id;                /* thread.id in its file */
	int64_t tid;               /* OS thread id */
	const char *name;
	uint64_t events;           /* spans recorded */
	int64_t first_ns, last_ns; /* earliest start, latest end of its spans (0, 0: none) */
} tsr_trace_thread;
TSR_API int tsr_trace_get_threads(const tsr_trace_thread **out, size_t *n, tsr_trace *trace);

/* Channels, merged across files by name. */
typedef struct tsr_trace_channel {
	const char *name;          /* "Drivers", "Poplar", "Framework", user channels */
	bool enabled;              /* recorded in at least one file */
} tsr_trace_channel;
TSR_API int tsr_trace_get_channels(const tsr_trace_channel **out, size_t *n, tsr_trace *trace);

/* Tracepoint names, merged across files: ids 0 .. tsr_trace_get_info()->names - 1.
 * NULL for an id past the end. */
TSR_API const char *tsr_trace_get_name(const tsr_trace *trace, uint32_t id);

/* --- Events in a window ------------------------------------------------------- */

typedef enum tsr_trace_item_kind {
	TSR_TRACE_ITEM_EVENT = 0, /* one span */
	TSR_TRACE_ITEM_MERGED,    /* a run of spans of one depth, each narrower than the
	                             resolution, with gaps narrower than it */
	TSR_TRACE_ITEM_SUMMARY    /* level-of-detail buckets: what started in them (any
	                             depth), drawn at depth 0 */
} tsr_trace_item_kind;

/* What a timeline draws. */
typedef struct tsr_trace_item {
	int64_t start_ns, end_ns;  /* EVENT: the span; MERGED: from the first start to the last
	                              end; SUMMARY: the buckets' bounds */
	uint64_t count;            /* spans it stands for (1 for an EVENT) */
	uint64_t busy_ns;          /* EVENT: its duration; MERGED: the sum of durations;
	                              SUMMARY: time covered by outermost spans */
	int64_t seq;               /* EVENT: its ordinal in its thread; else -1 */
	int64_t parent;            /* EVENT: the enclosing span's seq, -1 when none; else -1 */
	uint32_t name;             /* EVENT; MERGED: the longest span's; SUMMARY: the name
	                              covering most time, or TSR_TRACE_NO_NAME */
	uint32_t channel;          /* index into tsr_trace_get_channels() (SUMMARY: 0) */
	uint32_t depth;            /* 0: outermost */
	tsr_trace_item_kind kind;
} tsr_trace_item;

/*
 * The spans of thread `thread` in [from_ns, to_ns), as items to draw at
 * `resolution_ns` (the width of one pixel; 0: every span on its own).
 *
 * A span is in the window when it starts before to_ns and ends after
 * from_ns (a zero-length one: lies in it). When the window holds few
 * enough spans to decode, every one of them is counted once: as an EVENT
 * when it is at least resolution_ns wide, else in a MERGED run with its
 * narrow neighbours of the same depth (so the counts add up to the spans
 * in the window, and at resolution 0 every span is an EVENT). Otherwise,
 * and only when resolution_ns is at least the finest level-of-detail
 * bucket, the answer is SUMMARY items, one per pixel with something in
 * it; their counts are the spans (of any depth) starting in their
 * buckets. Items come by depth, then start. The caller frees *out with
 * free(). TSR_ERR_OUT_OF_RANGE for a bad thread, TSR_ERR_INVALID_ARGUMENT
 * when from_ns > to_ns, TSR_ERR_CORRUPT for a damaged chunk.
 */
TSR_API int tsr_trace_list_events(tsr_trace_item **out, size_t *n, tsr_trace *trace, size_t thread,
                                  int64_t from_ns, int64_t to_ns, uint64_t resolution_ns);

/* The most spans one tsr_trace_list_events call at a non-zero resolution
 * decodes one by one (EVENT and MERGED items) before it answers from the
 * level of detail instead (SUMMARY items); 0: the default, 256 Ki. A
 * timeline that asks for many threads in one frame lowers it so that the
 * frame's cost stays bounded. TSR_ERR_INVALID_ARGUMENT for a NULL trace. */
TSR_API int tsr_trace_set_decode_budget(tsr_trace *trace, uint64_t spans);

/* JSON attached to span `seq` of `thread` (pvti_event_metadata), in *json
 * (caller frees with free()), or *json NULL when there is none. */
TSR_API int tsr_trace_dup_event_metadata(char **json, tsr_trace *trace, size_t thread, int64_t seq);

/* The autoReport of the engine whose compile or run span `seq` of
 * `thread` is (the link the runtime records, see db-schema/pvti.sql):
 * *dir the report's directory, absolute (the link is stored relative to
 * the trace file's directory, and resolved against the directory of the
 * file this handle read; older traces hold it absolute), following the
 * files into their subdirectory when a later engine moved them there;
 * *engine the engine's name (may be NULL to skip), *run the run's index in the
 * report's runs, or -1 for a compile span (may be NULL). *dir and *engine
 * are the caller's to free(). TSR_ERR_NO_DATA when the span has no link,
 * TSR_ERR_CORRUPT when its link is malformed. */
TSR_API int tsr_trace_dup_span_report(char **dir, char **engine, int64_t *run, tsr_trace *trace,
                                      size_t thread, int64_t seq);

/* --- Statistics by label -------------------------------------------------------- */

typedef struct tsr_trace_label_stat {
	uint32_t channel;          /* index into tsr_trace_get_channels() */
	uint32_t name;             /* name id */
	uint64_t count;
	uint64_t total_ns;         /* sum of durations */
	uint64_t self_ns;          /* sum of durations minus their children's */
	uint64_t min_ns, max_ns;
	double mean_ns;
	uint64_t median_ns;        /* the middle duration (mean of the two middle ones for an
	                              even count); 0 when not computed */
	bool median_exact;         /* false: from an even sample of the durations (the cap) */
} tsr_trace_label_stat;

typedef struct tsr_trace_stats_options {
	unsigned version;          /* TSR_TRACE_STATS_OPTIONS_VERSION */
	int64_t thread;            /* a thread index, or -1: all threads */
	int64_t from_ns, to_ns;    /* spans starting in [from_ns, to_ns) */
	bool median;               /* compute medians (decodes every chunk concerned) */
	uint64_t max_durations;    /* durations kept for medians, all labels together;
	                              0: 4 Mi. Past it an even sample is kept. */
} tsr_trace_stats_options;
#define TSR_TRACE_STATS_OPTIONS_VERSION 1
#define TSR_TRACE_STATS_OPTIONS_INIT {TSR_TRACE_STATS_OPTIONS_VERSION, -1, INT64_MIN, \
                                      INT64_MAX, true, 0}

/*
 * Statistics per (channel, name) over the threads and window of `opts`
 * (NULL: every span, with medians), largest total first (then by channel
 * and name id). Without medians, over all threads and the whole trace of
 * files closed cleanly, this reads the files' label_stats; otherwise it
 * decodes the chunks. The caller frees *out with free().
 */
TSR_API int tsr_trace_list_label_stats(tsr_trace_label_stat **out, size_t *n, tsr_trace *trace,
                                       const tsr_trace_stats_options *opts);

/* --- Totals per process, thread and channel ---------------------------------------- */

/* Which spans the totals are taken over: those of `thread` starting in
 * [from_ns, to_ns), as tsr_trace_stats_options selects them. */
typedef struct tsr_trace_totals_options {
	unsigned version;          /* TSR_TRACE_TOTALS_OPTIONS_VERSION */
	int64_t thread;            /* a thread index, or -1: all threads */
	int64_t from_ns, to_ns;    /* spans starting in [from_ns, to_ns) */
} tsr_trace_totals_options;
#define TSR_TRACE_TOTALS_OPTIONS_VERSION 1
#define TSR_TRACE_TOTALS_OPTIONS_INIT {TSR_TRACE_TOTALS_OPTIONS_VERSION, -1, INT64_MIN, INT64_MAX}

/* The spans of one thread (or, summed over its threads, one process) in
 * the view. Busy time is the sum of the spans' self times (duration
 * minus their children's): the time some span of the thread was open,
 * counted once however deep the nesting. */
typedef struct tsr_trace_span_totals {
	uint64_t spans;            /* spans in the view */
	uint64_t busy_ns;          /* sum of their self times */
	int64_t first_ns, last_ns; /* the earliest start and the latest end among them;
	                              0, 0 when spans is 0 */
} tsr_trace_span_totals;

/* The spans of one channel in the view, all threads of the view together. */
typedef struct tsr_trace_channel_totals {
	uint64_t spans;
	uint64_t self_ns;          /* sum of their self times */
} tsr_trace_channel_totals;

/* The totals of a view: one entry per process, thread and channel of the
 * handle, indexed as tsr_trace_get_processes(), tsr_trace_get_threads() and
 * tsr_trace_get_channels() list them (entries outside the view are zero). */
typedef struct tsr_trace_totals {
	uint64_t spans;            /* spans in the view */
	uint64_t self_ns;          /* sum of their self times */
	size_t n_processes, n_threads, n_channels;
	tsr_trace_span_totals *processes;    /* a process's: its threads' summed, first / last
	                                        over them */
	tsr_trace_span_totals *threads;
	tsr_trace_channel_totals *channels;
} tsr_trace_totals;

/*
 * The totals of the spans `opts` selects (NULL: every span), per
 * process, thread and channel, with self times computed as
 * tsr_trace_list_label_stats computes them. A file closed cleanly whose
 * process traced from one thread answers a whole-trace query from its
 * label_stats; otherwise the chunks of the threads in the view are
 * decoded. The caller frees *out with tsr_trace_totals_free().
 * TSR_ERR_OUT_OF_RANGE for a bad thread, TSR_ERR_INVALID_ARGUMENT when
 * from_ns > to_ns or the options' version is unknown.
 */
TSR_API int tsr_trace_totals_new(tsr_trace_totals **out, tsr_trace *trace,
                                 const tsr_trace_totals_options *opts);
/* NULL-safe. */
TSR_API void tsr_trace_totals_free(tsr_trace_totals *totals);

/* --- Counters ------------------------------------------------------------------ */

/* A series of values of a graph (pvti_graph_add_series), in one file. */
typedef struct tsr_trace_series {
	size_t process;
	const char *graph;         /* the chart it is drawn on */
	const char *unit;          /* of its values ("" when none) */
	const char *name;
} tsr_trace_series;
TSR_API int tsr_trace_get_series(const tsr_trace_series **out, size_t *n, tsr_trace *trace);

/* The samples of a series in one bucket of time. */
typedef struct tsr_trace_counter_bucket {
	int64_t from_ns, to_ns;    /* the bucket */
	uint64_t count;            /* samples in it (>= 1) */
	double min, max;
	double first, last;        /* the earliest and latest sample's values */
} tsr_trace_counter_bucket;

/*
 * The samples of series `series` in [from_ns, to_ns), in buckets of
 * `bucket_ns` starting at from_ns: only buckets holding a sample are
 * listed, in time order. The first query loads the series once (checked
 * against the memory cap); each later one costs O(buckets x log n).
 * `before` (may be NULL) gets the value of the last sample before from_ns
 * (NaN when none), for drawing the line into the window. The caller frees
 * *out with free(). TSR_ERR_INVALID_ARGUMENT for bucket_ns 0, from_ns >
 * to_ns, or more than 16 Mi buckets.
 */
TSR_API int tsr_trace_list_counter_buckets(tsr_trace_counter_bucket **out, size_t *n,
                                           double *before, tsr_trace *trace, size_t series,
                                           int64_t from_ns, int64_t to_ns, uint64_t bucket_ns);

/* --- Heatmaps ------------------------------------------------------------------ */

/* A heatmap (pvti_heatmap_new) of one file: at each sample, how many
 * values fell in each of its n_edges + 1 buckets. */
typedef struct tsr_trace_heatmap {
	size_t process;            /* its file (the format gives a heatmap no other owner) */
	const char *name;
	const char *unit;          /* of the bucketed values ("" when none) */
	size_t n_edges;            /* >= 1; the buckets are 0 .. n_edges */
	const double *edges;       /* strictly ascending: bucket 0 is below edges[0], bucket i
	                              in [edges[i-1], edges[i]), bucket n_edges from
	                              edges[n_edges-1] up */
	uint64_t samples;          /* times a sample was added (distinct times) */
	int64_t first_ns, last_ns; /* its first and last sample (0, 0 when none) */
	uint64_t skipped;          /* malformed rows skipped (a bucket out of range, a count
	                              below 1, not integers); known after the first
	                              tsr_trace_list_heatmap_counts of this heatmap, 0 before */
} tsr_trace_heatmap;

/* The heatmaps of every file, by file then id; read on the first call
 * (their sample counts and ranges through the file's time index, not
 * their rows). Borrowed, valid until tsr_trace_free(). TSR_ERR_CORRUPT
 * naming the heatmap when its edges are not 1 to 4,096 finite, strictly
 * ascending numbers. */
TSR_API int tsr_trace_get_heatmaps(const tsr_trace_heatmap **out, size_t *n, tsr_trace *trace);

/*
 * The counts of heatmap `heatmap` in [from_ns, to_ns) cut into `columns`
 * equal columns (a pixel each): *out is columns x (n_edges + 1) counts,
 * column by column, (*out)[c * (n_edges + 1) + b] the values of bucket b
 * in the samples of column c (column c covers from_ns + (to_ns - from_ns)
 * x [c, c + 1) / columns). The first query loads the heatmap's rows
 * (counted against the memory cap); each later one costs
 * O(columns x (buckets + 128)) however many samples the window holds.
 * The caller frees *out with free(). TSR_ERR_OUT_OF_RANGE for a bad
 * heatmap, TSR_ERR_INVALID_ARGUMENT for 0 columns, from_ns > to_ns or
 * more than 16 Mi counts.
 */
TSR_API int tsr_trace_list_heatmap_counts(uint64_t **out, tsr_trace *trace, size_t heatmap,
                                          int64_t from_ns, int64_t to_ns, size_t columns);

/* --- Instants --------------------------------------------------------------------- */

typedef struct tsr_trace_instant {
	int64_t t_ns;
	size_t thread;             /* thread index */
	uint32_t channel, name, depth;
	int64_t parent;            /* seq of the innermost open span, -1 when none */
} tsr_trace_instant;

/* The instants of `thread` (-1: all) in [from_ns, to_ns), in time order,
 * at most `limit` (0: no limit) of the earliest. The caller frees *out. */
TSR_API int tsr_trace_list_instants(tsr_trace_instant **out, size_t *n, tsr_trace *trace,
                                    int64_t thread, int64_t from_ns, int64_t to_ns, size_t limit);

/* --- Search ---------------------------------------------------------------------- */

typedef enum tsr_trace_match {
	TSR_TRACE_MATCH_SUBSTRING = 0,  /* the pattern occurs in the name */
	TSR_TRACE_MATCH_REGEX,          /* POSIX extended regular expression (regcomp) */
	TSR_TRACE_MATCH_SUBSTRING_ICASE,/* the same, ignoring ASCII case */
	TSR_TRACE_MATCH_REGEX_ICASE
} tsr_trace_match;

/* Ids of the names matching `pattern`, ascending. The caller frees *out.
 * TSR_ERR_INVALID_ARGUMENT (with regerror's text) for a bad expression. */
TSR_API int tsr_trace_list_matching_names(uint32_t **out, size_t *n, tsr_trace *trace,
                                          const char *pattern, tsr_trace_match mode);

typedef struct tsr_trace_search_query {
	unsigned version;          /* TSR_TRACE_SEARCH_QUERY_VERSION */
	const char *pattern;
	tsr_trace_match mode;
	int64_t thread;            /* a thread index, or -1: all */
	int64_t from_ns, to_ns;    /* spans in the window (as tsr_trace_list_events) */
	size_t limit;              /* the earliest `limit` matches are returned; 0: 1000 */
} tsr_trace_search_query;
#define TSR_TRACE_SEARCH_QUERY_VERSION 1
#define TSR_TRACE_SEARCH_QUERY_INIT {TSR_TRACE_SEARCH_QUERY_VERSION, "", \
                                     TSR_TRACE_MATCH_SUBSTRING, -1, INT64_MIN, INT64_MAX, 0}

/* One span found. */
typedef struct tsr_trace_found {
	size_t thread;
	tsr_trace_item event;      /* kind TSR_TRACE_ITEM_EVENT */
} tsr_trace_found;

/* The spans whose names match, earliest start first (then thread, seq),
 * at most q->limit of them; *total counts every match. Decodes the chunks
 * of the window (only when some name matches). The caller frees *out. */
TSR_API int tsr_trace_search(tsr_trace_found **out, size_t *n, uint64_t *total, tsr_trace *trace,
                             const tsr_trace_search_query *q);

/* --- Export ---------------------------------------------------------------------- */

typedef struct tsr_trace_export_options {
	unsigned version;          /* TSR_TRACE_EXPORT_OPTIONS_VERSION */
	int64_t from_ns, to_ns;    /* spans in the window, instants and samples in it */
	bool counters, instants;   /* include "C" and "i" events */
	bool metadata;             /* span metadata as "args" */
} tsr_trace_export_options;
#define TSR_TRACE_EXPORT_OPTIONS_VERSION 1
#define TSR_TRACE_EXPORT_OPTIONS_INIT {TSR_TRACE_EXPORT_OPTIONS_VERSION, INT64_MIN, INT64_MAX, \
                                       true, true, true}

/*
 * Writes the trace to `out` as Chrome trace-event JSON (one object with
 * "traceEvents" and "displayTimeUnit"), which Perfetto and chrome://tracing
 * open: "M" events naming processes and threads, "X" spans and "i"
 * instants with ts / dur in microseconds (exact decimals of the ns), "C"
 * counters (one per sample, named after the graph, the series as the
 * argument). pid and tid are the OS ones (a tid reused by a later thread
 * of the same process becomes 1000000000 + its thread id, so the two do
 * not share a track). Streams: memory does not grow with the trace.
 * `opts` may be NULL. TSR_ERR_IO when writing fails.
 */
TSR_API int tsr_trace_export_chrome(FILE *out, tsr_trace *trace,
                                    const tsr_trace_export_options *opts);

/* --- Read-only SQL ------------------------------------------------------------------ */

/*
 * Runs one read-only SQL statement over file `file` of the handle (an
 * index into tsr_trace_get_processes(): one .pvti file, its tables as in
 * db-schema/pvti.sql) and hands each result row to `row_cb`; the same
 * rules, callbacks and results as tsr_report_query (report.h). Each file
 * is queried on its own because the files have their own ids and times:
 * times in the answer are the file's own nanoseconds, not the merged
 * axis (add tsr_trace_process.offset_ns to move them onto it).
 * TSR_ERR_OUT_OF_RANGE for a file past the end.
 */
TSR_API int tsr_trace_query(tsr_trace *trace, size_t file, const char *sql,
                            tsr_columns_cb columns_cb, tsr_row_cb row_cb, void *user_data);
/* Sets the bounds of the handle's later queries, as
 * tsr_report_set_query_limits (report.h). */
TSR_API int tsr_trace_set_query_limits(tsr_trace *trace, const tsr_query_limits *limits);

/* --- Comparing two traces -------------------------------------------------------- */

/* One label (channel and tracepoint name, matched by text) of a comparison
 * of trace A with trace B: its statistics on each side and the deltas
 * B - A. */
typedef struct tsr_trace_label_delta {
	const char *channel, *name; /* borrowed from A's handle (B's for a label only in B),
	                               valid until that handle is freed */
	bool in_a, in_b;            /* the label has spans in A, in B */
	tsr_trace_label_stat a, b;  /* its statistics on each side (all zero where absent);
	                               their channel and name ids are their own handle's */
	int64_t delta_count;        /* b.count - a.count */
	int64_t delta_total_ns;     /* b.total_ns - a.total_ns */
	int64_t delta_self_ns;      /* b.self_ns - a.self_ns */
	double delta_mean_ns;       /* b.mean_ns - a.mean_ns */
	int64_t delta_median_ns;    /* b.median_ns - a.median_ns */
	double delta_total_pct;     /* 100 * delta_total_ns / a.total_ns; NaN when a.total_ns
	                               is 0 (a label only in B, or of zero-length spans) */
} tsr_trace_label_delta;

/*
 * Matches the labels of A (a_labels[0..n_a), statistics of trace `a` as
 * tsr_trace_list_label_stats gives them) with those of B (of trace `b`,
 * which may be `a` itself: two windows of one trace) by channel and name
 * text, and lists every label of either side once, the largest
 * |delta_total_ns| first (then the larger total of the two sides, then
 * channel and name in byte order). Labels listed twice on one side are
 * an error. The caller frees *out with free(). TSR_ERR_INVALID_ARGUMENT
 * for a NULL handle or array (with a non-zero count) or a label listed
 * twice, TSR_ERR_OUT_OF_RANGE for a channel or name id its handle does
 * not have; the message is kept on `a` (tsr_trace_error) and as
 * tsr_last_error().
 */
TSR_API int tsr_trace_list_label_deltas(tsr_trace_label_delta **out, size_t *n, tsr_trace *a,
                                        const tsr_trace_label_stat *a_labels, size_t n_a,
                                        tsr_trace *b, const tsr_trace_label_stat *b_labels,
                                        size_t n_b);
/* --- Call tree ---------------------------------------------------------------------- */

/* "No node": the parent of a root. */
#define TSR_TRACE_NO_NODE SIZE_MAX

/* One call path: the spans of one label (channel and name) whose
 * enclosing spans in the view carry the labels of the node's ancestors. */
typedef struct tsr_trace_call_node {
	size_t parent;             /* index of the enclosing path's node; TSR_TRACE_NO_NODE:
	                              a root */
	size_t first_child;        /* its children are nodes[first_child .. first_child +
	                              n_children), largest inclusive time first */
	size_t n_children;
	uint32_t channel;          /* index into tsr_trace_get_channels() */
	uint32_t name;             /* name id */
	uint32_t depth;            /* in the tree: 0 for a root */
	uint64_t count;            /* spans on this path */
	uint64_t inclusive_ns;     /* sum of their durations */
	uint64_t exclusive_ns;     /* sum of their self times (duration minus their
	                              children's, as tsr_trace_list_label_stats counts it) */
} tsr_trace_call_node;

typedef struct tsr_trace_call_tree {
	tsr_trace_call_node *nodes;/* breadth first: the roots are nodes[0 .. n_roots),
	                              largest inclusive time first */
	size_t n_nodes, n_roots;
	uint64_t spans;            /* spans in the view: the counts summed */
	uint64_t inclusive_ns;     /* the roots' inclusive times summed */
} tsr_trace_call_tree;

/* Which spans the tree is made of. */
typedef struct tsr_trace_call_tree_options {
	unsigned version;          /* TSR_TRACE_CALL_TREE_OPTIONS_VERSION */
	int64_t thread;            /* a thread index, or -1: all threads (merged by path) */
	int64_t from_ns, to_ns;    /* spans starting in [from_ns, to_ns), as
	                              tsr_trace_stats_options selects them */
	int64_t span;              /* with a thread: only the span of that seq and the spans
	                              below it (from_ns / to_ns must hold it); -1: all */
} tsr_trace_call_tree_options;
#define TSR_TRACE_CALL_TREE_OPTIONS_VERSION 1
#define TSR_TRACE_CALL_TREE_OPTIONS_INIT {TSR_TRACE_CALL_TREE_OPTIONS_VERSION, -1, INT64_MIN, \
                                          INT64_MAX, -1}

/*
 * The call tree of the spans `opts` selects (NULL: every span): one node
 * per distinct path of labels from an outermost span of the view down,
 * with the count, inclusive and exclusive time of the spans on it. A
 * span whose enclosing span is not in the view (it started before
 * from_ns, or on another thread's tree) is a root. Every span of the
 * view is on exactly one node, so the counts, inclusive and exclusive
 * times of the nodes of one label add up to its tsr_trace_list_label_stats
 * count, total and self over the same view. Decodes the chunks of the
 * threads in the view (up to the first outermost span starting after
 * to_ns). The caller frees *out with tsr_trace_call_tree_free().
 * TSR_ERR_OUT_OF_RANGE for a bad thread, TSR_ERR_INVALID_ARGUMENT when
 * from_ns > to_ns, the version is unknown or `span` is given without a
 * thread; TSR_ERR_CANCELLED from the progress callback.
 */
TSR_API int tsr_trace_call_tree_new(tsr_trace_call_tree **out, tsr_trace *trace,
                                    const tsr_trace_call_tree_options *opts);
/* NULL-safe. */
TSR_API void tsr_trace_call_tree_free(tsr_trace_call_tree *tree);

#ifdef __cplusplus
}
#endif
