/*
 * Opening reports written by real models and what is read at open: info,
 * target, graph counts, programs with their children, control and
 * function programs, compute sets (with vertex counts), vertex types,
 * exchanges and runs, each compared with the simulator's own in-memory
 * profile; the opening errors and NULL / out-of-range arguments.
 */
#include "report-fixture.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Info and target agree with the in-memory profile and the options. */
static void test_info_target(void **state)
{
	tsr_fixture *f = *state;
	const tsr_report_info *info = tsr_report_get_info(f->report);
	const tsr_target *t = tsr_report_get_target(f->report);
	const tsi_target *gt = &f->gp->target;
	bool dir_seen = false;

	assert_non_null(info);
	assert_non_null(t);
	assert_int_equal(info->schema_version, 1);
	assert_true(strlen(info->tilescope_version) > 0);
	assert_true(strlen(info->created) >= 20);
	assert_int_equal(info->profiler, (int)f->gp->profiler_mode);
	assert_string_equal(info->profiler_name, tsi_profiler_mode_name(f->gp->profiler_mode));
	assert_string_equal(tsr_profiler_mode_name(info->profiler), info->profiler_name);
	for (size_t i = 0; i < info->n_options; i++)
		if (!strcmp(info->option_names[i], "autoReport.directory")) {
			assert_string_equal(info->option_values[i], f->report_dir);
			dir_seen = true;
		}
	assert_true(dir_seen);
	assert_int_equal(t->num_ipus, gt->num_ipus);
	assert_int_equal(t->tiles_per_ipu, gt->tiles_per_ipu);
	assert_int_equal(t->num_tiles, gt->num_tiles);
	assert_int_equal(t->bytes_per_tile, gt->bytes_per_tile);
	assert_int_equal(t->total_memory, (uint64_t)gt->bytes_per_tile * gt->num_tiles);
	assert_int_equal(t->clock_frequency, gt->clock_hz);
	assert_string_equal(t->name, gt->name);
	assert_int_equal(t->version, (int)gt->version);
	assert_string_equal(t->version_name, tsr_ipu_version_name(t->version));
	assert_int_equal(t->num_worker_contexts, gt->num_worker_contexts);
	assert_int_equal(t->fp32_flops_per_cycle, gt->fp32_flops_per_cycle);
	assert_int_equal(t->fp16_amp_flops_per_cycle, gt->fp16_amp_flops_per_cycle);
	assert_int_equal(t->replication_factor, f->gp->replication_factor);
	assert_int_equal(t->min_sync_delay, f->gp->min_sync_delay);
	assert_string_equal(tsr_report_get_path(f->report), f->profile_path);
	assert_non_null(tsr_report_get_debug_info_path(f->report));
	assert_string_equal(tsr_report_error(f->report), "");

	{
		uint64_t *d = calloc(t->tiles_per_ipu, sizeof(*d));

		assert_non_null(d);
		assert_int_equal(tsr_report_fill_relative_sync_delays(d, t->tiles_per_ipu, f->report),
		                 TSR_OK);
		for (unsigned i = 0; i < t->tiles_per_ipu; i++)
			assert_int_equal(d[i], f->gp->relative_sync_delay_by_tile[i]);
		assert_int_equal(tsr_report_fill_relative_sync_delays(d, t->tiles_per_ipu - 1, f->report),
		                 TSR_ERR_INVALID_ARGUMENT);
		free(d);
	}
}

/* Graph counts and the tables' row counts. */
static void test_counts(void **state)
{
	tsr_fixture *f = *state;
	const tsr_graph_counts *c = tsr_report_get_counts(f->report);
	const tsi_graph_profile *gp = f->gp;

	assert_non_null(c);
	assert_int_equal(c->compute_sets, gp->num_compute_sets);
	assert_int_equal(c->edges, gp->num_edges);
	assert_int_equal(c->variables, gp->num_vars);
	assert_int_equal(c->vertices, gp->num_vertices);
	assert_int_equal(c->programs, gp->n_programs);
	assert_int_equal(c->control_programs, gp->n_control_programs);
	assert_int_equal(c->function_programs, gp->n_function_programs);
	assert_int_equal(c->vertex_types, gp->n_vertex_types);
	assert_int_equal(c->internal_exchanges, gp->n_exchanges[TSI_EXCHANGE_INTERNAL]);
	assert_int_equal(c->external_exchanges, gp->n_exchanges[TSI_EXCHANGE_EXTERNAL]);
	assert_int_equal(c->host_exchanges, gp->n_exchanges[TSI_EXCHANGE_HOST]);
	assert_int_equal(c->liveness_steps, gp->n_liveness);
	assert_int_equal(c->debug_contexts, gp->n_debug_contexts);
	assert_int_equal(c->runs, f->n_runs);
}

