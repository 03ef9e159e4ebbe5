/*
 * The apps' table (tsd-table.h): the frame built here (the desktop library
 * has no resources), the columns a view's template declares, their cells
 * and sorters made once the view gives its TsdTableCells, the model
 * chain (rows → search filter → column view's sort → selection), and the
 * one job in progress.
 */
#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-cancel.h>
#include <tilescope/tsd-settings.h>
#include <tilescope/tsd-table.h>

#include <string.h>

struct _TsdTable {
	GtkWidget parent_instance;
	GtkWidget *header, *scroll;
	GtkLabel *caption;
	GtkSpinner *spinner;
	GtkSearchEntry *search;         /* shown when "search" is set */
	GtkColumnView *view;
	GtkSingleSelection *selection; /* borrowed: the column view owns it */
	GListStore *store;             /* a flat table's rows; NULL for a tree */
	GtkCustomFilter *filter;       /* the search's, on a flat table */
	GtkFilterListModel *filtered;  /* by `filter` while a search is typed (borrowed) */
	const TsdTableCells *cells;
	gpointer data;
	gboolean tree, sorted, describe;
	GCancellable *job;             /* the job in progress, or NULL */
};

static void tsd_table_buildable_init(GtkBuildableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(TsdTable, tsd_table, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(GTK_TYPE_BUILDABLE, tsd_table_buildable_init))

enum { PROP_0, PROP_TITLE, PROP_TREE, PROP_SORTED, PROP_WRAP_CAPTION, PROP_DESCRIBE, PROP_SEARCH,
       N_PROPS };
static GParamSpec *props[N_PROPS];
static GQuark column_quark, figure_quark;
static GtkBuildableIface *parent_buildable;

/* --- Columns and cells ------------------------------------------------------------- */

/* A view template's <child type="column"> or <child type="figure">. */
static void tsd_table_add_child(GtkBuildable *buildable, GtkBuilder *builder, GObject *child,
                                const char *type)
{
	TsdTable *self = TSD_TABLE(buildable);

	if ((!g_strcmp0(type, "column") || !g_strcmp0(type, "figure")) &&
	    GTK_IS_COLUMN_VIEW_COLUMN(child)) {
		g_object_set_qdata(child, figure_quark, GINT_TO_POINTER(!g_strcmp0(type, "figure")));
		gtk_column_view_append_column(self->view, GTK_COLUMN_VIEW_COLUMN(child));
		return;
	}
	parent_buildable->add_child(buildable, builder, child, type);
}

static void tsd_table_buildable_init(GtkBuildableIface *iface)
{
	parent_buildable = g_type_interface_peek_parent(iface);
	iface->add_child = tsd_table_add_child;
}

static guint column_of(gpointer object)
{
	return GPOINTER_TO_UINT(g_object_get_qdata(G_OBJECT(object), column_quark));
}

static void setup_cell(GtkListItemFactory *f, GtkListItem *item, gpointer data)
{
	TsdTable *self = data;
	guint c = column_of(f);
	GtkColumnViewColumn *col = tsd_table_get_column(self, c);
	gboolean figure = GPOINTER_TO_INT(g_object_get_qdata(G_OBJECT(col), figure_quark));
	GtkWidget *label = self->cells->make ? self->cells->make(c, self->data) : NULL;

	if (label)
		goto made;
	label = gtk_label_new(NULL);
	gtk_label_set_xalign(GTK_LABEL(label), figure ? 1 : 0);
	gtk_label_set_ellipsize(GTK_LABEL(label), figure ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_END);
	if (figure)
		gtk_widget_add_css_class(label, "figure");
	tsd_a11y_quiet_when_empty(GTK_LABEL(label));
	/* Described by its column, read as text: "Total B", "1,234.567 µs".
	 * (GTK 4.8 names a label after its text whatever else names it.) */
	if (figure && self->describe)
		gtk_accessible_update_property(GTK_ACCESSIBLE(label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
		                               gtk_column_view_column_get_title(col), -1);
made:
	if (self->tree && c == 0) {
		GtkWidget *expander = gtk_tree_expander_new();

		gtk_tree_expander_set_child(GTK_TREE_EXPANDER(expander), label);
		gtk_list_item_set_child(item, expander);
	} else {
		gtk_list_item_set_child(item, label);
	}
}

static void bind_cell(GtkListItemFactory *f, GtkListItem *item, gpointer data)
{
	TsdTable *self = data;
	guint c = column_of(f);
	GtkWidget *label = gtk_list_item_get_child(item);
	gpointer row = gtk_list_item_get_item(item);
	g_autofree char *text = NULL;

	if (self->tree) {
		if (c == 0) {
			gtk_tree_expander_set_list_row(GTK_TREE_EXPANDER(label), row);
			label = gtk_tree_expander_get_child(GTK_TREE_EXPANDER(label));
		}
		row = gtk_tree_list_row_get_item(row);
		/* The row holds the node: the reference can go at once. */
		g_object_unref(row);
	}
	if (GTK_IS_LABEL(label)) {
		text = self->cells->text(row, c, self->data);
		gtk_label_set_text(GTK_LABEL(label), text);
	}
	if (self->cells->bind)
		self->cells->bind(label, row, c, self->data);
}

/* A column's sorter: the view's compare on the column's index. */
typedef struct sort_data {
	TsdTable *self;
	guint column;
} sort_data;

static int sort_by(gconstpointer a, gconstpointer b, gpointer data)
{
	const sort_data *s = data;

	return s->self->cells->compare(a, b, s->column, s->self->data);
}

/* A text column's sort key: its cell's text, which GtkStringSorter folds
 * (case ignored) and collates once per row, not at each comparison. */
static char *text_key(GObject *item, gpointer data)
{
	const sort_data *s = data;

	return s->self->cells->text(item, s->column, s->self->data);
}

static void free_key(gpointer data, GClosure *closure)
{
	(void)closure;
	g_free(data);
}

/* The search: rows whose first column contains the words typed. */
static gboolean search_match(gpointer item, gpointer data)
{
	TsdTable *self = data;
	const char *want = gtk_editable_get_text(GTK_EDITABLE(self->search));
	g_autofree char *text = NULL, *folded = NULL, *key = NULL;

	text = self->cells->text(item, 0, self->data);
	folded = g_utf8_casefold(text, -1);
	key = g_utf8_casefold(want, -1);
	return strstr(folded, key) != NULL;
}

static void on_search_changed(GtkSearchEntry *entry, gpointer data)
{
	TsdTable *self = data;
	/* No filter while nothing is searched: a filter is asked about every
	 * row given (a third of a second for 120,000 rows). */
	GtkFilter *want = *gtk_editable_get_text(GTK_EDITABLE(entry)) ? GTK_FILTER(self->filter) : NULL;

	if (gtk_filter_list_model_get_filter(self->filtered) != want)
		gtk_filter_list_model_set_filter(self->filtered, want);
	else if (want)
		gtk_filter_changed(want, GTK_FILTER_CHANGE_DIFFERENT);
}

/* In a tree, Left on an expanded row collapses it and Right on a
 * collapsed one expands it (the focus is on the row, not its expander). */
static gboolean on_tree_key(GtkEventControllerKey *ctl, guint keyval, guint keycode,
                            GdkModifierType state, gpointer data)
{
	TsdTable *self = data;
	GtkTreeListRow *row = gtk_single_selection_get_selected_item(self->selection);
	gboolean right = keyval == GDK_KEY_Right || keyval == GDK_KEY_KP_Right;

	(void)ctl;
	(void)keycode;
	if (!row || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SHIFT_MASK)) ||
	    (!right && keyval != GDK_KEY_Left && keyval != GDK_KEY_KP_Left) ||
	    (right && !gtk_tree_list_row_is_expandable(row)) ||
	    gtk_tree_list_row_get_expanded(row) == right)
		return FALSE;
	gtk_tree_list_row_set_expanded(row, right);
	return TRUE;
}

