/*
 * The chart kit's timeline pieces (tsc-timeline.h) without a display: the
 * viewport's one convention for zoom (> 1: in, about a fraction of the
 * width) and pan (> 0: later), its clamping and least width, the mapping
 * of keys and the wheel onto it, the tick labels, and the folding rule:
 * nothing dropped, the counts of the marks adding up to the input's; and
 * a span lane drawn into a snapshot (no display needed): what it folds,
 * what it skips outside the window, what a point hits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/tsc-timeline.h>

#include <math.h>
#include <pango/pangocairo.h>

static void assert_window(const TscViewport *vp, int64_t from, int64_t to)
{
	assert_int_equal(vp->from, from);
	assert_int_equal(vp->to, to);
}

static void test_clamp(void **state)
{
	TscViewport vp;

	(void)state;
	tsc_viewport_init(&vp, TSC_TIMELINE_NS, 0, 1000, 100);
	assert_window(&vp, 0, 1000);
	/* Before the start: moved in, the width kept. */
	assert_true(tsc_viewport_set(&vp, -50, 150));
	assert_window(&vp, 0, 200);
	/* Narrower than the least width: widened to it. */
	assert_true(tsc_viewport_set(&vp, 500, 510));
	assert_window(&vp, 500, 600);
	/* Past the end: moved back. */
	assert_true(tsc_viewport_set(&vp, 950, 1050));
	assert_window(&vp, 900, 1000);
	/* Wider than the axis: the axis. */
	assert_true(tsc_viewport_set(&vp, -5000, 5000));
	assert_window(&vp, 0, 1000);
	/* Everything there is, as callers ask with the extremes. */
	tsc_viewport_set(&vp, 400, 500);
	assert_true(tsc_viewport_set(&vp, INT64_MIN, INT64_MAX));
	assert_window(&vp, 0, 1000);
	tsc_viewport_set(&vp, 400, 500);
	assert_true(tsc_viewport_set(&vp, INT64_MAX - 5, INT64_MAX));
	assert_window(&vp, 900, 1000);
	/* Backwards: the least width. */
	assert_true(tsc_viewport_set(&vp, 600, 200));
	assert_window(&vp, 600, 700);
	tsc_viewport_show_all(&vp);
	/* Unchanged: FALSE. */
	assert_false(tsc_viewport_set(&vp, 0, 1000));
	assert_false(tsc_viewport_show_all(&vp));
	/* An axis narrower than the least width shows the least width. */
	tsc_viewport_init(&vp, TSC_TIMELINE_CYCLES, 40, 50, 100);
	assert_window(&vp, 40, 140);
	assert_false(tsc_viewport_pan(&vp, 1));
	assert_false(tsc_viewport_zoom(&vp, 2, 0.5));
}

