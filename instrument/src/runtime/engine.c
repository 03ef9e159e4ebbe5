/*
 * The engine: compiles a graph and its programs (through compiler/graph-checks.c), holds
 * the device memory of every replica, and interprets the program tree when
 * a program runs. Also moves data between host and device: host
 * read/write handles, host streams (circular buffers or callbacks) and
 * remote buffers, and prints tensors for PrintTensor.
 *
 * Device memory: one malloc'd block per variable that existed at compile
 * time holding every replica's copy back to back (replica r at
 * r * numel * element size). A tensor view is read or written by walking
 * its region list.
 *
 * Replicas: a program runs once for all replicas. Each step acts on a set
 * of replicas (a bit mask); control flow splits the set where replicas
 * disagree (an If whose predicate is true on some replicas only runs its
 * body on those), so every replica follows its own path while stream
 * copies still see one program-order sequence of copies, which is what a
 * BROADCAST stream needs (one host transfer feeds every replica).
 *
 * Compute sets (BSP): all fields of all vertices are gathered into one
 * scratch arena before any vertex runs and written back after the last
 * one, so every vertex reads its inputs as they were before the compute
 * set. The layout of that arena (field pointers, offsets, and the list of
 * copies between variables and the arena) is worked out once per compute
 * set, on first execution, and cached in the engine; the arena itself is
 * shared by all compute sets and grows to the largest.
 */
#include "../ipu-private.h"
#include "../compiler/compiler-private.h"
#include "../autoreport/autoreport-private.h"
#include "tilescope/gcl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The most replicas a graph can have: one per IPU of the largest target. */
#define MAX_REPLICAS 1024
#define MASK_WORDS (MAX_REPLICAS / 64)

/* How deeply programs may nest before the interpreter suspects a cycle
 * (a sequence that contains itself). */
#define MAX_DEPTH 1000

/* Field data in the scratch arena starts on this boundary (bytes), so a
 * codelet may use vector loads on any field. */
#define FIELD_ALIGN 16u

/* A set of replicas, bit r for replica r. */
typedef struct rmask {
	uint64_t w[MASK_WORDS];
} rmask;

/* Where a stream's data comes from or goes to. Several replicas may share
 * one connection (tsi_engine_connect_stream without a replica); it is
 * freed when the last of them lets go. */
typedef struct stream_conn {
	unsigned refs;
	unsigned char *begin; /* circular host buffer [begin, end), or NULL */
	size_t size;          /* end - begin, bytes */
	size_t cursor;        /* next byte to use, 0 .. size-1 */
	tsi_stream_cb cb;     /* or a callback */
	void *user_data;
	unsigned char *stage; /* one transfer's bytes (malloc) */
	uint64_t seq;         /* copy number `stage` was filled for (h2d) */
} stream_conn;

/* One contiguous move between a variable and the scratch arena. A `var`
 * of ZERO_VAR means "zero-fill these scratch bytes" (an output field). */
typedef struct xfer {
	uint32_t var;
	size_t var_off;     /* bytes into one replica's copy of the variable */
	size_t scratch_off; /* bytes into the scratch arena */
	size_t bytes;       /* of one piece */
	size_t count;       /* pieces: piece i is at var_off + i * stride in the variable
	                       and scratch_off + i * bytes in scratch (a strided view,
	                       such as a transpose, gathers element by element) */
	size_t stride;      /* bytes; 0 when count is 1 */
} xfer;
#define ZERO_VAR UINT32_MAX

/* An input field read straight from variable memory instead of the
 * scratch arena: its data pointer is set per replica before the vertices
 * run. */
typedef struct direct_field {
	size_t field;       /* index into the plan's fields */
	uint32_t var;
	size_t var_off;     /* bytes into one replica's copy of the variable */
} direct_field;

/* The cached layout of one compute set's scratch arena. */
/* What running one vertex needs, packed so that the run loop reads one
 * small array instead of chasing each vertex's and codelet's pointers (a
 * cache miss per vertex on large graphs). */
typedef struct vertex_call {
	tsi_compute_cb compute;
	size_t n_fields;
} vertex_call;

typedef struct cs_plan {
	size_t n_vertices;
	tsi_vertex **vertices;    /* those that existed at compile time (malloc) */
	vertex_call *calls;       /* n_vertices, in the same order (malloc) */
	size_t n_fields;          /* all fields of all vertices */
	tsi_field *fields;        /* vertex by vertex, codelet field order */
	size_t *field_off;        /* scratch offset of each field's data, bytes */
	size_t *offsets;          /* the fields' sub-vector offsets */
	xfer *in;                 /* gathers and zero-fills, before the vertices run */
	size_t n_in;
	xfer *out;                /* write-backs of outputs and in-outs, after */
	size_t n_out;
	direct_field *direct;     /* inputs read and outputs written in place */
	size_t n_direct;
	xfer *zero;               /* in-place outputs zero-filled before the vertices run
	                             (scratch_off unused) */
	size_t n_zero;
	size_t scratch_bytes;
	unsigned char *bound;     /* arena base the fields' data pointers point into */
} cs_plan;

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
	cs_plan **plans;         /* built on first execution */
	unsigned char *scratch;  /* the arena every plan lays out its fields in */
	size_t scratch_cap;

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

/* Engines made by this process so far: the creation index names an
 * unnamed engine's autoReport subdirectory. */
static unsigned engines_created;

/* --- Errors -------------------------------------------------------------- */

/*
 * Records a failure of an engine call: the message goes to the thread-local
 * last error and to the engine (for tsi_engine_error). Returns `code` so
 * callers can `return engine_fail(...)`.
 */
__attribute__((format(printf, 3, 4)))
static int engine_fail(tsi_engine *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tsi_set_errorv(code, fmt, ap);
	va_end(ap);
	if (e)
		snprintf(e->error, sizeof(e->error), "%s", tsi_error_last());
	tsi_log(TSI_LOG_ERR, "ENGINE", "%s", tsi_error_last());
	return code;
}

/* Copies the thread-local error (set by a callee) into the engine. */
static int engine_keep_error(tsi_engine *e, int code)
{
	if (e)
		snprintf(e->error, sizeof(e->error), "%s", tsi_error_last());
	return code;
}

/* The engine's last failure message, kept until the next failure. */
TSI_API const char *tsi_engine_error(const tsi_engine *engine)
{
	return engine ? engine->error : "";
}

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

/* --- Device memory access ------------------------------------------------ */

/* Start of replica r's copy of variable `var`. */
static inline unsigned char *var_base(const tsi_engine *e, uint32_t var, unsigned r)
{
	return e->data[var] + (size_t)r * e->var_bytes[var];
}

/* Makes the staging buffer at least `bytes` long; NULL when out of memory. */
static unsigned char *tmp_reserve(tsi_engine *e, size_t bytes)
{
	if (bytes > e->tmp_cap || !e->tmp) {
		size_t cap = e->tmp_cap ? e->tmp_cap : 256;
		while (cap < bytes)
			cap *= 2;
		unsigned char *p = realloc(e->tmp, cap);
		if (!p)
			return NULL;
		e->tmp = p;
		e->tmp_cap = cap;
	}
	return e->tmp;
}

/* Copies replica r's elements of `t` into `dst` in row-major order. */
static void tensor_gather(const tsi_engine *e, const tsi_tensor *t, unsigned r, void *dst)
{
	size_t size = tsi_type_size(t->type);
	unsigned char *out = dst;

	for (size_t i = 0; i < t->n_regions; i++) {
		const tsi_region *reg = &t->regions[i];
		memcpy(out, var_base(e, reg->var, r) + reg->begin * size, reg->len * size);
		out += reg->len * size;
	}
}

/* Writes `src` (row-major elements of `t`) into replica r's memory. */
static void tensor_scatter(tsi_engine *e, const tsi_tensor *t, unsigned r, const void *src)
{
	size_t size = tsi_type_size(t->type);
	const unsigned char *in = src;

	for (size_t i = 0; i < t->n_regions; i++) {
		const tsi_region *reg = &t->regions[i];
		memcpy(var_base(e, reg->var, r) + reg->begin * size, in, reg->len * size);
		in += reg->len * size;
	}
}

/* The value of the one-element tensor `t` on replica r, as a double. */
static double scalar_value(const tsi_engine *e, const tsi_tensor *t, unsigned r)
{
	const tsi_region *reg = &t->regions[0];

	return tsi_type_load(t->type, var_base(e, reg->var, r), reg->begin);
}

/* True when every element of `t` lives in a variable that has device memory
 * (handles created after compilation may point at newer variables). */
static bool tensor_has_memory(const tsi_engine *e, const tsi_tensor *t)
{
	for (size_t i = 0; i < t->n_regions; i++)
		if (t->regions[i].var >= e->n_vars)
			return false;
	return true;
}

/* --- Creation ------------------------------------------------------------ */

/*
 * Compiles `graph` with the programs and makes an engine that can run
 * them. Refuses a graph that recorded a building error; checks options;
 * keeps tsi_compile's result (the seam where the compiler model adds its
 * analyses). Stream connection slots exist from here on, so streams may be
 * connected before or after loading.
 */
TSI_API int tsi_engine_new(tsi_engine **out, tsi_graph *graph, tsi_program *const *programs,
                           size_t n_programs, const tsi_options *opts)
{
	return tsi_engine_new_named(out, graph, programs, n_programs, opts, NULL);
}

/*
 * Resolves the options (code + POPLAR_ENGINE_OPTIONS) into e->options and
 * e->cfg and prepares autoReport. Fails on a bad option, a replica to
 * profile that does not exist, or a report directory that cannot be made.
 */
static int engine_configure(tsi_engine *e, const tsi_options *opts)
{
	unsigned index = __atomic_fetch_add(&engines_created, 1, __ATOMIC_RELAXED);
	int rc;

	rc = tsi_engine_config_resolve(&e->cfg, &e->options, opts);
	if (rc)
		return rc;
	if (e->cfg.replica_to_profile >= e->replicas)
		return tsi_set_error(TSI_ERR_BAD_OPTION,
		                     "engine option 'profiler.replicaToProfile' is %u but the graph "
		                     "has %u replica%s (0 to %u)",
		                     e->cfg.replica_to_profile, e->replicas,
		                     e->replicas == 1 ? "" : "s", e->replicas - 1);
	e->profiled_replica = e->cfg.replica_to_profile;
	return tsi_autoreport_new(&e->report, &e->cfg, e->options, e->name, index);
}

