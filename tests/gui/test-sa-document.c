/*
 * The System Analyser's loader (sa-document.c) without a window: an
 * asynchronous load completes and reports no progress after it (a queued
 * progress idle once ran after the completion, into freed data);
 * a cancelled one completes with G_IO_ERROR_CANCELLED; a hostile file
 * completes with reportlib's one line naming it; the statistics of a
 * window are those of tsr_trace_list_label_stats over the same window;
 * a Chrome trace-event JSON file loads like a .pvti, and is parsed once
 * (the statistics' handle shares the load's); the load decodes no span
 * (a coarse query after it answers from the level of detail).
 */
#include "sa-document.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glib/gstdio.h>
#include <tilescope/pvti.h>
#include <stdio.h>
#include <string.h>

#define TRACE SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti"

typedef struct load_result {
	SaDocument *doc;
	GError *error;
	int progress_calls;
	double last_fraction;
	gboolean done;
} load_result;

static void on_progress(double fraction, const char *message, gpointer data)
{
	load_result *r = data;

	(void)message;
	/* Never after the load has completed. */
	assert_false(r->done);
	assert_true(fraction >= 0 && fraction <= 1);
	r->progress_calls++;
	r->last_fraction = fraction;
}

static void on_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
	load_result *r = data;

	(void)source;
	r->doc = sa_document_load_finish(result, &r->error);
	r->done = TRUE;
}

static void load(load_result *r, const char *path, GCancellable *cancellable)
{
	g_autoptr(GFile) file = g_file_new_for_path(path);

	memset(r, 0, sizeof(*r));
	sa_document_load_async(&file, 1, cancellable, on_progress, r, NULL, on_loaded, r);
	while (!r->done)
		g_main_context_iteration(NULL, TRUE);
	/* What is still queued runs now (and must not report progress). */
	while (g_main_context_iteration(NULL, FALSE))
		;
}

static void test_load(void **state)
{
	load_result r;
	const tsr_trace_info *info;

	(void)state;
	load(&r, TRACE, NULL);
	assert_null(r.error);
	assert_non_null(r.doc);
	/* Progress may or may not reach the main thread before so small a
	 * load completes; on_progress checks none comes after. */
	assert_string_equal(sa_document_get_title(r.doc), "tut5_ml.pvti");
	info = tsr_trace_get_info(sa_document_get_trace(r.doc));
	assert_int_equal(info->events, 42);
	sa_document_unref(r.doc);
}

