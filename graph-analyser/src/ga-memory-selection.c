/*
 * What the selected tiles hold (ga-memory-selection.h).
 *
 * Details come from the document's per-tile arrays (regions, categories):
 * no file access. Vertices (vertex memory by vertex type and by compute
 * set) and Exchanges (bytes received and sent) sum the per-tile blobs over
 * the selection in SQL, for selections of up to SQL_TILES tiles (each
 * tile is one tile_value() walk per row; more would make a large report
 * take seconds, so the tabs say so instead). Variables come from a worker with its own reportlib
 * handle on the same file (reportlib's thread contract: one thread per
 * handle): for a few tiles one SQL statement sums tile_value() over them,
 * for many it decodes each variable's per-tile bytes once. A newer
 * selection cancels the search before it.
 *
 * The notebook, its pages and tables are declared in
 * ga-memory-selection.ui; the tables' columns and models are made here.
 */
#include "ga-memory-selection.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-name.h>
#include <tilescope/tsd-table.h>
#include <tilescope/tsd-widget.h>

#include "ga-format.h"
#include "ga-jumps.h"
#include "ga-var-row.h"

/* Tiles shown side by side in Details; more are summed in "Selection". */
#define SIDE_BY_SIDE 6
/* Up to this many tiles, the variables are found with tile_value() in SQL. */
#define SQL_TILES 64

/* --- A breakdown's row (Vertices, Exchanges) -------------------------------------------- */

#define GA_TYPE_PART_ROW (ga_part_row_get_type())
G_DECLARE_FINAL_TYPE(GaPartRow, ga_part_row, GA, PART_ROW, GObject)

struct _GaPartRow {
	GObject parent_instance;
	char *name;       /* whole, for the tooltip */
	char *shown;      /* cut for display (tsd_name_cut), made by the worker: shown and sorted */
	char *kind;       /* "vertex type", "compute set"; "internal", "external", "host" */
	guint64 a, b;     /* bytes on the selection: total and code; received and sent */
};

G_DEFINE_FINAL_TYPE(GaPartRow, ga_part_row, G_TYPE_OBJECT)

static void ga_part_row_finalize(GObject *object)
{
	GaPartRow *self = GA_PART_ROW(object);

	g_free(self->name);
	g_free(self->shown);
	g_free(self->kind);
	G_OBJECT_CLASS(ga_part_row_parent_class)->finalize(object);
}

static void ga_part_row_class_init(GaPartRowClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = ga_part_row_finalize;
}

static void ga_part_row_init(GaPartRow *self)
{
	(void)self;
}

/* --- The widget -------------------------------------------------------------------------- */

struct _GaMemorySelection {
	GtkWidget parent_instance;

	GaSession *session;
	GaDocument *doc;
	tsr_memory_sharing *sharing; /* of each of doc's tiles (reportlib's overlap rule) */
	char *sharing_error;         /* reportlib's message when it could not be read */
	ga_tile_layout layout;
	GtkBitset *tiles;
	guint *sel;                  /* the selected tiles in order */
	guint n_sel;

	/* From the template (ga-memory-selection.ui). */
	GtkWidget *notebook;
	GtkLabel *details_heading;
	GtkGrid *details;
	TsdTable *variables;        /* GaVarRow; its job is the search */
	TsdTable *vertices;         /* GaPartRow: vertex types and compute sets */
	TsdTable *exchanges;        /* GaPartRow: exchanges */
};

G_DEFINE_FINAL_TYPE(GaMemorySelection, ga_memory_selection, GTK_TYPE_WIDGET)

/* --- Details ------------------------------------------------------------------------------ */

/* A cell of the details grid: a label, right-aligned for numbers. The
 * grid is a table (row captions in column 0, headers in row 0): a figure is
 * named "ROW, HEADER" for assistive technology (tsd-a11y.h), as a reader
 * of a table says a cell. */
