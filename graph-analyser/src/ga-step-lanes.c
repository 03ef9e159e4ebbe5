/*
 * The Execution Trace's lanes (ga-step-lanes.h).
 *
 * Data. When a run or mode is set, each lane is a chart kit span lane
 * (TscLane, tsc-timeline.h) of its items (steps in Flat, frames in Flame,
 * by first cycle): the chart kit draws, folds, names and hit-tests them,
 * walking only the visible items of each lane.
 *
 * Lanes in Flat. With one IPU: compute, exchange, sync. With several, a
 * compute and an exchange lane per IPU and one sync lane: a sync holds
 * every IPU, so a sync lane per IPU would repeat the same bars N times
 * and push the IPUs apart; compute and exchange stay apart within an IPU
 * because a step is one or the other and keeping the kinds on rows of
 * their own is how the one-IPU view reads. Until the tile index of the
 * run is ready (a worker thread), the lanes are by kind only.
 *
 * The timeline is the chart kit's (tsc-timeline.h): the viewport in
 * cycles with its one zoom and pan convention, the input controller
 * (wheel, drags, W/S/A/D, +/-, arrows, Home), the ruler, the folding
 * rule and the overlay's range, outlines and texture layer. What is the
 * lanes' own: which lanes there are, the steps' colours and names, the
 * BSP picture, and the keys that scroll and zoom its rows.
 *
 * Level of detail. The chart kit's folding rule (TscFold): narrow items
 * and the gaps between them fold into bars that carry their count, so a
 * frame has about one primitive per pixel column per lane however many
 * items there are; hover, tooltip and click hit the marks drawn.
 *
 * BSP. One texture of the plot's size in device pixels
 * (ga_trace_index_render_bsp), made in a thread when the view changes;
 * until it arrives the previous one is drawn stretched to where its
 * cycles now are, so the UI never waits.
 *
 * Drawing. The lanes, ruler and names are one render node, rebuilt only
 * when the run, the mode, the visible range, the size, the highlight or
 * the theme change; hover, selection, the marked range and focus are drawn
 * over it every frame.
 */
#include "ga-step-lanes.h"

#include <tilescope/tsc-input.h>
#include <tilescope/tsc-palette.h>
#include <tilescope/tsc-theme.h>
#include <tilescope/tsc-timeline.h>
#include <tilescope/tsd-cancel.h>
#include <tilescope/tsd-name.h>

#include "ga-format.h"
#include "ga-program-kind.h"

#include <math.h>
#include <string.h>

/* The narrowest range shown, in cycles. */
#define MIN_SPAN 16.0
/* A fold in a lane of mixed kinds (Flame) takes another kind while
 * narrower than this (px), so that long runs of compute and of exchange
 * stay apart while a mix finer than that folds into one bar. */
#define MIX_PX 8.0
/* A BSP picture of fewer (steps in view x rows) is made at once. */
#define BSP_SYNC_WORK 100000.0
/* The tallest BSP row, device px. */
#define BSP_MAX_ROW_PX 64

typedef struct Lane {
	char *name;
	int kind;          /* ga_program_kind of every item, -1: each its own (Flame) */
	int ipu;           /* Flat: the IPU, -1: all */
	TscLane tl;        /* the chart kit's: spans (id: a step or frame index), marks as drawn */
} Lane;

struct _GaStepLanes {
	GtkWidget parent_instance;
	GaDocument *doc;
	size_t run, n_runs;
	ga_trace_mode mode;
	char *label;
	const tsr_step *steps; /* borrowed from the document's report */
	size_t n_steps;
	const tsr_frame *frames; /* Flame: borrowed from the report, or NULL */
	size_t n_frames;
	guint32 *step_leaf;    /* Flame: each step's leaf frame */
	char *frames_error;    /* why there are no frames */
	uint64_t total;        /* the run's cycles */
	double axis_end;       /* compare mode: the axis reaches at least here */
	GPtrArray *lanes;      /* Lane */
	GaTraceIndex *index;
	gint64 highlight;      /* program, -1: none */

	TscViewport vp;        /* cycles: [0, the run or axis_end) and the window shown */

	/* Geometry of the last snapshot. */
	int width, height;
	double plot_x, plot_w;     /* the lanes' horizontal extent */
	double lane_h;
	double ruler_h;
	double bsp_y, bsp_h;       /* BSP: the texture's place, logical px */
	int text_h;
	PangoLayout *layout;
	GdkRGBA fg, accent;

	GskRenderNode *cache;

	/* BSP: rows of bsp_bpr index blocks (0: all tiles fit), bsp_row_px
	 * device px tall, from tile bsp_first. */
	unsigned bsp_bpr, bsp_row_px, bsp_first;
	GdkTexture *bsp_tex;       /* the last picture */
	ga_bsp_request bsp_req;    /* what it shows */
	gboolean bsp_stale;        /* the view changed since bsp_req */
	GCancellable *bsp_cancel;  /* the picture being made, or NULL */
	guint describe_idle;       /* a description to redo after a resize */
	char *description;         /* as last given to assistive technology */

	int hover_lane;            /* -1: none */
	double pointer_x, pointer_y; /* the pointer's last position; -1: outside */
	guint hover_item;
	gboolean hover_in_plot;    /* the pointer over the plot (Flat, Flame), on a bar or not */
	gint64 selected;           /* step index, -1: none */
	gint64 selected_frame;     /* Flame: the frame clicked, -1: none */
	gboolean has_range;
	uint64_t range_from, range_to;
};

G_DEFINE_FINAL_TYPE(GaStepLanes, ga_step_lanes, GTK_TYPE_WIDGET)

