/*
 * The Liveness view: the report's not-always-live bytes at every liveness
 * step (optionally stacked on the always-live bytes), for all tiles, one
 * IPU or the selected tiles; the peak step marked and named; the
 * variables live at the clicked steps (up to four side by side) with the
 * step's call stack; the always-live variables; and the lifetime of the
 * variable selected in the table drawn over the chart.
 */
#pragma once

#include "ga-view.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_LIVENESS_VIEW (ga_liveness_view_get_type())
G_DECLARE_FINAL_TYPE(GaLivenessView, ga_liveness_view, GA, LIVENESS_VIEW, GaView)

GtkWidget *ga_liveness_view_new(GaSession *session);

G_END_DECLS
