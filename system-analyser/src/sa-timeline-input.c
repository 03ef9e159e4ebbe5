/*
 * The timeline's input: the wheel, drags (pan, or Shift: mark a range),
 * clicks (select a span; on a label: focus its row, on its triangle: fold
 * it), the keys listed in sa-timeline.h, hit-testing against the items of
 * the last rebuild, and the tooltip (a span's name, duration, thread and
 * metadata; a folded bar's count; an instant marker; a counter's values).
 */
#include "sa-timeline-private.h"

#include <tilescope/tsc-input.h>

#include "sa-format.h"

#include <math.h>
#include <string.h>

/* The thread row under widget y (expanded, shown), or NULL. */
static const sa_row *thread_row_at(SaTimeline *self, double y)
{
	gssize i = sa_timeline_row_at(self, y);

	if (i < 0 || self->rows[i].kind != SA_ROW_THREAD || self->rows[i].collapsed)
		return NULL;
	return &self->rows[i];
}

/* The item under (x, y) of the last rebuild: its thread, or -1. */
static gssize item_at(SaTimeline *self, double x, double y, tsr_trace_item *out)
{
	int width = gtk_widget_get_width(GTK_WIDGET(self));
	const sa_row *row;
	thread_rows *r;
	gssize best = -1;
	double best_d = 3;
	int top;
	guint depth;

	if (!self->doc || x < LABEL_W || !(row = thread_row_at(self, y)))
		return -1;
	r = &self->tdata[row->index];
	top = sa_timeline_row_top(self, row) + (r->has_instants ? INSTANT_H : 0);
	if (!r->queried || y < top || y >= top + (int)r->depths * ROW_H)
		return -1;
	depth = (guint)((y - top) / ROW_H);
	for (size_t i = 0; i < r->n_items; i++) {
		const tsr_trace_item *it = &r->items[i];
		guint d = it->kind == TSR_TRACE_ITEM_SUMMARY ? 0 : it->depth;
		double x0 = sa_timeline_x_of(self, width, it->start_ns);
		double x1 = sa_timeline_x_of(self, width, it->end_ns);
		double dist;

		if (d != depth)
			continue;
		if (x1 - x0 < 1)
			x1 = x0 + 1;
		dist = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
		if (dist < best_d) {
			best_d = dist;
			best = (gssize)i;
		}
	}
	if (best < 0)
		return -1;
	*out = r->items[best];
	return (gssize)row->index;
}

/* --- The tooltip --------------------------------------------------------------- */

/* The tooltips name things cut (tsd_name_cut), as the timeline draws
 * them: a 16 KiB name would make a tooltip taller than the screen. The
 * Span tab shows a selected span's names whole. */
static char *thread_text(SaTimeline *self, size_t t)
{
	g_autofree char *name = self->threads[t].name ? tsd_name_cut(self->threads[t].name)
	                                              : g_strdup("thread");

	return g_strdup_printf("%s (tid %" G_GINT64_FORMAT ")", name, self->threads[t].tid);
}

static char *span_tooltip(SaTimeline *self, size_t t, const tsr_trace_item *it)
{
	const char *full = tsr_trace_get_name(self->trace, it->name);
	g_autofree char *name = full ? tsd_name_cut(full) : NULL;
	g_autofree char *dur = sa_format_duration((double)(it->end_ns - it->start_ns));
	g_autofree char *thread = thread_text(self, t);
	g_autofree char *at = sa_format_ms_exact(it->start_ns - self->info->start_ns);

	if (it->kind == TSR_TRACE_ITEM_EVENT) {
		char *meta = NULL;
		g_autofree char *text = NULL;

		if (tsr_trace_dup_event_metadata(&meta, self->trace, t, it->seq) != TSR_OK)
			meta = NULL;
		text = g_markup_printf_escaped("<b>%s</b>\n%s from %s\non %s%s%s", name ? name : "?", dur,
		                               at, thread, meta ? "\n" : "", meta ? meta : "");
		free(meta);
		return g_steal_pointer(&text);
	}
	{
		g_autofree char *count = sa_format_count(it->count);

		return g_markup_printf_escaped("<b>%s spans</b> folded over %s%s%s\non %s", count, dur,
		                               name ? ", mostly " : "", name ? name : "", thread);
	}
}

