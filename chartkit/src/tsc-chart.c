/*
 * TscChart (tsc-chart.h): items along x with stacked bars, lines/areas,
 * markers and limit lines, an axis and a ruler, level of detail, hit
 * testing, selection, zoom and pan, keyboard focus and an accessible
 * description.
 *
 * Drawing is split in two: the axes and data layers are built into one
 * cached render node, rebuilt only when the data, visible range, theme
 * or size changes; hover, selection, focus and the rubber band are an
 * overlay drawn on top every frame. Geometry (plot area, y scale, axis
 * ticks) is computed lazily outside the draw call so hit testing and
 * drawing agree.
 */
#include <tilescope/tsc-chart.h>
#include <tilescope/tsc-input.h>

#include "tsc-lod-private.h"
#include "tsc-util-private.h"

#include <math.h>

/* The fewest items the visible range holds (fewer when there are fewer). */
#define MIN_SPAN 4.0
/* Items at least this wide (logical px) are bars with gaps. */
#define BAR_GAP_WIDTH 3.0
/* A press that moves less than this (px) is a click. */
#define DRAG_THRESHOLD 3.0

typedef struct {
	char *name;
	double *values;      /* n_items */
	TscPyramid *pyr;
	GdkRGBA colour;
	TscSeriesStyle style;
} Series;

typedef struct {
	double y;
	char *label;
	GdkRGBA colour;
	gboolean has_colour;  /* FALSE: the theme's foreground */
} Limit;

typedef enum { DRAG_NONE, DRAG_PENDING, DRAG_RUBBER, DRAG_PAN } DragMode;

struct _TscChart {
	GtkWidget parent_instance;

	char *label;
	/* The stacked-bars layer. */
	guint n_items;
	guint n_components;
	double *values;          /* n_components × n_items, component-major, >= 0 */
	double *totals;          /* n_items: sum over the components */
	GdkRGBA *colours;        /* n_components */
	char **names;            /* n_components, NULL-terminated */
	TscPyramid *totals_pyr;  /* over totals */
	/* Diverging (tsc_chart_set_below): the last n_below components are
	 * drawn down from zero. up and down are each item's sums above and
	 * below (magnitudes), with their pyramids; NULL when n_below is 0. */
	guint n_below;
	double *up, *down;
	TscPyramid *up_pyr, *down_pyr;
	GPtrArray *series;       /* of Series* */
	GArray *limits;          /* of Limit */
	guint *markers;
	guint n_markers;
	GdkRGBA marker_colour;
	gboolean marker_has_colour;

	TscFormatFunc value_format;
	gpointer value_format_data;
	GDestroyNotify value_format_destroy;
	TscItemLabelFunc item_label;
	gpointer item_label_data;
	GDestroyNotify item_label_destroy;

	/* The visible range, in items. */
	double vis_start;
	double vis_end;

	/* Geometry, valid while geometry_valid. */
	gboolean geometry_valid;
	int geom_width, geom_height;   /* the size it was computed for */
	graphene_rect_t plot;          /* logical px, widget coordinates */
	int plot_cols;                 /* whole pixel columns in the plot */
	double y_max;                  /* the value at the top of the plot */
	double y_min;                  /* at the bottom: 0, or below it when diverging */
	double y_step, y_first;        /* y ticks */
	guint y_n;
	int text_height;
	PangoLayout *layout;
	GdkRGBA fg, accent;

	/* The cached drawn layer. */
	GskRenderNode *cache;
	guint64 generation;

	/* Interaction. */
	GtkBitset *selection;
	gint64 hover_item;             /* -1: none */
	guint hover_first, hover_n;
	double pointer_x, pointer_y;
	gboolean pointer_in;
	guint focus_item;
	guint anchor_item;
	DragMode drag_mode;
	double drag_x0, drag_y0, drag_x1;
	double drag_vis_start, drag_vis_end, drag_ipp;
	GdkModifierType drag_mods;
};

