/*
 * The chart kit's timeline pieces: what a view of spans along one axis
 * of time (ns) or cycles needs, whichever app draws it. The System
 * Analyser's timeline and the Graph Analyser's Execution Trace are
 * configurations of these:
 *
 * - TscViewport: the axis [lo, hi] and the visible window [from, to] in
 *   integer units (ns or cycles), with one convention for zoom (a factor
 *   > 1 zooms in, about a fraction 0..1 of the width) and pan (a fraction
 *   of the width, > 0: later), clamped to the axis and to a least width;
 *   and the mapping between units and pixels of a plot area.
 * - The folding rule (TscFold): items narrower than a few pixels, and the
 *   gaps between them, fold into marks that carry their count; nothing is
 *   dropped, the counts of the marks add up to the counts fed in.
 * - The ruler (TscRuler): ticks at nice steps over the window, labelled by
 *   the unit's formatter or the app's own (wall-clock time).
 * - Overlay helpers: a marked range, an outlined item, and a layer drawn as
 *   a texture made for an earlier window (stretched to where its units
 *   now are until a new one is made).
 * - The input controller (tsc_timeline_input_install): wheel and
 *   ctrl+wheel zoom at the pointer, horizontal wheel pans, a drag pans and
 *   Shift+drag marks a range, W/S/+/- zoom, A/D/Left/Right pan, Home shows
 *   everything; the app's hooks see the rest (clicks, hover, its own keys,
 *   rows that scroll).
 *
 * - Span lanes (TscLane): rows of spans drawn through the folding rule,
 *   named inside where the name fits, hit-tested and outlined; the app
 *   fills a lane's spans and says their colours and names.
 */
#pragma once

#include <gtk/gtk.h>
#include <stdint.h>

G_BEGIN_DECLS

/* The unit of a timeline's axis. */
typedef enum TscTimelineUnit {
	TSC_TIMELINE_NS,     /* nanoseconds: ticks read "40.2986 ms" */
	TSC_TIMELINE_CYCLES, /* cycles: ticks read "1,234,000" */
} TscTimelineUnit;

/* The zoom factor of one key press (W, S, +, -). */
#define TSC_TIMELINE_KEY_ZOOM 1.5
/* The zoom factor of one wheel notch. */
#define TSC_TIMELINE_WHEEL_ZOOM 1.25
/* The fraction of the width one key press pans (A, D, Left, Right). */
#define TSC_TIMELINE_KEY_PAN 0.2
/* The fraction of the width one horizontal wheel notch pans. */
#define TSC_TIMELINE_WHEEL_PAN 0.1
/* Items narrower than this (logical px) fold into counted marks. */
#define TSC_TIMELINE_FOLD_PX 3

/* --- The viewport ------------------------------------------------------------------ */

/*
 * The axis and the visible window, in the axis' unit. The window is
 * inclusive: `to` is the last unit in view, so a window shows to - from + 1
 * units across the plot. Set the fields with tsc_viewport_init and change
 * them only through the functions below, which keep
 * lo <= from <= to <= max(hi, lo + min_width) and to - from >= min_width.
 */
typedef struct TscViewport {
	TscTimelineUnit unit;
	int64_t lo, hi;      /* the axis: the first and the last unit there is */
	int64_t min_width;   /* the narrowest window (to - from), at least 1 */
	int64_t from, to;    /* the visible window */
} TscViewport;

/* The axis [lo, hi] (hi < lo: [lo, lo]) with the whole of it in view. */
void tsc_viewport_init(TscViewport *vp, TscTimelineUnit unit, int64_t lo, int64_t hi,
                       int64_t min_width);
/* Shows [from, to]: the width clamped to [min_width, the axis' width], then
 * moved inside the axis. TRUE when the window changed. */
gboolean tsc_viewport_set(TscViewport *vp, int64_t from, int64_t to);
/* Zooms by `factor` (> 1: in, < 1: out) keeping the unit at fraction `at`
 * of the width (0: the left edge, 1: the right; clamped) where it is.
 * TRUE when the window changed. */
gboolean tsc_viewport_zoom(TscViewport *vp, double factor, double at);
/* Moves the window by `fraction` of its width (> 0: later). TRUE when the
 * window changed. */
