/*
 * The System Analyser's timeline (sa-timeline.h).
 *
 * A frame: for every thread, one tsr_trace_list_events over the visible
 * window at SA_TIMELINE_FOLD_PX pixels of resolution. reportlib answers
 * with EVENT items (wide enough to draw on their own), MERGED runs of
 * narrow spans of one depth, or SUMMARY buckets from its level of detail
 * when the window holds too many spans to decode; every span in view is
 * counted in exactly one item, so what is drawn adds up to the spans in
 * the window and nothing narrow disappears (a folded bar is at least one
 * pixel wide). The items are kept for hit-testing until the next
 * rebuild.
 *
 * Rows: a header per file (process), then per thread one row per depth
 * seen. A thread's depth is learnt from the items (a level-of-detail
 * answer only shows depth 0), so rows appear as deeper spans come into
 * view and never go away.
 */
#include "sa-timeline.h"

#include "sa-format.h"

#include <tilescope/tsc-axis.h>

#include <math.h>
#include <string.h>

#define RULER_H 24      /* px */
#define LABEL_W 200     /* px: the labels' column */
#define ROW_H 18        /* px: one depth */
#define PROC_H 22       /* px: a file's header */
#define THREAD_GAP 6    /* px below a thread */
#define MIN_WINDOW_NS 100
/* Spans one frame may decode one by one, all threads together; past a
 * thread's share its query answers from the level of detail. */
#define FRAME_DECODE_BUDGET (1u << 18)

/* One thread's items of the last rebuild, and where its rows lie. */
typedef struct thread_rows {
	tsr_trace_item *items;
	size_t n_items;
	guint depths;           /* rows: the deepest depth seen + 1, at least 1 */
	int y;                  /* top of its first row, in content pixels */
} thread_rows;

struct _SaTimeline {
	GtkWidget parent_instance;
	SaDocument *doc;
	tsr_trace *trace;                 /* borrowed from doc */
	const tsr_trace_info *info;
	const tsr_trace_process *procs;
	size_t n_procs;
	const tsr_trace_thread *threads;
	size_t n_threads;
	thread_rows *rows;                /* n_threads */
	int *proc_y;                      /* n_procs: top of each header, content pixels */
	int content_h;                    /* px, every row */
	int vscroll;                      /* px of content scrolled off the top */

	int64_t view_from, view_to;       /* the visible window, ns (inclusive) */
	uint64_t spans_in_view;
	guint nodes;                      /* colour nodes of the last rebuild */

	/* The cached layer and what it was drawn for. */
	GskRenderNode *layer;
	int64_t layer_from, layer_to;
	int layer_w, layer_h, layer_vscroll;
	gboolean layer_dark;

	/* Hover and selection: a thread and an item of the last rebuild
	 * (hover), a copy of the item (selection: it outlives rebuilds). */
	gssize hover_thread;
	tsr_trace_item hover;
	gssize sel_thread;
	tsr_trace_item sel;
	/* The marked range, ns; from >= to: none. */
	int64_t range_from, range_to;

	/* A drag: panning, or marking a range with Shift. */
	gboolean dragging, marking;
	double drag_x, drag_y;           /* where the drag began */
	int64_t drag_from, drag_to;       /* the view when it began */
	int drag_vscroll;
	double pointer_x, pointer_y;
	char *description;
};

G_DEFINE_FINAL_TYPE(SaTimeline, sa_timeline, GTK_TYPE_WIDGET)

