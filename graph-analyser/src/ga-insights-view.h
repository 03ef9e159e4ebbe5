/*
 * The Insights view: whether the program fits (memory used against
 * available per IPU), every out-of-memory tile with its excess and top
 * categories, the fullest tiles, the histogram of tile memory, the
 * largest always-live variables, the steps with the worst tile balance,
 * and tips whose estimated saving is computed from the report. Clicking
 * a tile selects it in the session and shows the Memory view.
 */
#pragma once

#include "ga-view.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_INSIGHTS_VIEW (ga_insights_view_get_type())
G_DECLARE_FINAL_TYPE(GaInsightsView, ga_insights_view, GA, INSIGHTS_VIEW, GaView)

/* A view following `session`'s document. */
GtkWidget *ga_insights_view_new(GaSession *session);

G_END_DECLS
