/*
 * What the timeline's files share (sa-timeline.h is the widget's API):
 * the widget's state, its row model and the geometry every file draws
 * and hit-tests with.
 *
 *   sa-timeline.c            the widget: document, view, range, selection,
 *                            the cached layer and the overlay, the
 *                            accessible description
 *
 * The viewport, its zoom and pan, the folding rule, the ruler's ticks, the
 * overlay's shapes and the mapping of wheel, drags and keys are the chart
 * kit's timeline (tsc-timeline.h); these files configure it: an axis in
 * ns, a labels' column left of the plot, rows of threads and counters.
 *   sa-timeline-rows.c       the row model: file → thread → counter rows,
 *                            folding, pinning, hiding, the focused row,
 *                            the layout (pinned rows first)
 *   sa-timeline-draw.c       one frame's layer: the queries of the rows in
 *                            view, the spans, the labels' column
 *   sa-timeline-counters.c   counter rows (line or area)
 *   sa-timeline-instants.c   instant markers on their thread
 *   sa-timeline-heatmap.c    a folded group's busy fraction per pixel
 *   sa-timeline-input.c      pointer, keys, hit-testing, the tooltip
 *   sa-ruler.c               the ruler's labels, relative or wall clock
 */
#pragma once

#include "sa-timeline.h"

#include <tilescope/trace.h>
#include <tilescope/tsc-timeline.h>
#include <tilescope/tsd-name.h>

#define RULER_H 24      /* px */
#define LABEL_W 200     /* px: the labels' column */
#define ROW_H 18        /* px: one depth of spans */
#define PROC_H 22       /* px: a file's header (its heatmap when folded) */
#define INSTANT_H 18    /* px: a thread's lane of instant markers (fits a count) */
#define COUNTER_H 44    /* px: a counter row */
#define THREAD_GAP 6    /* px below a thread */
#define PIN_GAP 4       /* px: the line under the pinned rows */
#define MIN_WINDOW_NS 100

typedef enum sa_row_kind {
	SA_ROW_PROCESS, /* a file (one process): its header */
	SA_ROW_THREAD,  /* a thread: its instants' lane and a row per depth */
	SA_ROW_COUNTER, /* a series of its process */
	SA_ROW_SERIES,  /* a heatmap, its counters merged, its IPU activity (sa-timeline-series.c) */
} sa_row_kind;

/* One row of the model, in file → thread → counter order. */
typedef struct sa_row {
	sa_row_kind kind;
	size_t index;         /* process, thread or series index */
	size_t process;       /* its file */
	size_t parent;        /* the row of its file's header (itself for a file) */
	gboolean collapsed;   /* PROCESS, THREAD: folded to a heatmap */
	gboolean pinned;      /* drawn at the top (a PROCESS pins its group) */
	gboolean hidden;
	gboolean area;        /* COUNTER: area, else line */
	/* Layout (sa_timeline_layout_rows): */
	gboolean shown;       /* laid out (not hidden, its file not folded) */
	gboolean in_pin;      /* in the pinned band (it or its file pinned) */
	int y, h;             /* px: top in its band, height */
} sa_row;

/* One thread's answers of the last rebuild. */
typedef struct thread_rows {
	tsr_trace_item *items;
	size_t n_items;
	guint depths;           /* rows: the deepest depth seen + 1, at least 1 */
	gboolean has_instants;  /* the trace holds instants on it */
	size_t first_mark, n_marks; /* its markers in SaTimeline.marks, of the last rebuild */
	gboolean queried;       /* items are of the last rebuild */
	TscLane lane;           /* the chart kit's span lane its items are drawn in */
	SaTimeline *owner;      /* the widget (for the lane's callbacks) */
} thread_rows;

/* A run of instants closer than the fold width: one marker (the chart
 * kit's, first, so the chart kit draws an array of these). */
typedef struct sa_instant_mark {
	TscMarker m;            /* ns: the first and the last instant, the count */
	uint32_t name;          /* the first one's */
	size_t thread;
} sa_instant_mark;

/* A counter row's buckets of the last rebuild. */
typedef struct counter_rows {
	TscCounterBucket *buckets;    /* g_free */
	size_t n_buckets;
	double before;          /* the last value before the window, NaN when none */
	double lo, hi;          /* the value axis of the last rebuild */
	gboolean queried;
} counter_rows;

struct _SaTimeline {
	GtkWidget parent_instance;
	SaDocument *doc;
	tsr_trace *trace;                 /* borrowed from doc */
	const tsr_trace_info *info;
	const tsr_trace_process *procs;
	size_t n_procs;
	const tsr_trace_thread *threads;
	size_t n_threads;
	const tsr_trace_series *series;
	size_t n_series;
	thread_rows *tdata;               /* n_threads */
	counter_rows *cdata;              /* n_series */
	sa_instant_mark *marks;           /* every thread's, by thread then time */
	size_t n_marks, cap_marks;
	sa_row *rows;                     /* the model, n_rows */
	size_t n_rows;
	size_t *order;                    /* the shown rows, top to bottom (pinned first) */
	size_t n_order;
	gssize focus_row;                 /* the row whose header has the keyboard, or -1 */
	int pin_h;                        /* px: the pinned band (0: none) */
	int content_h;                    /* px: the scrolled rows */
	int vscroll;                      /* px of content scrolled off the top */
	gboolean wall_clock;              /* the ruler in wall-clock time */
	gboolean merge_charts;            /* a file's counters in one row */
	struct sa_series *sseries;        /* sa-timeline-series.c; NULL until built */

