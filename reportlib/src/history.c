/*
 * The history store (tilescope/history.h; its schema is
 * db-schema/history.sql): opening and creating a store, adding runs,
 * reading runs, metrics and series back, and merging stores.
 *
 * Unlike a report, a store is written, by several CI jobs at once: it is
 * in WAL mode, every connection waits TSR_HISTORY_BUSY_TIMEOUT_MS for a
 * writer before giving up, and every write is one BEGIN IMMEDIATE
 * transaction (taking the write lock before reading what it depends on,
 * so two adds of one run cannot both find it absent). A store also
 * travels (a CI cache), so it is opened with SQLite's defensive settings
 * (nothing in the file runs: no triggers, views or untrusted functions),
 * its identity and schema are checked before anything is read, and what
 * is read back is checked (units, values) as a report's figures are.
 */
#include <tilescope/alloc.h>
#include "history-private.h"
#include "report-private.h"

#include "format.h"

#include <tilescope/hashmap.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct tsr_history {
	sqlite3 *db;
	char *path;
	char error[512];
};

/* The diff's JSON words for the units (diff-render.c's unit_key), as the
 * store's metric.unit holds them, by tsr_metric_unit. */
static const char *const unit_words[] = {"bytes", "cycles", "tiles", "count", "flops", "ns"};
#define N_UNITS (sizeof(unit_words) / sizeof(unit_words[0]))

/* --- Errors ----------------------------------------------------------------- */

/* Records a failure on `h` (may be NULL) and as the thread's last error;
 * returns `code`. */
__attribute__((format(printf, 3, 4))) static int hfail(tsr_history *h, int code,
                                                        const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (h)
		memcpy(h->error, buf, sizeof(h->error));
	return tsr_set_last_error(code, "%s", buf);
}

/* The tsr_error of an SQLite failure while using a store. */
static int map_sqlite(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOMEM: return TSR_ERR_NO_MEMORY;
	case SQLITE_NOTADB: return TSR_ERR_NOT_SQLITE;
	case SQLITE_CORRUPT: return TSR_ERR_CORRUPT;
	case SQLITE_TOOBIG: return TSR_ERR_TOO_LARGE;
	case SQLITE_CONSTRAINT:
	case SQLITE_MISMATCH: return TSR_ERR_INVALID_ARGUMENT;
	case SQLITE_ERROR: return TSR_ERR_CORRUPT; /* a table or column the schema lacks */
	default: return TSR_ERR_IO; /* IOERR, CANTOPEN, BUSY, LOCKED, READONLY, FULL ... */
	}
}

/* Records SQLite's failure `rc` while doing `what`. */
static int hsql(tsr_history *h, int rc, const char *what)
{
	const char *msg = (sqlite3_errcode(h->db) & 0xff) == (rc & 0xff) ? sqlite3_errmsg(h->db)
	                                                                 : sqlite3_errstr(rc);

	if ((rc & 0xff) == SQLITE_CORRUPT || (rc & 0xff) == SQLITE_NOTADB)
		return hfail(h, map_sqlite(rc), "'%s': the history store is damaged (%s: %s)", h->path,
		             what, msg);
	return hfail(h, map_sqlite(rc), "'%s': %s: %s", h->path, what, msg);
}

/* Prepares `sql` on h's connection. */
static int hprepare(tsr_history *h, sqlite3_stmt **st, const char *sql)
{
	int rc = sqlite3_prepare_v2(h->db, sql, -1, st, NULL);

	if (rc != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
		return hsql(h, rc, "reading the store");
	}
	return TSR_OK;
}

