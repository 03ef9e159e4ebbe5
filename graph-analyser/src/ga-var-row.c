/*
 * A variable as a table row (ga-var-row.h).
 */
#include "ga-var-row.h"

#include "ga-figures.h"
#include "ga-format.h"

#include <tilescope/tsd-name.h>

G_DEFINE_FINAL_TYPE(GaVarRow, ga_var_row, G_TYPE_OBJECT)

enum { P_0, P_NAME, P_BYTES0, P_BYTES3 = P_BYTES0 + GA_VAR_ROW_BYTES - 1, P_CATEGORY, P_ALWAYS,
       P_LIFETIME, P_N };
static GParamSpec *props[P_N];

static void ga_var_row_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	GaVarRow *self = GA_VAR_ROW(object);

	if (id >= P_BYTES0 && id <= P_BYTES3) {
		g_value_set_uint64(value, self->bytes[id - P_BYTES0]);
		return;
	}
	switch (id) {
	case P_NAME:
		g_value_set_string(value, self->name);
		break;
	case P_CATEGORY:
		g_value_set_string(value, self->category);
		break;
	case P_ALWAYS:
		g_value_set_boolean(value, self->always_live);
		break;
	case P_LIFETIME:
		g_value_set_int64(value, self->lifetime);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void ga_var_row_finalize(GObject *object)
{
	GaVarRow *self = GA_VAR_ROW(object);

	g_free(self->name);
	g_free(self->category);
	g_clear_pointer(&self->doc, ga_document_unref);
	G_OBJECT_CLASS(ga_var_row_parent_class)->finalize(object);
}

static void ga_var_row_class_init(GaVarRowClass *klass)
{
	GObjectClass *oc = G_OBJECT_CLASS(klass);
	const GParamFlags f = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;
	static const char *const bytes_names[GA_VAR_ROW_BYTES] = {"bytes-0", "bytes-1", "bytes-2",
	                                                          "bytes-3"};

	oc->get_property = ga_var_row_get_property;
	oc->finalize = ga_var_row_finalize;
	props[P_NAME] = g_param_spec_string("name", NULL, NULL, NULL, f);
	for (guint i = 0; i < GA_VAR_ROW_BYTES; i++)
		props[P_BYTES0 + i] =
		    g_param_spec_uint64(bytes_names[i], NULL, NULL, 0, G_MAXUINT64, 0, f);
	props[P_CATEGORY] = g_param_spec_string("category", NULL, NULL, NULL, f);
	props[P_ALWAYS] = g_param_spec_boolean("always-live", NULL, NULL, FALSE, f);
	props[P_LIFETIME] = g_param_spec_int64("lifetime", NULL, NULL, -1, G_MAXINT64, -1, f);
	g_object_class_install_properties(oc, P_N, props);
}

static void ga_var_row_init(GaVarRow *self)
{
	self->lifetime = -1;
}

GaVarRow *ga_var_row_new(GaDocument *doc, const tsr_variable *v, size_t index)
{
	GaVarRow *row = g_object_new(GA_TYPE_VAR_ROW, NULL);

	row->index = (gint64)index;
	row->doc = doc ? ga_document_ref(doc) : NULL;
	row->full_name = doc ? v->name : NULL;
	row->name = v->name ? ga_format_name(v->name) : g_strdup("<anonymous>");
	row->category = g_strdup(tsr_category_name(v->mem_category) ? tsr_category_name(v->mem_category)
	                                                            : "");
	row->always_live = v->always_live;
	row->lifetime = !v->always_live && v->live_from >= 0 && v->live_to >= v->live_from
	                    ? v->live_to - v->live_from + 1
	                    : -1;
	return row;
}

void ga_var_row_set_bytes(GaVarRow *row, guint slot, guint64 bytes)
{
	g_return_if_fail(slot < GA_VAR_ROW_BYTES);
	row->bytes[slot] = bytes;
	row->has_bytes |= 1u << slot;
}

/* --- The tables' columns --------------------------------------------------------------- */

/* The name column's width, pixels: long names are cut to fit it. */
#define NAME_WIDTH 220

static const char *const bytes_props[GA_VAR_ROW_BYTES] = {"bytes-0", "bytes-1", "bytes-2",
                                                          "bytes-3"};

char *ga_var_row_dup_text(GaVarRow *row, GaVarColumn column, guint slot)
{
	switch (column) {
	case GA_VAR_COLUMN_NAME:
		return g_strdup(row->name);
	case GA_VAR_COLUMN_BYTES:
		if (slot >= GA_VAR_ROW_BYTES || !(row->has_bytes & (1u << slot)))
			return g_strdup("—");
		return ga_format_u64(row->bytes[slot]);
	case GA_VAR_COLUMN_CATEGORY:
		return g_strdup(row->category);
	case GA_VAR_COLUMN_ALWAYS_LIVE:
		return g_strdup(row->always_live ? "Yes" : "No");
	case GA_VAR_COLUMN_LIFETIME:
		return row->lifetime >= 0 ? ga_format_u64((guint64)row->lifetime)
		                          : g_strdup(row->always_live ? "all" : "—");
	}
	return g_strdup("");
}

/* The column's kind and slot, packed into the factory's user data. */
#define PACK(column, slot) GUINT_TO_POINTER(((guint)(column) << 4) | (slot))

static void bind_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer packed)
{
	GaVarRow *row = gtk_list_item_get_item(item);
	GtkLabel *l = GTK_LABEL(gtk_list_item_get_child(item));
	GaVarColumn column = GPOINTER_TO_UINT(packed) >> 4;
	g_autofree char *text = ga_var_row_dup_text(row, column, GPOINTER_TO_UINT(packed) & 15);

	(void)f;
	gtk_label_set_text(l, text);
	/* The whole name only for the rows on screen: binding is per visible
	 * row, not per variable. */
	if (column == GA_VAR_COLUMN_NAME)
		tsd_widget_set_name_tooltip(GTK_WIDGET(l), row->full_name);
}

