/*
 * Lowering: the user's program trees become the flat list of lowered
 * programs of the graph profile, with the steps Poplar's compiler inserts
 * (the user guide's table of program type tags):
 *
 *   Execute      [DoExchange pre] [GlobalExchange pre] OnTileExecute
 *                [DoExchange post] [GlobalExchange post]
 *   If           SetLocalConsensusFromVar, Sync, If | IfElse
 *   RepeatWhile  RepeatWhileTrue|False { cond, SetLocalConsensusFromVar, Sync, body }
 *   Switch       DoExchange (control broadcast), Switch
 *   Copy         OnTileExecute (generated copy, same-tile part),
 *                DoExchange (other tiles), GlobalExchange (other IPUs)
 *   stream, remote buffer and PrintTensor copies: Sync (external), StreamCopy
 *
 * Exchange planning happens here too, because whether a step exists
 * depends on it: for every element a vertex or copy reads on another tile,
 * the sender, receiver and bytes, deduplicated per receiving tile (six
 * vertices on one tile that read the same remote slice receive it once).
 * From the moves come bytes per tile, cycles per tile, exchange code
 * (memoryByInstruction) and receive buffers (message bytes).
 *
 * Each user program lowers once; a program used in several places shares
 * its lowered programs, as the profile's DAG of children allows.
 */
#include "compiler-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One move of a contiguous run of a variable between two tiles. A
 * variable has at most UINT32_MAX elements (graph.c), so element
 * positions fit 32 bits; 20 bytes a move, as lowering a large model
 * sorts tens of millions of them. */
typedef struct move {
	uint32_t dst;   /* receiving tile */
	uint32_t src;   /* sending tile */
	uint32_t var;
	uint32_t begin; /* element range [begin, end) of the variable */
	uint32_t end;
} move;

typedef struct move_list {
	move *items;
	size_t n, cap;
	/* moves_dedup's scratch, kept between exchanges */
	move *tmp;          /* cap entries */
	size_t *bucket;     /* n_bucket + 1 entries: moves per receiving tile */
	size_t n_bucket;
} move_list;

/* The lowered representation of one user program inside its parent. */
typedef struct node_list {
	uint32_t *ids;
	uint32_t n;
	bool done;
} node_list;

typedef struct lower_ctx {
	tsi_profile_builder *b;
	uint32_t tiles_per_ipu;
	node_list *lowered;        /* per user program id */
	int32_t *function_index;   /* per function id: index in function_programs, -1 */
	tsi_vec function_ids;      /* lowered Sequence id of each function, boxed */
	move_list internal, external; /* scratch for one exchange */
	tsi_tile_acc recv, sent, code, msg, hdr, cyc, runs;
	/* Field tensors whose moves to or from a tile this exchange already
	 * holds (see collect_field_moves): direct mapped, valid for `epoch`. */
	struct seen_field {
		const tsi_tensor *t;
		uint32_t tile;
		uint32_t epoch;
	} *seen;
	uint32_t epoch;               /* bumped whenever the move lists are consumed */
	size_t user_programs_lowered; /* for the progress lines */
	double next_progress_s;       /* CLOCK_MONOTONIC seconds of the next line */
} lower_ctx;

/* --- Small helpers ----------------------------------------------------------- */

static int oom(void)
{
	return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory lowering programs");
}

static int move_push(move_list *l, uint32_t dst, uint32_t src, uint32_t var, size_t begin,
                     size_t end)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		move *m = realloc(l->items, cap * sizeof(*m));
		if (!m)
			return TSI_ERR_NO_MEMORY;
		l->items = m;
		l->cap = cap;
		free(l->tmp);
		l->tmp = NULL;
	}
	l->items[l->n++] = (move){dst, src, var, (uint32_t)begin, (uint32_t)end};
	return TSI_OK;
}

/* Frees a move list and its scratch. */
static void move_list_free(move_list *l)
{
	free(l->items);
	free(l->tmp);
	free(l->bucket);
}

/* The order of moves within one receiving tile: by variable, then first
 * element. */
static inline bool move_before(const move *a, const move *b)
{
	return a->var != b->var ? a->var < b->var : a->begin < b->begin;
}

/* Stable sort of m[0..n) by move_before, with scratch tmp[0..n): insertion
 * sort for short runs, then bottom-up merging (the comparison inlined,
 * unlike qsort's). Returns the array holding the result (m or tmp). */
static move *sort_bucket(move *m, move *tmp, size_t n)
{
	enum { RUN = 16 };
	move *from = m, *to = tmp;

	for (size_t lo = 0; lo < n; lo += RUN) {
		size_t hi = lo + RUN < n ? lo + RUN : n;
		for (size_t i = lo + 1; i < hi; i++) {
			move x = m[i];
			size_t j = i;
			while (j > lo && move_before(&x, &m[j - 1])) {
				m[j] = m[j - 1];
				j--;
			}
			m[j] = x;
		}
	}
	for (size_t width = RUN; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t a = lo, b = mid, k = lo;
			while (a < mid && b < hi)
				to[k++] = move_before(&from[b], &from[a]) ? from[b++] : from[a++];
			while (a < mid)
				to[k++] = from[a++];
			while (b < hi)
				to[k++] = from[b++];
		}
		move *t = from;
		from = to;
		to = t;
	}
	return from;
}

/*
 * Sorts moves by receiver, variable and first element, and merges
 * overlapping or adjacent runs from the same sender, so data is received
 * once per tile. The sort is stable (as the qsort it replaces was in
 * glibc): a counting pass by receiving tile, then each tile's moves
 * sorted on their own, which keeps the sorts small and in cache.
 * Returns TSI_OK or TSI_ERR_NO_MEMORY (the list is then unchanged).
 */
static int moves_dedup(move_list *l)
{
	uint32_t max_dst = 0;
	size_t w = 0;

	if (l->n == 0)
		return TSI_OK;
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].dst > max_dst)
			max_dst = l->items[i].dst;
	if (!l->tmp) {
		l->tmp = malloc(l->cap * sizeof(*l->tmp));
		if (!l->tmp)
			return TSI_ERR_NO_MEMORY;
	}
	if ((size_t)max_dst + 2 > l->n_bucket) {
		size_t nb = (size_t)max_dst + 2;
		size_t *bk = realloc(l->bucket, nb * sizeof(*bk));
		if (!bk)
			return TSI_ERR_NO_MEMORY;
		l->bucket = bk;
		l->n_bucket = nb;
	}
	/* Counting sort by receiver into tmp; bucket[d] becomes the start of
	 * tile d's moves. */
	memset(l->bucket, 0, ((size_t)max_dst + 2) * sizeof(*l->bucket));
	for (size_t i = 0; i < l->n; i++)
		l->bucket[l->items[i].dst + 1]++;
	for (size_t d = 1; d <= (size_t)max_dst + 1; d++)
		l->bucket[d] += l->bucket[d - 1];
	for (size_t i = 0; i < l->n; i++)
		l->tmp[l->bucket[l->items[i].dst]++] = l->items[i];
	/* bucket[d] is now the end of tile d's moves. Sort each tile's moves
	 * back into items. */
	for (size_t d = 0, lo = 0; d <= max_dst; d++) {
		size_t hi = l->bucket[d];
		if (hi - lo > 1) {
			move *sorted = sort_bucket(l->tmp + lo, l->items + lo, hi - lo);
			if (sorted != l->items + lo)
				memcpy(l->items + lo, sorted, (hi - lo) * sizeof(*sorted));
		} else if (hi > lo) {
			l->items[lo] = l->tmp[lo];
		}
		lo = hi;
	}
	for (size_t r = 1; r < l->n; r++) {
		move *last = &l->items[w], *m = &l->items[r];
		if (m->dst == last->dst && m->var == last->var && m->src == last->src &&
		    m->begin <= last->end) {
			if (m->end > last->end)
				last->end = m->end;
		} else {
			l->items[++w] = *m;
		}
	}
	l->n = w + 1;
	return TSI_OK;
}

