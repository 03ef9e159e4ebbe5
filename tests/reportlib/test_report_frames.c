/*
 * The call stacks of execution steps (tsr_report_get_frames) on the
 * sample reports: tutorial 5's second run (a Sequence holding a Repeat of
 * 20 iterations of a 37-leaf Sequence) against the nesting worked out by
 * hand from its control program; on every run of every sample, that the
 * leaf frames cover each step exactly once, with the step's own program,
 * and that each frame lies inside its parent; then copies of tutorial 5
 * whose control program contradicts its trace (a Repeat count one short
 * or one over, a trace entry swapped, a program containing itself), each
 * of which must be TSR_ERR_CORRUPT, never a crash. Last, a model made
 * here with an IfElse (its else taken), a Switch (case 1 taken), and a
 * function called once and twice more from a Repeat, and a
 * RepeatWhileTrue counting to 3: each choice must land in the branch that
 * ran, each Call over its function's body, the loop's condition 4 times
 * and its body 3 times under it.
 */
#include "test-util.h"

#include <tilescope/ipu.h>
#include <tilescope/popops.h>
#include <tilescope/report.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const samples[] = {"tut4_profiling", "tut5_ml", "tut7_mk1"};

static tsr_report *open_sample(const char *name)
{
	char path[1024];
	tsr_report *r = NULL;

	snprintf(path, sizeof(path), "%s/%s/profile.pop", SAMPLE_REPORTS, name);
	assert_int_equal(tsr_report_open(&r, path, NULL), TSR_OK);
	return r;
}

/* Tutorial 5, run 1: control program 1 is Sequence 47 → Sequence 46
 * ("epoch") of the count's zeroing (OnTileExecute 4), Repeat 43 (20 times)
 * → Sequence 42 of the leaves 5 … 41, then Sync 44 and the count's
 * StreamCopy 45 (1,043 steps: 1, 20 × 52, 2). So 4 + 20 × (1 + 37) + 2
 * frames. */
static void test_tut5_by_hand(void **state)
{
	tsr_report *r = open_sample("tut5_ml");
	const tsr_frame *f;
	const tsr_step *steps;
	size_t n, n_steps, bodies = 0, leaves = 0;

	(void)state;
	assert_int_equal(tsr_report_get_steps(&steps, &n_steps, r, 1), TSR_OK);
	assert_int_equal(n_steps, 1043);
	assert_int_equal(tsr_report_get_frames(&f, &n, r, 1), TSR_OK);
	assert_int_equal(n, 4 + 20 * 38 + 2);
	assert_int_equal(f[0].program, 47);
	assert_int_equal(f[0].depth, 0);
	assert_int_equal(f[0].parent, -1);
	assert_int_equal(f[0].step_from, 0);
	assert_int_equal(f[0].step_to, 1043);
	assert_int_equal(f[0].cycles_from, 0);
	assert_int_equal(f[0].cycles_to, 651859);
	assert_int_equal(f[1].program, 46);
	assert_int_equal(f[1].depth, 1);
	assert_int_equal(f[1].parent, 0);
	assert_int_equal(f[2].program, 4);
	assert_int_equal(f[2].depth, 2);
	assert_int_equal(f[2].step_from, 0);
	assert_int_equal(f[2].step_to, 1);
	assert_int_equal(f[3].program, 43);
	assert_int_equal(f[3].depth, 2);
	assert_int_equal(f[3].parent, 1);
	assert_int_equal(f[4].program, 42);
	assert_int_equal(f[4].depth, 3);
	assert_int_equal(f[4].parent, 3);
	assert_int_equal(f[4].step_from, 1);
	assert_int_equal(f[4].step_to, 53);
	assert_int_equal(f[4].cycles_to, 32618);
	assert_int_equal(f[5].program, 5);
	assert_int_equal(f[5].depth, 4);
	assert_int_equal(f[5].parent, 4);
	assert_int_equal(f[n - 2].program, 44);
	assert_int_equal(f[n - 1].program, 45);
	for (size_t i = 0; i < n; i++) {
		if (f[i].program == 42) {
			assert_int_equal(f[i].step_from, 1 + bodies * 52);
			assert_int_equal(f[i].step_to, 1 + (bodies + 1) * 52);
			bodies++;
		}
		leaves += f[i].depth == 4;
	}
	assert_int_equal(bodies, 20);
	assert_int_equal(leaves, 20 * 37);
	/* Borrowed and kept: the same array again. */
	{
		const tsr_frame *again;
		size_t n2;

		assert_int_equal(tsr_report_get_frames(&again, &n2, r, 1), TSR_OK);
		assert_ptr_equal(again, f);
		assert_int_equal(n2, n);
	}
	tsr_report_free(r);
}