enum { SIGNAL_SELECTION_CHANGED, SIGNAL_RANGE_CHANGED, SIGNAL_VISIBLE_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void update_description(GaStepLanes *self);
static void bsp_request(GaStepLanes *self);
static void set_axis(GaStepLanes *self);
static void view_changed(gpointer data);

/* --- Names and helpers ------------------------------------------------------------ */

const char *ga_step_name(tsr_report *report, const tsr_step *st)
{
	const char *name = tsr_report_lookup_step_name(report, st);

	if (!name && st->type == TSR_STEP_SYNC)
		name = tsr_sync_type_name(st->sync);
	return name ? name : tsr_step_type_name(st->type);
}

static int kind_of_step(const tsr_step *st)
{
	ga_program_kind k = ga_program_kind_of_step(st->type);

	return k == GA_PROGRAM_CONTROL ? GA_PROGRAM_COMPUTE : (int)k;
}

static const tsr_program *program_of(GaStepLanes *self, uint32_t id)
{
	const tsr_program *progs;
	size_t n;

	if (!self->doc || tsr_report_get_programs(&progs, &n, ga_document_get_report(self->doc)) ||
	    id >= n)
		return NULL;
	return &progs[id];
}

/* The kind an item is drawn in. */
static int item_kind(GaStepLanes *self, const Lane *l, guint32 ref)
{
	const tsr_program *p;

	if (l->kind >= 0)
		return l->kind;
	p = program_of(self, self->frames[ref].program);
	return p ? (int)ga_program_kind_of_type(p->program_type) : GA_PROGRAM_CONTROL;
}

static uint64_t ref_from(GaStepLanes *self, guint32 ref)
{
	return self->mode == GA_TRACE_FLAME ? self->frames[ref].cycles_from : self->steps[ref].cycles_from;
}

static uint64_t ref_to(GaStepLanes *self, guint32 ref)
{
	return self->mode == GA_TRACE_FLAME ? self->frames[ref].cycles_to : self->steps[ref].cycles_to;
}

static uint32_t ref_program(GaStepLanes *self, guint32 ref)
{
	return self->mode == GA_TRACE_FLAME ? self->frames[ref].program : self->steps[ref].program;
}

/* A program's name as drawn: its name, else its type. */
static const char *frame_name(GaStepLanes *self, guint32 ref)
{
	const tsr_program *p = program_of(self, self->frames[ref].program);

	if (!p)
		return "?";
	return p->name && *p->name ? p->name : ga_program_type_tag(p->program_type);
}

static const char *ref_name(GaStepLanes *self, guint32 ref)
{
	if (self->mode == GA_TRACE_FLAME)
		return frame_name(self, ref);
	return ga_step_name(ga_document_get_report(self->doc), &self->steps[ref]);
}

static void rect(GtkSnapshot *s, const GdkRGBA *c, double x, double y, double w, double h)
{
	if (w > 0 && h > 0)
		gtk_snapshot_append_color(s, c, &GRAPHENE_RECT_INIT((float)x, (float)y, (float)w, (float)h));
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

/* The visible cycles [vis_from, vis_to): the viewport's window, whose
 * `to` is the last cycle in view. */
static double vis_from(GaStepLanes *self)
{
	return (double)self->vp.from;
}

static double vis_to(GaStepLanes *self)
{
	return (double)self->vp.to + 1;
}

static double x_of(GaStepLanes *self, uint64_t cycle)
{
	return tsc_viewport_x_of(&self->vp, self->plot_x, self->plot_w, (int64_t)cycle);
}

/* The cycle (not rounded) under x: the pixel column's own cycles, as the
 * BSP picture colours it. */
static double cycle_at(GaStepLanes *self, double x)
{
	return vis_from(self) + (x - self->plot_x) * tsc_viewport_per_px(&self->vp, self->plot_w);
}

static Lane *lane(GaStepLanes *self, guint k)
{
	return g_ptr_array_index(self->lanes, k);
}

/* Items of a lane that overlap the visible range. */
static size_t lane_in_view(GaStepLanes *self, const Lane *l)
{
	size_t n = 0;

	for (guint i = 0; i < l->tl.spans->len; i++) {
		const TscSpan *sp = &g_array_index(l->tl.spans, TscSpan, i);

		n += (double)sp->from < vis_to(self) &&
		     ((double)sp->to > vis_from(self) || sp->to == sp->from);
	}
	return n;
}

/* Steps that overlap the visible range (whatever the mode). */
static size_t steps_in_view(GaStepLanes *self)
{
	size_t n = 0, lo = 0, hi = self->n_steps;

	/* Steps are in time order within a run: those starting before the
	 * end of the view are a prefix. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((double)self->steps[mid].cycles_from < vis_to(self))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = 0; i < lo; i++) {
		const tsr_step *st = &self->steps[i];

		if ((double)st->cycles_to > vis_from(self) ||
		    (st->cycles_to == st->cycles_from && (double)st->cycles_from >= vis_from(self)))
			n++;
	}
	return n;
}

static void invalidate(GaStepLanes *self)
{
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	if (self->mode == GA_TRACE_BSP)
		self->bsp_stale = TRUE;
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

/* --- Data ------------------------------------------------------------------------- */

static void lane_free(gpointer data)
{
	Lane *l = data;

	g_free(l->name);
	tsc_lane_clear(&l->tl);
	g_free(l);
}

static GdkRGBA kind_colour(int kind, gpointer data)
{
	return *ga_program_kind_colour((ga_program_kind)kind);
}

static GdkRGBA span_colour(const TscSpan *sp, gpointer data)
{
	return kind_colour(sp->kind, data);
}

static char *span_name(const TscSpan *sp, gpointer data)
{
	/* Cut before Pango sees it: a 16 KiB name would be shaped whole for
	 * every bar drawn. */
	return tsd_name_cut(ref_name(data, sp->id));
}

/* A step of the highlighted program. */
static gboolean span_outlined(const TscSpan *sp, gpointer data)
{
	GaStepLanes *self = data;

	return self->highlight >= 0 && ref_program(self, sp->id) == self->highlight;
}

static Lane *lane_add(GaStepLanes *self, char *name, int kind, int ipu)
{
	static const TscLaneFuncs funcs = {.colour = span_colour, .kind_colour = kind_colour,
	                                   .dup_name = span_name, .outlined = span_outlined};
	Lane *l = g_new0(Lane, 1);

	l->name = name;
	l->kind = kind;
	l->ipu = ipu;
	tsc_lane_init(&l->tl, &funcs, self);
	l->tl.inset = 2;
	l->tl.mix_px = MIX_PX;
	g_ptr_array_add(self->lanes, l);
	return l;
}

/* Adds item `ref` (a step or frame) to a lane. */
static void lane_push(GaStepLanes *self, Lane *l, guint32 ref)
{
	TscSpan sp = {.from = (int64_t)ref_from(self, ref), .to = (int64_t)ref_to(self, ref),
	              .count = 1, .kind = item_kind(self, l, ref), .id = ref};

	g_array_append_val(l->tl.spans, sp);
}

/* Whether the index can split the lanes by IPU for the run shown. */
static gboolean per_ipu(GaStepLanes *self)
{
	return self->index && ga_trace_index_get_run(self->index) == self->run &&
	       ga_trace_index_get_num_ipus(self->index) > 1;
}

static void make_flat_lanes(GaStepLanes *self)
{
	static const char *const kind_names[3] = {"Compute", "Exchange", "Sync"};
	unsigned n_ipus = per_ipu(self) ? ga_trace_index_get_num_ipus(self->index) : 1;

	for (unsigned ipu = 0; ipu < n_ipus; ipu++)
		for (int k = GA_PROGRAM_COMPUTE; k <= GA_PROGRAM_EXCHANGE; k++)
			lane_add(self,
			         n_ipus > 1 ? g_strdup_printf("IPU %u %s", ipu, k ? "exchange" : "compute")
			                    : g_strdup(kind_names[k]),
			         k, n_ipus > 1 ? (int)ipu : -1);
	lane_add(self, g_strdup(n_ipus > 1 ? "Sync (all IPUs)" : "Sync"), GA_PROGRAM_SYNC, -1);
	for (guint k = 0; k < self->lanes->len; k++) {
		Lane *l = lane(self, k);

		for (size_t i = 0; i < self->n_steps; i++)
			if (kind_of_step(&self->steps[i]) == l->kind &&
			    (l->ipu < 0 || ga_trace_index_step_on_ipu(self->index, i, (unsigned)l->ipu)))
				lane_push(self, l, (guint32)i);
		tsc_lane_finish(&l->tl);
	}
}

static void make_flame_lanes(GaStepLanes *self)
{
	const char *error = NULL;
	guint32 depth = 0;

	g_clear_pointer(&self->frames_error, g_free);
	/* The frames come with the tile index (its worker follows the
	 * trace); until then there are none to draw. */
	if (!self->index || ga_trace_index_get_run(self->index) != self->run)
		return;
	self->frames = ga_trace_index_get_frames(self->index, &self->n_frames, &error);
	if (!self->frames) {
		self->n_frames = 0;
		self->frames_error = g_strdup(error ? error : "no frames");
		return;
	}
	for (size_t i = 0; i < self->n_frames; i++)
		depth = MAX(depth, self->frames[i].depth + 1);
	for (guint32 d = 0; d < depth; d++)
		lane_add(self, g_strdup_printf("Depth %u", d), -1, -1);
	self->step_leaf = g_new0(guint32, MAX(1, self->n_steps));
	/* Frames are in pre-order: a later frame over a step is deeper. */
	for (size_t i = 0; i < self->n_frames; i++) {
		lane_push(self, lane(self, self->frames[i].depth), (guint32)i);
		for (size_t k = self->frames[i].step_from; k < self->frames[i].step_to && k < self->n_steps;
		     k++)
			self->step_leaf[k] = (guint32)i;
	}
	for (guint32 d = 0; d < depth; d++)
		tsc_lane_finish(&lane(self, d)->tl);
}

/* Remakes the lanes for the run, mode and index. */
static void make_lanes(GaStepLanes *self)
{
	g_ptr_array_set_size(self->lanes, 0);
	g_clear_pointer(&self->step_leaf, g_free);
	self->frames = NULL;
	self->n_frames = 0;
	self->hover_lane = -1;
	self->hover_in_plot = FALSE;
	if (self->doc && self->steps) {
		if (self->mode == GA_TRACE_FLAME)
			make_flame_lanes(self);
		else if (self->mode == GA_TRACE_FLAT)
			make_flat_lanes(self);
	}
	self->width = -1; /* the lanes' geometry */
	invalidate(self);
	gtk_widget_queue_resize(GTK_WIDGET(self));
}

void ga_step_lanes_set_run(GaStepLanes *self, GaDocument *doc, size_t run)
{
	const tsr_run *runs;
	size_t n_runs;

	g_clear_pointer(&self->doc, ga_document_unref);
	self->steps = NULL;
	self->n_steps = 0;
	self->total = 0;
	self->n_runs = 0;
	self->run = run;
	self->selected = -1;
	self->selected_frame = -1;
	self->has_range = FALSE;
	if (doc && !tsr_report_get_runs(&runs, &n_runs, ga_document_get_report(doc)) && run < n_runs &&
	    !tsr_report_get_steps(&self->steps, &self->n_steps, ga_document_get_report(doc), run) &&
	    self->n_steps <= G_MAXUINT32) {
		self->doc = ga_document_ref(doc);
		self->n_runs = n_runs;
		self->total = runs[run].cycles;
		for (size_t i = 0; i < self->n_steps; i++)
			self->total = MAX(self->total, self->steps[i].cycles_to);
	} else {
		self->steps = NULL;
		self->n_steps = 0;
	}
	g_clear_object(&self->bsp_tex);
	tsd_cancel_clear(&self->bsp_cancel);
	make_lanes(self);
	set_axis(self);
	tsc_viewport_set(&self->vp, 0, (int64_t)MAX((double)self->total, MIN_SPAN) - 1);
	g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
	g_signal_emit(self, signals[SIGNAL_RANGE_CHANGED], 0);
	g_signal_emit(self, signals[SIGNAL_VISIBLE_CHANGED], 0);
	update_description(self);
}

void ga_step_lanes_set_mode(GaStepLanes *self, ga_trace_mode mode)
{
	if (mode == self->mode || mode >= GA_TRACE_MODE_COUNT)
		return;
	self->mode = mode;
	self->selected_frame = -1;
	make_lanes(self);
	update_description(self);
}

void ga_step_lanes_set_index(GaStepLanes *self, GaTraceIndex *index)
{
	if (index == self->index)
		return;
	if (index)
		ga_trace_index_ref(index);
	g_clear_pointer(&self->index, ga_trace_index_unref);
	self->index = index;
	g_clear_object(&self->bsp_tex);
	if (self->mode != GA_TRACE_BSP)
		make_lanes(self); /* per-IPU lanes, or the frames */
	else
		invalidate(self);
	update_description(self);
}

void ga_step_lanes_set_highlight(GaStepLanes *self, gint64 program)
{
	if (program == self->highlight)
		return;
	self->highlight = program;
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	update_description(self);
}

void ga_step_lanes_set_axis_end(GaStepLanes *self, double end)
{
	int64_t from = self->vp.from, to = self->vp.to;

	self->axis_end = end;
	set_axis(self);
	/* The window as it was, unless the axis no longer reaches it. */
	tsc_viewport_set(&self->vp, from, to);
	if (from != self->vp.from || to != self->vp.to)
		view_changed(self);
}

double ga_step_lanes_get_total(GaStepLanes *self)
{
	return (double)self->total;
}

void ga_step_lanes_set_label(GaStepLanes *self, const char *label)
{
	g_free(self->label);
	self->label = g_strdup(label);
	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               label ? label : "Execution trace", -1);
}

gboolean ga_step_lanes_is_busy(GaStepLanes *self)
{
	return self->bsp_cancel != NULL || (self->mode == GA_TRACE_BSP && self->bsp_stale);
}

/* --- Range ------------------------------------------------------------------------ */

/* The axis: cycles [0, the run's end, or axis_end in compare mode), at
 * least MIN_SPAN; the window is reset to all of it. */
static void set_axis(GaStepLanes *self)
{
	double end = MAX(MAX((double)self->total, self->axis_end), MIN_SPAN);

	tsc_viewport_init(&self->vp, TSC_TIMELINE_CYCLES, 0, (int64_t)end - 1, (int64_t)MIN_SPAN - 1);
}

/* The window moved: redraw, describe, tell the view (also the chart
 * kit's hook when its input moved it). */
static void view_changed(gpointer data)
{
	GaStepLanes *self = data;

	invalidate(self);
	update_description(self);
	g_signal_emit(self, signals[SIGNAL_VISIBLE_CHANGED], 0);
}

void ga_step_lanes_get_visible(GaStepLanes *self, double *from, double *to)
{
	*from = vis_from(self);
	*to = vis_to(self);
}

void ga_step_lanes_set_visible(GaStepLanes *self, double from, double to)
{
	if (isnan(from) || isnan(to))
		return;
	/* Past what an int64 holds (a request for all of it: 1e300), the
	 * viewport's clamp decides. */
	from = CLAMP(from, -1e18, 1e18);
	to = CLAMP(to, -1e18, 1e18);
	/* Narrower than the narrowest window: that window about the middle. */
	if (to - from < MIN_SPAN) {
		from = (from + to) / 2 - MIN_SPAN / 2;
		to = from + MIN_SPAN;
	}
	if (tsc_viewport_set(&self->vp, llround(from), llround(to) - 1))
		view_changed(self);
}

/* --- Selection -------------------------------------------------------------------- */

gint64 ga_step_lanes_get_selected(GaStepLanes *self)
{
	return self->selected;
}

gint64 ga_step_lanes_get_selected_program(GaStepLanes *self)
{
	if (self->selected_frame >= 0 && (size_t)self->selected_frame < self->n_frames)
		return self->frames[self->selected_frame].program;
	return self->selected >= 0 ? (gint64)self->steps[self->selected].program : -1;
}

static void select_full(GaStepLanes *self, gint64 step, gint64 frame)
{
	if (step < -1 || step >= (gint64)self->n_steps)
		step = -1;
	if (step == self->selected && frame == self->selected_frame)
		return;
	self->selected = step;
	self->selected_frame = frame;
	gtk_widget_queue_draw(GTK_WIDGET(self));
	g_signal_emit(self, signals[SIGNAL_SELECTION_CHANGED], 0);
	update_description(self);
}

void ga_step_lanes_set_selected(GaStepLanes *self, gint64 step)
{
	select_full(self, step, -1);
}

void ga_step_lanes_reveal(GaStepLanes *self, gint64 step)
{
	const tsr_step *st;
	double span = vis_to(self) - vis_from(self), w, mid;

	ga_step_lanes_set_selected(self, step);
	if (step < 0 || step >= (gint64)self->n_steps)
		return;
	st = &self->steps[step];
	w = (double)(st->cycles_to - st->cycles_from);
	mid = (st->cycles_from + st->cycles_to) / 2.0;
	/* At least 20 px wide, else keep the zoom. */
	if (self->plot_w > 0 && w / span * self->plot_w < 20)
		span = MAX(MIN_SPAN, w * self->plot_w / 20);
	if ((double)st->cycles_from < vis_from(self) || (double)st->cycles_to > vis_to(self) ||
	    span != vis_to(self) - vis_from(self))
		ga_step_lanes_set_visible(self, mid - span / 2, mid + span / 2);
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

/* Whether the geometry waits for the next frame (a new mode, run or
 * theme): what depends on it (BSP rows, what the pointer is on) is not
 * described until then. */
static gboolean geometry_pending(GaStepLanes *self)
{
	return self->width < 0 || !self->layout;
}

static gboolean describe_later(gpointer data)
{
	GaStepLanes *self = data;

	self->describe_idle = 0;
	update_description(self);
	return G_SOURCE_REMOVE;
}

static void ensure_geometry(GaStepLanes *self)
{
	GtkWidget *w = GTK_WIDGET(self);
	int width = gtk_widget_get_width(w), height = gtk_widget_get_height(w);
	int label_w = 0, tw, th;
	guint n = MAX(1, self->lanes->len);
	double top, gap = n > 4 ? 3 : 6;

	if (width == self->width && height == self->height && self->layout)
		return;
	if (self->width != width || self->height != height) {
		g_clear_pointer(&self->cache, gsk_render_node_unref);
		self->bsp_stale = TRUE;
		/* The BSP rows depend on the height: say so after this frame. */
		if (!self->describe_idle)
			self->describe_idle = g_idle_add(describe_later, self);
	}
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
	for (guint k = 0; k < self->lanes->len; k++)
		label_w = MAX(label_w, text_width(self, lane(self, k)->name));
	label_w = MAX(label_w, text_width(self, self->mode == GA_TRACE_BSP ? "Tile 5,887" : "Exchange"));
	self->plot_x = label_w + 20;
	self->plot_w = MAX(1, width - self->plot_x - 12);
	self->ruler_h = th + 12;
	top = self->ruler_h + 4;
	self->lane_h = CLAMP((height - top - 8) / n - gap, th + 6, 64);
	for (guint k = 0; k < self->lanes->len; k++) {
		lane(self, k)->tl.y = floor(top + k * (self->lane_h + gap));
		lane(self, k)->tl.row_h = self->lane_h;
	}
	self->bsp_y = top;
	self->bsp_h = MAX(1, height - top - 8);
}

static double lanes_bottom(GaStepLanes *self)
{
	if (self->mode == GA_TRACE_BSP || !self->lanes->len)
		return self->bsp_y + self->bsp_h;
	return lane(self, self->lanes->len - 1)->tl.y + self->lane_h;
}

static int lane_at(GaStepLanes *self, double y)
{
	for (guint k = 0; k < self->lanes->len; k++)
		if (y >= lane(self, k)->tl.y && y < lane(self, k)->tl.y + self->lane_h)
			return (int)k;
	return -1;
}

/* The mark of lane `k` drawn at x (within a pixel's slack), or FALSE. */
static gboolean item_at(GaStepLanes *self, int k, double x, guint *out)
{
	return tsc_lane_mark_at(&lane(self, (guint)k)->tl, 0, x, out);
}

/* The mark drawn under (x, y) in Flat or Flame, and its lane; NULL: none. */
static const TscFoldMark *mark_at(GaStepLanes *self, double x, double y, const Lane **l)
{
	int k = self->doc ? lane_at(self, y) : -1;
	guint i;

	if (k < 0 || !item_at(self, k, x, &i))
		return NULL;
	*l = lane(self, (guint)k);
	return &g_array_index((*l)->tl.marks, TscFoldMark, i);
}

/* The mark the pointer is on as last found, and its lane; NULL: none. */
static const TscFoldMark *hovered(GaStepLanes *self, const Lane **l)
{
	if (self->hover_lane < 0 || (guint)self->hover_lane >= self->lanes->len ||
	    self->hover_item >= lane(self, (guint)self->hover_lane)->tl.marks->len)
		return NULL;
	*l = lane(self, (guint)self->hover_lane);
	return &g_array_index((*l)->tl.marks, TscFoldMark, self->hover_item);
}

/* --- The cached layer --------------------------------------------------------------- */

/* The chart kit's ruler over the plot, with grid lines down the lanes
 * (the BSP picture is dense enough without). */
static void draw_ruler(GaStepLanes *self, GtkSnapshot *s)
{
	GdkRGBA axis = alpha(&self->fg, 0.55), grid = alpha(&self->fg, 0.1), ink = alpha(&self->fg, 0.8);
	TscRuler ruler = {.x0 = self->plot_x, .width = self->plot_w, .height = self->ruler_h + 1,
	                  .vp = &self->vp};

	if (self->mode != GA_TRACE_BSP)
		tsc_ruler_draw_grid(s, &ruler, self->ruler_h + 1, lanes_bottom(self), &grid);
	tsc_ruler_draw(s, self->layout, &ruler, &ink, &axis);
}

/* --- BSP ---------------------------------------------------------------------------- */

/* The rows of the BSP picture for the current size. */
typedef struct BspRows {
	unsigned tiles, n_blocks; /* the index's tiles and blocks of tiles */
	unsigned bpr, per_row;    /* blocks and tiles per row */
	int rows, row_px;         /* rows shown, each row_px device px tall */
} BspRows;

static BspRows bsp_rows(GaStepLanes *self)
{
	int scale = gtk_widget_get_scale_factor(GTK_WIDGET(self));
	int h_dev = MAX(1, (int)(self->bsp_h * scale));
	unsigned tpb = ga_trace_index_get_tiles_per_block(self->index);
	BspRows b = {.tiles = ga_trace_index_get_num_tiles(self->index)};
	unsigned first = self->bsp_first / tpb;

	b.n_blocks = (b.tiles + tpb - 1) / tpb;
	b.row_px = (int)MAX(1, self->bsp_row_px);
	b.bpr = self->bsp_bpr ? self->bsp_bpr : MAX(1, (b.n_blocks + (unsigned)h_dev - 1) / (unsigned)h_dev);
	/* All tiles in the view: fewer tiles than pixels get taller rows. */
	if (!self->bsp_bpr && b.bpr == 1)
		b.row_px = MAX(1, MIN(BSP_MAX_ROW_PX, h_dev / (int)MAX(1u, b.n_blocks)));
	b.rows = MIN(h_dev / b.row_px, (int)((b.n_blocks - MIN(first, b.n_blocks) + b.bpr - 1) / b.bpr));
	b.rows = MAX(1, b.rows);
	b.per_row = b.bpr * tpb;
	return b;
}

static void bsp_colours(GaStepLanes *self, GdkRGBA *c)
{
	c[GA_TILE_COMPUTE] = *ga_program_kind_colour(GA_PROGRAM_COMPUTE);
	c[GA_TILE_EXCHANGE] = *ga_program_kind_colour(GA_PROGRAM_EXCHANGE);
	c[GA_TILE_SYNC] = *ga_program_kind_colour(GA_PROGRAM_SYNC);
	/* Idle: the text colour faintly, so it reads on light and dark. */
	c[GA_TILE_IDLE] = alpha(&self->fg, 0.18);
}

typedef struct BspJob {
	GaTraceIndex *index;
	ga_bsp_request req;
} BspJob;

static void bsp_job_free(gpointer data)
{
	BspJob *j = data;

	ga_trace_index_unref(j->index);
	g_free(j);
}

static void bsp_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
	BspJob *j = data;

	g_task_return_pointer(task, ga_trace_index_render_bsp(j->index, &j->req, NULL), g_object_unref);
}

static void bsp_done(GObject *source, GAsyncResult *result, gpointer data)
{
	GdkTexture *tex = g_task_propagate_pointer(G_TASK(result), NULL);
	BspJob *j = g_task_get_task_data(G_TASK(result));
	GaStepLanes *self;

	if (!tex)
		return; /* cancelled: the widget may be gone */
	self = GA_STEP_LANES(data);
	g_clear_object(&self->bsp_cancel);
	g_set_object(&self->bsp_tex, tex);
	self->bsp_req = j->req;
	g_object_unref(tex);
	gtk_widget_queue_draw(GTK_WIDGET(self));
	/* The view moved on while this one was made. */
	if (self->bsp_stale)
		bsp_request(self);
	update_description(self);
}

/* Asks for the BSP picture of the current view: made at once when small,
 * else in a thread (one at a time; the latest view wins). */
static void bsp_request(GaStepLanes *self)
{
	int scale = gtk_widget_get_scale_factor(GTK_WIDGET(self));
	ga_bsp_request req = {0};
	BspRows b;
	BspJob *j;
	GTask *task;

	if (!self->index || ga_trace_index_get_run(self->index) != self->run || !self->doc)
		return;
	if (self->bsp_cancel)
		return; /* bsp_done asks again */
	req.from = vis_from(self);
	req.to = vis_to(self);
	req.width = MAX(1, (int)(self->plot_w * scale));
	b = bsp_rows(self);
	req.rows = b.rows;
	req.row_px = b.row_px;
	req.tiles_per_row = b.per_row;
	req.first_tile = self->bsp_first;
	bsp_colours(self, req.colours);
	self->bsp_stale = FALSE;
	if ((double)steps_in_view(self) * req.rows < BSP_SYNC_WORK) {
		g_autoptr(GdkTexture) tex = ga_trace_index_render_bsp(self->index, &req, NULL);

		g_set_object(&self->bsp_tex, tex);
		self->bsp_req = req;
		return;
	}
	j = g_new0(BspJob, 1);
	j->index = ga_trace_index_ref(self->index);
	j->req = req;
	self->bsp_cancel = g_cancellable_new();
	task = g_task_new(NULL, self->bsp_cancel, bsp_done, self);
	g_task_set_task_data(task, j, bsp_job_free);
	g_task_run_in_thread(task, bsp_thread);
	g_object_unref(task);
}

/* The picture, outside the cached layer: it changes when a thread
 * delivers it, not only with the view. */
static void draw_bsp_texture(GaStepLanes *self, GtkSnapshot *s)
{
	int scale = gtk_widget_get_scale_factor(GTK_WIDGET(self));

	if (!self->index || ga_trace_index_get_run(self->index) != self->run || !self->doc)
		return;
	if (self->bsp_stale && !self->bsp_cancel)
		bsp_request(self);
	/* At 1:1 device pixels when it is of this view; stretched to where
	 * its cycles now are while the next one is made. */
	if (self->bsp_tex)
		tsc_timeline_append_texture(s, self->bsp_tex, (int64_t)self->bsp_req.from,
		                            (int64_t)self->bsp_req.to - 1, &self->vp, self->plot_x,
		                            self->plot_w, self->bsp_y, self->bsp_h, scale);
}

static void draw_bsp(GaStepLanes *self, GtkSnapshot *s)
{
	GdkRGBA ink = alpha(&self->fg, 0.8), dim = alpha(&self->fg, 0.6);
	GdkRGBA band = alpha(&self->fg, 0.04);
	int scale = gtk_widget_get_scale_factor(GTK_WIDGET(self));

	rect(s, &band, self->plot_x, self->bsp_y, self->plot_w, self->bsp_h);
	if (!self->index || ga_trace_index_get_run(self->index) != self->run) {
		text(self, s, "Reading the tiles of every step…", self->plot_x + 8, self->bsp_y + 8, -1,
		     &dim);
		return;
	}
	/* Tile numbers down the left, one every ~4 lines of text. */
	{
		BspRows b = bsp_rows(self);
		double row_h = (double)b.row_px / scale, every = MAX(1, ceil(self->text_h * 2.5 / row_h));

		for (int r = 0; r < b.rows; r += (int)every) {
			unsigned tile = self->bsp_first + (unsigned)r * b.per_row;
			g_autofree char *num = ga_format_u64(tile);
			g_autofree char *t = g_strdup_printf("Tile %s", num);
			int w = text_width(self, t);
			double y = self->bsp_y + r * row_h;

			if (y + self->text_h > self->bsp_y + self->bsp_h)
				break;
			text(self, s, t, self->plot_x - 8 - w, y, -1, &ink);
		}
	}
}

static GskRenderNode *build_layer(GaStepLanes *self)
{
	GtkSnapshot *s = gtk_snapshot_new();
	GdkRGBA band = alpha(&self->fg, 0.04), ink = alpha(&self->fg, 0.8), dim = alpha(&self->fg, 0.6);

	for (guint k = 0; k < self->lanes->len; k++) {
		Lane *l = lane(self, k);

		g_array_set_size(l->tl.marks, 0);
		rect(s, &band, self->plot_x, l->tl.y, self->plot_w, self->lane_h);
		text(self, s, l->name, 8, l->tl.y + (self->lane_h - self->text_h) / 2, -1, &ink);
	}
	if (!self->doc) {
		text(self, s, "No execution profile to show", self->plot_x + 8, self->ruler_h + 8, -1,
		     &dim);
		return gtk_snapshot_free_to_node(s);
	}
	draw_ruler(self, s);
	if (self->mode == GA_TRACE_BSP) {
		draw_bsp(self, s);
	} else if (self->mode == GA_TRACE_FLAME && !self->frames) {
		g_autofree char *t = self->frames_error
		                         ? g_strdup_printf("No call stacks: %s", self->frames_error)
		                         : g_strdup("Following the call stacks…");

		pango_layout_set_wrap(self->layout, PANGO_WRAP_WORD_CHAR);
		text(self, s, t, self->plot_x + 8, self->ruler_h + 8, (int)self->plot_w - 16, &dim);
	} else {
		gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT((float)self->plot_x, 0, (float)self->plot_w,
		                                              (float)self->height));
		for (guint k = 0; k < self->lanes->len; k++)
			tsc_lane_draw(s, self->layout, &lane(self, k)->tl, &self->vp, self->plot_x,
			              self->plot_w, &self->fg);
		gtk_snapshot_pop(s);
	}
	return gtk_snapshot_free_to_node(s);
}

/* --- The overlay ------------------------------------------------------------------- */

/* Outlines cycles [from, to) from y, h px tall, `pad` px out, as
 * selected: a sliver at least 3 px wide about its middle. */
static void select_outline(GaStepLanes *self, GtkSnapshot *s, uint64_t from, uint64_t to,
                           double y, double h, double pad, float w)
{
	double x0 = x_of(self, from), x1 = x_of(self, to);

	if (x1 - x0 < 3) {
		x0 = floor((x0 + x1) / 2) - 1;
		x1 = x0 + 3;
	}
	tsc_timeline_draw_outline(s, x0 - pad, x1 + pad, y, h, &self->accent, w);
}

/* Outlines step or frame `ref` of lane `l` as selected. */
static void select_ref(GaStepLanes *self, GtkSnapshot *s, const Lane *l, guint32 ref)
{
	tsc_lane_draw_outline(s, &l->tl, &self->vp, self->plot_x, self->plot_w,
	                      (int64_t)ref_from(self, ref), (int64_t)ref_to(self, ref), 0, 3,
	                      &self->accent, 3);
}

static void draw_overlay(GaStepLanes *self, GtkSnapshot *s)
{
	double top = self->mode == GA_TRACE_BSP ? self->bsp_y
	             : self->lanes->len         ? lane(self, 0)->tl.y
	                                        : self->ruler_h;
	double bottom = lanes_bottom(self);
	const TscFoldMark *it;
	const Lane *l;

	gtk_snapshot_push_clip(s, &GRAPHENE_RECT_INIT((float)self->plot_x - 2, 0,
	                                              (float)self->plot_w + 4, (float)self->height));
	if (self->has_range) {
		gtk_snapshot_save(s);
		gtk_snapshot_translate(s, &GRAPHENE_POINT_INIT(0, (float)top));
		tsc_timeline_draw_range(s, &self->vp, self->plot_x, self->plot_w, bottom - top,
		                        (int64_t)self->range_from, (int64_t)self->range_to, &self->accent);
		gtk_snapshot_restore(s);
	}
	if ((it = hovered(self, &l))) {
		GdkRGBA c = alpha(&self->fg, 0.22);

		rect(s, &c, it->x0, l->tl.y + 2, MAX(1, it->x1 - it->x0), self->lane_h - 4);
	}
	if (self->selected >= 0 && self->mode == GA_TRACE_FLAT) {
		const tsr_step *st = &self->steps[self->selected];

		for (guint k = 0; k < self->lanes->len; k++) {
			l = lane(self, k);
			if (l->kind == kind_of_step(st) &&
			    (l->ipu < 0 || ga_trace_index_step_on_ipu(self->index, (size_t)self->selected,
			                                              (unsigned)l->ipu)))
				select_ref(self, s, l, (guint32)self->selected);
		}
	} else if (self->selected >= 0 && self->mode == GA_TRACE_FLAME && self->step_leaf) {
		gint64 f = self->selected_frame >= 0 ? self->selected_frame
		                                     : (gint64)self->step_leaf[self->selected];

		if ((size_t)f < self->n_frames && self->frames[f].depth < self->lanes->len)
			select_ref(self, s, lane(self, self->frames[f].depth), (guint32)f);
	} else if (self->selected >= 0 && self->mode == GA_TRACE_BSP) {
		const tsr_step *st = &self->steps[self->selected];

		select_outline(self, s, st->cycles_from, st->cycles_to, top - 1, bottom - top + 2, 1, 2);
	}
	gtk_snapshot_pop(s);
	if (gtk_widget_has_focus(GTK_WIDGET(self))) {
		GdkRGBA c = alpha(&self->accent, 0.8);

		tsc_timeline_draw_outline(s, self->plot_x - 3, self->plot_x + self->plot_w + 3, top - 3,
		                          bottom - top + 6, &c, 1);
	}
}

/* Whether (x, y) is over the plot of the lanes (below the ruler,
 * between the names and the right margin) in Flat or Flame. */
static gboolean in_plot(GaStepLanes *self, double x, double y)
{
	return self->doc && self->lanes->len && !geometry_pending(self) && x >= self->plot_x &&
	       x < self->plot_x + self->plot_w && y >= self->ruler_h && y < self->height;
}

/* Finds the bar under the pointer (pointer_x, pointer_y; -1: outside).
 * The description says what the pointer is on: when that changed it is
 * redone at once after a motion, and after this frame when the bars
 * were redrawn under a still pointer (a snapshot asks for no frame). */
static void hover(GaStepLanes *self, gboolean in_snapshot)
{
	double x = self->pointer_x, y = self->pointer_y;
	int k = self->doc ? lane_at(self, y) : -1;
	guint item = 0;
	gboolean over = x >= 0 && in_plot(self, x, y);

	if (k >= 0 && (x < self->plot_x || x >= self->plot_x + self->plot_w || !item_at(self, k, x, &item)))
		k = -1;
	if (k == self->hover_lane && (k < 0 || item == self->hover_item) && over == self->hover_in_plot)
		return;
	self->hover_lane = k;
	self->hover_item = item;
	self->hover_in_plot = over;
	if (in_snapshot) {
		if (!self->describe_idle)
			self->describe_idle = g_idle_add(describe_later, self);
		return;
	}
	gtk_widget_queue_draw(GTK_WIDGET(self));
	update_description(self);
}

static void ga_step_lanes_snapshot(GtkWidget *widget, GtkSnapshot *snapshot)
{
	GaStepLanes *self = GA_STEP_LANES(widget);

	ensure_geometry(self);
	if (!self->cache) {
		self->cache = build_layer(self);
		/* The bars moved: what is under the pointer now. */
		hover(self, TRUE);
	}
	gtk_snapshot_append_node(snapshot, self->cache);
	if (self->mode == GA_TRACE_BSP)
		draw_bsp_texture(self, snapshot);
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

/* "program 44 “name” (Sequence), cycles 0 – 672,100". */
static char *frame_text(GaStepLanes *self, guint32 f)
{
	const tsr_frame *fr = &self->frames[f];
	const tsr_program *p = program_of(self, fr->program);
	g_autofree char *name = ga_format_name(frame_name(self, f));
	g_autofree char *a = ga_format_u64(fr->cycles_from), *b = ga_format_u64(fr->cycles_to);
	g_autofree char *n = ga_format_u64(fr->step_to - fr->step_from);

	return g_strdup_printf("program %u “%s” (%s), cycles %s – %s, %s steps", fr->program, name,
	                       p ? ga_program_type_tag(p->program_type) : "?", a, b, n);
}

static char *ref_text(GaStepLanes *self, guint32 ref)
{
	return self->mode == GA_TRACE_FLAME ? frame_text(self, ref) : step_text(self, &self->steps[ref]);
}

/* What the item under the pointer is: a step or frame, or a fold's count
 * and span. */
static char *item_text(GaStepLanes *self, const Lane *l, const TscFoldMark *it)
{
	int64_t from, to;
	g_autofree char *count = NULL, *a = NULL, *b = NULL;

	if (it->count == 1)
		return ref_text(self, g_array_index(l->tl.spans, TscSpan, it->first).id);
	tsc_lane_mark_extent(&l->tl, it, &from, &to);
	count = ga_format_u64(it->count);
	a = ga_format_u64((uint64_t)from);
	b = ga_format_u64((uint64_t)to);
	return g_strdup_printf("%s %s folded in %s, cycles %s – %s (click to zoom in)", count,
	                       self->mode == GA_TRACE_FLAME ? "frames" : "steps", l->name, a, b);
}

static void describe_flat(GaStepLanes *self, GString *d)
{
	if (per_ipu(self))
		g_string_append_printf(d, " Lanes per IPU (%u IPUs): compute and exchange, and sync on "
		                          "all IPUs.",
		                       ga_trace_index_get_num_ipus(self->index));
	else if (self->index || !self->doc)
		g_string_append(d, " Lanes compute, exchange and sync.");
	else
		g_string_append(d, " Lanes compute, exchange and sync (per-IPU lanes once the tiles are "
		                   "read).");
}

static void describe_flame(GaStepLanes *self, GString *d)
{
	size_t in_view = 0;

	if (!self->frames) {
		if (self->frames_error)
			g_string_append_printf(d, " Flame: no call stacks (%s).", self->frames_error);
		else
			g_string_append(d, " Flame: following the call stacks.");
		return;
	}
	for (guint k = 0; k < self->lanes->len; k++)
		in_view += lane_in_view(self, lane(self, k));
	{
		g_autofree char *top = frame_text(self, 0);
		g_autofree char *n = ga_format_u64(self->n_frames), *v = ga_format_u64(in_view);

		g_string_append_printf(d, " Flame: depth %u, %s frames, %s in view. Top frame: %s.",
		                       self->lanes->len, n, v, top);
	}
}

static void describe_bsp(GaStepLanes *self, GString *d)
{
	BspRows b;

	if (!self->index || ga_trace_index_get_run(self->index) != self->run) {
		g_string_append(d, " BSP: reading the tiles of every step.");
		return;
	}
	b = bsp_rows(self);
	{
		unsigned last = MIN(b.tiles, self->bsp_first + (unsigned)b.rows * b.per_row) - 1;
		g_autofree char *t = ga_format_u64(b.tiles), *from = ga_format_u64(self->bsp_first);
		g_autofree char *to = ga_format_u64(last);

		g_string_append_printf(d, " BSP: %s tiles, %u per row, %d rows of %d px; tiles %s – %s "
		                          "shown.",
		                       t, b.per_row, b.rows, b.row_px, from, to);
	}
}

static void update_description(GaStepLanes *self)
{
	static const char *const mode_names[GA_TRACE_MODE_COUNT] = {"Flat", "Flame", "BSP"};
	GString *d = g_string_new(NULL);
	const TscFoldMark *it;
	const Lane *l;

	if (!self->doc) {
		g_string_append(d, "No execution profile");
	} else {
		g_autofree char *total = ga_format_u64(self->total);
		g_autofree char *steps = ga_format_u64(self->n_steps);
		g_autofree char *a = ga_format_u64((uint64_t)floor(vis_from(self)));
		g_autofree char *b = ga_format_u64((uint64_t)ceil(vis_to(self)));
		g_autofree char *in_view = ga_format_u64(steps_in_view(self));

		g_string_append_printf(d, "Run %zu (of %zu): %s cycles, %s steps. Mode %s.", self->run,
		                       self->n_runs, total, steps, mode_names[self->mode]);
		/* Until the next frame lays the mode out (describe_later then). */
		if (geometry_pending(self))
			g_string_append(d, " Laying out.");
		else if (self->mode == GA_TRACE_FLAT)
			describe_flat(self, d);
		else if (self->mode == GA_TRACE_FLAME)
			describe_flame(self, d);
		else
			describe_bsp(self, d);
		g_string_append_printf(d, " Showing cycles %s – %s: %s steps in view.", a, b, in_view);
		if (self->selected >= 0) {
			g_autofree char *t = step_text(self, &self->steps[self->selected]);

			g_string_append_printf(d, " Selected: %s.", t);
		}
		if (self->selected_frame >= 0 && (size_t)self->selected_frame < self->n_frames) {
			g_autofree char *t = frame_text(self, (guint32)self->selected_frame);

			g_string_append_printf(d, " Selected frame: %s.", t);
		}
		if (self->highlight >= 0)
			g_string_append_printf(d, " Outlined: the steps of program %" G_GINT64_FORMAT ".",
			                       self->highlight);
		if ((it = hovered(self, &l))) {
			g_autofree char *t = item_text(self, l, it);

			g_string_append_printf(d, " Pointer on: %s.", t);
		} else if (self->hover_in_plot) {
			g_string_append(d, " Pointer on: nothing.");
		}
	}
	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
	                               d->str, -1);
	g_free(self->description);
	self->description = g_string_free(d, FALSE);
}

const char *ga_step_lanes_get_description(GaStepLanes *self)
{
	return self->description;
}

/* --- Input ----------------------------------------------------------------------------- */

static void hook_motion(gpointer data, double x, double y)
{
	GaStepLanes *self = data;

	self->pointer_x = x;
	self->pointer_y = y;
	hover(self, FALSE);
}

static void hook_leave(gpointer data)
{
	GaStepLanes *self = data;

	self->pointer_x = self->pointer_y = -1;
	hover(self, FALSE);
}

/* The step whose cycles hold `cycle` (the first of several), or -1. */
static gint64 step_at_cycle(GaStepLanes *self, double cycle)
{
	size_t lo = 0, hi = self->n_steps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((double)self->steps[mid].cycles_to <= cycle)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < self->n_steps && (double)self->steps[lo].cycles_from <= cycle)
		return (gint64)lo;
	return -1;
}

