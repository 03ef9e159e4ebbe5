/*
 * tsd-settings.h: a schema that is not installed gives NULL and every
 * helper then does nothing (the app starts with its defaults); a stale
 * schema (installed by an older version, lacking keys) is no abort
 * either; chosen columns, a paned's position and a notebook's tab go to
 * their keys and come back, and a position the app sets is not taken for
 * the user's. GSETTINGS_BACKEND=memory (meson's test environment): no
 * test writes to the user's settings. The schemas come from the build
 * tree (tsd-settings.c's fallback); the stale one from a directory the
 * test compiles and puts first with GSETTINGS_SCHEMA_DIR.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/tsd-settings.h>

#include <glib/gstdio.h>

/* org.tilescope.SystemAnalyser as an older version might have installed
 * it: one key of the ones the app now uses. */
static const char stale_schema[] =
    "<schemalist><schema id='org.tilescope.SystemAnalyser' path='/org/tilescope/SystemAnalyser/'>"
    "<key name='window-width' type='i'><default>640</default></key>"
    "</schema></schemalist>";

static char *stale_dir;

static void test_missing_schema(void **state)
{
	GSettings *none = tsd_settings_new("org.tilescope.NoSuchApp");
	GtkWidget *window = gtk_window_new();
	GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_HORIZONTAL);
	GtkWidget *notebook = gtk_notebook_new();
	GtkColumnViewColumn *col = gtk_column_view_column_new("A", NULL);
	int w = 0, h = 0;

	(void)state;
	assert_null(none);
	assert_false(tsd_settings_has_key(NULL, "window-width"));
	assert_false(tsd_settings_has_user_value(NULL, "window-width"));
	tsd_settings_remember_window(GTK_WINDOW(window), NULL);
	tsd_settings_remember_paned(GTK_PANED(paned), NULL, "sidebar-width");
	tsd_settings_set_paned_position(GTK_PANED(paned), 42);
	tsd_settings_remember_notebook(GTK_NOTEBOOK(notebook), NULL, "details-page");
	tsd_settings_remember_columns(&col, 1, NULL, "operations-columns");
	/* Untouched: the defaults stand. */
	gtk_window_get_default_size(GTK_WINDOW(window), &w, &h);
	assert_int_equal(w, 0);
	assert_int_equal(gtk_paned_get_position(GTK_PANED(paned)), 42);
	g_object_unref(col);
	g_object_unref(g_object_ref_sink(paned));
	g_object_unref(g_object_ref_sink(notebook));
	gtk_window_destroy(GTK_WINDOW(window));
}

static void test_stale_schema(void **state)
{
	g_autoptr(GSettings) s = tsd_settings_new("org.tilescope.SystemAnalyser");
	GtkWidget *window = gtk_window_new();
	GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_VERTICAL);
	GtkWidget *notebook = gtk_notebook_new();
	int w = 0, h = 0;

	(void)state;
	assert_non_null(s);
	assert_true(tsd_settings_has_key(s, "window-width"));
	assert_false(tsd_settings_has_key(s, "window-height"));
	assert_false(tsd_settings_has_user_value(s, "timeline-height"));
	/* Each helper finds a key missing and leaves its widget alone. */
	tsd_settings_remember_window(GTK_WINDOW(window), s);
	tsd_settings_remember_paned(GTK_PANED(paned), s, "timeline-height");
	tsd_settings_remember_notebook(GTK_NOTEBOOK(notebook), s, "details-page");
	gtk_window_get_default_size(GTK_WINDOW(window), &w, &h);
	assert_int_equal(w, 0);
	gtk_paned_set_position(GTK_PANED(paned), 77);
	assert_int_equal(g_settings_get_int(s, "window-width"), 640);
	g_object_unref(g_object_ref_sink(paned));
	g_object_unref(g_object_ref_sink(notebook));
	gtk_window_destroy(GTK_WINDOW(window));
}

/* The a{sb} of `key`, as text. */
static char *value_text(GSettings *s, const char *key)
{
	g_autoptr(GVariant) v = g_settings_get_value(s, key);

	return g_variant_print(v, FALSE);
}

static void test_columns(void **state)
{
	g_autoptr(GSettings) s = tsd_settings_new("org.tilescope.GraphAnalyser");
	GtkColumnViewColumn *cols[3], *again[3];
	const char *titles[3] = {"Name", "Self cycles", "Layer"};
	const gboolean shown[3] = {TRUE, FALSE, TRUE};
	g_autofree char *text = NULL;

	(void)state;
	assert_non_null(s);
	for (int i = 0; i < 3; i++) {
		cols[i] = gtk_column_view_column_new(titles[i], NULL);
		gtk_column_view_column_set_visible(cols[i], shown[i]);
	}
	tsd_settings_remember_columns(cols, 3, s, "operations-columns");
	gtk_column_view_column_set_visible(cols[1], TRUE);
	gtk_column_view_column_set_visible(cols[2], FALSE);
	text = value_text(s, "operations-columns");
	assert_string_equal(text, "{'Self cycles': true, 'Layer': false}");
	/* A new view's columns, at their defaults, take the choice. */
	for (int i = 0; i < 3; i++) {
		again[i] = gtk_column_view_column_new(titles[i], NULL);
		gtk_column_view_column_set_visible(again[i], shown[i]);
	}
	tsd_settings_remember_columns(again, 3, s, "operations-columns");
	assert_true(gtk_column_view_column_get_visible(again[0]));
	assert_true(gtk_column_view_column_get_visible(again[1]));
	assert_false(gtk_column_view_column_get_visible(again[2]));
	/* Back to a default: that column leaves the key. */
	gtk_column_view_column_set_visible(again[1], FALSE);
	g_free(text);
	text = value_text(s, "operations-columns");
	assert_string_equal(text, "{'Layer': false}");
	for (int i = 0; i < 3; i++) {
		g_object_unref(cols[i]);
		g_object_unref(again[i]);
	}
	g_settings_reset(s, "operations-columns");
}