static void put(GaMemorySelection *self, int col, int row, const char *text, gboolean number)
{
	GtkWidget *l = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(l), number ? 1.0f : 0.0f);
	gtk_label_set_selectable(GTK_LABEL(l), number);
	if (number)
		gtk_widget_add_css_class(l, "figure");
	if (number && col > 0 && row > 0) {
		GtkWidget *caption = gtk_grid_get_child_at(self->details, 0, row);
		GtkWidget *head = gtk_grid_get_child_at(self->details, col, 0);
		g_autofree char *name = g_strdup_printf(
		    "%s, %s", caption ? gtk_label_get_text(GTK_LABEL(caption)) : "",
		    head ? gtk_label_get_text(GTK_LABEL(head)) : "");

		tsd_a11y_name_value(l, name);
	} else {
		tsd_a11y_quiet_when_empty(GTK_LABEL(l));
	}
	gtk_grid_attach(self->details, l, col, row, 1, 1);
}

/* Bytes in a cell; `taken` shows them as taken away ("−1,024"). */
static void put_bytes(GaMemorySelection *self, int col, int row, guint64 v, gboolean taken)
{
	g_autofree char *s = ga_format_u64(v);
	g_autofree char *text = g_strdup_printf("%s%s", taken ? "−" : "", s);

	put(self, col, row, text, TRUE);
}

/* A line across Details under the figures (a heading, a note, an error). */
static GtkWidget *put_line(GaMemorySelection *self, int row, int width, const char *text,
                           const char *css_class)
{
	GtkWidget *l = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_widget_add_css_class(l, css_class);
	gtk_grid_attach(self->details, l, 0, row, width, 1);
	return l;
}

/* The figures of Details, each a function of a tile: its memory (`m`:
 * Total, Total including gaps, Gaps, then each region), category m's
 * bytes before sharing, or its sharing (Parts, Shared, In use after). */
enum { FIGURE_MEMORY, FIGURE_CATEGORY, FIGURE_SHARING };

static guint64 figure(GaMemorySelection *self, int kind, guint m, guint tile)
{
	size_t n_tiles;
	const tsr_tile_memory *t = ga_document_get_tiles(self->doc, &n_tiles);
	const uint64_t *by;
	const tsr_memory_sharing *sh;

	if (tile >= n_tiles)
		return 0;
	t += tile;
	if (kind == FIGURE_MEMORY)
		return m == 0   ? t->total
		       : m == 1 ? tsr_tile_memory_get_bytes(t, TRUE)
		       : m == 2 ? tsr_tile_memory_get_gaps(t)
		                : t->region[m - 3];
	if (kind == FIGURE_CATEGORY) {
		by = ga_document_get_category_by_tile(self->doc, m);
		return by ? by[tile] : 0;
	}
	sh = &self->sharing[tile];
	return m == 0 ? sh->parts : m == 1 ? sh->shared : sh->parts - sh->shared;
}

/* A row of figures: its caption, the figure summed over the selection
 * and, for several tiles, each of the first SIDE_BY_SIDE tiles' own. */
static void put_row(GaMemorySelection *self, int row, const char *caption, int kind, guint m)
{
	gboolean taken = kind == FIGURE_SHARING && m == 1;
	guint64 sum = 0;

	put(self, 0, row, caption, FALSE);
	for (guint i = 0; i < self->n_sel; i++)
		sum += figure(self, kind, m, self->sel[i]);
	put_bytes(self, 1, row, sum, taken);
	for (guint c = 0; self->n_sel > 1 && c < MIN(self->n_sel, SIDE_BY_SIDE); c++)
		put_bytes(self, 2 + (int)c, row, figure(self, kind, m, self->sel[c]), taken);
}

/* Rebuilds Details for the selection: one column for the selection's
 * total and one per tile, up to SIDE_BY_SIDE. */
