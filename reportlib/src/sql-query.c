/*
 * Read-only SQL from the caller over a report or one trace file
 * (tsr_report_query, tsr_trace_query), and the table-valued function
 * tile_runs(blob) that, with report-open.c's tile_value / tile_sum /
 * tile_max, makes the per-tile "tile runs" blobs usable from SQL.
 *
 * A caller's statement runs on the handle's own defensive connection, so
 * every setting of report-open.c / trace.c stays on (read-only and
 * query_only, defensive, no triggers or views, the length limits, the
 * progress handler's budget of steps per statement). What changes for
 * the caller's statement is the authorizer: while it is prepared, a
 * stricter one than the handle's allows SELECT, reads, recursive CTEs,
 * the documented functions and the pragmas that only list the schema,
 * and records the first thing it refused so that the error can name it.
 * The handle's authorizer is put back before the first step, so that a
 * row callback may call anything else on the handle. A statement that
 * prepares is then checked with sqlite3_stmt_readonly (VACUUM, for one,
 * has no authorizer action) and must be the only one in the text.
 *
 * Bounds. The progress handler already interrupts any statement past the
 * handle's budget of virtual-machine steps (time). Memory: while a
 * caller's statement runs, no value may pass 16 MiB (SQLITE_LIMIT_LENGTH)
 * and temporary data (sorts, GROUP BY, DISTINCT) goes to an unlinked
 * temporary file instead of memory, so RAM stays at about the page
 * cache's size whatever the query; both are put back afterwards.
 */
#include "report-private.h"
#include "trace-private.h"

#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest string or blob a caller's statement may make or read. */
#define QUERY_MAX_LENGTH (16 << 20)

/* --- The caller's authorizer -------------------------------------------------------- */

/* Functions a caller's statement may call: pure built-ins bounded by the
 * length limit, the window functions, and the per-tile functions (the
 * list documented in db-schema/profile.sql). */
static const char *const query_functions[] = {
	"abs", "avg", "char", "coalesce", "count", "group_concat", "hex", "ifnull", "iif",
	"instr", "length", "like", "glob", "lower", "upper", "ltrim", "rtrim", "trim", "max",
	"min", "nullif", "printf", "format", "quote", "replace", "round", "substr", "substring",
	"sum", "total", "typeof", "unicode", "row_number", "rank", "dense_rank", "percent_rank",
	"cume_dist", "ntile", "lag", "lead", "first_value", "last_value", "nth_value",
	"tile_value", "tile_sum", "tile_max",
};

/* PRAGMAs that only answer: without a value, or with a table or index
 * name for the first four. */
static const char *const query_pragmas[] = {
	"table_info", "table_xinfo", "index_list", "index_info", "application_id", "user_version",
};
#define N_TABLE_PRAGMAS 4

/* What the authorizer refused first (for the message), preferring the
 * statement's own verb to the write of the schema table that SQLite
 * asks about first for DROP and CREATE. */
typedef struct query_auth {
	char refused[160];
	bool schema_table;         /* refused names only sqlite_master so far */
} query_auth;

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (sqlite3_stricmp(s, list[i]) == 0)
			return true;
	return false;
}

