/*
 * TscHeatmap (tsc-heatmap.h): a grid of cells coloured through a ramp,
 * drawn as one texture at device pixels, with a legend, hit testing,
 * selection, tooltips and an accessible description.
 *
 * The grid texture and the legend are one cached render node, rebuilt
 * when the data, ramp, theme, size or scale changes. The selection is a
 * second texture of the same size, rebuilt when the selection changes;
 * hover, focus and the rubber band are drawn every frame.
 */
#include <tilescope/tsc-heatmap.h>
#include <tilescope/tsc-input.h>

#include "tsc-util-private.h"

#include <math.h>
#include <string.h>

#define RAMP_SIZE 256
#define DRAG_THRESHOLD 3.0

typedef enum { DRAG_NONE, DRAG_PENDING, DRAG_RUBBER } DragMode;
typedef enum { SELECT_REPLACE, SELECT_ADD, SELECT_TOGGLE } SelectMode;

struct _TscHeatmap {
	GtkWidget parent_instance;

	char *label;
	guint rows, cols;
	double *values;            /* rows × cols, row-major; NaN: no cell */
	double data_min, data_max; /* over the non-NaN values */
	guint argmax;
	double range_min, range_max; /* set by the app; NaN: the data's */
	GdkRGBA *stops;
	guint n_stops;
	guint8 ramp[RAMP_SIZE][4]; /* RGBA, from the stops */

	TscFormatFunc value_format;
	gpointer value_format_data;
	GDestroyNotify value_format_destroy;
	TscItemLabelFunc cell_label;
	gpointer cell_label_data;
	GDestroyNotify cell_label_destroy;

	/* Geometry, in device pixels for the grid (scale = device per logical). */
	gboolean geometry_valid;
	int geom_width, geom_height, geom_scale;
	int cell_dp;               /* cell pitch, device px */
	int ox_dp, oy_dp;          /* grid origin, device px */
	graphene_rect_t grid;      /* the same in logical px */
	graphene_rect_t legend;    /* the ramp bar */
	int text_height;
	PangoLayout *layout;
	GdkRGBA fg, accent;

	GskRenderNode *cache;
	GskRenderNode *selection_cache;
	guint64 generation;

	GtkBitset *selection;
	gint64 hover;
	guint focus;
	guint anchor;
	DragMode drag_mode;
	double drag_x0, drag_y0, drag_x1, drag_y1;
	GdkModifierType drag_mods;
};

