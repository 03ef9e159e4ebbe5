/*
 * The table tabs' base (sa-table-view.h): the frame from
 * sa-table-view.ui, the cells and sorters of the columns a subclass
 * declares (made in constructed, once the subclass's template has added
 * them), and the one job in progress.
 */
#include "sa-table-view.h"

#include <tilescope/tsd-cancel.h>
#include <tilescope/tsd-name.h>

#include <string.h>

typedef struct {
	GtkWidget *box;                /* the frame */
	GtkLabel *caption;
	GtkSpinner *spinner;
	GtkColumnView *columns;
	GtkSingleSelection *selection; /* borrowed: the column view owns it */
	GListStore *store;             /* a flat table's rows; NULL for a tree */
	gboolean tree, sorted;
	GCancellable *job;             /* the job in progress, or NULL */
} SaTableViewPrivate;

static void sa_table_view_buildable_init(GtkBuildableIface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE(SaTableView, sa_table_view, SA_TYPE_VIEW,
                                 G_ADD_PRIVATE(SaTableView)
                                 G_IMPLEMENT_INTERFACE(GTK_TYPE_BUILDABLE, sa_table_view_buildable_init))

enum { PROP_0, PROP_TITLE, PROP_TREE, PROP_SORTED, PROP_WRAP_CAPTION, N_PROPS };
static GParamSpec *props[N_PROPS];

static GQuark column_quark;

/* --- Columns and cells ------------------------------------------------------------- */

static GtkBuildableIface *parent_buildable;

/* A subclass template's <child type="column">: appended to the table. */
static void sa_table_view_add_child(GtkBuildable *buildable, GtkBuilder *builder, GObject *child,
                              const char *type)
{
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(SA_TABLE_VIEW(buildable));

	if (g_strcmp0(type, "column") == 0 && GTK_IS_COLUMN_VIEW_COLUMN(child) && priv->columns) {
		gtk_column_view_append_column(priv->columns, GTK_COLUMN_VIEW_COLUMN(child));
		return;
	}
	parent_buildable->add_child(buildable, builder, child, type);
}

static void sa_table_view_buildable_init(GtkBuildableIface *iface)
{
	parent_buildable = g_type_interface_peek_parent(iface);
	iface->add_child = sa_table_view_add_child;
}

static guint column_of(GtkListItemFactory *f)
{
	return GPOINTER_TO_UINT(g_object_get_qdata(G_OBJECT(f), column_quark));
}

static void setup_cell(GtkListItemFactory *f, GtkListItem *item, gpointer data)
{
	SaTableView *self = data;
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);
	guint c = column_of(f);
	GtkWidget *label = gtk_label_new(NULL);

	gtk_label_set_xalign(GTK_LABEL(label), c >= 2 ? 1 : 0);
	gtk_label_set_ellipsize(GTK_LABEL(label), c == 0 ? PANGO_ELLIPSIZE_END : PANGO_ELLIPSIZE_NONE);
	if (c >= 2)
		gtk_widget_add_css_class(label, "figure");
	if (SA_TABLE_VIEW_GET_CLASS(self)->setup_cell)
		SA_TABLE_VIEW_GET_CLASS(self)->setup_cell(self, label, c);
	if (priv->tree && c == 0) {
		GtkWidget *expander = gtk_tree_expander_new();

		gtk_tree_expander_set_child(GTK_TREE_EXPANDER(expander), label);
		gtk_list_item_set_child(item, expander);
	} else {
		gtk_list_item_set_child(item, label);
	}
}

static void bind_cell(GtkListItemFactory *f, GtkListItem *item, gpointer data)
{
	SaTableView *self = data;
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);
	SaTableViewClass *klass = SA_TABLE_VIEW_GET_CLASS(self);
	guint c = column_of(f);
	GtkWidget *label = gtk_list_item_get_child(item);
	g_autoptr(GObject) row = NULL;
	g_autofree char *text = NULL;

	if (priv->tree) {
		GtkTreeListRow *list_row = gtk_list_item_get_item(item);

		row = gtk_tree_list_row_get_item(list_row);
		if (c == 0) {
			gtk_tree_expander_set_list_row(GTK_TREE_EXPANDER(label), list_row);
			label = gtk_tree_expander_get_child(GTK_TREE_EXPANDER(label));
		}
	} else {
		row = g_object_ref(gtk_list_item_get_item(item));
	}
	text = klass->cell_text(self, row, c);
	gtk_label_set_text(GTK_LABEL(label), text);
	if (klass->bind_cell)
		klass->bind_cell(self, label, row, c);
}

typedef struct sort_data {
	SaTableViewClass *klass;
	guint column;
} sort_data;

static int sort_rows(gconstpointer a, gconstpointer b, gpointer data)
{
	const sort_data *s = data;

	return s->klass->compare(a, b, s->column);
}