/* Words for the authorizer's action codes, for "refused ...". */
static const char *action_name(int action)
{
	switch (action) {
	case SQLITE_CREATE_INDEX: case SQLITE_CREATE_TEMP_INDEX: return "CREATE INDEX";
	case SQLITE_CREATE_TABLE: case SQLITE_CREATE_TEMP_TABLE: return "CREATE TABLE";
	case SQLITE_CREATE_TRIGGER: case SQLITE_CREATE_TEMP_TRIGGER: return "CREATE TRIGGER";
	case SQLITE_CREATE_VIEW: case SQLITE_CREATE_TEMP_VIEW: return "CREATE VIEW";
	case SQLITE_CREATE_VTABLE: return "CREATE VIRTUAL TABLE";
	case SQLITE_DROP_INDEX: case SQLITE_DROP_TEMP_INDEX: return "DROP INDEX";
	case SQLITE_DROP_TABLE: case SQLITE_DROP_TEMP_TABLE: return "DROP TABLE";
	case SQLITE_DROP_TRIGGER: case SQLITE_DROP_TEMP_TRIGGER: return "DROP TRIGGER";
	case SQLITE_DROP_VIEW: case SQLITE_DROP_TEMP_VIEW: return "DROP VIEW";
	case SQLITE_DROP_VTABLE: return "DROP VIRTUAL TABLE";
	case SQLITE_INSERT: return "INSERT into";
	case SQLITE_UPDATE: return "UPDATE of";
	case SQLITE_DELETE: return "DELETE from";
	case SQLITE_ATTACH: return "ATTACH of";
	case SQLITE_DETACH: return "DETACH of";
	case SQLITE_ALTER_TABLE: return "ALTER TABLE of";
	case SQLITE_REINDEX: return "REINDEX";
	case SQLITE_ANALYZE: return "ANALYZE";
	case SQLITE_TRANSACTION: return "transaction control:";
	case SQLITE_SAVEPOINT: return "SAVEPOINT";
	}
	return "an operation of";
}

/*
 * The authorizer of a caller's statement (see the top of this file).
 * Unlike the handle's, it does not refuse everything with an `inner`
 * name: SQLite gives a common table expression's name there too, and the
 * file's views and triggers cannot run on these connections anyway
 * (SQLITE_DBCONFIG_ENABLE_VIEW / _TRIGGER off). The same lists apply
 * inside a CTE as outside.
 */
static int query_authorize_cb(void *data, int action, const char *a, const char *b,
                              const char *dbname, const char *inner)
{
	query_auth *qa = data;
	bool ok = false;
	char what[sizeof(qa->refused)];

	(void)dbname;
	(void)inner;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
		ok = true;
		break;
	case SQLITE_FUNCTION:
		ok = in_list(b, query_functions, sizeof(query_functions) / sizeof(query_functions[0]));
		snprintf(what, sizeof(what), "the function %s()", b ? b : "?");
		break;
	case SQLITE_PRAGMA:
		ok = in_list(a, query_pragmas, sizeof(query_pragmas) / sizeof(query_pragmas[0])) &&
		     (!b || in_list(a, query_pragmas, N_TABLE_PRAGMAS));
		snprintf(what, sizeof(what), "PRAGMA %s%s%s", a ? a : "?", b ? " = " : "", b ? b : "");
		break;
	case SQLITE_INSERT:
	case SQLITE_UPDATE:
	case SQLITE_DELETE:
		/* SQLite asks about a write of the schema table before the verb
		 * of DROP or CREATE (and while connecting tile_runs): let it go on
		 * to the verb, which is refused; a statement that really writes
		 * is refused by sqlite3_stmt_readonly anyway. */
		ok = a && (!sqlite3_stricmp(a, "sqlite_master") ||
		           !sqlite3_stricmp(a, "sqlite_temp_master"));
		if (ok && !qa->refused[0]) {
			snprintf(qa->refused, sizeof(qa->refused), "%s %s", action_name(action), a);
			qa->schema_table = true;
		}
		snprintf(what, sizeof(what), "%s %s", action_name(action), a ? a : "?");
		break;
	default:
		/* a names the table, index, view, trigger, file or transaction verb. */
		snprintf(what, sizeof(what), "%s%s%s", action_name(action), a ? " " : "", a ? a : "");
		break;
	}
	if (ok)
		return SQLITE_OK;
	if (!qa->refused[0] || qa->schema_table) {
		memcpy(qa->refused, what, sizeof(what));
		qa->schema_table = false;
	}
	return SQLITE_DENY;
}

/* --- Running one statement ------------------------------------------------------------ */

/* A connection and how to put its own authorizer back. */
typedef struct query_conn {
	sqlite3 *db;
	int (*auth_cb)(void *, int, const char *, const char *, const char *, const char *);
	void *auth_data;
} query_conn;

/* `sql` from its first non-blank character, at most 40 bytes of its
 * first line, for messages. */
