/*
 * The Liveness view (ga-liveness-view.h). One chart item per liveness
 * step. All tiles: the steps' not-always-live bytes as the file stores
 * them (tsr_report_get_liveness_steps). One IPU: the document's per-IPU
 * curves, summed off the main thread when the report loaded. Selected
 * tiles: a worker with its own reportlib handle sums the listed
 * variables' bytes on those tiles over their live intervals
 * (ga-liveness-curves.h), cancelled by a newer selection. The variables
 * live at a clicked step come from tsr_report_list_live_variables on the
 * main thread: a few milliseconds per step on a report of 100,000
 * variables. What a clicked step runs (its vertices by type, its cycle
 * estimate over tiles) comes from reportlib's step queries. The
 * always-live variables' rows (over 100,000 on a large model) are made
 * by a worker, so that the view paints without waiting for them.
 */
#include "ga-liveness-view.h"
#include "ga-var-row.h"

#include "ga-figures.h"
#include "ga-format.h"
#include "ga-jumps.h"
#include "ga-liveness-curves.h"

#include <tilescope/tsc-axis.h>
#include <tilescope/tsc-chart.h>
#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-cancel.h>

#include <string.h>

/* Steps compared side by side in the live-variables table. */
#define MAX_COMPARE GA_VAR_ROW_BYTES

/* --- The widget -------------------------------------------------------------------------- */

struct _GaLivenessView {
	GaView parent_instance;

	size_t n_steps;
	guint num_ipus;               /* IPUs with a scope entry (0 for a one-IPU report) */
	uint64_t *curve;              /* the scope's not-always-live bytes per step */
	uint64_t always;              /* the scope's always-live bytes */
	gboolean curve_ready;
	GCancellable *job;            /* the selected-tiles curve being summed, if any */
	gint job_done;                /* its variables read (atomic) */
	size_t job_total;
	guint job_timeout;            /* shows its progress */
	gint64 job_start;             /* monotonic µs */
	char *job_name;               /* what it sums: "Selected tiles", "IPU 1" */
	gint64 compared[MAX_COMPARE]; /* steps in the table's byte columns */
	guint n_compared;
	gboolean b_live;              /* bytes[1]: B's at compared[0], comparing one step */

	/* From the template (ga-liveness-view.ui). */
	GtkDropDown *scope;
	GtkCheckButton *include_always;
	GtkLabel *status;
	TscChart *chart;
	GtkLabel *peak_caption;
	GtkLabel *compare_caption;    /* report B's curve and peak, when comparing */
	GtkLabel *variable_caption;
	TsdTable *live_table;         /* GaVarRow, bytes[c] at compared[c] */
	GtkLabel *stack;
	TsdTable *always_table;       /* GaVarRow, bytes[0] its bytes */
	GtkNotebook *notebook;
	GtkWidget *stack_box, *stack_heading;
	GtkWidget *live_jump, *always_jump; /* "Show Tiles in Memory" (ga-jumps.h) */
	GtkWidget *step_jump;         /* "Show in Execution Trace": the call stack's step */
	GtkWidget *vertices_box, *cycles_box; /* the Vertices and Cycle Estimates tabs */
};

G_DEFINE_FINAL_TYPE(GaLivenessView, ga_liveness_view, GA_TYPE_VIEW)

/* The document shown (borrowed), or NULL. */
static GaDocument *document(GaLivenessView *self)
{
	return ga_view_get_document(GA_VIEW(self));
}

/* Report B when comparing (borrowed), or NULL. */
static GaDocument *compared(GaLivenessView *self)
{
	return ga_view_get_compare_document(GA_VIEW(self));
}

static const char *const not_always_colour = "#2ec27e";
static const char *const always_colour = "#c061cb";
static const char *const lifetime_colour = "#e66100";

static GdkRGBA colour(const char *spec)
{
	GdkRGBA c;

	gdk_rgba_parse(&c, spec);
	return c;
}

static const char *const compare_colour = "#3584e4";

/* "OnTileExecute layer1/fwd" for step `step` of `doc` ("?" when out of
 * range or no document). */
static char *doc_step_program(GaDocument *doc, size_t step)
{
	const tsr_summary_figures *f = doc ? ga_document_get_figures(doc) : NULL;
	const tsr_summary_liveness_step *s;
	g_autofree char *name = NULL;
	const char *type;

	if (!f || step >= f->n_liveness_steps)
		return g_strdup("?");
	s = &f->liveness_steps[step];
	type = tsr_program_type_name(s->program_type);
	if (!type)
		type = "?";
	if (!s->name)
		return g_strdup(type);
	name = ga_format_name(s->name);
	return g_strdup_printf("%s %s", type, name);
}

/* The same for the report shown (A). */
static char *step_program(GaLivenessView *self, size_t step)
{
	return doc_step_program(document(self), step);
}

/* The chart's item names: "Step 11: OnTileExecute layer1/fwd". */
static char *item_label(guint item, gpointer data)
{
	g_autofree char *program = step_program(data, item);

	return g_strdup_printf("Step %u: %s", item, program);
}

/* --- Scopes ------------------------------------------------------------------------------ */

/* What the scope drop-down's entry `pos` is: -1 all tiles, an IPU, or
 * G_MAXINT the selected tiles. */
static int scope_of(GaLivenessView *self, guint pos)
{
	if (pos == 0 || pos == GTK_INVALID_LIST_POSITION)
		return -1;
	if (pos <= self->num_ipus)
		return (int)pos - 1;
	return G_MAXINT;
}

static void rebuild_chart(GaLivenessView *self);

