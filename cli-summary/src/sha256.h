/*
 * SHA-256 (FIPS 180-4) for the HTML pages' Content-Security-Policy, which
 * names the page's one stylesheet and one script by the base64 of their
 * digest. Small and GLib-free, as the tilescope command is.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define CLI_SHA256_LEN 32
/* Base64 of a digest: 43 characters, one '=' and the NUL. */
#define CLI_SHA256_BASE64_LEN 45

typedef struct cli_sha256_ctx {
	uint32_t h[8];
	uint64_t n_bytes;          /* message length so far */
	unsigned char block[64];   /* the partial block */
	size_t n_block;            /* bytes in block */
} cli_sha256_ctx;

void cli_sha256_init(cli_sha256_ctx *c);
void cli_sha256_update(cli_sha256_ctx *c, const void *data, size_t len);
void cli_sha256_final(cli_sha256_ctx *c, unsigned char out[CLI_SHA256_LEN]);
/* The digest of data[0..len) in one call. */
void cli_sha256(const void *data, size_t len, unsigned char out[CLI_SHA256_LEN]);
/* The digest of data[0..len) in base64 (RFC 4648, padded), as CSP's
 * 'sha256-...' source wants it. */
void cli_sha256_base64(const void *data, size_t len, char out[CLI_SHA256_BASE64_LEN]);
