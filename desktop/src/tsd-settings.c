/*
 * Remembered state through GSettings (tsd-settings.h). Every helper reads
 * once and then writes on the widget's own notifications: no saving at
 * close, which GtkApplication's quit (Ctrl+Q) skips.
 */
#include "tilescope/tsd-settings.h"

GSettings *tsd_settings_new(const char *schema_id)
{
	GSettingsSchemaSource *source = g_settings_schema_source_get_default();
	g_autoptr(GSettingsSchema) schema = NULL;

	if (source)
		schema = g_settings_schema_source_lookup(source, schema_id, TRUE);
#ifdef TSD_BUILD_SCHEMAS
	/* Run from the build tree: the schemas it compiled. */
	if (!schema && g_file_test(TSD_BUILD_SCHEMAS "/gschemas.compiled", G_FILE_TEST_EXISTS)) {
		g_autoptr(GSettingsSchemaSource) build =
		    g_settings_schema_source_new_from_directory(TSD_BUILD_SCHEMAS, source, FALSE, NULL);

		if (build)
			schema = g_settings_schema_source_lookup(build, schema_id, TRUE);
	}
#endif
	if (!schema) {
		g_debug("no GSettings schema %s: nothing is remembered", schema_id);
		return NULL;
	}
	return g_settings_new_full(schema, NULL, NULL);
}

/* A stale schema installed by an older version lacks new keys, and
 * GSettings aborts on a key it lacks. */
gboolean tsd_settings_has_key(GSettings *settings, const char *key)
{
	g_autoptr(GSettingsSchema) schema = NULL;

	if (!settings)
		return FALSE;
	g_object_get(settings, "settings-schema", &schema, NULL);
	return schema && g_settings_schema_has_key(schema, key);
}

gboolean tsd_settings_has_user_value(GSettings *settings, const char *key)
{
	g_autoptr(GVariant) v =
	    tsd_settings_has_key(settings, key) ? g_settings_get_user_value(settings, key) : NULL;

	return v != NULL;
}

/* --- The application ------------------------------------------------------------------ */

static void on_dark_state(GObject *action, GParamSpec *pspec, gpointer data)
{
	g_autoptr(GVariant) state = g_action_get_state(G_ACTION(action));

	(void)pspec;
	if (state && g_variant_is_of_type(state, G_VARIANT_TYPE_BOOLEAN))
		g_settings_set_boolean(data, "dark-style", g_variant_get_boolean(state));
}

/* dconf writes in the background: a quit must not lose the last change. */
static void on_shutdown(GApplication *app, gpointer data)
{
	(void)app;
	(void)data;
	g_settings_sync();
}

void tsd_settings_install(GtkApplication *app, GSettings *settings)
{
	GAction *dark;
	g_autoptr(GVariant) chosen = NULL;

	if (!tsd_settings_has_key(settings, "dark-style"))
		return;
	g_object_set_data_full(G_OBJECT(app), "tsd-settings", g_object_ref(settings),
	                       g_object_unref);
	dark = g_action_map_lookup_action(G_ACTION_MAP(app), "dark");
	chosen = g_settings_get_user_value(settings, "dark-style");
	if (dark && chosen)
		g_action_change_state(dark, chosen);
	if (dark)
		g_signal_connect_object(dark, "notify::state", G_CALLBACK(on_dark_state), settings, 0);
	g_signal_connect(app, "shutdown", G_CALLBACK(on_shutdown), NULL);
}

/* --- The window ----------------------------------------------------------------------- */

static void on_window_size(GObject *object, GParamSpec *pspec, gpointer data)
{
	GtkWindow *window = GTK_WINDOW(object);
	GSettings *settings = data;
	int w = 0, h = 0;

	(void)pspec;
	if (gtk_window_is_maximized(window) || gtk_window_is_fullscreen(window))
		return;
	gtk_window_get_default_size(window, &w, &h);
	if (w > 0 && w != g_settings_get_int(settings, "window-width"))
		g_settings_set_int(settings, "window-width", w);
	if (h > 0 && h != g_settings_get_int(settings, "window-height"))
		g_settings_set_int(settings, "window-height", h);
}

