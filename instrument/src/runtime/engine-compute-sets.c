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
 * each call, in a small buffer the engine keeps; a plan that runs more
 * than once in a run (a loop body: tutorial 5's training step runs 600
 * times an epoch) keeps its fields made instead, within MADE_BUDGET, as
 * the plans did before they were packed.
 */
#include "engine-plan-private.h"

#include <stdlib.h>
#include <string.h>

/* The most host memory the made fields of all hot plans may take
 * (bytes); past it, further loop bodies make theirs call by call. */
#define MADE_BUDGET ((size_t)256 << 20)

/* The tsi_fields a hot plan keeps made (cs_plan.made), in one allocation. */
struct plan_made {
	size_t bytes;           /* of the allocation, counted in e->made_bytes */
	unsigned char *bound;   /* the scratch arena the fields' data points into */
	tsi_field *fields;      /* n_fields, vertex by vertex */
	size_t *pairs;          /* per field, {0, count} for a single-vector field */
	uint32_t *direct_field; /* per direct entry, the field that lives there */
};

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

/* Copies `count` pieces of `bytes`, piece k from src + k * src_step to
 * dst + k * dst_step; the size is decided once, outside the loop, so an
 * element-by-element run of floats is a plain load and store each. */
static inline void copy_pieces(unsigned char *dst, size_t dst_step, const unsigned char *src,
                               size_t src_step, size_t count, size_t bytes)
{
#define PIECES(n)                                                          \
	for (size_t k = 0; k < count; k++, dst += dst_step, src += src_step) \
		memcpy(dst, src, n)
	switch (bytes) {
	case 2: PIECES(2); break;
	case 4: PIECES(4); break;
	case 8: PIECES(8); break;
	default: PIECES(bytes); break;
	}
#undef PIECES
}

/* Rows of the gather tiles of gather_rows: 64 bytes of floats, one cache
 * line of the source read per step. */
#define GATHER_TILE 16u

/*
 * Gathers a block of `rows` rows of `count` elements of `bytes` each
 * (element k of row j at src + j * row_step + k * stride) into `dst` row
 * after row. A transposed view's rows are the columns of its variable, so
 * reading them one by one touches a new cache line per element; here
 * GATHER_TILE rows are read together, along the variable's own rows, and
 * written to GATHER_TILE rows of scratch that stay in cache.
 */
static void gather_rows(unsigned char *dst, const unsigned char *src, size_t rows, size_t count,
                        size_t bytes, size_t stride, size_t row_step)
{
	for (size_t j0 = 0; j0 < rows; j0 += GATHER_TILE) {
		size_t j1 = j0 + GATHER_TILE < rows ? j0 + GATHER_TILE : rows;
		for (size_t k = 0; k < count; k++)
			copy_pieces(dst + (j0 * count + k) * bytes, count * bytes,
			            src + j0 * row_step + k * stride, row_step, j1 - j0, bytes);
	}
}

/* Performs a wide move (see plan_wide) on replica r: into scratch (`in`)
 * or back to its variable. */
static void run_wide(tsi_engine *e, const plan_wide *x, unsigned r, bool in)
{
	unsigned char *s = e->scratch + x->scratch_off;

	if (x->var == ZERO_VAR) {
		memset(s, 0, x->bytes * x->count * x->rows);
		return;
	}
	unsigned char *v = var_base(e, x->var, r) + x->var_off;
	if (!in)
		copy_pieces(v, x->stride, s, x->bytes, x->count, x->bytes);
	else if (x->rows > 1)
		gather_rows(s, v, x->rows, x->count, x->bytes, x->stride, x->row_step);
	else
		copy_pieces(s, x->bytes, v, x->stride, x->count, x->bytes);
}

/* Fills the scratch arena for replica r (gathers, zero-fills of outputs
 * in scratch and in place) and points the fields living in variable
 * memory at it: the made fields' when the plan has them, else
 * e->direct_ptrs. */
static void gather(tsi_engine *e, const cs_plan *p, unsigned r)
{
	unsigned char *scratch = e->scratch;
	const plan_made *m = p->made;

	for (size_t i = 0; i < p->n_direct; i++) {
		const plan_direct *d = &p->direct[i];
		unsigned char *at = var_base(e, d->var, r) + d->var_off;
		if (m)
			m->fields[m->direct_field[i]].data = at;
		else
			e->direct_ptrs[i] = at;
		if (d->zero_bytes)
			memset(at, 0, d->zero_bytes);
	}
	for (size_t i = 0; i < p->n_in; i++) {
		const plan_move *x = &p->in[i].move;
		if (x->var < WIDE_VAR) {
			unsigned char *dst = scratch + x->scratch_off;
			const unsigned char *src = var_base(e, x->var, r) + x->var_off;
			if (!(x->bytes & MOVE_RUN)) {
				copy_bytes(dst, src, x->bytes);
				continue;
			}
			const plan_run *run = &p->in[++i].run;
			size_t bytes = x->bytes & ~MOVE_RUN;
			if (run->rows > 1)
				gather_rows(dst, src, run->rows, run->count, bytes, run->stride,
				            run->row_step);
			else
				copy_pieces(dst, bytes, src, run->stride, run->count, bytes);
		} else if (x->var == ZERO_VAR) {
			memset(scratch + x->scratch_off, 0, x->bytes);
		} else {
			run_wide(e, &p->wide[x->var_off], r, true);
		}
	}
}