/* Ctrl+C: the selected row, as the view writes it, on the clipboard. */
static gboolean copy_selected(GtkWidget *widget, GVariant *args, gpointer data)
{
	SaTableView *self = data;
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);
	gpointer item = gtk_single_selection_get_selected_item(priv->selection);
	g_autoptr(GObject) row = NULL;
	g_autofree char *text = NULL;

	(void)args;
	if (!item || !SA_TABLE_VIEW_GET_CLASS(self)->copy_row)
		return FALSE;
	row = priv->tree ? gtk_tree_list_row_get_item(item) : g_object_ref(item);
	text = row ? SA_TABLE_VIEW_GET_CLASS(self)->copy_row(row) : NULL;
	if (!text)
		return FALSE;
	gdk_clipboard_set_text(gtk_widget_get_clipboard(widget), text);
	return TRUE;
}

/* The model and every declared column's cells and sorter, once the
 * subclass's template has set the flags and added the columns. */
static void sa_table_view_constructed(GObject *object)
{
	SaTableView *self = SA_TABLE_VIEW(object);
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);
	SaTableViewClass *klass = SA_TABLE_VIEW_GET_CLASS(self);
	GListModel *columns = gtk_column_view_get_columns(priv->columns);
	GListModel *rows = NULL;
	GtkEventController *keys;

	G_OBJECT_CLASS(sa_table_view_parent_class)->constructed(object);
	for (guint i = 0; i < g_list_model_get_n_items(columns); i++) {
		g_autoptr(GtkColumnViewColumn) col = g_list_model_get_item(columns, i);
		GtkListItemFactory *f = gtk_signal_list_item_factory_new();

		g_object_set_qdata(G_OBJECT(f), column_quark, GUINT_TO_POINTER(i));
		g_signal_connect(f, "setup", G_CALLBACK(setup_cell), self);
		g_signal_connect(f, "bind", G_CALLBACK(bind_cell), self);
		gtk_column_view_column_set_factory(col, f);
		g_object_unref(f);
		gtk_column_view_column_set_resizable(col, TRUE);
		if (klass->compare) {
			sort_data *s = g_new(sort_data, 1);

			s->klass = klass;
			s->column = i;
			gtk_column_view_column_set_sorter(
			    col, GTK_SORTER(gtk_custom_sorter_new(sort_rows, s, g_free)));
		}
	}
	if (!priv->tree) {
		priv->store = g_list_store_new(SA_TYPE_LABEL_ROW);
		rows = G_LIST_MODEL(g_object_ref(priv->store));
		if (priv->sorted)
			rows = G_LIST_MODEL(gtk_sort_list_model_new(
			    rows, g_object_ref(gtk_column_view_get_sorter(priv->columns))));
	}
	priv->selection = gtk_single_selection_new(rows);
	/* Nothing chosen until the user picks a row. */
	gtk_single_selection_set_autoselect(priv->selection, FALSE);
	gtk_single_selection_set_can_unselect(priv->selection, TRUE);
	if (rows)
		gtk_single_selection_set_selected(priv->selection, GTK_INVALID_LIST_POSITION);
	gtk_column_view_set_model(priv->columns, GTK_SELECTION_MODEL(priv->selection));
	g_object_unref(priv->selection);
	keys = gtk_shortcut_controller_new();
	gtk_shortcut_controller_add_shortcut(
	    GTK_SHORTCUT_CONTROLLER(keys),
	    gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_c, GDK_CONTROL_MASK),
	                     gtk_callback_action_new(copy_selected, self, NULL)));
	gtk_widget_add_controller(GTK_WIDGET(priv->columns), keys);
}

GtkColumnViewColumn *sa_table_view_get_column(SaTableView *self, guint i)
{
	SaTableViewPrivate *priv;
	g_autoptr(GtkColumnViewColumn) col = NULL;

	g_return_val_if_fail(SA_IS_TABLE_VIEW(self), NULL);
	priv = sa_table_view_get_instance_private(self);
	col = g_list_model_get_item(gtk_column_view_get_columns(priv->columns), i);
	/* Borrowed: the column view holds it. */
	return col;
}

GtkSingleSelection *sa_table_view_get_selection(SaTableView *self)
{
	g_return_val_if_fail(SA_IS_TABLE_VIEW(self), NULL);
	return ((SaTableViewPrivate *)sa_table_view_get_instance_private(self))->selection;
}

/* --- What the frame shows ------------------------------------------------------------ */

void sa_table_view_set_rows(SaTableView *self, gpointer *rows, guint n)
{
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);

	g_return_if_fail(priv->store);
	g_list_store_splice(priv->store, 0, g_list_model_get_n_items(G_LIST_MODEL(priv->store)), rows,
	                    n);
}

void sa_table_view_set_model(SaTableView *self, GListModel *model)
{
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);

	g_return_if_fail(priv->tree);
	gtk_single_selection_set_model(priv->selection, model);
	if (model)
		gtk_single_selection_set_selected(priv->selection, GTK_INVALID_LIST_POSITION);
}

