/*
 * The System Analyser's window (sa-window.h), on the shell both apps
 * share (tsd-window.h: the start, loading and error pages, the ways files
 * arrive, watching them). Several files open at once onto one time axis,
 * loaded in a worker (sa_document_load_async). Once loaded, the document is the
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
 *
 * Reload: a trace still being written grows (its writer flushes into
 * <name>.pvti-wal until it closes), and a file can be replaced whole.
 * When the shell says the files changed (debounced), or on Ctrl+R, they
 * load again in a worker while the old document stays shown; the new one
 * replaces it keeping the visible window (or the whole trace, when the
 * whole old trace was in view) and the marked range. A change during a
 * reload reads the files once more after it. The outcome is a notice in
 * the header bar, "Reloaded at …" or "Reload failed at …"; a failed
 * reload keeps the old document.
 */
#include "sa-window.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-cancel.h>
#include <tilescope/tsd-settings.h>

#include "sa-application.h"
#include "sa-compare.h"
#include "sa-compare-view.h"
#include "sa-format.h"
#include "sa-graph-link.h"
#include "sa-keys.h"
#include "sa-overview.h"
#include "sa-calltree-view.h"
#include "sa-flame-view.h"
#include "sa-search.h"
#include "sa-span-view.h"
#include "sa-stats-view.h"
#include "sa-session.h"
#include "sa-zoom-bar.h"

struct _SaWindow {
	TsdWindow parent_instance;
	GtkInfoBar *skipped_bar;
	GtkLabel *skipped_label;
	GtkPaned *paned;
	GtkNotebook *details;
	SaTimeline *timeline;
	SaOverview *overview;
	SaZoomBar *zoom_bar;
	SaSearchBar *search_bar;
	GtkLabel *reload_notice;          /* in the header bar */
	GtkWidget *graph_button;          /* "Open in Graph Analyser" (sa-graph-link.h) */

	SaSession *session;               /* what the user looks at: the document and more */
	SaCompare *compare;               /* sa-compare.c */
	GCancellable *reload_cancel;      /* the reload in flight, or NULL */
	gboolean reload_again;            /* the files changed while it ran */
};

G_DEFINE_FINAL_TYPE(SaWindow, sa_window, TSD_TYPE_WINDOW)

static void update_actions(TsdWindow *win)
{
	SaWindow *self = SA_WINDOW(win);
	SaDocument *doc = sa_session_get_document(self->session);

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

	if (!sa_session_get_selection(session, &thread, &span))
		return;
	if (sa_timeline_get_selection(self->timeline, &shown_thread, &shown) &&
	    shown_thread == thread && shown.seq == span.seq && shown.start_ns == span.start_ns)
		return;
	sa_timeline_select_span(self->timeline, thread, &span);
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
	if (response == GTK_RESPONSE_CLOSE)
		gtk_widget_set_visible(GTK_WIDGET(bar), FALSE);
}

/* Shows `doc` in the session and the timeline (and what its import
 * skipped), its files watched and recent. */
static void set_document(SaWindow *self, SaDocument *doc)
{
	sa_session_set_document(self->session, doc);
	sa_timeline_set_document(self->timeline, doc);
	update_skipped(self);
	tsd_window_show_document(TSD_WINDOW(self), sa_document_get_title(doc),
	                         sa_document_get_paths(doc));
}

/* --- Compare and reload ------------------------------------------------------------- */

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

/* Shows `doc`, a reload of the document shown, in its place. */
static void replace_document(SaWindow *self, SaDocument *doc)
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
	if (!whole)
		sa_session_set_view(self->session, view_from, view_to);
	if (ranged)
		sa_session_set_range(self->session, range_from, range_to);
	sa_compare_document_changed(self->compare, doc);
	/* A comparison of the old document is computed again on the new one. */
	sa_compare_document_reloaded(self->compare, before, doc);
}

static void set_notice(SaWindow *self, const char *text)
{
	gtk_label_set_text(self->reload_notice, text);
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->reload_notice), text);
	gtk_widget_set_visible(GTK_WIDGET(self->reload_notice), TRUE);
}

static void reload(TsdWindow *win);

static void on_reloaded(GObject *source, GAsyncResult *result, gpointer data)
{
	g_autoptr(SaWindow) self = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(SaDocument) doc = sa_document_load_finish(result, &error);
	g_autoptr(GDateTime) now = g_date_time_new_now_local();
	g_autofree char *clock = g_date_time_format(now, "%H:%M:%S");
	g_autofree char *text = NULL;
	SaDocument *old = sa_session_get_document(self->session);

	if (g_task_get_cancellable(G_TASK(result)) != self->reload_cancel)
		return;
	g_clear_object(&self->reload_cancel);
	if (doc) {
		uint64_t spans = tsr_trace_get_info(sa_document_get_trace(doc))->events;
		uint64_t old_spans = tsr_trace_get_info(sa_document_get_trace(old))->events;
		g_autofree char *n = sa_format_count(spans);
		g_autofree char *d = sa_format_count(spans > old_spans ? spans - old_spans
		                                                       : old_spans - spans);

		text = g_strdup_printf("Reloaded at %s: %s spans (%s%s)", clock, n,
		                       spans >= old_spans ? "+" : "−", d);
		replace_document(self, doc);
	} else {
		text = g_strdup_printf("Reload failed at %s: %s", clock, error->message);
	}
	set_notice(self, text);
	if (self->reload_again) {
		self->reload_again = FALSE;
		reload(TSD_WINDOW(self));
	}
}

