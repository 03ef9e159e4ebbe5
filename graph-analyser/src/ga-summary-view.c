/*
 * The Summary view (ga-summary-view.h). It is rebuilt from the document's
 * gathered figures (ga_document_get_figures) whenever the session's
 * document changes; nothing here reads the file. Numbers are formatted
 * as the text summary formats them (ga-format.h), value labels are
 * selectable and named by their JSON key path for the AT-SPI tests.
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

/* A key path "memory[1].byRegion.interleaved"; g_free. */
static char *key(const char *prefix, const char *rest)
{
	return g_strdup_printf("%s.%s", prefix, rest);
}

/* A row of bytes keyed prefix.rest. */
static void bytes_row(GtkWidget *grid, int indent, const char *label, uint64_t bytes,
                      const char *prefix, const char *rest)
{
	g_autofree char *k = rest ? key(prefix, rest) : NULL;

	ga_figure_grid_add_u64(grid, indent, label, bytes, "B", k);
}

/* A size as the text shows it, with the exact bytes as a tooltip. */
static void size_row(GtkWidget *grid, const char *label, uint64_t bytes)
{
	g_autofree char *text = ga_format_size(bytes);
	g_autofree char *exact = ga_format_u64(bytes);
	g_autofree char *tip = g_strdup_printf("%s B", exact);
	GtkWidget *v = ga_figure_grid_add(grid, 0, label, text, NULL, NULL);
	g_autofree char *said = g_strdup_printf("%s (%s)", text, tip);

	gtk_widget_set_tooltip_text(v, tip);
	/* GTK 4.8 makes the tooltip the description: the value first. */
	gtk_accessible_update_property(GTK_ACCESSIBLE(v), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, said,
	                               -1);
}

/* A heading over what follows in `content`. */
static void add_heading(GtkWidget *content, const char *text)
{
	GtkWidget *heading = gtk_label_new(text);

	gtk_label_set_xalign(GTK_LABEL(heading), 0);
	gtk_widget_add_css_class(heading, "heading");
	gtk_box_append(GTK_BOX(content), heading);
}

static void add_target(GtkWidget *box, const tsr_summary_figures *s)
{
	const tsr_target *tg = s->target;
	uint64_t rf = tg->replication_factor ? tg->replication_factor : 1;
	g_autofree char *mhz = ga_format_1dp((double)tg->clock_frequency / 1e6);
	g_autofree char *type = ga_format_name(tg->type), *tname = ga_format_name(tg->name);
	g_autofree char *version = ga_format_name(tg->version_name);
	g_autofree char *ipu = g_strdup_printf("%s %s (%s)", type, tname, version);
	GtkWidget *content, *grid = ga_figure_grid_new();

	gtk_box_append(GTK_BOX(box), ga_section_new("Target", TRUE, &content));
	gtk_box_append(GTK_BOX(content), grid);
	ga_figure_grid_add(grid, 0, "Target", ipu, NULL, NULL);
	ga_figure_grid_add_u64(grid, 0, "Number of IPUs", tg->num_ipus * rf, NULL, "target.numIpus");
	ga_figure_grid_add_u64(grid, 0, "Tiles per IPU", tg->tiles_per_ipu, NULL,
	                       "target.tilesPerIpu");
	ga_figure_grid_add_u64(grid, 0, "Total tiles", tg->num_tiles * rf, NULL, "target.totalTiles");
	size_row(grid, "Memory per tile", tg->bytes_per_tile);
	size_row(grid, "Total memory",
	         tg->total_memory > UINT64_MAX / rf ? UINT64_MAX : tg->total_memory * rf);
	ga_figure_grid_add(grid, 0, "Clock speed (approx)", mhz, "MHz", NULL);
	ga_figure_grid_add_u64(grid, 0, "Number of replicas", rf, NULL, "target.numReplicas");
	ga_figure_grid_add_u64(grid, 0, "IPUs per replica", tg->num_ipus, NULL,
	                       "target.ipusPerReplica");
	ga_figure_grid_add_u64(grid, 0, "Tiles per replica", tg->num_tiles, NULL,
	                       "target.tilesPerReplica");
	size_row(grid, "Memory per replica", tg->total_memory);
}

