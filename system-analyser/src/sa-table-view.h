/*
 * SaTableView: what the System Analyser's table tabs (Statistics, Call
 * Tree, Compare) repeat, once (issue 28 item 1), on SaView (sa-view.h).
 * Its template (sa-table-view.ui) is the frame: a header line (a spinner
 * while something is computed, and a caption that is also the table's
 * accessible description) over a scrolled GtkColumnView ("data-table")
 * with a single selection that selects nothing until the user picks a
 * row, and Ctrl+C to copy it.
 *
 * A subclass's template (parent="SaTableView") declares its columns as
 * <child type="column"> GtkColumnViewColumns (title, width, expand) and
 * sets "title" (the table's accessible name), "tree" (a
 * GtkTreeListModel set with sa_table_view_set_model, the expanders in the
 * first column), "sorted" (the rows sorted by the column view's sorter)
 * and "wrap-caption". The base makes every cell: a label, text in the
 * first two columns (the first ellipsized), figures (end-aligned, class
 * "figure") after them, filled from the class's cell_text and bind_cell.
 * Cells are labels because GTK 4.8's GtkInscription does not reach
 * AT-SPI, and the tests read the cells.
 *
 * A table that computes what it shows from the session (SaView's update)
 * does so in a worker through sa_table_view_start_job / _end_job, which
 * cancel what an earlier change started.
 *
 * Rows of a flat table are SaLabelRows: one label (channel and name) of a
 * trace with the view's figures for it.
 */
#pragma once

#include "sa-view.h"

G_BEGIN_DECLS

#define SA_TYPE_TABLE_VIEW (sa_table_view_get_type())
G_DECLARE_DERIVABLE_TYPE(SaTableView, sa_table_view, SA, TABLE_VIEW, SaView)

struct _SaTableViewClass {
	SaViewClass parent_class;

	/* What cell `column` of `item` (a row; for a tree, the node under the
	 * GtkTreeListRow) says; the caller frees. */
	char *(*cell_text)(SaTableView *self, gpointer item, guint column);
	/* Anything else a cell needs once made (`label` is new) or each time
	 * it shows a row (tooltips, classes); either may be NULL. */
	void (*setup_cell)(SaTableView *self, GtkWidget *label, guint column);
	void (*bind_cell)(SaTableView *self, GtkWidget *label, gpointer item, guint column);
	/* Orders two rows by `column` (a GtkOrdering); NULL: unsortable. */
	int (*compare)(gconstpointer a, gconstpointer b, guint column);
	/* `item` as text for Ctrl+C (a header line, then its fields whole:
	 * names, counts, exact nanoseconds); NULL: nothing to copy. */
	char *(*copy_row)(gpointer item);
};

/* Column `i` as declared (borrowed), or NULL. */
GtkColumnViewColumn *sa_table_view_get_column(SaTableView *self, guint i);
/* The selection over the rows as shown (sorted or not; borrowed). */
GtkSingleSelection *sa_table_view_get_selection(SaTableView *self);

/* Replaces the rows of a flat table with rows[0..n) (SaLabelRows; the
 * table takes its own references). */
void sa_table_view_set_rows(SaTableView *self, gpointer *rows, guint n);
/* Shows `model` (borrowed; NULL: nothing) in a tree table. */
void sa_table_view_set_model(SaTableView *self, GListModel *model);
/* Shows `text` in the header and as the table's accessible description. */
void sa_table_view_set_caption(SaTableView *self, const char *text);
/* Shows or hides the spinner; when `busy` and `text` is non-NULL, the
 * caption says `text` ("Computing the statistics…"). */
void sa_table_view_set_busy(SaTableView *self, gboolean busy, const char *text);
/* Empties the table and says `text` (a prompt, a failure), with the
 * spinner when `busy`. */
void sa_table_view_set_message(SaTableView *self, const char *text, gboolean busy);

/* Cancels the view's job in progress, shows the spinner with `text`, and
 * returns the new job's cancellable (borrowed) to start it with; its
 * callback gets the view (a reference the callback releases) and asks
 * sa_table_view_end_job whether the answer still counts. */
GCancellable *sa_table_view_start_job(SaTableView *self, const char *text);
/* TRUE when `result` (a GTask) answers the view's latest job, which is
 * then over; FALSE for an answer a newer change has superseded. */
gboolean sa_table_view_end_job(SaTableView *self, GAsyncResult *result);

/* --- A label's row ------------------------------------------------------------------ */

#define SA_TYPE_LABEL_ROW (sa_label_row_get_type())
G_DECLARE_FINAL_TYPE(SaLabelRow, sa_label_row, SA, LABEL_ROW, GObject)

struct _SaLabelRow {
	GObject parent_instance;
	const char *name, *channel;  /* whole (never NULL): what identifies the label */
	char *shown, *shown_channel; /* cut for display (tsd_name_cut): shown and sorted */
	gpointer figures;            /* the view's copy of its figures for this label */
	char *owned[2];              /* the name and channel when copied */
};

/* A row for label (`channel`, `name`; NULL reads "?") with a copy of
 * `size` bytes of `figures`. `copy`: the row keeps its own copies of the
 * names, else it borrows them (from a trace that outlives the row). */
SaLabelRow *sa_label_row_new(const char *name, const char *channel, gboolean copy,
                             gconstpointer figures, gsize size);
/* Orders two rows by their names as shown (`channel`: by the channels). */
int sa_label_row_collate(const SaLabelRow *a, const SaLabelRow *b, gboolean channel);

G_END_DECLS
