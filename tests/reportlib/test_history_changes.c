/*
 * Change points of a metric's history (tilescope/history-changes.h):
 * synthetic histories of 200 commits with known steps, deterministic ones
 * found at their commit and nothing else, noisy ones within the range
 * reported; the false-positive rate over 1,000 seeds of pure noise; the
 * Mann–Whitney U test against textbook values; bad input refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/history-changes.h>
#include "test-util.h"

#include <tilescope/alloc.h>
#include <tilescope/report.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N_COMMITS 200

/* The test's own generator (xorshift64*), separate from the library's. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1du;
}

static double rng_uniform(uint64_t *s)
{
	return ((double)(rng_next(s) >> 11) + 0.5) * 0x1p-53;
}

/* A standard normal deviate (Box–Muller). */
static double rng_normal(uint64_t *s)
{
	double u = rng_uniform(s), v = rng_uniform(s);
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A series under construction: per commit up to a few samples. */
typedef struct series_buf {
	size_t offsets[N_COMMITS + 1];
	double values[N_COMMITS * 8];
	tsr_series series;
} series_buf;

static void buf_finish(series_buf *b, bool deterministic)
{
	b->series = (tsr_series){ N_COMMITS, b->offsets, b->values, deterministic };
}

/* Deterministic series with steps up and down (of one unit too: a
 * deterministic figure has no noise), missing commits (no sample, or a
 * NaN one) between equal values and before steps, a step at commit 1, and
 * repeated samples per commit. A step shows at the first present commit at
 * or after it, its range starting after the last present one before. */
static void test_deterministic(void **state)
{
	(void)state;
	uint64_t rng = 42;
	for (int round = 0; round < 50; round++) {
		series_buf b;
		bool step_at[N_COMMITS] = { false };
		bool missing[N_COMMITS] = { false };
		int n_steps = 3 + (int)(rng_next(&rng) % 6);
		for (int i = 0; i < n_steps; i++)
			step_at[1 + rng_next(&rng) % (N_COMMITS - 1)] = true;
		if (round % 5 == 0)
			step_at[1] = true;
		for (int i = 0; i < 20; i++)
			missing[rng_next(&rng) % N_COMMITS] = true;
		size_t expect_commit[N_COMMITS], expect_first[N_COMMITS];
		double expect_before[N_COMMITS], expect_after[N_COMMITS];
		size_t n_expect = 0, at = 0, last_present = 0;
		bool have = false, pending = false;
		double value = 1e6 + (double)(rng_next(&rng) % 1000), shown = value;
		for (size_t c = 0; c < N_COMMITS; c++) {
			b.offsets[c] = at;
			if (step_at[c]) {
				/* +1 or -4096: a run of steps between present commits
				 * never adds up to nothing. */
				value += rng_next(&rng) % 3 ? 1 : -4096;
				pending = true;
			}
			if (missing[c]) {
				if (round % 2)
					b.values[at++] = NAN;
				continue;
			}
			if (have && pending) {
				expect_commit[n_expect] = c;
				expect_first[n_expect] = last_present + 1;
				expect_before[n_expect] = shown;
				expect_after[n_expect] = value;
				n_expect++;
			}
			for (size_t k = 0; k < 1 + c % 3; k++)
				b.values[at++] = value;
			have = true;
			pending = false;
			shown = value;
			last_present = c;
		}
		b.offsets[N_COMMITS] = at;
		buf_finish(&b, true);
		tsr_change_point *cp;
		size_t n;
		assert_int_equal(tsr_series_list_changes(&cp, &n, &b.series, NULL), TSR_OK);
		assert_int_equal(n, n_expect);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(cp[i].commit, expect_commit[i]);
			assert_int_equal(cp[i].first, expect_first[i]);
			assert_int_equal(cp[i].last, expect_commit[i]);
			assert_true(cp[i].before == expect_before[i]);
			assert_true(cp[i].after == expect_after[i]);
			assert_true(cp[i].change == expect_after[i] - expect_before[i]);
			assert_close(cp[i].relative, cp[i].change / expect_before[i], 1e-15);
			assert_int_equal(cp[i].verdict, TSR_CHANGE_CHANGED);
		}
		free(cp);
	}
}

/* A value of 0 before a change has no relative size. */
static void test_deterministic_from_zero(void **state)
{
	(void)state;
	size_t offsets[] = { 0, 1, 2, 2, 3 };
	double values[] = { 0, 0, 5 };
	tsr_series s = { 4, offsets, values, true };
	tsr_change_point *cp;
	size_t n;
	assert_int_equal(tsr_series_list_changes(&cp, &n, &s, NULL), TSR_OK);
	assert_int_equal(n, 1);
	assert_int_equal(cp[0].commit, 3);
	assert_int_equal(cp[0].first, 2);
	assert_int_equal(cp[0].last, 3);
	assert_true(isnan(cp[0].relative));
	free(cp);
}

