/*
 * Opening a profile.pop: the file's checks, the defensive connection
 * (with sqlite-lockdown.c's settings and authorizer, and the per-tile SQL
 * functions of tile-functions.c), and the tables read at open (meta,
 * options, strings, target, graph, tile memory, oom tiles, programs and
 * their children, control / function programs, compute sets, vertex
 * types, exchanges, runs); report-tables.c serves them. The helpers every
 * reportlib source shares are in report-util.c.
 *
 * Opening a file someone sent us. Before SQLite sees the file we check
 * that it is a regular file whose first 16 bytes are SQLite's magic, so
 * that "not a database" is told apart from "a damaged database" and a
 * FIFO or device is never opened. The connection is read-only, opened as
 * a URI with immutable=1: SQLite then takes no locks and never looks for
 * (or creates) a -wal, -shm or -journal beside the file, which matters
 * for a file on a shared or read-only directory. The price is that a hot
 * journal would be ignored; profile.pop is written in one transaction
 * under a temporary name and renamed into place, so a complete
 * profile.pop never has one, and a half-written one is not a report.
 * Then: SQLITE_DBCONFIG_DEFENSIVE, trusted_schema off, triggers and views
 * disabled (a view in the file shadowing a table makes our query fail
 * instead of running the file's SQL), tight sqlite3_limit()s, cell size
 * checks, no mmap, a small page cache, a progress handler bounding every
 * statement's virtual-machine steps by the file's size, and an authorizer
 * that allows only reads and the functions our own queries use, and
 * nothing at all on behalf of a trigger or view. A full quick_check is
 * not run at open (it reads every page: too slow on a 100 MB report);
 * damage is found by the queries that read it and reported as
 * TSR_ERR_CORRUPT.
 *
 * Memory. Everything read at open, and the lazily read variables and
 * liveness steps, lives in the handle's pool (tsr_pool_alloc), charged to
 * the memory cap. The outer arrays r->steps, r->n_steps, r->traces and
 * r->n_traces (one entry per run) are made here; the per-run arrays in
 * them, and r->operations_cache, are owned by report-execution.c and
 * report-operations.c, must come from malloc (tsr_alloc does), and are
 * released with free() by tsr_report_free.
 *
 */
#include <tilescope/alloc.h>
#include "report-private.h"

#include "format.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TSR_DEFAULT_CAP ((uint64_t)2 << 30)
/* Upper bounds on what a report may claim, far above any real target. */
#define TSR_MAX_TILES ((int64_t)1 << 24)
#define TSR_MAX_IPUS ((int64_t)1 << 16)
/* The clock frequencies a target may claim, Hz. */
#define TSR_MIN_CLOCK_HZ ((int64_t)1000000)
#define TSR_MAX_CLOCK_HZ ((int64_t)100000000000)
/* Virtual-machine steps a statement may take: a base plus this many per
 * byte of the file (a full scan of a table costs well under one). */
#define TSR_VM_BASE ((int64_t)200 * 1000 * 1000)
#define TSR_VM_PER_BYTE 16
/* SQLite counts a statement's steps in 32 bits. */
#define TSR_VM_MAX ((int64_t)2000 * 1000 * 1000)
/* Calls of the progress handler: every this many virtual-machine steps. */
#define TSR_VM_PERIOD 20000

/* Both are expanded from vocabulary.def; a check that the expansions stay
 * the same lists. */
_Static_assert((int)TSR_PROFILER_MODE_COUNT == TSF_PROFILER_MODE_COUNT &&
                   (int)TSR_PROFILER_UNKNOWN == -1 && (int)TSR_IPU_UNKNOWN == -1 &&
                   (int)TSR_IPU_VERSION_COUNT == TSF_IPU_VERSION_COUNT &&
                   (int)TSR_IPU_BOW == TSF_IPU_BOW,
               "tsr_profiler_mode and tsr_ipu_version follow the vocabulary");

/* The words of the report's meta and target, spelled for the callers'
 * edges; NULL for unknown or a code past the list. */
const char *tsr_profiler_mode_name(tsr_profiler_mode mode)
{
	return tsf_vocab_name(TSF_VOCAB_PROFILER_MODE, (int)mode);
}

const char *tsr_ipu_version_name(tsr_ipu_version version)
{
	return tsf_vocab_name(TSF_VOCAB_IPU_VERSION, (int)version);
}

/* What the progress handler needs (in the handle's pool). */
typedef struct progress_ctx {
	sqlite3 *db;
	tsr_report *r;      /* for the caller's progress callback (r->ps) */
	tsr_vm_guard guard; /* virtual-machine steps per statement */
} progress_ctx;

/* --- Loader helpers ---------------------------------------------------------------------- */

/* Pool space for n elements of `size` (overflow checked). */
static void *pool_array(tsr_report *r, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		tsr_fail(r, TSR_ERR_TOO_LARGE, "'%s': an array of %zu entries is too large", r->path, n);
		return NULL;
	}
	return tsr_pool_alloc(r, n * size);
}

/* Runs a query returning one row of integers into out[0..n), each in
 * [lo, hi]. A missing row is TSR_ERR_CORRUPT. */
static int query_ints(tsr_report *r, int64_t *out, int n, int64_t lo, int64_t hi, const char *sql,
                      const char *what)
{
	sqlite3_stmt *st = NULL;
	int rc = tsr_prepare(r, &st, sql);

	if (rc)
		goto out;
	rc = tsr_step_row(r, st);
	if (rc == SQLITE_DONE)
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s: no row", r->path, what);
	if (rc != SQLITE_ROW)
		goto out;
	rc = TSR_OK;
	for (int i = 0; !rc && i < n; i++)
		rc = tsr_column_int(r, &out[i], st, i, lo, hi, what);
out:
	sqlite3_finalize(st);
	return rc;
}

/*
 * The rows of `table`, whose integer key `key` must run densely from
 * `first` (0 or 1) to first + n - 1: checked with a COUNT, MIN and MAX so
 * a loader can index arrays by id. `max` bounds n. Each is a subquery of
 * its own, so that SQLite counts the table's b-tree entries without
 * reading the rows and looks MIN and MAX of the key up at its ends (one
 * COUNT/MIN/MAX aggregate reads every row: 15 ms for the 209,578 names
 * of a large report).
 */
static int dense_count(tsr_report *r, size_t *n, const char *table, const char *key,
                       int64_t first, int64_t max)
{
	char sql[512]; /* three times `table` (below 80 bytes) and `key` */
	int64_t v[3];
	int rc;

	snprintf(sql, sizeof(sql),
	         "SELECT (SELECT COUNT(*) FROM %s), IFNULL((SELECT MIN(%s) FROM %s), %lld), "
	         "IFNULL((SELECT MAX(%s) FROM %s), %lld)", table, key, table, (long long)first, key,
	         table, (long long)first - 1);
	*n = 0;
	rc = query_ints(r, v, 3, INT64_MIN, INT64_MAX, sql, table);
	if (rc)
		return rc;
	if (v[0] > max)
		return tsr_fail(r, TSR_ERR_TOO_LARGE, "'%s': %s has %lld rows, more than %lld", r->path,
		                table, (long long)v[0], (long long)max);
	if (v[1] != first || v[2] != first + v[0] - 1)
		return tsr_fail(r, TSR_ERR_CORRUPT,
		                "'%s': %s's %s values run from %lld to %lld over %lld rows, not densely "
		                "from %lld", r->path, table, key, (long long)v[1], (long long)v[2],
		                (long long)v[0], (long long)first);
	*n = (size_t)v[0];
	return TSR_OK;
}

/* The next row of a loader that expects exactly `n` rows, with the
 * row reported to the progress callback (tsr_step_counted). */
static int loader_step(tsr_report *r, sqlite3_stmt *st, size_t i, size_t n, const char *table)
{
	if (tsr_progress_row(r->ps, i, n))
		return tsr_fail_cancelled(r);
	return tsr_step_counted(r, st, i, n, table);
}

