/*
 * Unit tests of the compiler model's liveness: the static step order (a
 * call-stack tree of every lowered program node, functions expanded at
 * each call), variables' live intervals (temporaries, always-live
 * constants and host-handle variables, loop-carried values, WriteUndef),
 * exchange message buffers, and the not-always-live bytes of each step
 * against a brute-force recomputation.
 */
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

/* --- Codelets -------------------------------------------------------------------- */

static bool map_compute(const tsi_field *f, size_t n)
{
	const float *in = f[0].data;
	float *out = f[1].data;

	(void)n;
	for (size_t i = 0; i < f[1].count; i++)
		out[i] = i < f[0].count ? in[i] : 0;
	return true;
}

static bool acc_compute(const tsi_field *f, size_t n)
{
	float *acc = f[0].data;
	const float *in = f[1].data;

	(void)n;
	for (size_t i = 0; i < f[0].count && i < f[1].count; i++)
		acc[i] += in[i];
	return true;
}

static const tsi_field_def map_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};
static const tsi_field_def acc_fields[] = {
	{"acc", TSI_FIELD_INOUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};
static const tsi_codelet codelets[] = {
	{.name = "Map", .fields = map_fields, .n_fields = 2, .compute = map_compute,
	 .state_bytes = 8, .code_bytes = 64},
	{.name = "Acc", .fields = acc_fields, .n_fields = 2, .compute = acc_compute,
	 .state_bytes = 8, .code_bytes = 64},
};

/* --- Fixture ----------------------------------------------------------------------- */

typedef struct fixture {
	tsi_device *dev;
	tsi_graph *g;
	tsi_engine *e;
} fixture;

/* One IPU of 4 tiles with the two codelets. */
static void build(fixture *f)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;

	memset(f, 0, sizeof(*f));
	o.tiles_per_ipu = 4;
	assert_int_equal(tsi_device_new_ipu_model(&f->dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&f->g, tsi_device_get_target(f->dev), 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelets(f->g, codelets, 2), TSI_OK);
}

static void destroy(fixture *f)
{
	tsi_engine_free(f->e);
	tsi_graph_free(f->g);
	tsi_device_free(f->dev);
}

/* A variable of 4 floats on `tile`. */
static tsi_tensor *var(fixture *f, const char *name, unsigned tile)
{
	tsi_tensor *t = tsi_graph_add_variable(f->g, TSI_FLOAT, TSI_SHAPE(4), name);

	assert_non_null(t);
	assert_int_equal(tsi_graph_set_tile_mapping(f->g, t, tile), TSI_OK);
	return t;
}

/* Execute of a compute set `name` with one vertex on tile 0. */
static tsi_program *vertex_prog(fixture *f, const char *name, const char *type, const char *f0,
                                const tsi_tensor *t0, const char *f1, const tsi_tensor *t1)
{
	tsi_compute_set *cs = tsi_graph_add_compute_set(f->g, name);
	tsi_vertex *v = tsi_graph_add_vertex(f->g, cs, type);

	assert_int_equal(tsi_graph_connect(f->g, v, f0, t0), TSI_OK);
	assert_int_equal(tsi_graph_connect(f->g, v, f1, t1), TSI_OK);
	assert_int_equal(tsi_graph_set_vertex_tile(f->g, v, 0), TSI_OK);
	return tsi_prog_execute(f->g, cs);
}

/* out = in */
static tsi_program *map(fixture *f, const char *name, const tsi_tensor *in, const tsi_tensor *out)
{
	return vertex_prog(f, name, "Map", "in", in, "out", out);
}

/* acc += in */
static tsi_program *acc(fixture *f, const char *name, const tsi_tensor *a, const tsi_tensor *in)
{
	return vertex_prog(f, name, "Acc", "acc", a, "in", in);
}

static tsi_program *seq(fixture *f, tsi_program *const *steps, size_t n)
{
	tsi_program *s = tsi_prog_sequence(f->g, NULL);

	for (size_t i = 0; i < n; i++)
		assert_int_equal(tsi_sequence_add(s, steps[i]), TSI_OK);
	return s;
}
#define SEQ(f, ...) \
	seq(f, (tsi_program *const[]){__VA_ARGS__}, \
	    sizeof((tsi_program *const[]){__VA_ARGS__}) / sizeof(tsi_program *))

static const tsi_graph_profile *compile(fixture *f, tsi_program *prog)
{
	assert_non_null(prog);
	assert_int_equal(tsi_engine_new(&f->e, f->g, &prog, 1, NULL), TSI_OK);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f->e);
	assert_non_null(gp);
	return gp;
}

