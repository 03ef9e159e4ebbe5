/*
 * The Execution Trace's lanes (ga-step-lanes.h).
 *
 * Data. When a run is set, each lane gets the indices of its steps sorted
 * by first cycle and the running maximum of their last cycles, so that the
 * first step reaching into the visible range is a binary search even when
 * steps of a lane overlap. A frame walks only the visible steps of each
 * lane.
 *
 * Level of detail. A step at least FOLD_PX wide is a rectangle of its
 * own; narrower steps that touch the same or adjacent pixel columns fold
 * into one bar that carries their count, so a frame has about one
 * primitive per pixel column per lane however many steps there are. The
 * bars drawn are kept (`items`) and are what hover, tooltip and click hit:
 * the user points at what is drawn.
 *
 * Drawing. The lanes, ruler and names are one render node, rebuilt only
 * when the run, the visible range, the size or the theme change; hover,
 * selection, the marked range and focus are drawn over it every frame.
 */
#include "ga-step-lanes.h"

#include "ga-format.h"
#include "ga-program-kind.h"

#include <math.h>
#include <tilescope/tsc-axis.h>

/* Steps narrower than this (logical px) fold into counted bars. */
#define FOLD_PX 3.0
/* The narrowest range shown, in cycles. */
#define MIN_SPAN 16.0
/* Zoom factor of one key press or wheel notch. */
#define ZOOM_STEP 1.25

enum { LANE_COMPUTE, LANE_EXCHANGE, LANE_SYNC, N_LANES };

static const char *const lane_names[N_LANES] = {"Compute", "Exchange", "Sync"};
static const char *const lane_words[N_LANES] = {"compute", "exchange", "sync"};

typedef struct Lane {
	guint32 *idx;      /* step indices, by cycles_from */
	uint64_t *max_to;  /* max_to[i]: the largest cycles_to of idx[0..i] */
	size_t n;
} Lane;

/* A bar drawn: one step, or several folded. */
typedef struct Item {
	float x0, x1;      /* widget px */
	guint32 first;     /* lane position of its first step */
	guint32 last;      /* and of its last */
	guint32 count;     /* steps folded into it */
} Item;

struct _GaStepLanes {
	GtkWidget parent_instance;
	GaDocument *doc;
	size_t run, n_runs;
	const tsr_step *steps; /* borrowed from the document's report */
	size_t n_steps;
	uint64_t total;        /* the run's cycles */
	Lane lanes[N_LANES];

	double vis_start, vis_end; /* cycles */

	/* Geometry of the last snapshot. */
	int width, height;
	double plot_x, plot_w;     /* the lanes' horizontal extent */
	double lane_y[N_LANES], lane_h;
	double ruler_h;
	int text_h;
	PangoLayout *layout;
	GdkRGBA fg, accent;

	GskRenderNode *cache;
	GArray *items[N_LANES];    /* Item, left to right */

	int hover_lane;            /* -1: none */
	double pointer_x, pointer_y; /* the pointer's last position; -1: outside */
	guint hover_item;
	gint64 selected;           /* step index, -1: none */
	gboolean has_range;
	uint64_t range_from, range_to;

	/* A drag: pan, or (shift) marking a range. */
	enum { DRAG_NONE, DRAG_PENDING, DRAG_PAN, DRAG_RANGE } drag;
	double drag_x0, drag_x1, drag_vis_start, drag_cpp;
};

G_DEFINE_FINAL_TYPE(GaStepLanes, ga_step_lanes, GTK_TYPE_WIDGET)

