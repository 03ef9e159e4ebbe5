/*
 * The compiler model: what tsi_compile() computes after its checks, phase
 * by phase, into the graph profile of tilescope/profile.h.
 *
 *   lower.c     program trees -> the flat lowered program list, with the
 *               inserted DoExchange / GlobalExchange / StreamCopy / Sync /
 *               SetLocalConsensusFromVar steps, generated on-tile copy
 *               compute sets, and the exchange plans (bytes per tile, code
 *               per tile, message buffers, memoryByInstruction)
 *   cycles.c    compute-set cycle estimates per tile (six round-robin
 *               worker contexts), exchange and sync cycles; and at run time
 *               the BSP simulation of a program trace into execution steps
 *   memory.c    tile memory: every byte in a category and a region, gaps,
 *               overlapped vs non-overlapped storage, out-of-memory tiles
 *   liveness.c  the static step order, variable live intervals, not-always-
 *               live bytes per step
 *
 * Phases run in that order (memory needs liveness for the overlap split,
 * so liveness runs before memory: see compiler.c). Each phase only reads
 * what earlier phases produced and writes its own part of the profile.
 *
 * All profile memory comes from the builder's arena and lives as long as
 * the engine. Per-tile accumulation uses a dense scratch (tsi_tile_acc)
 * that is compressed into sparse tsi_tile_values when a record is done,
 * so models of 20,000 compute sets x 5,888 tiles stay small.
 */
#pragma once

#include "../ipu-private.h"
#include "tilescope/profile.h"

/* --- Model constants (one place; every figure is an assumption of the
 *     model, documented where it is defined in compiler.c) ------------- */

typedef struct tsi_model_constants {
	uint32_t exchange_setup_cycles;      /* per internal exchange step */
	uint32_t exchange_cycles_per_run;    /* per contiguous received run */
	uint32_t external_bytes_per_cycle;   /* per tile, IPU-Link */
	uint32_t external_latency_cycles;
	uint32_t host_bytes_per_cycle;       /* per IPU, PCIe, shared by its tiles */
	uint32_t host_latency_cycles;
	uint32_t min_sync_delay;             /* cycles */
	uint32_t external_sync_extra;        /* extra cycles of an external sync */
	uint32_t compute_set_overhead;       /* supervisor cycles to launch a compute set */
	uint32_t control_code_per_step;      /* control code bytes per lowered step per tile */
	uint32_t worker_stack_bytes;         /* per worker context */
	uint32_t supervisor_stack_bytes;
	uint32_t instrumentation_bytes;      /* per recorded cycle count (64-bit) */
	uint32_t instrumentation_cycles;     /* cycles to read and store the counter */
} tsi_model_constants;

/* --- Per-tile accumulation -------------------------------------------------- */

/* A dense per-tile accumulator with a list of touched tiles, reset in
 * O(touched). */
typedef struct tsi_tile_acc {
	uint32_t num_tiles;
	uint64_t *value;    /* num_tiles */
	uint32_t *touched;  /* tiles with a nonzero value, in first-touch order */
	uint32_t n_touched;
} tsi_tile_acc;

int tsi_tile_acc_init(tsi_tile_acc *acc, uint32_t num_tiles);
void tsi_tile_acc_free(tsi_tile_acc *acc);
void tsi_tile_acc_add(tsi_tile_acc *acc, uint32_t tile, uint64_t v);
/* Zeroes what was accumulated, in O(touched). */
void tsi_tile_acc_reset(tsi_tile_acc *acc);
/* Copies the accumulator into sparse tile values in `arena` (tiles sorted)
 * and resets it. Returns TSI_OK or TSI_ERR_NO_MEMORY. */
int tsi_tile_acc_take(tsi_tile_acc *acc, tsi_arena *arena, tsi_tile_values *out);

/* --- Exchange plans --------------------------------------------------------- */

/* What an exchange is for (set by lower.c). */
typedef enum tsi_exchange_role {
	TSI_XR_EXECUTE_PRE = 0, /* fetch remote inputs before a compute set */
	TSI_XR_EXECUTE_POST,    /* return remote outputs after it */
	TSI_XR_COPY,            /* a Copy program between tiles */
	TSI_XR_STREAM,          /* host stream copy (either direction) */
	TSI_XR_REMOTE,          /* remote buffer copy */
	TSI_XR_PRINT,           /* PrintTensor's device-to-host transfer */
	TSI_XR_BROADCAST,       /* control value broadcast before a Switch */
	TSI_XR_COLLECTIVE,      /* cross-replica collective: reads src, writes dst */
	TSI_XR_NONE = 255       /* not an exchange */
} tsi_exchange_role;

/* The private side of one exchange: what memory.c and cycles.c need
 * beyond the public record. */
