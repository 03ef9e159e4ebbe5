/*
 * The Compare tab (sa-compare-view.h): one small object per label of a
 * comparison in the shared table frame (sa-table.h), whose columns sort
 * on demand (unsorted, the rows keep reportlib's order: largest |Δ total|
 * first). Each value cell is described by its column.
 */
#include "sa-compare-view.h"

#include "sa-format.h"
#include "sa-table.h"

#include <tilescope/tsd-name.h>

#include <math.h>
#include <string.h>

/* --- A row --------------------------------------------------------------------- */

#define SA_TYPE_DELTA_ROW (sa_delta_row_get_type())
G_DECLARE_FINAL_TYPE(SaDeltaRow, sa_delta_row, SA, DELTA_ROW, GObject)

struct _SaDeltaRow {
	GObject parent_instance;
	char *name, *channel;      /* whole: what identifies the label */
	char *shown, *shown_channel; /* cut for display (tsd_name_cut): shown and sorted */
	tsr_trace_label_delta d;   /* d.name / d.channel point at the copies above */
};

G_DEFINE_FINAL_TYPE(SaDeltaRow, sa_delta_row, G_TYPE_OBJECT)

static void sa_delta_row_finalize(GObject *object)
{
	SaDeltaRow *row = SA_DELTA_ROW(object);

	g_free(row->name);
	g_free(row->channel);
	g_free(row->shown);
	g_free(row->shown_channel);
	G_OBJECT_CLASS(sa_delta_row_parent_class)->finalize(object);
}

static void sa_delta_row_class_init(SaDeltaRowClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = sa_delta_row_finalize;
}

static void sa_delta_row_init(SaDeltaRow *row)
{
	(void)row;
}

/* --- Columns ----------------------------------------------------------------------- */

typedef enum {
	COL_NAME, COL_CHANNEL, COL_COUNT_A, COL_COUNT_B, COL_TOTAL_A, COL_TOTAL_B, COL_DELTA,
	COL_PERCENT, COL_SELF_A, COL_SELF_B, COL_MEAN_A, COL_MEAN_B, COL_MEDIAN_A, COL_MEDIAN_B,
	N_COLS
} column;

static const char *const col_titles[N_COLS] = {
	"Name", "Channel", "Count A", "Count B", "Total A", "Total B", "Δ Total", "Δ %",
	"Self A", "Self B", "Mean A", "Mean B", "Median A", "Median B"};

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

char *sa_compare_format_delta_us(int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	g_autofree char *us = sa_format_us_exact(a);

	return g_strdup_printf("%s%s", ns > 0 ? "+" : ns < 0 ? "−" : "", us);
}

char *sa_compare_format_percent(double pct)
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
static double figure(const SaDeltaRow *r, column c)
{
	const tsr_trace_label_delta *d = &r->d;

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

static char *cell_text(const SaDeltaRow *r, column c)
{
	const tsr_trace_label_delta *d = &r->d;

	if ((is_side_a(c) && !d->in_a) || (is_side_b(c) && !d->in_b))
		return g_strdup("—");
	switch (c) {
	case COL_NAME: return g_strdup(r->shown);
	case COL_CHANNEL: return g_strdup(r->shown_channel);
	case COL_COUNT_A: return sa_format_count(d->a.count);
	case COL_COUNT_B: return sa_format_count(d->b.count);
	case COL_TOTAL_A: return sa_format_us_exact(d->a.total_ns);
	case COL_TOTAL_B: return sa_format_us_exact(d->b.total_ns);
	case COL_DELTA: return sa_compare_format_delta_us(d->delta_total_ns);
	case COL_PERCENT:
		if (!d->in_a)
			return g_strdup("only in B");
		if (!d->in_b)
			return g_strdup("only in A");
		return sa_compare_format_percent(d->delta_total_pct);
	case COL_SELF_A: return sa_format_us_exact(d->a.self_ns);
	case COL_SELF_B: return sa_format_us_exact(d->b.self_ns);
	case COL_MEAN_A: return sa_format_us_exact((uint64_t)(d->a.mean_ns + 0.5));
	case COL_MEAN_B: return sa_format_us_exact((uint64_t)(d->b.mean_ns + 0.5));
	case COL_MEDIAN_A: return sa_format_us_exact(d->a.median_ns);
	case COL_MEDIAN_B: return sa_format_us_exact(d->b.median_ns);
	default: return g_strdup("");
	}
}

static int compare_rows(gconstpointer a, gconstpointer b, gpointer data)
{
	const SaDeltaRow *x = a, *y = b;
	column c = (column)GPOINTER_TO_INT(data);
	double fx, fy;

	if (c == COL_NAME || c == COL_CHANNEL) {
		/* By what is shown: collating whole 16 KiB names at every
		 * comparison would make a sort scale with their length. */
		int r = g_utf8_collate(c == COL_NAME ? x->shown : x->shown_channel,
		                       c == COL_NAME ? y->shown : y->shown_channel);

		return r < 0 ? GTK_ORDERING_SMALLER : r > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
	}
	fx = figure(x, c);
	fy = figure(y, c);
	return fx < fy ? GTK_ORDERING_SMALLER : fx > fy ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static void setup_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
	column c = (column)GPOINTER_TO_INT(data);
	GtkWidget *label = sa_table_new_cell(c > COL_CHANNEL, c == COL_NAME);

	(void)f;
	/* Described by its column, read as text: a test (or a screen reader)
	 * gets "Total B" and "1,234.567 µs". (GTK 4.8 names a label after its
	 * text whatever its label property says.) */
	if (c > COL_CHANNEL)
		gtk_accessible_update_property(GTK_ACCESSIBLE(label),
		                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, col_titles[c], -1);
	gtk_list_item_set_child(item, label);
}

static void bind_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
	SaDeltaRow *row = gtk_list_item_get_item(item);
	column c = (column)GPOINTER_TO_INT(data);
	g_autofree char *text = cell_text(row, c);
	GtkWidget *label = gtk_list_item_get_child(item);

	(void)f;
	gtk_label_set_text(GTK_LABEL(label), text);
	if (c == COL_NAME)
		tsd_widget_set_name_tooltip(label, row->name);
	if (c == COL_DELTA || c == COL_PERCENT) {
		gboolean up = row->d.delta_total_ns > 0, down = row->d.delta_total_ns < 0;

		if (up)
			gtk_widget_add_css_class(label, "delta-up");
		else
			gtk_widget_remove_css_class(label, "delta-up");
		if (down)
			gtk_widget_add_css_class(label, "delta-down");
		else
			gtk_widget_remove_css_class(label, "delta-down");
	}
}

