/*
 * The Graph Analyser's application (ga-application.h), on TsdApplication
 * (tsd-app.h: its own process per launch, the command line, startup).
 * `tilescope-graph-analyser REPORT REPORT2`
 * compares REPORT2 (B) with REPORT (A, the base) in every view; files past
 * the second are ignored. A history store (ga-history.h) opens in the
 * History view, with a report given beside it. `--view NAME` picks the view shown once the
 * report loads; `--run N` opens the Execution Trace at run N (what the
 * System Analyser's "Open in Graph Analyser" asks for).
 */
#include "ga-application.h"

#include "ga-keys.h"
#include "ga-views.h"
#include "ga-window.h"
#include "ga-resources.h"

#include <tilescope/report.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct _GaApplication {
	TsdApplication parent_instance;
	char *view;                  /* --view: shown once the report loads, or NULL */
	gint64 run;                  /* --run: the run the Execution Trace shows, or -1 */
};

G_DEFINE_FINAL_TYPE(GaApplication, ga_application, TSD_TYPE_APPLICATION)

static void ga_application_activate(GApplication *app)
{
	if (GA_APPLICATION(app)->run >= 0)
		fprintf(stderr, "tilescope-graph-analyser: --run needs a REPORT (see --help)\n");
	gtk_window_present(GTK_WINDOW(ga_window_new(GTK_APPLICATION(app))));
}

/* --run: once the window's first report is in the session, selects the
 * run (the Execution Trace, shown by --view trace, follows the session).
 * A run past the report's says so on stderr and leaves the first shown. */
static void on_first_document(GObject *session, GParamSpec *pspec, gpointer data)
{
	gint64 run = GPOINTER_TO_SIZE(data) - 1;
	GaDocument *doc = ga_session_get_document(GA_SESSION(session));
	const tsr_run *runs;
	size_t n = 0;

	(void)pspec;
	if (!doc)
		return;
	g_signal_handlers_disconnect_by_func(session, on_first_document, data);
	if (tsr_report_get_runs(&runs, &n, ga_document_get_report(doc)) != TSR_OK || run >= (gint64)n)
		fprintf(stderr,
		        "tilescope-graph-analyser: --run %" G_GINT64_FORMAT ": the report has %zu run%s\n",
		        run, n, n == 1 ? "" : "s");
	else
		ga_session_set_step(GA_SESSION(session), run, -1);
}

static void ga_application_open(GApplication *app, GFile **files, int n_files, const char *hint)
{
	GaWindow *win = ga_window_new(GTK_APPLICATION(app));

	(void)hint;
	if (n_files > 0) {
		/* --view wins over the view remembered (ga-window.c). */
		if (GA_APPLICATION(app)->view)
			ga_window_set_initial_view(win, GA_APPLICATION(app)->view);
		if (GA_APPLICATION(app)->run >= 0)
			g_signal_connect(ga_window_get_session(win), "notify::document",
			                 G_CALLBACK(on_first_document),
			                 GSIZE_TO_POINTER((gsize)GA_APPLICATION(app)->run + 1));
		ga_window_open_files(win, files, (guint)MIN(n_files, 2));
	}
	gtk_window_present(GTK_WINDOW(win));
}

/* Whether `name` is a view's name. */
static gboolean is_view(const char *name)
{
	size_t n;
	const ga_view_info *views = ga_views(&n);

	for (size_t i = 0; i < n; i++)
		if (g_strcmp0(views[i].name, name) == 0)
			return TRUE;
	return FALSE;
}

/* The command line: the rows of ga-options.def (tsd-cmdline.h). */
static const TsdCmdlineLine ga_cmdline[] = {
#include <tilescope/tsd-cmdline-rows.h>
#include "ga-options.def"
};

/* A bad --view or --run: answered before any display is opened, as
 * --version is (TsdApplication). */
static int ga_application_handle_local_options(GApplication *app, GVariantDict *options)
{
	GaApplication *self = GA_APPLICATION(app);
	const char *view = NULL, *run = NULL;
	int status = G_APPLICATION_CLASS(ga_application_parent_class)
	                 ->handle_local_options(app, options);

	if (status >= 0)
		return status;
	if (g_variant_dict_lookup(options, "view", "&s", &view)) {
		if (!is_view(view)) {
			fprintf(stderr, "tilescope-graph-analyser: unknown view '%s' (see --help)\n", view);
			return 2;
		}
		g_free(self->view);
		self->view = g_strdup(view);
	}
	if (g_variant_dict_lookup(options, "run", "&s", &run)) {
		char *end = NULL;
		long long n;

		errno = 0;
		n = strtoll(run, &end, 10);
		if (!*run || *end || errno || n < 0 || n > G_MAXINT32) {
			fprintf(stderr, "tilescope-graph-analyser: --run wants a run number (0, 1, ...), "
			                "not '%s'\n", run);
			return 2;
		}
		if (view && g_strcmp0(view, "trace") != 0) {
			fprintf(stderr, "tilescope-graph-analyser: --run shows the Execution Trace; it "
			                "cannot go with --view %s\n", view);
			return 2;
		}
		self->run = n;
		g_free(self->view);
		self->view = g_strdup("trace");
	}
	return -1;
}

static void ga_application_finalize(GObject *object)
{
	g_free(GA_APPLICATION(object)->view);
	G_OBJECT_CLASS(ga_application_parent_class)->finalize(object);
}

static const TsdAppInfo ga_info = {
    .name = "Graph Analyser",
    .comments = "Where the memory and the cycles of an IPU program go, from the "
                "profile.pop that autoReport writes.",
    .keys = ga_keys,
    .cmdline = ga_cmdline,
    .n_cmdline = G_N_ELEMENTS(ga_cmdline),
    .register_resources = ga_register_resource,
};

static void ga_application_class_init(GaApplicationClass *klass)
{
	GApplicationClass *app_class = G_APPLICATION_CLASS(klass);

	TSD_APPLICATION_CLASS(klass)->info = &ga_info;
	G_OBJECT_CLASS(klass)->finalize = ga_application_finalize;
	app_class->activate = ga_application_activate;
	app_class->open = ga_application_open;
	app_class->handle_local_options = ga_application_handle_local_options;
}

static void ga_application_init(GaApplication *self)
{
	self->run = -1;
}

GaApplication *ga_application_new(void)
{
	return g_object_new(GA_TYPE_APPLICATION, "application-id", GA_SETTINGS_ID, NULL);
}
