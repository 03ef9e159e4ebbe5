/*
 * popops, in small: the operations that write values rather than
 * compute them: fill (popops::fill and zero), cast (popops::cast) and
 * one-hot encoding (popops::encodeOneHot), device and host side. Fill and
 * cast use the shared elementwise work split (ops-util.c); one-hot makes
 * one vertex per tile of the encoded matrix, with the tile's part of each
 * row as one piece.
 *
 * Cycle model (assumptions, not measurements), in worker cycles: fill 10
 * fixed plus one 64-bit store a cycle; cast 12 fixed plus 2 cycles per
 * pair of elements between float and half (a vector convert) and 2 per
 * element otherwise; one-hot 20 fixed, 10 per piece and one cycle per
 * 64-bit store zeroing it. None of them counts floating-point operations.
 */
#include "ops-private.h"

#include <stdlib.h>
#include <string.h>

/* Short names for the shared element types (ops-private.h). */
#define ET_FLOAT TSI_OPS_FLOAT
#define ET_HALF TSI_OPS_HALF
#define ET_INT TSI_OPS_INT
#define ET_COUNT TSI_OPS_ELEM_COUNT

/* Field directions and shapes, for the field tables. */
#define IN TSI_FIELD_INPUT
#define OUT TSI_FIELD_OUTPUT
#define VEC TSI_FIELD_VECTOR
#define SCALAR TSI_FIELD_SCALAR

/* --- Fill and cast: device code ---------------------------------------------- */

/* The nine device types as macro tokens (TSI_<token> is the enum value),
 * with Poplar's names. */
#define TN_FLOAT "float"
#define TN_HALF "half"
#define TN_INT "int"
#define TN_UNSIGNED_INT "unsigned int"
#define TN_SHORT "short"
#define TN_UNSIGNED_SHORT "unsigned short"
#define TN_CHAR "char"
#define TN_UNSIGNED_CHAR "unsigned char"
#define TN_BOOL "bool"
#define FOR_EACH_TYPE(X, A)                                                               \
	X(A, FLOAT) X(A, HALF) X(A, INT) X(A, UNSIGNED_INT) X(A, SHORT) X(A, UNSIGNED_SHORT)   \
	X(A, CHAR) X(A, UNSIGNED_CHAR) X(A, BOOL)
/* The same list again, for use inside an expansion of FOR_EACH_TYPE (a
 * macro is not expanded inside itself). */
#define FOR_EACH_TYPE2(X, A)                                                              \
	X(A, FLOAT) X(A, HALF) X(A, INT) X(A, UNSIGNED_INT) X(A, SHORT) X(A, UNSIGNED_SHORT)   \
	X(A, CHAR) X(A, UNSIGNED_CHAR) X(A, BOOL)

/* Fill<T>: every element of `out` becomes the scalar `in`, copied as
 * bytes (the value was converted to T when the constant was made). */
TSI_OPS_ALWAYS_INLINE bool fill_run(const tsi_field *f, size_t n_fields, size_t size)
{
	unsigned char *out;
	const unsigned char *in;
	size_t n;

	if (n_fields != 2 || f[1].count != 1)
		return false;
	out = f[0].data;
	in = f[1].data;
	n = f[0].count;
	switch (size) {
	case 1:
		memset(out, in[0], n);
		return true;
	case 2: {
		uint16_t v, *o = f[0].data;

		memcpy(&v, in, 2);
		for (size_t i = 0; i < n; i++)
			o[i] = v;
		return true;
	}
	case 4: {
		uint32_t v, *o = f[0].data;

		memcpy(&v, in, 4);
		for (size_t i = 0; i < n; i++)
			o[i] = v;
		return true;
	}
	default:
		return false;
	}
}

/* Worker cycles of Fill: 10 fixed, then one 64-bit store per cycle. */
TSI_OPS_ALWAYS_INLINE uint64_t fill_cycles(const tsi_field *f, size_t n_fields, size_t size)
{
	return 10 + tsi_ops_steps((n_fields ? f[0].count : 0) * size, 8, 1);
}

