/*
 * Axis helpers of the chart kit: "nice" tick steps (1, 2 or 5 times a
 * power of ten) and the value formatters a chart's y axis, tooltips and
 * accessible description use. Pure functions, no widget: the chart draws
 * its own y axis and x ruler with them, and apps format their own labels
 * the same way.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * Formats `value` for display; returns a g_malloc'd string the caller
 * frees with g_free. `user_data` is what the setter was given.
 */
typedef char *(*TscFormatFunc)(double value, gpointer user_data);

/*
 * A label for item `item` of a chart or cell `item` of a heat map (for
 * example "Tile 52"); returns a g_malloc'd string the caller frees.
 */
typedef char *(*TscItemLabelFunc)(guint item, gpointer user_data);

/*
 * Ticks for an axis from `lo` to `hi` with at most `max_ticks` ticks
 * (at least 2 asked): the step is 1, 2 or 5 times a power of ten, no
 * smaller than `min_step` (pass 1 for item indices, 0 for no limit).
 * Writes the step and the first tick (the smallest multiple of the step
 * >= lo) and returns the number of ticks from there up to `hi`
 * (0 when hi < lo or an argument is not finite).
 */
guint tsc_axis_nice_ticks(double lo, double hi, guint max_ticks, double min_step,
                          double *out_step, double *out_first);

/* The smallest "nice" number (1, 2 or 5 times a power of ten, or a
 * multiple of the nice step) >= value, for the top of an axis; 1 for
 * values <= 0. */
double tsc_axis_nice_ceil(double value);

/* "638,976": the value rounded to an integer with thousands separators
 * (any fraction shown to 3 significant decimals when |value| < 10). */
char *tsc_format_thousands(double value, gpointer user_data);

/* "638,976 B": tsc_format_thousands with a byte unit. */
char *tsc_format_bytes(double value, gpointer user_data);

/* "624.0 KiB", "1.5 MiB", "512 B": binary units, one decimal above bytes. */
char *tsc_format_bytes_iec(double value, gpointer user_data);

G_END_DECLS
