/*
 * The profile.pop writer: turns a graph profile, and later the runs of the
 * execution profile, into the SQLite file that db-schema/profile.sql
 * defines. Everything the reader sees is decided by that schema; this file
 * only fills it, quickly.
 *
 * Speed. A large report (4 IPUs, 20,000 compute sets x 5,888 tiles,
 * 100,000 variables) must be written in a few seconds, so the file is
 * built without a journal or fsync in one transaction, each table through
 * one prepared statement reused for every row (32 rows per run of it for
 * the large tables, see pw_stmt), names interned through an
 * in-memory hash table (one `string` row per distinct name), and every
 * per-tile array stored as one "tile runs" blob (db-schema/tile-runs.c)
 * rather than a row per tile.
 *
 * The schema's secondary indexes are dropped as soon as it is made and
 * made again from the schema's own SQL once their table is filled:
 * SQLite builds an index from sorted keys several times faster than it
 * keeps one through random inserts, and the file's sqlite_schema still
 * says exactly what profile.sql says. The page cache holds the whole
 * report (REPORT_CACHE_KIB), so nothing is written out and read back
 * while the tables grow.
 *
 * Safety. Without a journal a failed write leaves a broken database, so
 * the file is never written in place: it is built under a temporary name
 * in the destination's directory and renamed over `path` when complete
 * (published). The graph profile stays open, unpublished, until the
 * first runs are added or the caller publishes it: the first runs then
 * go into the same file through the same connection (issue 19: copying
 * the 50 MB report of the large model to add its first run cost a tenth
 * of a second on the run's thread). Later runs are added to a copy that
 * replaces the file the same way. A killed model leaves at worst a stale
 * ".profile.pop.<pid>.<n>.tmp", never a half-written profile.pop.
 */
#include <tilescope/alloc.h>
#include "autoreport-private.h"

#include "format.h"

#include <tilescope/hashmap.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * SQLite page size of a new report. Measured with the issue 8 size
 * (test_profile_writer, TSI_WRITER_BENCH=20000x1472x5: 20,000 compute
 * sets x 5,888 tiles, 100,000 variables, 2 runs of 50,000 steps): 4 KiB
 * pages give 62.6 MB in 1.4-1.7 s, 16 KiB 64.9 MB, 64 KiB 71.8 MB in no
 * less time. Bigger pages only waste space (at least one page per table
 * and index, and part-filled pages around blobs), so the default it is,
 * set explicitly so a build with another default writes the same files.
 */
#define REPORT_PAGE_SIZE 4096

/*
 * SQLite page cache of a writer's connection, KiB (PRAGMA cache_size).
 * SQLite's default, 2 MiB, is a twentieth of the large model's 44 MB
 * report: the random inserts into the interned names' UNIQUE index then
 * wrote pages out and read them back, and the variables (164,096 rows,
 * most with a name of their own) took 0.72 s of the 1.27 s graph write.
 * The cache grows only as pages are used, and is freed when the report
 * is published.
 */
#define REPORT_CACHE_KIB 65536

struct pw_ctx;

struct tsi_report_writer {
	char *path;                   /* where the report is (malloc'd) */
	const tsi_graph_profile *gp;  /* borrowed: outlives the writer */
	const tsi_report_meta *meta;  /* borrowed, until the graph is written */
	struct pw_ctx *pending;       /* the open temporary database from _create
	                                 until it is published, else NULL */
	char *tmp;                    /* its name (malloc'd), else NULL */
	bool graph_written;           /* pending holds the whole graph profile */
	size_t runs_written;          /* runs[0 .. runs_written) are in the file */
	char report_id[40];           /* meta report_id written ("" when none) */
	bool replaced;                /* the file became another writer's */
};

/* --- Interned names ------------------------------------------------------- */

/* Names seen so far are base's hash map (tilescope/hashmap.h): a borrowed
 * name (the profile outlives the write) to its string.id. */

/* --- Writing rows ---------------------------------------------------------- */

/* A secondary index of the schema, dropped while its table fills. */
typedef struct pw_index {
	char *name;  /* index name (malloc'd) */
	char *table; /* the table it indexes (malloc'd) */
	char *sql;   /* its CREATE INDEX statement, as sqlite_schema holds it
	                (malloc'd); NULL once made again */
} pw_index;

/* State of one write: the connection, what fails first, interned names. */
typedef struct pw_ctx {
	sqlite3 *db;
	const char *path;        /* the report's final path, for messages */
	uint32_t num_tiles;      /* tiles of the target: every tile number is below */
	int fail_code;           /* first failure while binding a row (TSI_ERR_*), 0: none */
	const char *fail_why;    /* its reason */
	tsb_hashmap *names;      /* interned name (borrowed) -> string.id; NULL until the first */
	struct pw_stmt *st_string; /* INSERT INTO string */
	int64_t next_string_id;
	pw_index *indexes;       /* the schema's secondary indexes, dropped */
	size_t n_indexes;
} pw_ctx;

/* Records an SQLite failure during `what` as the thread's error; returns
 * the TSI_ERR_* code (out of memory, or an I/O failure). */
static int pw_fail(pw_ctx *c, const char *what)
{
	int code = c->db ? sqlite3_errcode(c->db) : SQLITE_NOMEM;
	const char *msg = c->db ? sqlite3_errmsg(c->db) : "out of memory";

	return tsi_set_error(code == SQLITE_NOMEM ? TSI_ERR_NO_MEMORY : TSI_ERR_IO,
	                     "cannot write report '%s' (%s): %s", c->path, what, msg);
}

