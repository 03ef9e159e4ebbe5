/*
 * Chrome trace-event JSON files (what PyTorch, Perfetto and `tilescope
 * export --chrome-trace` write) opened as traces: tsr_trace_open hands a
 * file whose first byte past white space is '[' or '{' to
 * trace_chrome_import, which streams it through the tokenizer
 * (trace-chrome-lex.c) and writes what it holds as a .pvti database in
 * memory, with db-schema's schema and event-chunk codec.
 *
 * Why a .pvti in memory rather than decoded chunks hung on the handle:
 * every query of trace.h (viewports and their level of detail, label
 * statistics, totals, search, counters, instants, metadata, export and
 * read-only SQL) reads chunk blobs, instants, samples and metadata
 * through SQLite. Writing the same tables lets all of them, the System
 * Analyser and `tilescope trace` included, work on a JSON trace unchanged
 * and checked by the same reader code, at the cost of encoding what is
 * then decoded (a few percent of the parse). The database lives in
 * SQLite's memory, its size charged to the handle's memory cap; nothing
 * is written to disk.
 *
 * The model. Both forms are read: a bare array of events, and an object
 * whose "traceEvents" holds them (its "otherData.origin_wall_ns", which
 * the export writes, places the trace in wall time; other keys are
 * skipped). Phases: X (complete: ts, dur), B / E (matched per thread as a
 * stack, as Chrome does), i / I / n (instants), C (each numeric argument
 * a series of a graph named after the event), M (process_name and
 * thread_name name things; other metadata is accepted and ignored).
 * Other phases (async, flow, object, sample ...) are counted by phase in
 * trace_metadata's chrome.skipped_phases and skipped. ts and dur are
 * microseconds; they become integer nanoseconds rounded to the nearest,
 * so "12.345" is exactly 12,345 ns. pid and tid may be numbers or
 * strings. A file is one process (as a .pvti is): its threads are the
 * (pid, tid) pairs, named after their process too when a file holds
 * several. cat becomes the span's channel. args are kept as the span's
 * metadata (pvti_event_metadata), as JSON text. Times are moved so the
 * earliest is 0 on the file's own axis, except in a file that gives its
 * origin's wall time (the export's otherData.origin_wall_ns), whose times
 * are kept.
 *
 * Nesting. Spans of a thread are ordered by start (longer first on a tie)
 * and nested with a stack: a span lies inside the innermost open one
 * that contains it (of two equal spans, the one listed second when the
 * file lists spans by their end, else the first); one that overlaps its predecessor without fitting in
 * it closes that one first. What the writer does with spans is done
 * here too: an E with nothing open is counted (pvti.unbalanced_ends), a B
 * never closed is left out and counted (pvti.unclosed_begins), spans
 * deeper than the writer's limit are counted (pvti.too_deep) and left
 * out. label_stats, thread.events and pvti.complete are written, so the
 * trace opens as one closed cleanly; the level of detail is built by the
 * reader from the chunks, as for a trace whose writer died.
 *
 * Memory: the spans are kept (about 40 bytes each, counted against the
 * handle's cap) until the end of the file, because a JSON trace is not
 * ordered by end time as chunks must be. A hostile file cannot make the
 * tokenizer hold more than one block, a name and one event's arguments.
 */
#define _GNU_SOURCE 1

#include "trace-chrome-private.h"

#include "event-chunk.h"
#include "format.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* --- Errors and memory ----------------------------------------------------------- */

/* TSR_ERR_CORRUPT naming the file and where the tokenizer is. */
static int bad(conv *c, const char *what)
{
	if (!c->lx.failed)
		cj_fail(&c->lx, what);
	return trace_fail(c->tr, TSR_ERR_CORRUPT, "%s: not a valid Chrome trace: %s", c->path,
	                  c->lx.msg);
}

/* The tokenizer's failure as the handle's error. */
static int lex_failed(conv *c)
{
	if (strstr(c->lx.msg, "out of memory"))
		return trace_fail(c->tr, TSR_ERR_NO_MEMORY, "%s: out of memory", c->path);
	return trace_fail(c->tr, TSR_ERR_CORRUPT, "%s: not a valid Chrome trace: %s", c->path,
	                  c->lx.msg);
}

/* Grows an array held by the conversion (counted against the cap). */
static int grow(conv *c, void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return TSR_OK;
	while (n < need)
		n *= 2;
	q = trace_realloc(c->tr, *p, *cap, n, size);
	if (!q)
		return c->tr->code;
	*p = q;
	*cap = n;
	return TSR_OK;
}

static int sql_fail(conv *c, int rc)
{
	return trace_fail(c->tr, rc == SQLITE_NOMEM ? TSR_ERR_NO_MEMORY : TSR_ERR_IO,
	                  "%s: building the trace in memory: %s", c->path, sqlite3_errmsg(c->db));
}

/* Whether the database in memory still fits beside the handle's other
 * memory. */
static int check_db_size(conv *c)
{
	int cur = 0, hi = 0;

	sqlite3_db_status(c->db, SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0);
	if (c->tr->memory_used + (uint64_t)cur > c->tr->memory_cap)
		return trace_fail(c->tr, TSR_ERR_TOO_LARGE,
		                  "%s: the trace needs more than the memory cap (%llu MiB)", c->path,
		                  (unsigned long long)(c->tr->memory_cap >> 20));
	return TSR_OK;
}

/* --- Strings -------------------------------------------------------------------- */

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* The id of string s[0..n), interned when new. */
static int intern(conv *c, uint32_t *out, const char *s, size_t n)
{
	size_t mask, i;
	int rc;

	if ((c->n_str + 1) * 2 > c->str_slot_cap) {
		size_t cap = c->str_slot_cap ? c->str_slot_cap * 2 : 1024;
		uint32_t *slots = trace_alloc(c->tr, cap, sizeof(*slots));

		if (!slots)
			return c->tr->code;
		for (size_t k = 0; k < c->n_str; k++) {
			i = hash_bytes(c->pool + c->str_off[k], c->str_len[k]) & (cap - 1);
			while (slots[i])
				i = (i + 1) & (cap - 1);
			slots[i] = (uint32_t)k + 1;
		}
		trace_free_mem(c->tr, c->str_slots, c->str_slot_cap * sizeof(*slots));
		c->str_slots = slots;
		c->str_slot_cap = cap;
	}
	mask = c->str_slot_cap - 1;
	for (i = hash_bytes(s, n) & mask; c->str_slots[i]; i = (i + 1) & mask) {
		uint32_t k = c->str_slots[i] - 1;

		if (c->str_len[k] == n && memcmp(c->pool + c->str_off[k], s, n) == 0) {
			*out = k;
			return TSR_OK;
		}
	}
	if (c->n_str >= UINT32_MAX - 1)
		return trace_fail(c->tr, TSR_ERR_TOO_LARGE, "%s: too many names", c->path);
	if ((rc = grow(c, (void **)&c->pool, &c->pool_cap, c->pool_len + n + 1, 1)) ||
	    (rc = grow(c, (void **)&c->str_off, &c->cap_str, c->n_str + 1, sizeof(uint64_t))))
		return rc;
	if (c->cap_str > c->cap_chan_of) {
		size_t old = c->cap_chan_of;
		uint32_t *len = trace_realloc(c->tr, c->str_len, old, c->cap_str, sizeof(*len));
		uint32_t *ch;

		if (!len)
			return c->tr->code;
		c->str_len = len;
		ch = trace_realloc(c->tr, c->chan_of_str, old, c->cap_str, sizeof(*ch));
		if (!ch)
			return c->tr->code;
		memset(ch + old, 0, (c->cap_str - old) * sizeof(*ch));
		c->chan_of_str = ch;
		c->cap_chan_of = c->cap_str;
	}
	memcpy(c->pool + c->pool_len, s, n);
	c->pool[c->pool_len + n] = '\0';
	c->str_off[c->n_str] = c->pool_len;
	c->str_len[c->n_str] = (uint32_t)n;
	c->pool_len += n + 1;
	c->str_slots[i] = (uint32_t)c->n_str + 1;
	*out = (uint32_t)c->n_str++;
	return TSR_OK;
}

