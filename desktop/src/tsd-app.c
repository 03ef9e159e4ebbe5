/*
 * The application-wide actions and style both desktop apps install at
 * startup (tsd-app.h).
 */
#include "tilescope/tsd-app.h"
#include "tilescope/tsd-cmdline.h"
#include "tilescope/tsd-settings.h"

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
	gtk_show_about_dialog(parent, "program-name", info->name, "version", TSD_VERSION,
	                      "comments", info->comments, "logo-icon-name",
	                      g_application_get_application_id(G_APPLICATION(data)),
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
	const char *id = g_application_get_application_id(G_APPLICATION(app));
	g_autofree char *prefix = g_strdelimit(g_strdup(id), ".", '/');
	g_autofree char *css_path = g_strdup_printf("/%s/style.css", prefix);
	gboolean dark = FALSE;
	GtkCssProvider *css;

	g_object_set_data(G_OBJECT(app), "tsd-app-info", (gpointer)info);
	g_action_map_add_action_entries(G_ACTION_MAP(app), entries, G_N_ELEMENTS(entries), app);
	/* The toggle starts from the desktop's (or GTK_THEME's) preference. */
	g_object_get(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", &dark, NULL);
	g_action_change_state(g_action_map_lookup_action(G_ACTION_MAP(app), "dark"),
	                      g_variant_new_boolean(dark));
	gtk_window_set_default_icon_name(id);
	css = gtk_css_provider_new();
	gtk_css_provider_load_from_resource(css, css_path);
	gtk_style_context_add_provider_for_display(gdk_display_get_default(), GTK_STYLE_PROVIDER(css),
	                                           GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
	g_object_unref(css);
}

/* --- TsdApplication ------------------------------------------------------------- */

G_DEFINE_ABSTRACT_TYPE(TsdApplication, tsd_application, GTK_TYPE_APPLICATION)

const char *tsd_app_info_get_prog(const TsdAppInfo *info)
{
	for (size_t i = 0; i < info->n_cmdline; i++)
		if (info->cmdline[i].what == 'c')
			return info->cmdline[i].name;
	return g_get_prgname();
}

static const TsdAppInfo *info_of(gpointer app)
{
	return TSD_APPLICATION_GET_CLASS(app)->info;
}

/* The options of the app's table and its resources (after construction:
 * the subclass's class, and so its table, is known only then). Each
 * launch is its own process (NON_UNIQUE): a file on the command line must
 * not be handed to a first instance that may be busy loading. */
static void tsd_application_constructed(GObject *object)
{
	TsdApplicationClass *klass = TSD_APPLICATION_GET_CLASS(object);
	const TsdAppInfo *info = klass->info;

	G_OBJECT_CLASS(tsd_application_parent_class)->constructed(object);
	g_application_set_flags(G_APPLICATION(object),
	                        G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
	tsd_app_add_options(G_APPLICATION(object), info->cmdline, info->n_cmdline);
	/* Registered by the app, not by a constructor in its static library,
	 * which the linker would drop as nothing calls it. */
	if (!klass->resources_registered) {
		klass->resources_registered = TRUE;
		info->register_resources();
	}
}

/* An unknown option is status 2, as the EXIT STATUS says, not GLib's 1;
 * then the app's own checks. */
static gboolean tsd_application_local_command_line(GApplication *app, char ***arguments,
                                                   int *exit_status)
{
	const TsdAppInfo *info = info_of(app);
	TsdApplicationClass *klass = TSD_APPLICATION_GET_CLASS(app);

	if (tsd_app_refuse_unknown_options(info->cmdline, info->n_cmdline, *arguments,
	                                   tsd_app_info_get_prog(info), exit_status))
		return TRUE;
	if (klass->check_arguments &&
	    klass->check_arguments(TSD_APPLICATION(app), *arguments, exit_status))
		return TRUE;
	return G_APPLICATION_CLASS(tsd_application_parent_class)
	    ->local_command_line(app, arguments, exit_status);
}

/* --version: answered before any display is opened. An app that has
 * options of its own chains up first and goes on when this answers -1. */
static int tsd_application_handle_local_options(GApplication *app, GVariantDict *options)
{
	const TsdAppInfo *info = info_of(app);

	if (g_variant_dict_contains(options, "version")) {
		printf("%s %s\n", tsd_app_info_get_prog(info), TSD_VERSION);
		return 0;
	}
	return -1;
}

static void tsd_application_startup(GApplication *app)
{
	const TsdAppInfo *info = info_of(app);
	g_autoptr(GSettings) settings = NULL;
	const TsdKey *keys;
	size_t n_keys;

	G_APPLICATION_CLASS(tsd_application_parent_class)->startup(app);
	tsd_app_install(GTK_APPLICATION(app), info);
	settings = tsd_settings_new(g_application_get_application_id(app));
	tsd_settings_install(GTK_APPLICATION(app), settings);
	keys = info->keys(&n_keys);
	tsd_keys_install(GTK_APPLICATION(app), keys, n_keys);
}

static void tsd_application_class_init(TsdApplicationClass *klass)
{
	GApplicationClass *app_class = G_APPLICATION_CLASS(klass);

	G_OBJECT_CLASS(klass)->constructed = tsd_application_constructed;
	app_class->startup = tsd_application_startup;
	app_class->handle_local_options = tsd_application_handle_local_options;
	app_class->local_command_line = tsd_application_local_command_line;
}

static void tsd_application_init(TsdApplication *self)
{
	(void)self;
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
		} else if (c->what == 'o' && !g_str_equal(c->name, "help")) {
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
