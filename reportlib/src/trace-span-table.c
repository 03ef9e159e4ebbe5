/*
 * The `span` table of a trace's query connection (issue 27 item 6): one
 * row per span of the file, the slice model of db-schema/pvti.sql that
 * the file itself stores only as packed chunks, so that
 * `SELECT name, sum(dur_ns) FROM span GROUP BY name` works in
 * `tilescope sql` and tsr_trace_query.
 *
 * The rows are the spans reportlib's own decoder gives everything else
 * (trace_decode_chunk: the same checks, the same ids), read one chunk at
 * a time into one buffer per cursor: a scan holds one chunk's spans
 * (at most the writer's 65,536), never the trace. Times are moved back
 * from the handle's merged axis onto the file's own nanoseconds, as every
 * other table of the file has them.
 *
 * It is an eponymous-only virtual table (no xCreate): nothing of it is in
 * the file, whose own virtual tables the schema check refuses, and it
 * cannot be used from any schema object (SQLITE_VTAB_DIRECTONLY). A
 * caller's statement reads it under the caller's authorizer, which lets
 * it through by name (sql-query.c), and within the statement's bounds:
 * decoding runs between the statement's steps, so the progress handler
 * still sees the time limit, the memory limit and a cancel.
 *
 * Ids. A span is (thread, seq) in its file; its row id packs the two as
 * thread * 2^32 + seq, so that `parent` (the enclosing span's id) joins
 * on `id`. A WHERE on thread decodes only that thread's chunks. An
 * equality on id (the join on parent) is a lookup: the first one on a
 * thread decodes its chunks once to note each chunk's least and greatest
 * seq (16 bytes a chunk, kept for the connection), and a lookup then
 * searches the chunks whose range holds the seq, each decoded and sorted
 * by seq into a small cache of the cursor's (a parent is most often in
 * the chunk of its children or one of a few long outer spans').
 */
#include "trace-private.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
/* The columns, in the order of the declaration below. */
enum {
	SPAN_ID,
	SPAN_THREAD,
	SPAN_THREAD_NAME,
	SPAN_PID,
	SPAN_SEQ,
	SPAN_NAME,
	SPAN_CHANNEL,
	SPAN_START,
	SPAN_END,
	SPAN_DUR,
	SPAN_DEPTH,
	SPAN_PARENT,
};

/* Bits of an id below the thread's. */
#define SPAN_SEQ_BITS 32
/* idxNum flags: argv[0] is a thread id, or an id whose thread to scan. */
#define SPAN_BY_THREAD 1
#define SPAN_BY_ID 2

/* Decoded chunks a cursor keeps for lookups by id. */
#define SPAN_CACHE 4

/* The least and greatest seq of each chunk of a thread (for lookups). */
typedef struct span_seq_range {
	int64_t *lo, *hi;          /* trace_alloc'd, n_chunks each; NULL: not built */
} span_seq_range;

typedef struct span_vtab {
	sqlite3_vtab base;
	trace_file *f;             /* the file the connection reads */
	span_seq_range *ranges;    /* per thread of the file (trace_alloc'd); NULL: none yet */
} span_vtab;

/* A chunk decoded and sorted by seq, for lookups. */
typedef struct span_cached {
	size_t thread, chunk;      /* which (thread SIZE_MAX: empty slot) */
	trace_event *ev;           /* trace_alloc'd, cap of them; n used */
	size_t cap, n;
	uint64_t used;             /* the cursor's clock at its last use (LRU) */
} span_cached;

typedef struct span_cursor {
	sqlite3_vtab_cursor base;
	size_t file;               /* index of the file in the handle */
	size_t thread, end_thread; /* handle thread indexes being scanned, [thread, end) */
	size_t chunk;              /* the next chunk of `thread` to decode */
	trace_event *buf;          /* the current chunk's spans (trace_alloc'd, cap of them) */
	size_t cap, n, i;          /* spans in buf, and the current one */
	const trace_event *cur;    /* the current row */
	bool eof;
	bool lookup;               /* one row by id: the next one is the end */
	span_cached cache[SPAN_CACHE];
	uint64_t clock;
} span_cursor;

