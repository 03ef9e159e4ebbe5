/*
 * Liveness curves over groups of tiles (ga-liveness-curves.h).
 */
#include "ga-liveness-curves.h"

#include <string.h>

int ga_liveness_curves(uint64_t *out, size_t n_steps, tsr_report *report, const int *group_of_tile,
                       guint n_groups, GCancellable *cancellable, gint *done, size_t *n_vars)
{
	const tsr_variable *vars;
	size_t nv, nt = tsr_report_get_target(report)->num_tiles;
	g_autofree uint64_t *dense = g_new(uint64_t, nt ? nt : 1);
	g_autofree uint64_t *sums = g_new(uint64_t, n_groups ? n_groups : 1);
	/* Difference arrays, n_steps + 1 per group; unsigned wrap-around
	 * cancels out in the prefix sums, which are never negative. */
	g_autofree uint64_t *diff = g_new0(uint64_t, (n_steps + 1) * (n_groups ? n_groups : 1));
	int rc = tsr_report_get_variables(&vars, &nv, report);

	if (n_vars)
		*n_vars = rc ? 0 : nv;
	for (size_t i = 0; !rc && i < nv; i++) {
		const tsr_variable *v = &vars[i];
		size_t from, to;

		if (i % 256 == 0) {
			if (g_cancellable_is_cancelled(cancellable))
				return TSR_ERR_CANCELLED;
			if (done)
				g_atomic_int_set(done, (gint)MIN(i, (size_t)G_MAXINT));
		}
		/* reportlib's test: always_live = 0 AND live_from <= step AND live_to >= step. */
		if (v->always_live || v->live_from < 0 || v->live_to < v->live_from ||
		    (uint64_t)v->live_from >= n_steps)
			continue;
		rc = tsr_report_fill_variable_by_tile(dense, nt, report, i);
		if (rc)
			break;
		memset(sums, 0, n_groups * sizeof(*sums));
		for (size_t t = 0; t < nt; t++)
			if (group_of_tile[t] >= 0 && (guint)group_of_tile[t] < n_groups)
				sums[group_of_tile[t]] += dense[t];
		from = (size_t)v->live_from;
		to = MIN((uint64_t)v->live_to, (uint64_t)n_steps - 1);
		for (guint g = 0; g < n_groups; g++) {
			diff[g * (n_steps + 1) + from] += sums[g];
			diff[g * (n_steps + 1) + to + 1] -= sums[g];
		}
	}
	if (rc)
		return rc;
	for (guint g = 0; g < n_groups; g++) {
		uint64_t acc = 0;

		for (size_t s = 0; s < n_steps; s++) {
			acc += diff[g * (n_steps + 1) + s];
			out[g * n_steps + s] = acc;
		}
	}
	if (done)
		g_atomic_int_set(done, (gint)MIN(nv, (size_t)G_MAXINT));
	return TSR_OK;
}
