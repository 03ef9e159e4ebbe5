/*
 * The jumps between views (ga-navigation.h does Back and Forward): what
 * a variable, a liveness step, a program or an operation leads to, found
 * in the document, and GaJumpBar, the buttons a view puts beside what it
 * shows to make those jumps. A bar says so in words when there is
 * nowhere to go (a program that did not run in the run shown), rather
 * than doing nothing.
 */
#pragma once

#include "ga-session.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The tiles (of one replica) holding bytes of variable `variable`
 * (tsr_report_get_variables index): a new bitset, or NULL when there is
 * no such variable or its tiles cannot be read. */
GtkBitset *ga_jumps_variable_tiles(GaDocument *doc, gint64 variable);

/* What a bar's buttons act on. */
typedef enum {
	GA_JUMP_BAR_VARIABLE,       /* the session's variable: "Show Tiles in Memory" */
	GA_JUMP_BAR_LIVENESS_STEP,  /* a liveness step: "Show in Execution Trace" */
	GA_JUMP_BAR_PROGRAM,        /* a program: "Show Steps in Execution Trace" */
	GA_JUMP_BAR_OPERATION,      /* an operation: "Show Programs", "Show Steps" */
} GaJumpBarKind;

#define GA_TYPE_JUMP_BAR (ga_jump_bar_get_type())
G_DECLARE_FINAL_TYPE(GaJumpBar, ga_jump_bar, GA, JUMP_BAR, GtkBox)

/* A bar of `kind` over `session`'s document. A VARIABLE bar follows the
 * session's variable; the others act on the target set below. */
GtkWidget *ga_jump_bar_new(GaSession *session, GaJumpBarKind kind);
/* What the bar acts on: a liveness step, a program id or a debug context
 * id (-1: nothing; the buttons are insensitive), and for an operation
 * the run whose steps "Show Steps" looks in (-1: as for a program). */
void ga_jump_bar_set_target(GaJumpBar *self, gint64 target, gint64 run);
/* Makes the bar's first jump (a table row activated with Enter or a
 * double click); FALSE when it has nothing to act on. */
gboolean ga_jump_bar_activate(GaJumpBar *self);
/* A GtkColumnView's "activate" handler that makes the jump of the bar
 * given as its data: Enter or a double click on a row. */
void ga_jump_bar_activate_cb(GtkColumnView *view, guint position, gpointer bar);

G_END_DECLS
