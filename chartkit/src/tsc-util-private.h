/*
 * Drawing helpers shared by the chart kit's widgets: theme colours,
 * rectangles and text in logical pixels.
 */
#pragma once

#include <tilescope/tsc-theme.h>

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Whether the theme's colours of `widget` differ from `fg` and `accent`,
 * the ones it last drew with. Focus and hover change the CSS state too:
 * a widget's css_changed rebuilds its drawing only when this says so (or
 * when GTK gives it no change to inspect). */
gboolean tsc_theme_changed(GtkWidget *widget, const GdkRGBA *fg, const GdkRGBA *accent);
/* `c` with its alpha multiplied by `alpha`. */
GdkRGBA tsc_rgba_alpha(const GdkRGBA *c, double alpha);
/* A colour node; nothing when the rectangle is empty. */
void tsc_rect(GtkSnapshot *s, const GdkRGBA *c, double x, double y, double w, double h);
/* A 1 px outline of the rectangle. */
void tsc_outline(GtkSnapshot *s, const GdkRGBA *c, double x, double y, double w, double h);
/* Draws `text` with its top at y and its x anchor at `x`: xalign 0 puts
 * the left edge there, 0.5 the centre, 1 the right edge. Returns the
 * width drawn. */
int tsc_text(GtkSnapshot *s, PangoLayout *layout, const char *text, double x, double y,
             double xalign, const GdkRGBA *c);
/* The size of `text` in `layout`. */
void tsc_text_size(PangoLayout *layout, const char *text, int *w, int *h);

G_END_DECLS
