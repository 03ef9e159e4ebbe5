/*
 * The application-wide actions and style both desktop apps install at
 * startup (tsd-app.h).
 */
#include "tilescope/tsd-app.h"
#include "tilescope/tsd-cmdline.h"

#include <stdio.h>
#include <string.h>

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

void tsd_app_add_options(GApplication *app, const TsdCmdlineLine *lines, size_t n)
{
	/* GApplication keeps the entries by pointer: one array per app. */
	GOptionEntry *entries = g_new0(GOptionEntry, n + 1);
	g_autoptr(GString) summary = g_string_new(NULL);
	g_autoptr(GString) after = g_string_new(NULL);
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const TsdCmdlineLine *c = &lines[i];

		if (c->what == 'u') {
			const char *operands = strstr(c->text, "[OPTION...] ");
			g_application_set_option_context_parameter_string(app, operands ? operands + 12 : NULL);
		} else if (c->what == 't') {
			GString *to = g_str_equal(c->section, "DESCRIPTION") ? summary : after;
			g_string_append(to, c->text);
		} else if (!g_str_equal(c->name, "help")) {
			gboolean flag = g_str_equal(c->kind, "NONE");
			entries[k++] = (GOptionEntry){c->name, 0, 0, flag ? G_OPTION_ARG_NONE : G_OPTION_ARG_STRING,
			                              NULL, c->text, flag ? NULL : c->arg};
		}
	}
	g_application_add_main_option_entries(app, entries);
	g_object_set_data_full(G_OBJECT(app), "tsd-option-entries", entries, g_free);
	/* GOptionContext adds its own line breaks around these. */
	g_strchomp(summary->str);
	g_strchomp(after->str);
	g_application_set_option_context_summary(app, summary->str);
	g_application_set_option_context_description(app, after->str);
}

gboolean tsd_app_refuse_unknown_options(const TsdCmdlineLine *lines, size_t n, char **argv,
                                        const char *prog, int *exit_status)
{
	static const char *const glib_own[] = {"help", "help-all", "help-gapplication",
	                                       "gapplication-service"};

	for (int i = 1; argv[i]; i++) {
		const char *a = argv[i];
		size_t len;
		gboolean known = FALSE;

		if (strcmp(a, "--") == 0)
			break;
		if (a[0] != '-' || a[1] == '\0' || strcmp(a, "-h") == 0)
			continue;
		if (a[1] == '-') {
			a += 2;
			len = strcspn(a, "=");
			for (size_t k = 0; k < n && !known; k++) {
				const TsdCmdlineLine *o = &lines[k];

				known = o->what == 'o' && strlen(o->name) == len &&
				        strncmp(o->name, a, len) == 0;
				if (!known || g_str_equal(o->kind, "NONE") || a[len] == '=')
					continue;
				if (!argv[i + 1]) {
					fprintf(stderr, "%s: option '--%s' needs a value (see --help)\n",
					        prog, o->name);
					*exit_status = 2;
					return TRUE;
				}
				i++; /* its value, whatever it looks like */
			}
			for (size_t k = 0; k < G_N_ELEMENTS(glib_own) && !known; k++)
				known = strlen(glib_own[k]) == len && strncmp(glib_own[k], a, len) == 0;
		}
		if (!known) {
			fprintf(stderr, "%s: unknown option '%.*s' (see --help)\n", prog,
			        (int)strcspn(argv[i], "="), argv[i]);
			*exit_status = 2;
			return TRUE;
		}
	}
	return FALSE;
}
