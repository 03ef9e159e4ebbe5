/*
 * Cycles: the compiler model's compute-set cycle estimates and, at run
 * time, the BSP simulation of a run's program trace into execution steps.
 *
 * Compute sets. Each vertex costs E thread-cycles: its setCycleEstimate
 * when it has one, else its codelet's estimator, else 20 + the elements
 * of all its fields. A tile's barrel processor serves its six worker
 * contexts round robin, one instruction each in turn, so a worker that
 * runs alone needs 6E tile cycles and six workers running together need
 * no more. Worker vertices are dealt to the contexts round robin in the
 * compute set's order; a tile takes
 *
 *     compute_set_overhead + 6 x (the largest context's summed E)
 *         + the E of every supervisor vertex (run after the workers)
 *
 * and is active for the sum of every vertex's E. A supervisor vertex
 * (codelet->supervisor) splits its work over all six workers itself, so
 * its estimate is already in tile cycles: it adds E to tile cycles, after
 * the workers' part, and E to active cycles (the threads are busy the
 * whole time). The on-tile copies the compiler generates are modelled as
 * one supervisor vertex per tile copying 64 bits per cycle:
 * 20 + ceil(bytes / 8) cycles, launch included, both tile and active
 * cycles (an assumption of the model).
 *
 * Instrumentation (debug.instrumentCompute) reads the cycle counter and
 * stores the difference, k.instrumentation_cycles each time:
 *   tile   once per compute set on every tile that runs it (tile cycles);
 *   vertex once per vertex, on the vertex's own thread (its E grows, so
 *          both tile and active cycles do);
 *   device once per compute set, on the lowest tile that runs it;
 *   ipu    once per compute set on the lowest tile of each IPU that runs it.
 *
 * b->cs_busy_workers[cs] holds, per tile, the worker contexts a compute
 * set occupies: min(worker vertices, 6), or all 6 when a supervisor vertex
 * (or a generated copy) runs there.
 *
 * Sync. Each tile's sync delay is min_sync_delay plus a delay that grows
 * with its distance from the sync controller; the model puts the
 * controller next to tile 0 of each IPU and lets the extra delay grow
 * linearly with the tile index from 0 to 28 cycles. A sync step lasts
 * until the slowest tile is released: min_sync_delay + the largest
 * relative delay (+ external_sync_extra for an external sync).
 *
 * The simulation runs steps back to back from cycle 0: nothing overlaps,
 * so every step's cycles_overlapped is 0 and the steps' cycles add up to
 * the run's, plus CONSENSUS_CYCLES for each SetLocalConsensusFromVar
 * (time without a step of its own; k.instrumentation_cycles more each
 * with debug.instrumentControlFlow). A sync step is inserted before each
 * exchange as BSP requires (internal before DoExchange, external before
 * GlobalExchange and StreamCopy) unless the leaf just before was a sync
 * at least that strong; explicit Sync leaves become sync steps (Global
 * counts as External). Per step: tile_balance = sum of tile cycles /
 * (max x tiles), active_tile_balance the same over the active tiles,
 * thread_balance = active cycles / tile cycles, data_balance = mean of a
 * tile's bytes sent + received / the largest. Sync steps count every tile
 * for their whole duration (balances 1).
 */
#include "compiler-private.h"

#include <stdlib.h>
#include <string.h>

/* Largest relative sync delay (cycles) of the tile furthest from the sync
 * controller. */
#define SYNC_SPREAD_CYCLES 28u

/* Cycles SetLocalConsensusFromVar takes: every tile loads the predicate,
 * tests it and sets its consensus bit (a handful of instructions on the
 * supervisor). An assumption of the model. */
#define CONSENSUS_CYCLES 6u

/* Fixed cost of a vertex whose codelet has no estimator, and of a
 * generated copy on a tile, before its per-element part. */
#define DEFAULT_VERTEX_CYCLES 20u

/* Instrumentation levels (tsi_profile_builder.instrument_level). */
enum { INSTR_TILE = 0, INSTR_VERTEX = 1, INSTR_DEVICE = 2, INSTR_IPU = 3 };

/* --- Estimation state ------------------------------------------------------- */

/* A codelet pointer and its index in core->codelets, sorted by pointer. */
typedef struct codelet_key {
	const tsi_codelet *codelet;
	uint32_t index;
} codelet_key;

/* Everything one pass over the compute sets reuses. Dense per-tile arrays
 * are reset in O(touched tiles) after each compute set. */
