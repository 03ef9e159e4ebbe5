/*
 * The History view (ga-history-view.h). Everything it shows was read and
 * searched when the store loaded (ga-history.c, in a worker); choosing a
 * metric or a label only rebuilds the chart's arrays. Choosing a branch
 * asks the window to read the store again on that branch
 * (win.history-branch), with the window's progress and Cancel, since the
 * change points of a branch's series are searched on its runs alone, as
 * `tilescope history changes --branch` searches them.
 */
#include "ga-history-view.h"

#include <tilescope/tsc-chart.h>
#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-table.h>

#include <math.h>
#include <string.h>

/* A row of the metrics list: a metric's index in the history. */
#define GA_TYPE_HISTORY_ROW (ga_history_row_get_type())
G_DECLARE_FINAL_TYPE(GaHistoryRow, ga_history_row, GA, HISTORY_ROW, GObject)

struct _GaHistoryRow {
	GObject parent_instance;
	guint index;
};

G_DEFINE_FINAL_TYPE(GaHistoryRow, ga_history_row, G_TYPE_OBJECT)

static void ga_history_row_class_init(GaHistoryRowClass *klass)
{
}

static void ga_history_row_init(GaHistoryRow *self)
{
}

/* The details pane's fields, in its order. */
enum { F_COMMIT, F_PARENT, F_BRANCH, F_LABEL, F_TIME, F_VALUE, F_CHANGE, F_REPORT, N_FIELDS };
static const char *const field_captions[N_FIELDS] = {
	"Commit", "Parent", "Branch", "Label", "Time", "Value", "Change", "Report"};

struct _GaHistoryView {
	GaView parent_instance;

	GaHistory *history;          /* a ref, or NULL */
	guint metric;                /* the charted metric's index, G_MAXUINT: none */
	GArray *items;               /* guint: the chart's items' run indices */
	gint64 selected_run;         /* the selected run's index, or -1 */
	gboolean filling;            /* the filters' models are being set */
	GtkLabel *values[N_FIELDS];

	/* From the template. */
	GtkDropDown *branch;
	GtkDropDown *label;
	GtkLabel *summary;
	TsdTable *metrics;
	TsdTable *change_table;
	TscChart *chart;
	GtkLabel *heading;
	GtkGrid *fields;
	GtkLabel *message;
};

G_DEFINE_FINAL_TYPE(GaHistoryView, ga_history_view, GA_TYPE_VIEW)

/* --- Formats ----------------------------------------------------------------------- */

/* A value of metric `m` with its unit ("1,024 B", "3,500 cycles"), with
 * up to two decimals when it has any (a noisy change's median of an even
 * number of samples: "150,000.5"), as `tilescope history changes` prints
 * it. */
static char *format_value(const ga_history_metric *m, double v)
{
	g_autofree char *whole = NULL;
	char frac[8] = "";
	double a = fabs(v);
	int hundredths;

	if (isnan(v))
		return g_strdup("not recorded");
	hundredths = (int)llround((a - floor(a)) * 100);
	a = floor(a) + (hundredths == 100);
	hundredths %= 100;
	if (hundredths % 10)
		g_snprintf(frac, sizeof(frac), ".%02d", hundredths);
	else if (hundredths)
		g_snprintf(frac, sizeof(frac), ".%d", hundredths / 10);
	whole = tsc_format_thousands(a, NULL);
	return g_strdup_printf("%s%s%s%s", v < 0 ? "-" : "", whole, frac,
	                       m->unit == TSR_UNIT_BYTES    ? " B"
	                       : m->unit == TSR_UNIT_CYCLES ? " cycles"
	                                                    : "");
}

static char *chart_value(double v, gpointer data)
{
	return format_value(data, v);
}

/* A change as one line: where, before and after, the change; for a
 * noisy one the test's p and verdict. */
