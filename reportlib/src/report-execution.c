/*
 * Execution: the runs a report kept, their simulated steps and program
 * traces, and the figures made from them (totals by activity, cycles by
 * vertex type, FLOPs and utilisation).
 *
 * Steps and traces are the bulk of the execution profile (tens of
 * thousands of rows per run), so each run's are read on first use
 * (tsr_load_steps, load_trace) into the handle's per-run slots (made by
 * tsr_report_open; the arrays put in them come from tsr_alloc and are
 * released with free() by tsr_report_free), and
 * every row is checked before it is kept: the row count against the
 * run's stored count, ids contiguous from 0, every referenced program,
 * compute set and exchange inside its table, every tag from the schema's
 * vocabulary, cycle intervals inside the run, balances inside 0..1. A
 * file whose rows contradict its counts is TSR_ERR_CORRUPT, never a
 * partly filled array.
 *
 * Sums of values read from the file saturate instead of wrapping.
 */
#include <tilescope/alloc.h>
#include "report-private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert((int)TSR_STEP_TYPE_COUNT == TSF_STEP_TYPE_COUNT && (int)TSR_STEP_SYNC == TSF_STEP_SYNC &&
                   (int)TSR_STEP_COPY_SHARED_STRUCTURE == TSF_STEP_COPY_SHARED_STRUCTURE,
               "tsr_step_type follows the vocabulary (vocabulary.h)");
_Static_assert((int)TSR_PROGRAM_TYPE_COUNT == TSF_PROGRAM_TYPE_COUNT &&
                   (int)TSR_PROGRAM_WRITE_UNDEF == TSF_PROGRAM_WRITE_UNDEF &&
                   (int)TSR_SYNC_TYPE_COUNT == TSF_SYNC_TYPE_COUNT &&
                   (int)TSR_SYNC_NONE == -1 && (int)TSR_PROGRAM_NONE == -1 &&
                   (int)TSR_EXCHANGE_KIND_COUNT == TSF_EXCHANGE_KIND_COUNT,
               "tsr_program_type, tsr_sync_type, tsr_exchange_kind follow the vocabulary");

/* Slack allowed above 1 on a stored balance (rounding of the writer). */
#define BALANCE_SLACK 1e-9

/* a + b and a * b, saturating: figures from a file must not wrap. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/*
 * The guide's tag of a step type ("OnTileExecute" ...), "unknown" for a
 * value outside the enumeration. Used by the summary and the exports so
 * that every reader spells them as the file does.
 */
const char *tsr_step_type_name(tsr_step_type type)
{
	const char *name = tsf_vocab_name(TSF_VOCAB_STEP_TYPE, (int)type);

	return name ? name : "unknown";
}

/* The other words reportlib hands out as codes, spelled for the callers'
 * edges; NULL for none or a code past the list. */
const char *tsr_program_type_name(tsr_program_type type)
{
	return tsf_vocab_name(TSF_VOCAB_PROGRAM_TYPE, (int)type);
}

const char *tsr_sync_type_name(tsr_sync_type type)
{
	return tsf_vocab_name(TSF_VOCAB_SYNC_TYPE, (int)type);
}

const char *tsr_exchange_kind_name(tsr_exchange_kind kind)
{
	return tsf_vocab_name(TSF_VOCAB_EXCHANGE_KIND, (int)kind);
}

/*
 * The name the model gave engine program `index`. The compiler wraps each
 * program the model hands the engine in an unnamed Sequence (the control
 * program), so the name is the control program's own when it has one,
 * else that of the one program wrapped in it. Every reader that names a
 * program or a run asks here, so the Program Tree, the run pickers, the
 * summary and diff's labels agree.
 */
const char *tsr_report_lookup_engine_program_name(tsr_report *report, size_t index)
{
	const tsr_program *top;
	size_t n_progs;

	if (!report || !report->programs || !report->control_programs ||
	    index >= report->counts.control_programs)
		return NULL;
	n_progs = report->counts.programs;
	if (report->control_programs[index] >= n_progs)
		return NULL;
	top = &report->programs[report->control_programs[index]];
	if ((!top->name || !top->name[0]) && top->n_children == 1 && top->children &&
	    top->children[0] < n_progs)
		top = &report->programs[top->children[0]];
	return top->name && top->name[0] ? top->name : NULL;
}

/*
 * Checks the run index a run query is given: TSR_ERR_NO_DATA when the
 * report holds no runs (an out-of-memory graph, or a model that never
 * ran), TSR_ERR_OUT_OF_RANGE past the last run; both recorded on the
 * handle naming `fn`.
 */