/* Runs `sql` (no rows expected). */
static int pw_exec(pw_ctx *c, const char *sql, const char *what)
{
	if (sqlite3_exec(c->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return pw_fail(c, what);
	return TSI_OK;
}

/* Prepares a query `sql` into *st (rows are read with sqlite3_step). */
static int pw_prepare_query(pw_ctx *c, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v2(c->db, sql, -1, st, NULL) != SQLITE_OK)
		return pw_fail(c, "reading the report");
	return TSI_OK;
}

/*
 * An INSERT kept for a whole table: one statement, many rows. A batched
 * one takes PW_BATCH_ROWS rows per step ("INSERT INTO t (...) SELECT *
 * FROM (VALUES (row), (row) ...) LIMIT ?", the limit set to the rows
 * bound, so the last, partial batch needs no other statement): SQLite's
 * cost per statement run (opening and closing its cursors, halting,
 * resetting) was as much as the insert itself for the narrow rows of
 * the large model's 600,000 (issue 19). Rows are bound at an offset of
 * `rows` rows into the statement's parameters.
 */
typedef struct pw_stmt {
	sqlite3_stmt *st;
	int nparams; /* parameters of one row */
	int batch;   /* rows per step (1: the plain statement, no LIMIT) */
	int rows;    /* rows bound, not yet stepped */
} pw_stmt;

#define PW_BATCH_ROWS 32

/* Prepares the single-row INSERT `sql` ("... VALUES (...)") into *out,
 * for `batch` rows per step. */
static int pw_prepare_rows(pw_ctx *c, pw_stmt **out, const char *sql, int batch)
{
	const char *values = strstr(sql, " VALUES ");
	pw_stmt *t = tsb_calloc(1, sizeof(*t));
	char *text = NULL;
	int rc = TSI_OK;

	*out = NULL;
	if (!t)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory writing '%s'", c->path);
	for (const char *q = values ? values : sql; *q; q++)
		t->nparams += *q == '?';
	t->batch = values && batch > 1 ? batch : 1;
	if (t->batch > 1) {
		const char *tuple = values + 8;
		size_t head = (size_t)(values - sql), n = strlen(tuple);
		size_t size = head + 40 + (size_t)t->batch * (n + 1);

		text = tsb_malloc(size);
		if (!text) {
			free(t);
			return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory writing '%s'", c->path);
		}
		memcpy(text, sql, head);
		size = head + (size_t)sprintf(text + head, " SELECT * FROM (VALUES ");
		for (int r = 0; r < t->batch; r++) {
			if (r)
				text[size++] = ',';
			memcpy(text + size, tuple, n);
			size += n;
		}
		strcpy(text + size, ") LIMIT ?");
	}
	if (sqlite3_prepare_v3(c->db, text ? text : sql, -1, SQLITE_PREPARE_PERSISTENT, &t->st,
	                       NULL) != SQLITE_OK) {
		rc = pw_fail(c, "preparing an insert");
		free(t);
		t = NULL;
	}
	free(text);
	*out = t;
	return rc;
}

/* A statement for a table of a few rows. */
static int pw_prepare(pw_ctx *c, pw_stmt **st, const char *sql)
{
	return pw_prepare_rows(c, st, sql, 1);
}

/* A statement for a table of many rows. */
static int pw_prepare_batch(pw_ctx *c, pw_stmt **st, const char *sql)
{
	return pw_prepare_rows(c, st, sql, PW_BATCH_ROWS);
}

/* The parameter index of column `col` (1-based) of the row being bound. */
static int pw_col(const pw_stmt *st, int col)
{
	return st->rows * st->nparams + col;
}

/* Steps the `st->rows` rows bound (none: nothing); SQLITE_OK or the
 * failure's code. */
static int pw_step_rows(pw_stmt *st)
{
	int rc = SQLITE_OK;

	if (!st->rows)
		return SQLITE_OK;
	if (st->batch > 1)
		rc = sqlite3_bind_int(st->st, st->batch * st->nparams + 1, st->rows);
	if (rc == SQLITE_OK && sqlite3_step(st->st) != SQLITE_DONE)
		rc = sqlite3_errcode(sqlite3_db_handle(st->st));
	sqlite3_reset(st->st);
	st->rows = 0;
	return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* Counts the row just bound; steps a full batch. SQLITE_OK or the
 * failure's code. */
static int pw_row_done(pw_stmt *st)
{
	if (++st->rows < st->batch)
		return SQLITE_OK;
	return pw_step_rows(st);
}

/* Writes the rows still bound (when `rc` is TSI_OK) and frees the
 * statement (NULL ignored). Returns `rc`, or the failure to write. */
static int pw_finalize(pw_ctx *c, pw_stmt *st, int rc)
{
	if (!st)
		return rc;
	if (!rc && pw_step_rows(st) != SQLITE_OK)
		rc = pw_fail(c, "writing the last rows of a table");
	sqlite3_finalize(st->st);
	free(st);
	return rc;
}

/* Keeps the first failure met while binding a row (reported by
 * pw_insert), so that the binds need no checks of their own. */
static void pw_bind_fail(pw_ctx *c, int code, const char *why)
{
	if (!c->fail_code) {
		c->fail_code = code;
		c->fail_why = why;
	}
}

/* pw_bind_fail for an SQLite result code (SQLITE_OK is no failure). */
static void pw_bind_rc(pw_ctx *c, int rc)
{
	if (rc != SQLITE_OK)
		pw_bind_fail(c, rc == SQLITE_NOMEM ? TSI_ERR_NO_MEMORY : TSI_ERR_IO, sqlite3_errstr(rc));
}

/* The bind helpers: one column of the row being built. */
static void bind_i64(pw_ctx *c, pw_stmt *st, int col, int64_t v)
{
	pw_bind_rc(c, sqlite3_bind_int64(st->st, pw_col(st, col), v));
}

/* Counts are unsigned in the profile; none reaches 2^63 (see the schema). */
static void bind_u64(pw_ctx *c, pw_stmt *st, int col, uint64_t v)
{
	pw_bind_rc(c, sqlite3_bind_int64(st->st, pw_col(st, col), (sqlite3_int64)v));
}

/* NULL: "none" or "not applicable" in the schema. */
static void bind_null(pw_ctx *c, pw_stmt *st, int col)
{
	pw_bind_rc(c, sqlite3_bind_null(st->st, pw_col(st, col)));
}

/* `v`, or NULL when `present` is false (the schema's "none"). */
static void bind_opt(pw_ctx *c, pw_stmt *st, int col, bool present, int64_t v)
{
	if (present)
		bind_i64(c, st, col, v);
	else
		bind_null(c, st, col);
}

/* A ratio; NaN (an undefined balance) is NULL. */
static void bind_real(pw_ctx *c, pw_stmt *st, int col, double v)
{
	if (isnan(v))
		bind_null(c, st, col);
	else
		pw_bind_rc(c, sqlite3_bind_double(st->st, pw_col(st, col), v));
}

/* Text that stays valid until the row is stepped; NULL binds NULL. */
static void bind_text(pw_ctx *c, pw_stmt *st, int col, const char *s)
{
	if (s)
		pw_bind_rc(c, sqlite3_bind_text(st->st, pw_col(st, col), s, -1, SQLITE_STATIC));
	else
		bind_null(c, st, col);
}

/* Text in a buffer the caller reuses: SQLite copies it. */
static void bind_text_copy(pw_ctx *c, pw_stmt *st, int col, const char *s)
{
	pw_bind_rc(c, sqlite3_bind_text(st->st, pw_col(st, col), s, -1, SQLITE_TRANSIENT));
}

/*
 * The string.id of `text`, inserting it on first sight. `text` is borrowed
 * from the profile, which outlives the write. Returns -1 on failure (kept
 * for pw_insert).
 */
static int64_t pw_intern(pw_ctx *c, const char *text)
{
	uintptr_t found;
	int64_t id;
	int rc;

	if (!c->names && !(c->names = tsb_hashmap_new(TSB_HASHMAP_STRING_KEYS))) {
		pw_bind_rc(c, SQLITE_NOMEM);
		return -1;
	}
	if (tsb_hashmap_lookup_str(c->names, text, &found))
		return (int64_t)found;
	if (strlen(text) > TSF_MAX_NAME_BYTES) {
		/* Readers refuse such a file (format.h): say so here instead. */
		pw_bind_fail(c, TSI_ERR_INVALID_ARGUMENT,
		             "a name is longer than the 16,384 bytes a report may hold");
		return -1;
	}
	bind_i64(c, c->st_string, 1, c->next_string_id);
	bind_text(c, c->st_string, 2, text);
	/* The failure's own words ("out of memory", "database or disk is
	 * full"): "cannot insert a name" said neither what nor why. */
	if (!c->fail_code && (rc = pw_row_done(c->st_string)) != SQLITE_OK) {
		pw_bind_rc(c, (rc & 0xff) == SQLITE_NOMEM ? SQLITE_NOMEM : rc);
		return -1;
	}
	id = c->next_string_id++;
	if (tsb_hashmap_put_str(c->names, text, (uintptr_t)id)) {
		pw_bind_rc(c, SQLITE_NOMEM);
		return -1;
	}
	return id;
}

/* A name column: the interned id of `text`, or NULL when there is none. */
static void bind_name(pw_ctx *c, pw_stmt *st, int col, const char *text)
{
	int64_t id;

	if (!text) {
		bind_null(c, st, col);
		return;
	}
	id = pw_intern(c, text);
	if (id >= 0)
		bind_i64(c, st, col, id);
}

/* Binds a blob made by the codec; SQLite frees it when it is done with it
 * (also on failure). NULL (the codec ran out of memory) is a failure. */
static void bind_blob(pw_ctx *c, pw_stmt *st, int col, uint8_t *blob, size_t len)
{
	if (!blob) {
		pw_bind_fail(c, TSI_ERR_NO_MEMORY, "out of host memory encoding per-tile values");
		return;
	}
	pw_bind_rc(c, sqlite3_bind_blob64(st->st, pw_col(st, col), blob, len, free));
}

/* Sum, maximum and non-zero count of a per-tile array. */
typedef struct tile_stats {
	uint64_t sum, max, tiles;
} tile_stats;

/*
 * Binds the sparse `tv` as a tile-runs blob and returns its statistics.
 * Tiles must ascend and lie on the target: a reader refuses a blob that
 * names a tile past the end, so such a profile is not written at all.
 */
static tile_stats bind_tiles(pw_ctx *c, pw_stmt *st, int col, const tsi_tile_values *tv)
{
	tile_stats s = {0, 0, 0};
	uint8_t *blob = NULL;
	size_t len = 0;

	if (tv->n && (!tv->tiles || !tv->values)) {
		pw_bind_fail(c, TSI_ERR_INVALID_ARGUMENT, "per-tile values without tiles");
		return s;
	}
	for (size_t i = 0; i < tv->n; i++) {
		uint64_t v = tv->values[i];

		if (tv->tiles[i] >= c->num_tiles || (i && tv->tiles[i] <= tv->tiles[i - 1])) {
			pw_bind_fail(c, TSI_ERR_INVALID_ARGUMENT,
			             "per-tile values out of tile order or past the last tile");
			return s;
		}
		s.sum += v;
		s.max = v > s.max ? v : s.max;
		s.tiles += v != 0;
	}
	tsf_tile_runs_encode(&blob, &len, tv->tiles, tv->values, tv->n);
	bind_blob(c, st, col, blob, len);
	return s;
}

/* Binds the dense `values[0..n)` as a tile-runs blob (NULL: all zeros). */
static tile_stats bind_dense(pw_ctx *c, pw_stmt *st, int col, const uint64_t *values,
                             size_t n)
{
	tile_stats s = {0, 0, 0};
	uint8_t *blob = NULL;
	size_t len = 0;

	if (!values)
		n = 0;
	for (size_t i = 0; i < n; i++) {
		s.sum += values[i];
		s.max = values[i] > s.max ? values[i] : s.max;
		s.tiles += values[i] != 0;
	}
	tsf_tile_runs_encode_dense(&blob, &len, values, n);
	bind_blob(c, st, col, blob, len);
	return s;
}

/* Steps one bound INSERT and resets it for the next row. `what` names the
 * table in a failure message. */
static int pw_insert(pw_ctx *c, pw_stmt *st, const char *what)
{
	if (c->fail_code)
		return tsi_set_error(c->fail_code, "cannot write report '%s' (%s): %s", c->path, what,
		                     c->fail_why);
	if (pw_row_done(st) != SQLITE_OK)
		return pw_fail(c, what);
	return TSI_OK;
}

/* --- Secondary indexes ----------------------------------------------------- */

/* Forgets the dropped indexes (those not made again stay dropped). */
static void pw_indexes_clear(pw_ctx *c)
{
	for (size_t i = 0; i < c->n_indexes; i++) {
		free(c->indexes[i].name);
		free(c->indexes[i].table);
		free(c->indexes[i].sql);
	}
	free(c->indexes);
	c->indexes = NULL;
	c->n_indexes = 0;
}

/* Remembers one index of the schema; -1 when out of memory. */
static int pw_indexes_add(pw_ctx *c, const char *name, const char *table, const char *sql)
{
	pw_index *grown = tsb_realloc(c->indexes, (c->n_indexes + 1) * sizeof(*grown));
	pw_index *ix;

	if (!grown)
		return -1;
	c->indexes = grown;
	ix = &c->indexes[c->n_indexes];
	ix->name = tsb_strdup(name);
	ix->table = tsb_strdup(table);
	ix->sql = tsb_strdup(sql);
	c->n_indexes++;
	return ix->name && ix->table && ix->sql ? 0 : -1;
}

/*
 * Drops the secondary indexes the schema has just made (its CREATE INDEX
 * statements), keeping their SQL for pw_make_indexes. The automatic
 * indexes of PRIMARY KEY and UNIQUE constraints stay: they enforce the
 * constraints while rows go in.
 */
static int pw_drop_indexes(pw_ctx *c)
{
	sqlite3_stmt *st = NULL;
	int rc = pw_prepare_query(c, &st,
	                    "SELECT name, tbl_name, sql FROM sqlite_schema "
	                    "WHERE type = 'index' AND sql IS NOT NULL ORDER BY rowid");
	int step;

	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *table = (const char *)sqlite3_column_text(st, 1);
		const char *sql = (const char *)sqlite3_column_text(st, 2);

		if (!name || !table || !sql || pw_indexes_add(c, name, table, sql))
			rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory writing '%s'", c->path);
	}
	if (!rc && step != SQLITE_DONE)
		rc = pw_fail(c, "reading the schema");
	sqlite3_finalize(st);
	for (size_t i = 0; !rc && i < c->n_indexes; i++) {
		char *sql = sqlite3_mprintf("DROP INDEX \"%w\"", c->indexes[i].name);

		rc = sql ? pw_exec(c, sql, "deferring an index")
		         : tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory writing '%s'", c->path);
		sqlite3_free(sql);
	}
	return rc;
}

/* True when `table` has a row (on failure too: the index is then made
 * now, and its statement says what went wrong). */
static bool pw_table_has_rows(pw_ctx *c, const char *table)
{
	char *sql = sqlite3_mprintf("SELECT EXISTS (SELECT 1 FROM \"%w\")", table);
	sqlite3_stmt *st = NULL;
	bool rows = true;

	if (sql && sqlite3_prepare_v2(c->db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		rows = sqlite3_column_int(st, 0) != 0;
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rows;
}

/*
 * Makes again the indexes pw_drop_indexes dropped, from their own SQL:
 * with `filled_only`, those whose table has rows (the graph profile's,
 * at the end of its write: the run tables fill later), else every one
 * left (before the file is published).
 */
static int pw_make_indexes(pw_ctx *c, bool filled_only)
{
	int rc = TSI_OK;

	for (size_t i = 0; !rc && i < c->n_indexes; i++) {
		pw_index *ix = &c->indexes[i];

		if (!ix->sql || (filled_only && !pw_table_has_rows(c, ix->table)))
			continue;
		rc = pw_exec(c, ix->sql, "making an index");
		free(ix->sql);
		ix->sql = NULL;
	}
	return rc;
}

/* --- Names of enumerations ------------------------------------------------- */

/* The guide's syncType spelling (the format's vocabulary). */
static const char *sync_type_name(tsi_sync_type t)
{
	const char *name = tsf_vocab_name(TSF_VOCAB_SYNC_TYPE, (int)t);

	return name ? name : "Unknown";
}

/* target.ipu_version. */
static const char *ipu_version_name(tsi_ipu_version v)
{
	const char *name = tsf_vocab_name(TSF_VOCAB_IPU_VERSION, (int)v);

	return name ? name : "Unknown";
}

/* exchange.kind: which of the guide's three exchange lists. */
static const char *exchange_kind_name(tsi_exchange_kind k)
{
	return tsf_vocab_name(TSF_VOCAB_EXCHANGE_KIND, (int)k);
}

/* memory_category.region, as the guide's byTile keys spell it. */
static const char *region_name(tsi_mem_region r)
{
	return tsf_vocab_name(TSF_VOCAB_REGION, (int)r);
}

/* --- The graph profile, table by table ------------------------------------- */

/* One meta row with a text value; nothing when `value` is NULL. */
static int meta_text(pw_ctx *c, pw_stmt *st, const char *key, const char *value)
{
	if (!value)
		return TSI_OK;
	bind_text(c, st, 1, key);
	bind_text(c, st, 2, value);
	return pw_insert(c, st, "meta");
}

/* One meta row with an integer value. */
static int meta_int(pw_ctx *c, pw_stmt *st, const char *key, int64_t value)
{
	bind_text(c, st, 1, key);
	bind_i64(c, st, 2, value);
	return pw_insert(c, st, "meta");
}

/* Formats Unix nanoseconds as ISO 8601 UTC with nanoseconds. */
static void format_iso_time(char *buf, size_t size, int64_t ns)
{
	time_t secs = (time_t)(ns / 1000000000);
	long frac = (long)(ns % 1000000000);
	struct tm tm;
	size_t len;

	if (frac < 0) {
		secs--;
		frac += 1000000000;
	}
	if (!gmtime_r(&secs, &tm) || !(len = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm))) {
		snprintf(buf, size, "unknown");
		return;
	}
	snprintf(buf + len, size - len, ".%09ldZ", frac);
}

/* meta: key/value facts about the report (see the schema for the keys). */
static int write_meta(pw_ctx *c, const tsi_graph_profile *gp, const tsi_report_meta *meta)
{
	pw_stmt *st = NULL;
	char iso[64];
	int rc = pw_prepare(c, &st, "INSERT INTO meta (key, value) VALUES (?, ?)");

	if (!rc)
		rc = meta_text(c, st, "profiler_mode", tsi_profiler_mode_name(gp->profiler_mode));
	if (!rc)
		rc = meta_int(c, st, "replication_factor", gp->replication_factor);
	if (!rc)
		rc = meta_int(c, st, "always_live_bytes", (int64_t)gp->always_live_bytes);
	if (rc || !meta)
		goto out;
	format_iso_time(iso, sizeof(iso), meta->created_unix_ns);
	rc = meta_text(c, st, "tilescope_version", meta->tilescope_version);
	if (!rc)
		rc = meta_int(c, st, "created_unix_ns", meta->created_unix_ns);
	if (!rc)
		rc = meta_text(c, st, "created", iso);
	if (!rc && meta->report_id)
		rc = meta_text(c, st, "report_id", meta->report_id);
	if (!rc)
		rc = meta_text(c, st, "command_line", meta->command_line);
	if (!rc)
		rc = meta_text(c, st, "engine_name", meta->engine_name);
	if (!rc)
		rc = meta_int(c, st, "lowered_vars", meta->lowered_vars);
	if (!rc)
		rc = meta_int(c, st, "include_flops", meta->include_flops);
	if (!rc)
		rc = meta_int(c, st, "include_cycles", meta->include_cycles);
out:
	rc = pw_finalize(c, st, rc);
	return rc;
}

/* option: the options in force, in order. */
static int write_options(pw_ctx *c, const tsi_options *opts)
{
	pw_stmt *st = NULL;
	size_t n = opts ? tsi_options_count(opts) : 0;
	int rc = pw_prepare(c, &st, "INSERT INTO option (position, name, value) VALUES (?, ?, ?)");

	for (size_t i = 0; !rc && i < n; i++) {
		const char *name = NULL, *value = NULL;

		if (tsi_options_at(&name, &value, opts, i) != TSI_OK || !name)
			continue;
		bind_u64(c, st, 1, i);
		bind_text(c, st, 2, name);
		bind_text(c, st, 3, value ? value : "");
		rc = pw_insert(c, st, "option");
	}
	rc = pw_finalize(c, st, rc);
	return rc;
}

/* target and graph: one row each. */
static int write_target(pw_ctx *c, const tsi_graph_profile *gp)
{
	const tsi_target *t = &gp->target;
	pw_stmt *st = NULL;
	uint64_t *sync = NULL;
	int rc = pw_prepare(c, &st,
	                    "INSERT INTO target (id, type, name, ipu_version, num_ipus, "
	                    "tiles_per_ipu, num_tiles, bytes_per_tile, bytes_per_ipu, total_memory, "
	                    "clock_frequency, num_worker_contexts, exchange_bytes_per_cycle, "
	                    "fp16_amp_flops_per_cycle, fp32_flops_per_cycle, replication_factor, "
	                    "min_sync_delay, relative_sync_delay_by_tile) "
	                    "VALUES (0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");

	if (rc)
		goto out;
	if (gp->relative_sync_delay_by_tile && t->tiles_per_ipu) {
		sync = tsb_malloc(t->tiles_per_ipu * sizeof(*sync));
		if (!sync) {
			rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory writing '%s'", c->path);
			goto out;
		}
		for (unsigned i = 0; i < t->tiles_per_ipu; i++)
			sync[i] = gp->relative_sync_delay_by_tile[i];
	}
	bind_text(c, st, 1, t->kind == TSI_TARGET_CPU ? "CPU" : "IPU_MODEL");
	bind_text(c, st, 2, t->name);
	bind_text(c, st, 3, ipu_version_name(t->version));
	bind_u64(c, st, 4, t->num_ipus);
	bind_u64(c, st, 5, t->tiles_per_ipu);
	bind_u64(c, st, 6, t->num_tiles);
	bind_u64(c, st, 7, t->bytes_per_tile);
	bind_u64(c, st, 8, t->bytes_per_tile * t->tiles_per_ipu);
	bind_u64(c, st, 9, t->bytes_per_tile * t->num_tiles);
	bind_u64(c, st, 10, t->clock_hz);
	bind_u64(c, st, 11, t->num_worker_contexts);
	bind_u64(c, st, 12, t->exchange_bytes_per_cycle);
	bind_u64(c, st, 13, t->fp16_amp_flops_per_cycle);
	bind_u64(c, st, 14, t->fp32_flops_per_cycle);
	bind_u64(c, st, 15, gp->replication_factor);
	bind_u64(c, st, 16, gp->min_sync_delay);
	bind_dense(c, st, 17, sync, sync ? t->tiles_per_ipu : 0);
	rc = pw_insert(c, st, "target");
	rc = pw_finalize(c, st, rc);
	st = NULL;
	if (rc)
		goto out;
	rc = pw_prepare(c, &st,
	                "INSERT INTO graph (id, num_compute_sets, num_edges, num_vars, num_vertices) "
	                "VALUES (0, ?, ?, ?, ?)");
	if (rc)
		goto out;
	bind_u64(c, st, 1, gp->num_compute_sets);
	bind_u64(c, st, 2, gp->num_edges);
	bind_u64(c, st, 3, gp->num_vars);
	bind_u64(c, st, 4, gp->num_vertices);
	rc = pw_insert(c, st, "graph");
out:
	rc = pw_finalize(c, st, rc);
	free(sync);
	return rc;
}

/* The seven arrays of a vertex memory breakdown, in column order. */
static void vertex_memory_arrays(const tsi_vertex_memory *vm, const tsi_tile_values *out[7])
{
	out[0] = &vm->code_bytes;
	out[1] = &vm->copy_ptr_bytes;
	out[2] = &vm->descriptor_bytes;
	out[3] = &vm->edge_ptr_bytes;
	out[4] = &vm->padding_bytes;
	out[5] = &vm->vertex_data_bytes;
	out[6] = &vm->total_bytes;
}

/* One row of memory_by_compute_set or memory_by_vertex_type: the id, the
 * seven totals, then the seven blobs. */
static int write_vertex_memory(pw_ctx *c, pw_stmt *st, size_t id,
                               const tsi_vertex_memory *vm, const char *what)
{
	const tsi_tile_values *arr[7];

	vertex_memory_arrays(vm, arr);
	bind_u64(c, st, 1, id);
	for (int k = 0; k < 7; k++) {
		tile_stats s = bind_tiles(c, st, 9 + k, arr[k]);

		bind_u64(c, st, 2 + k, s.sum);
	}
	return pw_insert(c, st, what);
}

#define VERTEX_MEMORY_COLUMNS                                                   \
	"code_bytes, copy_ptr_bytes, descriptor_bytes, edge_ptr_bytes, padding_bytes, " \
	"vertex_data_bytes, total_bytes, code_bytes_by_tile, copy_ptr_bytes_by_tile, "  \
	"descriptor_bytes_by_tile, edge_ptr_bytes_by_tile, padding_bytes_by_tile, "     \
	"vertex_data_bytes_by_tile, total_bytes_by_tile) "                              \
	"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

/* vertex_type and memory_by_vertex_type. */
static int write_vertex_types(pw_ctx *c, const tsi_graph_profile *gp)
{
	pw_stmt *st = NULL, *mem = NULL;
	int rc = pw_prepare(c, &st,
	                    "INSERT INTO vertex_type (id, name, state_bytes, code_bytes, instances, "
	                    "flops) VALUES (?, ?, ?, ?, ?, ?)");

	if (!rc)
		rc = pw_prepare(c, &mem,
		                "INSERT INTO memory_by_vertex_type (vertex_type, " VERTEX_MEMORY_COLUMNS);
	for (size_t i = 0; !rc && gp->vertex_types && i < gp->n_vertex_types; i++) {
		const tsi_vertex_type_profile *vt = &gp->vertex_types[i];

		bind_u64(c, st, 1, i);
		bind_name(c, st, 2, vt->name ? vt->name : "");
		bind_u64(c, st, 3, vt->state_bytes);
		bind_u64(c, st, 4, vt->code_bytes);
		bind_u64(c, st, 5, vt->instances);
		bind_u64(c, st, 6, vt->flops);
		rc = pw_insert(c, st, "vertex_type");
		if (!rc && gp->by_vertex_type)
			rc = write_vertex_memory(c, mem, i, &gp->by_vertex_type[i],
			                         "memory_by_vertex_type");
	}
	rc = pw_finalize(c, st, rc);
	rc = pw_finalize(c, mem, rc);
	return rc;
}

/* compute_set, compute_set_vertex_type and memory_by_compute_set. */
static int write_compute_sets(pw_ctx *c, const tsi_graph_profile *gp)
{
	pw_stmt *st = NULL, *types = NULL, *mem = NULL;
	int rc = pw_prepare_batch(c, &st,
	                    "INSERT INTO compute_set (id, name, flops, debug_context, tiles, cycles, "
	                    "cycles_sum, active_cycles, active_cycles_sum, cycles_by_tile, "
	                    "active_cycles_by_tile) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");

	if (!rc)
		rc = pw_prepare_batch(c, &types,
		                "INSERT INTO compute_set_vertex_type (compute_set, vertex_type, "
		                "vertex_count, active_cycles) VALUES (?, ?, ?, ?)");
	if (!rc)
		rc = pw_prepare_batch(c, &mem,
		                "INSERT INTO memory_by_compute_set (compute_set, " VERTEX_MEMORY_COLUMNS);
	for (size_t i = 0; !rc && gp->compute_sets && i < gp->n_compute_sets; i++) {
		const tsi_compute_set_profile *cs = &gp->compute_sets[i];
		tile_stats cyc, act;

		bind_u64(c, st, 1, i);
		bind_name(c, st, 2, cs->name ? cs->name : "");
		bind_u64(c, st, 3, cs->flops);
		bind_opt(c, st, 4, cs->debug_context != 0, cs->debug_context);
		cyc = bind_tiles(c, st, 10, &cs->cycles_by_tile);
		act = bind_tiles(c, st, 11, &cs->active_cycles_by_tile);
		bind_u64(c, st, 5, cyc.tiles);
		bind_u64(c, st, 6, cyc.max);
		bind_u64(c, st, 7, cyc.sum);
		bind_u64(c, st, 8, act.max);
		bind_u64(c, st, 9, act.sum);
		rc = pw_insert(c, st, "compute_set");
		for (uint32_t k = 0; !rc && cs->vertex_types && k < cs->n_types; k++) {
			bind_u64(c, types, 1, i);
			bind_u64(c, types, 2, cs->vertex_types[k]);
			bind_u64(c, types, 3, cs->vertex_counts ? cs->vertex_counts[k] : 0);
			bind_u64(c, types, 4, cs->active_cycles_by_type ? cs->active_cycles_by_type[k] : 0);
			rc = pw_insert(c, types, "compute_set_vertex_type");
		}
		if (!rc && gp->by_compute_set)
			rc = write_vertex_memory(c, mem, i, &gp->by_compute_set[i], "memory_by_compute_set");
	}
	rc = pw_finalize(c, st, rc);
	rc = pw_finalize(c, types, rc);
	rc = pw_finalize(c, mem, rc);
	return rc;
}

/* exchange: the three lists in one table. */
static int write_exchanges(pw_ctx *c, const tsi_graph_profile *gp)
{
	pw_stmt *st = NULL;
	int rc = pw_prepare_batch(c, &st,
	                    "INSERT INTO exchange (kind, id, name, tiles, bytes_received, bytes_sent, "
	                    "cycles, cycles_sum, bytes_received_by_tile, bytes_sent_by_tile, "
	                    "cycles_by_tile) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");

	for (int k = 0; !rc && k < TSI_EXCHANGE_KIND_COUNT; k++) {
		const tsi_exchange_profile *list = gp->exchanges[k];

		for (size_t i = 0; !rc && list && i < gp->n_exchanges[k]; i++) {
			const tsi_exchange_profile *x = &list[i];
			tile_stats rx, tx, cyc;
			uint64_t tiles = 0;
			size_t a = 0, b = 0, d = 0;

			bind_text(c, st, 1, exchange_kind_name((tsi_exchange_kind)k));
			bind_u64(c, st, 2, i);
			bind_name(c, st, 3, x->name ? x->name : "");
			rx = bind_tiles(c, st, 9, &x->bytes_received);
			tx = bind_tiles(c, st, 10, &x->bytes_sent);
			cyc = bind_tiles(c, st, 11, &x->cycles);
			/* Tiles in the union of the three lists (each ascending). */
			while (!c->fail_code && (a < x->bytes_received.n || b < x->bytes_sent.n ||
			                       d < x->cycles.n)) {
				uint32_t t = UINT32_MAX;
				bool nz = false;

				if (a < x->bytes_received.n && x->bytes_received.tiles[a] < t)
					t = x->bytes_received.tiles[a];
				if (b < x->bytes_sent.n && x->bytes_sent.tiles[b] < t)
					t = x->bytes_sent.tiles[b];
				if (d < x->cycles.n && x->cycles.tiles[d] < t)
					t = x->cycles.tiles[d];
				if (a < x->bytes_received.n && x->bytes_received.tiles[a] == t)
					nz |= x->bytes_received.values[a++] != 0;
				if (b < x->bytes_sent.n && x->bytes_sent.tiles[b] == t)
					nz |= x->bytes_sent.values[b++] != 0;
				if (d < x->cycles.n && x->cycles.tiles[d] == t)
					nz |= x->cycles.values[d++] != 0;
				tiles += nz;
			}
			bind_u64(c, st, 4, tiles);
			bind_u64(c, st, 5, rx.sum);
			bind_u64(c, st, 6, tx.sum);
			bind_u64(c, st, 7, cyc.max);
			bind_u64(c, st, 8, cyc.sum);
			rc = pw_insert(c, st, "exchange");
		}
	}
	rc = pw_finalize(c, st, rc);
	return rc;
}

/* True for the programs that move data (they carry memoryByInstruction). */
static bool is_exchange_program(tsi_lowered_type t)
{
	return t == TSI_LP_DO_EXCHANGE || t == TSI_LP_GLOBAL_EXCHANGE || t == TSI_LP_STREAM_COPY;
}

/* program, program_child, control_program and function_program. */
static int write_programs(pw_ctx *c, const tsi_graph_profile *gp)
{
	pw_stmt *st = NULL, *child = NULL, *list = NULL;
	int rc = pw_prepare_batch(c, &st,
	                    "INSERT INTO program (id, type, name, compute_set, exchange, function, "
	                    "sync_type, repeat_count, debug_context, instr_delay, instr_exchange, "
	                    "instr_other, instr_receive_address, instr_receive_format, "
	                    "instr_receive_mux, instr_send, instr_send_with_put_address, "
	                    "instr_send_with_put_format, instr_send_with_put_mux, instr_total) "
	                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");

	if (!rc)
		rc = pw_prepare_batch(c, &child,
		                "INSERT INTO program_child (parent, position, child) VALUES (?, ?, ?)");
	for (size_t i = 0; !rc && gp->programs && i < gp->n_programs; i++) {
		const tsi_lowered_program *p = &gp->programs[i];
		const tsi_exchange_instructions *m = &p->memory_by_instruction;
		const uint64_t instr[11] = {m->delay, m->exchange, m->other, m->receive_address,
		                            m->receive_format, m->receive_mux, m->send,
		                            m->send_with_put_address, m->send_with_put_format,
		                            m->send_with_put_mux, m->total};
		bool xchg = is_exchange_program(p->type);

		bind_u64(c, st, 1, i);
		bind_text(c, st, 2, tsi_lowered_type_name(p->type));
		bind_name(c, st, 3, p->name);
		bind_opt(c, st, 4, p->type == TSI_LP_ON_TILE_EXECUTE && p->compute_set >= 0,
		         p->compute_set);
		bind_opt(c, st, 5, xchg && p->exchange >= 0, p->exchange);
		bind_opt(c, st, 6, p->type == TSI_LP_CALL && p->function >= 0, p->function);
		bind_text(c, st, 7, p->type == TSI_LP_SYNC ? sync_type_name(p->sync) : NULL);
		bind_opt(c, st, 8, p->type == TSI_LP_REPEAT, (int64_t)p->repeat_count);
		bind_opt(c, st, 9, p->debug_context != 0, p->debug_context);
		for (int k = 0; k < 11; k++)
			bind_opt(c, st, 10 + k, xchg, (int64_t)instr[k]);
		rc = pw_insert(c, st, "program");
		for (uint32_t k = 0; !rc && p->children && k < p->n_children; k++) {
			bind_u64(c, child, 1, i);
			bind_u64(c, child, 2, k);
			bind_u64(c, child, 3, p->children[k]);
			rc = pw_insert(c, child, "program_child");
		}
	}
	if (!rc)
		rc = pw_prepare(c, &list, "INSERT INTO control_program (position, program) VALUES (?, ?)");
	for (size_t i = 0; !rc && gp->control_programs && i < gp->n_control_programs; i++) {
		bind_u64(c, list, 1, i);
		bind_u64(c, list, 2, gp->control_programs[i]);
		rc = pw_insert(c, list, "control_program");
	}
	rc = pw_finalize(c, list, rc);
	list = NULL;
	if (!rc)
		rc = pw_prepare(c, &list, "INSERT INTO function_program (position, program) VALUES (?, ?)");
	for (size_t i = 0; !rc && gp->function_programs && i < gp->n_function_programs; i++) {
		bind_u64(c, list, 1, i);
		bind_u64(c, list, 2, gp->function_programs[i]);
		rc = pw_insert(c, list, "function_program");
	}
	rc = pw_finalize(c, st, rc);
	rc = pw_finalize(c, child, rc);
	rc = pw_finalize(c, list, rc);
	return rc;
}

/* tile_memory (a row per tile), memory_category (a row per category x
 * region x overlapped) and oom_tile. */
static int write_memory(pw_ctx *c, const tsi_graph_profile *gp)
{
	uint32_t nt = gp->target.num_tiles, per_ipu = gp->target.tiles_per_ipu;
	pw_stmt *st = NULL;
	int rc = pw_prepare_batch(c, &st,
	                    "INSERT INTO tile_memory (tile, ipu, interleaved, "
	                    "interleaved_including_gaps, non_interleaved, "
	                    "non_interleaved_including_gaps, overflowed, overflowed_including_gaps, "
	                    "total, total_including_gaps) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");

	for (uint32_t t = 0; !rc && gp->by_tile && t < nt; t++) {
		const tsi_tile_memory *m = &gp->by_tile[t];

		bind_u64(c, st, 1, t);
		bind_u64(c, st, 2, per_ipu ? t / per_ipu : 0);
		bind_u64(c, st, 3, m->region[TSI_REGION_INTERLEAVED]);
		bind_u64(c, st, 4, m->region_including_gaps[TSI_REGION_INTERLEAVED]);
		bind_u64(c, st, 5, m->region[TSI_REGION_NON_INTERLEAVED]);
		bind_u64(c, st, 6, m->region_including_gaps[TSI_REGION_NON_INTERLEAVED]);
		bind_u64(c, st, 7, m->region[TSI_REGION_OVERFLOWED]);
		bind_u64(c, st, 8, m->region_including_gaps[TSI_REGION_OVERFLOWED]);
		bind_u64(c, st, 9, m->total);
		bind_u64(c, st, 10, m->total_including_gaps);
		rc = pw_insert(c, st, "tile_memory");
	}
	rc = pw_finalize(c, st, rc);
	st = NULL;
	if (!rc)
		rc = pw_prepare(c, &st,
		                "INSERT INTO memory_category (category, region, overlapped, total, "
		                "tiles, by_tile) VALUES (?, ?, ?, ?, ?, ?)");
	for (int cat = 0; !rc && cat < TSI_MEM_CATEGORY_COUNT; cat++) {
		for (int r = 0; !rc && r < TSI_REGION_COUNT; r++) {
			for (int ov = 0; !rc && ov < 2; ov++) {
				size_t row = ((size_t)cat * TSI_REGION_COUNT + (size_t)r) * 2 + (size_t)ov;
				const uint64_t *v = gp->by_category ? gp->by_category + row * nt : NULL;
				tile_stats s;

				bind_text(c, st, 1, tsi_mem_category_name((tsi_mem_category)cat));
				bind_text(c, st, 2, region_name((tsi_mem_region)r));
				bind_i64(c, st, 3, ov);
				s = bind_dense(c, st, 6, v, nt);
				bind_u64(c, st, 4, s.sum);
				bind_u64(c, st, 5, s.tiles);
				rc = pw_insert(c, st, "memory_category");
			}
		}
	}
	rc = pw_finalize(c, st, rc);
	st = NULL;
	if (!rc)
		rc = pw_prepare(c, &st, "INSERT OR IGNORE INTO oom_tile (tile) VALUES (?)");
	for (size_t i = 0; !rc && gp->oom_tiles && i < gp->n_oom_tiles; i++) {
		bind_u64(c, st, 1, gp->oom_tiles[i]);
		rc = pw_insert(c, st, "oom_tile");
	}
	rc = pw_finalize(c, st, rc);
	return rc;
}

/* Formats a shape as "[10,20]" ("[]" for a scalar) into buf[size]. */
static void format_shape(char *buf, size_t size, const size_t *shape, size_t rank)
{
	size_t len = 1;

	buf[0] = '[';
	buf[1] = 0;
	for (size_t i = 0; shape && i < rank && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%zu", i ? "," : "", shape[i]);
	if (len + 2 <= size) {
		buf[len] = ']';
		buf[len + 1] = 0;
	}
}

/* True for the categories of user variables; the others are the
 * compiler's allocations, listed only with lowered_vars (see the schema). */
static bool is_user_category(tsi_mem_category cat)
{
	return cat == TSI_MEM_VARIABLE || cat == TSI_MEM_CONSTANT;
}

/* variable: storage and liveness interval of each (listed) variable. */
static int write_variables(pw_ctx *c, const tsi_graph_profile *gp, bool lowered_vars)
{
	pw_stmt *st = NULL;
	char shape[TSI_MAX_RANK * 21 + 3];
	int rc = pw_prepare_batch(c, &st,
	                    "INSERT INTO variable (id, name, category, type, bytes, shape, tiles, "
	                    "bytes_by_tile, always_live, live_from, live_to, debug_context) "
	                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");

	for (size_t i = 0; !rc && gp->variables && i < gp->n_variables; i++) {
		const tsi_variable_profile *v = &gp->variables[i];
		bool live = !v->always_live && v->live_from != UINT32_MAX &&
		            v->live_to != UINT32_MAX && v->live_from <= v->live_to;
		tile_stats s;

		if (!lowered_vars && !is_user_category(v->category))
			continue;
		format_shape(shape, sizeof(shape), v->shape, v->rank);
		bind_u64(c, st, 1, i);
		bind_name(c, st, 2, v->name ? v->name : "");
		bind_text(c, st, 3, tsi_mem_category_name(v->category));
		bind_text(c, st, 4, tsi_type_name(v->type));
		bind_u64(c, st, 5, v->bytes);
		bind_text_copy(c, st, 6, shape);
		s = bind_tiles(c, st, 8, &v->bytes_by_tile);
		bind_u64(c, st, 7, s.tiles);
		bind_i64(c, st, 9, v->always_live);
		bind_opt(c, st, 10, live, v->live_from);
		bind_opt(c, st, 11, live, v->live_to);
		bind_opt(c, st, 12, v->debug_context != 0, v->debug_context);
		rc = pw_insert(c, st, "variable");
	}
	rc = pw_finalize(c, st, rc);
	return rc;
}

/* liveness_step and debug_context. */
static int write_liveness(pw_ctx *c, const tsi_graph_profile *gp)
{
	pw_stmt *st = NULL;
	int rc = pw_prepare_batch(c, &st,
	                    "INSERT INTO liveness_step (id, program, parent, depth, "
	                    "not_always_live_bytes) VALUES (?, ?, ?, ?, ?)");

	for (size_t i = 0; !rc && gp->liveness && i < gp->n_liveness; i++) {
		const tsi_liveness_step *s = &gp->liveness[i];

		bind_u64(c, st, 1, i);
		bind_u64(c, st, 2, s->program);
		bind_opt(c, st, 3, s->parent >= 0, s->parent);
		bind_u64(c, st, 4, s->depth);
		bind_u64(c, st, 5, s->not_always_live_bytes);
		rc = pw_insert(c, st, "liveness_step");
	}
	rc = pw_finalize(c, st, rc);
	st = NULL;
	if (!rc)
		rc = pw_prepare_batch(c, &st,
		                "INSERT INTO debug_context (id, parent, name, layer, api) "
		                "VALUES (?, ?, ?, ?, ?)");
	for (size_t i = 0; !rc && gp->debug_contexts && i < gp->n_debug_contexts; i++) {
		const tsi_debug_context_profile *d = &gp->debug_contexts[i];

		bind_u64(c, st, 1, d->id);
		bind_opt(c, st, 2, d->parent != 0, d->parent);
		bind_name(c, st, 3, d->name ? d->name : "");
		bind_name(c, st, 4, d->layer ? d->layer : "");
		bind_name(c, st, 5, d->api);
		rc = pw_insert(c, st, "debug_context");
	}
	rc = pw_finalize(c, st, rc);
	return rc;
}

/* --- The execution profile ------------------------------------------------- */

/* run, program_trace and step for runs[from .. to), numbered by position. */
static int write_runs(pw_ctx *c, const tsi_run_profile *const *runs, size_t from, size_t to)
{
	pw_stmt *run = NULL, *trace = NULL, *step = NULL;
	int rc = pw_prepare(c, &run,
	                    "INSERT INTO run (id, program, cycles, num_steps, trace_length, "
	                    "active_compute_cycles, compute_cycles, do_exchange_cycles, "
	                    "global_exchange_cycles, stream_copy_cycles, sync_cycles, "
	                    "copy_shared_structure_cycles) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");

	if (!rc)
		rc = pw_prepare_batch(c, &trace,
		                "INSERT INTO program_trace (run, position, program) VALUES (?, ?, ?)");
	if (!rc)
		rc = pw_prepare_batch(c, &step,
		                "INSERT INTO step (run, id, type, program, compute_set, exchange, "
		                "sync_type, cycles_from, cycles_to, cycles, cycles_overlapped, "
		                "active_tiles, tile_balance, active_tile_balance, thread_balance, "
		                "total_data, data_balance) "
		                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
	for (size_t r = from; !rc && r < to; r++) {
		const tsi_run_profile *rp = runs[r];
		const tsi_tile_cycles *tc;

		if (!rp) {
			rc = tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "run %zu of report '%s' is missing",
			                   r, c->path);
			break;
		}
		tc = &rp->tile_cycles;
		bind_u64(c, run, 1, r);
		bind_u64(c, run, 2, rp->program_index);
		bind_u64(c, run, 3, rp->cycles);
		bind_u64(c, run, 4, rp->steps ? rp->n_steps : 0);
		bind_u64(c, run, 5, rp->program_trace ? rp->n_trace : 0);
		bind_u64(c, run, 6, tc->active_compute);
		bind_u64(c, run, 7, tc->compute);
		bind_u64(c, run, 8, tc->do_exchange);
		bind_u64(c, run, 9, tc->global_exchange);
		bind_u64(c, run, 10, tc->stream_copy);
		bind_u64(c, run, 11, tc->sync);
		bind_u64(c, run, 12, tc->copy_shared_structure);
		rc = pw_insert(c, run, "run");
		for (size_t i = 0; !rc && rp->program_trace && i < rp->n_trace; i++) {
			bind_u64(c, trace, 1, r);
			bind_u64(c, trace, 2, i);
			bind_u64(c, trace, 3, rp->program_trace[i]);
			rc = pw_insert(c, trace, "program_trace");
		}
		for (size_t i = 0; !rc && rp->steps && i < rp->n_steps; i++) {
			const tsi_step *s = &rp->steps[i];

			bind_u64(c, step, 1, r);
			bind_u64(c, step, 2, i);
			bind_text(c, step, 3, tsi_step_type_name(s->type));
			bind_u64(c, step, 4, s->program);
			bind_opt(c, step, 5, s->compute_set >= 0, s->compute_set);
			bind_opt(c, step, 6, s->exchange >= 0, s->exchange);
			bind_text(c, step, 7, s->type == TSI_STEP_SYNC ? sync_type_name(s->sync_type) : NULL);
			bind_u64(c, step, 8, s->cycles_from);
			bind_u64(c, step, 9, s->cycles_to);
			bind_u64(c, step, 10, s->cycles);
			bind_u64(c, step, 11, s->cycles_overlapped);
			bind_u64(c, step, 12, s->active_tiles);
			bind_real(c, step, 13, s->tile_balance);
			bind_real(c, step, 14, s->active_tile_balance);
			bind_real(c, step, 15, s->thread_balance);
			bind_u64(c, step, 16, s->total_data);
			bind_real(c, step, 17, s->data_balance);
			rc = pw_insert(c, step, "step");
		}
	}
	rc = pw_finalize(c, run, rc);
	rc = pw_finalize(c, trace, rc);
	rc = pw_finalize(c, step, rc);
	return rc;
}

/* --- Files ------------------------------------------------------------------ */

/* Opens (creating) the database at `file` with the fast, journal-free
 * settings a file that is renamed into place can afford. */
static int open_fast(pw_ctx *c, const char *file, bool create)
{
	/* NOMUTEX: one thread at a time uses a writer's connection (the
	 * background job, or the engine's thread after it), and SQLite's
	 * per-call mutex was a sixth of the writer's time (issue 19). */
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
	int rc;

	if (create) {
		/* Made here first (an empty file is a new database to SQLite):
		 * SQLite's errno after a failed create can be that of a side file
		 * ("No such file or directory" on a read-only file system) where
		 * the system says why. O_EXCL: nothing planted is followed. */
		int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

		if (fd < 0)
			return tsi_set_error(TSI_ERR_IO, "cannot write report '%s': cannot create '%s': %s",
			                     c->path, file, strerror(errno));
		close(fd);
	}
	if (sqlite3_open_v2(file, &c->db, flags, NULL) != SQLITE_OK) {
		int err = c->db ? sqlite3_system_errno(c->db) : 0;

		return tsi_set_error(c->db ? TSI_ERR_IO : TSI_ERR_NO_MEMORY,
		                     "cannot write report '%s': cannot open '%s': %s%s%s%s", c->path,
		                     file, c->db ? sqlite3_errmsg(c->db) : "out of memory",
		                     err ? " (" : "", err ? strerror(err) : "", err ? ")" : "");
	}
	if (create) {
		char sql[64];

		/* Only possible before the first table exists. */
		snprintf(sql, sizeof(sql), "PRAGMA page_size = %d;", REPORT_PAGE_SIZE);
		rc = pw_exec(c, sql, "setting the page size");
		if (rc)
			return rc;
	}
	rc = pw_exec(c,
	             "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
	             "PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = MEMORY;",
	             "setting up the database");
	if (!rc) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%d;", REPORT_CACHE_KIB);
		rc = pw_exec(c, sql, "setting the page cache");
	}
	return rc;
}

/*
 * Closes the connection; on a failure, or when it does not close cleanly,
 * returns the error (recorded unless `rc` already holds one).
 */
static int close_db(pw_ctx *c, int rc)
{
	if (c->db && sqlite3_close(c->db) != SQLITE_OK) {
		if (!rc)
			rc = pw_fail(c, "closing the database");
		sqlite3_close_v2(c->db);
	}
	c->db = NULL;
	return rc;
}

/* Frees what the graph profile's write needed (the interned names):
 * runs name nothing. */
static void pw_clear_names(pw_ctx *c)
{
	pw_finalize(c, c->st_string, TSI_ERR_IO); /* written already, or abandoned */
	c->st_string = NULL;
	tsb_hashmap_free(c->names);
	c->names = NULL;
}

/* Frees what a write context holds (the connection is closed already). */
static void pw_clear(pw_ctx *c)
{
	pw_clear_names(c);
	pw_indexes_clear(c);
}

/* Writes the whole graph profile into the open, empty database. */
static int write_graph_profile(pw_ctx *c, const tsi_graph_profile *gp,
                               const tsi_report_meta *meta)
{
	/* The sections in file order. Each logs at INFO when it starts and
	 * what it took: on a large model writing takes seconds, and the log
	 * is how the user sees it progress. */
	enum { S_META, S_OPTIONS, S_TARGET, S_VERTEX_TYPES, S_COMPUTE_SETS, S_EXCHANGES,
	       S_PROGRAMS, S_MEMORY, S_VARIABLES, S_LIVENESS, N_SECTIONS };
	static const char *const names[N_SECTIONS] = {
		"report information", "engine options", "target", "vertex types", "compute sets",
		"exchanges", "programs", "tile memory", "variables", "liveness",
	};
	int rc = pw_exec(c, tsf_profile_schema_sql, "creating the schema");

	if (!rc)
		rc = pw_exec(c, "BEGIN", "starting the transaction");
	if (!rc)
		rc = pw_drop_indexes(c);
	if (!rc)
		rc = pw_prepare_batch(c, &c->st_string, "INSERT INTO string (id, text) VALUES (?, ?)");
	for (int i = 0; !rc && i < N_SECTIONS; i++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		tsi_log(TSI_LOG_INFO, "AUTOREPORT", "profile.pop: writing %s (%d of %d)", names[i],
		        i + 1, (int)N_SECTIONS);
		switch (i) {
		case S_META: rc = write_meta(c, gp, meta); break;
		case S_OPTIONS: rc = write_options(c, meta ? meta->options : NULL); break;
		case S_TARGET: rc = write_target(c, gp); break;
		case S_VERTEX_TYPES: rc = write_vertex_types(c, gp); break;
		case S_COMPUTE_SETS: rc = write_compute_sets(c, gp); break;
		case S_EXCHANGES: rc = write_exchanges(c, gp); break;
		case S_PROGRAMS: rc = write_programs(c, gp); break;
		case S_MEMORY: rc = write_memory(c, gp); break;
		case S_VARIABLES: rc = write_variables(c, gp, meta ? meta->lowered_vars : true); break;
		default: rc = write_liveness(c, gp); break;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!rc)
			tsi_log(TSI_LOG_INFO, "AUTOREPORT", "profile.pop: %s written in %.3f s", names[i],
			        (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	rc = pw_finalize(c, c->st_string, rc); /* the last names */
	c->st_string = NULL;
	if (!rc) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = pw_make_indexes(c, true);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!rc)
			tsi_log(TSI_LOG_INFO, "AUTOREPORT", "profile.pop: indexes made in %.3f s",
			        (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	if (!rc)
		rc = pw_exec(c, "COMMIT", "committing");
	pw_clear_names(c);
	return rc;
}

/*
 * Builds the report under the temporary name and renames it to `path`
 * (see report-private.h). `meta` may be NULL: the report then has only
 * the profile's own meta keys, and lists lowered variables.
 */
int tsi_report_writer_create(tsi_report_writer **out, const char *path,
                             const tsi_graph_profile *gp, const tsi_report_meta *meta)
{
	tsi_report_writer *w = NULL;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !path || !*path || !gp)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "profile writer: no path or profile");
	w = tsb_calloc(1, sizeof(*w));
	if (w) {
		w->pending = tsb_calloc(1, sizeof(*w->pending));
		w->tmp = tsi_report_temp_path(path);
		w->path = tsb_strdup(path);
	}
	if (!w || !w->pending || !w->tmp || !w->path) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory writing '%s'", path);
		goto fail;
	}
	w->gp = gp;
	w->meta = meta;
	if (meta && meta->report_id)
		snprintf(w->report_id, sizeof(w->report_id), "%s", meta->report_id);
	w->pending->path = w->path;
	w->pending->num_tiles = gp->target.num_tiles;
	tsi_report_remove_stale_temporaries(path);
	/* A stale file of an earlier process with our pid would be reopened. */
	unlink(w->tmp);
	rc = open_fast(w->pending, w->tmp, true);
	if (rc)
		goto fail;
	*out = w;
	return TSI_OK;
fail:
	tsi_report_writer_free(w);
	return rc;
}

/*
 * Ends the open temporary database: with `rc` TSI_OK, makes the indexes
 * still missing (those of the run tables), closes it and renames it over
 * the report's path; otherwise (or when that fails) removes it. Either
 * way the writer has no open database afterwards.
 */
static int finish_pending(tsi_report_writer *w, int rc)
{
	pw_ctx *c = w->pending;

	if (!rc)
		rc = pw_exec(c, "BEGIN", "starting the transaction");
	if (!rc)
		rc = pw_make_indexes(c, false);
	if (!rc)
		rc = pw_exec(c, "COMMIT", "committing");
	pw_clear(c);
	rc = close_db(c, rc);
	if (!rc)
		rc = tsi_report_publish(w->tmp, w->path);
	if (rc)
		unlink(w->tmp);
	free(c);
	w->pending = NULL;
	free(w->tmp);
	w->tmp = NULL;
	return rc;
}

int tsi_report_writer_write_graph(tsi_report_writer *w)
{
	int rc;

	if (!w || !w->pending || w->graph_written)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "profile writer: nothing to write");
	rc = write_graph_profile(w->pending, w->gp, w->meta);
	if (rc)
		return finish_pending(w, rc);
	w->graph_written = true;
	/* On the disk now, on this (background) thread, so that publishing
	 * syncs only what the runs add, on the run's thread. */
	tsi_report_sync_data(w->tmp);
	return TSI_OK;
}

int tsi_report_writer_publish(tsi_report_writer *w)
{
	if (!w)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "profile writer: no writer");
	if (!w->pending)
		return TSI_OK; /* published already */
	if (!w->graph_written)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "profile writer: '%s' has no graph profile to publish yet", w->path);
	return finish_pending(w, TSI_OK);
}

/*
 * Makes the graph profile visible at `path` while its file stays open
 * for the first runs: a copy of the temporary file, given the indexes
 * still deferred (those of the run tables, empty here), renamed into
 * place. A model that crashes while it runs (a codelet's fault, a kill)
 * then leaves the graph profile, as it always did; the first run's
 * publish replaces the copy by rename. The copy costs the writer's
 * thread, not the run's.
 */
int tsi_report_writer_show_graph(tsi_report_writer *w)
{
	pw_ctx c;
	char *tmp;
	int rc;

	if (!w || !w->pending || !w->graph_written)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "profile writer: no graph profile to show");
	tmp = tsi_report_temp_path(w->path);
	if (!tmp)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory writing '%s'", w->path);
	memset(&c, 0, sizeof(c));
	c.path = w->path;
	unlink(tmp);
	rc = tsi_report_copy_file(w->tmp, tmp);
	if (!rc)
		rc = open_fast(&c, tmp, false);
	for (size_t i = 0; !rc && i < w->pending->n_indexes; i++) {
		const pw_index *ix = &w->pending->indexes[i];

		if (ix->sql)
			rc = pw_exec(&c, ix->sql, "making an index");
	}
	rc = close_db(&c, rc);
	if (!rc)
		rc = tsi_report_publish(tmp, w->path);
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}

bool tsi_report_writer_is_published(const tsi_report_writer *w)
{
	return w && !w->pending;
}

int tsi_report_writer_new(tsi_report_writer **out, const char *path,
                          const tsi_graph_profile *gp, const tsi_report_meta *meta)
{
	int rc = tsi_report_writer_create(out, path, gp, meta);

	if (!rc && (rc = tsi_report_writer_write_graph(*out)) == TSI_OK)
		rc = tsi_report_writer_publish(*out);
	if (rc && out) {
		tsi_report_writer_free(*out);
		*out = NULL;
	}
	return rc;
}

/*
 * The first runs, into the graph profile's own open database: no copy,
 * the page cache still warm. A rollback journal in memory (only the few
 * pages that existed before the runs go in it) lets a failure take the
 * runs back out, so the graph profile is still published.
 */
static int add_runs_pending(tsi_report_writer *w, const tsi_run_profile *const *runs,
                            size_t n_runs)
{
	pw_ctx *c = w->pending;
	int rc, published;

	rc = pw_exec(c, "PRAGMA journal_mode = MEMORY", "setting up the database");
	if (!rc)
		rc = pw_exec(c, "BEGIN", "starting the transaction");
	if (!rc)
		rc = write_runs(c, runs, w->runs_written, n_runs);
	if (!rc)
		rc = pw_exec(c, "COMMIT", "committing");
	if (rc) {
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL); /* none open: harmless */
		c->fail_code = 0;
	}
	published = finish_pending(w, TSI_OK);
	if (!rc && !published)
		w->runs_written = n_runs;
	return rc ? rc : published;
}

