/*
 * Compare mode's Memory charts (ga-memory-view.c draws them): the B − A
 * difference per tile on an axis diverging around zero, increases up and
 * decreases down, coloured by the verdict `tilescope diff` gives a memory
 * total that moved that way (reportlib's tsr_delta_get_verdict: less
 * memory is better, green; more is worse, red); and the rule for the
 * tile-capacity line on the absolute A and B charts, drawn only when the
 * bars reach a fair part of it, never on the difference.
 */
#pragma once

#include <gtk/gtk.h>
#include <stdint.h>
#include <tilescope/tsc-chart.h>

G_BEGIN_DECLS

/* The capacity line is drawn when the fullest bar drawn is at least
 * 1 / GA_MEMORY_CAP_FACTOR of it: bars then fill a third of the axis or
 * more; below that the line would squash them to the bottom. */
#define GA_MEMORY_CAP_FACTOR 3

/* Fills `chart` with the difference of n_items tiles: values[i] the
 * increase of item i and values[n_items + i] its decrease (both >= 0),
 * stacked up and down from zero; `gaps` says which memory total the
 * bars are (the verdict and legend of memory.total_including_gaps or
 * memory.total). */
void ga_memory_compare_set_difference(TscChart *chart, guint n_items, const double *values,
                                      gboolean gaps);

/* Whether a capacity line at `cap` bytes informs on the charts `a` and
 * `b` (b may be NULL), from the totals they draw. When it does not and
 * `note` is not NULL, *note is a sentence for the caption saying that it
 * is left out and why (the caller frees it with g_free). */
gboolean ga_memory_compare_cap_informative(TscChart *a, TscChart *b, uint64_t cap, char **note);

G_END_DECLS