static char *format_change(GaHistory *h, const ga_history_metric *m, const ga_history_change *c)
{
	const tsr_change_point *p = &c->point;
	g_autofree char *before = format_value(m, p->before);
	g_autofree char *after = format_value(m, p->after);
	g_autofree char *delta = format_value(m, p->change);
	g_autofree char *where =
	    c->first == c->last
	        ? g_strdup_printf("%.12s", ga_history_get_run(h, c->run)->commit)
	        : g_strdup_printf("%.12s..%.12s (%zu commits)", ga_history_get_run(h, c->first)->commit,
	                          ga_history_get_run(h, c->last)->commit, p->last - p->first + 1);
	g_autofree char *rel = isnan(p->relative) ? g_strdup("") :
	                       g_strdup_printf(" (%+.2f %%)", p->relative * 100);

	if (m->noisy)
		return g_strdup_printf("%s: %s → %s, %s%s%s; p %.3g, %s", where, before, after,
		                       p->change < 0 ? "" : "+", delta, rel, p->p_value,
		                       tsr_change_verdict_get_name(p->verdict));
	return g_strdup_printf("%s: %s → %s, %s%s%s", where, before, after, p->change < 0 ? "" : "+",
	                       delta, rel);
}

static const char *label_of(const tsr_history_run *run)
{
	return run->label ? run->label : "";
}

/* --- The metrics list ----------------------------------------------------------------- */

static const ga_history_metric *metric_of(GaHistoryView *self, gpointer item)
{
	return ga_history_get_metric(self->history, GA_HISTORY_ROW(item)->index);
}

static char *metric_text(gpointer item, guint column, gpointer data)
{
	const ga_history_metric *m = metric_of(data, item);

	switch (column) {
	case 0:
		return g_strdup(m->name);
	case 1:
		return format_value(m, m->latest);
	default:
		return g_strdup_printf("%u", m->n_changes);
	}
}

static int metric_compare(gconstpointer a, gconstpointer b, guint column, gpointer data)
{
	const ga_history_metric *ma = metric_of(data, (gpointer)a), *mb = metric_of(data, (gpointer)b);

	if (column == 1)
		return TSD_TABLE_ORDER(isnan(ma->latest) ? -1 : ma->latest,
		                       isnan(mb->latest) ? -1 : mb->latest);
	return TSD_TABLE_ORDER(ma->n_changes, mb->n_changes);
}

/* --- The change points list -------------------------------------------------------------- */

static const ga_history_change *change_of(GaHistoryView *self, gpointer item)
{
	return &ga_history_get_metric(self->history, self->metric)->changes[GA_HISTORY_ROW(item)->index];
}

static char *change_text(gpointer item, guint column, gpointer data)
{
	GaHistoryView *self = data;
	const ga_history_metric *m = ga_history_get_metric(self->history, self->metric);
	const ga_history_change *c = change_of(self, item);

	switch (column) {
	case 0:
		return c->first == c->last
		           ? g_strdup_printf("%.12s", ga_history_get_run(self->history, c->run)->commit)
		           : g_strdup_printf("%.12s..%.12s",
		                             ga_history_get_run(self->history, c->first)->commit,
		                             ga_history_get_run(self->history, c->last)->commit);
	case 1:
		return format_value(m, c->point.before);
	case 2:
		return format_value(m, c->point.after);
	case 3: {
		g_autofree char *d = format_value(m, c->point.change);

		return g_strdup_printf("%s%s", c->point.change < 0 ? "" : "+", d);
	}
	default:
		return g_strdup(tsr_change_verdict_get_name(c->point.verdict));
	}
}

static char *change_copy(gpointer item, gpointer data)
{
	GaHistoryView *self = data;

	return format_change(self->history, ga_history_get_metric(self->history, self->metric),
	                     change_of(self, item));
}

/* The chart item showing run `run`, or -1 when the label filter hides it. */
static gint64 item_of_run(GaHistoryView *self, guint run)
{
	for (guint k = 0; k < self->items->len; k++)
		if (g_array_index(self->items, guint, k) == run)
			return k;
	return -1;
}

