/*
 * The Compare tab (sa-compare-view.h): one SaLabelRow per label of a
 * comparison (its figures a tsr_trace_label_delta, the names copied) in
 * the table both apps share (tsd-table.h), whose columns sort on demand (unsorted,
 * the rows keep reportlib's order: largest |Δ total| first). Each value
 * cell is described by its column.
 */
#include "sa-compare-view.h"

#include "sa-application.h"
#include "sa-format.h"

#include <tilescope/tsd-name.h>
#include <tilescope/tsd-settings.h>

#include <math.h>
#include <string.h>

/* --- Columns ----------------------------------------------------------------------- */

typedef enum {
	COL_NAME, COL_CHANNEL, COL_COUNT_A, COL_COUNT_B, COL_TOTAL_A, COL_TOTAL_B, COL_DELTA,
	COL_PERCENT, COL_SELF_A, COL_SELF_B, COL_MEAN_A, COL_MEAN_B, COL_MEDIAN_A, COL_MEDIAN_B,
	N_COLS
} column;

#define DELTA(row) ((const tsr_trace_label_delta *)(row)->figures)

/* Columns about side B (odd after the count), for "—" where B lacks the label. */
static gboolean is_side_b(column c)
{
	return c == COL_COUNT_B || c == COL_TOTAL_B || c == COL_SELF_B || c == COL_MEAN_B ||
	       c == COL_MEDIAN_B;
}

static gboolean is_side_a(column c)
{
	return c == COL_COUNT_A || c == COL_TOTAL_A || c == COL_SELF_A || c == COL_MEAN_A ||
	       c == COL_MEDIAN_A;
}

/* A signed duration's cell: "+1,234.567 µs" / "−12.000 µs" / "0.000 µs". */
static char *format_delta_us(int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	g_autofree char *us = sa_format_us_exact(a);

	return g_strdup_printf("%s%s", ns > 0 ? "+" : ns < 0 ? "−" : "", us);
}

/* A percentage's cell: "+12.3 %", "—" for none. */
static char *format_percent(double pct)
{
	char buf[64];

	if (isnan(pct))
		return g_strdup("—");
	g_snprintf(buf, sizeof(buf), "%+.1f %%", pct);
	/* A typographic minus, as the durations have. */
	if (buf[0] == '-')
		return g_strdup_printf("−%s", buf + 1);
	return g_strdup(buf);
}

/* A column's figure of a row, for sorting the numeric columns. */
static double figure(const SaLabelRow *r, column c)
{
	const tsr_trace_label_delta *d = DELTA(r);

	switch (c) {
	case COL_COUNT_A: return (double)d->a.count;
	case COL_COUNT_B: return (double)d->b.count;
	case COL_TOTAL_A: return (double)d->a.total_ns;
	case COL_TOTAL_B: return (double)d->b.total_ns;
	case COL_DELTA: return (double)d->delta_total_ns;
	case COL_PERCENT: return isnan(d->delta_total_pct) ? HUGE_VAL : d->delta_total_pct;
	case COL_SELF_A: return (double)d->a.self_ns;
	case COL_SELF_B: return (double)d->b.self_ns;
	case COL_MEAN_A: return d->a.mean_ns;
	case COL_MEAN_B: return d->b.mean_ns;
	case COL_MEDIAN_A: return (double)d->a.median_ns;
	case COL_MEDIAN_B: return (double)d->b.median_ns;
	default: return 0;
	}
}

static char *cell_text(gpointer item, guint column_, gpointer data)
{
	const SaLabelRow *r = item;
	const tsr_trace_label_delta *d = DELTA(r);
	column c = (column)column_;

	if ((is_side_a(c) && !d->in_a) || (is_side_b(c) && !d->in_b))
		return g_strdup("—");
	switch (c) {
	case COL_NAME: return g_strdup(r->shown);
	case COL_CHANNEL: return g_strdup(r->shown_channel);
	case COL_COUNT_A: return sa_format_count(d->a.count);
	case COL_COUNT_B: return sa_format_count(d->b.count);
	case COL_TOTAL_A: return sa_format_us_exact(d->a.total_ns);
	case COL_TOTAL_B: return sa_format_us_exact(d->b.total_ns);
	case COL_DELTA: return format_delta_us(d->delta_total_ns);
	case COL_PERCENT:
		if (!d->in_a)
			return g_strdup("only in B");
		if (!d->in_b)
			return g_strdup("only in A");
		return format_percent(d->delta_total_pct);
	case COL_SELF_A: return sa_format_us_exact(d->a.self_ns);
	case COL_SELF_B: return sa_format_us_exact(d->b.self_ns);
	case COL_MEAN_A: return sa_format_us_exact((uint64_t)(d->a.mean_ns + 0.5));
	case COL_MEAN_B: return sa_format_us_exact((uint64_t)(d->b.mean_ns + 0.5));
	case COL_MEDIAN_A: return sa_format_us_exact(d->a.median_ns);
	case COL_MEDIAN_B: return sa_format_us_exact(d->b.median_ns);
	default: return g_strdup("");
	}
}

