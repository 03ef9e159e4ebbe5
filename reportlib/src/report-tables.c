/*
 * The tables read at open, served: the report's info, target and counts,
 * the sync delays, programs, control and function programs, compute sets,
 * vertex types, exchanges, runs and per-tile compute-set cycles. Arrays
 * are borrowed from the handle (valid until tsr_report_free).
 */
#include "report-private.h"

#include <stdlib.h>
#include <string.h>

const tsr_report_info *tsr_report_get_info(const tsr_report *report)
{
	return report ? &report->info : NULL;
}

const tsr_target *tsr_report_get_target(const tsr_report *report)
{
	return report ? &report->target : NULL;
}

const tsr_graph_counts *tsr_report_get_counts(const tsr_report *report)
{
	return report ? &report->counts : NULL;
}

/* Sync delays of one IPU's tiles, decoded from the target's blob. */
int tsr_report_fill_relative_sync_delays(uint64_t *out, size_t n, tsr_report *report)
{
	sqlite3_stmt *st = NULL;
	size_t per = report ? report->target.tiles_per_ipu : 0;
	int rc;

	if (!report || !out)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "relative sync delays: NULL argument");
	if (n < per)
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                "relative sync delays: %zu entries for %zu tiles per IPU", n, per);
	rc = tsr_prepare(report, &st, "SELECT relative_sync_delay_by_tile FROM target");
	if (!rc) {
		rc = tsr_step_row(report, st);
		if (rc == SQLITE_ROW)
			rc = tsr_column_tiles(report, out, per, st, 0, "target.relative_sync_delay_by_tile");
		else if (rc == SQLITE_DONE)
			rc = tsr_fail(report, TSR_ERR_CORRUPT, "'%s': the target table is empty",
			              report->path);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Common argument check of the array getters. */
static int check_out(tsr_report *r, const void *out, const size_t *n, const char *what)
{
	return !r || !out || !n ? tsr_fail_null_argument(r, what) : TSR_OK;
}

int tsr_report_get_programs(const tsr_program **out, size_t *n, tsr_report *report)
{
	int rc = check_out(report, out, n, "tsr_report_get_programs");

	if (rc)
		return rc;
	*out = report->programs;
	*n = report->counts.programs;
	return TSR_OK;
}

int tsr_report_get_control_programs(const uint32_t **out, size_t *n, tsr_report *report)
{
	int rc = check_out(report, out, n, "tsr_report_get_control_programs");

	if (rc)
		return rc;
	*out = report->control_programs;
	*n = report->counts.control_programs;
	return TSR_OK;
}

int tsr_report_get_function_programs(const uint32_t **out, size_t *n, tsr_report *report)
{
	int rc = check_out(report, out, n, "tsr_report_get_function_programs");

	if (rc)
		return rc;
	*out = report->function_programs;
	*n = report->counts.function_programs;
	return TSR_OK;
}

int tsr_report_get_compute_sets(const tsr_compute_set **out, size_t *n, tsr_report *report)
{
	int rc = check_out(report, out, n, "tsr_report_get_compute_sets");

	if (rc)
		return rc;
	*out = report->compute_sets;
	*n = tsr_compute_set_count(report);
	return TSR_OK;
}

int tsr_report_get_vertex_types(const tsr_vertex_type **out, size_t *n, tsr_report *report)
{
	int rc = check_out(report, out, n, "tsr_report_get_vertex_types");

	if (rc)
		return rc;
	*out = report->vertex_types;
	*n = report->counts.vertex_types;
	return TSR_OK;
}

int tsr_report_get_exchanges(const tsr_exchange **out, size_t *n, tsr_report *report,
                             tsr_exchange_kind kind)
{
	int rc = check_out(report, out, n, "tsr_report_get_exchanges");

	if (rc)
		return rc;
	if ((unsigned)kind >= TSR_EXCHANGE_KIND_COUNT)
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "tsr_report_get_exchanges: kind %d",
		                (int)kind);
	*out = report->exchanges[kind];
	*n = kind == TSR_EXCHANGE_INTERNAL   ? report->counts.internal_exchanges
	     : kind == TSR_EXCHANGE_EXTERNAL ? report->counts.external_exchanges
	                                     : report->counts.host_exchanges;
	return TSR_OK;
}