enum { SIGNAL_SELECTION_CHANGED, SIGNAL_RANGE_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void update_description(GaStepLanes *self);

/* --- Names and helpers ------------------------------------------------------------ */

const char *ga_step_name(tsr_report *report, const tsr_step *st)
{
	tsr_exchange_kind kind = TSR_EXCHANGE_KIND_COUNT;

	switch (st->type) {
	case TSR_STEP_ON_TILE_EXECUTE: {
		const tsr_compute_set *cs;
		size_t n;

		if (st->compute_set >= 0 && !tsr_report_get_compute_sets(&cs, &n, report) &&
		    (size_t)st->compute_set < n && cs[st->compute_set].name)
			return cs[st->compute_set].name;
		break;
	}
	case TSR_STEP_DO_EXCHANGE:
		kind = TSR_EXCHANGE_INTERNAL;
		break;
	case TSR_STEP_GLOBAL_EXCHANGE:
		kind = TSR_EXCHANGE_EXTERNAL;
		break;
	case TSR_STEP_STREAM_COPY:
		kind = TSR_EXCHANGE_HOST;
		break;
	case TSR_STEP_SYNC:
		if (st->sync_type)
			return st->sync_type;
		break;
	default:
		break;
	}
	if (kind != TSR_EXCHANGE_KIND_COUNT && st->exchange >= 0) {
		const tsr_exchange *ex;
		size_t n;

		if (!tsr_report_get_exchanges(&ex, &n, report, kind) && (size_t)st->exchange < n &&
		    ex[st->exchange].name)
			return ex[st->exchange].name;
	}
	return tsr_step_type_name(st->type);
}

static int lane_of(const tsr_step *st)
{
	switch (ga_program_kind_of_step(st->type)) {
	case GA_PROGRAM_EXCHANGE:
		return LANE_EXCHANGE;
	case GA_PROGRAM_SYNC:
		return LANE_SYNC;
	default:
		return LANE_COMPUTE;
	}
}

static void rect(GtkSnapshot *s, const GdkRGBA *c, double x, double y, double w, double h)
{
	if (w > 0 && h > 0)
		gtk_snapshot_append_color(s, c, &GRAPHENE_RECT_INIT((float)x, (float)y, (float)w, (float)h));
}

static void outline(GtkSnapshot *s, const GdkRGBA *c, double x, double y, double w, double h,
                    float width)
{
	GskRoundedRect r;
	const float widths[4] = {width, width, width, width};
	const GdkRGBA colours[4] = {*c, *c, *c, *c};

	if (w <= 0 || h <= 0)
		return;
	gsk_rounded_rect_init_from_rect(&r, &GRAPHENE_RECT_INIT((float)x, (float)y, (float)w, (float)h),
	                                0);
	gtk_snapshot_append_border(s, &r, widths, colours);
}

static GdkRGBA alpha(const GdkRGBA *c, double a)
{
	GdkRGBA r = *c;

	r.alpha = (float)(r.alpha * a);
	return r;
}

/* Draws `text` with its top left at (x, y), ellipsized to `max_w` px when
 * max_w > 0. */
static void text(GaStepLanes *self, GtkSnapshot *s, const char *str, double x, double y,
                 int max_w, const GdkRGBA *c)
{
	pango_layout_set_text(self->layout, str, -1);
	pango_layout_set_width(self->layout, max_w > 0 ? max_w * PANGO_SCALE : -1);
	gtk_snapshot_save(s);
	gtk_snapshot_translate(s, &GRAPHENE_POINT_INIT((float)x, (float)y));
	gtk_snapshot_append_layout(s, self->layout, c);
	gtk_snapshot_restore(s);
}

static int text_width(GaStepLanes *self, const char *str)
{
	int w, h;

	pango_layout_set_width(self->layout, -1);
	pango_layout_set_text(self->layout, str, -1);
	pango_layout_get_pixel_size(self->layout, &w, &h);
	return w;
}

/* Cycles per logical pixel. */
static double cpp(GaStepLanes *self)
{
	return self->plot_w > 0 ? (self->vis_end - self->vis_start) / self->plot_w : 1;
}

static double x_of(GaStepLanes *self, double cycle)
{
	return self->plot_x + (cycle - self->vis_start) / cpp(self);
}

static double cycle_at(GaStepLanes *self, double x)
{
	return self->vis_start + (x - self->plot_x) * cpp(self);
}

/* The first lane position whose step reaches past `cycle`. */
static size_t lane_first_after(const Lane *l, double cycle)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((double)l->max_to[mid] > cycle)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* The first lane position whose step starts at or after `cycle`. */
static size_t lane_first_from(GaStepLanes *self, const Lane *l, double cycle)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((double)self->steps[l->idx[mid]].cycles_from < cycle)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Steps of all lanes that overlap the visible range. */
static size_t steps_in_view(GaStepLanes *self)
{
	size_t n = 0;

	for (int k = 0; k < N_LANES; k++) {
		const Lane *l = &self->lanes[k];
		size_t a = lane_first_after(l, self->vis_start), b = lane_first_from(self, l, self->vis_end);

		for (size_t i = a; i < b; i++)
			if ((double)self->steps[l->idx[i]].cycles_to > self->vis_start ||
			    self->steps[l->idx[i]].cycles_to == self->steps[l->idx[i]].cycles_from)
				n++;
	}
	return n;
}

static void invalidate(GaStepLanes *self)
{
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* --- Data ------------------------------------------------------------------------- */

static void clear_lanes(GaStepLanes *self)
{
	for (int k = 0; k < N_LANES; k++) {
		g_clear_pointer(&self->lanes[k].idx, g_free);
		g_clear_pointer(&self->lanes[k].max_to, g_free);
		self->lanes[k].n = 0;
		g_array_set_size(self->items[k], 0);
	}
}

static const tsr_step *sort_steps;

static int by_from(const void *a, const void *b)
{
	const tsr_step *x = &sort_steps[*(const guint32 *)a], *y = &sort_steps[*(const guint32 *)b];

	if (x->cycles_from != y->cycles_from)
		return x->cycles_from < y->cycles_from ? -1 : 1;
	return *(const guint32 *)a < *(const guint32 *)b ? -1 : 1;
}

void ga_step_lanes_set_run(GaStepLanes *self, GaDocument *doc, size_t run)
{
	const tsr_run *runs;
	size_t n_runs;

	clear_lanes(self);
	g_clear_pointer(&self->doc, ga_document_unref);
	self->steps = NULL;
	self->n_steps = 0;
	self->total = 0;
	self->n_runs = 0;
	self->run = run;
	self->selected = -1;
	self->has_range = FALSE;
	self->hover_lane = -1;
	if (doc && !tsr_report_get_runs(&runs, &n_runs, ga_document_get_report(doc)) && run < n_runs &&
	    !tsr_report_get_steps(&self->steps, &self->n_steps, ga_document_get_report(doc), run) &&
	    self->n_steps <= G_MAXUINT32) {
		size_t fill[N_LANES] = {0};

		self->doc = ga_document_ref(doc);
		self->n_runs = n_runs;
		self->total = runs[run].cycles;
		for (size_t i = 0; i < self->n_steps; i++) {
			self->lanes[lane_of(&self->steps[i])].n++;
			self->total = MAX(self->total, self->steps[i].cycles_to);
		}
		for (int k = 0; k < N_LANES; k++) {
			self->lanes[k].idx = g_new(guint32, MAX(1, self->lanes[k].n));
			self->lanes[k].max_to = g_new(uint64_t, MAX(1, self->lanes[k].n));
		}
		for (size_t i = 0; i < self->n_steps; i++) {
			int k = lane_of(&self->steps[i]);

			self->lanes[k].idx[fill[k]++] = (guint32)i;
		}
		for (int k = 0; k < N_LANES; k++) {
			Lane *l = &self->lanes[k];
			gboolean sorted = TRUE;
			uint64_t m = 0;

			for (size_t i = 1; i < l->n && sorted; i++)
				sorted = self->steps[l->idx[i - 1]].cycles_from <= self->steps[l->idx[i]].cycles_from;
			if (!sorted) {
				sort_steps = self->steps;
				qsort(l->idx, l->n, sizeof *l->idx, by_from);
			}
			for (size_t i = 0; i < l->n; i++) {
				m = MAX(m, self->steps[l->idx[i]].cycles_to);
				l->max_to[i] = m;
			}
		}
	} else {
		self->steps = NULL;
		self->n_steps = 0;
	}
	self->vis_start = 0;
	self->vis_end = MAX((double)self->total, MIN_SPAN);
	invalidate(self);
	g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
	g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
	update_description(self);
}

/* --- Range ------------------------------------------------------------------------ */

void ga_step_lanes_get_visible(GaStepLanes *self, double *from, double *to)
{
	*from = self->vis_start;
	*to = self->vis_end;
}

void ga_step_lanes_set_visible(GaStepLanes *self, double from, double to)
{
	double total = MAX((double)self->total, MIN_SPAN), span;

	if (!(to - from >= MIN_SPAN)) {
		double mid = (from + to) / 2;

		from = mid - MIN_SPAN / 2;
		to = mid + MIN_SPAN / 2;
	}
	span = MIN(to - from, total);
	from = CLAMP(from, 0, total - span);
	to = from + span;
	if (from == self->vis_start && to == self->vis_end)
		return;
	self->vis_start = from;
	self->vis_end = to;
	invalidate(self);
	update_description(self);
}

/* Zooms by `factor` (> 1: in) keeping the cycle at x where it is. */
static void zoom_at(GaStepLanes *self, double x, double factor)
{
	double c = cycle_at(self, x), span = (self->vis_end - self->vis_start) / factor;
	double frac = self->plot_w > 0 ? (x - self->plot_x) / self->plot_w : 0.5;

	ga_step_lanes_set_visible(self, c - frac * span, c - frac * span + span);
}

static void pan_by(GaStepLanes *self, double cycles)
{
	ga_step_lanes_set_visible(self, self->vis_start + cycles, self->vis_end + cycles);
}

/* --- Selection -------------------------------------------------------------------- */

gint64 ga_step_lanes_get_selected(GaStepLanes *self)
{
	return self->selected;
}

void ga_step_lanes_set_selected(GaStepLanes *self, gint64 step)
{
	if (step < -1 || step >= (gint64)self->n_steps)
		step = -1;
	if (step == self->selected)
		return;
	self->selected = step;
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
	update_description(self);
}

gboolean ga_step_lanes_get_range(GaStepLanes *self, uint64_t *from, uint64_t *to)
{
	*from = self->range_from;
	*to = self->range_to;
	return self->has_range;
}

static void set_range(GaStepLanes *self, gboolean has, uint64_t from, uint64_t to)
{
	if (has == self->has_range && (!has || (from == self->range_from && to == self->range_to)))
		return;
	self->has_range = has;
	self->range_from = from;
	self->range_to = to;
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
}

/* --- Geometry ---------------------------------------------------------------------- */

static void ensure_geometry(GaStepLanes *self)
{
	GtkWidget *w = GTK_WIDGET(self);
	int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
	int label_w = 0, tw, th;
	double top, gap = 6;

	if (width == self->width && height == self->height && self->layout)
		return;
	if (self->width != width || self->height != height)
		g_clear_pointer(&self->cache, gsk_render_node_unref);
	self->width = width;
	self->height = height;
	if (!self->layout) {
		self->layout = gtk_widget_create_pango_layout(w, NULL);
		pango_layout_set_ellipsize(self->layout, PANGO_ELLIPSIZE_END);
	}
	pango_layout_set_width(self->layout, -1);
	pango_layout_set_text(self->layout, "0", -1);
	pango_layout_get_pixel_size(self->layout, &tw, &th);
	self->text_h = th;
	for (int k = 0; k < N_LANES; k++)
		label_w = MAX(label_w, text_width(self, lane_names[k]));
	self->plot_x = label_w + 20;
	self->plot_w = MAX(1, width - self->plot_x - 12);
	self->ruler_h = th + 12;
	top = self->ruler_h + 4;
	self->lane_h = CLAMP((height - top - 8) / N_LANES - gap, th + 6, 64);
	for (int k = 0; k < N_LANES; k++)
		self->lane_y[k] = floor(top + k * (self->lane_h + gap));
}

static int lane_at(GaStepLanes *self, double y)
{
	for (int k = 0; k < N_LANES; k++)
		if (y >= self->lane_y[k] && y < self->lane_y[k] + self->lane_h)
			return k;
	return -1;
}

/* The item of lane `k` drawn at x (within a pixel's slack), or FALSE. */
static gboolean item_at(GaStepLanes *self, int k, double x, guint *out)
{
	GArray *items = self->items[k];
	guint lo = 0, hi = items->len;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (g_array_index(items, Item, mid).x1 <= x - 1)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < items->len && g_array_index(items, Item, lo).x0 <= x + 1) {
		*out = lo;
		return TRUE;
	}
	return FALSE;
}

/* --- The cached layer --------------------------------------------------------------- */

static void draw_ruler(GaStepLanes *self, GtkSnapshot *s)
{
	GdkRGBA axis = alpha(&self->fg, 0.55), grid = alpha(&self->fg, 0.1), ink = alpha(&self->fg, 0.8);
	double step, first, base = self->ruler_h;
	double bottom = self->lane_y[N_LANES - 1] + self->lane_h;
	guint n = tsc_axis_nice_ticks(self->vis_start, self->vis_end,
	                              (guint)MAX(2, self->plot_w / 110), 1, &step, &first);

	rect(s, &axis, self->plot_x, base, self->plot_w, 1);
	for (guint i = 0; i < n; i++) {
		double c = first + i * step, x = floor(x_of(self, c));
		g_autofree char *label = tsc_format_thousands(c, NULL);
		int w = text_width(self, label);

		if (x < self->plot_x - 0.5 || x > self->plot_x + self->plot_w + 0.5)
			continue;
		rect(s, &axis, x, base - 4, 1, 4);
		rect(s, &grid, x, base + 1, 1, bottom - base - 1);
		text(self, s, label, CLAMP(x - w / 2.0, self->plot_x - 8, self->width - w - 2), 2, -1,
		     &ink);
	}
}

/* Black or white, whichever reads on `bg`. */
static GdkRGBA ink_on(const GdkRGBA *bg)
{
	double lum = 0.2126 * bg->red + 0.7152 * bg->green + 0.0722 * bg->blue;

	return lum > 0.5 ? (GdkRGBA){0, 0, 0, 0.87f} : (GdkRGBA){1, 1, 1, 1};
}

static void flush_fold(GaStepLanes *self, GtkSnapshot *s, int k, Item *fold)
{
	const GdkRGBA *c = ga_program_kind_colour(k == LANE_COMPUTE    ? GA_PROGRAM_COMPUTE
	                                          : k == LANE_EXCHANGE ? GA_PROGRAM_EXCHANGE
	                                                               : GA_PROGRAM_SYNC);
	GdkRGBA fill = alpha(c, 0.6);
	double y = self->lane_y[k], h = self->lane_h;

	if (fold->count == 0)
		return;
	/* A fold is lighter than a step and has a solid foot, so that it reads
	 * as "many" and not as one long step. */
	rect(s, &fill, fold->x0, y + 2, fold->x1 - fold->x0, h - 4);
	rect(s, c, fold->x0, y + h - 5, fold->x1 - fold->x0, 3);
	if (fold->count > 1 && fold->x1 - fold->x0 >= 24) {
		g_autofree char *num = ga_format_u64(fold->count);
		int w = text_width(self, num);

		if (w + 6 <= fold->x1 - fold->x0) {
			GdkRGBA ink = alpha(&self->fg, 0.9);

			text(self, s, num, (fold->x0 + fold->x1 - w) / 2, y + (h - 3 - self->text_h) / 2, -1,
			     &ink);
		}
	}
	g_array_append_val(self->items[k], *fold);
	fold->count = 0;
}

static void draw_lane(GaStepLanes *self, GtkSnapshot *s, int k)
{
	const Lane *l = &self->lanes[k];
	tsr_report *report = ga_document_get_report(self->doc);
	const GdkRGBA *c = ga_program_kind_colour(k == LANE_COMPUTE    ? GA_PROGRAM_COMPUTE
	                                          : k == LANE_EXCHANGE ? GA_PROGRAM_EXCHANGE
	                                                               : GA_PROGRAM_SYNC);
	GdkRGBA ink = ink_on(c), edge = {c->red * 0.6f, c->green * 0.6f, c->blue * 0.6f, 1};
	double y = self->lane_y[k], h = self->lane_h, right = self->plot_x + self->plot_w;
	Item fold = {0};

	for (size_t i = lane_first_after(l, self->vis_start); i < l->n; i++) {
		const tsr_step *st = &self->steps[l->idx[i]];
		double x0, x1;

		if ((double)st->cycles_from >= self->vis_end)
			break;
		x0 = MAX(x_of(self, (double)st->cycles_from), self->plot_x - 1);
		x1 = MIN(x_of(self, (double)st->cycles_to), right + 1);
		if (x1 < self->plot_x)
			continue; /* ended before the view (an earlier step reaches in) */
		if (x1 - x0 >= FOLD_PX) {
			Item one = {(float)x0, (float)x1, (guint32)i, (guint32)i, 1};

			flush_fold(self, s, k, &fold);
			rect(s, c, x0, y + 2, x1 - x0, h - 4);
			rect(s, &edge, x0, y + 2, 1, h - 4);
			/* The name, ellipsized only where a few characters still show. */
			if (x1 - x0 >= 20) {
				const char *name = ga_step_name(report, st);

				if (x1 - x0 >= 56 || text_width(self, name) <= x1 - x0 - 8)
					text(self, s, name, x0 + 4, y + (h - self->text_h) / 2, (int)(x1 - x0 - 8),
					     &ink);
			}
			g_array_append_val(self->items[k], one);
		} else {
			double c0 = floor(x0), c1 = MAX(c0 + 1, ceil(x1));

			if (fold.count && c0 <= fold.x1) {
				fold.x1 = (float)MAX(fold.x1, c1);
				fold.last = (guint32)i;
				fold.count++;
			} else {
				flush_fold(self, s, k, &fold);
				fold = (Item){(float)c0, (float)c1, (guint32)i, (guint32)i, 1};
			}
		}
	}
	flush_fold(self, s, k, &fold);
}

static GskRenderNode *build_layer(GaStepLanes *self)
{
	GtkSnapshot *s = gtk_snapshot_new();
	GdkRGBA band = alpha(&self->fg, 0.04), ink = alpha(&self->fg, 0.8);

	for (int k = 0; k < N_LANES; k++) {
		g_array_set_size(self->items[k], 0);
		rect(s, &band, self->plot_x, self->lane_y[k], self->plot_w, self->lane_h);
		text(self, s, lane_names[k], 8, self->lane_y[k] + (self->lane_h - self->text_h) / 2, -1,
		     &ink);
	}
	if (!self->doc) {
		GdkRGBA dim = alpha(&self->fg, 0.6);

		text(self, s, "No execution profile to show", self->plot_x + 8,
		     self->lane_y[0] + (self->lane_h - self->text_h) / 2, -1, &dim);
		return gtk_snapshot_free_to_node(s);
	}
	draw_ruler(self, s);
	gtk_snapshot_push_clip(
	    s, &GRAPHENE_RECT_INIT((float)self->plot_x, 0, (float)self->plot_w, (float)self->height));
	for (int k = 0; k < N_LANES; k++)
		draw_lane(self, s, k);
	gtk_snapshot_pop(s);
	return gtk_snapshot_free_to_node(s);
}

/* --- The overlay ------------------------------------------------------------------- */

static void draw_overlay(GaStepLanes *self, GtkSnapshot *s)
{
	double top = self->lane_y[0], bottom = self->lane_y[N_LANES - 1] + self->lane_h;

	gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT((float)self->plot_x - 2, 0,
	                                              (float)self->plot_w + 4, (float)self->height));
	if (self->has_range || self->drag == DRAG_RANGE) {
		GdkRGBA fill = alpha(&self->accent, 0.18);
		double a, b;

		if (self->drag == DRAG_RANGE) {
			a = MIN(self->drag_x0, self->drag_x1);
			b = MAX(self->drag_x0, self->drag_x1);
		} else {
			a = x_of(self, (double)self->range_from);
			b = x_of(self, (double)self->range_to);
		}
		rect(s, &fill, a, top, MAX(1, b - a), bottom - top);
		rect(s, &self->accent, floor(a), top, 1, bottom - top);
		rect(s, &self->accent, floor(b), top, 1, bottom - top);
	}
	if (self->hover_lane >= 0 && self->hover_item < self->items[self->hover_lane]->len) {
		const Item *it = &g_array_index(self->items[self->hover_lane], Item, self->hover_item);
		GdkRGBA c = alpha(&self->fg, 0.22);

		rect(s, &c, it->x0, self->lane_y[self->hover_lane] + 2, MAX(1, it->x1 - it->x0),
		     self->lane_h - 4);
	}
	if (self->selected >= 0) {
		const tsr_step *st = &self->steps[self->selected];
		int k = lane_of(st);
		double x0 = x_of(self, (double)st->cycles_from), x1 = x_of(self, (double)st->cycles_to);

		if (x1 - x0 < 3) {
			x0 = floor((x0 + x1) / 2) - 1;
			x1 = x0 + 3;
		}
		outline(s, &self->fg, x0 - 2, self->lane_y[k], x1 - x0 + 4, self->lane_h, 2);
	}
	gtk_snapshot_pop(s);
	if (gtk_widget_has_focus(GTK_WIDGET(self))) {
		GdkRGBA c = alpha(&self->accent, 0.8);

		outline(s, &c, self->plot_x - 3, top - 3, self->plot_w + 6, bottom - top + 6, 1);
	}
}

