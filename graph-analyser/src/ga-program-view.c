/*
 * The Program Tree view (ga-program-view.h).
 *
 * The tree is a GtkTreeListModel over a GListStore of GaProgramRow (the
 * control programs, then the functions); a row's children are made when
 * it is first expanded, from the document's program table. Cycles come
 * from the costs the loader added up (ga_document_get_program_costs), so
 * nothing here reads the file beyond reportlib's cheap getters.
 *
 * The search walks the program tree itself, not the list model, so it
 * finds programs below collapsed rows; a match is a path of child
 * positions from a top-level row, which is expanded row by row to show
 * it. The walk follows children only (not a Call into its function's
 * body, which is a top-level row of its own), so a function called from
 * many places is searched once.
 *
 * The selected program is the session's: a row picked here sets it, and
 * a program chosen elsewhere (a jump from Operations, Back, a step in
 * the Execution Trace) is revealed here by the same expanding of rows,
 * along the shortest path from a top-level row found once per document.
 */
#include "ga-program-view.h"

#include "ga-figures.h"
#include "ga-format.h"
#include "ga-jumps.h"
#include "ga-program-kind.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-name.h>
#include <tilescope/tsd-table.h>
#include <tilescope/tsd-widget.h>

/* Programs visited by one search at most (a hostile file's shared
 * subtrees could otherwise make the walk exponential). */
#define SEARCH_VISITS 2000000

/* --- A program's row ------------------------------------------------------------------- */

#define GA_TYPE_PROGRAM_ROW (ga_program_row_get_type())
G_DECLARE_FINAL_TYPE(GaProgramRow, ga_program_row, GA, PROGRAM_ROW, GObject)

struct _GaProgramRow {
	GObject parent_instance;
	guint32 id;     /* program id */
	char *root;     /* a top-level row's label (root_row_new), whole; else NULL */
	gboolean named; /* root is the name the model gave an engine program */
	gint64 engine;  /* the engine program a top-level row is, else -1 */
};

G_DEFINE_FINAL_TYPE(GaProgramRow, ga_program_row, G_TYPE_OBJECT)

static void ga_program_row_finalize(GObject *object)
{
	g_free(GA_PROGRAM_ROW(object)->root);
	G_OBJECT_CLASS(ga_program_row_parent_class)->finalize(object);
}

static void ga_program_row_class_init(GaProgramRowClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = ga_program_row_finalize;
}

static void ga_program_row_init(GaProgramRow *self)
{
}

static GaProgramRow *program_row_new(guint32 id, char *root)
{
	GaProgramRow *row = g_object_new(GA_TYPE_PROGRAM_ROW, NULL);

	row->id = id;
	row->root = root;
	row->engine = -1;
	return row;
}

/*
 * Top-level row `i` of the engine programs (`funcs` FALSE) or the
 * functions, program `id`. Its label: an engine program by the name the
 * model gave it (reportlib's rule, as the summary and the run pickers
 * name it), else "Program i"; a function "Function i"; whole, cut for
 * display by the caller.
 */
static GaProgramRow *root_row_new(tsr_report *r, gboolean funcs, size_t i, guint32 id)
{
	const char *name = funcs ? NULL : tsr_report_lookup_engine_program_name(r, i);
	GaProgramRow *row = program_row_new(id, name ? g_strdup(name)
	                                             : g_strdup_printf(funcs ? "Function %zu"
	                                                                     : "Program %zu", i));

	row->named = name != NULL;
	row->engine = funcs ? -1 : (gint64)i;
	return row;
}

/* --- The view ------------------------------------------------------------------------- */

struct _GaProgramView {
	GaView parent_instance;

	/* From the template (ga-program-view.ui). */
	GtkSearchEntry *search;
	GtkLabel *search_status;
	GtkWidget *prev_button, *next_button;
	GtkWidget *legend;
	TsdTable *table;
	GtkSingleSelection *selection; /* the table's */
	GtkWidget *details_box;
	GtkLabel *heading;
	GtkGrid *details;

	GtkTreeListModel *tree;
	GArray *below_buf;          /* guint32 scratch for ga_document_get_program_below */

	GPtrArray *matches;         /* GArray of guint: child positions from a top-level row */
	guint current;              /* the match shown */
	guint scroll_to;            /* list position to bring into view */
	guint scroll_ticks;         /* frames left to settle the scroll */
	guint scroll_tick_id;

	gboolean syncing;           /* the view setting the session's program */
	GtkWidget *jump_bar;        /* "Show Steps in Execution Trace" */
	gint64 *via;                /* per program: the program above it on its path, -1 at the top */
	guint *via_pos;             /* per program: its position below `via` (top: the row's) */
	size_t n_via;
};

G_DEFINE_FINAL_TYPE(GaProgramView, ga_program_view, GA_TYPE_VIEW)

/* The document shown (borrowed), or NULL. */
static GaDocument *document(GaProgramView *self)
{
	return ga_view_get_document(GA_VIEW(self));
}

