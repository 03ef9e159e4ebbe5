/*
 * UTF-8, one sequence at a time: the one decoder behind every place that
 * writes names from a report or bytes of a path into text, JSON or XML
 * (reportlib's summary and Chrome export, the tilescope command's
 * messages and JUnit output), which each add their own rule on top (no
 * controls, XML's excluded code points).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/*
 * The length (1 to 4) of the well-formed UTF-8 sequence at s[0..n) with
 * its code point in *cp, or 0 when the bytes there are not one: a stray
 * continuation byte, an overlong form, a surrogate, a code point past
 * U+10FFFF, or a sequence cut short by n or by a NUL. ASCII, controls and
 * NUL included, is a sequence of length 1. For a NUL-terminated string
 * pass SIZE_MAX as n.
 */
static inline size_t tsf_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07u;
	else
		return 0;
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0u) != 0x80u) /* also stops at a NUL */
			return 0;
		c = c << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}
