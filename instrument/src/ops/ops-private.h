/*
 * Helpers shared by the operation libraries of instrument/src/ops (popops,
 * popnn, poplin, poprand): how an operation finds the tiles to work on,
 * cuts that work into per-worker pieces, makes views of exactly those
 * pieces, and reports errors the same way everywhere. Defined in
 * ops-util.c, apart from the codelet registration hooks at the end
 * (popops-convert.c and popops-reduce.c). Nothing here is visible to
 * models.
 */
#pragma once

#include "../ipu-private.h"
#include "tilescope/popops.h"

/* --- Errors ------------------------------------------------------------------ */

/* Records "out of host memory in <api>" in the graph; returns TSI_ERR_NO_MEMORY. */
int tsi_ops_oom(tsi_graph *graph, const char *api);

/* Records "<api> '<name>': out of host memory" in the graph (the form
 * popnn, poprand and poplin use); returns TSI_ERR_NO_MEMORY. */
int tsi_ops_oom_in(tsi_graph *graph, const char *api, const char *name);

/* The code to return after a graph call failed: the graph's recorded error,
 * or TSI_ERR_NO_MEMORY when none was recorded. */
int tsi_ops_failed(const tsi_graph *graph);

/*
 * The common prologue for a NULL argument (tensor, program or compute
 * set) named `what`: records "<api> '<name>': <what> is NULL" unless the
 * graph already holds an error (then the NULL is the echo of that error
 * and passes quietly). Returns TSI_ERR_INVALID_GRAPH when quiet, else
 * TSI_ERR_INVALID_ARGUMENT.
 */
int tsi_ops_null_arg(tsi_graph *graph, const char *api, const char *name, const char *what);

/* The same, but a quiet NULL returns the code of the error the graph
 * already holds, as popnn, poprand and poplin report it. */
int tsi_ops_null_arg_echo(tsi_graph *graph, const char *api, const char *name,
                          const char *what);

/* --- Debug contexts ------------------------------------------------------------ */

/* An operation's debug context while it builds (see TSI_OPS_DEBUG). */
typedef struct tsi_ops_debug {
	tsi_graph *graph;
	tsi_debug_id id; /* 0 when none was opened (NULL graph, out of memory) */
} tsi_ops_debug;

/* Opens the context of operation `api` (Poplar's name: "popops::add") of
 * library `layer` ("popops"), named `name`: the debug name the caller
 * gave, or the operation's default name. */
tsi_ops_debug tsi_ops_debug_begin(tsi_graph *graph, const char *name, const char *layer,
                                  const char *api);
/* Closes a context opened by tsi_ops_debug_begin (a cleanup handler, so
 * it takes a pointer); nothing when none was opened. */
void tsi_ops_debug_end(tsi_ops_debug *d);

/*
 * Opens the operation's debug context for the rest of the enclosing block
 * and closes it when the block is left, by whichever return: operations
 * have many early error returns, and a context left open would swallow
 * everything the model builds afterwards (GCC's and Clang's cleanup
 * attribute). Everything the operation makes, including through other
 * public operations it calls, belongs to the context or its children.
 */
#define TSI_OPS_DEBUG(graph, name, layer, api)                                       \
	tsi_ops_debug tsi_ops_debug_scope_ __attribute__((cleanup(tsi_ops_debug_end))) = \
	    tsi_ops_debug_begin((graph), (name), (layer), (api))

/* Writes a tensor's shape as "{2,3}" ("{}" for rank 0) into buf and
 * returns buf (for use inside a message's arguments). */
const char *tsi_ops_format_shape(char *buf, size_t size, const tsi_tensor *t);

/* The same between other brackets: `open` and `close` ('[' and ']' give
 * "[2,3]", as poplin writes shapes). */
const char *tsi_ops_format_shape_in(char *buf, size_t size, const tsi_tensor *t, char open,
                                    char close);

/* The codelet `type_name`, or NULL with TSI_ERR_UNKNOWN_VERTEX_TYPE
 * recorded (naming `api` and the operation, and saying to call
 * tsi_popops_add_codelets or the library's own add_codelets `adder`). */
const tsi_codelet *tsi_ops_require_codelet(tsi_graph *graph, const char *api, const char *name,
                                           const char *type_name, const char *adder);

/* "<prefix>/<suffix>" in the graph's arena (NULL on OOM, recorded). */
char *tsi_ops_name(tsi_graph *graph, const char *prefix, const char *suffix);

/* Registers the entries of a codelet table with a name, in order; zeroed
 * entries (unsupported combinations) are skipped. Stops at the first
 * failure and returns its code. */