static uint32_t ipu_of(const lower_ctx *c, uint32_t tile)
{
	return tile / c->tiles_per_ipu;
}

/* Records, for the elements of `t` that live on a tile other than `tile`,
 * a move from their tile to `tile` (`toward` true: fetch) or from `tile`
 * to their tile (false: return outputs), split by whether the two tiles
 * share an IPU. */
static int collect_moves(lower_ctx *c, const tsi_tensor *t, uint32_t tile, bool toward)
{
	const tsi_graph_core *core = c->b->core;

	for (size_t r = 0; r < t->n_regions; r++) {
		const tsi_region *reg = &t->regions[r];
		const tsi_var *var = core->vars.items[reg->var];
		size_t i = reg->begin, end = reg->begin + reg->len;
		while (i < end) {
			size_t j;
			uint32_t owner = tsi_var_tile_at(var, i, end, &j);
			if (owner != tile && owner != TSI_NO_TILE) {
				move_list *l = ipu_of(c, owner) == ipu_of(c, tile) ? &c->internal : &c->external;
				uint32_t dst = toward ? tile : owner, src = toward ? owner : tile;
				if (move_push(l, dst, src, reg->var, i, j))
					return oom();
			}
			i = j;
		}
	}
	return TSI_OK;
}

/* Adds an exchange record of `kind` and its plan; returns the lowered id
 * of the exchange program or -1. */
static int32_t add_exchange(lower_ctx *c, tsi_exchange_kind kind, tsi_exchange_role role,
                            const char *name, const tsi_program *source, tsi_exchange_profile **rec,
                            tsi_exchange_plan **plan)
{
	tsi_profile_builder *b = c->b;
	static const tsi_lowered_type lp_type[TSI_EXCHANGE_KIND_COUNT] = {
		[TSI_EXCHANGE_INTERNAL] = TSI_LP_DO_EXCHANGE,
		[TSI_EXCHANGE_EXTERNAL] = TSI_LP_GLOBAL_EXCHANGE,
		[TSI_EXCHANGE_HOST] = TSI_LP_STREAM_COPY,
	};
	size_t *n = &b->profile.n_exchanges[kind];

	if (*n == b->cap_exchanges[kind]) {
		size_t cap = *n ? *n * 2 : 32;
		tsi_exchange_profile *e = realloc(b->exchanges[kind], cap * sizeof(*e));
		if (!e)
			return -1;
		b->exchanges[kind] = e;
		b->cap_exchanges[kind] = cap;
	}
	if (b->n_plans == b->cap_plans) {
		size_t cap = b->n_plans ? b->n_plans * 2 : 32;
		tsi_exchange_plan *p = realloc(b->plans, cap * sizeof(*p));
		if (!p)
			return -1;
		b->plans = p;
		b->cap_plans = cap;
	}
	int32_t id = tsi_builder_add_program(b, lp_type[kind], name, source, role);
	if (id < 0)
		return -1;
	*rec = &b->exchanges[kind][*n];
	memset(*rec, 0, sizeof(**rec));
	(*rec)->name = b->programs[id].name;
	*plan = &b->plans[b->n_plans++];
	memset(*plan, 0, sizeof(**plan));
	(*plan)->kind = kind;
	(*plan)->role = role;
	(*plan)->index = (uint32_t)*n;
	(*plan)->lowered = (uint32_t)id;
	(*plan)->source = source;
	b->programs[id].exchange = (int32_t)(*n)++;
	return id;
}

/*
 * Turns deduplicated moves into an exchange: bytes per tile, code bytes by
 * instruction kind (4-byte instructions: a receive address per run, a mux
 * switch and a delay slot per distinct sender of each receiver, a send per
 * run), receive buffers, and cycles. Returns the lowered id, or -1 when
 * there is nothing to move, or -2 on OOM.
 */
static int32_t build_exchange(lower_ctx *c, move_list *l, tsi_exchange_kind kind,
                              tsi_exchange_role role, const char *name, const tsi_program *source)
{
	tsi_profile_builder *b = c->b;
	const tsi_graph_core *core = b->core;
	tsi_exchange_profile *rec;
	tsi_exchange_plan *plan;
	tsi_exchange_instructions ins;
	int32_t id;

	if (moves_dedup(l))
		return -2;
	if (l->n == 0)
		return -1;
	id = add_exchange(c, kind, role, name, source, &rec, &plan);
	if (id < 0)
		return -2;
	memset(&ins, 0, sizeof(ins));
	for (size_t i = 0; i < l->n; i++) {
		const move *m = &l->items[i];
		const tsi_var *v = core->vars.items[m->var];
		uint64_t bytes = (uint64_t)(m->end - m->begin) * tsi_type_size(v->type);
		bool new_sender = i == 0 || l->items[i - 1].dst != m->dst ||
		                  l->items[i - 1].src != m->src;
		tsi_tile_acc_add(&c->recv, m->dst, bytes);
		tsi_tile_acc_add(&c->msg, m->dst, bytes);
		tsi_tile_acc_add(&c->runs, m->dst, 1);
		tsi_tile_acc_add(&c->code, m->dst, 4);  /* receive address */
		ins.receive_address += 4;
		if (kind == TSI_EXCHANGE_EXTERNAL) {
			/* IPU-Link packets go to one IPU each: a sender pays per move. */
			tsi_tile_acc_add(&c->sent, m->src, bytes);
			tsi_tile_acc_add(&c->code, m->src, 4); /* send */
			ins.send += 4;
		}
		if (new_sender) {
			tsi_tile_acc_add(&c->code, m->dst, 8); /* mux switch + delay */
			ins.receive_mux += 4;
			ins.delay += 4;
		}
		plan->total_bytes += bytes;
		if (kind == TSI_EXCHANGE_EXTERNAL)
			tsi_tile_acc_add(&c->hdr, m->dst, 8); /* one packet header per run */
	}
	/* On a tile's own IPU a send is seen by every tile that listens at
	 * that cycle, so a sender pays once for each word it sends, however
	 * many tiles receive it: merge the moves by sender before counting. */
	if (kind == TSI_EXCHANGE_INTERNAL) {
		for (size_t i = 0; i < l->n; i++)
			l->items[i].dst = l->items[i].src;
		if (moves_dedup(l))
			return -2;
		for (size_t i = 0; i < l->n; i++) {
			const move *m = &l->items[i];
			const tsi_var *v = core->vars.items[m->var];
			tsi_tile_acc_add(&c->sent, m->src,
			                 (uint64_t)(m->end - m->begin) * tsi_type_size(v->type));
			tsi_tile_acc_add(&c->code, m->src, 4); /* send */
			ins.send += 4;
		}
	}
	ins.total = ins.delay + ins.receive_address + ins.receive_mux + ins.send;
	b->programs[id].memory_by_instruction = ins;

	/* Cycles per tile: internal exchange moves exchange_bytes_per_cycle
	 * each way per tile after a fixed start; external goes over IPU-Link. */
	const tsi_target *t = &b->profile.target;
	for (uint32_t i = 0; i < c->recv.n_touched || i < c->sent.n_touched; i++) {
		/* visit every tile touched as sender or receiver */
		for (int side = 0; side < 2; side++) {
			tsi_tile_acc *a = side ? &c->sent : &c->recv;
			if (i >= a->n_touched)
				continue;
			uint32_t tile = a->touched[i];
			if (c->cyc.value[tile])
				continue;
			uint64_t r = c->recv.value[tile], s = c->sent.value[tile];
			uint64_t bytes = r > s ? r : s;
			uint64_t cy;
			if (kind == TSI_EXCHANGE_INTERNAL)
				cy = b->k.exchange_setup_cycles +
				     (bytes + t->exchange_bytes_per_cycle - 1) / t->exchange_bytes_per_cycle +
				     c->runs.value[tile] * b->k.exchange_cycles_per_run;
			else
				cy = b->k.external_latency_cycles +
				     (bytes + b->k.external_bytes_per_cycle - 1) / b->k.external_bytes_per_cycle;
			tsi_tile_acc_add(&c->cyc, tile, cy);
		}
	}
	if (tsi_tile_acc_take(&c->recv, &b->arena, &rec->bytes_received) ||
	    tsi_tile_acc_take(&c->sent, &b->arena, &rec->bytes_sent) ||
	    tsi_tile_acc_take(&c->cyc, &b->arena, &rec->cycles) ||
	    tsi_tile_acc_take(&c->code, &b->arena, &plan->code_bytes) ||
	    tsi_tile_acc_take(&c->msg, &b->arena, &plan->message_bytes) ||
	    tsi_tile_acc_take(&c->hdr, &b->arena, &plan->packet_header_bytes))
		return -2;
	tsi_tile_acc_reset(&c->runs);
	l->n = 0;
	return id;
}

