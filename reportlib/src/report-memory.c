/*
 * Memory figures of a report: by tile (read at open), totals and
 * histograms per IPU, the largest tiles, the guide's categories (from
 * memory_category, per IPU by decoding its by_tile blobs), vertex memory
 * by compute set and vertex type, and the listed variables (read on first
 * use by tsr_load_variables).
 *
 * Whole-replica figures come from the plain total columns beside the
 * blobs (no decoding); per-IPU figures decode the blobs, whose every run
 * tsr_column_tiles checks against num_tiles. Sums of byte counts read
 * from the file are checked for overflow (a lying file is
 * TSR_ERR_CORRUPT, never a wrapped number).
 */
#include <tilescope/alloc.h>
#include "report-private.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Both are expanded from vocabulary.def; a check that the expansions stay
 * the same lists. */
_Static_assert((int)TSR_REGION_COUNT == TSF_REGION_COUNT, "tsr_region follows the vocabulary");
_Static_assert((int)TSR_MEM_CATEGORY_COUNT == TSF_MEM_CATEGORY_COUNT &&
                   (int)TSR_MEM_VERTEX_INSTANCE_STATE == TSF_MEM_VERTEX_INSTANCE_STATE,
               "tsr_mem_category follows the vocabulary");
_Static_assert((int)TSR_DATA_TYPE_COUNT == TSF_DATA_TYPE_COUNT && (int)TSR_DATA_UNKNOWN == -1 &&
                   (int)TSR_DATA_BOOL == TSF_DATA_BOOL,
               "tsr_data_type follows the vocabulary");

/* Categories are the vocabulary's (vocabulary.h), in its order; the same
 * spelling as memory_category.category and variable.category. */
size_t tsr_category_count(void)
{
	return TSF_MEM_CATEGORY_COUNT;
}

const char *tsr_category_name(tsr_mem_category category)
{
	return tsf_vocab_name(TSF_VOCAB_MEM_CATEGORY, (int)category); /* NULL past the list */
}

const char *tsr_category_label(tsr_mem_category category)
{
	return tsf_mem_category_label((int)category); /* NULL past the list */
}

const char *tsr_region_name(tsr_region region)
{
	return tsf_vocab_name(TSF_VOCAB_REGION, (int)region);
}

const char *tsr_data_type_name(tsr_data_type type)
{
	return tsf_vocab_name(TSF_VOCAB_DATA_TYPE, (int)type); /* NULL for TSR_DATA_UNKNOWN */
}

/* The index of a category name, or -1. */
static int category_index(const unsigned char *name)
{
	return tsf_vocab_lookup(TSF_VOCAB_MEM_CATEGORY, (const char *)name);
}

/* *sum += v; false on overflow. */
static bool add_to(uint64_t *sum, uint64_t v)
{
	if (v > UINT64_MAX - *sum)
		return false;
	*sum += v;
	return true;
}

/* The failure of a sum that overflowed. */
static int overflow(tsr_report *r, const char *what)
{
	return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': the %s add up past 2^64 bytes", r->path, what);
}

/* --- Tiles --------------------------------------------------------------------------- */

int tsr_report_get_tile_memory(const tsr_tile_memory **out, size_t *n, tsr_report *report)
{
	if (!report || !out || !n)
		return tsr_fail_null_argument(report, "tsr_report_get_tile_memory");
	*out = report->tiles;
	*n = report->target.num_tiles;
	return TSR_OK;
}

int tsr_report_get_oom_tiles(const uint32_t **out, size_t *n, tsr_report *report)
{
	if (!report || !out || !n)
		return tsr_fail_null_argument(report, "tsr_report_get_oom_tiles");
	*out = report->oom_tiles;
	*n = report->n_oom_tiles;
	return TSR_OK;
}

/* The one gaps rule (report.h): the space from the tile's data up to its
 * highest address used, never negative. */
uint64_t tsr_tile_memory_get_gaps(const tsr_tile_memory *m)
{
	return m && m->total_including_gaps > m->total ? m->total_including_gaps - m->total : 0;
}

uint64_t tsr_tile_memory_get_bytes(const tsr_tile_memory *m, bool including_gaps)
{
	if (!m)
		return 0;
	/* total + gaps cannot wrap: it is total_including_gaps or total. */
	return including_gaps ? m->total + tsr_tile_memory_get_gaps(m) : m->total;
}

