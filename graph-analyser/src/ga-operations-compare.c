/*
 * The Operations view's compare sections (ga-operations-compare.h). The
 * operations are gathered from report B's comparison at each fill (three
 * deltas per operation at most: cycles, memory, FLOPs; a pass over the
 * deltas) and sorted by the column chosen, each section showing its
 * first ROW_CAP rows. What the menus chose, and the last fill's report
 * and filter (to fill again on a choice), live on the sections box.
 */
#include "ga-operations-compare.h"

#include "ga-compare-grid.h"
#include "ga-figures.h"

#include <tilescope/tsd-widget.h>

#include <string.h>

#define ROW_CAP 100

/* The three figures compared per operation, in column order. */
static const char *const prefixes[] = {"cycles.operation.", "memory.operation.",
                                       "flops.operation."};
static const char *const titles[] = {"Cycles", "Memory", "FLOPs"};

/* The menus' choices and the last fill (on the sections box). */
typedef struct compare_state {
	GtkWidget *sections;
	GtkMenuButton *sort_button;
	GaDocument *b;            /* the last fill's (a reference), NULL: none */
	char *filter;             /* the last fill's */
	guint sort;               /* column: 0 the path, 1 + 3 m + p metric m's A, B, Δ */
	gboolean descending;
	gboolean shown[3];        /* metrics shown */
} compare_state;

typedef struct op_deltas {
	const char *path;            /* borrowed from report B's comparison */
	const tsr_delta *d[3];
	gboolean in_a, in_b;
} op_deltas;

/* Column `c` (not 0) of `o`: metric (c - 1) / 3's A, B or Δ; 0 without it. */
static gint64 value_of(const op_deltas *o, guint c)
{
	const tsr_delta *d = o->d[(c - 1) / 3];

	if (!d)
		return 0;
	return ((const gint64[]){(gint64)d->base, (gint64)d->new_value, d->change})[(c - 1) % 3];
}

/* The chosen order; equals by path. */
static int by_column(gconstpointer x, gconstpointer y, gpointer data)
{
	const compare_state *st = data;
	const op_deltas *a = x, *b = y;
	int c = 0;

	if (st->sort) {
		gint64 va = value_of(a, st->sort), vb = value_of(b, st->sort);

		c = va < vb ? -1 : va > vb;
	}
	if (!c)
		c = strcmp(a->path, b->path);
	return st->descending ? -c : c;
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
}

static void add_section(const compare_state *st, const GArray *ops, const char *title,
                        const char *needle, gboolean want_a, gboolean want_b)
{
	const char *shown_titles[3];
	guint n_shown = 0;
	GtkWidget *content, *grid;
	size_t shown = 0, total = 0;

	for (guint m = 0; m < 3; m++)
		if (st->shown[m])
			shown_titles[n_shown++] = titles[m];
	grid = ga_compare_grid_new("Operation", n_shown, shown_titles, FALSE);

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
			const tsr_delta *d[3];
			guint k = 0;

			for (guint m = 0; m < 3; m++)
				if (st->shown[m])
					d[k++] = o->d[m];
			ga_compare_grid_add(grid, o->path, d);
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

		gtk_box_append(GTK_BOX(st->sections), ga_section_new(heading, TRUE, &content));
	}
	gtk_accessible_update_property(GTK_ACCESSIBLE(grid), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
	gtk_box_append(GTK_BOX(content), grid);
}

void ga_operations_compare_fill(GtkWidget *sections, GaDocument *b, const char *filter)
{
	compare_state *st = g_object_get_data(G_OBJECT(sections), "ga-compare");
	g_autofree char *needle = g_utf8_casefold(filter ? filter : "", -1);
	const tsr_comparison *cmp = b ? ga_document_get_comparison(b) : NULL;
	g_autoptr(GArray) ops = g_array_new(FALSE, FALSE, sizeof(op_deltas));

	if (b)
		ga_document_ref(b);
	g_clear_pointer(&st->b, ga_document_unref);
	st->b = b;
	g_free(st->filter);
	st->filter = g_strdup(filter ? filter : "");
	tsd_widget_remove_children(sections);
	if (!cmp)
		return;
	gather(ops, cmp);
	g_array_sort_with_data(ops, by_column, st);
	if (!ops->len) {
		gtk_box_append(GTK_BOX(sections),
		               ga_note_new("Neither report has operations (debug contexts)."));
		return;
	}
	add_section(st, ops, "In both", needle, TRUE, TRUE);
	add_section(st, ops, "Only in A", needle, TRUE, FALSE);
	add_section(st, ops, "Only in B", needle, FALSE, TRUE);
	if (!gtk_widget_get_first_child(sections))
		gtk_box_append(GTK_BOX(sections), ga_note_new("No operation matches the filter."));
}