static void test_zoom(void **state)
{
	TscViewport vp;

	(void)state;
	tsc_viewport_init(&vp, TSC_TIMELINE_NS, 0, 1000, 10);
	/* > 1 zooms in, about the centre... */
	assert_true(tsc_viewport_zoom(&vp, 2, 0.5));
	assert_window(&vp, 250, 750);
	/* ... or about the left or right edge, which stays where it is. */
	tsc_viewport_show_all(&vp);
	assert_true(tsc_viewport_zoom(&vp, 2, 0));
	assert_window(&vp, 0, 500);
	tsc_viewport_show_all(&vp);
	assert_true(tsc_viewport_zoom(&vp, 2, 1));
	assert_window(&vp, 500, 1000);
	/* The unit at a quarter of the width stays at a quarter. */
	tsc_viewport_set(&vp, 200, 600);
	assert_true(tsc_viewport_zoom(&vp, 2, 0.25));
	assert_window(&vp, 250, 450);
	/* A fraction past the edges is the edge. */
	tsc_viewport_set(&vp, 200, 600);
	tsc_viewport_zoom(&vp, 2, -3);
	assert_window(&vp, 200, 400);
	/* < 1 zooms out, up to the whole axis. */
	tsc_viewport_set(&vp, 400, 600);
	assert_true(tsc_viewport_zoom(&vp, 0.5, 0.5));
	assert_window(&vp, 300, 700);
	tsc_viewport_zoom(&vp, 1e-6, 0.5);
	assert_window(&vp, 0, 1000);
	/* Zooming in stops at the least width. */
	for (int i = 0; i < 100; i++)
		tsc_viewport_zoom(&vp, 1.5, 0.5);
	assert_int_equal(vp.to - vp.from, 10);
	/* Nonsense factors change nothing. */
	assert_false(tsc_viewport_zoom(&vp, 0, 0.5));
	assert_false(tsc_viewport_zoom(&vp, -2, 0.5));
	assert_false(tsc_viewport_zoom(&vp, NAN, 0.5));
	assert_false(tsc_viewport_zoom(&vp, INFINITY, 0.5));
	/* In and out again: where it was. */
	tsc_viewport_set(&vp, 100, 900);
	tsc_viewport_zoom(&vp, 2, 0.5);
	tsc_viewport_zoom(&vp, 0.5, 0.5);
	assert_window(&vp, 100, 900);
}

static void test_pan(void **state)
{
	TscViewport vp;

	(void)state;
	tsc_viewport_init(&vp, TSC_TIMELINE_CYCLES, 0, 1000, 10);
	tsc_viewport_set(&vp, 200, 600);
	/* > 0: later, by a fraction of the width. */
	assert_true(tsc_viewport_pan(&vp, 0.5));
	assert_window(&vp, 400, 800);
	assert_true(tsc_viewport_pan(&vp, -0.25));
	assert_window(&vp, 300, 700);
	/* Stopped at either end, the width kept. */
	assert_true(tsc_viewport_pan(&vp, 10));
	assert_window(&vp, 600, 1000);
	assert_false(tsc_viewport_pan(&vp, 1));
	assert_true(tsc_viewport_pan(&vp, -1e300));
	assert_window(&vp, 0, 400);
	assert_false(tsc_viewport_pan(&vp, NAN));
	/* A width about the centre. */
	tsc_viewport_set(&vp, 400, 600);
	assert_true(tsc_viewport_set_width(&vp, 100));
	assert_window(&vp, 450, 550);
	tsc_viewport_set_width(&vp, 1);
	assert_int_equal(vp.to - vp.from, 10);
}

static void test_pixels(void **state)
{
	TscViewport vp;

	(void)state;
	/* 1,000 units from 1,000 across 100 px from x 200: 10 per pixel, `to`
	 * the last unit in view. */
	tsc_viewport_init(&vp, TSC_TIMELINE_NS, 0, 100000, 100);
	tsc_viewport_set(&vp, 1000, 1999);
	assert_true(fabs(tsc_viewport_per_px(&vp, 100) - 10) < 1e-9);
	assert_true(fabs(tsc_viewport_x_of(&vp, 200, 100, 1000) - 200) < 1e-9);
	assert_true(fabs(tsc_viewport_x_of(&vp, 200, 100, 1500) - 250) < 1e-9);
	assert_int_equal(tsc_viewport_t_of(&vp, 200, 100, 250), 1500);
	assert_int_equal(tsc_viewport_t_of(&vp, 200, 100, tsc_viewport_x_of(&vp, 200, 100, 1234)), 1234);
	assert_true(fabs(tsc_viewport_fraction_at(200, 100, 225) - 0.25) < 1e-12);
}

