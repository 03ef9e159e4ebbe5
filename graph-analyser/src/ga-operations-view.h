/*
 * The Operations view: every debug context of the report (the operations
 * poplin, popops, popnn ... and the user opened) as a table of what it
 * made and what it cost in a run (totals with its descendants'), sortable
 * by any column, with a column chooser, a name filter, a choice of layer
 * and of run; beside the table, the selected operation's figures, its
 * chain of enclosing debug contexts, and the compute sets and programs it
 * made itself.
 */
#pragma once

#include "ga-view.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_OPERATIONS_VIEW (ga_operations_view_get_type())
G_DECLARE_FINAL_TYPE(GaOperationsView, ga_operations_view, GA, OPERATIONS_VIEW, GaView)

/* A view following `session`'s document. */
GtkWidget *ga_operations_view_new(GaSession *session);

G_END_DECLS