/* Every run of every sample: leaves partition the steps, each leaf's
 * steps are its program's, children lie inside their parents and come
 * after them (pre-order), depths follow parents. */
static void test_every_step_one_leaf(void **state)
{
	(void)state;
	for (size_t s = 0; s < sizeof(samples) / sizeof(samples[0]); s++) {
		tsr_report *r = open_sample(samples[s]);
		const tsr_run *runs;
		size_t n_runs;

		assert_int_equal(tsr_report_get_runs(&runs, &n_runs, r), TSR_OK);
		for (size_t run = 0; run < n_runs; run++) {
			const tsr_frame *f;
			const tsr_step *steps;
			size_t n, n_steps;
			unsigned *cover, *children;

			assert_int_equal(tsr_report_get_steps(&steps, &n_steps, r, run), TSR_OK);
			assert_int_equal(tsr_report_get_frames(&f, &n, r, run), TSR_OK);
			assert_true(n >= 1);
			assert_int_equal(f[0].step_from, 0);
			assert_int_equal(f[0].step_to, n_steps);
			cover = calloc(n_steps + 1, sizeof(*cover));
			children = calloc(n + 1, sizeof(*children));
			for (size_t i = 1; i < n; i++) {
				const tsr_frame *p;

				assert_true(f[i].parent >= 0 && (size_t)f[i].parent < i);
				p = &f[f[i].parent];
				assert_int_equal(f[i].depth, p->depth + 1);
				assert_true(f[i].step_from >= p->step_from && f[i].step_to <= p->step_to);
				assert_true(f[i].step_from < f[i].step_to);
				children[f[i].parent]++;
			}
			for (size_t i = 0; i < n; i++) {
				if (children[i])
					continue;
				for (size_t k = f[i].step_from; k < f[i].step_to; k++) {
					cover[k]++;
					assert_int_equal(steps[k].program, f[i].program);
				}
			}
			for (size_t k = 0; k < n_steps; k++)
				if (cover[k] != 1)
					fail_msg("%s run %zu: step %zu is in %u leaf frames", samples[s], run, k,
					         cover[k]);
			free(cover);
			free(children);
		}
		tsr_report_free(r);
	}
}

static void test_bad_arguments(void **state)
{
	tsr_report *r = open_sample("tut4_profiling");
	const tsr_frame *f = (const tsr_frame *)1;
	size_t n = 7;

	(void)state;
	assert_int_equal(tsr_report_get_frames(&f, &n, r, 5), TSR_ERR_OUT_OF_RANGE);
	assert_null(f);
	assert_int_equal(n, 0);
	assert_int_equal(tsr_report_get_frames(NULL, &n, r, 0), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_report_get_frames(&f, &n, NULL, 0), TSR_ERR_INVALID_ARGUMENT);
	tsr_report_free(r);
}

/* A copy of tutorial 5 with `sql` applied: run 1's frames must be
 * TSR_ERR_CORRUPT with a message naming the run and containing `says`. */
