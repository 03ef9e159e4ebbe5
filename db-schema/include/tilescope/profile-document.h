/*
 * The profile document model: what the IPU Model's compiler computed
 * about a graph (the graph profile: target, lowered programs, exchanges,
 * compute-set cycle estimates, tile memory by category and region,
 * variables and their liveness, debug contexts) and what each run did
 * (the execution profile: program trace and simulated BSP steps), as
 * plain C structures. The layout follows the "Profiling" chapter of the
 * Poplar user guide, field for field.
 *
 * The runtime fills them (tsi_engine_get_graph_profile(),
 * tsi_engine_get_run_profile() in tilescope/profile.h; owned by the
 * engine), reportlib rebuilds them from a profile.pop to export it, and
 * the format library writes them as the guide's JSON / CBOR documents:
 * the three meet here, at the ground floor, so the format stands on
 * nothing above it. Per-tile data that is mostly zero is sparse
 * (tsi_tile_values); tile numbers are the numbering of one replica's
 * target.
 *
 * Part of libtilescope-format's installed headers. Types only: the
 * functions over them are the runtime's (tilescope/profile.h). It
 * includes the vocabulary's enumerations and the C library, nothing else.
 */
#pragma once

#include <tilescope/profile-vocabulary.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsi_target_kind {
	TSI_TARGET_IPU_MODEL = 0, /* the simulated IPU (default) */
	TSI_TARGET_CPU            /* host CPU: one tile, one worker, no profile */
} tsi_target_kind;

/* A target: the fixed description of the hardware a graph is built for.
 * Plain data; copy it freely. Tiles are numbered 0..num_tiles-1 across
 * all IPUs (IPU i holds tiles i*tiles_per_ipu ...). */
typedef struct tsi_target {
	tsi_target_kind kind;
	tsi_ipu_version version;
	char name[32];              /* "ipu1", "ipu2", "bow", "cpu" */
	unsigned num_ipus;
	unsigned tiles_per_ipu;
	unsigned num_tiles;         /* num_ipus * tiles_per_ipu */
	uint64_t bytes_per_tile;    /* tile SRAM, bytes */
	uint64_t clock_hz;          /* tile clock, Hz */
	unsigned num_worker_contexts; /* hardware worker threads per tile (6) */
	unsigned exchange_bytes_per_cycle; /* internal exchange bandwidth per tile */
	unsigned fp16_amp_flops_per_cycle; /* peak AMP fp16 flops per tile-cycle */
	unsigned fp32_flops_per_cycle;     /* peak fp32 flops per tile-cycle */
} tsi_target;

/* Values for the listed tiles, zero for every other tile. `tiles` ascend. */
typedef struct tsi_tile_values {
	size_t n;
	const uint32_t *tiles;
	const uint64_t *values;
} tsi_tile_values;

/* --- Lowered programs (the graph profile's "programs") ------------------- */

/* Exchange code bytes by instruction kind (memoryByInstruction). */
typedef struct tsi_exchange_instructions {
	uint64_t delay, exchange, other, receive_address, receive_format, receive_mux, send,
	    send_with_put_address, send_with_put_format, send_with_put_mux, total;
} tsi_exchange_instructions;

typedef struct tsi_lowered_program {
	tsi_lowered_type type;
	const char *name;          /* NULL when unnamed */
	const uint32_t *children;  /* indexes into the programs array */
	uint32_t n_children;
	int32_t compute_set;       /* ON_TILE_EXECUTE, else -1 */
	int32_t exchange;          /* DO_/GLOBAL_EXCHANGE, STREAM_COPY: index into the
	                              matching exchange list, else -1 */
	int32_t function;          /* CALL: index into function_programs, else -1 */
	tsi_sync_type sync;        /* SYNC */
	uint64_t repeat_count;     /* REPEAT */
	tsi_exchange_instructions memory_by_instruction; /* exchanges, summed over tiles */
	uint32_t debug_context;    /* the debug context that made it (see below), 0: none */
} tsi_lowered_program;

/* --- Exchanges, vertex types, compute sets ------------------------------- */

typedef struct tsi_exchange_profile {
	const char *name;
	tsi_tile_values bytes_received; /* bytes, per tile */
	tsi_tile_values bytes_sent;     /* bytes, per tile */
	tsi_tile_values cycles;         /* cyclesByTile / estimatedCyclesByTile */
} tsi_exchange_profile;

