/*
 * popnn, in small: the neural-network operations of Graphcore's popnn
 * library on the IPU Model, built from the graph API as a model author
 * would build them.
 *
 * Elementwise non-linearities (ReLU, sigmoid, tanh) run one supervisor
 * vertex per tile on the elements that tile holds; like popnn, the
 * out-of-place form clones the input, copies it and runs the in-place
 * form on the clone. Everything that works on rows of the last dimension
 * (softmax, its gradient, the losses, accuracy) runs one worker vertex per
 * group of rows, each row on the tile holding most of it (the rest is read
 * through exchange), with up to one vertex per worker context per tile.
 * Losses and accuracy reduce in two compute sets: per-vertex partials on
 * the vertices' tiles, then one final vertex on the tile of the result.
 *
 * This file is the host side: the builders that check their arguments
 * and lay the vertices out over compute sets and programs. The vertices
 * themselves, their estimators and the codelet tables are in
 * popnn-codelets.c (shared through popnn-private.h). Mapping a result
 * like its input, views over a tile's intervals and the error conventions
 * come from the helpers every ops file shares (ops-private.h).
 */
#include "popnn-private.h"

#include <stdlib.h>
#include <string.h>

/* A row-wise vertex gets at least this many elements before a tile's rows
 * are split over more vertices: below it, the fixed cost of another vertex
 * outweighs running in parallel on another worker. */
#define ROW_GRAIN 256

/* --- Host side: helpers ------------------------------------------------------------ */

/* What every public function knows about itself, for messages. */
typedef struct op_ctx {
	tsi_graph *graph;
	const char *api;  /* public function name */
	const char *name; /* debug name, never NULL */
} op_ctx;

/* Records running out of host memory. */
static int oom(const op_ctx *op)
{
	return tsi_ops_oom_in(op->graph, op->api, op->name);
}

/* "<prefix>/<suffix>" in the graph's arena, or NULL. */
static const char *sub_name(const op_ctx *op, const char *suffix)
{
	return tsi_arena_printf(&op->graph->core->arena, "%s/%s", op->name, suffix);
}

/* True when two tensors have the same shape. */
static bool same_shape(const tsi_tensor *a, const tsi_tensor *b)
{
	size_t sa[TSI_MAX_RANK], sb[TSI_MAX_RANK];
	size_t rank = tsi_tensor_fill_shape(sa, a);

	return rank == tsi_tensor_fill_shape(sb, b) && memcmp(sa, sb, rank * sizeof(*sa)) == 0;
}

/*
 * Common argument checks: the graph exists (else the thread-local error),
 * the operands and the sequence are not NULL. A NULL operand left by an
 * earlier failed call returns quietly (the graph already holds that
 * error). `labels` names the n operands for the message.
 */
