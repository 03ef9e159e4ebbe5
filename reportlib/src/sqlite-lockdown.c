/*
 * The defensive settings every connection reportlib opens gets, for
 * profile.pop (report-open.c) and .pvti (trace.c) alike: a file from
 * someone else must not run code, reach past its own pages or make one
 * statement huge. What differs between the two stays with the callers:
 * how the file is opened (a report is immutable, a trace may have a WAL
 * to read) and the progress budget. Also here, for both: the schema
 * check every file passes before its first read (tsr_sqlite_check_schema:
 * nothing in it that runs code or that its writer never makes), the
 * guard the progress handlers share (a budget of steps, and for a
 * caller's statement a deadline and a memory cap), and the authorizer of
 * a handle's own queries (tsr_authorize_cb): reads and the functions
 * reportlib's queries use, nothing else.
 *
 * Threads. reportlib never calls sqlite3_config (which must not race with
 * anything) and changes no other SQLite global; SQLite's one global step,
 * sqlite3_initialize, is made once here before the first connection, under
 * pthread_once, and the library must be built thread-safe (every
 * distribution's is) since different threads open and use their own
 * connections at the same time.
 */
#include "report-private.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_rc = SQLITE_ERROR; /* written once, under init_once */
static const char *init_error = "not initialised";

/* The body of tsr_sqlite_init, run once. */
static void sqlite_init_once(void)
{
	if (!sqlite3_threadsafe()) {
		init_rc = SQLITE_MISUSE;
		init_error = "the SQLite library was built without thread support "
		             "(SQLITE_THREADSAFE=0)";
		return;
	}
	init_rc = sqlite3_initialize();
	init_error = init_rc == SQLITE_OK ? "" : sqlite3_errstr(init_rc);
}

/*
 * Initialises SQLite once for the process, whichever thread opens first;
 * the result of that one attempt is kept. Returns SQLITE_OK, or an SQLite
 * code with tsr_sqlite_init_error() saying why.
 */
int tsr_sqlite_init(void)
{
	pthread_once(&init_once, sqlite_init_once);
	return init_rc;
}

/* Why tsr_sqlite_init failed ("" when it did not). */
const char *tsr_sqlite_init_error(void)
{
	pthread_once(&init_once, sqlite_init_once);
	return init_error;
}

/*
 * Applies SQLite's defensive configuration (no triggers, views, load
 * extension, foreign keys, writable schema or double-quoted strings;
 * untrusted schema), the size limits (strings and blobs up to
 * `max_length` bytes; no attached databases) and the connection pragmas
 * (cell size checks, no memory mapping, an 8 MiB page cache, temporary
 * data in memory, query only), and registers the bounded versions of
 * the built-in functions whose cost is not linear (sql-functions.c).
 * Returns SQLITE_OK or the failing SQLite code.
 */