enum { SIGNAL_RANGE_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* --- Geometry ------------------------------------------------------------------- */

static int plot_width(SaTimeline *self, int width)
{
	(void)self;
	return MAX(width - LABEL_W, 1);
}

static double ns_per_px(SaTimeline *self, int width)
{
	return (double)(self->view_to - self->view_from + 1) / plot_width(self, width);
}

/* The x (widget pixels) of time `t`. */
static double x_of(SaTimeline *self, int width, int64_t t)
{
	return LABEL_W + (double)(t - self->view_from) / ns_per_px(self, width);
}

/* The time at x (widget pixels). */
static int64_t t_of(SaTimeline *self, int width, double x)
{
	return self->view_from + (int64_t)llround((x - LABEL_W) * ns_per_px(self, width));
}

/* Lays the rows out from each thread's depths (content pixels). */
static void layout_rows(SaTimeline *self)
{
	int y = 0;

	for (size_t p = 0; p < self->n_procs; p++) {
		self->proc_y[p] = y;
		y += PROC_H;
		for (size_t t = self->procs[p].first_thread;
		     t < self->procs[p].first_thread + self->procs[p].n_threads && t < self->n_threads;
		     t++) {
			self->rows[t].y = y;
			y += (int)self->rows[t].depths * ROW_H + THREAD_GAP;
		}
	}
	self->content_h = y;
}

static void clamp_vscroll(SaTimeline *self, int height)
{
	int max = MAX(self->content_h - (height - RULER_H), 0);

	self->vscroll = CLAMP(self->vscroll, 0, max);
}

/* --- Queries ------------------------------------------------------------------- */

/* Asks reportlib for every thread's items in the view at `width` pixels;
 * learns the threads' depths and counts the spans in view. */
static void query(SaTimeline *self, int width)
{
	int64_t from = self->view_from, to = self->view_to + 1;
	uint64_t res = (uint64_t)ceil(ns_per_px(self, width) * SA_TIMELINE_FOLD_PX);
	gboolean grew = FALSE;

	self->spans_in_view = 0;
	self->hover_thread = -1;
	for (size_t t = 0; t < self->n_threads; t++) {
		thread_rows *r = &self->rows[t];

		free(r->items);
		r->items = NULL;
		r->n_items = 0;
		if (tsr_trace_list_events(&r->items, &r->n_items, self->trace, t, from, to, res) !=
		    TSR_OK) {
			g_warning("timeline: %s", tsr_trace_error(self->trace));
			continue;
		}
		for (size_t i = 0; i < r->n_items; i++) {
			self->spans_in_view += r->items[i].count;
			if (r->items[i].kind != TSR_TRACE_ITEM_SUMMARY && r->items[i].depth < 64 &&
			    r->items[i].depth + 1 > r->depths) {
				r->depths = r->items[i].depth + 1;
				grew = TRUE;
			}
		}
	}
	/* No new size request from here: this runs inside the snapshot,
	 * and the rows scroll within the allocation anyway. */
	if (grew)
		layout_rows(self);
}

/* --- Drawing ------------------------------------------------------------------- */

/* A colour per name, from a fixed palette (readable text on either). */
static GdkRGBA name_colour(uint32_t name, gboolean dark)
{
	static const char *const light[] = {"#8fb8de", "#a3d9a5", "#f6c28b", "#d8a7d0", "#f29e9e",
	                                    "#9fd8d8", "#d9d68f", "#b8b0e8", "#c9c0a8", "#e8b0c8"};
	static const char *const darkp[] = {"#2f5f8a", "#2f6f3a", "#8a5a24", "#6a3d68", "#8a3535",
	                                    "#2d6b6b", "#6b6826", "#4a4388", "#5f5646", "#7a3d58"};
	GdkRGBA c;
	uint32_t h = name == TSR_TRACE_NO_NAME ? 0 : (name * 2654435761u) >> 16;

	gdk_rgba_parse(&c, (dark ? darkp : light)[h % G_N_ELEMENTS(light)]);
	return c;
}

static gboolean is_dark(SaTimeline *self)
{
	GdkRGBA fg;

	gtk_style_context_get_color(gtk_widget_get_style_context(GTK_WIDGET(self)), &fg);
	return 0.3 * fg.red + 0.59 * fg.green + 0.11 * fg.blue > 0.5;
}

static GdkRGBA foreground(SaTimeline *self, double alpha)
{
	GdkRGBA fg;

	gtk_style_context_get_color(gtk_widget_get_style_context(GTK_WIDGET(self)), &fg);
	fg.alpha *= (float)alpha;
	return fg;
}

/* Text at (x, y), at most `w` pixels wide (ellipsised). */
static void draw_text(GtkSnapshot *s, PangoLayout *layout, const char *text, double x, double y,
                      double w, const GdkRGBA *colour)
{
	pango_layout_set_text(layout, text, -1);
	pango_layout_set_width(layout, (int)(w * PANGO_SCALE));
	gtk_snapshot_save(s);
	gtk_snapshot_translate(s, &GRAPHENE_POINT_INIT((float)x, (float)y));
	gtk_snapshot_append_layout(s, layout, colour);
	gtk_snapshot_restore(s);
}

/* "40.2986 ms" for a tick at `v` ns after the start: the unit of the
 * window's end `hi` (so deep zooms far into a trace stay readable), with
 * as many decimals as the step `step` needs. */
static char *tick_label(double v, double step, double hi)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
	size_t i = 0;

	while (i + 1 < G_N_ELEMENTS(units) && hi < units[i].scale)
		i++;
	{
		double q = step / units[i].scale;
		int decimals = q >= 1 ? 0 : (int)ceil(-log10(q) - 1e-9);

		return g_strdup_printf("%.*f %s", CLAMP(decimals, 0, 9), v / units[i].scale,
		                       units[i].unit);
	}
}