/* --- Node lists ------------------------------------------------------------- */

static int list_push(tsi_arena *arena, uint32_t **ids, uint32_t *n, uint32_t *cap, uint32_t id)
{
	if (*n == *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 8;
		uint32_t *nids = tsi_arena_alloc(arena, ncap * sizeof(*nids));
		if (!nids)
			return TSI_ERR_NO_MEMORY;
		if (*n)
			memcpy(nids, *ids, *n * sizeof(*nids));
		*ids = nids;
		*cap = ncap;
	}
	(*ids)[(*n)++] = id;
	return TSI_OK;
}

/* A growable list of lowered ids built while lowering one program. */
typedef struct idlist {
	uint32_t *ids;
	uint32_t n, cap;
} idlist;

static int id_add(lower_ctx *c, idlist *l, int32_t id)
{
	if (id < 0)
		return oom();
	return list_push(&c->b->arena, &l->ids, &l->n, &l->cap, (uint32_t)id) ? oom() : TSI_OK;
}

static int lower_prog(lower_ctx *c, const tsi_program *p, node_list **out);

/* Appends the lowered nodes of `p` to `l`. */
static int id_add_prog(lower_ctx *c, idlist *l, const tsi_program *p)
{
	node_list *nl;
	int rc = lower_prog(c, p, &nl);

	for (uint32_t i = 0; !rc && i < nl->n; i++)
		rc = id_add(c, l, (int32_t)nl->ids[i]);
	return rc;
}

static void set_children(tsi_profile_builder *b, int32_t id, const idlist *l)
{
	b->programs[id].children = l->ids;
	b->programs[id].n_children = l->n;
}

/* Makes a Sequence node whose children are the nodes of `p` (or nothing). */
static int32_t wrap_sequence(lower_ctx *c, const tsi_program *p, const char *name, int *rc)
{
	idlist kids = {0};
	int32_t id;

	*rc = p ? id_add_prog(c, &kids, p) : TSI_OK;
	if (*rc)
		return -1;
	id = tsi_builder_add_program(c->b, TSI_LP_SEQUENCE, name, NULL, TSI_XR_NONE);
	if (id < 0) {
		*rc = oom();
		return -1;
	}
	set_children(c->b, id, &kids);
	return id;
}

static const char *prog_label(const lower_ctx *c, const tsi_program *p, const char *dflt)
{
	(void)c;
	return p->name ? p->name : dflt;
}

static char *joinname(lower_ctx *c, const char *a, const char *b)
{
	return tsi_arena_printf(&c->b->arena, "%s/%s", a, b);
}

/* --- Per program kind --------------------------------------------------------- */

/* Builds the exchanges of the moves collected so far, the IPU-internal
 * one named `internal` and the IPU-to-IPU one `external`, and appends
 * those that move anything to `l`. */
static int add_exchanges(lower_ctx *c, tsi_exchange_role role, const char *internal,
                         const char *external, const tsi_program *p, idlist *l)
{
	int32_t in = build_exchange(c, &c->internal, TSI_EXCHANGE_INTERNAL, role, internal, p);
	int32_t ex = build_exchange(c, &c->external, TSI_EXCHANGE_EXTERNAL, role, external, p);
	int rc = TSI_OK;

	c->epoch++; /* the lists are empty again */

	if (in == -2 || ex == -2)
		return oom();
	if ((in >= 0 && (rc = id_add(c, l, in))) || (ex >= 0 && (rc = id_add(c, l, ex))))
		return rc;
	return TSI_OK;
}

/* Slots of lower_ctx.seen (a power of 2). */
#define SEEN_SLOTS 4096u

/*
 * Collects the moves of the fields of `cs` that read (`fetch`: inputs and
 * in-outs, fetched to the vertex's tile) or write (outputs and in-outs,
 * returned to where they live) data on other tiles. Vertices on one tile
 * often share a view (views are shared when equal, tensor.c); its moves
 * to that tile are already in the lists, and moves_dedup would only merge
 * the copies away, so a view seen for the tile in this exchange is
 * skipped.
 */
static int collect_field_moves(lower_ctx *c, const tsi_compute_set *cs, bool fetch)
{
	for (size_t vi = 0; vi < cs->vertices.len; vi++) {
		const tsi_vertex *v = cs->vertices.items[vi];
		for (size_t f = 0; v->codelet && f < v->codelet->n_fields; f++) {
			tsi_field_dir dir = v->codelet->fields[f].dir;
			if (dir == (fetch ? TSI_FIELD_OUTPUT : TSI_FIELD_INPUT))
				continue;
			for (size_t k = 0; k < v->fields[f].n; k++) {
				const tsi_tensor *t = v->fields[f].tensors[k];
				uintptr_t key = (uintptr_t)t ^ ((uintptr_t)v->tile * 0x9e3779b1u);
				struct seen_field *s = &c->seen[(key ^ key >> 13) & (SEEN_SLOTS - 1)];
				if (s->t == t && s->tile == v->tile && s->epoch == c->epoch)
					continue;
				*s = (struct seen_field){t, v->tile, c->epoch};
				int rc = collect_moves(c, t, v->tile, fetch);
				if (rc)
					return rc;
			}
		}
	}
	return TSI_OK;
}

/* Execute: the exchanges that fetch remote inputs and return remote
 * outputs around the OnTileExecute. */
