/*
 * The machinery the operation libraries of instrument/src/ops share
 * (declared in ops-private.h): recording errors the same way everywhere,
 * naming what an operation adds, checking and broadcasting operands,
 * finding the tiles that hold an operand's elements, cutting that work
 * into per-worker pieces, making views of exactly those pieces, and
 * building the vertices of an elementwise operation from them.
 *
 * Work split. An elementwise operation makes its result mapped like its
 * first operand and works where the data is: the elements of each tile
 * (its intervals, concatenated) go to max(1, min(6, n / 64)) worker
 * vertices of about n/k elements each (rounded up to a multiple of 4 so
 * each piece starts on a 64-bit vector of halves), so a tile with 64
 * elements runs one vertex and a tile with 384 or more keeps all six
 * worker threads busy. Supervisor codelets (ScaledAddSupervisor) make one
 * vertex per tile instead; the supervisor splits its work over the
 * workers itself. Elements that have no tile yet are worked on where
 * tsi_graph_map_linearly with grain 1 would put them.
 */
#include "ops-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Errors, messages and names ------------------------------------------------ */

/* Out of host memory while `api` built something. */
int tsi_ops_oom(tsi_graph *graph, const char *api)
{
	return tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "out of host memory in %s", api);
}

/* The same with the operation's name, for libraries whose messages all
 * start with it. */
int tsi_ops_oom_in(tsi_graph *graph, const char *api, const char *name)
{
	return tsi_graph_fail(graph, TSI_ERR_NO_MEMORY, "%s '%s': out of host memory", api, name);
}

/* A failed graph call records its error, except for lack of memory. */
int tsi_ops_failed(const tsi_graph *graph)
{
	int rc = tsi_graph_error_code(graph);

	return rc ? rc : TSI_ERR_NO_MEMORY;
}

/*
 * A NULL left by an earlier failed call is that call's echo: the graph
 * already holds the error, so this one passes quietly, returning
 * TSI_ERR_INVALID_GRAPH or (with `echo`) the recorded error's code.
 */
static int null_arg(tsi_graph *graph, const char *api, const char *name, const char *what,
                    bool echo)
{
	int recorded = tsi_graph_error_code(graph);

	if (recorded)
		return echo ? recorded : TSI_ERR_INVALID_GRAPH;
	return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': %s is NULL", api,
	                      name ? name : "", what);
}

/* popops' form: a quiet NULL returns TSI_ERR_INVALID_GRAPH. */
int tsi_ops_null_arg(tsi_graph *graph, const char *api, const char *name, const char *what)
{
	return null_arg(graph, api, name, what, false);
}

/* popnn's, poprand's and poplin's form: the recorded error's code. */
int tsi_ops_null_arg_echo(tsi_graph *graph, const char *api, const char *name,
                          const char *what)
{
	return null_arg(graph, api, name, what, true);
}

/* --- Debug contexts -------------------------------------------------------------- */

/* Every public operation opens one context around its work (through
 * TSI_OPS_DEBUG), so the reports can group what it made under its name. */
tsi_ops_debug tsi_ops_debug_begin(tsi_graph *graph, const char *name, const char *layer,
                                  const char *api)
{
	tsi_ops_debug d = {graph, tsi_debug_push_api(graph, name, layer, api)};

	return d;
}

/* A context that failed to open (id 0) has nothing to close; popping 0
 * would only log a warning. */
void tsi_ops_debug_end(tsi_ops_debug *d)
{
	if (d && d->id)
		tsi_debug_pop(d->graph, d->id);
}

/* The dimensions comma-separated between the brackets; a message that
 * is cut short by `size` still ends in a NUL. */
const char *tsi_ops_format_shape_in(char *buf, size_t size, const tsi_tensor *t, char open,
                                    char close)
{
	size_t shape[TSI_MAX_RANK];
	size_t rank = tsi_tensor_fill_shape(shape, t);
	size_t used = 0;

	if (!size)
		return buf;
	used += (size_t)snprintf(buf, size, "%c", open);
	for (size_t d = 0; d < rank && used < size; d++)
		used += (size_t)snprintf(buf + used, size - used, "%s%zu", d ? "," : "", shape[d]);
	if (used < size)
		snprintf(buf + used, size - used, "%c", close);
	return buf;
}

