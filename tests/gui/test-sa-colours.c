/*
 * The one name -> colour rule (chartkit's tsc-palette.h) and the System
 * Analyser's use of it (issue 26 item 11). No display is needed: colours
 * are computed, not drawn.
 *
 * What is checked:
 *   - the same name gives the same colour, from different strings with
 *     the same text; a name past the hashed 256 bytes keeps its colour;
 *   - the fixed vocabulary (program kinds, every memory category, regions,
 *     liveness) has colours of its own, the categories all different, the
 *     same light and dark, and the Graph Analyser's kinds are those;
 *   - hashed names spread over the whole palette, pale for light themes
 *     and deep for dark ones, with text that reads on them;
 *   - tutorial 5's trace and its own Chrome export (tsr_trace_export_chrome,
 *     what `tilescope export --chrome-trace` writes) give every span the
 *     same colour, thread by thread and span by span, although the export
 *     numbers the names differently (checked: an id-based rule would not
 *     agree).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test-util.h"

#include "ga-program-kind.h"
#include "sa-timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tilescope/report.h>
#include <tilescope/trace.h>
#include <tilescope/tsc-palette.h>
#include <unistd.h>

#define TRACE SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti"

static gboolean same(const GdkRGBA *a, const GdkRGBA *b)
{
	return gdk_rgba_equal(a, b);
}

static void test_same_name_same_colour(void **state)
{
	char a[] = "Run program 1 (epoch)", *b = g_strdup(a);
	char *long1 = g_malloc(16385), *long2;

	(void)state;
	assert_true(a != b);
	for (int dark = 0; dark < 2; dark++) {
		assert_true(same(tsc_palette_colour(a, dark), tsc_palette_colour(b, dark)));
		assert_int_equal(tsc_palette_slot(a), tsc_palette_slot(b));
	}
	memset(long1, 'x', 16384);
	long1[16384] = '\0';
	long2 = g_strdup(long1);
	long2[16383] = 'y';
	assert_int_equal(tsc_palette_slot(long1), tsc_palette_slot(long2));
	assert_true(same(tsc_palette_colour(NULL, FALSE), tsc_palette_colour("", FALSE)));
	g_free(b);
	g_free(long1);
	g_free(long2);
}

static void test_vocabulary(void **state)
{
	size_t n = 0;

	(void)state;
	/* Every memory category, by its name in the file, has its own colour. */
	for (size_t c = 0; c < tsr_category_count(); c++) {
		const char *name = tsr_category_name(c);
		guint slot = tsc_palette_slot(name);

		assert_true(slot >= TSC_PALETTE_HASHED);
		assert_true(same(tsc_palette_colour(name, FALSE), tsc_palette_colour(name, TRUE)));
		for (size_t i = 0; i < c; i++)
			if (gdk_rgba_equal(tsc_palette_colour(name, FALSE),
			                   tsc_palette_colour(tsr_category_name(i), FALSE)))
				fail_msg("categories %s and %s share a colour", name, tsr_category_name(i));
		n++;
	}
	assert_true(n >= 20);
	/* The program kinds: the Graph Analyser's colours are the rule's. */
	for (int k = 0; k < GA_PROGRAM_KIND_COUNT; k++) {
		const char *name = ga_program_kind_name((ga_program_kind)k);

		assert_true(tsc_palette_slot(name) >= TSC_PALETTE_HASHED);
		assert_true(same(ga_program_kind_colour((ga_program_kind)k),
		                 tsc_palette_colour(name, FALSE)));
		for (int j = 0; j < k; j++)
			assert_false(same(ga_program_kind_colour((ga_program_kind)k),
			                  ga_program_kind_colour((ga_program_kind)j)));
	}
	assert_true(tsc_palette_slot("Not always live") >= TSC_PALETTE_HASHED);
	assert_true(tsc_palette_slot("Interleaved") >= TSC_PALETTE_HASHED);
	/* Other names are hashed. */
	assert_true(tsc_palette_slot("compute") < TSC_PALETTE_HASHED);
	assert_true(tsc_palette_slot("Engine::run") < TSC_PALETTE_HASHED);
}

