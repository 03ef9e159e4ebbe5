/*
 * The System Analyser's timeline: a ruler in time relative to the trace's
 * start or in wall-clock time, rows grouped file (one process) → thread →
 * counter, each thread's instants as markers above its spans, its spans
 * as nested rows (one per depth), and each series of values as a line or
 * area row. A file or a thread folds to a one-row heatmap of its busy
 * fraction; rows pin to the top or hide. Drawn from reportlib's viewport query
 * (tsr_trace_list_events) at a resolution of a few pixels, so a frame
 * costs about one primitive per pixel column per row: spans narrower than
 * SA_TIMELINE_FOLD_PX fold into bars that carry their count (never
 * dropped). The drawn layer is cached as a render node and rebuilt only
 * when the view, the size or the style changes; hover, selection and the
 * marked range are an overlay.
 *
 * Input: the wheel zooms at the pointer (Shift+wheel scrolls the rows),
 * W/S (or +/-) zoom, drag or A/D pan, Home shows everything, a click
 * selects a span, Shift+drag marks a time range, M marks the visible
 * window, Z zooms to the marked range, T switches the ruler between
 * relative and wall-clock time, Escape clears the selection and the
 * range. Rows: Up/Down move the focused row header (a click on a label
 * focuses it), Space or Enter folds it, P pins it, H hides it, Shift+H
 * shows the hidden rows again, L switches a counter between line and
 * area.
 *
 * Accessible: an image named "Timeline" whose description starts with
 * the visible window ("Showing a – b of c; n spans in view"), then the
 * marked range, the selection, the focused row and the hidden rows.
 */
#pragma once

#include "sa-document.h"

#include <gtk/gtk.h>
#include <tilescope/tsc-timeline.h>

G_BEGIN_DECLS

/* Spans narrower than this (pixels) fold into counted bars: the chart
 * kit's one folding rule. */
#define SA_TIMELINE_FOLD_PX TSC_TIMELINE_FOLD_PX

#define SA_TYPE_TIMELINE (sa_timeline_get_type())
G_DECLARE_FINAL_TYPE(SaTimeline, sa_timeline, SA, TIMELINE, GtkWidget)

GtkWidget *sa_timeline_new(void);
/* Shows `doc` (NULL: nothing), the whole trace in view, nothing selected. */
void sa_timeline_set_document(SaTimeline *self, SaDocument *doc);

/* The document shown, or NULL. */
SaDocument *sa_timeline_get_document(SaTimeline *self);

/* The visible window [from_ns, to_ns] on the trace's axis; "view-changed"
 * is emitted when it (or the document) changes. */
void sa_timeline_get_view(SaTimeline *self, int64_t *from_ns, int64_t *to_ns);
/* Shows [from_ns, to_ns] (clamped to the trace, at least 100 ns wide). */
void sa_timeline_set_view(SaTimeline *self, int64_t from_ns, int64_t to_ns);
/* Shows `width_ns` about the view's centre (clamped as set_view does). */
void sa_timeline_set_visible_width(SaTimeline *self, int64_t width_ns);
/* Z: shows the marked range (or the selected span); FALSE when neither. */
gboolean sa_timeline_zoom_to_range(SaTimeline *self);

/* The ruler in wall-clock time (from the first file's start_wall_ns),
 * else relative to the trace's start; also the "wall-clock" property. */
void sa_timeline_set_wall_clock(SaTimeline *self, gboolean wall_clock);

/* Rows: file (process) headers, threads and counters in the model's
 * order (file, its threads, its series). */
typedef struct sa_timeline_row {
	const char *kind;   /* "file", "thread" or "counter" */
	char *label;        /* what its header says; free with g_free */
	size_t index;       /* process, thread or series index in reportlib */
	gboolean collapsed, pinned, hidden, shown, area;
} sa_timeline_row;
size_t sa_timeline_get_n_rows(SaTimeline *self);
/* Row `row`; FALSE past the end. */
gboolean sa_timeline_get_row(SaTimeline *self, size_t row, sa_timeline_row *out);
/* Folds (a file or a thread), pins, hides or switches a counter to area;
 * each as Space, P, H and L do on the focused row. */