static int check_run(tsr_report *r, size_t run, const char *fn)
{
	size_t n = r->counts.runs;

	/* tsr_report_open makes the per-run arrays beside the runs. */
	if (n == 0 || !r->runs || !r->steps || !r->n_steps || !r->traces || !r->n_traces)
		return tsr_fail(r, TSR_ERR_NO_DATA, "%s: '%s' holds no runs", fn, r->path);
	if (run >= n)
		return tsr_fail(r, TSR_ERR_OUT_OF_RANGE, "%s: run %zu of %zu", fn, run, n);
	return TSR_OK;
}

/*
 * tsr_alloc of n zeroed entries of `size` bytes (at least one, so that an
 * empty array is still a loaded one). On failure NULL with *rc the code
 * tsr_alloc recorded: TSR_ERR_TOO_LARGE past the cap (or on overflow),
 * else TSR_ERR_NO_MEMORY.
 */
static void *zalloc(tsr_report *r, int *rc, size_t n, size_t size)
{
	return tsr_alloc_rc(r, rc, n ? n : 1, size);
}

/* tsr_free of what zalloc(r, rc, n, size) returned (NULL: nothing). */
static void zfree(tsr_report *r, void *p, size_t n, size_t size)
{
	if (p)
		tsr_free(r, p, (n ? n : 1) * size);
}

/* Compute sets the report lists (the length of r->compute_sets), 0 when
 * it cannot say. */
static size_t compute_set_count(tsr_report *r)
{
	const tsr_compute_set *cs;
	size_t n = 0;

	return tsr_report_get_compute_sets(&cs, &n, r) == TSR_OK ? n : 0;
}

/*
 * Counts the rows of `table` (step or program_trace) for `run` and checks
 * the count against what the run row says (`expect`): a file whose run
 * lies about its steps is corrupt, and the count is what the array is
 * sized from, so it is settled before anything is allocated.
 */
static int check_row_count(tsr_report *r, const char *table, size_t run, size_t expect)
{
	sqlite3_stmt *st = NULL;
	char sql[96];
	int64_t count = 0;
	int rc;

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s WHERE run = ?1", table);
	rc = tsr_prepare(r, &st, sql);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)run);
	rc = tsr_step_row(r, st);
	if (rc < 0)
		goto out;
	if (rc != SQLITE_ROW) {
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': counting %s rows of run %zu gave no answer",
		              r->path, table, run);
		goto out;
	}
	rc = tsr_column_int(r, &count, st, 0, 0, INT64_MAX, table);
	if (rc)
		goto out;
	if ((uint64_t)count != (uint64_t)expect)
		rc = tsr_fail(r, TSR_ERR_CORRUPT,
		              "'%s': run %zu has %lld %s rows but its run row says %zu", r->path, run,
		              (long long)count, table, expect);
out:
	sqlite3_finalize(st);
	return rc;
}

/*
 * A nullable id column: -1 when NULL, else an integer in [0, limit) (an
 * id into a table of `limit` rows). Anything else is TSR_ERR_CORRUPT
 * naming `what`.
 */
static int column_opt_id(tsr_report *r, int64_t *out, sqlite3_stmt *st, int col, size_t limit,
                         const char *what)
{
	*out = -1;
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return TSR_OK;
	if (limit == 0)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s refers to an empty table", r->path, what);
	return tsr_column_int(r, out, st, col, 0, (int64_t)(limit - 1), what);
}

/*
 * A balance column: NaN when NULL (undefined), else a number in 0..1
 * (with the writer's rounding). A text, a blob or a number outside the
 * range is TSR_ERR_CORRUPT.
 */
static int column_balance(tsr_report *r, double *out, sqlite3_stmt *st, int col, size_t run,
                          size_t step, const char *what)
{
	int type = sqlite3_column_type(st, col);
	double v;

	*out = NAN;
	if (type == SQLITE_NULL)
		return TSR_OK;
	if (type != SQLITE_FLOAT && type != SQLITE_INTEGER)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': step %zu of run %zu: %s is not a number",
		                r->path, step, run, what);
	v = sqlite3_column_double(st, col);
	if (!isfinite(v) || v < 0.0 || v > 1.0 + BALANCE_SLACK)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': step %zu of run %zu: %s %g is not in 0..1",
		                r->path, step, run, what, v);
	*out = v;
	return TSR_OK;
}

/*
 * A tag column against a vocabulary: the index of its text in
 * names[0..n), or TSR_ERR_CORRUPT. NULL is allowed only when `nullable`
 * (then *out = -1).
 */