void sa_table_view_set_caption(SaTableView *self, const char *text)
{
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);

	gtk_label_set_text(priv->caption, text);
	gtk_accessible_update_property(GTK_ACCESSIBLE(priv->columns),
	                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

void sa_table_view_set_busy(SaTableView *self, gboolean busy, const char *text)
{
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);

	gtk_widget_set_visible(GTK_WIDGET(priv->spinner), busy);
	gtk_spinner_set_spinning(priv->spinner, busy);
	if (busy && text)
		sa_table_view_set_caption(self, text);
}

void sa_table_view_set_message(SaTableView *self, const char *text, gboolean busy)
{
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);

	/* What a job would have shown is moot now. */
	tsd_cancel_clear(&priv->job);
	sa_table_view_set_busy(self, busy, NULL);
	if (priv->store)
		g_list_store_remove_all(priv->store);
	else
		sa_table_view_set_model(self, NULL);
	sa_table_view_set_caption(self, text);
}

/* --- The job ------------------------------------------------------------------------ */

GCancellable *sa_table_view_start_job(SaTableView *self, const char *text)
{
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);

	tsd_cancel_clear(&priv->job);
	priv->job = g_cancellable_new();
	sa_table_view_set_busy(self, TRUE, text);
	return priv->job;
}

gboolean sa_table_view_end_job(SaTableView *self, GAsyncResult *result)
{
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);

	if (!priv->job || g_task_get_cancellable(G_TASK(result)) != priv->job)
		return FALSE;
	g_clear_object(&priv->job);
	return TRUE;
}

/* --- GObject ------------------------------------------------------------------------ */

static void sa_table_view_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(SA_TABLE_VIEW(object));

	switch (id) {
	case PROP_TREE: g_value_set_boolean(value, priv->tree); break;
	case PROP_SORTED: g_value_set_boolean(value, priv->sorted); break;
	case PROP_WRAP_CAPTION: g_value_set_boolean(value, gtk_label_get_wrap(priv->caption)); break;
	default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void sa_table_view_set_property(GObject *object, guint id, const GValue *value,
                                 GParamSpec *pspec)
{
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(SA_TABLE_VIEW(object));

	switch (id) {
	case PROP_TITLE:
		gtk_accessible_update_property(GTK_ACCESSIBLE(priv->columns),
		                               GTK_ACCESSIBLE_PROPERTY_LABEL, g_value_get_string(value),
		                               -1);
		break;
	case PROP_TREE: priv->tree = g_value_get_boolean(value); break;
	case PROP_SORTED: priv->sorted = g_value_get_boolean(value); break;
	case PROP_WRAP_CAPTION: gtk_label_set_wrap(priv->caption, g_value_get_boolean(value)); break;
	default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void sa_table_view_dispose(GObject *object)
{
	SaTableView *self = SA_TABLE_VIEW(object);
	SaTableViewPrivate *priv = sa_table_view_get_instance_private(self);

	tsd_cancel_clear(&priv->job);
	g_clear_object(&priv->store);
	gtk_widget_dispose_template(GTK_WIDGET(self), SA_TYPE_TABLE_VIEW);
	G_OBJECT_CLASS(sa_table_view_parent_class)->dispose(object);
}

static void sa_table_view_class_init(SaTableViewClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
	/* Set by a subclass's template, which GTK applies in the subclass's
	 * init: before constructed, so not construct properties. */
	const GParamFlags flag = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS;

	object_class->constructed = sa_table_view_constructed;
	object_class->dispose = sa_table_view_dispose;
	object_class->get_property = sa_table_view_get_property;
	object_class->set_property = sa_table_view_set_property;
	props[PROP_TITLE] = g_param_spec_string("title", NULL, NULL, NULL,
	                                        G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS);
	props[PROP_TREE] = g_param_spec_boolean("tree", NULL, NULL, FALSE, flag);
	props[PROP_SORTED] = g_param_spec_boolean("sorted", NULL, NULL, FALSE, flag);
	props[PROP_WRAP_CAPTION] = g_param_spec_boolean("wrap-caption", NULL, NULL, FALSE, flag);
	g_object_class_install_properties(object_class, N_PROPS, props);
	column_quark = g_quark_from_static_string("sa-table-view-column");
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/SystemAnalyser/sa-table-view.ui");
	gtk_widget_class_bind_template_child_private(widget_class, SaTableView, box);
	gtk_widget_class_bind_template_child_private(widget_class, SaTableView, caption);
	gtk_widget_class_bind_template_child_private(widget_class, SaTableView, spinner);
	gtk_widget_class_bind_template_child_private(widget_class, SaTableView, columns);
	gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void sa_table_view_init(SaTableView *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
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
	(void)row;
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

int sa_label_row_collate(const SaLabelRow *a, const SaLabelRow *b, gboolean channel)
{
	/* By what is shown: collating whole 16 KiB names at every comparison
	 * would make a sort scale with their length. */
	int r = g_utf8_collate(channel ? a->shown_channel : a->shown,
	                       channel ? b->shown_channel : b->shown);

	return r < 0 ? GTK_ORDERING_SMALLER : r > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}
