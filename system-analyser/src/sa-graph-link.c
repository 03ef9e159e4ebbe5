/*
 * "Open in Graph Analyser" (sa-graph-link.h). The action is the window's
 * (sa-window.c) and its state follows the session's selection
 * ("selected-span", and "document"); the link is read once per change
 * from reportlib (an indexed lookup of one row). The Graph Analyser runs
 * as a process of its own, so a slow report load never blocks this
 * window, and a launch that fails says why in a dialog.
 */
#include "sa-graph-link.h"

#include <stdlib.h>

/* The link of the selected span of `session`: TRUE with *dir (the report's
 * directory), *engine and *run (-1: a compile span) set, both strings
 * g_free'd by the caller; FALSE when nothing with a report is selected. */
static gboolean lookup(SaSession *session, char **dir, char **engine, gint64 *run)
{
	SaDocument *doc = sa_session_get_document(session);
	tsr_trace_item span;
	size_t thread;
	int64_t r = -1;
	char *d = NULL, *e = NULL;

	*dir = *engine = NULL;
	*run = -1;
	if (!doc || !sa_session_get_selection(session, &thread, &span) ||
	    span.kind != TSR_TRACE_ITEM_EVENT ||
	    tsr_trace_dup_span_report(&d, &e, &r, sa_document_get_trace(doc), thread, span.seq) !=
	        TSR_OK)
		return FALSE;
	*dir = g_strdup(d);
	*engine = g_strdup(e ? e : "");
	*run = r;
	free(d);
	free(e);
	return TRUE;
}

/* The Graph Analyser to run (see sa-graph-link.h), or NULL. */
static char *find_graph_analyser(void)
{
	const char *env = g_getenv("TILESCOPE_GRAPH_ANALYSER");
	g_autofree char *self = g_file_read_link("/proc/self/exe", NULL);
	g_autofree char *self_dir = self ? g_path_get_dirname(self) : NULL;
	g_autofree char *beside = self_dir ? g_build_filename(self_dir, "tilescope-graph-analyser", NULL)
	                                   : NULL;
	const char *candidates[] = {env, beside, SA_BUILD_GRAPH_ANALYSER};

	for (size_t i = 0; i < G_N_ELEMENTS(candidates); i++)
		if (candidates[i] && *candidates[i] &&
		    g_file_test(candidates[i], G_FILE_TEST_IS_EXECUTABLE) &&
		    !g_file_test(candidates[i], G_FILE_TEST_IS_DIR))
			return g_strdup(candidates[i]);
	return g_find_program_in_path("tilescope-graph-analyser");
}

/* The argv that opens `dir` at `run` (-1: no run) in the Graph Analyser,
 * or NULL when no Graph Analyser is found (g_strfreev). */
static char **graph_analyser_argv(const char *dir, gint64 run)
{
	GPtrArray *argv;
	char *exe = find_graph_analyser();

	if (!exe)
		return NULL;
	argv = g_ptr_array_new();
	g_ptr_array_add(argv, exe);
	if (run >= 0) {
		g_ptr_array_add(argv, g_strdup("--run"));
		g_ptr_array_add(argv, g_strdup_printf("%" G_GINT64_FORMAT, run));
	}
	g_ptr_array_add(argv, g_strdup("--")); /* a directory is never an option */
	g_ptr_array_add(argv, g_strdup(dir));
	g_ptr_array_add(argv, NULL);
	return (char **)g_ptr_array_free(argv, FALSE);
}

void sa_graph_link_update(GtkWidget *window, GtkWidget *button, SaSession *session)
{
	g_autofree char *dir = NULL, *engine = NULL, *tip = NULL;
	gint64 run;
	gboolean ok = lookup(session, &dir, &engine, &run);

	gtk_widget_action_set_enabled(window, "win.open-in-graph-analyser", ok);
	if (ok && run >= 0)
		tip = g_strdup_printf("Open the report of %s at run %" G_GINT64_FORMAT
		                      " in the Graph Analyser (Alt+G)", engine, run);
	else if (ok)
		tip = g_strdup_printf("Open the report of %s in the Graph Analyser (Alt+G)", engine);
	gtk_widget_set_tooltip_text(button, tip ? tip
	                                           : "Select a compile or run span of an engine "
	                                             "that wrote an autoReport to open it in the "
	                                             "Graph Analyser (Alt+G)");
}

/* A failure to launch, said in a dialog over the window. */
static void say(GtkWidget *window, const char *what, const char *why)
{
	GtkWidget *dialog = gtk_message_dialog_new(GTK_WINDOW(window), GTK_DIALOG_MODAL |
	                                           GTK_DIALOG_DESTROY_WITH_PARENT,
	                                           GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", what);

	gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", why);
	g_signal_connect(dialog, "response", G_CALLBACK(gtk_window_destroy), NULL);
	gtk_window_present(GTK_WINDOW(dialog));
}

void sa_graph_link_open(GtkWidget *window, GtkWidget *button, SaSession *session)
{
	g_autofree char *dir = NULL, *engine = NULL;
	g_auto(GStrv) argv = NULL;
	g_autoptr(GError) error = NULL;
	gint64 run;

	if (!lookup(session, &dir, &engine, &run)) {
		sa_graph_link_update(window, button, session); /* a stale state: the selection went */
		return;
	}
	argv = graph_analyser_argv(dir, run);
	if (!argv) {
		say(window, "The Graph Analyser was not found",
		    "tilescope-graph-analyser is neither beside this program nor on PATH.");
		return;
	}
	if (!g_spawn_async(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &error))
		say(window, "The Graph Analyser could not be started", error->message);
}