/* Empties the scratch arena for replica r: the write-backs. */
static void write_back(tsi_engine *e, const cs_plan *p, unsigned r)
{
	const unsigned char *scratch = e->scratch;

	for (size_t i = 0; i < p->n_out; i++) {
		const plan_move *x = &p->out[i].move;
		if (x->var == WIDE_VAR) {
			run_wide(e, &p->wide[x->var_off], r, false);
			continue;
		}
		unsigned char *dst = var_base(e, x->var, r) + x->var_off;
		const unsigned char *src = scratch + x->scratch_off;
		if (!(x->bytes & MOVE_RUN)) {
			copy_bytes(dst, src, x->bytes);
			continue;
		}
		const plan_run *run = &p->out[++i].run;
		size_t bytes = x->bytes & ~MOVE_RUN;
		copy_pieces(dst, run->stride, src, bytes, run->count, bytes);
	}
}

/* Makes the tsi_field of plan field `pf` in `tf`, with the single-vector
 * offsets in `pair`; the data pointer of a field in variable memory is
 * `direct` (the caller's to fill when NULL). */
static inline void make_field(const cs_plan *p, const plan_field *pf, unsigned char *scratch,
                              unsigned char *const *direct, tsi_field *tf, size_t *pair)
{
	uint32_t at = pf->at;

	if (at & AT_DIRECT)
		tf->data = direct ? direct[at & AT_INDEX] : NULL;
	else
		tf->data = scratch + (size_t)(at & AT_INDEX) * FIELD_ALIGN;
	if (at & AT_LIST) {
		const size_t *o = &p->offsets[pf->size];
		tf->n_vectors = o[-1];
		tf->offsets = o;
		tf->count = o[tf->n_vectors];
	} else {
		pair[0] = 0;
		pair[1] = pf->size;
		tf->count = pf->size;
		tf->n_vectors = 1;
		tf->offsets = pair;
	}
}

/* Points the made fields of `p` that live in scratch at e->scratch. */
static void made_bind(tsi_engine *e, const cs_plan *p, plan_made *m)
{
	for (size_t i = 0; i < p->n_fields; i++)
		if (!(p->fields[i].at & AT_DIRECT))
			m->fields[i].data = e->scratch + (size_t)(p->fields[i].at & AT_INDEX) * FIELD_ALIGN;
	m->bound = e->scratch;
}

/* Makes and keeps the fields of a plan that runs again in the same run,
 * within MADE_BUDGET; out of memory just leaves the plan making them per
 * call. */
static void plan_make(tsi_engine *e, cs_plan *p)
{
	size_t bytes = sizeof(plan_made) + p->n_fields * (sizeof(tsi_field) + 2 * sizeof(size_t)) +
	               p->n_direct * sizeof(uint32_t);
	plan_made *m;

	if (bytes > MADE_BUDGET - e->made_bytes || !(m = malloc(bytes)))
		return;
	m->bytes = bytes;
	m->fields = (tsi_field *)(m + 1);
	m->pairs = (size_t *)(m->fields + p->n_fields);
	m->direct_field = (uint32_t *)(m->pairs + 2 * p->n_fields);
	for (size_t i = 0; i < p->n_fields; i++) {
		const plan_field *pf = &p->fields[i];
		make_field(p, pf, e->scratch, NULL, &m->fields[i], &m->pairs[2 * i]);
		if (pf->at & AT_DIRECT)
			m->direct_field[pf->at & AT_INDEX] = (uint32_t)i;
	}
	m->bound = e->scratch;
	p->made = m;
	e->made_bytes += bytes;
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
	if (!p->made && p->last_run == e->run_serial)
		plan_make(e, p);
	p->last_run = e->run_serial;
	if (p->made && p->made->bound != e->scratch)
		made_bind(e, p, p->made);
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r))
			continue;
		gather(e, p, r);
		const plan_field *f = p->fields;
		const tsi_field *made = p->made ? p->made->fields : NULL;
		size_t vi = 0;
		for (size_t c = 0; c < p->n_calls; c++) {
			const plan_calls *run = &p->calls[c];
			for (uint32_t k = 0; k < run->n_vertices; k++, vi++, f += run->n_fields) {
				const tsi_field *call = made;
				if (made) {
					made += run->n_fields;
				} else {
					for (uint32_t j = 0; j < run->n_fields; j++)
						make_field(p, &f[j], e->scratch, e->direct_ptrs,
						           &e->call_fields[j], &e->call_pairs[2 * j]);
					call = e->call_fields;
				}
				if (!run->compute(call, run->n_fields))
					return vertex_failed(e, cs, vi, r);
			}
		}
		write_back(e, p, r);
	}
	return TSI_OK;
}
