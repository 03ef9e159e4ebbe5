/*
 * The Graph Analyser's window (ga-window.h, ga-window.ui), on the shell
 * both apps share (tsd-window.h: the start, loading and error pages, the
 * ways files arrive, watching them). Opening runs in a worker
 * (ga_document_load_async); a missing, foreign, corrupt, hostile or
 * too-new file ends on the error page with reportlib's one line. When the
 * model runs again and autoReport rewrites the report, a bar offers to
 * reload (Ctrl+R reloads at any time).
 *
 * Compare mode (ga_window_compare: `tilescope-graph-analyser A B`,
 * Compare two Reports…, which asks for A then B, or two files dropped
 * together, the first as A): both load at once in
 * workers, their progress averaged into the one bar (the comparison's
 * own progress fills the last fifth), then tsr_compare_programs runs in a worker
 * before the session gets both documents, so no view ever waits for it.
 * An error in either load cancels the other and names the report (A or
 * B) and its file. Reload and the file monitors cover both files; Close
 * the Comparison returns to report A alone without reading it again.
 *
 * A history store (ga-history.h, known by its application_id whatever
 * its name) opens the same ways, in a worker with the same progress and
 * Cancel, and shows in the History view; a report opened from it (or
 * beside it: a store and a report given together) leaves it open.
 */
#include "ga-window.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-settings.h>

#include "ga-keys.h"
#include "ga-application.h"
#include "ga-navigation.h"
#include "ga-view.h"
#include "ga-views.h"

#define GA_MIME_TYPE "application/x-tilescope-profile"

struct _GaWindow {
	TsdWindow parent_instance;

	GaSession *session;
	GaNavigation *navigation;    /* Back and Forward through jumps between views */
	GFile *compare_first;        /* Compare two Reports…: A, chosen, while B is asked for */
	char *initial_view;          /* shown when the next load ends, or NULL */
	gboolean showing_store;      /* the last load shown was the history store's */
	GFile *after_store;          /* a report given with a store: opened once it loads */

	GtkStack *views;
	GtkStackSidebar *sidebar;
	GtkPaned *sidebar_paned;
	GtkInfoBar *changed_bar;
};

G_DEFINE_FINAL_TYPE(GaWindow, ga_window, TSD_TYPE_WINDOW)

/* --- Loading ---------------------------------------------------------------------- */

/* A document is shown: report A alone, or A and B compared. */
static void show(GaWindow *self, GaDocument *a, GaDocument *b)
{
	g_autofree char *title = b ? g_strdup_printf("%s vs %s", ga_document_get_title(a),
	                                             ga_document_get_title(b))
	                           : g_strdup(ga_document_get_title(a));
	g_autofree char *pa = g_file_get_path(ga_document_get_file(a));
	g_autofree char *pb = b ? g_file_get_path(ga_document_get_file(b)) : NULL;
	const char *const paths[] = {pa, pb, NULL};

	ga_session_set_documents(self->session, a, b);
	self->showing_store = FALSE;
	gtk_info_bar_set_revealed(self->changed_bar, FALSE);
	tsd_window_show_document(TSD_WINDOW(self), title, paths);
	if (self->initial_view) {
		if (gtk_stack_get_child_by_name(self->views, self->initial_view))
			gtk_stack_set_visible_child_name(self->views, self->initial_view);
		g_clear_pointer(&self->initial_view, g_free);
	}
}

static void on_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
	g_autoptr(GaWindow) self = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GaDocument) doc = ga_document_load_finish(result, &error);

	/* A load replaced by another (or by a comparison) is not shown. */
	if (!tsd_window_load_is_current(TSD_WINDOW(self), g_task_get_cancellable(G_TASK(result))))
		return;
	if (!doc) {
		tsd_window_load_failed(TSD_WINDOW(self),
		                       g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
		                           ? NULL
		                           : error->message);
		return;
	}
	show(self, doc, NULL);
}

