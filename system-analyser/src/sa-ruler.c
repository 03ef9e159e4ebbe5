/*
 * The timeline's ruler (sa-ruler.h). Wall-clock ticks are placed on the
 * wall clock's own nice steps (whole seconds, tens of milliseconds...),
 * computed relative to the minute the window starts in: ns since 1970
 * do not fit a double's 53 bits, a minute's worth does.
 */
#include "sa-ruler.h"

#include <tilescope/tsc-axis.h>

#include <math.h>
#include <string.h>

#define NS_PER_MIN INT64_C(60000000000)

/* Decimals of a second (or of the unit) a step needs. */
static int decimals_for(double step_in_unit)
{
	int d = step_in_unit >= 1 ? 0 : (int)ceil(-log10(step_in_unit) - 1e-9);

	return CLAMP(d, 0, 9);
}

/* "40.2986 ms": relative to the start, in the unit of the window's end
 * (so deep zooms far into a trace stay readable). */
static char *relative_label(const sa_ruler *r, double v, double step)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
	double hi = (double)(r->to_ns - r->start_ns);
	size_t i = 0;

	while (i + 1 < G_N_ELEMENTS(units) && hi < units[i].scale)
		i++;
	return g_strdup_printf("%.*f %s", decimals_for(step / units[i].scale), v / units[i].scale,
	                       units[i].unit);
}

/* "06:12:27.1234" (UTC) for `wall_ns` since 1970. */
static char *wall_label(int64_t wall_ns, double step)
{
	int64_t s = wall_ns >= 0 ? wall_ns / 1000000000 : (wall_ns - 999999999) / 1000000000;
	int64_t frac = wall_ns - s * 1000000000;
	int d = decimals_for(step / 1e9);
	char digits[16];

	if (d == 0)
		return g_strdup_printf("%02d:%02d:%02d", (int)(s / 3600 % 24), (int)(s / 60 % 60),
		                       (int)(s % 60));
	g_snprintf(digits, sizeof(digits), "%09" G_GINT64_FORMAT, frac);
	digits[d] = '\0';
	return g_strdup_printf("%02d:%02d:%02d.%s", (int)(s / 3600 % 24), (int)(s / 60 % 60),
	                       (int)(s % 60), digits);
}

char *sa_ruler_dup_label(const sa_ruler *ruler, int64_t t_ns, double step_ns)
{
	if (ruler->wall_clock)
		return wall_label(ruler->wall_origin_ns + t_ns, step_ns);
	return relative_label(ruler, (double)(t_ns - ruler->start_ns), step_ns);
}

char *sa_ruler_dup_caption(const sa_ruler *ruler)
{
	g_autoptr(GDateTime) dt = NULL;

	if (!ruler->wall_clock)
		return g_strdup("Time since start");
	dt = g_date_time_new_from_unix_utc((ruler->wall_origin_ns + ruler->from_ns) / 1000000000);
	return dt ? g_date_time_format(dt, "UTC %Y-%m-%d") : g_strdup("UTC");
}

guint sa_ruler_draw(GtkSnapshot *s, PangoLayout *layout, const sa_ruler *r, const GdkRGBA *fg,
                    const GdkRGBA *line)
{
	/* Ticks on the chosen clock: relative time, or wall time from the
	 * minute the window starts in. */
	int64_t base = r->wall_clock ? r->wall_origin_ns + r->from_ns : r->start_ns;
	double lo, hi, step, first, px_per_ns = r->width / (double)(r->to_ns - r->from_ns + 1);
	guint n, nodes = 0;

	if (r->wall_clock) {
		base -= ((base % NS_PER_MIN) + NS_PER_MIN) % NS_PER_MIN;
		lo = (double)(r->wall_origin_ns + r->from_ns - base);
		hi = (double)(r->wall_origin_ns + r->to_ns - base);
	} else {
		lo = (double)(r->from_ns - base);
		hi = (double)(r->to_ns - base);
	}
	/* Wall-clock labels are wider: fewer of them. */
	n = tsc_axis_nice_ticks(lo, hi, (guint)MAX(r->width / (r->wall_clock ? 140 : 110), 2), 1,
	                        &step, &first);
	gtk_snapshot_append_color(s, line, &GRAPHENE_RECT_INIT((float)r->x0, (float)r->height - 1,
	                                                        (float)r->width, 1));
	nodes++;
	pango_layout_set_width(layout, -1);
	for (guint i = 0; i < n; i++) {
		double v = first + step * i;
		double x = r->x0 + (v - lo) * px_per_ns;
		g_autofree char *text = NULL;
		int tw;

		gtk_snapshot_append_color(s, line, &GRAPHENE_RECT_INIT((float)x, (float)r->height - 10, 1,
		                                                        10));
		nodes++;
		text = r->wall_clock ? wall_label(base + (int64_t)llround(v), step)
		                     : relative_label(r, v, step);
		pango_layout_set_text(layout, text, -1);
		pango_layout_get_pixel_size(layout, &tw, NULL);
		/* A label that would not fit before the right edge is left out. */
		if (x + 3 + tw > r->x0 + r->width)
			continue;
		gtk_snapshot_save(s);
		gtk_snapshot_translate(s, &GRAPHENE_POINT_INIT((float)x + 3, 2));
		gtk_snapshot_append_layout(s, layout, fg);
		gtk_snapshot_restore(s);
	}
	return nodes;
}
