/*
 * reportlib: reading profile.pop reports (libtilescope-report, prefix tsr_).
 *
 * Every figure the `tilescope` command and the Graph Analyser show comes
 * from here: target, graph counts, memory by tile / region / category /
 * compute set / vertex type / variable / IPU, tile histograms, liveness,
 * the program tree, runs and their execution steps, totals by activity,
 * cycles by vertex type, FLOPs and utilisation, and operations (debug
 * contexts).
 *
 * Files travel between people, so a report is opened read-only and
 * defensively: SQLite's defensive configuration, trusted_schema off,
 * nothing defined in the file (triggers, views, virtual tables) ever runs,
 * every count, index and blob read is checked against the data around it,
 * and memory is capped. A bad file gets one error code and a one-line
 * message; never a crash, a hang or an unbounded allocation.
 *
 * Conventions (the house style), for every tsr_ function of report.h,
 * trace.h, summary.h, compare.h, export.h and units.h:
 *
 *   - Functions return TSR_OK or a negative tsr_error, and the
 *     out-parameters come first, then the handle, then the arguments:
 *     int tsr_report_get_steps(const tsr_step **out, size_t *n,
 *                              tsr_report *report, size_t run).
 *   - The verb says who owns what comes back:
 *       get_     borrowed: `const`, valid until the handle is freed
 *                (tsr_report_free, tsr_trace_free ...); also plain values;
 *       list_    an array the caller owns and frees with free();
 *       fill_    writes into the caller's array or struct (`n` entries);
 *       dup_     a copy (a string) the caller owns and frees with free();
 *       lookup_  may find nothing: NULL (or *out NULL) is an answer, not
 *                an error;
 *       _new / _free, _open / _free: make and free a handle; every
 *                _free accepts NULL (tsr_trace_reopen is an _open over
 *                another handle's files);
 *       set_     changes the handle (no out-parameter).
 *     Calls that do work are named after it (open, compare, query,
 *     search, export, print, format). Pure functions over the library's own
 *     constants take no handle and name what they give
 *     (tsr_error_name, tsr_category_name, tsr_step_type_name).
 *   - The formats' words (memory categories, regions, program and step
 *     types, sync and exchange kinds, profiler modes, IPU versions, data
 *     types) are enumerations, expanded from the format library's one
 *     table (tilescope/vocabulary.def), never strings: a caller spells them
 *     only at its edges (JSON, text, labels) with tsr_category_name,
 *     tsr_region_name, tsr_program_type_name ... Where a file from a newer
 *     writer may hold a word this reader lacks (profiler mode, IPU version,
 *     data type), the enumeration has an _UNKNOWN member and the struct
 *     keeps the word as the file spells it (a `_name` field) for showing.
 *   - Error messages are never NULL: tsr_last_error(), tsr_report_error()
 *     and tsr_trace_error() return "" when there has been no failure (and
 *     the handle accessors "" for a NULL handle); after a failure, a one-line
 *     message valid until the next failure on the same thread / handle.
 *   - "None" is TSR_NONE (-1) in every field that may name nothing: -1 in
 *     int64_t fields, and (uint32_t)TSR_NONE (UINT32_MAX, spelled
 *     TSR_TRACE_NO_NAME for name ids) in the uint32_t ones.
 *     The one exception is debug context ids, which are 1-based as
 *     profile.pop stores them, so tsr_operation.parent is 0 at top level.
 *
 * Ids are the 0-based ids of profile.pop (see db-schema/profile.sql). An
 * `ipu` argument of -1 means all IPUs of one replica.
 *
 * Threads. A handle (tsr_report, tsr_trace, tsr_comparison) is used by
 * one thread at a time: even the `const` getters may not run while
 * another thread calls into the same handle, because first use loads
 * parts into it. Different handles may be used at the same time from
 * different threads, also when they are opened on the same file (each
 * has its own SQLite connection; the file is only read). Nothing global
 * is changed after the library is loaded except SQLite's one-time
 * initialisation, which is done once, safely, at the first open. Error
 * messages: tsr_last_error() is per thread (a failure in one thread never
 * shows in another), and a handle's message (tsr_report_error) belongs
 * to the handle, so read it from the thread using the handle.
 *
 * Progress and cancelling. The calls that may take long on a large file
 * take a tsr_progress_cb: tsr_report_open in its options; the others use
 * the callback the handle was opened with, which tsr_report_set_progress
 * replaces or removes. See tsr_progress_cb for which calls report.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TSR_API
#else
#define TSR_API __attribute__((visibility("default")))
#endif

/* "None": the value of an id or index field that names nothing, -1 in the
 * field's type (see the conventions above). */
#define TSR_NONE (-1)

/* --- Errors ------------------------------------------------------------- */

typedef enum tsr_error {
	TSR_OK = 0,
	TSR_ERR_INVALID_ARGUMENT = -1, /* a bad argument from the caller */
	TSR_ERR_NO_MEMORY = -2,        /* the host ran out of memory */
	TSR_ERR_NOT_FOUND = -3,        /* no such file or directory */
	TSR_ERR_NOT_SQLITE = -4,       /* not an SQLite database */
	TSR_ERR_NOT_REPORT = -5,       /* SQLite, but not a Tilescope report of this kind */
	TSR_ERR_SCHEMA_TOO_NEW = -6,   /* written by a newer Tilescope (message names both versions) */
	TSR_ERR_SCHEMA_TOO_OLD = -7,   /* written by an older Tilescope this one cannot read */
	TSR_ERR_CORRUPT = -8,          /* damaged, or a value contradicts the rest of the file */
	TSR_ERR_TOO_LARGE = -9,        /* reading it would pass the memory cap */
	TSR_ERR_IO = -10,              /* an operating-system read or write failed */
	TSR_ERR_OUT_OF_RANGE = -11,    /* an index (run, step, tile, id) past the end */
	TSR_ERR_NO_DATA = -12,         /* the report does not hold what was asked (no runs ...) */
	TSR_ERR_CANCELLED = -13        /* the progress callback asked to stop */
} tsr_error;

/* "TSR_ERR_CORRUPT" ... for a code; "unknown" for others. */
TSR_API const char *tsr_error_name(int code);
/* The message of the last failure on this thread of a call that has no
 * handle to keep it in (tsr_report_open, tsr_trace_open ...): "" on a
 * thread that has had no failure, never NULL; valid until the next
 * failure on this thread. */
