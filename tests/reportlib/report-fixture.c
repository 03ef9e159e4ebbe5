/* The models reportlib's tests read (see report-fixture.h). */
#include "report-fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tilescope/export.h>
#include <tilescope/poplin.h>
#include <tilescope/pvti.h>
#include <tilescope/popops.h>
#include <tilescope/summary.h>

/* The matmul model of TSR_FIXTURE_MATMUL; programs into progs[0..2). */
static void build_matmul(tsr_fixture *f, tsi_program *progs[2])
{
	tsi_graph *g = f->graph;
	tsi_tensor *a, *b, *c, *d, *e, *remote;
	tsi_stream *in, *out;
	tsi_program *body;
	tsi_debug_id layer;

	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	assert_int_equal(tsi_poplin_add_codelets(g), TSI_OK);
	progs[0] = tsi_prog_sequence(g, "main");
	progs[1] = tsi_prog_sequence(g, "other");
	a = tsi_poplin_create_matmul_input_lhs(g, TSI_FLOAT, 24, 32, 16, "a");
	b = tsi_poplin_create_matmul_input_rhs(g, TSI_FLOAT, 24, 32, 16, "b");
	assert_non_null(a);
	assert_non_null(b);
	in = tsi_graph_add_host_to_device_fifo(g, "a_in", TSI_FLOAT, 24 * 32,
	                                       TSI_REPLICATED_STREAM_BROADCAST);
	out = tsi_graph_add_device_to_host_fifo(g, "d_out", TSI_FLOAT, 24 * 16);
	assert_non_null(in);
	assert_non_null(out);
	assert_int_equal(tsi_graph_create_host_write(g, "b", b), TSI_OK);
	assert_int_equal(tsi_sequence_add(progs[0], tsi_prog_copy_from_stream(g, in, a)), TSI_OK);

	layer = tsi_debug_push(g, "layer1", NULL);
	c = tsi_poplin_matmul(g, a, b, progs[0], "fc");
	assert_non_null(c);
	d = tsi_popops_add(g, c, c, progs[0], "double");
	assert_non_null(d);
	tsi_debug_pop(g, layer);

	body = tsi_prog_sequence(g, "body");
	assert_non_null(tsi_popops_mul(g, d, d, body, "square"));
	assert_int_equal(tsi_sequence_add(progs[0], tsi_prog_repeat(g, 3, body)), TSI_OK);

	/* A copy to the second IPU makes a GlobalExchange. */
	remote = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(24, 16), "on_ipu1");
	assert_non_null(remote);
	assert_int_equal(tsi_graph_map_linearly(tsi_graph_create_virtual(g, 16, 32), remote, 1),
	                 TSI_OK);
	assert_int_equal(tsi_sequence_add(progs[0], tsi_prog_copy(g, d, remote)), TSI_OK);
	assert_int_equal(tsi_sequence_add(progs[0], tsi_prog_copy_to_stream(g, remote, out)),
	                 TSI_OK);

	e = tsi_popops_sub(g, b, b, progs[1], "zero");
	assert_non_null(e);
}

/* The overflowing model of TSR_FIXTURE_OOM. */
static void build_oom(tsr_fixture *f, tsi_program *progs[2])
{
	tsi_graph *g = f->graph;
	tsi_tensor *big = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(200000), "big");

	assert_non_null(big);
	assert_int_equal(tsi_graph_set_tile_mapping(g, big, 0), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(g, "big", big), TSI_OK);
	progs[0] = tsi_prog_sequence(g, "main");
	progs[1] = NULL;
}

