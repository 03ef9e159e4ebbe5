/*
 * Benchmark: the Graph Analyser on a large report (the 4-IPU, 5,888-tile,
 * 20,000-compute-set report bench-report-open writes). Prints:
 *   ga.launch_to_summary_s  from main() to the Summary view rendered: GTK
 *                           started, the report read and every figure
 *                           gathered (as the app's loader does), the window
 *                           with every view built and the Summary drawn
 *   ga.first_paint.<view>_ms  each view shown for the first time (in the
 *                           sidebar's order; the Summary's at launch)
 *                           until drawn: layout, snapshot and an
 *                           offscreen render of the window
 *   ga.switch.<view>_ms     the same, best of three later switches
 *   ga.peak_rss_after_views_mb  peak RSS once every view was shown and
 *                           the Execution Trace's tile index is in
 *   ga.memory_chart_snapshot_ms / ga.tile_map_snapshot_ms
 *                           median (and max) over a 200-step zoom and pan
 *                           sweep of the Memory view's chart, and the tile
 *                           maps' snapshot
 *   ga.memory_chart_colour_nodes_per_layer  the most colour nodes a
 *                           component of the chart drew, against its width
 *   ga.trace_tile_index_build_ms / ga.trace_frames_build_ms
 *                           the Execution Trace's per-run indexes (last
 *                           run): the per-tile blobs decoded once per
 *                           compute set and exchange, and the call stacks
 *   ga.trace_{flat,flame,bsp}_snapshot_ms  median (and max) over a
 *                           200-step zoom and pan sweep of the Execution
 *                           Trace in each mode, with the most colour nodes
 *                           of one colour; ga.trace_bsp_texture_ms the BSP
 *                           picture of each view made on this thread
 *   ga.liveness_chart_snapshot_ms  the same sweep over the Liveness chart
 *   ga.operations_layer_switch_{max,median}_ms  each choice of the
 *                           Operations view's Layer menu until the table
 *                           is drawn again: the worst case, the median
 *                           (meaningful on a report with many debug
 *                           contexts, such as the large BERT model's)
 *   ga.peak_rss_mb          at the end (the sweeps and this program's own
 *                           tile index included)
 * With two reports (REPORT REPORT2), compare mode instead:
 *   ga.compare.load_s       both reports read in parallel threads, as the
 *                           window's two workers do
 *   ga.compare.compare_s    tsr_compare (ga_document_compare; the window
 *                           runs it in a worker after both loads)
 *   ga.compare.launch_to_first_paint_s  from main() to the Summary's
 *                           compare page rendered with both reports
 *   ga.compare.first_paint.<view>_ms / ga.compare.switch.<view>_ms
 *                           showing each view in compare mode
 * Under Xvfb GTK's frame clock never completes, so "drawn" means a
 * snapshot of the widget rendered offscreen by the cairo renderer.
 * usage: bench-graph-analyser REPORT [REPORT2] (needs a display: run.sh uses
 * xvfb-run). Prints figures; never fails on time.
 */
#include "ga-document.h"
#include "ga-resources.h"
#include "ga-session.h"
#include "ga-step-lanes.h"
#include "ga-trace-index.h"
#include "ga-views.h"

#include <tilescope/tsc-chart.h>
#include <tilescope/tsc-heatmap.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static double now(void)
{
	return (double)g_get_monotonic_time() / 1e6;
}

static gboolean timed_out(gpointer data)
{
	*(gboolean *)data = TRUE;
	return G_SOURCE_REMOVE;
}

/* Runs the main loop until `w` has a size (the window mapped and laid
 * out), for at most five seconds. */
static void wait_for_size(GtkWidget *w)
{
	gboolean done = FALSE;
	guint id = g_timeout_add(5000, timed_out, &done);

	while (!done && gtk_widget_get_width(w) <= 0)
		g_main_context_iteration(NULL, TRUE);
	if (!done)
		g_source_remove(id);
}

/* Lays `w` out now at its current size, as GTK's next frame would: the
 * synchronous half of showing a view. */
static void layout_now(GtkWidget *w)
{
	GtkAllocation a = {0, 0, gtk_widget_get_width(w), gtk_widget_get_height(w)};

	gtk_widget_size_allocate(w, &a, -1);
}

/* Lets GTK handle what is pending. */
static void settle(void)
{
	for (int i = 0; i < 50 && g_main_context_iteration(NULL, FALSE); i++)
		;
}