#define FILL_CALLBACKS(A, T)                                                              \
	static bool fill_##T(const tsi_field *f, size_t n)                                    \
	{                                                                                     \
		return fill_run(f, n, sizeof(TSI_SIZE_##T));                                      \
	}                                                                                     \
	static uint64_t fill_##T##_cycles(const tsi_field *f, size_t n, const tsi_target *t)  \
	{                                                                                     \
		return fill_cycles(f, n, sizeof(TSI_SIZE_##T));                                   \
	}
/* A C type of each device type's size, for sizeof in the macros. */
#define TSI_SIZE_FLOAT float
#define TSI_SIZE_HALF uint16_t
#define TSI_SIZE_INT int32_t
#define TSI_SIZE_UNSIGNED_INT uint32_t
#define TSI_SIZE_SHORT int16_t
#define TSI_SIZE_UNSIGNED_SHORT uint16_t
#define TSI_SIZE_CHAR int8_t
#define TSI_SIZE_UNSIGNED_CHAR uint8_t
#define TSI_SIZE_BOOL uint8_t
FOR_EACH_TYPE(FILL_CALLBACKS, _)
#undef FILL_CALLBACKS

#define FILL_FIELDS(A, T) [TSI_##T] = {{"out", OUT, VEC, TSI_##T, 0}, {"in", IN, SCALAR, TSI_##T, 0}},
static const tsi_field_def fill_fields[TSI_TYPE_COUNT][2] = {FOR_EACH_TYPE(FILL_FIELDS, _)};
#undef FILL_FIELDS

/* Vertex state: the out pointer and count and the value (12 bytes);
 * code: a store loop, about 128 bytes. */
#define FILL_CODELET(A, T)                                                                \
	[TSI_##T] = {"popops::Fill<" TN_##T ">", fill_fields[TSI_##T], 2, fill_##T,            \
	             fill_##T##_cycles, NULL, 12, 128, false},
static const tsi_codelet fill_codelets[TSI_TYPE_COUNT] = {FOR_EACH_TYPE(FILL_CODELET, _)};
#undef FILL_CODELET

/* float to int32 as tsi_type_store does it: truncation toward zero,
 * saturating at the ends of the range, NaN to 0. */
TSI_OPS_ALWAYS_INLINE int32_t float_to_int(float x)
{
	if (x != x)
		return 0;
	if (x <= -2147483648.0f)
		return INT32_MIN;
	if (x >= 2147483648.0f)
		return INT32_MAX;
	return (int32_t)x;
}

/*
 * Cast<S,D>: dst[i] = src[i] converted as tsi_type_load/tsi_type_store
 * convert (round to nearest even into half, integers truncate toward zero
 * and saturate, bool is value != 0). The common pairs have their own
 * loops; the rest go through the typed accessors.
 */
TSI_OPS_ALWAYS_INLINE bool cast_run(const tsi_field *f, size_t n_fields, tsi_type s, tsi_type d)
{
	const void *src;
	void *dst;
	size_t n;

	if (n_fields != 2 || f[0].count != f[1].count)
		return false;
	src = f[0].data;
	dst = f[1].data;
	n = f[0].count;
	if (s == TSI_FLOAT && d == TSI_HALF) {
		const float *x = src;
		uint16_t *y = dst;

		for (size_t i = 0; i < n; i++)
			y[i] = tsi_half_from_float(x[i]);
	} else if (s == TSI_HALF && d == TSI_FLOAT) {
		const uint16_t *x = src;
		float *y = dst;

		for (size_t i = 0; i < n; i++)
			y[i] = tsi_half_to_float(x[i]);
	} else if (s == TSI_FLOAT && d == TSI_INT) {
		const float *x = src;
		int32_t *y = dst;

		for (size_t i = 0; i < n; i++)
			y[i] = float_to_int(x[i]);
	} else if (s == TSI_INT && d == TSI_FLOAT) {
		const int32_t *x = src;
		float *y = dst;

		for (size_t i = 0; i < n; i++)
			y[i] = (float)x[i];
	} else if (s == TSI_HALF && d == TSI_INT) {
		const uint16_t *x = src;
		int32_t *y = dst;

		for (size_t i = 0; i < n; i++)
			y[i] = float_to_int(tsi_half_to_float(x[i]));
	} else if (s == TSI_INT && d == TSI_HALF) {
		const int32_t *x = src;
		uint16_t *y = dst;

		for (size_t i = 0; i < n; i++)
			y[i] = tsi_half_from_float((float)x[i]);
	} else if (s == TSI_UNSIGNED_INT && d == TSI_FLOAT) {
		const uint32_t *x = src;
		float *y = dst;

		for (size_t i = 0; i < n; i++)
			y[i] = (float)x[i];
	} else {
		for (size_t i = 0; i < n; i++)
			tsi_type_store(d, dst, i, tsi_type_load(s, src, i));
	}
	return true;
}

/* Worker cycles of a cast: 12 fixed, then 2 cycles per pair of elements
 * between float and half (a vector convert), 2 per element otherwise. */
TSI_OPS_ALWAYS_INLINE uint64_t cast_cycles(const tsi_field *f, size_t n_fields, tsi_type s,
                                           tsi_type d)
{
	size_t n = n_fields ? f[0].count : 0;
	bool fh = (s == TSI_FLOAT && d == TSI_HALF) || (s == TSI_HALF && d == TSI_FLOAT);

	return 12 + tsi_ops_steps(n, fh ? 2 : 1, 2);
}

#define CAST_CALLBACKS(S, D)                                                              \
	static bool cast_##S##_##D(const tsi_field *f, size_t n)                              \
	{                                                                                     \
		return cast_run(f, n, TSI_##S, TSI_##D);                                          \
	}                                                                                     \
	static uint64_t cast_##S##_##D##_cycles(const tsi_field *f, size_t n,                 \
	                                        const tsi_target *t)                          \
	{                                                                                     \
		return cast_cycles(f, n, TSI_##S, TSI_##D);                                       \
	}
#define CAST_CALLBACKS_FROM(A, S) FOR_EACH_TYPE2(CAST_CALLBACKS, S)
FOR_EACH_TYPE(CAST_CALLBACKS_FROM, _)
#undef CAST_CALLBACKS_FROM
#undef CAST_CALLBACKS

#define CAST_FIELDS(S, D) [TSI_##D] = {{"src", IN, VEC, TSI_##S, 0}, {"dst", OUT, VEC, TSI_##D, 0}},
#define CAST_FIELDS_FROM(A, S) [TSI_##S] = {FOR_EACH_TYPE2(CAST_FIELDS, S)},
static const tsi_field_def cast_fields[TSI_TYPE_COUNT][TSI_TYPE_COUNT][2] = {
	FOR_EACH_TYPE(CAST_FIELDS_FROM, _)};
#undef CAST_FIELDS_FROM
#undef CAST_FIELDS

/* Vertex state: two pointers and a count (12 bytes); code about 192
 * bytes. The diagonal (S == D) exists in the table but is never
 * registered: a cast to the same type is a copy. */
#define CAST_CODELET(S, D)                                                                \
	[TSI_##D] = {"popops::Cast<" TN_##S "," TN_##D ">", cast_fields[TSI_##S][TSI_##D], 2,  \
	             cast_##S##_##D, cast_##S##_##D##_cycles, NULL, 12, 192, false},
#define CAST_CODELETS_FROM(A, S) [TSI_##S] = {FOR_EACH_TYPE2(CAST_CODELET, S)},
static const tsi_codelet cast_codelets[TSI_TYPE_COUNT][TSI_TYPE_COUNT] = {
	FOR_EACH_TYPE(CAST_CODELETS_FROM, _)};
#undef CAST_CODELETS_FROM
#undef CAST_CODELET

/* --- One-hot encoding: device code ------------------------------------------- */

/* Index types (template argument 1) and output types (argument 2). */
enum { OH_UNSIGNED = 0, OH_SIGNED, OH_INDEX_COUNT };

/*
 * EncodeOneHot<I,T>: fields indices (one index per piece), offsets (the
 * column where each piece starts) and out (one sub-vector per piece: part
 * of one row of the encoded matrix). Each piece is zeroed and gets a 1 at
 * column indices[k] when that column falls inside it.
 */
TSI_OPS_ALWAYS_INLINE bool one_hot_run(const tsi_field *f, size_t n_fields, bool signed_index,
                                       enum tsi_ops_elem et)
{
	const uint32_t *offsets;
	size_t pieces;

	if (n_fields != 3)
		return false;
	pieces = f[2].n_vectors;
	if (f[0].count != pieces || f[1].count != pieces)
		return false;
	offsets = f[1].data;
	for (size_t k = 0; k < pieces; k++) {
		size_t lo = f[2].offsets[k];
		size_t len = f[2].offsets[k + 1] - lo;
		int64_t index = signed_index ? ((const int32_t *)f[0].data)[k]
		                             : (int64_t)((const uint32_t *)f[0].data)[k];
		int64_t col = index - (int64_t)offsets[k];

		switch (et) {
		case ET_FLOAT: {
			float *o = (float *)f[2].data + lo;

			memset(o, 0, len * sizeof(*o));
			if (col >= 0 && col < (int64_t)len)
				o[col] = 1.0f;
			break;
		}
		case ET_HALF: {
			uint16_t *o = (uint16_t *)f[2].data + lo;

			memset(o, 0, len * sizeof(*o));
			if (col >= 0 && col < (int64_t)len)
				o[col] = 0x3c00; /* 1.0 */
			break;
		}
		case ET_INT: {
			int32_t *o = (int32_t *)f[2].data + lo;

			memset(o, 0, len * sizeof(*o));
			if (col >= 0 && col < (int64_t)len)
				o[col] = 1;
			break;
		}
		default:
			return false;
		}
	}
	return true;
}

/* Worker cycles of EncodeOneHot: 20 fixed; per piece 10 cycles (load the
 * index and offset, compare, store the one) plus one cycle per 64-bit
 * store zeroing it. */
TSI_OPS_ALWAYS_INLINE uint64_t one_hot_cycles(const tsi_field *f, size_t n_fields,
                                              enum tsi_ops_elem et)
{
	size_t size = et == ET_HALF ? 2 : 4;

	if (n_fields != 3)
		return 20;
	return 20 + 10 * (uint64_t)f[2].n_vectors + tsi_ops_steps(f[2].count * size, 8, 1);
}

#define ONE_HOT_CALLBACKS(IX, SIGNED, ET)                                                 \
	static bool one_hot_##IX##_##ET(const tsi_field *f, size_t n)                         \
	{                                                                                     \
		return one_hot_run(f, n, SIGNED, ET_##ET);                                        \
	}                                                                                     \
	static uint64_t one_hot_##IX##_##ET##_cycles(const tsi_field *f, size_t n,            \
	                                             const tsi_target *t)                     \
	{                                                                                     \
		return one_hot_cycles(f, n, ET_##ET);                                             \
	}
ONE_HOT_CALLBACKS(UNSIGNED_INT, false, FLOAT)
ONE_HOT_CALLBACKS(UNSIGNED_INT, false, HALF)
ONE_HOT_CALLBACKS(UNSIGNED_INT, false, INT)
ONE_HOT_CALLBACKS(INT, true, FLOAT)
ONE_HOT_CALLBACKS(INT, true, HALF)
ONE_HOT_CALLBACKS(INT, true, INT)
#undef ONE_HOT_CALLBACKS

#define ONE_HOT_FIELDS(I, T)                                                              \
	{{"indices", IN, VEC, I, 0}, {"offsets", IN, VEC, TSI_UNSIGNED_INT, 0},               \
	 {"out", OUT, TSI_FIELD_VECTOR_LIST, T, 0}}
static const tsi_field_def one_hot_fields[OH_INDEX_COUNT][ET_COUNT][3] = {
	[OH_UNSIGNED] = {ONE_HOT_FIELDS(TSI_UNSIGNED_INT, TSI_FLOAT),
	                 ONE_HOT_FIELDS(TSI_UNSIGNED_INT, TSI_HALF),
	                 ONE_HOT_FIELDS(TSI_UNSIGNED_INT, TSI_INT)},
	[OH_SIGNED] = {ONE_HOT_FIELDS(TSI_INT, TSI_FLOAT), ONE_HOT_FIELDS(TSI_INT, TSI_HALF),
	               ONE_HOT_FIELDS(TSI_INT, TSI_INT)},
};
#undef ONE_HOT_FIELDS

/* Vertex state: indices pointer and count, offsets pointer, the out
 * vector list's descriptor pointer and count (20 bytes); code about 256. */
#define ONE_HOT_CODELET(IX, OX, ET)                                                       \
	{"popops::EncodeOneHot<" TN_##IX "," TN_##ET ">", one_hot_fields[OX][ET_##ET], 3,     \
	 one_hot_##IX##_##ET, one_hot_##IX##_##ET##_cycles, NULL, 20, 256, false}
static const tsi_codelet one_hot_codelets[OH_INDEX_COUNT][ET_COUNT] = {
	[OH_UNSIGNED] = {ONE_HOT_CODELET(UNSIGNED_INT, OH_UNSIGNED, FLOAT),
	                 ONE_HOT_CODELET(UNSIGNED_INT, OH_UNSIGNED, HALF),
	                 ONE_HOT_CODELET(UNSIGNED_INT, OH_UNSIGNED, INT)},
	[OH_SIGNED] = {ONE_HOT_CODELET(INT, OH_SIGNED, FLOAT), ONE_HOT_CODELET(INT, OH_SIGNED, HALF),
	               ONE_HOT_CODELET(INT, OH_SIGNED, INT)},
};
#undef ONE_HOT_CODELET
#undef IN
#undef OUT
#undef VEC
#undef SCALAR

/* --- Registration ------------------------------------------------------------- */

/* Registers fill, cast (every pair of distinct types; a cast to the same
 * type is a copy) and one-hot, in that order. */
int tsi_ops_convert_add_codelets(tsi_graph *graph)
{
	int rc = tsi_ops_add_codelet_table(graph, fill_codelets, TSI_TYPE_COUNT);

	for (size_t s = 0; !rc && s < TSI_TYPE_COUNT; s++)
		for (size_t d = 0; !rc && d < TSI_TYPE_COUNT; d++)
			if (s != d)
				rc = tsi_graph_add_codelet(graph, &cast_codelets[s][d]);
	if (!rc)
		rc = tsi_ops_add_codelet_table(graph, &one_hot_codelets[0][0],
		                               (size_t)OH_INDEX_COUNT * ET_COUNT);
	return rc;
}

/* --- Fill and cast ------------------------------------------------------------------ */

/* Every element of t = value, with Fill<T> vertices where t's elements
 * live; the value is a per-tile constant of t's type. */
TSI_API int tsi_popops_fill(tsi_graph *graph, const tsi_tensor *t, double value,
                            tsi_program *seq, const char *debug_name)
{
	static const char api[] = "tsi_popops_fill";
	const char *name = debug_name ? debug_name : "Fill";
	TSI_OPS_DEBUG(graph, name, "popops", "popops::fill");
	tsi_ops_ew_work w = {NULL, {NULL}, false, value, NULL};

	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", api);
	if (!t || !seq)
		return tsi_ops_null_arg(graph, api, name, !t ? "tensor" : "seq");
	if (tsi_ops_touches_constant(t))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': cannot write to %s: it is (or contains) a constant", api,
		                      name, tsi_tensor_describe(t));
	w.codelet = tsi_ops_require_codelet(graph, api, name, fill_codelets[t->type].name,
	                                    "tsi_popops_add_codelets");
	if (!w.codelet)
		return TSI_ERR_UNKNOWN_VERTEX_TYPE;
	w.tensors[0] = tsi_tensor_flatten(t);
	w.const_name = tsi_ops_name(graph, name, "value");
	if (!w.tensors[0] || !w.const_name)
		return tsi_ops_failed(graph);
	return tsi_ops_run_elementwise(graph, seq, name, &w, w.tensors[0]);
}

/* t converted to `type` in a new variable mapped like t: Cast<S,D>
 * vertices, or a plain copy when the types agree. */
TSI_API tsi_tensor *tsi_popops_cast(tsi_graph *graph, const tsi_tensor *t, tsi_type type,
                                    tsi_program *seq, const char *debug_name)
{
	static const char api[] = "tsi_popops_cast";
	const char *name = debug_name ? debug_name : "Cast";
	TSI_OPS_DEBUG(graph, name, "popops", "popops::cast");
	tsi_mapping_interval *iv = NULL;
	const tsi_tensor *out_flat = NULL;
	const tsi_codelet *c = NULL;
	size_t n_iv = 0;
	tsi_compute_set *cs = NULL;
	tsi_tensor *out;
	tsi_program *step;

	if (!graph) {
		tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", api);
		return NULL;
	}
	if (!t || !seq) {
		tsi_ops_null_arg(graph, api, name, !t ? "tensor" : "seq");
		return NULL;
	}
	if ((unsigned)type >= TSI_TYPE_COUNT) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': unknown type %d", api, name,
		               (int)type);
		return NULL;
	}
	if (type != t->type) {
		c = tsi_ops_require_codelet(graph, api, name, cast_codelets[t->type][type].name,
		                            "tsi_popops_add_codelets");
		cs = c ? tsi_graph_add_compute_set(graph, name) : NULL;
		if (!cs)
			return NULL;
	}
	if (c) {
		out = tsi_ops_ew_result(graph, cs, c, t, NULL, type, name);
		step = out ? tsi_prog_execute(graph, cs) : NULL;
	} else {
		out = tsi_ops_result_like(graph, t, type, name, &iv, &n_iv, &out_flat);
		free(iv);
		step = out ? tsi_prog_copy(graph, t, out) : NULL;
	}
	if (!step || tsi_sequence_add(seq, step) != TSI_OK)
		return NULL;
	return out;
}

/* --- One-hot encoding ---------------------------------------------------------------- */

/* Checks the operands of tsi_popops_encode_one_hot; returns its codelet or
 * NULL with *rc set. */
static const tsi_codelet *plan_one_hot(tsi_graph *graph, const char *name,
                                       const tsi_tensor *indices, const tsi_tensor *encoded,
                                       const tsi_program *seq, int *rc)
{
	static const char api[] = "tsi_popops_encode_one_hot";
	char text[128];
	int ix, et;

	if (!graph) {
		*rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", api);
		return NULL;
	}
	if (!indices || !encoded || !seq) {
		*rc = tsi_ops_null_arg(graph, api, name,
		                       !indices ? "indices" : !encoded ? "encoded" : "seq");
		return NULL;
	}
	ix = indices->type == TSI_UNSIGNED_INT ? OH_UNSIGNED : indices->type == TSI_INT ? OH_SIGNED : -1;
	et = tsi_ops_elem_index(encoded->type);
	*rc = TSI_ERR_INVALID_ARGUMENT;
	if (ix < 0 || indices->rank != 1) {
		tsi_ops_format_shape(text, sizeof(text), indices);
		tsi_graph_fail(graph, *rc,
		               "%s '%s': indices %s must be a rank-1 int or unsigned int tensor, not %s "
		               "of shape %s",
		               api, name, tsi_tensor_describe(indices), tsi_type_name(indices->type), text);
		return NULL;
	}
	if (encoded->rank != 2 || encoded->shape[0] != indices->numel) {
		tsi_ops_format_shape(text, sizeof(text), encoded);
		tsi_graph_fail(graph, *rc,
		               "%s '%s': encoded %s has shape %s; it must be [N, C] with N = %zu, the "
		               "number of indices",
		               api, name, tsi_tensor_describe(encoded), text, indices->numel);
		return NULL;
	}
	/* EncodeOneHot has no unsigned int output here: its column of the
	 * shared element types is left zeroed. */
	if (et < 0 || !one_hot_codelets[ix][et].name) {
		tsi_graph_fail(graph, *rc, "%s '%s': encoded %s has type %s (float, half or int only)",
		               api, name, tsi_tensor_describe(encoded), tsi_type_name(encoded->type));
		return NULL;
	}
	if ((*rc = tsi_ops_check_writable(graph, api, name, encoded)) != TSI_OK)
		return NULL;
	*rc = TSI_ERR_UNKNOWN_VERTEX_TYPE;
	return tsi_ops_require_codelet(graph, api, name, one_hot_codelets[ix][et].name,
	                               "tsi_popops_add_codelets");
}

/*
 * One EncodeOneHot vertex per tile of `encoded`. The elements a tile holds
 * are cut at row ends into pieces (row i, columns [c0, c1)); the vertex
 * gets, per piece, indices[i] (read where it lives), c0 (from a constant
 * "<name>/offsets" with one element per piece, on that tile) and the
 * piece itself as one sub-vector of `out`.
 */
TSI_API int tsi_popops_encode_one_hot(tsi_graph *graph, const tsi_tensor *indices,
                                      const tsi_tensor *encoded, tsi_program *seq,
                                      const char *debug_name)
{
	const char *name = debug_name ? debug_name : "EncodeOneHot";
	TSI_OPS_DEBUG(graph, name, "popops", "popops::encodeOneHot");
	int rc;
	const tsi_codelet *c = plan_one_hot(graph, name, indices, encoded, seq, &rc);
	tsi_mapping_interval *iv = NULL;
	tsi_tensor **pieces = NULL;
	tsi_ops_range *rows = NULL;
	uint32_t *offsets = NULL;
	const tsi_tensor *enc_flat, *idx_flat;
	tsi_ops_viewer idx_view = {0}, enc_view = {0};
	tsi_tensor *offsets_t = NULL;
	size_t n_iv = 0, n_pieces = 0, cols, shape1;
	tsi_compute_set *cs;
	tsi_program *step;

	if (!c)
		return rc;
	cols = encoded->shape[1];
	enc_flat = tsi_tensor_flatten(encoded);
	idx_flat = tsi_tensor_flatten(indices);
	cs = enc_flat && idx_flat ? tsi_graph_add_compute_set(graph, name) : NULL;
	if (!cs)
		return tsi_ops_failed(graph);
	rc = tsi_ops_work_intervals(graph, enc_flat, &iv, &n_iv);
	if (rc)
		goto done;
	/* Count the pieces: each interval is cut at every row end. */
	for (size_t i = 0; i < n_iv; i++)
		n_pieces += (iv[i].end - 1) / cols - iv[i].begin / cols + 1;
	pieces = malloc((n_pieces ? n_pieces : 1) * sizeof(*pieces));
	rows = malloc((n_pieces ? n_pieces : 1) * sizeof(*rows));
	offsets = malloc((n_pieces ? n_pieces : 1) * sizeof(*offsets));
	if (!pieces || !rows || !offsets) {
		rc = tsi_ops_oom(graph, "tsi_popops_encode_one_hot");
		goto done;
	}
	/* The offsets constant: its values, then one slice per tile mapped there. */
	n_pieces = 0;
	for (size_t i = 0; i < n_iv; i++)
		for (size_t b = iv[i].begin; b < iv[i].end; b = (b / cols + 1) * cols)
			offsets[n_pieces++] = (uint32_t)(b % cols);
	shape1 = n_pieces;
	offsets_t = n_pieces ? tsi_graph_add_constant(graph, TSI_UNSIGNED_INT, 1, &shape1, offsets,
	                                              tsi_ops_name(graph, name, "offsets"))
	                     : NULL;
	if (n_pieces && !offsets_t) {
		rc = tsi_ops_failed(graph);
		goto done;
	}
	rc = tsi_ops_viewer_init(&idx_view, graph, idx_flat);
	if (!rc)
		rc = tsi_ops_viewer_init(&enc_view, graph, enc_flat);
	for (size_t lo = 0, hi, first = 0; !rc && lo < n_iv; lo = hi) {
		size_t k = 0;
		tsi_vertex *v;
		tsi_tensor *idx, *off;

		for (hi = lo; hi < n_iv && iv[hi].tile == iv[lo].tile;)
			hi++;
		for (size_t i = lo; i < hi; i++) {
			for (size_t b = iv[i].begin, e; b < iv[i].end; b = e) {
				tsi_ops_range piece;

				e = (b / cols + 1) * cols;
				if (e > iv[i].end)
					e = iv[i].end;
				piece.begin = b;
				piece.len = e - b;
				rows[k].begin = b / cols;
				rows[k].len = 1;
				pieces[k] = tsi_ops_view(&enc_view, &piece, 1);
				if (!pieces[k++]) {
					rc = tsi_ops_failed(graph);
					goto done;
				}
			}
		}
		idx = tsi_ops_view(&idx_view, rows, k);
		off = tsi_tensor_slice(offsets_t, first, first + k);
		v = idx && off ? tsi_graph_add_vertex(graph, cs, c->name) : NULL;
		if (!v || tsi_graph_set_tile_mapping(graph, off, iv[lo].tile) != TSI_OK ||
		    tsi_graph_connect(graph, v, "indices", idx) != TSI_OK ||
		    tsi_graph_connect(graph, v, "offsets", off) != TSI_OK ||
		    tsi_graph_connect_list(graph, v, "out", pieces, k) != TSI_OK ||
		    tsi_graph_set_vertex_tile(graph, v, iv[lo].tile) != TSI_OK) {
			rc = tsi_ops_failed(graph);
			goto done;
		}
		first += k;
	}
	if (rc)
		goto done;
	step = tsi_prog_execute(graph, cs);
	rc = step ? tsi_sequence_add(seq, step) : tsi_ops_failed(graph);
done:
	tsi_ops_viewer_free(&idx_view);
	tsi_ops_viewer_free(&enc_view);
	free(iv);
	free(pieces);
	free(rows);
	free(offsets);
	return rc;
}