/* Writes the peak of the scope's curve into the caption and marks it. */
static void show_peak(GaLivenessView *self, const char *scope_name)
{
	size_t peak = 0;
	g_autofree char *program = NULL;
	g_autofree char *bytes = NULL;
	g_autofree char *with = NULL;
	g_autofree char *always = NULL;
	g_autofree char *text = NULL;
	guint item;

	if (!self->curve_ready || self->n_steps == 0) {
		gtk_label_set_text(self->peak_caption, self->n_steps ? "" : "The report has no liveness steps.");
		tsc_chart_set_markers(self->chart, NULL, 0, NULL);
		return;
	}
	/* The first of equals, as reportlib's tsr_report_get_peak_liveness. */
	for (size_t s = 1; s < self->n_steps; s++)
		if (self->curve[s] > self->curve[peak])
			peak = s;
	program = step_program(self, peak);
	bytes = ga_format_u64(self->curve[peak]);
	with = ga_format_u64(self->curve[peak] + self->always);
	always = ga_format_u64(self->always);
	text = g_strdup_printf("%s%s%sPeak%s%s at step %zu (%s): %s bytes not always live; maximum "
	                       "live bytes (including always-live) %s; always-live bytes %s",
	                       compared(self) ? "A — " : "",
	                       compared(self) ? ga_document_get_title(document(self)) : "",
	                       compared(self) ? " (bars). " : "", scope_name ? " of " : "",
	                       scope_name ? scope_name : "", peak, program, bytes, with, always);
	gtk_label_set_text(self->peak_caption, text);
	item = (guint)peak;
	tsc_chart_set_markers(self->chart, &item, 1, NULL);
}

/* Stops the selected-tiles worker, if one runs. */
static void cancel_job(GaLivenessView *self)
{
	tsd_cancel_clear(&self->job);
	if (self->job_timeout)
		g_source_remove(self->job_timeout);
	self->job_timeout = 0;
}

/* One selected-tiles curve: the file, the tiles, the answer. */
typedef struct curve_job {
	char *path;
	guint8 *on_tile;              /* by tile: whether it is summed */
	size_t n_steps;
	uint64_t *curve;
	gint *done;                   /* the view's job_done */
	size_t n_vars;
	char *error;
} curve_job;

static void curve_job_free(curve_job *j)
{
	g_free(j->path);
	g_free(j->on_tile);
	g_free(j->curve);
	g_free(j->error);
	g_free(j);
}

static void curve_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
	curve_job *j = data;
	tsr_report *r = NULL;
	int rc = tsr_report_open(&r, j->path, NULL);

	if (rc) {
		j->error = g_strdup(tsr_last_error());
	} else {
		rc = ga_liveness_curve(j->curve, j->n_steps, r, j->on_tile, cancel, j->done, &j->n_vars);
		if (rc && rc != TSR_ERR_CANCELLED)
			j->error = g_strdup(tsr_report_error(r));
	}
	tsr_report_free(r);
	g_task_return_boolean(task, TRUE);
}

/* The status line while the worker sums. */
static gboolean show_job_progress(gpointer data)
{
	GaLivenessView *self = data;
	g_autofree char *done = ga_format_u64((guint64)g_atomic_int_get(&self->job_done));
	g_autofree char *text = g_strdup_printf(
	    "Summing the selected tiles' bytes in the background: %s variables read…", done);

	gtk_label_set_text(self->status, text);
	return G_SOURCE_CONTINUE;
}

static void on_curve_done(GObject *source, GAsyncResult *result, gpointer data)
{
	GaLivenessView *self = data;
	GTask *task = G_TASK(result);
	curve_job *j = g_task_get_task_data(task);
	g_autofree char *text = NULL;
	g_autofree char *vars = NULL;

	if (g_task_get_cancellable(task) != self->job || g_cancellable_is_cancelled(self->job)) {
		g_object_unref(self);
		return; /* a newer selection or scope replaced it */
	}
	cancel_job(self);
	if (j->error) {
		text = g_strdup_printf("The selected tiles' liveness could not be read: %s", j->error);
		gtk_label_set_text(self->status, text);
		g_object_unref(self);
		return;
	}
	memcpy(self->curve, j->curve, self->n_steps * sizeof(*self->curve));
	self->curve_ready = TRUE;
	vars = ga_format_u64(j->n_vars);
	text = g_strdup_printf(
	    "%s: summed from the %s listed variables' per-tile bytes over their lifetimes in "
	    "%.2f s, by a worker with its own handle.%s",
	    self->job_name ? self->job_name : "", vars,
	    (double)(g_get_monotonic_time() - self->job_start) / 1e6,
	    tsr_report_get_info(ga_document_get_report(document(self)))->lowered_vars
	        ? ""
	        : " The report lists the user's variables only (written without "
	          "autoReport.outputLoweredVars), so this curve leaves the rest out.");
	gtk_label_set_text(self->status, text);
	rebuild_chart(self);
	g_object_unref(self);
}

/* Starts the worker summing the curve of `tiles` (the session's
 * selection, or one IPU's tiles), named `name` in the status line. */
static void start_selection_curve(GaLivenessView *self, GtkBitset *tiles, const char *name)
{
	const tsr_target *target = tsr_report_get_target(ga_document_get_report(document(self)));
	curve_job *j = g_new0(curve_job, 1);
	GTask *task;
	GtkBitsetIter it;
	guint tile;

	j->path = g_file_get_path(ga_document_get_file(document(self)));
	j->n_steps = self->n_steps;
	j->curve = g_new0(uint64_t, self->n_steps ? self->n_steps : 1);
	j->on_tile = g_new0(guint8, target->num_tiles ? target->num_tiles : 1);
	for (gboolean ok = gtk_bitset_iter_init_first(&it, tiles, &tile); ok;
	     ok = gtk_bitset_iter_next(&it, &tile))
		if (tile < target->num_tiles)
			j->on_tile[tile] = 1;
	g_free(self->job_name);
	self->job_name = g_strdup(name);
	g_atomic_int_set(&self->job_done, 0);
	j->done = &self->job_done;
	self->job = g_cancellable_new();
	self->job_start = g_get_monotonic_time();
	show_job_progress(self);
	self->job_timeout = g_timeout_add(200, show_job_progress, self);
	task = g_task_new(NULL, self->job, on_curve_done, g_object_ref(self));
	g_task_set_task_data(task, j, (GDestroyNotify)curve_job_free);
	g_task_run_in_thread(task, curve_thread);
	g_object_unref(task);
}

/* Fills self->curve and self->always for the chosen scope (or starts
 * the worker), then the chart; the scope's "notify::selected" too. */
