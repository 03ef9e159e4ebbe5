/*
 * Chrome trace-event JSON import (trace-chrome.c) and its streaming JSON
 * tokenizer (trace-chrome-lex.c). Nothing here is public: a JSON file is
 * opened through tsr_trace_open like a .pvti file.
 */
#pragma once

#include "trace-private.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes read from the file at a time. */
#define CJ_BLOCK (1u << 20)
/* The deepest nesting of arrays and objects accepted. */
#define CJ_MAX_NESTING 512u

/* A growable byte buffer that keeps at most `max` bytes of what is
 * appended (the rest is dropped and `truncated` set). */
typedef struct cj_buf {
	char *data;                /* NUL-terminated once cj_buf_end ran */
	size_t len, cap, max;
	bool truncated;
} cj_buf;

/* A number as read: the first 19 significant digits and a power of ten,
 * plus its text when short (for strtod). */
typedef struct cj_num {
	uint64_t mant;
	int64_t exp10;             /* value = (neg ? -1 : 1) * mant * 10^exp10 */
	bool neg;
	char text[64];             /* the token, "" when longer than 63 bytes */
} cj_num;

/*
 * The tokenizer: reads a file in blocks (or walks a buffer in memory),
 * never holding more than one block plus what the caller asks it to keep.
 * After a failure `msg` names the line and byte offset, and every call
 * returns -1.
 */
typedef struct cj_lex {
	int fd;                    /* -1: reading `buf` from memory */
	unsigned char *buf;
	size_t len, pos;           /* bytes in buf, next one */
	uint64_t base;             /* offset in the file of buf[0] */
	uint64_t line;             /* 1-based line of buf[pos] */
	bool eof;
	bool failed;
	char msg[256];
	cj_buf *rec;               /* when set, every byte consumed is appended */
	size_t rec_from;           /* buf offset where recording resumes */
} cj_lex;

/* A file reader (fd open for reading; the caller closes it). */
int cj_lex_init_fd(cj_lex *lx, int fd);
/* A reader over data[0..len) (not copied). */
void cj_lex_init_mem(cj_lex *lx, const char *data, size_t len);
void cj_lex_clear(cj_lex *lx);
/* Records a failure at the current position; returns -1. */
int cj_fail(cj_lex *lx, const char *what);
/* The next byte that is not white space, not consumed: 0..255, or -1 at
 * the end of the input (or after a failure). */
int cj_peek(cj_lex *lx);
/* Skips a UTF-8 byte order mark at the start (editors write one). */
void cj_skip_bom(cj_lex *lx);
/* Consumes the byte cj_peek returned. */
void cj_take(cj_lex *lx);
/* Consumes `c` (after white space) or fails naming `what`. */
int cj_expect(cj_lex *lx, int c, const char *what);
/* Reads a string (escapes decoded, UTF-8 checked) into `out` (reset
 * first; NULL: skipped). 0 or -1. */
int cj_string(cj_lex *lx, cj_buf *out);
/* Reads a number. 0 or -1. */
int cj_number(cj_lex *lx, cj_num *out);
/* Skips one value of any kind and depth (iteratively, at most
 * CJ_MAX_NESTING deep), appending its text to `keep` when not NULL. */
int cj_skip(cj_lex *lx, cj_buf *keep);

/* cj_buf */
void cj_buf_reset(cj_buf *b);
int cj_buf_put(cj_buf *b, const void *p, size_t n);
/* NUL-terminates; -1 when out of memory. */
int cj_buf_end(cj_buf *b);
void cj_buf_clear(cj_buf *b);

/* The number as integer nanoseconds when it counts microseconds, rounded
 * to the nearest: 0, or -1 when out of int64_t range. */
int cj_num_us_to_ns(const cj_num *n, int64_t *ns);
/* The number as a double ("C" locale whatever the process's). */
double cj_num_double(const cj_num *n);
/* The number as an integer when it is one that fits: 0, else -1. */
int cj_num_int(const cj_num *n, int64_t *out);

/* --- trace-chrome.c and trace-chrome-write.c ---------------------------------- */

/* The writer's limits (pvti-writer.c): nesting, chunk size. */
#define MAX_DEPTH 250u
#define CHUNK_EVENTS 65536u
#define CHUNK_BYTES (512u << 10)
/* An event's arguments kept as its metadata at most (bytes of JSON). */
#define MAX_ARGS (1u << 20)
/* The longest key of an event object that is looked at. */
#define MAX_KEY 32u
#define NONE UINT32_MAX

/* A pid or tid: a number, or a string (by its interned id). */
typedef struct cj_id {
	int64_t v;
	bool str;
	bool set;
} cj_id;

typedef struct cj_span {
	int64_t start, end;        /* ns, as in the file */
	uint64_t args_off;         /* into the arguments pool */
	uint32_t args_len;         /* 0: none */
	uint32_t name, chan;       /* string id, channel index */
	uint32_t order;            /* arrival, for a stable sort */
} cj_span;

typedef struct cj_open {
	int64_t start;
	uint64_t args_off;
	uint32_t args_len, name, chan;
} cj_open;

