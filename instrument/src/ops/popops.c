/*
 * popops, in small: the arithmetic elementwise operations of Poplar's
 * popops library (binary and unary maps, in place or not, numpy
 * broadcasting of the second operand, scaled add), built only from the
 * graph API as a model author would build them, and the registration of
 * every popops codelet. Fill, cast and one-hot encoding live in
 * popops-convert.c, reductions in popops-reduce.c, and the work split and
 * views every ops file shares in ops-util.c.
 *
 * Work split. An operation makes its result mapped like its first operand
 * and works where the data is, a tile's elements cut into up to six
 * worker vertices (ops-util.c). Supervisor codelets (ScaledAddSupervisor)
 * make one vertex per tile instead; the supervisor splits its work over
 * the workers itself.
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
 * arithmetic and one element for int and unsigned int (costed alike) and
 * for everything without a vector instruction (divide: about 8 cycles in
 * float, 35 as an integer software loop; exp/log/sqrt/pow on the
 * transcendental unit: 10-20 cycles).
 * Supervisor vertices are estimated, as in Poplar, in tile cycles: the
 * supervisor's own overhead plus six times the cycles of the worker with
 * the largest share (a worker issues one instruction every six tile
 * cycles). FLOPs: one per element of float or half output for every
 * elementwise operation (transcendentals count one), two per element for
 * scaled add (a multiply and an add); integer operations do none.
 *
 * Unsigned int has the binary operations but power, scaled add, the
 * reductions and, of the unary operations, square only: Poplar's unary
 * vertices have negate, absolute value and signum for signed types and
 * the transcendentals for float and half.
 */
#include "ops-private.h"

#include <math.h>
#include <stdlib.h>

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

/* Short names for the shared element types (ops-private.h), the order of
 * the codelet tables. */
#define ET_FLOAT TSI_OPS_FLOAT
#define ET_HALF TSI_OPS_HALF
#define ET_INT TSI_OPS_INT
#define ET_UINT TSI_OPS_UINT
#define ET_COUNT TSI_OPS_ELEM_COUNT

/* Vector width of a 64-bit load in elements (integers have no SIMD). */
static const unsigned et_vector[ET_COUNT] = {2, 4, 1, 1};

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
TSI_OPS_ALWAYS_INLINE float binary_f(tsi_popops_binary_op op, float x, float y)
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
TSI_OPS_ALWAYS_INLINE int32_t binary_i(tsi_popops_binary_op op, int32_t x, int32_t y)
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

/* x OP y in unsigned int: C's unsigned arithmetic, which wraps modulo
 * 2^32 as the device does; division by zero gives 0, as for int. */
TSI_OPS_ALWAYS_INLINE uint32_t binary_u(tsi_popops_binary_op op, uint32_t x, uint32_t y)
{
	switch (op) {
	case OP_ADD:
		return x + y;
	case OP_SUBTRACT:
		return x - y;
	case OP_MULTIPLY:
		return x * y;
	case OP_DIVIDE:
		return y == 0 ? 0 : x / y;
	case OP_MAXIMUM:
		return x > y ? x : y;
	case OP_MINIMUM:
		return x < y ? x : y;
	default:
		return 0;
	}
}

/* binary_run's loop for an element type T that the operation FN works
 * in directly (all but half): z = x OP y, or x OP B for the scalar forms. */
#define BINARY_LOOP(T, FN)                                                                \
	do {                                                                                  \
		const T *x = f[0].data;                                                           \
		const T *y = f[1].data;                                                           \
		T *z = out->data;                                                                 \
                                                                                          \
		if (scalar) {                                                                     \
			const T b = y[0];                                                             \
			for (size_t i = 0; i < n; i++)                                                \
				z[i] = FN(op, x[i], b);                                                   \
		} else {                                                                          \
			for (size_t i = 0; i < n; i++)                                                \
				z[i] = FN(op, x[i], y[i]);                                                \
		}                                                                                 \
		return true;                                                                      \
	} while (0)

/*
 * The compute function of every binary vertex: checks the field sizes,
 * then one loop per (type, scalar or vector second operand). In place,
 * the output is field 0 itself.
 */
