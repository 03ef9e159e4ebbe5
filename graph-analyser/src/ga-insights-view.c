/*
 * The Insights view (ga-insights-view.h). Everything is computed from
 * what the loader gathered (the figures, the per-tile memory, each
 * category's bytes by tile, the run's steps) and reportlib's figures
 * (the tiles ranked, each tile's sharing of overlapped storage). A tip is
 * shown only when the report supports it, and always with the number it
 * is based on.
 *
 * One ranking names "the fullest" tiles everywhere on the page, the
 * headline, the list and the tips: bytes in use, excluding gaps
 * (tsr_report_list_largest_tiles), the lowest tile first among tiles
 * that tie. Including gaps, the tiles whose interleaved region sits at
 * the top of their memory all need about the same, so that ranking would
 * name one of many ties; whether the program fits is still judged
 * including gaps (reportlib's one gaps rule).
 */
#include "ga-insights-view.h"

#include "ga-figures.h"
#include "ga-format.h"
#include "ga-jumps.h"
#include "ga-navigation.h"
#include "ga-var-row.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-widget.h>

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

/* Out-of-memory tiles listed before "and N more". */
#define OOM_CAP 50
/* Categories named for each out-of-memory tile. */
#define TOP_CATEGORIES 3
#define FULLEST 5
#define ALWAYS_LIVE_SHOWN 10
#define WORST_STEPS 5
/* Rows of each memory-by-scope table before "and N more". */
#define SCOPE_ROWS 25
#define SCOPE_VARIABLES 100

struct _GaInsightsView {
	GaView parent_instance;
	/* From the template (ga-insights-view.ui). */
	GtkLabel *problem;          /* what reportlib could not give, hidden when all came */
	GtkWidget *sections;        /* the box of sections, refilled */
	/* Memory by scope: Model / IPU / Tile, vertices or user variables. */
	GtkToggleButton *scope_ipu, *scope_tile, *show_vertices;
	GtkDropDown *ipu;
	GtkStringList *ipus;        /* "IPU 0" ... for the document */
	GtkEntry *tile;             /* a tile to select */
	guint tile_timeout;         /* applies `tile` a moment after typing stops */
	gboolean syncing;           /* the view writes `tile` */
	gboolean stale;             /* the Tile scope's tile changed while hidden */
	GtkLabel *scope_status;     /* the scope's tiles, or why there is none */
	GtkWidget *scope_section, *scope_tables; /* the tables refilled for each scope */
	TsdTable *variables;        /* GaVarRow: bytes-0 the bytes in scope; its job is the scope's */
	struct scope_handle *handle; /* the workers' handle on the document's file, or NULL */
};

G_DEFINE_FINAL_TYPE(GaInsightsView, ga_insights_view, GA_TYPE_VIEW)

/* --- Helpers ----------------------------------------------------------------- */

/* A tile's row was activated: select the tile and show it in Memory (a
 * jump: Back returns here). */
static void on_tile_activated(GtkListBox *list, GtkListBoxRow *row, gpointer data)
{
	GaInsightsView *self = data;
	guint tile = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(row), "ga-tile"));
	g_autoptr(GtkBitset) set = NULL;
	ga_jump j = GA_JUMP_INIT;

	if (!tile)
		return;
	set = gtk_bitset_new_range(tile - 1, 1);
	j.view = "memory";
	j.sets = GA_JUMP_TILES;
	j.tiles = set;
	ga_navigation_jump_from(GTK_WIDGET(self), &j);
}

/* A list whose rows name tiles (row data "ga-tile": tile + 1). */
static GtkWidget *tile_list_new(GaInsightsView *self, const char *name)
{
	GtkWidget *list = ga_list_new(name, TRUE);

	/* Filling the page: a row's wrapped breakdown gets its height for
	 * the list's real width only then (GTK 4.8), as the tips do. */
	gtk_widget_set_halign(list, GTK_ALIGN_FILL);
	g_signal_connect(list, "row-activated", G_CALLBACK(on_tile_activated), self);
	return list;
}

static void tile_row_set(GtkWidget *row, uint32_t tile)
{
	g_object_set_data(G_OBJECT(row), "ga-tile", GUINT_TO_POINTER(tile + 1));
	gtk_widget_set_tooltip_text(row, "Select this tile and show it in the Memory view");
}

/* An always-live variable's row (data "ga-variable": its index + 1) was
 * activated: its tiles in Memory. */
static void on_variable_activated(GtkListBox *list, GtkListBoxRow *row, gpointer data)
{
	GaInsightsView *self = data;
	gsize v = GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(row), "ga-variable"));
	g_autoptr(GtkBitset) tiles = NULL;
	ga_jump j = GA_JUMP_INIT;

	if (!v || !(tiles = ga_jumps_variable_tiles(ga_view_get_document(GA_VIEW(self)),
	                                            (gint64)v - 1)))
		return;
	j.view = "memory";
	j.sets = GA_JUMP_TILES | GA_JUMP_VARIABLE;
	j.tiles = tiles;
	j.variable = (gint64)v - 1;
	ga_navigation_jump_from(GTK_WIDGET(self), &j);
}

/* A step's row (data "ga-step": its index in the summary's run + 1) was
 * activated: that step in the Execution Trace. */
static void on_step_activated(GtkListBox *list, GtkListBoxRow *row, gpointer data)
{
	GaInsightsView *self = data;
	GaDocument *doc = ga_view_get_document(GA_VIEW(self));
	const tsr_summary_figures *s = doc ? ga_document_get_figures(doc) : NULL;
	gsize i = GPOINTER_TO_SIZE(g_object_get_data(G_OBJECT(row), "ga-step"));
	ga_jump j = GA_JUMP_INIT;

	if (!i || !s || !s->has_run || i > s->n_steps)
		return;
	j.view = "trace";
	j.sets = GA_JUMP_PROGRAM | GA_JUMP_STEP;
	j.program = s->steps[i - 1].step->program;
	j.run = (gint64)s->run;
	j.step = (gint64)i - 1;
	ga_navigation_jump_from(GTK_WIDGET(self), &j);
}

/* --- Fit ---------------------------------------------------------------------- */

/* "The fullest tile by bytes in use (excluding gaps) is tile 18, with
 * 150,000 B." for the first of `fullest` (n tiles), or "". */
static char *fullest_sentence(GaDocument *doc, const uint32_t *fullest, size_t n)
{
	size_t n_tiles;
	const tsr_tile_memory *tiles = ga_document_get_tiles(doc, &n_tiles);
	g_autofree char *b = NULL;

	if (!n || fullest[0] >= n_tiles)
		return g_strdup("");
	b = ga_format_u64(tiles[fullest[0]].total);
	return g_strdup_printf(" The fullest tile by bytes in use (excluding gaps) is tile %" PRIu32
	                       ", with %s B.",
	                       fullest[0], b);
}

