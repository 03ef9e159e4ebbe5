/*
 * TscPlot (tsc-plot.h): the scaffolding the chart and the heat map
 * share, written once: accessibility, formatters, theme and geometry
 * invalidation, the cached layer under a per-frame overlay, hover and
 * tooltips, selection with focus and anchor, pointer and keyboard input,
 * and the visible range with its zoom and pan. A subclass draws and hit
 * tests through the hooks of TscPlotClass.
 */
#include "tsc-plot-private.h"

#include <tilescope/tsc-input.h>

#include "tsc-util-private.h"

#include <math.h>

/* The fewest items the visible range holds (fewer when there are fewer). */
#define MIN_SPAN 4.0
/* A press that moves less than this (px) is a click. */
#define DRAG_THRESHOLD 3.0

enum { PROP_0, PROP_VISIBLE_START, PROP_VISIBLE_END, PROP_N_ITEMS, N_PROPS };
enum { SIGNAL_SELECTION_CHANGED, SIGNAL_RANGE_CHANGED, N_SIGNALS };
static GParamSpec *props[N_PROPS];
static guint signals[N_SIGNALS];

G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE(TscPlot, tsc_plot, GTK_TYPE_WIDGET)

#define PLOT_CLASS(self) TSC_PLOT_GET_CLASS(self)

TscPlotPrivate *tsc_plot_priv(TscPlot *self)
{
	return tsc_plot_get_instance_private(self);
}

/* --- Formatting and the description ---------------------------------------- */

char *tsc_plot_format_value(TscPlot *self, double value)
{
	TscPlotPrivate *p = tsc_plot_priv(self);

	return p->value_format.func ? ((TscFormatFunc)p->value_format.func)(value, p->value_format.data)
	                            : tsc_format_thousands(value, NULL);
}

char *tsc_plot_format_item(TscPlot *self, guint item)
{
	TscPlotPrivate *p = tsc_plot_priv(self);

	if (p->item_label.func)
		return ((TscItemLabelFunc)p->item_label.func)(item, p->item_label.data);
	return PLOT_CLASS(self)->default_item_label(self, item);
}

void tsc_plot_append_item(TscPlot *self, GString *out, guint item)
{
	char *name = tsc_plot_format_item(self, item);
	char *v = tsc_plot_format_value(self, PLOT_CLASS(self)->item_value(self, item));

	g_string_append_printf(out, "%s, %s", name, v);
	g_free(name);
	g_free(v);
}

void tsc_plot_update_description(TscPlot *self)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	GString *s = g_string_new(NULL);
	guint64 n_sel;

	if (p->n_items == 0) {
		g_string_append(s, "No data");
	} else {
		PLOT_CLASS(self)->describe(self, s);
		if (p->hover >= 0) {
			g_string_append(s, "; hovered ");
			tsc_plot_append_item(self, s, (guint)p->hover);
		}
		n_sel = gtk_bitset_get_size(p->selection);
		if (n_sel == 1) {
			g_string_append(s, "; selected ");
			tsc_plot_append_item(self, s, gtk_bitset_get_minimum(p->selection));
		} else if (n_sel > 1) {
			g_string_append_printf(s, "; %" G_GUINT64_FORMAT " %s selected", n_sel,
			                       PLOT_CLASS(self)->item_noun);
		}
	}
	if (g_strcmp0(s->str, p->description) != 0) {
		gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
		                               s->str, -1);
		g_free(p->description);
		p->description = g_string_free(s, FALSE);
	} else {
		g_string_free(s, TRUE);
	}
}

const char *tsc_plot_get_description(TscPlot *self)
{
	g_return_val_if_fail(TSC_IS_PLOT(self), NULL);
	return tsc_plot_priv(self)->description;
}

void tsc_plot_set_label(TscPlot *self, const char *label)
{
	TscPlotPrivate *p;

	g_return_if_fail(TSC_IS_PLOT(self));
	p = tsc_plot_priv(self);
	g_free(p->label);
	p->label = g_strdup(label);
	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               label ? label : "", -1);
}