/* --- Lookups ------------------------------------------------------------------------- */

/* The `nth` liveness step whose program has `type` (and `name`, if given). */
static uint32_t step_of(const tsi_graph_profile *gp, tsi_lowered_type type, const char *name,
                        unsigned nth)
{
	for (uint32_t s = 0; s < gp->n_liveness; s++) {
		const tsi_lowered_program *p = &gp->programs[gp->liveness[s].program];
		if (p->type == type && (!name || (p->name && strcmp(p->name, name) == 0)) && nth-- == 0)
			return s;
	}
	fail_msg("no step %s '%s'", tsi_lowered_type_name(type), name ? name : "");
	return 0;
}

static uint32_t ote(const tsi_graph_profile *gp, const char *cs)
{
	return step_of(gp, TSI_LP_ON_TILE_EXECUTE, cs, 0);
}

static size_t count_steps(const tsi_graph_profile *gp, tsi_lowered_type type, const char *name)
{
	size_t n = 0;

	for (uint32_t s = 0; s < gp->n_liveness; s++) {
		const tsi_lowered_program *p = &gp->programs[gp->liveness[s].program];
		n += p->type == type && (!name || (p->name && strcmp(p->name, name) == 0));
	}
	return n;
}

static const tsi_variable_profile *variable(const tsi_graph_profile *gp, const char *name)
{
	for (size_t i = 0; i < gp->n_variables; i++)
		if (strcmp(gp->variables[i].name, name) == 0)
			return &gp->variables[i];
	fail_msg("no variable '%s'", name);
	return NULL;
}

/* The last step of the subtree rooted at step `s`. */
static uint32_t subtree_end(const tsi_graph_profile *gp, uint32_t s)
{
	uint32_t e = s;

	while (e + 1 < gp->n_liveness && gp->liveness[e + 1].depth > gp->liveness[s].depth)
		e++;
	return e;
}

static void assert_interval(const tsi_variable_profile *v, uint32_t from, uint32_t to)
{
	assert_false(v->always_live);
	assert_int_equal(v->live_from, from);
	assert_int_equal(v->live_to, to);
}

/* User variables, constants and exchange message buffers: the entries
 * liveness computes (memory.c appends always-live aggregates after them). */
static bool is_data(const tsi_variable_profile *v)
{
	return v->category == TSI_MEM_VARIABLE || v->category == TSI_MEM_CONSTANT ||
	       v->category == TSI_MEM_MESSAGE || v->category == TSI_MEM_HOST_MESSAGE ||
	       v->category == TSI_MEM_GLOBAL_MESSAGE;
}

/* Entries of the variables list that are data (see is_data). */
static size_t count_data(const tsi_graph_profile *gp)
{
	size_t n = 0;

	for (size_t i = 0; i < gp->n_variables; i++)
		n += is_data(&gp->variables[i]);
	return n;
}

/* Always-live bytes of the data entries. */
static uint64_t always_live_data(const tsi_graph_profile *gp)
{
	uint64_t n = 0;

	for (size_t i = 0; i < gp->n_variables; i++)
		if (is_data(&gp->variables[i]) && gp->variables[i].always_live)
			n += gp->variables[i].bytes;
	return n;
}

/* --- Invariants ---------------------------------------------------------------------- */

/* Appends the expected steps of the tree under `prog` (a reference
 * recursion over the public program list). */
static void expect_tree(const tsi_graph_profile *gp, uint32_t prog, int32_t parent,
                        uint32_t depth, tsi_liveness_step *out, size_t *n, size_t cap)
{
	const tsi_lowered_program *p = &gp->programs[prog];
	int32_t me = (int32_t)*n;

	assert_true(*n < cap);
	out[*n].program = prog;
	out[*n].parent = parent;
	out[*n].depth = depth;
	(*n)++;
	for (uint32_t i = 0; i < p->n_children; i++)
		expect_tree(gp, p->children[i], me, depth + 1, out, n, cap);
	if (p->type == TSI_LP_CALL)
		expect_tree(gp, gp->function_programs[p->function], me, depth + 1, out, n, cap);
}

/* The step order is the depth-first walk of the control programs, with
 * parents and depths that describe it; live bytes per step equal a
 * brute-force sum over the intervals and never exceed all bytes. */