/* BSP: the step at the cycle under x (the first of several); -1 when
 * there is none or (x, y) is off the picture. */
static gint64 bsp_step_at(GaStepLanes *self, double x, double y)
{
	if (x < self->plot_x || x >= self->plot_x + self->plot_w || y < self->bsp_y)
		return -1;
	return step_at_cycle(self, cycle_at(self, x));
}

static gboolean on_query_tooltip(GtkWidget *w, int x, int y, gboolean keyboard, GtkTooltip *tip,
                                 gpointer data)
{
	GaStepLanes *self = GA_STEP_LANES(w);
	const TscFoldMark *it;
	const Lane *l;
	g_autofree char *t = NULL;

	if (self->doc && self->mode == GA_TRACE_BSP) {
		gint64 st = bsp_step_at(self, x, y);

		if (st < 0)
			return FALSE;
		t = step_text(self, &self->steps[st]);
	} else if ((it = mark_at(self, x, y, &l))) {
		t = item_text(self, l, it);
	} else {
		return FALSE;
	}
	gtk_tooltip_set_text(tip, t);
	return TRUE;
}

/* BSP vertical zoom: `in` halves the tiles per row, then makes rows
 * taller; out the reverse, back to all tiles in the view. */
static void bsp_zoom(GaStepLanes *self, gboolean in)
{
	BspRows b;

	if (!self->index)
		return;
	b = bsp_rows(self);
	if (in) {
		if (b.bpr > 1) {
			self->bsp_bpr = b.bpr / 2;
		} else {
			self->bsp_bpr = 1;
			self->bsp_row_px = MIN(BSP_MAX_ROW_PX, (unsigned)b.row_px * 2);
		}
	} else if (b.row_px > 1) {
		self->bsp_row_px = (unsigned)b.row_px / 2;
		self->bsp_bpr = 1;
	} else {
		self->bsp_bpr = b.bpr * 2;
		if ((unsigned)b.rows * b.bpr >= b.n_blocks ||
		    self->bsp_bpr * (unsigned)b.rows >= 2 * b.n_blocks) {
			self->bsp_bpr = 0; /* back to all tiles */
			self->bsp_first = 0;
		}
	}
	invalidate(self);
	update_description(self);
}

