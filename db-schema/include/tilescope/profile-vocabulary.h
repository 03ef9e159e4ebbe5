/*
 * The enumerations of the profile document (tilescope/profile-document.h)
 * whose members are words of the report formats: memory categories and
 * regions, lowered program and execution step types, sync and exchange
 * kinds, profiler modes, device data types, IPU versions. Each is
 * expanded from the one table, tilescope/vocabulary.def, in its order, so
 * a code is the same number in the runtime, in reportlib and in the
 * format library, and the names are spelled once (the runtime's
 * tsi_*_name() functions and reportlib's give them).
 *
 * Part of libtilescope-format's installed headers: the runtime's public
 * headers (tilescope/types.h, program.h, profile.h) include it. It
 * includes nothing but the table.
 */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/* Poplar's device types: FLOAT, HALF (IEEE 754 binary16, held on the host
 * as its uint16_t bit pattern), INT ... BOOL (one byte). */
typedef enum tsi_type {
#define TSF_DATA_TYPE(id, name) TSI_##id,
#include <tilescope/vocabulary.def>
	TSI_TYPE_COUNT
} tsi_type;

/* INTERNAL: all tiles of one IPU; EXTERNAL: all tiles of all IPUs;
 * GLOBAL: all IPUs and the host. */
typedef enum tsi_sync_type {
#define TSF_SYNC_TYPE(id, name) TSI_SYNC_##id,
#include <tilescope/vocabulary.def>
} tsi_sync_type;

/* MK2 (GC200, the default), MK1 (GC2), BOW. */
typedef enum tsi_ipu_version {
#define TSF_IPU_VERSION(id, name, target_name) TSI_IPU_##id,
#include <tilescope/vocabulary.def>
} tsi_ipu_version;

/* The lowered programs of the graph profile's "programs": SEQUENCE,
 * ON_TILE_EXECUTE, DO_EXCHANGE (internal exchange, one IPU),
 * GLOBAL_EXCHANGE (between IPUs), STREAM_COPY (host exchange), REPEAT ...
 * SET_LOCAL_CONSENSUS (SetLocalConsensusFromVar) ... WRITE_UNDEF. */
typedef enum tsi_lowered_type {
#define TSF_PROGRAM_TYPE(id, name, exchange_kind) TSI_LP_##id,
#include <tilescope/vocabulary.def>
	TSI_LP_TYPE_COUNT
} tsi_lowered_type;

/* INTERNAL ("exchanges"), EXTERNAL ("externalExchanges", IPU to IPU),
 * HOST ("hostExchanges"). */
typedef enum tsi_exchange_kind {
#define TSF_EXCHANGE_KIND(id, name) TSI_EXCHANGE_##id,
#include <tilescope/vocabulary.def>
	TSI_EXCHANGE_KIND_COUNT
} tsi_exchange_kind;

/* The user guide's memory categories, in its (alphabetical) order:
 * TSI_MEM_CONSTANT, TSI_MEM_CONTROL_CODE ... TSI_MEM_VERTEX_INSTANCE_STATE. */
typedef enum tsi_mem_category {
#define TSF_MEM_CATEGORY(id, name, label) TSI_MEM_##id,
#include <tilescope/vocabulary.def>
	TSI_MEM_CATEGORY_COUNT
} tsi_mem_category;

/* INTERLEAVED, NON_INTERLEAVED, OVERFLOWED (bytes that did not fit in the
 * tile). */
typedef enum tsi_mem_region {
#define TSF_REGION(id, name) TSI_REGION_##id,
#include <tilescope/vocabulary.def>
	TSI_REGION_COUNT
} tsi_mem_region;

/* The execution profile's step types. */
typedef enum tsi_step_type {
#define TSF_STEP_TYPE(id, name) TSI_STEP_##id,
#include <tilescope/vocabulary.def>
	TSI_STEP_TYPE_COUNT
} tsi_step_type;

/* The execution profile's "profilerMode": what the instrumentation
 * options measure (on the IPU Model every mode is simulated from
 * estimates; the mode says what hardware would have recorded):
 * IPU_MODEL (no instrumentation), COMPUTE_SETS
 * (debug.computeInstrumentationLevel=tile), SINGLE_TILE_COMPUTE_SETS
 * (device or ipu), VERTICES (vertex), EXTERNAL_EXCHANGES (only external
 * exchanges instrumented). */
typedef enum tsi_profiler_mode {
#define TSF_PROFILER_MODE(id, name) TSI_PROFILER_##id,
#include <tilescope/vocabulary.def>
	TSI_PROFILER_MODE_COUNT
} tsi_profiler_mode;

#ifdef __cplusplus
}
#endif
