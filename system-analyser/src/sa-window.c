/*
 * The System Analyser's window (sa-window.h). Files come from the command
 * line, the file chooser (several at once) or drag and drop; they load in
 * a worker (sa_document_load_async) behind a progress bar with Cancel
 * (Escape). A file reportlib refuses ends on the error page with its one
 * line; the window stays usable. Once loaded, the document is the
 * session's (sa-session.h), which every view binds to (sa-window.ui): the
 * timeline shows the trace, and the details' tabs (Alt+1 .. Alt+4) the
 * session's window (the marked range, the selected span, or the whole
 * trace): its Statistics, its Call Tree and Flame Graph, each computed in
 * a worker each time it changes, and the selected Span. A banner over
 * them says what a Chrome JSON import skipped. The search bar (Ctrl+F,
 * F3) selects each hit, which fills the details the same way.
 *
 * The timeline is the one view not on the session: this file keeps the
 * two in step through the timeline's public API ("view-changed",
 * "range-changed" one way; set_view, set_range, select_span the other).
 */
#include "sa-window.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-cancel.h>
#include <tilescope/tsd-settings.h>
#include <tilescope/tsd-start.h>
#include <tilescope/tsd-keys.h>

#include "sa-application.h"
#include "sa-compare.h"
#include "sa-graph-link.h"
#include "sa-keys.h"
#include "sa-overview.h"
#include "sa-recent.h"
#include "sa-reload.h"
#include "sa-calltree-view.h"
#include "sa-flame-view.h"
#include "sa-search.h"
#include "sa-span-view.h"
#include "sa-stats-view.h"
#include "sa-session.h"
#include "sa-zoom-bar.h"

struct _SaWindow {
	GtkApplicationWindow parent_instance;
	GtkStack *main_stack;
	GtkLabel *loading_title;
	GtkProgressBar *loading_progress;
	GtkLabel *loading_message;
	GtkLabel *error_message;
	GtkInfoBar *skipped_bar;
	GtkLabel *skipped_label;
	GtkHeaderBar *header;
	GtkPaned *paned;
	GtkNotebook *details;
	SaTimeline *timeline;
	SaOverview *overview;
	SaZoomBar *zoom_bar;
	GMenu *recent_menu;
	GtkListBox *recent_list;          /* the start page's */
	GtkWidget *recent_label;
	GtkListBox *samples_list;
	GtkWidget *samples_label;
	SaSearchBar *search_bar;

	SaSession *session;               /* what the user looks at: the document and more */
	GCancellable *load_cancellable;   /* the load in progress, or NULL */
	GtkFileChooserNative *chooser;
	const char *page_before_load;     /* the page Cancel goes back to */
	/* Compare, reload and recent files (sa-compare.c, sa-reload.c, sa-recent.c). */
	SaCompare *compare;
	SaReload *reload;
	SaRecent *recent;
	GSettings *settings;               /* what is remembered (tsd-settings.h), or NULL */
};

G_DEFINE_FINAL_TYPE(SaWindow, sa_window, GTK_TYPE_APPLICATION_WINDOW)

static void update_actions(SaWindow *self)
{
	SaDocument *doc = sa_session_get_document(self->session);

	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.cancel-load",
	                              self->load_cancellable != NULL);
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.find", doc != NULL);
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.find-next", doc != NULL);
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.find-previous", doc != NULL);
}

/* --- The timeline and the session ----------------------------------------------------- */

/* The timeline's view moved: the session's too. */
static void on_view_changed(SaTimeline *timeline, gpointer data)
{
	int64_t from, to;

	sa_timeline_get_view(timeline, &from, &to);
	sa_session_set_view(SA_WINDOW(data)->session, from, to);
}

/* The timeline's marked range or selection changed: the session's too,
 * notified together. (sa_timeline_get_range says the marked range, else
 * the selected span's extent: an extent equal to the selection's is no
 * mark.) */