/* BSP vertical scroll by `rows` rows (negative: up). */
static void bsp_scroll(GaStepLanes *self, int rows_by)
{
	BspRows b;
	gint64 first;

	if (!self->index)
		return;
	b = bsp_rows(self);
	first = (gint64)self->bsp_first + (gint64)rows_by * b.per_row;
	first = CLAMP(first, 0, (gint64)b.tiles - 1);
	first -= first % (gint64)b.per_row;
	if ((unsigned)first == self->bsp_first)
		return;
	self->bsp_first = (unsigned)first;
	invalidate(self);
	update_description(self);
}

/* Shift+wheel scrolls the BSP rows (elsewhere it pans). */
static gboolean hook_scroll_rows(gpointer data, double dy)
{
	GaStepLanes *self = data;

	if (self->mode != GA_TRACE_BSP || dy == 0)
		return FALSE;
	bsp_scroll(self, dy < 0 ? -4 : 4);
	return TRUE;
}

/* Ctrl+Shift+wheel zooms the BSP rows: before the chart kit's
 * controller, which zooms the cycles with any other wheel. */
static gboolean on_bsp_scroll(GtkEventControllerScroll *c, double dx, double dy, GaStepLanes *self)
{
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(c));

	if (!self->doc || self->mode != GA_TRACE_BSP || dy == 0 ||
	    (mods & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)) != (GDK_SHIFT_MASK | GDK_CONTROL_MASK))
		return FALSE;
	bsp_zoom(self, dy < 0);
	return TRUE;
}

