/*
 * The compiler model's driver: sets up the profile builder (model
 * constants, instrumentation options, target description), runs the
 * phases in order, and offers the small shared pieces every phase uses
 * (per-tile accumulators, the growable lowered-program list) and the
 * public read-only accessors of tilescope/profile.h.
 */
#include "compiler-private.h"

#include "vocabulary.h" /* db-schema/ */

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/*
 * The model's constants. Every figure is an assumption of the model,
 * chosen to be of the size the IPU's documentation and published profiles
 * show; change them here and nowhere else.
 */
static const tsi_model_constants model_constants = {
	/* Internal exchange: a statically scheduled step costs a few cycles to
	 * start, then each tile moves 4 bytes per cycle (target field), plus
	 * a cycle per contiguous run for address setup. */
	.exchange_setup_cycles = 16,
	.exchange_cycles_per_run = 1,
	/* IPU-Link: about 1 byte per tile-cycle into a tile, ~600 cycles of
	 * latency end to end. */
	.external_bytes_per_cycle = 1,
	.external_latency_cycles = 600,
	/* PCIe host link: ~16 bytes per cycle for the whole IPU (about
	 * 21 GB/s at 1.33 GHz), ~1,000 cycles of latency. */
	.host_bytes_per_cycle = 16,
	.host_latency_cycles = 1000,
	/* Sync: the guide lists per-tile delays relative to a minimum. */
	.min_sync_delay = 30,
	.external_sync_extra = 150,
	/* Supervisor cycles to start a compute set on a tile. */
	.compute_set_overhead = 24,
	/* Control program code on every tile, per lowered program. */
	.control_code_per_step = 8,
	/* Stacks: 6 workers x 440 + 528 supervisor = 3,168 bytes per tile, the
	 * per-tile figure of the guide's example (3,852,288 B on 1,216 tiles). */
	.worker_stack_bytes = 440,
	.supervisor_stack_bytes = 528,
	/* Instrumentation: a 64-bit cycle count per record, and the cycles to
	 * read the counter twice and store the difference. */
	.instrumentation_bytes = 8,
	.instrumentation_cycles = 12,
};

/* --- Per-tile accumulators ------------------------------------------------ */

int tsi_tile_acc_init(tsi_tile_acc *acc, uint32_t num_tiles)
{
	acc->num_tiles = num_tiles;
	acc->value = calloc(num_tiles ? num_tiles : 1, sizeof(*acc->value));
	acc->touched = malloc((num_tiles ? num_tiles : 1) * sizeof(*acc->touched));
	acc->n_touched = 0;
	if (!acc->value || !acc->touched) {
		tsi_tile_acc_free(acc);
		return TSI_ERR_NO_MEMORY;
	}
	return TSI_OK;
}

void tsi_tile_acc_free(tsi_tile_acc *acc)
{
	free(acc->value);
	free(acc->touched);
	acc->value = NULL;
	acc->touched = NULL;
	acc->n_touched = 0;
}

void tsi_tile_acc_add(tsi_tile_acc *acc, uint32_t tile, uint64_t v)
{
	if (v == 0 || tile >= acc->num_tiles)
		return;
	if (acc->value[tile] == 0)
		acc->touched[acc->n_touched++] = tile;
	acc->value[tile] += v;
}