/* Ctrl+C: the selected row, as the view writes it, on the clipboard. */
static gboolean copy_selected(GtkWidget *widget, GVariant *args, gpointer data)
{
	TsdTable *self = data;
	gpointer row = gtk_single_selection_get_selected_item(self->selection);
	g_autofree char *text = NULL;

	(void)args;
	if (row && self->tree)
		row = gtk_tree_list_row_get_item(row), g_object_unref(row);
	if (!row)
		return FALSE;
	if (self->cells->copy) {
		text = self->cells->copy(row, self->data);
	} else {
		GListModel *columns = gtk_column_view_get_columns(self->view);
		guint n = g_list_model_get_n_items(columns);
		GString *head = g_string_new(NULL), *line = g_string_new(NULL);

		for (guint i = 0; i < n; i++) {
			GtkColumnViewColumn *col = tsd_table_get_column(self, i);
			const char *sep = head->len ? "\t" : "";
			g_autofree char *cell = NULL;

			/* What the table shows: not a column chosen away. */
			if (!gtk_column_view_column_get_visible(col))
				continue;
			cell = self->cells->text(row, i, self->data);
			g_string_append_printf(head, "%s%s", sep, gtk_column_view_column_get_title(col));
			g_string_append_printf(line, "%s%s", sep, cell);
		}
		text = g_strdup_printf("%s\n%s\n", head->str, line->str);
		g_string_free(head, TRUE);
		g_string_free(line, TRUE);
	}
	gdk_clipboard_set_text(gtk_widget_get_clipboard(widget), text);
	return TRUE;
}