static void test_paned(void **state)
{
	g_autoptr(GSettings) s = tsd_settings_new("org.tilescope.GraphAnalyser");
	GtkWidget *paned = g_object_ref_sink(gtk_paned_new(GTK_ORIENTATION_HORIZONTAL));
	GtkWidget *other = g_object_ref_sink(gtk_paned_new(GTK_ORIENTATION_HORIZONTAL));

	(void)state;
	assert_non_null(s);
	/* The schema's default is a position like any other. */
	tsd_settings_remember_paned(GTK_PANED(paned), s, "sidebar-width");
	assert_int_equal(gtk_paned_get_position(GTK_PANED(paned)), 180);
	assert_false(tsd_settings_has_user_value(s, "sidebar-width"));
	/* The app's own choice is not remembered... */
	tsd_settings_set_paned_position(GTK_PANED(paned), 150);
	assert_false(tsd_settings_has_user_value(s, "sidebar-width"));
	/* ...the user's is, and the next paned starts there. */
	gtk_paned_set_position(GTK_PANED(paned), 260);
	assert_int_equal(g_settings_get_int(s, "sidebar-width"), 260);
	tsd_settings_remember_paned(GTK_PANED(other), s, "sidebar-width");
	assert_int_equal(gtk_paned_get_position(GTK_PANED(other)), 260);
	g_object_unref(paned);
	g_object_unref(other);
	g_settings_reset(s, "sidebar-width");
}

static void test_notebook(void **state)
{
	g_autoptr(GSettings) s = tsd_settings_new("org.tilescope.GraphAnalyser");
	GtkWidget *window = gtk_window_new();
	GtkWidget *notebook = gtk_notebook_new();
	GtkWidget *second = gtk_notebook_new();
	/* In a window, as the app's is: GTK 4.8's notebook asks its root for
	 * the focus when it switches pages. */
	GtkWidget *second_window = gtk_window_new();
	const char *titles[3] = {"Statistics", "Call Tree", "Span"};

	(void)state;
	assert_non_null(s);
	for (int i = 0; i < 3; i++) {
		gtk_notebook_append_page(GTK_NOTEBOOK(notebook), gtk_label_new(titles[i]),
		                         gtk_label_new(titles[i]));
		gtk_notebook_append_page(GTK_NOTEBOOK(second), gtk_label_new(titles[i]),
		                         gtk_label_new(titles[i]));
	}
	/* Any string key serves: the Graph Analyser's has no notebook. */
	tsd_settings_remember_notebook(GTK_NOTEBOOK(notebook), s, "last-view");
	gtk_window_set_child(GTK_WINDOW(window), notebook);
	/* Switches while the notebook is not on screen are the app's. */
	gtk_notebook_set_current_page(GTK_NOTEBOOK(notebook), 1);
	assert_false(tsd_settings_has_user_value(s, "last-view"));
	gtk_window_present(GTK_WINDOW(window));
	while (!gtk_widget_get_mapped(notebook))
		g_main_context_iteration(NULL, TRUE);
	gtk_notebook_set_current_page(GTK_NOTEBOOK(notebook), 2);
	{
		g_autofree char *saved = g_settings_get_string(s, "last-view");

		assert_string_equal(saved, "Span");
	}
	gtk_window_set_child(GTK_WINDOW(second_window), second);
	tsd_settings_remember_notebook(GTK_NOTEBOOK(second), s, "last-view");
	assert_int_equal(gtk_notebook_get_current_page(GTK_NOTEBOOK(second)), 2);
	gtk_window_destroy(GTK_WINDOW(second_window));
	gtk_window_destroy(GTK_WINDOW(window));
	g_settings_reset(s, "last-view");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_schema),
		cmocka_unit_test(test_stale_schema),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_paned),
		cmocka_unit_test(test_notebook),
	};
	g_autofree char *xml = NULL;
	g_autoptr(GError) error = NULL;
	int status = 0, rc;

	/* Nothing of the user's: the memory backend, and the stale schema
	 * first (before GSettings reads its directories). */
	g_setenv("GSETTINGS_BACKEND", "memory", TRUE);
	stale_dir = g_dir_make_tmp("tsd-settings-XXXXXX", &error);
	if (!stale_dir) {
		fprintf(stderr, "no temporary directory: %s\n", error->message);
		return 1;
	}
	xml = g_build_filename(stale_dir, "org.tilescope.SystemAnalyser.gschema.xml", NULL);
	if (!g_file_set_contents(xml, stale_schema, -1, &error)) {
		fprintf(stderr, "%s\n", error->message);
		return 1;
	}
	{
		const char *argv[] = {"glib-compile-schemas", stale_dir, NULL};

		if (!g_spawn_sync(NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
		                  NULL, &status, &error) ||
		    !g_spawn_check_wait_status(status, &error)) {
			fprintf(stderr, "glib-compile-schemas: %s\n", error->message);
			return 1;
		}
	}
	g_setenv("GSETTINGS_SCHEMA_DIR", stale_dir, TRUE);
	if (!gtk_init_check()) {
		fprintf(stderr, "no display\n");
		return 77;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	{
		g_autofree char *compiled = g_build_filename(stale_dir, "gschemas.compiled", NULL);

		g_unlink(compiled);
		g_unlink(xml);
		g_rmdir(stale_dir);
	}
	g_free(stale_dir);
	return rc;
}