TSI_API int tsi_engine_new_named(tsi_engine **out, tsi_graph *graph,
                                 tsi_program *const *programs, size_t n_programs,
                                 const tsi_options *opts, const char *name)
{
	tsi_engine *e = NULL;
	tsi_graph_core *core;
	tsi_profile_hook hook = {0};
	int rc;

	if (!out)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_new: out is NULL");
	*out = NULL;
	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_new: graph is NULL");
	if (n_programs && !programs)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_engine_new: %zu programs announced but the list is NULL",
		                     n_programs);
	core = graph->core;
	if (core->error_code)
		return tsi_set_error(TSI_ERR_INVALID_GRAPH,
		                     "cannot compile a graph that recorded an error while it was "
		                     "built: %s",
		                     tsi_graph_error(graph));
	for (size_t i = 0; i < n_programs; i++)
		if (!programs[i])
			return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
			                     "tsi_engine_new: program %zu is NULL", i);
	if (core->replication > MAX_REPLICAS)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "replication factor %u is above the %d replicas the engine "
		                     "supports",
		                     core->replication, MAX_REPLICAS);

	e = calloc(1, sizeof(*e));
	if (!e || (name && !(e->name = strdup(name)))) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory creating an engine");
		goto fail;
	}
	e->graph = graph;
	e->core = core;
	e->replicas = core->replication ? core->replication : 1;
	e->mask_words = (e->replicas + 63) / 64;
	rc = engine_configure(e, opts);
	if (rc)
		goto fail;
	if (e->report) {
		hook.ready_cb = tsi_autoreport_graph_ready_cb;
		hook.user_data = e->report;
	}

	if (tsi_log_enabled(TSI_LOG_INFO))
		tsi_log(TSI_LOG_INFO, "ENGINE",
		        "Compiling graph for target '%s': %zu program%s, %zu variables, %zu compute "
		        "sets, %zu vertices, %u replica%s",
		        core->device_target.name, n_programs, n_programs == 1 ? "" : "s",
		        core->vars.len, core->compute_sets.len, core->vertices.len, e->replicas,
		        e->replicas == 1 ? "" : "s");
	tsi_graph_trace_construction_end(core);
	TSI_TRACE_BEGINF("Compiling %s%s", name ? "engine " : "graph for ", name ? name : core->device_target.name);
	rc = tsi_compile(&e->compiled, graph, programs, n_programs, e->options, &hook);
	TSI_TRACE_END();
	if (rc)
		goto fail;
	rc = tsi_autoreport_error(e->report, NULL);
	if (rc)
		goto fail;
	if (e->cfg.graph_report_dest) {
		rc = tsi_graph_report_print(e->cfg.graph_report_dest,
		                            &e->compiled->model->profile, e->options,
		                            tsi_autoreport_profile_path(e->report));
		if (rc)
			goto fail;
	}
	if (tsi_log_enabled(TSI_LOG_INFO))
		tsi_log(TSI_LOG_INFO, "ENGINE",
		        "Compiled graph: %zu program nodes, %zu compute sets, %zu functions, %u "
		        "variables, %u vertices",
		        e->compiled->programs.len, e->compiled->compute_sets.len,
		        e->compiled->functions.len, e->compiled->n_vars, e->compiled->n_vertices);

	e->n_programs = n_programs;
	e->n_vars = e->compiled->n_vars;
	e->n_streams = core->streams.len;
	e->n_remote = core->remote_buffers.len;
	e->n_plans = core->compute_sets.len;
	e->programs = malloc((n_programs ? n_programs : 1) * sizeof(*e->programs));
	e->runs_of_program = calloc(n_programs + 1, sizeof(*e->runs_of_program));
	e->conns = calloc(e->n_streams * e->replicas + 1, sizeof(*e->conns));
	e->plans = calloc(e->n_plans + 1, sizeof(*e->plans));
	if (!e->programs || !e->runs_of_program || !e->conns || !e->plans) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory creating an engine");
		goto fail;
	}
	if (n_programs)
		memcpy(e->programs, programs, n_programs * sizeof(*programs));
	*out = e;
	return TSI_OK;
fail:
	tsi_engine_free(e);
	return rc;
}

/* Drops one replica slot's reference to a stream connection. */
static void conn_unref(stream_conn *c)
{
	if (c && --c->refs == 0) {
		free(c->stage);
		free(c);
	}
}

/* Frees one compute set's cached layout. */
static void plan_free(cs_plan *p)
{
	if (!p)
		return;
	free(p->vertices);
	free(p->calls);
	free(p->fields);
	free(p->field_off);
	free(p->offsets);
	free(p->in);
	free(p->out);
	free(p->direct);
	free(p->zero);
	free(p);
}

/* Releases device memory (variables and remote buffers). */
static void free_device_memory(tsi_engine *e)
{
	if (e->data)
		for (uint32_t v = 0; v < e->n_vars; v++)
			free(e->data[v]);
	free(e->data);
	free(e->var_bytes);
	e->data = NULL;
	e->var_bytes = NULL;
	if (e->remote)
		for (size_t i = 0; i < e->n_remote; i++)
			free(e->remote[i]);
	free(e->remote);
	e->remote = NULL;
}

/* Frees the engine and everything it allocated (device memory, stream
 * connections, cached compute-set layouts). The graph and device are the
 * caller's. NULL is ignored. */
TSI_API void tsi_engine_free(tsi_engine *engine)
{
	if (!engine)
		return;
	free_device_memory(engine);
	if (engine->conns)
		for (size_t i = 0; i < engine->n_streams * engine->replicas; i++)
			conn_unref(engine->conns[i]);
	free(engine->conns);
	if (engine->plans)
		for (size_t i = 0; i < engine->n_plans; i++)
			plan_free(engine->plans[i]);
	free(engine->plans);
	free(engine->scratch);
	free(engine->tmp);
	free(engine->programs);
	free(engine->trace);
	if (engine->report) {
		tsi_autoreport_flush(engine->report, (const tsi_run_profile *const *)engine->runs,
		                     engine->n_runs);
		tsi_autoreport_free(engine->report);
	}
	free(engine->runs);
	free(engine->runs_of_program);
	tsi_arena_clear(&engine->run_arena);
	tsi_engine_config_clear(&engine->cfg);
	tsi_options_free(engine->options);
	free(engine->name);
	if (engine->compiled)
		tsi_compiled_free(engine->compiled);
	free(engine);
}

/* How many programs the engine was given (valid run indices). */
TSI_API size_t tsi_engine_num_programs(const tsi_engine *engine)
{
	return engine ? engine->n_programs : 0;
}

/* Sets where PrintTensor writes; NULL goes back to stdout (looked up at
 * print time, so a redirected stdout is honoured). */
TSI_API void tsi_engine_set_print_stream(tsi_engine *engine, FILE *out)
{
	if (engine)
		engine->print = out;
}

/* --- Loading ---------------------------------------------------------------- */

/* Message for every attempt to load or run with a NEVER device. */
static const char never_message[] =
    "device connection type NEVER: the engine was compiled but cannot be loaded or run; "
    "use ALWAYS or ON_DEMAND to run";

/*
 * Allocates zeroed device memory for every replica of every variable and
 * remote buffer, and writes the constants' values into every replica.
 */
static int alloc_device_memory(tsi_engine *e)
{
	e->var_bytes = calloc(e->n_vars + 1, sizeof(*e->var_bytes));
	e->data = calloc(e->n_vars + 1, sizeof(*e->data));
	e->remote = calloc(e->n_remote + 1, sizeof(*e->remote));
	if (!e->var_bytes || !e->data || !e->remote)
		goto oom;
	for (uint32_t i = 0; i < e->n_vars; i++) {
		const tsi_var *v = tsi_graph_var(e->graph, i);
		size_t bytes = v->numel * tsi_type_size(v->type);
		size_t total;

		e->var_bytes[i] = bytes;
		if (!bytes)
			continue;
		if (__builtin_mul_overflow(bytes, (size_t)e->replicas, &total))
			goto oom;
		e->data[i] = calloc(1, total);
		if (!e->data[i])
			goto oom;
		if (v->is_constant && v->init)
			for (unsigned r = 0; r < e->replicas; r++)
				memcpy(e->data[i] + (size_t)r * bytes, v->init, bytes);
	}
	for (size_t i = 0; i < e->n_remote; i++) {
		const tsi_remote_buffer *rb = e->core->remote_buffers.items[i];
		size_t bytes;

		if (__builtin_mul_overflow(rb->numel * tsi_type_size(rb->type), rb->repeats, &bytes) ||
		    __builtin_mul_overflow(bytes, (size_t)e->replicas, &bytes))
			goto oom;
		e->remote[i] = calloc(1, bytes ? bytes : 1);
		if (!e->remote[i])
			goto oom;
	}
	return TSI_OK;
oom:
	free_device_memory(e);
	return engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory allocating device memory");
}

/*
 * Loads the engine onto `device`: checks the device is the one the graph
 * was built for, attaches an ON_DEMAND device, and (re)initialises device
 * memory. A PRE_COMPILE device "loads" without memory: runs then do
 * nothing, reads give zeros. A NEVER device refuses.
 */
static int check_fits(tsi_engine *e, const char *what);

