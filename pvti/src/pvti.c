/*
 * System tracing: the process-wide registries (channels, interned names,
 * graphs, heatmaps, tracing threads), the out-of-line half of every
 * tracepoint, and opening and closing traces. The file and its writer
 * thread are pvti-writer.c; pvti-private.h describes the data path.
 *
 * The hot path (a begin/end pair) touches only memory of the calling
 * thread: its thread-local state, its span stack, its current block. A
 * name is interned through a per-thread cache that a literal hits every
 * time. Nothing takes a lock except once per PVTI_BLOCK_RECS records, to
 * get a fresh block from the pool.
 *
 * Locks, in the order they may be taken: control_lock (open, close,
 * flush), pvti_lock (registries, thread list, messages), pool_lock
 * (blocks). The writer thread never takes control_lock.
 */
#define _GNU_SOURCE 1 /* pthread_getname_np, gettid, program_invocation_short_name */

#include <tilescope/alloc.h>
#include <tilescope/hashmap.h>
#include "pvti-private.h"

#include "heatmap-edges.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

PVTI_API unsigned char pvti_recording_flag_;

pthread_mutex_t pvti_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* The open trace (under control_lock). */
static pvti_trace *current;
/* A trace is open (its duration may have run out); read without locks. */
static _Atomic bool trace_open;
/* Bumped when a trace opens: a thread whose state is of an older
 * generation resets its span stack before tracing. */
static _Atomic uint32_t generation;

/* --- Channels ------------------------------------------------------------- */

static pvti_channel builtin_channels[3] = {
	{0, "Drivers", true},
	{1, "Poplar", true},
	{2, "Framework", true},
};
/* By id; slots [0, n_channels) are filled (n_channels under pvti_lock,
 * also read with acquire by pvti_channel_count). */
static pvti_channel *channels[PVTI_MAX_CHANNELS] = {
	&builtin_channels[0], &builtin_channels[1], &builtin_channels[2]};
static _Atomic size_t n_channels = 3;
/* The open trace's channel list (under pvti_lock); n_wanted 0: all. */
static char **wanted;
static size_t n_wanted;

/* The built-in channels are static objects: the accessors are const. */
PVTI_API pvti_channel *pvti_channel_drivers(void)
{
	return &builtin_channels[0];
}

/* The runtime's own channel (compile phases, runs, stream callbacks). */
PVTI_API pvti_channel *pvti_channel_poplar(void)
{
	return &builtin_channels[1];
}

/* The channel for models' own loops (epoch, batch). */
PVTI_API pvti_channel *pvti_channel_framework(void)
{
	return &builtin_channels[2];
}

/* True when the open trace's list asks for `name`. Under pvti_lock. */
static bool channel_wanted_locked(const char *name)
{
	size_t i;

	if (n_wanted == 0)
		return true;
	for (i = 0; i < n_wanted; i++)
		if (strcmp(wanted[i], name) == 0)
			return true;
	return false;
}

/* The channel called `name`, or NULL. Under pvti_lock. */
static pvti_channel *channel_lookup_locked(const char *name)
{
	size_t i, n = atomic_load_explicit(&n_channels, memory_order_relaxed);

	for (i = 0; i < n; i++)
		if (strcmp(channels[i]->name, name) == 0)
			return channels[i];
	return NULL;
}

/* Finds a channel by name without making one. */
PVTI_API pvti_channel *pvti_channel_lookup(const char *name)
{
	pvti_channel *ch;

	if (!name)
		return NULL;
	pthread_mutex_lock(&pvti_lock);
	ch = channel_lookup_locked(name);
	pthread_mutex_unlock(&pvti_lock);
	return ch;
}

/*
 * Finds or makes a channel. Channels are never freed, so the pointer can
 * be kept in a static by the caller.
 */
PVTI_API pvti_channel *pvti_channel_new(const char *name)
{
	pvti_channel *ch = NULL;
	size_t n;

	if (!name || !*name) {
		tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_channel_new: empty channel name");
		return NULL;
	}
	pthread_mutex_lock(&pvti_lock);
	ch = channel_lookup_locked(name);
	if (ch)
		goto cleanup;
	n = atomic_load_explicit(&n_channels, memory_order_relaxed);
	if (n >= PVTI_MAX_CHANNELS) {
		tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_channel_new: more than %d channels",
		              PVTI_MAX_CHANNELS);
		goto cleanup;
	}
	ch = tsb_calloc(1, sizeof(*ch));
	if (ch)
		ch->name = tsb_strdup(name);
	if (!ch || !ch->name) {
		free(ch);
		ch = NULL;
		tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_channel_new: out of memory");
		goto cleanup;
	}
	ch->id = (uint16_t)n;
	atomic_init(&ch->enabled, channel_wanted_locked(name));
	channels[n] = ch;
	atomic_store_explicit(&n_channels, n + 1, memory_order_release);
cleanup:
	pthread_mutex_unlock(&pvti_lock);
	return ch;
}