int tsr_report_get_runs(const tsr_run **out, size_t *n, tsr_report *report)
{
	int rc = check_out(report, out, n, "tsr_report_get_runs");

	if (rc)
		return rc;
	*out = report->runs;
	*n = report->counts.runs;
	return TSR_OK;
}

/* Cycles of one compute set on each tile, decoded from its blob. */
int tsr_report_fill_compute_set_cycles_by_tile(uint64_t *out, size_t n, tsr_report *report,
                                               size_t cs, bool active)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (!report || !out)
		return check_out(report, NULL, NULL, "tsr_report_fill_compute_set_cycles_by_tile");
	if (n < report->target.num_tiles)
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                "compute set cycles by tile: %zu entries for %u tiles", n,
		                report->target.num_tiles);
	if (cs >= tsr_compute_set_count(report))
		return tsr_fail(report, TSR_ERR_OUT_OF_RANGE, "compute set %zu of %zu", cs,
		                tsr_compute_set_count(report));
	rc = tsr_prepare(report, &st,
	                 active ? "SELECT active_cycles_by_tile FROM compute_set WHERE id = ?"
	                        : "SELECT cycles_by_tile FROM compute_set WHERE id = ?");
	if (!rc) {
		sqlite3_bind_int64(st, 1, (int64_t)cs);
		rc = tsr_step_row(report, st);
		if (rc == SQLITE_ROW)
			rc = tsr_column_tiles(report, out, report->target.num_tiles, st, 0,
			                      active ? "compute_set.active_cycles_by_tile"
			                             : "compute_set.cycles_by_tile");
		else if (rc == SQLITE_DONE)
			rc = tsr_fail(report, TSR_ERR_CORRUPT, "'%s': compute set %zu vanished",
			              report->path, cs);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Cycles of one exchange on each tile, decoded from its blob. */
int tsr_report_fill_exchange_cycles_by_tile(uint64_t *out, size_t n, tsr_report *report,
                                            tsr_exchange_kind kind, size_t exchange)
{
	static const char *const kinds[TSR_EXCHANGE_KIND_COUNT] = {"internal", "external", "host"};
	const tsr_exchange *ex;
	sqlite3_stmt *st = NULL;
	size_t n_ex;
	int rc;

	if (!report || !out)
		return check_out(report, NULL, NULL, "tsr_report_fill_exchange_cycles_by_tile");
	if (n < report->target.num_tiles)
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		                "exchange cycles by tile: %zu entries for %u tiles", n,
		                report->target.num_tiles);
	if ((rc = tsr_report_get_exchanges(&ex, &n_ex, report, kind)))
		return rc;
	if (exchange >= n_ex)
		return tsr_fail(report, TSR_ERR_OUT_OF_RANGE, "%s exchange %zu of %zu", kinds[kind],
		                exchange, n_ex);
	rc = tsr_prepare(report, &st, "SELECT cycles_by_tile FROM exchange WHERE kind = ?1 AND id = ?2");
	if (!rc) {
		sqlite3_bind_text(st, 1, kinds[kind], -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (int64_t)exchange);
		rc = tsr_step_row(report, st);
		if (rc == SQLITE_ROW)
			rc = tsr_column_tiles(report, out, report->target.num_tiles, st, 0,
			                      "exchange.cycles_by_tile");
		else if (rc == SQLITE_DONE)
			rc = tsr_fail(report, TSR_ERR_CORRUPT, "'%s': %s exchange %zu vanished",
			              report->path, kinds[kind], exchange);
	}
	sqlite3_finalize(st);
	return rc;
}
