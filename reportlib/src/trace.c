/*
 * Opening .pvti traces (trace.h): one or several files of one job on one
 * time axis, read-only and defensively, and the small things every query
 * needs: processes, threads, channels, interned names, metadata, the
 * chunk index and the memory cap.
 *
 * Opening is two passes over the files. The first opens each one and
 * checks what it is (SQLite, the .pvti application id, the schema
 * version) and reads its process row; the earliest origin then gives
 * every file its offset on the merged axis. The second reads the small
 * tables and the chunk index (one row per chunk, never a blob), checking
 * every id, count and time, so that the queries can trust them.
 */
#define _GNU_SOURCE 1

#include <tilescope/alloc.h>
#include "trace-chrome-private.h"
#include "trace-private.h"

#include "format.h"

#include <tilescope/hashmap.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The default memory cap (trace.h). */
#define DEFAULT_MEMORY_CAP (2ull << 30)
/* The longest string or blob SQLite may hand us from a file. */
#define MAX_SQL_LENGTH (64 << 20)
/* A file's string ids may be sparse, but not absurdly: the map from them
 * is a dense array of at most this many entries per row plus a margin. */
#define ID_SPARSENESS 4u
#define ID_MARGIN 65536u
/* Each statement's budget of SQLite virtual-machine steps: a base plus
 * so many per byte of the file, at most VM_MAX (SQLite counts in 32
 * bits); the progress handler looks every VM_PERIOD steps. */
#define VM_BASE ((int64_t)200 * 1000 * 1000)
#define VM_PER_BYTE 16
#define VM_MAX ((int64_t)2000 * 1000 * 1000)
#define VM_PERIOD 20000

/* --- Errors and memory ------------------------------------------------------ */

/* Records a failure on the handle and as the thread's last error, so
 * that a failed open reports through tsr_last_error(). */
int trace_fail(tsr_trace *tr, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tr->error, sizeof(tr->error), fmt, ap);
	va_end(ap);
	tr->code = code;
	tsr_set_last_error(code, "%s", tr->error);
	return code;
}

/* The thread (-1: all) and window checks of the calls that take them. */
int trace_check_window(tsr_trace *tr, int64_t thread, int64_t from_ns, int64_t to_ns)
{
	if (thread < -1 || (thread >= 0 && (uint64_t)thread >= tr->n_threads))
		return trace_fail(tr, TSR_ERR_OUT_OF_RANGE, "thread %lld is past the end (%zu)",
		                  (long long)thread, tr->n_threads);
	if (from_ns > to_ns)
		return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT, "the window ends before it starts");
	return TSR_OK;
}

/* The progress callback asked to stop: names what was being done. */
int trace_fail_cancelled(tsr_trace *tr)
{
	const char *what = tr->progress.message && *tr->progress.message ? tr->progress.message
	                                                                   : "working";

	return trace_fail(tr, TSR_ERR_CANCELLED, "cancelled while %s", what);
}

/* Checks that `bytes` more fit under the cap and counts them. */
static bool charge(tsr_trace *tr, size_t bytes)
{
	if (bytes > tr->memory_cap || tr->memory_used > tr->memory_cap - bytes) {
		trace_fail(tr, TSR_ERR_TOO_LARGE,
		           "reading the trace would pass the memory cap (%llu bytes)",
		           (unsigned long long)tr->memory_cap);
		return false;
	}
	tr->memory_used += bytes;
	return true;
}

/* calloc counted against the cap; n * size checked for overflow. */
void *trace_alloc(tsr_trace *tr, size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (__builtin_mul_overflow(n, size, &bytes)) {
		trace_fail(tr, TSR_ERR_TOO_LARGE, "an array of %zu x %zu bytes is too large", n, size);
		return NULL;
	}
	if (bytes == 0)
		bytes = 1;
	if (!charge(tr, bytes))
		return NULL;
	p = tsb_calloc(1, bytes);
	if (!p) {
		tr->memory_used -= bytes;
		trace_fail(tr, TSR_ERR_NO_MEMORY, "out of memory (%zu bytes)", bytes);
	}
	return p;
}

/* realloc of an array from old_n to new_n elements, counted; the new
 * elements are zeroed. On failure `p` is left as it was. */
void *trace_realloc(tsr_trace *tr, void *p, size_t old_n, size_t new_n, size_t size)
{
	size_t old_bytes = old_n * size, bytes;
	char *q;

	if (__builtin_mul_overflow(new_n, size, &bytes) || bytes < old_bytes) {
		trace_fail(tr, TSR_ERR_TOO_LARGE, "an array of %zu x %zu bytes is too large", new_n,
		           size);
		return NULL;
	}
	if (!p)
		return trace_alloc(tr, new_n, size);
	if (!charge(tr, bytes - old_bytes))
		return NULL;
	q = tsb_realloc(p, bytes ? bytes : 1);
	if (!q) {
		tr->memory_used -= bytes - old_bytes;
		trace_fail(tr, TSR_ERR_NO_MEMORY, "out of memory (%zu bytes)", bytes);
		return NULL;
	}
	memset(q + old_bytes, 0, bytes - old_bytes);
	return q;
}

/* Frees what trace_alloc gave, uncounting it. NULL-safe. */
void trace_free_mem(tsr_trace *tr, void *p, size_t bytes)
{
	if (!p)
		return;
	if (bytes == 0)
		bytes = 1;
	tr->memory_used -= bytes < tr->memory_used ? bytes : tr->memory_used;
	free(p);
}

/* The caller now owns `bytes` (an array about to be returned). */
void trace_release(tsr_trace *tr, size_t bytes)
{
	if (bytes == 0)
		bytes = 1;
	tr->memory_used -= bytes < tr->memory_used ? bytes : tr->memory_used;
}

/* A block of the string pool: strings live as long as the handle. */
struct trace_pool_block {
	trace_pool_block *next;
	size_t used, size;
	char data[];
};

#define POOL_BLOCK 65536u

/* A NUL-terminated copy of s[0..len) in the pool. */
static const char *pool_strdup(tsr_trace *tr, const char *s, size_t len)
{
	trace_pool_block *b = tr->pool;
	char *p;

	if (len >= SIZE_MAX / 2)
		return trace_fail(tr, TSR_ERR_TOO_LARGE, "a string is too long"), NULL;
	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > POOL_BLOCK ? len + 1 : POOL_BLOCK;

		b = trace_alloc(tr, 1, sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->next = tr->pool;
		tr->pool = b;
	}
	p = b->data + b->used;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

/* Maps an SQLite failure onto a code: a damaged file is TSR_ERR_CORRUPT,
 * a file that is not a database TSR_ERR_NOT_SQLITE, a read error
 * TSR_ERR_IO, memory TSR_ERR_NO_MEMORY / TSR_ERR_TOO_LARGE. */
int trace_sql_fail(tsr_trace *tr, sqlite3 *db, int rc, const char *what)
{
	/* The connection's message only when it is about this failure (see
	 * tsr_sql_fail). */
	const char *msg = db && (sqlite3_errcode(db) & 0xff) == (rc & 0xff) ? sqlite3_errmsg(db)
	                                                                    : sqlite3_errstr(rc);

	if ((rc & 0xff) == SQLITE_INTERRUPT && tr->progress.cancelled)
		return trace_fail_cancelled(tr);
	switch (rc & 0xff) {
	case SQLITE_NOTADB:
		return trace_fail(tr, TSR_ERR_NOT_SQLITE, "%s: not an SQLite database (%s)", what, msg);
	case SQLITE_IOERR:
	case SQLITE_CANTOPEN:
		return trace_fail(tr, TSR_ERR_IO, "%s: %s", what, msg);
	case SQLITE_NOMEM:
		return trace_fail(tr, TSR_ERR_NO_MEMORY, "%s: %s", what, msg);
	case SQLITE_TOOBIG:
		return trace_fail(tr, TSR_ERR_CORRUPT, "%s: a value is too large (%s)", what, msg);
	default:
		return trace_fail(tr, TSR_ERR_CORRUPT, "%s: %s", what, msg);
	}
}

/* Prepares `sql` on file `p`: a statement that does not prepare means a
 * table or column is missing, so the file is not what it says it is. */
int trace_prepare(tsr_trace *tr, sqlite3_stmt **st, size_t p, const char *sql)
{
	sqlite3 *db = tr->files[p].db;
	int rc = sqlite3_prepare_v2(db, sql, -1, st, NULL);

	if (rc != SQLITE_OK) {
		*st = NULL;
		return trace_sql_fail(tr, db, rc, tr->processes[p].path);
	}
	return TSR_OK;
}

/* Resets and clears a kept statement and its step count, so that the
 * progress handler's budget applies to each use, not to its lifetime. */
void trace_restart(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 1);
}