static void check_invariants(const tsi_graph_profile *gp)
{
	size_t cap = gp->n_liveness + 1, n = 0;
	tsi_liveness_step *want = calloc(cap, sizeof(*want));
	uint64_t all = 0, always = 0;

	assert_non_null(want);
	for (size_t r = 0; r < gp->n_control_programs; r++)
		expect_tree(gp, gp->control_programs[r], -1, 0, want, &n, cap);
	assert_int_equal(n, gp->n_liveness);
	for (size_t s = 0; s < n; s++) {
		assert_int_equal(gp->liveness[s].program, want[s].program);
		assert_int_equal(gp->liveness[s].parent, want[s].parent);
		assert_int_equal(gp->liveness[s].depth, want[s].depth);
	}
	free(want);

	for (size_t i = 0; i < gp->n_variables; i++) {
		const tsi_variable_profile *v = &gp->variables[i];
		all += v->bytes;
		if (v->always_live) {
			/* Includes the compiler's always-live aggregates (code,
			 * stack ...) that memory.c appends. */
			always += v->bytes;
			assert_int_equal(v->live_from, 0);
			assert_int_equal(v->live_to, 0);
		} else if (v->live_from != UINT32_MAX) {
			assert_true(v->live_from <= v->live_to);
			assert_true(v->live_to < gp->n_liveness);
		} else {
			assert_int_equal(v->live_to, UINT32_MAX);
		}
		if (is_data(v))
			assert_int_equal(tsi_tile_values_sum(&v->bytes_by_tile), v->bytes);
	}
	assert_int_equal(gp->always_live_bytes, always);
	for (uint32_t s = 0; s < gp->n_liveness; s++) {
		uint64_t live = 0;
		for (size_t i = 0; i < gp->n_variables; i++) {
			const tsi_variable_profile *v = &gp->variables[i];
			if (!v->always_live && v->live_from != UINT32_MAX && v->live_from <= s &&
			    s <= v->live_to)
				live += v->bytes;
		}
		assert_int_equal(gp->liveness[s].not_always_live_bytes, live);
		assert_true(live <= all);
	}
}

/* --- Tests --------------------------------------------------------------------------- */

/* A temporary lives from its write to its read; constants, host-handle
 * variables and variables read before any write are always live. */
static void test_temporary_and_always_live(void **state)
{
	fixture f;
	(void)state;

	build(&f);
	tsi_tensor *a = var(&f, "a", 0), *tmp = var(&f, "tmp", 0), *out = var(&f, "out", 0);
	tsi_tensor *out2 = var(&f, "out2", 0), *r = var(&f, "r", 0), *out3 = var(&f, "out3", 0);
	var(&f, "unused", 0);
	tsi_tensor *c = tsi_graph_add_constant_fill(f.g, TSI_FLOAT, TSI_SHAPE(4), 2.0, "c");
	tsi_graph_set_tile_mapping(f.g, c, 0);
	assert_int_equal(tsi_graph_create_host_write(f.g, "a", a), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f.g, "out", out), TSI_OK);
	const tsi_graph_profile *gp =
	    compile(&f, SEQ(&f, map(&f, "produce", a, tmp), map(&f, "consume", tmp, out),
	                    map(&f, "fromConst", c, out2), map(&f, "readFirst", r, out3)));

	check_invariants(gp);
	/* User variables first, by id; no exchange here, so no messages. */
	assert_int_equal(count_data(gp), 8);
	assert_string_equal(gp->variables[0].name, "a");
	assert_interval(variable(gp, "tmp"), ote(gp, "produce"), ote(gp, "consume"));
	assert_interval(variable(gp, "out2"), ote(gp, "fromConst"), ote(gp, "fromConst"));
	assert_interval(variable(gp, "out3"), ote(gp, "readFirst"), ote(gp, "readFirst"));
	assert_true(variable(gp, "a")->always_live);
	assert_true(variable(gp, "out")->always_live);
	assert_true(variable(gp, "r")->always_live);
	const tsi_variable_profile *cv = variable(gp, "c");
	assert_true(cv->always_live);
	assert_int_equal(cv->category, TSI_MEM_CONSTANT);
	const tsi_variable_profile *un = variable(gp, "unused");
	assert_false(un->always_live);
	assert_int_equal(un->live_from, UINT32_MAX);
	assert_int_equal(un->live_to, UINT32_MAX);

	const tsi_variable_profile *t = variable(gp, "tmp");
	assert_int_equal(t->category, TSI_MEM_VARIABLE);
	assert_int_equal(t->type, TSI_FLOAT);
	assert_int_equal(t->bytes, 16);
	assert_int_equal(t->rank, 1);
	assert_int_equal(t->shape[0], 4);
	assert_int_equal(tsi_tile_values_get(&t->bytes_by_tile, 0), 16);
	assert_int_equal(always_live_data(gp), 4 * 16); /* a, out, r, c */
	assert_true(gp->always_live_bytes >= 4 * 16);
	/* Only tmp is live between its two steps. */
	assert_int_equal(gp->liveness[ote(gp, "consume")].not_always_live_bytes, 16);
	assert_int_equal(gp->liveness[0].not_always_live_bytes, 0);
	destroy(&f);
}

