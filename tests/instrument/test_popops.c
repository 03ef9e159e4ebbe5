/*
 * Unit tests of the elementwise part of popops (tilescope/popops.h):
 * results of every binary operation for float, half, int and unsigned
 * int, numpy
 * broadcasting, in-place operations, every unary operation, scaled add,
 * fill, cast and one-hot encoding; operands that are views, the mapping
 * of results, the compute sets and vertices built (and how a tile's work
 * is split over worker vertices), and the errors recorded for bad
 * operands. Reductions are in test_reduce.c.
 */
#include "test-util.h"

#include <tilescope/ipu.h>
#include <tilescope/popops.h>
#include <tilescope/profile.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A small IPU Model (8 tiles) with a graph that has the popops codelets. */
typedef tsi_test_model fixture;

/* Creates the fixture: device, graph with codelets, empty sequence. */
static int setup(void **state)
{
	fixture *f = tsi_test_model_new(8);

	assert_int_equal(tsi_popops_add_codelets(f->graph), TSI_OK);
	*state = f;
	return 0;
}

/* A variable of `type` initialised from `values` by a copy in f->seq,
 * element i on tile tiles[i % n_tiles]. */
static tsi_tensor *make_input(fixture *f, tsi_type type, size_t rank, const size_t *shape,
                              const float *values, const unsigned *tiles, size_t n_tiles,
                              const char *name)
{
	tsi_tensor *v = tsi_graph_add_variable(f->graph, type, rank, shape, name);
	tsi_tensor *c = tsi_graph_add_constant_float(f->graph, type, rank, shape, values, NULL);
	tsi_tensor *flat = tsi_tensor_flatten(v);

	assert_non_null(v);
	assert_non_null(c);
	for (size_t i = 0; i < tsi_tensor_numel(v); i++)
		assert_int_equal(tsi_graph_set_tile_mapping(f->graph, tsi_tensor_slice(flat, i, i + 1),
		                                            tiles[i % n_tiles]),
		                 TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, c, 0), TSI_OK);
	assert_int_equal(tsi_sequence_add(f->seq, tsi_prog_copy(f->graph, c, v)), TSI_OK);
	return v;
}

/* Compiles f->seq, loads and runs it once. */
static void run(fixture *f)
{
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_run(f->engine, 0);
}

static const unsigned four_tiles[] = {0, 1, 2, 3};
static const unsigned tile_five[] = {5};

/* add, sub and mul of 2x2 floats give the elementwise results, and the
 * results are named after the debug name and mapped like `a`. */
static void test_float_add_sub_mul(void **state)
{
	fixture *f = *state;
	const float av[] = {1, 1.5f, 2, 2.5f};
	const float bv[] = {4, 3, 2, 1};
	tsi_tensor *a = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 2), av, four_tiles, 4, "a");
	tsi_tensor *b = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 2), bv, tile_five, 1, "b");
	tsi_tensor *sum = tsi_popops_add(f->graph, a, b, f->seq, "Add");
	tsi_tensor *diff = tsi_popops_sub(f->graph, a, b, f->seq, "Sub");
	tsi_tensor *prod = tsi_popops_mul(f->graph, a, b, f->seq, NULL);
	float out[4];

	assert_non_null(sum);
	assert_non_null(diff);
	assert_non_null(prod);
	assert_string_equal(tsi_tensor_name(sum), "Add/out");
	assert_string_equal(tsi_tensor_name(diff), "Sub/out");
	assert_string_equal(tsi_tensor_name(prod), "Mul/out");
	assert_int_equal(tsi_tensor_rank(sum), 2);
	assert_int_equal(tsi_tensor_dim(sum, 0), 2);
	assert_int_equal(tsi_tensor_dim(sum, 1), 2);
	assert_int_equal(tsi_tensor_type(sum), TSI_FLOAT);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(tsi_graph_get_tile_of(f->graph, sum, i), four_tiles[i]);

	assert_int_equal(tsi_graph_create_host_read(f->graph, "sum", sum), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "diff", diff), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "prod", prod), TSI_OK);
	run(f);
	tsi_test_read_floats(f->engine, "sum", out, 4);
	for (size_t i = 0; i < 4; i++)
		assert_close(out[i], av[i] + bv[i], 0);
	tsi_test_read_floats(f->engine, "diff", out, 4);
	for (size_t i = 0; i < 4; i++)
		assert_close(out[i], av[i] - bv[i], 0);
	tsi_test_read_floats(f->engine, "prod", out, 4);
	for (size_t i = 0; i < 4; i++)
		assert_close(out[i], av[i] * bv[i], 0);
}

/* Tutorial 2's v5: the second operand is a transposed view. */
static void test_transposed_operand(void **state)
{
	fixture *f = *state;
	const float av[] = {1, 1.5f, 2, 2.5f};
	const float bv[] = {4, 3, 2, 1};
	const float want[] = {5, 3.5f, 5, 3.5f};
	tsi_tensor *a = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 2), av, four_tiles, 4, "a");
	tsi_tensor *b = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 2), bv, four_tiles, 4, "b");
	tsi_tensor *v5 = tsi_popops_add(f->graph, a, tsi_tensor_transpose(b), f->seq, "Add");
	float out[4];

	assert_non_null(v5);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "v5", v5), TSI_OK);
	run(f);
	tsi_test_read_floats(f->engine, "v5", out, 4);
	for (size_t i = 0; i < 4; i++)
		assert_close(out[i], want[i], 0);
}

/* Int arithmetic, including wrap-around at the ends of the range. */
static void test_int(void **state)
{
	fixture *f = *state;
	const int32_t av[] = {7, -3, INT32_MAX, 100000};
	const int32_t bv[] = {2, 5, 1, 100000};
	tsi_tensor *ca = tsi_graph_add_constant(f->graph, TSI_INT, TSI_SHAPE(4), av, "ca");
	tsi_tensor *cb = tsi_graph_add_constant(f->graph, TSI_INT, TSI_SHAPE(4), bv, "cb");
	tsi_tensor *a = tsi_graph_add_variable(f->graph, TSI_INT, TSI_SHAPE(4), "a");
	tsi_tensor *b = tsi_graph_add_variable(f->graph, TSI_INT, TSI_SHAPE(4), "b");
	int32_t out[4];

	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, ca, 0), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, cb, 0), TSI_OK);
	assert_int_equal(tsi_graph_map_linearly(f->graph, a, 1), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, b, 7), TSI_OK);
	assert_int_equal(tsi_sequence_add(f->seq, tsi_prog_copy(f->graph, ca, a)), TSI_OK);
	assert_int_equal(tsi_sequence_add(f->seq, tsi_prog_copy(f->graph, cb, b)), TSI_OK);
	tsi_tensor *sum = tsi_popops_add(f->graph, a, b, f->seq, "AddInt");
	tsi_tensor *diff = tsi_popops_sub(f->graph, a, b, f->seq, "SubInt");
	tsi_tensor *prod = tsi_popops_mul(f->graph, a, b, f->seq, "MulInt");
	assert_non_null(sum);
	assert_non_null(diff);
	assert_non_null(prod);
	assert_int_equal(tsi_tensor_type(sum), TSI_INT);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "sum", sum), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "diff", diff), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "prod", prod), TSI_OK);
	run(f);

	assert_int_equal(tsi_engine_read_tensor(f->engine, "sum", out, sizeof(out)), TSI_OK);
	assert_int_equal(out[0], 9);
	assert_int_equal(out[1], 2);
	assert_int_equal(out[2], INT32_MIN);
	assert_int_equal(out[3], 200000);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "diff", out, sizeof(out)), TSI_OK);
	assert_int_equal(out[0], 5);
	assert_int_equal(out[1], -8);
	assert_int_equal(out[2], INT32_MAX - 1);
	assert_int_equal(out[3], 0);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "prod", out, sizeof(out)), TSI_OK);
	assert_int_equal(out[0], 14);
	assert_int_equal(out[1], -15);
	assert_int_equal(out[2], INT32_MAX);
	/* 10^10 mod 2^32, as a signed 32-bit value */
	assert_int_equal(out[3], (int32_t)(uint32_t)(10000000000ull & 0xffffffffu));
}

/* Half: every result is the binary16 rounding of the exact result. */
static void test_half(void **state)
{
	fixture *f = *state;
	const float av[] = {1.5f, -2.25f, 0.1f, 1000};
	const float bv[] = {2.25f, 0.5f, 3, 0.001f};
	tsi_tensor *a = make_input(f, TSI_HALF, TSI_SHAPE(4), av, four_tiles, 4, "a");
	tsi_tensor *b = make_input(f, TSI_HALF, TSI_SHAPE(4), bv, four_tiles, 4, "b");
	tsi_tensor *sum = tsi_popops_add(f->graph, a, b, f->seq, "AddHalf");
	tsi_tensor *prod = tsi_popops_mul(f->graph, a, b, f->seq, "MulHalf");
	uint16_t out[4];

	assert_non_null(sum);
	assert_non_null(prod);
	assert_int_equal(tsi_tensor_type(sum), TSI_HALF);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "sum", sum), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "prod", prod), TSI_OK);
	run(f);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "sum", out, sizeof(out)), TSI_OK);
	for (size_t i = 0; i < 4; i++) {
		float x = tsi_half_to_float(tsi_half_from_float(av[i]));
		float y = tsi_half_to_float(tsi_half_from_float(bv[i]));

		assert_int_equal(out[i], tsi_half_from_float(x + y));
	}
	assert_close(tsi_half_to_float(out[0]), 3.75, 0);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "prod", out, sizeof(out)), TSI_OK);
	for (size_t i = 0; i < 4; i++) {
		float x = tsi_half_to_float(tsi_half_from_float(av[i]));
		float y = tsi_half_to_float(tsi_half_from_float(bv[i]));

		assert_int_equal(out[i], tsi_half_from_float(x * y));
	}
	assert_close(tsi_half_to_float(out[1]), -1.125, 0);
}