/* A change point's row activated: its run selected on the chart. */
static void on_change_activated(GtkColumnView *view, guint position, gpointer data)
{
	GaHistoryView *self = data;
	g_autoptr(GObject) row = g_list_model_get_item(
	    G_LIST_MODEL(tsd_table_get_selection(self->change_table)), position);
	gint64 item = row ? item_of_run(self, change_of(self, row)->run) : -1;

	if (item < 0)
		return;
	g_autoptr(GtkBitset) sel = gtk_bitset_new_range((guint)item, 1);
	tsc_chart_set_focus_item(self->chart, (guint)item);
	tsc_chart_set_selection(self->chart, sel);
	gtk_widget_grab_focus(GTK_WIDGET(self->chart));
}

/* --- The details ---------------------------------------------------------------------- */

/* The earlier run of `run`'s label at another commit, or -1. */
static gint64 previous_run(GaHistoryView *self, guint run)
{
	const tsr_history_run *r = ga_history_get_run(self->history, run);

	for (guint k = run; k-- > 0;) {
		const tsr_history_run *q = ga_history_get_run(self->history, k);

		if (strcmp(label_of(q), label_of(r)) == 0 && strcmp(q->commit, r->commit))
			return k;
	}
	return -1;
}

/* The change of the charted metric that run `run` belongs to, or NULL:
 * the one at its commit, or whose range holds it. */
static const ga_history_change *change_at(GaHistoryView *self, guint run)
{
	const ga_history_metric *m = ga_history_get_metric(self->history, self->metric);
	const tsr_history_run *r = ga_history_get_run(self->history, run);

	for (guint i = 0; m && i < m->n_changes; i++) {
		const ga_history_change *c = &m->changes[i];

		if (strcmp(c->label, label_of(r)) == 0 &&
		    ((run >= c->first && run <= c->last) ||
		     strcmp(ga_history_get_run(self->history, c->run)->commit, r->commit) == 0))
			return c;
	}
	return NULL;
}

/* The details of run `run` (-1: none), and what the actions can do. */
static void show_run(GaHistoryView *self, gint64 run)
{
	const tsr_history_run *r = run >= 0 && self->history
	                               ? ga_history_get_run(self->history, (guint)run)
	                               : NULL;
	const ga_history_metric *m = r ? ga_history_get_metric(self->history, self->metric) : NULL;
	const ga_history_change *c;
	char *text[N_FIELDS] = {0};

	gtk_widget_action_set_enabled(GTK_WIDGET(self), "history.open", r != NULL);
	gtk_widget_action_set_enabled(GTK_WIDGET(self), "history.compare",
	                              r && previous_run(self, (guint)run) >= 0);
	gtk_widget_set_visible(GTK_WIDGET(self->fields), r != NULL);
	if (!r) {
		gtk_label_set_label(self->heading, "No run chosen");
		return;
	}
	g_autofree char *heading = g_strdup_printf("Run %" G_GINT64_FORMAT " of %u", run + 1,
	                                           ga_history_get_n_runs(self->history));
	g_autoptr(GDateTime) t = g_date_time_new_from_unix_utc(r->time);
	g_autoptr(GFile) report = ga_history_dup_report_file(self->history, (guint)run);

	gtk_label_set_label(self->heading, heading);
	text[F_COMMIT] = g_strdup(r->commit);
	text[F_PARENT] = g_strdup(r->parent ? r->parent : "not known");
	text[F_BRANCH] = g_strdup(r->branch ? r->branch : "not known");
	text[F_LABEL] = g_strdup(*label_of(r) ? r->label : "none");
	text[F_TIME] = t ? g_date_time_format(t, "%Y-%m-%d %H:%M:%S UTC") : g_strdup("not known");
	text[F_VALUE] = m ? format_value(m, m->values[run]) : g_strdup("no metric chosen");
	c = m ? change_at(self, (guint)run) : NULL;
	text[F_CHANGE] = c ? format_change(self->history, m, c) : g_strdup("none at this run");
	text[F_REPORT] = report ? g_file_get_parse_name(report) : g_strdup("not recorded");
	for (int i = 0; i < N_FIELDS; i++) {
		gtk_label_set_label(self->values[i], text[i]);
		g_free(text[i]);
	}
}

/* The run under the chart's pointer, else the selected one. */
static void on_motion(GtkEventControllerMotion *ctl, double x, double y, gpointer data)
{
	GaHistoryView *self = data;
	gint64 item = tsc_chart_item_at(self->chart, x, NULL, NULL);

	show_run(self, item >= 0 ? (gint64)g_array_index(self->items, guint, item)
	                         : self->selected_run);
}

