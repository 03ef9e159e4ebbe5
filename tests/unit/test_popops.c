/*
 * Unit tests of the small popops library (tilescope/popops.h): results of
 * add, sub and mul for float, half and int, operands that are views, the
 * mapping of results, the compute sets and vertices built, and the errors
 * recorded for bad operands.
 */
#include "test-util.h"

#include <tilescope/ipu.h>
#include <tilescope/popops.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A small IPU Model (8 tiles) with a graph that has the popops codelets. */
typedef struct fixture {
	tsi_device *device;
	tsi_graph *graph;
	tsi_program *seq;
	tsi_engine *engine;
} fixture;

/* Creates the fixture: device, graph with codelets, empty sequence. */
static int setup(void **state)
{
	tsi_ipu_model_options opts = TSI_IPU_MODEL_OPTIONS_INIT;
	fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	opts.tiles_per_ipu = 8;
	assert_int_equal(tsi_device_new_ipu_model(&f->device, &opts), TSI_OK);
	assert_int_equal(tsi_graph_new(&f->graph, tsi_device_get_target(f->device), 1), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(f->graph), TSI_OK);
	f->seq = tsi_prog_sequence(f->graph, "seq");
	assert_non_null(f->seq);
	*state = f;
	return 0;
}

/* Frees the fixture (the engine may be NULL). */
static int teardown(void **state)
{
	fixture *f = *state;

	tsi_engine_free(f->engine);
	tsi_graph_free(f->graph);
	tsi_device_free(f->device);
	free(f);
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
	assert_null(tsi_graph_error(f->graph));
	if (tsi_engine_new(&f->engine, f->graph, &f->seq, 1, NULL) != TSI_OK)
		fail_msg("tsi_engine_new: %s", tsi_error_last());
	assert_int_equal(tsi_engine_load(f->engine, f->device), TSI_OK);
	if (tsi_engine_run(f->engine, 0) != TSI_OK)
		fail_msg("tsi_engine_run: %s", tsi_engine_error(f->engine));
}

/* Reads `n` floats through host read handle `handle`. */
static void read_floats(fixture *f, const char *handle, float *out, size_t n)
{
	assert_int_equal(tsi_engine_read_tensor(f->engine, handle, out, n * sizeof(float)), TSI_OK);
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
	read_floats(f, "sum", out, 4);
	for (size_t i = 0; i < 4; i++)
		assert_close(out[i], av[i] + bv[i], 0);
	read_floats(f, "diff", out, 4);
	for (size_t i = 0; i < 4; i++)
		assert_close(out[i], av[i] - bv[i], 0);
	read_floats(f, "prod", out, 4);
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
	read_floats(f, "v5", out, 4);
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
	assert_non_null(tsi_graph_error(f->graph));
	assert_non_null(strstr(tsi_graph_error(f->graph), "different shapes {2,2} and {4}"));
	assert_non_null(strstr(tsi_graph_error(f->graph), "'Add'"));
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
	assert_non_null(strstr(tsi_graph_error(f->graph), "different types (float and int)"));
}

/* A type popops has no codelet for is refused. */
static void test_unsupported_type(void **state)
{
	fixture *f = *state;
	tsi_tensor *a = tsi_graph_add_variable(f->graph, TSI_BOOL, TSI_SHAPE(3), "a");

	assert_null(tsi_popops_mul(f->graph, a, a, f->seq, NULL));
	assert_non_null(strstr(tsi_graph_error(f->graph), "type bool is not supported"));
}

/* A NULL operand records an error once; after that, NULLs pass quietly
 * and the first message stays. */
static void test_null_operand(void **state)
{
	fixture *f = *state;
	tsi_tensor *a = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(3), "a");
	char first[256];

	assert_null(tsi_popops_add(f->graph, a, NULL, f->seq, "Add"));
	assert_non_null(strstr(tsi_graph_error(f->graph), "operand b is NULL"));
	snprintf(first, sizeof(first), "%s", tsi_graph_error(f->graph));
	assert_null(tsi_popops_add(f->graph, NULL, a, f->seq, "Add"));
	assert_string_equal(tsi_graph_error(f->graph), first);
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
	assert_non_null(strstr(tsi_graph_error(g), "tsi_popops_add_codelets"));
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
	assert_null(tsi_graph_error(f->graph));
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
	read_floats(f, "r4", out, 4);
	for (size_t i = 0; i < 4; i++)
		assert_close(out[i], av[i] + bv[i], 0);
	read_floats(f, "r6", out, 6);
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

/* Runs every test with a fresh fixture. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_float_add_sub_mul, setup, teardown),
		cmocka_unit_test_setup_teardown(test_transposed_operand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_int, setup, teardown),
		cmocka_unit_test_setup_teardown(test_half, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shape_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_type_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsupported_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_null_operand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_codelets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_codelet_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vertices_per_tile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_compute_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unmapped_operand, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