/* Operands of different shapes: NULL, the error recorded in the graph,
 * and no compute set made (the next unnamed one is still cs0). */
static void test_shape_mismatch(void **state)
{
	fixture *f = *state;
	tsi_tensor *a = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(2, 2), "a");
	tsi_tensor *b = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(4), "b");
	tsi_compute_set *cs;

	assert_null(tsi_popops_add(f->graph, a, b, f->seq, "Add"));
	assert_int_equal(tsi_graph_error_code(f->graph), TSI_ERR_INVALID_ARGUMENT);
	assert_string_not_equal(tsi_graph_get_error(f->graph), "");
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "different shapes {2,2} and {4}"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "'Add'"));
	cs = tsi_graph_add_compute_set(f->graph, NULL);
	if (cs) /* the graph may refuse new objects once it holds an error */
		assert_string_equal(tsi_compute_set_name(cs), "cs0");
}

/* Operands of different types are refused. */
static void test_type_mismatch(void **state)
{
	fixture *f = *state;
	tsi_tensor *a = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(3), "a");
	tsi_tensor *b = tsi_graph_add_variable(f->graph, TSI_INT, TSI_SHAPE(3), "b");

	assert_null(tsi_popops_sub(f->graph, a, b, f->seq, "Sub"));
	assert_int_equal(tsi_graph_error_code(f->graph), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "different types (float and int)"));
}

/* A type popops has no codelet for is refused. */
static void test_unsupported_type(void **state)
{
	fixture *f = *state;
	tsi_tensor *a = tsi_graph_add_variable(f->graph, TSI_BOOL, TSI_SHAPE(3), "a");

	assert_null(tsi_popops_mul(f->graph, a, a, f->seq, NULL));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "type bool is not supported"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "(float, half, int or unsigned int)"));
}

/* A NULL operand records an error once; after that, NULLs pass quietly
 * and the first message stays. */
static void test_null_operand(void **state)
{
	fixture *f = *state;
	tsi_tensor *a = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(3), "a");
	char first[256];

	assert_null(tsi_popops_add(f->graph, a, NULL, f->seq, "Add"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "operand b is NULL"));
	snprintf(first, sizeof(first), "%s", tsi_graph_get_error(f->graph));
	assert_null(tsi_popops_add(f->graph, NULL, a, f->seq, "Add"));
	assert_string_equal(tsi_graph_get_error(f->graph), first);
	assert_null(tsi_popops_add(NULL, a, a, f->seq, "Add"));
}

/* Without tsi_popops_add_codelets the operation says what to call. */
static void test_missing_codelets(void **state)
{
	fixture *f = *state;
	tsi_graph *g = NULL;
	tsi_program *seq;
	tsi_tensor *a;

	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3), "a");
	assert_null(tsi_popops_add(g, a, a, seq, "Add"));
	assert_int_equal(tsi_graph_error_code(g), TSI_ERR_UNKNOWN_VERTEX_TYPE);
	assert_non_null(strstr(tsi_graph_get_error(g), "tsi_popops_add_codelets"));
	tsi_graph_free(g);
}

/* Every codelet is registered under its Poplar-style name, and
 * registering twice is harmless. */
static void test_codelet_names(void **state)
{
	fixture *f = *state;
	static const char *const ops[] = {"ADD", "SUBTRACT", "MULTIPLY"};
	static const tsi_type types[] = {TSI_FLOAT, TSI_HALF, TSI_INT};
	char name[128];

	assert_int_equal(tsi_popops_add_codelets(f->graph), TSI_OK);
	for (size_t o = 0; o < 3; o++) {
		for (size_t t = 0; t < 3; t++) {
			const tsi_codelet *c;

			snprintf(name, sizeof(name), "popops::BinaryOp1D<popops::expr::BinaryOpType::%s,%s>",
			         ops[o], tsi_type_name(types[t]));
			c = tsi_graph_lookup_codelet(f->graph, name);
			assert_non_null(c);
			assert_string_equal(c->name, name);
			assert_int_equal(c->n_fields, 3);
			assert_string_equal(c->fields[0].name, "in1");
			assert_string_equal(c->fields[1].name, "in2");
			assert_string_equal(c->fields[2].name, "out");
			assert_int_equal(c->fields[2].dir, TSI_FIELD_OUTPUT);
			assert_int_equal(c->fields[0].type, types[t]);
		}
	}
	assert_string_equal(tsi_graph_get_error(f->graph), "");
}

/* One vertex per tile of the result: a result spread over four tiles
 * makes four; one on a single tile makes one, even when its elements
 * there are not contiguous (the pieces are concatenated). The compute set
 * keeps its name, and the vertices compute the right values. */
static void test_vertices_per_tile(void **state)
{
	fixture *f = *state;
	const float av[] = {1, 2, 3, 4, 5, 6};
	const float bv[] = {10, 20, 30, 40, 50, 60};
	/* a: elements 0,1,4,5 on tile 6 and 2,3 on tile 2 */
	const unsigned split_tiles[] = {6, 6, 2, 2, 6, 6};
	tsi_tensor *a4 = make_input(f, TSI_FLOAT, TSI_SHAPE(4), av, four_tiles, 4, "a4");
	tsi_tensor *b4 = make_input(f, TSI_FLOAT, TSI_SHAPE(4), bv, tile_five, 1, "b4");
	tsi_tensor *a6 = make_input(f, TSI_FLOAT, TSI_SHAPE(6), av, split_tiles, 6, "a6");
	tsi_tensor *b6 = make_input(f, TSI_FLOAT, TSI_SHAPE(6), bv, four_tiles, 4, "b6");
	tsi_compute_set *cs = tsi_graph_add_compute_set(f->graph, "Fused");
	tsi_tensor *r4, *r6;
	float out[6];

	assert_non_null(cs);
	r4 = tsi_popops_map_binary_cs(f->graph, TSI_POPOPS_ADD, a4, b4, cs, NULL);
	assert_non_null(r4);
	assert_string_equal(tsi_compute_set_name(cs), "Fused");
	assert_string_equal(tsi_tensor_name(r4), "Fused/out");
	assert_int_equal(tsi_compute_set_num_vertices(cs), 4);
	r6 = tsi_popops_map_binary_cs(f->graph, TSI_POPOPS_MULTIPLY, a6, b6, cs, "six");
	assert_non_null(r6);
	assert_string_equal(tsi_tensor_name(r6), "six/out");
	assert_int_equal(tsi_compute_set_num_vertices(cs), 4 + 2);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(tsi_graph_get_tile_of(f->graph, r6, i), split_tiles[i]);

	assert_int_equal(tsi_sequence_add(f->seq, tsi_prog_execute(f->graph, cs)), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "r4", r4), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "r6", r6), TSI_OK);
	run(f);
	tsi_test_read_floats(f->engine, "r4", out, 4);
	for (size_t i = 0; i < 4; i++)
		assert_close(out[i], av[i] + bv[i], 0);
	tsi_test_read_floats(f->engine, "r6", out, 6);
	for (size_t i = 0; i < 6; i++)
		assert_close(out[i], av[i] * bv[i], 0);
}

/* tsi_popops_add makes exactly one compute set: the next unnamed one is
 * cs1 after it. */
static void test_one_compute_set(void **state)
{
	fixture *f = *state;
	tsi_tensor *a = make_input(f, TSI_FLOAT, TSI_SHAPE(4), (const float[]){1, 2, 3, 4},
	                           four_tiles, 4, "a");
	tsi_compute_set *next;

	assert_non_null(tsi_popops_add(f->graph, a, a, f->seq, "Add"));
	next = tsi_graph_add_compute_set(f->graph, NULL);
	assert_non_null(next);
	assert_string_equal(tsi_compute_set_name(next), "cs1");
}

/* An unmapped operand: the result is still fully mapped (linearly), and
 * compiling reports the unmapped operand naming the compute set "Add" and
 * the vertex type the operation used. */
static void test_unmapped_operand(void **state)
{
	fixture *f = *state;
	tsi_tensor *a = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(5), "loose");
	tsi_tensor *sum = tsi_popops_add(f->graph, a, a, f->seq, "Add");

	assert_non_null(sum);
	assert_true(tsi_graph_is_mapped(f->graph, sum));
	assert_int_not_equal(tsi_engine_new(&f->engine, f->graph, &f->seq, 1, NULL), TSI_OK);
	assert_null(f->engine);
	assert_non_null(strstr(tsi_error_last(), "loose"));
	assert_non_null(strstr(tsi_error_last(), "'Add'"));
	assert_non_null(strstr(tsi_error_last(),
	                       "popops::BinaryOp1D<popops::expr::BinaryOpType::ADD,float>"));
}

/* A variable of `type` initialised from raw device values (uint16_t bit
 * patterns for half) by a copy in f->seq, element i on tile
 * tiles[i % n_tiles]. */
static tsi_tensor *make_raw(fixture *f, tsi_type type, size_t rank, const size_t *shape,
                            const void *values, const unsigned *tiles, size_t n_tiles,
                            const char *name)
{
	tsi_tensor *v = tsi_graph_add_variable(f->graph, type, rank, shape, name);
	tsi_tensor *c = tsi_graph_add_constant(f->graph, type, rank, shape, values, NULL);
	tsi_tensor *flat = tsi_tensor_flatten(v);

	assert_non_null(v);
	assert_non_null(c);
	for (size_t i = 0; i < tsi_tensor_numel(v); i++)
		assert_int_equal(tsi_graph_set_tile_mapping(f->graph, tsi_tensor_slice(flat, i, i + 1),
		                                            tiles[i % n_tiles]),
		                 TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, c, 0), TSI_OK);
	assert_int_equal(tsi_sequence_add(f->seq, tsi_prog_copy(f->graph, c, v)), TSI_OK);
	return v;
}