enum { SIGNAL_SELECTION_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE(TscHeatmap, tsc_heatmap, GTK_TYPE_WIDGET)

static void update_description(TscHeatmap *self);

static char *format_value(TscHeatmap *self, double v)
{
	return self->value_format ? self->value_format(v, self->value_format_data)
	                          : tsc_format_thousands(v, NULL);
}

static char *format_cell(TscHeatmap *self, guint cell)
{
	if (self->cell_label)
		return self->cell_label(cell, self->cell_label_data);
	return g_strdup_printf("Cell %u (row %u, column %u)", cell, cell / MAX(1, self->cols),
	                       cell % MAX(1, self->cols));
}

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

static void invalidate_cache(TscHeatmap *self)
{
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	g_clear_pointer(&self->selection_cache, gsk_render_node_unref);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void invalidate_geometry(TscHeatmap *self)
{
	self->geometry_valid = FALSE;
	invalidate_cache(self);
}

static void ensure_geometry(TscHeatmap *self)
{
	GtkWidget *w = GTK_WIDGET(self);
	int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
	int scale = gtk_widget_get_scale_factor(w), tw, th, avail_w, avail_h, legend_h;

	if (self->geometry_valid && width == self->geom_width && height == self->geom_height &&
	    scale == self->geom_scale)
		return;
	if (!self->layout)
		self->layout = gtk_widget_create_pango_layout(w, NULL);
	tsc_theme_colours(w, &self->fg, &self->accent);
	tsc_text_size(self->layout, "0", &tw, &th);
	self->text_height = th;
	legend_h = 10 + 4 + th + 6;
	avail_w = MAX(0, width - 8) * scale;
	avail_h = MAX(0, height - 8 - legend_h) * scale;
	self->cell_dp = 0;
	if (self->rows && self->cols)
		self->cell_dp = MIN(avail_w / (int)self->cols, avail_h / (int)self->rows);
	self->cell_dp = MAX(self->cell_dp, 1);
	self->ox_dp = (width * scale - self->cell_dp * (int)self->cols) / 2;
	self->oy_dp = 4 * scale;
	self->grid = GRAPHENE_RECT_INIT((float)self->ox_dp / scale, (float)self->oy_dp / scale,
	                                (float)(self->cell_dp * self->cols) / scale,
	                                (float)(self->cell_dp * self->rows) / scale);
	self->legend = GRAPHENE_RECT_INIT(MAX(self->grid.origin.x, 4),
	                                  self->grid.origin.y + self->grid.size.height + 8,
	                                  MIN(MAX(self->grid.size.width, 120), width - 8), 10);
	self->geom_width = width;
	self->geom_height = height;
	self->geom_scale = scale;
	self->geometry_valid = TRUE;
}

gint64 tsc_heatmap_cell_at(TscHeatmap *self, double x, double y)
{
	int scale, c, r;
	double xd, yd;

	g_return_val_if_fail(TSC_IS_HEATMAP(self), -1);
	ensure_geometry(self);
	if (!self->rows || !self->cols)
		return -1;
	scale = self->geom_scale;
	xd = x * scale - self->ox_dp;
	yd = y * scale - self->oy_dp;
	if (xd < 0 || yd < 0)
		return -1;
	c = (int)(xd / self->cell_dp);
	r = (int)(yd / self->cell_dp);
	if (c >= (int)self->cols || r >= (int)self->rows)
		return -1;
	if (isnan(self->values[(gsize)r * self->cols + c]))
		return -1;
	return (gint64)r * self->cols + c;
}

void tsc_heatmap_get_grid_area(TscHeatmap *self, graphene_rect_t *out)
{
	g_return_if_fail(TSC_IS_HEATMAP(self));
	ensure_geometry(self);
	*out = self->grid;
}

/* The logical rectangle of a cell. */
static graphene_rect_t cell_rect(TscHeatmap *self, guint cell)
{
	double s = self->geom_scale;
	guint r = cell / self->cols, c = cell % self->cols;

	return GRAPHENE_RECT_INIT((float)((self->ox_dp + (double)c * self->cell_dp) / s),
	                          (float)((self->oy_dp + (double)r * self->cell_dp) / s),
	                          (float)(self->cell_dp / s), (float)(self->cell_dp / s));
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
	if (!gtk_bitset_contains(self->selection, cell))
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
	GdkRGBA text = tsc_rgba_alpha(&self->fg, 0.8);
	const graphene_rect_t *l = &self->legend;
	double lo, hi;
	char *a, *b;
	guint i;

	if (!n_cells(self))
		return;
	for (i = 0; i < G_N_ELEMENTS(stops); i++) {
		const guint8 *c = self->ramp[i * (RAMP_SIZE - 1) / (G_N_ELEMENTS(stops) - 1)];

		stops[i].offset = (float)i / (G_N_ELEMENTS(stops) - 1);
		stops[i].color = (GdkRGBA){ c[0] / 255.f, c[1] / 255.f, c[2] / 255.f, c[3] / 255.f };
	}
	gtk_snapshot_append_linear_gradient(s, l, &l->origin,
		&GRAPHENE_POINT_INIT(l->origin.x + l->size.width, l->origin.y), stops, G_N_ELEMENTS(stops));
	value_range(self, &lo, &hi);
	a = format_value(self, lo);
	b = format_value(self, hi);
	tsc_text(s, self->layout, a, l->origin.x, l->origin.y + l->size.height + 3, 0, &text);
	tsc_text(s, self->layout, b, l->origin.x + l->size.width, l->origin.y + l->size.height + 3, 1, &text);
	g_free(a);
	g_free(b);
}

static GskRenderNode *build_layer(TscHeatmap *self)
{
	GtkSnapshot *s = gtk_snapshot_new();
	GdkTexture *t = grid_texture(self, value_colour, 0, 0);

	if (t) {
		/* Bounds equal to the texture's device size: drawn 1:1. */
		gtk_snapshot_append_texture(s, t, &self->grid);
		g_object_unref(t);
	}
	draw_legend(self, s);
	self->generation++;
	return gtk_snapshot_free_to_node(s);
}

static void tsc_heatmap_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	TscHeatmap *self = TSC_HEATMAP(widget);

	ensure_geometry(self);
	if (!self->cache)
		self->cache = build_layer(self);
	if (self->cache)
		gtk_snapshot_append_node(snapshot, self->cache);
	if (!self->selection_cache && !gtk_bitset_is_empty(self->selection)) {
		/* A frame, the inside lightly veiled so the value still shows. */
		GdkTexture *t = grid_texture(self, selection_colour, MAX(1, self->cell_dp / 4), 60);

		if (t) {
			self->selection_cache = gsk_texture_node_new(t, &self->grid);
			g_object_unref(t);
		}
	}
	if (self->selection_cache && !gtk_bitset_is_empty(self->selection))
		gtk_snapshot_append_node(snapshot, self->selection_cache);
	if (self->hover >= 0 && (guint)self->hover < n_cells(self)) {
		graphene_rect_t r = cell_rect(self, (guint)self->hover);

		tsc_outline(snapshot, &self->fg, r.origin.x, r.origin.y, r.size.width, r.size.height);
	}
	if (gtk_widget_has_focus(widget) && self->focus < n_cells(self)) {
		graphene_rect_t r = cell_rect(self, self->focus);

		tsc_outline(snapshot, &self->accent, r.origin.x - 1, r.origin.y - 1, r.size.width + 2,
		            r.size.height + 2);
	}
	if (self->drag_mode == DRAG_RUBBER) {
		GdkRGBA fill = tsc_rgba_alpha(&self->accent, 0.15);
		double x = MIN(self->drag_x0, self->drag_x1), y = MIN(self->drag_y0, self->drag_y1);
		double w = fabs(self->drag_x1 - self->drag_x0), h = fabs(self->drag_y1 - self->drag_y0);

		tsc_rect(snapshot, &fill, x, y, w, h);
		tsc_outline(snapshot, &self->accent, x, y, w, h);
	}
}

/* --- Selection ------------------------------------------------------------------ */

GtkBitset *tsc_heatmap_get_selection(TscHeatmap *self)
{
	g_return_val_if_fail(TSC_IS_HEATMAP(self), NULL);
	return self->selection;
}

void tsc_heatmap_set_selection(TscHeatmap *self, const GtkBitset *selection)
{
	GtkBitset *next;

	g_return_if_fail(TSC_IS_HEATMAP(self));
	next = selection ? gtk_bitset_copy(selection) : gtk_bitset_new_empty();
	if (n_cells(self) < G_MAXUINT)
		gtk_bitset_remove_range_closed(next, n_cells(self), G_MAXUINT);
	if (gtk_bitset_equals(next, self->selection)) {
		gtk_bitset_unref(next);
		return;
	}
	gtk_bitset_unref(self->selection);
	self->selection = next;
	g_clear_pointer(&self->selection_cache, gsk_render_node_unref);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
	update_description(self);
}

/* Selects the rectangle of cells between cells a and b. */
static void select_rect(TscHeatmap *self, guint a, guint b, SelectMode mode)
{
	GtkBitset *next = mode == SELECT_REPLACE ? gtk_bitset_new_empty() : gtk_bitset_copy(self->selection);
	GtkBitset *rect = gtk_bitset_new_empty();
	guint r0 = MIN(a / self->cols, b / self->cols), r1 = MAX(a / self->cols, b / self->cols);
	guint c0 = MIN(a % self->cols, b % self->cols), c1 = MAX(a % self->cols, b % self->cols);

	gtk_bitset_add_rectangle(rect, r0 * self->cols + c0, c1 - c0 + 1, r1 - r0 + 1, self->cols);
	if (mode == SELECT_TOGGLE)
		gtk_bitset_difference(next, rect);
	else
		gtk_bitset_union(next, rect);
	tsc_heatmap_set_selection(self, next);
	gtk_bitset_unref(rect);
	gtk_bitset_unref(next);
}

/* --- Description and tooltip -------------------------------------------------- */

static void append_cell(TscHeatmap *self, GString *s, guint cell)
{
	char *name = format_cell(self, cell), *v = format_value(self, self->values[cell]);

	g_string_append_printf(s, "%s, %s", name, v);
	g_free(name);
	g_free(v);
}

static void update_description(TscHeatmap *self)
{
	GString *s = g_string_new(NULL);
	guint64 n_sel;

	if (!n_cells(self)) {
		g_string_append(s, "No data");
	} else {
		char *lo = format_value(self, self->data_min);

		g_string_append_printf(s, "%u by %u cells; minimum %s; maximum ", self->rows, self->cols, lo);
		g_free(lo);
		append_cell(self, s, self->argmax);
		if (self->hover >= 0) {
			g_string_append(s, "; hovered ");
			append_cell(self, s, (guint)self->hover);
		}
		n_sel = gtk_bitset_get_size(self->selection);
		if (n_sel == 1) {
			g_string_append(s, "; selected ");
			append_cell(self, s, gtk_bitset_get_minimum(self->selection));
		} else if (n_sel > 1) {
			g_string_append_printf(s, "; %" G_GUINT64_FORMAT " cells selected", n_sel);
		}
	}
	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
	                               s->str, -1);
	g_string_free(s, TRUE);
}