/* Totals of the tiles of one IPU, or all of them. */
int tsr_report_fill_memory_totals(tsr_memory_totals *out, tsr_report *report, int ipu)
{
	size_t lo, hi;
	int rc;

	if (!report || !out)
		return tsr_fail_null_argument(report, "tsr_report_fill_memory_totals");
	memset(out, 0, sizeof(*out));
	rc = tsr_ipu_tiles(report, ipu, &lo, &hi);
	if (rc)
		return rc;
	out->capacity = report->target.bytes_per_tile * (uint64_t)(hi - lo); /* checked at open */
	out->min_tile_bytes = hi > lo ? UINT64_MAX : 0;
	for (size_t t = lo; t < hi; t++) {
		const tsr_tile_memory *m = &report->tiles[t];
		uint64_t with_gaps = tsr_tile_memory_get_bytes(m, true);
		bool ok = add_to(&out->total, m->total) &&
		          add_to(&out->total_including_gaps, with_gaps);

		for (int k = 0; ok && k < TSR_REGION_COUNT; k++)
			ok = add_to(&out->region[k], m->region[k]) &&
			     add_to(&out->region_including_gaps[k], m->region_including_gaps[k]);
		if (!ok) {
			memset(out, 0, sizeof(*out));
			return overflow(report, "tiles' bytes");
		}
		if (t == lo || with_gaps > out->max_tile_bytes) {
			out->max_tile = (uint32_t)t;
			out->max_tile_bytes = with_gaps;
		}
		if (t == lo || m->total > out->max_tile_excluding_gaps_bytes) {
			out->max_tile_excluding_gaps = (uint32_t)t;
			out->max_tile_excluding_gaps_bytes = m->total;
		}
		if (with_gaps < out->min_tile_bytes)
			out->min_tile_bytes = with_gaps;
		if (with_gaps > report->target.bytes_per_tile)
			out->oom_tiles++;
	}
	out->mean_tile_bytes = hi > lo ? (double)out->total_including_gaps / (double)(hi - lo) : 0.0;
	return TSR_OK;
}

/* A tile's total including gaps or not. */
static uint64_t tile_bytes(const tsr_tile_memory *m, bool including_gaps)
{
	return tsr_tile_memory_get_bytes(m, including_gaps);
}

/* Context of the largest-tiles sort (qsort has no user pointer). */
static _Thread_local const tsr_tile_memory *sort_tiles;
static _Thread_local bool sort_gaps;

/* Fullest first, then by tile number. */
static int compare_tiles(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t bx = tile_bytes(&sort_tiles[x], sort_gaps), by = tile_bytes(&sort_tiles[y], sort_gaps);

	if (bx != by)
		return bx > by ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The k fullest tiles of one IPU (or all). */
int tsr_report_list_largest_tiles(uint32_t **out, size_t *n, tsr_report *report, int ipu,
                                  bool including_gaps, size_t k)
{
	uint32_t *tiles;
	size_t lo, hi;
	int rc;

	if (!report || !out || !n)
		return tsr_fail_null_argument(report, "tsr_report_list_largest_tiles");
	*out = NULL;
	*n = 0;
	rc = tsr_ipu_tiles(report, ipu, &lo, &hi);
	if (rc)
		return rc;
	tiles = tsb_malloc((hi - lo ? hi - lo : 1) * sizeof(*tiles));
	if (!tiles)
		return tsr_fail(report, TSR_ERR_NO_MEMORY, "largest tiles: out of host memory");
	for (size_t t = lo; t < hi; t++)
		tiles[t - lo] = (uint32_t)t;
	sort_tiles = report->tiles;
	sort_gaps = including_gaps;
	qsort(tiles, hi - lo, sizeof(*tiles), compare_tiles);
	*out = tiles;
	*n = k < hi - lo ? k : hi - lo;
	return TSR_OK;
}

/* Tiles per bucket of `width` bytes (0: about 20 buckets). */
int tsr_report_list_tile_histogram(uint64_t **counts, size_t *n_buckets, uint64_t *width_out,
                                   tsr_report *report, int ipu, bool including_gaps, uint64_t width)
{
	uint64_t max = 0, buckets;
	uint64_t *c;
	size_t lo, hi;
	int rc;

	if (!report || !counts || !n_buckets)
		return tsr_fail_null_argument(report, "tsr_report_list_tile_histogram");
	*counts = NULL;
	*n_buckets = 0;
	rc = tsr_ipu_tiles(report, ipu, &lo, &hi);
	if (rc)
		return rc;
	for (size_t t = lo; t < hi; t++)
		if (tile_bytes(&report->tiles[t], including_gaps) > max)
			max = tile_bytes(&report->tiles[t], including_gaps);
	if (width == 0)
		width = max / 20 + 1; /* ceil((max + 1) / 20): at most 20 buckets */
	buckets = max / width + 1;
	if (buckets > ((uint64_t)1 << 24))
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                "tile histogram: a width of %llu bytes makes %llu buckets",
		                (unsigned long long)width, (unsigned long long)buckets);
	c = tsb_calloc((size_t)buckets, sizeof(*c));
	if (!c)
		return tsr_fail(report, TSR_ERR_NO_MEMORY, "tile histogram: out of host memory");
	for (size_t t = lo; t < hi; t++)
		c[tile_bytes(&report->tiles[t], including_gaps) / width]++;
	*counts = c;
	*n_buckets = (size_t)buckets;
	if (width_out)
		*width_out = width;
	return TSR_OK;
}

