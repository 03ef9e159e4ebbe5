/*
 * The Graph Analyser's window (ga-window.h, ga-window.ui). Opening runs in
 * a worker (ga_document_load_async) with a progress bar and Cancel; a
 * missing, foreign, corrupt, hostile or too-new file ends on the error
 * page with reportlib's one line, and the window stays usable. The report
 * shown is watched: when the model runs again and autoReport rewrites it,
 * a bar offers to reload (Ctrl+R reloads at any time). Files open from the
 * command line, the file chooser, drag and drop, and the start page's
 * recent and sample reports.
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
 */
#include "ga-window.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-cancel.h>
#include <tilescope/tsd-settings.h>
#include <tilescope/tsd-start.h>
#include <tilescope/tsd-keys.h>

#include "ga-keys.h"
#include "ga-application.h"
#include "ga-navigation.h"
#include "ga-view.h"
#include "ga-views.h"

#define GA_MIME_TYPE "application/x-tilescope-profile"

struct _GaWindow {
	GtkApplicationWindow parent_instance;

	GaSession *session;
	GaNavigation *navigation;    /* Back and Forward through jumps between views */
	GFile *file;                 /* what was asked for: file or directory */
	GFile *compare_file;         /* report B asked for, NULL when not comparing */
	GFile *loading_file;         /* the load in progress, NULL when none */
	GFile *failed[2];            /* the load the error page shows (A, and B when it
	                                was a comparison), retried by Reload; else NULL */
	GCancellable *cancellable;   /* of the load in progress */
	GFileMonitor *monitor;       /* on the open profile.pop */
	GFileMonitor *compare_monitor; /* on report B's profile.pop */
	GtkFileChooserNative *chooser;
	GFile *compare_first;        /* Compare two Reports…: A, chosen, while B is asked for */
	char *initial_view;          /* shown when the next load ends, or NULL */
	GSettings *settings;         /* what is remembered (tsd-settings.h), or NULL */

	GtkStack *main_stack;
	GtkStack *views;
	GtkStackSidebar *sidebar;
	GtkPaned *sidebar_paned;
	GtkWidget *header;
	GtkLabel *loading_title;
	GtkProgressBar *loading_progress;
	GtkLabel *loading_message;
	GtkLabel *error_title;
	GtkLabel *error_message;
	GtkInfoBar *changed_bar;
	GtkListBox *recent_list;
	GtkLabel *recent_label;
	GtkListBox *samples_list;
	GtkLabel *samples_label;
};

G_DEFINE_FINAL_TYPE(GaWindow, ga_window, GTK_TYPE_APPLICATION_WINDOW)

static void update_actions(GaWindow *self);

/* --- Loading ---------------------------------------------------------------------- */

/* The loader's progress, on the main thread. */
static void on_load_progress(double fraction, const char *message, gpointer data)
{
	GaWindow *self = data;

	gtk_progress_bar_set_fraction(self->loading_progress, fraction);
	gtk_label_set_text(self->loading_message, message && *message ? message : " ");
}

/* A note for the desktop's recent files. */
static void remember(GFile *file)
{
	g_autofree char *uri = g_file_get_uri(file);
	GtkRecentData data = {
		.display_name = NULL,
		.description = NULL,
		.mime_type = (char *)GA_MIME_TYPE,
		.app_name = (char *)"Graph Analyser",
		.app_exec = (char *)"tilescope-graph-analyser %f",
		.groups = NULL,
		.is_private = FALSE,
	};

	gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &data);
}

/* The open file changed or went: offer to reload. */
static void on_file_changed(GFileMonitor *monitor, GFile *file, GFile *other,
                            GFileMonitorEvent event, gpointer data)
{
	GaWindow *self = data;

	(void)monitor;
	(void)file;
	(void)other;
	switch (event) {
	case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:
	case G_FILE_MONITOR_EVENT_CREATED:
	case G_FILE_MONITOR_EVENT_DELETED:
	case G_FILE_MONITOR_EVENT_MOVED_IN:
	case G_FILE_MONITOR_EVENT_RENAMED:
		gtk_info_bar_set_revealed(self->changed_bar, TRUE);
		break;
	default:
		break;
	}
}

/* A monitor of a document's profile.pop (a rewrite is a rename into
 * place, so moves of that name are watched), or NULL. */
