/*
 * Graphs: creation (top-level, replicated, virtual), the sticky building
 * error, variables and constants, tile mapping and its queries, data
 * streams, remote buffers and host read/write handles.
 */
#include "../ipu-private.h"

#include <tilescope/hashmap.h>

#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* Records the first building error of the graph (later ones only go to the
 * thread-local error) and returns `code`. */
int tsi_graph_fail(tsi_graph *graph, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tsi_set_errorv(code, fmt, ap);
	va_end(ap);
	if (graph && !graph->core->error_code) {
		graph->core->error_code = code;
		graph->core->error_msg = strdup(tsi_error_last());
	}
	tsi_log(TSI_LOG_ERR, "GRAPH", "%s", tsi_error_last());
	return code;
}

TSI_API int tsi_graph_new(tsi_graph **out, const tsi_target *target, unsigned replication_factor)
{
	tsi_graph_core *core = NULL;
	tsi_graph *g = NULL;

	if (!out || !target)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_graph_new: out and target are required");
	*out = NULL;
	if (replication_factor == 0)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "replication factor must be at least 1");
	if (target->num_ipus % replication_factor != 0)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "replication factor %u does not divide the target's %u IPUs: "
		                     "each replica needs whole IPUs",
		                     replication_factor, target->num_ipus);
	core = calloc(1, sizeof(*core));
	g = calloc(1, sizeof(*g));
	if (!core || !g)
		goto oom;
	core->device_target = *target;
	core->target = *target;
	core->target.num_ipus = target->num_ipus / replication_factor;
	core->target.num_tiles = core->target.num_ipus * target->tiles_per_ipu;
	core->replication = replication_factor;
	g->core = core;
	g->target = core->target;
	*out = g;
	if (pvti_recording_()) {
		pvti_begin(pvti_channel_poplar(), "Graph construction");
		core->construction_traced = true;
		core->construction_thread = pthread_self();
	}
	tsi_log(TSI_LOG_INFO, "GRAPH", "Created graph for target '%s' (%u tiles%s)", target->name,
	        core->target.num_tiles, replication_factor > 1 ? ", replicated" : "");
	return TSI_OK;
oom:
	free(core);
	free(g);
	return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory creating a graph");
}

/*
 * Ends the "Graph construction" span (begun by tsi_graph_new) when it is
 * open and this is the thread that began it; spans must end on their own
 * thread, and a graph compiled elsewhere simply leaves it to the trace's
 * count of unclosed spans.
 */
void tsi_graph_trace_construction_end(tsi_graph_core *core)
{
	if (!core->construction_traced || !pthread_equal(core->construction_thread, pthread_self()))
		return;
	core->construction_traced = false;
	pvti_end(pvti_channel_poplar());
}

TSI_API void tsi_graph_free(tsi_graph *graph)
{
	tsi_graph_core *core;

	if (!graph || graph->parent)
		return;
	core = graph->core;
	tsi_graph_trace_construction_end(core);
	for (size_t i = 0; i < core->vars.len; i++) {
		tsi_var *v = core->vars.items[i];
		free(v->init);
		tsi_var_tiles_free(v);
	}
	for (size_t i = 0; i < core->compute_sets.len; i++)
		tsi_vec_clear(&((tsi_compute_set *)core->compute_sets.items[i])->vertices);
	for (size_t i = 0; i < core->programs.len; i++) {
		tsi_program *p = core->programs.items[i];
		tsi_vec_clear(&p->steps);
		tsi_vec_clear(&p->case_bodies);
		free(p->case_values);
	}
	for (size_t i = 0; i < core->subgraphs.len; i++)
		free(core->subgraphs.items[i]);
	tsi_vec_clear(&core->vars);
	tsi_vec_clear(&core->codelets);
	tsb_hashmap_free(core->codelet_by_name);
	free(core->view_cache);
	free(core->view_tags);
	tsi_slicer_free(core->slicer);
	free(core->scratch_slots);
	tsi_arena_clear(&core->scratch);
	tsi_vec_clear(&core->compute_sets);
	tsi_vec_clear(&core->vertices);
	tsi_vec_clear(&core->streams);
	tsi_vec_clear(&core->remote_buffers);
	tsi_vec_clear(&core->host_handles);
	tsi_vec_clear(&core->programs);
	tsi_vec_clear(&core->functions);
	tsi_vec_clear(&core->subgraphs);
	tsi_debug_clear(core);
	tsi_arena_clear(&core->arena);
	free(core->error_msg);
	free(core);
	free(graph);
}