/* --- The progress handler ------------------------------------------------------------------ */

/*
 * The progress handler: any statement past its budget of virtual-machine
 * steps is interrupted (SQLITE_INTERRUPT, reported as TSR_ERR_CORRUPT).
 * The budget grows with the file, so a full scan of a legitimate report
 * always fits, while no damaged file can keep a query running for long.
 * During a call that reports progress it is also where a long statement
 * hears of the caller's cancel (then reported as TSR_ERR_CANCELLED).
 */
static int progress_cb(void *data)
{
	progress_ctx *pc = data;

	if (pc->r->ps && tsr_progress_poll(pc->r->ps))
		return 1;
	return tsr_vm_guard_exceeded(&pc->guard, pc->db, TSR_VM_PERIOD);
}

/* --- Opening ------------------------------------------------------------------------------ */

/* `path` percent-encoded as an SQLite URI opening it read-only and
 * immutable. The caller frees the result. */
static char *make_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = strlen(path);
	char *uri = tsb_malloc(len * 3 + 48);
	char *o = uri;

	if (!uri)
		return NULL;
	o += sprintf(o, "file:%s", path[0] == '/' ? "//" : "");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		unsigned char c = *p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '/' || c == '.' || c == '-' || c == '_' || c == '~') {
			*o++ = (char)c;
		} else {
			*o++ = '%';
			*o++ = hex[c >> 4];
			*o++ = hex[c & 15];
		}
	}
	strcpy(o, "?mode=ro&immutable=1");
	return uri;
}

/* A malloc'd "dir/name". */
static char *join_path(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = tsb_malloc(a + b + 2);

	if (p)
		snprintf(p, a + b + 2, "%s%s%s", dir, a && dir[a - 1] == '/' ? "" : "/", name);
	return p;
}

/* A big-endian integer of the SQLite header. */
static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * A truncated copy is the commonest damage, and SQLite reads pages only
 * when a query needs them, so compare the file's size with the database
 * size the header records (when the header says that size is valid: the
 * "version-valid-for" number equals the change counter). One comparison,
 * no page read.
 */
static int check_size(tsr_report *r, const unsigned char *head, int64_t size)
{
	uint32_t page = (uint32_t)head[16] << 8 | head[17];
	uint32_t pages = be32(head + 28);

	if (page == 1)
		page = 65536;
	if (page < 512 || (page & (page - 1)))
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': damaged SQLite header (page size %u)",
		                r->path, page);
	if (be32(head + 92) == be32(head + 24) && pages &&
	    (int64_t)pages * page > size)
		return tsr_fail(r, TSR_ERR_CORRUPT,
		                "'%s': truncated: %lld bytes of the %lld the header records", r->path,
		                (long long)size, (long long)pages * page);
	return TSR_OK;
}

/*
 * Resolves `path` (a profile.pop or a directory holding one) into
 * r->path and r->debug_path (a regular debug.cbor beside it, if any,
 * opened at once as r->debug_fd), and checks the file: regular, and
 * starting with SQLite's magic. *size gets its size in bytes, *pop the
 * file's identity (device and inode) for replaced_since.
 */