/* Shapes in popops' and popnn's messages are written in braces. */
const char *tsi_ops_format_shape(char *buf, size_t size, const tsi_tensor *t)
{
	return tsi_ops_format_shape_in(buf, size, t, '{', '}');
}

/* Operations check their codelets when they are built, so that a
 * forgotten add_codelets call is reported where it matters. */
const tsi_codelet *tsi_ops_require_codelet(tsi_graph *graph, const char *api, const char *name,
                                           const char *type_name, const char *adder)
{
	const tsi_codelet *c = tsi_graph_lookup_codelet(graph, type_name);

	if (!c)
		tsi_graph_fail(graph, TSI_ERR_UNKNOWN_VERTEX_TYPE,
		               "%s '%s': vertex type %s is not in the graph; call %s() first", api, name,
		               type_name, adder);
	return c;
}

/* Names live in the arena as long as the graph. */
char *tsi_ops_name(tsi_graph *graph, const char *prefix, const char *suffix)
{
	char *s = tsi_arena_printf(&graph->core->arena, "%s/%s", prefix, suffix);

	if (!s)
		tsi_ops_oom(graph, "popops");
	return s;
}

/* The codelet tables of popops are indexed by operation and type, and
 * hold zeroed entries where a combination does not exist. */
int tsi_ops_add_codelet_table(tsi_graph *graph, const tsi_codelet *table, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc;

		if (!table[i].name)
			continue;
		rc = tsi_graph_add_codelet(graph, &table[i]);
		if (rc)
			return rc;
	}
	return TSI_OK;
}

/* --- Tensors ----------------------------------------------------------------------- */

/* A region per variable run: one look at each region's variable. */
bool tsi_ops_touches_constant(const tsi_tensor *t)
{
	for (size_t r = 0; r < t->n_regions; r++)
		if (tsi_graph_var(t->graph, t->regions[r].var)->is_constant)
			return true;
	return false;
}

/* qsort order of regions: by variable, then start. */
static int region_cmp(const void *pa, const void *pb)
{
	const tsi_region *a = pa;
	const tsi_region *b = pb;

	if (a->var != b->var)
		return a->var < b->var ? -1 : 1;
	return a->begin < b->begin ? -1 : a->begin > b->begin;
}

/* Sorting a copy of the region list puts any overlap next to each other.
 * On OOM it answers "no aliases": the write then just happens twice. */
bool tsi_ops_has_aliases(const tsi_tensor *t)
{
	tsi_region *r;
	bool alias = false;

	if (t->n_regions < 2)
		return false;
	r = malloc(t->n_regions * sizeof(*r));
	if (!r)
		return false;
	memcpy(r, t->regions, t->n_regions * sizeof(*r));
	qsort(r, t->n_regions, sizeof(*r), region_cmp);
	for (size_t i = 1; i < t->n_regions && !alias; i++)
		alias = r[i].var == r[i - 1].var && r[i - 1].begin + r[i - 1].len > r[i].begin;
	free(r);
	return alias;
}

/* Compares the trailing dimensions of b with those of the shape. */
bool tsi_ops_broadcastable(const tsi_tensor *b, size_t rank, const size_t *shape)
{
	size_t rb = b->rank;

	if (rb > rank)
		return false;
	for (size_t d = 0; d < rb; d++) {
		size_t bd = b->shape[rb - 1 - d];

		if (bd != shape[rank - 1 - d] && bd != 1)
			return false;
	}
	return true;
}

/* Adds the missing leading dimensions, then repeats each dimension of
 * size 1 that the shape wants larger. */
const tsi_tensor *tsi_ops_broadcast(const tsi_tensor *b, size_t rank, const size_t *shape)
{
	const tsi_tensor *t = b;

	while (t && t->rank < rank)
		t = tsi_tensor_expand(t, 0);
	for (size_t d = 0; t && d < rank; d++)
		if (t->shape[d] != shape[d])
			t = tsi_tensor_broadcast(t, shape[d], d);
	return t;
}

/* --- Where the work goes ------------------------------------------------------------- */

/* Tiles compare as unsigned numbers, so TSI_NO_TILE sorts last. */
int tsi_ops_interval_cmp(const void *pa, const void *pb)
{
	const tsi_mapping_interval *a = pa;
	const tsi_mapping_interval *b = pb;

	if (a->tile != b->tile)
		return a->tile < b->tile ? -1 : 1;
	return a->begin < b->begin ? -1 : a->begin > b->begin;
}