/* Steps `st` of file `p`: SQLITE_ROW or SQLITE_DONE, else a negative code. */
static int step_row(tsr_trace *tr, sqlite3_stmt *st, size_t p)
{
	int rc;

	if (tsr_progress_tick(&tr->progress))
		return trace_fail_cancelled(tr);
	rc = sqlite3_step(st);

	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return rc;
	return trace_sql_fail(tr, tr->files[p].db, rc, tr->processes[p].path);
}

/* An integer column in [lo, hi], else TSR_ERR_CORRUPT naming `what`. */
static int column_int(tsr_trace *tr, int64_t *out, sqlite3_stmt *st, int col, int64_t lo,
                      int64_t hi, size_t p, const char *what)
{
	int64_t v;

	*out = 0; /* defined on failure too (optimised builds cannot tell) */
	if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
		return trace_fail(tr, TSR_ERR_CORRUPT, "%s: %s is not an integer",
		                  tr->processes[p].path, what);
	v = sqlite3_column_int64(st, col);
	if (v < lo || v > hi)
		return trace_fail(tr, TSR_ERR_CORRUPT, "%s: %s %lld is out of range",
		                  tr->processes[p].path, what, (long long)v);
	*out = v;
	return TSR_OK;
}

/* A text column copied into the pool (NULL allowed when `nullable`). */
static int column_text(tsr_trace *tr, const char **out, sqlite3_stmt *st, int col, bool nullable,
                       size_t p, const char *what)
{
	int type = sqlite3_column_type(st, col);
	const unsigned char *text;

	*out = NULL;
	if (type == SQLITE_NULL && nullable)
		return TSR_OK;
	if (type != SQLITE_TEXT)
		return trace_fail(tr, TSR_ERR_CORRUPT, "%s: %s is not text", tr->processes[p].path,
		                  what);
	text = sqlite3_column_text(st, col);
	if (!text)
		return trace_fail(tr, TSR_ERR_NO_MEMORY, "out of memory");
	*out = pool_strdup(tr, (const char *)text, (size_t)sqlite3_column_bytes(st, col));
	return *out ? TSR_OK : tr->code;
}

/* --- Time axis and id maps ------------------------------------------------------ */

/* Moves file time `t` of process `p` onto the merged axis. */
int trace_to_axis(tsr_trace *tr, int64_t *out, size_t p, int64_t t, const char *what)
{
	if (__builtin_add_overflow(t, tr->processes[p].offset_ns, out))
		return trace_fail(tr, TSR_ERR_CORRUPT, "%s: %s %lld is out of range",
		                  tr->processes[p].path, what, (long long)t);
	return TSR_OK;
}

/* The window [from, to) in file `p`'s time, saturating. */
void trace_window_to_file(const tsr_trace *tr, size_t p, int64_t from, int64_t to, int64_t *lo,
                          int64_t *hi)
{
	int64_t off = tr->processes[p].offset_ns;

	if (__builtin_sub_overflow(from, off, lo))
		*lo = INT64_MIN;
	if (__builtin_sub_overflow(to, off, hi))
		*hi = INT64_MIN;
}

/* File `p`'s string `id` as a handle name id. */
int trace_map_name(tsr_trace *tr, uint32_t *out, size_t p, int64_t id)
{
	const trace_file *f = &tr->files[p];

	if (id < 0 || (uint64_t)id >= f->n_names || f->names[id] == TSR_TRACE_NO_NAME)
		return trace_fail(tr, TSR_ERR_CORRUPT, "%s: string %lld does not exist",
		                  tr->processes[p].path, (long long)id);
	*out = f->names[id];
	return TSR_OK;
}

/* File `p`'s channel `id` as a handle channel index. */
int trace_map_channel(tsr_trace *tr, uint32_t *out, size_t p, int64_t id)
{
	const trace_file *f = &tr->files[p];

	if (id < 0 || (uint64_t)id >= f->n_channels || f->channels[id] == UINT32_MAX)
		return trace_fail(tr, TSR_ERR_CORRUPT, "%s: channel %lld does not exist",
		                  tr->processes[p].path, (long long)id);
	*out = f->channels[id];
	return TSR_OK;
}

/* File `p`'s thread `id` as a thread index (binary search: ids ascend). */
int trace_map_thread(tsr_trace *tr, size_t *out, size_t p, int64_t id)
{
	const tsr_trace_process *pr = &tr->processes[p];
	const int64_t *ids = tr->files[p].thread_ids;
	size_t lo = 0, hi = pr->n_threads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == pr->n_threads || ids[lo] != id)
		return trace_fail(tr, TSR_ERR_CORRUPT, "%s: thread %lld does not exist", pr->path,
		                  (long long)id);
	*out = pr->first_thread + lo;
	return TSR_OK;
}

/* The handle id of name `text` (pooled), added when new. The map is
 * base's (tilescope/hashmap.h); what it grows by is charged to the
 * handle's memory cap like every other array here. */
static int intern_name(tsr_trace *tr, uint32_t *out, const char *text)
{
	uintptr_t id;
	size_t before, after;

	if (!tr->name_ids && !(tr->name_ids = tsb_hashmap_new(TSB_HASHMAP_STRING_KEYS)))
		return trace_fail(tr, TSR_ERR_NO_MEMORY, "out of memory");
	if (tsb_hashmap_lookup_str(tr->name_ids, text, &id)) {
		*out = (uint32_t)id;
		return TSR_OK;
	}
	if (tr->n_names >= UINT32_MAX - 1)
		return trace_fail(tr, TSR_ERR_TOO_LARGE, "too many names");
	if (tr->n_names == tr->cap_names) {
		size_t cap = tr->cap_names ? tr->cap_names * 2 : 1024;
		const char **names = trace_realloc(tr, tr->names, tr->cap_names, cap, sizeof(*names));

		if (!names)
			return tr->code;
		tr->names = names;
		tr->cap_names = cap;
	}
	before = tsb_hashmap_get_memory(tr->name_ids);
	if (tsb_hashmap_put_str(tr->name_ids, text, tr->n_names))
		return trace_fail(tr, TSR_ERR_NO_MEMORY, "out of memory");
	after = tsb_hashmap_get_memory(tr->name_ids);
	if (after > before && !charge(tr, after - before)) {
		tsb_hashmap_remove_str(tr->name_ids, text);
		return tr->code;
	}
	tr->names[tr->n_names] = text;
	*out = (uint32_t)tr->n_names++;
	return TSR_OK;
}

/* --- Opening one file --------------------------------------------------------------- */

/* Whether `path` starts with SQLite's 16-byte header string. An empty or
 * short file is not a database (SQLite would treat it as a new one). */