static int locate(tsr_report *r, const char *path, int64_t *size, struct stat *pop)
{
	static const char magic[16] = "SQLite format 3";
	struct stat sb;
	unsigned char head[100];
	ssize_t got;
	int fd;

	if (stat(path, &sb) != 0)
		return tsr_fail(r, errno == ENOENT || errno == ENOTDIR ? TSR_ERR_NOT_FOUND : TSR_ERR_IO,
		                "'%s': %s", path, strerror(errno));
	if (S_ISDIR(sb.st_mode)) {
		r->path = join_path(path, "profile.pop");
		if (!r->path)
			return tsr_fail(r, TSR_ERR_NO_MEMORY, "out of host memory");
		if (stat(r->path, &sb) != 0)
			return tsr_fail(r, TSR_ERR_NOT_FOUND, "'%s': no profile.pop in this directory",
			                path);
	} else {
		r->path = tsb_strdup(path);
		if (!r->path)
			return tsr_fail(r, TSR_ERR_NO_MEMORY, "out of host memory");
	}
	if (!S_ISREG(sb.st_mode))
		return tsr_fail(r, TSR_ERR_NOT_SQLITE, "'%s': not a regular file", r->path);
	*size = (int64_t)sb.st_size;
	*pop = sb;

	/* debug.cbor beside the file, opened now: read later, it is still the
	 * one that was there with this profile.pop (see tsr_report_open). */
	{
		const char *slash = strrchr(r->path, '/');
		size_t dlen = slash ? (size_t)(slash - r->path) : 0;
		char *dir = slash ? tsb_strndup(r->path, dlen ? dlen : 1) : tsb_strdup(".");
		char *dbg = dir ? join_path(dir, "debug.cbor") : NULL;
		int dfd = dbg ? open(dbg, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) : -1;
		struct stat ds;

		free(dir);
		if (dfd >= 0 && fstat(dfd, &ds) == 0 && S_ISREG(ds.st_mode)) {
			r->debug_path = dbg;
			r->debug_fd = dfd;
		} else {
			if (dfd >= 0)
				close(dfd);
			free(dbg);
		}
	}

	fd = open(r->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return tsr_fail(r, errno == ENOENT ? TSR_ERR_NOT_FOUND : TSR_ERR_IO, "'%s': %s",
		                r->path, strerror(errno));
	do
		got = read(fd, head, sizeof(head));
	while (got < 0 && errno == EINTR);
	close(fd);
	if (got < 0)
		return tsr_fail(r, TSR_ERR_IO, "'%s': %s", r->path, strerror(errno));
	if (got < 16 || memcmp(head, magic, sizeof(magic)) != 0)
		return tsr_fail(r, TSR_ERR_NOT_SQLITE, "'%s': not an SQLite database", r->path);
	if (got < (ssize_t)sizeof(head))
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': truncated SQLite header", r->path);
	return check_size(r, head, *size);
}

/* Runs a statement that returns nothing we need (a PRAGMA setting). */
static int exec_quiet(tsr_report *r, const char *sql)
{
	int rc = sqlite3_exec(r->db, sql, NULL, NULL, NULL);

	/* The message names what failed, not the SQL (users read it). */
	return rc == SQLITE_OK ? TSR_OK : tsr_sql_fail(r, rc, "setting up the read-only connection");
}

static int check_identity(tsr_report *r);
static int check_schema(tsr_report *r);

/*
 * Opens the connection read-only and immutable, and locks it down (see
 * the top of this file). `size` is the file's size for the progress
 * budget.
 */
static int connect_db(tsr_report *r, int64_t size)
{
	const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI |
	                  SQLITE_OPEN_PRIVATECACHE;
	progress_ctx *pc;
	char *uri = make_uri(r->path);
	int rc;

	if (!uri)
		return tsr_fail(r, TSR_ERR_NO_MEMORY, "out of host memory");
	rc = sqlite3_open_v2(uri, &r->db, flags, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return tsr_sql_fail(r, rc, "cannot open");
	rc = tsr_sqlite_lockdown(r->db, 256 << 20);
	if (rc != SQLITE_OK)
		return tsr_sql_fail(r, rc, "cannot configure the connection");

	pc = tsr_pool_alloc(r, sizeof(*pc));
	if (!pc)
		return tsr_last_error_code();
	pc->db = r->db;
	pc->r = r;
	pc->guard.budget = TSR_VM_BASE + (size > 0 ? size : 0) * TSR_VM_PER_BYTE;
	if (pc->guard.budget > TSR_VM_MAX || size > TSR_VM_MAX)
		pc->guard.budget = TSR_VM_MAX;
	sqlite3_progress_handler(r->db, TSR_VM_PERIOD, progress_cb, pc);
	r->guard = &pc->guard;

	/* Before the authorizer, which would refuse the table-valued pragma
	 * check_schema uses; neither reads anything but the header and the
	 * schema. And before the functions, so that a file taking one's name
	 * is refused by the check's message. */
	rc = check_identity(r);
	if (!rc)
		rc = check_schema(r);
	if (rc)
		return rc;
	rc = tsr_register_tile_functions(r);
	if (rc == SQLITE_OK)
		rc = tsr_sql_register_tile_runs(r);
	if (rc != SQLITE_OK)
		return tsr_sql_fail(r, rc, "cannot register functions");
	sqlite3_set_authorizer(r->db, tsr_authorize_cb, r);
	return TSR_OK;
}

/* application_id and user_version: is this a report we can read? */
static int check_identity(tsr_report *r)
{
	int64_t app, version;
	int rc = query_ints(r, &app, 1, INT32_MIN, INT32_MAX, "PRAGMA application_id",
	                    "application_id");

	if (rc)
		return rc == TSR_ERR_CORRUPT && sqlite3_errcode(r->db) == SQLITE_NOTADB
		           ? tsr_fail(r, TSR_ERR_CORRUPT, "'%s': damaged SQLite header", r->path)
		           : rc;
	if ((uint32_t)app == (uint32_t)TSF_PVTI_APPLICATION_ID)
		return tsr_fail(r, TSR_ERR_NOT_REPORT,
		                "'%s': a .pvti system trace, not a profile report (traces are read by "
		                "tsr_trace_open, 'tilescope trace')",
		                r->path);
	if ((uint32_t)app != (uint32_t)TSF_PROFILE_APPLICATION_ID)
		return tsr_fail(r, TSR_ERR_NOT_REPORT,
		                "'%s': an SQLite database, but not a Tilescope profile (application_id "
		                "0x%08x, expected 0x%08x)", r->path, (unsigned)(uint32_t)app,
		                (unsigned)TSF_PROFILE_APPLICATION_ID);
	rc = query_ints(r, &version, 1, INT32_MIN, INT32_MAX, "PRAGMA user_version",
	                "user_version");
	if (rc)
		return rc;
	if (version > TSF_PROFILE_SCHEMA_VERSION)
		return tsr_fail(r, TSR_ERR_SCHEMA_TOO_NEW,
		                "'%s': profile schema version %lld is newer than this Tilescope reads "
		                "(version %d): upgrade Tilescope", r->path, (long long)version,
		                TSF_PROFILE_SCHEMA_VERSION);
	if (version < TSF_PROFILE_SCHEMA_VERSION)
		return tsr_fail(r, TSR_ERR_SCHEMA_TOO_OLD,
		                "'%s': profile schema version %lld is older than this Tilescope reads "
		                "(version %d)", r->path, (long long)version, TSF_PROFILE_SCHEMA_VERSION);
	r->info.schema_version = (unsigned)version;
	return TSR_OK;
}

/*
 * Refuses what the schema check of every file finds (sqlite-lockdown.c:
 * virtual tables, generated columns, triggers and views profile.sql does
 * not define), before any of the file's tables is read.
 */
static int check_schema(tsr_report *r)
{
	char why[300];
	int rc = tsr_sqlite_check_schema(r->db, tsf_profile_schema_sql, why, sizeof(why));

	if (rc != SQLITE_OK)
		return tsr_sql_fail(r, rc, "reading the schema");
	if (why[0])
		return tsr_fail(r, TSR_ERR_CORRUPT,
		                "'%s': the file %s: refusing to read it", r->path, why);
	return TSR_OK;
}

/* --- Loading the small tables ------------------------------------------------------------- */

/* meta: known keys into r->info (unknown keys are ignored). */
static int load_meta(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	int rc = tsr_prepare(r, &st, "SELECT key, value FROM meta");
	int64_t v;

	while (!rc) {
		const char *key;

		rc = tsr_step_row(r, st);
		if (rc != SQLITE_ROW) {
			rc = rc == SQLITE_DONE ? TSR_OK : rc;
			break;
		}
		rc = TSR_OK;
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT) {
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': a meta key is not text", r->path);
			break;
		}
		key = (const char *)sqlite3_column_text(st, 0);
		if (!key)
			continue;
		if (!strcmp(key, "tilescope_version"))
			rc = tsr_column_text(r, &r->info.tilescope_version, st, 1, false,
			                     "meta tilescope_version");
		else if (!strcmp(key, "created"))
			rc = tsr_column_text(r, &r->info.created, st, 1, false, "meta created");
		else if (!strcmp(key, "command_line"))
			rc = tsr_column_text(r, &r->info.command_line, st, 1, true, "meta command_line");
		else if (!strcmp(key, "engine_name"))
			rc = tsr_column_text(r, &r->info.engine_name, st, 1, true, "meta engine_name");
		else if (!strcmp(key, "report_id"))
			rc = tsr_column_text(r, &r->report_id, st, 1, false, "meta report_id");
		else if (!strcmp(key, "created_unix_ns"))
			rc = tsr_column_int(r, &r->created_unix_ns, st, 1, 0, INT64_MAX,
			                    "meta created_unix_ns");
		else if (!strcmp(key, "profiler_mode"))
			rc = tsr_column_text(r, &r->info.profiler_name, st, 1, false, "meta profiler_mode");
		else if (!strcmp(key, "lowered_vars")) {
			rc = tsr_column_int(r, &v, st, 1, 0, 1, "meta lowered_vars");
			r->info.lowered_vars = v == 1;
		} else if (!strcmp(key, "always_live_bytes")) {
			rc = tsr_column_int(r, &v, st, 1, 0, INT64_MAX, "meta always_live_bytes");
			r->always_live_bytes = (uint64_t)v;
		} else if (!strcmp(key, "replication_factor")) {
			rc = tsr_column_int(r, &r->meta_replication_factor, st, 1, 1, INT64_MAX,
			                    "meta replication_factor");
		}
	}
	sqlite3_finalize(st);
	if (rc)
		return rc;
	/* Never NULL for the formatters. */
	if (!r->info.tilescope_version)
		r->info.tilescope_version = "";
	if (!r->info.created)
		r->info.created = "";
	if (!r->info.profiler_name)
		r->info.profiler_name = tsr_profiler_mode_name(TSR_PROFILER_IPU_MODEL);
	/* A mode a newer writer added is no error: its word is still shown. */
	r->info.profiler = (tsr_profiler_mode)tsf_vocab_lookup(TSF_VOCAB_PROFILER_MODE,
	                                                       r->info.profiler_name);
	return TSR_OK;
}

/* option: the engine options, in order. */
static int load_options(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	const char **names = NULL, **values = NULL;
	size_t n;
	int rc = dense_count(r, &n, "option", "position", 0, 1 << 20);

	if (!rc) {
		names = pool_array(r, n ? n : 1, sizeof(*names));
		values = pool_array(r, n ? n : 1, sizeof(*values));
		if (!names || !values)
			rc = tsr_last_error_code();
	}
	if (!rc)
		rc = tsr_prepare(r, &st, "SELECT name, value FROM option ORDER BY position");
	for (size_t i = 0; !rc && i <= n; i++) {
		rc = loader_step(r, st, i, n, "option");
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_text(r, &names[i], st, 0, false, "option.name");
		if (!rc)
			rc = tsr_column_text(r, &values[i], st, 1, false, "option.value");
	}
	sqlite3_finalize(st);
	if (rc)
		return rc;
	r->info.n_options = n;
	r->info.option_names = names;
	r->info.option_values = values;
	return TSR_OK;
}

/* string: every interned name, by id (ids 0 .. n-1). */
static int load_strings(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	size_t n;
	int rc = dense_count(r, &n, "string", "id", 0, INT32_MAX);

	if (!rc) {
		r->strings = pool_array(r, n ? n : 1, sizeof(*r->strings));
		if (!r->strings)
			rc = tsr_last_error_code();
	}
	if (!rc)
		rc = tsr_prepare(r, &st, "SELECT id, text FROM string ORDER BY id");
	for (size_t i = 0; !rc && i <= n; i++) {
		int64_t id;

		rc = loader_step(r, st, i, n, "string");
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_int(r, &id, st, 0, (int64_t)i, (int64_t)i, "string.id");
		if (!rc && sqlite3_column_bytes(st, 1) > TSF_MAX_NAME_BYTES)
			rc = tsr_fail(r, TSR_ERR_CORRUPT,
			              "'%s': name %zu is %d bytes long, more than the %d a report may hold",
			              r->path, i, sqlite3_column_bytes(st, 1), TSF_MAX_NAME_BYTES);
		if (!rc)
			rc = tsr_column_text(r, &r->strings[i], st, 1, false, "string.text");
	}
	sqlite3_finalize(st);
	if (!rc)
		r->n_strings = n;
	return rc;
}

/* target: exactly one row whose sizes agree with each other. */
/* Whether a target's name and IPU version describe one chip (the
 * vocabulary pairs them: "ipu1" is a Mk1 ...); a name this reader does not
 * know (a CPU target, a newer chip) is not contradicted. */
static bool target_names_agree(const char *name, tsr_ipu_version version)
{
	for (int v = 0; v < TSF_IPU_VERSION_COUNT; v++)
		if (strcmp(name, tsf_ipu_target_name(v)) == 0)
			return (int)version == v;
	return true;
}

static int load_target(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	tsr_target *t = &r->target;
	int64_t v[12];
	int rc = tsr_prepare(r, &st,
	                     "SELECT type, name, ipu_version, num_ipus, tiles_per_ipu, num_tiles, "
	                     "bytes_per_tile, bytes_per_ipu, total_memory, clock_frequency, "
	                     "num_worker_contexts, fp16_amp_flops_per_cycle, fp32_flops_per_cycle, "
	                     "replication_factor, min_sync_delay FROM target");

	if (!rc) {
		rc = tsr_step_row(r, st);
		if (rc == SQLITE_DONE)
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': the target table is empty", r->path);
		else if (rc == SQLITE_ROW)
			rc = TSR_OK;
	}
	if (!rc)
		rc = tsr_column_text(r, &t->type, st, 0, false, "target.type");
	if (!rc)
		rc = tsr_column_text(r, &t->name, st, 1, false, "target.name");
	if (!rc)
		rc = tsr_column_text(r, &t->version_name, st, 2, false, "target.ipu_version");
	if (!rc)
		rc = tsr_column_int(r, &v[0], st, 3, 1, TSR_MAX_IPUS, "target.num_ipus");
	if (!rc)
		rc = tsr_column_int(r, &v[1], st, 4, 1, TSR_MAX_TILES, "target.tiles_per_ipu");
	if (!rc)
		rc = tsr_column_int(r, &v[2], st, 5, 1, TSR_MAX_TILES, "target.num_tiles");
	for (int i = 3; !rc && i < 12; i++)
		rc = tsr_column_int(r, &v[i], st, 3 + i, 0, INT64_MAX, "target");
	if (!rc && (rc = tsr_step_row(r, st)) != SQLITE_DONE)
		rc = rc < 0 ? rc
		            : tsr_fail(r, TSR_ERR_CORRUPT, "'%s': the target table has more than one row",
		                       r->path);
	else if (!rc || rc == SQLITE_DONE)
		rc = TSR_OK;
	sqlite3_finalize(st);
	if (rc)
		return rc;
	if (v[2] != v[0] * v[1])
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': the target has %lld tiles, not %lld IPUs x %lld",
		                r->path, (long long)v[2], (long long)v[0], (long long)v[1]);
	/* v[3] bytes_per_tile, v[4] bytes_per_ipu, v[5] total_memory */
	if (v[3] > INT64_MAX / v[2] || v[4] != v[3] * v[1] || v[5] != v[3] * v[2])
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': the target's memory sizes disagree", r->path);
	if (v[7] < 1 || v[7] > 64 || v[10] < 1 || v[10] > UINT32_MAX || v[11] > UINT32_MAX)
		return tsr_fail(r, TSR_ERR_CORRUPT,
		                "'%s': the target's worker contexts, replication or sync delay are out of "
		                "range", r->path);
	/* A clock of 0 Hz turns every time into a division by zero; the
	 * bounds are far outside any IPU (1.33-1.85 GHz) but keep figures sane. */
	if (v[6] < TSR_MIN_CLOCK_HZ || v[6] > TSR_MAX_CLOCK_HZ)
		return tsr_fail(r, TSR_ERR_CORRUPT,
		                "'%s': the target's clock frequency, %lld Hz, is not between 1 MHz and "
		                "100 GHz", r->path, (long long)v[6]);
	/* Every replica has num_ipus IPUs of its own: all of them must be a
	 * system one could have. */
	if (v[10] > TSR_MAX_IPUS / v[0])
		return tsr_fail(r, TSR_ERR_CORRUPT,
		                "'%s': %lld replicas of %lld IPUs each are more IPUs than a system has "
		                "(%lld)", r->path, (long long)v[10], (long long)v[0],
		                (long long)TSR_MAX_IPUS);
	/* A version a newer writer added is no error (TSR_IPU_UNKNOWN, its
	 * word still shown) unless the target's name says otherwise. */
	t->version = (tsr_ipu_version)tsf_vocab_lookup(TSF_VOCAB_IPU_VERSION, t->version_name);
	if (!target_names_agree(t->name, t->version))
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': the target is named '%s' but its IPU version "
		                "is '%s'", r->path, t->name, t->version_name);
	t->num_ipus = (unsigned)v[0];
	t->tiles_per_ipu = (unsigned)v[1];
	t->num_tiles = (unsigned)v[2];
	t->bytes_per_tile = (uint64_t)v[3];
	t->bytes_per_ipu = (uint64_t)v[4];
	t->total_memory = (uint64_t)v[5];
	t->clock_frequency = (uint64_t)v[6];
	t->num_worker_contexts = (unsigned)v[7];
	t->fp16_amp_flops_per_cycle = (uint64_t)v[8];
	t->fp32_flops_per_cycle = (uint64_t)v[9];
	t->replication_factor = (unsigned)v[10];
	t->min_sync_delay = (uint32_t)v[11];
	/* The file says it twice; a reader must not pick one silently. */
	if (r->meta_replication_factor >= 0 &&
	    r->meta_replication_factor != (int64_t)t->replication_factor)
		return tsr_fail(r, TSR_ERR_CORRUPT,
		                "'%s': the target has %u replicas but the report's meta says %lld",
		                r->path, t->replication_factor,
		                (long long)r->meta_replication_factor);
	return TSR_OK;
}