/* Loads the document's files again in a worker (the window keeps showing
 * the old document meanwhile); Ctrl+R, and the files changed. */
static void reload(TsdWindow *win)
{
	SaWindow *self = SA_WINDOW(win);
	const char *const *paths = sa_document_get_paths(sa_session_get_document(self->session));
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_object_unref);

	/* A load of other files replaces the document anyway. */
	if (tsd_window_is_loading(win))
		return;
	if (self->reload_cancel) {
		self->reload_again = TRUE;
		return;
	}
	for (const char *const *p = paths; p && *p; p++)
		g_ptr_array_add(files, g_file_new_for_path(*p));
	self->reload_cancel = g_cancellable_new();
	set_notice(self, "Reloading…");
	sa_document_load_async((GFile *const *)files->pdata, files->len, self->reload_cancel, NULL,
	                       NULL, NULL, on_reloaded, g_object_ref(self));
}

/* --- Loading ----------------------------------------------------------------------- */

static void on_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
	g_autoptr(SaWindow) self = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(SaDocument) doc = sa_document_load_finish(result, &error);
	GSettings *settings = tsd_window_get_settings(TSD_WINDOW(self));

	if (!tsd_window_load_is_current(TSD_WINDOW(self), g_task_get_cancellable(G_TASK(result))))
		return;
	if (!doc) {
		tsd_window_load_failed(TSD_WINDOW(self),
		                       g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)
		                           ? NULL
		                           : error->message);
		return;
	}
	/* Other files now: a reload of the old ones must not replace them. */
	tsd_cancel_clear(&self->reload_cancel);
	self->reload_again = FALSE;
	set_document(self, doc);
	/* The timeline gets the height its rows want, between a quarter and
	 * two thirds of the window; the statistics the rest (unless the user
	 * chose a height: tsd-settings.h). */
	if (!tsd_settings_has_user_value(settings, "timeline-height")) {
		int h = gtk_widget_get_height(GTK_WIDGET(tsd_window_get_main_stack(TSD_WINDOW(self)))), w,
		    want = 0;

		if (h <= 0)
			gtk_window_get_default_size(GTK_WINDOW(self), &w, &h);
		gtk_widget_measure(gtk_paned_get_start_child(self->paned), GTK_ORIENTATION_VERTICAL, -1,
		                   NULL, &want, NULL, NULL);
		tsd_settings_set_paned_position(self->paned, CLAMP(want + 24, h / 4, h * 2 / 3));
	}
	gtk_widget_grab_focus(GTK_WIDGET(self->timeline));
	sa_compare_document_changed(self->compare, doc);
}

void sa_window_open(SaWindow *self, GFile *const *files, guint n_files)
{
	GCancellable *cancellable;

	g_return_if_fail(SA_IS_WINDOW(self));
	if (n_files == 0)
		return;
	cancellable = tsd_window_begin_load(TSD_WINDOW(self), files, n_files, NULL);
	sa_document_load_async(files, n_files, cancellable, tsd_window_load_progress,
	                       g_object_ref(self), g_object_unref, on_loaded, g_object_ref(self));
}

static void open_files(TsdWindow *win, GFile *const *files, guint n)
{
	sa_window_open(SA_WINDOW(win), files, n);
}

/* --- Search ------------------------------------------------------------------------ */

static void find_action(GtkWidget *widget, const char *name, GVariant *param)
{
	sa_search_bar_start(SA_WINDOW(widget)->search_bar);
}

static void find_step_action(GtkWidget *widget, const char *name, GVariant *param)
{
	sa_search_bar_step(SA_WINDOW(widget)->search_bar, g_str_equal(name, "win.find-next"));
}

/* --- The details' tabs --------------------------------------------------------------- */

/* Alt+1 .. Alt+4: Statistics, Call Tree, Flame Graph, Span. */
static void details_page_action(GtkWidget *widget, const char *name, GVariant *param)
{
	SaWindow *self = SA_WINDOW(widget);
	int page = g_variant_get_int32(param);

	if (page >= 0 && page < gtk_notebook_get_n_pages(self->details))
		gtk_notebook_set_current_page(self->details, page);
}

