/*
 * TscPlot: the base of the chart kit's plots (TscChart, TscHeatmap). A
 * plot shows N items (the bars of a chart, the cells of a heat map) and
 * owns what every plot does the same way, so that each subclass keeps
 * only its own drawing and geometry:
 *
 * - the accessible role (GTK_ACCESSIBLE_ROLE_IMG), the label given to
 *   tsc_plot_set_label and a description kept current: the subclass's
 *   summary, then the hovered item and the selected item or count;
 * - the value and item-name formatters, the theme's colours, a Pango
 *   layout and the size requests;
 * - a cached drawn layer, rebuilt only when the data, visible range,
 *   theme, size or scale changes, with an overlay drawn every frame;
 * - hover, tooltips, a selection of items with a focused and an anchor
 *   item, clicks (shift: from the anchor, ctrl: toggle), a rubber-band
 *   drag, Space/Enter to select the focused item and Escape to clear;
 * - for a zoomable plot (class field `zoomable`), a visible range along x
 *   in item units with zoom and pan by API, wheel, drag and keys, clamped
 *   to [0, n_items] and at least min(4, n_items) items wide.
 *
 * Signals: "selection-changed" (after the selection changed) and
 * "range-changed" (after the visible range changed). Properties:
 * "visible-start", "visible-end" (read-write) and "n-items" (read-only).
 */
#pragma once

#include <gtk/gtk.h>

#include <tilescope/tsc-axis.h>

G_BEGIN_DECLS

#define TSC_TYPE_PLOT (tsc_plot_get_type())
G_DECLARE_DERIVABLE_TYPE(TscPlot, tsc_plot, TSC, PLOT, GtkWidget)

/*
 * What a subclass fills in its class_init. Every hook is required
 * unless marked optional. Coordinates are logical pixels of the widget.
 * Within the chart kit, TSC_PLOT_CLASS_SET_HOOKS (tsc-plot-private.h)
 * sets them all from functions named after the hooks.
 */
struct _TscPlotClass {
	GtkWidgetClass parent_class;

	/* The size requests, logical px (default 60 × 60, natural 400 × 300). */
	int min_width, min_height, natural_width, natural_height;
	/* TRUE: the visible range follows the wheel, middle or Alt drags,
	 * +/-, Home, Page Up/Down and ctrl+Left/Right. FALSE: all items
	 * always show. */
	gboolean zoomable;
	/* "items" (the default), "cells": the description's "3 cells selected". */
	const char *item_noun;

	/* Computes the subclass's geometry for a widget of width × height at
	 * `scale` device pixels per logical one, and sets the plot area with
	 * tsc_plot_set_area. The layout, colours and text height are set. */
	void (*layout)(TscPlot *self, int width, int height, int scale);
	/* Draws the cached layer (axes, data). */
	void (*build_layer)(TscPlot *self, GtkSnapshot *snapshot);
	/* Draws what changes without the data: hover, selection, focus, the
	 * rubber band (optional). */
	void (*draw_overlay)(TscPlot *self, GtkSnapshot *snapshot);
	/* The item under (x, y), or -1; where one pixel shows several items,
	 * those are [*first, *first + *n) (else the item and 1). */
	gint64 (*hit_test)(TscPlot *self, double x, double y, guint *first, guint *n);
	/* Adds to `set` the items from a to b (a range, a rectangle). */
	void (*add_between)(TscPlot *self, GtkBitset *set, guint a, guint b);
	/* The items a rubber band from (x0, y0) to (x1, y1) selects, as the
	 * pair add_between takes; FALSE: none. */
	gboolean (*band_items)(TscPlot *self, double x0, double y0, double x1, double y1, guint *a,
	                       guint *b);
	/* The item the arrow keys move the focus to (dx, dy: -1, 0 or 1);
	 * FALSE: the key is not the plot's. */
	gboolean (*move_focus)(TscPlot *self, int dx, int dy, guint *out_item);
	/* The value the description and tooltip give an item. */
	double (*item_value)(TscPlot *self, guint item);
	/* An item's name when the app gave no item-label function. */
	char *(*default_item_label)(TscPlot *self, guint item);
	/* Appends the description's summary (n_items > 0): what the plot
	 * shows, its extremes. The base adds the hovered and selected items. */
	void (*describe)(TscPlot *self, GString *out);
	/* Writes the tooltip of `item` ([first, first + n) under one pixel);
	 * FALSE: none. */
	gboolean (*tooltip)(TscPlot *self, GString *out, guint item, guint first, guint n);

	gpointer padding[8];
};

/* The accessible label, what the plot is ("Memory by tile"); copied. */
void tsc_plot_set_label(TscPlot *self, const char *label);
const char *tsc_plot_get_label(TscPlot *self);
/* The accessible description as last given (the summary, hovered and
 * selected items); borrowed, valid until it next changes. */
const char *tsc_plot_get_description(TscPlot *self);

/* Formats values in axes, legends, tooltips and the description
 * (default tsc_format_thousands). `destroy` frees `user_data` when
 * replaced or when the plot goes. */
void tsc_plot_set_value_format_func(TscPlot *self, TscFormatFunc func, gpointer user_data,
                                    GDestroyNotify destroy);
/* Names items in tooltips and the description (default: the subclass's,
 * "Item 52"). */
void tsc_plot_set_item_label_func(TscPlot *self, TscItemLabelFunc func, gpointer user_data,
                                  GDestroyNotify destroy);

guint tsc_plot_get_n_items(TscPlot *self);

/* The visible range in item units, [start, end); always [0, n_items]
 * for a plot that is not zoomable. */
double tsc_plot_get_visible_start(TscPlot *self);
double tsc_plot_get_visible_end(TscPlot *self);
/* Sets the visible range, clamped to [0, n_items] and at least
 * min(4, n_items) wide; non-finite ends are ignored. */
void tsc_plot_set_visible_range(TscPlot *self, double start, double end);
/* Multiplies the visible width by `factor` (< 1 zooms in) keeping item
 * position `anchor` where it is on screen. */
void tsc_plot_zoom(TscPlot *self, double factor, double anchor);
/* Moves the visible range by `delta` items. */
void tsc_plot_pan(TscPlot *self, double delta);
void tsc_plot_show_all(TscPlot *self);

/* The plot area in widget coordinates (inside any axes); all zero
 * before the widget has a size. */
void tsc_plot_get_area(TscPlot *self, graphene_rect_t *out);
/* The item under (x, y), or -1 (see the hit_test hook); the out-params
 * may be NULL. */
gint64 tsc_plot_item_at(TscPlot *self, double x, double y, guint *out_first, guint *out_n);

/* The selected items; owned by the plot, valid until the selection next
 * changes (copy it with gtk_bitset_copy to keep it). */
GtkBitset *tsc_plot_get_selection(TscPlot *self);
/* Replaces the selection with a copy of `selection` (NULL: none); items
 * >= n_items are dropped. Emits "selection-changed" when it changes. */
void tsc_plot_set_selection(TscPlot *self, const GtkBitset *selection);
/* The item the keyboard acts on; setting it (clamped to the items)
 * pans a zoomable plot to show it. */
guint tsc_plot_get_focus_item(TscPlot *self);
void tsc_plot_set_focus_item(TscPlot *self, guint item);

/* How many times the cached drawn layer has been built: for tests and
 * benchmarks checking that hover and selection do not rebuild it. */
guint64 tsc_plot_get_render_generation(TscPlot *self);

G_END_DECLS