TSI_OPS_ALWAYS_INLINE bool binary_run(const tsi_field *f, size_t n_fields, tsi_popops_binary_op op,
                                      enum binary_form form, enum tsi_ops_elem et)
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
	case ET_FLOAT:
		BINARY_LOOP(float, binary_f);
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
	case ET_INT:
		BINARY_LOOP(int32_t, binary_i);
	case ET_UINT:
		BINARY_LOOP(uint32_t, binary_u);
	default:
		return false;
	}
}
#undef BINARY_LOOP

/* Cycles of one inner-loop step of each binary operation: {cycles,
 * elements per step}. Add, subtract, max, min: two loads, the operation
 * and a store in 3 cycles per 64-bit vector; int and unsigned int have no
 * SIMD and their multiply takes a cycle more; divide has no instruction
 * (float: a reciprocal estimate, a Newton step and a multiply; integers: a
 * software loop); power is exp2(y * log2(x)) on the transcendental unit.
 * Columns: float, half, int, unsigned int. */
static const struct step_cost {
	uint8_t cycles;
	uint8_t per;
} binary_cost[OP_COUNT][ET_COUNT] = {
	[OP_ADD] = {{3, 2}, {3, 4}, {3, 1}, {3, 1}},
	[OP_SUBTRACT] = {{3, 2}, {3, 4}, {3, 1}, {3, 1}},
	[OP_MULTIPLY] = {{3, 2}, {3, 4}, {4, 1}, {4, 1}},
	[OP_DIVIDE] = {{8, 1}, {8, 1}, {35, 1}, {35, 1}},
	[OP_MAXIMUM] = {{3, 2}, {3, 4}, {3, 1}, {3, 1}},
	[OP_MINIMUM] = {{3, 2}, {3, 4}, {3, 1}, {3, 1}},
	[OP_POWER] = {{20, 1}, {20, 1}, {20, 1}, {20, 1}},
};

/* Worker cycles of a binary vertex: 15 fixed plus the loop. The scalar
 * forms save a load per step, which pairs with arithmetic anyway. */
static uint64_t binary_cycles(const tsi_field *f, size_t n_fields, tsi_popops_binary_op op,
                              enum tsi_ops_elem et)
{
	const struct step_cost *c = &binary_cost[op][et];

