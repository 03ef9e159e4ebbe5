/*
 * The Operations view (ga-operations-view.h).
 *
 * The rows are made once per document, one GaOpRow per debug context
 * holding only its index and its cleaned-up strings; every figure is read
 * at bind time from the document's operation list of the chosen run
 * (ga_document_get_operations, gathered by the loader), so switching run
 * rebinds the rows instead of rebuilding them, and choosing a layer or
 * typing in the filter only re-runs a GtkCustomFilter over them.
 *
 * The model chain: GListStore → GtkSortListModel (the column view's
 * sorter; each column has a GtkCustomSorter) → GtkFilterListModel (layer
 * and name) → GtkSingleSelection.
 *
 * The widgets are declared in ga-operations-view.ui; comparing, its
 * compare page (ga-operations-compare.h) stands in for the bar, table
 * and details (GaView does the switching).
 */
#include "ga-operations-view.h"

#include "ga-application.h"
#include "ga-figures.h"
#include "ga-format.h"
#include "ga-jumps.h"
#include "ga-operations-compare.h"
#include "ga-program-kind.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-name.h>
#include <tilescope/tsd-settings.h>
#include <tilescope/tsd-widget.h>

#include <string.h>

/* Compute sets or programs listed in the details at most; the rest are
 * counted ("… and 1,204 more"). */
#define DETAILS_LIST_MAX 40

/* --- Columns ------------------------------------------------------------------------ */

enum {
	COL_NAME,
	COL_PARENT,
	COL_LAYER,
	COL_API,
	COL_VARIABLE_BYTES,
	COL_VERTEX_BYTES,
	COL_CYCLES,
	COL_SELF_CYCLES,
	COL_FLOPS,
	COL_VERTICES,
	COL_COMPUTE_SETS,
	COL_PROGRAMS,
	COL_VARIABLES,
	COL_EXCHANGE_BYTES,
	COL_COUNT
};
/* The columns as ga-operations-view.ui declares them, the text columns
 * first (GaOpRow's arrays are indexed by them). */
G_STATIC_ASSERT(COL_NAME == 0 && COL_PARENT == 1 && COL_LAYER == 2 && COL_API == 3);
#define N_TEXT_COLUMNS (COL_API + 1)

/* --- An operation's row ------------------------------------------------------------- */

#define GA_TYPE_OP_ROW (ga_op_row_get_type())
G_DECLARE_FINAL_TYPE(GaOpRow, ga_op_row, GA, OP_ROW, GObject)

struct _GaOpRow {
	GObject parent_instance;
	guint index;    /* into the document's operation lists */
	char *folded;   /* the path ("train/fc/logits") casefolded, for the filter */
	/* Each text column's cell, fit for a label: the name, the enclosing
	 * context's name ("" at top level), the software layer and the API
	 * ("" when none); and their collation keys, for the sorters. */
	char *text[N_TEXT_COLUMNS];
	char *keys[N_TEXT_COLUMNS];
};

G_DEFINE_FINAL_TYPE(GaOpRow, ga_op_row, G_TYPE_OBJECT)

static void ga_op_row_finalize(GObject *object)
{
	GaOpRow *row = GA_OP_ROW(object);

	g_free(row->folded);
	for (int c = 0; c < N_TEXT_COLUMNS; c++) {
		g_free(row->text[c]);
		g_free(row->keys[c]);
	}
	G_OBJECT_CLASS(ga_op_row_parent_class)->finalize(object);
}

static void ga_op_row_class_init(GaOpRowClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = ga_op_row_finalize;
}

static void ga_op_row_init(GaOpRow *self)
{
}

/* A row for `op`, whose enclosing context is `parent` (NULL: none) with
 * the row `parent_row`. The filter matches the context's path, so "test/"
 * keeps a layer and "fc/logits" tells the train and test copies apart. */
static GaOpRow *op_row_new(const tsr_operation *op, const tsr_operation *parent,
                           const GaOpRow *parent_row, guint index)
{
	GaOpRow *row = g_object_new(GA_TYPE_OP_ROW, NULL);
	g_autofree char *folded_name = NULL;

	row->index = index;
	row->text[COL_NAME] = ga_format_name(op->name);
	folded_name = g_utf8_casefold(row->text[COL_NAME], -1);
	row->folded = parent_row ? g_strconcat(parent_row->folded, "/", folded_name, NULL)
	                         : g_steal_pointer(&folded_name);
	row->text[COL_PARENT] = parent ? ga_format_name(parent->name) : g_strdup("");
	row->text[COL_LAYER] = ga_format_name(tsr_operation_get_software_layer(op));
	row->text[COL_API] = op->api ? ga_format_name(op->api) : g_strdup("");
	/* Made once: collating at every comparison would sort a large
	 * report's rows slowly. */
	for (int c = 0; c < N_TEXT_COLUMNS; c++)
		row->keys[c] = g_utf8_collate_key(row->text[c], -1);
	return row;
}

/* --- Slots: the rows as the column view sees them ---------------------------------- */

/* GTK 4.8's column view drops the widgets of the items that leave its
 * model and makes new ones for those that come in, so a change of layer
 * (thousands of rows out, thousands in) spent most of its time making
 * widgets. It shows slots instead (plain objects in a list store): slot i
 * stays the same object and holds the i-th row shown ("ga-row"); a change
 * refills the slots, redraws the cells bound to them and inserts or
 * removes only the difference in count (on_filtered_changed). */
static void slots_refill(GListStore *slots, GListModel *rows)
{
	guint old = g_list_model_get_n_items(G_LIST_MODEL(slots));
	guint n = g_list_model_get_n_items(rows);
	GPtrArray *added = g_ptr_array_new_with_free_func(g_object_unref);

	for (guint i = 0; i < n; i++) {
		GObject *slot = i < old ? g_list_model_get_item(G_LIST_MODEL(slots), i)
		                        : g_object_new(G_TYPE_OBJECT, NULL);

		g_object_set_data_full(slot, "ga-row", g_list_model_get_item(rows, i), g_object_unref);
		if (i < old)
			g_object_unref(slot);
		else
			g_ptr_array_add(added, slot);
	}
	if (n != old)
		g_list_store_splice(slots, MIN(old, n), old - MIN(old, n), added->pdata, added->len);
	g_ptr_array_unref(added);
}

