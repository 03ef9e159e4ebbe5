/*
 * Counter series and instants (trace.h).
 *
 * A series is loaded whole on its first query (times and values, checked,
 * in one read transaction so a trace still being written is seen at one
 * moment), with a pyramid of minima and maxima over blocks of 16, 256 ...
 * samples. A bucket's samples are then found by binary search and their
 * extremes read from at most 2 x 15 entries per level, so a query costs
 * O(buckets x log n) however many samples the window holds, and empty
 * buckets cost nothing.
 *
 * Instants are few in practice and read through the file's time index.
 */
#include "trace-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PYR_FANOUT 16u
/* The most buckets one counter query may ask for. */
#define MAX_BUCKETS (16u << 20)

/* Frees a loaded (or partly loaded) series, uncounting it. */
void trace_series_data_clear(tsr_trace *tr, trace_series_data *sd)
{
	size_t l;

	trace_free_mem(tr, sd->t, sd->cap * sizeof(*sd->t));
	trace_free_mem(tr, sd->v, sd->cap * sizeof(*sd->v));
	for (l = 0; l < sd->n_pyr; l++) {
		trace_free_mem(tr, sd->pyr_min[l], sd->pyr_n[l] * sizeof(double));
		trace_free_mem(tr, sd->pyr_max[l], sd->pyr_n[l] * sizeof(double));
	}
	sd->t = NULL;
	sd->v = NULL;
	sd->n = sd->cap = sd->n_pyr = 0;
	sd->loaded = false;
}

/* Builds level l + 1 of the pyramid from level l (level 0: the values). */
static int build_pyramid(tsr_trace *tr, trace_series_data *sd)
{
	const double *lo_min = sd->v, *lo_max = sd->v;
	size_t n = sd->n, i;

	while (n > 1 && sd->n_pyr < sizeof(sd->pyr_min) / sizeof(sd->pyr_min[0])) {
		size_t m = (n + PYR_FANOUT - 1) / PYR_FANOUT, l = sd->n_pyr;

		sd->pyr_n[l] = m;
		sd->pyr_min[l] = trace_alloc(tr, m, sizeof(double));
		sd->pyr_max[l] = trace_alloc(tr, m, sizeof(double));
		if (!sd->pyr_min[l] || !sd->pyr_max[l]) {
			sd->n_pyr = l + 1; /* freed with the series */
			return tr->code;
		}
		for (i = 0; i < m; i++) {
			size_t j, end = (i + 1) * PYR_FANOUT < n ? (i + 1) * PYR_FANOUT : n;
			double mn = lo_min[i * PYR_FANOUT], mx = lo_max[i * PYR_FANOUT];

			for (j = i * PYR_FANOUT + 1; j < end; j++) {
				if (lo_min[j] < mn)
					mn = lo_min[j];
				if (lo_max[j] > mx)
					mx = lo_max[j];
			}
			sd->pyr_min[l][i] = mn;
			sd->pyr_max[l][i] = mx;
		}
		sd->n_pyr++;
		lo_min = sd->pyr_min[l];
		lo_max = sd->pyr_max[l];
		n = m;
	}
	return TSR_OK;
}

/* Loads series `s`: its samples in time order (through the file's
 * (series, t_ns) index), each time moved onto the merged axis, each value
 * a finite number. */
static int load_series(tsr_trace *tr, size_t s)
{
	trace_series_data *sd = &tr->sdata[s];
	size_t p = tr->series[s].process;
	sqlite3 *db = tr->files[p].db;
	sqlite3_stmt *st = NULL;
	int64_t count = 0;
	bool in_txn = false;
	int rc;

	if (sd->loaded)
		return TSR_OK;
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK)
		in_txn = true;
	rc = trace_prepare(tr, &st, p, "SELECT count(*) FROM sample WHERE series = ?");
	if (rc != TSR_OK)
		goto cleanup;
	sqlite3_bind_int64(st, 1, sd->id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		rc = trace_sql_fail(tr, db, rc, tr->processes[p].path);
		goto cleanup;
	}
	count = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (count < 0 || (uint64_t)count > SIZE_MAX / sizeof(double)) {
		rc = trace_fail(tr, TSR_ERR_CORRUPT, "bad sample count");
		goto cleanup;
	}
	sd->cap = (size_t)count;
	if (!(sd->t = trace_alloc(tr, sd->cap, sizeof(*sd->t))) ||
	    !(sd->v = trace_alloc(tr, sd->cap, sizeof(*sd->v)))) {
		rc = tr->code;
		goto cleanup;
	}
	rc = trace_prepare(tr, &st, p, "SELECT t_ns, value FROM sample WHERE series = ? ORDER BY t_ns");
	if (rc != TSR_OK)
		goto cleanup;
	sqlite3_bind_int64(st, 1, sd->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int type = sqlite3_column_type(st, 1);
		double v = sqlite3_column_double(st, 1);

		if (sd->n >= sd->cap || sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
		    (type != SQLITE_FLOAT && type != SQLITE_INTEGER) || !isfinite(v)) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: a sample of series '%s' is malformed",
			                tr->processes[p].path, tr->series[s].name);
			goto cleanup;
		}
		if ((rc = trace_to_axis(tr, &sd->t[sd->n], p, sqlite3_column_int64(st, 0), "sample.t_ns")))
			goto cleanup;
		if (sd->n && sd->t[sd->n] < sd->t[sd->n - 1]) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: samples out of time order",
			                tr->processes[p].path);
			goto cleanup;
		}
		sd->v[sd->n++] = v;
	}
	if (rc != SQLITE_DONE) {
		rc = trace_sql_fail(tr, db, rc, tr->processes[p].path);
		goto cleanup;
	}
	rc = build_pyramid(tr, sd);
	if (rc == TSR_OK)
		sd->loaded = true;