static void on_history_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
	g_autoptr(GaWindow) self = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GaHistory) history = ga_history_load_finish(result, &error);
	g_autoptr(GFile) report = g_steal_pointer(&self->after_store);

	if (!tsd_window_load_is_current(TSD_WINDOW(self), g_task_get_cancellable(G_TASK(result))))
		return;
	if (!history) {
		tsd_window_load_failed(TSD_WINDOW(self),
		                       g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
		                           ? NULL
		                           : error->message);
		return;
	}
	g_autofree char *path = g_file_get_path(ga_history_get_file(history));
	g_autofree char *title = g_file_get_basename(ga_history_get_file(history));
	const char *const paths[] = {path, NULL};

	ga_session_set_history(self->session, history);
	self->showing_store = TRUE;
	gtk_info_bar_set_revealed(self->changed_bar, FALSE);
	tsd_window_show_document(TSD_WINDOW(self), title, paths);
	gtk_stack_set_visible_child_name(self->views, "history");
	g_clear_pointer(&self->initial_view, g_free);
	if (report)
		ga_window_open(self, report);
}

/* Opens the history store `file`, its runs on `branch` (NULL: all). */
static void open_history(GaWindow *self, GFile *file, const char *branch)
{
	GCancellable *cancellable = tsd_window_begin_load(TSD_WINDOW(self), &file, 1, NULL);

	ga_history_load_async(file, branch, cancellable, tsd_window_load_progress, g_object_ref(self),
	                      g_object_unref, on_history_loaded, g_object_ref(self));
}

void ga_window_open(GaWindow *self, GFile *file)
{
	GCancellable *cancellable;

	if (ga_history_file_is_store(file)) {
		open_history(self, file, NULL);
		return;
	}
	cancellable = tsd_window_begin_load(TSD_WINDOW(self), &file, 1, NULL);
	ga_document_load_async(file, cancellable, tsd_window_load_progress, g_object_ref(self),
	                       g_object_unref, on_loaded, g_object_ref(self));
}

/* A comparison being opened: both loads, then tsr_compare_programs. Each side's
 * completion carries a pair_side; the pair is freed with its last user. */
typedef struct pair_load {
	GaWindow *win;               /* a ref */
	GCancellable *cancellable;   /* a ref; the window's for this load */
	GFile *files[2];             /* A and B, as asked for */
	GaDocument *docs[2];         /* loaded so far */
	double fractions[2];         /* each load's progress */
	GError *error;               /* the first failure */
	int error_side;              /* whose (0: A, 1: B, 2: the comparison) */
	int remaining;               /* loads not finished */
	gatomicrefcount ref;
} pair_load;

typedef struct pair_side {
	pair_load *pair;
	int side;
} pair_side;

static pair_load *pair_ref(pair_load *p)
{
	g_atomic_ref_count_inc(&p->ref);
	return p;
}

static void pair_unref(pair_load *p)
{
	if (!g_atomic_ref_count_dec(&p->ref))
		return;
	g_object_unref(p->win);
	g_object_unref(p->cancellable);
	for (int i = 0; i < 2; i++) {
		g_clear_object(&p->files[i]);
		g_clear_pointer(&p->docs[i], ga_document_unref);
	}
	g_clear_error(&p->error);
	g_free(p);
}

static void pair_side_free(gpointer data)
{
	pair_side *ps = data;

	pair_unref(ps->pair);
	g_free(ps);
}

/* Whether `p` is still the window's load (not cancelled or replaced). */
static gboolean pair_current(pair_load *p)
{
	return tsd_window_load_is_current(TSD_WINDOW(p->win), p->cancellable);
}

/* One side's progress: the bar shows the mean of both, in the first four
 * fifths. */
static void on_pair_progress(double fraction, const char *message, gpointer data)
{
	pair_side *ps = data;
	pair_load *p = ps->pair;
	g_autofree char *text = NULL;

	if (!pair_current(p))
		return;
	p->fractions[ps->side] = fraction;
	text = g_strdup_printf("%s: %s", ps->side ? "B" : "A", message ? message : "");
	tsd_window_load_progress(0.4 * (p->fractions[0] + p->fractions[1]), text, p->win);
}

/* The comparison's progress: the last fifth. */
static void on_compare_progress(double fraction, const char *message, gpointer data)
{
	pair_load *p = data;
	g_autofree char *text = NULL;

	if (!pair_current(p))
		return;
	text = g_strdup_printf("Comparing: %s", message ? message : "");
	tsd_window_load_progress(0.8 + 0.2 * fraction, text, p->win);
}

/* A pair's load failed or was cancelled: the error page naming the report,
 * or back to what was shown. */
