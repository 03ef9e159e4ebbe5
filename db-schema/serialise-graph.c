/*
 * The graph profile document: what the compiler computed about a graph
 * (target, graph counts, vertex types, compute sets, the three exchange
 * lists, programs, memory by tile / category / compute set / vertex type,
 * liveness), keys in the order of the Poplar user guide's "Profiling"
 * chapter, then Tilescope's "variables" and "debugContexts".
 *
 * The guide's format is dense: every per-tile array has num_tiles
 * entries, and byComputeSet / cycleEstimates hold one such array per
 * compute set, so a large model's document is gigabytes whatever we do.
 * The builders below borrow the profile's arrays (SV_NUMS, SV_DENSE
 * nodes) and compute only a few small arrays (category totals, liveness
 * per tile) in the tree's arena.
 */
#include <tilescope/alloc.h>
#include "serialise-private.h"

#include <stdlib.h>
#include <string.h>

/* A vocabulary word for the document ("Unknown" for a code outside it,
 * which a profile built by the runtime never holds). */
const char *sv_vocab_name(tsf_vocab vocab, int code)
{
	const char *name = tsf_vocab_name(vocab, code);

	return name ? name : "Unknown";
}

/* The guide's syncType words. */
const char *sv_sync_type_name(tsi_sync_type type)
{
	const char *name = tsf_vocab_name(TSF_VOCAB_SYNC_TYPE, (int)type);

	return name ? name : "Unknown";
}

/* "target": the guide's fields, plus the architecture name and the
 * replication factor (the target is one replica's). */
static sv_node *build_target(sv_tree *t, const tsi_graph_profile *gp)
{
	const tsi_target *tg = &gp->target;
	sv_node *m = sv_map(t);

	sv_put(m, "type", sv_string(t, tg->kind == TSI_TARGET_CPU ? "CPU" : "IPU_MODEL"));
	sv_put(m, "bytesPerIPU", sv_uint(t, tg->bytes_per_tile * tg->tiles_per_ipu));
	sv_put(m, "bytesPerTile", sv_uint(t, tg->bytes_per_tile));
	sv_put(m, "clockFrequency", sv_uint(t, tg->clock_hz));
	sv_put(m, "numIPUs", sv_uint(t, tg->num_ipus));
	sv_put(m, "tilesPerIPU", sv_uint(t, tg->tiles_per_ipu));
	sv_put(m, "numTiles", sv_uint(t, tg->num_tiles));
	sv_put(m, "totalMemory", sv_uint(t, tg->bytes_per_tile * tg->num_tiles));
	sv_put(m, "relativeSyncDelayByTile",
	       gp->relative_sync_delay_by_tile
	           ? sv_nums(t, gp->relative_sync_delay_by_tile, tg->tiles_per_ipu, sizeof(uint32_t),
	                     SV_U32)
	           : sv_zeros(t, tg->tiles_per_ipu));
	sv_put(m, "minSyncDelay", sv_uint(t, gp->min_sync_delay));
	sv_put(m, "architecture", sv_string_n(t, tg->name, strnlen(tg->name, sizeof(tg->name))));
	sv_put(m, "replicationFactor", sv_uint(t, gp->replication_factor));
	return m;
}

/* "vertexTypes": names and sizes, plus each type's code size, instance
 * count and FLOPs. */
static sv_node *build_vertex_types(sv_tree *t, const tsi_graph_profile *gp)
{
	const tsi_vertex_type_profile *vt = gp->vertex_types;
	size_t n = gp->n_vertex_types;
	sv_node *m = sv_map(t), *names = sv_array(t);

	for (size_t i = 0; i < n && vt && !t->rc; i++)
		sv_push(names, sv_string(t, vt[i].name));
	sv_put(m, "names", names);
	sv_put(m, "sizes", SV_FIELD(t, vt, n, state_bytes, SV_U32));
	sv_put(m, "codeSizes", SV_FIELD(t, vt, n, code_bytes, SV_U32));
	sv_put(m, "instanceCounts", SV_FIELD(t, vt, n, instances, SV_U64));
	sv_put(m, "flops", SV_FIELD(t, vt, n, flops, SV_U64));
	return m;
}

/* A compute set's active cycles as a dense array over all vertex types
 * (the guide's [compute_set][vertex_type]); the set's own list is copied
 * in index order when it is not already. */