/* --- Categories ----------------------------------------------------------------------- */

/* Sum of dense[lo..hi); false on overflow. */
static bool sum_range(uint64_t *sum, const uint64_t *dense, size_t lo, size_t hi)
{
	*sum = 0;
	for (size_t t = lo; t < hi; t++)
		if (!add_to(sum, dense[t]))
			return false;
	return true;
}

/* A scratch array of num_tiles entries charged to the cap. */
static uint64_t *scratch_tiles(tsr_report *r)
{
	return tsr_alloc(r, r->target.num_tiles, sizeof(uint64_t));
}

static void free_scratch(tsr_report *r, uint64_t *p)
{
	tsr_free(r, p, (size_t)r->target.num_tiles * sizeof(uint64_t));
}

/* Category, region and overlapped columns 0..2 of a memory_category row. */
static int category_key(tsr_report *r, sqlite3_stmt *st, int *cat, int *region, int *ov)
{
	const unsigned char *rg;
	int64_t v = 0;
	int rc;

	*cat = sqlite3_column_type(st, 0) == SQLITE_TEXT ? category_index(sqlite3_column_text(st, 0))
	                                                 : -1;
	if (*cat < 0)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': memory_category has an unknown category",
		                r->path);
	rg = sqlite3_column_type(st, 1) == SQLITE_TEXT ? sqlite3_column_text(st, 1) : NULL;
	*region = tsf_vocab_lookup(TSF_VOCAB_REGION, (const char *)rg);
	if (*region < 0)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': memory_category has an unknown region",
		                r->path);
	rc = tsr_column_int(r, &v, st, 2, 0, 1, "memory_category.overlapped");
	*ov = (int)v;
	return rc;
}

/* Every category by region and overlap for one IPU (or all). */
int tsr_report_list_memory_by_category(tsr_category_memory **out, size_t *n, tsr_report *report,
                                       int ipu)
{
	tsr_category_memory *cats = NULL;
	sqlite3_stmt *st = NULL;
	uint64_t *dense = NULL;
	size_t lo, hi;
	int rc;

	if (!report || !out || !n)
		return tsr_fail_null_argument(report, "tsr_report_list_memory_by_category");
	*out = NULL;
	*n = 0;
	rc = tsr_ipu_tiles(report, ipu, &lo, &hi);
	if (rc)
		return rc;
	cats = tsb_calloc(TSF_MEM_CATEGORY_COUNT, sizeof(*cats));
	if (!cats)
		return tsr_fail(report, TSR_ERR_NO_MEMORY, "categories: out of host memory");
	for (size_t i = 0; i < TSF_MEM_CATEGORY_COUNT; i++)
		cats[i].category = (tsr_mem_category)i;
	if (ipu >= 0) {
		dense = scratch_tiles(report);
		if (!dense) {
			rc = TSR_ERR_TOO_LARGE;
			goto out;
		}
	}
	rc = tsr_prepare(report, &st,
	                 ipu >= 0 ? "SELECT category, region, overlapped, total, by_tile "
	                            "FROM memory_category"
	                          : "SELECT category, region, overlapped, total FROM memory_category");
	while (!rc) {
		int cat = 0, region = 0, ov = 0;
		int64_t total = 0;
		uint64_t bytes;
		tsr_category_memory *c;

		rc = tsr_step_row(report, st);
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = category_key(report, st, &cat, &region, &ov);
		if (!rc)
			rc = tsr_column_int(report, &total, st, 3, 0, INT64_MAX, "memory_category.total");
		if (!rc && ipu >= 0) {
			rc = tsr_column_tiles(report, dense, report->target.num_tiles, st, 4,
			                      "memory_category.by_tile");
			if (!rc && !sum_range(&bytes, dense, lo, hi))
				rc = overflow(report, "category bytes");
		} else {
			bytes = (uint64_t)total;
		}
		if (rc)
			break;
		c = &cats[cat];
		c->bytes[region][ov] = bytes; /* one row per key (the primary key) */
		if (!add_to(&c->total, bytes) || !add_to(ov ? &c->overlapped : &c->non_overlapped, bytes))
			rc = overflow(report, "category bytes");
	}
out:
	sqlite3_finalize(st);
	if (dense)
		free_scratch(report, dense);
	if (rc) {
		free(cats);
		return rc;
	}
	*out = cats;
	*n = TSF_MEM_CATEGORY_COUNT;
	return TSR_OK;
}