typedef struct est_ctx {
	tsi_profile_builder *b;
	uint32_t num_tiles;
	uint32_t workers;       /* worker contexts per tile */
	uint64_t *ctx_sum;      /* num_tiles * workers: summed E of each context */
	uint32_t *next_ctx;     /* num_tiles: vertices dealt to workers so far */
	uint64_t *sup;          /* num_tiles: supervisor vertices' E */
	uint64_t *active;       /* num_tiles: summed E */
	uint8_t *seen;          /* num_tiles: touched by the current compute set */
	uint32_t *touched;      /* num_tiles */
	uint32_t n_touched;
	uint32_t *ipu_low;      /* n_ipus: lowest touched tile of each IPU */
	uint32_t n_ipus;
	tsi_tile_acc acc_cycles, acc_active, acc_workers;
	/* Vertex type slots of the current compute set: profile type -> index
	 * into its vertex_types, -1 when absent. */
	int32_t *type_slot;
	size_t n_types;
	codelet_key *keys;      /* core->codelets.len */
	size_t n_keys;
	/* Field scratch for estimators. */
	tsi_field *fields;
	size_t cap_fields;
	size_t *offsets;
	size_t cap_offsets;
} est_ctx;

/* qsort order of codelet keys: by codelet address. */
static int cmp_codelet_key(const void *a, const void *b)
{
	const tsi_codelet *x = ((const codelet_key *)a)->codelet;
	const tsi_codelet *y = ((const codelet_key *)b)->codelet;

	return x < y ? -1 : x > y;
}

/* The index of `c` in core->codelets, or -1. Binary search over the
 * sorted keys. */
static int64_t codelet_index(const est_ctx *e, const tsi_codelet *c)
{
	size_t lo = 0, hi = e->n_keys;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->keys[mid].codelet < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < e->n_keys && e->keys[lo].codelet == c ? (int64_t)e->keys[lo].index : -1;
}

/* Frees the scratch of an estimation pass. */
static void est_free(est_ctx *e)
{
	free(e->ctx_sum);
	free(e->next_ctx);
	free(e->sup);
	free(e->active);
	free(e->seen);
	free(e->touched);
	free(e->ipu_low);
	free(e->type_slot);
	free(e->keys);
	free(e->fields);
	free(e->offsets);
	tsi_tile_acc_free(&e->acc_cycles);
	tsi_tile_acc_free(&e->acc_active);
	tsi_tile_acc_free(&e->acc_workers);
}

/* Allocates the scratch of an estimation pass. Returns TSI_OK or
 * TSI_ERR_NO_MEMORY. */
static int est_init(est_ctx *e, tsi_profile_builder *b)
{
	const tsi_graph_core *core = b->core;
	size_t nt;

	memset(e, 0, sizeof(*e));
	e->b = b;
	e->num_tiles = core->target.num_tiles;
	e->workers = core->target.num_worker_contexts ? core->target.num_worker_contexts : 1;
	nt = e->num_tiles ? e->num_tiles : 1;
	e->ctx_sum = calloc(nt * e->workers, sizeof(*e->ctx_sum));
	e->next_ctx = calloc(nt, sizeof(*e->next_ctx));
	e->sup = calloc(nt, sizeof(*e->sup));
	e->active = calloc(nt, sizeof(*e->active));
	e->seen = calloc(nt, 1);
	e->touched = malloc(nt * sizeof(*e->touched));
	e->n_ipus = core->target.tiles_per_ipu
	                ? (e->num_tiles + core->target.tiles_per_ipu - 1) / core->target.tiles_per_ipu
	                : 1;
	e->ipu_low = malloc(((size_t)e->n_ipus + 1) * sizeof(*e->ipu_low));
	e->n_types = b->profile.n_vertex_types;
	e->type_slot = malloc((e->n_types + 1) * sizeof(*e->type_slot));
	e->n_keys = core->codelets.len;
	e->keys = malloc((e->n_keys + 1) * sizeof(*e->keys));
	if (!e->ctx_sum || !e->next_ctx || !e->sup || !e->active || !e->seen || !e->touched ||
	    !e->ipu_low || !e->type_slot || !e->keys)
		return TSI_ERR_NO_MEMORY;
	if (tsi_tile_acc_init(&e->acc_cycles, e->num_tiles) ||
	    tsi_tile_acc_init(&e->acc_active, e->num_tiles) ||
	    tsi_tile_acc_init(&e->acc_workers, e->num_tiles))
		return TSI_ERR_NO_MEMORY;
	for (size_t i = 0; i < e->n_types; i++)
		e->type_slot[i] = -1;
	for (size_t i = 0; i < e->n_keys; i++) {
		e->keys[i].codelet = core->codelets.items[i];
		e->keys[i].index = (uint32_t)i;
	}
	qsort(e->keys, e->n_keys, sizeof(*e->keys), cmp_codelet_key);
	return TSI_OK;
}

