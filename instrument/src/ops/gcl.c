/*
 * Collectives over replicas (tilescope/gcl.h). Building one checks the
 * arguments, creates the output tensor mapped where the data lives, and
 * appends a TSI_PROG_COLLECTIVE step; runtime/engine-collectives.c moves
 * the data between replicas at run time, compiler/lower.c accounts the
 * traffic.
 */
#include "ops-private.h"
#include "tilescope/gcl.h"

#include <stdlib.h>
#include <string.h>

TSI_API unsigned tsi_comm_group_fill_members(unsigned *members, tsi_comm_group group,
                                             unsigned replication, unsigned replica)
{
	unsigned k;

	if (replication == 0 || replica >= replication)
		return 0;
	if (group.type == TSI_COMM_ALL) {
		for (unsigned i = 0; i < replication; i++)
			members[i] = i;
		return replication;
	}
	k = group.size;
	if (k == 0 || replication % k != 0)
		return 0;
	if (group.type == TSI_COMM_CONSECUTIVE) {
		unsigned first = replica / k * k;
		for (unsigned i = 0; i < k; i++)
			members[i] = first + i;
		return k;
	}
	if (group.type == TSI_COMM_ORTHOGONAL) {
		unsigned m = replication / k;
		for (unsigned i = 0; i < k; i++)
			members[i] = replica % m + i * m;
		return k;
	}
	return 0;
}

/* Resolves and checks the group; returns its size or 0 (error recorded). */
static unsigned group_size(tsi_graph *graph, tsi_comm_group group, const char *what)
{
	unsigned r = graph->core->replication;

	if (group.type == TSI_COMM_ALL)
		return r;
	if ((group.type != TSI_COMM_CONSECUTIVE && group.type != TSI_COMM_ORTHOGONAL) ||
	    group.size == 0 || r % group.size != 0) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s: a communication group of type %d and size %u does not divide the "
		               "%u replicas",
		               what, (int)group.type, group.size, r);
		return 0;
	}
	return group.size;
}

/* Common checks; returns the group size or 0. */
static unsigned check_common(tsi_graph *graph, const tsi_tensor *data, tsi_collective_op op,
                             tsi_comm_group group, const char *what)
{
	if (!graph || !data)
		return 0;
	if (data->graph->core != graph->core) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s: %s belongs to another graph", what,
		               tsi_tensor_describe(data));
		return 0;
	}
	if ((unsigned)op >= TSI_COLLECTIVE_OP_COUNT) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s: unknown collective operator %d", what,
		               (int)op);
		return 0;
	}
	if (!tsi_graph_is_mapped(graph, data)) {
		tsi_graph_fail(graph, TSI_ERR_UNMAPPED_TENSOR,
		               "%s: %s must be mapped to tiles before a collective can place its result",
		               what, tsi_tensor_describe(data));
		return 0;
	}
	return group_size(graph, group, what);
}

/* The tile (top-level numbering) of every element of `t`, in one walk of
 * its regions; NULL (error recorded) when out of host memory. The caller
 * frees it. */
static uint32_t *element_tiles(tsi_graph *graph, const tsi_tensor *t)
{
	uint32_t *tiles = malloc((t->numel ? t->numel : 1) * sizeof(*tiles));
	size_t pos = 0;

	if (!tiles) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory mapping a collective");
		return NULL;
	}
	for (size_t r = 0; r < t->n_regions; r++) {
		const tsi_region *reg = &t->regions[r];
		const tsi_var *v = tsi_graph_var(graph, reg->var);
		for (size_t i = reg->begin, stop, end = reg->begin + reg->len; i < end; i = stop) {
			uint32_t tile = tsi_var_tile_at(v, i, end, &stop);
			for (size_t k = i; k < stop; k++)
				tiles[pos++] = tile;
		}
	}
	return tiles;
}

/* Maps the new variable `out` like `t`, repeated: out[i] goes where
 * t[i % numel(t)] lives (once for allReduce and allToAll, k times for
 * allGather). */
static int map_like(tsi_graph *graph, const tsi_tensor *out, const tsi_tensor *t)
{
	tsi_var *ov = tsi_graph_var(graph, (uint32_t)out->var);
	uint32_t *tiles = element_tiles(graph, t);
	uint32_t *map = malloc((ov->numel ? ov->numel : 1) * sizeof(*map));
	int rc = TSI_OK;

	if (!tiles || !map) {
		free(tiles);
		free(map);
		return tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory mapping a collective");
	}
	for (size_t i = 0; i < ov->numel; i++)
		map[i] = tiles[i % t->numel];
	if (tsi_var_set_tiles_from(ov, map))
		rc = tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory mapping a collective");
	free(tiles);
	free(map);
	return rc;
}

/* A collective description in the graph's arena. */
static tsi_collective *new_collective(tsi_graph *graph, tsi_collective_kind kind,
                                      tsi_collective_op op, tsi_comm_group group, unsigned k)
{
	tsi_collective *c = tsi_arena_alloc(&graph->core->arena, sizeof(*c));

	if (!c) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory building a collective");
		return NULL;
	}
	c->kind = kind;
	c->op = (int)op;
	c->group_type = (int)group.type;
	c->group_size = k;
	return c;
}

