/*
 * The System Analyser's timeline (sa-timeline.h): the widget itself. It
 * holds the document, the visible window, the marked range and the
 * selection; draws the cached layer (sa-timeline-draw.c) and the overlay
 * over it (range, selection, hover, the focused row); and keeps the
 * accessible description saying the visible window. The row model, the
 * drawing of each kind of row and the input live in their own files
 * (sa-timeline-private.h lists them).
 *
 * The layer is rebuilt only when the view, the size, the scroll, the
 * style or the rows change: a frame that only moves the hover costs the
 * overlay.
 */
#include "sa-timeline-private.h"

#include "sa-format.h"

#include <string.h>
#include <tilescope/tsd-app.h>

G_DEFINE_FINAL_TYPE(SaTimeline, sa_timeline, GTK_TYPE_WIDGET)

enum { SIGNAL_RANGE_CHANGED, SIGNAL_VIEW_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];
enum { PROP_0, PROP_WALL_CLOCK, PROP_HIDDEN_ROWS, N_PROPS };
static GParamSpec *props[N_PROPS];

/* --- Geometry ------------------------------------------------------------------- */

int sa_timeline_scroll_top(SaTimeline *self)
{
	return RULER_H + self->pin_h;
}

int sa_timeline_row_top(SaTimeline *self, const sa_row *row)
{
	return row->in_pin ? RULER_H + row->y : sa_timeline_scroll_top(self) + row->y - self->vscroll;
}

void sa_timeline_clamp_vscroll(SaTimeline *self, int height)
{
	int max = MAX(self->content_h - (height - sa_timeline_scroll_top(self)), 0);

	self->vscroll = CLAMP(self->vscroll, 0, max);
}

GdkRGBA sa_timeline_foreground(SaTimeline *self, double alpha)
{
	GdkRGBA fg;

	gtk_style_context_get_color(gtk_widget_get_style_context(GTK_WIDGET(self)), &fg);
	fg.alpha *= (float)alpha;
	return fg;
}

void sa_timeline_draw_text(GtkSnapshot *s, PangoLayout *layout, const char *text, double x,
                           double y, double w, const GdkRGBA *colour)
{
	/* Every text of the timeline comes here: span and instant names, row
	 * labels. Cut before Pango sees it (a trace may hold 16 KiB names,
	 * shaped whole for every span drawn otherwise); the ellipsis at the
	 * end is Pango's, to the width. */
	g_autofree char *cut = tsd_name_cut(text);

	pango_layout_set_text(layout, cut, -1);
	pango_layout_set_width(layout, (int)(MAX(w, 1) * PANGO_SCALE));
	gtk_snapshot_save(s);
	gtk_snapshot_translate(s, &GRAPHENE_POINT_INIT((float)x, (float)y));
	gtk_snapshot_append_layout(s, layout, colour);
	gtk_snapshot_restore(s);
}

void sa_timeline_draw_frame(GtkSnapshot *s, const graphene_rect_t *r, float radius, float width,
                            const GdkRGBA *colour)
{
	GskRoundedRect rr;
	const GdkRGBA cs[4] = {*colour, *colour, *colour, *colour};
	const float ws[4] = {width, width, width, width};

	gsk_rounded_rect_init_from_rect(&rr, r, radius);
	gtk_snapshot_append_border(s, &rr, ws, cs);
}