static void add_graph(GtkWidget *box, const tsr_summary_figures *s)
{
	const tsr_graph_counts *c = s->counts;
	GtkWidget *content, *grid = ga_figure_grid_new();

	gtk_box_append(GTK_BOX(box), ga_section_new("Graph", TRUE, &content));
	gtk_box_append(GTK_BOX(content), grid);
	ga_figure_grid_add_u64(grid, 0, "Number of vertices", c->vertices, NULL, "graph.numVertices");
	ga_figure_grid_add_u64(grid, 0, "Number of edges", c->edges, NULL, "graph.numEdges");
	ga_figure_grid_add_u64(grid, 0, "Number of variables", c->variables, NULL,
	                       "graph.numVariables");
	ga_figure_grid_add_u64(grid, 0, "Number of compute sets", c->compute_sets, NULL,
	                       "graph.numComputeSets");
	ga_figure_grid_add(grid, 0, "Listed in the report", NULL, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "Programs", c->programs, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "Engine programs", c->control_programs, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "Functions", c->function_programs, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "Vertex types", c->vertex_types, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "Internal exchanges", c->internal_exchanges, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "External exchanges", c->external_exchanges, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "Host exchanges", c->host_exchanges, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "Variables", c->listed_variables, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "Liveness steps", c->liveness_steps, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "Debug contexts", c->debug_contexts, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "Runs", c->runs, NULL, NULL);
}

