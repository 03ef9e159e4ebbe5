/*
 * The Operations view in compare mode: one row per operation (debug
 * context), matched between report A and report B by its name path
 * ("layer1/fc") exactly as tsr_compare and `tilescope diff` match them,
 * with A, B, Δ and % of its cycles in each report's last run, its memory
 * and its FLOPs (the deltas cycles.operation.<path>, memory.operation.<path>
 * and flops.operation.<path>; accessible names as ga-compare-grid.h
 * says). Operations only one report has are listed in their own
 * sections, "Only in A" and "Only in B".
 */
#pragma once

#include "ga-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The compare page of `a` and `b` (b holds the comparison). */
GtkWidget *ga_operations_compare_new(GaDocument *a, GaDocument *b);

G_END_DECLS