static int check_present(const op_ctx *op, const void *const *args, const char *const *labels,
                         size_t n)
{
	if (!op->graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", op->api);
	for (size_t i = 0; i < n; i++)
		if (!args[i])
			return tsi_ops_null_arg_echo(op->graph, op->api, op->name, labels[i]);
	return TSI_OK;
}

/* Fails unless `codelet` was registered with tsi_popnn_add_codelets(). */
static int check_codelet(const op_ctx *op, const tsi_codelet *codelet)
{
	if (tsi_ops_require_codelet(op->graph, op->api, op->name, codelet->name,
	                            "tsi_popnn_add_codelets"))
		return TSI_OK;
	return TSI_ERR_UNKNOWN_VERTEX_TYPE;
}

/* The codelet-table column of a data type, or -1. */
static int data_type_index(tsi_type type)
{
	return type == TSI_FLOAT ? DT_FLOAT : type == TSI_HALF ? DT_HALF : -1;
}

/* The codelet-table column of a label type, or -1. */
static int label_type_index(tsi_type type)
{
	return type == TSI_UNSIGNED_INT ? LT_UNSIGNED : type == TSI_INT ? LT_INT : -1;
}

/* A new variable "<name>/out" of t's type and shape, mapped like `t`
 * (elements of t with no tile spread linearly over the graph). */
static tsi_tensor *clone_like(const op_ctx *op, const tsi_tensor *t)
{
	tsi_mapping_interval *iv = NULL;
	const tsi_tensor *flat;
	size_t n_iv = 0;
	tsi_tensor *out = tsi_ops_result_like(op->graph, t, tsi_tensor_type(t), op->name, &iv, &n_iv,
	                                      &flat);

	free(iv);
	return out;
}

/*
 * Adds to `cs` one vertex of `codelet` per tile of `by` (a flat tensor
 * that is fully mapped), with field i connected to the elements of
 * flats[i] on that tile. Used by the elementwise vertices.
 */
static int add_elementwise_vertices(const op_ctx *op, tsi_compute_set *cs,
                                    const tsi_codelet *codelet, const tsi_tensor *by,
                                    const tsi_tensor *const *flats)
{
	tsi_mapping_interval *map = NULL;
	tsi_ops_range *ranges = NULL;
	tsi_ops_viewer viewers[3];
	size_t n_map = 0;
	int rc;

	/* Only what the vertices hold outlives this (tsi_graph_scratch_begin). */
	tsi_graph_scratch_begin(op->graph);
	memset(viewers, 0, sizeof(viewers));
	rc = tsi_graph_list_tile_mapping(&map, &n_map, op->graph, by);
	if (rc)
		goto done;
	ranges = malloc((n_map ? n_map : 1) * sizeof(*ranges));
	if (!ranges) {
		rc = oom(op);
		goto done;
	}
	for (size_t f = 0; f < codelet->n_fields && !rc; f++)
		rc = tsi_ops_viewer_init(&viewers[f], op->graph, flats[f]);
	if (rc)
		goto done;
	qsort(map, n_map, sizeof(*map), tsi_ops_interval_cmp);
	for (size_t lo = 0, hi; lo < n_map; lo = hi) {
		tsi_vertex *v;

		for (hi = lo + 1; hi < n_map && map[hi].tile == map[lo].tile;)
			hi++;
		if (map[lo].tile == TSI_NO_TILE) {
			rc = tsi_graph_fail(op->graph, TSI_ERR_UNMAPPED_TENSOR,
			                    "%s '%s': %s has elements with no tile; map it first",
			                    op->api, op->name, tsi_tensor_describe(by));
			goto done;
		}
		v = tsi_graph_add_vertex(op->graph, cs, codelet->name);
		if (!v) {
			rc = tsi_ops_failed(op->graph);
			goto done;
		}
		for (size_t i = lo; i < hi; i++) {
			ranges[i - lo].begin = map[i].begin;
			ranges[i - lo].len = map[i].end - map[i].begin;
		}
		for (size_t f = 0; f < codelet->n_fields; f++) {
			tsi_tensor *view = tsi_ops_view(&viewers[f], ranges, hi - lo);

			if (!view) {
				rc = tsi_ops_failed(op->graph);
				goto done;
			}
			if ((rc = tsi_graph_connect(op->graph, v, codelet->fields[f].name, view)) != 0)
				goto done;
		}
		if ((rc = tsi_graph_set_vertex_tile(op->graph, v, map[lo].tile)) != 0)
			goto done;
	}
done:
	for (size_t f = 0; f < 3; f++)
		tsi_ops_viewer_free(&viewers[f]);
	free(ranges);
	free(map);
	tsi_graph_scratch_end(op->graph);
	return rc;
}

/* --- Host side: rows and their tiles ------------------------------------------------ */

/* One vertex's share of a row-wise operation: rows order[first .. first+count)
 * of the plan, on `tile`. */
typedef struct row_group {
	unsigned tile;
	size_t first;
	size_t count;
} row_group;

/* Where the rows of a [rows, cols] tensor are processed. */
typedef struct row_plan {
	size_t rows;
	size_t cols;
	size_t *order;      /* row numbers, grouped by tile, ascending within a tile */
	row_group *groups;  /* one per vertex */
	size_t n_groups;
	size_t max_count;   /* the most rows of any group */
} row_plan;

/* A piece of a row on one tile, for the majority count. */
typedef struct row_piece {
	size_t row;
	unsigned tile;
	size_t len;
} row_piece;

/* qsort order of row pieces: by row, then tile. */
static int piece_cmp(const void *pa, const void *pb)
{
	const row_piece *a = pa;
	const row_piece *b = pb;

	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	return a->tile < b->tile ? -1 : a->tile > b->tile;
}

/* A row and the tile that processes it, for grouping rows by tile. */
typedef struct row_owner {
	unsigned tile;
	size_t row;
} row_owner;

/* qsort order of row owners: by tile, then row. */
static int owner_cmp(const void *pa, const void *pb)
{
	const row_owner *a = pa;
	const row_owner *b = pb;

	if (a->tile != b->tile)
		return a->tile < b->tile ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/* Frees what plan_rows allocated. */
static void row_plan_clear(row_plan *p)
{
	free(p->order);
	free(p->groups);
	memset(p, 0, sizeof(*p));
}

/*
 * Decides which tile processes each row of the [rows, cols] tensor `m`:
 * the tile holding most of the row's elements (the lowest such tile on a
 * tie; rows with no mapped element go round-robin over the graph's tiles),
 * then splits each tile's rows into up to num_worker_contexts groups of
 * about equal size, each at least ROW_GRAIN elements, one vertex each.
 */
static int plan_rows(const op_ctx *op, row_plan *p, const tsi_tensor *m, size_t rows,
                     size_t cols)
{
	const tsi_target *target = tsi_graph_get_target(op->graph);
	unsigned workers = tsi_ops_target_workers(target);
	tsi_mapping_interval *map = NULL;
	row_piece *pieces = NULL;
	row_owner *owner = NULL;
	size_t n_map = 0, n_pieces = 0;
	int rc;

	memset(p, 0, sizeof(*p));
	p->rows = rows;
	p->cols = cols;
	rc = tsi_graph_list_tile_mapping(&map, &n_map, op->graph, m);
	if (rc)
		goto done;
	pieces = malloc((n_map + rows + 1) * sizeof(*pieces));
	owner = malloc((rows + 1) * sizeof(*owner));
	p->order = malloc((rows + 1) * sizeof(*p->order));
	p->groups = malloc((rows + 1) * sizeof(*p->groups));
	if (!pieces || !owner || !p->order || !p->groups) {
		rc = oom(op);
		goto done;
	}
	/* Each interval split at row boundaries. */
	for (size_t i = 0; i < n_map; i++) {
		if (map[i].tile == TSI_NO_TILE)
			continue;
		for (size_t b = map[i].begin; b < map[i].end;) {
			size_t row = b / cols;
			size_t e = (row + 1) * cols < map[i].end ? (row + 1) * cols : map[i].end;

			pieces[n_pieces++] = (row_piece){row, map[i].tile, e - b};
			b = e;
		}
	}
	qsort(pieces, n_pieces, sizeof(*pieces), piece_cmp);
	for (size_t r = 0; r < rows; r++)
		owner[r] = (row_owner){(unsigned)(r % target->num_tiles), r};
	for (size_t lo = 0, hi; lo < n_pieces; lo = hi) {
		size_t best_len = 0;

		for (hi = lo; hi < n_pieces && pieces[hi].row == pieces[lo].row;) {
			size_t len = 0;
			size_t t0 = hi;

			while (hi < n_pieces && pieces[hi].row == pieces[lo].row &&
			       pieces[hi].tile == pieces[t0].tile)
				len += pieces[hi++].len;
			if (len > best_len) {
				best_len = len;
				owner[pieces[lo].row].tile = pieces[t0].tile;
			}
		}
	}
	qsort(owner, rows, sizeof(*owner), owner_cmp);
	for (size_t r = 0; r < rows; r++)
		p->order[r] = owner[r].row;
	/* Split each tile's rows over its workers. */
	for (size_t lo = 0, hi; lo < rows; lo = hi) {
		size_t k, n_vertices, by_grain;

		for (hi = lo + 1; hi < rows && owner[hi].tile == owner[lo].tile;)
			hi++;
		k = hi - lo;
		by_grain = (k * cols + ROW_GRAIN - 1) / ROW_GRAIN;
		n_vertices = k < workers ? k : workers;
		if (by_grain < n_vertices)
			n_vertices = by_grain ? by_grain : 1;
		for (size_t g = 0; g < n_vertices; g++) {
			size_t first = lo + k * g / n_vertices;
			size_t last = lo + k * (g + 1) / n_vertices;
			row_group *grp = &p->groups[p->n_groups++];

			grp->tile = owner[lo].tile;
			grp->first = first;
			grp->count = last - first;
			if (grp->count > p->max_count)
				p->max_count = grp->count;
		}
	}
done:
	free(pieces);
	free(owner);
	free(map);
	if (rc)
		row_plan_clear(p);
	return rc;
}

/* Fills rows[0..g->count) with the rows of `m` (rank 2) in group `g`. */
static int group_rows(const op_ctx *op, const row_plan *p, const row_group *g,
                      const tsi_tensor *m, tsi_tensor **rows)
{
	for (size_t i = 0; i < g->count; i++)
		if (!(rows[i] = tsi_tensor_index(m, p->order[g->first + i])))
			return tsi_ops_failed(op->graph);
	return TSI_OK;
}

/* The elements of the rank-1 `v` for the rows of group `g`, one each. */
static tsi_tensor *group_elements(const row_plan *p, const row_group *g, const tsi_tensor *v,
                                  tsi_tensor **scratch)
{
	for (size_t i = 0; i < g->count; i++) {
		size_t r = p->order[g->first + i];

		if (!(scratch[i] = tsi_tensor_slice(v, r, r + 1)))
			return NULL;
	}
	return g->count == 1 ? scratch[0] : tsi_tensor_concat(scratch, g->count, 0);
}

/* --- Host side: non-linearities ---------------------------------------------------- */

static const char *const nl_default_names[NL_COUNT] = {"Relu", "Sigmoid", "Tanh", "SoftMax"};
static const char *const nl_grad_default_names[NL_COUNT] = {"ReluGrad", "SigmoidGrad",
                                                            "TanhGrad", "SoftMaxGrad"};

/*
 * Checks a non-linearity's code and operand; returns the codelet table
 * row entry for it (from `table`) or NULL with the error recorded.
 */
static const tsi_codelet *check_nl(const op_ctx *op, tsi_popnn_nonlinearity_type nl,
                                   const tsi_tensor *t, const char *t_label,
                                   const tsi_codelet (*table)[DT_COUNT])
{
	int dt;

	if ((unsigned)nl >= NL_COUNT) {
		tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': unknown non-linearity %d", op->api, op->name, (int)nl);
		return NULL;
	}
	dt = data_type_index(tsi_tensor_type(t));
	if (dt < 0) {
		tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': %s %s has type %s; non-linearities take float or half",
		               op->api, op->name, t_label, tsi_tensor_describe(t),
		               tsi_type_name(tsi_tensor_type(t)));
		return NULL;
	}
	if (nl == NL_SOFTMAX && tsi_tensor_rank(t) == 0) {
		tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': softmax works over the last dimension but %s %s is a scalar",
		               op->api, op->name, t_label, tsi_tensor_describe(t));
		return NULL;
	}
	if (check_codelet(op, &table[nl][dt]) != 0)
		return NULL;
	return &table[nl][dt];
}