static GFileMonitor *monitor_of(GaWindow *self, GaDocument *doc)
{
	GFileMonitor *m = g_file_monitor_file(ga_document_get_file(doc), G_FILE_MONITOR_WATCH_MOVES,
	                                      NULL, NULL);

	if (m)
		g_signal_connect(m, "changed", G_CALLBACK(on_file_changed), self);
	return m;
}

/* Watches the document's profile.pop. */
static void watch(GaWindow *self, GaDocument *doc)
{
	g_clear_object(&self->monitor);
	self->monitor = monitor_of(self, doc);
}

static void on_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
	g_autoptr(GaWindow) self = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(GaDocument) doc = ga_document_load_finish(result, &error);
	g_autofree char *title = NULL;

	(void)source;
	/* A load replaced by another (or by a comparison) is not shown. */
	if (g_task_get_cancellable(G_TASK(result)) != self->cancellable)
		return;
	g_clear_object(&self->cancellable);
	if (!doc) {
		g_autofree char *name = self->loading_file ? g_file_get_parse_name(self->loading_file)
		                                            : g_strdup("");

		g_set_object(&self->failed[0], self->loading_file);
		g_clear_object(&self->failed[1]);
		g_clear_object(&self->loading_file);
		if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
			/* Back to what was shown before. */
			gtk_stack_set_visible_child_name(self->main_stack,
			                                 ga_session_get_document(self->session) ? "report"
			                                                                        : "start");
		} else {
			gtk_label_set_text(self->error_message, error->message);
			gtk_stack_set_visible_child_name(self->main_stack, "error");
		}
		update_actions(self);
		return;
	}
	g_set_object(&self->file, self->loading_file);
	g_clear_object(&self->loading_file);
	g_clear_object(&self->compare_file);
	g_clear_object(&self->compare_monitor);
	ga_session_set_document(self->session, doc);
	remember(ga_document_get_file(doc));
	watch(self, doc);
	gtk_info_bar_set_revealed(self->changed_bar, FALSE);
	title = g_strdup_printf("%s — Graph Analyser", ga_document_get_title(doc));
	gtk_window_set_title(GTK_WINDOW(self), title);
	gtk_stack_set_visible_child_name(self->main_stack, "report");
	if (self->initial_view) {
		if (gtk_stack_get_child_by_name(self->views, self->initial_view))
			gtk_stack_set_visible_child_name(self->views, self->initial_view);
		g_clear_pointer(&self->initial_view, g_free);
	}
	update_actions(self);
}

/* The loading page for `file` under `heading`, with a new cancellable in
 * place of the load (or comparison) in flight. */
static void start_loading(GaWindow *self, GFile *file, const char *heading)
{
	tsd_cancel_clear(&self->cancellable);
	self->cancellable = g_cancellable_new();
	g_set_object(&self->loading_file, file);
	g_clear_object(&self->failed[0]);
	g_clear_object(&self->failed[1]);
	gtk_label_set_text(self->loading_title, heading);
	gtk_progress_bar_set_fraction(self->loading_progress, 0);
	gtk_label_set_text(self->loading_message, " ");
	gtk_stack_set_visible_child_name(self->main_stack, "loading");
	update_actions(self);
}

