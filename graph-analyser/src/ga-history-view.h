/*
 * The History view: the session's history store (ga-history.h) as a
 * searchable list of its metrics (the latest value, how many change
 * points), the chosen metric's chart over the runs in commit order with
 * its change points marked (a line at each, a band over a noisy one's
 * range) and listed, branch and label filters, and the details of the
 * run under the pointer or selected. Enter on the chart (or a double
 * click, or Open Report) opens the run's report in the window; Compare
 * with Previous opens it compared with the report of the run before it.
 */
#pragma once

#include "ga-view.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_HISTORY_VIEW (ga_history_view_get_type())
G_DECLARE_FINAL_TYPE(GaHistoryView, ga_history_view, GA, HISTORY_VIEW, GaView)

GtkWidget *ga_history_view_new(GaSession *session);

G_END_DECLS