void sa_timeline_invalidate(SaTimeline *self)
{
	self->layer_stale = TRUE;
	sa_timeline_update_description(self);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* --- The accessible description ------------------------------------------------ */

void sa_timeline_update_description(SaTimeline *self)
{
	GString *d = g_string_new(NULL);

	if (!self->doc) {
		g_string_append(d, "No trace");
	} else {
		g_autofree char *a = sa_format_ms_exact(self->vp.from - self->info->start_ns);
		g_autofree char *b = sa_format_ms_exact(self->vp.to - self->info->start_ns);
		g_autofree char *all = sa_format_ms_exact(self->info->end_ns - self->info->start_ns);
		g_autofree char *n = sa_format_count(self->spans_in_view);
		guint hidden = sa_timeline_get_hidden_rows(self);

		g_string_append_printf(d, "Showing %s – %s of %s; %s spans in view", a, b, all, n);
		if (self->instants_in_view > 0) {
			g_autofree char *ni = sa_format_count(self->instants_in_view);

			g_string_append_printf(d, ", %s instants", ni);
		}
		if (self->range_from < self->range_to) {
			g_autofree char *ra = sa_format_ms_exact(self->range_from - self->info->start_ns);
			g_autofree char *rb = sa_format_ms_exact(self->range_to - self->info->start_ns);

			g_string_append_printf(d, "; marked %s – %s", ra, rb);
		}
		if (self->sel_thread >= 0) {
			g_autofree char *name = tsd_name_cut(tsr_trace_get_name(self->trace,
			                                                        self->sel.name));
			g_autofree char *dur = sa_format_duration((double)self->sel.busy_ns);
			g_autofree char *thread = self->threads[self->sel_thread].name
			                              ? tsd_name_cut(self->threads[self->sel_thread].name)
			                              : g_strdup("a thread");

			g_string_append_printf(d, "; selected %s, %s, on %s", name, dur, thread);
		}
		if (self->focus_row >= 0 && (size_t)self->focus_row < self->n_rows) {
			const sa_row *r = &self->rows[self->focus_row];
			g_autofree char *label = sa_timeline_row_label(self, r);

			g_string_append_printf(d, "; row %s", label);
			if (r->kind == SA_ROW_SERIES) {
				sa_timeline_series_describe(self, r, d);
			} else if (r->kind != SA_ROW_COUNTER) {
				g_string_append(d, r->collapsed ? ", folded" : ", expanded");
			} else {
				const counter_rows *c = &self->cdata[r->index];
				uint64_t samples = 0;
				g_autofree char *axis = sa_timeline_counter_axis(self, r->index);
				g_autofree char *ns = NULL;

				for (size_t i = 0; c->queried && i < c->n_buckets; i++)
					samples += c->buckets[i].count;
				ns = sa_format_count(samples);
				g_string_append_printf(d, ", %s, %s samples in view, %s", r->area ? "area" : "line",
				                       ns, axis);
			}
			if (r->pinned)
				g_string_append(d, ", pinned");
		}
		if (hidden > 0)
			g_string_append_printf(d, "; %u rows hidden", hidden);
		if (self->wall_clock)
			g_string_append(d, "; ruler in wall-clock time");
	}
	if (g_strcmp0(d->str, self->description) != 0) {
		g_free(self->description);
		self->description = g_strdup(d->str);
		gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
		                               self->description, -1);
	}
	g_string_free(d, TRUE);
}

/* --- Snapshot -------------------------------------------------------------------- */

/* The widget y of `item` of thread `t`, or -1 when its row is not shown. */
static int item_top(SaTimeline *self, size_t t, const tsr_trace_item *it)
{
	for (size_t i = 0; i < self->n_rows; i++) {
		const sa_row *r = &self->rows[i];

		if (r->kind == SA_ROW_THREAD && r->index == t) {
			guint depth = it->kind == TSR_TRACE_ITEM_SUMMARY ? 0 : it->depth;

			if (!r->shown || r->collapsed)
				return -1;
			return sa_timeline_row_top(self, r) + (self->tdata[t].has_instants ? INSTANT_H : 0) +
			       (int)depth * ROW_H;
		}
	}
	return -1;
}

/* An outline of `item` of thread `t` (overlay). */
static void outline(SaTimeline *self, GtkSnapshot *s, size_t t, const tsr_trace_item *it,
                    int width, const GdkRGBA *c, float w)
{
	int y = item_top(self, t, it);
	const TscLane row = {.y = y, .row_h = ROW_H, .inset = 1};

	if (y >= 0)
		tsc_lane_draw_outline(s, &row, &self->vp, LABEL_W, sa_timeline_plot_width(width),
		                      it->start_ns, it->end_ns, 0, 1, c, w);
}

