/*
 * The Statistics tab (sa-stats-view.h): one SaLabelRow per label (its
 * figures a tsr_trace_label_stat) in the table both apps share (tsd-table.h), sorted
 * by the column view's sorter, Total descending at first; computed in a
 * worker (sa_document_stats_async) each time the session's window moves.
 */
#include "sa-stats-view.h"

#include "sa-calltree.h"
#include "sa-format.h"

#include <tilescope/tsd-name.h>

#define STAT(row) ((const tsr_trace_label_stat *)(row)->figures)

/* --- Columns ----------------------------------------------------------------------- */

typedef enum {
	COL_NAME, COL_CHANNEL, COL_COUNT, COL_TOTAL, COL_SELF, COL_MEAN, COL_MEDIAN, COL_MIN,
	COL_MAX, N_COLS
} column;

/* A numeric column's figure of a row, for sorting: exact integers (a
 * double would merge totals past 2^53 ns), the mean as it is. */
static uint64_t figure(const SaLabelRow *r, column c)
{
	switch (c) {
	case COL_COUNT: return STAT(r)->count;
	case COL_TOTAL: return STAT(r)->total_ns;
	case COL_SELF: return STAT(r)->self_ns;
	case COL_MEDIAN: return STAT(r)->median_ns;
	case COL_MIN: return STAT(r)->min_ns;
	case COL_MAX: return STAT(r)->max_ns;
	default: return 0;
	}
}

/* What a cell shows: durations in a unit per magnitude ("16.2 s"), as
 * `tilescope trace` prints them. */
static char *cell_text(gpointer item, guint c, gpointer data)
{
	const SaLabelRow *r = item;

	switch ((column)c) {
	case COL_NAME: return g_strdup(r->shown);
	case COL_CHANNEL: return g_strdup(r->shown_channel);
	case COL_COUNT: return sa_format_count(STAT(r)->count);
	case COL_MEAN: return sa_format_duration(STAT(r)->mean_ns);
	default: return sa_format_duration((double)figure(r, (column)c));
	}
}

/* A duration cell's exact value: its tooltip, and what Copy writes. */
static char *exact_text(const SaLabelRow *r, column c)
{
	return c == COL_MEAN ? sa_format_ns_mean(STAT(r)->mean_ns) : sa_format_ns_exact(figure(r, c));
}

static int compare_rows(gconstpointer a, gconstpointer b, guint column_, gpointer data)
{
	const SaLabelRow *x = a, *y = b;
	column c = (column)column_;

	/* By the exact values, never by the text shown. */
	if (c == COL_MEAN)
		return TSD_TABLE_ORDER(STAT(x)->mean_ns, STAT(y)->mean_ns);
	return TSD_TABLE_ORDER(figure(x, c), figure(y, c));
}

/* The row as one line of tab-separated fields for the clipboard: whole
 * names, counts and exact nanoseconds without separators (a spreadsheet
 * reads them as numbers), after a header line naming the columns. */
static char *copy_row(gpointer item, gpointer data)
{
	const SaLabelRow *r = item;
	const tsr_trace_label_stat *s = STAT(r);
	g_autofree char *mean = g_strdup_printf("%.3f", s->mean_ns);

	return g_strdup_printf("Name\tChannel\tCount\tTotal (ns)\tSelf (ns)\tMean (ns)\t"
	                       "Median (ns)\tMin (ns)\tMax (ns)\n"
	                       "%s\t%s\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT
	                       "\t%" G_GUINT64_FORMAT "\t%s\t%" G_GUINT64_FORMAT
	                       "\t%" G_GUINT64_FORMAT "\t%" G_GUINT64_FORMAT "\n",
	                       r->name, r->channel, s->count, s->total_ns, s->self_ns, mean,
	                       s->median_ns, s->min_ns, s->max_ns);
}

/* The whole name of a cut one, and a duration's exact nanoseconds, made
 * for the rows on screen only. */