/* The program table, or NULL with *n 0. */
static const tsr_program *programs(GaProgramView *self, size_t *n)
{
	const tsr_program *p;

	*n = 0;
	if (!document(self) || tsr_report_get_programs(&p, n, ga_document_get_report(document(self))))
		return NULL;
	return p;
}

/* The compute set or exchange a program names, or NULL. */
static const char *target_name(GaProgramView *self, const tsr_program *p)
{
	tsr_report *r = ga_document_get_report(document(self));

	if (p->compute_set >= 0) {
		const tsr_compute_set *cs;
		size_t n;

		if (!tsr_report_get_compute_sets(&cs, &n, r) && (size_t)p->compute_set < n)
			return cs[p->compute_set].name;
	}
	if (p->exchange >= 0) {
		const tsr_exchange *ex;
		size_t n;

		if (!tsr_report_get_exchanges(&ex, &n, r, p->exchange_kind) && (size_t)p->exchange < n)
			return ex[p->exchange].name;
	}
	return NULL;
}

/* The type with what qualifies it: "Sync (Internal)", "Repeat ×10",
 * "Call function 2". */
static char *type_text(const tsr_program *p)
{
	g_autofree char *type = ga_format_name(ga_program_type_tag(p->program_type));

	if (tsr_sync_type_name(p->sync)) {
		g_autofree char *sync = ga_format_name(tsr_sync_type_name(p->sync));

		return g_strdup_printf("%s (%s)", type, sync);
	}
	if (p->function >= 0)
		return g_strdup_printf("%s function %" G_GINT64_FORMAT, type, p->function);
	if (p->program_type == TSR_PROGRAM_REPEAT) {
		g_autofree char *count = ga_format_u64(p->repeat_count);

		return g_strdup_printf("%s ×%s", type, count);
	}
	return g_steal_pointer(&type);
}

/* The latest run in which program `id` ran: its index, or -1. */
static gint64 latest_run(GaProgramView *self, guint32 id)
{
	for (size_t i = ga_document_get_n_runs(document(self)); i-- > 0;) {
		const ga_program_cost *c = ga_document_get_program_costs(document(self), i);

		if (c && c[id].steps)
			return (gint64)i;
	}
	return -1;
}

/* A row's label, as the tree and the details' heading show it: a
 * top-level row's label, followed by the program's name (`unnamed` when
 * it has none) unless it is a named engine program, whose row is its
 * name alone; another row's name. */
static char *row_label(const GaProgramRow *row, const tsr_program *p, const char *unnamed)
{
	g_autofree char *name = ga_format_name(p->name ? p->name : unnamed);
	g_autofree char *root = row->root ? ga_format_name(row->root) : NULL;

	if (root && p->name && *name && !row->named)
		return g_strdup_printf("%s: %s", root, name);
	return root ? g_steal_pointer(&root) : g_steal_pointer(&name);
}

/* --- The tree -------------------------------------------------------------------------- */

/* GtkTreeListModel's create function: the rows below a row, or NULL for
 * a leaf (which then shows no expander). */
static GListModel *create_children(gpointer item, gpointer data)
{
	GaProgramView *self = data;
	GaProgramRow *row = item;
	const uint32_t *kids;
	size_t n;
	GListStore *store;

	if (!document(self))
		return NULL;
	kids = ga_document_get_program_below(document(self), row->id, self->below_buf, &n);
	if (!n)
		return NULL;
	store = g_list_store_new(GA_TYPE_PROGRAM_ROW);
	for (size_t i = 0; i < n; i++) {
		GaProgramRow *child = program_row_new(kids[i], NULL);

		g_list_store_append(store, child);
		g_object_unref(child);
	}
	return G_LIST_MODEL(store);
}

enum { COL_PROGRAM, COL_TYPE, COL_TARGET, COL_CYCLES };

/* The Program cell: the kind's mark, the type's tag and the name. */
static GtkWidget *make_cell(guint column, gpointer data)
{
	GtkWidget *box, *tag, *name;

	if (column != COL_PROGRAM)
		return NULL;
	box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
	tag = gtk_label_new(NULL);
	name = gtk_label_new(NULL);
	gtk_box_append(GTK_BOX(box), ga_program_mark_new());
	gtk_widget_add_css_class(tag, "dim-label");
	gtk_box_append(GTK_BOX(box), tag);
	gtk_label_set_xalign(GTK_LABEL(name), 0);
	gtk_label_set_ellipsize(GTK_LABEL(name), PANGO_ELLIPSIZE_END);
	gtk_widget_set_hexpand(name, TRUE);
	gtk_box_append(GTK_BOX(box), name);
	return box;
}