/* One category on each tile, summed over regions, and over overlap when
 * `overlapped` is -1 (else only the rows of that overlapped column). */
static int fill_category_by_tile(uint64_t *out, size_t n, tsr_report *report,
                                 tsr_mem_category category, int overlapped)
{
	sqlite3_stmt *st = NULL;
	uint64_t *dense;
	size_t nt;
	int rc;

	rc = tsr_check_by_tile(report, out, n, "tsr_report_fill_category_by_tile", "category by tile", &nt);
	if (rc)
		return rc;
	if ((unsigned)category >= TSR_MEM_CATEGORY_COUNT)
		return tsr_fail(report, TSR_ERR_OUT_OF_RANGE, "category %d of %d", (int)category,
		                (int)TSR_MEM_CATEGORY_COUNT);
	memset(out, 0, nt * sizeof(*out));
	dense = scratch_tiles(report);
	if (!dense)
		return TSR_ERR_TOO_LARGE;
	rc = tsr_prepare(report, &st,
	                 "SELECT by_tile FROM memory_category WHERE category = ?1 "
	                 "AND (?2 < 0 OR overlapped = ?2)");
	if (!rc) {
		sqlite3_bind_text(st, 1, tsr_category_name(category), -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, overlapped);
	}
	for (int rows = 0; !rc; rows++) {
		rc = tsr_step_row(report, st);
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_tiles(report, dense, nt, st, 0, "memory_category.by_tile");
		for (size_t t = 0; !rc && t < nt; t++)
			if (!add_to(&out[t], dense[t]))
				rc = overflow(report, "category bytes");
	}
	sqlite3_finalize(st);
	free_scratch(report, dense);
	if (rc)
		memset(out, 0, nt * sizeof(*out));
	return rc;
}

int tsr_report_fill_category_by_tile(uint64_t *out, size_t n, tsr_report *report,
                                     tsr_mem_category category)
{
	return fill_category_by_tile(out, n, report, category, -1);
}

int tsr_report_fill_category_by_tile_overlap(uint64_t *out, size_t n, tsr_report *report,
                                             tsr_mem_category category, bool overlapped)
{
	return fill_category_by_tile(out, n, report, category, overlapped ? 1 : 0);
}

/* The overlap rule (report.h), saturating where a malformed file would
 * make a difference negative or a sum wrap. */
void tsr_memory_fill_sharing(tsr_memory_sharing *out, uint64_t total, uint64_t not_overlapped,
                             uint64_t overlapped)
{
	if (!out)
		return;
	out->not_overlapped = not_overlapped;
	out->overlapped = overlapped;
	out->parts = overlapped > UINT64_MAX - not_overlapped ? UINT64_MAX
	                                                       : not_overlapped + overlapped;
	out->after_overlapping = total > not_overlapped ? total - not_overlapped : 0;
	out->shared = overlapped > out->after_overlapping ? overlapped - out->after_overlapping : 0;
}

/* Every tile's sharing: one pass over memory_category's blobs, adding
 * each tile's bytes of own and overlapped storage. */