static const char *str_of(const conv *c, uint32_t id)
{
	return c->pool + c->str_off[id];
}

/* The channel of category string `sid`. */
static int channel_of(conv *c, uint32_t *out, uint32_t sid)
{
	int rc;

	if (c->chan_of_str[sid]) {
		*out = c->chan_of_str[sid] - 1;
		return TSR_OK;
	}
	if ((rc = grow(c, (void **)&c->chan_name, &c->cap_chan, c->n_chan + 1, sizeof(uint32_t))))
		return rc;
	c->chan_name[c->n_chan] = sid;
	c->chan_of_str[sid] = (uint32_t)++c->n_chan;
	*out = (uint32_t)c->n_chan - 1;
	return TSR_OK;
}

/* --- The map ---------------------------------------------------------------------- */

static uint64_t hash_key(const cj_slot *k)
{
	uint64_t h = (uint64_t)k->a * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)k->b * 0xc2b2ae3d27d4eb4full + (h << 6) + (h >> 2);
	h ^= (uint64_t)k->c * 0x165667b19e3779f9ull + (h << 6) + (h >> 2);
	h ^= k->flags;
	return h ^ (h >> 29);
}

/* The index stored for `key`, or when absent *found false and the slot
 * to fill in *slot (the map grown first). */
static int map_find(conv *c, cj_map *m, const cj_slot *key, uint32_t *idx, cj_slot **slot)
{
	size_t mask, i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		cj_slot *s = trace_alloc(c->tr, cap, sizeof(*s));

		if (!s)
			return c->tr->code;
		for (size_t k = 0; k < m->cap; k++) {
			if (!m->slots[k].idx)
				continue;
			for (i = hash_key(&m->slots[k]) & (cap - 1); s[i].idx; i = (i + 1) & (cap - 1))
				;
			s[i] = m->slots[k];
		}
		trace_free_mem(c->tr, m->slots, m->cap * sizeof(*s));
		m->slots = s;
		m->cap = cap;
	}
	mask = m->cap - 1;
	for (i = hash_key(key) & mask; m->slots[i].idx; i = (i + 1) & mask) {
		const cj_slot *s = &m->slots[i];

		if (s->a == key->a && s->b == key->b && s->c == key->c && s->flags == key->flags) {
			*idx = s->idx - 1;
			*slot = NULL;
			return TSR_OK;
		}
	}
	*idx = NONE;
	*slot = &m->slots[i];
	return TSR_OK;
}

static void map_set(cj_map *m, cj_slot *slot, const cj_slot *key, uint32_t idx)
{
	*slot = *key;
	slot->idx = idx + 1;
	m->n++;
}

enum { KEY_THREAD = 1, KEY_PROCESS = 2, KEY_GRAPH = 3, KEY_SERIES = 4 };

static cj_slot make_key(int kind, cj_id pid, cj_id tid, int64_t third)
{
	cj_slot k = {pid.v, tid.v, third, (uint32_t)kind | (pid.str ? 16u : 0) | (tid.str ? 32u : 0), 0};

	return k;
}

/* The process of `pid`, made when new. */
static int process_of(conv *c, size_t *out, cj_id pid)
{
	cj_id none = {0, false, false};
	cj_slot key = make_key(KEY_PROCESS, pid, none, 0), *slot;
	uint32_t idx;
	int rc = map_find(c, &c->map, &key, &idx, &slot);

	if (rc)
		return rc;
	if (idx == NONE) {
		if ((rc = grow(c, (void **)&c->procs, &c->cap_procs, c->n_procs + 1, sizeof(*c->procs))))
			return rc;
		c->procs[c->n_procs].pid = pid;
		c->procs[c->n_procs].name = NONE;
		idx = (uint32_t)c->n_procs++;
		map_set(&c->map, slot, &key, idx);
	}
	*out = idx;
	return TSR_OK;
}

/* The thread of (pid, tid), made when new. */
static int thread_of(conv *c, cj_thread **out, cj_id pid, cj_id tid)
{
	cj_slot key, *slot;
	uint32_t idx;
	size_t p;
	cj_thread *t;
	int rc;

	if (c->n_threads) {
		t = c->threads[c->last_thread];
		if (t->pid.v == pid.v && t->pid.str == pid.str && t->tid.v == tid.v &&
		    t->tid.str == tid.str) {
			*out = t;
			return TSR_OK;
		}
	}
	key = make_key(KEY_THREAD, pid, tid, 0);
	if ((rc = map_find(c, &c->map, &key, &idx, &slot)))
		return rc;
	if (idx == NONE) {
		if ((rc = process_of(c, &p, pid)))
			return rc;
		/* process_of may have grown the map: look again for the slot. */
		if ((rc = map_find(c, &c->map, &key, &idx, &slot)) ||
		    (rc = grow(c, (void **)&c->threads, &c->cap_threads, c->n_threads + 1,
		               sizeof(*c->threads))))
			return rc;
		t = trace_alloc(c->tr, 1, sizeof(*t));
		if (!t)
			return c->tr->code;
		t->pid = pid;
		t->tid = tid;
		t->process = p;
		t->name = NONE;
		c->threads[c->n_threads] = t;
		idx = (uint32_t)c->n_threads++;
		map_set(&c->map, slot, &key, idx);
	}
	c->last_thread = idx;
	*out = c->threads[idx];
	return TSR_OK;
}

/* --- Events ------------------------------------------------------------------------- */

/* What one event object said. */
typedef struct cj_event {
	char ph;                   /* 0: absent; '?': longer than one letter */
	bool has_name, has_cat, has_ts, has_dur, has_args;
	cj_id pid, tid;
	int64_t ts, dur;           /* ns */
} cj_event;

static void note_time(conv *c, int64_t t)
{
	if (!c->any_time || t < c->min_ns)
		c->min_ns = t;
	c->any_time = true;
}

/* Appends the event's arguments to the pool: *off, *len (0: none). */
static int keep_args(conv *c, const cj_event *e, uint64_t *off, uint32_t *len)
{
	int rc;

	*off = 0;
	*len = 0;
	if (!e->has_args)
		return TSR_OK;
	if (c->argbuf.truncated) {
		c->args_dropped++;
		return TSR_OK;
	}
	/* "{}" says nothing. */
	if (c->argbuf.len <= 2)
		return TSR_OK;
	if ((rc = grow(c, (void **)&c->args, &c->args_cap, c->args_len + c->argbuf.len, 1)))
		return rc;
	memcpy(c->args + c->args_len, c->argbuf.data, c->argbuf.len);
	*off = c->args_len;
	*len = (uint32_t)c->argbuf.len;
	c->args_len += c->argbuf.len;
	return TSR_OK;
}

