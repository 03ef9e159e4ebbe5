/*
 * The profile invariants of profile-checks.h, recomputed by brute force
 * from the public profile structures only.
 */
#include "profile-checks.h"
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* True when `v` is in [0, 1] (false for NaN). */
static bool unit_interval(double v)
{
	return v >= 0.0 && v <= 1.0;
}

/* True when not-always-live variable `v` is live at some step. */
static bool live_somewhere(const tsi_variable_profile *v)
{
	return !v->always_live && v->live_from != NONE;
}

/* Checks each variable's own fields: bytes by tile add up to its bytes,
 * tiles ascend and are on the target, intervals lie within the steps. */
static void check_variables(const tsi_graph_profile *gp)
{
	for (size_t i = 0; i < gp->n_variables; i++) {
		const tsi_variable_profile *v = &gp->variables[i];
		uint64_t sum = 0;

		for (size_t k = 0; k < v->bytes_by_tile.n; k++) {
			if (k > 0 && v->bytes_by_tile.tiles[k] <= v->bytes_by_tile.tiles[k - 1])
				fail_msg("variable '%s': tiles do not ascend", v->name);
			if (v->bytes_by_tile.tiles[k] >= gp->target.num_tiles)
				fail_msg("variable '%s' is on tile %u of %u", v->name,
				         v->bytes_by_tile.tiles[k], gp->target.num_tiles);
			sum += v->bytes_by_tile.values[k];
		}
		if (sum != v->bytes)
			fail_msg("variable '%s': %llu bytes, but %llu by tile", v->name,
			         (unsigned long long)v->bytes, (unsigned long long)sum);
		if (v->always_live) {
			if (v->live_from != 0 || v->live_to != 0)
				fail_msg("always-live variable '%s' has an interval [%u, %u]", v->name,
				         v->live_from, v->live_to);
		} else if (v->live_from != NONE) {
			if (v->live_from > v->live_to || v->live_to >= gp->n_liveness)
				fail_msg("variable '%s': interval [%u, %u] outside %zu steps", v->name,
				         v->live_from, v->live_to, gp->n_liveness);
		} else if (v->live_to != NONE) {
			fail_msg("variable '%s' is live nowhere but ends at %u", v->name, v->live_to);
		}
	}
}

/*
 * Liveness: the not-always-live bytes of every step by brute force over
 * the intervals, the always-live sum, and (returned through *peak) the
 * largest step total.
 */
static void check_liveness(const tsi_graph_profile *gp, uint64_t *peak)
{
	uint64_t all = 0, always = 0;

	*peak = 0;
	for (size_t i = 0; i < gp->n_variables; i++) {
		all += gp->variables[i].bytes;
		if (gp->variables[i].always_live)
			always += gp->variables[i].bytes;
	}
	assert_int_equal(gp->always_live_bytes, always);
	for (size_t s = 0; s < gp->n_liveness; s++) {
		const tsi_liveness_step *st = &gp->liveness[s];
		uint64_t want = 0;

		for (size_t i = 0; i < gp->n_variables; i++) {
			const tsi_variable_profile *v = &gp->variables[i];
			if (live_somewhere(v) && v->live_from <= s && s <= v->live_to)
				want += v->bytes;
		}
		if (st->not_always_live_bytes != want)
			fail_msg("liveness step %zu: %llu not-always-live bytes, the intervals give %llu", s,
			         (unsigned long long)st->not_always_live_bytes, (unsigned long long)want);
		assert_true(st->not_always_live_bytes <= all);
		assert_true(st->program < gp->n_programs);
		assert_true(st->parent < (int32_t)s);
		if (st->not_always_live_bytes > *peak)
			*peak = st->not_always_live_bytes;
	}
}

/*
 * The overlap pool of every tile: its peak over the liveness steps of the
 * bytes of not-always-live variables live there. Dense tiles x steps, one
 * pass per variable entry over its interval. The caller frees the array.
 */