/* Marks `tile` as used by the current compute set. */
static void est_touch(est_ctx *e, uint32_t tile)
{
	if (!e->seen[tile]) {
		e->seen[tile] = 1;
		e->touched[e->n_touched++] = tile;
	}
}

/* Adds a worker vertex of `cycles` thread-cycles to the next context of
 * `tile` (round robin). */
static void est_add_worker(est_ctx *e, uint32_t tile, uint64_t cycles)
{
	uint32_t c = e->next_ctx[tile]++ % e->workers;

	est_touch(e, tile);
	e->ctx_sum[(size_t)tile * e->workers + c] += cycles;
	e->active[tile] += cycles;
}

/* Adds a supervisor vertex of `cycles` tile cycles to `tile`. */
static void est_add_supervisor(est_ctx *e, uint32_t tile, uint64_t cycles)
{
	est_touch(e, tile);
	e->sup[tile] += cycles;
	e->active[tile] += cycles;
}

/*
 * Turns the per-tile schedule of the compute set just dealt into its
 * profile record (cycles and active cycles by tile) and its busy-worker
 * counts, adds compute-set level instrumentation, and resets the scratch.
 * `launch`: add the supervisor's compute-set launch overhead (user compute
 * sets; a generated copy's 20-cycle fixed cost already covers it).
 */
static int est_finish(est_ctx *e, tsi_compute_set_profile *csp, tsi_tile_values *busy,
                      bool launch)
{
	tsi_profile_builder *b = e->b;
	uint64_t instr = b->k.instrumentation_cycles;
	uint32_t lowest = UINT32_MAX;
	uint32_t tiles_per_ipu = b->core->target.tiles_per_ipu ? b->core->target.tiles_per_ipu : 1;
	int rc;

	for (uint32_t i = 0; i < e->n_ipus; i++)
		e->ipu_low[i] = UINT32_MAX;
	for (uint32_t i = 0; i < e->n_touched; i++) {
		uint32_t t = e->touched[i], ipu = t / tiles_per_ipu;

		if (t < lowest)
			lowest = t;
		if (ipu < e->n_ipus && t < e->ipu_low[ipu])
			e->ipu_low[ipu] = t;
	}
	for (uint32_t i = 0; i < e->n_touched; i++) {
		uint32_t t = e->touched[i];
		uint64_t *ctx = &e->ctx_sum[(size_t)t * e->workers];
		uint64_t busiest = 0, cycles;
		uint32_t used = e->next_ctx[t] < e->workers ? e->next_ctx[t] : e->workers;

		for (uint32_t c = 0; c < e->workers; c++) {
			if (ctx[c] > busiest)
				busiest = ctx[c];
			ctx[c] = 0;
		}
		cycles = (launch ? b->k.compute_set_overhead : 0) + (uint64_t)e->workers * busiest +
		         e->sup[t];
		if (b->instrument_compute) {
			/* Vertex level was added per vertex already. */
			if (b->instrument_level == INSTR_TILE)
				cycles += instr;
			else if (b->instrument_level == INSTR_DEVICE && t == lowest)
				cycles += instr;
			else if (b->instrument_level == INSTR_IPU && t == e->ipu_low[t / tiles_per_ipu])
				cycles += instr;
		}
		if (e->sup[t] > 0)
			used = e->workers; /* a supervisor vertex spreads over all */
		tsi_tile_acc_add(&e->acc_cycles, t, cycles);
		tsi_tile_acc_add(&e->acc_active, t, e->active[t]);
		tsi_tile_acc_add(&e->acc_workers, t, used);
	}
	for (uint32_t i = 0; i < e->n_touched; i++) {
		uint32_t t = e->touched[i];
		e->next_ctx[t] = 0;
		e->sup[t] = 0;
		e->active[t] = 0;
		e->seen[t] = 0;
	}
	e->n_touched = 0;
	rc = tsi_tile_acc_take(&e->acc_cycles, &b->arena, &csp->cycles_by_tile);
	if (!rc)
		rc = tsi_tile_acc_take(&e->acc_active, &b->arena, &csp->active_cycles_by_tile);
	if (!rc)
		rc = tsi_tile_acc_take(&e->acc_workers, &b->arena, busy);
	return rc;
}

/* Points the type slots at compute set `csp`'s vertex types; returns its
 * active_cycles_by_type array (zeroed, arena) or NULL on OOM. */
static uint64_t *est_begin_types(est_ctx *e, tsi_compute_set_profile *csp)
{
	uint64_t *by_type = tsi_arena_alloc(&e->b->arena, (csp->n_types + 1) * sizeof(*by_type));

	for (uint32_t i = 0; i < csp->n_types; i++)
		if (csp->vertex_types[i] < e->n_types)
			e->type_slot[csp->vertex_types[i]] = (int32_t)i;
	return by_type;
}

