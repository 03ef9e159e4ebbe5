/*
 * Compare, for the System Analyser's window: the "Compare" tab of the
 * details (sa-compare-view.h) and what fills it.
 *
 *   - Two traces: the window shows A and a second document B is loaded in
 *     a worker (sa_compare_with_file; `--compare A B`, or "Compare
 *     Traces…" in the menu, which asks for two files). Both whole traces
 *     are compared.
 *   - Two windows of the trace shown: "Compare with Marked Range"
 *     (compare.marked, Ctrl+M) takes the timeline's range (the marked
 *     range or selected span, else the whole trace) as A; the next range
 *     marked (Shift+drag, or M for the visible window) is B.
 *
 * Two traces also show A's timeline over B's (each an SaTimeline named
 * "Timeline A: file" / "Timeline B: file") on one viewport: zooming or
 * panning either moves both, each window counted from its own trace's
 * start, so the two runs align.
 *
 * The statistics of each side are sa-document's (computed in a worker on
 * the document's second handle, as the Statistics tab's); reportlib pairs
 * them (tsr_trace_list_label_deltas), which is cheap, on the main thread.
 * A reload of the window's trace computes the comparison shown again.
 * Actions: compare.traces, compare.marked (an action group on the
 * window).
 */
#pragma once

#include "sa-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct _SaCompare SaCompare;
struct _SaWindow;

/* Declares the Compare tab's widgets of the window's template (the tab
 * itself is in sa-window.ui), for the window's class_init. */
void sa_compare_bind_template(GtkWidgetClass *window_class);
/* Drives the Compare tab of `details`, and adds the actions and Ctrl+M
 * to `win` (which must outlive the answer: free it from the window's
 * dispose). */
SaCompare *sa_compare_new(struct _SaWindow *win, GtkNotebook *details);
/* NULL-safe; cancels what is running. */
void sa_compare_free(SaCompare *self);

/* Compares the window's next loaded document (the whole trace) with `b`
 * (a .pvti file or a directory of them), loaded now in a worker. Call it
 * right after sa_window_open() of A. */
void sa_compare_with_file(SaCompare *self, GFile *b);
/* The window's document changed (a load or a reload completed): a
 * comparison waiting for it starts. */
void sa_compare_document_changed(SaCompare *self, SaDocument *doc);
/* The window's document `old` was reloaded as `doc` (the file monitor or
 * Ctrl+R): a comparison of `old` is computed again in workers, with the
 * same windows against the same other side (trace B as loaded, or `doc`
 * itself for two windows of it), keeping the rows on screen meanwhile and
 * then the selected row when its label is still there. */
void sa_compare_document_reloaded(SaCompare *self, SaDocument *old, SaDocument *doc);

G_END_DECLS