/* Runs `sql` (no rows). */
static int hexec(tsr_history *h, const char *sql, const char *what)
{
	int rc = sqlite3_exec(h->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? TSR_OK : hsql(h, rc, what);
}

/* Ends a write transaction: COMMIT when rc is TSR_OK, else ROLLBACK
 * (keeping rc's message). */
static int hend(tsr_history *h, int rc)
{
	if (rc == TSR_OK)
		return hexec(h, "COMMIT", "writing the store");
	if (!sqlite3_get_autocommit(h->db))
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* One integer of a one-row statement (a PRAGMA), into *out. */
static int pragma_int(tsr_history *h, const char *sql, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	int rc = hprepare(h, &st, sql);

	if (rc)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		rc = TSR_OK;
	} else
		rc = hsql(h, rc == SQLITE_DONE ? SQLITE_CORRUPT : rc, "reading the store's header");
	sqlite3_finalize(st);
	return rc;
}

const char *tsr_history_error(const tsr_history *h)
{
	return h ? h->error : "";
}

/* --- Opening ------------------------------------------------------------------ */

/* SQLite's defensive settings for a file from elsewhere, and the
 * connection's own: waits for other writers, WAL's usual durability. */
static int configure(tsr_history *h)
{
	static const int configs[][2] = {
		{SQLITE_DBCONFIG_DEFENSIVE, 1},
		{SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
		{SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
		{SQLITE_DBCONFIG_ENABLE_VIEW, 0},
		{SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0},
		{SQLITE_DBCONFIG_WRITABLE_SCHEMA, 0},
		{SQLITE_DBCONFIG_DQS_DDL, 0},
		{SQLITE_DBCONFIG_DQS_DML, 0},
	};

	sqlite3_extended_result_codes(h->db, 1);
	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++)
		if (sqlite3_db_config(h->db, configs[i][0], configs[i][1], (int *)NULL) != SQLITE_OK)
			return hsql(h, SQLITE_ERROR, "configuring the connection");
	sqlite3_limit(h->db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_busy_timeout(h->db, TSR_HISTORY_BUSY_TIMEOUT_MS);
	return hexec(h, "PRAGMA cell_size_check = ON; PRAGMA synchronous = NORMAL", "configuring");
}

/* Writes the schema into an empty file, unless another process did in
 * the meantime (checked under the write lock; the lock itself may have
 * written an empty first page). */
static int create_schema(tsr_history *h)
{
	int64_t objects = 0, app = 0;
	int rc = hexec(h, "BEGIN IMMEDIATE", "creating the store");

	if (!rc)
		rc = pragma_int(h, "SELECT count(*) FROM sqlite_schema", &objects);
	if (!rc)
		rc = pragma_int(h, "PRAGMA application_id", &app);
	if (!rc && objects == 0 && app == 0)
		rc = hexec(h, tsf_history_schema_sql, "creating the store");
	return hend(h, rc);
}

/*
 * The file's tables and indexes are exactly those history.sql makes, by
 * their SQL text: every NOT NULL and key the code relies on holds, and a
 * store whose schema was changed elsewhere is refused at open rather than
 * half-way through a write. SQLITE_OK with `why` saying what differs (""
 * when nothing does), or the SQLite code of a failed read.
 */
static int check_tables(tsr_history *h, char *why, size_t size)
{
	static const char q[] = "SELECT type, name, sql FROM sqlite_schema WHERE type IN ('table', "
	                        "'index') AND sql IS NOT NULL ORDER BY name";
	sqlite3 *mem = NULL;
	sqlite3_stmt *want = NULL, *have = NULL;
	int rc = sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);

	why[0] = 0;
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(mem, tsf_history_schema_sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(mem, q, -1, &want, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(h->db, q, -1, &have, NULL);
	while (rc == SQLITE_OK) {
		int a = sqlite3_step(want), b = sqlite3_step(have);
		const char *name, *text[2][3] = {{NULL}};

		/* A failed step of either side (out of memory making the
		 * reference in memory, too) is that failure, never a difference. */
		if (a != SQLITE_ROW && a != SQLITE_DONE) {
			rc = a;
			break;
		}
		if (b != SQLITE_ROW && b != SQLITE_DONE) {
			rc = b;
			break;
		}
		if (a == SQLITE_DONE && b == SQLITE_DONE)
			break;
		/* Each column is text (the query asks sql IS NOT NULL): NULL
		 * from sqlite3_column_text is its copy failing. */
		for (int c = 0; c < 3; c++) {
			text[0][c] = a == SQLITE_ROW ? (const char *)sqlite3_column_text(want, c) : "";
			text[1][c] = b == SQLITE_ROW ? (const char *)sqlite3_column_text(have, c) : "";
			if (!text[0][c] || !text[1][c])
				rc = SQLITE_NOMEM;
		}
		if (rc != SQLITE_OK)
			break;
		name = text[a == SQLITE_ROW ? 0 : 1][1];
		if (a != SQLITE_ROW || b != SQLITE_ROW || strcmp(text[0][1], text[1][1]) ||
		    strcmp(text[0][2], text[1][2])) {
			snprintf(why, size, "%s %.100s is not as schema version %d makes it",
			         text[a == SQLITE_ROW ? 0 : 1][0], name, TSF_HISTORY_SCHEMA_VERSION);
			break;
		}
	}
	sqlite3_finalize(want);
	sqlite3_finalize(have);
	sqlite3_close_v2(mem);
	return rc;
}

/* Refuses a file that is not a store of a schema this code reads. */
static int check_identity(tsr_history *h)
{
	int64_t app = 0, version = 0;
	char why[256];
	int rc = pragma_int(h, "PRAGMA application_id", &app);

	if (!rc)
		rc = pragma_int(h, "PRAGMA user_version", &version);
	if (rc == TSR_ERR_NOT_SQLITE)
		return hfail(h, rc, "'%s': not an SQLite database, so not a history store", h->path);
	if (rc)
		return rc;
	if (app != TSF_HISTORY_APPLICATION_ID)
		return hfail(h, TSR_ERR_NOT_REPORT, "'%s': not a Tilescope history store (%s)", h->path,
		             app == TSF_PROFILE_APPLICATION_ID ? "it is a profile.pop report"
		             : app == TSF_PVTI_APPLICATION_ID  ? "it is a .pvti trace"
		                                               : "another application's SQLite file");
	if (version > TSF_HISTORY_SCHEMA_VERSION)
		return hfail(h, TSR_ERR_SCHEMA_TOO_NEW,
		             "'%s': a history store of schema version %lld, written by a newer "
		             "Tilescope; this one reads version %d",
		             h->path, (long long)version, TSF_HISTORY_SCHEMA_VERSION);
	if (version < TSF_HISTORY_SCHEMA_VERSION)
		return hfail(h, TSR_ERR_SCHEMA_TOO_OLD,
		             "'%s': a history store of schema version %lld; this Tilescope reads "
		             "version %d",
		             h->path, (long long)version, TSF_HISTORY_SCHEMA_VERSION);
	rc = tsr_sqlite_check_schema(h->db, tsf_history_schema_sql, why, sizeof(why));
	if (rc != SQLITE_OK)
		return hsql(h, rc, "reading the schema");
	if (why[0])
		return hfail(h, TSR_ERR_NOT_REPORT, "'%s': not a Tilescope history store: it %s",
		             h->path, why);
	rc = check_tables(h, why, sizeof(why));
	if (rc != SQLITE_OK)
		return hsql(h, rc, "reading the schema");
	if (why[0])
		return hfail(h, TSR_ERR_NOT_REPORT, "'%s': not a Tilescope history store: %s", h->path,
		             why);
	return TSR_OK;
}

/* Opens the store at `path`; with `create`, a missing or empty file
 * becomes an empty store. */
static int open_store(tsr_history **out, const char *path, bool create)
{
	tsr_history *h;
	int64_t pages = 0;
	int rc;

	if (!out || !path)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "tsr_history_open: NULL argument");
	*out = NULL;
	if (tsr_sqlite_init() != SQLITE_OK)
		return tsr_set_last_error(TSR_ERR_IO, "SQLite: %s", tsr_sqlite_init_error());
	h = tsb_calloc(1, sizeof(*h));
	if (!h || !(h->path = tsb_strdup(path))) {
		free(h);
		return tsr_set_last_error(TSR_ERR_NO_MEMORY, "'%s': out of memory", path);
	}
	rc = sqlite3_open_v2(path, &h->db,
	                     SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
	                         SQLITE_OPEN_NOMUTEX,
	                     NULL);
	if (rc != SQLITE_OK) {
		int err = h->db ? sqlite3_system_errno(h->db) : 0;
		rc = hfail(h, (rc & 0xff) == SQLITE_CANTOPEN && err == ENOENT ? TSR_ERR_NOT_FOUND
		                                                               : map_sqlite(rc),
		           "'%s': cannot %s the history store: %s", path, create ? "open or create" : "open",
		           err ? strerror(err) : h->db ? sqlite3_errmsg(h->db) : sqlite3_errstr(rc));
		goto fail;
	}
	rc = configure(h);
	if (!rc)
		rc = pragma_int(h, "PRAGMA page_count", &pages);
	if (rc == TSR_ERR_NOT_SQLITE) {
		rc = hfail(h, rc, "'%s': not an SQLite database, so not a history store", path);
		goto fail;
	}
	if (!rc && pages == 0)
		rc = create ? create_schema(h)
		            : hfail(h, TSR_ERR_NOT_REPORT, "'%s': an empty file, not a history store", path);
	if (!rc)
		rc = check_identity(h);
	/* WAL, once per file (it stays): readers and a writer at once. */
	if (!rc)
		rc = hexec(h, "PRAGMA journal_mode = WAL", "switching the store to WAL mode");
	if (rc)
		goto fail;
	*out = h;
	return TSR_OK;
fail:
	tsr_history_free(h);
	return rc;
}

TSR_API int tsr_history_open(tsr_history **out, const char *path, unsigned flags)
{
	if (flags & ~(unsigned)TSR_HISTORY_CREATE) {
		if (out)
			*out = NULL;
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT,
		                          "tsr_history_open: unknown flags 0x%x", flags);
	}
	return open_store(out, path, flags & TSR_HISTORY_CREATE);
}

TSR_API void tsr_history_free(tsr_history *h)
{
	if (!h)
		return;
	sqlite3_close_v2(h->db);
	free(h->path);
	free(h);
}

/* --- Result lists ---------------------------------------------------------------- */

/* A list_ result being built: items of `size` bytes and a pool of their
 * strings, joined into one block at the end (the caller frees it with
 * free()). While building, a string field holds its pool offset + 1
 * (0: NULL). */
typedef struct hlist {
	char *items;
	size_t n, cap, size;
	char *pool;
	size_t used, pool_cap;
	bool nomem;
} hlist;

/* A new zeroed item at the end, or NULL (out of memory). */
static void *hlist_push(hlist *l)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		char *p = tsb_reallocarray(l->items, cap, l->size);

		if (!p) {
			l->nomem = true;
			return NULL;
		}
		l->items = p;
		l->cap = cap;
	}
	memset(l->items + l->n * l->size, 0, l->size);
	return l->items + l->n++ * l->size;
}

