/*
 * The trace handle (trace.h) and what its files share. Nothing here is
 * public.
 *
 *   trace.c         opening (defensive, several files on one axis), the
 *                   lists, names, metadata, the memory cap, errors
 *   trace-events.c  the chunk decoder, the chunk search tree, viewport
 *                   queries and the level of detail (file and memory)
 *   trace-stats.c   statistics by label, name search, span search
 *   trace-series.c  counter series and instants
 *   trace-heatmap.c heatmaps: the list and per-column bucket counts
 *   trace-export.c  Chrome trace-event JSON
 *   trace-chrome.c  Chrome trace-event JSON files opened as traces (into
 *                   a .pvti in memory), with trace-chrome-lex.c, their
 *                   streaming tokenizer (trace-chrome-private.h)
 *   trace-image.c   that .pvti in memory kept as an image which every
 *                   handle over the file shares (tsr_trace_reopen)
 *
 * Ids. Every file has its own string, channel and thread ids; the handle
 * maps them onto its own: names and channels merged by text, threads
 * numbered over all files. Times read from a file are moved onto the
 * merged axis (+ the process's offset_ns) as soon as they are read, after
 * an overflow check.
 */
#pragma once

#include "report-private.h"
#include "timeline-lod.h" /* db-schema/ */
#include "tilescope/trace.h"

#include <sqlite3.h>

/* The deepest nesting a file may hold (the writer's limit is 250; its
 * record keeps the depth in one byte). */
#define TRACE_MAX_DEPTH 255u
/* Level-of-detail levels at most (each 16 times coarser). */
#define TRACE_LOD_LEVELS 16u
#define TRACE_LOD_FACTOR 16u

/* One decoded span, on the merged axis with the handle's ids: the
 * format's event (db-schema/event-chunk.h), decoded in place and then
 * moved onto the handle's ids and time axis. */
typedef tsf_event trace_event;

/* One row of event_chunk (its blob is read when needed). */
typedef struct trace_chunk {
	int64_t id;                /* rowid */
	int64_t first_ns, last_ns; /* merged axis */
	uint32_t count;
} trace_chunk;

/* A level-of-detail bucket being built or kept in memory. */
/* A bucket of the level of detail built from the chunks, filled by the
 * writer's rule (db-schema/timeline-lod.h). */
typedef tsf_lod_bucket trace_lod_bucket;

/* The level of detail built from the chunks, for threads whose file has
 * none (a crash) or for resolutions finer than the file's. */
typedef struct trace_mlod {
	int64_t base_ns;           /* bucket k of level l covers base + [k, k+1) * width[l] */
	size_t n_levels;
	uint64_t width[TRACE_LOD_LEVELS]; /* powers of two (ns) */
	unsigned shift[TRACE_LOD_LEVELS]; /* log2 of width */
	size_t n[TRACE_LOD_LEVELS];
	trace_lod_bucket *b[TRACE_LOD_LEVELS];
} trace_mlod;

/* What the handle keeps per thread besides tsr_trace_thread. */
typedef struct trace_thread_data {
	trace_chunk *chunks;       /* in write order (id) */
	size_t n_chunks;
	/* A tree over the chunks: node i holds the least first_ns and the
	 * greatest last_ns below it (leaves at tree_size + chunk). */
	int64_t *tree_first, *tree_last;
	size_t tree_size;
	/* The file's timeline_lod for this thread: widths per level, read on
	 * first use (lod_state 0: not yet, 1: none, 2: read). */
	int lod_state;
	size_t lod_levels;
	uint64_t lod_width[TRACE_LOD_LEVELS];
	trace_mlod *mlod;          /* NULL until built */
} trace_thread_data;

/* A read-only database image in memory shared by handles (trace-image.c). */
typedef struct trace_image trace_image;