/* The host's answer for a float binary operation. */
static float host_binary(tsi_popops_binary_op op, float x, float y)
{
	switch (op) {
	case TSI_POPOPS_ADD:
		return x + y;
	case TSI_POPOPS_SUBTRACT:
		return x - y;
	case TSI_POPOPS_MULTIPLY:
		return x * y;
	case TSI_POPOPS_DIVIDE:
		return x / y;
	case TSI_POPOPS_MAXIMUM:
		return x > y ? x : y;
	case TSI_POPOPS_MINIMUM:
		return x < y ? x : y;
	default:
		return powf(x, y);
	}
}

/* Every binary operation on floats gives what the host computes, with
 * the default compute set names. */
static void test_every_binary_float(void **state)
{
	fixture *f = *state;
	static const char *const names[] = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Pow"};
	const float av[] = {1, 2.5f, 3, 0.5f, 7, 9};
	const float bv[] = {4, -2, 3, 0.25f, 1.5f, -0.5f};
	tsi_tensor *a = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 3), av, four_tiles, 4, "a");
	tsi_tensor *b = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 3), bv, tile_five, 1, "b");
	char h[16];
	float out[6];

	for (int op = 0; op < TSI_POPOPS_BINARY_OP_COUNT; op++) {
		tsi_tensor *r = tsi_popops_map_binary(f->graph, (tsi_popops_binary_op)op, a, b, f->seq,
		                                      NULL);
		char want_name[32];

		assert_non_null(r);
		snprintf(want_name, sizeof(want_name), "%s/out", names[op]);
		assert_string_equal(tsi_tensor_name(r), want_name);
		snprintf(h, sizeof(h), "r%d", op);
		assert_int_equal(tsi_graph_create_host_read(f->graph, h, r), TSI_OK);
	}
	run(f);
	for (int op = 0; op < TSI_POPOPS_BINARY_OP_COUNT; op++) {
		snprintf(h, sizeof(h), "r%d", op);
		tsi_test_read_floats(f->engine, h, out, 6);
		for (size_t i = 0; i < 6; i++)
			assert_close(out[i], host_binary((tsi_popops_binary_op)op, av[i], bv[i]), 0);
	}
}

/* Half: divide, max, min and power round the float result once. */
static void test_binary_half(void **state)
{
	fixture *f = *state;
	static const tsi_popops_binary_op ops[] = {TSI_POPOPS_DIVIDE, TSI_POPOPS_MAXIMUM,
	                                           TSI_POPOPS_MINIMUM, TSI_POPOPS_POWER};
	const float av[] = {1.5f, 2.25f, 0.1f, 10};
	const float bv[] = {3, 0.5f, 3, 0.3f};
	tsi_tensor *a = make_input(f, TSI_HALF, TSI_SHAPE(4), av, four_tiles, 4, "a");
	tsi_tensor *b = make_input(f, TSI_HALF, TSI_SHAPE(4), bv, four_tiles, 4, "b");
	uint16_t out[4];
	char h[16];

	for (size_t k = 0; k < 4; k++) {
		tsi_tensor *r = tsi_popops_map_binary(f->graph, ops[k], a, b, f->seq, NULL);

		assert_non_null(r);
		assert_int_equal(tsi_tensor_type(r), TSI_HALF);
		snprintf(h, sizeof(h), "r%zu", k);
		assert_int_equal(tsi_graph_create_host_read(f->graph, h, r), TSI_OK);
	}
	run(f);
	for (size_t k = 0; k < 4; k++) {
		snprintf(h, sizeof(h), "r%zu", k);
		assert_int_equal(tsi_engine_read_tensor(f->engine, h, out, sizeof(out)), TSI_OK);
		for (size_t i = 0; i < 4; i++) {
			float x = tsi_half_to_float(tsi_half_from_float(av[i]));
			float y = tsi_half_to_float(tsi_half_from_float(bv[i]));

			assert_int_equal(out[i], tsi_half_from_float(host_binary(ops[k], x, y)));
		}
	}
}

/* Int divide truncates toward zero, gives 0 for x/0 and wraps
 * INT32_MIN / -1; max and min compare as signed; power is refused. */
static void test_binary_int(void **state)
{
	fixture *f = *state;
	const int32_t av[] = {7, -7, 5, INT32_MIN, 3};
	const int32_t bv[] = {2, 2, 0, -1, -4};
	tsi_tensor *a = make_raw(f, TSI_INT, TSI_SHAPE(5), av, four_tiles, 4, "a");
	tsi_tensor *b = make_raw(f, TSI_INT, TSI_SHAPE(5), bv, tile_five, 1, "b");
	tsi_tensor *q = tsi_popops_map_binary(f->graph, TSI_POPOPS_DIVIDE, a, b, f->seq, NULL);
	tsi_tensor *mx = tsi_popops_map_binary(f->graph, TSI_POPOPS_MAXIMUM, a, b, f->seq, NULL);
	tsi_tensor *mn = tsi_popops_map_binary(f->graph, TSI_POPOPS_MINIMUM, a, b, f->seq, NULL);
	int32_t out[5];

	assert_non_null(q);
	assert_non_null(mx);
	assert_non_null(mn);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "q", q), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "mx", mx), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "mn", mn), TSI_OK);
	run(f);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "q", out, sizeof(out)), TSI_OK);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], -3);
	assert_int_equal(out[2], 0);
	assert_int_equal(out[3], INT32_MIN);
	assert_int_equal(out[4], 0);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "mx", out, sizeof(out)), TSI_OK);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(out[i], av[i] > bv[i] ? av[i] : bv[i]);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "mn", out, sizeof(out)), TSI_OK);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(out[i], av[i] < bv[i] ? av[i] : bv[i]);

	assert_null(tsi_popops_map_binary(f->graph, TSI_POPOPS_POWER, a, b, f->seq, NULL));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "POWER is not supported for int"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "'Pow'"));
}

/* The host's answer for an unsigned binary operation: C's unsigned
 * arithmetic, and 0 for a division by zero as for int. */
static uint32_t host_binary_u(tsi_popops_binary_op op, uint32_t x, uint32_t y)
{
	switch (op) {
	case TSI_POPOPS_ADD:
		return x + y;
	case TSI_POPOPS_SUBTRACT:
		return x - y;
	case TSI_POPOPS_MULTIPLY:
		return x * y;
	case TSI_POPOPS_DIVIDE:
		return y ? x / y : 0;
	case TSI_POPOPS_MAXIMUM:
		return x > y ? x : y;
	default:
		return x < y ? x : y;
	}
}

/* Every binary operation but power on unsigned ints wraps as C's unsigned
 * arithmetic (0 - 1 is UINT32_MAX, 65536 * 65536 is 0) and compares
 * values above INT32_MAX as unsigned; a scalar operand and the in-place
 * form work too; the vertices carry Poplar's unsigned int names; power is
 * refused with the types it supports. */
static void test_binary_unsigned(void **state)
{
	fixture *f = *state;
	const uint32_t av[] = {0, 3000000000u, 7, 4000000000u, 5, 65536, 2147483648u};
	const uint32_t bv[] = {1, 2000000000u, 2, UINT32_MAX, 0, 65536, 2147483647u};
	const uint32_t one = 1;
	tsi_tensor *a = make_raw(f, TSI_UNSIGNED_INT, TSI_SHAPE(7), av, four_tiles, 4, "a");
	tsi_tensor *b = make_raw(f, TSI_UNSIGNED_INT, TSI_SHAPE(7), bv, tile_five, 1, "b");
	tsi_tensor *c = make_raw(f, TSI_UNSIGNED_INT, TSI_SHAPE(7), av, four_tiles, 4, "c");
	tsi_tensor *s = make_raw(f, TSI_UNSIGNED_INT, TSI_SHAPE(1), &one, tile_five, 1, "s");
	tsi_tensor *dec;
	const tsi_graph_profile *gp;
	uint32_t out[7];
	char h[16];
	bool seen = false;

	for (int op = 0; op < 6; op++) {
		tsi_tensor *r = tsi_popops_map_binary(f->graph, (tsi_popops_binary_op)op, a, b, f->seq,
		                                      NULL);

		assert_non_null(r);
		assert_int_equal(tsi_tensor_type(r), TSI_UNSIGNED_INT);
		snprintf(h, sizeof(h), "r%d", op);
		assert_int_equal(tsi_graph_create_host_read(f->graph, h, r), TSI_OK);
	}
	/* a - 1 through the scalar form; c -= b in place. */
	dec = tsi_popops_sub(f->graph, a, s, f->seq, "Dec");
	assert_non_null(dec);
	assert_int_equal(tsi_popops_map_binary_in_place(f->graph, TSI_POPOPS_SUBTRACT, c, b, f->seq,
	                                                "SubInPlace"),
	                 TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "dec", dec), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "c", c), TSI_OK);
	run(f);
	for (int op = 0; op < 6; op++) {
		snprintf(h, sizeof(h), "r%d", op);
		assert_int_equal(tsi_engine_read_tensor(f->engine, h, out, sizeof(out)), TSI_OK);
		for (size_t i = 0; i < 7; i++)
			assert_int_equal(out[i], host_binary_u((tsi_popops_binary_op)op, av[i], bv[i]));
	}
	assert_int_equal(tsi_engine_read_tensor(f->engine, "r1", out, sizeof(out)), TSI_OK);
	assert_int_equal(out[0], UINT32_MAX);             /* 0 - 1 */
	assert_int_equal(tsi_engine_read_tensor(f->engine, "r0", out, sizeof(out)), TSI_OK);
	assert_int_equal(out[1], 705032704u);             /* 5e9 mod 2^32 */
	assert_int_equal(out[6], UINT32_MAX);             /* 2^31 + 2^31 - 1 */
	assert_int_equal(tsi_engine_read_tensor(f->engine, "r2", out, sizeof(out)), TSI_OK);
	assert_int_equal(out[5], 0);                      /* 2^16 * 2^16 */
	assert_int_equal(tsi_engine_read_tensor(f->engine, "r3", out, sizeof(out)), TSI_OK);
	assert_int_equal(out[1], 1);                      /* 3e9 / 2e9, not signed */
	assert_int_equal(out[4], 0);                      /* 5 / 0 */
	assert_int_equal(tsi_engine_read_tensor(f->engine, "r4", out, sizeof(out)), TSI_OK);
	assert_int_equal(out[1], 3000000000u);            /* above INT32_MAX wins */
	assert_int_equal(out[6], 2147483648u);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "r5", out, sizeof(out)), TSI_OK);
	assert_int_equal(out[3], 4000000000u);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "dec", out, sizeof(out)), TSI_OK);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(out[i], av[i] - 1u);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "c", out, sizeof(out)), TSI_OK);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(out[i], av[i] - bv[i]);

	/* The profile shows the unsigned vertex types it ran. */
	gp = tsi_engine_get_graph_profile(f->engine);
	assert_non_null(gp);
	for (size_t t = 0; t < gp->n_vertex_types; t++) {
		if (strcmp(gp->vertex_types[t].name,
		           "popops::BinaryOp1D<popops::expr::BinaryOpType::ADD,unsigned int>") == 0) {
			seen = true;
			assert_int_equal(gp->vertex_types[t].flops, 0);
		}
	}
	assert_true(seen);

	assert_null(tsi_popops_map_binary(f->graph, TSI_POPOPS_POWER, a, b, f->seq, NULL));
	assert_int_equal(tsi_graph_error_code(f->graph), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(f->graph),
	                       "POWER is not supported for unsigned int (float or half only)"));
}

