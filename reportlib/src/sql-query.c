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
 * Views. The format's views (v_step, v_program, v_variable, v_compute_set
 * over a report, tracepoint_stats over a trace) are there to be named:
 * before its first statement a connection gets them as TEMP views made
 * from the format's own schema text compiled into reportlib
 * (tsr_sqlite_add_format_views), not from the file, whose views stay
 * disabled. They read the file's tables under the caller's authorizer, as
 * the same query written out would. A trace's connection also gets
 * `span`, its spans as rows from reportlib's decoder (trace-span-table.c),
 * registered before its first statement and read like the table-valued
 * functions of the caller's list.
 *
 * Bounds, whatever the statement (tsr_query_limits). Time: the progress
 * handler interrupts the statement once SQLite has spent its time limit
 * on it (the clock runs during prepare and steps only, not while a
 * callback writes a row), as well as past the handle's budget of steps.
 * One call of a function is not interrupted, so no call may be long:
 * values are at most 1 MiB (SQLITE_LIMIT_LENGTH, which also keeps a row
 * of 200 columns to 200 MiB) and the built-ins whose cost is not linear
 * are replaced by bounded ones (sql-functions.c). Memory and disk:
 * temporary data (sorts, GROUP BY, DISTINCT, recursive sets) stays in
 * memory (temp_store = MEMORY, set for every connection by
 * tsr_sqlite_lockdown), so nothing is ever written to a temporary file,
 * and the progress handler stops the statement when SQLite's heap has
 * grown past its memory limit. A caller's cancel (the progress callback)
 * reaches the statement through the same handler.
 */
#include <tilescope/alloc.h>
#include "report-private.h"
#include "trace-private.h"

#include "format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The defaults of tsr_query_limits. */
#define QUERY_TIME_MS 30000u
#define QUERY_MEMORY ((uint64_t)512 << 20)

/* --- The caller's authorizer -------------------------------------------------------- */

/* Functions a caller's statement may call: pure built-ins bounded by the
 * length limit (the superlinear ones replaced by sql-functions.c), the
 * window functions, the per-tile functions (the list documented in
 * db-schema/profile.sql), and the JSON functions that read JSON, which
 * .pvti files hold (event_metadata.json, trace_metadata.value,
 * heatmap.edges). The JSON functions that build or edit JSON stay out:
 * there is nothing of the file in what they do, and json_patch's merge
 * is quadratic. */
static const char *const query_functions[] = {
	"abs", "avg", "char", "coalesce", "count", "group_concat", "hex", "ifnull", "iif",
	"instr", "length", "like", "glob", "lower", "upper", "ltrim", "rtrim", "trim", "max",
	"min", "nullif", "printf", "format", "quote", "replace", "round", "substr", "substring",
	"sum", "total", "typeof", "unicode", "row_number", "rank", "dense_rank", "percent_rank",
	"cume_dist", "ntile", "lag", "lead", "first_value", "last_value", "nth_value",
	"tile_value", "tile_sum", "tile_max", "json", "json_valid", "json_type",
	"json_array_length", "json_extract", "->", "->>", "json_quote",
};

/* Table-valued functions (eponymous virtual tables) a caller's statement
 * may read: the same JSON reading as the functions above, the per-tile
 * table, and a trace's spans (trace-span-table.c). Any other (dbstat,
 * sqlite_stmt ...) is refused; a pragma_* table is let through to the
 * PRAGMA it runs, which is checked as a PRAGMA. */
static const char *const query_tables[] = {"tile_runs", "json_each", "json_tree", "span"};

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
	const char *modules;       /* the connection's virtual-table modules,
	                              "\nname\nname\n" (NULL: none known) */
} query_auth;

/* Whether `name` is a line of `modules` ("\nname\n..."). */
static bool is_module(const char *modules, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = modules; p && (p = strstr(p, name)) != NULL; p++)
		if (p > modules && p[-1] == '\n' && p[n] == '\n')
			return true;
	return false;
}

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
	case SQLITE_RECURSIVE:
		ok = true;
		break;
	case SQLITE_READ:
		/* The file's tables (they shadow a module of the same name), or
		 * a table-valued function of the list. */
		ok = !a || !sqlite3_strnicmp(a, "pragma_", 7) || !is_module(qa->modules, a) ||
		     in_list(a, query_tables, sizeof(query_tables) / sizeof(query_tables[0]));
		snprintf(what, sizeof(what), "the table-valued function %s", a ? a : "?");
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

