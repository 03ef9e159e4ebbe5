/*
 * What both desktop apps' GtkApplication does at startup, once: the
 * app.quit, app.about and app.dark (a stateful
 * toggle of the dark style that starts from the desktop's or GTK_THEME's
 * preference) actions, the default window icon, and the app's CSS from
 * its gresource. Their keys are in tsd-keys.h's common table.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The About dialog's words (static strings, kept by pointer). */
typedef struct TsdAppInfo {
	const char *name;      /* "Graph Analyser" */
	const char *version;
	const char *comments;  /* one sentence: what the app shows */
	const char *icon;      /* the icon name, also the windows' default */
	const char *css;       /* resource path of the app's style sheet */
} TsdAppInfo;

/* Call from the application's startup after chaining up. `info` must
 * outlive the application (a static). */
void tsd_app_install(GtkApplication *app, const TsdAppInfo *info);

/* Whether `widget` is drawn in a dark style: its text colour is light
 * (whatever made it so: app.dark, GTK_THEME, the desktop). For custom
 * drawing that picks its own palette. */
gboolean tsd_widget_is_dark(GtkWidget *widget);

G_END_DECLS