static void test_cancelled(void **state)
{
	g_autoptr(GCancellable) cancellable = g_cancellable_new();
	load_result r;

	(void)state;
	g_cancellable_cancel(cancellable);
	load(&r, TRACE, cancellable);
	assert_null(r.doc);
	if (!g_error_matches(r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
		fail_msg("a cancelled load ended with %s", r.error ? r.error->message : "no error");
	g_error_free(r.error);
}

static void test_hostile(void **state)
{
	g_autofree char *dir = g_dir_make_tmp("sa-doc-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "x.pvti", NULL);
	char junk[4096];
	load_result r;

	(void)state;
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)g_random_int();
	assert_true(g_file_set_contents(path, junk, sizeof(junk), NULL));
	load(&r, path, NULL);
	assert_null(r.doc);
	assert_non_null(r.error);
	assert_true(r.error->domain == SA_DOCUMENT_ERROR);
	assert_non_null(strstr(r.error->message, path));
	assert_null(strchr(r.error->message, '\n'));
	g_error_free(r.error);
	g_remove(path);
	g_rmdir(dir);
}

/* The statistics of a window against reportlib's over the same window. */
static void test_stats(void **state)
{
	g_autoptr(GFile) file = g_file_new_for_path(TRACE);
	g_autoptr(SaDocument) doc = sa_document_load(&file, 1, NULL);
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	const tsr_trace_info *info;
	tsr_trace_label_stat *want = NULL;
	size_t n_want;
	g_autoptr(sa_stats) got = NULL;

	(void)state;
	assert_non_null(doc);
	info = tsr_trace_get_info(sa_document_get_trace(doc));
	o.from_ns = info->start_ns + (info->end_ns - info->start_ns) / 2;
	o.to_ns = info->end_ns;
	got = sa_document_stats(doc, o.from_ns, o.to_ns, NULL);
	assert_non_null(got);
	assert_int_equal(tsr_trace_list_label_stats(&want, &n_want, sa_document_get_trace(doc), &o),
	                 TSR_OK);
	assert_int_equal(got->n_labels, n_want);
	assert_true(n_want > 0 && n_want < 21);
	for (size_t i = 0; i < n_want; i++) {
		assert_int_equal(got->labels[i].name, want[i].name);
		assert_int_equal(got->labels[i].count, want[i].count);
		assert_int_equal(got->labels[i].total_ns, want[i].total_ns);
		assert_int_equal(got->labels[i].self_ns, want[i].self_ns);
		assert_int_equal(got->labels[i].median_ns, want[i].median_ns);
	}
	free(want);
}

/* A Chrome trace-event JSON file (tut5's trace exported) loads into the
 * same document, with the same spans and statistics; a truncated one
 * gives its one line. */
static void test_chrome_json(void **state)
{
	g_autofree char *dir = g_dir_make_tmp("sa-doc-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "tut5.json", NULL);
	g_autofree char *bad = g_build_filename(dir, "cut.json", NULL);
	const char *src = TRACE;
	tsr_trace *tr = NULL;
	load_result r;
	FILE *f;

	(void)state;
	assert_int_equal(tsr_trace_open(&tr, &src, 1, NULL), TSR_OK);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(tsr_trace_export_chrome(f, tr, NULL), TSR_OK);
	fclose(f);
	tsr_trace_free(tr);
	load(&r, path, NULL);
	assert_null(r.error);
	assert_non_null(r.doc);
	assert_string_equal(sa_document_get_title(r.doc), "tut5.json");
	assert_int_equal(tsr_trace_get_info(sa_document_get_trace(r.doc))->events, 42);
	/* The statistics' handle shares the parsed trace: the file is no
	 * longer a trace, and the statistics still come (parsing it again
	 * would fail). */
	assert_true(g_file_set_contents(path, "{\"traceEvents\":[{\"ph\":", -1, NULL));
	{
		const tsr_trace_info *info = tsr_trace_get_info(sa_document_get_trace(r.doc));
		g_autoptr(sa_stats) st = sa_document_stats(r.doc, info->start_ns, info->end_ns + 1, NULL);

		assert_non_null(st);
		assert_int_equal(st->spans, 42);
	}
	sa_document_unref(r.doc);
	assert_true(g_file_set_contents(bad, "{\"traceEvents\":[{\"ph\":\"X\",", -1, NULL));
	load(&r, bad, NULL);
	assert_null(r.doc);
	assert_non_null(r.error);
	assert_non_null(strstr(r.error->message, bad));
	assert_null(strchr(r.error->message, '\n'));
	g_error_free(r.error);
	g_remove(path);
	g_remove(bad);
	g_rmdir(dir);
}

/* The load leaves the handle answering a coarse query from the level of
 * detail, as the timeline's first paint asks: under reportlib's default
 * budget the load decoded each thread of up to 256 Ki spans whole, for
 * an answer nobody kept (every span of a 5 M-span trace over 64 threads). */
static gpointer write_spans(gpointer data)
{
	pvti_channel *fw = pvti_channel_framework();

	(void)data;
	for (int i = 0; i < 40000; i++) {
		pvti_begin(fw, "step");
		pvti_end(fw);
	}
	return NULL;
}

/* Eight threads of 40,000 spans: past the frame's share of a thread (a
 * quarter million over eight), within reportlib's default budget. */
static void test_open_decodes_nothing(void **state)
{
	GThread *writers[8];
	g_autofree char *dir = g_dir_make_tmp("sa-doc-XXXXXX", NULL);
	pvti_options opts = PVTI_OPTIONS_INIT;
	g_autofree char *path = NULL;
	g_autoptr(GFile) file = NULL;
	g_autoptr(SaDocument) doc = NULL;
	const tsr_trace_info *info;

	(void)state;
	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	for (int t = 0; t < 8; t++)
		writers[t] = g_thread_new("writer", write_spans, NULL);
	for (int t = 0; t < 8; t++)
		g_thread_join(writers[t]);
	assert_int_equal(pvti_close(), 0);
	file = g_file_new_for_path(path);
	doc = sa_document_load(&file, 1, NULL);
	assert_non_null(doc);
	info = tsr_trace_get_info(sa_document_get_trace(doc));
	assert_int_equal(info->events, 8 * 40000);
	assert_int_equal(info->threads, 8);
	for (size_t t = 0; t < 8; t++) {
		tsr_trace_item *items = NULL;
		size_t n = 0;

		assert_int_equal(tsr_trace_list_events(&items, &n, sa_document_get_trace(doc), t,
		                                       info->start_ns, info->end_ns + 1,
		                                       (uint64_t)(info->end_ns - info->start_ns) / 1000 + 1),
		                 TSR_OK);
		assert_true(n > 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(items[i].kind, TSR_TRACE_ITEM_SUMMARY);
		free(items);
	}
	g_remove(path);
	g_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_cancelled),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_chrome_json),
		cmocka_unit_test(test_open_decodes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