/* Fills `b` with 200 commits of noise around `level` (sd `sd`, normal or
 * log-normal), 1 to 3 samples a commit, some commits missing, and the
 * steps given (the level moves by step_size[i] from commit step_at[i]). */
static void noisy_series(series_buf *b, uint64_t *rng, double level, double sd, bool lognormal,
                         const size_t *step_at, const double *step_size, size_t n_steps)
{
	size_t at = 0, next = 0;
	for (size_t c = 0; c < N_COMMITS; c++) {
		b->offsets[c] = at;
		while (next < n_steps && step_at[next] == c)
			level += step_size[next++];
		if (rng_next(rng) % 25 == 0)
			continue;
		size_t k = 1 + rng_next(rng) % 3;
		for (size_t i = 0; i < k; i++) {
			double z = rng_normal(rng);
			b->values[at++] = lognormal ? level * exp(sd / level * z) : level + sd * z;
		}
	}
	b->offsets[N_COMMITS] = at;
	buf_finish(b, false);
}

/* Noisy series with 2 to 4 steps of 3 to 6 standard deviations at least
 * 25 commits apart: each found once, its range holding the commit it was
 * injected at (or the first present one after it) and no wider than 10
 * commits, and nothing else found. */
static void test_noisy_steps(void **state)
{
	(void)state;
	uint64_t rng = 7;
	size_t widest = 0, total = 0;
	for (int round = 0; round < 40; round++) {
		size_t step_at[4];
		double step_size[4];
		size_t n_steps = 2 + rng_next(&rng) % 3;
		size_t c = 0;
		for (size_t i = 0; i < n_steps; i++) {
			c += 25 + rng_next(&rng) % 15;
			step_at[i] = c;
			double size = 3 + 3 * rng_uniform(&rng);
			step_size[i] = rng_next(&rng) % 2 ? size : -size;
		}
		series_buf b;
		noisy_series(&b, &rng, 100, 1, round % 2, step_at, step_size, n_steps);
		tsr_change_point *cp;
		size_t n;
		assert_int_equal(tsr_series_list_changes(&cp, &n, &b.series, NULL), TSR_OK);
		if (n != n_steps) {
			for (size_t i = 0; i < n; i++)
				print_message("found %zu in %zu..%zu, %g\n", cp[i].commit, cp[i].first,
				              cp[i].last, cp[i].change);
			for (size_t i = 0; i < n_steps; i++)
				print_message("injected %zu %g\n", step_at[i], step_size[i]);
			fail_msg("round %d: %zu changes found, %zu injected", round, n, n_steps);
		}
		for (size_t i = 0; i < n; i++) {
			if (!(cp[i].first <= step_at[i] && step_at[i] <= cp[i].last))
				fail_msg("round %d: step at %zu, found %zu in %zu..%zu", round, step_at[i],
				         cp[i].commit, cp[i].first, cp[i].last);
			assert_true(cp[i].first <= cp[i].commit && cp[i].commit <= cp[i].last);
			assert_true(cp[i].last - cp[i].first <= 10);
			if (cp[i].last - cp[i].first > widest)
				widest = cp[i].last - cp[i].first;
			/* The size's sign and rough magnitude (medians of the segments). */
			assert_close(cp[i].change, step_size[i], 1.5);
			assert_true(cp[i].permutation_p < 0.01);
			assert_true(cp[i].p_value < 0.01);
			assert_int_equal(cp[i].verdict, TSR_CHANGE_CHANGED);
			total++;
		}
		free(cp);
	}
	print_message("%zu noisy steps found, widest range %zu commits\n", total, widest + 1);
}

/* A series longer than the 500 commits E-divisive tests one by one:
 * tested on block medians, placed at full resolution. Steps in the
 * middle, and one 40 commits from the end (found once the bisection has
 * cut the segment short enough), each within the range reported. */
