/*
 * One frame's layer of the timeline: the ruler, then every shown row that
 * lies in view (the pinned band first, then the scrolled rows), then the
 * labels' column.
 *
 * Only the rows in view are queried. A thread's spans come from one
 * tsr_trace_list_events over the visible window at SA_TIMELINE_FOLD_PX
 * pixels of resolution: EVENT items (wide enough to draw on their own),
 * MERGED runs of narrow spans of one depth, or SUMMARY buckets from the
 * level of detail when the window holds too many spans to decode. Every
 * span in view is counted in exactly one item, and the chart kit's span
 * lane and its folding rule (tsc-timeline.h) keep every count, so what is drawn adds
 * up to the spans in the window and nothing narrow disappears (a folded
 * bar is at least one pixel wide). The items are kept for hit-testing until
 * the next rebuild. A thread's depth is learnt from the items (a level of
 * detail answer only shows depth 0), so rows appear as deeper spans come
 * into view and never go away.
 */
#include "sa-timeline-private.h"

#include "sa-ruler.h"

#include <math.h>
#include <string.h>
#include <tilescope/tsc-palette.h>

/* A colour per name's text (tsc-palette.h): never by its id, which a
 * Chrome export of the same trace numbers differently. */
GdkRGBA sa_timeline_name_colour(tsr_trace *trace, uint32_t name, gboolean dark)
{
	const char *text = trace && name != TSR_TRACE_NO_NAME ? tsr_trace_get_name(trace, name) : NULL;

	return *tsc_palette_colour(text ? text : "", dark);
}

/* Asks reportlib for thread `t`'s items in the view; learns its depth
 * (relaying the rows out when it grew) and counts its spans. */
static void query_thread(SaTimeline *self, size_t t, int width)
{
	thread_rows *r = &self->tdata[t];
	uint64_t res = (uint64_t)ceil(sa_timeline_ns_per_px(self, width) * SA_TIMELINE_FOLD_PX);
	gboolean grew = FALSE;

	g_clear_pointer(&r->items, free);
	r->n_items = 0;
	r->queried = TRUE;
	if (tsr_trace_list_events(&r->items, &r->n_items, self->trace, t, self->vp.from,
	                          self->vp.to + 1, res) != TSR_OK) {
		g_warning("timeline: %s", tsr_trace_error(self->trace));
		return;
	}
	for (size_t i = 0; i < r->n_items; i++) {
		self->spans_in_view += r->items[i].count;
		self->folded += r->items[i].kind != TSR_TRACE_ITEM_EVENT;
		if (r->items[i].kind != TSR_TRACE_ITEM_SUMMARY && r->items[i].depth < 64 &&
		    r->items[i].depth + 1 > r->depths) {
			r->depths = r->items[i].depth + 1;
			grew = TRUE;
		}
	}
	/* No new size request from here: this runs inside the snapshot,
	 * and the rows scroll within the allocation anyway. */
	if (grew) {
		sa_timeline_layout_rows(self);
		self->grew = TRUE;
	}
}

static GdkRGBA span_colour(const TscSpan *sp, gpointer data)
{
	const thread_rows *r = data;

	return sa_timeline_name_colour(r->owner->trace, r->items[sp->id].name, r->owner->layer_dark);
}

/* A fold: opaque greys, of runs reportlib merged or of its level of detail. */
static GdkRGBA fold_colour(int kind, gpointer data)
{
	gboolean dark = ((const thread_rows *)data)->owner->layer_dark;

	if (kind == TSR_TRACE_ITEM_SUMMARY)
		return dark ? (GdkRGBA){0.36f, 0.36f, 0.38f, 1} : (GdkRGBA){0.70f, 0.70f, 0.72f, 1};
	return dark ? (GdkRGBA){0.45f, 0.45f, 0.47f, 1} : (GdkRGBA){0.60f, 0.60f, 0.62f, 1};
}

static char *span_name(const TscSpan *sp, gpointer data)
{
	const thread_rows *r = data;
	const char *name = tsr_trace_get_name(r->owner->trace, r->items[sp->id].name);

	return tsd_name_cut(name ? name : "?");
}

void sa_timeline_init_lane(SaTimeline *self, size_t t)
{
	static const TscLaneFuncs funcs = {.colour = span_colour, .kind_colour = fold_colour,
	                                   .dup_name = span_name};

	self->tdata[t].owner = self;
	tsc_lane_init(&self->tdata[t].lane, &funcs, &self->tdata[t]);
	self->tdata[t].lane.row_h = ROW_H;
	self->tdata[t].lane.inset = 1;
}

/* One thread's span rows from `top`: its items in the chart kit's span
 * lane. reportlib already folds narrow spans (MERGED) or answers from the
 * level of detail (SUMMARY); the lane's folding rule joins such items of
 * a row that follow each other across gaps narrower than the fold width
 * into one bar carrying their summed count (the gaps are below the
 * resolution): a dense run reads as one bar, not stripes, and costs one
 * node. */