/* A channel's name; NULL-safe. */
PVTI_API const char *pvti_channel_name(const pvti_channel *channel)
{
	return channel ? channel->name : NULL;
}

/* Relaxed stores: a tracepoint racing the switch may go either way. */
PVTI_API void pvti_channel_enable(pvti_channel *channel)
{
	if (channel)
		atomic_store_explicit(&channel->enabled, true, memory_order_relaxed);
}

/* See pvti_channel_enable. */
PVTI_API void pvti_channel_disable(pvti_channel *channel)
{
	if (channel)
		atomic_store_explicit(&channel->enabled, false, memory_order_relaxed);
}

/* The flag the tracepoints read; false for NULL. */
PVTI_API bool pvti_channel_is_enabled(const pvti_channel *channel)
{
	return channel && atomic_load_explicit(&channel->enabled, memory_order_relaxed);
}

/* Acquire pairs with the release in pvti_channel_new: a counted slot is
 * filled. */
PVTI_API size_t pvti_channel_count(void)
{
	return atomic_load_explicit(&n_channels, memory_order_acquire);
}

/* Channels by id; NULL past the end. */
PVTI_API pvti_channel *pvti_channel_at(size_t i)
{
	return i < pvti_channel_count() ? channels[i] : NULL;
}

/* --- Interned names ----------------------------------------------------- */

/* By id; the map takes text to id (its keys are the copies in
 * `strings`). Under pvti_lock. */
static char **strings;
static size_t n_strings, cap_strings;
static tsb_hashmap *string_ids;

/* Interns under pvti_lock (base's hash map). Called on a per-thread cache
 * miss only, so the lock is off the hot path. */
int pvti_intern(uint32_t *out, const char *text)
{
	uintptr_t id;
	int rc = TSI_OK;
	char *copy;

	pthread_mutex_lock(&pvti_lock);
	if (!string_ids && !(string_ids = tsb_hashmap_new(TSB_HASHMAP_STRING_KEYS))) {
		rc = TSI_ERR_NO_MEMORY;
		goto cleanup;
	}
	if (tsb_hashmap_lookup_str(string_ids, text, &id)) {
		*out = (uint32_t)id;
		goto cleanup;
	}
	if (n_strings == cap_strings) {
		size_t cap = cap_strings ? cap_strings * 2 : 256;
		char **grown = tsb_realloc(strings, cap * sizeof(*grown));

		if (!grown) {
			rc = TSI_ERR_NO_MEMORY;
			goto cleanup;
		}
		strings = grown;
		cap_strings = cap;
	}
	copy = tsb_strdup(text);
	if (!copy || tsb_hashmap_put_str(string_ids, copy, n_strings)) {
		tsb_free(copy);
		rc = TSI_ERR_NO_MEMORY;
		goto cleanup;
	}
	strings[n_strings] = copy;
	*out = (uint32_t)n_strings++;
cleanup:
	pthread_mutex_unlock(&pvti_lock);
	return rc;
}

/* --- Graphs, series, heatmaps ------------------------------------------- */

static pvti_graph **graphs;
static size_t n_graphs, cap_graphs;
static pvti_series **series_list;
static size_t n_series, cap_series;
static pvti_heatmap **heatmaps;
static size_t n_heatmaps, cap_heatmaps;

/* Makes room for one more pointer in a registry array. Under pvti_lock. */
static int reserve_locked(void *arrayp, size_t n, size_t *cap)
{
	void ***array = arrayp;
	size_t c;
	void **grown;

	if (n < *cap)
		return TSI_OK;
	c = *cap ? *cap * 2 : 16;
	grown = tsb_realloc(*array, c * sizeof(void *));
	if (!grown)
		return TSI_ERR_NO_MEMORY;
	*array = grown;
	*cap = c;
	return TSI_OK;
}

/* Finds or makes a graph; graphs are few, so a linear search will do. */
PVTI_API pvti_graph *pvti_graph_new(const char *name, const char *unit)
{
	pvti_graph *g = NULL;
	size_t i;

	if (!name) {
		tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_graph_new: NULL name");
		return NULL;
	}
	pthread_mutex_lock(&pvti_lock);
	for (i = 0; i < n_graphs; i++) {
		if (strcmp(graphs[i]->name, name) == 0) {
			g = graphs[i];
			goto cleanup;
		}
	}
	if (reserve_locked(&graphs, n_graphs, &cap_graphs) != TSI_OK)
		goto oom;
	g = tsb_calloc(1, sizeof(*g));
	if (!g)
		goto oom;
	g->name = tsb_strdup(name);
	g->unit = tsb_strdup(unit ? unit : "");
	if (!g->name || !g->unit)
		goto oom;
	g->id = (uint32_t)n_graphs;
	graphs[n_graphs++] = g;
	goto cleanup;
oom:
	if (g) {
		free(g->name);
		free(g->unit);
		free(g);
	}
	g = NULL;
	tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_graph_new: out of memory");
cleanup:
	pthread_mutex_unlock(&pvti_lock);
	return g;
}

