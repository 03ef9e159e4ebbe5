/*
 * The Flame Graph tab: the call tree of the session's window,
 * drawn as an icicle (roots on top, each path's children below it), each
 * frame as wide as its inclusive time's share of the window; frames
 * narrower than a pixel are left to their parent's width. Hover shows a
 * frame's name, count, inclusive and exclusive time; a click selects a
 * frame; the keyboard moves the selection (Left / Right: siblings, Up:
 * the caller, Down: the largest callee, Home: the first root, Escape:
 * none).
 *
 * Accessible: an image named "Flame Graph" whose description says the
 * window, its paths and total time, and the selected frame with its
 * figures.
 */
#pragma once

#include "sa-calltree.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SA_TYPE_FLAME_VIEW (sa_flame_view_get_type())
G_DECLARE_FINAL_TYPE(SaFlameView, sa_flame_view, SA, FLAME_VIEW, GtkWidget)

GtkWidget *sa_flame_view_new(void);

G_END_DECLS
