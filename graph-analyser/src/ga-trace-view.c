/*
 * The Execution Trace view (ga-trace-view.h). The lanes widget draws and
 * keeps the selection; this view picks the run and the mode (Flat, Flame,
 * BSP), starts the run's tile index in a worker thread (ga-trace-index.h)
 * and hands it to the lanes when it is ready, fills the details of the
 * selected step and the totals of the marked range from reportlib's steps
 * (already read by the document's loader, so nothing here waits for the
 * file), or with no range marked the run's summary (reportlib's figures),
 * and keeps the session's run, step and program in step with the
 * lanes both ways: a step selected here is the session's step and its
 * program the session's program; the session's step is selected and
 * scrolled into view here; the session's program's steps are outlined.
 *
 * A GaView: its widgets are declared in ga-trace-view.ui (the bar, the
 * lanes with report B's under them, the details below); the base follows
 * the session's documents and calls rebuild.
 */
#include "ga-trace-view.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-cancel.h>
#include <tilescope/tsd-name.h>
#include <tilescope/tsd-widget.h>

#include "ga-figures.h"
#include "ga-format.h"
#include "ga-program-kind.h"
#include "ga-step-lanes.h"

#include <math.h>

struct _GaTraceView {
	GaView parent_instance;
	gboolean syncing;           /* applying the session: do not write it back */
	GtkToggleButton *modes[GA_TRACE_MODE_COUNT];
	GtkBox *legend;
	GtkLabel *hint;
	GtkLabel *title_b;

	/* By side, [0] report A's and [1] report B's: in compare mode B's
	 * run and lanes are under A's, on one cycle axis with the same zoom
	 * and mode. */
	GtkDropDown *runs[2];
	GtkStringList *run_names[2];
	GaStepLanes *lanes[2];
	GCancellable *index_cancel[2]; /* the tile index being built */
	int details_side;           /* the lanes whose selection the details show: 0 A, 1 B */
	gboolean linking;           /* copying the visible range between A and B */

	GtkLabel *heading;
	GtkGrid *details;
	GtkLabel *range_heading;
	GtkGrid *range;
};

G_DEFINE_FINAL_TYPE(GaTraceView, ga_trace_view, GA_TYPE_VIEW)

static void align_axes(GaTraceView *self);

/* Report A, the session's document (borrowed; NULL: none). */
static GaDocument *doc_a(GaTraceView *self)
{
	return ga_view_get_document(GA_VIEW(self));
}

/* Report B while comparing, else NULL (borrowed). */
static GaDocument *doc_b(GaTraceView *self)
{
	return ga_view_get_compare_document(GA_VIEW(self));
}

static GaSession *session_of(GaTraceView *self)
{
	return ga_view_get_session(GA_VIEW(self));
}

/* A label for a grid cell; a value is named `acc`, its caption, for
 * assistive technology (tsd-a11y.h). */
static GtkWidget *cell(const char *text, const char *acc, gboolean number, gboolean dim)
{
	GtkWidget *l = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(l), number ? 1 : 0);
	gtk_label_set_selectable(GTK_LABEL(l), !dim);
	if (number)
		gtk_widget_add_css_class(l, "figure");
	if (dim)
		gtk_widget_add_css_class(l, "dim-label");
	if (acc)
		tsd_a11y_name_value(l, acc);
	return l;
}

/* A row of the details: a key and its value (named by the key). */
static void put(GaTraceView *self, int *row, const char *key, char *value)
{
	GtkWidget *v = cell(value, key, FALSE, FALSE);

	gtk_label_set_wrap(GTK_LABEL(v), TRUE);
	gtk_label_set_wrap_mode(GTK_LABEL(v), PANGO_WRAP_WORD_CHAR);
	gtk_widget_set_hexpand(v, TRUE);
	gtk_grid_attach(self->details, cell(key, NULL, FALSE, TRUE), 0, *row, 1, 1);
	gtk_grid_attach(self->details, v, 1, *row, 1, 1);
	(*row)++;
	g_free(value);
}

/* --- The selected step ---------------------------------------------------------------- */