static int column_tag(tsr_report *r, int *out, sqlite3_stmt *st, int col,
                      tsf_vocab vocab, bool nullable, const char *what)
{
	const unsigned char *text;
	int bytes;

	*out = -1;
	if (sqlite3_column_type(st, col) == SQLITE_NULL) {
		if (nullable)
			return TSR_OK;
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s is NULL", r->path, what);
	}
	if (sqlite3_column_type(st, col) != SQLITE_TEXT)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s is not text", r->path, what);
	text = sqlite3_column_text(st, col);
	bytes = sqlite3_column_bytes(st, col);
	/* The length check refuses a name with a NUL inside. */
	*out = text ? tsf_vocab_lookup(vocab, (const char *)text) : -1;
	if (*out >= 0 && strlen(tsf_vocab_name(vocab, *out)) == (size_t)bytes)
		return TSR_OK;
	*out = -1;
	return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s '%.40s' is not one the schema knows", r->path,
	                what, text ? (const char *)text : "");
}

/* The exchange kind the type of an exchange step implies; COUNT for
 * steps that are not exchanges. */
static tsr_exchange_kind step_exchange_kind(tsr_step_type type)
{
	switch (type) {
	case TSR_STEP_DO_EXCHANGE:
		return TSR_EXCHANGE_INTERNAL;
	case TSR_STEP_GLOBAL_EXCHANGE:
		return TSR_EXCHANGE_EXTERNAL;
	case TSR_STEP_STREAM_COPY:
		return TSR_EXCHANGE_HOST;
	default:
		return TSR_EXCHANGE_KIND_COUNT;
	}
}

/* A non-empty name or NULL. */
static const char *named(const char *s)
{
	return s && *s ? s : NULL;
}

const char *tsr_report_lookup_step_name(tsr_report *report, const tsr_step *step)
{
	const char *name = NULL;
	tsr_exchange_kind kind;

	if (!report || !step || step->type == TSR_STEP_SYNC)
		return NULL;
	kind = step_exchange_kind(step->type);
	if (step->type == TSR_STEP_ON_TILE_EXECUTE) {
		const tsr_compute_set *cs;
		size_t n;

		if (step->compute_set >= 0 && tsr_report_get_compute_sets(&cs, &n, report) == TSR_OK &&
		    (uint64_t)step->compute_set < n)
			name = named(cs[step->compute_set].name);
	} else if (kind < TSR_EXCHANGE_KIND_COUNT && step->exchange >= 0) {
		const tsr_exchange *x;
		size_t n;

		if (tsr_report_get_exchanges(&x, &n, report, kind) == TSR_OK &&
		    (uint64_t)step->exchange < n)
			name = named(x[step->exchange].name);
	}
	if (!name && report->programs && step->program < report->counts.programs)
		name = named(report->programs[step->program].name);
	return name;
}

/* Exchanges of `kind` the report lists; 0 for TSR_EXCHANGE_KIND_COUNT
 * (steps that are not exchanges). */
static size_t exchange_count(tsr_report *r, tsr_exchange_kind kind)
{
	const tsr_exchange *x;
	size_t n = 0;

	if (kind >= TSR_EXCHANGE_KIND_COUNT)
		return 0;
	return tsr_report_get_exchanges(&x, &n, r, kind) == TSR_OK ? n : 0;
}

/*
 * Reads and checks one step row (the columns of load_steps' query) into
 * *s, row `i` of run `run`. The checks are the schema's promises: the id
 * is the row's place, the type is known, a compute set exactly on
 * OnTileExecute, an exchange only on exchange steps (of the kind the type
 * implies), a sync type exactly on Sync, cycles inside the run, active
 * tiles at most the target's, balances in 0..1.
 */
