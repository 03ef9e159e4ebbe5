/*
 * TscChart diverging around zero (tsc_chart_set_below), as compare
 * mode's B − A memory chart uses it: increases stack up from a zero line
 * inside the plot and decreases down from it, hit testing finds each on
 * its side, and under level of detail a column shows both its largest
 * increase and its largest decrease. (The description is read over
 * AT-SPI by tests/gui/check-compare-verdicts.py.)
 */
#include "ck-test.h"

#include <tilescope/tsc-chart.h>

#include <string.h>

#define WIDTH 600
#define HEIGHT 300

typedef struct {
	GtkWidget *window;
	TscChart *chart;
	GdkRGBA colours[2];
} Fixture;

/* Item i's increase (component 0) and decrease (component 1): every
 * third item grows by i + 1, the next shrinks by 2 (i + 1), the third
 * is unchanged. */
static double up_of(guint i)
{
	return i % 3 == 0 ? i + 1.0 : 0;
}

static double down_of(guint i)
{
	return i % 3 == 1 ? 2.0 * (i + 1) : 0;
}

static void set_data(Fixture *f, guint n)
{
	double *v = g_new(double, 2 * (gsize)n);
	const char *names[] = {"Increase", "Decrease"};

	for (guint i = 0; i < n; i++) {
		v[i] = up_of(i);
		v[n + i] = down_of(i);
	}
	tsc_chart_set_stacks(f->chart, n, 2, v, f->colours, names);
	g_free(v);
	ck_iterate();
}

static int setup(void **state)
{
	Fixture *f = g_new0(Fixture, 1);

	f->colours[0] = (GdkRGBA){0.88f, 0.11f, 0.14f, 1};
	f->colours[1] = (GdkRGBA){0.18f, 0.76f, 0.49f, 1};
	f->chart = TSC_CHART(tsc_chart_new());
	tsc_chart_set_label(f->chart, "Difference");
	tsc_chart_set_below(f->chart, 1);
	f->window = ck_window_new(GTK_WIDGET(f->chart), WIDTH, HEIGHT);
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

/* The x of item i's bar centre (no level of detail). */
static double item_centre(const graphene_rect_t *p, guint i, guint n)
{
	return p->origin.x + (i + 0.5) * p->size.width / n;
}

/* The topmost and bottommost y at which component k is hit at x; FALSE
 * when it is nowhere. */
static gboolean extent_of(Fixture *f, const graphene_rect_t *p, double x, int k, double *top,
                          double *bottom)
{
	gboolean found = FALSE;

	for (double y = p->origin.y + 0.5; y < p->origin.y + p->size.height; y += 1)
		if (tsc_chart_component_at(f->chart, x, y) == k) {
			if (!found)
				*top = y;
			*bottom = y;
			found = TRUE;
		}
	return found;
}

static void test_sides(void **state)
{
	Fixture *f = *state;
	graphene_rect_t p;
	double up_top = 0, up_bottom = 0, down_top = 0, down_bottom = 0, t, b;
	guint n = 60;

	assert_int_equal(tsc_chart_get_below(f->chart), 1);
	set_data(f, n);
	tsc_chart_get_plot_area(f->chart, &p);
	/* The largest increase (item 57, 58) rises from the zero line; the
	 * largest decrease (item 58, 118) hangs below it. */
	assert_true(extent_of(f, &p, item_centre(&p, 57, n), 0, &up_top, &up_bottom));
	assert_true(extent_of(f, &p, item_centre(&p, 58, n), 1, &down_top, &down_bottom));
	assert_false(extent_of(f, &p, item_centre(&p, 57, n), 1, &t, &b));
	assert_false(extent_of(f, &p, item_centre(&p, 58, n), 0, &t, &b));
	assert_false(extent_of(f, &p, item_centre(&p, 59, n), 0, &t, &b));
	/* One zero line between them, well inside the plot. */
	assert_true(up_bottom < down_top);
	assert_true(down_top - up_bottom <= 3);
	assert_true(up_bottom > p.origin.y + p.size.height * 0.2);
	assert_true(down_top < p.origin.y + p.size.height * 0.8);
	/* Heights in proportion: the decrease is twice as tall. */
	ck_assert_close((down_bottom - down_top) / (up_bottom - up_top), 118.0 / 58.0, 0.15);
}

/* Back to stacking every component up: the decrease rises from the
 * bottom again. */
static void test_back_to_stacked(void **state)
{
	Fixture *f = *state;

	set_data(f, 60);
	tsc_chart_set_below(f->chart, 0);
	ck_iterate();
	{
		graphene_rect_t p;
		double top, bottom;

		tsc_chart_get_plot_area(f->chart, &p);
		assert_true(extent_of(f, &p, item_centre(&p, 58, 60), 1, &top, &bottom));
		assert_true(bottom > p.origin.y + p.size.height - 2);
	}
}

/* Level of detail: 6,000 items in ~550 columns; every column holds both
 * increases and decreases, so each draws one bar of each colour. */
static void test_lod(void **state)
{
	Fixture *f = *state;
	graphene_rect_t p;
	GskRenderNode *node;
	guint ups, downs;

	set_data(f, 6000);
	tsc_chart_get_plot_area(f->chart, &p);
	node = ck_snapshot(GTK_WIDGET(f->chart));
	ups = ck_count_colour_nodes(node, &f->colours[0]);
	downs = ck_count_colour_nodes(node, &f->colours[1]);
	gsk_render_node_unref(node);
	assert_true(ups >= (guint)p.size.width - 1 && ups <= (guint)p.size.width + 1);
	assert_true(downs >= (guint)p.size.width - 1 && downs <= (guint)p.size.width + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sides, setup, teardown),
		cmocka_unit_test_setup_teardown(test_back_to_stacked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lod, setup, teardown),
	};

	ck_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
