/*
 * popops, in small: the elementwise binary operations (add, subtract,
 * multiply) of Poplar's popops library, built only from the public graph
 * API as a model author would build them. Each operation makes a result
 * variable mapped like its first operand, one compute set, and one
 * BinaryOp1D vertex per tile of the result, so the exchange and compute
 * the profiler later sees resemble what real popops would produce.
 *
 * New operations are added by extending tsi_popops_binary_op, op_info[]
 * and the codelet table; the graph-building code is shared by all of them.
 */
#include "../ipu-private.h"
#include "tilescope/popops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Short names for the public operation codes inside this file. */
#define OP_ADD TSI_POPOPS_ADD
#define OP_SUBTRACT TSI_POPOPS_SUBTRACT
#define OP_MULTIPLY TSI_POPOPS_MULTIPLY
#define OP_COUNT TSI_POPOPS_BINARY_OP_COUNT

/* The element types each operation has a codelet for, in codelet-table order. */
enum op_type {
	OPT_FLOAT = 0,
	OPT_HALF,
	OPT_INT,
	OPT_COUNT
};

/* What the host side needs to know of each operation. */
static const struct binary_op_info {
	const char *api_name;     /* public function, for messages */
	const char *default_name; /* compute set name when the caller gives none */
} op_info[OP_COUNT] = {
	[OP_ADD] = {"tsi_popops_add", "Add"},
	[OP_SUBTRACT] = {"tsi_popops_sub", "Sub"},
	[OP_MULTIPLY] = {"tsi_popops_mul", "Mul"},
};

/* --- Device code ----------------------------------------------------------- */

/* True when a vertex's three fields (in1, in2, out) have one length. */
static bool fields_agree(const tsi_field *f, size_t n_fields)
{
	return n_fields == 3 && f[0].count == f[2].count && f[1].count == f[2].count;
}

/*
 * The compute function of every float BinaryOp1D vertex: out = in1 OP in2.
 * The switch sits outside the loop so each loop is a plain vector loop.
 */
static bool compute_float(const tsi_field *f, size_t n_fields, tsi_popops_binary_op op)
{
	const float *x = f[0].data;
	const float *y = f[1].data;
	float *z = f[2].data;
	size_t n = f[2].count;

	if (!fields_agree(f, n_fields))
		return false;
	switch (op) {
	case OP_ADD:
		for (size_t i = 0; i < n; i++)
			z[i] = x[i] + y[i];
		break;
	case OP_SUBTRACT:
		for (size_t i = 0; i < n; i++)
			z[i] = x[i] - y[i];
		break;
	case OP_MULTIPLY:
		for (size_t i = 0; i < n; i++)
			z[i] = x[i] * y[i];
		break;
	default:
		return false;
	}
	return true;
}

/*
 * Half vertices: each element is widened to float, computed, and rounded
 * back to binary16 (round to nearest even), which is what the IPU's
 * half-precision arithmetic gives for a single add, subtract or multiply.
 */
static bool compute_half(const tsi_field *f, size_t n_fields, tsi_popops_binary_op op)
{
	const uint16_t *x = f[0].data;
	const uint16_t *y = f[1].data;
	uint16_t *z = f[2].data;
	size_t n = f[2].count;

	if (!fields_agree(f, n_fields) || (unsigned)op >= OP_COUNT)
		return false;
	for (size_t i = 0; i < n; i++) {
		float u = tsi_half_to_float(x[i]);
		float v = tsi_half_to_float(y[i]);
		float r = op == OP_ADD ? u + v : op == OP_SUBTRACT ? u - v : u * v;

		z[i] = tsi_half_from_float(r);
	}
	return true;
}

/*
 * Int vertices. The arithmetic is done on uint32_t so that overflow wraps
 * modulo 2^32 as the device's integer unit does, instead of being
 * undefined behaviour on the host.
 */
