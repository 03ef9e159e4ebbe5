/*
 * Unit tests of device connection types as the engine sees them: ALWAYS
 * attaches at creation, ON_DEMAND when the engine loads, PRE_COMPILE never
 * attaches (runs do nothing, reads give zeros), NEVER compiles but cannot
 * load or run. Also the names' parser.
 */
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/ipu.h>

#define TILES 2

/* out[i] = 42 for every element (an output that is never zero). */
static bool fill_compute(const tsi_field *f, size_t n)
{
	float *out = f[0].data;

	(void)n;
	for (size_t i = 0; i < f[0].count; i++)
		out[i] = 42.0f;
	return true;
}

static const tsi_field_def fill_fields[] = {
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};

static const tsi_codelet fill_codelet = {
	"Fill", fill_fields, 1, fill_compute, NULL, NULL, 8, 16, false,
};

typedef struct fx {
	tsi_graph *g;
	tsi_program *prog;
	tsi_device *dev;
	tsi_engine *eng;
} fx;

/* A graph whose one program fills x with 42 then copies a constant 3
 * into y; x and y have read and write handles. */
static void fx_init(fx *f)
{
	tsi_target t;
	const float three = 3;

	memset(f, 0, sizeof(*f));
	assert_int_equal(tsi_target_ipu(&t, TSI_IPU_MK2, 1, TILES), TSI_OK);
	assert_int_equal(tsi_graph_new(&f->g, &t, 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelet(f->g, &fill_codelet), TSI_OK);
	tsi_tensor *x = tsi_graph_add_variable(f->g, TSI_FLOAT, TSI_SHAPE(4), "x");
	tsi_tensor *y = tsi_graph_add_variable(f->g, TSI_FLOAT, TSI_SHAPE(1), "y");
	tsi_tensor *c = tsi_graph_add_constant_float(f->g, TSI_FLOAT, TSI_SHAPE(1), &three, "c");
	assert_int_equal(tsi_graph_map_linearly(f->g, x, 1), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->g, y, 1), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->g, c, 1), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->g, "x", x), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f->g, "x", x), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->g, "y", y), TSI_OK);
	tsi_compute_set *cs = tsi_graph_add_compute_set(f->g, "fill");
	tsi_vertex *v = tsi_graph_add_vertex(f->g, cs, "Fill");
	assert_int_equal(tsi_graph_set_vertex_tile(f->g, v, 0), TSI_OK);
	assert_int_equal(tsi_graph_connect(f->g, v, "out", x), TSI_OK);
	f->prog = tsi_prog_sequence(f->g, "main");
	assert_int_equal(tsi_sequence_add(f->prog, tsi_prog_execute(f->g, cs)), TSI_OK);
	assert_int_equal(tsi_sequence_add(f->prog, tsi_prog_copy(f->g, c, y)), TSI_OK);
}

/* Creates a device of the graph's shape with connection type `type`. */
static void fx_device(fx *f, tsi_connection_type type)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;

	o.tiles_per_ipu = TILES;
	o.connection = type;
	assert_int_equal(tsi_device_new_ipu_model(&f->dev, &o), TSI_OK);
	assert_int_equal(tsi_device_get_connection(f->dev), type);
}

static void fx_free(fx *f)
{
	tsi_engine_free(f->eng);
	tsi_device_free(f->dev);
	tsi_graph_free(f->g);
}

/* Runs the program and checks x and y hold what it wrote. */
static void run_and_check(fx *f)
{
	float x[4], y;

	assert_int_equal(tsi_engine_run(f->eng, 0), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f->eng, "x", x, sizeof(x)), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f->eng, "y", &y, sizeof(y)), TSI_OK);
	for (int i = 0; i < 4; i++)
		assert_close(x[i], 42, 0);
	assert_close(y, 3, 0);
}

static void test_always(void **state)
{
	fx f;
	(void)state;

	fx_init(&f);
	fx_device(&f, TSI_CONNECT_ALWAYS);
	assert_true(tsi_device_is_attached(f.dev));
	assert_int_equal(tsi_engine_new(&f.eng, f.g, &f.prog, 1, NULL), TSI_OK);
	assert_true(tsi_device_is_attached(f.dev));
	assert_int_equal(tsi_engine_load(f.eng, f.dev), TSI_OK);
	assert_true(tsi_device_is_attached(f.dev));
	run_and_check(&f);
	fx_free(&f);
}

static void test_on_demand(void **state)
{
	fx f;
	(void)state;

	fx_init(&f);
	fx_device(&f, TSI_CONNECT_ON_DEMAND);
	assert_false(tsi_device_is_attached(f.dev));
	assert_int_equal(tsi_engine_new(&f.eng, f.g, &f.prog, 1, NULL), TSI_OK);
	assert_false(tsi_device_is_attached(f.dev));
	assert_int_equal(tsi_engine_load(f.eng, f.dev), TSI_OK);
	assert_true(tsi_device_is_attached(f.dev));
	run_and_check(&f);
	fx_free(&f);
}

