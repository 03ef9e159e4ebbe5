/*
 * Compute sets (BSP): all fields of all vertices are gathered into one
 * scratch arena before any vertex runs and written back after the last
 * one, so every vertex reads its inputs as they were before the compute
 * set. Each compute set's layout (its plan: where each field lives, the
 * moves between variables and the arena) is built at load by
 * engine-plan.c and kept in the engine; the arena itself is shared by all
 * compute sets and grows to the largest. Fields that no other field of
 * the set conflicts with live in variable memory, and are pointed at
 * there. The tsi_field a codelet sees is made from the packed plan for
 * each call, in a small buffer the engine keeps.
 */
#include "engine-plan-private.h"

#include <stdlib.h>
#include <string.h>

/* Makes `*buf` hold at least `n` elements of `size` bytes (contents not
 * kept); false when out of memory. */
static bool grow(void *buf, size_t *cap, size_t n, size_t size)
{
	void **p = buf;

	if (n <= *cap && *p)
		return true;
	if (n < 64)
		n = 64;
	void *grown = realloc(*p, n * size);
	if (!grown)
		return false;
	*p = grown;
	*cap = n;
	return true;
}

/* Returns the plan of `cs` (building it when the load did not) with the
 * scratch arena and the engine's call buffers grown to what it needs. */
static int plan_get(tsi_engine *e, tsi_compute_set *cs, cs_plan **out)
{
	cs_plan *p;
	int rc;

	if (cs->id >= e->n_plans)
		return tsi_engine_fail(e, TSI_ERR_INVALID_GRAPH,
		                       "compute set '%s' was created after the engine was compiled",
		                       cs->name);
	p = e->plans[cs->id];
	if (!p) {
		rc = tsi_engine_plan_build(e, cs, &p);
		if (rc)
			return rc;
		e->plans[cs->id] = p;
	}
	if (p->scratch_bytes > e->scratch_cap || !e->scratch) {
		size_t cap = p->scratch_bytes > 64 ? p->scratch_bytes : 64;
		unsigned char *s = realloc(e->scratch, cap);
		if (!s)
			return tsi_engine_fail(e, TSI_ERR_NO_MEMORY,
			                       "out of host memory for compute set '%s' (%zu bytes of fields)",
			                       cs->name, p->scratch_bytes);
		e->scratch = s;
		e->scratch_cap = cap;
	}
	if (!grow(&e->call_fields, &e->call_fields_cap, p->max_fields, sizeof(*e->call_fields)) ||
	    !grow(&e->call_pairs, &e->call_pairs_cap, 2 * p->max_fields, sizeof(*e->call_pairs)) ||
	    !grow(&e->direct_ptrs, &e->direct_ptrs_cap, p->n_direct, sizeof(*e->direct_ptrs)))
		return tsi_engine_fail(e, TSI_ERR_NO_MEMORY,
		                       "out of host memory for compute set '%s'", cs->name);
	*out = p;
	return TSI_OK;
}

/* memcpy for the gathers and write-backs of compute sets: most of them
 * move one element (a strided view such as a transpose gathers element
 * by element), and a copy of a constant size compiles to a plain load and
 * store where a call to memcpy costs more than the copy. */
static inline void copy_bytes(unsigned char *dst, const unsigned char *src, size_t bytes)
{
	switch (bytes) {
	case 2: memcpy(dst, src, 2); break;
	case 4: memcpy(dst, src, 4); break;
	case 8: memcpy(dst, src, 8); break;
	default: memcpy(dst, src, bytes); break;
	}
}

/* Rows of the gather tiles of gather_rows: 64 bytes of floats, one cache
 * line of the source read per step. */
#define GATHER_TILE 16u

/*
 * Gathers a block of x->rows rows of x->count elements each (element k of
 * row j at src + j * row_step + k * stride) into `dst` row after row. A
 * transposed view's rows are the columns of its variable, so reading
 * them one by one touches a new cache line per element; here GATHER_TILE
 * rows are read together, along the variable's own rows, and written to
 * GATHER_TILE rows of scratch that stay in cache.
 */
static void gather_rows(unsigned char *dst, const unsigned char *src, const plan_wide *x)
{
	const size_t rows = x->rows, count = x->count, bytes = x->bytes;

	for (size_t j0 = 0; j0 < rows; j0 += GATHER_TILE) {
		size_t j1 = j0 + GATHER_TILE < rows ? j0 + GATHER_TILE : rows;
		for (size_t k = 0; k < count; k++) {
			const unsigned char *s = src + j0 * x->row_step + k * x->stride;
			unsigned char *d = dst + (j0 * count + k) * bytes;
			for (size_t j = j0; j < j1; j++, s += x->row_step, d += count * bytes)
				copy_bytes(d, s, bytes);
		}
	}
}

/* Performs a strided move (see plan_wide) on replica r: into scratch
 * (`in`) or back to its variable. */
static void run_strided(tsi_engine *e, const plan_wide *x, unsigned r, bool in)
{
	unsigned char *s = e->scratch + x->scratch_off;

	if (x->var == ZERO_VAR) {
		memset(s, 0, x->bytes);
		return;
	}
	unsigned char *v = var_base(e, x->var, r) + x->var_off;
	if (!in) {
		for (size_t k = 0; k < x->count; k++, v += x->stride, s += x->bytes)
			copy_bytes(v, s, x->bytes);
		return;
	}
	if (x->rows > 1) {
		gather_rows(s, v, x);
		return;
	}
	for (size_t k = 0; k < x->count; k++, s += x->bytes, v += x->stride)
		copy_bytes(s, v, x->bytes);
}