/* A value read in a loop before the loop writes it is live around the
 * back edge: through the whole loop. Values made and used inside one
 * iteration are not. */
static void test_loop_carried(void **state)
{
	fixture f;
	(void)state;

	build(&f);
	tsi_tensor *c = tsi_graph_add_constant_fill(f.g, TSI_FLOAT, TSI_SHAPE(4), 1.0, "c");
	tsi_graph_set_tile_mapping(f.g, c, 0);
	tsi_tensor *x = var(&f, "x", 0), *y = var(&f, "y", 0), *sum = var(&f, "sum", 0);
	tsi_tensor *fin = var(&f, "fin", 0);
	assert_int_equal(tsi_graph_create_host_read(f.g, "fin", fin), TSI_OK);
	tsi_program *body = SEQ(&f, map(&f, "useX", x, y), map(&f, "setX", y, x),
	                        acc(&f, "accumulate", sum, y));
	tsi_program *prog =
	    SEQ(&f, map(&f, "initX", c, x), map(&f, "initSum", c, sum), tsi_prog_repeat(f.g, 3, body),
	        map(&f, "final", sum, fin));
	const tsi_graph_profile *gp = compile(&f, prog);

	check_invariants(gp);
	uint32_t loop = step_of(gp, TSI_LP_REPEAT, NULL, 0);
	uint32_t loop_end = subtree_end(gp, loop);
	/* The body appears once. */
	assert_int_equal(count_steps(gp, TSI_LP_ON_TILE_EXECUTE, "useX"), 1);
	assert_true(ote(gp, "useX") > loop && ote(gp, "accumulate") <= loop_end);

	/* x: read by useX before setX writes it in the body. */
	assert_interval(variable(gp, "x"), ote(gp, "initX"), loop_end);
	/* y: made and used within one iteration. */
	assert_interval(variable(gp, "y"), ote(gp, "useX"), ote(gp, "accumulate"));
	/* sum: accumulated across iterations, read after the loop. */
	assert_interval(variable(gp, "sum"), ote(gp, "initSum"), ote(gp, "final"));
	destroy(&f);
}

/* WriteUndef: a variable undefined before an in/out use is not live
 * before it (nor always live), and its interval ends with its last use. */
static void test_write_undef(void **state)
{
	fixture f;
	(void)state;

	build(&f);
	tsi_tensor *c = tsi_graph_add_constant_fill(f.g, TSI_FLOAT, TSI_SHAPE(4), 1.0, "c");
	tsi_graph_set_tile_mapping(f.g, c, 0);
	tsi_tensor *z = var(&f, "z", 0), *w = var(&f, "w", 0), *u = var(&f, "u", 0);
	tsi_tensor *o1 = var(&f, "o1", 0), *o2 = var(&f, "o2", 0), *o3 = var(&f, "o3", 0);
	tsi_tensor *keep = var(&f, "keep", 0);
	assert_int_equal(tsi_graph_create_host_read(f.g, "o1", o1), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f.g, "o2", o2), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f.g, "o3", o3), TSI_OK);
	/* keep: read in the loop, never written there: live through it. */
	tsi_program *body = SEQ(&f, tsi_prog_write_undef(f.g, u), acc(&f, "accU", u, keep),
	                        map(&f, "readU", u, o3));
	tsi_program *prog =
	    SEQ(&f, tsi_prog_write_undef(f.g, z), acc(&f, "accZ", z, c), map(&f, "readZ", z, o1),
	        map(&f, "makeW", c, w), map(&f, "readW", w, o2), tsi_prog_write_undef(f.g, w),
	        map(&f, "makeKeep", c, keep), tsi_prog_repeat(f.g, 2, body),
	        map(&f, "after", c, o2));
	const tsi_graph_profile *gp = compile(&f, prog);

	check_invariants(gp);
	/* Without the WriteUndef, z's first access (a read by accZ) would make
	 * it always live. */
	assert_interval(variable(gp, "z"), ote(gp, "accZ"), ote(gp, "readZ"));
	uint32_t undef_w = step_of(gp, TSI_LP_WRITE_UNDEF, NULL, 1);
	assert_interval(variable(gp, "w"), ote(gp, "makeW"), ote(gp, "readW"));
	assert_true(ote(gp, "readW") < undef_w);
	/* u is undefined at the top of each iteration: not loop-carried. */
	assert_interval(variable(gp, "u"), ote(gp, "accU"), ote(gp, "readU"));
	uint32_t loop = step_of(gp, TSI_LP_REPEAT, NULL, 0);
	assert_interval(variable(gp, "keep"), ote(gp, "makeKeep"), subtree_end(gp, loop));
	destroy(&f);
}

