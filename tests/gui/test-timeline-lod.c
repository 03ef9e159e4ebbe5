/*
 * The System Analyser's timeline at widget level: its level of detail
 * never loses a span. A trace of nested spans of very different widths
 * (written with the pvti API into a temporary directory) is shown at zoom
 * levels from the whole trace down to a microsecond, at positions over
 * it; at each, the spans the frame's items stand for (folded bars count
 * theirs) must add up to the spans reportlib lists one by one in the
 * same window (resolution 0), the frame must fold something when zoomed
 * out, and it must stay within the budget of colour nodes (two per pixel
 * column per row, plus the ruler and the labels). The instants the
 * markers stand for and the counter samples the buckets hold must add up
 * the same way, and with every thread folded to a heatmap (or the whole
 * file folded) the spans still must. tutorial 5's trace is checked the
 * same way. Also: pinning, hiding and showing rows again, the typed zoom
 * level's parser, a span's tooltip with its metadata and the ruler's
 * wall-clock labels. Needs a display
 * (under xvfb-run).
 */
#include "sa-document.h"
#include "sa-format.h"
#include "sa-ruler.h"
#include "sa-timeline.h"
#include "sa-timeline-private.h"
#include "sa-zoom-bar.h"

#include <tilescope/pvti.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glib/gstdio.h>
#include <string.h>

#define WIDTH 1200
#define HEIGHT 800

/* Every span of every thread overlapping [from, to], one by one. */
static uint64_t spans_in(tsr_trace *trace, int64_t from, int64_t to)
{
	const tsr_trace_thread *threads;
	size_t n_threads;
	uint64_t total = 0;

	assert_int_equal(tsr_trace_get_threads(&threads, &n_threads, trace), TSR_OK);
	for (size_t t = 0; t < n_threads; t++) {
		tsr_trace_item *items = NULL;
		size_t n;

		assert_int_equal(tsr_trace_list_events(&items, &n, trace, t, from, to + 1, 0), TSR_OK);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(items[i].kind, TSR_TRACE_ITEM_EVENT);
			total += items[i].count;
		}
		free(items);
	}
	return total;
}

/* Every instant of every thread in [from, to]. */
static uint64_t instants_in(tsr_trace *trace, int64_t from, int64_t to)
{
	tsr_trace_instant *in = NULL;
	size_t n = 0;

	assert_int_equal(tsr_trace_list_instants(&in, &n, trace, -1, from, to + 1, 0), TSR_OK);
	free(in);
	return n;
}

/* Every counter sample of every series in [from, to]: one bucket each. */
static uint64_t samples_in(tsr_trace *trace, int64_t from, int64_t to)
{
	const tsr_trace_series *series;
	size_t n_series;
	uint64_t total = 0;

	assert_int_equal(tsr_trace_get_series(&series, &n_series, trace), TSR_OK);
	for (size_t c = 0; c < n_series; c++) {
		tsr_trace_counter_bucket *b = NULL;
		size_t n = 0;

		assert_int_equal(tsr_trace_list_counter_buckets(&b, &n, NULL, trace, c, from, to + 1,
		                                                (uint64_t)(to + 1 - from)),
		                 TSR_OK);
		for (size_t i = 0; i < n; i++)
			total += b[i].count;
		free(b);
	}
	return total;
}

/* Folds every row of `kind` ("thread" or "file"), or unfolds all. */
static void fold(SaTimeline *tl, const char *kind)
{
	for (size_t i = 0; i < sa_timeline_get_n_rows(tl); i++) {
		sa_timeline_row row;

		assert_true(sa_timeline_get_row(tl, i, &row));
		if (g_strcmp0(row.kind, "counter") != 0)
			sa_timeline_set_row_collapsed(tl, i, g_strcmp0(row.kind, kind) == 0);
		g_free(row.label);
	}
}

