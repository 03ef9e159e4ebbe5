/*
 * popops, in small: the elementwise operations of Poplar's popops library
 * (binary and unary maps, in place or not, numpy broadcasting of the
 * second operand, scaled add, fill, cast, one-hot encoding), built only
 * from the graph API as a model author would build them, plus the helpers
 * every ops file shares (ops-private.h). Reductions live in
 * popops-reduce.c.
 *
 * Work split. An operation makes its result mapped like its first operand
 * and works where the data is: the elements of each tile (its intervals,
 * concatenated) go to max(1, min(6, n / 64)) worker vertices of about n/k
 * elements each (rounded up to a multiple of 4 so each piece starts on a
 * 64-bit vector of halves), so a tile with 64 elements runs one vertex and
 * a tile with 384 or more keeps all six worker threads busy. Supervisor
 * codelets (ScaledAddSupervisor) and one-hot encoding make one vertex per
 * tile instead; the supervisor splits its work over the workers itself.
 *
 * Broadcasting. A `b` that broadcasts to a's shape is read through a view
 * (tsi_tensor_expand + tsi_tensor_broadcast): nothing is copied, and the
 * exchange of a broadcast operand is what it would be on the device. A
 * single-element `b` uses the BroadcastScalar1D vertices, which read the
 * one element as a scalar field, instead of a view repeating it.
 *
 * Cycle model (assumptions, not measurements). Worker vertices: a fixed
 * cost of 12-20 cycles (entry, loading pointers and counts from vertex
 * state, loop set-up and exit), then a cost per step of the inner loop,
 * where a step is one 64-bit vector (2 floats or 4 halves) for SIMD
 * arithmetic and one element for int and for everything without a vector
 * instruction (divide: about 8 cycles in float, 35 as an int software
 * loop; exp/log/sqrt/pow on the transcendental unit: 10-20 cycles).
 * Supervisor vertices are estimated, as in Poplar, in tile cycles: the
 * supervisor's own overhead plus six times the cycles of the worker with
 * the largest share (a worker issues one instruction every six tile
 * cycles). FLOPs: one per element of float or half output for every
 * elementwise operation (transcendentals count one), two per element for
 * scaled add (a multiply and an add); int, fill and cast do none.
 */
#include "ops-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kernels are written once, generic over the operation and element type,
 * and instantiated per codelet with constant arguments; forcing the
 * inlining lets the compiler fold the switches out of the loops. */
#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Short names for the public operation codes inside this file. */
#define OP_ADD TSI_POPOPS_ADD
#define OP_SUBTRACT TSI_POPOPS_SUBTRACT
#define OP_MULTIPLY TSI_POPOPS_MULTIPLY
#define OP_DIVIDE TSI_POPOPS_DIVIDE
#define OP_MAXIMUM TSI_POPOPS_MAXIMUM
#define OP_MINIMUM TSI_POPOPS_MINIMUM
#define OP_POWER TSI_POPOPS_POWER
#define OP_COUNT TSI_POPOPS_BINARY_OP_COUNT
#define UOP_COUNT TSI_POPOPS_UNARY_OP_COUNT

/* The element types the arithmetic codelets exist for, in table order. */
enum elem_type {
	ET_FLOAT = 0,
	ET_HALF,
	ET_INT,
	ET_COUNT
};

/* Vector width of a 64-bit load in elements (int has no SIMD). */
static const unsigned et_vector[ET_COUNT] = {2, 4, 1};

/* The codelet-table column of `type`, or -1 when there is none. */
static int et_index(tsi_type type)
{
	switch (type) {
	case TSI_FLOAT:
		return ET_FLOAT;
	case TSI_HALF:
		return ET_HALF;
	case TSI_INT:
		return ET_INT;
	default:
		return -1;
	}
}

/* Elements of a worker's inner loop: `n` in steps of `per`, `cycles` each. */
static uint64_t steps(size_t n, unsigned per, unsigned cycles)
{
	return (uint64_t)cycles * ((n + per - 1) / per);
}

/* One floating-point operation per element of field 0 (every float and
 * half elementwise codelet; the count is the same on all its fields). */
static uint64_t elementwise_flops_cb(const tsi_field *f, size_t n_fields)
{
	return n_fields ? f[0].count : 0;
}

/* --- Binary operations: device code ----------------------------------------- */

/* The four vertex shapes of a binary operation. */
enum binary_form {
	FORM_1D = 0,          /* BinaryOp1D: in1, in2, out */
	FORM_1D_IN_PLACE,     /* BinaryOp1DInPlace: in1Out, in2 */
	FORM_SCALAR,          /* BroadcastScalar1D: data, B (one element), out */
	FORM_SCALAR_IN_PLACE, /* BroadcastScalar1DInPlace: data, B */
	FORM_COUNT
};

/* x OP y in float (half is computed in float and rounded once). MAXIMUM
 * and MINIMUM return y when either is NaN, like a compare-and-select. */
ALWAYS_INLINE float binary_f(tsi_popops_binary_op op, float x, float y)
{
	switch (op) {
	case OP_ADD:
		return x + y;
	case OP_SUBTRACT:
		return x - y;
	case OP_MULTIPLY:
		return x * y;
	case OP_DIVIDE:
		return x / y;
	case OP_MAXIMUM:
		return x > y ? x : y;
	case OP_MINIMUM:
		return x < y ? x : y;
	case OP_POWER:
		return powf(x, y);
	default:
		return 0.0f;
	}
}

/*
 * x OP y in int. Arithmetic is done on uint32_t so that overflow wraps
 * modulo 2^32 as the device's integer unit does, instead of being
 * undefined behaviour on the host; division by zero gives 0 and
 * INT32_MIN / -1 wraps to INT32_MIN.
 */
ALWAYS_INLINE int32_t binary_i(tsi_popops_binary_op op, int32_t x, int32_t y)
{
	uint32_t u = (uint32_t)x;
	uint32_t v = (uint32_t)y;

	switch (op) {
	case OP_ADD:
		return (int32_t)(u + v);
	case OP_SUBTRACT:
		return (int32_t)(u - v);
	case OP_MULTIPLY:
		return (int32_t)(u * v);
	case OP_DIVIDE:
		return y == 0 ? 0 : y == -1 ? (int32_t)(0u - u) : x / y;
	case OP_MAXIMUM:
		return x > y ? x : y;
	case OP_MINIMUM:
		return x < y ? x : y;
	default:
		return 0;
	}
}

/*
 * The compute function of every binary vertex: checks the field sizes,
 * then one loop per (type, scalar or vector second operand). In place,
 * the output is field 0 itself.
 */
ALWAYS_INLINE bool binary_run(const tsi_field *f, size_t n_fields, tsi_popops_binary_op op,
                              enum binary_form form, enum elem_type et)
{
	const bool in_place = form == FORM_1D_IN_PLACE || form == FORM_SCALAR_IN_PLACE;
	const bool scalar = form == FORM_SCALAR || form == FORM_SCALAR_IN_PLACE;
	const tsi_field *out;
	size_t n;

	if (n_fields != (in_place ? 2u : 3u))
		return false;
	out = in_place ? &f[0] : &f[2];
	n = f[0].count;
	if (out->count != n || f[1].count != (scalar ? 1 : n))
		return false;
	switch (et) {
	case ET_FLOAT: {
		const float *x = f[0].data;
		const float *y = f[1].data;
		float *z = out->data;

		if (scalar) {
			const float b = y[0];
			for (size_t i = 0; i < n; i++)
				z[i] = binary_f(op, x[i], b);
		} else {
			for (size_t i = 0; i < n; i++)
				z[i] = binary_f(op, x[i], y[i]);
		}
		return true;
	}
	case ET_HALF: {
		const uint16_t *x = f[0].data;
		const uint16_t *y = f[1].data;
		uint16_t *z = out->data;

		if (scalar) {
			const float b = tsi_half_to_float(y[0]);
			for (size_t i = 0; i < n; i++)
				z[i] = tsi_half_from_float(binary_f(op, tsi_half_to_float(x[i]), b));
		} else {
			for (size_t i = 0; i < n; i++)
				z[i] = tsi_half_from_float(
				    binary_f(op, tsi_half_to_float(x[i]), tsi_half_to_float(y[i])));
		}
		return true;
	}
	case ET_INT: {
		const int32_t *x = f[0].data;
		const int32_t *y = f[1].data;
		int32_t *z = out->data;

		if (scalar) {
			const int32_t b = y[0];
			for (size_t i = 0; i < n; i++)
				z[i] = binary_i(op, x[i], b);
		} else {
			for (size_t i = 0; i < n; i++)
				z[i] = binary_i(op, x[i], y[i]);
		}
		return true;
	}
	default:
		return false;
	}
}