/* Snapshots `w` (inside `parent`) and renders it offscreen; returns the
 * node (the caller unrefs). */
static GskRenderNode *draw(GtkWidget *parent, GtkWidget *w, GskRenderer *renderer)
{
	GtkSnapshot *s = gtk_snapshot_new();
	GskRenderNode *node;
	graphene_rect_t bounds;

	gtk_widget_snapshot_child(parent, w, s);
	node = gtk_snapshot_free_to_node(s);
	if (node) {
		GdkTexture *t;

		gsk_render_node_get_bounds(node, &bounds);
		t = gsk_renderer_render_texture(renderer, node, &bounds);
		g_object_unref(t);
	}
	return node;
}

/* The first chart below `w` that shows something and is shown (a view
 * may hold hidden charts, such as Memory's compare-mode ones). */
static GtkWidget *find_shown_chart(GtkWidget *w)
{
	if (TSC_IS_CHART(w) && gtk_widget_get_visible(w) && tsc_chart_get_n_items(TSC_CHART(w)) > 0)
		return w;
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		GtkWidget *found = gtk_widget_get_visible(c) ? find_shown_chart(c) : NULL;

		if (found)
			return found;
	}
	return NULL;
}

/* The first descendant of `w` of type `type`. */
static GtkWidget *find(GtkWidget *w, GType type)
{
	if (G_TYPE_CHECK_INSTANCE_TYPE(w, type))
		return w;
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		GtkWidget *found = find(c, type);

		if (found)
			return found;
	}
	return NULL;
}

