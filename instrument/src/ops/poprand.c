/*
 * poprand, in small: seeded uniform and normal random numbers on the IPU
 * Model, in the style of Graphcore's poprand.
 *
 * The generator is counter based: the value of element i of the output in
 * run r is a hash of (seed, r, i), so it does not depend on how the output
 * is spread over tiles or split into vertices. The run number r lives on
 * the device, one UNSIGNED_INT per vertex on the vertex's tile, read and
 * incremented by the vertex each time it runs; every vertex starts at 0
 * when the engine loads and all advance together, so each run of the
 * program draws new numbers and two engines built alike draw the same
 * ones. The hash stands in for the tile's hardware generator, whose cost
 * the cycle estimators model.
 *
 * Per vertex the graph holds two small constants on the vertex's tile
 * (what Poplar would keep as vertex state): the seed with the output
 * index of each of the vertex's runs of elements, and the distribution's
 * two parameters.
 */
#include "ops-private.h"
#include "tilescope/poprand.h"

#include <math.h>
#include <stdlib.h>

/* The distributions, in codelet-table order. */
enum { DIST_UNIFORM = 0, DIST_NORMAL, DIST_COUNT };
/* Output types, in codelet-table order. */
enum { RT_FLOAT = 0, RT_HALF, RT_COUNT };

/* --- Device code: the generator ---------------------------------------------------- */

/* A 64-bit finaliser in the style of splitmix64: every input bit affects
 * every output bit. */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The increment between consecutive elements (the 64-bit golden ratio). */
#define GOLDEN 0x9e3779b97f4a7c15ull

/* The key of one run of a generator: the seed and the run number hashed
 * together so that runs (and seeds) give unrelated streams. */
static inline uint64_t run_key(uint64_t seed, uint32_t run)
{
	return mix64(seed ^ mix64((uint64_t)run * GOLDEN + 0x632be59bd9b4e019ull));
}

/* 64 random bits for output element `index` of the run with `key`. */
static inline uint64_t draw(uint64_t key, uint64_t index)
{
	return mix64(key + (index + 1) * GOLDEN);
}

/* A float in [0, 1) from the top 24 bits. */
static inline float unit_open_above(uint64_t z)
{
	return (float)(z >> 40) * 0x1p-24f;
}

/* A standard normal from 64 bits by the Box-Muller transform (the cosine
 * branch): u1 in (0, 1] from the top 24 bits, u2 in [0, 1) from the next
 * 24. */
static inline float standard_normal(uint64_t z)
{
	float u1 = (float)((z >> 40) + 1) * 0x1p-24f;
	float u2 = (float)((z >> 16) & 0xffffffu) * 0x1p-24f;

	return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530717958647692f * u2);
}

/* The next half above / below a half bit pattern (no NaN or infinity
 * handling: used only next to finite limits). */
static uint16_t half_up(uint16_t h)
{
	if (h == 0x8000u)
		return 0x0001u;
	return (h & 0x8000u) ? (uint16_t)(h - 1) : (uint16_t)(h + 1);
}

static uint16_t half_down(uint16_t h)
{
	if (h == 0x0000u)
		return 0x8001u;
	return (h & 0x8000u) ? (uint16_t)(h + 1) : (uint16_t)(h - 1);
}

/*
 * Field layout of every poprand vertex:
 * 0 "out"            OUTPUT VECTOR_LIST T: the vertex's runs of output elements
 * 1 "counter"        INOUT SCALAR unsigned int: run number, incremented
 * 2 "seedAndOffsets" INPUT VECTOR unsigned int: seed low, seed high, then
 *                    for each sub-vector of out the output index of its
 *                    first element (low, high)
 * 3 "params"         INPUT VECTOR float [2]: min, max or mean, stddev
 */
enum { F_OUT = 0, F_COUNTER, F_SEED, F_PARAMS, F_COUNT };

/* Checks the fields and returns the run's key; advances the counter. */
static bool begin_run(const tsi_field *f, size_t n_fields, uint64_t *key)
{
	const uint32_t *s = f[F_SEED].data;
	uint32_t *counter = f[F_COUNTER].data;
	uint64_t seed;

	if (n_fields != F_COUNT || f[F_COUNTER].count != 1 || f[F_PARAMS].count != 2 ||
	    f[F_SEED].count != 2 + 2 * f[F_OUT].n_vectors)
		return false;
	seed = s[0] | (uint64_t)s[1] << 32;
	*key = run_key(seed, *counter);
	*counter += 1;
	return true;
}