typedef struct tsi_vertex_type_profile {
	const char *name;
	uint32_t state_bytes; /* "sizes": vertex state per instance */
	uint32_t code_bytes;  /* per tile that runs the type */
	uint64_t instances;   /* vertices of this type in compiled compute sets */
	uint64_t flops;       /* floating-point operations of all its vertices, one
	                         execution of each compiled compute set */
} tsi_vertex_type_profile;

typedef struct tsi_compute_set_profile {
	const char *name;
	uint32_t n_types;              /* distinct vertex types in the set */
	const uint32_t *vertex_types;  /* index into the vertex types */
	const uint64_t *vertex_counts; /* vertices of vertex_types[i] */
	const uint64_t *active_cycles_by_type; /* summed over tiles, [i] as above */
	tsi_tile_values active_cycles_by_tile;  /* thread cycles doing work */
	tsi_tile_values cycles_by_tile;         /* tile cycles incl. idle threads */
	uint64_t flops;                /* floating-point operations per execution */
	uint32_t debug_context;        /* 0: none */
} tsi_compute_set_profile;

/* --- Memory -------------------------------------------------------------- */

/* One tile's memory ("byTile"). Excluding gaps: bytes of data; including
 * gaps: the extent of each region as laid out (alignment padding and the
 * space between regions count). */
typedef struct tsi_tile_memory {
	uint64_t region[TSI_REGION_COUNT];
	uint64_t region_including_gaps[TSI_REGION_COUNT];
	uint64_t total;                 /* sum of the regions */
	uint64_t total_including_gaps;  /* highest address used + 1 */
} tsi_tile_memory;

/* Vertex data breakdown by compute set or vertex type ("byComputeSet"). */
typedef struct tsi_vertex_memory {
	tsi_tile_values code_bytes;
	tsi_tile_values copy_ptr_bytes;
	tsi_tile_values descriptor_bytes;
	tsi_tile_values edge_ptr_bytes;
	tsi_tile_values padding_bytes;
	tsi_tile_values vertex_data_bytes;
	tsi_tile_values total_bytes;
} tsi_vertex_memory;

/* The most dimensions a tensor (a variable's shape) may have. */
#define TSI_MAX_RANK 8

/* A variable of the graph profile: a user variable or constant, or a
 * compiler allocation (exchange message buffers, instrumentation ...). */
typedef struct tsi_variable_profile {
	const char *name;
	tsi_mem_category category;
	tsi_type type;
	uint64_t bytes;            /* on all tiles of one replica */
	size_t rank;
	const size_t *shape;
	tsi_tile_values bytes_by_tile;
	bool always_live;
	uint32_t live_from;        /* first liveness step where it is live (inclusive) */
	uint32_t live_to;          /* last such step (inclusive); both 0 when always live */
	uint32_t debug_context;    /* 0: none (compiler allocations, or made outside any) */
} tsi_variable_profile;

/* --- Debug contexts ------------------------------------------------------ */

/* One debug context (Poplar's DebugContext / DebugInfo): every operation
 * of the ops library opens one around what it builds, and a model may open
 * its own (layers) with tsi_debug_push(). Ids are 1-based: context `id` is
 * debug_contexts[id - 1]; 0 means "no context". A parent's id is always
 * lower than its child's. */
typedef struct tsi_debug_context_profile {
	uint32_t id;
	uint32_t parent;     /* 0 at top level */
	const char *name;    /* the debug name given ("layer1/fc", "Add" ...) */
	const char *layer;   /* "popops", "poplin", "popnn", "poprand", "gcl", "user" */
	const char *api;     /* the function that opened it ("popops::add"), or NULL */
} tsi_debug_context_profile;

/* --- Liveness ------------------------------------------------------------ */

/* One step of the static program order used for liveness: every lowered
 * leaf program in execution order, bodies of loops once, both branches of
 * an If, a called function's body at each call site. `parent` builds the
 * call-stack tree the guide prints under showVarStorage: the index of the
 * enclosing structured step (Sequence, Repeat, If, Call ...), or -1. */
