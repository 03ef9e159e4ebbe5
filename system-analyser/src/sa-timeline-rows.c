/*
 * The timeline's row model: per file (one process) a header, its threads,
 * then its counter series (or them merged on one axis), its heatmaps and
 * IPU activity (sa-timeline-series.c), each with the state people give it — folded
 * (a file or a thread shows a one-row heatmap), pinned (drawn in a band
 * under the ruler that does not scroll; pinning a file pins its group),
 * hidden (a hidden file hides its group) — and the layout that follows
 * from it. The focused row is the one whose header the keys act on.
 */
#include "sa-timeline-private.h"

static int row_height(SaTimeline *self, const sa_row *r)
{
	switch (r->kind) {
	case SA_ROW_PROCESS:
		return PROC_H;
	case SA_ROW_THREAD: {
		const thread_rows *t = &self->tdata[r->index];

		if (r->collapsed)
			return ROW_H + THREAD_GAP;
		return (t->has_instants ? INSTANT_H : 0) + (int)t->depths * ROW_H + THREAD_GAP;
	}
	case SA_ROW_SERIES:
		return sa_timeline_series_height(self, r);
	case SA_ROW_COUNTER:
	default:
		return COUNTER_H + THREAD_GAP;
	}
}

/* The model from the document: file, its threads, its series. */
void sa_timeline_build_rows(SaTimeline *self)
{
	size_t n, k = 0;

	sa_timeline_series_clear(self);
	n = self->n_procs + self->n_threads + self->n_series + sa_timeline_series_count(self);
	g_free(self->rows);
	g_free(self->order);
	self->rows = g_new0(sa_row, MAX(n, 1));
	self->order = g_new0(size_t, MAX(n, 1));
	for (size_t p = 0; p < self->n_procs; p++) {
		size_t head = k;

		self->rows[k++] = (sa_row){.kind = SA_ROW_PROCESS, .index = p, .process = p,
		                           .parent = head};
		for (size_t t = self->procs[p].first_thread;
		     t < self->procs[p].first_thread + self->procs[p].n_threads && t < self->n_threads; t++)
			self->rows[k++] = (sa_row){.kind = SA_ROW_THREAD, .index = t, .process = p,
			                           .parent = head};
		for (size_t c = 0; c < self->n_series; c++)
			if (self->series[c].process == p)
				self->rows[k++] = (sa_row){.kind = SA_ROW_COUNTER, .index = c, .process = p,
				                           .parent = head};
		sa_timeline_series_add_rows(self, head, self->rows, &k);
	}
	self->n_rows = k;
	self->focus_row = -1;
	sa_timeline_layout_rows(self);
}

/* Places the shown rows: the pinned band first (in model order), then the
 * rest, scrolled. */
void sa_timeline_layout_rows(SaTimeline *self)
{
	int y = 0;

	self->n_order = 0;
	for (size_t i = 0; i < self->n_rows; i++) {
		sa_row *r = &self->rows[i];
		const sa_row *head = &self->rows[r->parent];

		r->in_pin = r->pinned || head->pinned;
		r->shown = !r->hidden && !head->hidden && sa_timeline_series_shown(self, r) &&
		           (r->kind == SA_ROW_PROCESS || !head->collapsed || r->pinned);
		r->h = row_height(self, r);
	}
	for (int band = 1; band >= 0; band--) {
		for (size_t i = 0; i < self->n_rows; i++) {
			sa_row *r = &self->rows[i];

			if (!r->shown || r->in_pin != band)
				continue;
			r->y = y;
			y += r->h;
			self->order[self->n_order++] = i;
		}
		if (band == 1) {
			self->pin_h = y > 0 ? y + PIN_GAP : 0;
			y = 0;
		}
	}
	self->content_h = y;
}

