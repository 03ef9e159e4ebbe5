/*
 * The .pvti file and the thread that writes it. PVTI_PASS_NS after
 * something was published (and on pvti_flush) the writer drains each
 * tracing thread's blocks, packs spans into chunks (pvti-chunk.c), writes
 * instants, samples, metadata and any new names, and commits it all as
 * one transaction; with nothing published it sleeps (writer_main). A
 * process killed at any moment therefore leaves every committed pass
 * readable.
 *
 * Journal: WAL. A rollback journal left hot by a crash makes a read-only
 * open fail ("attempt to write a readonly database") until a writer rolls
 * it back; a WAL left behind is read by a read-only connection as it is.
 * Commits do not fsync (synchronous=NORMAL): a crashed process loses
 * nothing the OS has, and only a power cut could lose the last passes.
 * On a clean close the WAL is checkpointed and the file returns to
 * rollback mode, so the closed trace is one self-contained file.
 *
 * At close the writer adds the summary tables: statistics per (channel,
 * name), accumulated while encoding (self time from the children's time
 * per depth, which works because spans arrive in the order they end),
 * and the timeline level of detail, computed by decoding the chunks once
 * the trace's length is known.
 */
#define _GNU_SOURCE 1 /* program_invocation_short_name, pthread_setname_np */

#include <tilescope/alloc.h>
#include "pvti-private.h"

#include "format.h"
#include "heatmap-edges.h"
#include "timeline-lod.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Time between writer passes: half the promised flush interval, so a pass
 * that runs late still keeps the promise. */
#define PVTI_PASS_NS 50000000ull
/* A chunk is cut at this many events or bytes (and at every pass). */
#define CHUNK_MAX_EVENTS 65536u
#define CHUNK_MAX_BYTES (512u << 10)
/* Timeline level of detail: the most buckets at level 0, the least
 * bucket width, and the factor between levels. */
#define LOD_MAX_BUCKETS 4096u
#define LOD_MIN_WIDTH_NS 1024u
#define LOD_FACTOR 16u

enum {
	ST_CHUNK,
	ST_INSTANT,
	ST_SAMPLE,
	ST_STRING,
	ST_THREAD,
	ST_CHANNEL,
	ST_GRAPH,
	ST_SERIES,
	ST_HEATMAP,
	ST_HEATMAP_SAMPLE,
	ST_EVENT_META,
	ST_TRACE_META,
	ST_COUNT
};

static const char *const statement_sql[ST_COUNT] = {
	[ST_CHUNK] = "INSERT INTO event_chunk(thread, first_ns, last_ns, count, data) "
	             "VALUES (?, ?, ?, ?, ?)",
	[ST_INSTANT] = "INSERT INTO instant(thread, t_ns, channel, name, depth, parent) "
	               "VALUES (?, ?, ?, ?, ?, ?)",
	[ST_SAMPLE] = "INSERT INTO sample(series, t_ns, thread, value) VALUES (?, ?, ?, ?)",
	[ST_STRING] = "INSERT OR REPLACE INTO string(id, value) VALUES (?, ?)",
	[ST_THREAD] = "INSERT INTO thread(id, tid, name) VALUES (?, ?, ?) "
	              "ON CONFLICT(id) DO UPDATE SET name = excluded.name",
	[ST_CHANNEL] = "INSERT INTO channel(id, name, enabled) VALUES (?, ?, ?) "
	               "ON CONFLICT(id) DO UPDATE SET enabled = excluded.enabled",
	[ST_GRAPH] = "INSERT OR REPLACE INTO graph(id, name, unit) VALUES (?, ?, ?)",
	[ST_SERIES] = "INSERT OR REPLACE INTO series(id, graph, name) VALUES (?, ?, ?)",
	[ST_HEATMAP] = "INSERT OR REPLACE INTO heatmap(id, name, unit, edges) VALUES (?, ?, ?, ?)",
	[ST_HEATMAP_SAMPLE] = "INSERT INTO heatmap_sample(heatmap, t_ns, bucket, count) "
	                      "VALUES (?, ?, ?, ?)",
	[ST_EVENT_META] = "INSERT OR REPLACE INTO event_metadata(thread, seq, json) VALUES (?, ?, ?)",
	[ST_TRACE_META] = "INSERT OR REPLACE INTO trace_metadata(key, value) VALUES (?, ?)",
};

/* The writer's state for one thread in one trace. */
typedef struct wthread {
	tsf_chunk_enc enc;                      /* the chunk being built */
	uint64_t child_ns[PVTI_MAX_DEPTH + 2];   /* time of ended children, by depth */
	uint64_t events;                         /* spans written */
	uint32_t name_version;                   /* of the name last written; 0: no row */
} wthread;

/* Statistics of one (channel, name). */
typedef struct stat_entry {
	uint64_t key; /* (channel << 32 | name) + 1; 0: empty slot */
	uint64_t count, total_ns, self_ns, min_ns, max_ns;
} stat_entry;

struct pvti_trace {
	char *path;
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	pvti_clock clock;
	uint32_t gen;         /* the trace generation whose threads count here */
	int64_t deadline_ns;  /* recording stops here (since the origin); INT64_MAX: never */
	bool stopped;         /* the deadline passed */

	pthread_t thread;
	bool thread_started;
	bool opened;          /* from pvti_trace_new's return to pvti_trace_finish's
	                       * join: failures no caller is told of are logged */
	pthread_mutex_t mu;   /* guards the four fields below */
	pthread_cond_t wake, done;
	uint64_t flush_req, flush_done;
	bool stopping;

	int error;            /* first failure (a TSI code), 0: none */
	char errmsg[256];
	bool failed;          /* writing failed: passes only drain */

	/* Registry entries already in the file. */
	size_t strings_written, channels_written, graphs_written, series_written,
	    heatmaps_written;
	wthread **wt;         /* by thread id */
	size_t cap_wt;
	stat_entry *stats;    /* open addressing, cap_stats a power of two */
	size_t cap_stats, n_stats;
	uint64_t flushes;     /* passes committed */
	uint64_t idle_sleeps; /* times the writer slept for want of work */
	uint64_t bad_records; /* records the encoder refused (seq wrapped) */
};

/* --- Errors and statements ---------------------------------------------- */

/* Records the first failure, says so once on stderr whatever the log
 * level (the user asked for a trace and is not getting all of it), and
 * stops recording: a trace that cannot be written should not keep the
 * program waiting on it. The message carries the system's errno text
 * when SQLite has one ("No space left on device", "File too large"). */
