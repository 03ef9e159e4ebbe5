/*
 * The device code of tutorials 6 and 7 (matrix-vector multiplication):
 * DotProductVertex (Input<Vector<float>> a, b; Output<float> out) and
 * ReduceVertex (Input<Vector<float>> in; Output<float> out). Their cycle
 * models are exported too, so that tutorial 7's planner estimates a split
 * with the very formulas the simulator will charge.
 */
#pragma once

#include <tilescope/ipu.h>

/* Adds DotProductVertex and ReduceVertex to `graph`. Returns TSI_OK or a
 * negative code (recorded in the graph). */
int matrix_add_codelets(tsi_graph *graph);
/* Worker cycles of one DotProductVertex over vectors of `n` elements. */
uint64_t matrix_dot_product_cycles(size_t n);
/* Worker cycles of one ReduceVertex summing `n` elements. */
uint64_t matrix_reduce_cycles(size_t n);