/* Every program with its children, compute set, exchange, sync ... */
static void test_programs(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	const tsr_program *p;
	const uint32_t *list;
	size_t n, children = 0, calls = 0;

	assert_int_equal(tsr_report_get_programs(&p, &n, f->report), TSR_OK);
	assert_int_equal(n, gp->n_programs);
	assert_true(n > 10);
	for (size_t i = 0; i < n; i++) {
		const tsi_lowered_program *g = &gp->programs[i];

		assert_int_equal(p[i].program_type, (int)g->type);
		assert_string_equal(tsr_program_type_name(p[i].program_type), tsi_lowered_type_name(g->type));
		if (g->name)
			assert_string_equal(p[i].name, g->name);
		else
			assert_null(p[i].name);
		assert_int_equal(p[i].n_children, g->n_children);
		for (uint32_t k = 0; k < g->n_children; k++)
			assert_int_equal(p[i].children[k], g->children[k]);
		children += g->n_children;
		assert_int_equal(p[i].compute_set,
		                 g->type == TSI_LP_ON_TILE_EXECUTE ? g->compute_set : -1);
		if (g->type == TSI_LP_DO_EXCHANGE || g->type == TSI_LP_GLOBAL_EXCHANGE ||
		    g->type == TSI_LP_STREAM_COPY) {
			assert_int_equal(p[i].exchange, g->exchange);
			assert_int_equal(p[i].exchange_kind,
			                 g->type == TSI_LP_DO_EXCHANGE       ? TSR_EXCHANGE_INTERNAL
			                 : g->type == TSI_LP_GLOBAL_EXCHANGE ? TSR_EXCHANGE_EXTERNAL
			                                                     : TSR_EXCHANGE_HOST);
			assert_int_equal(p[i].code_bytes, g->memory_by_instruction.total);
		} else {
			assert_int_equal(p[i].exchange, -1);
		}
		if (g->type == TSI_LP_REPEAT)
			assert_int_equal(p[i].repeat_count, g->repeat_count);
		if (g->type == TSI_LP_SYNC) {
			assert_int_equal(p[i].sync, (int)g->sync);
			assert_non_null(tsr_sync_type_name(p[i].sync));
		} else {
			assert_int_equal(p[i].sync, TSR_SYNC_NONE);
		}
		if (g->type == TSI_LP_CALL) {
			assert_int_equal(p[i].function, g->function);
			calls++;
		}
		assert_int_equal(p[i].debug_context, g->debug_context ? (int64_t)g->debug_context : -1);
	}
	assert_true(children > 0);
	(void)calls;
	assert_int_equal(tsr_report_get_control_programs(&list, &n, f->report), TSR_OK);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(list[i], gp->control_programs[i]);
	/* Engine programs by the names the model gave them (the compiler's
	 * unnamed control Sequence wraps each); none past the end. */
	assert_string_equal(tsr_report_lookup_engine_program_name(f->report, 0), "main");
	assert_string_equal(tsr_report_lookup_engine_program_name(f->report, 1), "other");
	assert_null(tsr_report_lookup_engine_program_name(f->report, 2));
	assert_null(tsr_report_lookup_engine_program_name(NULL, 0));
	assert_int_equal(tsr_report_get_function_programs(&list, &n, f->report), TSR_OK);
	assert_int_equal(n, gp->n_function_programs);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(list[i], gp->function_programs[i]);
}