/* The output index of the first element of sub-vector k. */
static inline uint64_t sub_base(const tsi_field *f, size_t k)
{
	const uint32_t *s = f[F_SEED].data;

	return s[2 + 2 * k] | (uint64_t)s[3 + 2 * k] << 32;
}

/*
 * UniformSupervisor<float>: min + (max - min) u with u in [0, 1). A result
 * that rounds up to max is replaced by the largest float below it, so the
 * interval stays half-open (unless min == max).
 */
static bool uniform_float_cb(const tsi_field *f, size_t n_fields)
{
	const float *prm;
	float lo, hi, range, below;
	uint64_t key;

	if (!begin_run(f, n_fields, &key))
		return false;
	prm = f[F_PARAMS].data;
	lo = prm[0];
	hi = prm[1];
	range = hi - lo;
	below = hi > lo ? nextafterf(hi, lo) : lo;
	for (size_t k = 0; k < f[F_OUT].n_vectors; k++) {
		float *out = (float *)f[F_OUT].data + f[F_OUT].offsets[k];
		size_t n = f[F_OUT].offsets[k + 1] - f[F_OUT].offsets[k];
		uint64_t base = sub_base(f, k);

		for (size_t i = 0; i < n; i++) {
			float v = lo + range * unit_open_above(draw(key, base + i));
			out[i] = v < hi ? v : below;
		}
	}
	return true;
}

/*
 * UniformSupervisor<half>: as float, rounded to half and then held inside
 * [min, max): below min becomes the smallest half >= min, at or above max
 * the largest half < max.
 */
static bool uniform_half_cb(const tsi_field *f, size_t n_fields)
{
	const float *prm;
	float lo, hi, range;
	uint16_t hlo, hhi;
	uint64_t key;

	if (!begin_run(f, n_fields, &key))
		return false;
	prm = f[F_PARAMS].data;
	lo = prm[0];
	hi = prm[1];
	range = hi - lo;
	hlo = tsi_half_from_float(lo);
	if (tsi_half_to_float(hlo) < lo)
		hlo = half_up(hlo);
	hhi = tsi_half_from_float(hi);
	while (hi > lo && tsi_half_to_float(hhi) >= hi)
		hhi = half_down(hhi);
	for (size_t k = 0; k < f[F_OUT].n_vectors; k++) {
		uint16_t *out = (uint16_t *)f[F_OUT].data + f[F_OUT].offsets[k];
		size_t n = f[F_OUT].offsets[k + 1] - f[F_OUT].offsets[k];
		uint64_t base = sub_base(f, k);

		for (size_t i = 0; i < n; i++) {
			uint16_t h = tsi_half_from_float(lo + range * unit_open_above(draw(key, base + i)));
			float v = tsi_half_to_float(h);

			out[i] = v < lo ? hlo : (v >= hi && hi > lo) ? hhi : h;
		}
	}
	return true;
}

/* NormalSupervisor<float>: mean + stddev n with n standard normal. */
static bool normal_float_cb(const tsi_field *f, size_t n_fields)
{
	const float *prm;
	uint64_t key;

	if (!begin_run(f, n_fields, &key))
		return false;
	prm = f[F_PARAMS].data;
	for (size_t k = 0; k < f[F_OUT].n_vectors; k++) {
		float *out = (float *)f[F_OUT].data + f[F_OUT].offsets[k];
		size_t n = f[F_OUT].offsets[k + 1] - f[F_OUT].offsets[k];
		uint64_t base = sub_base(f, k);

		for (size_t i = 0; i < n; i++)
			out[i] = prm[0] + prm[1] * standard_normal(draw(key, base + i));
	}
	return true;
}

/* NormalSupervisor<half>: computed in float, rounded once. */
static bool normal_half_cb(const tsi_field *f, size_t n_fields)
{
	const float *prm;
	uint64_t key;

	if (!begin_run(f, n_fields, &key))
		return false;
	prm = f[F_PARAMS].data;
	for (size_t k = 0; k < f[F_OUT].n_vectors; k++) {
		uint16_t *out = (uint16_t *)f[F_OUT].data + f[F_OUT].offsets[k];
		size_t n = f[F_OUT].offsets[k + 1] - f[F_OUT].offsets[k];
		uint64_t base = sub_base(f, k);

		for (size_t i = 0; i < n; i++)
			out[i] = tsi_half_from_float(prm[0] +
			                             prm[1] * standard_normal(draw(key, base + i)));
	}
	return true;
}