static int lower_execute(lower_ctx *c, const tsi_program *p, idlist *l)
{
	const tsi_compute_set *cs = p->cs;
	int rc;

	if ((rc = collect_field_moves(c, cs, true)) ||
	    (rc = add_exchanges(c, TSI_XR_EXECUTE_PRE, joinname(c, cs->name, "ExchangePre"),
	                        joinname(c, cs->name, "GlobalPre"), p, l)))
		return rc;
	int32_t ote = tsi_builder_add_program(c->b, TSI_LP_ON_TILE_EXECUTE, cs->name, p, TSI_XR_NONE);
	if ((rc = id_add(c, l, ote)))
		return rc;
	c->b->programs[ote].compute_set = (int32_t)cs->id;
	if ((rc = collect_field_moves(c, cs, false)))
		return rc;
	return add_exchanges(c, TSI_XR_EXECUTE_POST, joinname(c, cs->name, "ExchangePost"),
	                     joinname(c, cs->name, "GlobalPost"), p, l);
}

/* The profile index of the generated on-tile copy vertex type, added the
 * first time a copy needs it. */
static int32_t copy_vertex_type(lower_ctx *c)
{
	tsi_profile_builder *b = c->b;
	static const char name[] = "poplar_rt::Memcpy64BitSupervisor";

	for (size_t i = 0; i < b->profile.n_vertex_types; i++)
		if (strcmp(b->profile.vertex_types[i].name, name) == 0)
			return (int32_t)i;
	size_t n = b->profile.n_vertex_types;
	tsi_vertex_type_profile *vt = tsi_arena_alloc(&b->arena, (n + 1) * sizeof(*vt));
	if (!vt)
		return -1;
	memcpy(vt, b->profile.vertex_types, n * sizeof(*vt));
	/* A supervisor memcpy: 12 bytes of state (source, destination, size),
	 * about 384 bytes of code. */
	vt[n] = (tsi_vertex_type_profile){name, 12, 384, 0, 0};
	b->profile.vertex_types = vt;
	b->profile.n_vertex_types = n + 1;
	return (int32_t)n;
}

/*
 * The name a copy's generated steps go under: the program's own name,
 * else the layer that made the copy, as Poplar names them
 * ("train/loss/softmax/OnTileCopy"): an operation's context is its
 * model path and its name ("train/loss" + "softmax"), a model's context
 * its path. A copy made outside any context is plain "Copy". The string
 * is in the profile's arena (NULL when it is out of memory).
 */
static const char *copy_label(lower_ctx *c, const tsi_program *p)
{
	const tsi_vec *ctxs = &c->b->core->debug_contexts;
	const tsi_debug_context *d;

	if (p->name)
		return p->name;
	if (!p->debug_id || p->debug_id > ctxs->len)
		return "Copy";
	d = ctxs->items[p->debug_id - 1];
	if (d->api && d->path)
		return joinname(c, d->path, d->name);
	return tsi_arena_strdup(&c->b->arena, d->api || !d->path ? d->name : d->path);
}

/* Copy: same-tile elements by a generated OnTileExecute, the rest by
 * exchanges. Source and destination are walked in lockstep. */
static int lower_copy(lower_ctx *c, const tsi_program *p, idlist *l)
{
	tsi_profile_builder *b = c->b;
	const tsi_graph_core *core = b->core;
	const tsi_tensor *src = p->src, *dst = p->dst;
	size_t si = 0, di = 0, soff = 0, doff = 0;
	size_t esize = tsi_type_size(src->type);
	int rc;

	while (si < src->n_regions && di < dst->n_regions) {
		const tsi_region *sr = &src->regions[si], *dr = &dst->regions[di];
		size_t n = sr->len - soff < dr->len - doff ? sr->len - soff : dr->len - doff;
		const tsi_var *svar = core->vars.items[sr->var];
		const tsi_var *dvar = core->vars.items[dr->var];
		size_t k = 0;
		while (k < n) {
			/* The stretch from k on which neither tile changes. */
			size_t sbase = sr->begin + soff, dbase = dr->begin + doff, sstop, dstop;
			uint32_t s = tsi_var_tile_at(svar, sbase + k, sbase + n, &sstop);
			uint32_t d = tsi_var_tile_at(dvar, dbase + k, dbase + n, &dstop);
			size_t j = sstop - sbase < dstop - dbase ? sstop - sbase : dstop - dbase;
			if (s == d) {
				tsi_tile_acc_add(&c->msg, d, (j - k) * esize); /* bytes copied on tile */
				tsi_tile_acc_add(&c->runs, d, 1);
			} else {
				move_list *ml = ipu_of(c, s) == ipu_of(c, d) ? &c->internal : &c->external;
				if (move_push(ml, d, s, dr->var, dr->begin + doff + k, dr->begin + doff + j))
					return oom();
			}
			k = j;
		}
		soff += n;
		doff += n;
		if (soff == sr->len) {
			si++;
			soff = 0;
		}
		if (doff == dr->len) {
			di++;
			doff = 0;
		}
	}
	const char *label = copy_label(c, p);
	if (!label)
		return oom();
	if (c->msg.n_touched) {
		int32_t vt = copy_vertex_type(c);
		if (vt < 0)
			return oom();
		if (b->n_generated == b->cap_generated) {
			size_t cap = b->cap_generated ? b->cap_generated * 2 : 16;
			tsi_generated_cs *g = realloc(b->generated, cap * sizeof(*g));
			if (!g)
				return oom();
			b->generated = g;
			b->cap_generated = cap;
		}
		tsi_generated_cs *g = &b->generated[b->n_generated++];
		memset(g, 0, sizeof(*g));
		g->vertex_type = (uint32_t)vt;
		g->source = p;
		if (tsi_tile_acc_take(&c->msg, &b->arena, &g->bytes_by_tile) ||
		    tsi_tile_acc_take(&c->runs, &b->arena, &g->regions_by_tile))
			return oom();
		int32_t ote = tsi_builder_add_program(b, TSI_LP_ON_TILE_EXECUTE,
		                                      joinname(c, label, "OnTileCopy"), p, TSI_XR_NONE);
		if ((rc = id_add(c, l, ote)))
			return rc;
		/* Profile index assigned when the compute set list is built. */
		b->programs[ote].compute_set = -2 - (int32_t)(b->n_generated - 1);
	}
	return add_exchanges(c, TSI_XR_COPY, joinname(c, label, "Exchange"),
	                     joinname(c, label, "GlobalExchange"), p, l);
}

/* The external sync (host or IPU-Link) that opens a host exchange or a
 * collective: one more node in `l`. */
static int add_external_sync(lower_ctx *c, const tsi_program *p, idlist *l)
{
	tsi_profile_builder *b = c->b;
	int32_t sync = tsi_builder_add_program(b, TSI_LP_SYNC, NULL, p, TSI_XR_NONE);
	int rc = id_add(c, l, sync);

	if (rc)
		return rc;
	b->programs[sync].sync = TSI_SYNC_EXTERNAL;
	return TSI_OK;
}

/*
 * A host exchange for `t`: its tiles receive (to device) or send its
 * bytes. The PCIe link is shared by the tiles of an IPU, so a tile's
 * transfer ends when every byte before it in the stream has passed:
 * cycles = latency + bytes so far on its IPU / host bytes per cycle.
 */