TSR_API const char *tsr_last_error(void);

/* --- Progress ------------------------------------------------------------ */

/*
 * Called during a long call with how far it is (`fraction`, 0 to 1, never
 * going back within one call; the first call of each has 0 and a call
 * that succeeds ends with exactly 1) and what it is doing (`message`, a
 * short English phrase, valid during the callback only). `user_data` is
 * what was given with the callback. Return 0 to go on, non-zero to cancel:
 * the call then stops within a few milliseconds, frees what it made and
 * returns TSR_ERR_CANCELLED (an open sets *out to NULL; a handle stays
 * usable, with the parts it had already loaded).
 *
 * It is called at each part of the work and, in between, about every
 * 10 ms while work goes on; always on the thread that made the call. It
 * must not call into the handle being worked on (nor, for tsr_compare,
 * into either report): the handle is in the middle of the call. Calls
 * that report: tsr_report_open, tsr_compare (through the base report's
 * callback, for both reports), tsr_trace_open, tsr_trace_list_events when it
 * builds a thread's level of detail, tsr_trace_list_label_stats and
 * tsr_trace_search, tsr_report_get_frames, and tsr_report_query and
 * tsr_trace_query (0 until the statement ends). Other calls do not call
 * it. A cancel also interrupts whatever SQLite statement of the handle
 * is running (sqlite3_interrupt).
 */
typedef int (*tsr_progress_cb)(double fraction, const char *message, void *user_data);

/* --- Opening ------------------------------------------------------------ */

typedef struct tsr_report tsr_report;

/* Version 1 ended after memory_cap; it is still accepted (without
 * progress). */
typedef struct tsr_open_options {
	unsigned version;        /* TSR_OPEN_OPTIONS_VERSION */
	uint64_t memory_cap;     /* bytes reportlib may hold for this report; 0: 2 GiB */
	tsr_progress_cb progress;/* version 2: progress of the open, then kept by the handle
	                            (tsr_report_set_progress); NULL: none */
	void *progress_data;     /* version 2: its user_data */
} tsr_open_options;
#define TSR_OPEN_OPTIONS_VERSION 2
#define TSR_OPEN_OPTIONS_INIT {TSR_OPEN_OPTIONS_VERSION, 0, NULL, NULL}

/*
 * Opens `path`: a profile.pop, or an autoReport directory holding one
 * (its debug.cbor is taken along when present). `opts` may be NULL. On
 * failure *out is NULL and tsr_last_error() says why in one line naming
 * the file: TSR_ERR_NOT_FOUND, TSR_ERR_NOT_SQLITE, TSR_ERR_NOT_REPORT,
 * TSR_ERR_SCHEMA_TOO_NEW / _TOO_OLD (naming both versions),
 * TSR_ERR_CORRUPT, TSR_ERR_TOO_LARGE, or TSR_ERR_CANCELLED when
 * opts->progress asked to stop. The caller frees with
 * tsr_report_free(). Opening reads the small tables (target, tiles,
 * categories, programs, compute sets, vertex types, runs); per-tile
 * arrays, steps and variables are read when first asked for.
 */
TSR_API int tsr_report_open(tsr_report **out, const char *path, const tsr_open_options *opts);
TSR_API void tsr_report_free(tsr_report *report);
/* Replaces the handle's progress callback (`cb` NULL: none) for the later
 * calls that report (see tsr_progress_cb). Not from inside a callback. */
TSR_API int tsr_report_set_progress(tsr_report *report, tsr_progress_cb cb, void *user_data);
/* The message of the handle's last failure: "" when none (and for a NULL
 * handle), never NULL. */
TSR_API const char *tsr_report_error(const tsr_report *report);
/* The profile.pop path opened, and the debug.cbor taken along (or NULL). */
TSR_API const char *tsr_report_get_path(const tsr_report *report);
TSR_API const char *tsr_report_get_debug_info_path(const tsr_report *report);

/* --- About the report ---------------------------------------------------- */

/* The execution profile's "profilerMode", what the instrumentation
 * measured: TSR_PROFILER_IPU_MODEL (nothing), _COMPUTE_SETS,
 * _SINGLE_TILE_COMPUTE_SETS, _VERTICES, _EXTERNAL_EXCHANGES;
 * TSR_PROFILER_UNKNOWN (TSR_NONE) for a mode this reader does not know (a
 * newer writer's), which tsr_report_info.profiler_name still spells. */
typedef enum tsr_profiler_mode {
	TSR_PROFILER_UNKNOWN = TSR_NONE,
#define TSF_PROFILER_MODE(id, name) TSR_PROFILER_##id,
#include <tilescope/vocabulary.def>
	TSR_PROFILER_MODE_COUNT
} tsr_profiler_mode;
/* "IPU_MODEL", "COMPUTE_SETS" ...; NULL for TSR_PROFILER_UNKNOWN and past
 * the list. */
TSR_API const char *tsr_profiler_mode_name(tsr_profiler_mode mode);

typedef struct tsr_report_info {
	const char *tilescope_version; /* of the writer */
	const char *created;           /* ISO 8601 UTC */
	const char *command_line;      /* or NULL */
	const char *engine_name;       /* or NULL */
	tsr_profiler_mode profiler;    /* TSR_PROFILER_IPU_MODEL when the file names none */
	const char *profiler_name;     /* as the file spells it ("IPU_MODEL" ...): the words
	                                  to show, also for TSR_PROFILER_UNKNOWN */
	unsigned schema_version;
	bool lowered_vars;             /* compiler allocations listed among variables */
	size_t n_options;
	const char *const *option_names;  /* the engine options in force */
	const char *const *option_values;
} tsr_report_info;
TSR_API const tsr_report_info *tsr_report_get_info(const tsr_report *report);

/* IPU versions: TSR_IPU_MK2 (GC200), TSR_IPU_MK1 (GC2), TSR_IPU_BOW;
 * TSR_IPU_UNKNOWN (TSR_NONE) for one this reader does not know (a newer
 * chip), which tsr_target.version_name still spells. */
