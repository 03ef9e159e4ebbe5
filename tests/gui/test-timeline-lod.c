/*
 * The System Analyser's timeline at widget level: its level of detail
 * never loses a span. A trace of nested spans of very different widths
 * (written with the pvti API into a temporary directory) is shown at zoom
 * levels from the whole trace down to a microsecond, at positions over
 * it; at each, the spans the frame's items stand for (folded bars count
 * theirs) must add up to the spans reportlib lists one by one in the
 * same window (resolution 0), the frame must fold something when zoomed
 * out, and it must stay within the budget of colour nodes (two per pixel
 * column per row, plus the ruler and the labels). tutorial 5's trace is
 * checked the same way. Needs a display (under xvfb-run).
 */
#include "sa-document.h"
#include "sa-timeline.h"

#include <tilescope/pvti.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glib/gstdio.h>

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

/* The rows of the frame: every thread's depths (at most 8 here). */
static void check_zooms(const char *path, gboolean expect_folding)
{
	g_autoptr(GFile) file = g_file_new_for_path(path);
	g_autoptr(GError) error = NULL;
	g_autoptr(SaDocument) doc = sa_document_load(&file, 1, &error);
	SaTimeline *tl;
	const tsr_trace_info *info;
	tsr_trace *check = NULL;
	guint folded_seen = 0;
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
			uint64_t drawn, want;
			guint nodes, folded;

			sa_timeline_set_view(tl, from, from + w);
			sa_timeline_get_view(tl, &vf, &vt);
			sa_timeline_measure_frame(tl, WIDTH, HEIGHT, &drawn, &nodes, &folded);
			want = spans_in(check, vf, vt);
			if (drawn != want)
				fail_msg("%s at zoom %g, position %d: the frame stands for %llu spans, the "
				         "window holds %llu",
				         path, zooms[z], k, (unsigned long long)drawn, (unsigned long long)want);
			/* Two per pixel column per row (rows at most HEIGHT / 18),
			 * plus ruler ticks and separators. */
			assert_true(nodes <= 2u * WIDTH * (HEIGHT / 18) + 200);
			folded_seen += folded;
		}
	}
	if (expect_folding)
		assert_true(folded_seen > 0);
	tsr_trace_free(check);
	sa_timeline_set_document(tl, NULL);
	g_object_unref(tl);
}

/* A trace of 30,000 spans: "step"s holding "op"s holding sub-microsecond
 * "kernel"s, and a few long spans, on two threads of one process. */
static char *write_trace(const char *dir)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *fw = pvti_channel_framework();
	char *path;

	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	pvti_thread_set_name("main");
	pvti_begin(fw, "everything");
	for (int i = 0; i < 3000; i++) {
		pvti_begin(fw, "step");
		for (int j = 0; j < 4; j++) {
			pvti_begin(fw, "op");
			pvti_begin(fw, "kernel");
			pvti_end(fw);
			pvti_end(fw);
		}
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
	check_zooms(path, TRUE);
	g_remove(path);
	g_rmdir(dir);
}

static void test_tut5(void **state)
{
	(void)state;
	check_zooms(SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti", TRUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_tut5),
	};

	if (!gtk_init_check()) {
		fprintf(stderr, "SKIP: no display\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