typedef struct tsi_liveness_step {
	uint32_t program;          /* lowered program index */
	int32_t parent;            /* liveness step index of the enclosing node, -1 at top */
	uint32_t depth;
	uint64_t not_always_live_bytes; /* all tiles of one replica */
} tsi_liveness_step;

/* --- Execution ------------------------------------------------------------ */

/* One simulated execution step, with every field the guide lists. */
typedef struct tsi_step {
	tsi_step_type type;
	uint32_t program;        /* lowered program index */
	int32_t compute_set;     /* ON_TILE_EXECUTE, else -1 */
	int32_t exchange;        /* exchange steps: index into the matching list, else -1 */
	tsi_sync_type sync_type; /* SYNC: TSI_SYNC_INTERNAL or TSI_SYNC_EXTERNAL */
	uint64_t cycles_from;
	uint64_t cycles_to;
	uint64_t cycles;         /* longest-running tile */
	uint64_t cycles_overlapped;
	uint32_t active_tiles;
	double tile_balance;
	double active_tile_balance;
	double thread_balance;   /* ON_TILE_EXECUTE */
	uint64_t total_data;     /* exchange steps: bytes */
	double data_balance;     /* exchange steps */
} tsi_step;

/* Cycles by activity summed over tiles ("tileCycles"). */
typedef struct tsi_tile_cycles {
	uint64_t active_compute, compute, do_exchange, global_exchange, stream_copy, sync,
	    copy_shared_structure;
} tsi_tile_cycles;

typedef struct tsi_run_profile {
	size_t program_index;           /* the engine program that ran */
	const uint32_t *program_trace;  /* lowered program ids run, in order */
	size_t n_trace;
	const tsi_step *steps;
	size_t n_steps;
	uint64_t cycles;                /* total */
	tsi_tile_cycles tile_cycles;
} tsi_run_profile;

/* --- The profile --------------------------------------------------------- */

typedef struct tsi_graph_profile {
	tsi_target target;
	tsi_profiler_mode profiler_mode;
	unsigned replication_factor;
	uint32_t min_sync_delay;                 /* cycles */
	const uint32_t *relative_sync_delay_by_tile; /* tiles_per_ipu entries */
	/* "graph", user and compiler items alike: num_compute_sets is
	 * n_compute_sets (the generated copy sets included), num_vertices the
	 * vertices of all of them (one copy vertex per tile of a copy set),
	 * num_vars is n_variables (message buffers and the always-live data
	 * by category included), num_edges the vertices' field connections */
	uint64_t num_compute_sets, num_edges, num_vars, num_vertices;

	const tsi_lowered_program *programs;
	size_t n_programs;
	const uint32_t *control_programs;  /* one per engine program, in order */
	size_t n_control_programs;
	const uint32_t *function_programs; /* one per function */
	size_t n_function_programs;

	const tsi_vertex_type_profile *vertex_types;
	size_t n_vertex_types;
	const tsi_compute_set_profile *compute_sets;
	size_t n_compute_sets;
	const tsi_exchange_profile *exchanges[TSI_EXCHANGE_KIND_COUNT];
	size_t n_exchanges[TSI_EXCHANGE_KIND_COUNT];

	/* "memory" */
	const tsi_tile_memory *by_tile;    /* target.num_tiles entries */
	/* by_category[((cat * TSI_REGION_COUNT) + region) * 2 + overlapped]
	 * [tile]: dense, num_tiles entries each; use tsi_graph_profile_category(). */
	const uint64_t *by_category;
	const tsi_vertex_memory *by_compute_set; /* n_compute_sets entries */
	const tsi_vertex_memory *by_vertex_type; /* n_vertex_types entries */
	const tsi_variable_profile *variables;
	size_t n_variables;

	/* liveness */
	const tsi_liveness_step *liveness;
	size_t n_liveness;
	uint64_t always_live_bytes;

	/* debug contexts, in id order (see tsi_debug_context_profile) */
	const tsi_debug_context_profile *debug_contexts;
	size_t n_debug_contexts;

	/* out of memory: tiles whose total including gaps exceeds bytes_per_tile */
	const uint32_t *oom_tiles;
	size_t n_oom_tiles;
} tsi_graph_profile;

#ifdef __cplusplus
}
#endif