static void fail(pvti_trace *tr, int code, const char *what)
{
	int sys = tr->db ? sqlite3_system_errno(tr->db) : 0;

	if (tr->error)
		return;
	if (tr->db && (sqlite3_errcode(tr->db) & 0xff) == SQLITE_NOMEM)
		code = TSI_ERR_NO_MEMORY;
	tr->error = code;
	if (sys)
		snprintf(tr->errmsg, sizeof(tr->errmsg), "%s: %s (%s: %s)",
		         tr->path ? tr->path : "pvti", what, sqlite3_errmsg(tr->db), strerror(sys));
	else if (tr->db && sqlite3_errcode(tr->db) == SQLITE_OK)
		/* A failure outside SQLite: its message would be "not an error". */
		snprintf(tr->errmsg, sizeof(tr->errmsg), "%s: %s", tr->path ? tr->path : "pvti", what);
	else
		snprintf(tr->errmsg, sizeof(tr->errmsg), "%s: %s (%s)", tr->path ? tr->path : "pvti",
		         what, tr->db ? sqlite3_errmsg(tr->db) : "no database");
	/* While opening, pvti_open returns the message: one line, not two. */
	if (tr->opened)
		tsi_log_always("PVTI", "writing the trace failed, recording stopped: %s", tr->errmsg);
	tr->failed = true;
	pvti_set_recording(false);
}

/* Runs SQL text; false (and the trace failed, with `what` in its
 * message: the SQL itself when NULL) on error. */
static bool exec_as(pvti_trace *tr, const char *sql, const char *what)
{
	if (tr->failed)
		return false;
	if (sqlite3_exec(tr->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		fail(tr, TSI_ERR_INVALID_ARGUMENT, what ? what : sql);
		return false;
	}
	return true;
}

static bool exec(pvti_trace *tr, const char *sql)
{
	return exec_as(tr, sql, NULL);
}

/* Steps a bound statement to completion and resets it. */
static bool step(pvti_trace *tr, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE) {
		fail(tr, TSI_ERR_INVALID_ARGUMENT, sqlite3_sql(st));
		return false;
	}
	return true;
}

/* Sets trace_metadata[key] to JSON text. */
static void put_meta(pvti_trace *tr, const char *key, const char *json)
{
	sqlite3_stmt *st = tr->st[ST_TRACE_META];

	if (tr->failed)
		return;
	/* A copy (TRANSIENT) can fail: the row must not go in as NULL. */
	if (sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT) != SQLITE_OK ||
	    sqlite3_bind_text(st, 2, json, -1, SQLITE_TRANSIENT) != SQLITE_OK) {
		sqlite3_clear_bindings(st);
		fail(tr, TSI_ERR_NO_MEMORY, "binding trace metadata");
		return;
	}
	step(tr, st);
}

/* Sets trace_metadata[key] to an integer. */
static void put_meta_int(pvti_trace *tr, const char *key, int64_t v)
{
	char text[32];

	snprintf(text, sizeof(text), "%lld", (long long)v);
	put_meta(tr, key, text);
}

/* --- Per-thread state and statistics ------------------------------------ */

/* The writer's state for thread `id`, made on first use; NULL when out of
 * memory (the trace is then failed). */
static wthread *wthread_get(pvti_trace *tr, uint32_t id)
{
	if (id >= tr->cap_wt) {
		size_t cap = tr->cap_wt ? tr->cap_wt : 16;
		wthread **grown;

		while (cap <= id)
			cap *= 2;
		grown = tsb_realloc(tr->wt, cap * sizeof(*grown));
		if (!grown)
			goto oom;
		memset(grown + tr->cap_wt, 0, (cap - tr->cap_wt) * sizeof(*grown));
		tr->wt = grown;
		tr->cap_wt = cap;
	}
	if (!tr->wt[id]) {
		tr->wt[id] = tsb_calloc(1, sizeof(wthread));
		if (!tr->wt[id])
			goto oom;
		tsf_chunk_enc_reset(&tr->wt[id]->enc);
	}
	return tr->wt[id];
oom:
	fail(tr, TSI_ERR_NO_MEMORY, "out of memory");
	return NULL;
}

/* Doubles the statistics table. */
static int stats_grow(pvti_trace *tr)
{
	size_t cap = tr->cap_stats ? tr->cap_stats * 2 : 256, i;
	stat_entry *table = tsb_calloc(cap, sizeof(*table));

	if (!table)
		return TSI_ERR_NO_MEMORY;
	for (i = 0; i < tr->cap_stats; i++) {
		size_t slot;

		if (!tr->stats[i].key)
			continue;
		slot = (size_t)(tr->stats[i].key * 0x9e3779b97f4a7c15ull) & (cap - 1);
		while (table[slot].key)
			slot = (slot + 1) & (cap - 1);
		table[slot] = tr->stats[i];
	}
	free(tr->stats);
	tr->stats = table;
	tr->cap_stats = cap;
	return TSI_OK;
}

/* Adds one span to the statistics of its (channel, name). */
static void stats_add(pvti_trace *tr, uint32_t channel, uint32_t name, uint64_t dur,
                      uint64_t self)
{
	uint64_t key = (((uint64_t)channel << 32) | name) + 1;
	size_t slot;
	stat_entry *e;

	if ((tr->n_stats + 1) * 2 > tr->cap_stats && stats_grow(tr) != TSI_OK) {
		fail(tr, TSI_ERR_NO_MEMORY, "out of memory");
		return;
	}
	slot = (size_t)(key * 0x9e3779b97f4a7c15ull) & (tr->cap_stats - 1);
	while (tr->stats[slot].key && tr->stats[slot].key != key)
		slot = (slot + 1) & (tr->cap_stats - 1);
	e = &tr->stats[slot];
	if (!e->key) {
		e->key = key;
		e->min_ns = UINT64_MAX;
		tr->n_stats++;
	}
	e->count++;
	e->total_ns += dur;
	e->self_ns += self;
	if (dur < e->min_ns)
		e->min_ns = dur;
	if (dur > e->max_ns)
		e->max_ns = dur;
}

/* --- A writer pass ------------------------------------------------------- */

/* Writes the chunk being built for thread `id`, if any, and empties it. */
static void emit_chunk(pvti_trace *tr, uint32_t id, wthread *wt)
{
	sqlite3_stmt *st = tr->st[ST_CHUNK];

	if (wt->enc.count == 0)
		return;
	if (!tr->failed) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, wt->enc.first_ns);
		sqlite3_bind_int64(st, 3, wt->enc.last_ns);
		sqlite3_bind_int64(st, 4, wt->enc.count);
		sqlite3_bind_blob(st, 5, wt->enc.data, (int)wt->enc.len, SQLITE_STATIC);
		step(tr, st);
	}
	tsf_chunk_enc_reset(&wt->enc);
}

