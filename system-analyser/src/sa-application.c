/*
 * The System Analyser's application (sa-application.h), on TsdApplication
 * (tsd-app.h: its own process per launch, the command line, startup).
 * Every file given goes onto one time axis (tsr_trace_open takes
 * them all). `--compare A B` shows A and compares it with B in the
 * Compare tab (sa-compare.h).
 */
#include "sa-application.h"

#include "sa-keys.h"
#include "sa-window.h"
#include "sa-resources.h"

#include <stdio.h>
#include <string.h>

struct _SaApplication {
	TsdApplication parent_instance;
	gboolean compare;            /* --compare: the two files are A and B */
};

G_DEFINE_FINAL_TYPE(SaApplication, sa_application, TSD_TYPE_APPLICATION)

static void sa_application_activate(GApplication *app)
{
	gtk_window_present(GTK_WINDOW(sa_window_new(GTK_APPLICATION(app))));
}

static void sa_application_open(GApplication *app, GFile **files, int n_files, const char *hint)
{
	SaWindow *win = sa_window_new(GTK_APPLICATION(app));

	if (SA_APPLICATION(app)->compare && n_files == 2) {
		sa_window_open(win, files, 1);
		sa_window_compare_with(win, files[1]);
	} else if (n_files > 0) {
		sa_window_open(win, files, (guint)n_files);
	}
	gtk_window_present(GTK_WINDOW(win));
}

/* The command line: the rows of sa-options.def (tsd-cmdline.h). */
static const TsdCmdlineLine sa_cmdline[] = {
#include <tilescope/tsd-cmdline-rows.h>
#include "sa-options.def"
};

/* --compare, which takes exactly two traces: counted here, before
 * GApplication parses the line (handle_local_options does not see the
 * files), so a wrong count is one line and status 2 before any display
 * is opened. */
static gboolean sa_application_check_arguments(TsdApplication *app, char **argv,
                                               int *exit_status)
{
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
	SA_APPLICATION(app)->compare = compare;
	return FALSE;
}

static const TsdAppInfo sa_info = {
    .name = "System Analyser",
    .comments = "Where a job's host time goes, from the .pvti traces that "
                "PVTI_OPTIONS writes.",
    .keys = sa_keys,
    .cmdline = sa_cmdline,
    .n_cmdline = G_N_ELEMENTS(sa_cmdline),
    .register_resources = sa_register_resource,
};

static void sa_application_class_init(SaApplicationClass *klass)
{
	GApplicationClass *app_class = G_APPLICATION_CLASS(klass);

	TSD_APPLICATION_CLASS(klass)->info = &sa_info;
	TSD_APPLICATION_CLASS(klass)->check_arguments = sa_application_check_arguments;
	app_class->activate = sa_application_activate;
	app_class->open = sa_application_open;
}

static void sa_application_init(SaApplication *self)
{
}

SaApplication *sa_application_new(void)
{
	return g_object_new(SA_TYPE_APPLICATION, "application-id", SA_SETTINGS_ID, NULL);
}
