/*
 * Building compute-set plans (engine-plan-private.h): the scratch layout
 * of every field of every vertex, and the moves between variables and
 * the arena. Fields that no other field of the set conflicts with are
 * used in variable memory directly, without the copies: inputs that are
 * one contiguous run, lists of sub-vectors lying back to back in one
 * variable (a matrix's rows), and the outputs that
 * tsi_engine_plan_mark_in_place allows (engine-plan-fields.c). Input
 * fields that read exactly what an earlier input field of the set reads
 * (the same weights block for every worker of a matmul, the same rows of
 * A for each of its column slices) share that field's copy.
 * A strided view's rows gathered one after another (a transpose) move as
 * one block (gather_rows in engine-compute-sets.c).
 *
 * The lists are built in working buffers that one plan_builder keeps
 * across all the compute sets of a load, and each plan is then copied,
 * packed, into one allocation of its exact size: a plan lives as long as
 * the engine, and the slack of lists sized for the worst case (one move
 * per region) was most of bert_synth --size large's run memory.
 */
#include "engine-plan-private.h"

#include <stdlib.h>
#include <string.h>

/* Working buffers of plan building, grown to the largest compute set and
 * reused for the next. */
typedef struct plan_builder {
	const tsi_vertex **vertices; size_t cap_vertices;
	plan_calls *calls;           size_t cap_calls;
	plan_field *fields;          size_t cap_fields;
	size_t *offsets;             size_t cap_offsets;
	plan_direct *direct;         size_t cap_direct;
	plan_wide *in;               size_t cap_in;
	plan_wide *out;              size_t cap_out;
	bool *in_place;              size_t cap_in_place; /* per field: an output written in place */
	plan_shared_slot *shared;    size_t cap_shared;   /* input views gathered so far */
	uint32_t *offs_slots;        size_t cap_offs_slots; /* list offsets kept so far: the
	                                                       index of each in offsets, 0 empty */
} plan_builder;

/* Makes `*buf` hold at least `n` elements of `size` bytes, growing it
 * by doubling (contents kept); false when out of memory. */
static bool reserve(void *buf, size_t *cap, size_t n, size_t size)
{
	void **p = buf;

	if (n <= *cap && *p)
		return true;
	size_t want = n > *cap * 2 ? n : *cap * 2;
	if (want < 16)
		want = 16;
	void *grown = realloc(*p, want * size);
	if (!grown)
		return false;
	*p = grown;
	*cap = want;
	return true;
}

/* Frees the working buffers and empties the builder. */
static void builder_clear(plan_builder *b)
{
	free(b->vertices);
	free(b->calls);
	free(b->fields);
	free(b->offsets);
	free(b->direct);
	free(b->in);
	free(b->out);
	free(b->in_place);
	free(b->shared);
	free(b->offs_slots);
	memset(b, 0, sizeof(*b));
}

/* Appends a move to a list (growing it: `*cap` elements), merging it
 * into the previous one when both sides continue exactly where that one
 * stopped. False when out of memory. */
static bool move_append(plan_wide **listp, size_t *cap, size_t *n, uint32_t var, size_t var_off,
                        size_t scratch_off, size_t bytes)
{
	plan_wide *list = *listp;

	if (*n) {
		plan_wide *last = &list[*n - 1];
		size_t end = last->scratch_off + last->count * last->bytes;
		/* Contiguous with a single piece: one longer piece. */
		if (last->var == var && last->count == 1 && end == scratch_off &&
		    (var == ZERO_VAR || last->var_off + last->bytes == var_off)) {
			last->bytes += bytes;
			return true;
		}
		/* The next piece of a strided run (pieces not overlapping). */
		if (last->var == var && var != ZERO_VAR && last->bytes == bytes && end == scratch_off &&
		    var_off > last->var_off) {
			size_t stride = last->count == 1 ? var_off - last->var_off : last->stride;
			if (stride >= bytes && var_off == last->var_off + last->count * stride) {
				last->stride = stride;
				last->count++;
				return true;
			}
		}
	}
	if (!reserve(listp, cap, *n + 1, sizeof(*list)))
		return false;
	(*listp)[(*n)++] = (plan_wide){var, var_off, scratch_off, bytes, 1, 0, 1, 0};
	return true;
}