/* A connection, how to put its own authorizer back, and the bounds of
 * the caller's statement. */
typedef struct query_conn {
	sqlite3 *db;
	int (*auth_cb)(void *, int, const char *, const char *, const char *, const char *);
	void *auth_data;
	tsr_vm_guard *guard;       /* the connection's progress-handler bounds */
	tsr_progress_state *ps;    /* the handle's progress (a cancel) */
	const char *format_sql;    /* the format's schema, for its views */
	uint64_t time_ns;          /* SQLite's time the statement may take */
	uint64_t memory;           /* bytes SQLite may add for it */
} query_conn;

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Where the first keyword of `sql` is: past blanks, semicolons and
 * comments. */
static const char *skip_blanks(const char *sql)
{
	for (;;) {
		sql += strspn(sql, " \t\r\n\f\v;");
		if (sql[0] == '-' && sql[1] == '-')
			sql += strcspn(sql, "\n");
		else if (sql[0] == '/' && sql[1] == '*')
			sql = strstr(sql + 2, "*/") ? strstr(sql + 2, "*/") + 2 : sql + strlen(sql);
		else
			return sql;
	}
}

/* The first keyword of `sql` in capitals ("VACUUM"), for messages that
 * name a statement without quoting it. */
static void first_keyword(char *out, size_t size, const char *sql)
{
	size_t n = 0;

	sql = skip_blanks(sql);
	while (n + 1 < size && n < 20 && ((*sql >= 'a' && *sql <= 'z') || (*sql >= 'A' && *sql <= 'Z')))
		out[n++] = (char)(*sql >= 'a' ? *sql++ - 'a' + 'A' : *sql++);
	out[n] = 0;
	if (!n)
		snprintf(out, size, "the statement");
}

