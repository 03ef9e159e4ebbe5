/*
 * Spans in a window (tsr_trace_list_events): the chunk decoder, the tree that
 * finds the chunks overlapping a window, and the level of detail.
 *
 * A thread's chunks hold its spans in the order they ended, and spans of
 * one depth never overlap, so decoding the overlapping chunks in write
 * order and dealing the spans out by depth gives each depth's spans in
 * start order without a sort (a file where that does not hold is sorted
 * instead). Narrow spans are then merged in one pass per depth.
 *
 * Decoding is bounded: when the chunks of a window hold more than
 * DECODE_BUDGET spans and the resolution is coarse, the answer comes from
 * the level of detail, the file's timeline_lod (read through its primary
 * key, only the buckets of the window) or, for a thread whose file has
 * none or for resolutions finer than it, the same buckets built once from
 * the chunks and kept. Either way a query costs about O(pixels x log n).
 *
 * The decoder is this library's own (the writer's is in instrument/): it
 * trusts nothing in the blob. Every integer is bounds checked, times may
 * not overflow or leave the chunk's [first_ns, last_ns], names and
 * channels must exist, depths stay within TRACE_MAX_DEPTH, and the blob
 * must hold exactly the count its row claims.
 */
#include "trace-private.h"

#include <stdlib.h>
#include <string.h>

/* Most spans a window may decode before the level of detail is used. */
#define DECODE_BUDGET (1u << 18)
/* Level-of-detail buckets built in memory at level 0: between these,
 * about one per 32 spans of the thread. */
#define MLOD_MIN_BUCKETS 4096u
#define MLOD_MAX_BUCKETS (1u << 18)

/* --- The decoder ----------------------------------------------------------- */

/* Grows a decode buffer to `need` events (contents not kept). */
static int grow_buffer(tsr_trace *tr, trace_event **buf, size_t *cap, size_t need)
{
	trace_event *b;

	if (need <= *cap)
		return TSR_OK;
	b = trace_alloc(tr, need, sizeof(*b));
	if (!b)
		return tr->code;
	trace_free_mem(tr, *buf, *cap * sizeof(**buf));
	*buf = b;
	*cap = need;
	return TSR_OK;
}

/* Reports a malformed blob. */
static int bad_chunk(tsr_trace *tr, size_t p, const trace_chunk *c, const char *why)
{
	return trace_fail(tr, TSR_ERR_CORRUPT, "%s: chunk %lld is malformed (%s)",
	                  tr->processes[p].path, (long long)c->id, why);
}

/*
 * Reads chunk `c` of `thread` and decodes its c->count spans into evs.
 * The row is read again and must agree with the index read at open (a
 * file changed or lying between its index and its table is corrupt).
 */