static void on_range_changed(SaTimeline *timeline, gpointer data)
{
	SaSession *session = SA_WINDOW(data)->session;
	tsr_trace_item span;
	size_t thread;
	int64_t from, to;
	gboolean selected = sa_timeline_get_selection(timeline, &thread, &span);
	gboolean marked = sa_timeline_get_range(timeline, &from, &to);

	if (selected && marked && from == span.start_ns &&
	    to == MAX(span.end_ns, span.start_ns + 1))
		marked = FALSE;
	g_object_freeze_notify(G_OBJECT(session));
	sa_session_set_range(session, marked ? from : 0, marked ? to : 0);
	if (selected)
		sa_session_set_selection(session, thread, &span);
	else
		sa_session_clear_selection(session);
	g_object_thaw_notify(G_OBJECT(session));
}

/* The session's view was set (the overview, a reload): the timeline
 * shows it, and the session takes it back as the timeline clamps it to
 * the trace. */
static void on_session_view(SaSession *session, GParamSpec *pspec, gpointer data)
{
	SaWindow *self = data;
	int64_t from, to, tl_from, tl_to;

	(void)pspec;
	sa_session_get_view(session, &from, &to);
	sa_timeline_get_view(self->timeline, &tl_from, &tl_to);
	if (!sa_session_get_document(session) || (from == tl_from && to == tl_to))
		return;
	sa_timeline_set_view(self->timeline, from, to);
	sa_timeline_get_view(self->timeline, &tl_from, &tl_to);
	sa_session_set_view(session, tl_from, tl_to);
}

/* The session's marked range was set (a reload): the timeline marks it. */
static void on_session_range(SaSession *session, GParamSpec *pspec, gpointer data)
{
	SaWindow *self = data;
	int64_t from, to;

	(void)pspec;
	if (!sa_session_get_document(session))
		return;
	sa_session_get_range(session, &from, &to);
	sa_timeline_set_range(self->timeline, from, to);
}

/* A span selected elsewhere (a search hit, a parent or child in the Span
 * tab): the timeline selects it and brings it into view. */
static void on_session_selection(SaSession *session, GParamSpec *pspec, gpointer data)
{
	SaWindow *self = data;
	tsr_trace_item span, shown;
	size_t thread, shown_thread;

	(void)pspec;
	if (!sa_session_get_selection(session, &thread, &span))
		return;
	if (sa_timeline_get_selection(self->timeline, &shown_thread, &shown) &&
	    shown_thread == thread && shown.seq == span.seq && shown.start_ns == span.start_ns)
		return;
	sa_timeline_select_span(self->timeline, thread, &span);
}

/* Shows `doc` (NULL: none) in the session and the timeline. */
static void set_document(SaWindow *self, SaDocument *doc)
{
	sa_session_set_document(self->session, doc);
	gtk_window_set_title(GTK_WINDOW(self), doc ? sa_document_get_title(doc) : "System Analyser");
	sa_timeline_set_document(self->timeline, doc);
}

/* --- What the import skipped ------------------------------------------------------------ */

/* The banner over the timeline says what the document's Chrome JSON
 * imports left out (sa_document_get_skipped), so that a person does not
 * take 250 spans for the file's 10,000; a document that skipped nothing
 * hides it. Closing it hides it until the next load or reload. */
static void update_skipped(SaWindow *self)
{
	SaDocument *doc = sa_session_get_document(self->session);
	const char *text = doc ? sa_document_get_skipped(doc) : NULL;

	gtk_label_set_text(self->skipped_label, text ? text : "");
	gtk_accessible_update_property(GTK_ACCESSIBLE(self->skipped_bar),
	                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text ? text : "", -1);
	gtk_widget_set_visible(GTK_WIDGET(self->skipped_bar), text != NULL);
}

static void on_skipped_response(GtkInfoBar *bar, int response, gpointer data)
{
	(void)data;
	if (response == GTK_RESPONSE_CLOSE)
		gtk_widget_set_visible(GTK_WIDGET(bar), FALSE);
}

