/*
 * SHA-256 as FIPS 180-4 sections 4.2.2, 5.3.3 and 6.2 define it
 * (tilescope/sha256.h).
 */
#define TSB_BUILDING_LIBRARY 1
#include <tilescope/sha256.h>

#include <string.h>

/* The first 32 bits of the fractional parts of the cube roots of the
 * first 64 primes (FIPS 180-4 4.2.2). */
static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* One 64-byte block into the state (6.2.2). */
static void compress(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, k, t1, t2;
	unsigned i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
	for (i = 0; i < 64; i++) {
		t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void tsb_sha256_init(tsb_sha256_ctx *c)
{
	/* The fractional parts of the square roots of the first 8 primes (5.3.3). */
	static const uint32_t H0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(c->h, H0, sizeof H0);
	c->n_bytes = 0;
	c->n_block = 0;
}

void tsb_sha256_update(tsb_sha256_ctx *c, const void *data, size_t len)
{
	const unsigned char *p = data;

	c->n_bytes += len;
	while (len > 0) {
		size_t take = 64 - c->n_block;

		if (take > len)
			take = len;
		memcpy(c->block + c->n_block, p, take);
		c->n_block += take;
		p += take;
		len -= take;
		if (c->n_block == 64) {
			compress(c->h, c->block);
			c->n_block = 0;
		}
	}
}

void tsb_sha256_final(tsb_sha256_ctx *c, unsigned char out[TSB_SHA256_LEN])
{
	uint64_t bits = c->n_bytes * 8;
	unsigned i;

	/* 5.1.1: a 1 bit, zeros up to 56 bytes of the last block, the
	 * length in bits big-endian. */
	c->block[c->n_block++] = 0x80;
	if (c->n_block > 56) {
		memset(c->block + c->n_block, 0, 64 - c->n_block);
		compress(c->h, c->block);
		c->n_block = 0;
	}
	memset(c->block + c->n_block, 0, 56 - c->n_block);
	for (i = 0; i < 8; i++)
		c->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	compress(c->h, c->block);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(c->h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
		out[4 * i + 3] = (unsigned char)c->h[i];
	}
}

void tsb_sha256(const void *data, size_t len, unsigned char out[TSB_SHA256_LEN])
{
	tsb_sha256_ctx c;

	tsb_sha256_init(&c);
	tsb_sha256_update(&c, data, len);
	tsb_sha256_final(&c, out);
}

void tsb_sha256_base64(const void *data, size_t len, char out[TSB_SHA256_BASE64_LEN])
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char d[TSB_SHA256_LEN + 1];
	size_t i, o = 0;

	tsb_sha256(data, len, d);
	d[TSB_SHA256_LEN] = 0;
	/* 32 bytes: ten groups of three, then two bytes and one '='. */
	for (i = 0; i < TSB_SHA256_LEN; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 |
		             (i + 2 < TSB_SHA256_LEN ? d[i + 2] : 0);

		out[o++] = abc[v >> 18 & 63];
		out[o++] = abc[v >> 12 & 63];
		out[o++] = abc[v >> 6 & 63];
		out[o++] = i + 2 < TSB_SHA256_LEN ? abc[v & 63] : '=';
	}
	out[o] = '\0';
}

void tsb_sha256_hex(const unsigned char digest[TSB_SHA256_LEN], char out[65])
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < TSB_SHA256_LEN; i++) {
		out[2 * i] = hex[digest[i] >> 4];
		out[2 * i + 1] = hex[digest[i] & 15];
	}
	out[2 * TSB_SHA256_LEN] = '\0';
}
