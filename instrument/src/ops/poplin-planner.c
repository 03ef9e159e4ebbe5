/*
 * The matmul planner of poplin, and the cycle model its vertices share
 * with it. A matmul [M, K] x [K, N] is cut into m_split x k_split x
 * n_split blocks; block (mi, ki, ni) runs on tile (mi * k_split + ki) *
 * n_split + ni. The planner tries every useful split whose product fits
 * the graph's tiles and keeps the one with the fewest estimated cycles:
 * the busiest tile's compute, plus the exchange that brings each tile the
 * parts of its A and B blocks it does not hold, plus the stage that sums
 * partials across K splits (which HALF matmuls always run, as the cast
 * of their float partials to half).
 *
 * The cycle functions here are the ones the vertices' estimators call
 * (poplin.c), so the plan and the vertices never disagree. The AMP
 * vertex's model is calibrated against measured Bow IPU throughput (see
 * tsi_poplin_amp_cycles); the others are assumptions stated beside them.
 */
#include "poplin-private.h"
#include "tilescope/poplin.h"

#include <stdlib.h>

/* a / b rounded up (b > 0). */
static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* --- Cycle model ------------------------------------------------------------ */

/*
 * AMP calibration. Measured on a Bow IPU (1.85 GHz, 1,472 tiles), one
 * ConvPartial1x1 vertex per tile computing [N,16] x [16,16] in fp16 runs
 * at 55.5 ... 211.1 TFLOPS for N = 16 ... 128, i.e. 402 tile cycles at
 * N = 16 rising by 3.96 cycles per row to 845 at N = 128. A least-squares
 * line with the slope fixed at the AMP's peak (4 cycles per row of 16x16
 * MACs = 128 flops per cycle) has an intercept of 332 cycles; the largest
 * error over the eight measurements is 1.5% (N = 16).
 *
 * The measured time is the whole compute set, so the intercept also
 * holds the launch of the compute set, which the cycle model charges
 * separately (compute_set_overhead, 24 cycles, in compiler/compiler.c).
 * The rest is split into a fixed cost per vertex (supervisor entry,
 * reading the worklists, starting the six workers and waiting for them)
 * and a cost per pass (loading a 16x16 weight block into the AMP's
 * coefficient registers, filling and draining its pipeline); a pass is one
 * 16-wide block of K times one 16-wide block of N, over all rows:
 * 332 = 24 (launch) + 284 (vertex) + 24 (one pass).
 */
#define AMP_BLOCK 16             /* K and N elements per AMP pass (half) */
#define AMP_VERTEX_OVERHEAD 284  /* tile cycles per vertex, launch excluded */
#define AMP_PASS_OVERHEAD 24     /* tile cycles per 16x16 weight block */

/*
 * Tile cycles of one poplin::ConvPartial1x1Out<half,float,true,false>
 * vertex computing [rows, k] x [k, n]. It is a supervisor vertex: it
 * spreads its rows over the six workers itself, so its estimate is in tile
 * cycles, not worker cycles, and one vertex per tile is the whole tile's
 * compute (as in the measurement). The cost: the fixed overhead, then
 * per pass the pass overhead plus one row of 16x16 MACs per
 * 512 / fp16_amp_flops_per_cycle cycles (4 on Mk2 and Bow, 8 on Mk1).
 * Partial 16-wide blocks cost a whole pass, as on the hardware, whose AMP
 * works on whole blocks.
 */
uint64_t tsi_poplin_amp_cycles(size_t rows, size_t k, size_t n, const tsi_target *target)
{
	uint64_t flops = target && target->fp16_amp_flops_per_cycle
	                     ? target->fp16_amp_flops_per_cycle : 128;
	uint64_t row_cycles = ceil_div(2 * AMP_BLOCK * AMP_BLOCK, flops);
	uint64_t passes = ceil_div(k ? k : 1, AMP_BLOCK) * ceil_div(n ? n : 1, AMP_BLOCK);

	return AMP_VERTEX_OVERHEAD + passes * (AMP_PASS_OVERHEAD + (uint64_t)rows * row_cycles);
}