static void add_fit(GtkWidget *box, GaDocument *doc, const tsr_summary_figures *s,
                    const uint32_t *fullest, size_t n_fullest)
{
	const tsr_summary_memory *all = &s->memory[0];
	gboolean fits = all->n_oom_tiles == 0;
	GtkWidget *content, *grid = gtk_grid_new(), *verdict;
	g_autofree char *text = NULL, *n = NULL, *max = NULL, *per = NULL, *pct = NULL;
	g_autofree char *rank = fullest_sentence(doc, fullest, n_fullest);
	size_t first = s->n_memory > 1 ? 1 : 0;

	gtk_box_append(GTK_BOX(box), ga_section_new("Does it fit?", TRUE, &content));
	n = ga_format_u64(all->n_oom_tiles);
	max = ga_format_u64(all->totals.max_tile_bytes);
	per = ga_format_u64(s->target->bytes_per_tile);
	pct = ga_format_pct(s->target->bytes_per_tile
	                        ? (double)all->totals.max_tile_bytes / (double)s->target->bytes_per_tile
	                        : NAN);
	/* Fitting is judged including gaps; no tile is named for it (many
	 * tie there), the fullest is named by the page's one ranking. */
	if (fits)
		text = g_strdup_printf("The program fits: no tile needs more than %s B of its %s B, "
		                       "including gaps (%s).%s",
		                       max, per, pct, rank);
	else
		text = g_strdup_printf("The program does not fit: %s tile%s out of memory, needing "
		                       "up to %s B of %s B, including gaps (%s).%s",
		                       n, all->n_oom_tiles == 1 ? " is" : "s are", max, per, pct, rank);
	verdict = gtk_label_new(text);
	gtk_label_set_xalign(GTK_LABEL(verdict), 0);
	gtk_label_set_wrap(GTK_LABEL(verdict), TRUE);
	gtk_label_set_selectable(GTK_LABEL(verdict), TRUE);
	gtk_widget_set_focusable(verdict, FALSE);
	gtk_widget_add_css_class(verdict, fits ? "success" : "error");
	gtk_widget_add_css_class(verdict, "title-4");
	gtk_box_append(GTK_BOX(content), verdict);
	gtk_grid_set_column_spacing(GTK_GRID(grid), 12);
	gtk_grid_set_row_spacing(GTK_GRID(grid), 6);
	gtk_box_append(GTK_BOX(content), grid);
	for (size_t i = first; i < s->n_memory; i++) {
		const tsr_summary_memory *m = &s->memory[i];
		uint64_t used = m->totals.total_including_gaps, cap = m->totals.capacity;
		g_autofree char *name = m->ipu < 0 ? g_strdup("All IPUs") : g_strdup_printf("IPU %d", m->ipu);
		g_autofree char *u = ga_format_u64(used), *c = ga_format_u64(cap);
		g_autofree char *p = ga_format_pct(cap ? (double)used / (double)cap : NAN);
		g_autofree char *oom = ga_format_u64(m->n_oom_tiles);
		g_autofree char *figures = g_strdup_printf("%s of %s B (%s), %s tile%s out of memory", u,
		                                           c, p, oom, m->n_oom_tiles == 1 ? "" : "s");
		g_autofree char *acc = g_strdup_printf("%s memory used", name);
		GtkWidget *l = gtk_label_new(name);
		GtkWidget *bar = gtk_level_bar_new_for_interval(0, cap ? (double)cap : 1);
		GtkWidget *f = gtk_label_new(figures);
		int row = (int)(i - first);

		gtk_label_set_xalign(GTK_LABEL(l), 0);
		gtk_level_bar_set_value(GTK_LEVEL_BAR(bar), (double)MIN(used, cap ? cap : used));
		/* Colours: past 80% of the IPU is "high", past every tile's
		 * capacity is "full" only when tiles are out of memory. */
		gtk_level_bar_add_offset_value(GTK_LEVEL_BAR(bar), GTK_LEVEL_BAR_OFFSET_LOW,
		                               0.8 * (double)cap);
		gtk_level_bar_add_offset_value(GTK_LEVEL_BAR(bar), GTK_LEVEL_BAR_OFFSET_HIGH,
		                               (double)cap);
		gtk_widget_set_size_request(bar, 320, -1);
		gtk_widget_set_valign(bar, GTK_ALIGN_CENTER);
		gtk_accessible_update_property(GTK_ACCESSIBLE(bar), GTK_ACCESSIBLE_PROPERTY_LABEL, acc,
		                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, figures, -1);
		gtk_label_set_xalign(GTK_LABEL(f), 0);
		gtk_label_set_selectable(GTK_LABEL(f), TRUE);
		gtk_widget_set_focusable(f, FALSE);
		gtk_widget_add_css_class(f, "figure");
		if (m->n_oom_tiles) {
			gtk_widget_add_css_class(f, "error");
			gtk_widget_add_css_class(bar, "out-of-memory");
		}
		gtk_grid_attach(GTK_GRID(grid), l, 0, row, 1, 1);
		gtk_grid_attach(GTK_GRID(grid), bar, 1, row, 1, 1);
		gtk_grid_attach(GTK_GRID(grid), f, 2, row, 1, 1);
	}
}

/* --- Tiles -------------------------------------------------------------------- */

typedef struct cat_bytes {
	size_t category;
	uint64_t bytes;
} cat_bytes;

static int cat_bytes_desc(gconstpointer a, gconstpointer b)
{
	const cat_bytes *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->category < y->category ? -1 : x->category > y->category;
}

/* Tile `tile`'s largest categories and what they add up to, counted as
 * reportlib counts them: each category's bytes before overlapped storage
 * is shared, the rest in one "more", and, when storage is shared, the
 * bytes shared, so that the parts less the shared are the tile's bytes
 * in use: "Before sharing: Variables 80,000 B, Messages 50,000 B, Control
 * Code 5,000 B and 7,564 B more = 142,564 B; less 56,708 B shared by
 * overlapping = 85,856 B in use". `sharing`: every tile's (may be NULL:
 * not read). */