/* graph: the guide's four counts. */
static int load_graph(tsr_report *r)
{
	int64_t v[4];
	int rc = query_ints(r, v, 4, 0, INT64_MAX,
	                    "SELECT num_compute_sets, num_edges, num_vars, num_vertices FROM graph",
	                    "graph");

	if (rc)
		return rc;
	r->counts.compute_sets = (uint64_t)v[0];
	r->counts.edges = (uint64_t)v[1];
	r->counts.variables = (uint64_t)v[2];
	r->counts.vertices = (uint64_t)v[3];
	return TSR_OK;
}

/* a + b for byte counts from the file; false on overflow. */
static bool add_u64(uint64_t *sum, uint64_t a, uint64_t b)
{
	*sum = a + b;
	return *sum >= a;
}

/* tile_memory: one row per tile, in tile order, on the IPU it claims. */
static int load_tiles(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	size_t n, nt = r->target.num_tiles;
	int rc = dense_count(r, &n, "tile_memory", "tile", 0, TSR_MAX_TILES);

	if (!rc && n != nt)
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': tile_memory has %zu tiles, the target %zu",
		              r->path, n, nt);
	if (!rc) {
		r->tiles = pool_array(r, nt, sizeof(*r->tiles));
		if (!r->tiles)
			rc = tsr_last_error_code();
	}
	if (!rc)
		rc = tsr_prepare(r, &st,
		                 "SELECT tile, ipu, interleaved, non_interleaved, overflowed, "
		                 "interleaved_including_gaps, non_interleaved_including_gaps, "
		                 "overflowed_including_gaps, total, total_including_gaps "
		                 "FROM tile_memory ORDER BY tile");
	for (size_t i = 0; !rc && i <= nt; i++) {
		tsr_tile_memory *m;
		int64_t v[10];
		uint64_t sum;

		rc = loader_step(r, st, i, nt, "tile_memory");
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_int(r, &v[0], st, 0, (int64_t)i, (int64_t)i, "tile_memory.tile");
		if (!rc)
			rc = tsr_column_int(r, &v[1], st, 1, (int64_t)(i / r->target.tiles_per_ipu),
			                    (int64_t)(i / r->target.tiles_per_ipu), "tile_memory.ipu");
		for (int k = 2; !rc && k < 10; k++)
			rc = tsr_column_int(r, &v[k], st, k, 0, INT64_MAX, "tile_memory bytes");
		if (rc)
			break;
		m = &r->tiles[i];
		for (int k = 0; k < TSR_REGION_COUNT; k++) {
			m->region[k] = (uint64_t)v[2 + k];
			m->region_including_gaps[k] = (uint64_t)v[5 + k];
		}
		m->total = (uint64_t)v[8];
		m->total_including_gaps = (uint64_t)v[9];
		if (!add_u64(&sum, m->region[0], m->region[1]) || !add_u64(&sum, sum, m->region[2]) ||
		    sum != m->total)
			rc = tsr_fail(r, TSR_ERR_CORRUPT,
			              "'%s': tile %zu's total is not the sum of its regions", r->path, i);
	}
	sqlite3_finalize(st);
	return rc;
}

