/*
 * Tile memory layout: puts every byte the compiled graph needs on a tile
 * into one memory category and one region, the way the graph profile's
 * "memory" section reports it (byTile, byCategory, byComputeSet,
 * byVertexType), adds the always-live aggregates ("controlCode",
 * "stack", "vertexCode" ...) to the variables list and lists the tiles
 * that are out of memory. Runs last: it needs lowering (exchange plans,
 * generated copies, vertex types) and liveness (live intervals for the
 * overlap of not-always-live data).
 *
 * The model and its assumptions (all per replica, tile numbers of one
 * replica's target):
 *
 * What each tile holds.
 *   - variable / constant / message / globalMessage /
 *     rearrangement / outputEdge: the entries liveness.c puts in the
 *     variables list (every user variable; one receive buffer per
 *     exchange plan with message_bytes, live over the steps of its
 *     exchange, "rearrangement" when a Copy between tensors laid out on
 *     different tiles receives it; one output edge buffer per post
 *     exchange on its sending tiles, live from the compute set that
 *     writes it to the exchange), bytes_by_tile, in the entry's category. So
 *     the plans' message_bytes are read only through that list and never
 *     counted twice. An always-live entry is one item per tile it is on
 *     ("nonOverlapped"); the not-always-live ones share the tile's
 *     overlap pool ("overlapped"). An entry live nowhere (live_from =
 *     UINT32_MAX: no program touches it) is still counted in the
 *     overlapped column but adds nothing to the pool: it needs no storage
 *     at any step.
 *   - internal/host/globalExchangeCode: the plans' code_bytes by kind;
 *     host/globalExchangePacketHeader: their packet_header_bytes.
 *   - vertexInstanceState: codelet->state_bytes per vertex of an executed
 *     compute set, each rounded up to 4 bytes; the rounding is padding
 *     (a gap, and paddingBytes of byComputeSet/byVertexType). Generated
 *     copy compute sets: one copy vertex per tile that copies, with the
 *     state size lowering gives its type (12 bytes).
 *   - vertexFieldData: per VECTOR_LIST field of a vertex, 6 bytes per
 *     sub-vector (a pointer and a 16-bit length: "edge pointers"), the
 *     field rounded up to 4 bytes. vectorListDescriptor: 8 bytes per
 *     VECTOR_LIST field of a vertex. Scalar and vector fields live in the
 *     vertex state.
 *   - copyDescriptor: 8 bytes per contiguous run a generated copy moves.
 *   - vertexCode: a vertex type's code_bytes once on every tile that has
 *     at least one vertex of that type, whatever compute sets use it.
 *   - controlCode: control_code_per_step bytes per lowered program, on
 *     every tile of every IPU the program runs on: a tile holds the
 *     control code of what executes on its IPU, as the guide's category
 *     says, so a pipeline stage's programs cost only its IPUs' tiles. A
 *     program runs on an IPU when it computes there (its compute set has
 *     cycles on a tile of it), exchanges there (its exchange sends,
 *     receives or spends cycles on such a tile), or contains such a
 *     program (children, a Call's function body); a Sync runs on every
 *     IPU, and so does a program that touches no tile at all (an empty
 *     Sequence, WriteUndef: the model cannot say where, so everywhere).
 *     With more than 64 IPUs in a replica every program is charged to
 *     every tile, the rule this model had before.
 *   - stack: supervisor stack + worker stack x worker contexts, every tile.
 *   - instrumentationResults (debug.instrumentCompute): an 8-byte cycle
 *     count per executed compute set (generated copies included) on every
 *     tile with vertices of it ("tile"), per vertex ("vertex"), on tile 0
 *     only ("device"), on the first tile of every IPU ("ipu"); with
 *     debug.instrumentExternalExchange one more per host or IPU-to-IPU
 *     exchange on every tile that sends or receives in it; with
 *     debug.instrumentControlFlow one per control-flow program (Repeat,
 *     RepeatWhile, If, Switch, Call) on every tile, since every tile runs
 *     the control program.
 *   - controlTable: each Switch's jump table, 4 bytes per case and
 *     default, on every tile of the IPUs the Switch runs on (beside its
 *     control code; the same IPU rule).
 *   - hostMessage, controlId, multiple, sharedCodeStorage,
 *     sharedDataStorage: the model has no construct they describe
 *     (always 0; the README says why for each).
 *
 * Regions. A tile of B bytes has a non-interleaved region [0, I) and an
 * interleaved region [I, B), I = B/2 rounded down to a multiple of 64 KiB
 * (Mk1: 128 KiB, Mk2/Bow: 256 KiB). Code, stacks, vertex state, field data,
 * descriptors, packet headers and instrumentation prefer non-interleaved;
 * a variable-like item (variable, constant, the message kinds,
 * rearrangement, outputEdge, the overlap pool)
 * prefers interleaved when it has at least 1 KiB on the tile or is HALF.
 * Items are placed one after another in each region (a bump allocator; no
 * holes to reuse, so first fit is "the first region with room") in a fixed
 * order: by category in the enum's order, the overlap pool last, larger
 * items first, creation order on ties. Alignment: 8 bytes for variables,
 * constants, messages, the pool and code, 4 for the rest; the padding is a
 * gap. An item goes to its preferred region, else the other, else it is
 * put across the boundary when the interleaved region is still empty and
 * the tile holds it (after the non-interleaved contents, running on into
 * the interleaved region: a piece larger than either region on an
 * otherwise empty tile), else after the end of the interleaved region's
 * contents, running past the tile's end: its bytes beyond B are
 * "overflowed" (an item may thus be split between interleaved and
 * overflowed).
 *
 * The overlap pool of a tile is one item of the tile's peak of
 * simultaneously live not-always-live bytes over the liveness steps (an
 * entry is live from live_from to live_to inclusive). In byCategory each
 * overlapped entry counts its own bytes in the "overlapped" column of the
 * region where the pool starts; hence for every tile
 *     sum of all byCategory cells = total + (overlapped bytes - pool),
 * and total = the nonOverlapped cells + pool.
 *
 * byTile: region[r] counts data bytes (gaps excluded); region_including_
 * gaps[r] is the extent of the region's used part from its start, padding
 * included (overflowed: the extent beyond B); total is the sum of the
 * regions; total_including_gaps is the highest address used + 1 (I + the
 * interleaved extent when the interleaved region is used, so the unused
 * rest of the non-interleaved region counts; beyond B when something
 * overflowed). A tile is out of memory when total_including_gaps > B,
 * which is exactly when something overflowed.
 *
 * Always-live aggregates: one entry per computed category with bytes is
 * appended to the variables list (liveness.c made it with the user
 * variables and message buffers, and set always_live_bytes to the sum of
 * the always-live user variables); their bytes are added to
 * always_live_bytes.
 *
 * Cost: linear in vertices, variable pieces (entries x tiles they are on),
 * exchange plan entries and tiles x categories, plus the sorts of those
 * lists; no per-tile loop runs inside a per-vertex or per-compute-set
 * loop except over the IPUs.
 */