/* The row of a slot (the selection's item, a cell's), or NULL. */
static GaOpRow *row_of(gpointer slot)
{
	return slot ? g_object_get_data(slot, "ga-row") : NULL;
}

/* --- The view ------------------------------------------------------------------------- */

typedef struct column_ctx {
	GaOperationsView *view;
	int column;
} column_ctx;

struct _GaOperationsView {
	GaView parent_instance;
	gint64 run;                       /* the run whose costs show, -1: none */
	const tsr_operation *ops;         /* the document's list for `run` */
	const tsr_operation *made;        /* the list without costs (names, parents) */
	const ga_operation_extra *extras;
	size_t n_ops;

	char *needle;                     /* the filter's text casefolded, NULL: none */
	char *layer;                      /* the layer shown, NULL: all */

	GListStore *store;
	GtkFilter *filter;
	GtkFilterListModel *filtered;
	GListStore *slots;                /* `filtered` in slots, under the selection */
	GHashTable *bound;                /* cells shown: GtkListItem -> column */
	GtkSingleSelection *selection;
	GtkColumnViewColumn *cols[COL_COUNT];  /* borrowed: the column view holds them */
	column_ctx ctx[COL_COUNT];
	GtkGrid *sections[3];             /* the details: figures, chain, what it made (template) */
	GtkGrid *details;                 /* the section being filled */
	GtkWidget *jump_bar;              /* "Show Programs", "Show Steps" (ga-jumps.h) */

	/* From the template (ga-operations-view.ui). */
	GtkWidget *layer_button;          /* a menu button: the layer shown */
	GtkWidget *layer_box;             /* in its popover: one button per layer */
	GtkWidget *run_box;
	GtkDropDown *run_choice;
	GtkLabel *status;
	GtkColumnView *view;
	GtkWidget *table_scroll;
	GtkWidget *details_box;
	GtkLabel *heading;
	GtkEditable *compare_filter;
	GtkWidget *compare_sections, *compare_sort, *compare_sort_box, *compare_columns_box;
};

G_DEFINE_FINAL_TYPE(GaOperationsView, ga_operations_view, GA_TYPE_VIEW)

/* The document shown (borrowed from the base), or NULL. */
static GaDocument *document(GaOperationsView *self)
{
	return ga_view_get_document(GA_VIEW(self));
}

/* A row's operation in the chosen run, or NULL. */
static const tsr_operation *op_of(GaOperationsView *self, const GaOpRow *row)
{
	return self->ops && row->index < self->n_ops ? &self->ops[row->index] : NULL;
}

/* A figure of a numeric column; `has` false when the cell stays empty
 * (costs with no run). */
static guint64 figure(GaOperationsView *self, const GaOpRow *row, int column, gboolean *has)
{
	const tsr_operation *op = op_of(self, row);
	const ga_operation_extra *x =
	    self->extras && row->index < self->n_ops ? &self->extras[row->index] : NULL;

	*has = op != NULL;
	if (!op)
		return 0;
	switch (column) {
	case COL_VARIABLE_BYTES:
		return op->variable_bytes;
	case COL_VERTEX_BYTES:
		return op->vertex_bytes;
	case COL_CYCLES:
		*has = self->run >= 0;
		return op->cycles;
	case COL_SELF_CYCLES:
		*has = self->run >= 0;
		return op->self_cycles;
	case COL_FLOPS:
		*has = self->run >= 0;
		return op->flops;
	case COL_VERTICES:
		return x ? x->vertices : 0;
	case COL_COMPUTE_SETS:
		return op->compute_sets;
	case COL_PROGRAMS:
		return op->programs;
	case COL_VARIABLES:
		return op->variables;
	case COL_EXCHANGE_BYTES:
		return x ? x->exchange_bytes : 0;
	default:
		*has = FALSE;
		return 0;
	}
}

static gboolean is_text_column(int column)
{
	return column < N_TEXT_COLUMNS;
}

/* --- Cells, sorting, filtering ------------------------------------------------------ */

/* A name or parent cell's whole name (the row holds it cut: op_row_new),
 * kept by render_cell, given when the pointer rests on the cell: a
 * tooltip set at every bind asks the X server where the pointer is, a
 * round trip per cell and most of the time a change of layer took. */
static gboolean on_cell_tooltip(GtkWidget *l, int x, int y, gboolean keyboard, GtkTooltip *tip,
                                gpointer data)
{
	const char *full = g_object_get_data(G_OBJECT(l), "ga-full");

	if (full && *full)
		gtk_tooltip_set_text(tip, full);
	return full && *full;
}

static void setup_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer column)
{
	int c = GPOINTER_TO_INT(column);
	GtkWidget *l = ga_cell_label_new(!is_text_column(c));

	if (c == COL_NAME || c == COL_PARENT) {
		gtk_widget_set_has_tooltip(l, TRUE);
		g_signal_connect(l, "query-tooltip", G_CALLBACK(on_cell_tooltip), NULL);
	}
	gtk_list_item_set_child(item, l);
}

/* Shows cell `item` of column `c` from its slot's row. */
static void render_cell(GaOperationsView *self, GtkListItem *item, int c)
{
	GaOpRow *row = row_of(gtk_list_item_get_item(item));
	GtkLabel *l = GTK_LABEL(gtk_list_item_get_child(item));

	if (!row) {
		gtk_label_set_text(l, "");
	} else if (is_text_column(c)) {
		const tsr_operation *op = op_of(self, row);
		gboolean parent = c == COL_PARENT && op && op->parent >= 1 && op->parent <= self->n_ops;
		const char *full = c == COL_NAME && op ? op->name
		                   : parent            ? self->made[op->parent - 1].name
		                                       : NULL;
		char *clean = full ? tsd_name_clean(full) : g_strdup("");

		gtk_label_set_text(l, row->text[c]);
		/* The whole name: the tooltip, and the description assistive
		 * technology reads (as GTK makes of a tooltip). */
		gtk_accessible_update_property(GTK_ACCESSIBLE(l), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
		                               clean, -1);
		g_object_set_data_full(G_OBJECT(l), "ga-full", clean, g_free);
	} else {
		gboolean has;
		guint64 v = figure(self, row, c, &has);
		g_autofree char *text = has ? ga_format_u64(v) : NULL;

		gtk_label_set_text(l, text ? text : "");
	}
}