static void apply_scope(GaLivenessView *self)
{
	tsr_report *report;
	const tsr_target *target;
	const uint64_t *always_by_tile;
	int scope = scope_of(self, gtk_drop_down_get_selected(self->scope));

	if (!document(self))
		return;
	report = ga_document_get_report(document(self));
	target = tsr_report_get_target(report);
	always_by_tile = ga_document_get_always_live_by_tile(document(self));
	cancel_job(self);
	self->curve_ready = FALSE;
	self->always = 0;
	if (scope == -1) {
		const tsr_liveness_step *steps = NULL;
		size_t n = 0;

		tsr_report_get_liveness_steps(&steps, &n, report);
		for (size_t s = 0; s < self->n_steps && s < n; s++)
			self->curve[s] = steps[s].not_always_live;
		self->always = tsr_report_get_always_live_bytes(report);
		self->curve_ready = TRUE;
		gtk_label_set_text(self->status, "All tiles: the bytes the report stores for each step.");
	} else if (scope != G_MAXINT) {
		/* One IPU: summed by the worker when first asked for (it is a
		 * pass over every variable: too slow to pay at every open). */
		g_autoptr(GtkBitset) ipu_tiles = gtk_bitset_new_range(
		    (guint)scope * target->tiles_per_ipu, target->tiles_per_ipu);
		g_autofree char *name = g_strdup_printf("IPU %d", scope);

		for (size_t t = 0; always_by_tile && t < target->num_tiles; t++)
			if (t / target->tiles_per_ipu == (size_t)scope)
				self->always += always_by_tile[t];
		start_selection_curve(self, ipu_tiles, name);
	} else {
		GtkBitset *tiles = ga_session_get_selected_tiles(ga_view_get_session(GA_VIEW(self)));
		GtkBitsetIter it;
		guint tile;

		for (gboolean ok = gtk_bitset_iter_init_first(&it, tiles, &tile); ok;
		     ok = gtk_bitset_iter_next(&it, &tile))
			if (always_by_tile && tile < target->num_tiles)
				self->always += always_by_tile[tile];
		if (gtk_bitset_is_empty(tiles)) {
			memset(self->curve, 0, self->n_steps * sizeof(*self->curve));
			gtk_label_set_text(self->status,
			                   "No tiles are selected: select tiles in the Memory view.");
		} else {
			start_selection_curve(self, tiles, "Selected tiles");
		}
	}
	rebuild_chart(self);
}

/* --- The chart ----------------------------------------------------------------------------- */

static void show_lifetime(GaLivenessView *self);
static void add_compare_series(GaLivenessView *self);

/* The chart from self->curve: not-always-live bytes per step, with the
 * scope's always-live bytes stacked on them when asked (Include
 * Always-Live's "notify::active" too). */
static void rebuild_chart(GaLivenessView *self)
{
	gboolean with_always = gtk_check_button_get_active(self->include_always);
	guint n = (guint)self->n_steps, k = with_always ? 2 : 1;
	g_autofree double *values = g_new0(double, (size_t)k * (n ? n : 1));
	GdkRGBA colours[2] = {colour(not_always_colour), colour(always_colour)};
	const char *names[] = {"Not always live", "Always live", NULL};
	int scope = scope_of(self, gtk_drop_down_get_selected(self->scope));
	g_autofree char *scope_name = scope >= 0 && scope != G_MAXINT ? g_strdup_printf("IPU %d", scope)
	                              : scope == G_MAXINT ? g_strdup("the selected tiles")
	                                                  : NULL;

	if (!document(self))
		return;
	for (guint s = 0; self->curve_ready && s < n; s++) {
		values[s] = (double)self->curve[s];
		if (with_always)
			values[(size_t)n + s] = (double)self->always;
	}
	tsc_chart_set_stacks(self->chart, n, k, values, colours, names);
	show_peak(self, scope_name);
	show_lifetime(self);
}

/* Comparing: report B's curve over A's chart, as a line, and its peak in
 * a caption. B's curve is all of its tiles (whatever A's scope), with
 * its always-live bytes added when Include Always-Live is on. The x axis
 * is A's steps: with as many steps in both, step s of B is item s; with
 * different counts B is normalised onto A's axis (step s at item
 * s * A's count / B's count; several steps of B in one item show their
 * largest), and the caption says so. */
static void add_compare_series(GaLivenessView *self)
{
	tsr_report *rb;
	const tsr_liveness_step *steps = NULL;
	size_t nb = 0, na = self->n_steps, peak = 0;
	uint64_t always;
	gboolean with_always = gtk_check_button_get_active(self->include_always);
	g_autofree double *values = NULL;
	g_autofree char *series = NULL, *program = NULL, *bytes = NULL, *with = NULL, *axis = NULL;
	g_autofree char *text = NULL;
	GdkRGBA c = colour(compare_colour);

	if (!compared(self))
		return;
	rb = ga_document_get_report(compared(self));
	tsr_report_get_liveness_steps(&steps, &nb, rb);
	always = tsr_report_get_always_live_bytes(rb);
	if (na && nb) {
		values = g_new0(double, na);
		for (size_t s = 0; s < nb; s++) {
			size_t item = nb == na ? s : (size_t)((double)s * (double)na / (double)nb);
			double v = (double)steps[s].not_always_live + (with_always ? (double)always : 0);

			item = MIN(item, na - 1);
			values[item] = MAX(values[item], v);
		}
		/* Items no step of B maps to (B shorter) carry the step before. */
		for (size_t i = 1; nb < na && i < na; i++)
			if (values[i] == 0)
				values[i] = values[i - 1];
		series = g_strdup_printf("B — %s", ga_document_get_title(compared(self)));
		tsc_chart_add_series(self->chart, series, values, &c, TSC_SERIES_LINE);
	}
	if (!nb) {
		text = g_strdup_printf("B — %s: the report has no liveness steps.",
		                       ga_document_get_title(compared(self)));
		gtk_label_set_text(self->compare_caption, text);
		return;
	}
	for (size_t s = 1; s < nb; s++)
		if (steps[s].not_always_live > steps[peak].not_always_live)
			peak = s;
	program = doc_step_program(compared(self), peak);
	bytes = ga_format_u64(steps[peak].not_always_live);
	with = ga_format_u64(steps[peak].not_always_live + always);
	axis = nb == na ? g_strdup_printf("same %zu steps as A", nb)
	                : g_strdup_printf("its %zu steps normalised to A's %zu", nb, na);
	text = g_strdup_printf("B — %s (blue line, all tiles, %s). Peak at step %zu (%s): %s bytes "
	                       "not always live; maximum live bytes (including always-live) %s",
	                       ga_document_get_title(compared(self)), axis, peak, program, bytes,
	                       with);
	gtk_label_set_text(self->compare_caption, text);
}

