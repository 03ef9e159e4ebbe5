/*
 * TscHeatmap (tsc-heatmap.h): a grid of cells coloured through a ramp,
 * drawn as one texture at device pixels, with a legend. What every plot
 * does (accessibility, hover, tooltips, selection, input, the cached
 * layer) is TscPlot's; this is the grid's geometry, drawing and hit
 * testing.
 *
 * The grid texture and the legend are the cached layer, rebuilt when the
 * data, ramp, theme, size or scale changes. The selection is a second
 * texture of the same size, rebuilt when the selection or the layer
 * changes; hover, focus and the rubber band are drawn every frame.
 */
#include <tilescope/tsc-heatmap.h>

#include "tsc-plot-private.h"
#include "tsc-util-private.h"

#include <math.h>
#include <string.h>

#define RAMP_SIZE 256

struct _TscHeatmap {
	TscPlot parent_instance;

	TscPlotPrivate *p;         /* the base's state */
	guint rows, cols;
	double *values;            /* rows × cols, row-major; NaN: no cell */
	double data_min, data_max; /* over the non-NaN values */
	guint argmax;
	double range_min, range_max; /* set by the app; NaN: the data's */
	GdkRGBA *stops;
	guint n_stops;
	guint8 ramp[RAMP_SIZE][4]; /* RGBA, from the stops */

	/* Geometry, in device pixels for the grid. */
	int scale;                 /* device px per logical px */
	int cell_dp;               /* cell pitch, device px */
	gboolean no_legend;        /* tsc_heatmap_set_legend_visible(FALSE) */
	int ox_dp, oy_dp;          /* grid origin, device px */
	graphene_rect_t legend;    /* the ramp bar */

	/* The selection texture, and the selection and layer it shows. */
	GskRenderNode *selection_cache;
	guint64 selection_serial, selection_generation;
};

G_DEFINE_FINAL_TYPE(TscHeatmap, tsc_heatmap, TSC_TYPE_PLOT)

static guint n_cells(TscHeatmap *self)
{
	return self->rows * self->cols;
}

/* --- Ramp and geometry ----------------------------------------------------- */

static void build_ramp(TscHeatmap *self)
{
	static const GdkRGBA viridis[] = {
		{ 0.267f, 0.005f, 0.329f, 1 }, { 0.231f, 0.322f, 0.545f, 1 }, { 0.129f, 0.569f, 0.549f, 1 },
		{ 0.369f, 0.788f, 0.384f, 1 }, { 0.992f, 0.906f, 0.145f, 1 },
	};
	const GdkRGBA *stops = self->stops ? self->stops : viridis;
	guint n = self->stops ? self->n_stops : G_N_ELEMENTS(viridis), i;

	for (i = 0; i < RAMP_SIZE; i++) {
		double t = (double)i / (RAMP_SIZE - 1) * (n - 1), f;
		guint a = MIN((guint)t, n - 2);

		f = t - a;
		self->ramp[i][0] = (guint8)lround(255 * (stops[a].red * (1 - f) + stops[a + 1].red * f));
		self->ramp[i][1] = (guint8)lround(255 * (stops[a].green * (1 - f) + stops[a + 1].green * f));
		self->ramp[i][2] = (guint8)lround(255 * (stops[a].blue * (1 - f) + stops[a + 1].blue * f));
		self->ramp[i][3] = (guint8)lround(255 * (stops[a].alpha * (1 - f) + stops[a + 1].alpha * f));
	}
}

static void value_range(TscHeatmap *self, double *lo, double *hi)
{
	*lo = isnan(self->range_min) ? self->data_min : self->range_min;
	*hi = isnan(self->range_max) ? self->data_max : self->range_max;
}

