/*
 * Heatmaps (trace.h): pvti_heatmap_add's samples, how many values fell
 * in each bucket at each moment (db-schema/pvti.sql, tables heatmap and
 * heatmap_sample).
 *
 * The list is read on first use: the heatmap table, and per heatmap its
 * sample count and time range through the file's (heatmap, t_ns) index
 * (index-only, the rows are not read). A heatmap's rows are loaded on its
 * first column query, in time order through the same index, with running
 * totals per bucket at every 64th row, so a column's counts are two
 * binary searches, one difference of totals and at most 2 x 64 rows read
 * directly: a query costs O(columns x (buckets + 128)) however many rows
 * the window holds.
 *
 * Hostile files: edges that db-schema's codec refuses (heatmap-edges.h)
 * make the list fail with one line naming the heatmap and what is wrong;
 * a row whose bucket is out of range, whose count is below 1 or whose
 * columns are not integers is skipped and counted
 * (tsr_trace_heatmap.skipped).
 */
#include "trace-private.h"
#include "heatmap-edges.h"

#include <tilescope/alloc.h>

#include <stdlib.h>
#include <string.h>

/* Rows between two running totals. */
#define BLOCK 64u
/* The most counts one query may return. */
#define MAX_CELLS (16u << 20)

/* One heatmap's rows, once loaded. */
typedef struct heatmap_rows {
	bool loaded;
	size_t n, cap;             /* rows kept, and the arrays' length */
	int64_t *t;                /* merged axis, ascending */
	uint32_t *bucket;
	uint64_t *count;
	uint64_t *totals;          /* (n / BLOCK + 1) x buckets: sums of rows [0, k * BLOCK) */
} heatmap_rows;

struct trace_heatmaps {
	tsr_trace_heatmap *list;
	int64_t *ids;              /* heatmap.id in its file */
	heatmap_rows *rows;
	size_t n;
};

/* Frees one heatmap's rows, uncounting them. */
static void rows_clear(tsr_trace *tr, heatmap_rows *r, size_t buckets)
{
	size_t cap = r->cap;

	trace_free_mem(tr, r->t, cap * sizeof(*r->t));
	trace_free_mem(tr, r->bucket, cap * sizeof(*r->bucket));
	trace_free_mem(tr, r->count, cap * sizeof(*r->count));
	trace_free_mem(tr, r->totals, (cap / BLOCK + 1) * buckets * sizeof(*r->totals));
	*r = (heatmap_rows){0};
}

void trace_heatmaps_free(tsr_trace *tr)
{
	struct trace_heatmaps *h = tr->heatmaps;

	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++) {
		rows_clear(tr, &h->rows[i], h->list[i].n_edges + 1);
		tsb_free((void *)h->list[i].edges);
		tsb_free((void *)h->list[i].name);
	}
	tsb_free(h->list);
	tsb_free(h->ids);
	tsb_free(h->rows);
	tsb_free(h);
	tr->heatmaps = NULL;
}

/* Appends file `p`'s heatmaps (by id) to h, with their sample counts and
 * time ranges. A file without the tables has none. */
