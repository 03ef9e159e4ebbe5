/*
 * The engine: compiles a graph and its programs (through
 * compiler/graph-checks.c) into an engine, loads it onto a device, and
 * keeps the failure message of its last call. This file is the engine's
 * life cycle: creation and configuration (options, autoReport), loading
 * (which allocates device memory), freeing, and the profile accessors.
 * What a run does lives beside it: engine-interpreter.c walks the program
 * tree, engine-compute-sets.c runs compute sets, engine-host-io.c moves
 * data between host and device, engine-collectives.c runs collectives,
 * and engine-memory.c holds device memory. engine-private.h is what they
 * share.
 */
#include "engine-private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Engines made by this process so far: the creation index names an
 * unnamed engine's autoReport subdirectory. */
static unsigned engines_created;

/* --- Errors -------------------------------------------------------------- */

/*
 * Records a failure of an engine call: the message goes to the thread-local
 * last error and to the engine (for tsi_engine_error). Returns `code` so
 * callers can `return tsi_engine_fail(...)`.
 */
__attribute__((format(printf, 3, 4)))
int tsi_engine_fail(tsi_engine *e, int code, const char *fmt, ...)
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
int tsi_engine_keep_error(tsi_engine *e, int code)
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
		                     tsi_graph_get_error(graph));
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
	tsi_autoreport_trace_span(e->report, -1);
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

/* Frees the engine and everything it allocated (device memory, stream
 * connections, cached compute-set layouts). The graph and device are the
 * caller's. NULL is ignored. */
TSI_API void tsi_engine_free(tsi_engine *engine)
{
	if (!engine)
		return;
	tsi_engine_free_device_memory(engine);
	if (engine->conns)
		for (size_t i = 0; i < engine->n_streams * engine->replicas; i++)
			tsi_engine_conn_unref(engine->conns[i]);
	free(engine->conns);
	if (engine->plans)
		for (size_t i = 0; i < engine->n_plans; i++)
			tsi_engine_plan_free(engine->plans[i]);
	free(engine->plans);
	free(engine->scratch);
	free(engine->call_fields);
	free(engine->call_pairs);
	free(engine->direct_ptrs);
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

TSI_API int tsi_engine_wait_reports(tsi_engine *engine)
{
	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_wait_reports: engine is NULL");
	return tsi_autoreport_wait(engine->report);
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
 * Loads the engine onto `device`: checks the device is the one the graph
 * was built for, attaches an ON_DEMAND device, and (re)initialises device
 * memory. A PRE_COMPILE device "loads" without memory: runs then do
 * nothing, reads give zeros. A NEVER device refuses.
 */
static int engine_load(tsi_engine *engine, tsi_device *device)
{
	const tsi_target *want, *have;
	int rc;

	if (!engine)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_load: engine is NULL");
	if (!device)
		return tsi_engine_fail(engine, TSI_ERR_INVALID_ARGUMENT, "tsi_engine_load: device is NULL");
	want = &engine->core->device_target;
	have = &device->target;
	if (want->kind != have->kind || want->num_ipus != have->num_ipus ||
	    want->tiles_per_ipu != have->tiles_per_ipu)
		return tsi_engine_fail(engine, TSI_ERR_INVALID_ARGUMENT,
		                       "device '%s' (%s, %u IPU%s x %u tiles) does not match the target "
		                       "'%s' the graph was built for (%s, %u IPU%s x %u tiles)",
		                       have->name, have->kind == TSI_TARGET_CPU ? "CPU" : "IPU Model",
		                       have->num_ipus, have->num_ipus == 1 ? "" : "s", have->tiles_per_ipu,
		                       want->name, want->kind == TSI_TARGET_CPU ? "CPU" : "IPU Model",
		                       want->num_ipus, want->num_ipus == 1 ? "" : "s", want->tiles_per_ipu);

	tsi_engine_free_device_memory(engine);
	engine->loaded = false;
	engine->dry = false;
	engine->never = false;
	engine->device = NULL;

	switch (device->connection) {
	case TSI_CONNECT_NEVER:
		engine->never = true;
		return tsi_engine_fail(engine, TSI_ERR_NOT_ATTACHED, "%s", never_message);
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
		rc = tsi_engine_check_fits(engine, "tsi_engine_load");
		if (rc)
			return rc;
		rc = tsi_device_attach(device);
		if (rc)
			return tsi_engine_keep_error(engine, rc);
		break;
	}

	rc = tsi_engine_alloc_device_memory(engine);
	if (rc)
		return rc;
	/* The compute sets' layouts are made now rather than by the first
	 * run, which would otherwise cost several later runs. */
	double plans_start = tsi_monotonic_seconds();
	rc = tsi_engine_prepare_plans(engine);
	if (rc) {
		tsi_engine_free_device_memory(engine);
		return rc;
	}
	tsi_log(TSI_LOG_INFO, "ENGINE", "Laid out %zu compute sets in %.3f s",
	        engine->compiled->compute_sets.len, tsi_monotonic_seconds() - plans_start);
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
int tsi_engine_check_fits(tsi_engine *e, const char *what)
{
	const tsi_profile_builder *b = e->compiled->model;
	if (b && b->profile.n_oom_tiles) {
		char msg[768];
		tsi_model_oom_message(b, msg, sizeof(msg));
		return tsi_engine_fail(e, TSI_ERR_OUT_OF_MEMORY,
		                       "%s: the program does not fit: %s; the graph profile "
		                       "(tsi_engine_get_graph_profile) shows where the memory goes",
		                       what, msg);
	}
	return TSI_OK;
}

/* Fails unless the engine is loaded; `what` names the call for the message. */
int tsi_engine_check_loaded(tsi_engine *e, const char *what)
{
	if (e->loaded)
		return TSI_OK;
	if (e->never)
		return tsi_engine_fail(e, TSI_ERR_NOT_ATTACHED, "%s: %s", what, never_message);
	return tsi_engine_fail(e, TSI_ERR_NOT_ATTACHED,
	                       "%s: engine not loaded: call tsi_engine_load first", what);
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