static sv_node *build_cycles_by_type(sv_tree *t, const tsi_compute_set_profile *c,
                                     size_t n_vertex_types)
{
	const uint32_t *index = c->vertex_types;
	const uint64_t *value = c->active_cycles_by_type;
	uint32_t *sorted_index;
	uint64_t *sorted_value;
	size_t n = c->n_types;
	bool sorted = true;

	for (size_t i = 1; i < n && index && sorted; i++)
		sorted = index[i - 1] < index[i];
	if (sorted)
		return sv_dense(t, index, value, n, n_vertex_types);
	/* Insertion into place: a compute set has a handful of types. */
	sorted_index = sv_alloc_array(t, n, sizeof(*sorted_index));
	sorted_value = sv_alloc_array(t, n, sizeof(*sorted_value));
	if (!sorted_index || !sorted_value)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t j = i;

		while (j > 0 && sorted_index[j - 1] > index[i]) {
			sorted_index[j] = sorted_index[j - 1];
			sorted_value[j] = sorted_value[j - 1];
			j--;
		}
		sorted_index[j] = index[i];
		sorted_value[j] = value[i];
	}
	return sv_dense(t, sorted_index, sorted_value, n, n_vertex_types);
}

/* "computeSets": names, vertex counts and types, cycleEstimates; plus
 * FLOPs and the debug context of each set. */
static sv_node *build_compute_sets(sv_tree *t, const tsi_graph_profile *gp)
{
	const tsi_compute_set_profile *cs = gp->compute_sets;
	size_t n = gp->n_compute_sets, nt = gp->target.num_tiles;
	sv_node *m = sv_map(t), *names = sv_array(t), *counts = sv_array(t), *types = sv_array(t);
	sv_node *est = sv_map(t), *active = sv_array(t), *by_type = sv_array(t);
	sv_node *cycles = sv_array(t);

	for (size_t i = 0; i < n && cs && !t->rc; i++) {
		const tsi_compute_set_profile *c = &cs[i];

		if (c->n_types && (!c->vertex_types || !c->vertex_counts || !c->active_cycles_by_type)) {
			sv_fail(t, TSF_ERR_INVALID, "profile: compute set %zu has %u vertex types "
			        "but no arrays for them", i, c->n_types);
			break;
		}
		sv_push(names, sv_string(t, c->name));
		sv_push(counts, sv_nums(t, c->vertex_counts, c->n_types, sizeof(uint64_t), SV_U64));
		sv_push(types, sv_nums(t, c->vertex_types, c->n_types, sizeof(uint32_t), SV_U32));
		sv_push(active, sv_tiles(t, &c->active_cycles_by_tile, nt));
		sv_push(by_type, build_cycles_by_type(t, c, gp->n_vertex_types));
		sv_push(cycles, sv_tiles(t, &c->cycles_by_tile, nt));
	}
	sv_put(m, "names", names);
	sv_put(m, "vertexCounts", counts);
	sv_put(m, "vertexTypes", types);
	sv_put(est, "activeCyclesByTile", active);
	sv_put(est, "activeCyclesByVertexType", by_type);
	sv_put(est, "cyclesByTile", cycles);
	sv_put(m, "cycleEstimates", est);
	sv_put(m, "flops", SV_FIELD(t, cs, n, flops, SV_U64));
	sv_put(m, "debugContextIds", SV_FIELD(t, cs, n, debug_context, SV_U32));
	return m;
}

/* "exchanges" / "externalExchanges" / "hostExchanges": bytes and cycles
 * by exchange then tile; plus the exchanges' names. */
static sv_node *build_exchanges(sv_tree *t, const tsi_graph_profile *gp, tsi_exchange_kind kind)
{
	const tsi_exchange_profile *ex = gp->exchanges[kind];
	size_t n = gp->n_exchanges[kind], nt = gp->target.num_tiles;
	sv_node *m = sv_map(t), *recv = sv_array(t), *sent = sv_array(t), *cycles = sv_array(t);
	sv_node *names = sv_array(t);

	for (size_t i = 0; i < n && ex && !t->rc; i++) {
		sv_push(recv, sv_tiles(t, &ex[i].bytes_received, nt));
		sv_push(sent, sv_tiles(t, &ex[i].bytes_sent, nt));
		sv_push(cycles, sv_tiles(t, &ex[i].cycles, nt));
		sv_push(names, sv_string(t, ex[i].name));
	}
	sv_put(m, "bytesReceivedByTile", recv);
	sv_put(m, "bytesSentByTile", sent);
	/* Internal exchanges are scheduled statically, so their cycles are
	 * known; the others are estimates. */
	sv_put(m, kind == TSI_EXCHANGE_INTERNAL ? "cyclesByTile" : "estimatedCyclesByTile", cycles);
	sv_put(m, "names", names);
	return m;
}

