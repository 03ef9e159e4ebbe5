/*
 * The window shell (tsd-window.h). The shell owns the pages around the
 * document and the paths by which files reach the app; the app says what
 * opening means (TsdWindowClass.open) and fills the document page. A
 * change on disk starts a timer, restarted by each change for half a
 * second but firing at most two seconds after the first, so that a file
 * being written is told once it settles, or every two seconds while it
 * keeps growing.
 */
#include <tilescope/tsd-window.h>

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-cancel.h>
#include <tilescope/tsd-settings.h>

#include <string.h>

/* Told this long after the last change... */
#define QUIET_MS 500
/* ...or this long after the first of a stream of changes. */
#define MAX_WAIT_US (2 * G_USEC_PER_SEC)
/* The Open Recent menu's length. */
#define RECENT_ITEMS 10

typedef struct {
	GtkStack *main_stack;
	GtkWidget *header;
	GtkLabel *loading_title;
	GtkProgressBar *loading_progress;
	GtkLabel *loading_message;
	GtkLabel *error_message;
	GtkListBox *recent_list;
	GtkWidget *recent_label;
	GtkListBox *samples_list;
	GtkWidget *samples_label;
	GMenu *recent_menu;

	GCancellable *cancellable; /* the load in flight, or NULL */
	GPtrArray *loading;        /* GFile: its files */
	GPtrArray *failed;         /* GFile: the files the error page is about (Try Again) */
	gboolean shown;            /* a document is on the document page */
	const char *page_before;   /* the page a cancelled load goes back to */
	GtkFileChooserNative *chooser;
	TsdWindowChosen chosen;    /* what the chooser's files go to */
	GSettings *settings;
	GPtrArray *monitors;       /* GFileMonitor of the shown files */
	guint timer;               /* the debounce timeout, 0: none */
	gint64 first_change;       /* monotonic µs of the first change it waits out */
} TsdWindowPrivate;

G_DEFINE_TYPE_WITH_PRIVATE(TsdWindow, tsd_window, GTK_TYPE_APPLICATION_WINDOW)

#define PRIV(self) ((TsdWindowPrivate *)tsd_window_get_instance_private(TSD_WINDOW(self)))
#define INFO(self) (TSD_WINDOW_GET_CLASS(self)->info)

static void open_files(TsdWindow *self, GFile *const *files, guint n)
{
	if (n > 0)
		INFO(self)->open(self, files, n);
}

static void update_actions(TsdWindow *self)
{
	TsdWindowPrivate *p = PRIV(self);

	/* Reload retries a load that failed as well: the file may be
	 * readable now (a model was rewriting it, say). */
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.reload",
	                              (p->shown || p->failed->len) && !p->cancellable);
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.cancel-load", p->cancellable != NULL);
	if (INFO(self)->update_actions)
		INFO(self)->update_actions(self);
}

/* --- Loading ---------------------------------------------------------------------------- */

GCancellable *tsd_window_begin_load(TsdWindow *self, GFile *const *files, guint n,
                                    const char *heading)
{
	TsdWindowPrivate *p = PRIV(self);
	g_autofree char *base = g_file_get_basename(files[0]);
	g_autofree char *text = n > 1 ? g_strdup_printf("Opening %s and %u more", base, n - 1)
	                              : g_strdup_printf("Opening %s", base);

	if (!p->cancellable)
		p->page_before = gtk_stack_get_visible_child_name(p->main_stack);
	tsd_cancel_clear(&p->cancellable);
	p->cancellable = g_cancellable_new();
	g_ptr_array_set_size(p->loading, 0);
	for (guint i = 0; i < n; i++)
		g_ptr_array_add(p->loading, g_object_ref(files[i]));
	gtk_label_set_text(p->loading_title, heading ? heading : text);
	gtk_progress_bar_set_fraction(p->loading_progress, 0);
	gtk_label_set_text(p->loading_message, "");
	gtk_stack_set_visible_child_name(p->main_stack, "loading");
	update_actions(self);
	return p->cancellable;
}

