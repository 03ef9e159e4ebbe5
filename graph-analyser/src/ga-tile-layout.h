/*
 * Where each tile sits on the chip, as the tile map draws it and as the
 * memory chart orders tiles in "physical" order. This is Tilescope's
 * model of an IPU's floor plan, written down here because the simulator
 * has none: tiles stand in columns of 16; half the columns face the
 * exchange from the north, half from the south; software tile numbers
 * fill a north column, then the south column opposite, then the next
 * pair. So tiles 0-15 are the first north column, 16-31 the first south
 * column, and software neighbours 15 and 16 are on opposite halves.
 */
#pragma once

#include <glib.h>

typedef struct ga_tile_layout {
	guint num_ipus;
	guint tiles_per_ipu;
	guint rows;      /* of one IPU's map: 2 halves x 16 */
	guint columns;   /* of one IPU's map */
} ga_tile_layout;

/* The layout of `num_ipus` IPUs of `tiles_per_ipu` tiles. */
void ga_tile_layout_init(ga_tile_layout *l, guint num_ipus, guint tiles_per_ipu);
/* The map cell (row * columns + column) of software tile `tile` within its IPU, and the
 * inverse: the tile at a cell of IPU `ipu` (G_MAXUINT for an empty cell). */
guint ga_tile_layout_cell(const ga_tile_layout *l, guint tile);
guint ga_tile_layout_tile_at(const ga_tile_layout *l, guint ipu, guint cell);
/* Physical order: order[i] is the software tile drawn i-th when the chart
 * walks each IPU's map row by row. The caller frees it with g_free. */
guint *ga_tile_layout_physical_order(const ga_tile_layout *l);
/* The number of columns of a grid of the IPUs' maps in a pane of
 * `width` x `height` device px that gives the largest cells (whole device
 * px, written to *out_cell when not NULL): each map takes `extra_w` px
 * more than its cells across and `extra_h` more down (its title and
 * margins), and the maps are `gap_w` and `gap_h` apart. Of grids with
 * cells as large, the one with fewer columns, which leaves width to the
 * selection beside the maps. Four IPUs go 1 x 4 in a wide low pane,
 * 2 x 2 in a squarer one. */
guint ga_tile_layout_grid_columns(const ga_tile_layout *l, double width, double height,
                                  double extra_w, double extra_h, double gap_w, double gap_h,
                                  guint *out_cell);