static void on_window_maximized(GObject *object, GParamSpec *pspec, gpointer data)
{
	gboolean max = gtk_window_is_maximized(GTK_WINDOW(object));

	(void)pspec;
	if (max != g_settings_get_boolean(data, "window-maximized"))
		g_settings_set_boolean(data, "window-maximized", max);
}

void tsd_settings_remember_window(GtkWindow *window, GSettings *settings)
{
	int w, h;

	if (!tsd_settings_has_key(settings, "window-width") || !tsd_settings_has_key(settings, "window-height") ||
	    !tsd_settings_has_key(settings, "window-maximized"))
		return;
	w = g_settings_get_int(settings, "window-width");
	h = g_settings_get_int(settings, "window-height");
	/* A size from a larger screen is the window manager's to clamp. */
	if (w > 0 && h > 0)
		gtk_window_set_default_size(window, w, h);
	if (g_settings_get_boolean(settings, "window-maximized"))
		gtk_window_maximize(window);
	g_object_set_data_full(G_OBJECT(window), "tsd-settings", g_object_ref(settings),
	                       g_object_unref);
	g_signal_connect(window, "notify::default-width", G_CALLBACK(on_window_size), settings);
	g_signal_connect(window, "notify::default-height", G_CALLBACK(on_window_size), settings);
	g_signal_connect(window, "notify::maximized", G_CALLBACK(on_window_maximized), settings);
}

/* --- A paned ------------------------------------------------------------------------- */

/* Written only once the position is a chosen one (position-set), never
 * the paned's own share of a new size. */
static void on_paned_position(GObject *object, GParamSpec *pspec, gpointer data)
{
	GtkPaned *paned = GTK_PANED(object);
	const char *key = g_object_get_data(object, "tsd-settings-key");
	int pos = gtk_paned_get_position(paned);
	gboolean set = FALSE;

	(void)pspec;
	g_object_get(paned, "position-set", &set, NULL);
	if (set && pos > 0 && pos != g_settings_get_int(data, key))
		g_settings_set_int(data, key, pos);
}

void tsd_settings_remember_paned(GtkPaned *paned, GSettings *settings, const char *key)
{
	int pos;

	if (!tsd_settings_has_key(settings, key))
		return;
	pos = g_settings_get_int(settings, key);
	if (pos > 0)
		gtk_paned_set_position(paned, pos);
	g_object_set_data_full(G_OBJECT(paned), "tsd-settings-key", g_strdup(key), g_free);
	g_object_set_data_full(G_OBJECT(paned), "tsd-settings", g_object_ref(settings),
	                       g_object_unref);
	g_object_set_data(G_OBJECT(paned), "tsd-settings-handler",
	                  GSIZE_TO_POINTER(g_signal_connect(paned, "notify::position",
	                                                    G_CALLBACK(on_paned_position), settings)));
}

void tsd_settings_set_paned_position(GtkPaned *paned, int position)
{
	gulong handler = GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(paned), "tsd-settings-handler"));

	if (handler)
		g_signal_handler_block(paned, handler);
	gtk_paned_set_position(paned, position);
	if (handler)
		g_signal_handler_unblock(paned, handler);
}

/* --- A notebook ----------------------------------------------------------------------- */

static void on_switch_page(GtkNotebook *notebook, GtkWidget *page, guint num, gpointer data)
{
	const char *key = g_object_get_data(G_OBJECT(notebook), "tsd-settings-key");
	const char *title = gtk_notebook_get_tab_label_text(notebook, page);

	(void)num;
	/* Only what the user sees: GtkNotebook also switches while its
	 * pages are added or removed. */
	if (title && gtk_widget_get_mapped(GTK_WIDGET(notebook)))
		g_settings_set_string(data, key, title);
}

