/*
 * The printProfileSummary formatter and the summary JSON (summary.h) on
 * the fixture's reports: the guide's section labels in its order, the
 * figures printed equal to reportlib's and the simulator's own, colours
 * on and off under the options and NO_COLOR / CLICOLOR / CLICOLOR_FORCE,
 * the JSON equal to the report.h values, an out-of-memory report, names
 * with escape sequences cleaned, and a golden copy of the whole text.
 *
 * Golden file: tests/reportlib/expected/summary-matmul.txt is the whole
 * summary of TSR_FIXTURE_MATMUL with every option on, colours off and the
 * execution of run 0.
 * After a deliberate change to the layout or to the simulator's figures,
 * regenerate it with
 *     TSR_UPDATE_GOLDEN=1 meson test -C <build> test_summary
 * (the test then writes the file instead of comparing) and review the
 * diff. The file is found beside this source (resolved from __FILE__ and
 * the test executable's place in the build tree).
 */
#include "report-fixture.h"

#include <tilescope/numfmt.h>
#include <tilescope/summary.h>

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GOLDEN_NAME "summary-matmul.txt"

static const char *const colour_vars[] = {"NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE"};

/* Clears the colour variables so that the runner's environment cannot
 * change what the tests see. */
static void clear_colour_env(void)
{
	for (size_t i = 0; i < sizeof(colour_vars) / sizeof(colour_vars[0]); i++)
		unsetenv(colour_vars[i]);
}

/* The matmul fixture (2 IPUs, three runs), colours variables cleared. */
static int setup_matmul(void **state)
{
	tsr_fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	clear_colour_env();
	tsr_fixture_setup(f, TSR_FIXTURE_MATMUL);
	*state = f;
	return 0;
}

/* The out-of-memory fixture (no runs). */
static int setup_oom(void **state)
{
	tsr_fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	clear_colour_env();
	tsr_fixture_setup(f, TSR_FIXTURE_OOM);
	*state = f;
	return 0;
}

/* Frees either fixture and clears the colour variables again. */
static int teardown(void **state)
{
	tsr_fixture *f = *state;

	tsr_fixture_teardown(f);
	free(f);
	clear_colour_env();
	return 0;
}

/* The summary of `f` under `opts` as a malloc'd string. */
static char *summary_text(tsr_fixture *f, const tsr_summary_options *opts)
{
	tsi_test_capture cap;
	char *text;
	int rc;

	tsi_test_capture_open(&cap);
	rc = tsr_summary_print(cap.file, f->report, opts);
	if (rc != TSR_OK)
		fail_msg("tsr_summary_print: %s (%s)", tsr_error_name(rc), tsr_report_error(f->report));
	text = strdup(tsi_test_capture_text(&cap));
	tsi_test_capture_close(&cap);
	assert_non_null(text);
	return text;
}

/* Every option on, colours off: what the golden file holds. */
static tsr_summary_options all_options(void)
{
	tsr_summary_options o = TSR_SUMMARY_OPTIONS_INIT;

	o.show_var_storage = true;
	o.show_optimizations = true;
	o.show_execution_steps = true;
	o.show_per_ipu_memory = true;
	o.colours = TSR_COLOURS_NEVER;
	return o;
}

/*
 * The number after the first occurrence of `label` in `text`:
 * spaces skipped, digits with thousands separators. Fails the test when
 * the label or the number is missing.
 */
static uint64_t number_after(const char *text, const char *label)
{
	const char *p = strstr(text, label);
	uint64_t v = 0;
	bool any = false;

	if (!p)
		fail_msg("\"%s\" is not in the summary", label);
	p += strlen(label);
	while (*p == ' ')
		p++;
	for (; (*p >= '0' && *p <= '9') || (*p == ',' && any); p++) {
		if (*p == ',')
			continue;
		v = v * 10 + (uint64_t)(*p - '0');
		any = true;
	}
	if (!any)
		fail_msg("no number after \"%s\"", label);
	return v;
}

/* The guide's section labels appear, in its order. */
static void test_layout_order(void **state)
{
	static const char *const labels[] = {
	    "Target:\n", "  Number of IPUs:", "  Tiles per IPU:", "  Total Tiles:",
	    "  Memory Per-Tile:", "  Total Memory:", "  Clock Speed (approx):",
	    "  Number of Replicas:", "  IPUs per Replica:", "  Tiles per Replica:",
	    "  Memory per Replica:", "Graph:\n", "  Number of vertices:", "  Number of edges:",
	    "  Number of variables:", "  Number of compute sets:", "Memory on all IPUs:\n",
	    "Memory Usage:\n", "  Total:\n", "    Including Gaps:", "    Excluding Gaps:\n",
	    "      By Memory Region:\n", "        Non-interleaved:", "        Interleaved:",
	    "        Overflowed:", "      Total:", "      By Data Type:\n",
	    "        Not Overlapped\n", "            Variables:", "          Total:",
	    "        Overlapped\n", "          Total After Overlapping:", "      Vertex Data (",
	    "        By Category:\n", "          Internal vertex state:", "          Edge pointers:",
	    "          Copy pointers:", "          Padding:", "          Descriptors:",
	    "        By Type:\n", "  By Tile (Excluding Gaps):\n",
	    "    Range (KiB) Histogram (Excluding Gaps)              Count (tiles)\n",
	    "    Maximum (Including Gaps):", "    Maximum (Excluding Gaps):",
	    "    0 tile(s) out of memory\n", "  Variable Storage Liveness: All tiles\n",
	    "    Always-live bytes:", "    Always-live variables:\n",
	    "    Maximum live bytes (including always-live):", "    Sequence",
	    "Live Bytes (excluding always-live):", "Execution:\n", "  Total cycles:",
	    "  Total compute cycles (including idle threads):",
	    "  Total compute cycles (excluding idle threads):", "  Total IPU exchange cycles:",
	    "  Total global exchange cycles:", "  Total host exchange cycles:",
	    "  Total shared structure copy cycles:", "  Total sync cycles:",
	    "  Total tile balance:", "  Total thread balance:", "  Cycles by vertex type:\n",
	    "Steps\n", "  OnTileExecute (cycles ", "    Thread Balance:",
	};
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	char *text;
	const char *at;

	o.show_per_ipu_memory = false;
	text = summary_text(f, &o);
	at = text;
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		const char *p = strstr(at, labels[i]);

		if (!p)
			fail_msg("label %zu \"%s\" missing or out of order", i, labels[i]);
		at = p + strlen(labels[i]);
	}
	/* The per-IPU parts only when asked for. */
	assert_null(strstr(text, "Memory on IPU 0:"));
	free(text);

	o.show_per_ipu_memory = true;
	text = summary_text(f, &o);
	assert_non_null(strstr(text, "Memory on IPU 0:\n"));
	assert_non_null(strstr(text, "Memory on IPU 1:\n"));
	assert_null(strstr(text, "Memory on IPU 2:"));
	free(text);

	/* Without the options: no tree, no steps, no always-live list. */
	o = (tsr_summary_options)TSR_SUMMARY_OPTIONS_INIT;
	o.colours = TSR_COLOURS_NEVER;
	text = summary_text(f, &o);
	assert_non_null(strstr(text, "    Maximum live bytes (including always-live):"));
	assert_null(strstr(text, "Live Bytes (excluding always-live)"));
	assert_null(strstr(text, "Always-live variables:"));
	assert_null(strstr(text, "\nSteps\n"));
	assert_null(strstr(text, "Optimizations:"));
	assert_non_null(strstr(text, "  Cycles by vertex type:\n"));
	free(text);
}

