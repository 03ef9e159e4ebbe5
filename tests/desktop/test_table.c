/*
 * tsd-table.h, the table both apps' views embed: columns declared in a
 * template (text and figures), sorting by the view's compare, the
 * search, cells named by their text and silent when empty (never
 * "GtkLabel"), the column chooser, Ctrl+C (the view's copy, else the titles and the cells),
 * Left/Right in a tree, and the job that a newer one supersedes. Rows
 * are GtkStringObjects "NAME|COUNT"; the count cell is empty without a
 * count. Needs a display (an Xvfb of its own, ../run-under-x.sh);
 * GTK_A11Y=test keeps the accessible properties readable.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/tsd-table.h>

#include <stdlib.h>
#include <string.h>

static const char ui[] =
    "<interface><object class='TsdTable' id='t'>"
    "<property name='title'>Things</property><property name='sorted'>true</property>"
    "<property name='search'>Search things</property>"
    "<child type='column'><object class='GtkColumnViewColumn'>"
    "<property name='title'>Name</property></object></child>"
    "<child type='figure'><object class='GtkColumnViewColumn'>"
    "<property name='title'>Count</property></object></child>"
    "</object></interface>";

static char *row_text(gpointer item, guint column, gpointer data)
{
	const char *s = gtk_string_object_get_string(item), *bar = strchr(s, '|');

	(void)data;
	return column == 0 ? g_strndup(s, (gsize)(bar - s)) : g_strdup(bar + 1);
}

static int row_compare(gconstpointer a, gconstpointer b, guint column, gpointer data)
{
	g_autofree char *x = row_text((gpointer)a, column, data), *y = row_text((gpointer)b, column, data);

	return TSD_TABLE_ORDER(atoi(x), atoi(y));
}

static const TsdTableCells cells = {.text = row_text, .compare = row_compare};

/* The first child of `w` (depth first) of `type`, or NULL. */
static GtkWidget *find(GtkWidget *w, GType type)
{
	if (G_TYPE_CHECK_INSTANCE_TYPE(w, type))
		return w;
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		GtkWidget *hit = find(c, type);

		if (hit)
			return hit;
	}
	return NULL;
}

/* Every label under `w` into `out`. */
static void labels(GtkWidget *w, GPtrArray *out)
{
	if (GTK_IS_LABEL(w))
		g_ptr_array_add(out, w);
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
		labels(c, out);
}

/* Runs the main loop until `done` or ten seconds have passed. */
static gboolean wait_for(gboolean (*done)(gpointer), gpointer data)
{
	gint64 end = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;

	while (!done(data) && g_get_monotonic_time() < end)
		g_main_context_iteration(NULL, FALSE);
	return done(data);
}

/* The rows as shown, "NAME|COUNT" joined by spaces. */
static char *shown(TsdTable *t)
{
	GListModel *rows = G_LIST_MODEL(tsd_table_get_selection(t));
	GString *s = g_string_new(NULL);

	for (guint i = 0; i < g_list_model_get_n_items(rows); i++) {
		g_autoptr(GtkStringObject) o = g_list_model_get_item(rows, i);

		g_string_append_printf(s, "%s%s", i ? " " : "", gtk_string_object_get_string(o));
	}
	return g_string_free(s, FALSE);
}

static gboolean one_row(gpointer t)
{
	return g_list_model_get_n_items(G_LIST_MODEL(tsd_table_get_selection(t))) == 1;
}

static gboolean cells_drawn(gpointer t)
{
	g_autoptr(GPtrArray) all = g_ptr_array_new();

	labels(GTK_WIDGET(tsd_table_get_view(t)), all);
	for (guint i = 0; i < all->len; i++)
		if (!strcmp(gtk_label_get_text(all->pdata[i]), "gamma"))
			return TRUE;
	return FALSE;
}

/* Ctrl+C's action on the column view, run as the key would. */
static char *copy(TsdTable *t)
{
	GtkWidget *view = GTK_WIDGET(tsd_table_get_view(t));
	g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(view);
	GValue v = G_VALUE_INIT;
	char *text = NULL;

	for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
		g_autoptr(GObject) c = g_list_model_get_item(controllers, i);

		if (GTK_IS_SHORTCUT_CONTROLLER(c)) {
			g_autoptr(GtkShortcut) sc = g_list_model_get_item(G_LIST_MODEL(c), 0);

			assert_true(gtk_shortcut_action_activate(gtk_shortcut_get_action(sc), 0, view, NULL));
		}
	}
	g_value_init(&v, G_TYPE_STRING);
	if (gdk_content_provider_get_value(gdk_clipboard_get_content(gtk_widget_get_clipboard(view)),
	                                   &v, NULL))
		text = g_value_dup_string(&v);
	g_value_unset(&v);
	return text;
}

