/*
 * The Summary view in compare mode: report A, report B and the change of
 * every metric `tilescope diff A B` compares, in the diff's order and
 * groups, named as the diff names them (ga-compare-grid.h gives the
 * accessible names), with a filter on the metric names; metrics that
 * only one report has are listed in their own sections, "Only in A" and
 * "Only in B". The comparison was made in a worker when the pair loaded
 * (ga_document_get_comparison on report B); nothing here reads a file.
 */
#pragma once

#include "ga-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The compare page of `a` and `b` (b holds the comparison). */
GtkWidget *ga_summary_compare_new(GaDocument *a, GaDocument *b);

G_END_DECLS
