/*
 * The lanes of the Execution Trace: one run's execution steps over
 * simulated cycles, in one of three modes sharing the visible cycles,
 * zoom, pan and selection:
 *
 *   Flat   one lane per step kind, and with several IPUs a compute and an
 *          exchange lane per IPU (a step is on the IPUs whose tiles have
 *          cycles in its compute set or exchange: ga-trace-index.h) and
 *          one sync lane, since a sync step holds every IPU;
 *   Flame  one lane per depth of the call stack (tsr_report_get_frames):
 *          each step under its control program, Sequence, Repeat, Call …
 *          down to its lowered leaf;
 *   BSP    a row per group of tiles, each pixel the state (compute,
 *          exchange, sync, idle) that dominates those tiles in that pixel
 *          column, drawn as one texture at device pixels; Ctrl+Up/Down
 *          zooms vertically (tiles per row), Up/Down/Page Up/Page Down
 *          scroll the tiles.
 *
 * Each step or frame is a rectangle from its first to its last cycle in
 * its kind's colour (ga-program-kind.h), named inside where the name
 * fits; those narrower than about 3 px fold into bars that carry their
 * count (the chart kit's folding rule). The steps of a highlighted
 * program are outlined.
 *
 * The chart kit's timeline input (tsc-timeline.h): the wheel, ctrl+wheel,
 * W/S or +/- zoom (the wheel at the pointer), a drag, the horizontal
 * wheel, Shift+wheel (BSP: the rows), A/D or the arrow keys pan, Home
 * shows the whole run. A click selects a step (a click on a folded bar
 * zooms into it), shift+drag marks a range of cycles, Escape clears both.
 */
#pragma once

#include "ga-document.h"
#include "ga-trace-index.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_STEP_LANES (ga_step_lanes_get_type())
G_DECLARE_FINAL_TYPE(GaStepLanes, ga_step_lanes, GA, STEP_LANES, GtkWidget)

typedef enum ga_trace_mode {
	GA_TRACE_FLAT = 0,
	GA_TRACE_FLAME,
	GA_TRACE_BSP,
	GA_TRACE_MODE_COUNT
} ga_trace_mode;

/* The mode (Flat at first). */
void ga_step_lanes_set_mode(GaStepLanes *self, ga_trace_mode mode);

/* The tile index of the run shown (NULL: none yet), for the per-IPU lanes
 * and the BSP view; ignored unless it is of the run shown. */
void ga_step_lanes_set_index(GaStepLanes *self, GaTraceIndex *index);

/* Outlines every step (and flame frame) of program `program`; -1: none. */
void ga_step_lanes_set_highlight(GaStepLanes *self, gint64 program);

/* The program of the selection: a flame frame's own program when one was
 * clicked, else the selected step's; -1 when nothing is selected. */
gint64 ga_step_lanes_get_selected_program(GaStepLanes *self);

/* Shows step `step` (selecting it) in the middle of the view, zooming in
 * when it would be narrower than a few pixels. */
void ga_step_lanes_reveal(GaStepLanes *self, gint64 step);

/* Compare mode: the cycle axis reaches at least to `end` (the longer of
 * two runs shown one above the other, so both zoom and pan alike). */
void ga_step_lanes_set_axis_end(GaStepLanes *self, double end);
/* The run's cycles (its last step's end or its length). */
double ga_step_lanes_get_total(GaStepLanes *self);

/* The accessible label names which report ("A", "B") in compare mode. */
void ga_step_lanes_set_label(GaStepLanes *self, const char *label);

/* The accessible description as last set (what a screen reader reads:
 * the run, the mode and what it shows, e.g. "Lanes per IPU (4 IPUs)"),
 * for tests, which GTK 4.8 cannot read it back for. Valid until the
 * next change. */
const char *ga_step_lanes_get_description(GaStepLanes *self);

/* Whether a BSP texture is being made in a thread (the benchmark waits). */
gboolean ga_step_lanes_is_busy(GaStepLanes *self);

/* Shows run `run` of `doc` (NULL: nothing), all of it, with nothing
 * selected. Keeps a reference to the document. */
void ga_step_lanes_set_run(GaStepLanes *self, GaDocument *doc, size_t run);

/* The visible cycles [from, to). Signal "visible-changed" when they
 * change. */
void ga_step_lanes_get_visible(GaStepLanes *self, double *from, double *to);
/* Shows cycles [from, to), clamped to the run. */
void ga_step_lanes_set_visible(GaStepLanes *self, double from, double to);

/* The selected step (an index into tsr_report_get_steps' array of the
 * run), or -1. Signal "selection-changed" when it changes. */
gint64 ga_step_lanes_get_selected(GaStepLanes *self);
void ga_step_lanes_set_selected(GaStepLanes *self, gint64 step);

/* The marked range of cycles [*from, *to): FALSE when there is none.
 * Signal "range-changed" when it changes. */
gboolean ga_step_lanes_get_range(GaStepLanes *self, uint64_t *from, uint64_t *to);

/* A step's name as drawn: the name it goes by everywhere
 * (tsr_report_lookup_step_name: its compute set's or exchange's, else its
 * program's), a Sync's type, else its type's name. Borrowed from the
 * report. */
const char *ga_step_name(tsr_report *report, const tsr_step *step);

G_END_DECLS