typedef struct tsi_exchange_plan {
	tsi_exchange_kind kind;
	tsi_exchange_role role;
	uint32_t index;              /* position in the public list of its kind */
	uint32_t lowered;            /* the lowered program that runs it */
	const tsi_program *source;   /* the user program it came from */
	tsi_tile_values code_bytes;    /* exchange code per tile (internal/global/host
	                                  ExchangeCode category) */
	tsi_tile_values message_bytes; /* receive buffers per tile (message / hostMessage /
	                                  globalMessage), live only during the step */
	tsi_tile_values packet_header_bytes; /* host/global packet headers per tile */
	uint64_t total_bytes;        /* bytes moved (counted once, at the receiver) */
} tsi_exchange_plan;

/* --- Generated compute sets --------------------------------------------------- */

/* A compute set the compiler adds (on-tile copies). Its vertices are not
 * graph vertices; the model knows their work per tile. */
typedef struct tsi_generated_cs {
	uint32_t profile_index;      /* index in the profile's compute sets */
	uint32_t vertex_type;        /* index in the profile's vertex types */
	const tsi_program *source;
	tsi_tile_values bytes_by_tile;   /* bytes each tile copies */
	tsi_tile_values regions_by_tile; /* contiguous runs per tile (descriptors) */
} tsi_generated_cs;

/* --- Lowering results used at run time -------------------------------------- */

/* For each user program (by id): the lowered leaf programs appended to the
 * program trace when it starts (Execute: its exchanges and OnTileExecute;
 * If/Switch: the predicate's consensus and sync or broadcast; Copy,
 * stream copies, Sync, WriteUndef: themselves) and, for RepeatWhile, each
 * time the predicate is evaluated. */
typedef struct tsi_trace_leaves {
	const uint32_t *at_start;
	uint32_t n_at_start;
	const uint32_t *per_predicate;
	uint32_t n_per_predicate;
} tsi_trace_leaves;

/* --- The builder ------------------------------------------------------------- */

typedef struct tsi_profile_builder {
	tsi_graph *graph;
	tsi_graph_core *core;
	tsi_compiled *compiled;
	const tsi_options *opts;
	tsi_model_constants k;
	tsi_arena arena;             /* everything the profile points to */
	tsi_graph_profile profile;   /* the public result */

	/* lower.c: growable arrays behind the profile's pointers */
	tsi_lowered_program *programs;
	size_t n_programs, cap_programs;
	/* Parallel to programs: the user program each lowered program came
	 * from (NULL for the control-program wrappers) and, for exchanges,
	 * the tsi_exchange_role (else TSI_XR_NONE). A lowered program is
	 * shared by every place its user program is used. */
	const tsi_program **lp_source;
	uint8_t *lp_role;
	tsi_exchange_profile *exchanges[TSI_EXCHANGE_KIND_COUNT];
	size_t cap_exchanges[TSI_EXCHANGE_KIND_COUNT];
	tsi_exchange_plan *plans;    /* every exchange of every kind, in creation order */
	size_t n_plans, cap_plans;
	tsi_generated_cs *generated;
	size_t n_generated, cap_generated;
	tsi_trace_leaves *leaves;    /* core->programs.len entries */

	/* The vertex types of the profile: codelets used by compiled vertices
	 * (codelet_type[i] for core->codelets.items[i], -1 if unused) and the
	 * generated ones. */
	int32_t *codelet_type;

	/* cycles.c: per profile compute set, the number of worker contexts in
	 * use on each tile. */
	tsi_tile_values *cs_busy_workers;

	/* Instrumentation (debug.instrument*): level and what is instrumented. */
	bool instrument_compute;
	bool instrument_external_exchange;
	bool instrument_control_flow;
	int instrument_level;        /* 0 tile, 1 vertex, 2 device, 3 ipu */
} tsi_profile_builder;

/* Appends a lowered program and its parallel records; returns its index
 * or -1 (out of memory). `name` is copied into the arena. */
int32_t tsi_builder_add_program(tsi_profile_builder *b, tsi_lowered_type type, const char *name,
                                const tsi_program *source, tsi_exchange_role role);

/* Writes "N tiles are out of memory: tile T needs B bytes, X over its
 * capacity; ..." naming the worst five tiles by excess. */
void tsi_model_oom_message(const tsi_profile_builder *b, char *buf, size_t size);

/* Phases. Each returns TSI_OK or a negative code with tsi_set_error(). */
int tsi_lower(tsi_profile_builder *b, tsi_program *const *programs, size_t n_programs);
int tsi_cycles_estimate(tsi_profile_builder *b);
int tsi_liveness_compute(tsi_profile_builder *b);
int tsi_memory_layout(tsi_profile_builder *b);

/* Run time: the BSP simulation of one run's program trace (cycles.c).
 * `trace` holds lowered program ids. Fills `out` (arrays in `arena`). */
int tsi_simulate_run(const tsi_profile_builder *b, const uint32_t *trace, size_t n_trace,
                     size_t program_index, tsi_arena *arena, tsi_run_profile *out);
