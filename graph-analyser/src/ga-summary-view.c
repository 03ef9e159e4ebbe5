/*
 * The Summary view (ga-summary-view.h). It is rebuilt from the document's
 * gathered figures (ga_document_get_figures) whenever the session's
 * document changes; nothing here reads the file. Numbers are formatted
 * as the text summary formats them (ga-format.h); value labels are
 * selectable, named for screen readers by their visible caption, and
 * carry their JSON key path as the widget's name for the tests.
 * In compare mode the page is ga-summary-compare.h's table instead.
 */
#include "ga-summary-view.h"

#include "ga-figures.h"
#include "ga-format.h"
#include "ga-summary-compare.h"

#include <tilescope/tsd-name.h>
#include <tilescope/tsd-widget.h>

#include <inttypes.h>

/* Rows of long lists before "and N more". */
#define LIST_CAP 25

struct _GaSummaryView {
	GaView parent_instance;
	/* From the template (ga-summary-view.ui). */
	GtkWidget *sections;        /* the box of sections, refilled */
	GtkEditable *filter;        /* the compare header's metric filter */
};

G_DEFINE_FINAL_TYPE(GaSummaryView, ga_summary_view, GA_TYPE_VIEW)

/* A row of a figure grid (ga_figure_grid_add): a caption at `indent`,
 * then its value, which is `text` when set, else `value` with thousands
 * separators (ROW_SIZE: as a size, the exact bytes in its tooltip), its
 * unit and its key path (NULL: none); a heading has no value. */
typedef enum { ROW_NUMBER, ROW_SIZE, ROW_HEADING } row_kind;
typedef struct figure_row {
	int indent;
	const char *label;
	uint64_t value;
	const char *key, *unit;
	row_kind kind;
	const char *text;
} figure_row;

/* The rows of the tables below. */
#define COUNT(indent, label, value, key) {indent, label, value, key, NULL, ROW_NUMBER, NULL}
#define BYTES(indent, label, value, key) {indent, label, value, key, "B", ROW_NUMBER, NULL}
#define FIGURE(indent, label, value, key, unit) {indent, label, value, key, unit, ROW_NUMBER, NULL}
#define TEXT(indent, label, text, key, unit) {indent, label, 0, key, unit, ROW_NUMBER, text}
#define SIZE(label, value) {0, label, value, NULL, NULL, ROW_SIZE, NULL}
#define HEADING(indent, label) {indent, label, 0, NULL, NULL, ROW_HEADING, NULL}

/* A size as the text shows it, with the exact bytes as a tooltip. */
static void size_row(GtkWidget *grid, const char *label, uint64_t bytes)
{
	g_autofree char *text = ga_format_size(bytes);
	g_autofree char *tip = ga_format_u64_with(bytes, " B");
	GtkWidget *v = ga_figure_grid_add(grid, 0, label, text, NULL, NULL);
	g_autofree char *said = g_strdup_printf("%s (%s)", text, tip);

	gtk_widget_set_tooltip_text(v, tip);
	/* GTK 4.8 makes the tooltip the description: the value first. */
	gtk_accessible_update_property(GTK_ACCESSIBLE(v), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, said,
	                               -1);
}

/* Appends `rows` to `grid`, their keys under `prefix` ("memory[1]";
 * NULL: the keys as they are). */
static void add_rows(GtkWidget *grid, const figure_row *rows, size_t n, const char *prefix)
{
	for (size_t i = 0; i < n; i++) {
		const figure_row *r = &rows[i];
		g_autofree char *key = prefix && r->key ? g_strdup_printf("%s.%s", prefix, r->key)
		                                        : g_strdup(r->key);

		if (r->kind == ROW_HEADING)
			ga_figure_grid_add(grid, r->indent, r->label, NULL, NULL, NULL);
		else if (r->kind == ROW_SIZE)
			size_row(grid, r->label, r->value);
		else if (r->text)
			ga_figure_grid_add(grid, r->indent, r->label, r->text, r->unit, key);
		else
			ga_figure_grid_add_u64(grid, r->indent, r->label, r->value, r->unit, key);
	}
}

/* A section of `box` holding a grid of `rows`; returns the grid, and in
 * *content (may be NULL) the section's box, to append more to. */