void ga_window_open(GaWindow *self, GFile *file)
{
	g_autofree char *name = g_file_get_basename(file);
	g_autofree char *heading = g_strdup_printf("Opening %s", name ? name : "the report");

	start_loading(self, file, heading);
	ga_document_load_async(file, self->cancellable, on_load_progress, g_object_ref(self),
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
	return p->win->cancellable == p->cancellable;
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
	on_load_progress(0.4 * (p->fractions[0] + p->fractions[1]), text, p->win);
}

/* The comparison's progress: the last fifth. */
static void on_compare_progress(double fraction, const char *message, gpointer data)
{
	pair_load *p = data;
	g_autofree char *text = NULL;

	if (!pair_current(p))
		return;
	text = g_strdup_printf("Comparing: %s", message ? message : "");
	on_load_progress(0.8 + 0.2 * fraction, text, p->win);
}

/* The window's title for a pair: "A vs B — Graph Analyser". */
static void set_pair_title(GaWindow *self, GaDocument *a, GaDocument *b)
{
	g_autofree char *title = g_strdup_printf("%s vs %s — Graph Analyser",
	                                         ga_document_get_title(a), ga_document_get_title(b));

	gtk_window_set_title(GTK_WINDOW(self), title);
}

/* A pair's load failed or was cancelled: the error page naming the report,
 * or back to what was shown. */
static void pair_failed(pair_load *p)
{
	GaWindow *self = p->win;

	g_clear_object(&self->cancellable);
	g_clear_object(&self->loading_file);
	g_set_object(&self->failed[0], p->files[0]);
	g_set_object(&self->failed[1], p->files[1]);
	if (g_error_matches(p->error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
		gtk_stack_set_visible_child_name(self->main_stack, ga_session_get_document(self->session)
		                                                       ? "report"
		                                                       : "start");
	} else if (p->error_side == 2) {
		g_autofree char *text = g_strdup_printf("Comparing the reports failed: %s",
		                                        p->error->message);

		gtk_label_set_text(self->error_message, text);
		gtk_stack_set_visible_child_name(self->main_stack, "error");
	} else {
		g_autofree char *name = g_file_get_parse_name(p->files[p->error_side]);
		g_autofree char *text = g_strdup_printf("Report %s (%s): %s", p->error_side ? "B" : "A",
		                                        name, p->error->message);

		gtk_label_set_text(self->error_message, text);
		gtk_stack_set_visible_child_name(self->main_stack, "error");
	}
	update_actions(self);
}

static void on_pair_compared(GObject *source, GAsyncResult *result, gpointer data)
{
	pair_load *p = data;
	GaWindow *self = p->win;
	g_autoptr(GError) error = NULL;
	tsr_comparison *cmp = ga_document_compare_finish(result, &error);

	(void)source;
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
	g_clear_object(&self->cancellable);
	g_clear_object(&self->loading_file);
	g_set_object(&self->file, p->files[0]);
	g_set_object(&self->compare_file, p->files[1]);
	ga_session_set_documents(self->session, p->docs[0], p->docs[1]);
	for (int i = 0; i < 2; i++)
		remember(ga_document_get_file(p->docs[i]));
	watch(self, p->docs[0]);
	g_clear_object(&self->compare_monitor);
	self->compare_monitor = monitor_of(self, p->docs[1]);
	gtk_info_bar_set_revealed(self->changed_bar, FALSE);
	set_pair_title(self, p->docs[0], p->docs[1]);
	gtk_stack_set_visible_child_name(self->main_stack, "report");
	if (self->initial_view) {
		if (gtk_stack_get_child_by_name(self->views, self->initial_view))
			gtk_stack_set_visible_child_name(self->views, self->initial_view);
		g_clear_pointer(&self->initial_view, g_free);
	}
	update_actions(self);
	pair_unref(p);
}

static void on_pair_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
	pair_side *ps = data;
	pair_load *p = ps->pair;     /* the ref `ps` held, dropped at the end */
	int side = ps->side;
	g_autoptr(GError) error = NULL;
	GaDocument *doc = ga_document_load_finish(result, &error);

	(void)source;
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

void ga_window_compare(GaWindow *self, GFile *a, GFile *b)
{
	g_autofree char *na = g_file_get_basename(a);
	g_autofree char *nb = g_file_get_basename(b);
	g_autofree char *heading = g_strdup_printf("Comparing %s and %s", na, nb);
	pair_load *p = g_new0(pair_load, 1);

	start_loading(self, a, heading);
	g_atomic_ref_count_init(&p->ref);
	p->win = g_object_ref(self);
	p->cancellable = g_object_ref(self->cancellable);
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

static void update_actions(GaWindow *self)
{
	gboolean loading = self->loading_file != NULL;

	/* Reload retries a load that failed as well: the file may be readable
	 * now (a model was rewriting it, say). */
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.reload",
	                              (self->file || self->failed[0]) && !loading);
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.cancel-load", loading);
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.back",
	                              !loading && ga_navigation_can_go_back(self->navigation));
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.forward",
	                              !loading && ga_navigation_can_go_forward(self->navigation));
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.close-compare",
	                              self->compare_file && !loading);
}

static void on_history(GObject *navigation, GParamSpec *pspec, gpointer data)
{
	(void)navigation;
	(void)pspec;
	update_actions(GA_WINDOW(data));
}

/* win.back / win.forward (Alt+Left, Alt+Right): through the jumps. */
static void back_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);

	(void)name;
	(void)param;
	ga_navigation_go_back(self->navigation);
}

static void forward_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);

	(void)name;
	(void)param;
	ga_navigation_go_forward(self->navigation);
}

static void on_chooser_response(GtkNativeDialog *dialog, int response, gpointer data)
{
	GaWindow *self = data;

	if (response == GTK_RESPONSE_ACCEPT) {
		g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));

		if (file)
			ga_window_open(self, file);
	}
	g_clear_object(&self->chooser);
}

