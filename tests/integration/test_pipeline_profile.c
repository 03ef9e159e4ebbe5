/*
 * The multi-IPU model (multi_ipu_pipeline's, built by
 * examples/pipeline-model.c): a two-stage pipeline over two IPUs,
 * replicated twice on four Mk2 IPUs, trained for a few steps. The graph
 * and run profiles hold every invariant of profile-checks.h on a
 * replicated multi-IPU graph; the run shows, per step, the two copies
 * between the stages and the four allReduces as GlobalExchange steps
 * each after an external sync, and the three host transfers; every
 * replica ends with the same parameters, equal to the host reference.
 */
#include "example-util.h"
#include "pipeline-model.h"
#include "profile-checks.h"
#include "test-util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

#define STEPS 3u

/* Replica `r`'s copy of parameter `p` (malloc'd; the caller frees). */
static float *read_param(tsi_engine *e, int p, unsigned r)
{
	size_t bytes = pipeline_param_sizes[p] * sizeof(float);
	float *buf = malloc(bytes);

	assert_non_null(buf);
	assert_int_equal(tsi_engine_read_tensor_replica(e, pipeline_param_names[p], r, buf, bytes),
	                 TSI_OK);
	return buf;
}

/* Trains, then checks the profiles, the traffic the run shows and the
 * parameters of both replicas. */
static void test_pipeline_invariants(void **state)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *dev;
	tsi_graph *g;
	tsi_engine *e = NULL;
	tsi_program *train;
	pipeline_data h;
	double ref_loss[STEPS * PIPELINE_REPLICAS];
	const tsi_graph_profile *gp;
	const tsi_run_profile *run;
	profile_facts facts;
	size_t global = 0, ext_sync = 0, host = 0;
	(void)state;

	ex_init("test_pipeline_profile");
	pipeline_make_data(&h, STEPS);
	o.num_ipus = PIPELINE_NUM_IPUS;
	assert_int_equal(tsi_device_new_ipu_model(&dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(dev), PIPELINE_REPLICAS), TSI_OK);
	train = pipeline_build(g, STEPS);
	if (!train || *tsi_graph_get_error(g))
		fail_msg("building: %s", tsi_graph_get_error(g));
	if (tsi_engine_new(&e, g, &train, 1, NULL) != TSI_OK)
		fail_msg("compiling: %s", tsi_error_last());
	assert_int_equal(tsi_engine_load(e, dev), TSI_OK);
	pipeline_connect(e, &h);
	assert_int_equal(tsi_engine_run(e, 0), TSI_OK);

	gp = tsi_engine_get_graph_profile(e);
	assert_int_equal(gp->replication_factor, PIPELINE_REPLICAS);
	assert_int_equal(gp->target.num_ipus, PIPELINE_NUM_IPUS / PIPELINE_REPLICAS);
	check_graph_profile(gp, &facts);
	run = tsi_engine_get_run_profile(e, 0);
	check_run_profile(gp, run, &facts);
	for (size_t i = 0; i < run->n_steps; i++) {
		const tsi_step *st = &run->steps[i];

		if (st->type == TSI_STEP_GLOBAL_EXCHANGE) {
			global++;
			/* BSP: every IPU-to-IPU exchange follows an external sync. */
			assert_true(i > 0 && run->steps[i - 1].type == TSI_STEP_SYNC &&
			            run->steps[i - 1].sync_type == TSI_SYNC_EXTERNAL);
		}
		ext_sync += st->type == TSI_STEP_SYNC && st->sync_type == TSI_SYNC_EXTERNAL;
		host += st->type == TSI_STEP_STREAM_COPY;
	}
	assert_int_equal(global, 6 * STEPS);   /* 2 stage copies + 4 allReduces */
	assert_int_equal(host, 3 * STEPS);     /* inputs, labels, loss */
	assert_int_equal(ext_sync, 9 * STEPS); /* before each of those */
	assert_true(run->tile_cycles.global_exchange > 0);

	pipeline_host_train(&h, ref_loss);
	for (int p = 0; p < PIPELINE_N_PARAMS; p++) {
		float *r0 = read_param(e, p, 0), *r1 = read_param(e, p, 1);

		assert_memory_equal(r0, r1, pipeline_param_sizes[p] * sizeof(float));
		for (size_t i = 0; i < pipeline_param_sizes[p]; i++)
			assert_close(r0[i], h.params[p][i], 1e-5);
		free(r0);
		free(r1);
	}
	for (unsigned s = 0; s < STEPS; s++)
		for (unsigned r = 0; r < PIPELINE_REPLICAS; r++)
			assert_close(h.loss[r][s], ref_loss[s * PIPELINE_REPLICAS + r],
			             1e-4 * fabs(ref_loss[s * PIPELINE_REPLICAS + r]));

	tsi_engine_free(e);
	tsi_graph_free(g);
	tsi_device_free(dev);
	pipeline_data_free(&h);
}

/* One test. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipeline_invariants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
