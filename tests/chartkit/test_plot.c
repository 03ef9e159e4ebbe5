/*
 * TscPlot, the base of the chart and the heat map (tsc-plot.h), through
 * its own API on both: the visible range's clamping under zoom, pan and
 * focus moves (and none on the heat map, which is not zoomable), the
 * accessible description (summary, hovered and selected items, the
 * app's formatters), the selection's bounds and signal, and the keys
 * and pointer motion the base handles for both, driven through their
 * event controllers.
 */
#include "ck-test.h"

#include <tilescope/tsc-chart.h>
#include <tilescope/tsc-heatmap.h>
#include <tilescope/tsc-plot.h>

#include <math.h>
#include <string.h>

#define N 1000

typedef struct {
	GtkWidget *window;
	TscPlot *plot;
} Fixture;

static const GdkRGBA grey = { 0.5f, 0.5f, 0.5f, 1 };

/* A chart of n items, item i worth i + 1 (one component). */
static void set_chart(TscChart *chart, guint n)
{
	double *v = g_new(double, n);
	guint i;

	for (i = 0; i < n; i++)
		v[i] = i + 1;
	tsc_chart_set_stacks(chart, n, 1, v, &grey, NULL);
	g_free(v);
}

static int setup_chart(void **state)
{
	Fixture *f = g_new0(Fixture, 1);

	f->plot = TSC_PLOT(tsc_chart_new());
	tsc_plot_set_label(f->plot, "Memory by tile");
	set_chart(TSC_CHART(f->plot), N);
	f->window = ck_window_new(GTK_WIDGET(f->plot), 600, 300);
	*state = f;
	return 0;
}

/* A heat map of 2 rows × 3 columns, cell i worth i + 1. */
static int setup_heatmap(void **state)
{
	Fixture *f = g_new0(Fixture, 1);
	const double v[6] = { 1, 2, 3, 4, 5, 6 };

	f->plot = TSC_PLOT(tsc_heatmap_new());
	tsc_plot_set_label(f->plot, "Memory by tile, IPU 0");
	tsc_heatmap_set_data(TSC_HEATMAP(f->plot), 2, 3, v);
	f->window = ck_window_new(GTK_WIDGET(f->plot), 400, 300);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	Fixture *f = *state;

	gtk_window_destroy(GTK_WINDOW(f->window));
	ck_iterate();
	g_free(f);
	return 0;
}

static void assert_range(TscPlot *plot, double start, double end)
{
	ck_assert_close(tsc_plot_get_visible_start(plot), start, 1e-9);
	ck_assert_close(tsc_plot_get_visible_end(plot), end, 1e-9);
}

/* Fails unless the description contains `part`. */
static void assert_described(TscPlot *plot, const char *part)
{
	const char *d = tsc_plot_get_description(plot);

	if (!d || !strstr(d, part))
		fail_msg("description \"%s\" lacks \"%s\"", d ? d : "(null)", part);
}

static void assert_not_described(TscPlot *plot, const char *part)
{
	const char *d = tsc_plot_get_description(plot);

	if (d && strstr(d, part))
		fail_msg("description \"%s\" has \"%s\"", d, part);
}

/* The first controller of `type` on `w`. */
static GtkEventController *controller(GtkWidget *w, GType type)
{
	GListModel *list = gtk_widget_observe_controllers(w);
	GtkEventController *found = NULL;
	guint i;

	for (i = 0; i < g_list_model_get_n_items(list) && !found; i++) {
		GtkEventController *c = g_list_model_get_item(list, i);

		if (G_TYPE_CHECK_INSTANCE_TYPE(c, type))
			found = c;
		g_object_unref(c);
	}
	g_object_unref(list);
	assert_non_null(found);
	return found;
}

/* Presses a key on the plot's key controller; returns whether handled. */
static gboolean press(TscPlot *plot, guint keyval, GdkModifierType mods)
{
	gboolean handled = FALSE;

	g_signal_emit_by_name(controller(GTK_WIDGET(plot), GTK_TYPE_EVENT_CONTROLLER_KEY), "key-pressed",
	                      keyval, 0u, mods, &handled);
	return handled;
}

