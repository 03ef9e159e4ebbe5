/*
 * Across to the Graph Analyser (issue 16): a compile or run span of an
 * engine that wrote an autoReport carries the report's directory, the
 * engine's name and the run (tsr_trace_dup_span_report). For such a
 * selected span the window offers "Open in Graph Analyser" (a header bar
 * button and Alt+G, as its mnemonic; action win.open-in-graph-analyser,
 * enabled only then; Ctrl+G is the search's next hit), which launches
 * tilescope-graph-analyser on the report at that run's Execution Trace
 * (--run N).
 *
 * The Graph Analyser is $TILESCOPE_GRAPH_ANALYSER when set, else the one
 * beside this program (installed together), else the build tree's, else
 * the first on PATH.
 */
#pragma once

#include "sa-session.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Enables `window`'s action when the selected span of `session` has a
 * report, and says in `button`'s tooltip which (the session's document
 * or selection changed). */
void sa_graph_link_update(GtkWidget *window, GtkWidget *button, SaSession *session);
/* The action: launches the Graph Analyser on the selected span's report,
 * or says in a dialog over `window` why it cannot. */
void sa_graph_link_open(GtkWidget *window, GtkWidget *button, SaSession *session);

G_END_DECLS