/* `s` copied into the pool, as a field holds it while building. */
static const char *hlist_str(hlist *l, const char *s)
{
	size_t len;

	if (!s)
		return NULL;
	len = strlen(s) + 1;
	if (l->pool_cap - l->used < len) {
		size_t cap = l->pool_cap ? l->pool_cap : 256;
		char *p;

		while (cap - l->used < len)
			cap *= 2;
		p = tsb_realloc(l->pool, cap);
		if (!p) {
			l->nomem = true;
			return NULL;
		}
		l->pool = p;
		l->pool_cap = cap;
	}
	memcpy(l->pool + l->used, s, len);
	l->used += len;
	return (const char *)(uintptr_t)(l->used - len + 1);
}

/* A field's string once the pool is at `pool`. */
static void fix_str(const char **field, char *pool)
{
	if (*field)
		*field = pool + ((uintptr_t)*field - 1);
}

static void fix_run(tsr_history_run *r, char *pool)
{
	fix_str(&r->commit, pool);
	fix_str(&r->parent, pool);
	fix_str(&r->branch, pool);
	fix_str(&r->label, pool);
	fix_str(&r->host, pool);
	fix_str(&r->report_path, pool);
	fix_str(&r->report_sha256, pool);
}

/* The one block (*out, *n) of a finished list; frees the parts. */
static int hlist_finish(tsr_history *h, hlist *l, void **out, size_t *n,
                        void (*fix)(void *item, char *pool))
{
	char *block = NULL;

	if (!l->nomem)
		block = tsb_malloc(l->n * l->size + l->used + 1);
	if (block) {
		char *pool = block + l->n * l->size;

		if (l->n)
			memcpy(block, l->items, l->n * l->size);
		if (l->used)
			memcpy(pool, l->pool, l->used);
		for (size_t i = 0; i < l->n; i++)
			fix(block + i * l->size, pool);
		*n = l->n;
	}
	free(l->items);
	free(l->pool);
	*out = block;
	if (!block)
		return hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h ? h->path : "");
	return TSR_OK;
}

static void fix_run_item(void *item, char *pool)
{
	fix_run(item, pool);
}

static void fix_point_item(void *item, char *pool)
{
	fix_run(&((tsr_history_point *)item)->run, pool);
}

static void fix_metric_item(void *item, char *pool)
{
	fix_str(&((tsr_history_metric *)item)->name, pool);
}

static void fix_figure_item(void *item, char *pool)
{
	fix_str(&((tsr_history_figure *)item)->metric, pool);
}

/* --- Reading rows ------------------------------------------------------------------ */

/* The unit a metric.unit word names; false for another word. */
static bool unit_of(const char *word, tsr_metric_unit *unit)
{
	for (size_t i = 0; word && i < N_UNITS; i++)
		if (!strcmp(word, unit_words[i])) {
			*unit = (tsr_metric_unit)i;
			return true;
		}
	return false;
}

/* A figure's value from column `col`: a non-negative integer. */
static int column_value(tsr_history *h, uint64_t *out, sqlite3_stmt *st, int col)
{
	int64_t v = sqlite3_column_int64(st, col);

	if (sqlite3_column_type(st, col) != SQLITE_INTEGER || v < 0)
		return hfail(h, TSR_ERR_CORRUPT,
		             "'%s': the history store is damaged (a figure that is not a count)", h->path);
	*out = (uint64_t)v;
	return TSR_OK;
}

/* The text of column `col`, NULL for NULL. */
static const char *column_text(sqlite3_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st, col);
}

/* Columns first..first+8 of a row that selects a run's columns in
 * RUN_COLUMNS' order, into *r with its strings in l's pool. */
#define RUN_COLUMNS \
	"r.id, r.commit_sha, r.parent_sha, r.branch, r.time, r.label, r.host, r.report_path, " \
	"r.report_sha256"
static void read_run(hlist *l, tsr_history_run *r, sqlite3_stmt *st, int first)
{
	r->id = sqlite3_column_int64(st, first);
	r->commit = hlist_str(l, column_text(st, first + 1));
	r->parent = hlist_str(l, column_text(st, first + 2));
	r->branch = hlist_str(l, column_text(st, first + 3));
	r->time = sqlite3_column_int64(st, first + 4);
	r->label = hlist_str(l, column_text(st, first + 5));
	r->host = hlist_str(l, column_text(st, first + 6));
	r->report_path = hlist_str(l, column_text(st, first + 7));
	r->report_sha256 = hlist_str(l, column_text(st, first + 8));
}

/* --- Adding ------------------------------------------------------------------------ */

/* True when `s` is 64 lowercase hex digits. */
static bool is_sha256(const char *s)
{
	size_t i = 0;

	for (; s && i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s && s[64] == '\0';
}

/* A write's prepared statements. */
typedef struct writer {
	sqlite3_stmt *find_metric, *add_metric, *add_figure;
} writer;

static int writer_open(tsr_history *h, writer *w)
{
	int rc = hprepare(h, &w->find_metric, "SELECT id, unit, noisy FROM metric WHERE name = ?1");

	if (!rc)
		rc = hprepare(h, &w->add_metric,
		              "INSERT INTO metric (name, unit, noisy) VALUES (?1, ?2, ?3)");
	if (!rc)
		rc = hprepare(h, &w->add_figure,
		              "INSERT INTO figure (metric, run, sample, value) VALUES (?1, ?2, ?3, ?4)");
	return rc;
}

static void writer_close(writer *w)
{
	sqlite3_finalize(w->find_metric);
	sqlite3_finalize(w->add_metric);
	sqlite3_finalize(w->add_figure);
}

/* The id of metric `name` (added when new); a unit or noisiness other
 * than the store's is TSR_ERR_INVALID_ARGUMENT. */
static int resolve_metric(tsr_history *h, writer *w, const char *name, tsr_metric_unit unit,
                          bool noisy, int64_t *id)
{
	int rc;

	if ((unsigned)unit >= N_UNITS)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "metric '%s': no such unit (%d)", name,
		             (int)unit);
	sqlite3_bind_text(w->find_metric, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(w->find_metric);
	if (rc == SQLITE_ROW) {
		tsr_metric_unit have;
		bool known = unit_of(column_text(w->find_metric, 1), &have);
		bool have_noisy = sqlite3_column_int64(w->find_metric, 2) != 0;

		*id = sqlite3_column_int64(w->find_metric, 0);
		sqlite3_reset(w->find_metric);
		if (!known)
			return hfail(h, TSR_ERR_CORRUPT,
			             "'%s': the history store is damaged (metric '%s' has an unknown unit)",
			             h->path, name);
		if (have != unit || have_noisy != noisy)
			return hfail(h, TSR_ERR_INVALID_ARGUMENT,
			             "metric '%s': the store has it %s in %s, not %s in %s", name,
			             have_noisy ? "noisy" : "exact", unit_words[have],
			             noisy ? "noisy" : "exact", unit_words[unit]);
		return TSR_OK;
	}
	sqlite3_reset(w->find_metric);
	if (rc != SQLITE_DONE)
		return hsql(h, rc, "reading the metrics");
	sqlite3_bind_text(w->add_metric, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->add_metric, 2, unit_words[unit], -1, SQLITE_STATIC);
	sqlite3_bind_int(w->add_metric, 3, noisy);
	rc = sqlite3_step(w->add_metric);
	sqlite3_reset(w->add_metric);
	if (rc != SQLITE_DONE)
		return hsql(h, rc, "adding a metric");
	*id = sqlite3_last_insert_rowid(h->db);
	return TSR_OK;
}

/* Inserts one figure of run `run`. */
static int add_figure(tsr_history *h, writer *w, int64_t metric, int64_t run, const char *name,
                      uint32_t sample, uint64_t value)
{
	int rc;

	sqlite3_bind_int64(w->add_figure, 1, metric);
	sqlite3_bind_int64(w->add_figure, 2, run);
	sqlite3_bind_int64(w->add_figure, 3, sample);
	sqlite3_bind_int64(w->add_figure, 4, (int64_t)value);
	rc = sqlite3_step(w->add_figure);
	sqlite3_reset(w->add_figure);
	if ((rc & 0xff) == SQLITE_CONSTRAINT)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT,
		             "metric '%s': two figures of sample %u in one run", name, sample);
	return rc == SQLITE_DONE ? TSR_OK : hsql(h, rc, "adding a figure");
}