static int check_sqlite_header(const char *path, bool *wal, uint32_t *app)
{
	static const char magic[16] = "SQLite format 3";
	unsigned char head[72];
	struct stat sb;
	ssize_t got;
	int fd;

	*wal = false;
	*app = 0;
	/* O_NONBLOCK: a FIFO named like a trace must not hang the open (add_path
	 * refuses non-regular files; this is the second guard). */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return errno == ENOENT ? TSR_ERR_NOT_FOUND : TSR_ERR_IO;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return TSR_ERR_NOT_SQLITE;
	}
	got = read(fd, head, sizeof(head));
	close(fd);
	if (got != (ssize_t)sizeof(head) || memcmp(head, magic, sizeof(magic)) != 0)
		return TSR_ERR_NOT_SQLITE;
	/* File format read/write versions 2: the database is in WAL mode. */
	*wal = head[18] == 2 || head[19] == 2;
	*app = (uint32_t)head[68] << 24 | (uint32_t)head[69] << 16 | (uint32_t)head[70] << 8 | head[71];
	return TSR_OK;
}

/* One integer from a pragma or query of file `p`. */
static int query_int(tsr_trace *tr, int64_t *out, size_t p, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int rc = trace_prepare(tr, &st, p, sql);

	if (rc != TSR_OK)
		goto cleanup;
	rc = step_row(tr, st, p);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		rc = TSR_OK;
	} else if (rc == SQLITE_DONE) {
		rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: a value the trace must hold is missing "
		                "(its header pragmas or a one-row table)", tr->processes[p].path);
	}
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/*
 * The progress handler: a statement past its budget of virtual-machine
 * steps is interrupted (SQLITE_INTERRUPT, reported as TSR_ERR_CORRUPT).
 * The budget grows with the file's size, so every scan of a real trace
 * fits while no damaged file keeps a query running for long. Statements
 * kept for reuse reset their count at each use (trace_restart). During
 * a call that reports progress it also hears the caller's cancel.
 */
static int progress_cb(void *data)
{
	trace_file *f = data;

	if (tsr_progress_poll(&f->tr->progress))
		return 1;
	return tsr_vm_guard_exceeded(&f->vm_guard, f->db, VM_PERIOD);
}

/*
 * Opens file `p` read-only with SQLite's defensive settings: nothing in
 * the file runs (triggers and views disabled, trusted_schema off, an
 * authorizer), cell sizes are checked, strings, blobs and statements are
 * bounded, every statement has a budget of steps. No "immutable" open:
 * the WAL a crashed writer leaves behind holds the trace's last flushes.
 * Then checks that it is a .pvti of a schema version this reader knows,
 * and passes the schema check of every file reportlib opens (no virtual
 * tables, generated columns, triggers or views pvti.sql does not define)
 * before any table is read.
 */
static int open_file(tsr_trace *tr, size_t p)
{
	tsr_trace_process *pr = &tr->processes[p];
	trace_file *f = &tr->files[p];
	int64_t app = 0, version = 0;
	struct stat sb;
	/* A file shared by the handle this one reopens is its image, whatever
	 * the file holds now. */
	bool wal, json = f->json;
	uint32_t header_app;
	int rc = json ? TSR_OK : check_sqlite_header(pr->path, &wal, &header_app);

	if (rc == TSR_ERR_NOT_FOUND)
		return trace_fail(tr, rc, "%s: no such file", pr->path);
	if (rc == TSR_ERR_IO)
		return trace_fail(tr, rc, "%s: cannot read: %s", pr->path, strerror(errno));
	if (rc == TSR_ERR_NOT_SQLITE)
		return trace_fail(tr, rc,
		                  "%s: not an SQLite database (a .pvti), nor Chrome trace-event JSON",
		                  pr->path);
	if (!json && rc == TSR_OK && header_app == 0 && wal) {
		/* A writer that never closed the trace (a crash, a kill) leaves its
		 * flushes in <name>-wal; a copy without it reads as an empty file.
		 * Checked before SQLite opens it, which would make an empty one. */
		char *wal_path = tsb_asprintf("%s-wal", pr->path);
		struct stat ws;

		if (!wal_path)
			return trace_fail(tr, TSR_ERR_NO_MEMORY, "out of memory");
		bool missing = stat(wal_path, &ws) != 0 || ws.st_size == 0;

		free(wal_path);
		if (missing)
			return trace_fail(tr, TSR_ERR_CORRUPT,
			                  "%s: its write-ahead log %s-wal is missing: the trace was not "
			                  "closed, so its events are in that file; copy it (and %s-shm) "
			                  "beside this one",
			                  pr->path, pr->path, pr->path);
	}
	if (json) {
		/* Chrome trace-event JSON, recognised by its first byte: read
		 * into a .pvti in memory (trace-chrome.c), kept as an image that a
		 * reopened handle shares (trace-image.c), then checked and read
		 * like a file. */
		if (!f->image) {
			sqlite3 *built = NULL;

			rc = trace_chrome_import(tr, p, &built);
			if (rc == TSR_OK)
				rc = trace_image_new(tr, &f->image, built, pr->path);
			sqlite3_close_v2(built);
			if (rc != TSR_OK)
				return rc;
		}
		/* Each handle holding the image counts it against its cap. */
		if (!charge(tr, trace_image_size(f->image))) {
			trace_image_unref(f->image);
			f->image = NULL;
			return tr->code;
		}
		if ((rc = trace_image_open(tr, &f->db, f->image, pr->path)) != TSR_OK)
			return rc;
	} else {
		rc = sqlite3_open_v2(pr->path, &f->db,
		                     SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE,
		                     NULL);
		if (rc != SQLITE_OK)
			return trace_sql_fail(tr, f->db, rc, pr->path);
	}
	f->tr = tr;
	rc = tsr_sqlite_lockdown(f->db, MAX_SQL_LENGTH);
	if (rc != SQLITE_OK)
		return trace_sql_fail(tr, f->db, rc, pr->path);
	if (f->image && (rc = trace_image_map(tr, f->db, f->image, pr->path)) != TSR_OK)
		return rc;
	f->vm_guard.budget = VM_BASE;
	if (stat(pr->path, &sb) == 0 && sb.st_size > 0)
		f->vm_guard.budget += (int64_t)sb.st_size * VM_PER_BYTE;
	if (f->vm_guard.budget > VM_MAX)
		f->vm_guard.budget = VM_MAX;
	sqlite3_progress_handler(f->db, VM_PERIOD, progress_cb, f);
	rc = query_int(tr, &app, p, "PRAGMA application_id");
	if (rc != TSR_OK)
		return rc;
	if (app == TSF_PROFILE_APPLICATION_ID)
		return trace_fail(tr, TSR_ERR_NOT_REPORT, "%s: a profile report, not a .pvti trace",
		                  pr->path);
	if (app != TSF_PVTI_APPLICATION_ID)
		return trace_fail(tr, TSR_ERR_NOT_REPORT,
		                  "%s: not a Tilescope trace (application id 0x%08llx)", pr->path,
		                  (unsigned long long)(uint32_t)app);
	rc = query_int(tr, &version, p, "PRAGMA user_version");
	if (rc != TSR_OK)
		return rc;
	if (version > TSF_PVTI_SCHEMA_VERSION)
		return trace_fail(tr, TSR_ERR_SCHEMA_TOO_NEW,
		                  "%s: trace schema version %lld is newer than this reader's (%d)",
		                  pr->path, (long long)version, TSF_PVTI_SCHEMA_VERSION);
	if (version < TSF_PVTI_SCHEMA_VERSION)
		return trace_fail(tr, TSR_ERR_SCHEMA_TOO_OLD,
		                  "%s: trace schema version %lld is older than this reader's (%d)",
		                  pr->path, (long long)version, TSF_PVTI_SCHEMA_VERSION);
	/* Before the first read of a table, and before the authorizer, which
	 * would refuse the table-valued pragma the check uses. */
	{
		char why[300];

		rc = tsr_sqlite_check_schema(f->db, tsf_pvti_schema_sql, why, sizeof(why));
		if (rc != SQLITE_OK)
			return trace_sql_fail(tr, f->db, rc, pr->path);
		if (why[0])
			return trace_fail(tr, TSR_ERR_CORRUPT,
			                  "%s: the file %s: refusing to read it", pr->path, why);
	}
	sqlite3_set_authorizer(f->db, tsr_authorize_cb, NULL); /* sqlite-lockdown.c */
	return TSR_OK;
}

