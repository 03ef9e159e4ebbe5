/*
 * The execution profile document: what the runs did, as the guide's
 * "profilerMode", "programTrace" and "simulation" (cycles, tileCycles,
 * steps) plus the per-mode arrays, with the traces and steps of every
 * run joined on one cycle axis, and Tilescope's "runs" saying where each
 * run starts in them.
 */
#include "serialise-private.h"

#include <string.h>

/* Which compute sets and IPU-to-IPU exchanges the runs executed, and the
 * cycles of each compute set's last execution. */
typedef struct exec_facts {
	uint8_t *cs_ran;     /* n_compute_sets */
	uint64_t *cs_cycles; /* n_compute_sets */
	uint8_t *ext_ran;    /* n_exchanges[EXTERNAL] */
} exec_facts;

/*
 * One entry of "simulation"."steps", with the fields the guide gives its
 * type. cyclesFrom / cyclesTo are on the axis of all runs (`offset`: the
 * cycles of the runs before). A Sync step also keeps the program it syncs
 * for and its cycles, which the guide's Sync entry does not show, so that
 * the steps account for the whole time.
 */
static sv_node *build_step(sv_tree *t, const tsi_graph_profile *gp, const tsi_step *st,
                           uint64_t offset, exec_facts *facts)
{
	sv_node *m = sv_map(t);
	bool exchange = false;

	if ((unsigned)st->type >= TSI_STEP_TYPE_COUNT || st->program >= gp->n_programs) {
		sv_fail(t, TSF_ERR_INVALID, "profile: a step of type %d names program %u of %zu",
		        (int)st->type, st->program, gp->n_programs);
		return NULL;
	}
	sv_put(m, "type", sv_string(t, sv_vocab_name(TSF_VOCAB_STEP_TYPE, (int)st->type)));
	if (st->type == TSI_STEP_SYNC) {
		sv_put(m, "syncType", sv_string(t, sv_sync_type_name(st->sync_type)));
		sv_put(m, "program", sv_uint(t, st->program));
		sv_put(m, "cycles", sv_uint(t, st->cycles));
		sv_put(m, "cyclesFrom", sv_uint(t, st->cycles_from + offset));
		sv_put(m, "cyclesTo", sv_uint(t, st->cycles_to + offset));
		return m;
	}
	sv_put(m, "program", sv_uint(t, st->program));
	if (gp->programs[st->program].name)
		sv_put(m, "name", sv_string(t, gp->programs[st->program].name));
	sv_put(m, "tileBalance", sv_double(t, st->tile_balance));
	sv_put(m, "activeTiles", sv_uint(t, st->active_tiles));
	sv_put(m, "activeTileBalance", sv_double(t, st->active_tile_balance));
	sv_put(m, "cycles", sv_uint(t, st->cycles));
	sv_put(m, "cyclesFrom", sv_uint(t, st->cycles_from + offset));
	sv_put(m, "cyclesTo", sv_uint(t, st->cycles_to + offset));
	switch (st->type) {
	case TSI_STEP_ON_TILE_EXECUTE:
		if (st->compute_set < 0 || (size_t)st->compute_set >= gp->n_compute_sets) {
			sv_fail(t, TSF_ERR_INVALID, "profile: a step names compute set %d of %zu",
			        (int)st->compute_set, gp->n_compute_sets);
			return NULL;
		}
		facts->cs_ran[st->compute_set] = 1;
		facts->cs_cycles[st->compute_set] = st->cycles;
		sv_put(m, "threadBalance", sv_double(t, st->thread_balance));
		sv_put(m, "computeSet", sv_int(t, st->compute_set));
		break;
	case TSI_STEP_DO_EXCHANGE:
		sv_put(m, "exchange", sv_int(t, st->exchange));
		exchange = true;
		break;
	case TSI_STEP_GLOBAL_EXCHANGE:
		if (st->exchange >= 0 && (size_t)st->exchange < gp->n_exchanges[TSI_EXCHANGE_EXTERNAL])
			facts->ext_ran[st->exchange] = 1;
		sv_put(m, "externalExchange", sv_int(t, st->exchange));
		exchange = true;
		break;
	case TSI_STEP_STREAM_COPY:
		sv_put(m, "hostExchange", sv_int(t, st->exchange));
		exchange = true;
		break;
	case TSI_STEP_COPY_SHARED_STRUCTURE:
		exchange = true;
		break;
	default:
		break;
	}
	if (exchange) {
		sv_put(m, "totalData", sv_uint(t, st->total_data));
		sv_put(m, "dataBalance", sv_double(t, st->data_balance));
	}
	if (st->type == TSI_STEP_ON_TILE_EXECUTE || st->type == TSI_STEP_DO_EXCHANGE ||
	    st->type == TSI_STEP_COPY_SHARED_STRUCTURE)
		sv_put(m, "cyclesOverlapped", sv_uint(t, st->cycles_overlapped));
	return m;
}

