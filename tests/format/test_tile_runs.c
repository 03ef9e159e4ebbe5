/*
 * White-box tests of the "tile runs" codec (db-schema/tile-runs.c), the
 * encoding of every per-tile array in profile.pop: round trips of the
 * shapes real reports have (sparse, dense, all zero, all equal, extreme
 * values), the exact bytes of the example in profile.sql, and hostile
 * blobs, which must be refused without reading outside the blob (each one
 * is copied into a buffer of exactly its size so that ASan sees any
 * over-read).
 */
#include "test-util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

/* A deterministic generator, so failures repeat. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Decodes `blob` (copied into an exact-size heap buffer) into a fresh
 * dense array of n tiles; returns the decoder's result. The caller frees
 * *out. */
static int decode_exact(uint64_t **out, size_t n, const uint8_t *blob, size_t len)
{
	uint8_t *copy = len ? malloc(len) : NULL;
	uint64_t *dense = malloc((n ? n : 1) * sizeof(*dense));
	int rc;

	assert_non_null(dense);
	if (len) {
		assert_non_null(copy);
		memcpy(copy, blob, len);
	}
	/* Garbage first: the decoder must zero what it does not set. */
	memset(dense, 0xa5, (n ? n : 1) * sizeof(*dense));
	rc = tsf_tile_runs_decode(dense, n, copy, len);
	free(copy);
	*out = dense;
	return rc;
}

/* Encodes dense[0..n) both ways (dense, and sparse from its non-zero
 * entries), checks that both give the same bytes and decode back. */
static void round_trip(const uint64_t *dense, size_t n, size_t *blob_len)
{
	uint8_t *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0, nz = 0;
	uint32_t *tiles = malloc((n ? n : 1) * sizeof(*tiles));
	uint64_t *values = malloc((n ? n : 1) * sizeof(*values));
	uint64_t *back = NULL;

	assert_non_null(tiles);
	assert_non_null(values);
	for (size_t i = 0; i < n; i++) {
		if (dense[i]) {
			tiles[nz] = (uint32_t)i;
			values[nz++] = dense[i];
		}
	}
	assert_int_equal(tsf_tile_runs_encode_dense(&a, &alen, dense, n), 0);
	assert_int_equal(tsf_tile_runs_encode(&b, &blen, tiles, values, nz), 0);
	assert_non_null(a);
	assert_int_equal(a[0], 1); /* the version byte */
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	assert_int_equal(decode_exact(&back, n, a, alen), 0);
	for (size_t i = 0; i < n; i++)
		assert_true(back[i] == dense[i]);
	if (blob_len)
		*blob_len = alen;
	free(back);
	free(a);
	free(b);
	free(tiles);
	free(values);
}

/* --- Round trips -------------------------------------------------------- */

/* A compute set on a few scattered tiles: small and exact. */
static void test_sparse(void **state)
{
	enum { N = 5888 };
	uint64_t *dense = calloc(N, sizeof(*dense));
	size_t len = 0;

	(void)state;
	assert_non_null(dense);
	for (int k = 0; k < 40; k++)
		dense[rng() % N] = 1 + rng() % 100000;
	dense[0] = 7;
	dense[N - 1] = 9;
	round_trip(dense, N, &len);
	/* At most 3 varints of <= 3 bytes per non-zero tile, plus the version. */
	assert_true(len <= 1 + 42 * 9);
	free(dense);
}

/* Every tile different: about a varint per value plus two bytes. */
static void test_dense(void **state)
{
	enum { N = 1472 };
	uint64_t dense[N];
	size_t len = 0;

	(void)state;
	for (int i = 0; i < N; i++)
		dense[i] = 1000 + (uint64_t)i * 3 + rng() % 2;
	round_trip(dense, N, &len);
	assert_true(len > 1 + 3 * N / 2);
	assert_true(len <= 1 + 4 * N);
}

/* All zeros: the version byte alone; an empty array too. */
static void test_all_zero(void **state)
{
	uint64_t dense[100] = {0};
	size_t len = 0;

	(void)state;
	round_trip(dense, 100, &len);
	assert_int_equal(len, 1);
	round_trip(dense, 0, &len);
	assert_int_equal(len, 1);
}

/* All equal (a balanced compute set): one run whatever the tile count. */
static void test_all_equal(void **state)
{
	enum { N = 5888 };
	uint64_t *dense = malloc(N * sizeof(*dense));
	size_t len = 0;

	(void)state;
	assert_non_null(dense);
	for (int i = 0; i < N; i++)
		dense[i] = 123456;
	round_trip(dense, N, &len);
	/* version, gap 0, count 5888 (2 bytes), value (3 bytes) */
	assert_int_equal(len, 1 + 1 + 2 + 3);
	free(dense);
}

