/*
 * The System Analyser's window: a start page, the loading page (progress
 * and Cancel), an error page with reportlib's one line, and the trace:
 * the search bar, the timeline, and below it the details (the
 * Statistics, Call Tree, Flame Graph and Span tabs).
 */
#pragma once

#include "sa-session.h"
#include "sa-timeline.h"

#include <tilescope/tsd-window.h>

G_BEGIN_DECLS

#define SA_TYPE_WINDOW (sa_window_get_type())
G_DECLARE_FINAL_TYPE(SaWindow, sa_window, SA, WINDOW, TsdWindow)

SaWindow *sa_window_new(GtkApplication *app);
/* Opens files[0..n) (.pvti files or directories) onto one time axis,
 * replacing what the window shows; loads in a worker. */
void sa_window_open(SaWindow *self, GFile *const *files, guint n_files);
/* What the window's views show and bind to (borrowed). Property
 * "session". */
SaSession *sa_window_get_session(SaWindow *self);

/* The document shown, or NULL (sa-compare.h). */
SaDocument *sa_window_get_document(SaWindow *self);
/* Compares the document the window is loading (A) with `b`, loaded now;
 * after sa_window_open() of A. */
void sa_window_compare_with(SaWindow *self, GFile *b);

G_END_DECLS
