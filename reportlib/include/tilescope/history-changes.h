/*
 * Change points of one metric over a history of commits (issue 32), apart
 * from the store that keeps the history (history.h): the caller hands over
 * a series in commit order and gets back where it changed, by how much,
 * and how sure. `tilescope history changes` prints them.
 *
 * A deterministic figure (memory, cycles, steps, vertices, FLOPs of the
 * simulated IPU) is exact: every commit whose value differs from the last
 * present one is a change, and nothing else. A noisy figure (wall-clock
 * times, RSS) goes through E-divisive with means (Matteson & James 2014,
 * alpha = 1): recursive bisection of the series of per-commit medians at
 * the split of largest energy divergence, kept when a permutation test
 * with a fixed seed says p < 0.01, so the same series always gives the
 * same answer (a segment longer than 500 commits is tested on the medians
 * of blocks of commits, then split commit by commit near the best block
 * boundary, so the cost does not grow with the history). Each change found then gets a Mann–Whitney U test between
 * the samples of the few commits either side: when they overlap too much
 * the verdict is "unsure, rerun" (more samples near the change decide it).
 */
#pragma once

#include "history.h"
#include "report.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One metric's series, oldest commit first. Commit i's samples are
 * values[offsets[i]] .. values[offsets[i + 1] - 1]; a commit with no
 * samples, or only NaN ones, is missing (its figure was not recorded) and
 * is never a change by itself. */
typedef struct tsr_series {
	size_t n_commits;
	const size_t *offsets;   /* n_commits + 1 entries, non-decreasing, from 0 */
	const double *values;    /* offsets[n_commits] samples */
	bool deterministic;      /* exact comparison of each commit's first
	                            finite sample with the last present one */
} tsr_series;

#define TSR_CHANGES_OPTIONS_VERSION 1

/* How noisy series are searched. Zero fields take the defaults. */
typedef struct tsr_changes_options {
	int version;             /* TSR_CHANGES_OPTIONS_VERSION */
	unsigned permutations;   /* of the significance test; default 199 */
	double significance;     /* a split is kept when p < this; default 0.01 */
	size_t min_segment;      /* fewest present commits either side of a
	                            split; default 5 */
	uint64_t seed;           /* of the permutations; default a fixed one */
	size_t window;           /* the commits either side of a change whose
	                            samples the Mann–Whitney test compares;
	                            default 10 */
} tsr_changes_options;

#define TSR_CHANGES_OPTIONS_INIT { TSR_CHANGES_OPTIONS_VERSION, 0, 0, 0, 0, 0 }

typedef enum tsr_change_verdict {
	TSR_CHANGE_CHANGED = 0,  /* deterministic, or noisy and the samples
	                            either side differ (Mann–Whitney p < 0.01) */
	TSR_CHANGE_UNSURE        /* noisy, found by E-divisive, but the samples
	                            near it overlap: rerun those commits */
} tsr_change_verdict;

/* One change. Commit indices are into the series. */
typedef struct tsr_change_point {
	size_t commit;           /* the first commit after the change */
	size_t first, last;      /* the change came with one of the commits
	                            first..last: first is the commit after the
	                            last present one before it (first == last ==
	                            commit when a deterministic change has no
	                            missing commit before it); for a noisy one
	                            the range of splits the data cannot tell
	                            apart from the best at 95 % (the likelihood
	                            ratio set of Hansen 2000, critical value
	                            7.35) */
	double before, after;    /* deterministic: the two values; noisy: the
	                            medians of the samples of the segments
	                            either side (up to the next change) */
	double change;           /* after - before */
	double relative;         /* change / |before|; NaN when before is 0 */
	double p_value;          /* noisy: Mann–Whitney two-sided p of the
	                            samples of `window` commits either side;
	                            deterministic: 0 */
	double permutation_p;    /* noisy: the E-divisive permutation test's p
	                            of the split; deterministic: 0 */
	tsr_change_verdict verdict;
} tsr_change_point;

/* The change points of `series`, oldest first, into *out (the caller
 * frees it with free(); NULL when there are none) and their number into
 * *n_out. `options` may be NULL for the defaults. Returns TSR_OK,
 * TSR_ERR_INVALID_ARGUMENT (offsets not starting at 0 or decreasing, a
 * NULL pointer, an options version it does not know), TSR_ERR_TOO_LARGE
 * (more than 2^32 - 1 commits) or TSR_ERR_NO_MEMORY. */
TSR_API int tsr_series_list_changes(tsr_change_point **out, size_t *n_out,
                                    const tsr_series *series, const tsr_changes_options *options);

/*
 * The series of a store's points of one label, as every reader searches
 * it (`tilescope history changes`, its page, the Graph Analyser): the
 * points p[0..n) labelled `label` ("" or NULL: the runs without one),
 * oldest first, the consecutive points of one commit as that commit's
 * samples. `p` is newest first, as tsr_history_query_series and
 * tsr_history_list_series give it. The caller gives room for n + 1
 * offsets and n values (the tsr_series' arrays) and, unless NULL, n
 * entries of first_point: the index in p of each commit's oldest point,
 * for the commit's run. Returns the number of commits (0 for none).
 */
TSR_API size_t tsr_history_fill_series(size_t *offsets, double *values, size_t *first_point,
                                       const tsr_history_point *p, size_t n, const char *label);

/* The functions keep no state: any thread may call them at any time. */

/* The Mann–Whitney U test of samples x against y (NaNs are not allowed:
 * the caller drops them). *u_out is U of x (its rank sum with ties at
 * mid-ranks, minus nx (nx + 1) / 2), *p_out the two-sided p: exact (the
 * permutation distribution of the rank sum, ties included) when the
 * smaller side has fewer than 8 samples and both together at most 200,
 * else the normal approximation with tie correction and continuity
 * correction. Returns TSR_OK, TSR_ERR_INVALID_ARGUMENT (an empty side) or
 * TSR_ERR_NO_MEMORY. */
TSR_API int tsr_stats_get_mann_whitney(double *u_out, double *p_out, const double *x, size_t nx,
                                       const double *y, size_t ny);

/* "changed" or "unsure, rerun"; "" for a value outside the enum. */
TSR_API const char *tsr_change_verdict_get_name(tsr_change_verdict verdict);

#ifdef __cplusplus
}
#endif