/* The rows of the frame: every thread's depths (at most 8 here). */
static void check_zooms(const char *path, gboolean expect_folding, gboolean expect_instants)
{
	g_autoptr(GFile) file = g_file_new_for_path(path);
	g_autoptr(GError) error = NULL;
	g_autoptr(SaDocument) doc = sa_document_load(&file, 1, &error);
	SaTimeline *tl;
	const tsr_trace_info *info;
	tsr_trace *check = NULL;
	guint folded_seen = 0;
	uint64_t instants_seen = 0;
	static const double zooms[] = {1, 4, 64, 4096, 1e5, 1e7};

	assert_non_null(doc);
	tl = SA_TIMELINE(g_object_ref_sink(sa_timeline_new()));
	sa_timeline_set_document(tl, doc);
	info = tsr_trace_get_info(sa_document_get_trace(doc));
	/* A second handle answers the one-by-one lists. */
	assert_int_equal(tsr_trace_open(&check, &path, 1, NULL), TSR_OK);
	for (size_t z = 0; z < G_N_ELEMENTS(zooms); z++) {
		int64_t len = info->end_ns - info->start_ns;
		int64_t w = MAX((int64_t)((double)len / zooms[z]), 1000);

		for (int k = 0; k < 7; k++) {
			int64_t from = info->start_ns + (len - w) / 6 * k, vf, vt;
			uint64_t want;
			sa_timeline_frame f;

			sa_timeline_set_view(tl, from, from + w);
			sa_timeline_get_view(tl, &vf, &vt);
			sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &f);
			want = spans_in(check, vf, vt);
			if (f.spans != want)
				fail_msg("%s at zoom %g, position %d: the frame stands for %llu spans, the "
				         "window holds %llu",
				         path, zooms[z], k, (unsigned long long)f.spans, (unsigned long long)want);
			if (f.instants != instants_in(check, vf, vt))
				fail_msg("%s at zoom %g, position %d: the markers stand for %llu instants, the "
				         "window holds %llu",
				         path, zooms[z], k, (unsigned long long)f.instants,
				         (unsigned long long)instants_in(check, vf, vt));
			assert_int_equal(f.samples, samples_in(check, vf, vt));
			/* Two per pixel column per row (rows at most HEIGHT / 18),
			 * plus ruler ticks and separators. */
			assert_true(f.nodes <= 2u * WIDTH * (HEIGHT / 18) + 200);
			folded_seen += f.folded;
			instants_seen += f.instants;
			/* Folded to heatmaps, thread by thread and the file whole:
			 * the spans still add up. */
			for (int v = 0; v < 2; v++) {
				sa_timeline_frame g;

				fold(tl, v == 0 ? "thread" : "file");
				sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &g);
				if (g.spans != want)
					fail_msg("%s at zoom %g, position %d, %s folded: %llu spans drawn of %llu",
					         path, zooms[z], k, v == 0 ? "threads" : "the file",
					         (unsigned long long)g.spans, (unsigned long long)want);
				assert_true(g.nodes <= 2u * WIDTH * (HEIGHT / 18) + 200);
			}
			fold(tl, "none");
		}
	}
	if (expect_folding)
		assert_true(folded_seen > 0);
	if (expect_instants)
		assert_true(instants_seen > 0);
	tsr_trace_free(check);
	sa_timeline_set_document(tl, NULL);
	g_object_unref(tl);
}

/* A trace of 30,000 spans: "step"s holding "op"s holding sub-microsecond
 * "kernel"s, and a few long spans; an instant in every step (dense: they
 * fold) and a "Loss" series sampled at each step. */
static char *write_trace(const char *dir)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *fw = pvti_channel_framework();
	pvti_series *loss;
	char *path;

	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	pvti_thread_set_name("main");
	loss = pvti_graph_add_series(pvti_graph_new("Loss", "nats"), "train");
	pvti_begin(fw, "everything");
	for (int i = 0; i < 3000; i++) {
		pvti_begin(fw, "step");
		pvti_instant(fw, "tick");
		pvti_series_add(loss, 3.0 / (1 + i));
		for (int j = 0; j < 4; j++) {
			pvti_begin(fw, "op");
			pvti_begin(fw, "kernel");
			pvti_end(fw);
			pvti_end(fw);
		}
		/* A few long steps: the sleep shapes the data (the checks add
		 * up spans whatever their widths), nothing waits for it. */
		if (i % 500 == 0)
			g_usleep(200);
		pvti_end(fw);
	}
	pvti_end(fw);
	assert_int_equal(pvti_close(), 0);
	return path;
}