/* Finds the bar under the pointer again after the bars were redrawn,
 * without asking for another frame. */
static void rehover(GaStepLanes *self)
{
	int k = self->doc && self->pointer_x >= 0 ? lane_at(self, self->pointer_y) : -1;
	guint item = 0;

	if (k >= 0 && (self->pointer_x < self->plot_x || self->pointer_x >= self->plot_x + self->plot_w ||
	               !item_at(self, k, self->pointer_x, &item)))
		k = -1;
	self->hover_lane = k;
	self->hover_item = item;
}

static void ga_step_lanes_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	GaStepLanes *self = GA_STEP_LANES(widget);

	ensure_geometry(self);
	if (!self->cache) {
		self->cache = build_layer(self);
		/* The bars moved: what is under the pointer now. */
		rehover(self);
	}
	gtk_snapshot_append_node(snapshot, self->cache);
	draw_overlay(self, snapshot);
}

/* --- Description --------------------------------------------------------------------- */

/* "OnTileExecute “name”, cycles 1,000 – 2,000 (1,000 cycles)". */
static char *step_text(GaStepLanes *self, const tsr_step *st)
{
	g_autofree char *name = ga_format_name(ga_step_name(ga_document_get_report(self->doc), st));
	g_autofree char *a = ga_format_u64(st->cycles_from), *b = ga_format_u64(st->cycles_to);
	g_autofree char *n = ga_format_u64(st->cycles);

	return g_strdup_printf("%s “%s”, cycles %s – %s (%s cycles)", tsr_step_type_name(st->type),
	                       name, a, b, n);
}

