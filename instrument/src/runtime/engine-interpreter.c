/*
 * The interpreter: runs the program tree of tsi_engine_run and records
 * the lowered programs each profiled run executed, simulated into an
 * execution profile after the run.
 *
 * Replicas: a program runs once for all replicas. Each step acts on a set
 * of replicas (a bit mask); control flow splits the set where replicas
 * disagree (an If whose predicate is true on some replicas only runs its
 * body on those), so every replica follows its own path while stream
 * copies still see one program-order sequence of copies, which is what a
 * BROADCAST stream needs (one host transfer feeds every replica).
 */
#include "engine-private.h"

#include <stdlib.h>
#include <string.h>

/* How deeply programs may nest before the interpreter suspects a cycle
 * (a sequence that contains itself). */
#define MAX_DEPTH 1000

/* --- The interpreter --------------------------------------------------------------- */

static int exec(tsi_engine *e, const tsi_program *p, const rmask *m, unsigned depth);

/* Appends lowered program ids to the current run's trace when the
 * profiled replica takes part. Out of host memory stops recording (the
 * run itself goes on) and is reported after the run. */
static void trace_append(tsi_engine *e, const rmask *m, const uint32_t *ids, uint32_t n)
{
	if (!e->tracing || !n || !mask_has(m, e->profiled_replica))
		return;
	if (e->n_trace + n > e->cap_trace) {
		size_t cap = e->cap_trace ? e->cap_trace * 2 : 1024;
		while (cap < e->n_trace + n)
			cap *= 2;
		uint32_t *t = realloc(e->trace, cap * sizeof(*t));
		if (!t) {
			e->tracing = false;
			return;
		}
		e->trace = t;
		e->cap_trace = cap;
	}
	memcpy(e->trace + e->n_trace, ids, n * sizeof(*ids));
	e->n_trace += n;
}

static inline const tsi_trace_leaves *leaves_of(const tsi_engine *e, const tsi_program *p)
{
	return &e->compiled->model->leaves[p->id];
}

/* The replicas of `m` whose scalar `pred` is nonzero (`want` true) or zero. */
static void mask_where(const tsi_engine *e, const rmask *m, const tsi_tensor *pred, bool want,
                       rmask *out)
{
	mask_zero(e, out);
	for (unsigned r = 0; r < e->replicas; r++)
		if (mask_has(m, r) && (tsi_engine_scalar_value(e, pred, r) != 0.0) == want)
			mask_set(out, r);
}

/* RepeatWhileTrue / RepeatWhileFalse: cond, then while the predicate
 * agrees, body and cond; each replica leaves the loop on its own. */
static int exec_while(tsi_engine *e, const tsi_program *p, const rmask *m, unsigned depth)
{
	bool want = p->kind == TSI_PROG_REPEAT_WHILE_TRUE;
	rmask live, next;
	int rc;

	const tsi_trace_leaves *lv = leaves_of(e, p);

	rc = exec(e, p->cond, m, depth + 1);
	if (rc)
		return rc;
	trace_append(e, m, lv->per_predicate, lv->n_per_predicate);
	mask_where(e, m, p->pred, want, &live);
	while (!mask_empty(e, &live)) {
		rc = exec(e, p->body, &live, depth + 1);
		if (!rc)
			rc = exec(e, p->cond, &live, depth + 1);
		if (rc)
			return rc;
		trace_append(e, &live, lv->per_predicate, lv->n_per_predicate);
		mask_where(e, &live, p->pred, want, &next);
		live = next;
	}
	return TSI_OK;
}

/* If: the replicas where the predicate holds run the body, the others the
 * else body (if any). */
static int exec_if(tsi_engine *e, const tsi_program *p, const rmask *m, unsigned depth)
{
	rmask yes, no;
	int rc;

	mask_where(e, m, p->pred, true, &yes);
	mask_where(e, m, p->pred, false, &no);
	if (!mask_empty(e, &yes)) {
		rc = exec(e, p->body, &yes, depth + 1);
		if (rc)
			return rc;
	}
	if (p->else_body && !mask_empty(e, &no))
		return exec(e, p->else_body, &no, depth + 1);
	return TSI_OK;
}

/* Switch: each replica runs the case matching its control value, or the
 * default (if any). Every replica's control value is read before any case
 * runs (a case may change it); cases run in the order they were added. */
