/*
 * TscHeatmap: a grid of rows × columns cells (the tiles of one IPU as
 * they lie on the chip, per-tile rows of a BSP view, ...) coloured by
 * value through a colour ramp, with a legend (the ramp from minimum to
 * maximum). The grid is drawn as one texture at device pixels, placed
 * 1:1 on the device pixel grid, so it stays crisp at any scale; cells of
 * 4 device pixels or more are separated by a 1-pixel gap.
 *
 * Selection works as in TscChart: click selects a cell, shift-click the
 * rectangle from the anchor cell, ctrl-click toggles, a drag selects the
 * cells under the rubber band (adding with shift or ctrl); the arrow keys
 * move the focused cell (shift extends), Space or Enter select it,
 * Escape clears. Cell indices are row-major: row * columns + column.
 *
 * The accessible role is GTK_ACCESSIBLE_ROLE_IMG, with the label given
 * to tsc_heatmap_set_label and a description kept current (grid size,
 * value range, maximum and where, hovered and selected cells).
 *
 * Setters copy what they are given. TscHeatmap is a TscPlot (tsc-plot.h)
 * that is not zoomable: the tsc_plot_ calls work on it, with cells as
 * items, and the tsc_heatmap_ calls that mirror them are macros for them.
 */
#pragma once

#include <gtk/gtk.h>

#include <tilescope/tsc-axis.h>
#include <tilescope/tsc-plot.h>

G_BEGIN_DECLS

#define TSC_TYPE_HEATMAP (tsc_heatmap_get_type())
G_DECLARE_FINAL_TYPE(TscHeatmap, tsc_heatmap, TSC, HEATMAP, TscPlot)

GtkWidget *tsc_heatmap_new(void);

/* The accessible label ("Memory by tile, IPU 0"); copied. */
#define tsc_heatmap_set_label(self, label) tsc_plot_set_label(TSC_PLOT(self), (label))

/* Sets rows × columns values, row-major (copied); NaN marks a place with
 * no cell (drawn empty, never hit). A new shape clears the selection. */
void tsc_heatmap_set_data(TscHeatmap *self, guint rows, guint columns, const double *values);
guint tsc_heatmap_get_n_rows(TscHeatmap *self);
guint tsc_heatmap_get_n_columns(TscHeatmap *self);

/* The values mapped to the ends of the ramp; NaN for either: the data's
 * own minimum or maximum (the default). */
void tsc_heatmap_set_range(TscHeatmap *self, double min, double max);
/* The ramp: n_stops >= 2 colours spread evenly from minimum to maximum
 * (copied); NULL: the default (viridis-like, dark to light). */
void tsc_heatmap_set_ramp(TscHeatmap *self, const GdkRGBA *stops, guint n_stops);
/* Whether the legend (the ramp and its ends) is drawn under the grid
 * (TRUE, the default); maps that share one scale show it once instead. */
void tsc_heatmap_set_legend_visible(TscHeatmap *self, gboolean visible);

/* Formats values in the legend, tooltip and description (default
 * tsc_format_thousands); `destroy` frees `user_data` when replaced. */
#define tsc_heatmap_set_value_format_func(self, func, user_data, destroy) \
	tsc_plot_set_value_format_func(TSC_PLOT(self), (func), (user_data), (destroy))
/* Names cells (default "Cell 52 (row 1, column 4)"). */
#define tsc_heatmap_set_cell_label_func(self, func, user_data, destroy) \
	tsc_plot_set_item_label_func(TSC_PLOT(self), (func), (user_data), (destroy))

/* The cell under widget coordinates (x, y), or -1 (outside the grid, in
 * a gap-free sense: the gap belongs to its cell, or a NaN place). */
#define tsc_heatmap_cell_at(self, x, y) tsc_plot_item_at(TSC_PLOT(self), (x), (y), NULL, NULL)
/* The grid's area in widget coordinates. */
#define tsc_heatmap_get_grid_area(self, out) tsc_plot_get_area(TSC_PLOT(self), (out))

/* The selected cells; owned by the heat map, valid until the selection
 * next changes. */
#define tsc_heatmap_get_selection(self) tsc_plot_get_selection(TSC_PLOT(self))
/* Replaces the selection with a copy (NULL: none); cells out of range
 * are dropped. Emits "selection-changed" when it changes. */
#define tsc_heatmap_set_selection(self, selection) tsc_plot_set_selection(TSC_PLOT(self), (selection))

/* How many times the cached drawn layer (grid texture and legend) has
 * been built; for tests and benchmarks. */
#define tsc_heatmap_get_render_generation(self) tsc_plot_get_render_generation(TSC_PLOT(self))

G_END_DECLS
