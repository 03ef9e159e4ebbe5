/*
 * Times and counts as the System Analyser writes them (sa-format.h).
 * Durations for people come from reportlib's formatter, the CLI's.
 */
#include "sa-format.h"

#include <math.h>

#include <tilescope/numfmt.h>
#include <tilescope/units.h>

char *sa_format_count(uint64_t n)
{
	char buf[TSB_NUMBER_MAX];

	return g_strdup(tsb_format_u64(buf, sizeof(buf), n));
}

char *sa_format_duration(double ns)
{
	char buf[TSR_DURATION_MAX];

	return g_strdup(tsr_format_duration(buf, sizeof(buf), ns, TSR_DURATION_MICRO));
}

char *sa_format_ns_exact(uint64_t ns)
{
	g_autofree char *digits = sa_format_count(ns);

	return g_strdup_printf("%s ns", digits);
}

char *sa_format_ns_mean(double ns)
{
	/* Thousandths of a nanosecond, rounded once, so that the fraction
	 * never reads ".1000". */
	double t = round(fabs(ns) * 1000);
	uint64_t whole, frac;
	g_autofree char *digits = NULL;

	if (!isfinite(ns) || t >= 1.8e19)
		return g_strdup("-");
	whole = (uint64_t)t / 1000;
	frac = (uint64_t)t % 1000;
	digits = sa_format_count(whole);
	return frac ? g_strdup_printf("%s%s.%03" G_GUINT64_FORMAT " ns", ns < 0 ? "-" : "", digits,
	                              frac)
	            : g_strdup_printf("%s%s ns", ns < 0 && whole ? "-" : "", digits);
}

char *sa_format_ms_exact(int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	return g_strdup_printf("%s%" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT " ms", ns < 0 ? "-" : "",
	                       a / 1000000, a % 1000000);
}

char *sa_format_us_exact(uint64_t ns)
{
	g_autofree char *whole = sa_format_count(ns / 1000);

	return g_strdup_printf("%s.%03" G_GUINT64_FORMAT " µs", whole, ns % 1000);
}