/* The session's variable drawn over the chart: its bytes over its
 * lifetime, and a caption (when the session's variable changes too). */
static void show_lifetime(GaLivenessView *self)
{
	gint64 index = document(self) ? ga_session_get_variable(ga_view_get_session(GA_VIEW(self))) : -1;
	const tsr_variable *vars = NULL;
	size_t n_vars = 0;
	const tsr_variable *v;
	g_autofree double *values = NULL;
	g_autofree char *name = NULL;
	g_autofree char *bytes = NULL;
	g_autofree char *text = NULL;
	GdkRGBA c = colour(lifetime_colour);

	if (!document(self))
		return;
	tsc_chart_clear_series(self->chart);
	add_compare_series(self);
	if (index < 0 || tsr_report_get_variables(&vars, &n_vars, ga_document_get_report(document(self))) ||
	    (size_t)index >= n_vars) {
		gtk_label_set_text(self->variable_caption, "");
		return;
	}
	v = &vars[index];
	name = v->name ? ga_format_name(v->name) : g_strdup("<anonymous>");
	bytes = ga_format_u64(v->bytes);
	values = g_new0(double, self->n_steps ? self->n_steps : 1);
	if (v->always_live) {
		/* No band: over the whole chart it would only rescale it. */
		text = g_strdup_printf("%s (%s bytes) is always live: counted in the always-live "
		                       "bytes at every step",
		                       name, bytes);
		gtk_label_set_text(self->variable_caption, text);
		return;
	} else if (v->live_from >= 0 && v->live_to >= v->live_from) {
		for (size_t s = (size_t)v->live_from; s <= (size_t)v->live_to && s < self->n_steps; s++)
			values[s] = (double)v->bytes;
		text = g_strdup_printf("%s (%s bytes) is live from step %" G_GINT64_FORMAT
		                       " to step %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT
		                       " steps): the orange line",
		                       name, bytes, v->live_from, v->live_to,
		                       v->live_to - v->live_from + 1);
	} else {
		text = g_strdup_printf("%s (%s bytes) is live at no step", name, bytes);
	}
	{
		g_autofree char *series = g_strdup_printf("Lifetime of %s", name);

		tsc_chart_add_series(self->chart, series, values, &c, TSC_SERIES_LINE);
	}
	gtk_label_set_text(self->variable_caption, text);
}

/* --- The live variables and the call stack ----------------------------------------------- */

static void rebuild_live_columns(GaLivenessView *self);

/* The call stack of `step`: the step, then each enclosing step up to the
 * top level. */
static void show_stack(GaLivenessView *self, gint64 step)
{
	const tsr_liveness_step *steps = NULL;
	size_t n = 0;
	GString *text = g_string_new(NULL);
	guint guard = 0;

	if (step >= 0)
		tsr_report_get_liveness_steps(&steps, &n, ga_document_get_report(document(self)));
	for (gint64 s = step; s >= 0 && (size_t)s < n && guard < 10000; s = steps[s].parent, guard++) {
		g_autofree char *program = step_program(self, (size_t)s);

		g_string_append_printf(text, "%s%*sStep %" G_GINT64_FORMAT ": %s", text->len ? "\n" : "",
		                       (int)MIN(steps[s].depth, 40u) * 2, "", s, program);
	}
	gtk_label_set_text(self->stack, text->len ? text->str : "Click a step to see its call stack.");
	ga_jump_bar_set_target(GA_JUMP_BAR(self->step_jump), text->len ? step : -1, -1);
	g_string_free(text, TRUE);
}

/* --- What the step runs ------------------------------------------------------------------ */

/* "1,234 cycles": a list's figure with its unit, so that a row reads
 * whole. The caller frees it. */
static char *with_unit(uint64_t value, const char *unit)
{
	g_autofree char *v = ga_format_u64(value);

	return g_strdup_printf("%s %s", v, unit);
}

/* Appends to `box` a list named and headed `title`. */
static GtkWidget *add_list(GtkWidget *box, const char *title)
{
	GtkWidget *heading = gtk_label_new(title), *list = ga_list_new(title, FALSE);

	gtk_label_set_xalign(GTK_LABEL(heading), 0);
	gtk_widget_add_css_class(heading, "heading");
	gtk_box_append(GTK_BOX(box), heading);
	gtk_box_append(GTK_BOX(box), list);
	return list;
}

/* Appends to `vbox` (the Vertices tab or its column) and `cbox` (Cycle
 * Estimates) what liveness step `step` of `doc` runs: the compute set's
 * vertices by type, and the cycle estimate of its compute set or
 * exchange over tiles, as reportlib gives them. */