/* An exchange program's "memoryByInstruction". */
static sv_node *build_instructions(sv_tree *t, const tsi_exchange_instructions *x)
{
	sv_node *m = sv_map(t);

	sv_put(m, "delay", sv_uint(t, x->delay));
	sv_put(m, "exchange", sv_uint(t, x->exchange));
	sv_put(m, "other", sv_uint(t, x->other));
	sv_put(m, "receiveAddress", sv_uint(t, x->receive_address));
	sv_put(m, "receiveFormat", sv_uint(t, x->receive_format));
	sv_put(m, "receiveMux", sv_uint(t, x->receive_mux));
	sv_put(m, "send", sv_uint(t, x->send));
	sv_put(m, "sendWithPutAddress", sv_uint(t, x->send_with_put_address));
	sv_put(m, "sendWithPutFormat", sv_uint(t, x->send_with_put_format));
	sv_put(m, "sendWithPutMux", sv_uint(t, x->send_with_put_mux));
	sv_put(m, "total", sv_uint(t, x->total));
	return m;
}

/*
 * One entry of "programs": the tagged union of the guide, keys in its
 * (alphabetical) order. Structured programs have "children"; exchanges
 * their exchange index and memoryByInstruction (every exchange kind: the
 * model computes it for all three); Call the index of the function in
 * functionPrograms as "target". Tilescope adds "repeatCount" to Repeat,
 * "syncType" to Sync and "debugContext" when a context made the program.
 */
static sv_node *build_program(sv_tree *t, const tsi_lowered_program *lp, size_t index)
{
	sv_node *m = sv_map(t);
	bool structured = false, exchange = false;

	switch (lp->type) {
	case TSI_LP_SEQUENCE:
	case TSI_LP_REPEAT:
	case TSI_LP_REPEAT_WHILE_TRUE:
	case TSI_LP_REPEAT_WHILE_FALSE:
	case TSI_LP_IF:
	case TSI_LP_IF_ELSE:
	case TSI_LP_SWITCH:
		structured = true;
		break;
	case TSI_LP_DO_EXCHANGE:
	case TSI_LP_GLOBAL_EXCHANGE:
	case TSI_LP_STREAM_COPY:
		exchange = true;
		break;
	default:
		break;
	}
	if (lp->n_children && !lp->children) {
		sv_fail(t, TSF_ERR_INVALID, "profile: program %zu has %u children but no list",
		        index, lp->n_children);
		return NULL;
	}
	if (structured || lp->n_children)
		sv_put(m, "children", sv_nums(t, lp->children, lp->n_children, sizeof(uint32_t), SV_U32));
	if (lp->type == TSI_LP_ON_TILE_EXECUTE)
		sv_put(m, "computeSet", sv_int(t, lp->compute_set));
	if (lp->debug_context)
		sv_put(m, "debugContext", sv_uint(t, lp->debug_context));
	if (exchange) {
		sv_put(m, "exchange", sv_int(t, lp->exchange));
		sv_put(m, "memoryByInstruction", build_instructions(t, &lp->memory_by_instruction));
	}
	if (lp->name)
		sv_put(m, "name", sv_string(t, lp->name));
	if (lp->type == TSI_LP_REPEAT)
		sv_put(m, "repeatCount", sv_uint(t, lp->repeat_count));
	if (lp->type == TSI_LP_SYNC)
		sv_put(m, "syncType", sv_string(t, sv_sync_type_name(lp->sync)));
	if (lp->type == TSI_LP_CALL)
		sv_put(m, "target", sv_int(t, lp->function));
	sv_put(m, "type", sv_string(t, sv_vocab_name(TSF_VOCAB_PROGRAM_TYPE, (int)lp->type)));
	return m;
}