int trace_decode_chunk(tsr_trace *tr, trace_event **buf, size_t *cap, size_t thread,
                       const trace_chunk *c)
{
	const tsr_trace_thread *th = &tr->threads[thread];
	size_t p = th->process;
	trace_file *f = &tr->files[p];
	int64_t off = tr->processes[p].offset_ns, lo = c->first_ns - off, hi = c->last_ns - off;
	const void *b;
	const char *why;
	size_t len;
	int rc;

	if (!f->chunk_st &&
	    (rc = trace_prepare(tr, &f->chunk_st, p,
	                        "SELECT thread, first_ns, last_ns, count, data FROM event_chunk "
	                        "WHERE id = ?")) != TSR_OK)
		return rc;
	trace_restart(f->chunk_st);
	sqlite3_bind_int64(f->chunk_st, 1, c->id);
	rc = sqlite3_step(f->chunk_st);
	if (rc != SQLITE_ROW) {
		rc = rc == SQLITE_DONE ? bad_chunk(tr, p, c, "its row is gone")
		                       : trace_sql_fail(tr, f->db, rc, tr->processes[p].path);
		goto cleanup;
	}
	if (sqlite3_column_int64(f->chunk_st, 0) != th->id ||
	    sqlite3_column_int64(f->chunk_st, 1) != lo || sqlite3_column_int64(f->chunk_st, 2) != hi ||
	    sqlite3_column_int64(f->chunk_st, 3) != (int64_t)c->count ||
	    sqlite3_column_type(f->chunk_st, 4) != SQLITE_BLOB) {
		rc = bad_chunk(tr, p, c, "its row changed");
		goto cleanup;
	}
	b = sqlite3_column_blob(f->chunk_st, 4);
	len = (size_t)sqlite3_column_bytes(f->chunk_st, 4);
	/* A count the blob cannot hold is refused before anything is
	 * allocated for it. */
	if (!b || !tsf_chunk_fits(c->count, len)) {
		rc = bad_chunk(tr, p, c, "too short for its count");
		goto cleanup;
	}
	if ((rc = grow_buffer(tr, buf, cap, c->count)) != TSR_OK)
		goto cleanup;
	if (tsf_chunk_decode(*buf, c->count, b, len, &why)) {
		rc = bad_chunk(tr, p, c, why);
		goto cleanup;
	}
	/* What the codec cannot know: the file's names, channels and time
	 * range, and the reader's depth limit. Then the handle's ids and the
	 * merged time axis. */
	for (uint32_t i = 0; i < c->count; i++) {
		trace_event *e = &(*buf)[i];

		if (e->name >= f->n_names || f->names[e->name] == TSR_TRACE_NO_NAME) {
			rc = bad_chunk(tr, p, c, "a name that does not exist");
			goto cleanup;
		}
		if (e->channel >= f->n_channels || f->channels[e->channel] == UINT32_MAX) {
			rc = bad_chunk(tr, p, c, "a channel that does not exist");
			goto cleanup;
		}
		if (e->depth > TRACE_MAX_DEPTH) {
			rc = bad_chunk(tr, p, c, "a depth out of range");
			goto cleanup;
		}
		if (e->start_ns < lo || e->start_ns > hi || e->end_ns > hi) {
			rc = bad_chunk(tr, p, c, "an event outside the chunk's time range");
			goto cleanup;
		}
		e->start_ns += off;
		e->end_ns += off;
		e->name = f->names[e->name];
		e->channel = f->channels[e->channel];
	}
cleanup:
	sqlite3_reset(f->chunk_st);
	return rc;
}

/* --- The chunk tree ----------------------------------------------------------- */

/* Builds every thread's tree: least first_ns and greatest last_ns over
 * each subtree, so the chunks overlapping a window are found without
 * assuming any order of the chunks' times. */
int trace_build_trees(tsr_trace *tr)
{
	size_t t, i;

	for (t = 0; t < tr->n_threads; t++) {
		trace_thread_data *td = &tr->tdata[t];
		size_t size = 1;

		while (size < td->n_chunks)
			size *= 2;
		td->tree_size = size;
		td->tree_first = trace_alloc(tr, 2 * size, sizeof(int64_t));
		td->tree_last = trace_alloc(tr, 2 * size, sizeof(int64_t));
		if (!td->tree_first || !td->tree_last)
			return tr->code;
		for (i = 0; i < size; i++) {
			td->tree_first[size + i] = i < td->n_chunks ? td->chunks[i].first_ns : INT64_MAX;
			td->tree_last[size + i] = i < td->n_chunks ? td->chunks[i].last_ns : INT64_MIN;
		}
		for (i = size - 1; i >= 1; i--) {
			int64_t a = td->tree_first[2 * i], b = td->tree_first[2 * i + 1];
			int64_t x = td->tree_last[2 * i], y = td->tree_last[2 * i + 1];

			td->tree_first[i] = a < b ? a : b;
			td->tree_last[i] = x > y ? x : y;
		}
	}
	return TSR_OK;
}

/* Frees the thread's chunks, tree and level of detail. */
void trace_thread_data_clear(tsr_trace *tr, trace_thread_data *td)
{
	size_t l;

	(void)tr;
	free(td->chunks);
	free(td->tree_first);
	free(td->tree_last);
	if (td->mlod) {
		for (l = 0; l < td->mlod->n_levels; l++)
			free(td->mlod->b[l]);
		free(td->mlod);
	}
	memset(td, 0, sizeof(*td));
}