/* --- Compare, reload and recent files --------------------------------------------------- */

/* A document loaded or reloaded: the recent list records it, reload
 * watches its files, a comparison waiting for it starts. */
static void document_changed(SaWindow *self)
{
	SaDocument *doc = sa_session_get_document(self->session);

	sa_recent_add_document(doc);
	sa_reload_watch(self->reload, doc);
	sa_compare_document_changed(self->compare, doc);
}

SaDocument *sa_window_get_document(SaWindow *self)
{
	return sa_session_get_document(self->session);
}

SaSession *sa_window_get_session(SaWindow *self)
{
	return self->session;
}

void sa_window_compare_with(SaWindow *self, GFile *b)
{
	sa_compare_with_file(self->compare, b);
}

void sa_window_replace_document(SaWindow *self, SaDocument *doc)
{
	SaDocument *cur = sa_session_get_document(self->session);
	const tsr_trace_info *old;
	int64_t view_from, view_to, range_from, range_to;
	g_autoptr(SaDocument) before = NULL;
	gboolean whole, ranged;

	g_return_if_fail(cur && doc);
	old = tsr_trace_get_info(sa_document_get_trace(cur));
	before = sa_document_ref(cur);
	sa_session_get_view(self->session, &view_from, &view_to);
	whole = view_from <= old->start_ns && view_to >= old->end_ns;
	/* The window the details were about stays marked (a selected span's
	 * extent too: the span itself may be gone). */
	ranged = sa_session_get_window(self->session, &range_from, &range_to);
	set_document(self, doc);
	update_skipped(self);
	if (!whole)
		sa_session_set_view(self->session, view_from, view_to);
	if (ranged)
		sa_session_set_range(self->session, range_from, range_to);
	document_changed(self);
	/* A comparison of the old document is computed again on the new one. */
	sa_compare_document_reloaded(self->compare, before, doc);
}

/* --- Loading ----------------------------------------------------------------------- */

static void on_load_progress(double fraction, const char *message, gpointer data)
{
	SaWindow *self = data;

	gtk_progress_bar_set_fraction(self->loading_progress, fraction);
	gtk_label_set_text(self->loading_message, message);
}

static void on_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
	SaWindow *self = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(SaDocument) doc = sa_document_load_finish(result, &error);

	(void)source;
	if (g_task_get_cancellable(G_TASK(result)) != self->load_cancellable) {
		g_object_unref(self);
		return;
	}
	g_clear_object(&self->load_cancellable);
	update_actions(self);
	if (!doc) {
		if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
			gtk_stack_set_visible_child_name(self->main_stack, self->page_before_load);
		} else {
			gtk_label_set_text(self->error_message, error->message);
			gtk_stack_set_visible_child_name(self->main_stack, "error");
		}
		g_object_unref(self);
		return;
	}
	set_document(self, doc);
	update_skipped(self);
	update_actions(self);
	gtk_stack_set_visible_child_name(self->main_stack, "trace");
	/* The timeline gets the height its rows want, between a quarter and
	 * two thirds of the window; the statistics the rest (unless the user
	 * chose a height: tsd-settings.h). */
	if (!tsd_settings_has_user_value(self->settings, "timeline-height")) {
		int h = gtk_widget_get_height(GTK_WIDGET(self->main_stack)), w, want = 0;

		if (h <= 0)
			gtk_window_get_default_size(GTK_WINDOW(self), &w, &h);
		gtk_widget_measure(gtk_paned_get_start_child(self->paned), GTK_ORIENTATION_VERTICAL, -1,
		                   NULL, &want, NULL, NULL);
		tsd_settings_set_paned_position(self->paned, CLAMP(want + 24, h / 4, h * 2 / 3));
	}
	gtk_widget_grab_focus(GTK_WIDGET(self->timeline));
	document_changed(self);
	g_object_unref(self);
}

