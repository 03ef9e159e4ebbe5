/*
 * SHA-256 (FIPS 180-4), for the history store's report hash: a run is
 * known by its commit, label and the hash of its profile.pop's bytes, so
 * that adding or merging one twice keeps one copy. Written from the
 * standard; the tests check it against its known answers.
 */
#include "history-private.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

typedef struct sha256 {
	uint32_t h[8];
	uint8_t block[64];
	size_t used;     /* bytes in block */
	uint64_t length; /* bytes hashed, in all */
} sha256;

static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
	0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
	0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
	0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
	0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
	0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* Hashes one 64-byte block into s->h. */
static void compress(sha256 *s, const uint8_t *p)
{
	uint32_t w[64], a[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(a, s->h, sizeof(a));
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = a[7] + (ror(a[4], 6) ^ ror(a[4], 11) ^ ror(a[4], 25)) +
		              ((a[4] & a[5]) ^ (~a[4] & a[6])) + k[i] + w[i];
		uint32_t t2 = (ror(a[0], 2) ^ ror(a[0], 13) ^ ror(a[0], 22)) +
		              ((a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]));
		memmove(a + 1, a, 7 * sizeof(a[0]));
		a[4] += t1;
		a[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		s->h[i] += a[i];
}

static void sha256_init(sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memcpy(s->h, h0, sizeof(h0));
	s->used = 0;
	s->length = 0;
}

static void sha256_update(sha256 *s, const uint8_t *p, size_t n)
{
	s->length += n;
	while (n) {
		size_t take = 64 - s->used < n ? 64 - s->used : n;

		memcpy(s->block + s->used, p, take);
		s->used += take;
		p += take;
		n -= take;
		if (s->used == 64) {
			compress(s, s->block);
			s->used = 0;
		}
	}
}

/* The padding (0x80, zeros, the length in bits) and the digest. */
static void sha256_final(sha256 *s, uint8_t digest[32])
{
	uint64_t bits = s->length * 8;
	uint8_t pad[72] = {0x80};
	size_t npad = (s->used < 56 ? 56 : 120) - s->used;

	for (int i = 0; i < 8; i++)
		pad[npad + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, pad, npad + 8);
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < 4; j++)
			digest[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

void tsr_history_sha256(uint8_t digest[32], const void *data, size_t n)
{
	sha256 s;

	sha256_init(&s);
	sha256_update(&s, data, n);
	sha256_final(&s, digest);
}

int tsr_history_sha256_file(char hex[65], const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t buf[65536], digest[32];
	size_t got;
	sha256 s;
	int err;

	if (!f)
		return -1;
	sha256_init(&s);
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		sha256_update(&s, buf, got);
	err = ferror(f) ? (errno ? errno : EIO) : 0;
	fclose(f);
	if (err) {
		errno = err;
		return -1;
	}
	sha256_final(&s, digest);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	return 0;
}