/* Unsigned int vertex types have Poplar's names ("unsigned int" where
 * int's say "int"), fields of type unsigned int, and int's cycles, vertex
 * state and code size: no SIMD for either. */
static void test_unsigned_codelets(void **state)
{
	fixture *f = *state;
	static const char *const ops[] = {"ADD", "SUBTRACT", "MULTIPLY",
	                                  "DIVIDE", "MAXIMUM", "MINIMUM"};
	static const char *const forms[] = {"BinaryOp1D", "BinaryOp1DInPlace", "BroadcastScalar1D",
	                                    "BroadcastScalar1DInPlace"};
	static const char *const pairs[][2] = {
		{"popops::UnaryOp1D<popops::expr::UnaryOpType::SQUARE,int>",
		 "popops::UnaryOp1D<popops::expr::UnaryOpType::SQUARE,unsigned int>"},
		{"popops::UnaryOp1DInPlace<popops::expr::UnaryOpType::SQUARE,int>",
		 "popops::UnaryOp1DInPlace<popops::expr::UnaryOpType::SQUARE,unsigned int>"},
		{"popops::ScaledAddSupervisor<int,int,true>",
		 "popops::ScaledAddSupervisor<unsigned int,unsigned int,true>"},
	};
	static const char *const absent[] = {
		"popops::BinaryOp1D<popops::expr::BinaryOpType::POWER,unsigned int>",
		"popops::UnaryOp1D<popops::expr::UnaryOpType::NEGATE,unsigned int>",
		"popops::UnaryOp1D<popops::expr::UnaryOpType::ABSOLUTE,unsigned int>",
		"popops::UnaryOp1D<popops::expr::UnaryOpType::SIGNUM,unsigned int>",
		"popops::UnaryOp1D<popops::expr::UnaryOpType::SQRT,unsigned int>",
	};
	/* 1000 elements in one vector field (and one scalar where there is
	 * one): enough for the per-element cost to show. */
	uint32_t data[1000] = {0};
	tsi_field fields[3];
	char iname[160], uname[160];

	for (size_t k = 0; k < 3; k++)
		fields[k] = (tsi_field){data, 1000, 1, NULL};
	for (size_t o = 0; o < 6; o++) {
		for (size_t m = 0; m < 4; m++) {
			const tsi_codelet *ci, *cu;

			snprintf(iname, sizeof(iname), "popops::%s<popops::expr::BinaryOpType::%s,int>",
			         forms[m], ops[o]);
			snprintf(uname, sizeof(uname),
			         "popops::%s<popops::expr::BinaryOpType::%s,unsigned int>", forms[m], ops[o]);
			ci = tsi_graph_lookup_codelet(f->graph, iname);
			cu = tsi_graph_lookup_codelet(f->graph, uname);
			if (!cu)
				fail_msg("missing codelet %s", uname);
			assert_non_null(ci);
			assert_string_equal(cu->name, uname);
			assert_int_equal(cu->n_fields, ci->n_fields);
			for (size_t k = 0; k < cu->n_fields; k++) {
				assert_string_equal(cu->fields[k].name, ci->fields[k].name);
				assert_int_equal(cu->fields[k].type, TSI_UNSIGNED_INT);
			}
			assert_int_equal(cu->state_bytes, ci->state_bytes);
			assert_int_equal(cu->code_bytes, ci->code_bytes);
			assert_null(cu->flops);
			assert_int_equal(cu->cycles(fields, cu->n_fields, NULL),
			                 ci->cycles(fields, ci->n_fields, NULL));
		}
	}
	for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++) {
		const tsi_codelet *ci = tsi_graph_lookup_codelet(f->graph, pairs[p][0]);
		const tsi_codelet *cu = tsi_graph_lookup_codelet(f->graph, pairs[p][1]);

		if (!cu)
			fail_msg("missing codelet %s", pairs[p][1]);
		assert_non_null(ci);
		assert_int_equal(cu->fields[0].type, TSI_UNSIGNED_INT);
		assert_int_equal(cu->state_bytes, ci->state_bytes);
		assert_int_equal(cu->code_bytes, ci->code_bytes);
		assert_int_equal(cu->supervisor, ci->supervisor);
		assert_int_equal(cu->cycles(fields, cu->n_fields, NULL),
		                 ci->cycles(fields, ci->n_fields, NULL));
	}
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		assert_null(tsi_graph_lookup_codelet(f->graph, absent[i]));
}

/* numpy broadcasting: a row vector [3], a column [2,1], a [1,3], a rank-0
 * scalar and a one-element vector against a [2,3] operand; the result has
 * a's shape and mapping. */
static void test_broadcast(void **state)
{
	fixture *f = *state;
	const float av[] = {1, 2, 3, 4, 5, 6};
	const float rv[] = {10, 20, 30};
	const float cv[] = {2, -1};
	const float sv[] = {0.5f};
	tsi_tensor *a = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 3), av, four_tiles, 4, "a");
	tsi_tensor *row = make_input(f, TSI_FLOAT, TSI_SHAPE(3), rv, tile_five, 1, "row");
	tsi_tensor *row2 = make_input(f, TSI_FLOAT, TSI_SHAPE(1, 3), rv, four_tiles, 4, "row2");
	tsi_tensor *col = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 1), cv, four_tiles, 2, "col");
	tsi_tensor *one = make_input(f, TSI_FLOAT, TSI_SHAPE(1), sv, tile_five, 1, "one");
	tsi_tensor *scalar = tsi_tensor_index(one, 0); /* rank 0 */
	tsi_tensor *sum = tsi_popops_add(f->graph, a, row, f->seq, "Bias");
	tsi_tensor *prod = tsi_popops_mul(f->graph, a, col, f->seq, "Col");
	tsi_tensor *mx = tsi_popops_map_binary(f->graph, TSI_POPOPS_MAXIMUM, a, row2, f->seq, NULL);
	tsi_tensor *diff = tsi_popops_sub(f->graph, a, scalar, f->seq, "Scalar");
	tsi_tensor *quot = tsi_popops_map_binary(f->graph, TSI_POPOPS_DIVIDE, a, one, f->seq, NULL);
	float out[6];

	assert_int_equal(tsi_tensor_rank(scalar), 0);
	assert_non_null(sum);
	assert_non_null(prod);
	assert_non_null(mx);
	assert_non_null(diff);
	assert_non_null(quot);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(tsi_graph_get_tile_of(f->graph, prod, i), four_tiles[i % 4]);
	assert_int_equal(tsi_tensor_dim(sum, 0), 2);
	assert_int_equal(tsi_tensor_dim(sum, 1), 3);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "sum", sum), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "prod", prod), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "mx", mx), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "diff", diff), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "quot", quot), TSI_OK);
	run(f);
	tsi_test_read_floats(f->engine, "sum", out, 6);
	for (size_t i = 0; i < 6; i++)
		assert_close(out[i], av[i] + rv[i % 3], 0);
	tsi_test_read_floats(f->engine, "prod", out, 6);
	for (size_t i = 0; i < 6; i++)
		assert_close(out[i], av[i] * cv[i / 3], 0);
	tsi_test_read_floats(f->engine, "mx", out, 6);
	for (size_t i = 0; i < 6; i++)
		assert_close(out[i], av[i] > rv[i % 3] ? av[i] : rv[i % 3], 0);
	tsi_test_read_floats(f->engine, "diff", out, 6);
	for (size_t i = 0; i < 6; i++)
		assert_close(out[i], av[i] - 0.5f, 0);
	tsi_test_read_floats(f->engine, "quot", out, 6);
	for (size_t i = 0; i < 6; i++)
		assert_close(out[i], av[i] / 0.5f, 0);
}

/* Shapes that do not broadcast are refused, naming the operation, both
 * shapes and the operand. */
static void test_broadcast_errors(void **state)
{
	fixture *f = *state;
	tsi_tensor *a = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(2, 3), "a");
	tsi_tensor *b = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(4), "b");
	tsi_tensor *big = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(1, 2, 3), "big");
	tsi_graph *g = NULL;

	assert_null(tsi_popops_add(f->graph, a, b, f->seq, "Add"));
	assert_int_equal(tsi_graph_error_code(f->graph), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "'Add'"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "{2,3} and {4}"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "'b' does not broadcast"));

	/* b may not have more dimensions than a */
	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 3), "a");
	big = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(1, 2, 3), "big");
	assert_int_equal(tsi_popops_map_binary_in_place(g, TSI_POPOPS_ADD, a, big,
	                                                tsi_prog_sequence(g, NULL), "AddInPlace"),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(g), "{2,3} and {1,2,3}"));
	assert_non_null(strstr(tsi_graph_get_error(g), "tsi_popops_map_binary_in_place"));
	tsi_graph_free(g);
}