static int read_step(tsr_report *r, tsr_step *s, sqlite3_stmt *st, size_t run, size_t i,
                     size_t n_cs)
{
	const tsr_run *rn = &r->runs[run];
	tsr_exchange_kind kind;
	int64_t v, from, to;
	int type, sync, rc;

	memset(s, 0, sizeof(*s));
	if ((rc = tsr_column_int(r, &v, st, 0, 0, INT64_MAX, "step.id")))
		return rc;
	if ((uint64_t)v != (uint64_t)i)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': run %zu: step %zu is numbered %lld", r->path,
		                run, i, (long long)v);
	if ((rc = column_tag(r, &type, st, 1, TSF_VOCAB_STEP_TYPE, false,
	                     "step.type")))
		return rc;
	s->type = (tsr_step_type)type;
	if (r->counts.programs == 0)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': run %zu has steps but there are no programs",
		                r->path, run);
	if ((rc = tsr_column_int(r, &v, st, 2, 0, (int64_t)r->counts.programs - 1, "step.program")))
		return rc;
	s->program = (uint32_t)v;

	if ((rc = column_opt_id(r, &s->compute_set, st, 3, n_cs, "step.compute_set")))
		return rc;
	if ((s->type == TSR_STEP_ON_TILE_EXECUTE) != (s->compute_set >= 0))
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': run %zu step %zu: a %s step %s a compute set",
		                r->path, run, i, tsr_step_type_name(s->type),
		                s->compute_set >= 0 ? "with" : "without");

	kind = step_exchange_kind(s->type);
	if (kind == TSR_EXCHANGE_KIND_COUNT && sqlite3_column_type(st, 4) != SQLITE_NULL)
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': run %zu step %zu: a %s step with an exchange",
		                r->path, run, i, tsr_step_type_name(s->type));
	/* An exchange step may lack one (NULL); one it names must exist. */
	if ((rc = column_opt_id(r, &s->exchange, st, 4, exchange_count(r, kind), "step.exchange")))
		return rc;

	if ((rc = column_tag(r, &sync, st, 5, TSF_VOCAB_SYNC_TYPE, true,
	                     "step.sync_type")))
		return rc;
	if ((s->type == TSR_STEP_SYNC) != (sync >= 0))
		return tsr_fail(r, TSR_ERR_CORRUPT, "'%s': run %zu step %zu: a %s step %s a sync type",
		                r->path, run, i, tsr_step_type_name(s->type), sync >= 0 ? "with" : "without");
	s->sync = (tsr_sync_type)sync; /* TSR_SYNC_NONE for -1 */

	if ((rc = tsr_column_int(r, &from, st, 6, 0, INT64_MAX, "step.cycles_from")) ||
	    (rc = tsr_column_int(r, &to, st, 7, 0, INT64_MAX, "step.cycles_to")))
		return rc;
	if (from > to || (uint64_t)to > rn->cycles)
		return tsr_fail(r, TSR_ERR_CORRUPT,
		                "'%s': run %zu step %zu: cycles %lld..%lld are not inside the run's %llu",
		                r->path, run, i, (long long)from, (long long)to,
		                (unsigned long long)rn->cycles);
	s->cycles_from = (uint64_t)from;
	s->cycles_to = (uint64_t)to;
	if ((rc = tsr_column_int(r, &v, st, 8, 0, INT64_MAX, "step.cycles")))
		return rc;
	s->cycles = (uint64_t)v;
	if ((rc = tsr_column_int(r, &v, st, 9, 0, INT64_MAX, "step.cycles_overlapped")))
		return rc;
	s->cycles_overlapped = (uint64_t)v;
	if ((rc = tsr_column_int(r, &v, st, 10, 0, (int64_t)r->target.num_tiles,
	                         "step.active_tiles")))
		return rc;
	s->active_tiles = (uint32_t)v;
	if ((rc = column_balance(r, &s->tile_balance, st, 11, run, i, "tile_balance")) ||
	    (rc = column_balance(r, &s->active_tile_balance, st, 12, run, i,
	                         "active_tile_balance")) ||
	    (rc = column_balance(r, &s->thread_balance, st, 13, run, i, "thread_balance")))
		return rc;
	if ((rc = tsr_column_int(r, &v, st, 14, 0, INT64_MAX, "step.total_data")))
		return rc;
	s->total_data = (uint64_t)v;
	return column_balance(r, &s->data_balance, st, 15, run, i, "data_balance");
}

/*
 * Reads the steps of run `run` into r->steps[run] (once; later calls
 * return at once). Private to reportlib (report-private.h): the
 * operations and the summary read steps through it. The array is sized
 * from the run's num_steps after the rows were counted and found to
 * match, and is kept only when every row passed read_step.
 */