typedef enum tsr_ipu_version {
	TSR_IPU_UNKNOWN = TSR_NONE,
#define TSF_IPU_VERSION(id, name, target_name) TSR_IPU_##id,
#include <tilescope/vocabulary.def>
	TSR_IPU_VERSION_COUNT
} tsr_ipu_version;
/* "Mk2", "Mk1", "Bow"; NULL for TSR_IPU_UNKNOWN and past the list. */
TSR_API const char *tsr_ipu_version_name(tsr_ipu_version version);

typedef struct tsr_target {
	const char *type;             /* "IPU_MODEL" */
	const char *name;             /* "ipu2" */
	tsr_ipu_version version;
	const char *version_name;     /* as the file spells it (Mk2 ...): the word to show,
	                                 also for TSR_IPU_UNKNOWN */
	unsigned num_ipus;            /* of one replica */
	unsigned tiles_per_ipu;
	unsigned num_tiles;           /* num_ipus * tiles_per_ipu */
	unsigned replication_factor;
	unsigned num_worker_contexts;
	uint64_t bytes_per_tile;
	uint64_t bytes_per_ipu;
	uint64_t total_memory;        /* bytes, one replica */
	uint64_t clock_frequency;     /* Hz */
	uint64_t fp16_amp_flops_per_cycle; /* per tile */
	uint64_t fp32_flops_per_cycle;     /* per tile */
	uint32_t min_sync_delay;      /* cycles */
} tsr_target;
TSR_API const tsr_target *tsr_report_get_target(const tsr_report *report);
/* Sync delay of each tile of one IPU (tiles_per_ipu entries; cycles above
 * min_sync_delay), into the caller's array. */
TSR_API int tsr_report_fill_relative_sync_delays(uint64_t *out, size_t n, tsr_report *report);

/* The guide's "graph" plus what the report lists. */
typedef struct tsr_graph_counts {
	uint64_t compute_sets, edges, variables, vertices; /* the guide's "graph" */
	size_t programs, control_programs, function_programs, vertex_types,
	    internal_exchanges, external_exchanges, host_exchanges, listed_variables,
	    liveness_steps, debug_contexts, runs;
} tsr_graph_counts;
TSR_API const tsr_graph_counts *tsr_report_get_counts(const tsr_report *report);

/* --- Memory ---------------------------------------------------------------- */

/* INTERLEAVED, NON_INTERLEAVED, OVERFLOWED (bytes that did not fit). */
typedef enum tsr_region {
#define TSF_REGION(id, name) TSR_REGION_##id,
#include <tilescope/vocabulary.def>
	TSR_REGION_COUNT
} tsr_region;
/* The name stored in the file and the JSON output ("interleaved",
 * "nonInterleaved", "overflowed"); NULL past TSR_REGION_COUNT. */
TSR_API const char *tsr_region_name(tsr_region region);

/* One tile ("byTile"), in bytes. */
typedef struct tsr_tile_memory {
	uint64_t region[TSR_REGION_COUNT];
	uint64_t region_including_gaps[TSR_REGION_COUNT];
	uint64_t total, total_including_gaps;
} tsr_tile_memory;
/* Every tile (num_tiles entries). */
TSR_API int tsr_report_get_tile_memory(const tsr_tile_memory **out, size_t *n, tsr_report *report);

/* The one rule for "including gaps", which every figure and view follows
 * (the totals, largest tiles, histograms, the diff, the apps' charts, tile
 * maps, Summary and Insights): excluding gaps, a tile holds its `total`,
 * the data of its regions; including gaps, it needs its
 * `total_including_gaps`, its highest address used + 1, so the padding
 * inside its regions and the unused space between them count (what
 * decides whether it fits). Its gaps are the difference: one part beside
 * the data however the data is split (by region, category or liveness),
 * so that the parts add up to the total including gaps.
 * `region_including_gaps` counts only the padding inside each region: the
 * three do not add up to the total including gaps. A tile whose
 * total_including_gaps is below its total (a malformed file) has no gaps. */
TSR_API uint64_t tsr_tile_memory_get_gaps(const tsr_tile_memory *m);
/* `total` plus tsr_tile_memory_get_gaps() when `including_gaps`. */
TSR_API uint64_t tsr_tile_memory_get_bytes(const tsr_tile_memory *m, bool including_gaps);

/* Memory of all tiles (ipu = -1) or one IPU. */
typedef struct tsr_memory_totals {
	uint64_t capacity;                       /* bytes_per_tile * tiles counted */
	uint64_t total, total_including_gaps;    /* sums over the tiles */
	uint64_t region[TSR_REGION_COUNT], region_including_gaps[TSR_REGION_COUNT];
	uint32_t max_tile;                       /* the tile with the most, including gaps
	                                            (the lowest of tiles that tie) */
	uint64_t max_tile_bytes;                 /* its total_including_gaps */
	uint32_t max_tile_excluding_gaps;        /* the tile with the most data (the lowest
	                                            of tiles that tie) */
	uint64_t max_tile_excluding_gaps_bytes;
	uint64_t min_tile_bytes;                 /* the least total_including_gaps */
	double mean_tile_bytes;                  /* mean total_including_gaps */
	size_t oom_tiles;                        /* tiles above bytes_per_tile */
} tsr_memory_totals;
TSR_API int tsr_report_fill_memory_totals(tsr_memory_totals *out, tsr_report *report, int ipu);

/* Out-of-memory tiles, ascending. */
TSR_API int tsr_report_get_oom_tiles(const uint32_t **out, size_t *n, tsr_report *report);

/* The k fullest tiles of `ipu` (-1: all), by total including gaps (or
 * excluding), fullest first; ties by tile number. *n = min(k, tiles).
 * The caller frees *out with free(). */
TSR_API int tsr_report_list_largest_tiles(uint32_t **out, size_t *n, tsr_report *report, int ipu,
                                          bool including_gaps, size_t k);

/* Tiles per memory bucket: bucket b counts tiles whose total (including
 * gaps or not) lies in [b * width, (b + 1) * width). `width` 0 picks one
 * that gives about 20 buckets up to the fullest tile (its value in
 * *width_out). The caller frees *counts with free(). */
TSR_API int tsr_report_list_tile_histogram(uint64_t **counts, size_t *n_buckets,
                                           uint64_t *width_out, tsr_report *report, int ipu,
                                           bool including_gaps, uint64_t width);

