/*
 * Variable liveness: the static program order's steps with their
 * not-always-live bytes (liveness_step, read on first use by
 * tsr_load_liveness), the always-live total, the peak step, and the
 * breakdowns at one step by tile, by IPU and by variable.
 *
 * The per-tile and per-IPU breakdowns and the live variables come from
 * the listed variables' intervals and bytes_by_tile. Without
 * autoReport.outputLoweredVars the compiler's allocations (exchange
 * buffers ...) are not listed, so these breakdowns then hold only the
 * user's variables and constants and add up to less than the step's
 * not_always_live bytes; with lowered_vars they are complete
 * (tsr_report_info.lowered_vars says which).
 */
#include <tilescope/alloc.h>
#include "report-private.h"

#include <stdlib.h>
#include <string.h>

/*
 * Reads liveness_step: ids 0..n-1 (checked at open), each naming a
 * program, and a parent step before it (so the call-stack tree has no
 * cycle) one level shallower.
 */
int tsr_load_liveness(tsr_report *r)
{
	sqlite3_stmt *st = NULL;
	size_t n = r->counts.liveness_steps;
	tsr_liveness_step *steps;
	int rc;

	if (r->liveness_loaded)
		return TSR_OK;
	if (n > SIZE_MAX / sizeof(*steps) - 1)
		return tsr_fail(r, TSR_ERR_TOO_LARGE, "'%s': %zu liveness steps are too many", r->path, n);
	steps = tsr_pool_alloc(r, (n ? n : 1) * sizeof(*steps));
	if (!steps)
		return TSR_ERR_TOO_LARGE; /* recorded by the pool */
	rc = tsr_prepare(r, &st, "SELECT id, program, parent, depth, not_always_live_bytes "
	                         "FROM liveness_step ORDER BY id");
	for (size_t i = 0; !rc; i++) {
		tsr_liveness_step *s;
		int64_t v;

		rc = tsr_step_counted(r, st, i, n, "liveness_step");
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		s = &steps[i];
		rc = tsr_column_int(r, &v, st, 0, (int64_t)i, (int64_t)i, "liveness_step.id");
		if (!rc)
			rc = tsr_column_int(r, &v, st, 1, 0, (int64_t)r->counts.programs - 1,
			                    "liveness_step.program");
		s->program = (uint32_t)v;
		if (!rc)
			rc = tsr_column_id_or_null(r, &s->parent, st, 2, (int64_t)i - 1,
			                           "liveness_step.parent");
		if (!rc)
			rc = tsr_column_int(r, &v, st, 3, 0, UINT32_MAX, "liveness_step.depth");
		s->depth = (uint32_t)v;
		if (!rc && s->depth != (s->parent < 0 ? 0 : steps[s->parent].depth + 1))
			rc = tsr_fail(r, TSR_ERR_CORRUPT,
			              "'%s': liveness step %zu's depth %u disagrees with its parent's", r->path,
			              i, s->depth);
		if (!rc)
			rc = tsr_column_int(r, &v, st, 4, 0, INT64_MAX, "liveness_step.not_always_live_bytes");
		s->not_always_live = (uint64_t)v;
	}
	sqlite3_finalize(st);
	if (rc)
		return rc;
	r->liveness = steps;
	r->liveness_loaded = true;
	return TSR_OK;
}

int tsr_report_get_liveness_steps(const tsr_liveness_step **out, size_t *n, tsr_report *report)
{
	int rc;

	if (!report || !out || !n)
		return tsr_fail_null_argument(report, "tsr_report_get_liveness_steps");
	*out = NULL;
	*n = 0;
	rc = tsr_load_liveness(report);
	if (rc)
		return rc;
	*out = report->liveness;
	*n = report->counts.liveness_steps;
	return TSR_OK;
}

uint64_t tsr_report_get_always_live_bytes(const tsr_report *report)
{
	return report ? report->always_live_bytes : 0;
}

/* The first step with the most not-always-live bytes. */
int tsr_report_get_peak_liveness(size_t *step, uint64_t *bytes, tsr_report *report)
{
	size_t best = 0;
	int rc;

	if (!report || !step || !bytes)
		return tsr_fail_null_argument(report, "tsr_report_get_peak_liveness");
	rc = tsr_load_liveness(report);
	if (rc)
		return rc;
	if (report->counts.liveness_steps == 0)
		return tsr_fail(report, TSR_ERR_NO_DATA, "'%s': the report has no liveness steps",
		                report->path);
	for (size_t i = 1; i < report->counts.liveness_steps; i++)
		if (report->liveness[i].not_always_live > report->liveness[best].not_always_live)
			best = i;
	*step = best;
	*bytes = report->liveness[best].not_always_live;
	return TSR_OK;
}

