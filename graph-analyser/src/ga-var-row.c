/*
 * A variable as a table row (ga-var-row.h).
 */
#include "ga-var-row.h"

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

void ga_var_row_bind_name(GaVarRow *row, GtkLabel *label)
{
	gtk_label_set_text(label, row->name);
	/* The whole name only for the rows on screen: binding is per visible
	 * row, not per variable. */
	tsd_widget_set_name_tooltip(GTK_WIDGET(label), row->full_name);
}