static void pair_failed(pair_load *p)
{
	gboolean cancelled = g_error_matches(p->error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
	g_autofree char *text = NULL;

	if (!cancelled && p->error_side == 2) {
		text = g_strdup_printf("Comparing the reports failed: %s", p->error->message);
	} else if (!cancelled) {
		g_autofree char *name = g_file_get_parse_name(p->files[p->error_side]);

		text = g_strdup_printf("Report %s (%s): %s", p->error_side ? "B" : "A", name,
		                       p->error->message);
	}
	tsd_window_load_failed(TSD_WINDOW(p->win), text);
}

static void on_pair_compared(GObject *source, GAsyncResult *result, gpointer data)
{
	pair_load *p = data;
	GaWindow *self = p->win;
	g_autoptr(GError) error = NULL;
	tsr_comparison *cmp = ga_document_compare_finish(result, &error);

	if (!pair_current(p)) {
		tsr_comparison_free(cmp);
		pair_unref(p);
		return;
	}
	if (!cmp) {
		p->error = g_steal_pointer(&error);
		p->error_side = 2;
		pair_failed(p);
		pair_unref(p);
		return;
	}
	ga_document_set_comparison(p->docs[1], cmp);
	show(self, p->docs[0], p->docs[1]);
	pair_unref(p);
}

static void on_pair_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
	pair_side *ps = data;
	pair_load *p = ps->pair;     /* the ref `ps` held, dropped at the end */
	int side = ps->side;
	g_autoptr(GError) error = NULL;
	GaDocument *doc = ga_document_load_finish(result, &error);

	g_free(ps);
	if (doc) {
		p->docs[side] = doc;
	} else {
		/* The first real failure wins over the cancellation it causes. */
		if (!p->error || (g_error_matches(p->error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
		                  !g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))) {
			g_clear_error(&p->error);
			p->error = g_steal_pointer(&error);
			p->error_side = side;
		}
		g_cancellable_cancel(p->cancellable);
	}
	p->remaining--;
	if (p->remaining == 0 && pair_current(p)) {
		if (p->error)
			pair_failed(p);
		else
			ga_document_compare_async(p->docs[0], p->docs[1], p->cancellable,
			                          on_compare_progress, pair_ref(p),
			                          (GDestroyNotify)pair_unref, on_pair_compared, pair_ref(p));
	}
	pair_unref(p);
}

void ga_window_open_files(GaWindow *self, GFile *const *files, guint n)
{
	/* A store given with a report: the store, then the report. */
	for (guint i = 0; n > 1 && i < 2; i++)
		if (ga_history_file_is_store(files[i])) {
			g_set_object(&self->after_store, files[1 - i]);
			open_history(self, files[i], NULL);
			return;
		}
	if (n > 1)
		ga_window_compare(self, files[0], files[1]);
	else if (n == 1)
		ga_window_open(self, files[0]);
}

void ga_window_compare(GaWindow *self, GFile *a, GFile *b)
{
	g_autofree char *na = g_file_get_basename(a);
	g_autofree char *nb = g_file_get_basename(b);
	g_autofree char *heading = g_strdup_printf("Comparing %s and %s", na, nb);
	GFile *files[] = {a, b};
	pair_load *p = g_new0(pair_load, 1);

	g_atomic_ref_count_init(&p->ref);
	p->win = g_object_ref(self);
	p->cancellable = g_object_ref(tsd_window_begin_load(TSD_WINDOW(self), files, 2, heading));
	p->files[0] = g_object_ref(a);
	p->files[1] = g_object_ref(b);
	p->remaining = 2;
	for (int i = 0; i < 2; i++) {
		pair_side *progress = g_new0(pair_side, 1);
		pair_side *done = g_new0(pair_side, 1);

		progress->pair = pair_ref(p);
		progress->side = i;
		done->pair = pair_ref(p);
		done->side = i;
		ga_document_load_async(p->files[i], p->cancellable, on_pair_progress, progress,
		                       pair_side_free, on_pair_loaded, done);
	}
	pair_unref(p);
}

GaSession *ga_window_get_session(GaWindow *self)
{
	return self->session;
}

void ga_window_set_initial_view(GaWindow *self, const char *view)
{
	g_free(self->initial_view);
	self->initial_view = g_strdup(view);
}

/* --- Actions ------------------------------------------------------------------------- */

static void update_actions(TsdWindow *win)
{
	GaWindow *self = GA_WINDOW(win);
	gboolean loading = tsd_window_is_loading(win);

	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.back",
	                              !loading && ga_navigation_can_go_back(self->navigation));
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.forward",
	                              !loading && ga_navigation_can_go_forward(self->navigation));
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.close-compare",
	                              ga_session_get_compare_document(self->session) && !loading);
}