/* Clears the type slots set by est_begin_types. */
static void est_end_types(est_ctx *e, const tsi_compute_set_profile *csp)
{
	for (uint32_t i = 0; i < csp->n_types; i++)
		if (csp->vertex_types[i] < e->n_types)
			e->type_slot[csp->vertex_types[i]] = -1;
}

/*
 * Fills the scratch fields of vertex `v` as an estimator sees them: sizes
 * and sub-vector offsets, no data. Sets *elements to the elements of all
 * fields. Returns TSI_OK or TSI_ERR_NO_MEMORY.
 */
static int est_fields(est_ctx *e, const tsi_vertex *v, uint64_t *elements)
{
	const tsi_codelet *c = v->codelet;
	size_t n_off = 0, oi = 0;

	*elements = 0;
	for (size_t f = 0; f < c->n_fields; f++)
		n_off += (c->fields[f].shape == TSI_FIELD_VECTOR_LIST ? v->fields[f].n : 1) + 1;
	if (c->n_fields > e->cap_fields) {
		tsi_field *nf = realloc(e->fields, c->n_fields * 2 * sizeof(*nf));
		if (!nf)
			return TSI_ERR_NO_MEMORY;
		e->fields = nf;
		e->cap_fields = c->n_fields * 2;
	}
	if (n_off > e->cap_offsets) {
		size_t *no = realloc(e->offsets, n_off * 2 * sizeof(*no));
		if (!no)
			return TSI_ERR_NO_MEMORY;
		e->offsets = no;
		e->cap_offsets = n_off * 2;
	}
	for (size_t f = 0; f < c->n_fields; f++) {
		const tsi_field_conn *conn = &v->fields[f];
		bool list = c->fields[f].shape == TSI_FIELD_VECTOR_LIST;
		size_t *offs = &e->offsets[oi];
		size_t count = 0;

		offs[0] = 0;
		for (size_t k = 0; k < conn->n; k++) {
			count += conn->tensors[k]->numel;
			if (list)
				offs[k + 1] = count;
		}
		if (!list)
			offs[1] = count;
		e->fields[f].data = NULL;
		e->fields[f].count = count;
		e->fields[f].n_vectors = list ? conn->n : 1;
		e->fields[f].offsets = offs;
		oi += e->fields[f].n_vectors + 1;
		*elements += count;
	}
	return TSI_OK;
}

/*
 * Estimates user compute set `cs` (profile index cs->id) vertex by vertex
 * and stores its cycle fields and flops.
 */
static int est_user_cs(est_ctx *e, const tsi_compute_set *cs)
{
	tsi_profile_builder *b = e->b;
	tsi_compute_set_profile *csp = (tsi_compute_set_profile *)&b->profile.compute_sets[cs->id];
	const tsi_target *target = &b->core->target;
	bool per_vertex_instr = b->instrument_compute && b->instrument_level == INSTR_VERTEX;
	const tsi_codelet *last_codelet = NULL;
	int32_t last_slot = -1, last_type = -1;
	uint64_t flops = 0, *by_type;
	int rc;

	by_type = est_begin_types(e, csp);
	if (!by_type)
		return TSI_ERR_NO_MEMORY;
	for (size_t i = 0; i < cs->vertices.len; i++) {
		const tsi_vertex *v = cs->vertices.items[i];
		const tsi_codelet *c = v->codelet;
		uint64_t cycles, elements = 0, vflops = 0;
		bool need_fields;

		/* Vertices added after compilation are not part of this engine;
		 * checked ones always have a codelet and a tile. */
		if (v->id >= b->compiled->n_vertices || !c || v->tile >= e->num_tiles)
			continue;
		need_fields = c->flops || !v->has_cycle_estimate;
		if (need_fields) {
			rc = est_fields(e, v, &elements);
			if (rc)
				goto out;
		}
		if (v->has_cycle_estimate)
			cycles = v->cycle_estimate;
		else if (c->cycles)
			cycles = c->cycles(e->fields, c->n_fields, target);
		else
			cycles = DEFAULT_VERTEX_CYCLES + elements;
		if (c->flops)
			vflops = c->flops(e->fields, c->n_fields);
		flops += vflops;
		if (per_vertex_instr)
			cycles += b->k.instrumentation_cycles;
		if (c->supervisor)
			est_add_supervisor(e, v->tile, cycles);
		else
			est_add_worker(e, v->tile, cycles);

		if (c != last_codelet) {
			int64_t ci = codelet_index(e, c);
			int32_t type = ci >= 0 && b->codelet_type ? b->codelet_type[ci] : -1;

			last_slot = type >= 0 && (size_t)type < e->n_types ? e->type_slot[type] : -1;
			last_type = type;
			last_codelet = c;
		}
		if (last_slot >= 0)
			by_type[last_slot] += cycles;
		if (last_type >= 0 && (size_t)last_type < b->profile.n_vertex_types)
			((tsi_vertex_type_profile *)&b->profile.vertex_types[last_type])->flops += vflops;
	}
	csp->active_cycles_by_type = by_type;
	csp->flops = flops;
	rc = est_finish(e, csp, &b->cs_busy_workers[cs->id], true);
out:
	est_end_types(e, csp);
	return rc;
}

