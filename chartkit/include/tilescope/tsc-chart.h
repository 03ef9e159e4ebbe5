/*
 * TscChart: a chart of N items along x (tiles, program steps, ...) with
 * stacked layers drawn in this order: a stacked-bars layer (K components
 * per item), lines and areas (one value per item), markers (vertical
 * marks at items) and limit lines (a horizontal line at a value, with a
 * label). A y axis with nice ticks and an x ruler of item indices frame
 * the plot.
 *
 * Level of detail: when the visible items outnumber the pixel columns,
 * each column shows the item with the largest total under it (its whole
 * stack, so the maximum and its composition are exact and no item is
 * dropped) and the mean total of the column as a tick; a frame costs
 * O(width log n) through a pyramid built when the data is set. Items
 * wider than 3 px are bars with gaps.
 *
 * Pointer: click selects an item (under level of detail, the one the
 * column shows), shift-click selects from the anchor, ctrl-click toggles,
 * a drag with the primary button selects the items under it (adding with
 * shift or ctrl); ctrl+wheel zooms around the pointer; the wheel and
 * shift+wheel pan; a drag with the middle button, or with the primary
 * button while Alt is held, pans.
 * Keyboard: + and - zoom, Home shows all, ctrl+Left/Right and Page
 * Up/Down pan; Left/Right move the focused item (the view follows it),
 * shift+Left/Right extend the selection to it, Space or Enter select it
 * (ctrl toggles), Escape clears the selection.
 *
 * The accessible role is GTK_ACCESSIBLE_ROLE_IMG; the label is the one
 * given to tsc_chart_set_label and the description says what the chart
 * shows (range, maximum and where, hovered and selected items) and is
 * kept current.
 *
 * Every setter copies what it is given; the caller keeps its arrays.
 * TscChart is a TscPlot (tsc-plot.h), which owns the selection, the
 * visible range, the accessible description and the input above: the
 * tsc_chart_ calls that mirror tsc_plot_ ones are macros for them.
 */
#pragma once

#include <gtk/gtk.h>

#include <tilescope/tsc-axis.h>
#include <tilescope/tsc-plot.h>

G_BEGIN_DECLS

#define TSC_TYPE_CHART (tsc_chart_get_type())
G_DECLARE_FINAL_TYPE(TscChart, tsc_chart, TSC, CHART, TscPlot)

/* How a series is drawn. */
typedef enum {
	TSC_SERIES_LINE,   /* a line through the items (min-max band per column under LOD) */
	TSC_SERIES_AREA,   /* the same, filled down to zero */
} TscSeriesStyle;

GtkWidget *tsc_chart_new(void);

/* The accessible label, what the chart is ("Memory by tile"); copied. */
#define tsc_chart_set_label(self, label) tsc_plot_set_label(TSC_PLOT(self), (label))
#define tsc_chart_get_label(self) tsc_plot_get_label(TSC_PLOT(self))

/*
 * Sets the stacked-bars layer and the number of items: `values` holds
 * n_components × n_items doubles, component-major (component k of item
 * i at values[k * n_items + i]); negative and NaN values count as 0.
 * `colours` and `names` have n_components entries (names may be NULL:
 * "Component k"). Everything is copied. A new item count resets the
 * visible range to all items and clears the selection; the same count
 * keeps both. n_components may be 0 (items with no bars: lines only).
 */
void tsc_chart_set_stacks(TscChart *self, guint n_items, guint n_components,
                          const double *values, const GdkRGBA *colours,
                          const char *const *names);
/*
 * Makes the chart diverge around zero: the last `n_below` components
 * (their values still >= 0, magnitudes) are stacked down from a zero
 * line, the others up from it, and the y axis runs from below the
 * lowest stack to above the highest, with zero a tick (for a change
 * B − A: increases up, decreases down). 0, the default, stacks every
 * component up from the bottom. Kept across tsc_chart_set_stacks; more
 * than the components means all of them. Under level of detail a column
 * shows the item with the largest stack on each side. The tooltip shows
 * the lower components' values negative and the total as up less down;
 * the description names each side's extreme item ("above zero, maximum
 * Tile 3, 1,024 B; below zero, minimum Tile 8, -28,888 B", "none" for a
 * side no item reaches).
 */
void tsc_chart_set_below(TscChart *self, guint n_below);
guint tsc_chart_get_below(TscChart *self);
#define tsc_chart_get_n_items(self) tsc_plot_get_n_items(TSC_PLOT(self))
guint tsc_chart_get_n_components(TscChart *self);
/* The sum of item `item`'s components (0 out of range). */
double tsc_chart_get_total(TscChart *self, guint item);