static int engine_load(tsi_engine *engine, tsi_device *device)
{
	const tsi_target *want, *have;
	int rc;

	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_load: engine is NULL");
	if (!device)
		return engine_fail(engine, TSI_ERR_INVALID_ARGUMENT, "tsi_engine_load: device is NULL");
	want = &engine->core->device_target;
	have = &device->target;
	if (want->kind != have->kind || want->num_ipus != have->num_ipus ||
	    want->tiles_per_ipu != have->tiles_per_ipu)
		return engine_fail(engine, TSI_ERR_INVALID_ARGUMENT,
		                   "device '%s' (%s, %u IPU%s x %u tiles) does not match the target "
		                   "'%s' the graph was built for (%s, %u IPU%s x %u tiles)",
		                   have->name, have->kind == TSI_TARGET_CPU ? "CPU" : "IPU Model",
		                   have->num_ipus, have->num_ipus == 1 ? "" : "s", have->tiles_per_ipu,
		                   want->name, want->kind == TSI_TARGET_CPU ? "CPU" : "IPU Model",
		                   want->num_ipus, want->num_ipus == 1 ? "" : "s", want->tiles_per_ipu);

	free_device_memory(engine);
	engine->loaded = false;
	engine->dry = false;
	engine->never = false;
	engine->device = NULL;

	switch (device->connection) {
	case TSI_CONNECT_NEVER:
		engine->never = true;
		return engine_fail(engine, TSI_ERR_NOT_ATTACHED, "%s", never_message);
	case TSI_CONNECT_PRE_COMPILE:
		tsi_log(TSI_LOG_INFO, "ENGINE",
		        "Loading onto device '%s' with connection type PRE_COMPILE: not attaching; "
		        "runs will execute nothing and reads will give zeros",
		        device->target.name);
		engine->device = device;
		engine->dry = true;
		engine->loaded = true;
		return TSI_OK;
	case TSI_CONNECT_ON_DEMAND:
		if (!device->attached)
			tsi_log(TSI_LOG_INFO, "ENGINE", "Attaching to device '%s' (connection type ON_DEMAND)",
			        device->target.name);
		/* fall through */
	case TSI_CONNECT_ALWAYS:
	default:
		rc = check_fits(engine, "tsi_engine_load");
		if (rc)
			return rc;
		rc = tsi_device_attach(device);
		if (rc)
			return engine_keep_error(engine, rc);
		break;
	}

	rc = alloc_device_memory(engine);
	if (rc)
		return rc;
	engine->device = device;
	engine->loaded = true;
	if (tsi_log_enabled(TSI_LOG_INFO)) {
		size_t bytes = 0;
		for (uint32_t i = 0; i < engine->n_vars; i++)
			bytes += engine->var_bytes[i];
		tsi_log(TSI_LOG_INFO, "ENGINE",
		        "Loaded onto device '%s': %zu bytes of variables per replica, %u replica%s",
		        device->target.name, bytes, engine->replicas, engine->replicas == 1 ? "" : "s");
	}
	return TSI_OK;
}

/* Loads the engine onto `device` (engine_load), traced as one span. */
TSI_API int tsi_engine_load(tsi_engine *engine, tsi_device *device)
{
	int rc;

	TSI_TRACE_BEGINF("Loading engine onto %s", device ? device->target.name : "(no device)");
	rc = engine_load(engine, device);
	TSI_TRACE_END();
	return rc;
}

/* A program that does not fit compiles (debug.allowOutOfMemory, the
 * default) so its graph profile can be studied, but cannot be loaded or
 * run, as on hardware. Returns TSI_OK when it fits. */
static int check_fits(tsi_engine *e, const char *what)
{
	const tsi_profile_builder *b = e->compiled->model;
	if (b && b->profile.n_oom_tiles) {
		char msg[768];
		tsi_model_oom_message(b, msg, sizeof(msg));
		return engine_fail(e, TSI_ERR_OUT_OF_MEMORY,
		                   "%s: the program does not fit: %s; the graph profile "
		                   "(tsi_engine_get_graph_profile) shows where the memory goes",
		                   what, msg);
	}
	return TSI_OK;
}

/* Fails unless the engine is loaded; `what` names the call for the message. */
static int check_loaded(tsi_engine *e, const char *what)
{
	if (e->loaded)
		return TSI_OK;
	if (e->never)
		return engine_fail(e, TSI_ERR_NOT_ATTACHED, "%s: %s", what, never_message);
	return engine_fail(e, TSI_ERR_NOT_ATTACHED,
	                   "%s: engine not loaded: call tsi_engine_load first", what);
}

/* --- Compute sets ------------------------------------------------------------ */

/* Appends a move to a list, merging it into the previous one when both
 * sides continue exactly where that one stopped. */
static void xfer_append(xfer *list, size_t *n, uint32_t var, size_t var_off, size_t scratch_off,
                        size_t bytes)
{
	if (*n) {
		xfer *last = &list[*n - 1];
		size_t end = last->scratch_off + last->count * last->bytes;
		/* Contiguous with a single piece: one longer piece. */
		if (last->var == var && last->count == 1 && end == scratch_off &&
		    (var == ZERO_VAR || last->var_off + last->bytes == var_off)) {
			last->bytes += bytes;
			return;
		}
		/* The next piece of a strided run (pieces not overlapping). */
		if (last->var == var && var != ZERO_VAR && last->bytes == bytes && end == scratch_off &&
		    var_off > last->var_off) {
			size_t stride = last->count == 1 ? var_off - last->var_off : last->stride;
			if (stride >= bytes && var_off == last->var_off + last->count * stride) {
				last->stride = stride;
				last->count++;
				return;
			}
		}
	}
	list[*n] = (xfer){var, var_off, scratch_off, bytes, 1, 0};
	(*n)++;
}

/* A byte range of one variable, for the in-place output check. */
typedef struct var_range {
	uint32_t var;
	size_t begin, end;  /* bytes, one replica */
	size_t field;       /* the plan field writing it (outputs only) */
} var_range;

static int cmp_range(const void *a, const void *b)
{
	const var_range *x = a, *y = b;

	if (x->var != y->var)
		return x->var < y->var ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/*
 * Marks in `in_place` the output and in-out fields of the compute set's
 * vertices that can be used straight in variable memory: one contiguous
 * region that no other field of the set reads (so every vertex still
 * sees its inputs as they were before the set, the BSP rule) and that no
 * other written field touches (so the order of writes cannot matter).
 * The rest go through scratch: copied in, written back after all
 * vertices ran. Saves most of the simulator's data movement after the
 * in-place inputs.
 */
/* Whether `var` is among the sorted writes[0..n). */
static bool written_var(const var_range *writes, size_t n, uint32_t var)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (writes[mid].var < var)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && writes[lo].var == var;
}

static int mark_in_place_outputs(const cs_plan *p, bool *in_place)
{
	size_t n_reads = 0, cap_reads = 0, n_writes = 0, fi = 0;
	var_range *reads = NULL, *writes = NULL;

	/* The candidates first: one contiguous region, written. */
	for (size_t pass = 0; pass < 2; pass++) {
		fi = 0;
		n_writes = 0;
		for (size_t i = 0; i < p->n_vertices; i++) {
			const tsi_vertex *v = p->vertices[i];
			for (size_t f = 0; f < v->codelet->n_fields; f++, fi++) {
				const tsi_field_def *def = &v->codelet->fields[f];
				const tsi_field_conn *c = &v->fields[f];
				if (def->dir == TSI_FIELD_INPUT || def->shape == TSI_FIELD_VECTOR_LIST ||
				    c->n != 1 || c->tensors[0]->n_regions != 1)
					continue;
				const tsi_tensor *t = c->tensors[0];
				size_t size = tsi_type_size(t->type);
				if (writes)
					writes[n_writes] = (var_range){
					    t->regions[0].var, t->regions[0].begin * size,
					    (t->regions[0].begin + t->regions[0].len) * size, fi};
				n_writes++;
			}
		}
		if (pass == 0 && !(writes = malloc((n_writes + 1) * sizeof(*writes))))
			return TSI_ERR_NO_MEMORY;
	}
	qsort(writes, n_writes, sizeof(*writes), cmp_range);
	/* Then what the set reads of the variables the candidates write (other
	 * variables cannot conflict), adjacent pieces merged as they come: a
	 * matmul reads its operands and writes a new variable, so this list is
	 * usually empty. */
	fi = 0;
	for (size_t i = 0; i < p->n_vertices; i++) {
		const tsi_vertex *v = p->vertices[i];
		for (size_t f = 0; f < v->codelet->n_fields; f++, fi++) {
			const tsi_field_def *def = &v->codelet->fields[f];
			const tsi_field_conn *c = &v->fields[f];
			if (def->dir == TSI_FIELD_OUTPUT)
				continue; /* read by nobody */
			if (def->dir == TSI_FIELD_INOUT && def->shape != TSI_FIELD_VECTOR_LIST &&
			    c->n == 1 && c->tensors[0]->n_regions == 1)
				continue; /* a candidate: checked against the others below */
			for (size_t k = 0; k < c->n; k++) {
				const tsi_tensor *t = c->tensors[k];
				size_t size = tsi_type_size(t->type);
				for (size_t r = 0; r < t->n_regions; r++) {
					const tsi_region *reg = &t->regions[r];
					var_range x = {reg->var, reg->begin * size,
					               (reg->begin + reg->len) * size, 0};
					if (!written_var(writes, n_writes, x.var))
						continue;
					if (n_reads && reads[n_reads - 1].var == x.var &&
					    reads[n_reads - 1].end == x.begin) {
						reads[n_reads - 1].end = x.end;
						continue;
					}
					if (n_reads == cap_reads) {
						size_t cap = cap_reads ? cap_reads * 2 : 64;
						var_range *grown = realloc(reads, cap * sizeof(*grown));
						if (!grown) {
							free(reads);
							free(writes);
							return TSI_ERR_NO_MEMORY;
						}
						reads = grown;
						cap_reads = cap;
					}
					reads[n_reads++] = x;
				}
			}
		}
	}
	if (n_reads)
		qsort(reads, n_reads, sizeof(*reads), cmp_range);
	/* Merge the reads into disjoint ranges, sorted by (var, begin) and so
	 * also by (var, end). */
	size_t n_merged = 0;
	for (size_t i = 0; i < n_reads; i++) {
		if (n_merged && reads[n_merged - 1].var == reads[i].var &&
		    reads[i].begin <= reads[n_merged - 1].end) {
			if (reads[i].end > reads[n_merged - 1].end)
				reads[n_merged - 1].end = reads[i].end;
		} else {
			reads[n_merged++] = reads[i];
		}
	}
	for (size_t i = 0; i < n_writes; i++) {
		const var_range *w = &writes[i];
		bool ok = w->end > w->begin;
		/* Another output overlapping this one (sorted: the neighbours). */
		if (i > 0 && writes[i - 1].var == w->var && writes[i - 1].end > w->begin)
			ok = false;
		if (i + 1 < n_writes && writes[i + 1].var == w->var && writes[i + 1].begin < w->end)
			ok = false;
		/* The first merged read ending after w begins must start at or
		 * after w's end. */
		size_t lo = 0, hi = n_merged;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const var_range *r = &reads[mid];
			if (r->var < w->var || (r->var == w->var && r->end <= w->begin))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n_merged && reads[lo].var == w->var && reads[lo].begin < w->end)
			ok = false;
		in_place[w->field] = ok;
	}
	free(reads);
	free(writes);
	return TSI_OK;
}

