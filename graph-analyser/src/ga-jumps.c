/*
 * The jumps between views and the bar of buttons that makes them
 * (ga-jumps.h). Each finder reads only what reportlib already holds (the
 * program, step and variable tables the loader read); the one file read,
 * a variable's bytes by tile, is a single variable's per-tile runs.
 */
#include "ga-jumps.h"

#include "ga-format.h"
#include "ga-navigation.h"

/* --- Finders ------------------------------------------------------------------------------ */

GtkBitset *ga_jumps_variable_tiles(GaDocument *doc, gint64 variable)
{
	tsr_report *r = doc ? ga_document_get_report(doc) : NULL;
	const tsr_variable *vars;
	size_t n_vars, n_tiles = 0;
	g_autofree uint64_t *bytes = NULL;
	GtkBitset *tiles;

	if (!r || variable < 0 || tsr_report_get_variables(&vars, &n_vars, r) ||
	    (size_t)variable >= n_vars)
		return NULL;
	ga_document_get_tiles(doc, &n_tiles);
	if (!n_tiles)
		return NULL;
	bytes = g_new0(uint64_t, n_tiles);
	if (tsr_report_fill_variable_by_tile(bytes, n_tiles, r, (size_t)variable))
		return NULL;
	tiles = gtk_bitset_new_empty();
	for (size_t t = 0; t < n_tiles; t++)
		if (bytes[t])
			gtk_bitset_add(tiles, (guint)t);
	return tiles;
}

/* Whether `program` (or a program below it) made steps in run `run`. */
static gboolean ran_in(GaDocument *doc, size_t run, gint64 program)
{
	const ga_program_cost *c = ga_document_get_program_costs(doc, run);

	return c && c[program].steps;
}

/* The run in which to look for `program`'s steps: the session's run when
 * one is chosen and the program (or one below it) ran in it, else the
 * latest run in which the program ran, else the session's run or the
 * last; -1 when the report has no runs. */
static gint64 run_for_program(GaDocument *doc, GaSession *session, gint64 program)
{
	size_t n_runs = doc ? ga_document_get_n_runs(doc) : 0;
	gint64 run = -1, step;
	gboolean chosen;

	if (!n_runs)
		return -1;
	ga_session_get_step(session, &run, &step);
	chosen = run >= 0 && (size_t)run < n_runs;
	/* The run shown when the program ran there; else, rather than refuse,
	 * the run in which it did (the trace switches to it). */
	if (chosen && (program < 0 || ran_in(doc, (size_t)run, program)))
		return run;
	for (size_t i = n_runs; program >= 0 && i-- > 0;)
		if (ran_in(doc, i, program))
			return (gint64)i;
	return chosen ? run : (gint64)n_runs - 1;
}

/* Marks `program` and every program below it in `below` (a program
 * table's worth of flags): each once, so shared subtrees cost nothing
 * more and a hostile file's cycle ends. */
static void mark_below(GaDocument *doc, guint32 program, guint8 *below, size_t n_progs)
{
	g_autoptr(GArray) stack = g_array_new(FALSE, FALSE, sizeof(guint32));
	g_autoptr(GArray) buf = g_array_new(FALSE, FALSE, sizeof(guint32));

	if (program >= n_progs)
		return;
	below[program] = 1;
	g_array_append_val(stack, program);
	while (stack->len) {
		guint32 id = g_array_index(stack, guint32, stack->len - 1);
		const uint32_t *kids;
		size_t n;

		g_array_set_size(stack, stack->len - 1);
		kids = ga_document_get_program_below(doc, id, buf, &n);
		for (size_t i = 0; i < n; i++) {
			guint32 k = kids[i];

			if (k < n_progs && !below[k]) {
				below[k] = 1;
				g_array_append_val(stack, k);
			}
		}
	}
}

/* The first step of run `run` (tsr_report_get_steps index) that program
 * `program` or a program below it (children, a Call's function) made;
 * -1 when none did. */
