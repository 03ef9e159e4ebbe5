/*
 * The System Analyser's application (sa-application.h). Each launch is
 * its own process (NON_UNIQUE), as the Graph Analyser's: a trace on the
 * command line must not be handed to a first instance that may be busy
 * loading. Every file given goes onto one time axis (tsr_trace_open takes
 * them all). `--compare A B` shows A and compares it with B in the
 * Compare tab (sa-compare.h).
 */
#include "sa-application.h"

#include "sa-keys.h"
#include "sa-window.h"
#include "sa-resources.h"

#include <tilescope/tsd-app.h>
#include <tilescope/tsd-settings.h>

#include <stdio.h>
#include <string.h>

struct _SaApplication {
	GtkApplication parent_instance;
	gboolean compare;            /* --compare: the two files are A and B */
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
	if (SA_APPLICATION(app)->compare && n_files == 2) {
		sa_window_open(win, files, 1);
		sa_window_compare_with(win, files[1]);
	} else if (n_files > 0) {
		sa_window_open(win, files, (guint)n_files);
	}
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
	SA_APPLICATION(app)->compare = g_variant_dict_contains(options, "compare");
	return -1;
}

/* --compare takes exactly two traces: counted here, before GApplication
 * parses the line (handle_local_options does not see the files), so a
 * wrong count is one line and status 2 before any display is opened. */
static gboolean sa_application_local_command_line(GApplication *app, char ***arguments,
                                                  int *exit_status)
{
	char **argv = *arguments;
	gboolean compare = FALSE, rest = FALSE;
	int files = 0;

	for (int i = 1; argv[i]; i++) {
		if (rest || argv[i][0] != '-' || argv[i][1] == '\0')
			files++;
		else if (strcmp(argv[i], "--") == 0)
			rest = TRUE;
		else if (strcmp(argv[i], "--compare") == 0)
			compare = TRUE;
	}
	if (compare && files != 2) {
		fprintf(stderr, "tilescope-system-analyser: --compare takes two traces, A and B "
		                "(%d given)\n", files);
		*exit_status = 2;
		return TRUE;
	}
	return G_APPLICATION_CLASS(sa_application_parent_class)
	    ->local_command_line(app, arguments, exit_status);
}

static void sa_application_startup(GApplication *app)
{
	static const TsdAppInfo info = {
	    .name = "System Analyser",
	    .version = SA_VERSION,
	    .comments = "Where a job's host time goes, from the .pvti traces that "
	                "PVTI_OPTIONS writes.",
	    .icon = "org.tilescope.SystemAnalyser",
	    .css = "/org/tilescope/SystemAnalyser/style.css",
	};

	size_t n_keys;
	const TsdKey *keys = sa_keys(&n_keys);

	G_APPLICATION_CLASS(sa_application_parent_class)->startup(app);
	tsd_app_install(GTK_APPLICATION(app), &info);
	{
		g_autoptr(GSettings) settings = tsd_settings_new(SA_SETTINGS_ID);

		tsd_settings_install(GTK_APPLICATION(app), settings);
	}
	tsd_keys_install(GTK_APPLICATION(app), keys, n_keys);
}

static void sa_application_class_init(SaApplicationClass *klass)
{
	GApplicationClass *app_class = G_APPLICATION_CLASS(klass);

	app_class->activate = sa_application_activate;
	app_class->open = sa_application_open;
	app_class->startup = sa_application_startup;
	app_class->handle_local_options = sa_application_handle_local_options;
	app_class->local_command_line = sa_application_local_command_line;
}

/* The command line, from sa-options.def (the one table that --help, the man
 * page and the shell completions are made from): each line of it as
 * one of these. */
typedef struct {
	char what;                   /* 'u' usage, 't' text, 'o' option */
	const char *section;         /* 't': "DESCRIPTION", "EXIT STATUS" ... */
	const char *name;            /* 'o': the long name */
	const char *kind;            /* 'o': "NONE" for a flag, else what its value is */
	const char *arg;             /* 'o': the value's name */
	const char *text;            /* the usage line, the text, the option's help */
} sa_cmdline_line;

static const sa_cmdline_line sa_cmdline[] = {
#define TS_COMMAND(name, summary)
#define TS_USAGE(line) {'u', NULL, NULL, NULL, NULL, line},
#define TS_TEXT(section, text) {'t', section, NULL, NULL, NULL, text},
#define TS_HELP(text)
#define TS_MAN(section, text)
#define TS_OPT(id, long_name, short_name, kind, arg, choices, help) \
	{'o', NULL, long_name, #kind, arg, help},
#define TS_ALIAS(id, long_name)
#include "sa-options.def"
#undef TS_COMMAND
#undef TS_USAGE
#undef TS_TEXT
#undef TS_HELP
#undef TS_MAN
#undef TS_OPT
#undef TS_ALIAS
};

/* Gives the app the options of sa_cmdline (all but --help, which is
 * GLib's), the operands of its usage line after "[OPTION...] ", the
 * DESCRIPTION text before the options and the rest after them. */
static void sa_application_add_options(GApplication *app)
{
	static GOptionEntry entries[G_N_ELEMENTS(sa_cmdline) + 1];
	g_autoptr(GString) summary = g_string_new(NULL);
	g_autoptr(GString) after = g_string_new(NULL);
	size_t n = 0;

	for (size_t i = 0; i < G_N_ELEMENTS(sa_cmdline); i++) {
		const sa_cmdline_line *c = &sa_cmdline[i];

		if (c->what == 'u') {
			const char *operands = strstr(c->text, "[OPTION...] ");
			g_application_set_option_context_parameter_string(app, operands ? operands + 12 : NULL);
		} else if (c->what == 't') {
			GString *to = g_str_equal(c->section, "DESCRIPTION") ? summary : after;
			g_string_append(to, c->text);
		} else if (!g_str_equal(c->name, "help")) {
			gboolean flag = g_str_equal(c->kind, "NONE");
			entries[n++] = (GOptionEntry){c->name, 0, 0, flag ? G_OPTION_ARG_NONE : G_OPTION_ARG_STRING,
			                              NULL, c->text, flag ? NULL : c->arg};
		}
	}
	entries[n] = (GOptionEntry){NULL, 0, 0, 0, NULL, NULL, NULL};
	g_application_add_main_option_entries(app, entries);
	/* GOptionContext adds its own line breaks around these. */
	g_strchomp(summary->str);
	g_strchomp(after->str);
	g_application_set_option_context_summary(app, summary->str);
	g_application_set_option_context_description(app, after->str);
}

static void sa_application_init(SaApplication *self)
{
	static gsize registered;

	/* The window's template and the styles (registered here, once: a
	 * static library would drop a constructor that nothing calls). */
	if (g_once_init_enter(&registered)) {
		sa_register_resource();
		g_once_init_leave(&registered, 1);
	}
	sa_application_add_options(G_APPLICATION(self));
}

SaApplication *sa_application_new(void)
{
	return g_object_new(SA_TYPE_APPLICATION, "application-id", SA_SETTINGS_ID,
	                    "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE, NULL);
}