/* What the item under the pointer is: a step, or a fold's count and span. */
static char *item_text(GaStepLanes *self, int k, const Item *it)
{
	const Lane *l = &self->lanes[k];
	const tsr_step *first = &self->steps[l->idx[it->first]];
	uint64_t to = 0;
	g_autofree char *count = NULL, *a = NULL, *b = NULL;

	if (it->count == 1)
		return step_text(self, first);
	for (guint32 i = it->first; i <= it->last; i++)
		to = MAX(to, self->steps[l->idx[i]].cycles_to);
	count = ga_format_u64(it->count);
	a = ga_format_u64(first->cycles_from);
	b = ga_format_u64(to);
	return g_strdup_printf("%s %s steps folded, cycles %s – %s (click to zoom in)", count,
	                       lane_words[k], a, b);
}

static void update_description(GaStepLanes *self)
{
	GString *d = g_string_new(NULL);

	if (!self->doc) {
		g_string_append(d, "No execution profile");
	} else {
		g_autofree char *total = ga_format_u64(self->total);
		g_autofree char *steps = ga_format_u64(self->n_steps);
		g_autofree char *a = ga_format_u64((uint64_t)floor(self->vis_start));
		g_autofree char *b = ga_format_u64((uint64_t)ceil(self->vis_end));
		g_autofree char *in_view = ga_format_u64(steps_in_view(self));

		g_string_append_printf(d, "Run %zu (of %zu): %s cycles, %s steps in lanes compute, "
		                          "exchange and sync. Showing cycles %s – %s: %s steps in view.",
		                       self->run, self->n_runs, total, steps, a, b, in_view);
		if (self->selected >= 0) {
			g_autofree char *t = step_text(self, &self->steps[self->selected]);

			g_string_append_printf(d, " Selected: %s.", t);
		}
		if (self->hover_lane >= 0 && self->hover_item < self->items[self->hover_lane]->len) {
			g_autofree char *t = item_text(
			    self, self->hover_lane,
			    &g_array_index(self->items[self->hover_lane], Item, self->hover_item));

			g_string_append_printf(d, " Pointer on: %s.", t);
		}
	}
	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
	                               d->str, -1);
	g_string_free(d, TRUE);
}

