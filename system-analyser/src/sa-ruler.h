/*
 * The timeline's ruler: ticks at "nice" steps over the visible window,
 * labelled in time relative to the trace's start ("40.2986 ms") or in
 * wall-clock time ("06:12:27.1234", UTC) from the origin of the first
 * file (its start_wall_ns). Plain drawing over a GtkSnapshot, so the
 * timeline and its tests share the labels.
 */
#pragma once

#include <gtk/gtk.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef struct sa_ruler {
	double x0, width;          /* px: where the plot starts, its width */
	double height;             /* px: the ruler's */
	int64_t from_ns, to_ns;    /* the visible window on the trace's axis */
	int64_t start_ns;          /* the trace's start: relative time 0 */
	gboolean wall_clock;       /* labels in wall-clock time */
	int64_t wall_origin_ns;    /* ns since 1970 (UTC) of the axis' 0 */
} sa_ruler;

/* Draws the ticks and their labels; returns the colour nodes appended. */
guint sa_ruler_draw(GtkSnapshot *s, PangoLayout *layout, const sa_ruler *ruler, const GdkRGBA *fg,
                    const GdkRGBA *line);
/* What the corner left of the ruler says: "Since start" or "UTC 2026-11-26"
 * (the date of the window's start). The caller frees it. */
char *sa_ruler_dup_caption(const sa_ruler *ruler);
/* A tick label: `t_ns` on the trace's axis, with the decimals a step of
 * `step_ns` needs. The caller frees it. */
char *sa_ruler_dup_label(const sa_ruler *ruler, int64_t t_ns, double step_ns);

G_END_DECLS
