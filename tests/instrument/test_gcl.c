/*
 * Unit tests of collectives over replicas (tilescope/gcl.h): every
 * operation and reduction operator, the three kinds of communication
 * group, the GCL reference's worked examples of reduceScatter (one and two
 * IPUs per replica, zero padding), allGather and allToAll, in-place and
 * to-destination forms, errors, and the GlobalExchange in the profile.
 */
#include "test-util.h"

#include <string.h>

#include <tilescope/gcl.h>
#include <tilescope/ipu.h>
#include <tilescope/profile.h>

typedef struct ctx {
	tsi_device *dev;
	tsi_graph *g;
	tsi_program *prog;
	tsi_engine *e;
	unsigned replicas;
} ctx;

/* A replicated graph: `ipus` IPUs of `tiles` tiles, `replicas` replicas. */
static void setup(ctx *c, unsigned ipus, unsigned tiles, unsigned replicas)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;

	memset(c, 0, sizeof(*c));
	o.num_ipus = ipus;
	o.tiles_per_ipu = tiles;
	assert_int_equal(tsi_device_new_ipu_model(&c->dev, &o), TSI_OK);
	assert_int_equal(tsi_graph_new(&c->g, tsi_device_get_target(c->dev), replicas), TSI_OK);
	c->prog = tsi_prog_sequence(c->g, "main");
	c->replicas = replicas;
}

static void compile_and_load(ctx *c)
{
	if (tsi_engine_new(&c->e, c->g, &c->prog, 1, NULL) != TSI_OK)
		fail_msg("compile: %s", tsi_error_last());
	assert_int_equal(tsi_engine_load(c->e, c->dev), TSI_OK);
}

static void teardown(ctx *c)
{
	tsi_engine_free(c->e);
	tsi_graph_free(c->g);
	tsi_device_free(c->dev);
}

/* Writes `n` floats per replica: value = base(r) + i. */
static void write_per_replica(ctx *c, const char *handle, size_t n, float (*f)(unsigned, size_t))
{
	float buf[64];
	for (unsigned r = 0; r < c->replicas; r++) {
		for (size_t i = 0; i < n; i++)
			buf[i] = f(r, i);
		assert_int_equal(tsi_engine_write_tensor_replica(c->e, handle, r, buf, n * sizeof(float)),
		                 TSI_OK);
	}
}

static float r10_plus_i(unsigned r, size_t i)
{
	return (float)(r * 10 + i);
}

static float r_plus_1(unsigned r, size_t i)
{
	(void)i;
	return (float)(r + 1);
}

static void read_replica(ctx *c, const char *handle, unsigned r, float *out, size_t n)
{
	assert_int_equal(tsi_engine_read_tensor_replica(c->e, handle, r, out, n * sizeof(float)),
	                 TSI_OK);
}

static void test_comm_group_members(void **state)
{
	unsigned m[8];
	(void)state;

	assert_int_equal(tsi_comm_group_fill_members(m, TSI_COMM_GROUP_ALL, 4, 2), 4);
	assert_int_equal(m[3], 3);
	tsi_comm_group cons = {TSI_COMM_CONSECUTIVE, 2};
	assert_int_equal(tsi_comm_group_fill_members(m, cons, 8, 5), 2);
	assert_int_equal(m[0], 4);
	assert_int_equal(m[1], 5);
	/* ORTHOGONAL k=2 over 8 replicas: m = 4 groups {r%4, r%4+4}. */
	tsi_comm_group orth = {TSI_COMM_ORTHOGONAL, 2};
	assert_int_equal(tsi_comm_group_fill_members(m, orth, 8, 5), 2);
	assert_int_equal(m[0], 1);
	assert_int_equal(m[1], 5);
	tsi_comm_group bad = {TSI_COMM_CONSECUTIVE, 3};
	assert_int_equal(tsi_comm_group_fill_members(m, bad, 8, 0), 0);
}