static bool compute_int(const tsi_field *f, size_t n_fields, tsi_popops_binary_op op)
{
	const int32_t *x = f[0].data;
	const int32_t *y = f[1].data;
	int32_t *z = f[2].data;
	size_t n = f[2].count;

	if (!fields_agree(f, n_fields))
		return false;
	switch (op) {
	case OP_ADD:
		for (size_t i = 0; i < n; i++)
			z[i] = (int32_t)((uint32_t)x[i] + (uint32_t)y[i]);
		break;
	case OP_SUBTRACT:
		for (size_t i = 0; i < n; i++)
			z[i] = (int32_t)((uint32_t)x[i] - (uint32_t)y[i]);
		break;
	case OP_MULTIPLY:
		for (size_t i = 0; i < n; i++)
			z[i] = (int32_t)((uint32_t)x[i] * (uint32_t)y[i]);
		break;
	default:
		return false;
	}
	return true;
}

/* One compute callback per (operation, type): the callback has no user
 * data, so the operation is bound here. */
#define BINARY_CB(fn, OPC, ty)                                              \
	static bool fn(const tsi_field *f, size_t n) { return compute_##ty(f, n, OPC); }
BINARY_CB(add_float_cb, OP_ADD, float)
BINARY_CB(sub_float_cb, OP_SUBTRACT, float)
BINARY_CB(mul_float_cb, OP_MULTIPLY, float)
BINARY_CB(add_half_cb, OP_ADD, half)
BINARY_CB(sub_half_cb, OP_SUBTRACT, half)
BINARY_CB(mul_half_cb, OP_MULTIPLY, half)
BINARY_CB(add_int_cb, OP_ADD, int)
BINARY_CB(sub_int_cb, OP_SUBTRACT, int)
BINARY_CB(mul_int_cb, OP_MULTIPLY, int)
#undef BINARY_CB

/*
 * Cycle model of one BinaryOp1D vertex on one worker (an assumption, not
 * a measurement): 15 cycles of fixed cost (vertex entry, loading the three
 * base pointers and the count from vertex state, loop set-up and exit),
 * then 3 cycles per 64-bit vector of elements (two loads, the operation
 * and a store, with one load pairing with the arithmetic). A 64-bit vector
 * holds 2 floats or 4 halves; the IPU has no integer SIMD, so int works
 * one element per iteration.
 */
static uint64_t binary_cycles(const tsi_field *f, size_t n_fields, size_t per_vector)
{
	size_t n = n_fields == 3 ? f[2].count : 0;

	return 15 + 3 * (uint64_t)((n + per_vector - 1) / per_vector);
}

/* Estimators of the float, half and int vertices: 2, 4 and 1 elements per
 * 64-bit vector. */
static uint64_t cycles_float_cb(const tsi_field *f, size_t n_fields, const tsi_target *target)
{
	return binary_cycles(f, n_fields, 2);
}

static uint64_t cycles_half_cb(const tsi_field *f, size_t n_fields, const tsi_target *target)
{
	return binary_cycles(f, n_fields, 4);
}

static uint64_t cycles_int_cb(const tsi_field *f, size_t n_fields, const tsi_target *target)
{
	return binary_cycles(f, n_fields, 1);
}

/* One floating-point operation per output element (float and half only;
 * int vertices do no floating-point work and have no flops callback). */
static uint64_t flops_cb(const tsi_field *f, size_t n_fields)
{
	return n_fields == 3 ? f[2].count : 0;
}

#define BINARY_FIELDS(T)                                                    \
	{                                                                       \
		{"in1", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, T, 0},                   \
		{"in2", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, T, 0},                   \
		{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, T, 0},                  \
	}
static const tsi_field_def float_fields[3] = BINARY_FIELDS(TSI_FLOAT);
static const tsi_field_def half_fields[3] = BINARY_FIELDS(TSI_HALF);
static const tsi_field_def int_fields[3] = BINARY_FIELDS(TSI_INT);
#undef BINARY_FIELDS

/*
 * Vertex state: three 32-bit vector pointers and one 32-bit element count
 * (the three vectors share their length) = 16 bytes. Code: a short
 * unrolled loop with prologue and epilogue, about 256 bytes; half needs a
 * tail for lengths not a multiple of four (about 320 bytes).
 */
#define STATE_BYTES 16
#define CODE_BYTES 256
#define CODE_BYTES_HALF 320

#define BINARY_NAME(OP, T) "popops::BinaryOp1D<popops::expr::BinaryOpType::" OP "," T ">"
#define BINARY_CODELET(OP, T, fields, compute, cycles, flops, code)         \
	{BINARY_NAME(OP, T), fields, 3, compute, cycles, flops, STATE_BYTES, code, false}

/* codelets[op][type]; the type in each name is tsi_type_name() of it. */
#define FLOAT_CODELET(OP, cb) \
	BINARY_CODELET(OP, "float", float_fields, cb, cycles_float_cb, flops_cb, CODE_BYTES)
#define HALF_CODELET(OP, cb) \
	BINARY_CODELET(OP, "half", half_fields, cb, cycles_half_cb, flops_cb, CODE_BYTES_HALF)
#define INT_CODELET(OP, cb) \
	BINARY_CODELET(OP, "int", int_fields, cb, cycles_int_cb, NULL, CODE_BYTES)
static const tsi_codelet codelets[OP_COUNT][OPT_COUNT] = {
	[OP_ADD] = {
		FLOAT_CODELET("ADD", add_float_cb),
		HALF_CODELET("ADD", add_half_cb),
		INT_CODELET("ADD", add_int_cb),
	},
	[OP_SUBTRACT] = {
		FLOAT_CODELET("SUBTRACT", sub_float_cb),
		HALF_CODELET("SUBTRACT", sub_half_cb),
		INT_CODELET("SUBTRACT", sub_int_cb),
	},
	[OP_MULTIPLY] = {
		FLOAT_CODELET("MULTIPLY", mul_float_cb),
		HALF_CODELET("MULTIPLY", mul_half_cb),
		INT_CODELET("MULTIPLY", mul_int_cb),
	},
};
#undef FLOAT_CODELET
#undef HALF_CODELET
#undef INT_CODELET

/*
 * Registers every codelet of the library (popops::addCodelets). The graph
 * keeps the first error, so a failure here also shows in tsi_graph_error().
 */
TSI_API int tsi_popops_add_codelets(tsi_graph *graph)
{
	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_popops_add_codelets: graph is NULL");
	return tsi_graph_add_codelets(graph, &codelets[0][0], (size_t)OP_COUNT * OPT_COUNT);
}

/* --- Host side: building the operation -------------------------------------- */

/* The codelet-table column of `type`, or -1 when popops has no codelet for it. */
static int op_type_index(tsi_type type)
{
	switch (type) {
	case TSI_FLOAT:
		return OPT_FLOAT;
	case TSI_HALF:
		return OPT_HALF;
	case TSI_INT:
		return OPT_INT;
	default:
		return -1;
	}
}

/* Writes a tensor's shape as "{2,3}" into buf (for error messages). */
static void format_shape(char *buf, size_t size, const tsi_tensor *t)
{
	size_t shape[TSI_MAX_RANK];
	size_t rank = tsi_tensor_shape(t, shape);
	size_t used = 0;

	used += (size_t)snprintf(buf, size, "{");
	for (size_t d = 0; d < rank && used < size; d++)
		used += (size_t)snprintf(buf + used, size - used, "%s%zu", d ? "," : "", shape[d]);
	if (used < size)
		snprintf(buf + used, size - used, "}");
}

/* qsort order of mapping intervals: by tile, then by position, so the
 * intervals of one tile are adjacent and in element order. */
static int interval_cmp(const void *pa, const void *pb)
{
	const tsi_mapping_interval *a = pa;
	const tsi_mapping_interval *b = pb;

	if (a->tile != b->tile)
		return a->tile < b->tile ? -1 : 1;
	return a->begin < b->begin ? -1 : a->begin > b->begin;
}

/*
 * Maps the flattened result `out_flat` element by element like `a`; the
 * elements whose counterpart in `a` has no tile are gathered and spread
 * linearly. Returns TSI_OK or a negative code (recorded in the graph).
 */
static int map_like(tsi_graph *graph, const tsi_tensor *out_flat, const tsi_tensor *a)
{
	tsi_mapping_interval *map = NULL;
	tsi_tensor **unmapped = NULL;
	size_t n_map = 0;
	size_t n_unmapped = 0;
	int rc;

	rc = tsi_graph_get_tile_mapping(&map, &n_map, graph, a);
	if (rc)
		goto done;
	unmapped = calloc(n_map ? n_map : 1, sizeof(*unmapped));
	if (!unmapped) {
		rc = tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory in popops");
		goto done;
	}
	for (size_t i = 0; i < n_map; i++) {
		tsi_tensor *piece = tsi_tensor_slice(out_flat, map[i].begin, map[i].end);

		if (!piece) {
			rc = tsi_graph_error_code(graph) ? tsi_graph_error_code(graph) : TSI_ERR_NO_MEMORY;
			goto done;
		}
		if (map[i].tile == TSI_NO_TILE) {
			unmapped[n_unmapped++] = piece;
			continue;
		}
		rc = tsi_graph_set_tile_mapping(graph, piece, map[i].tile);
		if (rc)
			goto done;
	}
	if (n_unmapped) {
		tsi_tensor *rest = tsi_tensor_concat(unmapped, n_unmapped, 0);

		rc = rest ? tsi_graph_map_linearly(graph, rest, 1) : tsi_graph_error_code(graph);
		if (!rest && rc == 0)
			rc = TSI_ERR_NO_MEMORY;
	}
done:
	free(unmapped);
	free(map);
	return rc;
}

/*
 * Views of `flat` covering intervals iv[0..n) (all on one tile): a slice,
 * or the concatenation of several. Uses `scratch` (n entries).
 */
static tsi_tensor *tile_view(const tsi_tensor *flat, const tsi_mapping_interval *iv, size_t n,
                             tsi_tensor **scratch)
{
	if (n == 1)
		return tsi_tensor_slice(flat, iv[0].begin, iv[0].end);
	for (size_t i = 0; i < n; i++) {
		scratch[i] = tsi_tensor_slice(flat, iv[i].begin, iv[i].end);
		if (!scratch[i])
			return NULL;
	}
	return tsi_tensor_concat(scratch, n, 0);
}

/*
 * Adds to `cs` one vertex of `codelet` per tile of `out_flat`, connected
 * to the elements of a, b and out on that tile. Returns TSI_OK or a
 * negative code (recorded in the graph).
 */
static int add_vertices(tsi_graph *graph, tsi_compute_set *cs, const tsi_codelet *codelet,
                        const tsi_tensor *a_flat, const tsi_tensor *b_flat,
                        const tsi_tensor *out_flat)
{
	tsi_mapping_interval *map = NULL;
	tsi_tensor **scratch = NULL;
	size_t n_map = 0;
	int rc;

	rc = tsi_graph_get_tile_mapping(&map, &n_map, graph, out_flat);
	if (rc)
		goto done;
	scratch = calloc(n_map ? n_map : 1, sizeof(*scratch));
	if (!scratch) {
		rc = tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory in popops");
		goto done;
	}
	qsort(map, n_map, sizeof(*map), interval_cmp);
	for (size_t lo = 0, hi; lo < n_map; lo = hi) {
		for (hi = lo + 1; hi < n_map && map[hi].tile == map[lo].tile;)
			hi++;
		const tsi_tensor *in1 = tile_view(a_flat, map + lo, hi - lo, scratch);
		const tsi_tensor *in2 = in1 ? tile_view(b_flat, map + lo, hi - lo, scratch) : NULL;
		const tsi_tensor *res = in2 ? tile_view(out_flat, map + lo, hi - lo, scratch) : NULL;
		tsi_vertex *v = res ? tsi_graph_add_vertex(graph, cs, codelet->name) : NULL;

		if (!v || (rc = tsi_graph_connect(graph, v, "in1", in1)) != 0 ||
		    (rc = tsi_graph_connect(graph, v, "in2", in2)) != 0 ||
		    (rc = tsi_graph_connect(graph, v, "out", res)) != 0 ||
		    (rc = tsi_graph_set_vertex_tile(graph, v, map[lo].tile)) != 0) {
			if (rc == 0)
				rc = tsi_graph_error_code(graph) ? tsi_graph_error_code(graph)
				                                 : TSI_ERR_NO_MEMORY;
			goto done;
		}
	}
done:
	free(scratch);
	free(map);
	return rc;
}

/*
 * Checks the operands of `op` (`dest` is the sequence or compute set the
 * operation goes to, `dest_label` its kind for messages) and returns the
 * codelet to use, or NULL with the error recorded in the graph.
 */
static const tsi_codelet *check_operands(tsi_graph *graph, tsi_popops_binary_op op,
                                         const tsi_tensor *a, const tsi_tensor *b,
                                         const void *dest, const char *dest_label,
                                         const char *name)
{
	const char *api = (unsigned)op < OP_COUNT ? op_info[op].api_name : "tsi_popops_map_binary";
	size_t shape_a[TSI_MAX_RANK];
	size_t shape_b[TSI_MAX_RANK];
	char text_a[128];
	char text_b[128];
	const tsi_codelet *codelet;
	size_t rank;
	int ti;

	if (!graph) {
		tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", api);
		return NULL;
	}
	if ((unsigned)op >= OP_COUNT) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': unknown operation %d", api,
		               name ? name : "", (int)op);
		return NULL;
	}
	if (!a || !b || !dest) {
		/* A NULL from an earlier failed call is already recorded. */
		if (!tsi_graph_error_code(graph))
			tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': %s is NULL", api,
			               name ? name : "", !a ? "operand a" : !b ? "operand b" : dest_label);
		return NULL;
	}
	if (tsi_tensor_type(a) != tsi_tensor_type(b)) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': operands have different types (%s and %s)", api, name,
		               tsi_type_name(tsi_tensor_type(a)), tsi_type_name(tsi_tensor_type(b)));
		return NULL;
	}
	ti = op_type_index(tsi_tensor_type(a));
	if (ti < 0) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': type %s is not supported (float, half or int)", api, name,
		               tsi_type_name(tsi_tensor_type(a)));
		return NULL;
	}
	rank = tsi_tensor_shape(a, shape_a);
	if (rank != tsi_tensor_shape(b, shape_b) ||
	    memcmp(shape_a, shape_b, rank * sizeof(*shape_a)) != 0) {
		format_shape(text_a, sizeof(text_a), a);
		format_shape(text_b, sizeof(text_b), b);
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': operands have different shapes %s and %s", api, name, text_a,
		               text_b);
		return NULL;
	}
	codelet = &codelets[op][ti];
	if (!tsi_graph_lookup_codelet(graph, codelet->name)) {
		tsi_graph_fail(graph, TSI_ERR_UNKNOWN_VERTEX_TYPE,
		               "%s '%s': vertex type %s is not in the graph; call "
		               "tsi_popops_add_codelets() first",
		               api, name, codelet->name);
		return NULL;
	}
	return codelet;
}

