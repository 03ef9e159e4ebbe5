/*
 * The graph: variables and constants, their tile mapping, tensor views,
 * data streams, remote buffers, host read/write handles, virtual and
 * replicated graphs.
 *
 * Ownership: the graph owns every object created from it (tensors,
 * compute sets, vertices, streams, programs ...); they live until
 * tsi_graph_free() of the top-level graph. Nothing returned here is freed
 * by the caller unless its comment says so.
 *
 * Errors while building (a slice out of range, a tile beyond the target,
 * two tensors of different types concatenated) are recorded in the graph,
 * cairo-style: the failing call returns NULL (or a negative code), every
 * later call given that NULL returns NULL quietly, and tsi_graph_get_error()
 * holds the first message. tsi_engine_new() refuses a graph with an error.
 */
#pragma once

#include "target.h"
#include "types.h"

TSB_BEGIN_DECLS

typedef struct tsi_graph tsi_graph;
typedef struct tsi_tensor tsi_tensor;
typedef struct tsi_stream tsi_stream;
typedef struct tsi_remote_buffer tsi_remote_buffer;

/* Creates a graph for `target` with `replication_factor` replicas (1: not
 * replicated). A replicated graph's own target has num_tiles /
 * replication_factor tiles (whole IPUs per replica); every replica holds
 * its own copy of every variable. The caller frees with tsi_graph_free().
 * On failure returns a negative code and tsi_error_last() says why. */
TSI_API int tsi_graph_new(tsi_graph **out, const tsi_target *target,
                          unsigned replication_factor);
/* Frees a top-level graph and everything made from it (virtual graphs
 * included). NULL is ignored; a virtual graph is ignored too. */
TSI_API void tsi_graph_free(tsi_graph *graph);
/* The graph's own target: for a virtual graph, its tile range; for a
 * replicated graph, one replica's tiles. Borrowed. */
TSI_API const tsi_target *tsi_graph_get_target(const tsi_graph *graph);
TSI_API unsigned tsi_graph_get_replication_factor(const tsi_graph *graph);

/* A virtual graph over tiles [lo, hi) of `graph`: tile t of the new graph
 * is tile lo + t of its parent. Objects added to it appear in the parent. */
TSI_API tsi_graph *tsi_graph_create_virtual(tsi_graph *graph, unsigned lo, unsigned hi);
/* The virtual graph's first tile in top-level numbering (0 for a top-level graph). */
TSI_API unsigned tsi_graph_get_tile_offset(const tsi_graph *graph);

/* First error recorded while building: "" when none (and for a NULL
 * graph), never NULL; tsi_graph_error_code() is TSI_OK then. */
TSI_API const char *tsi_graph_get_error(const tsi_graph *graph);
/* Until 0.2 this returned NULL when there was no error, then "" under the
 * same name, so `if (tsi_graph_error(g))` compiled and took every graph
 * for failed. The name is gone, so that such code fails to compile. */
#if defined(__has_attribute)
#if __has_attribute(unavailable)
const char *tsi_graph_error(const tsi_graph *graph) __attribute__((unavailable(
	"tsi_graph_error() is now tsi_graph_get_error(), which returns \"\" (never NULL) "
	"when the graph has no error: test its first character, or tsi_graph_error_code()")));
#endif
#endif
TSI_API int tsi_graph_error_code(const tsi_graph *graph);

/* --- Variables and constants ------------------------------------------ */

/* Adds a variable of `rank` dimensions (use TSI_SHAPE). `name` names it
 * in reports, prefixed with the path of the model's open debug contexts
 * ("fc1/W" inside tsi_debug_push(g, "fc1", ...), see debug.h); NULL gives
 * "var<N>". At most UINT32_MAX elements. Returns NULL on error. */
TSI_API tsi_tensor *tsi_graph_add_variable(tsi_graph *graph, tsi_type type, size_t rank,
                                           const size_t *shape, const char *name);
/* Adds a constant whose `values` are host elements of the device type
 * (uint16_t bit patterns for HALF, one byte per BOOL), row-major. */
TSI_API tsi_tensor *tsi_graph_add_constant(tsi_graph *graph, tsi_type type, size_t rank,
                                           const size_t *shape, const void *values,
                                           const char *name);
/* Adds a constant from float values converted to `type`. */
TSI_API tsi_tensor *tsi_graph_add_constant_float(tsi_graph *graph, tsi_type type, size_t rank,
                                                 const size_t *shape, const float *values,
                                                 const char *name);
/* Adds a constant with every element equal to `value` (converted). */
TSI_API tsi_tensor *tsi_graph_add_constant_fill(tsi_graph *graph, tsi_type type, size_t rank,
                                                const size_t *shape, double value,
                                                const char *name);

/* --- Tile mapping -------------------------------------------------------- */

/* Maps every element of `tensor` (a variable or any view of one) to `tile`
 * of this graph. Returns TSI_OK or a negative code (also recorded). */
TSI_API int tsi_graph_set_tile_mapping(tsi_graph *graph, const tsi_tensor *tensor, unsigned tile);
/* Spreads `tensor` linearly over the graph's tiles in chunks of at least
 * `grain` elements (poputil::mapTensorLinearly). */
TSI_API int tsi_graph_map_linearly(tsi_graph *graph, const tsi_tensor *tensor, size_t grain);

/* One run of consecutive elements of a tensor (in its row-major order)
 * that live on one tile. Tiles are in this graph's numbering; elements
 * with no tile have tile == TSI_NO_TILE. */
typedef struct tsi_mapping_interval {
	unsigned tile;
	size_t begin; /* first element (inclusive) */
	size_t end;   /* last element (exclusive) */
} tsi_mapping_interval;
#define TSI_NO_TILE 0xffffffffu /* (unsigned)TSI_NONE */