/* The guide's memory categories, in its order (alphabetical):
 * TSR_MEM_CONSTANT, TSR_MEM_CONTROL_CODE ... TSR_MEM_VERTEX_INSTANCE_STATE. */
typedef enum tsr_mem_category {
#define TSF_MEM_CATEGORY(id, name, label) TSR_MEM_##id,
#include <tilescope/vocabulary.def>
	TSR_MEM_CATEGORY_COUNT
} tsr_mem_category;
/* TSR_MEM_CATEGORY_COUNT. */
TSR_API size_t tsr_category_count(void);
/* The name stored in the file and used by the JSON output and the diff's
 * metric names ("controlCode"); NULL past TSR_MEM_CATEGORY_COUNT. */
TSR_API const char *tsr_category_name(tsr_mem_category category);
/* The name people read: printProfileSummary's "By Data Type" label
 * ("Control Code"), for screens and text; NULL past TSR_MEM_CATEGORY_COUNT. */
TSR_API const char *tsr_category_label(tsr_mem_category category);

/* One category's bytes by region and overlap, summed over tiles. */
typedef struct tsr_category_memory {
	tsr_mem_category category;               /* tsr_category_name() spells it */
	uint64_t bytes[TSR_REGION_COUNT][2];     /* [region][overlapped] */
	uint64_t total;                          /* all regions, both */
	uint64_t overlapped, non_overlapped;
} tsr_category_memory;
/* Every category (tsr_category_count() entries) for `ipu` (-1: all).
 * The caller frees *out with free(). */
TSR_API int tsr_report_list_memory_by_category(tsr_category_memory **out, size_t *n,
                                               tsr_report *report, int ipu);
/* One category's bytes on each tile (num_tiles entries into `out`),
 * summed over regions and overlap. */
TSR_API int tsr_report_fill_category_by_tile(uint64_t *out, size_t n, tsr_report *report,
                                             tsr_mem_category category);
/* The same counting only the bytes in overlapped storage (`overlapped`)
 * or only those in storage of their own (!`overlapped`). */
TSR_API int tsr_report_fill_category_by_tile_overlap(uint64_t *out, size_t n, tsr_report *report,
                                                     tsr_mem_category category, bool overlapped);

/* The overlap rule (printProfileSummary's "Total After Overlapping"), for
 * one tile or a sum of tiles. Overlapped storage is shared by variables
 * whose lifetimes are disjoint, so the categories' bytes, counted before
 * the sharing, add up past what the tiles hold:
 *   parts - shared = total   (the tiles' total, excluding gaps). */
typedef struct tsr_memory_sharing {
	uint64_t parts;             /* every category's bytes, before sharing */
	uint64_t not_overlapped;    /* of which in storage of their own */
	uint64_t overlapped;        /* of which in overlapped storage, before sharing */
	uint64_t after_overlapping; /* what the overlapped storage holds: total - not_overlapped
	                               (0 when less) */
	uint64_t shared;            /* overlapped - after_overlapping (0 when less): the bytes
	                               counted more than once among the parts */
} tsr_memory_sharing;
/* Fills *out from a total (excluding gaps) and the categories' bytes. */
TSR_API void tsr_memory_fill_sharing(tsr_memory_sharing *out, uint64_t total,
                                     uint64_t not_overlapped, uint64_t overlapped);
/* The sharing on each tile (num_tiles entries into `out`). */
TSR_API int tsr_report_fill_sharing_by_tile(tsr_memory_sharing *out, size_t n,
                                            tsr_report *report);

/* Memory of the vertices of one compute set or vertex type ("byComputeSet",
 * "byVertexType"), in bytes. */
typedef struct tsr_vertex_memory {
	uint64_t code, copy_ptr, descriptor, edge_ptr, padding, vertex_data, total;
} tsr_vertex_memory;
TSR_API int tsr_report_fill_compute_set_memory(tsr_vertex_memory *out, tsr_report *report,
                                               size_t compute_set, int ipu);
TSR_API int tsr_report_fill_vertex_type_memory(tsr_vertex_memory *out, tsr_report *report,
                                               size_t vertex_type, int ipu);
/* Sums over every vertex type (the "vertex data" part of the summary). */
TSR_API int tsr_report_fill_vertex_memory_totals(tsr_vertex_memory *out, tsr_report *report,
                                                 int ipu);

/* Memory on the tiles [first_tile, first_tile + n_tiles) (all tiles, one
 * IPU's or one), each list largest first, rows without bytes there left
 * out. The caller frees *out with free(). */
typedef struct tsr_vertex_type_memory {
	size_t vertex_type;        /* index into tsr_report_get_vertex_types */
	uint64_t vertices;         /* its vertices there: instances on all tiles, else vertex
	                              state / state_bytes; UINT64_MAX when state_bytes is 0 */
	tsr_vertex_memory memory;
} tsr_vertex_type_memory;
TSR_API int tsr_report_list_vertex_memory_on_tiles(tsr_vertex_type_memory **out, size_t *n,
                                                   tsr_report *report, size_t first_tile,
                                                   size_t n_tiles);
/* Exchange programs (DoExchange, GlobalExchange, StreamCopy): on all
 * tiles every one with code or buffers, else those with buffers there;
 * most buffers first, then most code. */
typedef struct tsr_exchange_memory {
	uint32_t program;          /* its program id */
	uint64_t code;             /* its exchange code summed over all tiles (the format
	                              holds no split by tile), bytes */
	uint64_t buffers;          /* bytes there of the listed message buffers (message,
	                              hostMessage, globalMessage variables: lowered_vars) that
	                              become live at one of its liveness steps */
} tsr_exchange_memory;
TSR_API int tsr_report_list_exchange_memory_on_tiles(tsr_exchange_memory **out, size_t *n,
                                                     tsr_report *report, size_t first_tile,
                                                     size_t n_tiles);
/* Listed variables' bytes there (`user_only`: categories variable and
 * constant only). */
typedef struct tsr_variable_bytes {
	size_t variable;           /* index into tsr_report_get_variables */
	uint64_t bytes;
} tsr_variable_bytes;
TSR_API int tsr_report_list_variables_on_tiles(tsr_variable_bytes **out, size_t *n,
                                               tsr_report *report, size_t first_tile,
                                               size_t n_tiles, bool user_only);

