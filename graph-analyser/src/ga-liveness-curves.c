/*
 * The liveness curve of a set of tiles (ga-liveness-curves.h).
 */
#include "ga-liveness-curves.h"

#include <string.h>

int ga_liveness_curve(uint64_t *out, size_t n_steps, tsr_report *report, const guint8 *on_tile,
                      GCancellable *cancellable, gint *done, size_t *n_vars)
{
	const tsr_variable *vars;
	size_t nv, nt = tsr_report_get_target(report)->num_tiles;
	g_autofree uint64_t *dense = g_new(uint64_t, nt ? nt : 1);
	/* A difference array of n_steps + 1; unsigned wrap-around cancels out
	 * in the prefix sums, which are never negative. */
	g_autofree uint64_t *diff = g_new0(uint64_t, n_steps + 1);
	uint64_t acc = 0;
	int rc = tsr_report_get_variables(&vars, &nv, report);

	if (n_vars)
		*n_vars = rc ? 0 : nv;
	for (size_t i = 0; !rc && i < nv; i++) {
		const tsr_variable *v = &vars[i];
		uint64_t sum = 0;

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
		for (size_t t = 0; t < nt; t++)
			if (on_tile[t])
				sum += dense[t];
		diff[v->live_from] += sum;
		diff[MIN((uint64_t)v->live_to, (uint64_t)n_steps - 1) + 1] -= sum;
	}
	if (rc)
		return rc;
	for (size_t s = 0; s < n_steps; s++) {
		acc += diff[s];
		out[s] = acc;
	}
	if (done)
		g_atomic_int_set(done, (gint)MIN(nv, (size_t)G_MAXINT));
	return TSR_OK;
}