static void bind_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer column)
{
	GaOperationsView *self = g_object_get_data(G_OBJECT(f), "ga-view");

	g_hash_table_insert(self->bound, item, column);
	render_cell(self, item, GPOINTER_TO_INT(column));
}

static void unbind_cell(GtkSignalListItemFactory *f, GtkListItem *item, gpointer column)
{
	GaOperationsView *self = g_object_get_data(G_OBJECT(f), "ga-view");

	g_hash_table_remove(self->bound, item);
}

static int compare_rows(gconstpointer a, gconstpointer b, gpointer data)
{
	const column_ctx *ctx = data;
	const GaOpRow *ra = a, *rb = b;
	int c;

	if (is_text_column(ctx->column)) {
		c = strcmp(ra->keys[ctx->column], rb->keys[ctx->column]);
	} else {
		gboolean has;
		guint64 va = figure(ctx->view, ra, ctx->column, &has);
		guint64 vb = figure(ctx->view, rb, ctx->column, &has);

		c = va < vb ? -1 : va > vb;
	}
	if (!c) /* a stable order among equals: the debug context's id */
		c = ra->index < rb->index ? -1 : ra->index > rb->index;
	return c;
}

static gboolean filter_row(gpointer item, gpointer data)
{
	GaOperationsView *self = data;
	const GaOpRow *row = item;

	if (self->layer && strcmp(row->text[COL_LAYER], self->layer))
		return FALSE;
	return !self->needle || strstr(row->folded, self->needle);
}

/* The count shown, after any change of filter or rows. */
static void update_status(GaOperationsView *self)
{
	guint shown = g_list_model_get_n_items(G_LIST_MODEL(self->filtered));
	guint all = g_list_model_get_n_items(G_LIST_MODEL(self->store));
	g_autofree char *s = ga_format_u64(shown);
	g_autofree char *a = ga_format_u64(all);
	g_autofree char *text = shown == all ? g_strdup_printf("%s operations", a)
	                                     : g_strdup_printf("%s of %s operations", s, a);

	gtk_label_set_text(self->status, text);
	/* GTK 4.8 names a label after its text at every change; the name
	 * says what the figure is. */
	gtk_accessible_update_property(GTK_ACCESSIBLE(self->status), GTK_ACCESSIBLE_PROPERTY_LABEL,
	                               "Operations shown", -1);
}

static void update_details(GaOperationsView *self);

/* After any change of the rows shown (layer, filter, sort, run): the
 * slots refilled, the cells on screen redrawn, the selected operation
 * kept where it is still shown, its details and the count. */
static void on_filtered_changed(GListModel *model, guint pos, guint removed, guint added,
                                gpointer data)
{
	GaOperationsView *self = data;
	GaOpRow *selected = row_of(gtk_single_selection_get_selected_item(self->selection));
	g_autoptr(GaOpRow) keep = selected ? g_object_ref(selected) : NULL;
	guint n = g_list_model_get_n_items(model);
	GHashTableIter it;
	gpointer item, column;

	g_signal_handlers_block_by_func(self->selection, update_details, self);
	slots_refill(self->slots, model);
	for (guint i = 0; keep && i < n; i++) {
		g_autoptr(GaOpRow) r = g_list_model_get_item(model, i);

		if (r == keep) {
			gtk_single_selection_set_selected(self->selection, i);
			break;
		}
	}
	g_signal_handlers_unblock_by_func(self->selection, update_details, self);
	g_hash_table_iter_init(&it, self->bound);
	while (g_hash_table_iter_next(&it, &item, &column))
		render_cell(self, item, GPOINTER_TO_INT(column));
	update_details(self);
	update_status(self);
}

static void on_filter_text(GtkSearchEntry *entry, gpointer data)
{
	GaOperationsView *self = data;
	const char *text = gtk_editable_get_text(GTK_EDITABLE(entry));
	char *old = self->needle;
	GtkFilterChange change = GTK_FILTER_CHANGE_DIFFERENT;

	self->needle = text && *text ? g_utf8_casefold(text, -1) : NULL;
	/* A longer needle keeps a subset, a shorter one a superset: GTK then
	 * re-checks only the rows that may change. */
	if (old && self->needle && strstr(self->needle, old))
		change = GTK_FILTER_CHANGE_MORE_STRICT;
	else if (old && (!self->needle || strstr(old, self->needle)))
		change = GTK_FILTER_CHANGE_LESS_STRICT;
	g_free(old);
	gtk_filter_changed(self->filter, change);
}

static void on_layer_chosen(GtkButton *button, gpointer data)
{
	GaOperationsView *self = data;
	const char *layer = g_object_get_data(G_OBJECT(button), "ga-layer");
	g_autofree char *shown = layer ? tsd_name_cut_to(layer, 40) : NULL;

	g_free(self->layer);
	self->layer = layer ? g_strdup(layer) : NULL;
	/* The toolbar keeps its width: a long layer (already cut to the
	 * rows' budget) is cut further on the button. */
	gtk_menu_button_set_label(GTK_MENU_BUTTON(self->layer_button), layer ? shown : "All");
	gtk_menu_button_popdown(GTK_MENU_BUTTON(self->layer_button));
	gtk_filter_changed(self->filter, GTK_FILTER_CHANGE_DIFFERENT);
}

/* --- Details ---------------------------------------------------------------------------- */