static char *breakdown(GaDocument *doc, const tsr_summary_figures *s,
                       const tsr_memory_sharing *sharing, uint32_t tile)
{
	size_t n = tsr_category_count();
	g_autofree cat_bytes *v = g_new0(cat_bytes, n ? n : 1);
	GString *out = g_string_new(NULL);
	size_t n_tiles, i;
	const tsr_tile_memory *tiles = ga_document_get_tiles(doc, &n_tiles);
	const tsr_memory_sharing *sh = sharing && tile < n_tiles ? &sharing[tile] : NULL;
	uint64_t listed = 0;

	if (tile >= n_tiles)
		return g_string_free(out, FALSE);
	for (size_t c = 0; c < n; c++) {
		const uint64_t *by_tile = ga_document_get_category_by_tile(doc, c);

		v[c].category = c;
		v[c].bytes = by_tile ? by_tile[tile] : 0;
	}
	qsort(v, n, sizeof(*v), cat_bytes_desc);
	if (sh && sh->shared)
		g_string_append(out, "Before sharing: ");
	for (i = 0; i < n && i < TOP_CATEGORIES && v[i].bytes; i++) {
		g_autofree char *b = ga_format_u64(v[i].bytes);

		g_string_append_printf(out, "%s%s %s B", i ? ", " : "", tsr_category_label(v[i].category),
		                       b);
		listed += v[i].bytes;
	}
	if (!sh)
		return g_string_free(out, FALSE);
	if (sh->parts > listed) {
		g_autofree char *b = ga_format_u64(sh->parts - listed);

		g_string_append_printf(out, "%s%s B more", i ? " and " : "", b);
	}
	if (sh->shared) {
		g_autofree char *p = ga_format_u64(sh->parts), *x = ga_format_u64(sh->shared);
		g_autofree char *t = ga_format_u64(sh->parts - sh->shared);

		g_string_append_printf(out, " = %s B; less %s B shared by overlapping = %s B in use", p,
		                       x, t);
	} else if (sh->parts != tiles[tile].total) {
		/* A malformed file: say what the categories add up to. */
		g_autofree char *p = ga_format_u64(sh->parts);

		g_string_append_printf(out, " = %s B", p);
	}
	return g_string_free(out, FALSE);
}

static void add_oom(GaInsightsView *self, GtkWidget *box, GaDocument *doc,
                    const tsr_summary_figures *s, const tsr_memory_sharing *sharing)
{
	const tsr_summary_memory *all = &s->memory[0];
	size_t n_tiles, shown = MIN(all->n_oom_tiles, (size_t)OOM_CAP);
	const tsr_tile_memory *tiles = ga_document_get_tiles(doc, &n_tiles);
	g_autofree char *title = NULL, *n = ga_format_u64(all->n_oom_tiles);
	GtkWidget *content, *list;

	if (!all->n_oom_tiles)
		return;
	title = g_strdup_printf("Out-of-memory tiles (%s)", n);
	gtk_box_append(GTK_BOX(box), ga_section_new(title, TRUE, &content));
	gtk_box_append(GTK_BOX(content),
	               ga_note_new("Each tile with the bytes it needs beyond the tile's memory "
	                           "(including gaps) and its largest categories."));
	list = tile_list_new(self, "Out-of-memory tiles");
	for (size_t i = 0; i < shown; i++) {
		uint32_t tile = all->oom_tiles[i];
		uint64_t bytes = tile < n_tiles ? tsr_tile_memory_get_bytes(&tiles[tile], TRUE) : 0;
		uint64_t excess = bytes > s->target->bytes_per_tile ? bytes - s->target->bytes_per_tile
		                                                    : 0;
		g_autofree char *name = g_strdup_printf("Tile %" PRIu32, tile);
		g_autofree char *b = ga_format_u64_with(bytes, " B"), *e = ga_format_u64(excess);
		g_autofree char *ee = g_strdup_printf("+%s B over", e);
		g_autofree char *cats = breakdown(doc, s, sharing, tile);
		const char *cells[] = {name, b, ee};
		GtkWidget *row = ga_list_add_full(list, cats, cells, 3);

		tile_row_set(row, tile);
	}
	ga_list_finish(list, shown, all->n_oom_tiles);
	gtk_box_append(GTK_BOX(content), list);
}

/* The fullest tiles, by the page's one ranking (`fullest`, n of them). */
static void add_fullest(GaInsightsView *self, GtkWidget *box, GaDocument *doc,
                        const tsr_summary_figures *s, const tsr_memory_sharing *sharing,
                        const uint32_t *fullest, size_t n_fullest)
{
	size_t n_tiles;
	const tsr_tile_memory *tiles = ga_document_get_tiles(doc, &n_tiles);
	GtkWidget *content, *list;
	g_autofree char *heading = NULL, *count = ga_format_u64(n_fullest);

	gtk_box_append(GTK_BOX(box), ga_section_new("Tile memory", TRUE, &content));
	if (!n_tiles || !n_fullest) {
		gtk_box_append(GTK_BOX(content), ga_note_new("The report lists no tiles."));
		return;
	}
	heading = n_fullest == 1
	              ? g_strdup("The fullest tile, by bytes in use (excluding gaps)")
	              : g_strdup_printf("The %s fullest tiles, by bytes in use (excluding gaps)",
	                                count);
	gtk_box_append(GTK_BOX(content), ga_heading_new(heading));
	gtk_box_append(GTK_BOX(content),
	               ga_note_new("Tiles with the same bytes in use are listed lowest tile first. "
	                           "With gaps: up to the highest address the tile uses, what "
	                           "decides whether it fits."));
	list = tile_list_new(self, "The fullest tiles");
	for (size_t i = 0; i < n_fullest; i++) {
		uint32_t tile = fullest[i];
		uint64_t bytes, with_gaps;
		g_autofree char *name = g_strdup_printf("Tile %" PRIu32, tile);
		g_autofree char *b = NULL, *g = NULL, *gg = NULL, *p = NULL, *cats = NULL;

		if (tile >= n_tiles)
			continue;
		bytes = tiles[tile].total;
		with_gaps = tsr_tile_memory_get_bytes(&tiles[tile], TRUE);
		b = ga_format_u64_with(bytes, " B in use");
		g = ga_format_u64(with_gaps);
		p = ga_format_pct(s->target->bytes_per_tile
		                      ? (double)with_gaps / (double)s->target->bytes_per_tile
		                      : NAN);
		gg = g_strdup_printf("%s B with gaps (%s of the tile)", g, p);
		cats = breakdown(doc, s, sharing, tile);
		{
			const char *cells[] = {name, b, gg};
			GtkWidget *row = ga_list_add_full(list, cats, cells, 3);

			tile_row_set(row, tile);
			if (with_gaps > s->target->bytes_per_tile)
				gtk_widget_add_css_class(row, "error");
		}
	}
	gtk_box_append(GTK_BOX(content), list);
	gtk_box_append(GTK_BOX(content), ga_heading_new("Tiles by memory (excluding gaps)"));
	gtk_box_append(GTK_BOX(content), ga_histogram_new(&s->memory[0]));
}

/* --- Liveness and steps ---------------------------------------------------------- */