static guint n_signals;

static void count_cb(gpointer a, gpointer b)
{
	n_signals++;
}

static void test_types(void **state)
{
	Fixture *f = *state;

	assert_true(G_TYPE_IS_ABSTRACT(TSC_TYPE_PLOT));
	assert_true(g_type_is_a(TSC_TYPE_CHART, TSC_TYPE_PLOT));
	assert_true(g_type_is_a(TSC_TYPE_HEATMAP, TSC_TYPE_PLOT));
	assert_string_equal(tsc_plot_get_label(f->plot), "Memory by tile");
	assert_string_equal(tsc_chart_get_label(TSC_CHART(f->plot)), "Memory by tile");
	assert_int_equal(gtk_accessible_get_accessible_role(GTK_ACCESSIBLE(f->plot)),
	                 GTK_ACCESSIBLE_ROLE_IMG);
	assert_int_equal(tsc_plot_get_n_items(f->plot), N);
}

/* The visible range stays inside [0, n] and at least 4 items wide,
 * whatever zoom, pan and set_visible_range ask. */
static void test_range_clamping(void **state)
{
	Fixture *f = *state;
	TscPlot *p = f->plot;
	gulong handler;

	assert_range(p, 0, N);
	tsc_plot_set_visible_range(p, -50, 100);
	assert_range(p, 0, 150);
	tsc_plot_set_visible_range(p, 990, 1200);
	assert_range(p, 790, N);
	tsc_plot_set_visible_range(p, 500, 501);
	assert_range(p, 500, 504);
	tsc_plot_set_visible_range(p, NAN, 10);
	assert_range(p, 500, 504);
	tsc_plot_set_visible_range(p, 0, INFINITY);
	assert_range(p, 500, 504);

	/* Zoom keeps the anchor's place on screen. */
	tsc_plot_set_visible_range(p, 400, 800);
	tsc_plot_zoom(p, 0.5, 700);
	assert_range(p, 550, 750);
	tsc_plot_zoom(p, 1e-9, 600);
	ck_assert_close(tsc_plot_get_visible_end(p) - tsc_plot_get_visible_start(p), 4, 1e-9);
	tsc_plot_zoom(p, 1e9, 600);
	assert_range(p, 0, N);
	tsc_plot_zoom(p, 0, 600);
	tsc_plot_zoom(p, -2, 600);
	tsc_plot_zoom(p, NAN, 600);
	assert_range(p, 0, N);

	/* Pan stops at either end without shrinking the range. */
	tsc_plot_set_visible_range(p, 100, 300);
	tsc_plot_pan(p, 5000);
	assert_range(p, 800, N);
	tsc_plot_pan(p, -5000);
	assert_range(p, 0, 200);

	/* One signal per change, none for a range that does not change. */
	n_signals = 0;
	handler = g_signal_connect(p, "range-changed", G_CALLBACK(count_cb), NULL);
	tsc_plot_pan(p, -10);
	assert_int_equal(n_signals, 0);
	tsc_plot_pan(p, 10);
	assert_int_equal(n_signals, 1);
	tsc_plot_show_all(p);
	assert_int_equal(n_signals, 2);
	assert_range(p, 0, N);
	g_signal_handler_disconnect(p, handler);

	/* The properties: setting the start keeps the end. */
	tsc_plot_set_visible_range(p, 100, 300);
	g_object_set(p, "visible-start", 200.0, NULL);
	assert_range(p, 200, 300);

	/* The focus is kept in view. */
	tsc_plot_set_focus_item(p, 500);
	assert_int_equal(tsc_plot_get_focus_item(p), 500);
	assert_range(p, 401, 501);
	tsc_plot_set_focus_item(p, 5000);
	assert_int_equal(tsc_plot_get_focus_item(p), N - 1);
	assert_range(p, 900, N);

	/* Fewer items than the minimum width: all of them. */
	set_chart(TSC_CHART(p), 2);
	assert_range(p, 0, 2);
	tsc_plot_zoom(p, 0.1, 1);
	assert_range(p, 0, 2);
	set_chart(TSC_CHART(p), 0);
	assert_range(p, 0, 0);
	assert_string_equal(tsc_plot_get_description(p), "No data");
}