/* A click at x: selects the step or frame there, or zooms into a fold of
 * many; in BSP the step at that cycle. */
static void hook_click(gpointer data, double x, double y, GdkModifierType state)
{
	GaStepLanes *self = data;
	const TscFoldMark *it;
	const Lane *l;

	if (self->doc && self->mode == GA_TRACE_BSP) {
		ga_step_lanes_set_selected(self, bsp_step_at(self, x, y));
	} else if (!(it = mark_at(self, x, y, &l))) {
		ga_step_lanes_set_selected(self, -1);
	} else if (it->count == 1) {
		guint32 ref = g_array_index(l->tl.spans, TscSpan, it->first).id;

		if (self->mode == GA_TRACE_FLAME)
			select_full(self, (gint64)self->frames[ref].step_from, ref);
		else
			select_full(self, ref, -1);
	} else {
		int64_t from, to;

		tsc_lane_mark_extent(&l->tl, it, &from, &to);
		ga_step_lanes_set_visible(self, (double)from - (to - from) * 0.05,
		                          (double)to + (to - from) * 0.05);
	}
}

/* Shift+drag marks cycles [from, to] (within the window). */
static void hook_mark(gpointer data, int64_t from, int64_t to)
{
	GaStepLanes *self = data;

	set_range(self, TRUE, (uint64_t)MAX(from, self->vp.from), (uint64_t)MIN(to, self->vp.to + 1));
}