static char *instant_tooltip(SaTimeline *self, const sa_instant_mark *m)
{
	g_autofree char *name = tsd_name_cut(tsr_trace_get_name(self->trace, m->name));
	g_autofree char *thread = thread_text(self, m->thread);
	g_autofree char *at = sa_format_ms_exact(m->from_ns - self->info->start_ns);

	if (m->count == 1)
		return g_markup_printf_escaped("<b>%s</b> (instant)\nat %s\non %s", name ? name : "?", at,
		                               thread);
	{
		g_autofree char *count = sa_format_count(m->count);
		g_autofree char *dur = sa_format_duration((double)(m->to_ns - m->from_ns));

		return g_markup_printf_escaped("<b>%s instants</b> folded over %s from %s, the first "
		                               "%s\non %s",
		                               count, dur, at, name ? name : "?", thread);
	}
}

static char *counter_tooltip(SaTimeline *self, const sa_row *row, int width, double x)
{
	const counter_rows *c = &self->cdata[row->index];
	const tsr_trace_series *se = &self->series[row->index];
	const char *unit = se->unit ? se->unit : "";
	g_autofree char *graph = tsd_name_cut(se->graph), *series = tsd_name_cut(se->name);

	for (size_t i = 0; i < c->n_buckets; i++) {
		const tsr_trace_counter_bucket *b = &c->buckets[i];
		double x0 = floor(sa_timeline_x_of(self, width, b->from_ns));

		if (x >= x0 - 1 && x < x0 + 2) {
			g_autofree char *n = sa_format_count(b->count);

			if (b->count == 1)
				return g_markup_printf_escaped("<b>%s: %s</b>\n%.6g %s", graph, series,
				                               b->last, unit);
			return g_markup_printf_escaped("<b>%s: %s</b>\n%s samples, %.6g – %.6g %s (last %.6g)",
			                               graph, series, n, b->min, b->max, unit, b->last);
		}
	}
	return NULL;
}

char *sa_timeline_dup_tooltip(SaTimeline *self, double x, double y, gboolean keyboard)
{
	int width = gtk_widget_get_width(GTK_WIDGET(self));
	tsr_trace_item it;
	gssize row, t;

	if (!self->doc)
		return NULL;
	if (keyboard)
		/* The keyboard's tooltip: the selected span's. */
		return self->sel_thread >= 0 ? span_tooltip(self, (size_t)self->sel_thread, &self->sel)
		                             : NULL;
	if ((t = item_at(self, x, y, &it)) >= 0)
		return span_tooltip(self, (size_t)t, &it);
	if ((row = sa_timeline_row_at(self, y)) < 0)
		return NULL;
	if (x >= LABEL_W) {
		const sa_row *r = &self->rows[row];

		if (r->kind == SA_ROW_COUNTER)
			return counter_tooltip(self, r, width, x);
		if (r->kind == SA_ROW_THREAD && !r->collapsed && self->tdata[r->index].has_instants &&
		    y < sa_timeline_row_top(self, r) + INSTANT_H) {
			const sa_instant_mark *m = sa_timeline_instant_at(self, r->index, width, x);

			return m ? instant_tooltip(self, m) : NULL;
		}
		return NULL;
	}
	{
		g_autofree char *label = sa_timeline_row_label(self, &self->rows[row]);

		return g_markup_printf_escaped("%s\n<small>Space folds, P pins, H hides</small>", label);
	}
}

gboolean sa_timeline_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard,
                                   GtkTooltip *tooltip)
{
	g_autofree char *text = sa_timeline_dup_tooltip(SA_TIMELINE(widget), x, y, keyboard);

	if (!text)
		return FALSE;
	gtk_tooltip_set_markup(tooltip, text);
	return TRUE;
}

/* --- Pointer ----------------------------------------------------------------------- */

static gboolean on_scroll(GtkEventControllerScroll *ctl, double dx, double dy, gpointer data)
{
	SaTimeline *self = data;
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(ctl));
	int width = gtk_widget_get_width(GTK_WIDGET(self));

	if (!self->doc)
		return FALSE;
	if (mods & GDK_SHIFT_MASK) {
		self->vscroll += (int)(dy * 3 * ROW_H);
		sa_timeline_clamp_vscroll(self, gtk_widget_get_height(GTK_WIDGET(self)));
		gtk_widget_queue_draw(GTK_WIDGET(self));
		return TRUE;
	}
	if (dx != 0)
		sa_timeline_pan(self, dx * 0.1);
	if (dy != 0)
		sa_timeline_zoom(self, pow(1.25, -dy),
		                 (self->pointer_x - LABEL_W) / sa_timeline_plot_width(width));
	return TRUE;
}

