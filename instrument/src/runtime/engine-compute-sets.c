/*
 * Compute sets (BSP): all fields of all vertices are gathered into one
 * scratch arena before any vertex runs and written back after the last
 * one, so every vertex reads its inputs as they were before the compute
 * set. The layout of that arena (field pointers, offsets, and the list of
 * copies between variables and the arena) is worked out once per compute
 * set, on first execution, and cached in the engine; the arena itself is
 * shared by all compute sets and grows to the largest. Fields that no
 * other field of the set conflicts with are used in variable memory
 * directly, without the copies: inputs that are one contiguous run, lists
 * of sub-vectors lying back to back in one variable (a matrix's rows),
 * and the outputs mark_in_place_outputs allows. Input fields that read
 * exactly what an earlier input field of the set reads (the same weights
 * block for every worker of a matmul, the same rows of A for each of its
 * column slices) share that field's copy. A strided view's rows gathered
 * one after another (a transpose) move as one block (gather_rows).
 */
#include "engine-private.h"

#include <stdlib.h>
#include <string.h>

/* Field data in the scratch arena starts on this boundary (bytes), so a
 * codelet may use vector loads on any field. */
#define FIELD_ALIGN 16u

/* One contiguous move between a variable and the scratch arena. A `var`
 * of ZERO_VAR means "zero-fill these scratch bytes" (an output field). */
typedef struct xfer {
	uint32_t var;
	size_t var_off;     /* bytes into one replica's copy of the variable */
	size_t scratch_off; /* bytes into the scratch arena */
	size_t bytes;       /* of one piece */
	size_t count;       /* pieces: piece i is at var_off + i * stride in the variable
	                       and scratch_off + i * bytes in scratch (a strided view,
	                       such as a transpose, gathers element by element) */
	size_t stride;      /* bytes; 0 when count is 1 */
	size_t rows;        /* 1, or rows of such runs: row j starts at var_off +
	                       j * row_step in the variable and right after row
	                       j - 1 in scratch (rows of a transposed view: a
	                       block transpose, see gather_rows) */
	size_t row_step;    /* bytes; 0 when rows is 1 */
} xfer;
#define ZERO_VAR UINT32_MAX

/* An input field read straight from variable memory instead of the
 * scratch arena: its data pointer is set per replica before the vertices
 * run. */
typedef struct direct_field {
	size_t field;       /* index into the plan's fields */
	uint32_t var;
	size_t var_off;     /* bytes into one replica's copy of the variable */
} direct_field;

/* The cached layout of one compute set's scratch arena. */
/* What running one vertex needs, packed so that the run loop reads one
 * small array instead of chasing each vertex's and codelet's pointers (a
 * cache miss per vertex on large graphs). */
typedef struct vertex_call {
	tsi_compute_cb compute;
	size_t n_fields;
} vertex_call;

struct cs_plan {
	size_t n_vertices;
	tsi_vertex **vertices;    /* those that existed at compile time (malloc) */
	vertex_call *calls;       /* n_vertices, in the same order (malloc) */
	size_t n_fields;          /* all fields of all vertices */
	tsi_field *fields;        /* vertex by vertex, codelet field order */
	size_t *field_off;        /* scratch offset of each field's data, bytes */
	size_t *offsets;          /* the fields' sub-vector offsets */
	xfer *in;                 /* gathers and zero-fills, before the vertices run */
	size_t n_in;
	xfer *out;                /* write-backs of outputs and in-outs, after */
	size_t n_out;
	direct_field *direct;     /* inputs read and outputs written in place */
	size_t n_direct;
	xfer *zero;               /* in-place outputs zero-filled before the vertices run
	                             (scratch_off unused) */
	size_t n_zero;
	size_t scratch_bytes;
	unsigned char *bound;     /* arena base the fields' data pointers point into */
};

/* --- Compute sets ------------------------------------------------------------ */

/* Appends a move to a list, merging it into the previous one when both
 * sides continue exactly where that one stopped. */
