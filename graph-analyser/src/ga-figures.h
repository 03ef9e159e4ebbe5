/*
 * The building blocks the Summary and Insights views lay their figures
 * out with: collapsible sections, grids of labelled figures whose value
 * labels are named by their captions for screen readers (tsd-a11y.h) and
 * carry the figure's key path as widget name (the keys of `tilescope
 * summary --json`, "memory[0].includingGaps": an id for the inspector and
 * widget tests, never read to a person), lists capped with "and N more",
 * and the small bar chart of the by-tile histogram.
 */
#pragma once

#include <gtk/gtk.h>
#include <tilescope/summary.h>

G_BEGIN_DECLS

/* A GtkExpander titled `title` holding a vertical box, returned in
 * *content to append to. */
GtkWidget *ga_section_new(const char *title, gboolean expanded, GtkWidget **content);

/* A heading label over what follows. */
GtkWidget *ga_heading_new(const char *text);

/* A grid of figures: a label, the value right-aligned, a unit after it. */
GtkWidget *ga_figure_grid_new(void);
/* Appends a row; `indent` in steps of 12 px; `value` NULL for a heading
 * row. The value label is named `label` for assistive technology; `key`
 * (may be NULL) becomes its widget name.
 * Returns the value label (or the heading label). */
GtkWidget *ga_figure_grid_add(GtkWidget *grid, int indent, const char *label, const char *value,
                              const char *unit, const char *key);
/* ga_figure_grid_add with the value formatted as "1,234,567". */
GtkWidget *ga_figure_grid_add_u64(GtkWidget *grid, int indent, const char *label, uint64_t value,
                                  const char *unit, const char *key);

/* A boxed list of rows of cells: the first cell a name that takes the
 * room left, the others right-aligned figures. At most `cap` rows are
 * added; ga_list_finish adds the "and N more" row. `activatable`: rows
 * emit GtkListBox::row-activated. */
GtkWidget *ga_list_new(const char *accessible_name, gboolean activatable);
/* Appends a row of `n` cells (names are cleaned); returns the row. */
GtkWidget *ga_list_add(GtkWidget *list, const char *const *cells, size_t n);
/* The same with a dim line under the name (NULL: none). */
GtkWidget *ga_list_add_full(GtkWidget *list, const char *subtitle, const char *const *cells,
                            size_t n);
/* Ends a list of `total` items of which `shown` were added. */
void ga_list_finish(GtkWidget *list, size_t shown, size_t total);

/* A caption-sized dim paragraph. */
GtkWidget *ga_note_new(const char *text);
/* A table cell's label: numbers right-aligned in tabular figures, text
 * left-aligned and ellipsized; silent to a screen reader while empty. */
GtkWidget *ga_cell_label_new(gboolean numeric);
/* A row of a details grid at *row (then incremented): a dim key and its
 * selectable, wrapping value, named by the key (as cut on screen) for
 * assistive technology; `number` aligns figures. */
void ga_details_add(GtkGrid *grid, int *row, const char *key, const char *value,
                    gboolean number);
/* A details grid: key and value columns 16 px apart, rows 3 px apart. */
GtkGrid *ga_details_grid_new(void);
/* The same with `value` written with thousands separators. */
void ga_details_add_u64(GtkGrid *grid, int *row, const char *key, uint64_t value);
/* A heading across both columns of a details grid at *row (then
 * incremented). */
void ga_details_add_heading(GtkGrid *grid, int *row, const char *text);

/* The summary's always-live entries, largest first (then by name), *n of
 * them, their names borrowed from `s` (g_free the array);
 * `variables_only`: without the categories' bytes (code, stack ...),
 * which are no variable one could recompute. */
tsr_summary_named_bytes *ga_always_live_sorted(const tsr_summary_figures *s,
                                               gboolean variables_only, size_t *n);

/* The by-tile histogram of `m` (tiles by memory excluding gaps, in KB
 * buckets) as horizontal bars with their counts. */
GtkWidget *ga_histogram_new(const tsr_summary_memory *m);

G_END_DECLS