static void tsc_heatmap_layout(TscPlot *plot, int width, int height, int scale)
{
	TscHeatmap *self = TSC_HEATMAP(plot);
	graphene_rect_t grid;
	int avail_w, avail_h, legend_h;

	legend_h = self->no_legend ? 0 : 10 + 4 + self->p->text_height + 6;
	avail_w = MAX(0, width - 8) * scale;
	avail_h = MAX(0, height - 8 - legend_h) * scale;
	self->scale = scale;
	self->cell_dp = 0;
	if (self->rows && self->cols)
		self->cell_dp = MIN(avail_w / (int)self->cols, avail_h / (int)self->rows);
	self->cell_dp = MAX(self->cell_dp, 1);
	self->ox_dp = (width * scale - self->cell_dp * (int)self->cols) / 2;
	self->oy_dp = 4 * scale;
	grid = GRAPHENE_RECT_INIT((float)self->ox_dp / scale, (float)self->oy_dp / scale,
	                          (float)(self->cell_dp * self->cols) / scale,
	                          (float)(self->cell_dp * self->rows) / scale);
	tsc_plot_set_area(plot, &grid);
	self->legend = GRAPHENE_RECT_INIT(MAX(grid.origin.x, 4), grid.origin.y + grid.size.height + 8,
	                                  MIN(MAX(grid.size.width, 120), width - 8), 10);
}

static gint64 tsc_heatmap_hit_test(TscPlot *plot, double x, double y, guint *first, guint *n)
{
	TscHeatmap *self = TSC_HEATMAP(plot);
	double xd, yd;
	int c, r;

	if (!self->rows || !self->cols)
		return -1;
	xd = x * self->scale - self->ox_dp;
	yd = y * self->scale - self->oy_dp;
	if (xd < 0 || yd < 0)
		return -1;
	c = (int)(xd / self->cell_dp);
	r = (int)(yd / self->cell_dp);
	if (c >= (int)self->cols || r >= (int)self->rows)
		return -1;
	if (isnan(self->values[(gsize)r * self->cols + c]))
		return -1;
	*first = (guint)r * self->cols + (guint)c;
	*n = 1;
	return *first;
}

/* The logical rectangle of a cell. */
static graphene_rect_t cell_rect(TscHeatmap *self, guint cell)
{
	double s = self->scale;
	guint r = cell / self->cols, c = cell % self->cols;

	return GRAPHENE_RECT_INIT((float)((self->ox_dp + (double)c * self->cell_dp) / s),
	                          (float)((self->oy_dp + (double)r * self->cell_dp) / s),
	                          (float)(self->cell_dp / s), (float)(self->cell_dp / s));
}

/* The cell nearest to (x, y), clamped into the grid (for rubber bands). */
static guint clamped_cell(TscHeatmap *self, double x, double y)
{
	double s = self->scale;
	int c = (int)floor((x * s - self->ox_dp) / self->cell_dp);
	int r = (int)floor((y * s - self->oy_dp) / self->cell_dp);

	c = CLAMP(c, 0, (int)self->cols - 1);
	r = CLAMP(r, 0, (int)self->rows - 1);
	return (guint)r * self->cols + (guint)c;
}

/* --- Drawing ------------------------------------------------------------------ */

/* A texture of the grid at device pixels; NULL for an empty grid.
 * `colour_of` gives a cell's colour (FALSE: none); a non-zero `ring`
 * paints only a frame that many pixels wide inside each cell, with the
 * inside in `colour_of`'s colour at alpha `inner_alpha`. */
static GdkTexture *grid_texture(TscHeatmap *self, gboolean (*colour_of)(TscHeatmap *, guint, guint8 *),
                                int ring, guint8 inner_alpha)
{
	int cell = self->cell_dp, gap = cell >= 4 ? 1 : 0, inner = cell - gap;
	gsize w = (gsize)cell * self->cols, h = (gsize)cell * self->rows, stride = w * 4;
	guint8 *px, rgba[4], inside[4];
	GBytes *bytes;
	GdkTexture *t;
	guint r, c;
	int y, x;

	if (!w || !h)
		return NULL;
	px = g_malloc0(stride * h);
	for (r = 0; r < self->rows; r++) {
		for (c = 0; c < self->cols; c++) {
			if (!colour_of(self, r * self->cols + c, rgba))
				continue;
			memcpy(inside, rgba, 4);
			if (ring)
				inside[3] = inner_alpha;
			for (y = 0; y < inner; y++) {
				guint8 *row = px + ((gsize)r * cell + y) * stride + (gsize)c * cell * 4;

				for (x = 0; x < inner; x++) {
					gboolean edge = ring && (x < ring || y < ring || x >= inner - ring || y >= inner - ring);

					memcpy(row + 4 * x, !ring || edge ? rgba : inside, 4);
				}
			}
		}
	}
	bytes = g_bytes_new_take(px, stride * h);
	t = gdk_memory_texture_new((int)w, (int)h, GDK_MEMORY_R8G8B8A8, bytes, stride);
	g_bytes_unref(bytes);
	return t;
}