/* Declares the columns. `aux` is the trace_file. */
static int span_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err)
{
	span_vtab *v;
	int rc;

	(void)argc;
	(void)argv;
	(void)err;
	rc = sqlite3_declare_vtab(db, "CREATE TABLE x(id INTEGER, thread INTEGER, thread_name TEXT, "
	                              "pid INTEGER, seq INTEGER, name TEXT, channel TEXT, "
	                              "start_ns INTEGER, end_ns INTEGER, dur_ns INTEGER, "
	                              "depth INTEGER, parent INTEGER)");
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
	v = sqlite3_malloc(sizeof(*v));
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->f = aux;
	*out = &v->base;
	return SQLITE_OK;
}

static int span_disconnect(sqlite3_vtab *vt)
{
	span_vtab *v = (span_vtab *)vt;
	tsr_trace *tr = v->f->tr;
	const tsr_trace_process *pr = &tr->processes[v->f - tr->files];

	for (size_t j = 0; v->ranges && j < pr->n_threads; j++) {
		size_t n = tr->tdata[pr->first_thread + j].n_chunks;

		trace_free_mem(tr, v->ranges[j].lo, (n ? n : 1) * sizeof(int64_t));
		trace_free_mem(tr, v->ranges[j].hi, (n ? n : 1) * sizeof(int64_t));
	}
	if (v->ranges)
		trace_free_mem(tr, v->ranges, (pr->n_threads ? pr->n_threads : 1) * sizeof(*v->ranges));
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* An equality on id is a lookup of one row (see the top); else one on
 * thread narrows the scan to that thread. SQLite still checks either on
 * every row (no omit), so a value of another type than an integer only
 * costs the narrowing. */
static int span_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	const span_vtab *v = (const span_vtab *)vt;
	const tsr_trace *tr = v->f->tr;
	const tsr_trace_process *pr = &tr->processes[v->f - tr->files];
	double rows = 0;
	int by_thread = -1, by_id = -1;

	for (size_t t = pr->first_thread; t < pr->first_thread + pr->n_threads; t++)
		rows += (double)tr->threads[t].events;
	for (int i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *k = &info->aConstraint[i];

		if (!k->usable || k->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (k->iColumn == SPAN_THREAD)
			by_thread = i;
		else if (k->iColumn == SPAN_ID)
			by_id = i;
	}
	if (by_id >= 0) {
		info->idxNum = SPAN_BY_ID;
		info->aConstraintUsage[by_id].argvIndex = 1;
		info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
		info->estimatedRows = 1;
		info->estimatedCost = 20;
		return SQLITE_OK;
	}
	if (by_thread >= 0) {
		info->idxNum = SPAN_BY_THREAD;
		info->aConstraintUsage[by_thread].argvIndex = 1;
		rows = pr->n_threads ? rows / (double)pr->n_threads : 0;
	}
	info->estimatedRows = (sqlite3_int64)(rows + 1);
	info->estimatedCost = rows + 100;
	return SQLITE_OK;
}

static int span_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	const span_vtab *v = (const span_vtab *)vt;
	span_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->file = (size_t)(v->f - v->f->tr->files);
	c->eof = true;
	for (size_t k = 0; k < SPAN_CACHE; k++)
		c->cache[k].thread = SIZE_MAX;
	*out = &c->base;
	return SQLITE_OK;
}

static int span_close(sqlite3_vtab_cursor *cur)
{
	span_cursor *c = (span_cursor *)cur;
	const span_vtab *v = (const span_vtab *)cur->pVtab;

	trace_free_mem(v->f->tr, c->buf, c->cap * sizeof(*c->buf));
	for (size_t k = 0; k < SPAN_CACHE; k++)
		trace_free_mem(v->f->tr, c->cache[k].ev, c->cache[k].cap * sizeof(*c->cache[k].ev));
	sqlite3_free(c);
	return SQLITE_OK;
}

/* The handle's failure as the statement's: its message on the table, an
 * SQLite code that sql-query.c maps back onto the same tsr_error. The
 * handle's message names the file, which tsr_trace_query names again:
 * that prefix is left out. */
static int span_fail(span_cursor *c)
{
	span_vtab *v = (span_vtab *)c->base.pVtab;
	tsr_trace *tr = v->f->tr;
	const char *msg = tr->error, *path = tr->processes[c->file].path;
	size_t n = strlen(path);

	if (!strncmp(msg, path, n) && !strncmp(msg + n, ": ", 2))
		msg += n + 2;
	sqlite3_free(v->base.zErrMsg);
	v->base.zErrMsg = sqlite3_mprintf("span: %s", msg);
	switch (tr->code) {
	case TSR_ERR_NO_MEMORY: return SQLITE_NOMEM;
	case TSR_ERR_TOO_LARGE: return SQLITE_TOOBIG;
	case TSR_ERR_IO: return SQLITE_IOERR;
	default: return SQLITE_CORRUPT;
	}
}