/* --- The view --------------------------------------------------------------------- */

struct _SaCompareView {
	GtkWidget parent_instance;
	sa_table table;          /* its caption: what A and B are, the label counts */
};

G_DEFINE_FINAL_TYPE(SaCompareView, sa_compare_view, GTK_TYPE_WIDGET)

void sa_compare_view_set_rows(SaCompareView *self, const char *what_a, const char *what_b,
                              const tsr_trace_label_delta *rows, size_t n)
{
	g_autoptr(GPtrArray) objs = g_ptr_array_new_with_free_func(g_object_unref);
	g_autofree char *labels = sa_format_count(n), *text = NULL;
	size_t only_a = 0, only_b = 0;

	g_return_if_fail(SA_IS_COMPARE_VIEW(self));
	sa_table_set_busy(&self->table, FALSE, NULL);
	for (size_t i = 0; i < n; i++) {
		SaDeltaRow *row = g_object_new(SA_TYPE_DELTA_ROW, NULL);

		row->d = rows[i];
		row->name = g_strdup(rows[i].name);
		row->channel = g_strdup(rows[i].channel);
		row->d.name = row->name;
		row->d.channel = row->channel;
		row->shown = tsd_name_cut(row->name);
		row->shown_channel = tsd_name_cut(row->channel);
		only_a += rows[i].in_a && !rows[i].in_b;
		only_b += rows[i].in_b && !rows[i].in_a;
		g_ptr_array_add(objs, row);
	}
	sa_table_set_rows(&self->table, objs->pdata, objs->len);
	text = g_strdup_printf("A: %s · B: %s · %s labels, %zu only in A, %zu only in B", what_a,
	                       what_b, labels, only_a, only_b);
	sa_table_set_caption(&self->table, text);
}

void sa_compare_view_set_message(SaCompareView *self, const char *message, gboolean busy)
{
	g_return_if_fail(SA_IS_COMPARE_VIEW(self));
	sa_table_set_message(&self->table, message, busy);
}

void sa_compare_view_set_busy(SaCompareView *self, const char *message)
{
	g_return_if_fail(SA_IS_COMPARE_VIEW(self));
	sa_table_set_busy(&self->table, TRUE, message);
}

gboolean sa_compare_view_dup_selected(SaCompareView *self, char **channel, char **name)
{
	SaDeltaRow *row;

	g_return_val_if_fail(SA_IS_COMPARE_VIEW(self), FALSE);
	row = gtk_single_selection_get_selected_item(self->table.selection);
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
	rows = G_LIST_MODEL(self->table.selection);
	n = g_list_model_get_n_items(rows);
	for (guint i = 0; i < n; i++) {
		g_autoptr(SaDeltaRow) row = g_list_model_get_item(rows, i);

		if (strcmp(row->channel, channel) == 0 && strcmp(row->name, name) == 0) {
			gtk_single_selection_set_selected(self->table.selection, i);
			return TRUE;
		}
	}
	return FALSE;
}

static void sa_compare_view_dispose(GObject *object)
{
	sa_table_dispose(&SA_COMPARE_VIEW(object)->table);
	G_OBJECT_CLASS(sa_compare_view_parent_class)->dispose(object);
}

static void sa_compare_view_class_init(SaCompareViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = sa_compare_view_dispose;
	gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
	/* A container, silent to a screen reader (GTK 4.8 would say its type
	 * name). */
	gtk_widget_class_set_accessible_role(GTK_WIDGET_CLASS(klass), GTK_ACCESSIBLE_ROLE_GENERIC);
}

static void sa_compare_view_init(SaCompareView *self)
{
	sa_table_init(&self->table, GTK_WIDGET(self), "Compare", SA_TYPE_DELTA_ROW,
	              SA_TABLE_SORTED | SA_TABLE_WRAP_CAPTION);
	for (int c = 0; c < N_COLS; c++) {
		GtkColumnViewColumn *col =
		    sa_table_add_column(&self->table, col_titles[c], c, G_CALLBACK(setup_cell),
		                        G_CALLBACK(bind_cell), compare_rows);

		/* Fourteen columns do not fit: the names keep a readable width
		 * and the table scrolls sideways. */
		if (c == COL_NAME) {
			gtk_column_view_column_set_expand(col, TRUE);
			gtk_column_view_column_set_fixed_width(col, 240);
		}
	}
	sa_table_set_caption(&self->table,
	                     "Nothing compared yet: Compare Traces… in the menu compares two "
	                     "files, Compare with Marked Range (Ctrl+M) the marked range with the "
	                     "next one you mark.");
}

GtkWidget *sa_compare_view_new(void)
{
	return g_object_new(SA_TYPE_COMPARE_VIEW, NULL);
}