static void on_leave(GtkEventControllerMotion *ctl, gpointer data)
{
	GaHistoryView *self = data;

	show_run(self, self->selected_run);
}

static void on_chart_selection(TscChart *chart, gpointer data)
{
	GaHistoryView *self = data;
	GtkBitset *sel = tsc_chart_get_selection(chart);

	self->selected_run = gtk_bitset_is_empty(sel)
	                         ? -1
	                         : (gint64)g_array_index(self->items, guint,
	                                                 gtk_bitset_get_minimum(sel));
	gtk_widget_set_visible(GTK_WIDGET(self->message), FALSE);
	show_run(self, self->selected_run);
}

/* --- Opening reports ------------------------------------------------------------------- */

/* The report of run `run` when it is still there, else NULL with the
 * view's message saying where it was. */
static GFile *existing_report(GaHistoryView *self, guint run)
{
	g_autoptr(GFile) file = ga_history_dup_report_file(self->history, run);
	const tsr_history_run *r = ga_history_get_run(self->history, run);
	g_autofree char *text = NULL;

	if (file && g_file_query_exists(file, NULL))
		return g_steal_pointer(&file);
	if (file) {
		g_autofree char *name = g_file_get_parse_name(file);

		text = g_strdup_printf("The report of commit %.12s is no longer at %s.", r->commit, name);
	} else {
		text = g_strdup_printf("The store has no report path for commit %.12s.", r->commit);
	}
	gtk_label_set_label(self->message, text);
	gtk_widget_set_visible(GTK_WIDGET(self->message), TRUE);
	return NULL;
}

/* history.open: the selected run's report in the window. */
static void open_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaHistoryView *self = GA_HISTORY_VIEW(widget);
	g_autoptr(GFile) file = NULL;
	g_autofree char *path = NULL;

	if (self->selected_run < 0 || !(file = existing_report(self, (guint)self->selected_run)))
		return;
	path = g_file_get_path(file);
	gtk_widget_activate_action(widget, "win.open-report", "s", path);
}

/* history.compare: the selected run's report (B) against its predecessor's (A). */
static void compare_action(GtkWidget *widget, const char *name, GVariant *param)
{
	GaHistoryView *self = GA_HISTORY_VIEW(widget);
	gint64 prev = self->selected_run >= 0 ? previous_run(self, (guint)self->selected_run) : -1;
	g_autoptr(GFile) a = NULL, b = NULL;
	g_autofree char *pa = NULL, *pb = NULL;

	if (prev < 0 || !(a = existing_report(self, (guint)prev)) ||
	    !(b = existing_report(self, (guint)self->selected_run)))
		return;
	pa = g_file_get_path(a);
	pb = g_file_get_path(b);
	gtk_widget_activate_action(widget, "win.compare-reports", "(ss)", pa, pb);
}

/* Enter on the chart selects the focused run and opens its report. */
static gboolean on_chart_key(GtkEventControllerKey *ctl, guint keyval, guint keycode,
                             GdkModifierType state, gpointer data)
{
	GaHistoryView *self = data;
	guint item = tsc_chart_get_focus_item(self->chart);

	if ((keyval != GDK_KEY_Return && keyval != GDK_KEY_KP_Enter) || item >= self->items->len ||
	    (state & (GDK_CONTROL_MASK | GDK_SHIFT_MASK | GDK_ALT_MASK)))
		return FALSE;
	g_autoptr(GtkBitset) sel = gtk_bitset_new_range(item, 1);
	tsc_chart_set_selection(self->chart, sel);
	gtk_widget_activate_action(GTK_WIDGET(self), "history.open", NULL);
	return TRUE;
}

static void on_chart_pressed(GtkGestureClick *gesture, int n_press, double x, double y,
                             gpointer data)
{
	if (n_press == 2)
		gtk_widget_activate_action(GTK_WIDGET(data), "history.open", NULL);
}

/* --- The chart ----------------------------------------------------------------------- */

