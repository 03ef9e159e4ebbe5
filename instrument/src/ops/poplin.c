/*
 * poplin, in small: matrix multiplication on the IPU Model built the way
 * Graphcore's poplin builds it. The planner (poplin-planner.c) cuts
 * [M, K] x [K, N] into m_split x k_split x n_split blocks, one per tile;
 * a first compute set computes every block product into float partials
 * (with the AMP vertex for half inputs, a worker vertex for float), and
 * when K is split, or the result is half, a second one sums the partials
 * over K and writes the result, each output block spread over the tiles
 * that computed its partials. tsi_poplin_matmul_acc folds c += alpha * ab
 * into that second stage.
 *
 * The vertices are built only with the public graph API, and really
 * compute (accumulating in float), so models that train with them learn.
 */
#include "ops-private.h"
#include "poplin-private.h"
#include "tilescope/poplin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AMP_NAME "poplin::ConvPartial1x1Out<half,float,true,false>"
#define MATMUL_NAME "poplin::MatMulPartial<float,float>"
#define REDUCE_NAME "poplin::ReduceAdd<float,float>"
#define REDUCE_HALF_NAME "poplin::ReduceAdd<half,float>"
#define REDUCE_TO_NAME "poplin::ReduceAddScaledTo<float,float>"
#define REDUCE_TO_HALF_NAME "poplin::ReduceAddScaledTo<half,float>"

/* --- Device code: block products ------------------------------------------------ */

/* The shape of a block product [rows, k] x [k, n] as a vertex sees it:
 * "in" is a list of `rows` rows of k, "weights" the [k, n] block and "out"
 * the [rows, n] block, both row-major. (Weights and output are single
 * vectors: a list of rows would cost the graph two views per row.) */
typedef struct mm_shape {
	size_t rows, k, n;
} mm_shape;

/* True when sub-vector lengths of `f` are all `len` (the engine lays the
 * sub-vectors back to back, so row i then starts at i * len). */
static bool uniform_rows(const tsi_field *f, size_t len)
{
	for (size_t i = 0; i <= f->n_vectors; i++)
		if (f->offsets[i] != i * len)
			return false;
	return true;
}

/* Reads and checks the shape of a matmul vertex's fields. */
static bool mm_check(const tsi_field *f, size_t n_fields, mm_shape *s)
{
	if (n_fields != 3 || f[0].n_vectors == 0)
		return false;
	s->rows = f[0].n_vectors;
	s->k = f[0].count / s->rows;
	s->n = f[2].count / s->rows;
	return s->k > 0 && s->n > 0 && f[0].count == s->rows * s->k &&
	       f[1].count == s->k * s->n && f[2].count == s->rows * s->n &&
	       uniform_rows(&f[0], s->k);
}

/*
 * o[0 .. NC) = row `ar` (k values) times columns [j0, j0 + NC) of w[k, n].
 * Inlined with a constant NC, the NC sums live in registers (a vector
 * register for NC = 8) across the loop over k; each sum adds its terms in
 * order of k, so the result does not depend on how columns are grouped.
 */
static inline __attribute__((always_inline)) void
dot_cols(const float *restrict ar, const float *restrict w, float *restrict o, size_t k,
         size_t n, size_t j0, size_t NC)
{
	float acc[8] = {0};

	for (size_t kk = 0; kk < k; kk++) {
		const float x = ar[kk];
		const float *restrict wr = w + kk * n + j0;

		for (size_t jj = 0; jj < NC; jj++)
			acc[jj] += x * wr[jj];
	}
	for (size_t jj = 0; jj < NC; jj++)
		o[j0 + jj] = acc[jj];
}

/*
 * out[rows, n] = a[rows, k] x w[k, n], all float and row-major, in groups
 * of 8 columns and a tail of 1 to 7 (each with its own constant-width
 * kernel). Blocks on a tile are often narrow (n of 1 to 10), where a
 * plain loop over columns would spend its time in loop overhead; this
 * runs in training loops.
 */
static void gemm_f32(const float *restrict a, const float *restrict w, float *restrict out,
                     const mm_shape *s)
{
	const size_t k = s->k, n = s->n;

	for (size_t i = 0; i < s->rows; i++) {
		const float *restrict ar = a + i * k;
		float *restrict o = out + i * n;
		size_t j0 = 0;

		for (; j0 + 8 <= n; j0 += 8)
			dot_cols(ar, w, o, k, n, j0, 8);
		switch (n - j0) {
		case 7: dot_cols(ar, w, o, k, n, j0, 7); break;
		case 6: dot_cols(ar, w, o, k, n, j0, 6); break;
		case 5: dot_cols(ar, w, o, k, n, j0, 5); break;
		case 4: dot_cols(ar, w, o, k, n, j0, 4); break;
		case 3: dot_cols(ar, w, o, k, n, j0, 3); break;
		case 2: dot_cols(ar, w, o, k, n, j0, 2); break;
		case 1: dot_cols(ar, w, o, k, n, j0, 1); break;
		default: break;
		}
	}
}

/* poplin::MatMulPartial<float,float>: one block product in float. */
static bool matmul_float_cb(const tsi_field *f, size_t n_fields)
{
	mm_shape s;

	if (!mm_check(f, n_fields, &s))
		return false;
	gemm_f32(f[0].data, f[1].data, f[2].data, &s);
	return true;
}