/* Reads the one process row of file `p`. */
static int read_process(tsr_trace *tr, size_t p)
{
	tsr_trace_process *pr = &tr->processes[p];
	sqlite3_stmt *st = NULL;
	int rc = trace_prepare(tr, &st, p,
	                       "SELECT pid, host, name, command_line, start_wall_ns, start_mono_ns, "
	                       "clock, ticks_per_s FROM process LIMIT 2");

	if (rc != TSR_OK)
		goto cleanup;
	rc = step_row(tr, st, p);
	if (rc == SQLITE_DONE)
		rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: the process row is missing", pr->path);
	if (rc < 0)
		goto cleanup;
	if ((rc = column_int(tr, &pr->pid, st, 0, INT64_MIN, INT64_MAX, p, "process.pid")) ||
	    (rc = column_text(tr, &pr->host, st, 1, false, p, "process.host")) ||
	    (rc = column_text(tr, &pr->name, st, 2, false, p, "process.name")) ||
	    (rc = column_text(tr, &pr->command_line, st, 3, true, p, "process.command_line")) ||
	    (rc = column_int(tr, &pr->start_wall_ns, st, 4, 0, INT64_MAX, p,
	                     "process.start_wall_ns")) ||
	    (rc = column_int(tr, &pr->start_mono_ns, st, 5, INT64_MIN, INT64_MAX, p,
	                     "process.start_mono_ns")) ||
	    (rc = column_text(tr, &pr->clock, st, 6, false, p, "process.clock")))
		goto cleanup;
	pr->ticks_per_s = 0;
	if (sqlite3_column_type(st, 7) == SQLITE_FLOAT || sqlite3_column_type(st, 7) == SQLITE_INTEGER)
		pr->ticks_per_s = sqlite3_column_double(st, 7);
	else if (sqlite3_column_type(st, 7) != SQLITE_NULL)
		rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: process.ticks_per_s is not a number", pr->path);
	if (rc == TSR_OK && (rc = step_row(tr, st, p)) == SQLITE_ROW)
		rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: more than one process row", pr->path);
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/* Reads trace_metadata into the process; `complete` from its
 * pvti.complete key. The arrays stay with the handle (freed by
 * tsr_trace_free, which needs no sizes). */
static int read_metadata(tsr_trace *tr, size_t p)
{
	tsr_trace_process *pr = &tr->processes[p];
	sqlite3_stmt *st = NULL;
	const char **keys = NULL, **values = NULL;
	size_t cap = 0, n = 0;
	int rc = trace_prepare(tr, &st, p, "SELECT key, value FROM trace_metadata ORDER BY key");

	while (rc == TSR_OK && (rc = step_row(tr, st, p)) == SQLITE_ROW) {
		rc = TSR_OK;
		if (n == cap) {
			size_t grown = cap ? cap * 2 : 16;
			const char **k2 = trace_realloc(tr, keys, cap, grown, sizeof(*keys));

			if (!k2) {
				rc = tr->code;
				break;
			}
			keys = k2;
			k2 = trace_realloc(tr, values, cap, grown, sizeof(*values));
			if (!k2) {
				rc = tr->code;
				break;
			}
			values = k2;
			cap = grown;
		}
		if ((rc = column_text(tr, &keys[n], st, 0, false, p, "trace_metadata.key")) ||
		    (rc = column_text(tr, &values[n], st, 1, false, p, "trace_metadata.value")))
			break;
		if (strcmp(keys[n], "pvti.complete") == 0 && strcmp(values[n], "true") == 0)
			pr->complete = true;
		n++;
	}
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
	pr->metadata_keys = keys;
	pr->metadata_values = values;
	pr->n_metadata = rc == TSR_OK ? n : 0;
	sqlite3_finalize(st);
	return rc;
}

/* Reads the interned names of file `p` into its id map, merging them
 * with the other files' by text. */
static int read_strings(tsr_trace *tr, size_t p)
{
	trace_file *f = &tr->files[p];
	sqlite3_stmt *st = NULL;
	int64_t max_id = -1, rows = 0, id;
	const char *text;
	size_t i;
	int rc = trace_prepare(tr, &st, p, "SELECT max(id), count(*) FROM string");

	if (rc != TSR_OK || (rc = step_row(tr, st, p)) != SQLITE_ROW)
		goto cleanup;
	rc = TSR_OK;
	if (sqlite3_column_type(st, 0) != SQLITE_NULL &&
	    (rc = column_int(tr, &max_id, st, 0, 0, INT32_MAX - 1, p, "string.id")) != TSR_OK)
		goto cleanup;
	rows = sqlite3_column_int64(st, 1);
	if ((uint64_t)max_id + 1 > (uint64_t)rows * ID_SPARSENESS + ID_MARGIN) {
		rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: string ids up to %lld for %lld strings",
		                tr->processes[p].path, (long long)max_id, (long long)rows);
		goto cleanup;
	}
	sqlite3_finalize(st);
	st = NULL;
	f->n_names = (size_t)(max_id + 1);
	f->names = trace_alloc(tr, f->n_names, sizeof(*f->names));
	if (!f->names) {
		rc = tr->code;
		goto cleanup;
	}
	for (i = 0; i < f->n_names; i++)
		f->names[i] = TSR_TRACE_NO_NAME;
	rc = trace_prepare(tr, &st, p, "SELECT id, value FROM string");
	while (rc == TSR_OK && (rc = step_row(tr, st, p)) == SQLITE_ROW) {
		uint32_t name = 0;

		if (sqlite3_column_bytes(st, 1) > TSF_MAX_NAME_BYTES) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT,
			                "%s: a name is %d bytes long, more than the %d a trace may hold",
			                tr->processes[p].path, sqlite3_column_bytes(st, 1),
			                TSF_MAX_NAME_BYTES);
			break;
		}
		if ((rc = column_int(tr, &id, st, 0, 0, max_id, p, "string.id")) ||
		    (rc = column_text(tr, &text, st, 1, false, p, "string.value")) ||
		    (rc = intern_name(tr, &name, text)))
			break;
		f->names[id] = name;
	}
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/* Reads the channels of file `p`, merging them with the other files' by
 * name. The writer's channel ids fit 16 bits. */
static int read_channels(tsr_trace *tr, size_t p)
{
	trace_file *f = &tr->files[p];
	sqlite3_stmt *st = NULL;
	int64_t max_id = -1, id, enabled;
	const char *name;
	size_t i;
	int rc = query_int(tr, &max_id, p, "SELECT coalesce(max(id), -1) FROM channel");

	if (rc != TSR_OK)
		goto cleanup;
	if (max_id > UINT16_MAX) {
		rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: channel id %lld is out of range",
		                tr->processes[p].path, (long long)max_id);
		goto cleanup;
	}
	f->n_channels = (size_t)(max_id + 1);
	f->channels = trace_alloc(tr, f->n_channels, sizeof(*f->channels));
	if (!f->channels) {
		rc = tr->code;
		goto cleanup;
	}
	for (i = 0; i < f->n_channels; i++)
		f->channels[i] = UINT32_MAX;
	rc = trace_prepare(tr, &st, p, "SELECT id, name, enabled FROM channel");
	while (rc == TSR_OK && (rc = step_row(tr, st, p)) == SQLITE_ROW) {
		if ((rc = column_int(tr, &id, st, 0, 0, max_id, p, "channel.id")) ||
		    (rc = column_text(tr, &name, st, 1, false, p, "channel.name")) ||
		    (rc = column_int(tr, &enabled, st, 2, 0, 1, p, "channel.enabled")))
			break;
		for (i = 0; i < tr->n_channels; i++)
			if (strcmp(tr->channels[i].name, name) == 0)
				break;
		if (i == tr->n_channels) {
			tsr_trace_channel *grown = trace_realloc(tr, tr->channels, tr->n_channels,
			                                         tr->n_channels + 1, sizeof(*grown));

			if (!grown) {
				rc = tr->code;
				break;
			}
			tr->channels = grown;
			tr->channels[tr->n_channels++].name = name;
		}
		tr->channels[i].enabled |= enabled != 0;
		f->channels[id] = (uint32_t)i;
	}
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
cleanup:
	sqlite3_finalize(st);
	return rc;
}