/* The [rows, cols] view of `t` over its last dimension; *rows and *cols
 * receive the sizes (0 rows for an empty tensor). */
static tsi_tensor *as_rows(const tsi_tensor *t, size_t *rows, size_t *cols)
{
	size_t rank = tsi_tensor_rank(t);
	size_t c = tsi_tensor_dim(t, rank - 1);
	size_t numel = tsi_tensor_numel(t);
	size_t shape[2];

	*cols = c;
	*rows = c ? numel / c : 0;
	shape[0] = *rows;
	shape[1] = c;
	return tsi_tensor_reshape(t, 2, shape);
}

/*
 * Adds to `cs` one vertex of the row codelet `codelet` per row group of
 * the plan over the rank-2 tensors ms[0..codelet->n_fields) (each field a
 * row list of the same rows).
 */
static int add_row_vertices(const op_ctx *op, tsi_compute_set *cs, const tsi_codelet *codelet,
                            const row_plan *p, const tsi_tensor *const *ms)
{
	tsi_tensor **rows = malloc((p->max_count + 1) * sizeof(*rows));
	int rc = TSI_OK;

	if (!rows)
		return oom(op);
	tsi_graph_scratch_begin(op->graph); /* the rows' views */
	for (size_t gi = 0; gi < p->n_groups && rc == 0; gi++) {
		const row_group *g = &p->groups[gi];
		tsi_vertex *v = tsi_graph_add_vertex(op->graph, cs, codelet->name);

		if (!v) {
			rc = tsi_ops_failed(op->graph);
			break;
		}
		for (size_t f = 0; f < codelet->n_fields && rc == 0; f++) {
			rc = group_rows(op, p, g, ms[f], rows);
			if (rc == 0)
				rc = tsi_graph_connect_list(op->graph, v, codelet->fields[f].name, rows,
				                            g->count);
		}
		if (rc == 0)
			rc = tsi_graph_set_vertex_tile(op->graph, v, g->tile);
	}
	tsi_graph_scratch_end(op->graph);
	free(rows);
	return rc;
}