enum { PROP_0, PROP_VISIBLE_START, PROP_VISIBLE_END, PROP_N_ITEMS, N_PROPS };
enum { SIGNAL_SELECTION_CHANGED, SIGNAL_RANGE_CHANGED, N_SIGNALS };
static GParamSpec *props[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE(TscChart, tsc_chart, GTK_TYPE_WIDGET)

static void update_description(TscChart *self);

/* --- Formatting -------------------------------------------------------- */

static char *format_value(TscChart *self, double v)
{
	return self->value_format ? self->value_format(v, self->value_format_data)
	                          : tsc_format_thousands(v, NULL);
}

static char *format_item(TscChart *self, guint item)
{
	if (self->item_label)
		return self->item_label(item, self->item_label_data);
	return g_strdup_printf("Item %u", item);
}

/* --- Geometry ---------------------------------------------------------- */

static void invalidate_cache(TscChart *self)
{
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void invalidate_geometry(TscChart *self)
{
	self->geometry_valid = FALSE;
	invalidate_cache(self);
}

/* Whether component k is drawn below zero. */
static gboolean is_below(TscChart *self, guint k)
{
	return k + self->n_below >= self->n_components;
}

/* The largest value any layer shows, so the y axis holds it. */
static double data_max(TscChart *self)
{
	double m = 0;
	TscSpan span;
	guint i;

	if (self->up_pyr) {
		tsc_pyramid_query(self->up_pyr, 0, self->n_items, &span);
		m = MAX(m, span.max);
	} else if (self->totals_pyr) {
		tsc_pyramid_query(self->totals_pyr, 0, self->n_items, &span);
		m = MAX(m, span.max);
	}
	for (i = 0; i < self->series->len; i++) {
		Series *s = g_ptr_array_index(self->series, i);

		tsc_pyramid_query(s->pyr, 0, self->n_items, &span);
		m = MAX(m, span.max);
	}
	for (i = 0; i < self->limits->len; i++)
		m = MAX(m, g_array_index(self->limits, Limit, i).y);
	return m;
}

/* The lowest value any layer shows (0 or below): the stacks below zero
 * of a diverging chart, negative series values and limits. */
static double data_min(TscChart *self)
{
	double m = 0;
	TscSpan span;
	guint i;

	if (self->down_pyr) {
		tsc_pyramid_query(self->down_pyr, 0, self->n_items, &span);
		m = MIN(m, -span.max);
	}
	for (i = 0; i < self->series->len; i++) {
		Series *s = g_ptr_array_index(self->series, i);

		tsc_pyramid_query(s->pyr, 0, self->n_items, &span);
		m = MIN(m, span.min);
	}
	for (i = 0; i < self->limits->len; i++)
		m = MIN(m, g_array_index(self->limits, Limit, i).y);
	return m;
}

static void ensure_geometry(TscChart *self)
{
	GtkWidget *w = GTK_WIDGET(self);
	int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
	int label_w = 0, tw, th;
	guint max_ticks;
	double left, top, bottom, right = 12, lo, hi;
	guint i;

	if (self->geometry_valid && width == self->geom_width && height == self->geom_height)
		return;
	if (!self->layout)
		self->layout = gtk_widget_create_pango_layout(w, NULL);
	tsc_theme_colours(w, &self->fg, &self->accent);
	tsc_text_size(self->layout, "0", &tw, &th);
	self->text_height = th;
	top = ceil(th / 2.0) + 4;
	bottom = th + 8;
	/* Ticks about every 40 px of plot height; the top of the axis is the
	 * first tick above the data, with a little room for limit labels. */
	max_ticks = (guint)MAX(2, (height - top - bottom) / 40);
	/* Zero is always on the axis (and a tick): a diverging chart's
	 * bottom is the first tick below its lowest value. */
	self->y_max = data_max(self) * 1.03;
	self->y_min = data_min(self) * 1.03;
	if (!(self->y_max > 0) && !(self->y_min < 0))
		self->y_max = 1;
	if (!(self->y_min < 0))
		self->y_min = 0;
	if (!(self->y_max > 0))
		self->y_max = 0;
	tsc_axis_nice_ticks(self->y_min, self->y_max, max_ticks, 0, &self->y_step, &self->y_first);
	lo = self->y_min;
	hi = self->y_max;
	self->y_max = ceil(self->y_max / self->y_step - 1e-9) * self->y_step;
	self->y_min = floor(self->y_min / self->y_step + 1e-9) * self->y_step;
	/* A side far smaller than a tick step (one tile shrank by 448 B
	 * where others grew by 35 KB) ends near its data, not a whole step
	 * away, with a sliver of the plot so that it still shows. */
	if (lo < 0 && hi > 0) {
		if (-lo < self->y_step / 4)
			self->y_min = -MAX(-lo, self->y_max * 0.08);
		else if (hi < self->y_step / 4)
			self->y_max = MAX(hi, -self->y_min * 0.08);
	}
	self->y_n = tsc_axis_nice_ticks(self->y_min, self->y_max, max_ticks + 1, self->y_step,
	                                &self->y_step, &self->y_first);
	for (i = 0; i < self->y_n; i++) {
		char *s = format_value(self, self->y_first + i * self->y_step);

		tsc_text_size(self->layout, s, &tw, &th);
		label_w = MAX(label_w, tw);
		g_free(s);
	}
	left = label_w + 10;
	self->plot = GRAPHENE_RECT_INIT((float)left, (float)top,
	                                (float)MAX(0, floor(width - left - right)),
	                                (float)MAX(0, floor(height - top - bottom)));
	self->plot_cols = (int)self->plot.size.width;
	self->geom_width = width;
	self->geom_height = height;
	self->geometry_valid = TRUE;
}

/* Items per logical pixel. */
static double items_per_px(TscChart *self)
{
	return self->plot_cols > 0 ? (self->vis_end - self->vis_start) / self->plot_cols : 0;
}

static gboolean lod_active(TscChart *self)
{
	return items_per_px(self) > 1.0;
}

/* The items [*first, *end) of pixel column c of the plot under level of
 * detail; FALSE when it holds none. Columns tile the items without gaps
 * or overlaps, so no item is dropped. */
static gboolean column_items(TscChart *self, int c, guint *first, guint *end)
{
	double ipp = items_per_px(self);
	double a = floor(self->vis_start + c * ipp), b = floor(self->vis_start + (c + 1) * ipp);

	if (c == self->plot_cols - 1)
		b = ceil(self->vis_end);
	a = CLAMP(a, 0, self->n_items);
	b = CLAMP(b, 0, self->n_items);
	if (b <= a)
		return FALSE;
	*first = (guint)a;
	*end = (guint)b;
	return TRUE;
}

/* The x of item position `pos` (an item index, fractional within it). */
static double item_x(TscChart *self, double pos)
{
	double ipp = items_per_px(self);

	return self->plot.origin.x + (ipp > 0 ? (pos - self->vis_start) / ipp : 0);
}

/* The pixel extent [*x0, *x1) drawn for item i outside level of detail:
 * whole pixels, with a gap between items wider than BAR_GAP_WIDTH. */
static void bar_extent(TscChart *self, guint i, double *x0, double *x1)
{
	double a = item_x(self, i), b = item_x(self, i + 1.0), gap = 0;

	if (b - a >= BAR_GAP_WIDTH)
		gap = MAX(1.0, round((b - a) * 0.15));
	*x0 = round(a + gap / 2);
	*x1 = MAX(*x0 + 1, round(b - gap / 2));
}

/* The pixel column (or bar) extent showing item i. */
static void item_extent(TscChart *self, guint i, double *x0, double *x1)
{
	if (lod_active(self)) {
		double c = floor((i - self->vis_start) / items_per_px(self));

		/* The column holding i by column_items' rounding. */
		while (c > 0 && floor(self->vis_start + c * items_per_px(self)) > i)
			c--;
		while (c + 1 < self->plot_cols && floor(self->vis_start + (c + 1) * items_per_px(self)) <= i)
			c++;
		*x0 = self->plot.origin.x + c;
		*x1 = *x0 + 1;
	} else {
		bar_extent(self, i, x0, x1);
	}
}

static double value_y(TscChart *self, double v)
{
	double base = self->plot.origin.y + self->plot.size.height, range = self->y_max - self->y_min;

	return base - (range > 0 ? (v - self->y_min) / range : 0) * self->plot.size.height;
}

/* Snaps a y to the device pixel grid. */
static double snap_y(TscChart *self, double y)
{
	int scale = gtk_widget_get_scale_factor(GTK_WIDGET(self));

	return round(y * scale) / scale;
}

gint64 tsc_chart_item_at(TscChart *self, double x, guint *out_first, guint *out_n)
{
	guint first, end;
	double px;
	TscSpan span;

	g_return_val_if_fail(TSC_IS_CHART(self), -1);
	ensure_geometry(self);
	px = x - self->plot.origin.x;
	if (self->n_items == 0 || px < 0 || px >= self->plot_cols)
		return -1;
	if (lod_active(self)) {
		if (!column_items(self, (int)floor(px), &first, &end))
			return -1;
		tsc_pyramid_query(self->totals_pyr, first, end, &span);
		if (out_first)
			*out_first = first;
		if (out_n)
			*out_n = end - first;
		return span.argmax;
	}
	px = floor(self->vis_start + px * items_per_px(self));
	if (px < 0 || px >= self->n_items)
		return -1;
	if (out_first)
		*out_first = (guint)px;
	if (out_n)
		*out_n = 1;
	return (gint64)px;
}

int tsc_chart_component_at(TscChart *self, double x, double y)
{
	gint64 item = tsc_chart_item_at(self, x, NULL, NULL);
	double v, acc = 0;
	guint k;

	if (item < 0 || y < self->plot.origin.y || y >= self->plot.origin.y + self->plot.size.height)
		return -1;
	v = self->y_min + (self->plot.origin.y + self->plot.size.height - y) / self->plot.size.height *
	                      (self->y_max - self->y_min);
	/* Above zero the stack up, below it the stack down. */
	for (k = 0; k < self->n_components; k++) {
		if (is_below(self, k) != (v < 0))
			continue;
		acc += self->values[(gsize)k * self->n_items + (guint)item];
		if (fabs(v) < acc)
			return (int)k;
	}
	return -1;
}

/* The items whose columns or bars meet [xa, xb]: [*first, *end). */
static gboolean items_between(TscChart *self, double xa, double xb, guint *first, guint *end)
{
	guint f, e, n;
	double lo = CLAMP(MIN(xa, xb), self->plot.origin.x, self->plot.origin.x + self->plot_cols - 1);
	double hi = CLAMP(MAX(xa, xb), self->plot.origin.x, self->plot.origin.x + self->plot_cols - 1);

	if (tsc_chart_item_at(self, lo, &f, &n) < 0)
		return FALSE;
	*first = f;
	if (tsc_chart_item_at(self, hi, &e, &n) < 0)
		return FALSE;
	*end = e + n;
	return *end > *first;
}

/* --- The cached layer ---------------------------------------------------- */

static void draw_axes(TscChart *self, GtkSnapshot *s)
{
	const graphene_rect_t *p = &self->plot;
	GdkRGBA grid = tsc_rgba_alpha(&self->fg, 0.12), axis = tsc_rgba_alpha(&self->fg, 0.55);
	GdkRGBA text = tsc_rgba_alpha(&self->fg, 0.8);
	double base = p->origin.y + p->size.height, step, first;
	guint i, n;

	for (i = 0; i < self->y_n; i++) {
		double v = self->y_first + i * self->y_step, y = floor(value_y(self, v));
		char *label;

		/* Whole zeros: no "-0 B" from rounding the step. */
		if (fabs(v) < self->y_step * 1e-6)
			v = 0;
		label = format_value(self, v);
		if (i > 0 && v != 0)
			tsc_rect(s, &grid, p->origin.x, y, p->size.width, 1);
		tsc_text(s, self->layout, label, p->origin.x - 6, y - self->text_height / 2.0, 1.0, &text);
		g_free(label);
	}
	/* The zero line (the bottom unless the chart diverges) and the left
	 * axis. */
	tsc_rect(s, &axis, p->origin.x, floor(value_y(self, 0)), p->size.width, 1);
	if (self->y_min < 0)
		tsc_rect(s, &grid, p->origin.x, floor(base), p->size.width, 1);
	tsc_rect(s, &axis, p->origin.x - 1, p->origin.y, 1, p->size.height + 1);

	/* The ruler: item indices, about one label per 90 px. */
	if (self->n_items == 0 || self->plot_cols <= 0)
		return;
	n = tsc_axis_nice_ticks(self->vis_start, MIN(self->vis_end, self->n_items) - 1,
	                        (guint)MAX(2, self->plot_cols / 90), 1, &step, &first);
	for (i = 0; i < n; i++) {
		double item = first + i * step, x0, x1;
		char *label;

		if (item < 0 || item >= self->n_items)
			continue;
		item_extent(self, (guint)item, &x0, &x1);
		x0 = floor((x0 + x1) / 2);
		tsc_rect(s, &axis, x0, floor(base) + 1, 1, 4);
		label = tsc_format_thousands(item, NULL);
		tsc_text(s, self->layout, label, x0 + 0.5, base + 5, 0.5, &text);
		g_free(label);
	}
}

/* Draws item `item`'s stack in pixel columns [x0, x1): the part above
 * zero (`up`) or the part below it, which only a diverging chart has. */
static void draw_stack(TscChart *self, GtkSnapshot *s, guint item, double x0, double x1,
                       gboolean up)
{
	double acc = 0, zero = snap_y(self, value_y(self, 0)), edge = zero;
	double whole = self->n_below ? (up ? self->up[item] : self->down[item]) : self->totals[item];
	guint k;

	for (k = 0; k < self->n_components; k++) {
		double v = self->values[(gsize)k * self->n_items + item], y_end;

		if (v <= 0 || is_below(self, k) == up)
			continue;
		acc += v;
		y_end = snap_y(self, value_y(self, up ? acc : -acc));
		/* A thin last piece still shows: a stack never vanishes. */
		if (acc >= whole)
			y_end = up ? MIN(y_end, zero - 1) : MAX(y_end, zero + 2);
		if (up) {
			tsc_rect(s, &self->colours[k], x0, y_end, x1 - x0, edge - y_end);
			edge = MIN(edge, y_end);
		} else {
			/* Below the zero line's pixel row. */
			double from = MAX(edge, zero + 1);

			tsc_rect(s, &self->colours[k], x0, from, x1 - x0, y_end - from);
			edge = MAX(from, y_end);
		}
	}
}

/* Under level of detail, column `x`'s items [first, end) on one side:
 * the item with the largest stack on that side, and the side's mean as
 * a tick where it differs from it. */
static void draw_column_side(TscChart *self, GtkSnapshot *s, const TscPyramid *pyr, double x,
                             guint first, guint end, gboolean up)
{
	GdkRGBA mean_colour = tsc_rgba_alpha(&self->fg, 0.6);
	double mean, sign = up ? 1 : -1;
	TscSpan span;

	tsc_pyramid_query(pyr, first, end, &span);
	if (span.max <= 0)
		return;
	draw_stack(self, s, span.argmax, x, x + 1, up);
	mean = span.sum / (end - first);
	if (end - first > 1 && fabs(value_y(self, sign * mean) - value_y(self, sign * span.max)) >= 1)
		tsc_rect(s, &mean_colour, x, snap_y(self, value_y(self, sign * mean)), 1, 1);
}

static void draw_stacks(TscChart *self, GtkSnapshot *s)
{
	guint first, end, i;
	int c;

	if (self->n_components == 0 || self->n_items == 0)
		return;
	if (lod_active(self)) {
		/* Each side of a diverging chart shows its own largest item, so
		 * the largest increase and decrease under a column both show. */
		for (c = 0; c < self->plot_cols; c++) {
			double x = self->plot.origin.x + c;

			if (!column_items(self, c, &first, &end))
				continue;
			draw_column_side(self, s, self->n_below ? self->up_pyr : self->totals_pyr, x, first,
			                 end, TRUE);
			if (self->n_below)
				draw_column_side(self, s, self->down_pyr, x, first, end, FALSE);
		}
		return;
	}
	first = (guint)MAX(0, floor(self->vis_start));
	end = (guint)MIN(self->n_items, ceil(self->vis_end));
	for (i = first; i < end; i++) {
		double x0, x1;

		if (self->totals[i] <= 0)
			continue;
		bar_extent(self, i, &x0, &x1);
		draw_stack(self, s, i, x0, x1, TRUE);
		if (self->n_below)
			draw_stack(self, s, i, x0, x1, FALSE);
	}
}

static void draw_series(TscChart *self, GtkSnapshot *s, Series *ser)
{
	cairo_t *cr;
	double base = value_y(self, 0);
	gboolean lod = lod_active(self);
	guint first, end, i;
	int c;

	if (self->n_items == 0 || self->plot_cols <= 0)
		return;
	cr = gtk_snapshot_append_cairo(s, &self->plot);
	cairo_set_line_width(cr, 1.5);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	if (lod) {
		/* A min-max band per column: one path, O(width). */
		gboolean started = FALSE;

		for (c = 0; c < self->plot_cols; c++) {
			TscSpan span;
			double x = self->plot.origin.x + c + 0.5;

			if (!column_items(self, c, &first, &end))
				continue;
			tsc_pyramid_query(ser->pyr, first, end, &span);
			if (!started) {
				if (ser->style == TSC_SERIES_AREA)
					cairo_move_to(cr, x, base);
				else
					cairo_move_to(cr, x, value_y(self, span.max));
				started = TRUE;
			}
			cairo_line_to(cr, x, value_y(self, span.max));
			if (ser->style == TSC_SERIES_LINE)
				cairo_line_to(cr, x, value_y(self, span.min));
		}
	} else {
		/* Through the item centres, one item either side for continuity. */
		first = (guint)MAX(0, floor(self->vis_start) - 1);
		end = (guint)MIN(self->n_items, ceil(self->vis_end) + 1);
		for (i = first; i < end; i++) {
			double x = item_x(self, i + 0.5), v = isnan(ser->values[i]) ? 0 : ser->values[i];

			if (i == first && ser->style == TSC_SERIES_AREA)
				cairo_move_to(cr, x, base);
			else if (i == first)
				cairo_move_to(cr, x, value_y(self, v));
			cairo_line_to(cr, x, value_y(self, v));
		}
	}
	if (ser->style == TSC_SERIES_AREA) {
		double x1, y1;

		cairo_get_current_point(cr, &x1, &y1);
		cairo_line_to(cr, x1, base);
		cairo_close_path(cr);
		cairo_set_source_rgba(cr, ser->colour.red, ser->colour.green, ser->colour.blue,
		                      ser->colour.alpha * 0.35);
		cairo_fill_preserve(cr);
	}
	gdk_cairo_set_source_rgba(cr, &ser->colour);
	cairo_stroke(cr);
	cairo_destroy(cr);
}

static void draw_markers(TscChart *self, GtkSnapshot *s)
{
	GdkRGBA c = self->marker_has_colour ? self->marker_colour : tsc_rgba_alpha(&self->fg, 0.7);
	double last = -1;
	guint i;

	for (i = 0; i < self->n_markers; i++) {
		double x0, x1, x;

		if (self->markers[i] >= self->n_items || self->markers[i] < floor(self->vis_start) ||
		    self->markers[i] >= self->vis_end)
			continue;
		item_extent(self, self->markers[i], &x0, &x1);
		x = floor((x0 + x1) / 2);
		/* One mark per pixel column, however many markers fall in it. */
		if (x == last)
			continue;
		last = x;
		tsc_rect(s, &c, x, self->plot.origin.y, 1, self->plot.size.height);
	}
}

static void draw_limits(TscChart *self, GtkSnapshot *s)
{
	const graphene_rect_t *p = &self->plot;
	guint i;

	for (i = 0; i < self->limits->len; i++) {
		Limit *l = &g_array_index(self->limits, Limit, i);
		GdkRGBA c = l->has_colour ? l->colour : self->fg;
		double y = floor(value_y(self, l->y));

		tsc_rect(s, &c, p->origin.x, y, p->size.width, 1);
		if (l->label)
			tsc_text(s, self->layout, l->label, p->origin.x + p->size.width - 4,
			         y - self->text_height - 1, 1.0, &c);
	}
}

static GskRenderNode *build_layer(TscChart *self)
{
	GtkSnapshot *s = gtk_snapshot_new();
	guint i;

	draw_axes(self, s);
	gtk_snapshot_push_clip(s, &self->plot);
	draw_stacks(self, s);
	for (i = 0; i < self->series->len; i++)
		draw_series(self, s, g_ptr_array_index(self->series, i));
	draw_markers(self, s);
	gtk_snapshot_pop(s);
	draw_limits(self, s);
	self->generation++;
	return gtk_snapshot_free_to_node(s);
}

/* --- The overlay --------------------------------------------------------- */

static void draw_selection(TscChart *self, GtkSnapshot *s)
{
	GdkRGBA band = tsc_rgba_alpha(&self->accent, 0.3), strip = self->accent;
	const graphene_rect_t *p = &self->plot;
	double run_x0 = -1, run_x1 = -1;
	guint first, end, value;
	int c;

	if (gtk_bitset_is_empty(self->selection) || self->n_items == 0)
		return;
	if (lod_active(self)) {
		for (c = 0; c <= self->plot_cols; c++) {
			gboolean hit = FALSE;
			GtkBitsetIter iter;

			if (c < self->plot_cols && column_items(self, c, &first, &end))
				hit = gtk_bitset_iter_init_at(&iter, self->selection, first, &value) && value < end;
			if (hit && run_x0 < 0)
				run_x0 = p->origin.x + c;
			if (hit)
				run_x1 = p->origin.x + c + 1;
			if (!hit && run_x0 >= 0) {
				tsc_rect(s, &band, run_x0, p->origin.y, run_x1 - run_x0, p->size.height);
				tsc_rect(s, &strip, run_x0, p->origin.y + p->size.height - 3, run_x1 - run_x0, 3);
				run_x0 = -1;
			}
		}
		return;
	}
	{
		GtkBitsetIter iter;
		gboolean ok;

		first = (guint)MAX(0, floor(self->vis_start));
		end = (guint)MIN(self->n_items, ceil(self->vis_end));
		for (ok = gtk_bitset_iter_init_at(&iter, self->selection, first, &value);
		     ok && value < end; ok = gtk_bitset_iter_next(&iter, &value)) {
			/* Without the gaps, so a selected run is one band. */
			double x0 = round(item_x(self, value)), x1 = round(item_x(self, value + 1.0));

			tsc_rect(s, &band, x0, p->origin.y, x1 - x0, p->size.height);
			tsc_rect(s, &strip, x0, p->origin.y + p->size.height - 3, x1 - x0, 3);
		}
	}
}

static void draw_overlay(TscChart *self, GtkSnapshot *s)
{
	const graphene_rect_t *p = &self->plot;
	double x0, x1;

	gtk_snapshot_push_clip(s, p);
	draw_selection(self, s);
	if (self->hover_item >= 0 && self->hover_item < self->n_items) {
		GdkRGBA c = tsc_rgba_alpha(&self->fg, 0.1);

		item_extent(self, (guint)self->hover_item, &x0, &x1);
		tsc_rect(s, &c, x0, p->origin.y, x1 - x0, p->size.height);
	}
	if (gtk_widget_has_focus(GTK_WIDGET(self)) && self->focus_item < self->n_items &&
	    self->focus_item >= floor(self->vis_start) && self->focus_item < self->vis_end) {
		item_extent(self, self->focus_item, &x0, &x1);
		tsc_outline(s, &self->fg, x0 - 1, p->origin.y, x1 - x0 + 2, p->size.height);
	}
	if (self->drag_mode == DRAG_RUBBER) {
		GdkRGBA fill = tsc_rgba_alpha(&self->accent, 0.15);
		double a = MIN(self->drag_x0, self->drag_x1), b = MAX(self->drag_x0, self->drag_x1);

		tsc_rect(s, &fill, a, p->origin.y, b - a, p->size.height);
		tsc_outline(s, &self->accent, a, p->origin.y, b - a, p->size.height);
	}
	gtk_snapshot_pop(s);
}

static void tsc_chart_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	TscChart *self = TSC_CHART(widget);

	ensure_geometry(self);
	if (!self->cache)
		self->cache = build_layer(self);
	if (self->cache)
		gtk_snapshot_append_node(snapshot, self->cache);
	draw_overlay(self, snapshot);
}

/* --- Range ----------------------------------------------------------------- */

static void range_changed(TscChart *self, double old_start, double old_end)
{
	if (old_start == self->vis_start && old_end == self->vis_end)
		return;
	invalidate_cache(self);
	g_object_freeze_notify(G_OBJECT(self));
	if (old_start != self->vis_start)
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_VISIBLE_START]);
	if (old_end != self->vis_end)
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_VISIBLE_END]);
	g_object_thaw_notify(G_OBJECT(self));
	g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
	update_description(self);
}