/* --- Input ----------------------------------------------------------------------------- */

static void set_hover(GaStepLanes *self, double x, double y)
{
	int k = self->doc ? lane_at(self, y) : -1;
	guint item = 0;

	if (k >= 0 && (x < self->plot_x || x >= self->plot_x + self->plot_w || !item_at(self, k, x, &item)))
		k = -1;
	if (k == self->hover_lane && (k < 0 || item == self->hover_item))
		return;
	self->hover_lane = k;
	self->hover_item = item;
	gtk_widget_queue_draw(GTK_WIDGET(self));
	update_description(self);
}

static void on_motion(GtkEventControllerMotion *c, double x, double y, GaStepLanes *self)
{
	(void)c;
	self->pointer_x = x;
	self->pointer_y = y;
	set_hover(self, x, y);
}

static void on_leave(GtkEventControllerMotion *c, GaStepLanes *self)
{
	(void)c;
	self->pointer_x = self->pointer_y = -1;
	set_hover(self, -1, -1);
}

static gboolean on_query_tooltip(GtkWidget *w, int x, int y, gboolean keyboard, GtkTooltip *tip,
                                 gpointer data)
{
	GaStepLanes *self = GA_STEP_LANES(w);
	int k = self->doc ? lane_at(self, y) : -1;
	guint item;
	g_autofree char *t = NULL;

	(void)keyboard;
	(void)data;
	if (k < 0 || !item_at(self, k, x, &item))
		return FALSE;
	t = item_text(self, k, &g_array_index(self->items[k], Item, item));
	gtk_tooltip_set_text(tip, t);
	return TRUE;
}