static char *item_label(guint item, gpointer data)
{
	GaHistoryView *self = data;
	const tsr_history_run *r;

	if (item >= self->items->len)
		return g_strdup_printf("Item %u", item);
	r = ga_history_get_run(self->history, g_array_index(self->items, guint, item));
	return g_strdup_printf("Run %u, commit %.12s", g_array_index(self->items, guint, item) + 1,
	                       r->commit);
}

/* The label the filter chose, or NULL for every label. */
static const char *chosen_label(GaHistoryView *self)
{
	guint pos = gtk_drop_down_get_selected(self->label);
	const char *const *labels = ga_history_get_labels(self->history);

	return pos == 0 || pos == GTK_INVALID_LIST_POSITION ? NULL : labels[pos - 1];
}

/* The chart and the change points of the chosen metric over the runs of
 * the chosen label: each run a bar (the chart's totals, so that its
 * description and tooltips give the values) under a line through them,
 * a mark at each change, and the bars of a noisy change's range in
 * another colour. Missing values draw as the one before (the details say
 * "not recorded"). */
static void rebuild_chart(GaHistoryView *self)
{
	const ga_history_metric *m = ga_history_get_metric(self->history, self->metric);
	const char *label = chosen_label(self);
	g_autoptr(GArray) line = g_array_new(FALSE, FALSE, sizeof(double));
	g_autoptr(GArray) bars = NULL;    /* 2 × items: outside, inside a noisy range */
	g_autoptr(GArray) marks = g_array_new(FALSE, FALSE, sizeof(guint));
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_object_unref);
	const GdkRGBA colours[] = {{0.21, 0.52, 0.89, 0.3}, {0.96, 0.6, 0.2, 0.6}};
	const GdkRGBA line_colour = {0.21, 0.52, 0.89, 1}, mark = {0.88, 0.11, 0.14, 1};
	const char *names[] = {m ? m->name : "", "In a noisy change's range"};
	double last = 0;
	gboolean ranges = FALSE;       /* a noisy change's range is shown */
	guint n_runs = self->history ? ga_history_get_n_runs(self->history) : 0, n;

	g_array_set_size(self->items, 0);
	self->selected_run = -1;
	for (guint i = 0; m && i < n_runs; i++) {
		if (label && strcmp(label_of(ga_history_get_run(self->history, i)), label))
			continue;
		g_array_append_val(self->items, i);
		if (!isnan(m->values[i]))
			last = m->values[i];
		g_array_append_val(line, last);
	}
	n = self->items->len;
	bars = g_array_sized_new(FALSE, TRUE, sizeof(double), 2 * n);
	g_array_set_size(bars, 2 * n);
	memcpy(bars->data, line->data, n * sizeof(double));
	for (guint i = 0; m && i < m->n_changes; i++) {
		const ga_history_change *c = &m->changes[i];
		gint64 at = label && strcmp(c->label, label) ? -1 : item_of_run(self, c->run);
		GaHistoryRow *row;

		if (at < 0)
			continue;
		row = g_object_new(GA_TYPE_HISTORY_ROW, NULL);
		row->index = i;
		g_ptr_array_add(rows, row);
		g_array_append_val(marks, at);
		for (guint k = 0; c->first != c->last && k < n; k++) {
			guint run = g_array_index(self->items, guint, k);

			if (run >= c->first && run <= c->last && strcmp(c->label, label_of(
			        ga_history_get_run(self->history, run))) == 0) {
				g_array_index(bars, double, n + k) = g_array_index(bars, double, k);
				g_array_index(bars, double, k) = 0;
				ranges = TRUE;
			}
		}
	}
	tsc_chart_set_label(self->chart, m ? m->name : "History");
	if (m)
		tsc_chart_set_value_format_func(self->chart, chart_value, (gpointer)m, NULL);
	tsc_chart_set_stacks(self->chart, n, ranges ? 2 : 1, (double *)(void *)bars->data, colours,
	                     names);
	tsc_chart_clear_series(self->chart);
	if (m)
		tsc_chart_add_series(self->chart, m->name, (double *)(void *)line->data, &line_colour,
		                     TSC_SERIES_LINE);
	tsc_chart_set_markers(self->chart, (guint *)(void *)marks->data, marks->len, &mark);
	tsc_chart_set_selection(self->chart, NULL);
	tsd_table_set_rows(self->change_table, rows->pdata, rows->len);
	g_autofree char *caption = g_strdup_printf("%u change point%s", rows->len,
	                                           rows->len == 1 ? "" : "s");
	tsd_table_set_caption(self->change_table, caption);
	show_run(self, -1);
}

