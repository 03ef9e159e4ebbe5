/*
 * The chart kit's pure parts: nice ticks and value formatting
 * (tsc-axis.h), and the level-of-detail pyramid against a brute-force
 * scan of random ranges.
 */
#include "ck-test.h"

#include <tilescope/tsc-axis.h>

#include "tsc-lod-private.h"

#include <math.h>
#include <string.h>

static void test_nice_ticks(void **state)
{
	double step, first;
	guint n;

	n = tsc_axis_nice_ticks(0, 638976, 6, 0, &step, &first);
	ck_assert_close(step, 200000, 0);
	ck_assert_close(first, 0, 0);
	assert_int_equal(n, 4);  /* 0, 200k, 400k, 600k */
	n = tsc_axis_nice_ticks(13, 97, 10, 0, &step, &first);
	ck_assert_close(step, 10, 0);
	ck_assert_close(first, 20, 0);
	assert_int_equal(n, 8);  /* 20 .. 90 */
	/* Item indices never get fractional steps. */
	n = tsc_axis_nice_ticks(0, 3, 20, 1, &step, &first);
	ck_assert_close(step, 1, 0);
	assert_int_equal(n, 4);
	assert_int_equal(tsc_axis_nice_ticks(5, 1, 5, 0, &step, &first), 0);
	assert_int_equal(tsc_axis_nice_ticks(0, NAN, 5, 0, &step, &first), 0);
	ck_assert_close(tsc_axis_nice_ceil(638976), 1000000, 0);
	ck_assert_close(tsc_axis_nice_ceil(230), 250, 1e-9);
	ck_assert_close(tsc_axis_nice_ceil(0), 1, 0);
}

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

static void test_pyramid(void **state)
{
	guint n = 70001, i, q;
	double *v = g_new(double, n);
	guint32 seed = 7;
	TscPyramid *p;

	for (i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		v[i] = (seed >> 8) % 1000;
	}
	v[12345] = NAN;  /* counts as 0 */
	p = tsc_pyramid_new(v, n);
	assert_null(tsc_pyramid_new(v, 0));
	for (q = 0; q < 300; q++) {
		guint a, b;
		TscSpan s;
		double mn = INFINITY, mx = -INFINITY, sum = 0;
		guint arg = 0;

		seed = seed * 1664525u + 1013904223u;
		a = (seed >> 4) % n;
		seed = seed * 1664525u + 1013904223u;
		b = a + 1 + (q < 100 ? (seed >> 4) % 10 : (seed >> 4) % (n - a));
		if (b > n)
			b = n;
		for (i = a; i < b; i++) {
			double x = isnan(v[i]) ? 0 : v[i];

			if (x < mn)
				mn = x;
			if (x > mx) {
				mx = x;
				arg = i;
			}
			sum += x;
		}
		tsc_pyramid_query(p, a, b, &s);
		ck_assert_close(s.min, mn, 0);
		ck_assert_close(s.max, mx, 0);
		ck_assert_close(s.sum, sum, 1e-6);
		assert_int_equal(s.argmax, arg);
	}
	tsc_pyramid_free(p);
	tsc_pyramid_free(NULL);
	g_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nice_ticks),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_pyramid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