static gboolean tsc_heatmap_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard,
                                          GtkTooltip *tooltip)
{
	TscHeatmap *self = TSC_HEATMAP(widget);
	gint64 cell = keyboard ? (n_cells(self) ? (gint64)self->focus : -1) : tsc_heatmap_cell_at(self, x, y);
	GString *s;

	if (cell < 0 || isnan(self->values[cell]))
		return FALSE;
	s = g_string_new(NULL);
	append_cell(self, s, (guint)cell);
	gtk_tooltip_set_text(tooltip, s->str);
	g_string_free(s, TRUE);
	return TRUE;
}

/* --- Input ------------------------------------------------------------------------- */

static void set_hover(TscHeatmap *self, gint64 cell)
{
	if (cell == self->hover)
		return;
	self->hover = cell;
	gtk_widget_queue_draw(GTK_WIDGET(self));
	update_description(self);
}

static void on_motion(GtkEventControllerMotion *c, double x, double y, TscHeatmap *self)
{
	set_hover(self, tsc_heatmap_cell_at(self, x, y));
}

static void on_leave(GtkEventControllerMotion *c, TscHeatmap *self)
{
	set_hover(self, -1);
}

/* The cell nearest to (x, y), clamped into the grid (for rubber bands). */
static guint clamped_cell(TscHeatmap *self, double x, double y)
{
	double s = self->geom_scale;
	int c = (int)floor((x * s - self->ox_dp) / self->cell_dp);
	int r = (int)floor((y * s - self->oy_dp) / self->cell_dp);

	c = CLAMP(c, 0, (int)self->cols - 1);
	r = CLAMP(r, 0, (int)self->rows - 1);
	return (guint)r * self->cols + (guint)c;
}