/* The figures printed are reportlib's, and those the simulator computed. */
static void test_figures(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	const tsr_graph_counts *counts = tsr_report_get_counts(f->report);
	const tsr_target *target = tsr_report_get_target(f->report);
	tsr_memory_totals tot;
	const tsr_run *runs;
	size_t n_runs, peak_step;
	uint64_t sim_total = 0, sim_max = 0, peak_bytes;
	tsr_activity act;
	char *text, label[64];

	assert_int_equal(tsr_report_fill_memory_totals(&tot, f->report, -1), TSR_OK);
	assert_int_equal(tsr_report_get_runs(&runs, &n_runs, f->report), TSR_OK);
	assert_true(n_runs > 0);
	assert_int_equal(tsr_report_fill_run_activity(&act, f->report, n_runs - 1), TSR_OK);
	for (uint32_t t = 0; t < f->gp->target.num_tiles; t++) {
		sim_total += f->gp->by_tile[t].total_including_gaps;
		if (f->gp->by_tile[t].total_including_gaps > sim_max)
			sim_max = f->gp->by_tile[t].total_including_gaps;
	}
	text = summary_text(f, &o);

	assert_int_equal(number_after(text, "  Tiles per IPU:"), target->tiles_per_ipu);
	assert_int_equal(number_after(text, "  Number of vertices:"), counts->vertices);
	assert_int_equal(number_after(text, "  Number of vertices:"), f->gp->num_vertices);
	assert_int_equal(number_after(text, "  Number of compute sets:"), f->gp->num_compute_sets);
	/* Memory on all IPUs comes first: the first occurrences are its. */
	assert_int_equal(number_after(text, "    Including Gaps:"), tot.total_including_gaps);
	assert_int_equal(number_after(text, "    Including Gaps:"), sim_total);
	assert_int_equal(number_after(text, "      Total:"), tot.total);
	assert_int_equal(number_after(text, "    Maximum (Including Gaps):"), tot.max_tile_bytes);
	assert_int_equal(number_after(text, "    Maximum (Including Gaps):"), sim_max);
	snprintf(label, sizeof(label), "KiB) on tile %" PRIu32 "\n", tot.max_tile);
	assert_non_null(strstr(text, label));
	assert_int_equal(number_after(text, "    Maximum (Excluding Gaps):"),
	                 tot.max_tile_excluding_gaps_bytes);
	assert_int_equal(number_after(text, "    Always-live bytes:"),
	                 tsr_report_get_always_live_bytes(f->report));
	assert_int_equal(number_after(text, "    Always-live bytes:"), f->gp->always_live_bytes);
	assert_int_equal(tsr_report_get_peak_liveness(&peak_step, &peak_bytes, f->report), TSR_OK);
	assert_int_equal(number_after(text, "    Maximum live bytes (including always-live):"),
	                 tsr_report_get_always_live_bytes(f->report) + peak_bytes);
	/* Execution is of the last run kept unless asked. */
	assert_int_equal(number_after(text, "  Total cycles:"), runs[n_runs - 1].cycles);
	assert_int_equal(number_after(text, "  Total cycles:"), act.cycles);
	if (n_runs <= f->n_runs)
		assert_int_equal(number_after(text, "  Total cycles:"),
		                 f->runs[n_runs - 1]->cycles);
	assert_int_equal(number_after(text, "  Total compute cycles (including idle threads):"),
	                 act.tile_cycles.compute);
	assert_int_equal(number_after(text, "  Total sync cycles:"), act.tile_cycles.sync);
	assert_int_equal(number_after(text, "  Total host exchange cycles:"),
	                 act.tile_cycles.stream_copy);
	free(text);

	/* Another run when asked. */
	o.run = 0;
	text = summary_text(f, &o);
	assert_int_equal(number_after(text, "  Total cycles:"), runs[0].cycles);
	if (n_runs > 1)
		assert_non_null(strstr(text, "0 of runs 0-"));
	free(text);
}

/* The vertex types' cycles printed equal tsr_report_list_cycles_by_vertex_type. */
static void test_vertex_type_cycles(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	const tsr_vertex_type *types;
	tsr_vertex_type_cycles *vc;
	size_t n_types, n_vc;
	char *text, *section;

	assert_int_equal(tsr_report_get_vertex_types(&types, &n_types, f->report), TSR_OK);
	assert_int_equal(tsr_report_list_cycles_by_vertex_type(&vc, &n_vc, f->report, -1), TSR_OK);
	free(vc);
	{
		const tsr_run *runs;
		size_t n_runs;

		assert_int_equal(tsr_report_get_runs(&runs, &n_runs, f->report), TSR_OK);
		assert_int_equal(tsr_report_list_cycles_by_vertex_type(&vc, &n_vc, f->report,
		                                                       (int64_t)n_runs - 1),
		                 TSR_OK);
	}
	text = summary_text(f, &o);
	section = strstr(text, "  Cycles by vertex type:\n");
	assert_non_null(section);
	/* The section ends where the steps begin. */
	assert_non_null(strstr(section, "\nSteps\n"));
	*strstr(section, "\nSteps\n") = '\0';
	assert_true(n_vc > 0);
	for (size_t i = 0; i < n_vc; i++) {
		char line[512];
		const char *p;

		assert_true(vc[i].vertex_type < n_types);
		/* Types that did not run in the run are left out. */
		if (vc[i].executions == 0) {
			assert_null(strstr(section, types[vc[i].vertex_type].name));
			continue;
		}
		/* The line of this type: its name, its instances, its cycles. */
		p = strstr(section, types[vc[i].vertex_type].name);
		assert_non_null(p);
		snprintf(line, sizeof(line), "(%" PRIu64 " instances):", vc[i].instances);
		p = strstr(p, line);
		assert_non_null(p);
		assert_int_equal(number_after(p, line), vc[i].cycles);
	}
	free(vc);
	free(text);
}

/* Colours follow the option and the environment, headings only. */
static void test_colours(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	char *text;

	/* A memory stream is not a terminal. */
	o.colours = TSR_COLOURS_AUTO;
	text = summary_text(f, &o);
	assert_null(strchr(text, '\033'));
	free(text);

	o.colours = TSR_COLOURS_ALWAYS;
	text = summary_text(f, &o);
	assert_non_null(strstr(text, "\033[1;36mTarget:\033[0m\n"));
	assert_non_null(strstr(text, "\033[1;36mExecution:\033[0m\n"));
	/* Figures are never coloured. */
	assert_non_null(strstr(text, "\n  Number of IPUs:         2\n"));
	assert_null(strstr(text, "\033[1;31m")); /* nothing out of memory */
	free(text);

	o.colours = TSR_COLOURS_NEVER;
	text = summary_text(f, &o);
	assert_null(strchr(text, '\033'));
	free(text);

	/* NO_COLOR beats everything, the option included. */
	setenv("NO_COLOR", "1", 1);
	o.colours = TSR_COLOURS_ALWAYS;
	text = summary_text(f, &o);
	assert_null(strchr(text, '\033'));
	free(text);
	assert_false(tsr_colours_enabled(TSR_COLOURS_ALWAYS, stdout));
	/* An empty NO_COLOR is not set. */
	setenv("NO_COLOR", "", 1);
	assert_true(tsr_colours_enabled(TSR_COLOURS_ALWAYS, stdout));
	unsetenv("NO_COLOR");

	/* CLICOLOR_FORCE overrides the option and CLICOLOR. */
	setenv("CLICOLOR_FORCE", "1", 1);
	setenv("CLICOLOR", "0", 1);
	o.colours = TSR_COLOURS_NEVER;
	text = summary_text(f, &o);
	assert_non_null(strstr(text, "\033[1;36mTarget:\033[0m"));
	free(text);
	setenv("CLICOLOR_FORCE", "0", 1);
	assert_false(tsr_colours_enabled(TSR_COLOURS_ALWAYS, stdout));
	unsetenv("CLICOLOR_FORCE");

	/* CLICOLOR=0 overrides the option. */
	o.colours = TSR_COLOURS_ALWAYS;
	text = summary_text(f, &o);
	assert_null(strchr(text, '\033'));
	free(text);
	setenv("CLICOLOR", "1", 1);
	assert_true(tsr_colours_enabled(TSR_COLOURS_ALWAYS, stdout));
	assert_false(tsr_colours_enabled(TSR_COLOURS_NEVER, stdout));
	assert_false(tsr_colours_enabled(TSR_COLOURS_AUTO, NULL));
	clear_colour_env();
}

/* A JSON member that must exist. */
static const cJSON *member(const cJSON *o, const char *key)
{
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!m)
		fail_msg("JSON member \"%s\" missing", key);
	return m;
}

/* An integer JSON member equal to `v` (exact below 2^53, as here). */
static void assert_json_u64(const cJSON *o, const char *key, uint64_t v)
{
	const cJSON *m = member(o, key);

	assert_true(cJSON_IsNumber(m));
	if (m->valuedouble != (double)v)
		fail_msg("JSON %s = %.17g, expected %" PRIu64, key, m->valuedouble, v);
}