static void test_keys_and_wheel(void **state)
{
	TscViewport vp;

	(void)state;
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_w, 0), TSC_TIMELINE_KEY_ZOOM_IN);
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_plus, 0), TSC_TIMELINE_KEY_ZOOM_IN);
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_S, GDK_SHIFT_MASK), TSC_TIMELINE_KEY_ZOOM_OUT);
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_minus, 0), TSC_TIMELINE_KEY_ZOOM_OUT);
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_a, 0), TSC_TIMELINE_KEY_LEFT);
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_Left, 0), TSC_TIMELINE_KEY_LEFT);
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_d, 0), TSC_TIMELINE_KEY_RIGHT);
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_Right, 0), TSC_TIMELINE_KEY_RIGHT);
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_Home, 0), TSC_TIMELINE_KEY_HOME);
	/* Ctrl and Alt combinations are the window's (Ctrl+W closes). */
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_w, GDK_CONTROL_MASK), TSC_TIMELINE_KEY_NONE);
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_d, GDK_ALT_MASK), TSC_TIMELINE_KEY_NONE);
	assert_int_equal(tsc_timeline_key_lookup(GDK_KEY_q, 0), TSC_TIMELINE_KEY_NONE);

	tsc_viewport_init(&vp, TSC_TIMELINE_NS, 0, 3000, 10);
	tsc_viewport_set(&vp, 1000, 2000);
	/* The keys act about the centre, by the one step each. */
	assert_true(tsc_timeline_key_apply(&vp, TSC_TIMELINE_KEY_ZOOM_IN));
	assert_window(&vp, 1167, 1833);
	tsc_viewport_set(&vp, 1000, 2000);
	assert_true(tsc_timeline_key_apply(&vp, TSC_TIMELINE_KEY_ZOOM_OUT));
	assert_window(&vp, 750, 2250);
	tsc_viewport_set(&vp, 1000, 2000);
	assert_true(tsc_timeline_key_apply(&vp, TSC_TIMELINE_KEY_RIGHT));
	assert_window(&vp, 1200, 2200);
	assert_true(tsc_timeline_key_apply(&vp, TSC_TIMELINE_KEY_LEFT));
	assert_window(&vp, 1000, 2000);
	assert_true(tsc_timeline_key_apply(&vp, TSC_TIMELINE_KEY_HOME));
	assert_window(&vp, 0, 3000);
	assert_false(tsc_timeline_key_apply(&vp, TSC_TIMELINE_KEY_NONE));
	/* The wheel: up (dy < 0) zooms in about the pointer, sideways pans. */
	tsc_viewport_set(&vp, 1000, 2000);
	assert_true(tsc_timeline_wheel_apply(&vp, 0, -1, 0));
	assert_window(&vp, 1000, 1800);
	assert_true(tsc_timeline_wheel_apply(&vp, 0, 1, 0));
	assert_window(&vp, 1000, 2000);
	assert_true(tsc_timeline_wheel_apply(&vp, 1, 0, 0.5));
	assert_window(&vp, 1100, 2100);
	assert_false(tsc_timeline_wheel_apply(&vp, 0, 0, 0.5));
}

static void test_ticks(void **state)
{
	g_autofree char *ms = tsc_timeline_format_tick(TSC_TIMELINE_NS, 1234567, 1e3, 5e6);
	g_autofree char *s = tsc_timeline_format_tick(TSC_TIMELINE_NS, 2e9, 1e9, 3e9);
	g_autofree char *ns = tsc_timeline_format_tick(TSC_TIMELINE_NS, 40, 10, 900);
	g_autofree char *cy = tsc_timeline_format_tick(TSC_TIMELINE_CYCLES, 1234000, 1000, 2e6);

	(void)state;
	assert_string_equal(ms, "1.235 ms");
	assert_string_equal(s, "2 s");
	assert_string_equal(ns, "40 ns");
	assert_string_equal(cy, "1,234,000");
}