static int read_file(tsr_trace *tr, struct trace_heatmaps *h, size_t p)
{
	sqlite3_stmt *st = NULL, *agg = NULL;
	const char *path = tr->processes[p].path;
	int rc;

	if (sqlite3_prepare_v2(tr->files[p].db, "SELECT id, name, unit, edges FROM heatmap ORDER BY id",
	                       -1, &st, NULL) != SQLITE_OK)
		return TSR_OK;
	rc = trace_prepare(tr, &agg, p,
	                   "SELECT count(DISTINCT t_ns), min(t_ns), max(t_ns) FROM heatmap_sample "
	                   "WHERE heatmap = ?");
	while (rc == TSR_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *unit = (const char *)sqlite3_column_text(st, 2);
		const char *edges = (const char *)sqlite3_column_text(st, 3);
		tsr_trace_heatmap *hm;
		const char *why;
		size_t i = h->n, ln, lu;
		char *names;

		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER || !name || !edges) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: a heatmap row is malformed", path);
			break;
		}
		unit = unit ? unit : "";
		if (i % 16 == 0) {
			tsr_trace_heatmap *l = tsb_reallocarray(h->list, i + 16, sizeof(*l));
			int64_t *ids = l ? tsb_reallocarray(h->ids, i + 16, sizeof(*ids)) : NULL;
			heatmap_rows *r = ids ? tsb_reallocarray(h->rows, i + 16, sizeof(*r)) : NULL;

			h->list = l ? l : h->list;
			h->ids = ids ? ids : h->ids;
			h->rows = r ? r : h->rows;
			if (!r) {
				rc = trace_fail(tr, TSR_ERR_NO_MEMORY, "heatmaps: out of memory");
				break;
			}
		}
		hm = &h->list[i];
		*hm = (tsr_trace_heatmap){.process = p};
		h->rows[i] = (heatmap_rows){0};
		h->ids[i] = sqlite3_column_int64(st, 0);
		ln = strlen(name);
		lu = strlen(unit);
		if (!(names = tsb_malloc(ln + lu + 2))) {
			rc = trace_fail(tr, TSR_ERR_NO_MEMORY, "heatmaps: out of memory");
			break;
		}
		memcpy(names, name, ln + 1);
		memcpy(names + ln + 1, unit, lu + 1);
		hm->name = names;
		hm->unit = names + ln + 1;
		h->n++;
		if ((rc = tsf_heatmap_edges_decode((double **)&hm->edges, &hm->n_edges, &why, edges))) {
			rc = trace_fail(tr, rc == -2 ? TSR_ERR_NO_MEMORY : TSR_ERR_CORRUPT,
			                "%s: heatmap '%s' has bad edges: %s", path, name, why);
			break;
		}
		trace_restart(agg);
		sqlite3_bind_int64(agg, 1, h->ids[i]);
		if ((rc = sqlite3_step(agg)) != SQLITE_ROW) {
			rc = trace_sql_fail(tr, tr->files[p].db, rc, path);
			break;
		}
		rc = TSR_OK;
		hm->samples = (uint64_t)sqlite3_column_int64(agg, 0);
		if (hm->samples &&
		    ((rc = trace_to_axis(tr, &hm->first_ns, p, sqlite3_column_int64(agg, 1), "t_ns")) ||
		     (rc = trace_to_axis(tr, &hm->last_ns, p, sqlite3_column_int64(agg, 2), "t_ns"))))
			break;
	}
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
	else if (rc > 0)
		rc = trace_sql_fail(tr, tr->files[p].db, rc, path);
	sqlite3_finalize(st);
	sqlite3_finalize(agg);
	return rc;
}

/* See trace.h. */
int tsr_trace_get_heatmaps(const tsr_trace_heatmap **out, size_t *n, tsr_trace *tr)
{
	int rc = TSR_OK;

	if (!out || !n || !tr)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = NULL;
	*n = 0;
	if (!tr->heatmaps) {
		if (!(tr->heatmaps = tsb_calloc(1, sizeof(*tr->heatmaps))))
			return trace_fail(tr, TSR_ERR_NO_MEMORY, "heatmaps: out of memory");
		for (size_t p = 0; p < tr->n_processes && rc == TSR_OK; p++)
			rc = read_file(tr, tr->heatmaps, p);
		if (rc != TSR_OK) {
			trace_heatmaps_free(tr);
			return rc;
		}
	}
	*out = tr->heatmaps->list;
	*n = tr->heatmaps->n;
	return TSR_OK;
}

/* Loads heatmap `i`'s rows in time order, skipping (and counting) the
 * malformed ones, then the running totals. */