static int add_span(conv *c, cj_thread *t, int64_t start, int64_t end, uint32_t name,
                    uint32_t chan, uint64_t args_off, uint32_t args_len)
{
	cj_span *s;
	int rc;

	if (t->n == t->cap &&
	    (rc = grow(c, (void **)&t->spans, &t->cap, t->n + 1, sizeof(*t->spans))))
		return rc;
	s = &t->spans[t->n];
	s->start = start;
	s->end = end;
	s->name = name;
	s->chan = chan;
	s->args_off = args_off;
	s->args_len = args_len;
	s->order = (uint32_t)t->n;
	if (t->n && (start < t->spans[t->n - 1].start ||
	             (start == t->spans[t->n - 1].start && end > t->spans[t->n - 1].end)))
		t->unsorted = true;
	if (t->n && end < t->spans[t->n - 1].end)
		t->unsorted_end = true;
	t->n++;
	note_time(c, start);
	return TSR_OK;
}

/* The "name" string of an M event's arguments, interned; NONE when it
 * has none. */
static int meta_name(conv *c, uint32_t *out)
{
	cj_lex lx;
	int ch, rc = TSR_OK;

	*out = NONE;
	if (!c->argbuf.len || c->argbuf.truncated)
		return TSR_OK;
	cj_lex_init_mem(&lx, c->argbuf.data, c->argbuf.len);
	if (cj_expect(&lx, '{', "") || (ch = cj_peek(&lx)) == '}')
		return TSR_OK;
	for (;;) {
		if (cj_string(&lx, &c->key) || cj_expect(&lx, ':', "") || cj_buf_end(&c->key))
			break;
		if (strcmp(c->key.data, "name") == 0 && cj_peek(&lx) == '"') {
			if (cj_string(&lx, &c->sval) || cj_buf_end(&c->sval))
				break;
			rc = intern(c, out, c->sval.data, c->sval.len);
			break;
		}
		if (cj_skip(&lx, NULL) || cj_peek(&lx) != ',')
			break;
		cj_take(&lx);
	}
	return rc;
}

/* A "C" event: each numeric argument is a sample of series (pid, name,
 * argument) in graph (pid, name). */
static int counter(conv *c, const cj_event *e, uint32_t name)
{
	cj_lex lx;
	int rc = TSR_OK;
	bool sampled = false;

	if (!c->argbuf.len || c->argbuf.truncated)
		return TSR_OK;
	cj_lex_init_mem(&lx, c->argbuf.data, c->argbuf.len);
	if (cj_expect(&lx, '{', "") || cj_peek(&lx) == '}')
		return TSR_OK;
	while (rc == TSR_OK) {
		cj_num num;
		uint32_t key, graph, series;
		cj_slot k, *slot;
		cj_id none = {0, false, false};
		int ch;

		if (cj_string(&lx, &c->sval) || cj_expect(&lx, ':', ""))
			break;
		ch = cj_peek(&lx);
		if (ch == '-' || (ch >= '0' && ch <= '9')) {
			if (cj_number(&lx, &num))
				break;
			if ((rc = intern(c, &key, c->sval.data ? c->sval.data : "", c->sval.len)))
				break;
			k = make_key(KEY_GRAPH, e->pid, none, name);
			if ((rc = map_find(c, &c->map, &k, &graph, &slot)))
				break;
			if (graph == NONE) {
				sqlite3_stmt *st = NULL;

				graph = (uint32_t)++c->n_graphs;
				map_set(&c->map, slot, &k, graph);
				rc = sqlite3_prepare_v2(c->db, "INSERT INTO graph(id, name, unit) VALUES (?, ?, '')",
				                        -1, &st, NULL);
				if (rc == SQLITE_OK) {
					sqlite3_bind_int64(st, 1, graph);
					sqlite3_bind_text(st, 2, str_of(c, name), -1, SQLITE_STATIC);
					rc = sqlite3_step(st);
				}
				sqlite3_finalize(st);
				if (rc != SQLITE_DONE) {
					rc = sql_fail(c, rc);
					break;
				}
				rc = TSR_OK;
			}
			k = make_key(KEY_SERIES, e->pid, none, (int64_t)name << 32 | key);
			if ((rc = map_find(c, &c->map, &k, &series, &slot)))
				break;
			if (series == NONE) {
				sqlite3_stmt *st = NULL;

				series = (uint32_t)++c->n_series;
				map_set(&c->map, slot, &k, series);
				rc = sqlite3_prepare_v2(c->db, "INSERT INTO series(id, graph, name) VALUES (?, ?, ?)",
				                        -1, &st, NULL);
				if (rc == SQLITE_OK) {
					sqlite3_bind_int64(st, 1, series);
					sqlite3_bind_int64(st, 2, graph);
					sqlite3_bind_text(st, 3, str_of(c, key), -1, SQLITE_STATIC);
					rc = sqlite3_step(st);
				}
				sqlite3_finalize(st);
				if (rc != SQLITE_DONE) {
					rc = sql_fail(c, rc);
					break;
				}
				rc = TSR_OK;
			}
			sqlite3_reset(c->ins_sample);
			sqlite3_bind_int64(c->ins_sample, 1, series);
			sqlite3_bind_int64(c->ins_sample, 2, e->ts);
			sqlite3_bind_double(c->ins_sample, 3, cj_num_double(&num));
			if ((rc = sqlite3_step(c->ins_sample)) != SQLITE_DONE) {
				rc = sql_fail(c, rc);
				break;
			}
			rc = TSR_OK;
			c->counters++;
			sampled = true;
		} else if (cj_skip(&lx, NULL)) {
			break;
		}
		if (cj_peek(&lx) != ',')
			break;
		cj_take(&lx);
	}
	if (rc == TSR_OK && sampled)
		note_time(c, e->ts);
	return rc;
}