int tsr_report_fill_sharing_by_tile(tsr_memory_sharing *out, size_t n, tsr_report *report)
{
	sqlite3_stmt *st = NULL;
	uint64_t *dense = NULL, *own = NULL, *shared = NULL;
	size_t nt;
	int rc;

	rc = tsr_check_by_tile(report, out, n, "tsr_report_fill_sharing_by_tile", "sharing by tile", &nt);
	if (rc)
		return rc;
	/* Zeroed, charged to the handle's memory cap. */
	dense = tsr_alloc_rc(report, &rc, nt, sizeof(*dense));
	if (!rc)
		own = tsr_alloc_rc(report, &rc, nt, sizeof(*own));
	if (!rc)
		shared = tsr_alloc_rc(report, &rc, nt, sizeof(*shared));
	if (!rc)
		rc = tsr_prepare(report, &st, "SELECT overlapped, by_tile FROM memory_category");
	while (!rc) {
		int64_t ov = 0;

		rc = tsr_step_row(report, st);
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_int(report, &ov, st, 0, 0, 1, "memory_category.overlapped");
		if (!rc)
			rc = tsr_column_tiles(report, dense, nt, st, 1, "memory_category.by_tile");
		for (size_t t = 0; !rc && t < nt; t++)
			if (!add_to(ov ? &shared[t] : &own[t], dense[t]))
				rc = overflow(report, "category bytes");
	}
	for (size_t t = 0; !rc && t < nt; t++)
		tsr_memory_fill_sharing(&out[t], report->tiles[t].total, own[t], shared[t]);
	sqlite3_finalize(st);
	if (dense)
		free_scratch(report, dense);
	if (own)
		free_scratch(report, own);
	if (shared)
		free_scratch(report, shared);
	if (rc)
		memset(out, 0, nt * sizeof(*out));
	return rc;
}

/* --- Vertex memory ---------------------------------------------------------------------- */

#define VERTEX_COLUMNS                                                                          \
	"code_bytes, copy_ptr_bytes, descriptor_bytes, edge_ptr_bytes, padding_bytes, "          \
	"vertex_data_bytes, total_bytes"
#define VERTEX_BLOBS                                                                            \
	"code_bytes_by_tile, copy_ptr_bytes_by_tile, descriptor_bytes_by_tile, "                 \
	"edge_ptr_bytes_by_tile, padding_bytes_by_tile, vertex_data_bytes_by_tile, "             \
	"total_bytes_by_tile"

/* The seven fields of a tsr_vertex_memory, in column order. */
static uint64_t *vertex_field(tsr_vertex_memory *m, int k)
{
	uint64_t *f[7] = {&m->code, &m->copy_ptr, &m->descriptor, &m->edge_ptr,
	                  &m->padding, &m->vertex_data, &m->total};

	return f[k];
}

/*
 * Adds the current row of a memory_by_* query to *out: the plain columns
 * 0..6 for the whole replica, or the blobs 0..6 summed over [lo, hi).
 */
static int add_vertex_row(tsr_report *r, tsr_vertex_memory *out, sqlite3_stmt *st, bool blobs,
                          uint64_t *dense, size_t lo, size_t hi)
{
	for (int k = 0; k < 7; k++) {
		uint64_t v;
		int64_t col;
		int rc;

		if (blobs) {
			rc = tsr_column_tiles(r, dense, r->target.num_tiles, st, k, "vertex memory by tile");
			if (rc)
				return rc;
			if (!sum_range(&v, dense, lo, hi))
				return overflow(r, "vertex memory bytes");
		} else {
			rc = tsr_column_int(r, &col, st, k, 0, INT64_MAX, "vertex memory bytes");
			if (rc)
				return rc;
			v = (uint64_t)col;
		}
		if (!add_to(vertex_field(out, k), v))
			return overflow(r, "vertex memory bytes");
	}
	return TSR_OK;
}

/*
 * Every row of `table` (memory_by_compute_set / _by_vertex_type) for the
 * whole replica, read in one scan into an array of `n` entries in the
 * handle's pool: a comparison asks for each of 20,000 compute sets, and
 * one query each would cost more than the rest of the comparison. Each id
 * must appear exactly once.
 */
