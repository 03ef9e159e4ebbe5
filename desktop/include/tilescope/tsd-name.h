/*
 * Names read from a report or a trace, as both desktop apps show them.
 *
 * A file may hold names of up to 16 KiB (TSF_MAX_NAME_BYTES). Given to a
 * label, a table cell, a chart's text or an accessible name whole, such a
 * name makes GTK shape and measure a Pango layout of all of it on the main
 * thread, again at every measure, for every row: seconds per view, minutes
 * for a report of long names. So a name is cut for display: its first and
 * last characters are kept around a middle ellipsis ("…"), at most
 * TSD_NAME_MAX_CHARS characters in all, cut between UTF-8 characters. The
 * whole name goes only where one name is shown at a time, at the user's
 * request: a tooltip, a details pane, the clipboard (tsd_name_clean).
 *
 * Cutting reads at most TSD_NAME_MAX_CHARS characters of each end of the
 * name (and finds its end with strlen): its cost does not grow with the
 * name's length.
 *
 * Both cleaned forms are valid UTF-8 (invalid bytes become U+FFFD) with
 * control characters written as '?', as the text summary prints them.
 * NULL gives "?". The caller frees the result with g_free.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The most characters a cut name shows (the ellipsis included). */
#define TSD_NAME_MAX_CHARS 160

/* `name` fit for a label: whole when it has at most TSD_NAME_MAX_CHARS
 * characters, else its start, "…" and its end in that many. */
char *tsd_name_cut(const char *name);
/* The same for at most `max_chars` characters (at least 3: the start, the
 * ellipsis and the end; a smaller value counts as 3). */
char *tsd_name_cut_to(const char *name, gsize max_chars);
/* The whole of `name`, cleaned: for a tooltip, a details pane, a copy. */
char *tsd_name_clean(const char *name);
/* Whether tsd_name_cut would cut `name` (FALSE for NULL). */
gboolean tsd_name_is_cut(const char *name);

/* Sets `widget`'s tooltip to the whole of `name` when the name is cut
 * for display, and removes the tooltip otherwise: what a label or a cell
 * showing tsd_name_cut(name) needs so that the name can still be read. */
void tsd_widget_set_name_tooltip(GtkWidget *widget, const char *name);
/* `label` shows tsd_name_cut(name), its tooltip the whole name when cut. */
void tsd_label_set_name(GtkLabel *label, const char *name);

G_END_DECLS
