/*
 * The Call Tree tab: the call tree of the window the timeline says (a
 * marked range, a selected span's extent, or the whole trace), as an
 * expandable tree list: per call path, the name, channel, count,
 * inclusive and exclusive time and the inclusive share of the window,
 * children by inclusive time, as `tilescope trace --call-tree --from --to
 * --json` lists them. The column view's accessible name is "Call Tree";
 * its description (and the header) says the window, its spans and paths.
 */
#pragma once

#include "sa-calltree.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SA_TYPE_CALL_TREE_VIEW (sa_call_tree_view_get_type())
G_DECLARE_FINAL_TYPE(SaCallTreeView, sa_call_tree_view, SA, CALL_TREE_VIEW, GtkWidget)

GtkWidget *sa_call_tree_view_new(void);
/* Shows `ct` (a reference is taken) of `doc`'s trace; NULL: empty. */
void sa_call_tree_view_set_tree(SaCallTreeView *self, SaDocument *doc, sa_call_tree *ct);
/* Says the tree is being computed, or shows a failure. */
void sa_call_tree_view_set_busy(SaCallTreeView *self, gboolean busy);
void sa_call_tree_view_set_message(SaCallTreeView *self, const char *message);

G_END_DECLS
