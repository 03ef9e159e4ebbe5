/*
 * The two report formats' identities and the codec they share, used by the
 * writers in instrument/ and the readers in reportlib/ (a static library,
 * tilescope-format, built from db-schema/). The schemas themselves are the
 * commented .sql files beside this header, embedded by the build.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* profile.pop: PRAGMA application_id / user_version (must match profile.sql). */
#define TSF_PROFILE_APPLICATION_ID 0x54535046 /* "TSPF" */
#define TSF_PROFILE_SCHEMA_VERSION 1
/* .pvti: PRAGMA application_id / user_version (must match pvti.sql). */
#define TSF_PVTI_APPLICATION_ID 0x54535654 /* "TSVT" */
#define TSF_PVTI_SCHEMA_VERSION 1

/* The schema scripts, executed as written by the writers. */
extern const char tsf_profile_schema_sql[];
extern const char tsf_pvti_schema_sql[];

/*
 * Per-tile arrays ("tile runs" blobs; the encoding is documented in
 * profile.sql). Encodes the sparse array tiles[i] -> values[i] (tiles
 * ascending, values non-zero; others are zero) into a malloc'd blob.
 * Returns 0, or -1 when out of memory or the input is not ascending.
 */
int tsf_tile_runs_encode(uint8_t **out, size_t *out_len, const uint32_t *tiles,
                         const uint64_t *values, size_t n);
/* Same, from a dense array of num_tiles values. */
int tsf_tile_runs_encode_dense(uint8_t **out, size_t *out_len, const uint64_t *values,
                               size_t num_tiles);
/*
 * Decodes `blob` into dense[0..num_tiles) (zeroing tiles it does not name).
 * Validates everything: a blob that is truncated, over-long, names a tile
 * at or past num_tiles, or has a malformed integer returns -1 and leaves
 * `dense` zeroed. Never reads outside blob[0..len).
 */
int tsf_tile_runs_decode(uint64_t *dense, size_t num_tiles, const void *blob, size_t len);