int tsi_ops_add_codelet_table(tsi_graph *graph, const tsi_codelet *table, size_t n);

/* --- Tensors ----------------------------------------------------------------- */

/* True when some element of `t` belongs to a constant. */
bool tsi_ops_touches_constant(const tsi_tensor *t);

/* True when some variable element appears twice in `t` (a broadcast or
 * otherwise aliasing view), so writing through it is ill-defined. */
bool tsi_ops_has_aliases(const tsi_tensor *t);

/* True when `b` broadcasts to `shape` by numpy's rules (trailing
 * dimensions equal or 1, missing leading dimensions). */
bool tsi_ops_broadcastable(const tsi_tensor *b, size_t rank, const size_t *shape);

/* The view of `b` broadcast to `shape` (tsi_tensor_expand and
 * tsi_tensor_broadcast; no copy). `b` itself when the shapes agree. NULL
 * when a view fails (recorded). Check tsi_ops_broadcastable() first. */
const tsi_tensor *tsi_ops_broadcast(const tsi_tensor *b, size_t rank, const size_t *shape);

/* --- Where the work goes ------------------------------------------------------- */

/*
 * The tiles that work on the elements of `t`: its tile mapping as
 * intervals sorted by tile, then position, with elements that have no
 * tile spread linearly over the graph's tiles (as tsi_graph_map_linearly
 * with grain 1 would place them). The caller frees *out with free().
 * Returns TSI_OK or a negative code (recorded).
 */
int tsi_ops_work_intervals(tsi_graph *graph, const tsi_tensor *t, tsi_mapping_interval **out,
                           size_t *count);

/* Maps `dst` (a flat tensor of t's element count) onto the tiles of the
 * intervals iv[0..n) (from tsi_ops_work_intervals of t). */
int tsi_ops_map_intervals(tsi_graph *graph, const tsi_tensor *dst, const tsi_mapping_interval *iv,
                          size_t n);

/* qsort order of mapping intervals: by tile, then by position, so the
 * intervals of one tile are adjacent and in element order. */
int tsi_ops_interval_cmp(const void *pa, const void *pb);

/* How many worker vertices `n` elements on one tile are split into: one
 * per 64 elements, at most the target's worker contexts (6), at least 1. */
size_t tsi_ops_worker_count(const tsi_graph *graph, size_t n);

/* Elements per worker piece when `n` elements go to `workers` vertices:
 * an even share rounded up to a multiple of 4 (a 64-bit vector of halves). */
size_t tsi_ops_worker_chunk(size_t n, size_t workers);

/* Worker contexts of a tile of `target`, for cycle estimators: 6 (every
 * IPU's count) when there is no target or it says 0. */
unsigned tsi_ops_target_workers(const tsi_target *target);

/*
 * A constant of `n` elements of `type`, all equal to `value`, element i
 * mapped on tiles[i]: the per-tile copy of a value that real Poplar keeps
 * in each vertex's state (a scale, a fill value). Named `name`.
 */
tsi_tensor *tsi_ops_tile_constants(tsi_graph *graph, tsi_type type, double value,
                                   const unsigned *tiles, size_t n, const char *name);

/* --- Views of element ranges ------------------------------------------------- */

/* A run of elements of a flat tensor: [begin, begin + len). */
typedef struct tsi_ops_range {
	size_t begin;
	size_t len;
} tsi_ops_range;

/*
 * Makes rank-1 views of chosen element ranges of one flat tensor without
 * rescanning it for every view (tsi_tensor_slice and concat cost a pass
 * over the whole region list each time, which is quadratic when a tensor
 * is cut into a piece per tile and worker).
 */
typedef struct tsi_ops_viewer {
	const tsi_tensor *flat; /* the source, rank 1 */
	size_t *start;          /* n_regions + 1 prefix sums of region lengths (malloc) */
	tsi_region *buf;        /* scratch for the view being built (malloc) */
	size_t cap;             /* entries of buf */
} tsi_ops_viewer;

/* Prepares a viewer over the rank-1 tensor `flat`. */
int tsi_ops_viewer_init(tsi_ops_viewer *v, tsi_graph *graph, const tsi_tensor *flat);
/* The concatenation of ranges r[0..n) of the source (in that order), as a
 * rank-1 tensor in the graph's arena; NULL on error (recorded). */
tsi_tensor *tsi_ops_view(tsi_ops_viewer *v, const tsi_ops_range *r, size_t n);
/* Frees the viewer's scratch (not the views). */
void tsi_ops_viewer_free(tsi_ops_viewer *v);

