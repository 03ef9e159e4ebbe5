/*
 * The timeline's ruler (sa-ruler.h): the chart kit's ruler (tsc-timeline.h)
 * with the timeline's labels. Wall-clock ticks are placed on the wall
 * clock's own nice steps (whole seconds, tens of milliseconds...),
 * computed relative to the minute the window starts in: ns since 1970
 * do not fit a double's 53 bits, a minute's worth does.
 */
#include "sa-ruler.h"

#include <tilescope/tsc-timeline.h>

#define NS_PER_MIN INT64_C(60000000000)

/* "06:12:27.1234" (UTC) for `wall_ns` since 1970. */
static char *wall_label(int64_t wall_ns, double step)
{
	int64_t s = wall_ns >= 0 ? wall_ns / 1000000000 : (wall_ns - 999999999) / 1000000000;
	int64_t frac = wall_ns - s * 1000000000;
	int d = tsc_timeline_tick_decimals(step / 1e9);
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
	/* In the unit of the window's end, so deep zooms far into a trace
	 * stay readable. */
	return tsc_timeline_format_tick(TSC_TIMELINE_NS, (double)(t_ns - ruler->start_ns), step_ns,
	                                (double)(ruler->to_ns - ruler->start_ns));
}

char *sa_ruler_dup_caption(const sa_ruler *ruler)
{
	g_autoptr(GDateTime) dt = NULL;

	if (!ruler->wall_clock)
		return g_strdup("Time since start");
	dt = g_date_time_new_from_unix_utc((ruler->wall_origin_ns + ruler->from_ns) / 1000000000);
	return dt ? g_date_time_format(dt, "UTC %Y-%m-%d") : g_strdup("UTC");
}

static char *label_cb(const TscRuler *ruler, int64_t t, double step, gpointer data)
{
	return sa_ruler_dup_label(data, t, step);
}

guint sa_ruler_draw(GtkSnapshot *s, PangoLayout *layout, const sa_ruler *r, const GdkRGBA *fg,
                    const GdkRGBA *line)
{
	TscViewport vp = {.unit = TSC_TIMELINE_NS, .from = r->from_ns, .to = r->to_ns};
	TscRuler ruler = {.x0 = r->x0, .width = r->width, .height = r->height, .vp = &vp,
	                  .zero = r->start_ns, .tick_origin = r->start_ns, .label_px = 110,
	                  .label = label_cb, .label_data = (gpointer)r};

	/* Ticks on the chosen clock: relative time, or wall time from the
	 * minute the window starts in (wider labels: fewer of them). */
	if (r->wall_clock) {
		int64_t base = r->wall_origin_ns + r->from_ns;

		base -= ((base % NS_PER_MIN) + NS_PER_MIN) % NS_PER_MIN;
		ruler.tick_origin = base - r->wall_origin_ns;
		ruler.label_px = 140;
	}
	return tsc_ruler_draw(s, layout, &ruler, fg, line);
}