/* "memory"."byTile": the tsi_tile_memory fields, one array each. */
static sv_node *build_by_tile(sv_tree *t, const tsi_graph_profile *gp)
{
	static const struct {
		const char *key;
		size_t offset;
	} fields[] = {
		{"interleaved", offsetof(tsi_tile_memory, region[TSI_REGION_INTERLEAVED])},
		{"interleavedIncludingGaps",
		 offsetof(tsi_tile_memory, region_including_gaps[TSI_REGION_INTERLEAVED])},
		{"nonInterleaved", offsetof(tsi_tile_memory, region[TSI_REGION_NON_INTERLEAVED])},
		{"nonInterleavedIncludingGaps",
		 offsetof(tsi_tile_memory, region_including_gaps[TSI_REGION_NON_INTERLEAVED])},
		{"overflowed", offsetof(tsi_tile_memory, region[TSI_REGION_OVERFLOWED])},
		{"overflowedIncludingGaps",
		 offsetof(tsi_tile_memory, region_including_gaps[TSI_REGION_OVERFLOWED])},
		{"total", offsetof(tsi_tile_memory, total)},
		{"totalIncludingGaps", offsetof(tsi_tile_memory, total_including_gaps)},
	};
	size_t nt = gp->target.num_tiles;
	sv_node *m = sv_map(t);

	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
		sv_put(m, fields[f].key,
		       gp->by_tile ? sv_nums(t, (const char *)gp->by_tile + fields[f].offset, nt,
		                             sizeof(tsi_tile_memory), SV_U64)
		                   : sv_zeros(t, nt));
	return m;
}

/* "memory"."byCategory": every category of the guide, each region split
 * into nonOverlapped / overlapped, and "total" (the six cells summed). */
static sv_node *build_by_category(sv_tree *t, const tsi_graph_profile *gp)
{
	size_t nt = gp->target.num_tiles;
	sv_node *m = sv_map(t);

	for (unsigned cat = 0; cat < TSI_MEM_CATEGORY_COUNT && !t->rc; cat++) {
		sv_node *c = sv_map(t);
		uint64_t *total = sv_alloc_array(t, nt, sizeof(*total));

		for (unsigned r = 0; r < TSI_REGION_COUNT; r++) {
			sv_node *region = sv_map(t);

			for (unsigned ov = 0; ov < 2; ov++) {
				size_t row = ((size_t)cat * TSI_REGION_COUNT + r) * 2 + ov;
				const uint64_t *cells = gp->by_category ? gp->by_category + row * nt : NULL;

				for (size_t tile = 0; cells && total && tile < nt; tile++)
					total[tile] += cells[tile];
				sv_put(region, ov ? "overlapped" : "nonOverlapped",
				       cells ? sv_nums(t, cells, nt, sizeof(uint64_t), SV_U64) : sv_zeros(t, nt));
			}
			sv_put(c, sv_vocab_name(TSF_VOCAB_REGION, (int)r), region);
		}
		sv_put(c, "total", total ? sv_nums(t, total, nt, sizeof(uint64_t), SV_U64) : NULL);
		sv_put(m, sv_vocab_name(TSF_VOCAB_MEM_CATEGORY, (int)cat), c);
	}
	return m;
}

/* "byComputeSet" / "byVertexType": seven arrays indexed by set (or
 * type) then tile. A NULL `vm` (no breakdown) gives zeros. */
static sv_node *build_vertex_memory(sv_tree *t, const tsi_vertex_memory *vm, size_t n, size_t nt)
{
	static const struct {
		const char *key;
		size_t offset;
	} fields[] = {
		{"codeBytes", offsetof(tsi_vertex_memory, code_bytes)},
		{"copyPtrBytes", offsetof(tsi_vertex_memory, copy_ptr_bytes)},
		{"descriptorBytes", offsetof(tsi_vertex_memory, descriptor_bytes)},
		{"edgePtrBytes", offsetof(tsi_vertex_memory, edge_ptr_bytes)},
		{"paddingBytes", offsetof(tsi_vertex_memory, padding_bytes)},
		{"vertexDataBytes", offsetof(tsi_vertex_memory, vertex_data_bytes)},
		{"totalBytes", offsetof(tsi_vertex_memory, total_bytes)},
	};
	sv_node *m = sv_map(t);

	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]) && !t->rc; f++) {
		sv_node *rows = sv_array(t);

		for (size_t i = 0; i < n && !t->rc; i++) {
			const tsi_tile_values *tv =
			    vm ? (const void *)((const char *)&vm[i] + fields[f].offset) : NULL;

			sv_push(rows, tv ? sv_tiles(t, tv, nt) : sv_zeros(t, nt));
		}
		sv_put(m, fields[f].key, rows);
	}
	return m;
}