/*
 * The unmapped elements are numbered in element order and element u goes
 * to tile u / ceil(unmapped / tiles), which is where
 * tsi_graph_map_linearly(rest, 1) puts them.
 */
int tsi_ops_work_intervals(tsi_graph *graph, const tsi_tensor *t, tsi_mapping_interval **out,
                           size_t *count)
{
	tsi_mapping_interval *map = NULL;
	tsi_mapping_interval *res = NULL;
	size_t n = 0, unmapped = 0, n_res = 0, per_tile, pos = 0;
	unsigned tiles = tsi_graph_get_target(graph)->num_tiles;
	int rc;

	*out = NULL;
	*count = 0;
	rc = tsi_graph_list_tile_mapping(&map, &n, graph, t);
	if (rc)
		return tsi_graph_fail(graph, rc, "%s", tsi_error_last());
	for (size_t i = 0; i < n; i++)
		if (map[i].tile == TSI_NO_TILE)
			unmapped += map[i].end - map[i].begin;
	if (!unmapped) {
		res = map;
		n_res = n;
		goto sort;
	}
	/* Each tile boundary crossed splits one interval in two. */
	res = malloc((n + tiles + 1) * sizeof(*res));
	if (!res) {
		free(map);
		return tsi_ops_oom(graph, "popops");
	}
	per_tile = (unmapped + tiles - 1) / tiles;
	for (size_t i = 0; i < n; i++) {
		if (map[i].tile != TSI_NO_TILE) {
			res[n_res++] = map[i];
			continue;
		}
		for (size_t b = map[i].begin; b < map[i].end;) {
			size_t tile = pos / per_tile;
			size_t take = (tile + 1) * per_tile - pos;

			if (take > map[i].end - b)
				take = map[i].end - b;
			res[n_res].tile = (unsigned)tile;
			res[n_res].begin = b;
			res[n_res].end = b + take;
			n_res++;
			b += take;
			pos += take;
		}
	}
	free(map);
sort:
	if (n_res > 1)
		qsort(res, n_res, sizeof(*res), tsi_ops_interval_cmp);
	n = 0;
	for (size_t i = 0; i < n_res; i++) {
		if (n && res[n - 1].tile == res[i].tile && res[n - 1].end == res[i].begin)
			res[n - 1].end = res[i].end;
		else
			res[n++] = res[i];
	}
	*out = res;
	*count = n;
	return TSI_OK;
}

/* One slice per interval, mapped to the interval's tile. */
int tsi_ops_map_intervals(tsi_graph *graph, const tsi_tensor *dst, const tsi_mapping_interval *iv,
                          size_t n)
{
	for (size_t i = 0; i < n; i++) {
		tsi_tensor *piece = tsi_tensor_slice(dst, iv[i].begin, iv[i].end);
		int rc = piece ? tsi_graph_set_tile_mapping(graph, piece, iv[i].tile)
		               : tsi_ops_failed(graph);

		if (rc)
			return rc;
	}
	return TSI_OK;
}

/* One worker per 64 elements: below that a vertex's fixed cost
 * outweighs running on another worker. */
size_t tsi_ops_worker_count(const tsi_graph *graph, size_t n)
{
	size_t workers = tsi_graph_get_target(graph)->num_worker_contexts;
	size_t k = n / 64;

	if (workers == 0)
		workers = 1;
	return k < 1 ? 1 : k > workers ? workers : k;
}

/* The even share, rounded up to a whole 64-bit vector of halves. */
size_t tsi_ops_worker_chunk(size_t n, size_t workers)
{
	size_t chunk = (n + workers - 1) / workers;

	chunk = (chunk + 3) & ~(size_t)3;
	return chunk ? chunk : 1;
}

/* Cycle estimators get the target, which may say nothing. */
unsigned tsi_ops_target_workers(const tsi_target *target)
{
	return target && target->num_worker_contexts ? target->num_worker_contexts : 6;
}