	return 15 + tsi_ops_steps(n_fields ? f[0].count : 0, c->per, c->cycles);
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
BINARY_CALLBACKS(ADD, UINT)
BINARY_CALLBACKS(SUBTRACT, FLOAT)
BINARY_CALLBACKS(SUBTRACT, HALF)
BINARY_CALLBACKS(SUBTRACT, INT)
BINARY_CALLBACKS(SUBTRACT, UINT)
BINARY_CALLBACKS(MULTIPLY, FLOAT)
BINARY_CALLBACKS(MULTIPLY, HALF)
BINARY_CALLBACKS(MULTIPLY, INT)
BINARY_CALLBACKS(MULTIPLY, UINT)
BINARY_CALLBACKS(DIVIDE, FLOAT)
BINARY_CALLBACKS(DIVIDE, HALF)
BINARY_CALLBACKS(DIVIDE, INT)
BINARY_CALLBACKS(DIVIDE, UINT)
BINARY_CALLBACKS(MAXIMUM, FLOAT)
BINARY_CALLBACKS(MAXIMUM, HALF)
BINARY_CALLBACKS(MAXIMUM, INT)
BINARY_CALLBACKS(MAXIMUM, UINT)
BINARY_CALLBACKS(MINIMUM, FLOAT)
BINARY_CALLBACKS(MINIMUM, HALF)
BINARY_CALLBACKS(MINIMUM, INT)
BINARY_CALLBACKS(MINIMUM, UINT)
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
	[ET_UINT] = BINARY_FIELDS(TSI_UNSIGNED_INT),
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
#define CODE_UINT 0
#define FLOPS_FLOAT elementwise_flops_cb
#define FLOPS_HALF elementwise_flops_cb
#define FLOPS_INT NULL
#define FLOPS_UINT NULL

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
/* binary_codelets[op][type][form]; POWER has no int or unsigned int
 * codelets (zeroed). */
static const tsi_codelet binary_codelets[OP_COUNT][ET_COUNT][FORM_COUNT] = {
	BINARY_ENTRY(ADD, FLOAT, "float"),
	BINARY_ENTRY(ADD, HALF, "half"),
	BINARY_ENTRY(ADD, INT, "int"),
	BINARY_ENTRY(ADD, UINT, "unsigned int"),
	BINARY_ENTRY(SUBTRACT, FLOAT, "float"),
	BINARY_ENTRY(SUBTRACT, HALF, "half"),
	BINARY_ENTRY(SUBTRACT, INT, "int"),
	BINARY_ENTRY(SUBTRACT, UINT, "unsigned int"),
	BINARY_ENTRY(MULTIPLY, FLOAT, "float"),
	BINARY_ENTRY(MULTIPLY, HALF, "half"),
	BINARY_ENTRY(MULTIPLY, INT, "int"),
	BINARY_ENTRY(MULTIPLY, UINT, "unsigned int"),
	BINARY_ENTRY(DIVIDE, FLOAT, "float"),
	BINARY_ENTRY(DIVIDE, HALF, "half"),
	BINARY_ENTRY(DIVIDE, INT, "int"),
	BINARY_ENTRY(DIVIDE, UINT, "unsigned int"),
	BINARY_ENTRY(MAXIMUM, FLOAT, "float"),
	BINARY_ENTRY(MAXIMUM, HALF, "half"),
	BINARY_ENTRY(MAXIMUM, INT, "int"),
	BINARY_ENTRY(MAXIMUM, UINT, "unsigned int"),
	BINARY_ENTRY(MINIMUM, FLOAT, "float"),
	BINARY_ENTRY(MINIMUM, HALF, "half"),
	BINARY_ENTRY(MINIMUM, INT, "int"),
	BINARY_ENTRY(MINIMUM, UINT, "unsigned int"),
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
TSI_OPS_ALWAYS_INLINE float unary_f(tsi_popops_unary_op op, float x)
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
TSI_OPS_ALWAYS_INLINE int32_t unary_i(tsi_popops_unary_op op, int32_t x)
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

/* OP(x) in unsigned int: only SQUARE has unsigned codelets (as in
 * Poplar); it wraps modulo 2^32. */
TSI_OPS_ALWAYS_INLINE uint32_t unary_u(tsi_popops_unary_op op, uint32_t x)
{
	return op == UOP_SQUARE ? x * x : 0;
}

/* unary_run's loop for an element type T that FN works in directly (all
 * but half). */
#define UNARY_LOOP(T, FN)                                                                 \
	do {                                                                                  \
		const T *x = f[0].data;                                                           \
		T *z = out->data;                                                                 \
                                                                                          \
		for (size_t i = 0; i < n; i++)                                                    \
			z[i] = FN(op, x[i]);                                                          \
		return true;                                                                      \
	} while (0)

/* The compute function of every unary vertex (UnaryOp1D: in, out;
 * UnaryOp1DInPlace: inOut). */
TSI_OPS_ALWAYS_INLINE bool unary_run(const tsi_field *f, size_t n_fields, tsi_popops_unary_op op,
                                     bool in_place, enum tsi_ops_elem et)
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
	case ET_FLOAT:
		UNARY_LOOP(float, unary_f);
	case ET_HALF: {
		const uint16_t *x = f[0].data;
		uint16_t *z = out->data;

		for (size_t i = 0; i < n; i++)
			z[i] = tsi_half_from_float(unary_f(op, tsi_half_to_float(x[i])));
		return true;
	}
	case ET_INT:
		UNARY_LOOP(int32_t, unary_i);
	case ET_UINT:
		UNARY_LOOP(uint32_t, unary_u);
	default:
		return false;
	}
}
#undef UNARY_LOOP

/* Inner-loop step of each unary operation: negate, absolute value, square
 * and signum are a load, one or two SIMD operations and a store (2-3
 * cycles per 64-bit vector); exp, log and sqrt go element by element
 * through the transcendental unit (10-15 cycles each; half is widened to
 * float for them, so it costs the same). Unsigned int as int. */
static const struct step_cost unary_cost[UOP_COUNT][ET_COUNT] = {
	[UOP_NEGATE] = {{2, 2}, {2, 4}, {2, 1}, {2, 1}},
	[UOP_ABSOLUTE] = {{2, 2}, {2, 4}, {3, 1}, {3, 1}},
	[UOP_EXPONENT] = {{12, 1}, {12, 1}, {12, 1}, {12, 1}},
	[UOP_LOGARITHM] = {{15, 1}, {15, 1}, {15, 1}, {15, 1}},
	[UOP_SQRT] = {{10, 1}, {10, 1}, {10, 1}, {10, 1}},
	[UOP_SQUARE] = {{2, 2}, {2, 4}, {3, 1}, {3, 1}},
	[UOP_SIGNUM] = {{3, 2}, {3, 4}, {3, 1}, {3, 1}},
};