/* The chunks that may hold spans in [from, to): first_ns < to and
 * last_ns >= from. A depth-first walk, left to right, of the subtrees
 * that can hold one; the stack is bounded by the tree's height. */
int trace_find_chunks(tsr_trace *tr, size_t **out, size_t *n, size_t thread, int64_t from,
                      int64_t to)
{
	const trace_thread_data *td = &tr->tdata[thread];
	size_t stack[2 * 64 + 2], top = 0, cap = 0, count = 0, *list = NULL;

	*out = NULL;
	*n = 0;
	if (!td->n_chunks || from >= to)
		return TSR_OK;
	stack[top++] = 1;
	while (top) {
		size_t node = stack[--top];

		if (td->tree_first[node] >= to || td->tree_last[node] < from)
			continue;
		if (node < td->tree_size) {
			stack[top++] = 2 * node + 1;
			stack[top++] = 2 * node;
			continue;
		}
		if (count == cap) {
			size_t grown = cap ? cap * 2 : 16;
			size_t *l = trace_realloc(tr, list, cap, grown, sizeof(*l));

			if (!l) {
				trace_free_mem(tr, list, cap * sizeof(*list));
				return tr->code;
			}
			list = l;
			cap = grown;
		}
		list[count++] = node - td->tree_size;
	}
	/* Count only the entries used, so the caller frees `count` of them. */
	if (list && cap > count)
		trace_release(tr, (cap - count) * sizeof(*list));
	*out = list;
	*n = count;
	return TSR_OK;
}

/* --- Building items ------------------------------------------------------------- */

/* A growable array of items. */
typedef struct item_vec {
	tsr_trace_item *v;
	size_t n, cap;
} item_vec;

/* Appends an item, doubling the array (counted against the cap). */
static int item_push(tsr_trace *tr, item_vec *iv, const tsr_trace_item *it)
{
	if (iv->n == iv->cap) {
		size_t grown = iv->cap ? iv->cap * 2 : 256;
		tsr_trace_item *v = trace_realloc(tr, iv->v, iv->cap, grown, sizeof(*v));

		if (!v)
			return tr->code;
		iv->v = v;
		iv->cap = grown;
	}
	iv->v[iv->n++] = *it;
	return TSR_OK;
}

/* One span as an EVENT item. */
static tsr_trace_item event_item(const trace_event *e)
{
	tsr_trace_item it;

	it.start_ns = e->start_ns;
	it.end_ns = e->end_ns;
	it.count = 1;
	it.busy_ns = (uint64_t)(e->end_ns - e->start_ns);
	it.seq = e->seq;
	it.parent = e->parent;
	it.name = e->name;
	it.channel = e->channel;
	it.depth = e->depth;
	it.kind = TSR_TRACE_ITEM_EVENT;
	return it;
}

/* Orders spans by start, then seq (a fallback for files whose spans of
 * one depth are not already in start order). */
static int compare_events(const void *a, const void *b)
{
	const trace_event *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * Turns one depth's spans (start order) into items: a span at least `res`
 * wide is an EVENT; consecutive narrower ones whose gaps are narrower
 * than `res` form one MERGED item (a run of one stays an EVENT).
 */
static int merge_depth(tsr_trace *tr, item_vec *iv, const trace_event *evs, size_t n,
                       uint64_t res)
{
	tsr_trace_item run;
	uint64_t longest = 0;
	bool open = false;
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		const trace_event *e = &evs[i];
		uint64_t w = (uint64_t)(e->end_ns - e->start_ns);

		if (res && w < res) {
			if (open && (e->start_ns <= run.end_ns ||
			             (uint64_t)e->start_ns - (uint64_t)run.end_ns < res)) {
				run.count++;
				run.busy_ns += w;
				if (e->end_ns > run.end_ns)
					run.end_ns = e->end_ns;
				if (w > longest) {
					longest = w;
					run.name = e->name;
					run.channel = e->channel;
				}
				run.kind = TSR_TRACE_ITEM_MERGED;
				run.seq = run.parent = -1;
				continue;
			}
			if (open && (rc = item_push(tr, iv, &run)) != TSR_OK)
				return rc;
			run = event_item(e);
			longest = w;
			open = true;
			continue;
		}
		if (open && (rc = item_push(tr, iv, &run)) != TSR_OK)
			return rc;
		open = false;
		run = event_item(e);
		if ((rc = item_push(tr, iv, &run)) != TSR_OK)
			return rc;
	}
	return open ? item_push(tr, iv, &run) : TSR_OK;
}