int tsr_load_steps(tsr_report *r, size_t run)
{
	sqlite3_stmt *st = NULL;
	tsr_step *steps = NULL;
	size_t n, n_cs, i = 0;
	int rc = check_run(r, run, "steps");

	if (rc)
		return rc;
	if (r->steps[run])
		return TSR_OK;
	n = r->runs[run].n_steps;
	if ((rc = check_row_count(r, "step", run, n)))
		goto out;
	steps = zalloc(r, &rc, n, sizeof(*steps));
	if (!steps)
		goto out;
	n_cs = compute_set_count(r);
	rc = tsr_prepare(r, &st,
	                 "SELECT id, type, program, compute_set, exchange, sync_type, cycles_from, "
	                 "cycles_to, cycles, cycles_overlapped, active_tiles, tile_balance, "
	                 "active_tile_balance, thread_balance, total_data, data_balance "
	                 "FROM step WHERE run = ?1 ORDER BY id");
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)run);
	while ((rc = tsr_step_row(r, st)) == SQLITE_ROW) {
		if (i >= n) {
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': run %zu has more than %zu steps", r->path,
			              run, n);
			goto out;
		}
		if ((rc = read_step(r, &steps[i], st, run, i, n_cs)))
			goto out;
		i++;
	}
	if (rc < 0)
		goto out;
	if (i != n) {
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': run %zu has %zu of its %zu steps", r->path, run,
		              i, n);
		goto out;
	}
	r->steps[run] = steps;
	r->n_steps[run] = n;
	steps = NULL;
	rc = TSR_OK;
out:
	sqlite3_finalize(st);
	zfree(r, steps, n, sizeof(*steps));
	return rc;
}

/*
 * Reads the program trace of run `run` into r->traces[run] (once): the
 * row count must be the run's trace_length, positions contiguous from 0,
 * every program an id of the program table.
 */
static int load_trace(tsr_report *r, size_t run)
{
	sqlite3_stmt *st = NULL;
	uint32_t *trace = NULL;
	size_t n, i = 0;
	int64_t v;
	int rc = check_run(r, run, "program trace");

	if (rc)
		return rc;
	if (r->traces[run])
		return TSR_OK;
	n = r->runs[run].trace_length;
	if ((rc = check_row_count(r, "program_trace", run, n)))
		goto out;
	trace = zalloc(r, &rc, n, sizeof(*trace));
	if (!trace)
		goto out;
	rc = tsr_prepare(r, &st,
	                 "SELECT position, program FROM program_trace WHERE run = ?1 "
	                 "ORDER BY position");
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)run);
	while ((rc = tsr_step_row(r, st)) == SQLITE_ROW) {
		if (i >= n) {
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': run %zu has more than %zu trace entries",
			              r->path, run, n);
			goto out;
		}
		if ((rc = tsr_column_int(r, &v, st, 0, 0, INT64_MAX, "program_trace.position")))
			goto out;
		if ((uint64_t)v != (uint64_t)i) {
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': run %zu: trace entry %zu is at position %lld",
			              r->path, run, i, (long long)v);
			goto out;
		}
		if (r->counts.programs == 0) {
			rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': run %zu has a trace but no programs",
			              r->path, run);
			goto out;
		}
		if ((rc = tsr_column_int(r, &v, st, 1, 0, (int64_t)r->counts.programs - 1,
		                         "program_trace.program")))
			goto out;
		trace[i++] = (uint32_t)v;
	}
	if (rc < 0)
		goto out;
	if (i != n) {
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': run %zu has %zu of its %zu trace entries",
		              r->path, run, i, n);
		goto out;
	}
	r->traces[run] = trace;
	r->n_traces[run] = n;
	trace = NULL;
	rc = TSR_OK;
out:
	sqlite3_finalize(st);
	zfree(r, trace, n, sizeof(*trace));
	return rc;
}

/* The steps of run `run` (read on first use; borrowed until the handle
 * is freed). */
int tsr_report_get_steps(const tsr_step **out, size_t *n, tsr_report *report, size_t run)
{
	int rc;

	if (out)
		*out = NULL;
	if (n)
		*n = 0;
	if (!report || !out || !n)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "tsr_report_get_steps: NULL argument")
		              : TSR_ERR_INVALID_ARGUMENT;
	rc = tsr_load_steps(report, run);
	if (rc)
		return rc;
	*out = report->steps[run];
	*n = report->n_steps[run];
	return TSR_OK;
}

/* The lowered programs run `run` executed, in order (borrowed). */
int tsr_report_get_program_trace(const uint32_t **out, size_t *n, tsr_report *report, size_t run)
{
	int rc;

	if (out)
		*out = NULL;
	if (n)
		*n = 0;
	if (!report || !out || !n)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                         "tsr_report_get_program_trace: NULL argument")
		              : TSR_ERR_INVALID_ARGUMENT;
	rc = load_trace(report, run);
	if (rc)
		return rc;
	*out = report->traces[run];
	*n = report->n_traces[run];
	return TSR_OK;
}

/*
 * A run's totals by activity: the run's length and tile cycles as stored,
 * and the wall-clock cycles and number of its steps of each type (the
 * guide's Execution part adds these per step kind).
 */