/* The id of the run of this identity, or 0 when the store has none. */
static int find_run(tsr_history *h, int64_t *id, const char *commit, const char *label,
                    const char *sha)
{
	sqlite3_stmt *st = NULL;
	int rc = hprepare(h, &st,
	                  "SELECT id FROM run WHERE commit_sha = ?1 AND label = ?2 AND "
	                  "report_sha256 = ?3");

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, sha, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	*id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? TSR_OK : hsql(h, rc, "reading the runs");
	sqlite3_finalize(st);
	return rc;
}

/* Inserts the run row (its identity known to be absent); *id its id. */
static int insert_run(tsr_history *h, int64_t *id, const tsr_history_run *r, const char *label,
                      const char *host, int64_t time)
{
	sqlite3_stmt *st = NULL;
	int rc = hprepare(h, &st,
	                  "INSERT INTO run (commit_sha, parent_sha, branch, time, label, host, "
	                  "report_path, report_sha256) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, r->commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, r->parent, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, r->branch, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, time);
	sqlite3_bind_text(st, 5, label, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, r->report_path, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, r->report_sha256, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return hsql(h, rc, "adding a run");
	*id = sqlite3_last_insert_rowid(h->db);
	return TSR_OK;
}

/* Adds one run and its figures in one transaction (history.h). */
TSR_API int tsr_history_add(int64_t *out_id, bool *added, tsr_history *h,
                            const tsr_history_run *run, const tsr_history_figure *figures,
                            size_t n)
{
	char host[256] = "";
	const char *label = run && run->label ? run->label : "";
	int64_t id = 0, t;
	writer w = {0};
	int rc;

	if (out_id)
		*out_id = 0;
	if (added)
		*added = false;
	if (!h || !run || (n && !figures))
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "tsr_history_add: NULL argument");
	if (!run->commit || !*run->commit)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "adding a run: no commit given");
	if (!run->report_path || !is_sha256(run->report_sha256))
		return hfail(h, TSR_ERR_INVALID_ARGUMENT,
		             "adding a run: the report's path and SHA-256 (64 lowercase hex digits) "
		             "are needed");
	if (run->time < -1)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "adding a run: time %lld is before 1970",
		             (long long)run->time);
	for (size_t i = 0; i < n; i++)
		if (!figures[i].metric || !*figures[i].metric || figures[i].value > INT64_MAX)
			return hfail(h, TSR_ERR_INVALID_ARGUMENT,
			             "adding a run: figure %zu has no metric name or a value past 2^63 - 1",
			             i);
	if (run->host)
		snprintf(host, sizeof(host), "%s", run->host);
	else if (gethostname(host, sizeof(host) - 1) != 0)
		snprintf(host, sizeof(host), "%s", "unknown");
	t = run->time >= 0 ? run->time : (int64_t)time(NULL);

	rc = hexec(h, "BEGIN IMMEDIATE", "adding a run");
	if (rc)
		return rc;
	rc = find_run(h, &id, run->commit, label, run->report_sha256);
	if (!rc && id) {
		if (out_id)
			*out_id = id;
		return hend(h, TSR_OK);
	}
	if (!rc)
		rc = insert_run(h, &id, run, label, host, t);
	if (!rc)
		rc = writer_open(h, &w);
	for (size_t i = 0; !rc && i < n; i++) {
		int64_t metric;

		rc = resolve_metric(h, &w, figures[i].metric, figures[i].unit, figures[i].noisy,
		                    &metric);
		if (!rc)
			rc = add_figure(h, &w, metric, id, figures[i].metric, figures[i].sample,
			                figures[i].value);
	}
	writer_close(&w);
	rc = hend(h, rc);
	if (!rc) {
		if (out_id)
			*out_id = id;
		if (added)
			*added = true;
	}
	return rc;
}

/* The figures of a report: its self-comparison's values (history.h). */
TSR_API int tsr_history_list_report_figures(tsr_history_figure **out, size_t *n,
                                            tsr_report *report)
{
	tsr_comparison *cmp = NULL;
	hlist l = {.size = sizeof(tsr_history_figure)};
	int rc;

	if (!out || !n || !report)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT,
		                          "tsr_history_list_report_figures: NULL argument");
	*out = NULL;
	*n = 0;
	rc = tsr_compare_programs(&cmp, report, report, NULL);
	if (rc)
		return rc;
	for (size_t i = 0; i < tsr_comparison_get_count(cmp); i++) {
		const tsr_delta *d = tsr_comparison_get_delta(cmp, i);
		tsr_history_figure *f;

		if (!d->in_new || !(f = hlist_push(&l)))
			continue;
		f->metric = hlist_str(&l, d->metric);
		f->unit = d->unit;
		f->value = d->new_value;
	}
	tsr_comparison_free(cmp);
	rc = hlist_finish(NULL, &l, (void **)out, n, fix_figure_item);
	if (rc)
		return tsr_fail(report, rc, "'%s': out of memory", tsr_report_get_path(report));
	return TSR_OK;
}

/* One span name's figures while they are summed over channels. */
typedef struct label_sum {
	const char *name;
	uint64_t total_ns, count;
} label_sum;

static int label_sum_by_name(const void *a, const void *b)
{
	return strcmp(((const label_sum *)a)->name, ((const label_sum *)b)->name);
}

/* a + b, or UINT64_MAX past it (a value tsr_history_add refuses). */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Pushes a noisy figure "trace.<middle><suffix>" onto l. */
static void push_trace_figure(hlist *l, const char *middle, const char *suffix,
                              tsr_metric_unit unit, uint64_t value)
{
	size_t len = strlen("trace.") + strlen(middle) + strlen(suffix) + 1;
	char *name = tsb_malloc(len);
	tsr_history_figure *f = name ? hlist_push(l) : NULL;

	if (!f) {
		l->nomem = true;
		free(name);
		return;
	}
	snprintf(name, len, "trace.%s%s", middle, suffix);
	f->metric = hlist_str(l, name);
	f->unit = unit;
	f->noisy = true;
	f->value = value;
	free(name);
}

/* A trace's wall-clock figures (history.h): its label statistics without
 * medians, which a cleanly closed file keeps in its label_stats. */