void tsc_chart_set_visible_range(TscChart *self, double start, double end)
{
	double old_start = self->vis_start, old_end = self->vis_end;
	double n = self->n_items, span, min_span = MIN(MIN_SPAN, n);

	g_return_if_fail(TSC_IS_CHART(self));
	if (!isfinite(start) || !isfinite(end))
		return;
	span = CLAMP(end - start, min_span, n);
	start = CLAMP(start, 0, n - span);
	self->vis_start = start;
	self->vis_end = start + span;
	range_changed(self, old_start, old_end);
}

double tsc_chart_get_visible_start(TscChart *self)
{
	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	return self->vis_start;
}

double tsc_chart_get_visible_end(TscChart *self)
{
	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	return self->vis_end;
}

void tsc_chart_zoom(TscChart *self, double factor, double anchor)
{
	double span = self->vis_end - self->vis_start, t;

	g_return_if_fail(TSC_IS_CHART(self));
	if (!(factor > 0) || span <= 0)
		return;
	t = CLAMP((anchor - self->vis_start) / span, 0, 1);
	span = CLAMP(span * factor, MIN(MIN_SPAN, (double)self->n_items), (double)self->n_items);
	tsc_chart_set_visible_range(self, anchor - t * span, anchor - t * span + span);
}

void tsc_chart_pan(TscChart *self, double delta)
{
	g_return_if_fail(TSC_IS_CHART(self));
	tsc_chart_set_visible_range(self, self->vis_start + delta, self->vis_end + delta);
}