	TscViewport vp;                   /* the trace's axis and the visible window, ns */
	uint64_t spans_in_view;           /* spans the shown rows' items stand for */
	uint64_t instants_in_view;        /* instants the markers stand for */
	uint64_t samples_in_view;         /* counter samples the drawn buckets hold */
	guint nodes;                      /* colour nodes of the last rebuild */
	guint folded;                     /* MERGED and SUMMARY items of the last rebuild */
	gboolean grew;                    /* a thread's depth grew while drawing */

	/* The cached layer and what it was drawn for. */
	GskRenderNode *layer;
	int64_t layer_from, layer_to;
	int layer_w, layer_h, layer_vscroll;
	gboolean layer_dark, layer_stale;

	/* Hover and selection: a thread and an item of the last rebuild
	 * (hover), a copy of the item (selection: it outlives rebuilds). */
	gssize hover_thread;
	tsr_trace_item hover;
	gssize sel_thread;
	tsr_trace_item sel;
	/* The marked range, ns; from >= to: none. */
	int64_t range_from, range_to;

	int drag_vscroll;                 /* px: the scroll when a drag began */
	char *description;
};

/* --- Geometry: the viewport over the plot right of the labels --- */
static inline int sa_timeline_plot_width(int width)
{
	return MAX(width - LABEL_W, 1);
}

static inline double sa_timeline_ns_per_px(SaTimeline *self, int width)
{
	return tsc_viewport_per_px(&self->vp, sa_timeline_plot_width(width));
}

static inline double sa_timeline_x_of(SaTimeline *self, int width, int64_t t)
{
	return tsc_viewport_x_of(&self->vp, LABEL_W, sa_timeline_plot_width(width), t);
}

/* --- The widget (sa-timeline.c) --- */
/* The window changed (through the API or the input): redraw, tell. */
void sa_timeline_view_changed(SaTimeline *self);
/* The widget y of the top of a laid-out row. */
int sa_timeline_row_top(SaTimeline *self, const sa_row *row);
/* The band the rows scroll in: [RULER_H + pin_h, height). */
int sa_timeline_scroll_top(SaTimeline *self);
void sa_timeline_clamp_vscroll(SaTimeline *self, int height);
/* Something the layer draws changed: rebuild it, say so, redraw. */
void sa_timeline_invalidate(SaTimeline *self);
void sa_timeline_update_description(SaTimeline *self);
void sa_timeline_select(SaTimeline *self, gssize thread, const tsr_trace_item *it);
void sa_timeline_clear_selection(SaTimeline *self);
/* The "hidden-rows" property changed. */
void sa_timeline_notify_hidden(SaTimeline *self);
GdkRGBA sa_timeline_foreground(SaTimeline *self, double alpha);
void sa_timeline_draw_text(GtkSnapshot *s, PangoLayout *layout, const char *text, double x,
                           double y, double w, const GdkRGBA *colour);

/* --- Rows (sa-timeline-rows.c) --- */
void sa_timeline_build_rows(SaTimeline *self);
void sa_timeline_layout_rows(SaTimeline *self);
/* The row shown at widget y, or -1. */
gssize sa_timeline_row_at(SaTimeline *self, double y);
/* A row's label ("worker 3 (tid 42)"); the caller frees it. */
char *sa_timeline_row_label(SaTimeline *self, const sa_row *row);
/* Thread `t`'s, as its row says it. */
char *sa_timeline_thread_label(SaTimeline *self, size_t t);
/* Moves the focus `delta` shown rows on, and scrolls it into view. */
void sa_timeline_move_focus(SaTimeline *self, int delta);

/* --- Input (sa-timeline-input.c) --- */
void sa_timeline_install_input(SaTimeline *self);
gboolean sa_timeline_query_tooltip(GtkWidget *widget, int x, int y, gboolean keyboard,
                                   GtkTooltip *tooltip);
/* The tooltip's markup at (x, y), or with `keyboard` the selected span's;
 * NULL when there is nothing to say. The caller frees it. */
char *sa_timeline_dup_tooltip(SaTimeline *self, double x, double y, gboolean keyboard);

/* --- Drawing (sa-timeline-draw.c) --- */
/* Sets up thread `t`'s span lane (its callbacks, row height). */
void sa_timeline_init_lane(SaTimeline *self, size_t t);
GskRenderNode *sa_timeline_build_layer(SaTimeline *self, int width, int height, gboolean dark);

/* --- Counters (sa-timeline-counters.c) --- */
void sa_timeline_query_counter(SaTimeline *self, size_t series, int width);
/* The value axis in the labels' column: "0 – 97 %". */
char *sa_timeline_counter_axis(SaTimeline *self, size_t series);

/* --- Instants (sa-timeline-instants.c) --- */
void sa_timeline_query_instants(SaTimeline *self, size_t thread, int width);
void sa_timeline_draw_instants(SaTimeline *self, GtkSnapshot *s, PangoLayout *layout,
                               size_t thread, int width, int top, gboolean dark);
/* The marker of `thread` at x (within the fold width), or NULL. */
const sa_instant_mark *sa_timeline_instant_at(SaTimeline *self, size_t thread, int width,
                                              double x);

/* --- Heatmaps (sa-timeline-heatmap.c) --- */
/* A row of cells shaded level[p] (sa_timeline_heat_level) from the plot's
 * left edge; returns the nodes. */
guint sa_timeline_draw_heat_cells(GtkSnapshot *s, const int *level, size_t n, float y, float h,
                                  gboolean dark);
/* Draws a folded thread's (or file's) busy fraction per pixel in one row
 * of `h` pixels at `top`; counts the spans of its queries. */
void sa_timeline_draw_heatmap(SaTimeline *self, GtkSnapshot *s, const sa_row *row, int width,
                              int top, int h, gboolean dark);

#include "sa-timeline-series.h"
