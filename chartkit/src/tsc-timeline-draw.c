/*
 * What a timeline draws the same way in every app (tsc-timeline.h): the
 * ruler over the window, a fold's count, the marked range and outlines of
 * the overlay, and a layer made as a texture for an earlier window.
 */
#include <tilescope/tsc-timeline.h>
#include <tilescope/axis.h>
#include <tilescope/numfmt.h>

#include <math.h>

char *tsc_ruler_dup_label(const TscRuler *ruler, int64_t t, double step)
{
	return tsc_timeline_format_tick(ruler->vp->unit, (double)(t - ruler->zero), step,
	                                (double)(ruler->vp->to - ruler->zero));
}

/* The ruler's ticks: how many, `step` apart from `first`, relative to the
 * tick origin (doubles hold them exactly where the axis' own units, ns
 * since 1970, would not); *lo is the window's start so relative. */
static guint ruler_ticks(const TscRuler *r, double *lo, double *step, double *first)
{
	const TscViewport *vp = r->vp;
	double label_px = r->label_px > 0 ? r->label_px : 110;

	*lo = (double)(vp->from - r->tick_origin);
	return tsb_axis_nice_ticks(*lo, (double)(vp->to - r->tick_origin),
	                           (guint)MAX(r->width / label_px, 2), 1, step, first);
}

guint tsc_ruler_draw_grid(GtkSnapshot *s, const TscRuler *r, double y0, double y1,
                          const GdkRGBA *colour)
{
	double lo, step, first, px_per_unit = r->width / (double)(r->vp->to - r->vp->from + 1);
	guint n = ruler_ticks(r, &lo, &step, &first);

	for (guint i = 0; i < n && y1 > y0; i++)
		gtk_snapshot_append_color(s, colour,
		                          &GRAPHENE_RECT_INIT((float)(r->x0 + (first + step * i - lo) *
		                                                                  px_per_unit),
		                                              (float)y0, 1, (float)(y1 - y0)));
	return y1 > y0 ? n : 0;
}

guint tsc_ruler_draw(GtkSnapshot *s, PangoLayout *layout, const TscRuler *r, const GdkRGBA *fg,
                     const GdkRGBA *line)
{
	const TscViewport *vp = r->vp;
	double lo, step, first, px_per_unit = r->width / (double)(vp->to - vp->from + 1);
	guint n = ruler_ticks(r, &lo, &step, &first), nodes = 0;

	gtk_snapshot_append_color(s, line, &GRAPHENE_RECT_INIT((float)r->x0, (float)r->height - 1,
	                                                        (float)r->width, 1));
	nodes++;
	pango_layout_set_width(layout, -1);
	for (guint i = 0; i < n; i++) {
		double v = first + step * i;
		double x = r->x0 + (v - lo) * px_per_unit;
		int64_t t = r->tick_origin + (int64_t)llround(v);
		g_autofree char *text = NULL;
		int tw;

		gtk_snapshot_append_color(s, line, &GRAPHENE_RECT_INIT((float)x, (float)r->height - 10, 1,
		                                                        10));
		nodes++;
		text = r->label ? r->label(r, t, step, r->label_data) : tsc_ruler_dup_label(r, t, step);
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

gboolean tsc_fold_count_label(PangoLayout *layout, uint64_t count, double w, char *buf,
                              size_t size)
{
	char digits[TSB_NUMBER_MAX];
	int pw;

	pango_layout_set_width(layout, -1);
	g_snprintf(buf, size, "×%s", tsb_format_u64(digits, sizeof(digits), count));
	pango_layout_set_text(layout, buf, -1);
	pango_layout_get_pixel_size(layout, &pw, NULL);
	if (pw <= w)
		return TRUE;
	if (count >= 1000000)
		g_snprintf(buf, size, "×%.1fM", (double)count / 1e6);
	else if (count >= 1000)
		g_snprintf(buf, size, "×%.0fk", (double)count / 1e3);
	else
		return FALSE;
	pango_layout_set_text(layout, buf, -1);
	pango_layout_get_pixel_size(layout, &pw, NULL);
	return pw <= w;
}

void tsc_timeline_draw_range(GtkSnapshot *s, const TscViewport *vp, double plot_x,
                             double plot_w, double height, int64_t from, int64_t to,
                             const GdkRGBA *accent)
{
	double x0, x1;
	GdkRGBA shade = *accent;

	if (from >= to)
		return;
	x0 = MAX(tsc_viewport_x_of(vp, plot_x, plot_w, from), plot_x);
	x1 = MIN(tsc_viewport_x_of(vp, plot_x, plot_w, to), plot_x + plot_w);
	/* Off to either side: nothing (a range narrower than a pixel still
	 * shows as one). */
	if (x1 <= x0 - 1)
		return;
	shade.alpha = 0.18f;
	gtk_snapshot_append_color(s, &shade, &GRAPHENE_RECT_INIT((float)x0, 0, (float)MAX(x1 - x0, 1),
	                                                         (float)height));
	gtk_snapshot_append_color(s, accent, &GRAPHENE_RECT_INIT((float)x0, 0, 1, (float)height));
	gtk_snapshot_append_color(s, accent, &GRAPHENE_RECT_INIT((float)x1 - 1, 0, 1, (float)height));
}

void tsc_timeline_draw_outline(GtkSnapshot *s, double x0, double x1, double y, double h,
                               const GdkRGBA *colour, float w)
{
	GskRoundedRect r;
	const GdkRGBA cs[4] = {*colour, *colour, *colour, *colour};
	const float ws[4] = {w, w, w, w};

	/* A fold or a sliver is outlined wide enough to see. */
	if (x1 - x0 < 3)
		x1 = x0 + 3;
	gsk_rounded_rect_init_from_rect(&r, &GRAPHENE_RECT_INIT((float)x0, (float)y, (float)(x1 - x0),
	                                                        (float)h), 0);
	gtk_snapshot_append_border(s, &r, ws, cs);
}

void tsc_timeline_append_texture(GtkSnapshot *s, GdkTexture *texture, int64_t made_from,
                                 int64_t made_to, const TscViewport *vp, double plot_x,
                                 double plot_w, double y, double h, int scale)
{
	double x0, x1;

	g_return_if_fail(GDK_IS_TEXTURE(texture) && vp != NULL);
	x0 = tsc_viewport_x_of(vp, plot_x, plot_w, made_from);
	x1 = tsc_viewport_x_of(vp, plot_x, plot_w, made_to + 1);
	gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT((float)plot_x, (float)y, (float)plot_w,
	                                              (float)h));
	gtk_snapshot_append_texture(s, texture,
	                            &GRAPHENE_RECT_INIT((float)x0, (float)y, (float)(x1 - x0),
	                                                (float)gdk_texture_get_height(texture) /
	                                                    (float)MAX(scale, 1)));
	gtk_snapshot_pop(s);
}