static void quote_start(char *out, size_t size, const char *sql)
{
	size_t n;

	sql += strspn(sql, " \t\r\n;");
	n = strcspn(sql, "\r\n");
	if (n > 40)
		n = 40;
	snprintf(out, size, "%.*s%s", (int)n, sql, sql[n] ? "..." : "");
}

/* The tsr_error of a failed step of a caller's statement. An SQL error
 * at run time (a function given a bad argument) is the caller's. */
static int map_step_error(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOMEM: return TSR_ERR_NO_MEMORY;
	case SQLITE_IOERR: case SQLITE_CANTOPEN: case SQLITE_BUSY: case SQLITE_LOCKED:
		return TSR_ERR_IO;
	case SQLITE_INTERRUPT: case SQLITE_TOOBIG: return TSR_ERR_TOO_LARGE;
	case SQLITE_ERROR: case SQLITE_RANGE: case SQLITE_MISMATCH: case SQLITE_AUTH:
		return TSR_ERR_INVALID_ARGUMENT;
	default: return TSR_ERR_CORRUPT;
	}
}

/* Runs a setting of this connection (temp_store), past both authorizers. */
static void set_quietly(const query_conn *c, const char *sql)
{
	sqlite3_set_authorizer(c->db, NULL, NULL);
	sqlite3_exec(c->db, sql, NULL, NULL, NULL);
	sqlite3_set_authorizer(c->db, c->auth_cb, c->auth_data);
}

/* Fills values[0..n) from the current row of `st`. */
static void read_row(tsr_value *values, size_t n, sqlite3_stmt *st)
{
	for (size_t i = 0; i < n; i++) {
		tsr_value *v = &values[i];
		int col = (int)i;

		memset(v, 0, sizeof(*v));
		switch (sqlite3_column_type(st, col)) {
		case SQLITE_INTEGER:
			v->type = TSR_VALUE_INTEGER;
			v->integer = sqlite3_column_int64(st, col);
			v->real = (double)v->integer;
			break;
		case SQLITE_FLOAT:
			v->type = TSR_VALUE_REAL;
			v->real = sqlite3_column_double(st, col);
			break;
		case SQLITE_TEXT:
			v->type = TSR_VALUE_TEXT;
			v->data = sqlite3_column_text(st, col);
			v->size = (size_t)sqlite3_column_bytes(st, col);
			if (!v->data)
				v->data = "", v->size = 0;
			break;
		case SQLITE_BLOB:
			v->type = TSR_VALUE_BLOB;
			v->data = sqlite3_column_blob(st, col);
			v->size = (size_t)sqlite3_column_bytes(st, col);
			if (!v->data)
				v->data = "", v->size = 0;
			break;
		default:
			v->type = TSR_VALUE_NULL;
			break;
		}
	}
}

/*
 * Prepares `sql` on c->db under the caller's authorizer, checks that it
 * is one statement that only reads, and steps it, handing the columns
 * and the rows to the callbacks. On failure returns a negative tsr_error
 * with a message in msg[0..size); a callback's non-zero value is
 * returned as it is (msg untouched).
 */