/*
 * Merges runs of strided gathers that are the rows of one block: each of
 * the same element size, count and stride, each starting `row_step` bytes
 * after the one before in the variable and right after it in scratch.
 * The rows of a transposed view come out of move_append this way (row j
 * of x^T is column j of x), and a block moves much faster as a whole
 * (gather_rows) than column by column. Returns the new length.
 */
static size_t merge_rows(plan_wide *list, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		plan_wide x = list[i];
		if (out && x.count > 1 && x.var != ZERO_VAR) {
			plan_wide *last = &list[out - 1];
			size_t row_bytes = last->count * last->bytes;
			if (last->var == x.var && last->bytes == x.bytes && last->count == x.count &&
			    last->stride == x.stride &&
			    x.scratch_off == last->scratch_off + last->rows * row_bytes &&
			    x.var_off > last->var_off) {
				size_t step = last->rows == 1 ? x.var_off - last->var_off : last->row_step;
				if (x.var_off == last->var_off + last->rows * step) {
					last->row_step = step;
					last->rows++;
					continue;
				}
			}
		}
		list[out++] = x;
	}
	return out;
}

/* Out of host memory laying out `cs`: recorded in the engine. */
static int no_memory(tsi_engine *e, const tsi_compute_set *cs)
{
	return tsi_engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory laying out compute set '%s'",
	                       cs->name);
}

/*
 * Pass 1 of plan_build: lists the vertices that existed at compile time
 * in b->vertices and their codelet runs in b->calls, checks what
 * compilation promised, and counts fields, list fields and the offsets
 * they may need. Returns TSI_OK or a recorded failure.
 */
static int plan_count(tsi_engine *e, plan_builder *b, tsi_compute_set *cs, cs_plan *p,
                      size_t *n_lists, size_t *n_offsets)
{
	if (!reserve(&b->vertices, &b->cap_vertices, cs->vertices.len + 1, sizeof(*b->vertices)))
		return no_memory(e, cs);
	for (size_t i = 0; i < cs->vertices.len; i++) {
		tsi_vertex *v = cs->vertices.items[i];
		if (v->id >= e->compiled->n_vertices)
			continue; /* added after compilation: not part of this engine */
		if (!v->codelet)
			return tsi_engine_fail(e, TSI_ERR_UNKNOWN_VERTEX_TYPE,
			                       "vertex %u of compute set '%s' has unknown type '%s'", v->id,
			                       cs->name, v->type_name);
		size_t nf = v->codelet->n_fields;
		plan_calls *last = p->n_calls ? &b->calls[p->n_calls - 1] : NULL;
		if (last && last->compute == v->codelet->compute && last->n_fields == nf &&
		    last->n_vertices < UINT32_MAX) {
			last->n_vertices++;
		} else {
			if (nf > UINT32_MAX ||
			    !reserve(&b->calls, &b->cap_calls, p->n_calls + 1, sizeof(*b->calls)))
				return no_memory(e, cs);
			b->calls[p->n_calls++] = (plan_calls){v->codelet->compute, (uint32_t)nf, 1};
		}
		b->vertices[p->n_vertices++] = v;
		p->n_fields += nf;
		if (nf > p->max_fields)
			p->max_fields = nf;
		for (size_t f = 0; f < nf; f++) {
			const tsi_field_conn *c = &v->fields[f];
			bool list = v->codelet->fields[f].shape == TSI_FIELD_VECTOR_LIST;
			if (list) {
				(*n_lists)++;
				*n_offsets += c->n + 2;
			}
			for (size_t k = 0; k < c->n; k++) {
				for (size_t r = 0; r < c->tensors[k]->n_regions; r++)
					if (c->tensors[k]->regions[r].var >= e->n_vars)
						return tsi_engine_fail(e, TSI_ERR_INVALID_GRAPH,
						                       "vertex %u (type '%s') of compute set '%s' is "
						                       "connected to a variable created after the "
						                       "engine was compiled",
						                       v->id, v->type_name, cs->name);
			}
		}
	}
	return TSI_OK;
}

/* Fails for a field too large for the plan's 32-bit sizes: more than
 * UINT32_MAX elements or bytes (a tile holds well under 1 MiB). */