/* The ruler: ticks in time relative to the trace's start. */
static void draw_ruler(SaTimeline *self, GtkSnapshot *s, PangoLayout *layout, int width)
{
	GdkRGBA fg = foreground(self, 1), line = foreground(self, 0.35);
	double lo = (double)(self->view_from - self->info->start_ns);
	double hi = (double)(self->view_to - self->info->start_ns);
	double step, first;
	guint n = tsc_axis_nice_ticks(lo, hi, (guint)MAX(plot_width(self, width) / 110, 2), 1, &step,
	                              &first);

	gtk_snapshot_append_color(s, &line, &GRAPHENE_RECT_INIT(0, RULER_H - 1, (float)width, 1));
	self->nodes++;
	for (guint i = 0; i < n; i++) {
		double v = first + step * i;
		double x = x_of(self, width, self->info->start_ns + (int64_t)llround(v));
		g_autofree char *text = tick_label(v, step, hi);

		gtk_snapshot_append_color(s, &line, &GRAPHENE_RECT_INIT((float)x, 14, 1, RULER_H - 14));
		self->nodes++;
		/* A label that would not fit before the right edge is left out. */
		if (x + 3 + 8 * strlen(text) <= (double)width)
			draw_text(s, layout, text, x + 3, 2, 100, &fg);
	}
}

/* A folded bar's count as fits in `w` pixels: "×125,000", else "×125k"
 * or "×1.2M"; FALSE when neither fits (a cut number would mislead). */
static gboolean count_label(PangoLayout *layout, uint64_t count, double w, char *buf, size_t size)
{
	g_autofree char *full = sa_format_count(count);
	int pw;

	pango_layout_set_width(layout, -1);
	g_snprintf(buf, size, "×%s", full);
	pango_layout_set_text(layout, buf, -1);
	pango_layout_get_pixel_size(layout, &pw, NULL);
	if (pw <= w)
		return TRUE;
	if (count >= 1000000)
		g_snprintf(buf, size, "×%.1fM", (double)count / 1e6);
	else if (count >= 1000)
		g_snprintf(buf, size, "×%.0fk", (double)count / 1e3);
	else
		return FALSE;
	pango_layout_set_text(layout, buf, -1);
	pango_layout_get_pixel_size(layout, &pw, NULL);
	return pw <= w;
}

/* One thread's rows: its items at their depths, names where they fit,
 * folded bars with their counts. */
static void draw_thread(SaTimeline *self, GtkSnapshot *s, PangoLayout *layout, size_t t, int width,
                        int top, gboolean dark)
{
	thread_rows *r = &self->rows[t];
	GdkRGBA text = dark ? (GdkRGBA){0.95f, 0.95f, 0.95f, 1} : (GdkRGBA){0.1f, 0.1f, 0.1f, 1};
	/* Opaque greys: folded bars meet at fractional pixels, where
	 * translucent ones would show seams. */
	GdkRGBA folded = dark ? (GdkRGBA){0.45f, 0.45f, 0.47f, 1} : (GdkRGBA){0.60f, 0.60f, 0.62f, 1};
	GdkRGBA summary = dark ? (GdkRGBA){0.36f, 0.36f, 0.38f, 1} : (GdkRGBA){0.70f, 0.70f, 0.72f, 1};
	double right = width;

	for (size_t i = 0; i < r->n_items; i++) {
		const tsr_trace_item *it = &r->items[i];
		double x0 = x_of(self, width, it->start_ns), x1 = x_of(self, width, it->end_ns);
		guint depth = it->kind == TSR_TRACE_ITEM_SUMMARY ? 0 : it->depth;
		double y = top + (double)depth * ROW_H;
		uint64_t count = it->count;
		GdkRGBA c;
		char buf[48];

		/* Folded items of a row that follow each other across gaps
		 * narrower than the fold width are one bar carrying their summed
		 * count (the gaps are below the resolution): a dense run reads
		 * as one bar, not stripes, and costs one node. */
		if (it->kind != TSR_TRACE_ITEM_EVENT) {
			while (i + 1 < r->n_items && r->items[i + 1].kind == it->kind &&
			       r->items[i + 1].depth == it->depth) {
				double next = x_of(self, width, r->items[i + 1].start_ns);

				if (next - x1 >= SA_TIMELINE_FOLD_PX)
					break;
				i++;
				count += r->items[i].count;
				x1 = MAX(x1, x_of(self, width, r->items[i].end_ns));
			}
			x0 = floor(x0);
			x1 = ceil(x1);
		}
		x0 = MAX(x0, LABEL_W);
		x1 = MIN(x1, right);
		/* Nothing in view vanishes: at least a pixel. */
		if (x1 - x0 < 1)
			x1 = x0 + 1;
		if (x0 >= right || depth >= r->depths)
			continue;
		if (it->kind == TSR_TRACE_ITEM_EVENT)
			c = name_colour(it->name, dark);
		else
			c = it->kind == TSR_TRACE_ITEM_MERGED ? folded : summary;
		gtk_snapshot_append_color(s, &c, &GRAPHENE_RECT_INIT((float)x0, (float)y + 1,
		                                                     (float)(x1 - x0), ROW_H - 2));
		self->nodes++;
		if (x1 - x0 < 24)
			continue;
		if (it->kind == TSR_TRACE_ITEM_EVENT) {
			const char *name = tsr_trace_get_name(self->trace, it->name);

			draw_text(s, layout, name ? name : "?", x0 + 3, y + 1, x1 - x0 - 6, &text);
		} else if (count_label(layout, count, x1 - x0 - 6, buf, sizeof(buf))) {
			draw_text(s, layout, buf, x0 + 3, y + 1, x1 - x0 - 6,
			          &(GdkRGBA){text.red, text.green, text.blue, 0.85f});
		}
	}
}