/* One ended span: statistics, then the chunk. */
static void handle_span(pvti_trace *tr, uint32_t id, wthread *wt, const pvti_rec *r)
{
	tsf_event ev;
	uint64_t dur, child;

	ev.start_ns = pvti_clock_ns(&tr->clock, r->start);
	ev.end_ns = pvti_clock_ns(&tr->clock, r->end);
	if (ev.end_ns < ev.start_ns)
		ev.end_ns = ev.start_ns;
	if (ev.start_ns > tr->deadline_ns)
		return; /* began after the duration ran out */
	ev.seq = (int64_t)r->seq;
	ev.parent = r->parent ? (int64_t)r->parent - 1 : -1;
	ev.name = r->name;
	ev.channel = r->channel;
	ev.depth = r->depth;
	if (tsf_chunk_enc_add(&wt->enc, &ev) != 0) {
		tr->bad_records++;
		return;
	}
	wt->events++;
	dur = (uint64_t)(ev.end_ns - ev.start_ns);
	child = wt->child_ns[ev.depth + 1];
	wt->child_ns[ev.depth + 1] = 0;
	wt->child_ns[ev.depth] += dur;
	stats_add(tr, ev.channel, ev.name, dur, dur > child ? dur - child : 0);
	if (wt->enc.count >= CHUNK_MAX_EVENTS || wt->enc.len >= CHUNK_MAX_BYTES)
		emit_chunk(tr, id, wt);
}

/* One record of thread `id`. */
static void handle_rec(pvti_trace *tr, uint32_t id, wthread *wt, const pvti_rec *r)
{
	sqlite3_stmt *st;
	int64_t t_ns;
	double value;

	if (r->start < tr->clock.tick0)
		return; /* a straggler from before this trace */
	if (r->kind == PVTI_REC_SPAN) {
		handle_span(tr, id, wt, r);
		return;
	}
	t_ns = pvti_clock_ns(&tr->clock, r->start);
	if (t_ns > tr->deadline_ns || tr->failed)
		return;
	if (r->kind == PVTI_REC_INSTANT) {
		st = tr->st[ST_INSTANT];
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, t_ns);
		sqlite3_bind_int64(st, 3, r->channel);
		sqlite3_bind_int64(st, 4, r->name);
		sqlite3_bind_int64(st, 5, r->depth);
		if (r->parent)
			sqlite3_bind_int64(st, 6, (int64_t)r->parent - 1);
		step(tr, st);
	} else if (r->kind == PVTI_REC_SAMPLE) {
		st = tr->st[ST_SAMPLE];
		memcpy(&value, &r->end, sizeof(value));
		sqlite3_bind_int64(st, 1, r->name);
		sqlite3_bind_int64(st, 2, t_ns);
		sqlite3_bind_int64(st, 3, id);
		sqlite3_bind_double(st, 4, value);
		step(tr, st);
	}
}

/* Writes or renames the thread's row when its name changed. */
static void write_thread_row(pvti_trace *tr, pvti_thread *t, wthread *wt)
{
	sqlite3_stmt *st = tr->st[ST_THREAD];
	char name[sizeof(t->name)];
	uint32_t version;

	pthread_mutex_lock(&pvti_lock);
	version = t->name_version;
	memcpy(name, t->name, sizeof(name));
	pthread_mutex_unlock(&pvti_lock);
	if (version == wt->name_version || tr->failed)
		return;
	sqlite3_bind_int64(st, 1, t->id);
	sqlite3_bind_int64(st, 2, t->tid);
	if (sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT) != SQLITE_OK) {
		sqlite3_clear_bindings(st);
		fail(tr, TSI_ERR_NO_MEMORY, "binding a thread name");
		return;
	}
	if (step(tr, st))
		wt->name_version = version;
}

/* When a record was published: a thread's records are published in the
 * order of these ticks. */
static inline uint64_t rec_published(const pvti_rec *r)
{
	return r->kind == PVTI_REC_SPAN ? r->end : r->start;
}

/*
 * Follows the thread's chain of blocks from where the last pass stopped
 * to what the producer published before tick `limit` (the pass's start:
 * a producer faster than the writer must not keep a pass from ever
 * committing), returning finished blocks to the pool. A block is finished
 * once the producer linked the next one (it does so only after its last
 * record).
 */
static void drain_thread(pvti_trace *tr, pvti_thread *t, uint64_t limit)
{
	pvti_block *b = t->rd;
	uint32_t pos = t->rd_pos, n, i;
	wthread *wt = wthread_get(tr, t->id);
	bool any = false, reached = false;

	for (;;) {
		n = atomic_load_explicit(&b->count, memory_order_acquire);
		for (i = pos; i < n && wt; i++) {
			if (rec_published(&b->recs[i]) > limit) {
				reached = true;
				break;
			}
			handle_rec(tr, t->id, wt, &b->recs[i]);
			any = true;
		}
		pos = i;
		if (reached || pos < PVTI_BLOCK_RECS) {
			break;
		} else {
			pvti_block *next = atomic_load_explicit(&b->next, memory_order_acquire);

			if (!next)
				break;
			pvti_block_release(b);
			b = next;
			pos = 0;
		}
	}
	t->rd = b;
	t->rd_pos = pos;
	if (!wt)
		return;
	emit_chunk(tr, t->id, wt);
	if (any || atomic_load_explicit(&t->gen, memory_order_acquire) == tr->gen)
		write_thread_row(tr, t, wt);
}

/* Writes the queued messages and frees them. */
static void write_messages(pvti_trace *tr, pvti_msg *m)
{
	while (m) {
		pvti_msg *next = m->next;
		sqlite3_stmt *st;
		size_t i;

		if (tr->failed) {
			/* drop */
		} else if (m->kind == PVTI_MSG_EVENT_METADATA) {
			st = tr->st[ST_EVENT_META];
			sqlite3_bind_int64(st, 1, m->thread);
			sqlite3_bind_int64(st, 2, (int64_t)m->seq);
			sqlite3_bind_text(st, 3, m->text, -1, SQLITE_STATIC);
			step(tr, st);
		} else if (m->kind == PVTI_MSG_TRACE_METADATA) {
			put_meta(tr, m->key, m->text);
		} else if (m->kind == PVTI_MSG_HEATMAP && m->ticks >= tr->clock.tick0) {
			int64_t t_ns = pvti_clock_ns(&tr->clock, m->ticks);

			st = tr->st[ST_HEATMAP_SAMPLE];
			for (i = 0; i < m->n && t_ns <= tr->deadline_ns; i++) {
				if (!m->counts[i])
					continue;
				sqlite3_bind_int64(st, 1, m->id);
				sqlite3_bind_int64(st, 2, t_ns);
				sqlite3_bind_int64(st, 3, (int64_t)i);
				sqlite3_bind_int64(st, 4, (int64_t)m->counts[i]);
				if (!step(tr, st))
					break;
			}
		}
		pvti_msg_free(m);
		m = next;
	}
}

/* Copies registry[from, to) (pointers) while the caller holds pvti_lock. */
static void **copy_slice(void *const *array, size_t from, size_t to)
{
	void **copy;

	if (to <= from)
		return NULL;
	copy = tsb_malloc((to - from) * sizeof(void *));
	if (copy)
		memcpy(copy, array + from, (to - from) * sizeof(void *));
	return copy;
}

/*
 * Writes the names, channels, graphs, series and heatmaps made since the
 * last pass. The registries' arrays may move once pvti_lock is released,
 * so the new entries are copied under it; the entries themselves never
 * change or go away.
 */