/* The heat map is not zoomable: every cell always shows. */
static void test_heatmap_not_zoomable(void **state)
{
	Fixture *f = *state;

	assert_range(f->plot, 0, 6);
	tsc_plot_set_visible_range(f->plot, 1, 5);
	assert_range(f->plot, 0, 6);
	tsc_plot_zoom(f->plot, 0.5, 3);
	tsc_plot_pan(f->plot, 2);
	assert_range(f->plot, 0, 6);
	/* Zoom and pan keys are not its own. */
	assert_false(press(f->plot, GDK_KEY_plus, 0));
	assert_false(press(f->plot, GDK_KEY_Page_Down, 0));
	assert_range(f->plot, 0, 6);
}

static char *format_bytes(double v, gpointer data)
{
	return g_strdup_printf("%g B", v);
}

static char *name_tile(guint item, gpointer data)
{
	return g_strdup_printf("Tile %u", item);
}

static void test_chart_description(void **state)
{
	Fixture *f = *state;
	TscPlot *p = f->plot;
	GtkBitset *b = gtk_bitset_new_empty();

	set_chart(TSC_CHART(p), 10);
	assert_string_equal(tsc_plot_get_description(p), "10 items; showing items 0 to 9; maximum Item 9, 10");
	tsc_plot_set_visible_range(p, 2, 6);
	assert_string_equal(tsc_plot_get_description(p), "10 items; showing items 2 to 5; maximum Item 5, 6");
	tsc_plot_set_item_label_func(p, name_tile, NULL, NULL);
	tsc_plot_set_value_format_func(p, format_bytes, NULL, NULL);
	assert_string_equal(tsc_plot_get_description(p), "10 items; showing items 2 to 5; maximum Tile 5, 6 B");
	gtk_bitset_add(b, 3);
	tsc_plot_set_selection(p, b);
	assert_string_equal(tsc_plot_get_description(p),
	                    "10 items; showing items 2 to 5; maximum Tile 5, 6 B; selected Tile 3, 4 B");
	gtk_bitset_add(b, 7);
	tsc_plot_set_selection(p, b);
	assert_described(p, "; 2 items selected");
	assert_not_described(p, "selected Tile");
	tsc_plot_set_selection(p, NULL);
	assert_not_described(p, "selected");
	gtk_bitset_unref(b);
}

static void test_heatmap_description(void **state)
{
	Fixture *f = *state;
	TscPlot *p = f->plot;
	GtkBitset *b = gtk_bitset_new_empty();
	const double holes[6] = { 7, NAN, 3, 4, 5, 6 };

	assert_string_equal(tsc_plot_get_description(p),
	                    "2 by 3 cells; minimum 1; maximum Cell 5 (row 1, column 2), 6");
	gtk_bitset_add_range(b, 1, 2);
	tsc_plot_set_selection(p, b);
	assert_described(p, "; 2 cells selected");
	tsc_heatmap_set_data(TSC_HEATMAP(p), 2, 3, holes);
	assert_string_equal(tsc_plot_get_description(p),
	                    "2 by 3 cells; minimum 3; maximum Cell 0 (row 0, column 0), 7; 2 cells selected");
	tsc_heatmap_set_data(TSC_HEATMAP(p), 0, 0, NULL);
	assert_string_equal(tsc_plot_get_description(p), "No data");
	gtk_bitset_unref(b);
}

/* Items past the end are dropped; the same selection emits nothing; a
 * new shape of the same cell count still clears it. */