/*
 * Worker cycles of one poplin::MatMulPartial<float,float> vertex computing
 * [rows, k] x [k, n] on one worker context.
 *
 * The inner loop runs on the AMP in fp32 mode, as poplin's fp32 matmuls
 * do: one AMP instruction per worker cycle retires fp32_flops_per_cycle/2
 * MACs (16 on Mk2 and Bow: 4 output columns x 4 values of k). Six workers
 * each issuing once per own cycle is one instruction per tile cycle, so a
 * tile reaches the target's fp32 peak (32 flops per tile-cycle) only with
 * six busy workers and long rows; per worker that is about 2.7 MACs per
 * tile cycle. Around the loop: 16 cycles of vertex entry and state loads,
 * 6 per row (row pointers from the vector lists, loop set-up) and 3 per
 * group of 4 output columns (zeroing the accumulators, storing 4 results
 * as two 64-bit stores). Columns are processed 4 at a time, so n = 10
 * costs as much as n = 12.
 */
#define F32_COLS_PER_GROUP 4
#define F32_VERTEX_OVERHEAD 16
#define F32_ROW_OVERHEAD 6
#define F32_GROUP_OVERHEAD 3

uint64_t tsi_poplin_float_cycles(size_t rows, size_t k, size_t n, const tsi_target *target)
{
	uint64_t macs = target && target->fp32_flops_per_cycle >= 2
	                    ? target->fp32_flops_per_cycle / 2 : 1;
	uint64_t groups = ceil_div(n ? n : 1, F32_COLS_PER_GROUP);
	uint64_t group = F32_GROUP_OVERHEAD + ceil_div((uint64_t)F32_COLS_PER_GROUP * k, macs);

	return F32_VERTEX_OVERHEAD + (uint64_t)rows * (F32_ROW_OVERHEAD + groups * group);
}

/*
 * Worker cycles of one poplin::ReduceAdd vertex summing `n_partials`
 * float vectors of `elems` elements (an assumption): 12 cycles of entry
 * and state loads, 2 per partial (its pointer), then per pair of outputs
 * one 64-bit load and f32v2add per partial plus a store. Half outputs add
 * one conversion per 4 elements; the scaled in-place form
 * (ReduceAddScaledTo) adds a load of the old value and an axpy per pair.
 */
uint64_t tsi_poplin_reduce_cycles(size_t n_partials, size_t elems, bool half_out, bool scaled)
{
	uint64_t pairs = ceil_div(elems, 2);
	uint64_t cycles = 12 + 2 * (uint64_t)n_partials + pairs * ((uint64_t)n_partials + 1);

	if (half_out)
		cycles += ceil_div(elems, 4);
	if (scaled)
		cycles += 2 * pairs;
	return cycles;
}

/* Worker contexts per tile of `target` (at least 1). */
unsigned tsi_poplin_workers(const tsi_target *target)
{
	return target && target->num_worker_contexts ? target->num_worker_contexts : 1;
}

/*
 * How one tile's [rows, cols] block of a float matmul is shared among its
 * worker vertices: up to `workers` row ranges, and when there are fewer
 * rows than workers, the columns split too, so small-M products (a
 * [1, K] x [K, N] row) still keep the workers busy.
 */
void tsi_poplin_worker_split(size_t rows, size_t cols, unsigned workers, size_t *row_parts,
                             size_t *col_parts)
{
	size_t r = rows < workers ? rows : workers;
	size_t c;

	if (r == 0)
		r = 1;
	c = workers / r;
	if (c > cols)
		c = cols;
	if (c == 0)
		c = 1;
	*row_parts = r;
	*col_parts = c;
}

/* --- Plan cost ---------------------------------------------------------------- */

/* The problem being planned. */
typedef struct plan_problem {
	const tsi_target *target;
	tsi_type type;
	size_t m, k, n;
	unsigned workers;
	uint64_t bytes_per_cycle; /* exchange bandwidth into one tile */
} plan_problem;

/*
 * Exchange cost of each piece a tile receives from another tile, beyond
 * its bytes (an assumption): selecting the sending tile and setting up
 * the copy of one region. Without it, spreading a tiny product over
 * hundreds of tiles would look free.
 */
#define EXCHANGE_PIECE_CYCLES 8

/* Cost of one more compute set (the reduce stage): starting it on a tile
 * and the sync before its exchange (an assumption, of the order of the
 * IPU Model's compute-set start and minimum sync delay). */
#define STAGE_CYCLES 60