static void write_registries(pvti_trace *tr)
{
	pvti_registry_view v;
	const char **strs;
	pvti_channel **chans;
	pvti_graph **gs;
	pvti_series **ss;
	pvti_heatmap **hs;
	size_t i, ns, nc, ng, nse, nh;
	sqlite3_stmt *st;

	pthread_mutex_lock(&pvti_lock);
	pvti_registry_view_locked(&v);
	strs = (const char **)copy_slice((void *const *)v.strings, tr->strings_written, v.n_strings);
	chans = (pvti_channel **)copy_slice((void *const *)v.channels, tr->channels_written,
	                                    v.n_channels);
	gs = (pvti_graph **)copy_slice((void *const *)v.graphs, tr->graphs_written, v.n_graphs);
	ss = (pvti_series **)copy_slice((void *const *)v.series, tr->series_written, v.n_series);
	hs = (pvti_heatmap **)copy_slice((void *const *)v.heatmaps, tr->heatmaps_written,
	                                 v.n_heatmaps);
	ns = v.n_strings;
	nc = v.n_channels;
	ng = v.n_graphs;
	nse = v.n_series;
	nh = v.n_heatmaps;
	pthread_mutex_unlock(&pvti_lock);

	if ((ns > tr->strings_written && !strs) || (nc > tr->channels_written && !chans) ||
	    (ng > tr->graphs_written && !gs) || (nse > tr->series_written && !ss) ||
	    (nh > tr->heatmaps_written && !hs)) {
		fail(tr, TSI_ERR_NO_MEMORY, "out of memory");
		goto cleanup;
	}
	if (tr->failed)
		goto cleanup;
	st = tr->st[ST_STRING];
	for (i = tr->strings_written; i < ns; i++) {
		const char *text = strs[i - tr->strings_written];
		size_t len = strlen(text);

		/* Readers refuse names past TSF_MAX_NAME_BYTES (format.h): a longer
		 * span name is kept cut there, at a UTF-8 character boundary, so
		 * the trace stays readable. Names are per id, so a cut name that
		 * equals another is harmless. */
		if (len > TSF_MAX_NAME_BYTES) {
			len = TSF_MAX_NAME_BYTES;
			while (len && ((unsigned char)text[len] & 0xc0) == 0x80)
				len--;
		}
		sqlite3_bind_int64(st, 1, (int64_t)i);
		sqlite3_bind_text(st, 2, text, (int)len, SQLITE_STATIC);
		step(tr, st);
	}
	st = tr->st[ST_CHANNEL];
	for (i = tr->channels_written; i < nc; i++) {
		pvti_channel *ch = chans[i - tr->channels_written];

		sqlite3_bind_int64(st, 1, ch->id);
		sqlite3_bind_text(st, 2, ch->name, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 3, atomic_load_explicit(&ch->enabled, memory_order_relaxed));
		step(tr, st);
	}
	st = tr->st[ST_GRAPH];
	for (i = tr->graphs_written; i < ng; i++) {
		pvti_graph *g = gs[i - tr->graphs_written];

		sqlite3_bind_int64(st, 1, g->id);
		sqlite3_bind_text(st, 2, g->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, g->unit, -1, SQLITE_STATIC);
		step(tr, st);
	}
	st = tr->st[ST_SERIES];
	for (i = tr->series_written; i < nse; i++) {
		pvti_series *s = ss[i - tr->series_written];

		sqlite3_bind_int64(st, 1, s->id);
		sqlite3_bind_int64(st, 2, s->graph->id);
		sqlite3_bind_text(st, 3, s->name, -1, SQLITE_STATIC);
		step(tr, st);
	}
	st = tr->st[ST_HEATMAP];
	for (i = tr->heatmaps_written; i < nh; i++) {
		pvti_heatmap *h = hs[i - tr->heatmaps_written];
		char *edges;
		int rc = tsf_heatmap_edges_encode(&edges, h->edges, h->n_edges);

		if (rc) {
			fail(tr, rc == -2 ? TSI_ERR_NO_MEMORY : TSI_ERR_INVALID_ARGUMENT,
			     rc == -2 ? "out of memory" : "a heatmap's edges cannot be stored");
			break;
		}
		sqlite3_bind_int64(st, 1, h->id);
		sqlite3_bind_text(st, 2, h->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, h->unit, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, edges, -1, SQLITE_TRANSIENT);
		step(tr, st);
		free(edges);
	}
	if (!tr->failed) {
		tr->strings_written = ns;
		tr->channels_written = nc;
		tr->graphs_written = ng;
		tr->series_written = nse;
		tr->heatmaps_written = nh;
	}
cleanup:
	free(strs);
	free(chans);
	free(gs);
	free(ss);
	free(hs);
}

/*
 * One pass: calibrate (first pass only), stop recording if the duration
 * ran out, then drain every thread and write everything in one
 * transaction. Names are written after the records that use them were
 * drained, so every id in the pass is covered.
 */
static void writer_pass(pvti_trace *tr)
{
	pvti_thread *head, *t;
	bool first = !tr->clock.calibrated;
	uint64_t limit;

	if (first)
		pvti_clock_calibrate(&tr->clock);
	if (!tr->stopped && tr->deadline_ns != INT64_MAX &&
	    pvti_clock_ns(&tr->clock, pvti_ticks()) >= tr->deadline_ns) {
		tr->stopped = true;
		pvti_set_recording(false);
	}
	exec(tr, "BEGIN");
	if (first && tr->clock.tsc && !tr->failed) {
		sqlite3_stmt *st = NULL;

		if (sqlite3_prepare_v2(tr->db, "UPDATE process SET ticks_per_s = ?", -1, &st, NULL) ==
		    SQLITE_OK) {
			sqlite3_bind_double(st, 1, tr->clock.ticks_per_s);
			step(tr, st);
		}
		sqlite3_finalize(st);
	}
	limit = pvti_ticks();
	pthread_mutex_lock(&pvti_lock);
	head = pvti_threads_head_locked();
	pthread_mutex_unlock(&pvti_lock);
	for (t = head; t; t = t->next)
		drain_thread(tr, t, limit);
	write_messages(tr, pvti_take_messages());
	write_registries(tr);
	if (!tr->failed) {
		if (exec(tr, "COMMIT"))
			tr->flushes++;
		else
			sqlite3_exec(tr->db, "ROLLBACK", NULL, NULL, NULL);
	}
	pvti_threads_prune();
}

/* Adds `ns` to a CLOCK_MONOTONIC timespec. */
static struct timespec mono_deadline(uint64_t ns)
{
	uint64_t at = pvti_mono_ns() + ns;
	struct timespec ts = {(time_t)(at / 1000000000u), (long)(at % 1000000000u)};

	return ts;
}

/* --- Sleeping while there is nothing to write ------------------------------ */

