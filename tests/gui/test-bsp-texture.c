/*
 * The BSP picture of the Execution Trace (ga_trace_index_render_bsp) on
 * tutorial 5's second run (1,060 steps over 672,100 cycles, 1,472 tiles):
 *
 *   - zoomed out so that ten steps share a pixel column, every column
 *     that a step touches is painted on every row of tiles: a narrow step
 *     never leaves a tile-column blank;
 *   - over cycles where one sync step is all there is, the column is the
 *     sync colour on every row (a sync holds every tile);
 *   - past the end of the run the columns stay transparent;
 *   - the index puts every step on the report's one IPU.
 *
 * The index is built on the calling thread from the real file, as the
 * view builds it in a worker.
 */
#include "ga-document.h"
#include "ga-trace-index.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

typedef struct fixture {
	GaDocument *doc;
	GaTraceIndex *index;
	const tsr_step *steps;
	size_t n_steps;
} fixture;

static int setup(void **state)
{
	fixture *f = g_new0(fixture, 1);
	g_autoptr(GFile) file = g_file_new_for_path(SAMPLE_REPORTS "/tut5_ml/profile.pop");
	GError *error = NULL;

	f->doc = ga_document_load(file, NULL, &error);
	if (!f->doc)
		fail_msg("%s", error->message);
	f->index = ga_trace_index_build(f->doc, 1, NULL, &error);
	if (!f->index)
		fail_msg("%s", error->message);
	assert_int_equal(tsr_report_get_steps(&f->steps, &f->n_steps, ga_document_get_report(f->doc), 1),
	                 TSR_OK);
	assert_int_equal(f->n_steps, 1060);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;

	ga_trace_index_unref(f->index);
	ga_document_unref(f->doc);
	g_free(f);
	return 0;
}

static ga_bsp_request request(double from, double to, int width, int rows, unsigned per_row)
{
	ga_bsp_request r = {0};

	r.from = from;
	r.to = to;
	r.width = width;
	r.rows = rows;
	r.row_px = 1;
	r.tiles_per_row = per_row;
	r.colours[GA_TILE_COMPUTE] = (GdkRGBA){0, 0, 1, 1};
	r.colours[GA_TILE_EXCHANGE] = (GdkRGBA){1, 0.5f, 0, 1};
	r.colours[GA_TILE_SYNC] = (GdkRGBA){1, 0, 1, 1};
	r.colours[GA_TILE_IDLE] = (GdkRGBA){0.5f, 0.5f, 0.5f, 1};
	return r;
}

/* The texture's pixels as cairo's ARGB32 (alpha in the top byte). */
static guint32 *pixels(GdkTexture *tex)
{
	int w = gdk_texture_get_width(tex), h = gdk_texture_get_height(tex);
	guint32 *p = g_new(guint32, (gsize)w * h);

	gdk_texture_download(tex, (guchar *)p, (gsize)w * 4);
	return p;
}

/* Whether a step overlaps cycles [a, b). */
static gboolean any_step(const fixture *f, double a, double b)
{
	for (size_t i = 0; i < f->n_steps; i++)
		if ((double)f->steps[i].cycles_from < b && (double)f->steps[i].cycles_to > a)
			return TRUE;
	return FALSE;
}

static void test_no_blank_column(void **state)
{
	fixture *f = *state;
	double total = (double)f->steps[f->n_steps - 1].cycles_to;
	/* 106 columns: ten steps per pixel column on average; the last 6
	 * columns past the run. */
	int width = 106, rows = 46, columns_with_steps = 0;
	double cpp = total / 100;
	ga_bsp_request r = request(0, cpp * width, width, rows, 32);
	guint64 counts[GA_TILE_STATE_COUNT];
	g_autoptr(GdkTexture) tex = ga_trace_index_render_bsp(f->index, &r, counts);
	g_autofree guint32 *p = pixels(tex);

	assert_int_equal(gdk_texture_get_width(tex), width);
	assert_int_equal(gdk_texture_get_height(tex), rows);
	for (int c = 0; c < width; c++) {
		gboolean steps = any_step(f, c * cpp, (c + 1) * cpp);

		columns_with_steps += steps;
		for (int y = 0; y < rows; y++) {
			guint32 a = p[y * width + c] >> 24;

			if (steps && a == 0)
				fail_msg("column %d row %d is blank where steps run", c, y);
			if (!steps && a != 0)
				fail_msg("column %d row %d is painted past the run", c, y);
		}
	}
	assert_int_equal(columns_with_steps, 100);
	/* Every state this run has shows somewhere. */
	assert_true(counts[GA_TILE_EXCHANGE] > 0);
	assert_true(counts[GA_TILE_IDLE] > 0);
}

/* A sync step alone in a column paints it sync on every row. */
static void test_sync_column(void **state)
{
	fixture *f = *state;
	const tsr_step *sync = NULL;

	for (size_t i = 0; i < f->n_steps && !sync; i++)
		if (f->steps[i].type == TSR_STEP_SYNC && f->steps[i].cycles_to - f->steps[i].cycles_from >= 8)
			sync = &f->steps[i];
	assert_non_null(sync);
	{
		double a = (double)sync->cycles_from, b = (double)sync->cycles_to;
		ga_bsp_request r = request(a, b, 4, 46, 32);
		g_autoptr(GdkTexture) tex = ga_trace_index_render_bsp(f->index, &r, NULL);
		g_autofree guint32 *p = pixels(tex);

		for (int i = 0; i < 4 * 46; i++)
			assert_int_equal(p[i], 0xffff00ffu); /* opaque magenta: sync */
	}
}

static void test_one_ipu(void **state)
{
	fixture *f = *state;

	assert_int_equal(ga_trace_index_get_num_ipus(f->index), 1);
	assert_int_equal(ga_trace_index_get_num_tiles(f->index), 1472);
	for (size_t i = 0; i < f->n_steps; i++)
		assert_true(ga_trace_index_step_on_ipu(f->index, i, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_blank_column),
	    cmocka_unit_test(test_sync_column),
	    cmocka_unit_test(test_one_ipu),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