void tsd_window_load_progress(double fraction, const char *message, gpointer data)
{
	TsdWindowPrivate *p = PRIV(data);

	gtk_progress_bar_set_fraction(p->loading_progress, fraction);
	gtk_label_set_text(p->loading_message, message ? message : "");
}

gboolean tsd_window_load_is_current(TsdWindow *self, GCancellable *cancellable)
{
	return cancellable && PRIV(self)->cancellable == cancellable;
}

void tsd_window_load_failed(TsdWindow *self, const char *message)
{
	TsdWindowPrivate *p = PRIV(self);
	GPtrArray *swap = p->failed;

	g_clear_object(&p->cancellable);
	p->failed = p->loading;
	p->loading = swap;
	g_ptr_array_set_size(p->loading, 0);
	if (message)
		gtk_label_set_text(p->error_message, message);
	gtk_stack_set_visible_child_name(p->main_stack, message ? "error" : p->page_before);
	update_actions(self);
}

/* --- Watching ---------------------------------------------------------------------------- */

static gboolean on_quiet(gpointer data)
{
	TsdWindow *self = data;

	PRIV(self)->timer = 0;
	PRIV(self)->first_change = 0;
	INFO(self)->files_changed(self);
	return G_SOURCE_REMOVE;
}

static void on_file_changed(GFileMonitor *monitor, GFile *file, GFile *other,
                            GFileMonitorEvent event, gpointer data)
{
	TsdWindowPrivate *p = PRIV(data);
	gint64 now = g_get_monotonic_time();

	(void)monitor;
	(void)file;
	(void)other;
	if (event == G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED ||
	    event == G_FILE_MONITOR_EVENT_PRE_UNMOUNT || event == G_FILE_MONITOR_EVENT_UNMOUNTED)
		return;
	if (!p->first_change)
		p->first_change = now;
	/* Changes that keep coming let the running timer fire. */
	if (p->timer && now - p->first_change >= MAX_WAIT_US)
		return;
	if (p->timer)
		g_source_remove(p->timer);
	p->timer = g_timeout_add(QUIET_MS, on_quiet, data);
}

static void watch(TsdWindow *self, const char *path, gboolean directory)
{
	g_autoptr(GFile) file = g_file_new_for_path(path);
	/* A rewrite is a rename into place: moves of the name are watched. */
	GFileMonitor *m = directory
	                      ? g_file_monitor_directory(file, G_FILE_MONITOR_NONE, NULL, NULL)
	                      : g_file_monitor_file(file, G_FILE_MONITOR_WATCH_MOVES, NULL, NULL);

	/* No monitor (a file system without notifications): Ctrl+R still
	 * reloads. */
	if (!m)
		return;
	g_signal_connect(m, "changed", G_CALLBACK(on_file_changed), self);
	g_ptr_array_add(PRIV(self)->monitors, m);
}

/* Watches `paths` (NULL: nothing) in place of what was watched: a
 * directory, or a file and the SQLite -wal beside it that a writer still
 * at work flushes into. */
static void watch_paths(TsdWindow *self, const char *const *paths)
{
	TsdWindowPrivate *p = PRIV(self);

	for (guint i = 0; i < p->monitors->len; i++) {
		g_signal_handlers_disconnect_by_data(p->monitors->pdata[i], self);
		g_file_monitor_cancel(p->monitors->pdata[i]);
	}
	g_ptr_array_set_size(p->monitors, 0);
	g_clear_handle_id(&p->timer, g_source_remove);
	p->first_change = 0;
	for (const char *const *path = paths; path && *path; path++) {
		g_autofree char *wal = g_strconcat(*path, "-wal", NULL);
		gboolean directory = g_file_test(*path, G_FILE_TEST_IS_DIR);

		watch(self, *path, directory);
		if (!directory)
			watch(self, wal, FALSE);
	}
}