/* Worker cycles of a unary vertex: 12 fixed plus the loop. */
static uint64_t unary_cycles(const tsi_field *f, size_t n_fields, tsi_popops_unary_op op,
                             enum tsi_ops_elem et)
{
	const struct step_cost *c = &unary_cost[op][et];

	return 12 + tsi_ops_steps(n_fields ? f[0].count : 0, c->per, c->cycles);
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
UNARY_CALLBACKS(SQUARE, UINT)
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
	[ET_UINT] = UNARY_FIELDS(TSI_UNSIGNED_INT),
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
/* unary_codelets[op][type][in place]; exp, log and sqrt have no int
 * codelets, and only square has unsigned int ones (Poplar has no unsigned
 * negate, absolute value or signum: for unsigned they would be 2^32 - x,
 * the identity and 0 or 1, and a model asking for them most likely
 * expected a signed type). */
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
	UNARY_ENTRY(SQUARE, UINT, "unsigned int"),
	UNARY_ENTRY(SIGNUM, FLOAT, "float"),
	UNARY_ENTRY(SIGNUM, HALF, "half"),
	UNARY_ENTRY(SIGNUM, INT, "int"),
};
#undef UNARY_ENTRY

/* --- Scaled add: device code ------------------------------------------------- */

/* A += scaleB * B (ScaledAddSupervisor<T,T,true>: A, B, scaleB). Half
 * computes in float and rounds once; int and unsigned int wrap. */
TSI_OPS_ALWAYS_INLINE bool scaled_add_run(const tsi_field *f, size_t n_fields, enum tsi_ops_elem et)
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
	case ET_UINT: {
		uint32_t *a = f[0].data;
		const uint32_t *b = f[1].data;
		const uint32_t s = ((const uint32_t *)f[2].data)[0];

		for (size_t i = 0; i < n; i++)
			a[i] += s * b[i];
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
 * B, an axpy, a store); int and unsigned int work one element in 3
 * cycles.
 */