TSR_API int tsr_history_list_trace_figures(tsr_history_figure **out, size_t *n,
                                           tsr_trace *trace)
{
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	const tsr_trace_info *info;
	tsr_trace_label_stat *stats = NULL;
	label_sum *sums = NULL;
	hlist l = {.size = sizeof(tsr_history_figure)};
	size_t n_stats = 0, k = 0;
	int rc;

	if (!out || !n || !trace)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT,
		                          "tsr_history_list_trace_figures: NULL argument");
	*out = NULL;
	*n = 0;
	o.median = false;
	rc = tsr_trace_list_label_stats(&stats, &n_stats, trace, &o);
	if (rc)
		return rc;
	sums = tsb_reallocarray(NULL, n_stats + 1, sizeof(*sums));
	if (!sums) {
		free(stats);
		return tsr_set_last_error(TSR_ERR_NO_MEMORY, "out of memory");
	}
	for (size_t i = 0; i < n_stats; i++) {
		const char *name = tsr_trace_get_name(trace, stats[i].name);

		sums[i] = (label_sum){name ? name : "", stats[i].total_ns, stats[i].count};
	}
	free(stats);
	/* One name in several channels is one metric: its spans summed. */
	if (n_stats)
		qsort(sums, n_stats, sizeof(*sums), label_sum_by_name);
	for (size_t i = 0; i < n_stats; i++) {
		if (k && !strcmp(sums[k - 1].name, sums[i].name)) {
			sums[k - 1].total_ns = add_sat(sums[k - 1].total_ns, sums[i].total_ns);
			sums[k - 1].count = add_sat(sums[k - 1].count, sums[i].count);
		} else
			sums[k++] = sums[i];
	}
	info = tsr_trace_get_info(trace);
	push_trace_figure(&l, "wall_ns", "", TSR_UNIT_NS,
	                  info->end_ns > info->start_ns ? (uint64_t)(info->end_ns - info->start_ns) : 0);
	for (size_t i = 0; i < k; i++) {
		char *middle = tsb_malloc(strlen("label.") + strlen(sums[i].name) + 1);

		if (!middle) {
			l.nomem = true;
			break;
		}
		sprintf(middle, "label.%s", sums[i].name);
		push_trace_figure(&l, middle, ".count", TSR_UNIT_COUNT, sums[i].count);
		push_trace_figure(&l, middle, ".total_ns", TSR_UNIT_NS, sums[i].total_ns);
		free(middle);
	}
	free(sums);
	rc = hlist_finish(NULL, &l, (void **)out, n, fix_figure_item);
	return rc ? tsr_set_last_error(rc, "out of memory") : TSR_OK;
}

TSR_API int tsr_history_add_files(int64_t *out_id, bool *added, tsr_history *h,
                                  const tsr_history_run *run, tsr_report *report,
                                  tsr_trace *trace)
{
	tsr_history_figure *figures = NULL, *more = NULL, *all = NULL;
	const tsr_trace_process *procs = NULL;
	const char **paths = NULL;
	tsr_history_run r;
	char sha[65];
	size_t n = 0, n_more = 0, n_procs = 0;
	int rc;

	if (out_id)
		*out_id = 0;
	if (added)
		*added = false;
	if (!h || !run || (!report && !trace))
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "tsr_history_add_files: NULL argument");
	r = *run;
	if (!report && tsr_trace_get_processes(&procs, &n_procs, trace) != TSR_OK)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "%s", tsr_trace_error(trace));
	paths = tsb_reallocarray(NULL, n_procs + 1, sizeof(*paths));
	if (!paths)
		return hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h->path);
	paths[0] = report ? tsr_report_get_path(report) : "";
	for (size_t i = 0; i < n_procs; i++)
		paths[i] = procs[i].path;
	r.report_path = paths[0];
	if (tsr_history_sha256_files(sha, paths, report ? 1 : n_procs) != 0) {
		rc = hfail(h, TSR_ERR_IO, "'%s': cannot read it to hash it: %s", r.report_path,
		           strerror(errno));
		goto out;
	}
	r.report_sha256 = sha;
	rc = report ? tsr_history_list_report_figures(&figures, &n, report) : TSR_OK;
	if (rc) {
		rc = hfail(h, rc, "%s", tsr_report_error(report));
		goto out;
	}
	rc = trace ? tsr_history_list_trace_figures(&more, &n_more, trace) : TSR_OK;
	if (rc) {
		rc = hfail(h, rc, "%s", *tsr_trace_error(trace) ? tsr_trace_error(trace)
		                                                 : tsr_last_error());
		goto out;
	}
	/* Each list is one block, its strings after its items: both are
	 * kept while `all` points into them. */
	all = tsb_reallocarray(NULL, n + n_more + 1, sizeof(*all));
	if (!all) {
		rc = hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h->path);
		goto out;
	}
	if (n)
		memcpy(all, figures, n * sizeof(*all));
	if (n_more)
		memcpy(all + n, more, n_more * sizeof(*all));
	rc = tsr_history_add(out_id, added, h, &r, all, n + n_more);
out:
	free(all);
	free(paths);
	free(figures);
	free(more);
	return rc;
}

TSR_API int tsr_history_add_report(int64_t *out_id, bool *added, tsr_history *h,
                                   const tsr_history_run *run, tsr_report *report)
{
	if (!report) {
		if (out_id)
			*out_id = 0;
		if (added)
			*added = false;
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "tsr_history_add_report: NULL argument");
	}
	return tsr_history_add_files(out_id, added, h, run, report, NULL);
}

/* Adds one figure as a sample of run `run` (tsr_history_add_sample's
 * rules); *sample the sample number it was given. */
static int add_one_sample(tsr_history *h, writer *w, sqlite3_stmt *find, int64_t run,
                          const tsr_history_figure *f, uint32_t *sample)
{
	int64_t metric = 0;
	int rc = resolve_metric(h, w, f->metric, f->unit, f->noisy, &metric);

	if (rc)
		return rc;
	/* The run's highest sample of the metric and its sample 0's value. */
	sqlite3_reset(find);
	sqlite3_bind_int64(find, 1, metric);
	sqlite3_bind_int64(find, 2, run);
	rc = sqlite3_step(find);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(find);
		return hsql(h, rc, "reading the run's figures");
	}
	bool has = sqlite3_column_type(find, 0) != SQLITE_NULL;
	int64_t top = sqlite3_column_int64(find, 0), first = sqlite3_column_int64(find, 1);
	sqlite3_reset(find);
	if (has && !f->noisy) {
		*sample = 0;
		if ((uint64_t)first == f->value)
			return TSR_OK;
		return hfail(h, TSR_ERR_INVALID_ARGUMENT,
		             "metric '%s': run %lld has %lld and this sample %llu, but a simulated "
		             "figure cannot differ between samples of one run",
		             f->metric, (long long)run, (long long)first, (unsigned long long)f->value);
	}
	if (has && top >= UINT32_MAX)
		return hfail(h, TSR_ERR_TOO_LARGE, "metric '%s': run %lld has %lld samples already",
		             f->metric, (long long)run, (long long)top + 1);
	*sample = has ? (uint32_t)top + 1 : 0;
	return add_figure(h, w, metric, run, f->metric, *sample, f->value);
}