gboolean tsc_viewport_pan(TscViewport *vp, double fraction);
/* The whole axis. TRUE when the window changed. */
gboolean tsc_viewport_show_all(TscViewport *vp);
/* A window `width` wide about the centre of the current one. TRUE when the
 * window changed. */
gboolean tsc_viewport_set_width(TscViewport *vp, int64_t width);
/* Units per pixel of a plot `plot_w` pixels wide (at least 1 pixel). */
double tsc_viewport_per_px(const TscViewport *vp, double plot_w);
/* The x of unit `t` in a plot whose left edge is at `plot_x`. */
double tsc_viewport_x_of(const TscViewport *vp, double plot_x, double plot_w, int64_t t);
/* The unit at x (rounded to the nearest). */
int64_t tsc_viewport_t_of(const TscViewport *vp, double plot_x, double plot_w, double x);
/* The fraction of the plot's width at x (not clamped): what zoom takes. */
double tsc_viewport_fraction_at(double plot_x, double plot_w, double x);

/* --- Formatting -------------------------------------------------------------------- */

/*
 * A tick label: `value` units from the ruler's zero, with the decimals a
 * step of `step` units needs. Nanoseconds take the unit of `magnitude`
 * (the largest value the ruler shows, so deep zooms far into a trace stay
 * readable): "1.235 ms", "12 s". Cycles are whole numbers with thousands
 * separators. The caller frees the result with g_free.
 */
char *tsc_timeline_format_tick(TscTimelineUnit unit, double value, double step, double magnitude);
/* The decimals a tick label needs for ticks `step` apart, in the label's
 * own unit (0 for steps of 1 or more, at most 9): for apps that label
 * ticks their own way (wall-clock time). */
int tsc_timeline_tick_decimals(double step);

/* --- The folding rule ------------------------------------------------------------- */

/* One item fed to the rule, in pixels of the plot. */
typedef struct TscFoldItem {
	double x0, x1;      /* px: its extent (x1 >= x0) */
	uint64_t count;     /* what it stands for: 1, or an already folded run's count */
	guint row;          /* items of different rows never fold together */
	int kind;           /* a class (a name, a program kind): see TscFold.mix_px */
	gboolean folded;    /* already a run of several (folds whatever its width) */
} TscFoldItem;

/* What the rule makes: an item that stands alone, or a fold of several. */
typedef struct TscFoldMark {
	double x0, x1;      /* px; a fold's are whole pixels, at least 1 apart */
	uint64_t count;     /* the counts of the items it holds, summed */
	guint first, last;  /* the indices (as fed) of its first and last item */
	guint row;
	int kind;           /* its first item's */
	gboolean mixed;     /* it holds items of more than one kind */
	gboolean folded;    /* FALSE: one item wide enough to be drawn as itself */
} TscFoldMark;

/*
 * The rule's state over one pass of a plot's items, fed in order of x
 * within each row. An item at least `min_px` wide that is not already a
 * fold stands alone. Other items fold: into the open fold when it is of
 * the same row and the gap from its right edge is less than `min_px`
 * (below the resolution), and either of the same kind or the fold still
 * narrower than `mix_px`; else they open a new fold. A fold that holds
 * one item that was not already a fold is that item, standing alone
 * (narrow, drawn at least a pixel wide): a lone sliver keeps its colour
 * and can be selected, as reportlib keeps a run of one as an EVENT.
 * Initialise with tsc_fold_init.
 */
typedef struct TscFold {
	double min_px;      /* narrower items, and gaps, fold (TSC_TIMELINE_FOLD_PX) */
	double mix_px;      /* a fold takes other kinds while narrower (0: never) */
	gboolean open;      /* `mark` is a fold still growing */
	gboolean lone;      /* it holds one item, not already a fold */
	double raw_x1;      /* the open fold's right edge before rounding */
	TscFoldMark mark;
} TscFold;

void tsc_fold_init(TscFold *fold, double min_px, double mix_px);
/* Feeds item `index`; writes the marks it completes to out[0..) and returns
 * how many (0, 1 or 2: the fold it ended, then the item standing alone). */
guint tsc_fold_push(TscFold *fold, const TscFoldItem *item, guint index, TscFoldMark out[2]);
/* Ends the pass: writes the open fold to *out and returns 1, else 0. */
guint tsc_fold_finish(TscFold *fold, TscFoldMark *out);
/* A fold's count as fits in `w` pixels of `layout`'s font ("×125,000",
 * "×125k", "×1.2M") written to buf[0..size); FALSE when none fits (a cut
 * number would mislead). Leaves the layout's width unset (-1). */