/* Cycles of one inner-loop step of each binary operation: {cycles,
 * elements per step}. Add, subtract, max, min: two loads, the operation
 * and a store in 3 cycles per 64-bit vector; int has no SIMD and its
 * multiply takes a cycle more; divide has no instruction (float: a
 * reciprocal estimate, a Newton step and a multiply; int: a software
 * loop); power is exp2(y * log2(x)) on the transcendental unit. */
static const struct step_cost {
	uint8_t cycles;
	uint8_t per;
} binary_cost[OP_COUNT][ET_COUNT] = {
	[OP_ADD] = {{3, 2}, {3, 4}, {3, 1}},
	[OP_SUBTRACT] = {{3, 2}, {3, 4}, {3, 1}},
	[OP_MULTIPLY] = {{3, 2}, {3, 4}, {4, 1}},
	[OP_DIVIDE] = {{8, 1}, {8, 1}, {35, 1}},
	[OP_MAXIMUM] = {{3, 2}, {3, 4}, {3, 1}},
	[OP_MINIMUM] = {{3, 2}, {3, 4}, {3, 1}},
	[OP_POWER] = {{20, 1}, {20, 1}, {20, 1}},
};

/* Worker cycles of a binary vertex: 15 fixed plus the loop. The scalar
 * forms save a load per step, which pairs with arithmetic anyway. */
static uint64_t binary_cycles(const tsi_field *f, size_t n_fields, tsi_popops_binary_op op,
                              enum elem_type et)
{
	const struct step_cost *c = &binary_cost[op][et];

	return 15 + steps(n_fields ? f[0].count : 0, c->per, c->cycles);
}

/* One compute function per (operation, type, form) and one estimator per
 * (operation, type): callbacks get no user data, so both are bound here. */