static void test_noisy_long(void **state)
{
	(void)state;
	enum { LONG = 3000 };
	size_t *offsets = malloc((LONG + 1) * sizeof *offsets);
	double *values = malloc(LONG * sizeof *values);
	assert_non_null(offsets);
	assert_non_null(values);
	size_t step_at[] = { 702, 1502, 2960 };
	double step_size[] = { 4, -4, 5 };
	uint64_t rng = 3;
	double level = 20;
	for (size_t c = 0, k = 0; c < LONG; c++) {
		offsets[c] = c;
		if (k < 3 && step_at[k] == c)
			level += step_size[k++];
		values[c] = level + rng_normal(&rng);
	}
	offsets[LONG] = LONG;
	tsr_series s = { LONG, offsets, values, false };
	tsr_change_point *cp;
	size_t n;
	assert_int_equal(tsr_series_list_changes(&cp, &n, &s, NULL), TSR_OK);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		assert_true(cp[i].first <= step_at[i] && step_at[i] <= cp[i].last);
		assert_true(cp[i].last - cp[i].first <= 10);
		/* Placed commit by commit, not at a block boundary. */
		assert_close((double)cp[i].commit, (double)step_at[i], 1);
		assert_close(cp[i].change, step_size[i], 1);
	}
	free(cp);
	free(offsets);
	free(values);
}

/* The same series gives the same answer every time. */
static void test_noisy_reproducible(void **state)
{
	(void)state;
	uint64_t rng = 99;
	size_t step_at[] = { 120 };
	double step_size[] = { 0.9 };
	series_buf b;
	noisy_series(&b, &rng, 50, 1, false, step_at, step_size, 1);
	tsr_change_point *first, *again;
	size_t n1, n2;
	assert_int_equal(tsr_series_list_changes(&first, &n1, &b.series, NULL), TSR_OK);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(tsr_series_list_changes(&again, &n2, &b.series, NULL), TSR_OK);
		assert_int_equal(n1, n2);
		for (size_t k = 0; k < n1; k++) {
			assert_int_equal(first[k].commit, again[k].commit);
			assert_true(first[k].permutation_p == again[k].permutation_p);
			assert_true(first[k].p_value == again[k].p_value);
		}
		free(again);
	}
	free(first);
}

/* A shift E-divisive finds over 100 commits a side but that the 10
 * commits either side cannot show: the values repeat 0..9 a commit at a
 * time, and after the change 1.5 higher, so locally the two sides
 * overlap (Mann–Whitney p well above 0.01): "unsure, rerun". */
static void test_noisy_unsure(void **state)
{
	(void)state;
	series_buf b;
	size_t at = 0;
	for (size_t c = 0; c < N_COMMITS; c++) {
		b.offsets[c] = at;
		b.values[at++] = (double)(c * 7 % 10) + (c >= 100 ? 2.5 : 0);
	}
	b.offsets[N_COMMITS] = at;
	buf_finish(&b, false);
	tsr_change_point *cp;
	size_t n;
	assert_int_equal(tsr_series_list_changes(&cp, &n, &b.series, NULL), TSR_OK);
	assert_int_equal(n, 1);
	assert_true(cp[0].first <= 100 && 100 <= cp[0].last);
	assert_true(cp[0].permutation_p < 0.01);
	assert_true(cp[0].p_value >= 0.01);
	assert_int_equal(cp[0].verdict, TSR_CHANGE_UNSURE);
	assert_string_equal(tsr_change_verdict_get_name(cp[0].verdict), "unsure, rerun");
	free(cp);
}

/* Pure noise, 1,000 seeds (half normal, half log-normal and skewed like
 * wall-clock times): the share of series with any change reported stays
 * under 2 % (the permutation test's level is 1 % per split tried). */
static void test_false_positive_rate(void **state)
{
	(void)state;
	size_t with_change = 0;
	double started = tsi_test_now_s();
	for (uint64_t seed = 1; seed <= 1000; seed++) {
		uint64_t rng = seed * 0x9e3779b97f4a7c15u;
		series_buf b;
		noisy_series(&b, &rng, 1000, seed % 2 ? 10 : 300, seed % 2 == 0, NULL, NULL, 0);
		tsr_change_point *cp;
		size_t n;
		assert_int_equal(tsr_series_list_changes(&cp, &n, &b.series, NULL), TSR_OK);
		with_change += n > 0;
		free(cp);
	}
	print_message("false positives: %zu of 1000 noise series (%.1f %%), %.2f s\n", with_change,
	              with_change / 10.0, tsi_test_now_s() - started);
	assert_true(with_change <= 20);
}

/* Hollander & Wolfe (1973), p. 69 (R's wilcox.test example): U = 35,
 * one-sided exact p 0.1272, two-sided 0.2544. */