static void add_always_live(GaInsightsView *self, GtkWidget *box, GaDocument *doc,
                            const tsr_summary_figures *s)
{
	size_t n_vars;
	g_autofree tsr_summary_named_bytes *vars = ga_always_live_sorted(s, TRUE, &n_vars);
	GtkWidget *content, *list;
	size_t shown = MIN(n_vars, (size_t)ALWAYS_LIVE_SHOWN);
	const tsr_variable *all = NULL;
	size_t n_all = 0;

	gtk_box_append(GTK_BOX(box), ga_section_new("Largest always-live variables", TRUE, &content));
	if (!n_vars) {
		gtk_box_append(GTK_BOX(content),
		               ga_note_new("No variable is live throughout the program."));
		return;
	}
	list = ga_list_new("Largest always-live variables", TRUE);
	gtk_widget_set_halign(list, GTK_ALIGN_START);
	g_signal_connect(list, "row-activated", G_CALLBACK(on_variable_activated), self);
	tsr_report_get_variables(&all, &n_all, ga_document_get_report(doc));
	for (size_t i = 0; i < shown; i++) {
		const tsr_summary_named_bytes *v = &vars[i];
		g_autofree char *bytes = ga_format_u64_with(v->bytes, " B");
		g_autofree char *pct = ga_format_pct_with(
		    s->always_live_bytes ? (double)v->bytes / (double)s->always_live_bytes : NAN,
		    " of always-live");
		const char *cells[] = {v->name, bytes, pct};
		GtkWidget *row = ga_list_add(list, cells, 3);

		/* The summary names it; the row jumps to the variable of that
		 * name (the first always-live one). */
		for (size_t k = 0; k < n_all; k++) {
			if (all[k].always_live && g_strcmp0(all[k].name, v->name) == 0) {
				g_object_set_data(G_OBJECT(row), "ga-variable", GSIZE_TO_POINTER(k + 1));
				gtk_widget_set_tooltip_text(row, "Select the tiles it lives on and show "
				                                 "them in the Memory view");
				break;
			}
		}
	}
	ga_list_finish(list, shown, n_vars);
	gtk_box_append(GTK_BOX(content), list);
}

/* The run's steps merged by program (a Repeat runs one step many times):
 * their executions, cycles, and the cycles a perfect tile balance would
 * have saved. */
typedef struct step_group {
	const tsr_summary_step *first;
	size_t executions;
	uint64_t cycles;
	double lost;                   /* sum of cycles x (1 - tile balance) */
	double balance;                /* cycle-weighted tile balance */
} step_group;

static int group_balance_asc(gconstpointer a, gconstpointer b)
{
	const step_group *x = a, *y = b;

	if (x->balance != y->balance)
		return x->balance < y->balance ? -1 : 1;
	if (x->cycles != y->cycles)
		return x->cycles > y->cycles ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* The groups taking at least 1% of the run's cycles, worst balance
 * first: a short step's balance costs little. */
static GArray *step_groups(const tsr_summary_figures *s)
{
	g_autoptr(GHashTable) index = g_hash_table_new(g_int64_hash, g_int64_equal);
	g_autoptr(GArray) keys = g_array_new(FALSE, FALSE, sizeof(gint64));
	GArray *all = g_array_new(FALSE, TRUE, sizeof(step_group));

	g_array_set_size(keys, s->n_steps);
	for (size_t i = 0; i < s->n_steps; i++) {
		const tsr_step *st = s->steps[i].step;
		gint64 *k = &g_array_index(keys, gint64, i);
		gpointer found;
		step_group *g;
		double balance;

		if (st->type == TSR_STEP_SYNC || !st->cycles || !isfinite(st->tile_balance))
			continue;
		balance = CLAMP(st->tile_balance, 0.0, 1.0);
		*k = ((gint64)st->type << 32) | st->program;
		if (g_hash_table_lookup_extended(index, k, NULL, &found)) {
			g = &g_array_index(all, step_group, GPOINTER_TO_UINT(found));
		} else {
			step_group fresh = {&s->steps[i], 0, 0, 0, 0};

			g_hash_table_insert(index, k, GUINT_TO_POINTER(all->len));
			g_array_append_val(all, fresh);
			g = &g_array_index(all, step_group, all->len - 1);
		}
		g->executions++;
		g->cycles += st->cycles;
		g->lost += (double)st->cycles * (1.0 - balance);
	}
	/* From the end, so that removing one moves none still to visit (the
	 * sort below orders them whole). */
	for (guint i = all->len; i-- > 0;) {
		step_group *g = &g_array_index(all, step_group, i);

		g->balance = g->cycles ? 1.0 - g->lost / (double)g->cycles : 1.0;
		if (g->cycles < s->activity.cycles / 100)
			g_array_remove_index_fast(all, i);
	}
	g_array_sort(all, group_balance_asc);
	return all;
}

static void add_worst_steps(GaInsightsView *self, GtkWidget *box, const tsr_summary_figures *s)
{
	g_autoptr(GArray) groups = NULL;
	GtkWidget *content, *list;
	g_autofree char *title = NULL, *run = NULL;

	if (!s->has_run)
		return;
	run = ga_format_u64(s->run + 1);
	title = g_strdup_printf("Steps with the worst tile balance (run %s)", run);
	gtk_box_append(GTK_BOX(box), ga_section_new(title, TRUE, &content));
	groups = step_groups(s);
	if (!groups->len) {
		gtk_box_append(GTK_BOX(content),
		               ga_note_new("No step taking 1% or more of the run has a tile balance."));
		return;
	}
	gtk_box_append(GTK_BOX(content),
	               ga_note_new("Steps taking at least 1% of the run, repeats of one program "
	                           "merged. Tile balance: the tiles' mean cycles over the slowest "
	                           "tile's; low means most tiles wait. Lost: the cycles a perfect "
	                           "balance would save."));
	list = ga_list_new("Steps with the worst tile balance", TRUE);
	gtk_widget_set_halign(list, GTK_ALIGN_START);
	g_signal_connect(list, "row-activated", G_CALLBACK(on_step_activated), self);
	for (guint i = 0; i < groups->len && i < WORST_STEPS; i++) {
		const step_group *g = &g_array_index(groups, step_group, i);
		const tsr_summary_step *ss = g->first;
		/* Whole: ga_list_add cuts it for the label, keeps it for the
		 * tooltip. */
		g_autofree char *what = ss->name ? g_strdup_printf("%s: %s",
		                                                   tsr_step_type_name(ss->step->type),
		                                                   ss->name)
		                                 : g_strdup(tsr_step_type_name(ss->step->type));
		g_autofree char *x = ga_format_u64(g->executions);
		g_autofree char *xx = g_strdup_printf("× %s", x);
		g_autofree char *cycles = ga_format_u64_with(g->cycles, " cycles");
		g_autofree char *balance = ga_format_pct_with(g->balance, " balance");
		g_autofree char *lost = ga_format_u64_with((uint64_t)g->lost, " lost");
		const char *cells[] = {what, xx, cycles, balance, lost};
		GtkWidget *row = ga_list_add(list, cells, 5);

		/* Its first execution, in the Execution Trace. */
		g_object_set_data(G_OBJECT(row), "ga-step",
		                  GSIZE_TO_POINTER((gsize)(ss - s->steps) + 1));
		gtk_widget_set_tooltip_text(row, "Select its first execution in the Execution Trace");
	}
	gtk_box_append(GTK_BOX(content), list);
}

/* --- Tips ------------------------------------------------------------------------ */

/* Appends a tip: what to do, and the saving estimated from the report. */
static void tip(GtkWidget *list, const char *text)
{
	GtkWidget *row = gtk_list_box_row_new();
	GtkWidget *l = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(l), 0);
	gtk_label_set_wrap(GTK_LABEL(l), TRUE);
	gtk_label_set_selectable(GTK_LABEL(l), TRUE);
	gtk_widget_set_focusable(l, FALSE);
	gtk_widget_set_margin_start(l, 12);
	gtk_widget_set_margin_end(l, 12);
	gtk_widget_set_margin_top(l, 8);
	gtk_widget_set_margin_bottom(l, 8);
	gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), l);
	gtk_list_box_row_set_activatable(GTK_LIST_BOX_ROW(row), FALSE);
	gtk_accessible_update_property(GTK_ACCESSIBLE(row), GTK_ACCESSIBLE_PROPERTY_LABEL, text, -1);
	gtk_list_box_append(GTK_LIST_BOX(list), row);
}