_Atomic int pvti_writer_idle_;
/* Guards idle_trace; taken before a trace's mu, never after. */
static pthread_mutex_t idle_mu = PTHREAD_MUTEX_INITIALIZER;
/* The trace whose writer sleeps for want of work, or NULL. */
static pvti_trace *idle_trace;

/* Whether membarrier(PRIVATE_EXPEDITED) works here; registers for it
 * once. Without it the writer never sleeps past a pass interval. */
static bool membarrier_ready(void)
{
	static int state; /* 0: unknown, 1: usable, -1: not */
	int s = __atomic_load_n(&state, __ATOMIC_ACQUIRE);

	if (s == 0) {
		s = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ? 1
		                                                                                  : -1;
		__atomic_store_n(&state, s, __ATOMIC_RELEASE);
	}
	return s > 0;
}

void pvti_writer_wake_slow(void)
{
	if (!atomic_exchange(&pvti_writer_idle_, 0))
		return; /* another producer woke it */
	pthread_mutex_lock(&idle_mu);
	if (idle_trace) {
		pthread_mutex_lock(&idle_trace->mu);
		pthread_cond_signal(&idle_trace->wake);
		pthread_mutex_unlock(&idle_trace->mu);
	}
	pthread_mutex_unlock(&idle_mu);
}

/* Whether anything waits to be written: a record past where the last
 * pass stopped, or a change (message, thread name) since `changes`. */
static bool work_pending(uint64_t changes)
{
	pvti_thread *t;

	if (atomic_load_explicit(&pvti_changes_, memory_order_relaxed) != changes)
		return true;
	pthread_mutex_lock(&pvti_lock);
	t = pvti_threads_head_locked();
	pthread_mutex_unlock(&pvti_lock);
	for (; t; t = t->next)
		if (atomic_load_explicit(&t->rd->count, memory_order_acquire) > t->rd_pos ||
		    atomic_load_explicit(&t->rd->next, memory_order_acquire))
			return true;
	return false;
}

/*
 * Sleeps until a producer publishes something, a flush or the stop is
 * asked for, or the duration's deadline comes. The producers read the
 * idle flag without a fence (it is on every tracepoint's path), so the
 * writer makes the pairing safe from its side: it raises the flag, then
 * membarrier() orders every running thread's memory accesses against its
 * own, then it looks for work once more. A producer that published before
 * that barrier is seen by the look; one that publishes after it sees the
 * flag and wakes the writer (a Dekker pairing with an asymmetric fence).
 * Returns false (without sleeping) where membarrier is unavailable.
 */
static bool sleep_until_work(pvti_trace *tr, uint64_t changes)
{
	bool timed = false;
	struct timespec until = {0, 0};

	if (!membarrier_ready())
		return false;
	if (tr->deadline_ns != INT64_MAX && !tr->stopped) {
		int64_t left = tr->deadline_ns - pvti_clock_ns(&tr->clock, pvti_ticks());

		if (left <= 0)
			return false;
		until = mono_deadline((uint64_t)left);
		timed = true;
	}
	pthread_mutex_lock(&idle_mu);
	idle_trace = tr;
	pthread_mutex_unlock(&idle_mu);
	atomic_store(&pvti_writer_idle_, 1);
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0 ||
	    work_pending(changes)) {
		atomic_store(&pvti_writer_idle_, 0);
	} else {
		pthread_mutex_lock(&tr->mu);
		while (atomic_load(&pvti_writer_idle_) && !tr->stopping &&
		       tr->flush_req == tr->flush_done) {
			if (!timed)
				pthread_cond_wait(&tr->wake, &tr->mu);
			else if (pthread_cond_timedwait(&tr->wake, &tr->mu, &until) == ETIMEDOUT)
				break;
		}
		pthread_mutex_unlock(&tr->mu);
		atomic_store(&pvti_writer_idle_, 0);
		tr->idle_sleeps++;
	}
	pthread_mutex_lock(&idle_mu);
	idle_trace = NULL;
	pthread_mutex_unlock(&idle_mu);
	return true;
}

/*
 * The writer thread. After something is published it waits up to
 * PVTI_PASS_NS, so what comes in that time shares one transaction, then
 * makes a pass; a pass that finds nothing new sends it to sleep until a
 * producer publishes again (sleep_until_work). So a record is committed
 * within about PVTI_PASS_NS of being published, and a program that
 * records nothing for a while costs no wake-ups meanwhile. A flush
 * request or the stop cuts any wait short; the last pass comes after the
 * stop.
 */
static void *writer_main(void *arg)
{
	pvti_trace *tr = arg;

	pthread_mutex_lock(&tr->mu);
	for (;;) {
		struct timespec until = mono_deadline(PVTI_PASS_NS);
		uint64_t target, changes, before;
		bool stop;

		if (tr->deadline_ns != INT64_MAX && !tr->stopped && tr->clock.calibrated) {
			int64_t left = tr->deadline_ns - pvti_clock_ns(&tr->clock, pvti_ticks());

			if (left >= 0 && (uint64_t)left < PVTI_PASS_NS)
				until = mono_deadline((uint64_t)left);
		}
		while (!tr->stopping && tr->flush_req == tr->flush_done &&
		       pthread_cond_timedwait(&tr->wake, &tr->mu, &until) != ETIMEDOUT)
			;
		target = tr->flush_req;
		stop = tr->stopping;
		pthread_mutex_unlock(&tr->mu);
		changes = atomic_load_explicit(&pvti_changes_, memory_order_relaxed);
		before = tr->db ? (uint64_t)sqlite3_total_changes64(tr->db) : 0;
		writer_pass(tr);
		pthread_mutex_lock(&tr->mu);
		tr->flush_done = target;
		pthread_cond_broadcast(&tr->done);
		if (stop)
			break;
		if (tr->db && (uint64_t)sqlite3_total_changes64(tr->db) == before && !tr->stopping &&
		    tr->flush_req == tr->flush_done) {
			pthread_mutex_unlock(&tr->mu);
			sleep_until_work(tr, changes);
			pthread_mutex_lock(&tr->mu);
		}
	}
	pthread_mutex_unlock(&tr->mu);
	return NULL;
}

/* Asks for a pass and waits for one that started after the request, so
 * every record published before the call is in it. */
int pvti_trace_flush(pvti_trace *tr)
{
	uint64_t req;

	pthread_mutex_lock(&tr->mu);
	req = ++tr->flush_req;
	pthread_cond_signal(&tr->wake);
	while (tr->flush_done < req && !tr->stopping)
		pthread_cond_wait(&tr->done, &tr->mu);
	pthread_mutex_unlock(&tr->mu);
	return tr->failed ? tsi_set_error(tr->error, "%s", tr->errmsg) : TSI_OK;
}

/* --- Opening ------------------------------------------------------------- */