void tsr_fixture_setup(tsr_fixture *f, tsr_fixture_model model)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_program *progs[2];
	tsi_options *opts = tsi_options_new();
	size_t n_progs;
	int rc;

	memset(f, 0, sizeof(*f));
	f->dir = tsi_test_mkdtemp();
	snprintf(f->report_dir, sizeof(f->report_dir), "%s/report", f->dir);
	snprintf(f->profile_path, sizeof(f->profile_path), "%s/profile.pop", f->report_dir);
	o.num_ipus = model == TSR_FIXTURE_MATMUL ? 2 : 1;
	o.tiles_per_ipu = model == TSR_FIXTURE_MATMUL ? 16 : 4;
	assert_int_equal(tsi_device_new_ipu_model(&f->device, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&f->graph, tsi_device_get_target(f->device), 1), TSI_OK);
	if (model == TSR_FIXTURE_MATMUL)
		build_matmul(f, progs);
	else
		build_oom(f, progs);
	n_progs = progs[1] ? 2 : 1;

	/* Options in code, so that the environment of the test runner
	 * cannot change where the report goes. */
	assert_non_null(opts);
	assert_int_equal(tsi_options_set(opts, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(opts, "autoReport.directory", f->report_dir), TSI_OK);
	rc = tsi_engine_new(&f->engine, f->graph, progs, n_progs, opts);
	tsi_options_free(opts);
	if (rc != TSI_OK)
		fail_msg("compiling the fixture: %s", tsi_error_last());
	f->gp = tsi_engine_get_graph_profile(f->engine);
	if (model == TSR_FIXTURE_MATMUL) {
		float a_in[24 * 32], b_host[32 * 16], d_out[24 * 16];

		for (size_t i = 0; i < 24 * 32; i++)
			a_in[i] = (float)(i % 7) * 0.25f;
		for (size_t i = 0; i < 32 * 16; i++)
			b_host[i] = (float)(i % 5) * 0.5f;
		assert_int_equal(tsi_engine_load(f->engine, f->device), TSI_OK);
		assert_int_equal(tsi_engine_connect_stream(f->engine, "a_in", a_in, a_in + 24 * 32),
		                 TSI_OK);
		assert_int_equal(tsi_engine_connect_stream(f->engine, "d_out", d_out, d_out + 24 * 16),
		                 TSI_OK);
		assert_int_equal(tsi_engine_write_tensor(f->engine, "b", b_host, sizeof(b_host)),
		                 TSI_OK);
		assert_int_equal(tsi_engine_run(f->engine, 0), TSI_OK);
		assert_int_equal(tsi_engine_run(f->engine, 0), TSI_OK);
		assert_int_equal(tsi_engine_run(f->engine, 1), TSI_OK);
	}
	f->n_runs = tsi_engine_num_run_profiles(f->engine);
	assert_true(f->n_runs <= 8);
	for (size_t i = 0; i < f->n_runs; i++)
		f->runs[i] = tsi_engine_get_run_profile(f->engine, i);
	/* The graph profile is written in the background (issue 19). */
	assert_int_equal(tsi_engine_wait_reports(f->engine), TSI_OK);
	if (tsr_report_open(&f->report, f->report_dir, NULL) != TSR_OK)
		fail_msg("opening the fixture's report: %s", tsr_last_error());
}

void tsr_fixture_teardown(tsr_fixture *f)
{
	tsr_report_free(f->report);
	tsi_engine_free(f->engine);
	tsi_graph_free(f->graph);
	tsi_device_free(f->device);
	tsi_test_rmtree(f->dir);
	memset(f, 0, sizeof(*f));
}

/* Counts a failed call (see tsr_fixture_query_all). */
#define QUERY(call) (failed += (call) != TSR_OK)