/* In place: a = a + bias, then a = a * scalar, then an int a = a / b;
 * the variable itself changes and no result is made. */
static void test_in_place(void **state)
{
	fixture *f = *state;
	const float av[] = {1, 2, 3, 4, 5, 6};
	const float rv[] = {10, 20, 30};
	const float sv[] = {-2};
	const int32_t iv[] = {9, -9, 4};
	const int32_t jv[] = {2, 2, 0};
	tsi_tensor *a = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 3), av, four_tiles, 4, "a");
	tsi_tensor *row = make_input(f, TSI_FLOAT, TSI_SHAPE(3), rv, tile_five, 1, "row");
	tsi_tensor *s = make_input(f, TSI_FLOAT, TSI_SHAPE(1), sv, tile_five, 1, "s");
	tsi_tensor *i = make_raw(f, TSI_INT, TSI_SHAPE(3), iv, four_tiles, 3, "i");
	tsi_tensor *j = make_raw(f, TSI_INT, TSI_SHAPE(3), jv, four_tiles, 1, "j");
	float out[6];
	int32_t iout[3];

	assert_int_equal(tsi_popops_map_binary_in_place(f->graph, TSI_POPOPS_ADD, a, row, f->seq,
	                                                NULL),
	                 TSI_OK);
	assert_int_equal(tsi_popops_map_binary_in_place(f->graph, TSI_POPOPS_MULTIPLY, a, s, f->seq,
	                                                "Scale"),
	                 TSI_OK);
	assert_int_equal(tsi_popops_map_binary_in_place(f->graph, TSI_POPOPS_DIVIDE, i, j, f->seq,
	                                                NULL),
	                 TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "a", a), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "i", i), TSI_OK);
	run(f);
	tsi_test_read_floats(f->engine, "a", out, 6);
	for (size_t k = 0; k < 6; k++)
		assert_close(out[k], (av[k] + rv[k % 3]) * -2, 0);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "i", iout, sizeof(iout)), TSI_OK);
	assert_int_equal(iout[0], 4);
	assert_int_equal(iout[1], -4);
	assert_int_equal(iout[2], 0);
}

/* In place needs a writable operand: not a constant, no element twice. */
static void test_in_place_errors(void **state)
{
	fixture *f = *state;
	const float cv[] = {1, 2, 3};
	tsi_tensor *c = tsi_graph_add_constant_float(f->graph, TSI_FLOAT, TSI_SHAPE(3), cv, "c");
	tsi_tensor *v = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(1, 3), "v");
	tsi_graph *g = NULL;
	tsi_tensor *w;

	assert_int_equal(tsi_popops_map_binary_in_place(f->graph, TSI_POPOPS_ADD, c, c, f->seq,
	                                                "Const"),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "cannot write to 'c'"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "'Const'"));
	/* after an error a NULL operand is quiet */
	assert_int_equal(tsi_popops_map_binary_in_place(f->graph, TSI_POPOPS_ADD, NULL, v, f->seq,
	                                                NULL),
	                 TSI_ERR_INVALID_GRAPH);
	assert_int_equal(tsi_popops_map_unary_in_place(f->graph, TSI_POPOPS_NEGATE, NULL, f->seq,
	                                               NULL),
	                 TSI_ERR_INVALID_GRAPH);
	assert_int_equal(tsi_popops_map_binary_in_place(NULL, TSI_POPOPS_ADD, v, v, f->seq, NULL),
	                 TSI_ERR_INVALID_ARGUMENT);

	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(1, 3), "v");
	w = tsi_tensor_broadcast(v, 2, 0); /* [2,3], each element twice */
	assert_int_equal(tsi_popops_map_unary_in_place(g, TSI_POPOPS_SQUARE, w,
	                                               tsi_prog_sequence(g, NULL), "Sq"),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(g), "appear more than once"));
	assert_non_null(strstr(tsi_graph_get_error(g), "'Sq'"));
	tsi_graph_free(g);
}

/* Every unary operation on floats, out of place and in place. */
static void test_unary_float(void **state)
{
	fixture *f = *state;
	const float av[] = {-2.5f, -0.0f, 0.25f, 3, 1e-3f, 7.5f};
	const float pv[] = {0.5f, 1, 2, 10, 1e-3f, 7.5f};
	tsi_tensor *a = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 3), av, four_tiles, 4, "a");
	tsi_tensor *p = make_input(f, TSI_FLOAT, TSI_SHAPE(6), pv, four_tiles, 3, "p");
	tsi_tensor *ip = make_input(f, TSI_FLOAT, TSI_SHAPE(6), av, four_tiles, 2, "ip");
	float out[6];
	char h[16];

	for (int op = 0; op < TSI_POPOPS_UNARY_OP_COUNT; op++) {
		bool positive = op == TSI_POPOPS_LOGARITHM || op == TSI_POPOPS_SQRT;
		tsi_tensor *r = tsi_popops_map_unary(f->graph, (tsi_popops_unary_op)op, positive ? p : a,
		                                     f->seq, NULL);

		assert_non_null(r);
		snprintf(h, sizeof(h), "u%d", op);
		assert_int_equal(tsi_graph_create_host_read(f->graph, h, r), TSI_OK);
	}
	assert_int_equal(tsi_popops_map_unary_in_place(f->graph, TSI_POPOPS_ABSOLUTE, ip, f->seq,
	                                               NULL),
	                 TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "ip", ip), TSI_OK);
	run(f);
	for (int op = 0; op < TSI_POPOPS_UNARY_OP_COUNT; op++) {
		snprintf(h, sizeof(h), "u%d", op);
		tsi_test_read_floats(f->engine, h, out, 6);
		for (size_t i = 0; i < 6; i++) {
			float x = av[i], want;

			switch (op) {
			case TSI_POPOPS_NEGATE:
				want = -x;
				break;
			case TSI_POPOPS_ABSOLUTE:
				want = fabsf(x);
				break;
			case TSI_POPOPS_EXPONENT:
				want = expf(x);
				break;
			case TSI_POPOPS_LOGARITHM:
				want = logf(pv[i]);
				break;
			case TSI_POPOPS_SQRT:
				want = sqrtf(pv[i]);
				break;
			case TSI_POPOPS_SQUARE:
				want = x * x;
				break;
			default:
				want = x > 0 ? 1.0f : x < 0 ? -1.0f : 0.0f;
				break;
			}
			assert_close(out[i], want, 1e-6 * fabsf(want));
		}
	}
	tsi_test_read_floats(f->engine, "ip", out, 6);
	for (size_t i = 0; i < 6; i++)
		assert_close(out[i], fabsf(av[i]), 0);
}

/* Half unary results are the rounding of the float result; int has
 * negate, absolute value, square and signum (wrapping), and no exp. */
static void test_unary_half_int(void **state)
{
	fixture *f = *state;
	const float hv[] = {-1.5f, 0.1f, 2, 3.25f};
	const int32_t iv[] = {-5, 0, 70000, INT32_MIN};
	tsi_tensor *h = make_input(f, TSI_HALF, TSI_SHAPE(4), hv, four_tiles, 4, "h");
	tsi_tensor *i = make_raw(f, TSI_INT, TSI_SHAPE(4), iv, four_tiles, 4, "i");
	tsi_tensor *he = tsi_popops_map_unary(f->graph, TSI_POPOPS_EXPONENT, h, f->seq, NULL);
	tsi_tensor *hs = tsi_popops_map_unary(f->graph, TSI_POPOPS_SQUARE, h, f->seq, NULL);
	tsi_tensor *in = tsi_popops_map_unary(f->graph, TSI_POPOPS_NEGATE, i, f->seq, NULL);
	tsi_tensor *ia = tsi_popops_map_unary(f->graph, TSI_POPOPS_ABSOLUTE, i, f->seq, NULL);
	tsi_tensor *isq = tsi_popops_map_unary(f->graph, TSI_POPOPS_SQUARE, i, f->seq, NULL);
	tsi_tensor *isg = tsi_popops_map_unary(f->graph, TSI_POPOPS_SIGNUM, i, f->seq, NULL);
	uint16_t hout[4];
	int32_t iout[4];

	assert_non_null(he);
	assert_non_null(hs);
	assert_non_null(in);
	assert_non_null(ia);
	assert_non_null(isq);
	assert_non_null(isg);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "he", he), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "hs", hs), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "in", in), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "ia", ia), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "isq", isq), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "isg", isg), TSI_OK);
	run(f);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "he", hout, sizeof(hout)), TSI_OK);
	for (size_t k = 0; k < 4; k++)
		assert_int_equal(hout[k],
		                 tsi_half_from_float(expf(tsi_half_to_float(tsi_half_from_float(hv[k])))));
	assert_int_equal(tsi_engine_read_tensor(f->engine, "hs", hout, sizeof(hout)), TSI_OK);
	for (size_t k = 0; k < 4; k++) {
		float x = tsi_half_to_float(tsi_half_from_float(hv[k]));

		assert_int_equal(hout[k], tsi_half_from_float(x * x));
	}
	assert_int_equal(tsi_engine_read_tensor(f->engine, "in", iout, sizeof(iout)), TSI_OK);
	assert_int_equal(iout[0], 5);
	assert_int_equal(iout[2], -70000);
	assert_int_equal(iout[3], INT32_MIN);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "ia", iout, sizeof(iout)), TSI_OK);
	assert_int_equal(iout[0], 5);
	assert_int_equal(iout[1], 0);
	assert_int_equal(iout[3], INT32_MIN);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "isq", iout, sizeof(iout)), TSI_OK);
	assert_int_equal(iout[0], 25);
	assert_int_equal(iout[2], (int32_t)(uint32_t)(70000ull * 70000ull));
	assert_int_equal(tsi_engine_read_tensor(f->engine, "isg", iout, sizeof(iout)), TSI_OK);
	assert_int_equal(iout[0], -1);
	assert_int_equal(iout[1], 0);
	assert_int_equal(iout[2], 1);
	assert_int_equal(iout[3], -1);

	assert_null(tsi_popops_map_unary(f->graph, TSI_POPOPS_LOGARITHM, i, f->seq, "LogInt"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "LOGARITHM is not supported for int"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "'LogInt'"));
}