/* Every item in exactly one mark, in order; the counts add up. */
static void assert_covers(const TscFoldItem *items, guint n, GArray *marks)
{
	uint64_t in = 0, out = 0;
	guint next = 0;

	for (guint i = 0; i < n; i++)
		in += items[i].count;
	for (guint k = 0; k < marks->len; k++) {
		const TscFoldMark *m = &g_array_index(marks, TscFoldMark, k);
		uint64_t held = 0;

		assert_int_equal(m->first, next);
		assert_true(m->last >= m->first && m->last < n);
		for (guint i = m->first; i <= m->last; i++) {
			held += items[i].count;
			/* Rows never fold together. */
			assert_int_equal(items[i].row, m->row);
		}
		assert_int_equal(held, m->count);
		if (m->folded) {
			assert_true(m->x1 - m->x0 >= 1);
			assert_true(m->x0 == floor(m->x0) && m->x1 == floor(m->x1));
		} else {
			/* Itself: wide enough, or a lone sliver. */
			assert_int_equal(m->first, m->last);
			assert_false(items[m->first].folded);
			assert_int_equal(m->count, items[m->first].count);
			assert_true(m->x0 == items[m->first].x0);
		}
		out += m->count;
		next = m->last + 1;
	}
	assert_int_equal(next, n);
	assert_int_equal(in, out);
}

static void test_fold_rule(void **state)
{
	/* Three slivers a pixel apart, a wide span, a sliver 5 px on, a
	 * pre-folded run 10 px wide, and a sliver on another row. */
	const TscFoldItem items[] = {
		{.x0 = 10.2, .x1 = 10.7, .count = 1},
		{.x0 = 11.5, .x1 = 12.0, .count = 1},
		{.x0 = 13.0, .x1 = 13.1, .count = 1},
		{.x0 = 14.0, .x1 = 40.0, .count = 1},
		{.x0 = 45.0, .x1 = 45.5, .count = 1},
		{.x0 = 46.0, .x1 = 56.0, .count = 250, .folded = TRUE},
		{.x0 = 56.5, .x1 = 57.0, .count = 1, .row = 1},
	};
	GArray *marks = g_array_new(FALSE, FALSE, sizeof(TscFoldMark));
	const TscFoldMark *m;

	(void)state;
	assert_int_equal(tsc_fold_items(items, G_N_ELEMENTS(items), TSC_TIMELINE_FOLD_PX, 0, marks), 4);
	assert_covers(items, G_N_ELEMENTS(items), marks);
	m = &g_array_index(marks, TscFoldMark, 0);
	assert_true(m->folded);
	assert_int_equal(m->count, 3);
	assert_true(m->x0 == 10 && m->x1 == 14);
	m = &g_array_index(marks, TscFoldMark, 1);
	assert_false(m->folded);
	assert_true(m->x0 == 14 && m->x1 == 40);
	/* A sliver and the pre-folded run beside it: one mark of 251. */
	m = &g_array_index(marks, TscFoldMark, 2);
	assert_true(m->folded);
	assert_int_equal(m->count, 251);
	assert_true(m->x0 == 45 && m->x1 == 56);
	m = &g_array_index(marks, TscFoldMark, 3);
	assert_int_equal(m->row, 1);
	assert_int_equal(m->count, 1);
	/* A lone sliver is itself (its colour, selectable); a pre-folded
	 * run of any width is a fold of whole pixels, at least one wide. */
	g_array_set_size(marks, 0);
	tsc_fold_items((TscFoldItem[]){{.x0 = 7.5, .x1 = 7.5, .count = 1},
	                               {.x0 = 20.5, .x1 = 20.5, .count = 9, .folded = TRUE}},
	               2, 3, 0, marks);
	assert_int_equal(marks->len, 2);
	m = &g_array_index(marks, TscFoldMark, 0);
	assert_false(m->folded);
	assert_true(m->x0 == 7.5 && m->x1 == 7.5);
	m = &g_array_index(marks, TscFoldMark, 1);
	assert_true(m->folded);
	assert_true(m->x0 == 20 && m->x1 == 21);
	assert_int_equal(m->count, 9);
	g_array_free(marks, TRUE);
}