/* Moves to the next span, decoding chunks as the buffer runs out. */
static int span_advance(span_cursor *c)
{
	tsr_trace *tr = ((span_vtab *)c->base.pVtab)->f->tr;

	if (c->lookup) {
		c->eof = true;
		return SQLITE_OK;
	}
	while (++c->i >= c->n) {
		const trace_thread_data *td;

		if (c->thread >= c->end_thread) {
			c->eof = true;
			return SQLITE_OK;
		}
		td = &tr->tdata[c->thread];
		if (c->chunk >= td->n_chunks) {
			c->thread++;
			c->chunk = 0;
			c->n = 0;
			c->i = 0;
			continue;
		}
		if (trace_decode_chunk(tr, &c->buf, &c->cap, c->thread, &td->chunks[c->chunk]) !=
		    TSR_OK)
			return span_fail(c);
		c->n = td->chunks[c->chunk].count;
		c->chunk++;
		c->i = (size_t)-1; /* ++ makes it 0 */
	}
	c->cur = &c->buf[c->i];
	return SQLITE_OK;
}

/* Between chunks of work no step of the statement runs, so its progress
 * handler cannot: the same time limit and cancel, checked here
 * (SQLITE_INTERRUPT, which sql-query.c words from guard->stop). */
static int span_interrupted(span_cursor *c)
{
	trace_file *f = ((span_vtab *)c->base.pVtab)->f;
	struct timespec ts;

	if (tsr_progress_poll(&f->tr->progress))
		return SQLITE_INTERRUPT;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (f->vm_guard.deadline_ns &&
	    (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec > f->vm_guard.deadline_ns) {
		f->vm_guard.stop = TSR_VM_STOP_TIME;
		return SQLITE_INTERRUPT;
	}
	return SQLITE_OK;
}

/* Builds the seq ranges of the chunks of handle thread `t` (the file's
 * thread j), once per connection. */
static int span_build_ranges(span_cursor *c, size_t t, size_t j)
{
	span_vtab *v = (span_vtab *)c->base.pVtab;
	tsr_trace *tr = v->f->tr;
	const tsr_trace_process *pr = &tr->processes[c->file];
	const trace_thread_data *td = &tr->tdata[t];
	span_seq_range *r;
	int rc;

	if (!v->ranges) {
		v->ranges = trace_alloc(tr, pr->n_threads ? pr->n_threads : 1, sizeof(*v->ranges));
		if (!v->ranges)
			return span_fail(c);
	}
	r = &v->ranges[j];
	if (r->lo)
		return SQLITE_OK;
	r->lo = trace_alloc(tr, td->n_chunks ? td->n_chunks : 1, sizeof(int64_t));
	r->hi = trace_alloc(tr, td->n_chunks ? td->n_chunks : 1, sizeof(int64_t));
	if (!r->lo || !r->hi)
		goto fail;
	for (size_t k = 0; k < td->n_chunks; k++) {
		if ((rc = span_interrupted(c)) != SQLITE_OK)
			goto stop;
		if (trace_decode_chunk(tr, &c->buf, &c->cap, t, &td->chunks[k]) != TSR_OK)
			goto fail;
		r->lo[k] = INT64_MAX;
		r->hi[k] = INT64_MIN;
		for (uint32_t i = 0; i < td->chunks[k].count; i++) {
			if (c->buf[i].seq < r->lo[k])
				r->lo[k] = c->buf[i].seq;
			if (c->buf[i].seq > r->hi[k])
				r->hi[k] = c->buf[i].seq;
		}
	}
	c->n = 0; /* the scan buffer was used */
	return SQLITE_OK;
fail:
	rc = span_fail(c);
stop:
	trace_free_mem(tr, r->lo, (td->n_chunks ? td->n_chunks : 1) * sizeof(int64_t));
	trace_free_mem(tr, r->hi, (td->n_chunks ? td->n_chunks : 1) * sizeof(int64_t));
	r->lo = r->hi = NULL;
	c->n = 0;
	return rc;
}

static int by_seq(const void *a, const void *b)
{
	const trace_event *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Chunk k of handle thread t, decoded and sorted by seq, from the
 * cursor's cache or into its least recently used slot. */
static int span_cached_chunk(span_cursor *c, span_cached **out, size_t t, size_t k)
{
	tsr_trace *tr = ((span_vtab *)c->base.pVtab)->f->tr;
	span_cached *slot = &c->cache[0];
	int rc;

	for (size_t s = 0; s < SPAN_CACHE; s++) {
		if (c->cache[s].thread == t && c->cache[s].chunk == k) {
			slot = &c->cache[s];
			goto found;
		}
		if (c->cache[s].used < slot->used)
			slot = &c->cache[s];
	}
	if ((rc = span_interrupted(c)) != SQLITE_OK)
		return rc;
	slot->thread = SIZE_MAX;
	if (trace_decode_chunk(tr, &slot->ev, &slot->cap, t, &tr->tdata[t].chunks[k]) != TSR_OK)
		return span_fail(c);
	slot->n = tr->tdata[t].chunks[k].count;
	qsort(slot->ev, slot->n, sizeof(*slot->ev), by_seq);
	slot->thread = t;
	slot->chunk = k;
found:
	slot->used = ++c->clock;
	*out = slot;
	return SQLITE_OK;
}

/* Finds span `id` of the file: the current row, or the end. */
static int span_lookup(span_cursor *c, int64_t id)
{
	const tsr_trace *tr = ((span_vtab *)c->base.pVtab)->f->tr;
	const span_seq_range *r;
	int64_t seq = id & (((int64_t)1 << SPAN_SEQ_BITS) - 1);
	size_t t;
	int rc;

	c->lookup = true;
	c->eof = true;
	if (id < 0)
		return SQLITE_OK;
	for (t = c->thread; t < c->end_thread && tr->threads[t].id != id >> SPAN_SEQ_BITS; t++)
		;
	if (t == c->end_thread)
		return SQLITE_OK;
	if ((rc = span_build_ranges(c, t, t - tr->processes[c->file].first_thread)) != SQLITE_OK)
		return rc;
	c->thread = t;
	r = &((span_vtab *)c->base.pVtab)->ranges[t - tr->processes[c->file].first_thread];
	for (size_t k = 0; k < tr->tdata[t].n_chunks; k++) {
		span_cached *slot = NULL;
		trace_event key = {0};
		const trace_event *e;

		if (seq < r->lo[k] || seq > r->hi[k])
			continue;
		if ((rc = span_cached_chunk(c, &slot, t, k)) != SQLITE_OK)
			return rc;
		key.seq = seq;
		e = bsearch(&key, slot->ev, slot->n, sizeof(*slot->ev), by_seq);
		if (e) {
			c->cur = e;
			c->eof = false;
			return SQLITE_OK;
		}
	}
	return SQLITE_OK;
}

/* Starts a scan of every thread of the file, or of the one thread that
 * argv[0] names (SPAN_BY_THREAD) or whose id it is (SPAN_BY_ID). */
static int span_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
                       sqlite3_value **argv)
{
	span_cursor *c = (span_cursor *)cur;
	const tsr_trace *tr = ((span_vtab *)cur->pVtab)->f->tr;
	const tsr_trace_process *pr = &tr->processes[c->file];

	(void)idx_str;
	c->thread = pr->first_thread;
	c->end_thread = pr->first_thread + pr->n_threads;
	c->lookup = false;
	if (idx && argc > 0) {
		int type = sqlite3_value_numeric_type(argv[0]);
		double d = sqlite3_value_double(argv[0]);
		int64_t want = sqlite3_value_int64(argv[0]);

		/* Only an integer (or a real that is one) equals an integer
		 * column: NULL (a span without a parent), text and blobs
		 * select nothing. */
		if (type == SQLITE_FLOAT && (d < -9.2e18 || d > 9.2e18 || d != (double)(int64_t)d))
			want = -1;
		else if (type == SQLITE_FLOAT)
			want = (int64_t)d;
		else if (type != SQLITE_INTEGER)
			want = -1;
		if (idx == SPAN_BY_ID)
			return span_lookup(c, want);
		while (c->thread < c->end_thread && tr->threads[c->thread].id != want)
			c->thread++;
		c->end_thread = c->thread < c->end_thread ? c->thread + 1 : c->thread;
	}
	c->chunk = 0;
	c->n = 0;
	c->i = 0;
	c->eof = false;
	return span_advance(c);
}

static int span_next(sqlite3_vtab_cursor *cur)
{
	return span_advance((span_cursor *)cur);
}

static int span_eof(sqlite3_vtab_cursor *cur)
{
	return ((const span_cursor *)cur)->eof;
}

/* The id of span `seq` of the file's thread `thread` (see the top), or
 * -1 when the two do not fit in one (a thread id past 2^31, a seq past
 * 2^32, which no writer makes). */
static int64_t span_id(int64_t thread, int64_t seq)
{
	if (thread < 0 || thread >= ((int64_t)1 << (63 - SPAN_SEQ_BITS)) || seq < 0 ||
	    seq >= ((int64_t)1 << SPAN_SEQ_BITS))
		return -1;
	return thread * ((int64_t)1 << SPAN_SEQ_BITS) + seq;
}

/* The current span's column `col`. */
static int span_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const span_cursor *c = (const span_cursor *)cur;
	const tsr_trace *tr = ((const span_vtab *)cur->pVtab)->f->tr;
	const trace_event *e = c->cur;
	const tsr_trace_thread *th = &tr->threads[c->thread];
	int64_t off = tr->processes[c->file].offset_ns, id;

	switch (col) {
	case SPAN_ID:
	case SPAN_PARENT:
		if (col == SPAN_PARENT && e->parent < 0) {
			sqlite3_result_null(ctx);
			break;
		}
		id = span_id(th->id, col == SPAN_ID ? e->seq : e->parent);
		if (id < 0)
			sqlite3_result_error(ctx, "span: a thread id or seq too large for a span id", -1);
		else
			sqlite3_result_int64(ctx, id);
		break;
	case SPAN_THREAD: sqlite3_result_int64(ctx, th->id); break;
	case SPAN_THREAD_NAME: sqlite3_result_text(ctx, th->name, -1, SQLITE_STATIC); break;
	case SPAN_PID: sqlite3_result_int64(ctx, tr->processes[c->file].pid); break;
	case SPAN_SEQ: sqlite3_result_int64(ctx, e->seq); break;
	case SPAN_NAME: sqlite3_result_text(ctx, tr->names[e->name], -1, SQLITE_STATIC); break;
	case SPAN_CHANNEL:
		sqlite3_result_text(ctx, tr->channels[e->channel].name, -1, SQLITE_STATIC);
		break;
	/* The decoder put them on the merged axis, after checking that
	 * this sum fits: the difference does. */
	case SPAN_START: sqlite3_result_int64(ctx, e->start_ns - off); break;
	case SPAN_END: sqlite3_result_int64(ctx, e->end_ns - off); break;
	case SPAN_DUR: sqlite3_result_int64(ctx, e->end_ns - e->start_ns); break;
	case SPAN_DEPTH: sqlite3_result_int64(ctx, e->depth); break;
	default: sqlite3_result_null(ctx); break;
	}
	return SQLITE_OK;
}