/*
 * poplin::ConvPartial1x1Out<half,float,true,false>: the block product of
 * half inputs with float accumulation, as the AMP does it. The inputs are
 * widened to float once (weights whole, then the rows) and multiplied
 * exactly like float; the result stays float (the partials).
 */
static bool matmul_amp_cb(const tsi_field *f, size_t n_fields)
{
	const uint16_t *a, *w;
	float *wf, *af;
	mm_shape s;

	if (!mm_check(f, n_fields, &s))
		return false;
	a = f[0].data;
	w = f[1].data;
	wf = malloc((s.k * s.n + s.rows * s.k) * sizeof(*wf));
	if (!wf)
		return false;
	af = wf + s.k * s.n;
	for (size_t i = 0; i < s.k * s.n; i++)
		wf[i] = tsi_half_to_float(w[i]);
	for (size_t i = 0; i < s.rows * s.k; i++)
		af[i] = tsi_half_to_float(a[i]);
	gemm_f32(af, wf, f[2].data, &s);
	free(wf);
	return true;
}

/* Estimators: the shared cycle model (poplin-planner.c) of each vertex.
 * The AMP vertex's, in tile cycles (a supervisor vertex). */
static uint64_t amp_cycles_cb(const tsi_field *f, size_t n_fields, const tsi_target *target)
{
	size_t rows = n_fields == 3 ? f[0].n_vectors : 0;

	return tsi_poplin_amp_cycles(rows, rows ? f[0].count / rows : 0,
	                             rows ? f[2].count / rows : 0, target);
}

/* The float vertex's, in worker cycles. */
static uint64_t matmul_float_cycles_cb(const tsi_field *f, size_t n_fields,
                                       const tsi_target *target)
{
	size_t rows = n_fields == 3 ? f[0].n_vectors : 0;

	return tsi_poplin_float_cycles(rows, rows ? f[0].count / rows : 0,
	                               rows ? f[2].count / rows : 0, target);
}

/* Two flops (a multiply and an add) per MAC. */
static uint64_t matmul_flops_cb(const tsi_field *f, size_t n_fields)
{
	size_t rows = n_fields == 3 ? f[0].n_vectors : 0;

	return rows ? 2 * (uint64_t)f[0].count * (f[2].count / rows) : 0;
}

/* --- Device code: reduction over K splits ------------------------------------ */

/* Checks a reduce vertex: every partial as long as the output. Returns the
 * output length through *elems. */
static bool reduce_check(const tsi_field *f, size_t n_fields, size_t want, size_t *elems)
{
	if (n_fields != want || f[0].n_vectors == 0)
		return false;
	*elems = f[1].count;
	return f[0].count == f[0].n_vectors * *elems && uniform_rows(&f[0], *elems);
}

/* Sum over the partials of element j (partial p lies at p * elems). */
static inline float partial_sum(const float *p, size_t n_partials, size_t elems, size_t j)
{
	float acc = p[j];

	for (size_t q = 1; q < n_partials; q++)
		acc += p[q * elems + j];
	return acc;
}

/* poplin::ReduceAdd<float,float>: out = sum of the partials. */
static bool reduce_float_cb(const tsi_field *f, size_t n_fields)
{
	const float *p = f[0].data;
	float *out = f[1].data;
	size_t e;

	if (!reduce_check(f, n_fields, 2, &e))
		return false;
	for (size_t j = 0; j < e; j++)
		out[j] = partial_sum(p, f[0].n_vectors, e, j);
	return true;
}

/* poplin::ReduceAdd<half,float>: the float sum rounded to half. */
static bool reduce_half_cb(const tsi_field *f, size_t n_fields)
{
	const float *p = f[0].data;
	uint16_t *out = f[1].data;
	size_t e;

	if (!reduce_check(f, n_fields, 2, &e))
		return false;
	for (size_t j = 0; j < e; j++)
		out[j] = tsi_half_from_float(partial_sum(p, f[0].n_vectors, e, j));
	return true;
}

/* poplin::ReduceAddScaledTo<float,float>: out += scale * sum. */
static bool reduce_to_float_cb(const tsi_field *f, size_t n_fields)
{
	const float *p = f[0].data;
	float *out = f[1].data;
	float scale;
	size_t e;

	if (!reduce_check(f, n_fields, 3, &e) || f[2].count != 1)
		return false;
	scale = *(const float *)f[2].data;
	for (size_t j = 0; j < e; j++)
		out[j] += scale * partial_sum(p, f[0].n_vectors, e, j);
	return true;
}

/* poplin::ReduceAddScaledTo<half,float>: the same on a half output,
 * computed in float and rounded once. */
static bool reduce_to_half_cb(const tsi_field *f, size_t n_fields)
{
	const float *p = f[0].data;
	uint16_t *out = f[1].data;
	float scale;
	size_t e;

	if (!reduce_check(f, n_fields, 3, &e) || f[2].count != 1)
		return false;
	scale = *(const float *)f[2].data;
	for (size_t j = 0; j < e; j++)
		out[j] = tsi_half_from_float(tsi_half_to_float(out[j]) +
		                             scale * partial_sum(p, f[0].n_vectors, e, j));
	return true;
}

