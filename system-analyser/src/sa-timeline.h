/*
 * The System Analyser's timeline: a ruler in time relative to the trace's
 * start, rows grouped file → process → thread, and each thread's spans as
 * nested rows (one per depth). Drawn from reportlib's viewport query
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
 * window, Escape clears the selection and the range.
 *
 * Accessible: an image named "Timeline" whose description says the
 * visible window, the spans in view, and the selection or range.
 */
#pragma once

#include "sa-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Spans narrower than this (pixels) fold into counted bars. */
#define SA_TIMELINE_FOLD_PX 3

#define SA_TYPE_TIMELINE (sa_timeline_get_type())
G_DECLARE_FINAL_TYPE(SaTimeline, sa_timeline, SA, TIMELINE, GtkWidget)

GtkWidget *sa_timeline_new(void);
/* Shows `doc` (NULL: nothing), the whole trace in view, nothing selected. */
void sa_timeline_set_document(SaTimeline *self, SaDocument *doc);

/* The visible window [from_ns, to_ns] on the trace's axis. */
void sa_timeline_get_view(SaTimeline *self, int64_t *from_ns, int64_t *to_ns);
/* Shows [from_ns, to_ns] (clamped to the trace, at least 100 ns wide). */
void sa_timeline_set_view(SaTimeline *self, int64_t from_ns, int64_t to_ns);
/* Zooms by `factor` (> 1: in) about the point at `at` (0: left, 1: right). */
void sa_timeline_zoom(SaTimeline *self, double factor, double at);
/* Moves the view by `fraction` of its width (> 0: later). */
void sa_timeline_pan(SaTimeline *self, double fraction);
/* Home: the whole trace. */
void sa_timeline_show_all(SaTimeline *self);

/* Marks [from_ns, to_ns) (from_ns >= to_ns: clears the mark). */
void sa_timeline_set_range(SaTimeline *self, int64_t from_ns, int64_t to_ns);
/* The window the statistics are about: the marked range, else the selected
 * span's extent; FALSE (and the whole trace) when neither. Emitted as
 * "range-changed" when it changes. */
gboolean sa_timeline_get_range(SaTimeline *self, int64_t *from_ns, int64_t *to_ns);

/* What one frame of `width` x `height` pixels at the current view draws:
 * the spans its items stand for (every thread; folded bars count theirs),
 * the colour nodes drawn, and the folded bars among the items (MERGED
 * and SUMMARY). For the level-of-detail tests and the benchmark. */
void sa_timeline_measure_frame(SaTimeline *self, int width, int height, uint64_t *spans,
                               guint *nodes, guint *folded);

/* Selects span `span` (an EVENT, e.g. a search hit or a parent) of thread
 * `thread` and brings it into view: the view about three times its
 * width, its row scrolled into sight; the marked range is cleared.
 * Emits "range-changed". */
void sa_timeline_select_span(SaTimeline *self, size_t thread, const tsr_trace_item *span);
/* The selected span and its thread; FALSE when none. */
gboolean sa_timeline_get_selection(SaTimeline *self, size_t *thread, tsr_trace_item *span);

G_END_DECLS
