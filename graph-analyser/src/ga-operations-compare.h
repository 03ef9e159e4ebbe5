/*
 * The Operations view in compare mode: one row per operation (debug
 * context), matched between report A and report B by its name path
 * ("layer1/fc") exactly as tsr_compare and `tilescope diff` match them,
 * sorted by the column chosen (by path at first),
 * with A, B, Δ and % of its cycles in each report's last run, its memory
 * and its FLOPs (the deltas cycles.operation.<path>, memory.operation.<path>
 * and flops.operation.<path>; accessible names as ga-compare-grid.h
 * says). Operations only one report has are listed in their own
 * sections, "Only in A" and "Only in B". The page around them (title,
 * note, filter) is the Operations view's compare page, declared in
 * ga-operations-view.ui.
 */
#pragma once

#include "ga-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Fills `sections` (a vertical box, emptied first) with the operations
 * of report `b`'s comparison whose path holds `filter` (any case; "" or
 * NULL: all): "In both", "Only in A" and "Only in B"; nothing when `b`
 * keeps no comparison. */
void ga_operations_compare_fill(GtkWidget *sections, GaDocument *b, const char *filter);
/* Once, before the first fill: fills the compare page's menus, the
 * `sort_box` of `sort_button`'s popover with one flat button per column
 * ("Operation", "Cycles A" ... "FLOPs Δ": sorts by it, figures largest
 * first; chosen again, the other way) and `columns_box` with one toggle
 * per figure compared (Cycles, Memory, FLOPs: its A, B and Δ columns shown).
 * A choice fills `sections` again with the last fill's report and filter. */
void ga_operations_compare_init(GtkWidget *sections, GtkMenuButton *sort_button,
                                GtkWidget *sort_box, GtkWidget *columns_box);

G_END_DECLS