/* A figure with, when it differs, the part without descendants. */
static void put_total(GaOperationsView *self, int *row, const char *key, uint64_t total,
                      uint64_t own)
{
	g_autofree char *t = ga_format_u64(total);
	g_autofree char *o = ga_format_u64(own);
	g_autofree char *text = total == own ? g_strdup(t) : g_strdup_printf("%s (own: %s)", t, o);

	ga_details_add(self->details, row, key, text, TRUE);
}

/* A line across both columns of the details, `mark` (or NULL) before it. */
static void put_line(GaOperationsView *self, int *row, GtkWidget *mark, const char *text,
                     const char *acc_name)
{
	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 6);
	GtkWidget *l = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_label_set_wrap(GTK_LABEL(l), TRUE);
	gtk_label_set_wrap_mode(GTK_LABEL(l), PANGO_WRAP_WORD_CHAR);
	gtk_label_set_selectable(GTK_LABEL(l), TRUE);
	gtk_widget_set_hexpand(l, TRUE);
	if (acc_name)
		gtk_accessible_update_property(GTK_ACCESSIBLE(l), GTK_ACCESSIBLE_PROPERTY_LABEL,
		                               acc_name, -1);
	if (mark) {
		gtk_widget_set_valign(mark, GTK_ALIGN_CENTER);
		gtk_box_append(GTK_BOX(box), mark);
	}
	gtk_box_append(GTK_BOX(box), l);
	gtk_grid_attach(self->details, box, 0, (*row)++, 2, 1);
}

static void put_more(GaOperationsView *self, int *row, size_t more)
{
	if (more) {
		g_autofree char *m = ga_format_u64(more);
		g_autofree char *text = g_strdup_printf("… and %s more", m);

		put_line(self, row, NULL, text, NULL);
	}
}

/* The debug contexts enclosing operation `index`, outermost first. */
static void put_chain(GaOperationsView *self, int *row, guint index)
{
	GArray *chain = g_array_new(FALSE, FALSE, sizeof(guint));
	guint i = index;

	/* Parents have lower ids than their children; the bound also stops a
	 * hostile file's loop. */
	while (i < self->n_ops && self->made[i].parent >= 1 && self->made[i].parent <= i &&
	       chain->len < self->n_ops) {
		i = self->made[i].parent - 1;
		g_array_prepend_val(chain, i);
	}
	ga_details_add_heading(self->details, row, "Debug context chain");
	if (!chain->len)
		put_line(self, row, NULL, "Top level: no enclosing debug context", "Chain: top level");
	/* The ancestors, outermost first, then the operation itself. */
	g_array_append_val(chain, index);
	for (guint k = 0; chain->len > 1 && k < chain->len; k++) {
		const tsr_operation *a = &self->made[g_array_index(chain, guint, k)];
		g_autofree char *name = ga_format_name(a->name);
		g_autofree char *layer = ga_format_name(tsr_operation_get_software_layer(a));
		g_autofree char *indent = g_strnfill(2 * k, ' ');
		g_autofree char *text =
		    g_strdup_printf("%s%s%s (%s)", indent, k ? "└ " : "", name, layer);
		g_autofree char *acc = g_strdup_printf("Chain %u", k + 1);

		put_line(self, row, NULL, text, acc);
		if (k + 1 == chain->len)
			gtk_widget_add_css_class(
			    gtk_widget_get_last_child(gtk_grid_get_child_at(self->details, 0, *row - 1)),
			    "heading");
	}
	g_array_unref(chain);
}

/* Whether a thing made goes on its list, headed `heading`: the first
 * DETAILS_LIST_MAX do, the rest are counted in *more for put_more. */
static gboolean list_made(GaOperationsView *self, int *row, const char *heading, size_t *shown,
                          size_t *more)
{
	if (!*shown && !*more)
		ga_details_add_heading(self->details, row, heading);
	if (*shown < DETAILS_LIST_MAX) {
		(*shown)++;
		return TRUE;
	}
	(*more)++;
	return FALSE;
}

/* The compute sets and programs debug context `id` made itself (not its
 * descendants'), from the report's tables. */
static void put_made(GaOperationsView *self, int *row, uint32_t id)
{
	tsr_report *r = ga_document_get_report(document(self));
	const tsr_compute_set *cs;
	const tsr_program *progs;
	size_t n_cs = 0, n_progs = 0, shown = 0, more = 0;

	if (!tsr_report_get_compute_sets(&cs, &n_cs, r)) {
		for (size_t i = 0; i < n_cs; i++) {
			if (cs[i].debug_context == (int64_t)id &&
			    list_made(self, row, "Compute sets it made", &shown, &more)) {
				g_autofree char *name = ga_format_name(cs[i].name);
				g_autofree char *v = ga_format_u64(cs[i].vertices);
				g_autofree char *c = ga_format_u64(cs[i].cycles);
				g_autofree char *text =
				    g_strdup_printf("%s — %s %s, %s cycles", name, v,
				                    cs[i].vertices == 1 ? "vertex" : "vertices", c);

				put_line(self, row, NULL, text, NULL);
			}
		}
		put_more(self, row, more);
	}
	shown = more = 0;
	if (!tsr_report_get_programs(&progs, &n_progs, r)) {
		for (size_t i = 0; i < n_progs; i++) {
			if (progs[i].debug_context == (int64_t)id &&
			    list_made(self, row, "Programs it made", &shown, &more)) {
				GtkWidget *mark = ga_program_mark_new();
				g_autofree char *type = ga_format_name(ga_program_type_tag(progs[i].program_type));
				g_autofree char *name = progs[i].name ? ga_format_name(progs[i].name) : NULL;
				g_autofree char *text =
				    name ? g_strdup_printf("%s %zu: %s", type, i, name)
				         : g_strdup_printf("%s %zu", type, i);

				ga_program_mark_set_kind(mark, ga_program_kind_of_type(progs[i].program_type));
				put_line(self, row, mark, text, NULL);
			}
		}
		put_more(self, row, more);
	}
}

/* One vertex type's share of an operation's cycles (put_cycles). */
typedef struct vt_share {
	size_t type;
	uint64_t cycles;
} vt_share;

