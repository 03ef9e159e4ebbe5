/*
 * The one duration formatter (tilescope/units.h) that `tilescope trace`
 * and the System Analyser share: a unit per magnitude at its boundaries.
 *
 * What is checked:
 *   - 0 and below a microsecond read in whole nanoseconds ("999 ns");
 *   - a value that rounds to 1.00 of the next unit is written in it
 *     (999.5 ns "1.00 us", 999.95 ms "1.00 s"), never "1000 us";
 *   - three significant digits in between ("3.41 ms", "16.2 s", "812 ns",
 *     "100 ms"), the 16,216,785,292 ns as "16.2 s";
 *   - huge values stay in seconds; negative values keep their sign; NaN
 *     and infinities read "-";
 *   - the micro sign in the window's style, "us" in the terminal's;
 *   - a small buffer is cut, not overrun.
 */
#include "test-util.h"

#include <tilescope/units.h>

#include <math.h>
#include <string.h>

/* `ns` as the terminal writes it. */
static const char *ascii(char buf[TSR_DURATION_MAX], double ns)
{
	return tsr_format_duration(buf, TSR_DURATION_MAX, ns, TSR_DURATION_ASCII);
}

static void test_boundaries(void **state)
{
	char b[TSR_DURATION_MAX];

	(void)state;
	assert_string_equal(ascii(b, 0), "0 ns");
	assert_string_equal(ascii(b, 1), "1 ns");
	assert_string_equal(ascii(b, 812), "812 ns");
	assert_string_equal(ascii(b, 999), "999 ns");
	assert_string_equal(ascii(b, 999.4), "999 ns");
	assert_string_equal(ascii(b, 999.5), "1.00 us");
	assert_string_equal(ascii(b, 1000), "1.00 us");
	assert_string_equal(ascii(b, 1005), "1.00 us");
	assert_string_equal(ascii(b, 9994), "9.99 us");
	assert_string_equal(ascii(b, 9995), "10.0 us");
	assert_string_equal(ascii(b, 99949), "99.9 us");
	assert_string_equal(ascii(b, 99950), "100 us");
	assert_string_equal(ascii(b, 999499), "999 us");
	assert_string_equal(ascii(b, 999500), "1.00 ms");
	assert_string_equal(ascii(b, 3.41e6), "3.41 ms");
	assert_string_equal(ascii(b, 999.4e6), "999 ms");
	assert_string_equal(ascii(b, 999.94e6), "1.00 s");
	assert_string_equal(ascii(b, 999.95e6), "1.00 s");
	assert_string_equal(ascii(b, 1e9), "1.00 s");
	assert_string_equal(ascii(b, 16216785292.0), "16.2 s");
	assert_string_equal(ascii(b, 86400e9), "86400 s");
}

static void test_huge_and_odd(void **state)
{
	char b[TSR_DURATION_MAX], small[6];

	(void)state;
	/* The largest integer nanoseconds: 584 years, still in seconds. */
	assert_string_equal(ascii(b, 18446744073709551615.0), "18446744074 s");
	assert_string_equal(ascii(b, 1e18), "1000000000 s");
	assert_string_equal(ascii(b, -3.41e6), "-3.41 ms");
	assert_string_equal(ascii(b, -812), "-812 ns");
	assert_string_equal(ascii(b, NAN), "-");
	assert_string_equal(ascii(b, INFINITY), "-");
	assert_string_equal(ascii(b, -INFINITY), "-");
	/* Means are fractions. */
	assert_string_equal(ascii(b, 12.4), "12 ns");
	tsr_format_duration(small, sizeof(small), 3.41e6, TSR_DURATION_ASCII);
	assert_string_equal(small, "3.41 ");
	assert_null(tsr_format_duration(NULL, 8, 1, TSR_DURATION_ASCII));
}

static void test_micro_sign(void **state)
{
	char b[TSR_DURATION_MAX];

	(void)state;
	assert_string_equal(tsr_format_duration(b, sizeof(b), 12500, TSR_DURATION_MICRO),
	                    "12.5 \u00b5s");
	assert_string_equal(tsr_format_duration(b, sizeof(b), 812, TSR_DURATION_MICRO), "812 ns");
	assert_string_equal(tsr_format_duration(b, sizeof(b), 16216785292.0, TSR_DURATION_MICRO),
	                    "16.2 s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boundaries),
		cmocka_unit_test(test_huge_and_odd),
		cmocka_unit_test(test_micro_sign),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
