/*
 * What poplin.c and poplin-planner.c share: the cycle model of poplin's
 * vertices and the split of a tile's block over its workers. The planner
 * costs plans with these functions and the vertices' estimators call the
 * same ones, so a plan and the vertices built from it never disagree.
 * Defined in poplin-planner.c. Nothing here is visible to models.
 */
#pragma once

#include "../ipu-private.h"

/* Tile cycles of one poplin::ConvPartial1x1Out<half,float,true,false>
 * (AMP) supervisor vertex computing [rows, k] x [k, n]. */
uint64_t tsi_poplin_amp_cycles(size_t rows, size_t k, size_t n, const tsi_target *target);

/* Worker cycles of one poplin::MatMulPartial<float,float> vertex
 * computing [rows, k] x [k, n]. */
uint64_t tsi_poplin_float_cycles(size_t rows, size_t k, size_t n, const tsi_target *target);

/* Worker cycles of one ReduceAdd vertex summing `n_partials` float vectors
 * of `elems` elements (`half_out`: into half; `scaled`: the
 * ReduceAddScaledTo form). */
uint64_t tsi_poplin_reduce_cycles(size_t n_partials, size_t elems, bool half_out, bool scaled);

/* How one tile's [rows, cols] block of a float matmul is shared among
 * `workers` worker vertices: *row_parts row ranges times *col_parts column
 * ranges. */
void tsi_poplin_worker_split(size_t rows, size_t cols, unsigned workers, size_t *row_parts,
                             size_t *col_parts);

/* Worker contexts per tile of `target` (at least 1). */
unsigned tsi_poplin_workers(const tsi_target *target);
