/*
 * The helpers every reportlib source shares (report-private.h): the
 * thread's last error and the handle's message, the memory cap and the
 * handle's pool, and the checked SQL readers (prepare, step, columns whose
 * values are checked against what they may be).
 */
#include <tilescope/alloc.h>
#include "report-private.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TSR_POOL_BLOCK ((size_t)64 << 10)

struct tsr_pool_block {
	tsr_pool_block *next;
	size_t size, used;     /* bytes of data, bytes handed out */
	_Alignas(16) unsigned char data[];
};

/* --- Errors ------------------------------------------------------------------ */

static _Thread_local char last_error[512];
static _Thread_local int last_code; /* of the last tsr_fail / tsr_set_last_error */

/* The names of the codes, for messages and tests. */
const char *tsr_error_name(int code)
{
	switch (code) {
	case TSR_OK: return "TSR_OK";
	case TSR_ERR_INVALID_ARGUMENT: return "TSR_ERR_INVALID_ARGUMENT";
	case TSR_ERR_NO_MEMORY: return "TSR_ERR_NO_MEMORY";
	case TSR_ERR_NOT_FOUND: return "TSR_ERR_NOT_FOUND";
	case TSR_ERR_NOT_SQLITE: return "TSR_ERR_NOT_SQLITE";
	case TSR_ERR_NOT_REPORT: return "TSR_ERR_NOT_REPORT";
	case TSR_ERR_SCHEMA_TOO_NEW: return "TSR_ERR_SCHEMA_TOO_NEW";
	case TSR_ERR_SCHEMA_TOO_OLD: return "TSR_ERR_SCHEMA_TOO_OLD";
	case TSR_ERR_CORRUPT: return "TSR_ERR_CORRUPT";
	case TSR_ERR_TOO_LARGE: return "TSR_ERR_TOO_LARGE";
	case TSR_ERR_IO: return "TSR_ERR_IO";
	case TSR_ERR_OUT_OF_RANGE: return "TSR_ERR_OUT_OF_RANGE";
	case TSR_ERR_NO_DATA: return "TSR_ERR_NO_DATA";
	case TSR_ERR_CANCELLED: return "TSR_ERR_CANCELLED";
	}
	return "unknown";
}

/* The thread's last message (set by tsr_set_last_error and tsr_fail). */
const char *tsr_last_error(void)
{
	return last_error;
}

/* Records the thread's last error; returns `code` for tail calls. */
int tsr_set_last_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	last_code = code;
	return code;
}

/* Records a failure on the handle and as the thread's last error. */
int tsr_fail(tsr_report *r, int code, const char *fmt, ...)
{
	va_list ap;
	char buf[sizeof(last_error)];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (r)
		memcpy(r->error, buf, sizeof(r->error));
	memcpy(last_error, buf, sizeof(last_error));
	last_code = code;
	return code;
}

int tsr_fail_null_argument(tsr_report *r, const char *fn)
{
	if (r)
		return tsr_fail(r, TSR_ERR_INVALID_ARGUMENT, "%s: NULL argument", fn);
	return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "%s: NULL argument", fn);
}

int tsr_check_by_tile(tsr_report *r, const void *out, size_t n, const char *fn,
                      const char *what, size_t *nt)
{
	if (!r || !out)
		return tsr_fail_null_argument(r, fn);
	*nt = r->target.num_tiles;
	if (n < *nt)
		return tsr_fail(r, TSR_ERR_INVALID_ARGUMENT, "%s: %zu entries for %zu tiles", what, n,
		                *nt);
	return TSR_OK;
}


/* Cancelled by the progress callback: names what was being done. */
int tsr_fail_cancelled(tsr_report *r)
{
	const char *what = r->ps && r->ps->message && *r->ps->message ? r->ps->message : "working";

	return tsr_fail(r, TSR_ERR_CANCELLED, "'%s': cancelled while %s", r->path ? r->path : "",
	                what);
}

const char *tsr_report_error(const tsr_report *report)
{
	return report ? report->error : "";
}

const char *tsr_report_get_path(const tsr_report *report)
{
	return report ? report->path : NULL;
}

const char *tsr_report_get_debug_info_path(const tsr_report *report)
{
	return report ? report->debug_path : NULL;
}

/* The code of the thread's last failure (tsr_fail, tsr_set_last_error). */
int tsr_last_error_code(void)
{
	return last_code;
}

/* --- Memory ------------------------------------------------------------------ */

