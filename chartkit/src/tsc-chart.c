/*
 * TscChart (tsc-chart.h): items along x with stacked bars, lines/areas,
 * markers and limit lines, an axis and a ruler, level of detail, and the
 * hit testing, description and tooltip those need. What every plot does
 * (accessibility, hover, selection, input, zoom and pan, the cached
 * layer) is TscPlot's.
 *
 * Drawing is split in two: the axes and data layers are the plot's
 * cached layer, rebuilt only when the data, visible range, theme or size
 * changes; hover, selection, focus and the rubber band are an overlay
 * drawn on top every frame. Geometry (plot area, y scale, axis ticks) is
 * computed lazily outside the draw call so hit testing and drawing agree.
 */
#include <tilescope/tsc-chart.h>
#include <tilescope/axis.h>
#include <tilescope/lod.h>
#include "tsc-plot-private.h"
#include "tsc-util-private.h"

#include <math.h>

/* Items at least this wide (logical px) are bars with gaps. */
#define BAR_GAP_WIDTH 3.0

typedef struct {
	char *name;
	double *values;      /* n_items */
	tsb_pyramid *pyr;
	GdkRGBA colour;
	TscSeriesStyle style;
} Series;

typedef struct {
	double y;
	char *label;
	GdkRGBA colour;
	gboolean has_colour;  /* FALSE: the theme's foreground */
} Limit;

struct _TscChart {
	TscPlot parent_instance;

	TscPlotPrivate *p;       /* the base's state */
	/* The stacked-bars layer (the item count is the base's). */
	guint n_components;
	double *values;          /* n_components × n_items, component-major, >= 0 */
	double *totals;          /* n_items: sum over the components */
	GdkRGBA *colours;        /* n_components */
	char **names;            /* n_components, NULL-terminated */
	tsb_pyramid *totals_pyr; /* over totals */
	/* Diverging (tsc_chart_set_below): the last n_below components are
	 * drawn down from zero. up and down are each item's sums above and
	 * below (magnitudes), with their pyramids; NULL when n_below is 0. */
	guint n_below;
	double *up, *down;
	tsb_pyramid *up_pyr, *down_pyr;
	GPtrArray *series;       /* of Series* */
	gboolean series_right;   /* the series on an axis of their own, on the right */
	GArray *limits;          /* of Limit */
	guint *markers;
	guint n_markers;
	GdkRGBA marker_colour;
	gboolean marker_has_colour;

	/* The y axis, computed with the layout. */
	double y_max;                  /* the value at the top of the plot */
	double y_min;                  /* at the bottom: 0, or below it when diverging */
	double y_step, y_first;        /* y ticks */
	guint y_n;
	double r_max, r_step, r_first; /* the right axis (series_right): 0 at the bottom */
	guint r_n;
};

G_DEFINE_FINAL_TYPE(TscChart, tsc_chart, TSC_TYPE_PLOT)

/* --- Geometry ---------------------------------------------------------- */

/* Whether component k is drawn below zero. */
static gboolean is_below(TscChart *self, guint k)
{
	return k + self->n_below >= self->n_components;
}

/* The values any layer shows, so the y axis holds them: from 0 or below
 * (the stacks below zero of a diverging chart, negative series values
 * and limits) up to the largest stack, series value or limit. */
static void data_extent(TscChart *self, double *lo, double *hi)
{
	tsb_pyramid *top = self->up_pyr ? self->up_pyr : self->totals_pyr;
	tsb_span span;
	guint i;

	*lo = *hi = 0;
	if (top) {
		tsb_pyramid_query(top, 0, self->p->n_items, &span);
		*hi = MAX(*hi, span.max);
	}
	if (self->down_pyr) {
		tsb_pyramid_query(self->down_pyr, 0, self->p->n_items, &span);
		*lo = MIN(*lo, -span.max);
	}
	for (i = 0; i < self->series->len && !self->series_right; i++) {
		Series *s = g_ptr_array_index(self->series, i);

		tsb_pyramid_query(s->pyr, 0, self->p->n_items, &span);
		*hi = MAX(*hi, span.max);
		*lo = MIN(*lo, span.min);
	}
	for (i = 0; i < self->limits->len; i++) {
		double y = g_array_index(self->limits, Limit, i).y;

		*hi = MAX(*hi, y);
		*lo = MIN(*lo, y);
	}
}

