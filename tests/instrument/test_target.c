/* Unit tests of target presets, tile-count overrides and devices. */
#include "test-util.h"

#include <string.h>

#include <tilescope/ipu.h>

static void test_presets(void **state)
{
	tsi_target t;
	(void)state;

	assert_int_equal(tsi_target_ipu(&t, TSI_IPU_MK1, 1, 0), TSI_OK);
	assert_int_equal(t.num_tiles, 1216);
	assert_int_equal(t.bytes_per_tile, 256 * 1024);
	assert_int_equal(t.clock_hz, 1600000000u);

	assert_int_equal(tsi_target_ipu(&t, TSI_IPU_MK2, 1, 0), TSI_OK);
	assert_int_equal(t.num_tiles, 1472);
	assert_int_equal(t.bytes_per_tile, 624 * 1024);
	assert_int_equal(t.clock_hz, 1330000000u);
	assert_int_equal(t.num_worker_contexts, 6);

	assert_int_equal(tsi_target_ipu(&t, TSI_IPU_BOW, 4, 0), TSI_OK);
	assert_int_equal(t.num_ipus, 4);
	assert_int_equal(t.tiles_per_ipu, 1472);
	assert_int_equal(t.num_tiles, 4 * 1472);
	assert_int_equal(t.clock_hz, 1850000000u);
	/* The notebook's Bow peak: 1,472 tiles x 1.85 GHz x 128 = 348.6 TFLOPS per IPU. */
	assert_int_equal(tsi_target_ipu(&t, TSI_IPU_BOW, 1, 0), TSI_OK);
	assert_close(tsi_target_peak_flops(&t) / 1e12, 348.6, 0.05);

	tsi_target_cpu(&t);
	assert_int_equal(t.kind, TSI_TARGET_CPU);
	assert_int_equal(t.num_tiles, 1);
	assert_string_equal(t.name, "cpu");
}

static void test_overrides_and_errors(void **state)
{
	tsi_target t;
	(void)state;

	assert_int_equal(tsi_target_ipu(&t, TSI_IPU_MK2, 2, 16), TSI_OK);
	assert_int_equal(t.tiles_per_ipu, 16);
	assert_int_equal(t.num_tiles, 32);
	assert_int_equal(tsi_target_ipu(&t, TSI_IPU_MK1, 1, 2000), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_error_last(), "1216"));
	assert_int_equal(tsi_target_ipu(&t, TSI_IPU_MK2, 0, 0), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_error_last(), "IPUs"));
}

static void test_devices(void **state)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *d = NULL;
	(void)state;

	o.ipu_version = TSI_IPU_MK1;
	o.num_ipus = 2;
	o.tiles_per_ipu = 8;
	assert_int_equal(tsi_device_new_ipu_model(&d, &o), TSI_OK);
	assert_int_equal(tsi_device_get_target(d)->num_tiles, 16);
	assert_int_equal(tsi_device_get_connection(d), TSI_CONNECT_ALWAYS);
	assert_true(tsi_device_is_attached(d));
	tsi_device_detach(d);
	assert_false(tsi_device_is_attached(d));
	tsi_device_free(d);

	o.version = 99;
	assert_int_equal(tsi_device_new_ipu_model(&d, &o), TSI_ERR_INVALID_ARGUMENT);
	assert_null(d);
	assert_non_null(strstr(tsi_error_last(), "TSI_IPU_MODEL_OPTIONS_INIT"));

	assert_int_equal(tsi_device_new_cpu(&d), TSI_OK);
	assert_int_equal(tsi_device_get_target(d)->kind, TSI_TARGET_CPU);
	tsi_device_free(d);
	tsi_device_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_overrides_and_errors),
		cmocka_unit_test(test_devices),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