static void click(TscHeatmap *self, double x, double y, GdkModifierType mods)
{
	gint64 cell = tsc_heatmap_cell_at(self, x, y);

	if (cell < 0) {
		if (!(mods & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)))
			tsc_heatmap_set_selection(self, NULL);
		return;
	}
	self->focus = (guint)cell;
	if (mods & GDK_SHIFT_MASK) {
		select_rect(self, self->anchor, (guint)cell, (mods & GDK_CONTROL_MASK) ? SELECT_ADD : SELECT_REPLACE);
	} else {
		self->anchor = (guint)cell;
		if (mods & GDK_CONTROL_MASK)
			select_rect(self, (guint)cell, (guint)cell,
			            gtk_bitset_contains(self->selection, (guint)cell) ? SELECT_TOGGLE : SELECT_ADD);
		else
			select_rect(self, (guint)cell, (guint)cell, SELECT_REPLACE);
	}
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, TscHeatmap *self)
{
	self->drag_x0 = self->drag_x1 = x;
	self->drag_y0 = self->drag_y1 = y;
	self->drag_mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(g));
	self->drag_mode = DRAG_PENDING;
	gtk_gesture_set_state(GTK_GESTURE(g), GTK_EVENT_SEQUENCE_CLAIMED);
	gtk_widget_grab_focus(GTK_WIDGET(self));
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, TscHeatmap *self)
{
	if (self->drag_mode == DRAG_PENDING && (fabs(dx) >= DRAG_THRESHOLD || fabs(dy) >= DRAG_THRESHOLD))
		self->drag_mode = DRAG_RUBBER;
	if (self->drag_mode == DRAG_RUBBER) {
		self->drag_x1 = self->drag_x0 + dx;
		self->drag_y1 = self->drag_y0 + dy;
		gtk_widget_queue_draw(GTK_WIDGET(self));
	}
}

