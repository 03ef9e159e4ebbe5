/*
 * The Operations view's compare page (ga-operations-compare.h). The
 * operations are gathered once from the comparison's deltas (three per
 * operation at most: cycles, memory, FLOPs); the filter on the path
 * rebuilds the sections a moment after typing stops, each showing its
 * first ROW_CAP rows in the comparison's order (by path).
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
	const char *path;            /* borrowed from the comparison */
	const tsr_delta *d[3];
	gboolean in_a, in_b;
} op_deltas;

typedef struct ops_page {
	GaDocument *a, *b;           /* refs; b keeps the comparison */
	GArray *ops;                 /* op_deltas, by path */
	GtkWidget *sections;
	GtkWidget *filter;
	guint timeout;
} ops_page;

static void ops_page_free(gpointer data)
{
	ops_page *p = data;

	if (p->timeout)
		g_source_remove(p->timeout);
	g_array_unref(p->ops);
	ga_document_unref(p->a);
	ga_document_unref(p->b);
	g_free(p);
}

static int by_path(gconstpointer x, gconstpointer y)
{
	return strcmp(((const op_deltas *)x)->path, ((const op_deltas *)y)->path);
}

/* Every operation of either report with its deltas. */
static void gather(ops_page *p, const tsr_comparison *cmp)
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

				g_array_append_val(p->ops, fresh);
				at = GUINT_TO_POINTER(p->ops->len);
				g_hash_table_insert(index, (gpointer)path, at);
			}
			o = &g_array_index(p->ops, op_deltas, GPOINTER_TO_UINT(at) - 1);
			o->d[m] = d;
			o->in_a = o->in_a || d->in_base;
			o->in_b = o->in_b || d->in_new;
		}
	}
	g_array_sort(p->ops, by_path);
}

static void add_section(ops_page *p, const char *title, const char *needle, gboolean want_a,
                        gboolean want_b)
{
	GtkWidget *content, *grid = ga_compare_grid_new("Operation", 3, titles, FALSE);
	size_t shown = 0, total = 0;

	for (guint i = 0; i < p->ops->len; i++) {
		const op_deltas *o = &g_array_index(p->ops, op_deltas, i);
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
	if (!total)
		return;
	if (total > shown) {
		g_autofree char *more =
		    g_strdup_printf("and %zu more: narrow the filter to see them", total - shown);

		ga_compare_grid_note(grid, more);
	}
	{
		g_autofree char *heading = g_strdup_printf("%s (%zu)", title, total);

		gtk_box_append(GTK_BOX(p->sections), ga_section_new(heading, TRUE, &content));
	}
	gtk_accessible_update_property(GTK_ACCESSIBLE(grid), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
	gtk_box_append(GTK_BOX(content), grid);
}

static void fill(ops_page *p)
{
	g_autofree char *needle = g_utf8_casefold(gtk_editable_get_text(GTK_EDITABLE(p->filter)), -1);
	GtkWidget *child;

	while ((child = gtk_widget_get_first_child(p->sections)))
		gtk_box_remove(GTK_BOX(p->sections), child);
	if (!p->ops->len) {
		gtk_box_append(GTK_BOX(p->sections),
		               ga_note_new("Neither report has operations (debug contexts)."));
		return;
	}
	add_section(p, "In both", needle, TRUE, TRUE);
	add_section(p, "Only in A", needle, TRUE, FALSE);
	add_section(p, "Only in B", needle, FALSE, TRUE);
	if (!gtk_widget_get_first_child(p->sections))
		gtk_box_append(GTK_BOX(p->sections), ga_note_new("No operation matches the filter."));
}

static gboolean apply_filter(gpointer data)
{
	ops_page *p = data;

	p->timeout = 0;
	fill(p);
	return G_SOURCE_REMOVE;
}

static void on_filter_changed(GtkEditable *editable, gpointer data)
{
	ops_page *p = data;

	(void)editable;
	if (p->timeout)
		g_source_remove(p->timeout);
	p->timeout = g_timeout_add(150, apply_filter, p);
}

GtkWidget *ga_operations_compare_new(GaDocument *a, GaDocument *b)
{
	GtkWidget *scroller = gtk_scrolled_window_new();
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
	const tsr_comparison *cmp = ga_document_get_comparison(b);
	g_autofree char *heading = g_strdup_printf("Operations: %s vs %s", ga_document_get_title(a),
	                                           ga_document_get_title(b));
	GtkWidget *title = gtk_label_new(heading);
	ops_page *p = g_new0(ops_page, 1);

	p->a = ga_document_ref(a);
	p->b = ga_document_ref(b);
	p->ops = g_array_new(FALSE, FALSE, sizeof(op_deltas));
	g_object_set_data_full(G_OBJECT(box), "ga-compare-page", p, ops_page_free);
	if (cmp)
		gather(p, cmp);
	gtk_widget_set_margin_start(box, 24);
	gtk_widget_set_margin_end(box, 24);
	gtk_widget_set_margin_top(box, 18);
	gtk_widget_set_margin_bottom(box, 24);
	gtk_label_set_xalign(GTK_LABEL(title), 0);
	gtk_widget_add_css_class(title, "title-2");
	gtk_box_append(GTK_BOX(box), title);
	gtk_box_append(GTK_BOX(box),
	               ga_note_new("Operations are matched by their name path (a/b/c), as "
	                           "`tilescope diff` matches them; cycles and FLOPs of an average "
	                           "run of each program both ran, memory of their variables and "
	                           "vertices, all "
	                           "with their descendants'. Δ is B − A: green better, red worse."));
	p->filter = gtk_search_entry_new();
	gtk_accessible_update_property(GTK_ACCESSIBLE(p->filter), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Filter compared operations", -1);
	g_object_set(p->filter, "placeholder-text", "Filter operations", NULL);
	gtk_box_append(GTK_BOX(box), p->filter);
	p->sections = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12);
	gtk_box_append(GTK_BOX(box), p->sections);
	g_signal_connect(p->filter, "changed", G_CALLBACK(on_filter_changed), p);
	fill(p);
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroller), box);
	gtk_widget_set_vexpand(scroller, TRUE);
	return scroller;
}
