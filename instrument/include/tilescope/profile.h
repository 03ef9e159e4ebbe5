/*
 * The runtime's side of the profiles: what the IPU Model's compiler
 * computed about a graph (the graph profile) and what each run did (the
 * execution profile), as the engine recorded them. The document types
 * themselves (tsi_graph_profile, tsi_run_profile and what they contain)
 * are the format library's, tilescope/profile-document.h, shared with
 * reportlib and the JSON / CBOR writers; this header adds the runtime's
 * functions over them.
 *
 * Everything here is read-only and owned by the engine: valid until
 * tsi_engine_free() (execution data: until the next run).
 */
#pragma once

#include "engine.h"

#include <tilescope/profile-document.h>

TSB_BEGIN_DECLS

/* --- Reading the document ------------------------------------------------ */

/* The value for `tile` (0 when absent); binary search. */
TSI_API uint64_t tsi_tile_values_get(const tsi_tile_values *tv, uint32_t tile);
TSI_API uint64_t tsi_tile_values_sum(const tsi_tile_values *tv);
TSI_API uint64_t tsi_tile_values_max(const tsi_tile_values *tv);

/* The guide's tag: "Sequence", "OnTileExecute", "SetLocalConsensusFromVar" ... */
TSI_API const char *tsi_lowered_type_name(tsi_lowered_type type);

/* The guide's camelCase name: "controlCode", "vertexInstanceState" ... */
TSI_API const char *tsi_mem_category_name(tsi_mem_category cat);

/* The guide's step tag: "OnTileExecute", "DoExchange" ... */
TSI_API const char *tsi_step_type_name(tsi_step_type type);
/* "IPU_MODEL", "COMPUTE_SETS", "SINGLE_TILE_COMPUTE_SETS", "VERTICES",
 * "EXTERNAL_EXCHANGES". */
TSI_API const char *tsi_profiler_mode_name(tsi_profiler_mode mode);

/* Bytes of `cat` in `region` on `tile`, overlapped or not. */
TSI_API uint64_t tsi_graph_profile_category(const tsi_graph_profile *gp, tsi_mem_category cat,
                                            tsi_mem_region region, bool overlapped, uint32_t tile);

/* --- The engine's profiles ------------------------------------------------ */

/* The graph profile of a compiled engine (never NULL for a compiled engine). */
TSI_API const tsi_graph_profile *tsi_engine_get_graph_profile(const tsi_engine *engine);
/* Runs recorded so far: the first autoReport.executionProfileProgramRunCount
 * runs (default 2) of each engine program, in the order they ran, as
 * Poplar keeps them. Runs on a PRE_COMPILE device execute nothing and
 * record nothing. */
TSI_API size_t tsi_engine_num_run_profiles(const tsi_engine *engine);
TSI_API const tsi_run_profile *tsi_engine_get_run_profile(const tsi_engine *engine, size_t run);

TSB_END_DECLS