/* Performs the moves of `list` (`n` entries) on replica r: into scratch
 * (`in`) or back to the variables. */
static void run_moves(tsi_engine *e, const cs_plan *p, const plan_entry *list, size_t n,
                      unsigned r, bool in)
{
	for (size_t i = 0; i < n; i++) {
		const plan_move *x = &list[i].move;
		if (x->var == WIDE_VAR) {
			run_strided(e, &p->wide[x->var_off], r, in);
		} else if (x->bytes & MOVE_RUN) {
			const plan_run *run = &list[++i].run;
			plan_wide w = {x->var,     x->var_off,  x->scratch_off, x->bytes & ~MOVE_RUN,
			               run->count, run->stride, run->rows,      run->row_step};
			run_strided(e, &w, r, in);
		} else if (x->var == ZERO_VAR) {
			memset(e->scratch + x->scratch_off, 0, x->bytes);
		} else if (in) {
			copy_bytes(e->scratch + x->scratch_off, var_base(e, x->var, r) + x->var_off,
			           x->bytes);
		} else {
			copy_bytes(var_base(e, x->var, r) + x->var_off, e->scratch + x->scratch_off,
			           x->bytes);
		}
	}
}

/* Fills the scratch arena for replica r (gathers, zero-fills of outputs
 * in scratch and in place) and points e->direct_ptrs at the fields in
 * variable memory. */
static void gather(tsi_engine *e, const cs_plan *p, unsigned r)
{
	for (size_t i = 0; i < p->n_direct; i++) {
		const plan_direct *d = &p->direct[i];
		e->direct_ptrs[i] = var_base(e, d->var, r) + d->var_off;
		if (d->zero_bytes)
			memset(e->direct_ptrs[i], 0, d->zero_bytes);
	}
	run_moves(e, p, p->in, p->n_in, r, true);
}

/* Makes in `call` the tsi_field of each of the `n` fields `pf` of one
 * vertex, the offsets {0, count} of single-vector fields in `pairs`. */
static inline void make_fields(const tsi_engine *e, const cs_plan *p, const plan_field *pf,
                               uint32_t n, tsi_field *call, size_t *pairs)
{
	for (uint32_t j = 0; j < n; j++) {
		uint32_t at = pf[j].at;
		tsi_field *tf = &call[j];
		tf->data = at & AT_DIRECT ? e->direct_ptrs[at & AT_INDEX]
		                          : e->scratch + (size_t)(at & AT_INDEX) * FIELD_ALIGN;
		if (at & AT_LIST) {
			const size_t *o = &p->offsets[pf[j].size];
			tf->n_vectors = o[-1];
			tf->offsets = o;
			tf->count = o[tf->n_vectors];
		} else {
			pairs[2 * j] = 0;
			pairs[2 * j + 1] = pf[j].size;
			tf->count = pf[j].size;
			tf->n_vectors = 1;
			tf->offsets = &pairs[2 * j];
		}
	}
}

/* Fails for vertex `i` of the plan of `cs`, whose compute function
 * returned false on replica r. */
static int vertex_failed(tsi_engine *e, const tsi_compute_set *cs, size_t i, unsigned r)
{
	const tsi_vertex *v = tsi_engine_plan_vertex(e, cs, i);
	unsigned id = v ? v->id : 0;
	const char *type = v ? v->type_name : "?";

	if (e->replicas > 1)
		return tsi_engine_fail(e, TSI_ERR_VERTEX_FAILED,
		                       "vertex %u (type '%s') in compute set '%s' failed on replica %u: "
		                       "its compute function returned false",
		                       id, type, cs->name, r);
	return tsi_engine_fail(e, TSI_ERR_VERTEX_FAILED,
	                       "vertex %u (type '%s') in compute set '%s' failed: its compute "
	                       "function returned false",
	                       id, type, cs->name);
}

/*
 * Runs compute set `cs` on every replica of `m` as one BSP superstep:
 * gather every field, run every vertex, then write outputs back.
 */
int tsi_engine_run_compute_set(tsi_engine *e, tsi_compute_set *cs, const rmask *m)
{
	cs_plan *p = NULL;
	int rc = plan_get(e, cs, &p);

	if (rc)
		return rc;
	if (tsi_log_enabled(TSI_LOG_DEBUG))
		tsi_log(TSI_LOG_DEBUG, "ENGINE", "Executing compute set '%s' (%zu vertices)", cs->name,
		        p->n_vertices);
	tsi_field *call = e->call_fields;
	size_t *pairs = e->call_pairs;
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r))
			continue;
		gather(e, p, r);
		const plan_field *f = p->fields;
		size_t vi = 0;
		for (size_t c = 0; c < p->n_calls; c++) {
			const plan_calls *run = &p->calls[c];
			for (uint32_t k = 0; k < run->n_vertices; k++, vi++, f += run->n_fields) {
				make_fields(e, p, f, run->n_fields, call, pairs);
				if (!run->compute(call, run->n_fields))
					return vertex_failed(e, cs, vi, r);
			}
		}
		run_moves(e, p, p->out, p->n_out, r, false);
	}
	return TSI_OK;
}