/* The lanes' own keys, before the chart kit's navigation: the BSP rows
 * and Escape. */
static gboolean hook_key(gpointer data, guint keyval, GdkModifierType mods)
{
	GaStepLanes *self = data;
	gboolean bsp = self->mode == GA_TRACE_BSP;

	switch (keyval) {
	case GDK_KEY_Up:
	case GDK_KEY_Down:
		if (!bsp)
			return FALSE;
		if (mods & GDK_CONTROL_MASK)
			bsp_zoom(self, keyval == GDK_KEY_Up);
		else
			bsp_scroll(self, keyval == GDK_KEY_Up ? -4 : 4);
		return TRUE;
	case GDK_KEY_Page_Up:
	case GDK_KEY_Page_Down:
		if (!bsp)
			return FALSE;
		bsp_scroll(self, (keyval == GDK_KEY_Page_Up ? -1 : 1) *
		                     MAX(1, (int)(self->bsp_h * gtk_widget_get_scale_factor(GTK_WIDGET(self)) /
		                                  MAX(1u, self->bsp_row_px))));
		return TRUE;
	case GDK_KEY_Escape:
		ga_step_lanes_set_selected(self, -1);
		set_range(self, FALSE, 0, 0);
		return TRUE;
	default:
		return FALSE;
	}
}