/* reportlib's tips (tsr_summary_figures_list_tips), which the summary
 * page shows too. */
static void add_tips(GtkWidget *box, GaDocument *doc, const tsr_summary_figures *s)
{
	tsr_summary_tip *tips = NULL;
	size_t n = 0;
	GtkWidget *content, *list;

	gtk_box_append(GTK_BOX(box), ga_section_new("Tips", TRUE, &content));
	if (tsr_summary_figures_list_tips(&tips, &n, s) != TSR_OK) {
		g_autofree char *text = g_strdup_printf(
		    "The tips could not be worked out: %s",
		    tsr_report_error(ga_document_get_report(doc)));

		gtk_box_append(GTK_BOX(content), ga_note_new(text));
		return;
	}
	if (!n) {
		gtk_box_append(GTK_BOX(content), ga_note_new(TSR_SUMMARY_NO_TIPS));
		return;
	}
	list = ga_list_new("Tips", FALSE);
	/* Wrapped labels get their height for the list's real width only
	 * when the list fills the page (GTK 4.8). */
	gtk_widget_set_halign(list, GTK_ALIGN_FILL);
	for (size_t i = 0; i < n; i++)
		tip(list, tips[i].text);
	gtk_box_append(GTK_BOX(content), list);
	free(tips); /* reportlib's, with free() */
}

/* --- Memory by scope ------------------------------------------------------------------- */

/* The scope's tiles [*first, *first + *count) and how to name them;
 * FALSE for the Tile scope while no tile is selected. */
static gboolean scope_tiles(GaInsightsView *self, const tsr_target *t, size_t *first,
                            size_t *count, char **name)
{
	GtkBitset *sel = ga_session_get_selected_tiles(ga_view_get_session(GA_VIEW(self)));
	guint ipu = gtk_drop_down_get_selected(self->ipu);

	*first = 0;
	*count = t->num_tiles;
	if (gtk_toggle_button_get_active(self->scope_tile)) {
		guint64 n = gtk_bitset_get_size(sel);
		g_autofree char *several = g_strdup_printf(", the lowest of %" G_GUINT64_FORMAT
		                                           " selected", n);

		if (!n || gtk_bitset_get_minimum(sel) >= t->num_tiles)
			return FALSE;
		*first = gtk_bitset_get_minimum(sel);
		*count = 1;
		*name = g_strdup_printf("tile %zu (IPU %zu%s)", *first, *first / t->tiles_per_ipu,
		                        n > 1 ? several : "");
	} else if (gtk_toggle_button_get_active(self->scope_ipu) && ipu < t->num_ipus) {
		*first = (size_t)ipu * t->tiles_per_ipu;
		*count = t->tiles_per_ipu;
		*name = g_strdup_printf("IPU %u (tiles %zu to %zu)", ipu, *first, *first + *count - 1);
	} else {
		g_autofree char *n = ga_format_u64(t->num_tiles);

		*name = g_strdup_printf("the model (%s tiles)", n);
	}
	return TRUE;
}

/* A table of the scope: its heading, a note, and a list whose first row
 * names the columns, then `rows` (GStrv cells) of the `total` there are. */
static void add_scope_table(GaInsightsView *self, const char *title, const char *note,
                            const char *const *columns, size_t n, GPtrArray *rows, size_t total)
{
	GtkWidget *list = ga_list_new(title, FALSE);

	gtk_box_append(GTK_BOX(self->scope_tables), ga_heading_new(title));
	if (note)
		gtk_box_append(GTK_BOX(self->scope_tables), ga_note_new(note));
	gtk_widget_add_css_class(ga_list_add(list, columns, n), "dim-label");
	gtk_box_append(GTK_BOX(self->scope_tables), list);
	for (guint i = 0; i < rows->len; i++)
		ga_list_add(list, rows->pdata[i], g_strv_length(rows->pdata[i]));
	ga_list_finish(list, rows->len, total);
}

/* A row's cells: `name`, `text` (NULL: none), then the byte figures
 * ("—" for UINT64_MAX, a figure the report does not give); a GStrv. */
static char **scope_row(const char *name, const char *text, const uint64_t *v, size_t n)
{
	GPtrArray *cells = g_ptr_array_new();

	g_ptr_array_add(cells, g_strdup(name));
	if (text)
		g_ptr_array_add(cells, g_strdup(text));
	for (size_t i = 0; i < n; i++)
		g_ptr_array_add(cells, v[i] == UINT64_MAX ? g_strdup("—") : ga_format_u64(v[i]));
	g_ptr_array_add(cells, NULL);
	return (char **)g_ptr_array_free(cells, FALSE);
}

/* The workers' own reportlib handle on the document's file (reportlib
 * lets one thread at a time use a handle): opened by the first job and
 * kept for the next, which take turns under `lock`, until the view is
 * hidden: what it loaded (~45 MB on the large model's report) is freed
 * then, and the next job opens it again. An atomic rc box that the view
 * (for its document) and each job hold. */
typedef struct scope_handle {
	GMutex lock;
	char *path;
	tsr_report *r;              /* NULL until a job opens it */
	gint close;                 /* (atomic) the view is hidden: the job closes r after it */
} scope_handle;

static void scope_handle_clear(gpointer data)
{
	scope_handle *h = data;

	tsr_report_free(h->r);
	g_free(h->path);
	g_mutex_clear(&h->lock);
}

static void scope_handle_unref(gpointer h)
{
	g_atomic_rc_box_release_full(h, scope_handle_clear);
}

/* One scope's tables, read by a worker: what to read, and the answer. */
typedef struct scope_job {
	scope_handle *handle;       /* a reference */
	size_t first, count;        /* the scope's tiles */
	gboolean vertices;          /* vertex and exchange memory, or the user variables */
	char *name;                 /* "tile 5 (IPU 0)" */
	GPtrArray *vrows, *xrows;   /* the tables' first rows' cells (GStrv) */
	size_t n_vm, n_xm;          /* the rows there are */
	tsr_variable_bytes *vb;     /* reportlib's (free()), largest first */
	size_t n_vb;
	char *error;                /* the status line of a failure, or NULL */
} scope_job;

