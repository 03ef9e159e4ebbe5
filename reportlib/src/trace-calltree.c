/*
 * The call tree of a view of a trace (trace.h, tsr_trace_call_tree_new).
 *
 * Chunks hold a thread's spans in the order they end, which gives self
 * times (as trace-stats.c computes them: when a span of depth d ends, the
 * depth d + 1 spans that ended since the previous depth d span are its
 * children) but not paths: a span's parent arrives after it. Spans carry
 * their seq, the ordinal of their begin, so the spans of the view are
 * gathered per thread with their durations and self times, put in seq
 * order (begin order: parents before children) through an index by seq,
 * and walked with a stack of the open path's nodes by depth. A span
 * joins its parent's node when the parent is the span the stack holds at
 * depth - 1 (same seq); otherwise its parent is outside the view and it
 * is a root.
 *
 * Nodes are found by (parent node, channel, name) in an open-addressing
 * table; at the end they are laid out breadth first, each node's
 * children together and sorted by inclusive time.
 */
#define _GNU_SOURCE 1 /* qsort_r */

#include <tilescope/alloc.h>
#include "trace-private.h"

#include <stdlib.h>
#include <string.h>

/* One span of the view, as gathered. */
typedef struct ct_span {
	int64_t seq, parent;
	uint64_t dur, self;
	uint32_t name, channel, depth;
} ct_span;

/* A node while the tree grows. */
typedef struct ct_node {
	size_t parent;             /* TSR_TRACE_NO_NODE for a root */
	uint32_t channel, name, depth;
	uint64_t count, incl, excl;
} ct_node;

typedef struct ct_build {
	tsr_trace *tr;
	ct_node *nodes;
	size_t n, cap;
	size_t *slots;             /* node index + 1; 0: empty */
	size_t n_slots;            /* a power of two */
	/* The last node found at each depth: siblings of one name follow one
	 * another, so most spans skip the table. */
	size_t last[TRACE_MAX_DEPTH + 1]; /* node index + 1; 0: none */
} ct_build;

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static size_t hash_key(size_t parent, uint32_t channel, uint32_t name)
{
	uint64_t h = (uint64_t)parent * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)channel << 32 | name) * 0xc2b2ae3d27d4eb4full;
	return (size_t)(h ^ (h >> 29));
}

/* The node of (parent, channel, name), made when new: its index, or
 * TSR_TRACE_NO_NODE with the handle's error set. */
static size_t node_get(ct_build *b, size_t parent, uint32_t channel, uint32_t name,
                       uint32_t depth)
{
	size_t mask, i;

	if ((b->n + 1) * 2 > b->n_slots) {
		size_t n_slots = b->n_slots ? b->n_slots * 2 : 1024, *slots, k;

		slots = trace_alloc(b->tr, n_slots, sizeof(*slots));
		if (!slots)
			return TSR_TRACE_NO_NODE;
		for (k = 0; k < b->n; k++) {
			const ct_node *nd = &b->nodes[k];

			for (i = hash_key(nd->parent, nd->channel, nd->name) & (n_slots - 1); slots[i];
			     i = (i + 1) & (n_slots - 1))
				;
			slots[i] = k + 1;
		}
		trace_free_mem(b->tr, b->slots, b->n_slots * sizeof(*b->slots));
		b->slots = slots;
		b->n_slots = n_slots;
	}
	mask = b->n_slots - 1;
	for (i = hash_key(parent, channel, name) & mask; b->slots[i]; i = (i + 1) & mask) {
		ct_node *nd = &b->nodes[b->slots[i] - 1];

		if (nd->parent == parent && nd->channel == channel && nd->name == name)
			return b->slots[i] - 1;
	}
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		ct_node *nodes = trace_realloc(b->tr, b->nodes, b->cap, cap, sizeof(*nodes));

		if (!nodes)
			return TSR_TRACE_NO_NODE;
		b->nodes = nodes;
		b->cap = cap;
	}
	b->nodes[b->n] = (ct_node){parent, channel, name, depth, 0, 0, 0};
	b->slots[i] = b->n + 1;
	return b->n++;
}

/* Appends one span to the thread's gathering. */
static int gather_add(tsr_trace *tr, ct_span **v, size_t *n, size_t *cap, const ct_span *s)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 1024;
		ct_span *p = trace_realloc(tr, *v, *cap, c, sizeof(*p));

		if (!p)
			return tr->code;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = *s;
	return TSR_OK;
}

/*
 * Gathers the spans of `thread` starting in [from, to) with their self
 * times, decoding its chunks in write order from the first that ends at
 * or after `from`, and stopping at the first outermost span that starts
 * at or after `to` (every span starting before it has ended by then).
 */
