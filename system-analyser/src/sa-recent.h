/*
 * Recent files, for the System Analyser's window: every file or directory
 * of a document that loaded goes to GtkRecentManager (recently-used.xbel,
 * shared with the desktop, under this application's name), and the main
 * menu's "Open Recent" submenu lists the last ten the System Analyser
 * opened, newest first (keyboard: F10 or the menu button, then arrows).
 * Choosing one opens it with sa_window_open(); one that no longer exists
 * is taken off the list and the window says so on its error page
 * (reportlib's one line, "…: no such file").
 */
#pragma once

#include "sa-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct _SaRecent SaRecent;
struct _SaWindow;

/* Fills `menu` (the "Open Recent" submenu) and installs recent.open (a
 * URI parameter) on `win`, which must outlive the answer. */
SaRecent *sa_recent_new(struct _SaWindow *win, GMenu *menu);
/* NULL-safe. */
void sa_recent_free(SaRecent *self);
/* Records the paths of `doc` (a load succeeded). */
void sa_recent_add_document(SaDocument *doc);

G_END_DECLS