/* Per-tile and per-IPU queries of one report (tsr_fixture_query_all). */
static size_t query_memory(tsr_report *r, size_t limit, uint64_t *tiles)
{
	const tsr_target *t = tsr_report_get_target(r);
	size_t failed = 0, n, nb;
	const tsr_tile_memory *tm;
	const uint32_t *oom;
	const tsr_variable *vars;
	const tsr_liveness_step *steps;
	const tsr_compute_set *cs;
	const tsr_vertex_type *vt;
	size_t n_cs = 0, n_vt = 0, n_vars = 0, n_steps = 0, step, *live;
	uint64_t peak, width, *counts;
	uint32_t *largest;

	QUERY(tsr_report_fill_relative_sync_delays(tiles, t->num_tiles, r));
	QUERY(tsr_report_get_tile_memory(&tm, &n, r));
	QUERY(tsr_report_get_oom_tiles(&oom, &n, r));
	for (int ipu = -1; ipu < (int)t->num_ipus && ipu < (int)limit; ipu++) {
		tsr_memory_totals mt;
		tsr_category_memory *cats = NULL;
		tsr_vertex_memory vm;

		QUERY(tsr_report_fill_memory_totals(&mt, r, ipu));
		largest = NULL;
		QUERY(tsr_report_list_largest_tiles(&largest, &n, r, ipu, ipu & 1, 10));
		free(largest);
		for (int gaps = 0; gaps < 2; gaps++) {
			counts = NULL;
			QUERY(tsr_report_list_tile_histogram(&counts, &nb, &width, r, ipu, gaps, gaps ? 0 : 4096));
			free(counts);
		}
		QUERY(tsr_report_list_memory_by_category(&cats, &n, r, ipu));
		free(cats);
		QUERY(tsr_report_fill_vertex_memory_totals(&vm, r, ipu));
		if (tsr_report_get_compute_sets(&cs, &n_cs, r) != TSR_OK)
			n_cs = 0;
		for (size_t i = 0; i < n_cs && i < limit; i++)
			QUERY(tsr_report_fill_compute_set_memory(&vm, r, i, ipu));
		if (tsr_report_get_vertex_types(&vt, &n_vt, r) != TSR_OK)
			n_vt = 0;
		for (size_t i = 0; i < n_vt && i < limit; i++)
			QUERY(tsr_report_fill_vertex_type_memory(&vm, r, i, ipu));
	}
	for (size_t c = 0; c < tsr_category_count(); c++)
		QUERY(tsr_report_fill_category_by_tile(tiles, t->num_tiles, r, c));
	for (size_t i = 0; i < n_cs && i < limit; i++)
		for (int active = 0; active < 2; active++)
			QUERY(tsr_report_fill_compute_set_cycles_by_tile(tiles, t->num_tiles, r, i, active));
	if (tsr_report_get_variables(&vars, &n_vars, r) != TSR_OK) {
		failed++;
		n_vars = 0;
	}
	for (size_t i = 0; i < n_vars && i < limit; i++)
		QUERY(tsr_report_fill_variable_by_tile(tiles, t->num_tiles, r, i));
	if (tsr_report_get_liveness_steps(&steps, &n_steps, r) != TSR_OK) {
		failed++;
		n_steps = 0;
	}
	QUERY(tsr_report_get_peak_liveness(&step, &peak, r));
	for (size_t i = 0; i < n_steps && i < limit; i++) {
		QUERY(tsr_report_fill_liveness_by_tile(tiles, t->num_tiles, r, i));
		QUERY(tsr_report_fill_liveness_by_ipu(tiles, t->num_ipus, r, i));
		live = NULL;
		QUERY(tsr_report_list_live_variables(&live, &n, r, i));
		free(live);
	}
	(void)tsr_report_get_always_live_bytes(r);
	return failed;
}

/* Programs, runs, steps and operations (tsr_fixture_query_all). */
static size_t query_execution(tsr_report *r, size_t limit)
{
	size_t failed = 0, n, n_runs = 0;
	const tsr_program *p;
	const uint32_t *list;
	const tsr_exchange *x;
	const tsr_run *runs;
	tsr_vertex_type_cycles *vtc;
	tsr_operation *ops;

	QUERY(tsr_report_get_programs(&p, &n, r));
	QUERY(tsr_report_get_control_programs(&list, &n, r));
	QUERY(tsr_report_get_function_programs(&list, &n, r));
	for (int k = 0; k < TSR_EXCHANGE_KIND_COUNT; k++)
		QUERY(tsr_report_get_exchanges(&x, &n, r, (tsr_exchange_kind)k));
	if (tsr_report_get_runs(&runs, &n_runs, r) != TSR_OK) {
		failed++;
		n_runs = 0;
	}
	for (size_t i = 0; i < n_runs && i < limit; i++) {
		const tsr_step *steps;
		const uint32_t *trace;
		const tsr_frame *frames;
		tsr_activity act;
		tsr_flops fl;

		QUERY(tsr_report_get_steps(&steps, &n, r, i));
		QUERY(tsr_report_get_program_trace(&trace, &n, r, i));
		QUERY(tsr_report_get_frames(&frames, &n, r, i));
		QUERY(tsr_report_fill_run_activity(&act, r, i));
		QUERY(tsr_report_fill_run_flops(&fl, r, i, i & 1));
	}
	for (int64_t run = -1; run < (int64_t)n_runs && run < (int64_t)limit; run++) {
		vtc = NULL;
		QUERY(tsr_report_list_cycles_by_vertex_type(&vtc, &n, r, run));
		free(vtc);
		ops = NULL;
		QUERY(tsr_report_list_operations(&ops, &n, r, run));
		free(ops);
	}
	return failed;
}