static int gather(tsr_trace *tr, size_t thread, int64_t from, int64_t to, ct_span **v,
                  size_t *n, size_t *cap, trace_event **scratch, size_t *scratch_cap)
{
	const trace_thread_data *td = &tr->tdata[thread];
	uint64_t child[TRACE_MAX_DEPTH + 2];
	size_t i, k;
	int rc;

	memset(child, 0, sizeof(child));
	for (i = 0; i < td->n_chunks; i++) {
		const trace_chunk *c = &td->chunks[i];

		if (c->last_ns < from)
			continue;
		if (tsr_progress_at(&tr->progress, (double)i / (double)td->n_chunks))
			return trace_fail_cancelled(tr);
		if ((rc = trace_decode_chunk(tr, scratch, scratch_cap, thread, c)) != TSR_OK)
			return rc;
		for (k = 0; k < c->count; k++) {
			const trace_event *e = &(*scratch)[k];
			uint64_t dur = (uint64_t)(e->end_ns - e->start_ns), kids;
			ct_span s;

			if (e->depth > TRACE_MAX_DEPTH)
				return trace_fail(tr, TSR_ERR_CORRUPT, "a span of thread %zu is %u deep",
				                  thread, e->depth);
			if (e->depth == 0 && e->start_ns >= to)
				return TSR_OK;
			kids = child[e->depth + 1];
			child[e->depth + 1] = 0;
			child[e->depth] = sat_add(child[e->depth], dur);
			if (e->start_ns < from || e->start_ns >= to)
				continue;
			s.seq = e->seq;
			s.parent = e->parent;
			s.dur = dur;
			s.self = dur > kids ? dur - kids : 0;
			s.name = e->name;
			s.channel = e->channel;
			s.depth = e->depth;
			if ((rc = gather_add(tr, v, n, cap, &s)) != TSR_OK)
				return rc;
		}
	}
	return TSR_OK;
}

