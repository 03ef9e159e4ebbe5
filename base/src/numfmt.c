/*
 * Number and unit formatting (tilescope/numfmt.h). The rules were written
 * five times (the summary's text, the tilescope command, the Chrome
 * importer's messages, the chart kit, the Graph Analyser's summary view);
 * this is the one copy, so a change of rule changes every window and
 * every terminal at once.
 *
 * Decimal points are written by hand or by "%.Nf" of a value that the
 * caller's locale cannot change the digits of; the grouping separator is
 * always ',' whatever LC_NUMERIC says.
 */
#define TSB_BUILDING_LIBRARY 1
#include "tilescope/numfmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TSB_API const char *tsb_group_digits(char *out, size_t size, const char *digits)
{
	size_t len, o = 0, i = 0;

	if (!out || size == 0)
		return out;
	if (!digits)
		digits = "";
	len = strlen(digits);
	if (digits[0] == '-') {
		if (o + 1 < size)
			out[o++] = '-';
		i = 1;
	}
	for (size_t first = i; i < len && o + 1 < size; i++) {
		if (i > first && (len - i) % 3 == 0) {
			if (o + 2 >= size) /* no comma without a digit after it */
				break;
			out[o++] = ',';
		}
		out[o++] = digits[i];
	}
	out[o] = '\0';
	return out;
}

TSB_API const char *tsb_format_u64(char *buf, size_t size, uint64_t v)
{
	char digits[24];

	snprintf(digits, sizeof(digits), "%" PRIu64, v);
	return tsb_group_digits(buf, size, digits);
}

TSB_API const char *tsb_format_i64(char *buf, size_t size, int64_t v)
{
	char digits[24];

	snprintf(digits, sizeof(digits), "%" PRId64, v);
	return tsb_group_digits(buf, size, digits);
}

TSB_API const char *tsb_format_tenths(char *buf, size_t size, double v)
{
	char whole[TSB_NUMBER_MAX];
	uint64_t tenths;

	if (!isfinite(v) || v < 0 || v >= 1e18) {
		snprintf(buf, size, "n/a");
		return buf;
	}
	tenths = (uint64_t)llround(v * 10.0);
	snprintf(buf, size, "%s.%u", tsb_format_u64(whole, sizeof(whole), tenths / 10),
	         (unsigned)(tenths % 10));
	return buf;
}

TSB_API const char *tsb_format_percent(char *buf, size_t size, double fraction)
{
	char num[TSB_NUMBER_MAX];

	if (!isfinite(fraction)) {
		snprintf(buf, size, "n/a");
		return buf;
	}
	snprintf(buf, size, "%s%%", tsb_format_tenths(num, sizeof(num), fraction * 100.0));
	return buf;
}

TSB_API const char *tsb_format_size(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	double v = (double)bytes;
	size_t u = 0;
	char num[TSB_NUMBER_MAX];

	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	snprintf(buf, size, "%s %s", tsb_format_tenths(num, sizeof(num), v), units[u]);
	return buf;
}

TSB_API const char *tsb_format_axis(char *buf, size_t size, double value)
{
	char digits[TSB_NUMBER_MAX], *at = buf;
	double a = fabs(value);
	int len;

	if (!isfinite(value)) {
		snprintf(buf, size, "%s", isnan(value) ? "\u2013" : value > 0 ? "\u221e" : "-\u221e");
		return buf;
	}
	/* Past 1e30 the grouped digits would not fit the buffer; such a
	 * value is no chart's, and reads as its exponent. */
	if ((a < 10 && a != floor(a)) || a >= 1e30) {
		snprintf(buf, size, "%.3g", value);
		return buf;
	}
	len = snprintf(digits, sizeof(digits), "%.0f", floor(a + 0.5));
	if (len < 0 || (size_t)len >= sizeof(digits)) {
		snprintf(buf, size, "%.3g", value);
		return buf;
	}
	if (value < 0 && floor(a + 0.5) > 0 && size > 1) {
		*at++ = '-';
		size--;
	}
	tsb_group_digits(at, size, digits);
	return buf;
}

TSB_API const char *tsb_format_duration(char *buf, size_t size, double ns,
                                        tsb_duration_style style)
{
	static const double scales[] = {1, 1e3, 1e6, 1e9};
	const char *units[] = {"ns", style == TSB_DURATION_MICRO ? "\u00b5s" : "us", "ms", "s"};
	const size_t n_units = sizeof(scales) / sizeof(scales[0]);
	double mag = fabs(ns), x;
	size_t u = 0;
	int decimals;

	if (!buf || size == 0)
		return buf;
	if (!isfinite(ns)) {
		snprintf(buf, size, "-");
		return buf;
	}
	/* 0.9995 of a unit rounds up to 1.00 of it. */
	while (u + 1 < n_units && mag >= scales[u + 1] * 0.9995)
		u++;
	x = mag / scales[u];
	decimals = u == 0 || x >= 99.95 ? 0 : x >= 9.995 ? 1 : 2;
	snprintf(buf, size, "%s%.*f %s", ns < 0 && x >= 0.5 ? "-" : "", decimals, x, units[u]);
	return buf;
}

TSB_API bool tsb_parse_decimal(const char *s, double *out, const char **end)
{
	const char *p = s;
	bool digits = false;
	char buf[48];
	double v;

	if (!s)
		return false;
	while (*p >= '0' && *p <= '9') {
		p++;
		digits = true;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			p++;
			digits = true;
		}
	}
	if (!digits || p - s > 40)
		return false;
	memcpy(buf, s, (size_t)(p - s));
	buf[p - s] = '\0';
	v = strtod(buf, NULL);
	if (!isfinite(v))
		return false;
	*out = v;
	*end = p;
	return true;
}