static void xfer_append(xfer *list, size_t *n, uint32_t var, size_t var_off, size_t scratch_off,
                        size_t bytes)
{
	if (*n) {
		xfer *last = &list[*n - 1];
		size_t end = last->scratch_off + last->count * last->bytes;
		/* Contiguous with a single piece: one longer piece. */
		if (last->var == var && last->count == 1 && end == scratch_off &&
		    (var == ZERO_VAR || last->var_off + last->bytes == var_off)) {
			last->bytes += bytes;
			return;
		}
		/* The next piece of a strided run (pieces not overlapping). */
		if (last->var == var && var != ZERO_VAR && last->bytes == bytes && end == scratch_off &&
		    var_off > last->var_off) {
			size_t stride = last->count == 1 ? var_off - last->var_off : last->stride;
			if (stride >= bytes && var_off == last->var_off + last->count * stride) {
				last->stride = stride;
				last->count++;
				return;
			}
		}
	}
	list[*n] = (xfer){var, var_off, scratch_off, bytes, 1, 0, 1, 0};
	(*n)++;
}

/*
 * Merges runs of strided gathers that are the rows of one block: each of
 * the same element size, count and stride, each starting `row_step` bytes
 * after the one before in the variable and right after it in scratch.
 * The rows of a transposed view come out of xfer_append this way (row j
 * of x^T is column j of x), and a block moves much faster as a whole
 * (gather_rows) than column by column. Returns the new length.
 */