static int compare_seq(const void *a, const void *b)
{
	const ct_span *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * The seq order of v[0..n): *idx (trace_alloc'd, *range entries) maps
 * seq - least seq to the span's index + 1 (0: no span of that seq), when
 * the seqs are dense enough (they are ordinals, so normally they are);
 * otherwise *idx is NULL and v is sorted in place. Two spans of one seq
 * (a damaged file) also fall back to sorting; the walk copes.
 */
static int order_by_seq(tsr_trace *tr, ct_span *v, size_t n, size_t **idx, size_t *range)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	size_t i;

	*idx = NULL;
	*range = 0;
	for (i = 0; i < n; i++) {
		lo = v[i].seq < lo ? v[i].seq : lo;
		hi = v[i].seq > hi ? v[i].seq : hi;
	}
	if (n < 2)
		return TSR_OK;
	/* Unsigned: seqs from a hostile file may lie INT64_MAX apart. */
	if ((uint64_t)hi - (uint64_t)lo >= (uint64_t)n * 4 + 1024) {
		qsort(v, n, sizeof(*v), compare_seq);
		return TSR_OK;
	}
	*range = (size_t)((uint64_t)hi - (uint64_t)lo) + 1;
	*idx = trace_alloc(tr, *range, sizeof(**idx));
	if (!*idx)
		return tr->code;
	for (i = 0; i < n; i++) {
		size_t at = (size_t)(v[i].seq - lo);

		if ((*idx)[at]) {
			trace_free_mem(tr, *idx, *range * sizeof(**idx));
			*idx = NULL;
			*range = 0;
			qsort(v, n, sizeof(*v), compare_seq);
			return TSR_OK;
		}
		(*idx)[at] = i + 1;
	}
	return TSR_OK;
}

/* Adds one span to the tree, given the stack of the open path by depth. */
static int add_span(ct_build *b, const ct_span *s, int64_t only, int64_t *open_seq,
                    size_t *open_node, bool *open)
{
	size_t parent = TSR_TRACE_NO_NODE, node;
	uint32_t d = s->depth;

	if (d > 0 && open[d - 1] && open_seq[d - 1] == s->parent) {
		parent = open_node[d - 1];
	} else if (only >= 0 && s->seq != only) {
		open[d] = false;
		return TSR_OK;
	}
	node = b->last[d] ? b->last[d] - 1 : TSR_TRACE_NO_NODE;
	if (node == TSR_TRACE_NO_NODE || b->nodes[node].parent != parent ||
	    b->nodes[node].name != s->name || b->nodes[node].channel != s->channel) {
		node = node_get(b, parent, s->channel, s->name,
		                parent == TSR_TRACE_NO_NODE ? 0 : b->nodes[parent].depth + 1);
		if (node == TSR_TRACE_NO_NODE)
			return b->tr->code;
		b->last[d] = node + 1;
	}
	b->nodes[node].count++;
	b->nodes[node].incl = sat_add(b->nodes[node].incl, s->dur);
	b->nodes[node].excl = sat_add(b->nodes[node].excl, s->self);
	open[d] = true;
	open_seq[d] = s->seq;
	open_node[d] = node;
	return TSR_OK;
}

/* Adds the thread's spans to the tree in seq order: through `idx` (see
 * order_by_seq), or v as it is when idx is NULL. */
static int add_spans(ct_build *b, const ct_span *v, size_t n, const size_t *idx, size_t range,
                     int64_t only)
{
	int64_t open_seq[TRACE_MAX_DEPTH + 1];
	size_t open_node[TRACE_MAX_DEPTH + 1];
	bool open[TRACE_MAX_DEPTH + 1];
	size_t i;
	int rc = TSR_OK;

	memset(open, 0, sizeof(open));
	if (!idx) {
		for (i = 0; i < n && rc == TSR_OK; i++)
			rc = add_span(b, &v[i], only, open_seq, open_node, open);
		return rc;
	}
	for (i = 0; i < range && rc == TSR_OK; i++)
		if (idx[i])
			rc = add_span(b, &v[idx[i] - 1], only, open_seq, open_node, open);
	return rc;
}

/* Largest inclusive time first, then by count, channel and name. */
static int compare_nodes(const void *a, const void *b, void *ctx)
{
	const ct_node *nodes = ctx, *x = &nodes[*(const size_t *)a], *y = &nodes[*(const size_t *)b];

	if (x->incl != y->incl)
		return x->incl > y->incl ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->channel != y->channel)
		return x->channel < y->channel ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

/*
 * Lays the nodes out breadth first into tree->nodes: the roots, then the
 * children of each node in turn, each group sorted by compare_nodes.
 */
static int lay_out(ct_build *b, tsr_trace_call_tree *tree)
{
	size_t *order = NULL, *first = NULL, *kids = NULL, *at = NULL, *pos = NULL, n = b->n, i, k;
	tsr_trace_call_node *out = NULL;
	int rc = TSR_OK;

	/* Children grouped by parent (counting sort), roots last. */
	first = trace_alloc(b->tr, n + 2, sizeof(*first));
	kids = trace_alloc(b->tr, n ? n : 1, sizeof(*kids));
	pos = trace_alloc(b->tr, n ? n : 1, sizeof(*pos));
	order = trace_alloc(b->tr, n ? n : 1, sizeof(*order));
	at = trace_alloc(b->tr, n + 1, sizeof(*at));
	out = tsb_malloc((n ? n : 1) * sizeof(*out));
	if (!first || !kids || !pos || !order || !at || !out) {
		rc = out ? b->tr->code : trace_fail(b->tr, TSR_ERR_NO_MEMORY, "out of memory");
		goto cleanup;
	}
	/* Group g: the children of node g (g < n), the roots (g == n). */
	for (i = 0; i < n; i++) {
		size_t g = b->nodes[i].parent == TSR_TRACE_NO_NODE ? n : b->nodes[i].parent;

		first[g + 1]++;
	}
	for (i = 0; i < n + 1; i++)
		first[i + 1] += first[i];
	for (i = 0; i <= n; i++)
		at[i] = first[i];
	for (i = 0; i < n; i++) {
		size_t g = b->nodes[i].parent == TSR_TRACE_NO_NODE ? n : b->nodes[i].parent;

		kids[at[g]++] = i;
	}
	for (i = 0; i <= n; i++)
		qsort_r(kids + first[i], first[i + 1] - first[i], sizeof(*kids), compare_nodes,
		        b->nodes);
	/* Breadth first: the roots, then each placed node's children. */
	k = 0;
	for (i = first[n]; i < first[n + 1]; i++)
		order[k++] = kids[i];
	tree->n_roots = k;
	for (i = 0; i < k; i++) {
		size_t g = order[i], j;

		pos[g] = i;
		for (j = first[g]; j < first[g + 1]; j++)
			order[k++] = kids[j];
	}
	for (i = 0; i < n; i++) {
		const ct_node *nd = &b->nodes[order[i]];
		tsr_trace_call_node *o = &out[i];

		o->parent = nd->parent == TSR_TRACE_NO_NODE ? TSR_TRACE_NO_NODE : pos[nd->parent];
		o->first_child = 0;
		o->n_children = first[order[i] + 1] - first[order[i]];
		o->channel = nd->channel;
		o->name = nd->name;
		o->depth = nd->depth;
		o->count = nd->count;
		o->inclusive_ns = nd->incl;
		o->exclusive_ns = nd->excl;
		tree->spans += nd->count;
		if (o->parent == TSR_TRACE_NO_NODE)
			tree->inclusive_ns = sat_add(tree->inclusive_ns, nd->incl);
	}
	/* A node's children follow the children of the nodes before it. */
	for (i = 0, k = tree->n_roots; i < n; i++) {
		out[i].first_child = k;
		k += out[i].n_children;
	}
	tree->nodes = out;
	tree->n_nodes = n;
	out = NULL;
cleanup:
	free(out);
	trace_free_mem(b->tr, first, (n + 2) * sizeof(*first));
	trace_free_mem(b->tr, kids, (n ? n : 1) * sizeof(*kids));
	trace_free_mem(b->tr, pos, (n ? n : 1) * sizeof(*pos));
	trace_free_mem(b->tr, order, (n ? n : 1) * sizeof(*order));
	trace_free_mem(b->tr, at, (n + 1) * sizeof(*at));
	return rc;
}

/* See trace.h. */
int tsr_trace_call_tree_new(tsr_trace_call_tree **out, tsr_trace *tr,
                            const tsr_trace_call_tree_options *opts)
{
	tsr_trace_call_tree_options o = TSR_TRACE_CALL_TREE_OPTIONS_INIT;
	tsr_trace_call_tree *tree = NULL;
	ct_build b = {0};
	ct_span *v = NULL;
	trace_event *scratch = NULL;
	tsr_progress_frame frame;
	size_t n = 0, cap = 0, scratch_cap = 0, t, *idx, range;
	int rc;

	if (!out || !tr)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = NULL;
	if (opts)
		o = *opts;
	if (o.version != TSR_TRACE_CALL_TREE_OPTIONS_VERSION)
		return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT, "call tree options version %u is not %u",
		                  o.version, TSR_TRACE_CALL_TREE_OPTIONS_VERSION);
	if ((rc = trace_check_window(tr, o.thread, o.from_ns, o.to_ns)))
		return rc;
	if (o.span < -1 || (o.span >= 0 && o.thread < 0))
		return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT,
		                  "a call tree of one span needs its thread");
	tree = tsb_calloc(1, sizeof(*tree));
	if (!tree)
		return trace_fail(tr, TSR_ERR_NO_MEMORY, "out of memory");
	b.tr = tr;
	rc = tsr_progress_push(&tr->progress, &frame, "building the call tree")
	         ? trace_fail_cancelled(tr)
	         : TSR_OK;
	for (t = 0; t < tr->n_threads && rc == TSR_OK; t++) {
		double nt = o.thread < 0 ? (double)tr->n_threads : 1.0;
		double at = o.thread < 0 ? (double)t : 0.0;

		if (o.thread >= 0 && (size_t)o.thread != t)
			continue;
		if (tsr_progress_part(&tr->progress, at / nt, (at + 1.0) / nt, "building the call tree")) {
			rc = trace_fail_cancelled(tr);
			break;
		}
		n = 0;
		idx = NULL;
		range = 0;
		rc = gather(tr, t, o.from_ns, o.to_ns, &v, &n, &cap, &scratch, &scratch_cap);
		if (rc == TSR_OK)
			rc = order_by_seq(tr, v, n, &idx, &range);
		if (rc == TSR_OK)
			rc = add_spans(&b, v, n, idx, range, o.span);
		trace_free_mem(tr, idx, range * sizeof(*idx));
	}
	if (rc == TSR_OK)
		rc = lay_out(&b, tree);
	tsr_progress_pop(&tr->progress, &frame, rc == TSR_OK);
	trace_free_mem(tr, v, cap * sizeof(*v));
	trace_free_mem(tr, scratch, scratch_cap * sizeof(*scratch));
	trace_free_mem(tr, b.nodes, b.cap * sizeof(*b.nodes));
	trace_free_mem(tr, b.slots, b.n_slots * sizeof(*b.slots));
	if (rc != TSR_OK) {
		tsr_trace_call_tree_free(tree);
		return rc;
	}
	*out = tree;
	return TSR_OK;
}

void tsr_trace_call_tree_free(tsr_trace_call_tree *tree)
{
	if (!tree)
		return;
	free(tree->nodes);
	free(tree);
}