/* Cell `column` of `item`'s program. */
static char *cell_text(gpointer item, guint column, gpointer data)
{
	GaProgramView *self = data;
	GaProgramRow *row = item;
	const tsr_program *progs;
	size_t n;
	const char *t;
	gint64 run;

	progs = programs(self, &n);
	if (!progs || row->id >= n)
		return g_strdup("");
	switch (column) {
	case COL_PROGRAM: return row_label(row, &progs[row->id], "");
	case COL_TYPE: return type_text(&progs[row->id]);
	case COL_TARGET:
		t = target_name(self, &progs[row->id]);
		return t ? ga_format_name(t) : g_strdup("");
	case COL_CYCLES:
		run = latest_run(self, row->id);
		return run >= 0 ? ga_format_u64(
		                      ga_document_get_program_costs(document(self), (size_t)run)[row->id].cycles)
		                : g_strdup(ga_document_get_n_runs(document(self)) ? "—" : "");
	default: return g_strdup("");
	}
}

/* The Program cell's parts, and whole names in tooltips (the cells cut
 * them: ga_format_name). */
static void bind_cell(GtkWidget *cell, gpointer item, guint column, gpointer data)
{
	GaProgramView *self = data;
	GaProgramRow *row = item;
	const tsr_program *progs;
	size_t n;
	GtkWidget *mark, *tag, *name;
	g_autofree char *type = NULL, *label = NULL;

	progs = programs(self, &n);
	if (!progs || row->id >= n)
		return;
	if (column == COL_TARGET)
		tsd_widget_set_name_tooltip(cell, target_name(self, &progs[row->id]));
	if (column != COL_PROGRAM)
		return;
	mark = gtk_widget_get_first_child(cell);
	tag = gtk_widget_get_next_sibling(mark);
	name = gtk_widget_get_next_sibling(tag);
	type = ga_format_name(ga_program_type_tag(progs[row->id].program_type));
	ga_program_mark_set_kind(mark, ga_program_kind_of_type(progs[row->id].program_type));
	gtk_label_set_text(GTK_LABEL(tag), type);
	label = cell_text(item, COL_PROGRAM, data);
	gtk_label_set_text(GTK_LABEL(name), label);
	if (row->root)
		gtk_widget_add_css_class(name, "heading");
	else
		gtk_widget_remove_css_class(name, "heading");
	tsd_widget_set_name_tooltip(name, row->named ? row->root : progs[row->id].name);
}

/* --- Details ---------------------------------------------------------------------------- */

/* The compute set's figures and its vertices by type. */
static void put_compute_set(GaProgramView *self, int *row, size_t cs_id)
{
	tsr_report *r = ga_document_get_report(document(self));
	const tsr_compute_set *cs;
	const tsr_vertex_type *vt;
	const tsr_vertex_type_cycles *by;
	size_t n_cs, n_vt, n_by;
	g_autofree char *name = NULL;

	if (tsr_report_get_compute_sets(&cs, &n_cs, r) || cs_id >= n_cs)
		return;
	/* Whole in the details (to read and copy); cut where many are listed. */
	name = tsd_name_clean(cs[cs_id].name);
	ga_details_add(self->details, row, "Compute set", name, FALSE);
	ga_details_add_u64(self->details, row, "Tiles", cs[cs_id].tiles);
	ga_details_add_u64(self->details, row, "Vertices", cs[cs_id].vertices);
	ga_details_add_u64(self->details, row, "Cycles (slowest tile)", cs[cs_id].cycles);
	if (tsr_report_get_vertex_types(&vt, &n_vt, r) ||
	    tsr_report_get_compute_set_vertex_types(&by, &n_by, r, cs_id) || !n_by)
		return;
	ga_details_add_heading(self->details, row, "Vertices by type");
	for (size_t i = 0; i < n_by; i++) {
		g_autofree char *type = by[i].vertex_type < n_vt ? ga_format_name(vt[by[i].vertex_type].name)
		                                                  : g_strdup("?");
		g_autofree char *inst = ga_format_u64(by[i].instances);
		g_autofree char *cyc = ga_format_u64(by[i].cycles);
		g_autofree char *text = g_strdup_printf("%s %s, %s cycles over tiles", inst,
		                                        by[i].instances == 1 ? "vertex" : "vertices", cyc);

		/* Vertex type names are long: each on a line of its own, above
		 * its figures, rather than a key squeezing them into a sliver. */
		GtkWidget *l = gtk_label_new(type);

		gtk_label_set_xalign(GTK_LABEL(l), 0);
		gtk_label_set_wrap(GTK_LABEL(l), TRUE);
		gtk_label_set_wrap_mode(GTK_LABEL(l), PANGO_WRAP_WORD_CHAR);
		gtk_label_set_selectable(GTK_LABEL(l), TRUE);
		gtk_widget_set_margin_top(l, 4);
		if (by[i].vertex_type < n_vt)
			tsd_widget_set_name_tooltip(l, vt[by[i].vertex_type].name);
		gtk_grid_attach(self->details, l, 0, (*row)++, 2, 1);
		ga_details_add(self->details, row, "", text, TRUE);
		/* Its caption is the type's line above it. */
		tsd_a11y_name_value(gtk_grid_get_child_at(self->details, 1, *row - 1), type);
	}
}