static int load_rows(tsr_trace *tr, size_t i)
{
	struct trace_heatmaps *h = tr->heatmaps;
	tsr_trace_heatmap *hm = &h->list[i];
	heatmap_rows *r = &h->rows[i];
	size_t p = hm->process, buckets = hm->n_edges + 1, cap = 0;
	sqlite3 *db = tr->files[p].db;
	sqlite3_stmt *st = NULL;
	bool in_txn = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
	int64_t count = 0;
	int rc;

	hm->skipped = 0;
	if ((rc = trace_prepare(tr, &st, p, "SELECT count(*) FROM heatmap_sample WHERE heatmap = ?")))
		goto cleanup;
	sqlite3_bind_int64(st, 1, h->ids[i]);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		rc = trace_sql_fail(tr, db, rc, tr->processes[p].path);
		goto cleanup;
	}
	count = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	r->cap = cap = count > 0 ? (size_t)count : 0;
	if (!(r->t = trace_alloc(tr, cap, sizeof(*r->t))) ||
	    !(r->bucket = trace_alloc(tr, cap, sizeof(*r->bucket))) ||
	    !(r->count = trace_alloc(tr, cap, sizeof(*r->count))) ||
	    !(r->totals = trace_alloc(tr, (cap / BLOCK + 1) * buckets, sizeof(*r->totals)))) {
		rc = tr->code;
		goto cleanup;
	}
	if ((rc = trace_prepare(tr, &st, p, "SELECT t_ns, bucket, count FROM heatmap_sample "
	                                    "WHERE heatmap = ? ORDER BY t_ns")))
		goto cleanup;
	sqlite3_bind_int64(st, 1, h->ids[i]);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(st, 1), c = sqlite3_column_int64(st, 2), t;

		if (r->n >= cap)
			break; /* rows added since the count: a trace being written */
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
		    sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
		    sqlite3_column_type(st, 2) != SQLITE_INTEGER || b < 0 || (uint64_t)b >= buckets ||
		    c < 1 || trace_to_axis(tr, &t, p, sqlite3_column_int64(st, 0), "t_ns") != TSR_OK) {
			hm->skipped++;
			continue;
		}
		r->t[r->n] = t;
		r->bucket[r->n] = (uint32_t)b;
		r->count[r->n++] = (uint64_t)c;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		rc = trace_sql_fail(tr, db, rc, tr->processes[p].path);
		goto cleanup;
	}
	rc = TSR_OK;
	/* Running totals: block k holds the sums of rows [0, k * BLOCK). */
	for (size_t k = 1; k <= r->n / BLOCK; k++) {
		uint64_t *row = r->totals + k * buckets;

		memcpy(row, row - buckets, buckets * sizeof(*row));
		for (size_t j = (k - 1) * BLOCK; j < k * BLOCK; j++)
			row[r->bucket[j]] += r->count[j];
	}
	r->loaded = true;
cleanup:
	sqlite3_finalize(st);
	if (in_txn)
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != TSR_OK)
		rows_clear(tr, r, buckets);
	return rc;
}

/* Adds rows [a, b) to `sum` (buckets entries): whole blocks from the
 * running totals, the ends row by row. */
static void add_rows(const heatmap_rows *r, size_t buckets, size_t a, size_t b, uint64_t *sum)
{
	size_t ka = (a + BLOCK - 1) / BLOCK, kb = b / BLOCK;

	if (ka < kb) {
		const uint64_t *hi = r->totals + kb * buckets, *lo = r->totals + ka * buckets;

		for (size_t j = 0; j < buckets; j++)
			sum[j] += hi[j] - lo[j];
		for (size_t j = a; j < ka * BLOCK; j++)
			sum[r->bucket[j]] += r->count[j];
		a = kb * BLOCK;
	}
	for (size_t j = a; j < b; j++)
		sum[r->bucket[j]] += r->count[j];
}

/* See trace.h. */
int tsr_trace_list_heatmap_counts(uint64_t **out, tsr_trace *tr, size_t heatmap, int64_t from_ns,
                                  int64_t to_ns, size_t columns)
{
	const tsr_trace_heatmap *list;
	const heatmap_rows *r;
	size_t n, buckets;
	uint64_t *v;
	int rc;

	if (!out || !tr)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = NULL;
	if ((rc = tsr_trace_get_heatmaps(&list, &n, tr)))
		return rc;
	if (heatmap >= n)
		return trace_fail(tr, TSR_ERR_OUT_OF_RANGE, "heatmap %zu is past the end (%zu)",
		                  heatmap, n);
	buckets = list[heatmap].n_edges + 1;
	if (columns == 0 || from_ns > to_ns || columns > MAX_CELLS / buckets)
		return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT,
		                  "heatmap counts: 1 to %zu columns of a window that does not end "
		                  "before it starts", (size_t)MAX_CELLS / buckets);
	if (!tr->heatmaps->rows[heatmap].loaded && (rc = load_rows(tr, heatmap)))
		return rc;
	r = &tr->heatmaps->rows[heatmap];
	if (!(v = trace_alloc(tr, columns * buckets, sizeof(*v))))
		return tr->code;
	/* Column c: [from + span * c / columns, from + span * (c + 1) / columns). */
	{
		uint64_t span = (uint64_t)to_ns - (uint64_t)from_ns;
		size_t a = trace_lower_bound(r->t, r->n, from_ns);

		for (size_t c = 0; c < columns && a < r->n; c++) {
			int64_t hi = (int64_t)((uint64_t)from_ns + span / columns * (c + 1) +
			                       span % columns * (c + 1) / columns);
			size_t b = a + trace_lower_bound(r->t + a, r->n - a, hi);

			add_rows(r, buckets, a, b, v + c * buckets);
			a = b;
		}
	}
	trace_release(tr, columns * buckets * sizeof(*v));
	*out = v;
	return TSR_OK;
}