/* Estimates generated copy compute set `g`: one supervisor copy vertex per
 * tile moving 64 bits per cycle. */
static int est_generated_cs(est_ctx *e, const tsi_generated_cs *g)
{
	tsi_profile_builder *b = e->b;
	tsi_compute_set_profile *csp;
	uint64_t *by_type, total = 0;
	int rc;

	if (g->profile_index >= b->profile.n_compute_sets)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "cycle estimation: generated compute set %u is out of range",
		                     g->profile_index);
	csp = (tsi_compute_set_profile *)&b->profile.compute_sets[g->profile_index];
	by_type = est_begin_types(e, csp);
	if (!by_type)
		return TSI_ERR_NO_MEMORY;
	for (size_t i = 0; i < g->bytes_by_tile.n; i++) {
		uint32_t t = g->bytes_by_tile.tiles[i];
		uint64_t bytes = g->bytes_by_tile.values[i];
		uint64_t cycles = DEFAULT_VERTEX_CYCLES + (bytes + 7) / 8;

		if (t >= e->num_tiles || bytes == 0)
			continue;
		if (b->instrument_compute && b->instrument_level == INSTR_VERTEX)
			cycles += b->k.instrumentation_cycles;
		est_add_supervisor(e, t, cycles);
		total += cycles;
	}
	if (g->vertex_type < e->n_types && e->type_slot[g->vertex_type] >= 0)
		by_type[e->type_slot[g->vertex_type]] += total;
	csp->active_cycles_by_type = by_type;
	csp->flops = 0;
	rc = est_finish(e, csp, &b->cs_busy_workers[g->profile_index], false);
	est_end_types(e, csp);
	return rc;
}

/* Fills the target's sync model: the minimum delay and each tile's extra
 * delay (see the file comment). */
static int est_sync_model(tsi_profile_builder *b)
{
	uint32_t n = b->core->target.tiles_per_ipu;
	uint32_t *delay = tsi_arena_alloc(&b->arena, ((size_t)n + 1) * sizeof(*delay));

	if (!delay)
		return TSI_ERR_NO_MEMORY;
	for (uint32_t i = 0; i < n; i++)
		delay[i] = (uint32_t)(((uint64_t)i * (SYNC_SPREAD_CYCLES + 1)) / n);
	b->profile.min_sync_delay = b->k.min_sync_delay;
	b->profile.relative_sync_delay_by_tile = delay;
	return TSI_OK;
}

/*
 * Fills the cycle fields of every compute set of the profile: executed
 * user compute sets vertex by vertex, generated copies per tile, and
 * b->cs_busy_workers; then the target's sync delays. Linear in vertices.
 */
int tsi_cycles_estimate(tsi_profile_builder *b)
{
	est_ctx e;
	int rc;

	rc = est_init(&e, b);
	if (rc)
		goto out;
	b->cs_busy_workers = tsi_arena_alloc(&b->arena, (b->profile.n_compute_sets + 1) *
	                                                    sizeof(*b->cs_busy_workers));
	if (!b->cs_busy_workers) {
		rc = TSI_ERR_NO_MEMORY;
		goto out;
	}
	for (size_t i = 0; i < b->compiled->compute_sets.len && !rc; i++) {
		const tsi_compute_set *cs = b->compiled->compute_sets.items[i];

		if (cs->id >= b->profile.n_compute_sets) {
			rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
			                   "cycle estimation: compute set '%s' has no profile record",
			                   cs->name);
			goto out;
		}
		rc = est_user_cs(&e, cs);
	}
	for (size_t i = 0; i < b->n_generated && !rc; i++)
		rc = est_generated_cs(&e, &b->generated[i]);
	if (!rc)
		rc = est_sync_model(b);
out:
	if (rc == TSI_ERR_NO_MEMORY)
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory estimating cycles");
	est_free(&e);
	return rc;
}

/* --- The BSP simulation ------------------------------------------------------ */

