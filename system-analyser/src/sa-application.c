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
#include <tilescope/tsd-cmdline.h>
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

/* The command line: the rows of sa-options.def (tsd-cmdline.h). */
static const TsdCmdlineLine sa_cmdline[] = {
#include <tilescope/tsd-cmdline-rows.h>
#include "sa-options.def"
};

/* --compare takes exactly two traces: counted here, before GApplication
 * parses the line (handle_local_options does not see the files), so a
 * wrong count is one line and status 2 before any display is opened. */
static gboolean sa_application_local_command_line(GApplication *app, char ***arguments,
                                                  int *exit_status)
{
	char **argv = *arguments;
	gboolean compare = FALSE, rest = FALSE;
	int files = 0;

	if (tsd_app_refuse_unknown_options(sa_cmdline, G_N_ELEMENTS(sa_cmdline), argv,
	                                   "tilescope-system-analyser", exit_status))
		return TRUE;

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

static void sa_application_init(SaApplication *self)
{
	static gsize registered;

	/* The window's template and the styles (registered here, once: a
	 * static library would drop a constructor that nothing calls). */
	if (g_once_init_enter(&registered)) {
		sa_register_resource();
		g_once_init_leave(&registered, 1);
	}
	tsd_app_add_options(G_APPLICATION(self), sa_cmdline, G_N_ELEMENTS(sa_cmdline));
}

SaApplication *sa_application_new(void)
{
	return g_object_new(SA_TYPE_APPLICATION, "application-id", SA_SETTINGS_ID,
	                    "flags", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE, NULL);
}