cleanup:
	sqlite3_finalize(st);
	if (in_txn)
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != TSR_OK)
		trace_series_data_clear(tr, sd);
	return rc;
}

/* The first of n sorted times t at or after x. */
size_t trace_lower_bound(const int64_t *t, size_t n, int64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Minimum and maximum of samples [a, b) (a < b): single samples up to a
 * block boundary at each end, then whole blocks one level up, until few
 * enough remain to read directly. */
static void range_minmax(const trace_series_data *sd, size_t a, size_t b, double *mn, double *mx)
{
	const double *lo = sd->v, *hi = sd->v;
	size_t level = 0;

	*mn = INFINITY;
	*mx = -INFINITY;
	for (;;) {
		bool direct = level == sd->n_pyr || b - a < 2 * PYR_FANOUT;

		while (a < b && (direct || a % PYR_FANOUT)) {
			*mn = lo[a] < *mn ? lo[a] : *mn;
			*mx = hi[a] > *mx ? hi[a] : *mx;
			a++;
		}
		while (b > a && b % PYR_FANOUT) {
			b--;
			*mn = lo[b] < *mn ? lo[b] : *mn;
			*mx = hi[b] > *mx ? hi[b] : *mx;
		}
		if (a >= b)
			return;
		/* [a, b) is whole blocks of this level: one entry each above. */
		a /= PYR_FANOUT;
		b /= PYR_FANOUT;
		lo = sd->pyr_min[level];
		hi = sd->pyr_max[level];
		level++;
	}
}

/* See trace.h. */
int tsr_trace_list_counter_buckets(tsr_trace_counter_bucket **out, size_t *n, double *before,
                                   tsr_trace *tr, size_t series, int64_t from_ns, int64_t to_ns,
                                   uint64_t bucket_ns)
{
	tsr_trace_counter_bucket *v = NULL;
	const trace_series_data *sd;
	size_t cap = 0, count = 0, a;
	int rc;

	if (!tr || !out || !n)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = NULL;
	*n = 0;
	if (before)
		*before = NAN;
	if (series >= tr->n_series)
		return trace_fail(tr, TSR_ERR_OUT_OF_RANGE, "series %zu is past the end (%zu)", series,
		                  tr->n_series);
	if (bucket_ns == 0 || from_ns > to_ns ||
	    ((uint64_t)to_ns - (uint64_t)from_ns) / bucket_ns > MAX_BUCKETS)
		return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT,
		                  "counter buckets: a window of up to %u buckets of > 0 ns", MAX_BUCKETS);
	if ((rc = load_series(tr, series)) != TSR_OK)
		return rc;
	sd = &tr->sdata[series];
	a = trace_lower_bound(sd->t, sd->n, from_ns);
	if (before && a > 0)
		*before = sd->v[a - 1];
	while (a < sd->n && sd->t[a] < to_ns) {
		uint64_t k = ((uint64_t)sd->t[a] - (uint64_t)from_ns) / bucket_ns;
		int64_t lo = (int64_t)((uint64_t)from_ns + k * bucket_ns), hi;
		tsr_trace_counter_bucket *bk;
		size_t b;

		if (__builtin_add_overflow(lo, (int64_t)bucket_ns, &hi) || hi > to_ns)
			hi = to_ns;
		b = trace_lower_bound(sd->t + a, sd->n - a, hi) + a;
		if (count == cap) {
			size_t grown = cap ? cap * 2 : 256;
			tsr_trace_counter_bucket *g = trace_realloc(tr, v, cap, grown, sizeof(*g));

			if (!g) {
				trace_free_mem(tr, v, cap * sizeof(*v));
				return tr->code;
			}
			v = g;
			cap = grown;
		}
		bk = &v[count++];
		bk->from_ns = lo;
		bk->to_ns = hi;
		bk->count = b - a;
		bk->first = sd->v[a];
		bk->last = sd->v[b - 1];
		range_minmax(sd, a, b, &bk->min, &bk->max);
		a = b;
	}
	trace_release(tr, cap * sizeof(*v));
	*out = v;
	*n = count;
	return TSR_OK;
}

