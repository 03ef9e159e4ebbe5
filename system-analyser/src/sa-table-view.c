/*
 * The table tabs' base (sa-table-view.h).
 */
#include "sa-table-view.h"

#include <tilescope/tsd-name.h>

G_DEFINE_ABSTRACT_TYPE(SaTableView, sa_table_view, SA_TYPE_VIEW)

TsdTable *sa_table_view_get_table(SaTableView *self)
{
	return TSD_TABLE(gtk_widget_get_first_child(GTK_WIDGET(self)));
}

static void sa_table_view_dispose(GObject *object)
{
	GtkWidget *table = gtk_widget_get_first_child(GTK_WIDGET(object));

	if (table)
		gtk_widget_unparent(table);
	G_OBJECT_CLASS(sa_table_view_parent_class)->dispose(object);
}

static void sa_table_view_class_init(SaTableViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = sa_table_view_dispose;
	gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
	g_type_ensure(TSD_TYPE_TABLE);
}

static void sa_table_view_init(SaTableView *self)
{
}

/* --- A label's row ------------------------------------------------------------------ */

G_DEFINE_FINAL_TYPE(SaLabelRow, sa_label_row, G_TYPE_OBJECT)

static void sa_label_row_finalize(GObject *object)
{
	SaLabelRow *row = SA_LABEL_ROW(object);

	g_free(row->shown);
	g_free(row->shown_channel);
	g_free(row->figures);
	g_free(row->owned[0]);
	g_free(row->owned[1]);
	G_OBJECT_CLASS(sa_label_row_parent_class)->finalize(object);
}

static void sa_label_row_class_init(SaLabelRowClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = sa_label_row_finalize;
}

static void sa_label_row_init(SaLabelRow *row)
{
}

SaLabelRow *sa_label_row_new(const char *name, const char *channel, gboolean copy,
                             gconstpointer figures, gsize size)
{
	SaLabelRow *row = g_object_new(SA_TYPE_LABEL_ROW, NULL);

	row->name = name ? name : "?";
	row->channel = channel ? channel : "?";
	if (copy) {
		row->name = row->owned[0] = g_strdup(row->name);
		row->channel = row->owned[1] = g_strdup(row->channel);
	}
	row->shown = tsd_name_cut(row->name);
	row->shown_channel = tsd_name_cut(row->channel);
	row->figures = g_memdup2(figures, size);
	return row;
}