static void on_motion(GtkEventControllerMotion *ctl, double x, double y, gpointer data)
{
	SaTimeline *self = data;
	tsr_trace_item it;
	gssize t;

	(void)ctl;
	self->pointer_x = x;
	self->pointer_y = y;
	t = item_at(self, x, y, &it);
	if (t == self->hover_thread && (t < 0 || memcmp(&it, &self->hover, sizeof(it)) == 0))
		return;
	self->hover_thread = t;
	if (t >= 0)
		self->hover = it;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void on_leave(GtkEventControllerMotion *ctl, gpointer data)
{
	SaTimeline *self = data;

	(void)ctl;
	if (self->hover_thread >= 0) {
		self->hover_thread = -1;
		gtk_widget_queue_draw(GTK_WIDGET(self));
	}
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, gpointer data)
{
	SaTimeline *self = data;
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(g));

	gtk_widget_grab_focus(GTK_WIDGET(self));
	self->dragging = TRUE;
	self->marking = (mods & GDK_SHIFT_MASK) != 0;
	self->drag_x = x;
	self->drag_y = y;
	self->drag_from = self->view_from;
	self->drag_to = self->view_to;
	self->drag_vscroll = self->vscroll;
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, gpointer data)
{
	SaTimeline *self = data;
	int width = gtk_widget_get_width(GTK_WIDGET(self));

	(void)g;
	if (!self->doc || !self->dragging)
		return;
	if (self->marking) {
		int64_t a = sa_timeline_t_of(self, width, MAX(self->drag_x, LABEL_W));
		int64_t b = sa_timeline_t_of(self, width, MAX(self->drag_x + dx, LABEL_W));

		if (fabs(dx) >= 2)
			sa_timeline_set_range(self, MIN(a, b), MAX(a, b));
		return;
	}
	{
		int64_t shift = (int64_t)llround(-dx * (double)(self->drag_to - self->drag_from + 1) /
		                                 sa_timeline_plot_width(width));

		sa_timeline_set_view(self, self->drag_from + shift, self->drag_to + shift);
		self->vscroll = self->drag_vscroll - (int)dy;
		sa_timeline_clamp_vscroll(self, gtk_widget_get_height(GTK_WIDGET(self)));
		gtk_widget_queue_draw(GTK_WIDGET(self));
	}
}

/* A click in the labels' column: focus the row; on a file's or a thread's
 * triangle, fold or unfold it. */
static void click_label(SaTimeline *self, double x, double y)
{
	gssize row = sa_timeline_row_at(self, y);
	sa_row *r;

	if (row < 0)
		return;
	r = &self->rows[row];
	sa_timeline_set_focus_row(self, row);
	if (r->kind != SA_ROW_COUNTER && x < (r->kind == SA_ROW_PROCESS ? 18 : 28))
		sa_timeline_set_row_collapsed(self, (size_t)row, !r->collapsed);
}

static void on_drag_end(GtkGestureDrag *g, double dx, double dy, gpointer data)
{
	SaTimeline *self = data;

	(void)g;
	if (!self->dragging)
		return;
	self->dragging = FALSE;
	/* No movement: a click, which selects the span under it (or nothing). */
	if (fabs(dx) < 2 && fabs(dy) < 2 && !self->marking) {
		tsr_trace_item it;
		gssize t;

		if (self->drag_x < LABEL_W) {
			click_label(self, self->drag_x, self->drag_y);
			return;
		}
		t = item_at(self, self->drag_x, self->drag_y, &it);
		sa_timeline_select(self, t, t >= 0 ? &it : NULL);
	}
}

/* --- Keys ---------------------------------------------------------------------------- */