/*
 * The arrays of the profiler mode, as instrumentation would have recorded
 * them: a compute set's cycles on each tile (COMPUTE_SETS) or on its
 * longest tile (SINGLE_TILE_COMPUTE_SETS) at its last execution, an
 * IPU-to-IPU exchange's cycles by tile (EXTERNAL_EXCHANGES); zero for what
 * never ran. VERTICES: the model keeps no per-vertex records, so its three
 * arrays are empty.
 */
static void build_mode_arrays(sv_tree *t, sv_node *root, const tsi_graph_profile *gp,
                              const exec_facts *facts)
{
	size_t nt = gp->target.num_tiles, ncs = gp->n_compute_sets;
	size_t next = gp->n_exchanges[TSI_EXCHANGE_EXTERNAL];
	sv_node *rows;

	switch (gp->profiler_mode) {
	case TSI_PROFILER_COMPUTE_SETS:
		rows = sv_array(t);
		for (size_t i = 0; i < ncs && !t->rc; i++)
			sv_push(rows, facts->cs_ran[i] ? sv_tiles(t, &gp->compute_sets[i].cycles_by_tile, nt)
			                               : sv_zeros(t, nt));
		sv_put(root, "computeSetCyclesByTile", rows);
		break;
	case TSI_PROFILER_SINGLE_TILE_COMPUTE_SETS:
		sv_put(root, "computeSetCycles",
		       sv_nums(t, facts->cs_cycles, ncs, sizeof(uint64_t), SV_U64));
		break;
	case TSI_PROFILER_VERTICES:
		sv_put(root, "vertexCycles", sv_array(t));
		sv_put(root, "vertexComputeSet", sv_array(t));
		sv_put(root, "vertexType", sv_array(t));
		break;
	case TSI_PROFILER_EXTERNAL_EXCHANGES:
		rows = sv_array(t);
		for (size_t i = 0; i < next && !t->rc; i++)
			sv_push(rows, facts->ext_ran[i]
			                  ? sv_tiles(t, &gp->exchanges[TSI_EXCHANGE_EXTERNAL][i].cycles, nt)
			                  : sv_zeros(t, nt));
		sv_put(root, "externalExchangeCycles", rows);
		break;
	default:
		break;
	}
}

/* "tileCycles" summed over the runs. */
static sv_node *build_tile_cycles(sv_tree *t, const tsi_tile_cycles *c)
{
	sv_node *m = sv_map(t);

	sv_put(m, "activeCompute", sv_uint(t, c->active_compute));
	sv_put(m, "compute", sv_uint(t, c->compute));
	sv_put(m, "copySharedStructure", sv_uint(t, c->copy_shared_structure));
	sv_put(m, "doExchange", sv_uint(t, c->do_exchange));
	sv_put(m, "globalExchange", sv_uint(t, c->global_exchange));
	sv_put(m, "streamCopy", sv_uint(t, c->stream_copy));
	sv_put(m, "sync", sv_uint(t, c->sync));
	return m;
}

/*
 * The execution profile of runs[0..n_runs): profilerMode, the mode's
 * arrays, programTrace (the runs' traces joined), simulation (cycles and
 * tileCycles summed, the steps on one cycle axis) and Tilescope's "runs":
 * per run its engine program, where its trace and steps start in the
 * joined arrays and how many, where it starts on the cycle axis and its
 * cycles.
 */