/* The labels' column: files and threads. */
static void draw_labels(SaTimeline *self, GtkSnapshot *s, PangoLayout *layout, int width,
                        int height)
{
	GdkRGBA fg = foreground(self, 1), dim = foreground(self, 0.7), sep = foreground(self, 0.15);

	gtk_snapshot_append_color(s, &sep, &GRAPHENE_RECT_INIT(LABEL_W - 1, RULER_H, 1,
	                                                       (float)(height - RULER_H)));
	self->nodes++;
	for (size_t p = 0; p < self->n_procs; p++) {
		int y = RULER_H + self->proc_y[p] - self->vscroll;
		g_autofree char *base = g_path_get_basename(self->procs[p].path);
		g_autofree char *text = g_strdup_printf("%s (pid %" G_GINT64_FORMAT ") — %s",
		                                        self->procs[p].name ? self->procs[p].name : "?",
		                                        self->procs[p].pid, base);

		if (y + PROC_H >= RULER_H && y < height) {
			gtk_snapshot_append_color(s, &sep, &GRAPHENE_RECT_INIT(0, (float)y, (float)width, 1));
			self->nodes++;
			draw_text(s, layout, text, 4, y + 3, width - 8, &fg);
		}
	}
	for (size_t t = 0; t < self->n_threads; t++) {
		int y = RULER_H + self->rows[t].y - self->vscroll;
		g_autofree char *text = g_strdup_printf("%s (tid %" G_GINT64_FORMAT ")",
		                                        self->threads[t].name ? self->threads[t].name
		                                                              : "thread",
		                                        self->threads[t].tid);

		if (y + ROW_H >= RULER_H && y < height) {
			gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT(0, (float)y, LABEL_W - 2, ROW_H));
			draw_text(s, layout, text, 14, y + 1, LABEL_W - 18, &dim);
			gtk_snapshot_pop(s);
		}
	}
}

/* Builds the cached layer for `width` x `height`: the queries, then the
 * ruler, the rows in view and the labels. */
static GskRenderNode *build_layer(SaTimeline *self, int width, int height, gboolean dark)
{
	GtkSnapshot *s = gtk_snapshot_new();
	PangoLayout *layout = gtk_widget_create_pango_layout(GTK_WIDGET(self), NULL);

	self->nodes = 0;
	pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
	pango_layout_set_single_paragraph_mode(layout, TRUE);
	query(self, width);
	clamp_vscroll(self, height);
	draw_ruler(self, s, layout, width);
	gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT(LABEL_W, RULER_H, (float)(width - LABEL_W),
	                                              (float)(height - RULER_H)));
	for (size_t t = 0; t < self->n_threads; t++) {
		int top = RULER_H + self->rows[t].y - self->vscroll;

		if (top + (int)self->rows[t].depths * ROW_H < RULER_H || top >= height)
			continue;
		draw_thread(self, s, layout, t, width, top, dark);
	}
	gtk_snapshot_pop(s);
	/* The labels' column; a file's header spans the width (its row holds
	 * no spans). */
	gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT(0, RULER_H, (float)width,
	                                              (float)(height - RULER_H)));
	draw_labels(self, s, layout, width, height);
	gtk_snapshot_pop(s);
	g_object_unref(layout);
	return gtk_snapshot_free_to_node(s);
}

/* --- The accessible description ------------------------------------------------ */

