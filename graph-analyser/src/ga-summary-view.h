/*
 * The Summary view: every figure `tilescope summary` shows (target,
 * graph, memory of all IPUs and of each IPU, liveness, execution, cycles
 * by vertex type), the engine options in force and the report's
 * metadata, in collapsible sections. Each figure's value label has the
 * key path of `tilescope summary --json` as accessible name.
 */
#pragma once

#include "ga-view.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_SUMMARY_VIEW (ga_summary_view_get_type())
G_DECLARE_FINAL_TYPE(GaSummaryView, ga_summary_view, GA, SUMMARY_VIEW, GaView)

/* A view following `session`'s document. */
GtkWidget *ga_summary_view_new(GaSession *session);

G_END_DECLS