TSR_API int tsr_history_add_sample(int64_t *out_id, uint32_t *out_sample, tsr_history *h,
                                   const tsr_history_run *run,
                                   const tsr_history_figure *figures, size_t n)
{
	const char *label = run && run->label ? run->label : "";
	sqlite3_stmt *st = NULL;
	writer w = {0};
	int64_t id = 0;
	uint32_t top = 0;
	int rc;

	if (out_id)
		*out_id = 0;
	if (out_sample)
		*out_sample = 0;
	if (!h || !run || !run->commit || (n && !figures))
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "tsr_history_add_sample: NULL argument");
	for (size_t i = 0; i < n; i++)
		if (!figures[i].metric || !*figures[i].metric || figures[i].value > INT64_MAX)
			return hfail(h, TSR_ERR_INVALID_ARGUMENT,
			             "adding a sample: figure %zu has no metric name or a value past "
			             "2^63 - 1",
			             i);
	rc = hexec(h, "BEGIN IMMEDIATE", "adding a sample");
	if (rc)
		return rc;
	rc = hprepare(h, &st,
	              "SELECT id FROM run WHERE commit_sha = ?1 AND label = ?2 "
	              "ORDER BY time DESC, id DESC LIMIT 1");
	if (!rc) {
		sqlite3_bind_text(st, 1, run->commit, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
		rc = rc == SQLITE_ROW ? TSR_OK
		     : rc == SQLITE_DONE
		         ? hfail(h, TSR_ERR_NOT_FOUND, "'%s': no run of commit %s %s%s%s to add a sample to",
		                 h->path, run->commit, *label ? "labelled '" : "without a label",
		                 label, *label ? "'" : "")
		         : hsql(h, rc, "reading the runs");
		sqlite3_finalize(st);
		st = NULL;
	}
	if (!rc)
		rc = writer_open(h, &w);
	if (!rc)
		rc = hprepare(h, &st,
		              "SELECT max(sample), (SELECT value FROM figure WHERE metric = ?1 AND "
		              "run = ?2 AND sample = 0) FROM figure WHERE metric = ?1 AND run = ?2");
	for (size_t i = 0; !rc && i < n; i++) {
		uint32_t sample = 0;

		rc = add_one_sample(h, &w, st, id, &figures[i], &sample);
		top = sample > top ? sample : top;
	}
	sqlite3_finalize(st);
	writer_close(&w);
	rc = hend(h, rc);
	if (!rc) {
		if (out_id)
			*out_id = id;
		if (out_sample)
			*out_sample = top;
	}
	return rc;
}

/* --- Reading ------------------------------------------------------------------------ */

TSR_API int tsr_history_list_runs(tsr_history_run **out, size_t *n, tsr_history *h,
                                  const char *commit, const char *branch, const char *label,
                                  size_t last)
{
	hlist l = {.size = sizeof(tsr_history_run)};
	sqlite3_stmt *st = NULL;
	char sql[512];
	int rc;

	if (!out || !n || !h)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "tsr_history_list_runs: NULL argument");
	*out = NULL;
	*n = 0;
	/* Only the conditions asked, so that SQLite may use the indexes. */
	snprintf(sql, sizeof(sql),
	         "SELECT " RUN_COLUMNS " FROM run r WHERE 1 %s %s %s ORDER BY r.time DESC, "
	         "r.id DESC LIMIT ?3",
	         commit ? "AND substr(r.commit_sha, 1, length(?1)) = ?1" : "",
	         branch ? "AND r.branch = ?2" : "", label ? "AND r.label = ?4" : "");
	rc = hprepare(h, &st, sql);
	if (rc)
		return rc;
	if (commit)
		sqlite3_bind_text(st, 1, commit, -1, SQLITE_STATIC);
	if (branch)
		sqlite3_bind_text(st, 2, branch, -1, SQLITE_STATIC);
	if (label)
		sqlite3_bind_text(st, 4, label, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, last && last < INT64_MAX ? (int64_t)last : -1);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		tsr_history_run *r = hlist_push(&l);

		if (r)
			read_run(&l, r, st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(l.items);
		free(l.pool);
		return hsql(h, rc, "reading the runs");
	}
	return hlist_finish(h, &l, (void **)out, n, fix_run_item);
}

TSR_API int tsr_history_list_metrics(tsr_history_metric **out, size_t *n, tsr_history *h,
                                     const char *pattern)
{
	hlist l = {.size = sizeof(tsr_history_metric)};
	sqlite3_stmt *st = NULL;
	int rc;

	if (!out || !n || !h)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "tsr_history_list_metrics: NULL argument");
	*out = NULL;
	*n = 0;
	rc = hprepare(h, &st,
	              "SELECT name, unit, noisy FROM metric WHERE ?1 IS NULL OR name GLOB ?1 "
	              "ORDER BY name");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, pattern, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		tsr_history_metric *m = hlist_push(&l);

		if (!m)
			continue;
		if (!unit_of(column_text(st, 1), &m->unit)) {
			rc = SQLITE_CORRUPT;
			break;
		}
		m->name = hlist_str(&l, column_text(st, 0));
		m->noisy = sqlite3_column_int64(st, 2) != 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(l.items);
		free(l.pool);
		return rc == SQLITE_CORRUPT
		           ? hfail(h, TSR_ERR_CORRUPT,
		                   "'%s': the history store is damaged (a metric of an unknown unit)",
		                   h->path)
		           : hsql(h, rc, "reading the metrics");
	}
	return hlist_finish(h, &l, (void **)out, n, fix_metric_item);
}

/* qsort order of a series: newest run first (time, then id), its samples
 * in order. */
static int point_newest_first(const void *a, const void *b)
{
	const tsr_history_point *x = a, *y = b;

	if (x->run.time != y->run.time)
		return x->run.time > y->run.time ? -1 : 1;
	if (x->run.id != y->run.id)
		return x->run.id > y->run.id ? -1 : 1;
	return (x->sample > y->sample) - (x->sample < y->sample);
}

TSR_API int tsr_history_list_series(tsr_history_point **out, size_t *n, tsr_history *h,
                                    const char *metric, const char *branch, const char *label,
                                    size_t last)
{
	hlist l = {.size = sizeof(tsr_history_point)};
	sqlite3_stmt *st = NULL;
	int64_t metric_id = 0, prev = 0;
	size_t runs = 0;
	int rc;

	if (!out || !n || !h || !metric)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "tsr_history_list_series: NULL argument");
	*out = NULL;
	*n = 0;
	rc = hprepare(h, &st, "SELECT id FROM metric WHERE name = ?1");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, metric, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		metric_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return hfail(h, TSR_ERR_NOT_FOUND, "'%s': no metric '%s' in the store", h->path, metric);
	if (rc != SQLITE_ROW)
		return hsql(h, rc, "reading the metrics");
	/* The metric's range of the figure table, its runs by rowid; sorted
	 * newest first here, which costs a tenth of SQLite's sorter over the
	 * rows' strings (10,000 points: 1 ms against 10). */
	rc = hprepare(h, &st,
	              "SELECT " RUN_COLUMNS ", f.sample, f.value FROM figure f "
	              "JOIN run r ON r.id = f.run WHERE f.metric = ?1 AND (?2 IS NULL OR "
	              "r.branch = ?2) AND (?3 IS NULL OR r.label = ?3)");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, metric_id);
	sqlite3_bind_text(st, 2, branch, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, label, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		tsr_history_point *p = hlist_push(&l);

		if (!p)
			continue;
		read_run(&l, &p->run, st, 0);
		p->sample = (uint32_t)sqlite3_column_int64(st, 9);
		if (column_value(h, &p->value, st, 10)) {
			sqlite3_finalize(st);
			free(l.items);
			free(l.pool);
			return TSR_ERR_CORRUPT;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(l.items);
		free(l.pool);
		return hsql(h, rc, "reading a series");
	}
	if (l.n) /* items is NULL for none, which qsort may not take */
		qsort(l.items, l.n, l.size, point_newest_first);
	/* The points of the first `last` runs. */
	for (size_t i = 0; last && i < l.n; i++) {
		int64_t run = ((const tsr_history_point *)(void *)(l.items + i * l.size))->run.id;

		if (run != prev && runs++ == last) {
			l.n = i;
			break;
		}
		prev = run;
	}
	return hlist_finish(h, &l, (void **)out, n, fix_point_item);
}