static void update_description(SaTimeline *self)
{
	GString *d = g_string_new(NULL);

	if (!self->doc) {
		g_string_append(d, "No trace");
	} else {
		g_autofree char *a = sa_format_ms_exact(self->view_from - self->info->start_ns);
		g_autofree char *b = sa_format_ms_exact(self->view_to - self->info->start_ns);
		g_autofree char *all = sa_format_ms_exact(self->info->end_ns - self->info->start_ns);
		g_autofree char *n = sa_format_count(self->spans_in_view);

		g_string_append_printf(d, "Showing %s – %s of %s; %s spans in view", a, b, all, n);
		if (self->range_from < self->range_to) {
			g_autofree char *ra = sa_format_ms_exact(self->range_from - self->info->start_ns);
			g_autofree char *rb = sa_format_ms_exact(self->range_to - self->info->start_ns);

			g_string_append_printf(d, "; marked %s – %s", ra, rb);
		}
		if (self->sel_thread >= 0) {
			const char *name = tsr_trace_get_name(self->trace, self->sel.name);
			g_autofree char *dur = sa_format_duration((double)self->sel.busy_ns);

			g_string_append_printf(d, "; selected %s, %s, on %s", name ? name : "?", dur,
			                       self->threads[self->sel_thread].name
			                           ? self->threads[self->sel_thread].name
			                           : "a thread");
		}
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

/* An outline of `item` of thread `t` (overlay). */
static void outline(SaTimeline *self, GtkSnapshot *s, size_t t, const tsr_trace_item *it,
                    int width, const GdkRGBA *c, float w)
{
	guint depth = it->kind == TSR_TRACE_ITEM_SUMMARY ? 0 : it->depth;
	double x0 = MAX(x_of(self, width, it->start_ns), LABEL_W);
	double x1 = MIN(x_of(self, width, it->end_ns), width);
	double y = RULER_H + self->rows[t].y - self->vscroll + (double)depth * ROW_H;
	GskRoundedRect r;
	const GdkRGBA cs[4] = {*c, *c, *c, *c};
	const float ws[4] = {w, w, w, w};

	if (x1 - x0 < 3)
		x1 = x0 + 3;
	if (x0 >= width || y + ROW_H < RULER_H)
		return;
	gsk_rounded_rect_init_from_rect(&r, &GRAPHENE_RECT_INIT((float)x0, (float)y,
	                                                        (float)(x1 - x0), ROW_H), 0);
	gtk_snapshot_append_border(s, &r, ws, cs);
}

static void sa_timeline_snapshot(GtkWidget *widget, GtkSnapshot *s)
{
	SaTimeline *self = SA_TIMELINE(widget);
	int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
	gboolean dark;
	GdkRGBA accent = {0.2f, 0.45f, 0.9f, 1};

	if (!self->doc || width <= LABEL_W || height <= RULER_H)
		return;
	dark = is_dark(self);
	if (!self->layer || self->layer_from != self->view_from || self->layer_to != self->view_to ||
	    self->layer_w != width || self->layer_h != height || self->layer_vscroll != self->vscroll ||
	    self->layer_dark != dark) {
		g_clear_pointer(&self->layer, gsk_render_node_unref);
		self->layer = build_layer(self, width, height, dark);
		self->layer_from = self->view_from;
		self->layer_to = self->view_to;
		self->layer_w = width;
		self->layer_h = height;
		self->layer_vscroll = self->vscroll;
		self->layer_dark = dark;
		update_description(self);
	}
	if (self->layer)
		gtk_snapshot_append_node(s, self->layer);

	/* The overlay: the marked range, the drag, the selection, the hover. */
	gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT(LABEL_W, 0, (float)(width - LABEL_W),
	                                              (float)height));
	if (self->range_from < self->range_to) {
		double x0 = MAX(x_of(self, width, self->range_from), LABEL_W);
		double x1 = MIN(x_of(self, width, self->range_to), width);

		if (x1 > x0 - 1) {
			GdkRGBA shade = accent, edge = accent;

			shade.alpha = 0.18f;
			gtk_snapshot_append_color(s, &shade, &GRAPHENE_RECT_INIT((float)x0, 0,
			                                                         (float)MAX(x1 - x0, 1),
			                                                         (float)height));
			gtk_snapshot_append_color(s, &edge, &GRAPHENE_RECT_INIT((float)x0, 0, 1,
			                                                        (float)height));
			gtk_snapshot_append_color(s, &edge, &GRAPHENE_RECT_INIT((float)x1 - 1, 0, 1,
			                                                        (float)height));
		}
	}
	gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT(LABEL_W, RULER_H, (float)(width - LABEL_W),
	                                              (float)(height - RULER_H)));
	if (self->sel_thread >= 0 && self->sel.end_ns >= self->view_from &&
	    self->sel.start_ns <= self->view_to) {
		GdkRGBA c = dark ? (GdkRGBA){1, 1, 1, 1} : (GdkRGBA){0, 0, 0, 1};

		outline(self, s, (size_t)self->sel_thread, &self->sel, width, &c, 2);
	}
	if (self->hover_thread >= 0) {
		GdkRGBA c = accent;

		outline(self, s, (size_t)self->hover_thread, &self->hover, width, &c, 1);
	}
	gtk_snapshot_pop(s);
	gtk_snapshot_pop(s);
}

/* --- Hit testing ------------------------------------------------------------------ */