static void on_history(GObject *navigation, GParamSpec *pspec, gpointer data)
{
	update_actions(TSD_WINDOW(data));
}

/* win.back / win.forward (Alt+Left, Alt+Right): through the jumps. */
static void back_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);

	ga_navigation_go_back(self->navigation);
}

static void forward_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);

	ga_navigation_go_forward(self->navigation);
}

/* Files chosen, dropped, a start page's or recent row, Try Again's: two
 * reports are compared, the first as A. */
static void open_files(TsdWindow *win, GFile *const *files, guint n)
{
	ga_window_open_files(GA_WINDOW(win), files, n);
}

/* Compare two Reports…: a chooser for report A, then one for report B. */
static void on_compare_b(TsdWindow *win, GFile *const *files, guint n)
{
	GaWindow *self = GA_WINDOW(win);
	g_autoptr(GFile) a = g_steal_pointer(&self->compare_first);

	if (n > 0)
		ga_window_compare(self, a, files[0]);
}

static void on_compare_a(TsdWindow *win, GFile *const *files, guint n)
{
	if (n == 0)
		return;
	g_set_object(&GA_WINDOW(win)->compare_first, files[0]);
	tsd_window_choose(win, "Compare with Report B (the new one)", "_Compare", FALSE,
	                  on_compare_b);
}

static void compare_action(GtkWidget *widget, const char *name, GVariant *param)
{
	tsd_window_choose(TSD_WINDOW(widget), "Compare: Report A (the base)", "_Next", FALSE,
	                  on_compare_a);
}

/* Back to report A alone: it is loaded already. */
static void close_compare_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);
	GaDocument *doc = ga_session_get_document(self->session);

	if (doc && ga_session_get_compare_document(self->session))
		show(self, doc, NULL);
}

/* Reload (not Try Again): what is shown, read again. */
static void reload(TsdWindow *win)
{
	GaSession *session = GA_WINDOW(win)->session;
	GaHistory *history = ga_session_get_history(session);

	if (GA_WINDOW(win)->showing_store) {
		open_history(GA_WINDOW(win), ga_history_get_file(history), ga_history_get_branch(history));
		return;
	}
	GaDocument *b = ga_session_get_compare_document(session);
	GFile *files[] = {ga_document_get_file(ga_session_get_document(session)),
	                  b ? ga_document_get_file(b) : NULL};

	open_files(win, files, b ? 2 : 1);
}

/* The report on disk changed or went: offer to reload. */
static void files_changed(TsdWindow *win)
{
	gtk_info_bar_set_revealed(GA_WINDOW(win)->changed_bar, TRUE);
}

/* win.show-view("memory"): the sidebar's page by name (Ctrl+1 ...). */
static void show_view_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);
	const char *view = g_variant_get_string(param, NULL);

	if ((ga_session_get_document(self->session) || ga_session_get_history(self->session)) &&
	    gtk_stack_get_child_by_name(self->views, view))
		gtk_stack_set_visible_child_name(self->views, view);
}

/* win.open-report(path): a report the History view chose, shown at the
 * Summary. */
static void open_report_action(GtkWidget *widget, const char *name, GVariant *param)
{
	g_autoptr(GFile) file = g_file_new_for_path(g_variant_get_string(param, NULL));

	ga_window_set_initial_view(GA_WINDOW(widget), "summary");
	ga_window_open(GA_WINDOW(widget), file);
}

/* win.compare-reports((a, b)): two reports the History view chose. */
static void compare_reports_action(GtkWidget *widget, const char *name, GVariant *param)
{
	const char *a, *b;

	g_variant_get(param, "(&s&s)", &a, &b);
	g_autoptr(GFile) fa = g_file_new_for_path(a);
	g_autoptr(GFile) fb = g_file_new_for_path(b);
	ga_window_set_initial_view(GA_WINDOW(widget), "summary");
	ga_window_compare(GA_WINDOW(widget), fa, fb);
}

/* win.history-branch(branch): the store read again on one branch's
 * runs ("": every branch). */
static void history_branch_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);
	GaHistory *history = ga_session_get_history(self->session);
	const char *branch = g_variant_get_string(param, NULL);

	if (history)
		open_history(self, ga_history_get_file(history), *branch ? branch : NULL);
}

