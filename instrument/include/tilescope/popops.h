/*
 * popops: tensor operations for control programs, built the way Graphcore's
 * popops builds them: elementwise binary and unary maps (with numpy
 * broadcasting and in-place forms), scaled add, fill, cast, one-hot
 * encoding and multi-stage reductions. Results are variables mapped like
 * their first operand; work is split over the tiles that hold the data and
 * over each tile's six workers. Models include this header beside
 * <tilescope/ipu.h> and call tsi_popops_add_codelets() once per graph, as
 * Poplar programs call popops::addCodelets().
 */
#pragma once

#include "program.h"

TSB_BEGIN_DECLS

/* Registers every vertex type of this library in `graph` (elementwise,
 * scaled add, fill, cast, one-hot, reductions), named as Poplar names
 * them, e.g. "popops::BinaryOp1D<popops::expr::BinaryOpType::ADD,float>".
 * Calling it twice is harmless. Returns TSI_OK or a negative code (also
 * recorded in the graph). */
TSI_API int tsi_popops_add_codelets(tsi_graph *graph);

/* The binary operations (popops::expr::BinaryOpType). */
typedef enum tsi_popops_binary_op {
	TSI_POPOPS_ADD = 0,   /* a + b */
	TSI_POPOPS_SUBTRACT,  /* a - b */
	TSI_POPOPS_MULTIPLY,  /* a * b */
	TSI_POPOPS_DIVIDE,    /* a / b (integer division truncates; x/0 is 0 for integers) */
	TSI_POPOPS_MAXIMUM,   /* max(a, b) */
	TSI_POPOPS_MINIMUM,   /* min(a, b) */
	TSI_POPOPS_POWER,     /* pow(a, b), float and half only */
	TSI_POPOPS_BINARY_OP_COUNT
} tsi_popops_binary_op;

/* Elementwise a + b, appended to the sequence `seq` (popops::add).
 *
 * `a` and `b` must have the same type (FLOAT, HALF, INT or UNSIGNED_INT;
 * power: FLOAT or HALF) and the same shape; either may be any view (a
 * slice, a transpose ...). Integer arithmetic wraps modulo 2^32
 * (UNSIGNED_INT as C's unsigned arithmetic: 0 - 1 is UINT32_MAX), and max
 * and min compare as the operands' type. The result is a new variable
 * "<debug_name>/out" of a's shape whose element i lives on the tile of
 * element i of `a` (elements of `a` with no tile are spread linearly over
 * the graph's tiles). One compute set named `debug_name`
 * (NULL: "Add") with one vertex per tile of the result is executed by a
 * step added to `seq`.
 *
 * Returns the result (owned by the graph), or NULL with the error recorded
 * in the graph (see tsi_graph_get_error()); given a NULL operand it returns
 * NULL quietly when the graph already holds an error. */
TSI_API tsi_tensor *tsi_popops_add(tsi_graph *graph, const tsi_tensor *a, const tsi_tensor *b,
                                   tsi_program *seq, const char *debug_name);
/* Elementwise a - b (popops::sub); as tsi_popops_add, default name "Sub". */
TSI_API tsi_tensor *tsi_popops_sub(tsi_graph *graph, const tsi_tensor *a, const tsi_tensor *b,
                                   tsi_program *seq, const char *debug_name);
/* Elementwise a * b (popops::mul); as tsi_popops_add, default name "Mul". */
TSI_API tsi_tensor *tsi_popops_mul(tsi_graph *graph, const tsi_tensor *a, const tsi_tensor *b,
                                   tsi_program *seq, const char *debug_name);

/* Elementwise a OP b for any `op` (popops::map with a BinaryOpType); the
 * three functions above are this with their operation. A NULL debug_name
 * gives the operation's default ("Add", "Sub", "Mul"). */
TSI_API tsi_tensor *tsi_popops_map_binary(tsi_graph *graph, tsi_popops_binary_op op,
                                          const tsi_tensor *a, const tsi_tensor *b,
                                          tsi_program *seq, const char *debug_name);
/* As tsi_popops_map_binary, but adds the vertices to the existing compute
 * set `cs` and adds no program step: several operations with distinct
 * results can share one compute set and so run in one superstep (the
 * caller executes `cs`). The result is named "<debug_name>/out", with the
 * compute set's name when debug_name is NULL. */
TSI_API tsi_tensor *tsi_popops_map_binary_cs(tsi_graph *graph, tsi_popops_binary_op op,
                                             const tsi_tensor *a, const tsi_tensor *b,
                                             tsi_compute_set *cs, const char *debug_name);

/* --- Broadcasting, in-place and unary operations ------------------------- */
/* In every binary operation below, `b` may also be any tensor that
 * broadcasts to a's shape by numpy's rules (trailing dimensions equal or
 * 1, missing leading dimensions): a [B, C] plus a bias [C] works. The
 * result has a's shape and type. */

/* a = a OP b in place (popops::mapInPlace / addInPlace ...). `a` must be
 * writable (not a constant). Returns TSI_OK or a negative code (recorded). */
