/*
 * The duration formatter (tilescope/units.h): moved here from the CLI's
 * `tilescope trace` so that the System Analyser prints with the same one.
 */
#include <tilescope/units.h>

#include <math.h>
#include <stdio.h>

TSR_API const char *tsr_format_duration(char *buf, size_t size, double ns,
                                        tsr_duration_style style)
{
	static const double scales[] = {1, 1e3, 1e6, 1e9};
	const char *units[] = {"ns", style == TSR_DURATION_MICRO ? "\u00b5s" : "us", "ms", "s"};
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