int tsr_report_fill_run_activity(tsr_activity *out, tsr_report *report, size_t run)
{
	int rc;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!report || !out)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                         "tsr_report_fill_run_activity: NULL argument")
		              : TSR_ERR_INVALID_ARGUMENT;
	rc = tsr_load_steps(report, run);
	if (rc)
		return rc;
	out->cycles = report->runs[run].cycles;
	out->tile_cycles = report->runs[run].tile_cycles;
	for (size_t i = 0; i < report->n_steps[run]; i++) {
		const tsr_step *s = &report->steps[run][i];

		out->step_cycles[s->type] = sat_add(out->step_cycles[s->type], s->cycles);
		out->steps[s->type]++;
	}
	return TSR_OK;
}

/*
 * How many times each compute set ran in `run` (its OnTileExecute steps)
 * into a zalloc'd array of compute_set_count() entries that the caller
 * releases with zfree; run -1 counts each once. Steps were
 * checked on load, so every compute set id is in range.
 */
static int compute_set_executions(tsr_report *r, uint64_t **out, int64_t run)
{
	size_t n_cs = compute_set_count(r);
	uint64_t *ex;
	int rc;

	*out = NULL;
	if (run >= 0 && (rc = tsr_load_steps(r, (size_t)run)))
		return rc;
	ex = zalloc(r, &rc, n_cs, sizeof(*ex));
	if (!ex)
		return rc;
	for (size_t i = 0; i < n_cs; i++)
		ex[i] = run < 0 ? 1 : 0;
	if (run >= 0) {
		for (size_t i = 0; i < r->n_steps[run]; i++) {
			const tsr_step *s = &r->steps[run][i];

			if (s->type == TSR_STEP_ON_TILE_EXECUTE && s->compute_set >= 0 &&
			    (size_t)s->compute_set < n_cs)
				ex[s->compute_set]++;
		}
	}
	*out = ex;
	return TSR_OK;
}

/* Orders vertex-type cycles: most cycles first, then by vertex type. */
static int cmp_vertex_type_cycles(const void *a, const void *b)
{
	const tsr_vertex_type_cycles *x = a, *y = b;

	if (x->cycles != y->cycles)
		return x->cycles > y->cycles ? -1 : 1;
	return x->vertex_type < y->vertex_type ? -1 : x->vertex_type > y->vertex_type;
}

/*
 * Cycles by vertex type (the guide's "Cycles by vertex type"): the
 * active cycles of each type in each compute set (compute_set_vertex_type,
 * one execution, summed over tiles) times the times the compute set ran
 * in `run` (-1: once each). Every vertex type with vertices in some
 * compute set is listed, most cycles first; its instances are those of
 * the compute sets the run executed (all of them for run -1), so that a
 * run's section does not count the vertices of programs it did not run.
 * The caller frees *out.
 */
