/*
 * Codelets (vertex types), compute sets, vertices and their field
 * connections. Checks that need the whole program (unknown types, unmapped
 * or unconnected vertices, size mismatches) wait for compiler/graph-checks.c, as in
 * Poplar; what is wrong on its face (an unknown field name) fails here.
 */
#include "../ipu-private.h"

#include <tilescope/hashmap.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Looks a codelet up by name; NULL when absent. */
TSI_API const tsi_codelet *tsi_graph_lookup_codelet(const tsi_graph *graph, const char *name)
{
	uintptr_t c;

	if (!graph || !name || !tsb_hashmap_lookup_str(graph->core->codelet_by_name, name, &c))
		return NULL;
	return (const tsi_codelet *)c;
}

/* Puts `c` into the map by name (its name is not there yet). Returns
 * TSI_OK or TSI_ERR_NO_MEMORY. */
static int hash_codelet(tsi_graph_core *core, const tsi_codelet *c)
{
	if (!core->codelet_by_name &&
	    !(core->codelet_by_name = tsb_hashmap_new(TSB_HASHMAP_STRING_KEYS)))
		return TSI_ERR_NO_MEMORY;
	if (tsb_hashmap_put_str(core->codelet_by_name, c->name, (uintptr_t)c))
		return TSI_ERR_NO_MEMORY;
	return TSI_OK;
}

/* True when two codelet tables describe the same vertex type. */
static bool same_codelet(const tsi_codelet *a, const tsi_codelet *b)
{
	if (a->n_fields != b->n_fields || a->compute != b->compute)
		return false;
	for (size_t i = 0; i < a->n_fields; i++)
		if (strcmp(a->fields[i].name, b->fields[i].name) != 0 ||
		    a->fields[i].dir != b->fields[i].dir || a->fields[i].shape != b->fields[i].shape ||
		    a->fields[i].type != b->fields[i].type)
			return false;
	return true;
}

TSI_API int tsi_graph_add_codelet(tsi_graph *graph, const tsi_codelet *codelet)
{
	const tsi_codelet *old;
	tsi_codelet *copy;

	if (!graph || !codelet)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_graph_add_codelet: missing argument");
	if (!codelet->name || !*codelet->name || !codelet->compute ||
	    (codelet->n_fields && !codelet->fields))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "codelet '%s' needs a name, a compute function and its fields",
		                      codelet->name ? codelet->name : "(null)");
	for (size_t i = 0; i < codelet->n_fields; i++) {
		const tsi_field_def *f = &codelet->fields[i];
		if (!f->name || (unsigned)f->type >= TSI_TYPE_COUNT ||
		    (unsigned)f->dir > TSI_FIELD_INOUT || (unsigned)f->shape > TSI_FIELD_VECTOR_LIST)
			return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
			                      "codelet '%s': field %zu is malformed", codelet->name, i);
		for (size_t j = 0; j < i; j++)
			if (strcmp(codelet->fields[j].name, f->name) == 0)
				return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
				                      "codelet '%s' declares field '%s' twice", codelet->name,
				                      f->name);
	}
	old = tsi_graph_lookup_codelet(graph, codelet->name);
	if (old) {
		if (same_codelet(old, codelet))
			return TSI_OK;
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "a different codelet named '%s' was already added", codelet->name);
	}
	copy = tsi_arena_alloc(&graph->core->arena, sizeof(*copy));
	if (!copy)
		return tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory");
	*copy = *codelet;
	if (hash_codelet(graph->core, copy) || tsi_vec_push(&graph->core->codelets, copy))
		return tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory");
	return TSI_OK;
}

TSI_API int tsi_graph_add_codelets(tsi_graph *graph, const tsi_codelet *codelets, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = tsi_graph_add_codelet(graph, &codelets[i]);
		if (rc)
			return rc;
	}
	return TSI_OK;
}

TSI_API tsi_compute_set *tsi_graph_add_compute_set(tsi_graph *graph, const char *name)
{
	tsi_compute_set *cs;

	if (!graph)
		return NULL;
	cs = tsi_arena_alloc(&graph->core->arena, sizeof(*cs));
	if (!cs)
		goto oom;
	cs->id = (uint32_t)graph->core->compute_sets.len;
	cs->debug_id = tsi_debug_current(graph);
	cs->name = name ? tsi_debug_qualify(graph, cs->debug_id, name)
	                : tsi_arena_printf(&graph->core->arena, "cs%u", cs->id);
	if (!cs->name || tsi_vec_push(&graph->core->compute_sets, cs))
		goto oom;
	return cs;
oom:
	tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory adding a compute set");
	return NULL;
}

TSI_API const char *tsi_compute_set_name(const tsi_compute_set *cs)
{
	return cs ? cs->name : NULL;
}

TSI_API size_t tsi_compute_set_num_vertices(const tsi_compute_set *cs)
{
	return cs ? cs->vertices.len : 0;
}

TSI_API tsi_vertex *tsi_graph_add_vertex(tsi_graph *graph, tsi_compute_set *cs,
                                         const char *type_name)
{
	tsi_graph_core *core;
	tsi_vertex *v;

	if (!graph || !cs)
		return NULL;
	core = graph->core;
	if (!type_name || !*type_name) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "tsi_graph_add_vertex: compute set '%s': no vertex type", cs->name);
		return NULL;
	}
	const tsi_codelet *codelet = tsi_graph_lookup_codelet(graph, type_name);
	size_t n_fields = codelet ? codelet->n_fields : 0;

	v = tsi_arena_alloc8(&core->arena, sizeof(*v) + n_fields * sizeof(v->fields[0]));
	if (!v)
		goto oom;
	v->id = (uint32_t)core->vertices.len;
	v->cs = cs;
	v->tile = TSI_NO_TILE;
	v->codelet = codelet;
	/* Share the codelet's own name string when known, saving a copy per
	 * vertex (graphs reach a million vertices). */
	v->type_name = v->codelet ? v->codelet->name : tsi_arena_strdup(&core->arena, type_name);
	if (!v->type_name || tsi_vec_push(&core->vertices, v) || tsi_vec_push(&cs->vertices, v))
		goto oom;
	return v;