static void on_drag_end(GtkGestureDrag *g, double dx, double dy, TscHeatmap *self)
{
	if (self->drag_mode == DRAG_PENDING) {
		click(self, self->drag_x0, self->drag_y0, self->drag_mods);
	} else if (self->drag_mode == DRAG_RUBBER && n_cells(self)) {
		guint a = clamped_cell(self, self->drag_x0, self->drag_y0);
		guint b = clamped_cell(self, self->drag_x0 + dx, self->drag_y0 + dy);

		self->anchor = a;
		self->focus = b;
		select_rect(self, a, b,
		            (self->drag_mods & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)) ? SELECT_ADD : SELECT_REPLACE);
	}
	self->drag_mode = DRAG_NONE;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint keycode, GdkModifierType mods,
                       TscHeatmap *self)
{
	int r, col, dr = 0, dc = 0;

	if (!n_cells(self))
		return FALSE;
	switch (keyval) {
	case GDK_KEY_Left: case GDK_KEY_KP_Left: dc = -1; break;
	case GDK_KEY_Right: case GDK_KEY_KP_Right: dc = 1; break;
	case GDK_KEY_Up: case GDK_KEY_KP_Up: dr = -1; break;
	case GDK_KEY_Down: case GDK_KEY_KP_Down: dr = 1; break;
	case GDK_KEY_space:
	case GDK_KEY_Return:
	case GDK_KEY_KP_Enter:
		select_rect(self, self->focus, self->focus,
		            !(mods & GDK_CONTROL_MASK) ? SELECT_REPLACE
		            : gtk_bitset_contains(self->selection, self->focus) ? SELECT_TOGGLE : SELECT_ADD);
		self->anchor = self->focus;
		return TRUE;
	case GDK_KEY_Escape:
		if (gtk_bitset_is_empty(self->selection))
			return FALSE;
		tsc_heatmap_set_selection(self, NULL);
		return TRUE;
	default:
		return FALSE;
	}
	r = CLAMP((int)(self->focus / self->cols) + dr, 0, (int)self->rows - 1);
	col = CLAMP((int)(self->focus % self->cols) + dc, 0, (int)self->cols - 1);
	self->focus = (guint)r * self->cols + (guint)col;
	if (mods & GDK_SHIFT_MASK)
		select_rect(self, self->anchor, self->focus, SELECT_REPLACE);
	else
		self->anchor = self->focus;
	gtk_widget_queue_draw(GTK_WIDGET(self));
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
	if (new_shape) {
		self->focus = self->anchor = 0;
		self->hover = -1;
		tsc_heatmap_set_selection(self, NULL);
	}
	invalidate_geometry(self);
	update_description(self);
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
	invalidate_cache(self);
}

void tsc_heatmap_set_ramp(TscHeatmap *self, const GdkRGBA *stops, guint n_stops)
{
	g_return_if_fail(TSC_IS_HEATMAP(self));
	g_return_if_fail(!stops || n_stops >= 2);
	g_free(self->stops);
	self->stops = stops ? g_memdup2(stops, sizeof(GdkRGBA) * n_stops) : NULL;
	self->n_stops = stops ? n_stops : 0;
	build_ramp(self);
	invalidate_cache(self);
}

void tsc_heatmap_set_value_format_func(TscHeatmap *self, TscFormatFunc func, gpointer user_data,
                                       GDestroyNotify destroy)
{
	g_return_if_fail(TSC_IS_HEATMAP(self));
	if (self->value_format_destroy)
		self->value_format_destroy(self->value_format_data);
	self->value_format = func;
	self->value_format_data = user_data;
	self->value_format_destroy = destroy;
	invalidate_cache(self);
	update_description(self);
}

void tsc_heatmap_set_cell_label_func(TscHeatmap *self, TscItemLabelFunc func, gpointer user_data,
                                     GDestroyNotify destroy)
{
	g_return_if_fail(TSC_IS_HEATMAP(self));
	if (self->cell_label_destroy)
		self->cell_label_destroy(self->cell_label_data);
	self->cell_label = func;
	self->cell_label_data = user_data;
	self->cell_label_destroy = destroy;
	update_description(self);
}

void tsc_heatmap_set_label(TscHeatmap *self, const char *label)
{
	g_return_if_fail(TSC_IS_HEATMAP(self));
	g_free(self->label);
	self->label = g_strdup(label);
	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               label ? label : "", -1);
}