static int by_cycles_desc(gconstpointer a, gconstpointer b)
{
	const vt_share *x = a, *y = b;

	return x->cycles < y->cycles ? 1 : x->cycles > y->cycles ? -1 : 0;
}

/*
 * The operation's cycles in the run shown, split by step type and by
 * vertex type (the guide's "Cycles" of an operation): its steps are those
 * reportlib charges to its context or a descendant
 * (tsr_report_fill_step_operations, the rule of its run costs); a vertex
 * type's cycles are its active cycles in those compute sets, once per
 * execution. One pass over the run's steps: a few milliseconds on the
 * large model.
 */
static void put_cycles(GaOperationsView *self, int *row, const tsr_operation *op)
{
	tsr_report *report = ga_document_get_report(document(self));
	const tsr_step *steps;
	const tsr_compute_set *css;
	const tsr_vertex_type *vts;
	size_t n_steps, n_cs, n_vts;
	uint64_t by_type[TSR_STEP_TYPE_COUNT] = {0};
	g_autofree gboolean *mine = NULL;
	g_autofree uint64_t *runs_of_cs = NULL;
	g_autofree uint32_t *owner = NULL;
	g_autoptr(GArray) shares = NULL;
	guint shown = 0;

	if (self->run < 0 || tsr_report_get_steps(&steps, &n_steps, report, (size_t)self->run) ||
	    tsr_report_get_compute_sets(&css, &n_cs, report) ||
	    tsr_report_get_vertex_types(&vts, &n_vts, report))
		return;
	owner = g_new(uint32_t, n_steps ? n_steps : 1);
	if (tsr_report_fill_step_operations(owner, n_steps, report, (size_t)self->run))
		return;
	/* The contexts of the subtree: parents come before their children. */
	mine = g_new0(gboolean, self->n_ops + 1);
	mine[op->id] = TRUE;
	for (size_t i = op->id; i < self->n_ops; i++)
		if (self->made[i].parent >= 1 && self->made[i].parent <= self->n_ops)
			mine[i + 1] = mine[self->made[i].parent];
	runs_of_cs = g_new0(uint64_t, n_cs ? n_cs : 1);
	for (size_t i = 0; i < n_steps; i++) {
		const tsr_step *st = &steps[i];

		if (owner[i] < 1 || owner[i] > self->n_ops || !mine[owner[i]] ||
		    (unsigned)st->type >= TSR_STEP_TYPE_COUNT)
			continue;
		by_type[st->type] += st->cycles;
		if (st->compute_set >= 0 && (size_t)st->compute_set < n_cs)
			runs_of_cs[st->compute_set]++;
	}
	ga_details_add_heading(self->details, row, "Cycles by step type");
	for (int t = 0; t < TSR_STEP_TYPE_COUNT; t++)
		if (by_type[t])
			ga_details_add_u64(self->details, row, tsr_step_type_name((tsr_step_type)t), by_type[t]);
	shares = g_array_new(FALSE, TRUE, sizeof(vt_share));
	g_array_set_size(shares, n_vts);
	for (size_t t = 0; t < n_vts; t++)
		g_array_index(shares, vt_share, t).type = t;
	for (size_t c = 0; c < n_cs; c++) {
		const tsr_vertex_type_cycles *v;
		size_t n;

		if (!runs_of_cs[c] || tsr_report_get_compute_set_vertex_types(&v, &n, report, c))
			continue;
		for (size_t k = 0; k < n; k++)
			if (v[k].vertex_type < n_vts)
				g_array_index(shares, vt_share, v[k].vertex_type).cycles +=
				    v[k].cycles * runs_of_cs[c];
	}
	g_array_sort(shares, by_cycles_desc);
	ga_details_add_heading(self->details, row, "Cycles by vertex type (active, summed over tiles)");
	for (guint k = 0; k < shares->len && shown < DETAILS_LIST_MAX; k++) {
		const vt_share *v = &g_array_index(shares, vt_share, k);

		if (!v->cycles)
			break;
		/* Whole: the key is cut for its label, whole in its tooltip. */
		ga_details_add_u64(self->details, row, vts[v->type].name ? vts[v->type].name : "?",
		                   v->cycles);
		shown++;
	}
	if (!shown)
		put_line(self, row, NULL, "No vertex of its compute sets ran in this run.", NULL);
}

/* The jumps act on the selected operation, in the run shown. */
static void update_jump_bar(GaOperationsView *self)
{
	GaOpRow *row = row_of(gtk_single_selection_get_selected_item(self->selection));
	const tsr_operation *op = row ? op_of(self, row) : NULL;

	if (!self->jump_bar)
		return;
	ga_jump_bar_set_target(GA_JUMP_BAR(self->jump_bar), op ? (gint64)op->id : -1, self->run);
	gtk_widget_set_visible(self->jump_bar, op != NULL);
}