static int lower_host(lower_ctx *c, const tsi_program *p, const tsi_tensor *t, bool to_device,
                      tsi_exchange_role role, const char *name, idlist *l)
{
	tsi_profile_builder *b = c->b;
	const tsi_graph_core *core = b->core;
	size_t esize = tsi_type_size(t->type);
	tsi_exchange_profile *rec;
	tsi_exchange_plan *plan;
	int rc;

	if ((rc = add_external_sync(c, p, l)))
		return rc;
	int32_t id = add_exchange(c, TSI_EXCHANGE_HOST, role, name, p, &rec, &plan);
	if ((rc = id_add(c, l, id)))
		return rc;
	for (size_t r = 0; r < t->n_regions; r++) {
		const tsi_region *reg = &t->regions[r];
		const tsi_var *var = core->vars.items[reg->var];
		size_t i = reg->begin, end = reg->begin + reg->len;
		while (i < end) {
			size_t j;
			uint32_t tile = tsi_var_tile_at(var, i, end, &j);
			uint64_t bytes = (j - i) * esize;
			tsi_exchange_instructions *ins = &b->programs[id].memory_by_instruction;
			tsi_tile_acc_add(to_device ? &c->recv : &c->sent, tile, bytes);
			tsi_tile_acc_add(&c->code, tile, 8);  /* address + length */
			/* The same 8 bytes by instruction kind: an address and a
			 * format word per run, receiving or sending. */
			if (to_device) {
				ins->receive_address += 4;
				ins->receive_format += 4;
			} else {
				ins->send += 4;
				ins->send_with_put_format += 4;
			}
			ins->total += 8;
			tsi_tile_acc_add(&c->hdr, tile, 16);  /* packet header per run */
			plan->total_bytes += bytes;
			i = j;
		}
	}
	tsi_tile_acc *moved = to_device ? &c->recv : &c->sent;
	uint64_t *ipu_so_far = calloc(b->profile.target.num_ipus, sizeof(*ipu_so_far));
	if (!ipu_so_far)
		return oom();
	/* Tiles in ascending order model the order data streams in. */
	tsi_tile_values tv;
	if (tsi_tile_acc_take(moved, &b->arena, &tv)) {
		free(ipu_so_far);
		return oom();
	}
	for (size_t i = 0; i < tv.n; i++) {
		uint32_t ipu = ipu_of(c, tv.tiles[i]);
		ipu_so_far[ipu] += tv.values[i];
		tsi_tile_acc_add(&c->cyc, tv.tiles[i],
		                 b->k.host_latency_cycles +
		                     (ipu_so_far[ipu] + b->k.host_bytes_per_cycle - 1) /
		                         b->k.host_bytes_per_cycle);
	}
	free(ipu_so_far);
	if (to_device)
		rec->bytes_received = tv;
	else
		rec->bytes_sent = tv;
	if (tsi_tile_acc_take(&c->cyc, &b->arena, &rec->cycles) ||
	    tsi_tile_acc_take(&c->code, &b->arena, &plan->code_bytes) ||
	    tsi_tile_acc_take(&c->hdr, &b->arena, &plan->packet_header_bytes))
		return oom();
	return TSI_OK;
}

/*
 * A collective's traffic over IPU-Link, modelled on ring algorithms over
 * a group of k replicas: per byte of input a tile holds, allReduce sends
 * and receives 2(k-1)/k bytes (reduce-scatter then all-gather),
 * reduceScatter (k-1)/k, allGather k-1 (it receives every other
 * replica's copy), allToAll (k-1)/k. A group of one moves nothing.
 */
static int lower_collective(lower_ctx *c, const tsi_program *p, idlist *l)
{
	tsi_profile_builder *b = c->b;
	const tsi_collective *coll = p->collective;
	const tsi_graph_core *core = b->core;
	uint64_t k = coll->group_size, num, den;
	size_t esize = tsi_type_size(p->src->type);
	tsi_exchange_profile *rec;
	tsi_exchange_plan *plan;
	int rc;

	if ((rc = add_external_sync(c, p, l)))
		return rc;
	if (k <= 1)
		return TSI_OK;
	switch (coll->kind) {
	case TSI_COLL_ALL_REDUCE: num = 2 * (k - 1); den = k; break;
	case TSI_COLL_ALL_GATHER: num = k - 1; den = 1; break;
	default: num = k - 1; den = k; break;
	}
	const char *name = p->name ? p->name : "collective";
	int32_t id = add_exchange(c, TSI_EXCHANGE_EXTERNAL, TSI_XR_COLLECTIVE, name, p, &rec, &plan);
	if ((rc = id_add(c, l, id)))
		return rc;
	for (size_t r = 0; r < p->src->n_regions; r++) {
		const tsi_region *reg = &p->src->regions[r];
		const tsi_var *var = core->vars.items[reg->var];
		for (size_t i = reg->begin, stop, end = reg->begin + reg->len; i < end; i = stop) {
			uint32_t tile = tsi_var_tile_at(var, i, end, &stop);
			tsi_tile_acc_add(&c->runs, tile, (uint64_t)(stop - i) * esize);
		}
	}
	for (uint32_t i = 0; i < c->runs.n_touched; i++) {
		uint32_t tile = c->runs.touched[i];
		uint64_t bytes = (c->runs.value[tile] * num + den - 1) / den;
		tsi_tile_acc_add(&c->recv, tile, bytes);
		tsi_tile_acc_add(&c->sent, tile, bytes);
		tsi_tile_acc_add(&c->msg, tile, bytes);
		tsi_tile_acc_add(&c->code, tile, 16);
		tsi_tile_acc_add(&c->hdr, tile, 8 * (k - 1));
		/* Those 16 bytes: a send, a put address, a receive address and a
		 * mux switch per tile taking part. */
		tsi_exchange_instructions *ins = &b->programs[id].memory_by_instruction;
		ins->send += 4;
		ins->send_with_put_address += 4;
		ins->receive_address += 4;
		ins->receive_mux += 4;
		ins->total += 16;
		tsi_tile_acc_add(&c->cyc, tile,
		                 b->k.external_latency_cycles +
		                     (bytes + b->k.external_bytes_per_cycle - 1) / b->k.external_bytes_per_cycle);
		plan->total_bytes += bytes;
	}
	tsi_tile_acc_reset(&c->runs);
	if (tsi_tile_acc_take(&c->recv, &b->arena, &rec->bytes_received) ||
	    tsi_tile_acc_take(&c->sent, &b->arena, &rec->bytes_sent) ||
	    tsi_tile_acc_take(&c->cyc, &b->arena, &rec->cycles) ||
	    tsi_tile_acc_take(&c->code, &b->arena, &plan->code_bytes) ||
	    tsi_tile_acc_take(&c->msg, &b->arena, &plan->message_bytes) ||
	    tsi_tile_acc_take(&c->hdr, &b->arena, &plan->packet_header_bytes))
		return oom();
	return TSI_OK;
}

/* Switch: the control value is broadcast from its tile to every tile of
 * the graph so all of them take the same branch. */
static int lower_switch_broadcast(lower_ctx *c, const tsi_program *p, idlist *l)
{
	const tsi_graph_core *core = c->b->core;
	const tsi_region *reg = &p->pred->regions[0];
	size_t stop;
	uint32_t owner = tsi_var_tile_at(core->vars.items[reg->var], reg->begin, reg->begin + 1, &stop);

	for (uint32_t t = 0; t < c->b->profile.target.num_tiles; t++) {
		if (t == owner)
			continue;
		move_list *ml = ipu_of(c, owner) == ipu_of(c, t) ? &c->internal : &c->external;
		if (move_push(ml, t, owner, reg->var, reg->begin, reg->begin + 1))
			return oom();
	}
	const char *label = joinname(c, prog_label(c, p, "Switch"), "switchControlBroadcast/ExchangePre");
	return add_exchanges(c, TSI_XR_BROADCAST, label, label, p, l);
}