sv_node *sv_build_execution(sv_tree *t, const tsi_graph_profile *gp,
                                const tsi_run_profile *const *runs, size_t n_runs)
{
	sv_node *root = sv_map(t), *sim = sv_map(t), *steps = sv_array(t), *run_list = sv_array(t);
	size_t n_trace = 0, at = 0, n_steps = 0;
	uint64_t offset = 0;
	tsi_tile_cycles sum = {0};
	uint32_t *trace;
	exec_facts facts;

	sv_check_lists(t, gp);
	if (n_runs && !runs)
		sv_fail(t, TSF_ERR_INVALID, "execution profile: %zu runs but no list", n_runs);
	for (size_t r = 0; r < n_runs && !t->rc; r++) {
		const tsi_run_profile *run = runs[r];

		if (!run || (run->n_trace && !run->program_trace) || (run->n_steps && !run->steps))
			sv_fail(t, TSF_ERR_INVALID, "execution profile: run %zu is incomplete", r);
		else if (run->n_trace > SIZE_MAX - n_trace)
			sv_fail(t, TSF_ERR_NO_MEMORY, "out of host memory serialising a profile");
		else
			n_trace += run->n_trace;
	}
	trace = sv_alloc_array(t, n_trace, sizeof(*trace));
	facts.cs_ran = sv_alloc_array(t, gp->n_compute_sets, 1);
	facts.cs_cycles = sv_alloc_array(t, gp->n_compute_sets, sizeof(uint64_t));
	facts.ext_ran = sv_alloc_array(t, gp->n_exchanges[TSI_EXCHANGE_EXTERNAL], 1);
	if (t->rc)
		return NULL;

	for (size_t r = 0; r < n_runs && !t->rc; r++) {
		const tsi_run_profile *run = runs[r];
		sv_node *rm = sv_map(t);

		sv_put(rm, "program", sv_uint(t, run->program_index));
		sv_put(rm, "programTraceStart", sv_uint(t, at));
		sv_put(rm, "programTraceLength", sv_uint(t, run->n_trace));
		sv_put(rm, "stepsStart", sv_uint(t, n_steps));
		sv_put(rm, "stepsLength", sv_uint(t, run->n_steps));
		sv_put(rm, "cyclesFrom", sv_uint(t, offset));
		sv_put(rm, "cycles", sv_uint(t, run->cycles));
		sv_push(run_list, rm);
		if (run->n_trace)
			memcpy(trace + at, run->program_trace, run->n_trace * sizeof(*trace));
		at += run->n_trace;
		for (size_t s = 0; s < run->n_steps && !t->rc; s++)
			sv_push(steps, build_step(t, gp, &run->steps[s], offset, &facts));
		n_steps += run->n_steps;
		offset += run->cycles;
		sum.active_compute += run->tile_cycles.active_compute;
		sum.compute += run->tile_cycles.compute;
		sum.do_exchange += run->tile_cycles.do_exchange;
		sum.global_exchange += run->tile_cycles.global_exchange;
		sum.stream_copy += run->tile_cycles.stream_copy;
		sum.sync += run->tile_cycles.sync;
		sum.copy_shared_structure += run->tile_cycles.copy_shared_structure;
	}
	if (t->rc)
		return NULL;
	sv_put(root, "profilerMode", sv_string(t, sv_vocab_name(TSF_VOCAB_PROFILER_MODE, (int)gp->profiler_mode)));
	build_mode_arrays(t, root, gp, &facts);
	sv_put(root, "programTrace", sv_nums(t, trace, n_trace, sizeof(uint32_t), SV_U32));
	sv_put(sim, "cycles", sv_uint(t, offset));
	sv_put(sim, "tileCycles", build_tile_cycles(t, &sum));
	sv_put(sim, "steps", steps);
	sv_put(root, "simulation", sim);
	sv_put(root, "runs", run_list);
	return root;
}