/* allReduce with each operator over 4 replicas, x_r[i] = 10r + i. */
static void test_all_reduce_operators(void **state)
{
	static const struct {
		tsi_collective_op op;
		float expect[2]; /* for i = 0, 1 on replica 2 */
	} cases[] = {
		{TSI_COLLECTIVE_ADD, {60, 64}},
		{TSI_COLLECTIVE_MUL, {0, 1 * 11 * 21 * 31}},
		{TSI_COLLECTIVE_MIN, {0, 1}},
		{TSI_COLLECTIVE_MAX, {30, 31}},
		{TSI_COLLECTIVE_SQUARE_ADD, {0 + 100 + 400 + 900, 1 + 121 + 441 + 961}},
		{TSI_COLLECTIVE_LOGICAL_AND, {0, 1}},
		{TSI_COLLECTIVE_LOGICAL_OR, {1, 1}},
		{TSI_COLLECTIVE_LOCAL, {20, 21}},
	};
	(void)state;

	for (size_t t = 0; t < sizeof(cases) / sizeof(cases[0]); t++) {
		ctx c;
		float out[2];
		setup(&c, 4, 2, 4);
		tsi_tensor *x = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(2), "x");
		tsi_graph_set_tile_mapping(c.g, x, 1);
		tsi_graph_create_host_write(c.g, "x", x);
		tsi_tensor *y = tsi_gcl_all_reduce(c.g, x, cases[t].op, c.prog, TSI_COMM_GROUP_ALL, "ar");
		assert_non_null(y);
		assert_int_equal(tsi_graph_get_tile_of(c.g, y, 1), 1); /* mapped like x */
		tsi_graph_create_host_read(c.g, "y", y);
		compile_and_load(&c);
		write_per_replica(&c, "x", 2, r10_plus_i);
		assert_int_equal(tsi_engine_run(c.e, 0), TSI_OK);
		read_replica(&c, "y", 2, out, 2);
		assert_close(out[0], cases[t].expect[0], 1e-3);
		assert_close(out[1], cases[t].expect[1], 1e-3);
		teardown(&c);
	}
}

static void test_groups_and_forms(void **state)
{
	ctx c;
	float out[1];
	(void)state;

	setup(&c, 4, 2, 4);
	tsi_tensor *x = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(1), "x");
	tsi_tensor *d = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(1), "d");
	tsi_tensor *ip = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(1), "ip");
	tsi_graph_set_tile_mapping(c.g, x, 0);
	tsi_graph_set_tile_mapping(c.g, d, 1);
	tsi_graph_set_tile_mapping(c.g, ip, 0);
	tsi_graph_create_host_write(c.g, "x", x);
	tsi_graph_create_host_write(c.g, "ip", ip);
	tsi_graph_create_host_read(c.g, "d", d);
	tsi_graph_create_host_read(c.g, "ip", ip);
	tsi_comm_group cons = {TSI_COMM_CONSECUTIVE, 2}, orth = {TSI_COMM_ORTHOGONAL, 2};
	tsi_tensor *yc = tsi_gcl_all_reduce(c.g, x, TSI_COLLECTIVE_ADD, c.prog, cons, "cons");
	tsi_tensor *yo = tsi_gcl_all_reduce(c.g, x, TSI_COLLECTIVE_ADD, c.prog, orth, "orth");
	tsi_graph_create_host_read(c.g, "yc", yc);
	tsi_graph_create_host_read(c.g, "yo", yo);
	assert_int_equal(tsi_gcl_all_reduce_to_destination(c.g, x, d, TSI_COLLECTIVE_MAX, c.prog,
	                                                   TSI_COMM_GROUP_ALL, "toDest"),
	                 TSI_OK);
	assert_int_equal(tsi_gcl_all_reduce_in_place(c.g, ip, TSI_COLLECTIVE_ADD, c.prog,
	                                             TSI_COMM_GROUP_ALL, NULL),
	                 TSI_OK);
	compile_and_load(&c);
	write_per_replica(&c, "x", 1, r_plus_1);  /* 1, 2, 3, 4 */
	write_per_replica(&c, "ip", 1, r_plus_1);
	assert_int_equal(tsi_engine_run(c.e, 0), TSI_OK);
	/* CONSECUTIVE {0,1} {2,3}: 3 and 7. ORTHOGONAL {0,2} {1,3}: 4 and 6. */
	read_replica(&c, "yc", 0, out, 1);
	assert_close(out[0], 3, 0);
	read_replica(&c, "yc", 3, out, 1);
	assert_close(out[0], 7, 0);
	read_replica(&c, "yo", 2, out, 1);
	assert_close(out[0], 4, 0);
	read_replica(&c, "yo", 1, out, 1);
	assert_close(out[0], 6, 0);
	read_replica(&c, "d", 1, out, 1);
	assert_close(out[0], 4, 0);
	/* In place: every replica now holds 1+2+3+4. */
	for (unsigned r = 0; r < 4; r++) {
		read_replica(&c, "ip", r, out, 1);
		assert_close(out[0], 10, 0);
	}
	teardown(&c);
}

