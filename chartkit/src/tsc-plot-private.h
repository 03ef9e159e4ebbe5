/*
 * What TscPlot's subclasses (the chart, the heat map) read and call:
 * the state the base keeps for them and the helpers they draw and hit
 * test with. Not for the apps.
 */
#pragma once

#include <tilescope/tsc-plot.h>

G_BEGIN_DECLS

typedef enum { TSC_DRAG_NONE, TSC_DRAG_PENDING, TSC_DRAG_RUBBER, TSC_DRAG_PAN } TscDragMode;
typedef enum { TSC_SELECT_REPLACE, TSC_SELECT_ADD, TSC_SELECT_TOGGLE } TscSelectMode;

/* An app's function, its data and what frees the data. */
typedef struct {
	GCallback func;
	gpointer data;
	GDestroyNotify destroy;
} TscPlotCallback;

/* The base's state. Subclasses read it; they change it only through the
 * calls below (the drag and pointer fields are the base's alone). */
typedef struct {
	char *label;
	char *description;
	guint n_items;

	TscPlotCallback value_format;   /* a TscFormatFunc */
	TscPlotCallback item_label;     /* a TscItemLabelFunc */

	/* The visible range, in items. */
	double vis_start, vis_end;

	/* Geometry, valid while geometry_valid. */
	gboolean geometry_valid;
	int geom_width, geom_height, geom_scale; /* what it was computed for */
	graphene_rect_t area;                    /* the plot area, logical px */
	int area_cols;                           /* whole pixel columns in it */
	int text_height;                         /* of one line, logical px */
	PangoLayout *layout;
	GdkRGBA fg, accent;

	/* The cached drawn layer and how many times it has been built. */
	GskRenderNode *cache;
	guint64 generation;

	/* Interaction. */
	GtkBitset *selection;
	guint64 selection_serial;      /* changes with the selection */
	gint64 hover;                  /* -1: none */
	guint hover_first, hover_n;
	double pointer_x, pointer_y;
	gboolean pointer_in;
	guint focus;
	guint anchor;
	TscDragMode drag_mode;
	double drag_x0, drag_y0, drag_x1, drag_y1;
	double drag_vis_start, drag_vis_end, drag_ipp;
	GdkModifierType drag_mods;
} TscPlotPrivate;

/* Sets every hook of `plot_class` (a TscPlotClass *) to the function
 * named `prefix` and the hook's name (tsc_chart_layout, ...): a
 * subclass names its hooks so, and one it lacks fails to compile. */
#define TSC_PLOT_CLASS_SET_HOOKS(plot_class, prefix) G_STMT_START { \
	(plot_class)->layout = prefix##_layout;                       \
	(plot_class)->build_layer = prefix##_build_layer;             \
	(plot_class)->draw_overlay = prefix##_draw_overlay;           \
	(plot_class)->hit_test = prefix##_hit_test;                   \
	(plot_class)->add_between = prefix##_add_between;             \
	(plot_class)->band_items = prefix##_band_items;               \
	(plot_class)->move_focus = prefix##_move_focus;               \
	(plot_class)->item_value = prefix##_item_value;               \
	(plot_class)->default_item_label = prefix##_default_item_label; \
	(plot_class)->describe = prefix##_describe;                   \
	(plot_class)->tooltip = prefix##_tooltip;                     \
} G_STMT_END

/* The base's state of `self` (stable for the plot's life). */
TscPlotPrivate *tsc_plot_priv(TscPlot *self);

/* Computes the geometry when the size, scale or theme changed. */
void tsc_plot_ensure_geometry(TscPlot *self);
/* For the layout hook: the plot area. */
void tsc_plot_set_area(TscPlot *self, const graphene_rect_t *area);
/* Drops the cached layer (the data or its look changed). */
void tsc_plot_invalidate_cache(TscPlot *self);
/* Drops the geometry and the cached layer (what the layout depends on
 * changed). */
void tsc_plot_invalidate_geometry(TscPlot *self);
/* The subclass's data changed, to `n_items` items: a new count, or
 * `reset`, resets the focus, anchor and hover, clears the selection and
 * shows all items; the geometry, the cached layer and the description
 * follow the new data. */
void tsc_plot_data_changed(TscPlot *self, guint n_items, gboolean reset);
/* Rebuilds the accessible description from the current state. */
void tsc_plot_update_description(TscPlot *self);

/* A value or item name as the app formats it (g_free the result). */
char *tsc_plot_format_value(TscPlot *self, double value);
char *tsc_plot_format_item(TscPlot *self, guint item);
/* Appends "Tile 52, 291,196 B": an item's name and value. */
void tsc_plot_append_item(TscPlot *self, GString *out, guint item);

/* Items per logical pixel of the visible range across the plot area. */
double tsc_plot_items_per_px(TscPlot *self);
/* The x of item position `pos` (fractional), and the reverse. */
double tsc_plot_x_of(TscPlot *self, double pos);
double tsc_plot_position_at(TscPlot *self, double x);

/* Applies a selection of the items from a to b (the add_between hook's
 * range or rectangle): replacing the selection, adding to it, or
 * toggling them. */
void tsc_plot_select_between(TscPlot *self, guint a, guint b, TscSelectMode mode);

/* The rubber band: a veil in the accent colour with an outline. */
void tsc_plot_draw_band(TscPlot *self, GtkSnapshot *s, double x, double y, double w, double h);

G_END_DECLS