/* Acts on one event once its object is read. */
static int dispatch(conv *c, cj_event *e)
{
	uint32_t name = NONE, cat = NONE, chan;
	uint64_t off;
	uint32_t len;
	cj_thread *t;
	int rc;

	c->events++;
	if (e->ph == 'M') {
		size_t p;

		if (!e->has_name || cj_buf_end(&c->name))
			return TSR_OK;
		if (strcmp(c->name.data, "process_name") == 0) {
			if ((rc = process_of(c, &p, e->pid)) || (rc = meta_name(c, &name)))
				return rc;
			if (name != NONE)
				c->procs[p].name = name;
		} else if (strcmp(c->name.data, "thread_name") == 0) {
			if ((rc = thread_of(c, &t, e->pid, e->tid)) || (rc = meta_name(c, &name)))
				return rc;
			if (name != NONE)
				t->name = name;
		}
		return TSR_OK;
	}
	if (e->ph != 'X' && e->ph != 'B' && e->ph != 'E' && e->ph != 'i' && e->ph != 'I' &&
	    e->ph != 'n' && e->ph != 'C') {
		c->skipped[e->ph > 0 && e->ph < 127 && e->ph != '?' ? e->ph : 0]++;
		return TSR_OK;
	}
	if (!e->has_ts)
		return bad(c, "an event without \"ts\"");
	if (e->has_name) {
		if ((rc = intern(c, &name, c->name.data ? c->name.data : "", c->name.len)))
			return rc;
	} else if ((rc = intern(c, &name, "", 0))) {
		return rc;
	}
	if (e->ph == 'C')
		return counter(c, e, name);
	if (e->has_cat)
		rc = intern(c, &cat, c->cat.data ? c->cat.data : "", c->cat.len);
	else
		rc = intern(c, &cat, "default", 7);
	if (rc || (rc = channel_of(c, &chan, cat)) || (rc = thread_of(c, &t, e->pid, e->tid)))
		return rc;
	switch (e->ph) {
	case 'X': {
		int64_t end;

		if (e->dur < 0 || __builtin_add_overflow(e->ts, e->dur, &end)) {
			c->bad_times++;
			return TSR_OK;
		}
		if ((rc = keep_args(c, e, &off, &len)))
			return rc;
		return add_span(c, t, e->ts, end, name, chan, off, len);
	}
	case 'B':
		if (t->n_open >= MAX_DEPTH) {
			t->open_past++;
			return TSR_OK;
		}
		if ((rc = keep_args(c, e, &off, &len)) ||
		    (rc = grow(c, (void **)&t->open, &t->cap_open, t->n_open + 1, sizeof(*t->open))))
			return rc;
		t->open[t->n_open].start = e->ts;
		t->open[t->n_open].name = name;
		t->open[t->n_open].chan = chan;
		t->open[t->n_open].args_off = off;
		t->open[t->n_open].args_len = len;
		t->n_open++;
		note_time(c, e->ts);
		return TSR_OK;
	case 'E': {
		cj_open *o;

		if (t->open_past) {
			t->open_past--;
			c->too_deep++;
			return TSR_OK;
		}
		if (!t->n_open) {
			c->unbalanced_ends++;
			return TSR_OK;
		}
		o = &t->open[--t->n_open];
		if (e->ts < o->start) {
			c->bad_times++;
			return TSR_OK;
		}
		/* Arguments given at the end join those of the begin (Chrome
		 * merges them): the end's are kept when the begin had none. */
		if (!o->args_len && (rc = keep_args(c, e, &o->args_off, &o->args_len)))
			return rc;
		return add_span(c, t, o->start, e->ts, o->name, o->chan, o->args_off, o->args_len);
	}
	default: { /* i, I, n */
		cj_inst *in;

		if (t->n_inst == t->cap_inst &&
		    (rc = grow(c, (void **)&t->inst, &t->cap_inst, t->n_inst + 1, sizeof(*t->inst))))
			return rc;
		in = &t->inst[t->n_inst];
		in->t = e->ts;
		in->name = name;
		in->chan = chan;
		if (t->n_inst && e->ts < t->inst[t->n_inst - 1].t)
			t->inst_unsorted = true;
		t->n_inst++;
		note_time(c, e->ts);
		return TSR_OK;
	}
	}
}

/* A pid or tid value: a number (an integer) or a string. */
static int read_id(conv *c, cj_id *out)
{
	int ch = cj_peek(&c->lx);
	cj_num num;
	uint32_t sid;
	int rc;

	if (ch == '"') {
		if (cj_string(&c->lx, &c->sval))
			return lex_failed(c);
		if ((rc = intern(c, &sid, c->sval.data ? c->sval.data : "", c->sval.len)))
			return rc;
		out->v = sid;
		out->str = true;
		out->set = true;
		return TSR_OK;
	}
	if (ch == '-' || (ch >= '0' && ch <= '9')) {
		if (cj_number(&c->lx, &num))
			return lex_failed(c);
		if (cj_num_int(&num, &out->v))
			return bad(c, "a pid or tid that is not an integer");
		out->str = false;
		out->set = true;
		return TSR_OK;
	}
	if (cj_skip(&c->lx, NULL))
		return lex_failed(c);
	return TSR_OK;
}

/* A time in microseconds, as ns. */
static int read_time(conv *c, int64_t *out, bool *has)
{
	cj_num num;
	int ch = cj_peek(&c->lx);

	if (!(ch == '-' || (ch >= '0' && ch <= '9'))) {
		if (cj_skip(&c->lx, NULL))
			return lex_failed(c);
		return TSR_OK;
	}
	if (cj_number(&c->lx, &num))
		return lex_failed(c);
	if (cj_num_us_to_ns(&num, out))
		return bad(c, "a time out of range (more than 292 years in nanoseconds)");
	*has = true;
	return TSR_OK;
}

/* The keys of an event object that are read; the rest are skipped. */
enum { K_OTHER, K_PH, K_NAME, K_CAT, K_TS, K_DUR, K_PID, K_TID, K_ARGS };

/* Which key `b` is: by length first, one compare (a strcmp chain per key
 * of every event showed in profiles). */
static int key_of(const cj_buf *b)
{
	const char *k = b->data;

	if (b->truncated)
		return K_OTHER;
	switch (b->len) {
	case 2:
		return memcmp(k, "ph", 2) == 0 ? K_PH : memcmp(k, "ts", 2) == 0 ? K_TS : K_OTHER;
	case 3:
		return memcmp(k, "cat", 3) == 0   ? K_CAT
		       : memcmp(k, "dur", 3) == 0 ? K_DUR
		       : memcmp(k, "pid", 3) == 0 ? K_PID
		       : memcmp(k, "tid", 3) == 0 ? K_TID
		                                  : K_OTHER;
	case 4:
		return memcmp(k, "name", 4) == 0 ? K_NAME : memcmp(k, "args", 4) == 0 ? K_ARGS : K_OTHER;
	default:
		return K_OTHER;
	}
}

/* Reads one event object and acts on it. */
static int read_event(conv *c)
{
	cj_event e;
	int ch, rc;

	memset(&e, 0, sizeof(e));
	if (cj_peek(&c->lx) != '{') {
		/* Not an object: skipped like an unknown phase. */
		if (cj_skip(&c->lx, NULL))
			return lex_failed(c);
		c->skipped[0]++;
		return TSR_OK;
	}
	cj_take(&c->lx);
	ch = cj_peek(&c->lx);
	if (ch == '}') {
		cj_take(&c->lx);
		c->skipped[0]++;
		return TSR_OK;
	}
	for (;;) {
		int k;

		if (cj_string(&c->lx, &c->key) || cj_expect(&c->lx, ':', "':' was expected after a key"))
			return lex_failed(c);
		k = key_of(&c->key);
		ch = cj_peek(&c->lx);
		rc = TSR_OK;
		if (k == K_PH && ch == '"') {
			if (cj_string(&c->lx, &c->ph))
				return lex_failed(c);
			e.ph = c->ph.len == 1 ? c->ph.data[0] : '?';
		} else if (k == K_NAME && ch == '"') {
			if (cj_string(&c->lx, &c->name))
				return lex_failed(c);
			e.has_name = true;
		} else if (k == K_CAT && ch == '"') {
			if (cj_string(&c->lx, &c->cat))
				return lex_failed(c);
			e.has_cat = true;
		} else if (k == K_TS) {
			rc = read_time(c, &e.ts, &e.has_ts);
		} else if (k == K_DUR) {
			rc = read_time(c, &e.dur, &e.has_dur);
		} else if (k == K_PID) {
			rc = read_id(c, &e.pid);
		} else if (k == K_TID) {
			rc = read_id(c, &e.tid);
		} else if (k == K_ARGS) {
			if (cj_skip(&c->lx, &c->argbuf))
				return lex_failed(c);
			e.has_args = ch == '{';
			if (!e.has_args)
				cj_buf_reset(&c->argbuf);
		} else if (cj_skip(&c->lx, NULL)) {
			return lex_failed(c);
		}
		if (rc)
			return rc;
		ch = cj_peek(&c->lx);
		if (ch == ',') {
			cj_take(&c->lx);
			continue;
		}
		if (ch == '}') {
			cj_take(&c->lx);
			break;
		}
		return bad(c, ch < 0 ? "the file ends inside an event" : "',' or '}' was expected");
	}
	if (!e.has_args)
		cj_buf_reset(&c->argbuf);
	if (!e.has_name)
		cj_buf_reset(&c->name);
	return dispatch(c, &e);
}

