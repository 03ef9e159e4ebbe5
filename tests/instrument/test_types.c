/* Unit tests of element types: sizes, names, half conversion, load/store. */
#include "test-util.h"

#include <math.h>
#include <string.h>

#include <tilescope/ipu.h>

static void test_sizes_and_names(void **state)
{
	(void)state;
	assert_int_equal(tsi_type_size(TSI_FLOAT), 4);
	assert_int_equal(tsi_type_size(TSI_HALF), 2);
	assert_int_equal(tsi_type_size(TSI_INT), 4);
	assert_int_equal(tsi_type_size(TSI_UNSIGNED_INT), 4);
	assert_int_equal(tsi_type_size(TSI_SHORT), 2);
	assert_int_equal(tsi_type_size(TSI_UNSIGNED_SHORT), 2);
	assert_int_equal(tsi_type_size(TSI_CHAR), 1);
	assert_int_equal(tsi_type_size(TSI_UNSIGNED_CHAR), 1);
	assert_int_equal(tsi_type_size(TSI_BOOL), 1);
	assert_int_equal(tsi_type_size(TSI_TYPE_COUNT), 0);
	assert_string_equal(tsi_type_name(TSI_FLOAT), "float");
	assert_string_equal(tsi_type_name(TSI_HALF), "half");
	assert_string_equal(tsi_type_name(TSI_UNSIGNED_SHORT), "unsigned short");
	assert_string_equal(tsi_type_name(TSI_TYPE_COUNT), "invalid");
}

static void test_half_exact_values(void **state)
{
	(void)state;
	/* Known bit patterns of IEEE binary16. */
	assert_int_equal(tsi_half_from_float(0.0f), 0x0000);
	assert_int_equal(tsi_half_from_float(-0.0f), 0x8000);
	assert_int_equal(tsi_half_from_float(1.0f), 0x3c00);
	assert_int_equal(tsi_half_from_float(-2.0f), 0xc000);
	assert_int_equal(tsi_half_from_float(0.5f), 0x3800);
	assert_int_equal(tsi_half_from_float(65504.0f), 0x7bff); /* largest finite */
	assert_int_equal(tsi_half_from_float(65520.0f), 0x7c00); /* rounds to infinity */
	assert_int_equal(tsi_half_from_float(1e9f), 0x7c00);
	assert_int_equal(tsi_half_from_float(-INFINITY), 0xfc00);
	assert_true((tsi_half_from_float(NAN) & 0x7c00) == 0x7c00 &&
	            (tsi_half_from_float(NAN) & 0x3ff) != 0);
	assert_int_equal(tsi_half_from_float(5.9604645e-8f), 0x0001); /* smallest subnormal */
	assert_int_equal(tsi_half_from_float(1e-10f), 0x0000);
	/* 1 + 2^-11 is halfway between 1 and the next half: ties to even. */
	assert_int_equal(tsi_half_from_float(1.0f + 1.0f / 2048.0f), 0x3c00);
	assert_int_equal(tsi_half_from_float(1.0f + 3.0f / 2048.0f), 0x3c02);
	assert_true(tsi_half_to_float(0x3c00) == 1.0f);
	assert_true(tsi_half_to_float(0x0001) == 5.9604645e-8f);
	assert_true(isinf(tsi_half_to_float(0x7c00)));
	assert_true(isnan(tsi_half_to_float(0x7e00)));
}

static void test_half_round_trip_all(void **state)
{
	(void)state;
	/* Every finite half survives half -> float -> half unchanged. */
	for (uint32_t b = 0; b < 0x10000; b++) {
		uint16_t h = (uint16_t)b;
		if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
			continue; /* NaN payloads need not survive */
		assert_int_equal(tsi_half_from_float(tsi_half_to_float(h)), h);
	}
}

static void test_load_store(void **state)
{
	unsigned char buf[16];
	(void)state;
	for (int t = 0; t < TSI_TYPE_COUNT; t++) {
		memset(buf, 0, sizeof(buf));
		tsi_type_store((tsi_type)t, buf, 1, 3.0);
		assert_close(tsi_type_load((tsi_type)t, buf, 1), t == TSI_BOOL ? 1.0 : 3.0, 0);
		assert_close(tsi_type_load((tsi_type)t, buf, 0), 0.0, 0);
	}
	/* Saturation instead of undefined behaviour. */
	tsi_type_store(TSI_UNSIGNED_CHAR, buf, 0, 300.0);
	assert_int_equal(buf[0], 255);
	tsi_type_store(TSI_CHAR, buf, 0, -300.0);
	assert_int_equal((int8_t)buf[0], -128);
	tsi_type_store(TSI_INT, buf, 0, NAN);
	assert_close(tsi_type_load(TSI_INT, buf, 0), 0, 0);
	tsi_type_store(TSI_INT, buf, 0, -7.9);
	assert_close(tsi_type_load(TSI_INT, buf, 0), -7, 0);
	tsi_type_store(TSI_HALF, buf, 0, 1.5);
	assert_close(tsi_type_load(TSI_HALF, buf, 0), 1.5, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_and_names),
		cmocka_unit_test(test_half_exact_values),
		cmocka_unit_test(test_half_round_trip_all),
		cmocka_unit_test(test_load_store),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