/* A sample report is a directory of sample-reports/ with a profile.pop:
 * its row opens the directory. */
static GFile *pick_sample(GFile *dir)
{
	g_autoptr(GFile) pop = g_file_get_child(dir, "profile.pop");

	return g_file_query_exists(pop, NULL) ? g_object_ref(dir) : NULL;
}

/* The view shown on a report is the one the next launch opens at. */
static void on_view_shown(GObject *stack, GParamSpec *pspec, gpointer data)
{
	const char *name = gtk_stack_get_visible_child_name(GTK_STACK(stack));
	GSettings *settings = tsd_window_get_settings(TSD_WINDOW(data));

	/* Not the History view: a report opened alone shows none. */
	if (tsd_settings_has_key(settings, "last-view") && name && strcmp(name, "history") &&
	    tsd_window_showing_document(TSD_WINDOW(data)))
		g_settings_set_string(settings, "last-view", name);
}

/* --- The views ------------------------------------------------------------------------------ */

static void add_views(GaWindow *self)
{
	size_t n;
	const ga_view_info *views = ga_views(&n);

	for (size_t i = 0; i < n; i++)
		gtk_stack_add_titled(self->views, views[i].create(self->session), views[i].name,
		                     views[i].title);
}

/* --- Focus ------------------------------------------------------------------------------ */

/* The first GtkPaned below `root`, breadth first: a view's split
 * between its figure and its details pane. */
static GtkWidget *first_paned(GtkWidget *root)
{
	g_autoptr(GQueue) queue = g_queue_new();

	g_queue_push_tail(queue, root);
	while (!g_queue_is_empty(queue)) {
		GtkWidget *w = g_queue_pop_head(queue);

		if (GTK_IS_PANED(w))
			return w;
		for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
			g_queue_push_tail(queue, c);
	}
	return NULL;
}

/* F6's regions on a report: the sidebar, the view (entered at its figure,
 * the start of its split) and the view's details pane (the split's end). */
static void document_regions(TsdWindow *win, GPtrArray *regions)
{
	GaWindow *self = GA_WINDOW(win);
	GtkWidget *view, *paned;

	tsd_focus_add_region(regions, GTK_WIDGET(self->sidebar), NULL);
	view = gtk_stack_get_visible_child(self->views);
	paned = view ? first_paned(view) : NULL;
	/* A view on the base: its split when it has a details pane, else the
	 * first split in its content. */
	if (GA_IS_VIEW(view) && ga_view_get_details(GA_VIEW(view)))
		paned = GTK_WIDGET(ga_view_get_paned(GA_VIEW(view)));
	else if (GA_IS_VIEW(view))
		paned = ga_view_get_content(GA_VIEW(view)) ? first_paned(ga_view_get_content(GA_VIEW(view)))
		                                           : NULL;
	tsd_focus_add_region(regions, view, paned ? gtk_paned_get_start_child(GTK_PANED(paned)) : NULL);
	if (paned && gtk_paned_get_end_child(GTK_PANED(paned))) {
		GtkWidget *details = gtk_paned_get_end_child(GTK_PANED(paned));

		/* Named, so that a screen reader says where F6 went (views
		 * build their split when a report comes, so it is named here). */
		gtk_accessible_update_property(GTK_ACCESSIBLE(details), GTK_ACCESSIBLE_PROPERTY_LABEL,
		                               "Details", -1);
		tsd_focus_add_region(regions, details, NULL);
	}
}

/* Tab leaves the sidebar for the view, Shift+Tab for the header bar: a
 * GtkStackSidebar's list would otherwise walk its rows, each showing its
 * view, so that Tab never reached one. The arrows still choose a row. */
static gboolean on_sidebar_key(GtkEventControllerKey *ctl, guint keyval, guint keycode,
                               GdkModifierType state, gpointer data)
{
	GaWindow *self = data;
	GtkWidget *view = gtk_stack_get_visible_child(self->views);

	if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK))
		return FALSE;
	if (keyval == GDK_KEY_ISO_Left_Tab || (keyval == GDK_KEY_Tab && (state & GDK_SHIFT_MASK)))
		return gtk_widget_child_focus(tsd_window_get_header(TSD_WINDOW(self)),
		                              GTK_DIR_TAB_BACKWARD);
	if (keyval == GDK_KEY_Tab || keyval == GDK_KEY_KP_Tab)
		return view && gtk_widget_child_focus(view, GTK_DIR_TAB_FORWARD);
	return FALSE;
}