static int compare_rows(gconstpointer a, gconstpointer b, guint column_, gpointer data)
{
	const SaLabelRow *x = a, *y = b;
	column c = (column)column_;

	return TSD_TABLE_ORDER(figure(x, c), figure(y, c));
}

static void bind_cell(GtkWidget *label, gpointer item, guint c, gpointer data)
{
	const SaLabelRow *row = item;

	if (c == COL_NAME)
		tsd_widget_set_name_tooltip(label, row->name);
	if (c == COL_DELTA || c == COL_PERCENT) {
		int64_t delta = DELTA(row)->delta_total_ns;

		/* A recycled cell: the class of the row it showed before goes. */
		gtk_widget_remove_css_class(label, "delta-up");
		gtk_widget_remove_css_class(label, "delta-down");
		if (delta != 0)
			gtk_widget_add_css_class(label, delta > 0 ? "delta-up" : "delta-down");
	}
}

/* --- The view --------------------------------------------------------------------- */

struct _SaCompareView {
	SaTableView parent_instance;
};

G_DEFINE_FINAL_TYPE(SaCompareView, sa_compare_view, SA_TYPE_TABLE_VIEW)

void sa_compare_view_set_rows(SaCompareView *self, const char *what_a, const char *what_b,
                              const tsr_trace_label_delta *rows, size_t n)
{
	g_autoptr(GPtrArray) objs = g_ptr_array_new_with_free_func(g_object_unref);
	g_autofree char *labels = sa_format_count(n), *text = NULL;
	size_t only_a = 0, only_b = 0;

	g_return_if_fail(SA_IS_COMPARE_VIEW(self));
	tsd_table_set_busy(SA_TABLE(self), FALSE, NULL);
	for (size_t i = 0; i < n; i++) {
		SaLabelRow *row = sa_label_row_new(rows[i].name, rows[i].channel, TRUE, &rows[i],
		                                   sizeof(rows[i]));
		tsr_trace_label_delta *d = row->figures;

		/* The copy's names point at the row's own. */
		d->name = row->name;
		d->channel = row->channel;
		only_a += rows[i].in_a && !rows[i].in_b;
		only_b += rows[i].in_b && !rows[i].in_a;
		g_ptr_array_add(objs, row);
	}
	tsd_table_set_rows(SA_TABLE(self), objs->pdata, objs->len);
	text = g_strdup_printf("A: %s · B: %s · %s labels, %zu only in A, %zu only in B", what_a,
	                       what_b, labels, only_a, only_b);
	tsd_table_set_caption(SA_TABLE(self), text);
}

gboolean sa_compare_view_dup_selected(SaCompareView *self, char **channel, char **name)
{
	SaLabelRow *row;

	g_return_val_if_fail(SA_IS_COMPARE_VIEW(self), FALSE);
	row = gtk_single_selection_get_selected_item(
	    tsd_table_get_selection(SA_TABLE(self)));
	if (!row)
		return FALSE;
	*channel = g_strdup(row->channel);
	*name = g_strdup(row->name);
	return TRUE;
}

gboolean sa_compare_view_select(SaCompareView *self, const char *channel, const char *name)
{
	GListModel *rows;
	guint n;

	g_return_val_if_fail(SA_IS_COMPARE_VIEW(self), FALSE);
	/* The rows as shown (sorted or not): the selection's positions. */
	rows = G_LIST_MODEL(tsd_table_get_selection(SA_TABLE(self)));
	n = g_list_model_get_n_items(rows);
	for (guint i = 0; i < n; i++) {
		g_autoptr(SaLabelRow) row = g_list_model_get_item(rows, i);

		if (strcmp(row->channel, channel) == 0 && strcmp(row->name, name) == 0) {
			gtk_single_selection_set_selected(GTK_SINGLE_SELECTION(rows), i);
			return TRUE;
		}
	}
	return FALSE;
}

static void sa_compare_view_class_init(SaCompareViewClass *klass)
{
	gtk_widget_class_set_template_from_resource(
	    GTK_WIDGET_CLASS(klass), "/org/tilescope/SystemAnalyser/sa-compare-view.ui");
}

static void sa_compare_view_init(SaCompareView *self)
{
	static const TsdTableCells cells = {.text = cell_text, .bind = bind_cell, .compare = compare_rows};
	TsdTable *table;
	g_autoptr(GSettings) settings = tsd_settings_new(SA_SETTINGS_ID);

	gtk_widget_init_template(GTK_WIDGET(self));
	table = SA_TABLE(self);
	tsd_table_set_cells(table, &cells, NULL);
	/* Fourteen columns: which of them, the user's choice. */
	tsd_table_add_chooser(table, settings, "compare-columns");
	tsd_table_set_caption(table,
	                    "Nothing compared yet: Compare Traces… in the menu compares two files, "
	                    "Compare with Marked Range (Ctrl+M) the marked range with the next one "
	                    "you mark.");
}