/* The largest values and a mix of runs that touch both ends. */
static void test_u64_max(void **state)
{
	uint64_t dense[9] = {UINT64_MAX, UINT64_MAX, 0, 1, UINT64_MAX - 1, 0, 0,
	                     (uint64_t)1 << 63, UINT64_MAX};
	uint64_t one[1] = {UINT64_MAX};
	size_t len = 0;

	(void)state;
	round_trip(dense, 9, &len);
	round_trip(one, 1, &len);
	assert_int_equal(len, 1 + 1 + 1 + 10); /* a 64-bit value takes 10 bytes */
}

/* Random arrays of random shapes. */
static void test_random(void **state)
{
	(void)state;
	for (int iter = 0; iter < 200; iter++) {
		size_t n = 1 + rng() % 3000;
		uint64_t *dense = malloc(n * sizeof(*dense));
		uint64_t v = 0;

		assert_non_null(dense);
		for (size_t i = 0; i < n; i++) {
			if (rng() % 8 == 0) /* runs of equal values, zeros, big values */
				v = rng() % 4 == 0 ? 0 : rng() >> (rng() % 64);
			dense[i] = v;
		}
		round_trip(dense, n, NULL);
		free(dense);
	}
}

/* The example written in profile.sql, byte for byte. */
static void test_documented_example(void **state)
{
	const uint64_t dense[7] = {0, 0, 5, 5, 5, 0, 7};
	const uint8_t expect[7] = {0x01, 0x02, 0x03, 0x05, 0x01, 0x01, 0x07};
	uint8_t *blob = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(tsf_tile_runs_encode_dense(&blob, &len, dense, 7), 0);
	assert_int_equal(len, sizeof(expect));
	assert_memory_equal(blob, expect, sizeof(expect));
	free(blob);
}

/* Sparse input: zero values are skipped, tiles must ascend. */
static void test_sparse_input_rules(void **state)
{
	const uint32_t tiles[4] = {3, 4, 5, 9};
	const uint64_t values[4] = {5, 0, 5, 2};
	const uint32_t bad[3] = {3, 3, 4};
	const uint64_t bad_values[3] = {1, 2, 3};
	const uint32_t down[2] = {5, 2};
	uint8_t *blob = NULL;
	size_t len = 0;
	uint64_t *back = NULL;

	(void)state;
	assert_int_equal(tsf_tile_runs_encode(&blob, &len, tiles, values, 4), 0);
	assert_int_equal(decode_exact(&back, 10, blob, len), 0);
	assert_true(back[3] == 5 && back[4] == 0 && back[5] == 5 && back[9] == 2);
	assert_true(back[0] == 0 && back[8] == 0);
	free(back);
	free(blob);
	/* A repeated or descending tile is refused, with no blob. */
	blob = (uint8_t *)1;
	assert_int_equal(tsf_tile_runs_encode(&blob, &len, bad, bad_values, 3), -1);
	assert_null(blob);
	assert_int_equal(len, 0);
	assert_int_equal(tsf_tile_runs_encode(&blob, &len, down, bad_values, 2), -1);
	assert_null(blob);
	/* the last tile number followed by 0 is not "the next tile" */
	{
		const uint32_t wrap[2] = {UINT32_MAX, 0};
		const uint64_t same[2] = {4, 4};

		assert_int_equal(tsf_tile_runs_encode(&blob, &len, wrap, same, 2), -1);
		assert_null(blob);
	}
}

/* --- Hostile blobs ------------------------------------------------------- */

/* Decodes a hostile blob into 16 tiles: must fail and leave all zeros. */
static void expect_refused(const uint8_t *blob, size_t len, size_t n)
{
	uint64_t *back = NULL;

	assert_int_equal(decode_exact(&back, n, blob, len), -1);
	for (size_t i = 0; i < n; i++)
		assert_true(back[i] == 0);
	free(back);
}