#include "compiler-private.h"

#include <stdlib.h>
#include <string.h>

#define EDGE_PTR_BYTES        6u  /* per sub-vector of a VECTOR_LIST field */
#define VECTOR_LIST_DESC_BYTES 8u /* per VECTOR_LIST field instance */
#define COPY_DESC_BYTES       8u  /* per contiguous run a copy moves */
#define COPY_VERTEX_STATE     12u /* one generated copy vertex per tile (when
                                     lowering gives its type no state size) */
#define INTERLEAVED_MIN_BYTES 1024u
#define REGION_GRANULE        (64u * 1024u)

/* Placement order key of the overlap pool: after every category. */
#define POOL_RANK TSI_MEM_CATEGORY_COUNT

/* The vertex memory breakdown fields, in tsi_vertex_memory order. */
enum { VM_CODE = 0, VM_COPY, VM_DESC, VM_EDGE, VM_PAD, VM_DATA, VM_TOTAL, VM_COUNT };

/* One thing to place on a tile. */
typedef struct mem_item {
	uint32_t tile;
	uint32_t rank;      /* order key: the category, POOL_RANK for the pool */
	uint32_t cat;
	uint32_t align;     /* bytes, a power of two */
	bool interleaved;   /* prefers the interleaved region */
	uint64_t bytes;     /* data */
	uint64_t extent;    /* data + internal padding (vertex state rounding) */
	size_t seq;         /* creation order, for a total order */
} mem_item;

/* A change of live not-always-live bytes at a liveness step (of the tile
 * whose slice of mem_ctx.events holds it). */
typedef struct live_event {
	uint64_t step;
	int64_t delta;
} live_event;

/* A vertex, or the vertices of one (compute set, type, tile) group. */
typedef struct vgroup {
	uint64_t key;       /* type << 32 | tile */
	uint64_t n;         /* vertices */
	uint64_t state, pad, edge, desc, copy;
} vgroup;

/* A codelet pointer and the profile vertex type it maps to. */
typedef struct codelet_map {
	const tsi_codelet *codelet;
	int32_t type;
} codelet_map;

typedef struct mem_ctx {
	tsi_profile_builder *b;
	uint32_t num_tiles;
	uint64_t bytes_per_tile;
	uint64_t split;          /* I: first address of the interleaved region */
	uint64_t *cat;           /* [cat * num_tiles + tile]: bytes of computed categories */
	uint64_t *vis_pad;       /* [tile]: vertex state rounding padding */
	uint64_t *ovl;           /* [cat * num_tiles + tile]: overlapped bytes */
	uint64_t *pool;          /* [tile]: overlap pool bytes */
	uint32_t *stamp;         /* [tile]: last compute set / plan counted there, + 1 */
	mem_item *items;
	size_t n_items, cap_items;
	live_event *events;      /* by tile: tile t's at [event_end[t - 1], event_end[t]) */
	size_t *event_end;       /* num_tiles entries */
	vgroup *groups;          /* (cs, type, tile) groups of every compute set */
	size_t n_groups, cap_groups;
	codelet_map *cmap;
	size_t n_cmap;
	tsi_tile_acc acc[VM_COUNT];
} mem_ctx;

/* --- Small helpers -------------------------------------------------------------- */

/* Rounds `v` up to a multiple of the power of two `a`. */
static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/*
 * Makes room for `need` more elements in the malloc'd array `arr` of
 * `size`-byte elements holding `n` of *cap. Returns the array (moved
 * perhaps), or NULL when out of memory (the old array stays valid).
 */
static void *grow(void *arr, size_t *cap, size_t n, size_t need, size_t size)
{
	void *p;
	size_t c;

	if (n + need <= *cap)
		return arr;
	c = *cap ? *cap * 2 : 256;
	while (c < n + need)
		c *= 2;
	p = realloc(arr, c * size);
	if (p)
		*cap = c;
	return p;
}

/* True for categories the variables list (or the plans) provide: their
 * bytes are entries of their own, not one always-live aggregate. */
static bool is_variable_category(uint32_t cat)
{
	return cat == TSI_MEM_VARIABLE || cat == TSI_MEM_CONSTANT || cat == TSI_MEM_MESSAGE ||
	       cat == TSI_MEM_HOST_MESSAGE || cat == TSI_MEM_GLOBAL_MESSAGE ||
	       cat == TSI_MEM_REARRANGEMENT || cat == TSI_MEM_OUTPUT_EDGE;
}

/* Alignment of an item of category `cat`: 8 for variables and code. */
static uint32_t category_align(uint32_t cat)
{
	switch (cat) {
	case TSI_MEM_CONTROL_CODE:
	case TSI_MEM_VERTEX_CODE:
	case TSI_MEM_INTERNAL_EXCHANGE_CODE:
	case TSI_MEM_HOST_EXCHANGE_CODE:
	case TSI_MEM_GLOBAL_EXCHANGE_CODE:
		return 8;
	default:
		return is_variable_category(cat) ? 8 : 4;
	}
}

/* Records an out-of-memory error while doing `what`; returns its code. */
static int no_memory(const char *what)
{
	return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory laying out %s", what);
}

/* Appends an item; false when out of memory. */
static bool add_item(mem_ctx *m, uint32_t tile, uint32_t rank, uint32_t cat, bool interleaved,
                     uint64_t bytes, uint64_t extent)
{
	mem_item *items = grow(m->items, &m->cap_items, m->n_items, 1, sizeof(*items));

	if (!items)
		return false;
	m->items = items;
	m->items[m->n_items] = (mem_item){
		.tile = tile, .rank = rank, .cat = cat, .align = rank == POOL_RANK ? 8 : category_align(cat),
		.interleaved = interleaved, .bytes = bytes, .extent = extent, .seq = m->n_items,
	};
	m->n_items++;
	return true;
}


/* Adds `v` bytes of computed category `cat` on `tile`. */
static void add_cat(mem_ctx *m, uint32_t cat, uint32_t tile, uint64_t v)
{
	if (tile < m->num_tiles)
		m->cat[(size_t)cat * m->num_tiles + tile] += v;
}

/* --- Vertex data ------------------------------------------------------------------ */

/* qsort order of the codelet map: by pointer. */
static int cmp_cmap(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const codelet_map *)a)->codelet;
	uintptr_t y = (uintptr_t)((const codelet_map *)b)->codelet;
	return x < y ? -1 : x > y;
}

/* qsort order of vertex groups: by (type, tile). */
static int cmp_vgroup(const void *a, const void *b)
{
	uint64_t x = ((const vgroup *)a)->key, y = ((const vgroup *)b)->key;
	return x < y ? -1 : x > y;
}

