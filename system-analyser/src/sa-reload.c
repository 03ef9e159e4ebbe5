/*
 * Reload (sa-reload.h). The monitors only start a timer; the timer starts
 * a load; a load completing hands its document to the window. A change
 * arriving while a load runs marks the load stale: when it completes,
 * another one starts, so the last change is always read.
 */
#include "sa-reload.h"

#include <tilescope/tsd-cancel.h>

#include "sa-format.h"
#include "sa-window.h"

/* A reload starts this long after the last change... */
#define QUIET_MS 500
/* ...or this long after the first of a stream of changes. */
#define MAX_WAIT_US (2 * G_USEC_PER_SEC)

struct _SaReload {
	SaWindow *win;             /* owns us */
	GtkWidget *notice;         /* a label in the header bar */
	GSimpleActionGroup *actions;
	GPtrArray *monitors;       /* GFileMonitor */
	char **paths;              /* what the monitors watch for: the document's paths */
	guint timer;               /* the debounce timeout, 0: none */
	gint64 first_change;       /* monotonic µs of the first change since the last load */
	GCancellable *cancel;      /* the reload in progress, or NULL */
	gboolean again;            /* something changed while it ran */
};

static void start_reload(SaReload *self);

static void set_notice(SaReload *self, const char *text)
{
	gtk_label_set_text(GTK_LABEL(self->notice), text);
	gtk_widget_set_tooltip_text(self->notice, text);
	gtk_widget_set_visible(self->notice, text && *text);
}

/* --- The load -------------------------------------------------------------------------- */

/* A callback's view of the reload it belongs to. */
typedef struct reload_ref {
	SaReload *self;            /* valid while `cancel` is not cancelled */
	GCancellable *cancel;
	uint64_t old_spans;
} reload_ref;

static void on_reloaded(GObject *source, GAsyncResult *result, gpointer data)
{
	reload_ref *r = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(SaDocument) doc = sa_document_load_finish(result, &error);
	SaReload *self = r->self;
	g_autoptr(GDateTime) now = g_date_time_new_now_local();
	g_autofree char *clock = g_date_time_format(now, "%H:%M:%S");

	(void)source;
	if (g_cancellable_is_cancelled(r->cancel)) {
		g_object_unref(r->cancel);
		g_free(r);
		return;
	}
	g_clear_object(&self->cancel);
	if (doc) {
		uint64_t spans = tsr_trace_get_info(sa_document_get_trace(doc))->events;
		g_autofree char *n = sa_format_count(spans);
		g_autofree char *d = sa_format_count(spans > r->old_spans ? spans - r->old_spans
		                                                          : r->old_spans - spans);
		g_autofree char *text = g_strdup_printf("Reloaded at %s: %s spans (%s%s)", clock, n,
		                                        spans >= r->old_spans ? "+" : "−", d);

		sa_window_replace_document(self->win, doc);
		set_notice(self, text);
	} else {
		g_autofree char *text = g_strdup_printf("Reload failed at %s: %s", clock,
		                                        error->message);

		set_notice(self, text);
	}
	g_object_unref(r->cancel);
	g_free(r);
	if (self->again) {
		self->again = FALSE;
		start_reload(self);
	}
}

/* Loads the watched paths again in a worker (the window keeps showing
 * the old document meanwhile). */
static void start_reload(SaReload *self)
{
	SaDocument *cur = sa_window_get_document(self->win);
	g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_object_unref);
	reload_ref *r;

	if (!self->paths || !self->paths[0])
		return;
	if (self->cancel) {
		self->again = TRUE;
		return;
	}
	self->first_change = 0;
	for (char **p = self->paths; *p; p++)
		g_ptr_array_add(files, g_file_new_for_path(*p));
	self->cancel = g_cancellable_new();
	r = g_new0(reload_ref, 1);
	r->self = self;
	r->cancel = g_object_ref(self->cancel);
	r->old_spans = cur ? tsr_trace_get_info(sa_document_get_trace(cur))->events : 0;
	set_notice(self, "Reloading…");
	sa_document_load_async((GFile *const *)files->pdata, files->len, self->cancel, NULL, NULL,
	                       NULL, on_reloaded, r);
}

/* --- Watching ---------------------------------------------------------------------------- */

static gboolean on_quiet(gpointer data)
{
	SaReload *self = data;

	self->timer = 0;
	start_reload(self);
	return G_SOURCE_REMOVE;
}