void tsc_chart_show_all(TscChart *self)
{
	g_return_if_fail(TSC_IS_CHART(self));
	tsc_chart_set_visible_range(self, 0, self->n_items);
}

/* Pans so that `item` is visible. */
static void reveal_item(TscChart *self, guint item)
{
	double span = self->vis_end - self->vis_start;

	if (item < self->vis_start)
		tsc_chart_set_visible_range(self, item, item + span);
	else if (item + 1.0 > self->vis_end)
		tsc_chart_set_visible_range(self, item + 1.0 - span, item + 1.0);
}

/* --- Selection ------------------------------------------------------------ */

static void selection_changed(TscChart *self)
{
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
	update_description(self);
}

GtkBitset *tsc_chart_get_selection(TscChart *self)
{
	g_return_val_if_fail(TSC_IS_CHART(self), NULL);
	return self->selection;
}

void tsc_chart_set_selection(TscChart *self, const GtkBitset *selection)
{
	GtkBitset *next;

	g_return_if_fail(TSC_IS_CHART(self));
	next = selection ? gtk_bitset_copy(selection) : gtk_bitset_new_empty();
	if (self->n_items < G_MAXUINT)
		gtk_bitset_remove_range_closed(next, self->n_items, G_MAXUINT);
	if (gtk_bitset_equals(next, self->selection)) {
		gtk_bitset_unref(next);
		return;
	}
	gtk_bitset_unref(self->selection);
	self->selection = next;
	selection_changed(self);
}