/*
 * The profile vertex type of a codelet (binary search of the map made
 * from core->codelets and b->codelet_type), or -1 when it has none.
 */
static int32_t codelet_profile_type(const mem_ctx *m, const tsi_codelet *c)
{
	size_t lo = 0, hi = m->n_cmap;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((uintptr_t)m->cmap[mid].codelet < (uintptr_t)c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n_cmap && m->cmap[lo].codelet == c ? m->cmap[lo].type : -1;
}

/* Adds one (cs, type, tile) group to the vertex memory accumulators. */
static void acc_group(mem_ctx *m, const vgroup *g, uint64_t code)
{
	uint32_t tile = (uint32_t)g->key;
	uint64_t v[VM_COUNT] = {0};

	v[VM_CODE] = code;
	v[VM_COPY] = g->copy;
	v[VM_DESC] = g->desc;
	v[VM_EDGE] = g->edge;
	v[VM_PAD] = g->pad;
	v[VM_DATA] = g->state;
	v[VM_TOTAL] = code + g->copy + g->desc + g->edge + g->pad + g->state;
	for (int i = 0; i < VM_COUNT; i++)
		tsi_tile_acc_add(&m->acc[i], tile, v[i]);
}

/* Moves the accumulators into `out` (arena) and resets them. */
static int take_vertex_memory(mem_ctx *m, tsi_vertex_memory *out)
{
	tsi_tile_values *dst[VM_COUNT] = {
		&out->code_bytes, &out->copy_ptr_bytes, &out->descriptor_bytes, &out->edge_ptr_bytes,
		&out->padding_bytes, &out->vertex_data_bytes, &out->total_bytes,
	};
	int rc = TSI_OK;

	for (int i = 0; i < VM_COUNT; i++) {
		int r = tsi_tile_acc_take(&m->acc[i], &m->b->arena, dst[i]);
		if (r && !rc)
			rc = r;
	}
	return rc;
}

/* Code bytes of profile vertex type `type` (0 for none). */
static uint64_t type_code(const mem_ctx *m, uint32_t type)
{
	const tsi_graph_profile *p = &m->b->profile;

	return type < p->n_vertex_types ? p->vertex_types[type].code_bytes : 0;
}

/*
 * Instrumentation of one executed compute set whose vertices are in the
 * sorted groups g[0..n): an 8-byte result per tile with vertices, per
 * vertex, on tile 0, or on each IPU's first tile, by level. `seq` is a
 * number unique to the compute set (for the per-tile stamps).
 */
static void instrument_cs(mem_ctx *m, const vgroup *g, size_t n, uint32_t seq)
{
	tsi_profile_builder *b = m->b;
	uint64_t rec = b->k.instrumentation_bytes;

	if (!b->instrument_compute)
		return;
	switch (b->instrument_level) {
	case 1:
		for (size_t i = 0; i < n; i++)
			add_cat(m, TSI_MEM_INSTRUMENTATION_RESULTS, (uint32_t)g[i].key, rec * g[i].n);
		break;
	case 2:
		add_cat(m, TSI_MEM_INSTRUMENTATION_RESULTS, 0, rec);
		break;
	case 3:
		for (unsigned ipu = 0; ipu < b->profile.target.num_ipus; ipu++)
			add_cat(m, TSI_MEM_INSTRUMENTATION_RESULTS, ipu * b->profile.target.tiles_per_ipu,
			        rec);
		break;
	default:
		for (size_t i = 0; i < n; i++) {
			uint32_t tile = (uint32_t)g[i].key;
			if (tile < m->num_tiles && m->stamp[tile] != seq + 1) {
				m->stamp[tile] = seq + 1;
				add_cat(m, TSI_MEM_INSTRUMENTATION_RESULTS, tile, rec);
			}
		}
		break;
	}
}

/* Adds group `b`'s counts to `a` (same key). */
static void merge_group(vgroup *a, const vgroup *b)
{
	a->n += b->n;
	a->state += b->state;
	a->pad += b->pad;
	a->edge += b->edge;
	a->desc += b->desc;
	a->copy += b->copy;
}

/*
 * Sorts the kept groups by (type, tile) and merges those of one key. The
 * by-type pass only needs each key's sums, and a large model has a group
 * per (compute set, type, tile): 1.7 M of them, 100 MB, where the keys
 * are a few hundred thousand. Called before a compute set adds groups
 * that would not fit the array; the sums are the same, only the number
 * of entries changes.
 */
static void compact_groups(mem_ctx *m)
{
	size_t out = 0;

	if (m->n_groups < 2)
		return;
	qsort(m->groups, m->n_groups, sizeof(*m->groups), cmp_vgroup);
	for (size_t i = 1; i < m->n_groups; i++) {
		if (m->groups[i].key == m->groups[out].key)
			merge_group(&m->groups[out], &m->groups[i]);
		else
			m->groups[++out] = m->groups[i];
	}
	m->n_groups = out + 1;
}

/* Room for at least `n` records in the scratch array *vg of capacity
 * *cap (kept across compute sets; grown, never shrunk). */
static int reserve_groups(vgroup **vg, size_t *cap, size_t n)
{
	vgroup *nv;

	if (n <= *cap)
		return TSI_OK;
	nv = realloc(*vg, n * sizeof(**vg));
	if (!nv)
		return TSI_ERR_NO_MEMORY;
	*vg = nv;
	*cap = n;
	return TSI_OK;
}

/*
 * Finishes one compute set whose per-vertex records are vg[0..n): merges
 * them into (type, tile) groups, fills its byComputeSet entry `out`,
 * keeps the groups for the by-type pass and counts instrumentation.
 */
static int finish_compute_set(mem_ctx *m, vgroup *vg, size_t n, tsi_vertex_memory *out,
                              uint32_t seq)
{
	size_t first;
	int rc = TSI_OK;

	/* A full array is merged rather than grown; when that frees less than
	 * half of it, it doubles now, so that merging costs O(log) passes in
	 * all and the array stays within twice the distinct keys (plus one
	 * compute set's groups). */
	if (m->n_groups + n > m->cap_groups && m->n_groups >= 2 * n) {
		compact_groups(m);
		if (2 * m->n_groups > m->cap_groups) {
			vgroup *groups = grow(m->groups, &m->cap_groups, m->n_groups,
			                      m->cap_groups - m->n_groups + 1, sizeof(*groups));
			if (!groups)
				return TSI_ERR_NO_MEMORY;
			m->groups = groups;
		}
	}
	first = m->n_groups;
	if (n > 1)
		qsort(vg, n, sizeof(*vg), cmp_vgroup);
	for (size_t i = 0; i < n;) {
		vgroup g = vg[i];
		size_t j = i + 1;

		for (; j < n && vg[j].key == g.key; j++)
			merge_group(&g, &vg[j]);
		vgroup *groups = grow(m->groups, &m->cap_groups, m->n_groups, 1, sizeof(*groups));
		if (!groups) {
			rc = TSI_ERR_NO_MEMORY;
			goto done;
		}
		m->groups = groups;
		m->groups[m->n_groups++] = g;
		acc_group(m, &g, type_code(m, (uint32_t)(g.key >> 32)));
		i = j;
	}
	/* m->groups is NULL until the first group: no offset from NULL. */
	instrument_cs(m, m->groups ? m->groups + first : NULL, m->n_groups - first, seq);
	rc = take_vertex_memory(m, out);
done:
	return rc;
}

/*
 * The vertex data of every executed compute set and generated copy:
 * byComputeSet, then (from the groups of all of them) byVertexType and
 * the vertexCode, vertexInstanceState, vertexFieldData,
 * vectorListDescriptor and copyDescriptor bytes of each tile.
 */
static int layout_vertices(mem_ctx *m)
{
	tsi_profile_builder *b = m->b;
	tsi_graph_profile *p = &b->profile;
	tsi_vertex_memory *by_cs = NULL, *by_type = NULL;
	vgroup *vg = NULL;
	size_t cap_vg = 0;
	uint32_t seq = 0;
	int rc = TSI_OK;

	by_cs = tsi_arena_alloc(&b->arena, (p->n_compute_sets ? p->n_compute_sets : 1) * sizeof(*by_cs));
	by_type = tsi_arena_alloc(&b->arena, (p->n_vertex_types ? p->n_vertex_types : 1) * sizeof(*by_type));
	m->n_cmap = b->core->codelets.len;
	m->cmap = malloc((m->n_cmap ? m->n_cmap : 1) * sizeof(*m->cmap));
	if (!by_cs || !by_type || !m->cmap) {
		rc = TSI_ERR_NO_MEMORY;
		goto done;
	}
	for (size_t i = 0; i < m->n_cmap; i++) {
		m->cmap[i].codelet = b->core->codelets.items[i];
		m->cmap[i].type = b->codelet_type ? b->codelet_type[i] : -1;
	}
	if (m->n_cmap > 1)
		qsort(m->cmap, m->n_cmap, sizeof(*m->cmap), cmp_cmap);

	/* User compute sets that run: one record per vertex. */
	for (size_t c = 0; c < b->compiled->compute_sets.len; c++, seq++) {
		const tsi_compute_set *cs = b->compiled->compute_sets.items[c];
		size_t n = cs->vertices.len;
		const tsi_codelet *last = NULL;
		int32_t last_type = -1;

		if ((rc = reserve_groups(&vg, &cap_vg, n)))
			goto done;
		for (size_t i = 0; i < n; i++) {
			const tsi_vertex *v = cs->vertices.items[i];
			const tsi_codelet *cl = v->codelet;
			vgroup *r = &vg[i];

			memset(r, 0, sizeof(*r));
			if (cl != last) {
				last = cl;
				last_type = cl ? codelet_profile_type(m, cl) : -1;
			}
			/* A vertex without a profile type keeps its data under an
			 * index past the types (no code, no byVertexType entry). */
			r->key = (uint64_t)(last_type >= 0 ? (uint32_t)last_type : UINT32_MAX) << 32 | v->tile;
			r->n = 1;
			if (!cl)
				continue;
			r->state = cl->state_bytes;
			r->pad = align_up(cl->state_bytes, 4) - cl->state_bytes;
			for (size_t f = 0; f < cl->n_fields; f++) {
				if (cl->fields[f].shape != TSI_FIELD_VECTOR_LIST)
					continue;
				r->edge += align_up((uint64_t)v->fields[f].n * EDGE_PTR_BYTES, 4);
				r->desc += VECTOR_LIST_DESC_BYTES;
			}
		}
		if (cs->id >= p->n_compute_sets) {
			rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
			                   "memory layout: compute set %u has no profile entry", cs->id);
			goto done;
		}
		rc = finish_compute_set(m, vg, n, &by_cs[cs->id], seq);
		if (rc)
			goto done;
	}

	/* Generated copies: one copy vertex on every tile that copies. */
	for (size_t gi = 0; gi < b->n_generated; gi++, seq++) {
		const tsi_generated_cs *gen = &b->generated[gi];
		size_t n = gen->bytes_by_tile.n;

		if (gen->profile_index >= p->n_compute_sets)
			continue;
		if ((rc = reserve_groups(&vg, &cap_vg, n)))
			goto done;
		/* The copy vertex's state as lowering describes its type. */
		uint64_t state = gen->vertex_type < p->n_vertex_types
		                     ? p->vertex_types[gen->vertex_type].state_bytes
		                     : COPY_VERTEX_STATE;
		for (size_t i = 0; i < n; i++) {
			uint32_t tile = gen->bytes_by_tile.tiles[i];

			vg[i] = (vgroup){
				.key = (uint64_t)gen->vertex_type << 32 | tile,
				.n = 1,
				.state = state,
				.pad = align_up(state, 4) - state,
				.copy = COPY_DESC_BYTES * tsi_tile_values_get(&gen->regions_by_tile, tile),
			};
		}
		rc = finish_compute_set(m, vg, n, &by_cs[gen->profile_index], seq);
		if (rc)
			goto done;
	}

	/* By vertex type: all groups sorted by (type, tile); a type's code
	 * counts once per tile however many compute sets use it there. */
	if (m->n_groups > 1)
		qsort(m->groups, m->n_groups, sizeof(*m->groups), cmp_vgroup);
	for (size_t i = 0; i < m->n_groups;) {
		uint32_t type = (uint32_t)(m->groups[i].key >> 32);
		size_t j = i;

		for (; j < m->n_groups && (uint32_t)(m->groups[j].key >> 32) == type;) {
			vgroup g = m->groups[j];
			uint32_t tile = (uint32_t)g.key;
			uint64_t code = type_code(m, type);
			size_t k = j + 1;

			for (; k < m->n_groups && m->groups[k].key == g.key; k++)
				merge_group(&g, &m->groups[k]);
			acc_group(m, &g, code);
			add_cat(m, TSI_MEM_VERTEX_CODE, tile, code);
			add_cat(m, TSI_MEM_VERTEX_INSTANCE_STATE, tile, g.state);
			if (tile < m->num_tiles)
				m->vis_pad[tile] += g.pad;
			add_cat(m, TSI_MEM_VERTEX_FIELD_DATA, tile, g.edge);
			add_cat(m, TSI_MEM_VECTOR_LIST_DESCRIPTOR, tile, g.desc);
			add_cat(m, TSI_MEM_COPY_DESCRIPTOR, tile, g.copy);
			j = k;
		}
		if (type < p->n_vertex_types)
			rc = take_vertex_memory(m, &by_type[type]);
		else
			rc = take_vertex_memory(m, &(tsi_vertex_memory){0}); /* discard */
		if (rc)
			goto done;
		i = j;
	}
	p->by_compute_set = by_cs;
	p->by_vertex_type = by_type;
done:
	free(vg);
	if (rc == TSI_ERR_NO_MEMORY)
		tsi_set_error(rc, "out of host memory laying out vertex data");
	return rc;
}