/* Tile cycles of `w` worker vertices of `cycles` worker cycles each: they
 * run in ceil(w / workers) rounds, and as the workers share the tile
 * round-robin a worker cycle is `workers` tile cycles. */
static uint64_t worker_tile_cycles(uint64_t w, unsigned workers, uint64_t cycles)
{
	return ceil_div(w, workers) * workers * cycles;
}

/*
 * Bytes a tile needs for a plan's blocks (A and B blocks in full once
 * received, the float partial block, its share of the output): used to
 * reject plans whose blocks cannot fit a tile's memory.
 */
static uint64_t plan_tile_bytes(const plan_problem *p, uint64_t mb, uint64_t kb, uint64_t nb,
                                size_t ks)
{
	uint64_t esz = tsi_type_size(p->type);

	return esz * (mb * kb + kb * nb) + 4 * mb * nb + esz * ceil_div(mb * nb, ks);
}

/*
 * Fills `out` with the estimated cycles of splitting the problem
 * (ms, ks, ns) ways, following how poplin.c builds it: the largest block
 * is ceil(dim / split) along each dimension (blocks are balanced), each
 * tile holds 1/n_split of its A block and 1/m_split of its B block
 * (tsi_poplin_create_matmul_input_lhs/rhs) and receives the rest (its
 * bytes at the exchange bandwidth plus a set-up cost per piece); the
 * reduction splits each output block's elements over the k_split tiles
 * that computed its partials, each receiving k_split - 1 partial shares.
 */
static void plan_cost(tsi_poplin_plan *out, const plan_problem *p, size_t ms, size_t ks,
                      size_t ns)
{
	const uint64_t mb = ceil_div(p->m, ms);
	const uint64_t kb = ceil_div(p->k, ks);
	const uint64_t nb = ceil_div(p->n, ns);
	const uint64_t esz = tsi_type_size(p->type);
	const bool half = p->type == TSI_HALF;
	uint64_t recv;

	out->m_split = ms;
	out->k_split = ks;
	out->n_split = ns;
	out->tiles_used = (unsigned)(ms * ks * ns);

	if (half) {
		out->est_compute_cycles = tsi_poplin_amp_cycles(mb, kb, nb, p->target);
	} else {
		size_t rv, nv;

		tsi_poplin_worker_split(mb, nb, p->workers, &rv, &nv);
		out->est_compute_cycles = worker_tile_cycles(
		    (uint64_t)rv * nv, p->workers,
		    tsi_poplin_float_cycles(ceil_div(mb, rv), kb, ceil_div(nb, nv), p->target));
	}

	/* The tile holding the smallest share of its blocks receives the most:
	 * the rest of its A block from n_split - 1 tiles, of its B block from
	 * m_split - 1 tiles. */
	recv = mb * kb - (mb * kb) / ns + kb * nb - (kb * nb) / ms;
	out->est_exchange_cycles = ceil_div(recv * esz, p->bytes_per_cycle) +
	                           EXCHANGE_PIECE_CYCLES * ((ns - 1) + (ms - 1));

	out->est_reduce_cycles = 0;
	if (ks > 1 || half) {
		uint64_t share = ceil_div(mb * nb, ks);
		uint64_t vertices = share < p->workers ? share : p->workers;
		uint64_t per_vertex = ceil_div(share, vertices);

		out->est_reduce_cycles =
		    STAGE_CYCLES + ceil_div((ks - 1) * share * 4, p->bytes_per_cycle) +
		    EXCHANGE_PIECE_CYCLES * (ks - 1) +
		    worker_tile_cycles(vertices, p->workers,
		                       tsi_poplin_reduce_cycles(ks, per_vertex, half, false));
	}
	out->est_total_cycles =
	    out->est_compute_cycles + out->est_exchange_cycles + out->est_reduce_cycles;
}

/*
 * The useful split counts of a dimension of size `dim` over at most
 * `limit` parts: for every distinct largest block size ceil(dim / s), the
 * smallest s giving it (more parts with the same largest block only use
 * more tiles). Ascending; at most about 2 sqrt(dim) values. The caller
 * frees *out.
 */
