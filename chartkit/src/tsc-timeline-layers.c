/*
 * Counters and markers as timeline layers (tsc-timeline.h): a counter's
 * buckets as a step line or area, and instants folded into markers, drawn
 * on a TscViewport so that any timeline shows them the same way.
 */
#include <tilescope/tsc-timeline.h>
#include <tilescope/axis.h>

#include <math.h>

gboolean tsc_counter_range(const TscCounterBucket *b, size_t n, double before, double *lo,
                           double *hi)
{
	double l = INFINITY, h = -INFINITY;

	if (isfinite(before))
		l = h = before;
	for (size_t i = 0; i < n; i++) {
		l = MIN(l, b[i].min);
		h = MAX(h, b[i].max);
	}
	if (!isfinite(l) || !isfinite(h)) {
		*lo = 0;
		*hi = 1;
		return FALSE;
	}
	if (l >= 0) {
		l = 0;
		h = tsb_axis_nice_ceil(h);
	}
	if (h <= l)
		h = l + 1;
	*lo = l;
	*hi = h;
	return TRUE;
}

static void rect(GtkSnapshot *s, const GdkRGBA *c, double x, double y, double w, double h)
{
	gtk_snapshot_append_color(s, c, &GRAPHENE_RECT_INIT((float)x, (float)y, (float)w, (float)h));
}

guint tsc_timeline_draw_counter(GtkSnapshot *s, const TscViewport *vp, double plot_x,
                                double plot_w, double right, double y0, double h,
                                const TscCounterBucket *buckets, size_t n, double before,
                                double lo, double hi, gboolean area, const GdkRGBA *line,
                                const GdkRGBA *grid)
{
	GdkRGBA fill = *line;
	double base = y0 + h, end = plot_x + plot_w, prev_x = plot_x, prev_v = before;
	guint nodes = 0;

	fill.alpha = 0.4f;
	right = MIN(right, end);
#define Y_OF(v) (base - ((v) - lo) / (hi - lo) * h)
	rect(s, grid, plot_x, y0, plot_w, 1);
	rect(s, grid, plot_x, base, plot_w, 1);
	nodes += 2;
	if (lo < 0 && hi > 0) {
		rect(s, grid, plot_x, Y_OF(0), plot_w, 1);
		nodes++;
	}
	for (size_t i = 0; i <= n; i++) {
		const TscCounterBucket *b = i < n ? &buckets[i] : NULL;
		double x = b ? floor(tsc_viewport_x_of(vp, plot_x, plot_w, b->from)) : right;
		double top_v, bottom_v, ya, yb;

		x = CLAMP(x, plot_x, end);
		/* The level held since the previous sample, up to this bucket. */
		if (isfinite(prev_v) && x > prev_x) {
			double y = Y_OF(prev_v);

			if (area) {
				rect(s, &fill, prev_x, y, x - prev_x, base - y);
				nodes++;
			}
			gtk_snapshot_append_color(s, line, &GRAPHENE_RECT_INIT((float)prev_x, (float)y - 0.75f,
			                                                       (float)(x - prev_x), 1.5f));
			nodes++;
		}
		if (!b)
			break;
		/* The bucket's samples and the jump into it: one bar. */
		top_v = b->max;
		bottom_v = b->min;
		if (isfinite(prev_v)) {
			top_v = MAX(top_v, prev_v);
			bottom_v = MIN(bottom_v, prev_v);
		}
		ya = Y_OF(top_v) - 0.75;
		yb = Y_OF(bottom_v) + 0.75;
		if (area) {
			gtk_snapshot_append_color(s, &fill, &GRAPHENE_RECT_INIT((float)x, (float)Y_OF(b->max), 1,
			                                                        (float)(base - Y_OF(b->max))));
			nodes++;
		}
		gtk_snapshot_append_color(s, line, &GRAPHENE_RECT_INIT((float)x, (float)ya, 1.5f,
		                                                       (float)(yb - ya)));
		nodes++;
		prev_x = x + 1;
		prev_v = b->last;
	}
#undef Y_OF
	return nodes;
}

static const TscMarker *marker(const TscMarker *markers, size_t stride, size_t i)
{
	return (const TscMarker *)(const void *)((const char *)markers + i * stride);
}

guint tsc_timeline_draw_markers(GtkSnapshot *s, PangoLayout *layout, const TscViewport *vp,
                                double plot_x, double plot_w, double top, double h,
                                const TscMarker *markers, size_t n, size_t stride,
                                const GdkRGBA *tick, const GdkRGBA *band, const GdkRGBA *text)
{
	guint nodes = 0;
	char buf[48];

	for (size_t i = 0; i < n; i++) {
		const TscMarker *m = marker(markers, stride, i);
		double x0 = tsc_viewport_x_of(vp, plot_x, plot_w, m->from);
		double x1 = tsc_viewport_x_of(vp, plot_x, plot_w, m->to);

		if (m->count == 1) {
			gtk_snapshot_append_color(s, tick, &GRAPHENE_RECT_INIT((float)x0 - 1, (float)top + 2,
			                                                       2, (float)h - 4));
			nodes++;
			continue;
		}
		/* A folded run: a band over it (at least the fold width), its
		 * count when it fits. */
		x0 = floor(x0) - 1;
		x1 = MAX(ceil(x1) + 1, x0 + TSC_TIMELINE_FOLD_PX);
		gtk_snapshot_append_color(s, band, &GRAPHENE_RECT_INIT((float)x0, (float)top + 2,
		                                                       (float)(x1 - x0), (float)h - 4));
		nodes++;
		if (x1 - x0 >= 24 && tsc_fold_count_label(layout, m->count, x1 - x0 - 4, buf, sizeof(buf))) {
			pango_layout_set_width(layout, (int)((x1 - x0 - 4) * PANGO_SCALE));
			gtk_snapshot_save(s);
			gtk_snapshot_translate(s, &GRAPHENE_POINT_INIT((float)x0 + 2, (float)top));
			gtk_snapshot_append_layout(s, layout, text);
			gtk_snapshot_restore(s);
		}
	}
	return nodes;
}

gssize tsc_timeline_marker_at(const TscViewport *vp, double plot_x, double plot_w,
                              const TscMarker *markers, size_t n, size_t stride, double x)
{
	gssize best = -1;
	double best_d = 4;

	for (size_t i = 0; i < n; i++) {
		const TscMarker *m = marker(markers, stride, i);
		double x0 = tsc_viewport_x_of(vp, plot_x, plot_w, m->from) - 1;
		double x1 = tsc_viewport_x_of(vp, plot_x, plot_w, m->to) + 1;
		double d = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;

		if (d < best_d) {
			best_d = d;
			best = (gssize)i;
		}
	}
	return best;
}