static void test_mann_whitney_textbook(void **state)
{
	(void)state;
	double x[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 };
	double y[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	double u, p;
	assert_int_equal(tsr_stats_get_mann_whitney(&u, &p, x, 10, y, 5), TSR_OK);
	assert_close(u, 35, 0);
	assert_close(p, 0.2544, 0.00005);
	/* U of the other side is n m - U, the same two-sided p. */
	assert_int_equal(tsr_stats_get_mann_whitney(&u, &p, y, 5, x, 10), TSR_OK);
	assert_close(u, 15, 0);
	assert_close(p, 0.2544, 0.00005);
}

/* The table of critical values for n1 = n2 = 7 at two-sided 0.05 gives
 * U = 8: U 8 is significant (exact p 0.0379), U 9 is not (0.0530). */
static void test_mann_whitney_critical(void **state)
{
	(void)state;
	/* x takes ranks {1,2,3,4,5,7,14} (U 8), then {1,2,3,4,6,7,14} (U 9). */
	double x8[] = { 1, 2, 3, 4, 5, 7, 14 }, y8[] = { 6, 8, 9, 10, 11, 12, 13 };
	double x9[] = { 1, 2, 3, 4, 6, 7, 14 }, y9[] = { 5, 8, 9, 10, 11, 12, 13 };
	double u, p;
	assert_int_equal(tsr_stats_get_mann_whitney(&u, &p, x8, 7, y8, 7), TSR_OK);
	assert_close(u, 8, 0);
	assert_close(p, 0.037879, 0.000001);
	assert_int_equal(tsr_stats_get_mann_whitney(&u, &p, x9, 7, y9, 7), TSR_OK);
	assert_close(u, 9, 0);
	assert_close(p, 0.053030, 0.000001);
	/* n1 = n2 = 10, normal approximation: the table's critical U is 23. */
	double a[10], b[10];
	for (int target = 23; target <= 24; target++) {
		/* b is 0, 10, ..., 90; each a sits above as many of b as it takes,
		 * up to all ten, to make U = target. */
		int left = target;
		for (int i = 0; i < 10; i++) {
			int above = left > 10 ? 10 : left;
			b[i] = 10.0 * i;
			/* (distinct values: ties would change the variance) */
			a[i] = (above ? 10.0 * (above - 1) + 5 : -5) + 0.1 * i;
			left -= above;
		}
		assert_int_equal(tsr_stats_get_mann_whitney(&u, &p, a, 10, b, 10), TSR_OK);
		assert_close(u, target, 0);
		assert_true(target == 23 ? p < 0.05 : p > 0.05);
	}
}

/* Ties, normal approximation with tie and continuity correction: U 15.5,
 * p 0.0056252 (the textbook formula, computed separately). */
static void test_mann_whitney_ties(void **state)
{
	(void)state;
	double x[] = { 1, 2, 2, 3, 3, 3, 4, 5, 5, 6 };
	double y[] = { 3, 4, 4, 5, 6, 6, 7, 7, 8, 9, 9 };
	double u, p;
	assert_int_equal(tsr_stats_get_mann_whitney(&u, &p, x, 10, y, 11), TSR_OK);
	assert_close(u, 15.5, 0);
	assert_close(p, 0.0056252, 0.0000005);
	/* All equal: nothing to tell apart. */
	double same[] = { 4, 4, 4, 4, 4, 4, 4, 4, 4 };
	assert_int_equal(tsr_stats_get_mann_whitney(&u, &p, same, 9, same, 9), TSR_OK);
	assert_close(p, 1, 0);
	assert_int_equal(tsr_stats_get_mann_whitney(&u, &p, same, 3, same, 3), TSR_OK);
	assert_close(p, 1, 0);
}

/* Bad input gets an error, not a crash. */
static void test_bad_input(void **state)
{
	(void)state;
	tsr_change_point *cp;
	size_t n;
	size_t decreasing[] = { 0, 2, 1 }, late[] = { 1, 2 };
	double v[] = { 1, 2 };
	tsr_series s = { 2, decreasing, v, false };
	assert_int_equal(tsr_series_list_changes(&cp, &n, &s, NULL), TSR_ERR_INVALID_ARGUMENT);
	s = (tsr_series){ 1, late, v, true };
	assert_int_equal(tsr_series_list_changes(&cp, &n, &s, NULL), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_series_list_changes(&cp, &n, NULL, NULL), TSR_ERR_INVALID_ARGUMENT);
	tsr_changes_options o = TSR_CHANGES_OPTIONS_INIT;
	o.version = 99;
	size_t one[] = { 0, 1 };
	s = (tsr_series){ 1, one, v, false };
	assert_int_equal(tsr_series_list_changes(&cp, &n, &s, &o), TSR_ERR_INVALID_ARGUMENT);
	/* Empty series, and one too short to split. */
	s = (tsr_series){ 0, one, NULL, false };
	assert_int_equal(tsr_series_list_changes(&cp, &n, &s, NULL), TSR_OK);
	assert_int_equal(n, 0);
	s = (tsr_series){ 1, one, v, false };
	assert_int_equal(tsr_series_list_changes(&cp, &n, &s, NULL), TSR_OK);
	assert_int_equal(n, 0);
	double u, p;
	assert_int_equal(tsr_stats_get_mann_whitney(&u, &p, v, 0, v, 2), TSR_ERR_INVALID_ARGUMENT);
}

/* Every allocation that fails gives TSR_ERR_NO_MEMORY, nothing returned
 * and nothing leaked (the sanitizer build checks the leaks). */
static void test_out_of_memory(void **state)
{
	(void)state;
	uint64_t rng = 5;
	size_t step_at[] = { 70, 130 };
	double step_size[] = { 5, -5 };
	series_buf b;
	noisy_series(&b, &rng, 100, 1, false, step_at, step_size, 2);
	for (int deterministic = 0; deterministic < 2; deterministic++) {
		b.series.deterministic = deterministic;
		uint64_t k = 1;
		for (;; k++) {
			tsr_change_point *cp = (tsr_change_point *)&k;
			size_t n = 99;
			tsb_alloc_set_fail_at(k);
			int rc = tsr_series_list_changes(&cp, &n, &b.series, NULL);
			bool injected = tsb_alloc_injected();
			tsb_alloc_hook_clear();
			if (!injected) {
				assert_int_equal(rc, TSR_OK);
				assert_true(n > 0);
				free(cp);
				break;
			}
			assert_int_equal(rc, TSR_ERR_NO_MEMORY);
			assert_null(cp);
			assert_int_equal(n, 0);
		}
		assert_true(k > 1);
	}
}

/* The series of a store's points: newest first in, oldest first out;
 * one label's only (NULL and "" alike); the consecutive points of a
 * commit as its samples; a commit again after another is a commit again;
 * each commit's oldest point named. */
static void test_fill_series(void **state)
{
	/* Newest first, as the store gives them: c3 (two samples), c2 of
	 * label "b", c2, c1 (two samples), c2 again before it (a revert), c0. */
	static const struct { const char *commit, *label; uint64_t value; } pts[] = {
	    {"c3", NULL, 31}, {"c3", NULL, 30}, {"c2", "b", 99}, {"c2", "", 20}, {"c1", NULL, 11},
	    {"c1", NULL, 10}, {"c2", NULL, 22}, {"c0", NULL, 0},
	};
	tsr_history_point p[8];
	size_t offsets[9], first[8], n;
	double values[8];

	(void)state;
	for (size_t i = 0; i < 8; i++)
		p[i] = (tsr_history_point){{(int64_t)i, pts[i].commit, NULL, NULL, 0, pts[i].label, NULL,
		                            NULL, NULL},
		                           0, pts[i].value};
	n = tsr_history_fill_series(offsets, values, first, p, 8, NULL);
	assert_int_equal(n, 5);
	{
		static const size_t want_offsets[] = {0, 1, 2, 4, 5, 7};
		static const double want_values[] = {0, 22, 10, 11, 20, 30, 31};
		static const size_t want_first[] = {7, 6, 5, 3, 1};

		for (size_t i = 0; i <= n; i++)
			assert_int_equal(offsets[i], want_offsets[i]);
		for (size_t i = 0; i < 7; i++)
			assert_true(values[i] == want_values[i]);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(first[i], want_first[i]);
	}
	n = tsr_history_fill_series(offsets, values, NULL, p, 8, "b");
	assert_int_equal(n, 1);
	assert_int_equal(offsets[1], 1);
	assert_true(values[0] == 99);
	assert_int_equal(tsr_history_fill_series(offsets, values, first, p, 8, "none"), 0);
	assert_int_equal(offsets[0], 0);
	assert_int_equal(tsr_history_fill_series(offsets, values, first, NULL, 0, NULL), 0);
	assert_int_equal(tsr_history_fill_series(NULL, values, first, p, 8, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_fill_series),
		cmocka_unit_test(test_deterministic_from_zero),
		cmocka_unit_test(test_noisy_steps),
		cmocka_unit_test(test_noisy_long),
		cmocka_unit_test(test_noisy_reproducible),
		cmocka_unit_test(test_noisy_unsure),
		cmocka_unit_test(test_false_positive_rate),
		cmocka_unit_test(test_mann_whitney_textbook),
		cmocka_unit_test(test_mann_whitney_critical),
		cmocka_unit_test(test_mann_whitney_ties),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
