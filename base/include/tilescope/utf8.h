/*
 * UTF-8, one sequence at a time (libtilescope-base, prefix tsb_): the one
 * decoder behind every place that writes names from a report or bytes of
 * a path into text, JSON or XML (the format library's emitters,
 * reportlib's summary and Chrome export, the tilescope command's messages
 * and JUnit output, the runtime's option messages), which each add their
 * own rule on top (no controls, XML's excluded code points).
 */
#pragma once

#include <tilescope/tsb-api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

TSB_BEGIN_DECLS

/*
 * The length (1 to 4) of the well-formed UTF-8 sequence at s[0..n) with
 * its code point in *cp (which may be NULL), or 0 when the bytes there
 * are not one: a stray continuation byte, an overlong form, a surrogate,
 * a code point past U+10FFFF, or a sequence cut short by n or by a NUL.
 * ASCII, controls and NUL included, is a sequence of length 1. For a
 * NUL-terminated string pass SIZE_MAX as n.
 */
TSB_API size_t tsb_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Whether s[0..n) is all well-formed UTF-8 (n = SIZE_MAX: up to the NUL;
 * NUL bytes inside a counted run are ASCII). NULL is not. */
TSB_API bool tsb_utf8_valid(const char *s, size_t n);

/*
 * The largest length <= `max` at which s[0..n) can be cut without
 * splitting a UTF-8 sequence: a cut never leaves the lead byte of a
 * sequence without its continuation bytes. Bytes that are not UTF-8 count
 * as one character each, so a cut may fall between them. n = SIZE_MAX:
 * up to the NUL.
 */
TSB_API size_t tsb_utf8_truncate(const char *s, size_t n, size_t max);

/* Moves byte offset `at` of `s` back to the first byte of the UTF-8
 * sequence it falls in (skipping continuation bytes), not below `floor`. */
TSB_API size_t tsb_utf8_start(const char *s, size_t at, size_t floor);

TSB_END_DECLS