/* Applies a selection of items [first, end): replacing the selection,
 * adding to it, or toggling the items. */
typedef enum { SELECT_REPLACE, SELECT_ADD, SELECT_TOGGLE } SelectMode;

static void select_items(TscChart *self, guint first, guint end, SelectMode mode)
{
	GtkBitset *next = mode == SELECT_REPLACE ? gtk_bitset_new_empty() : gtk_bitset_copy(self->selection);

	if (end > first) {
		if (mode == SELECT_TOGGLE) {
			GtkBitset *range = gtk_bitset_new_range(first, end - first);

			gtk_bitset_difference(next, range);
			gtk_bitset_unref(range);
		} else {
			gtk_bitset_add_range(next, first, end - first);
		}
	}
	tsc_chart_set_selection(self, next);
	gtk_bitset_unref(next);
}

guint tsc_chart_get_focus_item(TscChart *self)
{
	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	return self->focus_item;
}

void tsc_chart_set_focus_item(TscChart *self, guint item)
{
	g_return_if_fail(TSC_IS_CHART(self));
	if (self->n_items == 0)
		return;
	self->focus_item = MIN(item, self->n_items - 1);
	reveal_item(self, self->focus_item);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	update_description(self);
}

/* --- Description and tooltip ----------------------------------------------- */

/* An item's value: its total, or on a diverging chart what is above
 * zero less what is below. */
static double item_value(TscChart *self, guint item)
{
	return self->n_below ? self->up[item] - self->down[item] : self->totals[item];
}

/* Appends "Tile 52, 291,196 B" for an item. */
static void append_item_value(TscChart *self, GString *s, guint item)
{
	char *name = format_item(self, item), *v = format_value(self, item_value(self, item));

	g_string_append_printf(s, "%s, %s", name, v);
	g_free(name);
	g_free(v);
}

static void update_description(TscChart *self)
{
	GString *s = g_string_new(NULL);
	guint first, end;
	guint64 n_sel;

	if (self->n_items == 0) {
		g_string_append(s, "No data");
		goto out;
	}
	first = (guint)MAX(0, floor(self->vis_start));
	end = (guint)MIN(self->n_items, ceil(self->vis_end));
	g_string_append_printf(s, "%u items; showing items %u to %u", self->n_items, first, end - 1);
	if (self->n_below && end > first) {
		TscSpan up, down;

		/* Each side's extreme; "none" when no item reaches that side. */
		tsc_pyramid_query(self->up_pyr, first, end, &up);
		tsc_pyramid_query(self->down_pyr, first, end, &down);
		g_string_append(s, "; above zero, maximum ");
		if (up.max > 0)
			append_item_value(self, s, up.argmax);
		else
			g_string_append(s, "none");
		g_string_append(s, "; below zero, minimum ");
		if (down.max > 0)
			append_item_value(self, s, down.argmax);
		else
			g_string_append(s, "none");
	} else if (self->totals_pyr && end > first) {
		TscSpan span;

		tsc_pyramid_query(self->totals_pyr, first, end, &span);
		g_string_append(s, "; maximum ");
		append_item_value(self, s, span.argmax);
	}
	if (self->hover_item >= 0) {
		g_string_append(s, "; hovered ");
		append_item_value(self, s, (guint)self->hover_item);
	}
	n_sel = gtk_bitset_get_size(self->selection);
	if (n_sel == 1) {
		g_string_append(s, "; selected ");
		append_item_value(self, s, gtk_bitset_get_minimum(self->selection));
	} else if (n_sel > 1) {
		g_string_append_printf(s, "; %" G_GUINT64_FORMAT " items selected", n_sel);
	}
out:
	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
	                               s->str, -1);
	g_string_free(s, TRUE);
}

static gboolean tsc_chart_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard,
                                        GtkTooltip *tooltip)
{
	TscChart *self = TSC_CHART(widget);
	GString *s;
	gint64 item;
	guint first = 0, n = 1, k;
	char *name, *v;

	if (keyboard)
		item = self->n_items ? (gint64)self->focus_item : -1;
	else
		item = tsc_chart_item_at(self, x, &first, &n);
	if (item < 0)
		return FALSE;
	s = g_string_new(NULL);
	name = format_item(self, (guint)item);
	if (n > 1) {
		char *a = format_item(self, first), *b = format_item(self, first + n - 1);

		g_string_append_printf(s, "%s to %s (%u items); the largest, %s:\n", a, b, n, name);
		g_free(a);
		g_free(b);
	} else {
		g_string_append_printf(s, "%s\n", name);
	}
	g_free(name);
	for (k = 0; k < self->n_components; k++) {
		double val = self->values[(gsize)k * self->n_items + (guint)item];

		/* Below zero as drawn. */
		v = format_value(self, is_below(self, k) && val > 0 ? -val : val);
		g_string_append_printf(s, "%s: %s\n", self->names[k], v);
		g_free(v);
	}
	for (k = 0; k < self->series->len; k++) {
		Series *ser = g_ptr_array_index(self->series, k);

		v = format_value(self, ser->values[item]);
		g_string_append_printf(s, "%s: %s\n", ser->name, v);
		g_free(v);
	}
	v = format_value(self, item_value(self, (guint)item));
	g_string_append_printf(s, "Total: %s", v);
	g_free(v);
	gtk_tooltip_set_text(tooltip, s->str);
	g_string_free(s, TRUE);
	return TRUE;
}