static gboolean on_scroll(GtkEventControllerScroll *c, double dx, double dy, GaStepLanes *self)
{
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(c));
	double span = self->vis_end - self->vis_start;

	if (!self->doc)
		return FALSE;
	if (mods & GDK_CONTROL_MASK) {
		double x = self->pointer_x >= 0 ? self->pointer_x : self->plot_x + self->plot_w / 2;

		zoom_at(self, x, pow(ZOOM_STEP, -dy));
		return TRUE;
	}
	pan_by(self, (dx + dy) * span * 0.1);
	return TRUE;
}

/* A click at x: selects the step there, or zooms into a fold of many. */
static void click(GaStepLanes *self, double x, double y)
{
	int k = self->doc ? lane_at(self, y) : -1;
	guint i;

	if (k < 0 || !item_at(self, k, x, &i)) {
		ga_step_lanes_set_selected(self, -1);
		return;
	}
	{
		const Item *it = &g_array_index(self->items[k], Item, i);
		const Lane *l = &self->lanes[k];

		if (it->count == 1) {
			ga_step_lanes_set_selected(self, l->idx[it->first]);
		} else {
			uint64_t from = self->steps[l->idx[it->first]].cycles_from, to = 0;

			for (guint32 j = it->first; j <= it->last; j++)
				to = MAX(to, self->steps[l->idx[j]].cycles_to);
			ga_step_lanes_set_visible(self, (double)from - (to - from) * 0.05,
			                          (double)to + (to - from) * 0.05);
		}
	}
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, GaStepLanes *self)
{
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(g));

	(void)y;
	gtk_widget_grab_focus(GTK_WIDGET(self));
	self->drag_x0 = self->drag_x1 = x;
	self->drag_vis_start = self->vis_start;
	self->drag_cpp = cpp(self);
	self->drag = (mods & GDK_SHIFT_MASK) && self->doc ? DRAG_RANGE : DRAG_PENDING;
	if (self->drag == DRAG_RANGE)
		gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, GaStepLanes *self)
{
	(void)g;
	(void)dy;
	if (self->drag == DRAG_PENDING && fabs(dx) > 3)
		self->drag = DRAG_PAN;
	if (self->drag == DRAG_PAN) {
		double span = self->vis_end - self->vis_start, from = self->drag_vis_start - dx * self->drag_cpp;

		ga_step_lanes_set_visible(self, from, from + span);
	} else if (self->drag == DRAG_RANGE) {
		self->drag_x1 = CLAMP(self->drag_x0 + dx, self->plot_x, self->plot_x + self->plot_w);
		gtk_widget_queue_draw(GTK_WIDGET(self));
	}
}