void sa_window_open(SaWindow *self, GFile *const *files, guint n_files)
{
	g_autofree char *base = NULL;

	g_return_if_fail(SA_IS_WINDOW(self));
	if (n_files == 0)
		return;
	if (self->load_cancellable)
		g_cancellable_cancel(self->load_cancellable);
	else
		self->page_before_load = gtk_stack_get_visible_child_name(self->main_stack);
	g_clear_object(&self->load_cancellable);
	self->load_cancellable = g_cancellable_new();
	base = g_file_get_basename(files[0]);
	if (n_files > 1) {
		g_autofree char *t = g_strdup_printf("Opening %s and %u more", base, n_files - 1);

		gtk_label_set_text(self->loading_title, t);
	} else {
		g_autofree char *t = g_strdup_printf("Opening %s", base);

		gtk_label_set_text(self->loading_title, t);
	}
	gtk_progress_bar_set_fraction(self->loading_progress, 0);
	gtk_label_set_text(self->loading_message, "");
	gtk_stack_set_visible_child_name(self->main_stack, "loading");
	update_actions(self);
	sa_document_load_async(files, n_files, self->load_cancellable, on_load_progress,
	                       g_object_ref(self), g_object_unref, on_loaded, g_object_ref(self));
}

SaTimeline *sa_window_get_timeline(SaWindow *self)
{
	return self->timeline;
}

/* --- Actions ----------------------------------------------------------------------- */

static void cancel_load_action(GtkWidget *widget, const char *name, GVariant *param)
{
	SaWindow *self = SA_WINDOW(widget);

	(void)name;
	(void)param;
	if (self->load_cancellable)
		g_cancellable_cancel(self->load_cancellable);
}

static void on_chooser_response(GtkNativeDialog *dialog, int response, gpointer data)
{
	SaWindow *self = data;

	if (response == GTK_RESPONSE_ACCEPT) {
		g_autoptr(GListModel) files = gtk_file_chooser_get_files(GTK_FILE_CHOOSER(dialog));
		guint n = g_list_model_get_n_items(files);
		g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func(g_object_unref);

		for (guint i = 0; i < n; i++)
			g_ptr_array_add(list, g_list_model_get_item(files, i));
		if (n > 0)
			sa_window_open(self, (GFile *const *)list->pdata, n);
	}
	g_clear_object(&self->chooser);
}

void sa_window_add_trace_filters(GtkFileChooser *chooser)
{
	GtkFileFilter *traces = gtk_file_filter_new();
	GtkFileFilter *all = gtk_file_filter_new();

	gtk_file_filter_set_name(traces, "Traces (*.pvti, Chrome trace-event JSON)");
	gtk_file_filter_add_mime_type(traces, "application/x-tilescope-trace");
	gtk_file_filter_add_mime_type(traces, "application/x-chrome-trace");
	gtk_file_filter_add_pattern(traces, "*.pvti");
	gtk_file_filter_add_pattern(traces, "*.json");
	gtk_file_chooser_add_filter(chooser, traces);
	gtk_file_filter_set_name(all, "All files");
	gtk_file_filter_add_pattern(all, "*");
	gtk_file_chooser_add_filter(chooser, all);
	g_object_unref(traces);
	g_object_unref(all);
}

/* win.open (Ctrl+O): a chooser of one or several traces. */
static void open_action(GtkWidget *widget, const char *name, GVariant *param)
{
	SaWindow *self = SA_WINDOW(widget);

	(void)name;
	(void)param;
	if (self->chooser)
		return;
	self->chooser = gtk_file_chooser_native_new("Open Traces", GTK_WINDOW(self),
	                                            GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
	gtk_file_chooser_set_select_multiple(GTK_FILE_CHOOSER(self->chooser), TRUE);
	sa_window_add_trace_filters(GTK_FILE_CHOOSER(self->chooser));
	g_signal_connect(self->chooser, "response", G_CALLBACK(on_chooser_response), self);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(self->chooser));
}