/* SetLocalConsensusFromVar + internal Sync: how every tile learns a
 * predicate's value. */
static int lower_consensus(lower_ctx *c, const tsi_program *p, idlist *l)
{
	int32_t slc = tsi_builder_add_program(c->b, TSI_LP_SET_LOCAL_CONSENSUS, NULL, p, TSI_XR_NONE);
	int rc = id_add(c, l, slc);
	if (rc)
		return rc;
	int32_t sync = tsi_builder_add_program(c->b, TSI_LP_SYNC, NULL, p, TSI_XR_NONE);
	if ((rc = id_add(c, l, sync)))
		return rc;
	c->b->programs[sync].sync = TSI_SYNC_INTERNAL;
	return TSI_OK;
}

/* The index of function `fn` in function_programs, lowering it once. */
static int function_index(lower_ctx *c, tsi_function *fn, int32_t *out)
{
	int rc;

	if (c->function_index[fn->id] < 0) {
		int32_t seq = wrap_sequence(c, fn->body, NULL, &rc);
		if (seq < 0)
			return rc ? rc : oom();
		c->function_index[fn->id] = (int32_t)c->function_ids.len;
		if (tsi_vec_push(&c->function_ids, (void *)(uintptr_t)seq))
			return oom();
	}
	*out = c->function_index[fn->id];
	return TSI_OK;
}

/* Lowers user program `p` once; *out lists its nodes for the parent. */

/*
 * Lowering is the longest phase of a large compile (seconds); the INFO log
 * is the user's progress bar, so it says how far lowering has got about
 * once a second: a clock read every 1,024 programs costs nothing.
 */
static void lower_progress(lower_ctx *c)
{
	double t;

	if (++c->user_programs_lowered % 1024 != 0)
		return;
	t = tsi_monotonic_seconds();
	if (t < c->next_progress_s)
		return;
	c->next_progress_s = t + 1.0;
	tsi_log(TSI_LOG_INFO, "COMPILE",
	        "Lowering: %zu of %zu programs, %zu lowered programs and %zu exchange plans so far",
	        c->user_programs_lowered, c->b->core->programs.len, c->b->n_programs, c->b->n_plans);
}

static int lower_prog(lower_ctx *c, const tsi_program *p, node_list **out)
{
	tsi_profile_builder *b = c->b;
	node_list *nl = &c->lowered[p->id];
	idlist l = {0}, kids = {0};
	tsi_trace_leaves *leaves = &b->leaves[p->id];
	int32_t id;
	int rc = TSI_OK;

	*out = nl;
	if (nl->done)
		return TSI_OK;
	lower_progress(c);
	switch (p->kind) {
	case TSI_PROG_SEQUENCE:
		for (size_t i = 0; !rc && i < p->steps.len; i++)
			rc = id_add_prog(c, &kids, p->steps.items[i]);
		if (rc)
			return rc;
		id = tsi_builder_add_program(b, TSI_LP_SEQUENCE, p->name, p, TSI_XR_NONE);
		if ((rc = id_add(c, &l, id)))
			return rc;
		set_children(b, id, &kids);
		break;
	case TSI_PROG_EXECUTE:
		if ((rc = lower_execute(c, p, &l)))
			return rc;
		leaves->at_start = l.ids;
		leaves->n_at_start = l.n;
		break;
	case TSI_PROG_REPEAT:
		if ((rc = id_add_prog(c, &kids, p->body)))
			return rc;
		id = tsi_builder_add_program(b, TSI_LP_REPEAT, p->name, p, TSI_XR_NONE);
		if ((rc = id_add(c, &l, id)))
			return rc;
		b->programs[id].repeat_count = p->count;
		set_children(b, id, &kids);
		break;
	case TSI_PROG_REPEAT_WHILE_TRUE:
	case TSI_PROG_REPEAT_WHILE_FALSE: {
		idlist pred = {0};
		if ((rc = id_add_prog(c, &kids, p->cond)) || (rc = lower_consensus(c, p, &pred)))
			return rc;
		for (uint32_t i = 0; i < pred.n; i++)
			if ((rc = id_add(c, &kids, (int32_t)pred.ids[i])))
				return rc;
		if ((rc = id_add_prog(c, &kids, p->body)))
			return rc;
		id = tsi_builder_add_program(b, p->kind == TSI_PROG_REPEAT_WHILE_TRUE
		                                     ? TSI_LP_REPEAT_WHILE_TRUE
		                                     : TSI_LP_REPEAT_WHILE_FALSE,
		                             p->name, p, TSI_XR_NONE);
		if ((rc = id_add(c, &l, id)))
			return rc;
		set_children(b, id, &kids);
		leaves->per_predicate = pred.ids;
		leaves->n_per_predicate = pred.n;
		break;
	}
	case TSI_PROG_IF: {
		if ((rc = lower_consensus(c, p, &l)))
			return rc;
		leaves->at_start = l.ids;
		leaves->n_at_start = l.n;
		int32_t then_seq = wrap_sequence(c, p->body, NULL, &rc);
		if (then_seq < 0 || (rc = id_add(c, &kids, then_seq)))
			return rc ? rc : oom();
		if (p->else_body) {
			int32_t else_seq = wrap_sequence(c, p->else_body, NULL, &rc);
			if (else_seq < 0 || (rc = id_add(c, &kids, else_seq)))
				return rc ? rc : oom();
		}
		id = tsi_builder_add_program(b, p->else_body ? TSI_LP_IF_ELSE : TSI_LP_IF, p->name, p,
		                             TSI_XR_NONE);
		if ((rc = id_add(c, &l, id)))
			return rc;
		set_children(b, id, &kids);
		/* at_start must not include the If node itself */
		leaves->n_at_start = 2;
		break;
	}
	case TSI_PROG_SWITCH: {
		if ((rc = lower_switch_broadcast(c, p, &l)))
			return rc;
		uint32_t n_pre = l.n;
		for (size_t i = 0; i < p->case_bodies.len; i++) {
			int32_t seq = wrap_sequence(c, p->case_bodies.items[i], NULL, &rc);
			if (seq < 0 || (rc = id_add(c, &kids, seq)))
				return rc ? rc : oom();
		}
		if (p->else_body) {
			int32_t seq = wrap_sequence(c, p->else_body, NULL, &rc);
			if (seq < 0 || (rc = id_add(c, &kids, seq)))
				return rc ? rc : oom();
		}
		id = tsi_builder_add_program(b, TSI_LP_SWITCH, p->name, p, TSI_XR_NONE);
		if ((rc = id_add(c, &l, id)))
			return rc;
		set_children(b, id, &kids);
		leaves->at_start = l.ids;
		leaves->n_at_start = n_pre;
		break;
	}
	case TSI_PROG_COPY:
		if ((rc = lower_copy(c, p, &l)))
			return rc;
		leaves->at_start = l.ids;
		leaves->n_at_start = l.n;
		break;
	case TSI_PROG_STREAM_TO_TENSOR:
	case TSI_PROG_TENSOR_TO_STREAM:
	case TSI_PROG_REMOTE_TO_TENSOR:
	case TSI_PROG_TENSOR_TO_REMOTE:
	case TSI_PROG_PRINT_TENSOR: {
		/* Every host transfer: streams, remote buffers and PrintTensor's
		 * device-to-host copy, named after the program or what it moves. */
		bool in = p->kind == TSI_PROG_STREAM_TO_TENSOR || p->kind == TSI_PROG_REMOTE_TO_TENSOR;
		tsi_exchange_role role = p->kind == TSI_PROG_PRINT_TENSOR ? TSI_XR_PRINT
		                         : p->stream                      ? TSI_XR_STREAM
		                                                          : TSI_XR_REMOTE;
		const char *what = p->stream ? p->stream->name : p->remote ? p->remote->name : p->title;
		rc = lower_host(c, p, in ? p->dst : p->src, in, role, p->name ? p->name : what, &l);
		if (rc)
			return rc;
		leaves->at_start = l.ids;
		leaves->n_at_start = l.n;
		break;
	}
	case TSI_PROG_COLLECTIVE:
		if ((rc = lower_collective(c, p, &l)))
			return rc;
		leaves->at_start = l.ids;
		leaves->n_at_start = l.n;
		break;
	case TSI_PROG_CALL: {
		int32_t fi = -1;
		if ((rc = function_index(c, p->fn, &fi)))
			return rc;
		id = tsi_builder_add_program(b, TSI_LP_CALL, p->name, p, TSI_XR_NONE);
		if ((rc = id_add(c, &l, id)))
			return rc;
		b->programs[id].function = fi;
		break;
	}
	case TSI_PROG_SYNC:
		id = tsi_builder_add_program(b, TSI_LP_SYNC, p->name, p, TSI_XR_NONE);
		if ((rc = id_add(c, &l, id)))
			return rc;
		b->programs[id].sync = p->sync;
		leaves->at_start = l.ids;
		leaves->n_at_start = l.n;
		break;
	case TSI_PROG_WRITE_UNDEF:
		id = tsi_builder_add_program(b, TSI_LP_WRITE_UNDEF, p->name, p, TSI_XR_NONE);
		if ((rc = id_add(c, &l, id)))
			return rc;
		leaves->at_start = l.ids;
		leaves->n_at_start = l.n;
		break;
	default:
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "cannot lower program %u of kind %d",
		                     p->id, (int)p->kind);
	}
	nl->ids = l.ids;
	nl->n = l.n;
	nl->done = true;
	return TSI_OK;
}