int tsr_sqlite_lockdown(sqlite3 *db, int max_length)
{
	static const struct {
		int op, value;
	} configs[] = {
		{SQLITE_DBCONFIG_DEFENSIVE, 1},
		{SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
		{SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
		{SQLITE_DBCONFIG_ENABLE_VIEW, 0},
		{SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0},
		{SQLITE_DBCONFIG_ENABLE_FKEY, 0},
		{SQLITE_DBCONFIG_WRITABLE_SCHEMA, 0},
		{SQLITE_DBCONFIG_DQS_DDL, 0},
		{SQLITE_DBCONFIG_DQS_DML, 0},
	};
	const struct {
		int id, value;
	} limits[] = {
		{SQLITE_LIMIT_LENGTH, max_length},    /* the largest string or blob */
		{SQLITE_LIMIT_SQL_LENGTH, 1 << 20},   /* also bounds the file's schema entries */
		{SQLITE_LIMIT_COLUMN, 200},
		{SQLITE_LIMIT_EXPR_DEPTH, 200},
		{SQLITE_LIMIT_COMPOUND_SELECT, 20},
		{SQLITE_LIMIT_VDBE_OP, 100000},
		{SQLITE_LIMIT_FUNCTION_ARG, 16},
		{SQLITE_LIMIT_ATTACHED, 0},
		{SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000},
		{SQLITE_LIMIT_VARIABLE_NUMBER, 100},
		{SQLITE_LIMIT_TRIGGER_DEPTH, 1},
		{SQLITE_LIMIT_WORKER_THREADS, 0},
	};
	int rc;

	sqlite3_extended_result_codes(db, 1);
	for (size_t i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		rc = sqlite3_db_config(db, configs[i].op, configs[i].value, (int *)NULL);
		if (rc != SQLITE_OK)
			return rc;
	}
	for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++)
		sqlite3_limit(db, limits[i].id, limits[i].value);
	rc = tsr_sql_register_bounded_functions(db);
	if (rc != SQLITE_OK)
		return rc;
	/* Settings of this connection only; none reads the file. */
	return sqlite3_exec(db,
	                    "PRAGMA cell_size_check = ON; PRAGMA mmap_size = 0; "
	                    "PRAGMA cache_size = -8192; PRAGMA temp_store = MEMORY; "
	                    "PRAGMA query_only = ON",
	                    NULL, NULL, NULL);
}

/* --- The schema check ---------------------------------------------------------------- */

/*
 * What a format's schema script defines, to compare a file with: the
 * script run on a private in-memory database (NULL when that fails,
 * which the build's own tests would show), and a statement there giving
 * the SQL of an object by type and name. The caller closes both.
 */
static sqlite3 *format_schema(const char *format_sql, sqlite3_stmt **lookup)
{
	sqlite3 *mem = NULL;

	*lookup = NULL;
	if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	        SQLITE_OK ||
	    sqlite3_exec(mem, format_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(mem, "SELECT sql FROM sqlite_schema WHERE type = ?1 AND name = ?2",
	                       -1, lookup, NULL) != SQLITE_OK) {
		sqlite3_close_v2(mem);
		return NULL;
	}
	return mem;
}

/* 1 when the format defines `type` `name` with the text `sql`, 0 when
 * it defines it otherwise, -1 when not at all. */
static int compare_object(sqlite3_stmt *lookup, const char *type, const char *name,
                          const char *sql)
{
	int same = -1;

	sqlite3_bind_text(lookup, 1, type, -1, SQLITE_STATIC);
	sqlite3_bind_text(lookup, 2, name, -1, SQLITE_STATIC);
	if (sqlite3_step(lookup) == SQLITE_ROW) {
		const char *want = (const char *)sqlite3_column_text(lookup, 0);

		same = want && sql && !strcmp(want, sql);
	}
	sqlite3_reset(lookup);
	sqlite3_clear_bindings(lookup);
	return same;
}

/*
 * The check every file reportlib opens passes before anything but its
 * header is read: nothing in its schema may run code during our reads,
 * and nothing may be there that its writer never makes.
 *
 *  - A virtual table runs its module's code when read.
 *  - A generated column's expression runs whenever the column is read
 *    (one calling instr() on long strings made `tilescope trace` take
 *    minutes over a 172 KB file), without the authorizer seeing it; a
 *    hidden column only exists in a virtual table or a generated one.
 *  - Triggers and views are disabled on our connections, so they cannot
 *    run there; but a file carrying ones its format does not define was
 *    not written by Tilescope, and a view may shadow a table's name.
 *    Each view and trigger must be one `format_sql` (the format's schema
 *    script, as the writers run it) defines, with the same text; a view
 *    the format changes needs a new schema version.
 *  - No object may take a name reportlib gives a table or function of
 *    its own on the connection (span, tile_runs): the file's would be
 *    found first and answer in its place.
 *
 * Indexes stay: an index expression runs only when rows are written.
 * Call before the authorizer is set (pragma_table_xinfo) and before any
 * table is read. Returns SQLITE_OK with why[0] == 0 when the file may be
 * read, SQLITE_OK with `why` saying what was found ("defines a generated
 * column (string.value), which Tilescope never writes") when it must be
 * refused, or an SQLite code when the schema cannot be read
 * (sqlite3_errmsg says why).
 */
/* What reportlib itself puts on its connections under a name a file's own
 * table would take first (an unqualified name finds the file's table
 * before an eponymous virtual table or a table-valued function): the
 * kind of thing `name` is there, or NULL for another name. */
static const char *reader_name(const char *name)
{
	static const struct {
		const char *name, *kind;
	} provided[] = {
		{"span", "table of the decoded spans"},
		{"tile_runs", "function tile_runs"},
	};

	for (size_t i = 0; i < sizeof(provided) / sizeof(provided[0]); i++)
		if (!sqlite3_stricmp(name, provided[i].name))
			return provided[i].kind;
	return NULL;
}

int tsr_sqlite_check_schema(sqlite3 *db, const char *format_sql, char *why, size_t size)
{
	sqlite3_stmt *st = NULL, *cols = NULL, *lookup;
	sqlite3 *mem = format_schema(format_sql, &lookup);
	int rc;

	why[0] = 0;
	if (!mem)
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v2(db, "SELECT type, name, sql FROM sqlite_schema ORDER BY rowid", -1,
	                        &st, NULL);
	/* Virtual tables, views and triggers first: pragma_table_xinfo below
	 * would connect a virtual table, running its module. */
	while (rc == SQLITE_OK && !why[0] && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *sql = (const char *)sqlite3_column_text(st, 2);

		rc = SQLITE_OK;
		if (!type || !name)
			continue;
		if (reader_name(name))
			snprintf(why, size, "defines a %s named %.100s, which would hide the %s Tilescope's "
			                    "readers provide under that name", type, name, reader_name(name));
		else if (!strcmp(type, "table") && sql && !sqlite3_strnicmp(sql, "CREATE VIRTUAL", 14))
			snprintf(why, size, "defines a virtual table (%.100s), which Tilescope never "
			                    "writes", name);
		else if (!strcmp(type, "view") || !strcmp(type, "trigger")) {
			int same = compare_object(lookup, type, name, sql);

			if (same == 0)
				snprintf(why, size, "changes the %s %.100s that Tilescope writes", type,
				         name);
			else if (same != 1)
				snprintf(why, size, "defines a %s (%.100s), which Tilescope never writes",
				         type, name);
		}
	}
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	if (rc == SQLITE_OK && !why[0])
		rc = sqlite3_reset(st);
	if (rc == SQLITE_OK && !why[0])
		rc = sqlite3_prepare_v2(db,
		                        "SELECT name, hidden FROM pragma_table_xinfo(?1) "
		                        "WHERE hidden <> 0 LIMIT 1",
		                        -1, &cols, NULL);
	while (rc == SQLITE_OK && !why[0] && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);

		rc = SQLITE_OK;
		if (!type || !name || strcmp(type, "table"))
			continue;
		sqlite3_bind_text(cols, 1, name, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(cols);
		if (rc == SQLITE_ROW)
			/* 2 and 3: generated (virtual, stored); 1: hidden, which
			 * only some builds of SQLite allow outside virtual tables. */
			snprintf(why, size, "defines a %s column (%.100s.%.100s), which Tilescope never "
			                    "writes",
			         sqlite3_column_int(cols, 1) >= 2 ? "generated" : "hidden", name,
			         (const char *)sqlite3_column_text(cols, 0));
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? sqlite3_reset(cols) : rc;
	}
	if (rc == SQLITE_DONE)
		rc = SQLITE_OK;
	sqlite3_finalize(cols);
	sqlite3_finalize(st);
	sqlite3_finalize(lookup);
	sqlite3_close_v2(mem);
	return rc;
}

/* --- The format's views, from the format ------------------------------------------- */

/*
 * Gives `db` the views its format ships (profile.sql's v_step, v_program,
 * v_variable, v_compute_set; pvti.sql's tracepoint_stats) as TEMP views
 * made from `format_sql`, the schema compiled into reportlib, so that a
 * caller's SQL can name them (issue 26). The file's own copies never run:
 * views of the main schema stay disabled (SQLITE_DBCONFIG_ENABLE_VIEW),
 * which since SQLite 3.35 leaves TEMP ones alone, and an unqualified name
 * finds TEMP before the file's schema, so a table of the file named like
 * a view is shadowed too (a changed view is refused earlier, by
 * tsr_sqlite_check_schema). A TEMP view is trusted as the code that made
 * it is, not as the file's schema is; what it reads is the file's tables,
 * under the caller's authorizer like any other read.
 *
 * Making them writes only the connection's in-memory TEMP schema; query_only
 * is lifted for that and put back whatever happens. Done once per
 * connection: a connection that has TEMP views already is left. Call with
 * no authorizer set (both of ours refuse CREATE and the pragma). Returns
 * SQLITE_OK or an SQLite code (sqlite3_errmsg may say why).
 */
int tsr_sqlite_add_format_views(sqlite3 *db, const char *format_sql)
{
	sqlite3_stmt *have = NULL, *views = NULL, *lookup;
	sqlite3 *mem = NULL;
	int rc, qrc;

	rc = sqlite3_prepare_v2(db, "SELECT 1 FROM temp.sqlite_schema WHERE type = 'view' LIMIT 1",
	                        -1, &have, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(have);
	sqlite3_finalize(have);
	if (rc == SQLITE_ROW)
		return SQLITE_OK;
	if (rc != SQLITE_DONE)
		return rc;
	mem = format_schema(format_sql, &lookup);
	if (!mem)
		return SQLITE_NOMEM;
	sqlite3_finalize(lookup);
	rc = sqlite3_prepare_v2(mem, "SELECT sql FROM sqlite_schema WHERE type = 'view' ORDER BY rowid",
	                        -1, &views, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "PRAGMA query_only = OFF; BEGIN", NULL, NULL, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(views)) == SQLITE_ROW) {
		const char *sql = (const char *)sqlite3_column_text(views, 0);
		char *temp;

		/* SQLite keeps a CREATE statement's text from its first keyword
		 * on, as the schema script has it: "CREATE VIEW name AS ...". */
		if (!sql || sqlite3_strnicmp(sql, "CREATE VIEW ", 12)) {
			rc = SQLITE_INTERNAL;
			break;
		}
		temp = sqlite3_mprintf("CREATE TEMP VIEW %s", sql + 12);
		rc = temp ? sqlite3_exec(db, temp, NULL, NULL, NULL) : SQLITE_NOMEM;
		sqlite3_free(temp);
	}
	if (rc == SQLITE_DONE)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK && !sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	qrc = sqlite3_exec(db, "PRAGMA query_only = ON", NULL, NULL, NULL);
	sqlite3_finalize(views);
	sqlite3_close_v2(mem);
	return rc != SQLITE_OK ? rc : qrc;
}

/* --- The defensive connection ------------------------------------------------------ */

/* Built-in functions our queries may call: pure, bounded by the length
 * limits. Anything else (load_extension, fts3_tokenizer, functions an
 * extension might register ...) is refused by the authorizer. */
static const char *const allowed_functions[] = {
	"abs", "avg", "coalesce", "count", "hex", "ifnull", "iif", "instr", "length",
	"like", "glob", "lower", "upper", "ltrim", "rtrim", "trim", "max", "min", "nullif",
	"printf", "format", "quote", "replace", "round", "substr", "substring", "sum",
	"total", "typeof", "unicode", "char", "group_concat", "tile_value", "tile_sum",
	"tile_max",
};

/* PRAGMAs a reader may still run after opening (all read-only queries). */
static const char *const allowed_pragmas[] = {
	"application_id", "user_version", "table_info", "table_xinfo", "index_list",
	"index_info", "page_count", "page_size", "quick_check", "integrity_check",
};

/* Of those, the ones whose argument is a table or index name. */
static const char *const table_pragmas[] = {"table_info", "table_xinfo", "index_list",
                                            "index_info"};

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		if (sqlite3_stricmp(s, list[i]) == 0)
			return true;
	return false;
}

