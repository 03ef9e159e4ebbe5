/*
 * Nice ticks and value formatting for the chart kit's axes, tooltips and
 * accessible descriptions (tsc-axis.h).
 */
#include <string.h>

#include <tilescope/tsc-axis.h>
#include <tilescope/numfmt.h>

#include <math.h>

guint tsc_axis_nice_ticks(double lo, double hi, guint max_ticks, double min_step,
                          double *out_step, double *out_first)
{
	static const double mults[] = { 1, 2, 5, 10 };
	double span, raw, mag, step = 0, first;
	guint i, n;

	*out_step = 0;
	*out_first = lo;
	if (!isfinite(lo) || !isfinite(hi) || hi < lo)
		return 0;
	if (max_ticks < 2)
		max_ticks = 2;
	span = hi - lo;
	if (span <= 0)
		span = fabs(hi) > 0 ? fabs(hi) : 1;
	/* max_ticks ticks leave max_ticks - 1 intervals. */
	raw = span / (double)(max_ticks - 1);
	mag = pow(10, floor(log10(raw)));
	for (i = 0; i < G_N_ELEMENTS(mults); i++) {
		step = mults[i] * mag;
		if (step >= raw * (1 - 1e-9))
			break;
	}
	if (min_step > 0 && step < min_step)
		step = tsc_axis_nice_ceil(min_step);
	first = ceil(lo / step - 1e-9) * step;
	n = (guint)(floor((hi - first) / step + 1e-9) + 1);
	*out_step = step;
	*out_first = first;
	return n;
}

double tsc_axis_nice_ceil(double value)
{
	double mag, f;

	if (!(value > 0) || !isfinite(value))
		return 1;
	mag = pow(10, floor(log10(value)));
	f = value / mag;
	/* Steps of 1, 2, 2.5, 5 within a decade keep the top of the axis
	 * within 25 % of the data. */
	if (f <= 1 + 1e-9)
		return mag;
	if (f <= 2 + 1e-9)
		return 2 * mag;
	if (f <= 2.5 + 1e-9)
		return 2.5 * mag;
	if (f <= 5 + 1e-9)
		return 5 * mag;
	return 10 * mag;
}

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