static void update_details(GaMemorySelection *self)
{
	static const char *const memory_rows[] = {"Total", "Total including gaps", "Gaps",
	                                          "Interleaved", "Non-interleaved", "Overflowed"};
	/* The last is the Total above, reached the other way. */
	static const char *const sharing_rows[] = {"Parts before sharing", "Shared by overlapping",
	                                           "In use after sharing"};
	size_t nc = tsr_category_count();
	g_autofree guint64 *sums = g_new0(guint64, nc);
	g_autofree guint *order = g_new(guint, nc);
	guint shown = MIN(self->n_sel, SIDE_BY_SIDE), per, k = 0;
	int row = 1;
	g_autofree char *list = NULL;
	g_autofree char *heading = NULL;

	tsd_widget_remove_children(GTK_WIDGET(self->details));
	if (!self->doc || self->n_sel == 0) {
		gtk_label_set_text(self->details_heading,
		                   "No tiles selected. Click a tile in the chart, drag across tiles, "
		                   "or type a list in Select tiles.");
		return;
	}
	per = self->layout.tiles_per_ipu ? self->layout.tiles_per_ipu : 1;
	list = ga_format_tile_list(self->tiles);
	heading = self->n_sel == 1 ? g_strdup_printf("Tile %s (IPU %u)", list, (guint)atoi(list) / per)
	                           : g_strdup_printf("%u tiles: %s", self->n_sel, list);
	gtk_label_set_text(self->details_heading, heading);

	/* Header row. */
	put(self, 0, 0, "", FALSE);
	put(self, 1, 0, self->n_sel == 1 ? "Bytes" : "Selection", TRUE);
	for (guint c = 0; self->n_sel > 1 && c < shown; c++) {
		g_autofree char *h = g_strdup_printf("Tile %u", self->sel[c]);

		put(self, 2 + (int)c, 0, h, TRUE);
	}
	for (guint m = 0; m < G_N_ELEMENTS(memory_rows); m++)
		put_row(self, row++, memory_rows[m], FIGURE_MEMORY, m);

	/* Categories with bytes on the selection, largest first, counted
	 * before overlapped storage is shared; then the bytes shared, so that
	 * the parts less the shared make the total above. */
	gtk_widget_set_margin_top(put_line(self, row++, 2, "By category, before sharing", "heading"),
	                          8);
	for (guint c = 0; c < nc; c++) {
		for (guint i = 0; i < self->n_sel; i++)
			sums[c] += figure(self, FIGURE_CATEGORY, c, self->sel[i]);
		if (sums[c])
			order[k++] = c;
	}
	/* Insertion sort: at most 25 categories. */
	for (guint i = 1; i < k; i++)
		for (guint j = i; j > 0 && sums[order[j]] > sums[order[j - 1]]; j--) {
			guint t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (guint i = 0; i < k; i++)
		put_row(self, row++, tsr_category_label(order[i]), FIGURE_CATEGORY, order[i]);
	if (self->sharing_error) {
		g_autofree char *text =
		    g_strdup_printf("The shared bytes could not be read: %s", self->sharing_error);

		gtk_label_set_wrap(GTK_LABEL(put_line(self, row++, 2 + (int)shown, text, "error")), TRUE);
	} else if (self->sharing) {
		for (guint m = 0; m < G_N_ELEMENTS(sharing_rows); m++)
			put_row(self, row++, sharing_rows[m], FIGURE_SHARING, m);
	}
	if (self->n_sel > shown && self->n_sel > 1) {
		g_autofree char *more = g_strdup_printf("%u more tiles are in the Selection column.",
		                                        self->n_sel - shown);

		put_line(self, row, 2 + (int)shown, more, "dim-label");
	}
}

/* --- Variables ------------------------------------------------------------------------------ */

/* One search: the file, the tiles, and the answer (variable id, bytes). */
typedef struct var_search {
	char *path;
	guint *tiles;
	guint n_tiles;
	guint num_tiles;
	GArray *found;     /* tsr_variable_bytes: each variable with bytes there */
	char *error;
	GPtrArray *vertices;  /* GaPartRow, NULL when the selection is too large to list */
	GPtrArray *exchanges; /* GaPartRow, likewise */
} var_search;

static void var_search_free(var_search *s)
{
	g_free(s->path);
	g_free(s->tiles);
	g_clear_pointer(&s->found, g_array_unref);
	g_clear_pointer(&s->vertices, g_ptr_array_unref);
	g_clear_pointer(&s->exchanges, g_ptr_array_unref);
	g_free(s->error);
	g_free(s);
}

/* tsr_report_query's rows: (id, bytes). */
static int on_var_row(void *data, size_t n, const char *const *names, const tsr_value *v)
{
	var_search *s = data;
	tsr_variable_bytes found;

	(void)names;
	if (n < 2 || v[0].type != TSR_VALUE_INTEGER || v[1].type != TSR_VALUE_INTEGER)
		return 0;
	found.variable = (size_t)v[0].integer;
	found.bytes = (uint64_t)v[1].integer;
	g_array_append_val(s->found, found);
	return 0;
}

/* A breakdown's rows: (name, kind, a, b). */
static int on_part_row(void *data, size_t n, const char *const *names, const tsr_value *v)
{
	GPtrArray *rows = data;
	GaPartRow *row;

	(void)names;
	if (n < 4 || v[2].type != TSR_VALUE_INTEGER || v[3].type != TSR_VALUE_INTEGER)
		return 0;
	row = g_object_new(GA_TYPE_PART_ROW, NULL);
	row->name = v[0].type == TSR_VALUE_TEXT ? g_strndup(v[0].data, v[0].size) : g_strdup("");
	row->shown = tsd_name_cut(row->name);
	row->kind = v[1].type == TSR_VALUE_TEXT ? g_strndup(v[1].data, v[1].size) : g_strdup("");
	row->a = (guint64)v[2].integer;
	row->b = (guint64)v[3].integer;
	g_ptr_array_add(rows, row);
	return 0;
}

/* "tile_value(col, t0) + tile_value(col, t1) ...": a blob column's sum
 * over the selected tiles. */
static void append_sum(GString *sql, const var_search *s, const char *column)
{
	g_string_append_c(sql, '(');
	for (guint i = 0; i < s->n_tiles; i++)
		g_string_append_printf(sql, "%stile_value(%s, %u)", i ? " + " : "", column,
		                       s->tiles[i]);
	g_string_append_c(sql, ')');
}

/* Vertex memory by vertex type and by compute set, and exchange bytes,
 * on the selected tiles (one SQL statement each; up to SQL_TILES tiles). */
static int search_parts(var_search *s, tsr_report *r)
{
	GString *sql = g_string_new(NULL);
	int rc;

	s->vertices = g_ptr_array_new_with_free_func(g_object_unref);
	s->exchanges = g_ptr_array_new_with_free_func(g_object_unref);
	for (int by_cs = 0; by_cs < 2; by_cs++) {
		g_string_assign(sql, "SELECT s.text, ");
		g_string_append(sql, by_cs ? "'compute set', " : "'vertex type', ");
		append_sum(sql, s, "m.total_bytes_by_tile");
		g_string_append(sql, " AS t, ");
		append_sum(sql, s, "m.code_bytes_by_tile");
		g_string_append_printf(sql,
		                       " FROM %s m JOIN %s x ON x.id = m.%s JOIN string s ON s.id = x.name "
		                       "WHERE t > 0",
		                       by_cs ? "memory_by_compute_set" : "memory_by_vertex_type",
		                       by_cs ? "compute_set" : "vertex_type",
		                       by_cs ? "compute_set" : "vertex_type");
		if ((rc = tsr_report_query(r, sql->str, NULL, on_part_row, s->vertices)) != TSR_OK)
			goto out;
	}
	g_string_assign(sql, "SELECT s.text, e.kind, ");
	append_sum(sql, s, "e.bytes_received_by_tile");
	g_string_append(sql, " AS rx, ");
	append_sum(sql, s, "e.bytes_sent_by_tile");
	g_string_append(sql, " AS tx FROM exchange e JOIN string s ON s.id = e.name "
	                     "WHERE rx > 0 OR tx > 0");
	rc = tsr_report_query(r, sql->str, NULL, on_part_row, s->exchanges);
out:
	g_string_free(sql, TRUE);
	return rc;
}

/* The worker: opens its own handle and finds the variables on the tiles. */
static void search_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
	var_search *s = data;
	tsr_report *r = NULL;
	int rc;

	(void)source;
	s->found = g_array_new(FALSE, FALSE, sizeof(tsr_variable_bytes));
	rc = tsr_report_open(&r, s->path, NULL);
	if (rc) {
		s->error = g_strdup(tsr_last_error());
		goto out;
	}
	if (s->n_tiles <= SQL_TILES) {
		GString *sql = g_string_new("SELECT id, ");

		append_sum(sql, s, "bytes_by_tile");
		g_string_append(sql, " AS b FROM variable WHERE b > 0");
		rc = tsr_report_query(r, sql->str, NULL, on_var_row, s);
		g_string_free(sql, TRUE);
	} else {
		const tsr_variable *vars;
		size_t n;
		g_autofree uint64_t *dense = g_new(uint64_t, s->num_tiles ? s->num_tiles : 1);

		rc = tsr_report_get_variables(&vars, &n, r);
		for (size_t i = 0; !rc && i < n; i++) {
			guint64 sum = 0;

			if (i % 1024 == 0 && g_cancellable_is_cancelled(cancel))
				break;
			rc = tsr_report_fill_variable_by_tile(dense, s->num_tiles, r, i);
			for (guint k = 0; !rc && k < s->n_tiles; k++)
				sum += dense[s->tiles[k]];
			if (!rc && sum) {
				tsr_variable_bytes found = {i, sum};

				g_array_append_val(s->found, found);
			}
		}
	}
	if (!rc && s->n_tiles <= SQL_TILES && !g_cancellable_is_cancelled(cancel))
		rc = search_parts(s, r);
	if (rc)
		s->error = g_strdup(tsr_report_error(r));
out:
	tsr_report_free(r);
	g_task_return_boolean(task, TRUE);
}