/* The array of events; `open_ended`: the array form, whose closing ']'
 * Chrome's format makes optional (a writer that died). */
static int read_events(conv *c, bool open_ended)
{
	int ch, rc;
	uint64_t n = 0;

	if (cj_expect(&c->lx, '[', "an array of events was expected"))
		return lex_failed(c);
	ch = cj_peek(&c->lx);
	if (ch == ']') {
		cj_take(&c->lx);
		return TSR_OK;
	}
	for (;;) {
		if (open_ended && ch < 0 && !c->lx.failed)
			return TSR_OK;
		if ((rc = read_event(c)))
			return rc;
		if (++n % 4096 == 0) {
			if (c->file_size &&
			    tsr_progress_at(&c->tr->progress,
			                    (double)(c->lx.base + c->lx.pos) / (double)c->file_size))
				return trace_fail_cancelled(c->tr);
			if ((rc = check_db_size(c)))
				return rc;
		}
		ch = cj_peek(&c->lx);
		if (ch == ',') {
			cj_take(&c->lx);
			ch = cj_peek(&c->lx);
			continue;
		}
		if (ch == ']') {
			cj_take(&c->lx);
			return TSR_OK;
		}
		if (open_ended && ch < 0 && !c->lx.failed)
			return TSR_OK;
		return bad(c, ch < 0 ? "the file ends inside the array of events"
		                     : "',' or ']' was expected after an event");
	}
}

/* otherData: its origin_wall_ns (a string or number of ns), if any. */
static int read_other_data(conv *c)
{
	int ch = cj_peek(&c->lx);

	if (ch != '{')
		return cj_skip(&c->lx, NULL) ? lex_failed(c) : TSR_OK;
	cj_take(&c->lx);
	if (cj_peek(&c->lx) == '}') {
		cj_take(&c->lx);
		return TSR_OK;
	}
	for (;;) {
		if (cj_string(&c->lx, &c->key) || cj_buf_end(&c->key) || cj_expect(&c->lx, ':', "':' was expected"))
			return lex_failed(c);
		ch = cj_peek(&c->lx);
		if (!c->key.truncated && strcmp(c->key.data, "origin_wall_ns") == 0 && ch == '"') {
			char *end;
			long long v;

			if (cj_string(&c->lx, &c->sval) || cj_buf_end(&c->sval))
				return lex_failed(c);
			errno = 0;
			v = strtoll(c->sval.data, &end, 10);
			if (!errno && end != c->sval.data && !*end && v >= 0) {
				c->have_origin = true;
				c->origin_wall_ns = v;
			}
		} else if (cj_skip(&c->lx, NULL)) {
			return lex_failed(c);
		}
		ch = cj_peek(&c->lx);
		if (ch == ',') {
			cj_take(&c->lx);
			continue;
		}
		if (ch == '}') {
			cj_take(&c->lx);
			return TSR_OK;
		}
		return bad(c, "',' or '}' was expected");
	}
}

/* The object form: "traceEvents" and friends. */
static int read_object(conv *c)
{
	int ch, rc;
	bool events = false;

	c->object_form = true;
	cj_take(&c->lx);
	if (cj_peek(&c->lx) == '}') {
		cj_take(&c->lx);
		return bad(c, "the object has no \"traceEvents\"");
	}
	for (;;) {
		if (cj_string(&c->lx, &c->key) || cj_buf_end(&c->key) || cj_expect(&c->lx, ':', "':' was expected"))
			return lex_failed(c);
		ch = cj_peek(&c->lx);
		if (!c->key.truncated && strcmp(c->key.data, "traceEvents") == 0 && ch == '[' && !events) {
			if ((rc = read_events(c, false)))
				return rc;
			events = true;
		} else if (!c->key.truncated && strcmp(c->key.data, "otherData") == 0) {
			if ((rc = read_other_data(c)))
				return rc;
		} else if (cj_skip(&c->lx, NULL)) {
			return lex_failed(c);
		}
		ch = cj_peek(&c->lx);
		if (ch == ',') {
			cj_take(&c->lx);
			continue;
		}
		if (ch == '}') {
			cj_take(&c->lx);
			break;
		}
		return bad(c, ch < 0 ? "the file ends inside the top object" : "',' or '}' was expected");
	}
	if (!events)
		return bad(c, "the object has no \"traceEvents\" array");
	return TSR_OK;
}

/* --- Writing the database ------------------------------------------------------------ */

static int exec(conv *c, const char *sql)
{
	int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? TSR_OK : sql_fail(c, rc);
}