static int run_query(const query_conn *c, const char *sql, tsr_columns_cb columns_cb,
                     tsr_row_cb row_cb, void *user_data, char *msg, size_t size)
{
	query_auth qa = {{0}, false};
	sqlite3_stmt *st = NULL, *next = NULL;
	const char **names = NULL;
	tsr_value *values = NULL;
	const char *tail = NULL;
	size_t n = 0;
	int old_length, rc, src;
	char start[64];

	old_length = sqlite3_limit(c->db, SQLITE_LIMIT_LENGTH, QUERY_MAX_LENGTH);
	set_quietly(c, "PRAGMA temp_store = FILE");
	sqlite3_set_authorizer(c->db, query_authorize_cb, &qa);
	src = sqlite3_prepare_v2(c->db, sql, -1, &st, &tail);
	if (src == SQLITE_OK && tail && *tail) {
		/* Whatever follows may only be blanks, comments and semicolons. */
		const char *rest = NULL;
		int nrc = sqlite3_prepare_v2(c->db, tail, -1, &next, &rest);

		if (nrc != SQLITE_OK || next) {
			quote_start(start, sizeof(start), tail);
			snprintf(msg, size, "one statement at a time: refused a second one ('%s')", start);
			rc = TSR_ERR_INVALID_ARGUMENT;
			goto cleanup;
		}
	}
	if (src != SQLITE_OK) {
		if (qa.refused[0])
			snprintf(msg, size, "only reads are allowed: refused %s", qa.refused);
		else
			snprintf(msg, size, "%s", sqlite3_errmsg(c->db));
		rc = map_step_error(src);
		if ((src & 0xff) == SQLITE_ERROR || (src & 0xff) == SQLITE_AUTH)
			rc = TSR_ERR_INVALID_ARGUMENT;
		goto cleanup;
	}
	if (!st) {
		snprintf(msg, size, "no SQL statement given");
		rc = TSR_ERR_INVALID_ARGUMENT;
		goto cleanup;
	}
	if (!sqlite3_stmt_readonly(st)) {
		quote_start(start, sizeof(start), sql);
		snprintf(msg, size, "only reads are allowed: refused '%s' (it writes)", start);
		rc = TSR_ERR_INVALID_ARGUMENT;
		goto cleanup;
	}

	/* The names are copied: SQLite's own copies do not survive a
	 * re-prepare, which a step may do. */
	n = (size_t)sqlite3_column_count(st);
	names = calloc(n ? n : 1, sizeof(*names));
	values = calloc(n ? n : 1, sizeof(*values));
	rc = names && values ? TSR_OK : TSR_ERR_NO_MEMORY;
	for (size_t i = 0; !rc && i < n; i++) {
		const char *name = sqlite3_column_name(st, (int)i);

		names[i] = strdup(name ? name : "");
		if (!names[i])
			rc = TSR_ERR_NO_MEMORY;
	}
	if (rc) {
		snprintf(msg, size, "out of memory");
		goto cleanup;
	}
	/* The caller's code runs under the handle's own authorizer, the
	 * statement (and any re-prepare of it) under the stricter one. */
	sqlite3_set_authorizer(c->db, c->auth_cb, c->auth_data);
	rc = columns_cb ? columns_cb(user_data, n, names) : 0;
	if (rc)
		goto cleanup;
	for (;;) {
		sqlite3_set_authorizer(c->db, query_authorize_cb, &qa);
		src = sqlite3_step(st);
		sqlite3_set_authorizer(c->db, c->auth_cb, c->auth_data);
		if (src == SQLITE_DONE)
			break;
		if (src != SQLITE_ROW) {
			rc = map_step_error(sqlite3_errcode(c->db));
			if (rc == TSR_ERR_TOO_LARGE && (src & 0xff) == SQLITE_INTERRUPT)
				snprintf(msg, size, "the query took more steps than a file of this size "
				                    "allows (the budget of every statement)");
			else
				snprintf(msg, size, "%s", sqlite3_errmsg(c->db));
			goto cleanup;
		}
		read_row(values, n, st);
		rc = row_cb ? row_cb(user_data, n, names, values) : 0;
		if (rc)
			goto cleanup;
	}
	rc = TSR_OK;
cleanup:
	sqlite3_set_authorizer(c->db, c->auth_cb, c->auth_data);
	for (size_t i = 0; names && i < n; i++)
		free((char *)names[i]);
	free(names);
	free(values);
	sqlite3_finalize(next);
	sqlite3_finalize(st);
	set_quietly(c, "PRAGMA temp_store = MEMORY");
	sqlite3_limit(c->db, SQLITE_LIMIT_LENGTH, old_length);
	return rc;
}

/* Runs `sql` over the report (see report.h). A failure of the query
 * itself is recorded on the handle; a callback's value is not. */
