/*
 * Invariants of the compiler model's profile, asserted on real models by
 * the integration tests (cmocka assertions: a violated invariant fails
 * the calling test with the tile, step or category it concerns).
 *
 * The graph profile (see instrument/src/compiler/memory.c's top comment
 * for the memory identities):
 *   - per tile: total = sum of the regions; every region and the total
 *     including gaps are at least their data bytes; the tile is in
 *     oom_tiles exactly when its total including gaps exceeds the tile;
 *   - per tile: nonOverlapped cells + the overlap pool = total, i.e. all
 *     cells minus what overlapping saved (overlapped bytes - pool) =
 *     total, where the pool is the tile's peak over liveness steps of the
 *     not-always-live bytes, recomputed here from the variables' intervals;
 *   - per tile and category: the overlapped bytes equal the
 *     not-always-live variables' bytes there, all in one region, and the
 *     nonOverlapped bytes equal the always-live variables' bytes there;
 *   - per liveness step: not_always_live_bytes equals a brute-force sum
 *     over the variables' live intervals, and is at most all variables'
 *     bytes; always_live_bytes is the always-live variables' sum.
 * A run profile:
 *   - the steps' cycles add up to the run's cycles minus 6 cycles per
 *     SetLocalConsensusFromVar in the trace; cycles_from/cycles_to are
 *     monotone and differ by the step's cycles;
 *   - tile_cycles equals the per-kind sums over the steps of the tiles'
 *     cycles (compute sets' and exchanges' cycles by tile, syncs on every
 *     tile);
 *   - every balance is in [0, 1].
 */
#pragma once

#include <tilescope/profile.h>

/* What the checks saw, for tests that assert more about a model. */
typedef struct profile_facts {
	uint64_t total_memory;        /* sum over tiles of by_tile total */
	uint64_t instrumentation;     /* instrumentationResults bytes, all tiles and cells */
	uint64_t peak_not_always_live;/* largest not_always_live_bytes of a step */
	size_t consensus;             /* SetLocalConsensusFromVar leaves in the run's trace */
} profile_facts;

/* Asserts every graph-profile invariant above; fills `facts` (may be NULL). */
void check_graph_profile(const tsi_graph_profile *gp, profile_facts *facts);
/* Asserts every run-profile invariant above for `run` of `gp`; adds the
 * run's consensus count to `facts` (may be NULL). */
void check_run_profile(const tsi_graph_profile *gp, const tsi_run_profile *run,
                       profile_facts *facts);

/* The cycles SetLocalConsensusFromVar takes without a step of its own
 * (instrument/src/compiler/cycles.c, CONSENSUS_CYCLES). */
#define CHECK_CONSENSUS_CYCLES 6u
