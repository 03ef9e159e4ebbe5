/*
 * The Operations view in compare mode: one row per operation (debug
 * context), matched between report A and report B by its name path
 * ("layer1/fc") exactly as tsr_compare and `tilescope diff` match them,
 * with A, B, Δ and % of its cycles in each report's last run, its memory
 * and its FLOPs (the deltas cycles.operation.<path>, memory.operation.<path>
 * and flops.operation.<path>; accessible names as ga-compare-grid.h
 * says). Operations only one report has are listed in their own
 * sections, "Only in A" and "Only in B". Declared in
 * ga-operations-compare.ui; the Operations view shows it as its compare
 * page (ga-view.h).
 */
#pragma once

#include "ga-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_OPERATIONS_COMPARE (ga_operations_compare_get_type())
G_DECLARE_FINAL_TYPE(GaOperationsCompare, ga_operations_compare, GA, OPERATIONS_COMPARE,
                     GtkWidget)

/* The page shows its "document" (report A) against its
 * "compare-document" (report B, which holds the comparison), properties
 * a template binds to: a new report B gathers the operations again and
 * clears the filter; without one the page has no sections. */

G_END_DECLS
