/*
 * What the IPU Model's compiler computed about a graph (the graph
 * profile: lowered programs, exchanges, compute-set cycle estimates,
 * tile memory by category and region, variables and their liveness) and
 * what each run did (the execution profile: program trace and simulated
 * BSP steps). The layout follows the "Profiling" chapter of the Poplar
 * user guide, field for field.
 *
 * Everything here is read-only and owned by the engine: valid until
 * tsi_engine_free() (execution data: until the next run). Per-tile data
 * that is mostly zero is sparse (tsi_tile_values); tile numbers are the
 * numbering of one replica's target.
 */
#pragma once

#include "engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Values for the listed tiles, zero for every other tile. `tiles` ascend. */
typedef struct tsi_tile_values {
	size_t n;
	const uint32_t *tiles;
	const uint64_t *values;
} tsi_tile_values;

/* The value for `tile` (0 when absent); binary search. */
TSI_API uint64_t tsi_tile_values_get(const tsi_tile_values *tv, uint32_t tile);
TSI_API uint64_t tsi_tile_values_sum(const tsi_tile_values *tv);
TSI_API uint64_t tsi_tile_values_max(const tsi_tile_values *tv);

/* --- Lowered programs (the graph profile's "programs") ------------------- */

typedef enum tsi_lowered_type {
	TSI_LP_SEQUENCE = 0,
	TSI_LP_ON_TILE_EXECUTE,
	TSI_LP_DO_EXCHANGE,        /* internal exchange (one IPU) */
	TSI_LP_GLOBAL_EXCHANGE,    /* between IPUs */
	TSI_LP_STREAM_COPY,        /* host exchange */
	TSI_LP_REPEAT,
	TSI_LP_REPEAT_WHILE_TRUE,
	TSI_LP_REPEAT_WHILE_FALSE,
	TSI_LP_SET_LOCAL_CONSENSUS, /* SetLocalConsensusFromVar */
	TSI_LP_IF,
	TSI_LP_IF_ELSE,
	TSI_LP_SWITCH,
	TSI_LP_SYNC,
	TSI_LP_CALL,
	TSI_LP_WRITE_UNDEF,
	TSI_LP_TYPE_COUNT
} tsi_lowered_type;

/* The guide's tag: "Sequence", "OnTileExecute", "SetLocalConsensusFromVar" ... */
TSI_API const char *tsi_lowered_type_name(tsi_lowered_type type);

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

typedef enum tsi_exchange_kind {
	TSI_EXCHANGE_INTERNAL = 0, /* "exchanges" */
	TSI_EXCHANGE_EXTERNAL,     /* "externalExchanges" (IPU to IPU) */
	TSI_EXCHANGE_HOST,         /* "hostExchanges" */
	TSI_EXCHANGE_KIND_COUNT
} tsi_exchange_kind;

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

/* The user guide's memory categories, in its (alphabetical) order. */
typedef enum tsi_mem_category {
	TSI_MEM_CONSTANT = 0,
	TSI_MEM_CONTROL_CODE,
	TSI_MEM_CONTROL_ID,
	TSI_MEM_CONTROL_TABLE,
	TSI_MEM_COPY_DESCRIPTOR,
	TSI_MEM_GLOBAL_EXCHANGE_CODE,
	TSI_MEM_GLOBAL_EXCHANGE_PACKET_HEADER,
	TSI_MEM_GLOBAL_MESSAGE,
	TSI_MEM_HOST_EXCHANGE_CODE,
	TSI_MEM_HOST_EXCHANGE_PACKET_HEADER,
	TSI_MEM_HOST_MESSAGE,
	TSI_MEM_INSTRUMENTATION_RESULTS,
	TSI_MEM_INTERNAL_EXCHANGE_CODE,
	TSI_MEM_MESSAGE,
	TSI_MEM_MULTIPLE,
	TSI_MEM_OUTPUT_EDGE,
	TSI_MEM_REARRANGEMENT,
	TSI_MEM_SHARED_CODE_STORAGE,
	TSI_MEM_SHARED_DATA_STORAGE,
	TSI_MEM_STACK,
	TSI_MEM_VARIABLE,
	TSI_MEM_VECTOR_LIST_DESCRIPTOR,
	TSI_MEM_VERTEX_CODE,
	TSI_MEM_VERTEX_FIELD_DATA,
	TSI_MEM_VERTEX_INSTANCE_STATE,
	TSI_MEM_CATEGORY_COUNT
} tsi_mem_category;

/* The guide's camelCase name: "controlCode", "vertexInstanceState" ... */
TSI_API const char *tsi_mem_category_name(tsi_mem_category cat);

typedef enum tsi_mem_region {
	TSI_REGION_INTERLEAVED = 0,
	TSI_REGION_NON_INTERLEAVED,
	TSI_REGION_OVERFLOWED, /* bytes that did not fit in the tile */
	TSI_REGION_COUNT
} tsi_mem_region;

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

typedef enum tsi_step_type {
	TSI_STEP_ON_TILE_EXECUTE = 0,
	TSI_STEP_DO_EXCHANGE,
	TSI_STEP_GLOBAL_EXCHANGE,
	TSI_STEP_STREAM_COPY,
	TSI_STEP_SYNC,
	TSI_STEP_COPY_SHARED_STRUCTURE,
	TSI_STEP_TYPE_COUNT
} tsi_step_type;

TSI_API const char *tsi_step_type_name(tsi_step_type type);

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

/* The execution profile's "profilerMode": what the instrumentation
 * options measure (on the IPU Model every mode is simulated from
 * estimates; the mode says what hardware would have recorded). */
typedef enum tsi_profiler_mode {
	TSI_PROFILER_IPU_MODEL = 0,           /* no instrumentation */
	TSI_PROFILER_COMPUTE_SETS,            /* debug.computeInstrumentationLevel=tile */
	TSI_PROFILER_SINGLE_TILE_COMPUTE_SETS,/* device or ipu */
	TSI_PROFILER_VERTICES,                /* vertex */
	TSI_PROFILER_EXTERNAL_EXCHANGES,      /* only external exchanges instrumented */
	TSI_PROFILER_MODE_COUNT
} tsi_profiler_mode;

/* "IPU_MODEL", "COMPUTE_SETS", "SINGLE_TILE_COMPUTE_SETS", "VERTICES",
 * "EXTERNAL_EXCHANGES". */
TSI_API const char *tsi_profiler_mode_name(tsi_profiler_mode mode);

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

/* Bytes of `cat` in `region` on `tile`, overlapped or not. */
TSI_API uint64_t tsi_graph_profile_category(const tsi_graph_profile *gp, tsi_mem_category cat,
                                            tsi_mem_region region, bool overlapped, uint32_t tile);

/* The graph profile of a compiled engine (never NULL for a compiled engine). */
TSI_API const tsi_graph_profile *tsi_engine_get_graph_profile(const tsi_engine *engine);
/* Runs recorded so far: the first autoReport.executionProfileProgramRunCount
 * runs (default 2) of each engine program, in the order they ran, as
 * Poplar keeps them. Runs on a PRE_COMPILE device execute nothing and
 * record nothing. */
TSI_API size_t tsi_engine_num_run_profiles(const tsi_engine *engine);
TSI_API const tsi_run_profile *tsi_engine_get_run_profile(const tsi_engine *engine, size_t run);

#ifdef __cplusplus
}
#endif