static void test_fold_kinds(void **state)
{
	/* Slivers alternating between two kinds, then a long run of one kind
	 * followed by the other. */
	TscFoldItem items[40];
	GArray *marks = g_array_new(FALSE, FALSE, sizeof(TscFoldMark));

	(void)state;
	for (guint i = 0; i < 40; i++)
		items[i] = (TscFoldItem){.x0 = i, .x1 = i + 0.5, .count = 1 + i % 3,
		                         .kind = i < 20 ? (int)(i % 2) : i < 30 ? 0 : 1};
	/* mix_px 0: kinds never share a mark. */
	tsc_fold_items(items, 40, 3, 0, marks);
	assert_covers(items, 40, marks);
	for (guint k = 0; k < marks->len; k++)
		assert_false(g_array_index(marks, TscFoldMark, k).mixed);
	/* mix_px 8: a mix folds while narrow, and long runs stay apart. */
	g_array_set_size(marks, 0);
	tsc_fold_items(items, 40, 3, 8, marks);
	assert_covers(items, 40, marks);
	assert_true(marks->len > 1 && marks->len < 10);
	assert_true(g_array_index(marks, TscFoldMark, 0).mixed);
	g_array_free(marks, TRUE);
}

/* Random items: whatever the widths, gaps, rows and counts, nothing is
 * dropped and the counts add up. */
static void test_fold_random(void **state)
{
	GRand *rand = g_rand_new_with_seed(28);
	GArray *marks = g_array_new(FALSE, FALSE, sizeof(TscFoldMark));

	(void)state;
	for (int round = 0; round < 200; round++) {
		guint n = (guint)g_rand_int_range(rand, 0, 400);
		TscFoldItem *items = g_new0(TscFoldItem, MAX(n, 1));
		double x = 0;
		guint row = 0;

		for (guint i = 0; i < n; i++) {
			if (g_rand_int_range(rand, 0, 50) == 0) {
				row++;
				x = 0;
			}
			x += g_rand_double_range(rand, 0, 6);
			items[i].x0 = x;
			items[i].x1 = x + (g_rand_boolean(rand) ? g_rand_double_range(rand, 0, 3)
			                                        : g_rand_double_range(rand, 0, 40));
			items[i].count = g_rand_int_range(rand, 0, 5) == 0
			                     ? (uint64_t)g_rand_int_range(rand, 1, 1000000)
			                     : 1;
			items[i].folded = items[i].count > 1;
			items[i].row = row;
			items[i].kind = g_rand_int_range(rand, 0, 3);
			x = items[i].x1;
		}
		g_array_set_size(marks, 0);
		tsc_fold_items(items, n, TSC_TIMELINE_FOLD_PX, round % 2 ? 8 : 0, marks);
		assert_covers(items, n, marks);
		g_free(items);
	}
	g_array_free(marks, TRUE);
	g_rand_free(rand);
}

/* A counter's value axis: from 0 to a nice top for values >= 0, what
 * there is otherwise, [0, 1] with none. */
static void test_counter_range(void **state)
{
	const TscCounterBucket up[] = {{.from = 0, .count = 1, .min = 3, .max = 3, .last = 3},
	                               {.from = 9, .count = 4, .min = 1, .max = 73, .last = 2}};
	const TscCounterBucket down[] = {{.from = 0, .count = 2, .min = -5, .max = 2, .last = 2}};
	double lo, hi;

	(void)state;
	assert_true(tsc_counter_range(up, 2, NAN, &lo, &hi));
	assert_true(lo == 0 && hi == 100);
	/* The value held into the window counts. */
	assert_true(tsc_counter_range(up, 2, 140, &lo, &hi));
	assert_true(lo == 0 && hi == 200);
	assert_true(tsc_counter_range(down, 1, NAN, &lo, &hi));
	assert_true(lo == -5 && hi == 2);
	assert_true(tsc_counter_range(NULL, 0, 7, &lo, &hi));
	assert_true(lo == 0 && hi == 10);
	assert_false(tsc_counter_range(NULL, 0, NAN, &lo, &hi));
	assert_true(lo == 0 && hi == 1);
}