static void test_flat_table(void **state)
{
	g_autoptr(GtkBuilder) b = gtk_builder_new_from_string(ui, -1);
	TsdTable *t = TSD_TABLE(gtk_builder_get_object(b, "t"));
	GtkWidget *window = gtk_window_new();
	const char *const data[] = {"beta|2", "alpha|10", "gamma|", "Alphabet|3"};
	GObject *rows[G_N_ELEMENTS(data)];
	g_autoptr(GPtrArray) all = g_ptr_array_new();
	gboolean silent = FALSE, named = FALSE;
	g_autofree char *by_name = NULL, *by_count = NULL, *clip = NULL;

	(void)state;
	tsd_table_set_cells(t, &cells, NULL);
	for (size_t i = 0; i < G_N_ELEMENTS(data); i++)
		rows[i] = G_OBJECT(gtk_string_object_new(data[i]));
	tsd_table_set_rows(t, (gpointer *)rows, G_N_ELEMENTS(rows));
	for (size_t i = 0; i < G_N_ELEMENTS(rows); i++)
		g_object_unref(rows[i]);
	/* Unsorted until asked, then by the view's compare: names with case
	 * ignored, counts as numbers (an empty one is 0). */
	tsd_table_sort_by(t, 0, GTK_SORT_ASCENDING);
	by_name = shown(t);
	assert_string_equal(by_name, "alpha|10 Alphabet|3 beta|2 gamma|");
	tsd_table_sort_by(t, 1, GTK_SORT_DESCENDING);
	by_count = shown(t);
	assert_string_equal(by_count, "alpha|10 Alphabet|3 beta|2 gamma|");
	tsd_table_sort_by(t, 1, GTK_SORT_ASCENDING);
	g_free(by_count);
	by_count = shown(t);
	assert_string_equal(by_count, "gamma| beta|2 Alphabet|3 alpha|10");
	/* Nothing is selected until the user picks a row. */
	assert_int_equal(gtk_single_selection_get_selected(tsd_table_get_selection(t)),
	                 GTK_INVALID_LIST_POSITION);

	/* The cells on screen: a figure end-aligned, a name by its text, an
	 * empty cell silent. */
	gtk_window_set_child(GTK_WINDOW(window), GTK_WIDGET(t));
	gtk_window_set_default_size(GTK_WINDOW(window), 400, 300);
	gtk_window_present(GTK_WINDOW(window));
	assert_true(wait_for(cells_drawn, t));
	labels(GTK_WIDGET(tsd_table_get_view(t)), all);
	for (guint i = 0; i < all->len; i++) {
		GtkLabel *l = all->pdata[i];
		const char *text = gtk_label_get_text(l);

		if (!strcmp(text, "beta")) {
			gtk_test_accessible_assert_property(l, GTK_ACCESSIBLE_PROPERTY_LABEL, "beta");
			named = TRUE;
		}
		if (gtk_widget_has_css_class(GTK_WIDGET(l), "figure")) {
			assert_true(gtk_label_get_xalign(l) == 1.0f);
			if (!*text) {
				gtk_test_accessible_assert_property(l, GTK_ACCESSIBLE_PROPERTY_LABEL, "");
				silent = TRUE;
			}
		}
	}
	assert_true(named);
	assert_true(silent);

	/* Ctrl+C without a copy of the view's: the titles, then the cells. */
	gtk_single_selection_set_selected(tsd_table_get_selection(t), 3);
	clip = copy(t);
	assert_string_equal(clip, "Name\tCount\nalpha\t10\n");

	/* The column chooser: a check per column bound to its visibility,
	 * the first (the rows' names) always shown. */
	tsd_table_add_chooser(t, NULL, "no-such-key");
	{
		GtkWidget *menu = find(GTK_WIDGET(t), GTK_TYPE_MENU_BUTTON);
		GtkPopover *popover = gtk_menu_button_get_popover(GTK_MENU_BUTTON(menu));
		GtkWidget *name = gtk_widget_get_first_child(gtk_popover_get_child(popover));
		GtkWidget *count = gtk_widget_get_next_sibling(name);

		assert_false(gtk_widget_get_sensitive(name));
		assert_true(gtk_check_button_get_active(GTK_CHECK_BUTTON(count)));
		gtk_check_button_set_active(GTK_CHECK_BUTTON(count), FALSE);
		assert_false(gtk_column_view_column_get_visible(tsd_table_get_column(t, 1)));
		/* Ctrl+C copies the columns shown. */
		g_free(clip);
		clip = copy(t);
		assert_string_equal(clip, "Name\nalpha\n");
		gtk_column_view_column_set_visible(tsd_table_get_column(t, 1), TRUE);
		assert_true(gtk_check_button_get_active(GTK_CHECK_BUTTON(count)));
	}

	/* The search keeps the rows whose name holds the words, case ignored. */
	gtk_editable_set_text(GTK_EDITABLE(find(GTK_WIDGET(t), GTK_TYPE_SEARCH_ENTRY)), "ETA");
	assert_true(wait_for(one_row, t));
	g_free(by_name);
	by_name = shown(t);
	assert_string_equal(by_name, "beta|2");
	gtk_window_destroy(GTK_WINDOW(window));
}