/* The reference's example: 2 replicas, [x, y, z] -> [op(x), op(y)], [op(z), 0]. */
static void test_reduce_scatter_padding(void **state)
{
	ctx c;
	float out[2];
	(void)state;

	setup(&c, 2, 2, 2);
	tsi_tensor *x = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(3), "x");
	tsi_graph_map_linearly(c.g, x, 1);
	tsi_graph_create_host_write(c.g, "x", x);
	tsi_tensor *y = tsi_gcl_reduce_scatter(c.g, x, TSI_COLLECTIVE_ADD, c.prog, TSI_COMM_GROUP_ALL,
	                                       "rs");
	assert_non_null(y);
	assert_int_equal(tsi_tensor_numel(y), 2);
	tsi_graph_create_host_read(c.g, "y", y);
	compile_and_load(&c);
	write_per_replica(&c, "x", 3, r10_plus_i); /* r0: 0 1 2, r1: 10 11 12 */
	assert_int_equal(tsi_engine_run(c.e, 0), TSI_OK);
	read_replica(&c, "y", 0, out, 2);
	assert_close(out[0], 10, 0);
	assert_close(out[1], 12, 0);
	read_replica(&c, "y", 1, out, 2);
	assert_close(out[0], 14, 0);
	assert_close(out[1], 0, 0);
	teardown(&c);
}

/* The reference's example with two IPUs per replica: 4 replicas, input
 * [x, y, z, w] mapped [IPU0, IPU0, IPU0, IPU1]: outputs grouped per IPU. */
static void test_reduce_scatter_two_ipus(void **state)
{
	ctx c;
	float out[2];
	(void)state;

	setup(&c, 8, 2, 4); /* each replica: 2 IPUs of 2 tiles */
	tsi_tensor *x = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(4), "x");
	tsi_graph_set_tile_mapping(c.g, tsi_tensor_slice(x, 0, 3), 1); /* IPU 0 */
	tsi_graph_set_tile_mapping(c.g, tsi_tensor_slice(x, 3, 4), 2); /* IPU 1 */
	tsi_graph_create_host_write(c.g, "x", x);
	tsi_tensor *y = tsi_gcl_reduce_scatter(c.g, x, TSI_COLLECTIVE_ADD, c.prog, TSI_COMM_GROUP_ALL,
	                                       "rs");
	assert_int_equal(tsi_tensor_numel(y), 2);
	assert_int_equal(tsi_graph_get_tile_of(c.g, y, 0) / 2, 0);
	assert_int_equal(tsi_graph_get_tile_of(c.g, y, 1) / 2, 1);
	tsi_graph_create_host_read(c.g, "y", y);
	compile_and_load(&c);
	write_per_replica(&c, "x", 4, r10_plus_i);
	assert_int_equal(tsi_engine_run(c.e, 0), TSI_OK);
	/* sums over replicas of 10r + i: 60 + 4i */
	static const float expect[4][2] = {{60, 72}, {64, 0}, {68, 0}, {0, 0}};
	for (unsigned r = 0; r < 4; r++) {
		read_replica(&c, "y", r, out, 2);
		assert_close(out[0], expect[r][0], 0);
		assert_close(out[1], expect[r][1], 0);
	}
	teardown(&c);
}