static void add_step_work(GaDocument *doc, gint64 step, GtkWidget *vbox, GtkWidget *cbox)
{
	tsr_report *r = ga_document_get_report(doc);
	const tsr_liveness_step *steps = NULL;
	const tsr_program *progs = NULL;
	const tsr_compute_set *cs = NULL;
	const tsr_vertex_type *vt = NULL;
	size_t n_steps = 0, n_progs = 0, n_cs = 0, n_vt = 0, n_v = 0;
	tsr_cs_vertices *v = NULL;
	tsr_vertex_memory mem;
	tsr_cycle_estimate e;
	g_autofree char *program = NULL, *text = NULL, *count = NULL, *tiles = NULL, *bytes = NULL;
	GtkWidget *list = NULL, *grid;
	guint32 prog;

	if (tsr_report_get_liveness_steps(&steps, &n_steps, r) || (size_t)step >= n_steps ||
	    tsr_report_get_programs(&progs, &n_progs, r) || steps[step].program >= n_progs ||
	    tsr_report_get_compute_sets(&cs, &n_cs, r) || tsr_report_get_vertex_types(&vt, &n_vt, r)) {
		text = g_strdup_printf("The report has no liveness step %" G_GINT64_FORMAT ".", step);
		gtk_box_append(GTK_BOX(vbox), ga_note_new(text));
		gtk_box_append(GTK_BOX(cbox), ga_note_new(text));
		return;
	}
	prog = steps[step].program;
	program = doc_step_program(doc, (size_t)step);
	if (progs[prog].compute_set < 0 || (size_t)progs[prog].compute_set >= n_cs) {
		text = g_strdup_printf("Step %" G_GINT64_FORMAT ": %s runs no vertices: only "
		                       "OnTileExecute steps (compute sets) do.", step, program);
		gtk_box_append(GTK_BOX(vbox), ga_note_new(text));
	} else if (tsr_report_list_compute_set_vertices(&v, &n_v, r, (size_t)progs[prog].compute_set) ||
	           tsr_report_fill_compute_set_memory(&mem, r, (size_t)progs[prog].compute_set, -1)) {
		gtk_box_append(GTK_BOX(vbox), ga_note_new(tsr_report_error(r)));
	} else {
		const tsr_compute_set *c = &cs[progs[prog].compute_set];

		count = ga_format_u64(c->vertices);
		tiles = ga_format_u64(c->tiles);
		bytes = ga_format_u64(mem.vertex_data);
		text = g_strdup_printf("Step %" G_GINT64_FORMAT ": %s: %s vertices of %zu type%s on %s "
		                       "tiles; vertex state %s bytes", step, program, count, n_v,
		                       n_v == 1 ? "" : "s", tiles, bytes);
		gtk_box_append(GTK_BOX(vbox), ga_note_new(text));
		list = add_list(vbox, "Vertices by type");
		for (size_t i = 0; i < n_v; i++) {
			g_autofree char *x = with_unit(v[i].count, "vertices");
			g_autofree char *t = with_unit(v[i].tiles, "tiles");
			g_autofree char *b = with_unit(v[i].state_bytes, "bytes of state");
			const char *cells[] = {v[i].vertex_type < n_vt ? vt[v[i].vertex_type].name : "?", x,
			                       t, b};

			ga_list_add(list, cells, 4);
		}
		gtk_box_append(GTK_BOX(vbox),
		               ga_note_new("Tiles: the compute set's tiles that hold the type's code (the "
		                           "report keeps tiles per compute set and per type, not per "
		                           "pair). Vertex state: vertices × the type's state size."));
	}
	g_clear_pointer(&text, g_free);
	if (tsr_report_fill_program_cycle_estimate(&e, r, prog)) {
		text = g_strdup_printf("Step %" G_GINT64_FORMAT ": %s: %s.", step, program,
		                       tsr_report_error(r));
		gtk_box_append(GTK_BOX(cbox), ga_note_new(text));
		free(v);
		return;
	}
	text = g_strdup_printf("Step %" G_GINT64_FORMAT ": %s", step, program);
	gtk_box_append(GTK_BOX(cbox), ga_note_new(text));
	grid = ga_figure_grid_new();
	ga_figure_grid_add_u64(grid, 0, "Cycle estimate (slowest tile)", e.cycles, "cycles", NULL);
	ga_figure_grid_add_u64(grid, 0, "Tiles with cycles", e.tiles, NULL, NULL);
	ga_figure_grid_add_u64(grid, 0, "Minimum over those tiles", e.min, "cycles", NULL);
	ga_figure_grid_add_u64(grid, 0, "Maximum over those tiles", e.cycles, "cycles", NULL);
	g_clear_pointer(&text, g_free);
	text = ga_format_1dp(e.mean);
	ga_figure_grid_add(grid, 0, "Mean over those tiles", text, "cycles", NULL);
	ga_figure_grid_add_u64(grid, 0, "Sum over tiles", e.sum, "cycles", NULL);
	gtk_box_append(GTK_BOX(cbox), grid);
	for (size_t i = 0; i < n_v; i++) {
		g_autofree char *c = with_unit(v[i].active_cycles, "active cycles");
		const char *cells[] = {v[i].vertex_type < n_vt ? vt[v[i].vertex_type].name : "?", c};

		if (i == 0)
			list = add_list(cbox, "Active cycles by vertex type, summed over tiles");
		ga_list_add(list, cells, 2);
	}
	list = add_list(cbox, "Busiest tiles");
	for (size_t i = 0; i < e.n_busiest; i++) {
		g_autofree char *tile = g_strdup_printf("Tile %u", e.busiest[i]);
		g_autofree char *c = with_unit(e.busiest_cycles[i], "cycles");
		const char *cells[] = {tile, c};

		ga_list_add(list, cells, 2);
	}
	ga_list_finish(list, e.n_busiest, e.tiles);
	free(v);
}

/* The Vertices and Cycle Estimates tabs for liveness step `step` (-1:
 * none); comparing, B's same step beside A's, each under its title. */
static void show_step_work(GaLivenessView *self, gint64 step)
{
	GaDocument *docs[] = {document(self), compared(self)};
	GtkWidget *tabs[] = {self->vertices_box, self->cycles_box}, *cols[2][2], *c;

	for (int t = 0; t < 2; t++)
		while ((c = gtk_widget_get_first_child(tabs[t])))
			gtk_box_remove(GTK_BOX(tabs[t]), c);
	if (step < 0) {
		gtk_box_append(GTK_BOX(tabs[0]),
		               ga_note_new("Click a step in the chart to list the vertices it runs."));
		gtk_box_append(GTK_BOX(tabs[1]),
		               ga_note_new("Click a step in the chart to see its cycle estimate."));
		return;
	}
	if (!docs[1]) {
		add_step_work(docs[0], step, tabs[0], tabs[1]);
		return;
	}
	for (int t = 0; t < 2; t++) {
		GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 24);

		gtk_box_set_homogeneous(GTK_BOX(row), TRUE);
		gtk_box_append(GTK_BOX(tabs[t]), row);
		for (int d = 0; d < 2; d++) {
			g_autofree char *title = g_strdup_printf("%s — %s", d ? "B" : "A",
			                                         ga_document_get_title(docs[d]));
			GtkWidget *heading = gtk_label_new(title);

			cols[t][d] = gtk_box_new(GTK_ORIENTATION_VERTICAL, 8);
			gtk_label_set_xalign(GTK_LABEL(heading), 0);
			gtk_label_set_ellipsize(GTK_LABEL(heading), PANGO_ELLIPSIZE_MIDDLE);
			gtk_widget_add_css_class(heading, "heading");
			gtk_box_append(GTK_BOX(cols[t][d]), heading);
			gtk_box_append(GTK_BOX(row), cols[t][d]);
		}
	}
	for (int d = 0; d < 2; d++)
		add_step_work(docs[d], step, cols[0][d], cols[1][d]);
}