TSI_API const tsi_target *tsi_graph_get_target(const tsi_graph *graph)
{
	return graph ? &graph->target : NULL;
}

TSI_API unsigned tsi_graph_get_replication_factor(const tsi_graph *graph)
{
	return graph ? graph->core->replication : 0;
}

TSI_API unsigned tsi_graph_get_tile_offset(const tsi_graph *graph)
{
	return graph ? graph->tile_lo : 0;
}

/* The first message recorded; "" when none (or for NULL), never NULL. */
TSI_API const char *tsi_graph_get_error(const tsi_graph *graph)
{
	return graph && graph->core->error_msg ? graph->core->error_msg : "";
}

TSI_API int tsi_graph_error_code(const tsi_graph *graph)
{
	return graph ? graph->core->error_code : TSI_ERR_INVALID_ARGUMENT;
}

/*
 * A virtual graph is a window [lo, hi) onto its parent's tiles. It shares
 * the parent's core, so everything added through it is part of the
 * top-level graph; only tile numbers are translated.
 */
TSI_API tsi_graph *tsi_graph_create_virtual(tsi_graph *graph, unsigned lo, unsigned hi)
{
	tsi_graph *v;

	if (!graph)
		return NULL;
	if (lo >= hi || hi > graph->target.num_tiles) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "virtual graph tiles [%u, %u) are not a non-empty range within the "
		               "graph's %u tiles",
		               lo, hi, graph->target.num_tiles);
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v || tsi_vec_push(&graph->core->subgraphs, v)) {
		free(v);
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory creating a virtual graph");
		return NULL;
	}
	v->core = graph->core;
	v->parent = graph;
	v->tile_lo = graph->tile_lo + lo;
	v->target = graph->target;
	v->target.num_tiles = hi - lo;
	unsigned tpi = graph->target.tiles_per_ipu;
	v->target.num_ipus = (v->tile_lo + v->target.num_tiles + tpi - 1) / tpi - v->tile_lo / tpi;
	return v;
}

/* --- Variables ------------------------------------------------------------ */

/* Creates a variable (or constant) record and returns its whole tensor. */
static tsi_tensor *add_var(tsi_graph *graph, tsi_type type, size_t rank, const size_t *shape,
                           const char *name, bool is_constant)
{
	tsi_graph_core *core;
	tsi_var *v;
	size_t numel = 1;

	if (!graph)
		return NULL;
	core = graph->core;
	if ((unsigned)type >= TSI_TYPE_COUNT) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "variable '%s' has an unknown type %d",
		               name ? name : "?", (int)type);
		return NULL;
	}
	if (rank > TSI_MAX_RANK || (rank && !shape)) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "variable '%s' has rank %zu; at most %d dimensions", name ? name : "?",
		               rank, TSI_MAX_RANK);
		return NULL;
	}
	for (size_t d = 0; d < rank; d++) {
		if (shape[d] && numel > SIZE_MAX / shape[d] / 8) {
			tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "variable '%s' is too large",
			               name ? name : "?");
			return NULL;
		}
		numel *= shape[d];
	}
	if (numel > UINT32_MAX) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "variable '%s' has %zu elements; at most %u in one variable",
		               name ? name : "?", numel, UINT32_MAX);
		return NULL;
	}
	/* Tensors name their variable in an int32_t (their header is kept small). */
	if (core->vars.len >= INT32_MAX) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "variable '%s' would be the graph's %zuth; at most %d variables",
		               name ? name : "?", core->vars.len + 1, INT32_MAX);
		return NULL;
	}
	v = tsi_arena_alloc(&core->arena, sizeof(*v));
	if (!v)
		goto oom;
	v->id = (uint32_t)core->vars.len;
	v->debug_id = tsi_debug_current(graph);
	v->name = name ? tsi_debug_qualify(graph, v->debug_id, name)
	               : tsi_arena_printf(&core->arena, "%s%u", is_constant ? "const" : "var", v->id);
	v->type = type;
	v->rank = rank;
	for (size_t d = 0; d < rank; d++)
		v->shape[d] = shape[d];
	v->numel = numel;
	v->is_constant = is_constant;
	if (!v->name || tsi_var_tiles_init(v))
		goto oom_tile;
	if (tsi_vec_push(&core->vars, v))
		goto oom_tile;
	return tsi_tensor_of_var(graph, v);