/* Colour nodes in a node tree, the most of one colour (a component). */
static void count_colours(GskRenderNode *n, GHashTable *by_colour)
{
	switch (gsk_render_node_get_node_type(n)) {
	case GSK_COLOR_NODE: {
		const GdkRGBA *c = gsk_color_node_get_color(n);
		guint key = ((guint)(c->red * 255) << 24) | ((guint)(c->green * 255) << 16) |
		            ((guint)(c->blue * 255) << 8) | (guint)(c->alpha * 255);
		gpointer v = g_hash_table_lookup(by_colour, GUINT_TO_POINTER(key));

		g_hash_table_insert(by_colour, GUINT_TO_POINTER(key),
		                    GUINT_TO_POINTER(GPOINTER_TO_UINT(v) + 1));
		break;
	}
	case GSK_CONTAINER_NODE:
		for (guint i = 0; i < gsk_container_node_get_n_children(n); i++)
			count_colours(gsk_container_node_get_child(n, i), by_colour);
		break;
	case GSK_TRANSFORM_NODE:
		count_colours(gsk_transform_node_get_child(n), by_colour);
		break;
	case GSK_CLIP_NODE:
		count_colours(gsk_clip_node_get_child(n), by_colour);
		break;
	case GSK_OPACITY_NODE:
		count_colours(gsk_opacity_node_get_child(n), by_colour);
		break;
	default:
		break;
	}
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Prints <prefix>.first_paint.<view>_ms for each view of `stack` but the
 * one shown (its first paint is the launch's): the first switch to it
 * until it is drawn; then <prefix>.switch.<view>_ms for every view, the
 * best of three switches to it (from the next view).
 */
static void time_view_switches(GtkWidget *window, GtkWidget *stack, GskRenderer *renderer,
                               const char *prefix)
{
	size_t n_views;
	const ga_view_info *views = ga_views(&n_views);
	const char *shown = gtk_stack_get_visible_child_name(GTK_STACK(stack));
	double t0;

	for (size_t i = 0; i < n_views; i++) {
		if (!g_strcmp0(views[i].name, shown))
			continue;
		settle();
		t0 = now();
		gtk_stack_set_visible_child_name(GTK_STACK(stack), views[i].name);
		layout_now(stack);
		gsk_render_node_unref(draw(window, stack, renderer));
		printf("%s.first_paint.%s_ms %.1f ms (target <= 300)\n", prefix, views[i].name,
		       (now() - t0) * 1e3);
	}
	for (size_t i = 0; i < n_views; i++) {
		double best = 1e9;

		for (int k = 0; k < 3; k++) {
			gtk_stack_set_visible_child_name(GTK_STACK(stack), views[(i + 1) % n_views].name);
			layout_now(stack);
			settle();
			t0 = now();
			gtk_stack_set_visible_child_name(GTK_STACK(stack), views[i].name);
			layout_now(stack);
			gsk_render_node_unref(draw(window, stack, renderer));
			if (now() - t0 < best)
				best = now() - t0;
		}
		printf("%s.switch.%s_ms %.1f ms (target <= 100)\n", prefix, views[i].name, best * 1e3);
	}
}

/* A load on its own thread (compare mode's two workers). */
typedef struct load_job {
	GFile *file;
	GaDocument *doc;
	GError *error;
} load_job;

static gpointer load_thread(gpointer data)
{
	load_job *j = data;

	j->doc = ga_document_load(j->file, NULL, &j->error);
	return NULL;
}

/* Compare mode: the figures listed at the top. */
static int compare_main(double t_start, const char *path_a, const char *path_b,
                        GskRenderer *renderer)
{
	load_job jobs[2] = {{g_file_new_for_commandline_arg(path_a), NULL, NULL},
	                    {g_file_new_for_commandline_arg(path_b), NULL, NULL}};
	GThread *threads[2];
	GaSession *session;
	GtkWidget *window, *stack;
	size_t n_views;
	const ga_view_info *views = ga_views(&n_views);
	tsr_comparison *cmp;
	g_autoptr(GError) error = NULL;
	double t0 = now();
	int rc = 0;
	struct rusage ru;

	for (int i = 0; i < 2; i++)
		threads[i] = g_thread_new("load", load_thread, &jobs[i]);
	for (int i = 0; i < 2; i++)
		g_thread_join(threads[i]);
	for (int i = 0; i < 2; i++)
		if (!jobs[i].doc) {
			fprintf(stderr, "bench-graph-analyser: %s\n", jobs[i].error->message);
			return 1;
		}
	printf("ga.compare.load_s %.3f s\n", now() - t0);
	t0 = now();
	cmp = ga_document_compare(jobs[0].doc, jobs[1].doc, &error);
	if (!cmp) {
		fprintf(stderr, "bench-graph-analyser: %s\n", error->message);
		return 1;
	}
	printf("ga.compare.compare_s %.3f s (%zu deltas)\n", now() - t0,
	       tsr_comparison_get_count(cmp));
	ga_document_set_comparison(jobs[1].doc, cmp);
	session = ga_session_new();
	window = gtk_window_new();
	gtk_window_set_default_size(GTK_WINDOW(window), 1280, 820);
	stack = gtk_stack_new();
	gtk_window_set_child(GTK_WINDOW(window), stack);
	for (size_t i = 0; i < n_views; i++)
		gtk_stack_add_named(GTK_STACK(stack), views[i].create(session), views[i].name);
	ga_session_set_documents(session, jobs[0].doc, jobs[1].doc);
	gtk_window_present(GTK_WINDOW(window));
	gtk_stack_set_visible_child_name(GTK_STACK(stack), "summary");
	wait_for_size(stack);
	layout_now(stack);
	gsk_render_node_unref(draw(window, stack, renderer));
	printf("ga.compare.launch_to_first_paint_s %.3f s (target <= 2.0)\n", now() - t_start);
	time_view_switches(window, stack, renderer, "ga.compare");
	getrusage(RUSAGE_SELF, &ru);
	printf("ga.compare.peak_rss_mb %ld MB\n", ru.ru_maxrss / 1024);
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(session);
	for (int i = 0; i < 2; i++) {
		ga_document_unref(jobs[i].doc);
		g_object_unref(jobs[i].file);
	}
	gsk_renderer_unrealize(renderer);
	g_object_unref(renderer);
	return rc;
}

/*
 * A 200-step zoom and pan sweep of the lanes in their current mode: zoom
 * in by 10% a step to about 1/10,000 of the run (a few steps of the large
 * report), panning across, then out again. Prints the median and max
 * snapshot (snapshot + offscreen render) and the most colour nodes of one
 * colour. With `index` (BSP), also the time to make the BSP texture of
 * each view on the calling thread, which the view does in a worker when
 * it is large (its snapshot then draws the previous texture stretched).
 */
static void sweep(GaStepLanes *lanes, GskRenderer *renderer, const char *mode, GaTraceIndex *index)
{
	double times[200], tex_times[200], from, total, t0;
	int width = gtk_widget_get_width(GTK_WIDGET(lanes));
	int scale = gtk_widget_get_scale_factor(GTK_WIDGET(lanes));
	guint most = 0;

	ga_step_lanes_set_visible(lanes, 0, 1e300);
	ga_step_lanes_get_visible(lanes, &from, &total);
	for (int i = 0; i < 200; i++) {
		double span = i < 100 ? total / pow(1.1, i) : total / pow(1.1, 200 - i);
		double start = fmod(i * 0.137 * total, total - span + 1);
		GHashTable *colours = g_hash_table_new(NULL, NULL);
		GHashTableIter it;
		gpointer key, value;
		GskRenderNode *node;

		ga_step_lanes_set_visible(lanes, start, start + span);
		t0 = now();
		node = draw(gtk_widget_get_parent(GTK_WIDGET(lanes)), GTK_WIDGET(lanes), renderer);
		times[i] = (now() - t0) * 1e3;
		count_colours(node, colours);
		g_hash_table_iter_init(&it, colours);
		while (g_hash_table_iter_next(&it, &key, &value))
			if (GPOINTER_TO_UINT(value) > most)
				most = GPOINTER_TO_UINT(value);
		g_hash_table_unref(colours);
		gsk_render_node_unref(node);
		if (index) {
			ga_bsp_request req = {0};
			GdkTexture *tex;

			req.from = start;
			req.to = start + span;
			req.width = width * scale;
			req.rows = gtk_widget_get_height(GTK_WIDGET(lanes)) * scale;
			req.row_px = 1;
			req.tiles_per_row = ga_trace_index_get_tiles_per_block(index) *
			                    MAX(1u, (ga_trace_index_get_num_tiles(index) /
			                             ga_trace_index_get_tiles_per_block(index) + req.rows - 1) /
			                                (unsigned)req.rows);
			t0 = now();
			tex = ga_trace_index_render_bsp(index, &req, NULL);
			tex_times[i] = (now() - t0) * 1e3;
			g_object_unref(tex);
		}
	}
	qsort(times, 200, sizeof(double), compare_doubles);
	printf("ga.trace_%s_snapshot_ms %.2f ms (target <= 10)\n", mode, times[100]);
	printf("# ga.trace_%s_snapshot_max_ms %.2f\n", mode, times[199]);
	printf("ga.trace_%s_colour_nodes_per_colour %u count (target <= %d)\n", mode, most,
	       2 * width);
	if (index) {
		qsort(tex_times, 200, sizeof(double), compare_doubles);
		printf("ga.trace_bsp_texture_ms %.2f ms (worker thread when large)\n", tex_times[100]);
		printf("# ga.trace_bsp_texture_max_ms %.2f\n", tex_times[199]);
	}
}

/*
 * A 200-step zoom and pan sweep of a chart-kit chart: zoom in by 5% a
 * step to about 60 items, panning across, then out again. Prints the
 * median and max snapshot (snapshot + offscreen render) as
 * ga.<label>_snapshot_ms and the most colour nodes of one colour against
 * twice the width (the level-of-detail budget).
 */
static void chart_sweep(GtkWidget *widget, GskRenderer *renderer, const char *label)
{
	TscChart *chart = widget ? TSC_CHART(widget) : NULL;
	double times[200], t0;
	guint n_items = chart ? tsc_chart_get_n_items(chart) : 0, most = 0;
	int width = chart ? gtk_widget_get_width(widget) : 0;

	if (!chart || n_items == 0) {
		printf("# ga.%s: no chart or no items\n", label);
		return;
	}
	for (int i = 0; i < 200; i++) {
		double span = i < 100 ? n_items / pow(1.05, i) : n_items / pow(1.05, 200 - i);
		double start = fmod(i * 37.0, n_items - span + 1);
		GHashTable *colours = g_hash_table_new(NULL, NULL);
		GHashTableIter it;
		gpointer key, value;
		GskRenderNode *node;

		tsc_chart_set_visible_range(chart, start, start + span);
		t0 = now();
		node = draw(gtk_widget_get_parent(widget), widget, renderer);
		times[i] = (now() - t0) * 1e3;
		count_colours(node, colours);
		g_hash_table_iter_init(&it, colours);
		while (g_hash_table_iter_next(&it, &key, &value))
			if (GPOINTER_TO_UINT(value) > most)
				most = GPOINTER_TO_UINT(value);
		g_hash_table_unref(colours);
		gsk_render_node_unref(node);
	}
	qsort(times, 200, sizeof(double), compare_doubles);
	printf("ga.%s_snapshot_ms %.2f ms (target <= 10; %u items)\n", label, times[100], n_items);
	printf("# ga.%s_snapshot_max_ms %.2f\n", label, times[199]);
	printf("ga.%s_colour_nodes_per_layer %u count (target <= %d)\n", label, most, 2 * width);
}

/* Collects the GtkButtons below `w` (the Layer menu's choices). */
static void collect_buttons(GtkWidget *w, GPtrArray *out)
{
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		if (GTK_IS_BUTTON(c) && !GTK_IS_MENU_BUTTON(gtk_widget_get_parent(c)))
			g_ptr_array_add(out, c);
		collect_buttons(c, out);
	}
}

/*
 * The Operations view's Layer choice: each layer chosen in turn (as a
 * click on its menu entry does) until the table is drawn again; prints
 * the slowest and the median. Meaningful on a report with many debug
 * contexts (the large BERT model's: run.sh passes it with --layers).
 */
static void layer_switches(GtkWidget *stack, GtkWidget *ops, GskRenderer *renderer)
{
	GtkWidget *menu = find(ops, GTK_TYPE_MENU_BUTTON);
	GtkPopover *popover = menu ? gtk_menu_button_get_popover(GTK_MENU_BUTTON(menu)) : NULL;
	g_autoptr(GPtrArray) choices = g_ptr_array_new();
	double times[64], t0;
	guint n = 0;

	gtk_stack_set_visible_child_name(GTK_STACK(stack), "operations");
	layout_now(stack);
	settle();
	if (popover)
		collect_buttons(GTK_WIDGET(popover), choices);
	for (guint round = 0; round < 2; round++)
		for (guint i = 0; i < choices->len && n < G_N_ELEMENTS(times); i++) {
			t0 = now();
			g_signal_emit_by_name(choices->pdata[i], "clicked");
			layout_now(stack);
			gsk_render_node_unref(draw(gtk_widget_get_parent(ops), ops, renderer));
			times[n++] = (now() - t0) * 1e3;
		}
	if (n == 0) {
		printf("# ga.operations_layer_switch: no Layer menu entries\n");
		return;
	}
	qsort(times, n, sizeof(double), compare_doubles);
	printf("ga.operations_layer_switch_max_ms %.1f ms (target <= 100; worst of %u, %u layers)\n",
	       times[n - 1], n, choices->len);
	printf("ga.operations_layer_switch_median_ms %.1f ms\n", times[n / 2]);
}

int main(int argc, char **argv)
{
	double t_start = now(), t0;
	g_autoptr(GError) error = NULL;
	g_autoptr(GFile) file = NULL;
	GaDocument *doc;
	GaSession *session;
	GtkWidget *window, *stack, *memory = NULL, *trace = NULL, *liveness = NULL;
	GtkWidget *operations = NULL;
	GaStepLanes *lanes = NULL;
	gboolean late = FALSE;
	guint timeout;
	GskRenderer *renderer;
	size_t n_views;
	const ga_view_info *views = ga_views(&n_views);
	struct rusage ru;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: bench-graph-analyser REPORT [REPORT2]\n");
		return 2;
	}
	gtk_init();
	/* The views' templates (the app registers them at startup). */
	ga_register_resource();
	renderer = gsk_cairo_renderer_new();
	gsk_renderer_realize(renderer, NULL, NULL);
	if (argc == 3)
		return compare_main(t_start, argv[1], argv[2], renderer);
	file = g_file_new_for_commandline_arg(argv[1]);
	doc = ga_document_load(file, NULL, &error);
	if (!doc) {
		fprintf(stderr, "bench-graph-analyser: %s\n", error->message);
		return 1;
	}
	printf("ga.load_s %.3f s\n", ga_document_get_load_seconds(doc));
	session = ga_session_new();
	window = gtk_window_new();
	gtk_window_set_default_size(GTK_WINDOW(window), 1280, 820);
	stack = gtk_stack_new();
	gtk_window_set_child(GTK_WINDOW(window), stack);
	for (size_t i = 0; i < n_views; i++) {
		GtkWidget *v = views[i].create(session);

		gtk_stack_add_named(GTK_STACK(stack), v, views[i].name);
		if (!strcmp(views[i].name, "memory"))
			memory = v;
		if (!strcmp(views[i].name, "trace"))
			trace = v;
		if (!strcmp(views[i].name, "liveness"))
			liveness = v;
		if (!strcmp(views[i].name, "operations"))
			operations = v;
	}
	ga_session_set_document(session, doc);
	gtk_window_present(GTK_WINDOW(window));
	if (gtk_stack_get_child_by_name(GTK_STACK(stack), "summary"))
		gtk_stack_set_visible_child_name(GTK_STACK(stack), "summary");
	wait_for_size(stack);
	t0 = now();
	layout_now(stack);
	gsk_render_node_unref(draw(window, stack, renderer));
	printf("ga.launch_to_summary_s %.3f s (target <= 1.0)\n", now() - t_start);
	printf("ga.first_paint.summary_ms %.1f ms (target <= 300)\n", (now() - t0) * 1e3);

	time_view_switches(window, stack, renderer, "ga");
	/* The trace view builds its tile index in a worker from the start;
	 * its memory counts once it is in (a minute at most). */
	lanes = trace ? GA_STEP_LANES(find(trace, GA_TYPE_STEP_LANES)) : NULL;
	timeout = g_timeout_add(60000, timed_out, &late);
	while (lanes && !late && strstr(ga_step_lanes_get_description(lanes), "once the tiles"))
		g_main_context_iteration(NULL, TRUE);
	if (!late)
		g_source_remove(timeout);
	getrusage(RUSAGE_SELF, &ru);
	printf("ga.peak_rss_after_views_mb %ld MB (target <= 400)\n", ru.ru_maxrss / 1024);

	if (memory) {
		GtkWidget *map = find(memory, TSC_TYPE_HEATMAP);
		double map_times[20];

		gtk_stack_set_visible_child_name(GTK_STACK(stack), "memory");
		layout_now(stack);
		settle();
		chart_sweep(find_shown_chart(memory), renderer, "memory_chart");
		for (int i = 0; map && i < 20; i++) {
			GtkWidget *parent = gtk_widget_get_parent(map);

			gtk_widget_queue_draw(map);
			t0 = now();
			gsk_render_node_unref(draw(parent, map, renderer));
			map_times[i] = (now() - t0) * 1e3;
		}
		if (map) {
			qsort(map_times, 20, sizeof(double), compare_doubles);
			printf("ga.tile_map_snapshot_ms %.2f ms (target <= 10)\n", map_times[10]);
		}
	}
	if (liveness) {
		gtk_stack_set_visible_child_name(GTK_STACK(stack), "liveness");
		layout_now(stack);
		settle();
		chart_sweep(find_shown_chart(liveness), renderer, "liveness_chart");
	}
	if (operations)
		layer_switches(stack, operations, renderer);
	if (trace) {
		tsr_report *r = ga_document_get_report(doc);
		const tsr_run *runs;
		const tsr_frame *frames;
		size_t n_runs, n_frames;
		GaTraceIndex *index;
		GError *ix_error = NULL;

		gtk_stack_set_visible_child_name(GTK_STACK(stack), "trace");
		layout_now(stack);
		settle();
		/* The per-run indexes, as the view builds them (the tile index
		 * in a worker, here on this thread to time it). */
		if (tsr_report_get_runs(&runs, &n_runs, r) || !n_runs)
			return 1;
		t0 = now();
		index = ga_trace_index_build(doc, n_runs - 1, NULL, &ix_error);
		if (!index) {
			fprintf(stderr, "bench-graph-analyser: %s\n", ix_error->message);
			return 1;
		}
		printf("ga.trace_tile_index_build_ms %.1f ms (worker thread; %u IPUs)\n",
		       (now() - t0) * 1e3, ga_trace_index_get_num_ipus(index));
		t0 = now();
		if (tsr_report_get_frames(&frames, &n_frames, r, n_runs - 1))
			printf("# ga.trace_frames: %s\n", tsr_report_error(r));
		else
			printf("ga.trace_frames_build_ms %.1f ms (%zu frames; in the index's worker)\n",
			       (now() - t0) * 1e3, n_frames);
		t0 = now();
		ga_step_lanes_set_index(lanes, index);
		printf("# ga.trace_per_ipu_lanes_ms %.1f\n", (now() - t0) * 1e3);
		/* Nine lanes now instead of three: the lanes ask for a new size. */
		layout_now(stack);
		settle();
		sweep(lanes, renderer, "flat", NULL);
		ga_step_lanes_set_mode(lanes, GA_TRACE_FLAME);
		layout_now(stack);
		sweep(lanes, renderer, "flame", NULL);
		ga_step_lanes_set_mode(lanes, GA_TRACE_BSP);
		layout_now(stack);
		settle();
		sweep(lanes, renderer, "bsp", index);
		ga_trace_index_unref(index);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("ga.peak_rss_mb %ld MB\n", ru.ru_maxrss / 1024);
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(session);
	ga_document_unref(doc);
	gsk_renderer_unrealize(renderer);
	g_object_unref(renderer);
	return 0;
}
