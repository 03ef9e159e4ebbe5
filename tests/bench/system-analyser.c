/*
 * Benchmark: the System Analyser on a large trace. Writes a trace of
 * SPANS spans (default 10 M) with the pvti API over THREADS threads
 * (default 64; each: "step" spans holding six "op"s, three of which hold
 * a "kernel", as bench-trace-viewport writes; the first four threads
 * also add a sample to their own "Load" series at every step and drop an
 * instant every 1,000 steps), then prints:
 *   sa.open_to_first_paint_s   GTK started, the trace opened as the app's
 *                              loader does (sa_document_load: the open and
 *                              each thread's first level of detail), the
 *                              window laid out and the overview and the
 *                              timeline drawn
 *   sa.timeline_snapshot_ms    median, 95th percentile and max over a
 *                              200-step sweep from the whole trace to 1 us
 *                              and back, panning as it goes: the timeline's
 *                              snapshot (the layer rebuilt: one viewport
 *                              query per thread in view, the counter rows
 *                              pinned to the top, instant markers)
 *   sa.timeline_frame_ms       the same with an offscreen render of the
 *                              node (cairo, 1600 x 900): a frame
 *   sa.timeline_colour_nodes   the most colour nodes of one frame, against
 *                              the budget of 2 x width x visible rows
 *   sa.stats_half_ms           the Statistics of a window holding half the
 *                              trace (sa_document_stats, medians included)
 *   sa.peak_rss_mb
 * Under Xvfb GTK's frame clock never completes, so "drawn" means a
 * snapshot of the widget rendered offscreen by the cairo renderer. A
 * benchmark reports; it never fails on a timing.
 *
 * Usage: bench-system-analyser [SPANS [THREADS]]
 * SA_BENCH_STEPS set: a '#' line per step of the sweep (its window and time).
 * SA_BENCH_KEEP set: the trace is kept (its path printed) to look at in the app.
 */
#define _GNU_SOURCE 1

#include "bench-trace.h"
#include "bench-util.h"
#include "sa-document.h"
#include "sa-overview.h"
#include "sa-timeline.h"


#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define WIDTH 1600
#define HEIGHT 900
#define STEPS 200

static void settle(void)
{
	for (int i = 0; i < 50 && g_main_context_iteration(NULL, FALSE); i++)
		;
}

/* Snapshots `w` (inside `parent`) and renders it offscreen; `*snap_ms`
 * (may be NULL) gets the snapshot's share. FALSE when nothing was drawn
 * (a frame that draws nothing would time as fast as can be). */
static gboolean draw(GtkWidget *parent, GtkWidget *w, GskRenderer *renderer, double *snap_ms)
{
	GtkSnapshot *s = gtk_snapshot_new();
	GskRenderNode *node;
	graphene_rect_t bounds;
	double t0 = (bench_now_ms() / 1e3);

	gtk_widget_snapshot_child(parent, w, s);
	node = gtk_snapshot_free_to_node(s);
	if (snap_ms)
		*snap_ms = ((bench_now_ms() / 1e3) - t0) * 1e3;
	if (node) {
		gsk_render_node_get_bounds(node, &bounds);
		g_object_unref(gsk_renderer_render_texture(renderer, node, &bounds));
		gsk_render_node_unref(node);
	}
	return node != NULL;
}

