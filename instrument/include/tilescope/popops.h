/*
 * A small poplibs-style operations library on top of the runtime: the
 * elementwise binary operations add, subtract and multiply, built the way
 * popops builds them (a result variable mapped like the first operand, one
 * compute set, one vertex per tile of the result). Models include this
 * header beside <tilescope/ipu.h> and call tsi_popops_add_codelets() once
 * per graph, as Poplar programs call popops::addCodelets().
 */
#pragma once

#include "program.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the vertex types of this library in `graph`:
 * "popops::BinaryOp1D<popops::expr::BinaryOpType::OP,T>" for OP in ADD,
 * SUBTRACT, MULTIPLY and T in float, half, int. Calling it twice is
 * harmless. Returns TSI_OK or a negative code (also recorded in the graph). */
TSI_API int tsi_popops_add_codelets(tsi_graph *graph);

/* The binary operations (popops::expr::BinaryOpType). */
typedef enum tsi_popops_binary_op {
	TSI_POPOPS_ADD = 0,   /* a + b */
	TSI_POPOPS_SUBTRACT,  /* a - b */
	TSI_POPOPS_MULTIPLY,  /* a * b */
	TSI_POPOPS_BINARY_OP_COUNT
} tsi_popops_binary_op;

/* Elementwise a + b, appended to the sequence `seq` (popops::add).
 *
 * `a` and `b` must have the same type (FLOAT, HALF or INT) and the same
 * shape; either may be any view (a slice, a transpose ...). The result is a
 * new variable "<debug_name>/out" of a's shape whose element i lives on the
 * tile of element i of `a` (elements of `a` with no tile are spread
 * linearly over the graph's tiles). One compute set named `debug_name`
 * (NULL: "Add") with one vertex per tile of the result is executed by a
 * step added to `seq`.
 *
 * Returns the result (owned by the graph), or NULL with the error recorded
 * in the graph (see tsi_graph_error()); given a NULL operand it returns
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

#ifdef __cplusplus
}
#endif