/* Unsigned int has square (wrapping), as Poplar has; negate, absolute
 * value and signum are refused naming the types that have them, and so
 * are the transcendentals. */
static void test_unary_unsigned(void **state)
{
	fixture *f = *state;
	const uint32_t uv[] = {3, 70000, UINT32_MAX, 0};
	tsi_tensor *u = make_raw(f, TSI_UNSIGNED_INT, TSI_SHAPE(4), uv, four_tiles, 4, "u");
	tsi_tensor *w = make_raw(f, TSI_UNSIGNED_INT, TSI_SHAPE(4), uv, four_tiles, 2, "w");
	tsi_tensor *sq = tsi_popops_map_unary(f->graph, TSI_POPOPS_SQUARE, u, f->seq, NULL);
	uint32_t out[4];

	assert_non_null(sq);
	assert_int_equal(tsi_tensor_type(sq), TSI_UNSIGNED_INT);
	assert_int_equal(tsi_popops_map_unary_in_place(f->graph, TSI_POPOPS_SQUARE, w, f->seq, NULL),
	                 TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "sq", sq), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "w", w), TSI_OK);
	run(f);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "sq", out, sizeof(out)), TSI_OK);
	assert_int_equal(out[0], 9);
	assert_int_equal(out[1], (uint32_t)(70000ull * 70000ull));
	assert_int_equal(out[2], 1); /* (2^32 - 1)^2 mod 2^32 */
	assert_int_equal(out[3], 0);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "w", out, sizeof(out)), TSI_OK);
	for (size_t k = 0; k < 4; k++)
		assert_int_equal(out[k], uv[k] * uv[k]);

	assert_null(tsi_popops_map_unary(f->graph, TSI_POPOPS_NEGATE, u, f->seq, "NegU"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph),
	                       "'NegU': NEGATE is not supported for unsigned int "
	                       "(float, half or int only)"));
}

/* The other unary refusals for unsigned int, each on a fresh graph (the
 * graph keeps its first error). */
static void test_unary_unsigned_refused(void **state)
{
	fixture *f = *state;
	static const struct {
		tsi_popops_unary_op op;
		const char *message;
	} refused[] = {
		{TSI_POPOPS_ABSOLUTE,
		 "ABSOLUTE is not supported for unsigned int (float, half or int only)"},
		{TSI_POPOPS_SIGNUM, "SIGNUM is not supported for unsigned int (float, half or int only)"},
		{TSI_POPOPS_EXPONENT, "EXPONENT is not supported for unsigned int (float or half only)"},
	};

	for (size_t k = 0; k < sizeof(refused) / sizeof(refused[0]); k++) {
		tsi_graph *g = NULL;
		tsi_tensor *u;

		assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK);
		assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
		u = tsi_graph_add_variable(g, TSI_UNSIGNED_INT, TSI_SHAPE(3), "u");
		assert_int_equal(tsi_popops_map_unary_in_place(g, refused[k].op, u,
		                                               tsi_prog_sequence(g, NULL), NULL),
		                 TSI_ERR_INVALID_ARGUMENT);
		if (!strstr(tsi_graph_get_error(g), refused[k].message))
			fail_msg("got '%s', want '%s'", tsi_graph_get_error(g), refused[k].message);
		tsi_graph_free(g);
	}
}

/* a += scale * b for float (b broadcast), half and int; an int scale must
 * be whole. */
static void test_scaled_add(void **state)
{
	fixture *f = *state;
	const float av[] = {1, 2, 3, 4, 5, 6, 7, 8};
	const float bv[] = {0.5f, -1, 2, 4};
	const int32_t iv[] = {1, -2, 3};
	const int32_t jv[] = {10, 20, -30};
	tsi_tensor *a = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 4), av, four_tiles, 4, "a");
	tsi_tensor *b = make_input(f, TSI_FLOAT, TSI_SHAPE(4), bv, tile_five, 1, "b");
	tsi_tensor *h = make_input(f, TSI_HALF, TSI_SHAPE(4), av, four_tiles, 2, "h");
	tsi_tensor *hb = make_input(f, TSI_HALF, TSI_SHAPE(4), bv, four_tiles, 3, "hb");
	tsi_tensor *i = make_raw(f, TSI_INT, TSI_SHAPE(3), iv, four_tiles, 4, "i");
	tsi_tensor *j = make_raw(f, TSI_INT, TSI_SHAPE(3), jv, tile_five, 1, "j");
	float out[8];
	uint16_t hout[4];
	int32_t iout[3];

	assert_int_equal(tsi_popops_scaled_add_to(f->graph, a, b, 0.5f, f->seq, NULL), TSI_OK);
	assert_int_equal(tsi_popops_scaled_add_to(f->graph, h, hb, -2.0f, f->seq, "HalfAxpy"),
	                 TSI_OK);
	assert_int_equal(tsi_popops_scaled_add_to(f->graph, i, j, 3.0f, f->seq, "IntAxpy"), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "a", a), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "h", h), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "i", i), TSI_OK);
	run(f);
	tsi_test_read_floats(f->engine, "a", out, 8);
	for (size_t k = 0; k < 8; k++)
		assert_close(out[k], av[k] + 0.5f * bv[k % 4], 0);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "h", hout, sizeof(hout)), TSI_OK);
	for (size_t k = 0; k < 4; k++)
		assert_int_equal(hout[k], tsi_half_from_float(av[k] - 2.0f * bv[k]));
	assert_int_equal(tsi_engine_read_tensor(f->engine, "i", iout, sizeof(iout)), TSI_OK);
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(iout[k], iv[k] + 3 * jv[k]);

	assert_int_equal(tsi_popops_scaled_add_to(f->graph, i, j, 0.5f, f->seq, "Half"),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "scale 0.5 is not a whole number"));
}

/* Unsigned scaled add wraps (sums above INT32_MAX and past 2^32); a
 * negative or fractional scale is refused for unsigned operands. */
static void test_scaled_add_unsigned(void **state)
{
	fixture *f = *state;
	const uint32_t av[] = {1, 4000000000u, 5, 2000000000u};
	const uint32_t bv[] = {2, 300000000u, 0, 100000000u};
	tsi_tensor *a = make_raw(f, TSI_UNSIGNED_INT, TSI_SHAPE(4), av, four_tiles, 4, "a");
	tsi_tensor *b = make_raw(f, TSI_UNSIGNED_INT, TSI_SHAPE(4), bv, tile_five, 1, "b");
	uint32_t out[4];

	assert_int_equal(tsi_popops_scaled_add_to(f->graph, a, b, 3.0f, f->seq, "UAxpy"), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "a", a), TSI_OK);
	run(f);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "a", out, sizeof(out)), TSI_OK);
	for (size_t k = 0; k < 4; k++)
		assert_int_equal(out[k], av[k] + 3u * bv[k]);
	assert_int_equal(out[1], (uint32_t)(4900000000ull & 0xffffffffu));
	assert_int_equal(out[3], 2300000000u);

	assert_int_equal(tsi_popops_scaled_add_to(f->graph, a, b, -1.0f, f->seq, "Neg"),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "'Neg': scale -1 is not a whole number "
	                                                  "from 0 to 2^32 - 1"));
}

/* Fill sets every element (converted to the type) and only those of the
 * tensor given: a slice leaves the rest alone. */
static void test_fill(void **state)
{
	fixture *f = *state;
	const float av[] = {1, 2, 3, 4, 5, 6};
	tsi_tensor *a = make_input(f, TSI_FLOAT, TSI_SHAPE(6), av, four_tiles, 4, "a");
	tsi_tensor *i = tsi_graph_add_variable(f->graph, TSI_INT, TSI_SHAPE(5), "i");
	tsi_tensor *h = tsi_graph_add_variable(f->graph, TSI_HALF, TSI_SHAPE(3), "h");
	tsi_tensor *u = tsi_graph_add_variable(f->graph, TSI_UNSIGNED_CHAR, TSI_SHAPE(300), "u");
	const tsi_tensor *c;
	float out[6];
	int32_t iout[5];
	uint16_t hout[3];
	uint8_t uout[300];

	assert_int_equal(tsi_graph_map_linearly(f->graph, i, 1), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, h, 3), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, u, 1), TSI_OK);
	assert_int_equal(tsi_popops_fill(f->graph, tsi_tensor_slice(a, 1, 4), 2.5, f->seq, NULL),
	                 TSI_OK);
	assert_int_equal(tsi_popops_fill(f->graph, i, -7.9, f->seq, "FillInt"), TSI_OK);
	assert_int_equal(tsi_popops_fill(f->graph, h, 0.1, f->seq, "FillHalf"), TSI_OK);
	assert_int_equal(tsi_popops_fill(f->graph, u, 200, f->seq, "FillBytes"), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "a", a), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "i", i), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "h", h), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "u", u), TSI_OK);
	run(f);
	tsi_test_read_floats(f->engine, "a", out, 6);
	for (size_t k = 0; k < 6; k++)
		assert_close(out[k], k >= 1 && k < 4 ? 2.5f : av[k], 0);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "i", iout, sizeof(iout)), TSI_OK);
	for (size_t k = 0; k < 5; k++)
		assert_int_equal(iout[k], -7);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "h", hout, sizeof(hout)), TSI_OK);
	for (size_t k = 0; k < 3; k++)
		assert_int_equal(hout[k], tsi_half_from_float(0.1f));
	assert_int_equal(tsi_engine_read_tensor(f->engine, "u", uout, sizeof(uout)), TSI_OK);
	for (size_t k = 0; k < 300; k++)
		assert_int_equal(uout[k], 200);

	c = tsi_graph_add_constant_fill(f->graph, TSI_FLOAT, TSI_SHAPE(2), 1.0, "k");
	assert_int_equal(tsi_popops_fill(f->graph, c, 0, f->seq, "FillConst"),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "cannot write to 'k'"));
}

