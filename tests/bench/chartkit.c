/*
 * Benchmark and demo of the chart kit: a TscChart of 5,888 tiles × 25
 * memory regions (the shape of a 4-IPU Mk2 memory view), a "Max memory"
 * limit line, an always-live line and a few markers. Times 200 snapshots
 * of the widget over a zoom and pan sweep (each one rebuilds the cached
 * layer, as a frame after a zoom does) and an offscreen render of each
 * node with the cairo renderer, counts the colour nodes per layer, then
 * times 200 snapshots with every tile visible (the level-of-detail worst
 * case).
 * Prints one line per figure,
 *   NAME VALUE UNIT
 * and '#' lines of context. A benchmark reports; it never fails on a
 * timing. It needs a display (run it under xvfb-run).
 *
 * Usage: bench-chartkit [--frames N] [--width PX] [--png DIR] [--dark] [--hold S]
 *   --hold S   shows the chart for S seconds first, tile 4,100 selected
 *              (for looking at it, or reading it over AT-SPI)
 *   --png DIR  also writes DIR/chart-<light|dark>-<scale>x.png (the whole
 *              chart, zoomed to tiles 1,000–1,100, and with a selection)
 *              at the widget's scale factor (GDK_SCALE=2 for 2x), and
 *              DIR/heatmap-<light|dark>-<scale>x.png (IPU 0's 1,472 tiles
 *              as 23 rows × 64, a few selected)
 */
#include <tilescope/tsc-chart.h>
#include <tilescope/tsc-heatmap.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_TILES 5888
#define N_REGIONS 25
#define MAX_MEMORY 638976.0

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A deterministic pseudo-random number in [0, 1). */
static double rnd(guint32 *state)
{
	*state = *state * 1664525u + 1013904223u;
	return (*state >> 8) / 16777216.0;
}

/* The demo data: per-tile bytes of 25 regions, smooth with noise, a few
 * heavy tiles (as tile 0 of each IPU often is) and one above the limit. */
static void demo_data(double *values, GdkRGBA *colours, char **names, double *always_live)
{
	guint32 state = 12345;
	guint k, t;

	for (k = 0; k < N_REGIONS; k++) {
		double base = 30000.0 / (1 + k * 0.35);

		names[k] = g_strdup_printf("Region %u", k);
		colours[k] = (GdkRGBA){ 0, 0, 0, 1 };
		/* Hues around the circle, alternating lightness so neighbours differ. */
		{
			double h = fmod(k * 0.381966, 1.0) * 6, s = 0.55, v = (k % 2) ? 0.72 : 0.9;
			int i = (int)h;
			double f = h - i, p = v * (1 - s), q = v * (1 - s * f), u = v * (1 - s * (1 - f));
			double rgb[6][3] = { { v, u, p }, { q, v, p }, { p, v, u }, { p, q, v }, { u, p, v }, { v, p, q } };

			colours[k].red = (float)rgb[i][0];
			colours[k].green = (float)rgb[i][1];
			colours[k].blue = (float)rgb[i][2];
		}
		for (t = 0; t < N_TILES; t++) {
			double wave = 1 + 0.45 * sin(t / (40.0 + k * 9)) + 0.25 * sin(t / 700.0);
			double v = base * wave * (0.8 + 0.4 * rnd(&state));

			if (t % 1472 == 0)
				v *= 2.2;
			if (t == 4100)
				v *= 2.9;
			if (k >= 20 && (t / 64) % 5 == 3)
				v = 0;
			values[(gsize)k * N_TILES + t] = v;
		}
	}
	for (t = 0; t < N_TILES; t++)
		always_live[t] = 90000 + 20000 * sin(t / 300.0);
}

static char *tile_label(guint item, gpointer data)
{
	return g_strdup_printf("Tile %u (IPU %u)", item, item / 1472);
}