/* Poplar's device types (variable.type): TSR_DATA_FLOAT, _HALF, _INT,
 * _UNSIGNED_INT ... _BOOL; TSR_DATA_UNKNOWN (TSR_NONE) for one this reader
 * does not know (a newer writer's), which tsr_variable.data_type_name still
 * spells. */
typedef enum tsr_data_type {
	TSR_DATA_UNKNOWN = TSR_NONE,
#define TSF_DATA_TYPE(id, name) TSR_DATA_##id,
#include <tilescope/vocabulary.def>
	TSR_DATA_TYPE_COUNT
} tsr_data_type;
/* "float", "half", "unsigned int" ...; NULL for TSR_DATA_UNKNOWN and past
 * the list. */
TSR_API const char *tsr_data_type_name(tsr_data_type type);

/* A listed variable. */
typedef struct tsr_variable {
	uint32_t id;
	const char *name;
	tsr_mem_category mem_category; /* tsr_category_name() spells it */
	tsr_data_type data_type;
	const char *data_type_name; /* as the file spells it ("float", "half" ...): the word to
	                               show, also for TSR_DATA_UNKNOWN */
	const char *shape;        /* "[10,20]" */
	uint64_t bytes;           /* all tiles of one replica */
	uint32_t tiles;
	bool always_live;
	int64_t live_from, live_to; /* liveness step interval, -1 when none */
	int64_t debug_context;    /* -1: none */
} tsr_variable;
/* Every listed variable, by id. */
TSR_API int tsr_report_get_variables(const tsr_variable **out, size_t *n, tsr_report *report);
/* Bytes of variable index `i` (into tsr_report_get_variables) on each tile. */
TSR_API int tsr_report_fill_variable_by_tile(uint64_t *out, size_t n, tsr_report *report, size_t i);
/* Always-live bytes on each tile (num_tiles entries into `out`): the
 * listed always-live variables summed, so complete only with lowered_vars
 * (as tsr_report_fill_liveness_by_tile). One pass over their per-tile
 * runs; reports progress through the handle's callback. */
TSR_API int tsr_report_fill_always_live_by_tile(uint64_t *out, size_t n, tsr_report *report);

/* --- Liveness --------------------------------------------------------------- */

typedef struct tsr_liveness_step {
	uint32_t program;              /* program id */
	int64_t parent;                /* enclosing step, -1 at top level */
	uint32_t depth;
	uint64_t not_always_live;      /* bytes, all tiles of one replica */
} tsr_liveness_step;
TSR_API int tsr_report_get_liveness_steps(const tsr_liveness_step **out, size_t *n,
                                          tsr_report *report);
/* Bytes live throughout (all tiles of one replica). */
TSR_API uint64_t tsr_report_get_always_live_bytes(const tsr_report *report);
/* The step with the most not-always-live bytes (the first of equals). */
TSR_API int tsr_report_get_peak_liveness(size_t *step, uint64_t *bytes, tsr_report *report);
/* Not-always-live bytes at `step` on each tile (num_tiles entries), from
 * the listed variables (so complete only with lowered_vars). */
TSR_API int tsr_report_fill_liveness_by_tile(uint64_t *out, size_t n, tsr_report *report,
                                             size_t step);
/* The same summed per IPU (num_ipus entries). */
TSR_API int tsr_report_fill_liveness_by_ipu(uint64_t *out, size_t n, tsr_report *report,
                                            size_t step);
/* Indexes (into tsr_report_get_variables) of the variables live at `step`,
 * always-live ones included, largest first. The caller frees *out. */
TSR_API int tsr_report_list_live_variables(size_t **out, size_t *n, tsr_report *report,
                                           size_t step);

/* --- Programs, compute sets, vertex types, exchanges ------------------------ */

/* The three exchange lists: INTERNAL ("exchanges"), EXTERNAL
 * ("externalExchanges", IPU to IPU), HOST ("hostExchanges"). */
typedef enum tsr_exchange_kind {
#define TSF_EXCHANGE_KIND(id, name) TSR_EXCHANGE_##id,
#include <tilescope/vocabulary.def>
	TSR_EXCHANGE_KIND_COUNT
} tsr_exchange_kind;
/* "internal", "external", "host"; NULL past TSR_EXCHANGE_KIND_COUNT. */
TSR_API const char *tsr_exchange_kind_name(tsr_exchange_kind kind);

/* The guide's program tags: TSR_PROGRAM_SEQUENCE, _ON_TILE_EXECUTE,
 * _DO_EXCHANGE ... _WRITE_UNDEF; TSR_PROGRAM_NONE (TSR_NONE) where a
 * program is unknown. */
typedef enum tsr_program_type {
	TSR_PROGRAM_NONE = TSR_NONE,
#define TSF_PROGRAM_TYPE(id, name, exchange_kind) TSR_PROGRAM_##id,
#include <tilescope/vocabulary.def>
	TSR_PROGRAM_TYPE_COUNT
} tsr_program_type;
/* The guide's tag: "Sequence", "OnTileExecute", "SetLocalConsensusFromVar"
 * ...; NULL for TSR_PROGRAM_NONE and past the list. */
TSR_API const char *tsr_program_type_name(tsr_program_type type);

/* Sync kinds: INTERNAL (the tiles of one IPU), EXTERNAL (of all IPUs),
 * GLOBAL (and the host); TSR_SYNC_NONE (TSR_NONE) for what is no sync. */
typedef enum tsr_sync_type {
	TSR_SYNC_NONE = TSR_NONE,
#define TSF_SYNC_TYPE(id, name) TSR_SYNC_##id,
#include <tilescope/vocabulary.def>
	TSR_SYNC_TYPE_COUNT
} tsr_sync_type;
/* "Internal", "External", "Global"; NULL for TSR_SYNC_NONE. */
TSR_API const char *tsr_sync_type_name(tsr_sync_type type);