static void check_lie(const char *sql, const char *says)
{
	char *dir = tsi_test_mkdtemp();
	char src[1024], dst[1024];
	sqlite3 *db;
	char *err = NULL;
	tsr_report *r = NULL;
	const tsr_frame *f;
	size_t n;
	int rc;

	snprintf(src, sizeof(src), "%s/tut5_ml/profile.pop", SAMPLE_REPORTS);
	snprintf(dst, sizeof(dst), "%s/profile.pop", dir);
	tsi_test_copy_file(src, dst);
	assert_int_equal(sqlite3_open(dst, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err ? err : "?");
	sqlite3_close(db);
	if (tsr_report_open(&r, dst, NULL) != TSR_OK)
		fail_msg("%s: open: %s", sql, tsr_last_error());
	rc = tsr_report_get_frames(&f, &n, r, 1);
	if (rc != TSR_ERR_CORRUPT || !strstr(tsr_report_error(r), "run 1") ||
	    !strstr(tsr_report_error(r), says))
		fail_msg("%s: got %d \"%s\", wanted TSR_ERR_CORRUPT saying \"%s\"", sql, rc,
		         tsr_report_error(r), says);
	/* The other runs are still fine, and asking again fails again. */
	if (tsr_report_get_frames(&f, &n, r, 2) != TSR_OK)
		fail_msg("%s: run 2: %s", sql, tsr_report_error(r));
	assert_int_equal(tsr_report_get_frames(&f, &n, r, 1), TSR_ERR_CORRUPT);
	tsr_report_free(r);
	tsi_test_rmtree(dir);
}

static void test_inconsistent(void **state)
{
	(void)state;
	check_lie("UPDATE program SET repeat_count = 19 WHERE id = 43",
	          "trace entry 704 is program 5, where the control program runs program 44");
	check_lie("UPDATE program SET repeat_count = 21 WHERE id = 43",
	          "iteration 20 of program 43 (Repeat)");
	/* Sequence 42's children 9 and 10 swapped: the trace (and its
	 * steps) no longer follow it. */
	check_lie("UPDATE program_child SET child = CASE child WHEN 9 THEN 10 ELSE 9 END "
	          "WHERE parent = 42 AND child IN (9, 10)",
	          "trace entry 5 is program 9, where the control program runs program 10");
	/* Trace entries 5 and 6 swapped: their steps no longer match. */
	check_lie("UPDATE program_trace SET program = CASE position WHEN 5 THEN 10 ELSE 9 END "
	          "WHERE run = 1 AND position IN (5, 6)",
	          "belongs to no trace entry");
	/* The Repeat made an If: its body runs once, the trace goes on. */
	check_lie("UPDATE program SET type = 'If' WHERE id = 43",
	          "trace entry 38 is program 5, where the control program runs program 44");
	/* The epoch loses its Sync and StreamCopy: the trace outlives it. */
	check_lie("DELETE FROM program_child WHERE parent = 46 AND position >= 2",
	          "control program ends before trace entry 741");
	/* A step whose program is not its trace entry's. */
	check_lie("UPDATE step SET program = 3 WHERE run = 1 AND id = 1000",
	          "belongs to no trace entry");
}

/* Two tiny codelets for a RepeatWhileTrue: v += 1, and out = a < b. */
static bool inc_compute(const tsi_field *f, size_t n)
{
	(void)n;
	(*(int32_t *)f[0].data)++;
	return true;
}

static bool less_compute(const tsi_field *f, size_t n)
{
	(void)n;
	*(uint8_t *)f[2].data = *(const int32_t *)f[0].data < *(const int32_t *)f[1].data;
	return true;
}

static const tsi_field_def inc_fields[] = {
	{"v", TSI_FIELD_INOUT, TSI_FIELD_SCALAR, TSI_INT, 0},
};
static const tsi_field_def less_fields[] = {
	{"a", TSI_FIELD_INPUT, TSI_FIELD_SCALAR, TSI_INT, 0},
	{"b", TSI_FIELD_INPUT, TSI_FIELD_SCALAR, TSI_INT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_BOOL, 0},
};
static const tsi_codelet loop_codelets[] = {
	{"IncI", inc_fields, 1, inc_compute, NULL, NULL, 4, 16, false},
	{"LessI", less_fields, 3, less_compute, NULL, NULL, 12, 16, false},
};

/* A compute set of one vertex of `type` on tile 0. */
static tsi_program *one_vertex(tsi_graph *g, const char *name, const char *type, const char *f1,
                               tsi_tensor *t1, const char *f2, tsi_tensor *t2, const char *f3,
                               tsi_tensor *t3)
{
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, name);
	tsi_vertex *v = tsi_graph_add_vertex(g, cs, type);

	assert_non_null(v);
	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 0), TSI_OK);
	assert_int_equal(tsi_graph_connect(g, v, f1, t1), TSI_OK);
	if (f2)
		assert_int_equal(tsi_graph_connect(g, v, f2, t2), TSI_OK);
	if (f3)
		assert_int_equal(tsi_graph_connect(g, v, f3, t3), TSI_OK);
	return tsi_prog_execute(g, cs);
}