/* A change of one tile's live bytes at a liveness step. */
typedef struct live_event {
	uint32_t tile;
	uint64_t step;
	int64_t delta;
} live_event;

/* Order of the sweep: by tile, then step, an interval's end before
 * another's start at the same step (an interval ends after its last
 * step). */
static int cmp_live_event(const void *a, const void *b)
{
	const live_event *x = a, *y = b;

	if (x->tile != y->tile)
		return x->tile < y->tile ? -1 : 1;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return (x->delta > y->delta) - (x->delta < y->delta);
}

/*
 * Per tile, the peak over the liveness steps of the bytes of the
 * not-always-live variables live at once (each live from live_from to
 * live_to inclusive; live nowhere: live_from = UINT32_MAX) into
 * max_by_tile[num_tiles]: the guide's notAlwaysLive.maxBytesByTile, the
 * same sweep the memory model sizes each tile's overlap pool with.
 */
static void live_peaks(sv_tree *t, const tsi_graph_profile *gp, uint64_t *max_by_tile)
{
	size_t n_events = 0, k = 0;
	live_event *events = NULL;

	for (size_t v = 0; v < gp->n_variables; v++) {
		const tsi_variable_profile *var = &gp->variables[v];

		if (!var->always_live && var->live_from != UINT32_MAX &&
		    var->live_from <= var->live_to) {
			if (var->bytes_by_tile.n > (SIZE_MAX / sizeof(*events)) / 2 - n_events)
				goto nomem;
			n_events += 2 * var->bytes_by_tile.n;
		}
	}
	if (!n_events)
		return;
	events = tsb_malloc(n_events * sizeof(*events));
	if (!events)
		goto nomem;
	for (size_t v = 0; v < gp->n_variables; v++) {
		const tsi_variable_profile *var = &gp->variables[v];
		const tsi_tile_values *tv = &var->bytes_by_tile;

		if (var->always_live || var->live_from == UINT32_MAX || var->live_from > var->live_to)
			continue;
		for (size_t i = 0; i < tv->n; i++) {
			events[k++] = (live_event){tv->tiles[i], var->live_from, (int64_t)tv->values[i]};
			events[k++] = (live_event){tv->tiles[i], (uint64_t)var->live_to + 1,
			                           -(int64_t)tv->values[i]};
		}
	}
	qsort(events, n_events, sizeof(*events), cmp_live_event);
	for (size_t i = 0; i < n_events;) {
		uint32_t tile = events[i].tile;
		int64_t live = 0, peak = 0;

		for (; i < n_events && events[i].tile == tile; i++) {
			live += events[i].delta;
			if (live > peak)
				peak = live;
		}
		max_by_tile[tile] = (uint64_t)peak; /* tile < nt: checked by the caller */
	}
	free(events);
	return;
nomem:
	sv_fail(t, TSF_ERR_NO_MEMORY, "out of host memory serialising a profile");
}

/*
 * "memory"."liveness": always-live bytes (in all and by tile) and the
 * variables that are always live; not-always-live bytes at each liveness
 * step, their peak by tile and the variables concerned; and the liveness
 * steps' call-stack tree (program, parent step, depth). Variable indexes
 * are into the top-level "variables".
 */
