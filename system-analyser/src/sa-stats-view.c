/*
 * The Statistics tab (sa-stats-view.h): one small object per label in the
 * shared table frame (sa-table.h), sorted by the column view's sorter (a
 * GtkCustomSorter per column), Total descending at first.
 */
#include "sa-stats-view.h"

#include "sa-format.h"
#include "sa-table.h"

#include <tilescope/tsd-name.h>

/* --- A row --------------------------------------------------------------------- */

#define SA_TYPE_STAT_ROW (sa_stat_row_get_type())
G_DECLARE_FINAL_TYPE(SaStatRow, sa_stat_row, SA, STAT_ROW, GObject)

struct _SaStatRow {
	GObject parent_instance;
	char *name, *channel;      /* cut for display (tsd_name_cut): shown, sorted */
	const char *full;          /* the whole name, borrowed from the trace (the
	                            * document outlives the rows): the tooltip's */
	const char *full_channel;  /* the whole channel name, borrowed likewise */
	tsr_trace_label_stat s;
};

G_DEFINE_FINAL_TYPE(SaStatRow, sa_stat_row, G_TYPE_OBJECT)

static void sa_stat_row_finalize(GObject *object)
{
	SaStatRow *row = SA_STAT_ROW(object);

	g_free(row->name);
	g_free(row->channel);
	G_OBJECT_CLASS(sa_stat_row_parent_class)->finalize(object);
}

static void sa_stat_row_class_init(SaStatRowClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = sa_stat_row_finalize;
}

static void sa_stat_row_init(SaStatRow *row)
{
	(void)row;
}

/* --- Columns ----------------------------------------------------------------------- */

typedef enum {
	COL_NAME, COL_CHANNEL, COL_COUNT, COL_TOTAL, COL_SELF, COL_MEAN, COL_MEDIAN, COL_MIN,
	COL_MAX, N_COLS
} column;

static const char *const col_titles[N_COLS] = {"Name", "Channel", "Count", "Total", "Self",
                                               "Mean", "Median", "Min", "Max"};

/* A duration column's exact value of a row (ns); the mean's is fractional. */
static double duration_ns(const SaStatRow *r, column c)
{
	switch (c) {
	case COL_TOTAL: return (double)r->s.total_ns;
	case COL_SELF: return (double)r->s.self_ns;
	case COL_MEAN: return r->s.mean_ns;
	case COL_MEDIAN: return (double)r->s.median_ns;
	case COL_MIN: return (double)r->s.min_ns;
	case COL_MAX: return (double)r->s.max_ns;
	default: return 0;
	}
}

/* A numeric column's figure of a row, for sorting: exact integers (a
 * double would merge totals past 2^53 ns), the mean as it is. */
static uint64_t figure(const SaStatRow *r, column c)
{
	switch (c) {
	case COL_COUNT: return r->s.count;
	case COL_TOTAL: return r->s.total_ns;
	case COL_SELF: return r->s.self_ns;
	case COL_MEDIAN: return r->s.median_ns;
	case COL_MIN: return r->s.min_ns;
	case COL_MAX: return r->s.max_ns;
	default: return 0;
	}
}

/* What a cell shows: durations in a unit per magnitude ("16.2 s"), as
 * `tilescope trace` prints them. */
static char *cell_text(const SaStatRow *r, column c)
{
	switch (c) {
	case COL_NAME: return g_strdup(r->name);
	case COL_CHANNEL: return g_strdup(r->channel);
	case COL_COUNT: return sa_format_count(r->s.count);
	case COL_TOTAL:
	case COL_SELF:
	case COL_MEAN:
	case COL_MEDIAN:
	case COL_MIN:
	case COL_MAX: return sa_format_duration(duration_ns(r, c));
	default: return g_strdup("");
	}
}

