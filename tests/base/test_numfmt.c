/*
 * tsb_format_*: the digits grouped as the summary, the CLI and the apps
 * have always printed them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/numfmt.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

static void test_u64_grouping(void **state)
{
	char buf[TSB_NUMBER_MAX];

	(void)state;
	assert_string_equal(tsb_format_u64(buf, sizeof(buf), 0), "0");
	assert_string_equal(tsb_format_u64(buf, sizeof(buf), 7), "7");
	assert_string_equal(tsb_format_u64(buf, sizeof(buf), 999), "999");
	assert_string_equal(tsb_format_u64(buf, sizeof(buf), 1000), "1,000");
	assert_string_equal(tsb_format_u64(buf, sizeof(buf), 1216), "1,216");
	assert_string_equal(tsb_format_u64(buf, sizeof(buf), 100000), "100,000");
	assert_string_equal(tsb_format_u64(buf, sizeof(buf), 1234567), "1,234,567");
	assert_string_equal(tsb_format_u64(buf, sizeof(buf), UINT64_MAX), "18,446,744,073,709,551,615");
}

static void test_i64_grouping(void **state)
{
	char buf[TSB_NUMBER_MAX];

	(void)state;
	assert_string_equal(tsb_format_i64(buf, sizeof(buf), 0), "0");
	assert_string_equal(tsb_format_i64(buf, sizeof(buf), -1), "-1");
	assert_string_equal(tsb_format_i64(buf, sizeof(buf), -999), "-999");
	/* The sign is not a digit: no ",": "-,123". */
	assert_string_equal(tsb_format_i64(buf, sizeof(buf), -123456), "-123,456");
	assert_string_equal(tsb_format_i64(buf, sizeof(buf), -1000), "-1,000");
	assert_string_equal(tsb_format_i64(buf, sizeof(buf), INT64_MIN), "-9,223,372,036,854,775,808");
	assert_string_equal(tsb_format_i64(buf, sizeof(buf), INT64_MAX), "9,223,372,036,854,775,807");
}

static void test_group_digits_cuts_to_fit(void **state)
{
	char small[6];

	(void)state;
	assert_string_equal(tsb_group_digits(small, sizeof(small), "1234567"), "1,234");
	assert_string_equal(tsb_group_digits(small, sizeof(small), ""), "");
	assert_string_equal(tsb_group_digits(small, 1, "123"), "");
}

static void test_tenths_percent_size(void **state)
{
	char buf[TSB_NUMBER_MAX];

	(void)state;
	assert_string_equal(tsb_format_tenths(buf, sizeof(buf), 0), "0.0");
	assert_string_equal(tsb_format_tenths(buf, sizeof(buf), 1600), "1,600.0");
	assert_string_equal(tsb_format_tenths(buf, sizeof(buf), 0.05), "0.1");
	assert_string_equal(tsb_format_tenths(buf, sizeof(buf), 1234.96), "1,235.0");
	assert_string_equal(tsb_format_tenths(buf, sizeof(buf), -1), "n/a");
	assert_string_equal(tsb_format_tenths(buf, sizeof(buf), NAN), "n/a");
	assert_string_equal(tsb_format_tenths(buf, sizeof(buf), 1e18), "n/a");
	assert_string_equal(tsb_format_percent(buf, sizeof(buf), 0.915), "91.5%");
	assert_string_equal(tsb_format_percent(buf, sizeof(buf), 12.5), "1,250.0%");
	assert_string_equal(tsb_format_percent(buf, sizeof(buf), NAN), "n/a");
	assert_string_equal(tsb_format_size(buf, sizeof(buf), 0), "0.0 B");
	assert_string_equal(tsb_format_size(buf, sizeof(buf), 1023), "1,023.0 B");
	assert_string_equal(tsb_format_size(buf, sizeof(buf), 1024), "1.0 KiB");
	assert_string_equal(tsb_format_size(buf, sizeof(buf), 262144), "256.0 KiB");
	assert_string_equal(tsb_format_size(buf, sizeof(buf), 304ull << 20), "304.0 MiB");
	assert_string_equal(tsb_format_size(buf, sizeof(buf), 3ull << 50), "3.0 PiB");
	assert_string_equal(tsb_format_size(buf, sizeof(buf), 4096ull << 50), "4,096.0 PiB");
}