/* Shows the selected operation's details, and points the jump bar at it. */
static void update_details(GaOperationsView *self)
{
	GaOpRow *row = row_of(gtk_single_selection_get_selected_item(self->selection));
	const tsr_operation *op;
	const ga_operation_extra *x;
	int r = 0;

	update_jump_bar(self);
	for (int i = 0; i < 3; i++)
		tsd_widget_remove_children(GTK_WIDGET(self->sections[i]));
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->heading), NULL);
	if (!self->n_ops) {
		gtk_label_set_text(self->heading, "The report has no debug contexts, so no operations.");
		return;
	}
	if (!row || !(op = op_of(self, row))) {
		gtk_label_set_text(self->heading, "Select an operation to see its details.");
		return;
	}
	x = &self->extras[row->index];
	gtk_label_set_text(self->heading, row->text[COL_NAME]);
	self->details = self->sections[0];
	/* The details hold the whole names (the table and the heading show
	 * them cut): one operation's, read, selected and copied. */
	{
		g_autofree char *name = tsd_name_clean(op->name);
		g_autofree char *layer = tsd_name_clean(op->layer);
		g_autofree char *api = op->api ? tsd_name_clean(op->api) : g_strdup("—");

		ga_details_add(self->details, &r, "Operation", name, FALSE);
		ga_details_add(self->details, &r, "Layer", tsr_operation_get_software_layer(op), FALSE);
		/* The layer a model named its own context ("layer3"). */
		if (strcmp(op->layer, tsr_operation_get_software_layer(op)))
			ga_details_add(self->details, &r, "Model layer", layer, FALSE);
		ga_details_add(self->details, &r, "API", api, FALSE);
		tsd_widget_set_name_tooltip(GTK_WIDGET(self->heading), op->name);
	}
	{
		/* An id, not a quantity: no thousands separators. */
		g_autofree char *id = g_strdup_printf("%u", op->id);

		ga_details_add(self->details, &r, "Debug context", id, TRUE);
	}
	if (self->run >= 0) {
		g_autofree char *h = g_strdup_printf("In run %" G_GINT64_FORMAT " (with descendants)",
		                                     self->run);

		ga_details_add_heading(self->details, &r, h);
		put_total(self, &r, "Cycles", op->cycles, op->self_cycles);
		put_total(self, &r, "FLOPs", op->flops, op->self_flops);
		put_cycles(self, &r, op);
	} else {
		ga_details_add_heading(self->details, &r, "No runs: no cycles or FLOPs");
	}
	ga_details_add_heading(self->details, &r, "What it made (with descendants)");
	put_total(self, &r, "Memory", op->variable_bytes, op->self_variable_bytes);
	ga_details_add_u64(self->details, &r, "Variables", op->variables);
	ga_details_add_u64(self->details, &r, "Vertex memory", op->vertex_bytes);
	ga_details_add_u64(self->details, &r, "Vertices", x->vertices);
	ga_details_add_u64(self->details, &r, "Compute sets", op->compute_sets);
	ga_details_add_u64(self->details, &r, "Programs", op->programs);
	ga_details_add_u64(self->details, &r, "Exchange bytes", x->exchange_bytes);
	self->details = self->sections[1];
	r = 0;
	put_chain(self, &r, row->index);
	self->details = self->sections[2];
	r = 0;
	put_made(self, &r, op->id);
	if (!r)
		put_line(self, &r, NULL, "It made no compute sets or programs itself.", NULL);
}

/* --- Run ---------------------------------------------------------------------------------- */

/* Shows run `run`'s costs: the rows stay, they are rebound and re-sorted. */
static void set_run(GaOperationsView *self, gint64 run)
{
	size_t n;
	guint rows = g_list_model_get_n_items(G_LIST_MODEL(self->store));

	self->run = run;
	self->ops = document(self) ? ga_document_get_operations(document(self), run, &n) : NULL;
	if (!self->ops) {
		self->run = -1;
		self->ops = self->made;
	}
	/* Same rows, new figures: the selection keeps its row. */
	g_list_model_items_changed(G_LIST_MODEL(self->store), 0, rows, rows);
	for (int c = COL_CYCLES; c <= COL_FLOPS; c++)
		gtk_sorter_changed(gtk_column_view_column_get_sorter(self->cols[c]),
		                   GTK_SORTER_CHANGE_DIFFERENT);
	update_details(self);
}

static void on_run_chosen(GObject *drop, GParamSpec *pspec, gpointer data)
{
	GaOperationsView *self = data;
	guint i = gtk_drop_down_get_selected(GTK_DROP_DOWN(drop));

	if (i == GTK_INVALID_LIST_POSITION)
		return;
	set_run(self, (gint64)i);
	/* The new run's heaviest rows: a re-sort leaves GTK 4.8's view where
	 * its top row went. */
	gtk_adjustment_set_value(
	    gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(self->table_scroll)), 0);
}

/* --- Comparing ------------------------------------------------------------------------------ */

/* The compare page's title: "Operations: A vs B". */
static char *compare_title(gpointer view, GaDocument *a, GaDocument *b)
{
	if (!a || !b)
		return g_strdup("");
	return g_strdup_printf("Operations: %s vs %s", ga_document_get_title(a),
	                       ga_document_get_title(b));
}

/* The compare filter, typed (a moment after typing stops) or cleared. */
static void on_compare_filter(GtkSearchEntry *entry, gpointer data)
{
	GaOperationsView *self = data;

	ga_operations_compare_fill(self->compare_sections,
	                           ga_view_get_compare_document(GA_VIEW(self)),
	                           gtk_editable_get_text(self->compare_filter));
}

/* --- Rebuilding for a document ---------------------------------------------------- */

static int compare_strings(gconstpointer a, gconstpointer b)
{
	return g_utf8_collate(*(char *const *)a, *(char *const *)b);
}

/* A menu of the software layers (tsr_operation_get_software_layer), "All"
 * first, as flat buttons in a scrolled popover: a button's click
 * reaches it from assistive technology too (GTK 4.8 gives check buttons
 * no action). */
static void rebuild_layers(GaOperationsView *self)
{
	GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
	GPtrArray *layers = g_ptr_array_new_with_free_func(g_free);
	guint n = g_list_model_get_n_items(G_LIST_MODEL(self->store));

	tsd_widget_remove_children(self->layer_box);
	for (guint i = 0; i < n; i++) {
		g_autoptr(GaOpRow) row = g_list_model_get_item(G_LIST_MODEL(self->store), i);

		if (!g_hash_table_contains(seen, row->text[COL_LAYER])) {
			char *l = g_strdup(row->text[COL_LAYER]);

			g_hash_table_add(seen, l);
			g_ptr_array_add(layers, l);
		}
	}
	g_ptr_array_sort(layers, compare_strings);
	for (guint i = 0; i <= layers->len; i++) {
		const char *layer = i ? layers->pdata[i - 1] : NULL;
		GtkWidget *b = gtk_button_new_with_label(layer ? layer : "All");
		g_autofree char *tip = layer ? g_strdup_printf("Only the operations of %s", layer)
		                             : g_strdup("Operations of every layer");

		gtk_widget_add_css_class(b, "flat");
		gtk_label_set_xalign(GTK_LABEL(gtk_button_get_child(GTK_BUTTON(b))), 0);
		if (layer)
			g_object_set_data_full(G_OBJECT(b), "ga-layer", g_strdup(layer), g_free);
		gtk_widget_set_tooltip_text(b, tip);
		g_signal_connect(b, "clicked", G_CALLBACK(on_layer_chosen), self);
		gtk_box_append(GTK_BOX(self->layer_box), b);
	}
	g_clear_pointer(&self->layer, g_free);
	gtk_filter_changed(self->filter, GTK_FILTER_CHANGE_LESS_STRICT);
	gtk_menu_button_set_label(GTK_MENU_BUTTON(self->layer_button), "All");
	gtk_widget_set_visible(self->layer_button, layers->len > 0);
	g_ptr_array_unref(layers);
	g_hash_table_unref(seen);
}