static void open_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);
	GtkFileFilter *reports = gtk_file_filter_new();
	GtkFileFilter *all = gtk_file_filter_new();

	(void)name;
	(void)param;
	if (self->chooser)
		return;
	self->chooser = gtk_file_chooser_native_new("Open a Report", GTK_WINDOW(self),
	                                            GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
	gtk_file_filter_set_name(reports, "Tilescope reports (profile.pop)");
	gtk_file_filter_add_mime_type(reports, GA_MIME_TYPE);
	gtk_file_filter_add_pattern(reports, "*.pop");
	gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(self->chooser), reports);
	gtk_file_filter_set_name(all, "All files");
	gtk_file_filter_add_pattern(all, "*");
	gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(self->chooser), all);
	g_object_unref(reports);
	g_object_unref(all);
	g_signal_connect(self->chooser, "response", G_CALLBACK(on_chooser_response), self);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(self->chooser));
}

/* Compare two Reports…: a chooser for report A, then one for report B. */
static void on_compare_chooser_response(GtkNativeDialog *dialog, int response, gpointer data)
{
	GaWindow *self = data;
	g_autoptr(GFile) file = NULL;

	if (response == GTK_RESPONSE_ACCEPT)
		file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
	g_clear_object(&self->chooser);
	if (!file) {
		g_clear_object(&self->compare_first);
		return;
	}
	if (!self->compare_first) {
		self->compare_first = g_steal_pointer(&file);
		gtk_widget_activate_action(GTK_WIDGET(self), "win.compare", NULL);
		return;
	}
	{
		g_autoptr(GFile) a = g_steal_pointer(&self->compare_first);

		ga_window_compare(self, a, file);
	}
}

static void compare_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);
	GtkFileFilter *reports = gtk_file_filter_new();

	(void)name;
	(void)param;
	if (self->chooser)
		return;
	self->chooser = gtk_file_chooser_native_new(
	    self->compare_first ? "Compare with Report B (the new one)"
	                        : "Compare: Report A (the base)",
	    GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_OPEN, self->compare_first ? "_Compare" : "_Next",
	    "_Cancel");
	gtk_file_filter_set_name(reports, "Tilescope reports (profile.pop)");
	gtk_file_filter_add_mime_type(reports, GA_MIME_TYPE);
	gtk_file_filter_add_pattern(reports, "*.pop");
	gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(self->chooser), reports);
	g_object_unref(reports);
	g_signal_connect(self->chooser, "response", G_CALLBACK(on_compare_chooser_response), self);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(self->chooser));
}

/* Back to report A alone: it is loaded already. */
static void close_compare_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);
	GaDocument *doc = ga_session_get_document(self->session);
	g_autofree char *title = NULL;

	(void)name;
	(void)param;
	if (!self->compare_file || !doc)
		return;
	g_clear_object(&self->compare_file);
	g_clear_object(&self->compare_monitor);
	ga_session_set_documents(self->session, doc, NULL);
	title = g_strdup_printf("%s — Graph Analyser", ga_document_get_title(doc));
	gtk_window_set_title(GTK_WINDOW(self), title);
	update_actions(self);
}

static void reload_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);

	/* On the error page, the load that failed; else what is shown. */
	gboolean retry = self->failed[0] &&
	                 !g_strcmp0(gtk_stack_get_visible_child_name(self->main_stack), "error");
	GFile *first = retry ? self->failed[0] : self->file;
	GFile *second = retry ? self->failed[1] : self->compare_file;
	/* Held: starting a load clears failed[]. */
	g_autoptr(GFile) a = first ? g_object_ref(first) : NULL;
	g_autoptr(GFile) b = second ? g_object_ref(second) : NULL;

	(void)name;
	(void)param;
	if (a && b)
		ga_window_compare(self, a, b);
	else if (a)
		ga_window_open(self, a);
}

static void cancel_load_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);

	(void)name;
	(void)param;
	if (self->cancellable)
		g_cancellable_cancel(self->cancellable);
}

static void show_start_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);

	(void)name;
	(void)param;
	gtk_stack_set_visible_child_name(self->main_stack,
	                                 ga_session_get_document(self->session) ? "report" : "start");
}

/* win.show-view("memory"): the sidebar's page by name (Ctrl+1 ...). */
static void show_view_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaWindow *self = GA_WINDOW(widget);
	const char *view = g_variant_get_string(param, NULL);

	(void)name;
	if (ga_session_get_document(self->session) && gtk_stack_get_child_by_name(self->views, view))
		gtk_stack_set_visible_child_name(self->views, view);
}

