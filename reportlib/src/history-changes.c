/*
 * Change points of one metric's history (history-changes.h): exact for
 * deterministic figures; for noisy ones E-divisive with means and a
 * seeded permutation test, then a Mann–Whitney U test near each change.
 * Written from the definitions (Matteson & James, "A nonparametric
 * approach for multiple change point analysis of multivariate data",
 * JASA 2014; Mann & Whitney 1947; Hansen, "Sample splitting and threshold
 * estimation", Econometrica 2000).
 *
 * In one dimension with alpha = 1 the divergence of every split of a
 * segment comes from one pass: the within-sums of |x_i - x_j| of each
 * prefix grow by the distance of the next value to those before it, which
 * a Fenwick tree over the values' ranks gives in O(log n); the suffix's
 * follow from each value's distance to the whole segment, which a
 * permutation does not change. A permutation therefore costs
 * O(n log n), not O(n^2); and segments longer than MAX_POINTS commits are
 * tested on the medians of blocks of commits (split_segment), so that a
 * test costs the same whatever the length of the history.
 */
#include <tilescope/history-changes.h>

#include <tilescope/alloc.h>
#include <tilescope/report.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The 95 % critical value of the likelihood ratio of a split's location,
 * whose distribution is (1 - exp(-x / 2))^2 (Hansen 2000): -2 ln(1 -
 * sqrt(0.95)). */
#define LR_CRITICAL_95 7.35
/* Exact Mann–Whitney below this many samples on the smaller side... */
#define MW_EXACT_BELOW 8
/* ...and at most this many on both together (the table grows as n^2). */
#define MW_EXACT_MAX_TOTAL 200
/* The longest segment E-divisive tests commit by commit (split_segment). */
#define MAX_POINTS 500
/* The verdict's level for the Mann–Whitney p near a change. */
#define MW_LEVEL 0.01

