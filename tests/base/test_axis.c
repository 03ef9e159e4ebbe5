/*
 * tsb_axis_nice_ticks and tsb_axis_nice_ceil: the ticks the chart kit's
 * axes and ruler and the HTML pages' charts are drawn with.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/axis.h>

#include <math.h>

/* |a - b| <= tol (cmocka 1.1.5 has no assert_double_equal). */
static void assert_close(double a, double b, double tol)
{
	if (!(fabs(a - b) <= tol))
		fail_msg("%.17g is not %.17g (tolerance %g)", a, b, tol);
}

static void test_nice_ticks(void **state)
{
	double step, first;
	unsigned n;

	(void)state;
	n = tsb_axis_nice_ticks(0, 638976, 6, 0, &step, &first);
	assert_close(step, 200000, 0);
	assert_close(first, 0, 0);
	assert_int_equal(n, 4); /* 0, 200k, 400k, 600k */
	n = tsb_axis_nice_ticks(13, 97, 10, 0, &step, &first);
	assert_close(step, 10, 0);
	assert_close(first, 20, 0);
	assert_int_equal(n, 8); /* 20 .. 90 */
	n = tsb_axis_nice_ticks(-0.3, 0.7, 3, 0, &step, &first);
	assert_close(step, 0.5, 1e-12);
	assert_close(first, 0, 1e-12);
	assert_int_equal(n, 2); /* 0, 0.5 */
	/* Item indices never get fractional steps; a step below min_step
	 * rounds up to a nice one. */
	n = tsb_axis_nice_ticks(0, 3, 20, 1, &step, &first);
	assert_close(step, 1, 0);
	assert_int_equal(n, 4);
	n = tsb_axis_nice_ticks(0, 30, 20, 3, &step, &first);
	assert_close(step, 5, 0);
	assert_int_equal(n, 7);
	/* One value: a tick at it. */
	n = tsb_axis_nice_ticks(40, 40, 5, 0, &step, &first);
	assert_close(first, 40, 0);
	assert_int_equal(n, 1);
	/* Nothing to tick, and the step written as 0 so a caller's loop
	 * does not spin. */
	assert_int_equal(tsb_axis_nice_ticks(5, 1, 5, 0, &step, &first), 0);
	assert_close(step, 0, 0);
	assert_int_equal(tsb_axis_nice_ticks(0, NAN, 5, 0, &step, &first), 0);
	assert_int_equal(tsb_axis_nice_ticks(-INFINITY, 1, 5, 0, &step, &first), 0);
}

static void test_nice_ceil(void **state)
{
	(void)state;
	assert_close(tsb_axis_nice_ceil(638976), 1000000, 0);
	assert_close(tsb_axis_nice_ceil(230), 250, 1e-9);
	assert_close(tsb_axis_nice_ceil(200), 200, 1e-9);
	assert_close(tsb_axis_nice_ceil(0.0031), 0.005, 1e-15);
	assert_close(tsb_axis_nice_ceil(0), 1, 0);
	assert_close(tsb_axis_nice_ceil(-5), 1, 0);
	assert_close(tsb_axis_nice_ceil(NAN), 1, 0);
	assert_close(tsb_axis_nice_ceil(INFINITY), 1, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nice_ticks),
		cmocka_unit_test(test_nice_ceil),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
