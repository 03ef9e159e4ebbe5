/*
 * The System Analyser's application (sa-application.h). Each launch is
 * its own process (NON_UNIQUE), as the Graph Analyser's: a trace on the
 * command line must not be handed to a first instance that may be busy
 * loading. Every file given goes onto one time axis (tsr_trace_open takes
 * them all).
 */
#include "sa-application.h"

#include "sa-window.h"
#include "sa-resources.h"

#include <stdio.h>

struct _SaApplication {
	GtkApplication parent_instance;
};

G_DEFINE_FINAL_TYPE(SaApplication, sa_application, GTK_TYPE_APPLICATION)

static void sa_application_activate(GApplication *app)
{
	gtk_window_present(GTK_WINDOW(sa_window_new(GTK_APPLICATION(app))));
}

static void sa_application_open(GApplication *app, GFile **files, int n_files, const char *hint)
{
	SaWindow *win = sa_window_new(GTK_APPLICATION(app));

	(void)hint;
	if (n_files > 0)
		sa_window_open(win, files, (guint)n_files);
	gtk_window_present(GTK_WINDOW(win));
}

/* --version: answered before any display is opened. */
static int sa_application_handle_local_options(GApplication *app, GVariantDict *options)
{
	(void)app;
	if (g_variant_dict_contains(options, "version")) {
		printf("tilescope-system-analyser %s\n", SA_VERSION);
		return 0;
	}
	return -1;
}

static void quit_action(GSimpleAction *action, GVariant *param, gpointer data)
{
	(void)action;
	(void)param;
	g_application_quit(G_APPLICATION(data));
}

static void about_action(GSimpleAction *action, GVariant *param, gpointer data)
{
	GtkWindow *parent = gtk_application_get_active_window(GTK_APPLICATION(data));

	(void)action;
	(void)param;
	gtk_show_about_dialog(parent, "program-name", "System Analyser", "version", SA_VERSION,
	                      "comments",
	                      "Where a job's host time goes, from the .pvti traces that "
	                      "PVTI_OPTIONS writes.",
	                      "logo-icon-name", "org.tilescope.SystemAnalyser", "license-type",
	                      GTK_LICENSE_MIT_X11, NULL);
}

/* app.dark: a stateful toggle of the dark style. */
static void dark_change_state(GSimpleAction *action, GVariant *value, gpointer data)
{
	(void)data;
	g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme",
	             g_variant_get_boolean(value), NULL);
	g_simple_action_set_state(action, value);
}

static void sa_application_startup(GApplication *app)
{
	static const GActionEntry entries[] = {
		{"quit", quit_action, NULL, NULL, NULL, {0}},
		{"about", about_action, NULL, NULL, NULL, {0}},
		{"dark", NULL, NULL, "false", dark_change_state, {0}},
	};
	static const char *const quit_accels[] = {"<Control>q", NULL};
	static const char *const dark_accels[] = {"<Control><Shift>d", NULL};
	gboolean dark = FALSE;
	GtkCssProvider *css;

	G_APPLICATION_CLASS(sa_application_parent_class)->startup(app);
	g_action_map_add_action_entries(G_ACTION_MAP(app), entries, G_N_ELEMENTS(entries), app);
	g_object_get(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", &dark, NULL);
	g_action_change_state(g_action_map_lookup_action(G_ACTION_MAP(app), "dark"),
	                      g_variant_new_boolean(dark));
	gtk_application_set_accels_for_action(GTK_APPLICATION(app), "app.quit", quit_accels);
	gtk_application_set_accels_for_action(GTK_APPLICATION(app), "app.dark", dark_accels);
	gtk_window_set_default_icon_name("org.tilescope.SystemAnalyser");
	css = gtk_css_provider_new();
	gtk_css_provider_load_from_resource(css, "/org/tilescope/SystemAnalyser/style.css");
	gtk_style_context_add_provider_for_display(gdk_display_get_default(), GTK_STYLE_PROVIDER(css),
	                                           GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
	g_object_unref(css);
}

static void sa_application_class_init(SaApplicationClass *klass)
{
	GApplicationClass *app_class = G_APPLICATION_CLASS(klass);

	app_class->activate = sa_application_activate;
	app_class->open = sa_application_open;
	app_class->startup = sa_application_startup;
	app_class->handle_local_options = sa_application_handle_local_options;
}

static void sa_application_init(SaApplication *self)
{
	static gsize registered;
	static const GOptionEntry options[] = {
		{"version", 0, 0, G_OPTION_ARG_NONE, NULL, "Print the version and exit", NULL},
		{NULL, 0, 0, 0, NULL, NULL, NULL},
	};

	/* The window's template and the styles (registered here, once: a
	 * static library would drop a constructor that nothing calls). */
	if (g_once_init_enter(&registered)) {
		sa_register_resource();
		g_once_init_leave(&registered, 1);
	}
	g_application_add_main_option_entries(G_APPLICATION(self), options);
	g_application_set_option_context_parameter_string(G_APPLICATION(self), "[FILE|DIR ...]");
	g_application_set_option_context_summary(
	    G_APPLICATION(self),
	    "Shows .pvti system traces (those PVTI_OPTIONS writes) on one timeline: every\n"
	    "FILE, and every *.pvti file in each DIR, onto one time axis, with the\n"
	    "statistics of a selected window.");
}

SaApplication *sa_application_new(void)
{
	return g_object_new(SA_TYPE_APPLICATION, "application-id", "org.tilescope.SystemAnalyser",
	                    "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE, NULL);
}
