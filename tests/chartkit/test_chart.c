/*
 * TscChart in a window under Xvfb: level-of-detail column counts and the
 * render-node budget, hit testing with and without level of detail,
 * selection and zoom through the API, the cached layer surviving hover
 * and selection, and a render to PNG that is not blank.
 */
#include "ck-test.h"

#include <tilescope/tsc-chart.h>

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define K 5
#define WIDTH 600
#define HEIGHT 300

typedef struct {
	GtkWidget *window;
	TscChart *chart;
	GdkRGBA colours[K];
	double *values;
	guint n;
} Fixture;

/* Component k of item i: 1..10, never 0, so every column draws every
 * component. */
static double value_of(guint i, guint k)
{
	return 1 + (i * 7 + k * 3 + (i % 97 == 0 ? 40 : 0)) % 10;
}

static void set_data(Fixture *f, guint n)
{
	guint i, k;

	g_free(f->values);
	f->n = n;
	f->values = g_new(double, (gsize)n * K);
	for (k = 0; k < K; k++)
		for (i = 0; i < n; i++)
			f->values[(gsize)k * n + i] = value_of(i, k);
	tsc_chart_set_stacks(f->chart, n, K, f->values, f->colours, NULL);
}

static int setup(void **state)
{
	Fixture *f = g_new0(Fixture, 1);
	guint k;

	for (k = 0; k < K; k++)
		f->colours[k] = (GdkRGBA){ 0.1f + 0.2f * k, 0.5f, 0.9f - 0.2f * k, 1 };
	f->chart = TSC_CHART(tsc_chart_new());
	tsc_chart_set_label(f->chart, "Memory by tile");
	f->window = ck_window_new(GTK_WIDGET(f->chart), WIDTH, HEIGHT);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	Fixture *f = *state;

	gtk_window_destroy(GTK_WINDOW(f->window));
	ck_iterate();
	g_free(f->values);
	g_free(f);
	return 0;
}

static int plot_columns(Fixture *f)
{
	graphene_rect_t p;

	tsc_chart_get_plot_area(f->chart, &p);
	return (int)p.size.width;
}

static void test_lod_columns(void **state)
{
	Fixture *f = *state;
	GskRenderNode *node;
	int cols;
	guint k, total;

	set_data(f, 5888);
	assert_int_equal(gtk_widget_get_width(GTK_WIDGET(f->chart)), WIDTH);
	cols = plot_columns(f);
	assert_true(cols > WIDTH / 2 && cols <= WIDTH);
	node = ck_snapshot(GTK_WIDGET(f->chart));
	for (k = 0; k < K; k++) {
		guint n = ck_count_colour_nodes(node, &f->colours[k]);

		/* One rectangle per pixel column and component, not per item. */
		assert_int_equal(n, cols);
	}
	total = ck_count_colour_nodes(node, NULL);
	assert_true(total <= 2u * WIDTH * (K + 1));
	gsk_render_node_unref(node);

	/* 100 items in the same width: 100 bars per component. */
	set_data(f, 100);
	node = ck_snapshot(GTK_WIDGET(f->chart));
	for (k = 0; k < K; k++)
		assert_int_equal(ck_count_colour_nodes(node, &f->colours[k]), 100);
	gsk_render_node_unref(node);

	/* Zoomed to 1,000 of 70,000 steps: level of detail again. */
	set_data(f, 70000);
	tsc_chart_set_visible_range(f->chart, 30000, 31000);
	node = ck_snapshot(GTK_WIDGET(f->chart));
	assert_int_equal(ck_count_colour_nodes(node, &f->colours[0]), cols);
	gsk_render_node_unref(node);
}

