/*
 * Liveness read back from a real report against the simulator's
 * in-memory profile: every step (program, parent, depth, bytes), the
 * always-live total, the peak, and at every step the bytes by tile and
 * by IPU and the live variables, which with lowered variables listed
 * (autoReport.all) must add up to the step's not-always-live bytes.
 */
#include "report-fixture.h"

#include <stdlib.h>
#include <string.h>

/* Steps, always-live bytes and the peak. */
static void test_steps(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	const tsr_liveness_step *s;
	size_t n, peak, expect_peak = 0;
	uint64_t bytes;

	assert_int_equal(tsr_report_get_liveness_steps(&s, &n, f->report), TSR_OK);
	assert_int_equal(n, gp->n_liveness);
	assert_true(n > 5);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].program, gp->liveness[i].program);
		assert_int_equal(s[i].parent, gp->liveness[i].parent);
		assert_int_equal(s[i].depth, gp->liveness[i].depth);
		assert_int_equal(s[i].not_always_live, gp->liveness[i].not_always_live_bytes);
		if (gp->liveness[i].not_always_live_bytes >
		    gp->liveness[expect_peak].not_always_live_bytes)
			expect_peak = i;
	}
	assert_int_equal(tsr_report_get_always_live_bytes(f->report), gp->always_live_bytes);
	assert_true(gp->always_live_bytes > 0);
	assert_int_equal(tsr_report_get_always_live_bytes(NULL), 0);
	assert_int_equal(tsr_report_get_peak_liveness(&peak, &bytes, f->report), TSR_OK);
	assert_int_equal(peak, expect_peak);
	assert_int_equal(bytes, gp->liveness[expect_peak].not_always_live_bytes);
	assert_true(bytes > 0);
	assert_int_equal(tsr_report_get_peak_liveness(NULL, &bytes, f->report), TSR_ERR_INVALID_ARGUMENT);
}

/* At every step: by tile, by IPU and the live variables agree with the
 * step's bytes and with a recomputation from the profile's variables. */
static void test_breakdowns(void **state)
{
	tsr_fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	const tsr_target *t = tsr_report_get_target(f->report);
	const tsr_variable *vars;
	uint64_t *tiles = calloc(t->num_tiles, sizeof(*tiles));
	uint64_t ipus[2];
	size_t nv;

	assert_non_null(tiles);
	assert_true(tsr_report_get_info(f->report)->lowered_vars);
	assert_int_equal(tsr_report_get_variables(&vars, &nv, f->report), TSR_OK);
	for (size_t step = 0; step < gp->n_liveness; step++) {
		uint64_t sum = 0, live_sum = 0, always = 0;
		size_t *live, n_live;

		assert_int_equal(tsr_report_fill_liveness_by_tile(tiles, t->num_tiles, f->report, step),
		                 TSR_OK);
		for (unsigned tile = 0; tile < t->num_tiles; tile++) {
			uint64_t expect = 0;

			for (size_t v = 0; v < gp->n_variables; v++) {
				const tsi_variable_profile *g = &gp->variables[v];

				if (!g->always_live && g->live_from != UINT32_MAX && g->live_from <= step &&
				    g->live_to >= step)
					expect += tsi_tile_values_get(&g->bytes_by_tile, tile);
			}
			assert_int_equal(tiles[tile], expect);
			sum += tiles[tile];
		}
		assert_int_equal(sum, gp->liveness[step].not_always_live_bytes);
		assert_int_equal(tsr_report_fill_liveness_by_ipu(ipus, 2, f->report, step), TSR_OK);
		assert_int_equal(ipus[0] + ipus[1], sum);
		{
			uint64_t first = 0;

			for (unsigned tile = 0; tile < t->tiles_per_ipu; tile++)
				first += tiles[tile];
			assert_int_equal(ipus[0], first);
		}

		assert_int_equal(tsr_report_list_live_variables(&live, &n_live, f->report, step), TSR_OK);
		for (size_t k = 0; k < n_live; k++) {
			const tsr_variable *v = &vars[live[k]];

			if (k)
				assert_true(vars[live[k - 1]].bytes >= v->bytes);
			if (v->always_live)
				always += v->bytes;
			else
				live_sum += v->bytes;
		}
		assert_int_equal(live_sum, gp->liveness[step].not_always_live_bytes);
		assert_int_equal(always, gp->always_live_bytes);
		free(live);
	}
	assert_int_equal(tsr_report_fill_liveness_by_tile(tiles, t->num_tiles, f->report, gp->n_liveness),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_report_fill_liveness_by_ipu(ipus, 1, f->report, 0), TSR_ERR_INVALID_ARGUMENT);
	{
		size_t *live, n_live;

		assert_int_equal(tsr_report_list_live_variables(&live, &n_live, f->report, gp->n_liveness),
		                 TSR_ERR_OUT_OF_RANGE);
	}
	free(tiles);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_breakdowns),
	};

	return cmocka_run_group_tests_name("liveness", tests, tsr_fixture_new_matmul, tsr_fixture_delete);
}
