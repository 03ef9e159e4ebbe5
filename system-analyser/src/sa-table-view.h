/*
 * SaTableView: a System Analyser table tab (Statistics, Call Tree,
 * Compare): an SaView (sa-view.h) whose template holds one TsdTable
 * (tsd-table.h, the table both apps share) with its columns, the first
 * and only child, which the base gives back and disposes of.
 *
 * Rows of a flat table are SaLabelRows: one label (channel and name) of a
 * trace with the view's figures for it.
 */
#pragma once

#include "sa-view.h"

#include <tilescope/tsd-table.h>

G_BEGIN_DECLS

#define SA_TYPE_TABLE_VIEW (sa_table_view_get_type())
G_DECLARE_DERIVABLE_TYPE(SaTableView, sa_table_view, SA, TABLE_VIEW, SaView)

struct _SaTableViewClass {
	SaViewClass parent_class;
};

/* The view's table (borrowed). */
TsdTable *sa_table_view_get_table(SaTableView *self);
#define SA_TABLE(view) sa_table_view_get_table(SA_TABLE_VIEW(view))

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

G_END_DECLS