/* The item under (x, y) of the last rebuild: its thread, or -1. */
static gssize item_at(SaTimeline *self, double x, double y, tsr_trace_item *out)
{
	int width = gtk_widget_get_width(GTK_WIDGET(self));
	int cy = (int)y - RULER_H + self->vscroll;

	if (!self->doc || x < LABEL_W || y < RULER_H)
		return -1;
	for (size_t t = 0; t < self->n_threads; t++) {
		thread_rows *r = &self->rows[t];
		gssize best = -1;
		double best_d = 3;
		guint depth;

		if (cy < r->y || cy >= r->y + (int)r->depths * ROW_H)
			continue;
		depth = (guint)((cy - r->y) / ROW_H);
		for (size_t i = 0; i < r->n_items; i++) {
			const tsr_trace_item *it = &r->items[i];
			guint d = it->kind == TSR_TRACE_ITEM_SUMMARY ? 0 : it->depth;
			double x0 = x_of(self, width, it->start_ns), x1 = x_of(self, width, it->end_ns);
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
		return (gssize)t;
	}
	return -1;
}

/* --- The view ----------------------------------------------------------------------- */

void sa_timeline_set_view(SaTimeline *self, int64_t from_ns, int64_t to_ns)
{
	int64_t lo, hi, w;

	g_return_if_fail(SA_IS_TIMELINE(self));
	if (!self->doc)
		return;
	lo = self->info->start_ns;
	hi = MAX(self->info->end_ns, lo + MIN_WINDOW_NS);
	w = CLAMP(to_ns - from_ns, MIN_WINDOW_NS, hi - lo);
	from_ns = CLAMP(from_ns, lo, hi - w);
	if (from_ns == self->view_from && from_ns + w == self->view_to)
		return;
	self->view_from = from_ns;
	self->view_to = from_ns + w;
	self->hover_thread = -1;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

void sa_timeline_get_view(SaTimeline *self, int64_t *from_ns, int64_t *to_ns)
{
	*from_ns = self->view_from;
	*to_ns = self->view_to;
}

void sa_timeline_zoom(SaTimeline *self, double factor, double at)
{
	double w = (double)(self->view_to - self->view_from);
	double pivot = (double)self->view_from + w * CLAMP(at, 0, 1);
	double nw = w / factor;

	sa_timeline_set_view(self, (int64_t)llround(pivot - nw * CLAMP(at, 0, 1)),
	                     (int64_t)llround(pivot - nw * CLAMP(at, 0, 1) + nw));
}

void sa_timeline_pan(SaTimeline *self, double fraction)
{
	int64_t d = (int64_t)llround((double)(self->view_to - self->view_from) * fraction);

	sa_timeline_set_view(self, self->view_from + d, self->view_to + d);
}

void sa_timeline_show_all(SaTimeline *self)
{
	if (self->doc)
		sa_timeline_set_view(self, self->info->start_ns, self->info->end_ns);
}

void sa_timeline_set_range(SaTimeline *self, int64_t from_ns, int64_t to_ns)
{
	if (from_ns >= to_ns)
		from_ns = to_ns = 0;
	if (from_ns == self->range_from && to_ns == self->range_to)
		return;
	self->range_from = from_ns;
	self->range_to = to_ns;
	update_description(self);
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

static void select_item(SaTimeline *self, gssize thread, const tsr_trace_item *it)
{
	if (thread < 0 && self->sel_thread < 0)
		return;
	self->sel_thread = thread;
	if (it)
		self->sel = *it;
	update_description(self);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
}

void sa_timeline_measure_frame(SaTimeline *self, int width, int height, uint64_t *spans,
                               guint *nodes, guint *folded)
{
	GskRenderNode *node;

	*spans = 0;
	*nodes = 0;
	*folded = 0;
	if (!self->doc)
		return;
	node = build_layer(self, width, height, FALSE);
	gsk_render_node_unref(node);
	*spans = self->spans_in_view;
	*nodes = self->nodes;
	for (size_t t = 0; t < self->n_threads; t++)
		for (size_t i = 0; i < self->rows[t].n_items; i++)
			*folded += self->rows[t].items[i].kind != TSR_TRACE_ITEM_EVENT;
	/* The cached layer was drawn for another size. */
	g_clear_pointer(&self->layer, gsk_render_node_unref);
}

void sa_timeline_set_document(SaTimeline *self, SaDocument *doc)
{
	g_return_if_fail(SA_IS_TIMELINE(self));
	for (size_t t = 0; t < self->n_threads; t++)
		free(self->rows[t].items);
	g_clear_pointer(&self->rows, g_free);
	g_clear_pointer(&self->proc_y, g_free);
	g_clear_pointer(&self->layer, gsk_render_node_unref);
	g_clear_pointer(&self->doc, sa_document_unref);
	self->n_threads = self->n_procs = 0;
	self->trace = NULL;
	self->hover_thread = self->sel_thread = -1;
	self->range_from = self->range_to = 0;
	self->vscroll = 0;
	if (doc) {
		self->doc = sa_document_ref(doc);
		self->trace = sa_document_get_trace(doc);
		self->info = tsr_trace_get_info(self->trace);
		if (tsr_trace_get_processes(&self->procs, &self->n_procs, self->trace) != TSR_OK ||
		    tsr_trace_get_threads(&self->threads, &self->n_threads, self->trace) != TSR_OK)
			self->n_procs = self->n_threads = 0;
		tsr_trace_set_decode_budget(self->trace,
		                            MAX(FRAME_DECODE_BUDGET / MAX(self->n_threads, 1), 4096));
		self->rows = g_new0(thread_rows, self->n_threads);
		for (size_t t = 0; t < self->n_threads; t++)
			self->rows[t].depths = 1;
		self->proc_y = g_new0(int, self->n_procs);
		layout_rows(self);
		gtk_widget_queue_resize(GTK_WIDGET(self));
		self->view_from = self->view_to = 0;
		sa_timeline_show_all(self);
	}
	g_free(self->description);
	self->description = NULL;
	update_description(self);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* --- Input -------------------------------------------------------------------------- */

static gboolean on_scroll(GtkEventControllerScroll *ctl, double dx, double dy, gpointer data)
{
	SaTimeline *self = data;
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(ctl));
	int width = gtk_widget_get_width(GTK_WIDGET(self));

	if (!self->doc)
		return FALSE;
	if (mods & GDK_SHIFT_MASK) {
		self->vscroll += (int)(dy * 3 * ROW_H);
		clamp_vscroll(self, gtk_widget_get_height(GTK_WIDGET(self)));
		gtk_widget_queue_draw(GTK_WIDGET(self));
		return TRUE;
	}
	if (dx != 0)
		sa_timeline_pan(self, dx * 0.1);
	if (dy != 0)
		sa_timeline_zoom(self, pow(1.25, -dy),
		                 (self->pointer_x - LABEL_W) / plot_width(self, width));
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

static gboolean on_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard,
                                 GtkTooltip *tooltip)
{
	SaTimeline *self = SA_TIMELINE(widget);
	tsr_trace_item it;
	gssize t = keyboard ? -1 : item_at(self, x, y, &it);
	const char *name, *thread;
	g_autofree char *dur = NULL, *count = NULL, *text = NULL;

	if (t < 0)
		return FALSE;
	name = tsr_trace_get_name(self->trace, it.name);
	thread = self->threads[t].name ? self->threads[t].name : "thread";
	if (it.kind == TSR_TRACE_ITEM_EVENT) {
		dur = sa_format_duration((double)(it.end_ns - it.start_ns));
		text = g_markup_printf_escaped("<b>%s</b>\n%s\non %s (tid %" G_GINT64_FORMAT ")",
		                               name ? name : "?", dur, thread, self->threads[t].tid);
	} else {
		dur = sa_format_duration((double)(it.end_ns - it.start_ns));
		count = sa_format_count(it.count);
		text = g_markup_printf_escaped("<b>%s spans</b> folded over %s%s%s\non %s (tid %"
		                               G_GINT64_FORMAT ")",
		                               count, dur, name ? ", mostly " : "", name ? name : "",
		                               thread, self->threads[t].tid);
	}
	gtk_tooltip_set_markup(tooltip, text);
	return TRUE;
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
		int64_t a = t_of(self, width, MAX(self->drag_x, LABEL_W));
		int64_t b = t_of(self, width, MAX(self->drag_x + dx, LABEL_W));

		if (fabs(dx) >= 2)
			sa_timeline_set_range(self, MIN(a, b), MAX(a, b));
		return;
	}
	{
		int64_t shift = (int64_t)llround(-dx * (double)(self->drag_to - self->drag_from + 1) /
		                                 plot_width(self, width));

		sa_timeline_set_view(self, self->drag_from + shift, self->drag_to + shift);
		self->vscroll = self->drag_vscroll - (int)dy;
		clamp_vscroll(self, gtk_widget_get_height(GTK_WIDGET(self)));
		gtk_widget_queue_draw(GTK_WIDGET(self));
	}
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
		gssize t = item_at(self, self->drag_x, self->drag_y, &it);

		select_item(self, t, t >= 0 ? &it : NULL);
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
	case GDK_KEY_Up: case GDK_KEY_Down: case GDK_KEY_Page_Up: case GDK_KEY_Page_Down: {
		int h = gtk_widget_get_height(GTK_WIDGET(self));
		int step = keyval == GDK_KEY_Up || keyval == GDK_KEY_Down ? ROW_H * 3 : h - RULER_H;

		self->vscroll += keyval == GDK_KEY_Up || keyval == GDK_KEY_Page_Up ? -step : step;
		clamp_vscroll(self, h);
		gtk_widget_queue_draw(GTK_WIDGET(self));
		return TRUE;
	}
	case GDK_KEY_m: case GDK_KEY_M:
		sa_timeline_set_range(self, self->view_from, self->view_to + 1);
		return TRUE;
	case GDK_KEY_Escape:
		if (self->range_from >= self->range_to && self->sel_thread < 0)
			return FALSE;
		self->sel_thread = -1;
		self->range_from = self->range_to = 0;
		update_description(self);
		gtk_widget_queue_draw(GTK_WIDGET(self));
		g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
		return TRUE;
	default:
		return FALSE;
	}
}

/* --- GObject ------------------------------------------------------------------------ */

static void sa_timeline_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *min_baseline,
                                int *nat_baseline)
{
	SaTimeline *self = SA_TIMELINE(widget);

	(void)for_size;
	if (orientation == GTK_ORIENTATION_HORIZONTAL) {
		*minimum = LABEL_W + 100;
		*natural = LABEL_W + 800;
	} else {
		*minimum = RULER_H + 3 * ROW_H;
		*natural = RULER_H + MIN(MAX(self->content_h + ROW_H, 4 * ROW_H), 600);
	}
	*min_baseline = *nat_baseline = -1;
}