/*
 * Builds f(t) in place into the new compute set named op->name: an
 * elementwise vertex per tile, or softmax row vertices.
 */
static int build_nl_in_place(const op_ctx *op, tsi_popnn_nonlinearity_type nl,
                             const tsi_codelet *codelet, const tsi_tensor *t, tsi_program *seq)
{
	tsi_compute_set *cs = tsi_graph_add_compute_set(op->graph, op->name);
	tsi_program *step;
	int rc;

	if (!cs)
		return tsi_ops_failed(op->graph);
	if (nl == NL_SOFTMAX) {
		size_t rows, cols;
		const tsi_tensor *m = as_rows(t, &rows, &cols);
		row_plan plan;

		if (!m)
			return tsi_ops_failed(op->graph);
		if (rows) {
			rc = plan_rows(op, &plan, m, rows, cols);
			if (rc)
				return rc;
			rc = add_row_vertices(op, cs, codelet, &plan, &m);
			row_plan_clear(&plan);
			if (rc)
				return rc;
		}
	} else {
		const tsi_tensor *flat = tsi_tensor_flatten(t);

		if (!flat)
			return tsi_ops_failed(op->graph);
		rc = add_elementwise_vertices(op, cs, codelet, flat, &flat);
		if (rc)
			return rc;
	}
	step = tsi_prog_execute(op->graph, cs);
	if (!step)
		return tsi_ops_failed(op->graph);
	return tsi_sequence_add(seq, step);
}

