/*
 * SHA-256 (FIPS 180-4; libtilescope-base, prefix tsb_): the one copy
 * behind the HTML pages' Content-Security-Policy, which names a page's
 * one stylesheet and one script by the base64 of their digest, and the
 * history store, which knows a report by the hex digest of its
 * profile.pop. GLib-free, as the tilescope command is.
 */
#pragma once

#include <tilescope/tsb-api.h>

#include <stddef.h>
#include <stdint.h>

TSB_BEGIN_DECLS

#define TSB_SHA256_LEN 32
/* Base64 of a digest: 43 characters, one '=' and the NUL. */
#define TSB_SHA256_BASE64_LEN 45

typedef struct tsb_sha256_ctx {
	uint32_t h[8];
	uint64_t n_bytes;          /* message length so far */
	unsigned char block[64];   /* the partial block */
	size_t n_block;            /* bytes in block */
} tsb_sha256_ctx;

TSB_API void tsb_sha256_init(tsb_sha256_ctx *c);
TSB_API void tsb_sha256_update(tsb_sha256_ctx *c, const void *data, size_t len);
TSB_API void tsb_sha256_final(tsb_sha256_ctx *c, unsigned char out[TSB_SHA256_LEN]);
/* The digest of data[0..len) in one call. */
TSB_API void tsb_sha256(const void *data, size_t len, unsigned char out[TSB_SHA256_LEN]);
/* The digest of data[0..len) in base64 (RFC 4648, padded), as CSP's
 * 'sha256-...' source wants it. */
TSB_API void tsb_sha256_base64(const void *data, size_t len, char out[TSB_SHA256_BASE64_LEN]);
/* A digest as 64 lower-case hex digits and the NUL. */
TSB_API void tsb_sha256_hex(const unsigned char digest[TSB_SHA256_LEN], char out[65]);

TSB_END_DECLS
