/*
 * What both desktop apps remember between launches, through GSettings
 * (schemas org.tilescope.GraphAnalyser and org.tilescope.SystemAnalyser,
 * desktop/schemas/): the window's size, the Dark Style switch, a paned's
 * position, a notebook's tab, column views' columns. Each helper restores
 * the remembered state once and writes every change the user makes
 * afterwards, so nothing is lost when the app is killed.
 *
 * A schema that is not installed (a binary run by hand outside the build
 * tree and the install) is no error: tsd_settings_new() answers NULL, every
 * helper takes NULL as "remember nothing", and the app starts with its
 * defaults. Tests run with GSETTINGS_BACKEND=memory (or keyfile in a
 * temporary XDG_CONFIG_HOME) so nothing reaches the user's dconf.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The settings of `schema_id` from the installed schemas, else the build
 * tree's, else NULL (the caller owns the answer). */
GSettings *tsd_settings_new(const char *schema_id);

/* Once, after tsd_app_install(): app.dark starts from "dark-style" once
 * the user has used the switch (the desktop's preference until then) and
 * is written back on each toggle; pending writes are flushed at shutdown.
 * NULL `settings` does nothing. */
void tsd_settings_install(GtkApplication *app, GSettings *settings);

/* Before the window is shown: its default size from "window-width" and
 * "window-height", maximized from "window-maximized"; later resizes
 * (while not maximized) and (un)maximizing are written back. */
void tsd_settings_remember_window(GtkWindow *window, GSettings *settings);

/* `paned`'s position from the int `key` when it is above 0, and each
 * position the user (or tsd_settings_set_paned_position()) gives it
 * written back. */
void tsd_settings_remember_paned(GtkPaned *paned, GSettings *settings, const char *key);
/* A position chosen by the app, not the user: not remembered. */
void tsd_settings_set_paned_position(GtkPaned *paned, int position);
/* Whether `settings` (NULL-safe) has `key`: a schema installed by an
 * older version may lack it. Every helper here checks. */
gboolean tsd_settings_has_key(GSettings *settings, const char *key);
/* Whether `key` holds a value the user chose (not the schema's default). */
gboolean tsd_settings_has_user_value(GSettings *settings, const char *key);

/* `notebook`'s page by its tab's title from the string `key`, and each
 * page switched to written back. */
void tsd_settings_remember_notebook(GtkNotebook *notebook, GSettings *settings, const char *key);

/* Column views' columns shown or hidden: the a{sb} `key` maps a column's
 * title to its visibility where it differs from the column's visibility
 * when this is called (its default). `columns` holds `n` columns. */
void tsd_settings_remember_columns(GtkColumnViewColumn *const *columns, size_t n,
                                   GSettings *settings, const char *key);

G_END_DECLS
