/*
 * The run-profile invariants where control flow costs time outside the
 * steps: a RepeatWhileTrue loop counting down from 3 and an If, whose
 * SetLocalConsensusFromVar leaves take 6 cycles each with no step of
 * their own. The steps' cycles plus 6 per consensus must equal the run's
 * cycles exactly; the graph invariants of profile-checks.h hold too.
 */
#include "profile-checks.h"
#include "test-util.h"

#include <string.h>

#include <tilescope/ipu.h>
#include <tilescope/popops.h>
#include <tilescope/profile.h>

/* Decrement: count -= 1; more = count > 0. */
static bool decrement_cb(const tsi_field *f, size_t n_fields)
{
	int32_t *count = f[0].data;
	int32_t *more = f[1].data;

	if (n_fields != 2)
		return false;
	*count -= 1;
	*more = *count > 0;
	return true;
}

static const tsi_field_def decrement_fields[] = {
	{"count", TSI_FIELD_INOUT, TSI_FIELD_SCALAR, TSI_INT, 0},
	{"more", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_INT, 0},
};
static const tsi_codelet decrement = {
	"Decrement", decrement_fields, 2, decrement_cb, NULL, NULL, 8, 64, false,
};

/* Builds the loop and the If, runs them, checks the answer and the
 * profiles, and counts the consensus leaves. */
static void test_consensus_cycles(void **state)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *dev;
	tsi_graph *g;
	tsi_engine *e = NULL;
	tsi_tensor *count, *more, *acc, *one, *flag;
	tsi_compute_set *cs;
	tsi_vertex *v;
	tsi_program *seq, *cond, *body, *then_body, *else_body;
	profile_facts facts;
	const int32_t three = 3;
	float got[16];
	(void)state;

	o.tiles_per_ipu = 16;
	assert_int_equal(tsi_device_new_ipu_model(&dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(dev), 1), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	assert_int_equal(tsi_graph_add_codelet(g, &decrement), TSI_OK);

	count = tsi_graph_add_variable(g, TSI_INT, 0, NULL, "count");
	more = tsi_graph_add_variable(g, TSI_INT, 0, NULL, "more");
	flag = tsi_graph_add_variable(g, TSI_INT, 0, NULL, "flag");
	acc = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(16), "acc");
	one = tsi_graph_add_constant_fill(g, TSI_FLOAT, TSI_SHAPE(16), 1.0, "one");
	tsi_graph_set_tile_mapping(g, count, 0);
	tsi_graph_set_tile_mapping(g, more, 0);
	tsi_graph_set_tile_mapping(g, flag, 0);
	tsi_graph_map_linearly(g, acc, 1);
	tsi_graph_map_linearly(g, one, 1);
	tsi_graph_create_host_write(g, "count", count);
	tsi_graph_create_host_write(g, "flag", flag);
	tsi_graph_create_host_read(g, "acc", acc);

	cs = tsi_graph_add_compute_set(g, "decrement");
	v = tsi_graph_add_vertex(g, cs, "Decrement");
	tsi_graph_connect(g, v, "count", count);
	tsi_graph_connect(g, v, "more", more);
	tsi_graph_set_vertex_tile(g, v, 0);

	/* acc = 0; while (--count > 0) acc += 1; if (flag) acc += 1 else acc -= 1 */
	seq = tsi_prog_sequence(g, "main");
	tsi_popops_fill(g, acc, 0.0, seq, "zero");
	cond = tsi_prog_sequence(g, "cond");
	tsi_sequence_add(cond, tsi_prog_execute(g, cs));
	body = tsi_prog_sequence(g, "body");
	tsi_popops_map_binary_in_place(g, TSI_POPOPS_ADD, acc, one, body, "count");
	tsi_sequence_add(seq, tsi_prog_repeat_while_true(g, cond, more, body));
	then_body = tsi_prog_sequence(g, "then");
	tsi_popops_map_binary_in_place(g, TSI_POPOPS_ADD, acc, one, then_body, "then");
	else_body = tsi_prog_sequence(g, "else");
	tsi_popops_map_binary_in_place(g, TSI_POPOPS_SUBTRACT, acc, one, else_body, "else");
	tsi_sequence_add(seq, tsi_prog_if(g, flag, then_body, else_body));
	if (*tsi_graph_get_error(g))
		fail_msg("building: %s", tsi_graph_get_error(g));

	if (tsi_engine_new(&e, g, &seq, 1, NULL) != TSI_OK)
		fail_msg("compiling: %s", tsi_error_last());
	assert_int_equal(tsi_engine_load(e, dev), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(e, "count", &three, sizeof(three)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(e, "flag", &three, sizeof(three)), TSI_OK);
	assert_int_equal(tsi_engine_run(e, 0), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(e, "acc", got, sizeof(got)), TSI_OK);
	assert_close(got[5], 3.0, 0.0); /* two loop bodies and the then branch */

	check_graph_profile(tsi_engine_get_graph_profile(e), &facts);
	check_run_profile(tsi_engine_get_graph_profile(e), tsi_engine_get_run_profile(e, 0), &facts);
	/* Three loop conditions (3 -> 2, 2 -> 1, 1 -> 0) and one If. */
	assert_int_equal(facts.consensus, 4);

	tsi_engine_free(e);
	tsi_graph_free(g);
	tsi_device_free(dev);
}

/* One test. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_consensus_cycles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
