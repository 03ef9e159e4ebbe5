/*
 * The tutorial 4 model ((m1 x m2) x m3 with poplin, the example
 * tut4_profiling's model, built by examples/tut4-model.c) compiled, run
 * and checked on a full Mk2 IPU: its result is right, its graph and run
 * profiles hold every invariant of profile-checks.h, the profile shows
 * the model's structure (three input streams and one output stream, the
 * two matmuls' compute sets), and instrumentation (debug.instrument)
 * costs memory and cycles while leaving the invariants intact.
 */
#include "profile-checks.h"
#include "test-util.h"
#include "tut4-model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

/* A built tut4 model with its device and host buffers. */
typedef struct fixture {
	tsi_device *dev;
	tsi_graph *g;
	tut4_model m;
	tut4_sizes sizes;
	float *m1, *m2, *m3, *result;
} fixture;

/* Builds the tutorial's model on a full Mk2 IPU. */
static void setup(fixture *f)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;

	memset(f, 0, sizeof(*f));
	f->sizes = TUT4_SIZES_DEFAULT;
	assert_int_equal(tsi_device_new_ipu_model(&f->dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&f->g, tsi_device_get_target(f->dev), 1), TSI_OK);
	if (tut4_model_build(&f->m, f->g, &f->sizes) != TSI_OK)
		fail_msg("building tut4: %s", tsi_graph_get_error(f->g));
	f->m1 = malloc(f->sizes.m * f->sizes.k * sizeof(float));
	f->m2 = malloc(f->sizes.k * f->sizes.n * sizeof(float));
	f->m3 = malloc(f->sizes.n * f->sizes.p * sizeof(float));
	f->result = calloc(f->sizes.m * f->sizes.p, sizeof(float));
	assert_non_null(f->m1);
	assert_non_null(f->m2);
	assert_non_null(f->m3);
	assert_non_null(f->result);
	tut4_fill_inputs(&f->sizes, f->m1, f->m2, f->m3);
}

/* Frees what setup made. */
static void teardown(fixture *f)
{
	tsi_graph_free(f->g);
	tsi_device_free(f->dev);
	free(f->m1);
	free(f->m2);
	free(f->m3);
	free(f->result);
}

/*
 * Compiles with `opts`, loads, runs once and checks every invariant and,
 * when `check_result`, the product (a host product of 160 M
 * multiply-adds: the instrumentation test skips it to stay short);
 * returns the engine (the caller frees it) and its facts.
 */
static tsi_engine *compile_and_run(fixture *f, const tsi_options *opts, bool check_result,
                                   profile_facts *facts)
{
	tsi_engine *e = NULL;
	double expected = 0.0;
	long bad;

	if (tsi_engine_new(&e, f->g, &f->m.prog, 1, opts) != TSI_OK)
		fail_msg("compiling tut4: %s", tsi_error_last());
	assert_int_equal(tsi_engine_load(e, f->dev), TSI_OK);
	assert_int_equal(tut4_model_connect(e, &f->m, f->m1, f->m2, f->m3, f->result), TSI_OK);
	memset(f->result, 0, f->sizes.m * f->sizes.p * sizeof(float));
	assert_int_equal(tsi_engine_run(e, 0), TSI_OK);
	bad = check_result ? tut4_check_result(&f->sizes, f->m1, f->m2, f->m3, f->result, &expected)
	                   : -1;
	if (bad >= 0)
		fail_msg("m5 element %ld is %g, expected %g", bad, (double)f->result[bad], expected);

	check_graph_profile(tsi_engine_get_graph_profile(e), facts);
	assert_int_equal(tsi_engine_num_run_profiles(e), 1);
	check_run_profile(tsi_engine_get_graph_profile(e), tsi_engine_get_run_profile(e, 0), facts);
	return e;
}

/* True when the name starts with `prefix`. */
static bool starts_with(const char *name, const char *prefix)
{
	return name && strncmp(name, prefix, strlen(prefix)) == 0;
}