static void put_exchange(GaProgramView *self, int *row, const tsr_program *p)
{
	static const char *const kinds[] = {"internal", "external", "host"};
	const tsr_exchange *ex;
	size_t n;
	g_autofree char *name = NULL;
	g_autofree char *with_kind = NULL;

	if (tsr_report_get_exchanges(&ex, &n, ga_document_get_report(document(self)), p->exchange_kind) ||
	    (size_t)p->exchange >= n)
		return;
	name = tsd_name_clean(ex[p->exchange].name);
	with_kind = g_strdup_printf("%s (%s)", name,
	                            p->exchange_kind < TSR_EXCHANGE_KIND_COUNT
	                                ? kinds[p->exchange_kind]
	                                : "?");
	ga_details_add(self->details, row, "Exchange", with_kind, FALSE);
	ga_details_add_u64(self->details, row, "Bytes received", ex[p->exchange].bytes_received);
	ga_details_add_u64(self->details, row, "Bytes sent", ex[p->exchange].bytes_sent);
	ga_details_add_u64(self->details, row, "Exchange cycles", ex[p->exchange].cycles);
}

/* Shows the selected program's details. */
static void update_details(GaProgramView *self)
{
	GtkTreeListRow *list_row = gtk_single_selection_get_selected_item(self->selection);
	g_autoptr(GaProgramRow) row = NULL;
	const tsr_program *progs, *p;
	size_t n, n_runs;
	int r = 0;
	g_autofree char *heading = NULL;
	g_autofree char *type = NULL;

	tsd_widget_remove_children(GTK_WIDGET(self->details));
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->heading), NULL);
	progs = programs(self, &n);
	if (!progs) {
		/* Without a document the base shows its empty page instead. */
		gtk_label_set_text(self->heading, "The report has no programs.");
		return;
	}
	if (!list_row) {
		gtk_label_set_text(self->heading,
		                   "Select a program to see its details, or search for one.");
		return;
	}
	row = gtk_tree_list_row_get_item(list_row);
	if (row->id >= n)
		return;
	p = &progs[row->id];
	/* As the tree shows it, an unnamed program by its type. */
	heading = row_label(row, p, ga_program_type_tag(p->program_type));
	gtk_label_set_text(self->heading, heading);
	tsd_widget_set_name_tooltip(GTK_WIDGET(self->heading), row->named ? row->root : p->name);

	type = type_text(p);
	ga_details_add(self->details, &r, "Type", type, FALSE);
	/* A named engine program's row by the name it is shown by. */
	if (p->name || row->named) {
		g_autofree char *name = tsd_name_clean(p->name ? p->name : row->root);

		ga_details_add(self->details, &r, "Name", name, FALSE);
	}
	ga_details_add_u64(self->details, &r, "Program id", row->id);
	/* Its index, which a named engine program's label no longer says. */
	if (row->engine >= 0)
		ga_details_add_u64(self->details, &r, "Engine program", (uint64_t)row->engine);
	if (p->compute_set >= 0)
		put_compute_set(self, &r, (size_t)p->compute_set);
	if (p->exchange >= 0)
		put_exchange(self, &r, p);
	if (p->exchange >= 0 || p->code_bytes)
		ga_details_add_u64(self->details, &r, "Code bytes", p->code_bytes);
	if (p->program_type == TSR_PROGRAM_REPEAT)
		ga_details_add_u64(self->details, &r, "Repeat count", p->repeat_count);
	if (p->function >= 0) {
		g_autofree char *f = g_strdup_printf("Function %" G_GINT64_FORMAT, p->function);

		ga_details_add(self->details, &r, "Calls", f, FALSE);
	}
	ga_details_add_u64(self->details, &r, "Children", p->n_children);

	n_runs = ga_document_get_n_runs(document(self));
	ga_details_add_heading(self->details, &r, n_runs ? "Cycles in each run" : "No runs in this report");
	for (size_t i = 0; i < n_runs; i++) {
		const ga_program_cost *c = ga_document_get_program_costs(document(self), i);
		/* "Run 1: epoch", as the run pickers name it. */
		g_autofree char *key = ga_format_run_label(ga_document_get_report(document(self)), i);
		g_autofree char *text = NULL;

		if (c && c[row->id].steps) {
			g_autofree char *cyc = ga_format_u64(c[row->id].cycles);
			g_autofree char *steps = ga_format_u64(c[row->id].steps);

			text = g_strdup_printf("%s cycles in %s step%s", cyc, steps,
			                       c[row->id].steps == 1 ? "" : "s");
		} else {
			text = g_strdup("did not run");
		}
		ga_details_add(self->details, &r, key, text, TRUE);
	}
}