#define BINARY_CALLBACKS(OPN, ET)                                                         \
	static bool bin_##OPN##_##ET##_1d(const tsi_field *f, size_t n)                       \
	{                                                                                     \
		return binary_run(f, n, TSI_POPOPS_##OPN, FORM_1D, ET_##ET);                      \
	}                                                                                     \
	static bool bin_##OPN##_##ET##_1d_ip(const tsi_field *f, size_t n)                    \
	{                                                                                     \
		return binary_run(f, n, TSI_POPOPS_##OPN, FORM_1D_IN_PLACE, ET_##ET);             \
	}                                                                                     \
	static bool bin_##OPN##_##ET##_sc(const tsi_field *f, size_t n)                       \
	{                                                                                     \
		return binary_run(f, n, TSI_POPOPS_##OPN, FORM_SCALAR, ET_##ET);                  \
	}                                                                                     \
	static bool bin_##OPN##_##ET##_sc_ip(const tsi_field *f, size_t n)                    \
	{                                                                                     \
		return binary_run(f, n, TSI_POPOPS_##OPN, FORM_SCALAR_IN_PLACE, ET_##ET);         \
	}                                                                                     \
	static uint64_t bin_##OPN##_##ET##_cycles(const tsi_field *f, size_t n,               \
	                                          const tsi_target *target)                   \
	{                                                                                     \
		return binary_cycles(f, n, TSI_POPOPS_##OPN, ET_##ET);                            \
	}
BINARY_CALLBACKS(ADD, FLOAT)
BINARY_CALLBACKS(ADD, HALF)
BINARY_CALLBACKS(ADD, INT)
BINARY_CALLBACKS(SUBTRACT, FLOAT)
BINARY_CALLBACKS(SUBTRACT, HALF)
BINARY_CALLBACKS(SUBTRACT, INT)
BINARY_CALLBACKS(MULTIPLY, FLOAT)
BINARY_CALLBACKS(MULTIPLY, HALF)
BINARY_CALLBACKS(MULTIPLY, INT)
BINARY_CALLBACKS(DIVIDE, FLOAT)
BINARY_CALLBACKS(DIVIDE, HALF)
BINARY_CALLBACKS(DIVIDE, INT)
BINARY_CALLBACKS(MAXIMUM, FLOAT)
BINARY_CALLBACKS(MAXIMUM, HALF)
BINARY_CALLBACKS(MAXIMUM, INT)
BINARY_CALLBACKS(MINIMUM, FLOAT)
BINARY_CALLBACKS(MINIMUM, HALF)
BINARY_CALLBACKS(MINIMUM, INT)
BINARY_CALLBACKS(POWER, FLOAT)
BINARY_CALLBACKS(POWER, HALF)
#undef BINARY_CALLBACKS

/* The fields of each form, per element type. */
#define IN TSI_FIELD_INPUT
#define OUT TSI_FIELD_OUTPUT
#define INOUT TSI_FIELD_INOUT
#define VEC TSI_FIELD_VECTOR
#define SCALAR TSI_FIELD_SCALAR
#define BINARY_FIELDS(T)                                                                  \
	{                                                                                     \
		{{"in1", IN, VEC, T, 0}, {"in2", IN, VEC, T, 0}, {"out", OUT, VEC, T, 0}},        \
		{{"in1Out", INOUT, VEC, T, 0}, {"in2", IN, VEC, T, 0}},                           \
		{{"data", IN, VEC, T, 0}, {"B", IN, SCALAR, T, 0}, {"out", OUT, VEC, T, 0}},      \
		{{"data", INOUT, VEC, T, 0}, {"B", IN, SCALAR, T, 0}},                            \
	}
static const tsi_field_def binary_fields[ET_COUNT][FORM_COUNT][3] = {
	[ET_FLOAT] = BINARY_FIELDS(TSI_FLOAT),
	[ET_HALF] = BINARY_FIELDS(TSI_HALF),
	[ET_INT] = BINARY_FIELDS(TSI_INT),
};
#undef BINARY_FIELDS

/*
 * Vertex state: a 32-bit pointer per vector field, a 32-bit pointer for a
 * scalar field and one 32-bit element count shared by the vectors:
 * BinaryOp1D 16 bytes, in place 12, BroadcastScalar1D 16, in place 12.
 * Code: a short unrolled loop with prologue and epilogue, about 256 bytes
 * (half needs a tail for lengths not a multiple of four: +64); divide
 * carries its reciprocal sequence (+128), power its exp/log sequence
 * (+512).
 */
#define CODE_ADD 256
#define CODE_SUBTRACT 256
#define CODE_MULTIPLY 256
#define CODE_DIVIDE 384
#define CODE_MAXIMUM 256
#define CODE_MINIMUM 256
#define CODE_POWER 768
#define CODE_FLOAT 0
#define CODE_HALF 64
#define CODE_INT 0
#define FLOPS_FLOAT elementwise_flops_cb
#define FLOPS_HALF elementwise_flops_cb
#define FLOPS_INT NULL

#define BINARY_ONE(NAME, OPN, ET, TN, FORM, CB)                                           \
	{"popops::" NAME "<popops::expr::BinaryOpType::" #OPN "," TN ">",                     \
	 binary_fields[ET_##ET][FORM], FORM == FORM_1D || FORM == FORM_SCALAR ? 3 : 2,        \
	 bin_##OPN##_##ET##_##CB, bin_##OPN##_##ET##_cycles, FLOPS_##ET,                      \
	 FORM == FORM_1D || FORM == FORM_SCALAR ? 16 : 12,                                    \
	 CODE_##OPN + CODE_##ET, false}
#define BINARY_ENTRY(OPN, ET, TN)                                                         \
	[TSI_POPOPS_##OPN][ET_##ET] = {                                                       \
	    BINARY_ONE("BinaryOp1D", OPN, ET, TN, FORM_1D, 1d),                               \
	    BINARY_ONE("BinaryOp1DInPlace", OPN, ET, TN, FORM_1D_IN_PLACE, 1d_ip),            \
	    BINARY_ONE("BroadcastScalar1D", OPN, ET, TN, FORM_SCALAR, sc),                    \
	    BINARY_ONE("BroadcastScalar1DInPlace", OPN, ET, TN, FORM_SCALAR_IN_PLACE, sc_ip), \
	}
/* binary_codelets[op][type][form]; POWER has no int codelets (zeroed). */
static const tsi_codelet binary_codelets[OP_COUNT][ET_COUNT][FORM_COUNT] = {
	BINARY_ENTRY(ADD, FLOAT, "float"),
	BINARY_ENTRY(ADD, HALF, "half"),
	BINARY_ENTRY(ADD, INT, "int"),
	BINARY_ENTRY(SUBTRACT, FLOAT, "float"),
	BINARY_ENTRY(SUBTRACT, HALF, "half"),
	BINARY_ENTRY(SUBTRACT, INT, "int"),
	BINARY_ENTRY(MULTIPLY, FLOAT, "float"),
	BINARY_ENTRY(MULTIPLY, HALF, "half"),
	BINARY_ENTRY(MULTIPLY, INT, "int"),
	BINARY_ENTRY(DIVIDE, FLOAT, "float"),
	BINARY_ENTRY(DIVIDE, HALF, "half"),
	BINARY_ENTRY(DIVIDE, INT, "int"),
	BINARY_ENTRY(MAXIMUM, FLOAT, "float"),
	BINARY_ENTRY(MAXIMUM, HALF, "half"),
	BINARY_ENTRY(MAXIMUM, INT, "int"),
	BINARY_ENTRY(MINIMUM, FLOAT, "float"),
	BINARY_ENTRY(MINIMUM, HALF, "half"),
	BINARY_ENTRY(MINIMUM, INT, "int"),
	BINARY_ENTRY(POWER, FLOAT, "float"),
	BINARY_ENTRY(POWER, HALF, "half"),
};
#undef BINARY_ENTRY
#undef BINARY_ONE

/* --- Unary operations: device code ------------------------------------------ */

#define UOP_NEGATE TSI_POPOPS_NEGATE
#define UOP_ABSOLUTE TSI_POPOPS_ABSOLUTE
#define UOP_EXPONENT TSI_POPOPS_EXPONENT
#define UOP_LOGARITHM TSI_POPOPS_LOGARITHM
#define UOP_SQRT TSI_POPOPS_SQRT
#define UOP_SQUARE TSI_POPOPS_SQUARE
#define UOP_SIGNUM TSI_POPOPS_SIGNUM

/* OP(x) in float. SIGNUM keeps the sign of zero and passes NaN through. */
ALWAYS_INLINE float unary_f(tsi_popops_unary_op op, float x)
{
	switch (op) {
	case UOP_NEGATE:
		return -x;
	case UOP_ABSOLUTE:
		return fabsf(x);
	case UOP_EXPONENT:
		return expf(x);
	case UOP_LOGARITHM:
		return logf(x);
	case UOP_SQRT:
		return sqrtf(x);
	case UOP_SQUARE:
		return x * x;
	case UOP_SIGNUM:
		return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x;
	default:
		return 0.0f;
	}
}

/* OP(x) in int, wrapping like the device (|INT32_MIN| is INT32_MIN). */
ALWAYS_INLINE int32_t unary_i(tsi_popops_unary_op op, int32_t x)
{
	uint32_t u = (uint32_t)x;

	switch (op) {
	case UOP_NEGATE:
		return (int32_t)(0u - u);
	case UOP_ABSOLUTE:
		return x < 0 ? (int32_t)(0u - u) : x;
	case UOP_SQUARE:
		return (int32_t)(u * u);
	case UOP_SIGNUM:
		return (x > 0) - (x < 0);
	default:
		return 0;
	}
}

/* The compute function of every unary vertex (UnaryOp1D: in, out;
 * UnaryOp1DInPlace: inOut). */
ALWAYS_INLINE bool unary_run(const tsi_field *f, size_t n_fields, tsi_popops_unary_op op,
                             bool in_place, enum elem_type et)
{
	const tsi_field *out;
	size_t n;

	if (n_fields != (in_place ? 1u : 2u))
		return false;
	out = in_place ? &f[0] : &f[1];
	n = f[0].count;
	if (out->count != n)
		return false;
	switch (et) {
	case ET_FLOAT: {
		const float *x = f[0].data;
		float *z = out->data;

		for (size_t i = 0; i < n; i++)
			z[i] = unary_f(op, x[i]);
		return true;
	}
	case ET_HALF: {
		const uint16_t *x = f[0].data;
		uint16_t *z = out->data;

		for (size_t i = 0; i < n; i++)
			z[i] = tsi_half_from_float(unary_f(op, tsi_half_to_float(x[i])));
		return true;
	}
	case ET_INT: {
		const int32_t *x = f[0].data;
		int32_t *z = out->data;

		for (size_t i = 0; i < n; i++)
			z[i] = unary_i(op, x[i]);
		return true;
	}
	default:
		return false;
	}
}

/* Inner-loop step of each unary operation: negate, absolute value, square
 * and signum are a load, one or two SIMD operations and a store (2-3
 * cycles per 64-bit vector); exp, log and sqrt go element by element
 * through the transcendental unit (10-15 cycles each; half is widened to
 * float for them, so it costs the same). */
static const struct step_cost unary_cost[UOP_COUNT][ET_COUNT] = {
	[UOP_NEGATE] = {{2, 2}, {2, 4}, {2, 1}},
	[UOP_ABSOLUTE] = {{2, 2}, {2, 4}, {3, 1}},
	[UOP_EXPONENT] = {{12, 1}, {12, 1}, {12, 1}},
	[UOP_LOGARITHM] = {{15, 1}, {15, 1}, {15, 1}},
	[UOP_SQRT] = {{10, 1}, {10, 1}, {10, 1}},
	[UOP_SQUARE] = {{2, 2}, {2, 4}, {3, 1}},
	[UOP_SIGNUM] = {{3, 2}, {3, 4}, {3, 1}},
};

/* Worker cycles of a unary vertex: 12 fixed plus the loop. */
static uint64_t unary_cycles(const tsi_field *f, size_t n_fields, tsi_popops_unary_op op,
                             enum elem_type et)
{
	const struct step_cost *c = &unary_cost[op][et];

	return 12 + steps(n_fields ? f[0].count : 0, c->per, c->cycles);
}

#define UNARY_CALLBACKS(OPN, ET)                                                          \
	static bool un_##OPN##_##ET(const tsi_field *f, size_t n)                             \
	{                                                                                     \
		return unary_run(f, n, TSI_POPOPS_##OPN, false, ET_##ET);                         \
	}                                                                                     \
	static bool un_##OPN##_##ET##_ip(const tsi_field *f, size_t n)                        \
	{                                                                                     \
		return unary_run(f, n, TSI_POPOPS_##OPN, true, ET_##ET);                          \
	}                                                                                     \
	static uint64_t un_##OPN##_##ET##_cycles(const tsi_field *f, size_t n,                \
	                                         const tsi_target *target)                    \
	{                                                                                     \
		return unary_cycles(f, n, TSI_POPOPS_##OPN, ET_##ET);                             \
	}
UNARY_CALLBACKS(NEGATE, FLOAT)
UNARY_CALLBACKS(NEGATE, HALF)
UNARY_CALLBACKS(NEGATE, INT)
UNARY_CALLBACKS(ABSOLUTE, FLOAT)
UNARY_CALLBACKS(ABSOLUTE, HALF)
UNARY_CALLBACKS(ABSOLUTE, INT)
UNARY_CALLBACKS(EXPONENT, FLOAT)
UNARY_CALLBACKS(EXPONENT, HALF)
UNARY_CALLBACKS(LOGARITHM, FLOAT)
UNARY_CALLBACKS(LOGARITHM, HALF)
UNARY_CALLBACKS(SQRT, FLOAT)
UNARY_CALLBACKS(SQRT, HALF)
UNARY_CALLBACKS(SQUARE, FLOAT)
UNARY_CALLBACKS(SQUARE, HALF)
UNARY_CALLBACKS(SQUARE, INT)
UNARY_CALLBACKS(SIGNUM, FLOAT)
UNARY_CALLBACKS(SIGNUM, HALF)
UNARY_CALLBACKS(SIGNUM, INT)
#undef UNARY_CALLBACKS

#define UNARY_FIELDS(T)                                                                   \
	{                                                                                     \
		{{"in", IN, VEC, T, 0}, {"out", OUT, VEC, T, 0}},                                 \
		{{"inOut", INOUT, VEC, T, 0}},                                                    \
	}
static const tsi_field_def unary_fields[ET_COUNT][2][2] = {
	[ET_FLOAT] = UNARY_FIELDS(TSI_FLOAT),
	[ET_HALF] = UNARY_FIELDS(TSI_HALF),
	[ET_INT] = UNARY_FIELDS(TSI_INT),
};
#undef UNARY_FIELDS

/* Vertex state: UnaryOp1D two pointers and a count (12 bytes), in place
 * one pointer and a count (8). Code: about 192 bytes for the simple loops,
 * 512 with a transcendental sequence; half +64 for its tail. */
#define UCODE_NEGATE 192
#define UCODE_ABSOLUTE 192
#define UCODE_EXPONENT 512
#define UCODE_LOGARITHM 512
#define UCODE_SQRT 448
#define UCODE_SQUARE 192
#define UCODE_SIGNUM 192
#define UNARY_ENTRY(OPN, ET, TN)                                                          \
	[TSI_POPOPS_##OPN][ET_##ET] = {                                                       \
	    {"popops::UnaryOp1D<popops::expr::UnaryOpType::" #OPN "," TN ">",                 \
	     unary_fields[ET_##ET][0], 2, un_##OPN##_##ET, un_##OPN##_##ET##_cycles,          \
	     FLOPS_##ET, 12, UCODE_##OPN + CODE_##ET, false},                                 \
	    {"popops::UnaryOp1DInPlace<popops::expr::UnaryOpType::" #OPN "," TN ">",          \
	     unary_fields[ET_##ET][1], 1, un_##OPN##_##ET##_ip, un_##OPN##_##ET##_cycles,     \
	     FLOPS_##ET, 8, UCODE_##OPN + CODE_##ET, false},                                  \
	}
/* unary_codelets[op][type][in place]; exp, log and sqrt have no int codelets. */
static const tsi_codelet unary_codelets[UOP_COUNT][ET_COUNT][2] = {
	UNARY_ENTRY(NEGATE, FLOAT, "float"),
	UNARY_ENTRY(NEGATE, HALF, "half"),
	UNARY_ENTRY(NEGATE, INT, "int"),
	UNARY_ENTRY(ABSOLUTE, FLOAT, "float"),
	UNARY_ENTRY(ABSOLUTE, HALF, "half"),
	UNARY_ENTRY(ABSOLUTE, INT, "int"),
	UNARY_ENTRY(EXPONENT, FLOAT, "float"),
	UNARY_ENTRY(EXPONENT, HALF, "half"),
	UNARY_ENTRY(LOGARITHM, FLOAT, "float"),
	UNARY_ENTRY(LOGARITHM, HALF, "half"),
	UNARY_ENTRY(SQRT, FLOAT, "float"),
	UNARY_ENTRY(SQRT, HALF, "half"),
	UNARY_ENTRY(SQUARE, FLOAT, "float"),
	UNARY_ENTRY(SQUARE, HALF, "half"),
	UNARY_ENTRY(SQUARE, INT, "int"),
	UNARY_ENTRY(SIGNUM, FLOAT, "float"),
	UNARY_ENTRY(SIGNUM, HALF, "half"),
	UNARY_ENTRY(SIGNUM, INT, "int"),
};
#undef UNARY_ENTRY

/* --- Scaled add: device code ------------------------------------------------- */

/* A += scaleB * B (ScaledAddSupervisor<T,T,true>: A, B, scaleB). Half
 * computes in float and rounds once; int wraps. */
ALWAYS_INLINE bool scaled_add_run(const tsi_field *f, size_t n_fields, enum elem_type et)
{
	size_t n;

	if (n_fields != 3 || f[1].count != f[0].count || f[2].count != 1)
		return false;
	n = f[0].count;
	switch (et) {
	case ET_FLOAT: {
		float *a = f[0].data;
		const float *b = f[1].data;
		const float s = *(const float *)f[2].data;

		for (size_t i = 0; i < n; i++)
			a[i] += s * b[i];
		return true;
	}
	case ET_HALF: {
		uint16_t *a = f[0].data;
		const uint16_t *b = f[1].data;
		const float s = tsi_half_to_float(*(const uint16_t *)f[2].data);

		for (size_t i = 0; i < n; i++)
			a[i] = tsi_half_from_float(tsi_half_to_float(a[i]) + s * tsi_half_to_float(b[i]));
		return true;
	}
	case ET_INT: {
		int32_t *a = f[0].data;
		const int32_t *b = f[1].data;
		const uint32_t s = (uint32_t)((const int32_t *)f[2].data)[0];

		for (size_t i = 0; i < n; i++)
			a[i] = (int32_t)((uint32_t)a[i] + s * (uint32_t)b[i]);
		return true;
	}
	default:
		return false;
	}
}

/*
 * Tile cycles of a ScaledAddSupervisor: 40 cycles of supervisor work
 * (vertex entry, spawning the workers, waiting for them) plus six times
 * the worker cycles of the largest share, ceil(n / workers) elements at
 * 12 fixed cycles and 2 cycles per 64-bit vector (a paired load of A and
 * B, an axpy, a store); int works one element in 3 cycles.
 */
static uint64_t scaled_add_cycles(const tsi_field *f, size_t n_fields, const tsi_target *target,
                                  enum elem_type et)
{
	unsigned workers = target && target->num_worker_contexts ? target->num_worker_contexts : 6;
	size_t n = n_fields ? f[0].count : 0;
	size_t share = (n + workers - 1) / workers;
	uint64_t worker = 12 + (et == ET_INT ? steps(share, 1, 3) : steps(share, et_vector[et], 2));

	return 40 + (uint64_t)workers * worker;
}

/* Two floating-point operations (multiply, add) per element. */
static uint64_t scaled_add_flops_cb(const tsi_field *f, size_t n_fields)
{
	return n_fields ? 2 * (uint64_t)f[0].count : 0;
}

#define SCALED_ADD_CALLBACKS(ET)                                                          \
	static bool scaled_add_##ET(const tsi_field *f, size_t n)                             \
	{                                                                                     \
		return scaled_add_run(f, n, ET_##ET);                                             \
	}                                                                                     \
	static uint64_t scaled_add_##ET##_cycles(const tsi_field *f, size_t n,                \
	                                         const tsi_target *target)                    \
	{                                                                                     \
		return scaled_add_cycles(f, n, target, ET_##ET);                                  \
	}
SCALED_ADD_CALLBACKS(FLOAT)
SCALED_ADD_CALLBACKS(HALF)
SCALED_ADD_CALLBACKS(INT)
#undef SCALED_ADD_CALLBACKS

#define SCALED_ADD_FIELDS(T)                                                              \
	{{"A", INOUT, VEC, T, 0}, {"B", IN, VEC, T, 0}, {"scaleB", IN, SCALAR, T, 0}}
static const tsi_field_def scaled_add_fields[ET_COUNT][3] = {
	[ET_FLOAT] = SCALED_ADD_FIELDS(TSI_FLOAT),
	[ET_HALF] = SCALED_ADD_FIELDS(TSI_HALF),
	[ET_INT] = SCALED_ADD_FIELDS(TSI_INT),
};
#undef SCALED_ADD_FIELDS

/* Vertex state: A and B pointers, the count and the scale (16 bytes).
 * Code: the supervisor's dispatch plus the worker loop, about 480 bytes. */
static const tsi_codelet scaled_add_codelets[ET_COUNT] = {
	{"popops::ScaledAddSupervisor<float,float,true>", scaled_add_fields[ET_FLOAT], 3,
	 scaled_add_FLOAT, scaled_add_FLOAT_cycles, scaled_add_flops_cb, 16, 480, true},
	{"popops::ScaledAddSupervisor<half,half,true>", scaled_add_fields[ET_HALF], 3,
	 scaled_add_HALF, scaled_add_HALF_cycles, scaled_add_flops_cb, 16, 544, true},
	{"popops::ScaledAddSupervisor<int,int,true>", scaled_add_fields[ET_INT], 3, scaled_add_INT,
	 scaled_add_INT_cycles, NULL, 16, 416, true},
};

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
ALWAYS_INLINE bool fill_run(const tsi_field *f, size_t n_fields, size_t size)
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
ALWAYS_INLINE uint64_t fill_cycles(const tsi_field *f, size_t n_fields, size_t size)
{
	return 10 + steps((n_fields ? f[0].count : 0) * size, 8, 1);
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
ALWAYS_INLINE int32_t float_to_int(float x)
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
ALWAYS_INLINE bool cast_run(const tsi_field *f, size_t n_fields, tsi_type s, tsi_type d)
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
ALWAYS_INLINE uint64_t cast_cycles(const tsi_field *f, size_t n_fields, tsi_type s, tsi_type d)
{
	size_t n = n_fields ? f[0].count : 0;
	bool fh = (s == TSI_FLOAT && d == TSI_HALF) || (s == TSI_HALF && d == TSI_FLOAT);

	return 12 + steps(n, fh ? 2 : 1, 2);
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
ALWAYS_INLINE bool one_hot_run(const tsi_field *f, size_t n_fields, bool signed_index,
                               enum elem_type et)
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
ALWAYS_INLINE uint64_t one_hot_cycles(const tsi_field *f, size_t n_fields, enum elem_type et)
{
	size_t size = et == ET_HALF ? 2 : 4;

	if (n_fields != 3)
		return 20;
	return 20 + 10 * (uint64_t)f[2].n_vectors + steps(f[2].count * size, 8, 1);
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
#undef INOUT
#undef VEC
#undef SCALAR

/* --- Registration ------------------------------------------------------------- */

/* Adds the non-empty entries of a codelet table (unsupported combinations
 * are left zeroed in the tables above). */
static int add_table(tsi_graph *graph, const tsi_codelet *table, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc;

		if (!table[i].name)
			continue;
		rc = tsi_graph_add_codelet(graph, &table[i]);
		if (rc)
			return rc;
	}
	return TSI_OK;
}

/*
 * Registers every codelet of the library (popops::addCodelets): the
 * elementwise ones here and the reductions of popops-reduce.c. The graph
 * keeps the first error, so a failure here also shows in
 * tsi_graph_error().
 */
TSI_API int tsi_popops_add_codelets(tsi_graph *graph)
{
	int rc;

	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_popops_add_codelets: graph is NULL");
	rc = add_table(graph, &binary_codelets[0][0][0], (size_t)OP_COUNT * ET_COUNT * FORM_COUNT);
	if (!rc)
		rc = add_table(graph, &unary_codelets[0][0][0], (size_t)UOP_COUNT * ET_COUNT * 2);
	if (!rc)
		rc = add_table(graph, scaled_add_codelets, ET_COUNT);
	if (!rc)
		rc = add_table(graph, fill_codelets, TSI_TYPE_COUNT);
	for (size_t s = 0; !rc && s < TSI_TYPE_COUNT; s++)
		for (size_t d = 0; !rc && d < TSI_TYPE_COUNT; d++)
			if (s != d)
				rc = tsi_graph_add_codelet(graph, &cast_codelets[s][d]);
	if (!rc)
		rc = add_table(graph, &one_hot_codelets[0][0], (size_t)OH_INDEX_COUNT * ET_COUNT);
	if (!rc)
		rc = tsi_ops_reduce_add_codelets(graph);
	return rc;
}

/* --- Shared helpers (ops-private.h) -------------------------------------------- */

int tsi_ops_oom(tsi_graph *graph, const char *api)
{
	return tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory in %s", api);
}

int tsi_ops_failed(const tsi_graph *graph)
{
	int rc = tsi_graph_error_code(graph);

	return rc ? rc : TSI_ERR_NO_MEMORY;
}

int tsi_ops_null_arg(tsi_graph *graph, const char *api, const char *name, const char *what)
{
	if (tsi_graph_error_code(graph))
		return TSI_ERR_INVALID_GRAPH;
	return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': %s is NULL", api,
	                      name ? name : "", what);
}

void tsi_ops_format_shape(char *buf, size_t size, const tsi_tensor *t)
{
	size_t shape[TSI_MAX_RANK];
	size_t rank = tsi_tensor_shape(t, shape);
	size_t used = 0;

	if (!size)
		return;
	used += (size_t)snprintf(buf, size, "{");
	for (size_t d = 0; d < rank && used < size; d++)
		used += (size_t)snprintf(buf + used, size - used, "%s%zu", d ? "," : "", shape[d]);
	if (used < size)
		snprintf(buf + used, size - used, "}");
}

const tsi_codelet *tsi_ops_require_codelet(tsi_graph *graph, const char *api, const char *name,
                                           const char *type_name, const char *adder)
{
	const tsi_codelet *c = tsi_graph_lookup_codelet(graph, type_name);

	if (!c)
		tsi_graph_fail(graph, TSI_ERR_UNKNOWN_VERTEX_TYPE,
		               "%s '%s': vertex type %s is not in the graph; call %s() first", api, name,
		               type_name, adder);
	return c;
}

char *tsi_ops_name(tsi_graph *graph, const char *prefix, const char *suffix)
{
	char *s = tsi_arena_printf(&graph->core->arena, "%s/%s", prefix, suffix);

	if (!s)
		tsi_ops_oom(graph, "popops");
	return s;
}

bool tsi_ops_touches_constant(const tsi_tensor *t)
{
	for (size_t r = 0; r < t->n_regions; r++)
		if (tsi_graph_var(t->graph, t->regions[r].var)->is_constant)
			return true;
	return false;
}

/* qsort order of regions: by variable, then start. */
static int region_cmp(const void *pa, const void *pb)
{
	const tsi_region *a = pa;
	const tsi_region *b = pb;

	if (a->var != b->var)
		return a->var < b->var ? -1 : 1;
	return a->begin < b->begin ? -1 : a->begin > b->begin;
}

/* Sorting a copy of the region list puts any overlap next to each other.
 * On OOM it answers "no aliases": the write then just happens twice. */
bool tsi_ops_has_aliases(const tsi_tensor *t)
{
	tsi_region *r;
	bool alias = false;

	if (t->n_regions < 2)
		return false;
	r = malloc(t->n_regions * sizeof(*r));
	if (!r)
		return false;
	memcpy(r, t->regions, t->n_regions * sizeof(*r));
	qsort(r, t->n_regions, sizeof(*r), region_cmp);
	for (size_t i = 1; i < t->n_regions && !alias; i++)
		alias = r[i].var == r[i - 1].var && r[i - 1].begin + r[i - 1].len > r[i].begin;
	free(r);
	return alias;
}

bool tsi_ops_broadcastable(const tsi_tensor *b, size_t rank, const size_t *shape)
{
	size_t rb = b->rank;

	if (rb > rank)
		return false;
	for (size_t d = 0; d < rb; d++) {
		size_t bd = b->shape[rb - 1 - d];

		if (bd != shape[rank - 1 - d] && bd != 1)
			return false;
	}
	return true;
}

const tsi_tensor *tsi_ops_broadcast(const tsi_tensor *b, size_t rank, const size_t *shape)
{
	const tsi_tensor *t = b;

	while (t && t->rank < rank)
		t = tsi_tensor_expand(t, 0);
	for (size_t d = 0; t && d < rank; d++)
		if (t->shape[d] != shape[d])
			t = tsi_tensor_broadcast(t, shape[d], d);
	return t;
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
 * The unmapped elements are numbered in element order and element u goes
 * to tile u / ceil(unmapped / tiles), which is where
 * tsi_graph_map_linearly(rest, 1) puts them.
 */
int tsi_ops_work_intervals(tsi_graph *graph, const tsi_tensor *t, tsi_mapping_interval **out,
                           size_t *count)
{
	tsi_mapping_interval *map = NULL;
	tsi_mapping_interval *res = NULL;
	size_t n = 0, unmapped = 0, n_res = 0, per_tile, pos = 0;
	unsigned tiles = tsi_graph_get_target(graph)->num_tiles;
	int rc;

	*out = NULL;
	*count = 0;
	rc = tsi_graph_get_tile_mapping(&map, &n, graph, t);
	if (rc)
		return tsi_graph_fail(graph, rc, "%s", tsi_error_last());
	for (size_t i = 0; i < n; i++)
		if (map[i].tile == TSI_NO_TILE)
			unmapped += map[i].end - map[i].begin;
	if (!unmapped) {
		res = map;
		n_res = n;
		goto sort;
	}
	/* Each tile boundary crossed splits one interval in two. */
	res = malloc((n + tiles + 1) * sizeof(*res));
	if (!res) {
		free(map);
		return tsi_ops_oom(graph, "popops");
	}
	per_tile = (unmapped + tiles - 1) / tiles;
	for (size_t i = 0; i < n; i++) {
		if (map[i].tile != TSI_NO_TILE) {
			res[n_res++] = map[i];
			continue;
		}
		for (size_t b = map[i].begin; b < map[i].end;) {
			size_t tile = pos / per_tile;
			size_t take = (tile + 1) * per_tile - pos;

			if (take > map[i].end - b)
				take = map[i].end - b;
			res[n_res].tile = (unsigned)tile;
			res[n_res].begin = b;
			res[n_res].end = b + take;
			n_res++;
			b += take;
			pos += take;
		}
	}
	free(map);
sort:
	if (n_res > 1)
		qsort(res, n_res, sizeof(*res), interval_cmp);
	n = 0;
	for (size_t i = 0; i < n_res; i++) {
		if (n && res[n - 1].tile == res[i].tile && res[n - 1].end == res[i].begin)
			res[n - 1].end = res[i].end;
		else
			res[n++] = res[i];
	}
	*out = res;
	*count = n;
	return TSI_OK;
}

int tsi_ops_map_intervals(tsi_graph *graph, const tsi_tensor *dst, const tsi_mapping_interval *iv,
                          size_t n)
{
	for (size_t i = 0; i < n; i++) {
		tsi_tensor *piece = tsi_tensor_slice(dst, iv[i].begin, iv[i].end);
		int rc = piece ? tsi_graph_set_tile_mapping(graph, piece, iv[i].tile)
		               : tsi_ops_failed(graph);

		if (rc)
			return rc;
	}
	return TSI_OK;
}

size_t tsi_ops_worker_count(const tsi_graph *graph, size_t n)
{
	size_t workers = tsi_graph_get_target(graph)->num_worker_contexts;
	size_t k = n / 64;

	if (workers == 0)
		workers = 1;
	return k < 1 ? 1 : k > workers ? workers : k;
}

size_t tsi_ops_worker_chunk(size_t n, size_t workers)
{
	size_t chunk = (n + workers - 1) / workers;

	chunk = (chunk + 3) & ~(size_t)3;
	return chunk ? chunk : 1;
}

tsi_tensor *tsi_ops_tile_constants(tsi_graph *graph, tsi_type type, double value,
                                   const unsigned *tiles, size_t n, const char *name)
{
	tsi_tensor *c = tsi_graph_add_constant_fill(graph, type, 1, &n, value, name);

	for (size_t i = 0, j; c && i < n; i = j) {
		tsi_tensor *piece;

		for (j = i + 1; j < n && tiles[j] == tiles[i];)
			j++;
		piece = tsi_tensor_slice(c, i, j);
		if (!piece || tsi_graph_set_tile_mapping(graph, piece, tiles[i]) != TSI_OK)
			return NULL;
	}
	return c;
}

int tsi_ops_viewer_init(tsi_ops_viewer *v, tsi_graph *graph, const tsi_tensor *flat)
{
	size_t pos = 0;

	memset(v, 0, sizeof(*v));
	v->flat = flat;
	v->start = malloc((flat->n_regions + 1) * sizeof(*v->start));
	if (!v->start)
		return tsi_ops_oom(graph, "popops");
	for (size_t r = 0; r < flat->n_regions; r++) {
		v->start[r] = pos;
		pos += flat->regions[r].len;
	}
	v->start[flat->n_regions] = pos;
	return TSI_OK;
}

/* Appends a region to the viewer's scratch, extending the last one when
 * it continues it. False on OOM. */
static bool viewer_push(tsi_ops_viewer *v, size_t *n, uint32_t var, size_t begin, size_t len)
{
	if (*n && v->buf[*n - 1].var == var && v->buf[*n - 1].begin + v->buf[*n - 1].len == begin) {
		v->buf[*n - 1].len += len;
		return true;
	}
	if (*n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 16;
		tsi_region *buf = realloc(v->buf, cap * sizeof(*buf));

		if (!buf)
			return false;
		v->buf = buf;
		v->cap = cap;
	}
	v->buf[*n].var = var;
	v->buf[*n].begin = begin;
	v->buf[*n].len = len;
	(*n)++;
	return true;
}

tsi_tensor *tsi_ops_view(tsi_ops_viewer *v, const tsi_ops_range *r, size_t n)
{
	const tsi_tensor *t = v->flat;
	size_t total = 0, n_buf = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = r[i].begin;
		size_t len = r[i].len;
		size_t lo = 0, hi = t->n_regions;

		if (len == 0)
			continue;
		total += len;
		/* The last region starting at or before k. */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (v->start[mid] <= k)
				lo = mid;
			else
				hi = mid;
		}
		for (size_t reg = lo; len > 0 && reg < t->n_regions; reg++) {
			size_t off = k - v->start[reg];
			size_t take = t->regions[reg].len - off;

			if (take > len)
				take = len;
			if (!viewer_push(v, &n_buf, t->regions[reg].var, t->regions[reg].begin + off, take)) {
				tsi_ops_oom(t->graph, "popops");
				return NULL;
			}
			k += take;
			len -= take;
		}
	}
	return tsi_tensor_make(t->graph, t->type, 1, &total, v->buf, n_buf);
}

void tsi_ops_viewer_free(tsi_ops_viewer *v)
{
	free(v->start);
	free(v->buf);
	memset(v, 0, sizeof(*v));
}

/* --- Elementwise graph building ------------------------------------------------ */

/*
 * What an elementwise operation connects: tensors[i] goes to codelet
 * field i. A vector field gets the part of its (flat) tensor that the
 * vertex works on; a scalar field with a tensor gets that one element in
 * every vertex; a field with no tensor gets the per-tile constant
 * (`const_value` converted to the field's type), as Poplar keeps such a
 * value in the vertex state.
 */
typedef struct ew_work {
	const tsi_codelet *codelet;
	const tsi_tensor *tensors[4];
	bool per_tile;       /* one vertex per tile (supervisor codelets) */
	double const_value;  /* for the field without a tensor */
	const char *const_name;
} ew_work;

/*
 * Adds the vertices of `w` to `cs`: for each tile of the intervals iv
 * (sorted by tile, from tsi_ops_work_intervals), its elements cut into
 * worker pieces, one vertex per piece placed on that tile. Returns TSI_OK
 * or a negative code (recorded in the graph).
 */
static int ew_build(tsi_graph *graph, tsi_compute_set *cs, const ew_work *w,
                    const tsi_mapping_interval *iv, size_t n_iv)
{
	size_t n_fields = w->codelet->n_fields;
	tsi_ops_viewer viewers[4];
	tsi_ops_range *ranges = NULL;
	unsigned *tiles = NULL;
	tsi_tensor *consts = NULL;
	size_t n_groups = 0, const_field = n_fields;
	int rc = TSI_OK;

	memset(viewers, 0, sizeof(viewers));
	for (size_t f = 0; f < n_fields && !rc; f++) {
		if (!w->tensors[f])
			const_field = f;
		else if (w->codelet->fields[f].shape != TSI_FIELD_SCALAR)
			rc = tsi_ops_viewer_init(&viewers[f], graph, w->tensors[f]);
	}
	ranges = malloc((n_iv ? n_iv : 1) * sizeof(*ranges));
	tiles = malloc((n_iv ? n_iv : 1) * sizeof(*tiles));
	if (!rc && (!ranges || !tiles))
		rc = tsi_ops_oom(graph, "popops");
	if (rc)
		goto done;
	for (size_t i = 0; i < n_iv; i++)
		if (i == 0 || iv[i].tile != iv[i - 1].tile)
			tiles[n_groups++] = iv[i].tile;
	if (const_field < n_fields && n_groups) {
		consts = tsi_ops_tile_constants(graph, w->codelet->fields[const_field].type,
		                                w->const_value, tiles, n_groups, w->const_name);
		if (!consts) {
			rc = tsi_ops_failed(graph);
			goto done;
		}
	}
	for (size_t lo = 0, hi, g = 0; lo < n_iv; lo = hi, g++) {
		size_t total = 0, i = lo, off = 0, workers, chunk;

		for (hi = lo; hi < n_iv && iv[hi].tile == iv[lo].tile; hi++)
			total += iv[hi].end - iv[hi].begin;
		workers = w->per_tile ? 1 : tsi_ops_worker_count(graph, total);
		chunk = w->per_tile ? total : tsi_ops_worker_chunk(total, workers);
		for (size_t start = 0; start < total; start += chunk) {
			size_t want = total - start < chunk ? total - start : chunk;
			size_t n_ranges = 0;
			tsi_vertex *v;

			while (want > 0) {
				size_t take = iv[i].end - iv[i].begin - off;

				if (take > want)
					take = want;
				ranges[n_ranges].begin = iv[i].begin + off;
				ranges[n_ranges].len = take;
				n_ranges++;
				off += take;
				want -= take;
				if (iv[i].begin + off == iv[i].end) {
					i++;
					off = 0;
				}
			}
			v = tsi_graph_add_vertex(graph, cs, w->codelet->name);
			if (!v) {
				rc = tsi_ops_failed(graph);
				goto done;
			}
			for (size_t f = 0; f < n_fields; f++) {
				const tsi_tensor *t;

				if (f == const_field)
					t = tsi_tensor_index(consts, g);
				else if (w->codelet->fields[f].shape == TSI_FIELD_SCALAR)
					t = w->tensors[f];
				else
					t = tsi_ops_view(&viewers[f], ranges, n_ranges);
				rc = t ? tsi_graph_connect(graph, v, w->codelet->fields[f].name, t)
				       : tsi_ops_failed(graph);
				if (rc)
					goto done;
			}
			rc = tsi_graph_set_vertex_tile(graph, v, tiles[g]);
			if (rc)
				goto done;
		}
	}
done:
	for (size_t f = 0; f < 4; f++)
		tsi_ops_viewer_free(&viewers[f]);
	free(ranges);
	free(tiles);
	return rc;
}

/*
 * Makes the variable "<prefix>/out" of `type` with t's shape, mapped
 * like t, and returns it with t's work intervals (the caller frees *iv)
 * and its flat view. NULL on error (recorded).
 */
static tsi_tensor *result_like(tsi_graph *graph, const tsi_tensor *t, tsi_type type,
                               const char *prefix, tsi_mapping_interval **iv, size_t *n_iv,
                               const tsi_tensor **out_flat)
{
	size_t shape[TSI_MAX_RANK];
	size_t rank = tsi_tensor_shape(t, shape);
	const char *name = tsi_ops_name(graph, prefix, "out");
	tsi_tensor *out = name ? tsi_graph_add_variable(graph, type, rank, shape, name) : NULL;

	*iv = NULL;
	*n_iv = 0;
	*out_flat = out ? tsi_tensor_flatten(out) : NULL;
	if (!*out_flat)
		return NULL;
	if (tsi_ops_work_intervals(graph, t, iv, n_iv) != TSI_OK ||
	    tsi_ops_map_intervals(graph, *out_flat, *iv, *n_iv) != TSI_OK) {
		free(*iv);
		*iv = NULL;
		return NULL;
	}
	return out;
}

/* Checks that `t` may be written in place by `api` '`name`': not a
 * constant and no element twice. Returns TSI_OK or the recorded error. */
static int check_writable(tsi_graph *graph, const char *api, const char *name, const tsi_tensor *t)
{
	if (tsi_ops_touches_constant(t))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': cannot write to %s: it is (or contains) a constant", api,
		                      name, tsi_tensor_describe(t));
	if (tsi_ops_has_aliases(t))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': cannot write in place to %s: some of its elements appear "
		                      "more than once (a broadcast or aliasing view)",
		                      api, name, tsi_tensor_describe(t));
	return TSI_OK;
}

/* --- Binary operations ----------------------------------------------------------- */

/* What the host side needs to know of each operation. */
static const struct binary_op_info {
	const char *api_name;     /* public function, for messages */
	const char *default_name; /* compute set name when the caller gives none */
	const char *op_name;      /* the BinaryOpType */
} op_info[OP_COUNT] = {
	[OP_ADD] = {"tsi_popops_add", "Add", "ADD"},
	[OP_SUBTRACT] = {"tsi_popops_sub", "Sub", "SUBTRACT"},
	[OP_MULTIPLY] = {"tsi_popops_mul", "Mul", "MULTIPLY"},
	[OP_DIVIDE] = {"tsi_popops_map_binary", "Div", "DIVIDE"},
	[OP_MAXIMUM] = {"tsi_popops_map_binary", "Max", "MAXIMUM"},
	[OP_MINIMUM] = {"tsi_popops_map_binary", "Min", "MINIMUM"},
	[OP_POWER] = {"tsi_popops_map_binary", "Pow", "POWER"},
};

/* A binary operation whose operands passed the checks. */
typedef struct binary_plan {
	const tsi_codelet *codelet;
	const tsi_tensor *b;    /* b broadcast to a's shape, or its one element (scalar form) */
	enum binary_form form;
} binary_plan;

/*
 * Checks the operands of `op` for `api` '`name`' and fills `plan`.
 * `dest` is the sequence or compute set the operation goes to (named
 * `dest_label` in messages). Returns TSI_OK, or a negative code with the
 * error recorded (TSI_ERR_INVALID_GRAPH quietly for a NULL that echoes an
 * earlier error).
 */
static int plan_binary(tsi_graph *graph, const char *api, const char *name,
                       tsi_popops_binary_op op, const tsi_tensor *a, const tsi_tensor *b,
                       const void *dest, const char *dest_label, bool in_place, binary_plan *plan)
{
	size_t shape[TSI_MAX_RANK];
	char text_a[128], text_b[128];
	size_t rank;
	int et, rc;

	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", api);
	if ((unsigned)op >= OP_COUNT)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': unknown operation %d",
		                      api, name, (int)op);
	if (!a || !b || !dest)
		return tsi_ops_null_arg(graph, api, name, !a ? "operand a" : !b ? "operand b" : dest_label);
	if (a->type != b->type)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': operands have different types (%s and %s)", api, name,
		                      tsi_type_name(a->type), tsi_type_name(b->type));
	et = et_index(a->type);
	if (et < 0)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': type %s is not supported (float, half or int)", api, name,
		                      tsi_type_name(a->type));
	if (!binary_codelets[op][et][FORM_1D].name)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': %s is not supported for %s (float or half only)", api,
		                      name, op_info[op].op_name, tsi_type_name(a->type));
	rank = tsi_tensor_shape(a, shape);
	if (!tsi_ops_broadcastable(b, rank, shape)) {
		tsi_ops_format_shape(text_a, sizeof(text_a), a);
		tsi_ops_format_shape(text_b, sizeof(text_b), b);
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': operands have different shapes %s and %s, and operand b "
		                      "%s does not broadcast to the shape of operand a %s",
		                      api, name, text_a, text_b, tsi_tensor_describe(b),
		                      tsi_tensor_describe(a));
	}
	if (in_place && (rc = check_writable(graph, api, name, a)) != TSI_OK)
		return rc;
	if (b->numel == 1 && a->numel != 1) {
		plan->form = in_place ? FORM_SCALAR_IN_PLACE : FORM_SCALAR;
		plan->b = tsi_tensor_flatten(b);
	} else {
		plan->form = in_place ? FORM_1D_IN_PLACE : FORM_1D;
		plan->b = tsi_ops_broadcast(b, rank, shape);
		plan->b = plan->b ? tsi_tensor_flatten(plan->b) : NULL;
	}
	if (!plan->b)
		return tsi_ops_failed(graph);
	plan->codelet = tsi_ops_require_codelet(graph, api, name,
	                                        binary_codelets[op][et][plan->form].name,
	                                        "tsi_popops_add_codelets");
	return plan->codelet ? TSI_OK : TSI_ERR_UNKNOWN_VERTEX_TYPE;
}

/*
 * Makes the result variable "<prefix>/out", maps it like `a` and adds the
 * vertices computing it to `cs`. Returns the result or NULL (error in the
 * graph).
 */
static tsi_tensor *binary_into_cs(tsi_graph *graph, const binary_plan *plan, const tsi_tensor *a,
                                  tsi_compute_set *cs, const char *prefix)
{
	tsi_mapping_interval *iv = NULL;
	const tsi_tensor *out_flat = NULL;
	size_t n_iv = 0;
	tsi_tensor *out = result_like(graph, a, a->type, prefix, &iv, &n_iv, &out_flat);
	ew_work w = {plan->codelet, {tsi_tensor_flatten(a), plan->b, out_flat, NULL}, false, 0, NULL};

	if (out && (!w.tensors[0] || ew_build(graph, cs, &w, iv, n_iv) != TSI_OK))
		out = NULL;
	free(iv);
	return out;
}

/* The name an operation's compute set and result get. */
static const char *binary_name(tsi_popops_binary_op op, const char *debug_name)
{
	if (debug_name)
		return debug_name;
	return (unsigned)op < OP_COUNT ? op_info[op].default_name : "";
}

/* The public function an operation is reported under. */
static const char *binary_api(tsi_popops_binary_op op)
{
	return (unsigned)op < OP_COUNT ? op_info[op].api_name : "tsi_popops_map_binary";
}

/*
 * The one implementation behind add, sub, mul and the other maps: checks
 * the operands, builds a compute set named after the operation and
 * appends its execution to `seq`.
 */
TSI_API tsi_tensor *tsi_popops_map_binary(tsi_graph *graph, tsi_popops_binary_op op,
                                          const tsi_tensor *a, const tsi_tensor *b,
                                          tsi_program *seq, const char *debug_name)
{
	const char *name = binary_name(op, debug_name);
	binary_plan plan;
	tsi_compute_set *cs;
	tsi_tensor *out;
	tsi_program *step;

	if (plan_binary(graph, binary_api(op), name, op, a, b, seq, "seq", false, &plan) != TSI_OK)
		return NULL;
	cs = tsi_graph_add_compute_set(graph, name);
	out = cs ? binary_into_cs(graph, &plan, a, cs, name) : NULL;
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
	binary_plan plan;

	if (plan_binary(graph, binary_api(op), name, op, a, b, cs, "compute set", false, &plan) !=
	    TSI_OK)
		return NULL;
	return binary_into_cs(graph, &plan, a, cs, name);
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

/* Adds a compute set named `name` with the vertices of `w` over the work
 * intervals of `layout`, and its execution to `seq`. */
static int run_elementwise(tsi_graph *graph, tsi_program *seq, const char *name, const ew_work *w,
                           const tsi_tensor *layout)
{
	tsi_mapping_interval *iv = NULL;
	size_t n_iv = 0;
	tsi_compute_set *cs = tsi_graph_add_compute_set(graph, name);
	tsi_program *step;
	int rc;

	if (!cs)
		return tsi_ops_failed(graph);
	rc = tsi_ops_work_intervals(graph, layout, &iv, &n_iv);
	if (!rc)
		rc = ew_build(graph, cs, w, iv, n_iv);
	free(iv);
	if (rc)
		return rc;
	step = tsi_prog_execute(graph, cs);
	return step ? tsi_sequence_add(seq, step) : tsi_ops_failed(graph);
}

/* a = a OP b: the same checks plus writability, then in-place vertices
 * placed where a's elements live. */
TSI_API int tsi_popops_map_binary_in_place(tsi_graph *graph, tsi_popops_binary_op op,
                                           const tsi_tensor *a, const tsi_tensor *b,
                                           tsi_program *seq, const char *debug_name)
{
	const char *name = binary_name(op, debug_name);
	binary_plan plan;
	ew_work w = {NULL, {NULL}, false, 0, NULL};
	int rc;

	rc = plan_binary(graph, "tsi_popops_map_binary_in_place", name, op, a, b, seq, "seq", true,
	                 &plan);
	if (rc)
		return rc;
	w.codelet = plan.codelet;
	w.tensors[0] = tsi_tensor_flatten(a);
	w.tensors[1] = plan.b;
	if (!w.tensors[0])
		return tsi_ops_failed(graph);
	return run_elementwise(graph, seq, name, &w, w.tensors[0]);
}

/* --- Unary operations ------------------------------------------------------------ */

static const char *const unary_default_name[UOP_COUNT] = {
	"Neg", "Abs", "Exp", "Log", "Sqrt", "Square", "Signum",
};
static const char *const unary_op_name[UOP_COUNT] = {
	"NEGATE", "ABSOLUTE", "EXPONENT", "LOGARITHM", "SQRT", "SQUARE", "SIGNUM",
};

/* Checks a unary operation's operand; returns its codelet or NULL with
 * *rc set (the error recorded, or quiet for an echoed NULL). */
static const tsi_codelet *plan_unary(tsi_graph *graph, const char *api, const char *name,
                                     tsi_popops_unary_op op, const tsi_tensor *a,
                                     const tsi_program *seq, bool in_place, int *rc)
{
	int et;

	if (!graph) {
		*rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", api);
		return NULL;
	}
	if ((unsigned)op >= UOP_COUNT) {
		*rc = tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': unknown operation %d",
		                     api, name, (int)op);
		return NULL;
	}
	if (!a || !seq) {
		*rc = tsi_ops_null_arg(graph, api, name, !a ? "operand" : "seq");
		return NULL;
	}
	et = et_index(a->type);
	if (et < 0) {
		*rc = tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                     "%s '%s': type %s is not supported (float, half or int)", api, name,
		                     tsi_type_name(a->type));
		return NULL;
	}
	if (!unary_codelets[op][et][0].name) {
		*rc = tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                     "%s '%s': %s is not supported for %s (float or half only)", api,
		                     name, unary_op_name[op], tsi_type_name(a->type));
		return NULL;
	}
	if (in_place && (*rc = check_writable(graph, api, name, a)) != TSI_OK)
		return NULL;
	*rc = TSI_ERR_UNKNOWN_VERTEX_TYPE;
	return tsi_ops_require_codelet(graph, api, name, unary_codelets[op][et][in_place].name,
	                               "tsi_popops_add_codelets");
}

/* OP(a) into a new variable mapped like a. */
TSI_API tsi_tensor *tsi_popops_map_unary(tsi_graph *graph, tsi_popops_unary_op op,
                                         const tsi_tensor *a, tsi_program *seq,
                                         const char *debug_name)
{
	const char *name = debug_name ? debug_name
	                   : (unsigned)op < UOP_COUNT ? unary_default_name[op] : "";
	int rc;
	const tsi_codelet *c = plan_unary(graph, "tsi_popops_map_unary", name, op, a, seq, false, &rc);
	tsi_mapping_interval *iv = NULL;
	const tsi_tensor *out_flat = NULL;
	size_t n_iv = 0;
	tsi_compute_set *cs;
	tsi_tensor *out;
	tsi_program *step = NULL;

	if (!c)
		return NULL;
	cs = tsi_graph_add_compute_set(graph, name);
	out = cs ? result_like(graph, a, a->type, name, &iv, &n_iv, &out_flat) : NULL;
	if (out) {
		ew_work w = {c, {tsi_tensor_flatten(a), out_flat, NULL, NULL}, false, 0, NULL};

		if (w.tensors[0] && ew_build(graph, cs, &w, iv, n_iv) == TSI_OK)
			step = tsi_prog_execute(graph, cs);
	}
	free(iv);
	if (!step || tsi_sequence_add(seq, step) != TSI_OK)
		return NULL;
	return out;
}

/* a = OP(a). */
TSI_API int tsi_popops_map_unary_in_place(tsi_graph *graph, tsi_popops_unary_op op,
                                          const tsi_tensor *a, tsi_program *seq,
                                          const char *debug_name)
{
	const char *name = debug_name ? debug_name
	                   : (unsigned)op < UOP_COUNT ? unary_default_name[op] : "";
	int rc;
	const tsi_codelet *c =
	    plan_unary(graph, "tsi_popops_map_unary_in_place", name, op, a, seq, true, &rc);
	ew_work w = {c, {NULL}, false, 0, NULL};

	if (!c)
		return rc;
	w.tensors[0] = tsi_tensor_flatten(a);
	if (!w.tensors[0])
		return tsi_ops_failed(graph);
	return run_elementwise(graph, seq, name, &w, w.tensors[0]);
}

/* --- Scaled add, fill, cast -------------------------------------------------------- */

/* a += scale * b with one supervisor vertex per tile of a; the scale is a
 * per-tile constant of a's type (an int scale must be a whole number). */
TSI_API int tsi_popops_scaled_add_to(tsi_graph *graph, const tsi_tensor *a, const tsi_tensor *b,
                                     float scale, tsi_program *seq, const char *debug_name)
{
	static const char api[] = "tsi_popops_scaled_add_to";
	const char *name = debug_name ? debug_name : "ScaledAdd";
	size_t shape[TSI_MAX_RANK];
	char text_a[128], text_b[128];
	ew_work w = {NULL, {NULL}, true, scale, NULL};
	size_t rank;
	int et, rc;

	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", api);
	if (!a || !b || !seq)
		return tsi_ops_null_arg(graph, api, name, !a ? "operand a" : !b ? "operand b" : "seq");
	if (a->type != b->type)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': operands have different types (%s and %s)", api, name,
		                      tsi_type_name(a->type), tsi_type_name(b->type));
	et = et_index(a->type);
	if (et < 0)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': type %s is not supported (float, half or int)", api, name,
		                      tsi_type_name(a->type));
	if (et == ET_INT && (scale != truncf(scale) || fabsf(scale) >= 2147483648.0f))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': scale %g is not a whole number, which int operands need",
		                      api, name, (double)scale);
	rank = tsi_tensor_shape(a, shape);
	if (!tsi_ops_broadcastable(b, rank, shape)) {
		tsi_ops_format_shape(text_a, sizeof(text_a), a);
		tsi_ops_format_shape(text_b, sizeof(text_b), b);
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': operands have different shapes %s and %s, and operand b "
		                      "%s does not broadcast to the shape of operand a %s",
		                      api, name, text_a, text_b, tsi_tensor_describe(b),
		                      tsi_tensor_describe(a));
	}
	rc = check_writable(graph, api, name, a);
	if (rc)
		return rc;
	w.codelet = tsi_ops_require_codelet(graph, api, name, scaled_add_codelets[et].name,
	                                    "tsi_popops_add_codelets");
	if (!w.codelet)
		return TSI_ERR_UNKNOWN_VERTEX_TYPE;
	w.tensors[0] = tsi_tensor_flatten(a);
	w.tensors[1] = tsi_ops_broadcast(b, rank, shape);
	w.tensors[1] = w.tensors[1] ? tsi_tensor_flatten(w.tensors[1]) : NULL;
	w.const_name = tsi_ops_name(graph, name, "scaleB");
	if (!w.tensors[0] || !w.tensors[1] || !w.const_name)
		return tsi_ops_failed(graph);
	return run_elementwise(graph, seq, name, &w, w.tensors[0]);
}