static void on_changed(GFileMonitor *monitor, GFile *file, GFile *other, GFileMonitorEvent event,
                       gpointer data)
{
	SaReload *self = data;
	gint64 now = g_get_monotonic_time();

	(void)monitor;
	(void)file;
	(void)other;
	if (event == G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED ||
	    event == G_FILE_MONITOR_EVENT_PRE_UNMOUNT || event == G_FILE_MONITOR_EVENT_UNMOUNTED)
		return;
	if (!self->first_change)
		self->first_change = now;
	/* Quiet for QUIET_MS, unless changes have kept coming for MAX_WAIT_US:
	 * then let the running timer fire. */
	if (self->timer && now - self->first_change >= MAX_WAIT_US)
		return;
	if (self->timer)
		g_source_remove(self->timer);
	self->timer = g_timeout_add(QUIET_MS, on_quiet, self);
}

static void watch(SaReload *self, GFile *file, gboolean directory)
{
	g_autoptr(GError) error = NULL;
	GFileMonitor *m = directory ? g_file_monitor_directory(file, G_FILE_MONITOR_NONE, NULL, &error)
	                            : g_file_monitor_file(file, G_FILE_MONITOR_NONE, NULL, &error);

	/* No monitor (a file system without notifications): Ctrl+R still
	 * reloads. */
	if (!m)
		return;
	g_signal_connect(m, "changed", G_CALLBACK(on_changed), self);
	g_ptr_array_add(self->monitors, m);
}

static void unwatch(SaReload *self)
{
	for (guint i = 0; i < self->monitors->len; i++) {
		GFileMonitor *m = self->monitors->pdata[i];

		g_signal_handlers_disconnect_by_data(m, self);
		g_file_monitor_cancel(m);
	}
	g_ptr_array_set_size(self->monitors, 0);
	if (self->timer)
		g_source_remove(self->timer);
	self->timer = 0;
	self->first_change = 0;
}

void sa_reload_watch(SaReload *self, SaDocument *doc)
{
	const char *const *paths = doc ? sa_document_get_paths(doc) : NULL;

	if (!self)
		return;
	unwatch(self);
	/* Other files now: a reload of the old ones must not replace them. */
	if (!paths || !self->paths ||
	    !g_strv_equal((const char *const *)self->paths, paths)) {
		tsd_cancel_clear(&self->cancel);
		self->again = FALSE;
	}
	g_clear_pointer(&self->paths, g_strfreev);
	if (!paths)
		return;
	self->paths = g_strdupv((char **)paths);
	for (const char *const *p = paths; *p; p++) {
		g_autoptr(GFile) f = g_file_new_for_path(*p);

		if (g_file_test(*p, G_FILE_TEST_IS_DIR)) {
			watch(self, f, TRUE);
		} else {
			g_autofree char *wal = g_strconcat(*p, "-wal", NULL);
			g_autoptr(GFile) w = g_file_new_for_path(wal);

			watch(self, f, FALSE);
			watch(self, w, FALSE);
		}
	}
}

/* --- Set-up ------------------------------------------------------------------------------- */

static void now_action(GSimpleAction *action, GVariant *param, gpointer data)
{
	SaReload *self = data;

	(void)action;
	(void)param;
	if (!sa_window_get_document(self->win)) {
		set_notice(self, "Nothing to reload: no trace is open");
		return;
	}
	if (self->timer)
		g_source_remove(self->timer);
	self->timer = 0;
	start_reload(self);
}

SaReload *sa_reload_new(SaWindow *win, GtkHeaderBar *header)
{
	static const GActionEntry entries[] = {
		{"now", now_action, NULL, NULL, NULL, {0}},
	};
	SaReload *self = g_new0(SaReload, 1);

	self->win = win;
	self->monitors = g_ptr_array_new_with_free_func(g_object_unref);
	self->notice = gtk_label_new("");
	gtk_widget_add_css_class(self->notice, "caption");
	gtk_widget_add_css_class(self->notice, "dim-label");
	gtk_label_set_ellipsize(GTK_LABEL(self->notice), PANGO_ELLIPSIZE_END);
	gtk_label_set_max_width_chars(GTK_LABEL(self->notice), 48);
	gtk_widget_set_visible(self->notice, FALSE);
	gtk_header_bar_pack_end(header, self->notice);
	self->actions = g_simple_action_group_new();
	g_action_map_add_action_entries(G_ACTION_MAP(self->actions), entries,
	                                G_N_ELEMENTS(entries), self);
	gtk_widget_insert_action_group(GTK_WIDGET(win), "reload", G_ACTION_GROUP(self->actions));
	/* Ctrl+R is in the app's key table (sa-keys.c). */
	return self;
}

void sa_reload_free(SaReload *self)
{
	if (!self)
		return;
	unwatch(self);
	g_ptr_array_unref(self->monitors);
	tsd_cancel_clear(&self->cancel);
	g_clear_pointer(&self->paths, g_strfreev);
	g_clear_object(&self->actions);
	g_free(self);
}