static void on_selected(GObject *selection, GParamSpec *pspec, gpointer data)
{
	GaProgramView *self = GA_PROGRAM_VIEW(data);
	GtkTreeListRow *list_row = gtk_single_selection_get_selected_item(self->selection);
	gint64 id = -1;

	update_details(self);
	if (list_row) {
		g_autoptr(GaProgramRow) row = gtk_tree_list_row_get_item(list_row);

		id = row->id;
	}
	ga_jump_bar_set_target(GA_JUMP_BAR(self->jump_bar), id, -1);
	gtk_widget_set_visible(self->jump_bar, id >= 0);
	if (!self->syncing) {
		self->syncing = TRUE;
		ga_session_set_program(ga_view_get_session(GA_VIEW(self)), id);
		self->syncing = FALSE;
	}
}

/* --- Scrolling to a row ------------------------------------------------------------------ */

/* Brings self->scroll_to into view: GTK 4.8 has no scroll_to, and the
 * rows have one height, so the row's offset is its share of the list's
 * height. Run on a few frames, as expanding rows changes that height
 * only once the list is laid out again. */
static gboolean scroll_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
	GaProgramView *self = data;
	GtkAdjustment *adj =
	    gtk_scrollable_get_vadjustment(GTK_SCROLLABLE(tsd_table_get_view(self->table)));
	guint n = g_list_model_get_n_items(G_LIST_MODEL(self->selection));
	double upper = gtk_adjustment_get_upper(adj), page = gtk_adjustment_get_page_size(adj);
	double value = gtk_adjustment_get_value(adj), h, y, header = 0;
	GtkWidget *first;

	/* The column view's header row scrolls with the list. */
	first = gtk_widget_get_first_child(GTK_WIDGET(tsd_table_get_view(self->table)));
	if (first && !GTK_IS_LIST_VIEW(first))
		header = gtk_widget_get_height(first);
	if (n && upper > header) {
		h = (upper - header) / n;
		y = header + h * self->scroll_to;
		if (y - header < value || y + h > value + page)
			gtk_adjustment_set_value(adj, CLAMP(y - (page - h) / 2, 0, upper - page));
	}
	if (self->scroll_ticks && --self->scroll_ticks)
		return G_SOURCE_CONTINUE;
	self->scroll_tick_id = 0;
	return G_SOURCE_REMOVE;
}

static void scroll_to(GaProgramView *self, guint position)
{
	self->scroll_to = position;
	self->scroll_ticks = 3;
	if (!self->scroll_tick_id)
		self->scroll_tick_id =
		    gtk_widget_add_tick_callback(GTK_WIDGET(self->table), scroll_tick, self, NULL);
}

/* --- Search ----------------------------------------------------------------------------- */

/* Whether program `p` (a top-level row labelled `root`, or NULL)
 * matches: its name, its type, the compute set or exchange it runs (as
 * the tree shows them), or its top-level label. */
static gboolean matches(GaProgramView *self, GRegex *re, const tsr_program *p, const char *root)
{
	const char *target;

	if ((p->name && g_regex_match(re, p->name, 0, NULL)) ||
	    g_regex_match(re, ga_program_type_tag(p->program_type), 0, NULL) ||
	    (root && g_regex_match(re, root, 0, NULL)))
		return TRUE;
	target = target_name(self, p);
	return target && g_regex_match(re, target, 0, NULL);
}

typedef struct frame {
	guint32 id;
	guint32 next;   /* next child to visit */
} frame;

/* Every match of `re` below top-level row `top` (program `id`), in the
 * tree's order, appended to self->matches; *visits counts programs. */
static void search_from(GaProgramView *self, GRegex *re, guint top, guint32 id, const char *root,
                        const tsr_program *progs, size_t n_progs, guint *visits)
{
	g_autoptr(GArray) stack = g_array_new(FALSE, FALSE, sizeof(frame));
	g_autoptr(GArray) path = g_array_new(FALSE, FALSE, sizeof(guint));
	frame f0 = {id, 0};

	g_array_append_val(stack, f0);
	g_array_append_val(path, top);
	if (matches(self, re, &progs[id], root))
		g_ptr_array_add(self->matches, g_array_copy(path));
	while (stack->len && *visits < SEARCH_VISITS) {
		frame *f = &g_array_index(stack, frame, stack->len - 1);
		const tsr_program *p = &progs[f->id];
		guint32 child;
		guint pos;
		gboolean cycle = FALSE;

		if (f->next >= p->n_children) {
			g_array_set_size(stack, stack->len - 1);
			g_array_set_size(path, path->len - 1);
			continue;
		}
		pos = f->next++;
		child = p->children[pos];
		if (child >= n_progs)
			continue;
		/* A hostile file's cycle: a program on its own path. */
		for (guint i = 0; i < stack->len && !cycle; i++)
			cycle = g_array_index(stack, frame, i).id == child;
		if (cycle)
			continue;
		(*visits)++;
		{
			frame fc = {child, 0};

			g_array_append_val(stack, fc);
			g_array_append_val(path, pos);
		}
		if (matches(self, re, &progs[child], NULL))
			g_ptr_array_add(self->matches, g_array_copy(path));
	}
}

/* Expands the rows down `path` (child positions from a top-level row),
 * selects the row it ends on and scrolls to it. */