/* The changed-on-disk bar's close button hides it (Reload is an action). */
static void on_changed_bar_response(GtkInfoBar *bar, int response, gpointer data)
{
	gtk_info_bar_set_revealed(bar, FALSE);
}

/* --- The class ---------------------------------------------------------------------------- */

static void ga_window_dispose(GObject *object)
{
	gtk_widget_dispose_template(GTK_WIDGET(object), GA_TYPE_WINDOW);
	G_OBJECT_CLASS(ga_window_parent_class)->dispose(object);
}

static void ga_window_finalize(GObject *object)
{
	GaWindow *self = GA_WINDOW(object);

	g_clear_object(&self->navigation);
	g_clear_object(&self->session);
	g_clear_object(&self->compare_first);
	g_clear_object(&self->after_store);
	g_free(self->initial_view);
	G_OBJECT_CLASS(ga_window_parent_class)->finalize(object);
}

static const char *const ga_types[] = {GA_MIME_TYPE, NULL};
static const char *const ga_filter[] = {GA_MIME_TYPE, "*.pop", NULL};
static const TsdWindowInfo ga_window_info = {
	.settings_id = GA_SETTINGS_ID,
	.keys = ga_keys,
	.open_title = "Open a Report",
	.filter_name = "Tilescope reports (profile.pop)",
	.filter = ga_filter,
	.recent_types = ga_types,
	.pick_sample = pick_sample,
	.open = open_files,
	.reload = reload,
	.files_changed = files_changed,
	.document_regions = document_regions,
	.update_actions = update_actions,
};

static void ga_window_class_init(GaWindowClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->dispose = ga_window_dispose;
	object_class->finalize = ga_window_finalize;
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/GraphAnalyser/ga-window.ui");
	tsd_window_class_bind_template(widget_class);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, views);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, sidebar);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, sidebar_paned);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, changed_bar);
	gtk_widget_class_bind_template_callback(widget_class, on_sidebar_key);
	TSD_WINDOW_CLASS(klass)->info = &ga_window_info;
	gtk_widget_class_install_action(widget_class, "win.compare", NULL, compare_action);
	gtk_widget_class_install_action(widget_class, "win.close-compare", NULL, close_compare_action);
	gtk_widget_class_install_action(widget_class, "win.show-view", "s", show_view_action);
	gtk_widget_class_install_action(widget_class, "win.back", NULL, back_action);
	gtk_widget_class_install_action(widget_class, "win.open-report", "s", open_report_action);
	gtk_widget_class_install_action(widget_class, "win.compare-reports", "(ss)",
	                                compare_reports_action);
	gtk_widget_class_install_action(widget_class, "win.history-branch", "s",
	                                history_branch_action);
	gtk_widget_class_install_action(widget_class, "win.forward", NULL, forward_action);
}

static void ga_window_init(GaWindow *self)
{
	GSettings *settings;

	gtk_widget_init_template(GTK_WIDGET(self));
	self->session = ga_session_new();
	add_views(self);
	self->navigation = ga_navigation_new(GTK_WIDGET(self), self->session, self->views);
	g_signal_connect(self->navigation, "notify::can-go-back", G_CALLBACK(on_history), self);
	g_signal_connect(self->navigation, "notify::can-go-forward", G_CALLBACK(on_history), self);
	tsd_window_setup(TSD_WINDOW(self));
	settings = tsd_window_get_settings(TSD_WINDOW(self));
	g_signal_connect(self->changed_bar, "response", G_CALLBACK(on_changed_bar_response), NULL);
	tsd_a11y_name_close_button(GTK_WIDGET(self->changed_bar));
	/* What the last window left (tsd-settings.h): besides its size, the
	 * sidebar's width, the view a report opens at (--view wins:
	 * ga-application.c). */
	tsd_settings_remember_paned(self->sidebar_paned, settings, "sidebar-width");
	if (tsd_settings_has_key(settings, "last-view")) {
		g_autofree char *view = g_settings_get_string(settings, "last-view");

		if (*view)
			self->initial_view = g_steal_pointer(&view);
	}
	g_signal_connect(self->views, "notify::visible-child-name", G_CALLBACK(on_view_shown), self);
}

GaWindow *ga_window_new(GtkApplication *app)
{
	return g_object_new(GA_TYPE_WINDOW, "application", app, NULL);
}