const char *tsc_plot_get_label(TscPlot *self)
{
	g_return_val_if_fail(TSC_IS_PLOT(self), NULL);
	return tsc_plot_priv(self)->label;
}

/* Replaces an app's function, freeing the data of the one it had. */
static void callback_set(TscPlotCallback *c, GCallback func, gpointer data, GDestroyNotify destroy)
{
	TscPlotCallback old = *c;

	*c = (TscPlotCallback){ func, data, destroy };
	if (old.destroy)
		old.destroy(old.data);
}

void tsc_plot_set_value_format_func(TscPlot *self, TscFormatFunc func, gpointer user_data,
                                    GDestroyNotify destroy)
{
	g_return_if_fail(TSC_IS_PLOT(self));
	callback_set(&tsc_plot_priv(self)->value_format, (GCallback)func, user_data, destroy);
	/* Axis labels change width: the layout too. */
	tsc_plot_invalidate_geometry(self);
	tsc_plot_update_description(self);
}

void tsc_plot_set_item_label_func(TscPlot *self, TscItemLabelFunc func, gpointer user_data,
                                  GDestroyNotify destroy)
{
	g_return_if_fail(TSC_IS_PLOT(self));
	callback_set(&tsc_plot_priv(self)->item_label, (GCallback)func, user_data, destroy);
	tsc_plot_update_description(self);
}

/* --- Geometry and the cached layer ------------------------------------------ */

void tsc_plot_invalidate_cache(TscPlot *self)
{
	g_clear_pointer(&tsc_plot_priv(self)->cache, gsk_render_node_unref);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

void tsc_plot_invalidate_geometry(TscPlot *self)
{
	tsc_plot_priv(self)->geometry_valid = FALSE;
	tsc_plot_invalidate_cache(self);
}

void tsc_plot_set_area(TscPlot *self, const graphene_rect_t *area)
{
	TscPlotPrivate *p = tsc_plot_priv(self);

	p->area = *area;
	p->area_cols = (int)area->size.width;
}

void tsc_plot_ensure_geometry(TscPlot *self)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	GtkWidget *w = GTK_WIDGET(self);
	int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
	int scale = gtk_widget_get_scale_factor(w), tw, th;

	if (p->geometry_valid && width == p->geom_width && height == p->geom_height &&
	    scale == p->geom_scale)
		return;
	if (!p->layout)
		p->layout = gtk_widget_create_pango_layout(w, NULL);
	tsc_theme_colours(w, &p->fg, &p->accent);
	tsc_text_size(p->layout, "0", &tw, &th);
	p->text_height = th;
	PLOT_CLASS(self)->layout(self, width, height, scale);
	p->geom_width = width;
	p->geom_height = height;
	p->geom_scale = scale;
	p->geometry_valid = TRUE;
}

void tsc_plot_get_area(TscPlot *self, graphene_rect_t *out)
{
	g_return_if_fail(TSC_IS_PLOT(self));
	tsc_plot_ensure_geometry(self);
	*out = tsc_plot_priv(self)->area;
}

guint64 tsc_plot_get_render_generation(TscPlot *self)
{
	g_return_val_if_fail(TSC_IS_PLOT(self), 0);
	return tsc_plot_priv(self)->generation;
}

static void tsc_plot_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	TscPlot *self = TSC_PLOT(widget);
	TscPlotPrivate *p = tsc_plot_priv(self);

	tsc_plot_ensure_geometry(self);
	if (!p->cache) {
		GtkSnapshot *s = gtk_snapshot_new();

		PLOT_CLASS(self)->build_layer(self, s);
		p->generation++;
		p->cache = gtk_snapshot_free_to_node(s);
	}
	if (p->cache)
		gtk_snapshot_append_node(snapshot, p->cache);
	if (PLOT_CLASS(self)->draw_overlay)
		PLOT_CLASS(self)->draw_overlay(self, snapshot);
}