gboolean tsc_fold_count_label(PangoLayout *layout, uint64_t count, double w, char *buf,
                              size_t size);
/* The rule over items[0..n): appends the marks to `marks` (an array of
 * TscFoldMark) and returns how many it appended. */
guint tsc_fold_items(const TscFoldItem *items, guint n, double min_px, double mix_px,
                     GArray *marks);

/* --- Span lanes ------------------------------------------------------------------- */

/* How many kinds a lane tells apart when it colours a fold. */
#define TSC_LANE_KINDS 8

/* One span of a lane, in the axis' units. */
typedef struct TscSpan {
	int64_t from, to;   /* its first unit and its end (to >= from) */
	uint64_t count;     /* what it stands for: 1, or an already folded run's count */
	guint row;          /* its row in the lane (a depth) */
	int kind;           /* 0 .. TSC_LANE_KINDS - 1: what folds mix (TscFold) and are coloured by */
	gboolean folded;    /* already a run of several */
	guint id;           /* the app's own: which of its items this is */
} TscSpan;

typedef struct TscLane TscLane;

/* What the app says of a lane's spans, each called with the lane's data. */
typedef struct TscLaneFuncs {
	/* The colour of a span drawn as itself. */
	GdkRGBA (*colour)(const TscSpan *span, gpointer data);
	/* The colour of a fold, by the kind that covers most of its units. */
	GdkRGBA (*kind_colour)(int kind, gpointer data);
	/* The name drawn inside a span (the layer frees it; NULL: none). */
	char *(*dup_name)(const TscSpan *span, gpointer data);
	/* Optional: whether a span is outlined (and so a fold holding it). */
	gboolean (*outlined)(const TscSpan *span, gpointer data);
} TscLaneFuncs;

/*
 * A lane: rows of spans `row_h` px apart from y, drawn in the window of a
 * viewport by the folding rule (TSC_TIMELINE_FOLD_PX, a fold taking other
 * kinds while narrower than mix_px). A span wide enough is a rectangle in
 * its colour with a darker left edge, named inside where the name fits
 * (ellipsized from 56 px); a fold is its kind's colour, lighter, with a
 * solid foot so that it reads as "many", and carries its count where that
 * fits. Each is `inset` px short of its row's top and bottom. The marks
 * drawn are kept for hit-testing until the next draw: the user points at
 * what is drawn.
 */
struct TscLane {
	GArray *spans;        /* TscSpan: the app fills it, then calls tsc_lane_finish */
	GArray *marks;        /* TscFoldMark as last drawn (first, last: indices into spans) */
	GArray *max_to;       /* int64_t: the latest end of spans[0..i] of i's row */
	double y;             /* px: the top of row 0 */
	double row_h;         /* px per row */
	double inset;         /* px */
	double mix_px;
	const TscLaneFuncs *funcs;
	gpointer data;
};

void tsc_lane_init(TscLane *lane, const TscLaneFuncs *funcs, gpointer data);
/* Frees the lane's arrays (not the lane). */
void tsc_lane_clear(TscLane *lane);
/* After the spans were filled: sorts them by row, then first unit (when
 * they are not already), so that a draw finds the window's first span by
 * a binary search per row. */
void tsc_lane_finish(TscLane *lane);
/* Draws the spans in `vp`'s window over the plot [plot_x, plot_x +
 * plot_w) (`fg`: the text colour, for counts and outlines); returns the
 * colour nodes appended. */
guint tsc_lane_draw(GtkSnapshot *s, PangoLayout *layout, TscLane *lane, const TscViewport *vp,
                    double plot_x, double plot_w, const GdkRGBA *fg);
/* The mark last drawn at x in row `row` (within a pixel), or FALSE. */
gboolean tsc_lane_mark_at(const TscLane *lane, guint row, double x, guint *mark);
/* The units a mark covers: its first span's first, its spans' latest end. */
void tsc_lane_mark_extent(const TscLane *lane, const TscFoldMark *mark, int64_t *from,
                          int64_t *to);
/* An outline `w` px thick round units [from, to) of row `row`, `pad` px
 * outside where a span of them is drawn; a sliver at least 3 px wide
 * about its middle. */