/* --- Vertex types and compute sets ------------------------------------------- */

/* Codelet pointer -> index in core->codelets, through a sorted table so a
 * million vertices cost a binary search each, not a scan of the codelets. */
typedef struct codelet_key {
	const tsi_codelet *ptr;
	size_t index;
} codelet_key;

static int cmp_codelet_key(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const codelet_key *)a)->ptr;
	uintptr_t y = (uintptr_t)((const codelet_key *)b)->ptr;
	return x < y ? -1 : x > y;
}

static size_t codelet_index(const codelet_key *keys, size_t n, const tsi_codelet *cd)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uintptr_t)keys[mid].ptr < (uintptr_t)cd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && keys[lo].ptr == cd ? keys[lo].index : SIZE_MAX;
}

/* Lists the vertex types used by compiled compute sets and fills every
 * user compute set's name and (for compiled ones) its vertex counts. */
static int describe_compute_sets(lower_ctx *c)
{
	tsi_profile_builder *b = c->b;
	const tsi_graph_core *core = b->core;
	size_t n_cs = core->compute_sets.len;
	tsi_compute_set_profile *csp;
	tsi_vertex_type_profile *vt;
	uint64_t *count_by_type;
	uint32_t n_types = 0;

	size_t n_codelets = core->codelets.len;
	codelet_key *keys = malloc((n_codelets ? n_codelets : 1) * sizeof(*keys));
	b->codelet_type = malloc((n_codelets ? n_codelets : 1) * sizeof(int32_t));
	count_by_type = calloc(n_codelets ? n_codelets : 1, sizeof(*count_by_type));
	if (!keys || !b->codelet_type || !count_by_type) {
		free(keys);
		free(count_by_type);
		return oom();
	}
	for (size_t i = 0; i < n_codelets; i++) {
		b->codelet_type[i] = -1;
		keys[i] = (codelet_key){core->codelets.items[i], i};
	}
	qsort(keys, n_codelets, sizeof(*keys), cmp_codelet_key);
	for (size_t ci = 0; ci < b->compiled->compute_sets.len; ci++) {
		const tsi_compute_set *cs = b->compiled->compute_sets.items[ci];
		for (size_t vi = 0; vi < cs->vertices.len; vi++) {
			const tsi_vertex *v = cs->vertices.items[vi];
			size_t k = codelet_index(keys, n_codelets, v->codelet);
			if (k == SIZE_MAX)
				continue;
			if (b->codelet_type[k] < 0)
				b->codelet_type[k] = (int32_t)n_types++;
			count_by_type[k]++;
		}
	}
	vt = tsi_arena_alloc(&b->arena, (n_types ? n_types : 1) * sizeof(*vt));
	csp = tsi_arena_alloc(&b->arena, (n_cs ? n_cs : 1) * sizeof(*csp));
	if (!vt || !csp) {
		free(keys);
		free(count_by_type);
		return oom();
	}
	for (size_t k = 0; k < core->codelets.len; k++) {
		const tsi_codelet *cd = core->codelets.items[k];
		if (b->codelet_type[k] >= 0)
			vt[b->codelet_type[k]] =
			    (tsi_vertex_type_profile){cd->name, cd->state_bytes, cd->code_bytes, count_by_type[k], 0};
	}
	free(count_by_type);
	for (size_t i = 0; i < n_cs; i++) {
		csp[i].name = ((const tsi_compute_set *)core->compute_sets.items[i])->name;
		csp[i].debug_context = ((const tsi_compute_set *)core->compute_sets.items[i])->debug_id;
	}
	/* Per compiled compute set: vertex counts by type (types are few). */
	uint64_t *counts = calloc(n_types ? n_types : 1, sizeof(*counts));
	if (!counts) {
		free(keys);
		return oom();
	}
	for (size_t ci = 0; ci < b->compiled->compute_sets.len; ci++) {
		const tsi_compute_set *cs = b->compiled->compute_sets.items[ci];
		uint32_t used = 0;
		for (size_t vi = 0; vi < cs->vertices.len; vi++) {
			const tsi_vertex *v = cs->vertices.items[vi];
			size_t k = codelet_index(keys, n_codelets, v->codelet);
			if (k != SIZE_MAX && counts[b->codelet_type[k]]++ == 0)
				used++;
		}
		uint32_t *types = tsi_arena_alloc(&b->arena, (used ? used : 1) * sizeof(*types));
		uint64_t *vc = tsi_arena_alloc(&b->arena, (used ? used : 1) * sizeof(*vc));
		if (!types || !vc) {
			free(keys);
			free(counts);
			return oom();
		}
		uint32_t j = 0;
		for (uint32_t t = 0; t < n_types; t++) {
			if (counts[t]) {
				types[j] = t;
				vc[j++] = counts[t];
				counts[t] = 0;
			}
		}
		csp[cs->id].n_types = used;
		csp[cs->id].vertex_types = types;
		csp[cs->id].vertex_counts = vc;
	}
	free(counts);
	free(keys);
	b->profile.vertex_types = vt;
	b->profile.n_vertex_types = n_types;
	b->profile.compute_sets = csp;
	b->profile.n_compute_sets = n_cs;
	return TSI_OK;
}

/* Appends the generated copy compute sets to the compute set list and
 * points their OnTileExecute programs at them. */