static void test_pre_compile(void **state)
{
	fx f;
	float x[4] = {9, 9, 9, 9}, y = 9;
	const float ones[4] = {1, 1, 1, 1};
	(void)state;

	fx_init(&f);
	fx_device(&f, TSI_CONNECT_PRE_COMPILE);
	assert_false(tsi_device_is_attached(f.dev));
	assert_int_equal(tsi_engine_new(&f.eng, f.g, &f.prog, 1, NULL), TSI_OK);
	assert_int_equal(tsi_engine_load(f.eng, f.dev), TSI_OK);
	assert_false(tsi_device_is_attached(f.dev));
	/* Writes are accepted and dropped; the run executes nothing. */
	assert_int_equal(tsi_engine_write_tensor(f.eng, "x", ones, sizeof(ones)), TSI_OK);
	assert_int_equal(tsi_engine_run(f.eng, 0), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.eng, "x", x, sizeof(x)), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.eng, "y", &y, sizeof(y)), TSI_OK);
	for (int i = 0; i < 4; i++)
		assert_close(x[i], 0, 0);
	assert_close(y, 0, 0);
	/* Argument checks still apply. */
	assert_int_equal(tsi_engine_run(f.eng, 1), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_engine_read_tensor(f.eng, "x", x, 3), TSI_ERR_INVALID_ARGUMENT);
	assert_false(tsi_device_is_attached(f.dev));
	fx_free(&f);
}

static void test_never(void **state)
{
	fx f;
	float y;
	(void)state;

	fx_init(&f);
	fx_device(&f, TSI_CONNECT_NEVER);
	assert_false(tsi_device_is_attached(f.dev));
	assert_int_equal(tsi_engine_new(&f.eng, f.g, &f.prog, 1, NULL), TSI_OK);
	assert_int_equal(tsi_engine_load(f.eng, f.dev), TSI_ERR_NOT_ATTACHED);
	assert_non_null(strstr(tsi_engine_error(f.eng), "NEVER"));
	assert_non_null(strstr(tsi_error_last(), "NEVER"));
	assert_false(tsi_device_is_attached(f.dev));
	assert_int_equal(tsi_engine_run(f.eng, 0), TSI_ERR_NOT_ATTACHED);
	assert_non_null(strstr(tsi_engine_error(f.eng), "NEVER"));
	assert_int_equal(tsi_engine_read_tensor(f.eng, "y", &y, sizeof(y)), TSI_ERR_NOT_ATTACHED);
	fx_free(&f);
}

/* A second load re-initialises device memory (variables zeroed). */
static void test_reload(void **state)
{
	fx f;
	float x[4];
	(void)state;

	fx_init(&f);
	fx_device(&f, TSI_CONNECT_ALWAYS);
	assert_int_equal(tsi_engine_new(&f.eng, f.g, &f.prog, 1, NULL), TSI_OK);
	assert_int_equal(tsi_engine_load(f.eng, f.dev), TSI_OK);
	run_and_check(&f);
	assert_int_equal(tsi_engine_load(f.eng, f.dev), TSI_OK);
	assert_int_equal(tsi_engine_read_tensor(f.eng, "x", x, sizeof(x)), TSI_OK);
	assert_close(x[0], 0, 0);
	run_and_check(&f);
	fx_free(&f);
}

static void test_parse(void **state)
{
	tsi_connection_type t = TSI_CONNECT_NEVER;
	(void)state;

	assert_int_equal(tsi_connection_type_parse(&t, "ALWAYS"), TSI_OK);
	assert_int_equal(t, TSI_CONNECT_ALWAYS);
	assert_int_equal(tsi_connection_type_parse(&t, "ON_DEMAND"), TSI_OK);
	assert_int_equal(t, TSI_CONNECT_ON_DEMAND);
	assert_int_equal(tsi_connection_type_parse(&t, "PRE_COMPILE"), TSI_OK);
	assert_int_equal(t, TSI_CONNECT_PRE_COMPILE);
	assert_int_equal(tsi_connection_type_parse(&t, "never"), TSI_OK);
	assert_int_equal(t, TSI_CONNECT_NEVER);
	assert_int_equal(tsi_connection_type_parse(&t, "SOMETIMES"), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(t, TSI_CONNECT_NEVER);
	assert_non_null(strstr(tsi_error_last(), "SOMETIMES"));
	assert_string_equal(tsi_connection_type_name(TSI_CONNECT_ON_DEMAND), "ON_DEMAND");
	assert_string_equal(tsi_connection_type_name(TSI_CONNECT_PRE_COMPILE), "PRE_COMPILE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_always),
		cmocka_unit_test(test_on_demand),
		cmocka_unit_test(test_pre_compile),
		cmocka_unit_test(test_never),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
