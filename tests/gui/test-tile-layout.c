/*
 * The grid of the Memory view's tile maps (ga_tile_layout_grid_columns):
 * the shape that gives the maps the largest cells in the pane, so four
 * IPUs go side by side in a wide pane and 2 x 2 in a square one, and a
 * pane's resize can change it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ga-tile-layout.h"

/* What the view passes besides the pane: a map's 8 px of margins across,
 * its title and margins down (17 px of text + 12), the gaps. */
static guint columns(guint ipus, guint tiles, double w, double h)
{
	ga_tile_layout l;

	ga_tile_layout_init(&l, ipus, tiles);
	return ga_tile_layout_grid_columns(&l, w, h, 8, 29, 12, 8, NULL);
}

static void test_grid_columns(void **state)
{
	(void)state;
	/* Four Mk2 IPUs (46 x 32 cells each). */
	assert_int_equal(columns(4, 1472, 1600, 300), 4); /* wide and low: one row */
	assert_int_equal(columns(4, 1472, 800, 700), 2);  /* squarer: 2 x 2 */
	assert_int_equal(columns(4, 1472, 300, 1400), 1); /* narrow and tall: one column */
	/* Two IPUs side by side in the view's first pane, stacked in a
	 * narrow tall one. */
	assert_int_equal(columns(2, 1472, 700, 318), 2);
	assert_int_equal(columns(2, 1472, 300, 570), 1);
	/* Three in a square pane: two columns (a row of two, then one). */
	assert_int_equal(columns(3, 1472, 700, 700), 2);
	/* Whole cells: in the view's first pane of the large report, 1 x 4
	 * and 2 x 2 both give 3 px cells, and 2 x 2 leaves the selection
	 * more width. */
	{
		ga_tile_layout l;
		guint cell = 0;

		ga_tile_layout_init(&l, 4, 1472);
		assert_int_equal(ga_tile_layout_grid_columns(&l, 700, 292, 8, 29, 12, 8, &cell), 2);
		assert_int_equal(cell, 3);
	}
	/* One IPU, and none. */
	assert_int_equal(columns(1, 1472, 700, 300), 1);
	assert_int_equal(columns(0, 1472, 700, 300), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_grid_columns)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