/* The reduce vertices' estimators (worker cycles), one per variant. */
#define REDUCE_CYCLES_CB(fn, half, scaled)                                              \
	static uint64_t fn(const tsi_field *f, size_t n_fields, const tsi_target *target)   \
	{                                                                                   \
		(void)target;                                                                   \
		return n_fields >= 2 ? tsi_poplin_reduce_cycles(f[0].n_vectors, f[1].count,     \
		                                                half, scaled)                   \
		                     : 0;                                                       \
	}
REDUCE_CYCLES_CB(reduce_float_cycles_cb, false, false)
REDUCE_CYCLES_CB(reduce_half_cycles_cb, true, false)
REDUCE_CYCLES_CB(reduce_to_float_cycles_cb, false, true)
REDUCE_CYCLES_CB(reduce_to_half_cycles_cb, true, true)
#undef REDUCE_CYCLES_CB

/* Adds between partials: (P - 1) per element. */
static uint64_t reduce_flops_cb(const tsi_field *f, size_t n_fields)
{
	return n_fields >= 2 && f[0].n_vectors ? (uint64_t)(f[0].n_vectors - 1) * f[1].count : 0;
}

/* The scaled form adds a multiply and an add per element. */
static uint64_t reduce_to_flops_cb(const tsi_field *f, size_t n_fields)
{
	return n_fields >= 3 ? (uint64_t)(f[0].n_vectors + 1) * f[1].count : 0;
}

/* --- Codelet table ------------------------------------------------------------- */

static const tsi_field_def amp_fields[3] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, TSI_HALF, 0},
	{"weights", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_HALF, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};
static const tsi_field_def matmul_float_fields[3] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},
	{"weights", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};