int pvti_file_base_name(char *buf, size_t size, int64_t wall_s, int pid)
{
	time_t t = (time_t)wall_s;
	struct tm tm;
	char stamp[32], zone[16];
	size_t i;
	int n;

	if (!localtime_r(&t, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm))
		return -1;
	if (!strftime(zone, sizeof(zone), "%Z", &tm))
		snprintf(zone, sizeof(zone), "UTC");
	for (i = 0; zone[i]; i++) /* zone abbreviations may hold any character */
		if (!((zone[i] >= 'A' && zone[i] <= 'Z') || (zone[i] >= 'a' && zone[i] <= 'z') ||
		      (zone[i] >= '0' && zone[i] <= '9') || zone[i] == '+' || zone[i] == '-'))
			zone[i] = '-';
	n = snprintf(buf, size, "%s_%s_%d.pvti", stamp, zone, pid);
	return n < 0 || (size_t)n >= size ? -1 : n;
}

/* mkdir -p. */
static int make_dirs(const char *dir)
{
	char *path = tsb_strdup(dir), *p;
	int rc = TSI_OK;

	if (!path)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_open: out of memory");
	for (p = path + 1;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(path, 0777) != 0 && errno != EEXIST) {
				rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "cannot create directory '%s': %s",
				                   path, strerror(errno));
				break;
			}
			*p = c;
			if (!c)
				break;
		}
	}
	free(path);
	return rc;
}

/* The file's path: <dir>/<base>, or <dir>/<base minus .pvti>-N.pvti when
 * this process already made a trace in the same second. NULL with the
 * error set (and its code in *rc) when out of memory or out of names. */
static char *choose_path(const char *dir, const pvti_clock *clock, int *rc)
{
	char base[128];
	size_t len;
	int n;

	n = pvti_file_base_name(base, sizeof(base), (int64_t)(clock->wall0_ns / 1000000000u),
	                        (int)getpid());
	if (n < 0) {
		*rc = tsi_set_error(TSI_ERR_IO, "pvti_open: no file name in '%s'", dir);
		return NULL;
	}
	len = strlen(dir) + sizeof(base) + 16;
	for (int k = 1; k < 1000; k++) {
		char *path = tsb_malloc(len);

		if (!path) {
			*rc = tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_open: out of memory");
			return NULL;
		}
		if (k == 1)
			snprintf(path, len, "%s/%s", dir, base);
		else
			snprintf(path, len, "%s/%.*s-%d.pvti", dir, n - 5, base, k);
		if (access(path, F_OK) != 0)
			return path;
		free(path);
	}
	*rc = tsi_set_error(TSI_ERR_IO, "pvti_open: no file name in '%s'", dir);
	return NULL;
}

/* The program's command line, arguments joined by spaces (malloc'd). */
static char *command_line(void)
{
	FILE *f = fopen("/proc/self/cmdline", "rb");
	char buf[4096];
	size_t n, i;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	return tsb_strdup(buf);
}