oom_tile:
	tsi_var_tiles_free(v);
oom:
	tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory adding variable '%s'",
	               name ? name : "?");
	return NULL;
}

TSI_API tsi_tensor *tsi_graph_add_variable(tsi_graph *graph, tsi_type type, size_t rank,
                                           const size_t *shape, const char *name)
{
	return add_var(graph, type, rank, shape, name, false);
}

/* Adds a constant whose payload is left zeroed for the caller to fill. */
static tsi_var *add_constant_raw(tsi_graph *graph, tsi_type type, size_t rank,
                                 const size_t *shape, const char *name)
{
	tsi_tensor *t = add_var(graph, type, rank, shape, name, true);
	tsi_var *v;

	if (!t)
		return NULL;
	v = tsi_graph_var(graph, (uint32_t)t->var);
	v->init = calloc(v->numel ? v->numel : 1, tsi_type_size(type));
	if (!v->init) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory for constant '%s'", v->name);
		return NULL;
	}
	return v;
}

/* add_constant_raw for a constant the caller fills from `values`, which
 * must be given. */
static tsi_var *add_constant_from(tsi_graph *graph, tsi_type type, size_t rank,
                                  const size_t *shape, const void *values, const char *name)
{
	if (graph && !values) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "constant '%s' has no values",
		               name ? name : "?");
		return NULL;
	}
	return add_constant_raw(graph, type, rank, shape, name);
}

TSI_API tsi_tensor *tsi_graph_add_constant(tsi_graph *graph, tsi_type type, size_t rank,
                                           const size_t *shape, const void *values,
                                           const char *name)
{
	tsi_var *v = add_constant_from(graph, type, rank, shape, values, name);

	if (!v)
		return NULL;
	memcpy(v->init, values, v->numel * tsi_type_size(type));
	return tsi_tensor_of_var(graph, v);
}

TSI_API tsi_tensor *tsi_graph_add_constant_float(tsi_graph *graph, tsi_type type, size_t rank,
                                                 const size_t *shape, const float *values,
                                                 const char *name)
{
	tsi_var *v = add_constant_from(graph, type, rank, shape, values, name);

	if (!v)
		return NULL;
	for (size_t i = 0; i < v->numel; i++)
		tsi_type_store(type, v->init, i, values[i]);
	return tsi_tensor_of_var(graph, v);
}

TSI_API tsi_tensor *tsi_graph_add_constant_fill(tsi_graph *graph, tsi_type type, size_t rank,
                                                const size_t *shape, double value,
                                                const char *name)
{
	tsi_var *v = add_constant_raw(graph, type, rank, shape, name);

	if (!v)
		return NULL;
	for (size_t i = 0; i < v->numel; i++)
		tsi_type_store(type, v->init, i, value);
	return tsi_tensor_of_var(graph, v);
}

/* --- Tile mapping ---------------------------------------------------------- */

/* Checks that `graph` may act on `tensor`: both exist and share a core. */
static bool same_core(tsi_graph *graph, const tsi_tensor *tensor, const char *what)
{
	if (!graph || !tensor)
		return false;
	if (tensor->graph->core != graph->core) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s: tensor %s belongs to another graph", what, tsi_tensor_describe(tensor));
		return false;
	}
	return true;
}