static void test_synthetic(void **state)
{
	g_autofree char *dir = g_dir_make_tmp("sa-lod-XXXXXX", NULL);
	g_autofree char *path = NULL;

	(void)state;
	assert_non_null(dir);
	path = write_trace(dir);
	assert_non_null(path);
	check_zooms(path, TRUE, TRUE);
	g_remove(path);
	g_rmdir(dir);
}

static void test_tut5(void **state)
{
	(void)state;
	check_zooms(SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti", TRUE, TRUE);
}

/* Rows: file → threads → counters; pinning moves a row to the top band,
 * hiding takes its spans out of the frame, Shift+H's call brings them
 * back. */
static void test_rows(void **state)
{
	const char *path = SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti";
	g_autoptr(GFile) file = g_file_new_for_path(path);
	g_autoptr(GError) error = NULL;
	g_autoptr(SaDocument) doc = sa_document_load(&file, 1, &error);
	SaTimeline *tl;
	sa_timeline_frame all, less, again;
	size_t n, thread_row = 0, counters = 0;
	sa_timeline_row row;

	(void)state;
	assert_non_null(doc);
	tl = SA_TIMELINE(g_object_ref_sink(sa_timeline_new()));
	sa_timeline_set_document(tl, doc);
	n = sa_timeline_get_n_rows(tl);
	assert_true(n >= 3);
	assert_true(sa_timeline_get_row(tl, 0, &row));
	assert_string_equal(row.kind, "file");
	g_free(row.label);
	for (size_t i = 0; i < n; i++) {
		assert_true(sa_timeline_get_row(tl, i, &row));
		if (g_strcmp0(row.kind, "thread") == 0 && thread_row == 0)
			thread_row = i;
		counters += g_strcmp0(row.kind, "counter") == 0;
		/* The row of the counters merged shows only when they are. */
		assert_true(row.shown == (g_strcmp0(row.kind, "counters") != 0));
		g_free(row.label);
	}
	/* tutorial 5 plots train and test loss and accuracy: three series. */
	assert_int_equal(counters, 3);
	sa_timeline_set_merge_charts(tl, TRUE);
	for (size_t i = 0; i < n; i++) {
		assert_true(sa_timeline_get_row(tl, i, &row));
		if (g_str_has_prefix(row.kind, "counter"))
			assert_true(row.shown == (g_strcmp0(row.kind, "counters") == 0));
		g_free(row.label);
	}
	sa_timeline_set_merge_charts(tl, FALSE);
	assert_true(thread_row > 0);
	sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &all);
	assert_true(all.spans > 0);
	assert_true(all.samples > 0);

	sa_timeline_set_row_hidden(tl, thread_row, TRUE);
	assert_int_equal(sa_timeline_get_hidden_rows(tl), 1);
	assert_true(sa_timeline_get_row(tl, thread_row, &row));
	assert_false(row.shown);
	g_free(row.label);
	sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &less);
	assert_true(less.spans < all.spans);
	assert_int_equal(less.rows + 1, all.rows);
	sa_timeline_show_hidden_rows(tl);
	assert_int_equal(sa_timeline_get_hidden_rows(tl), 0);
	sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &again);
	assert_int_equal(again.spans, all.spans);

	/* Pinned: still shown, still counted; hiding the file hides all. */
	sa_timeline_set_row_pinned(tl, n - 1, TRUE);
	assert_true(sa_timeline_get_row(tl, n - 1, &row));
	assert_true(row.pinned && row.shown);
	g_free(row.label);
	sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &again);
	assert_int_equal(again.spans, all.spans);
	assert_int_equal(again.samples, all.samples);
	sa_timeline_set_row_hidden(tl, 0, TRUE);
	sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &again);
	assert_int_equal(again.spans, 0);
	assert_int_equal(again.rows, 0);
	sa_timeline_show_hidden_rows(tl);

	/* A counter as an area draws the same samples. */
	sa_timeline_set_row_area(tl, n - 1, TRUE);
	sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &again);
	assert_int_equal(again.samples, all.samples);

	/* Typed zoom and Z. */
	sa_timeline_set_visible_width(tl, 1000000);
	{
		int64_t f, t;

		sa_timeline_get_view(tl, &f, &t);
		assert_int_equal(t - f, 1000000);
		sa_timeline_set_range(tl, f + 1000, f + 5000);
		assert_true(sa_timeline_zoom_to_range(tl));
		sa_timeline_get_view(tl, &f, &t);
		assert_int_equal(t - f, 4000);
	}
	sa_timeline_set_document(tl, NULL);
	g_object_unref(tl);
}