static uint64_t *tile_pools(const tsi_graph_profile *gp)
{
	size_t nt = gp->target.num_tiles, ns = gp->n_liveness;
	uint64_t *live = calloc(nt * (ns ? ns : 1), sizeof(*live));
	uint64_t *pool = calloc(nt ? nt : 1, sizeof(*pool));

	assert_non_null(live);
	assert_non_null(pool);
	for (size_t i = 0; i < gp->n_variables; i++) {
		const tsi_variable_profile *v = &gp->variables[i];

		if (!live_somewhere(v))
			continue;
		for (size_t k = 0; k < v->bytes_by_tile.n; k++) {
			uint64_t *row = &live[(size_t)v->bytes_by_tile.tiles[k] * ns];
			for (uint32_t s = v->live_from; s <= v->live_to; s++)
				row[s] += v->bytes_by_tile.values[k];
		}
	}
	for (size_t t = 0; t < nt; t++)
		for (size_t s = 0; s < ns; s++)
			if (live[t * ns + s] > pool[t])
				pool[t] = live[t * ns + s];
	free(live);
	return pool;
}

/*
 * Per category and tile, the bytes of always-live and of not-always-live
 * variables of that category: [cat * num_tiles + tile], two arrays the
 * caller frees.
 */
static void variable_bytes(const tsi_graph_profile *gp, uint64_t **always, uint64_t **other)
{
	size_t nt = gp->target.num_tiles;

	*always = calloc(TSI_MEM_CATEGORY_COUNT * (nt ? nt : 1), sizeof(**always));
	*other = calloc(TSI_MEM_CATEGORY_COUNT * (nt ? nt : 1), sizeof(**other));
	assert_non_null(*always);
	assert_non_null(*other);
	for (size_t i = 0; i < gp->n_variables; i++) {
		const tsi_variable_profile *v = &gp->variables[i];
		uint64_t *dst = v->always_live ? *always : *other;

		assert_true((unsigned)v->category < TSI_MEM_CATEGORY_COUNT);
		for (size_t k = 0; k < v->bytes_by_tile.n; k++)
			dst[(size_t)v->category * nt + v->bytes_by_tile.tiles[k]] +=
			    v->bytes_by_tile.values[k];
	}
}

/* The memory identities of one tile. */
static void check_tile(const tsi_graph_profile *gp, uint32_t t, uint64_t pool,
                       const uint64_t *always, const uint64_t *other, bool oom,
                       profile_facts *facts)
{
	const tsi_tile_memory *tm = &gp->by_tile[t];
	size_t nt = gp->target.num_tiles;
	uint64_t non_sum = 0, ovl_sum = 0, all = 0, regions = 0;
	int ovl_region = -1;

	for (int r = 0; r < TSI_REGION_COUNT; r++) {
		regions += tm->region[r];
		if (tm->region_including_gaps[r] < tm->region[r])
			fail_msg("tile %u region %d: %llu bytes with gaps < %llu without", t, r,
			         (unsigned long long)tm->region_including_gaps[r],
			         (unsigned long long)tm->region[r]);
	}
	assert_int_equal(tm->total, regions);
	if (tm->total_including_gaps < tm->total)
		fail_msg("tile %u: total with gaps %llu < total %llu", t,
		         (unsigned long long)tm->total_including_gaps, (unsigned long long)tm->total);
	if ((tm->total_including_gaps > gp->target.bytes_per_tile) != oom)
		fail_msg("tile %u: %llu bytes with gaps of %llu, but %s the out-of-memory list", t,
		         (unsigned long long)tm->total_including_gaps,
		         (unsigned long long)gp->target.bytes_per_tile, oom ? "in" : "not in");
	if ((tm->region[TSI_REGION_OVERFLOWED] > 0) != oom)
		fail_msg("tile %u: %llu bytes overflowed, but %s the out-of-memory list", t,
		         (unsigned long long)tm->region[TSI_REGION_OVERFLOWED], oom ? "in" : "not in");

	for (int c = 0; c < TSI_MEM_CATEGORY_COUNT; c++) {
		uint64_t non = 0, ovl = 0;

		for (int r = 0; r < TSI_REGION_COUNT; r++) {
			uint64_t n = tsi_graph_profile_category(gp, c, r, false, t);
			uint64_t o = tsi_graph_profile_category(gp, c, r, true, t);

			non += n;
			ovl += o;
			if (o) {
				if (ovl_region >= 0 && ovl_region != r)
					fail_msg("tile %u: overlapped bytes in regions %d and %d", t, ovl_region, r);
				ovl_region = r;
			}
		}
		if (non != always[(size_t)c * nt + t])
			fail_msg("tile %u, %s: %llu nonOverlapped bytes, the always-live variables hold %llu",
			         t, tsi_mem_category_name(c), (unsigned long long)non,
			         (unsigned long long)always[(size_t)c * nt + t]);
		if (ovl != other[(size_t)c * nt + t])
			fail_msg("tile %u, %s: %llu overlapped bytes, the not-always-live variables hold %llu",
			         t, tsi_mem_category_name(c), (unsigned long long)ovl,
			         (unsigned long long)other[(size_t)c * nt + t]);
		non_sum += non;
		ovl_sum += ovl;
		if (facts && c == TSI_MEM_INSTRUMENTATION_RESULTS)
			facts->instrumentation += non + ovl;
	}
	all = non_sum + ovl_sum;
	if (non_sum + pool != tm->total)
		fail_msg("tile %u: nonOverlapped %llu + pool %llu != total %llu", t,
		         (unsigned long long)non_sum, (unsigned long long)pool,
		         (unsigned long long)tm->total);
	/* The same identity as the guide reads it: every cell, minus what
	 * overlapping saved. */
	assert_true(pool <= ovl_sum);
	if (all - (ovl_sum - pool) != tm->total)
		fail_msg("tile %u: cells %llu - saved %llu != total %llu", t, (unsigned long long)all,
		         (unsigned long long)(ovl_sum - pool), (unsigned long long)tm->total);
}