static TscViewport *hook_viewport(gpointer data)
{
	GaStepLanes *self = data;

	return self->doc ? &self->vp : NULL;
}

static void hook_plot(gpointer data, double *plot_x, double *plot_w)
{
	GaStepLanes *self = data;

	*plot_x = self->plot_x;
	*plot_w = self->plot_w;
}

/* --- The class ---------------------------------------------------------------------------- */

static void ga_step_lanes_css_changed(GtkWidget *widget, GtkCssStyleChange *change)
{
	GaStepLanes *self = GA_STEP_LANES(widget);

	GTK_WIDGET_CLASS(ga_step_lanes_parent_class)->css_changed(widget, change);
	tsc_theme_colours(widget, &self->fg, &self->accent);
	/* The font may have changed too: measure again. */
	g_clear_object(&self->layout);
	self->width = -1;
	invalidate(self);
}

static void ga_step_lanes_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                                  int *min, int *nat, int *min_base, int *nat_base)
{
	GaStepLanes *self = GA_STEP_LANES(widget);
	int lanes = (int)MAX(3, self->lanes->len);

	*min = orientation == GTK_ORIENTATION_HORIZONTAL ? 300 : 240;
	*nat = orientation == GTK_ORIENTATION_HORIZONTAL ? 800 : MAX(260, 40 + lanes * 30);
	if (orientation == GTK_ORIENTATION_VERTICAL && self->mode == GA_TRACE_BSP)
		*nat = 420;
	*min_base = *nat_base = -1;
}