static sv_node *build_liveness(sv_tree *t, const tsi_graph_profile *gp)
{
	size_t nt = gp->target.num_tiles, nv = gp->n_variables, n_always = 0, n_other = 0;
	uint64_t *always = sv_alloc_array(t, nt, sizeof(*always));
	uint64_t *peak = sv_alloc_array(t, nt, sizeof(*peak));
	uint64_t *always_vars = sv_alloc_array(t, nv, sizeof(*always_vars));
	uint64_t *other_vars = sv_alloc_array(t, nv, sizeof(*other_vars));
	sv_node *m = sv_map(t), *al = sv_map(t), *nal = sv_map(t), *steps = sv_map(t);
	const tsi_liveness_step *ls = gp->liveness;
	size_t n_steps = gp->n_liveness;

	if (t->rc)
		return NULL;
	for (size_t v = 0; v < nv; v++) {
		const tsi_variable_profile *var = &gp->variables[v];
		const tsi_tile_values *tv = &var->bytes_by_tile;

		if (tv->n && (!tv->tiles || !tv->values)) {
			sv_fail(t, TSF_ERR_INVALID, "profile: variable %zu has no tile list", v);
			return NULL;
		}
		for (size_t i = 0; i < tv->n; i++) {
			if (tv->tiles[i] >= nt) {
				sv_fail(t, TSF_ERR_INVALID,
				        "profile: variable %zu is on tile %u of %zu", v, tv->tiles[i], nt);
				return NULL;
			}
			if (var->always_live)
				always[tv->tiles[i]] += tv->values[i];
		}
		if (var->always_live)
			always_vars[n_always++] = v;
		else
			other_vars[n_other++] = v;
	}
	live_peaks(t, gp, peak);

	sv_put(al, "bytes", sv_uint(t, gp->always_live_bytes));
	sv_put(al, "bytesByTile", sv_nums(t, always, nt, sizeof(uint64_t), SV_U64));
	sv_put(al, "variables", sv_nums(t, always_vars, n_always, sizeof(uint64_t), SV_U64));
	sv_put(m, "alwaysLive", al);
	sv_put(nal, "bytesByStep", SV_FIELD(t, ls, n_steps, not_always_live_bytes, SV_U64));
	sv_put(nal, "maxBytesByTile", sv_nums(t, peak, nt, sizeof(uint64_t), SV_U64));
	sv_put(nal, "variables", sv_nums(t, other_vars, n_other, sizeof(uint64_t), SV_U64));
	sv_put(m, "notAlwaysLive", nal);
	sv_put(steps, "program", SV_FIELD(t, ls, n_steps, program, SV_U32));
	sv_put(steps, "parent", SV_FIELD(t, ls, n_steps, parent, SV_I32));
	sv_put(steps, "depth", SV_FIELD(t, ls, n_steps, depth, SV_U32));
	sv_put(m, "steps", steps);
	return m;
}

/* "memory": byTile, byCategory, byComputeSet, byVertexType, liveness;
 * plus the out-of-memory tiles. */
static sv_node *build_memory(sv_tree *t, const tsi_graph_profile *gp)
{
	size_t nt = gp->target.num_tiles;
	sv_node *m = sv_map(t);

	sv_put(m, "byTile", build_by_tile(t, gp));
	sv_put(m, "byCategory", build_by_category(t, gp));
	sv_put(m, "byComputeSet", build_vertex_memory(t, gp->by_compute_set, gp->n_compute_sets, nt));
	sv_put(m, "byVertexType", build_vertex_memory(t, gp->by_vertex_type, gp->n_vertex_types, nt));
	sv_put(m, "liveness", build_liveness(t, gp));
	sv_put(m, "outOfMemoryTiles",
	       sv_nums(t, gp->oom_tiles, gp->n_oom_tiles, sizeof(uint32_t), SV_U32));
	return m;
}

/* Tilescope's "variables": every variable of the graph profile (user
 * variables and constants, exchange buffers, always-live aggregates)
 * with its live interval (null when always live or live nowhere) and
 * its bytes on the tiles it is on (sparse: "tiles" and "tileBytes"). */
static sv_node *build_variables(sv_tree *t, const tsi_graph_profile *gp)
{
	sv_node *list = sv_array(t);

	for (size_t v = 0; v < gp->n_variables && !t->rc; v++) {
		const tsi_variable_profile *var = &gp->variables[v];
		bool live = !var->always_live && var->live_from != UINT32_MAX;
		sv_node *m = sv_map(t);

		sv_put(m, "name", sv_string(t, var->name));
		sv_put(m, "category", sv_string(t, sv_vocab_name(TSF_VOCAB_MEM_CATEGORY, (int)var->category)));
		sv_put(m, "type", sv_string(t, sv_vocab_name(TSF_VOCAB_DATA_TYPE, (int)var->type)));
		sv_put(m, "bytes", sv_uint(t, var->bytes));
		sv_put(m, "shape", sv_nums(t, var->shape, var->rank, sizeof(size_t), SV_SIZE));
		sv_put(m, "alwaysLive", sv_bool(t, var->always_live));
		sv_put(m, "liveFrom", live ? sv_uint(t, var->live_from) : sv_null(t));
		sv_put(m, "liveTo", live ? sv_uint(t, var->live_to) : sv_null(t));
		sv_put(m, "debugContext", sv_uint(t, var->debug_context));
		sv_put(m, "tiles", sv_nums(t, var->bytes_by_tile.tiles, var->bytes_by_tile.n,
		                           sizeof(uint32_t), SV_U32));
		sv_put(m, "tileBytes", sv_nums(t, var->bytes_by_tile.values, var->bytes_by_tile.n,
		                               sizeof(uint64_t), SV_U64));
		sv_push(list, m);
	}
	return list;
}