TSI_API int tsi_graph_set_tile_mapping(tsi_graph *graph, const tsi_tensor *tensor, unsigned tile)
{
	if (!graph)
		return TSI_ERR_INVALID_ARGUMENT;
	if (!tensor)
		return TSI_ERR_INVALID_GRAPH;
	if (!same_core(graph, tensor, "tsi_graph_set_tile_mapping"))
		return TSI_ERR_INVALID_ARGUMENT;
	if (tile >= graph->target.num_tiles)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "cannot map %s to tile %u: the graph has %u tiles (0..%u)",
		                      tsi_tensor_describe(tensor), tile, graph->target.num_tiles,
		                      graph->target.num_tiles - 1);
	uint32_t abs_tile = graph->tile_lo + tile;
	for (size_t r = 0; r < tensor->n_regions; r++) {
		const tsi_region *reg = &tensor->regions[r];
		if (tsi_var_set_tiles(tsi_graph_var(graph, reg->var), reg->begin, reg->len, abs_tile))
			return tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory mapping %s",
			                      tsi_tensor_describe(tensor));
	}
	return TSI_OK;
}

/*
 * Spreads the tensor's elements over the graph's tiles in order, each tile
 * taking ceil(numel / tiles) elements rounded up to a multiple of `grain`,
 * as poputil::mapTensorLinearly does.
 */
TSI_API int tsi_graph_map_linearly(tsi_graph *graph, const tsi_tensor *tensor, size_t grain)
{
	size_t per_tile, pos = 0;
	unsigned tiles;

	if (!graph)
		return TSI_ERR_INVALID_ARGUMENT;
	if (!tensor)
		return TSI_ERR_INVALID_GRAPH;
	if (!same_core(graph, tensor, "tsi_graph_map_linearly"))
		return TSI_ERR_INVALID_ARGUMENT;
	if (grain == 0)
		grain = 1;
	tiles = graph->target.num_tiles;
	per_tile = (tensor->numel + tiles - 1) / tiles;
	per_tile = (per_tile + grain - 1) / grain * grain;
	if (per_tile == 0)
		per_tile = grain;
	/* Element pos goes to tile pos / per_tile: each region in pieces that
	 * stay on one tile. */
	for (size_t r = 0; r < tensor->n_regions; r++) {
		const tsi_region *reg = &tensor->regions[r];
		tsi_var *v = tsi_graph_var(graph, reg->var);
		for (size_t i = 0, n; i < reg->len; i += n, pos += n) {
			n = per_tile - pos % per_tile;
			if (n > reg->len - i)
				n = reg->len - i;
			if (tsi_var_set_tiles(v, reg->begin + i, n,
			                      graph->tile_lo + (uint32_t)(pos / per_tile)))
				return tsi_graph_fail(graph, TSI_ERR_NO_MEMORY,
				                      "out of host memory mapping %s",
				                      tsi_tensor_describe(tensor));
		}
	}
	return TSI_OK;
}

/* Translates a top-level tile number into `graph`'s numbering. */
static unsigned local_tile(const tsi_graph *graph, uint32_t abs_tile)
{
	if (abs_tile == TSI_NO_TILE || abs_tile < graph->tile_lo ||
	    abs_tile - graph->tile_lo >= graph->target.num_tiles)
		return TSI_NO_TILE;
	return abs_tile - graph->tile_lo;
}