static void on_metric_selected(GtkSingleSelection *selection, GParamSpec *pspec, gpointer data)
{
	GaHistoryView *self = data;
	gpointer item = gtk_single_selection_get_selected_item(selection);

	if (!item || !self->history)
		return;
	self->metric = GA_HISTORY_ROW(item)->index;
	rebuild_chart(self);
}

/* Enter on a metric: the keyboard to its chart. */
static void on_metric_activated(GtkColumnView *view, guint position, gpointer data)
{
	GaHistoryView *self = data;

	gtk_widget_grab_focus(GTK_WIDGET(self->chart));
}

static void on_label_chosen(GtkDropDown *dropdown, GParamSpec *pspec, gpointer data)
{
	GaHistoryView *self = data;

	if (!self->filling && self->history)
		rebuild_chart(self);
}

/* A branch chosen: the store read again on its runs (the window's load). */
static void on_branch_chosen(GtkDropDown *dropdown, GParamSpec *pspec, gpointer data)
{
	GaHistoryView *self = data;
	guint pos = gtk_drop_down_get_selected(dropdown);

	if (self->filling || !self->history || pos == GTK_INVALID_LIST_POSITION)
		return;
	gtk_widget_activate_action(GTK_WIDGET(self), "win.history-branch", "s",
	                           pos == 0 ? "" : ga_history_get_branches(self->history)[pos - 1]);
}

/* --- The store ----------------------------------------------------------------------- */

/* A filter's entries: `all`, then `names` ("" as "(none)"); `chosen`
 * selected when there, else `all`. */
static void fill_filter(GtkDropDown *dropdown, const char *all, const char *const *names,
                        const char *chosen)
{
	g_autoptr(GtkStringList) list = gtk_string_list_new(NULL);
	guint pos = 0;

	gtk_string_list_append(list, all);
	for (guint i = 0; names[i]; i++) {
		gtk_string_list_append(list, *names[i] ? names[i] : "(none)");
		if (chosen && g_strcmp0(names[i], chosen) == 0)
			pos = i + 1;
	}
	gtk_drop_down_set_model(dropdown, G_LIST_MODEL(list));
	gtk_drop_down_set_selected(dropdown, pos);
}

/* The session's store changed: the filters, the list and the chart,
 * keeping the metric and label chosen when the new store has them. */
