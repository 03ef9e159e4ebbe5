/*
 * The chart kit's value formatting (tsc-axis.h). Its ticks and
 * level-of-detail pyramid are libtilescope-base's (tests/base).
 */
#include "ck-test.h"

#include <tilescope/tsc-axis.h>

static void check_format(char *s, const char *expected)
{
	assert_string_equal(s, expected);
	g_free(s);
}

static void test_format(void **state)
{
	check_format(tsc_format_thousands(638976, NULL), "638,976");
	check_format(tsc_format_thousands(-1234567, NULL), "-1,234,567");
	check_format(tsc_format_thousands(999, NULL), "999");
	check_format(tsc_format_thousands(0.25, NULL), "0.25");
	check_format(tsc_format_bytes(638976, NULL), "638,976 B");
	check_format(tsc_format_bytes_iec(638976, NULL), "624.0 KiB");
	check_format(tsc_format_bytes_iec(1.5 * 1024 * 1024, NULL), "1.5 MiB");
	check_format(tsc_format_bytes_iec(512, NULL), "512 B");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
