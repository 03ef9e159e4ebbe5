/*
 * popops reductions (popops::reduce): the Reduce and ScaledReduce codelets
 * and the multi-stage plan that real popops builds.
 *
 * The input is seen as a matrix of K reduced elements by M outputs. Each
 * tile reduces what it holds of each output's inputs; when every output's
 * inputs live on a single tile that is the whole job (one compute set
 * "<name>/ReduceFinalStage", the output mapped where its inputs are).
 * Otherwise the first stage ("<name>/ReduceFirstStage") writes partial
 * results into a variable "<name>/partials" on the tiles that computed
 * them, the output is mapped linearly over the tiles (grain 8 elements),
 * and the final stage ("<name>/ReduceFinalStage") on the tile owning each
 * output combines its partials, which the exchange brings there.
 *
 * A reduce vertex gets a list of regions: out[r] is W contiguous outputs
 * and partials[r] holds a multiple of W inputs, row after row ([R, W],
 * row-major); out[j] = OP over the rows of partials[r][row * W + j]. The
 * planner picks the view of the input (reduced dimensions first or
 * last) whose elements are the more contiguous in memory, so a tile
 * holding whole rows of a row-major [K, M] matrix reads one run, and a
 * tile holding rows of an [M, K] matrix reduces each row as one run.
 *
 * Work split: a tile's regions are cut, by columns (and in the first
 * stage of two also by rows) into pieces of about total / k input
 * elements, k = max(1, min(6, total / 64)), and grouped into at most k
 * worker vertices, so big tiles keep all six workers busy.
 *
 * Types: float and half inputs are reduced in float (partials are float),
 * int inputs in int and unsigned int inputs in unsigned int (both
 * wrapping modulo 2^32, max and min comparing as the input's type); the
 * final stage converts to the output type as tsi_type_store would (round
 * to nearest even into half, from float integers truncate and saturate),
 * except that an unscaled int result stored as unsigned int or the other
 * way keeps its 32 bits, as a C conversion does.
 */
#include "ops-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROP_ADD TSI_POPOPS_REDUCE_ADD
#define ROP_MUL TSI_POPOPS_REDUCE_MUL
#define ROP_MAX TSI_POPOPS_REDUCE_MAX
#define ROP_MIN TSI_POPOPS_REDUCE_MIN
#define ROP_SQUARE_ADD TSI_POPOPS_REDUCE_SQUARE_ADD
#define ROP_COUNT TSI_POPOPS_REDUCE_OP_COUNT

/* Element types of inputs, partials and outputs: the shared table order
 * (ops-private.h), tsi_ops_elem_index giving a type's index. */
#define RT_FLOAT TSI_OPS_FLOAT
#define RT_HALF TSI_OPS_HALF
#define RT_INT TSI_OPS_INT
#define RT_UINT TSI_OPS_UINT
#define RT_COUNT TSI_OPS_ELEM_COUNT

/* Columns a vertex accumulates at once (a stack array of this many). */
#define CHUNK 64

/* --- Device code ----------------------------------------------------------------- */

/* acc[i] = acc[i] OP x[i] where acc and x have one type and C's own
 * arithmetic and comparisons are the device's (float, unsigned int). */
#define ACC_SAME_TYPE(op, acc, x, n)                                                      \
	do {                                                                                  \
		switch (op) {                                                                     \
		case ROP_ADD:                                                                     \
			for (size_t i = 0; i < (n); i++)                                              \
				(acc)[i] += (x)[i];                                                       \
			break;                                                                        \
		case ROP_SQUARE_ADD:                                                              \
			for (size_t i = 0; i < (n); i++)                                              \
				(acc)[i] += (x)[i] * (x)[i];                                              \
			break;                                                                        \
		case ROP_MUL:                                                                     \
			for (size_t i = 0; i < (n); i++)                                              \
				(acc)[i] *= (x)[i];                                                       \
			break;                                                                        \
		case ROP_MAX:                                                                     \
			for (size_t i = 0; i < (n); i++)                                              \
				(acc)[i] = (x)[i] > (acc)[i] ? (x)[i] : (acc)[i];                         \
			break;                                                                        \
		case ROP_MIN:                                                                     \
			for (size_t i = 0; i < (n); i++)                                              \
				(acc)[i] = (x)[i] < (acc)[i] ? (x)[i] : (acc)[i];                         \
			break;                                                                        \
		default:                                                                          \
			break;                                                                        \
		}                                                                                 \
	} while (0)

/* acc[i] = acc[i] OP x[i] for floats (SQUARE_ADD adds x[i] squared). Max
 * and min keep the accumulator when x is NaN. */
TSI_OPS_ALWAYS_INLINE void acc_float(tsi_popops_reduce_op op, float *acc, const float *x, size_t n)
{
	ACC_SAME_TYPE(op, acc, x, n);
}

/* The same for halves, widened to float one element at a time. */
TSI_OPS_ALWAYS_INLINE void acc_half(tsi_popops_reduce_op op, float *acc, const uint16_t *h,
                                    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		float x = tsi_half_to_float(h[i]);

		acc_float(op, &acc[i], &x, 1);
	}
}

/* The same for ints, wrapping modulo 2^32. */
TSI_OPS_ALWAYS_INLINE void acc_int(tsi_popops_reduce_op op, uint32_t *acc, const int32_t *x,
                                   size_t n)
{
	switch (op) {
	case ROP_ADD:
		for (size_t i = 0; i < n; i++)
			acc[i] += (uint32_t)x[i];
		break;
	case ROP_SQUARE_ADD:
		for (size_t i = 0; i < n; i++)
			acc[i] += (uint32_t)x[i] * (uint32_t)x[i];
		break;
	case ROP_MUL:
		for (size_t i = 0; i < n; i++)
			acc[i] *= (uint32_t)x[i];
		break;
	case ROP_MAX:
		for (size_t i = 0; i < n; i++)
			acc[i] = x[i] > (int32_t)acc[i] ? (uint32_t)x[i] : acc[i];
		break;
	case ROP_MIN:
		for (size_t i = 0; i < n; i++)
			acc[i] = x[i] < (int32_t)acc[i] ? (uint32_t)x[i] : acc[i];
		break;
	default:
		break;
	}
}

/* The same for unsigned ints: C's unsigned arithmetic and comparisons. */
TSI_OPS_ALWAYS_INLINE void acc_uint(tsi_popops_reduce_op op, uint32_t *acc, const uint32_t *x,
                                    size_t n)
{
	ACC_SAME_TYPE(op, acc, x, n);
}
#undef ACC_SAME_TYPE

/* The start value of an accumulator: the identity of `op`. */
TSI_OPS_ALWAYS_INLINE float identity_float(tsi_popops_reduce_op op)
{
	return op == ROP_MUL ? 1.0f : op == ROP_MAX ? -INFINITY : op == ROP_MIN ? INFINITY : 0.0f;
}

