/*
 * Tilescope's model of an IPU floor plan (ga-tile-layout.h).
 */
#include "ga-tile-layout.h"

#include <math.h>

#define COLUMN_TILES 16u

void ga_tile_layout_init(ga_tile_layout *l, guint num_ipus, guint tiles_per_ipu)
{
	guint pairs = (tiles_per_ipu + 2 * COLUMN_TILES - 1) / (2 * COLUMN_TILES);

	l->num_ipus = num_ipus;
	l->tiles_per_ipu = tiles_per_ipu;
	l->rows = 2 * COLUMN_TILES;
	l->columns = pairs ? pairs : 1;
}

guint ga_tile_layout_cell(const ga_tile_layout *l, guint tile)
{
	guint t = l->tiles_per_ipu ? tile % l->tiles_per_ipu : tile;
	guint pair = t / (2 * COLUMN_TILES), in_pair = t % (2 * COLUMN_TILES);
	guint half = in_pair / COLUMN_TILES, in_column = in_pair % COLUMN_TILES;
	/* The north half's tile 0 is next to the exchange (its bottom row);
	 * the south half's is its top row. */
	guint row = half == 0 ? COLUMN_TILES - 1 - in_column : COLUMN_TILES + in_column;

	return row * l->columns + pair;
}

guint ga_tile_layout_tile_at(const ga_tile_layout *l, guint ipu, guint cell)
{
	guint row = cell / l->columns, column = cell % l->columns, in_pair, t;

	if (row >= l->rows)
		return G_MAXUINT;
	in_pair = row < COLUMN_TILES ? COLUMN_TILES - 1 - row : COLUMN_TILES + (row - COLUMN_TILES);
	t = column * 2 * COLUMN_TILES + in_pair;
	if (t >= l->tiles_per_ipu || ipu >= l->num_ipus)
		return G_MAXUINT;
	return ipu * l->tiles_per_ipu + t;
}

guint *ga_tile_layout_physical_order(const ga_tile_layout *l)
{
	guint n = l->num_ipus * l->tiles_per_ipu, k = 0;
	guint *order = g_new(guint, n ? n : 1);

	for (guint ipu = 0; ipu < l->num_ipus; ipu++)
		for (guint cell = 0; cell < l->rows * l->columns; cell++) {
			guint t = ga_tile_layout_tile_at(l, ipu, cell);

			if (t != G_MAXUINT)
				order[k++] = t;
		}
	return order;
}

guint ga_tile_layout_grid_columns(const ga_tile_layout *l, double width, double height,
                                  double extra_w, double extra_h, double gap_w, double gap_h,
                                  guint *out_cell)
{
	guint best = 1;
	double best_cell = 0;

	for (guint c = 1; c <= l->num_ipus; c++) {
		guint r = (l->num_ipus + c - 1) / c;
		double cw = floor(((width - (c - 1) * gap_w) / c - extra_w) / l->columns);
		double ch = floor(((height - (r - 1) * gap_h) / r - extra_h) / l->rows);

		if (MIN(cw, ch) > best_cell) {
			best = c;
			best_cell = MIN(cw, ch);
		}
	}
	if (out_cell)
		*out_cell = (guint)best_cell;
	return best;
}