typedef struct tsr_program {
	tsr_program_type program_type; /* tsr_program_type_name(): "Sequence" ... */
	const char *name;          /* or NULL */
	const uint32_t *children;  /* program ids */
	size_t n_children;
	int64_t compute_set;       /* OnTileExecute, else -1 */
	int64_t exchange;          /* exchange programs: id within exchange_kind, else -1 */
	tsr_exchange_kind exchange_kind;
	int64_t function;          /* Call: function index, else -1 */
	tsr_sync_type sync;        /* Sync, else TSR_SYNC_NONE */
	uint64_t repeat_count;     /* Repeat */
	uint64_t code_bytes;       /* exchange programs: memoryByInstruction total */
	int64_t debug_context;     /* -1: none */
} tsr_program;
TSR_API int tsr_report_get_programs(const tsr_program **out, size_t *n, tsr_report *report);
/* Program ids of each engine program, and of each function. */
TSR_API int tsr_report_get_control_programs(const uint32_t **out, size_t *n, tsr_report *report);
TSR_API int tsr_report_get_function_programs(const uint32_t **out, size_t *n, tsr_report *report);
/* The name the model gave engine program `index` (a control program's
 * position, as tsr_run.program): the control program's own, else that of
 * the one program the compiler wrapped in it. NULL when the model named
 * neither or `index` is past the end; the caller then falls back to its
 * own wording ("program 1"). Borrowed: valid until tsr_report_free(). */
TSR_API const char *tsr_report_lookup_engine_program_name(tsr_report *report, size_t index);

typedef struct tsr_compute_set {
	const char *name;
	uint32_t tiles;            /* tiles it runs on */
	uint64_t vertices;
	uint64_t cycles;           /* the slowest tile */
	uint64_t cycles_sum;       /* over tiles */
	uint64_t active_cycles, active_cycles_sum;
	uint64_t flops;            /* per execution */
	int64_t debug_context;     /* -1: none */
} tsr_compute_set;
TSR_API int tsr_report_get_compute_sets(const tsr_compute_set **out, size_t *n, tsr_report *report);
/* Cycles of compute set `cs` on each tile (active: only while a vertex
 * runs), num_tiles entries. */
TSR_API int tsr_report_fill_compute_set_cycles_by_tile(uint64_t *out, size_t n, tsr_report *report,
                                                       size_t cs, bool active);

typedef struct tsr_vertex_type {
	const char *name;
	uint32_t state_bytes;      /* per instance */
	uint32_t code_bytes;       /* per tile */
	uint64_t instances;
	uint64_t flops;            /* all instances, one execution of each compute set */
} tsr_vertex_type;
TSR_API int tsr_report_get_vertex_types(const tsr_vertex_type **out, size_t *n, tsr_report *report);

typedef struct tsr_exchange {
	const char *name;
	uint32_t tiles;
	uint64_t bytes_received, bytes_sent;
	uint64_t cycles, cycles_sum;
} tsr_exchange;
TSR_API int tsr_report_get_exchanges(const tsr_exchange **out, size_t *n, tsr_report *report,
                                     tsr_exchange_kind kind);

/* --- Execution ------------------------------------------------------------------ */

/* ON_TILE_EXECUTE, DO_EXCHANGE, GLOBAL_EXCHANGE, STREAM_COPY, SYNC,
 * COPY_SHARED_STRUCTURE. */
typedef enum tsr_step_type {
#define TSF_STEP_TYPE(id, name) TSR_STEP_##id,
#include <tilescope/vocabulary.def>
	TSR_STEP_TYPE_COUNT
} tsr_step_type;
/* The guide's tag: "OnTileExecute" ... */
TSR_API const char *tsr_step_type_name(tsr_step_type type);

typedef struct tsr_tile_cycles {
	uint64_t active_compute, compute, do_exchange, global_exchange, stream_copy, sync,
	    copy_shared_structure;
} tsr_tile_cycles;

typedef struct tsr_run {
	uint32_t program;          /* engine program index that ran */
	uint64_t cycles;
	size_t n_steps, trace_length;
	tsr_tile_cycles tile_cycles; /* summed over tiles */
} tsr_run;
TSR_API int tsr_report_get_runs(const tsr_run **out, size_t *n, tsr_report *report);

typedef struct tsr_step {
	tsr_step_type type;
	uint32_t program;
	int64_t compute_set;       /* OnTileExecute, else -1 */
	int64_t exchange;          /* exchange steps: id within the kind the type implies */
	tsr_sync_type sync;        /* Sync, else TSR_SYNC_NONE */
	uint64_t cycles_from, cycles_to, cycles, cycles_overlapped;
	uint32_t active_tiles;
	double tile_balance, active_tile_balance, thread_balance; /* NaN when undefined */
	uint64_t total_data;
	double data_balance;
} tsr_step;
/* The steps of run `run`, read on first use. */
TSR_API int tsr_report_get_steps(const tsr_step **out, size_t *n, tsr_report *report, size_t run);
TSR_API int tsr_report_get_program_trace(const uint32_t **out, size_t *n, tsr_report *report,
                                         size_t run);
/* The name a step goes by wherever it is shown (the summary's Steps, its
 * page, diff): its compute set's (OnTileExecute) or exchange's
 * (exchange steps), else its program's. NULL for a Sync, and when none
 * of them is named. Borrowed: valid until tsr_report_free(). */
TSR_API const char *tsr_report_lookup_step_name(tsr_report *report, const tsr_step *step);

/* A run's totals by activity: the wall-clock cycles of its steps of each
 * type, their count, and the tile cycles. */
typedef struct tsr_activity {
	uint64_t cycles;                              /* the run's length */
	uint64_t step_cycles[TSR_STEP_TYPE_COUNT];    /* sum of steps' cycles by type */
	size_t steps[TSR_STEP_TYPE_COUNT];
	tsr_tile_cycles tile_cycles;
} tsr_activity;
TSR_API int tsr_report_fill_run_activity(tsr_activity *out, tsr_report *report, size_t run);

/* Cycles by vertex type: active cycles summed over tiles, weighted by how
 * many times each compute set ran in `run` (run -1: once each). */
typedef struct tsr_vertex_type_cycles {
	size_t vertex_type;
	uint64_t cycles;
	uint64_t instances;        /* vertices of the type in the compute sets the
	                              run executed (run -1: in all) */
	uint64_t executions;       /* vertex executions (instances x compute set runs) */
} tsr_vertex_type_cycles;
/* Largest cycles first; the caller frees *out. */
TSR_API int tsr_report_list_cycles_by_vertex_type(tsr_vertex_type_cycles **out, size_t *n,
                                                  tsr_report *report, int64_t run);