static int too_large(tsi_engine *e, const tsi_compute_set *cs, const tsi_vertex *v, size_t f)
{
	return tsi_engine_fail(e, TSI_ERR_INVALID_GRAPH,
	                       "field '%s' of vertex %u (type '%s') in compute set '%s' holds more "
	                       "than 4 GiB or 2^32 elements, more than the engine can lay out",
	                       v->codelet->fields[f].name, v->id, v->type_name, cs->name);
}

/* The FNV-1a hash of `n` words. */
static uint64_t hash_words(const size_t *w, size_t n)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint64_t)w[i]) * 0x100000001b3u;
	return h;
}

/*
 * Gives the list field connected to `c` its offsets: the sub-vector count
 * and the n + 1 offsets written at the end of b->offsets, or the equal
 * ones an earlier list of the plan already has there (a reduction's
 * vertices mostly take the same number of partials of the same size).
 * Sets `*k` to the index of the first offset; false when the plan would
 * hold more than 2^32 offsets.
 */
static bool list_offsets(plan_builder *b, cs_plan *p, size_t mask, const tsi_field_conn *c,
                         uint32_t *k)
{
	size_t *o = &b->offsets[p->n_offsets], sum = 0, n = c->n;

	o[0] = n;
	o[1] = 0;
	for (size_t i = 0; i < n; i++) {
		sum += c->tensors[i]->numel;
		o[i + 2] = sum;
	}
	for (size_t i = (size_t)hash_words(o, n + 2) & mask;; i = (i + 1) & mask) {
		uint32_t at = b->offs_slots[i];
		if (!at) {
			if (p->n_offsets + 1 > UINT32_MAX - n - 1)
				return false;
			*k = (uint32_t)(p->n_offsets + 1);
			b->offs_slots[i] = *k;
			p->n_offsets += n + 2;
			return true;
		}
		if (b->offsets[at - 1] == n && memcmp(&b->offsets[at], &o[1], (n + 1) * sizeof(*o)) == 0) {
			*k = at;
			return true;
		}
	}
}

/* The smallest power of two, less one, whose table holds `n` keys at most
 * half full. */
static size_t table_mask(size_t n)
{
	size_t mask = 15;

	while (mask + 1 < 2 * n)
		mask = mask * 2 + 1;
	return mask;
}

/*
 * Pass 2 of plan_build: lays the fields out (b->fields, b->offsets,
 * b->direct) and lists the moves (b->in, b->out). `n_lists` and
 * `n_offsets` bound what the list fields need. Returns TSI_OK or a
 * recorded failure.
 */
