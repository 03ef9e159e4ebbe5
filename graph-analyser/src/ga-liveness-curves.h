/*
 * Not-always-live bytes at every liveness step, summed over a set of
 * tiles (one IPU's, or the selected tiles), in one pass over the
 * listed variables: each variable's per-tile bytes are read once and
 * added over its live interval [live_from, live_to] with a difference
 * array. That is what tsr_report_fill_liveness_by_tile gives per step
 * (the same variables, the same interval test), at the cost of one call
 * instead of one per step: 0.25 s instead of about nine minutes on a
 * report of 200,000 steps and 100,000 variables.
 *
 * Like reportlib's per-tile liveness, the curves hold the listed
 * variables only: complete with autoReport.outputLoweredVars.
 */
#pragma once

#include <gio/gio.h>
#include <tilescope/report.h>

G_BEGIN_DECLS

/*
 * Fills out[s] with the bytes live at step s on the tiles whose
 * `on_tile` flag (the target's num_tiles of them) is set. `done`, when
 * not NULL, is set atomically to the variables read so far (for a status
 * line), out of *n_vars. Returns a reportlib code (TSR_ERR_CANCELLED when
 * `cancellable` was cancelled); runs on the thread that owns `report`.
 */
int ga_liveness_curve(uint64_t *out, size_t n_steps, tsr_report *report, const guint8 *on_tile,
                      GCancellable *cancellable, gint *done, size_t *n_vars);

G_END_DECLS