/*
 * Makes the result variable "<prefix>/out", maps it like `a` and adds the
 * vertices computing it to `cs`. Returns the result or NULL (error in the
 * graph).
 */
static tsi_tensor *build_into_cs(tsi_graph *graph, const tsi_codelet *codelet,
                                 const tsi_tensor *a, const tsi_tensor *b, tsi_compute_set *cs,
                                 const char *prefix)
{
	size_t shape[TSI_MAX_RANK];
	size_t rank = tsi_tensor_shape(a, shape);
	char *out_name = malloc(strlen(prefix) + sizeof("/out"));
	tsi_tensor *out = NULL;
	tsi_tensor *result = NULL;
	const tsi_tensor *out_flat;
	const tsi_tensor *a_flat;
	const tsi_tensor *b_flat;

	if (!out_name) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory in popops");
		goto done;
	}
	sprintf(out_name, "%s/out", prefix);
	out = tsi_graph_add_variable(graph, tsi_tensor_type(a), rank, shape, out_name);
	out_flat = tsi_tensor_flatten(out);
	a_flat = tsi_tensor_flatten(a);
	b_flat = tsi_tensor_flatten(b);
	if (!out_flat || !a_flat || !b_flat)
		goto done;
	if (map_like(graph, out_flat, a) != 0)
		goto done;
	if (add_vertices(graph, cs, codelet, a_flat, b_flat, out_flat) != 0)
		goto done;
	result = out;