/* --- Search ------------------------------------------------------------------------ */

static void find_action(GtkWidget *widget, const char *name, GVariant *param)
{
	(void)name;
	(void)param;
	sa_search_bar_start(SA_WINDOW(widget)->search_bar);
}

static void find_step_action(GtkWidget *widget, const char *name, GVariant *param)
{
	(void)param;
	sa_search_bar_step(SA_WINDOW(widget)->search_bar, g_str_equal(name, "win.find-next"));
}

/* --- The details' tabs --------------------------------------------------------------- */

/* Alt+1 .. Alt+4: Statistics, Call Tree, Flame Graph, Span. */
static void details_page_action(GtkWidget *widget, const char *name, GVariant *param)
{
	SaWindow *self = SA_WINDOW(widget);
	int page = g_variant_get_int32(param);

	(void)name;
	if (page >= 0 && page < gtk_notebook_get_n_pages(self->details))
		gtk_notebook_set_current_page(self->details, page);
}

/* Ctrl+Shift+C: a file's counters on one axis in one row, or a row each. */
static void merge_charts_action(GtkWidget *widget, const char *name, GVariant *param)
{
	SaTimeline *timeline = SA_WINDOW(widget)->timeline;

	(void)name;
	(void)param;
	sa_timeline_set_merge_charts(timeline, !sa_timeline_get_merge_charts(timeline));
}

/* --- Drag and drop --------------------------------------------------------------------- */

static gboolean on_drop(GtkDropTarget *target, const GValue *value, double x, double y,
                        gpointer data)
{
	SaWindow *self = data;
	g_autoptr(GPtrArray) list = g_ptr_array_new();
	GSList *files;

	(void)target;
	(void)x;
	(void)y;
	if (!G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST) || !g_value_get_boxed(value))
		return FALSE;
	/* Every file dropped goes onto one time axis. */
	files = gdk_file_list_get_files(g_value_get_boxed(value));
	for (GSList *l = files; l; l = l->next)
		g_ptr_array_add(list, l->data);
	g_slist_free(files);
	if (list->len == 0)
		return FALSE;
	sa_window_open(self, (GFile *const *)list->pdata, list->len);
	return TRUE;
}

/* --- Focus ------------------------------------------------------------------------- */

/* F6's regions: the header bar, the search bar while it is open, the
 * timeline's side of the split (entered at the timeline, not the zoom
 * bar's entry) and the details' tabs; on another page, that page. */
static void focus_regions(GtkWidget *widget, GPtrArray *regions, gpointer data)
{
	SaWindow *self = data;

	(void)widget;
	tsd_focus_add_region(regions, GTK_WIDGET(self->header), NULL);
	if (g_strcmp0(gtk_stack_get_visible_child_name(self->main_stack), "trace") != 0) {
		tsd_focus_add_region(regions, gtk_stack_get_visible_child(self->main_stack), NULL);
		return;
	}
	tsd_focus_add_region(regions, GTK_WIDGET(self->search_bar), NULL);
	tsd_focus_add_region(regions, gtk_paned_get_start_child(self->paned),
	                     GTK_WIDGET(self->timeline));
	tsd_focus_add_region(regions, GTK_WIDGET(self->details), NULL);
}

/* --- The start page ------------------------------------------------------------------- */

static void on_start_row_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
	GFile *file = tsd_start_row_get_file(row);

	(void)box;
	if (file)
		sa_window_open(SA_WINDOW(data), &file, 1);
}

/* A sample trace: the first .pvti (by name) of a directory of
 * sample-reports/. */