void tsc_lane_draw_outline(GtkSnapshot *s, const TscLane *lane, const TscViewport *vp,
                           double plot_x, double plot_w, int64_t from, int64_t to, guint row,
                           double pad, const GdkRGBA *colour, float w);

/* --- The ruler ---------------------------------------------------------------------- */

typedef struct TscRuler TscRuler;
/* A tick label at unit `t` of the axis for ticks `step` units apart; the
 * caller frees it. */
typedef char *(*TscRulerLabelFunc)(const TscRuler *ruler, int64_t t, double step,
                                   gpointer user_data);

/* A ruler across the top of a plot. */
struct TscRuler {
	double x0, width;        /* px: where the plot starts, its width */
	double height;           /* px: the ruler's (ticks hang from its bottom) */
	const TscViewport *vp;   /* the window it shows */
	int64_t zero;            /* the unit the default labels read as 0 */
	int64_t tick_origin;     /* ticks are at multiples of the step from here */
	double label_px;         /* px per label at most (0: 110) */
	TscRulerLabelFunc label; /* NULL: tsc_timeline_format_tick from `zero` */
	gpointer label_data;
};

/* Draws the baseline, the ticks and the labels that fit before the right
 * edge; returns the colour nodes appended. */
guint tsc_ruler_draw(GtkSnapshot *s, PangoLayout *layout, const TscRuler *ruler,
                     const GdkRGBA *fg, const GdkRGBA *line);
/* A grid line at each of the ruler's ticks from y0 to y1 (the rows below
 * it); returns the colour nodes appended. */
guint tsc_ruler_draw_grid(GtkSnapshot *s, const TscRuler *ruler, double y0, double y1,
                          const GdkRGBA *colour);
/* The default label of `t` (what tsc_ruler_draw writes without a label
 * function); the caller frees it. */
char *tsc_ruler_dup_label(const TscRuler *ruler, int64_t t, double step);

/* --- Counters and markers as layers ------------------------------------------------ */

/* The samples of a counter in one bucket (about a pixel) of the axis. */
typedef struct TscCounterBucket {
	int64_t from;       /* the bucket's first unit */
	uint64_t count;     /* samples in it (>= 1) */
	double min, max;    /* their extremes */
	double last;        /* the latest one's value */
} TscCounterBucket;

/* The value axis of a counter's row: what `before` (the value held into
 * the window, NaN when none) and the buckets hold, from 0 to a nice top
 * when none is negative; [0, 1] and FALSE when there is no value. */
gboolean tsc_counter_range(const TscCounterBucket *buckets, size_t n, double before, double *lo,
                           double *hi);
/* A counter as a step line (a counter holds its value until the next
 * sample): per bucket one bar over its samples and the jump into it, a
 * level line over the pixels between; `area` fills down to the baseline.
 * Drawn in [plot_x, min(plot_x + plot_w, right)) x [y0, y0 + h] on
 * [lo, hi], with grid lines at the top, the baseline and 0. Returns the
 * colour nodes appended. */
guint tsc_timeline_draw_counter(GtkSnapshot *s, const TscViewport *vp, double plot_x,
                                double plot_w, double right, double y0, double h,
                                const TscCounterBucket *buckets, size_t n, double before,
                                double lo, double hi, gboolean area, const GdkRGBA *line,
                                const GdkRGBA *grid);

/* A marker: one instant (count 1) or a run the folding rule joined. */
typedef struct TscMarker {
	int64_t from, to;   /* the first and the last instant */
	uint64_t count;
} TscMarker;
/* Markers in a lane [top, top + h) of the plot: a lone instant as a tick
 * in `tick`, a run as a band in `band` at least the fold width wide with
 * its count in `text` where it fits. `markers` are `stride` bytes apart
 * (an app's own struct may begin with a TscMarker). Returns the colour
 * nodes appended. */
guint tsc_timeline_draw_markers(GtkSnapshot *s, PangoLayout *layout, const TscViewport *vp,
                                double plot_x, double plot_w, double top, double h,
                                const TscMarker *markers, size_t n, size_t stride,
                                const GdkRGBA *tick, const GdkRGBA *band, const GdkRGBA *text);
/* The marker nearest x within 4 px, or -1. */
gssize tsc_timeline_marker_at(const TscViewport *vp, double plot_x, double plot_w,
                              const TscMarker *markers, size_t n, size_t stride, double x);