/* Finds or makes a series of `graph`. */
PVTI_API pvti_series *pvti_graph_add_series(pvti_graph *graph, const char *name)
{
	pvti_series *s = NULL;
	size_t i;

	if (!graph || !name) {
		tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_graph_add_series: NULL argument");
		return NULL;
	}
	pthread_mutex_lock(&pvti_lock);
	for (i = 0; i < n_series; i++) {
		if (series_list[i]->graph == graph && strcmp(series_list[i]->name, name) == 0) {
			s = series_list[i];
			goto cleanup;
		}
	}
	if (reserve_locked(&series_list, n_series, &cap_series) != TSI_OK)
		goto oom;
	s = tsb_calloc(1, sizeof(*s));
	if (!s || !(s->name = tsb_strdup(name)))
		goto oom;
	s->graph = graph;
	s->id = (uint32_t)n_series;
	series_list[n_series++] = s;
	goto cleanup;
oom:
	free(s);
	s = NULL;
	tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_graph_add_series: out of memory");
cleanup:
	pthread_mutex_unlock(&pvti_lock);
	return s;
}

/* Finds or makes a heatmap. The edges are checked here, once, so that
 * pvti_heatmap_add can bin with a plain binary search. */
PVTI_API pvti_heatmap *pvti_heatmap_new(const char *name, const char *unit,
                                       const double *edges, size_t n_edges)
{
	pvti_heatmap *h = NULL;
	const char *why;
	size_t i;

	if (!name || !edges) {
		tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_heatmap_new: bad arguments");
		return NULL;
	}
	/* The codec's rules (db-schema/heatmap-edges.h): what readers take. */
	if ((why = tsf_heatmap_edges_check(edges, n_edges))) {
		tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_heatmap_new: edges of '%s': %s", name, why);
		return NULL;
	}
	pthread_mutex_lock(&pvti_lock);
	for (i = 0; i < n_heatmaps; i++) {
		if (strcmp(heatmaps[i]->name, name) == 0) {
			h = heatmaps[i];
			goto cleanup;
		}
	}
	if (reserve_locked(&heatmaps, n_heatmaps, &cap_heatmaps) != TSI_OK)
		goto oom;
	h = tsb_calloc(1, sizeof(*h));
	if (!h)
		goto oom;
	h->name = tsb_strdup(name);
	h->unit = tsb_strdup(unit ? unit : "");
	h->edges = tsb_malloc(n_edges * sizeof(double));
	if (!h->name || !h->unit || !h->edges)
		goto oom;
	memcpy(h->edges, edges, n_edges * sizeof(double));
	h->n_edges = n_edges;
	h->id = (uint32_t)n_heatmaps;
	heatmaps[n_heatmaps++] = h;
	goto cleanup;
oom:
	if (h) {
		free(h->name);
		free(h->unit);
		free(h->edges);
		free(h);
	}
	h = NULL;
	tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_heatmap_new: out of memory");
cleanup:
	pthread_mutex_unlock(&pvti_lock);
	return h;
}

/* Hands the writer the registries as they are now (see pvti-private.h). */
void pvti_registry_view_locked(pvti_registry_view *view)
{
	view->strings = (const char *const *)strings;
	view->n_strings = n_strings;
	view->channels = channels;
	view->n_channels = atomic_load_explicit(&n_channels, memory_order_relaxed);
	view->graphs = graphs;
	view->n_graphs = n_graphs;
	view->series = series_list;
	view->n_series = n_series;
	view->heatmaps = heatmaps;
	view->n_heatmaps = n_heatmaps;
}

/* --- Messages to the writer ---------------------------------------------- */

static pvti_msg *msg_head, *msg_tail; /* under pvti_lock */

void pvti_msg_free(pvti_msg *msg)
{
	if (!msg)
		return;
	free(msg->key);
	free(msg->text);
	free(msg->counts);
	free(msg);
}

_Atomic uint64_t pvti_changes_;

/* Queues `msg` for the writer (which frees it). */
static void msg_push(pvti_msg *msg)
{
	pthread_mutex_lock(&pvti_lock);
	msg->next = NULL;
	if (msg_tail)
		msg_tail->next = msg;
	else
		msg_head = msg;
	msg_tail = msg;
	atomic_fetch_add_explicit(&pvti_changes_, 1, memory_order_relaxed);
	pthread_mutex_unlock(&pvti_lock);
	pvti_writer_wake();
}

/* Detaches the whole queue in one step under the lock. */
pvti_msg *pvti_take_messages(void)
{
	pvti_msg *list;

	pthread_mutex_lock(&pvti_lock);
	list = msg_head;
	msg_head = msg_tail = NULL;
	pthread_mutex_unlock(&pvti_lock);
	return list;
}

/* Frees a list of messages. */
static void msg_free_list(pvti_msg *list)
{
	while (list) {
		pvti_msg *next = list->next;

		pvti_msg_free(list);
		list = next;
	}
}

/* --- Blocks -------------------------------------------------------------- */

static pvti_block *pool;     /* free blocks, linked through next; under pool_lock */
static size_t blocks_total;  /* blocks allocated, free or in use; under pool_lock */

