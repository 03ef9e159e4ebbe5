/*
 * The timeline's input: the chart kit's timeline controller (wheel, drags,
 * the navigation keys) with the timeline's hooks: clicks (select a span;
 * on a label: focus its row, on its triangle: fold it), the keys of rows,
 * range and ruler listed in sa-timeline.h, hit-testing against the items of
 * the last rebuild, and the tooltip (a span's name, duration, thread and
 * metadata; a folded bar's count; an instant marker; a counter's values).
 */
#include "sa-timeline-private.h"

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

/* The item drawn under (x, y) in the last rebuild: its thread, or -1. A
 * fold of several items is one item of all of them (what is drawn). */
static gssize item_at(SaTimeline *self, double x, double y, tsr_trace_item *out)
{
	const sa_row *row;
	thread_rows *r;
	const TscFoldMark *m;
	int top;
	guint k;

	if (!self->doc || x < LABEL_W || !(row = thread_row_at(self, y)))
		return -1;
	r = &self->tdata[row->index];
	top = sa_timeline_row_top(self, row) + (r->has_instants ? INSTANT_H : 0);
	if (!r->queried || y < top || y >= top + (int)r->depths * ROW_H ||
	    !tsc_lane_mark_at(&r->lane, (guint)((y - top) / ROW_H), x, &k))
		return -1;
	m = &g_array_index(r->lane.marks, TscFoldMark, k);
	*out = r->items[g_array_index(r->lane.spans, TscSpan, m->first).id];
	if (m->folded) {
		for (guint j = m->first + 1; j <= m->last; j++) {
			const tsr_trace_item *o = &r->items[g_array_index(r->lane.spans, TscSpan, j).id];

			out->end_ns = MAX(out->end_ns, o->end_ns);
			out->busy_ns += o->busy_ns;
		}
		out->count = m->count;
		out->kind = MAX(out->kind, TSR_TRACE_ITEM_MERGED);
		out->seq = out->parent = -1;
	}
	return (gssize)row->index;
}

/* --- The tooltip --------------------------------------------------------------- */

/* The tooltips name things cut (tsd_name_cut), as the timeline draws
 * them: a 16 KiB name would make a tooltip taller than the screen. The
 * Span tab shows a selected span's names whole. */

static char *span_tooltip(SaTimeline *self, size_t t, const tsr_trace_item *it)
{
	const char *full = tsr_trace_get_name(self->trace, it->name);
	g_autofree char *name = full ? tsd_name_cut(full) : NULL;
	g_autofree char *dur = sa_format_duration((double)(it->end_ns - it->start_ns));
	g_autofree char *thread = sa_timeline_thread_label(self, t);
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
	g_autofree char *thread = sa_timeline_thread_label(self, m->thread);
	g_autofree char *at = sa_format_ms_exact(m->m.from - self->info->start_ns);

	if (m->m.count == 1)
		return g_markup_printf_escaped("<b>%s</b> (instant)\nat %s\non %s", name ? name : "?", at,
		                               thread);
	{
		g_autofree char *count = sa_format_count(m->m.count);
		g_autofree char *dur = sa_format_duration((double)(m->m.to - m->m.from));

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
		const TscCounterBucket *b = &c->buckets[i];
		double x0 = floor(sa_timeline_x_of(self, width, b->from));

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
		if (r->kind == SA_ROW_SERIES)
			return sa_timeline_series_tooltip(self, r, width, x, y);
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

/* --- Pointer: the app's side of the chart kit's controller ------------------------ */

/* The wheel, drags (pan; Shift: mark a range), W/S/+/- and A/D/Left/Right
 * and Home are the chart kit's timeline input (tsc-timeline.h); these
 * hooks add what is the timeline's own: hover, clicks, the rows that
 * scroll, and the keys of rows, range and ruler. */

static TscViewport *hook_viewport(gpointer data)
{
	SaTimeline *self = data;

	return self->doc ? &self->vp : NULL;
}

static void hook_plot(gpointer data, double *plot_x, double *plot_w)
{
	*plot_x = LABEL_W;
	*plot_w = sa_timeline_plot_width(gtk_widget_get_width(GTK_WIDGET(data)));
}

static void hook_view_changed(gpointer data)
{
	sa_timeline_view_changed(SA_TIMELINE(data));
}

static void scroll_rows_to(SaTimeline *self, int vscroll)
{
	self->vscroll = vscroll;
	sa_timeline_clamp_vscroll(self, gtk_widget_get_height(GTK_WIDGET(self)));
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static gboolean hook_scroll_rows(gpointer data, double dy)
{
	SaTimeline *self = data;

	scroll_rows_to(self, self->vscroll + (int)(dy * 3 * ROW_H));
	return TRUE;
}

static void hook_motion(gpointer data, double x, double y)
{
	SaTimeline *self = data;
	tsr_trace_item it;
	gssize t;

	t = item_at(self, x, y, &it);
	if (t == self->hover_thread && (t < 0 || memcmp(&it, &self->hover, sizeof(it)) == 0))
		return;
	self->hover_thread = t;
	if (t >= 0)
		self->hover = it;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void hook_leave(gpointer data)
{
	SaTimeline *self = data;

	if (self->hover_thread >= 0) {
		self->hover_thread = -1;
		gtk_widget_queue_draw(GTK_WIDGET(self));
	}
}

static void hook_drag_begin(gpointer data, double x, double y)
{
	SaTimeline *self = data;

	self->drag_vscroll = self->vscroll;
}

static void hook_drag_rows(gpointer data, double dy)
{
	SaTimeline *self = data;

	scroll_rows_to(self, self->drag_vscroll - (int)dy);
}

static void hook_mark(gpointer data, int64_t from, int64_t to)
{
	sa_timeline_set_range(SA_TIMELINE(data), from, to);
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

/* A click selects the span under it (or nothing). */
static void hook_click(gpointer data, double x, double y, GdkModifierType state)
{
	SaTimeline *self = data;
	tsr_trace_item it;
	gssize t;

	if (!self->doc)
		return;
	if (x < LABEL_W) {
		click_label(self, x, y);
		return;
	}
	t = item_at(self, x, y, &it);
	sa_timeline_select(self, t, t >= 0 ? &it : NULL);
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

/* The timeline's own keys, tried before the navigation keys. */
static gboolean hook_key(gpointer data, guint keyval, GdkModifierType state)
{
	SaTimeline *self = data;

	if (!self->doc || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)))
		return FALSE;
	if (row_key(self, keyval))
		return TRUE;
	switch (keyval) {
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
		int step = gtk_widget_get_height(GTK_WIDGET(self)) - sa_timeline_scroll_top(self);

		scroll_rows_to(self, self->vscroll + (keyval == GDK_KEY_Page_Up ? -step : step));
		return TRUE;
	}
	case GDK_KEY_m: case GDK_KEY_M:
		sa_timeline_set_range(self, self->vp.from, self->vp.to + 1);
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
	static const TscTimelineInputHooks hooks = {
		.viewport = hook_viewport,
		.plot = hook_plot,
		.view_changed = hook_view_changed,
		.key = hook_key,
		.motion = hook_motion,
		.leave = hook_leave,
		.click = hook_click,
		.mark = hook_mark,
		.drag_begin = hook_drag_begin,
		.drag_rows = hook_drag_rows,
		.scroll_rows = hook_scroll_rows,
	};

	tsc_timeline_input_install(GTK_WIDGET(self), &hooks, self);
}