static GFile *pick_sample(GFile *dir)
{
	g_autoptr(GFileEnumerator) e = g_file_enumerate_children(dir, G_FILE_ATTRIBUTE_STANDARD_NAME,
	                                                         0, NULL, NULL);
	g_autofree char *first = NULL;
	GFileInfo *info;

	while (e && (info = g_file_enumerator_next_file(e, NULL, NULL))) {
		const char *name = g_file_info_get_name(info);

		if (g_str_has_suffix(name, ".pvti") && (!first || g_strcmp0(name, first) < 0)) {
			g_free(first);
			first = g_strdup(name);
		}
		g_object_unref(info);
	}
	return first ? g_file_get_child(dir, first) : NULL;
}

/* --- GObject ------------------------------------------------------------------------- */

static void sa_window_dispose(GObject *object)
{
	SaWindow *self = SA_WINDOW(object);

	tsd_cancel_clear(&self->load_cancellable);
	if (self->chooser)
		gtk_native_dialog_destroy(GTK_NATIVE_DIALOG(self->chooser));
	g_clear_object(&self->chooser);
	g_clear_pointer(&self->compare, sa_compare_free);
	g_clear_pointer(&self->reload, sa_reload_free);
	g_clear_pointer(&self->recent, sa_recent_free);
	g_clear_object(&self->settings);
	if (self->session)
		g_signal_handlers_disconnect_by_data(self->session, self);
	gtk_widget_dispose_template(GTK_WIDGET(self), SA_TYPE_WINDOW);
	g_clear_object(&self->session);
	G_OBJECT_CLASS(sa_window_parent_class)->dispose(object);
}

enum { PROP_0, PROP_SESSION };

static void sa_window_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	if (id == PROP_SESSION)
		g_value_set_object(value, SA_WINDOW(object)->session);
	else
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void sa_window_class_init(SaWindowClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = sa_window_dispose;
	G_OBJECT_CLASS(klass)->get_property = sa_window_get_property;
	/* The views bind to it in sa-window.ui. */
	g_object_class_install_property(
	    G_OBJECT_CLASS(klass), PROP_SESSION,
	    g_param_spec_object("session", NULL, NULL, SA_TYPE_SESSION,
	                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
	g_type_ensure(SA_TYPE_TIMELINE);
	g_type_ensure(SA_TYPE_OVERVIEW);
	g_type_ensure(SA_TYPE_ZOOM_BAR);
	g_type_ensure(SA_TYPE_STATS_VIEW);
	g_type_ensure(SA_TYPE_SEARCH_BAR);
	g_type_ensure(SA_TYPE_CALL_TREE_VIEW);
	g_type_ensure(SA_TYPE_FLAME_VIEW);
	g_type_ensure(SA_TYPE_SPAN_VIEW);
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/SystemAnalyser/sa-window.ui");
	gtk_widget_class_bind_template_child(widget_class, SaWindow, main_stack);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, header);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, paned);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, details);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, loading_title);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, loading_progress);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, loading_message);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, error_message);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, skipped_bar);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, skipped_label);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, timeline);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, overview);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, zoom_bar);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, recent_menu);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, recent_list);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, recent_label);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, samples_list);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, samples_label);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, search_bar);
	gtk_widget_class_install_action(widget_class, "win.open", NULL, open_action);
	gtk_widget_class_install_action(widget_class, "win.cancel-load", NULL, cancel_load_action);
	/* The other keys are the application's accelerators (sa-keys.c); this
	 * one must leave Escape to the widgets when nothing is loading. */
	gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "win.cancel-load",
	                                    NULL);
	/* Search: Ctrl+F, then F3 / Shift+F3 (and Ctrl+G / Shift+Ctrl+G) step. */
	gtk_widget_class_install_action(widget_class, "win.find", NULL, find_action);
	gtk_widget_class_install_action(widget_class, "win.find-next", NULL, find_step_action);
	gtk_widget_class_install_action(widget_class, "win.find-previous", NULL, find_step_action);
	gtk_widget_class_install_action(widget_class, "win.details-page", "i", details_page_action);
	gtk_widget_class_install_action(widget_class, "win.merge-charts", NULL, merge_charts_action);
}