/*
 * popnn::nonLinearityInPlace: t = f(t). The tensor must be writable and
 * (for the elementwise forms) mapped.
 */
TSI_API int tsi_popnn_nonlinearity_in_place(tsi_graph *graph, tsi_popnn_nonlinearity_type nl,
                                            const tsi_tensor *t, tsi_program *seq,
                                            const char *debug_name)
{
	op_ctx op = {graph, "tsi_popnn_nonlinearity_in_place",
	             debug_name ? debug_name : (unsigned)nl < NL_COUNT ? nl_default_names[nl] : ""};
	TSI_OPS_DEBUG(graph, op.name, "popnn", "popnn::nonLinearityInPlace");
	const void *args[] = {t, seq};
	const char *labels[] = {"tensor t", "seq"};
	const tsi_codelet *codelet;
	int rc = check_present(&op, args, labels, 2);

	if (rc)
		return rc;
	codelet = check_nl(&op, nl, t, "tensor", tsi_popnn_nl_codelets);
	if (!codelet)
		return tsi_ops_failed(graph);
	if (tsi_tensor_is_constant(t))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': tensor %s is a constant and cannot be updated in place",
		                      op.api, op.name, tsi_tensor_describe(t));
	return build_nl_in_place(&op, nl, codelet, t, seq);
}

/*
 * popnn::nonLinearity: as popnn does, clones `t` into "<name>/out" (mapped
 * like t), copies t into it and applies the in-place form to the clone.
 */
TSI_API tsi_tensor *tsi_popnn_nonlinearity(tsi_graph *graph, tsi_popnn_nonlinearity_type nl,
                                           const tsi_tensor *t, tsi_program *seq,
                                           const char *debug_name)
{
	op_ctx op = {graph, "tsi_popnn_nonlinearity",
	             debug_name ? debug_name : (unsigned)nl < NL_COUNT ? nl_default_names[nl] : ""};
	TSI_OPS_DEBUG(graph, op.name, "popnn", "popnn::nonLinearity");
	const void *args[] = {t, seq};
	const char *labels[] = {"tensor t", "seq"};
	const tsi_codelet *codelet;
	tsi_tensor *out;
	tsi_program *copy;

	if (check_present(&op, args, labels, 2) != 0)
		return NULL;
	codelet = check_nl(&op, nl, t, "tensor", tsi_popnn_nl_codelets);
	out = codelet ? clone_like(&op, t) : NULL;
	copy = out ? tsi_prog_copy(graph, t, out) : NULL;
	if (!copy || tsi_sequence_add(seq, copy) != 0)
		return NULL;
	if (build_nl_in_place(&op, nl, codelet, out, seq) != 0)
		return NULL;
	return out;
}

/*
 * popnn::nonLinearityInputGradient: the gradient with respect to the
 * input into "<name>/out", mapped like `out_grad`; one supervisor vertex
 * per tile for the elementwise forms, row vertices for softmax.
 */
TSI_API tsi_tensor *tsi_popnn_nonlinearity_grad(tsi_graph *graph, tsi_popnn_nonlinearity_type nl,
                                                const tsi_tensor *out, const tsi_tensor *out_grad,
                                                tsi_program *seq, const char *debug_name)
{
	op_ctx op = {graph, "tsi_popnn_nonlinearity_grad",
	             debug_name ? debug_name
	             : (unsigned)nl < NL_COUNT ? nl_grad_default_names[nl] : ""};
	TSI_OPS_DEBUG(graph, op.name, "popnn", "popnn::nonLinearityInputGradient");
	const void *args[] = {out, out_grad, seq};
	const char *labels[] = {"out", "out_grad", "seq"};
	const tsi_codelet *codelet;
	tsi_compute_set *cs;
	tsi_tensor *in_grad;
	tsi_program *step;
	char sa[96], sb[96];
	int rc;

	if (check_present(&op, args, labels, 3) != 0)
		return NULL;
	codelet = check_nl(&op, nl, out, "out", tsi_popnn_grad_codelets);
	if (!codelet)
		return NULL;
	if (tsi_tensor_type(out) != tsi_tensor_type(out_grad)) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': out %s is %s but out_grad %s is %s", op.api, op.name,
		               tsi_tensor_describe(out), tsi_type_name(tsi_tensor_type(out)),
		               tsi_tensor_describe(out_grad), tsi_type_name(tsi_tensor_type(out_grad)));
		return NULL;
	}
	if (!same_shape(out, out_grad)) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': out %s has shape %s but out_grad %s has shape %s", op.api,
		               op.name, tsi_tensor_describe(out), tsi_ops_format_shape(sa, sizeof(sa), out),
		               tsi_tensor_describe(out_grad), tsi_ops_format_shape(sb, sizeof(sb), out_grad));
		return NULL;
	}
	in_grad = clone_like(&op, out_grad);
	cs = in_grad ? tsi_graph_add_compute_set(graph, op.name) : NULL;
	if (!cs)
		return NULL;
	if (nl == NL_SOFTMAX) {
		size_t rows, cols;
		const tsi_tensor *ms[3] = {as_rows(out_grad, &rows, &cols), as_rows(out, &rows, &cols),
		                           as_rows(in_grad, &rows, &cols)};
		row_plan plan;

		if (!ms[0] || !ms[1] || !ms[2])
			return NULL;
		if (rows) {
			if (plan_rows(&op, &plan, ms[2], rows, cols) != 0)
				return NULL;
			rc = add_row_vertices(&op, cs, codelet, &plan, ms);
			row_plan_clear(&plan);
			if (rc)
				return NULL;
		}
	} else {
		const tsi_tensor *flats[3] = {tsi_tensor_flatten(out_grad), tsi_tensor_flatten(out),
		                              tsi_tensor_flatten(in_grad)};

		if (!flats[0] || !flats[1] || !flats[2] ||
		    add_elementwise_vertices(&op, cs, codelet, flats[2], flats) != 0)
			return NULL;
	}
	step = tsi_prog_execute(graph, cs);
	if (!step || tsi_sequence_add(seq, step) != 0)
		return NULL;
	return in_grad;
}