/*
 * A cleared block. When the buffered memory is at its limit and `wait`,
 * waits for the writer to return blocks (backpressure instead of loss)
 * for as long as a trace is recording; else NULL.
 */
static pvti_block *block_get(bool wait)
{
	pvti_block *b = NULL;
	unsigned spins = 0;

	for (;;) {
		pthread_mutex_lock(&pool_lock);
		b = pool;
		if (b) {
			pool = atomic_load_explicit(&b->next, memory_order_relaxed);
		} else if (!wait || (blocks_total + 1) * sizeof(pvti_block) <= PVTI_MAX_BUFFERED_BYTES) {
			blocks_total++;
			pthread_mutex_unlock(&pool_lock);
			b = tsb_malloc(sizeof(*b));
			if (!b) {
				pthread_mutex_lock(&pool_lock);
				blocks_total--;
				pthread_mutex_unlock(&pool_lock);
				return NULL;
			}
			goto done;
		}
		pthread_mutex_unlock(&pool_lock);
		if (b)
			goto done;
		if (!__atomic_load_n(&pvti_recording_flag_, __ATOMIC_ACQUIRE))
			return NULL;
		if (++spins < 64) {
			sched_yield();
		} else {
			struct timespec ts = {0, 200000}; /* 0.2 ms */

			nanosleep(&ts, NULL);
		}
	}
done:
	atomic_init(&b->next, NULL);
	atomic_init(&b->count, 0);
	return b;
}

/* Drained blocks go back to the pool for the producers to reuse. */
void pvti_block_release(pvti_block *block)
{
	pthread_mutex_lock(&pool_lock);
	atomic_store_explicit(&block->next, pool, memory_order_relaxed);
	pool = block;
	pthread_mutex_unlock(&pool_lock);
}

/* Frees the pooled blocks (after a trace, so an idle process holds
 * little). */
static void pool_shrink(void)
{
	pvti_block *b;

	pthread_mutex_lock(&pool_lock);
	b = pool;
	pool = NULL;
	while (b) {
		pvti_block *next = atomic_load_explicit(&b->next, memory_order_relaxed);

		free(b);
		blocks_total--;
		b = next;
	}
	pthread_mutex_unlock(&pool_lock);
}

/* --- Threads ------------------------------------------------------------- */

static pthread_key_t thread_key;
static bool thread_key_ok;
static __thread pvti_thread *tls_thread __attribute__((tls_model("initial-exec")));
static pvti_thread *threads_head; /* under pvti_lock */
static uint32_t next_thread_id = 1;

/* The thread list, for the writer (see pvti-private.h). */
pvti_thread *pvti_threads_head_locked(void)
{
	return threads_head;
}

/* pthread key destructor: the thread is ending; the writer frees its
 * state once drained. */
static void thread_exit_cb(void *arg)
{
	pvti_thread *t = arg;

	atomic_store_explicit(&t->exited, true, memory_order_release);
	tls_thread = NULL;
}

/* The calling thread's state, made on first use. NULL when out of memory. */
static pvti_thread *thread_register(void)
{
	pvti_thread *t = tsb_calloc(1, sizeof(*t));
	pvti_block *b = NULL;

	if (!t || !(b = block_get(false))) {
		free(t);
		return NULL;
	}
	t->cur = t->rd = b;
	t->tid = (int)syscall(SYS_gettid);
	if (pthread_getname_np(pthread_self(), t->name, sizeof(t->name)) != 0 || !t->name[0])
		snprintf(t->name, sizeof(t->name), "thread %d", t->tid);
	atomic_init(&t->gen, 0);
	pthread_mutex_lock(&pvti_lock);
	t->id = next_thread_id++;
	t->name_version = 1;
	t->next = threads_head;
	threads_head = t;
	pthread_mutex_unlock(&pvti_lock);
	if (thread_key_ok)
		pthread_setspecific(thread_key, t);
	tls_thread = t;
	return t;
}

/*
 * The calling thread's state, attached to the current trace generation
 * (span stack and counters reset when the generation changed).
 */
static __attribute__((noinline)) pvti_thread *thread_attach(void)
{
	pvti_thread *t = tls_thread;
	uint32_t gen = atomic_load_explicit(&generation, memory_order_acquire);

	if (!t && !(t = thread_register()))
		return NULL;
	if (atomic_load_explicit(&t->gen, memory_order_relaxed) != gen) {
		atomic_store_explicit(&t->depth, 0, memory_order_relaxed);
		atomic_store_explicit(&t->unbalanced, 0, memory_order_relaxed);
		atomic_store_explicit(&t->dropped, 0, memory_order_relaxed);
		atomic_store_explicit(&t->skipped_deep, 0, memory_order_relaxed);
		t->too_deep = 0;
		t->next_seq = 0;
		atomic_store_explicit(&t->gen, gen, memory_order_release);
	}
	return t;
}

/* The calling thread's state for the current trace (the common case is
 * two loads and a compare). */
