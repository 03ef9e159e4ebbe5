/*
 * Axis ticks as Tilescope draws them (libtilescope-base, prefix tsb_):
 * "nice" tick steps (1, 2 or 5 times a power of ten) and the top of an
 * axis, the one copy of the rules that the chart kit's charts and ruler
 * and the HTML pages' SVG charts use, so that an axis reads the same in a
 * window and in a browser. Pure functions: nothing is allocated.
 */
#pragma once

#include <tilescope/tsb-api.h>

TSB_BEGIN_DECLS

/*
 * Ticks for an axis from `lo` to `hi` with at most `max_ticks` ticks
 * (at least 2 asked): the step is 1, 2 or 5 times a power of ten, no
 * smaller than `min_step` (pass 1 for item indices, 0 for no limit).
 * Writes the step and the first tick (the smallest multiple of the step
 * >= lo) and returns the number of ticks from there up to `hi`
 * (0 when hi < lo or an argument is not finite).
 */
TSB_API unsigned tsb_axis_nice_ticks(double lo, double hi, unsigned max_ticks, double min_step,
                                     double *out_step, double *out_first);

/* The smallest "nice" number (1, 2 or 5 times a power of ten, or a
 * multiple of the nice step) >= value, for the top of an axis; 1 for
 * values <= 0. */
TSB_API double tsb_axis_nice_ceil(double value);

TSB_END_DECLS
