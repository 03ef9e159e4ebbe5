/*
 * Execution queries (report.h) on the fixture's reports, compared with
 * the simulator's own in-memory run profiles: the runs, every field of
 * every step of every run, the program traces, the totals by activity
 * against the runs' tile cycles, cycles by vertex type against a
 * recomputation from the in-memory compute sets and steps, FLOPs and
 * utilisation; then the errors (bad arguments, runs past the end, a
 * report without runs) and copies of profile.pop whose step and trace
 * rows contradict their runs, each of which must be TSR_ERR_CORRUPT.
 */
#include "report-fixture.h"

#include <tilescope/target.h>

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The matmul fixture is built once for the read-only tests. */
/* The schema's spelling of the simulator's sync types. */
static const char *sync_name(tsi_sync_type t)
{
	switch (t) {
	case TSI_SYNC_INTERNAL:
		return "Internal";
	case TSI_SYNC_EXTERNAL:
		return "External";
	case TSI_SYNC_GLOBAL:
		return "Global";
	}
	return "?";
}

/* Balances: both NaN, or equal (the file stores doubles exactly). */
static void assert_balance(double got, double want)
{
	if (isnan(want))
		assert_true(isnan(got));
	else
		assert_close(got, want, 1e-12);
}

/* The runs match the simulator's: program, length, step and trace
 * counts, tile cycles. */
static void test_runs(void **state)
{
	tsr_fixture *f = *state;
	const tsr_run *runs;
	size_t n;

	assert_int_equal(tsr_report_get_runs(&runs, &n, f->report), TSR_OK);
	assert_int_equal(n, f->n_runs);
	assert_true(n >= 2);
	assert_int_equal(tsr_report_get_counts(f->report)->runs, n);
	for (size_t r = 0; r < n; r++) {
		const tsi_run_profile *rp = f->runs[r];

		assert_int_equal(runs[r].program, rp->program_index);
		assert_int_equal(runs[r].cycles, rp->cycles);
		assert_int_equal(runs[r].n_steps, rp->n_steps);
		assert_int_equal(runs[r].trace_length, rp->n_trace);
		assert_int_equal(runs[r].tile_cycles.active_compute, rp->tile_cycles.active_compute);
		assert_int_equal(runs[r].tile_cycles.compute, rp->tile_cycles.compute);
		assert_int_equal(runs[r].tile_cycles.do_exchange, rp->tile_cycles.do_exchange);
		assert_int_equal(runs[r].tile_cycles.global_exchange, rp->tile_cycles.global_exchange);
		assert_int_equal(runs[r].tile_cycles.stream_copy, rp->tile_cycles.stream_copy);
		assert_int_equal(runs[r].tile_cycles.sync, rp->tile_cycles.sync);
		assert_int_equal(runs[r].tile_cycles.copy_shared_structure,
		                 rp->tile_cycles.copy_shared_structure);
	}
}