/* A single non-zero item among 5,888 still shows, in its own column. */
static void test_thin_item_shows(void **state)
{
	Fixture *f = *state;
	double *v = g_new0(double, 5888 * K);
	GskRenderNode *node;
	graphene_rect_t p;
	guint first = 0, n = 0, hits;
	gint64 item = -1;
	int c;

	v[4321] = 5;  /* component 0 of item 4321 */
	tsc_chart_set_stacks(f->chart, 5888, K, v, f->colours, NULL);
	node = ck_snapshot(GTK_WIDGET(f->chart));
	hits = ck_count_colour_nodes(node, &f->colours[0]);
	assert_int_equal(hits, 1);
	gsk_render_node_unref(node);
	tsc_chart_get_plot_area(f->chart, &p);
	for (c = 0; c < (int)p.size.width; c++) {
		item = tsc_chart_item_at(f->chart, p.origin.x + c + 0.5, &first, &n);
		if (first <= 4321 && 4321 < first + n)
			break;
	}
	assert_int_equal(item, 4321);
	assert_true(n > 1);
	assert_int_equal(tsc_chart_component_at(f->chart, p.origin.x + c + 0.5,
	                                        p.origin.y + p.size.height - 0.5), 0);
	g_free(v);
}

static void test_hit_bars(void **state)
{
	Fixture *f = *state;
	graphene_rect_t p;
	guint i, first, n;
	double x;
	int k, last = -1;

	set_data(f, 100);
	tsc_chart_get_plot_area(f->chart, &p);
	for (i = 0; i < 100; i += 7) {
		x = p.origin.x + (i + 0.5) * p.size.width / 100;
		assert_int_equal(tsc_chart_item_at(f->chart, x, &first, &n), i);
		assert_int_equal(first, i);
		assert_int_equal(n, 1);
	}
	assert_int_equal(tsc_chart_item_at(f->chart, p.origin.x - 2, NULL, NULL), -1);
	assert_int_equal(tsc_chart_item_at(f->chart, p.origin.x + p.size.width + 1, NULL, NULL), -1);
	/* Up a bar from the baseline: components 0, 1, ... in order, then
	 * nothing above the stack. */
	x = p.origin.x + 10.5 * p.size.width / 100;
	for (double y = p.origin.y + p.size.height - 0.5; y > p.origin.y; y -= 1) {
		k = tsc_chart_component_at(f->chart, x, y);
		if (k < 0)
			break;
		assert_true(k >= last);
		last = k;
	}
	assert_int_equal(last, K - 1);
	assert_int_equal(tsc_chart_component_at(f->chart, x, p.origin.y + 1), -1);
}

static void test_hit_lod(void **state)
{
	Fixture *f = *state;
	graphene_rect_t p;
	guint first, n, next_first = 0, i, k;
	int c;

	set_data(f, 5888);
	tsc_chart_get_plot_area(f->chart, &p);
	for (c = 0; c < (int)p.size.width; c++) {
		gint64 item = tsc_chart_item_at(f->chart, p.origin.x + c + 0.5, &first, &n);
		double best = -1;
		guint arg = 0;

		/* Columns tile the items: none dropped, none twice. */
		assert_int_equal(first, next_first);
		next_first = first + n;
		assert_true(n >= 9 && n <= 11);
		for (i = first; i < first + n; i++) {
			double t = 0;

			for (k = 0; k < K; k++)
				t += value_of(i, k);
			if (t > best) {
				best = t;
				arg = i;
			}
		}
		assert_int_equal(item, arg);
	}
	assert_int_equal(next_first, 5888);
}

static guint signal_count;

static void count_cb(gpointer a, gpointer b)
{
	signal_count++;
}