static void bind_cell(GtkWidget *label, gpointer item, guint c, gpointer data)
{
	if (c == COL_NAME) {
		tsd_widget_set_name_tooltip(label, ((SaLabelRow *)item)->name);
	} else if (c > COL_COUNT) {
		g_autofree char *exact = exact_text(item, (column)c);

		gtk_widget_set_tooltip_text(label, exact);
	}
}

/* --- The view --------------------------------------------------------------------- */

struct _SaStatsView {
	SaTableView parent_instance;
};

G_DEFINE_FINAL_TYPE(SaStatsView, sa_stats_view, SA_TYPE_TABLE_VIEW)

/* Shows `stats` of `doc`'s trace. */
static void show_stats(TsdTable *view, SaDocument *doc, const sa_stats *stats)
{
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_object_unref);
	tsr_trace *trace = sa_document_get_trace(doc);
	const tsr_trace_channel *channels = NULL;
	size_t n_channels = 0;
	g_autofree char *window = NULL, *spans = NULL, *labels = NULL, *text = NULL;

	tsd_table_set_busy(view, FALSE, NULL);
	tsr_trace_get_channels(&channels, &n_channels, trace);
	for (size_t i = 0; i < stats->n_labels; i++) {
		const tsr_trace_label_stat *s = &stats->labels[i];

		g_ptr_array_add(rows, sa_label_row_new(tsr_trace_get_name(trace, s->name),
		                                       s->channel < n_channels ? channels[s->channel].name
		                                                               : NULL,
		                                       FALSE, s, sizeof(*s)));
	}
	tsd_table_set_rows(view, rows->pdata, rows->len);
	window = sa_call_tree_describe_window(trace, stats->from_ns, stats->to_ns);
	spans = sa_format_count(stats->spans);
	labels = sa_format_count(stats->n_labels);
	text = g_strdup_printf("%s: %s spans, %s labels", window, spans, labels);
	tsd_table_set_caption(view, text);
}

static void on_stats_done(GObject *source, GAsyncResult *result, gpointer data)
{
	g_autoptr(SaTableView) self = data;
	TsdTable *view = sa_table_view_get_table(self);
	g_autoptr(GError) error = NULL;
	g_autoptr(sa_stats) stats = sa_document_stats_finish(result, &error);
	SaSession *session = sa_view_get_session(SA_VIEW(self));

	if (!tsd_table_end_job(view, result) || !session || !sa_session_get_document(session))
		return;
	if (stats)
		show_stats(view, sa_session_get_document(session), stats);
	else
		tsd_table_set_message(view, error->message, FALSE);
}

/* The statistics of the session's window, in a worker. */
static void update(SaView *view, SaSession *session)
{
	SaDocument *doc = session ? sa_session_get_document(session) : NULL;
	int64_t from, to;

	if (!doc) {
		tsd_table_set_message(SA_TABLE(view), "", FALSE);
		return;
	}
	sa_session_get_window(session, &from, &to);
	sa_document_stats_async(
	    doc, from, to, tsd_table_start_job(SA_TABLE(view), "Computing the statistics…"),
	    on_stats_done, g_object_ref(view));
}

static void sa_stats_view_class_init(SaStatsViewClass *klass)
{
	SA_VIEW_CLASS(klass)->watch = SA_VIEW_WATCH_DOCUMENT | SA_VIEW_WATCH_WINDOW;
	SA_VIEW_CLASS(klass)->update = update;
	gtk_widget_class_set_template_from_resource(GTK_WIDGET_CLASS(klass),
	                                            "/org/tilescope/SystemAnalyser/sa-stats-view.ui");
}

static void sa_stats_view_init(SaStatsView *self)
{
	static const TsdTableCells cells = {
	    .text = cell_text, .bind = bind_cell, .compare = compare_rows, .copy = copy_row};
	TsdTable *table;

	gtk_widget_init_template(GTK_WIDGET(self));
	table = SA_TABLE(self);
	tsd_table_set_cells(table, &cells, NULL);
	/* Largest total first, as `tilescope trace` lists them. */
	tsd_table_sort_by(table, COL_TOTAL, GTK_SORT_DESCENDING);
}