static GtkWidget *add_section(GtkWidget *box, const char *title, const figure_row *rows,
                              size_t n, GtkWidget **content)
{
	GtkWidget *inner, *grid = ga_figure_grid_new();

	gtk_box_append(GTK_BOX(box), ga_section_new(title, TRUE, &inner));
	gtk_box_append(GTK_BOX(inner), grid);
	add_rows(grid, rows, n, NULL);
	if (content)
		*content = inner;
	return grid;
}

static void add_target(GtkWidget *box, const tsr_summary_figures *s)
{
	const tsr_target *tg = s->target;
	uint64_t rf = tg->replication_factor ? tg->replication_factor : 1;
	g_autofree char *mhz = ga_format_1dp((double)tg->clock_frequency / 1e6);
	g_autofree char *type = ga_format_name(tg->type), *tname = ga_format_name(tg->name);
	g_autofree char *version = ga_format_name(tg->version_name);
	g_autofree char *ipu = g_strdup_printf("%s %s (%s)", type, tname, version);
	const figure_row rows[] = {
		TEXT(0, "Target", ipu, NULL, NULL),
		COUNT(0, "Number of IPUs", tg->num_ipus * rf, "target.numIpus"),
		COUNT(0, "Tiles per IPU", tg->tiles_per_ipu, "target.tilesPerIpu"),
		COUNT(0, "Total tiles", tg->num_tiles * rf, "target.totalTiles"),
		SIZE("Memory per tile", tg->bytes_per_tile),
		SIZE("Total memory",
		     tg->total_memory > UINT64_MAX / rf ? UINT64_MAX : tg->total_memory * rf),
		TEXT(0, "Clock speed (approx)", mhz, NULL, "MHz"),
		COUNT(0, "Number of replicas", rf, "target.numReplicas"),
		COUNT(0, "IPUs per replica", tg->num_ipus, "target.ipusPerReplica"),
		COUNT(0, "Tiles per replica", tg->num_tiles, "target.tilesPerReplica"),
		SIZE("Memory per replica", tg->total_memory),
	};

	add_section(box, "Target", rows, G_N_ELEMENTS(rows), NULL);
}

static void add_graph(GtkWidget *box, const tsr_summary_figures *s)
{
	const tsr_graph_counts *c = s->counts;
	const figure_row rows[] = {
		COUNT(0, "Number of vertices", c->vertices, "graph.numVertices"),
		COUNT(0, "Number of edges", c->edges, "graph.numEdges"),
		COUNT(0, "Number of variables", c->variables, "graph.numVariables"),
		COUNT(0, "Number of compute sets", c->compute_sets, "graph.numComputeSets"),
		HEADING(0, "Listed in the report"),
		COUNT(1, "Programs", c->programs, NULL),
		COUNT(1, "Engine programs", c->control_programs, NULL),
		COUNT(1, "Functions", c->function_programs, NULL),
		COUNT(1, "Vertex types", c->vertex_types, NULL),
		COUNT(1, "Internal exchanges", c->internal_exchanges, NULL),
		COUNT(1, "External exchanges", c->external_exchanges, NULL),
		COUNT(1, "Host exchanges", c->host_exchanges, NULL),
		COUNT(1, "Variables", c->listed_variables, NULL),
		COUNT(1, "Liveness steps", c->liveness_steps, NULL),
		COUNT(1, "Debug contexts", c->debug_contexts, NULL),
		COUNT(1, "Runs", c->runs, NULL),
	};

	add_section(box, "Graph", rows, G_N_ELEMENTS(rows), NULL);
}

/* The "By Data Type" rows of one kind. */
static void add_data_type(GtkWidget *grid, const tsr_summary_memory *m, const char *prefix,
                          gboolean overlapped)
{
	const char *kind = overlapped ? "overlapped" : "notOverlapped";
	const figure_row heading = HEADING(1, overlapped ? "Overlapped" : "Not overlapped");
	const figure_row totals[] = {
		BYTES(2, "Total", overlapped ? m->overlapped : m->not_overlapped,
		      overlapped ? "byDataType.overlappedTotal" : "byDataType.notOverlappedTotal"),
		BYTES(2, "Total after overlapping", m->after_overlapping,
		      "byDataType.totalAfterOverlapping"),
	};

	add_rows(grid, &heading, 1, prefix);
	for (size_t i = 0; i < m->n_categories; i++) {
		const tsr_category_memory *c = &m->categories[i].memory;
		const char *name = tsr_category_name(c->category);
		g_autofree char *key = g_strdup_printf("byDataType.%s.%s", kind, name ? name : "?");
		figure_row row = BYTES(2, m->categories[i].label ? m->categories[i].label : "?",
		                       overlapped ? c->overlapped : c->non_overlapped, key);

		if (row.value)
			add_rows(grid, &row, 1, prefix);
	}
	add_rows(grid, totals, overlapped ? 2 : 1, prefix);
}