/* --- Input ----------------------------------------------------------------- */

static void set_hover(TscChart *self, double x, double y, gboolean inside)
{
	gint64 item = -1;
	guint first = 0, n = 0;

	self->pointer_x = x;
	self->pointer_y = y;
	self->pointer_in = inside;
	if (inside)
		item = tsc_chart_item_at(self, x, &first, &n);
	if (item == self->hover_item && first == self->hover_first)
		return;
	self->hover_item = item;
	self->hover_first = first;
	self->hover_n = n;
	gtk_widget_queue_draw(GTK_WIDGET(self));
	update_description(self);
}

static void on_motion(GtkEventControllerMotion *c, double x, double y, TscChart *self)
{
	set_hover(self, x, y, TRUE);
}

static void on_leave(GtkEventControllerMotion *c, TscChart *self)
{
	set_hover(self, 0, 0, FALSE);
}

/* The item position under widget x (fractional). */
static double position_at(TscChart *self, double x)
{
	ensure_geometry(self);
	return self->vis_start + (x - self->plot.origin.x) * items_per_px(self);
}

static gboolean on_scroll(GtkEventControllerScroll *c, double dx, double dy, TscChart *self)
{
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(c));
	double span = self->vis_end - self->vis_start;

	if (self->n_items == 0)
		return FALSE;
	if (mods & GDK_CONTROL_MASK) {
		double anchor = self->pointer_in ? position_at(self, self->pointer_x)
		                                 : (self->vis_start + self->vis_end) / 2;

		tsc_chart_zoom(self, pow(1.25, dy), anchor);
	} else {
		tsc_chart_pan(self, (dx + dy) * 0.1 * span);
	}
	return TRUE;
}

static void click(TscChart *self, double x, GdkModifierType mods)
{
	gint64 item = tsc_chart_item_at(self, x, NULL, NULL);

	if (item < 0) {
		if (!(mods & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)))
			tsc_chart_set_selection(self, NULL);
		return;
	}
	self->focus_item = (guint)item;
	if (mods & GDK_SHIFT_MASK) {
		guint a = MIN(self->anchor_item, (guint)item), b = MAX(self->anchor_item, (guint)item);

		select_items(self, a, b + 1, (mods & GDK_CONTROL_MASK) ? SELECT_ADD : SELECT_REPLACE);
	} else if (mods & GDK_CONTROL_MASK) {
		self->anchor_item = (guint)item;
		select_items(self, (guint)item, (guint)item + 1,
		             gtk_bitset_contains(self->selection, (guint)item) ? SELECT_TOGGLE : SELECT_ADD);
	} else {
		self->anchor_item = (guint)item;
		select_items(self, (guint)item, (guint)item + 1, SELECT_REPLACE);
	}
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, TscChart *self)
{
	guint button = gtk_gesture_single_get_current_button(GTK_GESTURE_SINGLE(g));
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(g));

	ensure_geometry(self);
	self->drag_x0 = self->drag_x1 = x;
	self->drag_y0 = y;
	self->drag_mods = mods;
	self->drag_vis_start = self->vis_start;
	self->drag_vis_end = self->vis_end;
	self->drag_ipp = items_per_px(self);
	if (button == GDK_BUTTON_MIDDLE || (button == GDK_BUTTON_PRIMARY && (mods & GDK_ALT_MASK))) {
		self->drag_mode = DRAG_PAN;
	} else if (button == GDK_BUTTON_PRIMARY) {
		self->drag_mode = DRAG_PENDING;
	} else {
		/* Other buttons are the app's (context menus). */
		gtk_gesture_set_state(GTK_GESTURE(g), GTK_EVENT_SEQUENCE_DENIED);
		return;
	}
	gtk_gesture_set_state(GTK_GESTURE(g), GTK_EVENT_SEQUENCE_CLAIMED);
	if (gtk_widget_get_focusable(GTK_WIDGET(self)))
		gtk_widget_grab_focus(GTK_WIDGET(self));
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, TscChart *self)
{
	switch (self->drag_mode) {
	case DRAG_PAN:
		tsc_chart_set_visible_range(self, self->drag_vis_start - dx * self->drag_ipp,
		                            self->drag_vis_end - dx * self->drag_ipp);
		break;
	case DRAG_PENDING:
		if (fabs(dx) < DRAG_THRESHOLD && fabs(dy) < DRAG_THRESHOLD)
			break;
		self->drag_mode = DRAG_RUBBER;
		G_GNUC_FALLTHROUGH;
	case DRAG_RUBBER:
		self->drag_x1 = self->drag_x0 + dx;
		gtk_widget_queue_draw(GTK_WIDGET(self));
		break;
	case DRAG_NONE:
		break;
	}
}

static void on_drag_end(GtkGestureDrag *g, double dx, double dy, TscChart *self)
{
	guint first, end;

	if (self->drag_mode == DRAG_PENDING) {
		click(self, self->drag_x0, self->drag_mods);
	} else if (self->drag_mode == DRAG_RUBBER) {
		self->drag_x1 = self->drag_x0 + dx;
		if (items_between(self, self->drag_x0, self->drag_x1, &first, &end)) {
			self->anchor_item = first;
			self->focus_item = end - 1;
			select_items(self, first, end,
			             (self->drag_mods & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)) ? SELECT_ADD
			                                                                     : SELECT_REPLACE);
		}
	}
	self->drag_mode = DRAG_NONE;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void move_focus(TscChart *self, int dir, GdkModifierType mods)
{
	double step = lod_active(self) ? ceil(items_per_px(self)) : 1;
	double next = (double)self->focus_item + dir * step;

	next = CLAMP(next, 0, self->n_items - 1.0);
	self->focus_item = (guint)next;
	reveal_item(self, self->focus_item);
	if (mods & GDK_SHIFT_MASK)
		select_items(self, MIN(self->anchor_item, self->focus_item),
		             MAX(self->anchor_item, self->focus_item) + 1, SELECT_REPLACE);
	else
		self->anchor_item = self->focus_item;
	gtk_widget_queue_draw(GTK_WIDGET(self));
	update_description(self);
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint keycode, GdkModifierType mods,
                       TscChart *self)
{
	double span = self->vis_end - self->vis_start, centre = (self->vis_start + self->vis_end) / 2;

	if (self->n_items == 0)
		return FALSE;
	if (self->focus_item >= self->vis_start && self->focus_item < self->vis_end)
		centre = self->focus_item + 0.5;
	switch (keyval) {
	case GDK_KEY_plus:
	case GDK_KEY_equal:
	case GDK_KEY_KP_Add:
		tsc_chart_zoom(self, 1 / 1.5, centre);
		return TRUE;
	case GDK_KEY_minus:
	case GDK_KEY_KP_Subtract:
		tsc_chart_zoom(self, 1.5, centre);
		return TRUE;
	case GDK_KEY_Home:
		tsc_chart_show_all(self);
		return TRUE;
	case GDK_KEY_Page_Up:
		tsc_chart_pan(self, -0.9 * span);
		return TRUE;
	case GDK_KEY_Page_Down:
		tsc_chart_pan(self, 0.9 * span);
		return TRUE;
	case GDK_KEY_Left:
	case GDK_KEY_KP_Left:
	case GDK_KEY_Right:
	case GDK_KEY_KP_Right: {
		int dir = (keyval == GDK_KEY_Left || keyval == GDK_KEY_KP_Left) ? -1 : 1;

		if (mods & GDK_CONTROL_MASK)
			tsc_chart_pan(self, dir * 0.1 * span);
		else
			move_focus(self, dir, mods);
		return TRUE;
	}
	case GDK_KEY_space:
	case GDK_KEY_Return:
	case GDK_KEY_KP_Enter:
		if (mods & GDK_CONTROL_MASK)
			select_items(self, self->focus_item, self->focus_item + 1,
			             gtk_bitset_contains(self->selection, self->focus_item) ? SELECT_TOGGLE
			                                                                     : SELECT_ADD);
		else
			select_items(self, self->focus_item, self->focus_item + 1, SELECT_REPLACE);
		self->anchor_item = self->focus_item;
		return TRUE;
	case GDK_KEY_Escape:
		if (gtk_bitset_is_empty(self->selection))
			return FALSE;
		tsc_chart_set_selection(self, NULL);
		return TRUE;
	default:
		return FALSE;
	}
}

