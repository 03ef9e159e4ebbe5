/*
 * poplin: matrix multiplication on the IPU Model with a planner that
 * splits the work over tiles, in the style of Graphcore's poplin. Register
 * the vertex types with tsi_poplin_add_codelets() first.
 */
#pragma once

#include "program.h"

TSB_BEGIN_DECLS

TSI_API int tsi_poplin_add_codelets(tsi_graph *graph);

/* How a matmul [M, K] x [K, N] is split: the planner's choice. */
typedef struct tsi_poplin_plan {
	size_t m_split, k_split, n_split; /* parts along M, K, N */
	unsigned tiles_used;
	uint64_t est_compute_cycles;      /* busiest tile, one worker context schedule */
	uint64_t est_exchange_cycles;
	uint64_t est_reduce_cycles;       /* cross-tile reduction over K splits */
	uint64_t est_total_cycles;
} tsi_poplin_plan;

/* Plans a matmul of [m, k] x [k, n] for `graph`'s tiles with input type
 * `type` (FLOAT or HALF; HALF uses the AMP vertices at 128 flops per
 * tile-cycle at peak), without building anything. */
TSI_API int tsi_poplin_plan_matmul(tsi_poplin_plan *out, const tsi_graph *graph, tsi_type type,
                                   size_t m, size_t k, size_t n);

/* Variables laid out the way the plan wants them (poplin::createMatMulInputLHS/RHS):
 * using them avoids rearranging copies before the matmul. The variable is
 * named `name` (NULL: "lhs" / "rhs"), inside the open debug contexts'
 * path, and tsi_tensor_name() of the returned view is that name. */
TSI_API tsi_tensor *tsi_poplin_create_matmul_input_lhs(tsi_graph *graph, tsi_type type, size_t m,
                                                       size_t k, size_t n, const char *name);
TSI_API tsi_tensor *tsi_poplin_create_matmul_input_rhs(tsi_graph *graph, tsi_type type, size_t m,
                                                       size_t k, size_t n, const char *name);

/* a [M, K] x b [K, N] -> a new [M, N] tensor of the inputs' type
 * (accumulating in float), appended to `seq`. `a` and `b` may be any views
 * (a transpose works). Vertex types
 * poplin::ConvPartial1x1Out<half,float,true,false> (AMP, HALF inputs),
 * poplin::MatMulPartial<float,float> (FLOAT inputs) and
 * poplin::ReduceAdd<float,float> (across K splits). */
TSI_API tsi_tensor *tsi_poplin_matmul(tsi_graph *graph, const tsi_tensor *a, const tsi_tensor *b,
                                      tsi_program *seq, const char *debug_name);
/* c += alpha * a x b, in place (poplin::matMulAcc); c [M, N] writable. */
TSI_API int tsi_poplin_matmul_acc(tsi_graph *graph, const tsi_tensor *c, float alpha,
                                  const tsi_tensor *a, const tsi_tensor *b, tsi_program *seq,
                                  const char *debug_name);

TSB_END_DECLS