/* Names the step and appends it; returns TSI_OK or a negative code. */
static int append(tsi_graph *graph, tsi_program *seq, const tsi_tensor *src,
                  const tsi_tensor *dst, const tsi_collective *c, const char *name)
{
	tsi_program *p = tsi_prog_collective(graph, src, dst, c);

	if (!p)
		return tsi_graph_error_code(graph) ? tsi_graph_error_code(graph) : TSI_ERR_INVALID_GRAPH;
	tsi_program_set_name(p, name);
	return tsi_sequence_add(seq, p);
}

static const char *out_name(tsi_graph *graph, const char *debug_name, const char *dflt)
{
	return tsi_arena_printf(&graph->core->arena, "%s/out", debug_name ? debug_name : dflt);
}

/* The allReduce every public form builds, inside the caller's debug
 * context: data reduced across the group into `destination`. */
static int all_reduce_into(tsi_graph *graph, const tsi_tensor *data,
                           const tsi_tensor *destination, tsi_collective_op op,
                           tsi_program *seq, tsi_comm_group group, const char *name)
{
	unsigned k = check_common(graph, data, op, group, name);
	tsi_collective *c;

	if (!k || !destination || !seq)
		return TSI_ERR_INVALID_GRAPH;
	if (destination->type != data->type || destination->numel != data->numel)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s: destination %s (%zu x %s) does not match data %s (%zu x %s)",
		                      name, tsi_tensor_describe(destination), destination->numel,
		                      tsi_type_name(destination->type), tsi_tensor_describe(data),
		                      data->numel, tsi_type_name(data->type));
	c = new_collective(graph, TSI_COLL_ALL_REDUCE, op, group, k);
	return c ? append(graph, seq, data, destination, c, name) : TSI_ERR_NO_MEMORY;
}

TSI_API int tsi_gcl_all_reduce_to_destination(tsi_graph *graph, const tsi_tensor *data,
                                              const tsi_tensor *destination,
                                              tsi_collective_op op, tsi_program *seq,
                                              tsi_comm_group group, const char *debug_name)
{
	const char *name = debug_name ? debug_name : "allReduce";
	TSI_OPS_DEBUG(graph, name, "gcl", "gcl::allReduceToDestination");

	return all_reduce_into(graph, data, destination, op, seq, group, name);
}

TSI_API tsi_tensor *tsi_gcl_all_reduce(tsi_graph *graph, const tsi_tensor *data,
                                       tsi_collective_op op, tsi_program *seq,
                                       tsi_comm_group group, const char *debug_name)
{
	const char *name = debug_name ? debug_name : "allReduce";
	TSI_OPS_DEBUG(graph, name, "gcl", "gcl::allReduce");
	tsi_tensor *out;

	if (!check_common(graph, data, op, group, name) || !seq)
		return NULL;
	out = tsi_graph_add_variable(graph, data->type, data->rank, data->shape,
	                             out_name(graph, debug_name, "allReduce"));
	if (!out)
		return NULL;
	if (map_like(graph, out, data))
		return NULL;
	return all_reduce_into(graph, data, out, op, seq, group, name) ? NULL : out;
}

TSI_API int tsi_gcl_all_reduce_in_place(tsi_graph *graph, const tsi_tensor *data,
                                        tsi_collective_op op, tsi_program *seq,
                                        tsi_comm_group group, const char *debug_name)
{
	const char *name = debug_name ? debug_name : "allReduceInPlace";
	TSI_OPS_DEBUG(graph, name, "gcl", "gcl::allReduceInPlace");

	return all_reduce_into(graph, data, data, op, seq, group, name);
}

/*
 * reduceScatter: the input's positions are grouped by the IPU that holds
 * them (in order); each IPU's part gives ceil(n_i / k) output elements,
 * placed on the tiles of that part's first elements.
 */