/* The title of sort column `c` ("Operation", "Cycles A" ... "FLOPs Δ"). */
static char *column_title(guint c)
{
	static const char *const parts[] = {"A", "B", "Δ"};

	return c ? g_strdup_printf("%s %s", titles[(c - 1) / 3], parts[(c - 1) % 3])
	         : g_strdup("Operation");
}

static void refill(compare_state *st)
{
	g_autofree char *title = column_title(st->sort);
	g_autofree char *label = g_strdup_printf("%s %s", title, st->descending ? "↓" : "↑");
	g_autoptr(GaDocument) b = st->b ? ga_document_ref(st->b) : NULL;
	g_autofree char *filter = g_strdup(st->filter);

	gtk_menu_button_set_label(st->sort_button, label);
	ga_operations_compare_fill(st->sections, b, filter);
}

/* A sort choice: by its column, figures largest first and names from A;
 * the column sorted by already, the other way. */
static void on_sort_chosen(GtkButton *button, gpointer data)
{
	compare_state *st = data;
	guint c = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(button), "ga-column"));

	st->descending = c == st->sort ? !st->descending : c != 0;
	st->sort = c;
	gtk_menu_button_popdown(st->sort_button);
	refill(st);
}

static void on_metric_toggled(GtkToggleButton *toggle, gpointer data)
{
	compare_state *st = data;

	st->shown[GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(toggle), "ga-metric"))] =
	    gtk_toggle_button_get_active(toggle);
	refill(st);
}

static void free_state(gpointer data)
{
	compare_state *st = data;

	g_clear_pointer(&st->b, ga_document_unref);
	g_free(st->filter);
	g_free(st);
}

void ga_operations_compare_init(GtkWidget *sections, GtkMenuButton *sort_button,
                                GtkWidget *sort_box, GtkWidget *columns_box)
{
	compare_state *st = g_new0(compare_state, 1);

	st->sections = sections;
	st->sort_button = sort_button;
	st->shown[0] = st->shown[1] = st->shown[2] = TRUE;
	g_object_set_data_full(G_OBJECT(sections), "ga-compare", st, free_state);
	for (guint c = 0; c <= 3 * G_N_ELEMENTS(titles); c++) {
		g_autofree char *title = column_title(c);
		GtkWidget *button = gtk_button_new_with_label(title);

		gtk_widget_add_css_class(button, "flat");
		gtk_label_set_xalign(GTK_LABEL(gtk_button_get_child(GTK_BUTTON(button))), 0);
		g_object_set_data(G_OBJECT(button), "ga-column", GUINT_TO_POINTER(c));
		g_signal_connect(button, "clicked", G_CALLBACK(on_sort_chosen), st);
		gtk_box_append(GTK_BOX(sort_box), button);
	}
	/* Toggle buttons, not checks: GTK 4.8 gives a check no action for
	 * assistive technology to click. */
	for (guint m = 0; m < G_N_ELEMENTS(titles); m++) {
		GtkWidget *toggle = gtk_toggle_button_new_with_label(titles[m]);

		gtk_widget_add_css_class(toggle, "flat");
		gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(toggle), TRUE);
		g_object_set_data(G_OBJECT(toggle), "ga-metric", GUINT_TO_POINTER(m));
		g_signal_connect(toggle, "toggled", G_CALLBACK(on_metric_toggled), st);
		gtk_box_append(GTK_BOX(columns_box), toggle);
	}
	gtk_menu_button_set_label(sort_button, "Operation ↑");
}