/* Per file. */
typedef struct trace_file {
	sqlite3 *db;
	trace_image *image;        /* a Chrome JSON file's database, which db reads in
	                              place (a reference); NULL for a .pvti file */
	bool json;                 /* Chrome JSON: shares an image, or its first byte
	                              says so (trace_chrome_sniff, read once) */
	tsr_trace *tr;             /* the handle (for the progress handler) */
	tsr_vm_guard vm_guard;     /* steps any one statement may take (progress handler) */
	sqlite3_stmt *chunk_st;    /* the blob of a chunk by id */
	uint32_t *names;           /* file string id -> handle name id (TSR_TRACE_NO_NAME) */
	size_t n_names;
	uint32_t *channels;        /* file channel id -> handle channel (UINT32_MAX: none) */
	size_t n_channels;
	int64_t *thread_ids;       /* file thread ids of its threads, ascending */
	bool span_table;           /* the span module is registered (trace-span-table.c) */
} trace_file;

/* A loaded counter series. */
typedef struct trace_series_data {
	int64_t id;                /* series.id in its file */
	bool loaded;
	size_t n, cap;             /* samples, and the arrays' length */
	int64_t *t;                /* merged axis, ascending */
	double *v;
	/* min / max over blocks of 16^k samples, level k >= 1 at pyr[k - 1] */
	size_t n_pyr;
	double *pyr_min[16], *pyr_max[16];
	size_t pyr_n[16];
} trace_series_data;

/* A block of the handle's string pool. */
typedef struct trace_pool_block trace_pool_block;

struct tsr_trace {
	char error[512];
	int code;                  /* the code of the last failure */
	tsr_progress_state progress; /* the callback given at open or set later */
	uint64_t decode_budget;    /* spans a viewport query decodes; 0: the default */
	uint64_t memory_cap, memory_used; /* bytes */
	tsr_query_limits query_limits; /* tsr_trace_set_query_limits (sql-query.c) */
	trace_pool_block *pool;

	tsr_trace_info info;
	tsr_trace_process *processes;
	trace_file *files;
	size_t n_processes;
	tsr_trace_thread *threads;
	trace_thread_data *tdata;
	size_t n_threads;
	tsr_trace_channel *channels;
	size_t n_channels;
	const char **names;        /* by handle id */
	size_t n_names, cap_names;
	struct tsb_hashmap *name_ids; /* name -> handle id (base's map; keys are `names`) */
	tsr_trace_series *series;
	trace_series_data *sdata;
	size_t n_series;
	/* The per-thread and per-channel totals the last label statistics
	 * from the chunks met on their way (trace-stats.c), for the totals
	 * of the same view without decoding it again; NULL: none. */
	struct trace_stats_totals *stats_totals;
	struct trace_heatmaps *heatmaps; /* read on first use (trace-heatmap.c); NULL before */
};

/* --- trace.c ---------------------------------------------------------------- */

/* Records a failure on the handle and as the thread's last error;
 * returns `code`. */