/*
 * Works out the scratch layout of compute set `cs`: where each field of
 * each vertex lives in the arena, its sub-vector offsets, and the moves
 * that fill the arena before the vertices run and empty it after. Only
 * vertices that existed at compile time take part (they were checked).
 */
static int plan_build(tsi_engine *e, tsi_compute_set *cs, cs_plan **out)
{
	cs_plan *p = calloc(1, sizeof(*p));
	size_t n_offsets = 0, n_regions = 0, n_zero = 0, pos = 0;
	size_t fi = 0, oi = 0;
	bool *in_place = NULL;    /* per field: an output written in place */
	int rc = TSI_ERR_NO_MEMORY; /* until something else goes wrong */

	*out = NULL;
	if (!p || !(p->vertices = malloc((cs->vertices.len + 1) * sizeof(*p->vertices))) ||
	    !(p->calls = malloc((cs->vertices.len + 1) * sizeof(*p->calls))))
		goto fail;

	/* Pass 1: count, and check what compilation promised. */
	for (size_t i = 0; i < cs->vertices.len; i++) {
		tsi_vertex *v = cs->vertices.items[i];
		if (v->id >= e->compiled->n_vertices)
			continue; /* added after compilation: not part of this engine */
		if (!v->codelet) {
			rc = engine_fail(e, TSI_ERR_UNKNOWN_VERTEX_TYPE,
			                 "vertex %u of compute set '%s' has unknown type '%s'", v->id,
			                 cs->name, v->type_name);
			goto fail;
		}
		p->calls[p->n_vertices] = (vertex_call){v->codelet->compute, v->codelet->n_fields};
		p->vertices[p->n_vertices++] = v;
		p->n_fields += v->codelet->n_fields;
		for (size_t f = 0; f < v->codelet->n_fields; f++) {
			const tsi_field_conn *c = &v->fields[f];
			bool list = v->codelet->fields[f].shape == TSI_FIELD_VECTOR_LIST;
			n_offsets += (list ? c->n : 1) + 1;
			if (v->codelet->fields[f].dir == TSI_FIELD_OUTPUT)
				n_zero++;
			for (size_t k = 0; k < c->n; k++) {
				n_regions += c->tensors[k]->n_regions;
				for (size_t r = 0; r < c->tensors[k]->n_regions; r++)
					if (c->tensors[k]->regions[r].var >= e->n_vars) {
						rc = engine_fail(e, TSI_ERR_INVALID_GRAPH,
						                 "vertex %u (type '%s') of compute set '%s' is "
						                 "connected to a variable created after the "
						                 "engine was compiled",
						                 v->id, v->type_name, cs->name);
						goto fail;
					}
			}
		}
	}
	p->fields = calloc(p->n_fields + 1, sizeof(*p->fields));
	p->field_off = calloc(p->n_fields + 1, sizeof(*p->field_off));
	p->offsets = calloc(n_offsets + 1, sizeof(*p->offsets));
	p->in = calloc(n_regions + n_zero + 1, sizeof(*p->in));
	p->out = calloc(n_regions + 1, sizeof(*p->out));
	p->direct = calloc(p->n_fields + 1, sizeof(*p->direct));
	p->zero = calloc(n_zero + 1, sizeof(*p->zero));
	in_place = calloc(p->n_fields + 1, sizeof(*in_place));
	if (!p->fields || !p->field_off || !p->offsets || !p->in || !p->out || !p->direct ||
	    !p->zero || !in_place || mark_in_place_outputs(p, in_place) != TSI_OK)
		goto fail;

	/* Pass 2: lay the fields out and list the moves. */
	for (size_t i = 0; i < p->n_vertices; i++) {
		const tsi_vertex *v = p->vertices[i];
		for (size_t f = 0; f < v->codelet->n_fields; f++, fi++) {
			const tsi_field_def *def = &v->codelet->fields[f];
			const tsi_field_conn *c = &v->fields[f];
			bool list = def->shape == TSI_FIELD_VECTOR_LIST;
			tsi_field *field = &p->fields[fi];
			size_t *offs = &p->offsets[oi];
			size_t count = 0, field_start;

			offs[0] = 0;
			/* Fields used in variable memory directly, no scratch copy:
			 * an input that is one contiguous region (nothing writes
			 * variable memory while the vertices run except in-place
			 * fields, which nobody else reads: BSP semantics hold; this is
			 * most of the data a compute set moves), and the outputs and
			 * in-outs mark_in_place_outputs chose. An output is
			 * zero-filled first, as a scratch output is. */
			bool direct_input = def->dir == TSI_FIELD_INPUT && !list && c->n == 1 &&
			                    c->tensors[0]->n_regions == 1;
			if (direct_input || in_place[fi]) {
				const tsi_tensor *t = c->tensors[0];
				size_t size = tsi_type_size(t->type);
				p->direct[p->n_direct++] = (direct_field){
				    fi, t->regions[0].var, t->regions[0].begin * size};
				if (def->dir == TSI_FIELD_OUTPUT)
					p->zero[p->n_zero++] = (xfer){t->regions[0].var,
					                              t->regions[0].begin * size, 0,
					                              t->regions[0].len * size, 1, 0};
				offs[1] = t->numel;
				field->count = t->numel;
				field->n_vectors = 1;
				field->offsets = offs;
				p->field_off[fi] = 0;
				oi += 2;
				continue;
			}
			pos = (pos + FIELD_ALIGN - 1) & ~(size_t)(FIELD_ALIGN - 1);
			field_start = pos;
			for (size_t k = 0; k < c->n; k++) {
				const tsi_tensor *t = c->tensors[k];
				size_t size = tsi_type_size(t->type);
				for (size_t r = 0; r < t->n_regions; r++) {
					const tsi_region *reg = &t->regions[r];
					size_t bytes = reg->len * size;
					if (def->dir != TSI_FIELD_OUTPUT)
						xfer_append(p->in, &p->n_in, reg->var, reg->begin * size, pos, bytes);
					if (def->dir != TSI_FIELD_INPUT)
						xfer_append(p->out, &p->n_out, reg->var, reg->begin * size, pos,
						            bytes);
					pos += bytes;
				}
				count += t->numel;
				if (list)
					offs[k + 1] = count;
			}
			if (!list)
				offs[1] = count;
			if (def->dir == TSI_FIELD_OUTPUT && pos > field_start)
				xfer_append(p->in, &p->n_in, ZERO_VAR, 0, field_start, pos - field_start);
			field->count = count;
			field->n_vectors = list ? c->n : 1;
			field->offsets = offs;
			p->field_off[fi] = field_start;
			oi += field->n_vectors + 1;
		}
	}
	p->scratch_bytes = pos;
	free(in_place);
	*out = p;
	return TSI_OK;
fail:
	free(in_place);
	if (rc == TSI_ERR_NO_MEMORY)
		engine_fail(e, rc, "out of host memory laying out compute set '%s'", cs->name);
	plan_free(p);
	return rc;
}

/* Returns the cached plan of `cs` with its field pointers aimed at the
 * current scratch arena, building the plan and growing the arena first
 * when needed. */
static int plan_get(tsi_engine *e, tsi_compute_set *cs, cs_plan **out)
{
	cs_plan *p;
	int rc;

	if (cs->id >= e->n_plans)
		return engine_fail(e, TSI_ERR_INVALID_GRAPH,
		                   "compute set '%s' was created after the engine was compiled",
		                   cs->name);
	p = e->plans[cs->id];
	if (!p) {
		rc = plan_build(e, cs, &p);
		if (rc)
			return rc;
		e->plans[cs->id] = p;
	}
	if (p->scratch_bytes > e->scratch_cap || !e->scratch) {
		size_t cap = p->scratch_bytes > 64 ? p->scratch_bytes : 64;
		unsigned char *s = realloc(e->scratch, cap);
		if (!s)
			return engine_fail(e, TSI_ERR_NO_MEMORY,
			                   "out of host memory for compute set '%s' (%zu bytes of fields)",
			                   cs->name, p->scratch_bytes);
		e->scratch = s;
		e->scratch_cap = cap;
	}
	if (p->bound != e->scratch) {
		for (size_t i = 0; i < p->n_fields; i++)
			p->fields[i].data = e->scratch + p->field_off[i];
		p->bound = e->scratch;
	}
	*out = p;
	return TSI_OK;
}

/*
 * Runs compute set `cs` on every replica of `m` as one BSP superstep:
 * gather every field, run every vertex, then write outputs back.
 */
/* memcpy for the gathers and write-backs of compute sets: most of them
 * move one element (a strided view such as a transpose gathers element
 * by element), and a copy of a constant size compiles to a plain load and
 * store where a call to memcpy costs more than the copy. */
static inline void copy_bytes(unsigned char *dst, const unsigned char *src, size_t bytes)
{
	switch (bytes) {
	case 2: memcpy(dst, src, 2); break;
	case 4: memcpy(dst, src, 4); break;
	case 8: memcpy(dst, src, 8); break;
	default: memcpy(dst, src, bytes); break;
	}
}