TSI_API tsi_tensor *tsi_gcl_reduce_scatter(tsi_graph *graph, const tsi_tensor *data,
                                           tsi_collective_op op, tsi_program *seq,
                                           tsi_comm_group group, const char *debug_name)
{
	const char *name = debug_name ? debug_name : "reduceScatter";
	TSI_OPS_DEBUG(graph, name, "gcl", "gcl::reduceScatter");
	unsigned k = check_common(graph, data, op, group, name);
	tsi_arena *arena;
	unsigned ipus, tpi;

	if (!k || !seq)
		return NULL;
	if (data->rank != 1) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s: reduceScatter takes a rank-1 tensor, not %s of rank %zu", name,
		               tsi_tensor_describe(data), (size_t)data->rank);
		return NULL;
	}
	arena = &graph->core->arena;
	tpi = graph->core->target.tiles_per_ipu;
	ipus = graph->core->target.num_ipus;
	tsi_collective *c = new_collective(graph, TSI_COLL_REDUCE_SCATTER, op, group, k);
	size_t *pos = tsi_arena_alloc(arena, (data->numel ? data->numel : 1) * sizeof(*pos));
	size_t *seg_start = tsi_arena_alloc(arena, ipus * sizeof(size_t));
	size_t *seg_len = tsi_arena_alloc(arena, ipus * sizeof(size_t));
	size_t *out_start = tsi_arena_alloc(arena, ipus * sizeof(size_t));
	size_t *out_len = tsi_arena_alloc(arena, ipus * sizeof(size_t));
	if (!c || !pos || !seg_start || !seg_len || !out_start || !out_len) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory building %s", name);
		return NULL;
	}
	uint32_t *tiles = element_tiles(graph, data);
	if (!tiles)
		return NULL;
	/* Count, then place, the positions of each IPU's elements. */
	for (size_t i = 0; i < data->numel; i++)
		seg_len[tiles[i] / tpi]++;
	size_t at = 0, out_total = 0;
	for (unsigned s = 0; s < ipus; s++) {
		seg_start[s] = at;
		at += seg_len[s];
		out_start[s] = out_total;
		out_len[s] = (seg_len[s] + k - 1) / k;
		out_total += out_len[s];
		seg_len[s] = 0; /* refilled below */
	}
	for (size_t i = 0; i < data->numel; i++) {
		unsigned s = tiles[i] / tpi;
		pos[seg_start[s] + seg_len[s]++] = i;
	}
	c->n_segments = ipus;
	c->seg_pos = pos;
	c->seg_start = seg_start;
	c->seg_len = seg_len;
	c->out_start = out_start;
	c->out_len = out_len;

	size_t shape[1] = {out_total};
	tsi_tensor *out = tsi_graph_add_variable(graph, data->type, 1, shape,
	                                         out_name(graph, debug_name, "reduceScatter"));
	if (!out) {
		free(tiles);
		return NULL;
	}
	/* Output element q of IPU s sits with that IPU's q-th input element. */
	tsi_var *ov = tsi_graph_var(graph, (uint32_t)out->var);
	uint32_t *map = malloc((ov->numel ? ov->numel : 1) * sizeof(*map));
	if (!map) {
		free(tiles);
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory mapping a collective");
		return NULL;
	}
	for (size_t i = 0; i < ov->numel; i++)
		map[i] = TSI_NO_TILE;
	for (unsigned s = 0; s < ipus; s++)
		for (size_t q = 0; q < out_len[s]; q++)
			map[out_start[s] + q] = tiles[pos[seg_start[s] + q]];
	free(tiles);
	int rc = tsi_var_set_tiles_from(ov, map);
	free(map);
	if (rc) {
		tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory mapping a collective");
		return NULL;
	}
	return append(graph, seq, data, out, c, name) ? NULL : out;
}

TSI_API tsi_tensor *tsi_gcl_all_gather(tsi_graph *graph, const tsi_tensor *data,
                                       tsi_program *seq, tsi_comm_group group,
                                       const char *debug_name)
{
	const char *name = debug_name ? debug_name : "allGather";
	TSI_OPS_DEBUG(graph, name, "gcl", "gcl::allGather");
	unsigned k = check_common(graph, data, TSI_COLLECTIVE_LOCAL, group, name);
	size_t shape[TSI_MAX_RANK];

	if (!k || !seq)
		return NULL;
	if (data->rank + 1 > TSI_MAX_RANK) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s: %s has too many dimensions", name,
		               tsi_tensor_describe(data));
		return NULL;
	}
	shape[0] = k;
	memcpy(shape + 1, data->shape, data->rank * sizeof(size_t));
	tsi_tensor *out = tsi_graph_add_variable(graph, data->type, data->rank + 1, shape,
	                                         out_name(graph, debug_name, "allGather"));
	if (!out)
		return NULL;
	if (map_like(graph, out, data))
		return NULL;
	tsi_collective *c = new_collective(graph, TSI_COLL_ALL_GATHER, TSI_COLLECTIVE_LOCAL, group, k);
	return c && !append(graph, seq, data, out, c, name) ? out : NULL;
}

TSI_API tsi_tensor *tsi_gcl_all_to_all(tsi_graph *graph, const tsi_tensor *data,
                                       tsi_program *seq, tsi_comm_group group,
                                       const char *debug_name)
{
	const char *name = debug_name ? debug_name : "allToAll";
	TSI_OPS_DEBUG(graph, name, "gcl", "gcl::allToAll");
	unsigned k = check_common(graph, data, TSI_COLLECTIVE_LOCAL, group, name);

	if (!k || !seq)
		return NULL;
	if (data->rank == 0 || data->shape[0] != k) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s: the first dimension of %s must be the group size %u", name,
		               tsi_tensor_describe(data), k);
		return NULL;
	}
	tsi_tensor *out = tsi_graph_add_variable(graph, data->type, data->rank, data->shape,
	                                         out_name(graph, debug_name, "allToAll"));
	if (!out)
		return NULL;
	if (map_like(graph, out, data))
		return NULL;
	tsi_collective *c = new_collective(graph, TSI_COLL_ALL_TO_ALL, TSI_COLLECTIVE_LOCAL, group, k);
	return c && !append(graph, seq, data, out, c, name) ? out : NULL;
}