static void scope_job_free(gpointer data)
{
	scope_job *j = data;

	scope_handle_unref(j->handle);
	g_free(j->name);
	g_ptr_array_unref(j->vrows);
	g_ptr_array_unref(j->xrows);
	free(j->vb);
	g_free(j->error);
	g_free(j);
}

/* Vertex memory by vertex type and exchange memory by exchange on the
 * job's tiles, as rows of cells (the worker); non-zero on a failure. */
static int read_vertices(scope_job *j, tsr_report *r)
{
	tsr_vertex_type_memory *vm = NULL;
	tsr_exchange_memory *xm = NULL;
	const tsr_vertex_type *types;
	const tsr_program *programs;
	size_t n_types, n_programs;

	if (tsr_report_get_vertex_types(&types, &n_types, r) ||
	    tsr_report_get_programs(&programs, &n_programs, r) ||
	    tsr_report_list_vertex_memory_on_tiles(&vm, &j->n_vm, r, j->first, j->count) ||
	    tsr_report_list_exchange_memory_on_tiles(&xm, &j->n_xm, r, j->first, j->count)) {
		free(vm);
		return -1;
	}
	for (size_t i = 0; i < j->n_vm && i < SCOPE_ROWS; i++) {
		const tsr_vertex_memory *m = &vm[i].memory;
		uint64_t v[] = {vm[i].vertices, m->vertex_data, m->descriptor, m->edge_ptr,
		                m->copy_ptr,    m->padding,     m->code,       m->total};

		g_ptr_array_add(j->vrows, scope_row(types[vm[i].vertex_type].name, NULL, v, 8));
	}
	for (size_t i = 0; i < j->n_xm && i < SCOPE_ROWS; i++) {
		const tsr_program *p = &programs[xm[i].program];
		g_autofree char *unnamed = g_strdup_printf("program %u", xm[i].program);
		uint64_t v[] = {xm[i].code, xm[i].buffers};

		g_ptr_array_add(j->xrows, scope_row(p->name ? p->name : unnamed,
		                                    tsr_program_type_name(p->program_type), v, 2));
	}
	free(vm);
	free(xm);
	return TSR_OK;
}

/* The worker: the job's tables with the handle, unless a newer scope
 * cancelled it while it waited for its turn. */
static void scope_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
	scope_job *j = data;
	scope_handle *h = j->handle;

	g_mutex_lock(&h->lock);
	/* A failed open leaves no handle: its message is reportlib's last. */
	if (!g_cancellable_is_cancelled(cancel) &&
	    ((!h->r && tsr_report_open(&h->r, h->path, NULL)) ||
	     (j->vertices ? read_vertices(j, h->r)
	                  : tsr_report_list_variables_on_tiles(&j->vb, &j->n_vb, h->r, j->first,
	                                                       j->count, true))))
		j->error = g_strdup_printf("The memory of %s could not be read: %s", j->name,
		                           h->r ? tsr_report_error(h->r) : tsr_last_error());
	if (g_atomic_int_get(&h->close))
		g_clear_pointer(&h->r, tsr_report_free);
	g_mutex_unlock(&h->lock);
	g_task_return_boolean(task, TRUE);
}

/* The vertex and exchange tables from a finished job; returns the
 * status line. */
static char *vertex_tables(GaInsightsView *self, GaDocument *doc, const scope_job *j)
{
	static const char *const vcols[] = {"Vertex type", "Vertices", "State", "Descriptors",
	                                    "Edge pointers", "Copy pointers", "Padding", "Code",
	                                    "Total"};
	static const char *const xcols[] = {"Exchange", "Type", "Code", "Buffers"};
	const tsr_target *t = tsr_report_get_target(ga_document_get_report(doc));
	uint64_t code = 0;
	g_autofree char *note = NULL, *c = NULL;

	add_scope_table(self, "Vertex memory by vertex type",
	                j->n_vm ? NULL : "No vertex has memory on these tiles.", vcols, 9, j->vrows,
	                j->n_vm);
	/* The exchange code the scope's tiles hold in all, from the
	 * categories (the only split by tile the format has). */
	for (tsr_mem_category k = 0; k < tsr_category_count(); k++) {
		const uint64_t *by_tile = ga_document_get_category_by_tile(doc, k);

		if (by_tile && (k == TSR_MEM_INTERNAL_EXCHANGE_CODE || k == TSR_MEM_HOST_EXCHANGE_CODE ||
		                k == TSR_MEM_GLOBAL_EXCHANGE_CODE))
			for (size_t tile = j->first; tile < j->first + j->count; tile++)
				code += by_tile[tile];
	}
	c = ga_format_u64(code);
	if (j->count == t->num_tiles)
		note = g_strdup_printf("Code: the exchange's code on all tiles (%s B in all). Buffers: its "
		                       "message buffers.", c);
	else
		note = g_strdup_printf("The exchanges with message buffers on these tiles. The report "
		                       "holds each exchange's code summed over all tiles only, so Code "
		                       "is the whole model's; these tiles hold %s B of exchange code.", c);
	add_scope_table(self, "Exchange memory by exchange", note, xcols, 4, j->xrows, j->n_xm);
	return g_strdup_printf("Vertex and exchange memory on %s, in bytes.", j->name);
}

/* The largest user variables (and constants) from a finished job;
 * returns the status line. */
static char *fill_variables(GaInsightsView *self, GaDocument *doc, const scope_job *j)
{
	const tsr_variable *vars;
	size_t n_vars, i;
	g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_object_unref);
	g_autofree char *all = ga_format_u64(j->n_vb);

	if (tsr_report_get_variables(&vars, &n_vars, ga_document_get_report(doc)))
		return g_strdup_printf("The variables of %s could not be read: %s", j->name,
		                       tsr_report_error(ga_document_get_report(doc)));
	for (i = 0; i < j->n_vb && i < SCOPE_VARIABLES && j->vb[i].variable < n_vars; i++) {
		GaVarRow *row = ga_var_row_new(doc, &vars[j->vb[i].variable], j->vb[i].variable);

		ga_var_row_set_bytes(row, 0, j->vb[i].bytes);
		g_ptr_array_add(rows, row);
	}
	tsd_table_set_rows(self->variables, rows->pdata, rows->len);
	if (i < j->n_vb)
		return g_strdup_printf("The %zu largest of the %s user variables and constants on %s.",
		                       i, all, j->name);
	return g_strdup_printf("The %s user variables and constants on %s.", all, j->name);
}

/* The variables' table's cells, before its first rows: GaView's
 * constructed may fill it (a document already loaded) before ours runs. */