/* An app's own marker struct, the chart kit's first. */
typedef struct {
	TscMarker m;
	int tag;
} app_marker;

static GdkRGBA lane_colour(const TscSpan *sp, gpointer data)
{
	(void)sp;
	(void)data;
	return (GdkRGBA){0.5f, 0.5f, 0.5f, 1};
}

static GdkRGBA lane_kind_colour(int kind, gpointer data)
{
	(void)data;
	return (GdkRGBA){kind / 8.0f, 0, 0, 1};
}

static char *lane_name(const TscSpan *sp, gpointer data)
{
	(void)data;
	return g_strdup_printf("span %u", sp->id);
}

static void test_lane(void **state)
{
	static const TscLaneFuncs funcs = {.colour = lane_colour, .kind_colour = lane_kind_colour,
	                                   .dup_name = lane_name};
	PangoContext *pc = pango_font_map_create_context(pango_cairo_font_map_get_default());
	PangoLayout *layout = pango_layout_new(pc);
	GtkSnapshot *s;
	GdkRGBA fg = {0, 0, 0, 1};
	TscViewport vp;
	TscLane lane;
	uint64_t sum = 0;
	int64_t from, to;
	guint k, nodes;
	/* Row 1 fed first, and row 0 out of order: the lane sorts them. Units
	 * are pixels (1,000 units over 1,000 px). */
	const TscSpan spans[] = {
		{.from = 100, .to = 400, .count = 1, .row = 1, .id = 0},
		{.from = 500, .to = 600, .count = 1, .row = 0, .id = 1},
		{.from = 10, .to = 11, .count = 1, .row = 0, .kind = 2, .id = 2},
		{.from = 12, .to = 13, .count = 1, .row = 0, .kind = 2, .id = 3},
		{.from = 14, .to = 15, .count = 5, .row = 0, .kind = 2, .folded = TRUE, .id = 4},
		{.from = 2000, .to = 2100, .count = 1, .row = 0, .id = 5}, /* after the window */
		{.from = -500, .to = -400, .count = 1, .row = 1, .id = 6},  /* before it */
	};

	(void)state;
	/* Render nodes without gtk_init (no display): their types. */
	g_type_ensure(GSK_TYPE_COLOR_NODE);
	tsc_viewport_init(&vp, TSC_TIMELINE_CYCLES, -1000, 3000, 1);
	tsc_viewport_set(&vp, 0, 999);
	tsc_lane_init(&lane, &funcs, NULL);
	lane.y = 10;
	lane.row_h = 20;
	lane.inset = 2;
	g_array_append_vals(lane.spans, spans, G_N_ELEMENTS(spans));
	tsc_lane_finish(&lane);
	s = gtk_snapshot_new();
	for (guint i = 1; i < lane.spans->len; i++) {
		const TscSpan *a = &g_array_index(lane.spans, TscSpan, i - 1);
		const TscSpan *b = &g_array_index(lane.spans, TscSpan, i);

		assert_true(a->row < b->row || (a->row == b->row && a->from <= b->from));
	}
	nodes = tsc_lane_draw(s, layout, &lane, &vp, 0, 1000, &fg);
	/* In the window: one fold of three (counts 1 + 1 + 5), span 1 and span
	 * 0; spans 5 and 6 are outside it. */
	assert_int_equal(lane.marks->len, 3);
	for (guint i = 0; i < lane.marks->len; i++)
		sum += g_array_index(lane.marks, TscFoldMark, i).count;
	assert_int_equal(sum, 9);
	/* Each wide span a fill and its edge, the fold a fill and its foot. */
	assert_int_equal(nodes, 6);
	assert_true(tsc_lane_mark_at(&lane, 0, 12, &k));
	assert_true(g_array_index(lane.marks, TscFoldMark, k).folded);
	assert_int_equal(g_array_index(lane.marks, TscFoldMark, k).count, 7);
	tsc_lane_mark_extent(&lane, &g_array_index(lane.marks, TscFoldMark, k), &from, &to);
	assert_int_equal(from, 10);
	assert_int_equal(to, 15);
	assert_true(tsc_lane_mark_at(&lane, 0, 550, &k));
	assert_int_equal(g_array_index(lane.spans, TscSpan,
	                               g_array_index(lane.marks, TscFoldMark, k).first).id, 1);
	/* Row 1 at the same x holds nothing; its span is at 100 .. 400. */
	assert_false(tsc_lane_mark_at(&lane, 1, 550, &k));
	assert_false(tsc_lane_mark_at(&lane, 0, 300, &k));
	assert_true(tsc_lane_mark_at(&lane, 1, 250, &k));
	assert_int_equal(g_array_index(lane.spans, TscSpan,
	                               g_array_index(lane.marks, TscFoldMark, k).first).id, 0);
	/* Zoomed so that only span 1 is in view: one mark. */
	tsc_viewport_set(&vp, 520, 560);
	gsk_render_node_unref(gtk_snapshot_free_to_node(s));
	s = gtk_snapshot_new();
	tsc_lane_draw(s, layout, &lane, &vp, 0, 1000, &fg);
	assert_int_equal(lane.marks->len, 1);
	assert_int_equal(g_array_index(lane.marks, TscFoldMark, 0).first,
	                 g_array_index(lane.marks, TscFoldMark, 0).last);
	gsk_render_node_unref(gtk_snapshot_free_to_node(s));
	tsc_lane_clear(&lane);
	g_object_unref(layout);
	g_object_unref(pc);
}