static int run_compute_set(tsi_engine *e, tsi_compute_set *cs, const rmask *m)
{
	cs_plan *p = NULL;
	int rc = plan_get(e, cs, &p);

	if (rc)
		return rc;
	if (tsi_log_enabled(TSI_LOG_DEBUG))
		tsi_log(TSI_LOG_DEBUG, "ENGINE", "Executing compute set '%s' (%zu vertices)", cs->name,
		        p->n_vertices);
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r))
			continue;
		for (size_t i = 0; i < p->n_direct; i++) {
			const direct_field *d = &p->direct[i];
			p->fields[d->field].data = var_base(e, d->var, r) + d->var_off;
		}
		for (size_t i = 0; i < p->n_zero; i++) {
			const xfer *x = &p->zero[i];
			memset(var_base(e, x->var, r) + x->var_off, 0, x->bytes);
		}
		for (size_t i = 0; i < p->n_in; i++) {
			const xfer *x = &p->in[i];
			if (x->var == ZERO_VAR) {
				memset(e->scratch + x->scratch_off, 0, x->bytes);
				continue;
			}
			unsigned char *dst = e->scratch + x->scratch_off;
			const unsigned char *src = var_base(e, x->var, r) + x->var_off;
			for (size_t k = 0; k < x->count; k++, dst += x->bytes, src += x->stride)
				copy_bytes(dst, src, x->bytes);
		}
		const tsi_field *f = p->fields;
		for (size_t i = 0; i < p->n_vertices; i++) {
			const vertex_call *call = &p->calls[i];
			if (!call->compute(f, call->n_fields)) {
				const tsi_vertex *v = p->vertices[i];
				if (e->replicas > 1)
					return engine_fail(e, TSI_ERR_VERTEX_FAILED,
					                   "vertex %u (type '%s') in compute set '%s' failed on "
					                   "replica %u: its compute function returned false",
					                   v->id, v->type_name, cs->name, r);
				return engine_fail(e, TSI_ERR_VERTEX_FAILED,
				                   "vertex %u (type '%s') in compute set '%s' failed: its "
				                   "compute function returned false",
				                   v->id, v->type_name, cs->name);
			}
			f += call->n_fields;
		}
		for (size_t i = 0; i < p->n_out; i++) {
			const xfer *x = &p->out[i];
			unsigned char *dst = var_base(e, x->var, r) + x->var_off;
			const unsigned char *src = e->scratch + x->scratch_off;
			for (size_t k = 0; k < x->count; k++, dst += x->stride, src += x->bytes)
				copy_bytes(dst, src, x->bytes);
		}
	}
	return TSI_OK;
}

/* --- Streams ------------------------------------------------------------------ */

/* Bytes one copy of `s` moves. */
static size_t stream_bytes(const tsi_stream *s)
{
	return s->numel * tsi_type_size(s->type);
}

/* Reads one transfer from a circular host buffer into `dst`, wrapping at
 * the end (byte-wise), and advances the cursor. */
static void circular_read(stream_conn *c, unsigned char *dst, size_t bytes)
{
	size_t first = c->size - c->cursor;

	if (first > bytes)
		first = bytes;
	memcpy(dst, c->begin + c->cursor, first);
	memcpy(dst + first, c->begin, bytes - first);
	c->cursor = (c->cursor + bytes) % c->size;
}

/* Writes one transfer into a circular host buffer; see circular_read. */
static void circular_write(stream_conn *c, const unsigned char *src, size_t bytes)
{
	size_t first = c->size - c->cursor;

	if (first > bytes)
		first = bytes;
	memcpy(c->begin + c->cursor, src, first);
	memcpy(c->begin, src + first, bytes - first);
	c->cursor = (c->cursor + bytes) % c->size;
}

/* The connection replica r of stream `s` uses for this copy: replica 0's
 * for a BROADCAST host-to-device stream, its own otherwise. */
static stream_conn *stream_conn_for(const tsi_engine *e, const tsi_stream *s, unsigned r)
{
	if (s->to_device && s->mode == TSI_REPLICATED_STREAM_BROADCAST)
		r = 0;
	return e->conns[(size_t)s->id * e->replicas + r];
}

/*
 * Runs one stream copy on the replicas of `m`. Host-to-device: each
 * distinct connection is read once per copy and its data goes to every
 * replica that uses it — one transfer for a BROADCAST stream, and for a
 * PER_REPLICA stream connected with tsi_engine_connect_stream (shared by
 * all replicas) every replica gets the same data, as engine.h promises.
 * Device-to-host: every replica transfers in replica order, so replicas
 * sharing one buffer fill it one after the other (no replica's data is
 * lost) and a shared callback is called once per replica.
 */
static int run_stream_copy(tsi_engine *e, const tsi_program *p, const rmask *m)
{
	const tsi_stream *s = p->stream;
	size_t bytes = stream_bytes(s);

	if (s->id >= e->n_streams)
		return engine_fail(e, TSI_ERR_INVALID_GRAPH,
		                   "stream '%s' was created after the engine was compiled", s->name);
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r) || stream_conn_for(e, s, r))
			continue;
		if (e->replicas > 1 && !(s->to_device && s->mode == TSI_REPLICATED_STREAM_BROADCAST))
			return engine_fail(e, TSI_ERR_STREAM_NOT_CONNECTED,
			                   "stream '%s' is not connected for replica %u: call "
			                   "tsi_engine_connect_stream or tsi_engine_connect_stream_cb "
			                   "before running",
			                   s->name, r);
		return engine_fail(e, TSI_ERR_STREAM_NOT_CONNECTED,
		                   "stream '%s' is not connected: call tsi_engine_connect_stream or "
		                   "tsi_engine_connect_stream_cb before running",
		                   s->name);
	}
	e->copy_seq++;
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r))
			continue;
		stream_conn *c = stream_conn_for(e, s, r);
		if (s->to_device) {
			if (c->seq != e->copy_seq) {
				if (c->cb) {
					TSI_TRACE_BEGINF("Stream callback %s", s->name);
					c->cb(c->stage, bytes, c->user_data);
					TSI_TRACE_END();
				} else {
					circular_read(c, c->stage, bytes);
				}
				c->seq = e->copy_seq;
			}
			tensor_scatter(e, p->dst, r, c->stage);
		} else {
			tensor_gather(e, p->src, r, c->stage);
			if (c->cb) {
				TSI_TRACE_BEGINF("Stream callback %s", s->name);
				c->cb(c->stage, bytes, c->user_data);
				TSI_TRACE_END();
			} else {
				circular_write(c, c->stage, bytes);
			}
		}
	}
	return TSI_OK;
}

/* Finds a stream by name for a connect call, failing with a message. */
static int find_stream_for_connect(tsi_engine *e, const char *name, tsi_stream **out)
{
	tsi_stream *s = tsi_graph_find_stream(e->graph, name);

	if (!s)
		return engine_fail(e, TSI_ERR_UNKNOWN_HANDLE, "no stream named '%s' in the graph",
		                   name ? name : "(null)");
	if (s->id >= e->n_streams)
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                   "stream '%s' was created after the engine was compiled", name);
	*out = s;
	return TSI_OK;
}

/*
 * Attaches a new connection to replica `replica` of stream `s`, or to all
 * replicas (sharing it) when `all` is set. Takes ownership of `c`.
 */
static int install_conn(tsi_engine *e, const tsi_stream *s, bool all, unsigned replica,
                        stream_conn *c)
{
	size_t base = (size_t)s->id * e->replicas;

	c->stage = malloc(stream_bytes(s));
	if (!c->stage) {
		free(c);
		return engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory connecting stream '%s'",
		                   s->name);
	}
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!all && r != replica)
			continue;
		conn_unref(e->conns[base + r]);
		e->conns[base + r] = c;
		c->refs++;
	}
	return TSI_OK;
}

/* The stream a connect call names, checking the replica it asks for. */
static int connect_target(tsi_engine *e, const char *name, bool all, unsigned replica,
                          tsi_stream **out)
{
	int rc = find_stream_for_connect(e, name, out);

	if (rc)
		return rc;
	if (!all && replica >= e->replicas)
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                   "replica %u of stream '%s' does not exist: the graph has %u replica%s",
		                   replica, name, e->replicas, e->replicas == 1 ? "" : "s");
	return TSI_OK;
}

/* Shared body of the two buffer-connecting calls. */
static int connect_buffer(tsi_engine *e, const char *name, bool all, unsigned replica,
                          void *begin, void *end)
{
	tsi_stream *s = NULL;
	stream_conn *c;
	int rc;

	rc = connect_target(e, name, all, replica, &s);
	if (rc)
		return rc;
	if (!begin || !end || (unsigned char *)end < (unsigned char *)begin)
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                   "stream '%s': the host buffer [begin, end) is not a valid range", name);
	size_t size = (size_t)((unsigned char *)end - (unsigned char *)begin);
	if (size < stream_bytes(s))
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                   "stream '%s': a host buffer of %zu bytes is smaller than one "
		                   "transfer (%zu elements of %s = %zu bytes)",
		                   name, size, s->numel, tsi_type_name(s->type), stream_bytes(s));
	c = calloc(1, sizeof(*c));
	if (!c)
		return engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory connecting stream '%s'",
		                   name);
	c->begin = begin;
	c->size = size;
	return install_conn(e, s, all, replica, c);
}

/* Shared body of the two callback-connecting calls. */
static int connect_cb(tsi_engine *e, const char *name, bool all, unsigned replica,
                      tsi_stream_cb cb, void *user_data)
{
	tsi_stream *s = NULL;
	stream_conn *c;
	int rc;

	rc = connect_target(e, name, all, replica, &s);
	if (rc)
		return rc;
	if (!cb)
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT, "stream '%s': the callback is NULL",
		                   name);
	c = calloc(1, sizeof(*c));
	if (!c)
		return engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory connecting stream '%s'",
		                   name);
	c->cb = cb;
	c->user_data = user_data;
	return install_conn(e, s, all, replica, c);
}