gssize sa_timeline_row_at(SaTimeline *self, double y)
{
	gboolean in_pin = y < sa_timeline_scroll_top(self);

	if (y < RULER_H)
		return -1;
	for (size_t k = 0; k < self->n_order; k++) {
		const sa_row *r = &self->rows[self->order[k]];
		int top = sa_timeline_row_top(self, r);

		if (r->in_pin == in_pin && y >= top && y < top + r->h)
			return (gssize)self->order[k];
	}
	return -1;
}

char *sa_timeline_thread_label(SaTimeline *self, size_t t)
{
	g_autofree char *name = self->threads[t].name ? tsd_name_cut(self->threads[t].name)
	                                              : g_strdup("thread");

	return g_strdup_printf("%s (tid %" G_GINT64_FORMAT ")", name, self->threads[t].tid);
}

char *sa_timeline_row_label(SaTimeline *self, const sa_row *r)
{
	/* Drawn, described and in tooltips: each name cut (tsd_name_cut), as
	 * a trace may name a process, thread or counter with 16 KiB. */
	switch (r->kind) {
	case SA_ROW_PROCESS: {
		const tsr_trace_process *p = &self->procs[r->index];
		g_autofree char *base = g_path_get_basename(p->path);
		g_autofree char *name = tsd_name_cut(p->name);
		g_autofree char *file = tsd_name_cut(base);

		return g_strdup_printf("%s (pid %" G_GINT64_FORMAT ") — %s", name, p->pid, file);
	}
	case SA_ROW_THREAD:
		return sa_timeline_thread_label(self, r->index);
	case SA_ROW_SERIES:
		return sa_timeline_series_label(self, r);
	case SA_ROW_COUNTER:
	default: {
		g_autofree char *graph = tsd_name_cut(self->series[r->index].graph);
		g_autofree char *series = tsd_name_cut(self->series[r->index].name);

		return g_strdup_printf("%s: %s", graph, series);
	}
	}
}

static void scroll_to_row(SaTimeline *self, gssize row)
{
	const sa_row *r;
	int visible = gtk_widget_get_height(GTK_WIDGET(self)) - sa_timeline_scroll_top(self);

	if (row < 0 || (size_t)row >= self->n_rows || !self->rows[row].shown ||
	    self->rows[row].in_pin)
		return;
	r = &self->rows[row];
	if (r->y < self->vscroll)
		self->vscroll = r->y;
	else if (r->y + MIN(r->h, visible) > self->vscroll + visible)
		self->vscroll = r->y + MIN(r->h, visible) - visible;
	sa_timeline_clamp_vscroll(self, gtk_widget_get_height(GTK_WIDGET(self)));
}

void sa_timeline_move_focus(SaTimeline *self, int delta)
{
	gssize at = -1;

	if (self->n_order == 0)
		return;
	for (size_t k = 0; k < self->n_order; k++)
		if ((gssize)self->order[k] == self->focus_row)
			at = (gssize)k;
	if (at < 0)
		at = delta > 0 ? 0 : (gssize)self->n_order - 1;
	else
		at = CLAMP(at + delta, 0, (gssize)self->n_order - 1);
	sa_timeline_set_focus_row(self, (gssize)self->order[at]);
}

/* --- The API ------------------------------------------------------------------------ */

static void rows_changed(SaTimeline *self)
{
	sa_timeline_layout_rows(self);
	sa_timeline_clamp_vscroll(self, gtk_widget_get_height(GTK_WIDGET(self)));
	/* The focus leaves a row that is no longer shown for the next one. */
	if (self->focus_row >= 0 && !self->rows[self->focus_row].shown) {
		gssize next = -1;

		for (size_t k = 0; k < self->n_order && next < 0; k++)
			if (self->order[k] > (size_t)self->focus_row)
				next = (gssize)self->order[k];
		if (next < 0 && self->n_order > 0)
			next = (gssize)self->order[self->n_order - 1];
		self->focus_row = next;
	}
	scroll_to_row(self, self->focus_row);
	sa_timeline_invalidate(self);
}

