/*
 * The Call Tree tab (sa-calltree-view.h): a GtkTreeListModel over one
 * small object per node of reportlib's call tree (the children of a node
 * are made when it is expanded), in the shared table frame (sa-table.h)
 * whose first column holds the expanders. Small trees open fully
 * expanded; large ones show their roots.
 */
#include "sa-calltree-view.h"

#include "sa-format.h"
#include "sa-table.h"

#include <tilescope/tsd-name.h>

/* Trees of at most this many nodes open expanded. */
#define EXPAND_NODES 500

/* --- A node ------------------------------------------------------------------------ */

#define SA_TYPE_CALL_ROW (sa_call_row_get_type())
G_DECLARE_FINAL_TYPE(SaCallRow, sa_call_row, SA, CALL_ROW, GObject)

struct _SaCallRow {
	GObject parent_instance;
	sa_call_tree *ct;
	size_t index;              /* into ct->tree->nodes */
	const char *name, *channel;/* borrowed from the trace (the document outlives the rows),
	                            * whole: cut when shown (tsd_name_cut) */
};

G_DEFINE_FINAL_TYPE(SaCallRow, sa_call_row, G_TYPE_OBJECT)

static void sa_call_row_finalize(GObject *object)
{
	sa_call_tree_unref(SA_CALL_ROW(object)->ct);
	G_OBJECT_CLASS(sa_call_row_parent_class)->finalize(object);
}

static void sa_call_row_class_init(SaCallRowClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = sa_call_row_finalize;
}

static void sa_call_row_init(SaCallRow *row)
{
	(void)row;
}

/* The context rows are made in: the tree and the trace's names. */
typedef struct row_maker {
	sa_call_tree *ct;
	tsr_trace *trace;
	const tsr_trace_channel *channels;
	size_t n_channels;
} row_maker;

static void row_maker_free(row_maker *m)
{
	sa_call_tree_unref(m->ct);
	g_free(m);
}

static SaCallRow *make_row(const row_maker *m, size_t i)
{
	SaCallRow *row = g_object_new(SA_TYPE_CALL_ROW, NULL);
	const tsr_trace_call_node *nd = &m->ct->tree->nodes[i];
	const char *name = tsr_trace_get_name(m->trace, nd->name);

	row->ct = sa_call_tree_ref(m->ct);
	row->index = i;
	row->name = name ? name : "?";
	row->channel = nd->channel < m->n_channels ? m->channels[nd->channel].name : "?";
	return row;
}

/* nodes[first .. first + n) as a list of rows. */
static GListModel *rows_of(const row_maker *m, size_t first, size_t n)
{
	GListStore *store = g_list_store_new(SA_TYPE_CALL_ROW);
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_object_unref);

	for (size_t i = 0; i < n; i++)
		g_ptr_array_add(rows, make_row(m, first + i));
	g_list_store_splice(store, 0, 0, rows->pdata, rows->len);
	return G_LIST_MODEL(store);
}

/* GtkTreeListModel's create function: a node's children, or NULL. */
static GListModel *children_of(gpointer item, gpointer data)
{
	SaCallRow *row = item;
	const tsr_trace_call_node *nd = &row->ct->tree->nodes[row->index];

	return nd->n_children ? rows_of(data, nd->first_child, nd->n_children) : NULL;
}

/* --- Columns --------------------------------------------------------------------------- */

typedef enum { COL_NAME, COL_CHANNEL, COL_COUNT, COL_INCL, COL_EXCL, COL_SHARE, N_COLS } column;

static const char *const col_titles[N_COLS] = {"Name", "Channel", "Count", "Inclusive",
                                               "Exclusive", "Of window"};

static char *cell_text(const SaCallRow *r, column c)
{
	const tsr_trace_call_node *nd = &r->ct->tree->nodes[r->index];
	uint64_t all = r->ct->tree->inclusive_ns;

	switch (c) {
	case COL_NAME: return tsd_name_cut(r->name);
	case COL_CHANNEL: return tsd_name_cut(r->channel);
	case COL_COUNT: return sa_format_count(nd->count);
	case COL_INCL: return sa_format_duration((double)nd->inclusive_ns);
	case COL_EXCL: return sa_format_duration((double)nd->exclusive_ns);
	case COL_SHARE:
		return g_strdup_printf("%.1f %%", all ? 100.0 * (double)nd->inclusive_ns / (double)all
		                                      : 0.0);
	default: return g_strdup("");
	}
}

/* The row as tab-separated fields for the clipboard, after a header
 * line: the whole name, the count and exact nanoseconds. `item`: the
 * tree's GtkTreeListRow. */
static char *copy_row(gpointer item)
{
	g_autoptr(SaCallRow) r = gtk_tree_list_row_get_item(item);
	const tsr_trace_call_node *nd;

	if (!r)
		return NULL;
	nd = &r->ct->tree->nodes[r->index];
	return g_strdup_printf("Name\tChannel\tCount\tInclusive (ns)\tExclusive (ns)\n"
	                       "%s\t%s\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT
	                       "\t%" G_GUINT64_FORMAT "\n",
	                       r->name, r->channel, (guint64)nd->count, (guint64)nd->inclusive_ns,
	                       (guint64)nd->exclusive_ns);
}