static void test_selection_bounds(void **state)
{
	Fixture *f = *state;
	TscPlot *p = f->plot;
	GtkBitset *b = gtk_bitset_new_range(4, 10);
	const double v[6] = { 1, 2, 3, 4, 5, 6 };
	gulong handler;

	n_signals = 0;
	handler = g_signal_connect(p, "selection-changed", G_CALLBACK(count_cb), NULL);
	tsc_plot_set_selection(p, b);
	assert_int_equal(gtk_bitset_get_size(tsc_plot_get_selection(p)), 2);
	assert_int_equal(n_signals, 1);
	tsc_plot_set_selection(p, b);
	assert_int_equal(n_signals, 1);
	tsc_heatmap_set_data(TSC_HEATMAP(p), 2, 3, v);
	assert_int_equal(gtk_bitset_get_size(tsc_plot_get_selection(p)), 2);
	tsc_heatmap_set_data(TSC_HEATMAP(p), 3, 2, v);
	assert_true(gtk_bitset_is_empty(tsc_plot_get_selection(p)));
	assert_int_equal(n_signals, 2);
	g_signal_handler_disconnect(p, handler);
	gtk_bitset_unref(b);
}

/* The keys the base handles on the chart: focus moves with the view
 * following, shift extends from the anchor, Space selects, ctrl+Space
 * toggles, Escape clears (and is not taken when nothing is selected),
 * zoom keys around the focus, Up and Down are not the chart's. */
static void test_chart_keys(void **state)
{
	Fixture *f = *state;
	TscPlot *p = f->plot;
	GtkBitset *sel;

	set_chart(TSC_CHART(p), 100);
	assert_true(press(p, GDK_KEY_Right, 0));
	assert_int_equal(tsc_plot_get_focus_item(p), 1);
	assert_true(press(p, GDK_KEY_Right, GDK_SHIFT_MASK));
	assert_true(press(p, GDK_KEY_Right, GDK_SHIFT_MASK));
	sel = tsc_plot_get_selection(p);
	assert_int_equal(gtk_bitset_get_size(sel), 3);
	assert_true(gtk_bitset_contains(sel, 1) && gtk_bitset_contains(sel, 3));
	assert_true(press(p, GDK_KEY_Escape, 0));
	assert_true(gtk_bitset_is_empty(tsc_plot_get_selection(p)));
	assert_false(press(p, GDK_KEY_Escape, 0));
	assert_true(press(p, GDK_KEY_space, 0));
	assert_int_equal(gtk_bitset_get_size(tsc_plot_get_selection(p)), 1);
	assert_true(gtk_bitset_contains(tsc_plot_get_selection(p), 3));
	assert_described(p, "; selected Item 3, 4");
	assert_true(press(p, GDK_KEY_space, GDK_CONTROL_MASK));
	assert_true(gtk_bitset_is_empty(tsc_plot_get_selection(p)));
	assert_false(press(p, GDK_KEY_Up, 0));
	assert_false(press(p, GDK_KEY_Down, 0));

	/* + zooms by 1.5 around the focused item's centre. */
	assert_true(press(p, GDK_KEY_plus, 0));
	ck_assert_close(tsc_plot_get_visible_end(p) - tsc_plot_get_visible_start(p), 100 / 1.5, 1e-9);
	ck_assert_close(tsc_plot_get_visible_start(p), 3.5 - 3.5 / 1.5, 1e-9);
	assert_true(press(p, GDK_KEY_Home, 0));
	assert_range(p, 0, 100);
	tsc_plot_set_visible_range(p, 0, 10);
	assert_true(press(p, GDK_KEY_Right, GDK_CONTROL_MASK));
	assert_range(p, 1, 11);
	assert_int_equal(tsc_plot_get_focus_item(p), 3);
	/* The focus walks to the left edge; the view follows it. */
	tsc_plot_set_visible_range(p, 50, 60);
	assert_true(press(p, GDK_KEY_Left, 0));
	assert_int_equal(tsc_plot_get_focus_item(p), 2);
	assert_range(p, 2, 12);
	tsc_plot_set_focus_item(p, 0);
	assert_true(press(p, GDK_KEY_Left, 0));
	assert_int_equal(tsc_plot_get_focus_item(p), 0);
}

