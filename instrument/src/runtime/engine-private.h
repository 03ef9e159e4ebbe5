/*
 * What the pieces of the engine share: the engine itself, the replica
 * masks every step of a run acts on, and the functions one piece calls in
 * another. The pieces are engine.c (creation, compilation, loading,
 * errors), engine-memory.c (device memory), engine-plan.c and
 * engine-plan-fields.c (the compute sets' layouts, engine-plan-private.h),
 * engine-compute-sets.c (their BSP supersteps), engine-host-io.c (streams,
 * remote buffers, PrintTensor, host handles),
 * engine-collectives.c (cross-replica collectives) and
 * engine-interpreter.c (the program tree and tsi_engine_run). Nothing
 * here is visible to models.
 */
#pragma once

#include "../ipu-private.h"
#include "../compiler/compiler-private.h"
#include "../autoreport/autoreport-private.h"

#include <stdio.h>

/* The most replicas a graph can have: one per IPU of the largest target. */
#define MAX_REPLICAS 1024
#define MASK_WORDS (MAX_REPLICAS / 64)

/* A set of replicas, bit r for replica r. */
typedef struct rmask {
	uint64_t w[MASK_WORDS];
} rmask;

/* Where a stream's data comes from or goes to (engine-host-io.c). */
typedef struct stream_conn stream_conn;

/* The layout of one compute set's run (engine-plan-private.h). */
typedef struct cs_plan cs_plan;

/* The engine of tilescope/engine.h. */
struct tsi_engine {
	tsi_graph *graph;
	tsi_graph_core *core;
	tsi_compiled *compiled;  /* what compilation learnt; see ipu-private.h */
	tsi_program **programs;  /* run by index (malloc'd copy of the caller's list) */
	size_t n_programs;
	unsigned replicas;
	unsigned mask_words;     /* words of an rmask in use */

	/* Device state, valid once loaded. */
	tsi_device *device;
	bool loaded;
	bool dry;                /* loaded onto a PRE_COMPILE device: nothing runs */
	bool never;              /* the last load was refused by a NEVER device */
	uint32_t n_vars;         /* variables with device memory */
	size_t *var_bytes;       /* one replica's bytes of each variable */
	unsigned char **data;    /* per variable: replicas * var_bytes */

	/* Streams (those that existed at compile time). */
	size_t n_streams;
	stream_conn **conns;     /* n_streams * replicas; conns[s * replicas + r] */
	uint64_t copy_seq;       /* counts stream copies, to feed shared connections once */

	/* Remote buffers (those that existed at compile time). */
	size_t n_remote;
	unsigned char **remote;  /* per buffer: replicas * repeats * numel elements */

	/* Compute sets, indexed by id (those that existed at compile time). */
	size_t n_plans;
	cs_plan **plans;         /* built at load (tsi_engine_prepare_plans) */
	unsigned char *scratch;  /* the arena every plan lays out its fields in */
	size_t scratch_cap;
	/* What one vertex call is given, made from its plan (grown to the
	 * largest plan, kept): its fields, the {0, count} offsets of its
	 * single-vector fields, and per replica the address of each field
	 * that lives in variable memory. */
	tsi_field *call_fields;
	size_t call_fields_cap;
	size_t *call_pairs;
	size_t call_pairs_cap;
	unsigned char **direct_ptrs;
	size_t direct_ptrs_cap;
	uint64_t run_serial;     /* counts tsi_engine_run calls that execute */
	size_t made_bytes;       /* held by plans' made fields (engine-compute-sets.c) */

	unsigned char *tmp;      /* staging for copies and prints (grows, kept) */
	size_t tmp_cap;

	FILE *print;             /* PrintTensor output; NULL means stdout */
	char error[1024];        /* message of the last failure */

	/* Execution profile: the lowered programs each recorded run executed
	 * (on the profiled replica), simulated into steps after the run. */
	bool tracing;            /* recording the current run */
	unsigned profiled_replica;
	uint32_t *trace;         /* lowered program ids of the current run */
	size_t n_trace, cap_trace;
	tsi_run_profile **runs;  /* recorded runs in order (run_arena), n_runs */
	size_t n_runs, cap_runs;
	uint64_t *runs_of_program; /* kept runs per engine program (n_programs) */
	tsi_arena run_arena;     /* the runs' profiles, traces and steps */

	/* Options and autoReport. */
	char *name;              /* tsi_engine_new_named, or NULL */
	tsi_options *options;    /* in force: code + POPLAR_ENGINE_OPTIONS */
	tsi_engine_config cfg;   /* what they ask for */
	tsi_autoreport *report;  /* NULL when no report is asked for */
};

/* --- Replica masks ---------------------------------------------------------- */