static int plan_lay_out(tsi_engine *e, plan_builder *b, tsi_compute_set *cs, cs_plan *p,
                        size_t n_lists, size_t n_offsets)
{
	size_t shared_mask = table_mask(p->n_fields), offs_mask = table_mask(n_lists);
	size_t fi = 0, pos = 0;

	if (!reserve(&b->fields, &b->cap_fields, p->n_fields + 1, sizeof(*b->fields)) ||
	    !reserve(&b->offsets, &b->cap_offsets, n_offsets + 1, sizeof(*b->offsets)) ||
	    !reserve(&b->direct, &b->cap_direct, p->n_fields + 1, sizeof(*b->direct)) ||
	    !reserve(&b->in_place, &b->cap_in_place, p->n_fields + 1, sizeof(*b->in_place)) ||
	    !reserve(&b->shared, &b->cap_shared, shared_mask + 1, sizeof(*b->shared)) ||
	    !reserve(&b->offs_slots, &b->cap_offs_slots, offs_mask + 1, sizeof(*b->offs_slots)))
		return no_memory(e, cs);
	memset(b->in_place, 0, (p->n_fields + 1) * sizeof(*b->in_place));
	memset(b->shared, 0, (shared_mask + 1) * sizeof(*b->shared));
	memset(b->offs_slots, 0, (offs_mask + 1) * sizeof(*b->offs_slots));
	if (tsi_engine_plan_mark_in_place(b->vertices, p->n_vertices, b->in_place) != TSI_OK)
		return no_memory(e, cs);
	p->n_offsets = 0;

	for (size_t i = 0; i < p->n_vertices; i++) {
		const tsi_vertex *v = b->vertices[i];
		for (size_t f = 0; f < v->codelet->n_fields; f++, fi++) {
			const tsi_field_def *def = &v->codelet->fields[f];
			const tsi_field_conn *c = &v->fields[f];
			bool list = def->shape == TSI_FIELD_VECTOR_LIST;
			plan_field *field = &b->fields[fi];
			size_t count = 0, bytes_in_all = 0, field_start;
			uint32_t flags = 0, size;

			/* Sizes first: every count and byte size a plan keeps fits
			 * 32 bits. */
			for (size_t k = 0; k < c->n; k++) {
				count += c->tensors[k]->numel;
				bytes_in_all += c->tensors[k]->numel * tsi_type_size(c->tensors[k]->type);
			}
			if (count > UINT32_MAX || bytes_in_all > UINT32_MAX)
				return too_large(e, cs, v, f);
			/* Fields used in variable memory directly, no scratch copy:
			 * an input that is one contiguous region (nothing writes
			 * variable memory while the vertices run except in-place
			 * fields, which nobody else reads: BSP semantics hold; this is
			 * most of the data a compute set moves), a list whose
			 * sub-vectors lie back to back in one variable (the rows of a
			 * matrix), and the outputs and in-outs tsi_engine_plan_mark_in_place
			 * chose. An output is zero-filled first, as a scratch output
			 * is. */
			bool direct_input = def->dir == TSI_FIELD_INPUT && !list && c->n == 1 &&
			                    c->tensors[0]->n_regions == 1;
			bool direct_list = def->dir == TSI_FIELD_INPUT && list &&
			                   tsi_engine_plan_contiguous_list(c);
			if (!direct_input && !direct_list && def->dir == TSI_FIELD_INPUT && c->n > 0) {
				/* Elements another input field of the set reads just
				 * the same (the weights block a matmul's workers share,
				 * the rows of A each of them multiplies): read the copy
				 * already gathered, cut the same way. */
				size_t first = tsi_engine_plan_shared_lookup(b->shared, shared_mask, c, fi);
				if (first != fi) {
					*field = b->fields[first];
					continue;
				}
			}
			size = (uint32_t)count;
			if (list) {
				flags = AT_LIST;
				if (!list_offsets(b, p, offs_mask, c, &size))
					return too_large(e, cs, v, f);
			}
			if (direct_input || direct_list || b->in_place[fi]) {
				const tsi_tensor *t = c->tensors[0];
				size_t elem = tsi_type_size(t->type);
				if (p->n_direct > AT_INDEX)
					return too_large(e, cs, v, f);
				b->direct[p->n_direct] = (plan_direct){
				    t->regions[0].begin * elem, t->regions[0].var,
				    def->dir == TSI_FIELD_OUTPUT ? (uint32_t)bytes_in_all : 0};
				*field = (plan_field){AT_DIRECT | flags | (uint32_t)p->n_direct++, size};
				continue;
			}
			pos = (pos + FIELD_ALIGN - 1) & ~(size_t)(FIELD_ALIGN - 1);
			field_start = pos;
			if (field_start / FIELD_ALIGN > AT_INDEX)
				return too_large(e, cs, v, f);
			for (size_t k = 0; k < c->n; k++) {
				const tsi_tensor *t = c->tensors[k];
				size_t elem = tsi_type_size(t->type);
				for (size_t r = 0; r < t->n_regions; r++) {
					const tsi_region *reg = &t->regions[r];
					size_t bytes = reg->len * elem;
					if ((def->dir != TSI_FIELD_OUTPUT &&
					     !move_append(&b->in, &b->cap_in, &p->n_in, reg->var,
					                  reg->begin * elem, pos, bytes)) ||
					    (def->dir != TSI_FIELD_INPUT &&
					     !move_append(&b->out, &b->cap_out, &p->n_out, reg->var,
					                  reg->begin * elem, pos, bytes)))
						return no_memory(e, cs);
					pos += bytes;
				}
			}
			if (def->dir == TSI_FIELD_OUTPUT && pos > field_start &&
			    !move_append(&b->in, &b->cap_in, &p->n_in, ZERO_VAR, 0, field_start,
			                 pos - field_start))
				return no_memory(e, cs);
			*field = (plan_field){flags | (uint32_t)(field_start / FIELD_ALIGN), size};
		}
	}
	p->n_in = merge_rows(b->in, p->n_in);
	p->scratch_bytes = pos;
	return TSI_OK;
}