/* "0-3, 7" of up to 32 ranges, then "and N more". */
static char *tile_ranges(const uint32_t *tiles, size_t n)
{
	GString *s = g_string_new(NULL);
	size_t ranges = 0, i = 0;

	while (i < n && ranges < 32) {
		size_t j = i;

		while (j + 1 < n && tiles[j + 1] == tiles[j] + 1)
			j++;
		g_string_append_printf(s, "%s%" PRIu32, ranges ? ", " : "", tiles[i]);
		if (j > i)
			g_string_append_printf(s, "-%" PRIu32, tiles[j]);
		ranges++;
		i = j + 1;
	}
	if (i < n)
		g_string_append_printf(s, " and %zu more", n - i);
	return g_string_free(s, FALSE);
}

/* The maximum of a part: bytes, then "B (284.4 KiB) on tile 52". */
static char *max_unit(uint64_t bytes, uint32_t tile)
{
	g_autofree char *kib = ga_format_1dp((double)bytes / 1024.0);

	return g_strdup_printf("B (%s KiB) on tile %" PRIu32, kib, tile);
}

/* A capped list of names and their bytes ("1,234 B") under a heading. */
static void add_bytes_list(GtkWidget *content, const char *heading, const char *name,
                           const tsr_summary_named_bytes *items, size_t n)
{
	GtkWidget *list = ga_list_new(name, FALSE);
	size_t shown = MIN(n, (size_t)LIST_CAP);

	gtk_box_append(GTK_BOX(content), ga_heading_new(heading));
	for (size_t i = 0; i < shown; i++) {
		g_autofree char *bytes = ga_format_u64_with(items[i].bytes, " B");
		const char *cells[] = {items[i].name, bytes};

		ga_list_add(list, cells, 2);
	}
	ga_list_finish(list, shown, n);
	gtk_widget_set_halign(list, GTK_ALIGN_START);
	gtk_box_append(GTK_BOX(content), list);
}