/* Comparing one step: B's variables live at it beside A's (bytes[1] of
 * `order`'s rows), matched by name; B's own get rows of their own, with
 * no variable of A to select. FALSE when B has no such step. */
static gboolean add_b_live(GaLivenessView *self, GPtrArray *order)
{
	GaDocument *b = compared(self);
	const tsr_variable *vb;
	size_t nb, *list = NULL, n = 0;
	g_autoptr(GHashTable) by_name = g_hash_table_new(g_str_hash, g_str_equal);

	if (tsr_report_get_variables(&vb, &nb, ga_document_get_report(b)) ||
	    tsr_report_list_live_variables(&list, &n, ga_document_get_report(b),
	                                   (size_t)self->compared[0]))
		return FALSE;
	for (guint i = 0; i < order->len; i++)
		if (((GaVarRow *)order->pdata[i])->full_name)
			g_hash_table_insert(by_name, (gpointer)((GaVarRow *)order->pdata[i])->full_name,
			                    order->pdata[i]);
	for (size_t i = 0; i < n; i++) {
		GaVarRow *row;

		if (list[i] >= nb)
			continue;
		row = vb[list[i]].name ? g_hash_table_lookup(by_name, vb[list[i]].name) : NULL;
		if (!row) {
			row = ga_var_row_new(b, &vb[list[i]], list[i]);
			row->index = -1;
			g_ptr_array_add(order, row);
		}
		ga_var_row_set_bytes(row, 1, vb[list[i]].bytes);
	}
	free(list);
	return TRUE;
}

/* The table for the chart's selected steps (the first MAX_COMPARE). */
static void on_chart_selection(TscChart *chart, gpointer data)
{
	GaLivenessView *self = data;
	GtkBitset *sel = tsc_chart_get_selection(chart);
	guint64 n_sel = gtk_bitset_get_size(sel);
	const tsr_variable *vars = NULL;
	size_t n_vars = 0;
	tsr_report *report = ga_document_get_report(document(self));
	g_autoptr(GHashTable) rows = g_hash_table_new(NULL, NULL);
	g_autoptr(GPtrArray) order = g_ptr_array_new_with_free_func(g_object_unref);
	guint n_a;
	GtkBitsetIter it;
	guint item, focus = tsc_chart_get_focus_item(chart);
	gint64 shown;
	g_autofree char *status = NULL;

	self->n_compared = 0;
	self->b_live = FALSE;
	for (gboolean ok = gtk_bitset_iter_init_first(&it, sel, &item);
	     ok && self->n_compared < MAX_COMPARE; ok = gtk_bitset_iter_next(&it, &item))
		self->compared[self->n_compared++] = item;
	tsd_table_set_rows(self->live_table, NULL, 0);
	shown = n_sel == 0 ? -1 : gtk_bitset_contains(sel, focus) ? (gint64)focus : self->compared[0];
	show_stack(self, shown);
	show_step_work(self, shown);
	if (n_sel == 0 || tsr_report_get_variables(&vars, &n_vars, report)) {
		rebuild_live_columns(self);
		tsd_table_set_caption(self->live_table, "Click a step in the chart to list the variables "
		                                        "live at it; shift-click another to compare.");
		return;
	}
	for (guint c = 0; c < self->n_compared; c++) {
		size_t *list = NULL, n = 0;

		if (tsr_report_list_live_variables(&list, &n, report, (size_t)self->compared[c])) {
			tsd_table_set_caption(self->live_table, tsr_report_error(report));
			rebuild_live_columns(self);
			return;
		}
		for (size_t i = 0; i < n; i++) {
			GaVarRow *row = g_hash_table_lookup(rows, GSIZE_TO_POINTER(list[i] + 1));

			if (list[i] >= n_vars)
				continue;
			if (!row) {
				row = ga_var_row_new(document(self), &vars[list[i]], list[i]);
				g_hash_table_insert(rows, GSIZE_TO_POINTER(list[i] + 1), row);
				g_ptr_array_add(order, row);
			}
			ga_var_row_set_bytes(row, c, vars[list[i]].bytes);
		}
		free(list);
	}
	n_a = order->len;
	self->b_live = compared(self) && n_sel == 1 && add_b_live(self, order);
	tsd_table_set_rows(self->live_table, order->pdata, order->len);
	rebuild_live_columns(self);
	{
		g_autofree char *count = ga_format_u64(n_a);

		if (n_sel == 1)
			status = g_strdup_printf("%s variables live at step %" G_GINT64_FORMAT
			                         " (always-live ones included)%s",
			                         count, self->compared[0],
			                         self->b_live ? "; B's at the same step beside them, by "
			                                        "name" : "");
		else if (n_sel <= MAX_COMPARE)
			status = g_strdup_printf("%s variables live at one of the %u steps compared",
			                         count, self->n_compared);
		else
			status = g_strdup_printf("%" G_GUINT64_FORMAT " steps are selected; the table "
			                         "compares the first %d. %s variables live at them",
			                         n_sel, MAX_COMPARE, count);
	}
	tsd_table_set_caption(self->live_table, status);
}

/* Shift-click adds the step under the pointer to the selection, so that
 * a further moment joins the comparison (the chart's own shift-click
 * would select the whole range from the anchor; a drag still does). */
static void on_shift_click(GtkGestureClick *gesture, int n_press, double x, double y,
                           gpointer data)
{
	GaLivenessView *self = data;
	GdkModifierType mods =
	    gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(gesture));
	g_autoptr(GtkBitset) sel = NULL;
	gint64 item;

	if (!(mods & GDK_SHIFT_MASK) || !document(self))
		return;
	item = tsc_chart_item_at(self->chart, x, NULL, NULL);
	if (item < 0)
		return;
	gtk_gesture_set_state(GTK_GESTURE(gesture), GTK_EVENT_SEQUENCE_CLAIMED);
	sel = gtk_bitset_copy(tsc_chart_get_selection(self->chart));
	gtk_bitset_add(sel, (guint)item);
	tsc_chart_set_focus_item(self->chart, (guint)item);
	tsc_chart_set_selection(self->chart, sel);
}

/* The live-variables table's byte columns: one per compared step, the
 * rest hidden. */