static gboolean value_colour(TscHeatmap *self, guint cell, guint8 *rgba)
{
	double v = self->values[cell], lo, hi, t;

	if (isnan(v))
		return FALSE;
	value_range(self, &lo, &hi);
	t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
	memcpy(rgba, self->ramp[(int)lround(CLAMP(t, 0, 1) * (RAMP_SIZE - 1))], 4);
	return TRUE;
}

static gboolean selection_colour(TscHeatmap *self, guint cell, guint8 *rgba)
{
	if (!gtk_bitset_contains(self->p->selection, cell))
		return FALSE;
	/* A hot pink the ramp never uses (dark purple to yellow), so a frame
	 * stands out on any cell, in light and dark themes alike. */
	(void)self;
	rgba[0] = 0xff;
	rgba[1] = 0x3e;
	rgba[2] = 0xa5;
	rgba[3] = 255;
	return TRUE;
}

static void draw_legend(TscHeatmap *self, GtkSnapshot *s)
{
	GskColorStop stops[8];
	GdkRGBA text = tsc_rgba_alpha(&self->p->fg, 0.8);
	const graphene_rect_t *l = &self->legend;
	double lo, hi;
	char *a, *b;
	guint i;

	if (!n_cells(self) || self->no_legend)
		return;
	for (i = 0; i < G_N_ELEMENTS(stops); i++) {
		const guint8 *c = self->ramp[i * (RAMP_SIZE - 1) / (G_N_ELEMENTS(stops) - 1)];

		stops[i].offset = (float)i / (G_N_ELEMENTS(stops) - 1);
		stops[i].color = (GdkRGBA){ c[0] / 255.f, c[1] / 255.f, c[2] / 255.f, c[3] / 255.f };
	}
	gtk_snapshot_append_linear_gradient(s, l, &l->origin,
		&GRAPHENE_POINT_INIT(l->origin.x + l->size.width, l->origin.y), stops, G_N_ELEMENTS(stops));
	value_range(self, &lo, &hi);
	a = tsc_plot_format_value(TSC_PLOT(self), lo);
	b = tsc_plot_format_value(TSC_PLOT(self), hi);
	tsc_text(s, self->p->layout, a, l->origin.x, l->origin.y + l->size.height + 3, 0, &text);
	tsc_text(s, self->p->layout, b, l->origin.x + l->size.width, l->origin.y + l->size.height + 3, 1, &text);
	g_free(a);
	g_free(b);
}

static void tsc_heatmap_build_layer(TscPlot *plot, GtkSnapshot *s)
{
	TscHeatmap *self = TSC_HEATMAP(plot);
	GdkTexture *t = grid_texture(self, value_colour, 0, 0);

	if (t) {
		/* Bounds equal to the texture's device size: drawn 1:1. */
		gtk_snapshot_append_texture(s, t, &self->p->area);
		g_object_unref(t);
	}
	draw_legend(self, s);
}