static void setup_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
	column c = (column)GPOINTER_TO_INT(data);
	GtkWidget *label = sa_table_new_cell(c > COL_CHANNEL, c == COL_NAME);

	(void)f;
	if (c == COL_NAME) {
		GtkWidget *expander = gtk_tree_expander_new();

		gtk_tree_expander_set_child(GTK_TREE_EXPANDER(expander), label);
		gtk_list_item_set_child(item, expander);
	} else {
		gtk_list_item_set_child(item, label);
	}
}

static void bind_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
	GtkTreeListRow *list_row = gtk_list_item_get_item(item);
	SaCallRow *row = gtk_tree_list_row_get_item(list_row);
	column c = (column)GPOINTER_TO_INT(data);
	g_autofree char *text = cell_text(row, c);
	GtkWidget *child = gtk_list_item_get_child(item);

	(void)f;
	if (c == COL_NAME) {
		gtk_tree_expander_set_list_row(GTK_TREE_EXPANDER(child), list_row);
		child = gtk_tree_expander_get_child(GTK_TREE_EXPANDER(child));
		{
			/* Whole in the tooltip, for the rows on screen only. */
			g_autofree char *full = tsd_name_clean(row->name);

			gtk_widget_set_tooltip_text(child, full);
		}
	}
	gtk_label_set_text(GTK_LABEL(child), text);
	if (c == COL_INCL || c == COL_EXCL) {
		/* The exact nanoseconds behind a rounded duration. */
		const tsr_trace_call_node *nd = &row->ct->tree->nodes[row->index];
		g_autofree char *exact =
		    sa_format_ns_exact(c == COL_INCL ? nd->inclusive_ns : nd->exclusive_ns);

		gtk_widget_set_tooltip_text(child, exact);
	}
	g_object_unref(row);
}

/* --- The view --------------------------------------------------------------------- */

struct _SaCallTreeView {
	GtkWidget parent_instance;
	sa_table table;          /* of G_TYPE_NONE: it shows a GtkTreeListModel */
};

G_DEFINE_FINAL_TYPE(SaCallTreeView, sa_call_tree_view, GTK_TYPE_WIDGET)

void sa_call_tree_view_set_tree(SaCallTreeView *self, SaDocument *doc, sa_call_tree *ct)
{
	tsr_trace *trace = doc ? sa_document_get_trace(doc) : NULL;
	GtkTreeListModel *model;
	row_maker *m;
	g_autofree char *window = NULL, *spans = NULL, *paths = NULL, *text = NULL;

	if (!ct || !trace) {
		sa_table_set_message(&self->table, "", FALSE);
		return;
	}
	sa_table_set_busy(&self->table, FALSE, NULL);
	m = g_new0(row_maker, 1);
	m->ct = sa_call_tree_ref(ct);
	m->trace = trace;
	tsr_trace_get_channels(&m->channels, &m->n_channels, trace);
	model = gtk_tree_list_model_new(rows_of(m, 0, ct->tree->n_roots), FALSE,
	                                ct->tree->n_nodes <= EXPAND_NODES, children_of, m,
	                                (GDestroyNotify)row_maker_free);
	sa_table_set_model(&self->table, G_LIST_MODEL(model));
	g_object_unref(model);
	window = sa_call_tree_describe_window(trace, ct->from_ns, ct->to_ns);
	spans = sa_format_count(ct->tree->spans);
	paths = sa_format_count(ct->tree->n_nodes);
	text = g_strdup_printf("%s: %s spans, %s paths", window, spans, paths);
	sa_table_set_caption(&self->table, text);
}

void sa_call_tree_view_set_busy(SaCallTreeView *self, gboolean busy)
{
	sa_table_set_busy(&self->table, busy, "Computing the call tree…");
}

void sa_call_tree_view_set_message(SaCallTreeView *self, const char *message)
{
	sa_table_set_message(&self->table, message, FALSE);
}

static void sa_call_tree_view_dispose(GObject *object)
{
	sa_table_dispose(&SA_CALL_TREE_VIEW(object)->table);
	G_OBJECT_CLASS(sa_call_tree_view_parent_class)->dispose(object);
}

static void sa_call_tree_view_class_init(SaCallTreeViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = sa_call_tree_view_dispose;
	gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
	/* A container, silent to a screen reader (GTK 4.8 would say its type
	 * name). */
	gtk_widget_class_set_accessible_role(GTK_WIDGET_CLASS(klass), GTK_ACCESSIBLE_ROLE_GENERIC);
}

static void sa_call_tree_view_init(SaCallTreeView *self)
{
	sa_table_init(&self->table, GTK_WIDGET(self), "Call Tree", G_TYPE_NONE, 0);
	sa_table_set_copy_func(&self->table, copy_row);
	for (int c = 0; c < N_COLS; c++) {
		GtkColumnViewColumn *col =
		    sa_table_add_column(&self->table, col_titles[c], c, G_CALLBACK(setup_cell),
		                        G_CALLBACK(bind_cell), NULL);

		if (c == COL_NAME)
			gtk_column_view_column_set_expand(col, TRUE);
	}
}

GtkWidget *sa_call_tree_view_new(void)
{
	return g_object_new(SA_TYPE_CALL_TREE_VIEW, NULL);
}
