/*
 * The Call Tree tab (sa-calltree-view.h): a GtkTreeListModel over one
 * small object per node of reportlib's call tree (the children of a node
 * are made when it is expanded), in the table both apps share (tsd-table.h) whose
 * first column holds the expanders. Small trees open fully expanded;
 * large ones show their roots. The tree shown is the "call-tree"
 * property, which the Flame Graph binds to (sa-window.ui).
 */
#include "sa-calltree-view.h"

#include "sa-format.h"

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

static char *cell_text(gpointer item, guint c, gpointer data)
{
	const SaCallRow *r = item;
	const tsr_trace_call_node *nd = &r->ct->tree->nodes[r->index];
	uint64_t all = r->ct->tree->inclusive_ns;

	switch ((column)c) {
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
 * line: the whole name, the count and exact nanoseconds. */
static char *copy_row(gpointer item, gpointer data)
{
	const SaCallRow *r = item;
	const tsr_trace_call_node *nd = &r->ct->tree->nodes[r->index];

	return g_strdup_printf("Name\tChannel\tCount\tInclusive (ns)\tExclusive (ns)\n"
	                       "%s\t%s\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT
	                       "\t%" G_GUINT64_FORMAT "\n",
	                       r->name, r->channel, (guint64)nd->count, (guint64)nd->inclusive_ns,
	                       (guint64)nd->exclusive_ns);
}

/* A name whole in its tooltip, a duration's exact nanoseconds, for the
 * rows on screen only. */
static void bind_cell(GtkWidget *label, gpointer item, guint c, gpointer data)
{
	const SaCallRow *row = item;
	const tsr_trace_call_node *nd = &row->ct->tree->nodes[row->index];

	if (c == COL_NAME) {
		g_autofree char *full = tsd_name_clean(row->name);

		gtk_widget_set_tooltip_text(label, full);
	} else if (c == COL_INCL || c == COL_EXCL) {
		g_autofree char *exact =
		    sa_format_ns_exact(c == COL_INCL ? nd->inclusive_ns : nd->exclusive_ns);

		gtk_widget_set_tooltip_text(label, exact);
	}
}

/* --- The view --------------------------------------------------------------------- */

struct _SaCallTreeView {
	SaTableView parent_instance;
	sa_call_tree *ct;        /* shown, or NULL: the "call-tree" property */
};

G_DEFINE_FINAL_TYPE(SaCallTreeView, sa_call_tree_view, SA_TYPE_TABLE_VIEW)

enum { PROP_0, PROP_CALL_TREE, N_PROPS };
static GParamSpec *props[N_PROPS];

static void set_tree(SaCallTreeView *self, sa_call_tree *ct)
{
	if (self->ct == ct)
		return;
	g_clear_pointer(&self->ct, sa_call_tree_unref);
	self->ct = ct ? sa_call_tree_ref(ct) : NULL;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_CALL_TREE]);
}

/* Shows `ct`. */
static void show_tree(SaCallTreeView *self, sa_call_tree *ct)
{
	tsr_trace *trace = sa_document_get_trace(ct->doc);
	GtkTreeListModel *model;
	row_maker *m;
	g_autofree char *window = NULL, *spans = NULL, *paths = NULL, *text = NULL;

	TsdTable *table = SA_TABLE(self);

	tsd_table_set_busy(table, FALSE, NULL);
	m = g_new0(row_maker, 1);
	m->ct = sa_call_tree_ref(ct);
	m->trace = trace;
	tsr_trace_get_channels(&m->channels, &m->n_channels, trace);
	model = gtk_tree_list_model_new(rows_of(m, 0, ct->tree->n_roots), FALSE,
	                                ct->tree->n_nodes <= EXPAND_NODES, children_of, m,
	                                (GDestroyNotify)row_maker_free);
	tsd_table_set_model(table, G_LIST_MODEL(model));
	g_object_unref(model);
	window = sa_call_tree_describe_window(trace, ct->from_ns, ct->to_ns);
	spans = sa_format_count(ct->tree->spans);
	paths = sa_format_count(ct->tree->n_nodes);
	text = g_strdup_printf("%s: %s spans, %s paths", window, spans, paths);
	tsd_table_set_caption(table, text);
	set_tree(self, ct);
}

static void on_tree_done(GObject *source, GAsyncResult *result, gpointer data)
{
	g_autoptr(SaCallTreeView) self = data;
	g_autoptr(GError) error = NULL;
	g_autoptr(sa_call_tree) ct = sa_call_tree_finish(result, &error);

	if (!tsd_table_end_job(SA_TABLE(self), result))
		return;
	if (ct) {
		show_tree(self, ct);
	} else {
		tsd_table_set_message(SA_TABLE(self), error->message, FALSE);
		set_tree(self, NULL);
	}
}

/* The call tree of the session's window, in a worker; the tree shown
 * (and the Flame Graph's) stays until the new one comes. */
static void update(SaView *view, SaSession *session)
{
	SaDocument *doc = session ? sa_session_get_document(session) : NULL;
	int64_t from, to;

	if (!doc) {
		tsd_table_set_message(SA_TABLE(view), "", FALSE);
		set_tree(SA_CALL_TREE_VIEW(view), NULL);
		return;
	}
	sa_session_get_window(session, &from, &to);
	sa_call_tree_async(doc, from, to,
	                   tsd_table_start_job(SA_TABLE(view), "Computing the call tree…"),
	                   on_tree_done, g_object_ref(view));
}

sa_call_tree *sa_call_tree_view_get_tree(SaCallTreeView *self)
{
	g_return_val_if_fail(SA_IS_CALL_TREE_VIEW(self), NULL);
	return self->ct;
}

static void sa_call_tree_view_get_property(GObject *object, guint id, GValue *value,
                                           GParamSpec *pspec)
{
	if (id == PROP_CALL_TREE)
		g_value_set_boxed(value, SA_CALL_TREE_VIEW(object)->ct);
	else
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

static void sa_call_tree_view_dispose(GObject *object)
{
	g_clear_pointer(&SA_CALL_TREE_VIEW(object)->ct, sa_call_tree_unref);
	G_OBJECT_CLASS(sa_call_tree_view_parent_class)->dispose(object);
}

static void sa_call_tree_view_class_init(SaCallTreeViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = sa_call_tree_view_dispose;
	G_OBJECT_CLASS(klass)->get_property = sa_call_tree_view_get_property;
	SA_VIEW_CLASS(klass)->watch = SA_VIEW_WATCH_DOCUMENT | SA_VIEW_WATCH_WINDOW;
	SA_VIEW_CLASS(klass)->update = update;
	props[PROP_CALL_TREE] = g_param_spec_boxed("call-tree", NULL, NULL, SA_TYPE_CALL_TREE,
	                                           G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
	g_object_class_install_properties(G_OBJECT_CLASS(klass), N_PROPS, props);
	gtk_widget_class_set_template_from_resource(
	    GTK_WIDGET_CLASS(klass), "/org/tilescope/SystemAnalyser/sa-calltree-view.ui");
}

static void sa_call_tree_view_init(SaCallTreeView *self)
{
	static const TsdTableCells cells = {.text = cell_text, .bind = bind_cell, .copy = copy_row};

	gtk_widget_init_template(GTK_WIDGET(self));
	tsd_table_set_cells(SA_TABLE(self), &cells, NULL);
}