static int load_vertex_memory_rows(tsr_report *r, tsr_vertex_memory **out, const char *table,
                                   const char *key, size_t n)
{
	sqlite3_stmt *st = NULL;
	tsr_vertex_memory *rows = tsr_pool_alloc(r, (n + 1) * sizeof(*rows));
	bool *seen = rows ? tsr_alloc(r, n + 1, 1) : NULL;
	char sql[300];
	size_t found = 0;
	int64_t id;
	int rc;

	if (!rows || !seen)
		return TSR_ERR_TOO_LARGE;
	memset(rows, 0, (n + 1) * sizeof(*rows));
	memset(seen, 0, n + 1);
	snprintf(sql, sizeof(sql), "SELECT %s, %s FROM %s", VERTEX_COLUMNS, key, table);
	rc = tsr_prepare(r, &st, sql);
	while (!rc) {
		rc = tsr_step_row(r, st);
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = n ? tsr_column_int(r, &id, st, 7, 0, (int64_t)n - 1, key)
		       : tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s has rows but there are no %ss",
		                  r->path, table, key);
		if (!rc && seen[id])
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s has two rows for %s %lld", r->path,
			              table, key, (long long)id);
		if (rc)
			break;
		seen[id] = true;
		found++;
		rc = add_vertex_row(r, &rows[id], st, false, NULL, 0, 0);
	}
	sqlite3_finalize(st);
	tsr_free(r, seen, n + 1);
	if (!rc && found != n)
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s has %zu rows for %zu %ss", r->path, table,
		              found, n, key);
	if (!rc)
		*out = rows;
	return rc;
}

/*
 * Vertex memory from `table` (memory_by_compute_set / _by_vertex_type)
 * for the row `key` = id, or every row when id is -1, on one IPU or all.
 * A missing row (the schema promises one per id) is TSR_ERR_CORRUPT.
 */
static int vertex_memory(tsr_report *r, tsr_vertex_memory *out, const char *table,
                         const char *key, int64_t id, int ipu)
{
	sqlite3_stmt *st = NULL;
	uint64_t *dense = NULL;
	char sql[400];
	size_t lo, hi, rows = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = tsr_ipu_tiles(r, ipu, &lo, &hi);
	if (rc)
		return rc;
	if (ipu >= 0) {
		dense = scratch_tiles(r);
		if (!dense)
			return TSR_ERR_TOO_LARGE;
	}
	snprintf(sql, sizeof(sql), "SELECT %s FROM %s%s%s%s", ipu >= 0 ? VERTEX_BLOBS : VERTEX_COLUMNS,
	         table, id >= 0 ? " WHERE " : "", id >= 0 ? key : "", id >= 0 ? " = ?" : "");
	rc = tsr_prepare(r, &st, sql);
	if (!rc && id >= 0)
		sqlite3_bind_int64(st, 1, id);
	while (!rc) {
		rc = tsr_step_row(r, st);
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rows++;
		rc = add_vertex_row(r, out, st, ipu >= 0, dense, lo, hi);
	}
	sqlite3_finalize(st);
	if (dense)
		free_scratch(r, dense);
	if (!rc && id >= 0 && rows != 1)
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s has no row for %s %lld", r->path, table, key,
		              (long long)id);
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

int tsr_report_fill_compute_set_memory(tsr_vertex_memory *out, tsr_report *report,
                                       size_t compute_set, int ipu)
{
	const tsr_compute_set *cs;
	size_t n;

	if (!report || !out)
		return tsr_fail_null_argument(report, "tsr_report_fill_compute_set_memory");
	tsr_report_get_compute_sets(&cs, &n, report);
	if (compute_set >= n)
		return tsr_fail(report, TSR_ERR_OUT_OF_RANGE, "compute set %zu of %zu", compute_set, n);
	if (ipu < 0) {
		int rc = TSR_OK;
		if (!report->cs_memory)
			rc = load_vertex_memory_rows(report, &report->cs_memory, "memory_by_compute_set",
			                             "compute_set", n);
		if (rc) {
			memset(out, 0, sizeof(*out));
			return rc;
		}
		*out = report->cs_memory[compute_set];
		return TSR_OK;
	}
	return vertex_memory(report, out, "memory_by_compute_set", "compute_set",
	                     (int64_t)compute_set, ipu);
}

int tsr_report_fill_vertex_type_memory(tsr_vertex_memory *out, tsr_report *report,
                                       size_t vertex_type, int ipu)
{
	if (!report || !out)
		return tsr_fail_null_argument(report, "tsr_report_fill_vertex_type_memory");
	if (vertex_type >= report->counts.vertex_types)
		return tsr_fail(report, TSR_ERR_OUT_OF_RANGE, "vertex type %zu of %zu", vertex_type,
		                report->counts.vertex_types);
	if (ipu < 0) {
		int rc = TSR_OK;
		if (!report->vt_memory)
			rc = load_vertex_memory_rows(report, &report->vt_memory, "memory_by_vertex_type",
			                             "vertex_type", report->counts.vertex_types);
		if (rc) {
			memset(out, 0, sizeof(*out));
			return rc;
		}
		*out = report->vt_memory[vertex_type];
		return TSR_OK;
	}
	return vertex_memory(report, out, "memory_by_vertex_type", "vertex_type",
	                     (int64_t)vertex_type, ipu);
}