static void sa_timeline_snapshot(GtkWidget *widget, GtkSnapshot *s)
{
	SaTimeline *self = SA_TIMELINE(widget);
	int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
	gboolean dark;
	GdkRGBA accent = {0.2f, 0.45f, 0.9f, 1};

	if (!self->doc || width <= LABEL_W || height <= RULER_H)
		return;
	dark = tsd_widget_is_dark(GTK_WIDGET(self));
	if (!self->layer || self->layer_stale || self->layer_from != self->vp.from ||
	    self->layer_to != self->vp.to || self->layer_w != width || self->layer_h != height ||
	    self->layer_vscroll != self->vscroll || self->layer_dark != dark) {
		g_clear_pointer(&self->layer, gsk_render_node_unref);
		self->layer = sa_timeline_build_layer(self, width, height, dark);
		self->layer_from = self->vp.from;
		self->layer_to = self->vp.to;
		self->layer_w = width;
		self->layer_h = height;
		self->layer_vscroll = self->vscroll;
		self->layer_stale = FALSE;
		sa_timeline_update_description(self);
	}
	if (self->layer)
		gtk_snapshot_append_node(s, self->layer);

	/* The focused row header: a frame round its label when the widget
	 * has the keyboard. */
	if (self->focus_row >= 0 && gtk_widget_has_focus(widget) &&
	    self->rows[self->focus_row].shown) {
		const sa_row *r = &self->rows[self->focus_row];
		int y = sa_timeline_row_top(self, r);

		if (r->in_pin || y >= sa_timeline_scroll_top(self) - r->h)
			sa_timeline_draw_frame(s, &GRAPHENE_RECT_INIT(1, (float)y + 1, LABEL_W - 3,
			                                              (float)MIN(r->h, PROC_H) - 2),
			                       3, 2, &accent);
	}

	/* The overlay: the marked range, the drag, the selection, the hover. */
	gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT(LABEL_W, 0, (float)(width - LABEL_W),
	                                              (float)height));
	tsc_timeline_draw_range(s, &self->vp, LABEL_W, sa_timeline_plot_width(width), height,
	                        self->range_from, self->range_to, &accent);
	gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT(LABEL_W, RULER_H, (float)(width - LABEL_W),
	                                              (float)(height - RULER_H)));
	if (self->sel_thread >= 0 && self->sel.end_ns >= self->vp.from &&
	    self->sel.start_ns <= self->vp.to) {
		GdkRGBA c = dark ? (GdkRGBA){1, 1, 1, 1} : (GdkRGBA){0, 0, 0, 1};

		outline(self, s, (size_t)self->sel_thread, &self->sel, width, &c, 2);
	}
	if (self->hover_thread >= 0)
		outline(self, s, (size_t)self->hover_thread, &self->hover, width, &accent, 1);
	gtk_snapshot_pop(s);
	gtk_snapshot_pop(s);
}

/* --- The view ----------------------------------------------------------------------- */

SaDocument *sa_timeline_get_document(SaTimeline *self)
{
	g_return_val_if_fail(SA_IS_TIMELINE(self), NULL);
	return self->doc;
}

/* The window is the chart kit's viewport (tsc-timeline.h): one clamping
 * and one zoom and pan convention with every timeline. */
void sa_timeline_view_changed(SaTimeline *self)
{
	self->hover_thread = -1;
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_VIEW_CHANGED], 0);
}

void sa_timeline_set_view(SaTimeline *self, int64_t from_ns, int64_t to_ns)
{
	g_return_if_fail(SA_IS_TIMELINE(self));
	if (self->doc && tsc_viewport_set(&self->vp, from_ns, to_ns))
		sa_timeline_view_changed(self);
}

void sa_timeline_get_view(SaTimeline *self, int64_t *from_ns, int64_t *to_ns)
{
	*from_ns = self->vp.from;
	*to_ns = self->vp.to;
}

void sa_timeline_set_visible_width(SaTimeline *self, int64_t width_ns)
{
	g_return_if_fail(SA_IS_TIMELINE(self));
	if (self->doc && tsc_viewport_set_width(&self->vp, width_ns))
		sa_timeline_view_changed(self);
}

gboolean sa_timeline_zoom_to_range(SaTimeline *self)
{
	int64_t from, to;

	g_return_val_if_fail(SA_IS_TIMELINE(self), FALSE);
	if (!self->doc || !sa_timeline_get_range(self, &from, &to))
		return FALSE;
	sa_timeline_set_view(self, from, to);
	return TRUE;
}