/* --- Drag and drop ------------------------------------------------------------------------ */

static gboolean on_drop(GtkDropTarget *target, const GValue *value, double x, double y,
                        gpointer data)
{
	GaWindow *self = data;
	GSList *files;

	(void)target;
	(void)x;
	(void)y;
	if (!G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST))
		return FALSE;
	files = g_value_get_boxed(value);
	if (!files)
		return FALSE;
	/* Two reports dropped together: the first is A. */
	if (files->next)
		ga_window_compare(self, files->data, files->next->data);
	else
		ga_window_open(self, files->data);
	return TRUE;
}

/* --- The start page ------------------------------------------------------------------------ */

static void on_row_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
	GFile *file = tsd_start_row_get_file(row);

	(void)box;
	if (file)
		ga_window_open(GA_WINDOW(data), file);
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
	GaWindow *self = data;
	const char *name = gtk_stack_get_visible_child_name(GTK_STACK(stack));

	(void)pspec;
	if (tsd_settings_has_key(self->settings, "last-view") && name && self->main_stack &&
	    g_strcmp0(gtk_stack_get_visible_child_name(self->main_stack), "report") == 0)
		g_settings_set_string(self->settings, "last-view", name);
}

/* --- The views ------------------------------------------------------------------------------ */

static void add_views(GaWindow *self)
{
	size_t n;
	const ga_view_info *views = ga_views(&n);

	for (size_t i = 0; i < n; i++) {
		GtkWidget *view = views[i].create(self->session);
		GtkStackPage *page = gtk_stack_add_titled(self->views, view, views[i].name,
		                                          views[i].title);

		(void)page;
	}
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

/* F6's regions: the header bar; on a report the sidebar, the view (entered
 * at its figure, the start of its split) and the view's details pane
 * (the split's end); on another page, that page. */
static void focus_regions(GtkWidget *widget, GPtrArray *regions, gpointer data)
{
	GaWindow *self = data;
	GtkWidget *page = gtk_stack_get_visible_child(self->main_stack);
	GtkWidget *view, *paned;

	(void)widget;
	tsd_focus_add_region(regions, self->header, NULL);
	if (g_strcmp0(gtk_stack_get_visible_child_name(self->main_stack), "report") != 0) {
		tsd_focus_add_region(regions, page, NULL);
		return;
	}
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

	(void)ctl;
	(void)keycode;
	if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK))
		return FALSE;
	if (keyval == GDK_KEY_ISO_Left_Tab || (keyval == GDK_KEY_Tab && (state & GDK_SHIFT_MASK)))
		return gtk_widget_child_focus(self->header, GTK_DIR_TAB_BACKWARD);
	if (keyval == GDK_KEY_Tab || keyval == GDK_KEY_KP_Tab)
		return view && gtk_widget_child_focus(view, GTK_DIR_TAB_FORWARD);
	return FALSE;
}

/* The changed-on-disk bar's close button hides it (Reload is an action). */
static void on_changed_bar_response(GtkInfoBar *bar, int response, gpointer data)
{
	(void)response;
	(void)data;
	gtk_info_bar_set_revealed(bar, FALSE);
}

/* --- The class ---------------------------------------------------------------------------- */

static void ga_window_dispose(GObject *object)
{
	GaWindow *self = GA_WINDOW(object);

	tsd_cancel_clear(&self->cancellable);
	g_clear_object(&self->monitor);
	g_clear_object(&self->compare_monitor);
	g_clear_object(&self->chooser);
	g_clear_object(&self->settings);
	gtk_widget_dispose_template(GTK_WIDGET(self), GA_TYPE_WINDOW);
	G_OBJECT_CLASS(ga_window_parent_class)->dispose(object);
}

static void ga_window_finalize(GObject *object)
{
	GaWindow *self = GA_WINDOW(object);

	g_clear_object(&self->navigation);
	g_clear_object(&self->session);
	g_clear_object(&self->file);
	g_clear_object(&self->compare_file);
	g_clear_object(&self->compare_first);
	g_clear_object(&self->loading_file);
	g_clear_object(&self->failed[0]);
	g_clear_object(&self->failed[1]);
	g_free(self->initial_view);
	G_OBJECT_CLASS(ga_window_parent_class)->finalize(object);
}