/* Casts convert as tsi_type_store does: float to int truncates toward
 * zero and saturates (NaN gives 0), int to half rounds to nearest even
 * (and overflows to infinity), half to float is exact, and a cast to the
 * same type is a copy into a new variable. */
static void test_cast(void **state)
{
	fixture *f = *state;
	const float fv[] = {1.9f, -1.9f, 3e9f, NAN, -0.5f, -3e9f};
	const int32_t iv[] = {1, 2049, -3, 70000};
	const uint16_t hv[] = {0x3c00, 0xc100, 0x0001, 0x7bff}; /* 1, -2.5, tiny, 65504 */
	tsi_tensor *a = make_input(f, TSI_FLOAT, TSI_SHAPE(2, 3), fv, four_tiles, 4, "a");
	tsi_tensor *i = make_raw(f, TSI_INT, TSI_SHAPE(4), iv, four_tiles, 2, "i");
	tsi_tensor *h = make_raw(f, TSI_HALF, TSI_SHAPE(4), hv, tile_five, 1, "h");
	tsi_tensor *f2i = tsi_popops_cast(f->graph, a, TSI_INT, f->seq, NULL);
	tsi_tensor *i2h = tsi_popops_cast(f->graph, i, TSI_HALF, f->seq, "IntToHalf");
	tsi_tensor *h2f = tsi_popops_cast(f->graph, h, TSI_FLOAT, f->seq, "HalfToFloat");
	tsi_tensor *f2f = tsi_popops_cast(f->graph, a, TSI_FLOAT, f->seq, "Same");
	tsi_tensor *f2b = tsi_popops_cast(f->graph, a, TSI_BOOL, f->seq, "ToBool");
	int32_t iout[6];
	uint16_t hout[4];
	float out[6];
	uint8_t bout[6];

	assert_non_null(f2i);
	assert_non_null(i2h);
	assert_non_null(h2f);
	assert_non_null(f2f);
	assert_non_null(f2b);
	assert_string_equal(tsi_tensor_name(f2i), "Cast/out");
	assert_int_equal(tsi_tensor_type(f2i), TSI_INT);
	assert_int_equal(tsi_tensor_rank(f2i), 2);
	assert_ptr_not_equal(f2f, a);
	for (size_t k = 0; k < 6; k++)
		assert_int_equal(tsi_graph_get_tile_of(f->graph, f2i, k), four_tiles[k % 4]);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "f2i", f2i), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "i2h", i2h), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "h2f", h2f), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "f2f", f2f), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "f2b", f2b), TSI_OK);
	run(f);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "f2i", iout, sizeof(iout)), TSI_OK);
	assert_int_equal(iout[0], 1);
	assert_int_equal(iout[1], -1);
	assert_int_equal(iout[2], INT32_MAX);
	assert_int_equal(iout[3], 0);
	assert_int_equal(iout[4], 0);
	assert_int_equal(iout[5], INT32_MIN);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "i2h", hout, sizeof(hout)), TSI_OK);
	assert_close(tsi_half_to_float(hout[0]), 1, 0);
	assert_close(tsi_half_to_float(hout[1]), 2048, 0); /* ties to even */
	assert_close(tsi_half_to_float(hout[2]), -3, 0);
	assert_int_equal(hout[3], 0x7c00); /* +inf */
	tsi_test_read_floats(f->engine, "h2f", out, 4);
	for (size_t k = 0; k < 4; k++)
		assert_close(out[k], tsi_half_to_float(hv[k]), 0);
	assert_close(out[3], 65504, 0);
	tsi_test_read_floats(f->engine, "f2f", out, 6);
	for (size_t k = 0; k < 6; k++)
		if (k != 3)
			assert_close(out[k], fv[k], 0);
	assert_true(isnan(out[3]));
	assert_int_equal(tsi_engine_read_tensor(f->engine, "f2b", bout, sizeof(bout)), TSI_OK);
	for (size_t k = 0; k < 6; k++)
		assert_int_equal(bout[k], 1); /* all nonzero, NaN included */
}

/* One-hot: unsigned indices with one out of range (an all-zero row) into
 * a float matrix whose rows are split over tiles; int indices with a
 * negative one into half. */
static void test_one_hot(void **state)
{
	fixture *f = *state;
	const uint32_t uv[] = {0, 2, 7, 1, 3};
	const int32_t sv[] = {-1, 2, 0};
	const unsigned three[] = {2, 6, 7};
	tsi_tensor *u = make_raw(f, TSI_UNSIGNED_INT, TSI_SHAPE(5), uv, tile_five, 1, "u");
	tsi_tensor *s = make_raw(f, TSI_INT, TSI_SHAPE(3), sv, four_tiles, 3, "s");
	tsi_tensor *enc = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(5, 4), "enc");
	tsi_tensor *henc = tsi_graph_add_variable(f->graph, TSI_HALF, TSI_SHAPE(3, 3), "henc");
	tsi_tensor *flat = tsi_tensor_flatten(enc);
	float out[20];
	uint16_t hout[9];

	/* element k of enc on tile three[k % 3]: every row spans three tiles */
	for (size_t k = 0; k < 20; k++)
		assert_int_equal(tsi_graph_set_tile_mapping(f->graph, tsi_tensor_slice(flat, k, k + 1),
		                                            three[k % 3]),
		                 TSI_OK);
	assert_int_equal(tsi_graph_map_linearly(f->graph, henc, 1), TSI_OK);
	assert_int_equal(tsi_popops_encode_one_hot(f->graph, u, enc, f->seq, NULL), TSI_OK);
	assert_int_equal(tsi_popops_encode_one_hot(f->graph, s, henc, f->seq, "OneHotHalf"), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "enc", enc), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "henc", henc), TSI_OK);
	run(f);
	tsi_test_read_floats(f->engine, "enc", out, 20);
	for (size_t r = 0; r < 5; r++)
		for (size_t c = 0; c < 4; c++)
			assert_close(out[r * 4 + c], uv[r] == c ? 1 : 0, 0);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "henc", hout, sizeof(hout)), TSI_OK);
	for (size_t r = 0; r < 3; r++)
		for (size_t c = 0; c < 3; c++)
			assert_close(tsi_half_to_float(hout[r * 3 + c]), sv[r] == (int32_t)c ? 1 : 0, 0);
}

/* One-hot errors: encoded must be [N, C] with N the number of indices,
 * indices must be integers of rank 1. */
static void test_one_hot_errors(void **state)
{
	fixture *f = *state;
	tsi_tensor *idx = tsi_graph_add_variable(f->graph, TSI_UNSIGNED_INT, TSI_SHAPE(4), "idx");
	tsi_tensor *flt = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(4), "flt");
	tsi_tensor *rank1 = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(4), "rank1");
	tsi_tensor *wrong_n = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(3, 4), "wrongN");
	tsi_graph *g = NULL;

	assert_int_equal(tsi_popops_encode_one_hot(f->graph, idx, rank1, f->seq, NULL),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "'EncodeOneHot'"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "encoded 'rank1' has shape {4}"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "[N, C]"));

	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	idx = tsi_graph_add_variable(g, TSI_UNSIGNED_INT, TSI_SHAPE(4), "idx");
	wrong_n = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "wrongN");
	assert_int_equal(tsi_popops_encode_one_hot(g, idx, wrong_n, tsi_prog_sequence(g, NULL), NULL),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(g), "N = 4"));
	tsi_graph_free(g);

	g = NULL;
	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	flt = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "flt");
	wrong_n = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 4), "enc");
	assert_int_equal(tsi_popops_encode_one_hot(g, flt, wrong_n, tsi_prog_sequence(g, NULL), "OH"),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(g), "indices 'flt' must be a rank-1 int"));
	tsi_graph_free(g);

	/* Unsigned int is an element type of the maps, not of one-hot's
	 * output: refused with the types it has, not a missing codelet. */
	g = NULL;
	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	idx = tsi_graph_add_variable(g, TSI_UNSIGNED_INT, TSI_SHAPE(4), "idx");
	wrong_n = tsi_graph_add_variable(g, TSI_UNSIGNED_INT, TSI_SHAPE(4, 4), "uenc");
	assert_int_equal(tsi_popops_encode_one_hot(g, idx, wrong_n, tsi_prog_sequence(g, NULL), NULL),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(g),
	                       "encoded 'uenc' has type unsigned int (float, half or int only)"));
	tsi_graph_free(g);
}

/* Work split: a tile's elements go to one vertex per 64, at most six. A
 * tile of 500 elements makes six vertices, one of 200 makes three, one
 * of 40 makes one; the values are right whatever the split. */