static void update_details(GaTraceView *self)
{
	gboolean b = self->details_side == 1 && doc_b(self);
	GaStepLanes *lanes = self->lanes[b];
	GaDocument *doc = b ? doc_b(self) : doc_a(self);
	gint64 i = ga_step_lanes_get_selected(lanes);
	size_t run = gtk_drop_down_get_selected(self->runs[b]);
	tsr_report *r = doc ? ga_document_get_report(doc) : NULL;
	const tsr_step *steps;
	const tsr_program *progs;
	size_t n, n_progs;
	int row = 0;

	tsd_widget_remove_children(GTK_WIDGET(self->details));
	if (i < 0 || !r || tsr_report_get_steps(&steps, &n, r, run) || (size_t)i >= n) {
		gtk_label_set_text(self->heading, "No step selected");
		gtk_grid_attach(self->details,
		                cell("Click a step to see its figures; shift+drag to add up a range.",
		                     NULL, FALSE, TRUE),
		                0, 0, 2, 1);
		return;
	}
	{
		const tsr_step *st = &steps[i];
		/* In compare mode the heading says which report the step is in. */
		g_autofree char *heading =
		    doc_b(self) ? g_strdup_printf("Step %" G_GINT64_FORMAT " of report %s (%s), run %zu", i,
		                                  b ? "B" : "A", ga_document_get_title(doc), run)
		                : g_strdup_printf("Step %" G_GINT64_FORMAT, i);
		const char *what = st->type == TSR_STEP_ON_TILE_EXECUTE ? "Compute set"
		                   : st->type == TSR_STEP_SYNC           ? "Sync type"
		                                                         : "Exchange";

		gtk_label_set_text(self->heading, heading);
		if (doc_b(self))
			put(self, &row, "Report", g_strdup_printf("%s (%s)", b ? "B" : "A",
			                                          ga_document_get_title(doc)));
		put(self, &row, "Type", g_strdup(tsr_step_type_name(st->type)));
		if (!tsr_report_get_programs(&progs, &n_progs, r) && st->program < n_progs &&
		    progs[st->program].name && *progs[st->program].name) {
			/* The details hold whole names, to read and copy (the
			 * lanes draw them cut). */
			g_autofree char *name = tsd_name_clean(progs[st->program].name);

			put(self, &row, "Program", g_strdup_printf("%u (%s)", st->program, name));
		} else {
			put(self, &row, "Program", g_strdup_printf("%u", st->program));
		}
		if (st->compute_set >= 0 || st->exchange >= 0 || st->sync != TSR_SYNC_NONE) {
			g_autofree char *name = tsd_name_clean(ga_step_name(r, st));
			gint64 id = st->compute_set >= 0 ? st->compute_set : st->exchange;

			if (st->sync != TSR_SYNC_NONE)
				put(self, &row, what, g_steal_pointer(&name));
			else
				put(self, &row, what, g_strdup_printf("%s (%" G_GINT64_FORMAT ")", name, id));
		}
		{
			gint64 p = ga_step_lanes_get_selected_program(lanes);

			if (p >= 0 && p != (gint64)st->program && !tsr_report_get_programs(&progs, &n_progs, r) &&
			    (size_t)p < n_progs) {
				g_autofree char *name = tsd_name_clean(progs[p].name ? progs[p].name : "");

				put(self, &row, "Frame",
				    g_strdup_printf("%" G_GINT64_FORMAT " %s%s%s%s", p,
				                    ga_program_type_tag(progs[p].program_type),
				                    *name ? " (" : "", name, *name ? ")" : ""));
			}
		}
		put(self, &row, "Cycles from", ga_format_u64(st->cycles_from));
		put(self, &row, "Cycles to", ga_format_u64(st->cycles_to));
		put(self, &row, "Cycles", ga_format_u64(st->cycles));
		put(self, &row, "Cycles overlapped", ga_format_u64(st->cycles_overlapped));
		put(self, &row, "Active tiles", ga_format_u64(st->active_tiles));
		put(self, &row, "Tile balance", ga_format_pct(st->tile_balance));
		put(self, &row, "Active tile balance", ga_format_pct(st->active_tile_balance));
		put(self, &row, "Thread balance", ga_format_pct(st->thread_balance));
		put(self, &row, "Total data", ga_format_size(st->total_data));
		put(self, &row, "Data balance", ga_format_pct(st->data_balance));
	}
}

/* The user selected a step (or a flame frame) in A's or B's lanes: the
 * details show it. A's becomes the session's step, and its program the
 * session's program; report B's steps are not the session's (its
 * selections index report A), so nothing else follows them. */