/*
 * Connects every replica to one circular buffer. Replicas share its
 * cursor: see run_stream_copy for what that means in each direction.
 */
TSI_API int tsi_engine_connect_stream(tsi_engine *engine, const char *name, void *begin,
                                      void *end)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_connect_stream: engine is NULL");
	return connect_buffer(engine, name, true, 0, begin, end);
}

/* Connects one replica to its own circular buffer. */
TSI_API int tsi_engine_connect_stream_replica(tsi_engine *engine, const char *name,
                                              unsigned replica, void *begin, void *end)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_engine_connect_stream_replica: engine is NULL");
	return connect_buffer(engine, name, false, replica, begin, end);
}

/* Connects every replica to one callback (called once per transfer; see
 * run_stream_copy for shared connections). */
TSI_API int tsi_engine_connect_stream_cb(tsi_engine *engine, const char *name, tsi_stream_cb cb,
                                         void *user_data)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_engine_connect_stream_cb: engine is NULL");
	return connect_cb(engine, name, true, 0, cb, user_data);
}

/* Connects one replica to its own callback. */
TSI_API int tsi_engine_connect_stream_cb_replica(tsi_engine *engine, const char *name,
                                                 unsigned replica, tsi_stream_cb cb,
                                                 void *user_data)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_engine_connect_stream_cb_replica: engine is NULL");
	return connect_cb(engine, name, false, replica, cb, user_data);
}

/* --- Remote buffers ----------------------------------------------------------- */

/* Bytes of one replica's whole remote buffer. */
static size_t remote_bytes(const tsi_remote_buffer *rb)
{
	return rb->repeats * rb->numel * tsi_type_size(rb->type);
}

/* Start of replica r's rows of remote buffer `rb`. */
static unsigned char *remote_base(const tsi_engine *e, const tsi_remote_buffer *rb, unsigned r)
{
	return e->remote[rb->id] + (size_t)r * remote_bytes(rb);
}

/* Runs a remote-buffer copy (either direction) on the replicas of `m`. */
static int run_remote_copy(tsi_engine *e, const tsi_program *p, const rmask *m)
{
	const tsi_remote_buffer *rb = p->remote;
	size_t row_bytes = rb->numel * tsi_type_size(rb->type);

	if (rb->id >= e->n_remote)
		return engine_fail(e, TSI_ERR_INVALID_GRAPH,
		                   "remote buffer '%s' was created after the engine was compiled",
		                   rb->name);
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r))
			continue;
		double row = p->pred ? scalar_value(e, p->pred, r) : 0.0;
		if (row < 0 || row >= (double)rb->repeats)
			return engine_fail(e, TSI_ERR_OUT_OF_RANGE,
			                   "remote buffer '%s': row %lld is out of range (the buffer has "
			                   "%zu rows)",
			                   rb->name, (long long)row, rb->repeats);
		unsigned char *at = remote_base(e, rb, r) + (size_t)row * row_bytes;
		if (p->kind == TSI_PROG_REMOTE_TO_TENSOR)
			tensor_scatter(e, p->dst, r, at);
		else
			tensor_gather(e, p->src, r, at);
	}
	return TSI_OK;
}

/* --- PrintTensor ----------------------------------------------------------------- */

/* Writes element i as a C++ ostream would with default settings. */
static void print_element(FILE *f, tsi_type type, const void *buf, size_t i)
{
	double v = tsi_type_load(type, buf, i);

	if (type == TSI_FLOAT || type == TSI_HALF)
		fprintf(f, "%g", v);
	else
		fprintf(f, "%lld", (long long)v);
}

/* Writes dimension `dim` onwards of a tensor whose elements are `buf`,
 * starting at element *index, nested braces indented one space a level. */
static void print_dims(FILE *f, const tsi_tensor *t, const void *buf, size_t dim, size_t *index,
                       size_t indent)
{
	if (dim + 1 == t->rank) {
		fputc('{', f);
		for (size_t i = 0; i < t->shape[dim]; i++) {
			if (i)
				fputc(',', f);
			print_element(f, t->type, buf, (*index)++);
		}
		fputc('}', f);
		return;
	}
	fputs("{\n", f);
	for (size_t i = 0; i < t->shape[dim]; i++) {
		for (size_t s = 0; s <= indent; s++)
			fputc(' ', f);
		print_dims(f, t, buf, dim + 1, index, indent + 1);
		if (i + 1 < t->shape[dim])
			fputc(',', f);
		fputc('\n', f);
	}
	for (size_t s = 0; s < indent; s++)
		fputc(' ', f);
	fputc('}', f);
}

/* Runs a PrintTensor on the replicas of `m`, in Poplar's layout. */
static int run_print(tsi_engine *e, const tsi_program *p, const rmask *m)
{
	const tsi_tensor *t = p->src;
	FILE *f = e->print ? e->print : stdout;
	unsigned char *buf = tmp_reserve(e, t->numel * tsi_type_size(t->type) + 1);

	if (!buf)
		return engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory printing '%s'", p->title);
	for (unsigned r = 0; r < e->replicas; r++) {
		size_t index = 0;
		if (!mask_has(m, r))
			continue;
		tensor_gather(e, t, r, buf);
		if (e->replicas > 1)
			fprintf(f, "%s (replica %u): ", p->title, r);
		else
			fprintf(f, "%s: ", p->title);
		if (t->rank == 0)
			print_element(f, t->type, buf, 0);
		else
			print_dims(f, t, buf, 0, &index, 0);
		fputc('\n', f);
		fflush(f);
	}
	return TSI_OK;
}

/* --- The interpreter --------------------------------------------------------------- */

static int exec(tsi_engine *e, const tsi_program *p, const rmask *m, unsigned depth);

/* Appends lowered program ids to the current run's trace when the
 * profiled replica takes part. Out of host memory stops recording (the
 * run itself goes on) and is reported after the run. */
static void trace_append(tsi_engine *e, const rmask *m, const uint32_t *ids, uint32_t n)
{
	if (!e->tracing || !n || !mask_has(m, e->profiled_replica))
		return;
	if (e->n_trace + n > e->cap_trace) {
		size_t cap = e->cap_trace ? e->cap_trace * 2 : 1024;
		while (cap < e->n_trace + n)
			cap *= 2;
		uint32_t *t = realloc(e->trace, cap * sizeof(*t));
		if (!t) {
			e->tracing = false;
			return;
		}
		e->trace = t;
		e->cap_trace = cap;
	}
	memcpy(e->trace + e->n_trace, ids, n * sizeof(*ids));
	e->n_trace += n;
}

static inline const tsi_trace_leaves *leaves_of(const tsi_engine *e, const tsi_program *p)
{
	return &e->compiled->model->leaves[p->id];
}

/* The replicas of `m` whose scalar `pred` is nonzero (`want` true) or zero. */
static void mask_where(const tsi_engine *e, const rmask *m, const tsi_tensor *pred, bool want,
                       rmask *out)
{
	mask_zero(e, out);
	for (unsigned r = 0; r < e->replicas; r++)
		if (mask_has(m, r) && (scalar_value(e, pred, r) != 0.0) == want)
			mask_set(out, r);
}

/* RepeatWhileTrue / RepeatWhileFalse: cond, then while the predicate
 * agrees, body and cond; each replica leaves the loop on its own. */
static int exec_while(tsi_engine *e, const tsi_program *p, const rmask *m, unsigned depth)
{
	bool want = p->kind == TSI_PROG_REPEAT_WHILE_TRUE;
	rmask live, next;
	int rc;

	const tsi_trace_leaves *lv = leaves_of(e, p);

	rc = exec(e, p->cond, m, depth + 1);
	if (rc)
		return rc;
	trace_append(e, m, lv->per_predicate, lv->n_per_predicate);
	mask_where(e, m, p->pred, want, &live);
	while (!mask_empty(e, &live)) {
		rc = exec(e, p->body, &live, depth + 1);
		if (!rc)
			rc = exec(e, p->cond, &live, depth + 1);
		if (rc)
			return rc;
		trace_append(e, &live, lv->per_predicate, lv->n_per_predicate);
		mask_where(e, &live, p->pred, want, &next);
		live = next;
	}
	return TSI_OK;
}

/* If: the replicas where the predicate holds run the body, the others the
 * else body (if any). */
static int exec_if(tsi_engine *e, const tsi_program *p, const rmask *m, unsigned depth)
{
	rmask yes, no;
	int rc;

	mask_where(e, m, p->pred, true, &yes);
	mask_where(e, m, p->pred, false, &no);
	if (!mask_empty(e, &yes)) {
		rc = exec(e, p->body, &yes, depth + 1);
		if (rc)
			return rc;
	}
	if (p->else_body && !mask_empty(e, &no))
		return exec(e, p->else_body, &no, depth + 1);
	return TSI_OK;
}

/* Switch: each replica runs the case matching its control value, or the
 * default (if any). Every replica's control value is read before any case
 * runs (a case may change it); cases run in the order they were added. */
static int exec_switch(tsi_engine *e, const tsi_program *p, const rmask *m, unsigned depth)
{
	int64_t small[8];
	int64_t *vals = small;
	rmask rest = *m, hit;
	int rc = TSI_OK;

	if (e->replicas > sizeof(small) / sizeof(small[0])) {
		vals = malloc(e->replicas * sizeof(*vals));
		if (!vals)
			return engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory running a Switch");
	}
	for (unsigned r = 0; r < e->replicas; r++)
		vals[r] = mask_has(m, r) ? (int64_t)scalar_value(e, p->pred, r) : 0;
	for (size_t c = 0; c < p->case_bodies.len && !mask_empty(e, &rest); c++) {
		mask_zero(e, &hit);
		for (unsigned r = 0; r < e->replicas; r++) {
			if (mask_has(&rest, r) && vals[r] == p->case_values[c]) {
				mask_set(&hit, r);
				mask_clear(&rest, r);
			}
		}
		if (!mask_empty(e, &hit)) {
			rc = exec(e, p->case_bodies.items[c], &hit, depth + 1);
			if (rc)
				goto done;
		}
	}
	if (p->else_body && !mask_empty(e, &rest))
		rc = exec(e, p->else_body, &rest, depth + 1);
done:
	if (vals != small)
		free(vals);
	return rc;
}