void sa_timeline_set_row_collapsed(SaTimeline *self, size_t row, gboolean collapsed);
void sa_timeline_set_row_pinned(SaTimeline *self, size_t row, gboolean pinned);
void sa_timeline_set_row_hidden(SaTimeline *self, size_t row, gboolean hidden);
void sa_timeline_set_row_area(SaTimeline *self, size_t row, gboolean area);
/* Every counter of a file drawn on one axis in one row instead of a row
 * each (the window's "Merge All Charts", Ctrl+Shift+C), or not. */
void sa_timeline_set_merge_charts(SaTimeline *self, gboolean merge);
gboolean sa_timeline_get_merge_charts(SaTimeline *self);
/* Shift+H: every hidden row shown again. The "hidden-rows" property
 * counts them. */
void sa_timeline_show_hidden_rows(SaTimeline *self);
guint sa_timeline_get_hidden_rows(SaTimeline *self);
/* The row header with the keyboard (-1: none). */
void sa_timeline_set_focus_row(SaTimeline *self, gssize row);

/* Marks [from_ns, to_ns) (from_ns >= to_ns: clears the mark). */
void sa_timeline_set_range(SaTimeline *self, int64_t from_ns, int64_t to_ns);
/* The window the statistics are about: the marked range, else the selected
 * span's extent; FALSE (and the whole trace) when neither. Emitted as
 * "range-changed" when it changes. */
gboolean sa_timeline_get_range(SaTimeline *self, int64_t *from_ns, int64_t *to_ns);

/* The shade of `v` against the fullest `max`: 0 for none, else 1 to 8 (the
 * heatmaps' and the overview's bar heights). */
int sa_timeline_heat_level(double v, double max);

/* A border `width` px thick round `r` with corners of `radius` px: the
 * timeline's focused row, the overview's window and the Flame Graph's
 * outlined frames. */
void sa_timeline_draw_frame(GtkSnapshot *s, const graphene_rect_t *r, float radius, float width,
                            const GdkRGBA *colour);

/* The colour of spans called `name` (a name id of `trace`), light or
 * dark: the chart kit's rule on the name's text (tsc-palette.h), so the
 * overview, the Flame Graph and a Chrome export of the file agree. */
GdkRGBA sa_timeline_name_colour(tsr_trace *trace, uint32_t name, gboolean dark);

/* What one frame draws. */
typedef struct sa_timeline_frame {
	uint64_t spans;     /* spans the shown rows' items stand for (folded bars and
	                       heatmaps count theirs) */
	uint64_t instants;  /* instants the markers stand for */
	uint64_t samples;   /* counter samples in the drawn buckets */
	guint nodes;        /* colour nodes */
	guint folded;       /* MERGED and SUMMARY items */
	guint rows;         /* rows laid out within the height */
} sa_timeline_frame;
/* Draws one frame of `width` x `height` pixels at the current view, as the
 * snapshot would, and says what it holds. For the level-of-detail tests
 * and the benchmark. */
void sa_timeline_measure_frame(SaTimeline *self, int width, int height, sa_timeline_frame *out);

/* Selects span `span` (an EVENT, e.g. a search hit or a parent) of thread
 * `thread` and brings it into view: the view about three times its
 * width, its row scrolled into sight; the marked range is cleared.
 * Emits "range-changed". */
void sa_timeline_select_span(SaTimeline *self, size_t thread, const tsr_trace_item *span);
/* The selected span and its thread; FALSE when none. */
gboolean sa_timeline_get_selection(SaTimeline *self, size_t *thread, tsr_trace_item *span);

G_END_DECLS