/* Checks `step` against the liveness steps. */
static int check_step(tsr_report *r, size_t step)
{
	if (step >= r->counts.liveness_steps)
		return tsr_fail(r, TSR_ERR_OUT_OF_RANGE, "liveness step %zu of %zu", step,
		                r->counts.liveness_steps);
	return TSR_OK;
}

/* Not-always-live bytes of the listed variables at `step` on each tile. */
int tsr_report_fill_liveness_by_tile(uint64_t *out, size_t n, tsr_report *report, size_t step)
{
	sqlite3_stmt *st = NULL;
	uint64_t *dense;
	size_t nt;
	int rc;

	rc = tsr_check_by_tile(report, out, n, "tsr_report_fill_liveness_by_tile", "liveness by tile", &nt);
	if (rc)
		return rc;
	rc = check_step(report, step);
	if (rc)
		return rc;
	memset(out, 0, nt * sizeof(*out));
	dense = tsr_alloc(report, nt, sizeof(*dense));
	if (!dense)
		return TSR_ERR_TOO_LARGE;
	rc = tsr_prepare(report, &st,
	                 "SELECT bytes_by_tile, bytes FROM variable WHERE always_live = 0 "
	                 "AND live_from <= ?1 AND live_to >= ?1");
	if (!rc)
		sqlite3_bind_int64(st, 1, (int64_t)step);
	while (!rc) {
		rc = tsr_step_row(report, st);
		if (rc == SQLITE_DONE) {
			rc = TSR_OK;
			break;
		}
		if (rc != SQLITE_ROW)
			break;
		rc = tsr_column_tiles_total(report, dense, nt, st, 0, "variable.bytes_by_tile", 1,
		                            "variable.bytes");
		for (size_t t = 0; !rc && t < nt; t++) {
			if (dense[t] > UINT64_MAX - out[t])
				rc = tsr_fail(report, TSR_ERR_CORRUPT, "'%s': live bytes add up past 2^64",
				              report->path);
			else
				out[t] += dense[t];
		}
	}
	sqlite3_finalize(st);
	tsr_free(report, dense, nt * sizeof(*dense));
	if (rc)
		memset(out, 0, nt * sizeof(*out));
	return rc;
}

/* The same summed per IPU. */
int tsr_report_fill_liveness_by_ipu(uint64_t *out, size_t n, tsr_report *report, size_t step)
{
	uint64_t *tiles;
	size_t nt, per;
	int rc;

	if (!report || !out)
		return tsr_fail_null_argument(report, "tsr_report_fill_liveness_by_ipu");
	if (n < report->target.num_ipus)
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                "liveness by IPU: %zu entries for %u IPUs", n, report->target.num_ipus);
	nt = report->target.num_tiles;
	per = report->target.tiles_per_ipu;
	tiles = tsr_alloc(report, nt, sizeof(*tiles));
	if (!tiles)
		return TSR_ERR_TOO_LARGE;
	rc = tsr_report_fill_liveness_by_tile(tiles, nt, report, step);
	memset(out, 0, report->target.num_ipus * sizeof(*out));
	for (size_t t = 0; !rc && t < nt; t++) {
		if (tiles[t] > UINT64_MAX - out[t / per])
			rc = tsr_fail(report, TSR_ERR_CORRUPT, "'%s': live bytes add up past 2^64",
			              report->path);
		else
			out[t / per] += tiles[t];
	}
	if (rc)
		memset(out, 0, report->target.num_ipus * sizeof(*out));
	tsr_free(report, tiles, nt * sizeof(*tiles));
	return rc;
}

/* Context of the live-variables sort (qsort has no user pointer). */
static _Thread_local const tsr_variable *sort_vars;

/* Largest first, then by index. */
static int compare_vars(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (sort_vars[x].bytes != sort_vars[y].bytes)
		return sort_vars[x].bytes > sort_vars[y].bytes ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Indexes of the variables live at `step`, always-live ones included. */
int tsr_report_list_live_variables(size_t **out, size_t *n, tsr_report *report, size_t step)
{
	const tsr_variable *vars;
	size_t nv, k = 0;
	size_t *list;
	int rc;

	if (!report || !out || !n)
		return tsr_fail_null_argument(report, "tsr_report_list_live_variables");
	*out = NULL;
	*n = 0;
	rc = check_step(report, step);
	if (!rc)
		rc = tsr_report_get_variables(&vars, &nv, report);
	if (rc)
		return rc;
	list = tsb_malloc((nv ? nv : 1) * sizeof(*list));
	if (!list)
		return tsr_fail(report, TSR_ERR_NO_MEMORY, "live variables: out of host memory");
	for (size_t i = 0; i < nv; i++)
		if (vars[i].always_live ||
		    (vars[i].live_from >= 0 && (size_t)vars[i].live_from <= step &&
		     (size_t)vars[i].live_to >= step))
			list[k++] = i;
	sort_vars = vars;
	qsort(list, k, sizeof(*list), compare_vars);
	*out = list;
	*n = k;
	return TSR_OK;
}
