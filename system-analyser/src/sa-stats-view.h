/*
 * The Statistics tab: per label (channel and name) of the session's
 * window, count, total, self, mean, median, min and max, as `tilescope
 * trace --from --to --json` prints them for that window, in a sortable
 * GtkColumnView (an SaTableView). The column view's accessible name is
 * "Statistics" and its description says the window ("Whole trace: 42
 * spans, 21 labels"; "Spans starting in 1.000000 ms – 2.000000 ms: ..."),
 * which the header shows too.
 */
#pragma once

#include "sa-table-view.h"

G_BEGIN_DECLS

#define SA_TYPE_STATS_VIEW (sa_stats_view_get_type())
G_DECLARE_FINAL_TYPE(SaStatsView, sa_stats_view, SA, STATS_VIEW, SaTableView)

G_END_DECLS