static void add_memory_part(GtkWidget *box, const tsr_summary_figures *s, size_t index)
{
	const tsr_summary_memory *m = &s->memory[index];
	const tsr_memory_totals *t = &m->totals;
	const tsr_vertex_memory *v = &m->vertex;
	g_autofree char *prefix = g_strdup_printf("memory[%zu]", index);
	g_autofree char *title = m->ipu < 0 ? g_strdup("All IPUs") : g_strdup_printf("IPU %d", m->ipu);
	g_autofree char *max_with = max_unit(t->max_tile_bytes, t->max_tile);
	g_autofree char *max_without = max_unit(t->max_tile_excluding_gaps_bytes,
	                                        t->max_tile_excluding_gaps);
	const figure_row regions[] = {
		BYTES(0, "Capacity", t->capacity, "capacity"),
		BYTES(0, "Including gaps", t->total_including_gaps, "includingGaps"),
		HEADING(0, "Excluding gaps, by memory region"),
		BYTES(1, "Non-interleaved", t->region[TSR_REGION_NON_INTERLEAVED],
		      "byRegion.nonInterleaved"),
		BYTES(1, "Interleaved", t->region[TSR_REGION_INTERLEAVED], "byRegion.interleaved"),
		BYTES(1, "Overflowed", t->region[TSR_REGION_OVERFLOWED], "byRegion.overflowed"),
		BYTES(1, "Total", t->total, "excludingGaps"),
		HEADING(0, "Excluding gaps, by data type"),
	};
	const figure_row vertex[] = {
		HEADING(0, "Vertex data"),
		BYTES(1, "Total (without code)", m->vertex_data, "vertexData.total"),
		BYTES(1, "Internal vertex state", v->vertex_data, "vertexData.internalVertexState"),
		BYTES(1, "Edge pointers", v->edge_ptr, "vertexData.edgePointers"),
		BYTES(1, "Copy pointers", v->copy_ptr, "vertexData.copyPointers"),
		BYTES(1, "Padding", v->padding, "vertexData.padding"),
		BYTES(1, "Descriptors", v->descriptor, "vertexData.descriptors"),
	};
	const figure_row maxima[] = {
		FIGURE(0, "Maximum (including gaps)", t->max_tile_bytes, "maxTileIncludingGaps.bytes", max_with),
		FIGURE(0, "Maximum (excluding gaps)", t->max_tile_excluding_gaps_bytes,
		       "maxTileExcludingGaps.bytes", max_without),
		COUNT(0, "Tiles out of memory", m->n_oom_tiles, "outOfMemoryTiles.length"),
	};
	GtkWidget *content, *grid = ga_figure_grid_new(), *tiles = ga_figure_grid_new();

	gtk_box_append(GTK_BOX(box), ga_section_new(title, index == 0, &content));
	gtk_box_append(GTK_BOX(content), grid);
	add_rows(grid, regions, G_N_ELEMENTS(regions), prefix);
	add_data_type(grid, m, prefix, FALSE);
	add_data_type(grid, m, prefix, TRUE);
	add_rows(grid, vertex, G_N_ELEMENTS(vertex), prefix);
	if (m->n_vertex_types)
		add_bytes_list(content, "Vertex data by type (with code), fullest first",
		               "Vertex data by type", m->vertex_types, m->n_vertex_types);
	gtk_box_append(GTK_BOX(content), ga_heading_new("By tile (excluding gaps)"));
	gtk_box_append(GTK_BOX(content), ga_histogram_new(m));
	gtk_box_append(GTK_BOX(content), tiles);
	add_rows(tiles, maxima, G_N_ELEMENTS(maxima), prefix);
	if (m->n_oom_tiles) {
		g_autofree char *ranges = tile_ranges(m->oom_tiles, m->n_oom_tiles);
		g_autofree char *per_tile = ga_format_u64(s->target->bytes_per_tile);
		g_autofree char *title2 = g_strdup_printf("Largest tiles (including gaps, of %s B per tile)",
		                                          per_tile);
		GtkWidget *oom = ga_figure_grid_add(tiles, 0, "Out of memory on tiles", ranges, NULL,
		                                    NULL);
		GtkWidget *list = ga_list_new("Largest tiles", FALSE);

		gtk_widget_add_css_class(oom, "error");
		gtk_label_set_wrap(GTK_LABEL(oom), TRUE);
		gtk_label_set_max_width_chars(GTK_LABEL(oom), 60);
		gtk_box_append(GTK_BOX(content), ga_heading_new(title2));
		for (size_t i = 0; i < m->n_largest_tiles; i++) {
			g_autofree char *name = g_strdup_printf("Tile %" PRIu32, m->largest_tiles[i].tile);
			g_autofree char *b = ga_format_u64(m->largest_tiles[i].bytes);
			g_autofree char *k1 = ga_format_1dp((double)m->largest_tiles[i].bytes / 1024.0);
			g_autofree char *bb = g_strdup_printf("%s B (%s KiB)", b, k1);
			const char *cells[] = {name, bb};
			GtkWidget *row = ga_list_add(list, cells, 2);

			if (m->largest_tiles[i].bytes > s->target->bytes_per_tile)
				gtk_widget_add_css_class(row, "error");
		}
		gtk_widget_set_halign(list, GTK_ALIGN_START);
		gtk_box_append(GTK_BOX(content), list);
	}
}

static void add_memory(GtkWidget *box, const tsr_summary_figures *s)
{
	GtkWidget *content;

	gtk_box_append(GTK_BOX(box), ga_section_new("Memory", TRUE, &content));
	for (size_t i = 0; i < s->n_memory; i++)
		add_memory_part(content, s, i);
}

/* The peak liveness step's program: "Sequence: step name". */
static char *peak_program(const tsr_summary_figures *s)
{
	const tsr_summary_liveness_step *ls = &s->liveness_steps[s->peak_step];
	g_autofree char *name = ls->name ? ga_format_name(ls->name) : NULL;
	const char *type = tsr_program_type_name(ls->program_type);

	if (!type)
		type = "?";
	return name ? g_strdup_printf("%s: %s", type, name) : g_strdup(type);
}