/* --- Overlay ----------------------------------------------------------------------- */

/* A marked range [from, to): a shade `height` tall from y 0 with an edge
 * at both ends, clipped to the plot. */
void tsc_timeline_draw_range(GtkSnapshot *s, const TscViewport *vp, double plot_x,
                             double plot_w, double height, int64_t from, int64_t to,
                             const GdkRGBA *accent);
/* An outline round [x0, x1] x [y, y + h] (at least 3 px wide), `w` px thick. */
void tsc_timeline_draw_outline(GtkSnapshot *s, double x0, double x1, double y, double h,
                               const GdkRGBA *colour, float w);
/* A layer drawn as a texture made (one texel per device pixel, `scale`
 * device px per logical px) for the window [made_from, made_to] of `vp`'s
 * axis: drawn from y where those units are in `vp`'s window now (1:1 when
 * the windows agree, stretched while a new texture is made), clipped to
 * the plot [plot_x, plot_x + plot_w) x [y, y + h). */
void tsc_timeline_append_texture(GtkSnapshot *s, GdkTexture *texture, int64_t made_from,
                                 int64_t made_to, const TscViewport *vp, double plot_x,
                                 double plot_w, double y, double h, int scale);

/* --- Input ------------------------------------------------------------------------- */

/*
 * The app's side of the input controller, each called with `data`. The
 * first three are required, the rest optional.
 */
typedef struct TscTimelineInputHooks {
	/* The viewport the input drives (NULL: nothing shown, input ignored). */
	TscViewport *(*viewport)(gpointer data);
	/* The plot area along x, widget px. */
	void (*plot)(gpointer data, double *plot_x, double *plot_w);
	/* The window changed through the input: redraw, tell others. */
	void (*view_changed)(gpointer data);
	/* Any key first; TRUE: handled (the navigation keys are not tried). */
	gboolean (*key)(gpointer data, guint keyval, GdkModifierType state);
	/* The pointer moved to (x, y), or left the widget. */
	void (*motion)(gpointer data, double x, double y);
	void (*leave)(gpointer data);
	/* A press that did not move: at (x, y) with the modifiers it had. */
	void (*click)(gpointer data, double x, double y, GdkModifierType state);
	/* Shift+drag marked [from, to] (units). */
	void (*mark)(gpointer data, int64_t from, int64_t to);
	/* A drag began at (x, y) (focus grabbed); it moves dy px vertically
	 * from there (rows that scroll). */
	void (*drag_begin)(gpointer data, double x, double y);
	void (*drag_rows)(gpointer data, double dy);
	/* Shift+wheel: scroll rows by `dy` notches; TRUE: handled (else it pans). */
	gboolean (*scroll_rows)(gpointer data, double dy);
} TscTimelineInputHooks;

/* Adds the pointer, wheel, drag and key controllers that drive a timeline
 * to `widget` (which is grabbed focus on a drag); `hooks` is kept (static
 * storage), `data` is passed to every hook. */
void tsc_timeline_input_install(GtkWidget *widget, const TscTimelineInputHooks *hooks,
                                gpointer data);

/* The navigation a key means, for a controller and its tests. */
typedef enum TscTimelineKey {
	TSC_TIMELINE_KEY_NONE,
	TSC_TIMELINE_KEY_ZOOM_IN,  /* W, +, = */
	TSC_TIMELINE_KEY_ZOOM_OUT, /* S, - */
	TSC_TIMELINE_KEY_LEFT,     /* A, Left */
	TSC_TIMELINE_KEY_RIGHT,    /* D, Right */
	TSC_TIMELINE_KEY_HOME,     /* Home */
} TscTimelineKey;
/* What `keyval` with `state` does to a viewport (Ctrl and Alt: nothing). */
TscTimelineKey tsc_timeline_key_lookup(guint keyval, GdkModifierType state);
/* Applies `key` to `vp` (zooms about the centre); TRUE when the window changed. */
gboolean tsc_timeline_key_apply(TscViewport *vp, TscTimelineKey key);
/* What a wheel event of (dx, dy) notches does with the pointer at
 * fraction `at` of the plot: dy zooms (up: in) about `at`, dx pans. TRUE
 * when the window changed. */
gboolean tsc_timeline_wheel_apply(TscViewport *vp, double dx, double dy, double at);

G_END_DECLS
