/*
 * The application-wide actions and style both desktop apps install at
 * startup (tsd-app.h).
 */
#include "tilescope/tsd-app.h"

static void quit_action(GSimpleAction *action, GVariant *param, gpointer data)
{
	(void)action;
	(void)param;
	g_application_quit(G_APPLICATION(data));
}

static void about_action(GSimpleAction *action, GVariant *param, gpointer data)
{
	GtkWindow *parent = gtk_application_get_active_window(GTK_APPLICATION(data));
	const TsdAppInfo *info = g_object_get_data(G_OBJECT(data), "tsd-app-info");

	(void)action;
	(void)param;
	gtk_show_about_dialog(parent, "program-name", info->name, "version", info->version,
	                      "comments", info->comments, "logo-icon-name", info->icon,
	                      "license-type", GTK_LICENSE_MIT_X11, NULL);
}

/* app.dark: a stateful toggle of the dark style. */
static void dark_change_state(GSimpleAction *action, GVariant *value, gpointer data)
{
	(void)data;
	g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme",
	             g_variant_get_boolean(value), NULL);
	g_simple_action_set_state(action, value);
}

void tsd_app_install(GtkApplication *app, const TsdAppInfo *info)
{
	static const GActionEntry entries[] = {
		{"quit", quit_action, NULL, NULL, NULL, {0}},
		{"about", about_action, NULL, NULL, NULL, {0}},
		{"dark", NULL, NULL, "false", dark_change_state, {0}},
	};
	gboolean dark = FALSE;
	GtkCssProvider *css;

	g_object_set_data(G_OBJECT(app), "tsd-app-info", (gpointer)info);
	g_action_map_add_action_entries(G_ACTION_MAP(app), entries, G_N_ELEMENTS(entries), app);
	/* The toggle starts from the desktop's (or GTK_THEME's) preference. */
	g_object_get(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", &dark, NULL);
	g_action_change_state(g_action_map_lookup_action(G_ACTION_MAP(app), "dark"),
	                      g_variant_new_boolean(dark));
	gtk_window_set_default_icon_name(info->icon);
	css = gtk_css_provider_new();
	gtk_css_provider_load_from_resource(css, info->css);
	gtk_style_context_add_provider_for_display(gdk_display_get_default(), GTK_STYLE_PROVIDER(css),
	                                           GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
	g_object_unref(css);
}

gboolean tsd_widget_is_dark(GtkWidget *widget)
{
	GdkRGBA fg;

	gtk_style_context_get_color(gtk_widget_get_style_context(widget), &fg);
	return 0.3 * fg.red + 0.59 * fg.green + 0.11 * fg.blue > 0.5;
}