/* Appends the threads of file `p` (ids strictly ascending) to the
 * handle's list. */
static int read_threads(tsr_trace *tr, size_t p)
{
	tsr_trace_process *pr = &tr->processes[p];
	trace_file *f = &tr->files[p];
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = trace_prepare(tr, &st, p, "SELECT id, tid, name, events FROM thread ORDER BY id");

	pr->first_thread = tr->n_threads;
	pr->n_threads = 0;
	while (rc == TSR_OK && (rc = step_row(tr, st, p)) == SQLITE_ROW) {
		tsr_trace_thread *t;
		int64_t id, events = -1;

		rc = TSR_OK;
		if (tr->n_threads % 64 == 0) {
			size_t n = tr->n_threads;
			tsr_trace_thread *grown = trace_realloc(tr, tr->threads, n, n + 64, sizeof(*grown));
			trace_thread_data *tgrown;

			if (!grown) {
				rc = tr->code;
				break;
			}
			tr->threads = grown;
			tgrown = trace_realloc(tr, tr->tdata, n, n + 64, sizeof(*tgrown));
			if (!tgrown) {
				rc = tr->code;
				break;
			}
			tr->tdata = tgrown;
		}
		if (pr->n_threads == cap) {
			size_t grown = cap ? cap * 2 : 16;
			int64_t *ids = trace_realloc(tr, f->thread_ids, cap, grown, sizeof(*ids));

			if (!ids) {
				rc = tr->code;
				break;
			}
			f->thread_ids = ids;
			cap = grown;
		}
		t = &tr->threads[tr->n_threads];
		t->process = p;
		if ((rc = column_int(tr, &id, st, 0, 0, INT64_MAX, p, "thread.id")) ||
		    (rc = column_int(tr, &t->tid, st, 1, INT64_MIN, INT64_MAX, p, "thread.tid")) ||
		    (rc = column_text(tr, &t->name, st, 2, false, p, "thread.name")))
			break;
		if (sqlite3_column_type(st, 3) != SQLITE_NULL &&
		    (rc = column_int(tr, &events, st, 3, 0, INT64_MAX, p, "thread.events")))
			break;
		if (pr->n_threads && id <= f->thread_ids[pr->n_threads - 1]) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: thread id %lld repeats", pr->path,
			                (long long)id);
			break;
		}
		t->id = id;
		/* thread.events is checked against the chunks once they are read;
		 * until then it is kept in `events` with the top bit as "absent". */
		t->events = events < 0 ? UINT64_MAX : (uint64_t)events;
		f->thread_ids[pr->n_threads++] = id;
		tr->n_threads++;
	}
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
	sqlite3_finalize(st);
	return rc;
}

/* Appends the counter series of file `p`, with their graphs' names. */
static int read_series(tsr_trace *tr, size_t p)
{
	sqlite3_stmt *st = NULL;
	int rc = trace_prepare(tr, &st, p,
	                       "SELECT s.id, g.id, g.name, g.unit, s.name FROM series AS s "
	                       "LEFT JOIN graph AS g ON g.id = s.graph ORDER BY s.id");

	while (rc == TSR_OK && (rc = step_row(tr, st, p)) == SQLITE_ROW) {
		tsr_trace_series *s;
		trace_series_data *sd;
		int64_t id, graph;

		rc = TSR_OK;
		if (tr->n_series % 16 == 0) {
			size_t n = tr->n_series;
			tsr_trace_series *grown = trace_realloc(tr, tr->series, n, n + 16, sizeof(*grown));
			trace_series_data *sgrown;

			if (!grown) {
				rc = tr->code;
				break;
			}
			tr->series = grown;
			sgrown = trace_realloc(tr, tr->sdata, n, n + 16, sizeof(*sgrown));
			if (!sgrown) {
				rc = tr->code;
				break;
			}
			tr->sdata = sgrown;
		}
		s = &tr->series[tr->n_series];
		sd = &tr->sdata[tr->n_series];
		if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: a series names a graph that does not exist",
			                tr->processes[p].path);
			break;
		}
		if ((rc = column_int(tr, &id, st, 0, INT64_MIN, INT64_MAX, p, "series.id")) ||
		    (rc = column_int(tr, &graph, st, 1, INT64_MIN, INT64_MAX, p, "graph.id")) ||
		    (rc = column_text(tr, &s->graph, st, 2, false, p, "graph.name")) ||
		    (rc = column_text(tr, &s->unit, st, 3, false, p, "graph.unit")) ||
		    (rc = column_text(tr, &s->name, st, 4, false, p, "series.name")))
			break;
		s->process = p;
		sd->id = id;
		tr->n_series++;
	}
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
	sqlite3_finalize(st);
	return rc;
}

/* Write order: by id. */
static int compare_chunks(const void *a, const void *b)
{
	const trace_chunk *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/*
 * Reads the chunk index of file `p`, never the blobs (their lengths and
 * contents are checked when they are decoded): how many chunks each
 * thread has (from the covering index), then every row, checked: a known
 * thread, first_ns <= last_ns, a count of at least one, unique ids. The
 * query names no blob and asks for no order, so a covering index on these
 * columns answers it without reading the table; the order (write order)
 * is made here.
 */
static int read_chunks(tsr_trace *tr, size_t p)
{
	tsr_trace_process *pr = &tr->processes[p];
	sqlite3_stmt *st = NULL;
	size_t *cap = NULL, t, i;
	int rc = trace_prepare(tr, &st, p, "SELECT thread, count(*) FROM event_chunk GROUP BY thread");

	cap = trace_alloc(tr, pr->n_threads, sizeof(*cap));
	if (!cap)
		rc = tr->code;
	while (rc == TSR_OK && (rc = step_row(tr, st, p)) == SQLITE_ROW) {
		int64_t thread, n;

		if ((rc = column_int(tr, &thread, st, 0, INT64_MIN, INT64_MAX, p, "event_chunk.thread")) ||
		    (rc = trace_map_thread(tr, &t, p, thread)) ||
		    (rc = column_int(tr, &n, st, 1, 0, INT64_MAX, p, "chunk count")))
			break;
		if ((uint64_t)n > SIZE_MAX / sizeof(trace_chunk)) {
			rc = trace_fail(tr, TSR_ERR_TOO_LARGE, "%s: too many chunks", pr->path);
			break;
		}
		tr->tdata[t].chunks = trace_alloc(tr, (size_t)n, sizeof(trace_chunk));
		if (!tr->tdata[t].chunks) {
			rc = tr->code;
			break;
		}
		cap[t - pr->first_thread] = (size_t)n;
	}
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
	sqlite3_finalize(st);
	st = NULL;
	if (rc != TSR_OK)
		goto cleanup;
	rc = trace_prepare(tr, &st, p,
	                   "SELECT id, thread, first_ns, last_ns, count FROM event_chunk");
	while (rc == TSR_OK && (rc = step_row(tr, st, p)) == SQLITE_ROW) {
		int64_t thread, first, last, count;
		trace_thread_data *td;
		tsr_trace_thread *th;
		trace_chunk *c;

		if ((rc = column_int(tr, &thread, st, 1, INT64_MIN, INT64_MAX, p, "event_chunk.thread")) ||
		    (rc = trace_map_thread(tr, &t, p, thread)))
			break;
		td = &tr->tdata[t];
		th = &tr->threads[t];
		if (td->n_chunks >= cap[t - pr->first_thread]) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: the chunk index disagrees with its table",
			                pr->path);
			break;
		}
		c = &td->chunks[td->n_chunks];
		if ((rc = column_int(tr, &c->id, st, 0, INT64_MIN, INT64_MAX, p, "event_chunk.id")) ||
		    (rc = column_int(tr, &first, st, 2, INT64_MIN, INT64_MAX, p, "event_chunk.first_ns")) ||
		    (rc = column_int(tr, &last, st, 3, first, INT64_MAX, p, "event_chunk.last_ns")) ||
		    (rc = column_int(tr, &count, st, 4, 1, UINT32_MAX, p, "event_chunk.count")) ||
		    (rc = trace_to_axis(tr, &c->first_ns, p, first, "event_chunk.first_ns")) ||
		    (rc = trace_to_axis(tr, &c->last_ns, p, last, "event_chunk.last_ns")))
			break;
		c->count = (uint32_t)count;
		if (td->n_chunks == 0 || c->first_ns < th->first_ns)
			th->first_ns = c->first_ns;
		if (td->n_chunks == 0 || c->last_ns > th->last_ns)
			th->last_ns = c->last_ns;
		td->n_chunks++;
	}
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
	/* Per thread: the count of events, checked against thread.events. */
	for (i = 0; rc == TSR_OK && i < pr->n_threads; i++) {
		tsr_trace_thread *th = &tr->threads[pr->first_thread + i];
		const trace_thread_data *td = &tr->tdata[pr->first_thread + i];
		uint64_t sum = 0;
		size_t k;

		if (td->n_chunks != cap[i]) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: the chunk index disagrees with its table",
			                pr->path);
			break;
		}
		if (td->n_chunks > 1)
			qsort(td->chunks, td->n_chunks, sizeof(*td->chunks), compare_chunks);
		for (k = 0; k < td->n_chunks; k++) {
			sum += td->chunks[k].count; /* < 2^32 x 2^32: no overflow in practice */
			if (k && td->chunks[k].id == td->chunks[k - 1].id) {
				rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: chunk id %lld repeats", pr->path,
				                (long long)td->chunks[k].id);
				break;
			}
		}
		if (rc != TSR_OK)
			break;
		if (th->events != UINT64_MAX && th->events != sum) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT,
			                "%s: thread %lld says it has %llu events, its chunks hold %llu",
			                pr->path, (long long)th->id, (unsigned long long)th->events,
			                (unsigned long long)sum);
			break;
		}
		th->events = sum;
		if (!sum)
			th->first_ns = th->last_ns = 0;
	}