static void on_drag_end(GtkGestureDrag *g, double dx, double dy, GaStepLanes *self)
{
	double x0, y0;

	gtk_gesture_drag_get_start_point(g, &x0, &y0);
	if (self->drag == DRAG_PENDING) {
		self->drag = DRAG_NONE;
		click(self, x0, y0);
	} else if (self->drag == DRAG_RANGE) {
		double a = cycle_at(self, MIN(self->drag_x0, self->drag_x1));
		double b = cycle_at(self, MAX(self->drag_x0, self->drag_x1));

		self->drag = DRAG_NONE;
		if (fabs(dx) < 2)
			set_range(self, FALSE, 0, 0);
		else
			set_range(self, TRUE, (uint64_t)MAX(0, floor(a)), (uint64_t)MAX(0, ceil(b)));
		gtk_widget_queue_draw(GTK_WIDGET(self));
	}
	(void)dy;
	self->drag = DRAG_NONE;
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint keycode, GdkModifierType mods,
                       GaStepLanes *self)
{
	double mid = self->plot_x + self->plot_w / 2, span = self->vis_end - self->vis_start;

	(void)c;
	(void)keycode;
	(void)mods;
	switch (keyval) {
	case GDK_KEY_plus:
	case GDK_KEY_equal:
	case GDK_KEY_KP_Add:
		zoom_at(self, mid, ZOOM_STEP);
		return TRUE;
	case GDK_KEY_minus:
	case GDK_KEY_KP_Subtract:
		zoom_at(self, mid, 1 / ZOOM_STEP);
		return TRUE;
	case GDK_KEY_Left:
	case GDK_KEY_KP_Left:
		pan_by(self, -span * 0.1);
		return TRUE;
	case GDK_KEY_Right:
	case GDK_KEY_KP_Right:
		pan_by(self, span * 0.1);
		return TRUE;
	case GDK_KEY_Home:
	case GDK_KEY_KP_Home:
		ga_step_lanes_set_visible(self, 0, (double)self->total);
		return TRUE;
	case GDK_KEY_Escape:
		ga_step_lanes_set_selected(self, -1);
		set_range(self, FALSE, 0, 0);
		return TRUE;
	default:
		return FALSE;
	}
}