static void draw_spans(SaTimeline *self, GtkSnapshot *s, PangoLayout *layout, size_t t, int width,
                       int top)
{
	thread_rows *r = &self->tdata[t];
	GdkRGBA fg = sa_timeline_foreground(self, 1);

	g_array_set_size(r->lane.spans, 0);
	for (size_t i = 0; i < r->n_items; i++) {
		const tsr_trace_item *it = &r->items[i];
		TscSpan sp = {.from = it->start_ns, .to = it->end_ns, .count = it->count,
		              .row = it->kind == TSR_TRACE_ITEM_SUMMARY ? 0 : it->depth,
		              .kind = (int)it->kind, .folded = it->kind != TSR_TRACE_ITEM_EVENT,
		              .id = (guint)i};

		if (sp.row < r->depths)
			g_array_append_val(r->lane.spans, sp);
	}
	r->lane.y = top;
	tsc_lane_finish(&r->lane);
	self->nodes += tsc_lane_draw(s, layout, &r->lane, &self->vp, LABEL_W,
	                             sa_timeline_plot_width(width), &fg);
}

/* Row `r`'s plot (right of the labels) at widget y `top`. */
static void draw_row(SaTimeline *self, GtkSnapshot *s, PangoLayout *layout, const sa_row *r,
                     int width, gboolean dark)
{
	switch (r->kind) {
	case SA_ROW_PROCESS:
		if (r->collapsed)
			sa_timeline_draw_heatmap(self, s, r, width, sa_timeline_row_top(self, r) + 3,
			                         PROC_H - 6, dark);
		break;
	case SA_ROW_THREAD:
		if (r->collapsed) {
			sa_timeline_draw_heatmap(self, s, r, width, sa_timeline_row_top(self, r) + 1,
			                         ROW_H - 2, dark);
			break;
		}
		query_thread(self, r->index, width);
		if (self->tdata[r->index].has_instants) {
			sa_timeline_query_instants(self, r->index, width);
			sa_timeline_draw_instants(self, s, layout, r->index, width,
			                          sa_timeline_row_top(self, r), dark);
		}
		draw_spans(self, s, layout, r->index, width,
		           sa_timeline_row_top(self, r) + (self->tdata[r->index].has_instants ? INSTANT_H : 0));
		break;
	case SA_ROW_COUNTER:
		sa_timeline_query_counter(self, r->index, width);
		sa_timeline_draw_counter_on(self, s, r->index, width, sa_timeline_row_top(self, r),
		                            self->cdata[r->index].lo, self->cdata[r->index].hi, r->area,
		                            dark);
		break;
	case SA_ROW_SERIES:
		sa_timeline_draw_series(self, s, r, width, dark);
		break;
	}
}

/* The labels' column of the rows in one band: a disclosure triangle for
 * what folds, the name, a counter's value axis; a stripe for pinned rows;
 * a file's header line across the width. */
static void draw_labels(SaTimeline *self, GtkSnapshot *s, PangoLayout *layout, gboolean pinned,
                        int band_top, int band_bottom, int width)
{
	GdkRGBA fg = sa_timeline_foreground(self, 1), dim = sa_timeline_foreground(self, 0.7);
	GdkRGBA sep = sa_timeline_foreground(self, 0.15), accent = {0.2f, 0.45f, 0.9f, 1};

	for (size_t k = 0; k < self->n_order; k++) {
		const sa_row *r = &self->rows[self->order[k]];
		int y = sa_timeline_row_top(self, r);
		g_autofree char *label = NULL, *text = NULL;
		int indent = r->kind == SA_ROW_PROCESS ? 4 : 14;

		if (r->in_pin != pinned || y + r->h < band_top || y >= band_bottom)
			continue;
		label = sa_timeline_row_label(self, r);
		if (r->kind >= SA_ROW_COUNTER)
			text = g_strdup(label);
		else
			text = g_strdup_printf("%s %s", r->collapsed ? "▸" : "▾", label);
		if (r->kind == SA_ROW_PROCESS) {
			gtk_snapshot_append_color(s, &sep, &GRAPHENE_RECT_INIT(0, (float)y, (float)width, 1));
			self->nodes++;
		}
		if (r->pinned) {
			gtk_snapshot_append_color(s, &accent,
			                          &GRAPHENE_RECT_INIT(0, (float)y + 2, 3, (float)r->h - 4));
			self->nodes++;
		}
		gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT(0, (float)y, LABEL_W - 2, (float)r->h));
		sa_timeline_draw_text(s, layout, text, indent, y + (r->kind == SA_ROW_PROCESS ? 3 : 1),
		                      LABEL_W - indent - 4, r->kind == SA_ROW_PROCESS ? &fg : &dim);
		if (r->kind >= SA_ROW_COUNTER) {
			g_autofree char *axis = r->kind == SA_ROW_COUNTER
			                            ? sa_timeline_counter_axis(self, r->index)
			                            : sa_timeline_series_axis(self, r);

			sa_timeline_draw_text(s, layout, axis, indent, y + ROW_H, LABEL_W - indent - 4,
			                      &dim);
		}
		gtk_snapshot_pop(s);
	}
}