/* The line and column (from 1) of `at` in `sql`. */
static void line_column(const char *sql, const char *at, int *line, int *column)
{
	*line = 1;
	*column = 1;
	for (const char *p = sql; p < at && *p; p++) {
		if (*p == '\n') {
			++*line;
			*column = 1;
		} else if (((unsigned char)*p & 0xc0) != 0x80) {
			++*column;
		}
	}
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

/*
 * The connection's virtual-table modules as "\nname\nname\n" (sqlite3_malloc'd,
 * NULL when they cannot be listed): a read of one of them by name is a
 * table-valued function, which the caller's authorizer checks against
 * its list. Read past both authorizers (PRAGMA module_list is no query's).
 */
static char *list_modules(const query_conn *c)
{
	sqlite3_stmt *st = NULL;
	sqlite3_str *out = sqlite3_str_new(NULL);
	char *list;

	sqlite3_set_authorizer(c->db, NULL, NULL);
	sqlite3_str_appendchar(out, 1, '\n');
	if (sqlite3_prepare_v2(c->db, "SELECT name FROM pragma_module_list", -1, &st, NULL) ==
	    SQLITE_OK)
		while (sqlite3_step(st) == SQLITE_ROW)
			sqlite3_str_appendf(out, "%s\n", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_set_authorizer(c->db, c->auth_cb, c->auth_data);
	list = sqlite3_str_finish(out);
	return list;
}

/* Steps the caller's statement under its own authorizer and within its
 * bounds: the guard's deadline is what is left of its time, and what it
 * used is taken off. */
static int bounded_step(const query_conn *c, sqlite3_stmt *st, query_auth *qa, uint64_t *left_ns)
{
	uint64_t start = now_ns();
	int rc;

	c->guard->deadline_ns = start + (*left_ns ? *left_ns : 1);
	sqlite3_set_authorizer(c->db, query_authorize_cb, qa);
	rc = sqlite3_step(st);
	sqlite3_set_authorizer(c->db, c->auth_cb, c->auth_data);
	c->guard->deadline_ns = 0;
	*left_ns -= now_ns() - start < *left_ns ? now_ns() - start : *left_ns;
	return rc;
}

/* The message of a statement that failed to step with `src`. */
static int step_failure(const query_conn *c, const query_auth *qa, int src, char *msg,
                        size_t size)
{
	int code = sqlite3_errcode(c->db), rc = map_step_error(code);
	const char *err = sqlite3_errmsg(c->db);

	if ((src & 0xff) == SQLITE_INTERRUPT || (code & 0xff) == SQLITE_INTERRUPT) {
		if (c->ps && c->ps->cancelled) {
			snprintf(msg, size, "cancelled while running the query");
			return TSR_ERR_CANCELLED;
		}
		switch (c->guard->stop) {
		case TSR_VM_STOP_TIME:
			snprintf(msg, size, "the query ran for longer than its time limit (%.3g s)",
			         (double)c->time_ns / 1e9);
			break;
		case TSR_VM_STOP_MEMORY:
			snprintf(msg, size, "the query needed more than its memory limit (%llu MiB) for "
			                    "sorting, grouping or a recursive set",
			         (unsigned long long)(c->memory >> 20));
			break;
		default:
			snprintf(msg, size, "the query took more steps than a file of this size "
			                    "allows (the budget of every statement)");
			break;
		}
		return TSR_ERR_TOO_LARGE;
	}
	if ((code & 0xff) == SQLITE_TOOBIG) {
		snprintf(msg, size, "a value of the query is longer than a query may read or make "
		                    "(%d bytes)", TSR_QUERY_MAX_LENGTH);
		return TSR_ERR_TOO_LARGE;
	}
	if ((code & 0xff) == SQLITE_AUTH && qa->refused[0])
		snprintf(msg, size, "only reads are allowed: refused %s", qa->refused);
	else
		snprintf(msg, size, "%s", err);
	return rc;
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

/* The message of a statement that did not prepare. */
static int prepare_failure(const query_conn *c, const query_auth *qa, int src, char *msg,
                           size_t size)
{
	const char *err = sqlite3_errmsg(c->db);
	int rc = map_step_error(src);

	if (qa->refused[0])
		snprintf(msg, size, "only reads are allowed: refused %s", qa->refused);
	else if (!strncmp(err, "access to view \"", 16))
		/* SQLITE_DBCONFIG_ENABLE_VIEW is off for the file's schema
		 * (main.v_step): say why, and what to do. */
		snprintf(msg, size, "the file's own views are not run (%.*s): name the view "
		                    "without a schema to get the format's definition of it",
		         (int)strcspn(err + 16, "\""), err + 16);
	else
		snprintf(msg, size, "%s", err);
	if ((src & 0xff) == SQLITE_ERROR || (src & 0xff) == SQLITE_AUTH)
		rc = TSR_ERR_INVALID_ARGUMENT;
	if ((src & 0xff) == SQLITE_TOOBIG) {
		snprintf(msg, size, "the SQL is longer than a statement may be");
		rc = TSR_ERR_INVALID_ARGUMENT;
	}
	return rc;
}

/*
 * Prepares `sql` on c->db under the caller's authorizer, checks that it
 * is one statement that only reads, and steps it within its bounds,
 * handing the columns and the rows to the callbacks. On failure returns
 * a negative tsr_error with a message in msg[0..size); a callback's
 * non-zero value is returned as it is (msg untouched).
 */
static int run_query(const query_conn *c, const char *sql, tsr_columns_cb columns_cb,
                     tsr_row_cb row_cb, void *user_data, char *msg, size_t size)
{
	query_auth qa = {{0}, false, NULL};
	sqlite3_stmt *st = NULL, *next = NULL;
	const char **names = NULL;
	tsr_value *values = NULL;
	const char *tail = NULL;
	size_t n = 0;
	uint64_t left_ns = c->time_ns, start;
	int old_length, rc, src;

	/* SQLite built to keep temporary data in files whatever the pragma
	 * says would write the caller's sorts to disk. */
	if (sqlite3_compileoption_used("TEMP_STORE=0")) {
		snprintf(msg, size, "this SQLite library keeps temporary data in files "
		                    "(SQLITE_TEMP_STORE=0): queries are refused");
		return TSR_ERR_INVALID_ARGUMENT;
	}
	/* Past both authorizers, which refuse CREATE (see the top). */
	sqlite3_set_authorizer(c->db, NULL, NULL);
	src = tsr_sqlite_add_format_views(c->db, c->format_sql);
	sqlite3_set_authorizer(c->db, c->auth_cb, c->auth_data);
	if (src != SQLITE_OK) {
		snprintf(msg, size, "cannot provide the format's views: %s",
		         sqlite3_errmsg(c->db));
		return (src & 0xff) == SQLITE_NOMEM ? TSR_ERR_NO_MEMORY : TSR_ERR_IO;
	}
	qa.modules = list_modules(c);
	old_length = sqlite3_limit(c->db, SQLITE_LIMIT_LENGTH, TSR_QUERY_MAX_LENGTH);
	c->guard->stop = TSR_VM_RUNNING;
	c->guard->memory_base = sqlite3_memory_used();
	c->guard->memory_limit = (int64_t)(c->memory < INT64_MAX ? c->memory : INT64_MAX);
	start = now_ns();
	c->guard->deadline_ns = start + left_ns;
	sqlite3_set_authorizer(c->db, query_authorize_cb, &qa);
	src = sqlite3_prepare_v2(c->db, sql, -1, &st, &tail);
	if (src == SQLITE_OK && tail && *tail) {
		/* Whatever follows may only be blanks, comments and semicolons. */
		const char *rest = NULL;
		int nrc = sqlite3_prepare_v2(c->db, tail, -1, &next, &rest);

		if (nrc != SQLITE_OK || next) {
			int line, column;

			line_column(sql, skip_blanks(tail), &line, &column);
			snprintf(msg, size, "one statement at a time: a second one begins at line %d, "
			                    "column %d", line, column);
			rc = TSR_ERR_INVALID_ARGUMENT;
			goto cleanup;
		}
	}
	sqlite3_set_authorizer(c->db, c->auth_cb, c->auth_data);
	c->guard->deadline_ns = 0;
	left_ns -= now_ns() - start < left_ns ? now_ns() - start : left_ns;
	if (src != SQLITE_OK) {
		rc = (src & 0xff) == SQLITE_INTERRUPT ? step_failure(c, &qa, src, msg, size)
		                                      : prepare_failure(c, &qa, src, msg, size);
		goto cleanup;
	}
	if (!st) {
		snprintf(msg, size, "no SQL statement given");
		rc = TSR_ERR_INVALID_ARGUMENT;
		goto cleanup;
	}
	if (!sqlite3_stmt_readonly(st)) {
		char verb[32];

		first_keyword(verb, sizeof(verb), sql);
		snprintf(msg, size, "only reads are allowed: refused %s (it writes)", verb);
		rc = TSR_ERR_INVALID_ARGUMENT;
		goto cleanup;
	}

	/* The names are copied: SQLite's own copies do not survive a
	 * re-prepare, which a step may do. */
	n = (size_t)sqlite3_column_count(st);
	names = tsb_calloc(n ? n : 1, sizeof(*names));
	values = tsb_calloc(n ? n : 1, sizeof(*values));
	rc = names && values ? TSR_OK : TSR_ERR_NO_MEMORY;
	for (size_t i = 0; !rc && i < n; i++) {
		const char *name = sqlite3_column_name(st, (int)i);

		names[i] = tsb_strdup(name ? name : "");
		if (!names[i])
			rc = TSR_ERR_NO_MEMORY;
	}
	if (rc) {
		snprintf(msg, size, "out of memory");
		goto cleanup;
	}
	/* The caller's code runs under the handle's own authorizer, the
	 * statement (and any re-prepare of it) under the stricter one, and
	 * only its steps count against its time. */
	rc = columns_cb ? columns_cb(user_data, n, names) : 0;
	if (rc)
		goto cleanup;
	for (;;) {
		src = bounded_step(c, st, &qa, &left_ns);
		if (src == SQLITE_DONE)
			break;
		if (src != SQLITE_ROW) {
			rc = step_failure(c, &qa, src, msg, size);
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
	c->guard->deadline_ns = 0;
	c->guard->memory_limit = 0;
	for (size_t i = 0; names && i < n; i++)
		free((char *)names[i]);
	free(names);
	free(values);
	sqlite3_finalize(next);
	sqlite3_finalize(st);
	sqlite3_limit(c->db, SQLITE_LIMIT_LENGTH, old_length);
	sqlite3_free((char *)qa.modules);
	return rc;
}

/* The bounds of `limits` (NULL or zero fields: the defaults), the
 * memory one also within what the handle's cap leaves. */
static void set_bounds(query_conn *c, const tsr_query_limits *limits, uint64_t cap_left)
{
	uint32_t ms = limits && limits->time_ms ? limits->time_ms : QUERY_TIME_MS;

	c->time_ns = (uint64_t)ms * 1000000u;
	c->memory = limits && limits->memory ? limits->memory : QUERY_MEMORY;
	if (c->memory > cap_left)
		c->memory = cap_left ? cap_left : 1;
}

/* Checks a tsr_query_limits given to a setter. */
static bool limits_ok(const tsr_query_limits *limits)
{
	return !limits || limits->version == TSR_QUERY_LIMITS_VERSION;
}

/* Runs `sql` over the report (see report.h). A failure of the query
 * itself is recorded on the handle; a callback's value is not. */
int tsr_report_query(tsr_report *report, const char *sql, tsr_columns_cb columns_cb,
                     tsr_row_cb row_cb, void *user_data)
{
	tsr_progress_frame frame;
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
	c.guard = report->guard;
	c.ps = report->ps;
	c.format_sql = tsf_profile_schema_sql;
	set_bounds(&c, &report->query_limits,
	           report->memory_cap > report->memory_used
	               ? report->memory_cap - report->memory_used
	               : 0);
	if (c.ps && tsr_progress_push(c.ps, &frame, "running the query")) {
		tsr_progress_pop(c.ps, &frame, false);
		return tsr_fail(report, TSR_ERR_CANCELLED, "'%s': cancelled while running the query",
		                report->path);
	}
	rc = run_query(&c, sql, columns_cb, row_cb, user_data, msg, sizeof(msg));
	if (c.ps)
		tsr_progress_pop(c.ps, &frame, rc == TSR_OK);
	if (rc < 0 && msg[0])
		return tsr_fail(report, rc, "'%s': %s", report->path, msg);
	return rc;
}

/* Sets the bounds of the report's later queries (report.h). */
int tsr_report_set_query_limits(tsr_report *report, const tsr_query_limits *limits)
{
	tsr_query_limits none = TSR_QUERY_LIMITS_INIT;

	if (!report)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT,
		                          "tsr_report_set_query_limits: no report");
	if (!limits_ok(limits))
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                "tsr_report_set_query_limits: unknown version %u", limits->version);
	report->query_limits = limits ? *limits : none;
	return TSR_OK;
}

/* Runs `sql` over one file of the trace (see trace.h). */
int tsr_trace_query(tsr_trace *trace, size_t file, const char *sql, tsr_columns_cb columns_cb,
                    tsr_row_cb row_cb, void *user_data)
{
	tsr_progress_frame frame;
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
	/* Its span table, past the authorizer (trace_span_table_register). */
	sqlite3_set_authorizer(trace->files[file].db, NULL, NULL);
	rc = trace_span_table_register(&trace->files[file]);
	sqlite3_set_authorizer(trace->files[file].db, tsr_authorize_cb, NULL);
	if (rc != SQLITE_OK)
		return trace_fail(trace, (rc & 0xff) == SQLITE_NOMEM ? TSR_ERR_NO_MEMORY : TSR_ERR_IO,
		                  "%s: cannot provide the span table: %s", trace->processes[file].path,
		                  sqlite3_errmsg(trace->files[file].db));
	c.db = trace->files[file].db;
	c.auth_cb = tsr_authorize_cb;
	c.auth_data = NULL;
	c.guard = &trace->files[file].vm_guard;
	c.ps = &trace->progress;
	c.format_sql = tsf_pvti_schema_sql;
	set_bounds(&c, &trace->query_limits,
	           trace->memory_cap > trace->memory_used ? trace->memory_cap - trace->memory_used
	                                                  : 0);
	if (tsr_progress_push(c.ps, &frame, "running the query")) {
		tsr_progress_pop(c.ps, &frame, false);
		return trace_fail(trace, TSR_ERR_CANCELLED, "%s: cancelled while running the query",
		                  trace->processes[file].path);
	}
	rc = run_query(&c, sql, columns_cb, row_cb, user_data, msg, sizeof(msg));
	tsr_progress_pop(c.ps, &frame, rc == TSR_OK);
	if (rc < 0 && msg[0])
		return trace_fail(trace, rc, "%s: %s", trace->processes[file].path, msg);
	return rc;
}

/* Sets the bounds of the trace's later queries (trace.h). */
int tsr_trace_set_query_limits(tsr_trace *trace, const tsr_query_limits *limits)
{
	tsr_query_limits none = TSR_QUERY_LIMITS_INIT;

	if (!trace)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT,
		                          "tsr_trace_set_query_limits: no trace");
	if (!limits_ok(limits))
		return trace_fail(trace, TSR_ERR_INVALID_ARGUMENT,
		                  "tsr_trace_set_query_limits: unknown version %u", limits->version);
	trace->query_limits = limits ? *limits : none;
	return TSR_OK;
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
		vt->zErrMsg = sqlite3_mprintf("tile_runs needs a tile-runs blob as its argument (one of "
		                              "the *_by_tile columns)");
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