/* Space, P, H and L on the focused row. */
static gboolean row_key(SaTimeline *self, guint keyval)
{
	sa_row *r;
	size_t i;

	if (self->focus_row < 0)
		return FALSE;
	i = (size_t)self->focus_row;
	r = &self->rows[i];
	switch (keyval) {
	case GDK_KEY_space: case GDK_KEY_Return: case GDK_KEY_KP_Enter:
		if (r->kind == SA_ROW_COUNTER)
			return FALSE;
		sa_timeline_set_row_collapsed(self, i, !r->collapsed);
		return TRUE;
	case GDK_KEY_p:
		sa_timeline_set_row_pinned(self, i, !r->pinned);
		return TRUE;
	case GDK_KEY_h:
		sa_timeline_set_row_hidden(self, i, TRUE);
		return TRUE;
	case GDK_KEY_l:
		if (r->kind != SA_ROW_COUNTER)
			return FALSE;
		sa_timeline_set_row_area(self, i, !r->area);
		return TRUE;
	default:
		return FALSE;
	}
}

static gboolean on_key(GtkEventControllerKey *ctl, guint keyval, guint keycode,
                       GdkModifierType state, gpointer data)
{
	SaTimeline *self = data;

	(void)ctl;
	(void)keycode;
	if (!self->doc || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)))
		return FALSE;
	if (row_key(self, keyval))
		return TRUE;
	switch (keyval) {
	case GDK_KEY_w: case GDK_KEY_W: case GDK_KEY_plus: case GDK_KEY_equal: case GDK_KEY_KP_Add:
		sa_timeline_zoom(self, 1.5, 0.5);
		return TRUE;
	case GDK_KEY_s: case GDK_KEY_S: case GDK_KEY_minus: case GDK_KEY_KP_Subtract:
		sa_timeline_zoom(self, 1 / 1.5, 0.5);
		return TRUE;
	case GDK_KEY_a: case GDK_KEY_A: case GDK_KEY_Left:
		sa_timeline_pan(self, -0.2);
		return TRUE;
	case GDK_KEY_d: case GDK_KEY_D: case GDK_KEY_Right:
		sa_timeline_pan(self, 0.2);
		return TRUE;
	case GDK_KEY_Home:
		sa_timeline_show_all(self);
		return TRUE;
	case GDK_KEY_z: case GDK_KEY_Z:
		return sa_timeline_zoom_to_range(self);
	case GDK_KEY_t: case GDK_KEY_T:
		sa_timeline_set_wall_clock(self, !self->wall_clock);
		return TRUE;
	case GDK_KEY_H:
		sa_timeline_show_hidden_rows(self);
		return TRUE;
	case GDK_KEY_Up: case GDK_KEY_Down:
		sa_timeline_move_focus(self, keyval == GDK_KEY_Up ? -1 : 1);
		return TRUE;
	case GDK_KEY_Page_Up: case GDK_KEY_Page_Down: {
		int h = gtk_widget_get_height(GTK_WIDGET(self));
		int step = h - sa_timeline_scroll_top(self);

		self->vscroll += keyval == GDK_KEY_Page_Up ? -step : step;
		sa_timeline_clamp_vscroll(self, h);
		gtk_widget_queue_draw(GTK_WIDGET(self));
		return TRUE;
	}
	case GDK_KEY_m: case GDK_KEY_M:
		sa_timeline_set_range(self, self->view_from, self->view_to + 1);
		return TRUE;
	case GDK_KEY_Escape:
		if (self->range_from >= self->range_to && self->sel_thread < 0)
			return FALSE;
		sa_timeline_clear_selection(self);
		return TRUE;
	default:
		return FALSE;
	}
}

void sa_timeline_install_input(SaTimeline *self)
{
	static const TscInputHandlers input = {
		.motion = G_CALLBACK(on_motion),
		.leave = G_CALLBACK(on_leave),
		.scroll = G_CALLBACK(on_scroll),
		.scroll_flags = GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES | GTK_EVENT_CONTROLLER_SCROLL_DISCRETE,
		.drag_begin = G_CALLBACK(on_drag_begin),
		.drag_update = G_CALLBACK(on_drag_update),
		.drag_end = G_CALLBACK(on_drag_end),
		.drag_button = GDK_BUTTON_PRIMARY,
		.key_pressed = G_CALLBACK(on_key),
	};

	/* The scroll controller now comes after the motion one: they see
	 * different events, so the order does not matter. */
	tsc_widget_add_input(GTK_WIDGET(self), &input);
}