TSI_OPS_ALWAYS_INLINE uint32_t identity_int(tsi_popops_reduce_op op)
{
	return op == ROP_MUL   ? 1u
	       : op == ROP_MAX ? (uint32_t)INT32_MIN
	       : op == ROP_MIN ? (uint32_t)INT32_MAX
	                       : 0u;
}

TSI_OPS_ALWAYS_INLINE uint32_t identity_uint(tsi_popops_reduce_op op)
{
	return op == ROP_MUL ? 1u : op == ROP_MIN ? UINT32_MAX : 0u;
}

/* double to uint32 as tsi_type_store converts: truncate, saturate, NaN 0. */
TSI_OPS_ALWAYS_INLINE uint32_t to_uint32(double v)
{
	if (v != v || v <= 0.0)
		return 0;
	if (v >= (double)UINT32_MAX)
		return UINT32_MAX;
	return (uint32_t)v;
}

/* double to int32 as tsi_type_store converts: truncate, saturate, NaN 0. */
TSI_OPS_ALWAYS_INLINE int32_t to_int32(double v)
{
	if (v != v)
		return 0;
	if (v <= (double)INT32_MIN)
		return INT32_MIN;
	if (v >= (double)INT32_MAX)
		return INT32_MAX;
	return (int32_t)v;
}

/* Writes n results from a float accumulator into `out` of type dt. */
TSI_OPS_ALWAYS_INLINE void store_float(enum tsi_ops_elem dt, void *out, const float *acc, size_t n,
                                       bool scaled, float k)
{
	for (size_t i = 0; i < n; i++) {
		float v = scaled ? acc[i] * k : acc[i];

		if (dt == RT_FLOAT)
			((float *)out)[i] = v;
		else if (dt == RT_HALF)
			((uint16_t *)out)[i] = tsi_half_from_float(v);
		else if (dt == RT_UINT)
			((uint32_t *)out)[i] = to_uint32(v);
		else
			((int32_t *)out)[i] = to_int32(v);
	}
}

/* Writes n results from an int (st RT_INT) or unsigned int (RT_UINT)
 * accumulator into `out` of type dt. Unscaled integer results keep their
 * 32 bits whichever of the two integer types they go to. */
TSI_OPS_ALWAYS_INLINE void store_int(enum tsi_ops_elem st, enum tsi_ops_elem dt, void *out,
                                     const uint32_t *acc, size_t n, bool scaled, float k)
{
	for (size_t i = 0; i < n; i++) {
		double v = st == RT_UINT ? (double)acc[i] : (double)(int32_t)acc[i];

		if (scaled)
			v *= k;
		if (dt == RT_FLOAT)
			((float *)out)[i] = (float)v;
		else if (dt == RT_HALF)
			((uint16_t *)out)[i] = tsi_half_from_float((float)v);
		else if (dt == RT_UINT)
			((uint32_t *)out)[i] = scaled ? to_uint32(v) : acc[i];
		else
			((int32_t *)out)[i] = scaled ? to_int32(v) : (int32_t)acc[i];
	}
}

/* Element size of each table type. */
static const size_t rt_size[RT_COUNT] = {4, 2, 4, 4};

/*
 * Reduces region r: `w` outputs at `out` from `rows` rows of `w` inputs
 * at `in`, CHUNK columns at a time so the accumulators stay in a small
 * array; a single column (a whole run reduced to one value) is one loop
 * over the run.
 */
TSI_OPS_ALWAYS_INLINE void reduce_region(tsi_popops_reduce_op op, enum tsi_ops_elem st,
                                         enum tsi_ops_elem dt, bool scaled, float k, void *out,
                                         const void *in, size_t w, size_t rows)
{
	const unsigned char *src = in;
	unsigned char *dst = out;

	for (size_t c0 = 0; c0 < w; c0 += CHUNK) {
		size_t cw = w - c0 < CHUNK ? w - c0 : CHUNK;
		size_t step = w * rt_size[st];
		const unsigned char *p = src + c0 * rt_size[st];

		if (st == RT_INT) {
			uint32_t acc[CHUNK];

			for (size_t i = 0; i < cw; i++)
				acc[i] = identity_int(op);
			if (cw == 1) {
				const int32_t *x = (const int32_t *)p;

				for (size_t r = 0; r < rows; r++)
					acc_int(op, acc, &x[r], 1);
			} else {
				for (size_t r = 0; r < rows; r++, p += step)
					acc_int(op, acc, (const int32_t *)p, cw);
			}
			store_int(st, dt, dst + c0 * rt_size[dt], acc, cw, scaled, k);
		} else if (st == RT_UINT) {
			uint32_t acc[CHUNK];

			for (size_t i = 0; i < cw; i++)
				acc[i] = identity_uint(op);
			if (cw == 1) {
				const uint32_t *x = (const uint32_t *)p;

				for (size_t r = 0; r < rows; r++)
					acc_uint(op, acc, &x[r], 1);
			} else {
				for (size_t r = 0; r < rows; r++, p += step)
					acc_uint(op, acc, (const uint32_t *)p, cw);
			}
			store_int(st, dt, dst + c0 * rt_size[dt], acc, cw, scaled, k);
		} else {
			float acc[CHUNK];

			for (size_t i = 0; i < cw; i++)
				acc[i] = identity_float(op);
			if (w == 1 && st == RT_FLOAT) {
				const float *x = (const float *)p;
				float a = acc[0];

				for (size_t r = 0; r < rows; r++)
					acc_float(op, &a, &x[r], 1);
				acc[0] = a;
			} else if (st == RT_FLOAT) {
				for (size_t r = 0; r < rows; r++, p += step)
					acc_float(op, acc, (const float *)p, cw);
			} else {
				for (size_t r = 0; r < rows; r++, p += step)
					acc_half(op, acc, (const uint16_t *)p, cw);
			}
			store_float(dt, dst + c0 * rt_size[dt], acc, cw, scaled, k);
		}
	}
}

/*
 * The compute function of every Reduce and ScaledReduce vertex: fields
 * out (one sub-vector per region), partials (the same number of
 * sub-vectors, each a multiple of its output's length) and, scaled, k.
 */
TSI_OPS_ALWAYS_INLINE bool reduce_run(const tsi_field *f, size_t n_fields, tsi_popops_reduce_op op,
                                      enum tsi_ops_elem st, enum tsi_ops_elem dt, bool scaled)
{
	const tsi_field *out = &f[0];
	const tsi_field *in = &f[1];
	float k = 1.0f;