/* On the heat map the arrows move one cell in two dimensions and stop
 * at the edges; shift selects the rectangle from the anchor. */
static void test_heatmap_keys(void **state)
{
	Fixture *f = *state;
	TscPlot *p = f->plot;
	GtkBitset *sel;

	assert_true(press(p, GDK_KEY_Up, 0));
	assert_int_equal(tsc_plot_get_focus_item(p), 0);
	assert_true(press(p, GDK_KEY_Down, 0));
	assert_int_equal(tsc_plot_get_focus_item(p), 3);
	assert_true(press(p, GDK_KEY_Down, 0));
	assert_int_equal(tsc_plot_get_focus_item(p), 3);
	assert_true(press(p, GDK_KEY_Right, GDK_CONTROL_MASK));
	assert_int_equal(tsc_plot_get_focus_item(p), 4);
	assert_true(press(p, GDK_KEY_Up, GDK_SHIFT_MASK));
	assert_true(press(p, GDK_KEY_Right, GDK_SHIFT_MASK));
	assert_true(press(p, GDK_KEY_Right, GDK_SHIFT_MASK));
	assert_int_equal(tsc_plot_get_focus_item(p), 2);
	/* Cells 1, 2 (row 0) and 4, 5 (row 1). */
	sel = tsc_plot_get_selection(p);
	assert_int_equal(gtk_bitset_get_size(sel), 4);
	assert_true(gtk_bitset_contains(sel, 1) && gtk_bitset_contains(sel, 5));
	assert_false(gtk_bitset_contains(sel, 3));
	assert_described(p, "; 4 cells selected");
	assert_true(press(p, GDK_KEY_Return, GDK_CONTROL_MASK));
	assert_int_equal(gtk_bitset_get_size(tsc_plot_get_selection(p)), 3);
	assert_false(gtk_bitset_contains(tsc_plot_get_selection(p), 2));
}

/* Pointer motion hovers the item under it, named in the description;
 * leaving clears it. */
static void test_hover(void **state)
{
	Fixture *f = *state;
	TscPlot *p = f->plot;
	GtkEventController *motion = controller(GTK_WIDGET(p), GTK_TYPE_EVENT_CONTROLLER_MOTION);
	graphene_rect_t a;
	guint first = 0, n = 0;

	tsc_plot_get_area(p, &a);
	/* Row 1, column 1 of the heat map: cell 4. */
	g_signal_emit_by_name(motion, "motion", a.origin.x + a.size.width * 0.5,
	                      a.origin.y + a.size.height * 0.75);
	assert_int_equal(tsc_plot_item_at(p, a.origin.x + a.size.width * 0.5,
	                                  a.origin.y + a.size.height * 0.75, &first, &n), 4);
	assert_int_equal(first, 4);
	assert_int_equal(n, 1);
	assert_described(p, "; hovered Cell 4 (row 1, column 1), 5");
	g_signal_emit_by_name(motion, "leave");
	assert_not_described(p, "hovered");
	assert_int_equal(tsc_plot_item_at(p, a.origin.x - 5, a.origin.y, NULL, NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_types, setup_chart, teardown),
		cmocka_unit_test_setup_teardown(test_range_clamping, setup_chart, teardown),
		cmocka_unit_test_setup_teardown(test_heatmap_not_zoomable, setup_heatmap, teardown),
		cmocka_unit_test_setup_teardown(test_chart_description, setup_chart, teardown),
		cmocka_unit_test_setup_teardown(test_heatmap_description, setup_heatmap, teardown),
		cmocka_unit_test_setup_teardown(test_selection_bounds, setup_heatmap, teardown),
		cmocka_unit_test_setup_teardown(test_chart_keys, setup_chart, teardown),
		cmocka_unit_test_setup_teardown(test_heatmap_keys, setup_heatmap, teardown),
		cmocka_unit_test_setup_teardown(test_hover, setup_heatmap, teardown),
	};

	ck_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