static void reveal_path(GaProgramView *self, GArray *path)
{
	GtkTreeListRow *row = gtk_tree_list_model_get_child_row(self->tree, g_array_index(path, guint, 0));

	for (guint k = 1; row && k < path->len; k++) {
		GtkTreeListRow *child;

		gtk_tree_list_row_set_expanded(row, TRUE);
		child = gtk_tree_list_row_get_child_row(row, g_array_index(path, guint, k));
		g_object_unref(row);
		row = child;
	}
	if (!row)
		return;
	gtk_single_selection_set_selected(self->selection, gtk_tree_list_row_get_position(row));
	scroll_to(self, gtk_tree_list_row_get_position(row));
	g_object_unref(row);
}

/* Expands the rows down to match `i`, selects it and scrolls to it. */
static void show_match(GaProgramView *self, guint i)
{
	g_autofree char *status = NULL;

	self->current = i;
	status = g_strdup_printf("%u of %u", i + 1, self->matches->len);
	gtk_label_set_text(self->search_status, status);
	reveal_path(self, g_ptr_array_index(self->matches, i));
}

/* --- Following the session's program ------------------------------------------------------ */

/* Finds, once per document, a shortest path from a top-level row to
 * every program: a breadth-first walk from all the top-level rows at
 * once, along the rows' children (ga_document_get_program_below, the
 * order create_children shows them in), each program visited once. */
static void find_paths(GaProgramView *self)
{
	size_t n;
	guint top = 0;
	g_autoptr(GArray) queue = g_array_new(FALSE, FALSE, sizeof(guint32));
	GListModel *roots;

	if (self->via || !programs(self, &n) || !self->tree)
		return;
	self->n_via = n;
	self->via = g_new(gint64, n);
	self->via_pos = g_new0(guint, n);
	for (size_t i = 0; i < n; i++)
		self->via[i] = -2; /* not reached */
	roots = gtk_tree_list_model_get_model(self->tree);
	for (guint i = 0; i < g_list_model_get_n_items(roots); i++, top++) {
		g_autoptr(GaProgramRow) row = g_list_model_get_item(roots, i);

		if (row->id < n && self->via[row->id] == -2) {
			self->via[row->id] = -1;
			self->via_pos[row->id] = top;
			g_array_append_val(queue, row->id);
		}
	}
	for (guint q = 0; q < queue->len; q++) {
		guint32 id = g_array_index(queue, guint32, q);
		size_t nk;
		const uint32_t *kids = ga_document_get_program_below(document(self), id, self->below_buf, &nk);

		for (size_t k = 0; k < nk; k++) {
			guint32 kid = kids[k];

			if (kid < n && self->via[kid] == -2) {
				self->via[kid] = id;
				self->via_pos[kid] = (guint)k;
				g_array_append_val(queue, kid);
			}
		}
	}
}

/* Selects program `id` in the tree, expanding the rows above it. */
static void reveal_program(GaProgramView *self, gint64 id)
{
	g_autoptr(GArray) path = g_array_new(FALSE, FALSE, sizeof(guint));
	GtkTreeListRow *selected = gtk_single_selection_get_selected_item(self->selection);

	if (selected) {
		g_autoptr(GaProgramRow) row = gtk_tree_list_row_get_item(selected);

		if ((gint64)row->id == id)
			return;
	}
	if (id < 0) {
		gtk_single_selection_set_selected(self->selection, GTK_INVALID_LIST_POSITION);
		return;
	}
	find_paths(self);
	if (!self->via || (size_t)id >= self->n_via || self->via[id] == -2)
		return;
	/* Up to the top, bounded by the program count (each step goes up). */
	for (gint64 p = id; p >= 0 && path->len <= self->n_via; p = self->via[p])
		g_array_prepend_val(path, self->via_pos[p]);
	reveal_path(self, path);
}

static void on_session_program(GObject *session, GParamSpec *pspec, gpointer data)
{
	GaProgramView *self = data;

	if (self->syncing)
		return;
	self->syncing = TRUE;
	reveal_program(self, ga_session_get_program(ga_view_get_session(GA_VIEW(self))));
	self->syncing = FALSE;
}