/* --- Instants ------------------------------------------------------------------- */

/* By time, then thread. */
static int compare_instants(const void *a, const void *b)
{
	const tsr_trace_instant *x = a, *y = b;

	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return (x->thread > y->thread) - (x->thread < y->thread);
}

/* Appends file `p`'s instants of the window (the earliest `limit`). */
static int instants_of_file(tsr_trace *tr, tsr_trace_instant **v, size_t *n, size_t *cap,
                            size_t p, int64_t thread, int64_t from, int64_t to, size_t limit)
{
	sqlite3_stmt *st = NULL;
	int64_t lo, hi;
	int rc;

	if (thread >= 0 && tr->threads[thread].process != p)
		return TSR_OK;
	trace_window_to_file(tr, p, from, to, &lo, &hi);
	rc = trace_prepare(tr, &st, p,
	                   thread >= 0 ? "SELECT thread, t_ns, channel, name, depth, parent FROM "
	                                 "instant WHERE t_ns >= ? AND t_ns < ? AND thread = ? "
	                                 "ORDER BY t_ns LIMIT ?"
	                               : "SELECT thread, t_ns, channel, name, depth, parent FROM "
	                                 "instant WHERE t_ns >= ? AND t_ns < ? ORDER BY t_ns LIMIT ?");
	if (rc != TSR_OK)
		return rc;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	if (thread >= 0)
		sqlite3_bind_int64(st, 3, tr->threads[thread].id);
	sqlite3_bind_int64(st, thread >= 0 ? 4 : 3, limit ? (int64_t)limit : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		tsr_trace_instant *in;
		int64_t depth = sqlite3_column_int64(st, 4);
		int i;

		for (i = 0; i < 5; i++)
			if (sqlite3_column_type(st, i) != SQLITE_INTEGER)
				break;
		if (i < 5 || depth < 0 || depth > (int64_t)TRACE_MAX_DEPTH ||
		    (sqlite3_column_type(st, 5) != SQLITE_NULL &&
		     (sqlite3_column_type(st, 5) != SQLITE_INTEGER || sqlite3_column_int64(st, 5) < 0))) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: an instant row is malformed",
			                tr->processes[p].path);
			goto cleanup;
		}
		if (*n == *cap) {
			size_t grown = *cap ? *cap * 2 : 256;
			tsr_trace_instant *g = trace_realloc(tr, *v, *cap, grown, sizeof(*g));

			if (!g) {
				rc = tr->code;
				goto cleanup;
			}
			*v = g;
			*cap = grown;
		}
		in = &(*v)[*n];
		in->depth = (uint32_t)depth;
		in->parent = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 5);
		if ((rc = trace_map_thread(tr, &in->thread, p, sqlite3_column_int64(st, 0))) ||
		    (rc = trace_to_axis(tr, &in->t_ns, p, sqlite3_column_int64(st, 1), "instant.t_ns")) ||
		    (rc = trace_map_channel(tr, &in->channel, p, sqlite3_column_int64(st, 2))) ||
		    (rc = trace_map_name(tr, &in->name, p, sqlite3_column_int64(st, 3))))
			goto cleanup;
		(*n)++;
	}
	rc = rc == SQLITE_DONE ? TSR_OK : trace_sql_fail(tr, tr->files[p].db, rc, tr->processes[p].path);
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/* See trace.h: each file gives its earliest `limit`; merged, sorted, cut. */
int tsr_trace_list_instants(tsr_trace_instant **out, size_t *n, tsr_trace *tr, int64_t thread,
                            int64_t from_ns, int64_t to_ns, size_t limit)
{
	tsr_trace_instant *v = NULL;
	size_t count = 0, cap = 0, p;
	int rc = TSR_OK;

	if (!tr || !out || !n)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = NULL;
	*n = 0;
	if ((rc = trace_check_window(tr, thread, from_ns, to_ns)))
		return rc;
	for (p = 0; p < tr->n_processes && rc == TSR_OK; p++)
		rc = instants_of_file(tr, &v, &count, &cap, p, thread, from_ns, to_ns, limit);
	if (rc != TSR_OK) {
		trace_free_mem(tr, v, cap * sizeof(*v));
		return rc;
	}
	if (count > 1)
		qsort(v, count, sizeof(*v), compare_instants);
	if (limit && count > limit)
		count = limit;
	trace_release(tr, cap * sizeof(*v));
	*out = v;
	*n = count;
	return TSR_OK;
}