/* --- Code, stacks, exchanges, instrumentation -------------------------------------- */

/* Adds the sparse `tv` to computed category `cat`. */
static void add_cat_values(mem_ctx *m, uint32_t cat, const tsi_tile_values *tv)
{
	for (size_t i = 0; i < tv->n; i++)
		add_cat(m, cat, tv->tiles[i], tv->values[i]);
}

/* Adds `v` to `cat` on every tile of `tv` not stamped with `mark` yet. */
static void add_cat_once(mem_ctx *m, uint32_t cat, const tsi_tile_values *tv, uint32_t mark,
                         uint64_t v)
{
	for (size_t i = 0; i < tv->n; i++) {
		uint32_t tile = tv->tiles[i];
		if (tile < m->num_tiles && m->stamp[tile] != mark) {
			m->stamp[tile] = mark;
			add_cat(m, cat, tile, v);
		}
	}
}

/* The IPUs (bits of one replica's IPUs) of the tiles `tv` names. */
static uint64_t ipus_of(const tsi_tile_values *tv, unsigned tiles_per_ipu, unsigned n_ipus)
{
	uint64_t mask = 0;

	for (size_t i = 0; i < tv->n; i++)
		if (tv->tiles[i] / tiles_per_ipu < n_ipus)
			mask |= (uint64_t)1 << (tv->tiles[i] / tiles_per_ipu);
	return mask;
}

