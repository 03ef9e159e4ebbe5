/*
 * Unsigned LEB128 integers and the zigzag mapping of signed ones: the
 * integer coding of both per-tile runs (profile.pop) and event chunks
 * (.pvti). Inline, because the trace reader decodes millions of them per
 * frame of a timeline and one byte is by far the common case.
 *
 * The reader is written for files from elsewhere: it never reads past
 * `end`, and rejects an integer that is truncated or wider than 64 bits.
 * Private to the format library and its two codecs; nothing outside
 * db-schema/ reads or writes these integers itself.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Bytes of the longest 64-bit integer. */
#define TSF_LEB128_MAX 10

/* Writes `v` at p (room for TSF_LEB128_MAX bytes reserved by the caller);
 * returns the byte after it. */
static inline uint8_t *tsf_leb128_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* The general case of tsf_leb128_get: several bytes. */
static inline bool tsf_leb128_get_slow(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;

	for (unsigned shift = 0; p < end; shift += 7) {
		uint8_t byte = *p++;

		if (shift == 63 && (byte & 0x7e))
			return false; /* bits past the 64th */
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80)) {
			*out = v;
			*pp = p;
			return true;
		}
		if (shift == 63)
			return false; /* an 11th byte would follow */
	}
	return false;
}

/* Reads one integer from [*pp, end) and advances *pp; false when it is
 * truncated or wider than 64 bits (*pp and *out then unspecified). */
static inline __attribute__((always_inline)) bool tsf_leb128_get(const uint8_t **pp,
                                                                 const uint8_t *end,
                                                                 uint64_t *out)
{
	const uint8_t *p = *pp;

	if (__builtin_expect(p < end && *p < 0x80, 1)) {
		*out = *p;
		*pp = p + 1;
		return true;
	}
	return tsf_leb128_get_slow(pp, end, out);
}

/* Signed to unsigned so that small magnitudes stay small: 0, -1, 1, -2 ...
 * -> 0, 1, 2, 3 ... */
static inline uint64_t tsf_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* The inverse of tsf_zigzag. */
static inline int64_t tsf_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