	if (n_fields != (scaled ? 3u : 2u) || out->n_vectors != in->n_vectors)
		return false;
	if (scaled) {
		if (f[2].count != 1)
			return false;
		k = *(const float *)f[2].data;
	}
	for (size_t r = 0; r < out->n_vectors; r++) {
		size_t w = out->offsets[r + 1] - out->offsets[r];
		size_t p = in->offsets[r + 1] - in->offsets[r];

		if (w == 0 ? p != 0 : p % w != 0)
			return false;
		if (w == 0)
			continue;
		reduce_region(op, st, dt, scaled, k,
		              (unsigned char *)out->data + out->offsets[r] * rt_size[dt],
		              (const unsigned char *)in->data + in->offsets[r] * rt_size[st], w, p / w);
	}
	return true;
}

/*
 * Worker cycles of a reduce vertex (an assumption): 20 fixed; per region
 * 10 cycles to load its pointers and sizes, 2 per row of a region wider
 * than one column (a new row pointer and the loop), one cycle per 64-bit
 * load of inputs accumulated (2 floats, 4 halves, 1 int or unsigned
 * int), and one cycle
 * per pair of outputs stored (plus one more with a scale to apply).
 */
static uint64_t reduce_cycles(const tsi_field *f, size_t n_fields, enum tsi_ops_elem st,
                              bool scaled)
{
	static const unsigned per[RT_COUNT] = {2, 4, 1, 1};
	uint64_t cycles = 20;

	if (n_fields < 2)
		return cycles;
	for (size_t r = 0; r < f[0].n_vectors && r < f[1].n_vectors; r++) {
		size_t w = f[0].offsets[r + 1] - f[0].offsets[r];
		size_t p = f[1].offsets[r + 1] - f[1].offsets[r];

		cycles += 10 + (w > 1 ? 2 * (uint64_t)(p / w) : 0) + (p + per[st] - 1) / per[st];
		cycles += (uint64_t)(scaled ? 2 : 1) * ((w + 1) / 2);
	}
	return cycles;
}

/* One floating-point operation per input element, plus one per output
 * for the scale (float and half inputs only). */
static uint64_t reduce_flops_cb(const tsi_field *f, size_t n_fields)
{
	return n_fields >= 2 ? f[1].count : 0;
}

static uint64_t scaled_reduce_flops_cb(const tsi_field *f, size_t n_fields)
{
	return n_fields >= 2 ? (uint64_t)f[1].count + f[0].count : 0;
}

