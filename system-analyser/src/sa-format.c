/*
 * Times and counts as the System Analyser writes them (sa-format.h).
 */
#include "sa-format.h"

#include <math.h>

char *sa_format_count(uint64_t n)
{
	char digits[32];
	GString *s = g_string_new(NULL);
	int len = g_snprintf(digits, sizeof(digits), "%" G_GUINT64_FORMAT, n);

	for (int i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			g_string_append_c(s, ',');
		g_string_append_c(s, digits[i]);
	}
	return g_string_free(s, FALSE);
}

char *sa_format_duration(double ns)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
	double a = fabs(ns);

	for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
		double v = ns / units[i].scale;

		if (a >= units[i].scale || i + 1 == G_N_ELEMENTS(units)) {
			if (i + 1 == G_N_ELEMENTS(units))
				return g_strdup_printf("%.0f %s", v, units[i].unit);
			return g_strdup_printf(fabs(v) >= 100 ? "%.0f %s" : fabs(v) >= 10 ? "%.1f %s"
			                                                                  : "%.2f %s",
			                       v, units[i].unit);
		}
	}
	return g_strdup("0 ns");
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
