/*
 * The defensive settings every connection reportlib opens gets, for
 * profile.pop (report-open.c) and .pvti (trace.c) alike: a file from
 * someone else must not run code, reach past its own pages or make one
 * statement huge. What differs between the two stays with the callers:
 * how the file is opened (a report is immutable, a trace may have a WAL
 * to read) and the progress budget. The authorizer of a report handle's
 * own queries is here too (tsr_authorize_cb): reads and the functions
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
 * data in memory, query only). Returns SQLITE_OK or the failing SQLite
 * code.
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
	/* Settings of this connection only; none reads the file. */
	return sqlite3_exec(db,
	                    "PRAGMA cell_size_check = ON; PRAGMA mmap_size = 0; "
	                    "PRAGMA cache_size = -8192; PRAGMA temp_store = MEMORY; "
	                    "PRAGMA query_only = ON",
	                    NULL, NULL, NULL);
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

/*
 * The per-statement step budget, for the progress handlers of report and
 * trace connections. SQLite adds a statement's virtual-machine steps to
 * SQLITE_STMTSTATUS_VM_STEP only when sqlite3_step() returns, so a
 * statement that runs long before its first row (a runaway recursive
 * query, a huge aggregate) would never show them. The handler's own calls
 * are counted instead while those counters stand still: each stands for
 * `period` steps, and a change of the counters (a row returned, another
 * statement begun or reset) starts the count again.
 */
bool tsr_vm_guard_exceeded(tsr_vm_guard *g, sqlite3 *db, int period)
{
	sqlite3_stmt *st = NULL;
	int64_t top = 0, sum = 0;

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
	return top + g->calls * (int64_t)period > g->budget;
}
