/*
 * `history changes` over a store of 10,000 commits × 500 metrics (issue
 * 32's scale target: all metrics in at most 5 s): the change-point search
 * of tilescope/history-changes.h on series built in memory, so the
 * figure is the analysis alone, not the store's reads. 450 metrics are
 * deterministic (a step every few hundred commits, 1 % of commits
 * missing); 50 are noisy wall-clock figures with 3 samples a commit and
 * 8 steps of 4 standard deviations each. Prints the times (wall clock,
 * and CPU: the machine may be shared) and, as context, how many injected
 * steps were found (within the range reported, for noisy ones).
 * Noisy segments longer than 500 commits are tested on block medians
 * (split_segment in history-changes.c): without that, E-divisive's 199
 * permutations over all 10,000 commits took about 12 s of CPU here.
 */
#include "bench-util.h"

#include <tilescope/history-changes.h>

#include <tilescope/report.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N_COMMITS 10000
#define N_METRICS 500
#define N_NOISY 50
#define SAMPLES 3
#define NOISY_STEPS 8

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1du;
}

static double rng_normal(uint64_t *s)
{
	double u = ((double)(rng_next(s) >> 11) + 0.5) * 0x1p-53;
	double v = ((double)(rng_next(s) >> 11) + 0.5) * 0x1p-53;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

int main(void)
{
	static size_t offsets[N_COMMITS + 1];
	static double values[N_COMMITS * SAMPLES];
	uint64_t rng = 2026;
	/* Wall-clock per call, and the process's CPU time over all of them
	 * (the machine may be shared: CPU time is what the search costs). */
	double cpu_ms = 0;
	double det_ms = 0, noisy_ms = 0, slowest_noisy = 0;
	size_t det_injected = 0, det_found = 0, noisy_injected = 0, noisy_in_range = 0, noisy_found = 0;
	for (int m = 0; m < N_METRICS; m++) {
		bool noisy = m < N_NOISY;
		size_t step_at[NOISY_STEPS];
		size_t n_steps = 0, at = 0;
		double level = noisy ? 1e6 : (double)(1000 + rng_next(&rng) % 100000);
		for (size_t c = 0; c < N_COMMITS; c++) {
			offsets[c] = at;
			/* Noisy: 8 steps evenly apart (each side 1,250 commits);
			 * deterministic: a step on 1 commit in 300. */
			bool step = noisy ? c % (N_COMMITS / NOISY_STEPS) == N_COMMITS / NOISY_STEPS / 2
			                  : c > 0 && rng_next(&rng) % 300 == 0;
			if (step) {
				if (noisy)
					step_at[n_steps] = c;
				n_steps++;
				level += noisy ? (n_steps % 2 ? 4e4 : -4e4) : (double)(1 + rng_next(&rng) % 64);
			}
			if (rng_next(&rng) % 100 == 0 && !step)
				continue;
			for (int k = 0; k < (noisy ? SAMPLES : 1); k++)
				values[at++] = noisy ? level + 1e4 * rng_normal(&rng) : level;
		}
		offsets[N_COMMITS] = at;
		tsr_series s = { N_COMMITS, offsets, values, !noisy };
		tsr_change_point *cp;
		size_t n;
		clock_t c0 = clock();
		double t0 = bench_now_ms();
		int rc = tsr_series_list_changes(&cp, &n, &s, NULL);
		double ms = bench_now_ms() - t0;
		cpu_ms += (double)(clock() - c0) * 1e3 / CLOCKS_PER_SEC;
		if (rc != TSR_OK) {
			fprintf(stderr, "history-changes: metric %d: %s\n", m, tsr_error_name(rc));
			return 1;
		}
		if (noisy) {
			noisy_ms += ms;
			slowest_noisy = ms > slowest_noisy ? ms : slowest_noisy;
			noisy_injected += n_steps;
			noisy_found += n;
			for (size_t i = 0; i < n_steps; i++)
				for (size_t k = 0; k < n; k++)
					if (cp[k].first <= step_at[i] && step_at[i] <= cp[k].last) {
						noisy_in_range++;
						break;
					}
		} else {
			det_ms += ms;
			det_injected += n_steps;
			det_found += n;
		}
		free(cp);
	}
	/* run.sh's form: "NAME VALUE UNIT (target ...)", context after '#'. */
	printf("# history changes, %d commits x %d metrics (%d noisy, %d samples a commit)\n",
	       N_COMMITS, N_METRICS, N_NOISY, SAMPLES);
	printf("# deterministic: %.1f ms for %d metrics, %zu of %zu steps found\n", det_ms,
	       N_METRICS - N_NOISY, det_found, det_injected);
	printf("# noisy: %.1f ms for %d metrics (slowest %.1f ms), %zu changes found, "
	       "%zu of %zu steps within a range\n",
	       noisy_ms, N_NOISY, slowest_noisy, noisy_found, noisy_in_range, noisy_injected);
	printf("history.changes_ms %.1f ms (target <= 5000)\n", det_ms + noisy_ms);
	printf("history.changes_cpu_ms %.1f ms\n", cpu_ms);
	return 0;
}