static const tsi_field_def reduce_float_fields[2] = {
	{"partials", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};
static const tsi_field_def reduce_half_fields[2] = {
	{"partials", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, TSI_HALF, 0},
};
static const tsi_field_def reduce_to_float_fields[3] = {
	{"partials", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},
	{"out", TSI_FIELD_INOUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"scale", TSI_FIELD_INPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};
static const tsi_field_def reduce_to_half_fields[3] = {
	{"partials", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},
	{"out", TSI_FIELD_INOUT, TSI_FIELD_VECTOR, TSI_HALF, 0},
	{"scale", TSI_FIELD_INPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

/*
 * Vertex state and code sizes (estimates of what the real vertices take):
 * the AMP vertex holds pointers and counts for its three vector lists plus
 * the worklists of its six workers (64 bytes) and about 2 KiB of
 * hand-written assembly; the float vertex a list, two vectors and their
 * counts (24 bytes) and a 640-byte loop; the reductions a list, an output, a count
 * and for the scaled form the scale (16 or 20 bytes) in 320 bytes.
 */
static const tsi_codelet codelets[] = {
	{AMP_NAME, amp_fields, 3, matmul_amp_cb, amp_cycles_cb, matmul_flops_cb, 64, 2048, true},
	{MATMUL_NAME, matmul_float_fields, 3, matmul_float_cb, matmul_float_cycles_cb,
	 matmul_flops_cb, 24, 640, false},
	{REDUCE_NAME, reduce_float_fields, 2, reduce_float_cb, reduce_float_cycles_cb,
	 reduce_flops_cb, 16, 320, false},
	{REDUCE_HALF_NAME, reduce_half_fields, 2, reduce_half_cb, reduce_half_cycles_cb,
	 reduce_flops_cb, 16, 320, false},
	{REDUCE_TO_NAME, reduce_to_float_fields, 3, reduce_to_float_cb, reduce_to_float_cycles_cb,
	 reduce_to_flops_cb, 20, 320, false},
	{REDUCE_TO_HALF_NAME, reduce_to_half_fields, 3, reduce_to_half_cb,
	 reduce_to_half_cycles_cb, reduce_to_flops_cb, 20, 320, false},
};

/* Registers poplin's vertex types (poplin::addCodelets); twice is harmless. */
TSI_API int tsi_poplin_add_codelets(tsi_graph *graph)
{
	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_poplin_add_codelets: graph is NULL");
	return tsi_graph_add_codelets(graph, codelets, sizeof(codelets) / sizeof(codelets[0]));
}

/* --- Host side: helpers ------------------------------------------------------- */

/* Element range [*begin, *end) of part `i` of `parts` balanced parts of
 * `dim` elements: every part is floor or ceil(dim / parts) long, as the
 * planner assumes. */
static void part_range(size_t dim, size_t parts, size_t i, size_t *begin, size_t *end)
{
	*begin = i * dim / parts;
	*end = (i + 1) * dim / parts;
}

/* The tile of block (mi, ki, ni) under `plan`. */
static unsigned task_tile(const tsi_poplin_plan *plan, size_t mi, size_t ki, size_t ni)
{
	return (unsigned)((mi * plan->k_split + ki) * plan->n_split + ni);
}

/* The [r0, r1) x [c0, c1) block of a rank-2 tensor. */
static tsi_tensor *block2(const tsi_tensor *t, size_t r0, size_t r1, size_t c0, size_t c1)
{
	const size_t begin[2] = {r0, c0};
	const size_t end[2] = {r1, c1};

	return tsi_tensor_slice_md(t, begin, end, 2);
}

/* One matmul being built. */
typedef struct mm_ctx {
	tsi_graph *graph;
	const char *api;   /* public function, for messages */
	const char *name;  /* debug name: prefix of variables and compute sets */
	tsi_type type;     /* of the inputs */
	size_t m, k, n;
	tsi_poplin_plan plan;
	unsigned workers;
} mm_ctx;

/* Records that the host ran out of memory building `c`. */
static int mm_oom(const mm_ctx *c)
{
	return tsi_ops_oom_in(c->graph, c->api, c->name);
}

/* "<name><suffix>" in a malloc'd string, or NULL (recorded). */
static char *mm_name(const mm_ctx *c, const char *suffix)
{
	char *s = malloc(strlen(c->name) + strlen(suffix) + 1);

	if (!s) {
		mm_oom(c);
		return NULL;
	}
	strcpy(s, c->name);
	strcat(s, suffix);
	return s;
}

/*
 * Plans for the context's problem, recording a failure in the graph
 * (planning only fails when the host is out of memory once the operands
 * are checked).
 */
static int mm_plan(mm_ctx *c)
{
	int rc = tsi_poplin_plan_matmul(&c->plan, c->graph, c->type, c->m, c->k, c->n);

	if (rc) {
		char msg[256];

		snprintf(msg, sizeof(msg), "%s", tsi_error_last());
		return tsi_graph_fail(c->graph, rc, "%s '%s': %s", c->api, c->name, msg);
	}
	c->workers = tsi_poplin_workers(tsi_graph_get_target(c->graph));
	return TSI_OK;
}

/*
 * Checks the operands of a matmul: both rank 2, inner dimensions equal,
 * one supported type, the codelets registered. Fills c's shape and type.
 * Returns TSI_OK or the code recorded in the graph.
 */
static int check_operands(mm_ctx *c, const tsi_tensor *a, const tsi_tensor *b,
                          const tsi_program *seq)
{
	char sa[96], sb[96];
	tsi_type type;

	if (!a || !b || !seq)
		return tsi_ops_null_arg_echo(c->graph, c->api, c->name,
		                             !a ? "operand a" : !b ? "operand b" : "seq");
	tsi_ops_format_shape_in(sa, sizeof(sa), a, '[', ']');
	tsi_ops_format_shape_in(sb, sizeof(sb), b, '[', ']');
	if (tsi_tensor_rank(a) != 2 || tsi_tensor_rank(b) != 2)
		return tsi_graph_fail(c->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': operands must have rank 2, not %s %s x %s %s", c->api,
		                      c->name, tsi_tensor_describe(a), sa, tsi_tensor_describe(b), sb);
	if (tsi_tensor_dim(a, 1) != tsi_tensor_dim(b, 0))
		return tsi_graph_fail(c->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': inner dimensions differ: %s x %s (%s x %s)", c->api,
		                      c->name, sa, sb, tsi_tensor_describe(a), tsi_tensor_describe(b));
	type = tsi_tensor_type(a);
	if (type != tsi_tensor_type(b))
		return tsi_graph_fail(c->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': operands have different types (%s %s is %s, %s %s is "
		                      "%s)",
		                      c->api, c->name, tsi_tensor_describe(a), sa, tsi_type_name(type),
		                      tsi_tensor_describe(b), sb, tsi_type_name(tsi_tensor_type(b)));
	if (type != TSI_FLOAT && type != TSI_HALF)
		return tsi_graph_fail(c->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': type %s of %s is not supported (float or half)", c->api,
		                      c->name, tsi_type_name(type), tsi_tensor_describe(a));
	c->m = tsi_tensor_dim(a, 0);
	c->k = tsi_tensor_dim(a, 1);
	c->n = tsi_tensor_dim(b, 1);
	c->type = type;
	if (c->m == 0 || c->k == 0 || c->n == 0)
		return tsi_graph_fail(c->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': empty operand in %s x %s", c->api, c->name, sa, sb);
	if (!tsi_graph_lookup_codelet(c->graph, type == TSI_HALF ? AMP_NAME : MATMUL_NAME))
		return tsi_graph_fail(c->graph, TSI_ERR_UNKNOWN_VERTEX_TYPE,
		                      "%s '%s': the poplin vertex types are not in the graph; call "
		                      "tsi_poplin_add_codelets() first",
		                      c->api, c->name);
	return TSI_OK;
}

/* --- Host side: stages ------------------------------------------------------- */

/* Adds one block-product vertex of `type_name` on `tile`. */
static int add_product_vertex(mm_ctx *c, tsi_compute_set *cs, const char *type_name,
                              const tsi_tensor *in, const tsi_tensor *weights,
                              const tsi_tensor *out, unsigned tile)
{
	tsi_vertex *v = tsi_graph_add_vertex(c->graph, cs, type_name);
	int rc;

	if (!v)
		return tsi_ops_failed(c->graph);
	if ((rc = tsi_graph_connect(c->graph, v, "in", in)) != 0 ||
	    (rc = tsi_graph_connect(c->graph, v, "weights", weights)) != 0 ||
	    (rc = tsi_graph_connect(c->graph, v, "out", out)) != 0 ||
	    (rc = tsi_graph_set_vertex_tile(c->graph, v, tile)) != 0)
		return rc == TSI_ERR_INVALID_GRAPH ? tsi_ops_failed(c->graph) : rc;
	return TSI_OK;
}

/*
 * The first stage: the product of every block (mi, ki, ni) on its tile,
 * into `dest` [M, N] directly (k_split 1, float) or into slice ki of the
 * float partials [k_split, M, N]. The destination block is mapped to the
 * tile that writes it. Half blocks take one AMP supervisor vertex; float
 * blocks are shared among the worker contexts
 * (tsi_poplin_worker_split).
 */
/* Worker column slices of one B block kept for reuse (workers per tile). */
#define B_WORKER_SLOTS 8

static int build_products(mm_ctx *c, tsi_compute_set *cs, const tsi_tensor *a,
                          const tsi_tensor *b, const tsi_tensor *dest, bool dest_is_partials)
{
	const tsi_poplin_plan *p = &c->plan;
	const size_t n_b = p->k_split * p->n_split;
	/* B blocks and their worker column slices, made once and used by
	 * every mi: slicing again would cost time per mi, and each kept copy
	 * is graph memory (the view cache shares equal ones only while they
	 * are recent). */
	tsi_tensor **bbs = calloc(n_b + 1, sizeof(*bbs));
	tsi_tensor **ws = calloc(n_b * B_WORKER_SLOTS + 1, sizeof(*ws));
	size_t *ws_nv = calloc(n_b + 1, sizeof(*ws_nv));
	int rc = TSI_OK;

	/* Only what the vertices hold outlives this (tsi_graph_scratch_begin). */
	tsi_graph_scratch_begin(c->graph);
	if (!bbs || !ws || !ws_nv) {
		rc = tsi_graph_fail(c->graph, TSI_ERR_NO_MEMORY, "out of host memory planning a matmul");
		goto out;
	}
	/* Blocks are cut from row slabs, and A blocks reused across ni: slicing
	 * a view costs time in proportion to the regions of what is sliced,
	 * and a transposed operand has one region per element. */
	for (size_t mi = 0; mi < p->m_split; mi++) {
		tsi_tensor *slab_a;
		size_t m0, m1;

		part_range(c->m, p->m_split, mi, &m0, &m1);
		slab_a = tsi_tensor_slice(a, m0, m1);
		for (size_t ki = 0; ki < p->k_split; ki++) {
			const tsi_tensor *d = dest_is_partials ? tsi_tensor_index(dest, ki) : dest;
			tsi_tensor *ab, *slab_b = NULL;
			size_t k0, k1;

			part_range(c->k, p->k_split, ki, &k0, &k1);
			ab = tsi_tensor_slice_dim(slab_a, k0, k1, 1);
			for (size_t ni = 0; ni < p->n_split; ni++) {
				unsigned tile = task_tile(p, mi, ki, ni);
				size_t bi = ki * p->n_split + ni;
				tsi_tensor *bb, *db;
				size_t n0, n1, rv, nv;

				part_range(c->n, p->n_split, ni, &n0, &n1);
				if (!bbs[bi]) {
					if (!slab_b)
						slab_b = tsi_tensor_slice(b, k0, k1);
					bbs[bi] = tsi_tensor_slice_dim(slab_b, n0, n1, 1);
				}
				bb = bbs[bi];
				db = block2(d, m0, m1, n0, n1);
				if (!ab || !bb || !db) {
					rc = tsi_ops_failed(c->graph);
					goto out;
				}
				if ((rc = tsi_graph_set_tile_mapping(c->graph, db, tile)) != 0)
					goto out;
				if (c->type == TSI_HALF) {
					rc = add_product_vertex(c, cs, AMP_NAME, ab, tsi_tensor_flatten(bb),
					                        tsi_tensor_flatten(db), tile);
					if (rc)
						goto out;
					continue;
				}
				tsi_poplin_worker_split(m1 - m0, n1 - n0, c->workers, &rv, &nv);
				/* The column slices depend on nv, which an uneven m split
				 * can change between mi: cached for the last nv seen. */
				bool cached = ws_nv[bi] == nv && nv <= B_WORKER_SLOTS;
				for (size_t q = 0; q < nv; q++) {
					tsi_tensor *w = cached ? ws[bi * B_WORKER_SLOTS + q] : NULL;
					size_t c0, c1;

					part_range(n1 - n0, nv, q, &c0, &c1);
					if (!w) {
						w = tsi_tensor_flatten(tsi_tensor_slice_dim(bb, c0, c1, 1));
						if (nv <= B_WORKER_SLOTS)
							ws[bi * B_WORKER_SLOTS + q] = w;
					}
					for (size_t r = 0; r < rv; r++) {
						tsi_tensor *in, *o;
						size_t r0, r1;

						part_range(m1 - m0, rv, r, &r0, &r1);
						in = tsi_tensor_slice(ab, r0, r1);
						o = tsi_tensor_flatten(block2(db, r0, r1, c0, c1));
						if (!in || !w || !o) {
							rc = tsi_ops_failed(c->graph);
							goto out;
						}
						rc = add_product_vertex(c, cs, MATMUL_NAME, in, w, o, tile);
						if (rc)
							goto out;
					}
				}
				if (nv <= B_WORKER_SLOTS)
					ws_nv[bi] = nv;
			}
		}
	}
out:
	tsi_graph_scratch_end(c->graph);
	free(bbs);
	free(ws);
	free(ws_nv);
	return rc;
}

/*
 * The second stage: out = sum over ki of partials[ki] (or, with `alpha`,
 * out += alpha * that sum). The elements of each output block (mi, ni)
 * are split evenly over the k_split tiles (mi, *, ni) that computed its
 * partials, and each tile's share over its worker contexts. With
 * `map_out`, each share of `out` is mapped to the tile that writes it.
 * `alpha` is a FLOAT constant with element t on tile t (or NULL).
 */
static int build_reduce(mm_ctx *c, tsi_compute_set *cs, const tsi_tensor *partials,
                        const tsi_tensor *out, const char *type_name, const tsi_tensor *alpha,
                        bool map_out)
{
	const tsi_poplin_plan *p = &c->plan;
	const size_t ks = p->k_split;
	tsi_tensor **flat = calloc(2 * ks, sizeof(*flat));
	tsi_tensor **list = flat ? flat + ks : NULL;
	int rc = TSI_OK;

	/* Only what the vertices hold outlives this (tsi_graph_scratch_begin). */
	tsi_graph_scratch_begin(c->graph);
	if (!flat) {
		rc = mm_oom(c);
		goto done;
	}
	for (size_t mi = 0; mi < p->m_split; mi++) {
		size_t m0, m1;

		part_range(c->m, p->m_split, mi, &m0, &m1);
		for (size_t ni = 0; ni < p->n_split; ni++) {
			size_t n0, n1, elems;
			tsi_tensor *oflat;

			part_range(c->n, p->n_split, ni, &n0, &n1);
			elems = (m1 - m0) * (n1 - n0);
			oflat = tsi_tensor_flatten(block2(out, m0, m1, n0, n1));
			for (size_t ki = 0; ki < ks; ki++)
				flat[ki] = tsi_tensor_flatten(block2(tsi_tensor_index(partials, ki), m0, m1,
				                                     n0, n1));
			if (!oflat || !flat[ks - 1]) {
				rc = tsi_ops_failed(c->graph);
				goto done;
			}
			for (size_t j = 0; j < ks; j++) {
				unsigned tile = task_tile(p, mi, j, ni);
				size_t e0, e1, nv;

				part_range(elems, ks, j, &e0, &e1);
				if (e0 == e1)
					continue;
				if (map_out &&
				    (rc = tsi_graph_set_tile_mapping(c->graph, tsi_tensor_slice(oflat, e0, e1),
				                                     tile)) != 0)
					goto done;
				nv = e1 - e0 < c->workers ? e1 - e0 : c->workers;
				for (size_t q = 0; q < nv; q++) {
					tsi_vertex *v;
					size_t c0, c1;

					part_range(e1 - e0, nv, q, &c0, &c1);
					for (size_t ki = 0; ki < ks; ki++)
						list[ki] = tsi_tensor_slice(flat[ki], e0 + c0, e0 + c1);
					v = tsi_graph_add_vertex(c->graph, cs, type_name);
					if (!v || !list[ks - 1]) {
						rc = tsi_ops_failed(c->graph);
						goto done;
					}
					if ((rc = tsi_graph_connect_list(c->graph, v, "partials", list, ks)) ||
					    (rc = tsi_graph_connect(c->graph, v, "out",
					                            tsi_tensor_slice(oflat, e0 + c0, e0 + c1))) ||
					    (alpha && (rc = tsi_graph_connect(c->graph, v, "scale",
					                                      tsi_tensor_index(alpha, tile)))) ||
					    (rc = tsi_graph_set_vertex_tile(c->graph, v, tile))) {
						if (rc == TSI_ERR_INVALID_GRAPH)
							rc = tsi_ops_failed(c->graph);
						goto done;
					}
				}
			}
		}
	}
done:
	tsi_graph_scratch_end(c->graph);
	free(flat);
	return rc;
}

/* Appends the execution of `n` compute sets to `seq`. */
static int append_steps(tsi_graph *graph, tsi_program *seq, tsi_compute_set *const *cs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		tsi_program *step = tsi_prog_execute(graph, cs[i]);
		int rc;

		if (!step)
			return tsi_ops_failed(graph);
		if ((rc = tsi_sequence_add(seq, step)) != 0)
			return rc;
	}
	return TSI_OK;
}

/* A compute set "<name><suffix>", or NULL (recorded). */
static tsi_compute_set *add_cs(mm_ctx *c, const char *suffix)
{
	char *name = mm_name(c, suffix);
	tsi_compute_set *cs;

	if (!name)
		return NULL;
	cs = tsi_graph_add_compute_set(c->graph, name);
	free(name);
	return cs;
}

/* A variable "<name><suffix>" of `type` and the given shape, or NULL. */
static tsi_tensor *add_var(mm_ctx *c, tsi_type type, size_t rank, const size_t *shape,
                           const char *suffix)
{
	char *name = mm_name(c, suffix);
	tsi_tensor *t;

	if (!name)
		return NULL;
	t = tsi_graph_add_variable(c->graph, type, rank, shape, name);
	free(name);
	return t;
}

/* --- Public operations --------------------------------------------------------- */

/*
 * a x b (poplin::matMul). Float products with K unsplit write the result
 * directly; otherwise the products go to float partials and a reduce
 * stage sums them over K (and, for half, rounds to half).
 */
TSI_API tsi_tensor *tsi_poplin_matmul(tsi_graph *graph, const tsi_tensor *a, const tsi_tensor *b,
                                      tsi_program *seq, const char *debug_name)
{
	mm_ctx c = {graph, "tsi_poplin_matmul", debug_name ? debug_name : "MatMul", TSI_FLOAT,
	            0, 0, 0, {0}, 1};
	TSI_OPS_DEBUG(graph, c.name, "poplin", "poplin::matMul");
	tsi_compute_set *cs[2] = {NULL, NULL};
	tsi_tensor *out, *partials;
	size_t n_cs = 1;

	if (!graph) {
		tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_poplin_matmul: graph is NULL");
		return NULL;
	}
	if (check_operands(&c, a, b, seq) || mm_plan(&c))
		return NULL;
	out = add_var(&c, c.type, TSI_SHAPE(c.m, c.n), "/out");
	cs[0] = add_cs(&c, "/Partials");
	if (!out || !cs[0])
		return NULL;
	if (c.type == TSI_FLOAT && c.plan.k_split == 1) {
		if (build_products(&c, cs[0], a, b, out, false))
			return NULL;
	} else {
		partials = add_var(&c, TSI_FLOAT, TSI_SHAPE(c.plan.k_split, c.m, c.n), "/partials");
		cs[1] = add_cs(&c, "/Reduce");
		n_cs = 2;
		if (!partials || !cs[1] || build_products(&c, cs[0], a, b, partials, true) ||
		    build_reduce(&c, cs[1], partials, out,
		                 c.type == TSI_HALF ? REDUCE_HALF_NAME : REDUCE_NAME, NULL, true))
			return NULL;
	}
	if (append_steps(graph, seq, cs, n_cs))
		return NULL;
	return out;
}

/*
 * A FLOAT constant of plan.tiles_used elements, all `alpha`, element t on
 * tile t: the scale each final-stage vertex reads on its own tile.
 */
static tsi_tensor *alpha_constant(mm_ctx *c, float alpha)
{
	char *name = mm_name(c, "/alpha");
	size_t n = c->plan.tiles_used;
	tsi_tensor *t;

	if (!name)
		return NULL;
	t = tsi_graph_add_constant_fill(c->graph, TSI_FLOAT, TSI_SHAPE(n), alpha, name);
	free(name);
	for (size_t i = 0; t && i < n; i++)
		if (tsi_graph_set_tile_mapping(c->graph, tsi_tensor_slice(t, i, i + 1), (unsigned)i))
			return NULL;
	return t;
}

/*
 * c += alpha * a x b (poplin::matMulAcc): the products always go to float
 * partials, and the reduce stage adds alpha times their sum into c in
 * place, where the plan puts each share of the output (c keeps its own
 * mapping; elements held elsewhere are exchanged in and out).
 */
TSI_API int tsi_poplin_matmul_acc(tsi_graph *graph, const tsi_tensor *c, float alpha,
                                  const tsi_tensor *a, const tsi_tensor *b, tsi_program *seq,
                                  const char *debug_name)
{
	mm_ctx ctx = {graph, "tsi_poplin_matmul_acc", debug_name ? debug_name : "MatMulAcc",
	              TSI_FLOAT, 0, 0, 0, {0}, 1};
	TSI_OPS_DEBUG(graph, ctx.name, "poplin", "poplin::matMulAcc");
	tsi_compute_set *cs[2];
	tsi_tensor *partials, *alpha_t;
	char sc[96];
	int rc;

	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_poplin_matmul_acc: graph is NULL");
	if ((rc = check_operands(&ctx, a, b, seq)) != 0)
		return rc;
	if (!c)
		return tsi_ops_null_arg_echo(graph, ctx.api, ctx.name, "c");
	tsi_ops_format_shape_in(sc, sizeof(sc), c, '[', ']');
	if (tsi_tensor_rank(c) != 2 || tsi_tensor_dim(c, 0) != ctx.m ||
	    tsi_tensor_dim(c, 1) != ctx.n || tsi_tensor_type(c) != ctx.type)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': c (%s %s of %s) must be [%zu,%zu] of %s, the type and "
		                      "shape of a x b",
		                      ctx.api, ctx.name, tsi_tensor_describe(c), sc,
		                      tsi_type_name(tsi_tensor_type(c)), ctx.m, ctx.n,
		                      tsi_type_name(ctx.type));
	if (tsi_tensor_is_constant(c))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': c (%s) is a constant; it must be writable", ctx.api,
		                      ctx.name, tsi_tensor_describe(c));
	if ((rc = mm_plan(&ctx)) != 0)
		return rc;
	partials = add_var(&ctx, TSI_FLOAT, TSI_SHAPE(ctx.plan.k_split, ctx.m, ctx.n), "/partials");
	alpha_t = alpha_constant(&ctx, alpha);
	cs[0] = add_cs(&ctx, "/Partials");
	cs[1] = add_cs(&ctx, "/Reduce");
	if (!partials || !alpha_t || !cs[0] || !cs[1])
		return tsi_ops_failed(graph);
	if ((rc = build_products(&ctx, cs[0], a, b, partials, true)) != 0 ||
	    (rc = build_reduce(&ctx, cs[1], partials, c,
	                       ctx.type == TSI_HALF ? REDUCE_TO_HALF_NAME : REDUCE_TO_NAME, alpha_t,
	                       false)) != 0)
		return rc;
	return append_steps(graph, seq, cs, 2);
}

/*
 * A matmul operand laid out as the plan wants it (as poplin's
 * createMatMulInputLHS/RHS): a [rows, cols] variable "name" whose
 * rows * cols elements hold the plan's blocks one after the other, each
 * block row-major, returned as the [rows, cols] view of the blocks. A block is so one contiguous run
 * (gathered in one copy rather than one per row), and is spread in equal
 * parts over the `spread` tiles that read it (n_split tiles for an A
 * block, m_split for a B block), so each tile holds a share of what it
 * multiplies.
 */
static tsi_tensor *create_input(tsi_graph *graph, const char *api, bool lhs, tsi_type type,
                                size_t m, size_t k, size_t n, const char *name)
{
	mm_ctx c = {graph, api, name ? name : lhs ? "lhs" : "rhs", type, m, k, n, {0}, 1};
	const size_t rows = lhs ? m : k, cols = lhs ? k : n;
	size_t row_parts, col_parts, spread, off = 0;
	tsi_tensor **pieces = NULL, **row_pieces, *var, *result = NULL;

	if (!graph) {
		tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", api);
		return NULL;
	}
	if ((type != TSI_FLOAT && type != TSI_HALF) || m == 0 || k == 0 || n == 0) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': cannot plan a %s matmul [%zu,%zu] x [%zu,%zu] (float or half, "
		               "no empty dimension)",
		               api, c.name, tsi_type_name(type), m, k, k, n);
		return NULL;
	}
	if (mm_plan(&c))
		return NULL;
	row_parts = lhs ? c.plan.m_split : c.plan.k_split;
	col_parts = lhs ? c.plan.k_split : c.plan.n_split;
	spread = lhs ? c.plan.n_split : c.plan.m_split;
	/* The caller's name, or the operation's default ("lhs", "rhs") rather
	 * than an anonymous "var<N>". The variable has the operand's shape, as
	 * the profile lists poplin's weights; its elements are stored block
	 * after block (each block row-major) so that a tile's share is one
	 * run, and the operand returned is the view that puts them in place. */
	var = tsi_graph_add_variable(graph, type, TSI_SHAPE(rows, cols), c.name);
	var = var ? tsi_tensor_flatten(var) : NULL;
	pieces = calloc(col_parts + row_parts, sizeof(*pieces));
	if (!var)
		goto done;
	if (!pieces) {
		mm_oom(&c);
		goto done;
	}
	row_pieces = pieces + col_parts;
	for (size_t i = 0; i < row_parts; i++) {
		size_t r0, r1;

		part_range(rows, row_parts, i, &r0, &r1);
		for (size_t j = 0; j < col_parts; j++) {
			const size_t *shape;
			tsi_tensor *run;
			size_t c0, c1, len;

			part_range(cols, col_parts, j, &c0, &c1);
			len = (r1 - r0) * (c1 - c0);
			run = tsi_tensor_slice(var, off, off + len);
			shape = (const size_t[]){r1 - r0, c1 - c0};
			pieces[j] = tsi_tensor_reshape(run, 2, shape);
			if (!pieces[j])
				goto done;
			for (size_t s = 0; s < spread; s++) {
				unsigned tile = lhs ? task_tile(&c.plan, i, j, s) : task_tile(&c.plan, s, i, j);
				size_t e0, e1;

				part_range(len, spread, s, &e0, &e1);
				if (e0 < e1 && tsi_graph_set_tile_mapping(graph, tsi_tensor_slice(run, e0, e1),
				                                          tile))
					goto done;
			}
			off += len;
		}
		row_pieces[i] = col_parts == 1 ? pieces[0] : tsi_tensor_concat(pieces, col_parts, 1);
		if (!row_pieces[i])
			goto done;
	}
	result = row_parts == 1 ? row_pieces[0] : tsi_tensor_concat(row_pieces, row_parts, 0);
done:
	free(pieces);
	return result;
}

/* The left operand [m, k] (poplin::createMatMulInputLHS). */
TSI_API tsi_tensor *tsi_poplin_create_matmul_input_lhs(tsi_graph *graph, tsi_type type, size_t m,
                                                       size_t k, size_t n, const char *name)
{
	TSI_OPS_DEBUG(graph, name ? name : "lhs", "poplin", "poplin::createMatMulInputLHS");
	return create_input(graph, "tsi_poplin_create_matmul_input_lhs", true, type, m, k, n, name);
}

/* The right operand [k, n] (poplin::createMatMulInputRHS). */
TSI_API tsi_tensor *tsi_poplin_create_matmul_input_rhs(tsi_graph *graph, tsi_type type, size_t m,
                                                       size_t k, size_t n, const char *name)
{
	TSI_OPS_DEBUG(graph, name ? name : "rhs", "poplin", "poplin::createMatMulInputRHS");
	return create_input(graph, "tsi_poplin_create_matmul_input_rhs", false, type, m, k, n, name);
}
