/*
 * TsdTable: the one table of both desktop apps (issue 28), a widget a
 * view embeds. A header line (a spinner while something is computed, a
 * caption that is also the table's accessible description, widgets the
 * view adds, a column chooser on demand, and a search entry when "search"
 * is set; hidden while it has nothing to show) over a scrolled
 * GtkColumnView with a single selection that selects nothing until the
 * user picks a row, Ctrl+C to copy that row, and every column resizable.
 *
 * Columns are declared in the view's .ui as children of the TsdTable:
 * <child type="column"> for text (ellipsized) and <child type="figure">
 * for numbers (end-aligned, class "figure"), each a GtkColumnViewColumn
 * (title, width, expand). Every cell is a label (GTK 4.8's GtkInscription
 * does not reach AT-SPI, and the tests read the cells), named by its text
 * and silent while empty (never "GtkLabel"); with "describe-figures", a
 * figure is also described by its column's title ("Total B").
 *
 * The view then calls tsd_table_set_cells once, with what its rows say:
 * each cell's text, anything else a shown cell needs (tooltips, classes),
 * how two rows order by a column (sortable columns; the rows of a
 * "sorted" table are kept in the column view's order), and a row as text
 * for the clipboard. Rows are GObjects: a flat table's are given with
 * tsd_table_set_rows; a "tree" table shows a GtkTreeListModel
 * (tsd_table_set_model) with the expanders in the first column. The
 * search keeps the rows whose first column's text contains what is typed
 * (case ignored).
 *
 * A table that computes its rows in a worker uses tsd_table_start_job /
 * tsd_table_end_job, which cancel what an earlier change started.
 *
 * Example (a view's template):
 *   <object class="TsdTable" id="table">
 *     <property name="title">Statistics</property>
 *     <property name="sorted">true</property>
 *     <child type="column"><object class="GtkColumnViewColumn">
 *       <property name="title">Name</property></object></child>
 *     <child type="figure"><object class="GtkColumnViewColumn">
 *       <property name="title">Total</property></object></child>
 *   </object>
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define TSD_TYPE_TABLE (tsd_table_get_type())
G_DECLARE_FINAL_TYPE(TsdTable, tsd_table, TSD, TABLE, GtkWidget)

/* What a table's rows say; `data` is tsd_table_set_cells's. */
typedef struct {
	/* Cell `column` of `item` (a row; in a tree, the node under the
	 * GtkTreeListRow); the caller frees. Required. */
	char *(*text)(gpointer item, guint column, gpointer data);
	/* Anything else a shown cell needs (tooltips, classes); may be NULL. */
	void (*bind)(GtkWidget *label, gpointer item, guint column, gpointer data);
	/* Orders two rows by figure `column` (a GtkOrdering); NULL: the table
	 * is unsortable. Text columns sort by their cells' text, case
	 * ignored, without it. */
	int (*compare)(gconstpointer a, gconstpointer b, guint column, gpointer data);
	/* `item` as text for Ctrl+C (a header line, then its fields whole);
	 * NULL: the shown columns' titles, then their cells, tab-separated. */
	char *(*copy)(gpointer item, gpointer data);
	/* A cell of `column` that is not a label (text then unused, bind
	 * fills it), or NULL for a label; may be NULL. */
	GtkWidget *(*make)(guint column, gpointer data);
} TsdTableCells;

/* A compare's ordering of two numbers. */
#define TSD_TABLE_ORDER(a, b) \
	((a) < (b) ? GTK_ORDERING_SMALLER : (a) > (b) ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL)

/* Makes the cells and sorters of the columns declared so far and the
 * model; once, after the template. `cells` must outlive the table (a
 * static); `data` is borrowed. */
void tsd_table_set_cells(TsdTable *self, const TsdTableCells *cells, gpointer data);
/* Column `i` (borrowed), or NULL. */
GtkColumnViewColumn *tsd_table_get_column(TsdTable *self, guint i);
/* Sorts by column `i`. */
void tsd_table_sort_by(TsdTable *self, guint i, GtkSortType order);
/* The column view (borrowed): its "activate" signal. */
GtkColumnView *tsd_table_get_view(TsdTable *self);
/* The selection over the rows as shown (sorted, filtered; borrowed). */
GtkSingleSelection *tsd_table_get_selection(TsdTable *self);
/* A "Columns" menu in the header: a check per column (the first, which
 * names the rows, always shown), the choice remembered in the a{sb} `key`
 * of `settings` (tsd_settings_remember_columns; NULL: not remembered).
 * Once, after tsd_table_set_cells. */
void tsd_table_add_chooser(TsdTable *self, GSettings *settings, const char *key);
/* Puts `widget` in the header line after the caption. */
void tsd_table_add_header(TsdTable *self, GtkWidget *widget);

/* Replaces a flat table's rows with rows[0..n) (GObjects; the table
 * takes its own references). */
void tsd_table_set_rows(TsdTable *self, gpointer *rows, guint n);
/* Shows `model` (borrowed; NULL: nothing) in a tree table. */
void tsd_table_set_model(TsdTable *self, GListModel *model);
/* Shows `text` in the header and as the table's accessible description. */
void tsd_table_set_caption(TsdTable *self, const char *text);
/* Shows or hides the spinner; when `busy` and `text` is non-NULL, the
 * caption says `text`. */
void tsd_table_set_busy(TsdTable *self, gboolean busy, const char *text);
/* Cancels the job, empties the table and says `text` (a prompt, a
 * failure), with the spinner when `busy`. */
void tsd_table_set_message(TsdTable *self, const char *text, gboolean busy);

/* Cancels the job in progress, shows the spinner with `text`, and
 * returns the new job's cancellable (borrowed) to start a GTask with; its
 * callback asks tsd_table_end_job whether the answer still counts. */
GCancellable *tsd_table_start_job(TsdTable *self, const char *text);
/* TRUE when `result` (a GTask) answers the latest job, which is then
 * over; FALSE for one a newer change has superseded, or when `self` is
 * NULL (the table of a view disposed while the job ran). */
gboolean tsd_table_end_job(TsdTable *self, GAsyncResult *result);

G_END_DECLS