static void on_focus_change(GtkEventControllerFocus *c, GaStepLanes *self)
{
	(void)c;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* --- The class ---------------------------------------------------------------------------- */

static void ga_step_lanes_css_changed(GtkWidget *widget, GtkCssStyleChange *change)
{
	GaStepLanes *self = GA_STEP_LANES(widget);
	GtkStyleContext *ctx = gtk_widget_get_style_context(widget);

	GTK_WIDGET_CLASS(ga_step_lanes_parent_class)->css_changed(widget, change);
	gtk_style_context_get_color(ctx, &self->fg);
	if (!gtk_style_context_lookup_color(ctx, "accent_color", &self->accent) &&
	    !gtk_style_context_lookup_color(ctx, "theme_selected_bg_color", &self->accent))
		self->accent = (GdkRGBA){0.21f, 0.52f, 0.89f, 1.0f};
	/* The font may have changed too: measure again. */
	g_clear_object(&self->layout);
	self->width = -1;
	invalidate(self);
}

static void ga_step_lanes_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                                  int *min, int *nat, int *min_base, int *nat_base)
{
	(void)widget;
	(void)for_size;
	*min = orientation == GTK_ORIENTATION_HORIZONTAL ? 300 : 240;
	*nat = orientation == GTK_ORIENTATION_HORIZONTAL ? 800 : 260;
	*min_base = *nat_base = -1;
}

static void ga_step_lanes_dispose(GObject *object)
{
	GaStepLanes *self = GA_STEP_LANES(object);

	clear_lanes(self);
	g_clear_pointer(&self->doc, ga_document_unref);
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	g_clear_object(&self->layout);
	G_OBJECT_CLASS(ga_step_lanes_parent_class)->dispose(object);
}

static void ga_step_lanes_finalize(GObject *object)
{
	GaStepLanes *self = GA_STEP_LANES(object);

	for (int k = 0; k < N_LANES; k++)
		g_array_unref(self->items[k]);
	G_OBJECT_CLASS(ga_step_lanes_parent_class)->finalize(object);
}

static void ga_step_lanes_class_init(GaStepLanesClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = ga_step_lanes_dispose;
	G_OBJECT_CLASS(klass)->finalize = ga_step_lanes_finalize;
	widget_class->snapshot = ga_step_lanes_snapshot;
	widget_class->measure = ga_step_lanes_measure;
	widget_class->css_changed = ga_step_lanes_css_changed;
	gtk_widget_class_set_css_name(widget_class, "steplanes");
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
	signals[SIGNAL_SELECTION_CHANGED] = g_signal_new("selection-changed", G_TYPE_FROM_CLASS(klass),
	                                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
	                                                 G_TYPE_NONE, 0);
	signals[SIGNAL_RANGE_CHANGED] = g_signal_new("range-changed", G_TYPE_FROM_CLASS(klass),
	                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
	                                             G_TYPE_NONE, 0);
}

static void ga_step_lanes_init(GaStepLanes *self)
{
	GtkWidget *w = GTK_WIDGET(self);
	GtkEventController *c;
	GtkGesture *drag;

	self->selected = -1;
	self->hover_lane = -1;
	self->pointer_x = self->pointer_y = -1;
	self->width = -1;
	self->vis_end = MIN_SPAN;
	for (int k = 0; k < N_LANES; k++)
		self->items[k] = g_array_new(FALSE, FALSE, sizeof(Item));
	gtk_widget_set_focusable(w, TRUE);
	gtk_widget_set_has_tooltip(w, TRUE);
	g_signal_connect(w, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);

	c = gtk_event_controller_motion_new();
	g_signal_connect(c, "motion", G_CALLBACK(on_motion), self);
	g_signal_connect(c, "leave", G_CALLBACK(on_leave), self);
	gtk_widget_add_controller(w, c);
	c = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
	g_signal_connect(c, "scroll", G_CALLBACK(on_scroll), self);
	gtk_widget_add_controller(w, c);
	drag = gtk_gesture_drag_new();
	gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(drag), GDK_BUTTON_PRIMARY);
	g_signal_connect(drag, "drag-begin", G_CALLBACK(on_drag_begin), self);
	g_signal_connect(drag, "drag-update", G_CALLBACK(on_drag_update), self);
	g_signal_connect(drag, "drag-end", G_CALLBACK(on_drag_end), self);
	gtk_widget_add_controller(w, GTK_EVENT_CONTROLLER(drag));
	c = gtk_event_controller_key_new();
	g_signal_connect(c, "key-pressed", G_CALLBACK(on_key), self);
	gtk_widget_add_controller(w, c);
	c = gtk_event_controller_focus_new();
	g_signal_connect(c, "enter", G_CALLBACK(on_focus_change), self);
	g_signal_connect(c, "leave", G_CALLBACK(on_focus_change), self);
	gtk_widget_add_controller(w, c);

	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Execution trace", -1);
	update_description(self);
}

GtkWidget *ga_step_lanes_new(void)
{
	return g_object_new(GA_TYPE_STEP_LANES, NULL);
}