cleanup:
	sqlite3_finalize(st);
	trace_free_mem(tr, cap, pr->n_threads * sizeof(*cap));
	return rc;
}

/* Widens [info.start_ns, info.end_ns] with the instants, samples and
 * heatmap samples of file `p` (min / max through their time indexes). */
static int read_time_range(tsr_trace *tr, size_t p, bool *any)
{
	static const char *const sql[] = {
		"SELECT min(t_ns) FROM instant", "SELECT max(t_ns) FROM instant",
		"SELECT min(t_ns) FROM sample WHERE series = ?",
		"SELECT max(t_ns) FROM sample WHERE series = ?",
		/* heatmap samples, through the (heatmap, t_ns) index */
		"SELECT min((SELECT min(t_ns) FROM heatmap_sample WHERE heatmap = h.id)) FROM heatmap h",
		"SELECT max((SELECT max(t_ns) FROM heatmap_sample WHERE heatmap = h.id)) FROM heatmap h",
	};
	sqlite3_stmt *st = NULL;
	size_t q, s;
	int rc = TSR_OK;

	for (q = 0; q < 6 && rc == TSR_OK; q++) {
		size_t n = q == 2 || q == 3 ? tr->n_series : 1;

		rc = trace_prepare(tr, &st, p, sql[q]);
		for (s = 0; s < n && rc == TSR_OK; s++) {
			int64_t t = 0, axis = 0;

			if (q == 2 || q == 3) {
				if (tr->series[s].process != p)
					continue;
				trace_restart(st);
				sqlite3_bind_int64(st, 1, tr->sdata[s].id);
			}
			rc = step_row(tr, st, p);
			if (rc != SQLITE_ROW) {
				rc = rc == SQLITE_DONE ? TSR_OK : rc;
				continue;
			}
			rc = TSR_OK;
			if (sqlite3_column_type(st, 0) == SQLITE_NULL)
				continue;
			if ((rc = column_int(tr, &t, st, 0, INT64_MIN, INT64_MAX, p, "t_ns")) ||
			    (rc = trace_to_axis(tr, &axis, p, t, "t_ns")))
				break;
			if (!*any || axis < tr->info.start_ns)
				tr->info.start_ns = axis;
			if (!*any || axis > tr->info.end_ns)
				tr->info.end_ns = axis;
			*any = true;
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	return rc;
}

/* --- Paths ------------------------------------------------------------------------ */

/* strcmp for qsort over an array of strings. */
static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends `path` (a copy in the pool) to the list. */
static int append_path(tsr_trace *tr, const char ***list, size_t *n, size_t *cap,
                       const char *path)
{
	const char *full = pool_strdup(tr, path, strlen(path));

	if (!full)
		return tr->code;
	if (*n == *cap) {
		size_t grown = *cap ? *cap * 2 : 8;
		const char **l = trace_realloc(tr, *list, *cap, grown, sizeof(*l));

		if (!l)
			return tr->code;
		*list = l;
		*cap = grown;
	}
	(*list)[(*n)++] = full;
	return TSR_OK;
}

/* Whether `name` ends in ".pvti" (and is more than that). */
static bool is_pvti_name(const char *name)
{
	size_t len = strlen(name);

	return len > 5 && strcmp(name + len - 5, ".pvti") == 0;
}

/*
 * Appends the traces of directory `path` of one kind: its regular files
 * named *.pvti (`json` false), or those of its other regular files that
 * hold Chrome trace-event JSON by their content (trace_chrome_sniff_trace:
 * not any JSON, which a directory of results often holds too).
 * Subdirectories are not entered.
 */
static int scan_dir(tsr_trace *tr, const char ***list, size_t *n, size_t *cap, const char *path,
                    bool json)
{
	DIR *d = opendir(path);
	struct dirent *e;
	struct stat sb;
	int rc = TSR_OK;

	if (!d)
		return trace_fail(tr, TSR_ERR_IO, "%s: %s", path, strerror(errno));
	while (rc == TSR_OK && (e = readdir(d))) {
		char *full = NULL;

		if (is_pvti_name(e->d_name) == json)
			continue;
		if (!(full = tsb_asprintf("%s/%s", path, e->d_name))) {
			rc = trace_fail(tr, TSR_ERR_NO_MEMORY, "out of memory");
			break;
		}
		if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    (!json || trace_chrome_sniff_trace(full)))
			rc = append_path(tr, list, n, cap, full);
		free(full);
	}
	closedir(d);
	return rc;
}

/*
 * Appends `path` to the list of files, or the traces of the directory it
 * names, sorted by name (trace.h): its *.pvti files; when it has none,
 * its files holding Chrome trace-event JSON. Not both: a JSON file beside
 * .pvti files is most often their export (`tilescope export
 * --chrome-trace`), and taking it too would count every span twice.
 */
static int add_path(tsr_trace *tr, const char ***list, size_t *n, size_t *cap, const char *path)
{
	struct stat sb;
	size_t before = *n;
	int rc;

	if (stat(path, &sb) != 0)
		return trace_fail(tr, errno == ENOENT || errno == ENOTDIR ? TSR_ERR_NOT_FOUND : TSR_ERR_IO,
		                  "%s: %s", path, strerror(errno));
	if (!S_ISDIR(sb.st_mode)) {
		/* A FIFO or a device would block or never end. */
		if (!S_ISREG(sb.st_mode))
			return trace_fail(tr, TSR_ERR_NOT_SQLITE, "%s: not a regular file", path);
		return append_path(tr, list, n, cap, path);
	}
	rc = scan_dir(tr, list, n, cap, path, false);
	if (rc == TSR_OK && *n == before)
		rc = scan_dir(tr, list, n, cap, path, true);
	if (rc == TSR_OK && *n == before)
		rc = trace_fail(tr, TSR_ERR_NOT_FOUND,
		                "%s: no trace in this directory (no .pvti file, and no file of "
		                "Chrome trace-event JSON)",
		                path);
	if (rc == TSR_OK)
		qsort(*list + before, *n - before, sizeof(**list), compare_strings);
	return rc;
}

/* Whether the regular files `a` and `b`, of one size, hold the same
 * bytes (read through once, stopping at the first difference). */
static bool same_bytes(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rbe"), *fb = fopen(b, "rbe");
	char ba[16384], bb[16384];
	bool same = fa && fb;

	while (same) {
		size_t na = fread(ba, 1, sizeof(ba), fa), nb = fread(bb, 1, sizeof(bb), fb);

		same = na == nb && memcmp(ba, bb, na) == 0 && !ferror(fa) && !ferror(fb);
		if (na < sizeof(ba))
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/*
 * Keeps the first of files that are one file (same device and inode:
 * "tr.pvti ./tr.pvti", a directory and a file in it, a hard link) or one
 * recording (byte for byte copies: a trace copied into a second
 * directory; two recordings are never identical), so no process is
 * counted twice, in the CLI and the apps alike. Returns the new count.
 * Quadratic, over the handful of files a user names; only files of one
 * size are read.
 */
static size_t drop_duplicates(const char **list, size_t n)
{
	struct stat a, b;
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		bool dup = false;

		if (stat(list[i], &a) == 0)
			for (size_t j = 0; j < kept && !dup; j++)
				dup = stat(list[j], &b) == 0 &&
				      ((a.st_dev == b.st_dev && a.st_ino == b.st_ino) ||
				       (S_ISREG(a.st_mode) && S_ISREG(b.st_mode) &&
				        a.st_size == b.st_size && same_bytes(list[i], list[j])));
		if (!dup)
			list[kept++] = list[i];
	}
	return kept;
}

/* --- The handle ----------------------------------------------------------------------- */

/* The progress state's cancel hook: stops whatever statement of the
 * handle's files is running (progress.c). */
static void interrupt_trace(void *data)
{
	tsr_trace *tr = data;

	for (size_t p = 0; tr->files && p < tr->n_processes; p++)
		if (tr->files[p].db)
			sqlite3_interrupt(tr->files[p].db);
}

/*
 * Opens a handle over paths[0..n_paths) (see trace.h), or, when `src` is
 * given, over the files `src` holds, sharing its images (tsr_trace_reopen;
 * `paths` is then unused). The two passes are described at the top of
 * this file; each file is read inside one read transaction, so a trace
 * still being written is seen at one moment.
 */
static int open_handle(tsr_trace **out, const char *const *paths, size_t n_paths,
                       const tsr_trace *src, const tsr_trace_open_options *opts)
{
	tsr_trace *tr = NULL;
	tsr_progress_frame frame;
	const char **list = NULL;
	size_t n = 0, cap = 0, p, i;
	int64_t origin = INT64_MAX;
	double share = 0.05;       /* of the bar for opening the files */
	bool any = false, pushed = false;
	int rc = TSR_OK;

	/* Version 1 callers' structs end after memory_cap. */
	if (opts && (opts->version < 1 || opts->version > TSR_TRACE_OPEN_OPTIONS_VERSION))
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT,
		                          "tsr_trace_open: options version %u is not 1 to %u",
		                          opts->version, TSR_TRACE_OPEN_OPTIONS_VERSION);
	if (tsr_sqlite_init() != SQLITE_OK)
		return tsr_set_last_error(TSR_ERR_IO, "tsr_trace_open: SQLite cannot be used: %s",
		                          tsr_sqlite_init_error());
	tr = tsb_calloc(1, sizeof(*tr));
	if (!tr)
		return tsr_set_last_error(TSR_ERR_NO_MEMORY, "tsr_trace_open: out of memory");
	tr->memory_cap = opts && opts->memory_cap ? opts->memory_cap : DEFAULT_MEMORY_CAP;
	tr->progress.interrupt = interrupt_trace;
	tr->progress.interrupt_data = tr;
	if (opts && opts->version >= 2)
		tsr_progress_set(&tr->progress, opts->progress, opts->progress_data);
	pushed = true;
	if (tsr_progress_push(&tr->progress, &frame, "opening the trace"))
		rc = trace_fail_cancelled(tr);
	if (src) {
		/* The same files in the same order: already listed, expanded and
		 * without duplicates. */
		list = trace_alloc(tr, src->n_processes, sizeof(*list));
		if (!list)
			rc = tr->code;
		for (p = 0; rc == TSR_OK && p < src->n_processes; p++) {
			const char *path = src->processes[p].path;

			if (!(list[n++] = pool_strdup(tr, path, strlen(path))))
				rc = tr->code;
		}
	} else {
		for (i = 0; i < n_paths && rc == TSR_OK; i++)
			rc = paths[i] ? add_path(tr, &list, &n, &cap, paths[i])
			              : trace_fail(tr, TSR_ERR_INVALID_ARGUMENT,
			                           "tsr_trace_open: a NULL path");
		if (rc == TSR_OK)
			n = drop_duplicates(list, n);
	}
	if (rc != TSR_OK)
		goto cleanup;
	tr->processes = trace_alloc(tr, n, sizeof(*tr->processes));
	tr->files = trace_alloc(tr, n, sizeof(*tr->files));
	if (!tr->processes || !tr->files) {
		rc = tr->code;
		goto cleanup;
	}
	tr->n_processes = n;
	for (p = 0; src && p < n; p++)
		tr->files[p].image = trace_image_ref(src->files[p].image);
	/* Parts: opening the files 5 %, their tables and chunk indexes 85 %,
	 * instants and samples 5 %, the chunk trees 5 %. Reading a Chrome JSON
	 * file is most of the work when there is one: opening gets 80 %. */
	for (p = 0; p < n; p++) {
		tr->files[p].json = tr->files[p].image || trace_chrome_sniff(list[p]);
		if (tr->files[p].json && !tr->files[p].image)
			share = 0.80;
	}
	for (p = 0; p < n && rc == TSR_OK; p++) {
		bool json = tr->files[p].json && !tr->files[p].image;

		tr->processes[p].path = list[p];
		if (tsr_progress_step(&tr->progress, share * (double)p / (double)n,
		                      share * (double)(p + 1) / (double)n,
		                      json ? "reading the JSON trace" : "opening the files")) {
			rc = trace_fail_cancelled(tr);
			break;
		}
		if ((rc = open_file(tr, p)) == TSR_OK &&
		    (rc = sqlite3_exec(tr->files[p].db, "BEGIN", NULL, NULL, NULL)) != SQLITE_OK)
			rc = trace_sql_fail(tr, tr->files[p].db, rc, list[p]);
		if (rc == TSR_OK)
			rc = read_process(tr, p);
		if (rc == TSR_OK && tr->processes[p].start_wall_ns < origin)
			origin = tr->processes[p].start_wall_ns;
	}
	if (rc != TSR_OK)
		goto cleanup;
	tr->info.origin_wall_ns = origin;
	for (p = 0; p < n && rc == TSR_OK; p++) {
		tr->processes[p].offset_ns = tr->processes[p].start_wall_ns - origin;
		if (tsr_progress_step(&tr->progress, share + (0.90 - share) * (double)p / (double)n,
		                      share + (0.90 - share) * (double)(p + 1) / (double)n,
		                      "reading the chunk index")) {
			rc = trace_fail_cancelled(tr);
			break;
		}
		if ((rc = read_metadata(tr, p)) || (rc = read_strings(tr, p)) ||
		    (rc = read_channels(tr, p)) || (rc = read_threads(tr, p)) ||
		    (rc = read_series(tr, p)) || (rc = read_chunks(tr, p)))
			break;
	}
	if (rc == TSR_OK &&
	    tsr_progress_step(&tr->progress, 0.90, 0.95, "reading instants and samples"))
		rc = trace_fail_cancelled(tr);
	for (p = 0; p < n && rc == TSR_OK; p++)
		rc = read_time_range(tr, p, &any);
	for (p = 0; p < n; p++)
		if (tr->files[p].db)
			sqlite3_exec(tr->files[p].db, "COMMIT", NULL, NULL, NULL);
	if (rc == TSR_OK && tsr_progress_step(&tr->progress, 0.95, 1.0, "indexing the chunks"))
		rc = trace_fail_cancelled(tr);
	if (rc != TSR_OK || (rc = trace_build_trees(tr)) != TSR_OK)
		goto cleanup;
	tr->info.complete = true;
	for (p = 0; p < n; p++)
		tr->info.complete &= tr->processes[p].complete;
	for (i = 0; i < tr->n_threads; i++) {
		const tsr_trace_thread *t = &tr->threads[i];

		if (!t->events)
			continue;
		tr->info.events += t->events;
		if (!any || t->first_ns < tr->info.start_ns)
			tr->info.start_ns = t->first_ns;
		if (!any || t->last_ns > tr->info.end_ns)
			tr->info.end_ns = t->last_ns;
		any = true;
	}
	tr->info.processes = tr->n_processes;
	tr->info.threads = tr->n_threads;
	tr->info.channels = tr->n_channels;
	tr->info.names = tr->n_names;
	tr->info.series = tr->n_series;
	tr->error[0] = '\0';
	tsr_progress_pop(&tr->progress, &frame, true);
	pushed = false;
	*out = tr;
	tr = NULL;
cleanup:
	if (pushed)
		tsr_progress_pop(&tr->progress, &frame, false);
	free(list);
	if (tr && rc == TSR_OK)
		rc = TSR_ERR_NO_MEMORY;
	if (tr)
		tsr_set_last_error(rc, "%s", tr->error[0] ? tr->error : "tsr_trace_open failed");
	tsr_trace_free(tr);
	return rc;
}

int tsr_trace_open(tsr_trace **out, const char *const *paths, size_t n_paths,
                   const tsr_trace_open_options *opts)
{
	if (out)
		*out = NULL;
	if (!out || !paths || n_paths == 0)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "tsr_trace_open: no trace given");
	return open_handle(out, paths, n_paths, NULL, opts);
}