/* A run's sort key, newest first (time, then id), and its index in the runs. */
typedef struct run_key {
	int64_t time, id;
	size_t index;
} run_key;

static int run_newest_first(const void *a, const void *b)
{
	const run_key *x = a, *y = b;

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	return (x->id < y->id) - (x->id > y->id);
}

/* What tsr_history_query_series keeps while it walks: the runs by id,
 * their newest-first order and whether each is asked for; one metric's
 * rows (run by run) and its points. */
typedef struct series_walk {
	tsr_history_run *runs;
	size_t n_runs, *rank, *first, *count;
	bool *chosen;
	uint32_t *sample;
	uint64_t *value;
	size_t cap, points_cap;
	tsr_history_point *points;
} series_walk;

static void series_walk_free(series_walk *w)
{
	free(w->runs);
	free(w->rank);
	free(w->first);
	free(w->count);
	free(w->chosen);
	free(w->sample);
	free(w->value);
	free(w->points);
}

/* Reads metric `name`'s rows with `st` (run, sample, value in key order)
 * into w's run-by-run arrays, then its points newest first; *n points. */
static int walk_metric(tsr_history *h, series_walk *w, sqlite3_stmt *st, const char *name,
                       size_t *n)
{
	size_t rows = 0, j = 0;
	int rc;

	memset(w->count, 0, w->n_runs * sizeof(*w->count));
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t run = sqlite3_column_int64(st, 0);

		if (rows == w->cap) {
			size_t cap = w->cap ? 2 * w->cap : 1024;
			uint32_t *s = tsb_reallocarray(w->sample, cap, sizeof(*s));
			uint64_t *v = s ? tsb_reallocarray(w->value, cap, sizeof(*v)) : NULL;

			if (s)
				w->sample = s;
			if (!v)
				return hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h->path);
			w->value = v;
			w->cap = cap;
		}
		while (j < w->n_runs && w->runs[j].id < run)
			j++;
		if (j == w->n_runs || w->runs[j].id != run)
			return hfail(h, TSR_ERR_CORRUPT,
			             "'%s': the history store is damaged (a figure of no run)", h->path);
		if (!w->count[j]++)
			w->first[j] = rows;
		w->sample[rows] = (uint32_t)sqlite3_column_int64(st, 1);
		if (column_value(h, &w->value[rows], st, 2))
			return TSR_ERR_CORRUPT;
		rows++;
	}
	if (rc != SQLITE_DONE)
		return hsql(h, rc, "reading a series");
	if (rows > w->points_cap) {
		tsr_history_point *p = tsb_reallocarray(w->points, w->cap, sizeof(*p));

		if (!p)
			return hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h->path);
		w->points = p;
		w->points_cap = w->cap;
	}
	*n = 0;
	for (size_t k = 0; k < w->n_runs; k++) {
		size_t r = w->rank[k];

		for (size_t i = 0; w->chosen[r] && i < w->count[r]; i++) {
			tsr_history_point *p = &w->points[(*n)++];

			p->run = w->runs[r];
			p->sample = w->sample[w->first[r] + i];
			p->value = w->value[w->first[r] + i];
		}
	}
	return TSR_OK;
}

TSR_API int tsr_history_query_series(tsr_history *h, const char *pattern, const char *branch,
                                     const char *label, tsr_history_series_cb series_cb,
                                     void *user_data)
{
	series_walk w = {0};
	run_key *keys = NULL;
	tsr_history_metric *metrics = NULL;
	size_t n_metrics = 0;
	sqlite3_stmt *st = NULL;
	int rc;

	if (!h || !series_cb)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "tsr_history_query_series: NULL argument");
	rc = tsr_history_list_metrics(&metrics, &n_metrics, h, pattern);
	if (rc)
		return rc;
	/* The runs once, by id (the figure table's order within a metric). */
	rc = hprepare(h, &st, "SELECT " RUN_COLUMNS " FROM run r ORDER BY r.id");
	if (rc)
		goto out;
	{
		hlist l = {.size = sizeof(tsr_history_run)};

		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			tsr_history_run *r = hlist_push(&l);

			if (r)
				read_run(&l, r, st, 0);
		}
		sqlite3_finalize(st);
		st = NULL;
		if (rc != SQLITE_DONE) {
			free(l.items);
			free(l.pool);
			rc = hsql(h, rc, "reading the runs");
			goto out;
		}
		rc = hlist_finish(h, &l, (void **)&w.runs, &w.n_runs, fix_run_item);
		if (rc)
			goto out;
	}
	w.rank = tsb_reallocarray(NULL, w.n_runs + 1, sizeof(*w.rank));
	w.first = tsb_reallocarray(NULL, w.n_runs + 1, sizeof(*w.first));
	w.count = tsb_reallocarray(NULL, w.n_runs + 1, sizeof(*w.count));
	w.chosen = tsb_reallocarray(NULL, w.n_runs + 1, sizeof(*w.chosen));
	if (!w.rank || !w.first || !w.count || !w.chosen) {
		rc = hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h->path);
		goto out;
	}
	keys = tsb_reallocarray(NULL, w.n_runs + 1, sizeof(*keys));
	if (!keys) {
		rc = hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h->path);
		goto out;
	}
	for (size_t i = 0; i < w.n_runs; i++) {
		const tsr_history_run *r = &w.runs[i];

		keys[i] = (run_key){r->time, r->id, i};
		w.chosen[i] = (!branch || (r->branch && !strcmp(r->branch, branch))) &&
		              (!label || (r->label && !strcmp(r->label, label)));
	}
	qsort(keys, w.n_runs, sizeof(*keys), run_newest_first);
	for (size_t i = 0; i < w.n_runs; i++)
		w.rank[i] = keys[i].index;
	rc = hprepare(h, &st,
	              "SELECT run, sample, value FROM figure WHERE metric = "
	              "(SELECT id FROM metric WHERE name = ?1)");
	for (size_t i = 0; rc == TSR_OK && i < n_metrics; i++) {
		size_t n = 0;

		rc = walk_metric(h, &w, st, metrics[i].name, &n);
		if (rc == TSR_OK)
			rc = series_cb(user_data, &metrics[i], w.points, n);
	}
out:
	sqlite3_finalize(st);
	series_walk_free(&w);
	free(keys);
	free(metrics);
	return rc;
}

TSR_API int tsr_history_list_figures(tsr_history_figure **out, size_t *n, tsr_history *h,
                                     int64_t run)
{
	hlist l = {.size = sizeof(tsr_history_figure)};
	sqlite3_stmt *st = NULL;
	int rc;

	if (!out || !n || !h)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "tsr_history_list_figures: NULL argument");
	*out = NULL;
	*n = 0;
	rc = hprepare(h, &st, "SELECT 1 FROM run WHERE id = ?1");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return hfail(h, TSR_ERR_NOT_FOUND, "'%s': no run %lld in the store", h->path,
		             (long long)run);
	if (rc != SQLITE_ROW)
		return hsql(h, rc, "reading the runs");
	/* One lookup of the figure table's key per metric. */
	rc = hprepare(h, &st,
	              "SELECT m.name, m.unit, m.noisy, f.value FROM metric m JOIN figure f "
	              "ON f.metric = m.id AND f.run = ?1 AND f.sample = 0 ORDER BY m.name");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		tsr_history_figure *f = hlist_push(&l);

		if (!f)
			continue;
		if (!unit_of(column_text(st, 1), &f->unit) || column_value(h, &f->value, st, 3)) {
			rc = SQLITE_CORRUPT;
			break;
		}
		f->metric = hlist_str(&l, column_text(st, 0));
		f->noisy = sqlite3_column_int64(st, 2) != 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(l.items);
		free(l.pool);
		return rc == SQLITE_CORRUPT
		           ? hfail(h, TSR_ERR_CORRUPT, "'%s': the history store is damaged (run %lld)",
		                   h->path, (long long)run)
		           : hsql(h, rc, "reading a run's figures");
	}
	return hlist_finish(h, &l, (void **)out, n, fix_figure_item);
}