static void ga_step_lanes_dispose(GObject *object)
{
	GaStepLanes *self = GA_STEP_LANES(object);

	tsd_cancel_clear(&self->bsp_cancel);
	g_clear_object(&self->bsp_tex);
	g_clear_handle_id(&self->describe_idle, g_source_remove);
	if (self->lanes)
		g_ptr_array_set_size(self->lanes, 0);
	g_clear_pointer(&self->step_leaf, g_free);
	g_clear_pointer(&self->index, ga_trace_index_unref);
	g_clear_pointer(&self->doc, ga_document_unref);
	g_clear_pointer(&self->cache, gsk_render_node_unref);
	g_clear_object(&self->layout);
	G_OBJECT_CLASS(ga_step_lanes_parent_class)->dispose(object);
}

static void ga_step_lanes_finalize(GObject *object)
{
	GaStepLanes *self = GA_STEP_LANES(object);

	g_ptr_array_unref(self->lanes);
	g_free(self->frames_error);
	g_free(self->label);
	g_free(self->description);
	G_OBJECT_CLASS(ga_step_lanes_parent_class)->finalize(object);
}

static void ga_step_lanes_class_init(GaStepLanesClass *klass)
{
	static const char *const signal_names[N_SIGNALS] = {"selection-changed", "range-changed",
	                                                    "visible-changed"};
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = ga_step_lanes_dispose;
	G_OBJECT_CLASS(klass)->finalize = ga_step_lanes_finalize;
	widget_class->snapshot = ga_step_lanes_snapshot;
	widget_class->measure = ga_step_lanes_measure;
	widget_class->css_changed = ga_step_lanes_css_changed;
	gtk_widget_class_set_css_name(widget_class, "steplanes");
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_IMG);
	for (int i = 0; i < N_SIGNALS; i++)
		signals[i] = g_signal_new(signal_names[i], G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
		                          NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void ga_step_lanes_init(GaStepLanes *self)
{
	static const TscTimelineInputHooks hooks = {
		.viewport = hook_viewport,
		.plot = hook_plot,
		.view_changed = view_changed,
		.key = hook_key,
		.motion = hook_motion,
		.leave = hook_leave,
		.click = hook_click,
		.mark = hook_mark,
		.scroll_rows = hook_scroll_rows,
	};
	static const TscInputHandlers focus = {.focus_change = G_CALLBACK(tsc_redraw_cb)};
	GtkWidget *w = GTK_WIDGET(self);
	GtkEventController *bsp_scroll = gtk_event_controller_scroll_new(
	    GTK_EVENT_CONTROLLER_SCROLL_VERTICAL | GTK_EVENT_CONTROLLER_SCROLL_DISCRETE);

	self->selected = -1;
	self->selected_frame = -1;
	self->highlight = -1;
	self->hover_lane = -1;
	self->pointer_x = self->pointer_y = -1;
	self->width = -1;
	set_axis(self);
	self->bsp_row_px = 1;
	self->lanes = g_ptr_array_new_with_free_func(lane_free);
	gtk_widget_set_focusable(w, TRUE);
	gtk_widget_set_has_tooltip(w, TRUE);
	g_signal_connect(w, "query-tooltip", G_CALLBACK(on_query_tooltip), NULL);
	gtk_event_controller_set_propagation_phase(bsp_scroll, GTK_PHASE_CAPTURE);
	g_signal_connect(bsp_scroll, "scroll", G_CALLBACK(on_bsp_scroll), self);
	gtk_widget_add_controller(w, bsp_scroll);
	tsc_timeline_input_install(w, &hooks, self);
	tsc_widget_add_input(w, &focus);

	gtk_accessible_update_property(GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Execution trace", -1);
	update_description(self);
}