/* --- Host side: losses and accuracy ------------------------------------------------- */

/*
 * Checks a [N, C] tensor `m` and its labels [N]: rank, non-empty, label
 * type. `what` names m in messages. Returns the label-type index or a
 * negative code (recorded).
 */
static int check_rows_and_labels(const op_ctx *op, const tsi_tensor *m, const char *what,
                                 const tsi_tensor *labels)
{
	char sa[96], sb[96];
	int lt;

	if (tsi_tensor_rank(m) != 2 || tsi_tensor_numel(m) == 0)
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': %s %s must be a non-empty [N, C] tensor but has shape %s",
		                      op->api, op->name, what, tsi_tensor_describe(m),
		                      tsi_ops_format_shape(sa, sizeof(sa), m));
	lt = label_type_index(tsi_tensor_type(labels));
	if (lt < 0)
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': labels %s have type %s; use unsigned int or int",
		                      op->api, op->name, tsi_tensor_describe(labels),
		                      tsi_type_name(tsi_tensor_type(labels)));
	if (tsi_tensor_rank(labels) != 1 || tsi_tensor_dim(labels, 0) != tsi_tensor_dim(m, 0))
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': labels %s must have shape {%zu} (one per row of %s %s) "
		                      "but have shape %s",
		                      op->api, op->name, tsi_tensor_describe(labels),
		                      tsi_tensor_dim(m, 0), what, tsi_ops_format_shape(sa, sizeof(sa), m),
		                      tsi_ops_format_shape(sb, sizeof(sb), labels));
	return lt;
}

/* Fails unless `t` is a writable single element of `type`; `what` names it. */
static int check_scalar_result(const op_ctx *op, const tsi_tensor *t, tsi_type type,
                               const char *what)
{
	char s[96];

	if (tsi_tensor_type(t) != type || tsi_tensor_numel(t) != 1)
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': %s %s must be a scalar %s but is %s of shape %s", op->api,
		                      op->name, what, tsi_tensor_describe(t), tsi_type_name(type),
		                      tsi_type_name(tsi_tensor_type(t)), tsi_ops_format_shape(s, sizeof(s), t));
	if (tsi_tensor_is_constant(t))
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': %s %s is a constant", op->api, op->name, what,
		                      tsi_tensor_describe(t));
	return TSI_OK;
}

/*
 * The two-stage shape shared by calc_loss and calc_accuracy: compute set
 * `cs1` gets one `row_codelet` vertex per row group of `m` (fields: the
 * row list of ms[0], the group's labels, then for the loss the row list
 * of ms[1]) writing one partial each into "<name>/partials" (a variable on
 * the vertices' tiles); compute set `cs2` gets one `final_codelet` vertex,
 * on the tile of `result`, summing the partials into `result`.
 */