/*
 * The exact answer: decodes the chunks `idx[0..n_idx)` of `thread`, keeps
 * the spans in the window, deals them out by depth and merges each depth.
 */
static int events_exact(tsr_trace *tr, item_vec *iv, size_t thread, const size_t *idx,
                        size_t n_idx, int64_t from, int64_t to, uint64_t res)
{
	const trace_thread_data *td = &tr->tdata[thread];
	trace_event *scratch = NULL, *kept = NULL, *dealt = NULL;
	size_t cap = 0, n_kept = 0, cap_kept = 0, i, k, d;
	size_t per_depth[TRACE_MAX_DEPTH + 2], at[TRACE_MAX_DEPTH + 2];
	int rc = TSR_OK;

	memset(per_depth, 0, sizeof(per_depth));
	for (i = 0; i < n_idx; i++) {
		const trace_chunk *c = &td->chunks[idx[i]];

		if ((rc = trace_decode_chunk(tr, &scratch, &cap, thread, c)) != TSR_OK)
			goto cleanup;
		for (k = 0; k < c->count; k++) {
			if (!trace_event_in(&scratch[k], from, to))
				continue;
			if (n_kept == cap_kept) {
				size_t grown = cap_kept ? cap_kept * 2 : 1024;
				trace_event *g = trace_realloc(tr, kept, cap_kept, grown, sizeof(*g));

				if (!g) {
					rc = tr->code;
					goto cleanup;
				}
				kept = g;
				cap_kept = grown;
			}
			kept[n_kept++] = scratch[k];
			per_depth[scratch[k].depth]++;
		}
	}
	dealt = trace_alloc(tr, n_kept, sizeof(*dealt));
	if (!dealt) {
		rc = tr->code;
		goto cleanup;
	}
	for (d = 0, k = 0; d <= TRACE_MAX_DEPTH; d++) {
		at[d] = k;
		k += per_depth[d];
	}
	for (i = 0; i < n_kept; i++)
		dealt[at[kept[i].depth]++] = kept[i];
	for (d = 0, k = 0; d <= TRACE_MAX_DEPTH; k += per_depth[d], d++) {
		trace_event *evs = dealt + k;
		size_t n = per_depth[d];

		for (i = 1; i < n; i++)
			if (compare_events(&evs[i - 1], &evs[i]) > 0)
				break;
		if (i < n)
			qsort(evs, n, sizeof(*evs), compare_events);
		if (n && (rc = merge_depth(tr, iv, evs, n, res)) != TSR_OK)
			goto cleanup;
	}
cleanup:
	trace_free_mem(tr, scratch, cap * sizeof(*scratch));
	trace_free_mem(tr, kept, cap_kept * sizeof(*kept));
	trace_free_mem(tr, dealt, n_kept * sizeof(*dealt));
	return rc;
}

/* --- Level of detail: grouping buckets into pixels ---------------------------------- */

/* Buckets arrive in time order and are grouped by the pixel they start
 * in; each group becomes one SUMMARY item. */
typedef struct lod_group {
	int64_t from;     /* the window's start (clamped to the thread) */
	uint64_t res;
	bool open;
	uint64_t slot;
	uint64_t best;    /* the weight of the chosen name */
	tsr_trace_item it;
} lod_group;

/* Adds one bucket (its start, width, spans starting, outermost time, top
 * name and that name's weight) to the current pixel, or starts the next. */
