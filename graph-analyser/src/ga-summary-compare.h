/*
 * The Summary view's sections in compare mode: the change of every
 * metric `tilescope diff A B` compares, in the diff's order and groups,
 * named as the diff names them (ga-compare-grid.h gives the accessible
 * names), those whose name holds the filter's text; metrics that only
 * one report has are listed in their own sections, "Only in A" and "Only
 * in B". The comparison was made in a worker when the pair loaded
 * (ga_document_get_comparison on report B); nothing here reads a file.
 * The header above them (which report is which, the filter) is the
 * view's template (ga-summary-view.ui).
 */
#pragma once

#include "ga-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Fills the vertical box `sections` (emptied first) with the sections of
 * report B's comparison whose metrics hold `filter` (any case; "" or
 * NULL: every metric). */
void ga_summary_compare_fill(GtkWidget *sections, GaDocument *b, const char *filter);

G_END_DECLS