/* Per-run summary of one compute set or exchange, computed on first use. */
typedef struct step_stat {
	bool done;
	uint32_t active_tiles;
	uint64_t max, sum;
	uint64_t active_sum;   /* compute sets: active cycles */
	uint64_t total_data;   /* exchanges: bytes */
	double data_balance;   /* exchanges */
} step_stat;

typedef struct sim_ctx {
	const tsi_profile_builder *b;
	uint32_t num_tiles;
	step_stat *cs;                              /* n_compute_sets */
	step_stat *ex[TSI_EXCHANGE_KIND_COUNT];     /* n_exchanges[kind] */
	uint64_t sync_cycles[2];                    /* internal, external */
} sim_ctx;

/* Max, sum and count of nonzero entries of sparse tile values. */
static void tv_stats(const tsi_tile_values *tv, uint64_t *max, uint64_t *sum, uint32_t *nonzero)
{
	*max = 0;
	*sum = 0;
	*nonzero = 0;
	for (size_t i = 0; i < tv->n; i++) {
		uint64_t v = tv->values[i];
		if (v > *max)
			*max = v;
		*sum += v;
		*nonzero += v != 0;
	}
}

/* The summary of profile compute set `index`. */
static const step_stat *sim_cs_stat(sim_ctx *s, int32_t index)
{
	static const step_stat none;
	step_stat *st;
	const tsi_compute_set_profile *csp;
	uint64_t amax;
	uint32_t an;

	if (index < 0 || (size_t)index >= s->b->profile.n_compute_sets)
		return &none;
	st = &s->cs[index];
	if (st->done)
		return st;
	csp = &s->b->profile.compute_sets[index];
	tv_stats(&csp->cycles_by_tile, &st->max, &st->sum, &st->active_tiles);
	tv_stats(&csp->active_cycles_by_tile, &amax, &st->active_sum, &an);
	st->done = true;
	return st;
}

/* True when lowered exchange program `lowered` moves data from the
 * device to the host. */
static bool sim_is_d2h(const tsi_profile_builder *b, uint32_t lowered)
{
	const tsi_program *src = b->lp_source ? b->lp_source[lowered] : NULL;

	if (!src)
		return false;
	return src->kind == TSI_PROG_TENSOR_TO_STREAM || src->kind == TSI_PROG_TENSOR_TO_REMOTE ||
	       src->kind == TSI_PROG_PRINT_TENSOR;
}

/* The summary of exchange `index` of `kind`, run by lowered program
 * `lowered`. */
static const step_stat *sim_ex_stat(sim_ctx *s, tsi_exchange_kind kind, int32_t index,
                                    uint32_t lowered)
{
	static const step_stat none;
	const tsi_exchange_profile *ex;
	step_stat *st;
	uint64_t rmax, rsum, smax, ssum, dmax = 0;
	uint32_t rn, sn;
	size_t i = 0, j = 0;

	if (index < 0 || (size_t)index >= s->b->profile.n_exchanges[kind])
		return &none;
	st = &s->ex[kind][index];
	if (st->done)
		return st;
	ex = &s->b->profile.exchanges[kind][index];
	tv_stats(&ex->cycles, &st->max, &st->sum, &st->active_tiles);
	tv_stats(&ex->bytes_received, &rmax, &rsum, &rn);
	tv_stats(&ex->bytes_sent, &smax, &ssum, &sn);
	if (sim_is_d2h(s->b, lowered))
		st->total_data = ssum ? ssum : rsum;
	else
		st->total_data = rsum ? rsum : ssum;
	/* Largest sent + received on one tile: merge the two sorted lists. */
	while (i < ex->bytes_received.n || j < ex->bytes_sent.n) {
		uint64_t v;

		if (j >= ex->bytes_sent.n ||
		    (i < ex->bytes_received.n && ex->bytes_received.tiles[i] < ex->bytes_sent.tiles[j]))
			v = ex->bytes_received.values[i++];
		else if (i >= ex->bytes_received.n ||
		         ex->bytes_sent.tiles[j] < ex->bytes_received.tiles[i])
			v = ex->bytes_sent.values[j++];
		else
			v = ex->bytes_received.values[i++] + ex->bytes_sent.values[j++];
		if (v > dmax)
			dmax = v;
	}
	st->data_balance = dmax && s->num_tiles
	                       ? (double)(rsum + ssum) / ((double)dmax * s->num_tiles)
	                       : 0.0;
	st->done = true;
	return st;
}

/* Frees the per-run caches. */
static void sim_free(sim_ctx *s)
{
	free(s->cs);
	for (int k = 0; k < TSI_EXCHANGE_KIND_COUNT; k++)
		free(s->ex[k]);
}

