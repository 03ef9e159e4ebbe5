/*
 * The Compare tab (sa-compare-view.h): a GListStore of one small object
 * per label of a comparison, in a GtkColumnView whose columns sort on
 * demand (unsorted, the rows keep reportlib's order: largest |Δ total|
 * first). Cells are labels, as in the Statistics tab (GTK 4.8's
 * GtkInscription does not reach AT-SPI), each described by its column.
 */
#include "sa-compare-view.h"

#include "sa-format.h"

#include <math.h>

/* --- A row --------------------------------------------------------------------- */

#define SA_TYPE_DELTA_ROW (sa_delta_row_get_type())
G_DECLARE_FINAL_TYPE(SaDeltaRow, sa_delta_row, SA, DELTA_ROW, GObject)

struct _SaDeltaRow {
	GObject parent_instance;
	char *name, *channel;
	tsr_trace_label_delta d;   /* d.name / d.channel point at the copies above */
};

G_DEFINE_FINAL_TYPE(SaDeltaRow, sa_delta_row, G_TYPE_OBJECT)

static void sa_delta_row_finalize(GObject *object)
{
	SaDeltaRow *row = SA_DELTA_ROW(object);

	g_free(row->name);
	g_free(row->channel);
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
	case COL_NAME: return g_strdup(r->name);
	case COL_CHANNEL: return g_strdup(r->channel);
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
		int r = g_utf8_collate(c == COL_NAME ? x->name : x->channel,
		                       c == COL_NAME ? y->name : y->channel);

		return r < 0 ? GTK_ORDERING_SMALLER : r > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
	}
	fx = figure(x, c);
	fy = figure(y, c);
	return fx < fy ? GTK_ORDERING_SMALLER : fx > fy ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
}

static void setup_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
	GtkWidget *label = gtk_label_new(NULL);
	column c = (column)GPOINTER_TO_INT(data);

	(void)f;
	gtk_label_set_xalign(GTK_LABEL(label), c <= COL_CHANNEL ? 0 : 1);
	gtk_label_set_ellipsize(GTK_LABEL(label), c == COL_NAME ? PANGO_ELLIPSIZE_END
	                                                        : PANGO_ELLIPSIZE_NONE);
	if (c > COL_CHANNEL) {
		gtk_widget_add_css_class(label, "figure");
		/* Described by its column, read as text: a test (or a screen
		 * reader) gets "Total B" and "1,234.567 µs". (GTK 4.8 names a
		 * label after its text whatever its label property says.) */
		gtk_accessible_update_property(GTK_ACCESSIBLE(label),
		                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, col_titles[c], -1);
	}
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
	GtkWidget *box;
	GtkWidget *header;       /* what A and B are, the label counts */
	GtkWidget *spinner;
	GtkWidget *columns;      /* GtkColumnView */
	GListStore *store;
};

G_DEFINE_FINAL_TYPE(SaCompareView, sa_compare_view, GTK_TYPE_WIDGET)

