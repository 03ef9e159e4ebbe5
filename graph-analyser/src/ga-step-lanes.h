/*
 * The lanes of the Execution Trace: one run's execution steps over
 * simulated cycles, one lane per step kind (compute, exchange, sync: a
 * tsr_step names no IPU, so there is nothing to split lanes by IPU on).
 * Each step is a rectangle from its first to its last cycle in its kind's
 * colour (ga-program-kind.h), named inside where the name fits; steps
 * narrower than about 3 px fold into bars that carry their count.
 *
 * Zoom with ctrl+wheel (at the pointer) or +/-, pan with the wheel, a drag
 * or the arrow keys, Home shows the whole run. A click selects a step (a
 * click on a folded bar zooms into it), shift+drag marks a range of
 * cycles, Escape clears both.
 */
#pragma once

#include "ga-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_STEP_LANES (ga_step_lanes_get_type())
G_DECLARE_FINAL_TYPE(GaStepLanes, ga_step_lanes, GA, STEP_LANES, GtkWidget)

GtkWidget *ga_step_lanes_new(void);

/* Shows run `run` of `doc` (NULL: nothing), all of it, with nothing
 * selected. Keeps a reference to the document. */
void ga_step_lanes_set_run(GaStepLanes *self, GaDocument *doc, size_t run);

/* The visible cycles [from, to). */
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

/* A step's name as drawn: its compute set, exchange or sync type, else
 * its type's name. Borrowed from the report. */
const char *ga_step_name(tsr_report *report, const tsr_step *step);

G_END_DECLS
