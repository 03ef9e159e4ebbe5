/*
 * The Call Tree tab: the call tree of the session's window (a marked
 * range, a selected span's extent, or the whole trace), as an expandable
 * tree list (an SaTableView): per call path, the name, channel, count,
 * inclusive and exclusive time and the inclusive share of the window,
 * children by inclusive time, as `tilescope trace --call-tree --from --to
 * --json` lists them. The column view's accessible name is "Call Tree";
 * its description (and the header) says the window, its spans and paths.
 * The tree shown is property "call-tree" (an sa_call_tree, NULL: none).
 */
#pragma once

#include "sa-calltree.h"
#include "sa-table-view.h"

G_BEGIN_DECLS

#define SA_TYPE_CALL_TREE_VIEW (sa_call_tree_view_get_type())
G_DECLARE_FINAL_TYPE(SaCallTreeView, sa_call_tree_view, SA, CALL_TREE_VIEW, SaTableView)

/* The tree shown (borrowed), or NULL. */
sa_call_tree *sa_call_tree_view_get_tree(SaCallTreeView *self);

G_END_DECLS