int tsr_trace_reopen(tsr_trace **out, const tsr_trace *trace, const tsr_trace_open_options *opts)
{
	if (out)
		*out = NULL;
	if (!out || !trace)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "tsr_trace_reopen: no trace given");
	return open_handle(out, NULL, 0, trace, opts);
}

/* Frees everything; memory counts no longer matter, so sizes are not
 * needed. */
void tsr_trace_free(tsr_trace *tr)
{
	size_t i;

	if (!tr)
		return;
	for (i = 0; tr->files && i < tr->n_processes; i++) {
		trace_file *f = &tr->files[i];

		sqlite3_finalize(f->chunk_st);
		sqlite3_close(f->db);
		trace_image_unref(f->image); /* after the connection reading it */
		free(f->names);
		free(f->channels);
		free(f->thread_ids);
		free((void *)tr->processes[i].metadata_keys);
		free((void *)tr->processes[i].metadata_values);
	}
	for (i = 0; tr->tdata && i < tr->n_threads; i++)
		trace_thread_data_clear(tr, &tr->tdata[i]);
	for (i = 0; tr->sdata && i < tr->n_series; i++)
		trace_series_data_clear(tr, &tr->sdata[i]);
	trace_heatmaps_free(tr);
	while (tr->pool) {
		trace_pool_block *next = tr->pool->next;

		free(tr->pool);
		tr->pool = next;
	}
	free(tr->files);
	free(tr->processes);
	free(tr->threads);
	free(tr->tdata);
	free(tr->channels);
	free(tr->names);
	tsb_hashmap_free(tr->name_ids);
	free(tr->series);
	free(tr->sdata);
	free(tr->stats_totals);
	free(tr);
}