void sa_timeline_set_range(SaTimeline *self, int64_t from_ns, int64_t to_ns)
{
	if (from_ns >= to_ns)
		from_ns = to_ns = 0;
	if (from_ns == self->range_from && to_ns == self->range_to)
		return;
	self->range_from = from_ns;
	self->range_to = to_ns;
	sa_timeline_update_description(self);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
}

gboolean sa_timeline_get_range(SaTimeline *self, int64_t *from_ns, int64_t *to_ns)
{
	*from_ns = INT64_MIN;
	*to_ns = INT64_MAX;
	if (self->range_from < self->range_to) {
		*from_ns = self->range_from;
		*to_ns = self->range_to;
		return TRUE;
	}
	if (self->sel_thread >= 0) {
		*from_ns = self->sel.start_ns;
		*to_ns = MAX(self->sel.end_ns, self->sel.start_ns + 1);
		return TRUE;
	}
	return FALSE;
}

void sa_timeline_select(SaTimeline *self, gssize thread, const tsr_trace_item *it)
{
	if (thread < 0 && self->sel_thread < 0)
		return;
	self->sel_thread = thread;
	if (it)
		self->sel = *it;
	sa_timeline_update_description(self);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
}

void sa_timeline_clear_selection(SaTimeline *self)
{
	self->sel_thread = -1;
	self->range_from = self->range_to = 0;
	sa_timeline_update_description(self);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
}

void sa_timeline_set_wall_clock(SaTimeline *self, gboolean wall_clock)
{
	g_return_if_fail(SA_IS_TIMELINE(self));
	wall_clock = !!wall_clock;
	if (self->wall_clock == wall_clock)
		return;
	self->wall_clock = wall_clock;
	sa_timeline_invalidate(self);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_WALL_CLOCK]);
}

void sa_timeline_notify_hidden(SaTimeline *self)
{
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_HIDDEN_ROWS]);
}

void sa_timeline_measure_frame(SaTimeline *self, int width, int height, sa_timeline_frame *out)
{
	GskRenderNode *node;

	memset(out, 0, sizeof(*out));
	if (!self->doc)
		return;
	node = sa_timeline_build_layer(self, width, height, FALSE);
	gsk_render_node_unref(node);
	out->spans = self->spans_in_view;
	out->instants = self->instants_in_view;
	out->samples = self->samples_in_view;
	out->nodes = self->nodes;
	out->folded = self->folded;
	for (size_t i = 0; i < self->n_rows; i++) {
		int top = sa_timeline_row_top(self, &self->rows[i]);

		out->rows += self->rows[i].shown && top + self->rows[i].h > RULER_H && top < height;
	}
	/* The cached layer was drawn for another size. */
	g_clear_pointer(&self->layer, gsk_render_node_unref);
}

static void clear_document(SaTimeline *self)
{
	for (size_t t = 0; t < self->n_threads; t++) {
		free(self->tdata[t].items);
		tsc_lane_clear(&self->tdata[t].lane);
	}
	for (size_t c = 0; c < self->n_series; c++)
		g_free(self->cdata[c].buckets);
	sa_timeline_series_clear(self);
	g_clear_pointer(&self->tdata, g_free);
	g_clear_pointer(&self->cdata, g_free);
	g_clear_pointer(&self->rows, g_free);
	g_clear_pointer(&self->order, g_free);
	g_clear_pointer(&self->marks, g_free);
	g_clear_pointer(&self->layer, gsk_render_node_unref);
	g_clear_pointer(&self->doc, sa_document_unref);
	self->n_threads = self->n_procs = self->n_series = self->n_rows = self->n_order = 0;
	self->n_marks = self->cap_marks = 0;
	self->trace = NULL;
	self->hover_thread = self->sel_thread = self->focus_row = -1;
	self->range_from = self->range_to = 0;
	self->vscroll = 0;
	self->spans_in_view = self->instants_in_view = self->samples_in_view = 0;
}