/* A duration cell's exact value: its tooltip, and what Copy writes. */
static char *exact_text(const SaStatRow *r, column c)
{
	return c == COL_MEAN ? sa_format_ns_mean(r->s.mean_ns) : sa_format_ns_exact(figure(r, c));
}

static int compare_rows(gconstpointer a, gconstpointer b, gpointer data)
{
	const SaStatRow *x = a, *y = b;
	column c = (column)GPOINTER_TO_INT(data);

	if (c == COL_NAME || c == COL_CHANNEL) {
		/* By the cut names shown: bounded whatever the names' length. */
		int r = g_utf8_collate(c == COL_NAME ? x->name : x->channel,
		                       c == COL_NAME ? y->name : y->channel);

		return r < 0 ? GTK_ORDERING_SMALLER : r > 0 ? GTK_ORDERING_LARGER : GTK_ORDERING_EQUAL;
	}
	/* By the exact values, never by the text shown. */
	if (c == COL_MEAN)
		return x->s.mean_ns < y->s.mean_ns   ? GTK_ORDERING_SMALLER
		       : x->s.mean_ns > y->s.mean_ns ? GTK_ORDERING_LARGER
		                                     : GTK_ORDERING_EQUAL;
	return figure(x, c) < figure(y, c)   ? GTK_ORDERING_SMALLER
	       : figure(x, c) > figure(y, c) ? GTK_ORDERING_LARGER
	                                     : GTK_ORDERING_EQUAL;
}

/* The row as one line of tab-separated fields for the clipboard: whole
 * names, counts and exact nanoseconds without separators (a spreadsheet
 * reads them as numbers), after a header line naming the columns. */
static char *copy_row(gpointer item)
{
	SaStatRow *r = item;
	g_autofree char *mean = g_strdup_printf("%.3f", r->s.mean_ns);

	return g_strdup_printf("Name\tChannel\tCount\tTotal (ns)\tSelf (ns)\tMean (ns)\t"
	                       "Median (ns)\tMin (ns)\tMax (ns)\n"
	                       "%s\t%s\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT
	                       "\t%" G_GUINT64_FORMAT "\t%s\t%" G_GUINT64_FORMAT
	                       "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n",
	                       r->full ? r->full : r->name,
	                       r->full_channel ? r->full_channel : r->channel, r->s.count, r->s.total_ns,
	                       r->s.self_ns, mean, r->s.median_ns, r->s.min_ns, r->s.max_ns);
}

static void setup_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
	column c = (column)GPOINTER_TO_INT(data);
	GtkWidget *label = sa_table_new_cell(c > COL_CHANNEL, c == COL_NAME);

	(void)f;
	gtk_list_item_set_child(item, label);
}

static void bind_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer data)
{
	SaStatRow *row = gtk_list_item_get_item(item);
	g_autofree char *text = cell_text(row, (column)GPOINTER_TO_INT(data));
	GtkWidget *label = gtk_list_item_get_child(item);
	column c = (column)GPOINTER_TO_INT(data);

	(void)f;
	gtk_label_set_text(GTK_LABEL(label), text);
	/* The whole name of a cut one, and a duration's exact nanoseconds,
	 * made for the rows on screen only. */
	if (c == COL_NAME) {
		tsd_widget_set_name_tooltip(label, row->full);
	} else if (c > COL_COUNT) {
		g_autofree char *exact = exact_text(row, c);

		gtk_widget_set_tooltip_text(label, exact);
	}
}

/* --- The view --------------------------------------------------------------------- */

struct _SaStatsView {
	GtkWidget parent_instance;
	sa_table table;          /* its caption: the window and its totals */
};

G_DEFINE_FINAL_TYPE(SaStatsView, sa_stats_view, GTK_TYPE_WIDGET)

