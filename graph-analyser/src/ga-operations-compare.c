/*
 * The Operations view's compare page (ga-operations-compare.h). The
 * operations are gathered from report B's comparison when report B
 * changes (three deltas per operation at most: cycles, memory, FLOPs);
 * the filter on the path refills the sections a moment after typing
 * stops, each showing its first ROW_CAP rows in the comparison's order
 * (by path). The widgets are declared in ga-operations-compare.ui.
 */
#include "ga-operations-compare.h"

#include "ga-compare-grid.h"
#include "ga-figures.h"

#include <string.h>

#define ROW_CAP 100

/* The three figures compared per operation, in column order. */
static const char *const prefixes[] = {"cycles.operation.", "memory.operation.",
                                       "flops.operation."};
static const char *const titles[] = {"Cycles", "Memory", "FLOPs"};

typedef struct op_deltas {
	const char *path;            /* borrowed from report B's comparison */
	const tsr_delta *d[3];
	gboolean in_a, in_b;
} op_deltas;

struct _GaOperationsCompare {
	GtkWidget parent_instance;
	GaDocument *a, *b;           /* refs, or NULL; b keeps the comparison */
	GArray *ops;                 /* op_deltas, by path */
	guint timeout;               /* applies the filter a moment after typing stops */
	/* From the template (ga-operations-compare.ui). */
	GtkWidget *scroller;         /* the one child */
	GtkEditable *filter;
	GtkWidget *sections;
};

G_DEFINE_FINAL_TYPE(GaOperationsCompare, ga_operations_compare, GTK_TYPE_WIDGET)

enum { PROP_0, PROP_DOCUMENT, PROP_COMPARE_DOCUMENT, N_PROPS };
static GParamSpec *props[N_PROPS];

static int by_path(gconstpointer x, gconstpointer y)
{
	return strcmp(((const op_deltas *)x)->path, ((const op_deltas *)y)->path);
}

/* Every operation of either report with its deltas. */
static void gather(GaOperationsCompare *self, const tsr_comparison *cmp)
{
	g_autoptr(GHashTable) index = g_hash_table_new(g_str_hash, g_str_equal);
	size_t n = tsr_comparison_get_count(cmp);

	for (size_t i = 0; i < n; i++) {
		const tsr_delta *d = tsr_comparison_get_delta(cmp, i);

		for (guint m = 0; m < G_N_ELEMENTS(prefixes); m++) {
			const char *path;
			gpointer at;
			op_deltas *o;

			if (!g_str_has_prefix(d->metric, prefixes[m]))
				continue;
			path = d->metric + strlen(prefixes[m]);
			if (!g_hash_table_lookup_extended(index, path, NULL, &at)) {
				op_deltas fresh = {path, {NULL, NULL, NULL}, FALSE, FALSE};

				g_array_append_val(self->ops, fresh);
				at = GUINT_TO_POINTER(self->ops->len);
				g_hash_table_insert(index, (gpointer)path, at);
			}
			o = &g_array_index(self->ops, op_deltas, GPOINTER_TO_UINT(at) - 1);
			o->d[m] = d;
			o->in_a = o->in_a || d->in_base;
			o->in_b = o->in_b || d->in_new;
		}
	}
	g_array_sort(self->ops, by_path);
}

static void add_section(GaOperationsCompare *self, const char *title, const char *needle,
                        gboolean want_a, gboolean want_b)
{
	GtkWidget *content, *grid = ga_compare_grid_new("Operation", 3, titles, FALSE);
	size_t shown = 0, total = 0;

	for (guint i = 0; i < self->ops->len; i++) {
		const op_deltas *o = &g_array_index(self->ops, op_deltas, i);
		g_autofree char *folded = NULL;

		if (o->in_a != want_a || o->in_b != want_b)
			continue;
		if (*needle) {
			folded = g_utf8_casefold(o->path, -1);
			if (!strstr(folded, needle))
				continue;
		}
		total++;
		if (shown < ROW_CAP) {
			ga_compare_grid_add(grid, o->path, o->d);
			shown++;
		}
	}
	if (!total) {
		g_object_ref_sink(grid);
		g_object_unref(grid);
		return;
	}
	if (total > shown) {
		g_autofree char *more =
		    g_strdup_printf("and %zu more: narrow the filter to see them", total - shown);

		ga_compare_grid_note(grid, more);
	}
	{
		g_autofree char *heading = g_strdup_printf("%s (%zu)", title, total);

		gtk_box_append(GTK_BOX(self->sections), ga_section_new(heading, TRUE, &content));
	}
	gtk_accessible_update_property(GTK_ACCESSIBLE(grid), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
	gtk_box_append(GTK_BOX(content), grid);
}

/* The sections for the filter's text; none without report B. */
static void fill(GaOperationsCompare *self)
{
	g_autofree char *needle = g_utf8_casefold(gtk_editable_get_text(self->filter), -1);
	GtkWidget *child;

	while ((child = gtk_widget_get_first_child(self->sections)))
		gtk_box_remove(GTK_BOX(self->sections), child);
	if (!self->b)
		return;
	if (!self->ops->len) {
		gtk_box_append(GTK_BOX(self->sections),
		               ga_note_new("Neither report has operations (debug contexts)."));
		return;
	}
	add_section(self, "In both", needle, TRUE, TRUE);
	add_section(self, "Only in A", needle, TRUE, FALSE);
	add_section(self, "Only in B", needle, FALSE, TRUE);
	if (!gtk_widget_get_first_child(self->sections))
		gtk_box_append(GTK_BOX(self->sections), ga_note_new("No operation matches the filter."));
}

static gboolean apply_filter(gpointer data)
{
	GaOperationsCompare *self = data;

	self->timeout = 0;
	fill(self);
	return G_SOURCE_REMOVE;
}

static void on_filter_changed(GtkEditable *editable, gpointer data)
{
	GaOperationsCompare *self = data;

	(void)editable;
	g_clear_handle_id(&self->timeout, g_source_remove);
	self->timeout = g_timeout_add(150, apply_filter, self);
}

/* The page's title: "Operations: A vs B". */
static char *compare_title(gpointer page, GaDocument *a, GaDocument *b)
{
	(void)page;
	if (!a || !b)
		return g_strdup("");
	return g_strdup_printf("Operations: %s vs %s", ga_document_get_title(a),
	                       ga_document_get_title(b));
}

/* Report B (and its comparison) changed: the operations again, the
 * filter cleared. */
static void set_compare_document(GaOperationsCompare *self, GaDocument *b)
{
	const tsr_comparison *cmp;

	if (b == self->b)
		return;
	g_clear_pointer(&self->b, ga_document_unref);
	self->b = b ? ga_document_ref(b) : NULL;
	g_array_set_size(self->ops, 0);
	cmp = ga_document_get_comparison(b);
	if (cmp)
		gather(self, cmp);
	g_signal_handlers_block_by_func(self->filter, on_filter_changed, self);
	gtk_editable_set_text(self->filter, "");
	g_signal_handlers_unblock_by_func(self->filter, on_filter_changed, self);
	g_clear_handle_id(&self->timeout, g_source_remove);
	fill(self);
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_COMPARE_DOCUMENT]);
}