static void on_history(GaSession *session, GParamSpec *pspec, gpointer data)
{
	GaHistoryView *self = data;
	GaHistory *h = ga_session_get_history(session);
	const ga_history_metric *was = self->history && self->metric != G_MAXUINT
	                                   ? ga_history_get_metric(self->history, self->metric)
	                                   : NULL;
	g_autofree char *metric = g_strdup(was ? was->name : "cycles.total");
	g_autofree char *label = self->history && chosen_label(self) ? g_strdup(chosen_label(self))
	                                                              : NULL;
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_object_unref);
	GtkSingleSelection *selection = tsd_table_get_selection(self->metrics);
	guint chosen = 0, n_changes = 0;

	/* The rows, the chart's items and its value format name metrics, runs
	 * and changes of the store that goes. */
	tsd_table_set_rows(self->change_table, NULL, 0);
	tsd_table_set_rows(self->metrics, NULL, 0);
	g_array_set_size(self->items, 0);
	tsc_chart_set_value_format_func(self->chart, tsc_format_thousands, NULL, NULL);
	tsc_chart_set_stacks(self->chart, 0, 0, NULL, NULL, NULL);
	tsc_chart_clear_series(self->chart);
	tsc_chart_set_markers(self->chart, NULL, 0, NULL);
	g_clear_pointer(&self->history, ga_history_unref);
	self->metric = G_MAXUINT;
	if (!h) {
		ga_view_show_empty(GA_VIEW(self), "Open a history store (Ctrl+O) to see it here.");
		return;
	}
	self->history = ga_history_ref(h);
	self->filling = TRUE;
	fill_filter(self->branch, "All branches", ga_history_get_branches(h), ga_history_get_branch(h));
	fill_filter(self->label, "All labels", ga_history_get_labels(h), label);
	self->filling = FALSE;
	for (guint i = 0; i < ga_history_get_n_metrics(h); i++) {
		GaHistoryRow *row = g_object_new(GA_TYPE_HISTORY_ROW, NULL);

		row->index = i;
		g_ptr_array_add(rows, row);
		n_changes += ga_history_get_metric(h, i)->n_changes;
		if (strcmp(ga_history_get_metric(h, i)->name, metric) == 0)
			chosen = i;
	}
	guint n_runs = ga_history_get_n_runs(h);
	g_autofree char *summary = g_strdup_printf(
	    "%u run%s, %u metric%s, %u change point%s", n_runs, n_runs == 1 ? "" : "s", rows->len,
	    rows->len == 1 ? "" : "s", n_changes, n_changes == 1 ? "" : "s");
	gtk_label_set_label(self->summary, summary);
	tsd_table_set_rows(self->metrics, rows->pdata, rows->len);
	ga_view_show_content(GA_VIEW(self));
	/* The metric charted is the one chosen before, else cycles.total,
	 * else the first; its row selected where the list sorts it. */
	for (guint p = 0; p < g_list_model_get_n_items(G_LIST_MODEL(selection)); p++) {
		g_autoptr(GObject) row = g_list_model_get_item(G_LIST_MODEL(selection), p);

		if (GA_HISTORY_ROW(row)->index == chosen)
			gtk_single_selection_set_selected(selection, p);
	}
	self->metric = chosen;
	rebuild_chart(self);
}

/* GaView::document_changed: a report opened from the store leaves the
 * view on the store. */
static void document_changed(GaView *view)
{
	GaHistoryView *self = GA_HISTORY_VIEW(view);

	if (self->history)
		ga_view_show_content(view);
	else
		ga_view_show_empty(view, "Open a history store (Ctrl+O) to see it here.");
}

/* --- The class ---------------------------------------------------------------------- */

static void ga_history_view_constructed(GObject *object)
{
	GaHistoryView *self = GA_HISTORY_VIEW(object);
	GaSession *session;
	static const TsdTableCells metric_cells = {.text = metric_text, .compare = metric_compare};
	static const TsdTableCells change_cells = {.text = change_text, .copy = change_copy};
	GtkEventController *motion = gtk_event_controller_motion_new();
	GtkEventController *key = gtk_event_controller_key_new();
	GtkGesture *click = gtk_gesture_click_new();

	/* The base builds the template (ga_view_class_set_template). */
	G_OBJECT_CLASS(ga_history_view_parent_class)->constructed(object);
	ga_view_set_empty_title(GA_VIEW(self), "No history store open");
	tsd_a11y_name_dropdown(self->branch, "Branch");
	tsd_a11y_name_dropdown(self->label, "Label");
	tsd_table_set_cells(self->metrics, &metric_cells, self);
	tsd_table_set_cells(self->change_table, &change_cells, self);
	g_signal_connect(tsd_table_get_selection(self->metrics), "notify::selected-item",
	                 G_CALLBACK(on_metric_selected), self);
	g_signal_connect(tsd_table_get_view(self->metrics), "activate",
	                 G_CALLBACK(on_metric_activated), self);
	g_signal_connect(tsd_table_get_view(self->change_table), "activate",
	                 G_CALLBACK(on_change_activated), self);
	for (int i = 0; i < N_FIELDS; i++) {
		GtkWidget *caption = gtk_label_new(field_captions[i]);
		GtkWidget *value = gtk_label_new("—");

		gtk_label_set_xalign(GTK_LABEL(caption), 0);
		gtk_widget_add_css_class(caption, "dim-label");
		gtk_label_set_xalign(GTK_LABEL(value), 0);
		gtk_label_set_wrap(GTK_LABEL(value), TRUE);
		gtk_label_set_wrap_mode(GTK_LABEL(value), PANGO_WRAP_WORD_CHAR);
		gtk_label_set_selectable(GTK_LABEL(value), TRUE);
		gtk_widget_set_hexpand(value, TRUE);
		gtk_grid_attach(self->fields, caption, 0, i, 1, 1);
		gtk_grid_attach(self->fields, value, 1, i, 1, 1);
		tsd_a11y_name_value(value, field_captions[i]);
		self->values[i] = GTK_LABEL(value);
	}
	tsc_chart_set_item_label_func(self->chart, item_label, self, NULL);
	g_signal_connect(motion, "motion", G_CALLBACK(on_motion), self);
	g_signal_connect(motion, "leave", G_CALLBACK(on_leave), self);
	gtk_widget_add_controller(GTK_WIDGET(self->chart), motion);
	gtk_event_controller_set_propagation_phase(key, GTK_PHASE_CAPTURE);
	g_signal_connect(key, "key-pressed", G_CALLBACK(on_chart_key), self);
	gtk_widget_add_controller(GTK_WIDGET(self->chart), key);
	g_signal_connect(click, "pressed", G_CALLBACK(on_chart_pressed), self);
	gtk_widget_add_controller(GTK_WIDGET(self->chart), GTK_EVENT_CONTROLLER(click));
	session = ga_view_get_session(GA_VIEW(self));
	g_signal_connect_object(session, "notify::history", G_CALLBACK(on_history), self, 0);
	on_history(session, NULL, self);
}

