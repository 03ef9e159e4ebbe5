/*
 * The Execution Trace view (ga-trace-view.h). The lanes widget draws and
 * keeps the selection; this view picks the run and the mode (Flat, Flame,
 * BSP), starts the run's tile index in a worker thread (ga-trace-index.h)
 * and hands it to the lanes when it is ready, fills the details of the
 * selected step and the totals of the marked range from reportlib's steps
 * (already read by the document's loader, so nothing here waits for the
 * file), and keeps the session's run, step and program in step with the
 * lanes both ways: a step selected here is the session's step and its
 * program the session's program; the session's step is selected and
 * scrolled into view here; the session's program's steps are outlined.
 */
#include "ga-trace-view.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-cancel.h>
#include <tilescope/tsd-name.h>

#include "ga-figures.h"
#include "ga-format.h"
#include "ga-program-kind.h"
#include "ga-step-lanes.h"

#include <math.h>

struct _GaTraceView {
	GtkBox parent_instance;
	GaSession *session;
	GaDocument *doc;
	GCancellable *index_cancel; /* the tile index being built */
	gboolean syncing;           /* applying the session: do not write it back */
	GtkToggleButton *modes[GA_TRACE_MODE_COUNT];
	GtkLabel *hint;
	GtkPaned *paned;

	/* Compare mode: report B's runs and lanes under A's, on one cycle
	 * axis with the same zoom and mode. */
	GaDocument *doc_b;
	GtkWidget *compare_box;
	GtkLabel *title_b;
	GtkDropDown *runs_b;
	GtkStringList *run_names_b;
	GaStepLanes *lanes_b;
	GCancellable *index_cancel_b;
	int details_side;           /* the lanes whose selection the details show: 0 A, 1 B */
	gboolean linking;           /* copying the visible range between A and B */

	GtkDropDown *runs;
	GtkStringList *run_names;
	GaStepLanes *lanes;
	GtkLabel *heading;
	GtkGrid *details;
	GtkLabel *range_heading;
	GtkGrid *range;
};

G_DEFINE_FINAL_TYPE(GaTraceView, ga_trace_view, GTK_TYPE_BOX)

static void align_axes(GaTraceView *self);