static int build_two_stage(const op_ctx *op, const tsi_codelet *row_codelet,
                           const tsi_codelet *final_codelet, const char *const *cs_names,
                           const tsi_tensor *const *ms, size_t n_row_lists,
                           const tsi_tensor *labels, const tsi_tensor *result,
                           tsi_type partial_type, tsi_program *seq)
{
	size_t rows = tsi_tensor_dim(ms[0], 0);
	size_t cols = tsi_tensor_dim(ms[0], 1);
	const char *pname = sub_name(op, "partials");
	const char *cs1_name = sub_name(op, cs_names[0]);
	const char *cs2_name = sub_name(op, cs_names[1]);
	tsi_compute_set *cs1, *cs2;
	tsi_tensor **rows_buf = NULL;
	tsi_tensor *partials;
	tsi_vertex *v;
	row_plan plan;
	unsigned final_tile;
	int rc;

	if (!pname || !cs1_name || !cs2_name)
		return oom(op);
	rc = plan_rows(op, &plan, ms[0], rows, cols);
	if (rc)
		return rc;
	tsi_graph_scratch_begin(op->graph); /* the rows' and labels' views */
	rows_buf = malloc((plan.max_count + 1) * sizeof(*rows_buf));
	if (!rows_buf) {
		rc = oom(op);
		goto done;
	}
	cs1 = tsi_graph_add_compute_set(op->graph, cs1_name);
	cs2 = tsi_graph_add_compute_set(op->graph, cs2_name);
	partials = tsi_graph_add_variable(op->graph, partial_type, TSI_SHAPE(plan.n_groups), pname);
	if (!cs1 || !cs2 || !partials) {
		rc = tsi_ops_failed(op->graph);
		goto done;
	}
	for (size_t gi = 0; gi < plan.n_groups; gi++) {
		const row_group *g = &plan.groups[gi];
		tsi_tensor *mine = tsi_tensor_slice(partials, gi, gi + 1);
		const char *partial_field = row_codelet->fields[row_codelet->n_fields - 1].name;
		tsi_tensor *lab;

		v = tsi_graph_add_vertex(op->graph, cs1, row_codelet->name);
		if (!v || !mine) {
			rc = tsi_ops_failed(op->graph);
			goto done;
		}
		/* Fields: row list 0, labels, [row list 1], partial. */
		rc = group_rows(op, &plan, g, ms[0], rows_buf);
		if (rc || (rc = tsi_graph_connect_list(op->graph, v, row_codelet->fields[0].name,
		                                       rows_buf, g->count)) != 0)
			goto done;
		lab = group_elements(&plan, g, labels, rows_buf);
		if (!lab) {
			rc = tsi_ops_failed(op->graph);
			goto done;
		}
		if ((rc = tsi_graph_connect(op->graph, v, row_codelet->fields[1].name, lab)) != 0)
			goto done;
		if (n_row_lists > 1) {
			rc = group_rows(op, &plan, g, ms[1], rows_buf);
			if (rc || (rc = tsi_graph_connect_list(op->graph, v, row_codelet->fields[2].name,
			                                       rows_buf, g->count)) != 0)
				goto done;
		}
		if ((rc = tsi_graph_connect(op->graph, v, partial_field, mine)) != 0 ||
		    (rc = tsi_graph_set_tile_mapping(op->graph, mine, g->tile)) != 0 ||
		    (rc = tsi_graph_set_vertex_tile(op->graph, v, g->tile)) != 0)
			goto done;
	}
	/* The final sum sits with the result (or the first partial when the
	 * result has no tile yet; compilation then reports the result). */
	final_tile = tsi_graph_get_tile_of(op->graph, result, 0);
	if (final_tile == TSI_NO_TILE)
		final_tile = plan.groups[0].tile;
	v = tsi_graph_add_vertex(op->graph, cs2, final_codelet->name);
	if (!v) {
		rc = tsi_ops_failed(op->graph);
		goto done;
	}
	if ((rc = tsi_graph_connect(op->graph, v, final_codelet->fields[0].name, partials)) != 0 ||
	    (rc = tsi_graph_connect(op->graph, v, final_codelet->fields[1].name, result)) != 0 ||
	    (rc = tsi_graph_set_vertex_tile(op->graph, v, final_tile)) != 0)
		goto done;
	{
		tsi_program *s1 = tsi_prog_execute(op->graph, cs1);
		tsi_program *s2 = tsi_prog_execute(op->graph, cs2);

		if (!s1 || !s2) {
			rc = tsi_ops_failed(op->graph);
			goto done;
		}
		if ((rc = tsi_sequence_add(seq, s1)) != 0 || (rc = tsi_sequence_add(seq, s2)) != 0)
			goto done;
	}
done:
	tsi_graph_scratch_end(op->graph);
	free(rows_buf);
	row_plan_clear(&plan);
	return rc;
}

/*
 * popnn::calcLoss with integer labels: the loss summed over the batch
 * into `loss` and p - onehot into `deltas`. A label outside [0, C)
 * (including a negative INT label) selects no class: its one-hot row is
 * all zero, so its deltas are p, its sum-squared loss 0.5 sum p^2, and its
 * cross-entropy loss 0.
 */
