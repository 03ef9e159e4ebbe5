/*
 * The graph profile and the execution profile serialised in exactly the
 * shape of the Poplar user guide's "Profiling" chapter (as
 * poplar::serializeToJSON / serializeToCBOR write them), for scripts that
 * read Poplar's JSON or CBOR profiles.
 *
 * Graph profile keys: "target", "optimizationInfo", "graph", "vertexTypes",
 * "computeSets", "exchanges", "externalExchanges", "hostExchanges",
 * "programs", "controlPrograms", "functionPrograms", "memory" (byTile,
 * byCategory, byComputeSet, byVertexType, liveness ...).
 * Execution profile keys: "profilerMode", "programTrace", "simulation"
 * (cycles, tileCycles, steps) and, by mode, computeSetCyclesByTile ...
 *
 * Integers are exact: in JSON every integer is written as digits (never
 * through a double), in CBOR as an unsigned or negative integer.
 */
#pragma once

#include "profile.h"

TSB_BEGIN_DECLS

typedef enum tsi_serial_format {
	TSI_SERIAL_JSON = 0, /* UTF-8 text, no trailing NUL counted in the length */
	TSI_SERIAL_CBOR      /* RFC 8949 */
} tsi_serial_format;

/* Serialises `gp`. On success *out is a malloc'd buffer of *out_len bytes
 * (JSON: also NUL-terminated) that the caller frees with free(). */
TSI_API int tsi_graph_profile_serialise(void **out, size_t *out_len, const tsi_graph_profile *gp,
                                        tsi_serial_format format);

/* Serialises the execution profile of `runs[0..n_runs)` (in run order) of
 * the engine whose graph profile is `gp`: programTrace is the runs' traces
 * one after the other and simulation.steps their steps on one cycle axis,
 * as Poplar's execution profile covers every run since it was reset. An
 * extra key "runs" lists each run's program, trace and step ranges and
 * cycles. Same ownership as above. */
TSI_API int tsi_execution_profile_serialise(void **out, size_t *out_len,
                                            const tsi_graph_profile *gp,
                                            const tsi_run_profile *const *runs, size_t n_runs,
                                            tsi_serial_format format);

TSB_END_DECLS