int main(int argc, char **argv)
{
	long spans = argc > 1 ? atol(argv[1]) : 10000000;
	int threads = argc > 2 ? atoi(argv[2]) : 64;
	char dir[] = "/tmp/bench-system-analyser-XXXXXX";
	double t0, times[STEPS], snaps[STEPS];
	char *path;
	GtkWidget *win, *box, *overview, *tl;
	GskRenderer *renderer;
	g_autoptr(SaDocument) doc = NULL;
	g_autoptr(SaSession) session = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GFile) file = NULL;
	const tsr_trace_info *info;
	guint max_nodes = 0, max_rows = 0;
	struct rusage ru;
	int rc = 1;

	if (spans < 1000 || threads < 1 || threads > 256 || !mkdtemp(dir)) {
		fprintf(stderr, "usage: bench-system-analyser [SPANS >= 1000 [THREADS]]\n");
		return 2;
	}
	t0 = (bench_now_ms() / 1e3);
	path = bench_write_trace(dir, &(bench_trace_options){.spans = spans, .threads = threads,
	                                                     .counter_threads = 4});
	if (!path) {
		fprintf(stderr, "bench-system-analyser: tracing failed\n");
		goto cleanup;
	}
	printf("# made a trace of %ld spans over %d threads in %.1f s\n", spans, threads,
	       (bench_now_ms() / 1e3) - t0);

	t0 = (bench_now_ms() / 1e3);
	gtk_init();
	file = g_file_new_for_path(path);
	doc = sa_document_load(&file, 1, &error);
	if (!doc) {
		fprintf(stderr, "bench-system-analyser: %s\n", error->message);
		goto cleanup;
	}
	printf("# sa_document_load %.2f s\n", (bench_now_ms() / 1e3) - t0);
	win = gtk_window_new();
	gtk_window_set_default_size(GTK_WINDOW(win), WIDTH, HEIGHT);
	/* The overview over the timeline, as the window has them: its picture
	 * of the whole trace is part of the first paint. */
	box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	overview = sa_overview_new();
	tl = sa_timeline_new();
	gtk_widget_set_vexpand(tl, TRUE);
	gtk_box_append(GTK_BOX(box), overview);
	gtk_box_append(GTK_BOX(box), tl);
	gtk_window_set_child(GTK_WINDOW(win), box);
	/* The overview shows the session's document and view, as the
	 * window keeps them in step with the timeline's. */
	session = sa_session_new();
	sa_view_set_session(SA_VIEW(overview), session);
	sa_session_set_document(session, doc);
	sa_timeline_set_document(SA_TIMELINE(tl), doc);
	{
		int64_t from, to;

		sa_timeline_get_view(SA_TIMELINE(tl), &from, &to);
		sa_session_set_view(session, from, to);
	}
	/* The counter rows come after the 64 threads: pinned to the top, as
	 * someone watching them would, so that every frame draws them. */
	for (size_t i = 0; i < sa_timeline_get_n_rows(SA_TIMELINE(tl)); i++) {
		sa_timeline_row row;

		if (!sa_timeline_get_row(SA_TIMELINE(tl), i, &row))
			break;
		if (g_strcmp0(row.kind, "counter") == 0)
			sa_timeline_set_row_pinned(SA_TIMELINE(tl), i, TRUE);
		g_free(row.label);
	}
	gtk_window_present(GTK_WINDOW(win));
	settle();
	renderer = gsk_cairo_renderer_new();
	gsk_renderer_realize(renderer, NULL, NULL);
	if (!draw(box, overview, renderer, NULL) || !draw(box, tl, renderer, NULL)) {
		fprintf(stderr, "bench-system-analyser: the first frame drew nothing\n");
		goto cleanup;
	}
	printf("sa.open_to_first_paint_s %.2f s (target <= 2)\n", (bench_now_ms() / 1e3) - t0);

	/* The sweep: 100 steps from the whole trace down to 1 us (a geometric
	 * series), panning across, then back out. */
	info = tsr_trace_get_info(sa_document_get_trace(doc));
	{
		double len = (double)(info->end_ns - info->start_ns);
		double ratio = pow(1000.0 / len, 1.0 / (STEPS / 2 - 1));

		for (int i = 0; i < STEPS; i++) {
			int k = i < STEPS / 2 ? i : STEPS - 1 - i;
			double w = len * pow(ratio, k);
			double centre = (double)info->start_ns + len * (0.1 + 0.8 * i / (STEPS - 1));
			sa_timeline_frame frame;

			sa_timeline_set_view(SA_TIMELINE(tl), (int64_t)(centre - w / 2),
			                     (int64_t)(centre + w / 2));
			t0 = (bench_now_ms() / 1e3);
			if (!draw(box, tl, renderer, &snaps[i])) {
				fprintf(stderr, "bench-system-analyser: step %d drew nothing\n", i);
				goto cleanup;
			}
			times[i] = ((bench_now_ms() / 1e3) - t0) * 1e3;
			if (getenv("SA_BENCH_STEPS"))
				printf("# step %d: window %.0f ns, %.2f ms (snapshot %.2f ms)\n", i, w, times[i],
				       snaps[i]);
			if (i % 20 == 0) {
				sa_timeline_measure_frame(SA_TIMELINE(tl), gtk_widget_get_width(tl),
				                          gtk_widget_get_height(tl), &frame);
				max_nodes = MAX(max_nodes, frame.nodes);
				max_rows = MAX(max_rows, frame.rows);
			}
		}
	}
	qsort(times, STEPS, sizeof(times[0]), bench_compare_double);
	qsort(snaps, STEPS, sizeof(snaps[0]), bench_compare_double);
	printf("sa.timeline_snapshot_median_ms %.2f ms (target <= 10)\n", snaps[STEPS / 2]);
	printf("sa.timeline_snapshot_p95_ms %.2f ms\n", snaps[STEPS * 95 / 100]);
	printf("sa.timeline_snapshot_max_ms %.2f ms\n", snaps[STEPS - 1]);
	printf("sa.timeline_frame_median_ms %.2f ms\n", times[STEPS / 2]);
	printf("sa.timeline_frame_p95_ms %.2f ms (target <= 16)\n", times[STEPS * 95 / 100]);
	printf("sa.timeline_frame_max_ms %.2f ms\n", times[STEPS - 1]);
	printf("sa.timeline_colour_nodes %u count (target <= %d: 2 x width x %u visible rows)\n",
	       max_nodes, 2 * gtk_widget_get_width(tl) * (int)max_rows, max_rows);
	{
		int64_t half = info->start_ns + (info->end_ns - info->start_ns) / 2;
		g_autoptr(sa_stats) st = NULL;

		t0 = (bench_now_ms() / 1e3);
		st = sa_document_stats(doc, info->start_ns, half, &error);
		if (!st) {
			fprintf(stderr, "bench-system-analyser: %s\n", error->message);
			goto cleanup;
		}
		printf("sa.stats_half_ms %.0f ms (target <= 300)\n", ((bench_now_ms() / 1e3) - t0) * 1e3);
		printf("# %llu spans in the half window\n", (unsigned long long)st->spans);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("sa.peak_rss_mb %ld MB (target <= 1536)\n", ru.ru_maxrss / 1024);
	gtk_window_destroy(GTK_WINDOW(win));
	gsk_renderer_unrealize(renderer);
	g_object_unref(renderer);
	rc = 0;
cleanup:
	if (getenv("SA_BENCH_KEEP") && path)
		printf("# kept %s\n", path);
	else
		bench_remove_tree(dir);
	free(path);
	return rc;
}
