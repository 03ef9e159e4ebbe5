/*
 * The Compare tab (an SaTableView, filled by sa-compare.c): two traces (or two windows of one trace), A and B,
 * label by label (channel and name) side by side: count, total, self,
 * mean and median of each, the change of the total (B - A) and that
 * change as a percentage of A's total, in reportlib's order
 * (tsr_trace_list_label_deltas: the largest |Δ total| first). A label only
 * one side has says so in the Δ % column ("only in A", "only in B") and
 * shows "—" on the other side.
 *
 * Accessible: the column view is named "Compare" and its description is
 * the header (what A and B are, how many labels); each value cell is a
 * label whose text (and so its accessible name) is the value and whose
 * accessible description is its column ("Total A", "Δ %", ...), so a
 * test reads a row as {column: value}.
 */
#pragma once

#include "sa-table-view.h"

G_BEGIN_DECLS

#define SA_TYPE_COMPARE_VIEW (sa_compare_view_get_type())
G_DECLARE_FINAL_TYPE(SaCompareView, sa_compare_view, SA, COMPARE_VIEW, SaTableView)

/* Shows rows[0..n) (borrowed for the call: the texts are copied) under a
 * header naming the two sides (`what_a`, `what_b`: "tut5_ml.pvti, whole
 * trace"). */
void sa_compare_view_set_rows(SaCompareView *self, const char *what_a, const char *what_b,
                              const tsr_trace_label_delta *rows, size_t n);
/* The selected row's channel and name (the caller frees both), or FALSE
 * when no row is selected. */
gboolean sa_compare_view_dup_selected(SaCompareView *self, char **channel, char **name);
/* Selects the row of label (`channel`, `name`); FALSE when there is none. */
gboolean sa_compare_view_select(SaCompareView *self, const char *channel, const char *name);

G_END_DECLS
