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
#include "format.h"

#include <stdlib.h>
#include <string.h>

#define TILE_RUNS_VERSION 1
#define VARINT_MAX 10 /* bytes of a 64-bit LEB128 integer */

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
	data = realloc(b->data, cap);
	if (!data)
		return -1;
	b->data = data;
	b->cap = cap;
	return 0;
}

/* Appends `v` as unsigned LEB128 (room must be reserved). */
static void put_varint(buf *b, uint64_t v)
{
	while (v >= 0x80) {
		b->data[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (uint8_t)v;
}

/* Appends one run. */
static int put_run(buf *b, uint64_t gap, uint64_t count, uint64_t value)
{
	if (buf_reserve(b, 3 * VARINT_MAX))
		return -1;
	put_varint(b, gap);
	put_varint(b, count);
	put_varint(b, value);
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

/* Reads one LEB128 integer at *pos; -1 when truncated or over 64 bits. */
static int get_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t byte;

		if (*pos >= len || shift >= 64)
			return -1;
		byte = p[(*pos)++];
		if (shift == 63 && (byte & 0x7e))
			return -1; /* bits past the 64th */
		r |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			break;
		shift += 7;
	}
	*v = r;
	return 0;
}

/* Zeroes dense[0..num_tiles); `dense` may be NULL when there are no tiles. */
static void zero_tiles(uint64_t *dense, size_t num_tiles)
{
	if (num_tiles)
		memset(dense, 0, num_tiles * sizeof(*dense));
}

int tsf_tile_runs_decode(uint64_t *dense, size_t num_tiles, const void *blob, size_t len)
{
	const uint8_t *p = blob;
	size_t pos = 1;
	uint64_t tile = 0;

	zero_tiles(dense, num_tiles);
	if (!blob || len == 0)
		return 0;
	if (p[0] != TILE_RUNS_VERSION)
		return -1;
	while (pos < len) {
		uint64_t gap, count, value, k;

		if (get_varint(p, len, &pos, &gap) || get_varint(p, len, &pos, &count) ||
		    get_varint(p, len, &pos, &value))
			goto fail;
		if (count == 0 || gap > num_tiles - tile || count > num_tiles - tile - gap)
			goto fail;
		tile += gap;
		for (k = 0; k < count; k++)
			dense[tile + k] = value;
		tile += count;
	}
	return 0;
fail:
	zero_tiles(dense, num_tiles);
	return -1;
}
