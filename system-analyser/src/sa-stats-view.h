/*
 * The Statistics tab: per label (channel and name) of a window, count,
 * total, self, mean, median, min and max, as `tilescope trace --from --to
 * --json` prints them for that window, in a sortable GtkColumnView. The
 * column view's accessible name is "Statistics" and its description says
 * the window ("Whole trace: 42 spans, 21 labels"; "1.000000 ms – 2.000000
 * ms: ..."), which the header shows too.
 */
#pragma once

#include "sa-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SA_TYPE_STATS_VIEW (sa_stats_view_get_type())
G_DECLARE_FINAL_TYPE(SaStatsView, sa_stats_view, SA, STATS_VIEW, GtkWidget)

GtkWidget *sa_stats_view_new(void);
/* Shows `stats` (borrowed for the call) of `doc`'s trace; NULL: empty. */
void sa_stats_view_set_stats(SaStatsView *self, SaDocument *doc, const sa_stats *stats);
/* Says the statistics are being computed (`busy`) or shows a failure
 * (`message` non-NULL). */
void sa_stats_view_set_busy(SaStatsView *self, gboolean busy);
void sa_stats_view_set_message(SaStatsView *self, const char *message);

G_END_DECLS