/* The rows, layers and runs of the view's document
 * (GaView::document_changed). */
static void rebuild(GaView *view)
{
	GaOperationsView *self = GA_OPERATIONS_VIEW(view);
	GaDocument *doc = ga_view_get_document(view);
	size_t n = 0, n_runs;
	GtkStringList *runs = gtk_string_list_new(NULL);

	self->made = doc ? ga_document_get_operations(doc, -1, &n) : NULL;
	self->extras = doc ? ga_document_get_operation_extras(doc) : NULL;
	self->n_ops = self->made ? n : 0;
	n_runs = doc ? ga_document_get_n_runs(doc) : 0;
	/* The latest run, as the Program Tree's cycles; chosen before the rows
	 * go in, so that they are sorted once, by the figures shown (a
	 * re-sort of a large list leaves GTK 4.8's view scrolled to where
	 * the row at its top went). */
	self->run = n_runs ? (gint64)(n_runs - 1) : -1;
	self->ops = doc ? ga_document_get_operations(doc, self->run, &n) : NULL;
	if (!self->ops) {
		self->run = -1;
		self->ops = self->made;
	}
	{
		GPtrArray *rows = g_ptr_array_new_full((guint)self->n_ops, g_object_unref);

		for (size_t i = 0; i < self->n_ops; i++) {
			/* Parents come before their children (report.h). */
			gboolean has_parent = self->made[i].parent >= 1 && self->made[i].parent <= i;
			size_t p = has_parent ? self->made[i].parent - 1 : 0;

			g_ptr_array_add(rows, op_row_new(&self->made[i], has_parent ? &self->made[p] : NULL,
			                                 has_parent ? rows->pdata[p] : NULL, (guint)i));
		}
		g_list_store_splice(self->store, 0, g_list_model_get_n_items(G_LIST_MODEL(self->store)),
		                    rows->pdata, rows->len);
		g_ptr_array_unref(rows);
	}
	rebuild_layers(self);
	for (size_t i = 0; i < n_runs; i++) {
		/* By the name the model gave the run's program, as the trace's
		 * run picker ("Run 1: epoch"). */
		g_autofree char *s = ga_format_run_label(ga_document_get_report(doc), i);

		gtk_string_list_append(runs, s);
	}
	g_signal_handlers_block_by_func(self->run_choice, on_run_chosen, self);
	gtk_drop_down_set_model(self->run_choice, G_LIST_MODEL(runs));
	if (n_runs)
		gtk_drop_down_set_selected(self->run_choice, (guint)(n_runs - 1));
	g_signal_handlers_unblock_by_func(self->run_choice, on_run_chosen, self);
	g_object_unref(runs);
	gtk_widget_set_visible(self->run_box, n_runs > 0);
	/* The top row of the sorted table, not the first operation by id. */
	if (self->n_ops)
		gtk_single_selection_set_selected(self->selection, 0);
	gtk_adjustment_set_value(
	    gtk_scrolled_window_get_vadjustment(GTK_SCROLLED_WINDOW(self->table_scroll)), 0);
	update_details(self);
	update_status(self);
	/* A new pair: its sections, unfiltered. */
	g_signal_handlers_block_by_func(self->compare_filter, on_compare_filter, self);
	gtk_editable_set_text(self->compare_filter, "");
	g_signal_handlers_unblock_by_func(self->compare_filter, on_compare_filter, self);
	ga_operations_compare_fill(self->compare_sections, ga_view_get_compare_document(view), "");
}

/* --- Building ------------------------------------------------------------------------------ */

/* The cells and sorters of the template's columns, and the model chain
 * (the file's head says which). */
static void build_table(GaOperationsView *self)
{
	GListModel *columns = gtk_column_view_get_columns(self->view);
	GtkSortListModel *sorted;

	self->store = g_list_store_new(GA_TYPE_OP_ROW);
	for (int c = 0; c < COL_COUNT; c++) {
		g_autoptr(GtkListItemFactory) f = gtk_signal_list_item_factory_new();
		g_autoptr(GtkSorter) sorter = NULL;

		self->cols[c] = g_list_model_get_item(columns, c);
		g_object_unref(self->cols[c]);
		g_object_set_data(G_OBJECT(f), "ga-view", self);
		g_signal_connect(f, "setup", G_CALLBACK(setup_cell), GINT_TO_POINTER(c));
		g_signal_connect(f, "bind", G_CALLBACK(bind_cell), GINT_TO_POINTER(c));
		g_signal_connect(f, "unbind", G_CALLBACK(unbind_cell), GINT_TO_POINTER(c));
		gtk_column_view_column_set_factory(self->cols[c], f);
		self->ctx[c].view = self;
		self->ctx[c].column = c;
		sorter = GTK_SORTER(gtk_custom_sorter_new(compare_rows, &self->ctx[c], NULL));
		gtk_column_view_column_set_sorter(self->cols[c], sorter);
	}
	/* The columns chosen last time (the chooser follows them). */
	{
		g_autoptr(GSettings) settings = tsd_settings_new(GA_SETTINGS_ID);

		tsd_settings_remember_columns(self->cols, COL_COUNT, settings, "operations-columns");
	}
	/* Sorted, then filtered: a change of layer or filter text re-checks
	 * rows in their order instead of sorting them again (15,000 rows:
	 * about 1 ms against 110). */
	sorted = gtk_sort_list_model_new(G_LIST_MODEL(g_object_ref(self->store)),
	                                 g_object_ref(gtk_column_view_get_sorter(self->view)));
	self->filter = GTK_FILTER(gtk_custom_filter_new(filter_row, self, NULL));
	self->filtered = gtk_filter_list_model_new(G_LIST_MODEL(sorted), g_object_ref(self->filter));
	self->slots = g_list_store_new(G_TYPE_OBJECT);
	self->bound = g_hash_table_new(NULL, NULL);
	self->selection = gtk_single_selection_new(G_LIST_MODEL(g_object_ref(self->slots)));
	g_signal_connect(self->filtered, "items-changed", G_CALLBACK(on_filtered_changed), self);
	gtk_single_selection_set_autoselect(self->selection, TRUE);
	g_signal_connect_swapped(self->selection, "notify::selected-item", G_CALLBACK(update_details),
	                         self);
	gtk_column_view_set_model(self->view, GTK_SELECTION_MODEL(self->selection));
	/* Heaviest first, as a profile is read. */
	gtk_column_view_sort_by_column(self->view, self->cols[COL_CYCLES], GTK_SORT_DESCENDING);
}