static uint64_t scaled_add_cycles(const tsi_field *f, size_t n_fields, const tsi_target *target,
                                  enum tsi_ops_elem et)
{
	unsigned workers = tsi_ops_target_workers(target);
	size_t n = n_fields ? f[0].count : 0;
	size_t share = (n + workers - 1) / workers;
	uint64_t worker = 12 + (et == ET_INT || et == ET_UINT
	                            ? tsi_ops_steps(share, 1, 3)
	                            : tsi_ops_steps(share, et_vector[et], 2));

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
SCALED_ADD_CALLBACKS(UINT)
#undef SCALED_ADD_CALLBACKS

#define SCALED_ADD_FIELDS(T)                                                              \
	{{"A", INOUT, VEC, T, 0}, {"B", IN, VEC, T, 0}, {"scaleB", IN, SCALAR, T, 0}}
static const tsi_field_def scaled_add_fields[ET_COUNT][3] = {
	[ET_FLOAT] = SCALED_ADD_FIELDS(TSI_FLOAT),
	[ET_HALF] = SCALED_ADD_FIELDS(TSI_HALF),
	[ET_INT] = SCALED_ADD_FIELDS(TSI_INT),
	[ET_UINT] = SCALED_ADD_FIELDS(TSI_UNSIGNED_INT),
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
	{"popops::ScaledAddSupervisor<unsigned int,unsigned int,true>", scaled_add_fields[ET_UINT], 3,
	 scaled_add_UINT, scaled_add_UINT_cycles, NULL, 16, 416, true},
};
#undef IN
#undef OUT
#undef INOUT
#undef VEC
#undef SCALAR

/* --- Registration ------------------------------------------------------------- */

/*
 * Registers every codelet of the library (popops::addCodelets): the maps
 * and scaled add here, fill, cast and one-hot (popops-convert.c) and the
 * reductions (popops-reduce.c). The graph keeps the first error, so a
 * failure here also shows in tsi_graph_get_error().
 */
TSI_API int tsi_popops_add_codelets(tsi_graph *graph)
{
	int rc;

	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_popops_add_codelets: graph is NULL");
	rc = tsi_ops_add_codelet_table(graph, &binary_codelets[0][0][0],
	                               (size_t)OP_COUNT * ET_COUNT * FORM_COUNT);
	if (!rc)
		rc = tsi_ops_add_codelet_table(graph, &unary_codelets[0][0][0],
		                               (size_t)UOP_COUNT * ET_COUNT * 2);
	if (!rc)
		rc = tsi_ops_add_codelet_table(graph, scaled_add_codelets, ET_COUNT);
	if (!rc)
		rc = tsi_ops_convert_add_codelets(graph);
	if (!rc)
		rc = tsi_ops_reduce_add_codelets(graph);
	return rc;
}

/* --- Binary operations ----------------------------------------------------------- */

/* What the host side needs to know of each operation. */
static const struct binary_op_info {
	const char *api_name;     /* public function, for messages */
	const char *default_name; /* compute set name when the caller gives none */
	const char *op_name;      /* the BinaryOpType */
	const char *poplar;       /* Poplar's function, for the debug context */
	const char *poplar_in_place;
} op_info[OP_COUNT] = {
	[OP_ADD] = {"tsi_popops_add", "Add", "ADD", "popops::add", "popops::addInPlace"},
	[OP_SUBTRACT] = {"tsi_popops_sub", "Sub", "SUBTRACT", "popops::sub", "popops::subInPlace"},
	[OP_MULTIPLY] = {"tsi_popops_mul", "Mul", "MULTIPLY", "popops::mul", "popops::mulInPlace"},
	[OP_DIVIDE] = {"tsi_popops_map_binary", "Div", "DIVIDE", "popops::div", "popops::divInPlace"},
	[OP_MAXIMUM] = {"tsi_popops_map_binary", "Max", "MAXIMUM", "popops::max", "popops::maxInPlace"},
	[OP_MINIMUM] = {"tsi_popops_map_binary", "Min", "MINIMUM", "popops::min", "popops::minInPlace"},
	[OP_POWER] = {"tsi_popops_map_binary", "Pow", "POWER", "popops::pow", "popops::powInPlace"},
};

/* The element types (bits 1 << ET_*) that binary operation `op` has
 * codelets for, for messages. */
static unsigned binary_types(tsi_popops_binary_op op)
{
	unsigned mask = 0;

	for (unsigned e = 0; e < ET_COUNT; e++)
		if (binary_codelets[op][e][FORM_1D].name)
			mask |= 1u << e;
	return mask;
}

/* Checks that operands a and b of `api` '`name`' have one type, one the
 * arithmetic codelets exist for. Returns its table column (ET_*) or a
 * negative code (recorded). */
static int check_types(tsi_graph *graph, const char *api, const char *name, const tsi_tensor *a,
                       const tsi_tensor *b)
{
	char types[64];
	int et;

	if (a->type != b->type)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': operands have different types (%s and %s)", api, name,
		                      tsi_type_name(a->type), tsi_type_name(b->type));
	et = tsi_ops_elem_index(a->type);
	if (et < 0)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': type %s is not supported (%s)", api, name,
		                      tsi_type_name(a->type),
		                      tsi_ops_elem_list(types, sizeof(types), (1u << ET_COUNT) - 1));
	return et;
}

/* Checks that operand b of `api` '`name`' broadcasts to the shape of a,
 * which it writes to *rank and shape. Returns TSI_OK or the recorded
 * error. */
