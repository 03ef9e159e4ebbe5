/*
 * Moving between views, with Back and Forward. A jump names a view and
 * the session selections it sets (tiles, IPU, variable, program, run and
 * step); ga_navigation_jump() remembers where the user was (the visible
 * view and every one of those selections), applies the jump and shows
 * the view. Back and Forward restore what was remembered. Switching views
 * in the sidebar is not a jump and fills no history, but the history
 * remembers the view each entry was left from. Another document (a load,
 * a reload, a comparison) clears the history: its selections would name
 * another report's tiles and programs.
 *
 * One per window; views find it with ga_navigation_lookup() from any of
 * their widgets, so they need not know the window.
 */
#pragma once

#include "ga-session.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Which selections a jump sets (the others stay as they are). */
typedef enum {
	GA_JUMP_TILES = 1 << 0,
	GA_JUMP_IPU = 1 << 1,
	GA_JUMP_VARIABLE = 1 << 2,
	GA_JUMP_PROGRAM = 1 << 3,
	GA_JUMP_STEP = 1 << 4,
} GaJumpSets;

typedef struct ga_jump {
	const char *view;           /* the stack page to show: "memory", "trace" ... */
	guint sets;                 /* GaJumpSets: the fields below that apply */
	GtkBitset *tiles;           /* borrowed; the session takes a copy */
	int ipu;
	gint64 variable, program, run, step;
} ga_jump;
#define GA_JUMP_INIT {NULL, 0, NULL, -1, -1, -1, -1, -1}

#define GA_TYPE_NAVIGATION (ga_navigation_get_type())
G_DECLARE_FINAL_TYPE(GaNavigation, ga_navigation, GA, NAVIGATION, GObject)

/* The history of `session`'s window, whose views are the pages of
 * `views`. Attaches itself to `window` (ga_navigation_lookup). */
GaNavigation *ga_navigation_new(GtkWidget *window, GaSession *session, GtkStack *views);
/* The navigation of the window holding `widget`, or NULL (not in one). */
GaNavigation *ga_navigation_lookup(GtkWidget *widget);

/* Remembers where the user is, applies `jump` and shows its view. */
void ga_navigation_jump(GaNavigation *self, const ga_jump *jump);
/* The same from a widget of a view; FALSE when it is in no window. */
gboolean ga_navigation_jump_from(GtkWidget *widget, const ga_jump *jump);

/* Properties "can-go-back" and "can-go-forward". */
gboolean ga_navigation_can_go_back(GaNavigation *self);
gboolean ga_navigation_can_go_forward(GaNavigation *self);
void ga_navigation_go_back(GaNavigation *self);
void ga_navigation_go_forward(GaNavigation *self);
void ga_navigation_clear(GaNavigation *self);

G_END_DECLS
