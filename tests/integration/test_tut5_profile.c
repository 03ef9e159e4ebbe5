/*
 * The tutorial 5 model (logistic regression, built by
 * examples/tut5-model.c as tut5_ml builds it) on its synthetic data with
 * a few batches, on a full Mk2 IPU: initialised, trained one epoch and
 * tested. The graph profile and the two recorded runs (init and the
 * epoch; Poplar keeps the first two) hold every invariant of
 * profile-checks.h, and the epoch's run shows its Repeat: each batch's
 * three host transfers and two matmuls once per batch, and the count of
 * correct answers, summed on the device, sent once at the end.
 */
#include "profile-checks.h"
#include "test-util.h"
#include "tut5-model.h"
#include "example-util.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

#define TRAIN_IMAGES 500u /* five batches of 100 */
#define TEST_IMAGES 250u  /* two batches and a tail of 50 */
#define BATCH 100u
#define SEED 5u

/* True when the name starts with `prefix`. */
static bool starts_with(const char *name, const char *prefix)
{
	return name && strncmp(name, prefix, strlen(prefix)) == 0;
}

/* Builds, compiles and runs the three programs, then checks the graph
 * profile, both recorded runs and the epoch's structure. */
static void test_tut5_invariants(void **state)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	const size_t batches = TRAIN_IMAGES / BATCH;
	tsi_device *dev;
	tsi_graph *g;
	tsi_engine *e = NULL;
	idx_dataset train, test;
	tut5_model m;
	tut5_host host;
	float losses[TRAIN_IMAGES / BATCH];
	uint32_t train_correct = UINT32_MAX, test_correct = UINT32_MAX;
	const tsi_graph_profile *gp;
	const tsi_run_profile *init, *epoch;
	profile_facts facts;
	size_t streams = 0, logits = 0, dw = 0, sums = 0;
	char err[256];
	(void)state;

	ex_init("test_tut5_profile");
	assert_int_equal(idx_dataset_synthetic(&train, TRAIN_IMAGES, SEED, 0, err, sizeof(err)),
	                 IDX_OK);
	assert_int_equal(idx_dataset_synthetic(&test, TEST_IMAGES, SEED, 1, err, sizeof(err)),
	                 IDX_OK);
	assert_int_equal(tsi_device_new_ipu_model(&dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(dev), 1), TSI_OK);
	tut5_model_build(&m, g, BATCH, 0.1, batches, TEST_IMAGES);
	assert_int_equal(m.tail, TEST_IMAGES % BATCH);

	if (tsi_engine_new(&e, g, m.progs, TUT5_N_PROGS, NULL) != TSI_OK)
		fail_msg("compiling tut5: %s", tsi_error_last());
	assert_int_equal(tsi_engine_load(e, dev), TSI_OK);
	host = (tut5_host){&train, &test, losses, &train_correct, &test_correct};
	tut5_model_connect(&m, e, &host);
	for (size_t p = 0; p < TUT5_N_PROGS; p++)
		assert_int_equal(tsi_engine_run(e, p), TSI_OK);
	/* The model ran for real: losses near ln(10) at the start, and some
	 * answers right, counted on the device (the counts started from
	 * UINT32_MAX on the host: they were written, and are counts). */
	assert_true(losses[0] / BATCH > 1.0 && losses[0] / BATCH < 4.0);
	assert_true(train_correct > 0 && train_correct <= TRAIN_IMAGES);
	assert_true(test_correct > 0 && test_correct <= TEST_IMAGES);

	gp = tsi_engine_get_graph_profile(e);
	check_graph_profile(gp, &facts);
	assert_int_equal(gp->n_oom_tiles, 0);
	/* Every program ran once, and each program's first runs are kept
	 * (autoReport.executionProfileProgramRunCount, default 2). */
	assert_int_equal(tsi_engine_num_run_profiles(e), TUT5_N_PROGS);
	init = tsi_engine_get_run_profile(e, 0);
	epoch = tsi_engine_get_run_profile(e, 1);
	assert_int_equal(init->program_index, TUT5_PROG_INIT);
	assert_int_equal(epoch->program_index, TUT5_PROG_EPOCH);
	check_run_profile(gp, init, &facts);
	check_run_profile(gp, epoch, &facts);
	assert_int_equal(facts.consensus, 0);

	for (size_t i = 0; i < epoch->n_steps; i++) {
		const tsi_step *st = &epoch->steps[i];
		if (st->type == TSI_STEP_STREAM_COPY)
			streams++;
		if (st->type == TSI_STEP_ON_TILE_EXECUTE) {
			const char *cs = gp->compute_sets[st->compute_set].name;
			logits += starts_with(cs, "train/fc/logits");
			dw += starts_with(cs, "train/backward/dW");
			sums += strstr(cs, "train/sumCorrect") != NULL;
		}
	}
	/* Images, labels and the loss per batch; the correct answers once. */
	assert_int_equal(streams, 3 * batches + 1);
	assert_int_equal(sums, batches);
	assert_true(logits >= batches && logits % batches == 0);
	assert_true(dw >= batches && dw % batches == 0);

	tsi_engine_free(e);
	tsi_graph_free(g);
	tsi_device_free(dev);
	idx_dataset_free(&train);
	idx_dataset_free(&test);
}

/* One test. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tut5_invariants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
