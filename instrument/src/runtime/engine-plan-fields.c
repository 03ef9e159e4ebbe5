/*
 * Which fields of a compute set need no copy of their own in the scratch
 * arena (engine-plan-private.h): outputs that can be written in variable
 * memory without breaking the BSP rule, lists of sub-vectors lying back to
 * back in one variable, and inputs that read just what an earlier input
 * field of the set reads (the table of gathered connections). engine-plan.c
 * asks these questions while it lays a compute set out.
 */
#include "engine-plan-private.h"

#include <stdlib.h>

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
int tsi_engine_plan_mark_in_place(const tsi_vertex *const *vertices, size_t n_vertices,
                                  bool *in_place)
{
	size_t n_reads = 0, cap_reads = 0, n_writes = 0, fi = 0;
	var_range *reads = NULL, *writes = NULL;

	/* The candidates first: one contiguous region, written. */
	for (size_t pass = 0; pass < 2; pass++) {
		fi = 0;
		n_writes = 0;
		for (size_t i = 0; i < n_vertices; i++) {
			const tsi_vertex *v = vertices[i];
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
	for (size_t i = 0; i < n_vertices; i++) {
		const tsi_vertex *v = vertices[i];
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

bool tsi_engine_plan_contiguous_list(const tsi_field_conn *c)
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

size_t tsi_engine_plan_shared_lookup(plan_shared_slot *table, size_t mask, const tsi_field_conn *c,
                                     size_t field)
{
	uint64_t h = conn_hash(c);

	for (size_t i = (size_t)(h >> 17) & mask;; i = (i + 1) & mask) {
		if (!table[i].conn) {
			table[i] = (plan_shared_slot){c, h, field};
			return field;
		}
		if (table[i].hash == h && conn_same(table[i].conn, c))
			return table[i].field;
	}
}