void sa_stats_view_set_stats(SaStatsView *self, SaDocument *doc, const sa_stats *stats)
{
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_object_unref);
	tsr_trace *trace = doc ? sa_document_get_trace(doc) : NULL;
	const tsr_trace_channel *channels = NULL;
	size_t n_channels = 0;
	g_autofree char *spans = NULL, *labels = NULL, *text = NULL;

	if (!stats || !trace) {
		sa_table_set_message(&self->table, "", FALSE);
		return;
	}
	sa_table_set_busy(&self->table, FALSE, NULL);
	tsr_trace_get_channels(&channels, &n_channels, trace);
	for (size_t i = 0; i < stats->n_labels; i++) {
		SaStatRow *row = g_object_new(SA_TYPE_STAT_ROW, NULL);
		const char *name = tsr_trace_get_name(trace, stats->labels[i].name);

		row->s = stats->labels[i];
		row->full = name;
		row->full_channel = stats->labels[i].channel < n_channels
		                        ? channels[stats->labels[i].channel].name
		                        : NULL;
		row->name = tsd_name_cut(name);
		row->channel = tsd_name_cut(stats->labels[i].channel < n_channels
		                                ? channels[stats->labels[i].channel].name
		                                : "?");
		g_ptr_array_add(rows, row);
	}
	sa_table_set_rows(&self->table, rows->pdata, rows->len);
	spans = sa_format_count(stats->spans);
	labels = sa_format_count(stats->n_labels);
	if (stats->from_ns == INT64_MIN && stats->to_ns == INT64_MAX) {
		text = g_strdup_printf("Whole trace: %s spans, %s labels", spans, labels);
	} else {
		int64_t start = tsr_trace_get_info(trace)->start_ns;
		g_autofree char *a = sa_format_ms_exact(stats->from_ns - start);
		g_autofree char *b = sa_format_ms_exact(stats->to_ns - start);

		text = g_strdup_printf("Spans starting in %s – %s: %s spans, %s labels", a, b, spans,
		                       labels);
	}
	sa_table_set_caption(&self->table, text);
}

void sa_stats_view_set_busy(SaStatsView *self, gboolean busy)
{
	sa_table_set_busy(&self->table, busy, "Computing the statistics…");
}

void sa_stats_view_set_message(SaStatsView *self, const char *message)
{
	sa_table_set_message(&self->table, message, FALSE);
}

static void sa_stats_view_dispose(GObject *object)
{
	sa_table_dispose(&SA_STATS_VIEW(object)->table);
	G_OBJECT_CLASS(sa_stats_view_parent_class)->dispose(object);
}

static void sa_stats_view_class_init(SaStatsViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = sa_stats_view_dispose;
	gtk_widget_class_set_layout_manager_type(GTK_WIDGET_CLASS(klass), GTK_TYPE_BIN_LAYOUT);
	/* A container, silent to a screen reader (GTK 4.8 would say its type
	 * name). */
	gtk_widget_class_set_accessible_role(GTK_WIDGET_CLASS(klass), GTK_ACCESSIBLE_ROLE_GENERIC);
}

static void sa_stats_view_init(SaStatsView *self)
{
	GtkColumnViewColumn *total = NULL;

	sa_table_init(&self->table, GTK_WIDGET(self), "Statistics", SA_TYPE_STAT_ROW,
	              SA_TABLE_SORTED);
	for (int c = 0; c < N_COLS; c++) {
		GtkColumnViewColumn *col =
		    sa_table_add_column(&self->table, col_titles[c], c, G_CALLBACK(setup_cell),
		                        G_CALLBACK(bind_cell), compare_rows);

		if (c == COL_NAME)
			gtk_column_view_column_set_expand(col, TRUE);
		if (c == COL_TOTAL)
			total = col;
	}
	sa_table_set_copy_func(&self->table, copy_row);
	/* Largest total first, as `tilescope trace` lists them. */
	gtk_column_view_sort_by_column(GTK_COLUMN_VIEW(self->table.columns), total,
	                               GTK_SORT_DESCENDING);
}

GtkWidget *sa_stats_view_new(void)
{
	return g_object_new(SA_TYPE_STATS_VIEW, NULL);
}