static int lod_group_add(tsr_trace *tr, item_vec *iv, lod_group *g, int64_t start, uint64_t width,
                         uint64_t events, uint64_t busy, uint32_t top, uint64_t weight)
{
	uint64_t slot = start > g->from ? ((uint64_t)start - (uint64_t)g->from) / g->res : 0;
	int64_t end = start > INT64_MAX - (int64_t)width ? INT64_MAX : start + (int64_t)width;
	int rc;

	if (!events && !busy)
		return TSR_OK;
	if (g->open && slot == g->slot) {
		g->it.end_ns = end;
		g->it.count += events;
		g->it.busy_ns += busy;
		if (top != TSR_TRACE_NO_NAME && weight > g->best) {
			g->best = weight;
			g->it.name = top;
		}
		return TSR_OK;
	}
	if (g->open && (rc = item_push(tr, iv, &g->it)) != TSR_OK)
		return rc;
	g->open = true;
	g->slot = slot;
	g->best = top != TSR_TRACE_NO_NAME ? weight : 0;
	memset(&g->it, 0, sizeof(g->it));
	g->it.start_ns = start;
	g->it.end_ns = end;
	g->it.count = events;
	g->it.busy_ns = busy;
	g->it.seq = g->it.parent = -1;
	g->it.name = top;
	g->it.kind = TSR_TRACE_ITEM_SUMMARY;
	return TSR_OK;
}

/* Emits the last pixel. */
static int lod_group_finish(tsr_trace *tr, item_vec *iv, lod_group *g)
{
	return g->open ? item_push(tr, iv, &g->it) : TSR_OK;
}

/* The file's level-of-detail widths for `thread`, read once: level l
 * must be 16^l times level 0, which is a positive width. */
static int load_file_lod(tsr_trace *tr, size_t thread)
{
	trace_thread_data *td = &tr->tdata[thread];
	const tsr_trace_thread *th = &tr->threads[thread];
	sqlite3_stmt *st = NULL;
	size_t l;
	int rc;

	if (td->lod_state)
		return TSR_OK;
	td->lod_state = 1;
	td->lod_levels = 0;
	if (!tr->processes[th->process].complete || !th->events)
		return TSR_OK;
	rc = trace_prepare(tr, &st, th->process,
	                   "SELECT width_ns FROM timeline_lod WHERE thread = ? AND level = ? LIMIT 1");
	for (l = 0; rc == TSR_OK && l < TRACE_LOD_LEVELS; l++) {
		int64_t w;

		trace_restart(st);
		sqlite3_bind_int64(st, 1, th->id);
		sqlite3_bind_int64(st, 2, (int64_t)l);
		rc = sqlite3_step(st);
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW) {
			rc = trace_sql_fail(tr, tr->files[th->process].db, rc,
			                    tr->processes[th->process].path);
			break;
		}
		rc = TSR_OK;
		w = sqlite3_column_int64(st, 0);
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || w <= 0 ||
		    (l && (uint64_t)w != td->lod_width[l - 1] * TRACE_LOD_FACTOR) ||
		    (uint64_t)w > (uint64_t)INT64_MAX / TRACE_LOD_FACTOR) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: timeline_lod level %zu has width %lld",
			                tr->processes[th->process].path, l, (long long)w);
			break;
		}
		td->lod_width[l] = (uint64_t)w;
		td->lod_levels = l + 1;
	}
	sqlite3_finalize(st);
	if (rc == TSR_OK && td->lod_levels)
		td->lod_state = 2;
	return rc;
}

/* The coarsest level whose buckets are no wider than `res`, or -1. */
static int pick_level(const uint64_t *width, size_t n_levels, uint64_t res)
{
	int level = -1;
	size_t l;

	for (l = 0; l < n_levels; l++)
		if (width[l] <= res)
			level = (int)l;
	return level;
}

/* SUMMARY items from the file's timeline_lod: the buckets of the window
 * at `level`, through the table's primary key. */