/* --- Cycle and flop models ----------------------------------------------------------- */
/*
 * Supervisor estimates (assumptions, not measurements), in Poplar's
 * supervisor convention: 40 cycles of supervisor overhead (state loads,
 * reading and writing back the counter, seeding the workers' generators,
 * launching and syncing them) plus num_workers times the busiest worker.
 * A worker spends 10 cycles entering and per sub-vector 6 of set-up, then
 * per 64-bit vector of output: uniform 3 cycles (urand64, a scale-and-add,
 * a store), normal 4 (the hardware Gaussian instruction, scale-and-add,
 * store). A vector holds 2 floats or 4 halves; the work of each sub-vector
 * is split evenly over the workers.
 */
static uint64_t random_cycles(const tsi_field *f, size_t n_fields, const tsi_target *target,
                              unsigned width, unsigned per_vector)
{
	unsigned workers = tsi_ops_target_workers(target);
	uint64_t worker = 10;

	if (n_fields != F_COUNT)
		return 40;
	for (size_t k = 0; k < f[F_OUT].n_vectors; k++) {
		size_t n = f[F_OUT].offsets ? f[F_OUT].offsets[k + 1] - f[F_OUT].offsets[k]
		                            : f[F_OUT].count / f[F_OUT].n_vectors;
		size_t share = (n + workers - 1) / workers;

		worker += 6 + (uint64_t)per_vector * ((share + width - 1) / width);
	}
	return 40 + (uint64_t)workers * worker;
}

static uint64_t uniform_float_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	return random_cycles(f, n, t, 2, 3);
}

static uint64_t uniform_half_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	return random_cycles(f, n, t, 4, 3);
}

static uint64_t normal_float_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	return random_cycles(f, n, t, 2, 4);
}

static uint64_t normal_half_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	return random_cycles(f, n, t, 4, 4);
}

/* Flops per element: uniform 2 (scale, add); normal 2 after the hardware
 * Gaussian, plus the 6 of Box-Muller's log, sqrt, cos and multiplies that
 * the instruction does. */
static uint64_t uniform_flops_cb(const tsi_field *f, size_t n)
{
	return n == F_COUNT ? 2 * (uint64_t)f[F_OUT].count : 0;
}

static uint64_t normal_flops_cb(const tsi_field *f, size_t n)
{
	return n == F_COUNT ? 8 * (uint64_t)f[F_OUT].count : 0;
}

/* --- Codelet tables ---------------------------------------------------------------- */

#define RANDOM_FIELDS(T)                                                           \
	{                                                                              \
		{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR_LIST, T, 0},                    \
		{"counter", TSI_FIELD_INOUT, TSI_FIELD_SCALAR, TSI_UNSIGNED_INT, 0},       \
		{"seedAndOffsets", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_UNSIGNED_INT, 0}, \
		{"params", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 2},               \
	}
static const tsi_field_def float_fields[] = RANDOM_FIELDS(TSI_FLOAT);
static const tsi_field_def half_fields[] = RANDOM_FIELDS(TSI_HALF);
#undef RANDOM_FIELDS

/*
 * Vertex state: the out list descriptor and its count (8), three pointers
 * (12) = 20 bytes. Code: the worker loop, the split and the generator
 * seeding, about 320 bytes (384 for normal, 352/416 for half's tails).
 */
#define STATE_BYTES 20
#define RANDOM_CODELET(NAME, fields, compute, cycles, flops, code) \
	{NAME, fields, F_COUNT, compute, cycles, flops, STATE_BYTES, code, true}
static const tsi_codelet codelets[DIST_COUNT][RT_COUNT] = {
	[DIST_UNIFORM] = {
		RANDOM_CODELET("poprand::UniformSupervisor<float>", float_fields, uniform_float_cb,
		               uniform_float_cycles_cb, uniform_flops_cb, 320),
		RANDOM_CODELET("poprand::UniformSupervisor<half>", half_fields, uniform_half_cb,
		               uniform_half_cycles_cb, uniform_flops_cb, 352),
	},
	[DIST_NORMAL] = {
		RANDOM_CODELET("poprand::NormalSupervisor<float>", float_fields, normal_float_cb,
		               normal_float_cycles_cb, normal_flops_cb, 384),
		RANDOM_CODELET("poprand::NormalSupervisor<half>", half_fields, normal_half_cb,
		               normal_half_cycles_cb, normal_flops_cb, 416),
	},
};
#undef RANDOM_CODELET

