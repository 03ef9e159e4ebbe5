/*
 * The Liveness view's curve of a set of tiles (ga_liveness_curve) on
 * tutorial 5's report, against reportlib's per-tile liveness
 * (tsr_report_fill_liveness_by_tile) summed over the same tiles step by
 * step: the one-pass difference array must give the same bytes at every
 * step, for a set of scattered tiles and for all of them, and stop with
 * TSR_ERR_CANCELLED when cancelled. No display needed.
 */
#include "ga-liveness-curves.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

/* Checks ga_liveness_curve for the tiles whose index mod `every` is
 * `rest` against the per-step sums; returns the largest value seen. */
static uint64_t check_tiles(tsr_report *r, unsigned every, unsigned rest)
{
	const tsr_liveness_step *steps;
	size_t n_steps, n_vars = 0, nt = tsr_report_get_target(r)->num_tiles;
	g_autofree guint8 *on = g_new0(guint8, nt);
	g_autofree uint64_t *curve = NULL, *by_tile = g_new(uint64_t, nt);
	uint64_t max = 0;
	gint done = 0;

	assert_int_equal(tsr_report_get_liveness_steps(&steps, &n_steps, r), TSR_OK);
	assert_true(n_steps > 10);
	curve = g_new(uint64_t, n_steps);
	for (size_t t = 0; t < nt; t++)
		on[t] = t % every == rest;
	assert_int_equal(ga_liveness_curve(curve, n_steps, r, on, NULL, &done, &n_vars), TSR_OK);
	assert_true(n_vars > 0);
	assert_int_equal((size_t)done, n_vars);
	for (size_t s = 0; s < n_steps; s++) {
		uint64_t want = 0;

		assert_int_equal(tsr_report_fill_liveness_by_tile(by_tile, nt, r, s), TSR_OK);
		for (size_t t = 0; t < nt; t++)
			want += on[t] ? by_tile[t] : 0;
		if (curve[s] != want)
			fail_msg("tiles %% %u == %u, step %zu: %" G_GUINT64_FORMAT " bytes, reportlib %"
			         G_GUINT64_FORMAT, every, rest, s, curve[s], want);
		max = MAX(max, want);
	}
	return max;
}

static void test_curve(void **state)
{
	tsr_report *r = NULL;
	g_autoptr(GCancellable) cancel = g_cancellable_new();
	size_t n_steps = 0;
	const tsr_liveness_step *steps;
	g_autofree uint64_t *curve = NULL;
	g_autofree guint8 *on = NULL;

	assert_int_equal(tsr_report_open(&r, SAMPLE_REPORTS "/tut5_ml/profile.pop", NULL), TSR_OK);
	/* Scattered tiles, and every tile: both must hold bytes somewhere,
	 * or the comparison would prove nothing. */
	assert_true(check_tiles(r, 7, 3) > 0);
	assert_true(check_tiles(r, 1, 0) > 0);
	tsr_report_get_liveness_steps(&steps, &n_steps, r);
	curve = g_new(uint64_t, n_steps);
	on = g_new0(guint8, tsr_report_get_target(r)->num_tiles);
	g_cancellable_cancel(cancel);
	assert_int_equal(ga_liveness_curve(curve, n_steps, r, on, cancel, NULL, NULL),
	                 TSR_ERR_CANCELLED);
	tsr_report_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_curve)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