static void rebuild_live_columns(GaLivenessView *self)
{
	for (guint c = 0; c < MAX_COMPARE; c++) {
		GtkColumnViewColumn *col = tsd_table_get_column(self->live_table, 1 + c);
		g_autofree char *title = c < self->n_compared && self->n_compared > 1
		                             ? g_strdup_printf("Step %" G_GINT64_FORMAT " bytes",
		                                               self->compared[c])
		                             : g_strdup_printf("%sBytes (all tiles)",
		                                               self->b_live ? (c ? "B: " : "A: ") : "");

		gtk_column_view_column_set_title(col, title);
		gtk_column_view_column_set_visible(col, c < MAX(self->n_compared, 1) ||
		                                            (c == 1 && self->b_live));
	}
	tsd_table_sort_by(self->live_table, 1, GTK_SORT_DESCENDING);
}

/* A variable picked in a table becomes the session's. */
static void on_variable_selected(GtkSingleSelection *selection, GParamSpec *pspec, gpointer data)
{
	GaVarRow *row = gtk_single_selection_get_selected_item(selection);

	if (row)
		ga_session_set_variable(ga_view_get_session(GA_VIEW(data)), row->index);
}

/* --- Always live --------------------------------------------------------------------------- */

/* The always-live rows being made: the document's variables (loaded, so
 * read-only; the reference keeps them) in, the rows out. */
typedef struct always_job {
	GaDocument *doc;
	const tsr_variable *vars;
	size_t n_vars;
	GPtrArray *rows;              /* GaVarRow, largest first */
	guint64 total;                /* their bytes */
} always_job;

static void always_job_free(always_job *j)
{
	ga_document_unref(j->doc);
	g_ptr_array_unref(j->rows);
	g_free(j);
}

/* Largest first, as the table sorts at first: GTK's sort then finds the
 * rows in order (one run) instead of sorting 120,000 of them. */
static gint by_bytes_down(gconstpointer a, gconstpointer b)
{
	const GaVarRow *x = *(GaVarRow *const *)a, *y = *(GaVarRow *const *)b;

	return TSD_TABLE_ORDER(y->bytes[0], x->bytes[0]);
}

static void always_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
	always_job *j = data;

	for (size_t i = 0; i < j->n_vars && !g_cancellable_is_cancelled(cancel); i++) {
		GaVarRow *row;

		if (!j->vars[i].always_live)
			continue;
		row = ga_var_row_new(j->doc, &j->vars[i], i);
		ga_var_row_set_bytes(row, 0, j->vars[i].bytes);
		j->total += j->vars[i].bytes;
		g_ptr_array_add(j->rows, row);
	}
	g_ptr_array_sort(j->rows, by_bytes_down);
	g_task_return_boolean(task, TRUE);
}

static void on_always_done(GObject *source, GAsyncResult *result, gpointer data)
{
	GaLivenessView *self = data;
	always_job *j = g_task_get_task_data(G_TASK(result));
	g_autofree char *count = ga_format_u64(j->rows->len), *bytes = ga_format_u64(j->total);
	g_autofree char *status = NULL;

	if (tsd_table_end_job(self->always_table, result)) {
		tsd_table_set_busy(self->always_table, FALSE, NULL);
		tsd_table_set_rows(self->always_table, j->rows->pdata, j->rows->len);
		status = g_strdup_printf("%s always-live variables listed, %s bytes", count, bytes);
		tsd_table_set_caption(self->always_table, status);
	}
	g_object_unref(self);
}

/* Starts the worker making the always-live variables' rows. */
static void fill_always_live(GaLivenessView *self)
{
	always_job *j = g_new0(always_job, 1);
	GTask *task;

	j->doc = ga_document_ref(document(self));
	j->rows = g_ptr_array_new_with_free_func(g_object_unref);
	if (tsr_report_get_variables(&j->vars, &j->n_vars, ga_document_get_report(j->doc))) {
		tsd_table_set_message(self->always_table, tsr_report_error(ga_document_get_report(j->doc)),
		                      FALSE);
		always_job_free(j);
		return;
	}
	tsd_table_set_rows(self->always_table, NULL, 0);
	task = g_task_new(NULL, tsd_table_start_job(self->always_table, "Listing the always-live "
	                                            "variables…"),
	                  on_always_done, g_object_ref(self));
	g_task_set_task_data(task, j, (GDestroyNotify)always_job_free);
	g_task_run_in_thread(task, always_thread);
	g_object_unref(task);
}

/* --- Following the session ----------------------------------------------------------------- */

/* The view's document or report B changed (GaView::document_changed):
 * the scopes, the curve, the tables again. */
static void on_document(GaView *view)
{
	GaLivenessView *self = GA_LIVENESS_VIEW(view);
	GaDocument *doc = ga_view_get_document(view);
	const tsr_liveness_step *steps = NULL;
	const tsr_target *target;
	GtkStringList *list;

	cancel_job(self);
	g_clear_pointer(&self->curve, g_free);
	self->n_steps = 0;
	self->n_compared = 0;
	if (!doc) {
		tsd_table_set_message(self->always_table, "", FALSE);
		return;
	}
	target = tsr_report_get_target(ga_document_get_report(doc));
	tsr_report_get_liveness_steps(&steps, &self->n_steps, ga_document_get_report(doc));
	self->curve = g_new0(uint64_t, self->n_steps ? self->n_steps : 1);
	self->num_ipus = target->num_ipus > 1 ? target->num_ipus : 0;
	list = gtk_string_list_new(NULL);
	gtk_string_list_append(list, "All tiles");
	for (guint i = 0; i < self->num_ipus; i++) {
		g_autofree char *s = g_strdup_printf("IPU %u", i);

		gtk_string_list_append(list, s);
	}
	gtk_string_list_append(list, "Selected tiles");
	g_signal_handlers_block_by_func(self->scope, apply_scope, self);
	gtk_drop_down_set_model(self->scope, G_LIST_MODEL(list));
	gtk_drop_down_set_selected(self->scope, 0);
	g_signal_handlers_unblock_by_func(self->scope, apply_scope, self);
	g_object_unref(list);
	apply_scope(self);
	on_chart_selection(self->chart, self);
	fill_always_live(self);
}

static void on_session_tiles(GaSession *session, GParamSpec *pspec, gpointer data)
{
	GaLivenessView *self = data;

	if (document(self) && scope_of(self, gtk_drop_down_get_selected(self->scope)) == G_MAXINT)
		apply_scope(self);
}