static int events_file_lod(tsr_trace *tr, item_vec *iv, size_t thread, int level, int64_t from,
                           int64_t to, uint64_t res)
{
	const trace_thread_data *td = &tr->tdata[thread];
	const tsr_trace_thread *th = &tr->threads[thread];
	size_t p = th->process;
	uint64_t w = td->lod_width[level];
	int64_t lo, hi, off = tr->processes[p].offset_ns, last = -1;
	lod_group g = {from, res, false, 0, 0, {0}};
	sqlite3_stmt *st = NULL;
	int rc;

	trace_window_to_file(tr, p, from, to, &lo, &hi);
	if (hi <= 0)
		return TSR_OK;
	if (lo < 0)
		lo = 0;
	rc = trace_prepare(tr, &st, p,
	                   "SELECT bucket, width_ns, events, busy_ns, top_name FROM timeline_lod "
	                   "WHERE thread = ? AND level = ? AND bucket BETWEEN ? AND ? ORDER BY bucket");
	if (rc != TSR_OK)
		return rc;
	sqlite3_bind_int64(st, 1, th->id);
	sqlite3_bind_int64(st, 2, level);
	sqlite3_bind_int64(st, 3, (int64_t)((uint64_t)lo / w));
	sqlite3_bind_int64(st, 4, (int64_t)((uint64_t)(hi - 1) / w));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t bucket = sqlite3_column_int64(st, 0), start;
		int64_t width = sqlite3_column_int64(st, 1), events = sqlite3_column_int64(st, 2);
		int64_t busy = sqlite3_column_int64(st, 3);
		uint32_t top = TSR_TRACE_NO_NAME;

		if (bucket <= last || (uint64_t)width != w || events < 0 || busy < 0 ||
		    (uint64_t)busy > w || __builtin_mul_overflow(bucket, width, &start) ||
		    __builtin_add_overflow(start, off, &start) || start > INT64_MAX - width) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: a timeline_lod row is inconsistent",
			                tr->processes[p].path);
			goto cleanup;
		}
		last = bucket;
		if (sqlite3_column_type(st, 4) != SQLITE_NULL &&
		    (rc = trace_map_name(tr, &top, p, sqlite3_column_int64(st, 4))) != TSR_OK)
			goto cleanup;
		if ((rc = lod_group_add(tr, iv, &g, start, w, (uint64_t)events, (uint64_t)busy, top,
		                        (uint64_t)busy)) != TSR_OK)
			goto cleanup;
	}
	if (rc != SQLITE_DONE) {
		rc = trace_sql_fail(tr, tr->files[p].db, rc, tr->processes[p].path);
		goto cleanup;
	}
	rc = lod_group_finish(tr, iv, &g);
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/* --- Level of detail built from the chunks ------------------------------------------- */

/* Adds one span: counted at level 0 (the levels above sum it at the
 * end), and, when outermost, its time added to every level. Returns the
 * buckets it covered. */
static uint64_t mlod_add(trace_mlod *m, const trace_event *e)
{
	uint64_t start = (uint64_t)e->start_ns - (uint64_t)m->base_ns;
	uint64_t end = (uint64_t)e->end_ns - (uint64_t)m->base_ns;
	uint64_t covered = 0, k = start >> m->shift[0];
	size_t l;

	m->b[0][k < m->n[0] ? k : m->n[0] - 1].events++;
	if (e->depth != 0 || end <= start)
		return 0;
	for (l = 0; l < m->n_levels; l++) {
		uint64_t w = m->width[l], last;

		k = start >> m->shift[l];
		last = (end - 1) >> m->shift[l];
		if (k >= m->n[l])
			k = m->n[l] - 1;
		if (last >= m->n[l])
			last = m->n[l] - 1;
		covered += last - k + 1;
		for (; k <= last; k++) {
			uint64_t lo = k * w > start ? k * w : start;
			uint64_t hi = (k + 1) * w < end ? (k + 1) * w : end;

			if (hi > lo)
				tsf_lod_cover(&m->b[l][k], e->name, hi - lo);
		}
	}
	return covered;
}

/* Fills the span counts of the levels above 0: bucket k of level l holds
 * buckets 16k .. 16k + 15 of level l - 1. */
static void mlod_sum_levels(trace_mlod *m)
{
	size_t l, k;

	for (l = 1; l < m->n_levels; l++)
		for (k = 0; k < m->n[l - 1]; k++)
			m->b[l][k / TRACE_LOD_FACTOR].events += m->b[l - 1][k].events;
}

