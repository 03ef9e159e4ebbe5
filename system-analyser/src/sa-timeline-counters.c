/*
 * Counter rows: a series of values (pvti_graph_add_series) under its
 * file, drawn from tsr_trace_list_counter_buckets at one bucket per
 * pixel as the chart kit's counter layer (tsc-timeline.h): a step line,
 * or an area. The value axis (its range and the unit) is written in the
 * labels' column; it fits the values in view, from 0 when none is
 * negative.
 */
#include "sa-timeline-private.h"

#include <math.h>

static GdkRGBA series_colour(size_t series, gboolean dark)
{
	static const char *const light[] = {"#1c71d8", "#c64600", "#26a269", "#9141ac", "#a51d2d",
	                                    "#0e7c86"};
	static const char *const darkp[] = {"#62a0ea", "#ffa348", "#8ff0a4", "#dc8add", "#f66151",
	                                    "#5bc8d0"};
	GdkRGBA c;

	gdk_rgba_parse(&c, (dark ? darkp : light)[series % G_N_ELEMENTS(light)]);
	return c;
}

void sa_timeline_query_counter(SaTimeline *self, size_t series, int width)
{
	counter_rows *c = &self->cdata[series];
	uint64_t bucket = (uint64_t)MAX(ceil(sa_timeline_ns_per_px(self, width)), 1);
	tsr_trace_counter_bucket *b = NULL;
	size_t n = 0;

	g_clear_pointer(&c->buckets, g_free);
	c->n_buckets = 0;
	c->before = NAN;
	c->queried = TRUE;
	if (tsr_trace_list_counter_buckets(&b, &n, &c->before, self->trace, series, self->vp.from,
	                                   self->vp.to + 1, bucket) != TSR_OK) {
		g_warning("timeline: %s", tsr_trace_error(self->trace));
		n = 0;
	}
	/* The chart kit's buckets: about one per pixel, so a copy per frame
	 * costs what drawing them does. */
	c->buckets = g_new(TscCounterBucket, MAX(n, 1));
	for (size_t i = 0; i < n; i++) {
		c->buckets[i] = (TscCounterBucket){.from = b[i].from_ns, .count = b[i].count,
		                                   .min = b[i].min, .max = b[i].max, .last = b[i].last};
		self->samples_in_view += b[i].count;
	}
	c->n_buckets = n;
	free(b);
	tsc_counter_range(c->buckets, c->n_buckets, c->before, &c->lo, &c->hi);
}

char *sa_timeline_counter_axis(SaTimeline *self, size_t series)
{
	const counter_rows *c = &self->cdata[series];
	const char *unit = self->series[series].unit ? self->series[series].unit : "";

	if (!c->queried)
		return g_strdup(unit);
	if (c->n_buckets == 0 && !isfinite(c->before))
		return g_strdup("no samples in view");
	return g_strdup_printf("%.4g – %.4g%s%s", c->lo, c->hi, *unit ? " " : "", unit);
}

void sa_timeline_draw_counter_on(SaTimeline *self, GtkSnapshot *s, size_t series, int width,
                                 int top, double lo, double hi, gboolean area, gboolean dark)
{
	const counter_rows *c = &self->cdata[series];
	GdkRGBA line = series_colour(series, dark);
	GdkRGBA grid = sa_timeline_foreground(self, 0.12);

	/* The drawn part of the axis: up to the trace's end. */
	self->nodes += tsc_timeline_draw_counter(
		s, &self->vp, LABEL_W, sa_timeline_plot_width(width),
		sa_timeline_x_of(self, width, self->info->end_ns) + 1, top + 2, COUNTER_H - 4, c->buckets,
		c->n_buckets, c->before, lo, hi, area, &line, &grid);
}