static void sa_timeline_dispose(GObject *object)
{
	sa_timeline_set_document(SA_TIMELINE(object), NULL);
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

	G_OBJECT_CLASS(klass)->dispose = sa_timeline_dispose;
	G_OBJECT_CLASS(klass)->finalize = sa_timeline_finalize;
	widget_class->snapshot = sa_timeline_snapshot;
	widget_class->measure = sa_timeline_measure;
	widget_class->query_tooltip = on_query_tooltip;
	gtk_widget_class_set_css_name(widget_class, "timeline");
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
	/* The window the statistics are about changed (sa_timeline_get_range). */
	signals[SIGNAL_RANGE_CHANGED] = g_signal_new("range-changed", G_TYPE_FROM_CLASS(klass),
	                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
	                                             G_TYPE_NONE, 0);
}

static void sa_timeline_init(SaTimeline *self)
{
	GtkEventController *ctl;
	GtkGesture *drag;

	self->hover_thread = self->sel_thread = -1;
	gtk_widget_set_focusable(GTK_WIDGET(self), TRUE);
	gtk_widget_set_focus_on_click(GTK_WIDGET(self), TRUE);
	gtk_widget_set_has_tooltip(GTK_WIDGET(self), TRUE);
	gtk_widget_add_css_class(GTK_WIDGET(self), "view");
	ctl = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES |
	                                      GTK_EVENT_CONTROLLER_SCROLL_DISCRETE);
	g_signal_connect(ctl, "scroll", G_CALLBACK(on_scroll), self);
	gtk_widget_add_controller(GTK_WIDGET(self), ctl);
	ctl = gtk_event_controller_motion_new();
	g_signal_connect(ctl, "motion", G_CALLBACK(on_motion), self);
	g_signal_connect(ctl, "leave", G_CALLBACK(on_leave), self);
	gtk_widget_add_controller(GTK_WIDGET(self), ctl);
	drag = gtk_gesture_drag_new();
	gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(drag), GDK_BUTTON_PRIMARY);
	g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
	g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
	g_signal_connect(drag, "drag-end", G_CALLBACK(on_drag_end), self);
	gtk_widget_add_controller(GTK_WIDGET(self), GTK_EVENT_CONTROLLER(drag));
	ctl = gtk_event_controller_key_new();
	g_signal_connect(ctl, "key-pressed", G_CALLBACK(on_key), self);
	gtk_widget_add_controller(GTK_WIDGET(self), ctl);
	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Timeline", -1);
	update_description(self);
}