/* The IPUs program `i` and everything below it run on (memo[] holds the
 * masks found, done[] which are final); see "controlCode" above. The
 * program graph has no cycles (graph-checks.c), so the depth is bounded
 * by its nesting. */
static uint64_t program_ipus(const tsi_graph_profile *p, uint32_t i, uint64_t *memo, bool *done,
                             uint64_t all)
{
	const tsi_lowered_program *lp = &p->programs[i];
	unsigned tpi = p->target.tiles_per_ipu, n = p->target.num_ipus;
	uint64_t mask = 0;

	if (done[i])
		return memo[i];
	switch (lp->type) {
	case TSI_LP_ON_TILE_EXECUTE:
		if (lp->compute_set >= 0 && (size_t)lp->compute_set < p->n_compute_sets)
			mask = ipus_of(&p->compute_sets[lp->compute_set].cycles_by_tile, tpi, n);
		break;
	case TSI_LP_DO_EXCHANGE:
	case TSI_LP_GLOBAL_EXCHANGE:
	case TSI_LP_STREAM_COPY: {
		tsi_exchange_kind k = lp->type == TSI_LP_DO_EXCHANGE       ? TSI_EXCHANGE_INTERNAL
		                      : lp->type == TSI_LP_GLOBAL_EXCHANGE ? TSI_EXCHANGE_EXTERNAL
		                                                           : TSI_EXCHANGE_HOST;
		if (lp->exchange >= 0 && (size_t)lp->exchange < p->n_exchanges[k]) {
			const tsi_exchange_profile *x = &p->exchanges[k][lp->exchange];

			mask = ipus_of(&x->bytes_sent, tpi, n) | ipus_of(&x->bytes_received, tpi, n) |
			       ipus_of(&x->cycles, tpi, n);
		}
		break;
	}
	case TSI_LP_SYNC:
		mask = all;
		break;
	default:
		for (uint32_t c = 0; c < lp->n_children; c++)
			if (lp->children[c] < p->n_programs)
				mask |= program_ipus(p, lp->children[c], memo, done, all);
		if (lp->type == TSI_LP_CALL && lp->function >= 0 &&
		    (size_t)lp->function < p->n_function_programs &&
		    p->function_programs[lp->function] < p->n_programs)
			mask |= program_ipus(p, p->function_programs[lp->function], memo, done, all);
		break;
	}
	memo[i] = mask ? mask : all;
	done[i] = true;
	return memo[i];
}

/* Bytes of a Switch's jump table: one 32-bit target per case and default. */
#define CONTROL_TABLE_ENTRY_BYTES 4u

/* The jump table of program `lp` (0 unless a Switch). */
static uint64_t control_table_bytes(const tsi_lowered_program *lp)
{
	return lp->type == TSI_LP_SWITCH ? (uint64_t)CONTROL_TABLE_ENTRY_BYTES * lp->n_children : 0;
}

/*
 * Control code and control tables of each IPU's tiles (2 x n_ipus
 * entries, malloc'd: code[ipu], then table[ipu]): the programs that run on
 * it, control_code_per_step each, and the jump tables of its Switches.
 * NULL when the replica has more than 64 IPUs or memory runs out: the
 * caller then charges every program to every tile.
 */
static uint64_t *control_code_by_ipu(const tsi_profile_builder *b)
{
	const tsi_graph_profile *p = &b->profile;
	unsigned n = p->target.num_ipus;
	uint64_t all = n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
	uint64_t *memo, *out;
	bool *done;

	if (n == 0 || n > 64 || p->target.tiles_per_ipu == 0)
		return NULL;
	memo = calloc(p->n_programs ? p->n_programs : 1, sizeof(*memo));
	done = calloc(p->n_programs ? p->n_programs : 1, sizeof(*done));
	out = calloc(2 * (size_t)n, sizeof(*out));
	if (!memo || !done || !out) {
		free(memo);
		free(done);
		free(out);
		return NULL;
	}
	for (uint32_t i = 0; i < p->n_programs; i++) {
		uint64_t mask = program_ipus(p, i, memo, done, all);
		uint64_t table = control_table_bytes(&p->programs[i]);

		for (unsigned ipu = 0; ipu < n; ipu++)
			if (mask >> ipu & 1) {
				out[ipu] += b->k.control_code_per_step;
				out[n + ipu] += table;
			}
	}
	free(memo);
	free(done);
	return out;
}

/*
 * Control code (per IPU, control_code_by_ipu) and stacks on every tile,
 * exchange code and packet headers from the plans, and the
 * instrumentation of host and IPU-to-IPU exchanges.
 */