/* Every field of every step of every run equals the simulator's. */
static void test_steps(void **state)
{
	tsr_fixture *f = *state;
	bool seen[TSR_STEP_TYPE_COUNT] = {false};

	for (size_t r = 0; r < f->n_runs; r++) {
		const tsi_run_profile *rp = f->runs[r];
		const tsr_step *steps, *again;
		size_t n, n2;

		assert_int_equal(tsr_report_get_steps(&steps, &n, f->report, r), TSR_OK);
		assert_int_equal(n, rp->n_steps);
		assert_true(n > 0);
		for (size_t i = 0; i < n; i++) {
			const tsr_step *s = &steps[i];
			const tsi_step *w = &rp->steps[i];

			assert_int_equal(s->type, (int)w->type);
			assert_string_equal(tsr_step_type_name(s->type), tsi_step_type_name(w->type));
			seen[s->type] = true;
			assert_int_equal(s->program, w->program);
			assert_int_equal(s->compute_set, w->compute_set);
			assert_int_equal(s->exchange, w->exchange);
			if (w->type == TSI_STEP_SYNC) {
				assert_int_equal(s->sync, (int)w->sync_type);
				assert_string_equal(tsr_sync_type_name(s->sync), sync_name(w->sync_type));
			} else {
				assert_int_equal(s->sync, TSR_SYNC_NONE);
				assert_null(tsr_sync_type_name(s->sync));
			}
			assert_int_equal(s->cycles_from, w->cycles_from);
			assert_int_equal(s->cycles_to, w->cycles_to);
			assert_int_equal(s->cycles, w->cycles);
			assert_int_equal(s->cycles_overlapped, w->cycles_overlapped);
			assert_int_equal(s->active_tiles, w->active_tiles);
			assert_balance(s->tile_balance, w->tile_balance);
			assert_balance(s->active_tile_balance, w->active_tile_balance);
			assert_balance(s->thread_balance, w->thread_balance);
			assert_int_equal(s->total_data, w->total_data);
			assert_balance(s->data_balance, w->data_balance);
		}
		/* Read once: the second call returns the same array. */
		assert_int_equal(tsr_report_get_steps(&again, &n2, f->report, r), TSR_OK);
		assert_ptr_equal(again, steps);
		assert_int_equal(n2, n);
	}
	/* The model exercises compute, internal, global and host exchanges
	 * and syncs, so every one of those kinds was compared above. */
	assert_true(seen[TSR_STEP_ON_TILE_EXECUTE]);
	assert_true(seen[TSR_STEP_DO_EXCHANGE]);
	assert_true(seen[TSR_STEP_GLOBAL_EXCHANGE]);
	assert_true(seen[TSR_STEP_STREAM_COPY]);
	assert_true(seen[TSR_STEP_SYNC]);
}

/* A non-empty name or NULL. */
static const char *named(const char *s)
{
	return s && *s ? s : NULL;
}

/* Every step's name: its compute set's or exchange's (of the kind its
 * type implies), else its program's; none for a Sync; NULL arguments
 * name nothing. */
static void test_step_names(void **state)
{
	tsr_fixture *f = *state;
	const tsr_program *progs;
	const tsr_compute_set *cs;
	size_t n_progs, n_cs, from_object = 0, syncs = 0;

	assert_int_equal(tsr_report_get_programs(&progs, &n_progs, f->report), TSR_OK);
	assert_int_equal(tsr_report_get_compute_sets(&cs, &n_cs, f->report), TSR_OK);
	for (size_t r = 0; r < f->n_runs; r++) {
		const tsr_step *steps;
		size_t n;

		assert_int_equal(tsr_report_get_steps(&steps, &n, f->report, r), TSR_OK);
		for (size_t i = 0; i < n; i++) {
			const tsr_step *st = &steps[i];
			const char *want = NULL, *got = tsr_report_lookup_step_name(f->report, st);
			int kind = st->type == TSR_STEP_DO_EXCHANGE       ? TSR_EXCHANGE_INTERNAL
			           : st->type == TSR_STEP_GLOBAL_EXCHANGE ? TSR_EXCHANGE_EXTERNAL
			           : st->type == TSR_STEP_STREAM_COPY     ? TSR_EXCHANGE_HOST
			                                                  : -1;

			if (st->type == TSR_STEP_SYNC) {
				assert_null(got);
				syncs++;
				continue;
			}
			if (st->type == TSR_STEP_ON_TILE_EXECUTE && st->compute_set >= 0) {
				assert_true((size_t)st->compute_set < n_cs);
				want = named(cs[st->compute_set].name);
			} else if (kind >= 0 && st->exchange >= 0) {
				const tsr_exchange *x;
				size_t nx;

				assert_int_equal(tsr_report_get_exchanges(&x, &nx, f->report,
				                                          (tsr_exchange_kind)kind), TSR_OK);
				assert_true((size_t)st->exchange < nx);
				want = named(x[st->exchange].name);
			}
			from_object += want != NULL;
			if (!want && st->program < n_progs)
				want = named(progs[st->program].name);
			if (want)
				assert_string_equal(got, want);
			else
				assert_null(got);
		}
	}
	assert_true(from_object > 0);
	assert_true(syncs > 0);
	assert_null(tsr_report_lookup_step_name(NULL, NULL));
	assert_null(tsr_report_lookup_step_name(f->report, NULL));
}