int tsr_report_list_cycles_by_vertex_type(tsr_vertex_type_cycles **out, size_t *n,
                                          tsr_report *report, int64_t run)
{
	sqlite3_stmt *st = NULL;
	uint64_t *executions = NULL;
	tsr_vertex_type_cycles *acc = NULL, *result = NULL;
	bool *listed = NULL;
	size_t n_vt, n_cs, n_out = 0;
	int64_t cs, vt, count, cycles;
	int rc;

	if (out)
		*out = NULL;
	if (n)
		*n = 0;
	if (!report || !out || !n)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                         "tsr_report_list_cycles_by_vertex_type: NULL argument")
		              : TSR_ERR_INVALID_ARGUMENT;
	if (run < -1)
		return tsr_fail(report, TSR_ERR_OUT_OF_RANGE, "cycles by vertex type: run %lld",
		                (long long)run);
	if (run >= 0 && (rc = check_run(report, (size_t)run, "cycles by vertex type")))
		return rc;
	n_vt = report->counts.vertex_types;
	n_cs = compute_set_count(report);
	rc = compute_set_executions(report, &executions, run);
	if (rc)
		goto out;
	acc = zalloc(report, &rc, n_vt, sizeof(*acc));
	if (!acc)
		goto out;
	listed = zalloc(report, &rc, n_vt, sizeof(*listed));
	if (!listed)
		goto out;
	rc = tsr_prepare(report, &st,
	                 "SELECT compute_set, vertex_type, vertex_count, active_cycles "
	                 "FROM compute_set_vertex_type");
	if (rc)
		goto out;
	while ((rc = tsr_step_row(report, st)) == SQLITE_ROW) {
		if (n_cs == 0 || n_vt == 0) {
			rc = tsr_fail(report, TSR_ERR_CORRUPT,
			              "'%s': compute_set_vertex_type has rows but there are %zu compute "
			              "sets and %zu vertex types",
			              report->path, n_cs, n_vt);
			goto out;
		}
		if ((rc = tsr_column_int(report, &cs, st, 0, 0, (int64_t)n_cs - 1,
		                         "compute_set_vertex_type.compute_set")) ||
		    (rc = tsr_column_int(report, &vt, st, 1, 0, (int64_t)n_vt - 1,
		                         "compute_set_vertex_type.vertex_type")) ||
		    (rc = tsr_column_int(report, &count, st, 2, 0, INT64_MAX,
		                         "compute_set_vertex_type.vertex_count")) ||
		    (rc = tsr_column_int(report, &cycles, st, 3, 0, INT64_MAX,
		                         "compute_set_vertex_type.active_cycles")))
			goto out;
		if (count == 0)
			continue;
		if (!listed[vt])
			n_out++;
		listed[vt] = true;
		acc[vt].vertex_type = (size_t)vt;
		if (executions[cs])
			acc[vt].instances = sat_add(acc[vt].instances, (uint64_t)count);
		acc[vt].cycles = sat_add(acc[vt].cycles, sat_mul((uint64_t)cycles, executions[cs]));
		acc[vt].executions =
		    sat_add(acc[vt].executions, sat_mul((uint64_t)count, executions[cs]));
	}
	if (rc < 0)
		goto out;
	/* The caller frees with free(): the result is plain malloc, no larger
	 * than `acc`, which the cap has already admitted. */
	result = tsb_malloc((n_out ? n_out : 1) * sizeof(*result));
	if (!result) {
		rc = tsr_fail(report, TSR_ERR_NO_MEMORY, "cycles by vertex type: out of memory");
		goto out;
	}
	n_out = 0;
	for (size_t i = 0; i < n_vt; i++)
		if (listed[i])
			result[n_out++] = acc[i];
	qsort(result, n_out, sizeof(*result), cmp_vertex_type_cycles);
	*out = result;
	*n = n_out;
	result = NULL;
	rc = TSR_OK;
out:
	sqlite3_finalize(st);
	free(result);
	zfree(report, acc, n_vt, sizeof(*acc));
	zfree(report, listed, n_vt, sizeof(*listed));
	zfree(report, executions, n_cs, sizeof(*executions));
	return rc;
}

/*
 * Reads compute_set_vertex_type once into the handle, grouped by compute
 * set (the table's primary key order, checked) and sorted by cycles
 * within each group. The row count is checked against the compute sets
 * and vertex types the handle knows before anything is allocated.
 */
static int load_cs_vertex_types(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	size_t n_cs = compute_set_count(r), n_vt = r->counts.vertex_types, k = 0;
	int64_t rows = 0, cs, vt, count, cycles, prev_cs = -1, prev_vt = -1;
	tsr_vertex_type_cycles *rowsv = NULL;
	size_t *first = NULL;
	int rc = tsr_prepare(r, &st, "SELECT COUNT(*) FROM compute_set_vertex_type");

	if (!rc && (rc = tsr_step_row(r, st)) == SQLITE_ROW)
		rc = tsr_column_int(r, &rows, st, 0, 0,
		                    n_cs && n_vt && n_vt <= (size_t)INT64_MAX / n_cs
		                        ? (int64_t)(n_cs * n_vt)
		                        : 0,
		                    "rows of compute_set_vertex_type");
	else if (!rc)
		rc = tsr_fail(r, TSR_ERR_CORRUPT, "'%s': cannot count compute_set_vertex_type", r->path);
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		return rc;
	rowsv = tsr_pool_alloc(r, ((size_t)rows + 1) * sizeof(*rowsv));
	first = tsr_pool_alloc(r, (n_cs + 1) * sizeof(*first));
	if (!rowsv || !first)
		return TSR_ERR_TOO_LARGE;
	rc = tsr_prepare(r, &st,
	                 "SELECT compute_set, vertex_type, vertex_count, active_cycles "
	                 "FROM compute_set_vertex_type ORDER BY compute_set, vertex_type");
	first[0] = 0;
	while (!rc && (rc = tsr_step_row(r, st)) == SQLITE_ROW) {
		if ((rc = tsr_column_int(r, &cs, st, 0, 0, (int64_t)n_cs - 1,
		                         "compute_set_vertex_type.compute_set")) ||
		    (rc = tsr_column_int(r, &vt, st, 1, 0, (int64_t)n_vt - 1,
		                         "compute_set_vertex_type.vertex_type")) ||
		    (rc = tsr_column_int(r, &count, st, 2, 0, INT64_MAX,
		                         "compute_set_vertex_type.vertex_count")) ||
		    (rc = tsr_column_int(r, &cycles, st, 3, 0, INT64_MAX,
		                         "compute_set_vertex_type.active_cycles")))
			break;
		if (k >= (size_t)rows || cs < prev_cs || (cs == prev_cs && vt <= prev_vt)) {
			rc = tsr_fail(r, TSR_ERR_CORRUPT,
			              "'%s': compute_set_vertex_type changed while read or is out of order",
			              r->path);
			break;
		}
		/* Close the groups of the compute sets before this one. */
		for (int64_t c = prev_cs + 1; c <= cs; c++)
			first[c] = k;
		prev_cs = cs;
		prev_vt = vt;
		rowsv[k++] = (tsr_vertex_type_cycles){(size_t)vt, (uint64_t)cycles, (uint64_t)count, 1};
	}
	sqlite3_finalize(st);
	if (rc < 0 || (rc != SQLITE_DONE && rc != TSR_OK))
		return rc < 0 ? rc : TSR_ERR_CORRUPT;
	for (size_t c = (size_t)(prev_cs + 1); c <= n_cs; c++)
		first[c] = k;
	for (size_t c = 0; c < n_cs; c++)
		qsort(rowsv + first[c], first[c + 1] - first[c], sizeof(*rowsv),
		      cmp_vertex_type_cycles);
	r->cs_vertex_types = rowsv;
	r->cs_vertex_types_first = first;
	r->n_cs_vertex_types = k;
	return TSR_OK;
}