/* Compute sets (with vertices and cycles by tile) and vertex types. */
static void test_compute_sets(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	const tsr_target *t = tsr_report_get_target(f->report);
	const tsr_compute_set *cs;
	const tsr_vertex_type *vt;
	uint64_t *cyc = calloc(t->num_tiles, sizeof(*cyc));
	size_t n, nv;
	uint64_t vertices = 0;

	assert_non_null(cyc);
	assert_int_equal(tsr_report_get_compute_sets(&cs, &n, f->report), TSR_OK);
	assert_int_equal(n, gp->n_compute_sets);
	assert_true(n >= 4);
	for (size_t i = 0; i < n; i++) {
		const tsi_compute_set_profile *g = &gp->compute_sets[i];
		uint64_t count = 0;

		assert_string_equal(cs[i].name, g->name);
		for (uint32_t k = 0; k < g->n_types; k++)
			count += g->vertex_counts[k];
		assert_int_equal(cs[i].vertices, count);
		vertices += count;
		assert_int_equal(cs[i].flops, g->flops);
		assert_int_equal(cs[i].cycles, tsi_tile_values_max(&g->cycles_by_tile));
		assert_int_equal(cs[i].cycles_sum, tsi_tile_values_sum(&g->cycles_by_tile));
		assert_int_equal(cs[i].active_cycles, tsi_tile_values_max(&g->active_cycles_by_tile));
		assert_int_equal(cs[i].active_cycles_sum, tsi_tile_values_sum(&g->active_cycles_by_tile));
		assert_int_equal(cs[i].tiles, g->cycles_by_tile.n);
		assert_int_equal(cs[i].debug_context, g->debug_context ? (int64_t)g->debug_context : -1);
		for (int active = 0; active < 2; active++) {
			const tsi_tile_values *tv = active ? &g->active_cycles_by_tile : &g->cycles_by_tile;

			assert_int_equal(tsr_report_fill_compute_set_cycles_by_tile(cyc, t->num_tiles, f->report, i,
			                                                            active),
			                 TSR_OK);
			for (uint32_t tile = 0; tile < t->num_tiles; tile++)
				assert_int_equal(cyc[tile], tsi_tile_values_get(tv, tile));
		}
	}
	/* The compiler's generated copy compute sets have vertices the
	 * graph's own count leaves out. */
	assert_true(vertices >= gp->num_vertices);
	assert_int_equal(tsr_report_fill_compute_set_cycles_by_tile(cyc, t->num_tiles, f->report, n,
	                                                            false),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_report_fill_compute_set_cycles_by_tile(cyc, 1, f->report, 0, false),
	                 TSR_ERR_INVALID_ARGUMENT);
	free(cyc);

	assert_int_equal(tsr_report_get_vertex_types(&vt, &nv, f->report), TSR_OK);
	assert_int_equal(nv, gp->n_vertex_types);
	for (size_t i = 0; i < nv; i++) {
		assert_string_equal(vt[i].name, gp->vertex_types[i].name);
		assert_int_equal(vt[i].state_bytes, gp->vertex_types[i].state_bytes);
		assert_int_equal(vt[i].code_bytes, gp->vertex_types[i].code_bytes);
		assert_int_equal(vt[i].instances, gp->vertex_types[i].instances);
		assert_int_equal(vt[i].flops, gp->vertex_types[i].flops);
	}
}

/* Exchanges of each kind; the matmul model has all three. */
static void test_exchanges(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	const tsr_exchange *x;
	size_t n;

	for (int k = 0; k < TSR_EXCHANGE_KIND_COUNT; k++) {
		assert_int_equal(tsr_report_get_exchanges(&x, &n, f->report, (tsr_exchange_kind)k), TSR_OK);
		assert_int_equal(n, gp->n_exchanges[k]);
		assert_true(n > 0);
		for (size_t i = 0; i < n; i++) {
			const tsi_exchange_profile *g = &gp->exchanges[k][i];

			assert_string_equal(x[i].name, g->name);
			assert_int_equal(x[i].bytes_received, tsi_tile_values_sum(&g->bytes_received));
			assert_int_equal(x[i].bytes_sent, tsi_tile_values_sum(&g->bytes_sent));
			assert_int_equal(x[i].cycles, tsi_tile_values_max(&g->cycles));
			assert_int_equal(x[i].cycles_sum, tsi_tile_values_sum(&g->cycles));
		}
	}
	assert_int_equal(tsr_report_get_exchanges(&x, &n, f->report, TSR_EXCHANGE_KIND_COUNT),
	                 TSR_ERR_INVALID_ARGUMENT);
}

/* Runs as the engine recorded them. */
static void test_runs(void **state)
{
	tsr_fixture *f = *state;
	const tsr_run *runs;
	size_t n;

	assert_int_equal(tsr_report_get_runs(&runs, &n, f->report), TSR_OK);
	assert_int_equal(n, f->n_runs);
	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(runs[i].program, f->runs[i]->program_index);
		assert_int_equal(runs[i].cycles, f->runs[i]->cycles);
		assert_int_equal(runs[i].n_steps, f->runs[i]->n_steps);
		assert_int_equal(runs[i].trace_length, f->runs[i]->n_trace);
		assert_int_equal(runs[i].tile_cycles.compute, f->runs[i]->tile_cycles.compute);
		assert_int_equal(runs[i].tile_cycles.sync, f->runs[i]->tile_cycles.sync);
	}
}