/* --- Recent files ------------------------------------------------------------------------ */

void tsd_window_remember(TsdWindow *self, const char *const *paths)
{
	const TsdWindowInfo *info = INFO(self);
	g_autofree char *exec = g_strdup_printf("%s %%f", g_get_prgname());

	for (const char *const *path = paths; path && *path; path++) {
		g_autofree char *uri = g_filename_to_uri(*path, NULL, NULL);
		gboolean dir = g_file_test(*path, G_FILE_TEST_IS_DIR);
		GtkRecentData data = {
			.mime_type = (char *)(dir ? "inode/directory" : info->recent_types[0]),
			.app_name = (char *)g_get_application_name(),
			.app_exec = exec,
		};

		if (uri)
			gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &data);
	}
}

/* The Open Recent menu: the files this app opened lately, newest first,
 * rebuilt whenever the recent files change (another window, another
 * app), so every window's menu says the same. */
static void fill_recent_menu(GtkRecentManager *manager, gpointer data)
{
	TsdWindowPrivate *p = PRIV(data);
	GList *items;
	g_autoptr(GPtrArray) ours = g_ptr_array_new();

	if (!p->recent_menu)    /* disposed */
		return;
	items = gtk_recent_manager_get_items(manager);
	for (GList *l = items; l; l = l->next)
		if (gtk_recent_info_has_application(l->data, g_get_application_name()))
			g_ptr_array_add(ours, l->data);
	g_ptr_array_sort(ours, tsd_recent_newest_first);
	g_menu_remove_all(p->recent_menu);
	for (guint i = 0; i < ours->len && i < RECENT_ITEMS; i++) {
		/* Menu labels take "_" as a mnemonic: "tut5_ml.pvti" must say so. */
		g_auto(GStrv) parts = g_strsplit(gtk_recent_info_get_display_name(ours->pdata[i]), "_",
		                                 -1);
		g_autofree char *label = g_strjoinv("__", parts);
		g_autoptr(GMenuItem) item = g_menu_item_new(label, NULL);

		g_menu_item_set_action_and_target_value(
		    item, "win.open-recent",
		    g_variant_new_string(gtk_recent_info_get_uri(ours->pdata[i])));
		g_menu_append_item(p->recent_menu, item);
	}
	/* A placeholder: shown, never enabled. */
	if (ours->len == 0)
		g_menu_append(p->recent_menu, "No recent files", "win.no-recent");
	g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
}

static void open_recent_action(GtkWidget *widget, const char *name, GVariant *param)
{
	const char *uri = g_variant_get_string(param, NULL);
	g_autoptr(GFile) file = g_file_new_for_uri(uri);

	(void)name;
	/* A file gone since: off the list; the error page then says
	 * reportlib's "no such file" for it. */
	if (!g_file_query_exists(file, NULL))
		gtk_recent_manager_remove_item(gtk_recent_manager_get_default(), uri, NULL);
	open_files(TSD_WINDOW(widget), &file, 1);
}

static void on_start_row_activated(GtkListBox *box, GtkListBoxRow *row, gpointer data)
{
	GFile *file = tsd_start_row_get_file(row);

	(void)box;
	if (file)
		open_files(data, &file, 1);
}

/* --- Showing ----------------------------------------------------------------------------- */

void tsd_window_show_document(TsdWindow *self, const char *title, const char *const *paths)
{
	TsdWindowPrivate *p = PRIV(self);
	g_autofree char *text = g_strdup_printf("%s — %s", title, g_get_application_name());

	g_clear_object(&p->cancellable);
	g_ptr_array_set_size(p->loading, 0);
	g_ptr_array_set_size(p->failed, 0);
	p->shown = TRUE;
	gtk_window_set_title(GTK_WINDOW(self), text);
	watch_paths(self, paths);
	tsd_window_remember(self, paths);
	gtk_stack_set_visible_child_name(p->main_stack, "document");
	update_actions(self);
}

