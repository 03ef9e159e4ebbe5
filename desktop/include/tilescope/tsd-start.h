/*
 * The start page's lists both desktop apps show under their Open button:
 * the files the app opened lately (GtkRecentManager, newest first, kept
 * current while the app runs) and the samples shipped in sample-reports/
 * (the source tree's when run from a build, else the installed copy, or
 * $TILESCOPE_SAMPLE_REPORTS). Each row opens its file when activated: the
 * app connects GtkListBox::row-activated and asks tsd_start_row_get_file().
 * A list with no rows is hidden, and so is its heading.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A row titled `title` (a report's directory, a trace's name) over
 * `subtitle` (where it is), opening `file`. */
GtkWidget *tsd_start_row_new(GFile *file, const char *title, const char *subtitle);
/* The file of a row made by tsd_start_row_new (borrowed), or NULL. */
GFile *tsd_start_row_get_file(GtkListBoxRow *row);

/* Fills `list` with up to `max` recent files whose MIME type is one of
 * `mime_types` (NULL-terminated, static) and, when `app_name` is not
 * NULL, that the application of that name registered; refilled whenever
 * the recent files change. Files gone since are left out. */
void tsd_start_list_recent(GtkListBox *list, GtkWidget *heading,
                           const char *const *mime_types, const char *app_name, int max);

/* Orders two GtkRecentInfo* (a GPtrArray's elements) newest first, by
 * when they were last modified: what the start page and a recent-files
 * menu sort by. */
int tsd_recent_newest_first(gconstpointer pa, gconstpointer pb);

/* Fills `list` with one row per directory of the samples directory, in
 * name order, titled with its name: `pick` answers what the row opens
 * (the directory itself, a file in it; the caller owns the answer) or
 * NULL to leave that directory out. */
typedef GFile *(*TsdSamplePick)(GFile *dir);
void tsd_start_list_samples(GtkListBox *list, GtkWidget *heading, TsdSamplePick pick);

G_END_DECLS