/* True when replica r is in the set. */
static inline bool mask_has(const rmask *m, unsigned r)
{
	return (m->w[r >> 6] >> (r & 63)) & 1u;
}

/* Adds replica r to the set. */
static inline void mask_set(rmask *m, unsigned r)
{
	m->w[r >> 6] |= UINT64_C(1) << (r & 63);
}

/* Removes replica r from the set. */
static inline void mask_clear(rmask *m, unsigned r)
{
	m->w[r >> 6] &= ~(UINT64_C(1) << (r & 63));
}

/* An empty mask sized for the engine (only the words in use are touched). */
static inline void mask_zero(const tsi_engine *e, rmask *m)
{
	for (unsigned i = 0; i < e->mask_words; i++)
		m->w[i] = 0;
}

/* True when no replica is in the set. */
static inline bool mask_empty(const tsi_engine *e, const rmask *m)
{
	for (unsigned i = 0; i < e->mask_words; i++)
		if (m->w[i])
			return false;
	return true;
}

/* --- Device memory (engine-memory.c) ------------------------------------- */

/* Start of replica r's copy of variable `var`. */
static inline unsigned char *var_base(const tsi_engine *e, uint32_t var, unsigned r)
{
	return e->data[var] + (size_t)r * e->var_bytes[var];
}

/* Allocates zeroed device memory for every replica of every variable and
 * remote buffer, with the constants' values written in; on failure frees
 * what it allocated and records the error. */
int tsi_engine_alloc_device_memory(tsi_engine *e);

/* Releases device memory (variables and remote buffers). */
void tsi_engine_free_device_memory(tsi_engine *e);

/* Makes the engine's staging buffer (for copies and prints) at least
 * `bytes` long and returns it; NULL when out of memory. */
unsigned char *tsi_engine_tmp_reserve(tsi_engine *e, size_t bytes);

/* Copies replica r's elements of `t` into `dst` in row-major order. */
void tsi_engine_tensor_gather(const tsi_engine *e, const tsi_tensor *t, unsigned r, void *dst);

/* Writes `src` (row-major elements of `t`) into replica r's memory. */
void tsi_engine_tensor_scatter(tsi_engine *e, const tsi_tensor *t, unsigned r, const void *src);

/* The value of the one-element tensor `t` on replica r, as a double. */
double tsi_engine_scalar_value(const tsi_engine *e, const tsi_tensor *t, unsigned r);

/* --- Errors and checks (engine.c) ------------------------------------------ */

/* Records a failure of an engine call in the thread-local last error and
 * in the engine; returns `code`. */
__attribute__((format(printf, 3, 4)))
int tsi_engine_fail(tsi_engine *e, int code, const char *fmt, ...);

/* Copies the thread-local error (set by a callee) into the engine;
 * returns `code`. */
int tsi_engine_keep_error(tsi_engine *e, int code);

/* TSI_OK when the compiled program fits the device's tiles, else an
 * out-of-memory failure naming the call `what`. */
int tsi_engine_check_fits(tsi_engine *e, const char *what);

/* Fails unless the engine is loaded; `what` names the call for the message. */
int tsi_engine_check_loaded(tsi_engine *e, const char *what);

/* --- The steps a run executes ------------------------------------------------ */

/* Runs compute set `cs` on every replica of `m` as one BSP superstep
 * (engine-compute-sets.c). */
int tsi_engine_run_compute_set(tsi_engine *e, tsi_compute_set *cs, const rmask *m);

/* Builds the layouts of every compute set the compiled programs execute
 * (at load; engine-plan.c). Returns TSI_OK or TSI_ERR_NO_MEMORY
 * (recorded). */
int tsi_engine_prepare_plans(tsi_engine *e);

/* Frees one compute set's layout; NULL is ignored (engine-plan.c). */
void tsi_engine_plan_free(cs_plan *p);

/* Runs one stream copy on the replicas of `m` (engine-host-io.c). */
int tsi_engine_run_stream_copy(tsi_engine *e, const tsi_program *p, const rmask *m);

/* Runs a remote-buffer copy (either direction) on the replicas of `m`
 * (engine-host-io.c). */
int tsi_engine_run_remote_copy(tsi_engine *e, const tsi_program *p, const rmask *m);

/* Runs a PrintTensor on the replicas of `m` (engine-host-io.c). */
int tsi_engine_run_print(tsi_engine *e, const tsi_program *p, const rmask *m);

/* Drops one replica slot's reference to a stream connection; NULL is
 * ignored (engine-host-io.c). */
void tsi_engine_conn_unref(stream_conn *c);

/* Runs a cross-replica collective on the replicas of `m`
 * (engine-collectives.c). */
int tsi_engine_run_collective(tsi_engine *e, const tsi_program *p, const rmask *m);
