/*
 * The table tabs' common frame (sa-table.h): built once here so that the
 * Statistics, Call Tree and Compare tabs look, select and read out (the
 * caption is the column view's accessible description) the same way.
 */
#include "sa-table.h"

/* Ctrl+C: the selected row, as the view writes it, on the clipboard. */
static gboolean copy_selected(GtkWidget *widget, GVariant *args, gpointer data)
{
	sa_table *t = data;
	gpointer item = t->copy ? gtk_single_selection_get_selected_item(t->selection) : NULL;
	g_autofree char *text = item ? t->copy(item) : NULL;

	(void)args;
	if (!text)
		return FALSE;
	gdk_clipboard_set_text(gtk_widget_get_clipboard(widget), text);
	return TRUE;
}

void sa_table_init(sa_table *t, GtkWidget *owner, const char *name, GType item_type,
                   sa_table_flags flags)
{
	GtkWidget *top = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
	GtkWidget *scroll = gtk_scrolled_window_new();
	GListModel *rows = NULL;

	t->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	gtk_widget_set_parent(t->box, owner);
	t->caption = gtk_label_new("");
	gtk_label_set_xalign(GTK_LABEL(t->caption), 0);
	gtk_label_set_wrap(GTK_LABEL(t->caption), (flags & SA_TABLE_WRAP_CAPTION) != 0);
	t->spinner = gtk_spinner_new();
	gtk_widget_set_visible(t->spinner, FALSE);
	gtk_widget_set_margin_start(top, 8);
	gtk_widget_set_margin_top(top, 4);
	gtk_widget_set_margin_bottom(top, 4);
	gtk_box_append(GTK_BOX(top), t->spinner);
	gtk_box_append(GTK_BOX(top), t->caption);
	gtk_box_append(GTK_BOX(t->box), top);

	t->columns = gtk_column_view_new(NULL);
	t->store = NULL;
	if (item_type != G_TYPE_NONE) {
		t->store = g_list_store_new(item_type);
		rows = G_LIST_MODEL(g_object_ref(t->store));
		if (flags & SA_TABLE_SORTED)
			rows = G_LIST_MODEL(gtk_sort_list_model_new(
			    rows, g_object_ref(gtk_column_view_get_sorter(GTK_COLUMN_VIEW(t->columns)))));
	}
	t->selection = gtk_single_selection_new(rows);
	/* Nothing chosen until the user picks a row. */
	gtk_single_selection_set_autoselect(t->selection, FALSE);
	gtk_single_selection_set_can_unselect(t->selection, TRUE);
	if (rows)
		gtk_single_selection_set_selected(t->selection, GTK_INVALID_LIST_POSITION);
	gtk_column_view_set_model(GTK_COLUMN_VIEW(t->columns), GTK_SELECTION_MODEL(t->selection));
	g_object_unref(t->selection);
	gtk_column_view_set_show_column_separators(GTK_COLUMN_VIEW(t->columns), TRUE);
	t->copy = NULL;
	{
		GtkEventController *keys = gtk_shortcut_controller_new();

		gtk_shortcut_controller_add_shortcut(
		    GTK_SHORTCUT_CONTROLLER(keys),
		    gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_c, GDK_CONTROL_MASK),
		                     gtk_callback_action_new(copy_selected, t, NULL)));
		gtk_widget_add_controller(t->columns, keys);
	}
	gtk_widget_add_css_class(t->columns, "data-table");
	gtk_accessible_update_property(GTK_ACCESSIBLE(t->columns), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               name, -1);
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), t->columns);
	gtk_widget_set_vexpand(scroll, TRUE);
	gtk_box_append(GTK_BOX(t->box), scroll);
}

GtkColumnViewColumn *sa_table_add_column(sa_table *t, const char *title, int column,
                                         GCallback setup, GCallback bind,
                                         GCompareDataFunc sort)
{
	GtkListItemFactory *f = gtk_signal_list_item_factory_new();
	GtkColumnViewColumn *col;

	g_signal_connect(f, "setup", setup, GINT_TO_POINTER(column));
	g_signal_connect(f, "bind", bind, GINT_TO_POINTER(column));
	col = gtk_column_view_column_new(title, f);
	if (sort)
		gtk_column_view_column_set_sorter(
		    col, GTK_SORTER(gtk_custom_sorter_new(sort, GINT_TO_POINTER(column), NULL)));
	gtk_column_view_column_set_resizable(col, TRUE);
	gtk_column_view_append_column(GTK_COLUMN_VIEW(t->columns), col);
	g_object_unref(col);
	return col;
}

GtkWidget *sa_table_new_cell(gboolean figure, gboolean ellipsize)
{
	GtkWidget *label = gtk_label_new(NULL);

	gtk_label_set_xalign(GTK_LABEL(label), figure ? 1 : 0);
	gtk_label_set_ellipsize(GTK_LABEL(label), ellipsize ? PANGO_ELLIPSIZE_END
	                                                    : PANGO_ELLIPSIZE_NONE);
	if (figure)
		gtk_widget_add_css_class(label, "figure");
	return label;
}

void sa_table_set_rows(sa_table *t, gpointer *rows, guint n)
{
	g_return_if_fail(t->store);
	g_list_store_splice(t->store, 0, g_list_model_get_n_items(G_LIST_MODEL(t->store)), rows, n);
}

void sa_table_set_model(sa_table *t, GListModel *model)
{
	g_return_if_fail(!t->store);
	gtk_single_selection_set_model(t->selection, model);
	if (model)
		gtk_single_selection_set_selected(t->selection, GTK_INVALID_LIST_POSITION);
}

void sa_table_set_caption(sa_table *t, const char *text)
{
	gtk_label_set_text(GTK_LABEL(t->caption), text);
	gtk_accessible_update_property(GTK_ACCESSIBLE(t->columns),
	                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

void sa_table_set_busy(sa_table *t, gboolean busy, const char *text)
{
	gtk_widget_set_visible(t->spinner, busy);
	gtk_spinner_set_spinning(GTK_SPINNER(t->spinner), busy);
	if (busy && text)
		sa_table_set_caption(t, text);
}

void sa_table_set_message(sa_table *t, const char *text, gboolean busy)
{
	sa_table_set_busy(t, busy, NULL);
	if (t->store)
		g_list_store_remove_all(t->store);
	else
		sa_table_set_model(t, NULL);
	sa_table_set_caption(t, text);
}

void sa_table_set_copy_func(sa_table *t, char *(*copy)(gpointer item))
{
	t->copy = copy;
}

void sa_table_dispose(sa_table *t)
{
	g_clear_pointer(&t->box, gtk_widget_unparent);
	g_clear_object(&t->store);
}