GtkWidget *sa_timeline_new(void)
{
	return g_object_new(SA_TYPE_TIMELINE, NULL);
}

/* --- Selecting a span from outside (search, details) ------------------------------ */

void sa_timeline_select_span(SaTimeline *self, size_t thread, const tsr_trace_item *span)
{
	int64_t dur, pad;
	int height, y;

	g_return_if_fail(SA_IS_TIMELINE(self));
	if (!self->doc || thread >= self->n_threads || span->kind != TSR_TRACE_ITEM_EVENT)
		return;
	/* The span in the middle third of the view (at least 1 µs wide). */
	dur = MAX(span->end_ns - span->start_ns, (int64_t)0);
	pad = MAX(dur, (int64_t)500);
	sa_timeline_set_view(self, span->start_ns - pad, span->end_ns + pad);
	/* Its row in sight: a thread's rows are as deep as the last frame
	 * saw, so aim at its first row plus the span's depth. */
	height = gtk_widget_get_height(GTK_WIDGET(self));
	y = self->rows[thread].y + (int)span->depth * ROW_H;
	if (height > RULER_H && (y < self->vscroll || y + ROW_H > self->vscroll + height - RULER_H)) {
		self->vscroll = MAX(self->rows[thread].y - PROC_H, 0);
		if (y + ROW_H > self->vscroll + height - RULER_H)
			self->vscroll = y + ROW_H - (height - RULER_H);
		clamp_vscroll(self, height);
	}
	self->range_from = self->range_to = 0;
	select_item(self, (gssize)thread, span);
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