/* The jump bars (they need the session): made before the base hands
 * over the first document. */
static void ga_liveness_view_constructed(GObject *object)
{
	GaLivenessView *self = GA_LIVENESS_VIEW(object);
	GaSession *session = ga_view_get_session(GA_VIEW(self));

	self->live_jump = ga_jump_bar_new(session, GA_JUMP_BAR_VARIABLE);
	tsd_table_add_header(self->live_table, self->live_jump);
	self->always_jump = ga_jump_bar_new(session, GA_JUMP_BAR_VARIABLE);
	tsd_table_add_header(self->always_table, self->always_jump);
	self->step_jump = ga_jump_bar_new(session, GA_JUMP_BAR_LIVENESS_STEP);
	gtk_box_insert_child_after(GTK_BOX(self->stack_box), self->step_jump, self->stack_heading);
	g_signal_connect(tsd_table_get_view(self->live_table), "activate",
	                 G_CALLBACK(ga_jump_bar_activate_cb), self->live_jump);
	g_signal_connect(tsd_table_get_view(self->always_table), "activate",
	                 G_CALLBACK(ga_jump_bar_activate_cb), self->always_jump);
	G_OBJECT_CLASS(ga_liveness_view_parent_class)->constructed(object);
	/* The base lets go of the session's signals to the view. */
	g_signal_connect(session, "notify::selected-tiles", G_CALLBACK(on_session_tiles), self);
	g_signal_connect_swapped(session, "notify::variable", G_CALLBACK(show_lifetime), self);
}

static void ga_liveness_view_dispose(GObject *object)
{
	GaLivenessView *self = GA_LIVENESS_VIEW(object);

	cancel_job(self);
	gtk_widget_dispose_template(GTK_WIDGET(self), GA_TYPE_LIVENESS_VIEW);
	G_OBJECT_CLASS(ga_liveness_view_parent_class)->dispose(object);
}

static void ga_liveness_view_finalize(GObject *object)
{
	GaLivenessView *self = GA_LIVENESS_VIEW(object);

	g_free(self->curve);
	g_free(self->job_name);
	G_OBJECT_CLASS(ga_liveness_view_parent_class)->finalize(object);
}

/* The variable's caption shows while it says something. */
static gboolean has_text(gpointer view, const char *text)
{
	return text && *text;
}

static void ga_liveness_view_class_init(GaLivenessViewClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->constructed = ga_liveness_view_constructed;
	object_class->dispose = ga_liveness_view_dispose;
	object_class->finalize = ga_liveness_view_finalize;
	GA_VIEW_CLASS(klass)->document_changed = on_document;
	/* A container, silent to a screen reader (GTK 4.8 would say its type
	 * name). */
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GENERIC);
	gtk_widget_class_set_css_name(widget_class, "livenessview");
	g_type_ensure(TSC_TYPE_CHART);
	g_type_ensure(TSD_TYPE_TABLE);
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/GraphAnalyser/ga-liveness-view.ui");
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, scope);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, include_always);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, status);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, chart);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, peak_caption);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, compare_caption);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, variable_caption);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, notebook);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, live_table);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, always_table);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, stack_box);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, stack_heading);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, stack);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, vertices_box);
	gtk_widget_class_bind_template_child(widget_class, GaLivenessView, cycles_box);
	gtk_widget_class_bind_template_callback(widget_class, apply_scope);
	gtk_widget_class_bind_template_callback(widget_class, rebuild_chart);
	gtk_widget_class_bind_template_callback(widget_class, on_chart_selection);
	gtk_widget_class_bind_template_callback(widget_class, on_shift_click);
	gtk_widget_class_bind_template_callback(widget_class, has_text);
}

static void ga_liveness_view_init(GaLivenessView *self)
{
	static const GaVarColumnSpec live_columns[] = {
	    {GA_VAR_COLUMN_NAME, 0},     {GA_VAR_COLUMN_BYTES, 0},       {GA_VAR_COLUMN_BYTES, 1},
	    {GA_VAR_COLUMN_BYTES, 2},    {GA_VAR_COLUMN_BYTES, 3},       {GA_VAR_COLUMN_CATEGORY, 0},
	    {GA_VAR_COLUMN_ALWAYS_LIVE, 0}, {GA_VAR_COLUMN_LIFETIME, 0}};
	static const GaVarColumnSpec always_columns[] = {
	    {GA_VAR_COLUMN_NAME, 0}, {GA_VAR_COLUMN_BYTES, 0}, {GA_VAR_COLUMN_CATEGORY, 0}};
	GtkPaned *paned;

	gtk_widget_init_template(GTK_WIDGET(self));
	/* The tables below the chart, both halves growing with the view. */
	paned = ga_view_get_paned(GA_VIEW(self));
	gtk_orientable_set_orientation(GTK_ORIENTABLE(paned), GTK_ORIENTATION_VERTICAL);
	gtk_paned_set_resize_end_child(paned, TRUE);
	gtk_paned_set_position(paned, 340);
	tsd_a11y_name_dropdown(self->scope, "Scope");
	tsd_a11y_name_tabs(self->notebook);
	tsd_a11y_quiet_when_empty(self->status);
	tsc_chart_set_label(self->chart, "Liveness by step");
	tsc_chart_set_value_format_func(self->chart, tsc_format_bytes, NULL, NULL);
	tsc_chart_set_item_label_func(self->chart, item_label, self, NULL);
	tsd_table_set_cells(self->live_table, &ga_var_row_cells, (gpointer)live_columns);
	tsd_table_set_cells(self->always_table, &ga_var_row_cells, (gpointer)always_columns);
	g_signal_connect(tsd_table_get_selection(self->live_table), "notify::selected-item",
	                 G_CALLBACK(on_variable_selected), self);
	g_signal_connect(tsd_table_get_selection(self->always_table), "notify::selected-item",
	                 G_CALLBACK(on_variable_selected), self);
	rebuild_live_columns(self);
	tsd_table_sort_by(self->always_table, 1, GTK_SORT_DESCENDING);
}

GtkWidget *ga_liveness_view_new(GaSession *session)
{
	return g_object_new(GA_TYPE_LIVENESS_VIEW, "session", session, NULL);
}