static int check_broadcast(tsi_graph *graph, const char *api, const char *name,
                           const tsi_tensor *a, const tsi_tensor *b, size_t *rank, size_t *shape)
{
	char text_a[128], text_b[128];

	*rank = tsi_tensor_fill_shape(shape, a);
	if (tsi_ops_broadcastable(b, *rank, shape))
		return TSI_OK;
	tsi_ops_format_shape(text_a, sizeof(text_a), a);
	tsi_ops_format_shape(text_b, sizeof(text_b), b);
	return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
	                      "%s '%s': operands have different shapes %s and %s, and operand b "
	                      "%s does not broadcast to the shape of operand a %s",
	                      api, name, text_a, text_b, tsi_tensor_describe(b),
	                      tsi_tensor_describe(a));
}

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
	char types[64];
	size_t rank;
	int et, rc;

	plan->codelet = NULL;
	plan->b = NULL;
	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", api);
	if ((unsigned)op >= OP_COUNT)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': unknown operation %d",
		                      api, name, (int)op);
	if (!a || !b || !dest)
		return tsi_ops_null_arg(graph, api, name, !a ? "operand a" : !b ? "operand b" : dest_label);
	et = check_types(graph, api, name, a, b);
	if (et < 0)
		return et;
	if (!binary_codelets[op][et][FORM_1D].name)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': %s is not supported for %s (%s only)", api, name,
		                      op_info[op].op_name, tsi_type_name(a->type),
		                      tsi_ops_elem_list(types, sizeof(types), binary_types(op)));
	rc = check_broadcast(graph, api, name, a, b, &rank, shape);
	if (rc)
		return rc;
	if (in_place && (rc = tsi_ops_check_writable(graph, api, name, a)) != TSI_OK)
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

/* Poplar's function for the operation (popops::add is popops::map with
 * ADD), named in its debug context. */
static const char *binary_poplar(tsi_popops_binary_op op, bool in_place)
{
	if ((unsigned)op >= OP_COUNT)
		return in_place ? "popops::mapInPlace" : "popops::map";
	return in_place ? op_info[op].poplar_in_place : op_info[op].poplar;
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
	TSI_OPS_DEBUG(graph, name, "popops", binary_poplar(op, false));
	binary_plan plan;
	tsi_compute_set *cs;
	tsi_tensor *out;
	tsi_program *step;

	if (plan_binary(graph, binary_api(op), name, op, a, b, seq, "seq", false, &plan) != TSI_OK)
		return NULL;
	cs = tsi_graph_add_compute_set(graph, name);
	out = cs ? tsi_ops_ew_result(graph, cs, plan.codelet, a, plan.b, a->type, name) : NULL;
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
	TSI_OPS_DEBUG(graph, name, "popops", binary_poplar(op, false));
	binary_plan plan;

	if (plan_binary(graph, binary_api(op), name, op, a, b, cs, "compute set", false, &plan) !=
	    TSI_OK)
		return NULL;
	return tsi_ops_ew_result(graph, cs, plan.codelet, a, plan.b, a->type, name);
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

/* a = a OP b: the same checks plus writability, then in-place vertices
 * placed where a's elements live. */
TSI_API int tsi_popops_map_binary_in_place(tsi_graph *graph, tsi_popops_binary_op op,
                                           const tsi_tensor *a, const tsi_tensor *b,
                                           tsi_program *seq, const char *debug_name)
{
	const char *name = binary_name(op, debug_name);
	TSI_OPS_DEBUG(graph, name, "popops", binary_poplar(op, true));
	binary_plan plan;
	tsi_ops_ew_work w = {NULL, {NULL}, false, 0, NULL};
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
	return tsi_ops_run_elementwise(graph, seq, name, &w, w.tensors[0]);
}

/* --- Unary operations ------------------------------------------------------------ */

static const char *const unary_default_name[UOP_COUNT] = {
	"Neg", "Abs", "Exp", "Log", "Sqrt", "Square", "Signum",
};
static const char *const unary_op_name[UOP_COUNT] = {
	"NEGATE", "ABSOLUTE", "EXPONENT", "LOGARITHM", "SQRT", "SQUARE", "SIGNUM",
};
/* Poplar's functions, for the debug contexts: [op][in place]. */
static const char *const unary_poplar[UOP_COUNT][2] = {
	{"popops::neg", "popops::negInPlace"},       {"popops::abs", "popops::absInPlace"},
	{"popops::exp", "popops::expInPlace"},       {"popops::log", "popops::logInPlace"},
	{"popops::sqrt", "popops::sqrtInPlace"},     {"popops::square", "popops::squareInPlace"},
	{"popops::signum", "popops::signumInPlace"},
};

/* Poplar's function for a unary operation (popops::map for an unknown one). */
static const char *unary_api(tsi_popops_unary_op op, bool in_place)
{
	if ((unsigned)op >= UOP_COUNT)
		return in_place ? "popops::mapInPlace" : "popops::map";
	return unary_poplar[op][in_place];
}

/* Checks a unary operation's operand; returns its codelet or NULL with
 * *rc set (the error recorded, or quiet for an echoed NULL). */
static const tsi_codelet *plan_unary(tsi_graph *graph, const char *api, const char *name,
                                     tsi_popops_unary_op op, const tsi_tensor *a,
                                     const tsi_program *seq, bool in_place, int *rc)
{
	char types[64];
	unsigned mask = 0;
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
	et = tsi_ops_elem_index(a->type);
	if (et < 0) {
		*rc = tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                     "%s '%s': type %s is not supported (%s)", api, name,
		                     tsi_type_name(a->type),
		                     tsi_ops_elem_list(types, sizeof(types), (1u << ET_COUNT) - 1));
		return NULL;
	}
	if (!unary_codelets[op][et][0].name) {
		for (unsigned e = 0; e < ET_COUNT; e++)
			if (unary_codelets[op][e][0].name)
				mask |= 1u << e;
		*rc = tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                     "%s '%s': %s is not supported for %s (%s only)", api, name,
		                     unary_op_name[op], tsi_type_name(a->type),
		                     tsi_ops_elem_list(types, sizeof(types), mask));
		return NULL;
	}
	if (in_place && (*rc = tsi_ops_check_writable(graph, api, name, a)) != TSI_OK)
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
	TSI_OPS_DEBUG(graph, name, "popops", unary_api(op, false));
	int rc;
	const tsi_codelet *c = plan_unary(graph, "tsi_popops_map_unary", name, op, a, seq, false, &rc);
	tsi_compute_set *cs;
	tsi_tensor *out;
	tsi_program *step;

	if (!c)
		return NULL;
	cs = tsi_graph_add_compute_set(graph, name);
	out = cs ? tsi_ops_ew_result(graph, cs, c, a, NULL, a->type, name) : NULL;
	step = out ? tsi_prog_execute(graph, cs) : NULL;
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
	TSI_OPS_DEBUG(graph, name, "popops", unary_api(op, true));
	int rc;
	const tsi_codelet *c =
	    plan_unary(graph, "tsi_popops_map_unary_in_place", name, op, a, seq, true, &rc);
	tsi_ops_ew_work w = {c, {NULL}, false, 0, NULL};

	if (!c)
		return rc;
	w.tensors[0] = tsi_tensor_flatten(a);
	if (!w.tensors[0])
		return tsi_ops_failed(graph);
	return tsi_ops_run_elementwise(graph, seq, name, &w, w.tensors[0]);
}