gboolean tsd_window_showing_document(TsdWindow *self)
{
	return g_strcmp0(gtk_stack_get_visible_child_name(PRIV(self)->main_stack), "document") == 0;
}

gboolean tsd_window_is_loading(TsdWindow *self)
{
	return PRIV(self)->cancellable != NULL;
}

GtkStack *tsd_window_get_main_stack(TsdWindow *self)
{
	return PRIV(self)->main_stack;
}

GtkWidget *tsd_window_get_header(TsdWindow *self)
{
	return PRIV(self)->header;
}

GSettings *tsd_window_get_settings(TsdWindow *self)
{
	return PRIV(self)->settings;
}

/* --- Choosing files ---------------------------------------------------------------------- */

void tsd_window_add_filters(TsdWindow *self, GtkFileChooser *chooser)
{
	const TsdWindowInfo *info = INFO(self);
	GtkFileFilter *ours = gtk_file_filter_new();
	GtkFileFilter *all = gtk_file_filter_new();

	gtk_file_filter_set_name(ours, info->filter_name);
	for (const char *const *f = info->filter; *f; f++) {
		if (strchr(*f, '*'))
			gtk_file_filter_add_pattern(ours, *f);
		else
			gtk_file_filter_add_mime_type(ours, *f);
	}
	gtk_file_chooser_add_filter(chooser, ours);
	gtk_file_filter_set_name(all, "All files");
	gtk_file_filter_add_pattern(all, "*");
	gtk_file_chooser_add_filter(chooser, all);
	g_object_unref(ours);
	g_object_unref(all);
}

static void on_chooser_response(GtkNativeDialog *dialog, int response, gpointer data)
{
	TsdWindowPrivate *p = PRIV(data);
	g_autoptr(GListModel) files = gtk_file_chooser_get_files(GTK_FILE_CHOOSER(dialog));
	g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func(g_object_unref);
	TsdWindowChosen chosen = p->chosen;

	for (guint i = 0; response == GTK_RESPONSE_ACCEPT && i < g_list_model_get_n_items(files); i++)
		g_ptr_array_add(list, g_list_model_get_item(files, i));
	/* Cleared first: `chosen` may ask again (Compare: A, then B). */
	g_clear_object(&p->chooser);
	chosen(data, (GFile *const *)list->pdata, list->len);
}

void tsd_window_choose(TsdWindow *self, const char *title, const char *accept, gboolean multiple,
                       TsdWindowChosen chosen)
{
	TsdWindowPrivate *p = PRIV(self);

	if (p->chooser)
		return;
	p->chooser = gtk_file_chooser_native_new(title, GTK_WINDOW(self),
	                                         GTK_FILE_CHOOSER_ACTION_OPEN, accept, "_Cancel");
	p->chosen = chosen;
	gtk_file_chooser_set_select_multiple(GTK_FILE_CHOOSER(p->chooser), multiple);
	tsd_window_add_filters(self, GTK_FILE_CHOOSER(p->chooser));
	g_signal_connect(p->chooser, "response", G_CALLBACK(on_chooser_response), self);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(p->chooser));
}

/* --- Actions ----------------------------------------------------------------------------- */

static void open_action(GtkWidget *widget, const char *name, GVariant *param)
{
	const TsdWindowInfo *info = INFO(widget);

	(void)name;
	(void)param;
	tsd_window_choose(TSD_WINDOW(widget), info->open_title, "_Open", info->open_multiple,
	                  open_files);
}

/* win.reload: on the error page, the load that failed again (Try Again);
 * else the app's reload of what is shown. */