/*
 * Zeroed n * size bytes charged to the cap. Overflow of n * size, or
 * passing the cap, is TSR_ERR_TOO_LARGE recorded on the handle; a failing
 * calloc is TSR_ERR_NO_MEMORY. A zero-byte request returns a valid
 * pointer (free it with tsr_free(r, p, 0)).
 */
void *tsr_alloc(tsr_report *r, size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (!r)
		return NULL;
	if (size && n > SIZE_MAX / size) {
		tsr_fail(r, TSR_ERR_TOO_LARGE, "'%s': an array of %zu x %zu bytes is too large",
		         r->path, n, size);
		return NULL;
	}
	bytes = n * size;
	if (bytes > r->memory_cap || r->memory_used > r->memory_cap - bytes) {
		tsr_fail(r, TSR_ERR_TOO_LARGE,
		         "'%s': reading it needs more than the memory cap of %llu bytes (%zu more)",
		         r->path, (unsigned long long)r->memory_cap, bytes);
		return NULL;
	}
	p = tsb_calloc(1, bytes ? bytes : 1);
	if (!p) {
		tsr_fail(r, TSR_ERR_NO_MEMORY, "'%s': out of host memory (%zu bytes)", r->path, bytes);
		return NULL;
	}
	r->memory_used += bytes;
	return p;
}

/*
 * tsr_alloc of n zeroed entries of `size` bytes; on failure NULL with
 * *rc set. The handle has the message already; the code is worked out
 * the way tsr_alloc decides it (past the cap, or the host is out).
 */
void *tsr_alloc_rc(tsr_report *r, int *rc, size_t n, size_t size)
{
	void *p = tsr_alloc(r, n, size);

	if (p) {
		memset(p, 0, n * size);
		*rc = TSR_OK;
	} else if (size && n > SIZE_MAX / size) {
		*rc = TSR_ERR_TOO_LARGE;
	} else {
		*rc = r->memory_used > r->memory_cap || n * size > r->memory_cap - r->memory_used
		          ? TSR_ERR_TOO_LARGE
		          : TSR_ERR_NO_MEMORY;
	}
	return p;
}

/* Frees what tsr_alloc gave and returns its bytes to the cap. */
void tsr_free(tsr_report *r, void *p, size_t bytes)
{
	if (!p)
		return;
	free(p);
	if (r)
		r->memory_used -= bytes < r->memory_used ? bytes : r->memory_used;
}

/* Zeroed bytes that live until tsr_report_free, 16-byte aligned. Large
 * requests get a block of their own. */
void *tsr_pool_alloc(tsr_report *r, size_t bytes)
{
	tsr_pool_block *b = r ? r->pool : NULL;
	size_t need = (bytes + 15) & ~(size_t)15;
	void *p;

	if (!r)
		return NULL;
	if (need < bytes) {
		tsr_fail(r, TSR_ERR_TOO_LARGE, "'%s': an allocation of %zu bytes is too large",
		         r->path, bytes);
		return NULL;
	}
	if (!b || b->size - b->used < need) {
		size_t size = need > TSR_POOL_BLOCK / 4 ? need : TSR_POOL_BLOCK;
		tsr_pool_block *nb = tsr_alloc(r, 1, sizeof(*nb) + size);

		if (!nb)
			return NULL;
		nb->size = size;
		nb->used = 0;
		if (b && size != TSR_POOL_BLOCK) {
			/* Keep filling the current block: put the big one behind it. */
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			r->pool = nb;
		}
		b = nb;
	}
	p = b->data + b->used;
	b->used += need;
	memset(p, 0, need);
	return p;
}

/* A NUL-terminated copy of s[0..len) in the pool. */
const char *tsr_pool_strdup(tsr_report *r, const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX) {
		tsr_fail(r, TSR_ERR_TOO_LARGE, "'%s': a string is too long", r ? r->path : "");
		return NULL;
	}
	p = tsr_pool_alloc(r, len + 1);
	if (!p)
		return NULL;
	if (len)
		memcpy(p, s, len);
	p[len] = 0;
	return p;
}

/* Frees every block of the handle's pool. */
void tsr_pool_free(tsr_report *r)
{
	tsr_pool_block *b = r->pool;

	while (b) {
		tsr_pool_block *next = b->next;

		free(b);
		b = next;
	}
	r->pool = NULL;
}

/* --- SQL helpers --------------------------------------------------------------- */

/* The tsr_error for an SQLite result code. */
static int map_sqlite(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return TSR_ERR_NO_MEMORY;
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
	case SQLITE_READONLY:
	case SQLITE_FULL:
		return TSR_ERR_IO;
	case SQLITE_TOOBIG:
		return TSR_ERR_TOO_LARGE;
	default:
		return TSR_ERR_CORRUPT; /* CORRUPT, NOTADB, ERROR (schema), AUTH, INTERRUPT ... */
	}
}