/* Writes the process row. */
static void write_process(pvti_trace *tr)
{
	sqlite3_stmt *st = NULL;
	char host[256] = "";
	char *cmd = command_line();

	if (gethostname(host, sizeof(host) - 1) != 0)
		snprintf(host, sizeof(host), "unknown");
	if (sqlite3_prepare_v2(tr->db,
	                       "INSERT INTO process(pid, host, name, command_line, start_wall_ns, "
	                       "start_mono_ns, clock, ticks_per_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	                       -1, &st, NULL) != SQLITE_OK) {
		fail(tr, TSI_ERR_INVALID_ARGUMENT, "preparing the process row");
		goto cleanup;
	}
	sqlite3_bind_int64(st, 1, getpid());
	sqlite3_bind_text(st, 2, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, program_invocation_short_name, -1, SQLITE_STATIC);
	if (cmd)
		sqlite3_bind_text(st, 4, cmd, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, (int64_t)tr->clock.wall0_ns);
	sqlite3_bind_int64(st, 6, (int64_t)tr->clock.mono0_ns);
	sqlite3_bind_text(st, 7, tr->clock.tsc ? "rdtsc" : "monotonic", -1, SQLITE_STATIC);
	sqlite3_bind_null(st, 8); /* rdtsc: measured at the first pass */
	step(tr, st);
cleanup:
	sqlite3_finalize(st);
	free(cmd);
}

/* Frees a trace whose writer thread is not running. */
static void trace_free(pvti_trace *tr)
{
	size_t i;

	if (!tr)
		return;
	for (i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(tr->st[i]);
	if (tr->db)
		sqlite3_close(tr->db);
	for (i = 0; i < tr->cap_wt; i++) {
		if (tr->wt[i])
			tsf_chunk_enc_clear(&tr->wt[i]->enc);
		free(tr->wt[i]);
	}
	free(tr->wt);
	free(tr->stats);
	pthread_mutex_destroy(&tr->mu);
	pthread_cond_destroy(&tr->wake);
	pthread_cond_destroy(&tr->done);
	free(tr->path);
	free(tr);
}

/* Makes the file (schema, process row, options) in one transaction, then
 * starts the writer; a file this call cannot finish is removed. */
int pvti_trace_new(pvti_trace **out, const pvti_options *opts, const char *warning, uint32_t gen)
{
	pvti_trace *tr = tsb_calloc(1, sizeof(*tr));
	const char *dir = opts->directory && *opts->directory ? opts->directory : ".";
	pthread_condattr_t cattr;
	sigset_t all, old;
	char *json = NULL;
	bool made = false; /* the file exists and is this call's */
	int rc = TSI_OK, i;

	*out = NULL;
	if (!tr)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_open: out of memory");
	pthread_mutex_init(&tr->mu, NULL);
	pthread_condattr_init(&cattr);
	pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
	pthread_cond_init(&tr->wake, &cattr);
	pthread_cond_init(&tr->done, &cattr);
	pthread_condattr_destroy(&cattr);
	tr->gen = gen;
	rc = make_dirs(dir);
	if (rc != TSI_OK)
		goto cleanup;
	pvti_clock_start(&tr->clock);
	tr->deadline_ns = opts->duration > 0 ? (int64_t)(opts->duration * 1e9) : INT64_MAX;
	tr->path = choose_path(dir, &tr->clock, &rc);
	if (!tr->path)
		goto cleanup;
	/* Made here first (an empty file is a new database to SQLite): SQLite
	 * says only "unable to open database file" where the system says why
	 * (a read-only file system, no permission). */
	{
		int fd = open(tr->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

		if (fd < 0) {
			rc = tsi_set_error(TSI_ERR_IO, "cannot create trace '%s': %s", tr->path,
			                   strerror(errno));
			goto cleanup;
		}
		close(fd);
		made = true;
	}
	i = sqlite3_open_v2(tr->path, &tr->db,
	                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (i != SQLITE_OK) {
		rc = tsi_set_error(i == SQLITE_NOMEM ? TSI_ERR_NO_MEMORY : TSI_ERR_INVALID_ARGUMENT,
		                   "cannot create trace '%s': %s", tr->path,
		                   tr->db ? sqlite3_errmsg(tr->db) : "out of memory");
		goto cleanup;
	}
	/* The default 4 KiB pages: larger ones wrote chunks no faster here and
	 * made a small trace seven times bigger (a page per table at least). */
	if (!exec(tr, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL") ||
	    !exec(tr, "BEGIN") ||
	    !exec_as(tr, tsf_pvti_schema_sql, "creating the schema"))
		goto failed;
	for (i = 0; i < ST_COUNT; i++) {
		if (sqlite3_prepare_v3(tr->db, statement_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		                       &tr->st[i], NULL) != SQLITE_OK) {
			fail(tr, TSI_ERR_INVALID_ARGUMENT, statement_sql[i]);
			goto failed;
		}
	}
	write_process(tr);
	json = pvti_options_to_json(opts);
	if (json)
		put_meta(tr, "pvti.options", json);
	if (warning) {
		cJSON *s = cJSON_CreateString(warning);
		char *printed = s ? cJSON_PrintUnformatted(s) : NULL;

		if (printed)
			put_meta(tr, "pvti.options_warning", printed);
		cJSON_free(printed);
		cJSON_Delete(s);
	}
	write_registries(tr);
	if (!exec(tr, "COMMIT"))
		goto failed;

	/* The writer takes no signals: handlers run on the program's threads. */
	tr->opened = true;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&tr->thread, NULL, writer_main, tr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_open: cannot start the writer thread");
		goto cleanup;
	}
	tr->thread_started = true;
	pthread_setname_np(tr->thread, "pvti-writer");
	*out = tr;
	tr = NULL;
	goto cleanup;
failed:
	rc = tsi_set_error(tr->error ? tr->error : TSI_ERR_INVALID_ARGUMENT, "%s", tr->errmsg);
cleanup:
	free(json);
	if (tr) {
		/* A file this call made and could not finish: removed once SQLite
		 * has let go of it (its path is the trace's, freed with it). */
		char *path = made ? tr->path : NULL;

		if (path)
			tr->path = NULL;
		trace_free(tr);
		if (path)
			unlink(path);
		free(path);
	}
	return rc;
}

/* The file's path, owned by the trace. */
const char *pvti_trace_path(const pvti_trace *tr)
{
	return tr->path;
}

/* The trace's clock. */
const pvti_clock *pvti_trace_clock(const pvti_trace *tr)
{
	return &tr->clock;
}

/* --- Closing: the summary tables ------------------------------------------ */

/* Timeline buckets follow the format's rule (db-schema/timeline-lod.h). */
typedef tsf_lod_bucket lod_bucket;

typedef struct lod_level {
	uint64_t width_ns;
	size_t n;
	lod_bucket *b;
} lod_level;

/* Adds one event to every level. */
static void lod_add(lod_level *levels, size_t n_levels, const tsf_event *ev)
{
	uint64_t start = ev->start_ns > 0 ? (uint64_t)ev->start_ns : 0;
	uint64_t end = ev->end_ns > 0 ? (uint64_t)ev->end_ns : 0;
	size_t l;

	for (l = 0; l < n_levels; l++) {
		lod_level *lv = &levels[l];
		uint64_t w = lv->width_ns, k, last;

		k = start / w;
		if (k >= lv->n)
			k = lv->n - 1;
		lv->b[k].events++;
		if (ev->depth != 0 || end <= start)
			continue;
		last = (end - 1) / w;
		if (last >= lv->n)
			last = lv->n - 1;
		for (; k <= last; k++) {
			uint64_t lo = k * w > start ? k * w : start;
			uint64_t hi = (k + 1) * w < end ? (k + 1) * w : end;

			if (hi > lo)
				tsf_lod_cover(&lv->b[k], ev->name, hi - lo);
		}
	}
}

/* Writes a thread's non-empty buckets and clears them. */
static void lod_write(pvti_trace *tr, sqlite3_stmt *st, int64_t thread, lod_level *levels,
                      size_t n_levels)
{
	size_t l, k;

	for (l = 0; l < n_levels; l++) {
		for (k = 0; k < levels[l].n; k++) {
			lod_bucket *b = &levels[l].b[k];

			if ((b->events || b->busy_ns) && !tr->failed) {
				sqlite3_bind_int64(st, 1, thread);
				sqlite3_bind_int64(st, 2, (int64_t)l);
				sqlite3_bind_int64(st, 3, (int64_t)k);
				sqlite3_bind_int64(st, 4, (int64_t)levels[l].width_ns);
				sqlite3_bind_int64(st, 5, (int64_t)b->events);
				sqlite3_bind_int64(st, 6, (int64_t)b->busy_ns);
				if (b->best_ns)
					sqlite3_bind_int64(st, 7, b->best_name);
				step(tr, st);
			}
		}
		memset(levels[l].b, 0, levels[l].n * sizeof(lod_bucket));
	}
}

/*
 * The timeline's level of detail. The bucket width depends on the trace's
 * length, known only now, so the chunks are read back and decoded, one
 * thread at a time.
 */
static void write_lod(pvti_trace *tr)
{
	sqlite3_stmt *q = NULL, *ins = NULL;
	lod_level levels[16];
	size_t n_levels = 0, l;
	int64_t span = 0, thread = -1;
	uint64_t w;
	int rc;

	memset(levels, 0, sizeof(levels));
	rc = sqlite3_prepare_v2(tr->db, "SELECT max(last_ns) FROM event_chunk", -1, &q, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc != SQLITE_ROW) {
		/* (Out of memory, SQLite has rolled the summary back.) */
		fail(tr, TSI_ERR_INVALID_ARGUMENT, "reading the event chunks");
		goto cleanup;
	}
	if (sqlite3_column_type(q, 0) == SQLITE_NULL)
		goto cleanup; /* no events */
	span = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	q = NULL;
	if (span < 1)
		span = 1;
	for (w = LOD_MIN_WIDTH_NS; (uint64_t)span / w >= LOD_MAX_BUCKETS; w *= 2)
		;
	for (;; w *= LOD_FACTOR) {
		lod_level *lv = &levels[n_levels++];

		lv->width_ns = w;
		lv->n = (size_t)((uint64_t)span / w) + 1;
		lv->b = tsb_calloc(lv->n, sizeof(lod_bucket));
		if (!lv->b) {
			fail(tr, TSI_ERR_NO_MEMORY, "out of memory");
			goto cleanup;
		}
		if (lv->n == 1 || n_levels == sizeof(levels) / sizeof(levels[0]))
			break;
	}
	if (sqlite3_prepare_v2(tr->db, "SELECT thread, data FROM event_chunk ORDER BY thread, id",
	                       -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(tr->db,
	                       "INSERT INTO timeline_lod(thread, level, bucket, width_ns, events, "
	                       "busy_ns, top_name) VALUES (?, ?, ?, ?, ?, ?, ?)",
	                       -1, &ins, NULL) != SQLITE_OK) {
		fail(tr, TSI_ERR_INVALID_ARGUMENT, "preparing the timeline queries");
		goto cleanup;
	}
	while (!tr->failed && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t th = sqlite3_column_int64(q, 0);
		const void *blob = sqlite3_column_blob(q, 1);
		tsf_chunk_dec dec;
		tsf_event ev;

		if (th != thread && thread >= 0)
			lod_write(tr, ins, thread, levels, n_levels);
		thread = th;
		if (tsf_chunk_dec_init(&dec, blob, (size_t)sqlite3_column_bytes(q, 1)) != 0)
			continue;
		while (tsf_chunk_dec_next(&dec, &ev) == 1)
			lod_add(levels, n_levels, &ev);
	}
	if (!tr->failed && rc != SQLITE_DONE) {
		fail(tr, TSI_ERR_INVALID_ARGUMENT, "reading the event chunks");
		goto cleanup;
	}
	if (thread >= 0)
		lod_write(tr, ins, thread, levels, n_levels);
cleanup:
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	for (l = 0; l < n_levels; l++)
		free(levels[l].b);
}

/* Writes label_stats from the statistics gathered while encoding. */
static void write_label_stats(pvti_trace *tr)
{
	sqlite3_stmt *st = NULL;
	size_t i;

	if (sqlite3_prepare_v2(tr->db,
	                       "INSERT INTO label_stats(channel, name, count, total_ns, self_ns, "
	                       "min_ns, max_ns) VALUES (?, ?, ?, ?, ?, ?, ?)",
	                       -1, &st, NULL) != SQLITE_OK) {
		fail(tr, TSI_ERR_INVALID_ARGUMENT, "preparing label_stats");
		return;
	}
	for (i = 0; i < tr->cap_stats && !tr->failed; i++) {
		const stat_entry *e = &tr->stats[i];

		if (!e->key)
			continue;
		sqlite3_bind_int64(st, 1, (int64_t)((e->key - 1) >> 32));
		sqlite3_bind_int64(st, 2, (int64_t)((e->key - 1) & 0xffffffffu));
		sqlite3_bind_int64(st, 3, (int64_t)e->count);
		sqlite3_bind_int64(st, 4, (int64_t)e->total_ns);
		sqlite3_bind_int64(st, 5, (int64_t)e->self_ns);
		sqlite3_bind_int64(st, 6, (int64_t)e->min_ns);
		sqlite3_bind_int64(st, 7, (int64_t)e->max_ns);
		step(tr, st);
	}
	sqlite3_finalize(st);
}

/*
 * Everything a clean close adds: the counters of the threads of this
 * trace (unbalanced ends, spans left open, losses), the final channel
 * states, per-thread event counts and the two summary tables.
 */
static void write_summary(pvti_trace *tr, uint64_t *unbalanced_out)
{
	uint64_t unbalanced = 0, unclosed = 0, dropped = 0, deep = 0;
	sqlite3_stmt *st = NULL;
	pvti_thread *t;
	size_t i, nch;

	pthread_mutex_lock(&pvti_lock);
	for (t = pvti_threads_head_locked(); t; t = t->next) {
		if (atomic_load_explicit(&t->gen, memory_order_acquire) != tr->gen)
			continue;
		unbalanced += atomic_load_explicit(&t->unbalanced, memory_order_relaxed);
		unclosed += atomic_load_explicit(&t->depth, memory_order_relaxed);
		dropped += atomic_load_explicit(&t->dropped, memory_order_relaxed);
		deep += atomic_load_explicit(&t->skipped_deep, memory_order_relaxed);
	}
	pthread_mutex_unlock(&pvti_lock);
	*unbalanced_out = unbalanced;

	if (!exec(tr, "BEGIN"))
		return;
	put_meta_int(tr, "pvti.unbalanced_ends", (int64_t)unbalanced);
	put_meta_int(tr, "pvti.unclosed_begins", (int64_t)unclosed);
	put_meta_int(tr, "pvti.dropped", (int64_t)(dropped + tr->bad_records));
	put_meta_int(tr, "pvti.too_deep", (int64_t)deep);
	put_meta_int(tr, "pvti.flushes", (int64_t)tr->flushes);
	put_meta_int(tr, "pvti.idle_sleeps", (int64_t)tr->idle_sleeps);
	if (tr->stopped)
		put_meta_int(tr, "pvti.stopped_ns", tr->deadline_ns);
	nch = pvti_channel_count();
	for (i = 0; i < nch && !tr->failed; i++) {
		pvti_channel *ch = pvti_channel_at(i);

		sqlite3_bind_int64(tr->st[ST_CHANNEL], 1, ch->id);
		sqlite3_bind_text(tr->st[ST_CHANNEL], 2, ch->name, -1, SQLITE_STATIC);
		sqlite3_bind_int(tr->st[ST_CHANNEL], 3, pvti_channel_is_enabled(ch));
		step(tr, tr->st[ST_CHANNEL]);
	}
	if (!tr->failed &&
	    sqlite3_prepare_v2(tr->db, "UPDATE thread SET events = ? WHERE id = ?", -1, &st, NULL) ==
	        SQLITE_OK) {
		for (i = 0; i < tr->cap_wt && !tr->failed; i++) {
			if (!tr->wt[i] || !tr->wt[i]->name_version)
				continue;
			sqlite3_bind_int64(st, 1, (int64_t)tr->wt[i]->events);
			sqlite3_bind_int64(st, 2, (int64_t)i);
			step(tr, st);
		}
	}
	sqlite3_finalize(st);
	write_label_stats(tr);
	write_lod(tr);
	put_meta(tr, "pvti.complete", "true");
	if (!exec(tr, "COMMIT"))
		sqlite3_exec(tr->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Stops the writer (it makes a last pass), writes the summary, folds the
 * WAL back into the file and frees the trace. */
int pvti_trace_finish(pvti_trace *tr)
{
	uint64_t unbalanced = 0;
	int rc = TSI_OK;
	size_t i;

	if (!tr)
		return TSI_OK;
	if (tr->thread_started) {
		pthread_mutex_lock(&tr->mu);
		tr->stopping = true;
		pthread_cond_signal(&tr->wake);
		pthread_mutex_unlock(&tr->mu);
		pthread_join(tr->thread, NULL);
	}
	tr->opened = false; /* from here pvti_close returns what fails */
	write_summary(tr, &unbalanced);
	if (unbalanced)
		tsi_log(TSI_LOG_WARN, "PVTI",
		        "%llu pvti_end call(s) had no open tracepoint on their channel (%s)",
		        (unsigned long long)unbalanced, tr->path);
	for (i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(tr->st[i]);
		tr->st[i] = NULL;
	}
	if (!tr->failed) {
		/* One self-contained file: fold the WAL in and leave WAL mode. A
		 * failure leaves the trace whole but in two files: said, not
		 * hidden. */
		exec_as(tr, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE",
		        "folding the write-ahead log into the trace");
	}
	if (tr->error)
		rc = tsi_set_error(tr->error, "%s", tr->errmsg);
	trace_free(tr);
	return rc;
}
