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
 * memory, its size charged to the handle's memory cap; nothing is written
 * to disk. tsr_trace_open keeps it as an image (trace-image.c) that a
 * second handle over the file (tsr_trace_reopen) shares instead of
 * parsing the file again.
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
 * This file reads the JSON and keeps what it holds per thread;
 * trace-chrome-write.c nests the spans and writes the tables.
 *
 * Memory: the spans are kept (about 40 bytes each, counted against the
 * handle's cap) until the end of the file, because a JSON trace is not
 * ordered by end time as chunks must be. A hostile file cannot make the
 * tokenizer hold more than one block, a name and one event's arguments.
 */
#define _GNU_SOURCE 1

#include <tilescope/alloc.h>
#include "trace-chrome-private.h"

#include "event-chunk.h"
#include "format.h"

#include <tilescope/hashmap.h>
#include <tilescope/numfmt.h>

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Past one member of an object: true when a ',' says another follows;
 * false when '}' closed it (*rc TSR_OK) or anything else stands there
 * (*rc the error; `ends`, when not NULL, is its message if the file ends
 * there). */
static bool more_members(conv *c, const char *ends, int *rc)
{
	int ch = cj_peek(&c->lx);

	*rc = TSR_OK;
	if (ch == ',' || ch == '}') {
		cj_take(&c->lx);
		return ch == ',';
	}
	*rc = bad(c, ch < 0 && ends ? ends : "',' or '}' was expected");
	return false;
}

/* A member's key, whole, and its ':' (into c->key). */
static int read_key(conv *c)
{
	if (cj_string(&c->lx, &c->key) || cj_buf_end(&c->key) ||
	    cj_expect(&c->lx, ':', "':' was expected"))
		return lex_failed(c);
	return TSR_OK;
}

/* An allocation that failed (trace_alloc recorded "reading the trace
 * would pass the memory cap ..." or "out of memory ..."), as an error
 * naming the file: among several files, the one too large to import. */
static int alloc_failed(conv *c)
{
	char msg[sizeof(c->tr->error)];

	snprintf(msg, sizeof(msg), "%s", c->tr->error);
	return trace_fail(c->tr, c->tr->code ? c->tr->code : TSR_ERR_NO_MEMORY, "%s: %s", c->path,
	                  msg);
}

/* Grows an array held by the conversion (counted against the cap). */
int trace_chrome_grow(conv *c, void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return TSR_OK;
	while (n < need)
		n *= 2;
	q = trace_realloc(c->tr, *p, *cap, n, size);
	if (!q)
		return alloc_failed(c);
	*p = q;
	*cap = n;
	return TSR_OK;
}

int trace_chrome_sql_fail(conv *c, int rc)
{
	const char *msg = c->db && (sqlite3_errcode(c->db) & 0xff) == (rc & 0xff)
	                          ? sqlite3_errmsg(c->db)
	                          : sqlite3_errstr(rc);

	return trace_fail(c->tr, (rc & 0xff) == SQLITE_NOMEM ? TSR_ERR_NO_MEMORY : TSR_ERR_IO,
	                  "%s: building the trace in memory: %s", c->path, msg);
}

/* Whether the database in memory still fits beside the handle's other
 * memory. */
int trace_chrome_check_db_size(conv *c)
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

/* Strings are hashed by base's FNV-1a (tsb_hash_bytes); the table stays
 * here, as its keys are slices of a pool that moves as it grows. */
/* The id of string s[0..n), interned when new. */
static int intern(conv *c, uint32_t *out, const char *s, size_t n)
{
	size_t mask, i;
	int rc;

	if ((c->n_str + 1) * 2 > c->str_slot_cap) {
		size_t cap = c->str_slot_cap ? c->str_slot_cap * 2 : 1024;
		uint32_t *slots = trace_alloc(c->tr, cap, sizeof(*slots));

		if (!slots)
			return alloc_failed(c);
		for (size_t k = 0; k < c->n_str; k++) {
			i = tsb_hash_bytes(c->pool + c->str_off[k], c->str_len[k]) & (cap - 1);
			while (slots[i])
				i = (i + 1) & (cap - 1);
			slots[i] = (uint32_t)k + 1;
		}
		trace_free_mem(c->tr, c->str_slots, c->str_slot_cap * sizeof(*slots));
		c->str_slots = slots;
		c->str_slot_cap = cap;
	}
	mask = c->str_slot_cap - 1;
	for (i = tsb_hash_bytes(s, n) & mask; c->str_slots[i]; i = (i + 1) & mask) {
		uint32_t k = c->str_slots[i] - 1;

		if (c->str_len[k] == n && memcmp(c->pool + c->str_off[k], s, n) == 0) {
			*out = k;
			return TSR_OK;
		}
	}
	if (c->n_str >= UINT32_MAX - 1)
		return trace_fail(c->tr, TSR_ERR_TOO_LARGE, "%s: too many names", c->path);
	if ((rc = trace_chrome_grow(c, (void **)&c->pool, &c->pool_cap, c->pool_len + n + 1, 1)) ||
	    (rc = trace_chrome_grow(c, (void **)&c->str_off, &c->cap_str, c->n_str + 1, sizeof(uint64_t))))
		return rc;
	if (c->cap_str > c->cap_chan_of) {
		size_t old = c->cap_chan_of;
		uint32_t *len = trace_realloc(c->tr, c->str_len, old, c->cap_str, sizeof(*len));
		uint32_t *ch;

		if (!len)
			return alloc_failed(c);
		c->str_len = len;
		ch = trace_realloc(c->tr, c->chan_of_str, old, c->cap_str, sizeof(*ch));
		if (!ch)
			return alloc_failed(c);
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

const char *trace_chrome_str(const conv *c, uint32_t id)
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
	if ((rc = trace_chrome_grow(c, (void **)&c->chan_name, &c->cap_chan, c->n_chan + 1, sizeof(uint32_t))))
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
int trace_chrome_map_find(conv *c, cj_map *m, const cj_slot *key, uint32_t *idx, cj_slot **slot)
{
	size_t mask, i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		cj_slot *s = trace_alloc(c->tr, cap, sizeof(*s));

		if (!s)
			return alloc_failed(c);
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

void trace_chrome_map_set(cj_map *m, cj_slot *slot, const cj_slot *key, uint32_t idx)
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
	int rc = trace_chrome_map_find(c, &c->map, &key, &idx, &slot);

	if (rc)
		return rc;
	if (idx == NONE) {
		if ((rc = trace_chrome_grow(c, (void **)&c->procs, &c->cap_procs, c->n_procs + 1, sizeof(*c->procs))))
			return rc;
		c->procs[c->n_procs].pid = pid;
		c->procs[c->n_procs].name = NONE;
		idx = (uint32_t)c->n_procs++;
		trace_chrome_map_set(&c->map, slot, &key, idx);
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
	if ((rc = trace_chrome_map_find(c, &c->map, &key, &idx, &slot)))
		return rc;
	if (idx == NONE) {
		if ((rc = process_of(c, &p, pid)))
			return rc;
		/* process_of may have grown the map: look again for the slot. */
		if ((rc = trace_chrome_map_find(c, &c->map, &key, &idx, &slot)) ||
		    (rc = trace_chrome_grow(c, (void **)&c->threads, &c->cap_threads, c->n_threads + 1,
		               sizeof(*c->threads))))
			return rc;
		t = trace_alloc(c->tr, 1, sizeof(*t));
		if (!t)
			return alloc_failed(c);
		t->pid = pid;
		t->tid = tid;
		t->process = p;
		t->name = NONE;
		c->threads[c->n_threads] = t;
		idx = (uint32_t)c->n_threads++;
		trace_chrome_map_set(&c->map, slot, &key, idx);
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
	if ((rc = trace_chrome_grow(c, (void **)&c->args, &c->args_cap, c->args_len + c->argbuf.len, 1)))
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
	    (rc = trace_chrome_grow(c, (void **)&t->spans, &t->cap, t->n + 1, sizeof(*t->spans))))
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

/* The id of the graph or series `k` stands for, its row inserted the
 * first time it is met: `sql` inserts :id, :name (the interned string
 * `name`) and, for a series, :graph (`graph`). `*n` counts the rows so far
 * (the last id). Graphs and series are few, so the statement is not kept. */
static int counter_row(conv *c, uint32_t *out, int64_t *n, const cj_slot *k, const char *sql,
                       uint32_t graph, uint32_t name)
{
	sqlite3_stmt *st = NULL;
	cj_slot *slot;
	int rc, at;

	if ((rc = trace_chrome_map_find(c, &c->map, k, out, &slot)) || *out != NONE)
		return rc;
	*out = (uint32_t)++*n;
	trace_chrome_map_set(&c->map, slot, k, *out);
	rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":id"), *out);
		if ((at = sqlite3_bind_parameter_index(st, ":graph")))
			sqlite3_bind_int64(st, at, graph);
		sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":name"),
		                  trace_chrome_str(c, name), -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? TSR_OK : trace_chrome_sql_fail(c, rc);
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
		cj_slot k;
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
			if ((rc = counter_row(c, &graph, &c->n_graphs, &k,
			                       "INSERT INTO graph(id, name, unit) VALUES (:id, :name, '')",
			                       0, name)))
				break;
			k = make_key(KEY_SERIES, e->pid, none, (int64_t)name << 32 | key);
			if ((rc = counter_row(c, &series, &c->n_series, &k,
			                       "INSERT INTO series(id, graph, name) VALUES (:id, :graph, :name)",
			                       graph, key)))
				break;
			sqlite3_reset(c->ins_sample);
			sqlite3_bind_int64(c->ins_sample, 1, series);
			sqlite3_bind_int64(c->ins_sample, 2, e->ts);
			sqlite3_bind_double(c->ins_sample, 3, cj_num_double(&num));
			if ((rc = sqlite3_step(c->ins_sample)) != SQLITE_DONE) {
				rc = trace_chrome_sql_fail(c, rc);
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
		    (rc = trace_chrome_grow(c, (void **)&t->open, &t->cap_open, t->n_open + 1, sizeof(*t->open))))
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
		    (rc = trace_chrome_grow(c, (void **)&t->inst, &t->cap_inst, t->n_inst + 1, sizeof(*t->inst))))
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
		if (more_members(c, "the file ends inside an event", &rc))
			continue;
		if (rc)
			return rc;
		break;
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
			if ((rc = trace_chrome_check_db_size(c)))
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
	int ch = cj_peek(&c->lx), rc;

	if (ch != '{')
		return cj_skip(&c->lx, NULL) ? lex_failed(c) : TSR_OK;
	cj_take(&c->lx);
	if (cj_peek(&c->lx) == '}') {
		cj_take(&c->lx);
		return TSR_OK;
	}
	for (;;) {
		if ((rc = read_key(c)))
			return rc;
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
		if (!more_members(c, NULL, &rc))
			return rc;
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
		if ((rc = read_key(c)))
			return rc;
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
		if (more_members(c, "the file ends inside the top object", &rc))
			continue;
		if (rc)
			return rc;
		break;
	}
	if (!events)
		return bad(c, "the object has no \"traceEvents\" array");
	return TSR_OK;
}

/* Runs SQL on the database being built. */
int trace_chrome_exec(conv *c, const char *sql)
{
	int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? TSR_OK : trace_chrome_sql_fail(c, rc);
}

/* --- Entry points ------------------------------------------------------------------ */

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
	if ((rc = trace_chrome_exec(&c, "PRAGMA journal_mode = OFF")) || (rc = trace_chrome_exec(&c, "BEGIN")) ||
	    (rc = trace_chrome_exec(&c, tsf_pvti_schema_sql)))
		goto cleanup;
	if ((rc = sqlite3_prepare_v2(c.db, "INSERT INTO sample(series, t_ns, thread, value) "
	                                   "VALUES (?, ?, 0, ?)",
	                             -1, &c.ins_sample, NULL))) {
		rc = trace_chrome_sql_fail(&c, rc);
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
	if ((rc = trace_chrome_write_tables(&c)) || (rc = trace_chrome_exec(&c, "COMMIT")) || (rc = trace_chrome_check_db_size(&c)))
		goto cleanup;
	/* The caller keeps the database as an image (trace-image.c), whose
	 * size it charges to the handle. */
	*db = c.db;
	c.db = NULL;
cleanup:
	conv_clear(&c);
	close(fd);
	if (c.db)
		sqlite3_close_v2(c.db);
	return rc;
}

/* --- What an import skipped (tsr_trace_list_skipped) ------------------------------- */

/* The kinds in the order they are listed, each with the trace_metadata
 * key that trace_chrome_write_tables fills and the rest of its line. */
static const struct {
	tsr_trace_skip_kind kind;
	const char *key;
	const char *what;          /* after "N event(s) " */
} skip_kinds[] = {
	{TSR_TRACE_SKIP_TOO_DEEP, "pvti.too_deep", "skipped: nested past 250 levels"},
	{TSR_TRACE_SKIP_UNCLOSED, "pvti.unclosed_begins", "skipped: begun (B) and never ended"},
	{TSR_TRACE_SKIP_UNMATCHED_END, "pvti.unbalanced_ends",
	 "skipped: ended (E) with nothing begun"},
	{TSR_TRACE_SKIP_BAD_TIME, "chrome.bad_times",
	 "skipped: a negative duration, or an end before the begin"},
	{TSR_TRACE_SKIP_PHASE, "chrome.skipped_phases", "skipped: phases not read"},
	{TSR_TRACE_SKIP_ARGS, "chrome.args_dropped", "kept without their arguments: over 1 MiB"},
};
#define N_SKIP_KINDS (sizeof(skip_kinds) / sizeof(skip_kinds[0]))

_Static_assert(MAX_DEPTH == 250, "the message of TSR_TRACE_SKIP_TOO_DEEP says 250");

/* A count as the import wrote it (decimal digits); 0 for anything else. */
static uint64_t skip_count(const char *value)
{
	uint64_t v = 0;

	if (!value)
		return 0;
	for (const char *p = value; *p; p++) {
		if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	return v;
}

/*
 * The skipped phases ({"b":3,"other":1}, by phase letter) as a total in
 * *count and their letters in `letters` ("b, s, others"). Anything that is
 * not such an object counts as nothing.
 */
static void skip_phases(const char *value, uint64_t *count, char *letters, size_t size)
{
	cJSON *o = value ? cJSON_Parse(value) : NULL;
	const cJSON *item;
	size_t len = 0;
	bool others = false;

	*count = 0;
	letters[0] = '\0';
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		return;
	}
	cJSON_ArrayForEach(item, o)
	{
		double d = cJSON_IsNumber(item) ? item->valuedouble : 0;
		const char *k = item->string;

		if (!(d >= 1 && d < 1e18))
			continue;
		*count = *count + (uint64_t)d;
		if (k && k[0] > ' ' && k[0] < 0x7f && !k[1] && len + 4 < size)
			len += (size_t)snprintf(letters + len, size - len, "%s%c", len ? ", " : "", k[0]);
		else
			others = true;
	}
	if (others && len + 9 < size)
		snprintf(letters + len, size - len, "%sothers", len ? ", " : "");
	cJSON_Delete(o);
}

int tsr_trace_list_skipped(tsr_trace_skip **out, size_t *n, tsr_trace *trace)
{
	/* Each entry's line, made twice: sized, then written after the array. */
	size_t count = 0, text = 0;
	tsr_trace_skip *list = NULL;
	char *at = NULL;

	if (out)
		*out = NULL;
	if (n)
		*n = 0;
	if (!out || !n || !trace)
		return trace ? trace_fail(trace, TSR_ERR_INVALID_ARGUMENT,
		                          "tsr_trace_list_skipped: a NULL argument")
		             : TSR_ERR_INVALID_ARGUMENT;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (!count)
				return TSR_OK;
			list = tsb_malloc(count * sizeof(*list) + text);
			if (!list)
				return trace_fail(trace, TSR_ERR_NO_MEMORY, "out of memory");
			at = (char *)(list + count);
			count = 0;
		}
		for (size_t p = 0; p < trace->n_processes; p++) {
			if (!trace->files[p].json)
				continue;
			for (size_t k = 0; k < N_SKIP_KINDS; k++) {
				const char *value = tsr_trace_lookup_metadata(trace, p, skip_kinds[k].key);
				char letters[96] = "", num[32], line[256];
				uint64_t c;
				int len;

				if (skip_kinds[k].kind == TSR_TRACE_SKIP_PHASE)
					skip_phases(value, &c, letters, sizeof(letters));
				else
					c = skip_count(value);
				if (!c)
					continue;
				tsb_format_u64(num, sizeof(num), c); /* as the CLI prints counts */
				len = snprintf(line, sizeof(line), "%s event%s %s%s%s%s", num, c == 1 ? "" : "s",
				               skip_kinds[k].what, letters[0] ? " (" : "", letters,
				               letters[0] ? ")" : "");
				if (len < 0)
					len = 0;
				if ((size_t)len >= sizeof(line))
					len = (int)sizeof(line) - 1;
				if (pass == 0) {
					text += (size_t)len + 1;
				} else {
					memcpy(at, line, (size_t)len);
					at[len] = '\0';
					list[count].process = p;
					list[count].kind = skip_kinds[k].kind;
					list[count].count = c;
					list[count].message = at;
					at += len + 1;
				}
				count++;
			}
		}
	}
	*out = list;
	*n = count;
	return TSR_OK;
}