void tsd_table_set_cells(TsdTable *self, const TsdTableCells *cells, gpointer data)
{
	GListModel *columns = gtk_column_view_get_columns(self->view);
	GListModel *rows = NULL;
	GtkEventController *keys;

	g_return_if_fail(TSD_IS_TABLE(self) && cells && cells->text && !self->cells);
	self->cells = cells;
	self->data = data;
	for (guint i = 0; i < g_list_model_get_n_items(columns); i++) {
		g_autoptr(GtkColumnViewColumn) col = g_list_model_get_item(columns, i);
		GtkListItemFactory *f = gtk_signal_list_item_factory_new();

		g_object_set_qdata(G_OBJECT(f), column_quark, GUINT_TO_POINTER(i));
		g_signal_connect(f, "setup", G_CALLBACK(setup_cell), self);
		g_signal_connect(f, "bind", G_CALLBACK(bind_cell), self);
		gtk_column_view_column_set_factory(col, f);
		g_object_unref(f);
		gtk_column_view_column_set_resizable(col, TRUE);
		if (cells->compare) {
			sort_data *s = g_new(sort_data, 1);
			g_autoptr(GtkSorter) sorter = NULL;

			s->self = self;
			s->column = i;
			if (g_object_get_qdata(G_OBJECT(col), figure_quark))
				sorter = GTK_SORTER(gtk_custom_sorter_new(sort_by, s, g_free));
			else
				sorter = GTK_SORTER(gtk_string_sorter_new(gtk_cclosure_expression_new(
				    G_TYPE_STRING, NULL, 0, NULL, G_CALLBACK(text_key), s, free_key)));
			gtk_column_view_column_set_sorter(col, sorter);
		}
	}
	if (!self->tree) {
		self->store = g_list_store_new(G_TYPE_OBJECT);
		self->filter = gtk_custom_filter_new(search_match, self, NULL);
		self->filtered = gtk_filter_list_model_new(G_LIST_MODEL(g_object_ref(self->store)), NULL);
		rows = G_LIST_MODEL(self->filtered);
		if (self->sorted)
			rows = G_LIST_MODEL(gtk_sort_list_model_new(
			    rows, g_object_ref(gtk_column_view_get_sorter(self->view))));
	}
	self->selection = gtk_single_selection_new(rows);
	/* Nothing chosen until the user picks a row. */
	gtk_single_selection_set_autoselect(self->selection, FALSE);
	gtk_single_selection_set_can_unselect(self->selection, TRUE);
	if (rows)
		gtk_single_selection_set_selected(self->selection, GTK_INVALID_LIST_POSITION);
	gtk_column_view_set_model(self->view, GTK_SELECTION_MODEL(self->selection));
	g_object_unref(self->selection);
	keys = gtk_shortcut_controller_new();
	gtk_shortcut_controller_add_shortcut(
	    GTK_SHORTCUT_CONTROLLER(keys),
	    gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_c, GDK_CONTROL_MASK),
	                     gtk_callback_action_new(copy_selected, self, NULL)));
	gtk_widget_add_controller(GTK_WIDGET(self->view), keys);
	if (self->tree) {
		keys = gtk_event_controller_key_new();
		gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE);
		g_signal_connect(keys, "key-pressed", G_CALLBACK(on_tree_key), self);
		gtk_widget_add_controller(GTK_WIDGET(self->view), keys);
	}
}