static void tsc_heatmap_draw_overlay(TscPlot *plot, GtkSnapshot *snapshot)
{
	TscHeatmap *self = TSC_HEATMAP(plot);
	TscPlotPrivate *p = self->p;

	if (gtk_bitset_is_empty(p->selection)) {
		g_clear_pointer(&self->selection_cache, gsk_render_node_unref);
	} else if (!self->selection_cache || self->selection_serial != p->selection_serial ||
	           self->selection_generation != p->generation) {
		/* A frame, the inside lightly veiled so the value still shows. */
		GdkTexture *t = grid_texture(self, selection_colour, MAX(1, self->cell_dp / 4), 60);

		g_clear_pointer(&self->selection_cache, gsk_render_node_unref);
		if (t) {
			self->selection_cache = gsk_texture_node_new(t, &p->area);
			g_object_unref(t);
		}
		self->selection_serial = p->selection_serial;
		self->selection_generation = p->generation;
	}
	if (self->selection_cache)
		gtk_snapshot_append_node(snapshot, self->selection_cache);
	if (p->hover >= 0 && (guint)p->hover < n_cells(self)) {
		graphene_rect_t r = cell_rect(self, (guint)p->hover);

		tsc_outline(snapshot, &p->fg, r.origin.x, r.origin.y, r.size.width, r.size.height);
	}
	if (gtk_widget_has_focus(GTK_WIDGET(self)) && p->focus < n_cells(self)) {
		graphene_rect_t r = cell_rect(self, p->focus);

		tsc_outline(snapshot, &p->accent, r.origin.x - 1, r.origin.y - 1, r.size.width + 2,
		            r.size.height + 2);
	}
	if (p->drag_mode == TSC_DRAG_RUBBER)
		tsc_plot_draw_band(plot, snapshot, MIN(p->drag_x0, p->drag_x1), MIN(p->drag_y0, p->drag_y1),
		                   fabs(p->drag_x1 - p->drag_x0), fabs(p->drag_y1 - p->drag_y0));
}

/* --- Selection, focus and description ------------------------------------------ */

/* The rectangle of cells with corners a and b. */
static void tsc_heatmap_add_between(TscPlot *plot, GtkBitset *set, guint a, guint b)
{
	TscHeatmap *self = TSC_HEATMAP(plot);
	guint r0 = MIN(a / self->cols, b / self->cols), r1 = MAX(a / self->cols, b / self->cols);
	guint c0 = MIN(a % self->cols, b % self->cols), c1 = MAX(a % self->cols, b % self->cols);

	gtk_bitset_add_rectangle(set, r0 * self->cols + c0, c1 - c0 + 1, r1 - r0 + 1, self->cols);
}

static gboolean tsc_heatmap_band_items(TscPlot *plot, double x0, double y0, double x1, double y1,
                                       guint *a, guint *b)
{
	TscHeatmap *self = TSC_HEATMAP(plot);

	*a = clamped_cell(self, x0, y0);
	*b = clamped_cell(self, x1, y1);
	return TRUE;
}

/* The arrows move one cell, stopping at the grid's edges. */
static gboolean tsc_heatmap_move_focus(TscPlot *plot, int dx, int dy, guint *out_item)
{
	TscHeatmap *self = TSC_HEATMAP(plot);
	int r = CLAMP((int)(self->p->focus / self->cols) + dy, 0, (int)self->rows - 1);
	int c = CLAMP((int)(self->p->focus % self->cols) + dx, 0, (int)self->cols - 1);

	*out_item = (guint)r * self->cols + (guint)c;
	return TRUE;
}

static double tsc_heatmap_item_value(TscPlot *plot, guint cell)
{
	return TSC_HEATMAP(plot)->values[cell];
}

static char *tsc_heatmap_default_item_label(TscPlot *plot, guint cell)
{
	TscHeatmap *self = TSC_HEATMAP(plot);

	return g_strdup_printf("Cell %u (row %u, column %u)", cell, cell / MAX(1, self->cols),
	                       cell % MAX(1, self->cols));
}

static void tsc_heatmap_describe(TscPlot *plot, GString *s)
{
	TscHeatmap *self = TSC_HEATMAP(plot);
	char *lo = tsc_plot_format_value(plot, self->data_min);

	g_string_append_printf(s, "%u by %u cells; minimum %s; maximum ", self->rows, self->cols, lo);
	g_free(lo);
	tsc_plot_append_item(plot, s, self->argmax);
}

static gboolean tsc_heatmap_tooltip(TscPlot *plot, GString *s, guint cell, guint first, guint n)
{
	if (isnan(TSC_HEATMAP(plot)->values[cell]))
		return FALSE;
	tsc_plot_append_item(plot, s, cell);
	return TRUE;
}