/* The largest value of any series (0 without series). */
static double series_max(TscChart *self)
{
	double hi = 0;
	tsb_span span;

	for (guint i = 0; i < self->series->len; i++) {
		tsb_pyramid_query(((Series *)g_ptr_array_index(self->series, i))->pyr, 0,
		                  self->p->n_items, &span);
		hi = MAX(hi, span.max);
	}
	return hi;
}

/* The widest label of `n` ticks from `first` by `step`. */
static int labels_width(TscChart *self, guint n, double first, double step)
{
	int w = 0, tw, th;

	for (guint i = 0; i < n; i++) {
		char *s = tsc_plot_format_value(TSC_PLOT(self), first + i * step);

		tsc_text_size(self->p->layout, s, &tw, &th);
		w = MAX(w, tw);
		g_free(s);
	}
	return w;
}

/* The plot area inside the y axes and the ruler, and the y axes' scales
 * and ticks. */
static void tsc_chart_layout(TscPlot *plot, int width, int height, int scale)
{
	TscChart *self = TSC_CHART(plot);
	int th = self->p->text_height;
	guint max_ticks;
	double left, top, bottom, right = 12, lo, hi;

	top = ceil(th / 2.0) + 4;
	bottom = th + 8;
	/* Ticks about every 40 px of plot height; the top of the axis is the
	 * first tick above the data, with a little room for limit labels. */
	max_ticks = (guint)MAX(2, (height - top - bottom) / 40);
	/* Zero is always on the axis (and a tick): a diverging chart's
	 * bottom is the first tick below its lowest value. */
	data_extent(self, &lo, &hi);
	self->y_max = hi * 1.03;
	self->y_min = lo * 1.03;
	if (!(self->y_max > 0) && !(self->y_min < 0))
		self->y_max = 1;
	if (!(self->y_min < 0))
		self->y_min = 0;
	if (!(self->y_max > 0))
		self->y_max = 0;
	tsb_axis_nice_ticks(self->y_min, self->y_max, max_ticks, 0, &self->y_step, &self->y_first);
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
	self->y_n = tsb_axis_nice_ticks(self->y_min, self->y_max, max_ticks + 1, self->y_step,
	                                &self->y_step, &self->y_first);
	left = labels_width(self, self->y_n, self->y_first, self->y_step) + 10;
	/* The series' own axis: from 0 to the first tick above their top. */
	self->r_n = 0;
	if (self->series_right && self->series->len) {
		hi = series_max(self) * 1.03;
		tsb_axis_nice_ticks(0, hi > 0 ? hi : 1, max_ticks, 0, &self->r_step, &self->r_first);
		self->r_max = ceil((hi > 0 ? hi : 1) / self->r_step - 1e-9) * self->r_step;
		self->r_n = tsb_axis_nice_ticks(0, self->r_max, max_ticks + 1, self->r_step,
		                                &self->r_step, &self->r_first);
		right = labels_width(self, self->r_n, self->r_first, self->r_step) + 10;
	}
	tsc_plot_set_area(plot, &GRAPHENE_RECT_INIT((float)left, (float)top,
	                                            (float)MAX(0, floor(width - left - right)),
	                                            (float)MAX(0, floor(height - top - bottom))));
}

static gboolean lod_active(TscChart *self)
{
	return tsc_plot_items_per_px(TSC_PLOT(self)) > 1.0;
}

/* The items [*first, *end) of pixel column c of the plot under level of
 * detail; FALSE when it holds none. Columns tile the items without gaps
 * or overlaps, so no item is dropped. */
static gboolean column_items(TscChart *self, int c, guint *first, guint *end)
{
	double ipp = tsc_plot_items_per_px(TSC_PLOT(self));
	double a = floor(self->p->vis_start + c * ipp), b = floor(self->p->vis_start + (c + 1) * ipp);

	if (c == self->p->area_cols - 1)
		b = ceil(self->p->vis_end);
	a = CLAMP(a, 0, self->p->n_items);
	b = CLAMP(b, 0, self->p->n_items);
	if (b <= a)
		return FALSE;
	*first = (guint)a;
	*end = (guint)b;
	return TRUE;
}

/* The pixel extent [*x0, *x1) drawn for item i outside level of detail:
 * whole pixels, with a gap between items wider than BAR_GAP_WIDTH. */