size_t sa_timeline_get_n_rows(SaTimeline *self)
{
	g_return_val_if_fail(SA_IS_TIMELINE(self), 0);
	return self->n_rows;
}

gboolean sa_timeline_get_row(SaTimeline *self, size_t row, sa_timeline_row *out)
{
	static const char *const kinds[] = {"file", "thread", "counter"};
	const sa_row *r;

	g_return_val_if_fail(SA_IS_TIMELINE(self), FALSE);
	if (row >= self->n_rows)
		return FALSE;
	r = &self->rows[row];
	*out = (sa_timeline_row){.kind = r->kind == SA_ROW_SERIES ? sa_timeline_series_kind(self, r)
	                                                          : kinds[r->kind],
	                         .label = sa_timeline_row_label(self, r),
	                         .index = r->index, .collapsed = r->collapsed, .pinned = r->pinned,
	                         .hidden = r->hidden, .shown = r->shown, .area = r->area};
	return TRUE;
}

void sa_timeline_set_row_collapsed(SaTimeline *self, size_t row, gboolean collapsed)
{
	g_return_if_fail(SA_IS_TIMELINE(self));
	if (row >= self->n_rows || self->rows[row].kind >= SA_ROW_COUNTER ||
	    self->rows[row].collapsed == !!collapsed)
		return;
	self->rows[row].collapsed = !!collapsed;
	rows_changed(self);
}

void sa_timeline_set_row_pinned(SaTimeline *self, size_t row, gboolean pinned)
{
	g_return_if_fail(SA_IS_TIMELINE(self));
	if (row >= self->n_rows || self->rows[row].pinned == !!pinned)
		return;
	self->rows[row].pinned = !!pinned;
	rows_changed(self);
}

void sa_timeline_set_row_hidden(SaTimeline *self, size_t row, gboolean hidden)
{
	g_return_if_fail(SA_IS_TIMELINE(self));
	if (row >= self->n_rows || self->rows[row].hidden == !!hidden)
		return;
	self->rows[row].hidden = !!hidden;
	rows_changed(self);
	sa_timeline_notify_hidden(self);
}

void sa_timeline_set_row_area(SaTimeline *self, size_t row, gboolean area)
{
	g_return_if_fail(SA_IS_TIMELINE(self));
	if (row >= self->n_rows || self->rows[row].kind != SA_ROW_COUNTER ||
	    self->rows[row].area == !!area)
		return;
	self->rows[row].area = !!area;
	sa_timeline_invalidate(self);
}

void sa_timeline_set_merge_charts(SaTimeline *self, gboolean merge)
{
	g_return_if_fail(SA_IS_TIMELINE(self));
	if (self->merge_charts == !!merge)
		return;
	self->merge_charts = !!merge;
	rows_changed(self);
}

gboolean sa_timeline_get_merge_charts(SaTimeline *self)
{
	g_return_val_if_fail(SA_IS_TIMELINE(self), FALSE);
	return self->merge_charts;
}

void sa_timeline_show_hidden_rows(SaTimeline *self)
{
	gboolean any = FALSE;

	g_return_if_fail(SA_IS_TIMELINE(self));
	for (size_t i = 0; i < self->n_rows; i++) {
		any |= self->rows[i].hidden;
		self->rows[i].hidden = FALSE;
	}
	if (!any)
		return;
	rows_changed(self);
	sa_timeline_notify_hidden(self);
}

guint sa_timeline_get_hidden_rows(SaTimeline *self)
{
	guint n = 0;

	for (size_t i = 0; i < self->n_rows; i++)
		n += self->rows[i].hidden;
	return n;
}

void sa_timeline_set_focus_row(SaTimeline *self, gssize row)
{
	g_return_if_fail(SA_IS_TIMELINE(self));
	if (row >= (gssize)self->n_rows || (row >= 0 && !self->rows[row].shown))
		row = -1;
	if (row == self->focus_row)
		return;
	self->focus_row = row;
	scroll_to_row(self, row);
	sa_timeline_update_description(self);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}
