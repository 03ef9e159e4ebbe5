/*
 * "Open in Graph Analyser" (sa-graph-link.h). The action lives in the
 * window's action map and its state follows the session's selection
 * ("selected-span", and "document"); the link is read once per change
 * from reportlib (an indexed lookup of one row). The Graph Analyser runs
 * as a process of its own, so a slow report load never blocks this
 * window, and a launch that fails says why in a dialog.
 */
#include "sa-graph-link.h"

#include <stdlib.h>

#define LINK_KEY "sa-graph-link"

typedef struct graph_link {
	GtkApplicationWindow *window; /* not owned: the link is its data */
	SaSession *session;           /* the window's, whose selection it follows */
	GSimpleAction *action;
	GtkWidget *button;
} graph_link;

gboolean sa_graph_link_lookup(SaSession *session, char **dir, char **engine, gint64 *run)
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

char **sa_graph_link_argv(const char *dir, gint64 run)
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

/* Enables the action when the selected span has a report, and says in
 * the button's tooltip which. */
static void update(graph_link *l)
{
	g_autofree char *dir = NULL, *engine = NULL, *tip = NULL;
	gint64 run;
	gboolean ok = sa_graph_link_lookup(l->session, &dir, &engine, &run);

	g_simple_action_set_enabled(l->action, ok);
	if (ok && run >= 0)
		tip = g_strdup_printf("Open the report of %s at run %" G_GINT64_FORMAT
		                      " in the Graph Analyser (Alt+G)", engine, run);
	else if (ok)
		tip = g_strdup_printf("Open the report of %s in the Graph Analyser (Alt+G)", engine);
	gtk_widget_set_tooltip_text(l->button, tip ? tip
	                                           : "Select a compile or run span of an engine "
	                                             "that wrote an autoReport to open it in the "
	                                             "Graph Analyser (Alt+G)");
}

/* The session's document or selection changed. */
static void on_session_notify(SaSession *session, GParamSpec *pspec, gpointer data)
{
	(void)session;
	(void)pspec;
	update(data);
}

/* A failure to launch, said in a dialog over the window. */
static void say(graph_link *l, const char *what, const char *why)
{
	GtkWidget *dialog = gtk_message_dialog_new(GTK_WINDOW(l->window), GTK_DIALOG_MODAL |
	                                           GTK_DIALOG_DESTROY_WITH_PARENT,
	                                           GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", what);

	gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(dialog), "%s", why);
	g_signal_connect(dialog, "response", G_CALLBACK(gtk_window_destroy), NULL);
	gtk_window_present(GTK_WINDOW(dialog));
}

static void activate(GSimpleAction *action, GVariant *param, gpointer data)
{
	graph_link *l = data;
	g_autofree char *dir = NULL, *engine = NULL;
	g_auto(GStrv) argv = NULL;
	g_autoptr(GError) error = NULL;
	gint64 run;

	(void)action;
	(void)param;
	if (!sa_graph_link_lookup(l->session, &dir, &engine, &run)) {
		update(l); /* a stale state: the selection went */
		return;
	}
	argv = sa_graph_link_argv(dir, run);
	if (!argv) {
		say(l, "The Graph Analyser was not found",
		    "tilescope-graph-analyser is neither beside this program nor on PATH.");
		return;
	}
	if (!g_spawn_async(NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, &error))
		say(l, "The Graph Analyser could not be started", error->message);
}

static void link_free(gpointer data)
{
	graph_link *l = data;

	g_signal_handlers_disconnect_by_data(l->session, l);
	g_object_unref(l->session);
	g_object_unref(l->action);
	g_free(l);
}

void sa_graph_link_attach(GtkApplicationWindow *window, SaSession *session,
                          GtkHeaderBar *header)
{
	graph_link *l = g_new0(graph_link, 1);

	l->window = window;
	l->session = g_object_ref(session);
	l->action = g_simple_action_new("open-in-graph-analyser", NULL);
	g_signal_connect(l->action, "activate", G_CALLBACK(activate), l);
	g_action_map_add_action(G_ACTION_MAP(window), G_ACTION(l->action));
	/* Alt+G is in the app's key table (sa-keys.c). */
	l->button = gtk_button_new_with_mnemonic("Open in _Graph Analyser");
	gtk_actionable_set_action_name(GTK_ACTIONABLE(l->button), "win.open-in-graph-analyser");
	gtk_header_bar_pack_start(header, l->button);
	g_signal_connect(session, "notify::document", G_CALLBACK(on_session_notify), l);
	g_signal_connect(session, "notify::selected-span", G_CALLBACK(on_session_notify), l);
	g_object_set_data_full(G_OBJECT(window), LINK_KEY, l, link_free);
	update(l);
}