/*
 * Builds the thread's level of detail from its chunks, once: level 0 has
 * about one bucket per 32 spans (within MLOD_MIN/MAX_BUCKETS), each level
 * above is 16 times coarser, up to one bucket. Counted against the cap.
 * Outermost spans of a thread never overlap, so each level's buckets are
 * covered about once in all; a file whose outermost spans overlap would
 * make this quadratic, and is refused once the work passes twice that.
 * The one part of tsr_trace_list_events that reports progress (a pass over
 * every chunk of the thread).
 */
static int build_mlod(tsr_trace *tr, size_t thread)
{
	trace_thread_data *td = &tr->tdata[thread];
	const tsr_trace_thread *th = &tr->threads[thread];
	uint64_t span = (uint64_t)th->last_ns - (uint64_t)th->first_ns, target = MLOD_MIN_BUCKETS, w = 1;
	trace_event *scratch = NULL;
	size_t cap = 0, i, k;
	uint64_t work = 0, budget = 1024;
	tsr_progress_frame frame;
	trace_mlod *m;
	int rc = TSR_OK;

	if (td->mlod)
		return TSR_OK;
	if (tsr_progress_push(&tr->progress, &frame, "building the level of detail")) {
		tsr_progress_pop(&tr->progress, &frame, false);
		return trace_fail_cancelled(tr);
	}
	while (target < MLOD_MAX_BUCKETS && target < th->events / 32)
		target *= 2;
	while (span / w >= target)
		w *= 2;
	m = trace_alloc(tr, 1, sizeof(*m));
	if (!m) {
		tsr_progress_pop(&tr->progress, &frame, false);
		return tr->code;
	}
	m->base_ns = th->first_ns;
	for (;;) {
		size_t l = m->n_levels;

		m->width[l] = w;
		m->shift[l] = (unsigned)__builtin_ctzll(w);
		m->n[l] = (size_t)(span / w) + 1;
		m->b[l] = trace_alloc(tr, m->n[l], sizeof(trace_lod_bucket));
		if (!m->b[l]) {
			rc = tr->code;
			goto cleanup;
		}
		m->n_levels++;
		if (m->n[l] == 1 || m->n_levels == TRACE_LOD_LEVELS || w > INT64_MAX / TRACE_LOD_FACTOR)
			break;
		w *= TRACE_LOD_FACTOR;
	}
	for (i = 0; i < m->n_levels; i++)
		budget += 2 * (m->n[i] + th->events);
	for (i = 0; i < td->n_chunks; i++) {
		if (tsr_progress_at(&tr->progress, (double)i / (double)td->n_chunks)) {
			rc = trace_fail_cancelled(tr);
			goto cleanup;
		}
		if ((rc = trace_decode_chunk(tr, &scratch, &cap, thread, &td->chunks[i])) != TSR_OK)
			goto cleanup;
		for (k = 0; k < td->chunks[i].count; k++) {
			work += mlod_add(m, &scratch[k]);
			if (work > budget) {
				rc = trace_fail(tr, TSR_ERR_CORRUPT,
				                "%s: outermost spans of thread %lld overlap",
				                tr->processes[th->process].path, (long long)th->id);
				goto cleanup;
			}
		}
	}
	mlod_sum_levels(m);
	td->mlod = m;
	m = NULL;
cleanup:
	tsr_progress_pop(&tr->progress, &frame, rc == TSR_OK);
	trace_free_mem(tr, scratch, cap * sizeof(*scratch));
	if (m) {
		for (i = 0; i < m->n_levels; i++)
			trace_free_mem(tr, m->b[i], m->n[i] * sizeof(trace_lod_bucket));
		trace_free_mem(tr, m, sizeof(*m));
	}
	return rc;
}

/* SUMMARY items from the level of detail built in memory. */
static int events_mlod(tsr_trace *tr, item_vec *iv, size_t thread, int level, int64_t from,
                       int64_t to, uint64_t res)
{
	const trace_mlod *m = tr->tdata[thread].mlod;
	uint64_t w = m->width[level], k, k_end;
	lod_group g = {from, res, false, 0, 0, {0}};
	int rc;

	if (to <= m->base_ns)
		return TSR_OK;
	k = from > m->base_ns ? ((uint64_t)from - (uint64_t)m->base_ns) / w : 0;
	k_end = ((uint64_t)to - 1 - (uint64_t)m->base_ns) / w + 1;
	if (k_end > m->n[level])
		k_end = m->n[level];
	for (; k < k_end; k++) {
		const trace_lod_bucket *b = &m->b[level][k];

		if ((rc = lod_group_add(tr, iv, &g, (int64_t)((uint64_t)m->base_ns + k * w), w, b->events,
		                        b->busy_ns, b->best_ns ? b->best_name : TSR_TRACE_NO_NAME,
		                        b->best_ns)) != TSR_OK)
			return rc;
	}
	return lod_group_finish(tr, iv, &g);
}