GtkColumnViewColumn *tsd_table_get_column(TsdTable *self, guint i)
{
	g_autoptr(GtkColumnViewColumn) col = NULL;

	g_return_val_if_fail(TSD_IS_TABLE(self), NULL);
	col = g_list_model_get_item(gtk_column_view_get_columns(self->view), i);
	/* Borrowed: the column view holds it. */
	return col;
}

void tsd_table_sort_by(TsdTable *self, guint i, GtkSortType order)
{
	gtk_column_view_sort_by_column(self->view, tsd_table_get_column(self, i), order);
}

GtkColumnView *tsd_table_get_view(TsdTable *self)
{
	g_return_val_if_fail(TSD_IS_TABLE(self), NULL);
	return self->view;
}

GtkSingleSelection *tsd_table_get_selection(TsdTable *self)
{
	g_return_val_if_fail(TSD_IS_TABLE(self), NULL);
	return self->selection;
}

/* --- What the frame shows ------------------------------------------------------------ */

/* The header line only when it has something to show (its margins
 * would otherwise be an empty strip). */
static void show_header(TsdTable *self)
{
	gtk_widget_set_visible(self->header,
	                       *gtk_label_get_text(self->caption) ||
	                           gtk_widget_get_visible(GTK_WIDGET(self->spinner)) ||
	                           gtk_widget_get_visible(GTK_WIDGET(self->search)) ||
	                           gtk_widget_get_next_sibling(GTK_WIDGET(self->caption)) !=
	                               GTK_WIDGET(self->search));
}

void tsd_table_add_header(TsdTable *self, GtkWidget *widget)
{
	gtk_box_insert_child_after(GTK_BOX(self->header), widget, GTK_WIDGET(self->caption));
	show_header(self);
}