static inline pvti_thread *thread_get(void)
{
	pvti_thread *t = tls_thread;

	if (__builtin_expect(t != NULL && atomic_load_explicit(&t->gen, memory_order_relaxed) ==
	                                      atomic_load_explicit(&generation, memory_order_relaxed),
	                     1))
		return t;
	return thread_attach();
}

/* Frees the states of threads that ended once the writer has read all
 * they published; only the writer (or close, after it) calls this, so
 * nobody else is walking the list. */
void pvti_threads_prune(void)
{
	pvti_thread **link, *t, *dead = NULL;

	pthread_mutex_lock(&pvti_lock);
	link = &threads_head;
	while ((t = *link) != NULL) {
		if (atomic_load_explicit(&t->exited, memory_order_acquire) && t->rd == t->cur &&
		    t->rd_pos == atomic_load_explicit(&t->cur->count, memory_order_acquire)) {
			*link = t->next;
			t->next = dead;
			dead = t;
		} else {
			link = &t->next;
		}
	}
	pthread_mutex_unlock(&pvti_lock);
	while (dead) {
		t = dead->next;
		pvti_block_release(dead->cur);
		free(dead);
		dead = t;
	}
}

/* Renames the calling thread in traces; the writer rewrites its row. */
PVTI_API int pvti_thread_set_name(const char *name)
{
	pvti_thread *t;

	if (!name)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_thread_set_name: NULL name");
	t = tls_thread ? tls_thread : thread_register();
	if (!t)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_thread_set_name: out of memory");
	pthread_mutex_lock(&pvti_lock);
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->name_version++;
	atomic_fetch_add_explicit(&pvti_changes_, 1, memory_order_relaxed);
	pthread_mutex_unlock(&pvti_lock);
	pvti_writer_wake();
	if (atomic_load_explicit(&trace_open, memory_order_acquire))
		thread_attach(); /* so the writer lists it in this trace */
	return TSI_OK;
}

/* --- The hot path -------------------------------------------------------- */

/* The string id of `name`, through the thread's cache. UINT32_MAX when
 * out of memory. */
static inline uint32_t name_id(pvti_thread *t, const char *name)
{
	pvti_name_slot *slot;
	uint32_t id;

	if (!name)
		name = "";
	slot = &t->names[((uintptr_t)name * 0x9e3779b97f4a7c15ull) >> 58];
	if (__builtin_expect(slot->ptr == name && strcmp(slot->text, name) == 0, 1))
		return slot->id;
	if (pvti_intern(&id, name) != TSI_OK)
		return UINT32_MAX;
	pthread_mutex_lock(&pvti_lock);
	slot->text = strings[id];
	pthread_mutex_unlock(&pvti_lock);
	slot->ptr = name;
	slot->id = id;
	return id;
}

/* The next free record of the thread's chain, or NULL (counted) when no
 * block can be had. */
static inline pvti_rec *rec_slot(pvti_thread *t)
{
	if (__builtin_expect(t->pos == PVTI_BLOCK_RECS, 0)) {
		pvti_block *b = block_get(true);

		if (!b) {
			atomic_fetch_add_explicit(&t->dropped, 1, memory_order_relaxed);
			return NULL;
		}
		atomic_store_explicit(&t->cur->next, b, memory_order_release);
		t->cur = b;
		t->pos = 0;
	}
	return &t->cur->recs[t->pos];
}

/* Makes the record from rec_slot visible to the writer, and wakes the
 * writer when it sleeps for want of records (pvti-writer.c: the flag is
 * read without a fence; the writer's membarrier makes that safe). */
static inline void rec_publish(pvti_thread *t)
{
	atomic_store_explicit(&t->cur->count, ++t->pos, memory_order_release);
	pvti_writer_wake();
}

/*
 * Opens a span: pushes a frame. The time is taken last so the span does
 * not include this bookkeeping. Returns the channel when the matching end
 * must pop something (a frame, or a skipped too-deep begin), else NULL.
 */
static inline pvti_channel *span_begin(pvti_channel *channel, const char *name)
{
	pvti_thread *t;
	pvti_frame *f;
	uint32_t depth;

	if (!channel || !atomic_load_explicit(&channel->enabled, memory_order_relaxed))
		return NULL;
	t = thread_get();
	if (!t)
		return NULL;
	depth = atomic_load_explicit(&t->depth, memory_order_relaxed);
	if (__builtin_expect(depth >= PVTI_MAX_DEPTH, 0)) {
		t->too_deep++;
		atomic_fetch_add_explicit(&t->skipped_deep, 1, memory_order_relaxed);
		return channel;
	}
	f = &t->stack[depth];
	f->name = name_id(t, name);
	f->seq = t->next_seq++;
	f->channel = channel->id;
	atomic_store_explicit(&t->depth, depth + 1, memory_order_relaxed);
	f->start = pvti_ticks();
	return channel;
}

/* Out-of-line half of pvti_begin(). */
PVTI_API void pvti_begin_impl_(pvti_channel *channel, const char *name)
{
	span_begin(channel, name);
}

