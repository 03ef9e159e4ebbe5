/*
 * tsr_summary_dup_json: the figures of the printProfileSummary text
 * (summary-text.c) as one JSON object, from the same gathered figures
 * (summary.h's tsr_summary_figures, and nothing else), so that both
 * always agree. The options select the same
 * parts as in the text. Integers are written exactly (cJSON_CreateRaw of
 * their decimal text: cycle counts and byte totals can pass 2^53, which a
 * double cannot hold); fractions are JSON numbers, and an undefined one
 * (NaN in report.h) is null. Names are cleaned as in the text (control
 * characters and invalid UTF-8 become '?').
 *
 * Keys (units: bytes, cycles, Hz; "fraction" is 0..1):
 *
 *   schema                  1, raised when a key changes meaning
 *   target
 *     type, name, ipuVersion  "IPU_MODEL", "ipu2", "Mk2"
 *     numIpus                 IPUs of all replicas
 *     tilesPerIpu, totalTiles (all replicas)
 *     memoryPerTile, totalMemory (all replicas), clockFrequency (Hz)
 *     numReplicas, ipusPerReplica, tilesPerReplica, memoryPerReplica
 *   graph
 *     numVertices, numEdges, numVariables, numComputeSets
 *   optimizations           with show_optimizations: {metric: number}
 *   memory                  array: all IPUs first ("ipu": null), then each
 *                           IPU with show_per_ipu_memory ("ipu": n)
 *     ipu, capacity
 *     includingGaps, excludingGaps
 *     byRegion              {nonInterleaved, interleaved, overflowed}
 *     byDataType
 *       notOverlapped       {category: bytes} for categories with bytes,
 *                           keyed by the guide's camelCase name
 *       notOverlappedTotal
 *       overlapped          {category: bytes}
 *       overlappedTotal
 *       totalAfterOverlapping  excludingGaps - notOverlappedTotal
 *     vertexData
 *       total               the five below (vertex code not included)
 *       internalVertexState, edgePointers, copyPointers, padding, descriptors
 *       byType              [{name, bytes}], bytes with code, fullest first
 *     byTile                the histogram, excluding gaps
 *       bucketBytes         bucket width (a whole number of KiB)
 *       firstBucket         index of counts[0]: tiles with
 *                           [(firstBucket + i) * bucketBytes, + bucketBytes)
 *       counts              [tiles], the non-empty range of buckets
 *     maxTileIncludingGaps  {tile, bytes}
 *     maxTileExcludingGaps  {tile, bytes}
 *     outOfMemoryTiles      [tile], ascending
 *     outOfMemoryTileBytes  [{tile, bytes, excess}] of the same tiles: bytes
 *                           including gaps, excess past memoryPerTile
 *     largestTiles          [{tile, bytes}] including gaps, fullest first
 *                           (only when some tiles are out of memory)
 *   liveness
 *     alwaysLiveBytes
 *     maxLiveBytes          always-live + the peak step's not-always-live
 *     peakStep              liveness step of the peak, or null
 *     alwaysLiveVariables   with show_var_storage: [{name, bytes}] merged
 *                           by name, in name order; a numbered series of 16
 *                           or more names is one {name: "stem*", bytes,
 *                           count}
 *     steps                 with show_var_storage: [{step, parent (or
 *                           null), depth, program, type, name (or null),
 *                           liveBytes, liveVariables: [{name, bytes}]}]
 *   execution               null without runs, else
 *     run, runs, program    the run shown (0-based), runs kept, the engine
 *                           program it ran
 *     programName           the name the model gave that program, or null
 *     totalCycles, microseconds (number)
 *     computeCycles         including idle threads (summed over tiles)
 *     activeComputeCycles   excluding idle threads
 *     ipuExchangeCycles, globalExchangeCycles, hostExchangeCycles,
 *     sharedStructureCopyCycles, syncCycles   (summed over tiles)
 *     tileBalance           fraction: computeCycles / (totalCycles x tiles)
 *     threadBalance         fraction: activeComputeCycles / computeCycles
 *     cyclesByVertexType    [{name, instances, cycles}] of the vertex types
 *                           that ran in the run, most cycles first
 *     cyclesByStepType      [{type, steps, cycles, share}] of every step type
 *                           (share: fraction of totalCycles, or null; steps
 *                           that overlap the one before count whole)
 *     cyclesByProgram       [{program, type, name (or null), steps, cycles}]
 *                           of the 100 programs with most cycles in the run
 *                           (then by id); name is the program's, else its
 *                           compute set's or exchange's
 *     otherProgramCycles    {programs, steps, cycles} of the programs past
 *                           those 100 summed, or null
 *     steps                 with show_execution_steps: [{type, name (or
 *                           null), syncType (or null), cyclesFrom,
 *                           cyclesTo, cycles, cyclesOverlapped,
 *                           activeTiles, tileBalance, activeTileBalance,
 *                           threadBalance, totalData, dataBalance,
 *                           and for OnTileExecute byVertexType:
 *                           [{name, instances, cycles}] of one execution}]
 *                           (balances are fractions or null)
 *   operations              with show_operations: [{id, parent (or null),
 *                           depth, name, layer, softwareLayer
 *                           (tsr_operation_get_software_layer), api (or
 *                           null), memoryBytes,
 *                           variableBytes, vertexBytes, cycles, flops (null
 *                           without runs), utilisation (fraction of the
 *                           fp32 peak of all tiles over its cycles, or
 *                           null)}] of every debug context in tree order,
 *                           figures with descendants, of the run shown
 *   listedVariables         the variables the report lists
 *   largestVariables        [{name, category, dataType, shape, bytes, tiles,
 *                           alwaysLive}] of the 20 largest, most bytes first
 *                           (then by id): bytes on all tiles of one replica
 *   tips                    the Insights' tips (tsr_summary_figures_list_tips,
 *                           with the always-live list and the run's steps
 *                           whatever the options): [{kind ("outOfMemory",
 *                           "alwaysLive", "exchangeCode" or "imbalance"),
 *                           saving (bytes or cycles, as summary.h's
 *                           tsr_tip_kind says), text}]
 *
 * The keys past the text's parts (outOfMemoryTileBytes, cyclesByStepType,
 * cyclesByProgram, otherProgramCycles, listedVariables, largestVariables,
 * tips) are what the summary page shows besides them: it draws every
 * table from this document.
 */