void tsd_table_add_chooser(TsdTable *self, GSettings *settings, const char *key)
{
	GListModel *columns = gtk_column_view_get_columns(self->view);
	guint n = g_list_model_get_n_items(columns);
	g_autofree GtkColumnViewColumn **cols = g_new(GtkColumnViewColumn *, n ? n : 1);
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
	GtkWidget *popover = gtk_popover_new(), *button = gtk_menu_button_new();

	g_return_if_fail(TSD_IS_TABLE(self));
	for (guint i = 0; i < n; i++) {
		GtkWidget *check;

		cols[i] = tsd_table_get_column(self, i);
		check = gtk_check_button_new_with_label(gtk_column_view_column_get_title(cols[i]));
		g_object_bind_property(cols[i], "visible", check, "active",
		                       G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
		gtk_widget_set_sensitive(check, i > 0);
		gtk_box_append(GTK_BOX(box), check);
	}
	tsd_settings_remember_columns(cols, n, settings, key);
	gtk_popover_set_child(GTK_POPOVER(popover), box);
	gtk_menu_button_set_popover(GTK_MENU_BUTTON(button), popover);
	gtk_menu_button_set_label(GTK_MENU_BUTTON(button), "Columns");
	gtk_widget_set_tooltip_text(button, "Choose the columns shown");
	/* Named itself: GTK 4.8 names only the button inside it. */
	gtk_accessible_update_property(GTK_ACCESSIBLE(button), GTK_ACCESSIBLE_PROPERTY_LABEL, "Columns",
	                               -1);
	gtk_box_insert_child_after(GTK_BOX(self->header), button,
	                           gtk_widget_get_prev_sibling(GTK_WIDGET(self->search)));
	show_header(self);
}

void tsd_table_set_rows(TsdTable *self, gpointer *rows, guint n)
{
	g_return_if_fail(TSD_IS_TABLE(self) && self->store);
	g_list_store_splice(self->store, 0, g_list_model_get_n_items(G_LIST_MODEL(self->store)), rows,
	                    n);
}

void tsd_table_set_model(TsdTable *self, GListModel *model)
{
	g_return_if_fail(TSD_IS_TABLE(self) && self->tree);
	gtk_single_selection_set_model(self->selection, model);
	if (model)
		gtk_single_selection_set_selected(self->selection, GTK_INVALID_LIST_POSITION);
}

void tsd_table_set_caption(TsdTable *self, const char *text)
{
	g_return_if_fail(TSD_IS_TABLE(self));
	gtk_label_set_text(self->caption, text);
	show_header(self);
	gtk_accessible_update_property(GTK_ACCESSIBLE(self->view), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
	                               text, -1);
}

void tsd_table_set_busy(TsdTable *self, gboolean busy, const char *text)
{
	g_return_if_fail(TSD_IS_TABLE(self));
	gtk_widget_set_visible(GTK_WIDGET(self->spinner), busy);
	gtk_spinner_set_spinning(self->spinner, busy);
	show_header(self);
	if (busy && text)
		tsd_table_set_caption(self, text);
}

void tsd_table_set_message(TsdTable *self, const char *text, gboolean busy)
{
	g_return_if_fail(TSD_IS_TABLE(self));
	/* What a job would have shown is moot now. */
	tsd_cancel_clear(&self->job);
	tsd_table_set_busy(self, busy, NULL);
	if (self->store)
		g_list_store_remove_all(self->store);
	else if (self->selection)
		tsd_table_set_model(self, NULL);
	tsd_table_set_caption(self, text);
}

GCancellable *tsd_table_start_job(TsdTable *self, const char *text)
{
	g_return_val_if_fail(TSD_IS_TABLE(self), NULL);
	tsd_cancel_clear(&self->job);
	self->job = g_cancellable_new();
	tsd_table_set_busy(self, TRUE, text);
	return self->job;
}

gboolean tsd_table_end_job(TsdTable *self, GAsyncResult *result)
{
	/* NULL: the table of a view disposed while the job ran. */
	if (!self || !self->job || g_task_get_cancellable(G_TASK(result)) != self->job)
		return FALSE;
	g_clear_object(&self->job);
	return TRUE;
}

/* --- GObject ------------------------------------------------------------------------ */

static void tsd_table_set_property(GObject *object, guint id, const GValue *value,
                                   GParamSpec *pspec)
{
	TsdTable *self = TSD_TABLE(object);
	const char *s;

	switch (id) {
	case PROP_TITLE:
		gtk_accessible_update_property(GTK_ACCESSIBLE(self->view), GTK_ACCESSIBLE_PROPERTY_LABEL,
		                               g_value_get_string(value), -1);
		break;
	case PROP_TREE: self->tree = g_value_get_boolean(value); break;
	case PROP_SORTED: self->sorted = g_value_get_boolean(value); break;
	case PROP_WRAP_CAPTION: gtk_label_set_wrap(self->caption, g_value_get_boolean(value)); break;
	case PROP_DESCRIBE: self->describe = g_value_get_boolean(value); break;
	case PROP_SEARCH:
		s = g_value_get_string(value);
		g_object_set(self->search, "placeholder-text", s, NULL);
		gtk_accessible_update_property(GTK_ACCESSIBLE(self->search),
		                               GTK_ACCESSIBLE_PROPERTY_LABEL, s ? s : "", -1);
		gtk_widget_set_visible(GTK_WIDGET(self->search), s != NULL);
		show_header(self);
		break;
	default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void tsd_table_dispose(GObject *object)
{
	TsdTable *self = TSD_TABLE(object);

	tsd_cancel_clear(&self->job);
	g_clear_object(&self->store);
	g_clear_object(&self->filter);
	g_clear_pointer(&self->header, gtk_widget_unparent);
	g_clear_pointer(&self->scroll, gtk_widget_unparent);
	G_OBJECT_CLASS(tsd_table_parent_class)->dispose(object);
}

static void tsd_table_class_init(TsdTableClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	/* Set by a view's template before its columns: not construct
	 * properties, so that the frame exists when they are set. */
	const GParamFlags flag = G_PARAM_WRITABLE | G_PARAM_STATIC_STRINGS;

	object_class->dispose = tsd_table_dispose;
	object_class->set_property = tsd_table_set_property;
	props[PROP_TITLE] = g_param_spec_string("title", NULL, NULL, NULL, flag);
	props[PROP_TREE] = g_param_spec_boolean("tree", NULL, NULL, FALSE, flag);
	props[PROP_SORTED] = g_param_spec_boolean("sorted", NULL, NULL, FALSE, flag);
	props[PROP_WRAP_CAPTION] = g_param_spec_boolean("wrap-caption", NULL, NULL, FALSE, flag);
	props[PROP_DESCRIBE] = g_param_spec_boolean("describe-figures", NULL, NULL, FALSE, flag);
	/* The search entry's placeholder and name; NULL: no search. */
	props[PROP_SEARCH] = g_param_spec_string("search", NULL, NULL, NULL, flag);
	g_object_class_install_properties(object_class, N_PROPS, props);
	column_quark = g_quark_from_static_string("tsd-table-column");
	figure_quark = g_quark_from_static_string("tsd-table-figure");
	gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BOX_LAYOUT);
	/* A container, silent to a screen reader. */
	gtk_widget_class_set_accessible_role(GTK_WIDGET_CLASS(klass), GTK_ACCESSIBLE_ROLE_GENERIC);
}

static void tsd_table_init(TsdTable *self)
{
	GtkWidget *w = GTK_WIDGET(self);

	gtk_orientable_set_orientation(GTK_ORIENTABLE(gtk_widget_get_layout_manager(w)),
	                               GTK_ORIENTATION_VERTICAL);
	self->header = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
	gtk_widget_set_margin_start(self->header, 8);
	gtk_widget_set_margin_end(self->header, 8);
	gtk_widget_set_margin_top(self->header, 4);
	gtk_widget_set_margin_bottom(self->header, 4);
	self->spinner = GTK_SPINNER(gtk_spinner_new());
	gtk_widget_set_visible(GTK_WIDGET(self->spinner), FALSE);
	self->caption = GTK_LABEL(gtk_label_new(NULL));
	gtk_label_set_xalign(self->caption, 0);
	gtk_widget_set_hexpand(GTK_WIDGET(self->caption), TRUE);
	gtk_widget_add_css_class(GTK_WIDGET(self->caption), "dim-label");
	tsd_a11y_quiet_when_empty(self->caption);
	self->search = GTK_SEARCH_ENTRY(gtk_search_entry_new());
	gtk_widget_set_visible(GTK_WIDGET(self->search), FALSE);
	g_signal_connect(self->search, "search-changed", G_CALLBACK(on_search_changed), self);
	gtk_box_append(GTK_BOX(self->header), GTK_WIDGET(self->spinner));
	gtk_box_append(GTK_BOX(self->header), GTK_WIDGET(self->caption));
	gtk_box_append(GTK_BOX(self->header), GTK_WIDGET(self->search));
	gtk_widget_set_visible(self->header, FALSE);
	gtk_widget_set_parent(self->header, w);
	self->view = GTK_COLUMN_VIEW(gtk_column_view_new(NULL));
	gtk_column_view_set_show_column_separators(self->view, TRUE);
	gtk_widget_add_css_class(GTK_WIDGET(self->view), "data-table");
	self->scroll = gtk_scrolled_window_new();
	gtk_widget_set_vexpand(self->scroll, TRUE);
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(self->scroll), GTK_WIDGET(self->view));
	gtk_widget_set_parent(self->scroll, w);
}