/* A tree: Right expands the selected row, Left collapses it. */
static GListModel *children(gpointer item, gpointer data)
{
	const char *const kids[] = {"child|1", NULL};

	(void)data;
	if (strcmp(gtk_string_object_get_string(item), "root|"))
		return NULL;
	return G_LIST_MODEL(gtk_string_list_new(kids));
}

static gboolean key(GtkWidget *view, guint keyval)
{
	g_autoptr(GListModel) controllers = gtk_widget_observe_controllers(view);
	gboolean handled = FALSE;

	for (guint i = 0; i < g_list_model_get_n_items(controllers); i++) {
		g_autoptr(GObject) c = g_list_model_get_item(controllers, i);

		gboolean h = FALSE;

		if (GTK_IS_EVENT_CONTROLLER_KEY(c))
			g_signal_emit_by_name(c, "key-pressed", keyval, 0, 0, &h);
		handled |= h;
	}
	return handled;
}

static void test_tree_and_job(void **state)
{
	g_autoptr(GtkBuilder) b = gtk_builder_new_from_string(
	    "<interface><object class='TsdTable' id='t'><property name='tree'>true</property>"
	    "<child type='column'><object class='GtkColumnViewColumn'>"
	    "<property name='title'>Name</property></object></child></object></interface>",
	    -1);
	TsdTable *t = g_object_ref_sink(TSD_TABLE(gtk_builder_get_object(b, "t")));
	const char *const roots[] = {"root|", NULL};
	GtkTreeListModel *tree = gtk_tree_list_model_new(G_LIST_MODEL(gtk_string_list_new(roots)),
	                                                 FALSE, FALSE, children, NULL, NULL);
	GtkWidget *view = GTK_WIDGET(tsd_table_get_view(t));
	GCancellable *first, *second;
	GTask *old, *now;

	(void)state;
	tsd_table_set_cells(t, &cells, NULL);
	tsd_table_set_model(t, G_LIST_MODEL(tree));
	gtk_single_selection_set_selected(tsd_table_get_selection(t), 0);
	assert_true(key(view, GDK_KEY_Right));
	assert_int_equal(g_list_model_get_n_items(G_LIST_MODEL(tree)), 2);
	assert_false(key(view, GDK_KEY_Right)); /* expanded already */
	assert_true(key(view, GDK_KEY_Left));
	assert_int_equal(g_list_model_get_n_items(G_LIST_MODEL(tree)), 1);

	/* A newer job cancels the one before; only its answer counts. */
	first = g_object_ref(tsd_table_start_job(t, "Computing…"));
	second = tsd_table_start_job(t, "Computing again…");
	assert_true(g_cancellable_is_cancelled(first));
	assert_false(g_cancellable_is_cancelled(second));
	old = g_task_new(NULL, first, NULL, NULL);
	now = g_task_new(NULL, second, NULL, NULL);
	assert_false(tsd_table_end_job(t, G_ASYNC_RESULT(old)));
	/* A view disposed meanwhile has no table: no answer counts. */
	assert_false(tsd_table_end_job(NULL, G_ASYNC_RESULT(now)));
	assert_true(tsd_table_end_job(t, G_ASYNC_RESULT(now)));
	/* Over: its answer does not count twice. */
	assert_false(tsd_table_end_job(t, G_ASYNC_RESULT(now)));
	g_object_unref(old);
	g_object_unref(now);
	g_object_unref(first);
	g_object_unref(tree);
	g_object_unref(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flat_table),
	    cmocka_unit_test(test_tree_and_job),
	};

	if (!gtk_init_check()) {
		printf("no display: skipped\n");
		return 77;
	}
	g_type_ensure(TSD_TYPE_TABLE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