static void on_selection_changed(GaStepLanes *lanes, GaTraceView *self)
{
	gint64 step = ga_step_lanes_get_selected(lanes), program;
	guint run = gtk_drop_down_get_selected(self->runs[0]);
	int b = lanes == self->lanes[1];

	if (step >= 0 || self->details_side == b) {
		self->details_side = b;
		update_details(self);
	}
	if (b || self->syncing || !doc_a(self) || run == GTK_INVALID_LIST_POSITION)
		return;
	self->syncing = TRUE;
	ga_session_set_step(session_of(self), run, step);
	program = ga_step_lanes_get_selected_program(lanes);
	if (program >= 0)
		ga_session_set_program(session_of(self), program);
	self->syncing = FALSE;
}

/* --- The marked range, or the run --------------------------------------------------- */

/* The steps by type from grid row 1: their count, their cycles (`what`)
 * and the share of `length` those take, and all of them; returns the next
 * row. Each figure is named by its row's caption and its column's. */
static int put_by_type(GtkGrid *grid, const size_t *count, const uint64_t *cycles,
                       uint64_t length, const char *what)
{
	static const char *const heads[] = {"Step type", "Steps", NULL, "Share"};
	size_t all = 0;
	uint64_t all_cycles = 0;
	int row = 1;

	for (int c = 0; c < 4; c++)
		gtk_grid_attach(grid, cell(heads[c] ? heads[c] : what, NULL, c > 0, TRUE), c, 0, 1, 1);
	for (int t = 0; t <= TSR_STEP_TYPE_COUNT; t++) {
		gboolean total = t == TSR_STEP_TYPE_COUNT;
		const char *name = total ? "All steps" : tsr_step_type_name((tsr_step_type)t);
		size_t n = total ? all : count[t];
		uint64_t cy = total ? all_cycles : cycles[t];
		char *values[4] = {NULL, ga_format_u64(n), ga_format_u64(cy),
		                   ga_format_pct(length ? (double)cy / (double)length : NAN)};

		if (!total && n == 0) {
			for (int c = 1; c < 4; c++)
				g_free(values[c]);
			continue;
		}
		all += total ? 0 : n;
		all_cycles += total ? 0 : cy;
		gtk_grid_attach(grid, cell(name, NULL, FALSE, FALSE), 0, row, 1, 1);
		for (int c = 1; c < 4; c++) {
			g_autofree char *acc = g_strdup_printf("%s, %s", name, heads[c] ? heads[c] : what);

			gtk_grid_attach(grid, cell(values[c], acc, TRUE, FALSE), c, row, 1, 1);
			g_free(values[c]);
		}
		row++;
	}
	return row;
}

/* A caption and its value (named by it) across the grid's columns. */
static void put_figure(GtkGrid *grid, int row, const char *caption, char *value)
{
	gtk_grid_attach(grid, cell(caption, NULL, FALSE, FALSE), 0, row, 1, 1);
	gtk_grid_attach(grid, cell(value, caption, TRUE, FALSE), 1, row, 3, 1);
	g_free(value);
}

/* Nothing marked: the whole run's summary, reportlib's figures of it (the
 * document's when it gathered them for this run, as it does for the run
 * `tilescope summary` shows). */
static void update_run_summary(GaTraceView *self, tsr_report *r, size_t run)
{
	tsr_summary_options opts = TSR_SUMMARY_OPTIONS_INIT;
	const tsr_summary_figures *f = ga_document_get_figures(doc_a(self));
	tsr_summary_figures *own = NULL;
	tsr_activity act;
	g_autofree char *cycles = NULL, *h = NULL;
	int row;

	if (tsr_report_fill_run_activity(&act, r, run)) {
		gtk_label_set_text(self->range_heading, "No execution profile");
		return;
	}
	cycles = ga_format_u64(act.cycles);
	h = g_strdup_printf("Run %zu: %s cycles", run, cycles);
	gtk_label_set_text(self->range_heading, h);
	row = put_by_type(self->range, act.steps, act.step_cycles, act.cycles, "Cycles");
	if (!f || !f->has_run || f->run != run) {
		opts.run = (int64_t)run;
		f = tsr_summary_figures_new(&own, r, &opts) ? NULL : own;
	}
	if (f && f->has_run) {
		put_figure(self->range, row, "Tile balance", ga_format_pct(f->tile_balance));
		put_figure(self->range, row + 1, "Thread balance", ga_format_pct(f->thread_balance));
	}
	tsr_summary_figures_free(own);
	gtk_grid_attach(self->range, cell("Shift+drag across the lanes to add up a range.", NULL,
	                                  FALSE, TRUE),
	                0, row + 2, 4, 1);
}