static void test_marker_at(void **state)
{
	TscViewport vp;
	/* 1 unit per pixel from x 100. */
	const app_marker marks[] = {{{100, 100, 1}, 1}, {{110, 130, 7}, 2}, {{300, 300, 1}, 3}};

	(void)state;
	tsc_viewport_init(&vp, TSC_TIMELINE_NS, 0, 999, 10);
	assert_int_equal(tsc_timeline_marker_at(&vp, 100, 1000, &marks[0].m, 3, sizeof(marks[0]), 203),
	                 0);
	/* Inside a run, and within 4 px of its ends. */
	assert_int_equal(tsc_timeline_marker_at(&vp, 100, 1000, &marks[0].m, 3, sizeof(marks[0]), 220),
	                 1);
	assert_int_equal(tsc_timeline_marker_at(&vp, 100, 1000, &marks[0].m, 3, sizeof(marks[0]), 233),
	                 1);
	assert_int_equal(tsc_timeline_marker_at(&vp, 100, 1000, &marks[0].m, 3, sizeof(marks[0]), 402),
	                 2);
	/* Nothing near. */
	assert_int_equal(tsc_timeline_marker_at(&vp, 100, 1000, &marks[0].m, 3, sizeof(marks[0]), 300),
	                 -1);
	assert_int_equal(tsc_timeline_marker_at(&vp, 100, 1000, NULL, 0, sizeof(marks[0]), 203), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clamp),
		cmocka_unit_test(test_zoom),
		cmocka_unit_test(test_pan),
		cmocka_unit_test(test_pixels),
		cmocka_unit_test(test_keys_and_wheel),
		cmocka_unit_test(test_ticks),
		cmocka_unit_test(test_fold_rule),
		cmocka_unit_test(test_fold_kinds),
		cmocka_unit_test(test_fold_random),
		cmocka_unit_test(test_counter_range),
		cmocka_unit_test(test_marker_at),
		cmocka_unit_test(test_lane),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
