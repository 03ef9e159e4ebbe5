/*
 * The tile of every element of a variable, held as runs: element i is on
 * the tile of the last run that begins at or before i. Models map
 * variables in blocks (a matmul's output block per tile, a linear spread),
 * so a variable has a few runs where a table of a tile per element took
 * 4 bytes an element: 123 MB of bert_synth --size large's graph.
 *
 * The runs are kept canonical (the first begins at 0, neighbours differ in
 * tile), so that a walk over them stops exactly where a walk over a table
 * would see the tile change: the compiler model's exchange plans and the
 * profile depend on those boundaries.
 */
#include "../ipu-private.h"

#include <stdlib.h>
#include <string.h>

int tsi_var_tiles_init(tsi_var *v)
{
	v->n_tile_runs = 0;
	v->cap_tile_runs = 1;
	v->tile_runs = malloc(sizeof(*v->tile_runs));
	if (!v->tile_runs)
		return TSI_ERR_NO_MEMORY;
	if (v->numel) {
		v->tile_runs[0].begin = 0;
		v->tile_runs[0].tile = TSI_NO_TILE;
		v->n_tile_runs = 1;
	}
	return TSI_OK;
}

void tsi_var_tiles_free(tsi_var *v)
{
	free(v->tile_runs);
	v->tile_runs = NULL;
	v->n_tile_runs = v->cap_tile_runs = 0;
}

/* Makes room for `n` runs; false when out of memory. */
static bool reserve_runs(tsi_var *v, size_t n)
{
	size_t cap = v->cap_tile_runs ? v->cap_tile_runs : 1;
	tsi_tile_run *runs;

	if (n <= v->cap_tile_runs)
		return true;
	while (cap < n)
		cap *= 2;
	if (cap > UINT32_MAX)
		return false;
	runs = realloc(v->tile_runs, cap * sizeof(*runs));
	if (!runs)
		return false;
	v->tile_runs = runs;
	v->cap_tile_runs = (uint32_t)cap;
	return true;
}

/* Appends run {begin, tile} to seq[0..*n) unless the last one has that tile. */
static void push_run(tsi_tile_run *seq, size_t *n, uint32_t begin, uint32_t tile)
{
	if (*n && seq[*n - 1].tile == tile)
		return;
	seq[*n].begin = begin;
	seq[*n].tile = tile;
	(*n)++;
}

/*
 * Maps elements [begin, begin + len) of `v` to `tile`: the runs they
 * overlap are cut, replaced by one run, and merged with equal neighbours.
 * Writing in increasing order (the usual case) only touches the end of
 * the list.
 */
int tsi_var_set_tiles(tsi_var *v, size_t begin, size_t len, uint32_t tile)
{
	size_t end = begin + len, n = v->n_tile_runs, i, k, lo, hi, m = 0;
	tsi_tile_run *r = v->tile_runs, seq[5];

	if (len == 0)
		return TSI_OK;
	i = tsi_var_tile_run_index(v, begin);   /* holds the first element */
	k = tsi_var_tile_run_index(v, end - 1) + 1; /* runs [i, k) overlap */
	lo = i > 0 ? i - 1 : 0;
	hi = k < n ? k + 1 : n;
	/* The window [lo, hi) becomes: the run before, what is left of run i
	 * before `begin`, the new run, what is left of run k - 1 after `end`,
	 * the run after; each merged into the one before when of its tile. */
	if (i > 0)
		push_run(seq, &m, r[i - 1].begin, r[i - 1].tile);
	if (r[i].begin < begin)
		push_run(seq, &m, r[i].begin, r[i].tile);
	push_run(seq, &m, (uint32_t)begin, tile);
	if (end < (k < n ? r[k].begin : v->numel))
		push_run(seq, &m, (uint32_t)end, r[k - 1].tile);
	if (k < n)
		push_run(seq, &m, r[k].begin, r[k].tile);
	if (m > hi - lo) {
		if (!reserve_runs(v, n + m - (hi - lo)))
			return TSI_ERR_NO_MEMORY;
		r = v->tile_runs;
	}
	memmove(r + lo + m, r + hi, (n - hi) * sizeof(*r));
	memcpy(r + lo, seq, m * sizeof(*r));
	v->n_tile_runs = (uint32_t)(n - (hi - lo) + m);
	return TSI_OK;
}

/* Replaces the whole map with `tiles` (numel entries, one per element). */
int tsi_var_set_tiles_from(tsi_var *v, const uint32_t *tiles)
{
	size_t n = 0;

	for (size_t i = 0; i < v->numel; i++)
		n += i == 0 || tiles[i] != tiles[i - 1];
	if (!reserve_runs(v, n))
		return TSI_ERR_NO_MEMORY;
	n = 0;
	for (size_t i = 0; i < v->numel; i++)
		push_run(v->tile_runs, &n, (uint32_t)i, tiles[i]);
	v->n_tile_runs = (uint32_t)n;
	return TSI_OK;
}