/* The invariants, and the structure the profile must show. */
static void test_tut4_invariants(void **state)
{
	fixture f;
	profile_facts facts;
	tsi_engine *e;
	const tsi_graph_profile *gp;
	const tsi_run_profile *run;
	size_t streams = 0, m4_steps = 0, m5_steps = 0;
	(void)state;

	setup(&f);
	e = compile_and_run(&f, NULL, true, &facts);
	gp = tsi_engine_get_graph_profile(e);
	run = tsi_engine_get_run_profile(e, 0);

	assert_int_equal(gp->n_oom_tiles, 0);
	assert_int_equal(facts.instrumentation, 0);
	assert_int_equal(facts.consensus, 0);
	assert_true(facts.peak_not_always_live > 0);
	/* The stream copies write the inputs before anything reads them and
	 * they have no host handle, so they are not always live. */
	for (size_t i = 0; i < gp->n_variables; i++) {
		const tsi_variable_profile *v = &gp->variables[i];
		if (v->name && (!strcmp(v->name, "m1") || !strcmp(v->name, "m2") ||
		                !strcmp(v->name, "m3")))
			assert_false(v->always_live);
	}
	for (size_t i = 0; i < run->n_steps; i++) {
		const tsi_step *st = &run->steps[i];
		if (st->type == TSI_STEP_STREAM_COPY)
			streams++;
		if (st->type == TSI_STEP_ON_TILE_EXECUTE) {
			const char *cs = gp->compute_sets[st->compute_set].name;
			m4_steps += starts_with(cs, "m4");
			m5_steps += starts_with(cs, "m5");
		}
	}
	assert_int_equal(streams, 4); /* m1, m2, m3 in; the result out */
	assert_true(m4_steps >= 1);
	assert_true(m5_steps >= 1);
	assert_true(run->tile_cycles.stream_copy > 0);
	assert_true(run->tile_cycles.compute > 0);
	assert_true(run->tile_cycles.do_exchange > 0); /* m4 is not laid out for the second matmul */

	tsi_engine_free(e);
	teardown(&f);
}

/*
 * debug.instrument on: instrumentation results take memory (none when
 * off), the total memory grows by at least that, and the run takes more
 * cycles; the invariants hold both ways.
 */
static void test_tut4_instrumentation(void **state)
{
	fixture f;
	profile_facts off, on;
	tsi_options *opts = tsi_options_new();
	tsi_engine *e;
	uint64_t cycles_off, cycles_on;
	(void)state;

	assert_non_null(opts);
	assert_int_equal(tsi_options_set(opts, "debug.instrument", "true"), TSI_OK);
	setup(&f);
	e = compile_and_run(&f, NULL, false, &off);
	cycles_off = tsi_engine_get_run_profile(e, 0)->cycles;
	tsi_engine_free(e);
	e = compile_and_run(&f, opts, false, &on);
	cycles_on = tsi_engine_get_run_profile(e, 0)->cycles;
	tsi_engine_free(e);

	assert_int_equal(off.instrumentation, 0);
	assert_true(on.instrumentation > 0);
	assert_true(on.total_memory >= off.total_memory + on.instrumentation);
	assert_true(cycles_on > cycles_off);

	tsi_options_free(opts);
	teardown(&f);
}

/* Runs the tests named on the command line ("invariants",
 * "instrumentation"), or both: meson runs them as two tests so each stays
 * short. */
int main(int argc, char **argv)
{
	const struct CMUnitTest invariants[] = {
		cmocka_unit_test(test_tut4_invariants),
	};
	const struct CMUnitTest instrumentation[] = {
		cmocka_unit_test(test_tut4_instrumentation),
	};
	bool all = argc < 2;
	int failed = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "invariants") && strcmp(argv[i], "instrumentation")) {
			fprintf(stderr, "usage: test_tut4_profile [invariants] [instrumentation]\n");
			return 2;
		}
	}
	for (int i = all ? 0 : 1; i < (all ? 1 : argc); i++) {
		if (all || !strcmp(argv[i], "invariants"))
			failed += cmocka_run_group_tests_name("tut4 invariants", invariants, NULL, NULL);
		if (all || !strcmp(argv[i], "instrumentation"))
			failed += cmocka_run_group_tests_name("tut4 instrumentation", instrumentation, NULL,
			                                      NULL);
	}
	return failed;
}