/* Registers the poprand codelets (poprand::addCodelets); twice is harmless. */
TSI_API int tsi_poprand_add_codelets(tsi_graph *graph)
{
	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_poprand_add_codelets: graph is NULL");
	return tsi_graph_add_codelets(graph, &codelets[0][0], (size_t)DIST_COUNT * RT_COUNT);
}

/* --- Host side ------------------------------------------------------------------------ */

/* What a public function knows about itself, for messages. */
typedef struct op_ctx {
	tsi_graph *graph;
	const char *api;
	const char *name;
} op_ctx;

/*
 * Adds one vertex for the intervals iv[0..n) of `flat` (all on one tile)
 * as vertex number `index` of the operation: connects its out runs, its
 * counter (element `index` of `counters`, mapped here) and two constants
 * made and mapped on the tile. `words` is scratch of 2 + 2n entries.
 */
static int add_random_vertex(const op_ctx *op, tsi_compute_set *cs, const tsi_codelet *codelet,
                             const tsi_tensor *flat, const tsi_mapping_interval *iv, size_t n,
                             const tsi_tensor *counters, size_t index, uint64_t seed,
                             const float *params, uint32_t *words, tsi_tensor **pieces)
{
	unsigned tile = iv[0].tile;
	tsi_tensor *counter = tsi_tensor_slice(counters, index, index + 1);
	tsi_tensor *seed_c, *params_c;
	tsi_vertex *v;
	int rc;

	words[0] = (uint32_t)seed;
	words[1] = (uint32_t)(seed >> 32);
	for (size_t i = 0; i < n; i++) {
		words[2 + 2 * i] = (uint32_t)iv[i].begin;
		words[3 + 2 * i] = (uint32_t)((uint64_t)iv[i].begin >> 32);
		if (!(pieces[i] = tsi_tensor_slice(flat, iv[i].begin, iv[i].end)))
			return tsi_ops_failed(op->graph);
	}
	seed_c = tsi_graph_add_constant(op->graph, TSI_UNSIGNED_INT, TSI_SHAPE(2 + 2 * n), words,
	                                tsi_arena_printf(&op->graph->core->arena,
	                                                 "%s/seedAndOffsets%zu", op->name, index));
	params_c = tsi_graph_add_constant(op->graph, TSI_FLOAT, TSI_SHAPE(2), params,
	                                  tsi_arena_printf(&op->graph->core->arena, "%s/params%zu",
	                                                   op->name, index));
	v = tsi_graph_add_vertex(op->graph, cs, codelet->name);
	if (!counter || !seed_c || !params_c || !v)
		return tsi_ops_failed(op->graph);
	if ((rc = tsi_graph_set_tile_mapping(op->graph, counter, tile)) != 0 ||
	    (rc = tsi_graph_set_tile_mapping(op->graph, seed_c, tile)) != 0 ||
	    (rc = tsi_graph_set_tile_mapping(op->graph, params_c, tile)) != 0 ||
	    (rc = tsi_graph_connect_list(op->graph, v, "out", pieces, n)) != 0 ||
	    (rc = tsi_graph_connect(op->graph, v, "counter", counter)) != 0 ||
	    (rc = tsi_graph_connect(op->graph, v, "seedAndOffsets", seed_c)) != 0 ||
	    (rc = tsi_graph_connect(op->graph, v, "params", params_c)) != 0 ||
	    (rc = tsi_graph_set_vertex_tile(op->graph, v, tile)) != 0)
		return rc;
	return TSI_OK;
}

/*
 * The body of uniform and normal: checks `out`, then builds one
 * supervisor vertex per tile holding part of it, the counters variable
 * "<name>/counters" and a compute set named `name` executed by a step
 * appended to `seq`.
 */