guint64 tsc_heatmap_get_render_generation(TscHeatmap *self)
{
	g_return_val_if_fail(TSC_IS_HEATMAP(self), 0);
	return self->generation;
}

/* --- GObject and GtkWidget --------------------------------------------------------- */

static void tsc_heatmap_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *min_baseline, int *nat_baseline)
{
	*minimum = 60;
	*natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 400 : 300;
}

static void tsc_heatmap_size_allocate(GtkWidget *widget, int width, int height, int baseline)
{
	TscHeatmap *self = TSC_HEATMAP(widget);

	if (width != self->geom_width || height != self->geom_height)
		invalidate_geometry(self);
}

static void tsc_heatmap_css_changed(GtkWidget *widget, GtkCssStyleChange *change)
{
	TscHeatmap *self = TSC_HEATMAP(widget);

	GTK_WIDGET_CLASS(tsc_heatmap_parent_class)->css_changed(widget, change);
	if (tsc_theme_changed(widget, &self->fg, &self->accent) || !change) {
		g_clear_object(&self->layout);
		invalidate_geometry(self);
	}
}

static void on_scale_factor(GObject *o, GParamSpec *pspec, gpointer data)
{
	invalidate_geometry(TSC_HEATMAP(o));
}

static void tsc_heatmap_dispose(GObject *object)
{
	TscHeatmap *self = TSC_HEATMAP(object);

	g_clear_pointer(&self->cache, gsk_render_node_unref);
	g_clear_pointer(&self->selection_cache, gsk_render_node_unref);
	g_clear_object(&self->layout);
	if (self->value_format_destroy)
		self->value_format_destroy(self->value_format_data);
	self->value_format_destroy = NULL;
	if (self->cell_label_destroy)
		self->cell_label_destroy(self->cell_label_data);
	self->cell_label_destroy = NULL;
	G_OBJECT_CLASS(tsc_heatmap_parent_class)->dispose(object);
}

static void tsc_heatmap_finalize(GObject *object)
{
	TscHeatmap *self = TSC_HEATMAP(object);

	g_free(self->label);
	g_free(self->values);
	g_free(self->stops);
	gtk_bitset_unref(self->selection);
	G_OBJECT_CLASS(tsc_heatmap_parent_class)->finalize(object);
}

static void tsc_heatmap_class_init(TscHeatmapClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->dispose = tsc_heatmap_dispose;
	object_class->finalize = tsc_heatmap_finalize;
	widget_class->snapshot = tsc_heatmap_snapshot;
	widget_class->measure = tsc_heatmap_measure;
	widget_class->size_allocate = tsc_heatmap_size_allocate;
	widget_class->css_changed = tsc_heatmap_css_changed;
	widget_class->query_tooltip = tsc_heatmap_query_tooltip;

	/* Emitted after the selection changed (read it with get_selection). */
	signals[SIGNAL_SELECTION_CHANGED] = g_signal_new("selection-changed", G_TYPE_FROM_CLASS(klass),
		G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);

	gtk_widget_class_set_css_name(widget_class, "tsc-heatmap");
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void tsc_heatmap_init(TscHeatmap *self)
{
	static const TscInputHandlers input = {
		.enter = G_CALLBACK(on_motion),
		.motion = G_CALLBACK(on_motion),
		.leave = G_CALLBACK(on_leave),
		.drag_begin = G_CALLBACK(on_drag_begin),
		.drag_update = G_CALLBACK(on_drag_update),
		.drag_end = G_CALLBACK(on_drag_end),
		.drag_button = GDK_BUTTON_PRIMARY,
		.key_pressed = G_CALLBACK(on_key),
		.focus_change = G_CALLBACK(tsc_redraw_cb),
	};
	GtkWidget *w = GTK_WIDGET(self);

	self->selection = gtk_bitset_new_empty();
	self->hover = -1;
	self->range_min = self->range_max = NAN;
	build_ramp(self);
	gtk_widget_set_focusable(w, TRUE);
	gtk_widget_set_focus_on_click(w, TRUE);
	gtk_widget_set_has_tooltip(w, TRUE);
	gtk_widget_add_css_class(w, "view");
	tsc_widget_add_input(w, &input);
	g_signal_connect(self, "notify::scale-factor", G_CALLBACK(on_scale_factor), NULL);
	update_description(self);
}

GtkWidget *tsc_heatmap_new(void)
{
	return g_object_new(TSC_TYPE_HEATMAP, NULL);
}