static void test_axis(void **state)
{
	char buf[TSB_NUMBER_MAX];

	(void)state;
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), 0), "0");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), -0.0), "0");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), 638976), "638,976");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), 999.5), "1,000");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), -12345.4), "-12,345");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), 2.5), "2.5");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), 0.125), "0.125");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), -0.3), "-0.3");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), 12.5), "13");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), 1e20), "100,000,000,000,000,000,000");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), NAN), "\u2013");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), INFINITY), "\u221e");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), -INFINITY), "-\u221e");
	assert_string_equal(tsb_format_axis(buf, sizeof(buf), 1e300), "1e+300");
}

static void test_duration(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(tsb_format_duration(buf, sizeof(buf), 812, TSB_DURATION_ASCII), "812 ns");
	assert_string_equal(tsb_format_duration(buf, sizeof(buf), 999.4, TSB_DURATION_ASCII), "999 ns");
	assert_string_equal(tsb_format_duration(buf, sizeof(buf), 999.6, TSB_DURATION_ASCII), "1.00 us");
	assert_string_equal(tsb_format_duration(buf, sizeof(buf), 1500, TSB_DURATION_MICRO),
	                    "1.50 \u00b5s");
	assert_string_equal(tsb_format_duration(buf, sizeof(buf), 3.41e6, TSB_DURATION_ASCII), "3.41 ms");
	assert_string_equal(tsb_format_duration(buf, sizeof(buf), 999.95e6, TSB_DURATION_ASCII), "1.00 s");
	assert_string_equal(tsb_format_duration(buf, sizeof(buf), 16.2e9, TSB_DURATION_ASCII), "16.2 s");
	assert_string_equal(tsb_format_duration(buf, sizeof(buf), 86400e9, TSB_DURATION_ASCII), "86400 s");
	assert_string_equal(tsb_format_duration(buf, sizeof(buf), -2500, TSB_DURATION_ASCII), "-2.50 us");
	assert_string_equal(tsb_format_duration(buf, sizeof(buf), -0.2, TSB_DURATION_ASCII), "0 ns");
	assert_string_equal(tsb_format_duration(buf, sizeof(buf), NAN, TSB_DURATION_ASCII), "-");
	assert_string_equal(tsb_format_duration(buf, 4, 3.41e6, TSB_DURATION_ASCII), "3.4");
}

/* tsb_parse_decimal: digits and one '.', nothing else, in any locale. */
static void test_parse_decimal(void **state)
{
	const char *ok[] = {"0", "12", "1.5", ".5", "5.", "007.250x"};
	const double want[] = {0, 12, 1.5, 0.5, 5, 7.25};
	const char *bad[] = {"", ".", "-1", "+1", " 1", "inf", "nan", "x10",
	                     "1234567890123456789012345678901234567890.5"};
	double v = -1;
	const char *end = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_true(tsb_parse_decimal(ok[i], &v, &end));
		assert_true(v == want[i]);
		assert_true(end == ok[i] + strspn(ok[i], "0123456789."));
	}
	assert_true(tsb_parse_decimal("1e9", &v, &end) && v == 1 && *end == 'e');
	assert_true(tsb_parse_decimal("0x10", &v, &end) && v == 0 && *end == 'x');
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = -1;
		end = NULL;
		assert_false(tsb_parse_decimal(bad[i], &v, &end));
		assert_true(v == -1 && end == NULL);
	}
	assert_false(tsb_parse_decimal(NULL, &v, &end));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_grouping),
		cmocka_unit_test(test_i64_grouping),
		cmocka_unit_test(test_group_digits_cuts_to_fit),
		cmocka_unit_test(test_tenths_percent_size),
		cmocka_unit_test(test_axis),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_parse_decimal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