static void layout_fixed(mem_ctx *m)
{
	tsi_profile_builder *b = m->b;
	const tsi_graph_profile *p = &b->profile;
	uint64_t *control_by_ipu = control_code_by_ipu(b);
	uint64_t control = (uint64_t)b->k.control_code_per_step * p->n_programs, table = 0;
	unsigned n_ipus = p->target.num_ipus;
	uint64_t stack = b->k.supervisor_stack_bytes +
	                 (uint64_t)p->target.num_worker_contexts * b->k.worker_stack_bytes;
	/* Stamps of compute sets used 1..n; plans use marks above them. */
	uint32_t mark = (uint32_t)(b->compiled->compute_sets.len + b->n_generated) + 1;

	uint64_t control_flow = 0;
	if (b->instrument_control_flow)
		for (size_t i = 0; i < p->n_programs; i++)
			switch (p->programs[i].type) {
			case TSI_LP_REPEAT:
			case TSI_LP_REPEAT_WHILE_TRUE:
			case TSI_LP_REPEAT_WHILE_FALSE:
			case TSI_LP_IF:
			case TSI_LP_IF_ELSE:
			case TSI_LP_SWITCH:
			case TSI_LP_CALL:
				control_flow += b->k.instrumentation_bytes;
				break;
			default:
				break;
			}
	if (!control_by_ipu)
		for (size_t i = 0; i < p->n_programs; i++)
			table += control_table_bytes(&p->programs[i]);
	for (uint32_t t = 0; t < m->num_tiles; t++) {
		unsigned ipu = control_by_ipu ? t / p->target.tiles_per_ipu : 0;

		add_cat(m, TSI_MEM_CONTROL_CODE, t, control_by_ipu ? control_by_ipu[ipu] : control);
		add_cat(m, TSI_MEM_CONTROL_TABLE, t,
		        control_by_ipu ? control_by_ipu[n_ipus + ipu] : table);
		add_cat(m, TSI_MEM_STACK, t, stack);
		if (control_flow)
			add_cat(m, TSI_MEM_INSTRUMENTATION_RESULTS, t, control_flow);
	}
	for (size_t i = 0; i < b->n_plans; i++) {
		const tsi_exchange_plan *pl = &b->plans[i];
		uint32_t code = pl->kind == TSI_EXCHANGE_HOST ? TSI_MEM_HOST_EXCHANGE_CODE
		                : pl->kind == TSI_EXCHANGE_EXTERNAL ? TSI_MEM_GLOBAL_EXCHANGE_CODE
		                : TSI_MEM_INTERNAL_EXCHANGE_CODE;
		uint32_t header = pl->kind == TSI_EXCHANGE_EXTERNAL ? TSI_MEM_GLOBAL_EXCHANGE_PACKET_HEADER
		                  : TSI_MEM_HOST_EXCHANGE_PACKET_HEADER;

		add_cat_values(m, code, &pl->code_bytes);
		if (pl->kind != TSI_EXCHANGE_INTERNAL)
			add_cat_values(m, header, &pl->packet_header_bytes);
		if (b->instrument_external_exchange && pl->kind != TSI_EXCHANGE_INTERNAL &&
		    pl->index < p->n_exchanges[pl->kind]) {
			const tsi_exchange_profile *ex = &p->exchanges[pl->kind][pl->index];
			add_cat_once(m, TSI_MEM_INSTRUMENTATION_RESULTS, &ex->bytes_received, mark,
			             b->k.instrumentation_bytes);
			add_cat_once(m, TSI_MEM_INSTRUMENTATION_RESULTS, &ex->bytes_sent, mark,
			             b->k.instrumentation_bytes);
			mark++;
		}
	}
	free(control_by_ipu);
}

/* --- Variables, messages and the overlap pool --------------------------------------- */

/* qsort order of one tile's live events: by step, then ends before
 * starts. */
static int cmp_event(const void *a, const void *b)
{
	const live_event *x = a, *y = b;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return x->delta < y->delta ? -1 : x->delta > y->delta;
}

/* True when the not-always-live bytes of `v` on a tile have a live
 * interval (UINT32_MAX: no program touches it, so it adds nothing to the
 * peak). */
static bool has_interval(const tsi_variable_profile *v)
{
	return !v->always_live && v->live_from != UINT32_MAX;
}

/*
 * Puts the live intervals of the variables into m->events, grouped by
 * tile (two passes: count, then fill), so that the array is exactly as
 * long as it must be and each tile's events sort on their own: one array
 * of every tile's events, grown by doubling and sorted whole (with
 * qsort's merge buffer as large again), was the compile's peak.
 */
static int collect_events(mem_ctx *m)
{
	const tsi_graph_profile *p = &m->b->profile;
	size_t total = 0;

	m->event_end = calloc(m->num_tiles ? m->num_tiles : 1, sizeof(*m->event_end));
	if (!m->event_end)
		return no_memory("variables");
	for (size_t i = 0; i < p->n_variables; i++) {
		const tsi_variable_profile *v = &p->variables[i];

		if (!has_interval(v))
			continue;
		for (size_t k = 0; k < v->bytes_by_tile.n; k++)
			if (v->bytes_by_tile.tiles[k] < m->num_tiles && v->bytes_by_tile.values[k])
				m->event_end[v->bytes_by_tile.tiles[k]] += 2;
	}
	/* event_end[t] is first the start of tile t's slice, then moves to
	 * its end as the slice fills. */
	for (uint32_t t = 0; t < m->num_tiles; t++) {
		size_t n = m->event_end[t];
		m->event_end[t] = total;
		total += n;
	}
	m->events = malloc((total ? total : 1) * sizeof(*m->events));
	if (!m->events)
		return no_memory("variables");
	for (size_t i = 0; i < p->n_variables; i++) {
		const tsi_variable_profile *v = &p->variables[i];
		uint64_t to = v->live_to < v->live_from ? v->live_from : v->live_to;

		if (!has_interval(v))
			continue;
		for (size_t k = 0; k < v->bytes_by_tile.n; k++) {
			uint32_t tile = v->bytes_by_tile.tiles[k];
			int64_t bytes = (int64_t)v->bytes_by_tile.values[k];

			if (tile >= m->num_tiles || bytes == 0)
				continue;
			m->events[m->event_end[tile]++] = (live_event){v->live_from, bytes};
			m->events[m->event_end[tile]++] = (live_event){to + 1, -bytes};
		}
	}
	return TSI_OK;
}

/*
 * Turns the variables list (user variables and exchange buffers) into
 * items: always-live entries one per tile, the rest into overlapped bytes
 * and live intervals; then sweeps the intervals of each tile for its pool
 * size.
 */