void tsc_plot_draw_band(TscPlot *self, GtkSnapshot *s, double x, double y, double w, double h)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	GdkRGBA fill = tsc_rgba_alpha(&p->accent, 0.15);

	tsc_rect(s, &fill, x, y, w, h);
	tsc_outline(s, &p->accent, x, y, w, h);
}

gint64 tsc_plot_item_at(TscPlot *self, double x, double y, guint *out_first, guint *out_n)
{
	guint first = 0, n = 0;
	gint64 item;

	g_return_val_if_fail(TSC_IS_PLOT(self), -1);
	tsc_plot_ensure_geometry(self);
	item = PLOT_CLASS(self)->hit_test(self, x, y, &first, &n);
	if (item >= 0 && out_first)
		*out_first = first;
	if (item >= 0 && out_n)
		*out_n = n;
	return item;
}

/* --- The visible range ---------------------------------------------------------- */

double tsc_plot_items_per_px(TscPlot *self)
{
	TscPlotPrivate *p = tsc_plot_priv(self);

	return p->area_cols > 0 ? (p->vis_end - p->vis_start) / p->area_cols : 0;
}

double tsc_plot_x_of(TscPlot *self, double pos)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	double ipp = tsc_plot_items_per_px(self);

	return p->area.origin.x + (ipp > 0 ? (pos - p->vis_start) / ipp : 0);
}

double tsc_plot_position_at(TscPlot *self, double x)
{
	TscPlotPrivate *p = tsc_plot_priv(self);

	tsc_plot_ensure_geometry(self);
	return p->vis_start + (x - p->area.origin.x) * tsc_plot_items_per_px(self);
}

static void range_changed(TscPlot *self, double old_start, double old_end)
{
	TscPlotPrivate *p = tsc_plot_priv(self);

	if (old_start == p->vis_start && old_end == p->vis_end)
		return;
	tsc_plot_invalidate_cache(self);
	g_object_freeze_notify(G_OBJECT(self));
	if (old_start != p->vis_start)
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_VISIBLE_START]);
	if (old_end != p->vis_end)
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_VISIBLE_END]);
	g_object_thaw_notify(G_OBJECT(self));
	g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
	tsc_plot_update_description(self);
}

void tsc_plot_set_visible_range(TscPlot *self, double start, double end)
{
	TscPlotPrivate *p;
	double old_start, old_end, n, span;

	g_return_if_fail(TSC_IS_PLOT(self));
	p = tsc_plot_priv(self);
	old_start = p->vis_start;
	old_end = p->vis_end;
	n = p->n_items;
	if (!isfinite(start) || !isfinite(end))
		return;
	if (!PLOT_CLASS(self)->zoomable) {
		start = 0;
		end = n;
	}
	span = CLAMP(end - start, MIN(MIN_SPAN, n), n);
	start = CLAMP(start, 0, n - span);
	p->vis_start = start;
	p->vis_end = start + span;
	range_changed(self, old_start, old_end);
}

double tsc_plot_get_visible_start(TscPlot *self)
{
	g_return_val_if_fail(TSC_IS_PLOT(self), 0);
	return tsc_plot_priv(self)->vis_start;
}

double tsc_plot_get_visible_end(TscPlot *self)
{
	g_return_val_if_fail(TSC_IS_PLOT(self), 0);
	return tsc_plot_priv(self)->vis_end;
}

void tsc_plot_zoom(TscPlot *self, double factor, double anchor)
{
	TscPlotPrivate *p;
	double span, t;

	g_return_if_fail(TSC_IS_PLOT(self));
	p = tsc_plot_priv(self);
	span = p->vis_end - p->vis_start;
	if (!(factor > 0) || span <= 0)
		return;
	t = CLAMP((anchor - p->vis_start) / span, 0, 1);
	span = CLAMP(span * factor, MIN(MIN_SPAN, (double)p->n_items), (double)p->n_items);
	tsc_plot_set_visible_range(self, anchor - t * span, anchor - t * span + span);
}

void tsc_plot_pan(TscPlot *self, double delta)
{
	TscPlotPrivate *p;

	g_return_if_fail(TSC_IS_PLOT(self));
	p = tsc_plot_priv(self);
	tsc_plot_set_visible_range(self, p->vis_start + delta, p->vis_end + delta);
}