static int exec_switch(tsi_engine *e, const tsi_program *p, const rmask *m, unsigned depth)
{
	int64_t small[8];
	int64_t *vals = small;
	rmask rest = *m, hit;
	int rc = TSI_OK;

	if (e->replicas > sizeof(small) / sizeof(small[0])) {
		vals = malloc(e->replicas * sizeof(*vals));
		if (!vals)
			return tsi_engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory running a Switch");
	}
	for (unsigned r = 0; r < e->replicas; r++)
		vals[r] = mask_has(m, r) ? (int64_t)tsi_engine_scalar_value(e, p->pred, r) : 0;
	for (size_t c = 0; c < p->case_bodies.len && !mask_empty(e, &rest); c++) {
		mask_zero(e, &hit);
		for (unsigned r = 0; r < e->replicas; r++) {
			if (mask_has(&rest, r) && vals[r] == p->case_values[c]) {
				mask_set(&hit, r);
				mask_clear(&rest, r);
			}
		}
		if (!mask_empty(e, &hit)) {
			rc = exec(e, p->case_bodies.items[c], &hit, depth + 1);
			if (rc)
				goto done;
		}
	}
	if (p->else_body && !mask_empty(e, &rest))
		rc = exec(e, p->else_body, &rest, depth + 1);
done:
	if (vals != small)
		free(vals);
	return rc;
}

/* Copy: the source is read whole before the destination is written, so
 * overlapping views copy as if through a temporary. */
static int exec_copy(tsi_engine *e, const tsi_program *p, const rmask *m)
{
	unsigned char *buf = tsi_engine_tmp_reserve(e, p->src->numel * tsi_type_size(p->src->type) + 1);

	if (!buf)
		return tsi_engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory copying %s",
		                       tsi_tensor_describe(p->src));
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r))
			continue;
		tsi_engine_tensor_gather(e, p->src, r, buf);
		tsi_engine_tensor_scatter(e, p->dst, r, buf);
	}
	return TSI_OK;
}

/* Runs program `p` on the replicas of `m`. */
static int exec(tsi_engine *e, const tsi_program *p, const rmask *m, unsigned depth)
{
	int rc;

	if (depth > MAX_DEPTH)
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                       "programs nest more than %d deep: does a sequence contain itself?",
		                       MAX_DEPTH);
	if (e->tracing) {
		const tsi_trace_leaves *lv = leaves_of(e, p);
		trace_append(e, m, lv->at_start, lv->n_at_start);
	}
	switch (p->kind) {
	case TSI_PROG_SEQUENCE:
		for (size_t i = 0; i < p->steps.len; i++) {
			rc = exec(e, p->steps.items[i], m, depth + 1);
			if (rc)
				return rc;
		}
		return TSI_OK;
	case TSI_PROG_EXECUTE:
		return tsi_engine_run_compute_set(e, p->cs, m);
	case TSI_PROG_REPEAT:
		for (uint64_t i = 0; i < p->count; i++) {
			rc = exec(e, p->body, m, depth + 1);
			if (rc)
				return rc;
		}
		return TSI_OK;
	case TSI_PROG_REPEAT_WHILE_TRUE:
	case TSI_PROG_REPEAT_WHILE_FALSE:
		return exec_while(e, p, m, depth);
	case TSI_PROG_IF:
		return exec_if(e, p, m, depth);
	case TSI_PROG_SWITCH:
		return exec_switch(e, p, m, depth);
	case TSI_PROG_COPY:
		return exec_copy(e, p, m);
	case TSI_PROG_STREAM_TO_TENSOR:
	case TSI_PROG_TENSOR_TO_STREAM:
		return tsi_engine_run_stream_copy(e, p, m);
	case TSI_PROG_REMOTE_TO_TENSOR:
	case TSI_PROG_TENSOR_TO_REMOTE:
		return tsi_engine_run_remote_copy(e, p, m);
	case TSI_PROG_CALL:
		return exec(e, p->fn->body, m, depth + 1);
	case TSI_PROG_SYNC:
	case TSI_PROG_WRITE_UNDEF:
		return TSI_OK; /* no effect on data in the model */
	case TSI_PROG_PRINT_TENSOR:
		return tsi_engine_run_print(e, p, m);
	case TSI_PROG_COLLECTIVE:
		return tsi_engine_run_collective(e, p, m);
	default:
		return tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT, "program %u has an unknown kind %d",
		                       p->id, (int)p->kind);
	}
}