TSI_API int tsi_popnn_calc_loss(tsi_graph *graph, const tsi_tensor *probs,
                                const tsi_tensor *labels, const tsi_tensor *loss,
                                const tsi_tensor *deltas, tsi_popnn_loss loss_type,
                                tsi_program *seq, const char *debug_name)
{
	op_ctx op = {graph, "tsi_popnn_calc_loss", debug_name ? debug_name : "CalcLoss"};
	TSI_OPS_DEBUG(graph, op.name, "popnn", "popnn::calcLoss");
	const void *args[] = {probs, labels, loss, deltas, seq};
	const char *arg_labels[] = {"probs", "labels", "loss", "deltas", "seq"};
	static const char *const cs_names[] = {"LossTransform", "ReduceLoss"};
	const tsi_tensor *ms[2];
	const tsi_codelet *codelet;
	char sa[96], sb[96];
	int rc = check_present(&op, args, arg_labels, 5);
	int lt;

	if (rc)
		return rc;
	if ((unsigned)loss_type >= LOSS_COUNT)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': unknown loss type %d",
		                      op.api, op.name, (int)loss_type);
	if (tsi_tensor_type(probs) != TSI_FLOAT)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': probs %s have type %s; calc_loss takes float", op.api,
		                      op.name, tsi_tensor_describe(probs),
		                      tsi_type_name(tsi_tensor_type(probs)));
	lt = check_rows_and_labels(&op, probs, "probs", labels);
	if (lt < 0)
		return lt;
	if (tsi_tensor_type(deltas) != TSI_FLOAT || !same_shape(probs, deltas))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': deltas %s (%s, shape %s) must be float with the shape "
		                      "of probs %s",
		                      op.api, op.name, tsi_tensor_describe(deltas),
		                      tsi_type_name(tsi_tensor_type(deltas)),
		                      tsi_ops_format_shape(sa, sizeof(sa), deltas), tsi_ops_format_shape(sb, sizeof(sb), probs));
	if (tsi_tensor_is_constant(deltas))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': deltas %s is a constant",
		                      op.api, op.name, tsi_tensor_describe(deltas));
	rc = check_scalar_result(&op, loss, TSI_FLOAT, "loss");
	if (rc)
		return rc;
	codelet = &tsi_popnn_loss_codelets[loss_type][lt];
	if ((rc = check_codelet(&op, codelet)) != 0 ||
	    (rc = check_codelet(&op, &tsi_popnn_reduce_loss_codelet)) != 0)
		return rc;
	ms[0] = probs;
	ms[1] = deltas;
	return build_two_stage(&op, codelet, &tsi_popnn_reduce_loss_codelet, cs_names, ms, 2, labels,
	                       loss, TSI_FLOAT, seq);
}

/*
 * popnn::calcAccuracy: the number of rows whose arg-max (the first
 * maximum on ties) equals the label, into `num_correct` (overwritten).
 * Labels outside [0, C) never count as correct.
 */
TSI_API int tsi_popnn_calc_accuracy(tsi_graph *graph, const tsi_tensor *activations,
                                    const tsi_tensor *labels, const tsi_tensor *num_correct,
                                    tsi_program *seq, const char *debug_name)
{
	op_ctx op = {graph, "tsi_popnn_calc_accuracy", debug_name ? debug_name : "CalcAccuracy"};
	TSI_OPS_DEBUG(graph, op.name, "popnn", "popnn::calcAccuracy");
	const void *args[] = {activations, labels, num_correct, seq};
	const char *arg_labels[] = {"activations", "labels", "num_correct", "seq"};
	static const char *const cs_names[] = {"MaxClassGather", "CalcAccuracy"};
	const tsi_codelet *codelet;
	int rc = check_present(&op, args, arg_labels, 4);
	int dt, lt;

	if (rc)
		return rc;
	dt = data_type_index(tsi_tensor_type(activations));
	if (dt < 0)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': activations %s have type %s; use float or half", op.api,
		                      op.name, tsi_tensor_describe(activations),
		                      tsi_type_name(tsi_tensor_type(activations)));
	lt = check_rows_and_labels(&op, activations, "activations", labels);
	if (lt < 0)
		return lt;
	rc = check_scalar_result(&op, num_correct, TSI_UNSIGNED_INT, "num_correct");
	if (rc)
		return rc;
	codelet = &tsi_popnn_max_class_codelets[dt][lt];
	if ((rc = check_codelet(&op, codelet)) != 0 ||
	    (rc = check_codelet(&op, &tsi_popnn_calc_accuracy_codelet)) != 0)
		return rc;
	return build_two_stage(&op, codelet, &tsi_popnn_calc_accuracy_codelet, cs_names, &activations,
	                       1, labels, num_correct, TSI_UNSIGNED_INT, seq);
}