static void reload_action(GtkWidget *widget, const char *name, GVariant *param)
{
	TsdWindow *self = TSD_WINDOW(widget);
	TsdWindowPrivate *p = PRIV(self);

	(void)name;
	(void)param;
	if (p->failed->len && !g_strcmp0(gtk_stack_get_visible_child_name(p->main_stack), "error")) {
		/* Held: starting a load clears failed. */
		g_autoptr(GPtrArray) files = g_ptr_array_ref(p->failed);

		p->failed = g_ptr_array_new_with_free_func(g_object_unref);
		open_files(self, (GFile *const *)files->pdata, files->len);
	} else if (p->shown) {
		INFO(self)->reload(self);
	}
}

static void cancel_load_action(GtkWidget *widget, const char *name, GVariant *param)
{
	(void)name;
	(void)param;
	if (PRIV(widget)->cancellable)
		g_cancellable_cancel(PRIV(widget)->cancellable);
}

static void show_start_action(GtkWidget *widget, const char *name, GVariant *param)
{
	(void)name;
	(void)param;
	gtk_stack_set_visible_child_name(PRIV(widget)->main_stack,
	                                 PRIV(widget)->shown ? "document" : "start");
}

static gboolean on_drop(GtkDropTarget *target, const GValue *value, double x, double y,
                        gpointer data)
{
	g_autoptr(GPtrArray) list = g_ptr_array_new();
	GSList *files;

	(void)target;
	(void)x;
	(void)y;
	if (!G_VALUE_HOLDS(value, GDK_TYPE_FILE_LIST) || !g_value_get_boxed(value))
		return FALSE;
	files = gdk_file_list_get_files(g_value_get_boxed(value));
	for (GSList *l = files; l; l = l->next)
		g_ptr_array_add(list, l->data);
	g_slist_free(files);
	open_files(data, (GFile *const *)list->pdata, list->len);
	return list->len > 0;
}

/* F6's regions: the header bar, then the document's or the page shown. */
static void focus_regions(GtkWidget *widget, GPtrArray *regions, gpointer data)
{
	TsdWindow *self = data;

	(void)widget;
	tsd_focus_add_region(regions, PRIV(self)->header, NULL);
	if (tsd_window_showing_document(self))
		INFO(self)->document_regions(self, regions);
	else
		tsd_focus_add_region(regions, gtk_stack_get_visible_child(PRIV(self)->main_stack), NULL);
}

/* --- The class --------------------------------------------------------------------------- */

void tsd_window_setup(TsdWindow *self)
{
	TsdWindowPrivate *p = PRIV(self);
	const TsdWindowInfo *info = INFO(self);
	GtkDropTarget *drop = gtk_drop_target_new(GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
	size_t n_keys;
	const TsdKey *keys = info->keys(&n_keys);

	/* Every accelerator comes from the app's key table (the application
	 * installs them), and so does the Keyboard Shortcuts window. */
	tsd_keys_set_help_overlay(GTK_APPLICATION_WINDOW(self), keys, n_keys);
	tsd_focus_install(GTK_APPLICATION_WINDOW(self), focus_regions, self);
	g_signal_connect(drop, "drop", G_CALLBACK(on_drop), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drop));
	tsd_start_list_recent(p->recent_list, p->recent_label, info->recent_types,
	                      g_get_application_name(), 8);
	tsd_start_list_samples(p->samples_list, p->samples_label, info->pick_sample);
	g_signal_connect(p->recent_list, "row-activated", G_CALLBACK(on_start_row_activated), self);
	g_signal_connect(p->samples_list, "row-activated", G_CALLBACK(on_start_row_activated), self);
	g_signal_connect_object(gtk_recent_manager_get_default(), "changed",
	                        G_CALLBACK(fill_recent_menu), self, 0);
	fill_recent_menu(gtk_recent_manager_get_default(), self);
	/* Empty until a load or an error fills them (and on a hidden page,
	 * which GTK 4.8 still shows to assistive technology). */
	tsd_a11y_quiet_when_empty(p->loading_title);
	tsd_a11y_quiet_when_empty(p->loading_message);
	tsd_a11y_quiet_when_empty(p->error_message);
	p->settings = tsd_settings_new(info->settings_id);
	tsd_settings_remember_window(GTK_WINDOW(self), p->settings);
	update_actions(self);
}