void tsc_plot_show_all(TscPlot *self)
{
	g_return_if_fail(TSC_IS_PLOT(self));
	tsc_plot_set_visible_range(self, 0, tsc_plot_priv(self)->n_items);
}

/* Pans so that `item` is visible. */
static void reveal_item(TscPlot *self, guint item)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	double span = p->vis_end - p->vis_start;

	if (item < p->vis_start)
		tsc_plot_set_visible_range(self, item, item + span);
	else if (item + 1.0 > p->vis_end)
		tsc_plot_set_visible_range(self, item + 1.0 - span, item + 1.0);
}

/* --- Items and selection ------------------------------------------------------------ */

guint tsc_plot_get_n_items(TscPlot *self)
{
	g_return_val_if_fail(TSC_IS_PLOT(self), 0);
	return tsc_plot_priv(self)->n_items;
}

void tsc_plot_data_changed(TscPlot *self, guint n_items, gboolean reset)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	gboolean new_count = n_items != p->n_items;

	if (new_count || reset) {
		p->n_items = n_items;
		p->focus = p->anchor = 0;
		p->hover = -1;
		tsc_plot_set_selection(self, NULL);
		if (new_count)
			g_object_notify_by_pspec(G_OBJECT(self), props[PROP_N_ITEMS]);
		tsc_plot_set_visible_range(self, 0, n_items);
	}
	tsc_plot_invalidate_geometry(self);
	tsc_plot_update_description(self);
}

GtkBitset *tsc_plot_get_selection(TscPlot *self)
{
	g_return_val_if_fail(TSC_IS_PLOT(self), NULL);
	return tsc_plot_priv(self)->selection;
}

void tsc_plot_set_selection(TscPlot *self, const GtkBitset *selection)
{
	TscPlotPrivate *p;
	GtkBitset *next;

	g_return_if_fail(TSC_IS_PLOT(self));
	p = tsc_plot_priv(self);
	next = selection ? gtk_bitset_copy(selection) : gtk_bitset_new_empty();
	if (p->n_items < G_MAXUINT)
		gtk_bitset_remove_range_closed(next, p->n_items, G_MAXUINT);
	if (gtk_bitset_equals(next, p->selection)) {
		gtk_bitset_unref(next);
		return;
	}
	gtk_bitset_unref(p->selection);
	p->selection = next;
	p->selection_serial++;
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
	tsc_plot_update_description(self);
}

void tsc_plot_select_between(TscPlot *self, guint a, guint b, TscSelectMode mode)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	GtkBitset *next = mode == TSC_SELECT_REPLACE ? gtk_bitset_new_empty() : gtk_bitset_copy(p->selection);
	GtkBitset *items = gtk_bitset_new_empty();

	PLOT_CLASS(self)->add_between(self, items, a, b);
	if (mode == TSC_SELECT_TOGGLE)
		gtk_bitset_difference(next, items);
	else
		gtk_bitset_union(next, items);
	tsc_plot_set_selection(self, next);
	gtk_bitset_unref(items);
	gtk_bitset_unref(next);
}

guint tsc_plot_get_focus_item(TscPlot *self)
{
	g_return_val_if_fail(TSC_IS_PLOT(self), 0);
	return tsc_plot_priv(self)->focus;
}

void tsc_plot_set_focus_item(TscPlot *self, guint item)
{
	TscPlotPrivate *p;

	g_return_if_fail(TSC_IS_PLOT(self));
	p = tsc_plot_priv(self);
	if (p->n_items == 0)
		return;
	p->focus = MIN(item, p->n_items - 1);
	reveal_item(self, p->focus);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	tsc_plot_update_description(self);
}

/* --- Tooltip and hover ------------------------------------------------------------- */