/* Records the connection's failure `rc` while doing `what`. */
int tsr_sql_fail(tsr_report *r, int rc, const char *what)
{
	/* The connection's message only when it is about this failure: a
	 * helper that failed on its own (out of memory inside SQLite before a
	 * statement ran) leaves the connection saying "not an error". */
	const char *msg = r->db && (sqlite3_errcode(r->db) & 0xff) == (rc & 0xff)
	                          ? sqlite3_errmsg(r->db)
	                          : sqlite3_errstr(rc);

	if ((rc & 0xff) == SQLITE_INTERRUPT && r->ps && r->ps->cancelled)
		return tsr_fail_cancelled(r);
	if ((rc & 0xff) == SQLITE_INTERRUPT)
		msg = "a query ran too long for the size of the file";
	return tsr_fail(r, map_sqlite(rc), "'%s': %s: %s", r->path, what, msg);
}

/* Prepares `sql`; a missing table or column is TSR_ERR_CORRUPT. */
int tsr_prepare(tsr_report *r, sqlite3_stmt **st, const char *sql)
{
	int rc;

	*st = NULL;
	rc = sqlite3_prepare_v2(r->db, sql, -1, st, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
		return tsr_sql_fail(r, rc, "cannot read the report");
	}
	return TSR_OK;
}

/* One step: SQLITE_ROW, SQLITE_DONE, or a recorded negative code. */
int tsr_step_row(tsr_report *r, sqlite3_stmt *st)
{
	int rc;

	if (r->ps && tsr_progress_tick(r->ps))
		return tsr_fail_cancelled(r);
	rc = sqlite3_step(st);

	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return rc;
	return tsr_sql_fail(r, rc, "reading the report");
}

/* The next row of a loader that expects exactly `n` rows: SQLITE_ROW
 * while i < n, then the statement must be done. */
int tsr_step_counted(tsr_report *r, sqlite3_stmt *st, size_t i, size_t n, const char *table)
{
	int rc = tsr_step_row(r, st);

	if (rc < 0)
		return rc;
	if (i < n && rc != SQLITE_ROW)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s has %zu rows, %zu counted", r->path, table,
		                i, n);
	if (i >= n && rc == SQLITE_ROW)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s has more rows than counted", r->path,
		                table);
	return rc;
}

/* An integer column in [lo, hi]; anything else (NULL, text, real, a
 * value out of range) is TSR_ERR_CORRUPT naming `what`. */
int tsr_column_int(tsr_report *r, int64_t *out, sqlite3_stmt *st, int col, int64_t lo, int64_t hi,
                   const char *what)
{
	int64_t v;

	*out = 0;
	if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s is not an integer", r->path, what);
	v = sqlite3_column_int64(st, col);
	if (hi < lo) /* an index into an empty list: no range to show */
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s is %lld, but the report has none to refer to",
		                r->path, what, (long long)v);
	if (v < lo || v > hi)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s %lld is out of range [%lld, %lld]",
		                r->path, what, (long long)v, (long long)lo, (long long)hi);
	*out = v;
	return TSR_OK;
}

/* Same for an id in [0, hi] that may be NULL (-1 then). */
int tsr_column_id_or_null(tsr_report *r, int64_t *out, sqlite3_stmt *st, int col, int64_t hi,
                          const char *what)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL) {
		*out = -1;
		return TSR_OK;
	}
	return tsr_column_int(r, out, st, col, 0, hi, what);
}

/* A string.id column resolved to its text (kept in the handle). */
int tsr_column_string(tsr_report *r, const char **out, sqlite3_stmt *st, int col,
                      const char *what)
{
	int64_t id;
	int rc;

	*out = NULL;
	if (r->n_strings == 0)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s names a string but there are none",
		                r->path, what);
	rc = tsr_column_int(r, &id, st, col, 0, (int64_t)r->n_strings - 1, what);
	if (rc)
		return rc;
	if (!r->strings[id])
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s names missing string %lld", r->path, what,
		                (long long)id);
	*out = r->strings[id];
	return TSR_OK;
}