/* The lanes' "range-changed" too, connected swapped by the template. */
static void update_range(GaTraceView *self)
{
	size_t run = gtk_drop_down_get_selected(self->runs[0]);
	tsr_report *r = doc_a(self) ? ga_document_get_report(doc_a(self)) : NULL;
	uint64_t from, to, cycles[TSR_STEP_TYPE_COUNT] = {0};
	size_t count[TSR_STEP_TYPE_COUNT] = {0}, n;
	const tsr_step *steps;

	tsd_widget_remove_children(GTK_WIDGET(self->range));
	if (!r || tsr_report_get_steps(&steps, &n, r, run)) {
		gtk_label_set_text(self->range_heading, "No execution profile");
		return;
	}
	if (!ga_step_lanes_get_range(self->lanes[0], &from, &to)) {
		update_run_summary(self, r, run);
		return;
	}
	/* Steps that overlap the range, with the cycles they spend inside it. */
	for (size_t i = 0; i < n; i++) {
		const tsr_step *st = &steps[i];
		uint64_t a = MAX(st->cycles_from, from), b = MIN(st->cycles_to, to);

		if (st->type >= TSR_STEP_TYPE_COUNT || st->cycles_to <= from || st->cycles_from >= to)
			continue;
		count[st->type]++;
		cycles[st->type] += b > a ? b - a : 0;
	}
	{
		g_autofree char *a = ga_format_u64(from), *b = ga_format_u64(to);
		g_autofree char *span = ga_format_u64(to - from);
		g_autofree char *h = g_strdup_printf("Range: cycles %s – %s (%s cycles)", a, b, span);

		gtk_label_set_text(self->range_heading, h);
	}
	put_by_type(self->range, count, cycles, to - from, "Cycles in range");
}

/* --- Runs and the document ----------------------------------------------------------------- */

/* Gives the lanes their natural height again when their number changed
 * (per-IPU lanes, flame depth, BSP): the paned keeps the first height
 * it gave otherwise. */
static void fit_lanes(GaTraceView *self)
{
	GtkPaned *paned = ga_view_get_paned(GA_VIEW(self));
	int min, nat;

	gtk_widget_measure(gtk_paned_get_start_child(paned), GTK_ORIENTATION_VERTICAL, -1, &min, &nat,
	                   NULL, NULL);
	gtk_paned_set_position(paned, nat);
}

/*
 * A run's tile index is ready (for A's lanes or B's: the side whose
 * build it was). On failure the view may be gone (cancelled) or the
 * blobs are damaged: the lanes stay by kind and the BSP view says it has
 * no tiles. A build that was not cancelled is of a view still there.
 */
static void on_index(GObject *source, GAsyncResult *result, gpointer data)
{
	GError *error = NULL;
	GaTraceIndex *index = ga_trace_index_build_finish(result, &error);
	GaTraceView *self;
	int b;

	if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED)) {
		g_error_free(error);
		return;
	}
	self = GA_TRACE_VIEW(data);
	b = g_task_get_cancellable(G_TASK(result)) == self->index_cancel[1];
	if (!index) {
		g_warning("Execution Trace%s: %s", b ? ", report B" : "", error->message);
		g_error_free(error);
		return;
	}
	g_clear_object(&self->index_cancel[b]);
	ga_step_lanes_set_index(self->lanes[b], index);
	ga_trace_index_unref(index);
	fit_lanes(self);
}

/* The run picked in A's or B's picker, shown in that side's lanes, and
 * its tile index built. Each side's index only: B's lanes keep theirs,
 * or the build B's run started (rebuild starts B first), whatever A's
 * run. */