static void test_parse_width(void **state)
{
	int64_t ns = -1;

	(void)state;
	assert_true(sa_zoom_parse_width("10 ms", &ns));
	assert_int_equal(ns, 10000000);
	assert_true(sa_zoom_parse_width("250us", &ns));
	assert_int_equal(ns, 250000);
	assert_true(sa_zoom_parse_width(" 1.5 s ", &ns));
	assert_int_equal(ns, 1500000000);
	assert_true(sa_zoom_parse_width("3 µs", &ns));
	assert_int_equal(ns, 3000);
	assert_true(sa_zoom_parse_width("800 NS", &ns));
	assert_int_equal(ns, 800);
	ns = -1;
	assert_false(sa_zoom_parse_width("10", &ns));
	assert_false(sa_zoom_parse_width("ms", &ns));
	assert_false(sa_zoom_parse_width("-5 ms", &ns));
	assert_false(sa_zoom_parse_width("0 s", &ns));
	assert_false(sa_zoom_parse_width("5 parsecs", &ns));
	assert_false(sa_zoom_parse_width("0.1 ns", &ns));
	assert_false(sa_zoom_parse_width("1e300 s", &ns));
	assert_false(sa_zoom_parse_width(NULL, &ns));
	assert_int_equal(ns, -1);
}

/* The tooltip of a span (here through the keyboard's: the selected span)
 * says its name, duration, thread and the metadata attached to it. */
static void test_tooltip(void **state)
{
	g_autofree char *dir = g_dir_make_tmp("sa-tip-XXXXXX", NULL);
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *fw = pvti_channel_framework();
	g_autofree char *path = NULL, *tip = NULL;
	g_autoptr(GFile) file = NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(SaDocument) doc = NULL;
	tsr_trace_item *items = NULL;
	size_t n = 0;
	SaTimeline *tl;

	(void)state;
	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	pvti_thread_set_name("loader");
	pvti_begin(fw, "load batch");
	assert_int_equal(pvti_event_metadata("{\"batch\": 17, \"file\": \"a<b>.bin\"}"), 0);
	g_usleep(100);
	pvti_end(fw);
	assert_int_equal(pvti_close(), 0);
	file = g_file_new_for_path(path);
	doc = sa_document_load(&file, 1, &error);
	assert_non_null(doc);
	tl = SA_TIMELINE(g_object_ref_sink(sa_timeline_new()));
	sa_timeline_set_document(tl, doc);
	assert_null(sa_timeline_dup_tooltip(tl, 0, 0, TRUE));
	assert_int_equal(tsr_trace_list_events(&items, &n, sa_document_get_trace(doc), 0, INT64_MIN,
	                                       INT64_MAX, 0),
	                 TSR_OK);
	assert_int_equal(n, 1);
	sa_timeline_select(tl, 0, &items[0]);
	tip = sa_timeline_dup_tooltip(tl, 0, 0, TRUE);
	assert_non_null(tip);
	/* Markup: the metadata's angle brackets escaped. */
	assert_non_null(strstr(tip, "<b>load batch</b>"));
	assert_non_null(strstr(tip, "loader (tid "));
	assert_non_null(strstr(tip, "17"));
	assert_non_null(strstr(tip, "a&lt;b&gt;.bin"));
	/* The duration as the app formats it (how long g_usleep took varies). */
	g_autofree char *dur = sa_format_duration((double)(items[0].end_ns - items[0].start_ns));
	assert_non_null(strstr(tip, dur));
	free(items);
	sa_timeline_set_document(tl, NULL);
	g_object_unref(tl);
	g_remove(path);
	g_rmdir(dir);
}