void sa_timeline_set_document(SaTimeline *self, SaDocument *doc)
{
	g_return_if_fail(SA_IS_TIMELINE(self));
	clear_document(self);
	if (doc) {
		self->doc = sa_document_ref(doc);
		self->trace = sa_document_get_trace(doc);
		self->info = tsr_trace_get_info(self->trace);
		if (tsr_trace_get_processes(&self->procs, &self->n_procs, self->trace) != TSR_OK ||
		    tsr_trace_get_threads(&self->threads, &self->n_threads, self->trace) != TSR_OK)
			self->n_procs = self->n_threads = 0;
		if (tsr_trace_get_series(&self->series, &self->n_series, self->trace) != TSR_OK)
			self->n_series = 0;
		self->tdata = g_new0(thread_rows, self->n_threads);
		for (size_t t = 0; t < self->n_threads; t++) {
			tsr_trace_instant *one = NULL;
			size_t n = 0;

			self->tdata[t].depths = 1;
			sa_timeline_init_lane(self, t);
			/* Whether it has a lane of markers: any instant at all. */
			if (tsr_trace_list_instants(&one, &n, self->trace, (int64_t)t, INT64_MIN, INT64_MAX,
			                            1) == TSR_OK)
				self->tdata[t].has_instants = n > 0;
			free(one);
		}
		self->cdata = g_new0(counter_rows, self->n_series);
		sa_timeline_build_rows(self);
		gtk_widget_queue_resize(GTK_WIDGET(self));
		tsc_viewport_init(&self->vp, TSC_TIMELINE_NS, self->info->start_ns, self->info->end_ns,
		                  MIN_WINDOW_NS);
	}
	g_clear_pointer(&self->description, g_free);
	sa_timeline_update_description(self);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_VIEW_CHANGED], 0);
	sa_timeline_notify_hidden(self);
}

/* --- GObject ------------------------------------------------------------------------ */

static void sa_timeline_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *min_baseline,
                                int *nat_baseline)
{
	SaTimeline *self = SA_TIMELINE(widget);

	if (orientation == GTK_ORIENTATION_HORIZONTAL) {
		*minimum = LABEL_W + 100;
		*natural = LABEL_W + 800;
	} else {
		*minimum = RULER_H + 3 * ROW_H;
		*natural = RULER_H + MIN(MAX(self->pin_h + self->content_h + ROW_H, 4 * ROW_H), 600);
	}
	*min_baseline = *nat_baseline = -1;
}