static void clear_grid(GtkGrid *grid)
{
	GtkWidget *child;

	while ((child = gtk_widget_get_first_child(GTK_WIDGET(grid))))
		gtk_grid_remove(grid, child);
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
	gboolean b = self->details_side == 1 && self->doc_b;
	GaStepLanes *lanes = b ? self->lanes_b : self->lanes;
	GaDocument *doc = b ? self->doc_b : self->doc;
	gint64 i = ga_step_lanes_get_selected(lanes);
	size_t run = gtk_drop_down_get_selected(b ? self->runs_b : self->runs);
	tsr_report *r = doc ? ga_document_get_report(doc) : NULL;
	const tsr_step *steps;
	const tsr_program *progs;
	size_t n, n_progs;
	int row = 0;

	clear_grid(self->details);
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
		    self->doc_b ? g_strdup_printf("Step %" G_GINT64_FORMAT " of report %s (%s), run %zu", i,
		                                  b ? "B" : "A", ga_document_get_title(doc), run)
		                : g_strdup_printf("Step %" G_GINT64_FORMAT, i);
		const char *what = st->type == TSR_STEP_ON_TILE_EXECUTE ? "Compute set"
		                   : st->type == TSR_STEP_SYNC           ? "Sync type"
		                                                         : "Exchange";

		gtk_label_set_text(self->heading, heading);
		if (self->doc_b)
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

/* The user selected a step (or a flame frame): it becomes the session's
 * step, and its program the session's program. */
static void on_selection_changed(GaStepLanes *lanes, GaTraceView *self)
{
	gint64 step = ga_step_lanes_get_selected(lanes), program;
	guint run = gtk_drop_down_get_selected(self->runs);

	if (step >= 0 || self->details_side == 0) {
		self->details_side = 0;
		update_details(self);
	}
	if (self->syncing || !self->doc || run == GTK_INVALID_LIST_POSITION)
		return;
	self->syncing = TRUE;
	ga_session_set_step(self->session, run, step);
	program = ga_step_lanes_get_selected_program(lanes);
	if (program >= 0)
		ga_session_set_program(self->session, program);
	self->syncing = FALSE;
}

/* --- The marked range ------------------------------------------------------------------ */

static void update_range(GaTraceView *self)
{
	size_t run = gtk_drop_down_get_selected(self->runs);
	tsr_report *r = self->doc ? ga_document_get_report(self->doc) : NULL;
	uint64_t from, to, cycles[TSR_STEP_TYPE_COUNT] = {0}, all_cycles = 0;
	size_t count[TSR_STEP_TYPE_COUNT] = {0}, all = 0, n;
	const tsr_step *steps;
	int row = 1;

	clear_grid(self->range);
	if (!r || !ga_step_lanes_get_range(self->lanes, &from, &to) ||
	    tsr_report_get_steps(&steps, &n, r, run)) {
		gtk_label_set_text(self->range_heading, "No range marked");
		gtk_grid_attach(self->range, cell("Shift+drag across the lanes to mark a range.", NULL,
		                                  FALSE, TRUE),
		                0, 0, 3, 1);
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
	gtk_grid_attach(self->range, cell("Step type", NULL, FALSE, TRUE), 0, 0, 1, 1);
	gtk_grid_attach(self->range, cell("Steps", NULL, TRUE, TRUE), 1, 0, 1, 1);
	gtk_grid_attach(self->range, cell("Cycles in range", NULL, TRUE, TRUE), 2, 0, 1, 1);
	for (int t = 0; t <= TSR_STEP_TYPE_COUNT; t++) {
		gboolean total = t == TSR_STEP_TYPE_COUNT;
		const char *name = total ? "All steps" : tsr_step_type_name((tsr_step_type)t);
		size_t c = total ? all : count[t];
		uint64_t cy = total ? all_cycles : cycles[t];
		g_autofree char *cs = ga_format_u64(c), *cys = ga_format_u64(cy);
		/* A table laid out as a grid: each figure named by its row's
		 * caption and its column's header. */
		g_autofree char *acc_n = g_strdup_printf("%s, Steps", name);
		g_autofree char *acc_c = g_strdup_printf("%s, Cycles in range", name);

		if (!total && c == 0)
			continue;
		if (!total) {
			all += c;
			all_cycles += cy;
		}
		gtk_grid_attach(self->range, cell(name, NULL, FALSE, FALSE), 0, row, 1, 1);
		gtk_grid_attach(self->range, cell(cs, acc_n, TRUE, FALSE), 1, row, 1, 1);
		gtk_grid_attach(self->range, cell(cys, acc_c, TRUE, FALSE), 2, row, 1, 1);
		row++;
	}
}

static void on_range_changed(GaStepLanes *lanes, GaTraceView *self)
{
	(void)lanes;
	update_range(self);
}

/* --- Runs and the document ----------------------------------------------------------------- */

/* Gives the lanes their natural height again when their number changed
 * (per-IPU lanes, flame depth, BSP): the paned keeps the first height
 * it gave otherwise. */
static void fit_lanes(GaTraceView *self)
{
	int min, nat;

	if (!self->paned)
		return;
	gtk_widget_measure(gtk_paned_get_start_child(self->paned), GTK_ORIENTATION_VERTICAL, -1, &min,
	                   &nat, NULL, NULL);
	gtk_paned_set_position(self->paned, nat);
}

/*
 * A run's tile index is ready (report A's lanes, or B's when `b`). On
 * failure the view may be gone (cancelled) or the blobs are damaged: the
 * lanes stay by kind and the BSP view says it has no tiles.
 */
static void take_index(GAsyncResult *result, gpointer data, gboolean b)
{
	GError *error = NULL;
	GaTraceIndex *index = ga_trace_index_build_finish(result, &error);
	GaTraceView *self;

	if (!index) {
		if (!g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
			g_warning("Execution Trace%s: %s", b ? ", report B" : "", error->message);
		g_error_free(error);
		return;
	}
	self = GA_TRACE_VIEW(data);
	g_clear_object(b ? &self->index_cancel_b : &self->index_cancel);
	ga_step_lanes_set_index(b ? self->lanes_b : self->lanes, index);
	ga_trace_index_unref(index);
	fit_lanes(self);
}

static void on_index(GObject *source, GAsyncResult *result, gpointer data)
{
	(void)source;
	take_index(result, data, FALSE);
}

static void on_run(GObject *dropdown, GParamSpec *pspec, GaTraceView *self)
{
	guint run = gtk_drop_down_get_selected(GTK_DROP_DOWN(dropdown));
	gboolean valid = run != GTK_INVALID_LIST_POSITION && self->doc;

	(void)pspec;
	tsd_cancel_clear(&self->index_cancel);
	tsd_cancel_clear(&self->index_cancel_b);
	ga_step_lanes_set_index(self->lanes, NULL);
	ga_step_lanes_set_run(self->lanes, valid ? self->doc : NULL, run);
	if (self->lanes_b)
		align_axes(self);
	fit_lanes(self);
	if (!valid)
		return;
	self->index_cancel = g_cancellable_new();
	ga_trace_index_build_async(self->doc, run, self->index_cancel, on_index, self);
	if (!self->syncing) {
		self->syncing = TRUE;
		ga_session_set_step(self->session, run, -1);
		self->syncing = FALSE;
	}
}

/* The session's run and step, shown: the run picked, the step selected
 * and scrolled into view. */
static void follow_session(GaTraceView *self)
{
	gint64 run, step;
	guint n = g_list_model_get_n_items(G_LIST_MODEL(self->run_names));

	ga_session_get_step(self->session, &run, &step);
	ga_step_lanes_set_highlight(self->lanes, ga_session_get_program(self->session));
	if (!self->doc || run < 0 || run >= (gint64)n)
		return;
	self->syncing = TRUE;
	if (gtk_drop_down_get_selected(self->runs) != (guint)run)
		gtk_drop_down_set_selected(self->runs, (guint)run);
	if (step != ga_step_lanes_get_selected(self->lanes))
		ga_step_lanes_reveal(self->lanes, step);
	self->syncing = FALSE;
}

static void on_session_step(GObject *session, GParamSpec *pspec, gpointer data)
{
	GaTraceView *self = GA_TRACE_VIEW(data);

	(void)session;
	(void)pspec;
	if (!self->syncing)
		follow_session(self);
}

static void on_session_program(GObject *session, GParamSpec *pspec, gpointer data)
{
	GaTraceView *self = GA_TRACE_VIEW(data);

	(void)pspec;
	ga_step_lanes_set_highlight(self->lanes, ga_session_get_program(GA_SESSION(session)));
}

/* --- Report B (compare mode) ------------------------------------------------------- */

/* Both lanes' axes reach the longer run's end, so they zoom alike. */
static void align_axes(GaTraceView *self)
{
	double end = MAX(ga_step_lanes_get_total(self->lanes),
	                 self->doc_b ? ga_step_lanes_get_total(self->lanes_b) : 0);

	ga_step_lanes_set_axis_end(self->lanes, self->doc_b ? end : 0);
	ga_step_lanes_set_axis_end(self->lanes_b, end);
	if (self->doc_b) {
		double from, to;

		ga_step_lanes_get_visible(self->lanes, &from, &to);
		ga_step_lanes_set_visible(self->lanes_b, from, to);
	}
}

static void on_visible(GaStepLanes *lanes, GaTraceView *self)
{
	GaStepLanes *other = lanes == self->lanes ? self->lanes_b : self->lanes;
	double from, to;

	if (self->linking || !self->doc_b)
		return;
	self->linking = TRUE;
	ga_step_lanes_get_visible(lanes, &from, &to);
	ga_step_lanes_set_visible(other, from, to);
	self->linking = FALSE;
}

static void on_selection_changed_b(GaStepLanes *lanes, GaTraceView *self)
{
	/* Report B's steps are not the session's (its selections index
	 * report A): the details show them, nothing else follows. */
	if (ga_step_lanes_get_selected(lanes) >= 0 || self->details_side == 1) {
		self->details_side = 1;
		update_details(self);
	}
}

static void on_index_b(GObject *source, GAsyncResult *result, gpointer data)
{
	(void)source;
	take_index(result, data, TRUE);
}

static void on_run_b(GObject *dropdown, GParamSpec *pspec, GaTraceView *self)
{
	guint run = gtk_drop_down_get_selected(GTK_DROP_DOWN(dropdown));
	gboolean valid = run != GTK_INVALID_LIST_POSITION && self->doc_b;

	(void)pspec;
	tsd_cancel_clear(&self->index_cancel_b);
	ga_step_lanes_set_index(self->lanes_b, NULL);
	ga_step_lanes_set_run(self->lanes_b, valid ? self->doc_b : NULL, run);
	align_axes(self);
	fit_lanes(self);
	if (!valid)
		return;
	self->index_cancel_b = g_cancellable_new();
	ga_trace_index_build_async(self->doc_b, run, self->index_cancel_b, on_index_b, self);
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
	if (!self->lanes || !gtk_toggle_button_get_active(button))
		return;
	for (int m = 0; m < GA_TRACE_MODE_COUNT; m++)
		if (button == self->modes[m]) {
			ga_step_lanes_set_mode(self->lanes, (ga_trace_mode)m);
			ga_step_lanes_set_mode(self->lanes_b, (ga_trace_mode)m);
			gtk_label_set_text(self->hint, hints[m]);
			fit_lanes(self);
		}
}

/* Fills a run picker with `doc`'s runs (its handler blocked), each by the
 * name the model gave its program ("Run 1: epoch, ..."), else by the
 * program's index ("Run 1: program 1, ..."). */
static size_t fill_runs(GtkStringList *names_model, GtkDropDown *dropdown, GCallback handler,
                        GaTraceView *self, GaDocument *doc)
{
	const tsr_run *runs = NULL;
	size_t n = 0;
	guint old = g_list_model_get_n_items(G_LIST_MODEL(names_model));
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
	g_signal_handlers_block_by_func(dropdown, handler, self);
	gtk_string_list_splice(names_model, 0, old, (const char *const *)names->pdata);
	g_signal_handlers_unblock_by_func(dropdown, handler, self);
	g_ptr_array_unref(names);
	gtk_widget_set_sensitive(GTK_WIDGET(dropdown), n > 0);
	return n;
}

static void rebuild(GaTraceView *self)
{
	GaDocument *doc = ga_session_get_document(self->session);
	GaDocument *doc_b = doc ? ga_session_get_compare_document(self->session) : NULL;
	size_t n, n_b;

	g_clear_pointer(&self->doc, ga_document_unref);
	self->doc = doc ? ga_document_ref(doc) : NULL;
	g_clear_pointer(&self->doc_b, ga_document_unref);
	self->doc_b = doc_b ? ga_document_ref(doc_b) : NULL;
	self->details_side = 0;
	gtk_widget_set_visible(self->compare_box, self->doc_b != NULL);
	ga_step_lanes_set_label(self->lanes, self->doc_b ? "Execution trace, report A" : NULL);
	if (self->doc_b) {
		g_autofree char *t = g_strdup_printf("Report B: %s", ga_document_get_title(self->doc_b));

		gtk_label_set_text(self->title_b, t);
	}
	n = fill_runs(self->run_names, self->runs, G_CALLBACK(on_run), self, self->doc);
	n_b = fill_runs(self->run_names_b, self->runs_b, G_CALLBACK(on_run_b), self, self->doc_b);
	/* B first, so that A's run aligns the axes with B's already there. */
	if (n_b > 0 && gtk_drop_down_get_selected(self->runs_b) != n_b - 1)
		gtk_drop_down_set_selected(self->runs_b, (guint)(n_b - 1)); /* calls on_run_b */
	else
		on_run_b(G_OBJECT(self->runs_b), NULL, self);
	{
		gint64 want, step;

		/* The session's run if it names one, else the last. */
		ga_session_get_step(self->session, &want, &step);
		if (want < 0 || want >= (gint64)n)
			want = (gint64)n - 1;
		if (n > 0 && gtk_drop_down_get_selected(self->runs) != (guint)want)
			gtk_drop_down_set_selected(self->runs, (guint)want); /* calls on_run */
		else
			on_run(G_OBJECT(self->runs), NULL, self);
	}
	follow_session(self);
}

static void on_document(GObject *session, GParamSpec *pspec, gpointer data)
{
	(void)session;
	(void)pspec;
	rebuild(GA_TRACE_VIEW(data));
}

/* --- Building ------------------------------------------------------------------------------- */

static GtkWidget *build_bar(GaTraceView *self)
{
	GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
	GtkWidget *label = gtk_label_new_with_mnemonic("_Run");
	GtkWidget *hint = gtk_label_new(hints[GA_TRACE_FLAT]);
	GtkWidget *modes = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
	static const char *const mode_labels[GA_TRACE_MODE_COUNT] = {"F_lat", "Fla_me", "_BSP"};
	static const char *const mode_tips[GA_TRACE_MODE_COUNT] = {
	    "Steps in lanes by kind, per IPU (Alt+L)",
	    "Steps under their call stacks (Alt+M)",
	    "Per-tile rows: compute, exchange, sync, idle (Alt+B)",
	};

	/* The mode switcher: linked toggle buttons, reachable with Tab and
	 * their mnemonics, toggled with Space or Enter. */
	gtk_widget_add_css_class(modes, "linked");
	for (int m = 0; m < GA_TRACE_MODE_COUNT; m++) {
		GtkWidget *text = gtk_label_new_with_mnemonic(mode_labels[m]);

		/* The label as the button's child, so that the button's
		 * accessible name is "Flat" (with the mnemonic on the button
		 * itself, GTK 4.8 names it "F_lat Flat"). */
		self->modes[m] = GTK_TOGGLE_BUTTON(gtk_toggle_button_new());
		gtk_button_set_child(GTK_BUTTON(self->modes[m]), text);
		gtk_label_set_mnemonic_widget(GTK_LABEL(text), GTK_WIDGET(self->modes[m]));
		if (m)
			gtk_toggle_button_set_group(self->modes[m], self->modes[0]);
		gtk_widget_set_tooltip_text(GTK_WIDGET(self->modes[m]), mode_tips[m]);
		gtk_accessible_update_property(GTK_ACCESSIBLE(self->modes[m]),
		                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, mode_tips[m], -1);
		g_signal_connect(self->modes[m], "toggled", G_CALLBACK(on_mode), self);
		gtk_box_append(GTK_BOX(modes), GTK_WIDGET(self->modes[m]));
	}
	gtk_toggle_button_set_active(self->modes[GA_TRACE_FLAT], TRUE);
	gtk_widget_set_margin_start(modes, 12);
	self->hint = GTK_LABEL(hint);

	self->run_names = gtk_string_list_new(NULL);
	self->runs = GTK_DROP_DOWN(gtk_drop_down_new(G_LIST_MODEL(self->run_names), NULL));
	gtk_label_set_mnemonic_widget(GTK_LABEL(label), GTK_WIDGET(self->runs));
	gtk_accessible_update_property(GTK_ACCESSIBLE(self->runs), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Run", -1);
	tsd_a11y_name_dropdown(self->runs, "Run");
	g_signal_connect(self->runs, "notify::selected", G_CALLBACK(on_run), self);
	gtk_box_append(GTK_BOX(bar), label);
	gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->runs));
	gtk_box_append(GTK_BOX(bar), modes);
	for (int k = 0; k < GA_PROGRAM_CONTROL; k++) {
		GtkWidget *mark = ga_program_mark_new();
		GtkWidget *l = gtk_label_new(ga_program_kind_name((ga_program_kind)k));

		ga_program_mark_set_kind(mark, (ga_program_kind)k);
		gtk_widget_add_css_class(l, "caption");
		gtk_widget_set_margin_start(mark, k == 0 ? 12 : 4);
		gtk_box_append(GTK_BOX(bar), mark);
		gtk_box_append(GTK_BOX(bar), l);
	}
	gtk_widget_add_css_class(hint, "dim-label");
	gtk_widget_add_css_class(hint, "caption");
	gtk_label_set_ellipsize(GTK_LABEL(hint), PANGO_ELLIPSIZE_END);
	gtk_label_set_xalign(GTK_LABEL(hint), 1);
	gtk_widget_set_hexpand(hint, TRUE);
	gtk_box_append(GTK_BOX(bar), hint);
	gtk_widget_set_margin_start(bar, 12);
	gtk_widget_set_margin_end(bar, 12);
	gtk_widget_set_margin_top(bar, 8);
	gtk_widget_set_margin_bottom(bar, 4);
	return bar;
}

/* A titled grid for the panel below the lanes. */
static GtkWidget *build_section(GtkLabel **heading, GtkGrid **grid)
{
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 6);

	*heading = GTK_LABEL(gtk_label_new(NULL));
	gtk_label_set_xalign(*heading, 0);
	gtk_widget_add_css_class(GTK_WIDGET(*heading), "heading");
	*grid = ga_details_grid_new();
	gtk_box_append(GTK_BOX(box), GTK_WIDGET(*heading));
	gtk_box_append(GTK_BOX(box), GTK_WIDGET(*grid));
	gtk_widget_set_hexpand(box, TRUE);
	return box;
}

static GtkWidget *build_panel(GaTraceView *self)
{
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 24);

	gtk_box_append(GTK_BOX(box), build_section(&self->heading, &self->details));
	gtk_box_append(GTK_BOX(box), gtk_separator_new(GTK_ORIENTATION_VERTICAL));
	gtk_box_append(GTK_BOX(box), build_section(&self->range_heading, &self->range));
	return ga_details_scroller_new(box, -1, 200);
}