/* How a plan keeps a move: 1 entry (one piece), 2 (a strided move and
 * its plan_run) or 0 (neither fits 32 bits: a plan_wide, behind one
 * entry). */
static size_t move_entries(const plan_wide *x)
{
	if (x->var_off > UINT32_MAX || x->scratch_off > UINT32_MAX || x->bytes >= MOVE_RUN)
		return 0;
	if (x->count == 1 && x->rows == 1)
		return 1;
	if (x->count > UINT32_MAX || x->stride > UINT32_MAX || x->rows > UINT32_MAX ||
	    x->row_step > UINT32_MAX)
		return 0;
	return 2;
}

/* Copies the moves `list[0..n)` into `dst` (as many entries as
 * move_entries says), those that do not fit into p->wide (from p->n_wide
 * on). Returns the entries written. */
static size_t pack_moves(cs_plan *p, plan_entry *dst, const plan_wide *list, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		const plan_wide *x = &list[i];
		switch (move_entries(x)) {
		case 1:
			dst[out++].move = (plan_move){x->var, (uint32_t)x->var_off,
			                              (uint32_t)x->scratch_off, (uint32_t)x->bytes};
			break;
		case 2:
			dst[out++].move = (plan_move){x->var, (uint32_t)x->var_off,
			                              (uint32_t)x->scratch_off,
			                              (uint32_t)x->bytes | MOVE_RUN};
			dst[out++].run = (plan_run){(uint32_t)x->count, (uint32_t)x->stride,
			                            (uint32_t)x->rows, (uint32_t)x->row_step};
			break;
		default:
			dst[out++].move = (plan_move){WIDE_VAR, (uint32_t)p->n_wide, 0, 0};
			p->wide[p->n_wide++] = *x;
			break;
		}
	}
	return out;
}

/* The entries `list[0..n)` take in a plan, and in `*n_wide` how many of
 * them are plan_wide. */
static size_t count_entries(const plan_wide *list, size_t n, size_t *n_wide)
{
	size_t entries = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = move_entries(&list[i]);
		*n_wide += k == 0;
		entries += k ? k : 1;
	}
	return entries;
}

/* Rounds a byte size up to 8, so every array of a packed plan is aligned
 * for its widest member. */
static size_t up8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/*
 * Copies the plan the builder holds into one allocation of its exact size:
 * the header, then each array. Returns NULL when out of memory.
 */
static cs_plan *plan_pack(const plan_builder *b, const cs_plan *h)
{
	size_t n_wide = 0, n_in, n_out, size;
	unsigned char *mem;
	cs_plan *p;

	n_in = count_entries(b->in, h->n_in, &n_wide);
	n_out = count_entries(b->out, h->n_out, &n_wide);
	size = up8(sizeof(*p)) + up8(h->n_calls * sizeof(*p->calls)) +
	       up8(h->n_fields * sizeof(*p->fields)) + up8(h->n_offsets * sizeof(*p->offsets)) +
	       up8(h->n_direct * sizeof(*p->direct)) + up8(n_in * sizeof(*p->in)) +
	       up8(n_out * sizeof(*p->out)) + up8(n_wide * sizeof(*p->wide));
	if (!(mem = malloc(size)))
		return NULL;
	p = (cs_plan *)mem;
	*p = *h;
	p->last_run = 0;
	p->made = NULL;
	mem += up8(sizeof(*p));
#define TAKE(member, n)                                  \
	do {                                                 \
		p->member = (void *)mem;                         \
		mem += up8((n) * sizeof(*p->member));            \
	} while (0)
	TAKE(calls, h->n_calls);
	TAKE(fields, h->n_fields);
	TAKE(offsets, h->n_offsets);
	TAKE(direct, h->n_direct);
	TAKE(in, n_in);
	TAKE(out, n_out);
	TAKE(wide, n_wide);
#undef TAKE
	if (h->n_calls)
		memcpy(p->calls, b->calls, h->n_calls * sizeof(*p->calls));
	if (h->n_fields)
		memcpy(p->fields, b->fields, h->n_fields * sizeof(*p->fields));
	if (h->n_offsets)
		memcpy(p->offsets, b->offsets, h->n_offsets * sizeof(*p->offsets));
	if (h->n_direct)
		memcpy(p->direct, b->direct, h->n_direct * sizeof(*p->direct));
	p->n_wide = 0;
	p->n_in = pack_moves(p, p->in, b->in, h->n_in);
	p->n_out = pack_moves(p, p->out, b->out, h->n_out);
	return p;
}