/* The program traces equal the simulator's. */
static void test_program_trace(void **state)
{
	tsr_fixture *f = *state;

	for (size_t r = 0; r < f->n_runs; r++) {
		const uint32_t *trace;
		size_t n;

		assert_int_equal(tsr_report_get_program_trace(&trace, &n, f->report, r), TSR_OK);
		assert_int_equal(n, f->runs[r]->n_trace);
		assert_true(n > 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(trace[i], f->runs[r]->program_trace[i]);
	}
}

/* Totals by activity: the run's length and tile cycles as the simulator
 * has them, step cycles and counts per type summed from its steps, and
 * (the simulation runs steps back to back) step cycles adding up to at
 * most the run's length. */
static void test_activity(void **state)
{
	tsr_fixture *f = *state;

	for (size_t r = 0; r < f->n_runs; r++) {
		const tsi_run_profile *rp = f->runs[r];
		uint64_t want_cycles[TSR_STEP_TYPE_COUNT] = {0}, all = 0;
		size_t want_steps[TSR_STEP_TYPE_COUNT] = {0};
		tsr_activity a;

		for (size_t i = 0; i < rp->n_steps; i++) {
			want_cycles[rp->steps[i].type] += rp->steps[i].cycles;
			want_steps[rp->steps[i].type]++;
		}
		assert_int_equal(tsr_report_fill_run_activity(&a, f->report, r), TSR_OK);
		assert_int_equal(a.cycles, rp->cycles);
		for (int t = 0; t < TSR_STEP_TYPE_COUNT; t++) {
			assert_int_equal(a.step_cycles[t], want_cycles[t]);
			assert_int_equal(a.steps[t], want_steps[t]);
			all += a.step_cycles[t];
		}
		assert_true(all > 0);
		assert_true(all <= a.cycles);
		assert_int_equal(a.tile_cycles.active_compute, rp->tile_cycles.active_compute);
		assert_int_equal(a.tile_cycles.compute, rp->tile_cycles.compute);
		assert_int_equal(a.tile_cycles.do_exchange, rp->tile_cycles.do_exchange);
		assert_int_equal(a.tile_cycles.global_exchange, rp->tile_cycles.global_exchange);
		assert_int_equal(a.tile_cycles.stream_copy, rp->tile_cycles.stream_copy);
		assert_int_equal(a.tile_cycles.sync, rp->tile_cycles.sync);
		assert_int_equal(a.tile_cycles.copy_shared_structure,
		                 rp->tile_cycles.copy_shared_structure);
		assert_true(a.tile_cycles.compute > 0);
		assert_true(a.tile_cycles.active_compute <= a.tile_cycles.compute);
	}
}

/* Cycles, instances and executions of each vertex type recomputed from
 * the simulator's compute sets weighted by run `run`'s OnTileExecute
 * steps (-1: once each), compared with the report's, which must also be
 * sorted by cycles (descending, then type). */
static void check_vertex_type_cycles(tsr_fixture *f, int64_t run)
{
	const tsi_graph_profile *gp = f->gp;
	size_t n_vt = gp->n_vertex_types, n_listed = 0;
	uint64_t *cycles = calloc(n_vt + 1, sizeof(*cycles));
	uint64_t *instances = calloc(n_vt + 1, sizeof(*instances));
	uint64_t *executions = calloc(n_vt + 1, sizeof(*executions));
	uint64_t *all = calloc(n_vt + 1, sizeof(*all));
	uint64_t *weight = calloc(gp->n_compute_sets + 1, sizeof(*weight));
	uint64_t total = 0;
	tsr_vertex_type_cycles *vc;
	size_t n;

	assert_non_null(cycles);
	assert_non_null(instances);
	assert_non_null(executions);
	assert_non_null(all);
	assert_non_null(weight);
	for (size_t c = 0; c < gp->n_compute_sets; c++)
		weight[c] = run < 0 ? 1 : 0;
	if (run >= 0) {
		const tsi_run_profile *rp = f->runs[run];

		for (size_t i = 0; i < rp->n_steps; i++)
			if (rp->steps[i].type == TSI_STEP_ON_TILE_EXECUTE)
				weight[rp->steps[i].compute_set]++;
	}
	for (size_t c = 0; c < gp->n_compute_sets; c++) {
		const tsi_compute_set_profile *cs = &gp->compute_sets[c];

		for (uint32_t k = 0; k < cs->n_types; k++) {
			uint32_t t = cs->vertex_types[k];

			assert_true(t < n_vt);
			cycles[t] += cs->active_cycles_by_type[k] * weight[c];
			/* Issue 17: a run's instances are those of the compute
			 * sets it executed, not the whole graph's. */
			instances[t] += weight[c] ? cs->vertex_counts[k] : 0;
			all[t] += cs->vertex_counts[k];
			executions[t] += cs->vertex_counts[k] * weight[c];
		}
	}
	for (size_t t = 0; t < n_vt; t++) {
		n_listed += all[t] > 0;
		total += cycles[t];
	}
	assert_true(total > 0);

	assert_int_equal(tsr_report_list_cycles_by_vertex_type(&vc, &n, f->report, run), TSR_OK);
	assert_int_equal(n, n_listed);
	for (size_t i = 0; i < n; i++) {
		size_t t = vc[i].vertex_type;

		assert_true(t < n_vt);
		assert_int_equal(vc[i].cycles, cycles[t]);
		assert_int_equal(vc[i].instances, instances[t]);
		assert_int_equal(vc[i].executions, executions[t]);
		/* Without a run, the instances are the vertex type's own count. */
		if (run < 0)
			assert_int_equal(vc[i].instances, gp->vertex_types[t].instances);
		if (i > 0) {
			assert_true(vc[i - 1].cycles >= vc[i].cycles);
			if (vc[i - 1].cycles == vc[i].cycles)
				assert_true(vc[i - 1].vertex_type < t);
		}
	}
	free(vc);
	free(cycles);
	free(instances);
	free(executions);
	free(all);
	free(weight);
}

static void test_vertex_type_cycles(void **state)
{
	tsr_fixture *f = *state;
	tsr_vertex_type_cycles *vc = (void *)1;
	size_t n = 7;

	check_vertex_type_cycles(f, -1);
	for (size_t r = 0; r < f->n_runs; r++)
		check_vertex_type_cycles(f, (int64_t)r);
	/* Past the last run, and below -1. */
	assert_int_equal(tsr_report_list_cycles_by_vertex_type(&vc, &n, f->report, (int64_t)f->n_runs),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_null(vc);
	assert_int_equal(n, 0);
	assert_int_equal(tsr_report_list_cycles_by_vertex_type(&vc, &n, f->report, -2),
	                 TSR_ERR_OUT_OF_RANGE);
}

/* The vertex types of each compute set are the simulator's own: the
 * types, their instance counts and active cycles of one execution, most
 * cycles first; past the last compute set is out of range. */
static void test_compute_set_vertex_types(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	const tsr_vertex_type_cycles *vt = (void *)1;
	size_t n = 7, listed = 0;

	for (size_t c = 0; c < gp->n_compute_sets; c++) {
		const tsi_compute_set_profile *cs = &gp->compute_sets[c];
		size_t with_vertices = 0;

		assert_int_equal(tsr_report_get_compute_set_vertex_types(&vt, &n, f->report, c), TSR_OK);
		for (uint32_t k = 0; k < cs->n_types; k++) {
			if (cs->vertex_counts[k] == 0)
				continue;
			with_vertices++;
			bool found = false;
			for (size_t i = 0; i < n; i++) {
				if (vt[i].vertex_type != cs->vertex_types[k])
					continue;
				found = true;
				assert_int_equal(vt[i].instances, cs->vertex_counts[k]);
				assert_int_equal(vt[i].cycles, cs->active_cycles_by_type[k]);
				assert_int_equal(vt[i].executions, 1);
			}
			assert_true(found);
		}
		assert_true(n >= with_vertices);
		for (size_t i = 1; i < n; i++)
			assert_true(vt[i - 1].cycles >= vt[i].cycles);
		listed += n;
	}
	assert_true(listed > 0);
	assert_int_equal(tsr_report_get_compute_set_vertex_types(&vt, &n, f->report,
	                                                         gp->n_compute_sets + 1000),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_null(vt);
	assert_int_equal(n, 0);
	assert_int_equal(tsr_report_get_compute_set_vertex_types(NULL, &n, f->report, 0),
	                 TSR_ERR_INVALID_ARGUMENT);
}

/* FLOPs: each compute set's flops per execution times its executions in
 * the run; the peak from the target; the utilisation their ratio. */
static void test_flops(void **state)
{
	tsr_fixture *f = *state;
	const tsi_target *t = &f->gp->target;
	const tsr_target *rt = tsr_report_get_target(f->report);
	bool some = false;

	assert_int_equal(rt->fp32_flops_per_cycle, t->fp32_flops_per_cycle);
	assert_int_equal(rt->fp16_amp_flops_per_cycle, t->fp16_amp_flops_per_cycle);
	assert_int_equal(rt->clock_frequency, t->clock_hz);
	for (size_t r = 0; r < f->n_runs; r++) {
		const tsi_run_profile *rp = f->runs[r];
		uint64_t flops = 0;

		for (size_t i = 0; i < rp->n_steps; i++)
			if (rp->steps[i].type == TSI_STEP_ON_TILE_EXECUTE)
				flops += f->gp->compute_sets[rp->steps[i].compute_set].flops;
		for (int half = 0; half < 2; half++) {
			double per_tile = half ? t->fp16_amp_flops_per_cycle : t->fp32_flops_per_cycle;
			double peak = per_tile * t->num_tiles * (double)t->clock_hz;
			double seconds = (double)rp->cycles / (double)t->clock_hz;
			tsr_flops fl;

			assert_int_equal(tsr_report_fill_run_flops(&fl, f->report, r, half), TSR_OK);
			assert_int_equal(fl.flops, flops);
			assert_int_equal(fl.cycles, rp->cycles);
			assert_close(fl.seconds, seconds, 1e-15);
			assert_close(fl.peak_flops_per_second, peak, 1e-3);
			assert_close(fl.flops_per_second / 1e6, (double)flops / seconds / 1e6, 1e-9);
			assert_close(fl.utilisation, (double)flops / seconds / peak, 1e-12);
			assert_true(fl.utilisation >= 0.0 && fl.utilisation <= 1.0);
			some |= flops > 0;
		}
	}
	assert_true(some);
	/* The matmul run does more than the small sub of program 1. */
	for (size_t r = 1; r < f->n_runs; r++) {
		tsr_flops a, b;

		if (f->runs[r]->program_index != 1)
			continue;
		assert_int_equal(f->runs[0]->program_index, 0);
		assert_int_equal(tsr_report_fill_run_flops(&a, f->report, 0, false), TSR_OK);
		assert_int_equal(tsr_report_fill_run_flops(&b, f->report, r, false), TSR_OK);
		assert_true(a.flops > b.flops);
	}
}

/* Step type names are the guide's tags; others are "unknown". */
static void test_step_type_names(void **state)
{
	(void)state;
	for (int t = 0; t < TSR_STEP_TYPE_COUNT; t++)
		assert_string_equal(tsr_step_type_name((tsr_step_type)t),
		                    tsi_step_type_name((tsi_step_type)t));
	assert_string_equal(tsr_step_type_name(TSR_STEP_COPY_SHARED_STRUCTURE), "CopySharedStructure");
	assert_string_equal(tsr_step_type_name(TSR_STEP_TYPE_COUNT), "unknown");
	assert_string_equal(tsr_step_type_name((tsr_step_type)-1), "unknown");
}

/* Bad arguments and runs past the end: an error, outputs cleared, a
 * message on the handle. */
static void test_errors(void **state)
{
	tsr_fixture *f = *state;
	const tsr_step *steps = (void *)1;
	const uint32_t *trace = (void *)1;
	tsr_activity a;
	tsr_flops fl;
	size_t n = 9;

	assert_int_equal(tsr_report_get_steps(&steps, &n, f->report, f->n_runs), TSR_ERR_OUT_OF_RANGE);
	assert_null(steps);
	assert_int_equal(n, 0);
	assert_non_null(strstr(tsr_report_error(f->report), "run"));
	assert_int_equal(tsr_report_get_program_trace(&trace, &n, f->report, f->n_runs + 5),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_null(trace);
	assert_int_equal(tsr_report_fill_run_activity(&a, f->report, SIZE_MAX), TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_report_fill_run_flops(&fl, f->report, f->n_runs, false),
	                 TSR_ERR_OUT_OF_RANGE);

	assert_int_equal(tsr_report_get_steps(&steps, &n, NULL, 0), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_get_steps(NULL, &n, f->report, 0), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_get_steps(&steps, NULL, f->report, 0), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_get_program_trace(NULL, &n, f->report, 0), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_fill_run_activity(&a, NULL, 0), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_fill_run_activity(NULL, f->report, 0), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_fill_run_flops(NULL, f->report, 0, true), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_list_cycles_by_vertex_type(NULL, &n, f->report, -1),
	                 TSR_ERR_INVALID_ARGUMENT);
	/* The handle still answers after the failures. */
	assert_int_equal(tsr_report_get_steps(&steps, &n, f->report, 0), TSR_OK);
	assert_int_equal(n, f->runs[0]->n_steps);
}

/* A report without runs (out of memory): no steps, activity or FLOPs
 * (TSR_ERR_NO_DATA), while the graph-only cycles by vertex type work. */
static void test_no_runs(void **state)
{
	tsr_fixture *f = *state;
	const tsr_run *runs;
	const tsr_step *steps;
	const uint32_t *trace;
	tsr_vertex_type_cycles *vc = NULL;
	tsr_activity a;
	tsr_flops fl;
	size_t n;

	assert_int_equal(f->n_runs, 0);
	assert_int_equal(tsr_report_get_runs(&runs, &n, f->report), TSR_OK);
	assert_int_equal(n, 0);
	assert_int_equal(tsr_report_get_steps(&steps, &n, f->report, 0), TSR_ERR_NO_DATA);
	assert_int_equal(tsr_report_get_program_trace(&trace, &n, f->report, 0), TSR_ERR_NO_DATA);
	assert_int_equal(tsr_report_fill_run_activity(&a, f->report, 0), TSR_ERR_NO_DATA);
	assert_int_equal(tsr_report_fill_run_flops(&fl, f->report, 0, false), TSR_ERR_NO_DATA);
	assert_int_equal(tsr_report_list_cycles_by_vertex_type(&vc, &n, f->report, 0), TSR_ERR_NO_DATA);
	assert_int_equal(tsr_report_list_cycles_by_vertex_type(&vc, &n, f->report, -1), TSR_OK);
	assert_int_equal(n, 0); /* the model has no compute sets with vertices */
	free(vc);
}

/* --- Copies of profile.pop whose execution rows lie ------------------------- */

/* Copies the fixture's profile.pop to dir/profile.pop; returns the path
 * (malloc). */
static char *copy_report(const tsr_fixture *f, const char *dir)
{
	char *path = malloc(strlen(dir) + 32);

	assert_non_null(path);
	sprintf(path, "%s/profile.pop", dir);
	tsi_test_copy_file(f->profile_path, path);
	return path;
}

/* Runs `sql` on the file at `path` (the test's own copy). */
static void exec_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *err = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err ? err : "?");
	sqlite3_close(db);
}

/* Which query a damaged copy is read through. */
typedef enum { Q_STEPS, Q_TRACE, Q_ACTIVITY, Q_VERTEX_TYPES, Q_CS_VERTEX_TYPES, Q_CS_MEMORY,
               Q_VT_MEMORY } lie_query;

/* One lie told by a copy: the SQL that tells it and the query that must
 * find it. */
typedef struct lie {
	const char *sql;
	lie_query query;
} lie;

static const lie lies[] = {
	/* compute_set_vertex_type naming a vertex type past the end. */
	{"UPDATE compute_set_vertex_type SET vertex_type = 100000 WHERE compute_set = 0",
	 Q_CS_VERTEX_TYPES},
	/* Vertex memory rows: one missing, one past the end, a negative size. */
	{"DELETE FROM memory_by_compute_set WHERE compute_set = 1", Q_CS_MEMORY},
	{"UPDATE memory_by_compute_set SET compute_set = 100000 WHERE compute_set = 1", Q_CS_MEMORY},
	{"UPDATE memory_by_vertex_type SET code_bytes = -1 WHERE vertex_type = 1", Q_VT_MEMORY},
	{"DELETE FROM memory_by_vertex_type WHERE vertex_type = 0", Q_VT_MEMORY},
	/* A step missing: fewer rows than num_steps. */
	{"DELETE FROM step WHERE run = 0 AND id = 3", Q_STEPS},
	/* A run claiming one step more than it has. */
	{"UPDATE run SET num_steps = num_steps + 1 WHERE id = 0", Q_STEPS},
	/* A run claiming a huge number of steps (nothing allocated from it). */
	{"UPDATE run SET num_steps = 2000000000 WHERE id = 0", Q_STEPS},
	{"UPDATE run SET num_steps = 4611686018427387904 WHERE id = 0", Q_STEPS},
	/* Step ids with a hole (the count still matches). */
	{"UPDATE step SET id = 100000 WHERE run = 0 AND id = 2", Q_STEPS},
	/* An unknown step type. */
	{"UPDATE step SET type = 'Teleport' WHERE run = 0 AND id = 0", Q_STEPS},
	/* A compute set past the end. */
	{"UPDATE step SET compute_set = 1000000 WHERE run = 0 AND type = 'OnTileExecute'",
	 Q_ACTIVITY},
	/* A compute set on a sync step. */
	{"UPDATE step SET compute_set = 0 WHERE run = 0 AND type = 'Sync'", Q_STEPS},
	/* An exchange past the end of its kind. */
	{"UPDATE step SET exchange = 1000000 WHERE run = 0 AND type = 'DoExchange'", Q_STEPS},
	/* A program past the end. */
	{"UPDATE step SET program = (SELECT count(*) FROM program) WHERE run = 0 AND id = 1",
	 Q_STEPS},
	/* A negative cycle count, and one past the run's end. */
	{"UPDATE step SET cycles = -5 WHERE run = 0 AND id = 1", Q_STEPS},
	{"UPDATE step SET cycles_to = cycles_to + 1000000000 WHERE run = 0 AND id = 1", Q_STEPS},
	/* A sync type outside the vocabulary. */
	{"UPDATE step SET sync_type = 'Sometimes' WHERE run = 0 AND type = 'Sync'", Q_STEPS},
	/* A balance that is text, and one above 1. */
	{"UPDATE step SET tile_balance = 'high' WHERE run = 0 AND id = 0", Q_STEPS},
	{"UPDATE step SET thread_balance = 7.5 WHERE run = 0 AND id = 0", Q_STEPS},
	/* A trace entry naming no program, and a trace shorter than stated. */
	{"UPDATE program_trace SET program = 99999999 WHERE run = 0 AND position = 0", Q_TRACE},
	{"DELETE FROM program_trace WHERE run = 0 AND position = 1", Q_TRACE},
	/* A vertex type past the end in compute_set_vertex_type. */
	{"UPDATE compute_set_vertex_type SET vertex_type = 100000 WHERE (compute_set, vertex_type) "
	 "IN (SELECT compute_set, vertex_type FROM compute_set_vertex_type LIMIT 1)",
	 Q_VERTEX_TYPES},
};

/* Each lie gives TSR_ERR_CORRUPT (at open, or from the query that reads
 * the rows), with a message naming the file; never a crash. */
static void test_lying_rows(void **state)
{
	tsr_fixture *f = *state;

	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		char *dir = tsi_test_mkdtemp();
		char *path = copy_report(f, dir);
		const tsr_step *steps;
		const uint32_t *trace;
		tsr_vertex_type_cycles *vc = NULL;
		tsr_activity a;
		tsr_report *r = NULL;
		size_t n;
		int rc;

		exec_sql(path, lies[i].sql);
		rc = tsr_report_open(&r, path, NULL);
		if (rc == TSR_OK) {
			switch (lies[i].query) {
			case Q_STEPS:
				rc = tsr_report_get_steps(&steps, &n, r, 0);
				break;
			case Q_TRACE:
				rc = tsr_report_get_program_trace(&trace, &n, r, 0);
				break;
			case Q_ACTIVITY:
				rc = tsr_report_fill_run_activity(&a, r, 0);
				break;
			case Q_VERTEX_TYPES:
				rc = tsr_report_list_cycles_by_vertex_type(&vc, &n, r, -1);
				free(vc);
				break;
			case Q_CS_VERTEX_TYPES: {
				const tsr_vertex_type_cycles *cvt;
				rc = tsr_report_get_compute_set_vertex_types(&cvt, &n, r, 0);
				break;
			}
			case Q_CS_MEMORY:
			case Q_VT_MEMORY: {
				tsr_vertex_memory vm;
				rc = lies[i].query == Q_CS_MEMORY ? tsr_report_fill_compute_set_memory(&vm, r, 0, -1)
				                                  : tsr_report_fill_vertex_type_memory(&vm, r, 0, -1);
				break;
			}
			}
			if (rc != TSR_ERR_CORRUPT)
				fail_msg("lie %zu (%s): %s, not TSR_ERR_CORRUPT", i, lies[i].sql,
				         tsr_error_name(rc));
			assert_non_null(strstr(tsr_report_error(r), "profile.pop"));
			/* Still corrupt when asked again; nothing half-kept. */
			if (lies[i].query == Q_STEPS)
				assert_int_equal(tsr_report_get_steps(&steps, &n, r, 0), TSR_ERR_CORRUPT);
			/* The other runs are still readable. */
			if (lies[i].query == Q_STEPS || lies[i].query == Q_TRACE)
				assert_int_equal(tsr_report_get_steps(&steps, &n, r, 1), TSR_OK);
		} else if (rc != TSR_ERR_CORRUPT) {
			fail_msg("lie %zu (%s): open gave %s", i, lies[i].sql, tsr_error_name(rc));
		}
		tsr_report_free(r);
		free(path);
		tsi_test_rmtree(dir);
	}
}

int main(void)
{
	const struct CMUnitTest matmul[] = {
	    cmocka_unit_test(test_runs),
	    cmocka_unit_test(test_steps),
	    cmocka_unit_test(test_step_names),
	    cmocka_unit_test(test_program_trace),
	    cmocka_unit_test(test_activity),
	    cmocka_unit_test(test_vertex_type_cycles),
	    cmocka_unit_test(test_compute_set_vertex_types),
	    cmocka_unit_test(test_flops),
	    cmocka_unit_test(test_step_type_names),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_lying_rows),
	};
	const struct CMUnitTest oom[] = {
	    cmocka_unit_test(test_no_runs),
	};
	int failed = cmocka_run_group_tests_name("execution (matmul)", matmul, tsr_fixture_new_matmul, tsr_fixture_delete);

	failed += cmocka_run_group_tests_name("execution (no runs)", oom, tsr_fixture_new_oom, tsr_fixture_delete);
	return failed;
}