/* Out-of-line half of PVTI_SCOPE: the channel tells the cleanup to end. */
PVTI_API pvti_channel *pvti_scope_begin_impl_(pvti_channel *channel, const char *name)
{
	return span_begin(channel, name);
}

/*
 * Closes the innermost span when it is on `channel` and writes it as one
 * record. An end that matches nothing is counted (when its channel is
 * recorded) and dropped; an end after recording stopped just pops.
 */
PVTI_API void pvti_end_impl_(pvti_channel *channel)
{
	uint64_t now = pvti_ticks();
	pvti_thread *t;
	pvti_frame *f;
	pvti_rec *r;
	uint32_t depth;

	if (!channel)
		return;
	t = thread_get();
	if (!t)
		return;
	if (__builtin_expect(t->too_deep > 0, 0)) {
		t->too_deep--;
		return;
	}
	depth = atomic_load_explicit(&t->depth, memory_order_relaxed);
	if (__builtin_expect(depth == 0 || t->stack[depth - 1].channel != channel->id, 0)) {
		if (atomic_load_explicit(&channel->enabled, memory_order_relaxed))
			atomic_fetch_add_explicit(&t->unbalanced, 1, memory_order_relaxed);
		return;
	}
	atomic_store_explicit(&t->depth, depth - 1, memory_order_relaxed);
	if (__builtin_expect(!__atomic_load_n(&pvti_recording_flag_, __ATOMIC_RELAXED), 0))
		return;
	f = &t->stack[depth - 1];
	if (__builtin_expect(f->name == UINT32_MAX, 0))
		return; /* its name could not be interned */
	r = rec_slot(t);
	if (!r)
		return;
	r->start = f->start;
	r->end = now;
	r->seq = f->seq;
	r->parent = depth >= 2 ? t->stack[depth - 2].seq + 1 : 0;
	r->name = f->name;
	r->channel = f->channel;
	r->depth = (uint8_t)(depth - 1);
	r->kind = PVTI_REC_SPAN;
	rec_publish(t);
}

/* Records an instant, with the innermost open span as its parent. */
PVTI_API void pvti_instant_impl_(pvti_channel *channel, const char *name)
{
	uint64_t now = pvti_ticks();
	pvti_thread *t;
	pvti_rec *r;
	uint32_t depth, id;

	if (!channel || !atomic_load_explicit(&channel->enabled, memory_order_relaxed))
		return;
	t = thread_get();
	if (!t || (id = name_id(t, name)) == UINT32_MAX || !(r = rec_slot(t)))
		return;
	depth = atomic_load_explicit(&t->depth, memory_order_relaxed);
	r->start = r->end = now;
	r->seq = 0;
	r->parent = depth ? t->stack[depth - 1].seq + 1 : 0;
	r->name = id;
	r->channel = channel->id;
	r->depth = (uint8_t)depth;
	r->kind = PVTI_REC_INSTANT;
	rec_publish(t);
}

/* Records a sample; the value's bits ride in the record's end field. */
PVTI_API void pvti_series_add_impl_(pvti_series *series, double value)
{
	uint64_t now = pvti_ticks();
	pvti_thread *t;
	pvti_rec *r;

	if (!series)
		return;
	t = thread_get();
	if (!t || !(r = rec_slot(t)))
		return;
	r->start = now;
	memcpy(&r->end, &value, sizeof(value));
	r->seq = r->parent = 0;
	r->name = series->id;
	r->channel = 0;
	r->depth = 0;
	r->kind = PVTI_REC_SAMPLE;
	rec_publish(t);
}

/* --- Metadata and heatmaps ---------------------------------------------- */

/* TSI_OK when `json` parses as JSON. */
static int check_json(const char *json, const char *what)
{
	cJSON *v;

	if (!json)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: NULL JSON", what);
	v = cJSON_Parse(json);
	if (!v)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: not valid JSON: %.60s", what, json);
	cJSON_Delete(v);
	return TSI_OK;
}

/* Metadata is rare and of any size: it goes through the message queue,
 * keyed by the open span's (thread, seq). */
PVTI_API int pvti_event_metadata(const char *json)
{
	pvti_thread *t;
	pvti_msg *m;
	uint32_t depth;
	int rc = check_json(json, "pvti_event_metadata");

	if (rc != TSI_OK || !pvti_recording_())
		return rc;
	t = thread_get();
	if (!t)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_event_metadata: out of memory");
	depth = atomic_load_explicit(&t->depth, memory_order_relaxed);
	if (depth == 0)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "pvti_event_metadata: no tracepoint is open on this thread");
	m = tsb_calloc(1, sizeof(*m));
	if (!m || !(m->text = tsb_strdup(json))) {
		free(m);
		return tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_event_metadata: out of memory");
	}
	m->kind = PVTI_MSG_EVENT_METADATA;
	m->thread = t->id;
	m->seq = t->stack[depth - 1].seq;
	msg_push(m);
	return TSI_OK;
}

/* Queued for the writer; accepted while a trace is open, also after its
 * duration ran out. */