size_t tsr_fixture_query_all(tsr_report *r, size_t limit, bool formatters)
{
	const tsr_target *t = tsr_report_get_target(r);
	uint64_t *tiles;
	size_t failed = 0;

	if (!r || !t)
		return 1;
	(void)tsr_report_get_info(r);
	(void)tsr_report_get_counts(r);
	tiles = calloc(t->num_tiles + t->num_ipus + 1, sizeof(*tiles));
	if (!tiles)
		return 1;
	failed += query_memory(r, limit, tiles);
	failed += query_execution(r, limit);
	free(tiles);
	if (formatters) {
		tsr_summary_options so = TSR_SUMMARY_OPTIONS_INIT;
		FILE *null = fopen("/dev/null", "w");
		char *json = NULL;
		void *blob;
		size_t len;

		so.show_var_storage = so.show_execution_steps = so.show_per_ipu_memory = true;
		so.show_optimizations = true;
		so.colours = TSR_COLOURS_NEVER;
		if (null) {
			QUERY(tsr_summary_print(null, r, &so));
			fclose(null);
		}
		QUERY(tsr_summary_dup_json(&json, r, &so));
		free(json);
		{
			tsr_summary_figures *fig = NULL;
			tsr_summary_tip *tips = NULL;

			if (!QUERY(tsr_summary_figures_new(&fig, r, &so)))
				QUERY(tsr_summary_figures_list_tips(&tips, &len, fig));
			free(tips);
			tsr_summary_figures_free(fig);
		}
		for (int fmt = 0; fmt < 2; fmt++) {
			blob = NULL;
			QUERY(tsr_export_graph_profile(&blob, &len, r, (tsr_export_format)fmt));
			free(blob);
			blob = NULL;
			QUERY(tsr_export_execution_profile(&blob, &len, r, (tsr_export_format)fmt));
			free(blob);
		}
	}
	return failed;
}

/* A heap fixture of `model` in *state (cmocka setup). */
static int fixture_new(void **state, tsr_fixture_model model)
{
	tsr_fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	tsr_fixture_setup(f, model);
	*state = f;
	return 0;
}

int tsr_fixture_new_matmul(void **state)
{
	return fixture_new(state, TSR_FIXTURE_MATMUL);
}

int tsr_fixture_new_oom(void **state)
{
	return fixture_new(state, TSR_FIXTURE_OOM);
}

int tsr_fixture_delete(void **state)
{
	tsr_fixture *f = *state;

	tsr_fixture_teardown(f);
	free(f);
	return 0;
}

/* --- Traces ---------------------------------------------------------------- */

char *tsr_fixture_make_trace(const char *dir, long outers)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *fw = pvti_channel_framework();
	char *path;

	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	assert_non_null(path);
	assert_int_equal(pvti_thread_set_name("main"), 0);
	for (long i = 0; i < outers; i++) {
		pvti_begin(fw, "outer");
		for (int j = 0; j < 4; j++) {
			pvti_begin(fw, j == 2 ? "needle" : "inner");
			pvti_end(fw);
		}
		pvti_end(fw);
	}
	assert_int_equal(pvti_close(), 0);
	return path;
}

int tsr_fixture_trace_dir_new(void **state)
{
	*state = tsi_test_mkdtemp();
	return 0;
}

int tsr_fixture_trace_dir_delete(void **state)
{
	pvti_close();
	tsi_test_rmtree(*state);
	return 0;
}