/* Runs the search in the entry and shows its first match. */
static void run_search(GaProgramView *self)
{
	const char *text = gtk_editable_get_text(GTK_EDITABLE(self->search));
	g_autoptr(GRegex) re = NULL;
	g_autoptr(GError) error = NULL;
	const tsr_program *progs;
	size_t n_progs;
	guint visits = 0;
	GListModel *roots;

	g_ptr_array_set_size(self->matches, 0);
	gtk_widget_remove_css_class(GTK_WIDGET(self->search_status), "error");
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->search_status), NULL);
	gtk_widget_set_sensitive(self->prev_button, FALSE);
	gtk_widget_set_sensitive(self->next_button, FALSE);
	if (!*text || !(progs = programs(self, &n_progs))) {
		gtk_label_set_text(self->search_status, "");
		return;
	}
	re = g_regex_new(text, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, &error);
	if (!re) {
		/* GLib's message repeats the pattern before saying what is wrong
		 * ("Error while compiling regular expression ‘a(’ at char 2:
		 * missing terminating ) ..."): the label keeps what is wrong, the
		 * tooltip all of it. */
		const char *what = g_strrstr(error->message, ": ");
		g_autofree char *msg =
		    g_strdup_printf("Invalid pattern: %s", what ? what + 2 : error->message);

		gtk_label_set_text(self->search_status, msg);
		gtk_widget_set_tooltip_text(GTK_WIDGET(self->search_status), error->message);
		gtk_widget_add_css_class(GTK_WIDGET(self->search_status), "error");
		return;
	}
	/* The tree's top-level rows (rebuild made them before searching). */
	roots = gtk_tree_list_model_get_model(self->tree);
	for (guint top = 0; top < g_list_model_get_n_items(roots); top++) {
		g_autoptr(GaProgramRow) row = g_list_model_get_item(roots, top);

		if (row->id < n_progs)
			search_from(self, re, top, row->id, row->root, progs, n_progs, &visits);
	}
	if (!self->matches->len) {
		gtk_label_set_text(self->search_status, "No match");
		gtk_widget_add_css_class(GTK_WIDGET(self->search_status), "error");
		return;
	}
	gtk_widget_set_sensitive(self->prev_button, self->matches->len > 1);
	gtk_widget_set_sensitive(self->next_button, self->matches->len > 1);
	show_match(self, 0);
}

static void step_match(GaProgramView *self, int delta)
{
	guint n = self->matches->len;

	if (!n)
		return;
	show_match(self, delta > 0 ? (self->current + 1) % n : (self->current + n - 1) % n);
}

/* The template connects these and run_search swapped: the view first,
 * the emitter's arguments after it unread. */
static void step_next(GaProgramView *self)
{
	step_match(self, 1);
}

static void step_previous(GaProgramView *self)
{
	step_match(self, -1);
}

/* Enter: the next match; Shift+Enter: the previous one. */
static gboolean on_entry_key(GtkEventControllerKey *ctl, guint keyval, guint keycode,
                             GdkModifierType state, gpointer data)
{
	if (keyval != GDK_KEY_Return && keyval != GDK_KEY_KP_Enter && keyval != GDK_KEY_ISO_Enter)
		return FALSE;
	step_match(GA_PROGRAM_VIEW(data), (state & GDK_SHIFT_MASK) ? -1 : 1);
	return TRUE;
}

/* Ctrl+F, while the view is shown (wherever the focus is, the sidebar
 * included): to the search entry. */
static gboolean on_find(GtkWidget *widget, GVariant *args, gpointer data)
{
	GaProgramView *self = GA_PROGRAM_VIEW(widget);

	if (!gtk_widget_get_mapped(widget))
		return FALSE;
	gtk_widget_grab_focus(GTK_WIDGET(self->search));
	return TRUE;
}

/* --- The document ------------------------------------------------------------------------- */

/* Rebuilds the tree for the view's document (GaView::document_changed). */
static void rebuild(GaView *view)
{
	GaProgramView *self = GA_PROGRAM_VIEW(view);
	GListStore *roots = g_list_store_new(GA_TYPE_PROGRAM_ROW);
	const uint32_t *ids;
	size_t n;

	g_ptr_array_set_size(self->matches, 0);
	g_clear_pointer(&self->via, g_free);
	g_clear_pointer(&self->via_pos, g_free);
	if (document(self)) {
		tsr_report *r = ga_document_get_report(document(self));

		for (int funcs = 0; funcs < 2; funcs++) {
			if ((funcs ? tsr_report_get_function_programs(&ids, &n, r)
			           : tsr_report_get_control_programs(&ids, &n, r)))
				continue;
			for (size_t i = 0; i < n; i++) {
				g_autoptr(GaProgramRow) row = root_row_new(r, funcs, i, ids[i]);

				g_list_store_append(roots, row);
			}
		}
	}
	self->tree = gtk_tree_list_model_new(G_LIST_MODEL(roots), FALSE, FALSE, create_children,
	                                     self, NULL);
	tsd_table_set_model(self->table, G_LIST_MODEL(self->tree));
	g_object_unref(self->tree); /* the selection holds it */
	run_search(self);
	update_details(self);
	on_session_program(G_OBJECT(ga_view_get_session(view)), NULL, self);
}

/* --- Building ------------------------------------------------------------------------------ */

/* The legend of the kinds' colours, in the bar. */
static void fill_legend(GtkWidget *box)
{
	for (int k = 0; k < GA_PROGRAM_KIND_COUNT; k++) {
		GtkWidget *mark = ga_program_mark_new();
		GtkWidget *l = gtk_label_new(ga_program_kind_name((ga_program_kind)k));

		ga_program_mark_set_kind(mark, (ga_program_kind)k);
		gtk_widget_add_css_class(l, "caption");
		gtk_widget_set_margin_end(l, 8);
		gtk_box_append(GTK_BOX(box), mark);
		gtk_box_append(GTK_BOX(box), l);
	}
}