static gboolean tsc_plot_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard,
                                       GtkTooltip *tooltip)
{
	TscPlot *self = TSC_PLOT(widget);
	TscPlotPrivate *p = tsc_plot_priv(self);
	guint first = 0, n = 1;
	gint64 item;
	GString *s;
	gboolean shown;

	if (keyboard)
		item = p->n_items ? (gint64)p->focus : -1;
	else
		item = tsc_plot_item_at(self, x, y, &first, &n);
	if (item < 0)
		return FALSE;
	s = g_string_new(NULL);
	shown = PLOT_CLASS(self)->tooltip(self, s, (guint)item, first, n);
	if (shown)
		gtk_tooltip_set_text(tooltip, s->str);
	g_string_free(s, TRUE);
	return shown;
}

static void set_hover(TscPlot *self, double x, double y, gboolean inside)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	gint64 item = -1;
	guint first = 0, n = 0;

	p->pointer_x = x;
	p->pointer_y = y;
	p->pointer_in = inside;
	if (inside)
		item = tsc_plot_item_at(self, x, y, &first, &n);
	if (item == p->hover && first == p->hover_first)
		return;
	p->hover = item;
	p->hover_first = first;
	p->hover_n = n;
	gtk_widget_queue_draw(GTK_WIDGET(self));
	tsc_plot_update_description(self);
}

static void on_motion(GtkEventControllerMotion *c, double x, double y, TscPlot *self)
{
	set_hover(self, x, y, TRUE);
}

static void on_leave(GtkEventControllerMotion *c, TscPlot *self)
{
	set_hover(self, 0, 0, FALSE);
}

/* --- Pointer --------------------------------------------------------------------------- */

static gboolean on_scroll(GtkEventControllerScroll *c, double dx, double dy, TscPlot *self)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(c));
	double span = p->vis_end - p->vis_start;

	if (p->n_items == 0)
		return FALSE;
	if (mods & GDK_CONTROL_MASK) {
		double anchor = p->pointer_in ? tsc_plot_position_at(self, p->pointer_x)
		                              : (p->vis_start + p->vis_end) / 2;

		tsc_plot_zoom(self, pow(1.25, dy), anchor);
	} else {
		tsc_plot_pan(self, (dx + dy) * 0.1 * span);
	}
	return TRUE;
}

/* A click: selects the item under (x, y); shift selects from the anchor,
 * ctrl toggles; outside the items clears unless a modifier is held. */
static void click(TscPlot *self, double x, double y, GdkModifierType mods)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	gint64 hit = tsc_plot_item_at(self, x, y, NULL, NULL);
	guint item;

	if (hit < 0) {
		if (!(mods & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)))
			tsc_plot_set_selection(self, NULL);
		return;
	}
	item = (guint)hit;
	p->focus = item;
	if (mods & GDK_SHIFT_MASK) {
		tsc_plot_select_between(self, p->anchor, item,
		                        (mods & GDK_CONTROL_MASK) ? TSC_SELECT_ADD : TSC_SELECT_REPLACE);
	} else {
		p->anchor = item;
		tsc_plot_select_between(self, item, item,
		                        !(mods & GDK_CONTROL_MASK) ? TSC_SELECT_REPLACE
		                        : gtk_bitset_contains(p->selection, item) ? TSC_SELECT_TOGGLE
		                                                                  : TSC_SELECT_ADD);
	}
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, TscPlot *self)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	guint button = gtk_gesture_single_get_current_button(GTK_GESTURE_SINGLE(g));
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(g));

	tsc_plot_ensure_geometry(self);
	p->drag_x0 = p->drag_x1 = x;
	p->drag_y0 = p->drag_y1 = y;
	p->drag_mods = mods;
	p->drag_vis_start = p->vis_start;
	p->drag_vis_end = p->vis_end;
	p->drag_ipp = tsc_plot_items_per_px(self);
	if (PLOT_CLASS(self)->zoomable &&
	    (button == GDK_BUTTON_MIDDLE || (button == GDK_BUTTON_PRIMARY && (mods & GDK_ALT_MASK)))) {
		p->drag_mode = TSC_DRAG_PAN;
	} else if (button == GDK_BUTTON_PRIMARY) {
		p->drag_mode = TSC_DRAG_PENDING;
	} else {
		/* Other buttons are the app's (context menus). */
		gtk_gesture_set_state(GTK_GESTURE(g), GTK_EVENT_SEQUENCE_DENIED);
		return;
	}
	gtk_gesture_set_state(GTK_GESTURE(g), GTK_EVENT_SEQUENCE_CLAIMED);
	if (gtk_widget_get_focusable(GTK_WIDGET(self)))
		gtk_widget_grab_focus(GTK_WIDGET(self));
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, TscPlot *self)
{
	TscPlotPrivate *p = tsc_plot_priv(self);

	switch (p->drag_mode) {
	case TSC_DRAG_PAN:
		tsc_plot_set_visible_range(self, p->drag_vis_start - dx * p->drag_ipp,
		                           p->drag_vis_end - dx * p->drag_ipp);
		break;
	case TSC_DRAG_PENDING:
		if (fabs(dx) < DRAG_THRESHOLD && fabs(dy) < DRAG_THRESHOLD)
			break;
		p->drag_mode = TSC_DRAG_RUBBER;
		G_GNUC_FALLTHROUGH;
	case TSC_DRAG_RUBBER:
		p->drag_x1 = p->drag_x0 + dx;
		p->drag_y1 = p->drag_y0 + dy;
		gtk_widget_queue_draw(GTK_WIDGET(self));
		break;
	case TSC_DRAG_NONE:
		break;
	}
}