GtkColumnViewColumn *ga_var_row_add_column(GtkColumnView *view, GaVarColumn column, guint slot,
                                           const char *title)
{
	static const char *const titles[] = {"Variable", NULL, "Category", "Always live",
	                                     "Lifetime (steps)"};
	static const char *const props_of[] = {"name", NULL, "category", "always-live", "lifetime"};
	gboolean numeric = column == GA_VAR_COLUMN_BYTES || column == GA_VAR_COLUMN_LIFETIME;
	GtkListItemFactory *f = gtk_signal_list_item_factory_new();
	GtkExpression *e;
	GtkSorter *sorter;
	GtkColumnViewColumn *col;

	g_return_val_if_fail(slot < GA_VAR_ROW_BYTES, NULL);
	e = gtk_property_expression_new(GA_TYPE_VAR_ROW, NULL,
	                                column == GA_VAR_COLUMN_BYTES ? bytes_props[slot]
	                                                              : props_of[column]);
	/* Yes after No: the boolean sorts as a number. */
	sorter = numeric || column == GA_VAR_COLUMN_ALWAYS_LIVE
	             ? GTK_SORTER(gtk_numeric_sorter_new(e))
	             : GTK_SORTER(gtk_string_sorter_new(e));
	g_signal_connect(f, "setup", G_CALLBACK(ga_cell_label_setup_cb), GINT_TO_POINTER(numeric));
	g_signal_connect(f, "bind", G_CALLBACK(bind_cell), PACK(column, slot));
	col = gtk_column_view_column_new(title ? title : titles[column], f);
	gtk_column_view_column_set_sorter(col, sorter);
	gtk_column_view_column_set_resizable(col, TRUE);
	if (column == GA_VAR_COLUMN_NAME) {
		gtk_column_view_column_set_expand(col, TRUE);
		gtk_column_view_column_set_fixed_width(col, NAME_WIDTH);
	}
	gtk_column_view_append_column(view, col);
	g_object_unref(sorter);
	g_object_unref(col);
	return col;
}

/* --- On the apps' table ------------------------------------------------------------- */

static char *cells_text(gpointer item, guint c, gpointer data)
{
	const GaVarColumnSpec *spec = data;

	return ga_var_row_dup_text(item, spec[c].column, spec[c].slot);
}

static void cells_bind(GtkWidget *label, gpointer item, guint c, gpointer data)
{
	const GaVarColumnSpec *spec = data;

	if (spec[c].column == GA_VAR_COLUMN_NAME)
		tsd_widget_set_name_tooltip(label, GA_VAR_ROW(item)->full_name);
}

/* The figures, as the property sorters of ga_var_row_add_column (the
 * texts sort by themselves: "No" before "Yes"). */
static int cells_compare(gconstpointer a, gconstpointer b, guint c, gpointer data)
{
	const GaVarColumnSpec *spec = data;
	const GaVarRow *x = a, *y = b;

	return spec[c].column == GA_VAR_COLUMN_BYTES
	           ? TSD_TABLE_ORDER(x->bytes[spec[c].slot], y->bytes[spec[c].slot])
	           : TSD_TABLE_ORDER(x->lifetime, y->lifetime);
}

const TsdTableCells ga_var_row_cells = {
    .text = cells_text, .bind = cells_bind, .compare = cells_compare};

void ga_var_row_clear_columns(GtkColumnView *view)
{
	GListModel *cols = gtk_column_view_get_columns(view);

	while (g_list_model_get_n_items(cols) > 0) {
		GtkColumnViewColumn *c = g_list_model_get_item(cols, 0);

		gtk_column_view_remove_column(view, c);
		g_object_unref(c);
	}
}
