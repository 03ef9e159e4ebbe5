/*
 * The bar above the timeline: the visible width as an entry that takes a
 * typed zoom level ("10 ms", "250us", "1.5 s"), Zoom to Range (Z), the
 * ruler's Wall-Clock Time switch (T), and Show Hidden Rows (Shift+H),
 * each acting on one SaTimeline.
 */
#pragma once

#include "sa-timeline.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SA_TYPE_ZOOM_BAR (sa_zoom_bar_get_type())
G_DECLARE_FINAL_TYPE(SaZoomBar, sa_zoom_bar, SA, ZOOM_BAR, GtkWidget)

/* The timeline the bar shows and acts on (once). */
void sa_zoom_bar_set_timeline(SaZoomBar *self, SaTimeline *timeline);

/* A typed width: a positive number and a unit (s, ms, us or µs, ns; any
 * case, spaces allowed), as whole nanoseconds in *ns (at least 1). FALSE,
 * *ns untouched, for anything else. */
gboolean sa_zoom_parse_width(const char *text, int64_t *ns);

G_END_DECLS