/* The element types in the order of the popops codelet tables. */
int tsi_ops_elem_index(tsi_type type)
{
	switch (type) {
	case TSI_FLOAT:
		return TSI_OPS_FLOAT;
	case TSI_HALF:
		return TSI_OPS_HALF;
	case TSI_INT:
		return TSI_OPS_INT;
	case TSI_UNSIGNED_INT:
		return TSI_OPS_UINT;
	default:
		return -1;
	}
}

/* Messages list what an operation does accept, so the list is built from
 * the codelet table that decides it rather than written out by hand. */
const char *tsi_ops_elem_list(char *buf, size_t size, unsigned mask)
{
	static const char *const names[TSI_OPS_ELEM_COUNT] = {"float", "half", "int",
	                                                      "unsigned int"};
	size_t left = 0, len = 0;

	for (unsigned e = 0; e < TSI_OPS_ELEM_COUNT; e++)
		left += (mask >> e) & 1u;
	if (size)
		buf[0] = '\0';
	for (unsigned e = 0; e < TSI_OPS_ELEM_COUNT && len < size; e++) {
		if (!((mask >> e) & 1u))
			continue;
		left--;
		len += (size_t)snprintf(buf + len, size - len, "%s%s", names[e],
		                        left == 0 ? "" : left == 1 ? " or " : ", ");
	}
	return buf;
}

/* One constant, sliced into a run per tile: consecutive elements on one
 * tile are mapped with one call. */
tsi_tensor *tsi_ops_tile_constants(tsi_graph *graph, tsi_type type, double value,
                                   const unsigned *tiles, size_t n, const char *name)
{
	tsi_tensor *c = tsi_graph_add_constant_fill(graph, type, 1, &n, value, name);

	for (size_t i = 0, j; c && i < n; i = j) {
		tsi_tensor *piece;

		for (j = i + 1; j < n && tiles[j] == tiles[i];)
			j++;
		piece = tsi_tensor_slice(c, i, j);
		if (!piece || tsi_graph_set_tile_mapping(graph, piece, tiles[i]) != TSI_OK)
			return NULL;
	}
	return c;
}

/* --- Views of element ranges --------------------------------------------------------- */

/* The prefix sums of the region lengths let tsi_ops_view find the region
 * holding an element by binary search. */
int tsi_ops_viewer_init(tsi_ops_viewer *v, tsi_graph *graph, const tsi_tensor *flat)
{
	size_t pos = 0;

	memset(v, 0, sizeof(*v));
	v->flat = flat;
	v->start = malloc((flat->n_regions + 1) * sizeof(*v->start));
	if (!v->start)
		return tsi_ops_oom(graph, "popops");
	for (size_t r = 0; r < flat->n_regions; r++) {
		v->start[r] = pos;
		pos += flat->regions[r].len;
	}
	v->start[flat->n_regions] = pos;
	return TSI_OK;
}

/* Appends a region to the viewer's scratch, extending the last one when
 * it continues it. False on OOM. */
static bool viewer_push(tsi_ops_viewer *v, size_t *n, uint32_t var, size_t begin, size_t len)
{
	if (*n && v->buf[*n - 1].var == var && v->buf[*n - 1].begin + v->buf[*n - 1].len == begin) {
		v->buf[*n - 1].len += len;
		return true;
	}
	if (*n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 16;
		tsi_region *buf = realloc(v->buf, cap * sizeof(*buf));

		if (!buf)
			return false;
		v->buf = buf;
		v->cap = cap;
	}
	v->buf[*n].var = var;
	v->buf[*n].begin = begin;
	v->buf[*n].len = len;
	(*n)++;
	return true;
}

/* Each range is located by binary search over the region starts, then
 * copied region by region into the scratch list. */
tsi_tensor *tsi_ops_view(tsi_ops_viewer *v, const tsi_ops_range *r, size_t n)
{
	const tsi_tensor *t = v->flat;
	size_t total = 0, n_buf = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = r[i].begin;
		size_t len = r[i].len;
		size_t lo = 0, hi = t->n_regions;

		if (len == 0)
			continue;
		total += len;
		/* The last region starting at or before k. */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;

			if (v->start[mid] <= k)
				lo = mid;
			else
				hi = mid;
		}
		for (size_t reg = lo; len > 0 && reg < t->n_regions; reg++) {
			size_t off = k - v->start[reg];
			size_t take = t->regions[reg].len - off;

			if (take > len)
				take = len;
			if (!viewer_push(v, &n_buf, t->regions[reg].var, t->regions[reg].begin + off, take)) {
				tsi_ops_oom(t->graph, "popops");
				return NULL;
			}
			k += take;
			len -= take;
		}
	}
	return tsi_tensor_make(t->graph, t->type, 1, &total, v->buf, n_buf);
}