static void ga_operations_compare_get_property(GObject *object, guint id, GValue *value,
                                               GParamSpec *pspec)
{
	GaOperationsCompare *self = GA_OPERATIONS_COMPARE(object);

	switch (id) {
	case PROP_DOCUMENT:
		g_value_set_boxed(value, self->a);
		break;
	case PROP_COMPARE_DOCUMENT:
		g_value_set_boxed(value, self->b);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void ga_operations_compare_set_property(GObject *object, guint id, const GValue *value,
                                               GParamSpec *pspec)
{
	GaOperationsCompare *self = GA_OPERATIONS_COMPARE(object);
	GaDocument *doc = g_value_get_boxed(value);

	switch (id) {
	case PROP_DOCUMENT:
		if (doc == self->a)
			return;
		g_clear_pointer(&self->a, ga_document_unref);
		self->a = doc ? ga_document_ref(doc) : NULL;
		g_object_notify_by_pspec(object, pspec);
		break;
	case PROP_COMPARE_DOCUMENT:
		set_compare_document(self, doc);
		break;
	default:
		G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void ga_operations_compare_dispose(GObject *object)
{
	GaOperationsCompare *self = GA_OPERATIONS_COMPARE(object);

	g_clear_handle_id(&self->timeout, g_source_remove);
	gtk_widget_dispose_template(GTK_WIDGET(self), GA_TYPE_OPERATIONS_COMPARE);
	G_OBJECT_CLASS(ga_operations_compare_parent_class)->dispose(object);
}

static void ga_operations_compare_finalize(GObject *object)
{
	GaOperationsCompare *self = GA_OPERATIONS_COMPARE(object);

	g_array_unref(self->ops);
	g_clear_pointer(&self->a, ga_document_unref);
	g_clear_pointer(&self->b, ga_document_unref);
	G_OBJECT_CLASS(ga_operations_compare_parent_class)->finalize(object);
}

static void ga_operations_compare_class_init(GaOperationsCompareClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);
	const GParamFlags flags =
	    G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

	object_class->get_property = ga_operations_compare_get_property;
	object_class->set_property = ga_operations_compare_set_property;
	object_class->dispose = ga_operations_compare_dispose;
	object_class->finalize = ga_operations_compare_finalize;
	props[PROP_DOCUMENT] =
	    g_param_spec_boxed("document", NULL, NULL, GA_TYPE_DOCUMENT, flags);
	props[PROP_COMPARE_DOCUMENT] =
	    g_param_spec_boxed("compare-document", NULL, NULL, GA_TYPE_DOCUMENT, flags);
	g_object_class_install_properties(object_class, N_PROPS, props);

	gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
	/* A container, silent to a screen reader (GTK 4.8 would say its type
	 * name). */
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GENERIC);
	gtk_widget_class_set_template_from_resource(
	    widget_class, "/org/tilescope/GraphAnalyser/ga-operations-compare.ui");
	gtk_widget_class_bind_template_child(widget_class, GaOperationsCompare, scroller);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsCompare, filter);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsCompare, sections);
	gtk_widget_class_bind_template_callback(widget_class, on_filter_changed);
	gtk_widget_class_bind_template_callback(widget_class, compare_title);
}

static void ga_operations_compare_init(GaOperationsCompare *self)
{
	self->ops = g_array_new(FALSE, FALSE, sizeof(op_deltas));
	gtk_widget_init_template(GTK_WIDGET(self));
}
