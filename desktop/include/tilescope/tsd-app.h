/*
 * What both desktop apps' GtkApplication does, once: TsdApplication, the
 * base class of GaApplication and SaApplication, gives an app its command
 * line from its option table (tsd-cmdline.h: an unknown option refused
 * with status 2, --version answered, both before any display is opened)
 * and at startup the app.quit, app.about and app.dark (a stateful toggle
 * of the dark style that starts from the desktop's or GTK_THEME's
 * preference, or the remembered one: tsd-settings.h) actions, the default
 * window icon, the app's CSS from its gresource and the accelerators of
 * its key table (tsd-keys.h). What is left to an app is its own: its
 * windows (activate, open) and its own options.
 */
#pragma once

#include <gtk/gtk.h>

#include <tilescope/tsd-cmdline.h>
#include <tilescope/tsd-keys.h>

G_BEGIN_DECLS

/* What an app is (static strings and tables, kept by pointer). Its
 * application id ("org.tilescope.GraphAnalyser") is also its icon's name,
 * its GSettings schema's id and its resources' prefix (its style sheet is
 * /org/tilescope/GraphAnalyser/style.css); its command's name is its
 * option table's TS_COMMAND, its version the suite's (TSD_VERSION). */
typedef struct TsdAppInfo {
	const char *name;      /* "Graph Analyser", the About dialog's */
	const char *comments;  /* one sentence: what the app shows */
	const TsdKey *(*keys)(size_t *n);  /* its key table (ga_keys) */
	const TsdCmdlineLine *cmdline;     /* its option table's rows */
	size_t n_cmdline;
	void (*register_resources)(void);  /* its gresource's (once per process) */
} TsdAppInfo;

/* Startup's actions, icon and style sheet of `info` (TsdApplication's
 * startup calls it after chaining up). `info` must outlive the
 * application (a static). */
void tsd_app_install(GtkApplication *app, const TsdAppInfo *info);

/* The command's name from `info`'s option table ("tilescope-graph-analyser"). */
const char *tsd_app_info_get_prog(const TsdAppInfo *info);

#define TSD_TYPE_APPLICATION (tsd_application_get_type())
G_DECLARE_DERIVABLE_TYPE(TsdApplication, tsd_application, TSD, APPLICATION, GtkApplication)

struct _TsdApplicationClass {
	GtkApplicationClass parent_class;
	/* Set by the app's class_init. */
	const TsdAppInfo *info;
	/* Registered once (the app's resources), by the base class. */
	gboolean resources_registered;
	/* The app's own checks of the raw command line, after unknown options
	 * were refused and before GApplication parses it (NULL: none): TRUE
	 * stops with *exit_status, having said why on stderr. */
	gboolean (*check_arguments)(TsdApplication *self, char **argv, int *exit_status);
};

/* Whether `widget` is drawn in a dark style: its text colour is light
 * (whatever made it so: app.dark, GTK_THEME, the desktop). For custom
 * drawing that picks its own palette. */
gboolean tsd_widget_is_dark(GtkWidget *widget);

G_END_DECLS