static guint count_colour_nodes(GskRenderNode *node, const GdkRGBA *colour)
{
	guint n = 0, i;

	if (!node)
		return 0;
	switch (gsk_render_node_get_node_type(node)) {
	case GSK_COLOR_NODE:
		return !colour || gdk_rgba_equal(gsk_color_node_get_color(node), colour);
	case GSK_CONTAINER_NODE:
		for (i = 0; i < gsk_container_node_get_n_children(node); i++)
			n += count_colour_nodes(gsk_container_node_get_child(node, i), colour);
		return n;
	case GSK_TRANSFORM_NODE:
		return count_colour_nodes(gsk_transform_node_get_child(node), colour);
	case GSK_CLIP_NODE:
		return count_colour_nodes(gsk_clip_node_get_child(node), colour);
	case GSK_ROUNDED_CLIP_NODE:
		return count_colour_nodes(gsk_rounded_clip_node_get_child(node), colour);
	case GSK_OPACITY_NODE:
		return count_colour_nodes(gsk_opacity_node_get_child(node), colour);
	case GSK_DEBUG_NODE:
		return count_colour_nodes(gsk_debug_node_get_child(node), colour);
	default:
		return 0;
	}
}

/* The widget's render node as its parent draws it (background
 * included); a GtkWidgetPaintable would only update on the next frame,
 * which never completes under Xvfb. */
static GskRenderNode *snapshot_widget(GtkWidget *w)
{
	GtkSnapshot *s = gtk_snapshot_new();

	gtk_widget_snapshot_child(gtk_widget_get_parent(w), w, s);
	return gtk_snapshot_free_to_node(s);
}

/* Renders `node` (logical size w × h, at its bounds' origin) at `scale`
 * device pixels per logical pixel. */
static GdkTexture *render(GskRenderer *r, GskRenderNode *node, int w, int h, int scale)
{
	GskRenderNode *scaled, *bg;
	GskRenderNode *pair[2];
	GdkTexture *t;
	graphene_rect_t b;
	GskTransform *tr;

	gsk_render_node_get_bounds(node, &b);
	tr = gsk_transform_scale(NULL, (float)scale, (float)scale);
	tr = gsk_transform_translate(tr, &GRAPHENE_POINT_INIT(-b.origin.x, -b.origin.y));

	/* The identity transform is NULL. */
	scaled = tr ? gsk_transform_node_new(node, tr) : gsk_render_node_ref(node);
	gsk_transform_unref(tr);
	/* The window background is not part of the widget's paintable. */
	bg = gsk_color_node_new(&(GdkRGBA){ 0, 0, 0, 0 }, &GRAPHENE_RECT_INIT(0, 0, (float)(w * scale), (float)(h * scale)));
	pair[0] = bg;
	pair[1] = scaled;
	node = gsk_container_node_new(pair, 2);
	t = gsk_renderer_render_texture(r, node, &GRAPHENE_RECT_INIT(0, 0, (float)(w * scale), (float)(h * scale)));
	gsk_render_node_unref(node);
	gsk_render_node_unref(scaled);
	gsk_render_node_unref(bg);
	return t;
}

static void wait_for_size(GtkWidget *w)
{
	for (int i = 0; i < 1000 && gtk_widget_get_width(w) == 0; i++)
		g_main_context_iteration(NULL, TRUE);
	for (int i = 0; i < 50; i++)
		g_main_context_iteration(NULL, FALSE);
}

static void write_png(GskRenderer *r, GtkWidget *chart, const char *dir, const char *name, int scale)
{
	GskRenderNode *node = snapshot_widget(chart);
	GdkTexture *t = render(r, node, gtk_widget_get_width(chart), gtk_widget_get_height(chart), scale);
	char *path = g_strdup_printf("%s/%s", dir, name);

	gdk_texture_save_to_png(t, path);
	printf("# wrote %s\n", path);
	g_free(path);
	g_object_unref(t);
	gsk_render_node_unref(node);
}

/* IPU 0's tiles as a 23 × 64 heat map of their totals. */
static void write_heatmap(GskRenderer *r, const char *dir, const char *theme)
{
	GtkWidget *win = gtk_window_new(), *map = tsc_heatmap_new();
	double totals[1472];
	GtkBitset *sel = gtk_bitset_new_empty();
	char name[64];
	guint t;

	for (t = 0; t < 1472; t++)
		totals[t] = 150000 + 60000 * sin(t / 37.0) * cos(t / 300.0) + (t % 64 == 0 ? 150000 : 0);
	totals[700] = NAN;
	tsc_heatmap_set_label(TSC_HEATMAP(map), "Memory by tile, IPU 0");
	tsc_heatmap_set_value_format_func(TSC_HEATMAP(map), tsc_format_bytes, NULL, NULL);
	tsc_heatmap_set_data(TSC_HEATMAP(map), 23, 64, totals);
	gtk_bitset_add_rectangle(sel, 5 * 64 + 10, 6, 3, 64);
	tsc_heatmap_set_selection(TSC_HEATMAP(map), sel);
	gtk_bitset_unref(sel);
	gtk_window_set_default_size(GTK_WINDOW(win), 640, 300);
	gtk_window_set_child(GTK_WINDOW(win), map);
	gtk_window_present(GTK_WINDOW(win));
	wait_for_size(map);
	g_snprintf(name, sizeof name, "heatmap-%s-%dx.png", theme, gtk_widget_get_scale_factor(map));
	write_png(r, map, dir, name, gtk_widget_get_scale_factor(map));
	gtk_window_destroy(GTK_WINDOW(win));
}