/* The call-stack tree: every node visited, both If branches, every Switch
 * case, a loop body once, a function's body at each of its calls. */
static void test_tree_and_calls(void **state)
{
	fixture f;
	(void)state;

	build(&f);
	tsi_tensor *c = tsi_graph_add_constant_fill(f.g, TSI_FLOAT, TSI_SHAPE(4), 1.0, "c");
	tsi_graph_set_tile_mapping(f.g, c, 0);
	tsi_tensor *pred = tsi_graph_add_constant_fill(f.g, TSI_INT, TSI_SHAPE(1), 1, "pred");
	tsi_graph_set_tile_mapping(f.g, pred, 0);
	tsi_tensor *ctrl = tsi_graph_add_constant_fill(f.g, TSI_INT, TSI_SHAPE(1), 0, "ctrl");
	tsi_graph_set_tile_mapping(f.g, ctrl, 0);
	tsi_tensor *fv = var(&f, "fv", 0), *o = var(&f, "o", 0);
	assert_int_equal(tsi_graph_create_host_read(f.g, "o", o), TSI_OK);

	tsi_function *fn = tsi_graph_add_function(f.g, SEQ(&f, map(&f, "inFunction", c, fv),
	                                                   map(&f, "inFunction2", fv, o)));
	tsi_program *sw = tsi_prog_switch(f.g, ctrl, map(&f, "default", c, o));
	assert_int_equal(tsi_switch_add_case(sw, 0, map(&f, "case0", c, o)), TSI_OK);
	assert_int_equal(tsi_switch_add_case(sw, 1, map(&f, "case1", c, o)), TSI_OK);
	tsi_program *prog = SEQ(
	    &f, map(&f, "first", c, o), tsi_prog_repeat(f.g, 2, map(&f, "looped", c, o)),
	    tsi_prog_if(f.g, pred, map(&f, "then", c, o), map(&f, "else", c, o)), sw,
	    tsi_prog_call(f.g, fn), tsi_prog_call(f.g, fn));
	const tsi_graph_profile *gp = compile(&f, prog);

	check_invariants(gp);
	assert_int_equal(gp->liveness[0].parent, -1);
	assert_int_equal(gp->liveness[0].program, gp->control_programs[0]);
	assert_int_equal(count_steps(gp, TSI_LP_ON_TILE_EXECUTE, "looped"), 1);
	assert_int_equal(count_steps(gp, TSI_LP_ON_TILE_EXECUTE, "then"), 1);
	assert_int_equal(count_steps(gp, TSI_LP_ON_TILE_EXECUTE, "else"), 1);
	assert_int_equal(count_steps(gp, TSI_LP_ON_TILE_EXECUTE, "case0"), 1);
	assert_int_equal(count_steps(gp, TSI_LP_ON_TILE_EXECUTE, "case1"), 1);
	assert_int_equal(count_steps(gp, TSI_LP_ON_TILE_EXECUTE, "default"), 1);
	assert_int_equal(count_steps(gp, TSI_LP_CALL, NULL), 2);
	assert_int_equal(count_steps(gp, TSI_LP_ON_TILE_EXECUTE, "inFunction"), 2);
	/* Each copy of the function body sits under its own Call: the Call's
	 * one child step is the function's Sequence, holding the body. */
	for (unsigned k = 0; k < 2; k++) {
		uint32_t call = step_of(gp, TSI_LP_CALL, NULL, k);
		uint32_t body = step_of(gp, TSI_LP_ON_TILE_EXECUTE, "inFunction", k);
		uint32_t fs = call + 1;
		assert_int_equal(gp->liveness[fs].parent, (int32_t)call);
		assert_int_equal(gp->liveness[fs].program, gp->function_programs[0]);
		assert_int_equal(subtree_end(gp, call), subtree_end(gp, fs));
		assert_true(body > fs && body <= subtree_end(gp, fs));
		assert_true(gp->liveness[body].depth > gp->liveness[fs].depth);
	}
	/* The If node's two branches are Sequences under it. */
	uint32_t ifs = step_of(gp, TSI_LP_IF_ELSE, NULL, 0);
	assert_int_equal(gp->liveness[gp->liveness[ote(gp, "then")].parent].parent, (int32_t)ifs);
	assert_int_equal(gp->liveness[gp->liveness[ote(gp, "else")].parent].parent, (int32_t)ifs);
	/* fv: written then read inside the function: live from the first
	 * call's write to the second call's read (one interval). */
	assert_interval(variable(gp, "fv"), step_of(gp, TSI_LP_ON_TILE_EXECUTE, "inFunction", 0),
	                step_of(gp, TSI_LP_ON_TILE_EXECUTE, "inFunction2", 1));
	/* The Switch broadcasts its control value: a message buffer live just
	 * over its exchange. */
	uint32_t bc = step_of(gp, TSI_LP_DO_EXCHANGE, NULL, 0);
	const tsi_lowered_program *bp = &gp->programs[gp->liveness[bc].program];
	char name[256];
	snprintf(name, sizeof(name), "<message:%s>", bp->name);
	const tsi_variable_profile *msg = variable(gp, name);
	assert_int_equal(msg->category, TSI_MEM_MESSAGE);
	assert_interval(msg, bc, bc);
	assert_true(msg->bytes > 0);
	destroy(&f);
}

