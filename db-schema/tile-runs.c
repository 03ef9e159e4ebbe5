/*
 * The "tile runs" codec for per-tile arrays in profile.pop. A real report
 * holds tens of thousands of per-tile arrays of 1,472 tiles per IPU; most
 * are either mostly zero (a compute set on a few tiles) or mostly equal
 * (a balanced compute set), so a run-length encoding of varints keeps them
 * small without a general compressor, and decodes in one pass.
 *
 * Blob := 0x01 (encoding version), then zero or more runs; a run is three
 * unsigned LEB128 integers: gap (zero tiles skipped since the previous
 * run ended, or since tile 0), count (>= 1 tiles) and value (their common
 * value). Tiles after the last run are zero; a NULL or empty blob is all
 * zeros.
 */
#include <tilescope/alloc.h>
#include "format.h"
#include "leb128.h"

#include <stdlib.h>
#include <string.h>

#define TILE_RUNS_VERSION 1

/* A growable output buffer. */
typedef struct buf {
	uint8_t *data;
	size_t len, cap;
} buf;

/* Makes room for `more` bytes; -1 when out of memory. */
static int buf_reserve(buf *b, size_t more)
{
	size_t cap;
	uint8_t *data;

	if (b->cap - b->len >= more)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap - b->len < more)
		cap *= 2;
	data = tsb_realloc(b->data, cap);
	if (!data)
		return -1;
	b->data = data;
	b->cap = cap;
	return 0;
}

/* Appends one run. */
static int put_run(buf *b, uint64_t gap, uint64_t count, uint64_t value)
{
	if (buf_reserve(b, 3 * TSF_LEB128_MAX))
		return -1;
	uint8_t *p = b->data + b->len;

	p = tsf_leb128_put(p, gap);
	p = tsf_leb128_put(p, count);
	p = tsf_leb128_put(p, value);
	b->len = (size_t)(p - b->data);
	return 0;
}

/* Starts a blob with its version byte. */
static int start_blob(buf *b)
{
	if (buf_reserve(b, 1))
		return -1;
	b->data[b->len++] = TILE_RUNS_VERSION;
	return 0;
}

int tsf_tile_runs_encode(uint8_t **out, size_t *out_len, const uint32_t *tiles,
                         const uint64_t *values, size_t n)
{
	buf b = {0};
	uint64_t next = 0; /* first tile after the previous run */
	size_t i = 0;

	*out = NULL;
	*out_len = 0;
	if (start_blob(&b))
		goto fail;
	while (i < n) {
		size_t j = i + 1;

		if (tiles[i] < next)
			goto fail; /* not ascending */
		/* Extend the run over consecutive tiles with the same value. */
		while (j < n && tiles[j] == (uint64_t)tiles[j - 1] + 1 && values[j] == values[i])
			j++;
		if (values[i] != 0 && put_run(&b, tiles[i] - next, j - i, values[i]))
			goto fail;
		if (values[i] != 0)
			next = (uint64_t)tiles[j - 1] + 1;
		i = j;
	}
	*out = b.data;
	*out_len = b.len;
	return 0;
fail:
	free(b.data);
	return -1;
}

int tsf_tile_runs_encode_dense(uint8_t **out, size_t *out_len, const uint64_t *values,
                               size_t num_tiles)
{
	buf b = {0};
	size_t next = 0, i = 0;

	*out = NULL;
	*out_len = 0;
	if (start_blob(&b))
		goto fail;
	while (i < num_tiles) {
		size_t j = i + 1;

		if (values[i] == 0) {
			i++;
			continue;
		}
		while (j < num_tiles && values[j] == values[i])
			j++;
		if (put_run(&b, i - next, j - i, values[i]))
			goto fail;
		next = j;
		i = j;
	}
	*out = b.data;
	*out_len = b.len;
	return 0;
fail:
	free(b.data);
	return -1;
}

/* --- Reading ------------------------------------------------------------ */

int tsf_tile_runs_iter_init(tsf_tile_runs_iter *it, const void *blob, size_t len,
                            uint64_t num_tiles)
{
	const uint8_t *p = blob;

	it->p = it->end = p;
	it->num_tiles = num_tiles;
	it->next_tile = 0;
	if (!blob || len == 0)
		return 0; /* all zeros */
	if (p[0] != TILE_RUNS_VERSION)
		return -1;
	it->p = p + 1;
	it->end = p + len;
	return 0;
}

int tsf_tile_runs_iter_next(tsf_tile_runs_iter *it, tsf_tile_run *run)
{
	uint64_t gap, count, value, at = it->next_tile;

	if (it->p >= it->end)
		return 0;
	if (!tsf_leb128_get(&it->p, it->end, &gap) || !tsf_leb128_get(&it->p, it->end, &count) ||
	    !tsf_leb128_get(&it->p, it->end, &value))
		return -1;
	if (count == 0 || gap > it->num_tiles - at || count > it->num_tiles - at - gap)
		return -1;
	run->first = at + gap;
	run->count = count;
	run->value = value;
	it->next_tile = run->first + count;
	return 1;
}

/* Zeroes dense[0..num_tiles); `dense` may be NULL when there are no tiles. */
static void zero_tiles(uint64_t *dense, size_t num_tiles)
{
	if (num_tiles)
		memset(dense, 0, num_tiles * sizeof(*dense));
}

int tsf_tile_runs_decode(uint64_t *dense, size_t num_tiles, const void *blob, size_t len)
{
	tsf_tile_runs_iter it;
	tsf_tile_run run;
	int rc;

	zero_tiles(dense, num_tiles);
	if (tsf_tile_runs_iter_init(&it, blob, len, num_tiles))
		return -1;
	while ((rc = tsf_tile_runs_iter_next(&it, &run)) == 1)
		for (uint64_t k = 0; k < run.count; k++)
			dense[run.first + k] = run.value;
	if (rc < 0)
		zero_tiles(dense, num_tiles);
	return rc;
}
