/*
 * Axis helpers of the chart kit: the value formatters a chart's y axis,
 * tooltips and accessible description use. Pure functions, no widget:
 * the chart draws its own y axis and x ruler with them (and with the
 * ticks of libtilescope-base's tilescope/axis.h), and apps format their
 * own labels the same way.
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

/* "638,976": the value rounded to an integer with thousands separators
 * (any fraction shown to 3 significant decimals when |value| < 10). */
char *tsc_format_thousands(double value, gpointer user_data);

/* "638,976 B": tsc_format_thousands with a byte unit. */
char *tsc_format_bytes(double value, gpointer user_data);

/* "624.0 KiB", "1.5 MiB", "512 B": binary units, one decimal above bytes. */
char *tsc_format_bytes_iec(double value, gpointer user_data);

G_END_DECLS
