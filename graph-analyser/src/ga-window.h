/*
 * The Graph Analyser's window: the start page (open, recent and sample
 * reports), loading with progress and Cancel, the error page with
 * reportlib's one line, and the report's views in a sidebar. One report
 * per window, or two compared (report A and report B); its session (ga-session.h) is what the views share.
 */
#pragma once

#include "ga-session.h"

#include <tilescope/tsd-window.h>

G_BEGIN_DECLS

#define GA_TYPE_WINDOW (ga_window_get_type())
G_DECLARE_FINAL_TYPE(GaWindow, ga_window, GA, WINDOW, TsdWindow)

GaWindow *ga_window_new(GtkApplication *app);
/* Opens `file` (a profile.pop, an autoReport directory, or a history
 * store, ga-history.h) in this window, replacing what it shows once it
 * has loaded. */
void ga_window_open(GaWindow *self, GFile *file);
/* Compare mode: opens `a` (the base, report A) and `b` (report B) in
 * parallel workers with one progress and Cancel, then compares them in a
 * worker (tsr_compare_programs, as `tilescope diff A B`), and shows both in every
 * view. An error in either ends on the error page naming which one. */
void ga_window_compare(GaWindow *self, GFile *a, GFile *b);
/* Opens what was given (the command line, a drop, the chooser): two
 * reports compared, a history store (with a report beside it opened
 * after it), or one report. */
void ga_window_open_files(GaWindow *self, GFile *const *files, guint n);
GaSession *ga_window_get_session(GaWindow *self);
/* The view to show (its ga_views() name) when the next report loads;
 * NULL: the sidebar's current one. */
void ga_window_set_initial_view(GaWindow *self, const char *view);

G_END_DECLS