/* Ctrl+Shift+C: a file's counters on one axis in one row, or a row each. */
static void merge_charts_action(GtkWidget *widget, const char *name, GVariant *param)
{
	SaTimeline *timeline = SA_WINDOW(widget)->timeline;

	sa_timeline_set_merge_charts(timeline, !sa_timeline_get_merge_charts(timeline));
}

/* "Open in Graph Analyser" (Alt+G, its mnemonic: sa-keys.c) for the
 * selected span's report. */
static void update_graph_link(SaWindow *self)
{
	sa_graph_link_update(GTK_WIDGET(self), self->graph_button, self->session);
}

static void graph_link_action(GtkWidget *widget, const char *name, GVariant *param)
{
	SaWindow *self = SA_WINDOW(widget);

	sa_graph_link_open(widget, self->graph_button, self->session);
}

/* --- Focus ------------------------------------------------------------------------- */

/* F6's regions on a trace: the search bar while it is open, the
 * timeline's side of the split (entered at the timeline, not the zoom
 * bar's entry) and the details' tabs. */
static void document_regions(TsdWindow *win, GPtrArray *regions)
{
	SaWindow *self = SA_WINDOW(win);

	tsd_focus_add_region(regions, GTK_WIDGET(self->search_bar), NULL);
	tsd_focus_add_region(regions, gtk_paned_get_start_child(self->paned),
	                     GTK_WIDGET(self->timeline));
	tsd_focus_add_region(regions, GTK_WIDGET(self->details), NULL);
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

	tsd_cancel_clear(&self->reload_cancel);
	g_clear_pointer(&self->compare, sa_compare_free);
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

static const char *const sa_types[] = {"application/x-tilescope-trace", "inode/directory",
                                       NULL};
static const char *const sa_filter[] = {"application/x-tilescope-trace",
                                        "application/x-chrome-trace", "*.pvti", "*.json", NULL};
static const TsdWindowInfo sa_window_info = {
	.settings_id = SA_SETTINGS_ID,
	.keys = sa_keys,
	.open_title = "Open Traces",
	.open_multiple = TRUE,
	.filter_name = "Traces (*.pvti, Chrome trace-event JSON)",
	.filter = sa_filter,
	.recent_types = sa_types,
	.pick_sample = pick_sample,
	.open = open_files,
	.reload = reload,
	.files_changed = reload,
	.document_regions = document_regions,
	.update_actions = update_actions,
};

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
	g_type_ensure(SA_TYPE_COMPARE_VIEW);
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/SystemAnalyser/sa-window.ui");
	tsd_window_class_bind_template(widget_class);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, paned);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, details);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, skipped_bar);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, skipped_label);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, timeline);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, overview);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, zoom_bar);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, search_bar);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, reload_notice);
	gtk_widget_class_bind_template_child(widget_class, SaWindow, graph_button);
	sa_compare_bind_template(widget_class);
	TSD_WINDOW_CLASS(klass)->info = &sa_window_info;
	/* Search: Ctrl+F, then F3 / Shift+F3 (and Ctrl+G / Shift+Ctrl+G) step. */
	gtk_widget_class_install_action(widget_class, "win.find", NULL, find_action);
	gtk_widget_class_install_action(widget_class, "win.find-next", NULL, find_step_action);
	gtk_widget_class_install_action(widget_class, "win.find-previous", NULL, find_step_action);
	gtk_widget_class_install_action(widget_class, "win.details-page", "i", details_page_action);
	gtk_widget_class_install_action(widget_class, "win.merge-charts", NULL, merge_charts_action);
	gtk_widget_class_install_action(widget_class, "win.open-in-graph-analyser", NULL,
	                                graph_link_action);
}

static void sa_window_init(SaWindow *self)
{
	GSettings *settings;

	/* Before the template: its views bind to it. */
	self->session = sa_session_new();
	gtk_widget_init_template(GTK_WIDGET(self));
	self->compare = sa_compare_new(self, self->details);
	tsd_window_setup(TSD_WINDOW(self));
	settings = tsd_window_get_settings(TSD_WINDOW(self));
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
	g_signal_connect_swapped(self->session, "notify::document", G_CALLBACK(update_graph_link),
	                         self);
	g_signal_connect_swapped(self->session, "notify::selected-span",
	                         G_CALLBACK(update_graph_link), self);
	update_graph_link(self);
	sa_zoom_bar_set_timeline(self->zoom_bar, self->timeline);
	g_signal_connect(self->skipped_bar, "response", G_CALLBACK(on_skipped_response), self);
	tsd_a11y_name_close_button(GTK_WIDGET(self->skipped_bar));
	/* What the last window left (tsd-settings.h): besides its size, the
	 * split between the timeline and the details, and the details' tab. */
	tsd_settings_remember_paned(self->paned, settings, "timeline-height");
	tsd_settings_remember_notebook(self->details, settings, "details-page");
}

SaWindow *sa_window_new(GtkApplication *app)
{
	return g_object_new(SA_TYPE_WINDOW, "application", app, NULL);
}