/* Fills the Vertices and Exchanges tabs from a finished search. */
static void show_parts(GaMemorySelection *self, var_search *s)
{
	g_autofree char *vs = NULL;
	g_autofree char *xs = NULL;

	if (!s->vertices) {
		g_autofree char *why = g_strdup_printf(
		    "Vertices and exchanges are listed for up to %d tiles; %u are selected.",
		    SQL_TILES, s->n_tiles);

		tsd_table_set_caption(self->vertices, why);
		tsd_table_set_caption(self->exchanges, why);
		return;
	}
	tsd_table_set_rows(self->vertices, s->vertices->pdata, s->vertices->len);
	tsd_table_set_rows(self->exchanges, s->exchanges->pdata, s->exchanges->len);
	vs = g_strdup_printf("%u vertex types and compute sets with vertex memory on the selection",
	                     s->vertices->len);
	xs = g_strdup_printf("%u exchanges that send or receive on the selection",
	                     s->exchanges->len);
	tsd_table_set_caption(self->vertices, vs);
	tsd_table_set_caption(self->exchanges, xs);
}

static void on_search_done(GObject *source, GAsyncResult *result, gpointer data)
{
	GaMemorySelection *self = data;
	GTask *task = G_TASK(result);
	var_search *s = g_task_get_task_data(task);
	const tsr_variable *vars = NULL;
	size_t n_vars = 0;
	g_autofree char *status = NULL;
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_object_unref);

	(void)source;
	if (!tsd_table_end_job(self->variables, result)) {
		g_object_unref(self);
		return; /* a newer selection's search replaced this one */
	}
	tsd_table_set_busy(self->variables, FALSE, NULL);
	if (s->error) {
		tsd_table_set_caption(self->variables, s->error);
		tsd_table_set_caption(self->vertices, s->error);
		tsd_table_set_caption(self->exchanges, s->error);
		g_object_unref(self);
		return;
	}
	tsr_report_get_variables(&vars, &n_vars, ga_document_get_report(self->doc));
	for (guint i = 0; i < s->found->len; i++) {
		const tsr_variable_bytes *found = &g_array_index(s->found, tsr_variable_bytes, i);
		GaVarRow *row;
		const tsr_variable *v;

		if (found->variable >= n_vars)
			continue;
		v = &vars[found->variable];
		row = ga_var_row_new(self->doc, v, found->variable);
		ga_var_row_set_bytes(row, 0, found->bytes);                         /* on the selection */
		ga_var_row_set_bytes(row, 1, v->bytes);                             /* on all tiles */
		g_ptr_array_add(rows, row);
	}
	tsd_table_set_rows(self->variables, rows->pdata, rows->len);
	status = g_strdup_printf("%u variable%s on the selection", s->found->len,
	                         s->found->len == 1 ? "" : "s");
	tsd_table_set_caption(self->variables, status);
	show_parts(self, s);
	g_object_unref(self);
}