/* A TEXT column copied into the pool; NULL only when `nullable`. */
int tsr_column_text(tsr_report *r, const char **out, sqlite3_stmt *st, int col, bool nullable,
                    const char *what)
{
	int type = sqlite3_column_type(st, col);
	const unsigned char *s;
	int len;

	*out = NULL;
	if (type == SQLITE_NULL && nullable)
		return TSR_OK;
	if (type != SQLITE_TEXT)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s is not text", r->path, what);
	s = sqlite3_column_text(st, col);
	len = sqlite3_column_bytes(st, col);
	if (!s)
		return tsr_fail(r, TSR_ERR_NO_MEMORY, "'%s': out of memory reading %s", r->path, what);
	*out = tsr_pool_strdup(r, (const char *)s, (size_t)len);
	return *out ? TSR_OK : last_code;
}

static int decode_tiles(tsr_report *r, uint64_t *out, size_t n, sqlite3_stmt *st, int col,
                        const char *what);

/*
 * A tile-runs blob column decoded into out[0..n); NULL is all zeros. The
 * values must add up within INT64_MAX (the totals beside the blobs are
 * SQLite integers, and readers add tiles up): a blob that lies past that
 * would overflow every sum made of it.
 */
int tsr_column_tiles(tsr_report *r, uint64_t *out, size_t n, sqlite3_stmt *st, int col,
                     const char *what)
{
	uint64_t sum;

	return tsr_column_tiles_sum(r, out, n, st, col, what, &sum);
}

/*
 * tsr_column_tiles, and the blob's total as the schema defines it
 * ("bytes: sum of bytes_by_tile") checked against column `total_col` of
 * the same row, named `total_what`: a per-tile blob that disagrees with
 * its own total is corrupt (a report whose variable claimed 31,360 bytes
 * with INT64_MAX on one tile reached a signed overflow in an export).
 */
int tsr_column_tiles_total(tsr_report *r, uint64_t *out, size_t n, sqlite3_stmt *st, int col,
                           const char *what, int total_col, const char *total_what)
{
	uint64_t sum;
	int64_t total;
	int rc = tsr_column_tiles_sum(r, out, n, st, col, what, &sum);

	if (!rc)
		rc = tsr_column_int(r, &total, st, total_col, 0, INT64_MAX, total_what);
	if (!rc && sum != (uint64_t)total)
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s adds up to %" PRIu64 ", not the %" PRId64
		              " of %s", r->path, what, sum, total, total_what);
	return rc;
}

/* tsr_column_tiles with the sum of the values in *sum. */
int tsr_column_tiles_sum(tsr_report *r, uint64_t *out, size_t n, sqlite3_stmt *st, int col,
                         const char *what, uint64_t *sum)
{
	int rc = decode_tiles(r, out, n, st, col, what);

	*sum = 0;
	for (size_t t = 0; !rc && t < n; t++) {
		if (out[t] > (uint64_t)INT64_MAX - *sum) {
			memset(out, 0, n * sizeof(*out));
			return tsr_fail(r, TSR_ERR_CORRUPT,
			                "'%s': %s adds up past 2^63 (tile %zu holds %" PRIu64 ")", r->path,
			                what, t, out[t]);
		}
		*sum += out[t];
	}
	return rc;
}

/* The blob at column `col` decoded, without checks of its values. */
static int decode_tiles(tsr_report *r, uint64_t *out, size_t n, sqlite3_stmt *st, int col,
                        const char *what)
{
	int type = sqlite3_column_type(st, col);
	const void *blob;
	int len;

	if (type == SQLITE_NULL) {
		memset(out, 0, n * sizeof(*out));
		return TSR_OK;
	}
	if (type != SQLITE_BLOB) {
		memset(out, 0, n * sizeof(*out));
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s is not a tile-runs blob", r->path, what);
	}
	blob = sqlite3_column_blob(st, col);
	len = sqlite3_column_bytes(st, col);
	if (tsf_tile_runs_decode(out, n, blob, (size_t)len) != 0)
		return tsr_fail(r, TSR_ERR_CORRUPT,
		                "'%s': %s is not a valid tile-runs blob of %zu tiles (%d bytes)", r->path,
		                what, n, len);
	return TSR_OK;
}

/* The tile range of one IPU, or of all (ipu -1). */
int tsr_ipu_tiles(tsr_report *r, int ipu, size_t *lo, size_t *hi)
{
	if (ipu == -1) {
		*lo = 0;
		*hi = r->target.num_tiles;
		return TSR_OK;
	}
	if (ipu < 0 || (unsigned)ipu >= r->target.num_ipus)
		return tsr_fail(r, TSR_ERR_OUT_OF_RANGE, "'%s': IPU %d of %u", r->path, ipu,
		                r->target.num_ipus);
	*lo = (size_t)ipu * r->target.tiles_per_ipu;
	*hi = *lo + r->target.tiles_per_ipu;
	return TSR_OK;
}