/* oom_tile: tiles on the target, ascending (the primary key orders them). */
static int load_oom_tiles(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	int64_t count;
	size_t n = 0;
	int rc = query_ints(r, &count, 1, 0, r->target.num_tiles, "SELECT COUNT(*) FROM oom_tile",
	                    "oom_tile count");

	if (!rc) {
		n = (size_t)count;
		r->oom_tiles = pool_array(r, n ? n : 1, sizeof(*r->oom_tiles));
		if (!r->oom_tiles)
			rc = tsr_last_error_code();
	}
	if (!rc)
		rc = tsr_prepare(r, &st, "SELECT tile FROM oom_tile ORDER BY tile");
	for (size_t i = 0; !rc && i <= n; i++) {
		int64_t t;

		rc = loader_step(r, st, i, n, "oom_tile");
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_int(r, &t, st, 0, i ? (int64_t)r->oom_tiles[i - 1] + 1 : 0,
		                    (int64_t)r->target.num_tiles - 1, "oom_tile.tile");
		if (!rc)
			r->oom_tiles[i] = (uint32_t)t;
	}
	sqlite3_finalize(st);
	if (!rc)
		r->n_oom_tiles = n;
	return rc;
}

/* The debug-context count (ids 1 .. n) for range checks. */
static int count_debug_contexts(tsr_report *r)
{
	size_t n;
	int rc = dense_count(r, &n, "debug_context", "id", 1, INT32_MAX);

	if (!rc)
		r->counts.debug_contexts = n;
	return rc;
}

/* A nullable debug_context column: -1, or an id in 1 .. debug_contexts. */
static int column_debug_context(tsr_report *r, int64_t *out, sqlite3_stmt *st, int col,
                                const char *what)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL) {
		*out = -1;
		return TSR_OK;
	}
	return tsr_column_int(r, out, st, col, 1, (int64_t)r->counts.debug_contexts, what);
}

/* vertex_type: by id. */
static int load_vertex_types(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	size_t n;
	int rc = dense_count(r, &n, "vertex_type", "id", 0, INT32_MAX);

	if (!rc) {
		r->vertex_types = pool_array(r, n ? n : 1, sizeof(*r->vertex_types));
		if (!r->vertex_types)
			rc = tsr_last_error_code();
	}
	if (!rc)
		rc = tsr_prepare(r, &st, "SELECT id, name, state_bytes, code_bytes, instances, flops "
		                         "FROM vertex_type ORDER BY id");
	for (size_t i = 0; !rc && i <= n; i++) {
		tsr_vertex_type *vt = &r->vertex_types[i < n ? i : 0];
		int64_t v[5];

		rc = loader_step(r, st, i, n, "vertex_type");
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_int(r, &v[0], st, 0, (int64_t)i, (int64_t)i, "vertex_type.id");
		if (!rc)
			rc = tsr_column_string(r, &vt->name, st, 1, "vertex_type.name");
		if (!rc)
			rc = tsr_column_int(r, &v[1], st, 2, 0, UINT32_MAX, "vertex_type.state_bytes");
		if (!rc)
			rc = tsr_column_int(r, &v[2], st, 3, 0, UINT32_MAX, "vertex_type.code_bytes");
		if (!rc)
			rc = tsr_column_int(r, &v[3], st, 4, 0, INT64_MAX, "vertex_type.instances");
		if (!rc)
			rc = tsr_column_int(r, &v[4], st, 5, 0, INT64_MAX, "vertex_type.flops");
		if (rc)
			break;
		vt->state_bytes = (uint32_t)v[1];
		vt->code_bytes = (uint32_t)v[2];
		vt->instances = (uint64_t)v[3];
		vt->flops = (uint64_t)v[4];
	}
	sqlite3_finalize(st);
	if (!rc)
		r->counts.vertex_types = n;
	return rc;
}