/* The vertex types of compute set `cs`: instances and the active cycles
 * of one execution summed over tiles (executions: 1), most cycles first
 * (the guide's "By vertex type" of an OnTileExecute step). Borrowed:
 * valid until tsr_report_free(). */
TSR_API int tsr_report_get_compute_set_vertex_types(const tsr_vertex_type_cycles **out, size_t *n,
                                                    tsr_report *report, size_t cs);

/* The vertices of one vertex type in a compute set (what an OnTileExecute
 * step runs). The report keeps tiles per compute set and per vertex type,
 * not per pair: `tiles` counts the compute set's tiles holding the type's
 * code, the tiles running it unless another compute set runs the type on
 * tiles where this one runs only other types. */
typedef struct tsr_cs_vertices {
	size_t vertex_type;        /* index into tsr_report_get_vertex_types */
	uint64_t count;            /* vertices of the type in the compute set */
	uint32_t tiles;
	uint64_t state_bytes;      /* count x the type's state bytes (vertexInstanceState) */
	uint64_t active_cycles;    /* summed over tiles, one execution */
} tsr_cs_vertices;
/* One entry per vertex type of compute set `cs`, most active cycles first
 * (tsr_report_get_compute_set_vertex_types' order). The caller frees *out
 * with free(). */
TSR_API int tsr_report_list_compute_set_vertices(tsr_cs_vertices **out, size_t *n,
                                                 tsr_report *report, size_t cs);

/* A program's cycle estimate over tiles: cyclesByTile of an
 * OnTileExecute's compute set or of an exchange program's exchange. */
#define TSR_BUSIEST_TILES 8
typedef struct tsr_cycle_estimate {
	uint64_t cycles;           /* the slowest tile's: the step's estimate */
	uint64_t sum;              /* over tiles */
	uint32_t tiles;            /* tiles with cycles (min and mean are over these) */
	uint64_t min;
	double mean;
	size_t n_busiest;          /* entries below: min(tiles, TSR_BUSIEST_TILES) */
	uint32_t busiest[TSR_BUSIEST_TILES]; /* most cycles first, the lower tile among equals */
	uint64_t busiest_cycles[TSR_BUSIEST_TILES];
} tsr_cycle_estimate;
/* TSR_ERR_NO_DATA, with a one-line message saying why, for a program
 * that has no per-tile estimate (Sync, Sequence ...). */
TSR_API int tsr_report_fill_program_cycle_estimate(tsr_cycle_estimate *out, tsr_report *report,
                                                   size_t program);

/* FLOPs of a run and the utilisation of the target's peak over its length
 * (peak: fp32_flops_per_cycle, or fp16_amp when `half` is set, x tiles x
 * clock). */
typedef struct tsr_flops {
	uint64_t flops;
	uint64_t cycles;
	double seconds;
	double flops_per_second;
	double peak_flops_per_second;
	double utilisation;        /* 0..1 */
} tsr_flops;
TSR_API int tsr_report_fill_run_flops(tsr_flops *out, tsr_report *report, size_t run, bool half);

/* Cycles of exchange `exchange` of `kind` on each tile (num_tiles
 * entries into `out`, n at least num_tiles): with
 * tsr_report_fill_compute_set_cycles_by_tile, what a step spends on each
 * tile (profile.sql, above `step`). */
TSR_API int tsr_report_fill_exchange_cycles_by_tile(uint64_t *out, size_t n, tsr_report *report,
                                                    tsr_exchange_kind kind, size_t exchange);

/* One frame of a run's call stack: a program that ran and the steps it
 * covers. The flame view of the Execution Trace. */
typedef struct tsr_frame {
	uint32_t program;          /* program id */
	uint32_t depth;            /* 0: the run's control program */
	int64_t parent;            /* index of the enclosing frame, -1 for the root */
	size_t step_from, step_to; /* its steps (tsr_report_get_steps): [step_from, step_to) */
	uint64_t cycles_from, cycles_to; /* first cycle of its first step, last of its steps */
} tsr_frame;
/*
 * The frames of run `run`, rebuilt by walking the run's control program
 * against its program trace (which keeps only the lowered leaves):
 * Sequence in order, Repeat repeat_count times, If / IfElse / Switch /
 * RepeatWhile* by which branch can start with the next trace entry, Call
 * into its function. One frame per program each time it runs (each
 * iteration of a Repeat's body is a frame of its own), only frames that
 * cover at least one step, in pre-order: a parent before its children,
 * children in the order they ran. Frames without children are the
 * lowered leaves: every step is in exactly one of them.
 *
 * Borrowed: valid until tsr_report_free(). Walks the whole trace on first
 * use and reports progress through the handle's callback (cancel:
 * TSR_ERR_CANCELLED, and a later call tries again). A trace the control
 * program cannot produce, or a step that belongs to no trace entry, is
 * TSR_ERR_CORRUPT naming the run and the entry.
 */
TSR_API int tsr_report_get_frames(const tsr_frame **out, size_t *n, tsr_report *report, size_t run);

/* --- Operations (debug contexts) ----------------------------------------------- */

/* What one debug context made, and (for a run) what it cost; totals
 * include its descendants'. */
typedef struct tsr_operation {
	uint32_t id;               /* debug context id (1-based) */
	uint32_t parent;           /* 0: top level */
	const char *name, *layer, *api; /* api may be NULL */
	uint64_t variable_bytes;   /* bytes of the variables it made */
	uint64_t vertex_bytes;     /* vertex memory of its compute sets */
	size_t compute_sets, variables, programs;
	uint64_t cycles;           /* in the run: its OnTileExecute and exchange steps */
	uint64_t flops;            /* in the run */
	uint64_t self_cycles, self_flops, self_variable_bytes; /* without descendants */
} tsr_operation;
/* Every debug context in id order, costs from `run` (-1: no run costs),
 * from profile.pop's debug_context table; a debug.cbor taken along must
 * agree with it (same contexts, and what each made), else
 * TSR_ERR_CORRUPT naming debug.cbor. The caller frees *out. */