static void make_variables(GaInsightsView *self)
{
	static const GaVarColumnSpec columns[] = {{GA_VAR_COLUMN_NAME, 0},
	                                          {GA_VAR_COLUMN_BYTES, 0},
	                                          {GA_VAR_COLUMN_CATEGORY, 0},
	                                          {GA_VAR_COLUMN_ALWAYS_LIVE, 0}};

	if (tsd_table_get_selection(self->variables))
		return;
	tsd_table_set_cells(self->variables, &ga_var_row_cells, (gpointer)columns);
	tsd_table_sort_by(self->variables, 1, GTK_SORT_DESCENDING);
	/* In the page's scroll, which gives it its minimum height: ten rows
	 * or so, up to 480 px as tall as its rows. */
	g_object_set(gtk_widget_get_parent(GTK_WIDGET(tsd_table_get_view(self->variables))),
	             "propagate-natural-height", TRUE, "min-content-height", 240,
	             "max-content-height", 480, "hscrollbar-policy", GTK_POLICY_NEVER, NULL);
}

/* A job finished: its tables, unless a newer scope (or document)
 * superseded it, so that no scope's figures show under another's name. */
static void on_scope_done(GObject *source, GAsyncResult *result, gpointer data)
{
	GaInsightsView *self = data;
	const scope_job *j = g_task_get_task_data(G_TASK(result));
	GaDocument *doc = ga_view_get_document(GA_VIEW(self));
	g_autofree char *status = NULL;

	if (tsd_table_end_job(self->variables, result) && doc) {
		tsd_table_set_busy(self->variables, FALSE, NULL);
		tsd_widget_remove_children(self->scope_tables);
		if (j->error)
			status = g_strdup(j->error);
		else if (j->vertices)
			status = vertex_tables(self, doc, j);
		else
			status = fill_variables(self, doc, j);
		gtk_label_set_text(self->scope_status, status);
	}
	g_object_unref(self);
}

/* Starts the tables for the scope and what they show (a toggle turned
 * off is the other turned on: only that one refills), read by a worker
 * while the tables say so; a newer change cancels it. */
static void on_scope_changed(GaInsightsView *self, gpointer sender)
{
	GaDocument *doc = ga_view_get_document(GA_VIEW(self));
	const tsr_target *t = doc ? tsr_report_get_target(ga_document_get_report(doc)) : NULL;
	GtkBitset *sel = ga_session_get_selected_tiles(ga_view_get_session(GA_VIEW(self)));
	gboolean tile_scope = gtk_toggle_button_get_active(self->scope_tile);
	g_autofree char *status = NULL;
	GtkWidget *spinner;
	scope_job *j;
	GTask *task;

	if ((GTK_IS_TOGGLE_BUTTON(sender) && !gtk_toggle_button_get_active(sender)) ||
	    (sender == (gpointer)self->ipu && tile_scope))
		return;
	tsd_widget_remove_children(self->scope_tables);
	make_variables(self);
	tsd_table_set_message(self->variables, "", FALSE);
	gtk_widget_set_visible(self->scope_section, t != NULL);
	if (!t)
		return;
	/* The IPU drop-down says the tile's IPU in the Tile scope (none
	 * without a tile), and names one again for the IPU scope. */
	if (tile_scope)
		gtk_drop_down_set_selected(self->ipu, gtk_bitset_is_empty(sel) ||
		                                              gtk_bitset_get_minimum(sel) >= t->num_tiles
		                                          ? GTK_INVALID_LIST_POSITION
		                                          : gtk_bitset_get_minimum(sel) / t->tiles_per_ipu);
	else if (gtk_toggle_button_get_active(self->scope_ipu) &&
	         gtk_drop_down_get_selected(self->ipu) >= t->num_ipus)
		gtk_drop_down_set_selected(self->ipu, 0);
	j = g_new0(scope_job, 1);
	if (!scope_tiles(self, t, &j->first, &j->count, &j->name)) {
		g_free(j);
		gtk_label_set_text(self->scope_status,
		                   "No tile is selected: type a tile's number, or select tiles in the "
		                   "Memory view.");
		return;
	}
	j->handle = g_atomic_rc_box_acquire(self->handle);
	j->vertices = gtk_toggle_button_get_active(self->show_vertices);
	j->vrows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	j->xrows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
	status = g_strdup_printf("Reading the memory of %s…", j->name);
	gtk_label_set_text(self->scope_status, status);
	spinner = gtk_spinner_new();
	gtk_spinner_start(GTK_SPINNER(spinner));
	gtk_widget_set_halign(spinner, GTK_ALIGN_START);
	gtk_box_append(GTK_BOX(self->scope_tables), spinner);
	task = g_task_new(NULL, tsd_table_start_job(self->variables, NULL), on_scope_done,
	                  g_object_ref(self));
	g_task_set_task_data(task, j, scope_job_free);
	g_task_run_in_thread(task, scope_thread);
	g_object_unref(task);
}

/* A tile typed: select it (in every view) and show the Tile scope; on
 * Enter, and a moment after typing stops (as the Memory view's "Select
 * tiles", so a number written by an assistive tool takes effect too). */
static void on_tile_activate(GaInsightsView *self)
{
	GaDocument *doc = ga_view_get_document(GA_VIEW(self));
	const tsr_target *t = doc ? tsr_report_get_target(ga_document_get_report(doc)) : NULL;
	g_autoptr(GError) error = NULL;
	g_autoptr(GtkBitset) tiles = NULL;

	g_clear_handle_id(&self->tile_timeout, g_source_remove);
	if (!t)
		return;
	tiles = ga_parse_tile_list(gtk_editable_get_text(GTK_EDITABLE(self->tile)), t->num_tiles,
	                           &error);
	if (!tiles) {
		gtk_label_set_text(self->scope_status, error->message);
		return;
	}
	ga_session_set_selected_tiles(ga_view_get_session(GA_VIEW(self)), tiles);
	gtk_toggle_button_set_active(self->scope_tile, TRUE);
}

static gboolean apply_tile(gpointer data)
{
	GaInsightsView *self = data;

	self->tile_timeout = 0;
	on_tile_activate(self);
	return G_SOURCE_REMOVE;
}

static void on_tile_changed(GaInsightsView *self)
{
	if (self->syncing)
		return;
	g_clear_handle_id(&self->tile_timeout, g_source_remove);
	self->tile_timeout = g_timeout_add(500, apply_tile, self);
}

/* The session's tiles changed: the entry shows the lowest, and the Tile
 * scope follows. */
static void on_session_tiles(GaInsightsView *self)
{
	GtkBitset *sel = ga_session_get_selected_tiles(ga_view_get_session(GA_VIEW(self)));
	g_autofree char *lowest = gtk_bitset_is_empty(sel)
	                              ? g_strdup("")
	                              : g_strdup_printf("%u", gtk_bitset_get_minimum(sel));

	self->syncing = TRUE;
	gtk_editable_set_text(GTK_EDITABLE(self->tile), lowest);
	self->syncing = FALSE;
	/* Hidden, the tables wait to be shown (a drag in Memory changes the
	 * tiles many times). */
	self->stale = !gtk_widget_get_mapped(GTK_WIDGET(self));
	if (gtk_toggle_button_get_active(self->scope_tile) && !self->stale)
		on_scope_changed(self, NULL);
}

