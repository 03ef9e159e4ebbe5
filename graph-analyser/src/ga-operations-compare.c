/*
 * The Operations view's compare sections (ga-operations-compare.h). The
 * operations are gathered from report B's comparison at each fill (three
 * deltas per operation at most: cycles, memory, FLOPs; a pass over the
 * deltas), each section showing its first ROW_CAP rows in the
 * comparison's order (by path).
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

static int by_path(gconstpointer x, gconstpointer y)
{
	return strcmp(((const op_deltas *)x)->path, ((const op_deltas *)y)->path);
}

/* Every operation of either report with its deltas, into `ops`. */
static void gather(GArray *ops, const tsr_comparison *cmp)
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

				g_array_append_val(ops, fresh);
				at = GUINT_TO_POINTER(ops->len);
				g_hash_table_insert(index, (gpointer)path, at);
			}
			o = &g_array_index(ops, op_deltas, GPOINTER_TO_UINT(at) - 1);
			o->d[m] = d;
			o->in_a = o->in_a || d->in_base;
			o->in_b = o->in_b || d->in_new;
		}
	}
	g_array_sort(ops, by_path);
}

static void add_section(GtkWidget *sections, const GArray *ops, const char *title,
                        const char *needle, gboolean want_a, gboolean want_b)
{
	GtkWidget *content, *grid = ga_compare_grid_new("Operation", 3, titles, FALSE);
	size_t shown = 0, total = 0;

	for (guint i = 0; i < ops->len; i++) {
		const op_deltas *o = &g_array_index(ops, op_deltas, i);
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

		gtk_box_append(GTK_BOX(sections), ga_section_new(heading, TRUE, &content));
	}
	gtk_accessible_update_property(GTK_ACCESSIBLE(grid), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
	gtk_box_append(GTK_BOX(content), grid);
}

void ga_operations_compare_fill(GtkWidget *sections, GaDocument *b, const char *filter)
{
	g_autofree char *needle = g_utf8_casefold(filter ? filter : "", -1);
	const tsr_comparison *cmp = ga_document_get_comparison(b);
	g_autoptr(GArray) ops = g_array_new(FALSE, FALSE, sizeof(op_deltas));
	GtkWidget *child;

	while ((child = gtk_widget_get_first_child(sections)))
		gtk_box_remove(GTK_BOX(sections), child);
	if (!cmp)
		return;
	gather(ops, cmp);
	if (!ops->len) {
		gtk_box_append(GTK_BOX(sections),
		               ga_note_new("Neither report has operations (debug contexts)."));
		return;
	}
	add_section(sections, ops, "In both", needle, TRUE, TRUE);
	add_section(sections, ops, "Only in A", needle, TRUE, FALSE);
	add_section(sections, ops, "Only in B", needle, FALSE, TRUE);
	if (!gtk_widget_get_first_child(sections))
		gtk_box_append(GTK_BOX(sections), ga_note_new("No operation matches the filter."));
}