static void update_variables(GaMemorySelection *self)
{
	GTask *task;
	GCancellable *cancel;
	var_search *s;
	g_autofree char *path = NULL;

	if (!self->doc || self->n_sel == 0) {
		tsd_table_set_message(self->variables, "Select tiles to see their variables.", FALSE);
		tsd_table_set_message(self->vertices, "Select tiles to see their vertices.", FALSE);
		tsd_table_set_message(self->exchanges, "Select tiles to see their exchanges.", FALSE);
		return;
	}
	tsd_table_set_message(self->variables, "", FALSE);
	tsd_table_set_message(self->vertices, "Finding the vertices on the selection…", FALSE);
	tsd_table_set_message(self->exchanges, "Finding the exchanges on the selection…", FALSE);
	path = g_file_get_path(ga_document_get_file(self->doc));
	s = g_new0(var_search, 1);
	s->path = g_steal_pointer(&path);
	s->n_tiles = self->n_sel;
	s->num_tiles = tsr_report_get_target(ga_document_get_report(self->doc))->num_tiles;
	s->tiles = g_memdup2(self->sel, self->n_sel * sizeof(guint));
	cancel = tsd_table_start_job(self->variables, "Finding the variables on the selection…");
	task = g_task_new(NULL, cancel, on_search_done, g_object_ref(self));
	g_task_set_task_data(task, s, (GDestroyNotify)var_search_free);
	g_task_run_in_thread(task, search_thread);
	g_object_unref(task);
}

