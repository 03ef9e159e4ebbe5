/*
 * UTF-8 helpers (tilescope/utf8.h): RFC 3629's well-formed sequences,
 * decoded in one place so that the emitters of every library agree on
 * which bytes become U+FFFD.
 */
#define TSB_BUILDING_LIBRARY 1
#include "tilescope/utf8.h"

#include <stdint.h>
#include <string.h>

TSB_API size_t tsb_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len;
	uint32_t c;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		if (cp)
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
	if (cp)
		*cp = c;
	return len;
}

TSB_API bool tsb_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s)
		return false;
	if (n == SIZE_MAX)
		n = strlen(s);
	while (n) {
		size_t len = tsb_utf8_decode(p, n, NULL);

		if (!len)
			return false;
		p += len;
		n -= len;
	}
	return true;
}

TSB_API size_t tsb_utf8_truncate(const char *s, size_t n, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t at = 0;

	if (!s)
		return 0;
	if (n == SIZE_MAX)
		/* Far enough to see whether the sequence at the cut is whole. */
		n = max < PTRDIFF_MAX - 4 ? strnlen(s, max + 4) : strlen(s);
	if (n <= max)
		return n;
	while (at < n) {
		size_t len = tsb_utf8_decode(p + at, n - at, NULL);

		if (len == 0)
			len = 1;
		if (at + len > max)
			break;
		at += len;
	}
	return at;
}

TSB_API size_t tsb_utf8_start(const char *s, size_t at, size_t floor)
{
	while (at > floor && ((unsigned char)s[at] & 0xc0) == 0x80)
		at--;
	return at;
}