/* Tilescope's "debugContexts", in id order (id i is entry i - 1). */
static sv_node *build_debug_contexts(sv_tree *t, const tsi_graph_profile *gp)
{
	sv_node *list = sv_array(t);

	for (size_t i = 0; i < gp->n_debug_contexts && !t->rc; i++) {
		const tsi_debug_context_profile *dc = &gp->debug_contexts[i];
		sv_node *m = sv_map(t);

		sv_put(m, "id", sv_uint(t, dc->id));
		sv_put(m, "parent", sv_uint(t, dc->parent));
		sv_put(m, "name", sv_string(t, dc->name));
		sv_put(m, "layer", sv_string(t, dc->layer));
		sv_put(m, "api", sv_string(t, dc->api));
		sv_push(list, m);
	}
	return list;
}

/* Fails unless every list the profile counts is there. */
void sv_check_lists(sv_tree *t, const tsi_graph_profile *gp)
{
	const struct {
		const void *p;
		size_t n;
		const char *what;
	} lists[] = {
		{gp->programs, gp->n_programs, "programs"},
		{gp->control_programs, gp->n_control_programs, "control programs"},
		{gp->function_programs, gp->n_function_programs, "function programs"},
		{gp->vertex_types, gp->n_vertex_types, "vertex types"},
		{gp->compute_sets, gp->n_compute_sets, "compute sets"},
		{gp->variables, gp->n_variables, "variables"},
		{gp->liveness, gp->n_liveness, "liveness steps"},
		{gp->debug_contexts, gp->n_debug_contexts, "debug contexts"},
		{gp->oom_tiles, gp->n_oom_tiles, "out-of-memory tiles"},
	};

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (lists[i].n && !lists[i].p)
			sv_fail(t, TSF_ERR_INVALID, "profile: %zu %s but no list", lists[i].n,
			        lists[i].what);
	for (int k = 0; k < TSI_EXCHANGE_KIND_COUNT; k++)
		if (gp->n_exchanges[k] && !gp->exchanges[k])
			sv_fail(t, TSF_ERR_INVALID, "profile: %zu exchanges of kind %d but no list",
			        gp->n_exchanges[k], k);
}

/* The whole graph profile, top-level keys in the guide's order, then
 * Tilescope's "variables" and "debugContexts". */
sv_node *sv_build_graph(sv_tree *t, const tsi_graph_profile *gp)
{
	sv_node *root = sv_map(t), *g = sv_map(t), *programs = sv_array(t);

	sv_check_lists(t, gp);
	if (t->rc)
		return NULL;
	sv_put(root, "target", build_target(t, gp));
	/* The model keeps no compiler metrics: an empty map<string, double>. */
	sv_put(root, "optimizationInfo", sv_map(t));
	sv_put(g, "numComputeSets", sv_uint(t, gp->num_compute_sets));
	sv_put(g, "numEdges", sv_uint(t, gp->num_edges));
	sv_put(g, "numVars", sv_uint(t, gp->num_vars));
	sv_put(g, "numVertices", sv_uint(t, gp->num_vertices));
	sv_put(root, "graph", g);
	sv_put(root, "vertexTypes", build_vertex_types(t, gp));
	sv_put(root, "computeSets", build_compute_sets(t, gp));
	sv_put(root, "exchanges", build_exchanges(t, gp, TSI_EXCHANGE_INTERNAL));
	sv_put(root, "externalExchanges", build_exchanges(t, gp, TSI_EXCHANGE_EXTERNAL));
	sv_put(root, "hostExchanges", build_exchanges(t, gp, TSI_EXCHANGE_HOST));
	for (size_t i = 0; i < gp->n_programs && !t->rc; i++)
		sv_push(programs, build_program(t, &gp->programs[i], i));
	sv_put(root, "programs", programs);
	sv_put(root, "controlPrograms",
	       sv_nums(t, gp->control_programs, gp->n_control_programs, sizeof(uint32_t), SV_U32));
	sv_put(root, "functionPrograms",
	       sv_nums(t, gp->function_programs, gp->n_function_programs, sizeof(uint32_t), SV_U32));
	sv_put(root, "memory", build_memory(t, gp));
	sv_put(root, "variables", build_variables(t, gp));
	sv_put(root, "debugContexts", build_debug_contexts(t, gp));
	return root;
}