/* --- Scaled add ------------------------------------------------------------------ */

/* a += scale * b with one supervisor vertex per tile of a; the scale is a
 * per-tile constant of a's type (an int scale must be a whole number, an
 * unsigned int one also not negative: the constant would saturate to 0,
 * and a -= k b is tsi_popops_sub's job). */
TSI_API int tsi_popops_scaled_add_to(tsi_graph *graph, const tsi_tensor *a, const tsi_tensor *b,
                                     float scale, tsi_program *seq, const char *debug_name)
{
	static const char api[] = "tsi_popops_scaled_add_to";
	const char *name = debug_name ? debug_name : "ScaledAdd";
	TSI_OPS_DEBUG(graph, name, "popops", "popops::scaledAddTo");
	size_t shape[TSI_MAX_RANK];
	tsi_ops_ew_work w = {NULL, {NULL}, true, scale, NULL};
	size_t rank;
	int et, rc;

	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", api);
	if (!a || !b || !seq)
		return tsi_ops_null_arg(graph, api, name, !a ? "operand a" : !b ? "operand b" : "seq");
	et = check_types(graph, api, name, a, b);
	if (et < 0)
		return et;
	if (et == ET_INT && (scale != truncf(scale) || fabsf(scale) >= 2147483648.0f))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': scale %g is not a whole number, which int operands need",
		                      api, name, (double)scale);
	if (et == ET_UINT && (scale != truncf(scale) || scale < 0.0f || scale >= 4294967296.0f))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': scale %g is not a whole number from 0 to 2^32 - 1, which "
		                      "unsigned int operands need",
		                      api, name, (double)scale);
	rc = check_broadcast(graph, api, name, a, b, &rank, shape);
	if (rc)
		return rc;
	rc = tsi_ops_check_writable(graph, api, name, a);
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
	return tsi_ops_run_elementwise(graph, seq, name, &w, w.tensors[0]);
}