static void ga_trace_view_dispose(GObject *object)
{
	GaTraceView *self = GA_TRACE_VIEW(object);

	if (self->session)
		g_signal_handlers_disconnect_by_data(self->session, self);
	g_clear_object(&self->session);
	tsd_cancel_clear(&self->index_cancel);
	tsd_cancel_clear(&self->index_cancel_b);
	G_OBJECT_CLASS(ga_trace_view_parent_class)->dispose(object);
}

static void ga_trace_view_finalize(GObject *object)
{
	g_clear_pointer(&GA_TRACE_VIEW(object)->doc, ga_document_unref);
	g_clear_pointer(&GA_TRACE_VIEW(object)->doc_b, ga_document_unref);
	G_OBJECT_CLASS(ga_trace_view_parent_class)->finalize(object);
}

static void ga_trace_view_class_init(GaTraceViewClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = ga_trace_view_dispose;
	G_OBJECT_CLASS(klass)->finalize = ga_trace_view_finalize;
	gtk_widget_class_set_css_name(GTK_WIDGET_CLASS(klass), "traceview");
}

static void ga_trace_view_init(GaTraceView *self)
{
	GtkWidget *paned = gtk_paned_new(GTK_ORIENTATION_VERTICAL);

	gtk_orientable_set_orientation(GTK_ORIENTABLE(self), GTK_ORIENTATION_VERTICAL);
	gtk_box_append(GTK_BOX(self), build_bar(self));
	self->lanes = GA_STEP_LANES(ga_step_lanes_new());
	gtk_widget_set_vexpand(GTK_WIDGET(self->lanes), TRUE);
	gtk_widget_set_margin_end(GTK_WIDGET(self->lanes), 4);
	g_signal_connect(self->lanes, "selection-changed", G_CALLBACK(on_selection_changed), self);
	g_signal_connect(self->lanes, "range-changed", G_CALLBACK(on_range_changed), self);
	g_signal_connect(self->lanes, "visible-changed", G_CALLBACK(on_visible), self);
	self->paned = GTK_PANED(paned);
	{
		GtkWidget *top = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
		GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
		GtkWidget *label = gtk_label_new_with_mnemonic("R_un of B");

		self->compare_box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
		self->title_b = GTK_LABEL(gtk_label_new(NULL));
		gtk_widget_add_css_class(GTK_WIDGET(self->title_b), "heading");
		self->run_names_b = gtk_string_list_new(NULL);
		self->runs_b = GTK_DROP_DOWN(gtk_drop_down_new(G_LIST_MODEL(self->run_names_b), NULL));
		gtk_label_set_mnemonic_widget(GTK_LABEL(label), GTK_WIDGET(self->runs_b));
		gtk_accessible_update_property(GTK_ACCESSIBLE(self->runs_b), GTK_ACCESSIBLE_PROPERTY_LABEL,
		                               "Run of B", -1);
		tsd_a11y_name_dropdown(self->runs_b, "Run of B");
		g_signal_connect(self->runs_b, "notify::selected", G_CALLBACK(on_run_b), self);
		gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->title_b));
		gtk_box_append(GTK_BOX(bar), label);
		gtk_box_append(GTK_BOX(bar), GTK_WIDGET(self->runs_b));
		gtk_widget_set_margin_start(bar, 12);
		gtk_widget_set_margin_top(bar, 6);
		self->lanes_b = GA_STEP_LANES(ga_step_lanes_new());
		ga_step_lanes_set_label(self->lanes_b, "Execution trace, report B");
		gtk_widget_set_margin_end(GTK_WIDGET(self->lanes_b), 4);
		g_signal_connect(self->lanes_b, "selection-changed", G_CALLBACK(on_selection_changed_b),
		                 self);
		g_signal_connect(self->lanes_b, "visible-changed", G_CALLBACK(on_visible), self);
		gtk_box_append(GTK_BOX(self->compare_box), gtk_separator_new(GTK_ORIENTATION_HORIZONTAL));
		gtk_box_append(GTK_BOX(self->compare_box), bar);
		gtk_box_append(GTK_BOX(self->compare_box), GTK_WIDGET(self->lanes_b));
		gtk_widget_set_visible(self->compare_box, FALSE);
		gtk_box_append(GTK_BOX(top), GTK_WIDGET(self->lanes));
		gtk_box_append(GTK_BOX(top), self->compare_box);
		gtk_paned_set_start_child(GTK_PANED(paned), top);
	}
	gtk_paned_set_end_child(GTK_PANED(paned), build_panel(self));
	gtk_paned_set_shrink_start_child(GTK_PANED(paned), FALSE);
	gtk_paned_set_shrink_end_child(GTK_PANED(paned), FALSE);
	/* The lanes keep their natural height; the panel takes what is left. */
	gtk_paned_set_resize_start_child(GTK_PANED(paned), FALSE);
	gtk_widget_set_vexpand(paned, TRUE);
	gtk_box_append(GTK_BOX(self), paned);
	update_details(self);
	update_range(self);
}

GtkWidget *ga_trace_view_new(GaSession *session)
{
	GaTraceView *self = g_object_new(GA_TYPE_TRACE_VIEW, NULL);

	self->session = g_object_ref(session);
	g_signal_connect(session, "notify::document", G_CALLBACK(on_document), self);
	g_signal_connect(session, "notify::step", G_CALLBACK(on_session_step), self);
	g_signal_connect(session, "notify::program", G_CALLBACK(on_session_program), self);
	rebuild(self);
	return GTK_WIDGET(self);
}
