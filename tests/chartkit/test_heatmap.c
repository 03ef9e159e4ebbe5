/*
 * TscHeatmap in a window under Xvfb: the grid is one texture at device
 * pixels, cell hit testing (holes included), selection through the API
 * without rebuilding the grid, and a render that is not blank.
 */
#include "ck-test.h"

#include <tilescope/tsc-heatmap.h>

#include <math.h>

#define ROWS 23
#define COLS 64
#define WIDTH 600
#define HEIGHT 400

typedef struct {
	GtkWidget *window;
	TscHeatmap *map;
	double values[ROWS * COLS];
} Fixture;

static int setup(void **state)
{
	Fixture *f = g_new0(Fixture, 1);
	guint i;

	for (i = 0; i < ROWS * COLS; i++)
		f->values[i] = (i * 37) % 1000 + 100 * sin(i / 50.0);
	f->values[5 * COLS + 7] = NAN;  /* a hole */
	f->map = TSC_HEATMAP(tsc_heatmap_new());
	tsc_heatmap_set_label(f->map, "Memory by tile, IPU 0");
	tsc_heatmap_set_data(f->map, ROWS, COLS, f->values);
	f->window = ck_window_new(GTK_WIDGET(f->map), WIDTH, HEIGHT);
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

static void test_one_texture(void **state)
{
	Fixture *f = *state;
	GskRenderNode *node = ck_snapshot(GTK_WIDGET(f->map));
	graphene_rect_t g;
	int tw, th, scale = gtk_widget_get_scale_factor(GTK_WIDGET(f->map));

	tsc_heatmap_get_grid_area(f->map, &g);
	assert_int_equal(ck_count_textures(node, &tw, &th), 1);
	/* 1:1 with the device pixels the grid covers, whole cells. */
	assert_int_equal(tw, (int)lround(g.size.width * scale));
	assert_int_equal(th, (int)lround(g.size.height * scale));
	assert_int_equal(tw % COLS, 0);
	assert_int_equal(th % ROWS, 0);
	assert_int_equal(tw / COLS, th / ROWS);
	assert_true(tw / COLS >= 4);
	/* No per-cell primitives. */
	assert_true(ck_count_colour_nodes(node, NULL) < 10);
	gsk_render_node_unref(node);
}

static void test_hit(void **state)
{
	Fixture *f = *state;
	graphene_rect_t g;
	double cw, ch;
	guint r, c;

	tsc_heatmap_get_grid_area(f->map, &g);
	cw = g.size.width / COLS;
	ch = g.size.height / ROWS;
	for (r = 0; r < ROWS; r += 3)
		for (c = 0; c < COLS; c += 5) {
			if (r == 5 && c == 7)
				continue;
			assert_int_equal(tsc_heatmap_cell_at(f->map, g.origin.x + (c + 0.5) * cw,
			                                     g.origin.y + (r + 0.5) * ch), r * COLS + c);
		}
	assert_int_equal(tsc_heatmap_cell_at(f->map, g.origin.x + 7.5 * cw, g.origin.y + 5.5 * ch), -1);
	assert_int_equal(tsc_heatmap_cell_at(f->map, g.origin.x - 1, g.origin.y + 1), -1);
	assert_int_equal(tsc_heatmap_cell_at(f->map, g.origin.x + 1, g.origin.y + g.size.height + 1), -1);
	assert_int_equal(tsc_heatmap_cell_at(f->map, g.origin.x + g.size.width - 0.5,
	                                     g.origin.y + g.size.height - 0.5), ROWS * COLS - 1);
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
	GskRenderNode *node;
	guint64 gen;
	gulong handler;

	node = ck_snapshot(GTK_WIDGET(f->map));
	gsk_render_node_unref(node);
	gen = tsc_heatmap_get_render_generation(f->map);
	signal_count = 0;
	handler = g_signal_connect(f->map, "selection-changed", G_CALLBACK(count_cb), NULL);
	gtk_bitset_add_rectangle(b, 2 * COLS + 3, 4, 3, COLS);  /* 4 columns × 3 rows */
	gtk_bitset_add(b, ROWS * COLS + 5);                      /* out of range */
	tsc_heatmap_set_selection(f->map, b);
	assert_int_equal(signal_count, 1);
	assert_int_equal(gtk_bitset_get_size(tsc_heatmap_get_selection(f->map)), 12);
	tsc_heatmap_set_selection(f->map, tsc_heatmap_get_selection(f->map));
	assert_int_equal(signal_count, 1);
	/* The selection is an overlay texture; the grid is not rebuilt. */
	node = ck_snapshot(GTK_WIDGET(f->map));
	assert_int_equal(ck_count_textures(node, NULL, NULL), 2);
	assert_int_equal(tsc_heatmap_get_render_generation(f->map), gen);
	gsk_render_node_unref(node);
	/* New values of the same shape keep it; a new shape clears it. */
	tsc_heatmap_set_data(f->map, ROWS, COLS, f->values);
	assert_int_equal(gtk_bitset_get_size(tsc_heatmap_get_selection(f->map)), 12);
	tsc_heatmap_set_data(f->map, ROWS - 1, COLS, f->values);
	assert_true(gtk_bitset_is_empty(tsc_heatmap_get_selection(f->map)));
	assert_int_equal(signal_count, 2);
	g_signal_handler_disconnect(f->map, handler);
	gtk_bitset_unref(b);
}

static void test_png(void **state)
{
	Fixture *f = *state;
	char *dir = ck_mkdtemp(), *path = g_build_filename(dir, "heatmap.png", NULL);
	GskRenderNode *node = ck_snapshot(GTK_WIDGET(f->map));
	GdkTexture *t = ck_render(node, 1);

	assert_true(ck_pixel_variance(t) > 100);
	assert_true(gdk_texture_save_to_png(t, path));
	assert_true(g_file_test(path, G_FILE_TEST_IS_REGULAR));
	g_object_unref(t);
	gsk_render_node_unref(node);
	ck_rmtree(dir);
	g_free(path);
	g_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_texture, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_selection, setup, teardown),
		cmocka_unit_test_setup_teardown(test_png, setup, teardown),
	};

	ck_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