/* Start, then the longer first, then arrival. */
static int compare_spans(const void *a, const void *b)
{
	const cj_span *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

static int compare_instants(const void *a, const void *b)
{
	const cj_inst *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

/* One open span in the sweep. */
typedef struct sweep_frame {
	const cj_span *s;
	int64_t seq;
	uint64_t kids;             /* durations of its children (ns) */
} sweep_frame;

typedef struct sweep {
	conv *c;
	int64_t thread_id;
	tsf_chunk_enc enc;
	sqlite3_stmt *ins_chunk, *ins_meta, *ins_inst;
	sweep_frame stack[MAX_DEPTH];
	size_t depth;
	int64_t next_seq;
} sweep;

static int flush_chunk(sweep *w)
{
	conv *c = w->c;
	int rc;

	if (!w->enc.count)
		return TSR_OK;
	sqlite3_reset(w->ins_chunk);
	sqlite3_bind_int64(w->ins_chunk, 1, w->thread_id);
	sqlite3_bind_int64(w->ins_chunk, 2, w->enc.first_ns);
	sqlite3_bind_int64(w->ins_chunk, 3, w->enc.last_ns);
	sqlite3_bind_int64(w->ins_chunk, 4, w->enc.count);
	sqlite3_bind_blob(w->ins_chunk, 5, w->enc.data, (int)w->enc.len, SQLITE_STATIC);
	if ((rc = sqlite3_step(w->ins_chunk)) != SQLITE_DONE)
		return sql_fail(c, rc);
	tsf_chunk_enc_reset(&w->enc);
	return check_db_size(c);
}

/* The label statistics of (channel, name). */
static int stat_of(conv *c, cj_stat **out, uint32_t chan, uint32_t name)
{
	cj_slot key = {chan, name, 0, 0, 0}, *slot;
	uint32_t idx;
	int rc = map_find(c, &c->stat_map, &key, &idx, &slot);

	if (rc)
		return rc;
	if (idx == NONE) {
		if ((rc = grow(c, (void **)&c->stats, &c->cap_stats, c->n_stats + 1, sizeof(*c->stats))))
			return rc;
		memset(&c->stats[c->n_stats], 0, sizeof(*c->stats));
		c->stats[c->n_stats].min = UINT64_MAX;
		idx = (uint32_t)c->n_stats++;
		map_set(&c->stat_map, slot, &key, idx);
	}
	*out = &c->stats[idx];
	return TSR_OK;
}

/* Writes the innermost open span: the chunk, its metadata, its label's
 * statistics, its time to its parent. */
static int pop(sweep *w)
{
	conv *c = w->c;
	sweep_frame *f = &w->stack[--w->depth];
	const cj_span *s = f->s;
	uint64_t dur = (uint64_t)s->end - (uint64_t)s->start;
	tsf_event ev;
	cj_stat *st;
	int rc;

	ev.start_ns = s->start - c->base_ns;
	ev.end_ns = s->end - c->base_ns;
	ev.seq = f->seq;
	ev.parent = w->depth ? w->stack[w->depth - 1].seq : -1;
	ev.name = s->name;
	ev.channel = s->chan;
	ev.depth = (uint32_t)w->depth;
	if ((rc = tsf_chunk_enc_add(&w->enc, &ev)) != 0)
		return rc == -2 ? trace_fail(c->tr, TSR_ERR_NO_MEMORY, "%s: out of memory", c->path)
		                : trace_fail(c->tr, TSR_ERR_CORRUPT, "%s: a span cannot be stored", c->path);
	if (w->depth)
		w->stack[w->depth - 1].kids += dur;
	if ((rc = stat_of(c, &st, s->chan, s->name)))
		return rc;
	st->count++;
	st->total += dur;
	st->self += dur > f->kids ? dur - f->kids : 0;
	if (dur < st->min)
		st->min = dur;
	if (dur > st->max)
		st->max = dur;
	if (s->args_len) {
		sqlite3_reset(w->ins_meta);
		sqlite3_bind_int64(w->ins_meta, 1, w->thread_id);
		sqlite3_bind_int64(w->ins_meta, 2, f->seq);
		sqlite3_bind_text(w->ins_meta, 3, c->args + s->args_off, (int)s->args_len, SQLITE_STATIC);
		if ((rc = sqlite3_step(w->ins_meta)) != SQLITE_DONE)
			return sql_fail(c, rc);
	}
	if (w->enc.count >= CHUNK_EVENTS || w->enc.len >= CHUNK_BYTES)
		return flush_chunk(w);
	return TSR_OK;
}

/* Writes instant `in` with the spans open at its time. */
static int put_instant(sweep *w, const cj_inst *in)
{
	conv *c = w->c;
	int rc;

	sqlite3_reset(w->ins_inst);
	sqlite3_bind_int64(w->ins_inst, 1, w->thread_id);
	sqlite3_bind_int64(w->ins_inst, 2, in->t - c->base_ns);
	sqlite3_bind_int64(w->ins_inst, 3, in->chan);
	sqlite3_bind_int64(w->ins_inst, 4, in->name);
	sqlite3_bind_int64(w->ins_inst, 5, (int64_t)w->depth);
	if (w->depth)
		sqlite3_bind_int64(w->ins_inst, 6, w->stack[w->depth - 1].seq);
	else
		sqlite3_bind_null(w->ins_inst, 6);
	if ((rc = sqlite3_step(w->ins_inst)) != SQLITE_DONE)
		return sql_fail(c, rc);
	return TSR_OK;
}

/* Nests and writes the spans and instants of thread `t` (see the top). */
static int write_thread(conv *c, sweep *w, cj_thread *t)
{
	size_t i, k = 0;
	int rc = TSR_OK;

	if (t->unsorted) {
		/* Two spans with the same start and end: which one holds the
		 * other? A file listing spans as they end (tilescope's export,
		 * tracers that write a span when it closes) has the parent
		 * second; one listing them as they begin has it first. */
		if (!t->unsorted_end)
			for (i = 0; i < t->n; i++)
				t->spans[i].order = UINT32_MAX - t->spans[i].order;
		qsort(t->spans, t->n, sizeof(*t->spans), compare_spans);
	}
	if (t->inst_unsorted)
		qsort(t->inst, t->n_inst, sizeof(*t->inst), compare_instants);
	w->depth = 0;
	w->next_seq = 0;
	tsf_chunk_enc_reset(&w->enc);
	for (i = 0; i <= t->n && rc == TSR_OK; i++) {
		const cj_span *s = i < t->n ? &t->spans[i] : NULL;
		int64_t at = s ? s->start : INT64_MAX;

		/* Instants before this span, with what is open at their time. */
		while (rc == TSR_OK && k < t->n_inst && t->inst[k].t < at) {
			while (rc == TSR_OK && w->depth && w->stack[w->depth - 1].s->end <= t->inst[k].t)
				rc = pop(w);
			if (rc == TSR_OK)
				rc = put_instant(w, &t->inst[k++]);
		}
		if (!s)
			break;
		/* Close what ended, and what this span does not fit in. */
		while (rc == TSR_OK && w->depth &&
		       (w->stack[w->depth - 1].s->end <= s->start || w->stack[w->depth - 1].s->end < s->end))
			rc = pop(w);
		if (rc)
			break;
		if (w->depth >= MAX_DEPTH) {
			c->too_deep++;
			continue;
		}
		w->stack[w->depth].s = s;
		w->stack[w->depth].seq = w->next_seq++;
		w->stack[w->depth].kids = 0;
		w->depth++;
		if ((i & 65535) == 65535 && tsr_progress_poll(&c->tr->progress))
			rc = trace_fail_cancelled(c->tr);
	}
	while (rc == TSR_OK && w->depth)
		rc = pop(w);
	if (rc == TSR_OK)
		rc = flush_chunk(w);
	t->emitted = (uint64_t)w->next_seq;
	return rc;
}

/* Binds a text column, interned string `id`. */
static void bind_str(conv *c, sqlite3_stmt *st, int col, uint32_t id)
{
	sqlite3_bind_text(st, col, str_of(c, id), (int)c->str_len[id], SQLITE_STATIC);
}

static int step_done(conv *c, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? TSR_OK : sql_fail(c, rc);
}

/* "name" of a thread: its thread_name or its tid, with its process's
 * name or pid when the file holds several processes. */
static char *thread_label(conv *c, const cj_thread *t)
{
	char *s = NULL, tid[32], pid[32];
	const cj_process *pr = &c->procs[t->process];

	snprintf(tid, sizeof(tid), "%" PRId64, t->tid.v);
	snprintf(pid, sizeof(pid), "pid %" PRId64, t->pid.v);
	const char *tn = t->name != NONE ? str_of(c, t->name)
	                 : t->tid.str    ? str_of(c, (uint32_t)t->tid.v)
	                                 : NULL;
	const char *pn = pr->name != NONE ? str_of(c, pr->name)
	                 : t->pid.str           ? str_of(c, (uint32_t)t->pid.v)
	                                        : pid;
	int n;

	if (c->n_procs > 1)
		n = tn ? asprintf(&s, "%s: %s", pn, tn) : asprintf(&s, "%s: tid %s", pn, tid);
	else
		n = tn ? asprintf(&s, "%s", tn) : asprintf(&s, "tid %s", tid);
	return n < 0 ? NULL : s;
}

/* The JSON object of the skipped phases' counts. */
static char *skipped_json(const conv *c)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	bool first = true;

	if (!f)
		return NULL;
	fputc('{', f);
	for (int i = 0; i < 128; i++) {
		if (!c->skipped[i])
			continue;
		if (i == 0 || i == '"' || i == '\\' || i < 0x20)
			fprintf(f, "%s\"other\":%" PRIu64, first ? "" : ",", c->skipped[i]);
		else
			fprintf(f, "%s\"%c\":%" PRIu64, first ? "" : ",", i, c->skipped[i]);
		first = false;
	}
	fputc('}', f);
	fclose(f);
	return s;
}

/* Everything the parse kept, as the .pvti tables. */
static int write_tables(conv *c)
{
	sqlite3_stmt *st = NULL;
	sweep w;
	size_t i;
	int rc;
	const char *base = strrchr(c->path, '/');
	int64_t pid = 0;
	uint32_t pname = NONE;

	memset(&w, 0, sizeof(w));
	w.c = c;
	tsf_chunk_enc_reset(&w.enc);
	if (!c->any_time)
		c->min_ns = 0;
	/* Times start at 0 on the file's axis, unless the file says where its
	 * 0 lies in wall time (the export's origin_wall_ns) and none is
	 * before it: a round trip then keeps the trace's own times. */
	c->base_ns = c->have_origin && c->min_ns >= 0 ? 0 : c->min_ns;
	for (i = 0; i < c->n_threads; i++) {
		cj_thread *t = c->threads[i];

		c->unclosed_begins += t->n_open + t->open_past;
		/* Every time minus the earliest must fit (spans cover < 2^63 ns). */
		for (size_t k = 0; k < t->n_inst; k++)
			if ((uint64_t)t->inst[k].t - (uint64_t)c->base_ns > (uint64_t)INT64_MAX)
				return trace_fail(c->tr, TSR_ERR_CORRUPT,
				                  "%s: not a valid Chrome trace: its times span more than "
				                  "292 years",
				                  c->path);
		for (size_t k = 0; k < t->n; k++)
			if ((uint64_t)t->spans[k].end - (uint64_t)c->base_ns > (uint64_t)INT64_MAX)
				return trace_fail(c->tr, TSR_ERR_CORRUPT,
				                  "%s: not a valid Chrome trace: its times span more than "
				                  "292 years",
				                  c->path);
	}
	if ((rc = sqlite3_prepare_v2(c->db,
	                             "INSERT INTO event_chunk(thread, first_ns, last_ns, count, data) "
	                             "VALUES (?, ?, ?, ?, ?)",
	                             -1, &w.ins_chunk, NULL)) ||
	    (rc = sqlite3_prepare_v2(c->db,
	                             "INSERT OR REPLACE INTO event_metadata(thread, seq, json) "
	                             "VALUES (?, ?, ?)",
	                             -1, &w.ins_meta, NULL)) ||
	    (rc = sqlite3_prepare_v2(c->db,
	                             "INSERT INTO instant(thread, t_ns, channel, name, depth, parent) "
	                             "VALUES (?, ?, ?, ?, ?, ?)",
	                             -1, &w.ins_inst, NULL))) {
		rc = sql_fail(c, rc);
		goto cleanup;
	}
	for (i = 0; i < c->n_threads && rc == TSR_OK; i++) {
		w.thread_id = (int64_t)i + 1;
		rc = write_thread(c, &w, c->threads[i]);
	}
	if (rc)
		goto cleanup;
	/* Samples were written with the file's times. */
	if (c->counters) {
		char sql[96];

		snprintf(sql, sizeof(sql), "UPDATE sample SET t_ns = t_ns - (%" PRId64 ")", c->base_ns);
		if ((rc = exec(c, sql)))
			goto cleanup;
	}
	/* Names. */
	if ((rc = sqlite3_prepare_v2(c->db, "INSERT INTO string(id, value) VALUES (?, ?)", -1, &st,
	                             NULL))) {
		rc = sql_fail(c, rc);
		goto cleanup;
	}
	for (i = 0; i < c->n_str && rc == TSR_OK; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)i);
		bind_str(c, st, 2, (uint32_t)i);
		rc = step_done(c, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto cleanup;
	if ((rc = sqlite3_prepare_v2(c->db, "INSERT INTO channel(id, name, enabled) VALUES (?, ?, 1)",
	                             -1, &st, NULL))) {
		rc = sql_fail(c, rc);
		goto cleanup;
	}
	for (i = 0; i < c->n_chan && rc == TSR_OK; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)i);
		bind_str(c, st, 2, c->chan_name[i]);
		rc = step_done(c, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto cleanup;
	/* Threads. */
	if ((rc = sqlite3_prepare_v2(c->db, "INSERT INTO thread(id, tid, name, events) VALUES (?, ?, ?, ?)",
	                             -1, &st, NULL))) {
		rc = sql_fail(c, rc);
		goto cleanup;
	}
	for (i = 0; i < c->n_threads && rc == TSR_OK; i++) {
		const cj_thread *t = c->threads[i];
		char *label = thread_label(c, t);

		if (!label) {
			rc = trace_fail(c->tr, TSR_ERR_NO_MEMORY, "out of memory");
			break;
		}
		sqlite3_bind_int64(st, 1, (int64_t)i + 1);
		sqlite3_bind_int64(st, 2, t->tid.str ? 0 : t->tid.v);
		sqlite3_bind_text(st, 3, label, -1, free);
		sqlite3_bind_int64(st, 4, (int64_t)t->emitted);
		rc = step_done(c, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto cleanup;
	/* Label statistics. */
	if ((rc = sqlite3_prepare_v2(c->db,
	                             "INSERT INTO label_stats(channel, name, count, total_ns, self_ns, "
	                             "min_ns, max_ns) VALUES (?, ?, ?, ?, ?, ?, ?)",
	                             -1, &st, NULL))) {
		rc = sql_fail(c, rc);
		goto cleanup;
	}
	for (i = 0; i < c->stat_map.cap && rc == TSR_OK; i++) {
		const cj_slot *s = &c->stat_map.slots[i];
		const cj_stat *x;

		if (!s->idx)
			continue;
		x = &c->stats[s->idx - 1];
		sqlite3_bind_int64(st, 1, s->a);
		sqlite3_bind_int64(st, 2, s->b);
		sqlite3_bind_int64(st, 3, (int64_t)x->count);
		sqlite3_bind_int64(st, 4, x->total > INT64_MAX ? INT64_MAX : (int64_t)x->total);
		sqlite3_bind_int64(st, 5, x->self > INT64_MAX ? INT64_MAX : (int64_t)x->self);
		sqlite3_bind_int64(st, 6, (int64_t)x->min);
		sqlite3_bind_int64(st, 7, (int64_t)x->max);
		rc = step_done(c, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto cleanup;
	/* The process: the first pid's, named after it or the file. */
	if (c->n_procs) {
		pid = c->procs[0].pid.str ? 0 : c->procs[0].pid.v;
		pname = c->procs[0].name;
	}
	if ((rc = sqlite3_prepare_v2(c->db,
	                             "INSERT INTO process(pid, host, name, command_line, start_wall_ns, "
	                             "start_mono_ns, clock, ticks_per_s) "
	                             "VALUES (?, 'unknown', ?, NULL, ?, 0, 'monotonic', NULL)",
	                             -1, &st, NULL))) {
		rc = sql_fail(c, rc);
		goto cleanup;
	}
	{
		/* Wall time of the earliest event: the export's origin plus it;
		 * else the times themselves when they read as microseconds since
		 * 1970 within 2000 .. 2100 (PyTorch's); else 0. */
		int64_t wall = 0;

		if (c->have_origin && c->origin_wall_ns <= INT64_MAX - (c->base_ns > 0 ? c->base_ns : 0))
			wall = c->origin_wall_ns + c->base_ns;
		else if (c->min_ns >= 946684800ll * 1000000000ll && c->min_ns < 4102444800ll * 1000000000ll)
			wall = c->min_ns;
		if (wall < 0)
			wall = 0;
		sqlite3_bind_int64(st, 1, pid);
		if (pname != NONE)
			bind_str(c, st, 2, pname);
		else
			sqlite3_bind_text(st, 2, base ? base + 1 : c->path, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, wall);
		rc = step_done(c, st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto cleanup;
	/* What the import met. */
	{
		char *skipped = skipped_json(c);
		char sql[1024];

		snprintf(sql, sizeof(sql),
		         "INSERT INTO trace_metadata(key, value) VALUES ('pvti.complete', 'true'), "
		         "('chrome.form', '\"%s\"'), ('chrome.events', '%" PRIu64 "'), "
		         "('pvti.unbalanced_ends', '%" PRIu64 "'), ('pvti.unclosed_begins', '%" PRIu64 "'), "
		         "('pvti.too_deep', '%" PRIu64 "'), ('chrome.bad_times', '%" PRIu64 "'), "
		         "('chrome.args_dropped', '%" PRIu64 "')",
		         c->object_form ? "object" : "array", c->events, c->unbalanced_ends,
		         c->unclosed_begins, c->too_deep, c->bad_times, c->args_dropped);
		rc = exec(c, sql);
		if (rc == TSR_OK && skipped && strlen(skipped) > 2) {
			if ((rc = sqlite3_prepare_v2(c->db,
			                             "INSERT INTO trace_metadata(key, value) "
			                             "VALUES ('chrome.skipped_phases', ?)",
			                             -1, &st, NULL)) == SQLITE_OK) {
				sqlite3_bind_text(st, 1, skipped, -1, SQLITE_STATIC);
				rc = step_done(c, st);
			} else {
				rc = sql_fail(c, rc);
			}
		}
		free(skipped);
	}
cleanup:
	sqlite3_finalize(st);
	sqlite3_finalize(w.ins_chunk);
	sqlite3_finalize(w.ins_meta);
	sqlite3_finalize(w.ins_inst);
	tsf_chunk_enc_clear(&w.enc);
	return rc;
}

/* --- Entry points ------------------------------------------------------------------ */

bool trace_chrome_sniff(const char *path)
{
	unsigned char buf[512];
	ssize_t got;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat sb;

	if (fd < 0)
		return false;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return false;
	}
	got = read(fd, buf, sizeof(buf));
	close(fd);
	/* A UTF-8 byte order mark is not JSON, but editors write one. */
	for (ssize_t i = got >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf ? 3 : 0;
	     i < got; i++) {
		if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')
			continue;
		return buf[i] == '[' || buf[i] == '{';
	}
	return false;
}

/* Frees what the conversion held. */
static void conv_clear(conv *c)
{
	for (size_t i = 0; i < c->n_threads; i++) {
		cj_thread *t = c->threads[i];

		trace_free_mem(c->tr, t->spans, t->cap * sizeof(*t->spans));
		trace_free_mem(c->tr, t->inst, t->cap_inst * sizeof(*t->inst));
		trace_free_mem(c->tr, t->open, t->cap_open * sizeof(*t->open));
		trace_free_mem(c->tr, t, sizeof(*t));
	}
	trace_free_mem(c->tr, c->threads, c->cap_threads * sizeof(*c->threads));
	trace_free_mem(c->tr, c->procs, c->cap_procs * sizeof(*c->procs));
	trace_free_mem(c->tr, c->map.slots, c->map.cap * sizeof(cj_slot));
	trace_free_mem(c->tr, c->stat_map.slots, c->stat_map.cap * sizeof(cj_slot));
	trace_free_mem(c->tr, c->stats, c->cap_stats * sizeof(*c->stats));
	trace_free_mem(c->tr, c->pool, c->pool_cap);
	trace_free_mem(c->tr, c->str_off, c->cap_str * sizeof(uint64_t));
	trace_free_mem(c->tr, c->str_len, c->cap_chan_of * sizeof(uint32_t));
	trace_free_mem(c->tr, c->chan_of_str, c->cap_chan_of * sizeof(uint32_t));
	trace_free_mem(c->tr, c->str_slots, c->str_slot_cap * sizeof(uint32_t));
	trace_free_mem(c->tr, c->chan_name, c->cap_chan * sizeof(uint32_t));
	trace_free_mem(c->tr, c->args, c->args_cap);
	cj_buf_clear(&c->key);
	cj_buf_clear(&c->ph);
	cj_buf_clear(&c->name);
	cj_buf_clear(&c->cat);
	cj_buf_clear(&c->sval);
	cj_buf_clear(&c->argbuf);
	sqlite3_finalize(c->ins_sample);
	cj_lex_clear(&c->lx);
}

int trace_chrome_import(tsr_trace *tr, size_t p, sqlite3 **db)
{
	conv c;
	struct stat sb;
	int fd, rc, ch;
	const char *path = tr->processes[p].path;

	*db = NULL;
	memset(&c, 0, sizeof(c));
	c.tr = tr;
	c.path = path;
	c.key.max = MAX_KEY;
	c.ph.max = 8;
	c.name.max = TSF_MAX_NAME_BYTES;
	c.cat.max = TSF_MAX_NAME_BYTES;
	c.sval.max = TSF_MAX_NAME_BYTES;
	c.argbuf.max = MAX_ARGS;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return trace_fail(tr, errno == ENOENT ? TSR_ERR_NOT_FOUND : TSR_ERR_IO, "%s: %s", path,
		                  strerror(errno));
	if (fstat(fd, &sb) == 0)
		c.file_size = (uint64_t)sb.st_size;
	if (cj_lex_init_fd(&c.lx, fd)) {
		close(fd);
		return trace_fail(tr, TSR_ERR_NO_MEMORY, "%s: out of memory", path);
	}
	rc = sqlite3_open_v2(":memory:", &c.db,
	                     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX |
	                         SQLITE_OPEN_PRIVATECACHE,
	                     NULL);
	if (rc != SQLITE_OK) {
		rc = trace_fail(tr, TSR_ERR_NO_MEMORY, "%s: cannot make a database in memory", path);
		goto cleanup;
	}
	if ((rc = exec(&c, "PRAGMA journal_mode = OFF")) || (rc = exec(&c, "BEGIN")) ||
	    (rc = exec(&c, tsf_pvti_schema_sql)))
		goto cleanup;
	if ((rc = sqlite3_prepare_v2(c.db, "INSERT INTO sample(series, t_ns, thread, value) "
	                                   "VALUES (?, ?, 0, ?)",
	                             -1, &c.ins_sample, NULL))) {
		rc = sql_fail(&c, rc);
		goto cleanup;
	}
	cj_skip_bom(&c.lx);
	ch = cj_peek(&c.lx);
	if (ch == '[')
		rc = read_events(&c, true);
	else if (ch == '{')
		rc = read_object(&c);
	else
		rc = bad(&c, "neither an array nor an object of trace events");
	if (rc)
		goto cleanup;
	if (cj_peek(&c.lx) >= 0) {
		rc = bad(&c, "more after the end of the trace");
		goto cleanup;
	}
	if (c.lx.failed) {
		rc = lex_failed(&c);
		goto cleanup;
	}
	if ((rc = write_tables(&c)) || (rc = exec(&c, "COMMIT")) || (rc = check_db_size(&c)))
		goto cleanup;
	{
		/* The database stays with the handle: its memory is charged for
		 * as long as the handle lives. */
		int cur = 0, hi = 0;

		sqlite3_db_status(c.db, SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0);
		tr->memory_used += (uint64_t)cur;
	}
	*db = c.db;
	c.db = NULL;
cleanup:
	conv_clear(&c);
	close(fd);
	if (c.db)
		sqlite3_close_v2(c.db);
	return rc;
}