static gint64 first_step(GaDocument *doc, gint64 run, gint64 program)
{
	tsr_report *r = doc ? ga_document_get_report(doc) : NULL;
	const tsr_program *progs;
	const tsr_step *steps;
	size_t n_progs, n_steps;
	g_autofree guint8 *below = NULL;

	if (!r || run < 0 || program < 0 || tsr_report_get_programs(&progs, &n_progs, r) ||
	    (size_t)program >= n_progs || tsr_report_get_steps(&steps, &n_steps, r, (size_t)run))
		return -1;
	below = g_new0(guint8, n_progs);
	mark_below(doc, (guint32)program, below, n_progs);
	for (size_t i = 0; i < n_steps; i++)
		if (steps[i].program < n_progs && below[steps[i].program])
			return (gint64)i;
	return -1;
}

/* Flags by debug context id (n + 1 entries, 0 unused): `op` and its
 * descendants. Parents have lower ids than their children. */
static guint8 *operation_subtree(GaDocument *doc, guint32 op, size_t *n_ctx)
{
	const tsr_operation *ops = ga_document_get_operations(doc, -1, n_ctx);
	guint8 *in;

	if (!ops || op < 1 || op > *n_ctx)
		return NULL;
	in = g_new0(guint8, *n_ctx + 1);
	in[op] = 1;
	for (size_t id = (size_t)op + 1; id <= *n_ctx; id++) {
		uint32_t parent = ops[id - 1].parent;

		if (parent >= 1 && parent < id && in[parent])
			in[id] = 1;
	}
	return in;
}

/* The debug context a program counts for: its own, else (an
 * OnTileExecute without one) its compute set's; -1: none. */
static gint64 program_context(const tsr_program *p, const tsr_compute_set *cs, size_t n_cs)
{
	if (p->debug_context >= 1)
		return p->debug_context;
	if (p->compute_set >= 0 && (size_t)p->compute_set < n_cs)
		return cs[p->compute_set].debug_context;
	return -1;
}

/* The first program operation `op` (a debug context id) or one of its
 * descendants made: its own first (in id order, as its details list
 * them), then its descendants'; -1 when none. */
static gint64 operation_program(GaDocument *doc, guint32 op)
{
	tsr_report *r = doc ? ga_document_get_report(doc) : NULL;
	const tsr_program *progs;
	const tsr_compute_set *cs = NULL;
	size_t n_progs, n_cs = 0, n_ctx;
	g_autofree guint8 *in = NULL;

	if (!r || tsr_report_get_programs(&progs, &n_progs, r) ||
	    !(in = operation_subtree(doc, op, &n_ctx)))
		return -1;
	tsr_report_get_compute_sets(&cs, &n_cs, r);
	/* Its own programs first, as the details list them. */
	for (size_t i = 0; i < n_progs; i++)
		if (progs[i].debug_context == (int64_t)op)
			return (gint64)i;
	for (size_t i = 0; i < n_progs; i++) {
		gint64 ctx = program_context(&progs[i], cs, n_cs);

		if (ctx >= 1 && (size_t)ctx <= n_ctx && in[ctx])
			return (gint64)i;
	}
	return -1;
}

/* The first step of run `run` that operation `op` or a descendant made
 * (an OnTileExecute step counts for its compute set's debug context,
 * others for their program's, as tsr_report_list_operations counts
 * cycles); -1 when none. */
static gint64 operation_step(GaDocument *doc, gint64 run, guint32 op)
{
	tsr_report *r = doc ? ga_document_get_report(doc) : NULL;
	const tsr_program *progs;
	const tsr_compute_set *cs = NULL;
	const tsr_step *steps;
	size_t n_progs, n_cs = 0, n_ctx, n_steps;
	g_autofree guint8 *in = NULL;

	if (!r || run < 0 || tsr_report_get_programs(&progs, &n_progs, r) ||
	    tsr_report_get_steps(&steps, &n_steps, r, (size_t)run) ||
	    !(in = operation_subtree(doc, op, &n_ctx)))
		return -1;
	tsr_report_get_compute_sets(&cs, &n_cs, r);
	for (size_t i = 0; i < n_steps; i++) {
		gint64 ctx = -1;

		if (steps[i].compute_set >= 0 && (size_t)steps[i].compute_set < n_cs)
			ctx = cs[steps[i].compute_set].debug_context;
		if (ctx < 1 && steps[i].program < n_progs)
			ctx = progs[steps[i].program].debug_context;
		if (ctx >= 1 && (size_t)ctx <= n_ctx && in[ctx])
			return (gint64)i;
	}
	return -1;
}