static int layout_variables(mem_ctx *m)
{
	tsi_profile_builder *b = m->b;
	const tsi_graph_profile *p = &b->profile;
	int rc;

	for (size_t i = 0; i < p->n_variables; i++) {
		const tsi_variable_profile *v = &p->variables[i];
		uint32_t cat = (unsigned)v->category < TSI_MEM_CATEGORY_COUNT ? v->category
		                                                                : TSI_MEM_VARIABLE;

		for (size_t k = 0; k < v->bytes_by_tile.n; k++) {
			uint32_t tile = v->bytes_by_tile.tiles[k];
			uint64_t bytes = v->bytes_by_tile.values[k];

			if (tile >= m->num_tiles || bytes == 0)
				continue;
			if (v->always_live) {
				bool il = bytes >= INTERLEAVED_MIN_BYTES || v->type == TSI_HALF;
				if (!add_item(m, tile, cat, cat, il, bytes, bytes))
					return no_memory("variables");
			} else {
				/* In the pool at its own size (its live interval, if
				 * any, is collected below). */
				m->ovl[(size_t)cat * m->num_tiles + tile] += bytes;
			}
		}
	}
	if ((rc = collect_events(m)) != TSI_OK)
		return rc;

	/* The sweep: ends before starts at one step (an interval ends after
	 * its last step). */
	for (uint32_t t = 0; t < m->num_tiles; t++) {
		size_t begin = t ? m->event_end[t - 1] : 0;
		live_event *ev = m->events + begin;
		size_t n = m->event_end[t] - begin;
		int64_t live = 0, peak = 0;

		if (n == 0)
			continue;
		if (n > 1)
			qsort(ev, n, sizeof(*ev), cmp_event);
		for (size_t i = 0; i < n; i++) {
			live += ev[i].delta;
			if (live > peak)
				peak = live;
		}
		m->pool[t] = (uint64_t)peak;
	}
	return TSI_OK;
}

/* --- Placement -------------------------------------------------------------------- */

/* qsort order of items: by tile, then the placement order. */
static int cmp_item(const void *a, const void *b)
{
	const mem_item *x = a, *y = b;

	if (x->tile != y->tile)
		return x->tile < y->tile ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->extent != y->extent)
		return x->extent > y->extent ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The running layout of one tile. */
typedef struct tile_state {
	uint64_t nil_end; /* end of the non-interleaved contents (from 0) */
	uint64_t il_end;  /* end of the interleaved contents (absolute, >= I; > B: overflow) */
} tile_state;

/*
 * Places `it` on its tile (state `ts`) and adds its bytes to byTile and,
 * for a non-pool item, byCategory's nonOverlapped cells. Returns the
 * region where it starts.
 */
static tsi_mem_region place_item(mem_ctx *m, tile_state *ts, const mem_item *it,
                                 tsi_tile_memory *tm, uint64_t *by_cat)
{
	uint64_t I = m->split, B = m->bytes_per_tile;
	uint64_t start = 0;
	tsi_mem_region first = TSI_REGION_NON_INTERLEAVED;
	bool placed = false;

	for (int attempt = 0; attempt < 2 && !placed; attempt++) {
		bool il = attempt == 0 ? it->interleaved : !it->interleaved;
		if (il) {
			start = align_up(ts->il_end, it->align);
			if (start + it->extent <= B) {
				ts->il_end = start + it->extent;
				first = TSI_REGION_INTERLEAVED;
				placed = true;
			}
		} else {
			start = align_up(ts->nil_end, it->align);
			if (start + it->extent <= I) {
				ts->nil_end = start + it->extent;
				first = TSI_REGION_NON_INTERLEAVED;
				placed = true;
			}
		}
	}
	if (!placed && ts->il_end == I) {
		/* Neither region alone holds it but the tile does, and nothing
		 * sits in the interleaved region yet: it starts after the
		 * non-interleaved contents and runs on across the boundary (a
		 * large piece on an otherwise empty tile fits, as the tile's
		 * size says it should). */
		start = align_up(ts->nil_end, it->align);
		if (start + it->extent <= B) {
			ts->nil_end = I;
			ts->il_end = start + it->extent;
			first = TSI_REGION_NON_INTERLEAVED;
			placed = true;
		}
	}
	if (!placed) {
		/* Past the end of the interleaved contents, over the tile's end. */
		start = align_up(ts->il_end, it->align);
		ts->il_end = start + it->extent;
		first = start >= B ? TSI_REGION_OVERFLOWED : TSI_REGION_INTERLEAVED;
	}

	/* The data bytes [start, start + bytes) split by region. */
	uint64_t end = start + it->bytes;
	uint64_t part[TSI_REGION_COUNT] = {0};
	if (start < I)
		part[TSI_REGION_NON_INTERLEAVED] = (end < I ? end : I) - start;
	if (end > I && start < B)
		part[TSI_REGION_INTERLEAVED] = (end < B ? end : B) - (start > I ? start : I);
	if (end > B)
		part[TSI_REGION_OVERFLOWED] = end - (start > B ? start : B);
	for (int r = 0; r < TSI_REGION_COUNT; r++) {
		tm->region[r] += part[r];
		if (it->rank != POOL_RANK && part[r]) {
			size_t row = ((size_t)it->cat * TSI_REGION_COUNT + (size_t)r) * 2;
			by_cat[row * m->num_tiles + it->tile] += part[r];
		}
	}
	return first;
}

/*
 * Creates the items of the computed categories and the pools, sorts all
 * items and lays every tile out: byTile, byCategory and the out-of-memory
 * tiles.
 */