TSR_API int tsr_report_list_operations(tsr_operation **out, size_t *n, tsr_report *report,
                                       int64_t run);
/* The software layer of an operation (borrowed, static or op's): the
 * library whose function opened its context ("popops", "poplin", ...:
 * its `layer`, as it has an `api`), else "user", the program's own. A
 * model may give its own contexts a layer ("layer3", a model layer);
 * they are still the user layer. NULL when `op` is NULL. */
TSR_API const char *tsr_operation_get_software_layer(const tsr_operation *op);
/* The operation (debug context id, 0: none) each step of run `run` is
 * charged to, by the rule tsr_operation's run costs use: an OnTileExecute
 * step to its compute set's context (its program's when the compute set
 * has none), an exchange step to its program's, a sync step to none.
 * Fills out[0..n_steps) (tsr_report_get_steps' order); `n` must be at
 * least the run's step count. */
TSR_API int tsr_report_fill_step_operations(uint32_t *out, size_t n, tsr_report *report,
                                            size_t run);

/* --- Read-only SQL ------------------------------------------------------------- */

/* The type of one value of a result row (SQLite's storage classes). */
typedef enum tsr_value_type {
	TSR_VALUE_NULL = 0,
	TSR_VALUE_INTEGER,         /* `integer`: exact, signed 64-bit */
	TSR_VALUE_REAL,            /* `real` */
	TSR_VALUE_TEXT,            /* `data`: UTF-8, NUL-terminated; `size` bytes without the NUL */
	TSR_VALUE_BLOB             /* `data`: `size` bytes (never NULL, even when size is 0) */
} tsr_value_type;

/* One value of a result row. Pointers are valid during the callback only. */
typedef struct tsr_value {
	tsr_value_type type;
	int64_t integer;           /* TSR_VALUE_INTEGER, else 0 */
	double real;               /* TSR_VALUE_REAL (and an INTEGER as a double), else 0 */
	const void *data;          /* TSR_VALUE_TEXT / _BLOB, else NULL */
	size_t size;               /* bytes of data */
} tsr_value;

/* Called once before any row (also when there are none) with the
 * result's column names; non-zero stops the query, which then returns
 * that value. `names` is valid during the callback only. May be NULL. */
typedef int (*tsr_columns_cb)(void *user_data, size_t n_columns, const char *const *names);
/* Called for each result row; non-zero stops the query, which then
 * returns that value. `names` and `values` (n_columns each) are valid
 * during the callback only. The callback may call other functions on the
 * same handle. May be NULL (the rows are then counted and dropped). */
typedef int (*tsr_row_cb)(void *user_data, size_t n_columns, const char *const *names,
                          const tsr_value *values);

/*
 * Runs one read-only SQL statement over the report's profile.pop (its
 * tables are in db-schema/profile.sql) and hands each result row to
 * `row_cb`. The per-tile SQL functions work in it: tile_value(blob, tile),
 * tile_sum(blob), tile_max(blob) and the table tile_runs(blob) (one row
 * per tile: tile, value), over the *_by_tile "tile runs" columns.
 *
 * Only one statement that reads is run: SELECT (WITH, VALUES and EXPLAIN
 * included), with the built-in functions of the list in profile.sql, the
 * per-tile ones, and the JSON functions that read JSON (json, json_valid,
 * json_type, json_array_length, json_extract, -> and ->>, json_quote and
 * the tables json_each and json_tree), and the PRAGMAs that list the
 * schema (table_info, table_xinfo, index_list, index_info,
 * application_id, user_version, without a value). Anything else
 * (INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, ATTACH, DETACH, BEGIN,
 * VACUUM, a pragma that sets something, another function or table-valued
 * function, a second statement) is TSR_ERR_INVALID_ARGUMENT with a
 * one-line message naming what was refused (tsr_report_error), as is SQL
 * that does not compile. The file's views are not expanded (nothing
 * defined in the file runs): join the `string` table for names.
 *
 * Bounds (tsr_query_limits): each statement stops with TSR_ERR_TOO_LARGE
 * once SQLite has worked on it for its time limit (30 s unless set; time
 * in the callbacks does not count), once the memory SQLite holds for it
 * (sorts, groups, DISTINCT, recursive sets: kept in memory, never in a
 * temporary file) passes its memory limit (512 MiB unless set, and never
 * more than the handle's memory cap leaves), or past the budget of
 * SQLite steps of every statement on the handle, which grows with the
 * file's size. No value (a string or blob, read or made) may pass 1 MiB,
 * and printf/format refuse widths and precisions adding up past that.
 *
 * The handle's progress callback is called while the statement runs
 * (with a fraction of 0, then 1 at the end), so that it may cancel:
 * TSR_ERR_CANCELLED.
 *
 * Returns TSR_OK after the last row, a callback's non-zero value when
 * one stopped the query, or a negative tsr_error (TSR_ERR_CORRUPT when
 * the file is damaged where the query read it).
 */
TSR_API int tsr_report_query(tsr_report *report, const char *sql, tsr_columns_cb columns_cb,
                             tsr_row_cb row_cb, void *user_data);

/* The bounds of each statement tsr_report_query / tsr_trace_query runs
 * (see tsr_report_query). A zero field takes the default. */
typedef struct tsr_query_limits {
	unsigned version;          /* TSR_QUERY_LIMITS_VERSION */
	uint32_t time_ms;          /* SQLite's time on one statement, ms; 0: 30,000 */
	uint64_t memory;           /* bytes SQLite may add for one statement; 0: 512 MiB
	                              (also never more than the handle's cap leaves) */
} tsr_query_limits;
#define TSR_QUERY_LIMITS_VERSION 1
#define TSR_QUERY_LIMITS_INIT {TSR_QUERY_LIMITS_VERSION, 0, 0}
/* The longest string or blob a statement may read or make, bytes. */
#define TSR_QUERY_MAX_LENGTH (1 << 20)

/* Sets the bounds of the handle's later queries (`limits` NULL: the
 * defaults). TSR_ERR_INVALID_ARGUMENT for an unknown version. */
TSR_API int tsr_report_set_query_limits(tsr_report *report, const tsr_query_limits *limits);

#ifdef __cplusplus
}
#endif