done:
	free(out_name);
	return result;
}

/*
 * The one implementation behind add, sub and mul: checks the operands,
 * builds a compute set named after the operation and appends its
 * execution to `seq`.
 */
TSI_API tsi_tensor *tsi_popops_map_binary(tsi_graph *graph, tsi_popops_binary_op op,
                                          const tsi_tensor *a, const tsi_tensor *b,
                                          tsi_program *seq, const char *debug_name)
{
	const char *name = debug_name ? debug_name
	                   : (unsigned)op < OP_COUNT ? op_info[op].default_name : "";
	const tsi_codelet *codelet = check_operands(graph, op, a, b, seq, "seq", name);
	tsi_compute_set *cs;
	tsi_tensor *out;
	tsi_program *step;

	if (!codelet)
		return NULL;
	cs = tsi_graph_add_compute_set(graph, name);
	out = cs ? build_into_cs(graph, codelet, a, b, cs, name) : NULL;
	step = out ? tsi_prog_execute(graph, cs) : NULL;
	if (!step || tsi_sequence_add(seq, step) != TSI_OK)
		return NULL;
	return out;
}

/*
 * The same operation built into the caller's compute set, so that several
 * operations can share one superstep; no program step is added.
 */
TSI_API tsi_tensor *tsi_popops_map_binary_cs(tsi_graph *graph, tsi_popops_binary_op op,
                                             const tsi_tensor *a, const tsi_tensor *b,
                                             tsi_compute_set *cs, const char *debug_name)
{
	const char *name = debug_name ? debug_name : cs ? tsi_compute_set_name(cs) : "";
	const tsi_codelet *codelet = check_operands(graph, op, a, b, cs, "compute set", name);

	return codelet ? build_into_cs(graph, codelet, a, b, cs, name) : NULL;
}

/* popops::add, popops::sub and popops::mul: the generic operation with its
 * operation code. */
TSI_API tsi_tensor *tsi_popops_add(tsi_graph *graph, const tsi_tensor *a, const tsi_tensor *b,
                                   tsi_program *seq, const char *debug_name)
{
	return tsi_popops_map_binary(graph, OP_ADD, a, b, seq, debug_name);
}

TSI_API tsi_tensor *tsi_popops_sub(tsi_graph *graph, const tsi_tensor *a, const tsi_tensor *b,
                                   tsi_program *seq, const char *debug_name)
{
	return tsi_popops_map_binary(graph, OP_SUBTRACT, a, b, seq, debug_name);
}

TSI_API tsi_tensor *tsi_popops_mul(tsi_graph *graph, const tsi_tensor *a, const tsi_tensor *b,
                                   tsi_program *seq, const char *debug_name)
{
	return tsi_popops_map_binary(graph, OP_MULTIPLY, a, b, seq, debug_name);
}
