/*
 * The "tile runs" codec for per-tile arrays in profile.pop (the encoding
 * is documented in profile.sql). The writer encodes; reportlib decodes to
 * dense arrays or walks the runs with the iterator (its SQL functions do,
 * without a dense array). This is the only reader of the encoding.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * Encodes the sparse array tiles[i] -> values[i] (tiles ascending, values
 * non-zero; others are zero) into a malloc'd blob the caller frees.
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

/* One run: tiles [first, first + count) hold `value` (never 0 tiles). */
typedef struct tsf_tile_run {
	uint64_t first, count, value;
} tsf_tile_run;

/* Walks a blob's runs in tile order; the blob must outlive it. */
typedef struct tsf_tile_runs_iter {
	const uint8_t *p, *end;
	uint64_t num_tiles;
	uint64_t next_tile; /* the first tile after the previous run */
} tsf_tile_runs_iter;

/* Starts a walk over blob[0..len) of an array of num_tiles tiles (a NULL
 * or empty blob has no runs). -1 for an unknown encoding version. */
int tsf_tile_runs_iter_init(tsf_tile_runs_iter *it, const void *blob, size_t len,
                            uint64_t num_tiles);
/* The next run into *run: 1, 0 after the last, -1 when the blob is
 * malformed (truncated, an integer past 64 bits, an empty run, a tile at
 * or past num_tiles). Checks exactly what tsf_tile_runs_decode checks. */
int tsf_tile_runs_iter_next(tsf_tile_runs_iter *it, tsf_tile_run *run);