static int split_candidates(size_t **out, size_t *count, size_t dim, size_t limit)
{
	size_t max = dim < limit ? dim : limit;
	size_t *c = malloc((max ? max : 1) * sizeof(*c));
	size_t n = 0;

	if (!c)
		return TSI_ERR_NO_MEMORY;
	for (size_t s = 1; s <= max; s++) {
		size_t block = (size_t)ceil_div(dim, s);
		size_t smallest = (size_t)ceil_div(dim, block);

		if (n == 0 || c[n - 1] != smallest)
			c[n++] = smallest;
	}
	*out = c;
	*count = n;
	return TSI_OK;
}

/* True when plan `a` is better than `b`: fewer cycles, then fewer tiles,
 * then the smaller (m, k, n) splits, so the choice is deterministic. */
static bool plan_better(const tsi_poplin_plan *a, const tsi_poplin_plan *b)
{
	if (a->est_total_cycles != b->est_total_cycles)
		return a->est_total_cycles < b->est_total_cycles;
	if (a->tiles_used != b->tiles_used)
		return a->tiles_used < b->tiles_used;
	if (a->m_split != b->m_split)
		return a->m_split < b->m_split;
	if (a->k_split != b->k_split)
		return a->k_split < b->k_split;
	return a->n_split < b->n_split;
}

/*
 * Plans a matmul (poplin's planner, in small): every combination of useful
 * splits with m_split * k_split * n_split <= tiles is costed and the
 * cheapest kept. Plans whose blocks would take more than half a tile's
 * memory are set aside unless no plan fits. A 4096^3 problem on 1,472
 * tiles costs a few tens of thousands of evaluations: a millisecond or so.
 */
TSI_API int tsi_poplin_plan_matmul(tsi_poplin_plan *out, const tsi_graph *graph, tsi_type type,
                                   size_t m, size_t k, size_t n)
{
	size_t *cm = NULL, *ck = NULL, *cn = NULL;
	size_t ncm = 0, nck = 0, ncn = 0;
	tsi_poplin_plan best = {0}, best_fit = {0}, cur;
	bool have_best = false, have_fit = false;
	plan_problem p;
	uint64_t tiles;
	int rc;

	if (!out || !graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_poplin_plan_matmul: %s is NULL",
		                     !out ? "out" : "graph");
	if (type != TSI_FLOAT && type != TSI_HALF)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_poplin_plan_matmul: type %s is not supported (float or half)",
		                     tsi_type_name(type));
	if (m == 0 || k == 0 || n == 0)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_poplin_plan_matmul: empty problem [%zu,%zu] x [%zu,%zu]", m, k,
		                     k, n);
	p.target = tsi_graph_get_target(graph);
	p.type = type;
	p.m = m;
	p.k = k;
	p.n = n;
	p.workers = tsi_poplin_workers(p.target);
	p.bytes_per_cycle = p.target->exchange_bytes_per_cycle ? p.target->exchange_bytes_per_cycle
	                                                       : 4;
	tiles = p.target->num_tiles ? p.target->num_tiles : 1;

	if ((rc = split_candidates(&cm, &ncm, m, (size_t)tiles)) != 0 ||
	    (rc = split_candidates(&ck, &nck, k, (size_t)tiles)) != 0 ||
	    (rc = split_candidates(&cn, &ncn, n, (size_t)tiles)) != 0) {
		rc = tsi_set_error(rc, "tsi_poplin_plan_matmul: out of host memory");
		goto done;
	}
	for (size_t i = 0; i < ncm; i++) {
		for (size_t j = 0; j < nck && (uint64_t)cm[i] * ck[j] <= tiles; j++) {
			for (size_t l = 0; l < ncn && (uint64_t)cm[i] * ck[j] * cn[l] <= tiles; l++) {
				uint64_t bytes = plan_tile_bytes(&p, ceil_div(m, cm[i]), ceil_div(k, ck[j]),
				                                 ceil_div(n, cn[l]), ck[j]);

				plan_cost(&cur, &p, cm[i], ck[j], cn[l]);
				if (!have_best || plan_better(&cur, &best)) {
					best = cur;
					have_best = true;
				}
				if (2 * bytes <= p.target->bytes_per_tile &&
				    (!have_fit || plan_better(&cur, &best_fit))) {
					best_fit = cur;
					have_fit = true;
				}
			}
		}
	}
	*out = have_fit ? best_fit : best;
	rc = TSI_OK;
done:
	free(cm);
	free(ck);
	free(cn);
	return rc;
}