/* The views stay valid: they live in the graph's arena. */
void tsi_ops_viewer_free(tsi_ops_viewer *v)
{
	free(v->start);
	free(v->buf);
	memset(v, 0, sizeof(*v));
}

/* --- Elementwise vertices ------------------------------------------------------------ */

/*
 * Adds the vertices of `w` to `cs`: for each tile of the intervals iv
 * (sorted by tile, from tsi_ops_work_intervals), its elements cut into
 * worker pieces, one vertex per piece placed on that tile. A viewer per
 * vector field makes each piece's view without rescanning the field's
 * tensor; the per-tile constant, when a field needs one, has an element
 * per tile in the order of the tiles. Returns TSI_OK or a negative code
 * (recorded in the graph).
 */
static int ew_build(tsi_graph *graph, tsi_compute_set *cs, const tsi_ops_ew_work *w,
                    const tsi_mapping_interval *iv, size_t n_iv)
{
	size_t n_fields = w->codelet->n_fields;
	tsi_ops_viewer viewers[4];
	tsi_ops_range *ranges = NULL;
	unsigned *tiles = NULL;
	tsi_tensor *consts = NULL;
	size_t n_groups = 0, const_field = n_fields;
	int rc = TSI_OK;

	/* Only what the vertices hold outlives this (tsi_graph_scratch_begin). */
	tsi_graph_scratch_begin(graph);
	memset(viewers, 0, sizeof(viewers));
	for (size_t f = 0; f < n_fields && !rc; f++) {
		if (!w->tensors[f])
			const_field = f;
		else if (w->codelet->fields[f].shape != TSI_FIELD_SCALAR)
			rc = tsi_ops_viewer_init(&viewers[f], graph, w->tensors[f]);
	}
	ranges = malloc((n_iv ? n_iv : 1) * sizeof(*ranges));
	tiles = malloc((n_iv ? n_iv : 1) * sizeof(*tiles));
	if (!rc && (!ranges || !tiles))
		rc = tsi_ops_oom(graph, "popops");
	if (rc)
		goto done;
	for (size_t i = 0; i < n_iv; i++)
		if (i == 0 || iv[i].tile != iv[i - 1].tile)
			tiles[n_groups++] = iv[i].tile;
	if (const_field < n_fields && n_groups) {
		consts = tsi_ops_tile_constants(graph, w->codelet->fields[const_field].type,
		                                w->const_value, tiles, n_groups, w->const_name);
		if (!consts) {
			rc = tsi_ops_failed(graph);
			goto done;
		}
	}
	for (size_t lo = 0, hi, g = 0; lo < n_iv; lo = hi, g++) {
		size_t total = 0, i = lo, off = 0, workers, chunk;

		for (hi = lo; hi < n_iv && iv[hi].tile == iv[lo].tile; hi++)
			total += iv[hi].end - iv[hi].begin;
		workers = w->per_tile ? 1 : tsi_ops_worker_count(graph, total);
		chunk = w->per_tile ? total : tsi_ops_worker_chunk(total, workers);
		for (size_t start = 0; start < total; start += chunk) {
			size_t want = total - start < chunk ? total - start : chunk;
			size_t n_ranges = 0;
			tsi_vertex *v;

			while (want > 0) {
				size_t take = iv[i].end - iv[i].begin - off;

				if (take > want)
					take = want;
				ranges[n_ranges].begin = iv[i].begin + off;
				ranges[n_ranges].len = take;
				n_ranges++;
				off += take;
				want -= take;
				if (iv[i].begin + off == iv[i].end) {
					i++;
					off = 0;
				}
			}
			v = tsi_graph_add_vertex(graph, cs, w->codelet->name);
			if (!v) {
				rc = tsi_ops_failed(graph);
				goto done;
			}
			for (size_t f = 0; f < n_fields; f++) {
				const tsi_tensor *t;

				if (f == const_field)
					t = tsi_tensor_index(consts, g);
				else if (w->codelet->fields[f].shape == TSI_FIELD_SCALAR)
					t = w->tensors[f];
				else
					t = tsi_ops_view(&viewers[f], ranges, n_ranges);
				rc = t ? tsi_graph_connect(graph, v, w->codelet->fields[f].name, t)
				       : tsi_ops_failed(graph);
				if (rc)
					goto done;
			}
			rc = tsi_graph_set_vertex_tile(graph, v, tiles[g]);
			if (rc)
				goto done;
		}
	}
done:
	for (size_t f = 0; f < 4; f++)
		tsi_ops_viewer_free(&viewers[f]);
	free(ranges);
	free(tiles);
	tsi_graph_scratch_end(graph);
	return rc;
}