/* --- The breakdown tables ----------------------------------------------------------------- */

static char *part_text(gpointer item, guint c, gpointer data)
{
	GaPartRow *row = item;

	(void)data;
	return c == 0 ? g_strdup(row->shown)
	       : c == 1 ? g_strdup(row->kind)
	                : ga_format_u64(c == 2 ? row->a : row->b);
}

/* The whole name only for the rows on screen. */
static void part_bind(GtkWidget *label, gpointer item, guint c, gpointer data)
{
	(void)data;
	if (c == 0)
		tsd_widget_set_name_tooltip(label, GA_PART_ROW(item)->name);
}

static int part_compare(gconstpointer a, gconstpointer b, guint c, gpointer data)
{
	const GaPartRow *x = a, *y = b;

	(void)data;
	return c == 2 ? TSD_TABLE_ORDER(x->a, y->a) : TSD_TABLE_ORDER(x->b, y->b);
}

/* --- Building ------------------------------------------------------------------------------ */

static void ga_memory_selection_dispose(GObject *object)
{
	GaMemorySelection *self = GA_MEMORY_SELECTION(object);

	gtk_widget_dispose_template(GTK_WIDGET(self), GA_TYPE_MEMORY_SELECTION);
	G_OBJECT_CLASS(ga_memory_selection_parent_class)->dispose(object);
}

static void ga_memory_selection_finalize(GObject *object)
{
	GaMemorySelection *self = GA_MEMORY_SELECTION(object);

	g_clear_pointer(&self->doc, ga_document_unref);
	g_free(self->sharing);
	g_free(self->sharing_error);
	g_clear_pointer(&self->tiles, gtk_bitset_unref);
	g_free(self->sel);
	g_clear_object(&self->session);
	G_OBJECT_CLASS(ga_memory_selection_parent_class)->finalize(object);
}

static void ga_memory_selection_class_init(GaMemorySelectionClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	object_class->dispose = ga_memory_selection_dispose;
	object_class->finalize = ga_memory_selection_finalize;
	gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
	/* A container, silent to a screen reader (GTK 4.8 would say its type
	 * name). */
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_GENERIC);
	g_type_ensure(TSD_TYPE_TABLE);
	gtk_widget_class_set_template_from_resource(
	    widget_class, "/org/tilescope/GraphAnalyser/ga-memory-selection.ui");
	gtk_widget_class_bind_template_child(widget_class, GaMemorySelection, notebook);
	gtk_widget_class_bind_template_child(widget_class, GaMemorySelection, details_heading);
	gtk_widget_class_bind_template_child(widget_class, GaMemorySelection, details);
	gtk_widget_class_bind_template_child(widget_class, GaMemorySelection, variables);
	gtk_widget_class_bind_template_child(widget_class, GaMemorySelection, vertices);
	gtk_widget_class_bind_template_child(widget_class, GaMemorySelection, exchanges);
}