static void add_liveness(GtkWidget *box, const tsr_summary_figures *s)
{
	g_autofree char *what = s->has_peak && s->peak_step < s->n_liveness_steps
	                            ? peak_program(s)
	                            : NULL;
	const figure_row rows[] = {
		BYTES(0, "Always-live bytes", s->always_live_bytes, "liveness.alwaysLiveBytes"),
		BYTES(0, "Maximum live bytes (including always-live)", s->max_live_bytes,
		      "liveness.maxLiveBytes"),
		FIGURE(0, "Peak liveness step", s->peak_step, "liveness.peakStep", what),
		BYTES(0, "Live bytes at the peak (excluding always-live)", s->peak_bytes, NULL),
	};
	const figure_row no_peak = TEXT(0, "Peak liveness step", "none", "liveness.peakStep",
	                                "(no liveness steps)");
	GtkWidget *content, *grid = add_section(box, "Liveness", rows, 2, &content);

	add_rows(grid, s->has_peak ? rows + 2 : &no_peak, s->has_peak ? 2 : 1, NULL);
	if (s->n_always_live) {
		size_t n;
		g_autofree tsr_summary_named_bytes *sorted = ga_always_live_sorted(s, FALSE, &n);

		add_bytes_list(content, "Always-live variables, largest first",
		               "Always-live variables", sorted, n);
	}
}

/* The run: "0 of runs 0-2", and its program "(epoch, engine program 3)"
 * in *unit. */
static char *run_text(const tsr_summary_figures *s, char **unit)
{
	/* Numbered from 0, as the run pickers and `tilescope summary`. */
	g_autofree char *run = ga_format_u64(s->run);
	g_autofree char *runs = ga_format_u64(s->n_runs - 1);
	g_autofree char *prog = ga_format_u64(s->program);
	/* The program by its name, as `tilescope summary` prints it. */
	g_autofree char *name = s->program_name
	                            ? tsd_name_cut_to(s->program_name, GA_RUN_NAME_CHARS)
	                            : NULL;

	*unit = name ? g_strdup_printf("(%s, engine program %s)", name, prog)
	             : g_strdup_printf("(engine program %s)", prog);
	return s->n_runs > 1 ? g_strdup_printf("%s of runs 0-%s", run, runs)
	                     : g_strdup_printf("%s (the only run)", run);
}

static void add_execution(GtkWidget *box, const tsr_summary_figures *s)
{
	const tsr_tile_cycles *tc = &s->activity.tile_cycles;
	g_autofree char *program = NULL, *run = s->has_run ? run_text(s, &program) : NULL;
	g_autofree char *us = ga_format_1dp(s->flops.seconds * 1e6);
	g_autofree char *cycles = g_strdup_printf("(approx %s microseconds)", us);
	g_autofree char *tb = ga_format_pct(s->tile_balance), *thb = ga_format_pct(s->thread_balance);
	g_autofree char *rate = ga_format_1dp(s->flops.flops_per_second / 1e9);
	g_autofree char *peak = ga_format_1dp(s->flops.peak_flops_per_second / 1e9);
	g_autofree char *util = ga_format_pct(s->flops.utilisation);
	const figure_row rows[] = {
		TEXT(0, "Run", run, NULL, program),
		FIGURE(0, "Total cycles", s->activity.cycles, "execution.totalCycles", cycles),
		HEADING(0, "Tile cycles, summed over tiles"),
		COUNT(1, "Compute (including idle threads)", tc->compute, "execution.computeCycles"),
		COUNT(1, "Compute (excluding idle threads)", tc->active_compute,
		      "execution.activeComputeCycles"),
		COUNT(1, "IPU exchange", tc->do_exchange, "execution.ipuExchangeCycles"),
		COUNT(1, "Global exchange", tc->global_exchange, "execution.globalExchangeCycles"),
		COUNT(1, "Host exchange", tc->stream_copy, "execution.hostExchangeCycles"),
		COUNT(1, "Shared structure copy", tc->copy_shared_structure,
		      "execution.sharedStructureCopyCycles"),
		COUNT(1, "Sync", tc->sync, "execution.syncCycles"),
		TEXT(0, "Total tile balance", tb, "execution.tileBalance", NULL),
		TEXT(0, "Total thread balance", thb, "execution.threadBalance", NULL),
		HEADING(0, "Activity: steps and their cycles"),
	};
	const figure_row flops[] = {
		HEADING(0, "FLOPs (fp32)"),
		COUNT(1, "Floating-point operations", s->flops.flops, NULL),
		TEXT(1, "Rate", rate, NULL, "GFLOP/s"),
		TEXT(1, "Peak of the target", peak, NULL, "GFLOP/s"),
		TEXT(1, "Utilisation", util, NULL, NULL),
	};
	GtkWidget *content, *grid;

	if (!s->has_run) {
		gtk_box_append(GTK_BOX(box), ga_section_new("Execution", TRUE, &content));
		gtk_box_append(GTK_BOX(content),
		               ga_note_new("No execution profile: the report holds no runs."));
		return;
	}
	grid = add_section(box, "Execution", rows, G_N_ELEMENTS(rows), NULL);
	for (int t = 0; t < TSR_STEP_TYPE_COUNT; t++) {
		g_autofree char *n = NULL, *pct = NULL, *what = NULL;

		if (!s->activity.steps[t])
			continue;
		n = ga_format_u64(s->activity.steps[t]);
		pct = ga_format_pct(s->activity.cycles ? (double)s->activity.step_cycles[t] /
		                                             (double)s->activity.cycles
		                                       : NAN);
		what = g_strdup_printf("cycles in %s step%s (%s of the run)", n,
		                       s->activity.steps[t] == 1 ? "" : "s", pct);
		ga_figure_grid_add_u64(grid, 1, tsr_step_type_name((tsr_step_type)t),
		                       s->activity.step_cycles[t], what, NULL);
	}
	add_rows(grid, flops, G_N_ELEMENTS(flops), NULL);
}