/* Sets up the per-run caches and the two sync durations. */
static int sim_init(sim_ctx *s, const tsi_profile_builder *b)
{
	const tsi_graph_profile *gp = &b->profile;
	uint32_t rel_max = 0;

	memset(s, 0, sizeof(*s));
	s->b = b;
	s->num_tiles = b->core->target.num_tiles;
	s->cs = calloc(gp->n_compute_sets + 1, sizeof(*s->cs));
	if (!s->cs)
		return TSI_ERR_NO_MEMORY;
	for (int k = 0; k < TSI_EXCHANGE_KIND_COUNT; k++) {
		s->ex[k] = calloc(gp->n_exchanges[k] + 1, sizeof(*s->ex[k]));
		if (!s->ex[k])
			return TSI_ERR_NO_MEMORY;
	}
	for (uint32_t i = 0; gp->relative_sync_delay_by_tile && i < b->core->target.tiles_per_ipu;
	     i++)
		if (gp->relative_sync_delay_by_tile[i] > rel_max)
			rel_max = gp->relative_sync_delay_by_tile[i];
	s->sync_cycles[0] = (uint64_t)gp->min_sync_delay + rel_max;
	s->sync_cycles[1] = s->sync_cycles[0] + b->k.external_sync_extra;
	return TSI_OK;
}

/* Sync strength for the "previous leaf was already that sync" test:
 * 0 none, 1 internal, 2 external (global counts as external). */
static int sync_strength(tsi_sync_type t)
{
	return t == TSI_SYNC_INTERNAL ? 1 : 2;
}

/* Number of steps program `lp` adds after a leaf that left `*prev` as the
 * strength of an immediately preceding sync; updates *prev. The counting
 * pass uses it to size the step array; the filling pass in
 * tsi_simulate_run makes exactly the same decisions (keep them in step). */
static size_t sim_leaf_steps(const tsi_lowered_program *lp, int *prev)
{
	size_t n = 0;
	int need = 0;

	switch (lp->type) {
	case TSI_LP_ON_TILE_EXECUTE:
		*prev = 0;
		return 1;
	case TSI_LP_DO_EXCHANGE:
		need = 1;
		break;
	case TSI_LP_GLOBAL_EXCHANGE:
	case TSI_LP_STREAM_COPY:
		need = 2;
		break;
	case TSI_LP_SYNC:
		*prev = sync_strength(lp->sync);
		return 1;
	case TSI_LP_SET_LOCAL_CONSENSUS:
		*prev = 0;
		return 0;
	default:
		return 0; /* WriteUndef and structured programs: nothing */
	}
	if (*prev < need)
		n++;
	*prev = 0;
	return n + 1;
}

/* Appends a sync step of `strength` (1 internal, 2 external) for lowered
 * program `program` at time *t. */
static void sim_sync(sim_ctx *s, tsi_run_profile *out, tsi_step *st, uint32_t program,
                     int strength, uint64_t *t)
{
	uint64_t cycles = s->sync_cycles[strength - 1];

	memset(st, 0, sizeof(*st));
	st->type = TSI_STEP_SYNC;
	st->program = program;
	st->compute_set = -1;
	st->exchange = -1;
	st->sync_type = strength == 1 ? TSI_SYNC_INTERNAL : TSI_SYNC_EXTERNAL;
	st->cycles_from = *t;
	st->cycles = cycles;
	st->cycles_to = *t + cycles;
	st->active_tiles = s->num_tiles;
	st->tile_balance = s->num_tiles ? 1.0 : 0.0;
	st->active_tile_balance = st->tile_balance;
	out->tile_cycles.sync += cycles * s->num_tiles;
	*t += cycles;
}

/* Fills the common timing and balance fields of a compute or exchange
 * step from its summary. */
static void sim_fill(const sim_ctx *s, tsi_step *st, const step_stat *ss, uint64_t *t)
{
	st->cycles_from = *t;
	st->cycles = ss->max;
	st->cycles_to = *t + ss->max;
	st->active_tiles = ss->active_tiles;
	if (ss->max && s->num_tiles)
		st->tile_balance = (double)ss->sum / ((double)ss->max * s->num_tiles);
	if (ss->max && ss->active_tiles)
		st->active_tile_balance = (double)ss->sum / ((double)ss->max * ss->active_tiles);
	*t += ss->max;
}

/*
 * Simulates one run: turns the lowered leaf programs of `trace` into BSP
 * steps with an inserted sync before each exchange that needs one (an
 * internal sync before an internal exchange, an external one before an
 * IPU-to-IPU or host exchange) unless the leaf just before was a sync at
 * least that strong. Steps run back to back from cycle 0. The steps and a
 * copy of the trace go in `arena`; two linear passes, no per-step
 * allocation.
 */