static void ga_history_view_finalize(GObject *object)
{
	GaHistoryView *self = GA_HISTORY_VIEW(object);

	g_clear_pointer(&self->history, ga_history_unref);
	g_array_unref(self->items);
	G_OBJECT_CLASS(ga_history_view_parent_class)->finalize(object);
}

static void ga_history_view_class_init(GaHistoryViewClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->constructed = ga_history_view_constructed;
	object_class->finalize = ga_history_view_finalize;
	GA_VIEW_CLASS(klass)->document_changed = document_changed;
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GENERIC);
	gtk_widget_class_set_css_name(widget_class, "historyview");
	g_type_ensure(TSC_TYPE_CHART);
	g_type_ensure(TSD_TYPE_TABLE);
	ga_view_class_set_template(GA_VIEW_CLASS(klass),
	                           "/org/tilescope/GraphAnalyser/ga-history-view.ui");
	gtk_widget_class_bind_template_child(widget_class, GaHistoryView, branch);
	gtk_widget_class_bind_template_child(widget_class, GaHistoryView, label);
	gtk_widget_class_bind_template_child(widget_class, GaHistoryView, summary);
	gtk_widget_class_bind_template_child(widget_class, GaHistoryView, metrics);
	gtk_widget_class_bind_template_child(widget_class, GaHistoryView, change_table);
	gtk_widget_class_bind_template_child(widget_class, GaHistoryView, chart);
	gtk_widget_class_bind_template_child(widget_class, GaHistoryView, heading);
	gtk_widget_class_bind_template_child(widget_class, GaHistoryView, fields);
	gtk_widget_class_bind_template_child(widget_class, GaHistoryView, message);
	gtk_widget_class_bind_template_callback(widget_class, on_branch_chosen);
	gtk_widget_class_bind_template_callback(widget_class, on_label_chosen);
	gtk_widget_class_bind_template_callback(widget_class, on_chart_selection);
	gtk_widget_class_install_action(widget_class, "history.open", NULL, open_action);
	gtk_widget_class_install_action(widget_class, "history.compare", NULL, compare_action);
}

static void ga_history_view_init(GaHistoryView *self)
{
	self->items = g_array_new(FALSE, FALSE, sizeof(guint));
	self->metric = G_MAXUINT;
	self->selected_run = -1;
}

GtkWidget *ga_history_view_new(GaSession *session)
{
	return g_object_new(GA_TYPE_HISTORY_VIEW, "session", session, NULL);
}