static void on_drag_end(GtkGestureDrag *g, double dx, double dy, TscPlot *self)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	guint a, b;

	if (p->drag_mode == TSC_DRAG_PENDING) {
		click(self, p->drag_x0, p->drag_y0, p->drag_mods);
	} else if (p->drag_mode == TSC_DRAG_RUBBER && p->n_items) {
		p->drag_x1 = p->drag_x0 + dx;
		p->drag_y1 = p->drag_y0 + dy;
		if (PLOT_CLASS(self)->band_items(self, p->drag_x0, p->drag_y0, p->drag_x1, p->drag_y1, &a, &b)) {
			p->anchor = a;
			p->focus = b;
			tsc_plot_select_between(self, a, b,
			                        (p->drag_mods & (GDK_SHIFT_MASK | GDK_CONTROL_MASK))
			                                ? TSC_SELECT_ADD : TSC_SELECT_REPLACE);
		}
	}
	p->drag_mode = TSC_DRAG_NONE;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* --- Keyboard ---------------------------------------------------------------------------- */

/* +, -, Home, Page Up/Down: the visible range of a zoomable plot. */
static gboolean zoom_key(TscPlot *self, guint keyval)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	double span = p->vis_end - p->vis_start, centre = (p->vis_start + p->vis_end) / 2;

	/* Zoom around the focused item when it shows. */
	if (p->focus >= p->vis_start && p->focus < p->vis_end)
		centre = p->focus + 0.5;
	switch (keyval) {
	case GDK_KEY_plus:
	case GDK_KEY_equal:
	case GDK_KEY_KP_Add:
		tsc_plot_zoom(self, 1 / 1.5, centre);
		return TRUE;
	case GDK_KEY_minus:
	case GDK_KEY_KP_Subtract:
		tsc_plot_zoom(self, 1.5, centre);
		return TRUE;
	case GDK_KEY_Home:
		tsc_plot_show_all(self);
		return TRUE;
	case GDK_KEY_Page_Up:
		tsc_plot_pan(self, -0.9 * span);
		return TRUE;
	case GDK_KEY_Page_Down:
		tsc_plot_pan(self, 0.9 * span);
		return TRUE;
	default:
		return FALSE;
	}
}

/* The arrows: ctrl+Left/Right pans a zoomable plot; otherwise the focus
 * moves where the subclass says (the view follows), shift extending the
 * selection from the anchor to it. */
