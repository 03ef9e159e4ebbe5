/*
 * The building blocks of compare mode's tables (Summary, Operations): a
 * grid whose rows are a name and, for each compared metric, report A's
 * value, report B's, the change (B - A) and the percent change, as
 * `tilescope diff` prints them; better and worse coloured by the
 * delta's verdict, reportlib's one rule that the diff prints
 * (tsr_delta_get_verdict).
 *
 * Accessible names (for assistive technology and the GUI tests): the
 * value labels of a delta are named after its metric, exactly as
 * `tilescope diff --format=json` names it, plus the JSON key of the
 * figure: "METRIC.base" (report A), "METRIC.new" (report B),
 * "METRIC.change" (B - A, "+1,234" / "-56" / "0") and "METRIC.percent"
 * ("+36.7%", "new" from 0, "" unchanged). The change label's accessible
 * description is the diff's verdict ("better", "worse", "same",
 * "changed"), the colour in words. A side that lacks the metric
 * shows "—" (its figure counts as 0 in the change, as in the JSON).
 */
#pragma once

#include <gtk/gtk.h>
#include <tilescope/compare.h>

G_BEGIN_DECLS

/* The diff's group heading of a metric ("Totals", "Memory by category",
 * "Cycles by step type", "By vertex type", "By operation", "By compute
 * set", "By variable", "By program") and its index in that order. */
guint ga_compare_group_of(const char *metric);
const char *ga_compare_group_title(guint group);
#define GA_COMPARE_N_GROUPS 8

/* A grid with a header row: `name_title`, then for each of the
 * `n_metrics` titles "TITLE A", "TITLE B", "Δ", "%" (or "A", "B", "Δ",
 * "%" when `metric_titles` is NULL); without `percent`, no "%" column
 * (the percent then shows in the change's tooltip). */
GtkWidget *ga_compare_grid_new(const char *name_title, guint n_metrics,
                               const char *const *metric_titles, gboolean percent);
/* Appends a row named `name`: the deltas' cells in order (a NULL delta
 * leaves its cells empty). */
void ga_compare_grid_add(GtkWidget *grid, const char *name, const tsr_delta *const *deltas);
/* Appends a dim full-width note ("and 120 more: narrow the filter"). */
void ga_compare_grid_note(GtkWidget *grid, const char *text);

G_END_DECLS