PVTI_API int pvti_trace_metadata(const char *key, const char *json)
{
	pvti_msg *m;
	int rc;

	if (!key || !*key)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_trace_metadata: empty key");
	if (strncmp(key, "pvti.", 5) == 0)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "pvti_trace_metadata: '%s': keys starting \"pvti.\" are reserved",
		                     key);
	rc = check_json(json, "pvti_trace_metadata");
	if (rc != TSI_OK || !atomic_load_explicit(&trace_open, memory_order_acquire))
		return rc;
	m = tsb_calloc(1, sizeof(*m));
	if (!m || !(m->key = tsb_strdup(key)) || !(m->text = tsb_strdup(json))) {
		pvti_msg_free(m);
		return tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_trace_metadata: out of memory");
	}
	m->kind = PVTI_MSG_TRACE_METADATA;
	msg_push(m);
	return TSI_OK;
}

/* Bucket of `v`: how many edges are <= v (upper bound). */
static size_t heatmap_bucket(const pvti_heatmap *h, double v)
{
	size_t lo = 0, hi = h->n_edges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->edges[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Bins the values now (the caller's array is not kept) and queues the
 * counts for the writer. NaNs are skipped. */
PVTI_API int pvti_heatmap_add(pvti_heatmap *heatmap, const double *values, size_t n)
{
	uint64_t now = pvti_ticks();
	pvti_msg *m;
	size_t i;

	if (!heatmap || (!values && n))
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_heatmap_add: NULL argument");
	if (!pvti_recording_())
		return TSI_OK;
	m = tsb_calloc(1, sizeof(*m));
	if (!m || !(m->counts = tsb_calloc(heatmap->n_edges + 1, sizeof(uint64_t)))) {
		free(m);
		return tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_heatmap_add: out of memory");
	}
	for (i = 0; i < n; i++)
		if (!isnan(values[i]))
			m->counts[heatmap_bucket(heatmap, values[i])]++;
	m->kind = PVTI_MSG_HEATMAP;
	m->id = heatmap->id;
	m->n = heatmap->n_edges + 1;
	m->ticks = now;
	msg_push(m);
	return TSI_OK;
}

/* --- Opening and closing ------------------------------------------------- */

void pvti_set_recording(bool on)
{
	__atomic_store_n(&pvti_recording_flag_, on ? 1 : 0, __ATOMIC_RELEASE);
}

/* The recording flag, as the tracepoints see it. */
PVTI_API bool pvti_is_recording(void)
{
	return __atomic_load_n(&pvti_recording_flag_, __ATOMIC_ACQUIRE) != 0;
}

/* Installs the trace's channel list and applies it to every channel.
 * Returns TSI_ERR_NO_MEMORY when the list cannot be copied. */
static int apply_channels(const pvti_options *opts)
{
	char **list = NULL;
	size_t i, n = opts->channels ? opts->n_channels : 0, nch;

	if (n) {
		list = tsb_calloc(n, sizeof(*list));
		if (!list)
			return TSI_ERR_NO_MEMORY;
		for (i = 0; i < n; i++) {
			if (!(list[i] = tsb_strdup(opts->channels[i] ? opts->channels[i] : ""))) {
				while (i)
					free(list[--i]);
				free(list);
				return TSI_ERR_NO_MEMORY;
			}
		}
	}
	pthread_mutex_lock(&pvti_lock);
	for (i = 0; i < n_wanted; i++)
		free(wanted[i]);
	free(wanted);
	wanted = list;
	n_wanted = n;
	nch = atomic_load_explicit(&n_channels, memory_order_relaxed);
	for (i = 0; i < nch; i++)
		atomic_store_explicit(&channels[i]->enabled, channel_wanted_locked(channels[i]->name),
		                      memory_order_relaxed);
	pthread_mutex_unlock(&pvti_lock);
	return TSI_OK;
}

/* Opens a trace; the caller holds control_lock. */
static int open_locked(const pvti_options *opts, const char *warning)
{
	pvti_options defaults = PVTI_OPTIONS_INIT;
	pvti_trace *trace = NULL;
	uint32_t gen;
	int rc;

	if (!opts)
		opts = &defaults;
	if (opts->version != PVTI_OPTIONS_VERSION)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_open: options version %u, expected %u",
		                     opts->version, PVTI_OPTIONS_VERSION);
	if (current)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_open: a trace is already open (%s)",
		                     pvti_trace_path(current));
	if (!opts->enable)
		return TSI_OK;
	if (!isfinite(opts->duration) || opts->duration < 0)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_open: bad duration %g",
		                     opts->duration);
	rc = apply_channels(opts);
	if (rc != TSI_OK)
		return tsi_set_error(rc, "pvti_open: out of memory");
	msg_free_list(pvti_take_messages()); /* leftovers of no trace */
	gen = atomic_fetch_add_explicit(&generation, 1, memory_order_acq_rel) + 1;
	rc = pvti_trace_new(&trace, opts, warning, gen);
	if (rc != TSI_OK)
		return rc;
	current = trace;
	atomic_store_explicit(&trace_open, true, memory_order_release);
	pvti_set_recording(true);
	return TSI_OK;
}