/* The tile mapping of `tensor` as intervals in element order, adjacent
 * elements on one tile merged. The caller frees *out with free(). */
TSI_API int tsi_graph_list_tile_mapping(tsi_mapping_interval **out, size_t *count,
                                       const tsi_graph *graph, const tsi_tensor *tensor);
/* The tile of element `index` of `tensor`, or TSI_NO_TILE. */
TSI_API unsigned tsi_graph_get_tile_of(const tsi_graph *graph, const tsi_tensor *tensor,
                                       size_t index);
/* True when every element of `tensor` has a tile. */
TSI_API bool tsi_graph_is_mapped(const tsi_graph *graph, const tsi_tensor *tensor);

/* --- Tensors and views --------------------------------------------------- */
/* A view never copies data: it references elements of variables. Views of
 * views compose. All take NULL and return NULL. */

TSI_API tsi_type tsi_tensor_type(const tsi_tensor *t);
TSI_API size_t tsi_tensor_rank(const tsi_tensor *t);
TSI_API size_t tsi_tensor_dim(const tsi_tensor *t, size_t dim);
TSI_API size_t tsi_tensor_numel(const tsi_tensor *t);
/* Copies the shape into `shape` (TSI_MAX_RANK entries) and returns the rank. */
TSI_API size_t tsi_tensor_fill_shape(size_t *shape, const tsi_tensor *t);
/* The graph the tensor was made in. */
TSI_API tsi_graph *tsi_tensor_graph(const tsi_tensor *t);
/* The name of the variable a tensor was created as (with its debug
 * context path, debug.h), also for a view that holds all of one variable
 * rearranged (what tsi_poplin_create_matmul_input_lhs/rhs return); NULL
 * for any other view. */
TSI_API const char *tsi_tensor_name(const tsi_tensor *t);
/* True when the tensor's elements are one contiguous run of one variable. */
TSI_API bool tsi_tensor_is_contiguous(const tsi_tensor *t);
/* True when every element belongs to a constant. */
TSI_API bool tsi_tensor_is_constant(const tsi_tensor *t);

/* t[i]: drops the first dimension (a scalar view of rank 0 from rank 1). */
TSI_API tsi_tensor *tsi_tensor_index(const tsi_tensor *t, size_t i);
/* Elements [begin, end) of the first dimension. */
TSI_API tsi_tensor *tsi_tensor_slice(const tsi_tensor *t, size_t begin, size_t end);
/* Elements [begin, end) of dimension `dim`. */
TSI_API tsi_tensor *tsi_tensor_slice_dim(const tsi_tensor *t, size_t begin, size_t end,
                                         size_t dim);
/* Multi-dimensional slice: [begin[d], end[d]) in each of the first `n` dims. */
TSI_API tsi_tensor *tsi_tensor_slice_md(const tsi_tensor *t, const size_t *begin,
                                        const size_t *end, size_t n);
/* Same elements, new shape (the element counts must agree). */
TSI_API tsi_tensor *tsi_tensor_reshape(const tsi_tensor *t, size_t rank, const size_t *shape);
/* One dimension. */
TSI_API tsi_tensor *tsi_tensor_flatten(const tsi_tensor *t);
/* Reverses the two dimensions of a rank-2 tensor. */
TSI_API tsi_tensor *tsi_tensor_transpose(const tsi_tensor *t);
/* Dimension d of the result is dimension perm[d] of `t`. */
TSI_API tsi_tensor *tsi_tensor_dim_shuffle(const tsi_tensor *t, const size_t *perm);
/* Joins `n` tensors of one type along `dim` (other dims must agree). */
TSI_API tsi_tensor *tsi_tensor_concat(tsi_tensor *const *ts, size_t n, size_t dim);
/* Shorthand for two. */
TSI_API tsi_tensor *tsi_tensor_concat2(const tsi_tensor *a, const tsi_tensor *b, size_t dim);
/* Repeats `t` `n` times along `dim` (Poplar's Tensor::broadcast). */
TSI_API tsi_tensor *tsi_tensor_broadcast(const tsi_tensor *t, size_t n, size_t dim);
/* Inserts a dimension of size 1 before `dim`. */
TSI_API tsi_tensor *tsi_tensor_expand(const tsi_tensor *t, size_t dim);

/* --- Streams, remote buffers and host handles ---------------------------- */

typedef enum tsi_replication_mode {
	TSI_REPLICATED_STREAM_BROADCAST = 0, /* one host buffer feeds every replica */
	TSI_REPLICATED_STREAM_PER_REPLICA    /* each replica has its own host buffer */
} tsi_replication_mode;

/* A host-to-device FIFO moving `numel` elements of `type` per copy. */
TSI_API tsi_stream *tsi_graph_add_host_to_device_fifo(tsi_graph *graph, const char *name,
                                                      tsi_type type, size_t numel,
                                                      tsi_replication_mode mode);
/* A device-to-host FIFO (each replica has its own host buffer). */
TSI_API tsi_stream *tsi_graph_add_device_to_host_fifo(tsi_graph *graph, const char *name,
                                                      tsi_type type, size_t numel);
/* Off-chip storage of `repeats` rows of `numel` elements (per replica). */
TSI_API tsi_remote_buffer *tsi_graph_add_remote_buffer(tsi_graph *graph, const char *name,
                                                       tsi_type type, size_t numel,
                                                       size_t repeats);
/* Named handles for tsi_engine_write_tensor / tsi_engine_read_tensor. */
TSI_API int tsi_graph_create_host_write(tsi_graph *graph, const char *handle,
                                        const tsi_tensor *tensor);
TSI_API int tsi_graph_create_host_read(tsi_graph *graph, const char *handle,
                                       const tsi_tensor *tensor);

TSB_END_DECLS