/* The jump bar goes under the details' heading before the base follows
 * the session (which calls rebuild): the bar needs the session. */
static void ga_operations_view_constructed(GObject *object)
{
	GaOperationsView *self = GA_OPERATIONS_VIEW(object);

	self->jump_bar = ga_jump_bar_new(ga_view_get_session(GA_VIEW(self)), GA_JUMP_BAR_OPERATION);
	gtk_widget_set_visible(self->jump_bar, FALSE);
	gtk_box_insert_child_after(GTK_BOX(self->details_box), self->jump_bar,
	                           GTK_WIDGET(self->heading));
	/* Enter (or a double click) on a row: the operation's programs. */
	g_signal_connect(self->view, "activate", G_CALLBACK(ga_jump_bar_activate_cb), self->jump_bar);
	G_OBJECT_CLASS(ga_operations_view_parent_class)->constructed(object);
}

static void ga_operations_view_dispose(GObject *object)
{
	GaOperationsView *self = GA_OPERATIONS_VIEW(object);

	if (self->selection)
		g_signal_handlers_disconnect_by_data(self->selection, self);
	if (self->filtered)
		g_signal_handlers_disconnect_by_data(self->filtered, self);
	gtk_widget_dispose_template(GTK_WIDGET(self), GA_TYPE_OPERATIONS_VIEW);
	G_OBJECT_CLASS(ga_operations_view_parent_class)->dispose(object);
}

static void ga_operations_view_finalize(GObject *object)
{
	GaOperationsView *self = GA_OPERATIONS_VIEW(object);

	g_clear_object(&self->selection);
	g_clear_object(&self->slots);
	g_clear_pointer(&self->bound, g_hash_table_unref);
	g_clear_object(&self->filtered);
	g_clear_object(&self->filter);
	g_clear_object(&self->store);
	g_free(self->needle);
	g_free(self->layer);
	G_OBJECT_CLASS(ga_operations_view_parent_class)->finalize(object);
}

static void ga_operations_view_class_init(GaOperationsViewClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->constructed = ga_operations_view_constructed;
	object_class->dispose = ga_operations_view_dispose;
	object_class->finalize = ga_operations_view_finalize;
	GA_VIEW_CLASS(klass)->document_changed = rebuild;
	gtk_widget_class_set_css_name(widget_class, "operationsview");

	gtk_widget_class_set_template_from_resource(
	    widget_class, "/org/tilescope/GraphAnalyser/ga-operations-view.ui");
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, layer_button);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, layer_box);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, run_box);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, run_choice);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, status);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, view);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, table_scroll);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, details_box);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, heading);
	gtk_widget_class_bind_template_child_full(widget_class, "figures", FALSE,
	                                          G_STRUCT_OFFSET(GaOperationsView, sections[0]));
	gtk_widget_class_bind_template_child_full(widget_class, "chain", FALSE,
	                                          G_STRUCT_OFFSET(GaOperationsView, sections[1]));
	gtk_widget_class_bind_template_child_full(widget_class, "made_grid", FALSE,
	                                          G_STRUCT_OFFSET(GaOperationsView, sections[2]));
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, compare_filter);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, compare_sections);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, compare_sort);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, compare_sort_box);
	gtk_widget_class_bind_template_child(widget_class, GaOperationsView, compare_columns_box);
	gtk_widget_class_bind_template_callback(widget_class, on_filter_text);
	gtk_widget_class_bind_template_callback(widget_class, on_run_chosen);
	gtk_widget_class_bind_template_callback(widget_class, compare_title);
	gtk_widget_class_bind_template_callback(widget_class, on_compare_filter);
}

static void ga_operations_view_init(GaOperationsView *self)
{
	GtkPaned *paned;

	self->run = -1;
	gtk_widget_init_template(GTK_WIDGET(self));
	build_table(self);
	ga_operations_compare_init(self->compare_sections, GTK_MENU_BUTTON(self->compare_sort),
	                           self->compare_sort_box, self->compare_columns_box);
	/* What GtkBuilder cannot say: the run's name on the drop-down's
	 * button, an empty heading silent. */
	tsd_a11y_name_dropdown(self->run_choice, "Run");
	tsd_a11y_quiet_when_empty(self->heading);
	self->details = self->sections[0];
	/* The details below the table, which keeps about 14 rows at the
	 * default size. */
	paned = ga_view_get_paned(GA_VIEW(self));
	gtk_orientable_set_orientation(GTK_ORIENTABLE(paned), GTK_ORIENTATION_VERTICAL);
	gtk_paned_set_position(paned, 470);
}

GtkWidget *ga_operations_view_new(GaSession *session)
{
	return g_object_new(GA_TYPE_OPERATIONS_VIEW, "session", session, NULL);
}