static gboolean arrow_key(TscPlot *self, int dx, int dy, GdkModifierType mods)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	guint next;

	if (PLOT_CLASS(self)->zoomable && dx && (mods & GDK_CONTROL_MASK)) {
		tsc_plot_pan(self, dx * 0.1 * (p->vis_end - p->vis_start));
		return TRUE;
	}
	if (!PLOT_CLASS(self)->move_focus(self, dx, dy, &next))
		return FALSE;
	p->focus = MIN(next, p->n_items - 1);
	reveal_item(self, p->focus);
	if (mods & GDK_SHIFT_MASK)
		tsc_plot_select_between(self, p->anchor, p->focus, TSC_SELECT_REPLACE);
	else
		p->anchor = p->focus;
	gtk_widget_queue_draw(GTK_WIDGET(self));
	tsc_plot_update_description(self);
	return TRUE;
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint keycode, GdkModifierType mods,
                       TscPlot *self)
{
	TscPlotPrivate *p = tsc_plot_priv(self);

	if (p->n_items == 0)
		return FALSE;
	if (PLOT_CLASS(self)->zoomable && zoom_key(self, keyval))
		return TRUE;
	switch (keyval) {
	case GDK_KEY_Left: case GDK_KEY_KP_Left: return arrow_key(self, -1, 0, mods);
	case GDK_KEY_Right: case GDK_KEY_KP_Right: return arrow_key(self, 1, 0, mods);
	case GDK_KEY_Up: case GDK_KEY_KP_Up: return arrow_key(self, 0, -1, mods);
	case GDK_KEY_Down: case GDK_KEY_KP_Down: return arrow_key(self, 0, 1, mods);
	case GDK_KEY_space:
	case GDK_KEY_Return:
	case GDK_KEY_KP_Enter:
		tsc_plot_select_between(self, p->focus, p->focus,
		                        !(mods & GDK_CONTROL_MASK) ? TSC_SELECT_REPLACE
		                        : gtk_bitset_contains(p->selection, p->focus) ? TSC_SELECT_TOGGLE
		                                                                      : TSC_SELECT_ADD);
		p->anchor = p->focus;
		return TRUE;
	case GDK_KEY_Escape:
		if (gtk_bitset_is_empty(p->selection))
			return FALSE;
		tsc_plot_set_selection(self, NULL);
		return TRUE;
	default:
		return FALSE;
	}
}

/* --- GObject and GtkWidget ------------------------------------------------------------- */

static void tsc_plot_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                             int *minimum, int *natural, int *min_baseline, int *nat_baseline)
{
	TscPlotClass *klass = PLOT_CLASS(widget);
	gboolean h = orientation == GTK_ORIENTATION_HORIZONTAL;

	*minimum = h ? klass->min_width : klass->min_height;
	*natural = h ? klass->natural_width : klass->natural_height;
}

static void tsc_plot_size_allocate(GtkWidget *widget, int width, int height, int baseline)
{
	TscPlotPrivate *p = tsc_plot_priv(TSC_PLOT(widget));

	if (width != p->geom_width || height != p->geom_height)
		tsc_plot_invalidate_geometry(TSC_PLOT(widget));
}

static void tsc_plot_css_changed(GtkWidget *widget, GtkCssStyleChange *change)
{
	TscPlotPrivate *p = tsc_plot_priv(TSC_PLOT(widget));

	GTK_WIDGET_CLASS(tsc_plot_parent_class)->css_changed(widget, change);
	/* Focus and hover change the CSS state too: rebuild only when the
	 * colours did (or GTK gives no change to inspect). */
	if (tsc_theme_changed(widget, &p->fg, &p->accent) || !change) {
		g_clear_object(&p->layout);
		tsc_plot_invalidate_geometry(TSC_PLOT(widget));
	}
}

static void on_scale_factor(GObject *o, GParamSpec *pspec, gpointer data)
{
	tsc_plot_invalidate_geometry(TSC_PLOT(o));
}