/*
 * The authorizer: reads and our own functions, nothing else, and nothing
 * at all whose innermost cause is a trigger or view of the file (its
 * name is `inner`). Writes are impossible on a read-only connection but
 * are denied here as well, as are ATTACH and schema changes.
 */
int tsr_authorize_cb(void *data, int action, const char *a, const char *b, const char *dbname,
                     const char *inner)
{
	(void)data;
	(void)dbname;
	if (inner)
		return SQLITE_DENY;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_RECURSIVE:
	case SQLITE_TRANSACTION:
	case SQLITE_SAVEPOINT:
		return SQLITE_OK;
	case SQLITE_FUNCTION:
		return in_list(b, allowed_functions,
		               sizeof(allowed_functions) / sizeof(allowed_functions[0]))
		           ? SQLITE_OK
		           : SQLITE_DENY;
	case SQLITE_PRAGMA:
		/* Only queries. An argument may set something, except for the
		 * ones whose argument names a table or index. */
		if (!in_list(a, allowed_pragmas, sizeof(allowed_pragmas) / sizeof(allowed_pragmas[0])))
			return SQLITE_DENY;
		return !b || in_list(a, table_pragmas, sizeof(table_pragmas) / sizeof(table_pragmas[0]))
		           ? SQLITE_OK
		           : SQLITE_DENY;
	default:
		return SQLITE_DENY;
	}
}

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The per-statement bounds, for the progress handlers of report and
 * trace connections.
 *
 * Steps. SQLite adds a statement's virtual-machine steps to
 * SQLITE_STMTSTATUS_VM_STEP only when sqlite3_step() returns, so a
 * statement that runs long before its first row (a runaway recursive
 * query, a huge aggregate) would never show them. The handler's own calls
 * are counted instead while those counters stand still: each stands for
 * `period` steps, and a change of the counters (a row returned, another
 * statement begun or reset) starts the count again.
 *
 * Time and memory, for a caller's statement (sql-query.c sets them). The
 * clock is read at each call (every `period` steps, about a millisecond
 * apart; a read costs some 30 ns). Memory is SQLite's whole heap
 * (sqlite3_memory_used) above what it was when the statement began: with
 * temporary data in memory, a sort, a GROUP BY, DISTINCT or a recursive
 * set all grow it, and SQLite keeps no count per connection of the
 * ephemeral tables holding them. Another thread's SQLite work at the same
 * moment counts too, which can only stop a statement early.
 */
bool tsr_vm_guard_exceeded(tsr_vm_guard *g, sqlite3 *db, int period)
{
	sqlite3_stmt *st = NULL;
	int64_t top = 0, sum = 0;

	if (g->deadline_ns && now_ns() > g->deadline_ns) {
		g->stop = TSR_VM_STOP_TIME;
		return true;
	}
	if (g->memory_limit && sqlite3_memory_used() - g->memory_base > g->memory_limit) {
		g->stop = TSR_VM_STOP_MEMORY;
		return true;
	}
	while ((st = sqlite3_next_stmt(db, st)) != NULL) {
		if (sqlite3_stmt_busy(st)) {
			int64_t v = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0);

			sum += v;
			if (v > top)
				top = v;
		}
	}
	if (sum != g->flushed) {
		g->flushed = sum;
		g->calls = 0;
	} else {
		g->calls++;
	}
	if (top + g->calls * (int64_t)period > g->budget) {
		g->stop = TSR_VM_STOP_STEPS;
		return true;
	}
	return false;
}