int trace_fail(tsr_trace *tr, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* TSR_ERR_CANCELLED recorded, naming what was being done. */
int trace_fail_cancelled(tsr_trace *tr);
/* TSR_ERR_OUT_OF_RANGE for a thread that is neither -1 (all) nor one of
 * the trace's, TSR_ERR_INVALID_ARGUMENT for a window that ends before it
 * starts (both recorded), else TSR_OK. */
int trace_check_window(tsr_trace *tr, int64_t thread, int64_t from_ns, int64_t to_ns);
/* malloc / calloc / realloc counted against the memory cap, checked for
 * overflow: NULL with TSR_ERR_TOO_LARGE or TSR_ERR_NO_MEMORY recorded.
 * Free with trace_free_mem(tr, p, n * size). */
void *trace_alloc(tsr_trace *tr, size_t n, size_t size);
void *trace_realloc(tsr_trace *tr, void *p, size_t old_n, size_t new_n, size_t size);
void trace_free_mem(tsr_trace *tr, void *p, size_t bytes);
/* Hands an array built with trace_alloc to the caller: it leaves the
 * count (the caller frees it with free()). */
void trace_release(tsr_trace *tr, size_t bytes);
/* Maps an SQLite result code onto a tsr_error, recording `what`. */
int trace_sql_fail(tsr_trace *tr, sqlite3 *db, int rc, const char *what);
/* Resets a kept statement for its next use, with a fresh step budget. */
void trace_restart(sqlite3_stmt *st);
/* Prepares `sql` on file `p`'s connection. */
int trace_prepare(tsr_trace *tr, sqlite3_stmt **st, size_t p, const char *sql);
/* A file time plus its process offset, checked: TSR_ERR_CORRUPT naming
 * `what` when it leaves int64_t. */
int trace_to_axis(tsr_trace *tr, int64_t *out, size_t p, int64_t t, const char *what);
/* The merged-axis window [from, to) as times of file `p`, clamped. */
void trace_window_to_file(const tsr_trace *tr, size_t p, int64_t from, int64_t to,
                          int64_t *lo, int64_t *hi);
/* The handle name id of file `p`'s string `id`, checked. */
int trace_map_name(tsr_trace *tr, uint32_t *out, size_t p, int64_t id);
int trace_map_channel(tsr_trace *tr, uint32_t *out, size_t p, int64_t id);
/* The thread index of file `p`'s thread `id`, checked. */
int trace_map_thread(tsr_trace *tr, size_t *out, size_t p, int64_t id);

/* --- trace-events.c ------------------------------------------------------------ */

/* Builds the chunk tree of every thread (at open). */
int trace_build_trees(tsr_trace *tr);
/* Frees what trace-events.c hung on a thread. */
void trace_thread_data_clear(tsr_trace *tr, trace_thread_data *td);
/*
 * Decodes chunk `c` of thread `thread` into (*buf)[0..c->count), growing
 * the caller's buffer (*buf of *cap events, trace_alloc'd; free it with
 * trace_free_mem) once the blob's length shows it can hold c->count
 * events. Checks the blob against its row: count, version, every field,
 * times within [first_ns, last_ns], names and channels known.
 */
int trace_decode_chunk(tsr_trace *tr, trace_event **buf, size_t *cap, size_t thread,
                       const trace_chunk *c);
/* Indexes of the chunks of `thread` that may hold spans in [from, to),
 * ascending, into *out (trace_alloc'd, *n entries). */
int trace_find_chunks(tsr_trace *tr, size_t **out, size_t *n, size_t thread, int64_t from,
                      int64_t to);
/* Whether span `e` lies in [from, to) (see tsr_trace_list_events). */
static inline bool trace_event_in(const trace_event *e, int64_t from, int64_t to)
{
	if (e->start_ns >= to)
		return false;
	return e->end_ns > from || (e->end_ns == e->start_ns && e->start_ns >= from);
}

/* --- trace-image.c ------------------------------------------------------------------ */

/* Serializes `db` (the import's database) into a new image with one
 * reference; TSR_ERR_NO_MEMORY naming `path` when that fails. */
int trace_image_new(tsr_trace *tr, trace_image **out, sqlite3 *db, const char *path);
/* NULL-safe; atomic, so handles on different threads may share an image. */
trace_image *trace_image_ref(trace_image *img);
void trace_image_unref(trace_image *img);
/* Its size in bytes (0 for NULL). */
uint64_t trace_image_size(const trace_image *img);
/* Opens *db read-only over the image in place (the image must outlive
 * it); on failure *db may be set and is the caller's to close. */
int trace_image_open(tsr_trace *tr, sqlite3 **db, trace_image *img, const char *path);
/* Turns memory-mapped reads over the image on (after the lockdown). */
int trace_image_map(tsr_trace *tr, sqlite3 *db, const trace_image *img, const char *path);

/* --- trace-span-table.c ------------------------------------------------------------ */

/* Registers the `span` table on the file's connection, once; call with no
 * authorizer set. SQLITE_OK or an SQLite code. */
int trace_span_table_register(trace_file *f);

/* --- trace-series.c ---------------------------------------------------------------- */

void trace_series_data_clear(tsr_trace *tr, trace_series_data *sd);
/* The first of n sorted times t at or after x (n when none is). */
size_t trace_lower_bound(const int64_t *t, size_t n, int64_t x);

/* --- trace-heatmap.c ---------------------------------------------------------------- */

void trace_heatmaps_free(tsr_trace *tr);