static void add_vertex_type_cycles(GtkWidget *box, const tsr_summary_figures *s)
{
	GtkWidget *content, *list;
	size_t shown = MIN(s->n_vertex_type_cycles, (size_t)LIST_CAP);

	if (!s->has_run)
		return;
	gtk_box_append(GTK_BOX(box), ga_section_new("Cycles by vertex type", TRUE, &content));
	if (!s->n_vertex_type_cycles) {
		gtk_box_append(GTK_BOX(content), ga_note_new("No vertex ran in this run."));
		return;
	}
	list = ga_list_new("Cycles by vertex type", FALSE);
	for (size_t i = 0; i < shown; i++) {
		const tsr_vertex_type_cycles *c = &s->vertex_type_cycles[i];
		g_autofree char *instances = ga_format_u64_with(c->instances, " instances");
		g_autofree char *cycles = ga_format_u64_with(c->cycles, " cycles");
		const char *cells[] = {
			c->vertex_type < s->n_vertex_types ? s->vertex_types[c->vertex_type].name : "?",
			instances, cycles};

		ga_list_add(list, cells, 3);
	}
	ga_list_finish(list, shown, s->n_vertex_type_cycles);
	gtk_widget_set_halign(list, GTK_ALIGN_START);
	gtk_box_append(GTK_BOX(content), list);
}

static void add_options(GtkWidget *box, const tsr_report_info *info)
{
	GtkWidget *content, *grid;

	gtk_box_append(GTK_BOX(box), ga_section_new("Engine options", info && info->n_options <= 12,
	                                            &content));
	if (!info || info->n_options == 0) {
		gtk_box_append(GTK_BOX(content), ga_note_new("The report records no engine options."));
		return;
	}
	grid = ga_figure_grid_new();
	gtk_box_append(GTK_BOX(content), grid);
	for (size_t i = 0; i < info->n_options; i++) {
		g_autofree char *name = ga_format_name(info->option_names[i]);
		g_autofree char *value = ga_format_name(info->option_values[i]);
		GtkWidget *v = ga_figure_grid_add(grid, 0, name, value, NULL, NULL);

		gtk_label_set_xalign(GTK_LABEL(v), 0);
	}
}