/* Adds a series of n_items values (the count of tsc_chart_set_stacks,
 * which must come first); copied. Returns its index. */
guint tsc_chart_add_series(TscChart *self, const char *name, const double *values,
                           const GdkRGBA *colour, TscSeriesStyle style);
void tsc_chart_clear_series(TscChart *self);
/* Draws the series on an axis of their own, on the right, from 0 to
 * their largest value (TRUE), or on the stacks' axis (FALSE, the
 * default): lines of a few hundred bytes over stacks of 200 KB then
 * fill the plot's height. The description gives that axis's top. */
void tsc_chart_set_series_right(TscChart *self, gboolean right);

/* Adds a horizontal limit line at value `y` with a label ("Max memory
 * 638,976 B"); colour NULL: the theme's foreground. The y axis extends
 * to show it. Copied. */
void tsc_chart_add_limit(TscChart *self, double y, const char *label, const GdkRGBA *colour);
void tsc_chart_clear_limits(TscChart *self);

/* Vertical marks at items[0..n) (copied; replaces earlier markers);
 * colour NULL: the theme's foreground. */
void tsc_chart_set_markers(TscChart *self, const guint *items, guint n, const GdkRGBA *colour);

/* Formats the y axis, tooltip and description values (default
 * tsc_format_thousands). `destroy` frees `user_data` when replaced. */
#define tsc_chart_set_value_format_func(self, func, user_data, destroy) \
	tsc_plot_set_value_format_func(TSC_PLOT(self), (func), (user_data), (destroy))
/* Names items in tooltips and the description (default "Item 52"). */
#define tsc_chart_set_item_label_func(self, func, user_data, destroy) \
	tsc_plot_set_item_label_func(TSC_PLOT(self), (func), (user_data), (destroy))

/* The visible range in item units, [start, end) (also the properties
 * "visible-start" and "visible-end"; "range-changed" is emitted after a
 * change). The range is clamped to [0, n_items] and at least
 * min(4, n_items) items wide. */
#define tsc_chart_get_visible_start(self) tsc_plot_get_visible_start(TSC_PLOT(self))
#define tsc_chart_get_visible_end(self) tsc_plot_get_visible_end(TSC_PLOT(self))
#define tsc_chart_set_visible_range(self, start, end) \
	tsc_plot_set_visible_range(TSC_PLOT(self), (start), (end))
/* Multiplies the visible width by `factor` (< 1 zooms in) keeping item
 * position `anchor` where it is on screen. */
#define tsc_chart_zoom(self, factor, anchor) tsc_plot_zoom(TSC_PLOT(self), (factor), (anchor))
/* Moves the visible range by `delta` items. */
#define tsc_chart_pan(self, delta) tsc_plot_pan(TSC_PLOT(self), (delta))
#define tsc_chart_show_all(self) tsc_plot_show_all(TSC_PLOT(self))

/* The plot area in widget coordinates (inside the axes); all zero
 * before the widget has a size. */
#define tsc_chart_get_plot_area(self, out) tsc_plot_get_area(TSC_PLOT(self), (out))

/*
 * The item under widget x coordinate `x`, or -1 outside the plot or the
 * items. Under level of detail the pixel column holds items
 * [*out_first, *out_first + *out_n) and the item returned is the one it
 * shows (the largest total); otherwise *out_n is 1. The out-params may
 * be NULL.
 */
#define tsc_chart_item_at(self, x, out_first, out_n) \
	tsc_plot_item_at(TSC_PLOT(self), (x), 0, (out_first), (out_n))
/* The component of the stack drawn under (x, y), or -1. */
int tsc_chart_component_at(TscChart *self, double x, double y);

/* The selected items. The bitset is owned by the chart and valid until
 * the selection next changes; copy it with gtk_bitset_copy to keep it. */
#define tsc_chart_get_selection(self) tsc_plot_get_selection(TSC_PLOT(self))
/* Replaces the selection with a copy of `selection` (NULL: none); items
 * >= n_items are dropped. Emits "selection-changed" when it changes. */
#define tsc_chart_set_selection(self, selection) tsc_plot_set_selection(TSC_PLOT(self), (selection))
/* The item the keyboard acts on. */
#define tsc_chart_get_focus_item(self) tsc_plot_get_focus_item(TSC_PLOT(self))
#define tsc_chart_set_focus_item(self, item) tsc_plot_set_focus_item(TSC_PLOT(self), (item))

/* How many times the cached drawn layer has been built: for tests and
 * benchmarks checking that hover and selection do not rebuild it. */
#define tsc_chart_get_render_generation(self) tsc_plot_get_render_generation(TSC_PLOT(self))

G_END_DECLS