static void test_hashed_palette(void **state)
{
	gboolean seen[TSC_PALETTE_HASHED] = {FALSE};
	guint hit = 0;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		g_autofree char *name = g_strdup_printf("span %d", i);
		guint slot = tsc_palette_slot(name);
		const GdkRGBA *l = tsc_palette_colour(name, FALSE), *d = tsc_palette_colour(name, TRUE);
		GdkRGBA li = tsc_palette_ink(l), di = tsc_palette_ink(d);

		assert_true(slot < TSC_PALETTE_HASHED);
		hit += !seen[slot];
		seen[slot] = TRUE;
		/* Pale in a light theme with dark text, deep in a dark one with
		 * light text. */
		assert_true(l->red + l->green + l->blue > d->red + d->green + d->blue);
		assert_true(li.red < 0.5 && di.red > 0.5);
	}
	assert_int_equal(hit, TSC_PALETTE_HASHED);
}

/* tutorial 5's trace exported as Chrome JSON into `dir`; returns the path. */
static char *export_chrome(tsr_trace *tr, const char *dir)
{
	char *path = g_build_filename(dir, "tut5_ml.json", NULL);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(tsr_trace_export_chrome(f, tr, NULL), TSR_OK);
	assert_int_equal(fclose(f), 0);
	return path;
}

static void test_pvti_and_chrome_export(void **state)
{
	g_autofree char *dir = g_dir_make_tmp("sa-colours-XXXXXX", NULL);
	g_autofree char *json = NULL;
	tsr_trace *a = tsi_test_open_trace(TRACE), *b;
	const tsr_trace_thread *ta, *tb;
	size_t nta = 0, ntb = 0, spans = 0, ids_differ = 0;

	(void)state;
	assert_non_null(dir);
	json = export_chrome(a, dir);
	b = tsi_test_open_trace(json);
	assert_int_equal(tsr_trace_get_threads(&ta, &nta, a), TSR_OK);
	assert_int_equal(tsr_trace_get_threads(&tb, &ntb, b), TSR_OK);
	assert_int_equal(nta, ntb);
	for (size_t t = 0; t < nta; t++) {
		tsr_trace_item *ia = NULL, *ib = NULL;
		size_t na = 0, nb = 0;

		assert_int_equal(tsr_trace_list_events(&ia, &na, a, t, INT64_MIN, INT64_MAX, 0), TSR_OK);
		assert_int_equal(tsr_trace_list_events(&ib, &nb, b, t, INT64_MIN, INT64_MAX, 0), TSR_OK);
		assert_int_equal(na, nb);
		for (size_t i = 0; i < na; i++) {
			const char *name_a = tsr_trace_get_name(a, ia[i].name);
			const char *name_b = tsr_trace_get_name(b, ib[i].name);

			/* The same span on both sides. */
			assert_int_equal(ia[i].kind, TSR_TRACE_ITEM_EVENT);
			assert_int_equal(ia[i].end_ns - ia[i].start_ns, ib[i].end_ns - ib[i].start_ns);
			assert_string_equal(name_a, name_b);
			for (int dark = 0; dark < 2; dark++) {
				GdkRGBA ca = sa_timeline_name_colour(a, ia[i].name, dark);
				GdkRGBA cb = sa_timeline_name_colour(b, ib[i].name, dark);

				if (!gdk_rgba_equal(&ca, &cb))
					fail_msg("thread %zu span %zu (%s): the .pvti and its Chrome export "
					         "colour it differently", t, i, name_a);
				assert_true(gdk_rgba_equal(&ca, tsc_palette_colour(name_a, dark)));
			}
			ids_differ += ia[i].name != ib[i].name;
			spans++;
		}
		free(ia);
		free(ib);
	}
	printf("%zu spans, %zu of them named by a different id in the export\n", spans,
	       ids_differ);
	assert_true(spans >= 20);
	/* What made colours differ before: a rule on the id would not agree. */
	assert_true(ids_differ > 0);
	tsr_trace_free(b);
	tsr_trace_free(a);
	unlink(json);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_name_same_colour),
		cmocka_unit_test(test_vocabulary),
		cmocka_unit_test(test_hashed_palette),
		cmocka_unit_test(test_pvti_and_chrome_export),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