const char *tsr_change_verdict_get_name(tsr_change_verdict verdict)
{
	switch (verdict) {
	case TSR_CHANGE_CHANGED: return "changed";
	case TSR_CHANGE_UNSURE: return "unsure, rerun";
	}
	return "";
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[0..n) (n > 0), which it sorts. */
static double median_sorting(double *v, size_t n)
{
	qsort(v, n, sizeof *v, compare_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- Mann–Whitney U ---------------------------------------------------- */

typedef struct mw_item {
	double value;
	bool in_x;
} mw_item;

static int compare_mw_item(const void *a, const void *b)
{
	return compare_double(&((const mw_item *)a)->value, &((const mw_item *)b)->value);
}

/* P(rank sum of k items drawn from `ranks2` <= w2) and P(>= w2), where
 * ranks2 are the n doubled mid-ranks (integers) and w2 the observed
 * doubled rank sum: the exact permutation distribution, ties included,
 * counted by a table of (items chosen, sum). */
static int mw_exact(double *lower, double *upper, const unsigned *ranks2, size_t n, size_t k,
                    unsigned w2)
{
	size_t max_sum = 0;
	for (size_t i = 0; i < n; i++)
		max_sum += ranks2[i];
	size_t width = max_sum + 1;
	double *ways = tsb_calloc((k + 1) * width, sizeof *ways);
	if (!ways)
		return TSR_ERR_NO_MEMORY;
	ways[0] = 1;
	for (size_t i = 0; i < n; i++)
		for (size_t j = (i + 1 < k ? i + 1 : k); j >= 1; j--)
			for (size_t s = max_sum; s >= ranks2[i]; s--)
				ways[j * width + s] += ways[(j - 1) * width + s - ranks2[i]];
	double total = 0, le = 0, ge = 0;
	for (size_t s = 0; s <= max_sum; s++) {
		double w = ways[k * width + s];
		total += w;
		if (s <= w2)
			le += w;
		if (s >= w2)
			ge += w;
	}
	*lower = le / total;
	*upper = ge / total;
	tsb_free(ways);
	return TSR_OK;
}

int tsr_stats_get_mann_whitney(double *u_out, double *p_out, const double *x, size_t nx, const double *y,
                     size_t ny)
{
	if (!u_out || !p_out || !x || !y || nx == 0 || ny == 0)
		return TSR_ERR_INVALID_ARGUMENT;
	size_t n = nx + ny;
	mw_item *items = tsb_reallocarray(NULL, n, sizeof *items);
	unsigned *ranks2 = tsb_reallocarray(NULL, n, sizeof *ranks2);
	int rc = TSR_ERR_NO_MEMORY;
	if (!items || !ranks2)
		goto out;
	for (size_t i = 0; i < nx; i++)
		items[i] = (mw_item){ x[i], true };
	for (size_t i = 0; i < ny; i++)
		items[nx + i] = (mw_item){ y[i], false };
	qsort(items, n, sizeof *items, compare_mw_item);
	/* Doubled mid-ranks (1-based ranks lo..hi of a tie share (lo + hi) / 2)
	 * keep every sum an integer. */
	double ties = 0;         /* sum of t^3 - t over groups of t ties */
	unsigned long long rx2 = 0, small2 = 0;
	bool small_is_x = nx <= ny;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && items[j + 1].value == items[i].value)
			j++;
		unsigned r2 = (unsigned)(i + 1 + j + 1);
		double t = (double)(j - i + 1);
		ties += t * t * t - t;
		for (size_t q = i; q <= j; q++) {
			ranks2[q] = r2;
			if (items[q].in_x)
				rx2 += r2;
			if (items[q].in_x == small_is_x)
				small2 += r2;
		}
		i = j + 1;
	}
	double u = (double)rx2 / 2 - (double)nx * (double)(nx + 1) / 2;
	double p;
	size_t k = small_is_x ? nx : ny;
	if (k < MW_EXACT_BELOW && n <= MW_EXACT_MAX_TOTAL) {
		double lower, upper;
		rc = mw_exact(&lower, &upper, ranks2, n, k, (unsigned)small2);
		if (rc != TSR_OK)
			goto out;
		p = 2 * (lower < upper ? lower : upper);
	} else {
		double mean = (double)nx * (double)ny / 2;
		double var = (double)nx * (double)ny / 12 *
		             ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
		double dev = fabs(u - mean) - 0.5;
		p = var <= 0 ? 1 : erfc((dev > 0 ? dev : 0) / sqrt(2 * var));
	}
	*u_out = u;
	*p_out = p > 1 ? 1 : p;
	rc = TSR_OK;
out:
	tsb_free(items);
	tsb_free(ranks2);
	return rc;
}

/* ---- E-divisive with means ---------------------------------------------- */

/* splitmix64 (Steele, Lea & Flood 2014): the permutations' generator, and
 * the mixer that gives each segment its own stream from the seed and the
 * segment's bounds, so the answer does not depend on the search's order. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* One value of a segment being scanned, with its rank 0..n-1 in the
 * segment (ties in any order: equal values are at distance 0 whichever
 * comes first) and its summed distance to the whole segment: the three
 * move together when the segment is permuted. */
typedef struct edm_item {
	double v;                /* centred on the segment's median */
	double dist;
	uint32_t rank;
} edm_item;

/* A Fenwick tree node over ranks: how many of the values so far, and
 * their sum, fall in its span. */
typedef struct edm_node {
	double sum;
	uint32_t count;
} edm_node;

typedef struct edm_work {
	size_t n;
	size_t first_split, last_split; /* the splits edm_scan tries */
	edm_item *item;
	struct edm_sorted { double value; size_t at; } *order; /* sort scratch */
	edm_node *tree;          /* n + 1 nodes, 1-based */
	double *coef_left, *coef_right; /* per split, see edm_scan */
	double within_all;       /* sum over i < j of |v_i - v_j| */
} edm_work;

static int compare_sorted(const void *a, const void *b)
{
	return compare_double(&((const struct edm_sorted *)a)->value,
	                      &((const struct edm_sorted *)b)->value);
}

/* Fills `w` with values[0..n), to be split with at least `min_seg` values
 * either side. */
static void edm_prepare(edm_work *w, const double *values, size_t n, size_t min_seg)
{
	w->n = n;
	w->first_split = min_seg;
	w->last_split = n - min_seg;
	for (size_t i = 0; i < n; i++)
		w->order[i] = (struct edm_sorted){ values[i], i };
	qsort(w->order, n, sizeof *w->order, compare_sorted);
	double centre = w->order[n / 2].value;
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += w->order[i].value - centre;
	double below = 0;
	w->within_all = 0;
	for (size_t i = 0; i < n; i++) {
		double v = w->order[i].value - centre;
		/* to the i below it and the n - 1 - i above it */
		double dist = v * (double)i - below + (total - below - v) - v * (double)(n - 1 - i);
		w->item[w->order[i].at] = (edm_item){ v, dist, (uint32_t)i };
		w->within_all += dist;
		below += v;
	}
	w->within_all /= 2;
	for (size_t t = min_seg; t + min_seg <= n; t++) {
		double m = (double)t, r = (double)(n - t);
		w->coef_left[t] = r / (m - 1);
		w->coef_right[t] = m / (r - 1);
	}
}

/* The largest Q of a split of w's current order between first_split and
 * last_split (by default at least min_seg values either side), and where
 * (the index of the first value after it); -INFINITY when no split is
 * allowed. Q(tau) is m r / (m + r) times the energy divergence 2/(m r) B - 2/(m(m-1)) W_left - 2/(r(r-1)) W_right
 * (B the sum of distances across the split, W those within each side, m
 * and r the sides' sizes), here times n / 2 (the same for every split and
 * permutation of the segment): B - r/(m-1) W_left - m/(r-1) W_right. */
static double edm_scan(edm_work *w, size_t *tau_out)
{
	size_t n = w->n;
	edm_node *tree = w->tree;
	memset(tree, 0, (n + 1) * sizeof *tree);
	double within_left = 0, within_right = w->within_all, prefix_sum = 0;
	double best = -INFINITY;
	size_t best_tau = 0;
	for (size_t t = 0; t < n; t++) {
		if (t >= w->first_split && t <= w->last_split) {
			double across = w->within_all - within_left - within_right;
			double q = across - w->coef_left[t] * within_left - w->coef_right[t] * within_right;
			if (q > best) {
				best = q;
				best_tau = t;
			}
		}
		const edm_item *it = &w->item[t];
		uint32_t below_count = 0;
		double below_sum = 0;
		for (size_t i = it->rank; i > 0; i &= i - 1) {
			below_count += tree[i].count;
			below_sum += tree[i].sum;
		}
		double above_sum = prefix_sum - below_sum;
		double to_before = it->v * (double)below_count - below_sum + above_sum -
		                   it->v * (double)(t - below_count);
		within_left += to_before;
		within_right -= it->dist - to_before;
		prefix_sum += it->v;
		for (size_t i = (size_t)it->rank + 1; i <= n; i += i & (~i + 1)) {
			tree[i].count++;
			tree[i].sum += it->v;
		}
	}
	*tau_out = best_tau;
	return best;
}

/* Shuffles w's items (Fisher–Yates). */
static void edm_shuffle(edm_work *w, uint64_t *state)
{
	for (size_t i = w->n - 1; i > 0; i--) {
		size_t j = (size_t)((double)(splitmix64(state) >> 11) * 0x1p-53 * (double)(i + 1));
		edm_item t = w->item[i];
		w->item[i] = w->item[j];
		w->item[j] = t;
	}
}

typedef struct noisy_change {
	size_t tau;              /* index of the first present commit after it */
	double permutation_p;
} noisy_change;

static int compare_noisy_change(const void *a, const void *b)
{
	size_t x = ((const noisy_change *)a)->tau, y = ((const noisy_change *)b)->tau;
	return (x > y) - (x < y);
}

/* ---- the series --------------------------------------------------------- */

typedef struct change_list {
	tsr_change_point *items;
	size_t n, cap;
} change_list;

static int change_list_push(change_list *list, const tsr_change_point *p)
{
	if (list->n == list->cap) {
		size_t cap = list->cap ? 2 * list->cap : 8;
		tsr_change_point *items = tsb_reallocarray(list->items, cap, sizeof *items);
		if (!items)
			return TSR_ERR_NO_MEMORY;
		list->items = items;
		list->cap = cap;
	}
	list->items[list->n++] = *p;
	return TSR_OK;
}

static void set_size(tsr_change_point *p, double before, double after)
{
	p->before = before;
	p->after = after;
	p->change = after - before;
	p->relative = before == 0 ? NAN : p->change / fabs(before);
}

/* Every commit whose first finite sample differs from the last present
 * commit's. */
static int find_deterministic(change_list *list, const tsr_series *s)
{
	bool have = false;
	double last = 0;
	size_t last_at = 0;
	for (size_t i = 0; i < s->n_commits; i++) {
		size_t j = s->offsets[i];
		while (j < s->offsets[i + 1] && isnan(s->values[j]))
			j++;
		if (j == s->offsets[i + 1])
			continue;
		double v = s->values[j];
		if (have && v != last) {
			tsr_change_point p = { .commit = i, .first = last_at + 1, .last = i,
			                       .verdict = TSR_CHANGE_CHANGED };
			set_size(&p, last, v);
			int rc = change_list_push(list, &p);
			if (rc != TSR_OK)
				return rc;
		}
		have = true;
		last = v;
		last_at = i;
	}
	return TSR_OK;
}

/* The present commits of a noisy series: their indices, their finite
 * samples packed (commit k's at samples[start[k] .. start[k + 1])), the
 * median of each, and prefix sums of count, sum and sum of squares of the
 * samples (centred) for the likelihood ratio range. */
typedef struct noisy_data {
	size_t n;                /* present commits */
	size_t *commit;          /* n */
	size_t *start;           /* n + 1 */
	double *samples;
	double *median;          /* n */
	double *block;           /* n, split_segment's block medians */
	double *pre_sum, *pre_sq; /* n + 1 */
	double *scratch;         /* as many as samples */
} noisy_data;

static void noisy_data_free(noisy_data *d)
{
	tsb_free(d->commit);
	tsb_free(d->start);
	tsb_free(d->samples);
	tsb_free(d->median);
	tsb_free(d->block);
	tsb_free(d->pre_sum);
	tsb_free(d->pre_sq);
	tsb_free(d->scratch);
}

static int noisy_data_fill(noisy_data *d, const tsr_series *s)
{
	size_t total = s->offsets[s->n_commits];
	d->commit = tsb_reallocarray(NULL, s->n_commits + 1, sizeof *d->commit);
	d->start = tsb_reallocarray(NULL, s->n_commits + 1, sizeof *d->start);
	d->samples = tsb_reallocarray(NULL, total + 1, sizeof *d->samples);
	d->scratch = tsb_reallocarray(NULL, total + 1, sizeof *d->scratch);
	d->median = tsb_reallocarray(NULL, s->n_commits + 1, sizeof *d->median);
	d->block = tsb_reallocarray(NULL, s->n_commits + 1, sizeof *d->block);
	d->pre_sum = tsb_reallocarray(NULL, s->n_commits + 1, sizeof *d->pre_sum);
	d->pre_sq = tsb_reallocarray(NULL, s->n_commits + 1, sizeof *d->pre_sq);
	if (!d->commit || !d->start || !d->samples || !d->scratch || !d->median || !d->block ||
	    !d->pre_sum || !d->pre_sq)
		return TSR_ERR_NO_MEMORY;
	size_t k = 0, at = 0;
	for (size_t i = 0; i < s->n_commits; i++) {
		size_t from = at;
		for (size_t j = s->offsets[i]; j < s->offsets[i + 1]; j++)
			if (!isnan(s->values[j]))
				d->samples[at++] = s->values[j];
		if (at == from)
			continue;
		d->commit[k] = i;
		d->start[k] = from;
		memcpy(d->scratch, d->samples + from, (at - from) * sizeof *d->scratch);
		d->median[k] = median_sorting(d->scratch, at - from);
		k++;
	}
	d->n = k;
	d->start[k] = at;
	/* Centring on one sample keeps sums of squares of large figures (ns)
	 * with small spread from cancelling. */
	double centre = at ? d->samples[0] : 0;
	d->pre_sum[0] = d->pre_sq[0] = 0;
	for (size_t c = 0; c < k; c++) {
		double sum = 0, sq = 0;
		for (size_t j = d->start[c]; j < d->start[c + 1]; j++) {
			double v = d->samples[j] - centre;
			sum += v;
			sq += v * v;
		}
		d->pre_sum[c + 1] = d->pre_sum[c] + sum;
		d->pre_sq[c + 1] = d->pre_sq[c] + sq;
	}
	return TSR_OK;
}

/* The residual sum of squares of the samples of present commits [a, b)
 * about their mean. */
static double noisy_rss(const noisy_data *d, size_t a, size_t b)
{
	double count = (double)(d->start[b] - d->start[a]);
	double sum = d->pre_sum[b] - d->pre_sum[a], sq = d->pre_sq[b] - d->pre_sq[a];
	double rss = sq - sum * sum / count;
	return rss > 0 ? rss : 0;
}

/* The median of the samples of present commits [a, b). */
static double noisy_median(noisy_data *d, size_t a, size_t b)
{
	size_t n = d->start[b] - d->start[a];
	memcpy(d->scratch, d->samples + d->start[a], n * sizeof *d->scratch);
	return median_sorting(d->scratch, n);
}

/* The range of splits k of present commits [lo, hi) that the samples
 * cannot tell apart from the best at 95 %: those whose two-mean residual
 * sum of squares is within LR_CRITICAL_95 residual variances of the
 * least (Hansen 2000), stretched to hold `tau`. */
static void noisy_range(const noisy_data *d, size_t lo, size_t tau, size_t hi, size_t *kmin,
                        size_t *kmax)
{
	double best = INFINITY;
	for (size_t k = lo + 1; k < hi; k++) {
		double rss = noisy_rss(d, lo, k) + noisy_rss(d, k, hi);
		if (rss < best)
			best = rss;
	}
	size_t count = d->start[hi] - d->start[lo];
	double var = count > 2 ? best / (double)(count - 2) : 0;
	*kmin = *kmax = tau;
	for (size_t k = lo + 1; k < hi; k++) {
		double rss = noisy_rss(d, lo, k) + noisy_rss(d, k, hi);
		if (rss - best <= LR_CRITICAL_95 * var) {
			if (k < *kmin)
				*kmin = k;
			if (k > *kmax)
				*kmax = k;
		}
	}
}

/* The change at present commit `tau` between the neighbouring changes
 * (or ends) lo and hi: its range, size and Mann–Whitney verdict. */
static int describe_noisy(tsr_change_point *p, noisy_data *d, size_t lo, size_t tau, size_t hi,
                          size_t window, double permutation_p)
{
	size_t kmin, kmax;
	noisy_range(d, lo, tau, hi, &kmin, &kmax);
	*p = (tsr_change_point){ .commit = d->commit[tau], .first = d->commit[kmin - 1] + 1,
	                         .last = d->commit[kmax], .permutation_p = permutation_p };
	set_size(p, noisy_median(d, lo, tau), noisy_median(d, tau, hi));
	size_t a = tau - lo > window ? tau - window : lo;
	size_t b = hi - tau > window ? tau + window : hi;
	double u;
	const double *x = d->samples + d->start[a], *y = d->samples + d->start[tau];
	int rc = tsr_stats_get_mann_whitney(&u, &p->p_value, x, d->start[tau] - d->start[a], y,
	                          d->start[b] - d->start[tau]);
	if (rc != TSR_OK)
		return rc;
	p->verdict = p->p_value < MW_LEVEL ? TSR_CHANGE_CHANGED : TSR_CHANGE_UNSURE;
	return TSR_OK;
}

/* E-divisive's step on present commits [a, b) (at least twice the minimum
 * segment): the split of largest Q, into *change (an index of the whole
 * series), kept (true) when fewer than `significance` of the
 * permutations, plus the observed order, reach that Q. Each segment's
 * permutations have their own stream, from the seed and the bounds.
 *
 * A segment longer than MAX_POINTS commits is tested on the medians of
 * blocks of consecutive commits (at most MAX_POINTS of them: iid commits
 * give iid blocks, so the permutation test still holds), and the split
 * then placed at full resolution within a block of the best block
 * boundary. This bounds a test's cost by MAX_POINTS, not the series'
 * length: 10,000 commits cost 20 times less, at the price of missing a
 * change closer to a long segment's end than two blocks until the
 * bisection has cut the segment below MAX_POINTS. */
static bool split_segment(noisy_change *change, edm_work *w, noisy_data *d, size_t a, size_t b,
                          const tsr_changes_options *o)
{
	size_t len = b - a, block = (len + MAX_POINTS - 1) / MAX_POINTS;
	size_t n_blocks = (len + block - 1) / block;
	size_t min_blocks = (o->min_segment + block - 1) / block;
	if (min_blocks < 2)
		min_blocks = 2;
	if (n_blocks < 2 * min_blocks)
		return false;
	for (size_t k = 0; k < n_blocks; k++) {
		size_t from = a + k * block, to = from + block < b ? from + block : b;
		memcpy(d->scratch, d->median + from, (to - from) * sizeof *d->scratch);
		d->block[k] = median_sorting(d->scratch, to - from);
	}
	edm_prepare(w, d->block, n_blocks, min_blocks);
	size_t tau;
	double observed = edm_scan(w, &tau);
	uint64_t state = o->seed ^ (0x632be59bd9b4e019u * (a + 1)) ^ (0xd1b54a32d192ed03u * b);
	splitmix64(&state);
	size_t reached = 0;
	for (unsigned done = 0; done < o->permutations; done++) {
		/* p = (1 + reached) / (1 + permutations) can no longer end below
		 * the level: stop. */
		if ((double)(1 + reached) / (double)(1 + o->permutations) >= o->significance)
			return false;
		edm_shuffle(w, &state);
		size_t ignored;
		/* A relative margin keeps a permutation that ties the observed
		 * order (equal medians) counted, whatever the rounding. */
		if (edm_scan(w, &ignored) >= observed - 1e-12 * fabs(observed))
			reached++;
	}
	double p = (double)(1 + reached) / (double)(1 + o->permutations);
	if (p >= o->significance)
		return false;
	if (block > 1) {
		size_t near = tau * block;
		edm_prepare(w, d->median + a, len, o->min_segment);
		near = near < w->first_split ? w->first_split : near > w->last_split ? w->last_split : near;
		if (near > block + w->first_split)
			w->first_split = near - block;
		if (near + block < w->last_split)
			w->last_split = near + block;
		edm_scan(w, &tau);
	}
	*change = (noisy_change){ a + tau, p };
	return true;
}

/* E-divisive over the per-commit medians by recursive bisection. Two
 * neighbouring changes whose ranges (noisy_range) overlap are one change
 * split in two (a segment cut just beside a step leaves a sliver with
 * the step in it): they are replaced by the best split of the segment
 * they share, if that is significant, until no ranges overlap. */
static int find_noisy(change_list *list, const tsr_series *s,
                      const tsr_changes_options *o)
{
	noisy_data d = { 0 };
	edm_work w = { 0 };
	noisy_change *found = NULL;
	size_t n_found = 0;
	size_t (*stack)[2] = NULL;
	int rc = noisy_data_fill(&d, s);
	if (rc != TSR_OK)
		goto out;
	size_t n = d.n;
	rc = TSR_ERR_NO_MEMORY;
	w.item = tsb_reallocarray(NULL, n + 1, sizeof *w.item);
	w.order = tsb_reallocarray(NULL, n + 1, sizeof *w.order);
	w.tree = tsb_reallocarray(NULL, n + 1, sizeof *w.tree);
	w.coef_left = tsb_reallocarray(NULL, n + 1, sizeof *w.coef_left);
	w.coef_right = tsb_reallocarray(NULL, n + 1, sizeof *w.coef_right);
	/* Each split adds one segment to the stack and there are fewer splits
	 * than n / min_segment. */
	found = tsb_reallocarray(NULL, n / o->min_segment + 1, sizeof *found);
	stack = tsb_reallocarray(NULL, n / o->min_segment + 2, sizeof *stack);
	if (!w.item || !w.order || !w.tree || !w.coef_left || !w.coef_right || !found || !stack)
		goto out;
	size_t depth = 0;
	stack[depth][0] = 0, stack[depth][1] = n, depth++;
	while (depth > 0) {
		depth--;
		size_t a = stack[depth][0], b = stack[depth][1];
		if (b - a < 2 * o->min_segment || !split_segment(&found[n_found], &w, &d, a, b, o))
			continue;
		size_t tau = found[n_found++].tau;
		stack[depth][0] = a, stack[depth][1] = tau, depth++;
		stack[depth][0] = tau, stack[depth][1] = b, depth++;
	}
	qsort(found, n_found, sizeof *found, compare_noisy_change);
	for (size_t i = 0; i + 1 < n_found;) {
		size_t lo = i ? found[i - 1].tau : 0, hi = i + 2 < n_found ? found[i + 2].tau : n;
		size_t kmin, kmax, next_kmin, next_kmax;
		noisy_range(&d, lo, found[i].tau, found[i + 1].tau, &kmin, &kmax);
		noisy_range(&d, found[i].tau, found[i + 1].tau, hi, &next_kmin, &next_kmax);
		if (kmax < next_kmin) {
			i++;
			continue;
		}
		size_t gone = split_segment(&found[i], &w, &d, lo, hi, o) ? 1 : 2;
		memmove(found + i + 2 - gone, found + i + 2, (n_found - i - 2) * sizeof *found);
		n_found -= gone;
		/* The new change's left neighbour may now overlap it. */
		i = i ? i - 1 : 0;
	}
	for (size_t i = 0; i < n_found; i++) {
		size_t lo = i ? found[i - 1].tau : 0, hi = i + 1 < n_found ? found[i + 1].tau : n;
		tsr_change_point p;
		rc = describe_noisy(&p, &d, lo, found[i].tau, hi, o->window, found[i].permutation_p);
		if (rc == TSR_OK)
			rc = change_list_push(list, &p);
		if (rc != TSR_OK)
			goto out;
	}
	rc = TSR_OK;
out:
	noisy_data_free(&d);
	tsb_free(w.item);
	tsb_free(w.order);
	tsb_free(w.tree);
	tsb_free(w.coef_left);
	tsb_free(w.coef_right);
	tsb_free(found);
	tsb_free(stack);
	return rc;
}

int tsr_series_list_changes(tsr_change_point **out, size_t *n_out, const tsr_series *series,
                     const tsr_changes_options *options)
{
	if (!out || !n_out)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = NULL;
	*n_out = 0;
	if (!series || !series->offsets || (series->n_commits && !series->values) ||
	    series->offsets[0] != 0 || (options && options->version != TSR_CHANGES_OPTIONS_VERSION))
		return TSR_ERR_INVALID_ARGUMENT;
	for (size_t i = 0; i < series->n_commits; i++)
		if (series->offsets[i + 1] < series->offsets[i])
			return TSR_ERR_INVALID_ARGUMENT;
	/* Ranks and counts of a segment are 32-bit (half the scan's memory). */
	if (series->n_commits > UINT32_MAX)
		return TSR_ERR_TOO_LARGE;
	tsr_changes_options o = TSR_CHANGES_OPTIONS_INIT;
	if (options)
		o = *options;
	if (!o.permutations)
		o.permutations = 199;
	if (!(o.significance > 0))
		o.significance = 0.01;
	/* Two values a side at least: the within-side sums divide by m - 1. */
	if (o.min_segment < 2)
		o.min_segment = o.min_segment ? 2 : 5;
	if (!o.seed)
		o.seed = 0x74696c6573636f70u;
	if (!o.window)
		o.window = 10;
	change_list list = { 0 };
	int rc = series->deterministic ? find_deterministic(&list, series)
	                               : find_noisy(&list, series, &o);
	if (rc != TSR_OK) {
		tsb_free(list.items);
		return rc;
	}
	*out = list.items;
	*n_out = list.n;
	return TSR_OK;
}

size_t tsr_history_fill_series(size_t *offsets, double *values, size_t *first_point,
                               const tsr_history_point *p, size_t n, const char *label)
{
	const char *want = label ? label : "", *last = NULL;
	size_t n_commits = 0, kept = 0;

	if (!offsets || !values || (!p && n))
		return 0;
	for (size_t k = n; k-- > 0;) {
		const tsr_history_point *q = &p[k];

		if (strcmp(q->run.label ? q->run.label : "", want) != 0)
			continue;
		if (!last || strcmp(last, q->run.commit) != 0) {
			if (first_point)
				first_point[n_commits] = k;
			offsets[n_commits++] = kept;
			last = q->run.commit;
		}
		values[kept++] = (double)q->value;
	}
	offsets[n_commits] = kept;
	return n_commits;
}
