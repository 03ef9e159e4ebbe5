/*
 * The runtime's private data model: how graphs, variables, tensor views,
 * vertices, streams and programs are held in memory. Shared by every file
 * of instrument/src; nothing here is visible to models.
 *
 * Memory: small objects that live as long as the graph (tensors, names,
 * vertices, programs) are carved from the graph's arena and never freed
 * one by one; growable arrays (tsi_vec) and variable payloads use malloc
 * and are released by tsi_graph_free().
 *
 * Tile numbers: variables and vertices store tiles in the numbering of the
 * top-level graph (0 .. core->target.num_tiles), which for a replicated
 * graph is one replica's tiles. A virtual graph adds its tile_lo when it
 * maps something.
 */
#pragma once

#define TSI_BUILDING_LIBRARY 1
#include "tilescope/ipu.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

/* --- Small utilities (util.c) -------------------------------------------- */

typedef struct tsi_arena_block tsi_arena_block;
typedef struct tsi_arena {
	tsi_arena_block *head;
	size_t used_bytes; /* total handed out, for diagnostics */
} tsi_arena;

/* Zeroed, 16-byte aligned memory that lives until tsi_arena_clear(). NULL on OOM. */
void *tsi_arena_alloc(tsi_arena *arena, size_t bytes);
/* The same, aligned to 8 bytes only (for records of pointers and sizes). */
void *tsi_arena_alloc8(tsi_arena *arena, size_t bytes);
char *tsi_arena_strdup(tsi_arena *arena, const char *s);
char *tsi_arena_printf(tsi_arena *arena, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tsi_arena_clear(tsi_arena *arena);

/* A growable array of pointers. */
typedef struct tsi_vec {
	void **items;
	size_t len;
	size_t cap;
} tsi_vec;

/* Appends; returns TSI_OK or TSI_ERR_NO_MEMORY. */
int tsi_vec_push(tsi_vec *vec, void *item);
void tsi_vec_clear(tsi_vec *vec);

/* --- The runtime's own tracepoints (channel "Poplar") --------------------- */

/* Begins a span on the Poplar channel named by a printf format; the name
 * is only formatted while a trace is recording, so a disabled trace costs
 * one branch. End with TSI_TRACE_END(). */
#define TSI_TRACE_BEGINF(...)                                                  \
	do {                                                                   \
		if (pvti_recording_()) {                                       \
			char tsi_trace_name_[192];                             \
			snprintf(tsi_trace_name_, sizeof(tsi_trace_name_), __VA_ARGS__); \
			pvti_begin(pvti_channel_poplar(), tsi_trace_name_);    \
		}                                                              \
	} while (0)
#define TSI_TRACE_END() pvti_end(pvti_channel_poplar())

/* Ends the graph's "Graph construction" span if it is open on this thread
 * (graph.c). */
struct tsi_graph_core;
void tsi_graph_trace_construction_end(struct tsi_graph_core *core);

/* The thread-local last error: tsi_set_error() (tilescope/error.h,
 * libtilescope-base). */

/* --- Variables, tensors -------------------------------------------------- */

/* A run of a variable's tile map: elements from `begin` up to the next
 * run's begin (or the end) are on `tile` (TSI_NO_TILE: unmapped). */
typedef struct tsi_tile_run {
	uint32_t begin;
	uint32_t tile;
} tsi_tile_run;

typedef struct tsi_var {
	uint32_t id;         /* index in core->vars */
	const char *name;    /* arena */
	tsi_type type;
	size_t rank;
	size_t shape[TSI_MAX_RANK];
	size_t numel;
	bool is_constant;
	void *init;          /* constants: numel elements (malloc); else NULL */
	/* The tile map (tile-map.c): canonical runs (the first begins at 0,
	 * neighbours differ in tile), none when numel is 0. Malloc. */
	tsi_tile_run *tile_runs;
	uint32_t n_tile_runs, cap_tile_runs;
	uint32_t debug_id;   /* debug context open when it was made, 0: none */
} tsi_var;

/* The tile map of a variable (tile-map.c). init: every element unmapped;
 * set_tiles: elements [begin, begin + len) on `tile`; set_tiles_from: the
 * tile of each element from a table of numel entries. TSI_OK or
 * TSI_ERR_NO_MEMORY (the map is unchanged). */
int tsi_var_tiles_init(tsi_var *v);
void tsi_var_tiles_free(tsi_var *v);
int tsi_var_set_tiles(tsi_var *v, size_t begin, size_t len, uint32_t tile);
int tsi_var_set_tiles_from(tsi_var *v, const uint32_t *tiles);

/* Index of the run holding element `i` (< numel). */
static inline size_t tsi_var_tile_run_index(const tsi_var *v, size_t i)
{
	size_t lo = 0, hi = v->n_tile_runs;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->tile_runs[mid].begin <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* The tile of element `i` (< numel) of `v`; *stop becomes the end of the
 * stretch of elements on that tile from i, capped at `limit`. Walks over
 * [a, b) step i = *stop with limit b. */
static inline uint32_t tsi_var_tile_at(const tsi_var *v, size_t i, size_t limit, size_t *stop)
{
	size_t r = tsi_var_tile_run_index(v, i);
	size_t end = r + 1 < v->n_tile_runs ? v->tile_runs[r + 1].begin : v->numel;

	*stop = end < limit ? end : limit;
	return v->tile_runs[r].tile;
}

/* A run of consecutive elements of one variable. 16 bytes: views of large
 * models hold tens of millions of them. A variable has at most UINT32_MAX
 * elements (graph.c), so a run's length fits 32 bits. */
typedef struct tsi_region {
	uint32_t var;  /* variable id */
	uint32_t len;  /* elements, >= 1 */
	size_t begin;  /* first element in the variable */
} tsi_region;

/* A tensor is a view: a shape plus the list of variable regions that hold
 * its elements in row-major order. Made in the arena, immutable, and sized
 * to what it holds: `rank` dimensions, and (unless it shares another
 * tensor's list) its regions right behind them in the same allocation.
 * Large models make ten million views, one or more per vertex field, so
 * every byte of this header counts: 40 bytes plus 8 per dimension. */
struct tsi_tensor {
	tsi_graph *graph;
	tsi_region *regions; /* arena; adjacent regions of one variable merged */
	size_t numel;
	uint32_t n_regions;  /* at most UINT32_MAX (tensor.c refuses more) */
	int32_t var;         /* >= 0: this tensor is the whole variable `var` */
	tsi_type type;
	uint8_t rank;        /* <= TSI_MAX_RANK */
	bool scratch;        /* in the core's scratch arena (tsi_graph_scratch_begin) */
	size_t shape[];      /* rank entries */
};
_Static_assert(sizeof(struct tsi_tensor) == 40, "the tensor header grew");

/* Makes a tensor from a region list (copied into the arena; adjacent
 * regions merged). Returns NULL and records the error on failure. */
tsi_tensor *tsi_tensor_make(tsi_graph *graph, tsi_type type, size_t rank, const size_t *shape,
                            const tsi_region *regions, size_t n_regions);
/* The whole-variable tensor of `var` (never a scratch view). */
tsi_tensor *tsi_tensor_of_var(tsi_graph *graph, const tsi_var *var);

/*
 * Scratch views. Operations cut many views only to cut others from them
 * or to map them (a matmul's output block, flattened, then sliced per
 * worker): a third of a large model's views, which would otherwise live
 * as long as the graph. Between tsi_graph_scratch_begin() and the
 * matching tsi_graph_scratch_end() (they nest), every view is made in a
 * scratch arena that the outermost end frees; whatever stores a view for
 * later (a vertex field, a program, a host handle) stores
 * tsi_tensor_keep() of it, a copy in the graph's arena. Whole-variable
 * tensors are never scratch. A scratch view must not be returned out of
 * the scope: the views an operation returns are made outside it.
 */
void tsi_graph_scratch_begin(tsi_graph *graph);
/* Frees what slicing keeps (tsi_graph_core.slicer; NULL is fine). */
struct tsi_slicer;
void tsi_slicer_free(struct tsi_slicer *cache);
void tsi_graph_scratch_end(tsi_graph *graph);
/* `t` itself unless it is a scratch view, else an equal view in the
 * graph's arena (shared with an equal one made before when the view
 * cache still holds it). NULL stays NULL; NULL with the failure recorded
 * in the graph when out of memory. */
const tsi_tensor *tsi_tensor_keep(const tsi_tensor *t);

/* --- Vertices and codelets ----------------------------------------------- */

/* What one vertex field is connected to. */
typedef struct tsi_field_conn {
	const tsi_tensor **tensors; /* arena; one per sub-vector */
	size_t n;                   /* 0: not connected */
} tsi_field_conn;

struct tsi_compute_set {
	uint32_t id;
	const char *name;
	tsi_vec vertices; /* tsi_vertex* in addition order */
	uint32_t debug_id; /* debug context open when it was made (or, failing
	                      that, when its first Execute program was), 0: none */
};

/* A vertex and its field connections, one allocation of 48 bytes plus 16
 * per field: large models have millions. */
struct tsi_vertex {
	uint32_t id;                /* index in core->vertices */
	uint32_t tile;              /* TSI_NO_TILE until mapped */
	tsi_compute_set *cs;
	const char *type_name;      /* arena */
	const tsi_codelet *codelet; /* NULL: unknown type (compile error) */
	uint64_t cycle_estimate;
	bool has_cycle_estimate;
	tsi_field_conn fields[];    /* codelet->n_fields entries (none when codelet is NULL) */
};

/* --- Streams, remote buffers, host handles ------------------------------- */

struct tsi_stream {
	uint32_t id;
	const char *name;
	tsi_type type;
	size_t numel;
	bool to_device;             /* host-to-device */
	tsi_replication_mode mode;
};

struct tsi_remote_buffer {
	uint32_t id;
	const char *name;
	tsi_type type;
	size_t numel;   /* elements per row */
	size_t repeats; /* rows */
};

typedef struct tsi_host_handle {
	const char *name;
	const tsi_tensor *tensor;
	bool is_write;
} tsi_host_handle;

/* --- Programs ------------------------------------------------------------ */

struct tsi_program {
	uint32_t id;
	tsi_program_kind kind;
	tsi_graph *graph;
	const char *name;          /* NULL until named */
	tsi_vec steps;             /* SEQUENCE: tsi_program* */
	tsi_program *body;         /* REPEAT, WHILE: loop body; IF: then */
	tsi_program *cond;         /* WHILE: condition program */
	tsi_program *else_body;    /* IF: else (may be NULL); SWITCH: default (may be NULL) */
	uint64_t count;            /* REPEAT */
	const tsi_tensor *pred;    /* WHILE/IF predicate; SWITCH control; remote row offset */
	int64_t *case_values;      /* SWITCH (malloc via case_bodies growth, see program.c) */
	tsi_vec case_bodies;       /* SWITCH: tsi_program* */
	tsi_compute_set *cs;       /* EXECUTE */
	const tsi_tensor *src;     /* COPY, TENSOR_TO_*, PRINT */
	const tsi_tensor *dst;     /* COPY, *_TO_TENSOR, WRITE_UNDEF */
	tsi_stream *stream;        /* stream copies */
	tsi_remote_buffer *remote; /* remote copies */
	tsi_function *fn;          /* CALL */
	const char *title;         /* PRINT */
	tsi_sync_type sync;        /* SYNC */
	const struct tsi_collective *collective; /* COLLECTIVE: src -> dst */
	uint32_t debug_id;         /* debug context open when it was made, 0: none */
};

/* A cross-replica collective (ops/gcl.c builds it,
 * runtime/engine-collectives.c runs it, compiler/lower.c lowers it to a
 * GlobalExchange). */
typedef enum tsi_collective_kind {
	TSI_COLL_ALL_REDUCE = 0,
	TSI_COLL_REDUCE_SCATTER,
	TSI_COLL_ALL_GATHER,
	TSI_COLL_ALL_TO_ALL
} tsi_collective_kind;

typedef struct tsi_collective {
	tsi_collective_kind kind;
	int op;                /* tsi_collective_op (reductions) */
	int group_type;        /* tsi_comm_group_type */
	unsigned group_size;   /* replicas per group (resolved: ALL = replication) */
	/* REDUCE_SCATTER: the input's elements grouped by IPU. Segment i holds
	 * input positions seg_pos[seg_start[i] .. seg_start[i] + seg_len[i]);
	 * its output is out_len[i] = ceil(seg_len[i] / group_size) elements at
	 * out_start[i]. */
	unsigned n_segments;
	const size_t *seg_pos;
	const size_t *seg_start, *seg_len, *out_start, *out_len;
} tsi_collective;

/* Makes a COLLECTIVE program moving `src` to `dst` across replicas
 * (program.c); `coll` must live in the graph's arena. */
tsi_program *tsi_prog_collective(tsi_graph *graph, const tsi_tensor *src, const tsi_tensor *dst,
                                 const tsi_collective *coll);

struct tsi_function {
	uint32_t id;
	tsi_program *body;
};

/* --- Graphs -------------------------------------------------------------- */

/* Everything a top-level graph and its virtual graphs share. */
typedef struct tsi_graph_core {
	/* The "Graph construction" trace span, open from tsi_graph_new until
	 * the graph is first compiled (or freed) on the thread that made it. */
	bool construction_traced;
	pthread_t construction_thread;
	tsi_target device_target;  /* the target the graph was created for */
	tsi_target target;         /* one replica's target */
	unsigned replication;
	tsi_arena arena;
	tsi_vec vars;              /* tsi_var* */
	tsi_vec codelets;          /* const tsi_codelet* (arena copies) */
	/* Codelets by name (vertex.c; base's hash map, name borrowed from the
	 * codelet -> const tsi_codelet *): every vertex added looks its type
	 * up, a million times in large models. NULL until the first. */
	struct tsb_hashmap *codelet_by_name;
	/* Recently made views by a hash of their content (tensor.c): operations
	 * ask for the same slice again and again (a matmul's operand rows for
	 * every output block), and an immutable view can be shared. Direct
	 * mapped, TSI_VIEW_CACHE_SLOTS entries (malloc), NULL until first use. */
	const tsi_tensor **view_cache;
	uint32_t *view_tags;       /* beside each slot: 32 bits of its view's hash (malloc) */
	/* What slicing keeps between calls (tensor.c): the prefix sums of the
	 * region lengths of the large views sliced lately, so that each cut
	 * of a view of R regions costs a binary search and the pieces it
	 * cuts, not R (keyed by region list; the entries of scratch views go
	 * when the scratch arena is freed), and the buffer views are built
	 * in. NULL until first use; tsi_slicer_free() frees it. */
	struct tsi_slicer *slicer;
	/* Scratch views (tensor.c): their arena, how deeply scopes nest, and
	 * the view-cache slots that may point into the arena (malloc). */
	tsi_arena scratch;
	unsigned scratch_depth;
	uint32_t *scratch_slots;
	size_t n_scratch_slots, cap_scratch_slots;
	tsi_vec compute_sets;      /* tsi_compute_set* */
	tsi_vec vertices;          /* tsi_vertex* */
	tsi_vec streams;           /* tsi_stream* */
	tsi_vec remote_buffers;    /* tsi_remote_buffer* */
	tsi_vec host_handles;      /* tsi_host_handle* */
	tsi_vec programs;          /* tsi_program* */
	tsi_vec functions;         /* tsi_function* */
	tsi_vec subgraphs;         /* virtual tsi_graph* (freed with the core) */
	tsi_vec debug_contexts;    /* tsi_debug_context* (arena); id i is item i - 1 */
	uint32_t *debug_stack;     /* open context ids, innermost last (malloc) */
	size_t n_debug_stack, cap_debug_stack;
	int error_code;            /* first building error, 0 if none */
	char *error_msg;           /* malloc */
} tsi_graph_core;

struct tsi_graph {
	tsi_graph_core *core;
	tsi_graph *parent;  /* NULL for the top-level graph */
	unsigned tile_lo;   /* first tile in top-level numbering */
	tsi_target target;  /* this graph's view (num_tiles = its range) */
};

/* --- Debug contexts (debug.c) ---------------------------------------------- */

/* One debug context as the graph holds it. Every graph sharing a core
 * (virtual, replicated) shares the contexts and the stack of open ones. */
typedef struct tsi_debug_context {
	uint32_t id;       /* 1-based; core->debug_contexts.items[id - 1] */
	uint32_t parent;   /* the context open when it was pushed, 0: none */
	const char *name;  /* arena */
	const char *layer; /* arena: "user", "popops", "poplin" ... */
	const char *api;   /* arena: "popops::add" ..., NULL for user contexts */
	/* arena: the names of the enclosing model contexts (api NULL), this
	 * one included, joined by '/' ("model/fc1"); NULL when none encloses.
	 * The prefix of every name made inside it (tsi_debug_qualify). */
	const char *path;
} tsi_debug_context;

/* tsi_debug_push() with the function that opens it (`api`, copied, may be
 * NULL): what the ops libraries call. */
tsi_debug_id tsi_debug_push_api(tsi_graph *graph, const char *name, const char *layer,
                                const char *api);
/* Frees the stack of open contexts (the contexts live in the arena). */
void tsi_debug_clear(tsi_graph_core *core);
/* `name` as Poplar's debug names spell it inside context `id`: prefixed
 * with the context's path ("fc1/" + "matmul/Partials"), or a plain copy
 * when no model context encloses it. In the graph's arena; NULL when out
 * of memory (`name` NULL is NULL too). */
const char *tsi_debug_qualify(tsi_graph *graph, tsi_debug_id id, const char *name);

/* Seconds on CLOCK_MONOTONIC, for the durations and progress lines of the
 * INFO log (compiler phases, lowering, report writing). */
static inline double tsi_monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Records a building error on the graph (the first one is kept) and in the
 * thread-local last error; returns `code`. */
int tsi_graph_fail(tsi_graph *graph, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static inline tsi_var *tsi_graph_var(const tsi_graph *graph, uint32_t id)
{
	return (tsi_var *)graph->core->vars.items[id];
}

/* Human-readable name of a tensor for messages: the variable's name for a
 * whole variable, else "a view of 'v' (N elements)". Arena string. */
const char *tsi_tensor_describe(const tsi_tensor *t);

/* Finds a stream, remote buffer or host handle by name; NULL if none. */
tsi_stream *tsi_graph_find_stream(const tsi_graph *graph, const char *name);
tsi_remote_buffer *tsi_graph_find_remote_buffer(const tsi_graph *graph, const char *name);
tsi_host_handle *tsi_graph_find_host_handle(const tsi_graph *graph, const char *name, bool is_write);

/* --- Devices ------------------------------------------------------------- */

struct tsi_device {
	tsi_target target;
	tsi_connection_type connection;
	bool attached;
};

/* --- Options (options.c) ------------------------------------------------- */

/* Validates `opts` against the table of engine options Tilescope knows.
 * Unknown names fail with TSI_ERR_BAD_OPTION naming the nearest known one;
 * known but unmodelled ones are logged at INFO. */
int tsi_options_validate(const tsi_options *opts);

/* --- Compilation (compiler/graph-checks.c) -------------------------------- */

/* What compilation learns about the programs: the seam where the compiler
 * model (lowering, exchange planning, memory layout, liveness, cycles)
 * plugs in. Today it holds the programs' reachable objects after the
 * checks; the compiler model adds its results here. */
typedef struct tsi_compiled {
	tsi_vec programs;        /* tsi_program* reachable, each once, pre-order */
	tsi_vec compute_sets;    /* tsi_compute_set* executed, each once */
	tsi_vec functions;       /* tsi_function* called, each once */
	uint32_t n_vars;         /* variables that existed at compile time */
	uint32_t n_vertices;
	/* The compiler model's results (compiler/compiler-private.h): the
	 * graph profile and what the run-time trace needs. */
	struct tsi_profile_builder *model;
} tsi_compiled;

/* Told when the compiler model's graph profile is complete, before a
 * program that does not fit is refused (debug.allowOutOfMemory=false), so
 * that autoReport writes a report even for a compile that fails. */
struct tsi_graph_profile;
typedef struct tsi_profile_hook {
	void (*ready_cb)(const struct tsi_graph_profile *gp, void *user_data);
	void *user_data;
} tsi_profile_hook;

/* Runs the compiler model over checked programs (compiler/compiler.c):
 * fills compiled->model. `hook` may be NULL. */
int tsi_compile_model(tsi_compiled *compiled, tsi_graph *graph, tsi_program *const *programs,
                      size_t n_programs, const tsi_options *opts, const tsi_profile_hook *hook);
void tsi_compile_model_free(struct tsi_profile_builder *model);

/* Checks the graph and programs and fills a tsi_compiled. On failure
 * returns a negative code with the message in the thread-local error. */
int tsi_compile(tsi_compiled **out, tsi_graph *graph, tsi_program *const *programs,
                size_t n_programs, const tsi_options *opts, const tsi_profile_hook *hook);
void tsi_compiled_free(tsi_compiled *compiled);
