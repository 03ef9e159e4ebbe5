/*
 * poprand: seeded random numbers on the IPU Model, in the style of
 * Graphcore's poprand. A generator's state lives on the device (one state
 * per tile that holds part of the output), so each run of the program
 * draws new numbers and two engines built alike draw the same sequence.
 */
#pragma once

#include "program.h"

TSB_BEGIN_DECLS

TSI_API int tsi_poprand_add_codelets(tsi_graph *graph);

/* Fills `out` (FLOAT or HALF) with uniform numbers in [min, max) each time
 * the appended step runs. Vertex type poprand::UniformSupervisor<float>. */
TSI_API int tsi_poprand_uniform(tsi_graph *graph, const tsi_tensor *out, double min, double max,
                                uint64_t seed, tsi_program *seq, const char *debug_name);
/* Normal numbers with `mean` and `stddev`. Vertex type poprand::NormalSupervisor<float>. */
TSI_API int tsi_poprand_normal(tsi_graph *graph, const tsi_tensor *out, double mean,
                               double stddev, uint64_t seed, tsi_program *seq,
                               const char *debug_name);

TSB_END_DECLS