/* --- Data ------------------------------------------------------------------- */

static void series_free(gpointer p)
{
	Series *s = p;

	g_free(s->name);
	g_free(s->values);
	tsc_pyramid_free(s->pyr);
	g_free(s);
}

static void limit_clear(gpointer p)
{
	g_free(((Limit *)p)->label);
}

/* Frees the sums above and below zero and their pyramids. */
static void clear_sides(TscChart *self)
{
	g_clear_pointer(&self->up, g_free);
	g_clear_pointer(&self->down, g_free);
	g_clear_pointer(&self->up_pyr, tsc_pyramid_free);
	g_clear_pointer(&self->down_pyr, tsc_pyramid_free);
}

/* The sums above and below zero and their pyramids, for a diverging
 * chart with items (none otherwise). */
static void build_sides(TscChart *self)
{
	clear_sides(self);
	if (!self->n_below || !self->n_items)
		return;
	self->up = g_new0(double, self->n_items);
	self->down = g_new0(double, self->n_items);
	for (guint k = 0; k < self->n_components; k++)
		for (guint i = 0; i < self->n_items; i++) {
			double v = self->values[(gsize)k * self->n_items + i];

			if (is_below(self, k))
				self->down[i] += v;
			else
				self->up[i] += v;
		}
	self->up_pyr = tsc_pyramid_new(self->up, self->n_items);
	self->down_pyr = tsc_pyramid_new(self->down, self->n_items);
}

void tsc_chart_set_below(TscChart *self, guint n_below)
{
	g_return_if_fail(TSC_IS_CHART(self));
	if (n_below == self->n_below)
		return;
	self->n_below = n_below;
	build_sides(self);
	invalidate_geometry(self);
	update_description(self);
}

guint tsc_chart_get_below(TscChart *self)
{
	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	return self->n_below;
}

void tsc_chart_set_stacks(TscChart *self, guint n_items, guint n_components, const double *values,
                          const GdkRGBA *colours, const char *const *names)
{
	gboolean new_count;
	guint k, i;

	g_return_if_fail(TSC_IS_CHART(self));
	g_return_if_fail(n_components == 0 || (colours && (n_items == 0 || values)));
	new_count = n_items != self->n_items;
	if (new_count)
		g_ptr_array_set_size(self->series, 0);
	g_free(self->values);
	g_free(self->totals);
	g_free(self->colours);
	g_strfreev(self->names);
	tsc_pyramid_free(self->totals_pyr);
	clear_sides(self);
	self->n_items = n_items;
	self->n_components = n_components;
	self->values = g_new(double, (gsize)n_items * n_components);
	self->totals = g_new0(double, n_items);
	self->colours = g_new(GdkRGBA, n_components);
	self->names = g_new0(char *, n_components + 1);
	for (k = 0; k < n_components; k++) {
		self->colours[k] = colours[k];
		self->names[k] = names && names[k] ? g_strdup(names[k]) : g_strdup_printf("Component %u", k);
		for (i = 0; i < n_items; i++) {
			double v = values[(gsize)k * n_items + i];

			v = isnan(v) || v < 0 ? 0 : v;
			self->values[(gsize)k * n_items + i] = v;
			self->totals[i] += v;
		}
	}
	self->totals_pyr = tsc_pyramid_new(self->totals, n_items);
	build_sides(self);
	if (new_count) {
		GtkBitset *none = gtk_bitset_new_empty();

		self->focus_item = self->anchor_item = 0;
		self->hover_item = -1;
		tsc_chart_set_selection(self, none);
		gtk_bitset_unref(none);
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_N_ITEMS]);
		tsc_chart_set_visible_range(self, 0, n_items);
	}
	invalidate_geometry(self);
	update_description(self);
}

guint tsc_chart_get_n_items(TscChart *self)
{
	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	return self->n_items;
}

guint tsc_chart_get_n_components(TscChart *self)
{
	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	return self->n_components;
}

double tsc_chart_get_total(TscChart *self, guint item)
{
	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	return item < self->n_items ? self->totals[item] : 0;
}

guint tsc_chart_add_series(TscChart *self, const char *name, const double *values,
                           const GdkRGBA *colour, TscSeriesStyle style)
{
	Series *s;

	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	g_return_val_if_fail(self->n_items > 0 && values && colour, 0);
	s = g_new0(Series, 1);
	s->name = g_strdup(name ? name : "Series");
	s->values = g_memdup2(values, sizeof(double) * self->n_items);
	s->pyr = tsc_pyramid_new(s->values, self->n_items);
	s->colour = *colour;
	s->style = style;
	g_ptr_array_add(self->series, s);
	invalidate_geometry(self);
	return self->series->len - 1;
}

void tsc_chart_clear_series(TscChart *self)
{
	g_return_if_fail(TSC_IS_CHART(self));
	g_ptr_array_set_size(self->series, 0);
	invalidate_geometry(self);
}

void tsc_chart_add_limit(TscChart *self, double y, const char *label, const GdkRGBA *colour)
{
	Limit l = { y, g_strdup(label), colour ? *colour : (GdkRGBA){ 0 }, colour != NULL };

	g_return_if_fail(TSC_IS_CHART(self));
	g_array_append_val(self->limits, l);
	invalidate_geometry(self);
}

void tsc_chart_clear_limits(TscChart *self)
{
	g_return_if_fail(TSC_IS_CHART(self));
	g_array_set_size(self->limits, 0);
	invalidate_geometry(self);
}

static int compare_uint(gconstpointer a, gconstpointer b)
{
	guint x = *(const guint *)a, y = *(const guint *)b;

	return (x > y) - (x < y);
}

void tsc_chart_set_markers(TscChart *self, const guint *items, guint n, const GdkRGBA *colour)
{
	g_return_if_fail(TSC_IS_CHART(self));
	g_free(self->markers);
	self->markers = n ? g_memdup2(items, sizeof(guint) * n) : NULL;
	self->n_markers = n;
	if (n)
		qsort(self->markers, n, sizeof(guint), compare_uint);
	self->marker_has_colour = colour != NULL;
	if (colour)
		self->marker_colour = *colour;
	invalidate_cache(self);
}