static void test_selection(void **state)
{
	Fixture *f = *state;
	GtkBitset *b = gtk_bitset_new_empty();
	GtkBitset *sel;
	GskRenderNode *node;
	guint64 gen;
	gulong handler;

	set_data(f, 100);
	signal_count = 0;
	handler = g_signal_connect(f->chart, "selection-changed", G_CALLBACK(count_cb), NULL);
	gtk_bitset_add(b, 3);
	gtk_bitset_add_range(b, 10, 5);
	gtk_bitset_add(b, 250);  /* beyond the items: dropped */
	node = ck_snapshot(GTK_WIDGET(f->chart));
	gsk_render_node_unref(node);
	gen = tsc_chart_get_render_generation(f->chart);
	tsc_chart_set_selection(f->chart, b);
	assert_int_equal(signal_count, 1);
	sel = tsc_chart_get_selection(f->chart);
	assert_int_equal(gtk_bitset_get_size(sel), 6);
	assert_true(gtk_bitset_contains(sel, 3) && gtk_bitset_contains(sel, 14));
	assert_false(gtk_bitset_contains(sel, 250));
	/* The same selection again: no signal. */
	gtk_bitset_remove(b, 250);
	tsc_chart_set_selection(f->chart, b);
	assert_int_equal(signal_count, 1);
	/* The overlay shows it without rebuilding the cached layer. */
	node = ck_snapshot(GTK_WIDGET(f->chart));
	assert_int_equal(tsc_chart_get_render_generation(f->chart), gen);
	gsk_render_node_unref(node);
	tsc_chart_set_selection(f->chart, NULL);
	assert_int_equal(signal_count, 2);
	assert_true(gtk_bitset_is_empty(tsc_chart_get_selection(f->chart)));
	/* A new item count clears it. */
	tsc_chart_set_selection(f->chart, b);
	set_data(f, 50);
	assert_true(gtk_bitset_is_empty(tsc_chart_get_selection(f->chart)));
	g_signal_handler_disconnect(f->chart, handler);
	gtk_bitset_unref(b);
}

static void test_zoom(void **state)
{
	Fixture *f = *state;
	TscChart *other;
	GskRenderNode *node;
	guint64 gen;
	gulong handler;
	double s, e;

	set_data(f, 5888);
	ck_assert_close(tsc_chart_get_visible_start(f->chart), 0, 0);
	ck_assert_close(tsc_chart_get_visible_end(f->chart), 5888, 0);
	node = ck_snapshot(GTK_WIDGET(f->chart));
	gsk_render_node_unref(node);
	gen = tsc_chart_get_render_generation(f->chart);
	signal_count = 0;
	handler = g_signal_connect(f->chart, "range-changed", G_CALLBACK(count_cb), NULL);
	/* Halving around item 1,472 keeps it a quarter of the way across. */
	tsc_chart_zoom(f->chart, 0.5, 1472);
	s = tsc_chart_get_visible_start(f->chart);
	e = tsc_chart_get_visible_end(f->chart);
	ck_assert_close(e - s, 2944, 1e-6);
	ck_assert_close((1472 - s) / (e - s), 0.25, 1e-9);
	assert_int_equal(signal_count, 1);
	node = ck_snapshot(GTK_WIDGET(f->chart));
	assert_int_equal(tsc_chart_get_render_generation(f->chart), gen + 1);
	gsk_render_node_unref(node);
	/* Panning stops at the end. */
	tsc_chart_pan(f->chart, 100000);
	ck_assert_close(tsc_chart_get_visible_end(f->chart), 5888, 0);
	ck_assert_close(tsc_chart_get_visible_start(f->chart), 5888 - 2944, 1e-6);
	/* Zooming in stops at 4 items. */
	tsc_chart_zoom(f->chart, 1e-9, 3000);
	ck_assert_close(tsc_chart_get_visible_end(f->chart) - tsc_chart_get_visible_start(f->chart), 4, 1e-9);
	tsc_chart_show_all(f->chart);
	ck_assert_close(tsc_chart_get_visible_end(f->chart), 5888, 0);
	/* The range is a property other views bind to. */
	other = TSC_CHART(g_object_ref_sink(tsc_chart_new()));
	tsc_chart_set_stacks(other, 5888, K, f->values, f->colours, NULL);
	g_object_bind_property(f->chart, "visible-start", other, "visible-start", G_BINDING_DEFAULT);
	g_object_bind_property(f->chart, "visible-end", other, "visible-end", G_BINDING_DEFAULT);
	tsc_chart_set_visible_range(f->chart, 100, 600);
	ck_assert_close(tsc_chart_get_visible_start(other), 100, 0);
	ck_assert_close(tsc_chart_get_visible_end(other), 600, 0);
	g_object_unref(other);
	g_signal_handler_disconnect(f->chart, handler);
}