/* The JSON parses and holds the report.h figures. */
static void test_json(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	const tsr_target *target = tsr_report_get_target(f->report);
	const tsr_graph_counts *counts = tsr_report_get_counts(f->report);
	const cJSON *mem, *all, *exec, *live, *vt, *steps, *hist;
	const tsr_step *rsteps;
	const tsr_run *runs;
	const tsr_liveness_step *lsteps;
	tsr_memory_totals tot, tot1;
	tsr_activity act;
	tsr_vertex_type_cycles *vc;
	size_t n_runs, n_rsteps, n_lsteps, n_vc, i = 0;
	uint64_t bucket_sum = 0;
	char *json = NULL;
	cJSON *root;
	const cJSON *it;

	assert_int_equal(tsr_summary_dup_json(&json, f->report, &o), TSR_OK);
	assert_non_null(json);
	root = cJSON_Parse(json);
	assert_non_null(root);

	assert_int_equal(tsr_report_fill_memory_totals(&tot, f->report, -1), TSR_OK);
	assert_int_equal(tsr_report_fill_memory_totals(&tot1, f->report, 1), TSR_OK);
	assert_int_equal(tsr_report_get_runs(&runs, &n_runs, f->report), TSR_OK);
	assert_int_equal(tsr_report_fill_run_activity(&act, f->report, n_runs - 1), TSR_OK);
	assert_int_equal(tsr_report_get_steps(&rsteps, &n_rsteps, f->report, n_runs - 1), TSR_OK);
	assert_int_equal(tsr_report_get_liveness_steps(&lsteps, &n_lsteps, f->report), TSR_OK);

	assert_json_u64(root, "schema", 1);
	assert_json_u64(member(root, "target"), "tilesPerIpu", target->tiles_per_ipu);
	assert_json_u64(member(root, "target"), "clockFrequency", target->clock_frequency);
	assert_json_u64(member(root, "graph"), "numVertices", counts->vertices);
	assert_json_u64(member(root, "graph"), "numEdges", counts->edges);
	assert_true(cJSON_IsObject(member(root, "optimizations")));

	mem = member(root, "memory");
	assert_int_equal(cJSON_GetArraySize(mem), 1 + target->num_ipus);
	all = cJSON_GetArrayItem(mem, 0);
	assert_true(cJSON_IsNull(member(all, "ipu")));
	assert_json_u64(all, "includingGaps", tot.total_including_gaps);
	assert_json_u64(all, "excludingGaps", tot.total);
	assert_json_u64(member(all, "maxTileIncludingGaps"), "bytes", tot.max_tile_bytes);
	assert_json_u64(member(all, "maxTileIncludingGaps"), "tile", tot.max_tile);
	assert_json_u64(member(cJSON_GetArrayItem(mem, 2), "maxTileIncludingGaps"), "bytes",
	                tot1.max_tile_bytes);
	assert_json_u64(cJSON_GetArrayItem(mem, 2), "ipu", 1);
	/* The histogram counts every tile once. */
	hist = member(member(all, "byTile"), "counts");
	cJSON_ArrayForEach(it, hist)
		bucket_sum += (uint64_t)it->valuedouble;
	assert_int_equal(bucket_sum, target->num_tiles);
	assert_int_equal(cJSON_GetArraySize(member(all, "outOfMemoryTiles")), 0);
	/* The categories add up to their totals. */
	{
		const cJSON *dt = member(all, "byDataType");
		uint64_t sum = 0;

		cJSON_ArrayForEach(it, member(dt, "notOverlapped"))
			sum += (uint64_t)it->valuedouble;
		assert_json_u64(dt, "notOverlappedTotal", sum);
	}

	live = member(root, "liveness");
	assert_json_u64(live, "alwaysLiveBytes", tsr_report_get_always_live_bytes(f->report));
	assert_int_equal(cJSON_GetArraySize(member(live, "steps")), n_lsteps);

	exec = member(root, "execution");
	assert_json_u64(exec, "totalCycles", runs[n_runs - 1].cycles);
	assert_json_u64(exec, "run", n_runs - 1);
	assert_json_u64(exec, "computeCycles", act.tile_cycles.compute);
	assert_json_u64(exec, "activeComputeCycles", act.tile_cycles.active_compute);
	assert_json_u64(exec, "syncCycles", act.tile_cycles.sync);
	assert_json_u64(exec, "ipuExchangeCycles", act.tile_cycles.do_exchange);
	assert_json_u64(exec, "globalExchangeCycles", act.tile_cycles.global_exchange);
	steps = member(exec, "steps");
	assert_int_equal(cJSON_GetArraySize(steps), n_rsteps);
	cJSON_ArrayForEach(it, steps) {
		assert_json_u64(it, "cycles", rsteps[i].cycles);
		assert_json_u64(it, "cyclesFrom", rsteps[i].cycles_from);
		assert_string_equal(member(it, "type")->valuestring, tsr_step_type_name(rsteps[i].type));
		if (isnan(rsteps[i].tile_balance))
			assert_true(cJSON_IsNull(member(it, "tileBalance")));
		else
			assert_close(member(it, "tileBalance")->valuedouble, rsteps[i].tile_balance, 1e-12);
		i++;
	}
	assert_int_equal(tsr_report_list_cycles_by_vertex_type(&vc, &n_vc, f->report, (int64_t)n_runs - 1),
	                 TSR_OK);
	vt = member(exec, "cyclesByVertexType");
	i = 0;
	for (size_t k = 0; k < n_vc; k++) {
		if (!vc[k].executions)
			continue;
		assert_json_u64(cJSON_GetArrayItem(vt, (int)i), "cycles", vc[k].cycles);
		assert_json_u64(cJSON_GetArrayItem(vt, (int)i), "instances", vc[k].instances);
		i++;
	}
	assert_int_equal(cJSON_GetArraySize(vt), i);
	assert_true(i > 0);
	free(vc);
	/* Integers are written as integers, not in exponent form. */
	assert_null(strstr(json, "e+"));
	cJSON_Delete(root);
	free(json);

	/* The default options leave the optional parts out. */
	o = (tsr_summary_options)TSR_SUMMARY_OPTIONS_INIT;
	assert_int_equal(tsr_summary_dup_json(&json, f->report, &o), TSR_OK);
	root = cJSON_Parse(json);
	assert_non_null(root);
	assert_null(cJSON_GetObjectItemCaseSensitive(root, "optimizations"));
	assert_null(cJSON_GetObjectItemCaseSensitive(member(root, "execution"), "steps"));
	assert_null(cJSON_GetObjectItemCaseSensitive(member(root, "liveness"), "steps"));
	assert_int_equal(cJSON_GetArraySize(member(root, "memory")), 1);
	cJSON_Delete(root);
	free(json);
}