static void add_metadata(GtkWidget *box, GaDocument *doc)
{
	const tsr_report_info *info = tsr_report_get_info(ga_document_get_report(doc));
	g_autofree char *path = g_file_get_path(ga_document_get_file(doc));
	g_autofree char *load = g_strdup_printf("%.2f", ga_document_get_load_seconds(doc));
	g_autofree char *schema = NULL;
	GtkWidget *content, *grid = ga_figure_grid_new();
	const char *debug = tsr_report_get_debug_info_path(ga_document_get_report(doc));
	struct {
		const char *label, *value;
	} rows[] = {
		{"File", path},
		{"Debug information", debug ? debug : "none"},
		{"Created (UTC)", info ? info->created : NULL},
		{"Written by Tilescope", info ? info->tilescope_version : NULL},
		{"Command line", info ? info->command_line : NULL},
		{"Engine", info ? info->engine_name : NULL},
		{"Profiler mode", info ? info->profiler_name : NULL},
	};

	gtk_box_append(GTK_BOX(box), ga_section_new("Report", TRUE, &content));
	gtk_box_append(GTK_BOX(content), grid);
	for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
		/* Paths and command lines are read whole, wrapped, up to a
		 * bound: the file may hold anything there. */
		g_autofree char *value = tsd_name_cut_to(rows[i].value ? rows[i].value : "unknown",
		                                         1024);
		GtkWidget *v = ga_figure_grid_add(grid, 0, rows[i].label, value, NULL, NULL);

		gtk_label_set_xalign(GTK_LABEL(v), 0);
		gtk_label_set_wrap(GTK_LABEL(v), TRUE);
		gtk_label_set_wrap_mode(GTK_LABEL(v), PANGO_WRAP_WORD_CHAR);
		gtk_label_set_max_width_chars(GTK_LABEL(v), 80);
	}
	if (info) {
		schema = g_strdup_printf("%u%s", info->schema_version,
		                         info->lowered_vars ? " (compiler allocations listed)" : "");
		gtk_label_set_xalign(GTK_LABEL(ga_figure_grid_add(grid, 0, "Schema version", schema,
		                                                  NULL, NULL)),
		                     0);
	}
	gtk_label_set_xalign(GTK_LABEL(ga_figure_grid_add(grid, 0, "Load time", load, "s", NULL)), 0);
}

/* The page's title: the report's, or "A vs B" comparing. */
static char *summary_title(gpointer view, GaDocument *doc, GaDocument *compare)
{
	if (doc && compare)
		return g_strdup_printf("%s vs %s", ga_document_get_title(doc),
		                       ga_document_get_title(compare));
	return g_strdup(doc ? ga_document_get_title(doc) : "");
}

/* "A  tut7_mk1 — /path/profile.pop": which report is which. */
static char *summary_which(gpointer view, const char *letter, GaDocument *doc)
{
	g_autofree char *path = doc ? g_file_get_parse_name(ga_document_get_file(doc)) : NULL;

	return doc ? g_strdup_printf("%s  %s — %s", letter, ga_document_get_title(doc), path)
	           : g_strdup("");
}

/* The filter, typed or cleared: the compare sections again. */
static void on_filter_changed(GtkSearchEntry *entry, gpointer data)
{
	GaView *view = data;

	if (ga_view_get_compare(view))
		ga_summary_compare_fill(GA_SUMMARY_VIEW(view)->sections,
		                        ga_view_get_compare_document(view),
		                        gtk_editable_get_text(GA_SUMMARY_VIEW(view)->filter));
}

/* Refills the sections for the view's document (GaView::document_changed). */
static void rebuild(GaView *view)
{
	GaSummaryView *self = GA_SUMMARY_VIEW(view);
	GaDocument *doc = ga_view_get_document(view);
	const tsr_summary_figures *s = doc ? ga_document_get_figures(doc) : NULL;
	GtkWidget *box = self->sections;

	tsd_widget_remove_children(box);
	if (ga_view_get_compare(view)) {
		/* A new pair starts unfiltered. */
		gtk_editable_set_text(self->filter, "");
		ga_summary_compare_fill(box, ga_view_get_compare_document(view), NULL);
		return;
	}
	if (!s)
		return;
	add_target(box, s);
	add_graph(box, s);
	add_memory(box, s);
	add_liveness(box, s);
	add_execution(box, s);
	add_vertex_type_cycles(box, s);
	add_options(box, tsr_report_get_info(ga_document_get_report(doc)));
	add_metadata(box, doc);
}

static void ga_summary_view_class_init(GaSummaryViewClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	GA_VIEW_CLASS(klass)->document_changed = rebuild;
	gtk_widget_class_set_css_name(widget_class, "summaryview");
	ga_view_class_set_template(GA_VIEW_CLASS(klass),
	                           "/org/tilescope/GraphAnalyser/ga-summary-view.ui");
	gtk_widget_class_bind_template_child(widget_class, GaSummaryView, sections);
	gtk_widget_class_bind_template_child(widget_class, GaSummaryView, filter);
	gtk_widget_class_bind_template_callback(widget_class, summary_title);
	gtk_widget_class_bind_template_callback(widget_class, summary_which);
	gtk_widget_class_bind_template_callback(widget_class, on_filter_changed);
}

static void ga_summary_view_init(GaSummaryView *self)
{
}

GtkWidget *ga_summary_view_new(GaSession *session)
{
	return g_object_new(GA_TYPE_SUMMARY_VIEW, "session", session, NULL);
}