/* Every query of the library works on a good report (the same calls the
 * bad-file and fuzz tests make on damaged ones). */
static void test_query_all(void **state)
{
	tsr_fixture *f = *state;

	assert_int_equal(tsr_fixture_query_all(f->report, 1000, true), 0);
}

/* The OOM model: opened, no runs. */
static void test_oom_opens(void **state)
{
	tsr_fixture *f = *state;
	const tsr_run *runs;
	size_t n;

	assert_int_equal(tsr_report_get_runs(&runs, &n, f->report), TSR_OK);
	assert_int_equal(n, 0);
	assert_int_equal(tsr_report_get_target(f->report)->num_tiles, 4);
}

/* Opening by file and by directory; the opening errors. */
static void test_open_errors(void **state)
{
	tsr_fixture *f = *state;
	tsr_open_options o = TSR_OPEN_OPTIONS_INIT;
	tsr_report *r = (tsr_report *)(uintptr_t)1;
	char path[700];

	assert_int_equal(tsr_report_open(&r, f->profile_path, NULL), TSR_OK);
	assert_string_equal(tsr_report_get_path(r), f->profile_path);
	tsr_report_free(r);

	assert_int_equal(tsr_report_open(NULL, f->profile_path, NULL), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_open(&r, NULL, NULL), TSR_ERR_INVALID_ARGUMENT);
	assert_null(r);
	snprintf(path, sizeof(path), "%s/missing.pop", f->dir);
	assert_int_equal(tsr_report_open(&r, path, NULL), TSR_ERR_NOT_FOUND);
	assert_null(r);
	assert_non_null(strstr(tsr_last_error(), "missing.pop"));
	/* A directory without profile.pop. */
	assert_int_equal(tsr_report_open(&r, f->dir, NULL), TSR_ERR_NOT_FOUND);
	assert_non_null(strstr(tsr_last_error(), "profile.pop"));
	/* debug.cbor is not a database. */
	snprintf(path, sizeof(path), "%s/debug.cbor", f->report_dir);
	assert_int_equal(tsr_report_open(&r, path, NULL), TSR_ERR_NOT_SQLITE);
	o.version = 99;
	assert_int_equal(tsr_report_open(&r, f->profile_path, &o), TSR_ERR_INVALID_ARGUMENT);
	/* A cap too small for the tables read at open. */
	o.version = TSR_OPEN_OPTIONS_VERSION;
	o.memory_cap = 1024;
	assert_int_equal(tsr_report_open(&r, f->profile_path, &o), TSR_ERR_TOO_LARGE);
	assert_null(r);

	assert_string_equal(tsr_error_name(TSR_ERR_CORRUPT), "TSR_ERR_CORRUPT");
	assert_string_equal(tsr_error_name(12345), "unknown");
}

/* NULL handles and out-parameters. */
static void test_null_args(void **state)
{
	tsr_fixture *f = *state;
	const tsr_program *p;
	const tsr_compute_set *cs;
	size_t n;

	(void)state;
	assert_null(tsr_report_get_info(NULL));
	assert_null(tsr_report_get_target(NULL));
	assert_null(tsr_report_get_counts(NULL));
	assert_null(tsr_report_get_path(NULL));
	assert_string_equal(tsr_report_error(NULL), "");
	tsr_report_free(NULL);
	assert_int_equal(tsr_report_get_programs(&p, &n, NULL), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_get_programs(NULL, &n, f->report), TSR_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsr_report_error(f->report), "NULL"));
	assert_int_equal(tsr_report_get_compute_sets(&cs, NULL, f->report), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_fill_relative_sync_delays(NULL, 0, NULL), TSR_ERR_INVALID_ARGUMENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_info_target, tsr_fixture_new_matmul, tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_counts, tsr_fixture_new_matmul, tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_programs, tsr_fixture_new_matmul, tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_compute_sets, tsr_fixture_new_matmul, tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_exchanges, tsr_fixture_new_matmul, tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_runs, tsr_fixture_new_matmul, tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_query_all, tsr_fixture_new_matmul, tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_oom_opens, tsr_fixture_new_oom, tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_open_errors, tsr_fixture_new_oom, tsr_fixture_delete),
		cmocka_unit_test_setup_teardown(test_null_args, tsr_fixture_new_oom, tsr_fixture_delete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
