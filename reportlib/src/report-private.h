/*
 * The report handle and the helpers every reportlib source shares: the
 * defensive SQLite connection, bounded allocation against the memory cap,
 * checked blob decoding and the per-handle error. Nothing here is public.
 *
 * Loading: tsr_report_open (report-open.c) reads the small tables into
 * the handle; the lazily read parts (variables, liveness, steps, traces)
 * are filled by their files on first use and freed by tsr_report_free.
 * Every string is copied into the handle's string pool.
 */
#pragma once

#include "tilescope/report.h"

#include "format.h" /* db-schema/: codecs and vocabulary */

#include <sqlite3.h>
#include <stdarg.h>

/* A block list of strings and small arrays that live as long as the handle. */
typedef struct tsr_pool_block tsr_pool_block;

/* The caller's progress callback and where a long call is in its work
 * (progress.c). Fractions are of the outermost call reporting progress. */
typedef struct tsr_progress_state {
	tsr_progress_cb cb;          /* or NULL */
	void *data;                  /* its user_data */
	bool cancelled;              /* the callback asked to stop during this call */
	int depth;                   /* frames open (tsr_progress_push) */
	double base, scale;          /* the current frame's [0, 1] is [base, base + scale] */
	double lo, hi;               /* the current part */
	double last;                 /* the last fraction reported */
	const char *message;         /* what the current part does (static) */
	uint64_t last_ns;            /* CLOCK_MONOTONIC of the last call of cb */
	unsigned ticks;              /* tsr_progress_tick calls, for its rate */
	/* Called when the callback asks to stop: interrupts the handle's
	 * running SQLite statements (sqlite3_interrupt). NULL: none. */
	void (*interrupt)(void *data);
	void *interrupt_data;
} tsr_progress_state;

/* What tsr_progress_push saves for tsr_progress_pop. */
typedef struct tsr_progress_frame {
	double base, scale, lo, hi;
	const char *message;
} tsr_progress_frame;

/* Rows of a loop between two looks at the clock (tsr_progress_row). */
#define TSR_PROGRESS_ROWS 256u

struct tsr_report {
	sqlite3 *db;
	char *path;                  /* profile.pop */
	char *debug_path;            /* debug.cbor, or NULL */
	int debug_fd;                /* debug.cbor opened with profile.pop (the pair as it was
	                                at one moment: report-open.c), or -1 */
	struct tsr_vm_guard *guard;  /* the connection's progress-handler bounds (report-open.c) */
	tsr_query_limits query_limits; /* tsr_report_set_query_limits (sql-query.c) */
	const char *report_id;       /* meta report_id (pooled), NULL when the writer had none */
	int64_t created_unix_ns;     /* meta created_unix_ns, 0 when absent */
	char error[512];             /* last failure */
	tsr_progress_state progress; /* the callback given at open or set later */
	tsr_progress_state *ps;      /* where progress goes: &progress, or during tsr_compare
	                                the base report's */
	uint64_t memory_cap;         /* bytes */
	uint64_t memory_used;        /* bytes counted by tsr_alloc */
	tsr_pool_block *pool;

	tsr_report_info info;
	tsr_target target;
	tsr_graph_counts counts;

	/* Interned names: strings[id] (NULL for ids absent from the file). */
	const char **strings;
	size_t n_strings;

	tsr_tile_memory *tiles;      /* num_tiles */
	uint32_t *oom_tiles;
	size_t n_oom_tiles;
	tsr_program *programs;       /* counts.programs; children point into one array */
	uint32_t *control_programs;
	uint32_t *function_programs;
	tsr_compute_set *compute_sets;
	size_t n_compute_sets;       /* rows of compute_set: counts.compute_sets is the
	                                graph's count, without generated copy sets */
	tsr_vertex_type *vertex_types;
	tsr_exchange *exchanges[TSR_EXCHANGE_KIND_COUNT];
	tsr_run *runs;
	uint64_t always_live_bytes;
	int64_t meta_replication_factor; /* meta replication_factor, -1 when absent */