static void ga_insights_view_map(GtkWidget *widget)
{
	GaInsightsView *self = GA_INSIGHTS_VIEW(widget);

	GTK_WIDGET_CLASS(ga_insights_view_parent_class)->map(widget);
	if (self->stale && gtk_toggle_button_get_active(self->scope_tile))
		on_scope_changed(self, NULL);
	self->stale = FALSE;
	if (self->handle)
		g_atomic_int_set(&self->handle->close, 0);
}

/* Hidden, the view lets go of what its workers' handle loaded: now when
 * no job holds it, else when the running job ends. */
static void ga_insights_view_unmap(GtkWidget *widget)
{
	scope_handle *h = GA_INSIGHTS_VIEW(widget)->handle;

	if (h) {
		g_atomic_int_set(&h->close, 1);
		if (g_mutex_trylock(&h->lock)) {
			g_clear_pointer(&h->r, tsr_report_free);
			g_mutex_unlock(&h->lock);
		}
	}
	GTK_WIDGET_CLASS(ga_insights_view_parent_class)->unmap(widget);
}

/* --- The view --------------------------------------------------------------------- */

/* The page's title: the report's. */
static char *insights_title(gpointer view, GaDocument *doc)
{
	return g_strdup(doc ? ga_document_get_title(doc) : "");
}

/* Refills the sections for the view's document (GaView::document_changed). */
static void rebuild(GaView *view)
{
	GaInsightsView *self = GA_INSIGHTS_VIEW(view);
	GaDocument *doc = ga_view_get_document(view);
	const tsr_summary_figures *s = doc ? ga_document_get_figures(doc) : NULL;
	GtkWidget *box = self->sections;
	uint32_t *fullest = NULL;
	size_t n_fullest = 0;
	tsr_memory_sharing *sharing = NULL;
	char *problem = NULL;

	tsd_widget_remove_children(box);
	{
		const tsr_target *t = doc ? tsr_report_get_target(ga_document_get_report(doc)) : NULL;
		g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);

		/* Before the drop-down's refill, which may ask for the tables. */
		g_clear_pointer(&self->handle, scope_handle_unref);
		if (doc) {
			self->handle = g_atomic_rc_box_new0(scope_handle);
			g_mutex_init(&self->handle->lock);
			self->handle->path = g_file_get_path(ga_document_get_file(doc));
		}
		for (unsigned i = 0; t && i < t->num_ipus; i++)
			g_ptr_array_add(names, g_strdup_printf("IPU %u", i));
		g_ptr_array_add(names, NULL);
		gtk_string_list_splice(self->ipus, 0, g_list_model_get_n_items(G_LIST_MODEL(self->ipus)),
		                       (const char *const *)names->pdata);
		on_scope_changed(self, NULL);
	}
	if (!doc)
		return;
	if (!s || !s->n_memory) {
		ga_view_show_empty(view, "The report holds no memory figures to judge.");
		return;
	}
	/* The page's one ranking of tiles, and every tile's sharing, from
	 * reportlib (a failure leaves the ranking empty or the sharing out,
	 * with the message on the page). */
	{
		tsr_report *report = ga_document_get_report(doc);
		size_t n_tiles;

		ga_document_get_tiles(doc, &n_tiles);
		if (tsr_report_list_largest_tiles(&fullest, &n_fullest, report, -1, false, FULLEST) !=
		    TSR_OK) {
			fullest = NULL;
			n_fullest = 0;
			problem = g_strdup(tsr_report_error(report));
		}
		sharing = g_new0(tsr_memory_sharing, n_tiles ? n_tiles : 1);
		if (tsr_report_fill_sharing_by_tile(sharing, n_tiles, report) != TSR_OK) {
			g_clear_pointer(&sharing, g_free);
			g_free(problem);
			problem = g_strdup(tsr_report_error(report));
		}
	}
	if (problem) {
		g_autofree char *text = g_strdup_printf("Part of this page could not be read: %s",
		                                        problem);

		gtk_label_set_text(self->problem, text);
	}
	gtk_widget_set_visible(GTK_WIDGET(self->problem), problem != NULL);
	add_fit(box, doc, s, fullest, n_fullest);
	add_oom(self, box, doc, s, sharing);
	add_tips(box, doc, s);
	add_fullest(self, box, doc, s, sharing, fullest, n_fullest);
	add_always_live(self, box, doc, s);
	add_worst_steps(self, box, s);
	free(fullest); /* reportlib's, with free() */
	g_free(sharing);
	g_free(problem);
}

/* The session's tiles, once the template is built (GaView's
 * constructed). */
static void ga_insights_view_constructed(GObject *object)
{
	GaInsightsView *self = GA_INSIGHTS_VIEW(object);

	G_OBJECT_CLASS(ga_insights_view_parent_class)->constructed(object);
	tsd_a11y_name_expander(GTK_EXPANDER(self->scope_section), "Memory by scope");
	tsd_a11y_name_dropdown(self->ipu, "IPU in scope");
	/* The base lets go of the session's signals to the view. */
	g_signal_connect_swapped(ga_view_get_session(GA_VIEW(self)), "notify::selected-tiles",
	                         G_CALLBACK(on_session_tiles), self);
	on_session_tiles(self);
}

static void ga_insights_view_dispose(GObject *object)
{
	g_clear_handle_id(&GA_INSIGHTS_VIEW(object)->tile_timeout, g_source_remove);
	g_clear_pointer(&GA_INSIGHTS_VIEW(object)->handle, scope_handle_unref);
	G_OBJECT_CLASS(ga_insights_view_parent_class)->dispose(object);
}

static void ga_insights_view_class_init(GaInsightsViewClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	g_type_ensure(TSD_TYPE_TABLE);
	GA_VIEW_CLASS(klass)->document_changed = rebuild;
	gtk_widget_class_set_css_name(widget_class, "insightsview");
	ga_view_class_set_template(GA_VIEW_CLASS(klass),
	                           "/org/tilescope/GraphAnalyser/ga-insights-view.ui");
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, problem);
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, sections);
	gtk_widget_class_bind_template_callback(widget_class, insights_title);
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, scope_ipu);
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, scope_tile);
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, show_vertices);
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, ipu);
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, ipus);
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, tile);
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, scope_status);
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, scope_section);
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, scope_tables);
	gtk_widget_class_bind_template_child(widget_class, GaInsightsView, variables);
	gtk_widget_class_bind_template_callback(widget_class, on_scope_changed);
	gtk_widget_class_bind_template_callback(widget_class, on_tile_activate);
	gtk_widget_class_bind_template_callback(widget_class, on_tile_changed);
	G_OBJECT_CLASS(klass)->dispose = ga_insights_view_dispose;
	widget_class->map = ga_insights_view_map;
	widget_class->unmap = ga_insights_view_unmap;
	G_OBJECT_CLASS(klass)->constructed = ga_insights_view_constructed;
}

static void ga_insights_view_init(GaInsightsView *self)
{
}

GtkWidget *ga_insights_view_new(GaSession *session)
{
	return g_object_new(GA_TYPE_INSIGHTS_VIEW, "session", session, NULL);
}