static void test_all_gather_and_all_to_all(void **state)
{
	ctx c;
	float out[6];
	(void)state;

	setup(&c, 3, 2, 3);
	tsi_tensor *x = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(2), "x");
	tsi_tensor *t = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(3), "t");
	tsi_graph_set_tile_mapping(c.g, x, 0);
	tsi_graph_set_tile_mapping(c.g, t, 1);
	tsi_graph_create_host_write(c.g, "x", x);
	tsi_graph_create_host_write(c.g, "t", t);
	tsi_tensor *g = tsi_gcl_all_gather(c.g, x, c.prog, TSI_COMM_GROUP_ALL, "ag");
	tsi_tensor *a = tsi_gcl_all_to_all(c.g, t, c.prog, TSI_COMM_GROUP_ALL, "a2a");
	assert_int_equal(tsi_tensor_rank(g), 2);
	assert_int_equal(tsi_tensor_dim(g, 0), 3);
	tsi_graph_create_host_read(c.g, "g", g);
	tsi_graph_create_host_read(c.g, "a", a);
	compile_and_load(&c);
	write_per_replica(&c, "x", 2, r10_plus_i);
	write_per_replica(&c, "t", 3, r10_plus_i);
	assert_int_equal(tsi_engine_run(c.e, 0), TSI_OK);
	read_replica(&c, "g", 1, out, 6);
	static const float gathered[6] = {0, 1, 10, 11, 20, 21};
	for (int i = 0; i < 6; i++)
		assert_close(out[i], gathered[i], 0);
	/* allToAll: replica 1 receives slice 1 of each replica: 1, 11, 21. */
	read_replica(&c, "a", 1, out, 3);
	assert_close(out[0], 1, 0);
	assert_close(out[1], 11, 0);
	assert_close(out[2], 21, 0);
	read_replica(&c, "a", 2, out, 3);
	assert_close(out[0], 2, 0);
	assert_close(out[2], 22, 0);
	teardown(&c);
}

static void test_errors(void **state)
{
	ctx c;
	(void)state;

	setup(&c, 4, 2, 4);
	tsi_tensor *x = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(2, 2), "x");
	tsi_tensor *u = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(2), "unmapped");
	tsi_graph_set_tile_mapping(c.g, x, 0);
	tsi_comm_group bad = {TSI_COMM_CONSECUTIVE, 3};
	assert_null(tsi_gcl_all_reduce(c.g, x, TSI_COLLECTIVE_ADD, c.prog, bad, "bad"));
	assert_non_null(strstr(tsi_graph_get_error(c.g), "does not divide the 4 replicas"));
	assert_null(tsi_gcl_reduce_scatter(c.g, x, TSI_COLLECTIVE_ADD, c.prog, TSI_COMM_GROUP_ALL,
	                                   "rs2d"));
	assert_non_null(strstr(tsi_error_last(), "rank-1"));
	assert_null(tsi_gcl_all_to_all(c.g, x, c.prog, TSI_COMM_GROUP_ALL, "a2a"));
	assert_non_null(strstr(tsi_error_last(), "group size 4"));
	assert_null(tsi_gcl_all_reduce(c.g, u, TSI_COLLECTIVE_ADD, c.prog, TSI_COMM_GROUP_ALL, "u"));
	assert_non_null(strstr(tsi_error_last(), "'unmapped'"));
	assert_null(tsi_gcl_all_reduce(c.g, NULL, TSI_COLLECTIVE_ADD, c.prog, TSI_COMM_GROUP_ALL, "n"));
	teardown(&c);
}