/*
 * Works out the layout of compute set `cs` with the working buffers of
 * `b`: where each field of each vertex lives, its sub-vector offsets, and
 * the moves that fill the arena before the vertices run and empty it
 * after. Only vertices that existed at compile time take part (they were
 * checked).
 */
static int plan_build(tsi_engine *e, plan_builder *b, tsi_compute_set *cs, cs_plan **out)
{
	cs_plan h = {0};
	size_t n_lists = 0, n_offsets = 0;
	int rc;

	*out = NULL;
	rc = plan_count(e, b, cs, &h, &n_lists, &n_offsets);
	if (rc)
		return rc;
	rc = plan_lay_out(e, b, cs, &h, n_lists, n_offsets);
	if (rc)
		return rc;
	if (!(*out = plan_pack(b, &h)))
		return no_memory(e, cs);
	return TSI_OK;
}

int tsi_engine_plan_build(tsi_engine *e, tsi_compute_set *cs, cs_plan **out)
{
	plan_builder b = {0};
	int rc = plan_build(e, &b, cs, out);

	builder_clear(&b);
	return rc;
}

/* Frees one compute set's plan (one allocation, and its made fields). */
void tsi_engine_plan_free(cs_plan *p)
{
	if (p)
		free(p->made);
	free(p);
}

const tsi_vertex *tsi_engine_plan_vertex(const tsi_engine *e, const tsi_compute_set *cs, size_t i)
{
	for (size_t k = 0; k < cs->vertices.len; k++) {
		const tsi_vertex *v = cs->vertices.items[k];
		if (v->id >= e->compiled->n_vertices)
			continue;
		if (i-- == 0)
			return v;
	}
	return NULL;
}

/* True when plan_build would refuse `cs` (a vertex of unknown type, or a
 * field connected to a variable made after compilation): such a compute
 * set is left for its first execution to report, as it always was. */
static bool plan_would_fail(const tsi_engine *e, const tsi_compute_set *cs)
{
	for (size_t i = 0; i < cs->vertices.len; i++) {
		const tsi_vertex *v = cs->vertices.items[i];
		if (v->id >= e->compiled->n_vertices)
			continue;
		if (!v->codelet)
			return true;
		for (size_t f = 0; f < v->codelet->n_fields; f++)
			for (size_t k = 0; k < v->fields[f].n; k++)
				for (size_t r = 0; r < v->fields[f].tensors[k]->n_regions; r++)
					if (v->fields[f].tensors[k]->regions[r].var >= e->n_vars)
						return true;
	}
	return false;
}

/*
 * Builds the plan of every compute set the compiled programs execute, at
 * load, so that the first run costs what the later ones do (the plans
 * were built on first execution, which made a large model's first run
 * several times slower than the next). One set of working buffers serves
 * them all. Returns TSI_OK or a recorded failure.
 */
int tsi_engine_prepare_plans(tsi_engine *e)
{
	const tsi_vec *sets = &e->compiled->compute_sets;
	plan_builder b = {0};
	int rc = TSI_OK;

	for (size_t i = 0; i < sets->len && rc == TSI_OK; i++) {
		tsi_compute_set *cs = sets->items[i];
		cs_plan *p;

		if (cs->id >= e->n_plans || e->plans[cs->id] || plan_would_fail(e, cs))
			continue;
		rc = plan_build(e, &b, cs, &p);
		if (rc == TSI_OK)
			e->plans[cs->id] = p;
	}
	builder_clear(&b);
	return rc;
}