/* compute_set: by id, with its vertices from compute_set_vertex_type. */
static int load_compute_sets(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	size_t n;
	int64_t bad;
	char sql[200];
	int rc = dense_count(r, &n, "compute_set", "id", 0, INT32_MAX);

	if (!rc) {
		/* One spare slot: the loader's last step (which must find no
		 * further row) still names an element. */
		r->compute_sets = tsr_pool_alloc(r, (n + 1) * sizeof(tsr_compute_set));
		if (!r->compute_sets)
			rc = tsr_fail(r, TSR_ERR_TOO_LARGE, "'%s': %zu compute sets are too many", r->path, n);
		else
			r->n_compute_sets = n;
	}
	if (!rc)
		rc = tsr_prepare(r, &st, "SELECT id, name, flops, debug_context, tiles, cycles, "
		                         "cycles_sum, active_cycles, active_cycles_sum "
		                         "FROM compute_set ORDER BY id");
	for (size_t i = 0; !rc && i <= n; i++) {
		tsr_compute_set *cs = &r->compute_sets[i < n ? i : 0];
		int64_t v[9];

		rc = loader_step(r, st, i, n, "compute_set");
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_int(r, &v[0], st, 0, (int64_t)i, (int64_t)i, "compute_set.id");
		if (!rc)
			rc = tsr_column_string(r, &cs->name, st, 1, "compute_set.name");
		if (!rc)
			rc = tsr_column_int(r, &v[2], st, 2, 0, INT64_MAX, "compute_set.flops");
		if (!rc)
			rc = column_debug_context(r, &cs->debug_context, st, 3, "compute_set.debug_context");
		if (!rc)
			rc = tsr_column_int(r, &v[4], st, 4, 0, r->target.num_tiles, "compute_set.tiles");
		for (int k = 5; !rc && k < 9; k++)
			rc = tsr_column_int(r, &v[k], st, k, 0, INT64_MAX, "compute_set cycles");
		if (rc)
			break;
		cs->flops = (uint64_t)v[2];
		cs->tiles = (uint32_t)v[4];
		cs->cycles = (uint64_t)v[5];
		cs->cycles_sum = (uint64_t)v[6];
		cs->active_cycles = (uint64_t)v[7];
		cs->active_cycles_sum = (uint64_t)v[8];
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		return rc;

	/* Every row of compute_set_vertex_type must name a compute set and a
	 * vertex type that exist; then the vertices of each compute set. */
	snprintf(sql, sizeof(sql),
	         "SELECT COUNT(*) FROM compute_set_vertex_type WHERE compute_set NOT BETWEEN 0 AND "
	         "%lld OR vertex_type NOT BETWEEN 0 AND %lld OR vertex_count < 0",
	         (long long)n - 1, (long long)r->counts.vertex_types - 1);
	rc = query_ints(r, &bad, 1, 0, INT64_MAX, sql, "compute_set_vertex_type");
	if (!rc && bad)
		rc = tsr_fail(r, TSR_ERR_CORRUPT,
		              "'%s': %lld rows of compute_set_vertex_type name compute sets or vertex "
		              "types that do not exist", r->path, (long long)bad);
	if (!rc)
		rc = tsr_prepare(r, &st, "SELECT compute_set, SUM(vertex_count) "
		                         "FROM compute_set_vertex_type GROUP BY compute_set");
	for (size_t i = 0; !rc && i <= n; i++) {
		int64_t id, count;

		rc = tsr_step_row(r, st);
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_int(r, &id, st, 0, 0, (int64_t)n - 1,
		                    "compute_set_vertex_type.compute_set");
		if (!rc)
			rc = tsr_column_int(r, &count, st, 1, 0, INT64_MAX,
			                    "compute_set_vertex_type.vertex_count");
		if (!rc)
			r->compute_sets[id].vertices = (uint64_t)count;
	}
	sqlite3_finalize(st);
	return rc;
}

/* Rows of compute_set (see load_compute_sets). */
size_t tsr_compute_set_count(const tsr_report *r)
{
	return r->n_compute_sets;
}


/* exchange: each kind's list by id. */
static int load_exchanges(tsr_report *r)
{
	int rc = TSR_OK;
	int64_t other;

	for (int k = 0; !rc && k < TSR_EXCHANGE_KIND_COUNT; k++) {
		sqlite3_stmt *st = NULL;
		char table[80];
		size_t n;

		snprintf(table, sizeof(table), "exchange WHERE kind = '%s'", tsf_vocab_name(TSF_VOCAB_EXCHANGE_KIND, k));
		rc = dense_count(r, &n, table, "id", 0, INT32_MAX);
		if (!rc) {
			r->exchanges[k] = pool_array(r, n ? n : 1, sizeof(*r->exchanges[k]));
			if (!r->exchanges[k])
				rc = tsr_last_error_code();
		}
		if (!rc) {
			char sql[200];

			snprintf(sql, sizeof(sql),
			         "SELECT id, name, tiles, bytes_received, bytes_sent, cycles, cycles_sum "
			         "FROM exchange WHERE kind = '%s' ORDER BY id", tsf_vocab_name(TSF_VOCAB_EXCHANGE_KIND, k));
			rc = tsr_prepare(r, &st, sql);
		}
		for (size_t i = 0; !rc && i <= n; i++) {
			tsr_exchange *x = &r->exchanges[k][i < n ? i : 0];
			int64_t v[7];

			rc = loader_step(r, st, i, n, "exchange");
			if (rc == SQLITE_DONE) {
				rc = TSR_OK;
				break;
			}
			if (rc != SQLITE_ROW)
				break;
			rc = tsr_column_int(r, &v[0], st, 0, (int64_t)i, (int64_t)i, "exchange.id");
			if (!rc)
				rc = tsr_column_string(r, &x->name, st, 1, "exchange.name");
			if (!rc)
				rc = tsr_column_int(r, &v[2], st, 2, 0, r->target.num_tiles, "exchange.tiles");
			for (int c = 3; !rc && c < 7; c++)
				rc = tsr_column_int(r, &v[c], st, c, 0, INT64_MAX, "exchange totals");
			if (rc)
				break;
			x->tiles = (uint32_t)v[2];
			x->bytes_received = (uint64_t)v[3];
			x->bytes_sent = (uint64_t)v[4];
			x->cycles = (uint64_t)v[5];
			x->cycles_sum = (uint64_t)v[6];
		}
		sqlite3_finalize(st);
		if (rc)
			break;
		if (k == TSR_EXCHANGE_INTERNAL)
			r->counts.internal_exchanges = n;
		else if (k == TSR_EXCHANGE_EXTERNAL)
			r->counts.external_exchanges = n;
		else
			r->counts.host_exchanges = n;
	}
	if (rc)
		return rc;
	rc = query_ints(r, &other, 1, 0, INT64_MAX,
	                "SELECT COUNT(*) FROM exchange "
	                "WHERE kind NOT IN ('internal', 'external', 'host')",
	                "exchange kinds");
	if (!rc && other)
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %lld exchanges of an unknown kind", r->path,
		              (long long)other);
	return rc;
}

/* control_program or function_program: a list of program ids. */
static int load_program_list(tsr_report *r, uint32_t **out, size_t *count, const char *table,
                             size_t n_programs)
{
	sqlite3_stmt *st = NULL;
	uint32_t *list = NULL;
	char sql[120];
	size_t n;
	int rc = dense_count(r, &n, table, "position", 0, INT32_MAX);

	if (!rc) {
		list = pool_array(r, n ? n : 1, sizeof(*list));
		if (!list)
			rc = tsr_last_error_code();
	}
	snprintf(sql, sizeof(sql), "SELECT program FROM %s ORDER BY position", table);
	if (!rc)
		rc = tsr_prepare(r, &st, sql);
	for (size_t i = 0; !rc && i <= n; i++) {
		int64_t p;

		rc = loader_step(r, st, i, n, table);
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_int(r, &p, st, 0, 0, (int64_t)n_programs - 1, table);
		if (!rc)
			list[i] = (uint32_t)p;
	}
	sqlite3_finalize(st);
	if (rc)
		return rc;
	*out = list;
	*count = n;
	return TSR_OK;
}

/* The program type code of `text` (vocabulary.h), or -1. */
static int program_type_index(const unsigned char *text)
{
	return tsf_vocab_lookup(TSF_VOCAB_PROGRAM_TYPE, (const char *)text);
}

/* One program row into *p (static strings for the type and sync tags). */
static int read_program(tsr_report *r, tsr_program *p, sqlite3_stmt *st, size_t i)
{
	int64_t id, v;
	int type, rc = tsr_column_int(r, &id, st, 0, (int64_t)i, (int64_t)i, "program.id");

	if (rc)
		return rc;
	type = sqlite3_column_type(st, 1) == SQLITE_TEXT
	           ? program_type_index(sqlite3_column_text(st, 1))
	           : -1;
	if (type < 0)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': program %zu has an unknown type", r->path, i);
	p->program_type = (tsr_program_type)type;
	p->sync = TSR_SYNC_NONE;
	if (sqlite3_column_type(st, 2) != SQLITE_NULL)
		rc = tsr_column_string(r, &p->name, st, 2, "program.name");
	p->compute_set = -1;
	p->exchange = -1;
	p->function = -1;
	if (!rc && type == TSF_PROGRAM_ON_TILE_EXECUTE && sqlite3_column_type(st, 3) != SQLITE_NULL)
		rc = tsr_column_int(r, &p->compute_set, st, 3, 0,
		                    (int64_t)tsr_compute_set_count(r) - 1, "program.compute_set");
	if (!rc && tsf_program_type_exchange_kind(type) >= 0) {
		int k = tsf_program_type_exchange_kind(type);
		size_t nx = k == TSF_EXCHANGE_INTERNAL   ? r->counts.internal_exchanges
		            : k == TSF_EXCHANGE_EXTERNAL ? r->counts.external_exchanges
		                                         : r->counts.host_exchanges;

		p->exchange_kind = (tsr_exchange_kind)k;
		rc = tsr_column_id_or_null(r, &p->exchange, st, 4, (int64_t)nx - 1, "program.exchange");
		if (!rc && sqlite3_column_type(st, 9) != SQLITE_NULL) {
			rc = tsr_column_int(r, &v, st, 9, 0, INT64_MAX, "program.instr_total");
			p->code_bytes = (uint64_t)v;
		}
	}
	if (!rc && type == TSF_PROGRAM_CALL)
		rc = tsr_column_id_or_null(r, &p->function, st, 5,
		                           (int64_t)r->counts.function_programs - 1, "program.function");
	if (!rc && type == TSF_PROGRAM_SYNC && sqlite3_column_type(st, 6) != SQLITE_NULL) {
		int sync = tsf_vocab_lookup(TSF_VOCAB_SYNC_TYPE, (const char *)sqlite3_column_text(st, 6));

		p->sync = (tsr_sync_type)sync;
		if (sync < 0)
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': program %zu has an unknown sync type",
			              r->path, i);
	}
	if (!rc && type == TSF_PROGRAM_REPEAT && sqlite3_column_type(st, 7) != SQLITE_NULL) {
		rc = tsr_column_int(r, &v, st, 7, 0, INT64_MAX, "program.repeat_count");
		p->repeat_count = (uint64_t)v;
	}
	if (!rc)
		rc = column_debug_context(r, &p->debug_context, st, 8, "program.debug_context");
	return rc;
}