/*
 * Appends runs[runs_written .. n_runs) to a copy of the report, then
 * renames the copy over it: the file at `path` is complete at every
 * moment, with the old runs or with all of them. The copy is checked to
 * be our report with exactly the runs we wrote, so a file replaced behind
 * our back is refused rather than extended.
 */
int tsi_report_writer_add_runs(tsi_report_writer *w, const tsi_run_profile *const *runs,
                               size_t n_runs)
{
	pw_ctx c;
	char *tmp = NULL;
	int rc;

	memset(&c, 0, sizeof(c));
	if (!w || (n_runs && !runs))
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "profile writer: no writer or runs");
	if (n_runs <= w->runs_written)
		return TSI_OK;
	if (w->pending) {
		if (!w->graph_written)
			return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
			                     "profile writer: runs added to '%s' before its graph profile",
			                     w->path);
		return add_runs_pending(w, runs, n_runs);
	}
	c.path = w->path;
	tmp = tsi_report_temp_path(w->path);
	if (!tmp)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory writing '%s'", w->path);
	unlink(tmp);
	rc = tsi_report_copy_file(w->path, tmp);
	if (!rc)
		rc = open_fast(&c, tmp, false);
	if (!rc) {
		sqlite3_stmt *st = NULL;

		/* The copy must be our report (our identity: another process
		 * reporting to this directory may have replaced it with its own
		 * graph), with no runs past the ones we wrote. */
		rc = pw_prepare_query(&c, &st,
		                "SELECT (SELECT application_id FROM pragma_application_id), "
		                "(SELECT count(*) FROM run), "
		                "(SELECT value FROM meta WHERE key = 'report_id'), "
		                "(SELECT value FROM meta WHERE key = 'command_line')");
		if (!rc && sqlite3_step(st) != SQLITE_ROW)
			rc = pw_fail(&c, "reading the report");
		if (!rc && w->report_id[0] &&
		    (!sqlite3_column_text(st, 2) ||
		     strcmp((const char *)sqlite3_column_text(st, 2), w->report_id) != 0)) {
			const unsigned char *who = sqlite3_column_text(st, 3);

			w->replaced = true;
			rc = tsi_set_error(TSI_ERR_IO,
			                   "report '%s' was replaced by another writer's (%s) after this "
			                   "engine wrote its graph profile there",
			                   w->path, who ? (const char *)who : "unknown command");
		} else if (!rc && (sqlite3_column_int64(st, 0) != TSF_PROFILE_APPLICATION_ID ||
		                   (uint64_t)sqlite3_column_int64(st, 1) != w->runs_written)) {
			rc = tsi_set_error(TSI_ERR_IO,
			                   "cannot add runs to report '%s': it was changed by someone else",
			                   w->path);
		}
		sqlite3_finalize(st);
	}
	if (!rc)
		rc = pw_exec(&c, "BEGIN", "starting the transaction");
	if (!rc)
		rc = write_runs(&c, runs, w->runs_written, n_runs);
	if (!rc)
		rc = pw_exec(&c, "COMMIT", "committing");
	pw_clear(&c);
	rc = close_db(&c, rc);
	if (!rc)
		rc = tsi_report_publish(tmp, w->path);
	if (!rc)
		w->runs_written = n_runs;
	else
		unlink(tmp);
	free(tmp);
	return rc;
}