static int build_random(const op_ctx *op, int dist, const tsi_tensor *out, const float *params,
                        uint64_t seed, tsi_program *seq)
{
	tsi_mapping_interval *map = NULL;
	tsi_tensor **pieces = NULL;
	uint32_t *words = NULL;
	const tsi_tensor *flat;
	const tsi_codelet *codelet;
	tsi_compute_set *cs;
	tsi_tensor *counters;
	tsi_program *step;
	size_t n_map = 0, n_tiles = 0, index = 0;
	int rc;

	if (!op->graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", op->api);
	if (!out || !seq)
		return tsi_ops_null_arg_echo(op->graph, op->api, op->name, out ? "seq" : "out");
	if (tsi_tensor_type(out) != TSI_FLOAT && tsi_tensor_type(out) != TSI_HALF)
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': out %s has type %s; poprand fills float or half",
		                      op->api, op->name, tsi_tensor_describe(out),
		                      tsi_type_name(tsi_tensor_type(out)));
	if (tsi_tensor_is_constant(out))
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': out %s is a constant", op->api, op->name,
		                      tsi_tensor_describe(out));
	codelet = &codelets[dist][tsi_tensor_type(out) == TSI_HALF ? RT_HALF : RT_FLOAT];
	if (!tsi_ops_require_codelet(op->graph, op->api, op->name, codelet->name,
	                             "tsi_poprand_add_codelets"))
		return TSI_ERR_UNKNOWN_VERTEX_TYPE;
	flat = tsi_tensor_flatten(out);
	if (!flat)
		return tsi_ops_failed(op->graph);
	rc = tsi_graph_list_tile_mapping(&map, &n_map, op->graph, flat);
	if (rc)
		goto done;
	qsort(map, n_map, sizeof(*map), tsi_ops_interval_cmp);
	for (size_t i = 0; i < n_map; i++) {
		if (map[i].tile == TSI_NO_TILE) {
			rc = tsi_graph_fail(op->graph, TSI_ERR_UNMAPPED_TENSOR,
			                    "%s '%s': out %s has elements with no tile (the first is "
			                    "element %zu); map it first",
			                    op->api, op->name, tsi_tensor_describe(out), map[i].begin);
			goto done;
		}
		n_tiles += i == 0 || map[i].tile != map[i - 1].tile;
	}
	pieces = malloc((n_map + 1) * sizeof(*pieces));
	words = malloc((2 * n_map + 2) * sizeof(*words));
	if (!pieces || !words) {
		rc = tsi_ops_oom_in(op->graph, op->api, op->name);
		goto done;
	}
	cs = tsi_graph_add_compute_set(op->graph, op->name);
	counters = n_tiles ? tsi_graph_add_variable(op->graph, TSI_UNSIGNED_INT, TSI_SHAPE(n_tiles),
	                                            tsi_arena_printf(&op->graph->core->arena,
	                                                             "%s/counters", op->name))
	                   : NULL;
	if (!cs || (n_tiles && !counters)) {
		rc = tsi_ops_failed(op->graph);
		goto done;
	}
	for (size_t lo = 0, hi; lo < n_map; lo = hi, index++) {
		for (hi = lo + 1; hi < n_map && map[hi].tile == map[lo].tile;)
			hi++;
		rc = add_random_vertex(op, cs, codelet, flat, map + lo, hi - lo, counters, index, seed,
		                       params, words, pieces);
		if (rc)
			goto done;
	}
	step = tsi_prog_execute(op->graph, cs);
	rc = step ? tsi_sequence_add(seq, step) : tsi_ops_failed(op->graph);
done:
	free(words);
	free(pieces);
	free(map);
	return rc;
}

/*
 * poprand::uniform: fills `out` with numbers uniform in [min, max) each
 * time the step runs. min <= max, both finite (min == max fills min).
 */
TSI_API int tsi_poprand_uniform(tsi_graph *graph, const tsi_tensor *out, double min, double max,
                                uint64_t seed, tsi_program *seq, const char *debug_name)
{
	op_ctx op = {graph, "tsi_poprand_uniform", debug_name ? debug_name : "Uniform"};
	TSI_OPS_DEBUG(graph, op.name, "poprand", "poprand::uniform");
	float params[2] = {(float)min, (float)max};

	if (graph && !(isfinite(params[0]) && isfinite(params[1]) && min <= max))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': the range [%g, %g) is not a finite interval with "
		                      "min <= max",
		                      op.api, op.name, min, max);
	return build_random(&op, DIST_UNIFORM, out, params, seed, seq);
}

/*
 * poprand::normal: fills `out` with numbers normally distributed with
 * `mean` and `stddev` (finite, stddev >= 0) each time the step runs.
 */
TSI_API int tsi_poprand_normal(tsi_graph *graph, const tsi_tensor *out, double mean,
                               double stddev, uint64_t seed, tsi_program *seq,
                               const char *debug_name)
{
	op_ctx op = {graph, "tsi_poprand_normal", debug_name ? debug_name : "Normal"};
	TSI_OPS_DEBUG(graph, op.name, "poprand", "poprand::normal");
	float params[2] = {(float)mean, (float)stddev};

	if (graph && !(isfinite(params[0]) && isfinite(params[1]) && stddev >= 0))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': mean %g and stddev %g must be finite with stddev >= 0",
		                      op.api, op.name, mean, stddev);
	return build_random(&op, DIST_NORMAL, out, params, seed, seq);
}