	/* Read on first use (NULL until then). */
	tsr_variable *variables;     /* counts.listed_variables */
	bool variables_loaded;
	tsr_liveness_step *liveness; /* counts.liveness_steps */
	bool liveness_loaded;
	tsr_step **steps;            /* per run */
	size_t *n_steps;
	uint32_t **traces;           /* per run */
	size_t *n_traces;
	tsr_frame **frames;          /* per run (report-frames.c), NULL until first asked */
	size_t *n_frames;
	void *operations_cache;      /* report-operations.c */
	tsr_vertex_type_cycles *cs_vertex_types; /* compute_set_vertex_type rows by compute
	                                            set, most cycles first within one */
	size_t *cs_vertex_types_first;           /* n_compute_sets + 1 offsets into it */
	size_t n_cs_vertex_types;
	tsr_vertex_memory *cs_memory;            /* memory_by_compute_set, whole replica */
	tsr_vertex_memory *vt_memory;            /* memory_by_vertex_type, whole replica */
};

/* Records a failure on the handle (and the thread's last error); returns
 * `code` for tail calls. */
int tsr_fail(tsr_report *r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* TSR_ERR_CANCELLED recorded on the handle ("'path': cancelled while
 * ..."): for a call whose progress callback asked to stop. */
int tsr_fail_cancelled(tsr_report *r);
/* The same without a handle (opening). */
int tsr_set_last_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* TSR_ERR_INVALID_ARGUMENT for a NULL handle or out-parameter of `fn`,
 * recorded on the handle when there is one. */
int tsr_fail_null_argument(tsr_report *r, const char *fn);
/* The arguments of a fill_..._by_tile call: a handle, an out array and
 * room in it for every tile (*nt set to the number of tiles). `what`
 * names the figure in the message ("liveness by tile"). */
int tsr_check_by_tile(tsr_report *r, const void *out, size_t n, const char *fn,
                      const char *what, size_t *nt);

/* malloc / calloc counted against the memory cap: NULL with
 * TSR_ERR_TOO_LARGE or TSR_ERR_NO_MEMORY recorded on the handle. `n` and
 * `size` are checked for overflow. Free with tsr_free(r, p, n * size). */
void *tsr_alloc(tsr_report *r, size_t n, size_t size);
/* tsr_alloc that also says why it failed: NULL with *rc TSR_ERR_TOO_LARGE
 * or TSR_ERR_NO_MEMORY (message on the handle), else *rc = TSR_OK. */
void *tsr_alloc_rc(tsr_report *r, int *rc, size_t n, size_t size);
void tsr_free(tsr_report *r, void *p, size_t bytes);
/* A copy of `s` in the handle's pool (lives until tsr_report_free). */
const char *tsr_pool_strdup(tsr_report *r, const char *s, size_t len);
void *tsr_pool_alloc(tsr_report *r, size_t bytes);

/* Prepares `sql` on the handle's connection; TSR_ERR_CORRUPT with the
 * SQLite message when it fails (a table or column missing). */
int tsr_prepare(tsr_report *r, sqlite3_stmt **st, const char *sql);
/* Steps `st`: SQLITE_ROW or SQLITE_DONE, else the failure is recorded
 * (TSR_ERR_CORRUPT / TSR_ERR_IO) and returned as a negative code. */
int tsr_step_row(tsr_report *r, sqlite3_stmt *st);
/* tsr_step_row for row `i` of a table (named in messages) that must have
 * exactly `n` rows: SQLITE_ROW while i < n, SQLITE_DONE at i == n; a
 * row short or too many is TSR_ERR_CORRUPT. */
int tsr_step_counted(tsr_report *r, sqlite3_stmt *st, size_t i, size_t n, const char *table);

/* Column `col` of the current row as a checked value: an integer in
 * [lo, hi] (anything else is TSR_ERR_CORRUPT naming `what`). */
int tsr_column_int(tsr_report *r, int64_t *out, sqlite3_stmt *st, int col, int64_t lo, int64_t hi,
                   const char *what);
/* Same for an id that may be NULL (-1 then). */
int tsr_column_id_or_null(tsr_report *r, int64_t *out, sqlite3_stmt *st, int col, int64_t hi,
                          const char *what);
/* The interned string `id` (checked); the text stays in the handle. */
int tsr_column_string(tsr_report *r, const char **out, sqlite3_stmt *st, int col,
                      const char *what);
/* Text column copied into the pool (NULL stays NULL when allowed). */
int tsr_column_text(tsr_report *r, const char **out, sqlite3_stmt *st, int col, bool nullable,
                    const char *what);
/* Decodes a tile-runs blob column into out[0..n) (checked). */
int tsr_column_tiles(tsr_report *r, uint64_t *out, size_t n, sqlite3_stmt *st, int col,
                     const char *what);
/* tsr_column_tiles and the values' sum (the values add up within
 * INT64_MAX, or TSR_ERR_CORRUPT). */
int tsr_column_tiles_sum(tsr_report *r, uint64_t *out, size_t n, sqlite3_stmt *st, int col,
                         const char *what, uint64_t *sum);
/* tsr_column_tiles with the sum checked against the row's integer column
 * `total_col` (the blob's stored total, named `total_what`). */
int tsr_column_tiles_total(tsr_report *r, uint64_t *out, size_t n, sqlite3_stmt *st, int col,
                           const char *what, int total_col, const char *total_what);

/* SQLite's defensive configuration, limits (strings and blobs up to
 * `max_length` bytes) and connection pragmas, for every connection
 * reportlib opens (sqlite-lockdown.c). Returns an SQLite code. */
int tsr_sqlite_lockdown(sqlite3 *db, int max_length);
/* sqlite3_initialize once per process, checking that SQLite is
 * thread-safe: SQLITE_OK, else a code and tsr_sqlite_init_error()'s text. */
int tsr_sqlite_init(void);
const char *tsr_sqlite_init_error(void);

/* Why a guard stopped a statement (tsr_vm_guard.stop). */
typedef enum tsr_vm_stop {
	TSR_VM_RUNNING = 0,
	TSR_VM_STOP_STEPS,    /* past the budget of steps */
	TSR_VM_STOP_TIME,     /* past the deadline of a caller's statement */
	TSR_VM_STOP_MEMORY    /* past the memory limit of a caller's statement */
} tsr_vm_stop;

/* A connection's per-statement bounds, checked by its progress handler
 * (sqlite-lockdown.c): set `budget`, zero the rest. A caller's statement
 * (sql-query.c) also sets a deadline and a memory limit while it runs. */
typedef struct tsr_vm_guard {
	int64_t budget;  /* steps one statement may take */
	int64_t flushed; /* the busy statements' step counters at the last call */
	int64_t calls;   /* handler calls since they last changed */
	uint64_t deadline_ns; /* CLOCK_MONOTONIC the running step must end by; 0: none */
	int64_t memory_base;  /* sqlite3_memory_used() when the statement began */
	int64_t memory_limit; /* bytes SQLite may add to that; 0: no limit */
	tsr_vm_stop stop;     /* what stopped the last statement stopped */
} tsr_vm_guard;
/* For a progress handler called every `period` steps: whether the running
 * statement is past its bounds (then the handler returns 1, and g->stop
 * says which). */
bool tsr_vm_guard_exceeded(tsr_vm_guard *g, sqlite3 *db, int period);

/* The schema check of every file reportlib opens, before its first read
 * (sqlite-lockdown.c): SQLITE_OK with why[0] == 0 when the file may be
 * read, SQLITE_OK with `why` naming what was found when it must be
 * refused, else an SQLite code. `format_sql` is the format's schema. */
int tsr_sqlite_check_schema(sqlite3 *db, const char *format_sql, char *why, size_t size);
/* The views `format_sql` defines, made on `db` as TEMP views from that
 * text, never from the file's copy (sqlite-lockdown.c; once per
 * connection, with no authorizer set). Returns an SQLite code. */
int tsr_sqlite_add_format_views(sqlite3 *db, const char *format_sql);
/* Registers the bounded instr, replace, trims, printf and format over the
 * built-ins (sql-functions.c). Returns an SQLite code. */
int tsr_sql_register_bounded_functions(sqlite3 *db);

/* The authorizer of reportlib's own queries on report and trace
 * connections alike (sqlite-lockdown.c; `data` is unused), which
 * tsr_report_query (sql-query.c) puts back after preparing a caller's
 * statement under its own stricter one. `data` is the handle. */
int tsr_authorize_cb(void *data, int action, const char *a, const char *b, const char *dbname,
                     const char *inner);
/* Registers the table-valued function tile_runs(blob) on the handle's
 * connection (sql-query.c). Returns an SQLite code. */
int tsr_sql_register_tile_runs(tsr_report *r);

/* The code of the calling thread's last failure (report-util.c). */
int tsr_last_error_code(void);
/* Frees the handle's pool (report-util.c). */
void tsr_pool_free(tsr_report *r);
/* Records the connection's failure `rc` while doing `what` (report-util.c). */
int tsr_sql_fail(tsr_report *r, int rc, const char *what);
/* Registers tile_value, tile_sum, tile_max (tile-functions.c). */
int tsr_register_tile_functions(tsr_report *r);
/* Compute sets in the report (read at open). */
size_t tsr_compute_set_count(const tsr_report *r);

/* The tiles [*lo, *hi) of `ipu` (-1: all); TSR_ERR_OUT_OF_RANGE otherwise. */
int tsr_ipu_tiles(tsr_report *r, int ipu, size_t *lo, size_t *hi);

/* Lazily loaded parts (their files). */
int tsr_load_variables(tsr_report *r);
int tsr_load_liveness(tsr_report *r);
int tsr_load_steps(tsr_report *r, size_t run);

/* --- Progress (progress.c) --------------------------------------------------- */

/* Each returns true when the callback asked to stop (now or earlier in
 * this call); the caller then fails with TSR_ERR_CANCELLED. */
bool tsr_progress_push(tsr_progress_state *ps, tsr_progress_frame *saved, const char *message);
bool tsr_progress_step(tsr_progress_state *ps, double lo, double hi, const char *message);
bool tsr_progress_part(tsr_progress_state *ps, double lo, double hi, const char *message);
bool tsr_progress_row_slow(tsr_progress_state *ps, size_t i, size_t n);
/* `within` (0 to 1) of the current part: calls the callback when the
 * period has passed (reads the clock on every call). */
bool tsr_progress_at(tsr_progress_state *ps, double within);
bool tsr_progress_poll(tsr_progress_state *ps);
void tsr_progress_pop(tsr_progress_state *ps, const tsr_progress_frame *saved, bool ok);
void tsr_progress_set(tsr_progress_state *ps, tsr_progress_cb cb, void *data);

/* One more row of a loop that knows no count: polls (as the SQLite
 * handler does) every TSR_PROGRESS_ROWS calls. */
static inline bool tsr_progress_tick(tsr_progress_state *ps)
{
	if (ps->cancelled)
		return true;
	return ps->cb && ++ps->ticks % TSR_PROGRESS_ROWS == 0 && tsr_progress_poll(ps);
}

/* Row `i` of `n` of the current part: looks at the clock every
 * TSR_PROGRESS_ROWS rows only, so a loop may call it on every row. */
static inline bool tsr_progress_row(tsr_progress_state *ps, size_t i, size_t n)
{
	if (ps->cancelled)
		return true;
	return ps->cb && i % TSR_PROGRESS_ROWS == 0 && tsr_progress_row_slow(ps, i, n);
}
