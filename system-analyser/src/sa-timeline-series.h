/*
 * The timeline's derived and many-valued rows (sa-timeline-series.c),
 * all of kind SA_ROW_SERIES: a heatmap of a file, its counters merged on
 * one axis, its IPU activity. Included by sa-timeline-private.h.
 */
#pragma once

#include <gtk/gtk.h>

typedef struct _SaTimeline SaTimeline;
typedef struct sa_row sa_row;

/* Reads what the rows need from the document's trace (the heatmaps, and
 * whether the runtime's run spans are there) and appends the rows of the
 * file whose header is rows[head] to rows[*k...] (room for
 * sa_timeline_series_count(self) of them over all files). */
void sa_timeline_series_add_rows(SaTimeline *self, size_t head, sa_row *rows, size_t *k);
/* Rows every file may add: sizes the model before it is built. */
size_t sa_timeline_series_count(SaTimeline *self);
void sa_timeline_series_clear(SaTimeline *self);
/* Whether a laid-out row of a file is shown: its counters merged or not. */
gboolean sa_timeline_series_shown(SaTimeline *self, const sa_row *row);
int sa_timeline_series_height(SaTimeline *self, const sa_row *row);
char *sa_timeline_series_label(SaTimeline *self, const sa_row *row);
const char *sa_timeline_series_kind(SaTimeline *self, const sa_row *row);
/* The second line of the labels' column: the value axis, the buckets. */
char *sa_timeline_series_axis(SaTimeline *self, const sa_row *row);
/* Queries and draws the row's plot at its place. */
void sa_timeline_draw_series(SaTimeline *self, GtkSnapshot *s, const sa_row *row, int width,
                             gboolean dark);
/* Markup for the pointer at widget (x, y) over the row, or NULL. */
char *sa_timeline_series_tooltip(SaTimeline *self, const sa_row *row, int width, double x,
                                 double y);
/* Appends what the focused row shows to the timeline's description. */
void sa_timeline_series_describe(SaTimeline *self, const sa_row *row, GString *d);

/* A counter on the value axis [lo, hi] (sa-timeline-counters.c): in its
 * own row, or with the others of a merged row. */
void sa_timeline_draw_counter_on(SaTimeline *self, GtkSnapshot *s, size_t series, int width,
                                 int top, double lo, double hi, gboolean area, gboolean dark);