/* --- The bar ------------------------------------------------------------------------------ */

struct _GaJumpBar {
	GtkBox parent_instance;
	GaSession *session;
	GaJumpBarKind kind;
	gint64 target;              /* liveness step, program or debug context; -1: none */
	gint64 run;                 /* an operation's run, -1: as for a program */
	GtkWidget *first, *second;  /* the buttons (second: an operation's "Show Steps") */
	GtkLabel *message;          /* why a jump went nowhere */
};

G_DEFINE_FINAL_TYPE(GaJumpBar, ga_jump_bar, GTK_TYPE_BOX)

static void say(GaJumpBar *self, const char *text)
{
	gtk_label_set_text(self->message, text ? text : "");
	/* Setting the text renames a label for assistive technology: name it
	 * again, so a screen reader (and the tests) find it as one thing. */
	gtk_accessible_update_property(GTK_ACCESSIBLE(self->message), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Jump result", -1);
	gtk_widget_set_visible(GTK_WIDGET(self->message), text && *text);
}

/* Makes jump `j`, clearing what the bar last said. */
static void jump(GaJumpBar *self, const ga_jump *j)
{
	say(self, NULL);
	ga_navigation_jump_from(GTK_WIDGET(self), j);
}

/* Selects step `step` of run `run` (made by `program`) in the Execution
 * Trace. */
static void jump_to_step(GaJumpBar *self, gint64 program, gint64 run, gint64 step)
{
	ga_jump j = GA_JUMP_INIT;

	j.view = "trace";
	j.sets = GA_JUMP_PROGRAM | GA_JUMP_STEP;
	j.program = program;
	j.run = run;
	j.step = step;
	jump(self, &j);
}

/* Shows the steps of `program` (or below it) in the Execution Trace: its
 * first step in the run the trace shows, else in the latest run it ran in
 * (the trace switches to that run), or says it never ran. */
static void show_program_steps(GaJumpBar *self, gint64 program, const char *what)
{
	GaDocument *doc = ga_session_get_document(self->session);
	gint64 run = run_for_program(doc, self->session, program);
	gint64 step = first_step(doc, run, program);

	if (run < 0) {
		say(self, "The report has no runs, so no execution steps.");
		return;
	}
	/* `run` is one the program ran in whenever there is one. */
	if (step < 0) {
		g_autofree char *text = g_strdup_printf("%s made no execution step: it never ran.", what);

		say(self, text);
		return;
	}
	jump_to_step(self, program, run, step);
}

static void show_variable_tiles(GaJumpBar *self)
{
	GaDocument *doc = ga_session_get_document(self->session);
	gint64 v = ga_session_get_variable(self->session);
	g_autoptr(GtkBitset) tiles = ga_jumps_variable_tiles(doc, v);
	ga_jump j = GA_JUMP_INIT;

	if (!tiles) {
		say(self, doc ? tsr_report_error(ga_document_get_report(doc)) : NULL);
		return;
	}
	if (gtk_bitset_is_empty(tiles)) {
		say(self, "The variable has no bytes on any tile.");
		return;
	}
	j.view = "memory";
	j.sets = GA_JUMP_TILES | GA_JUMP_VARIABLE;
	j.tiles = tiles;
	j.variable = v;
	jump(self, &j);
}

static void show_liveness_step(GaJumpBar *self)
{
	GaDocument *doc = ga_session_get_document(self->session);
	const tsr_liveness_step *steps;
	size_t n;
	g_autofree char *what = NULL;

	if (!doc || tsr_report_get_liveness_steps(&steps, &n, ga_document_get_report(doc)) ||
	    self->target < 0 || (size_t)self->target >= n)
		return;
	what = g_strdup_printf("The program of liveness step %" G_GINT64_FORMAT " (program %u)",
	                       self->target, steps[self->target].program);
	show_program_steps(self, steps[self->target].program, what);
}

static void show_operation_programs(GaJumpBar *self)
{
	GaDocument *doc = ga_session_get_document(self->session);
	gint64 program = self->target >= 1 ? operation_program(doc, (guint32)self->target)
	                                    : -1;
	ga_jump j = GA_JUMP_INIT;

	if (program < 0) {
		say(self, "The operation made no programs.");
		return;
	}
	j.view = "programs";
	j.sets = GA_JUMP_PROGRAM;
	j.program = program;
	jump(self, &j);
}

static void show_operation_steps(GaJumpBar *self)
{
	GaDocument *doc = ga_session_get_document(self->session);
	gint64 run = self->run >= 0 ? self->run : run_for_program(doc, self->session, -1);
	gint64 step = -1;
	const tsr_step *steps;
	size_t n;

	if (self->target < 1)
		return;
	if (run < 0) {
		say(self, "The report has no runs, so no execution steps.");
		return;
	}
	step = operation_step(doc, run, (guint32)self->target);
	if (step < 0 || tsr_report_get_steps(&steps, &n, ga_document_get_report(doc), (size_t)run)) {
		g_autofree char *text = g_strdup_printf(
		    "The operation made no steps in run %" G_GINT64_FORMAT ".", run);

		say(self, text);
		return;
	}
	jump_to_step(self, steps[step].program, run, step);
}

static void on_first(GtkButton *button, gpointer data)
{
	GaJumpBar *self = data;

	switch (self->kind) {
	case GA_JUMP_BAR_VARIABLE:
		show_variable_tiles(self);
		break;
	case GA_JUMP_BAR_LIVENESS_STEP:
		show_liveness_step(self);
		break;
	case GA_JUMP_BAR_PROGRAM: {
		g_autofree char *what = g_strdup_printf("Program %" G_GINT64_FORMAT, self->target);

		if (self->target >= 0)
			show_program_steps(self, self->target, what);
		break;
	}
	case GA_JUMP_BAR_OPERATION:
		show_operation_programs(self);
		break;
	}
}

static void on_second(GtkButton *button, gpointer data)
{
	show_operation_steps(GA_JUMP_BAR(data));
}

static void update_sensitive(GaJumpBar *self)
{
	gboolean can = self->kind == GA_JUMP_BAR_VARIABLE
	                   ? ga_session_get_variable(self->session) >= 0
	                   : self->target >= 0;

	gtk_widget_set_sensitive(self->first, can);
	if (self->second)
		gtk_widget_set_sensitive(self->second, can);
}

void ga_jump_bar_set_target(GaJumpBar *self, gint64 target, gint64 run)
{
	g_return_if_fail(GA_IS_JUMP_BAR(self));
	if (self->target != target)
		say(self, NULL);
	self->target = target;
	self->run = run;
	update_sensitive(self);
}

gboolean ga_jump_bar_activate(GaJumpBar *self)
{
	g_return_val_if_fail(GA_IS_JUMP_BAR(self), FALSE);
	if (!gtk_widget_get_sensitive(self->first))
		return FALSE;
	on_first(NULL, self);
	return TRUE;
}

void ga_jump_bar_activate_cb(GtkColumnView *view, guint position, gpointer bar)
{
	ga_jump_bar_activate(GA_JUMP_BAR(bar));
}

static void on_session_variable(GObject *session, GParamSpec *pspec, gpointer data)
{
	say(GA_JUMP_BAR(data), NULL);
	update_sensitive(GA_JUMP_BAR(data));
}

static GtkWidget *button_new(const char *label, const char *tooltip)
{
	GtkWidget *b = gtk_button_new_with_label(label);

	gtk_widget_set_tooltip_text(b, tooltip);
	gtk_widget_set_halign(b, GTK_ALIGN_START);
	gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
	return b;
}

static void ga_jump_bar_dispose(GObject *object)
{
	GaJumpBar *self = GA_JUMP_BAR(object);

	if (self->session)
		g_signal_handlers_disconnect_by_data(self->session, self);
	g_clear_object(&self->session);
	G_OBJECT_CLASS(ga_jump_bar_parent_class)->dispose(object);
}

static void ga_jump_bar_class_init(GaJumpBarClass *klass)
{
	G_OBJECT_CLASS(klass)->dispose = ga_jump_bar_dispose;
}

static void ga_jump_bar_init(GaJumpBar *self)
{
	self->target = -1;
	self->run = -1;
}

GtkWidget *ga_jump_bar_new(GaSession *session, GaJumpBarKind kind)
{
	/* Each kind's buttons: label, tooltip; an operation has two. */
	static const struct {
		const char *label, *tooltip;
	} buttons[][2] = {
	    [GA_JUMP_BAR_VARIABLE] = {{"Show Tiles in Memory",
	                               "Select the tiles the variable lives on and show them in "
	                               "Memory (Enter on its row; Alt+Left comes back)"}},
	    [GA_JUMP_BAR_LIVENESS_STEP] = {{"Show in Execution Trace",
	                                    "The first execution step of this liveness step's "
	                                    "program in the run the Execution Trace shows, or in "
	                                    "the run it ran in (Alt+Left comes back)"}},
	    [GA_JUMP_BAR_PROGRAM] = {{"Show Steps in Execution Trace",
	                              "Select this program's first step in the run the Execution "
	                              "Trace shows, or in the run it ran in (Alt+Left comes back)"}},
	    [GA_JUMP_BAR_OPERATION] = {{"Show Programs",
	                                "Select the operation's first program in the Program Tree "
	                                "(Alt+Left comes back)"},
	                               {"Show Steps",
	                                "Select the operation's first step in the Execution Trace, "
	                                "in the run chosen here (Alt+Left comes back)"}},
	};
	/* The buttons in a row, the message under them: a wrapping label
	 * beside buttons in a row makes GTK 4.8 misreport the height for a
	 * width ("Expect overlapping widgets"). */
	GaJumpBar *self = g_object_new(GA_TYPE_JUMP_BAR, "orientation", GTK_ORIENTATION_VERTICAL,
	                               "spacing", 4, "valign", GTK_ALIGN_CENTER, NULL);
	GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);

	self->session = g_object_ref(session);
	self->kind = kind;
	self->first = button_new(buttons[kind][0].label, buttons[kind][0].tooltip);
	if (buttons[kind][1].label)
		self->second = button_new(buttons[kind][1].label, buttons[kind][1].tooltip);
	if (kind == GA_JUMP_BAR_VARIABLE)
		g_signal_connect(session, "notify::variable", G_CALLBACK(on_session_variable), self);
	g_signal_connect(self->first, "clicked", G_CALLBACK(on_first), self);
	gtk_box_append(GTK_BOX(row), self->first);
	if (self->second) {
		g_signal_connect(self->second, "clicked", G_CALLBACK(on_second), self);
		gtk_box_append(GTK_BOX(row), self->second);
	}
	gtk_box_append(GTK_BOX(self), row);
	self->message = GTK_LABEL(gtk_label_new(NULL));
	gtk_label_set_xalign(self->message, 0);
	gtk_label_set_wrap(self->message, TRUE);
	gtk_label_set_wrap_mode(self->message, PANGO_WRAP_WORD_CHAR);
	/* Narrow panes (the call stack's) wrap it rather than widen. */
	gtk_label_set_max_width_chars(self->message, 40);
	gtk_widget_add_css_class(GTK_WIDGET(self->message), "caption");
	gtk_accessible_update_property(GTK_ACCESSIBLE(self->message), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Jump result", -1);
	gtk_widget_set_visible(GTK_WIDGET(self->message), FALSE);
	gtk_box_append(GTK_BOX(self), GTK_WIDGET(self->message));
	update_sensitive(self);
	return GTK_WIDGET(self);
}