static void set_header(SaCompareView *self, const char *text)
{
	gtk_label_set_text(GTK_LABEL(self->header), text);
	gtk_accessible_update_property(GTK_ACCESSIBLE(self->columns),
	                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

void sa_compare_view_set_rows(SaCompareView *self, const char *what_a, const char *what_b,
                              const tsr_trace_label_delta *rows, size_t n)
{
	g_autoptr(GPtrArray) objs = g_ptr_array_new_with_free_func(g_object_unref);
	g_autofree char *labels = sa_format_count(n), *text = NULL;
	size_t only_a = 0, only_b = 0;

	g_return_if_fail(SA_IS_COMPARE_VIEW(self));
	gtk_widget_set_visible(self->spinner, FALSE);
	gtk_spinner_set_spinning(GTK_SPINNER(self->spinner), FALSE);
	for (size_t i = 0; i < n; i++) {
		SaDeltaRow *row = g_object_new(SA_TYPE_DELTA_ROW, NULL);

		row->d = rows[i];
		row->name = g_strdup(rows[i].name);
		row->channel = g_strdup(rows[i].channel);
		row->d.name = row->name;
		row->d.channel = row->channel;
		only_a += rows[i].in_a && !rows[i].in_b;
		only_b += rows[i].in_b && !rows[i].in_a;
		g_ptr_array_add(objs, row);
	}
	g_list_store_splice(self->store, 0, g_list_model_get_n_items(G_LIST_MODEL(self->store)),
	                    objs->pdata, objs->len);
	text = g_strdup_printf("A: %s · B: %s · %s labels, %zu only in A, %zu only in B", what_a,
	                       what_b, labels, only_a, only_b);
	set_header(self, text);
}

void sa_compare_view_set_message(SaCompareView *self, const char *message, gboolean busy)
{
	g_return_if_fail(SA_IS_COMPARE_VIEW(self));
	gtk_widget_set_visible(self->spinner, busy);
	gtk_spinner_set_spinning(GTK_SPINNER(self->spinner), busy);
	g_list_store_remove_all(self->store);
	set_header(self, message);
}

static void sa_compare_view_dispose(GObject *object)
{
	SaCompareView *self = SA_COMPARE_VIEW(object);

	g_clear_pointer(&self->box, gtk_widget_unparent);
	g_clear_object(&self->store);
	G_OBJECT_CLASS(sa_compare_view_parent_class)->dispose(object);
}

static void sa_compare_view_class_init(SaCompareViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = sa_compare_view_dispose;
	gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
}

static void sa_compare_view_init(SaCompareView *self)
{
	GtkWidget *top = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8);
	GtkWidget *scroll = gtk_scrolled_window_new();
	GtkSortListModel *sorted;
	GtkSelectionModel *selection;

	self->box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	gtk_widget_set_parent(self->box, GTK_WIDGET(self));
	self->header = gtk_label_new("");
	gtk_label_set_xalign(GTK_LABEL(self->header), 0);
	gtk_label_set_wrap(GTK_LABEL(self->header), TRUE);
	self->spinner = gtk_spinner_new();
	gtk_widget_set_visible(self->spinner, FALSE);
	gtk_widget_set_margin_start(top, 8);
	gtk_widget_set_margin_top(top, 4);
	gtk_widget_set_margin_bottom(top, 4);
	gtk_box_append(GTK_BOX(top), self->spinner);
	gtk_box_append(GTK_BOX(top), self->header);
	gtk_box_append(GTK_BOX(self->box), top);

	self->store = g_list_store_new(SA_TYPE_DELTA_ROW);
	self->columns = gtk_column_view_new(NULL);
	sorted = gtk_sort_list_model_new(G_LIST_MODEL(g_object_ref(self->store)),
	                                 g_object_ref(gtk_column_view_get_sorter(
	                                     GTK_COLUMN_VIEW(self->columns))));
	selection = GTK_SELECTION_MODEL(gtk_single_selection_new(G_LIST_MODEL(sorted)));
	gtk_single_selection_set_autoselect(GTK_SINGLE_SELECTION(selection), FALSE);
	gtk_single_selection_set_can_unselect(GTK_SINGLE_SELECTION(selection), TRUE);
	gtk_single_selection_set_selected(GTK_SINGLE_SELECTION(selection), GTK_INVALID_LIST_POSITION);
	gtk_column_view_set_model(GTK_COLUMN_VIEW(self->columns), selection);
	g_object_unref(selection);
	gtk_column_view_set_show_column_separators(GTK_COLUMN_VIEW(self->columns), TRUE);
	gtk_widget_add_css_class(self->columns, "data-table");
	for (int c = 0; c < N_COLS; c++) {
		GtkListItemFactory *f = gtk_signal_list_item_factory_new();
		GtkColumnViewColumn *col;

		g_signal_connect(f, "setup", G_CALLBACK(setup_cell), GINT_TO_POINTER(c));
		g_signal_connect(f, "bind", G_CALLBACK(bind_cell), GINT_TO_POINTER(c));
		col = gtk_column_view_column_new(col_titles[c], f);
		gtk_column_view_column_set_sorter(
		    col, GTK_SORTER(gtk_custom_sorter_new(compare_rows, GINT_TO_POINTER(c), NULL)));
		gtk_column_view_column_set_resizable(col, TRUE);
		/* Fourteen columns do not fit: the names keep a readable width
		 * and the table scrolls sideways. */
		if (c == COL_NAME) {
			gtk_column_view_column_set_expand(col, TRUE);
			gtk_column_view_column_set_fixed_width(col, 240);
		}
		gtk_column_view_append_column(GTK_COLUMN_VIEW(self->columns), col);
		g_object_unref(col);
	}
	gtk_accessible_update_property(GTK_ACCESSIBLE(self->columns), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Compare", -1);
	gtk_scrolled_window_set_child(GTK_SCROLLED_WINDOW(scroll), self->columns);
	gtk_widget_set_vexpand(scroll, TRUE);
	gtk_box_append(GTK_BOX(self->box), scroll);
	set_header(self, "Nothing compared yet: Compare Traces… in the menu compares two files, "
	                 "Compare with Marked Range (Ctrl+M) the marked range with the next one "
	                 "you mark.");
}

GtkWidget *sa_compare_view_new(void)
{
	return g_object_new(SA_TYPE_COMPARE_VIEW, NULL);
}