/* The compute set of a stand-alone elementwise operation: its vertices
 * over the work intervals of `layout`, executed by a step of `seq`. */
int tsi_ops_run_elementwise(tsi_graph *graph, tsi_program *seq, const char *name,
                            const tsi_ops_ew_work *w, const tsi_tensor *layout)
{
	tsi_mapping_interval *iv = NULL;
	size_t n_iv = 0;
	tsi_compute_set *cs = tsi_graph_add_compute_set(graph, name);
	tsi_program *step;
	int rc;

	if (!cs)
		return tsi_ops_failed(graph);
	rc = tsi_ops_work_intervals(graph, layout, &iv, &n_iv);
	if (!rc)
		rc = ew_build(graph, cs, w, iv, n_iv);
	free(iv);
	if (rc)
		return rc;
	step = tsi_prog_execute(graph, cs);
	return step ? tsi_sequence_add(seq, step) : tsi_ops_failed(graph);
}

/* Mapping the result like t, elements without a tile included, puts
 * every vertex next to both its input and its output. */
tsi_tensor *tsi_ops_result_like(tsi_graph *graph, const tsi_tensor *t, tsi_type type,
                                const char *prefix, tsi_mapping_interval **iv, size_t *n_iv,
                                const tsi_tensor **out_flat)
{
	size_t shape[TSI_MAX_RANK];
	size_t rank = tsi_tensor_fill_shape(shape, t);
	const char *name = tsi_ops_name(graph, prefix, "out");
	tsi_tensor *out = name ? tsi_graph_add_variable(graph, type, rank, shape, name) : NULL;

	*iv = NULL;
	*n_iv = 0;
	*out_flat = out ? tsi_tensor_flatten(out) : NULL;
	if (!*out_flat)
		return NULL;
	if (tsi_ops_work_intervals(graph, t, iv, n_iv) != TSI_OK ||
	    tsi_ops_map_intervals(graph, *out_flat, *iv, *n_iv) != TSI_OK) {
		free(*iv);
		*iv = NULL;
		return NULL;
	}
	return out;
}

/* The work intervals that mapped the result place its vertices too. */
tsi_tensor *tsi_ops_ew_result(tsi_graph *graph, tsi_compute_set *cs, const tsi_codelet *codelet,
                              const tsi_tensor *a, const tsi_tensor *b, tsi_type type,
                              const char *prefix)
{
	tsi_mapping_interval *iv = NULL;
	const tsi_tensor *out_flat = NULL;
	size_t n_iv = 0;
	tsi_tensor *out = tsi_ops_result_like(graph, a, type, prefix, &iv, &n_iv, &out_flat);
	tsi_ops_ew_work w = {codelet,
	                     {tsi_tensor_flatten(a), b ? b : out_flat, b ? out_flat : NULL, NULL},
	                     false, 0, NULL};

	if (out && (!w.tensors[0] || ew_build(graph, cs, &w, iv, n_iv) != TSI_OK))
		out = NULL;
	free(iv);
	return out;
}

/* A constant cannot change, and an element seen twice would be written
 * by two vertices at once. */
int tsi_ops_check_writable(tsi_graph *graph, const char *api, const char *name,
                           const tsi_tensor *t)
{
	if (tsi_ops_touches_constant(t))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': cannot write to %s: it is (or contains) a constant", api,
		                      name, tsi_tensor_describe(t));
	if (tsi_ops_has_aliases(t))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': cannot write in place to %s: some of its elements appear "
		                      "more than once (a broadcast or aliasing view)",
		                      api, name, tsi_tensor_describe(t));
	return TSI_OK;
}