int tsi_simulate_run(const tsi_profile_builder *b, const uint32_t *trace, size_t n_trace,
                     size_t program_index, tsi_arena *arena, tsi_run_profile *out)
{
	const tsi_graph_profile *gp = &b->profile;
	sim_ctx s;
	uint32_t *trace_copy;
	tsi_step *steps;
	size_t n_steps = 0, k = 0;
	uint64_t t = 0;
	int prev = 0, rc;

	memset(out, 0, sizeof(*out));
	out->program_index = program_index;
	rc = sim_init(&s, b);
	if (rc)
		goto out;
	for (size_t i = 0; i < n_trace; i++) {
		if (trace[i] >= gp->n_programs) {
			rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
			                   "run simulation: trace entry %zu names lowered program %u of %zu",
			                   i, trace[i], gp->n_programs);
			goto out;
		}
		n_steps += sim_leaf_steps(&gp->programs[trace[i]], &prev);
	}
	trace_copy = tsi_arena_alloc(arena, (n_trace + 1) * sizeof(*trace_copy));
	steps = tsi_arena_alloc(arena, (n_steps + 1) * sizeof(*steps));
	if (!trace_copy || !steps) {
		rc = TSI_ERR_NO_MEMORY;
		goto out;
	}
	if (n_trace)
		memcpy(trace_copy, trace, n_trace * sizeof(*trace));

	prev = 0;
	for (size_t i = 0; i < n_trace; i++) {
		uint32_t id = trace[i];
		const tsi_lowered_program *lp = &gp->programs[id];
		tsi_exchange_kind kind = TSI_EXCHANGE_INTERNAL;
		tsi_step_type type = TSI_STEP_DO_EXCHANGE;
		int need = 1;
		const step_stat *ss;
		tsi_step *st;

		switch (lp->type) {
		case TSI_LP_ON_TILE_EXECUTE:
			ss = sim_cs_stat(&s, lp->compute_set);
			st = &steps[k++];
			st->type = TSI_STEP_ON_TILE_EXECUTE;
			st->program = id;
			st->compute_set = lp->compute_set;
			st->exchange = -1;
			sim_fill(&s, st, ss, &t);
			st->thread_balance = ss->sum ? (double)ss->active_sum / (double)ss->sum : 0.0;
			if (st->thread_balance > 1.0)
				st->thread_balance = 1.0; /* cannot happen; keeps the range promise */
			out->tile_cycles.compute += ss->sum;
			out->tile_cycles.active_compute += ss->active_sum;
			prev = 0;
			continue;
		case TSI_LP_SYNC:
			prev = sync_strength(lp->sync);
			sim_sync(&s, out, &steps[k++], id, prev, &t);
			continue;
		case TSI_LP_SET_LOCAL_CONSENSUS:
			/* With control-flow instrumentation each branch decision
			 * also reads and stores the cycle counter. */
			t += CONSENSUS_CYCLES + (b->instrument_control_flow ? b->k.instrumentation_cycles : 0);
			prev = 0;
			continue;
		case TSI_LP_DO_EXCHANGE:
			break;
		case TSI_LP_GLOBAL_EXCHANGE:
			kind = TSI_EXCHANGE_EXTERNAL;
			type = TSI_STEP_GLOBAL_EXCHANGE;
			need = 2;
			break;
		case TSI_LP_STREAM_COPY:
			kind = TSI_EXCHANGE_HOST;
			type = TSI_STEP_STREAM_COPY;
			need = 2;
			break;
		default:
			continue;
		}
		/* An exchange step, after its sync. */
		if (prev < need)
			sim_sync(&s, out, &steps[k++], id, need, &t);
		prev = 0;
		ss = sim_ex_stat(&s, kind, lp->exchange, id);
		st = &steps[k++];
		st->type = type;
		st->program = id;
		st->compute_set = -1;
		st->exchange = lp->exchange;
		sim_fill(&s, st, ss, &t);
		st->total_data = ss->total_data;
		st->data_balance = ss->data_balance;
		if (kind == TSI_EXCHANGE_INTERNAL)
			out->tile_cycles.do_exchange += ss->sum;
		else if (kind == TSI_EXCHANGE_EXTERNAL)
			out->tile_cycles.global_exchange += ss->sum;
		else
			out->tile_cycles.stream_copy += ss->sum;
	}
	out->program_trace = trace_copy;
	out->n_trace = n_trace;
	out->steps = steps;
	out->n_steps = k;
	out->cycles = t;
out:
	if (rc == TSI_ERR_NO_MEMORY)
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory simulating a run");
	sim_free(&s);
	return rc;
}