static void tsc_plot_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	TscPlotPrivate *p = tsc_plot_priv(TSC_PLOT(object));

	switch (id) {
	case PROP_VISIBLE_START:
		g_value_set_double(value, p->vis_start);
		break;
	case PROP_VISIBLE_END:
		g_value_set_double(value, p->vis_end);
		break;
	case PROP_N_ITEMS:
		g_value_set_uint(value, p->n_items);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void tsc_plot_set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
	TscPlot *self = TSC_PLOT(object);
	TscPlotPrivate *p = tsc_plot_priv(self);
	double v = g_value_get_double(value), span = p->vis_end - p->vis_start;

	switch (id) {
	case PROP_VISIBLE_START:
		/* Keeps the end where it is unless the start passes it. */
		tsc_plot_set_visible_range(self, v, v < p->vis_end ? p->vis_end : v + span);
		break;
	case PROP_VISIBLE_END:
		tsc_plot_set_visible_range(self, v > p->vis_start ? p->vis_start : v - span, v);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

/* Input is added here, not in init: only now is the subclass's class
 * (zoomable or not) the instance's. */
static void tsc_plot_constructed(GObject *object)
{
	TscPlot *self = TSC_PLOT(object);
	TscInputHandlers input = {
		.enter = G_CALLBACK(on_motion),
		.motion = G_CALLBACK(on_motion),
		.leave = G_CALLBACK(on_leave),
		.drag_begin = G_CALLBACK(on_drag_begin),
		.drag_update = G_CALLBACK(on_drag_update),
		.drag_end = G_CALLBACK(on_drag_end),
		.drag_button = 0,
		.key_pressed = G_CALLBACK(on_key),
		.focus_change = G_CALLBACK(tsc_redraw_cb),
	};

	G_OBJECT_CLASS(tsc_plot_parent_class)->constructed(object);
	if (PLOT_CLASS(self)->zoomable) {
		input.scroll = G_CALLBACK(on_scroll);
		input.scroll_flags = GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES;
	}
	tsc_widget_add_input(GTK_WIDGET(self), &input);
	tsc_plot_update_description(self);
}

static void tsc_plot_dispose(GObject *object)
{
	TscPlotPrivate *p = tsc_plot_priv(TSC_PLOT(object));

	g_clear_pointer(&p->cache, gsk_render_node_unref);
	g_clear_object(&p->layout);
	callback_set(&p->value_format, NULL, NULL, NULL);
	callback_set(&p->item_label, NULL, NULL, NULL);
	G_OBJECT_CLASS(tsc_plot_parent_class)->dispose(object);
}

static void tsc_plot_finalize(GObject *object)
{
	TscPlotPrivate *p = tsc_plot_priv(TSC_PLOT(object));

	g_free(p->label);
	g_free(p->description);
	gtk_bitset_unref(p->selection);
	G_OBJECT_CLASS(tsc_plot_parent_class)->finalize(object);
}

static void tsc_plot_class_init(TscPlotClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->constructed = tsc_plot_constructed;
	object_class->get_property = tsc_plot_get_property;
	object_class->set_property = tsc_plot_set_property;
	object_class->dispose = tsc_plot_dispose;
	object_class->finalize = tsc_plot_finalize;
	widget_class->snapshot = tsc_plot_snapshot;
	widget_class->measure = tsc_plot_measure;
	widget_class->size_allocate = tsc_plot_size_allocate;
	widget_class->css_changed = tsc_plot_css_changed;
	widget_class->query_tooltip = tsc_plot_query_tooltip;
	klass->min_width = klass->min_height = 60;
	klass->natural_width = 400;
	klass->natural_height = 300;
	klass->item_noun = "items";

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

	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void tsc_plot_init(TscPlot *self)
{
	TscPlotPrivate *p = tsc_plot_priv(self);
	GtkWidget *w = GTK_WIDGET(self);

	p->selection = gtk_bitset_new_empty();
	p->hover = -1;
	gtk_widget_set_focusable(w, TRUE);
	gtk_widget_set_focus_on_click(w, TRUE);
	gtk_widget_set_has_tooltip(w, TRUE);
	gtk_widget_add_css_class(w, "view");
	g_signal_connect(self, "notify::scale-factor", G_CALLBACK(on_scale_factor), NULL);
}