static void ga_window_class_init(GaWindowClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->dispose = ga_window_dispose;
	object_class->finalize = ga_window_finalize;
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/GraphAnalyser/ga-window.ui");
	gtk_widget_class_bind_template_child(widget_class, GaWindow, main_stack);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, views);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, sidebar);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, sidebar_paned);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, header);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, loading_title);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, loading_progress);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, loading_message);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, error_title);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, error_message);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, changed_bar);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, recent_list);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, recent_label);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, samples_list);
	gtk_widget_class_bind_template_child(widget_class, GaWindow, samples_label);

	gtk_widget_class_install_action(widget_class, "win.open", NULL, open_action);
	gtk_widget_class_install_action(widget_class, "win.reload", NULL, reload_action);
	gtk_widget_class_install_action(widget_class, "win.compare", NULL, compare_action);
	gtk_widget_class_install_action(widget_class, "win.close-compare", NULL, close_compare_action);
	gtk_widget_class_install_action(widget_class, "win.cancel-load", NULL, cancel_load_action);
	gtk_widget_class_install_action(widget_class, "win.show-start", NULL, show_start_action);
	gtk_widget_class_install_action(widget_class, "win.show-view", "s", show_view_action);
	gtk_widget_class_install_action(widget_class, "win.back", NULL, back_action);
	gtk_widget_class_install_action(widget_class, "win.forward", NULL, forward_action);
	/* The other keys are the application's accelerators (ga-keys.c); this
	 * one must leave Escape to the widgets when nothing is loading. */
	gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "win.cancel-load",
	                                    NULL);
}

static void ga_window_init(GaWindow *self)
{
	GtkDropTarget *drop;
	size_t n_keys;
	const TsdKey *keys = ga_keys(&n_keys);

	gtk_widget_init_template(GTK_WIDGET(self));
	self->session = ga_session_new();
	add_views(self);
	self->navigation = ga_navigation_new(GTK_WIDGET(self), self->session, self->views);
	g_signal_connect(self->navigation, "notify::can-go-back", G_CALLBACK(on_history), self);
	g_signal_connect(self->navigation, "notify::can-go-forward", G_CALLBACK(on_history), self);
	/* Every accelerator comes from ga-keys.c (the application installs
	 * them), and so does the Keyboard Shortcuts window. */
	tsd_keys_set_help_overlay(GTK_APPLICATION_WINDOW(self), keys, n_keys);
	tsd_focus_install(GTK_APPLICATION_WINDOW(self), focus_regions, self);
	{
		GtkEventController *ctl = gtk_event_controller_key_new();

		gtk_event_controller_set_propagation_phase(ctl, GTK_PHASE_CAPTURE);
		g_signal_connect(ctl, "key-pressed", G_CALLBACK(on_sidebar_key), self);
		gtk_widget_add_controller(GTK_WIDGET(self->sidebar), ctl);
	}
	drop = gtk_drop_target_new(GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
	g_signal_connect(drop, "drop", G_CALLBACK(on_drop), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drop));
	g_signal_connect(self->recent_list, "row-activated", G_CALLBACK(on_row_activated), self);
	g_signal_connect(self->samples_list, "row-activated", G_CALLBACK(on_row_activated), self);
	g_signal_connect(self->changed_bar, "response", G_CALLBACK(on_changed_bar_response), NULL);
	tsd_a11y_name_close_button(GTK_WIDGET(self->changed_bar));
	{
		static const char *const mime_types[] = {GA_MIME_TYPE, NULL};

		tsd_start_list_recent(self->recent_list, GTK_WIDGET(self->recent_label), mime_types,
		                      NULL, 8);
		tsd_start_list_samples(self->samples_list, GTK_WIDGET(self->samples_label),
		                       pick_sample);
	}
	/* What the last window left (tsd-settings.h): its size, the sidebar's
	 * width, the view a report opens at (--view wins: ga-application.c). */
	self->settings = tsd_settings_new(GA_SETTINGS_ID);
	tsd_settings_remember_window(GTK_WINDOW(self), self->settings);
	tsd_settings_remember_paned(self->sidebar_paned, self->settings, "sidebar-width");
	if (tsd_settings_has_key(self->settings, "last-view")) {
		g_autofree char *view = g_settings_get_string(self->settings, "last-view");

		if (*view)
			self->initial_view = g_steal_pointer(&view);
	}
	g_signal_connect(self->views, "notify::visible-child-name", G_CALLBACK(on_view_shown), self);
	update_actions(self);
}

GaWindow *ga_window_new(GtkApplication *app)
{
	return g_object_new(GA_TYPE_WINDOW, "application", app, NULL);
}