/* The jump bar under the details' heading: made here, before the base
 * hands over the first document, as it needs the session. */
static void ga_program_view_constructed(GObject *object)
{
	GaProgramView *self = GA_PROGRAM_VIEW(object);
	GaSession *session = ga_view_get_session(GA_VIEW(self));

	self->jump_bar = ga_jump_bar_new(session, GA_JUMP_BAR_PROGRAM);
	gtk_widget_set_visible(self->jump_bar, FALSE);
	gtk_box_insert_child_after(GTK_BOX(self->details_box), self->jump_bar,
	                           GTK_WIDGET(self->heading));
	/* Enter (or a double click) on a row: its steps in the Execution Trace. */
	g_signal_connect(tsd_table_get_view(self->table), "activate",
	                 G_CALLBACK(ga_jump_bar_activate_cb), self->jump_bar);
	G_OBJECT_CLASS(ga_program_view_parent_class)->constructed(object);
	/* The base lets go of the session's signals to the view. */
	g_signal_connect(session, "notify::program", G_CALLBACK(on_session_program), self);
}

static void ga_program_view_dispose(GObject *object)
{
	GaProgramView *self = GA_PROGRAM_VIEW(object);

	if (self->scroll_tick_id && self->table)
		gtk_widget_remove_tick_callback(GTK_WIDGET(self->table), self->scroll_tick_id);
	self->scroll_tick_id = 0;
	gtk_widget_dispose_template(GTK_WIDGET(self), GA_TYPE_PROGRAM_VIEW);
	G_OBJECT_CLASS(ga_program_view_parent_class)->dispose(object);
}

static void ga_program_view_finalize(GObject *object)
{
	GaProgramView *self = GA_PROGRAM_VIEW(object);

	g_clear_pointer(&self->matches, g_ptr_array_unref);
	g_clear_pointer(&self->below_buf, g_array_unref);
	g_clear_pointer(&self->via, g_free);
	g_clear_pointer(&self->via_pos, g_free);
	G_OBJECT_CLASS(ga_program_view_parent_class)->finalize(object);
}

static void ga_program_view_class_init(GaProgramViewClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->constructed = ga_program_view_constructed;
	object_class->dispose = ga_program_view_dispose;
	object_class->finalize = ga_program_view_finalize;
	GA_VIEW_CLASS(klass)->document_changed = rebuild;
	gtk_widget_class_set_css_name(widget_class, "programview");
	g_type_ensure(TSD_TYPE_TABLE);
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/GraphAnalyser/ga-program-view.ui");
	gtk_widget_class_bind_template_child(widget_class, GaProgramView, search);
	gtk_widget_class_bind_template_child(widget_class, GaProgramView, search_status);
	gtk_widget_class_bind_template_child(widget_class, GaProgramView, prev_button);
	gtk_widget_class_bind_template_child(widget_class, GaProgramView, next_button);
	gtk_widget_class_bind_template_child(widget_class, GaProgramView, legend);
	gtk_widget_class_bind_template_child(widget_class, GaProgramView, table);
	gtk_widget_class_bind_template_child(widget_class, GaProgramView, details_box);
	gtk_widget_class_bind_template_child(widget_class, GaProgramView, heading);
	gtk_widget_class_bind_template_child(widget_class, GaProgramView, details);
	gtk_widget_class_bind_template_callback(widget_class, run_search);
	gtk_widget_class_bind_template_callback(widget_class, step_next);
	gtk_widget_class_bind_template_callback(widget_class, step_previous);
	gtk_widget_class_bind_template_callback(widget_class, on_entry_key);
}

static void ga_program_view_init(GaProgramView *self)
{
	static const TsdTableCells cells = {.text = cell_text, .bind = bind_cell, .make = make_cell};
	GtkEventController *find = gtk_shortcut_controller_new();

	gtk_widget_init_template(GTK_WIDGET(self));
	tsd_table_set_cells(self->table, &cells, self);
	self->selection = tsd_table_get_selection(self->table);
	g_signal_connect(self->selection, "notify::selected", G_CALLBACK(on_selected), self);
	self->matches = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
	self->below_buf = g_array_new(FALSE, FALSE, sizeof(guint32));
	fill_legend(self->legend);
	gtk_shortcut_controller_set_scope(GTK_SHORTCUT_CONTROLLER(find), GTK_SHORTCUT_SCOPE_GLOBAL);
	gtk_shortcut_controller_add_shortcut(
	    GTK_SHORTCUT_CONTROLLER(find),
	    gtk_shortcut_new(gtk_keyval_trigger_new(GDK_KEY_f, GDK_CONTROL_MASK),
	                     gtk_callback_action_new(on_find, NULL, NULL)));
	gtk_widget_add_controller(GTK_WIDGET(self), find);
}

GtkWidget *ga_program_view_new(GaSession *session)
{
	return g_object_new(GA_TYPE_PROGRAM_VIEW, "session", session, NULL);
}