/* Variables and liveness first (the memory checks rely on their
 * intervals), then every tile against the brute-force pools. */
void check_graph_profile(const tsi_graph_profile *gp, profile_facts *facts)
{
	uint32_t nt = gp->target.num_tiles;
	uint64_t *pool, *always, *other, pool_sum = 0, peak = 0;
	size_t next_oom = 0;

	assert_non_null(gp);
	assert_non_null(gp->by_tile);
	assert_non_null(gp->by_category);
	if (facts)
		memset(facts, 0, sizeof(*facts));
	check_variables(gp);
	check_liveness(gp, &peak);
	pool = tile_pools(gp);
	variable_bytes(gp, &always, &other);
	for (size_t i = 1; i < gp->n_oom_tiles; i++)
		assert_true(gp->oom_tiles[i - 1] < gp->oom_tiles[i]);
	for (uint32_t t = 0; t < nt; t++) {
		bool oom = next_oom < gp->n_oom_tiles && gp->oom_tiles[next_oom] == t;

		check_tile(gp, t, pool[t], always, other, oom, facts);
		next_oom += oom;
		pool_sum += pool[t];
		if (facts)
			facts->total_memory += gp->by_tile[t].total;
	}
	assert_int_equal(next_oom, gp->n_oom_tiles);
	/* The tiles' peaks need not coincide: their sum bounds the peak of
	 * the sums from above. */
	assert_true(pool_sum >= peak);
	if (facts)
		facts->peak_not_always_live = peak;
	free(pool);
	free(always);
	free(other);
}

/* Sum of sparse tile values. */
static uint64_t tv_sum(const tsi_tile_values *tv)
{
	return tsi_tile_values_sum(tv);
}

/* One pass over the trace for the consensus count, one over the steps
 * for timing, balances and the per-kind tile cycles. */