/* --- Elementwise operations (popops.c, popops-convert.c) ---------------------- */

/*
 * What an elementwise operation connects: tensors[i] goes to codelet
 * field i. A vector field gets the part of its (flat) tensor that the
 * vertex works on; a scalar field with a tensor gets that one element in
 * every vertex; a field with no tensor gets the per-tile constant
 * (`const_value` converted to the field's type), as Poplar keeps such a
 * value in the vertex state.
 */
typedef struct tsi_ops_ew_work {
	const tsi_codelet *codelet;
	const tsi_tensor *tensors[4];
	bool per_tile;       /* one vertex per tile (supervisor codelets) */
	double const_value;  /* for the field without a tensor */
	const char *const_name;
} tsi_ops_ew_work;

/*
 * Adds a compute set named `name` with the vertices of `w` over the work
 * intervals of `layout`, and its execution to `seq`: the elements of each
 * tile cut into worker pieces (tsi_ops_worker_count,
 * tsi_ops_worker_chunk), one vertex per piece on that tile; with
 * w->per_tile one vertex per tile. Returns TSI_OK or a negative code
 * (recorded in the graph).
 */
int tsi_ops_run_elementwise(tsi_graph *graph, tsi_program *seq, const char *name,
                            const tsi_ops_ew_work *w, const tsi_tensor *layout);

/*
 * Makes the variable "<prefix>/out" of `type` with t's shape, mapped
 * like t, and returns it with t's work intervals (the caller frees *iv)
 * and its flat view. NULL on error (recorded).
 */
tsi_tensor *tsi_ops_result_like(tsi_graph *graph, const tsi_tensor *t, tsi_type type,
                                const char *prefix, tsi_mapping_interval **iv, size_t *n_iv,
                                const tsi_tensor **out_flat);

/*
 * The common form of an operation with a new result: makes "<prefix>/out"
 * of `type` with a's shape, mapped like `a` (tsi_ops_result_like), and
 * adds to `cs` the vertices of `codelet` whose fields are a, then b when
 * it is not NULL (already flat and as long as a), then the result.
 * Returns the result, or NULL with the error recorded.
 */
tsi_tensor *tsi_ops_ew_result(tsi_graph *graph, tsi_compute_set *cs, const tsi_codelet *codelet,
                              const tsi_tensor *a, const tsi_tensor *b, tsi_type type,
                              const char *prefix);

/* Checks that `t` may be written in place by `api` '`name`': not a
 * constant and no element twice. Returns TSI_OK or the recorded error. */
int tsi_ops_check_writable(tsi_graph *graph, const char *api, const char *name,
                           const tsi_tensor *t);

/* --- Device code shared by the popops files ----------------------------------- */

/* Kernels are written once, generic over the operation and element type,
 * and instantiated per codelet with constant arguments; forcing the
 * inlining lets the compiler fold the switches out of the loops. */
#define TSI_OPS_ALWAYS_INLINE static inline __attribute__((always_inline))

/* The element types the arithmetic codelets (maps, scaled add, one-hot,
 * reductions) exist for, in the order of their codelet tables. Unsigned
 * int is costed as int (no SIMD either) and wraps modulo 2^32 as C's
 * unsigned arithmetic does; a table may leave its column zeroed where
 * Poplar has no unsigned vertex (power, negate, one-hot ...). */
enum tsi_ops_elem {
	TSI_OPS_FLOAT = 0,
	TSI_OPS_HALF,
	TSI_OPS_INT,
	TSI_OPS_UINT,
	TSI_OPS_ELEM_COUNT
};

/* The codelet-table column of `type` (enum tsi_ops_elem), or -1 when
 * there is none. */
int tsi_ops_elem_index(tsi_type type);

/* Writes the names of the element types whose bit (1 << enum
 * tsi_ops_elem) is set in `mask` as a list for a message ("float, half
 * or int") into buf and returns buf. */
const char *tsi_ops_elem_list(char *buf, size_t size, unsigned mask);

/* Cycles of a worker's inner loop over `n` elements in steps of `per`
 * elements, `cycles` each. */
static inline uint64_t tsi_ops_steps(size_t n, unsigned per, unsigned cycles)
{
	return (uint64_t)cycles * ((n + per - 1) / per);
}

/* --- Codelet registration hooks (parts of tsi_popops_add_codelets) ----------- */

/* Registers the fill, cast and one-hot codelets (popops-convert.c). */
int tsi_ops_convert_add_codelets(tsi_graph *graph);

/* Registers the reduction codelets (popops-reduce.c). */
int tsi_ops_reduce_add_codelets(tsi_graph *graph);