int tsr_report_query(tsr_report *report, const char *sql, tsr_columns_cb columns_cb,
                     tsr_row_cb row_cb, void *user_data)
{
	query_conn c;
	char msg[400] = "";
	int rc;

	if (!report)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "tsr_report_query: no report");
	if (!sql)
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "tsr_report_query: no SQL");
	c.db = report->db;
	c.auth_cb = tsr_authorize_cb;
	c.auth_data = report;
	rc = run_query(&c, sql, columns_cb, row_cb, user_data, msg, sizeof(msg));
	if (rc < 0 && msg[0])
		return tsr_fail(report, rc, "'%s': %s", report->path, msg);
	return rc;
}

/* Runs `sql` over one file of the trace (see trace.h). */
int tsr_trace_query(tsr_trace *trace, size_t file, const char *sql, tsr_columns_cb columns_cb,
                    tsr_row_cb row_cb, void *user_data)
{
	query_conn c;
	char msg[400] = "";
	int rc;

	if (!trace)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "tsr_trace_query: no trace");
	if (!sql)
		return trace_fail(trace, TSR_ERR_INVALID_ARGUMENT, "tsr_trace_query: no SQL");
	if (file >= trace->n_processes)
		return trace_fail(trace, TSR_ERR_OUT_OF_RANGE, "tsr_trace_query: file %zu of %zu",
		                  file, trace->n_processes);
	c.db = trace->files[file].db;
	c.auth_cb = tsr_authorize_cb;
	c.auth_data = NULL;
	rc = run_query(&c, sql, columns_cb, row_cb, user_data, msg, sizeof(msg));
	if (rc < 0 && msg[0])
		return trace_fail(trace, rc, "%s: %s", trace->processes[file].path, msg);
	return rc;
}

/* --- tile_runs(blob): a tile-runs blob as a table ------------------------------------ */

/*
 * An eponymous-only virtual table used as a table-valued function:
 * `SELECT tile, value FROM tile_runs(cs.cycles_by_tile)` gives one row
 * per tile of the report's num_tiles, zeros included, in tile order. The
 * blob is decoded with the format library's checked decoder into an array
 * charged to the handle's memory cap, one per open cursor. It cannot be
 * used from the file's schema (SQLITE_VTAB_DIRECTONLY; views and
 * triggers never run anyway).
 */
typedef struct runs_vtab {
	sqlite3_vtab base;
	tsr_report *r;
} runs_vtab;

typedef struct runs_cursor {
	sqlite3_vtab_cursor base;
	uint64_t *values;          /* the decoded array (tsr_alloc'd), n entries */
	size_t n;
	size_t tile;               /* the current row */
} runs_cursor;

enum { RUNS_TILE, RUNS_VALUE, RUNS_BLOB };

/* Declares the columns; the blob is the hidden argument. */
static int runs_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err)
{
	runs_vtab *v;
	int rc;

	(void)argc;
	(void)argv;
	(void)err;
	rc = sqlite3_declare_vtab(db, "CREATE TABLE x(tile INTEGER, value INTEGER, runs HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
	v = sqlite3_malloc(sizeof(*v));
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->r = aux;
	*out = &v->base;
	return SQLITE_OK;
}

static int runs_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* The blob must be given (tile_runs(x), an equality on the hidden
 * column); rows come in tile order, so ORDER BY tile costs nothing. */
static int runs_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	const runs_vtab *v = (const runs_vtab *)vt;
	int found = -1;

	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *k = &info->aConstraint[i];

		if (k->iColumn != RUNS_BLOB)
			continue;
		if (!k->usable || k->op != SQLITE_INDEX_CONSTRAINT_EQ)
			return SQLITE_CONSTRAINT;
		found = i;
	}
	if (found < 0) {
		sqlite3_free(vt->zErrMsg);
		vt->zErrMsg = sqlite3_mprintf("tile_runs needs a blob: tile_runs(cycles_by_tile)");
		return SQLITE_ERROR;
	}
	info->aConstraintUsage[found].argvIndex = 1;
	info->aConstraintUsage[found].omit = 1;
	info->estimatedRows = v->r->target.num_tiles;
	info->estimatedCost = (double)v->r->target.num_tiles;
	if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == RUNS_TILE && !info->aOrderBy[0].desc)
		info->orderByConsumed = 1;
	return SQLITE_OK;
}