/* The callback for the later calls (trace.h). */
int tsr_trace_set_progress(tsr_trace *tr, tsr_progress_cb cb, void *user_data)
{
	if (!tr)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "tsr_trace_set_progress: no trace");
	tsr_progress_set(&tr->progress, cb, user_data);
	return TSR_OK;
}

/* The handle's last failure message; "" for none (and for NULL). */
const char *tsr_trace_error(const tsr_trace *tr)
{
	return tr ? tr->error : "";
}

/* Totals filled at open. */
const tsr_trace_info *tsr_trace_get_info(const tsr_trace *tr)
{
	return tr ? &tr->info : NULL;
}

/* The lists: borrowed arrays of the handle. */
int tsr_trace_get_processes(const tsr_trace_process **out, size_t *n, tsr_trace *tr)
{
	if (!tr || !out || !n)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = tr->processes;
	*n = tr->n_processes;
	return TSR_OK;
}

/* Threads by process, then thread id. */
int tsr_trace_get_threads(const tsr_trace_thread **out, size_t *n, tsr_trace *tr)
{
	if (!tr || !out || !n)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = tr->threads;
	*n = tr->n_threads;
	return TSR_OK;
}

/* Channels in the order first met. */
int tsr_trace_get_channels(const tsr_trace_channel **out, size_t *n, tsr_trace *tr)
{
	if (!tr || !out || !n)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = tr->channels;
	*n = tr->n_channels;
	return TSR_OK;
}

/* Series by process, then series id. */
int tsr_trace_get_series(const tsr_trace_series **out, size_t *n, tsr_trace *tr)
{
	if (!tr || !out || !n)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = tr->series;
	*n = tr->n_series;
	return TSR_OK;
}

/* A merged name by id. */
const char *tsr_trace_get_name(const tsr_trace *tr, uint32_t id)
{
	return tr && id < tr->n_names ? tr->names[id] : NULL;
}

/* Binary search: the keys are sorted (ORDER BY key). */
const char *tsr_trace_lookup_metadata(const tsr_trace *tr, size_t process, const char *key)
{
	const tsr_trace_process *pr;
	size_t lo = 0, hi;

	if (!tr || !key || process >= tr->n_processes)
		return NULL;
	pr = &tr->processes[process];
	hi = pr->n_metadata;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(pr->metadata_keys[mid], key);

		if (c == 0)
			return pr->metadata_values[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Looks the row up by its primary key (thread, seq). */
int tsr_trace_dup_event_metadata(char **json, tsr_trace *tr, size_t thread, int64_t seq)
{
	sqlite3_stmt *st = NULL;
	const tsr_trace_thread *t;
	int rc;

	if (!tr || !json)
		return TSR_ERR_INVALID_ARGUMENT;
	*json = NULL;
	if (thread >= tr->n_threads)
		return trace_fail(tr, TSR_ERR_OUT_OF_RANGE, "thread %zu is past the end (%zu)", thread,
		                  tr->n_threads);
	t = &tr->threads[thread];
	rc = trace_prepare(tr, &st, t->process,
	                   "SELECT json FROM event_metadata WHERE thread = ? AND seq = ?");
	if (rc != TSR_OK)
		goto cleanup;
	sqlite3_bind_int64(st, 1, t->id);
	sqlite3_bind_int64(st, 2, seq);
	rc = step_row(tr, st, t->process);
	if (rc == SQLITE_ROW) {
		const unsigned char *text = sqlite3_column_text(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);

		rc = TSR_OK;
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT || !text) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: event_metadata.json is not text",
			                tr->processes[t->process].path);
		} else if (!(*json = tsb_malloc(len + 1))) {
			rc = trace_fail(tr, TSR_ERR_NO_MEMORY, "out of memory");
		} else {
			memcpy(*json, text, len);
			(*json)[len] = '\0';
		}
	} else if (rc == SQLITE_DONE) {
		rc = TSR_OK;
	}
cleanup:
	sqlite3_finalize(st);
	return rc;
}