/* The rows of one band (pinned or scrolled) within [band_top, band_bottom). */
static void draw_band(SaTimeline *self, GtkSnapshot *s, PangoLayout *layout, gboolean pinned,
                      int band_top, int band_bottom, int width, gboolean dark)
{
	if (band_bottom <= band_top)
		return;
	gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT(LABEL_W, (float)band_top,
	                                              (float)(width - LABEL_W),
	                                              (float)(band_bottom - band_top)));
	/* By index, not through order[]: a thread's query may relay the rows
	 * out (it grew deeper), which rewrites the order. */
	for (size_t i = 0; i < self->n_rows; i++) {
		const sa_row *r = &self->rows[i];
		int top;

		if (!r->shown || r->in_pin != pinned)
			continue;
		top = sa_timeline_row_top(self, r);
		if (top + r->h <= band_top || top >= band_bottom)
			continue;
		draw_row(self, s, layout, r, width, dark);
	}
	gtk_snapshot_pop(s);
	gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT(0, (float)band_top, (float)width,
	                                              (float)(band_bottom - band_top)));
	draw_labels(self, s, layout, pinned, band_top, band_bottom, width);
	gtk_snapshot_pop(s);
}

static GskRenderNode *build_once(SaTimeline *self, int width, int height, gboolean dark)
{
	GtkSnapshot *s = gtk_snapshot_new();
	PangoLayout *layout = gtk_widget_create_pango_layout(GTK_WIDGET(self), NULL);
	GdkRGBA fg = sa_timeline_foreground(self, 1), line = sa_timeline_foreground(self, 0.35);
	GdkRGBA sep = sa_timeline_foreground(self, 0.15);
	sa_ruler ruler = {
		.x0 = LABEL_W,
		.width = sa_timeline_plot_width(width),
		.height = RULER_H,
		.from_ns = self->vp.from,
		.to_ns = self->vp.to,
		.start_ns = self->info->start_ns,
		.wall_clock = self->wall_clock,
		.wall_origin_ns = self->n_procs > 0
		                      ? self->procs[0].start_wall_ns - self->procs[0].offset_ns
		                      : self->info->origin_wall_ns,
	};

	self->nodes = self->folded = 0;
	self->spans_in_view = self->instants_in_view = self->samples_in_view = 0;
	self->n_marks = 0;
	for (size_t t = 0; t < self->n_threads; t++)
		self->tdata[t].queried = FALSE;
	for (size_t c = 0; c < self->n_series; c++)
		self->cdata[c].queried = FALSE;
	pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
	pango_layout_set_single_paragraph_mode(layout, TRUE);
	sa_timeline_clamp_vscroll(self, height);
	self->nodes += sa_ruler_draw(s, layout, &ruler, &fg, &line);
	{
		g_autofree char *corner = sa_ruler_dup_caption(&ruler);

		sa_timeline_draw_text(s, layout, corner, 4, 3, LABEL_W - 8, &fg);
	}
	/* The pinned band, then the rows that scroll under it. */
	draw_band(self, s, layout, TRUE, RULER_H, MIN(RULER_H + self->pin_h, height), width, dark);
	draw_band(self, s, layout, FALSE, sa_timeline_scroll_top(self), height, width, dark);
	gtk_snapshot_append_color(s, &sep, &GRAPHENE_RECT_INIT(LABEL_W - 1, RULER_H, 1,
	                                                       (float)(height - RULER_H)));
	self->nodes++;
	if (self->pin_h > 0) {
		gtk_snapshot_append_color(s, &line,
		                          &GRAPHENE_RECT_INIT(0, (float)(sa_timeline_scroll_top(self) - 2),
		                                              (float)width, 2));
		self->nodes++;
	}
	g_object_unref(layout);
	return gtk_snapshot_free_to_node(s);
}

/* Rows below a thread that grew deeper while drawing moved down: such a
 * layer is drawn again (once; depths only grow, so this is rare). */
GskRenderNode *sa_timeline_build_layer(SaTimeline *self, int width, int height, gboolean dark)
{
	GskRenderNode *node;

	self->layer_dark = dark; /* the style the lanes' colours are of */
	self->grew = FALSE;
	node = build_once(self, width, height, dark);
	if (self->grew) {
		gsk_render_node_unref(node);
		self->grew = FALSE;
		node = build_once(self, width, height, dark);
	}
	return node;
}