/* qsort order of figures by metric name. */
static int figure_by_name(const void *a, const void *b)
{
	return strcmp(((const tsr_history_figure *)a)->metric,
	              ((const tsr_history_figure *)b)->metric);
}

TSR_API int tsr_history_compare(tsr_comparison **out, tsr_history *h, int64_t base_run,
                                tsr_report *report)
{
	tsr_history_figure *base = NULL, *nw = NULL;
	tsr_delta *d = NULL;
	size_t nb = 0, nn = 0, k = 0, i = 0, j = 0;
	int rc;

	if (!out || !h || !report)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "tsr_history_compare: NULL argument");
	*out = NULL;
	rc = tsr_history_list_figures(&base, &nb, h, base_run);
	if (rc)
		return rc;
	for (size_t b = 0; b < nb; b++)
		if (!base[b].noisy)
			base[k++] = base[b];
	nb = k;
	k = 0;
	rc = tsr_history_list_report_figures(&nw, &nn, report);
	if (rc) {
		free(base);
		return hfail(h, rc, "%s", tsr_report_error(report));
	}
	qsort(nw, nn, sizeof(*nw), figure_by_name);
	d = tsb_calloc(nb + nn + 1, sizeof(*d));
	if (!d) {
		rc = hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h->path);
		goto out;
	}
	/* Both by name (list_figures orders by name, as strcmp for ASCII). */
	while (i < nb || j < nn) {
		int c = i == nb ? 1 : j == nn ? -1 : strcmp(base[i].metric, nw[j].metric);
		tsr_delta *e = &d[k++];

		if (c <= 0) {
			e->metric = base[i].metric;
			e->unit = base[i].unit;
			e->in_base = true;
			e->base = base[i++].value;
		}
		if (c >= 0) {
			e->metric = nw[j].metric;
			e->unit = nw[j].unit;
			e->in_new = true;
			e->new_value = nw[j++].value;
		}
	}
	rc = tsr_comparison_new_from_figures(out, d, k);
	if (rc)
		rc = hfail(h, rc, "'%s': %s", h->path, tsr_last_error());
out:
	free(d);
	free(base);
	free(nw);
	return rc;
}

/* --- Merging --------------------------------------------------------------------------- */

/* Copies other's runs that h lacks (their ids mapped in `runs`, other's
 * id -> h's), inside h's open transaction. */
static int merge_runs(tsr_history *h, tsr_history *other, tsb_hashmap *runs, size_t *added)
{
	tsr_history_run *list = NULL;
	size_t n = 0;
	int rc = tsr_history_list_runs(&list, &n, other, NULL, NULL, NULL, 0);

	if (rc)
		return hfail(h, rc, "%s", other->error);
	/* Oldest first, so that ids keep the order the runs were added in. */
	for (size_t i = n; !rc && i-- > 0;) {
		const tsr_history_run *r = &list[i];
		int64_t id = 0;

		rc = find_run(h, &id, r->commit, r->label, r->report_sha256);
		if (rc || id)
			continue;
		rc = insert_run(h, &id, r, r->label, r->host, r->time);
		if (!rc && tsb_hashmap_put_u64(runs, (uint64_t)r->id, (uintptr_t)id) != 0)
			rc = hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h->path);
		*added += !rc;
	}
	free(list);
	return rc;
}

/* Copies the figures of the runs in `runs` from `other`: one pass over
 * other's figure table in its key's order. */
static int merge_figures(tsr_history *h, tsr_history *other, tsb_hashmap *runs)
{
	sqlite3_stmt *st = NULL;
	tsb_hashmap *metrics = tsb_hashmap_new(TSB_HASHMAP_U64_KEYS);
	writer w = {0};
	int rc;

	if (!metrics)
		return hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h->path);
	rc = hprepare(other, &st,
	              "SELECT f.metric, m.name, m.unit, m.noisy, f.run, f.sample, f.value "
	              "FROM figure f JOIN metric m ON m.id = f.metric");
	if (rc)
		rc = hfail(h, rc, "%s", other->error);
	if (!rc)
		rc = writer_open(h, &w);
	while (!rc && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		uintptr_t run, metric;
		tsr_metric_unit unit;
		uint64_t value = 0;

		rc = TSR_OK;
		if (!tsb_hashmap_lookup_u64(runs, (uint64_t)sqlite3_column_int64(st, 4), &run))
			continue;
		if (!unit_of(column_text(st, 2), &unit) || column_value(other, &value, st, 6)) {
			rc = hfail(h, TSR_ERR_CORRUPT, "'%s': the history store is damaged (a figure)",
			           other->path);
			break;
		}
		if (!tsb_hashmap_lookup_u64(metrics, (uint64_t)sqlite3_column_int64(st, 0), &metric)) {
			int64_t id = 0;

			rc = resolve_metric(h, &w, column_text(st, 1), unit,
			                    sqlite3_column_int64(st, 3) != 0, &id);
			if (!rc && tsb_hashmap_put_u64(metrics, (uint64_t)sqlite3_column_int64(st, 0),
			                               (uintptr_t)id) != 0)
				rc = hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h->path);
			metric = (uintptr_t)id;
		}
		if (!rc)
			rc = add_figure(h, &w, (int64_t)metric, (int64_t)run, column_text(st, 1),
			                (uint32_t)sqlite3_column_int64(st, 5), value);
	}
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
	else if (rc > 0)
		rc = hfail(h, map_sqlite(rc), "'%s': reading its figures: %s", other->path,
		           sqlite3_errmsg(other->db));
	writer_close(&w);
	sqlite3_finalize(st);
	tsb_hashmap_free(metrics);
	return rc;
}

TSR_API int tsr_history_merge(size_t *added, tsr_history *h, const char *other_path)
{
	tsr_history *other = NULL;
	tsb_hashmap *runs = NULL;
	size_t count = 0;
	int rc;

	if (added)
		*added = 0;
	if (!h || !other_path)
		return hfail(h, TSR_ERR_INVALID_ARGUMENT, "tsr_history_merge: NULL argument");
	rc = open_store(&other, other_path, false);
	if (rc)
		return hfail(h, rc, "%s", tsr_last_error());
	runs = tsb_hashmap_new(TSB_HASHMAP_U64_KEYS);
	if (!runs) {
		tsr_history_free(other);
		return hfail(h, TSR_ERR_NO_MEMORY, "'%s': out of memory", h->path);
	}
	rc = hexec(h, "BEGIN IMMEDIATE", "merging");
	if (!rc)
		rc = merge_runs(h, other, runs, &count);
	if (!rc && count)
		rc = merge_figures(h, other, runs);
	rc = hend(h, rc);
	if (!rc && added)
		*added = count;
	tsb_hashmap_free(runs);
	tsr_history_free(other);
	return rc;
}