/* --- Data ------------------------------------------------------------------------- */

void tsc_heatmap_set_data(TscHeatmap *self, guint rows, guint columns, const double *values)
{
	gboolean new_shape;
	guint i, n;

	g_return_if_fail(TSC_IS_HEATMAP(self));
	g_return_if_fail(rows == 0 || columns == 0 || values);
	new_shape = rows != self->rows || columns != self->cols;
	n = rows * columns;
	g_free(self->values);
	self->values = n ? g_memdup2(values, sizeof(double) * n) : NULL;
	self->rows = n ? rows : 0;
	self->cols = n ? columns : 0;
	self->data_min = INFINITY;
	self->data_max = -INFINITY;
	self->argmax = 0;
	for (i = 0; i < n; i++) {
		double v = self->values[i];

		if (isnan(v))
			continue;
		if (v < self->data_min)
			self->data_min = v;
		if (v > self->data_max) {
			self->data_max = v;
			self->argmax = i;
		}
	}
	if (self->data_min > self->data_max)
		self->data_min = self->data_max = 0;
	/* A new shape clears the selection, even of as many cells. */
	tsc_plot_data_changed(TSC_PLOT(self), n, new_shape);
}

guint tsc_heatmap_get_n_rows(TscHeatmap *self)
{
	g_return_val_if_fail(TSC_IS_HEATMAP(self), 0);
	return self->rows;
}

guint tsc_heatmap_get_n_columns(TscHeatmap *self)
{
	g_return_val_if_fail(TSC_IS_HEATMAP(self), 0);
	return self->cols;
}

void tsc_heatmap_set_range(TscHeatmap *self, double min, double max)
{
	g_return_if_fail(TSC_IS_HEATMAP(self));
	self->range_min = min;
	self->range_max = max;
	tsc_plot_invalidate_cache(TSC_PLOT(self));
}

void tsc_heatmap_set_legend_visible(TscHeatmap *self, gboolean visible)
{
	g_return_if_fail(TSC_IS_HEATMAP(self));
	self->no_legend = !visible;
	tsc_plot_invalidate_geometry(TSC_PLOT(self));
	gtk_widget_queue_resize(GTK_WIDGET(self));
}

void tsc_heatmap_set_ramp(TscHeatmap *self, const GdkRGBA *stops, guint n_stops)
{
	g_return_if_fail(TSC_IS_HEATMAP(self));
	g_return_if_fail(!stops || n_stops >= 2);
	g_free(self->stops);
	self->stops = stops ? g_memdup2(stops, sizeof(GdkRGBA) * n_stops) : NULL;
	self->n_stops = stops ? n_stops : 0;
	build_ramp(self);
	tsc_plot_invalidate_cache(TSC_PLOT(self));
}

/* --- GObject ------------------------------------------------------------------------ */

static void tsc_heatmap_finalize(GObject *object)
{
	TscHeatmap *self = TSC_HEATMAP(object);

	g_free(self->values);
	g_free(self->stops);
	g_clear_pointer(&self->selection_cache, gsk_render_node_unref);
	G_OBJECT_CLASS(tsc_heatmap_parent_class)->finalize(object);
}

static void tsc_heatmap_class_init(TscHeatmapClass *klass)
{
	TscPlotClass *plot_class = TSC_PLOT_CLASS(klass);

	G_OBJECT_CLASS(klass)->finalize = tsc_heatmap_finalize;
	/* The base's sizes; all cells always show. */
	plot_class->item_noun = "cells";
	TSC_PLOT_CLASS_SET_HOOKS(plot_class, tsc_heatmap);
	gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "tsc-heatmap");
}

static void tsc_heatmap_init(TscHeatmap *self)
{
	self->p = tsc_plot_priv(TSC_PLOT(self));
	self->range_min = self->range_max = NAN;
	build_ramp(self);
}

GtkWidget *tsc_heatmap_new(void)
{
	return g_object_new(TSC_TYPE_HEATMAP, NULL);
}