TSI_API int tsi_graph_list_tile_mapping(tsi_mapping_interval **out, size_t *count,
                                       const tsi_graph *graph, const tsi_tensor *tensor)
{
	tsi_mapping_interval *iv = NULL;
	size_t n = 0, cap = 0, pos = 0;

	if (!out || !count)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_graph_list_tile_mapping: out is NULL");
	*out = NULL;
	*count = 0;
	if (!graph || !tensor)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_graph_list_tile_mapping: no tensor");
	for (size_t r = 0; r < tensor->n_regions; r++) {
		const tsi_region *reg = &tensor->regions[r];
		const tsi_var *v = tsi_graph_var(graph, reg->var);
		for (size_t i = reg->begin, stop, end = reg->begin + reg->len; i < end;
		     pos += stop - i, i = stop) {
			unsigned tile = local_tile(graph, tsi_var_tile_at(v, i, end, &stop));
			if (n && iv[n - 1].tile == tile && iv[n - 1].end == pos) {
				iv[n - 1].end += stop - i;
				continue;
			}
			if (n == cap) {
				size_t ncap = cap ? cap * 2 : 16;
				tsi_mapping_interval *niv = realloc(iv, ncap * sizeof(*niv));
				if (!niv) {
					free(iv);
					return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory");
				}
				iv = niv;
				cap = ncap;
			}
			iv[n].tile = tile;
			iv[n].begin = pos;
			iv[n].end = pos + (stop - i);
			n++;
		}
	}
	*out = iv;
	*count = n;
	return TSI_OK;
}

TSI_API unsigned tsi_graph_get_tile_of(const tsi_graph *graph, const tsi_tensor *tensor,
                                       size_t index)
{
	if (!graph || !tensor || index >= tensor->numel)
		return TSI_NO_TILE;
	for (size_t r = 0; r < tensor->n_regions; r++) {
		const tsi_region *reg = &tensor->regions[r];
		if (index < reg->len) {
			const tsi_var *v = tsi_graph_var(graph, reg->var);
			size_t stop;
			return local_tile(graph, tsi_var_tile_at(v, reg->begin + index, v->numel, &stop));
		}
		index -= reg->len;
	}
	return TSI_NO_TILE;
}

TSI_API bool tsi_graph_is_mapped(const tsi_graph *graph, const tsi_tensor *tensor)
{
	if (!graph || !tensor)
		return false;
	for (size_t r = 0; r < tensor->n_regions; r++) {
		const tsi_region *reg = &tensor->regions[r];
		const tsi_var *v = tsi_graph_var(graph, reg->var);
		for (size_t i = reg->begin, stop, end = reg->begin + reg->len; i < end; i = stop)
			if (tsi_var_tile_at(v, i, end, &stop) == TSI_NO_TILE)
				return false;
	}
	return true;
}

/* --- Streams, remote buffers, host handles ---------------------------------- */

tsi_stream *tsi_graph_find_stream(const tsi_graph *graph, const char *name)
{
	const tsi_vec *v = &graph->core->streams;

	for (size_t i = 0; name && i < v->len; i++)
		if (strcmp(((tsi_stream *)v->items[i])->name, name) == 0)
			return v->items[i];
	return NULL;
}

tsi_remote_buffer *tsi_graph_find_remote_buffer(const tsi_graph *graph, const char *name)
{
	const tsi_vec *v = &graph->core->remote_buffers;

	for (size_t i = 0; name && i < v->len; i++)
		if (strcmp(((tsi_remote_buffer *)v->items[i])->name, name) == 0)
			return v->items[i];
	return NULL;
}

tsi_host_handle *tsi_graph_find_host_handle(const tsi_graph *graph, const char *name, bool is_write)
{
	const tsi_vec *v = &graph->core->host_handles;

	for (size_t i = 0; name && i < v->len; i++) {
		tsi_host_handle *h = v->items[i];
		if (h->is_write == is_write && strcmp(h->name, name) == 0)
			return h;
	}
	return NULL;
}

/* Common checks for a new stream or remote buffer name. */
static bool check_new_name(tsi_graph *graph, const char *kind, const char *name, tsi_type type,
                           size_t numel)
{
	if (!name || !*name) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "a %s needs a name", kind);
		return false;
	}
	if ((unsigned)type >= TSI_TYPE_COUNT || numel == 0) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s' needs a valid type and at least one element", kind, name);
		return false;
	}
	if (tsi_graph_find_stream(graph, name) || tsi_graph_find_remote_buffer(graph, name)) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "a stream or remote buffer named '%s' already exists", name);
		return false;
	}
	return true;
}