/* --- The query --------------------------------------------------------------------- */

/*
 * See trace.h. The window is first clamped to the thread's spans; then
 * the chunks overlapping it are found and counted. Few enough spans (or
 * resolution 0) are decoded exactly; otherwise the file's level of detail
 * answers when it is fine enough, else the one built in memory, else (a
 * resolution finer than any bucket) the spans are decoded after all.
 */
/* How many spans a viewport query may decode (tsr_trace_list_events). */
int tsr_trace_set_decode_budget(tsr_trace *tr, uint64_t spans)
{
	if (!tr)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "tsr_trace_set_decode_budget: no trace");
	tr->decode_budget = spans;
	return TSR_OK;
}

int tsr_trace_list_events(tsr_trace_item **out, size_t *n, tsr_trace *tr, size_t thread,
                          int64_t from_ns, int64_t to_ns, uint64_t resolution_ns)
{
	const tsr_trace_thread *th;
	trace_thread_data *td;
	item_vec iv = {NULL, 0, 0};
	size_t *idx = NULL, n_idx = 0, i;
	uint64_t estimate = 0;
	int rc, level;

	if (!tr || !out || !n)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = NULL;
	*n = 0;
	if (thread >= tr->n_threads)
		return trace_fail(tr, TSR_ERR_OUT_OF_RANGE, "thread %zu is past the end (%zu)", thread,
		                  tr->n_threads);
	if (from_ns > to_ns)
		return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT, "the window ends before it starts");
	th = &tr->threads[thread];
	td = &tr->tdata[thread];
	if (!th->events)
		return TSR_OK;
	if (from_ns < th->first_ns)
		from_ns = th->first_ns;
	if (to_ns > th->last_ns && th->last_ns < INT64_MAX)
		to_ns = th->last_ns + 1;
	if (from_ns >= to_ns)
		return TSR_OK;
	rc = trace_find_chunks(tr, &idx, &n_idx, thread, from_ns, to_ns);
	if (rc != TSR_OK)
		goto cleanup;
	for (i = 0; i < n_idx; i++)
		estimate += td->chunks[idx[i]].count;
	if (resolution_ns == 0 || estimate <= (tr->decode_budget ? tr->decode_budget : DECODE_BUDGET)) {
		rc = events_exact(tr, &iv, thread, idx, n_idx, from_ns, to_ns, resolution_ns);
		goto cleanup;
	}
	if ((rc = load_file_lod(tr, thread)) != TSR_OK)
		goto cleanup;
	if (td->lod_state == 2 &&
	    (level = pick_level(td->lod_width, td->lod_levels, resolution_ns)) >= 0) {
		rc = events_file_lod(tr, &iv, thread, level, from_ns, to_ns, resolution_ns);
		goto cleanup;
	}
	if ((rc = build_mlod(tr, thread)) != TSR_OK)
		goto cleanup;
	level = pick_level(td->mlod->width, td->mlod->n_levels, resolution_ns);
	if (level >= 0)
		rc = events_mlod(tr, &iv, thread, level, from_ns, to_ns, resolution_ns);
	else
		rc = events_exact(tr, &iv, thread, idx, n_idx, from_ns, to_ns, resolution_ns);
cleanup:
	trace_free_mem(tr, idx, n_idx * sizeof(*idx));
	if (rc != TSR_OK) {
		trace_free_mem(tr, iv.v, iv.cap * sizeof(*iv.v));
		return rc;
	}
	trace_release(tr, iv.cap * sizeof(*iv.v));
	*out = iv.v;
	*n = iv.n;
	return TSR_OK;
}