static void ga_memory_selection_init(GaMemorySelection *self)
{
	/* The columns as every variable table has them (ga-var-row.h). */
	static const GaVarColumnSpec var_columns[] = {
		{GA_VAR_COLUMN_NAME, 0},     {GA_VAR_COLUMN_BYTES, 0},       {GA_VAR_COLUMN_BYTES, 1},
		{GA_VAR_COLUMN_CATEGORY, 0}, {GA_VAR_COLUMN_ALWAYS_LIVE, 0}, {GA_VAR_COLUMN_LIFETIME, 0},
	};
	static const TsdTableCells part_cells = {
	    .text = part_text, .bind = part_bind, .compare = part_compare};

	self->tiles = gtk_bitset_new_empty();
	gtk_widget_init_template(GTK_WIDGET(self));
	tsd_table_set_cells(self->variables, &ga_var_row_cells, (gpointer)var_columns);
	tsd_table_sort_by(self->variables, 1, GTK_SORT_DESCENDING);
	tsd_table_set_cells(self->vertices, &part_cells, NULL);
	tsd_table_sort_by(self->vertices, 2, GTK_SORT_DESCENDING);
	tsd_table_set_cells(self->exchanges, &part_cells, NULL);
	tsd_table_sort_by(self->exchanges, 2, GTK_SORT_DESCENDING);
	/* The tabs named by their titles (GTK 4.8 names them "Tab"). */
	tsd_a11y_name_tabs(GTK_NOTEBOOK(self->notebook));
	update_details(self);
	update_variables(self);
}

/* A variable picked in the Variables tab becomes the session's. */
static void on_variable_selected(GtkSingleSelection *selection, GParamSpec *pspec, gpointer data)
{
	GaMemorySelection *self = data;
	GaVarRow *row = gtk_single_selection_get_selected_item(selection);

	(void)pspec;
	if (row)
		ga_session_set_variable(self->session, row->index);
}

GaMemorySelection *ga_memory_selection_new(GaSession *session)
{
	GaMemorySelection *self = g_object_new(GA_TYPE_MEMORY_SELECTION, NULL);
	GtkWidget *jump;

	self->session = g_object_ref(session);
	/* "Show Tiles in Memory": the session's variable's tiles become the
	 * selection (which of them hold the rest of it). */
	jump = ga_jump_bar_new(session, GA_JUMP_BAR_VARIABLE);
	tsd_table_add_header(self->variables, jump);
	g_signal_connect(tsd_table_get_selection(self->variables), "notify::selected-item",
	                 G_CALLBACK(on_variable_selected), self);
	g_signal_connect(tsd_table_get_view(self->variables), "activate",
	                 G_CALLBACK(ga_jump_bar_activate_cb), jump);
	return self;
}

void ga_memory_selection_set_document(GaMemorySelection *self, GaDocument *doc,
                                      const ga_tile_layout *layout)
{
	g_clear_pointer(&self->doc, ga_document_unref);
	g_clear_pointer(&self->sharing, g_free);
	g_clear_pointer(&self->sharing_error, g_free);
	self->doc = doc ? ga_document_ref(doc) : NULL;
	self->layout = *layout;
	if (doc) {
		size_t n;
		tsr_report *report = ga_document_get_report(doc);

		ga_document_get_tiles(doc, &n);
		self->sharing = g_new0(tsr_memory_sharing, n ? n : 1);
		if (tsr_report_fill_sharing_by_tile(self->sharing, n, report) != TSR_OK) {
			self->sharing_error = g_strdup(tsr_report_error(report));
			g_clear_pointer(&self->sharing, g_free);
		}
	}
}

void ga_memory_selection_set_tiles(GaMemorySelection *self, GtkBitset *tiles)
{
	GtkBitsetIter it;
	guint tile, k = 0;

	gtk_bitset_unref(self->tiles);
	self->tiles = gtk_bitset_copy(tiles);
	self->n_sel = (guint)gtk_bitset_get_size(tiles);
	g_free(self->sel);
	self->sel = g_new(guint, self->n_sel ? self->n_sel : 1);
	for (gboolean ok = gtk_bitset_iter_init_first(&it, tiles, &tile); ok;
	     ok = gtk_bitset_iter_next(&it, &tile))
		self->sel[k++] = tile;
	update_details(self);
	update_variables(self);
}
