/*
 * The theme's colours as the chart kit reads them, for the apps' own
 * drawing widgets to pick the same ones: GTK 4.8 has no
 * gtk_widget_get_color (4.10), so the foreground comes from the style
 * context and the accent from the theme's named colours.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The theme's foreground and accent (selection) colours of `widget`. */
void tsc_theme_colours(GtkWidget *widget, GdkRGBA *fg, GdkRGBA *accent);

G_END_DECLS