static void on_run(GtkDropDown *dropdown, GParamSpec *pspec, GaTraceView *self)
{
	int b = dropdown == self->runs[1];
	GaDocument *doc = b ? doc_b(self) : doc_a(self);
	guint run = gtk_drop_down_get_selected(dropdown);
	gboolean valid = run != GTK_INVALID_LIST_POSITION && doc;

	tsd_cancel_clear(&self->index_cancel[b]);
	ga_step_lanes_set_index(self->lanes[b], NULL);
	ga_step_lanes_set_run(self->lanes[b], valid ? doc : NULL, run);
	if (self->lanes[1])
		align_axes(self);
	fit_lanes(self);
	if (!valid)
		return;
	self->index_cancel[b] = g_cancellable_new();
	ga_trace_index_build_async(doc, run, self->index_cancel[b], on_index, self);
	if (!b && !self->syncing) {
		self->syncing = TRUE;
		ga_session_set_step(session_of(self), run, -1);
		self->syncing = FALSE;
	}
}

/* The session's run and step, shown: the run picked, the step selected
 * and scrolled into view (the session's "notify::step" too, unless the
 * view is the one setting it). */
static void follow_session(GaTraceView *self)
{
	gint64 run, step;
	guint n = g_list_model_get_n_items(G_LIST_MODEL(self->run_names[0]));

	if (self->syncing)
		return;
	ga_session_get_step(session_of(self), &run, &step);
	ga_step_lanes_set_highlight(self->lanes[0], ga_session_get_program(session_of(self)));
	if (!doc_a(self) || run < 0 || run >= (gint64)n)
		return;
	self->syncing = TRUE;
	if (gtk_drop_down_get_selected(self->runs[0]) != (guint)run)
		gtk_drop_down_set_selected(self->runs[0], (guint)run);
	if (step != ga_step_lanes_get_selected(self->lanes[0]))
		ga_step_lanes_reveal(self->lanes[0], step);
	self->syncing = FALSE;
}

static void on_session_program(GObject *session, GParamSpec *pspec, gpointer data)
{
	GaTraceView *self = GA_TRACE_VIEW(data);

	ga_step_lanes_set_highlight(self->lanes[0], ga_session_get_program(GA_SESSION(session)));
}

/* --- Report B (compare mode) ------------------------------------------------------- */

/* Both lanes' axes reach the longer run's end, so they zoom alike. */
static void align_axes(GaTraceView *self)
{
	double end = MAX(ga_step_lanes_get_total(self->lanes[0]),
	                 doc_b(self) ? ga_step_lanes_get_total(self->lanes[1]) : 0);

	ga_step_lanes_set_axis_end(self->lanes[0], doc_b(self) ? end : 0);
	ga_step_lanes_set_axis_end(self->lanes[1], end);
	if (doc_b(self)) {
		double from, to;

		ga_step_lanes_get_visible(self->lanes[0], &from, &to);
		ga_step_lanes_set_visible(self->lanes[1], from, to);
	}
}

static void on_visible(GaStepLanes *lanes, GaTraceView *self)
{
	GaStepLanes *other = self->lanes[lanes == self->lanes[0]];
	double from, to;

	if (self->linking || !doc_b(self))
		return;
	self->linking = TRUE;
	ga_step_lanes_get_visible(lanes, &from, &to);
	ga_step_lanes_set_visible(other, from, to);
	self->linking = FALSE;
}

/* --- Modes ------------------------------------------------------------------------------ */

static const char *const hints[GA_TRACE_MODE_COUNT] = {
    "Wheel, W/S or +/− zoom, drag or A/D pans, Home shows the whole run, Shift+drag marks a "
    "range",
    "Each step under its call stack; click a frame to select it, wheel or W/S zoom",
    "Grey: idle tiles. Ctrl+Up/Down: tiles per row, Up/Down or Shift+wheel: scroll tiles, W/S: "
    "zoom",
};

static void on_mode(GtkToggleButton *button, GaTraceView *self)
{
	if (!self->lanes[0] || !gtk_toggle_button_get_active(button))
		return;
	for (int m = 0; m < GA_TRACE_MODE_COUNT; m++)
		if (button == self->modes[m]) {
			ga_step_lanes_set_mode(self->lanes[0], (ga_trace_mode)m);
			ga_step_lanes_set_mode(self->lanes[1], (ga_trace_mode)m);
			gtk_label_set_text(self->hint, hints[m]);
			fit_lanes(self);
		}
}

/* Fills a run picker with `doc`'s runs (its handler blocked), each by the
 * name the model gave its program ("Run 1: epoch, ..."), else by the
 * program's index ("Run 1: program 1, ..."). */
