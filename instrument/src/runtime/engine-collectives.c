/*
 * Cross-replica collectives as the engine runs them (ops/gcl.c builds
 * them): all-reduce, reduce-scatter, all-gather and all-to-all over the
 * replica groups of tilescope/gcl.h, computed on the host from every
 * member's copy of the input.
 */
#include "engine-private.h"
#include "tilescope/gcl.h"

#include <stdlib.h>
#include <string.h>

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
int tsi_engine_run_collective(tsi_engine *e, const tsi_program *p, const rmask *m)
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

	buf = tsi_engine_tmp_reserve(e, (size_t)R * (sbytes + dbytes) + 1);
	in = malloc(R * sizeof(*in));
	members = malloc(R * sizeof(*members));
	if (!buf || !in || !members) {
		rc = tsi_engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory running collective '%s'",
		                     p->name ? p->name : "?");
		goto done;
	}
	for (unsigned r = 0; r < R; r++) {
		in[r] = buf + (size_t)r * sbytes;
		if (mask_has(m, r))
			tsi_engine_tensor_gather(e, p->src, r, in[r]);
	}
	for (unsigned r = 0; r < R; r++) {
		unsigned char *out = buf + (size_t)R * sbytes + (size_t)r * dbytes;
		unsigned n, rank = 0;
		if (!mask_has(m, r))
			continue;
		n = tsi_comm_group_fill_members(members, group, R, r);
		if (n != k) {
			rc = tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT, "collective '%s': bad group of %u",
			                     p->name ? p->name : "?", k);
			goto done;
		}
		for (unsigned j = 0; j < k; j++) {
			if (!mask_has(m, members[j])) {
				rc = tsi_engine_fail(e, TSI_ERR_INVALID_ARGUMENT,
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
			tsi_engine_tensor_scatter(e, p->dst, r, buf + (size_t)R * sbytes + (size_t)r * dbytes);
done:
	free(in);
	free(members);
	return rc;
}