#include <tilescope/alloc.h>
#include "summary-private.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUMMARY_JSON_SCHEMA 1
/* Entries of "largestVariables" and "cyclesByProgram" (the rest of the
 * programs are summed in "otherProgramCycles"). */
#define TOP_VARIABLES 20
#define TOP_PROGRAMS 100

/* Building state: `ok` falls to false at the first allocation that fails
 * (the tree is freed whole at the end, so nothing else needs undoing). */
typedef struct json_ctx {
	tsr_summary_figures *s;  /* gathered with the steps and liveness tree */
	tsr_summary_options opts; /* the caller's: which parts to print */
	bool ok;
	int rc;              /* a failure other than memory (live variables) */
} json_ctx;

/* Adds `item` to object `obj` under `key` (or to array `obj` when key is
 * NULL); a NULL item or a failed add clears j->ok. Returns `item`. */
static cJSON *put(json_ctx *j, cJSON *obj, const char *key, cJSON *item)
{
	bool added;

	if (!item || !obj) {
		cJSON_Delete(item);
		j->ok = false;
		return NULL;
	}
	added = key ? cJSON_AddItemToObject(obj, key, item) : cJSON_AddItemToArray(obj, item);
	if (!added) {
		cJSON_Delete(item);
		j->ok = false;
		return NULL;
	}
	return item;
}

/* An exact integer. */
static cJSON *j_u64(uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return cJSON_CreateRaw(buf);
}