static int runs_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	runs_cursor *c = sqlite3_malloc(sizeof(*c));

	(void)vt;
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

/* Frees the cursor's array, returning it to the cap. */
static void runs_release(runs_cursor *c)
{
	const runs_vtab *v = (const runs_vtab *)c->base.pVtab;

	tsr_free(v->r, c->values, (c->n ? c->n : 1) * sizeof(*c->values));
	c->values = NULL;
	c->n = 0;
}

static int runs_close(sqlite3_vtab_cursor *cur)
{
	runs_release((runs_cursor *)cur);
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* Decodes the blob argument (NULL: all zeros). */
static int runs_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
                       sqlite3_value **argv)
{
	runs_cursor *c = (runs_cursor *)cur;
	runs_vtab *v = (runs_vtab *)cur->pVtab;
	size_t n = v->r->target.num_tiles;
	int type = argc > 0 ? sqlite3_value_type(argv[0]) : SQLITE_NULL;

	(void)idx;
	(void)idx_str;
	runs_release(c);
	c->tile = 0;
	if (type != SQLITE_NULL && type != SQLITE_BLOB) {
		sqlite3_free(v->base.zErrMsg);
		v->base.zErrMsg = sqlite3_mprintf("tile_runs: not a tile-runs blob");
		return SQLITE_ERROR;
	}
	c->values = tsr_alloc(v->r, n ? n : 1, sizeof(*c->values));
	if (!c->values)
		return SQLITE_NOMEM;
	c->n = n;
	if (type == SQLITE_BLOB &&
	    tsf_tile_runs_decode(c->values, n, sqlite3_value_blob(argv[0]),
	                         (size_t)sqlite3_value_bytes(argv[0])) != 0) {
		sqlite3_free(v->base.zErrMsg);
		v->base.zErrMsg = sqlite3_mprintf("tile_runs: malformed tile-runs blob");
		return SQLITE_ERROR;
	}
	return SQLITE_OK;
}

static int runs_next(sqlite3_vtab_cursor *cur)
{
	((runs_cursor *)cur)->tile++;
	return SQLITE_OK;
}

static int runs_eof(sqlite3_vtab_cursor *cur)
{
	const runs_cursor *c = (const runs_cursor *)cur;

	return c->tile >= c->n;
}

/* tile, value (an error above 2^63, as tile_value), the blob (NULL). */
static int runs_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const runs_cursor *c = (const runs_cursor *)cur;

	if (col == RUNS_TILE) {
		sqlite3_result_int64(ctx, (int64_t)c->tile);
	} else if (col == RUNS_VALUE) {
		if (c->values[c->tile] > (uint64_t)INT64_MAX)
			sqlite3_result_error(ctx, "tile value above 2^63", -1);
		else
			sqlite3_result_int64(ctx, (int64_t)c->values[c->tile]);
	} else {
		sqlite3_result_null(ctx);
	}
	return SQLITE_OK;
}

static int runs_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((const runs_cursor *)cur)->tile;
	return SQLITE_OK;
}

static const sqlite3_module runs_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only: never in a schema */
	.xConnect = runs_connect,
	.xBestIndex = runs_best_index,
	.xDisconnect = runs_disconnect,
	.xDestroy = NULL,
	.xOpen = runs_open,
	.xClose = runs_close,
	.xFilter = runs_filter,
	.xNext = runs_next,
	.xEof = runs_eof,
	.xColumn = runs_column,
	.xRowid = runs_rowid,
};

/*
 * Registers tile_runs on the handle's connection (report-private.h), and
 * connects it at once, before any authorizer is set: SQLite asks the
 * authorizer about its schema table while it connects an eponymous
 * table, which both authorizers would refuse. Once connected it stays so
 * for the connection's life.
 */
int tsr_sql_register_tile_runs(tsr_report *r)
{
	int rc = sqlite3_create_module_v2(r->db, "tile_runs", &runs_module, r, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_exec(r->db, "SELECT tile FROM tile_runs(NULL) WHERE 0", NULL, NULL, NULL);
	return rc;
}