static size_t fill_runs(GaTraceView *self, int b, GaDocument *doc)
{
	const tsr_run *runs = NULL;
	size_t n = 0;
	guint old = g_list_model_get_n_items(G_LIST_MODEL(self->run_names[b]));
	GPtrArray *names = g_ptr_array_new_with_free_func(g_free);

	if (doc && tsr_report_get_runs(&runs, &n, ga_document_get_report(doc)))
		n = 0;
	for (size_t i = 0; i < n; i++) {
		g_autofree char *cycles = ga_format_u64(runs[i].cycles);
		g_autofree char *steps = ga_format_u64(runs[i].n_steps);
		g_autofree char *program = ga_format_run_name(ga_document_get_report(doc), i);

		if (!program)
			program = g_strdup_printf("program %u", runs[i].program);

		g_ptr_array_add(names, g_strdup_printf("Run %zu: %s, %s cycles, %s steps", i, program,
		                                       cycles, steps));
	}
	g_ptr_array_add(names, NULL);
	g_signal_handlers_block_by_func(self->runs[b], on_run, self);
	gtk_string_list_splice(self->run_names[b], 0, old, (const char *const *)names->pdata);
	g_signal_handlers_unblock_by_func(self->runs[b], on_run, self);
	g_ptr_array_unref(names);
	gtk_widget_set_sensitive(GTK_WIDGET(self->runs[b]), n > 0);
	return n;
}

/* The session's documents changed (GaView::document_changed): their runs
 * in the pickers, the session's run (else the last) shown. */
static void rebuild(GaView *view)
{
	GaTraceView *self = GA_TRACE_VIEW(view);
	size_t n, n_b;

	self->details_side = 0;
	ga_step_lanes_set_label(self->lanes[0], doc_b(self) ? "Execution trace, report A" : NULL);
	if (doc_b(self)) {
		g_autofree char *t = g_strdup_printf("Report B: %s", ga_document_get_title(doc_b(self)));

		gtk_label_set_text(self->title_b, t);
	}
	n = fill_runs(self, 0, doc_a(self));
	n_b = fill_runs(self, 1, doc_b(self));
	/* B first, so that A's run aligns the axes with B's already there. */
	if (n_b > 0 && gtk_drop_down_get_selected(self->runs[1]) != n_b - 1)
		gtk_drop_down_set_selected(self->runs[1], (guint)(n_b - 1)); /* calls on_run */
	else
		on_run(self->runs[1], NULL, self);
	{
		gint64 want, step;

		/* The session's run if it names one, else the last. */
		ga_session_get_step(session_of(self), &want, &step);
		if (want < 0 || want >= (gint64)n)
			want = (gint64)n - 1;
		if (n > 0 && gtk_drop_down_get_selected(self->runs[0]) != (guint)want)
			gtk_drop_down_set_selected(self->runs[0], (guint)want); /* calls on_run */
		else
			on_run(self->runs[0], NULL, self);
	}
	follow_session(self);
}

/* --- Building ------------------------------------------------------------------------------- */

static void ga_trace_view_constructed(GObject *object)
{
	GaTraceView *self = GA_TRACE_VIEW(object);

	/* The base shows the session's documents (rebuild) first. */
	G_OBJECT_CLASS(ga_trace_view_parent_class)->constructed(object);
	g_signal_connect_swapped(session_of(self), "notify::step", G_CALLBACK(follow_session), self);
	g_signal_connect(session_of(self), "notify::program", G_CALLBACK(on_session_program), self);
}

static void ga_trace_view_dispose(GObject *object)
{
	GaTraceView *self = GA_TRACE_VIEW(object);

	if (session_of(self))
		g_signal_handlers_disconnect_by_data(session_of(self), self);
	tsd_cancel_clear(&self->index_cancel[0]);
	tsd_cancel_clear(&self->index_cancel[1]);
	gtk_widget_dispose_template(GTK_WIDGET(self), GA_TYPE_TRACE_VIEW);
	G_OBJECT_CLASS(ga_trace_view_parent_class)->dispose(object);
}

/* The offset of element `i` of array field `f`. */
#define ELEMENT(f, i) (G_STRUCT_OFFSET(GaTraceView, f) + (i) * (gssize)sizeof(gpointer))

