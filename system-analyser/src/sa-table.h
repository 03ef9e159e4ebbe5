/*
 * The frame the table tabs (Statistics, Call Tree, Compare) share: a
 * header line (a spinner and a caption), under it a scrolled
 * GtkColumnView ("data-table", column separators) named for AT-SPI,
 * whose accessible description is the caption, over a single selection
 * that selects nothing until the user picks a row. A view embeds an
 * sa_table in its instance struct, sets it up in its init with
 * sa_table_init and sa_table_add_column, and clears it in its dispose.
 *
 * Rows come one of two ways: a table made with an item type owns a
 * GListStore of that type (sorted by the column view's sorter when asked)
 * and takes rows with sa_table_set_rows; a table made with G_TYPE_NONE
 * takes a whole model with sa_table_set_model (the call tree's
 * GtkTreeListModel).
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef enum {
	SA_TABLE_SORTED = 1 << 0,       /* the store is sorted by the column view's sorter */
	SA_TABLE_WRAP_CAPTION = 1 << 1, /* a long caption wraps instead of widening the tab */
} sa_table_flags;

typedef struct sa_table {
	GtkWidget *box;                /* the frame, child of the owning widget */
	GtkWidget *caption;            /* GtkLabel */
	GtkWidget *spinner;
	GtkWidget *columns;            /* GtkColumnView */
	GtkSingleSelection *selection; /* borrowed: the column view owns it */
	GListStore *store;             /* the rows; NULL for a table of G_TYPE_NONE */
	char *(*copy)(gpointer item);  /* the selected row as text for Ctrl+C; NULL: none */
} sa_table;

/* Builds the frame as the only child of `owner` (a widget with a
 * GtkBinLayout), the column view named `name` ("Statistics"). `item_type`:
 * the rows' type, or G_TYPE_NONE for a model set with sa_table_set_model. */
void sa_table_init(sa_table *t, GtkWidget *owner, const char *name, GType item_type,
                   sa_table_flags flags);
/* Appends a resizable column titled `title` whose cells `setup` and `bind`
 * make and fill (GtkSignalListItemFactory handlers; their user data is
 * `column`), sorted by `sort` (NULL: not sortable; its user data is
 * `column` too). Returns the column, borrowed from the column view (to
 * set its width or sort by it). */
GtkColumnViewColumn *sa_table_add_column(sa_table *t, const char *title, int column,
                                         GCallback setup, GCallback bind,
                                         GCompareDataFunc sort);
/* A cell: a label, text (start-aligned) or a figure (end-aligned, class
 * "figure"), ellipsized at the end when `ellipsize`. Cells are labels
 * because GTK 4.8's GtkInscription does not reach AT-SPI, and the tests
 * read the cells. */
GtkWidget *sa_table_new_cell(gboolean figure, gboolean ellipsize);
/* Replaces the rows with rows[0..n) (GObjects of the item type; the store
 * takes its own references). */
void sa_table_set_rows(sa_table *t, gpointer *rows, guint n);
/* Shows `model` (borrowed; NULL: nothing) with no row selected. Only for a
 * table of G_TYPE_NONE. */
void sa_table_set_model(sa_table *t, GListModel *model);
/* Shows `text` in the header and as the table's accessible description. */
void sa_table_set_caption(sa_table *t, const char *text);
/* Shows or hides the spinner; when `busy` and `text` is non-NULL, the
 * caption says `text` ("Computing the statistics…"). */
void sa_table_set_busy(sa_table *t, gboolean busy, const char *text);
/* Empties the table and says `text` (a prompt, a failure), with the
 * spinner when `busy`. */
void sa_table_set_message(sa_table *t, const char *text, gboolean busy);
/* Ctrl+C in the table puts `copy(item)` (a newly allocated string, freed
 * here) of the selected row's item on the clipboard: the figures whole,
 * durations in exact nanoseconds. An item of a table of G_TYPE_NONE is
 * its model's (a GtkTreeListRow for a tree). */
void sa_table_set_copy_func(sa_table *t, char *(*copy)(gpointer item));
/* Unparents the frame and drops the store; for the owner's dispose (safe
 * to call twice). */
void sa_table_dispose(sa_table *t);

G_END_DECLS