static void test_layers(void **state)
{
	Fixture *f = *state;
	const GdkRGBA limit = { 1, 0, 0, 1 }, mark = { 0, 1, 0, 1 }, line = { 0, 0, 1, 1 };
	guint markers[] = { 10, 4000, 4001, 5000 };
	double *series = g_new(double, 5888);
	GskRenderNode *node;
	guint i;

	set_data(f, 5888);
	for (i = 0; i < 5888; i++)
		series[i] = 20 + 5 * sin(i / 100.0);
	tsc_chart_add_series(f->chart, "Always live", series, &line, TSC_SERIES_LINE);
	tsc_chart_add_limit(f->chart, 60, "Max memory 60 B", &limit);
	tsc_chart_set_markers(f->chart, markers, G_N_ELEMENTS(markers), &mark);
	node = ck_snapshot(GTK_WIDGET(f->chart));
	assert_int_equal(ck_count_colour_nodes(node, &limit), 1);
	/* 4000 and 4001 share a pixel column: one mark. */
	assert_int_equal(ck_count_colour_nodes(node, &mark), 3);
	gsk_render_node_unref(node);
	tsc_chart_clear_limits(f->chart);
	tsc_chart_clear_series(f->chart);
	tsc_chart_set_markers(f->chart, NULL, 0, NULL);
	g_free(series);
}

static void test_png(void **state)
{
	Fixture *f = *state;
	char *dir = ck_mkdtemp(), *path = g_build_filename(dir, "chart.png", NULL);
	GskRenderNode *node;
	GdkTexture *t;
	GStatBuf st;

	set_data(f, 5888);
	tsc_chart_add_limit(f->chart, 40, "Max memory 40 B", NULL);
	node = ck_snapshot(GTK_WIDGET(f->chart));
	t = ck_render(node, 1);
	assert_int_equal(gdk_texture_get_width(t), WIDTH);
	assert_true(ck_pixel_variance(t) > 100);
	assert_true(gdk_texture_save_to_png(t, path));
	assert_int_equal(g_stat(path, &st), 0);
	assert_true(st.st_size > 2000);
	g_object_unref(t);
	/* At scale 2 the texture has twice the pixels. */
	t = ck_render(node, 2);
	assert_int_equal(gdk_texture_get_width(t), 2 * WIDTH);
	assert_true(ck_pixel_variance(t) > 100);
	g_object_unref(t);
	gsk_render_node_unref(node);
	tsc_chart_clear_limits(f->chart);
	ck_rmtree(dir);
	g_free(path);
	g_free(dir);
}

static void test_focusable(void **state)
{
	Fixture *f = *state;

	assert_true(gtk_widget_get_focusable(GTK_WIDGET(f->chart)));
	assert_int_equal(gtk_accessible_get_accessible_role(GTK_ACCESSIBLE(f->chart)),
	                 GTK_ACCESSIBLE_ROLE_IMG);
	set_data(f, 100);
	tsc_chart_set_visible_range(f->chart, 0, 10);
	tsc_chart_set_focus_item(f->chart, 50);
	assert_int_equal(tsc_chart_get_focus_item(f->chart), 50);
	/* The view follows the focused item. */
	assert_true(tsc_chart_get_visible_start(f->chart) <= 50 && tsc_chart_get_visible_end(f->chart) >= 51);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lod_columns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thin_item_shows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hit_bars, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hit_lod, setup, teardown),
		cmocka_unit_test_setup_teardown(test_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zoom, setup, teardown),
		cmocka_unit_test_setup_teardown(test_layers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_png, setup, teardown),
		cmocka_unit_test_setup_teardown(test_focusable, setup, teardown),
	};

	ck_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