static void ga_trace_view_class_init(GaTraceViewClass *klass)
{
	static const struct {
		const char *id;
		gssize offset;
	} array_ids[] = {
	    {"mode_flat", ELEMENT(modes, GA_TRACE_FLAT)},   {"mode_flame", ELEMENT(modes, GA_TRACE_FLAME)},
	    {"mode_bsp", ELEMENT(modes, GA_TRACE_BSP)},     {"runs", ELEMENT(runs, 0)},
	    {"runs_b", ELEMENT(runs, 1)},                   {"run_names", ELEMENT(run_names, 0)},
	    {"run_names_b", ELEMENT(run_names, 1)},         {"lanes", ELEMENT(lanes, 0)},
	    {"lanes_b", ELEMENT(lanes, 1)},
	};
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->constructed = ga_trace_view_constructed;
	G_OBJECT_CLASS(klass)->dispose = ga_trace_view_dispose;
	GA_VIEW_CLASS(klass)->document_changed = rebuild;
	gtk_widget_class_set_css_name(widget_class, "traceview");
	/* A group, as the box it was, which a screen reader passes over. */
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
	g_type_ensure(GA_TYPE_STEP_LANES);
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/GraphAnalyser/ga-trace-view.ui");
	/* The modes' buttons and each side's picker and lanes, into arrays. */
	for (int i = 0; i < (int)G_N_ELEMENTS(array_ids); i++)
		gtk_widget_class_bind_template_child_full(widget_class, array_ids[i].id, FALSE,
		                                          array_ids[i].offset);
	gtk_widget_class_bind_template_child(widget_class, GaTraceView, legend);
	gtk_widget_class_bind_template_child(widget_class, GaTraceView, hint);
	gtk_widget_class_bind_template_child(widget_class, GaTraceView, title_b);
	gtk_widget_class_bind_template_child(widget_class, GaTraceView, heading);
	gtk_widget_class_bind_template_child(widget_class, GaTraceView, details);
	gtk_widget_class_bind_template_child(widget_class, GaTraceView, range_heading);
	gtk_widget_class_bind_template_child(widget_class, GaTraceView, range);
	gtk_widget_class_bind_template_callback(widget_class, on_run);
	gtk_widget_class_bind_template_callback(widget_class, on_mode);
	gtk_widget_class_bind_template_callback(widget_class, on_selection_changed);
	gtk_widget_class_bind_template_callback(widget_class, update_range);
	gtk_widget_class_bind_template_callback(widget_class, on_visible);
}

static void ga_trace_view_init(GaTraceView *self)
{
	GtkPaned *paned;

	gtk_widget_init_template(GTK_WIDGET(self));
	gtk_label_set_text(self->hint, hints[GA_TRACE_FLAT]);
	/* What GtkBuilder cannot say: the legend's marks, the runs' names on
	 * the drop-downs' buttons. */
	for (int k = 0; k < GA_PROGRAM_CONTROL; k++) {
		GtkWidget *mark = ga_program_mark_new();
		GtkWidget *l = gtk_label_new(ga_program_kind_name((ga_program_kind)k));

		ga_program_mark_set_kind(mark, (ga_program_kind)k);
		gtk_widget_add_css_class(l, "caption");
		gtk_widget_set_margin_start(mark, k == 0 ? 0 : 4);
		gtk_box_append(self->legend, mark);
		gtk_box_append(self->legend, l);
	}
	tsd_a11y_name_dropdown(self->runs[0], "Run");
	tsd_a11y_name_dropdown(self->runs[1], "Run of B");
	ga_step_lanes_set_label(self->lanes[1], "Execution trace, report B");
	/* The details below the lanes, which keep their natural height; the
	 * details take what is left. */
	paned = ga_view_get_paned(GA_VIEW(self));
	gtk_orientable_set_orientation(GTK_ORIENTABLE(paned), GTK_ORIENTATION_VERTICAL);
	gtk_paned_set_shrink_start_child(paned, FALSE);
	gtk_paned_set_shrink_end_child(paned, FALSE);
	gtk_paned_set_resize_start_child(paned, FALSE);
	update_details(self);
	update_range(self);
}

GtkWidget *ga_trace_view_new(GaSession *session)
{
	return g_object_new(GA_TYPE_TRACE_VIEW, "session", session, NULL);
}