static void sa_window_init(SaWindow *self)
{
	GtkDropTarget *drop;
	size_t n_keys;
	const TsdKey *keys = sa_keys(&n_keys);

	/* Before the template: its views bind to it. */
	self->session = sa_session_new();
	gtk_widget_init_template(GTK_WIDGET(self));
	/* Every accelerator comes from sa-keys.c (the application installs
	 * them), and so does the Keyboard Shortcuts window. */
	tsd_keys_set_help_overlay(GTK_APPLICATION_WINDOW(self), keys, n_keys);
	tsd_focus_install(GTK_APPLICATION_WINDOW(self), focus_regions, self);
	self->page_before_load = "start";
	/* GTK 4.8 names a notebook's tabs "Tab" for assistive technology. */
	tsd_a11y_name_tabs(self->details);
	/* The timeline and the session in step, both ways. */
	g_signal_connect(self->timeline, "view-changed", G_CALLBACK(on_view_changed), self);
	g_signal_connect(self->timeline, "range-changed", G_CALLBACK(on_range_changed), self);
	g_signal_connect(self->session, "notify::view-from", G_CALLBACK(on_session_view), self);
	g_signal_connect(self->session, "notify::view-to", G_CALLBACK(on_session_view), self);
	g_signal_connect(self->session, "notify::range-from", G_CALLBACK(on_session_range), self);
	g_signal_connect(self->session, "notify::range-to", G_CALLBACK(on_session_range), self);
	g_signal_connect(self->session, "notify::selected-span", G_CALLBACK(on_session_selection),
	                 self);
	g_object_bind_property(self->session, "wall-clock", self->timeline, "wall-clock",
	                       G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
	sa_graph_link_attach(GTK_APPLICATION_WINDOW(self), self->session, self->header);
	sa_zoom_bar_set_timeline(self->zoom_bar, self->timeline);
	g_signal_connect(self->skipped_bar, "response", G_CALLBACK(on_skipped_response), self);
	tsd_a11y_name_close_button(GTK_WIDGET(self->skipped_bar));
	/* Empty until a load or an error fills them (and on a hidden page,
	 * which GTK 4.8 still shows to assistive technology). */
	tsd_a11y_quiet_when_empty(self->loading_title);
	tsd_a11y_quiet_when_empty(self->loading_message);
	tsd_a11y_quiet_when_empty(self->error_message);
	drop = gtk_drop_target_new(GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
	g_signal_connect(drop, "drop", G_CALLBACK(on_drop), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drop));
	update_actions(self);
	self->compare = sa_compare_new(self, self->details);
	self->reload = sa_reload_new(self, self->header);
	self->recent = sa_recent_new(self, self->recent_menu);
	/* The start page: the traces opened lately (sa-recent.c records them)
	 * and the samples. */
	{
		static const char *const mime_types[] = {"application/x-tilescope-trace",
		                                         "inode/directory", NULL};

		tsd_start_list_recent(self->recent_list, self->recent_label, mime_types,
		                      g_get_application_name(), 8);
		tsd_start_list_samples(self->samples_list, self->samples_label, pick_sample);
		g_signal_connect(self->recent_list, "row-activated", G_CALLBACK(on_start_row_activated),
		                 self);
		g_signal_connect(self->samples_list, "row-activated",
		                 G_CALLBACK(on_start_row_activated), self);
	}
	/* What the last window left (tsd-settings.h): its size, the split
	 * between the timeline and the details, and the details' tab. */
	self->settings = tsd_settings_new(SA_SETTINGS_ID);
	tsd_settings_remember_window(GTK_WINDOW(self), self->settings);
	tsd_settings_remember_paned(self->paned, self->settings, "timeline-height");
	tsd_settings_remember_notebook(self->details, self->settings, "details-page");
}

SaWindow *sa_window_new(GtkApplication *app)
{
	return g_object_new(SA_TYPE_WINDOW, "application", app, NULL);
}