static void test_hostile(void **state)
{
	/* truncated varints: a continuation byte at the end, in each field */
	const uint8_t trunc_gap[] = {0x01, 0x80};
	const uint8_t trunc_count[] = {0x01, 0x00, 0x81};
	const uint8_t trunc_value[] = {0x01, 0x00, 0x01, 0xff, 0xff};
	/* a run without its value, and one without its count */
	const uint8_t short_run[] = {0x01, 0x00, 0x01};
	const uint8_t shorter_run[] = {0x01, 0x00};
	/* an 11-byte varint (ten continuation bytes) */
	const uint8_t long_varint[] = {0x01, 0x00, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80,
	                               0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
	/* a 10-byte varint with bits past the 64th */
	const uint8_t wide_varint[] = {0x01, 0x00, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff,
	                               0xff, 0xff, 0xff, 0xff, 0x02};
	/* a gap past the end, a run past the end, a run starting at the end */
	const uint8_t gap_past[] = {0x01, 0x11, 0x01, 0x05};
	const uint8_t run_past[] = {0x01, 0x0f, 0x02, 0x05};
	const uint8_t at_end[] = {0x01, 0x0f, 0x01, 0x05, 0x00, 0x01, 0x05};
	/* count 0 */
	const uint8_t count_zero[] = {0x01, 0x00, 0x00, 0x05};
	/* count 2^64 - 1 (overflow of tile + count) and a huge gap with count 1 */
	const uint8_t count_huge[] = {0x01, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff,
	                              0xff, 0xff, 0xff, 0xff, 0x01, 0x05};
	const uint8_t gap_huge[] = {0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	                            0xff, 0xff, 0xff, 0x01, 0x01, 0x05};
	/* wrong versions */
	const uint8_t version0[] = {0x00, 0x00, 0x01, 0x05};
	const uint8_t version2[] = {0x02, 0x00, 0x01, 0x05};
	const uint8_t version_only_bad[] = {0xff};

	(void)state;
	expect_refused(trunc_gap, sizeof(trunc_gap), 16);
	expect_refused(trunc_count, sizeof(trunc_count), 16);
	expect_refused(trunc_value, sizeof(trunc_value), 16);
	expect_refused(short_run, sizeof(short_run), 16);
	expect_refused(shorter_run, sizeof(shorter_run), 16);
	expect_refused(long_varint, sizeof(long_varint), 16);
	expect_refused(wide_varint, sizeof(wide_varint), 16);
	expect_refused(gap_past, sizeof(gap_past), 16);
	expect_refused(run_past, sizeof(run_past), 16);
	expect_refused(at_end, sizeof(at_end), 16);
	expect_refused(count_zero, sizeof(count_zero), 16);
	expect_refused(count_huge, sizeof(count_huge), 16);
	expect_refused(gap_huge, sizeof(gap_huge), 16);
	expect_refused(version0, sizeof(version0), 16);
	expect_refused(version2, sizeof(version2), 16);
	expect_refused(version_only_bad, sizeof(version_only_bad), 16);
	/* a run is refused for an array of no tiles */
	expect_refused(run_past, sizeof(run_past), 0);
}

/* What is valid at the edges: NULL / empty / version-only blobs are all
 * zeros, a run ending exactly at the last tile is fine, and a maximal
 * 10-byte varint decodes. */
static void test_edges_accepted(void **state)
{
	const uint8_t version_only[] = {0x01};
	const uint8_t to_end[] = {0x01, 0x0e, 0x02, 0x05};
	const uint8_t max_value[] = {0x01, 0x00, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff,
	                             0xff, 0xff, 0xff, 0xff, 0x01};
	uint64_t *back = NULL;
	uint64_t dense[4];

	(void)state;
	assert_int_equal(decode_exact(&back, 16, version_only, sizeof(version_only)), 0);
	for (int i = 0; i < 16; i++)
		assert_true(back[i] == 0);
	free(back);
	assert_int_equal(decode_exact(&back, 16, NULL, 0), 0);
	assert_true(back[0] == 0 && back[15] == 0);
	free(back);
	memset(dense, 0xa5, sizeof(dense));
	assert_int_equal(tsf_tile_runs_decode(dense, 4, NULL, 7), 0);
	assert_true(dense[0] == 0 && dense[3] == 0);
	assert_int_equal(tsf_tile_runs_decode(NULL, 0, NULL, 0), 0);
	assert_int_equal(tsf_tile_runs_decode(NULL, 0, version_only, 1), 0);
	assert_int_equal(decode_exact(&back, 16, to_end, sizeof(to_end)), 0);
	assert_true(back[13] == 0 && back[14] == 5 && back[15] == 5);
	free(back);
	assert_int_equal(decode_exact(&back, 2, max_value, sizeof(max_value)), 0);
	assert_true(back[0] == UINT64_MAX && back[1] == 0);
	free(back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sparse),
		cmocka_unit_test(test_dense),
		cmocka_unit_test(test_all_zero),
		cmocka_unit_test(test_all_equal),
		cmocka_unit_test(test_u64_max),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_documented_example),
		cmocka_unit_test(test_sparse_input_rules),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_edges_accepted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