/* qsort: variable pointers by bytes, most first, then by id. */
static int variable_bytes_cmp(const void *a, const void *b)
{
	const tsr_variable *x = *(const tsr_variable *const *)a, *y = *(const tsr_variable *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The keys the summary page shows besides the text's parts, with the
 * default options and with all of them: the 20 largest variables of the
 * report.h list, each out-of-memory tile's bytes including gaps, the
 * run's cycles by step type (tsr_activity) and by program (its steps
 * summed per program, the top 100 and the rest adding up to every step),
 * and the tips of figures gathered with the always-live list and the
 * steps, whatever the options.
 */
static void test_json_page(void **state)
{
	tsr_fixture *f = *state;
	const tsr_variable *vars, **order;
	const tsr_tile_memory *tiles;
	const uint32_t *oom = NULL;
	size_t n_vars, n_tiles, n_oom = 0;
	uint64_t per_tile = tsr_report_get_target(f->report)->bytes_per_tile;

	assert_int_equal(tsr_report_get_variables(&vars, &n_vars, f->report), TSR_OK);
	assert_int_equal(tsr_report_get_tile_memory(&tiles, &n_tiles, f->report), TSR_OK);
	if (tsr_report_get_oom_tiles(&oom, &n_oom, f->report) != TSR_OK)
		n_oom = 0;
	order = calloc(n_vars, sizeof(*order));
	assert_non_null(order);
	for (size_t i = 0; i < n_vars; i++)
		order[i] = &vars[i];
	qsort(order, n_vars, sizeof(*order), variable_bytes_cmp);
	for (int pass = 0; pass < 2; pass++) {
		tsr_summary_options o = pass ? all_options() : (tsr_summary_options)TSR_SUMMARY_OPTIONS_INIT;
		tsr_summary_options to = o;
		tsr_summary_figures *fig = NULL;
		tsr_summary_tip *tips = NULL;
		size_t n_tips = 0, i = 0;
		const cJSON *a, *it, *exec;
		char *json = NULL;
		cJSON *root;

		assert_int_equal(tsr_summary_dup_json(&json, f->report, &o), TSR_OK);
		root = cJSON_Parse(json);
		assert_non_null(root);

		assert_json_u64(root, "listedVariables", n_vars);
		a = member(root, "largestVariables");
		assert_int_equal(cJSON_GetArraySize(a), n_vars < 20 ? n_vars : 20);
		cJSON_ArrayForEach(it, a) {
			const tsr_variable *v = order[i++];

			assert_string_equal(member(it, "name")->valuestring, v->name);
			assert_string_equal(member(it, "category")->valuestring,
			                    tsr_category_name(v->mem_category));
			assert_string_equal(member(it, "shape")->valuestring, v->shape);
			assert_json_u64(it, "bytes", v->bytes);
			assert_json_u64(it, "tiles", v->tiles);
			assert_int_equal(cJSON_IsTrue(member(it, "alwaysLive")), v->always_live);
		}

		a = member(cJSON_GetArrayItem(member(root, "memory"), 0), "outOfMemoryTileBytes");
		assert_int_equal(cJSON_GetArraySize(a), n_oom);
		i = 0;
		cJSON_ArrayForEach(it, a) {
			uint64_t need = tsr_tile_memory_get_bytes(&tiles[oom[i]], true);

			assert_json_u64(it, "tile", oom[i++]);
			assert_json_u64(it, "bytes", need);
			assert_true(need > per_tile);
			assert_json_u64(it, "excess", need - per_tile);
		}

		exec = member(root, "execution");
		if (cJSON_IsObject(exec)) {
			const tsr_run *runs;
			const tsr_step *steps;
			const tsr_program *progs;
			size_t n_runs, n_steps, n_progs, n_listed;
			uint64_t *cycles, *count, sum = 0, prev = UINT64_MAX;
			tsr_activity act;
			const cJSON *other = member(exec, "otherProgramCycles");

			assert_int_equal(tsr_report_get_runs(&runs, &n_runs, f->report), TSR_OK);
			assert_int_equal(tsr_report_fill_run_activity(&act, f->report, n_runs - 1), TSR_OK);
			assert_int_equal(tsr_report_get_steps(&steps, &n_steps, f->report, n_runs - 1), TSR_OK);
			assert_int_equal(tsr_report_get_programs(&progs, &n_progs, f->report), TSR_OK);
			a = member(exec, "cyclesByStepType");
			assert_int_equal(cJSON_GetArraySize(a), TSR_STEP_TYPE_COUNT);
			for (size_t t = 0; t < TSR_STEP_TYPE_COUNT; t++) {
				it = cJSON_GetArrayItem(a, (int)t);
				assert_string_equal(member(it, "type")->valuestring,
				                    tsr_step_type_name((tsr_step_type)t));
				assert_json_u64(it, "steps", act.steps[t]);
				assert_json_u64(it, "cycles", act.step_cycles[t]);
				assert_close(member(it, "share")->valuedouble,
				             (double)act.step_cycles[t] / (double)act.cycles, 1e-12);
			}
			cycles = calloc(n_progs, sizeof(*cycles));
			count = calloc(n_progs, sizeof(*count));
			assert_true(cycles && count);
			for (size_t k = 0; k < n_steps; k++) {
				cycles[steps[k].program] += steps[k].cycles;
				count[steps[k].program]++;
			}
			a = member(exec, "cyclesByProgram");
			n_listed = (size_t)cJSON_GetArraySize(a);
			assert_true(n_listed > 0 && n_listed <= 100);
			cJSON_ArrayForEach(it, a) {
				uint32_t prog = (uint32_t)member(it, "program")->valuedouble;

				assert_true(prog < n_progs && count[prog] > 0);
				assert_json_u64(it, "cycles", cycles[prog]);
				assert_json_u64(it, "steps", count[prog]);
				assert_string_equal(member(it, "type")->valuestring,
				                    tsr_program_type_name(progs[prog].program_type));
				assert_true(cycles[prog] <= prev);
				prev = cycles[prog];
				sum += cycles[prog];
				count[prog] = 0;  /* each program once */
			}
			if (!cJSON_IsNull(other))
				sum += (uint64_t)member(other, "cycles")->valuedouble;
			for (size_t k = 0; cJSON_IsNull(other) && k < n_progs; k++)
				assert_int_equal(count[k], 0);
			for (size_t t = 0; t < TSR_STEP_TYPE_COUNT; t++)
				sum -= act.step_cycles[t];
			assert_int_equal(sum, 0);
			free(cycles);
			free(count);
		}

		to.show_var_storage = to.show_execution_steps = true;
		assert_int_equal(tsr_summary_figures_new(&fig, f->report, &to), TSR_OK);
		assert_int_equal(tsr_summary_figures_list_tips(&tips, &n_tips, fig), TSR_OK);
		a = member(root, "tips");
		assert_int_equal(cJSON_GetArraySize(a), n_tips);
		i = 0;
		cJSON_ArrayForEach(it, a) {
			static const char *const kinds[] = {"outOfMemory", "alwaysLive", "exchangeCode",
			                                    "imbalance"};

			assert_string_equal(member(it, "kind")->valuestring, kinds[tips[i].kind]);
			assert_json_u64(it, "saving", tips[i].saving);
			assert_string_equal(member(it, "text")->valuestring, tips[i].text);
			i++;
		}
		free(tips);
		tsr_summary_figures_free(fig);
		cJSON_Delete(root);
		free(json);
	}
	free(order);
}

/* Bad arguments get their codes. */
static void test_arguments(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = TSR_SUMMARY_OPTIONS_INIT;
	const tsr_run *runs;
	size_t n_runs;
	char *json = NULL;
	tsi_test_capture cap;

	assert_int_equal(tsr_report_get_runs(&runs, &n_runs, f->report), TSR_OK);
	tsi_test_capture_open(&cap);
	o.run = (int64_t)n_runs;
	assert_int_equal(tsr_summary_print(cap.file, f->report, &o), TSR_ERR_OUT_OF_RANGE);
	assert_true(strlen(tsr_report_error(f->report)) > 0);
	assert_int_equal(tsr_summary_dup_json(&json, f->report, &o), TSR_ERR_OUT_OF_RANGE);
	assert_null(json);
	o.run = -2;
	assert_int_equal(tsr_summary_print(cap.file, f->report, &o), TSR_ERR_INVALID_ARGUMENT);
	o.run = -1;
	o.version = 99;
	assert_int_equal(tsr_summary_print(cap.file, f->report, &o), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_summary_dup_json(&json, f->report, &o), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_summary_print(NULL, f->report, NULL), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_summary_print(cap.file, NULL, NULL), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_summary_dup_json(NULL, f->report, NULL), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_summary_dup_json(&json, NULL, NULL), TSR_ERR_INVALID_ARGUMENT);
	/* Nothing was printed by the failures. */
	assert_string_equal(tsi_test_capture_text(&cap), "");
	tsi_test_capture_close(&cap);
	/* NULL options are the defaults. */
	tsi_test_capture_open(&cap);
	assert_int_equal(tsr_summary_print(cap.file, f->report, NULL), TSR_OK);
	assert_non_null(strstr(tsi_test_capture_text(&cap), "Execution:"));
	tsi_test_capture_close(&cap);
}

/* This source's directory's expected/GOLDEN_NAME (malloc'd). */
static char *golden_path(void)
{
	char exe[PATH_MAX], src[PATH_MAX * 2], real[PATH_MAX], *path;
	ssize_t len;

	if (__FILE__[0] == '/') {
		snprintf(src, sizeof(src), "%s", __FILE__);
	} else {
		/* Relative to the build root: the executable is in
		 * <build>/tests/reportlib/. */
		len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		assert_true(len > 0);
		exe[len] = '\0';
		snprintf(src, sizeof(src), "%s/../../%s", dirname(exe), __FILE__);
	}
	if (!realpath(src, real))
		fail_msg("cannot find this test's source %s", src);
	path = malloc(strlen(real) + sizeof("/expected/" GOLDEN_NAME));
	assert_non_null(path);
	sprintf(path, "%s/expected/%s", dirname(real), GOLDEN_NAME);
	return path;
}

/* The whole text equals the golden file (or rewrites it on request). */
static void test_golden(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	char *text, *path = golden_path(), *want = NULL;
	const char *update = getenv("TSR_UPDATE_GOLDEN");
	size_t want_len = 0;
	FILE *fp;

	/* Run 0 (program 0) has every kind of step. */
	o.run = 0;
	text = summary_text(f, &o);
	if (update && *update && strcmp(update, "0") != 0) {
		fp = fopen(path, "w");
		if (!fp)
			fail_msg("cannot write %s", path);
		fputs(text, fp);
		assert_int_equal(fclose(fp), 0);
		print_message("wrote %s\n", path);
	} else {
		fp = fopen(path, "r");
		if (!fp)
			fail_msg("no golden file %s (TSR_UPDATE_GOLDEN=1 writes it)", path);
		assert_int_equal(getdelim(&want, &want_len, '\0', fp) > 0, 1);
		fclose(fp);
		if (strcmp(text, want) != 0) {
			const char *a = text, *b = want;
			int line = 1;

			while (*a && *a == *b) {
				line += *a == '\n';
				a++;
				b++;
			}
			fail_msg("the summary differs from %s at line %d:\n got: %.80s\nwant: %.80s\n"
			         "(TSR_UPDATE_GOLDEN=1 rewrites it after a deliberate change)",
			         path, line, a, b);
		}
	}
	free(want);
	free(path);
	free(text);
}

/* An out-of-memory report: no execution, the tiles that do not fit. */
static void test_oom(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	const uint32_t *oom;
	size_t n_oom;
	char *text, *json = NULL, want[64];
	cJSON *root;
	const cJSON *tiles, *mem0;

	assert_int_equal(tsr_report_get_oom_tiles(&oom, &n_oom, f->report), TSR_OK);
	assert_true(n_oom > 0);
	assert_int_equal(n_oom, f->gp->n_oom_tiles);
	assert_int_equal(oom[0], 0);

	text = summary_text(f, &o);
	snprintf(want, sizeof(want), "    %zu tile(s) out of memory\n", n_oom);
	assert_non_null(strstr(text, want));
	assert_non_null(strstr(text, "    Out of memory on tile(s): 0"));
	assert_non_null(strstr(text, "      Tile 0:"));
	assert_non_null(strstr(text, "  No execution profile"));
	assert_null(strstr(text, "Total cycles:"));
	assert_null(strstr(text, "\nSteps\n"));
	free(text);

	o.colours = TSR_COLOURS_ALWAYS;
	text = summary_text(f, &o);
	snprintf(want, sizeof(want), "\033[1;31m%zu tile(s) out of memory\033[0m", n_oom);
	assert_non_null(strstr(text, want));
	free(text);

	assert_int_equal(tsr_summary_dup_json(&json, f->report, &o), TSR_OK);
	root = cJSON_Parse(json);
	assert_non_null(root);
	assert_true(cJSON_IsNull(member(root, "execution")));
	mem0 = cJSON_GetArrayItem(member(root, "memory"), 0);
	tiles = member(mem0, "outOfMemoryTiles");
	assert_int_equal(cJSON_GetArraySize(tiles), n_oom);
	assert_int_equal((int)cJSON_GetArrayItem(tiles, 0)->valuedouble, 0);
	assert_json_u64(cJSON_GetArrayItem(member(mem0, "largestTiles"), 0), "tile", 0);
	cJSON_Delete(root);
	free(json);
}

/* --- Tips ------------------------------------------------------------------------ */

/* The out-of-memory report's tip: the excess of its tiles, including gaps,
 * summed from the report.h queries, in the tip's figure and sentence. */
static void test_tips_oom(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	tsr_summary_figures *fig = NULL;
	tsr_summary_tip *tips = NULL;
	const tsr_tile_memory *tiles;
	const uint32_t *oom;
	size_t n = 0, n_tiles, n_oom;
	uint64_t excess = 0, per_tile = tsr_report_get_target(f->report)->bytes_per_tile;
	char want[64];

	assert_int_equal(tsr_report_get_tile_memory(&tiles, &n_tiles, f->report), TSR_OK);
	assert_int_equal(tsr_report_get_oom_tiles(&oom, &n_oom, f->report), TSR_OK);
	for (size_t i = 0; i < n_oom; i++)
		excess += tsr_tile_memory_get_bytes(&tiles[oom[i]], true) - per_tile;
	assert_true(excess > 0);
	assert_int_equal(tsr_summary_figures_new(&fig, f->report, &o), TSR_OK);
	assert_int_equal(tsr_summary_figures_list_tips(&tips, &n, fig), TSR_OK);
	assert_true(n >= 1);
	assert_int_equal(tips[0].kind, TSR_TIP_OUT_OF_MEMORY);
	assert_int_equal(tips[0].saving, excess);
	snprintf(want, sizeof(want), "To fit, move or save %s B on the %zu out-of-memory tiles",
	         tsb_format_u64((char[TSB_NUMBER_MAX]){0}, TSB_NUMBER_MAX, excess), n_oom);
	assert_non_null(strstr(tips[0].text, want));
	for (size_t i = 1; i < n; i++)
		assert_true(tips[i].kind > TSR_TIP_OUT_OF_MEMORY);
	free(tips);
	tsr_summary_figures_free(fig);
}

/* Whether `name` is a memory category's (an always-live entry that is a
 * category's bytes, not a variable one could recompute). */
static bool is_category_name(const char *name)
{
	for (size_t c = 0; c < tsr_category_count(); c++)
		if (name && strcmp(tsr_category_name((tsr_mem_category)c), name) == 0)
			return true;
	return false;
}

/* How many tips of each kind the rules of summary.h ask for, worked out
 * here from the figures and the report.h queries. */
static void expected_tips(size_t want[4], tsr_fixture *f, const tsr_summary_figures *fig)
{
	uint32_t *fullest = NULL;
	size_t nf = 0, n_tiles;
	const tsr_tile_memory *tiles;
	uint64_t *code, best = 0;

	memset(want, 0, 4 * sizeof(*want));
	want[TSR_TIP_OUT_OF_MEMORY] = fig->memory[0].n_oom_tiles > 0;
	for (size_t i = 0; i < fig->n_always_live; i++)
		if (!is_category_name(fig->always_live[i].name) &&
		    (double)fig->always_live[i].bytes >= 0.05 * (double)fig->always_live_bytes &&
		    want[TSR_TIP_ALWAYS_LIVE] < 3)
			want[TSR_TIP_ALWAYS_LIVE]++;
	assert_int_equal(tsr_report_list_largest_tiles(&fullest, &nf, f->report, -1, false, 1),
	                 TSR_OK);
	assert_int_equal(tsr_report_get_tile_memory(&tiles, &n_tiles, f->report), TSR_OK);
	code = calloc(n_tiles, sizeof(*code));
	assert_non_null(code);
	assert_int_equal(tsr_report_fill_category_by_tile(code, n_tiles, f->report,
	                                                  TSR_MEM_INTERNAL_EXCHANGE_CODE), TSR_OK);
	want[TSR_TIP_EXCHANGE_CODE] = nf && (double)code[fullest[0]] >=
	                                        0.2 * (double)tiles[fullest[0]].total;
	for (size_t i = 0; fig->has_run && i < fig->n_steps; i++) {
		const tsr_step *st = fig->steps[i].step;

		if (st->type == TSR_STEP_ON_TILE_EXECUTE && isfinite(st->tile_balance) &&
		    (uint64_t)((double)st->cycles * (1 - st->tile_balance)) > best)
			best = (uint64_t)((double)st->cycles * (1 - st->tile_balance));
	}
	want[TSR_TIP_IMBALANCE] = fig->has_run && fig->activity.cycles &&
	                          (double)best >= 0.05 * (double)fig->activity.cycles;
	free(code);
	free(fullest);
}

/* The tips of the matmul report, with and without the figures the
 * always-live and imbalance tips need, and of the out-of-memory one:
 * the kinds and counts the rules ask for, in order; a bad argument is
 * refused. */
static void test_tips(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	tsr_summary_figures *fig = NULL;
	tsr_summary_tip *tips = NULL;
	size_t n = 1;

	assert_int_equal(tsr_summary_figures_list_tips(&tips, &n, NULL), TSR_ERR_INVALID_ARGUMENT);
	for (int pass = 0; pass < 2; pass++) {
		size_t want[4], got[4] = {0};

		o.show_var_storage = o.show_execution_steps = pass == 0;
		assert_int_equal(tsr_summary_figures_new(&fig, f->report, &o), TSR_OK);
		expected_tips(want, f, fig);
		assert_int_equal(tsr_summary_figures_list_tips(&tips, &n, fig), TSR_OK);
		for (size_t i = 0; i < n; i++) {
			assert_true(tips[i].kind <= TSR_TIP_IMBALANCE);
			assert_true(!i || tips[i].kind >= tips[i - 1].kind);
			assert_true(tips[i].saving > 0 && strlen(tips[i].text) > 0);
			got[tips[i].kind]++;
		}
		for (int k = 0; k < 4; k++)
			assert_int_equal(got[k], want[k]);
		free(tips);
		tsr_summary_figures_free(fig);
	}
}

/* --- The public figures ------------------------------------------------------ */

/* Checks one memory part of the figures against the report.h queries. */
static void check_memory_part(tsr_fixture *f, const tsr_summary_figures *fig,
                              const tsr_summary_memory *m, int ipu)
{
	tsr_memory_totals tot;
	tsr_category_memory *cats = NULL;
	tsr_vertex_memory vm;
	size_t n_cats = 0, tiles = 0;
	uint64_t not_overlapped = 0, overlapped = 0, by_type = 0;

	assert_int_equal(m->ipu, ipu);
	assert_int_equal(tsr_report_fill_memory_totals(&tot, f->report, ipu), TSR_OK);
	assert_int_equal(m->totals.total, tot.total);
	assert_int_equal(m->totals.total_including_gaps, tot.total_including_gaps);
	assert_int_equal(m->totals.capacity, tot.capacity);
	assert_int_equal(m->totals.max_tile_bytes, tot.max_tile_bytes);
	assert_true(tot.total > 0);

	/* Every category once, the guide's labels, sums of the report's. */
	assert_int_equal(tsr_report_list_memory_by_category(&cats, &n_cats, f->report, ipu), TSR_OK);
	assert_int_equal(m->n_categories, n_cats);
	assert_int_equal(n_cats, tsr_category_count());
	assert_string_equal(m->categories[0].label, "Variables");
	assert_int_equal(m->categories[0].memory.category, TSR_MEM_VARIABLE);
	for (size_t c = 0; c < n_cats; c++) {
		size_t k, seen = 0;

		for (k = 0; k < m->n_categories; k++) {
			if (m->categories[k].memory.category != cats[c].category)
				continue;
			seen++;
			assert_int_equal(m->categories[k].memory.total, cats[c].total);
			assert_int_equal(m->categories[k].memory.overlapped, cats[c].overlapped);
			assert_int_equal(m->categories[k].memory.non_overlapped, cats[c].non_overlapped);
		}
		assert_int_equal(seen, 1);
		not_overlapped += cats[c].non_overlapped;
		overlapped += cats[c].overlapped;
	}
	free(cats);
	assert_int_equal(m->not_overlapped, not_overlapped);
	assert_int_equal(m->overlapped, overlapped);
	assert_int_equal(m->after_overlapping, tot.total - not_overlapped);

	/* Vertex memory: the types add up to the total, fullest first. */
	assert_int_equal(tsr_report_fill_vertex_memory_totals(&vm, f->report, ipu), TSR_OK);
	assert_int_equal(m->vertex.total, vm.total);
	assert_int_equal(m->vertex_data + m->vertex.code, vm.total);
	for (size_t i = 0; i < m->n_vertex_types; i++) {
		assert_true(m->vertex_types[i].bytes > 0);
		if (i)
			assert_true(m->vertex_types[i - 1].bytes >= m->vertex_types[i].bytes);
		by_type += m->vertex_types[i].bytes;
	}
	assert_int_equal(by_type, vm.total);

	/* The histogram counts every tile of the part once. */
	for (size_t b = 0; b < m->n_buckets; b++) {
		tiles += m->histogram[b];
		if (m->histogram[b]) {
			assert_true(b >= m->first_bucket && b < m->end_bucket);
			assert_true(m->histogram[b] <= m->max_bucket);
		}
	}
	assert_int_equal(tiles, ipu < 0 ? fig->target->num_tiles : fig->target->tiles_per_ipu);
	assert_true(m->bucket_width > 0 && m->bucket_width % 1024 == 0);
	assert_true(m->n_buckets * m->bucket_width > tot.max_tile_excluding_gaps_bytes);
}

/* The figures a GUI reads equal the report.h queries: memory totals and
 * categories per part, the IPUs' parts adding up to all IPUs', liveness,
 * the run's execution, steps; the text shows the same. */
static void test_public_figures(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	tsr_summary_figures *fig = NULL;
	const tsr_run *runs;
	const tsr_step *steps;
	const tsr_liveness_step *lsteps;
	tsr_activity act;
	tsr_summary_named_bytes *live = NULL;
	size_t n_runs, n_steps, n_lsteps, peak_step, n_live = 0, *idx = NULL, n_idx = 0;
	const tsr_variable *vars;
	const tsr_program *progs;
	size_t n_vars, n_progs;
	uint64_t peak_bytes, sum[5] = {0}, live_bytes = 0, want_live = 0;
	char *text;

	o.run = 0;
	assert_int_equal(tsr_summary_figures_new(&fig, f->report, &o), TSR_OK);
	assert_non_null(fig);
	assert_ptr_equal(fig->target, tsr_report_get_target(f->report));
	assert_ptr_equal(fig->counts, tsr_report_get_counts(f->report));
	assert_true(fig->opts.show_per_ipu_memory);

	/* Memory: all IPUs, then each; the IPUs add up to the whole. */
	assert_true(fig->target->num_ipus > 1);
	assert_int_equal(fig->n_memory, 1 + fig->target->num_ipus);
	check_memory_part(f, fig, &fig->memory[0], -1);
	for (unsigned i = 0; i < fig->target->num_ipus; i++) {
		const tsr_summary_memory *m = &fig->memory[1 + i];

		check_memory_part(f, fig, m, (int)i);
		sum[0] += m->totals.total;
		sum[1] += m->totals.total_including_gaps;
		sum[2] += m->not_overlapped + m->overlapped;
		sum[3] += m->vertex.total;
		sum[4] += m->n_oom_tiles;
	}
	assert_int_equal(sum[0], fig->memory[0].totals.total);
	assert_int_equal(sum[1], fig->memory[0].totals.total_including_gaps);
	assert_int_equal(sum[2], fig->memory[0].not_overlapped + fig->memory[0].overlapped);
	assert_int_equal(sum[3], fig->memory[0].vertex.total);
	assert_int_equal(sum[4], fig->memory[0].n_oom_tiles);
	assert_int_equal(fig->memory[0].n_oom_tiles, 0);

	/* Liveness. */
	assert_int_equal(fig->always_live_bytes, tsr_report_get_always_live_bytes(f->report));
	assert_int_equal(tsr_report_get_peak_liveness(&peak_step, &peak_bytes, f->report), TSR_OK);
	assert_true(fig->has_peak);
	assert_int_equal(fig->peak_step, peak_step);
	assert_int_equal(fig->peak_bytes, peak_bytes);
	assert_int_equal(fig->max_live_bytes, fig->always_live_bytes + peak_bytes);
	assert_int_equal(tsr_report_get_liveness_steps(&lsteps, &n_lsteps, f->report), TSR_OK);
	assert_int_equal(fig->n_liveness_steps, n_lsteps);
	assert_int_equal(tsr_report_get_programs(&progs, &n_progs, f->report), TSR_OK);
	for (size_t i = 0; i < n_lsteps; i++) {
		assert_ptr_equal(fig->liveness_steps[i].step, &lsteps[i]);
		assert_int_equal(fig->liveness_steps[i].program_type,
		                 lsteps[i].program < n_progs ? (int)progs[lsteps[i].program].program_type
		                                             : TSR_PROGRAM_NONE);
		assert_non_null(tsr_program_type_name(fig->liveness_steps[i].program_type));
	}
	/* The peak step's live variables: merged by name, in name order,
	 * their bytes those of the not-always-live variables live there. */
	assert_int_equal(tsr_summary_figures_list_live_variables(&live, &n_live, fig, peak_step),
	                 TSR_OK);
	assert_int_equal(tsr_report_get_variables(&vars, &n_vars, f->report), TSR_OK);
	assert_int_equal(tsr_report_list_live_variables(&idx, &n_idx, f->report, peak_step), TSR_OK);
	for (size_t i = 0; i < n_idx; i++)
		if (!vars[idx[i]].always_live)
			want_live += vars[idx[i]].bytes;
	free(idx);
	assert_true(n_live > 0);
	for (size_t i = 0; i < n_live; i++) {
		if (i)
			assert_true(strcmp(live[i - 1].name, live[i].name) < 0);
		live_bytes += live[i].bytes;
	}
	assert_int_equal(live_bytes, want_live);
	free(live);
	assert_int_equal(tsr_summary_figures_list_live_variables(&live, &n_live, fig, n_lsteps),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_null(live);

	/* Execution of run 0, as asked. */
	assert_int_equal(tsr_report_get_runs(&runs, &n_runs, f->report), TSR_OK);
	assert_true(fig->has_run);
	assert_int_equal(fig->n_runs, n_runs);
	assert_int_equal(fig->run, 0);
	assert_int_equal(fig->program, runs[0].program);
	assert_int_equal(tsr_report_fill_run_activity(&act, f->report, 0), TSR_OK);
	assert_int_equal(fig->activity.cycles, act.cycles);
	assert_int_equal(fig->activity.tile_cycles.compute, act.tile_cycles.compute);
	assert_close(fig->tile_balance,
	             (double)act.tile_cycles.compute / ((double)act.cycles * fig->target->num_tiles),
	             1e-12);
	assert_close(fig->thread_balance,
	             (double)act.tile_cycles.active_compute / (double)act.tile_cycles.compute, 1e-12);
	assert_true(fig->n_vertex_type_cycles > 0);
	for (size_t i = 0; i < fig->n_vertex_type_cycles; i++) {
		assert_true(fig->vertex_type_cycles[i].executions > 0);
		assert_true(fig->vertex_type_cycles[i].vertex_type < fig->n_vertex_types);
	}
	assert_int_equal(tsr_report_get_steps(&steps, &n_steps, f->report, 0), TSR_OK);
	assert_int_equal(fig->n_steps, n_steps);
	for (size_t i = 0; i < n_steps; i++) {
		assert_ptr_equal(fig->steps[i].step, &steps[i]);
		if (steps[i].type != TSR_STEP_ON_TILE_EXECUTE)
			assert_int_equal(fig->steps[i].n_vertex_types, 0);
		if (steps[i].type == TSR_STEP_SYNC)
			assert_null(fig->steps[i].name);
	}
	for (size_t i = 1; i < fig->n_optimizations; i++)
		assert_true(strcmp(fig->optimizations[i - 1].key, fig->optimizations[i].key) < 0);

	/* The text prints these figures. */
	text = summary_text(f, &o);
	assert_int_equal(number_after(text, "    Including Gaps:"),
	                 fig->memory[0].totals.total_including_gaps);
	assert_int_equal(number_after(text, "    Maximum live bytes (including always-live):"),
	                 fig->max_live_bytes);
	assert_int_equal(number_after(text, "  Total cycles:"), fig->activity.cycles);
	free(text);
	tsr_summary_figures_free(fig);

	/* Without the options: one memory part, no steps or liveness tree. */
	assert_int_equal(tsr_summary_figures_new(&fig, f->report, NULL), TSR_OK);
	assert_int_equal(fig->n_memory, 1);
	assert_int_equal(fig->n_liveness_steps, 0);
	assert_int_equal(fig->n_steps, 0);
	assert_int_equal(fig->n_optimizations, 0);
	assert_int_equal(fig->run, n_runs - 1);
	tsr_summary_figures_free(fig);

	/* Bad options: an error, *out NULL. */
	fig = (tsr_summary_figures *)&o;
	o.run = (int64_t)n_runs;
	assert_int_equal(tsr_summary_figures_new(&fig, f->report, &o), TSR_ERR_OUT_OF_RANGE);
	assert_null(fig);
	o = all_options();
	o.version = 99;
	assert_int_equal(tsr_summary_figures_new(&fig, f->report, &o), TSR_ERR_INVALID_ARGUMENT);
	assert_null(fig);
	assert_int_equal(tsr_summary_figures_new(NULL, f->report, NULL), TSR_ERR_INVALID_ARGUMENT);
	tsr_summary_figures_free(NULL);
}

/* The variables of `step`, not always live, merged by name: what
 * tsr_summary_figures_list_live_variables must answer, from the
 * variables' intervals. Returns how many names, their bytes summed in
 * `bytes`. */
static size_t brute_live(const tsr_variable *vars, size_t nv, size_t step, uint64_t *bytes)
{
	size_t n = 0;

	*bytes = 0;
	for (size_t i = 0; i < nv; i++) {
		bool first = true;

		if (vars[i].always_live || vars[i].live_from < 0 || (size_t)vars[i].live_from > step ||
		    (size_t)vars[i].live_to < step)
			continue;
		*bytes += vars[i].bytes;
		for (size_t k = 0; k < i && first; k++)
			first = !(!vars[k].always_live && vars[k].live_from >= 0 &&
			          (size_t)vars[k].live_from <= step && (size_t)vars[k].live_to >= step &&
			          strcmp(vars[k].name ? vars[k].name : "", vars[i].name ? vars[i].name : "") == 0);
		n += first;
	}
	return n;
}

/* The live variables of every liveness step, asked in order, backwards,
 * twice the same and by strides (the list is a sweep over the steps
 * that starts again when asked for an earlier one): each equal to the
 * variables' intervals; a step past the last is refused. */
static void test_live_variables_any_order(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	tsr_summary_figures *fig;
	const tsr_liveness_step *steps;
	const tsr_variable *vars;
	size_t n_steps, nv, n_orders = 4, checked_names = 0;

	assert_int_equal(tsr_report_get_liveness_steps(&steps, &n_steps, f->report), TSR_OK);
	assert_int_equal(tsr_report_get_variables(&vars, &nv, f->report), TSR_OK);
	assert_true(n_steps > 4);
	assert_int_equal(tsr_summary_figures_new(&fig, f->report, &o), TSR_OK);
	for (size_t order = 0; order < n_orders; order++) {
		for (size_t k = 0; k < n_steps; k++) {
			size_t step = order == 0 ? k : order == 1 ? n_steps - 1 - k
			            : order == 2 ? k / 2 : (k * 7) % n_steps;
			tsr_summary_named_bytes *live;
			size_t n_live;
			uint64_t want_bytes, got_bytes = 0;
			size_t want = brute_live(vars, nv, step, &want_bytes);

			assert_int_equal(tsr_summary_figures_list_live_variables(&live, &n_live, fig, step),
			                 TSR_OK);
			assert_int_equal(n_live, want);
			for (size_t i = 0; i < n_live; i++) {
				got_bytes += live[i].bytes;
				if (i)
					assert_true(strcmp(live[i - 1].name ? live[i - 1].name : "",
					                   live[i].name ? live[i].name : "") < 0);
			}
			assert_int_equal(got_bytes, want_bytes);
			checked_names += n_live;
			free(live);
		}
	}
	assert_true(checked_names > 0);
	{
		tsr_summary_named_bytes *live = (tsr_summary_named_bytes *)&o;
		size_t n_live = 7;

		assert_int_equal(tsr_summary_figures_list_live_variables(&live, &n_live, fig, n_steps),
		                 TSR_ERR_OUT_OF_RANGE);
		assert_null(live);
		assert_int_equal(n_live, 0);
	}
	tsr_summary_figures_free(fig);
}

/* The out-of-memory report's figures: its tiles, the fullest with their
 * bytes, no run. */
static void test_public_figures_oom(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = all_options();
	tsr_summary_figures *fig = NULL;
	const tsr_tile_memory *tiles;
	const uint32_t *oom;
	size_t n_oom, n_tiles;

	assert_int_equal(tsr_report_get_oom_tiles(&oom, &n_oom, f->report), TSR_OK);
	assert_int_equal(tsr_report_get_tile_memory(&tiles, &n_tiles, f->report), TSR_OK);
	assert_int_equal(tsr_summary_figures_new(&fig, f->report, &o), TSR_OK);
	assert_int_equal(fig->memory[0].n_oom_tiles, n_oom);
	for (size_t i = 0; i < n_oom; i++)
		assert_int_equal(fig->memory[0].oom_tiles[i], oom[i]);
	assert_true(fig->memory[0].n_largest_tiles > 0);
	for (size_t i = 0; i < fig->memory[0].n_largest_tiles; i++) {
		const tsr_summary_tile_bytes *tb = &fig->memory[0].largest_tiles[i];

		assert_true(tb->tile < n_tiles);
		assert_int_equal(tb->bytes, tiles[tb->tile].total_including_gaps);
		if (i)
			assert_true(fig->memory[0].largest_tiles[i - 1].bytes >= tb->bytes);
	}
	assert_true(fig->memory[0].largest_tiles[0].bytes > fig->target->bytes_per_tile);
	assert_false(fig->has_run);
	assert_int_equal(fig->n_steps, 0);
	tsr_summary_figures_free(fig);
}

/* A name holding a terminal escape sequence and invalid UTF-8 is printed
 * cleaned: a report from someone else cannot drive the terminal. */
static void test_hostile_names(void **state)
{
	static const char evil[] = "evil\033]0;owned\007\033[2J\xff\xc0\x80name\xc3\xa9";
	tsi_ipu_model_options mo = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *device = NULL;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	tsi_options *opts = tsi_options_new();
	tsi_program *prog;
	tsi_tensor *v;
	tsr_report *report = NULL;
	tsr_summary_options o = all_options();
	tsi_test_capture cap;
	char *dir = tsi_test_mkdtemp(), rdir[600], *json = NULL;
	const char *text;
	cJSON *root;
	const cJSON *it;
	int found = 0;

	(void)state;
	snprintf(rdir, sizeof(rdir), "%s/report", dir);
	mo.tiles_per_ipu = 4;
	assert_int_equal(tsi_device_new_ipu_model(&device, &mo), TSI_OK);
	assert_int_equal(tsi_graph_new(&graph, tsi_device_get_target(device), 1), TSI_OK);
	v = tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(4), evil);
	assert_non_null(v);
	assert_int_equal(tsi_graph_set_tile_mapping(graph, v, 1), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(graph, "h", v), TSI_OK);
	prog = tsi_prog_sequence(graph, "main");
	assert_non_null(prog);
	assert_non_null(opts);
	assert_int_equal(tsi_options_set(opts, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(opts, "autoReport.directory", rdir), TSI_OK);
	assert_int_equal(tsi_engine_new(&engine, graph, &prog, 1, opts), TSI_OK);
	assert_int_equal(tsi_engine_wait_reports(engine), TSI_OK);
	if (tsr_report_open(&report, rdir, NULL) != TSR_OK)
		fail_msg("opening the report: %s", tsr_last_error());

	tsi_test_capture_open(&cap);
	assert_int_equal(tsr_summary_print(cap.file, report, &o), TSR_OK);
	text = tsi_test_capture_text(&cap);
	assert_non_null(strstr(text, "evil?]0;owned??[2J???name\xc3\xa9"));
	assert_null(strchr(text, '\033'));
	assert_null(strchr(text, '\007'));
	assert_null(strchr(text, '\xff'));
	tsi_test_capture_close(&cap);

	assert_int_equal(tsr_summary_dup_json(&json, report, &o), TSR_OK);
	root = cJSON_Parse(json);
	assert_non_null(root);
	assert_non_null(strstr(json, "evil?]0;owned??[2J???name\xc3\xa9"));
	assert_null(strchr(json, '\xff'));
	/* The largest variables (the summary page's) hold it cleaned too. */
	cJSON_ArrayForEach(it, member(root, "largestVariables"))
		found += strcmp(member(it, "name")->valuestring, "evil?]0;owned??[2J???name\xc3\xa9") == 0;
	assert_int_equal(found, 1);
	cJSON_Delete(root);
	free(json);

	tsr_report_free(report);
	tsi_engine_free(engine);
	tsi_options_free(opts);
	tsi_graph_free(graph);
	tsi_device_free(device);
	tsi_test_rmtree(dir);
}

/* Each test builds its own fixture in its own temporary directory. */
/* Issue 17: show_operations prints every debug context with its memory
 * and the run's cycles, FLOPs and utilisation, indented under its parent,
 * the same figures in JSON as reportlib's operations; a version 1 options
 * struct (without the field) still works and shows none. */
static void test_operations(void **state)
{
	tsr_fixture *f = *state;
	tsr_summary_options o = TSR_SUMMARY_OPTIONS_INIT;
	tsr_operation *ops = NULL;
	const tsr_run *runs;
	size_t n_ops = 0, n_runs;
	const cJSON *arr, *it;
	char *text, *json = NULL;
	cJSON *root;
	size_t i = 0;

	assert_int_equal(tsr_report_get_runs(&runs, &n_runs, f->report), TSR_OK);
	assert_int_equal(tsr_report_list_operations(&ops, &n_ops, f->report, (int64_t)n_runs - 1),
	                 TSR_OK);
	assert_true(n_ops > 2);
	o.show_operations = true;
	text = summary_text(f, &o);
	assert_non_null(strstr(text, "Operations (run shown; descendants included):"));
	assert_non_null(strstr(text, "utilisation"));
	/* layer1 at the top, fc (poplin) under it, indented. */
	assert_non_null(strstr(text, "\n  layer1 "));
	assert_non_null(strstr(text, "\n    fc "));
	free(text);

	assert_int_equal(tsr_summary_dup_json(&json, f->report, &o), TSR_OK);
	root = cJSON_Parse(json);
	assert_non_null(root);
	arr = member(root, "operations");
	assert_int_equal(cJSON_GetArraySize(arr), (int)n_ops);
	cJSON_ArrayForEach(it, arr) {
		const tsr_operation *op = &ops[i++];
		const cJSON *u = member(it, "utilisation");

		assert_json_u64(it, "id", op->id);
		assert_string_equal(member(it, "name")->valuestring, op->name);
		assert_json_u64(it, "memoryBytes", op->variable_bytes + op->vertex_bytes);
		assert_json_u64(it, "cycles", op->cycles);
		assert_json_u64(it, "flops", op->flops);
		if (op->cycles)
			assert_true(cJSON_IsNumber(u) && u->valuedouble >= 0 && u->valuedouble <= 1);
		else
			assert_true(cJSON_IsNull(u));
		if (op->parent)
			assert_json_u64(it, "depth", 1 + (uint64_t)member(cJSON_GetArrayItem(
			                                      arr, (int)op->parent - 1), "depth")->valuedouble);
	}
	cJSON_Delete(root);
	free(json);

	/* Version 1 of the options: no show_operations field read. */
	{
		tsr_summary_options v1 = TSR_SUMMARY_OPTIONS_INIT;

		v1.version = 1;
		v1.show_operations = true; /* past a version 1 struct: ignored */
		text = summary_text(f, &v1);
		assert_null(strstr(text, "Operations ("));
		free(text);
	}
	free(ops);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_layout_order, setup_matmul, teardown),
	    cmocka_unit_test_setup_teardown(test_figures, setup_matmul, teardown),
	    cmocka_unit_test_setup_teardown(test_vertex_type_cycles, setup_matmul, teardown),
	    cmocka_unit_test_setup_teardown(test_colours, setup_matmul, teardown),
	    cmocka_unit_test_setup_teardown(test_json, setup_matmul, teardown),
	    cmocka_unit_test_setup_teardown(test_json_page, setup_matmul, teardown),
	    cmocka_unit_test_setup_teardown(test_json_page, setup_oom, teardown),
	    cmocka_unit_test_setup_teardown(test_arguments, setup_matmul, teardown),
	    cmocka_unit_test_setup_teardown(test_golden, setup_matmul, teardown),
	    cmocka_unit_test_setup_teardown(test_live_variables_any_order, setup_matmul, teardown),
	    cmocka_unit_test_setup_teardown(test_oom, setup_oom, teardown),
	    cmocka_unit_test_setup_teardown(test_tips_oom, setup_oom, teardown),
	    cmocka_unit_test_setup_teardown(test_tips, setup_matmul, teardown),
	    cmocka_unit_test_setup_teardown(test_tips, setup_oom, teardown),
	    cmocka_unit_test_setup_teardown(test_public_figures, setup_matmul, teardown),
	    cmocka_unit_test_setup_teardown(test_public_figures_oom, setup_oom, teardown),
	    cmocka_unit_test(test_hostile_names),
	    cmocka_unit_test_setup_teardown(test_operations, setup_matmul, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
