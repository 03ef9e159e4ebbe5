/*
 * A variable as a row of the apps' table (ga-var-row.h).
 */
#include "ga-var-row.h"

#include "ga-format.h"

#include <tilescope/tsd-name.h>

G_DEFINE_FINAL_TYPE(GaVarRow, ga_var_row, G_TYPE_OBJECT)

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
	G_OBJECT_CLASS(klass)->finalize = ga_var_row_finalize;
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

/* --- On the apps' table ------------------------------------------------------------- */

/* The words of a cell, as every variable table writes them. */
static char *cells_text(gpointer item, guint c, gpointer data)
{
	const GaVarColumnSpec *spec = data;
	const GaVarRow *row = item;
	guint slot = spec[c].slot;

	switch (spec[c].column) {
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

static void cells_bind(GtkWidget *label, gpointer item, guint c, gpointer data)
{
	const GaVarColumnSpec *spec = data;

	if (spec[c].column == GA_VAR_COLUMN_NAME)
		tsd_widget_set_name_tooltip(label, GA_VAR_ROW(item)->full_name);
}

/* The figures (the texts sort by themselves: "No" before "Yes"). */
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
