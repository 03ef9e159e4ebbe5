/*
 * Nice ticks for an axis (tilescope/axis.h), moved from the chart kit so
 * that the HTML writer's charts tick as the apps' do.
 */
#define TSB_BUILDING_LIBRARY 1
#include "tilescope/axis.h"

#include <math.h>
#include <stddef.h>

TSB_API unsigned tsb_axis_nice_ticks(double lo, double hi, unsigned max_ticks, double min_step,
                                     double *out_step, double *out_first)
{
	static const double mults[] = { 1, 2, 5, 10 };
	double span, raw, mag, step = 0, first;

	*out_step = 0;
	*out_first = lo;
	if (!isfinite(lo) || !isfinite(hi) || hi < lo)
		return 0;
	if (max_ticks < 2)
		max_ticks = 2;
	span = hi - lo;
	if (span <= 0)
		span = fabs(hi) > 0 ? fabs(hi) : 1;
	/* max_ticks ticks leave max_ticks - 1 intervals. */
	raw = span / (double)(max_ticks - 1);
	mag = pow(10, floor(log10(raw)));
	for (size_t i = 0; i < sizeof(mults) / sizeof(mults[0]); i++) {
		step = mults[i] * mag;
		if (step >= raw * (1 - 1e-9))
			break;
	}
	if (min_step > 0 && step < min_step)
		step = tsb_axis_nice_ceil(min_step);
	first = ceil(lo / step - 1e-9) * step;
	*out_step = step;
	*out_first = first;
	return (unsigned)(floor((hi - first) / step + 1e-9) + 1);
}

TSB_API double tsb_axis_nice_ceil(double value)
{
	double mag, f;

	if (!(value > 0) || !isfinite(value))
		return 1;
	mag = pow(10, floor(log10(value)));
	f = value / mag;
	/* Steps of 1, 2, 2.5, 5 within a decade keep the top of the axis
	 * within 25 % of the data. */
	if (f <= 1 + 1e-9)
		return mag;
	if (f <= 2 + 1e-9)
		return 2 * mag;
	if (f <= 2.5 + 1e-9)
		return 2.5 * mag;
	if (f <= 5 + 1e-9)
		return 5 * mag;
	return 10 * mag;
}
