/*
 * SaView: what every System Analyser view on the window's session
 * repeats, once (issue 28 item 1): the "session" property (sa-window.ui
 * binds each view's to the window's) and following it. A subclass says
 * in its class which of the session's state it shows (`watch`) and gets
 * one call of update per change of it, from an idle, so that a range
 * notifying both its ends, or a document with its view, is one update;
 * and once, at once, when the view gets its session.
 *
 * The table tabs build on it (sa-table-view.h); the overview, the search
 * bar and the Span tab are SaViews too.
 */
#pragma once

#include "sa-session.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* What of the session a view shows. */
typedef enum {
	SA_VIEW_WATCH_DOCUMENT = 1 << 0,  /* "document" */
	SA_VIEW_WATCH_WINDOW = 1 << 1,    /* "window-from", "window-to" */
	SA_VIEW_WATCH_SELECTION = 1 << 2, /* "selected-span" */
	SA_VIEW_WATCH_VIEW = 1 << 3,      /* "view-from", "view-to" */
} sa_view_watch;

#define SA_TYPE_VIEW (sa_view_get_type())
G_DECLARE_DERIVABLE_TYPE(SaView, sa_view, SA, VIEW, GtkWidget)

struct _SaViewClass {
	GtkWidgetClass parent_class;

	/* What of the session `update` follows (0: nothing). */
	sa_view_watch watch;
	/* Shows what the session now says (`session` NULL: the view has
	 * none any more). May be NULL. */
	void (*update)(SaView *self, SaSession *session);
};

/* The session (borrowed; NULL until set). Property "session". */
SaSession *sa_view_get_session(SaView *self);
void sa_view_set_session(SaView *self, SaSession *session);

G_END_DECLS