bool tsi_report_writer_was_replaced(const tsi_report_writer *w)
{
	return w && w->replaced;
}

/* rename(): the report moves whole or not at all; nothing else is made. */
int tsi_report_writer_move(tsi_report_writer *w, const char *new_path)
{
	char *copy;

	if (!w || !new_path || !*new_path)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "profile writer: no new path");
	if (strcmp(w->path, new_path) == 0)
		return TSI_OK;
	if (w->pending) {
		int rc = tsi_report_writer_publish(w); /* then moved like any report */

		if (rc)
			return rc;
	}
	copy = tsb_strdup(new_path);
	if (!copy)
		return tsi_set_error(TSI_ERR_NO_MEMORY, "out of host memory moving '%s'", w->path);
	if (rename(w->path, new_path) != 0) {
		int rc = tsi_set_error(TSI_ERR_IO, "cannot move report '%s' to '%s': %s", w->path,
		                       new_path, strerror(errno));
		free(copy);
		return rc;
	}
	free(w->path);
	w->path = copy;
	return TSI_OK;
}

/* Where the report is now (after any move). */
const char *tsi_report_writer_path(const tsi_report_writer *w)
{
	return w ? w->path : NULL;
}

/* Frees the writer; the report stays. */
void tsi_report_writer_free(tsi_report_writer *w)
{
	if (!w)
		return;
	if (w->pending) { /* never published: no file stays */
		pw_clear(w->pending);
		close_db(w->pending, TSI_ERR_IO);
		free(w->pending);
	}
	if (w->tmp)
		unlink(w->tmp);
	free(w->tmp);
	free(w->path);
	free(w);
}
