/*
 * The Execution Trace view, flat: a run picker (the report's runs, the
 * last by default), the run's steps in lanes over simulated cycles
 * (ga-step-lanes.h), and below them the selected step's every field and
 * the totals by step type of a range marked with shift+drag.
 */
#pragma once

#include "ga-view.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_TRACE_VIEW (ga_trace_view_get_type())
G_DECLARE_FINAL_TYPE(GaTraceView, ga_trace_view, GA, TRACE_VIEW, GaView)

/* A view following `session`'s document. */
GtkWidget *ga_trace_view_new(GaSession *session);

G_END_DECLS