/* Creates a stream record in either direction. */
static tsi_stream *add_stream(tsi_graph *graph, const char *name, tsi_type type, size_t numel,
                              bool to_device, tsi_replication_mode mode)
{
	tsi_stream *s;

	if (!graph || !check_new_name(graph, "stream", name, type, numel))
		return NULL;
	s = tsi_arena_alloc(&graph->core->arena, sizeof(*s));
	if (!s || !(s->name = tsi_arena_strdup(&graph->core->arena, name)) ||
	    tsi_vec_push(&graph->core->streams, s)) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory adding stream '%s'", name);
		return NULL;
	}
	s->id = (uint32_t)graph->core->streams.len - 1;
	s->type = type;
	s->numel = numel;
	s->to_device = to_device;
	s->mode = mode;
	return s;
}

TSI_API tsi_stream *tsi_graph_add_host_to_device_fifo(tsi_graph *graph, const char *name,
                                                      tsi_type type, size_t numel,
                                                      tsi_replication_mode mode)
{
	if (graph && (unsigned)mode > TSI_REPLICATED_STREAM_PER_REPLICA) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "stream '%s': unknown replication mode %d",
		               name ? name : "?", (int)mode);
		return NULL;
	}
	return add_stream(graph, name, type, numel, true, mode);
}

TSI_API tsi_stream *tsi_graph_add_device_to_host_fifo(tsi_graph *graph, const char *name,
                                                      tsi_type type, size_t numel)
{
	return add_stream(graph, name, type, numel, false, TSI_REPLICATED_STREAM_PER_REPLICA);
}

TSI_API tsi_remote_buffer *tsi_graph_add_remote_buffer(tsi_graph *graph, const char *name,
                                                       tsi_type type, size_t numel,
                                                       size_t repeats)
{
	tsi_remote_buffer *rb;

	if (!graph || !check_new_name(graph, "remote buffer", name, type, numel))
		return NULL;
	if (repeats == 0) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "remote buffer '%s' needs at least one row",
		               name);
		return NULL;
	}
	rb = tsi_arena_alloc(&graph->core->arena, sizeof(*rb));
	if (!rb || !(rb->name = tsi_arena_strdup(&graph->core->arena, name)) ||
	    tsi_vec_push(&graph->core->remote_buffers, rb)) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory adding remote buffer '%s'",
		               name);
		return NULL;
	}
	rb->id = (uint32_t)graph->core->remote_buffers.len - 1;
	rb->type = type;
	rb->numel = numel;
	rb->repeats = repeats;
	return rb;
}

/* Registers a named host handle in one direction. */
static int add_host_handle(tsi_graph *graph, const char *handle, const tsi_tensor *tensor,
                           bool is_write)
{
	tsi_host_handle *h;

	if (!graph)
		return TSI_ERR_INVALID_ARGUMENT;
	if (!tensor)
		return TSI_ERR_INVALID_GRAPH;
	if (!same_core(graph, tensor, "host handle"))
		return TSI_ERR_INVALID_ARGUMENT;
	if (!handle || !*handle)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "a host %s handle needs a name",
		                      is_write ? "write" : "read");
	if (tsi_graph_find_host_handle(graph, handle, is_write))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "host %s handle '%s' already exists",
		                      is_write ? "write" : "read", handle);
	h = tsi_arena_alloc(&graph->core->arena, sizeof(*h));
	if (!h || !(h->name = tsi_arena_strdup(&graph->core->arena, handle)) ||
	    tsi_vec_push(&graph->core->host_handles, h))
		return tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory");
	h->tensor = tsi_tensor_keep(tensor); /* NULL: out of memory, recorded */
	h->is_write = is_write;
	return TSI_OK;
}

TSI_API int tsi_graph_create_host_write(tsi_graph *graph, const char *handle,
                                        const tsi_tensor *tensor)
{
	return add_host_handle(graph, handle, tensor, true);
}

TSI_API int tsi_graph_create_host_read(tsi_graph *graph, const char *handle,
                                       const tsi_tensor *tensor)
{
	return add_host_handle(graph, handle, tensor, false);
}