void tsc_chart_set_value_format_func(TscChart *self, TscFormatFunc func, gpointer user_data,
                                     GDestroyNotify destroy)
{
	g_return_if_fail(TSC_IS_CHART(self));
	if (self->value_format_destroy)
		self->value_format_destroy(self->value_format_data);
	self->value_format = func;
	self->value_format_data = user_data;
	self->value_format_destroy = destroy;
	invalidate_geometry(self);
	update_description(self);
}

void tsc_chart_set_item_label_func(TscChart *self, TscItemLabelFunc func, gpointer user_data,
                                   GDestroyNotify destroy)
{
	g_return_if_fail(TSC_IS_CHART(self));
	if (self->item_label_destroy)
		self->item_label_destroy(self->item_label_data);
	self->item_label = func;
	self->item_label_data = user_data;
	self->item_label_destroy = destroy;
	update_description(self);
}

void tsc_chart_set_label(TscChart *self, const char *label)
{
	g_return_if_fail(TSC_IS_CHART(self));
	g_free(self->label);
	self->label = g_strdup(label);
	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               label ? label : "", -1);
}

const char *tsc_chart_get_label(TscChart *self)
{
	g_return_val_if_fail(TSC_IS_CHART(self), NULL);
	return self->label;
}

void tsc_chart_get_plot_area(TscChart *self, graphene_rect_t *out)
{
	g_return_if_fail(TSC_IS_CHART(self));
	ensure_geometry(self);
	*out = self->plot;
}

guint64 tsc_chart_get_render_generation(TscChart *self)
{
	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	return self->generation;
}

/* --- GObject and GtkWidget ---------------------------------------------------- */

static void tsc_chart_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                              int *minimum, int *natural, int *min_baseline, int *nat_baseline)
{
	*minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 120 : 80;
	*natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 600 : 240;
}

static void tsc_chart_size_allocate(GtkWidget *widget, int width, int height, int baseline)
{
	TscChart *self = TSC_CHART(widget);

	if (width != self->geom_width || height != self->geom_height)
		invalidate_geometry(self);
}

static void tsc_chart_css_changed(GtkWidget *widget, GtkCssStyleChange *change)
{
	TscChart *self = TSC_CHART(widget);

	GTK_WIDGET_CLASS(tsc_chart_parent_class)->css_changed(widget, change);
	if (tsc_theme_changed(widget, &self->fg, &self->accent) || !change) {
		g_clear_object(&self->layout);
		invalidate_geometry(self);
	}
}

static void on_scale_factor(GObject *o, GParamSpec *pspec, gpointer data)
{
	invalidate_cache(TSC_CHART(o));
}

static void tsc_chart_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	TscChart *self = TSC_CHART(object);

	switch (id) {
	case PROP_VISIBLE_START:
		g_value_set_double(value, self->vis_start);
		break;
	case PROP_VISIBLE_END:
		g_value_set_double(value, self->vis_end);
		break;
	case PROP_N_ITEMS:
		g_value_set_uint(value, self->n_items);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void tsc_chart_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
	TscChart *self = TSC_CHART(object);
	double v = g_value_get_double(value), span = self->vis_end - self->vis_start;

	switch (id) {
	case PROP_VISIBLE_START:
		/* Keeps the end where it is unless the start passes it. */
		tsc_chart_set_visible_range(self, v, v < self->vis_end ? self->vis_end : v + span);
		break;
	case PROP_VISIBLE_END:
		tsc_chart_set_visible_range(self, v > self->vis_start ? self->vis_start : v - span, v);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void tsc_chart_dispose(GObject *object)
{
	TscChart *self = TSC_CHART(object);

	g_clear_pointer(&self->cache, gsk_render_node_unref);
	g_clear_object(&self->layout);
	if (self->value_format_destroy)
		self->value_format_destroy(self->value_format_data);
	self->value_format_destroy = NULL;
	if (self->item_label_destroy)
		self->item_label_destroy(self->item_label_data);
	self->item_label_destroy = NULL;
	G_OBJECT_CLASS(tsc_chart_parent_class)->dispose(object);
}

static void tsc_chart_finalize(GObject *object)
{
	TscChart *self = TSC_CHART(object);

	g_free(self->label);
	g_free(self->values);
	g_free(self->totals);
	g_free(self->colours);
	g_strfreev(self->names);
	tsc_pyramid_free(self->totals_pyr);
	clear_sides(self);
	g_ptr_array_unref(self->series);
	g_array_unref(self->limits);
	g_free(self->markers);
	gtk_bitset_unref(self->selection);
	G_OBJECT_CLASS(tsc_chart_parent_class)->finalize(object);
}

static void tsc_chart_class_init(TscChartClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->get_property = tsc_chart_get_property;
	object_class->set_property = tsc_chart_set_property;
	object_class->dispose = tsc_chart_dispose;
	object_class->finalize = tsc_chart_finalize;
	widget_class->snapshot = tsc_chart_snapshot;
	widget_class->measure = tsc_chart_measure;
	widget_class->size_allocate = tsc_chart_size_allocate;
	widget_class->css_changed = tsc_chart_css_changed;
	widget_class->query_tooltip = tsc_chart_query_tooltip;

	props[PROP_VISIBLE_START] = g_param_spec_double("visible-start", NULL, NULL, 0, G_MAXDOUBLE, 0,
		G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
	props[PROP_VISIBLE_END] = g_param_spec_double("visible-end", NULL, NULL, 0, G_MAXDOUBLE, 0,
		G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
	props[PROP_N_ITEMS] = g_param_spec_uint("n-items", NULL, NULL, 0, G_MAXUINT, 0,
		G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(object_class, N_PROPS, props);

	/* Emitted after the selection changed (read it with get_selection). */
	signals[SIGNAL_SELECTION_CHANGED] = g_signal_new("selection-changed", G_TYPE_FROM_CLASS(klass),
		G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
	/* Emitted after the visible range changed. */
	signals[SIGNAL_RANGE_CHANGED] = g_signal_new("range-changed", G_TYPE_FROM_CLASS(klass),
		G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);

	gtk_widget_class_set_css_name(widget_class, "tsc-chart");
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void tsc_chart_init(TscChart *self)
{
	static const TscInputHandlers input = {
		.enter = G_CALLBACK(on_motion),
		.motion = G_CALLBACK(on_motion),
		.leave = G_CALLBACK(on_leave),
		.scroll = G_CALLBACK(on_scroll),
		.scroll_flags = GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES,
		.drag_begin = G_CALLBACK(on_drag_begin),
		.drag_update = G_CALLBACK(on_drag_update),
		.drag_end = G_CALLBACK(on_drag_end),
		.drag_button = 0,
		.key_pressed = G_CALLBACK(on_key),
		.focus_change = G_CALLBACK(tsc_redraw_cb),
	};
	GtkWidget *w = GTK_WIDGET(self);

	self->series = g_ptr_array_new_with_free_func(series_free);
	self->limits = g_array_new(FALSE, TRUE, sizeof(Limit));
	g_array_set_clear_func(self->limits, limit_clear);
	self->selection = gtk_bitset_new_empty();
	self->hover_item = -1;
	gtk_widget_set_focusable(w, TRUE);
	gtk_widget_set_focus_on_click(w, TRUE);
	gtk_widget_set_has_tooltip(w, TRUE);
	gtk_widget_add_css_class(w, "view");
	tsc_widget_add_input(w, &input);
	g_signal_connect(self, "notify::scale-factor", G_CALLBACK(on_scale_factor), NULL);
	update_description(self);
}

GtkWidget *tsc_chart_new(void)
{
	return g_object_new(TSC_TYPE_CHART, NULL);
}