static void test_worker_split(void **state)
{
	fixture *f = *state;
	float *av = malloc(1000 * sizeof(*av));
	float *out = malloc(1000 * sizeof(*out));
	const unsigned two[] = {0, 1};
	tsi_tensor *big, *mid, *small, *r;
	tsi_compute_set *cs = tsi_graph_add_compute_set(f->graph, "Split");

	assert_non_null(av);
	assert_non_null(out);
	for (size_t i = 0; i < 1000; i++)
		av[i] = (float)i;
	big = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(1000), "big");
	mid = make_input(f, TSI_FLOAT, TSI_SHAPE(200), av, tile_five, 1, "mid");
	small = make_input(f, TSI_FLOAT, TSI_SHAPE(40), av, tile_five, 1, "small");
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, tsi_tensor_slice(big, 0, 500), two[0]),
	                 TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, tsi_tensor_slice(big, 500, 1000),
	                                            two[1]),
	                 TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f->graph, "big", big), TSI_OK);
	r = tsi_popops_map_binary_cs(f->graph, TSI_POPOPS_MULTIPLY, big, big, cs, NULL);
	assert_non_null(r);
	assert_int_equal(tsi_compute_set_num_vertices(cs), 12);
	assert_non_null(tsi_popops_map_binary_cs(f->graph, TSI_POPOPS_ADD, mid, mid, cs, "mid"));
	assert_int_equal(tsi_compute_set_num_vertices(cs), 12 + 3);
	assert_non_null(tsi_popops_map_binary_cs(f->graph, TSI_POPOPS_ADD, small, small, cs, "small"));
	assert_int_equal(tsi_compute_set_num_vertices(cs), 12 + 3 + 1);
	assert_int_equal(tsi_sequence_add(f->seq, tsi_prog_execute(f->graph, cs)), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "r", r), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_floats(f->engine, "big", av, 1000);
	assert_int_equal(tsi_engine_run(f->engine, 0), TSI_OK);
	tsi_test_read_floats(f->engine, "r", out, 1000);
	for (size_t i = 0; i < 1000; i++)
		assert_close(out[i], av[i] * av[i], 0);
	free(av);
	free(out);
}

/* The new vertex types are registered under Poplar's names; the ones
 * that make no sense (int power, a cast to the same type) are not. */
static void test_more_codelet_names(void **state)
{
	fixture *f = *state;
	static const char *const present[] = {
		"popops::BinaryOp1DInPlace<popops::expr::BinaryOpType::POWER,float>",
		"popops::BroadcastScalar1D<popops::expr::BinaryOpType::DIVIDE,int>",
		"popops::BroadcastScalar1DInPlace<popops::expr::BinaryOpType::MAXIMUM,half>",
		"popops::UnaryOp1D<popops::expr::UnaryOpType::EXPONENT,float>",
		"popops::UnaryOp1DInPlace<popops::expr::UnaryOpType::SQRT,half>",
		"popops::UnaryOp1D<popops::expr::UnaryOpType::SIGNUM,int>",
		"popops::ScaledAddSupervisor<float,float,true>",
		"popops::ScaledAddSupervisor<half,half,true>",
		"popops::Fill<float>",
		"popops::Fill<unsigned char>",
		"popops::Cast<float,half>",
		"popops::Cast<unsigned int,bool>",
		"popops::EncodeOneHot<unsigned int,float>",
		"popops::EncodeOneHot<int,half>",
	};
	static const char *const absent[] = {
		"popops::BinaryOp1D<popops::expr::BinaryOpType::POWER,int>",
		"popops::UnaryOp1D<popops::expr::UnaryOpType::LOGARITHM,int>",
		"popops::Cast<float,float>",
	};
	const tsi_codelet *c;

	for (size_t i = 0; i < sizeof(present) / sizeof(present[0]); i++) {
		c = tsi_graph_lookup_codelet(f->graph, present[i]);
		if (!c)
			fail_msg("missing codelet %s", present[i]);
		assert_non_null(c->cycles);
		assert_true(c->state_bytes > 0);
		assert_true(c->code_bytes > 0);
	}
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		assert_null(tsi_graph_lookup_codelet(f->graph, absent[i]));
	c = tsi_graph_lookup_codelet(f->graph, "popops::ScaledAddSupervisor<float,float,true>");
	assert_true(c->supervisor);
	assert_string_equal(c->fields[0].name, "A");
	assert_int_equal(c->fields[0].dir, TSI_FIELD_INOUT);
	assert_string_equal(c->fields[2].name, "scaleB");
	assert_non_null(c->flops);
	c = tsi_graph_lookup_codelet(f->graph, "popops::Cast<float,half>");
	assert_string_equal(c->fields[0].name, "src");
	assert_int_equal(c->fields[1].type, TSI_HALF);
	c = tsi_graph_lookup_codelet(f->graph,
	                             "popops::UnaryOp1D<popops::expr::UnaryOpType::EXPONENT,float>");
	assert_non_null(c->flops);
	c = tsi_graph_lookup_codelet(f->graph,
	                             "popops::BinaryOp1D<popops::expr::BinaryOpType::ADD,int>");
	assert_null(c->flops);
}

/* Every entry point with a NULL graph fails with INVALID_ARGUMENT, and
 * with a NULL tensor after an earlier error returns quietly. */
static void test_null_everywhere(void **state)
{
	fixture *f = *state;
	tsi_tensor *a = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(2), "a");
	tsi_tensor *i = tsi_graph_add_variable(f->graph, TSI_UNSIGNED_INT, TSI_SHAPE(2), "i");
	tsi_tensor *e = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(2, 2), "e");
	size_t dim = 0;
	char first[256];

	assert_null(tsi_popops_map_unary(NULL, TSI_POPOPS_NEGATE, a, f->seq, NULL));
	assert_int_equal(tsi_popops_map_unary_in_place(NULL, TSI_POPOPS_NEGATE, a, f->seq, NULL),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_popops_scaled_add_to(NULL, a, a, 1, f->seq, NULL),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_popops_fill(NULL, a, 1, f->seq, NULL), TSI_ERR_INVALID_ARGUMENT);
	assert_null(tsi_popops_cast(NULL, a, TSI_HALF, f->seq, NULL));
	assert_int_equal(tsi_popops_encode_one_hot(NULL, i, e, f->seq, NULL),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_string_equal(tsi_graph_get_error(f->graph), "");

	/* the first NULL is recorded; the rest are quiet */
	assert_null(tsi_popops_map_unary(f->graph, TSI_POPOPS_NEGATE, NULL, f->seq, "Neg"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "'Neg': operand is NULL"));
	snprintf(first, sizeof(first), "%s", tsi_graph_get_error(f->graph));
	assert_int_equal(tsi_popops_map_unary_in_place(f->graph, TSI_POPOPS_NEGATE, NULL, f->seq,
	                                               NULL),
	                 TSI_ERR_INVALID_GRAPH);
	assert_int_equal(tsi_popops_scaled_add_to(f->graph, a, NULL, 1, f->seq, NULL),
	                 TSI_ERR_INVALID_GRAPH);
	assert_int_equal(tsi_popops_fill(f->graph, NULL, 1, f->seq, NULL), TSI_ERR_INVALID_GRAPH);
	assert_null(tsi_popops_cast(f->graph, NULL, TSI_HALF, f->seq, NULL));
	assert_int_equal(tsi_popops_encode_one_hot(f->graph, i, NULL, f->seq, NULL),
	                 TSI_ERR_INVALID_GRAPH);
	assert_int_equal(tsi_popops_map_binary_in_place(f->graph, TSI_POPOPS_ADD, a, NULL, f->seq,
	                                                NULL),
	                 TSI_ERR_INVALID_GRAPH);
	assert_null(tsi_popops_reduce(f->graph, NULL, &dim, 1, TSI_POPOPS_REDUCE_ADD, 1, TSI_FLOAT,
	                              f->seq, NULL));
	assert_null(tsi_popops_map_binary(f->graph, TSI_POPOPS_DIVIDE, a, a, NULL, NULL));
	assert_string_equal(tsi_graph_get_error(f->graph), first);
}

/* Operations on a virtual graph over tiles [4, 8) place everything there
 * (a reduction's partials and output included) and compute the same. */
static void test_virtual_graph(void **state)
{
	fixture *f = *state;
	tsi_graph *vg = tsi_graph_create_virtual(f->graph, 4, 8);
	size_t dim0 = 0;
	float x[24], out[24];
	tsi_tensor *a, *sq, *sum;

	assert_non_null(vg);
	a = tsi_graph_add_variable(vg, TSI_FLOAT, TSI_SHAPE(6, 4), "va");
	assert_int_equal(tsi_graph_map_linearly(vg, a, 1), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f->graph, "va", a), TSI_OK);
	sq = tsi_popops_map_unary(vg, TSI_POPOPS_SQUARE, a, f->seq, NULL);
	sum = tsi_popops_reduce(vg, sq, &dim0, 1, TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT, f->seq,
	                        "VSum");
	assert_non_null(sq);
	assert_non_null(sum);
	for (size_t i = 0; i < 24; i++) {
		assert_int_equal(tsi_graph_get_tile_of(f->graph, sq, i),
		                 4 + tsi_graph_get_tile_of(vg, a, i));
		assert_true(tsi_graph_get_tile_of(f->graph, sq, i) >= 4);
	}
	for (size_t i = 0; i < 4; i++)
		assert_true(tsi_graph_get_tile_of(f->graph, sum, i) >= 4);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "sum", sum), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	for (size_t i = 0; i < 24; i++)
		x[i] = (float)i - 10.0f;
	assert_int_equal(tsi_engine_write_tensor(f->engine, "va", x, sizeof(x)), TSI_OK);
	assert_int_equal(tsi_engine_run(f->engine, 0), TSI_OK);
	tsi_test_read_floats(f->engine, "sum", out, 4);
	for (size_t c = 0; c < 4; c++) {
		float want = 0;

		for (size_t r = 0; r < 6; r++)
			want += x[r * 4 + c] * x[r * 4 + c];
		assert_close(out[c], want, 0);
	}
}

/* Runs every test with a fresh fixture. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_float_add_sub_mul, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_transposed_operand, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_int, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_half, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_shape_mismatch, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_type_mismatch, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_unsupported_type, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_null_operand, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_missing_codelets, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_codelet_names, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_vertices_per_tile, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_one_compute_set, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_unmapped_operand, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_every_binary_float, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_binary_half, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_binary_int, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_binary_unsigned, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_unsigned_codelets, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_broadcast, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_broadcast_errors, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_in_place, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_in_place_errors, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_unary_float, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_unary_half_int, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_unary_unsigned, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_unary_unsigned_refused, setup,
		                                tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_scaled_add, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_scaled_add_unsigned, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_fill, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_cast, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_one_hot, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_one_hot_errors, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_worker_split, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_more_codelet_names, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_null_everywhere, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_virtual_graph, setup, tsi_test_model_delete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