/*
 * Whether the child edges make a cycle (a hostile file could make one;
 * every reader walking the tree would then loop). Iterative depth-first
 * search with colours: the stack never exceeds the program count.
 */
static int check_program_cycles(tsr_report *r)
{
	size_t n = r->counts.programs;
	uint8_t *colour = tsr_alloc(r, n ? n : 1, 1); /* 0 new, 1 on the path, 2 done */
	size_t *stack = tsr_alloc(r, n ? n : 1, sizeof(size_t));
	size_t *next = tsr_alloc(r, n ? n : 1, sizeof(size_t));
	int rc = TSR_OK;

	if (!colour || !stack || !next) {
		rc = tsr_last_error_code();
		goto out;
	}
	for (size_t root = 0; !rc && root < n; root++) {
		size_t depth = 0;

		if (colour[root])
			continue;
		colour[root] = 1;
		stack[depth] = root;
		next[depth++] = 0;
		while (depth) {
			size_t p = stack[depth - 1];
			const tsr_program *pp = &r->programs[p];

			if (next[depth - 1] < pp->n_children) {
				uint32_t c = pp->children[next[depth - 1]++];

				if (colour[c] == 1) {
					rc = tsr_fail(r, TSR_ERR_CORRUPT,
					              "'%s': program %u is its own descendant (a cycle in "
					              "program_child)", r->path, c);
					break;
				}
				if (colour[c] == 0) {
					colour[c] = 1;
					stack[depth] = c;
					next[depth++] = 0;
				}
			} else {
				colour[p] = 2;
				depth--;
			}
		}
	}
out:
	tsr_free(r, colour, n ? n : 1);
	tsr_free(r, stack, (n ? n : 1) * sizeof(size_t));
	tsr_free(r, next, (n ? n : 1) * sizeof(size_t));
	return rc;
}

/* program, program_child, control_program and function_program. */
static int load_programs(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	uint32_t *children = NULL;
	int64_t total = 0;
	size_t n, at = 0;
	int rc = dense_count(r, &n, "program", "id", 0, INT32_MAX);

	if (!rc)
		rc = load_program_list(r, &r->control_programs, &r->counts.control_programs,
		                       "control_program", n);
	if (!rc)
		rc = load_program_list(r, &r->function_programs, &r->counts.function_programs,
		                       "function_program", n);
	if (!rc) {
		r->programs = pool_array(r, n ? n : 1, sizeof(*r->programs));
		if (!r->programs)
			rc = tsr_last_error_code();
	}
	if (!rc)
		rc = tsr_prepare(r, &st, "SELECT id, type, name, compute_set, exchange, function, "
		                         "sync_type, repeat_count, debug_context, instr_total "
		                         "FROM program ORDER BY id");
	for (size_t i = 0; !rc && i <= n; i++) {
		rc = loader_step(r, st, i, n, "program");
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc == SQLITE_ROW)
			rc = read_program(r, &r->programs[i], st, i);
	}
	sqlite3_finalize(st);
	st = NULL;

	/* Children: one array, each program's run of it in order. */
	if (!rc)
		rc = query_ints(r, &total, 1, 0, INT32_MAX, "SELECT COUNT(*) FROM program_child",
		                "program_child count");
	if (!rc) {
		children = pool_array(r, total ? (size_t)total : 1, sizeof(*children));
		if (!children)
			rc = tsr_last_error_code();
	}
	if (!rc)
		rc = tsr_prepare(r, &st, "SELECT parent, position, child FROM program_child "
		                         "ORDER BY parent, position");
	for (size_t i = 0; !rc && i <= (size_t)total; i++) {
		int64_t parent, pos, child;

		rc = loader_step(r, st, i, (size_t)total, "program_child");
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_int(r, &parent, st, 0, 0, (int64_t)n - 1, "program_child.parent");
		if (!rc)
			rc = tsr_column_int(r, &child, st, 2, 0, (int64_t)n - 1, "program_child.child");
		if (!rc) {
			tsr_program *p = &r->programs[parent];

			if (!p->children)
				p->children = children + at;
			else if (p->children + p->n_children != children + at)
				rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': program_child rows out of order",
				              r->path);
			if (!rc)
				rc = tsr_column_int(r, &pos, st, 1, (int64_t)p->n_children,
				                    (int64_t)p->n_children, "program_child.position");
			if (!rc) {
				children[at++] = (uint32_t)child;
				p->n_children++;
			}
		}
	}
	sqlite3_finalize(st);
	if (rc)
		return rc;
	r->counts.programs = n;
	return check_program_cycles(r);
}

/* run: by id, each naming a control program. */
static int load_runs(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	size_t n;
	int rc = dense_count(r, &n, "run", "id", 0, 1 << 20);

	if (!rc) {
		r->runs = pool_array(r, n ? n : 1, sizeof(*r->runs));
		r->steps = pool_array(r, n ? n : 1, sizeof(*r->steps));
		r->n_steps = pool_array(r, n ? n : 1, sizeof(*r->n_steps));
		r->traces = pool_array(r, n ? n : 1, sizeof(*r->traces));
		r->n_traces = pool_array(r, n ? n : 1, sizeof(*r->n_traces));
		if (!r->runs || !r->steps || !r->n_steps || !r->traces || !r->n_traces)
			rc = tsr_last_error_code();
	}
	if (!rc)
		rc = tsr_prepare(r, &st,
		                 "SELECT id, program, cycles, num_steps, trace_length, "
		                 "active_compute_cycles, compute_cycles, do_exchange_cycles, "
		                 "global_exchange_cycles, stream_copy_cycles, sync_cycles, "
		                 "copy_shared_structure_cycles FROM run ORDER BY id");
	for (size_t i = 0; !rc && i <= n; i++) {
		tsr_run *run = &r->runs[i < n ? i : 0];
		int64_t v[12];

		rc = loader_step(r, st, i, n, "run");
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_int(r, &v[0], st, 0, (int64_t)i, (int64_t)i, "run.id");
		if (!rc)
			rc = tsr_column_int(r, &v[1], st, 1, 0, (int64_t)r->counts.control_programs - 1,
			                    "run.program");
		if (!rc)
			rc = tsr_column_int(r, &v[2], st, 2, 0, INT64_MAX, "run.cycles");
		if (!rc)
			rc = tsr_column_int(r, &v[3], st, 3, 0, INT32_MAX, "run.num_steps");
		if (!rc)
			rc = tsr_column_int(r, &v[4], st, 4, 0, INT32_MAX, "run.trace_length");
		for (int k = 5; !rc && k < 12; k++)
			rc = tsr_column_int(r, &v[k], st, k, 0, INT64_MAX, "run tile cycles");
		if (rc)
			break;
		run->program = (uint32_t)v[1];
		run->cycles = (uint64_t)v[2];
		run->n_steps = (size_t)v[3];
		run->trace_length = (size_t)v[4];
		run->tile_cycles.active_compute = (uint64_t)v[5];
		run->tile_cycles.compute = (uint64_t)v[6];
		run->tile_cycles.do_exchange = (uint64_t)v[7];
		run->tile_cycles.global_exchange = (uint64_t)v[8];
		run->tile_cycles.stream_copy = (uint64_t)v[9];
		run->tile_cycles.sync = (uint64_t)v[10];
		run->tile_cycles.copy_shared_structure = (uint64_t)v[11];
	}
	sqlite3_finalize(st);
	if (!rc)
		r->counts.runs = n;
	return rc;
}