int tsr_report_fill_vertex_memory_totals(tsr_vertex_memory *out, tsr_report *report, int ipu)
{
	if (!report || !out)
		return tsr_fail_null_argument(report, "tsr_report_fill_vertex_memory_totals");
	return vertex_memory(report, out, "memory_by_vertex_type", "vertex_type", -1, ipu);
}

/* --- Variables ---------------------------------------------------------------------------- */

/* One variable row (the columns of tsr_load_variables' query). */
static int read_variable(tsr_report *r, tsr_variable *v, sqlite3_stmt *st, int64_t min_id)
{
	int64_t x = 0, from = -1, to = -1;
	int cat;
	int rc = tsr_column_int(r, &x, st, 0, min_id, UINT32_MAX, "variable.id");

	if (rc)
		return rc;
	v->id = (uint32_t)x;
	rc = tsr_column_string(r, &v->name, st, 1, "variable.name");
	if (rc)
		return rc;
	cat = sqlite3_column_type(st, 2) == SQLITE_TEXT ? category_index(sqlite3_column_text(st, 2))
	                                                : -1;
	if (cat < 0)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': variable %u has an unknown category",
		                r->path, v->id);
	v->mem_category = (tsr_mem_category)cat;
	rc = tsr_column_text(r, &v->data_type_name, st, 3, false, "variable.type");
	/* A type a newer writer added is no error: its word is still shown. */
	if (!rc)
		v->data_type = (tsr_data_type)tsf_vocab_lookup(TSF_VOCAB_DATA_TYPE, v->data_type_name);
	if (!rc)
		rc = tsr_column_text(r, &v->shape, st, 4, false, "variable.shape");
	if (!rc)
		rc = tsr_column_int(r, &x, st, 5, 0, INT64_MAX, "variable.bytes");
	v->bytes = (uint64_t)x;
	if (!rc)
		rc = tsr_column_int(r, &x, st, 6, 0, r->target.num_tiles, "variable.tiles");
	v->tiles = (uint32_t)x;
	if (!rc)
		rc = tsr_column_int(r, &x, st, 7, 0, 1, "variable.always_live");
	v->always_live = x == 1;
	if (!rc)
		rc = tsr_column_id_or_null(r, &from, st, 8, (int64_t)r->counts.liveness_steps - 1,
		                           "variable.live_from");
	if (!rc)
		rc = tsr_column_id_or_null(r, &to, st, 9, (int64_t)r->counts.liveness_steps - 1,
		                           "variable.live_to");
	if (!rc && ((from < 0) != (to < 0) || from > to))
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': variable %u's liveness interval [%lld, %lld] "
		              "is not an interval", r->path, v->id, (long long)from, (long long)to);
	v->live_from = from;
	v->live_to = to;
	if (!rc) {
		if (sqlite3_column_type(st, 10) == SQLITE_NULL)
			v->debug_context = -1;
		else
			rc = tsr_column_int(r, &v->debug_context, st, 10, 1,
			                    (int64_t)r->counts.debug_contexts, "variable.debug_context");
	}
	return rc;
}

/* Reads the listed variables on first use, by ascending id (ids keep the
 * compiler's gaps). */
int tsr_load_variables(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	size_t n = r->counts.listed_variables;
	tsr_variable *vars;
	int rc;

	if (r->variables_loaded)
		return TSR_OK;
	if (n > SIZE_MAX / sizeof(*vars) - 1)
		return tsr_fail(r, TSR_ERR_TOO_LARGE, "'%s': %zu variables are too many", r->path, n);
	vars = tsr_pool_alloc(r, (n ? n : 1) * sizeof(*vars));
	if (!vars)
		return TSR_ERR_TOO_LARGE; /* recorded by the pool (or NO_MEMORY) */
	rc = tsr_prepare(r, &st,
	                 "SELECT id, name, category, type, shape, bytes, tiles, always_live, "
	                 "live_from, live_to, debug_context FROM variable ORDER BY id");
	for (size_t i = 0; !rc; i++) {
		rc = tsr_step_counted(r, st, i, n, "variable");
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = read_variable(r, &vars[i], st, i ? (int64_t)vars[i - 1].id + 1 : 0);
	}
	sqlite3_finalize(st);
	if (rc)
		return rc;
	r->variables = vars;
	r->variables_loaded = true;
	return TSR_OK;
}