static void bar_extent(TscChart *self, guint i, double *x0, double *x1)
{
	double a = tsc_plot_x_of(TSC_PLOT(self), i), b = tsc_plot_x_of(TSC_PLOT(self), i + 1.0), gap = 0;

	if (b - a >= BAR_GAP_WIDTH)
		gap = MAX(1.0, round((b - a) * 0.15));
	*x0 = round(a + gap / 2);
	*x1 = MAX(*x0 + 1, round(b - gap / 2));
}

/* The pixel column (or bar) extent showing item i. */
static void item_extent(TscChart *self, guint i, double *x0, double *x1)
{
	if (lod_active(self)) {
		double c = floor((i - self->p->vis_start) / tsc_plot_items_per_px(TSC_PLOT(self)));

		/* The column holding i by column_items' rounding. */
		while (c > 0 && floor(self->p->vis_start + c * tsc_plot_items_per_px(TSC_PLOT(self))) > i)
			c--;
		while (c + 1 < self->p->area_cols && floor(self->p->vis_start + (c + 1) * tsc_plot_items_per_px(TSC_PLOT(self))) <= i)
			c++;
		*x0 = self->p->area.origin.x + c;
		*x1 = *x0 + 1;
	} else {
		bar_extent(self, i, x0, x1);
	}
}

static double value_y(TscChart *self, double v)
{
	double base = self->p->area.origin.y + self->p->area.size.height, range = self->y_max - self->y_min;

	return base - (range > 0 ? (v - self->y_min) / range : 0) * self->p->area.size.height;
}

/* A series value's y: on the right axis when the series have it. */
static double series_y(TscChart *self, double v)
{
	if (!self->r_n)
		return value_y(self, v);
	return self->p->area.origin.y + self->p->area.size.height * (1 - MAX(v, 0) / self->r_max);
}

/* Snaps a y to the device pixel grid. */
static double snap_y(TscChart *self, double y)
{
	int scale = gtk_widget_get_scale_factor(GTK_WIDGET(self));

	return round(y * scale) / scale;
}

/* Under level of detail, the item a pixel column shows is its largest. */
static gint64 tsc_chart_hit_test(TscPlot *plot, double x, double y, guint *out_first,
                                 guint *out_n)
{
	TscChart *self = TSC_CHART(plot);
	guint first, end;
	double px;
	tsb_span span;

	px = x - self->p->area.origin.x;
	if (self->p->n_items == 0 || px < 0 || px >= self->p->area_cols)
		return -1;
	if (lod_active(self)) {
		if (!column_items(self, (int)floor(px), &first, &end))
			return -1;
		tsb_pyramid_query(self->totals_pyr, first, end, &span);
		*out_first = first;
		*out_n = end - first;
		return span.argmax;
	}
	px = floor(self->p->vis_start + px * tsc_plot_items_per_px(plot));
	if (px < 0 || px >= self->p->n_items)
		return -1;
	*out_first = (guint)px;
	*out_n = 1;
	return (gint64)px;
}

int tsc_chart_component_at(TscChart *self, double x, double y)
{
	gint64 item = tsc_chart_item_at(self, x, NULL, NULL);
	double v, acc = 0;
	guint k;

	if (item < 0 || y < self->p->area.origin.y || y >= self->p->area.origin.y + self->p->area.size.height)
		return -1;
	v = self->y_min + (self->p->area.origin.y + self->p->area.size.height - y) / self->p->area.size.height *
	                      (self->y_max - self->y_min);
	/* Above zero the stack up, below it the stack down. */
	for (k = 0; k < self->n_components; k++) {
		if (is_below(self, k) != (v < 0))
			continue;
		acc += self->values[(gsize)k * self->p->n_items + (guint)item];
		if (fabs(v) < acc)
			return (int)k;
	}
	return -1;
}

/* The items whose columns or bars meet [xa, xb], from *a to *b; a
 * rubber band selects along x only. */
static gboolean tsc_chart_band_items(TscPlot *plot, double xa, double ya, double xb, double yb,
                                     guint *a, guint *b)
{
	TscChart *self = TSC_CHART(plot);
	guint f, e, n;
	double lo = CLAMP(MIN(xa, xb), self->p->area.origin.x, self->p->area.origin.x + self->p->area_cols - 1);
	double hi = CLAMP(MAX(xa, xb), self->p->area.origin.x, self->p->area.origin.x + self->p->area_cols - 1);

	if (tsc_chart_item_at(self, lo, &f, &n) < 0)
		return FALSE;
	if (tsc_chart_item_at(self, hi, &e, &n) < 0 || e + n <= f)
		return FALSE;
	*a = f;
	*b = e + n - 1;
	return TRUE;
}