typedef struct cj_inst {
	int64_t t;
	uint32_t name, chan;
} cj_inst;

typedef struct cj_thread {
	cj_id pid, tid;
	size_t process;            /* index into conv.procs */
	uint32_t name;             /* thread_name's string id, NONE */
	cj_span *spans;
	size_t n, cap;
	bool unsorted;             /* not in order of start (then longer first) */
	bool unsorted_end;         /* not in order of end */
	cj_inst *inst;
	size_t n_inst, cap_inst;
	bool inst_unsorted;
	cj_open *open;             /* B events waiting for their E */
	size_t n_open, cap_open;
	uint64_t open_past;        /* B events past MAX_DEPTH still open */
	uint64_t emitted;
} cj_thread;

typedef struct cj_process {
	cj_id pid;
	uint32_t name;             /* process_name's string id, NONE */
} cj_process;

/* A map from a key of up to three ids to an index. */
typedef struct cj_slot {
	int64_t a, b, c;
	uint32_t flags;            /* kind and which parts are strings */
	uint32_t idx;              /* + 1; 0: empty */
} cj_slot;
typedef struct cj_map {
	cj_slot *slots;
	size_t cap, n;
} cj_map;

typedef struct cj_stat {
	uint64_t count, total, self, min, max;
} cj_stat;

typedef struct conv {
	tsr_trace *tr;
	const char *path;
	sqlite3 *db;
	cj_lex lx;
	uint64_t file_size;
	/* strings */
	char *pool;
	size_t pool_len, pool_cap;
	uint64_t *str_off;
	uint32_t *str_len;
	size_t n_str, cap_str;
	uint32_t *str_slots;       /* id + 1 */
	size_t str_slot_cap;
	/* channels: string ids of their names */
	uint32_t *chan_name;
	size_t n_chan, cap_chan;
	uint32_t *chan_of_str;     /* string id -> channel + 1 (0: none), by n_str */
	size_t cap_chan_of;
	/* threads and processes */
	cj_thread **threads;
	size_t n_threads, cap_threads;
	cj_process *procs;
	size_t n_procs, cap_procs;
	cj_map map;                /* threads, processes, graphs, series */
	size_t last_thread;
	/* counters */
	int64_t n_graphs, n_series;
	sqlite3_stmt *ins_sample;
	/* arguments */
	char *args;
	size_t args_len, args_cap;
	/* label statistics by (channel, name) */
	cj_map stat_map;
	cj_stat *stats;
	size_t n_stats, cap_stats;
	/* the event being read */
	cj_buf key, ph, name, cat, sval, argbuf;
	/* totals */
	bool any_time;
	int64_t min_ns;            /* the earliest time read (ns, the file's) */
	int64_t base_ns;           /* subtracted from every time: min_ns, or 0 */
	bool have_origin;
	int64_t origin_wall_ns;
	uint64_t events, unbalanced_ends, unclosed_begins, too_deep, args_dropped, bad_times;
	uint64_t skipped[128];     /* by phase letter (ASCII); [0]: longer or odd ones */
	bool object_form;
	uint64_t counters;
} conv;

/* Grows an array held by the conversion (counted against the cap). */
int trace_chrome_grow(conv *c, void **p, size_t *cap, size_t need, size_t size);
/* An SQLite failure while building the database, as the handle's error. */
int trace_chrome_sql_fail(conv *c, int rc);
/* TSR_ERR_TOO_LARGE once the database in memory no longer fits the cap. */
int trace_chrome_check_db_size(conv *c);
/* Runs SQL on the database being built. */
int trace_chrome_exec(conv *c, const char *sql);
/* The index stored for `key` in `m`, or NONE and the slot to fill. */
int trace_chrome_map_find(conv *c, cj_map *m, const cj_slot *key, uint32_t *idx, cj_slot **slot);
void trace_chrome_map_set(cj_map *m, cj_slot *slot, const cj_slot *key, uint32_t idx);
/* Interned string `id`. */
const char *trace_chrome_str(const conv *c, uint32_t id);
/* Writes every table from what the parse kept (trace-chrome-write.c). */
int trace_chrome_write_tables(conv *c);

/* --- trace-chrome-sniff.c --------------------------------------------------- */

/* Whether the file at `path` reads as JSON: its first byte that is not
 * white space (however much of it there is) is '[' or '{' (a file named
 * by the user). */
bool trace_chrome_sniff(const char *path);
/* Whether it reads as a Chrome trace (a file found in a directory): JSON
 * whose first 64 KiB past its leading white space hold "traceEvents" (an
 * object) or an event's "ph" key (an array). */
bool trace_chrome_sniff_trace(const char *path);

/* --- trace-chrome.c --------------------------------------------------------- */

/*
 * Converts the Chrome trace-event JSON file of process `p` into a .pvti
 * database in memory (*db, caller closes), so that every query reads it
 * as it reads a file that libtilescope-pvti wrote.
 */
int trace_chrome_import(tsr_trace *tr, size_t p, sqlite3 **db);