void tsd_settings_remember_notebook(GtkNotebook *notebook, GSettings *settings, const char *key)
{
	g_autofree char *want = NULL;

	if (!tsd_settings_has_key(settings, key))
		return;
	want = g_settings_get_string(settings, key);
	for (int i = 0; *want && i < gtk_notebook_get_n_pages(notebook); i++) {
		GtkWidget *page = gtk_notebook_get_nth_page(notebook, i);

		if (g_strcmp0(gtk_notebook_get_tab_label_text(notebook, page), want) == 0) {
			gtk_notebook_set_current_page(notebook, i);
			break;
		}
	}
	g_object_set_data_full(G_OBJECT(notebook), "tsd-settings-key", g_strdup(key), g_free);
	g_object_set_data_full(G_OBJECT(notebook), "tsd-settings", g_object_ref(settings),
	                       g_object_unref);
	g_signal_connect(notebook, "switch-page", G_CALLBACK(on_switch_page), settings);
}

/* --- Columns ------------------------------------------------------------------------- */

/* What remember_columns keeps, shared by the columns' handlers (each
 * holds a reference): the columns, weakly, and their defaults. */
typedef struct {
	GSettings *settings;
	char *key;
	size_t n;
	GWeakRef *columns;     /* GtkColumnViewColumn */
	gboolean *defaults;    /* visibility at remember time, per column */
} ColumnsMemory;

static void columns_memory_clear(gpointer data)
{
	ColumnsMemory *m = data;

	g_object_unref(m->settings);
	g_free(m->key);
	for (size_t i = 0; i < m->n; i++)
		g_weak_ref_clear(&m->columns[i]);
	g_free(m->columns);
	g_free(m->defaults);
}

static void columns_memory_release(gpointer data, GClosure *closure)
{
	(void)closure;
	g_rc_box_release_full(data, columns_memory_clear);
}

static void on_column_visible(GObject *object, GParamSpec *pspec, gpointer data)
{
	ColumnsMemory *m = data;
	GVariantBuilder b;

	(void)object;
	(void)pspec;
	g_variant_builder_init(&b, G_VARIANT_TYPE("a{sb}"));
	for (size_t i = 0; i < m->n; i++) {
		g_autoptr(GtkColumnViewColumn) col = g_weak_ref_get(&m->columns[i]);
		gboolean shown;
		const char *title;

		if (!col)
			continue;
		shown = gtk_column_view_column_get_visible(col);
		title = gtk_column_view_column_get_title(col);
		if (title && shown != m->defaults[i])
			g_variant_builder_add(&b, "{sb}", title, shown);
	}
	g_settings_set_value(m->settings, m->key, g_variant_builder_end(&b));
}

void tsd_settings_remember_columns(GtkColumnViewColumn *const *columns, size_t n,
                                   GSettings *settings, const char *key)
{
	ColumnsMemory *m;
	g_autoptr(GVariant) chosen = NULL;

	if (!tsd_settings_has_key(settings, key) || n == 0)
		return;
	m = g_rc_box_new0(ColumnsMemory);
	m->settings = g_object_ref(settings);
	m->key = g_strdup(key);
	m->n = n;
	m->columns = g_new0(GWeakRef, n);
	m->defaults = g_new0(gboolean, n);
	chosen = g_settings_get_value(settings, key);
	for (size_t i = 0; i < n; i++) {
		const char *title = gtk_column_view_column_get_title(columns[i]);
		gboolean shown;

		m->defaults[i] = gtk_column_view_column_get_visible(columns[i]);
		g_weak_ref_init(&m->columns[i], columns[i]);
		if (title && g_variant_lookup(chosen, title, "b", &shown))
			gtk_column_view_column_set_visible(columns[i], shown);
	}
	for (size_t i = 0; i < n; i++)
		g_signal_connect_data(columns[i], "notify::visible", G_CALLBACK(on_column_visible),
		                      g_rc_box_acquire(m), columns_memory_release, 0);
	g_rc_box_release_full(m, columns_memory_clear);
}