int main(int argc, char **argv)
{
	int frames = 200, width = 800, height = 360, i, scale;
	const char *png_dir = NULL;
	gboolean dark = FALSE;
	double hold = 0;
	double *values = g_new(double, (gsize)N_TILES * N_REGIONS), always_live[N_TILES];
	GdkRGBA colours[N_REGIONS];
	char *names[N_REGIONS + 1] = { NULL };
	double *snap_ms, *render_ms, t0;
	guint max_nodes = 0, max_layer_nodes = 0, markers[] = { 1472, 2944, 4416 };
	GtkWidget *window, *chart;
	GskRenderer *renderer;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			frames = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--width") && i + 1 < argc)
			width = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--png") && i + 1 < argc)
			png_dir = argv[++i];
		else if (!strcmp(argv[i], "--hold") && i + 1 < argc)
			hold = atof(argv[++i]);
		else if (!strcmp(argv[i], "--dark"))
			dark = TRUE;
		else {
			fprintf(stderr, "usage: bench-chartkit [--frames N] [--width PX] [--png DIR] [--dark] [--hold S]\n");
			return 2;
		}
	}
	if (frames < 1)
		frames = 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!gtk_init_check()) {
		fprintf(stderr, "bench-chartkit: no display (run under xvfb-run)\n");
		return 1;
	}
	g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", dark, NULL);
	demo_data(values, colours, names, always_live);

	window = gtk_window_new();
	gtk_window_set_default_size(GTK_WINDOW(window), width, height);
	chart = tsc_chart_new();
	tsc_chart_set_label(TSC_CHART(chart), "Memory by tile");
	tsc_chart_set_value_format_func(TSC_CHART(chart), tsc_format_bytes, NULL, NULL);
	tsc_chart_set_item_label_func(TSC_CHART(chart), tile_label, NULL, NULL);
	t0 = now_ms();
	tsc_chart_set_stacks(TSC_CHART(chart), N_TILES, N_REGIONS, values, colours,
	                     (const char *const *)names);
	printf("chartkit.set_stacks_ms %.3f ms\n", now_ms() - t0);
	tsc_chart_add_series(TSC_CHART(chart), "Always live", always_live,
	                     &(GdkRGBA){ 0.85f, 0.1f, 0.1f, 1 }, TSC_SERIES_LINE);
	tsc_chart_add_limit(TSC_CHART(chart), MAX_MEMORY, "Max memory 638,976 B",
	                    &(GdkRGBA){ 0.85f, 0.1f, 0.1f, 1 });
	tsc_chart_set_markers(TSC_CHART(chart), markers, G_N_ELEMENTS(markers), NULL);
	gtk_window_set_child(GTK_WINDOW(window), chart);
	gtk_window_present(GTK_WINDOW(window));
	wait_for_size(chart);
	scale = gtk_widget_get_scale_factor(chart);
	printf("# chart %d x %d px at scale %d, %u tiles x %u regions\n", gtk_widget_get_width(chart),
	       gtk_widget_get_height(chart), scale, N_TILES, N_REGIONS);

	if (hold > 0) {
		GtkBitset *sel = gtk_bitset_new_range(4100, 1);

		tsc_chart_set_selection(TSC_CHART(chart), sel);
		gtk_bitset_unref(sel);
		for (t0 = now_ms(); now_ms() - t0 < hold * 1000;)
			if (!g_main_context_iteration(NULL, FALSE))
				g_usleep(10000);
		tsc_chart_set_selection(TSC_CHART(chart), NULL);
	}

	renderer = gsk_cairo_renderer_new();
	gsk_renderer_realize(renderer, NULL, NULL);

	if (png_dir) {
		const char *theme = dark ? "dark" : "light";
		char name[64];
		GtkBitset *sel = gtk_bitset_new_range(1020, 12);

		g_snprintf(name, sizeof name, "chart-%s-%dx.png", theme, scale);
		write_png(renderer, chart, png_dir, name, scale);
		tsc_chart_set_visible_range(TSC_CHART(chart), 1000, 1100);
		gtk_bitset_add(sel, 1050);
		tsc_chart_set_selection(TSC_CHART(chart), sel);
		gtk_bitset_unref(sel);
		g_snprintf(name, sizeof name, "chart-%s-%dx-zoom.png", theme, scale);
		write_png(renderer, chart, png_dir, name, scale);
		tsc_chart_set_visible_range(TSC_CHART(chart), 900, 1700);
		g_snprintf(name, sizeof name, "chart-%s-%dx-mid.png", theme, scale);
		write_png(renderer, chart, png_dir, name, scale);
		tsc_chart_show_all(TSC_CHART(chart));
		tsc_chart_set_selection(TSC_CHART(chart), NULL);
		write_heatmap(renderer, png_dir, theme);
	}

	snap_ms = g_new(double, frames);
	render_ms = g_new(double, frames);
	for (i = 0; i < frames; i++) {
		/* Zoom from all tiles down to 40 and back, panning across. */
		double t = (double)i / frames, span = N_TILES * pow(40.0 / N_TILES, sin(t * G_PI));
		double start = (N_TILES - span) * t;
		GskRenderNode *node;
		GdkTexture *tex;
		guint n;

		tsc_chart_set_visible_range(TSC_CHART(chart), start, start + span);
		t0 = now_ms();
		node = snapshot_widget(chart);
		snap_ms[i] = now_ms() - t0;
		n = count_colour_nodes(node, NULL);
		max_nodes = MAX(max_nodes, n);
		n = count_colour_nodes(node, &colours[0]);
		max_layer_nodes = MAX(max_layer_nodes, n);
		t0 = now_ms();
		tex = render(renderer, node, gtk_widget_get_width(chart), gtk_widget_get_height(chart), 1);
		render_ms[i] = now_ms() - t0;
		g_object_unref(tex);
		gsk_render_node_unref(node);
	}
	qsort(snap_ms, frames, sizeof(double), compare_double);
	qsort(render_ms, frames, sizeof(double), compare_double);
	printf("chartkit.snapshot_median_ms %.3f ms\n", snap_ms[frames / 2]);
	printf("chartkit.snapshot_max_ms %.3f ms\n", snap_ms[frames - 1]);
	printf("chartkit.render_cairo_median_ms %.3f ms\n", render_ms[frames / 2]);
	printf("chartkit.render_cairo_max_ms %.3f ms\n", render_ms[frames - 1]);
	printf("chartkit.colour_nodes_max %u count\n", max_nodes);
	printf("chartkit.colour_nodes_per_layer_max %u count\n", max_layer_nodes);
	{
		graphene_rect_t plot;

		tsc_chart_get_plot_area(TSC_CHART(chart), &plot);
		printf("chartkit.plot_columns %d px\n", (int)plot.size.width);
	}
	/* The level-of-detail worst case: every tile visible, the layer
	 * rebuilt each time (the range moves by a fraction of an item). */
	for (i = 0; i < frames; i++) {
		GskRenderNode *node;

		tsc_chart_set_visible_range(TSC_CHART(chart), (i % 2) * 0.5, N_TILES);
		t0 = now_ms();
		node = snapshot_widget(chart);
		snap_ms[i] = now_ms() - t0;
		gsk_render_node_unref(node);
	}
	qsort(snap_ms, frames, sizeof(double), compare_double);
	printf("chartkit.snapshot_all_tiles_median_ms %.3f ms\n", snap_ms[frames / 2]);
	printf("chartkit.snapshot_all_tiles_max_ms %.3f ms\n", snap_ms[frames - 1]);
	printf("chartkit.cache_builds %" G_GUINT64_FORMAT " count\n",
	       tsc_chart_get_render_generation(TSC_CHART(chart)));

	gsk_renderer_unrealize(renderer);
	g_object_unref(renderer);
	gtk_window_destroy(GTK_WINDOW(window));
	g_free(snap_ms);
	g_free(render_ms);
	g_free(values);
	for (i = 0; i < N_REGIONS; i++)
		g_free(names[i]);
	return 0;
}