/* An Execute fetching data from another tile: the receive buffer is a
 * message variable live exactly over its exchange step. */
static void test_message_buffer(void **state)
{
	fixture f;
	(void)state;

	build(&f);
	tsi_tensor *far = var(&f, "far", 2), *o = var(&f, "o", 0);
	assert_int_equal(tsi_graph_create_host_write(f.g, "far", far), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f.g, "o", o), TSI_OK);
	const tsi_graph_profile *gp =
	    compile(&f, tsi_prog_repeat(f.g, 4, map(&f, "fetch", far, o)));

	check_invariants(gp);
	uint32_t ex = step_of(gp, TSI_LP_DO_EXCHANGE, "fetch/ExchangePre", 0);
	const tsi_variable_profile *msg = variable(gp, "<message:fetch/ExchangePre>");
	assert_int_equal(msg->category, TSI_MEM_MESSAGE);
	assert_int_equal(msg->bytes, 16);
	assert_int_equal(tsi_tile_values_get(&msg->bytes_by_tile, 0), 16);
	assert_interval(msg, ex, ex);
	assert_int_equal(gp->liveness[ex].not_always_live_bytes, 16);
	assert_int_equal(gp->liveness[ote(gp, "fetch")].not_always_live_bytes, 0);
	assert_int_equal(count_data(gp), 3);
	destroy(&f);
}

/* Two engine programs: two control programs, each its own tree. */
static void test_two_control_programs(void **state)
{
	fixture f;
	tsi_program *progs[2];
	(void)state;

	build(&f);
	tsi_tensor *a = var(&f, "a", 0), *b = var(&f, "b", 0), *o = var(&f, "o", 0);
	assert_int_equal(tsi_graph_create_host_read(f.g, "o", o), TSI_OK);
	progs[0] = SEQ(&f, map(&f, "w", o, a));
	progs[1] = SEQ(&f, map(&f, "r", a, b), map(&f, "r2", b, o));
	assert_int_equal(tsi_engine_new(&f.e, f.g, progs, 2, NULL), TSI_OK);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(f.e);

	check_invariants(gp);
	assert_int_equal(gp->n_control_programs, 2);
	size_t roots = 0;
	for (uint32_t s = 0; s < gp->n_liveness; s++)
		roots += gp->liveness[s].parent == -1;
	assert_int_equal(roots, 2);
	/* a is written by program 0 and read by program 1 later in the order. */
	assert_interval(variable(gp, "a"), ote(gp, "w"), ote(gp, "r"));
	assert_interval(variable(gp, "b"), ote(gp, "r"), ote(gp, "r2"));
	destroy(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_temporary_and_always_live),
		cmocka_unit_test(test_loop_carried),
		cmocka_unit_test(test_write_undef),
		cmocka_unit_test(test_tree_and_calls),
		cmocka_unit_test(test_message_buffer),
		cmocka_unit_test(test_two_control_programs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