/* The "By Data Type" rows of one kind. */
static void add_data_type(GtkWidget *grid, const tsr_summary_memory *m, const char *prefix,
                          gboolean overlapped)
{
	const char *kind = overlapped ? "overlapped" : "notOverlapped";

	ga_figure_grid_add(grid, 1, overlapped ? "Overlapped" : "Not overlapped", NULL, NULL, NULL);
	for (size_t i = 0; i < m->n_categories; i++) {
		const tsr_category_memory *c = &m->categories[i].memory;
		uint64_t bytes = overlapped ? c->overlapped : c->non_overlapped;
		g_autofree char *rest = NULL;

		if (!bytes)
			continue;
		rest = g_strdup_printf("byDataType.%s.%s", kind,
		                       tsr_category_name(c->category) ? tsr_category_name(c->category)
		                                                      : "?");
		bytes_row(grid, 2, m->categories[i].label ? m->categories[i].label : "?", bytes, prefix,
		          rest);
	}
	if (overlapped) {
		bytes_row(grid, 2, "Total", m->overlapped, prefix, "byDataType.overlappedTotal");
		bytes_row(grid, 2, "Total after overlapping", m->after_overlapping, prefix,
		          "byDataType.totalAfterOverlapping");
	} else {
		bytes_row(grid, 2, "Total", m->not_overlapped, prefix, "byDataType.notOverlappedTotal");
	}
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
static void max_row(GtkWidget *grid, const char *label, uint64_t bytes, uint32_t tile,
                    const char *prefix, const char *rest)
{
	g_autofree char *k = key(prefix, rest);
	g_autofree char *text = ga_format_u64(bytes);
	g_autofree char *kib = ga_format_1dp((double)bytes / 1024.0);
	g_autofree char *unit = g_strdup_printf("B (%s KiB) on tile %" PRIu32, kib, tile);

	ga_figure_grid_add(grid, 0, label, text, unit, k);
}

static void add_memory_part(GtkWidget *box, const tsr_summary_figures *s, size_t index)
{
	const tsr_summary_memory *m = &s->memory[index];
	const tsr_memory_totals *t = &m->totals;
	const tsr_vertex_memory *v = &m->vertex;
	g_autofree char *prefix = g_strdup_printf("memory[%zu]", index);
	g_autofree char *title = m->ipu < 0 ? g_strdup("All IPUs") : g_strdup_printf("IPU %d", m->ipu);
	GtkWidget *content, *grid = ga_figure_grid_new(), *tiles = ga_figure_grid_new();

	gtk_box_append(GTK_BOX(box), ga_section_new(title, index == 0, &content));
	gtk_box_append(GTK_BOX(content), grid);
	bytes_row(grid, 0, "Capacity", m->totals.capacity, prefix, "capacity");
	bytes_row(grid, 0, "Including gaps", t->total_including_gaps, prefix, "includingGaps");
	ga_figure_grid_add(grid, 0, "Excluding gaps, by memory region", NULL, NULL, NULL);
	bytes_row(grid, 1, "Non-interleaved", t->region[TSR_REGION_NON_INTERLEAVED], prefix,
	          "byRegion.nonInterleaved");
	bytes_row(grid, 1, "Interleaved", t->region[TSR_REGION_INTERLEAVED], prefix,
	          "byRegion.interleaved");
	bytes_row(grid, 1, "Overflowed", t->region[TSR_REGION_OVERFLOWED], prefix,
	          "byRegion.overflowed");
	bytes_row(grid, 1, "Total", t->total, prefix, "excludingGaps");
	ga_figure_grid_add(grid, 0, "Excluding gaps, by data type", NULL, NULL, NULL);
	add_data_type(grid, m, prefix, FALSE);
	add_data_type(grid, m, prefix, TRUE);
	ga_figure_grid_add(grid, 0, "Vertex data", NULL, NULL, NULL);
	bytes_row(grid, 1, "Total (without code)", m->vertex_data, prefix, "vertexData.total");
	bytes_row(grid, 1, "Internal vertex state", v->vertex_data, prefix,
	          "vertexData.internalVertexState");
	bytes_row(grid, 1, "Edge pointers", v->edge_ptr, prefix, "vertexData.edgePointers");
	bytes_row(grid, 1, "Copy pointers", v->copy_ptr, prefix, "vertexData.copyPointers");
	bytes_row(grid, 1, "Padding", v->padding, prefix, "vertexData.padding");
	bytes_row(grid, 1, "Descriptors", v->descriptor, prefix, "vertexData.descriptors");
	if (m->n_vertex_types) {
		GtkWidget *list = ga_list_new("Vertex data by type", FALSE);
		size_t shown = MIN(m->n_vertex_types, (size_t)LIST_CAP);

		add_heading(content, "Vertex data by type (with code), fullest first");
		for (size_t i = 0; i < shown; i++) {
			g_autofree char *b = ga_format_u64(m->vertex_types[i].bytes);
			g_autofree char *bb = g_strdup_printf("%s B", b);
			const char *cells[] = {m->vertex_types[i].name, bb};

			ga_list_add(list, cells, 2);
		}
		ga_list_finish(list, shown, m->n_vertex_types);
		gtk_widget_set_halign(list, GTK_ALIGN_START);
		gtk_box_append(GTK_BOX(content), list);
	}
	add_heading(content, "By tile (excluding gaps)");
	gtk_box_append(GTK_BOX(content), ga_histogram_new(m));
	gtk_box_append(GTK_BOX(content), tiles);
	max_row(tiles, "Maximum (including gaps)", t->max_tile_bytes, t->max_tile, prefix,
	        "maxTileIncludingGaps.bytes");
	max_row(tiles, "Maximum (excluding gaps)", t->max_tile_excluding_gaps_bytes,
	        t->max_tile_excluding_gaps, prefix, "maxTileExcludingGaps.bytes");
	{
		g_autofree char *k = key(prefix, "outOfMemoryTiles.length");

		ga_figure_grid_add_u64(tiles, 0, "Tiles out of memory", m->n_oom_tiles, NULL, k);
	}
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
		add_heading(content, title2);
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

/* Orders named bytes largest first, then by name. */
static int by_bytes_desc(gconstpointer a, gconstpointer b)
{
	const tsr_summary_named_bytes *x = *(const tsr_summary_named_bytes *const *)a;
	const tsr_summary_named_bytes *y = *(const tsr_summary_named_bytes *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return g_strcmp0(x->name, y->name);
}

static void add_liveness(GtkWidget *box, const tsr_summary_figures *s)
{
	GtkWidget *content, *grid = ga_figure_grid_new();

	gtk_box_append(GTK_BOX(box), ga_section_new("Liveness", TRUE, &content));
	gtk_box_append(GTK_BOX(content), grid);
	ga_figure_grid_add_u64(grid, 0, "Always-live bytes", s->always_live_bytes, "B",
	                       "liveness.alwaysLiveBytes");
	ga_figure_grid_add_u64(grid, 0, "Maximum live bytes (including always-live)",
	                       s->max_live_bytes, "B", "liveness.maxLiveBytes");
	if (s->has_peak) {
		g_autofree char *what = NULL;

		if (s->peak_step < s->n_liveness_steps) {
			const tsr_summary_liveness_step *ls = &s->liveness_steps[s->peak_step];
			g_autofree char *name = ls->name ? ga_format_name(ls->name) : NULL;

			const char *type = tsr_program_type_name(ls->program_type);

			if (!type)
				type = "?";
			what = name ? g_strdup_printf("%s: %s", type, name) : g_strdup(type);
		}
		ga_figure_grid_add_u64(grid, 0, "Peak liveness step", s->peak_step, what,
		                       "liveness.peakStep");
		ga_figure_grid_add_u64(grid, 0, "Live bytes at the peak (excluding always-live)",
		                       s->peak_bytes, "B", NULL);
	} else {
		ga_figure_grid_add(grid, 0, "Peak liveness step", "none", "(no liveness steps)",
		                   "liveness.peakStep");
	}
	if (s->n_always_live) {
		g_autoptr(GPtrArray) sorted = g_ptr_array_sized_new((guint)s->n_always_live);
		GtkWidget *list = ga_list_new("Always-live variables", FALSE);
		size_t shown = MIN(s->n_always_live, (size_t)LIST_CAP);

		for (size_t i = 0; i < s->n_always_live; i++)
			g_ptr_array_add(sorted, (gpointer)&s->always_live[i]);
		g_ptr_array_sort(sorted, by_bytes_desc);
		add_heading(content, "Always-live variables, largest first");
		for (size_t i = 0; i < shown; i++) {
			const tsr_summary_named_bytes *v = sorted->pdata[i];
			g_autofree char *b = ga_format_u64(v->bytes);
			g_autofree char *bb = g_strdup_printf("%s B", b);
			const char *cells[] = {v->name, bb};

			ga_list_add(list, cells, 2);
		}
		ga_list_finish(list, shown, s->n_always_live);
		gtk_widget_set_halign(list, GTK_ALIGN_START);
		gtk_box_append(GTK_BOX(content), list);
	}
}

static void add_execution(GtkWidget *box, const tsr_summary_figures *s)
{
	const tsr_tile_cycles *tc = &s->activity.tile_cycles;
	GtkWidget *content, *grid = ga_figure_grid_new();
	g_autofree char *us = NULL, *run = NULL, *runs = NULL, *prog = NULL, *run_text = NULL;
	g_autofree char *tb = NULL, *thb = NULL, *unit = NULL;

	gtk_box_append(GTK_BOX(box), ga_section_new("Execution", TRUE, &content));
	if (!s->has_run) {
		gtk_box_append(GTK_BOX(content),
		               ga_note_new("No execution profile: the report holds no runs."));
		return;
	}
	gtk_box_append(GTK_BOX(content), grid);
	/* Numbered from 0, as the run pickers and `tilescope summary`. */
	run = ga_format_u64(s->run);
	runs = ga_format_u64(s->n_runs - 1);
	prog = ga_format_u64(s->program);
	run_text = s->n_runs > 1 ? g_strdup_printf("%s of runs 0-%s", run, runs)
	                         : g_strdup_printf("%s (the only run)", run);
	/* The program by its name, as `tilescope summary` prints it. */
	if (s->program_name) {
		g_autofree char *name = tsd_name_cut_to(s->program_name, GA_RUN_NAME_CHARS);

		unit = g_strdup_printf("(%s, engine program %s)", name, prog);
	} else {
		unit = g_strdup_printf("(engine program %s)", prog);
	}
	ga_figure_grid_add(grid, 0, "Run", run_text, unit, NULL);
	us = ga_format_1dp(s->flops.seconds * 1e6);
	g_free(unit);
	unit = g_strdup_printf("(approx %s microseconds)", us);
	ga_figure_grid_add_u64(grid, 0, "Total cycles", s->activity.cycles, unit,
	                       "execution.totalCycles");
	ga_figure_grid_add(grid, 0, "Tile cycles, summed over tiles", NULL, NULL, NULL);
	ga_figure_grid_add_u64(grid, 1, "Compute (including idle threads)", tc->compute, NULL,
	                       "execution.computeCycles");
	ga_figure_grid_add_u64(grid, 1, "Compute (excluding idle threads)", tc->active_compute, NULL,
	                       "execution.activeComputeCycles");
	ga_figure_grid_add_u64(grid, 1, "IPU exchange", tc->do_exchange, NULL,
	                       "execution.ipuExchangeCycles");
	ga_figure_grid_add_u64(grid, 1, "Global exchange", tc->global_exchange, NULL,
	                       "execution.globalExchangeCycles");
	ga_figure_grid_add_u64(grid, 1, "Host exchange", tc->stream_copy, NULL,
	                       "execution.hostExchangeCycles");
	ga_figure_grid_add_u64(grid, 1, "Shared structure copy", tc->copy_shared_structure, NULL,
	                       "execution.sharedStructureCopyCycles");
	ga_figure_grid_add_u64(grid, 1, "Sync", tc->sync, NULL, "execution.syncCycles");
	tb = ga_format_pct(s->tile_balance);
	thb = ga_format_pct(s->thread_balance);
	ga_figure_grid_add(grid, 0, "Total tile balance", tb, NULL, "execution.tileBalance");
	ga_figure_grid_add(grid, 0, "Total thread balance", thb, NULL, "execution.threadBalance");

	ga_figure_grid_add(grid, 0, "Activity: steps and their cycles", NULL, NULL, NULL);
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

	ga_figure_grid_add(grid, 0, "FLOPs (fp32)", NULL, NULL, NULL);
	{
		g_autofree char *rate = ga_format_1dp(s->flops.flops_per_second / 1e9);
		g_autofree char *peak = ga_format_1dp(s->flops.peak_flops_per_second / 1e9);
		g_autofree char *util = ga_format_pct(s->flops.utilisation);

		ga_figure_grid_add_u64(grid, 1, "Floating-point operations", s->flops.flops, NULL, NULL);
		ga_figure_grid_add(grid, 1, "Rate", rate, "GFLOP/s", NULL);
		ga_figure_grid_add(grid, 1, "Peak of the target", peak, "GFLOP/s", NULL);
		ga_figure_grid_add(grid, 1, "Utilisation", util, NULL, NULL);
	}
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
		g_autofree char *inst = ga_format_u64(c->instances);
		g_autofree char *ii = g_strdup_printf("%s instances", inst);
		g_autofree char *cyc = ga_format_u64(c->cycles);
		g_autofree char *cc = g_strdup_printf("%s cycles", cyc);
		const char *cells[] = {
			c->vertex_type < s->n_vertex_types ? s->vertex_types[c->vertex_type].name : "?",
			ii, cc};

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
static char *which(const char *letter, GaDocument *doc)
{
	g_autofree char *path = doc ? g_file_get_parse_name(ga_document_get_file(doc)) : NULL;

	return doc ? g_strdup_printf("%s  %s — %s", letter, ga_document_get_title(doc), path)
	           : g_strdup("");
}

static char *summary_which_a(gpointer view, GaDocument *doc)
{
	return which("A", doc);
}

static char *summary_which_b(gpointer view, GaDocument *doc)
{
	return which("B", doc);
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
	gtk_widget_class_bind_template_callback(widget_class, summary_which_a);
	gtk_widget_class_bind_template_callback(widget_class, summary_which_b);
	gtk_widget_class_bind_template_callback(widget_class, on_filter_changed);
}

static void ga_summary_view_init(GaSummaryView *self)
{
}

GtkWidget *ga_summary_view_new(GaSession *session)
{
	return g_object_new(GA_TYPE_SUMMARY_VIEW, "session", session, NULL);
}