/* The span's id (-1 in the case span_id refuses, which the id column
 * reports as an error). */
static int span_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	const span_cursor *c = (const span_cursor *)cur;
	const tsr_trace *tr = ((const span_vtab *)cur->pVtab)->f->tr;

	*rowid = span_id(tr->threads[c->thread].id, c->cur->seq);
	return SQLITE_OK;
}

static const sqlite3_module span_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only: never in a schema */
	.xConnect = span_connect,
	.xBestIndex = span_best_index,
	.xDisconnect = span_disconnect,
	.xDestroy = NULL,
	.xOpen = span_open,
	.xClose = span_close,
	.xFilter = span_filter,
	.xNext = span_next,
	.xEof = span_eof,
	.xColumn = span_column,
	.xRowid = span_rowid,
};

/*
 * Registers `span` on file `f`'s connection, once, and connects it at
 * once: SQLite asks the authorizer about its schema table while it
 * connects an eponymous table, which both of ours refuse, so call with no
 * authorizer set (as tsr_sql_register_tile_runs is called before one is).
 * Returns SQLITE_OK or an SQLite code.
 */
int trace_span_table_register(trace_file *f)
{
	int rc;

	if (f->span_table)
		return SQLITE_OK;
	rc = sqlite3_create_module_v2(f->db, "span", &span_module, f, NULL);
	if (rc != SQLITE_OK)
		return rc;
	f->span_table = true;
	/* Fails only when the file has a table of that name (which shadows
	 * the module, as any table of the file shadows one) or out of memory. */
	rc = sqlite3_exec(f->db, "SELECT id FROM span WHERE 0", NULL, NULL, NULL);
	return (rc & 0xff) == SQLITE_NOMEM ? rc : SQLITE_OK;
}