/* The compute set name of leaf frame `f`'s step, or "". */
static const char *leaf_cs(tsr_report *r, const tsr_frame *f, const tsr_step *steps)
{
	const tsr_compute_set *cs;
	size_t n;

	for (size_t k = f->step_from; k < f->step_to; k++)
		if (steps[k].compute_set >= 0 && !tsr_report_get_compute_sets(&cs, &n, r) &&
		    (size_t)steps[k].compute_set < n)
			return cs[steps[k].compute_set].name;
	return "";
}

/* Whether some frame below frame `i` is a leaf computing in a compute
 * set whose name holds `what`. */
static bool below_computes(tsr_report *r, const tsr_frame *f, size_t n, size_t i,
                           const tsr_step *steps, const char *what)
{
	for (size_t j = i + 1; j < n && f[j].depth > f[i].depth; j++)
		if (strstr(leaf_cs(r, &f[j], steps), what))
			return true;
	return false;
}

static void test_control_flow(void **state)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	char *dir = tsi_test_mkdtemp(), report_dir[1024];
	tsi_device *dev = NULL;
	tsi_graph *g = NULL;
	tsi_engine *e = NULL;
	tsi_options *opts = tsi_options_new();
	tsi_tensor *x, *pred, *ctrl;
	tsi_program *main_prog, *then_b, *else_b, *sw, *dflt, *c0, *c1, *fn_body;
	tsi_function *fn;
	tsr_report *r = NULL;
	const tsr_frame *f;
	const tsr_program *progs;
	const tsr_step *steps;
	size_t n, n_progs, n_steps, ifs = 0, switches = 0, calls = 0, whiles = 0, conds = 0, bodies = 0;

	(void)state;
	o.num_ipus = 1;
	o.tiles_per_ipu = 4;
	assert_int_equal(tsi_device_new_ipu_model(&dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(dev), 1), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	x = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(8), "x");
	assert_int_equal(tsi_graph_set_tile_mapping(g, x, 0), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(g, "x", x), TSI_OK);
	pred = tsi_graph_add_constant_fill(g, TSI_INT, TSI_SHAPE(1), 0, "pred");
	ctrl = tsi_graph_add_constant_fill(g, TSI_INT, TSI_SHAPE(1), 1, "ctrl");
	assert_int_equal(tsi_graph_set_tile_mapping(g, pred, 1), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(g, ctrl, 2), TSI_OK);
	main_prog = tsi_prog_sequence(g, "main");
	assert_non_null(tsi_popops_add(g, x, x, main_prog, "first"));
	then_b = tsi_prog_sequence(g, "thenBody");
	else_b = tsi_prog_sequence(g, "elseBody");
	assert_non_null(tsi_popops_add(g, x, x, then_b, "thenAdd"));
	assert_non_null(tsi_popops_mul(g, x, x, else_b, "elseMul"));
	assert_int_equal(tsi_sequence_add(main_prog, tsi_prog_if(g, pred, then_b, else_b)), TSI_OK);
	dflt = tsi_prog_sequence(g, "dflt");
	c0 = tsi_prog_sequence(g, "c0");
	c1 = tsi_prog_sequence(g, "c1");
	assert_non_null(tsi_popops_add(g, x, x, dflt, "defaultAdd"));
	assert_non_null(tsi_popops_add(g, x, x, c0, "case0Add"));
	assert_non_null(tsi_popops_mul(g, x, x, c1, "case1Mul"));
	sw = tsi_prog_switch(g, ctrl, dflt);
	assert_int_equal(tsi_switch_add_case(sw, 0, c0), TSI_OK);
	assert_int_equal(tsi_switch_add_case(sw, 1, c1), TSI_OK);
	assert_int_equal(tsi_sequence_add(main_prog, sw), TSI_OK);
	fn_body = tsi_prog_sequence(g, "fnBody");
	assert_non_null(tsi_popops_add(g, x, x, fn_body, "inFunction"));
	fn = tsi_graph_add_function(g, fn_body);
	assert_int_equal(tsi_sequence_add(main_prog, tsi_prog_call(g, fn)), TSI_OK);
	assert_int_equal(tsi_sequence_add(main_prog, tsi_prog_repeat(g, 2, tsi_prog_call(g, fn))),
	                 TSI_OK);
	/* while (counter < 3) counter++: the condition runs 4 times, the
	 * body 3. */
	{
		int32_t three = 3;
		tsi_tensor *counter = tsi_graph_add_variable(g, TSI_INT, 0, NULL, "counter");
		tsi_tensor *limit = tsi_graph_add_constant(g, TSI_INT, 0, NULL, &three, "limit");
		tsi_tensor *go = tsi_graph_add_variable(g, TSI_BOOL, 0, NULL, "go");

		assert_int_equal(tsi_graph_add_codelets(g, loop_codelets, 2), TSI_OK);
		assert_int_equal(tsi_graph_set_tile_mapping(g, counter, 0), TSI_OK);
		assert_int_equal(tsi_graph_set_tile_mapping(g, limit, 0), TSI_OK);
		assert_int_equal(tsi_graph_set_tile_mapping(g, go, 0), TSI_OK);
		assert_int_equal(
		    tsi_sequence_add(main_prog,
		                     tsi_prog_repeat_while_true(
		                         g, one_vertex(g, "loopCond", "LessI", "a", counter, "b", limit,
		                                       "out", go),
		                         go, one_vertex(g, "loopBody", "IncI", "v", counter, NULL, NULL,
		                                        NULL, NULL))),
		    TSI_OK);
	}
	snprintf(report_dir, sizeof(report_dir), "%s/report", dir);
	assert_int_equal(tsi_options_set(opts, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(opts, "autoReport.directory", report_dir), TSI_OK);
	if (tsi_engine_new(&e, g, &main_prog, 1, opts) != TSI_OK)
		fail_msg("compiling: %s", tsi_error_last());
	tsi_options_free(opts);
	assert_int_equal(tsi_engine_load(e, dev), TSI_OK);
	assert_int_equal(tsi_engine_run(e, 0), TSI_OK);
	if (tsr_report_open(&r, report_dir, NULL) != TSR_OK)
		fail_msg("%s", tsr_last_error());
	assert_int_equal(tsr_report_get_programs(&progs, &n_progs, r), TSR_OK);
	assert_int_equal(tsr_report_get_steps(&steps, &n_steps, r, 0), TSR_OK);
	if (tsr_report_get_frames(&f, &n, r, 0) != TSR_OK)
		fail_msg("%s (kept in %s)", tsr_report_error(r), dir);
	for (size_t i = 0; i < n; i++) {
		tsr_program_type type = progs[f[i].program].program_type;

		if (type == TSR_PROGRAM_IF_ELSE) {
			ifs++;
			assert_true(below_computes(r, f, n, i, steps, "elseMul"));
			assert_false(below_computes(r, f, n, i, steps, "thenAdd"));
		} else if (type == TSR_PROGRAM_SWITCH) {
			switches++;
			assert_true(below_computes(r, f, n, i, steps, "case1Mul"));
			assert_false(below_computes(r, f, n, i, steps, "case0Add"));
			assert_false(below_computes(r, f, n, i, steps, "defaultAdd"));
		} else if (type == TSR_PROGRAM_REPEAT_WHILE_TRUE) {
			whiles++;
			for (size_t j = i + 1; j < n && f[j].depth > f[i].depth; j++) {
				conds += strstr(leaf_cs(r, &f[j], steps), "loopCond") != NULL;
				bodies += strstr(leaf_cs(r, &f[j], steps), "loopBody") != NULL;
			}
		} else if (type == TSR_PROGRAM_CALL) {
			calls++;
			assert_true(i + 1 < n && f[i + 1].parent == (int64_t)i);
			assert_true(below_computes(r, f, n, i, steps, "inFunction"));
		}
	}
	assert_int_equal(ifs, 1);
	assert_int_equal(switches, 1);
	assert_int_equal(calls, 3);
	assert_int_equal(whiles, 1);
	assert_int_equal(conds, 4);
	assert_int_equal(bodies, 3);
	tsr_report_free(r);
	tsi_engine_free(e);
	tsi_graph_free(g);
	tsi_device_free(dev);
	tsi_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tut5_by_hand),
	    cmocka_unit_test(test_every_step_one_leaf),
	    cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_inconsistent),
	    cmocka_unit_test(test_control_flow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