static size_t merge_rows(xfer *list, size_t n)
{
	size_t out = 0;

	for (size_t i = 0; i < n; i++) {
		xfer x = list[i];
		if (out && x.count > 1 && x.var != ZERO_VAR) {
			xfer *last = &list[out - 1];
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

/* A byte range of one variable, for the in-place output check. */
typedef struct var_range {
	uint32_t var;
	size_t begin, end;  /* bytes, one replica */
	size_t field;       /* the plan field writing it (outputs only) */
} var_range;

static int cmp_range(const void *a, const void *b)
{
	const var_range *x = a, *y = b;

	if (x->var != y->var)
		return x->var < y->var ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/*
 * Marks in `in_place` the output and in-out fields of the compute set's
 * vertices that can be used straight in variable memory: one contiguous
 * region that no other field of the set reads (so every vertex still
 * sees its inputs as they were before the set, the BSP rule) and that no
 * other written field touches (so the order of writes cannot matter).
 * The rest go through scratch: copied in, written back after all
 * vertices ran. Saves most of the simulator's data movement after the
 * in-place inputs.
 */
/* Whether `var` is among the sorted writes[0..n). */
static bool written_var(const var_range *writes, size_t n, uint32_t var)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (writes[mid].var < var)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && writes[lo].var == var;
}

static int mark_in_place_outputs(const cs_plan *p, bool *in_place)
{
	size_t n_reads = 0, cap_reads = 0, n_writes = 0, fi = 0;
	var_range *reads = NULL, *writes = NULL;

	/* The candidates first: one contiguous region, written. */
	for (size_t pass = 0; pass < 2; pass++) {
		fi = 0;
		n_writes = 0;
		for (size_t i = 0; i < p->n_vertices; i++) {
			const tsi_vertex *v = p->vertices[i];
			for (size_t f = 0; f < v->codelet->n_fields; f++, fi++) {
				const tsi_field_def *def = &v->codelet->fields[f];
				const tsi_field_conn *c = &v->fields[f];
				if (def->dir == TSI_FIELD_INPUT || def->shape == TSI_FIELD_VECTOR_LIST ||
				    c->n != 1 || c->tensors[0]->n_regions != 1)
					continue;
				const tsi_tensor *t = c->tensors[0];
				size_t size = tsi_type_size(t->type);
				if (writes)
					writes[n_writes] = (var_range){
					    t->regions[0].var, t->regions[0].begin * size,
					    (t->regions[0].begin + t->regions[0].len) * size, fi};
				n_writes++;
			}
		}
		if (pass == 0 && !(writes = malloc((n_writes + 1) * sizeof(*writes))))
			return TSI_ERR_NO_MEMORY;
	}
	qsort(writes, n_writes, sizeof(*writes), cmp_range);
	/* Then what the set reads of the variables the candidates write (other
	 * variables cannot conflict), adjacent pieces merged as they come: a
	 * matmul reads its operands and writes a new variable, so this list is
	 * usually empty. */
	fi = 0;
	for (size_t i = 0; i < p->n_vertices; i++) {
		const tsi_vertex *v = p->vertices[i];
		for (size_t f = 0; f < v->codelet->n_fields; f++, fi++) {
			const tsi_field_def *def = &v->codelet->fields[f];
			const tsi_field_conn *c = &v->fields[f];
			if (def->dir == TSI_FIELD_OUTPUT)
				continue; /* read by nobody */
			if (def->dir == TSI_FIELD_INOUT && def->shape != TSI_FIELD_VECTOR_LIST &&
			    c->n == 1 && c->tensors[0]->n_regions == 1)
				continue; /* a candidate: checked against the others below */
			for (size_t k = 0; k < c->n; k++) {
				const tsi_tensor *t = c->tensors[k];
				size_t size = tsi_type_size(t->type);
				for (size_t r = 0; r < t->n_regions; r++) {
					const tsi_region *reg = &t->regions[r];
					var_range x = {reg->var, reg->begin * size,
					               (reg->begin + reg->len) * size, 0};
					if (!written_var(writes, n_writes, x.var))
						continue;
					if (n_reads && reads[n_reads - 1].var == x.var &&
					    reads[n_reads - 1].end == x.begin) {
						reads[n_reads - 1].end = x.end;
						continue;
					}
					if (n_reads == cap_reads) {
						size_t cap = cap_reads ? cap_reads * 2 : 64;
						var_range *grown = realloc(reads, cap * sizeof(*grown));
						if (!grown) {
							free(reads);
							free(writes);
							return TSI_ERR_NO_MEMORY;
						}
						reads = grown;
						cap_reads = cap;
					}
					reads[n_reads++] = x;
				}
			}
		}
	}
	if (n_reads)
		qsort(reads, n_reads, sizeof(*reads), cmp_range);
	/* Merge the reads into disjoint ranges, sorted by (var, begin) and so
	 * also by (var, end). */
	size_t n_merged = 0;
	for (size_t i = 0; i < n_reads; i++) {
		if (n_merged && reads[n_merged - 1].var == reads[i].var &&
		    reads[i].begin <= reads[n_merged - 1].end) {
			if (reads[i].end > reads[n_merged - 1].end)
				reads[n_merged - 1].end = reads[i].end;
		} else {
			reads[n_merged++] = reads[i];
		}
	}
	for (size_t i = 0; i < n_writes; i++) {
		const var_range *w = &writes[i];
		bool ok = w->end > w->begin;
		/* Another output overlapping this one (sorted: the neighbours). */
		if (i > 0 && writes[i - 1].var == w->var && writes[i - 1].end > w->begin)
			ok = false;
		if (i + 1 < n_writes && writes[i + 1].var == w->var && writes[i + 1].begin < w->end)
			ok = false;
		/* The first merged read ending after w begins must start at or
		 * after w's end. */
		size_t lo = 0, hi = n_merged;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const var_range *r = &reads[mid];
			if (r->var < w->var || (r->var == w->var && r->end <= w->begin))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n_merged && reads[lo].var == w->var && reads[lo].begin < w->end)
			ok = false;
		in_place[w->field] = ok;
	}
	free(reads);
	free(writes);
	return TSI_OK;
}

/* True when the tensors of a list field are one contiguous run of one
 * variable, each sub-vector starting where the one before ended (and
 * none empty), so the field can point into the variable. */
static bool contiguous_list(const tsi_field_conn *c)
{
	if (c->n == 0)
		return false;
	for (size_t k = 0; k < c->n; k++) {
		const tsi_tensor *t = c->tensors[k];
		if (t->n_regions != 1 || t->regions[0].len == 0)
			return false;
		if (k > 0) {
			const tsi_region *prev = &c->tensors[k - 1]->regions[0];
			if (t->regions[0].var != prev->var || t->type != c->tensors[k - 1]->type ||
			    t->regions[0].begin != prev->begin + prev->len)
				return false;
		}
	}
	return true;
}

/* One entry of the table of gathered input fields: the connection and
 * the plan field that gathered it. */
typedef struct shared_slot {
	const tsi_field_conn *conn; /* NULL: empty slot */
	uint64_t hash;
	size_t field;
} shared_slot;

/* A hash of what a connection reads: every region of every sub-vector
 * and where the sub-vectors start (FNV-1a over the words). */
static uint64_t conn_hash(const tsi_field_conn *c)
{
	uint64_t h = 0xcbf29ce484222325u;

#define MIX(v) (h = (h ^ (uint64_t)(v)) * 0x100000001b3u)
	MIX(c->n);
	for (size_t k = 0; k < c->n; k++) {
		const tsi_tensor *t = c->tensors[k];
		MIX(t->type);
		MIX(t->n_regions);
		for (size_t r = 0; r < t->n_regions; r++) {
			MIX(t->regions[r].var);
			MIX(t->regions[r].begin);
			MIX(t->regions[r].len);
		}
	}
#undef MIX
	return h;
}

/* True when two connections read the same elements in the same order,
 * cut into the same sub-vectors. */
static bool conn_same(const tsi_field_conn *a, const tsi_field_conn *b)
{
	if (a->n != b->n)
		return false;
	for (size_t k = 0; k < a->n; k++) {
		const tsi_tensor *x = a->tensors[k], *y = b->tensors[k];
		if (x == y)
			continue;
		if (x->type != y->type || x->n_regions != y->n_regions)
			return false;
		for (size_t r = 0; r < x->n_regions; r++)
			if (x->regions[r].var != y->regions[r].var ||
			    x->regions[r].begin != y->regions[r].begin ||
			    x->regions[r].len != y->regions[r].len)
				return false;
	}
	return true;
}

/* The field that first gathered what `c` reads into scratch, found in or
 * added to the table (`mask` + 1 slots, a power of two larger than the
 * fields): `field` itself when it is the first. */
static size_t shared_lookup(shared_slot *table, size_t mask, const tsi_field_conn *c, size_t field)
{
	uint64_t h = conn_hash(c);

	for (size_t i = (size_t)(h >> 17) & mask;; i = (i + 1) & mask) {
		if (!table[i].conn) {
			table[i] = (shared_slot){c, h, field};
			return field;
		}
		if (table[i].hash == h && conn_same(table[i].conn, c))
			return table[i].field;
	}
}

/* Frees one compute set's cached layout. */
void tsi_engine_plan_free(cs_plan *p)
{
	if (!p)
		return;
	free(p->vertices);
	free(p->calls);
	free(p->fields);
	free(p->field_off);
	free(p->offsets);
	free(p->in);
	free(p->out);
	free(p->direct);
	free(p->zero);
	free(p);
}

/* Gives back what the move lists were sized for but did not use: they
 * are allocated for one move per region (and the in-place list for one
 * per field), and merging strided runs leaves large compute sets a
 * fraction of that. A plan lives as long as the engine, so the slack
 * would too: 1.4 GB of bert_synth --size large's plans. */
static void shrink_plan(cs_plan *p)
{
	xfer *x;
	direct_field *d;

	if ((x = realloc(p->in, (p->n_in + 1) * sizeof(*x))))
		p->in = x;
	if ((x = realloc(p->out, (p->n_out + 1) * sizeof(*x))))
		p->out = x;
	if ((x = realloc(p->zero, (p->n_zero + 1) * sizeof(*x))))
		p->zero = x;
	if ((d = realloc(p->direct, (p->n_direct + 1) * sizeof(*d))))
		p->direct = d;
}

/*
 * Works out the scratch layout of compute set `cs`: where each field of
 * each vertex lives in the arena, its sub-vector offsets, and the moves
 * that fill the arena before the vertices run and empty it after. Only
 * vertices that existed at compile time take part (they were checked).
 */
static int plan_build(tsi_engine *e, tsi_compute_set *cs, cs_plan **out)
{
	cs_plan *p = calloc(1, sizeof(*p));
	size_t n_offsets = 0, n_regions = 0, n_zero = 0, pos = 0;
	size_t fi = 0, oi = 0;
	bool *in_place = NULL;    /* per field: an output written in place */
	shared_slot *shared = NULL; /* input views gathered so far (open addressing) */
	size_t shared_mask = 15;
	int rc = TSI_ERR_NO_MEMORY; /* until something else goes wrong */

	*out = NULL;
	if (!p || !(p->vertices = malloc((cs->vertices.len + 1) * sizeof(*p->vertices))) ||
	    !(p->calls = malloc((cs->vertices.len + 1) * sizeof(*p->calls))))
		goto fail;

	/* Pass 1: count, and check what compilation promised. */
	for (size_t i = 0; i < cs->vertices.len; i++) {
		tsi_vertex *v = cs->vertices.items[i];
		if (v->id >= e->compiled->n_vertices)
			continue; /* added after compilation: not part of this engine */
		if (!v->codelet) {
			rc = tsi_engine_fail(e, TSI_ERR_UNKNOWN_VERTEX_TYPE,
			                     "vertex %u of compute set '%s' has unknown type '%s'", v->id,
			                     cs->name, v->type_name);
			goto fail;
		}
		p->calls[p->n_vertices] = (vertex_call){v->codelet->compute, v->codelet->n_fields};
		p->vertices[p->n_vertices++] = v;
		p->n_fields += v->codelet->n_fields;
		for (size_t f = 0; f < v->codelet->n_fields; f++) {
			const tsi_field_conn *c = &v->fields[f];
			bool list = v->codelet->fields[f].shape == TSI_FIELD_VECTOR_LIST;
			n_offsets += (list ? c->n : 1) + 1;
			if (v->codelet->fields[f].dir == TSI_FIELD_OUTPUT)
				n_zero++;
			for (size_t k = 0; k < c->n; k++) {
				n_regions += c->tensors[k]->n_regions;
				for (size_t r = 0; r < c->tensors[k]->n_regions; r++)
					if (c->tensors[k]->regions[r].var >= e->n_vars) {
						rc = tsi_engine_fail(e, TSI_ERR_INVALID_GRAPH,
						                     "vertex %u (type '%s') of compute set '%s' is "
						                     "connected to a variable created after the "
						                     "engine was compiled",
						                     v->id, v->type_name, cs->name);
						goto fail;
					}
			}
		}
	}
	p->fields = calloc(p->n_fields + 1, sizeof(*p->fields));
	p->field_off = calloc(p->n_fields + 1, sizeof(*p->field_off));
	p->offsets = calloc(n_offsets + 1, sizeof(*p->offsets));
	p->in = calloc(n_regions + n_zero + 1, sizeof(*p->in));
	p->out = calloc(n_regions + 1, sizeof(*p->out));
	p->direct = calloc(p->n_fields + 1, sizeof(*p->direct));
	p->zero = calloc(n_zero + 1, sizeof(*p->zero));
	in_place = calloc(p->n_fields + 1, sizeof(*in_place));
	while (shared_mask + 1 < 2 * p->n_fields)
		shared_mask = shared_mask * 2 + 1;
	shared = calloc(shared_mask + 1, sizeof(*shared));
	if (!p->fields || !p->field_off || !p->offsets || !p->in || !p->out || !p->direct ||
	    !p->zero || !in_place || !shared || mark_in_place_outputs(p, in_place) != TSI_OK)
		goto fail;

	/* Pass 2: lay the fields out and list the moves. */
	for (size_t i = 0; i < p->n_vertices; i++) {
		const tsi_vertex *v = p->vertices[i];
		for (size_t f = 0; f < v->codelet->n_fields; f++, fi++) {
			const tsi_field_def *def = &v->codelet->fields[f];
			const tsi_field_conn *c = &v->fields[f];
			bool list = def->shape == TSI_FIELD_VECTOR_LIST;
			tsi_field *field = &p->fields[fi];
			size_t *offs = &p->offsets[oi];
			size_t count = 0, field_start;

			offs[0] = 0;
			/* Fields used in variable memory directly, no scratch copy:
			 * an input that is one contiguous region (nothing writes
			 * variable memory while the vertices run except in-place
			 * fields, which nobody else reads: BSP semantics hold; this is
			 * most of the data a compute set moves), and the outputs and
			 * in-outs mark_in_place_outputs chose. An output is
			 * zero-filled first, as a scratch output is. */
			bool direct_input = def->dir == TSI_FIELD_INPUT && !list && c->n == 1 &&
			                    c->tensors[0]->n_regions == 1;
			if (def->dir == TSI_FIELD_INPUT && list && contiguous_list(c)) {
				/* A list whose sub-vectors lie back to back in one
				 * variable (the rows of a matrix): read in place too. */
				const tsi_tensor *t0 = c->tensors[0];
				size_t size = tsi_type_size(t0->type);
				p->direct[p->n_direct++] = (direct_field){
				    fi, t0->regions[0].var, t0->regions[0].begin * size};
				for (size_t k = 0; k < c->n; k++) {
					count += c->tensors[k]->numel;
					offs[k + 1] = count;
				}
				field->count = count;
				field->n_vectors = c->n;
				field->offsets = offs;
				p->field_off[fi] = 0;
				oi += c->n + 1;
				continue;
			}
			if (def->dir == TSI_FIELD_INPUT && !direct_input && c->n > 0) {
				/* Elements another input field of the set reads just
				 * the same (the weights block a matmul's workers share,
				 * the rows of A each of them multiplies): read the copy
				 * already gathered. */
				size_t first = shared_lookup(shared, shared_mask, c, fi);
				if (first != fi) {
					*field = p->fields[first];
					p->field_off[fi] = p->field_off[first];
					continue;
				}
			}
			if (direct_input || in_place[fi]) {
				const tsi_tensor *t = c->tensors[0];
				size_t size = tsi_type_size(t->type);
				p->direct[p->n_direct++] = (direct_field){
				    fi, t->regions[0].var, t->regions[0].begin * size};
				if (def->dir == TSI_FIELD_OUTPUT)
					p->zero[p->n_zero++] = (xfer){t->regions[0].var,
					                              t->regions[0].begin * size, 0,
					                              t->regions[0].len * size, 1, 0, 1, 0};
				offs[1] = t->numel;
				field->count = t->numel;
				field->n_vectors = 1;
				field->offsets = offs;
				p->field_off[fi] = 0;
				oi += 2;
				continue;
			}
			pos = (pos + FIELD_ALIGN - 1) & ~(size_t)(FIELD_ALIGN - 1);
			field_start = pos;
			for (size_t k = 0; k < c->n; k++) {
				const tsi_tensor *t = c->tensors[k];
				size_t size = tsi_type_size(t->type);
				for (size_t r = 0; r < t->n_regions; r++) {
					const tsi_region *reg = &t->regions[r];
					size_t bytes = reg->len * size;
					if (def->dir != TSI_FIELD_OUTPUT)
						xfer_append(p->in, &p->n_in, reg->var, reg->begin * size, pos, bytes);
					if (def->dir != TSI_FIELD_INPUT)
						xfer_append(p->out, &p->n_out, reg->var, reg->begin * size, pos,
						            bytes);
					pos += bytes;
				}
				count += t->numel;
				if (list)
					offs[k + 1] = count;
			}
			if (!list)
				offs[1] = count;
			if (def->dir == TSI_FIELD_OUTPUT && pos > field_start)
				xfer_append(p->in, &p->n_in, ZERO_VAR, 0, field_start, pos - field_start);
			field->count = count;
			field->n_vectors = list ? c->n : 1;
			field->offsets = offs;
			p->field_off[fi] = field_start;
			oi += field->n_vectors + 1;
		}
	}
	p->n_in = merge_rows(p->in, p->n_in);
	p->scratch_bytes = pos;
	free(in_place);
	free(shared);
	shrink_plan(p);
	*out = p;
	return TSI_OK;
fail:
	free(in_place);
	free(shared);
	if (rc == TSI_ERR_NO_MEMORY)
		tsi_engine_fail(e, rc, "out of host memory laying out compute set '%s'", cs->name);
	tsi_engine_plan_free(p);
	return rc;
}

/* Returns the cached plan of `cs` with its field pointers aimed at the
 * current scratch arena, building the plan and growing the arena first
 * when needed. */
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
		rc = plan_build(e, cs, &p);
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
	if (p->bound != e->scratch) {
		for (size_t i = 0; i < p->n_fields; i++)
			p->fields[i].data = e->scratch + p->field_off[i];
		p->bound = e->scratch;
	}
	*out = p;
	return TSI_OK;
}

/*
 * Runs compute set `cs` on every replica of `m` as one BSP superstep:
 * gather every field, run every vertex, then write outputs back.
 */
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
static void gather_rows(unsigned char *dst, const unsigned char *src, const xfer *x)
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

int tsi_engine_run_compute_set(tsi_engine *e, tsi_compute_set *cs, const rmask *m)
{
	cs_plan *p = NULL;
	int rc = plan_get(e, cs, &p);

	if (rc)
		return rc;
	if (tsi_log_enabled(TSI_LOG_DEBUG))
		tsi_log(TSI_LOG_DEBUG, "ENGINE", "Executing compute set '%s' (%zu vertices)", cs->name,
		        p->n_vertices);
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r))
			continue;
		for (size_t i = 0; i < p->n_direct; i++) {
			const direct_field *d = &p->direct[i];
			p->fields[d->field].data = var_base(e, d->var, r) + d->var_off;
		}
		for (size_t i = 0; i < p->n_zero; i++) {
			const xfer *x = &p->zero[i];
			memset(var_base(e, x->var, r) + x->var_off, 0, x->bytes);
		}
		for (size_t i = 0; i < p->n_in; i++) {
			const xfer *x = &p->in[i];
			if (x->var == ZERO_VAR) {
				memset(e->scratch + x->scratch_off, 0, x->bytes);
				continue;
			}
			unsigned char *dst = e->scratch + x->scratch_off;
			const unsigned char *src = var_base(e, x->var, r) + x->var_off;
			if (x->rows > 1) {
				gather_rows(dst, src, x);
				continue;
			}
			for (size_t k = 0; k < x->count; k++, dst += x->bytes, src += x->stride)
				copy_bytes(dst, src, x->bytes);
		}
		const tsi_field *f = p->fields;
		for (size_t i = 0; i < p->n_vertices; i++) {
			const vertex_call *call = &p->calls[i];
			if (!call->compute(f, call->n_fields)) {
				const tsi_vertex *v = p->vertices[i];
				if (e->replicas > 1)
					return tsi_engine_fail(e, TSI_ERR_VERTEX_FAILED,
					                       "vertex %u (type '%s') in compute set '%s' failed on "
					                       "replica %u: its compute function returned false",
					                       v->id, v->type_name, cs->name, r);
				return tsi_engine_fail(e, TSI_ERR_VERTEX_FAILED,
				                       "vertex %u (type '%s') in compute set '%s' failed: its "
				                       "compute function returned false",
				                       v->id, v->type_name, cs->name);
			}
			f += call->n_fields;
		}
		for (size_t i = 0; i < p->n_out; i++) {
			const xfer *x = &p->out[i];
			unsigned char *dst = var_base(e, x->var, r) + x->var_off;
			const unsigned char *src = e->scratch + x->scratch_off;
			for (size_t k = 0; k < x->count; k++, dst += x->stride, src += x->bytes)
				copy_bytes(dst, src, x->bytes);
		}
	}
	return TSI_OK;
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
 * several times slower than the next). Returns TSI_OK or an out-of-memory
 * failure (recorded).
 */
int tsi_engine_prepare_plans(tsi_engine *e)
{
	const tsi_vec *sets = &e->compiled->compute_sets;

	for (size_t i = 0; i < sets->len; i++) {
		tsi_compute_set *cs = sets->items[i];
		cs_plan *p;
		int rc;

		if (cs->id >= e->n_plans || e->plans[cs->id] || plan_would_fail(e, cs))
			continue;
		rc = plan_build(e, cs, &p);
		if (rc)
			return rc;
		e->plans[cs->id] = p;
	}
	return TSI_OK;
}