void tsi_tile_acc_reset(tsi_tile_acc *acc)
{
	for (uint32_t i = 0; i < acc->n_touched; i++)
		acc->value[acc->touched[i]] = 0;
	acc->n_touched = 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int tsi_tile_acc_take(tsi_tile_acc *acc, tsi_arena *arena, tsi_tile_values *out)
{
	uint32_t n = acc->n_touched;
	uint32_t *tiles = NULL;
	uint64_t *values = NULL;

	memset(out, 0, sizeof(*out));
	if (n) {
		/* 8-byte alignment: hundreds of thousands of these arrays are
		 * a few entries long, and 16 would pad most of them. */
		tiles = tsi_arena_alloc8(arena, n * sizeof(*tiles));
		values = tsi_arena_alloc8(arena, n * sizeof(*values));
		if (!tiles || !values)
			return TSI_ERR_NO_MEMORY;
		memcpy(tiles, acc->touched, n * sizeof(*tiles));
		/* Touch order is often already sorted; qsort only when not. */
		for (uint32_t i = 1; i < n; i++) {
			if (tiles[i - 1] > tiles[i]) {
				qsort(tiles, n, sizeof(*tiles), cmp_u32);
				break;
			}
		}
		for (uint32_t i = 0; i < n; i++) {
			values[i] = acc->value[tiles[i]];
			acc->value[tiles[i]] = 0;
		}
	}
	acc->n_touched = 0;
	out->n = n;
	out->tiles = tiles;
	out->values = values;
	return TSI_OK;
}

TSI_API uint64_t tsi_tile_values_get(const tsi_tile_values *tv, uint32_t tile)
{
	size_t lo = 0, hi = tv ? tv->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (tv->tiles[mid] < tile)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (tv && lo < tv->n && tv->tiles[lo] == tile) ? tv->values[lo] : 0;
}

TSI_API uint64_t tsi_tile_values_sum(const tsi_tile_values *tv)
{
	uint64_t s = 0;

	for (size_t i = 0; tv && i < tv->n; i++)
		s += tv->values[i];
	return s;
}

TSI_API uint64_t tsi_tile_values_max(const tsi_tile_values *tv)
{
	uint64_t m = 0;

	for (size_t i = 0; tv && i < tv->n; i++)
		if (tv->values[i] > m)
			m = tv->values[i];
	return m;
}

TSI_API uint64_t tsi_graph_profile_category(const tsi_graph_profile *gp, tsi_mem_category cat,
                                            tsi_mem_region region, bool overlapped, uint32_t tile)
{
	if (!gp || !gp->by_category || (unsigned)cat >= TSI_MEM_CATEGORY_COUNT ||
	    (unsigned)region >= TSI_REGION_COUNT || tile >= gp->target.num_tiles)
		return 0;
	size_t row = ((size_t)cat * TSI_REGION_COUNT + region) * 2 + (overlapped ? 1 : 0);
	return gp->by_category[row * gp->target.num_tiles + tile];
}

/* --- Names ---------------------------------------------------------------- */

/* The names are the format's vocabulary (db-schema/vocabulary.h), whose
 * codes these enumerations follow (checked where the documents are
 * written, db-schema/serialise.c). */
static const char *vocab_name(tsf_vocab vocab, int code, const char *none)
{
	const char *name = tsf_vocab_name(vocab, code);

	return name ? name : none;
}

TSI_API const char *tsi_lowered_type_name(tsi_lowered_type type)
{
	return vocab_name(TSF_VOCAB_PROGRAM_TYPE, (int)type, "Unknown");
}

TSI_API const char *tsi_mem_category_name(tsi_mem_category cat)
{
	return vocab_name(TSF_VOCAB_MEM_CATEGORY, (int)cat, "unknown");
}

TSI_API const char *tsi_step_type_name(tsi_step_type type)
{
	return vocab_name(TSF_VOCAB_STEP_TYPE, (int)type, "Unknown");
}

TSI_API const char *tsi_profiler_mode_name(tsi_profiler_mode mode)
{
	return vocab_name(TSF_VOCAB_PROFILER_MODE, (int)mode, "NONE");
}

/* --- The lowered program list -------------------------------------------- */

int32_t tsi_builder_add_program(tsi_profile_builder *b, tsi_lowered_type type, const char *name,
                                const tsi_program *source, tsi_exchange_role role)
{
	if (b->n_programs == b->cap_programs) {
		size_t cap = b->cap_programs ? b->cap_programs * 2 : 64;
		tsi_lowered_program *p = realloc(b->programs, cap * sizeof(*p));
		if (!p)
			return -1;
		b->programs = p;
		const tsi_program **src = realloc(b->lp_source, cap * sizeof(*src));
		if (!src)
			return -1;
		b->lp_source = src;
		uint8_t *roles = realloc(b->lp_role, cap * sizeof(*roles));
		if (!roles)
			return -1;
		b->lp_role = roles;
		b->cap_programs = cap;
	}
	tsi_lowered_program *lp = &b->programs[b->n_programs];
	memset(lp, 0, sizeof(*lp));
	lp->type = type;
	lp->compute_set = -1;
	lp->exchange = -1;
	lp->function = -1;
	if (name) {
		lp->name = tsi_arena_strdup(&b->arena, name);
		if (!lp->name)
			return -1;
	}
	b->lp_source[b->n_programs] = source;
	b->lp_role[b->n_programs] = (uint8_t)role;
	/* Steps the compiler inserts for a program belong to its context. */
	lp->debug_context = source ? source->debug_id : 0;
	return (int32_t)b->n_programs++;
}

/* --- Options ---------------------------------------------------------------- */

/* Reads a boolean option; `dflt` when unset. Values were validated. */
static bool opt_bool(const tsi_options *opts, const char *name, bool dflt)
{
	const char *v = opts ? tsi_options_lookup(opts, name) : NULL;

	return v ? strcasecmp(v, "true") == 0 : dflt;
}

/* debug.instrument switches compute, external exchange and control-flow
 * instrumentation on; each of the three may be set on its own too. */
static void read_instrumentation(tsi_profile_builder *b, const tsi_options *opts)
{
	bool all = opt_bool(opts, "debug.instrument", false);
	const char *level = opts ? tsi_options_lookup(opts, "debug.computeInstrumentationLevel") : NULL;

	b->instrument_compute = opt_bool(opts, "debug.instrumentCompute", all);
	b->instrument_external_exchange = opt_bool(opts, "debug.instrumentExternalExchange", all);
	b->instrument_control_flow = opt_bool(opts, "debug.instrumentControlFlow", all);
	b->instrument_level = 0;
	if (level) {
		if (strcasecmp(level, "vertex") == 0)
			b->instrument_level = 1;
		else if (strcasecmp(level, "device") == 0)
			b->instrument_level = 2;
		else if (strcasecmp(level, "ipu") == 0)
			b->instrument_level = 3;
	}
	/* What hardware would record, as the guide's profilerMode names it. */
	if (b->instrument_compute)
		b->profile.profiler_mode = b->instrument_level == 1   ? TSI_PROFILER_VERTICES
		                           : b->instrument_level >= 2 ? TSI_PROFILER_SINGLE_TILE_COMPUTE_SETS
		                                                      : TSI_PROFILER_COMPUTE_SETS;
	else if (b->instrument_external_exchange)
		b->profile.profiler_mode = TSI_PROFILER_EXTERNAL_EXCHANGES;
	else
		b->profile.profiler_mode = TSI_PROFILER_IPU_MODEL;
}

/* --- Out of memory ------------------------------------------------------------ */

void tsi_model_oom_message(const tsi_profile_builder *b, char *buf, size_t size)
{
	const tsi_graph_profile *gp = &b->profile;
	uint64_t cap = gp->target.bytes_per_tile;
	uint32_t worst[5];
	size_t n_worst = 0, len;

	/* The five largest excesses, by insertion into a small sorted list. */
	for (size_t i = 0; i < gp->n_oom_tiles; i++) {
		uint32_t t = gp->oom_tiles[i];
		uint64_t need = gp->by_tile[t].total_including_gaps;
		size_t j = n_worst < 5 ? n_worst++ : 5;
		while (j > 0 && gp->by_tile[worst[j - 1]].total_including_gaps < need) {
			if (j < 5)
				worst[j] = worst[j - 1];
			j--;
		}
		if (j < 5)
			worst[j] = t;
	}
	len = (size_t)snprintf(buf, size, "%zu tile%s out of memory (%llu bytes per tile)",
	                       gp->n_oom_tiles, gp->n_oom_tiles == 1 ? " is" : "s are",
	                       (unsigned long long)cap);
	for (size_t i = 0; i < n_worst && len < size; i++) {
		uint64_t need = gp->by_tile[worst[i]].total_including_gaps;
		len += (size_t)snprintf(buf + len, size - len, "%s tile %u needs %llu bytes, %llu over",
		                        i ? ";" : ":", worst[i], (unsigned long long)need,
		                        (unsigned long long)(need - cap));
	}
	if (gp->n_oom_tiles > n_worst && len < size)
		snprintf(buf + len, size - len, "; and %zu more", gp->n_oom_tiles - n_worst);
}

/* --- Driver ---------------------------------------------------------------- */

void tsi_compile_model_free(tsi_profile_builder *b)
{
	if (!b)
		return;
	free(b->programs);
	free(b->lp_source);
	free(b->lp_role);
	for (int k = 0; k < TSI_EXCHANGE_KIND_COUNT; k++)
		free(b->exchanges[k]);
	free(b->plans);
	free(b->generated);
	free(b->leaves);
	free(b->codelet_type);
	tsi_arena_clear(&b->arena);
	free(b);
}

/* One phase of the compiler model; `run` NULL is lowering, which takes
 * the programs as well. */
typedef struct phase {
	const char *name;
	int (*run)(tsi_profile_builder *);
} phase;

/*
 * Runs the compiler model's phases over programs that passed the checks:
 * lowering and exchange planning, cycle estimates, liveness, memory. On
 * success compiled->model holds the graph profile.
 */
int tsi_compile_model(tsi_compiled *compiled, tsi_graph *graph, tsi_program *const *programs,
                      size_t n_programs, const tsi_options *opts, const tsi_profile_hook *hook)
{
	tsi_profile_builder *b = calloc(1, sizeof(*b));
	int rc;

	if (!b)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory compiling");
	b->graph = graph;
	b->core = graph->core;
	b->compiled = compiled;
	b->opts = opts;
	b->k = model_constants;
	read_instrumentation(b, opts);
	b->profile.target = graph->core->target;
	b->profile.replication_factor = graph->core->replication;

	/* Lowering first, then the model's phases in order. Each phase says
	 * when it starts and how long it took at INFO level: on a large graph
	 * compilation takes seconds and the log is the user's progress bar. */
	const phase phases[] = {
		{"lowering and exchange planning", NULL},
		{"cycle estimation", tsi_cycles_estimate},
		{"liveness", tsi_liveness_compute},
		{"memory layout", tsi_memory_layout},
	};
	const size_t n_phases = sizeof(phases) / sizeof(phases[0]);
	rc = TSI_OK;
	for (size_t i = 0; !rc && i < n_phases; i++) {
		double start = tsi_monotonic_seconds();
		tsi_log(TSI_LOG_INFO, "COMPILE", "Compiler model: %s (phase %zu of %zu)", phases[i].name,
		        i + 1, n_phases);
		TSI_TRACE_BEGINF("Compiler model: %s", phases[i].name);
		rc = phases[i].run ? phases[i].run(b) : tsi_lower(b, programs, n_programs);
		TSI_TRACE_END();
		if (!rc)
			tsi_log(TSI_LOG_INFO, "COMPILE", "Compiler model: %s done in %.3f s",
			        phases[i].name, tsi_monotonic_seconds() - start);
	}
	/* Every variable the profile lists: the user's, and the compiler's
	 * (message buffers, the always-live data by category), as the
	 * schema's graph.num_vars says. */
	if (!rc)
		b->profile.num_vars = b->profile.n_variables;
	if (!rc && hook && hook->ready_cb) {
		TSI_TRACE_BEGINF("Writing reports");
		hook->ready_cb(&b->profile, hook->user_data);
		TSI_TRACE_END();
	}
	if (!rc && b->profile.n_oom_tiles) {
		char msg[768];
		tsi_model_oom_message(b, msg, sizeof(msg));
		if (!opt_bool(opts, "debug.allowOutOfMemory", true))
			rc = tsi_set_error(TSI_ERR_OUT_OF_MEMORY,
			                   "the program does not fit: %s (debug.allowOutOfMemory is false)",
			                   msg);
		else
			tsi_log(TSI_LOG_WARN, "COMPILE",
			        "the program does not fit: %s; the graph profile is kept, running is "
			        "refused (debug.allowOutOfMemory)",
			        msg);
	}
	if (rc) {
		tsi_compile_model_free(b);
		return rc;
	}
	tsi_log(TSI_LOG_INFO, "COMPILE",
	        "Compiler model done: %zu lowered programs, %zu internal / %zu external / %zu host "
	        "exchanges, %zu liveness steps, %zu out-of-memory tiles",
	        b->profile.n_programs, b->profile.n_exchanges[TSI_EXCHANGE_INTERNAL],
	        b->profile.n_exchanges[TSI_EXCHANGE_EXTERNAL], b->profile.n_exchanges[TSI_EXCHANGE_HOST],
	        b->profile.n_liveness, b->profile.n_oom_tiles);
	compiled->model = b;
	return TSI_OK;
}