/* A fraction or null. */
static cJSON *j_num(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

/* A cleaned string (NULL: null). */
static cJSON *j_str(const char *s)
{
	char *clean;
	cJSON *item;

	if (!s)
		return cJSON_CreateNull();
	clean = tsr_summary_clean_dup(s);
	if (!clean)
		return NULL;
	item = cJSON_CreateString(clean);
	free(clean);
	return item;
}

/* A new object added to `parent`. */
static cJSON *j_obj(json_ctx *j, cJSON *parent, const char *key)
{
	return put(j, parent, key, cJSON_CreateObject());
}

/* A new array added to `parent`. */
static cJSON *j_arr(json_ctx *j, cJSON *parent, const char *key)
{
	return put(j, parent, key, cJSON_CreateArray());
}

/* [{name, bytes}] */
static void names_array(json_ctx *j, cJSON *parent, const char *key,
                        const tsr_summary_named_bytes *v, size_t n)
{
	cJSON *arr = j_arr(j, parent, key);

	for (size_t i = 0; j->ok && i < n; i++) {
		cJSON *o = j_obj(j, arr, NULL);

		put(j, o, "name", j_str(v[i].name));
		put(j, o, "bytes", j_u64(v[i].bytes));
		if (v[i].count)
			put(j, o, "count", j_u64(v[i].count));
	}
}

/* {tile, bytes} */
static void tile_bytes(json_ctx *j, cJSON *parent, const char *key, uint32_t tile, uint64_t bytes)
{
	cJSON *o = j_obj(j, parent, key);

	put(j, o, "tile", j_u64(tile));
	put(j, o, "bytes", j_u64(bytes));
}

/* "target": as the text's Target part, plus the target's identity. */
static void json_target(json_ctx *j, cJSON *root)
{
	const tsr_target *tg = j->s->target;
	uint64_t rf = tg->replication_factor ? tg->replication_factor : 1;
	cJSON *o = j_obj(j, root, "target");

	put(j, o, "type", j_str(tg->type));
	put(j, o, "name", j_str(tg->name));
	put(j, o, "ipuVersion", j_str(tg->version_name));
	put(j, o, "numIpus", j_u64(tg->num_ipus * rf));
	put(j, o, "tilesPerIpu", j_u64(tg->tiles_per_ipu));
	put(j, o, "totalTiles", j_u64(tg->num_tiles * rf));
	put(j, o, "memoryPerTile", j_u64(tg->bytes_per_tile));
	put(j, o, "totalMemory",
	    j_u64(tg->total_memory > UINT64_MAX / rf ? UINT64_MAX : tg->total_memory * rf));
	put(j, o, "clockFrequency", j_u64(tg->clock_frequency));
	put(j, o, "numReplicas", j_u64(rf));
	put(j, o, "ipusPerReplica", j_u64(tg->num_ipus));
	put(j, o, "tilesPerReplica", j_u64(tg->num_tiles));
	put(j, o, "memoryPerReplica", j_u64(tg->total_memory));
}

/* "graph": the four counts. */
static void json_graph(json_ctx *j, cJSON *root)
{
	const tsr_graph_counts *c = j->s->counts;
	cJSON *o = j_obj(j, root, "graph");

	put(j, o, "numVertices", j_u64(c->vertices));
	put(j, o, "numEdges", j_u64(c->edges));
	put(j, o, "numVariables", j_u64(c->variables));
	put(j, o, "numComputeSets", j_u64(c->compute_sets));
}

/* "optimizations": the optimizationInfo metrics as an object. */
static void json_optimizations(json_ctx *j, cJSON *root)
{
	cJSON *o = j_obj(j, root, "optimizations");

	for (size_t i = 0; j->ok && i < j->s->n_optimizations; i++) {
		char *clean = tsr_summary_clean_dup(j->s->optimizations[i].key);

		if (!clean) {
			j->ok = false;
			return;
		}
		put(j, o, clean, j_num(j->s->optimizations[i].value));
		free(clean);
	}
}

/* The categories of one kind (overlapped or not) that hold bytes. */
static void json_categories(json_ctx *j, cJSON *parent, const char *key,
                            const tsr_summary_memory *m, bool overlapped)
{
	cJSON *o = j_obj(j, parent, key);

	for (size_t i = 0; j->ok && i < m->n_categories; i++) {
		const tsr_category_memory *c = &m->categories[i].memory;
		uint64_t bytes = overlapped ? c->overlapped : c->non_overlapped;

		if (bytes && tsr_category_name(c->category))
			put(j, o, tsr_category_name(c->category), j_u64(bytes));
	}
}

/* One element of "memory": a "Memory on ..." part of the text. */
static void json_memory_part(json_ctx *j, cJSON *arr, const tsr_summary_memory *m)
{
	const tsr_memory_totals *tot = &m->totals;
	const tsr_vertex_memory *v = &m->vertex;
	cJSON *o = j_obj(j, arr, NULL), *x, *a;

	put(j, o, "ipu", m->ipu < 0 ? cJSON_CreateNull() : j_u64((uint64_t)m->ipu));
	put(j, o, "capacity", j_u64(tot->capacity));
	put(j, o, "includingGaps", j_u64(tot->total_including_gaps));
	put(j, o, "excludingGaps", j_u64(tot->total));
	x = j_obj(j, o, "byRegion");
	put(j, x, "nonInterleaved", j_u64(tot->region[TSR_REGION_NON_INTERLEAVED]));
	put(j, x, "interleaved", j_u64(tot->region[TSR_REGION_INTERLEAVED]));
	put(j, x, "overflowed", j_u64(tot->region[TSR_REGION_OVERFLOWED]));

	x = j_obj(j, o, "byDataType");
	json_categories(j, x, "notOverlapped", m, false);
	put(j, x, "notOverlappedTotal", j_u64(m->not_overlapped));
	json_categories(j, x, "overlapped", m, true);
	put(j, x, "overlappedTotal", j_u64(m->overlapped));
	put(j, x, "totalAfterOverlapping", j_u64(m->after_overlapping));

	x = j_obj(j, o, "vertexData");
	put(j, x, "total", j_u64(m->vertex_data));
	put(j, x, "internalVertexState", j_u64(v->vertex_data));
	put(j, x, "edgePointers", j_u64(v->edge_ptr));
	put(j, x, "copyPointers", j_u64(v->copy_ptr));
	put(j, x, "padding", j_u64(v->padding));
	put(j, x, "descriptors", j_u64(v->descriptor));
	a = j_arr(j, x, "byType");
	for (size_t i = 0; j->ok && i < m->n_vertex_types; i++) {
		cJSON *t = j_obj(j, a, NULL);

		put(j, t, "name", j_str(m->vertex_types[i].name));
		put(j, t, "bytes", j_u64(m->vertex_types[i].bytes));
	}

	x = j_obj(j, o, "byTile");
	put(j, x, "bucketBytes", j_u64(m->bucket_width));
	put(j, x, "firstBucket", j_u64(m->first_bucket));
	a = j_arr(j, x, "counts");
	for (size_t b = m->first_bucket; j->ok && b < m->end_bucket; b++)
		put(j, a, NULL, j_u64(m->histogram[b]));

	tile_bytes(j, o, "maxTileIncludingGaps", tot->max_tile, tot->max_tile_bytes);
	tile_bytes(j, o, "maxTileExcludingGaps", tot->max_tile_excluding_gaps,
	           tot->max_tile_excluding_gaps_bytes);
	a = j_arr(j, o, "outOfMemoryTiles");
	for (size_t i = 0; j->ok && i < m->n_oom_tiles; i++)
		put(j, a, NULL, j_u64(m->oom_tiles[i]));
	a = j_arr(j, o, "outOfMemoryTileBytes");
	for (size_t i = 0; j->ok && i < m->n_oom_tiles; i++) {
		uint64_t bytes = tsr_summary_tile_bytes_with_gaps(j->s, m->oom_tiles[i]);
		uint64_t per_tile = j->s->target->bytes_per_tile;
		cJSON *t = j_obj(j, a, NULL);

		put(j, t, "tile", j_u64(m->oom_tiles[i]));
		put(j, t, "bytes", j_u64(bytes));
		put(j, t, "excess", j_u64(bytes > per_tile ? bytes - per_tile : 0));
	}
	if (m->n_oom_tiles) {
		a = j_arr(j, o, "largestTiles");
		for (size_t i = 0; j->ok && i < m->n_largest_tiles; i++)
			tile_bytes(j, a, NULL, m->largest_tiles[i].tile, m->largest_tiles[i].bytes);
	}
}

/* "liveness": the Variable Storage Liveness part. */
static void json_liveness(json_ctx *j, cJSON *root)
{
	tsr_summary_figures *s = j->s;
	cJSON *o = j_obj(j, root, "liveness"), *steps;

	put(j, o, "alwaysLiveBytes", j_u64(s->always_live_bytes));
	put(j, o, "maxLiveBytes", j_u64(s->max_live_bytes));
	put(j, o, "peakStep", s->has_peak ? j_u64(s->peak_step) : cJSON_CreateNull());
	if (!j->opts.show_var_storage)
		return;
	names_array(j, o, "alwaysLiveVariables", s->always_live, s->n_always_live);
	steps = j_arr(j, o, "steps");
	for (size_t i = 0; j->ok && i < s->n_liveness_steps; i++) {
		const tsr_liveness_step *st = s->liveness_steps[i].step;
		const char *type = tsr_program_type_name(s->liveness_steps[i].program_type);
		cJSON *x = j_obj(j, steps, NULL);
		tsr_summary_named_bytes *live;
		size_t n_live;
		int rc;

		put(j, x, "step", j_u64(i));
		put(j, x, "parent", st->parent < 0 ? cJSON_CreateNull() : j_u64((uint64_t)st->parent));
		put(j, x, "depth", j_u64(st->depth));
		put(j, x, "program", j_u64(st->program));
		put(j, x, "type", j_str(type ? type : "?"));
		put(j, x, "name", j_str(s->liveness_steps[i].name));
		put(j, x, "liveBytes", j_u64(st->not_always_live));
		rc = tsr_summary_figures_list_live_variables(&live, &n_live, s, i);
		if (rc) {
			j->rc = rc;
			return;
		}
		names_array(j, x, "liveVariables", live, n_live);
		free(live);
	}
}

/* One execution step with every field (null where undefined). */
static void json_step(json_ctx *j, cJSON *arr, const tsr_summary_step *ss)
{
	const tsr_step *st = ss->step;
	cJSON *o = j_obj(j, arr, NULL);

	put(j, o, "type", j_str(tsr_step_type_name(st->type)));
	put(j, o, "name", j_str(ss->name));
	put(j, o, "syncType", j_str(st->type == TSR_STEP_SYNC ? tsr_sync_type_name(st->sync) : NULL));
	put(j, o, "cyclesFrom", j_u64(st->cycles_from));
	put(j, o, "cyclesTo", j_u64(st->cycles_to));
	put(j, o, "cycles", j_u64(st->cycles));
	put(j, o, "cyclesOverlapped", j_u64(st->cycles_overlapped));
	put(j, o, "activeTiles", j_u64(st->active_tiles));
	put(j, o, "tileBalance", j_num(st->tile_balance));
	put(j, o, "activeTileBalance", j_num(st->active_tile_balance));
	put(j, o, "threadBalance", j_num(st->thread_balance));
	put(j, o, "totalData", j_u64(st->total_data));
	put(j, o, "dataBalance", j_num(st->data_balance));
	if (st->type == TSR_STEP_ON_TILE_EXECUTE) {
		const tsr_vertex_type_cycles *vt = ss->vertex_types;
		cJSON *a = j_arr(j, o, "byVertexType");

		for (size_t i = 0; j->ok && i < ss->n_vertex_types; i++) {
			cJSON *x = j_obj(j, a, NULL);
			put(j, x, "name", j_str(vt[i].vertex_type < j->s->n_vertex_types
			                            ? j->s->vertex_types[vt[i].vertex_type].name
			                            : NULL));
			put(j, x, "instances", j_u64(vt[i].instances));
			put(j, x, "cycles", j_u64(vt[i].cycles));
		}
	}
}

/* "cyclesByStepType": every step type, with the run's steps of it. */
static void json_step_types(json_ctx *j, cJSON *exec)
{
	const tsr_activity *act = &j->s->activity;
	cJSON *a = j_arr(j, exec, "cyclesByStepType");

	for (size_t t = 0; j->ok && t < TSR_STEP_TYPE_COUNT; t++) {
		cJSON *x = j_obj(j, a, NULL);

		put(j, x, "type", j_str(tsr_step_type_name((tsr_step_type)t)));
		put(j, x, "steps", j_u64(act->steps[t]));
		put(j, x, "cycles", j_u64(act->step_cycles[t]));
		put(j, x, "share", j_num(act->cycles ? (double)act->step_cycles[t] / (double)act->cycles
		                                     : NAN));
	}
}

/* "cyclesByProgram": the TOP_PROGRAMS programs with most cycles in the
 * run, and "otherProgramCycles" the rest summed (a large model runs tens
 * of thousands of programs). */
static void json_programs(json_ctx *j, cJSON *exec)
{
	tsr_summary_program_cycles *p = NULL;
	size_t n = 0;
	uint64_t steps = 0, cycles = 0;
	cJSON *a, *x;
	int rc = tsr_summary_list_program_cycles(&p, &n, j->s);

	if (rc) {
		j->rc = rc;
		return;
	}
	a = j_arr(j, exec, "cyclesByProgram");
	for (size_t i = 0; j->ok && i < n && i < TOP_PROGRAMS; i++) {
		const char *type = tsr_program_type_name(p[i].type);

		x = j_obj(j, a, NULL);
		put(j, x, "program", j_u64(p[i].program));
		put(j, x, "type", j_str(type ? type : "?"));
		put(j, x, "name", j_str(p[i].name));
		put(j, x, "steps", j_u64(p[i].steps));
		put(j, x, "cycles", j_u64(p[i].cycles));
	}
	if (n <= TOP_PROGRAMS) {
		put(j, exec, "otherProgramCycles", cJSON_CreateNull());
	} else {
		for (size_t i = TOP_PROGRAMS; i < n; i++) {
			steps += p[i].steps;
			cycles = cycles > UINT64_MAX - p[i].cycles ? UINT64_MAX : cycles + p[i].cycles;
		}
		x = j_obj(j, exec, "otherProgramCycles");
		put(j, x, "programs", j_u64(n - TOP_PROGRAMS));
		put(j, x, "steps", j_u64(steps));
		put(j, x, "cycles", j_u64(cycles));
	}
	free(p);
}

/* "execution": the Execution part, null without runs. */
static void json_execution(json_ctx *j, cJSON *root)
{
	const tsr_summary_figures *s = j->s;
	const tsr_tile_cycles *tc = &s->activity.tile_cycles;
	cJSON *o, *a;

	if (!s->has_run) {
		put(j, root, "execution", cJSON_CreateNull());
		return;
	}
	o = j_obj(j, root, "execution");
	put(j, o, "run", j_u64(s->run));
	put(j, o, "runs", j_u64(s->n_runs));
	put(j, o, "program", j_u64(s->program));
	put(j, o, "programName", j_str(s->program_name));
	put(j, o, "totalCycles", j_u64(s->activity.cycles));
	put(j, o, "microseconds", j_num(s->flops.seconds * 1e6));
	put(j, o, "computeCycles", j_u64(tc->compute));
	put(j, o, "activeComputeCycles", j_u64(tc->active_compute));
	put(j, o, "ipuExchangeCycles", j_u64(tc->do_exchange));
	put(j, o, "globalExchangeCycles", j_u64(tc->global_exchange));
	put(j, o, "hostExchangeCycles", j_u64(tc->stream_copy));
	put(j, o, "sharedStructureCopyCycles", j_u64(tc->copy_shared_structure));
	put(j, o, "syncCycles", j_u64(tc->sync));
	put(j, o, "tileBalance", j_num(s->tile_balance));
	put(j, o, "threadBalance", j_num(s->thread_balance));
	a = j_arr(j, o, "cyclesByVertexType");
	for (size_t i = 0; j->ok && i < s->n_vertex_type_cycles; i++) {
		const tsr_vertex_type_cycles *c = &s->vertex_type_cycles[i];
		cJSON *x = j_obj(j, a, NULL);

		put(j, x, "name",
		    j_str(c->vertex_type < s->n_vertex_types ? s->vertex_types[c->vertex_type].name
		                                             : NULL));
		put(j, x, "instances", j_u64(c->instances));
		put(j, x, "cycles", j_u64(c->cycles));
	}
	json_step_types(j, o);
	json_programs(j, o);
	if (!j->opts.show_execution_steps)
		return;
	a = j_arr(j, o, "steps");
	for (size_t i = 0; j->ok && i < s->n_steps; i++)
		json_step(j, a, &s->steps[i]);
}

/* "operations": with show_operations, every debug context in tree order. */
static void json_operations(json_ctx *j, cJSON *root)
{
	const tsr_summary_figures *s = j->s;
	cJSON *a = j_arr(j, root, "operations");

	for (size_t i = 0; j->ok && i < s->n_operations; i++) {
		const tsr_summary_operation *o = &s->operations[i];
		cJSON *x = j_obj(j, a, NULL);

		put(j, x, "id", j_u64(o->op->id));
		put(j, x, "parent", o->op->parent ? j_u64(o->op->parent) : cJSON_CreateNull());
		put(j, x, "depth", j_u64(o->depth));
		put(j, x, "name", j_str(o->op->name));
		put(j, x, "layer", j_str(o->op->layer));
		put(j, x, "softwareLayer", j_str(tsr_operation_get_software_layer(o->op)));
		put(j, x, "api", j_str(o->op->api));
		put(j, x, "memoryBytes", j_u64(o->memory));
		put(j, x, "variableBytes", j_u64(o->op->variable_bytes));
		put(j, x, "vertexBytes", j_u64(o->op->vertex_bytes));
		put(j, x, "cycles", s->has_run ? j_u64(o->op->cycles) : cJSON_CreateNull());
		put(j, x, "flops", s->has_run ? j_u64(o->op->flops) : cJSON_CreateNull());
		put(j, x, "utilisation", j_num(o->utilisation));
	}
}

/* "largestVariables": the TOP_VARIABLES largest listed variables, and
 * "listedVariables" how many the report lists. */
static void json_variables(json_ctx *j, cJSON *root)
{
	const tsr_variable **v = NULL;
	size_t n = 0, n_listed = 0;
	cJSON *a;
	int rc = tsr_summary_list_largest_variables(&v, &n, &n_listed, j->s, TOP_VARIABLES);

	if (rc) {
		j->rc = rc;
		return;
	}
	put(j, root, "listedVariables", j_u64(n_listed));
	a = j_arr(j, root, "largestVariables");
	for (size_t i = 0; j->ok && i < n; i++) {
		cJSON *x = j_obj(j, a, NULL);

		put(j, x, "name", j_str(v[i]->name));
		put(j, x, "category", j_str(tsr_category_name(v[i]->mem_category)));
		put(j, x, "dataType", j_str(v[i]->data_type_name));
		put(j, x, "shape", j_str(v[i]->shape));
		put(j, x, "bytes", j_u64(v[i]->bytes));
		put(j, x, "tiles", j_u64(v[i]->tiles));
		put(j, x, "alwaysLive", cJSON_CreateBool(v[i]->always_live));
	}
	free(v);
}

/* "tips": the Insights' tips, from the always-live list and the run's
 * steps, which the figures hold whatever the caller's options. */
static void json_tips(json_ctx *j, cJSON *root)
{
	static const char *const kinds[] = {"outOfMemory", "alwaysLive", "exchangeCode",
	                                    "imbalance"};
	tsr_summary_tip *tips = NULL;
	size_t n = 0;
	cJSON *a;
	int rc = tsr_summary_figures_list_tips(&tips, &n, j->s);

	if (rc) {
		j->rc = rc;
		return;
	}
	a = j_arr(j, root, "tips");
	for (size_t i = 0; j->ok && i < n; i++) {
		cJSON *x = j_obj(j, a, NULL);

		put(j, x, "kind", j_str((size_t)tips[i].kind < sizeof(kinds) / sizeof(kinds[0])
		                            ? kinds[tips[i].kind] : "?"));
		put(j, x, "saving", j_u64(tips[i].saving));
		put(j, x, "text", j_str(tips[i].text));
	}
	free(tips);
}

/* The summary as JSON (summary.h): gathered once, with the liveness tree
 * and the steps whatever the options (the tips rest on them), built as a
 * cJSON tree of the parts the options ask for, printed, and copied into
 * a buffer the caller frees with free(). */
int tsr_summary_dup_json(char **out, tsr_report *report, const tsr_summary_options *opts)
{
	tsr_summary_figures *s = NULL;
	const tsr_summary_options defaults = TSR_SUMMARY_OPTIONS_INIT;
	json_ctx j = {NULL, defaults, true, TSR_OK};
	tsr_summary_options gather;
	cJSON *root = NULL, *mem;
	char *text = NULL;
	int rc;

	if (!out) {
		if (report)
			return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "summary: no output pointer");
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "summary: no output pointer");
	}
	*out = NULL;
	if (opts)
		j.opts = *opts;
	gather = j.opts;
	gather.show_var_storage = gather.show_execution_steps = true;
	rc = tsr_summary_figures_new(&s, report, &gather);
	if (rc)
		return rc;
	j.s = s;
	root = cJSON_CreateObject();
	if (!root) {
		j.ok = false;
		goto out;
	}
	put(&j, root, "schema", j_u64(SUMMARY_JSON_SCHEMA));
	json_target(&j, root);
	json_graph(&j, root);
	if (j.opts.show_optimizations)
		json_optimizations(&j, root);
	mem = j_arr(&j, root, "memory");
	for (size_t i = 0; j.ok && i < s->n_memory; i++)
		json_memory_part(&j, mem, &s->memory[i]);
	if (j.ok && !j.rc)
		json_liveness(&j, root);
	if (j.ok && !j.rc)
		json_execution(&j, root);
	if (j.ok && !j.rc && j.opts.show_operations)
		json_operations(&j, root);
	if (j.ok && !j.rc)
		json_variables(&j, root);
	if (j.ok && !j.rc)
		json_tips(&j, root);
	if (!j.ok || j.rc)
		goto out;
	text = cJSON_Print(root);
	if (!text) {
		j.ok = false;
		goto out;
	}
	/* Copied so that the caller's free() matches whatever hooks cJSON uses. */
	*out = tsb_strdup(text);
	if (!*out)
		j.ok = false;
out:
	if (text)
		cJSON_free(text);
	cJSON_Delete(root);
	if (j.rc)
		rc = j.rc;
	else if (!j.ok)
		rc = tsr_fail(report, TSR_ERR_NO_MEMORY, "summary: out of memory building the JSON");
	tsr_summary_figures_free(s);
	return rc;
}