int tsr_report_get_variables(const tsr_variable **out, size_t *n, tsr_report *report)
{
	int rc;

	if (!report || !out || !n)
		return tsr_fail_null_argument(report, "tsr_report_get_variables");
	*out = NULL;
	*n = 0;
	rc = tsr_load_variables(report);
	if (rc)
		return rc;
	*out = report->variables;
	*n = report->counts.listed_variables;
	return TSR_OK;
}

/* Bytes of one listed variable on each tile, from its blob. */
int tsr_report_fill_variable_by_tile(uint64_t *out, size_t n, tsr_report *report, size_t i)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (!report || !out)
		return tsr_fail_null_argument(report, "tsr_report_fill_variable_by_tile");
	if (n < report->target.num_tiles)
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                "variable by tile: %zu entries for %u tiles", n, report->target.num_tiles);
	rc = tsr_load_variables(report);
	if (rc)
		return rc;
	if (i >= report->counts.listed_variables)
		return tsr_fail(report, TSR_ERR_OUT_OF_RANGE, "variable %zu of %zu", i,
		                report->counts.listed_variables);
	rc = tsr_prepare(report, &st, "SELECT bytes_by_tile, bytes FROM variable WHERE id = ?");
	if (!rc) {
		sqlite3_bind_int64(st, 1, report->variables[i].id);
		rc = tsr_step_row(report, st);
		if (rc == SQLITE_ROW)
			rc = tsr_column_tiles_total(report, out, report->target.num_tiles, st, 0,
			                            "variable.bytes_by_tile", 1, "variable.bytes");
		else if (rc == SQLITE_DONE)
			rc = tsr_fail(report, TSR_ERR_CORRUPT, "'%s': variable %u vanished", report->path,
			              report->variables[i].id);
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Always-live bytes by tile: the runs of every always-live variable's
 * blob added into `out` with the format's iterator, so the cost is the
 * runs, not variables x tiles. A blob that is not a blob, a malformed
 * one, or sums that overflow are TSR_ERR_CORRUPT.
 */
int tsr_report_fill_always_live_by_tile(uint64_t *out, size_t n, tsr_report *report)
{
	sqlite3_stmt *st = NULL;
	uint64_t nt;
	size_t row = 0;
	int rc;

	if (!report || !out)
		return tsr_fail_null_argument(report, "tsr_report_fill_always_live_by_tile");
	nt = report->target.num_tiles;
	if (n < nt)
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                "always live by tile: %zu entries for %" PRIu64 " tiles", n, nt);
	memset(out, 0, nt * sizeof(*out));
	rc = tsr_prepare(report, &st, "SELECT bytes_by_tile FROM variable WHERE always_live = 1");
	while (!rc && (rc = tsr_step_row(report, st)) == SQLITE_ROW) {
		int type = sqlite3_column_type(st, 0);
		tsf_tile_runs_iter it;
		tsf_tile_run run;
		int more;

		rc = TSR_OK;
		if (++row % 4096 == 0 && report->ps && tsr_progress_poll(report->ps)) {
			rc = tsr_fail_cancelled(report);
			break;
		}
		if (type != SQLITE_BLOB && type != SQLITE_NULL) {
			rc = tsr_fail(report, TSR_ERR_CORRUPT, "'%s': variable.bytes_by_tile is not a blob",
			              report->path);
			break;
		}
		if (tsf_tile_runs_iter_init(&it, sqlite3_column_blob(st, 0),
		                            (size_t)sqlite3_column_bytes(st, 0), nt)) {
			rc = tsr_fail(report, TSR_ERR_CORRUPT,
			              "'%s': variable.bytes_by_tile has an unknown encoding", report->path);
			break;
		}
		while ((more = tsf_tile_runs_iter_next(&it, &run)) == 1)
			for (uint64_t k = 0; k < run.count; k++)
				if (!add_to(&out[run.first + k], run.value))
					more = -1, k = run.count;
		if (more < 0) {
			rc = tsr_fail(report, TSR_ERR_CORRUPT,
			              "'%s': variable.bytes_by_tile is malformed or overflows", report->path);
			break;
		}
	}
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
	sqlite3_finalize(st);
	if (rc)
		memset(out, 0, nt * sizeof(*out));
	return rc;
}