void tsd_window_class_bind_template(GtkWidgetClass *widget_class)
{
	static const char *const ids[] = {
	    "main_stack",  "header",      "loading_title", "loading_progress", "loading_message",
	    "error_message", "recent_list", "recent_label", "samples_list",   "samples_label",
	    "recent_menu",
	};
	static const goffset offsets[] = {
	    G_STRUCT_OFFSET(TsdWindowPrivate, main_stack),
	    G_STRUCT_OFFSET(TsdWindowPrivate, header),
	    G_STRUCT_OFFSET(TsdWindowPrivate, loading_title),
	    G_STRUCT_OFFSET(TsdWindowPrivate, loading_progress),
	    G_STRUCT_OFFSET(TsdWindowPrivate, loading_message),
	    G_STRUCT_OFFSET(TsdWindowPrivate, error_message),
	    G_STRUCT_OFFSET(TsdWindowPrivate, recent_list),
	    G_STRUCT_OFFSET(TsdWindowPrivate, recent_label),
	    G_STRUCT_OFFSET(TsdWindowPrivate, samples_list),
	    G_STRUCT_OFFSET(TsdWindowPrivate, samples_label),
	    G_STRUCT_OFFSET(TsdWindowPrivate, recent_menu),
	};

	/* Into the shell's private data, which sits at the same offset from
	 * every subclass's instance. */
	for (size_t i = 0; i < G_N_ELEMENTS(ids); i++)
		gtk_widget_class_bind_template_child_full(widget_class, ids[i], FALSE,
		                                          TsdWindow_private_offset + offsets[i]);
}

static void tsd_window_dispose(GObject *object)
{
	TsdWindowPrivate *p = PRIV(object);

	tsd_cancel_clear(&p->cancellable);
	watch_paths(TSD_WINDOW(object), NULL);
	if (p->chooser)
		gtk_native_dialog_destroy(GTK_NATIVE_DIALOG(p->chooser));
	g_clear_object(&p->chooser);
	g_clear_object(&p->settings);
	G_OBJECT_CLASS(tsd_window_parent_class)->dispose(object);
}

static void tsd_window_finalize(GObject *object)
{
	TsdWindowPrivate *p = PRIV(object);

	g_ptr_array_unref(p->loading);
	g_ptr_array_unref(p->failed);
	g_ptr_array_unref(p->monitors);
	G_OBJECT_CLASS(tsd_window_parent_class)->finalize(object);
}

static void tsd_window_class_init(TsdWindowClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = tsd_window_dispose;
	G_OBJECT_CLASS(klass)->finalize = tsd_window_finalize;
	gtk_widget_class_install_action(widget_class, "win.open", NULL, open_action);
	gtk_widget_class_install_action(widget_class, "win.open-recent", "s", open_recent_action);
	gtk_widget_class_install_action(widget_class, "win.no-recent", NULL, NULL);
	gtk_widget_class_install_action(widget_class, "win.reload", NULL, reload_action);
	gtk_widget_class_install_action(widget_class, "win.cancel-load", NULL, cancel_load_action);
	gtk_widget_class_install_action(widget_class, "win.show-start", NULL, show_start_action);
	/* The other keys are the application's accelerators; this one must
	 * leave Escape to the widgets when nothing is loading. */
	gtk_widget_class_add_binding_action(widget_class, GDK_KEY_Escape, 0, "win.cancel-load",
	                                    NULL);
}

static void tsd_window_init(TsdWindow *self)
{
	TsdWindowPrivate *p = PRIV(self);

	p->loading = g_ptr_array_new_with_free_func(g_object_unref);
	p->failed = g_ptr_array_new_with_free_func(g_object_unref);
	p->monitors = g_ptr_array_new_with_free_func(g_object_unref);
	p->page_before = "start";
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "win.no-recent", FALSE);
}