static int append_generated(lower_ctx *c)
{
	tsi_profile_builder *b = c->b;
	size_t n_user = b->profile.n_compute_sets, n = n_user + b->n_generated;
	tsi_compute_set_profile *csp;

	if (!b->n_generated)
		return TSI_OK;
	csp = tsi_arena_alloc(&b->arena, n * sizeof(*csp));
	if (!csp)
		return oom();
	memcpy(csp, b->profile.compute_sets, n_user * sizeof(*csp));
	for (size_t g = 0; g < b->n_generated; g++) {
		tsi_generated_cs *gen = &b->generated[g];
		uint32_t *types = tsi_arena_alloc(&b->arena, sizeof(*types));
		uint64_t *vc = tsi_arena_alloc(&b->arena, sizeof(*vc));
		if (!types || !vc)
			return oom();
		gen->profile_index = (uint32_t)(n_user + g);
		types[0] = gen->vertex_type;
		vc[0] = gen->bytes_by_tile.n; /* one copy vertex per tile */
		((tsi_vertex_type_profile *)b->profile.vertex_types)[gen->vertex_type].instances += vc[0];
		csp[n_user + g].n_types = 1;
		csp[n_user + g].vertex_types = types;
		csp[n_user + g].vertex_counts = vc;
		csp[n_user + g].debug_context = gen->source ? gen->source->debug_id : 0;
	}
	for (size_t i = 0; i < b->n_programs; i++) {
		int32_t cs = b->programs[i].compute_set;
		if (cs <= -2) {
			tsi_generated_cs *gen = &b->generated[-2 - cs];
			b->programs[i].compute_set = (int32_t)gen->profile_index;
			csp[gen->profile_index].name = b->programs[i].name;
		}
	}
	b->profile.compute_sets = csp;
	b->profile.n_compute_sets = n;
	return TSI_OK;
}

/*
 * Copies the graph's debug contexts into the profile, in id order, with
 * their strings in the profile's arena: the model may go on opening
 * contexts after this compile, and those are not part of this profile.
 */
static int describe_debug_contexts(lower_ctx *c)
{
	tsi_profile_builder *b = c->b;
	const tsi_vec *ctxs = &b->core->debug_contexts;
	tsi_debug_context_profile *out;

	out = tsi_arena_alloc(&b->arena, (ctxs->len ? ctxs->len : 1) * sizeof(*out));
	if (!out)
		return oom();
	for (size_t i = 0; i < ctxs->len; i++) {
		const tsi_debug_context *d = ctxs->items[i];

		out[i].id = d->id;
		out[i].parent = d->parent;
		out[i].name = tsi_arena_strdup(&b->arena, d->name);
		out[i].layer = tsi_arena_strdup(&b->arena, d->layer);
		out[i].api = d->api ? tsi_arena_strdup(&b->arena, d->api) : NULL;
		if (!out[i].name || !out[i].layer || (d->api && !out[i].api))
			return oom();
	}
	b->profile.debug_contexts = out;
	b->profile.n_debug_contexts = ctxs->len;
	return TSI_OK;
}

/* --- Entry point ----------------------------------------------------------- */

int tsi_lower(tsi_profile_builder *b, tsi_program *const *programs, size_t n_programs)
{
	lower_ctx c;
	const tsi_graph_core *core = b->core;
	uint32_t tiles = core->target.num_tiles;
	int rc = TSI_OK;

	memset(&c, 0, sizeof(c));
	c.b = b;
	c.next_progress_s = tsi_monotonic_seconds() + 1.0;
	c.tiles_per_ipu = core->target.tiles_per_ipu ? core->target.tiles_per_ipu : 1;
	c.lowered = calloc(core->programs.len ? core->programs.len : 1, sizeof(*c.lowered));
	c.function_index = malloc((core->functions.len ? core->functions.len : 1) * sizeof(int32_t));
	c.seen = calloc(SEEN_SLOTS, sizeof(*c.seen));
	b->leaves = calloc(core->programs.len ? core->programs.len : 1, sizeof(*b->leaves));
	if (!c.lowered || !c.function_index || !c.seen || !b->leaves ||
	    tsi_tile_acc_init(&c.recv, tiles) || tsi_tile_acc_init(&c.sent, tiles) ||
	    tsi_tile_acc_init(&c.code, tiles) || tsi_tile_acc_init(&c.msg, tiles) ||
	    tsi_tile_acc_init(&c.hdr, tiles) || tsi_tile_acc_init(&c.cyc, tiles) ||
	    tsi_tile_acc_init(&c.runs, tiles)) {
		rc = oom();
		goto done;
	}
	for (size_t i = 0; i < core->functions.len; i++)
		c.function_index[i] = -1;
	if ((rc = describe_compute_sets(&c)))
		goto done;

	uint32_t *control = tsi_arena_alloc(&b->arena, (n_programs ? n_programs : 1) * sizeof(*control));
	if (!control) {
		rc = oom();
		goto done;
	}
	for (size_t i = 0; i < n_programs; i++) {
		int32_t id = wrap_sequence(&c, programs[i], NULL, &rc);
		if (id < 0) {
			rc = rc ? rc : oom();
			goto done;
		}
		control[i] = (uint32_t)id;
	}
	uint32_t *functions =
	    tsi_arena_alloc(&b->arena, (c.function_ids.len ? c.function_ids.len : 1) * sizeof(*functions));
	if (!functions) {
		rc = oom();
		goto done;
	}
	for (size_t i = 0; i < c.function_ids.len; i++)
		functions[i] = (uint32_t)(uintptr_t)c.function_ids.items[i];
	if ((rc = append_generated(&c)) || (rc = describe_debug_contexts(&c)))
		goto done;

	/* Graph counts. */
	uint64_t edges = 0;
	for (size_t i = 0; i < core->vertices.len; i++) {
		const tsi_vertex *v = core->vertices.items[i];
		for (size_t f = 0; v->codelet && f < v->codelet->n_fields; f++)
			edges += v->fields[f].n;
	}
	/* The schema's counts are of the user's and the compiler's items: the
	 * generated copy sets (after the user's in the list) and their one
	 * vertex per tile count too. Copy vertices have no fields (their
	 * copy descriptors are not edges). num_vars is set when the variable
	 * list is complete (tsi_compile_model). */
	uint64_t vertices = core->vertices.len;
	for (size_t g = 0; g < b->n_generated; g++)
		vertices += b->generated[g].bytes_by_tile.n;
	b->profile.num_compute_sets = b->profile.n_compute_sets;
	b->profile.num_edges = edges;
	b->profile.num_vars = core->vars.len;
	b->profile.num_vertices = vertices;
	b->profile.programs = b->programs;
	b->profile.n_programs = b->n_programs;
	b->profile.control_programs = control;
	b->profile.n_control_programs = n_programs;
	b->profile.function_programs = functions;
	b->profile.n_function_programs = c.function_ids.len;
	for (int k = 0; k < TSI_EXCHANGE_KIND_COUNT; k++)
		b->profile.exchanges[k] = b->exchanges[k];
done:
	free(c.lowered);
	free(c.function_index);
	free(c.seen);
	tsi_vec_clear(&c.function_ids);
	move_list_free(&c.internal);
	move_list_free(&c.external);
	tsi_tile_acc_free(&c.recv);
	tsi_tile_acc_free(&c.sent);
	tsi_tile_acc_free(&c.code);
	tsi_tile_acc_free(&c.msg);
	tsi_tile_acc_free(&c.hdr);
	tsi_tile_acc_free(&c.cyc);
	tsi_tile_acc_free(&c.runs);
	return rc;
}
