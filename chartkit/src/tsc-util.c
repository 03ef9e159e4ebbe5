/*
 * Drawing helpers shared by the chart kit's widgets (tsc-util-private.h)
 * and the theme's colours (tsc-theme.h).
 */
#include "tsc-util-private.h"

#include <math.h>

void tsc_theme_colours(GtkWidget *widget, GdkRGBA *fg, GdkRGBA *accent)
{
	GtkStyleContext *ctx = gtk_widget_get_style_context(widget);

	gtk_style_context_get_color(ctx, fg);
	if (!gtk_style_context_lookup_color(ctx, "accent_color", accent) &&
	    !gtk_style_context_lookup_color(ctx, "theme_selected_bg_color", accent))
		*accent = (GdkRGBA){ 0.21f, 0.52f, 0.89f, 1.0f };
}

gboolean tsc_theme_changed(GtkWidget *widget, const GdkRGBA *fg, const GdkRGBA *accent)
{
	GdkRGBA now_fg, now_accent;

	tsc_theme_colours(widget, &now_fg, &now_accent);
	return !gdk_rgba_equal(&now_fg, fg) || !gdk_rgba_equal(&now_accent, accent);
}

GdkRGBA tsc_rgba_alpha(const GdkRGBA *c, double alpha)
{
	GdkRGBA r = *c;

	r.alpha = (float)(r.alpha * alpha);
	return r;
}

void tsc_rect(GtkSnapshot *s, const GdkRGBA *c, double x, double y, double w, double h)
{
	if (w <= 0 || h <= 0)
		return;
	gtk_snapshot_append_color(s, c, &GRAPHENE_RECT_INIT((float)x, (float)y, (float)w, (float)h));
}

void tsc_outline(GtkSnapshot *s, const GdkRGBA *c, double x, double y, double w, double h)
{
	GskRoundedRect r;
	const float widths[4] = { 1, 1, 1, 1 };
	const GdkRGBA colours[4] = { *c, *c, *c, *c };

	if (w <= 0 || h <= 0)
		return;
	gsk_rounded_rect_init_from_rect(&r, &GRAPHENE_RECT_INIT((float)x, (float)y, (float)w, (float)h), 0);
	gtk_snapshot_append_border(s, &r, widths, colours);
}

void tsc_text_size(PangoLayout *layout, const char *text, int *w, int *h)
{
	pango_layout_set_text(layout, text, -1);
	pango_layout_get_pixel_size(layout, w, h);
}

int tsc_text(GtkSnapshot *s, PangoLayout *layout, const char *text, double x, double y,
             double xalign, const GdkRGBA *c)
{
	int w, h;

	tsc_text_size(layout, text, &w, &h);
	gtk_snapshot_save(s);
	gtk_snapshot_translate(s, &GRAPHENE_POINT_INIT((float)round(x - xalign * w), (float)round(y)));
	gtk_snapshot_append_layout(s, layout, c);
	gtk_snapshot_restore(s);
	return w;
}