/* Wall-clock labels: 2026-11-26 06:12:27.5 UTC plus the tick's time. */
static void test_ruler(void **state)
{
	sa_ruler r = {.x0 = 0, .width = 1000, .height = 24, .from_ns = 0, .to_ns = 1000000000,
	              .start_ns = 0, .wall_clock = TRUE,
	              .wall_origin_ns = INT64_C(1795673547500000000)};
	g_autofree char *a = sa_ruler_dup_label(&r, 0, 1e8);
	g_autofree char *b = sa_ruler_dup_label(&r, 1234567, 1e3);
	g_autofree char *c = NULL, *cap = sa_ruler_dup_caption(&r);

	(void)state;
	assert_string_equal(a, "06:12:27.5");
	assert_string_equal(b, "06:12:27.501234");
	assert_string_equal(cap, "UTC 2026-11-26");
	r.wall_clock = FALSE;
	r.to_ns = 5000000;
	c = sa_ruler_dup_label(&r, 1234567, 1e3);
	assert_string_equal(c, "1.235 ms");
}

/* What the IPU activity row `row` says in the description. */
static char *activity_says(SaTimeline *tl, size_t row)
{
	GString *d = g_string_new(NULL);

	sa_timeline_series_describe(tl, &tl->rows[row], d);
	return g_string_free(d, FALSE);
}

/* The IPU activity row scans for the run spans in a worker: the first
 * frame says "computing" (it used to scan on the main thread, so the
 * first frame had the share), then the answer lands and a frame has the
 * share. A new document while it scans drops the answer. */
static void test_activity(void **state)
{
	g_autoptr(GFile) file = g_file_new_for_path(SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti");
	g_autoptr(GError) error = NULL;
	g_autoptr(SaDocument) doc = sa_document_load(&file, 1, &error);
	SaTimeline *tl;
	sa_timeline_frame f;
	size_t row = 0;
	gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
	char *says;
	double pct = -1;

	(void)state;
	assert_non_null(doc);
	tl = SA_TIMELINE(g_object_ref_sink(sa_timeline_new()));
	sa_timeline_set_document(tl, doc);
	while (row < tl->n_rows && (tl->rows[row].kind != SA_ROW_SERIES ||
	                            strcmp(sa_timeline_series_kind(tl, &tl->rows[row]), "activity")))
		row++;
	assert_true(row < tl->n_rows);
	sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &f);
	says = activity_says(tl, row);
	assert_non_null(strstr(says, ", activity, computing"));
	while (!strstr(says, "IPU running") && g_get_monotonic_time() < end) {
		g_main_context_iteration(NULL, FALSE);
		g_usleep(2000);
		sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &f);
		g_free(says);
		says = activity_says(tl, row);
	}
	assert_int_equal(sscanf(says, ", activity, IPU running %lf %%", &pct), 1);
	assert_true(pct > 0 && pct <= 100);
	g_free(says);

	/* A new document while the scan runs. */
	sa_timeline_set_document(tl, NULL);
	sa_timeline_set_document(tl, doc);
	sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &f);
	sa_timeline_set_document(tl, NULL);
	while (G_OBJECT(tl)->ref_count > 1 && g_get_monotonic_time() < end) {
		g_main_context_iteration(NULL, FALSE);
		g_usleep(2000);
	}
	assert_int_equal(G_OBJECT(tl)->ref_count, 1);
	assert_null(tl->sseries);
	g_object_unref(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_tut5),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_parse_width),
		cmocka_unit_test(test_tooltip),
		cmocka_unit_test(test_ruler),
		cmocka_unit_test(test_activity),
	};

	if (!gtk_init_check()) {
		fprintf(stderr, "SKIP: no display\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