/* Closes the open trace, if any; the caller holds control_lock. */
static int close_locked(void)
{
	int rc;

	if (!current)
		return TSI_OK;
	pvti_set_recording(false);
	rc = pvti_trace_finish(current);
	current = NULL;
	atomic_store_explicit(&trace_open, false, memory_order_release);
	msg_free_list(pvti_take_messages());
	pvti_threads_prune();
	pool_shrink();
	return rc;
}

/* Opens a trace with explicit options (see open_locked). */
PVTI_API int pvti_open(const pvti_options *opts)
{
	int rc;

	pthread_mutex_lock(&control_lock);
	rc = open_locked(opts, NULL);
	pthread_mutex_unlock(&control_lock);
	return rc;
}

/*
 * PVTI_OPTIONS as the library reads it at load: unset or blank means no
 * trace; anything else means a trace, with the defaults when the value
 * cannot be read, and one line on stderr that says why whatever the log
 * level (the user asked for a trace and is getting another one).
 */
PVTI_API int pvti_open_from_env(void)
{
	const char *text = getenv("PVTI_OPTIONS");
	pvti_options *opts = NULL;
	char *warning = NULL;
	int rc;

	pthread_mutex_lock(&control_lock);
	rc = close_locked();
	if (rc != TSI_OK)
		tsi_log(TSI_LOG_ERR, "PVTI", "closing the previous trace: %s", tsi_error_last());
	rc = TSI_OK;
	if (!text || !text[strspn(text, " \t\r\n")])
		goto cleanup;
	rc = pvti_options_parse(&opts, text);
	if (rc == TSI_ERR_BAD_OPTION) {
		warning = tsb_strdup(tsi_error_last());
		tsi_log_always("PVTI", "%s", tsi_error_last());
	} else if (rc != TSI_OK) {
		goto cleanup;
	}
	rc = open_locked(opts, warning);
	if (rc != TSI_OK)
		tsi_log_always("PVTI", "cannot start the trace PVTI_OPTIONS asks for: %s",
		               tsi_error_last());
cleanup:
	pthread_mutex_unlock(&control_lock);
	pvti_options_free(opts);
	free(warning);
	return rc;
}

/* A copy, since the trace (and its path) may be closed by another thread. */
PVTI_API char *pvti_dup_file_name(void)
{
	char *name = NULL;

	pthread_mutex_lock(&control_lock);
	if (current)
		name = tsb_strdup(pvti_trace_path(current));
	pthread_mutex_unlock(&control_lock);
	return name;
}

/* Holds control_lock so the trace cannot be closed while waiting on it. */
PVTI_API int pvti_flush(void)
{
	int rc = TSI_OK;

	pthread_mutex_lock(&control_lock);
	if (current)
		rc = pvti_trace_flush(current);
	pthread_mutex_unlock(&control_lock);
	return rc;
}

/* Closes the open trace (see close_locked). */
PVTI_API int pvti_close(void)
{
	int rc;

	pthread_mutex_lock(&control_lock);
	rc = close_locked();
	pthread_mutex_unlock(&control_lock);
	return rc;
}

/* --- Process life -------------------------------------------------------- */

/* fork(): the child gets no writer thread, so it must not think a trace
 * is open; holding the locks across fork() keeps the registries whole. */
static void fork_prepare_cb(void)
{
	pthread_mutex_lock(&control_lock);
	pthread_mutex_lock(&pvti_lock);
	pthread_mutex_lock(&pool_lock);
}

/* Releases what fork_prepare_cb took. */
static void fork_parent_cb(void)
{
	pthread_mutex_unlock(&pool_lock);
	pthread_mutex_unlock(&pvti_lock);
	pthread_mutex_unlock(&control_lock);
}

/* In the child the parent's trace is abandoned, not closed: its file and
 * SQLite connection belong to the parent. The child may open its own. */
static pvti_trace *abandoned; /* a parent's trace in a child: reachable, unused */

static void fork_child_cb(void)
{
	pthread_mutex_unlock(&pool_lock);
	pthread_mutex_unlock(&pvti_lock);
	if (current) {
		pvti_set_recording(false);
		atomic_store_explicit(&trace_open, false, memory_order_relaxed);
		abandoned = current;
		current = NULL;
	}
	/* The parent's writer is not in the child: nothing to wake. */
	atomic_store(&pvti_writer_idle_, 0);
	pthread_mutex_unlock(&control_lock);
}

/* Library load: the clock, the thread-exit hook, and PVTI_OPTIONS. */
__attribute__((constructor)) static void pvti_load(void)
{
	pvti_clock_init();
	thread_key_ok = pthread_key_create(&thread_key, thread_exit_cb) == 0;
	pthread_atfork(fork_prepare_cb, fork_parent_cb, fork_child_cb);
	pvti_open_from_env();
}

/* Library unload or process exit: the trace is closed cleanly. */
__attribute__((destructor)) static void pvti_unload(void)
{
	pvti_close();
}