/* Row counts of the lazily read tables. */
static int count_lazy(tsr_report *r)
{
	int64_t v;
	int rc = query_ints(r, &v, 1, 0, INT32_MAX, "SELECT COUNT(*) FROM variable", "variable count");

	if (!rc) {
		r->counts.listed_variables = (size_t)v;
		rc = dense_count(r, &r->counts.liveness_steps, "liveness_step", "id", 0, INT32_MAX);
	}
	return rc;
}

/* One read transaction: the loaders see one state of the file. */
static int begin_read(tsr_report *r)
{
	return exec_quiet(r, "BEGIN");
}

/* The progress state's cancel hook: stops whatever statement of the
 * handle is running, whichever call is using it (progress.c). */
static void interrupt_report(void *data)
{
	tsr_report *r = data;

	if (r->db)
		sqlite3_interrupt(r->db);
}

/*
 * The loaders of tsr_report_open in order, each with the fraction of the
 * open done when it ends (their shares of the time on a large report,
 * tests/bench/report-open.c) and what the progress callback is told
 * while it runs.
 */
static const struct open_step {
	int (*load)(tsr_report *r);
	double end;
	const char *message;
} open_steps[] = {
	{begin_read, 0.01, "reading the header"},
	{load_meta, 0.015, "reading the report's metadata"},
	{load_options, 0.02, "reading the engine options"},
	{load_strings, 0.30, "reading names"},
	{load_target, 0.301, "reading the target"},
	{load_graph, 0.302, "reading the graph counts"},
	{load_tiles, 0.33, "reading tile memory"},
	{load_oom_tiles, 0.335, "reading out-of-memory tiles"},
	{count_debug_contexts, 0.34, "counting debug contexts"},
	{load_vertex_types, 0.345, "reading vertex types"},
	{load_compute_sets, 0.60, "reading compute sets"},
	{load_exchanges, 0.665, "reading exchanges"},
	{load_programs, 0.85, "reading programs"},
	{load_runs, 0.852, "reading runs"},
	{count_lazy, 1.00, "counting variables and liveness steps"},
};

/*
 * Opens a report (see report.h). Everything after locating the file runs
 * on the locked-down connection; any failure (a cancel too) frees the
 * half-built handle and leaves its message as the thread's last error.
 */
/*
 * The pair rule (db-schema/profile.sql): profile.pop and debug.cbor are
 * read as they were at one moment. locate opens debug.cbor's descriptor
 * before SQLite opens profile.pop, so when profile.pop's path still
 * names the file locate saw once SQLite holds it, no writer renamed a
 * profile.pop into place in between, and the writer's order (the old
 * debug.cbor goes before a new profile.pop comes, the new debug.cbor
 * after it) makes the two descriptors one report's, or profile.pop
 * alone. A rename in between (a run added, another model's report)
 * makes tsr_report_open start again, at most OPEN_ATTEMPTS times.
 */
#define OPEN_ATTEMPTS 20

/* True when `path` no longer names the file `before` describes. */
static bool replaced_since(const char *path, const struct stat *before)
{
	struct stat now;

	return stat(path, &now) != 0 || now.st_dev != before->st_dev ||
	       now.st_ino != before->st_ino;
}

/* Undoes locate and connect_db, for another attempt. */
static void unlocate(tsr_report *r)
{
	if (r->db)
		sqlite3_close_v2(r->db);
	r->db = NULL;
	free(r->path);
	free(r->debug_path);
	r->path = r->debug_path = NULL;
	if (r->debug_fd >= 0)
		close(r->debug_fd);
	r->debug_fd = -1;
	r->report_id = NULL;
	r->created_unix_ns = 0;
}

int tsr_report_open(tsr_report **out, const char *path, const tsr_open_options *opts)
{
	tsr_progress_frame frame;
	tsr_report *r;
	int64_t size = 0;
	double at = 0.0;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !path || !*path)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "tsr_report_open: no %s",
		                          out ? "path" : "handle to fill");
	/* Version 1 callers' structs end after memory_cap. */
	if (opts && (opts->version < 1 || opts->version > TSR_OPEN_OPTIONS_VERSION))
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT,
		                          "tsr_report_open: options version %u, expected 1 to %u",
		                          opts->version, TSR_OPEN_OPTIONS_VERSION);
	if (tsr_sqlite_init() != SQLITE_OK)
		return tsr_set_last_error(TSR_ERR_IO, "'%s': SQLite cannot be used: %s", path,
		                          tsr_sqlite_init_error());
	r = tsb_calloc(1, sizeof(*r));
	if (!r)
		return tsr_set_last_error(TSR_ERR_NO_MEMORY, "'%s': out of host memory", path);
	r->debug_fd = -1;
	r->meta_replication_factor = -1;
	r->memory_cap = opts && opts->memory_cap ? opts->memory_cap : TSR_DEFAULT_CAP;
	r->ps = &r->progress;
	r->progress.interrupt = interrupt_report;
	r->progress.interrupt_data = r;
	if (opts && opts->version >= 2)
		tsr_progress_set(r->ps, opts->progress, opts->progress_data);

	rc = tsr_progress_push(r->ps, &frame, "opening the report") ? TSR_ERR_CANCELLED : TSR_OK;
	for (int attempt = 1; !rc; attempt++) {
		struct stat pop = {0};

		rc = locate(r, path, &size, &pop);
		if (!rc)
			rc = connect_db(r, size);
		if (rc || !replaced_since(r->path, &pop))
			break;
		/* A writer renamed a new profile.pop into place while we
		 * opened it: start again, with the pair as it is now. */
		if (attempt == OPEN_ATTEMPTS)
			rc = tsr_fail(r, TSR_ERR_IO,
			              "'%s' was replaced %d times while it was being opened; "
			              "try again when the model has finished writing it",
			              r->path, attempt);
		else
			unlocate(r);
	}
	for (size_t i = 0; !rc && i < sizeof(open_steps) / sizeof(open_steps[0]); i++) {
		if (tsr_progress_step(r->ps, at, open_steps[i].end, open_steps[i].message))
			rc = TSR_ERR_CANCELLED;
		else
			rc = open_steps[i].load(r);
		at = open_steps[i].end;
	}
	if (!rc)
		rc = exec_quiet(r, "COMMIT");
	if (rc == TSR_ERR_CANCELLED)
		rc = tsr_fail_cancelled(r);
	tsr_progress_pop(r->ps, &frame, !rc);
	if (rc) {
		/* tsr_fail left the message as the thread's last error too. */
		tsr_report_free(r);
		return rc;
	}
	r->error[0] = 0;
	*out = r;
	return TSR_OK;
}

/* The callback for the later calls (report.h). */
int tsr_report_set_progress(tsr_report *report, tsr_progress_cb cb, void *user_data)
{
	if (!report)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "tsr_report_set_progress: no report");
	tsr_progress_set(&report->progress, cb, user_data);
	return TSR_OK;
}

/* Frees the handle, the per-run arrays and the operations cache (see the
 * top of this file), and the pool. */
void tsr_report_free(tsr_report *report)
{
	if (!report)
		return;
	for (size_t i = 0; i < report->counts.runs; i++) {
		if (report->steps)
			free(report->steps[i]);
		if (report->traces)
			free(report->traces[i]);
		if (report->frames)
			free(report->frames[i]);
	}
	free(report->frames);
	free(report->n_frames);
	free(report->operations_cache);
	if (report->db)
		sqlite3_close_v2(report->db);
	tsr_pool_free(report);
	free(report->path);
	free(report->debug_path);
	if (report->debug_fd >= 0)
		close(report->debug_fd);
	free(report);
}