/* Copy: the source is read whole before the destination is written, so
 * overlapping views copy as if through a temporary. */
static int exec_copy(tsi_engine *e, const tsi_program *p, const rmask *m)
{
	unsigned char *buf = tmp_reserve(e, p->src->numel * tsi_type_size(p->src->type) + 1);

	if (!buf)
		return engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory copying %s",
		                   tsi_tensor_describe(p->src));
	for (unsigned r = 0; r < e->replicas; r++) {
		if (!mask_has(m, r))
			continue;
		tensor_gather(e, p->src, r, buf);
		tensor_scatter(e, p->dst, r, buf);
	}
	return TSI_OK;
}

/* Combines two values with a collective operator. */
static double collective_combine(int op, double acc, double v)
{
	switch (op) {
	case TSI_COLLECTIVE_ADD: return acc + v;
	case TSI_COLLECTIVE_MUL: return acc * v;
	case TSI_COLLECTIVE_MIN: return v < acc ? v : acc;
	case TSI_COLLECTIVE_MAX: return v > acc ? v : acc;
	case TSI_COLLECTIVE_LOGICAL_AND: return (acc != 0.0 && v != 0.0) ? 1.0 : 0.0;
	case TSI_COLLECTIVE_LOGICAL_OR: return (acc != 0.0 || v != 0.0) ? 1.0 : 0.0;
	case TSI_COLLECTIVE_SQUARE_ADD: return acc + v * v;
	default: return acc; /* LOCAL */
	}
}

/* The reduction of element `i` of every member's input. For LOCAL, the
 * replica's own value; SQUARE_ADD squares every value, the first too. */
static double collective_reduce(const tsi_collective *c, tsi_type type, unsigned char *const *in,
                                const unsigned *members, unsigned k, unsigned self, size_t i)
{
	if (c->op == TSI_COLLECTIVE_LOCAL)
		return tsi_type_load(type, in[self], i);
	double acc = tsi_type_load(type, in[members[0]], i);
	if (c->op == TSI_COLLECTIVE_SQUARE_ADD)
		acc *= acc;
	for (unsigned j = 1; j < k; j++)
		acc = collective_combine(c->op, acc, tsi_type_load(type, in[members[j]], i));
	return acc;
}

/*
 * A cross-replica collective: every replica's input is read first, then
 * every replica's output computed from its group's inputs and written, so
 * in-place forms are safe. All replicas of a group must take part.
 */
static int run_collective(tsi_engine *e, const tsi_program *p, const rmask *m)
{
	const tsi_collective *c = p->collective;
	const tsi_comm_group group = {(tsi_comm_group_type)c->group_type, c->group_size};
	tsi_type type = p->src->type;
	size_t esize = tsi_type_size(type);
	size_t sbytes = p->src->numel * esize, dbytes = p->dst->numel * esize;
	unsigned R = e->replicas, k = c->group_size;
	unsigned char *buf, **in = NULL;
	unsigned *members = NULL;
	int rc = TSI_OK;

	buf = tmp_reserve(e, (size_t)R * (sbytes + dbytes) + 1);
	in = malloc(R * sizeof(*in));
	members = malloc(R * sizeof(*members));
	if (!buf || !in || !members) {
		rc = engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory running collective '%s'",
		                 p->name ? p->name : "?");
		goto done;
	}
	for (unsigned r = 0; r < R; r++) {
		in[r] = buf + (size_t)r * sbytes;
		if (mask_has(m, r))
			tensor_gather(e, p->src, r, in[r]);
	}
	for (unsigned r = 0; r < R; r++) {
		unsigned char *out = buf + (size_t)R * sbytes + (size_t)r * dbytes;
		unsigned n, rank = 0;
		if (!mask_has(m, r))
			continue;
		n = tsi_comm_group_members(group, R, r, members);
		if (n != k) {
			rc = engine_fail(e, TSI_ERR_INVALID_ARGUMENT, "collective '%s': bad group of %u",
			                 p->name ? p->name : "?", k);
			goto done;
		}
		for (unsigned j = 0; j < k; j++) {
			if (!mask_has(m, members[j])) {
				rc = engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
				                 "collective '%s' ran on replica %u but not on replica %u of "
				                 "its group: replicas took different branches of control flow",
				                 p->name ? p->name : "?", r, members[j]);
				goto done;
			}
			if (members[j] == r)
				rank = j;
		}
		switch (c->kind) {
		case TSI_COLL_ALL_REDUCE:
			for (size_t i = 0; i < p->src->numel; i++)
				tsi_type_store(type, out, i, collective_reduce(c, type, in, members, k, r, i));
			break;
		case TSI_COLL_REDUCE_SCATTER:
			memset(out, 0, dbytes);
			for (unsigned s = 0; s < c->n_segments; s++) {
				for (size_t q = 0; q < c->out_len[s]; q++) {
					size_t idx = (size_t)rank * c->out_len[s] + q;
					if (idx >= c->seg_len[s])
						continue; /* zero padding */
					size_t pos = c->seg_pos[c->seg_start[s] + idx];
					tsi_type_store(type, out, c->out_start[s] + q,
					               collective_reduce(c, type, in, members, k, r, pos));
				}
			}
			break;
		case TSI_COLL_ALL_GATHER:
			for (unsigned j = 0; j < k; j++)
				memcpy(out + (size_t)j * sbytes, in[members[j]], sbytes);
			break;
		case TSI_COLL_ALL_TO_ALL: {
			size_t slice = sbytes / k;
			for (unsigned j = 0; j < k; j++)
				memcpy(out + (size_t)j * slice, in[members[j]] + (size_t)rank * slice, slice);
			break;
		}
		}
	}
	for (unsigned r = 0; r < R; r++)
		if (mask_has(m, r))
			tensor_scatter(e, p->dst, r, buf + (size_t)R * sbytes + (size_t)r * dbytes);
done:
	free(in);
	free(members);
	return rc;
}

/* Runs program `p` on the replicas of `m`. */
static int exec(tsi_engine *e, const tsi_program *p, const rmask *m, unsigned depth)
{
	int rc;

	if (depth > MAX_DEPTH)
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                   "programs nest more than %d deep: does a sequence contain itself?",
		                   MAX_DEPTH);
	if (e->tracing) {
		const tsi_trace_leaves *lv = leaves_of(e, p);
		trace_append(e, m, lv->at_start, lv->n_at_start);
	}
	switch (p->kind) {
	case TSI_PROG_SEQUENCE:
		for (size_t i = 0; i < p->steps.len; i++) {
			rc = exec(e, p->steps.items[i], m, depth + 1);
			if (rc)
				return rc;
		}
		return TSI_OK;
	case TSI_PROG_EXECUTE:
		return run_compute_set(e, p->cs, m);
	case TSI_PROG_REPEAT:
		for (uint64_t i = 0; i < p->count; i++) {
			rc = exec(e, p->body, m, depth + 1);
			if (rc)
				return rc;
		}
		return TSI_OK;
	case TSI_PROG_REPEAT_WHILE_TRUE:
	case TSI_PROG_REPEAT_WHILE_FALSE:
		return exec_while(e, p, m, depth);
	case TSI_PROG_IF:
		return exec_if(e, p, m, depth);
	case TSI_PROG_SWITCH:
		return exec_switch(e, p, m, depth);
	case TSI_PROG_COPY:
		return exec_copy(e, p, m);
	case TSI_PROG_STREAM_TO_TENSOR:
	case TSI_PROG_TENSOR_TO_STREAM:
		return run_stream_copy(e, p, m);
	case TSI_PROG_REMOTE_TO_TENSOR:
	case TSI_PROG_TENSOR_TO_REMOTE:
		return run_remote_copy(e, p, m);
	case TSI_PROG_CALL:
		return exec(e, p->fn->body, m, depth + 1);
	case TSI_PROG_SYNC:
	case TSI_PROG_WRITE_UNDEF:
		return TSI_OK; /* no effect on data in the model */
	case TSI_PROG_PRINT_TENSOR:
		return run_print(e, p, m);
	case TSI_PROG_COLLECTIVE:
		return run_collective(e, p, m);
	default:
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT, "program %u has an unknown kind %d",
		                   p->id, (int)p->kind);
	}
}

/*
 * Simulates the trace just recorded into the execution profile of a new
 * run (kept in the engine), and hands every kept run to autoReport, which
 * writes the new one now or when the engine is freed.
 */
static int keep_run(tsi_engine *engine, size_t index)
{
	tsi_run_profile *rp;
	int rc;

	if (engine->n_runs == engine->cap_runs) {
		size_t cap = engine->cap_runs ? engine->cap_runs * 2 : 4;
		tsi_run_profile **runs = realloc(engine->runs, cap * sizeof(*runs));

		if (!runs)
			return engine_fail(engine, TSI_ERR_NO_MEMORY,
			                   "out of host memory keeping the execution profile");
		engine->runs = runs;
		engine->cap_runs = cap;
	}
	rp = tsi_arena_alloc(&engine->run_arena, sizeof(*rp));
	if (!rp)
		return engine_fail(engine, TSI_ERR_NO_MEMORY,
		                   "out of host memory keeping the execution profile");
	TSI_TRACE_BEGINF("Simulating cycles of run %zu", engine->n_runs);
	rc = tsi_simulate_run(engine->compiled->model, engine->trace, engine->n_trace, index,
	                      &engine->run_arena, rp);
	TSI_TRACE_END();
	if (rc)
		return engine_keep_error(engine, rc);
	engine->runs[engine->n_runs++] = rp;
	engine->runs_of_program[index]++;
	rc = tsi_autoreport_add_runs(engine->report, (const tsi_run_profile *const *)engine->runs,
	                             engine->n_runs);
	if (rc)
		return engine_keep_error(engine, rc);
	return TSI_OK;
}

