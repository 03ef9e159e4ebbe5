/*
 * Counter rows: a series of values (pvti_graph_add_series) under its
 * file, drawn from tsr_trace_list_counter_buckets at one bucket per
 * pixel. A counter holds its value until the next sample, so the row is
 * a step line: in each bucket one bar spanning the samples' min and max
 * together with the jump from the previous bucket's last value (the band
 * and the line in one colour node), and a level line across the pixels
 * with no sample. As an area, the same with the space down to the
 * baseline filled. The value axis (its range and the unit) is written in
 * the labels' column; it fits the values in view, from 0 when none is
 * negative.
 */
#include "sa-timeline-private.h"

#include <tilescope/tsc-axis.h>

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
	double lo = INFINITY, hi = -INFINITY;

	free(c->buckets);
	c->buckets = NULL;
	c->n_buckets = 0;
	c->before = NAN;
	c->queried = TRUE;
	if (tsr_trace_list_counter_buckets(&c->buckets, &c->n_buckets, &c->before, self->trace, series,
	                                   self->vp.from, self->vp.to + 1, bucket) != TSR_OK) {
		g_warning("timeline: %s", tsr_trace_error(self->trace));
		c->n_buckets = 0;
	}
	if (isfinite(c->before))
		lo = hi = c->before;
	for (size_t i = 0; i < c->n_buckets; i++) {
		self->samples_in_view += c->buckets[i].count;
		lo = MIN(lo, c->buckets[i].min);
		hi = MAX(hi, c->buckets[i].max);
	}
	if (!isfinite(lo) || !isfinite(hi)) {
		c->lo = 0;
		c->hi = 1;
		return;
	}
	if (lo >= 0) {
		lo = 0;
		hi = tsc_axis_nice_ceil(hi);
	}
	if (hi <= lo)
		hi = lo + 1;
	c->lo = lo;
	c->hi = hi;
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

void sa_timeline_draw_counter(SaTimeline *self, GtkSnapshot *s, PangoLayout *layout,
                              const sa_row *row, int width, int top, gboolean dark)
{
	const counter_rows *c = &self->cdata[row->index];
	GdkRGBA line = series_colour(row->index, dark), fill = line;
	GdkRGBA grid = sa_timeline_foreground(self, 0.12);
	double y0 = top + 2, h = COUNTER_H - 4, base = y0 + h;
	/* The drawn part of the axis: up to the trace's end. */
	double right = MIN(width, sa_timeline_x_of(self, width, self->info->end_ns) + 1);
	double prev_x = LABEL_W, prev_v = c->before;

	(void)layout;
	fill.alpha = 0.4f;
#define Y_OF(v) (base - ((v) - c->lo) / (c->hi - c->lo) * h)
	gtk_snapshot_append_color(s, &grid, &GRAPHENE_RECT_INIT(LABEL_W, (float)y0,
	                                                        (float)(width - LABEL_W), 1));
	gtk_snapshot_append_color(s, &grid, &GRAPHENE_RECT_INIT(LABEL_W, (float)base,
	                                                        (float)(width - LABEL_W), 1));
	self->nodes += 2;
	if (c->lo < 0 && c->hi > 0) {
		gtk_snapshot_append_color(s, &grid, &GRAPHENE_RECT_INIT(LABEL_W, (float)Y_OF(0),
		                                                        (float)(width - LABEL_W), 1));
		self->nodes++;
	}
	for (size_t i = 0; i <= c->n_buckets; i++) {
		const tsr_trace_counter_bucket *b = i < c->n_buckets ? &c->buckets[i] : NULL;
		double x = b ? floor(sa_timeline_x_of(self, width, b->from_ns)) : right;

		x = CLAMP(x, LABEL_W, width);
		/* The level held since the previous sample, up to this bucket. */
		if (isfinite(prev_v) && x > prev_x) {
			double y = Y_OF(prev_v);

			if (row->area) {
				gtk_snapshot_append_color(s, &fill, &GRAPHENE_RECT_INIT((float)prev_x, (float)y,
				                                                        (float)(x - prev_x),
				                                                        (float)(base - y)));
				self->nodes++;
			}
			gtk_snapshot_append_color(s, &line, &GRAPHENE_RECT_INIT((float)prev_x, (float)y - 0.75f,
			                                                        (float)(x - prev_x), 1.5f));
			self->nodes++;
		}
		if (!b)
			break;
		{
			/* The bucket's samples and the jump into it: one bar. */
			double top_v = b->max, bottom_v = b->min, ya, yb;

			if (isfinite(prev_v)) {
				top_v = MAX(top_v, prev_v);
				bottom_v = MIN(bottom_v, prev_v);
			}
			ya = Y_OF(top_v) - 0.75;
			yb = Y_OF(bottom_v) + 0.75;
			if (row->area) {
				gtk_snapshot_append_color(s, &fill, &GRAPHENE_RECT_INIT((float)x, (float)Y_OF(b->max),
				                                                        1, (float)(base - Y_OF(b->max))));
				self->nodes++;
			}
			gtk_snapshot_append_color(s, &line, &GRAPHENE_RECT_INIT((float)x, (float)ya, 1.5f,
			                                                        (float)(yb - ya)));
			self->nodes++;
			prev_x = x + 1;
			prev_v = b->last;
		}
	}
#undef Y_OF
}