static void sa_timeline_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	SaTimeline *self = SA_TIMELINE(object);

	switch (id) {
	case PROP_WALL_CLOCK:
		g_value_set_boolean(value, self->wall_clock);
		break;
	case PROP_HIDDEN_ROWS:
		g_value_set_uint(value, sa_timeline_get_hidden_rows(self));
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void sa_timeline_set_property(GObject *object, guint id, const GValue *value,
                                     GParamSpec *pspec)
{
	switch (id) {
	case PROP_WALL_CLOCK:
		sa_timeline_set_wall_clock(SA_TIMELINE(object), g_value_get_boolean(value));
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void sa_timeline_dispose(GObject *object)
{
	clear_document(SA_TIMELINE(object));
	G_OBJECT_CLASS(sa_timeline_parent_class)->dispose(object);
}

static void sa_timeline_finalize(GObject *object)
{
	g_free(SA_TIMELINE(object)->description);
	G_OBJECT_CLASS(sa_timeline_parent_class)->finalize(object);
}

static void sa_timeline_class_init(SaTimelineClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
	GObjectClass *object_class = G_OBJECT_CLASS(klass);

	object_class->dispose = sa_timeline_dispose;
	object_class->finalize = sa_timeline_finalize;
	object_class->get_property = sa_timeline_get_property;
	object_class->set_property = sa_timeline_set_property;
	widget_class->snapshot = sa_timeline_snapshot;
	widget_class->measure = sa_timeline_measure;
	widget_class->query_tooltip = sa_timeline_query_tooltip;
	gtk_widget_class_set_css_name(widget_class, "timeline");
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
	props[PROP_WALL_CLOCK] = g_param_spec_boolean("wall-clock", NULL, NULL, FALSE,
	                                              G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY |
	                                                  G_PARAM_STATIC_STRINGS);
	props[PROP_HIDDEN_ROWS] = g_param_spec_uint("hidden-rows", NULL, NULL, 0, G_MAXUINT, 0,
	                                            G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(object_class, N_PROPS, props);
	/* The window the statistics are about changed (sa_timeline_get_range). */
	signals[SIGNAL_RANGE_CHANGED] = g_signal_new("range-changed", G_TYPE_FROM_CLASS(klass),
	                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
	                                             G_TYPE_NONE, 0);
	/* The visible window (or the document) changed. */
	signals[SIGNAL_VIEW_CHANGED] = g_signal_new("view-changed", G_TYPE_FROM_CLASS(klass),
	                                            G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
	                                            G_TYPE_NONE, 0);
}

static void sa_timeline_init(SaTimeline *self)
{
	self->hover_thread = self->sel_thread = self->focus_row = -1;
	gtk_widget_set_focusable(GTK_WIDGET(self), TRUE);
	gtk_widget_set_focus_on_click(GTK_WIDGET(self), TRUE);
	gtk_widget_set_has_tooltip(GTK_WIDGET(self), TRUE);
	gtk_widget_add_css_class(GTK_WIDGET(self), "view");
	sa_timeline_install_input(self);
	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Timeline", -1);
	sa_timeline_update_description(self);
}

GtkWidget *sa_timeline_new(void)
{
	return g_object_new(SA_TYPE_TIMELINE, NULL);
}

/* --- Selecting a span from outside (search, details) ------------------------------ */

void sa_timeline_select_span(SaTimeline *self, size_t thread, const tsr_trace_item *span)
{
	int64_t dur, pad;
	gssize row = -1;
	const sa_row *r;
	int visible, y;

	g_return_if_fail(SA_IS_TIMELINE(self));
	if (!self->doc || thread >= self->n_threads || span->kind != TSR_TRACE_ITEM_EVENT)
		return;
	/* The span in the middle third of the view (at least 1 µs wide). */
	dur = MAX(span->end_ns - span->start_ns, (int64_t)0);
	pad = MAX(dur, (int64_t)500);
	sa_timeline_set_view(self, span->start_ns - pad, span->end_ns + pad);
	/* Its thread's row shown: a hidden or folded row (or file) opens, since
	 * the user asked to see this span. */
	for (size_t k = 0; k < self->n_rows; k++)
		if (self->rows[k].kind == SA_ROW_THREAD && self->rows[k].index == thread)
			row = (gssize)k;
	if (row >= 0) {
		size_t file = self->rows[row].parent;

		sa_timeline_set_row_hidden(self, file, FALSE);
		sa_timeline_set_row_collapsed(self, file, FALSE);
		sa_timeline_set_row_hidden(self, (size_t)row, FALSE);
		sa_timeline_set_row_collapsed(self, (size_t)row, FALSE);
		r = &self->rows[row];
		/* Its depth in sight (a thread's rows are as deep as the last
		 * frame saw; rows in the pinned band never scroll). */
		visible = gtk_widget_get_height(GTK_WIDGET(self)) - sa_timeline_scroll_top(self);
		y = r->y + (self->tdata[thread].has_instants ? INSTANT_H : 0) +
		    (int)span->depth * ROW_H;
		if (r->shown && !r->in_pin && visible > ROW_H &&
		    (y < self->vscroll || y + ROW_H > self->vscroll + visible)) {
			self->vscroll = MAX(r->y, y + ROW_H - visible);
			sa_timeline_clamp_vscroll(self, gtk_widget_get_height(GTK_WIDGET(self)));
		}
	}
	self->range_from = self->range_to = 0;
	sa_timeline_select(self, (gssize)thread, span);
}

gboolean sa_timeline_get_selection(SaTimeline *self, size_t *thread, tsr_trace_item *span)
{
	g_return_val_if_fail(SA_IS_TIMELINE(self), FALSE);
	if (self->sel_thread < 0)
		return FALSE;
	*thread = (size_t)self->sel_thread;
	*span = self->sel;
	return TRUE;
}