TSI_API int tsi_popops_map_binary_in_place(tsi_graph *graph, tsi_popops_binary_op op,
                                           const tsi_tensor *a, const tsi_tensor *b,
                                           tsi_program *seq, const char *debug_name);

/* The unary operations (popops::expr::UnaryOpType). Types: exp, log and
 * sqrt FLOAT and HALF; negate, absolute value and signum also INT; square
 * FLOAT, HALF, INT and UNSIGNED_INT (integers wrap). Poplar has no
 * unsigned negate, absolute value or signum either. Other combinations
 * are refused with a message naming the types that work. */
typedef enum tsi_popops_unary_op {
	TSI_POPOPS_NEGATE = 0,
	TSI_POPOPS_ABSOLUTE,
	TSI_POPOPS_EXPONENT,
	TSI_POPOPS_LOGARITHM,
	TSI_POPOPS_SQRT,
	TSI_POPOPS_SQUARE,
	TSI_POPOPS_SIGNUM,
	TSI_POPOPS_UNARY_OP_COUNT
} tsi_popops_unary_op;

/* Elementwise OP(a) into a new tensor mapped like `a`. */
TSI_API tsi_tensor *tsi_popops_map_unary(tsi_graph *graph, tsi_popops_unary_op op,
                                         const tsi_tensor *a, tsi_program *seq,
                                         const char *debug_name);
TSI_API int tsi_popops_map_unary_in_place(tsi_graph *graph, tsi_popops_unary_op op,
                                          const tsi_tensor *a, tsi_program *seq,
                                          const char *debug_name);

/* a += scale * b, in place (popops::scaledAddTo); b broadcasts to a.
 * Vertex type popops::ScaledAddSupervisor<T,T,true>, T FLOAT, HALF, INT or
 * UNSIGNED_INT; for INT the scale must be a whole number, for
 * UNSIGNED_INT a whole number from 0 to 2^32 - 1 (use tsi_popops_sub to
 * subtract). */
TSI_API int tsi_popops_scaled_add_to(tsi_graph *graph, const tsi_tensor *a, const tsi_tensor *b,
                                     float scale, tsi_program *seq, const char *debug_name);

/* Sets every element of `t` to `value` (popops::fill / zero). */
TSI_API int tsi_popops_fill(tsi_graph *graph, const tsi_tensor *t, double value,
                            tsi_program *seq, const char *debug_name);

/* A copy of `t` converted to `type`, mapped like `t` (popops::cast). */
TSI_API tsi_tensor *tsi_popops_cast(tsi_graph *graph, const tsi_tensor *t, tsi_type type,
                                    tsi_program *seq, const char *debug_name);

/* --- Reductions ---------------------------------------------------------- */

typedef enum tsi_popops_reduce_op {
	TSI_POPOPS_REDUCE_ADD = 0,
	TSI_POPOPS_REDUCE_MUL,
	TSI_POPOPS_REDUCE_MAX,
	TSI_POPOPS_REDUCE_MIN,
	TSI_POPOPS_REDUCE_SQUARE_ADD, /* sum of squares */
	TSI_POPOPS_REDUCE_OP_COUNT
} tsi_popops_reduce_op;

/* Reduces `in` over the `n_dims` dimensions listed in `dims` (any order,
 * no repeats) with `op`, scaling the result by `scale` (1 for none),
 * into a new tensor of the remaining dimensions (rank 0 when all are
 * reduced) of type `out_type` (FLOAT for float/half inputs usually).
 * Inputs and outputs are FLOAT, HALF, INT or UNSIGNED_INT; integer inputs
 * are reduced in their own type, wrapping modulo 2^32 (an UNSIGNED_INT
 * sum to UNSIGNED_INT is exact up to UINT32_MAX).
 * Multi-stage as popops::reduce: each tile first reduces what it holds,
 * partials are exchanged to the tiles that own the outputs and reduced
 * again. Vertex types popops::Reduce<popops::ReduceAdd,float,float,...>
 * and popops::ScaledReduce<...>. */
TSI_API tsi_tensor *tsi_popops_reduce(tsi_graph *graph, const tsi_tensor *in, const size_t *dims,
                                      size_t n_dims, tsi_popops_reduce_op op, float scale,
                                      tsi_type out_type, tsi_program *seq,
                                      const char *debug_name);

/* --- Encoding ------------------------------------------------------------ */

/* encoded[i][j] = (indices[i] == j) for a rank-1 integer `indices` of N
 * elements and a rank-2 `encoded` [N, C] (popops::encodeOneHot). Indices
 * outside [0, C) give an all-zero row. Vertex type
 * popops::EncodeOneHot<unsigned int,float>. */
TSI_API int tsi_popops_encode_one_hot(tsi_graph *graph, const tsi_tensor *indices,
                                      const tsi_tensor *encoded, tsi_program *seq,
                                      const char *debug_name);

TSB_END_DECLS