/* Every element of t = value, with Fill<T> vertices where t's elements
 * live; the value is a per-tile constant of t's type. */
TSI_API int tsi_popops_fill(tsi_graph *graph, const tsi_tensor *t, double value,
                            tsi_program *seq, const char *debug_name)
{
	static const char api[] = "tsi_popops_fill";
	const char *name = debug_name ? debug_name : "Fill";
	ew_work w = {NULL, {NULL}, false, value, NULL};

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
	return run_elementwise(graph, seq, name, &w, w.tensors[0]);
}

/* t converted to `type` in a new variable mapped like t: Cast<S,D>
 * vertices, or a plain copy when the types agree. */
TSI_API tsi_tensor *tsi_popops_cast(tsi_graph *graph, const tsi_tensor *t, tsi_type type,
                                    tsi_program *seq, const char *debug_name)
{
	static const char api[] = "tsi_popops_cast";
	const char *name = debug_name ? debug_name : "Cast";
	tsi_mapping_interval *iv = NULL;
	const tsi_tensor *out_flat = NULL;
	const tsi_codelet *c = NULL;
	size_t n_iv = 0;
	tsi_compute_set *cs = NULL;
	tsi_tensor *out;
	tsi_program *step = NULL;

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
	out = result_like(graph, t, type, name, &iv, &n_iv, &out_flat);
	if (out && !c) {
		step = tsi_prog_copy(graph, t, out);
	} else if (out) {
		ew_work w = {c, {tsi_tensor_flatten(t), out_flat, NULL, NULL}, false, 0, NULL};

		if (w.tensors[0] && ew_build(graph, cs, &w, iv, n_iv) == TSI_OK)
			step = tsi_prog_execute(graph, cs);
	}
	free(iv);
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
	et = et_index(encoded->type);
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
	if (et < 0) {
		tsi_graph_fail(graph, *rc, "%s '%s': encoded %s has type %s (float, half or int only)",
		               api, name, tsi_tensor_describe(encoded), tsi_type_name(encoded->type));
		return NULL;
	}
	if ((*rc = check_writable(graph, api, name, encoded)) != TSI_OK)
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