void check_run_profile(const tsi_graph_profile *gp, const tsi_run_profile *run,
                       profile_facts *facts)
{
	tsi_tile_cycles want = {0};
	uint64_t steps = 0, prev_to = 0;
	size_t consensus = 0;

	assert_non_null(run);
	for (size_t i = 0; i < run->n_trace; i++) {
		assert_true(run->program_trace[i] < gp->n_programs);
		consensus += gp->programs[run->program_trace[i]].type == TSI_LP_SET_LOCAL_CONSENSUS;
	}
	for (size_t i = 0; i < run->n_steps; i++) {
		const tsi_step *st = &run->steps[i];

		assert_true(st->program < gp->n_programs);
		if (st->cycles_to - st->cycles_from != st->cycles || st->cycles_to < st->cycles_from)
			fail_msg("step %zu: from %llu to %llu is not %llu cycles", i,
			         (unsigned long long)st->cycles_from, (unsigned long long)st->cycles_to,
			         (unsigned long long)st->cycles);
		if (st->cycles_from < prev_to)
			fail_msg("step %zu starts at %llu, before step %zu ends at %llu", i,
			         (unsigned long long)st->cycles_from, i - 1, (unsigned long long)prev_to);
		prev_to = st->cycles_to;
		steps += st->cycles;
		if (!unit_interval(st->tile_balance) || !unit_interval(st->active_tile_balance) ||
		    !unit_interval(st->thread_balance) || !unit_interval(st->data_balance))
			fail_msg("step %zu: a balance outside [0, 1]: tile %g, active tile %g, thread %g, "
			         "data %g", i, st->tile_balance, st->active_tile_balance,
			         st->thread_balance, st->data_balance);
		assert_true(st->active_tiles <= gp->target.num_tiles);
		assert_true(st->cycles_overlapped <= st->cycles);

		switch (st->type) {
		case TSI_STEP_ON_TILE_EXECUTE: {
			const tsi_compute_set_profile *cs;

			assert_true(st->compute_set >= 0 && (size_t)st->compute_set < gp->n_compute_sets);
			cs = &gp->compute_sets[st->compute_set];
			assert_int_equal(st->cycles, tsi_tile_values_max(&cs->cycles_by_tile));
			want.compute += tv_sum(&cs->cycles_by_tile);
			want.active_compute += tv_sum(&cs->active_cycles_by_tile);
			break;
		}
		case TSI_STEP_DO_EXCHANGE:
		case TSI_STEP_GLOBAL_EXCHANGE:
		case TSI_STEP_STREAM_COPY: {
			tsi_exchange_kind kind = st->type == TSI_STEP_DO_EXCHANGE ? TSI_EXCHANGE_INTERNAL
			                         : st->type == TSI_STEP_GLOBAL_EXCHANGE ? TSI_EXCHANGE_EXTERNAL
			                         : TSI_EXCHANGE_HOST;
			const tsi_exchange_profile *ex;
			uint64_t sum;

			assert_true(st->exchange >= 0 && (size_t)st->exchange < gp->n_exchanges[kind]);
			ex = &gp->exchanges[kind][st->exchange];
			assert_int_equal(st->cycles, tsi_tile_values_max(&ex->cycles));
			sum = tv_sum(&ex->cycles);
			if (kind == TSI_EXCHANGE_INTERNAL)
				want.do_exchange += sum;
			else if (kind == TSI_EXCHANGE_EXTERNAL)
				want.global_exchange += sum;
			else
				want.stream_copy += sum;
			break;
		}
		case TSI_STEP_SYNC:
			assert_true(st->sync_type == TSI_SYNC_INTERNAL || st->sync_type == TSI_SYNC_EXTERNAL);
			want.sync += st->cycles * gp->target.num_tiles;
			break;
		case TSI_STEP_COPY_SHARED_STRUCTURE:
			want.copy_shared_structure += st->cycles * st->active_tiles;
			break;
		default:
			fail_msg("step %zu has an unknown type %d", i, (int)st->type);
		}
	}
	if (steps + CHECK_CONSENSUS_CYCLES * consensus != run->cycles)
		fail_msg("the steps' %llu cycles + %zu x %u consensus cycles != the run's %llu",
		         (unsigned long long)steps, consensus, CHECK_CONSENSUS_CYCLES,
		         (unsigned long long)run->cycles);
	assert_true(prev_to <= run->cycles);
	assert_int_equal(run->tile_cycles.compute, want.compute);
	assert_int_equal(run->tile_cycles.active_compute, want.active_compute);
	assert_true(want.active_compute <= want.compute);
	assert_int_equal(run->tile_cycles.do_exchange, want.do_exchange);
	assert_int_equal(run->tile_cycles.global_exchange, want.global_exchange);
	assert_int_equal(run->tile_cycles.stream_copy, want.stream_copy);
	assert_int_equal(run->tile_cycles.sync, want.sync);
	assert_int_equal(run->tile_cycles.copy_shared_structure, want.copy_shared_structure);
	if (facts)
		facts->consensus += consensus;
}
