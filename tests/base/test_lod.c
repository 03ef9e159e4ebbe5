/*
 * tsb_pyramid: the level-of-detail index against a brute-force scan of
 * random ranges, its edges, and a failed allocation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/alloc.h>
#include <tilescope/lod.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* |a - b| <= tol (cmocka 1.1.5 has no assert_double_equal). */
static void assert_close(double a, double b, double tol)
{
	if (!(fabs(a - b) <= tol))
		fail_msg("%.17g is not %.17g (tolerance %g)", a, b, tol);
}

static void test_random_ranges(void **state)
{
	size_t n = 70001;
	double *v = malloc(n * sizeof(double));
	uint32_t seed = 7;
	tsb_pyramid *p;

	(void)state;
	assert_non_null(v);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		v[i] = (seed >> 8) % 1000;
	}
	v[12345] = NAN; /* counts as 0 */
	p = tsb_pyramid_new(v, n);
	assert_non_null(p);
	for (unsigned q = 0; q < 300; q++) {
		size_t a, b, arg = 0;
		tsb_span s;
		double mn = INFINITY, mx = -INFINITY, sum = 0;

		seed = seed * 1664525u + 1013904223u;
		a = (seed >> 4) % n;
		seed = seed * 1664525u + 1013904223u;
		b = a + 1 + (q < 100 ? (seed >> 4) % 10 : (seed >> 4) % (n - a));
		if (b > n)
			b = n;
		for (size_t i = a; i < b; i++) {
			double x = isnan(v[i]) ? 0 : v[i];

			if (x < mn)
				mn = x;
			if (x > mx) {
				mx = x;
				arg = i;
			}
			sum += x;
		}
		tsb_pyramid_query(p, a, b, &s);
		assert_close(s.min, mn, 0);
		assert_close(s.max, mx, 0);
		assert_close(s.sum, sum, 1e-6);
		assert_int_equal(s.argmax, arg);
	}
	tsb_pyramid_free(p);
	tsb_pyramid_free(NULL);
	free(v);
}

static void test_edges(void **state)
{
	const double v[] = { 3, -2, 7, 7, NAN };
	tsb_span s;
	tsb_pyramid *p;

	(void)state;
	assert_null(tsb_pyramid_new(v, 0));
	p = tsb_pyramid_new(v, 5);
	assert_non_null(p);
	tsb_pyramid_query(p, 0, 5, &s);
	assert_close(s.min, -2, 0);
	assert_close(s.max, 7, 0);
	assert_close(s.sum, 15, 0);
	assert_int_equal(s.argmax, 2); /* the first of the two 7s */
	tsb_pyramid_query(p, 4, 5, &s);
	assert_close(s.max, 0, 0);
	/* Items past n are left out; no item is the empty span. */
	tsb_pyramid_query(p, 3, 99, &s);
	assert_close(s.sum, 7, 0);
	assert_int_equal(s.argmax, 3);
	tsb_pyramid_query(p, 2, 2, &s);
	assert_true(isinf(s.min) && s.min > 0 && isinf(s.max) && s.max < 0);
	assert_close(s.sum, 0, 0);
	assert_int_equal(s.argmax, 2);
	tsb_pyramid_query(NULL, 0, 1, &s);
	assert_close(s.sum, 0, 0);
	tsb_pyramid_free(p);
	/* One item: a single level. */
	p = tsb_pyramid_new(v, 1);
	tsb_pyramid_query(p, 0, 1, &s);
	assert_close(s.max, 3, 0);
	tsb_pyramid_free(p);
}

/* Each of the pyramid's allocations failing gives NULL, and frees what
 * was allocated before it (LeakSanitizer checks that in the ASan tree). */
static void test_out_of_memory(void **state)
{
	const double v[] = { 1, 2, 3 };
	uint64_t count;
	tsb_pyramid *p;

	(void)state;
	tsb_alloc_set_fail_at(0);
	p = tsb_pyramid_new(v, 3);
	count = tsb_alloc_count();
	tsb_alloc_hook_clear();
	assert_non_null(p);
	tsb_pyramid_free(p);
	assert_true(count >= 1);
	for (uint64_t k = 1; k <= count; k++) {
		tsb_alloc_set_fail_at(k);
		p = tsb_pyramid_new(v, 3);
		tsb_alloc_hook_clear();
		assert_true(tsb_alloc_injected());
		assert_null(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_ranges),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