static int layout_tiles(mem_ctx *m)
{
	tsi_profile_builder *b = m->b;
	tsi_graph_profile *p = &b->profile;
	uint32_t nt = m->num_tiles;
	size_t rows = (size_t)TSI_MEM_CATEGORY_COUNT * TSI_REGION_COUNT * 2;
	tsi_tile_memory *by_tile = NULL;
	uint64_t *by_cat = NULL;
	uint32_t *oom = NULL, *oom_list = NULL;
	size_t n_oom = 0, i = 0;
	int rc = TSI_OK;

	for (uint32_t t = 0; t < nt; t++) {
		for (uint32_t c = 0; c < TSI_MEM_CATEGORY_COUNT; c++) {
			uint64_t bytes = m->cat[(size_t)c * nt + t];
			uint64_t ext = bytes + (c == TSI_MEM_VERTEX_INSTANCE_STATE ? m->vis_pad[t] : 0);
			if (ext && !add_item(m, t, c, c, false, bytes, ext)) {
				rc = no_memory("tiles");
				goto done;
			}
		}
		if (m->pool[t] && !add_item(m, t, POOL_RANK, TSI_MEM_MULTIPLE,
		                            m->pool[t] >= INTERLEAVED_MIN_BYTES, m->pool[t], m->pool[t])) {
			rc = no_memory("tiles");
			goto done;
		}
	}
	if (m->n_items > 1)
		qsort(m->items, m->n_items, sizeof(*m->items), cmp_item);

	by_tile = tsi_arena_alloc(&b->arena, (nt ? nt : 1) * sizeof(*by_tile));
	by_cat = tsi_arena_alloc(&b->arena, (nt ? rows * nt : 1) * sizeof(*by_cat));
	oom = malloc((nt ? nt : 1) * sizeof(*oom));
	if (!by_tile || !by_cat || !oom) {
		rc = no_memory("tiles");
		goto done;
	}

	for (uint32_t t = 0; t < nt; t++) {
		tile_state ts = {0, m->split};
		tsi_tile_memory *tm = &by_tile[t];
		tsi_mem_region pool_region = TSI_REGION_NON_INTERLEAVED;

		for (; i < m->n_items && m->items[i].tile == t; i++) {
			tsi_mem_region r = place_item(m, &ts, &m->items[i], tm, by_cat);
			if (m->items[i].rank == POOL_RANK)
				pool_region = r;
		}
		/* Overlapped entries at their own size where the pool starts. */
		for (uint32_t c = 0; c < TSI_MEM_CATEGORY_COUNT; c++) {
			size_t row = ((size_t)c * TSI_REGION_COUNT + pool_region) * 2 + 1;
			by_cat[row * nt + t] += m->ovl[(size_t)c * nt + t];
		}
		tm->region_including_gaps[TSI_REGION_NON_INTERLEAVED] = ts.nil_end;
		tm->region_including_gaps[TSI_REGION_INTERLEAVED] =
		    (ts.il_end < m->bytes_per_tile ? ts.il_end : m->bytes_per_tile) - m->split;
		tm->region_including_gaps[TSI_REGION_OVERFLOWED] =
		    ts.il_end > m->bytes_per_tile ? ts.il_end - m->bytes_per_tile : 0;
		tm->total = tm->region[TSI_REGION_INTERLEAVED] + tm->region[TSI_REGION_NON_INTERLEAVED] +
		            tm->region[TSI_REGION_OVERFLOWED];
		tm->total_including_gaps = ts.il_end > m->split ? ts.il_end : ts.nil_end;
		if (tm->total_including_gaps > m->bytes_per_tile)
			oom[n_oom++] = t;
	}
	if (n_oom) {
		oom_list = tsi_arena_alloc(&b->arena, n_oom * sizeof(*oom_list));
		if (!oom_list) {
			rc = no_memory("tiles");
			goto done;
		}
		memcpy(oom_list, oom, n_oom * sizeof(*oom_list));
	}
	p->by_tile = by_tile;
	p->by_category = by_cat;
	p->oom_tiles = oom_list;
	p->n_oom_tiles = n_oom;
done:
	free(oom);
	return rc;
}

/* --- Always-live aggregates ------------------------------------------------------ */

/*
 * Appends one always-live entry per computed category with bytes to the
 * variables list (named by the category, as the guide's "Always-live
 * variables" listing shows them) and adds them to always_live_bytes. The
 * list lives in the arena; it is copied into a larger arena array.
 */
static int append_aggregates(mem_ctx *m)
{
	tsi_profile_builder *b = m->b;
	tsi_graph_profile *p = &b->profile;
	uint32_t nt = m->num_tiles;
	size_t n_new = 0, n = p->n_variables;
	tsi_variable_profile *vars;

	for (uint32_t c = 0; c < TSI_MEM_CATEGORY_COUNT; c++) {
		if (is_variable_category(c))
			continue;
		for (uint32_t t = 0; t < nt; t++) {
			if (m->cat[(size_t)c * nt + t]) {
				n_new++;
				break;
			}
		}
	}
	if (!n_new)
		return TSI_OK;
	vars = tsi_arena_alloc(&b->arena, (n + n_new) * sizeof(*vars));
	if (!vars)
		return no_memory("always-live data");
	if (n)
		memcpy(vars, p->variables, n * sizeof(*vars));
	for (uint32_t c = 0; c < TSI_MEM_CATEGORY_COUNT; c++) {
		tsi_variable_profile *v = &vars[n];
		uint64_t sum = 0;
		size_t *shape;

		if (is_variable_category(c))
			continue;
		for (uint32_t t = 0; t < nt; t++) {
			uint64_t bytes = m->cat[(size_t)c * nt + t];
			sum += bytes;
			tsi_tile_acc_add(&m->acc[0], t, bytes);
		}
		if (!sum)
			continue;
		shape = tsi_arena_alloc(&b->arena, sizeof(*shape));
		if (!shape || tsi_tile_acc_take(&m->acc[0], &b->arena, &v->bytes_by_tile))
			return no_memory("always-live data");
		*shape = (size_t)sum;
		v->name = tsi_mem_category_name((tsi_mem_category)c);
		v->category = (tsi_mem_category)c;
		v->type = TSI_UNSIGNED_CHAR;
		v->bytes = sum;
		v->rank = 1;
		v->shape = shape;
		v->always_live = true;
		v->live_from = 0;
		v->live_to = 0;
		p->always_live_bytes += sum;
		n++;
	}
	p->variables = vars;
	p->n_variables = n;
	return TSI_OK;
}

/* --- The phase ---------------------------------------------------------------------- */

/*
 * Lays out every tile's memory (see the top of this file) and fills the
 * profile's by_tile, by_category, by_compute_set, by_vertex_type and
 * oom_tiles, and the always-live aggregates of the variables list.
 */
int tsi_memory_layout(tsi_profile_builder *b)
{
	mem_ctx m;
	uint32_t nt = b->profile.target.num_tiles;
	size_t cells = (size_t)TSI_MEM_CATEGORY_COUNT * (nt ? nt : 1);
	int rc = TSI_OK;

	memset(&m, 0, sizeof(m));
	m.b = b;
	m.num_tiles = nt;
	m.bytes_per_tile = b->profile.target.bytes_per_tile;
	m.split = (m.bytes_per_tile / 2) / REGION_GRANULE * REGION_GRANULE;
	if (m.split == 0)
		m.split = (m.bytes_per_tile / 2) & ~(uint64_t)7;
	m.cat = calloc(cells, sizeof(*m.cat));
	m.ovl = calloc(cells, sizeof(*m.ovl));
	m.vis_pad = calloc(nt ? nt : 1, sizeof(*m.vis_pad));
	m.pool = calloc(nt ? nt : 1, sizeof(*m.pool));
	m.stamp = calloc(nt ? nt : 1, sizeof(*m.stamp));
	if (!m.cat || !m.ovl || !m.vis_pad || !m.pool || !m.stamp) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory laying out tiles");
		goto done;
	}
	for (int i = 0; i < VM_COUNT; i++) {
		rc = tsi_tile_acc_init(&m.acc[i], nt);
		if (rc) {
			tsi_set_error(rc, "out of host memory laying out tiles");
			goto done;
		}
	}

	rc = layout_vertices(&m);
	if (!rc) {
		layout_fixed(&m);
		rc = layout_variables(&m);
	}
	if (!rc)
		rc = layout_tiles(&m);
	if (!rc)
		rc = append_aggregates(&m);
done:
	for (int i = 0; i < VM_COUNT; i++)
		tsi_tile_acc_free(&m.acc[i]);
	free(m.cat);
	free(m.ovl);
	free(m.vis_pad);
	free(m.pool);
	free(m.stamp);
	free(m.items);
	free(m.events);
	free(m.event_end);
	free(m.groups);
	free(m.cmap);
	return rc;
}