#define REDUCE_CYCLES(S)                                                                  \
	static uint64_t red_##S##_cycles(const tsi_field *f, size_t n, const tsi_target *t)   \
	{                                                                                     \
		return reduce_cycles(f, n, RT_##S, false);                                        \
	}                                                                                     \
	static uint64_t sred_##S##_cycles(const tsi_field *f, size_t n, const tsi_target *t)  \
	{                                                                                     \
		return reduce_cycles(f, n, RT_##S, true);                                         \
	}
REDUCE_CYCLES(FLOAT)
REDUCE_CYCLES(HALF)
REDUCE_CYCLES(INT)
REDUCE_CYCLES(UINT)
#undef REDUCE_CYCLES

/* One compute function per (operation, input, output, scaled). */
#define REDUCE_CALLBACKS(OPN, S, D)                                                       \
	static bool red_##OPN##_##S##_##D(const tsi_field *f, size_t n)                       \
	{                                                                                     \
		return reduce_run(f, n, TSI_POPOPS_REDUCE_##OPN, RT_##S, RT_##D, false);          \
	}                                                                                     \
	static bool sred_##OPN##_##S##_##D(const tsi_field *f, size_t n)                      \
	{                                                                                     \
		return reduce_run(f, n, TSI_POPOPS_REDUCE_##OPN, RT_##S, RT_##D, true);           \
	}
#define REDUCE_CALLBACKS_D(OPN, S)                                                        \
	REDUCE_CALLBACKS(OPN, S, FLOAT) REDUCE_CALLBACKS(OPN, S, HALF)                        \
	REDUCE_CALLBACKS(OPN, S, INT) REDUCE_CALLBACKS(OPN, S, UINT)
#define REDUCE_CALLBACKS_S(OPN)                                                           \
	REDUCE_CALLBACKS_D(OPN, FLOAT) REDUCE_CALLBACKS_D(OPN, HALF)                          \
	REDUCE_CALLBACKS_D(OPN, INT) REDUCE_CALLBACKS_D(OPN, UINT)
REDUCE_CALLBACKS_S(ADD)
REDUCE_CALLBACKS_S(MUL)
REDUCE_CALLBACKS_S(MAX)
REDUCE_CALLBACKS_S(MIN)
REDUCE_CALLBACKS_S(SQUARE_ADD)
#undef REDUCE_CALLBACKS_S
#undef REDUCE_CALLBACKS_D
#undef REDUCE_CALLBACKS

#define REDUCE_FIELDS(S, D)                                                               \
	{{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR_LIST, D, 0},                               \
	 {"partials", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, S, 0},                           \
	 {"k", TSI_FIELD_INPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0}}
#define REDUCE_FIELDS_D(S)                                                                \
	{REDUCE_FIELDS(S, TSI_FLOAT), REDUCE_FIELDS(S, TSI_HALF), REDUCE_FIELDS(S, TSI_INT),     \
	 REDUCE_FIELDS(S, TSI_UNSIGNED_INT)}
static const tsi_field_def reduce_fields[RT_COUNT][RT_COUNT][3] = {
	REDUCE_FIELDS_D(TSI_FLOAT),
	REDUCE_FIELDS_D(TSI_HALF),
	REDUCE_FIELDS_D(TSI_INT),
	REDUCE_FIELDS_D(TSI_UNSIGNED_INT),
};
#undef REDUCE_FIELDS_D
#undef REDUCE_FIELDS

/* Poplar's names of the operations and types. */
#define RN_ADD "ReduceAdd"
#define RN_MUL "ReduceMul"
#define RN_MAX "ReduceMax"
#define RN_MIN "ReduceMin"
#define RN_SQUARE_ADD "ReduceSquareAdd"
#define RTN_FLOAT "float"
#define RTN_HALF "half"
#define RTN_INT "int"
#define RTN_UINT "unsigned int"
#define FLOPS_FLOAT(cb) cb
#define FLOPS_HALF(cb) cb
#define FLOPS_INT(cb) NULL
#define FLOPS_UINT(cb) NULL

/*
 * Vertex state: the out and partials vector lists (a descriptor pointer
 * and a count each, 16 bytes) and, scaled, a pointer to k (20). Code: an
 * accumulation loop per width class with set-up, about 640 bytes, 704
 * with the scale.
 */
#define REDUCE_CODELET(OPN, S, D)                                                         \
	[RT_##D] = {                                                                          \
	    {"popops::Reduce<popops::" RN_##OPN "," RTN_##S "," RTN_##D ",false,0>",           \
	     reduce_fields[RT_##S][RT_##D], 2, red_##OPN##_##S##_##D, red_##S##_cycles,        \
	     FLOPS_##S(reduce_flops_cb), 16, 640, false},                                      \
	    {"popops::ScaledReduce<popops::" RN_##OPN "," RTN_##S "," RTN_##D ",false,0>",     \
	     reduce_fields[RT_##S][RT_##D], 3, sred_##OPN##_##S##_##D, sred_##S##_cycles,      \
	     FLOPS_##S(scaled_reduce_flops_cb), 20, 704, false},                               \
	}
#define REDUCE_CODELETS_D(OPN, S)                                                         \
	[RT_##S] = {REDUCE_CODELET(OPN, S, FLOAT), REDUCE_CODELET(OPN, S, HALF),              \
	            REDUCE_CODELET(OPN, S, INT), REDUCE_CODELET(OPN, S, UINT)}
#define REDUCE_CODELETS_S(OPN)                                                            \
	[TSI_POPOPS_REDUCE_##OPN] = {REDUCE_CODELETS_D(OPN, FLOAT), REDUCE_CODELETS_D(OPN, HALF), \
	                             REDUCE_CODELETS_D(OPN, INT), REDUCE_CODELETS_D(OPN, UINT)}
/* reduce_codelets[op][input][output][scaled] */
static const tsi_codelet reduce_codelets[ROP_COUNT][RT_COUNT][RT_COUNT][2] = {
	REDUCE_CODELETS_S(ADD),
	REDUCE_CODELETS_S(MUL),
	REDUCE_CODELETS_S(MAX),
	REDUCE_CODELETS_S(MIN),
	REDUCE_CODELETS_S(SQUARE_ADD),
};
#undef REDUCE_CODELETS_S
#undef REDUCE_CODELETS_D
#undef REDUCE_CODELET

/* Registers every reduce codelet (called by tsi_popops_add_codelets). */
int tsi_ops_reduce_add_codelets(tsi_graph *graph)
{
	return tsi_graph_add_codelets(graph, &reduce_codelets[0][0][0][0],
	                              (size_t)ROP_COUNT * RT_COUNT * RT_COUNT * 2);
}

/* --- Planning ------------------------------------------------------------------------ */

static const char api[] = "tsi_popops_reduce";

/* Inputs on one tile for outputs [c0, c1): `rows` rows of c1 - c0
 * elements, contiguous from element `src` of the source. */
typedef struct red_seg {
	size_t c0, c1;
	size_t src;
	size_t rows;
} red_seg;

/* A region one vertex reduces: outputs [x0, x1) from the runs
 * runs[run0 .. run0 + n_runs) of the source ([rows, x1 - x0] row-major). */
typedef struct red_block {
	unsigned tile;
	size_t x0, x1;
	size_t run0, n_runs;
	size_t elems;  /* input elements */
	size_t dst;    /* where its results go in the destination (flat) */
	size_t vertex; /* pieces only: the vertex they belong to */
} red_block;

/* A growable list of blocks and their runs. */
typedef struct red_list {
	red_block *b;
	size_t n, cap;
	tsi_ops_range *runs;
	size_t n_runs, cap_runs;
} red_list;

/* Everything one tsi_popops_reduce call plans with. */
typedef struct red_ctx {
	tsi_graph *graph;
	const char *name;
	/* scratch of the per-tile splitting, grown as needed */
	size_t *bounds, cap_bounds;
	size_t *count, cap_count;
	size_t *list, cap_list;
} red_ctx;

/* Returns the array `p` of *cap elements of `size` bytes grown to hold
 * at least `need` (updating *cap), or NULL on OOM (p is still valid). */
static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return p;
	while (ncap < need)
		ncap *= 2;
	np = realloc(p, ncap * size);
	if (np)
		*cap = ncap;
	return np;
}

static void list_free(red_list *l)
{
	free(l->b);
	free(l->runs);
	memset(l, 0, sizeof(*l));
}

/* Appends a block with no runs yet; NULL on OOM. */
static red_block *list_add(red_list *l, unsigned tile, size_t x0, size_t x1)
{
	red_block *b = grow(l->b, &l->cap, l->n + 1, sizeof(*l->b));

	if (!b)
		return NULL;
	l->b = b;
	b = &l->b[l->n++];
	memset(b, 0, sizeof(*b));
	b->tile = tile;
	b->x0 = x0;
	b->x1 = x1;
	b->run0 = l->n_runs;
	return b;
}

/* Appends a run to the last block of `l`. */
static bool list_run(red_list *l, size_t begin, size_t len)
{
	red_block *b = &l->b[l->n - 1];
	tsi_ops_range *runs;

	if (!len)
		return true;
	runs = grow(l->runs, &l->cap_runs, l->n_runs + 1, sizeof(*l->runs));
	if (!runs)
		return false;
	l->runs = runs;
	l->runs[l->n_runs].begin = begin;
	l->runs[l->n_runs].len = len;
	l->n_runs++;
	b->n_runs++;
	b->elems += len;
	return true;
}

static int size_cmp(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa;
	size_t b = *(const size_t *)pb;

	return a < b ? -1 : a > b;
}

/* Index of `x` in the sorted, unique bounds[0..n). */
static size_t bound_index(const size_t *bounds, size_t n, size_t x)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (bounds[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Turns the segments s[0..n) of one tile into blocks appended to `out`:
 * the output range is cut at every segment end into elementary intervals,
 * each gets the segments covering it (in segment order, which is the row
 * order), and neighbouring intervals covered by the same segments merge
 * into one block. The work is proportional to the size of the result.
 */
static int tile_blocks(red_ctx *c, unsigned tile, const red_seg *s, size_t n, red_list *out)
{
	size_t nb = 0, total = 0;
	size_t *p;

	if (!n)
		return TSI_OK;
	if (!(p = grow(c->bounds, &c->cap_bounds, 2 * n, sizeof(size_t))))
		goto oom;
	c->bounds = p;
	for (size_t i = 0; i < n; i++) {
		c->bounds[nb++] = s[i].c0;
		c->bounds[nb++] = s[i].c1;
	}
	qsort(c->bounds, nb, sizeof(size_t), size_cmp);
	{
		size_t u = 0;

		for (size_t i = 0; i < nb; i++)
			if (!u || c->bounds[u - 1] != c->bounds[i])
				c->bounds[u++] = c->bounds[i];
		nb = u;
	}
	/* count[j]: segments covering interval j; then prefix offsets. */
	if (!(p = grow(c->count, &c->cap_count, nb + 1, sizeof(size_t))))
		goto oom;
	c->count = p;
	memset(c->count, 0, (nb + 1) * sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		size_t j0 = bound_index(c->bounds, nb, s[i].c0);
		size_t j1 = bound_index(c->bounds, nb, s[i].c1);

		for (size_t j = j0; j < j1; j++)
			c->count[j + 1]++;
		total += j1 - j0;
	}
	for (size_t j = 0; j < nb; j++)
		c->count[j + 1] += c->count[j];
	if (!(p = grow(c->list, &c->cap_list, total ? total : 1, sizeof(size_t))))
		goto oom;
	c->list = p;
	{
		/* Fill: count[j] walks forward as interval j gets its segments, so
		 * afterwards interval j's list ends at count[j] and starts at
		 * count[j - 1] (0 for j = 0). */
		for (size_t i = 0; i < n; i++) {
			size_t j0 = bound_index(c->bounds, nb, s[i].c0);
			size_t j1 = bound_index(c->bounds, nb, s[i].c1);

			for (size_t j = j0; j < j1; j++)
				c->list[c->count[j]++] = i;
		}
	}
	for (size_t j = 0; j + 1 < nb;) {
		size_t lo = j ? c->count[j - 1] : 0;
		size_t len = c->count[j] - lo;
		size_t j2 = j + 1;
		red_block *b;

		if (!len) {
			j++;
			continue;
		}
		while (j2 + 1 < nb) {
			size_t lo2 = c->count[j2 - 1];

			if (c->count[j2] - lo2 != len ||
			    memcmp(&c->list[lo], &c->list[lo2], len * sizeof(size_t)) != 0)
				break;
			j2++;
		}
		b = list_add(out, tile, c->bounds[j], c->bounds[j2]);
		if (!b)
			goto oom;
		for (size_t q = lo; q < lo + len; q++) {
			const red_seg *g = &s[c->list[q]];
			size_t w = b->x1 - b->x0;

			/* A segment taken whole is one run; a part of a segment of
			 * several rows is one run per row. */
			if (g->rows == 1 || w == g->c1 - g->c0) {
				if (!list_run(out, g->src + (b->x0 - g->c0), g->rows * w))
					goto oom;
				continue;
			}
			for (size_t r = 0; r < g->rows; r++)
				if (!list_run(out, g->src + r * (g->c1 - g->c0) + (b->x0 - g->c0), w))
					goto oom;
		}
		j = j2;
	}
	return TSI_OK;
oom:
	return tsi_ops_oom(c->graph, api);
}

/*
 * Cuts the blocks [lo, hi) of one tile into pieces of at most about
 * `target` input elements appended to `out`: by columns, and, when
 * `rows_ok` (the pieces' results are partials), by rows too. Each piece
 * is assigned to one of the tile's vertices (numbered from *vertex, which
 * moves past them).
 */
static int tile_pieces(red_ctx *c, const red_list *in, size_t lo, size_t hi, bool rows_ok,
                       red_list *out, size_t *vertex)
{
	size_t total = 0, workers, target, filled = 0;
	size_t first = out->n;

	for (size_t i = lo; i < hi; i++)
		total += in->b[i].elems;
	workers = tsi_ops_worker_count(c->graph, total);
	target = (total + workers - 1) / workers;
	if (!target)
		target = 1;
	for (size_t i = lo; i < hi; i++) {
		const red_block *b = &in->b[i];
		const tsi_ops_range *runs = &in->runs[b->run0];
		size_t w = b->x1 - b->x0;
		size_t rows = b->elems / w;
		size_t n_col = 1, n_row = 1;

		if (b->elems > target && w > 1) {
			n_col = (b->elems + target - 1) / target;
			if (n_col > w)
				n_col = w;
			if (rows_ok)
				n_row = (b->elems / n_col + target - 1) / target;
		} else if (b->elems > target && rows_ok) {
			n_row = (b->elems + target - 1) / target;
		}
		if (w > 1 && n_row > rows)
			n_row = rows;
		if (n_col == 1 && n_row == 1) {
			/* The block as it is. */
			if (!list_add(out, b->tile, b->x0, b->x1))
				goto oom;
			for (size_t q = 0; q < b->n_runs; q++)
				if (!list_run(out, runs[q].begin, runs[q].len))
					goto oom;
		} else if (w > 1) {
			/* Column chunks of cw, row groups of rg rows; each run holds
			 * len / w whole rows. */
			size_t cw = (w + n_col - 1) / n_col;
			size_t rg = (rows + n_row - 1) / n_row;

			for (size_t x = 0; x < w; x += cw) {
				size_t xw = w - x < cw ? w - x : cw;
				size_t row = 0;

				for (size_t q = 0; q < b->n_runs; q++) {
					for (size_t r = 0; r < runs[q].len / w; r++, row++) {
						if (row % rg == 0 &&
						    !list_add(out, b->tile, b->x0 + x, b->x0 + x + xw))
							goto oom;
						if (!list_run(out, runs[q].begin + r * w + x, xw))
							goto oom;
					}
				}
			}
		} else {
			/* One column: cut the runs into n_row pieces of the elements. */
			size_t per = (b->elems + n_row - 1) / n_row;
			size_t q = 0, off = 0;

			while (q < b->n_runs) {
				size_t want = per;

				if (!list_add(out, b->tile, b->x0, b->x1))
					goto oom;
				while (want && q < b->n_runs) {
					size_t take = runs[q].len - off;

					if (take > want)
						take = want;
					if (!list_run(out, runs[q].begin + off, take))
						goto oom;
					want -= take;
					off += take;
					if (off == runs[q].len) {
						q++;
						off = 0;
					}
				}
			}
		}
	}
	/* Group the pieces into vertices in order: a piece goes to the
	 * worker whose share of the tile's elements holds its midpoint. */
	for (size_t i = first; i < out->n; i++) {
		size_t w = (filled + out->b[i].elems / 2) / target;

		out->b[i].vertex = *vertex + (w < workers ? w : workers - 1);
		filled += out->b[i].elems;
	}
	*vertex += workers;
	return TSI_OK;
oom:
	return tsi_ops_oom(c->graph, api);
}

/*
 * Adds the vertices of `pieces` to `cs`: per vertex, out gets each
 * piece's destination [dst, dst + width) of `dst_view` and partials its
 * runs of `src_view`; scaled vertices get k from a per-tile constant.
 */
static int add_vertices(red_ctx *c, tsi_compute_set *cs, const tsi_codelet *codelet,
                        const red_list *pieces, tsi_ops_viewer *dst_view,
                        tsi_ops_viewer *src_view, bool scaled, float scale)
{
	tsi_tensor **outs = NULL, **ins = NULL;
	unsigned *tiles = NULL;
	tsi_tensor *k = NULL;
	size_t n_tiles = 0;
	int rc = TSI_OK;

	/* Only what the vertices hold outlives this (tsi_graph_scratch_begin). */
	tsi_graph_scratch_begin(c->graph);
	outs = malloc((pieces->n + 1) * sizeof(*outs));
	ins = malloc((pieces->n + 1) * sizeof(*ins));
	tiles = malloc((pieces->n + 1) * sizeof(*tiles));
	if (!outs || !ins || !tiles) {
		rc = tsi_ops_oom(c->graph, api);
		goto done;
	}
	for (size_t i = 0; i < pieces->n; i++)
		if (i == 0 || pieces->b[i].tile != pieces->b[i - 1].tile)
			tiles[n_tiles++] = pieces->b[i].tile;
	if (scaled && n_tiles) {
		k = tsi_ops_tile_constants(c->graph, TSI_FLOAT, scale, tiles, n_tiles,
		                           tsi_ops_name(c->graph, c->name, "k"));
		if (!k) {
			rc = tsi_ops_failed(c->graph);
			goto done;
		}
	}
	for (size_t lo = 0, hi, t = 0; lo < pieces->n; lo = hi) {
		const red_block *p0 = &pieces->b[lo];
		tsi_vertex *v;

		if (lo && p0->tile != pieces->b[lo - 1].tile)
			t++;
		for (hi = lo; hi < pieces->n && pieces->b[hi].vertex == p0->vertex;)
			hi++;
		for (size_t i = lo; i < hi; i++) {
			const red_block *p = &pieces->b[i];
			tsi_ops_range d = {p->dst, p->x1 - p->x0};

			outs[i - lo] = tsi_ops_view(dst_view, &d, 1);
			ins[i - lo] = tsi_ops_view(src_view, &pieces->runs[p->run0], p->n_runs);
			if (!outs[i - lo] || !ins[i - lo]) {
				rc = tsi_ops_failed(c->graph);
				goto done;
			}
		}
		v = tsi_graph_add_vertex(c->graph, cs, codelet->name);
		if (!v || tsi_graph_connect_list(c->graph, v, "out", outs, hi - lo) != TSI_OK ||
		    tsi_graph_connect_list(c->graph, v, "partials", ins, hi - lo) != TSI_OK ||
		    (scaled && tsi_graph_connect(c->graph, v, "k", tsi_tensor_index(k, t)) != TSI_OK) ||
		    tsi_graph_set_vertex_tile(c->graph, v, p0->tile) != TSI_OK) {
			rc = tsi_ops_failed(c->graph);
			goto done;
		}
	}
done:
	tsi_graph_scratch_end(c->graph);
	free(outs);
	free(ins);
	free(tiles);
	return rc;
}

/*
 * Stage one's blocks: the segments of each tile of `src` (a flat view of
 * the input as [K, M] when `by_column`, else as [M, K]) made into blocks.
 */
static int input_blocks(red_ctx *c, const tsi_tensor *src, size_t m, size_t k, bool by_column,
                        red_list *blocks)
{
	tsi_mapping_interval *iv = NULL;
	red_seg *segs = NULL;
	size_t n_iv = 0, cap = 0;
	int rc = tsi_ops_work_intervals(c->graph, src, &iv, &n_iv);

	for (size_t lo = 0, hi; !rc && lo < n_iv; lo = hi) {
		size_t n = 0;

		for (hi = lo; hi < n_iv && iv[hi].tile == iv[lo].tile;)
			hi++;
		for (size_t i = lo; i < hi; i++) {
			for (size_t b = iv[i].begin; b < iv[i].end;) {
				red_seg *g = grow(segs, &cap, n + 1, sizeof(*segs));
				size_t left = iv[i].end - b;

				if (!g) {
					rc = tsi_ops_oom(c->graph, api);
					goto done;
				}
				segs = g;
				g = &segs[n++];
				g->src = b;
				if (by_column && b % m == 0 && left >= m) {
					/* Whole rows: one segment. */
					g->c0 = 0;
					g->c1 = m;
					g->rows = left / m;
					b += g->rows * m;
				} else if (by_column) {
					g->c0 = b % m;
					g->c1 = m - g->c0 < left ? m : g->c0 + left;
					g->rows = 1;
					b += g->c1 - g->c0;
				} else {
					size_t off = b % k;

					g->c0 = b / k;
					g->c1 = g->c0 + 1;
					g->rows = k - off < left ? k - off : left;
					b += g->rows;
				}
			}
		}
		rc = tile_blocks(c, iv[lo].tile, segs, n, blocks);
	}
done:
	free(segs);
	free(iv);
	return rc;
}

/* True when every output's inputs lie on one tile. */
static bool single_tile_outputs(const red_list *blocks, size_t m, bool *ok)
{
	unsigned *owner = malloc((m ? m : 1) * sizeof(*owner));
	bool single = true;

	*ok = owner != NULL;
	if (!owner)
		return false;
	for (size_t i = 0; i < m; i++)
		owner[i] = TSI_NO_TILE;
	for (size_t i = 0; i < blocks->n && single; i++)
		for (size_t x = blocks->b[i].x0; x < blocks->b[i].x1 && single; x++) {
			if (owner[x] == TSI_NO_TILE)
				owner[x] = blocks->b[i].tile;
			else if (owner[x] != blocks->b[i].tile)
				single = false;
		}
	free(owner);
	return single;
}

/* Pieces of all tiles of `blocks` (grouped by tile), each destined to its
 * own outputs (dst = x0). */
static int all_pieces(red_ctx *c, const red_list *blocks, bool rows_ok, red_list *pieces)
{
	size_t vertex = 0;
	int rc = TSI_OK;

	for (size_t lo = 0, hi; !rc && lo < blocks->n; lo = hi) {
		for (hi = lo; hi < blocks->n && blocks->b[hi].tile == blocks->b[lo].tile;)
			hi++;
		rc = tile_pieces(c, blocks, lo, hi, rows_ok, pieces, &vertex);
	}
	for (size_t i = 0; i < pieces->n; i++)
		pieces->b[i].dst = pieces->b[i].x0;
	return rc;
}

/* A stage-two segment waiting for its tile. */
typedef struct final_seg {
	unsigned tile;
	size_t order;
	red_seg seg;
} final_seg;

static int final_seg_cmp(const void *pa, const void *pb)
{
	const final_seg *a = pa;
	const final_seg *b = pb;

	if (a->tile != b->tile)
		return a->tile < b->tile ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/*
 * Stage two's blocks: each first-stage piece's partials (at its dst in
 * the partials variable) feed its outputs, which live on the tiles of the
 * output mapping `out_iv` (sorted by position). The pieces are clipped to
 * those tiles and each tile's share made into blocks.
 */
static int final_blocks(red_ctx *c, const red_list *first, const tsi_mapping_interval *out_iv,
                        size_t n_out_iv, red_list *blocks)
{
	final_seg *fs = NULL;
	red_seg *segs = NULL;
	size_t n = 0, cap = 0, cap_segs = 0;
	int rc = TSI_OK;

	for (size_t i = 0; i < first->n; i++) {
		const red_block *p = &first->b[i];
		size_t j = 0, lo = 0, hi = n_out_iv;

		while (hi - lo > 1) { /* the interval holding x0 */
			size_t mid = lo + (hi - lo) / 2;

			if (out_iv[mid].begin <= p->x0)
				lo = mid;
			else
				hi = mid;
		}
		for (j = lo; j < n_out_iv && out_iv[j].begin < p->x1; j++) {
			size_t c0 = p->x0 > out_iv[j].begin ? p->x0 : out_iv[j].begin;
			size_t c1 = p->x1 < out_iv[j].end ? p->x1 : out_iv[j].end;

			final_seg *more;

			if (c0 >= c1)
				continue;
			more = grow(fs, &cap, n + 1, sizeof(*fs));
			if (!more) {
				rc = tsi_ops_oom(c->graph, api);
				goto done;
			}
			fs = more;
			fs[n].tile = out_iv[j].tile;
			fs[n].order = n;
			fs[n].seg.c0 = c0;
			fs[n].seg.c1 = c1;
			fs[n].seg.src = p->dst + (c0 - p->x0);
			fs[n].seg.rows = 1;
			n++;
		}
	}
	if (n > 1)
		qsort(fs, n, sizeof(*fs), final_seg_cmp);
	for (size_t lo = 0, hi; !rc && lo < n; lo = hi) {
		for (hi = lo; hi < n && fs[hi].tile == fs[lo].tile;)
			hi++;
		red_seg *more = grow(segs, &cap_segs, hi - lo, sizeof(*segs));

		if (!more) {
			rc = tsi_ops_oom(c->graph, api);
			goto done;
		}
		segs = more;
		for (size_t i = lo; i < hi; i++)
			segs[i - lo] = fs[i].seg;
		rc = tile_blocks(c, fs[lo].tile, segs, hi - lo, blocks);
	}
done:
	free(fs);
	free(segs);
	return rc;
}

/* --- The operation ---------------------------------------------------------------------- */

/*
 * Checks the arguments; on success fills `reduced` (a flag per input
 * dimension). Returns TSI_OK or the recorded error (quiet for an echoed
 * NULL).
 */
static int check_reduce(tsi_graph *graph, const char *name, const tsi_tensor *in,
                        const size_t *dims, size_t n_dims, tsi_popops_reduce_op op,
                        tsi_type out_type, const tsi_program *seq, bool *reduced)
{
	char text[128], types[64];

	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", api);
	if ((unsigned)op >= ROP_COUNT)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': unknown operation %d",
		                      api, name, (int)op);
	if (!in || !seq || (n_dims && !dims))
		return tsi_ops_null_arg(graph, api, name, !in ? "input" : !seq ? "seq" : "dims");
	tsi_ops_elem_list(types, sizeof(types), (1u << RT_COUNT) - 1);
	if (tsi_ops_elem_index(in->type) < 0)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': input %s has type %s (%s only)", api, name,
		                      tsi_tensor_describe(in), tsi_type_name(in->type), types);
	if (tsi_ops_elem_index(out_type) < 0)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': output type %s is not supported (%s)", api, name,
		                      tsi_type_name(out_type), types);
	memset(reduced, 0, TSI_MAX_RANK * sizeof(*reduced));
	for (size_t i = 0; i < n_dims; i++) {
		tsi_ops_format_shape(text, sizeof(text), in);
		if (dims[i] >= in->rank)
			return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
			                      "%s '%s': dimension %zu is out of range for input %s of shape "
			                      "%s",
			                      api, name, dims[i], tsi_tensor_describe(in), text);
		if (reduced[dims[i]])
			return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
			                      "%s '%s': dimension %zu of input %s (shape %s) is listed twice",
			                      api, name, dims[i], tsi_tensor_describe(in), text);
		reduced[dims[i]] = true;
	}
	return TSI_OK;
}

/* A flat view of `in` with the dimensions in `perm` order (all of them). */
static const tsi_tensor *permuted_flat(const tsi_tensor *in, const size_t *perm)
{
	const tsi_tensor *t = in->rank > 1 ? tsi_tensor_dim_shuffle(in, perm) : in;

	return t ? tsi_tensor_flatten(t) : NULL;
}

/* The codelet for (op, input, output, scaled), required in the graph. */
static const tsi_codelet *reduce_codelet(tsi_graph *graph, const char *name,
                                         tsi_popops_reduce_op op, tsi_type st, tsi_type dt,
                                         bool scaled)
{
	return tsi_ops_require_codelet(graph, api, name,
	                               reduce_codelets[op][tsi_ops_elem_index(st)]
	                                              [tsi_ops_elem_index(dt)][scaled].name,
	                               "tsi_popops_add_codelets");
}

/* Adds "<name>/<suffix>" with the vertices of `pieces` and its execution
 * to `seq`. */
static int run_stage(red_ctx *c, tsi_program *seq, const char *suffix, const tsi_codelet *codelet,
                     const red_list *pieces, const tsi_tensor *dst_flat,
                     const tsi_tensor *src_flat, bool scaled, float scale)
{
	const char *cs_name = tsi_ops_name(c->graph, c->name, suffix);
	tsi_compute_set *cs = cs_name ? tsi_graph_add_compute_set(c->graph, cs_name) : NULL;
	tsi_ops_viewer dv = {0}, sv = {0};
	tsi_program *step;
	int rc;

	if (!cs)
		return tsi_ops_failed(c->graph);
	rc = tsi_ops_viewer_init(&dv, c->graph, dst_flat);
	if (!rc)
		rc = tsi_ops_viewer_init(&sv, c->graph, src_flat);
	if (!rc)
		rc = add_vertices(c, cs, codelet, pieces, &dv, &sv, scaled, scale);
	tsi_ops_viewer_free(&dv);
	tsi_ops_viewer_free(&sv);
	if (rc)
		return rc;
	step = tsi_prog_execute(c->graph, cs);
	return step ? tsi_sequence_add(seq, step) : tsi_ops_failed(c->graph);
}

/*
 * popops::reduce. See the top of the file for the plan; the steps are:
 * check, view the input as [K, M] or [M, K], make each tile's blocks,
 * then one stage (every output on one tile) or two.
 */
TSI_API tsi_tensor *tsi_popops_reduce(tsi_graph *graph, const tsi_tensor *in, const size_t *dims,
                                      size_t n_dims, tsi_popops_reduce_op op, float scale,
                                      tsi_type out_type, tsi_program *seq,
                                      const char *debug_name)
{
	const char *name = debug_name ? debug_name : "Reduce";
	TSI_OPS_DEBUG(graph, name, "popops", "popops::reduce");
	bool reduced[TSI_MAX_RANK];
	size_t out_shape[TSI_MAX_RANK], perm_km[TSI_MAX_RANK], perm_mk[TSI_MAX_RANK];
	size_t red_dims[TSI_MAX_RANK], kept_dims[TSI_MAX_RANK];
	size_t out_rank = 0, n_red = 0, m = 1, k = 1;
	const tsi_tensor *src, *out_flat;
	red_ctx c = {graph, name, NULL, 0, NULL, 0, NULL, 0};
	red_list blocks = {0}, pieces = {0}, final = {0}, final_pieces = {0};
	bool scaled = scale != 1.0f, by_column, ok;
	tsi_tensor *out = NULL, *partials;
	const char *out_name;
	tsi_tensor *result = NULL;
	int rc;

	if (check_reduce(graph, name, in, dims, n_dims, op, out_type, seq, reduced) != TSI_OK)
		return NULL;
	for (size_t d = 0; d < in->rank; d++) {
		if (reduced[d]) {
			red_dims[n_red++] = d;
			k *= in->shape[d];
		} else {
			kept_dims[out_rank] = d;
			out_shape[out_rank++] = in->shape[d];
			m *= in->shape[d];
		}
	}
	/* [K, M]: reduced dimensions first; [M, K]: kept ones first. */
	memcpy(perm_km, red_dims, n_red * sizeof(size_t));
	memcpy(perm_km + n_red, kept_dims, out_rank * sizeof(size_t));
	memcpy(perm_mk, kept_dims, out_rank * sizeof(size_t));
	memcpy(perm_mk + out_rank, red_dims, n_red * sizeof(size_t));
	out_name = tsi_ops_name(graph, name, "out");
	out = out_name ? tsi_graph_add_variable(graph, out_type, out_rank, out_shape, out_name) : NULL;
	out_flat = out ? tsi_tensor_flatten(out) : NULL;
	if (!out_flat)
		return NULL;
	if (m == 0)
		return out;
	if (k == 0) {
		/* Nothing to reduce: every output is the identity (scaled). */
		double v = op == ROP_MUL ? 1.0 : op == ROP_MAX ? -INFINITY : op == ROP_MIN ? INFINITY : 0.0;

		if (tsi_graph_map_linearly(graph, out, 8) != TSI_OK ||
		    tsi_popops_fill(graph, out, v * scale, seq, tsi_ops_name(graph, name, "Fill")) != TSI_OK)
			return NULL;
		return out;
	}
	/* Read the input in the order whose memory runs are longer: the one
	 * keeping the input's innermost dimension innermost, unless that is
	 * fragmented (a view), when the other order may do better. Building
	 * a fragmented view costs a region per element, so the other is only
	 * built when needed. */
	by_column = !reduced[in->rank ? in->rank - 1 : 0];
	src = permuted_flat(in, by_column ? perm_km : perm_mk);
	if (src && src->n_regions > 1 && src->n_regions > src->numel / 16) {
		const tsi_tensor *other = permuted_flat(in, by_column ? perm_mk : perm_km);

		if (other && other->n_regions < src->n_regions) {
			src = other;
			by_column = !by_column;
		}
	}
	if (!src)
		return NULL;
	rc = input_blocks(&c, src, m, k, by_column, &blocks);
	if (rc)
		goto done;
	if (single_tile_outputs(&blocks, m, &ok)) {
		const tsi_codelet *cd = reduce_codelet(graph, name, op, in->type, out_type, scaled);

		if (!cd)
			goto done;
		for (size_t i = 0; i < blocks.n; i++) {
			tsi_tensor *piece = tsi_tensor_slice(out_flat, blocks.b[i].x0, blocks.b[i].x1);

			if (!piece || tsi_graph_set_tile_mapping(graph, piece, blocks.b[i].tile) != TSI_OK)
				goto done;
		}
		if (all_pieces(&c, &blocks, false, &pieces) != TSI_OK ||
		    run_stage(&c, seq, "ReduceFinalStage", cd, &pieces, out_flat, src, scaled, scale) !=
		        TSI_OK)
			goto done;
		result = out;
	} else if (ok) {
		tsi_type part_type =
		    in->type == TSI_INT || in->type == TSI_UNSIGNED_INT ? in->type : TSI_FLOAT;
		tsi_popops_reduce_op final_op = op == ROP_SQUARE_ADD ? ROP_ADD : op;
		const tsi_codelet *c1 = reduce_codelet(graph, name, op, in->type, part_type, false);
		const tsi_codelet *c2 = c1 ? reduce_codelet(graph, name, final_op, part_type, out_type,
		                                            scaled)
		                           : NULL;
		tsi_mapping_interval *out_iv = NULL;
		const tsi_tensor *part_flat;
		const char *part_name;
		size_t n_out_iv = 0, n_part = 0;

		if (!c2 || all_pieces(&c, &blocks, true, &pieces) != TSI_OK)
			goto done;
		/* Partials: each piece's results, tile after tile. */
		for (size_t i = 0; i < pieces.n; i++) {
			pieces.b[i].dst = n_part;
			n_part += pieces.b[i].x1 - pieces.b[i].x0;
		}
		part_name = tsi_ops_name(graph, name, "partials");
		partials = part_name ? tsi_graph_add_variable(graph, part_type, 1, &n_part, part_name)
		                     : NULL;
		part_flat = partials;
		for (size_t lo = 0, hi; partials && lo < pieces.n; lo = hi) {
			tsi_tensor *slice;

			for (hi = lo; hi < pieces.n && pieces.b[hi].tile == pieces.b[lo].tile;)
				hi++;
			slice = tsi_tensor_slice(partials, pieces.b[lo].dst,
			                         pieces.b[hi - 1].dst + pieces.b[hi - 1].x1 -
			                             pieces.b[hi - 1].x0);
			if (!slice || tsi_graph_set_tile_mapping(graph, slice, pieces.b[lo].tile) != TSI_OK)
				goto done;
		}
		if (!partials ||
		    run_stage(&c, seq, "ReduceFirstStage", c1, &pieces, part_flat, src, false, 1.0f) !=
		        TSI_OK)
			goto done;
		if (tsi_graph_map_linearly(graph, out, 8) != TSI_OK)
			goto done;
		rc = tsi_graph_list_tile_mapping(&out_iv, &n_out_iv, graph, out_flat);
		if (rc) {
			tsi_graph_fail(graph, rc, "%s", tsi_error_last());
			goto done;
		}
		rc = final_blocks(&c, &pieces, out_iv, n_out_iv, &final);
		free(out_iv);
		if (rc || all_pieces(&c, &final, false, &final_pieces) != TSI_OK ||
		    run_stage(&c, seq, "ReduceFinalStage", c2, &final_pieces, out_flat, part_flat,
		              scaled, scale) != TSI_OK)
			goto done;
		result = out;
	} else {
		tsi_ops_oom(graph, api);
	}
done:
	list_free(&blocks);
	list_free(&pieces);
	list_free(&final);
	list_free(&final_pieces);
	free(c.bounds);
	free(c.count);
	free(c.list);
	return result;
}
