/*
 * Value formatting for the chart kit's axes, tooltips and accessible
 * descriptions (tsc-axis.h).
 */
#include <string.h>

#include <tilescope/tsc-axis.h>
#include <tilescope/numfmt.h>

#include <math.h>

/* The rule is libtilescope-base's (tilescope/numfmt.h), which the CLI
 * and reportlib's summary print with too. */
char *tsc_format_thousands(double value, gpointer user_data)
{
	char buf[TSB_NUMBER_MAX];

	(void)user_data;
	return g_strdup(tsb_format_axis(buf, sizeof(buf), value));
}

char *tsc_format_bytes(double value, gpointer user_data)
{
	char *n = tsc_format_thousands(value, user_data);
	char *r = g_strconcat(n, " B", NULL);

	g_free(n);
	return r;
}

char *tsc_format_bytes_iec(double value, gpointer user_data)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double a = fabs(value);
	guint u = 0;

	(void)user_data;
	if (!isfinite(value) || a < 1024)
		return tsc_format_bytes(value, NULL);
	a /= 1024;
	while (a >= 1024 && u + 1 < G_N_ELEMENTS(units)) {
		a /= 1024;
		u++;
	}
	return g_strdup_printf("%s%.1f %s", value < 0 ? "-" : "", a, units[u]);
}