/*
 * Runs program `index` on every replica. A PRE_COMPILE engine checks the
 * index and returns at once: nothing executes on a device never attached.
 */
TSI_API int tsi_engine_run(tsi_engine *engine, size_t index)
{
	const tsi_program *p;
	rmask all;
	bool keep;
	int rc;

	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_run: engine is NULL");
	rc = check_loaded(engine, "tsi_engine_run");
	if (rc)
		return rc;
	if (index >= engine->n_programs)
		return engine_fail(engine, TSI_ERR_INVALID_ARGUMENT,
		                   "program index %zu is out of range: the engine has %zu program%s",
		                   index, engine->n_programs, engine->n_programs == 1 ? "" : "s");
	if (!engine->dry && (rc = check_fits(engine, "tsi_engine_run")))
		return rc;
	if (!engine->dry && !engine->device->attached)
		return engine_fail(engine, TSI_ERR_NOT_ATTACHED,
		                   "device '%s' was detached after tsi_engine_load: attach it again "
		                   "before running",
		                   engine->device->target.name);
	p = engine->programs[index];
	if (tsi_log_enabled(TSI_LOG_INFO)) {
		if (p->name)
			tsi_log(TSI_LOG_INFO, "ENGINE", "Running program %zu ('%s')%s", index, p->name,
			        engine->dry ? " on a PRE_COMPILE device: nothing executes" : "");
		else
			tsi_log(TSI_LOG_INFO, "ENGINE", "Running program %zu (%s)%s", index,
			        tsi_program_kind_name(p->kind),
			        engine->dry ? " on a PRE_COMPILE device: nothing executes" : "");
	}
	if (engine->dry)
		return TSI_OK;
	memset(&all, 0, sizeof(all));
	for (unsigned r = 0; r < engine->replicas; r++)
		mask_set(&all, r);
	keep = engine->runs_of_program[index] < engine->cfg.run_count;
	engine->tracing = keep;
	engine->n_trace = 0;
	TSI_TRACE_BEGINF("Run program %zu (%s)", index,
	                 p->name ? p->name : tsi_program_kind_name(p->kind));
	rc = exec(engine, p, &all, 0);
	TSI_TRACE_END();
	if (keep) {
		bool complete = engine->tracing;
		engine->tracing = false;
		if (!complete && !rc)
			return engine_fail(engine, TSI_ERR_NO_MEMORY,
			                   "out of host memory recording the execution profile of run %zu",
			                   engine->n_runs);
		if (!rc)
			rc = keep_run(engine, index);
	}
	return rc;
}

/* --- Profiles ------------------------------------------------------------------- */

TSI_API const tsi_graph_profile *tsi_engine_get_graph_profile(const tsi_engine *engine)
{
	return engine && engine->compiled && engine->compiled->model
	           ? &engine->compiled->model->profile
	           : NULL;
}

TSI_API size_t tsi_engine_num_run_profiles(const tsi_engine *engine)
{
	return engine ? engine->n_runs : 0;
}

TSI_API const tsi_run_profile *tsi_engine_get_run_profile(const tsi_engine *engine, size_t run)
{
	return engine && run < engine->n_runs ? engine->runs[run] : NULL;
}

/* --- Host handles ---------------------------------------------------------------- */

/*
 * Finds host handle `name` for a read or write of `bytes` bytes on
 * `replica` (or all replicas when `all`), checking size, replica and load
 * state. On success *out is the handle's tensor.
 */
static int host_handle_check(tsi_engine *e, const char *name, bool is_write, bool all,
                             unsigned replica, const void *buf, size_t bytes,
                             const tsi_tensor **out)
{
	const char *what = is_write ? "write" : "read";
	tsi_host_handle *h = tsi_graph_find_host_handle(e->graph, name, is_write);
	size_t want;

	if (!h)
		return engine_fail(e, TSI_ERR_UNKNOWN_HANDLE,
		                   "no host %s handle named '%s' (create one with "
		                   "tsi_graph_create_host_%s)",
		                   what, name ? name : "(null)", what);
	want = h->tensor->numel * tsi_type_size(h->tensor->type);
	if (bytes != want)
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                   "host %s handle '%s': %zu bytes given but the tensor (%zu x %s) "
		                   "holds %zu bytes",
		                   what, name, bytes, h->tensor->numel, tsi_type_name(h->tensor->type),
		                   want);
	if (!buf && bytes)
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT, "host %s handle '%s': buffer is NULL",
		                   what, name);
	if (!all && replica >= e->replicas)
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                   "host %s handle '%s': replica %u does not exist (the graph has %u "
		                   "replica%s)",
		                   what, name, replica, e->replicas, e->replicas == 1 ? "" : "s");
	if (!tensor_has_memory(e, h->tensor))
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                   "host %s handle '%s' refers to a variable created after the engine "
		                   "was compiled",
		                   what, name);
	*out = h->tensor;
	return check_loaded(e, is_write ? "tsi_engine_write_tensor" : "tsi_engine_read_tensor");
}

/* Writes `buf` to one replica or all of them. */
static int write_tensor(tsi_engine *e, const char *name, bool all, unsigned replica,
                        const void *buf, size_t bytes)
{
	const tsi_tensor *t = NULL;
	int rc = host_handle_check(e, name, true, all, replica, buf, bytes, &t);

	if (rc)
		return rc;
	if (e->dry)
		return TSI_OK; /* PRE_COMPILE: accepted and dropped */
	TSI_TRACE_BEGINF("Write tensor %s", name);
	for (unsigned r = 0; r < e->replicas; r++)
		if (all || r == replica)
			tensor_scatter(e, t, r, buf);
	TSI_TRACE_END();
	return TSI_OK;
}

/* Reads one replica's tensor into `buf`. */
static int read_tensor(tsi_engine *e, const char *name, unsigned replica, void *buf,
                       size_t bytes)
{
	const tsi_tensor *t = NULL;
	int rc = host_handle_check(e, name, false, false, replica, buf, bytes, &t);

	if (rc)
		return rc;
	if (e->dry) {
		memset(buf, 0, bytes); /* PRE_COMPILE: the device returns zeros */
	} else {
		TSI_TRACE_BEGINF("Read tensor %s", name);
		tensor_gather(e, t, replica, buf);
		TSI_TRACE_END();
	}
	return TSI_OK;
}

/* Writes a host write handle's tensor on every replica. */
TSI_API int tsi_engine_write_tensor(tsi_engine *engine, const char *handle, const void *buf,
                                    size_t bytes)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_write_tensor: engine is NULL");
	return write_tensor(engine, handle, true, 0, buf, bytes);
}

/* Reads a host read handle's tensor from replica 0. */
TSI_API int tsi_engine_read_tensor(tsi_engine *engine, const char *handle, void *buf,
                                   size_t bytes)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_read_tensor: engine is NULL");
	return read_tensor(engine, handle, 0, buf, bytes);
}

/* Writes a host write handle's tensor on one replica only. */
TSI_API int tsi_engine_write_tensor_replica(tsi_engine *engine, const char *handle,
                                            unsigned replica, const void *buf, size_t bytes)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_engine_write_tensor_replica: engine is NULL");
	return write_tensor(engine, handle, false, replica, buf, bytes);
}

/* Reads a host read handle's tensor from one replica. */
TSI_API int tsi_engine_read_tensor_replica(tsi_engine *engine, const char *handle,
                                           unsigned replica, void *buf, size_t bytes)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_engine_read_tensor_replica: engine is NULL");
	return read_tensor(engine, handle, replica, buf, bytes);
}

/* Checks a whole-remote-buffer host access and finds the buffer. */
static int remote_check(tsi_engine *e, const char *name, unsigned replica, const void *buf,
                        size_t bytes, bool is_write, const tsi_remote_buffer **out)
{
	const char *call = is_write ? "tsi_engine_write_remote" : "tsi_engine_read_remote";
	const tsi_remote_buffer *rb = tsi_graph_find_remote_buffer(e->graph, name);

	if (!rb)
		return engine_fail(e, TSI_ERR_UNKNOWN_HANDLE, "%s: no remote buffer named '%s'", call,
		                   name ? name : "(null)");
	if (rb->id >= e->n_remote)
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                   "%s: remote buffer '%s' was created after the engine was compiled",
		                   call, name);
	if (bytes != remote_bytes(rb))
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                   "%s: %zu bytes given but remote buffer '%s' (%zu rows x %zu x %s) "
		                   "holds %zu bytes",
		                   call, bytes, name, rb->repeats, rb->numel, tsi_type_name(rb->type),
		                   remote_bytes(rb));
	if (!buf)
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT, "%s: buffer is NULL", call);
	if (replica >= e->replicas)
		return engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
		                   "%s: replica %u does not exist (the graph has %u replica%s)", call,
		                   replica, e->replicas, e->replicas == 1 ? "" : "s");
	*out = rb;
	return check_loaded(e, call);
}

/* Replaces one replica's whole remote buffer (every row) from the host.
 * Accepted and dropped on a PRE_COMPILE device. */
TSI_API int tsi_engine_write_remote(tsi_engine *engine, const char *name, unsigned replica,
                                    const void *buf, size_t bytes)
{
	const tsi_remote_buffer *rb = NULL;
	int rc;

	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_write_remote: engine is NULL");
	rc = remote_check(engine, name, replica, buf, bytes, true, &rb);
	if (rc)
		return rc;
	if (!engine->dry)
		memcpy(remote_base(engine, rb, replica), buf, bytes);
	return TSI_OK;
}

/* Reads one replica's whole remote buffer (zeros on a PRE_COMPILE device). */
TSI_API int tsi_engine_read_remote(tsi_engine *engine, const char *name, unsigned replica,
                                   void *buf, size_t bytes)
{
	const tsi_remote_buffer *rb = NULL;
	int rc;

	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_read_remote: engine is NULL");
	rc = remote_check(engine, name, replica, buf, bytes, false, &rb);
	if (rc)
		return rc;
	if (engine->dry)
		memset(buf, 0, bytes);
	else
		memcpy(buf, remote_base(engine, rb, replica), bytes);
	return TSI_OK;
}