/* The compiler model sees an external sync and a GlobalExchange with the
 * ring algorithm's traffic: allReduce of 16 bytes over 4 replicas moves
 * 2 * 3/4 * 16 = 24 bytes each way on the tile holding the data. */
/* An allReduce result written only by the collective is live from it. */
static void test_result_liveness(void **state)
{
	ctx c;
	(void)state;

	setup(&c, 2, 2, 2);
	tsi_tensor *x = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(4), "x");
	tsi_graph_set_tile_mapping(c.g, x, 0);
	tsi_sequence_add(c.prog, tsi_prog_write_undef(c.g, x));
	tsi_tensor *y = tsi_gcl_all_reduce(c.g, x, TSI_COLLECTIVE_ADD, c.prog, TSI_COMM_GROUP_ALL,
	                                   "sum");
	tsi_sequence_add(c.prog, tsi_prog_print_tensor(c.g, "y", y));
	compile_and_load(&c);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(c.e);
	for (size_t i = 0; i < gp->n_variables; i++)
		if (!strcmp(gp->variables[i].name, "sum/out")) {
			assert_false(gp->variables[i].always_live);
			assert_int_not_equal(gp->variables[i].live_from, UINT32_MAX);
			assert_true(gp->variables[i].live_to > gp->variables[i].live_from);
			teardown(&c);
			return;
		}
	fail_msg("no variable sum/out in the profile");
}

static void test_profile(void **state)
{
	ctx c;
	(void)state;

	setup(&c, 4, 2, 4);
	tsi_tensor *x = tsi_graph_add_variable(c.g, TSI_FLOAT, TSI_SHAPE(4), "x");
	tsi_graph_set_tile_mapping(c.g, x, 1);
	assert_int_equal(tsi_gcl_all_reduce_in_place(c.g, x, TSI_COLLECTIVE_ADD, c.prog,
	                                             TSI_COMM_GROUP_ALL, "gradients"),
	                 TSI_OK);
	compile_and_load(&c);
	const tsi_graph_profile *gp = tsi_engine_get_graph_profile(c.e);
	assert_non_null(gp);
	assert_int_equal(gp->replication_factor, 4);
	assert_int_equal(gp->n_exchanges[TSI_EXCHANGE_EXTERNAL], 1);
	const tsi_exchange_profile *x_ = &gp->exchanges[TSI_EXCHANGE_EXTERNAL][0];
	assert_string_equal(x_->name, "gradients");
	assert_int_equal(tsi_tile_values_get(&x_->bytes_sent, 1), 24);
	assert_int_equal(tsi_tile_values_get(&x_->bytes_received, 1), 24);
	/* The collective reads and writes x: liveness sees it. */
	int found = 0;
	for (size_t i = 0; i < gp->n_variables; i++)
		if (!strcmp(gp->variables[i].name, "x")) {
			found = 1;
			assert_true(gp->variables[i].always_live ||
			            gp->variables[i].live_from != UINT32_MAX);
		}
	assert_true(found);
	const tsi_lowered_program *root = &gp->programs[gp->control_programs[0]];
	const tsi_lowered_program *m = &gp->programs[root->children[0]];
	assert_int_equal(m->n_children, 2);
	assert_int_equal(gp->programs[m->children[0]].sync, TSI_SYNC_EXTERNAL);
	assert_int_equal(gp->programs[m->children[1]].type, TSI_LP_GLOBAL_EXCHANGE);
	teardown(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_comm_group_members),
		cmocka_unit_test(test_all_reduce_operators),
		cmocka_unit_test(test_groups_and_forms),
		cmocka_unit_test(test_reduce_scatter_padding),
		cmocka_unit_test(test_reduce_scatter_two_ipus),
		cmocka_unit_test(test_all_gather_and_all_to_all),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_result_liveness),
		cmocka_unit_test(test_profile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