oom:
	tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory adding a vertex");
	return NULL;
}

/* Finds field `name` of the vertex's codelet, recording an error if none. */
static int find_field(tsi_graph *graph, const tsi_vertex *v, const char *name)
{
	for (size_t i = 0; i < v->codelet->n_fields; i++)
		if (strcmp(v->codelet->fields[i].name, name) == 0)
			return (int)i;
	tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
	               "vertex %u of compute set '%s': type '%s' has no field '%s'", v->id,
	               v->cs->name, v->type_name, name ? name : "(null)");
	return -1;
}

/* Stores the tensors a field is connected to (replacing an earlier connection). */
static int connect_field(tsi_graph *graph, tsi_vertex *v, const char *field,
                         const tsi_tensor *const *tensors, size_t n, bool as_list)
{
	tsi_field_conn *conn;
	int idx;

	if (!graph || !v)
		return TSI_ERR_INVALID_ARGUMENT;
	for (size_t i = 0; i < n; i++) {
		if (!tensors[i])
			return TSI_ERR_INVALID_GRAPH; /* recorded when the NULL was made */
		if (tensors[i]->graph->core != graph->core)
			return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
			                      "field '%s' of vertex %u: tensor %s belongs to another graph",
			                      field ? field : "?", v->id, tsi_tensor_describe(tensors[i]));
	}
	/* Unknown vertex type: compile reports it, naming the type. */
	if (!v->codelet)
		return TSI_OK;
	idx = find_field(graph, v, field);
	if (idx < 0)
		return TSI_ERR_INVALID_ARGUMENT;
	const tsi_field_def *def = &v->codelet->fields[idx];
	if (as_list && def->shape != TSI_FIELD_VECTOR_LIST)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "field '%s' of vertex %u (type '%s') is not a vector list; "
		                      "use tsi_graph_connect",
		                      field, v->id, v->type_name);
	conn = &v->fields[idx];
	conn->tensors = tsi_arena_alloc8(&graph->core->arena, (n ? n : 1) * sizeof(*conn->tensors));
	if (!conn->tensors)
		return tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory");
	/* What a field holds lives as long as the graph: not a scratch view. */
	for (size_t i = 0; i < n; i++)
		if (!(conn->tensors[i] = tsi_tensor_keep(tensors[i])))
			return TSI_ERR_NO_MEMORY; /* recorded */
	conn->n = n;
	return TSI_OK;
}

TSI_API int tsi_graph_connect(tsi_graph *graph, tsi_vertex *v, const char *field,
                              const tsi_tensor *tensor)
{
	if (!graph || !v)
		return TSI_ERR_INVALID_ARGUMENT;
	if (!tensor)
		return TSI_ERR_INVALID_GRAPH;
	/* A vector list connected to a tensor of rank >= 2 takes one row each. */
	if (v->codelet && tensor->rank >= 2) {
		for (size_t i = 0; i < v->codelet->n_fields; i++) {
			if (strcmp(v->codelet->fields[i].name, field ? field : "") != 0 ||
			    v->codelet->fields[i].shape != TSI_FIELD_VECTOR_LIST)
				continue;
			size_t rows = tensor->shape[0];
			/* connect_field copies the list: a temporary one. */
			const tsi_tensor **list = malloc((rows ? rows : 1) * sizeof(*list));
			int rc;

			if (!list)
				return tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory");
			/* A row of a matrix is already flat: no second view. */
			for (size_t r = 0; r < rows; r++) {
				const tsi_tensor *row = tsi_tensor_index(tensor, r);
				list[r] = row && row->rank != 1 ? tsi_tensor_flatten(row) : row;
			}
			rc = connect_field(graph, v, field, list, rows, true);
			free(list);
			return rc;
		}
	}
	return connect_field(graph, v, field, &tensor, 1, false);
}

TSI_API int tsi_graph_connect_list(tsi_graph *graph, tsi_vertex *v, const char *field,
                                   tsi_tensor *const *tensors, size_t n)
{
	if (n && !tensors)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "tsi_graph_connect_list: no tensors");
	return connect_field(graph, v, field, (const tsi_tensor *const *)tensors, n, true);
}

TSI_API int tsi_graph_set_vertex_tile(tsi_graph *graph, tsi_vertex *v, unsigned tile)
{
	if (!graph || !v)
		return TSI_ERR_INVALID_ARGUMENT;
	if (tile >= graph->target.num_tiles)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "cannot map vertex %u (type '%s') to tile %u: the graph has %u tiles",
		                      v->id, v->type_name, tile, graph->target.num_tiles);
	v->tile = graph->tile_lo + tile;
	return TSI_OK;
}

TSI_API int tsi_graph_set_cycle_estimate(tsi_graph *graph, tsi_vertex *v, uint64_t cycles)
{
	if (!graph || !v)
		return TSI_ERR_INVALID_ARGUMENT;
	v->has_cycle_estimate = true;
	v->cycle_estimate = cycles;
	return TSI_OK;
}

TSI_API const char *tsi_vertex_type_name(const tsi_vertex *v)
{
	return v ? v->type_name : NULL;
}