int tsr_report_get_compute_set_vertex_types(const tsr_vertex_type_cycles **out, size_t *n,
                                            tsr_report *report, size_t cs)
{
	int rc;

	if (out)
		*out = NULL;
	if (n)
		*n = 0;
	if (!report || !out || !n)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                         "tsr_report_get_compute_set_vertex_types: NULL argument")
		              : TSR_ERR_INVALID_ARGUMENT;
	if (cs >= compute_set_count(report))
		return tsr_fail(report, TSR_ERR_OUT_OF_RANGE, "compute set %zu of %zu", cs,
		                compute_set_count(report));
	if (!report->cs_vertex_types_first && (rc = load_cs_vertex_types(report)) != TSR_OK)
		return rc;
	*out = report->cs_vertex_types + report->cs_vertex_types_first[cs];
	*n = report->cs_vertex_types_first[cs + 1] - report->cs_vertex_types_first[cs];
	return TSR_OK;
}

/*
 * FLOPs of a run (each compute set's flops per execution times its
 * OnTileExecute steps in the run) and the utilisation of the target's
 * peak over the run's length: peak = flops per tile per cycle (fp32, or
 * fp16 AMP when `half`) x tiles x clock.
 */
int tsr_report_fill_run_flops(tsr_flops *out, tsr_report *report, size_t run, bool half)
{
	const tsr_target *t;
	double per_cycle, peak_per_run;
	size_t n_cs;
	int rc;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!report || !out)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                         "tsr_report_fill_run_flops: NULL argument")
		              : TSR_ERR_INVALID_ARGUMENT;
	rc = tsr_load_steps(report, run);
	if (rc)
		return rc;
	t = &report->target;
	n_cs = compute_set_count(report);
	for (size_t i = 0; i < report->n_steps[run]; i++) {
		const tsr_step *s = &report->steps[run][i];

		if (s->type == TSR_STEP_ON_TILE_EXECUTE && s->compute_set >= 0 &&
		    (size_t)s->compute_set < n_cs)
			out->flops = sat_add(out->flops, report->compute_sets[s->compute_set].flops);
	}
	out->cycles = report->runs[run].cycles;
	per_cycle = (double)(half ? t->fp16_amp_flops_per_cycle : t->fp32_flops_per_cycle) *
	            (double)t->num_tiles;
	out->peak_flops_per_second = per_cycle * (double)t->clock_frequency;
	if (t->clock_frequency) {
		out->seconds = (double)out->cycles / (double)t->clock_frequency;
		if (out->seconds > 0)
			out->flops_per_second = (double)out->flops / out->seconds;
	}
	/* Utilisation in cycles, so a report without a clock still has one. */
	peak_per_run = per_cycle * (double)out->cycles;
	if (peak_per_run > 0)
		out->utilisation = (double)out->flops / peak_per_run;
	return TSR_OK;
}