/*
 * Simulates the trace just recorded into the execution profile of a new
 * run (kept in the engine), and hands every kept run to autoReport, which
 * writes the new one now or when the engine is freed.
 */
static int keep_run(tsi_engine *engine, size_t index)
{
	tsi_run_profile *rp;
	int rc;

	if (engine->n_runs == engine->cap_runs) {
		size_t cap = engine->cap_runs ? engine->cap_runs * 2 : 4;
		tsi_run_profile **runs = realloc(engine->runs, cap * sizeof(*runs));

		if (!runs)
			return tsi_engine_fail(engine, TSI_ERR_NO_MEMORY,
			                       "out of host memory keeping the execution profile");
		engine->runs = runs;
		engine->cap_runs = cap;
	}
	rp = tsi_arena_alloc(&engine->run_arena, sizeof(*rp));
	if (!rp)
		return tsi_engine_fail(engine, TSI_ERR_NO_MEMORY,
		                       "out of host memory keeping the execution profile");
	TSI_TRACE_BEGINF("Simulating cycles of run %zu", engine->n_runs);
	rc = tsi_simulate_run(engine->compiled->model, engine->trace, engine->n_trace, index,
	                      &engine->run_arena, rp);
	TSI_TRACE_END();
	if (rc)
		return tsi_engine_keep_error(engine, rc);
	engine->runs[engine->n_runs++] = rp;
	engine->runs_of_program[index]++;
	rc = tsi_autoreport_add_runs(engine->report, (const tsi_run_profile *const *)engine->runs,
	                             engine->n_runs);
	if (rc)
		return tsi_engine_keep_error(engine, rc);
	return TSI_OK;
}

/*
 * Runs program `index` on every replica. A PRE_COMPILE engine checks the
 * index and returns at once: nothing executes on a device never attached.
 */
TSI_API int tsi_engine_run(tsi_engine *engine, size_t index)
{
	const tsi_program *p;
	rmask all;
	bool keep;
	int rc;

	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_run: engine is NULL");
	rc = tsi_engine_check_loaded(engine, "tsi_engine_run");
	if (rc)
		return rc;
	if (index >= engine->n_programs)
		return tsi_engine_fail(engine, TSI_ERR_INVALID_ARGUMENT,
		                       "program index %zu is out of range: the engine has %zu program%s",
		                       index, engine->n_programs, engine->n_programs == 1 ? "" : "s");
	if (!engine->dry && (rc = tsi_engine_check_fits(engine, "tsi_engine_run")))
		return rc;
	if (!engine->dry && !engine->device->attached)
		return tsi_engine_fail(engine, TSI_ERR_NOT_ATTACHED,
		                       "device '%s' was detached after tsi_engine_load: attach it again "
		                       "before running",
		                       engine->device->target.name);
	p = engine->programs[index];
	if (tsi_log_enabled(TSI_LOG_INFO)) {
		if (p->name)
			tsi_log(TSI_LOG_INFO, "ENGINE", "Running program %zu ('%s')%s", index, p->name,
			        engine->dry ? " on a PRE_COMPILE device: nothing executes" : "");
		else
			tsi_log(TSI_LOG_INFO, "ENGINE", "Running program %zu (%s)%s", index,
			        tsi_program_kind_name(p->kind),
			        engine->dry ? " on a PRE_COMPILE device: nothing executes" : "");
	}
	if (engine->dry)
		return TSI_OK;
	engine->run_serial++;
	memset(&all, 0, sizeof(all));
	for (unsigned r = 0; r < engine->replicas; r++)
		mask_set(&all, r);
	keep = engine->runs_of_program[index] < engine->cfg.run_count;
	engine->tracing = keep;
	engine->n_trace = 0;
	TSI_TRACE_BEGINF("Run program %zu (%s)", index,
	                 p->name ? p->name : tsi_program_kind_name(p->kind));
	tsi_autoreport_trace_span(engine->report, keep ? (int64_t)engine->n_runs : -1);
	rc = exec(engine, p, &all, 0);
	TSI_TRACE_END();
	if (keep) {
		bool complete = engine->tracing;
		engine->tracing = false;
		if (!complete && !rc)
			return tsi_engine_fail(engine, TSI_ERR_NO_MEMORY,
			                       "out of host memory recording the execution profile of run %zu",
			                       engine->n_runs);
		if (!rc)
			rc = keep_run(engine, index);
	}
	return rc;
}