/* --- The cached layer ---------------------------------------------------- */

static void draw_axes(TscChart *self, GtkSnapshot *s)
{
	const graphene_rect_t *p = &self->p->area;
	GdkRGBA grid = tsc_rgba_alpha(&self->p->fg, 0.12), axis = tsc_rgba_alpha(&self->p->fg, 0.55);
	GdkRGBA text = tsc_rgba_alpha(&self->p->fg, 0.8);
	double base = p->origin.y + p->size.height, step, first;
	guint i, n;

	for (i = 0; i < self->y_n; i++) {
		double v = self->y_first + i * self->y_step, y = floor(value_y(self, v));
		char *label;

		/* Whole zeros: no "-0 B" from rounding the step. */
		if (fabs(v) < self->y_step * 1e-6)
			v = 0;
		label = tsc_plot_format_value(TSC_PLOT(self), v);
		if (i > 0 && v != 0)
			tsc_rect(s, &grid, p->origin.x, y, p->size.width, 1);
		tsc_text(s, self->p->layout, label, p->origin.x - 6, y - self->p->text_height / 2.0, 1.0, &text);
		g_free(label);
	}
	/* The zero line (the bottom unless the chart diverges) and the left
	 * axis. */
	tsc_rect(s, &axis, p->origin.x, floor(value_y(self, 0)), p->size.width, 1);
	if (self->y_min < 0)
		tsc_rect(s, &grid, p->origin.x, floor(base), p->size.width, 1);
	tsc_rect(s, &axis, p->origin.x - 1, p->origin.y, 1, p->size.height + 1);
	/* The series' axis on the right. */
	for (i = 0; i < self->r_n; i++) {
		double v = self->r_first + i * self->r_step;
		char *label = tsc_plot_format_value(TSC_PLOT(self), v);

		tsc_text(s, self->p->layout, label, p->origin.x + p->size.width + 6,
		         floor(series_y(self, v)) - self->p->text_height / 2.0, 0.0, &text);
		g_free(label);
	}
	if (self->r_n)
		tsc_rect(s, &axis, p->origin.x + p->size.width, p->origin.y, 1, p->size.height + 1);

	/* The ruler: item indices, about one label per 90 px. */
	if (self->p->n_items == 0 || self->p->area_cols <= 0)
		return;
	n = tsb_axis_nice_ticks(self->p->vis_start, MIN(self->p->vis_end, self->p->n_items) - 1,
	                        (guint)MAX(2, self->p->area_cols / 90), 1, &step, &first);
	for (i = 0; i < n; i++) {
		double item = first + i * step, x0, x1;
		char *label;

		if (item < 0 || item >= self->p->n_items)
			continue;
		item_extent(self, (guint)item, &x0, &x1);
		x0 = floor((x0 + x1) / 2);
		tsc_rect(s, &axis, x0, floor(base) + 1, 1, 4);
		label = tsc_format_thousands(item, NULL);
		tsc_text(s, self->p->layout, label, x0 + 0.5, base + 5, 0.5, &text);
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
		double v = self->values[(gsize)k * self->p->n_items + item], y_end;

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
static void draw_column_side(TscChart *self, GtkSnapshot *s, const tsb_pyramid *pyr, double x,
                             guint first, guint end, gboolean up)
{
	GdkRGBA mean_colour = tsc_rgba_alpha(&self->p->fg, 0.6);
	double mean, sign = up ? 1 : -1;
	tsb_span span;

	tsb_pyramid_query(pyr, first, end, &span);
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

	if (self->n_components == 0 || self->p->n_items == 0)
		return;
	if (lod_active(self)) {
		/* Each side of a diverging chart shows its own largest item, so
		 * the largest increase and decrease under a column both show. */
		for (c = 0; c < self->p->area_cols; c++) {
			double x = self->p->area.origin.x + c;

			if (!column_items(self, c, &first, &end))
				continue;
			draw_column_side(self, s, self->n_below ? self->up_pyr : self->totals_pyr, x, first,
			                 end, TRUE);
			if (self->n_below)
				draw_column_side(self, s, self->down_pyr, x, first, end, FALSE);
		}
		return;
	}
	first = (guint)MAX(0, floor(self->p->vis_start));
	end = (guint)MIN(self->p->n_items, ceil(self->p->vis_end));
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
	double base = series_y(self, 0);
	gboolean lod = lod_active(self);
	guint first, end, i;
	int c;

	if (self->p->n_items == 0 || self->p->area_cols <= 0)
		return;
	cr = gtk_snapshot_append_cairo(s, &self->p->area);
	cairo_set_line_width(cr, 1.5);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	if (lod) {
		/* A min-max band per column: one path, O(width). */
		gboolean started = FALSE;

		for (c = 0; c < self->p->area_cols; c++) {
			tsb_span span;
			double x = self->p->area.origin.x + c + 0.5;

			if (!column_items(self, c, &first, &end))
				continue;
			tsb_pyramid_query(ser->pyr, first, end, &span);
			if (!started) {
				if (ser->style == TSC_SERIES_AREA)
					cairo_move_to(cr, x, base);
				else
					cairo_move_to(cr, x, series_y(self, span.max));
				started = TRUE;
			}
			cairo_line_to(cr, x, series_y(self, span.max));
			if (ser->style == TSC_SERIES_LINE)
				cairo_line_to(cr, x, series_y(self, span.min));
		}
	} else {
		/* Through the item centres, one item either side for continuity. */
		first = (guint)MAX(0, floor(self->p->vis_start) - 1);
		end = (guint)MIN(self->p->n_items, ceil(self->p->vis_end) + 1);
		for (i = first; i < end; i++) {
			double x = tsc_plot_x_of(TSC_PLOT(self), i + 0.5), v = isnan(ser->values[i]) ? 0 : ser->values[i];

			if (i == first && ser->style == TSC_SERIES_AREA)
				cairo_move_to(cr, x, base);
			else if (i == first)
				cairo_move_to(cr, x, series_y(self, v));
			cairo_line_to(cr, x, series_y(self, v));
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
	GdkRGBA c = self->marker_has_colour ? self->marker_colour : tsc_rgba_alpha(&self->p->fg, 0.7);
	double last = -1;
	guint i;

	for (i = 0; i < self->n_markers; i++) {
		double x0, x1, x;

		if (self->markers[i] >= self->p->n_items || self->markers[i] < floor(self->p->vis_start) ||
		    self->markers[i] >= self->p->vis_end)
			continue;
		item_extent(self, self->markers[i], &x0, &x1);
		x = floor((x0 + x1) / 2);
		/* One mark per pixel column, however many markers fall in it. */
		if (x == last)
			continue;
		last = x;
		tsc_rect(s, &c, x, self->p->area.origin.y, 1, self->p->area.size.height);
	}
}

static void draw_limits(TscChart *self, GtkSnapshot *s)
{
	const graphene_rect_t *p = &self->p->area;
	guint i;

	for (i = 0; i < self->limits->len; i++) {
		Limit *l = &g_array_index(self->limits, Limit, i);
		GdkRGBA c = l->has_colour ? l->colour : self->p->fg;
		double y = floor(value_y(self, l->y));

		tsc_rect(s, &c, p->origin.x, y, p->size.width, 1);
		if (l->label)
			tsc_text(s, self->p->layout, l->label, p->origin.x + p->size.width - 4,
			         y - self->p->text_height - 1, 1.0, &c);
	}
}

static void tsc_chart_build_layer(TscPlot *plot, GtkSnapshot *s)
{
	TscChart *self = TSC_CHART(plot);
	guint i;

	draw_axes(self, s);
	gtk_snapshot_push_clip(s, &self->p->area);
	draw_stacks(self, s);
	for (i = 0; i < self->series->len; i++)
		draw_series(self, s, g_ptr_array_index(self->series, i));
	draw_markers(self, s);
	gtk_snapshot_pop(s);
	draw_limits(self, s);
}

/* --- The overlay --------------------------------------------------------- */

static void draw_selection(TscChart *self, GtkSnapshot *s)
{
	GdkRGBA band = tsc_rgba_alpha(&self->p->accent, 0.3), strip = self->p->accent;
	const graphene_rect_t *p = &self->p->area;
	double run_x0 = -1, run_x1 = -1;
	guint first, end, value;
	int c;

	if (gtk_bitset_is_empty(self->p->selection) || self->p->n_items == 0)
		return;
	if (lod_active(self)) {
		for (c = 0; c <= self->p->area_cols; c++) {
			gboolean hit = FALSE;
			GtkBitsetIter iter;

			if (c < self->p->area_cols && column_items(self, c, &first, &end))
				hit = gtk_bitset_iter_init_at(&iter, self->p->selection, first, &value) && value < end;
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

		first = (guint)MAX(0, floor(self->p->vis_start));
		end = (guint)MIN(self->p->n_items, ceil(self->p->vis_end));
		for (ok = gtk_bitset_iter_init_at(&iter, self->p->selection, first, &value);
		     ok && value < end; ok = gtk_bitset_iter_next(&iter, &value)) {
			/* Without the gaps, so a selected run is one band. */
			double x0 = round(tsc_plot_x_of(TSC_PLOT(self), value)), x1 = round(tsc_plot_x_of(TSC_PLOT(self), value + 1.0));

			tsc_rect(s, &band, x0, p->origin.y, x1 - x0, p->size.height);
			tsc_rect(s, &strip, x0, p->origin.y + p->size.height - 3, x1 - x0, 3);
		}
	}
}

static void tsc_chart_draw_overlay(TscPlot *plot, GtkSnapshot *s)
{
	TscChart *self = TSC_CHART(plot);
	const graphene_rect_t *p = &self->p->area;
	double x0, x1;

	gtk_snapshot_push_clip(s, p);
	draw_selection(self, s);
	if (self->p->hover >= 0 && self->p->hover < self->p->n_items) {
		GdkRGBA c = tsc_rgba_alpha(&self->p->fg, 0.1);

		item_extent(self, (guint)self->p->hover, &x0, &x1);
		tsc_rect(s, &c, x0, p->origin.y, x1 - x0, p->size.height);
	}
	if (gtk_widget_has_focus(GTK_WIDGET(self)) && self->p->focus < self->p->n_items &&
	    self->p->focus >= floor(self->p->vis_start) && self->p->focus < self->p->vis_end) {
		item_extent(self, self->p->focus, &x0, &x1);
		tsc_outline(s, &self->p->fg, x0 - 1, p->origin.y, x1 - x0 + 2, p->size.height);
	}
	if (self->p->drag_mode == TSC_DRAG_RUBBER) {
		double a = MIN(self->p->drag_x0, self->p->drag_x1), b = MAX(self->p->drag_x0, self->p->drag_x1);

		tsc_plot_draw_band(plot, s, a, p->origin.y, b - a, p->size.height);
	}
	gtk_snapshot_pop(s);
}


/* --- Selection, focus, description and tooltip ---------------------------- */

/* The items from a to b, in either order. */
static void tsc_chart_add_between(TscPlot *plot, GtkBitset *set, guint a, guint b)
{
	gtk_bitset_add_range_closed(set, MIN(a, b), MAX(a, b));
}

/* Left and Right move one item, or under level of detail one pixel
 * column's worth; Up and Down are not the chart's. */
static gboolean tsc_chart_move_focus(TscPlot *plot, int dx, int dy, guint *out_item)
{
	TscChart *self = TSC_CHART(plot);
	double step = lod_active(self) ? ceil(tsc_plot_items_per_px(plot)) : 1;
	double next = (double)self->p->focus + dx * step;

	if (!dx)
		return FALSE;
	*out_item = (guint)CLAMP(next, 0, self->p->n_items - 1.0);
	return TRUE;
}

/* An item's value: its total, or on a diverging chart what is above
 * zero less what is below. */
static double tsc_chart_item_value(TscPlot *plot, guint item)
{
	TscChart *self = TSC_CHART(plot);

	return self->n_below ? self->up[item] - self->down[item] : self->totals[item];
}


static char *tsc_chart_default_item_label(TscPlot *plot, guint item)
{
	return g_strdup_printf("Item %u", item);
}

/* The visible items and the largest (on a diverging chart, each side's
 * extreme). */
static void tsc_chart_describe(TscPlot *plot, GString *s)
{
	TscChart *self = TSC_CHART(plot);
	guint first, end;

	first = (guint)MAX(0, floor(self->p->vis_start));
	end = (guint)MIN(self->p->n_items, ceil(self->p->vis_end));
	g_string_append_printf(s, "%u items; showing items %u to %u", self->p->n_items, first, end - 1);
	if (self->n_below && end > first) {
		tsb_span up, down;

		/* Each side's extreme; "none" when no item reaches that side. */
		tsb_pyramid_query(self->up_pyr, first, end, &up);
		tsb_pyramid_query(self->down_pyr, first, end, &down);
		g_string_append(s, "; above zero, maximum ");
		if (up.max > 0)
			tsc_plot_append_item(TSC_PLOT(self), s, up.argmax);
		else
			g_string_append(s, "none");
		g_string_append(s, "; below zero, minimum ");
		if (down.max > 0)
			tsc_plot_append_item(TSC_PLOT(self), s, down.argmax);
		else
			g_string_append(s, "none");
	} else if (self->totals_pyr && end > first) {
		tsb_span span;

		tsb_pyramid_query(self->totals_pyr, first, end, &span);
		g_string_append(s, "; maximum ");
		tsc_plot_append_item(TSC_PLOT(self), s, span.argmax);
	}
	if (self->series_right && self->series->len) {
		char *v = tsc_plot_format_value(plot, series_max(self));

		g_string_append_printf(s, "; lines on the right axis, up to %s", v);
		g_free(v);
	}
}

/* The item's components, series and total; under level of detail, the
 * items its pixel column holds. */
static gboolean tsc_chart_tooltip(TscPlot *plot, GString *s, guint item, guint first, guint n)
{
	TscChart *self = TSC_CHART(plot);
	guint k;
	char *name, *v;

	name = tsc_plot_format_item(TSC_PLOT(self), item);
	if (n > 1) {
		char *a = tsc_plot_format_item(TSC_PLOT(self), first), *b = tsc_plot_format_item(TSC_PLOT(self), first + n - 1);

		g_string_append_printf(s, "%s to %s (%u items); the largest, %s:\n", a, b, n, name);
		g_free(a);
		g_free(b);
	} else {
		g_string_append_printf(s, "%s\n", name);
	}
	g_free(name);
	for (k = 0; k < self->n_components; k++) {
		double val = self->values[(gsize)k * self->p->n_items + item];

		/* Below zero as drawn. */
		v = tsc_plot_format_value(TSC_PLOT(self), is_below(self, k) && val > 0 ? -val : val);
		g_string_append_printf(s, "%s: %s\n", self->names[k], v);
		g_free(v);
	}
	for (k = 0; k < self->series->len; k++) {
		Series *ser = g_ptr_array_index(self->series, k);

		v = tsc_plot_format_value(TSC_PLOT(self), ser->values[item]);
		g_string_append_printf(s, "%s: %s\n", ser->name, v);
		g_free(v);
	}
	v = tsc_plot_format_value(TSC_PLOT(self), tsc_chart_item_value(plot, item));
	g_string_append_printf(s, "Total: %s", v);
	g_free(v);
	return TRUE;
}

/* --- Data ------------------------------------------------------------------- */

/* tsb_pyramid_new, which fails only when out of memory: the chart kit
 * aborts then, as GLib's g_new does. */
static tsb_pyramid *pyramid_new(const double *values, guint n)
{
	tsb_pyramid *p = tsb_pyramid_new(values, n);

	if (!p && n)
		g_error("out of memory for the level of detail of %u items", n);
	return p;
}

static void series_free(gpointer p)
{
	Series *s = p;

	g_free(s->name);
	g_free(s->values);
	tsb_pyramid_free(s->pyr);
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
	g_clear_pointer(&self->up_pyr, tsb_pyramid_free);
	g_clear_pointer(&self->down_pyr, tsb_pyramid_free);
}

/* Frees the stacked-bars layer. */
static void clear_stacks(TscChart *self)
{
	g_clear_pointer(&self->values, g_free);
	g_clear_pointer(&self->totals, g_free);
	g_clear_pointer(&self->colours, g_free);
	g_clear_pointer(&self->names, g_strfreev);
	g_clear_pointer(&self->totals_pyr, tsb_pyramid_free);
	clear_sides(self);
}

/* The sums above and below zero and their pyramids, for a diverging
 * chart with items (none otherwise). */
static void build_sides(TscChart *self, guint n_items)
{
	clear_sides(self);
	if (!self->n_below || !n_items)
		return;
	self->up = g_new0(double, n_items);
	self->down = g_new0(double, n_items);
	for (guint k = 0; k < self->n_components; k++)
		for (guint i = 0; i < n_items; i++) {
			double v = self->values[(gsize)k * n_items + i];

			if (is_below(self, k))
				self->down[i] += v;
			else
				self->up[i] += v;
		}
	self->up_pyr = pyramid_new(self->up, n_items);
	self->down_pyr = pyramid_new(self->down, n_items);
}

void tsc_chart_set_below(TscChart *self, guint n_below)
{
	g_return_if_fail(TSC_IS_CHART(self));
	if (n_below == self->n_below)
		return;
	self->n_below = n_below;
	build_sides(self, self->p->n_items);
	tsc_plot_invalidate_geometry(TSC_PLOT(self));
	tsc_plot_update_description(TSC_PLOT(self));
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
	new_count = n_items != self->p->n_items;
	if (new_count)
		g_ptr_array_set_size(self->series, 0);
	clear_stacks(self);
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
	self->totals_pyr = pyramid_new(self->totals, n_items);
	build_sides(self, n_items);
	/* Only now that the data is whole: a new count updates the
	 * description, which reads it. */
	tsc_plot_data_changed(TSC_PLOT(self), n_items, FALSE);
}

guint tsc_chart_get_n_components(TscChart *self)
{
	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	return self->n_components;
}

double tsc_chart_get_total(TscChart *self, guint item)
{
	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	return item < self->p->n_items ? self->totals[item] : 0;
}

guint tsc_chart_add_series(TscChart *self, const char *name, const double *values,
                           const GdkRGBA *colour, TscSeriesStyle style)
{
	Series *s;

	g_return_val_if_fail(TSC_IS_CHART(self), 0);
	g_return_val_if_fail(self->p->n_items > 0 && values && colour, 0);
	s = g_new0(Series, 1);
	s->name = g_strdup(name ? name : "Series");
	s->values = g_memdup2(values, sizeof(double) * self->p->n_items);
	s->pyr = pyramid_new(s->values, self->p->n_items);
	s->colour = *colour;
	s->style = style;
	g_ptr_array_add(self->series, s);
	tsc_plot_invalidate_geometry(TSC_PLOT(self));
	tsc_plot_update_description(TSC_PLOT(self));
	return self->series->len - 1;
}

void tsc_chart_clear_series(TscChart *self)
{
	g_return_if_fail(TSC_IS_CHART(self));
	g_ptr_array_set_size(self->series, 0);
	tsc_plot_invalidate_geometry(TSC_PLOT(self));
	tsc_plot_update_description(TSC_PLOT(self));
}

void tsc_chart_set_series_right(TscChart *self, gboolean right)
{
	g_return_if_fail(TSC_IS_CHART(self));
	self->series_right = right;
	tsc_plot_invalidate_geometry(TSC_PLOT(self));
	tsc_plot_update_description(TSC_PLOT(self));
}

void tsc_chart_add_limit(TscChart *self, double y, const char *label, const GdkRGBA *colour)
{
	Limit l = { y, g_strdup(label), colour ? *colour : (GdkRGBA){ 0 }, colour != NULL };

	g_return_if_fail(TSC_IS_CHART(self));
	g_array_append_val(self->limits, l);
	tsc_plot_invalidate_geometry(TSC_PLOT(self));
}

void tsc_chart_clear_limits(TscChart *self)
{
	g_return_if_fail(TSC_IS_CHART(self));
	g_array_set_size(self->limits, 0);
	tsc_plot_invalidate_geometry(TSC_PLOT(self));
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
	tsc_plot_invalidate_cache(TSC_PLOT(self));
}

/* --- GObject ------------------------------------------------------------------ */

static void tsc_chart_finalize(GObject *object)
{
	TscChart *self = TSC_CHART(object);

	clear_stacks(self);
	g_ptr_array_unref(self->series);
	g_array_unref(self->limits);
	g_free(self->markers);
	G_OBJECT_CLASS(tsc_chart_parent_class)->finalize(object);
}

static void tsc_chart_class_init(TscChartClass *klass)
{
	TscPlotClass *plot_class = TSC_PLOT_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = tsc_chart_finalize;
	plot_class->min_width = 120;
	plot_class->min_height = 80;
	plot_class->natural_width = 600;
	plot_class->natural_height = 240;
	plot_class->zoomable = TRUE;
	TSC_PLOT_CLASS_SET_HOOKS(plot_class, tsc_chart);
	gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "tsc-chart");
}

static void tsc_chart_init(TscChart *self)
{
	self->p = tsc_plot_priv(TSC_PLOT(self));
	self->series = g_ptr_array_new_with_free_func(series_free);
	self->limits = g_array_new(FALSE, TRUE, sizeof(Limit));
	g_array_set_clear_func(self->limits, limit_clear);
}

GtkWidget *tsc_chart_new(void)
{
	return g_object_new(TSC_TYPE_CHART, NULL);
}
