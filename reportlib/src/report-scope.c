/*
 * Memory on a range of tiles: the whole replica, one IPU or one tile (the
 * Graph Analyser's Insights scopes), by vertex type, by exchange program
 * and by variable. The whole replica reads the plain totals beside the
 * blobs; a smaller range walks each blob's runs (tsf_tile_runs_iter) and
 * adds only the runs that meet the range, so a 164,000-variable report
 * costs its runs, not variables x tiles.
 */
#include <tilescope/alloc.h>
#include "report-private.h"

#include <stdlib.h>
#include <string.h>

/* Checks [first, first + count) against the report's tiles. */
static int check_range(tsr_report *r, size_t first, size_t count, const char *fn)
{
	if (!count || first >= r->target.num_tiles || count > r->target.num_tiles - first)
		return tsr_fail(r, TSR_ERR_OUT_OF_RANGE, "%s: tiles %zu..+%zu of %u", fn, first, count,
		                r->target.num_tiles);
	return TSR_OK;
}

/*
 * Column `col` of the current row, a tile-runs blob, summed over the
 * tiles [lo, hi) into *sum. A malformed blob or a sum past INT64_MAX is
 * TSR_ERR_CORRUPT naming `what`.
 */
static int range_sum(tsr_report *r, uint64_t *sum, sqlite3_stmt *st, int col, size_t lo,
                     size_t hi, const char *what)
{
	int type = sqlite3_column_type(st, col), more = 0;
	tsf_tile_runs_iter it;
	tsf_tile_run run;

	*sum = 0;
	if ((type != SQLITE_BLOB && type != SQLITE_NULL) ||
	    tsf_tile_runs_iter_init(&it, sqlite3_column_blob(st, col),
	                            (size_t)sqlite3_column_bytes(st, col), r->target.num_tiles))
		more = -1;
	while (more >= 0 && (more = tsf_tile_runs_iter_next(&it, &run)) == 1) {
		uint64_t a = run.first > lo ? run.first : lo;
		uint64_t b = run.first + run.count < hi ? run.first + run.count : hi;

		if (a >= b)
			continue;
		if (run.value && (b - a > INT64_MAX / run.value ||
		                  *sum > (uint64_t)INT64_MAX - (b - a) * run.value))
			more = -1;
		else
			*sum += (b - a) * run.value;
	}
	return more < 0 ? tsr_fail(r, TSR_ERR_CORRUPT, "'%s': %s is malformed or overflows",
	                           r->path, what)
	                : TSR_OK;
}

/* Steps `st` to its next row: 1 for a row, 0 at the end, else the code. */
static int next_row(tsr_report *r, sqlite3_stmt *st, int *rc)
{
	*rc = tsr_step_row(r, st);
	if (*rc == SQLITE_ROW)
		return (*rc = TSR_OK), 1;
	if (*rc == SQLITE_DONE)
		*rc = TSR_OK;
	return 0;
}

static int vertex_desc(const void *a, const void *b)
{
	const tsr_vertex_type_memory *x = a, *y = b;

	if (x->memory.total != y->memory.total)
		return x->memory.total > y->memory.total ? -1 : 1;
	return x->vertex_type < y->vertex_type ? -1 : x->vertex_type > y->vertex_type;
}

int tsr_report_list_vertex_memory_on_tiles(tsr_vertex_type_memory **out, size_t *n,
                                           tsr_report *report, size_t first_tile, size_t n_tiles)
{
	const tsr_vertex_type *types;
	tsr_vertex_type_memory *rows = NULL;
	sqlite3_stmt *st = NULL;
	size_t n_types = 0, kept = 0;
	bool whole;
	int rc;

	if (!report || !out || !n)
		return tsr_fail_null_argument(report, "tsr_report_list_vertex_memory_on_tiles");
	*out = NULL;
	*n = 0;
	if ((rc = check_range(report, first_tile, n_tiles, "vertex memory")) ||
	    (rc = tsr_report_get_vertex_types(&types, &n_types, report)))
		return rc;
	whole = n_tiles == report->target.num_tiles;
	rows = tsb_calloc(n_types ? n_types : 1, sizeof(*rows));
	if (!rows)
		return tsr_fail(report, TSR_ERR_NO_MEMORY, "vertex memory: out of host memory");
	for (size_t t = 0; !rc && t < n_types; t++) {
		tsr_vertex_type_memory *m = &rows[t];

		m->vertex_type = t;
		if (whole) {
			rc = tsr_report_fill_vertex_type_memory(&m->memory, report, t, -1);
			m->vertices = types[t].instances;
			continue;
		}
		if (!st)
			rc = tsr_prepare(report, &st,
			                 "SELECT code_bytes_by_tile, copy_ptr_bytes_by_tile, "
			                 "descriptor_bytes_by_tile, edge_ptr_bytes_by_tile, "
			                 "padding_bytes_by_tile, vertex_data_bytes_by_tile, "
			                 "total_bytes_by_tile FROM memory_by_vertex_type WHERE vertex_type = ?");
		else
			sqlite3_reset(st);
		if (rc)
			break;
		sqlite3_bind_int64(st, 1, (int64_t)t);
		if (!next_row(report, st, &rc)) {
			rc = rc ? rc : tsr_fail(report, TSR_ERR_CORRUPT,
			                        "'%s': memory_by_vertex_type has no row for vertex type %zu",
			                        report->path, t);
			break;
		}
		{
			uint64_t *f[7] = {&m->memory.code,    &m->memory.copy_ptr, &m->memory.descriptor,
			                  &m->memory.edge_ptr, &m->memory.padding, &m->memory.vertex_data,
			                  &m->memory.total};

			for (int k = 0; !rc && k < 7; k++)
				rc = range_sum(report, f[k], st, k, first_tile, first_tile + n_tiles,
				               "memory_by_vertex_type's bytes by tile");
		}
		m->vertices = types[t].state_bytes ? m->memory.vertex_data / types[t].state_bytes
		                                   : UINT64_MAX;
	}
	sqlite3_finalize(st);
	for (size_t t = 0; !rc && t < n_types; t++)
		if (rows[t].memory.total)
			rows[kept++] = rows[t];
	if (rc) {
		free(rows);
		return rc;
	}
	qsort(rows, kept, sizeof(*rows), vertex_desc);
	*out = rows;
	*n = kept;
	return TSR_OK;
}

static int exchange_desc(const void *a, const void *b)
{
	const tsr_exchange_memory *x = a, *y = b;

	if (x->buffers != y->buffers)
		return x->buffers > y->buffers ? -1 : 1;
	if (x->code != y->code)
		return x->code > y->code ? -1 : 1;
	return x->program < y->program ? -1 : x->program > y->program;
}

int tsr_report_list_exchange_memory_on_tiles(tsr_exchange_memory **out, size_t *n,
                                             tsr_report *report, size_t first_tile,
                                             size_t n_tiles)
{
	const tsr_program *programs;
	tsr_exchange_memory *rows = NULL;
	sqlite3_stmt *st = NULL;
	size_t n_programs = 0, kept = 0;
	bool whole;
	int rc;

	if (!report || !out || !n)
		return tsr_fail_null_argument(report, "tsr_report_list_exchange_memory_on_tiles");
	*out = NULL;
	*n = 0;
	if ((rc = check_range(report, first_tile, n_tiles, "exchange memory")) ||
	    (rc = tsr_report_get_programs(&programs, &n_programs, report)))
		return rc;
	whole = n_tiles == report->target.num_tiles;
	rows = tsb_calloc(n_programs ? n_programs : 1, sizeof(*rows));
	if (!rows)
		return tsr_fail(report, TSR_ERR_NO_MEMORY, "exchange memory: out of host memory");
	for (size_t p = 0; p < n_programs; p++) {
		rows[p].program = (uint32_t)p;
		rows[p].code = programs[p].exchange >= 0 ? programs[p].code_bytes : 0;
	}
	/* A message buffer belongs to the exchange of the liveness step where
	 * it becomes live (the writer makes one per exchange, live over it).
	 * All tiles: from the variables and steps in memory, no blob read. */
	if (whole) {
		const tsr_variable *v;
		const tsr_liveness_step *steps;
		size_t n_vars, n_steps;

		if ((rc = tsr_report_get_variables(&v, &n_vars, report)) ||
		    (rc = tsr_report_get_liveness_steps(&steps, &n_steps, report))) {
			free(rows);
			return rc;
		}
		for (size_t i = 0; i < n_vars; i++) {
			tsr_mem_category c = v[i].mem_category;
			uint32_t p;

			if ((c != TSR_MEM_MESSAGE && c != TSR_MEM_HOST_MESSAGE &&
			     c != TSR_MEM_GLOBAL_MESSAGE) ||
			    v[i].live_from < 0 || (size_t)v[i].live_from >= n_steps ||
			    (p = steps[v[i].live_from].program) >= n_programs)
				continue;
			if (rows[p].buffers > (uint64_t)INT64_MAX - v[i].bytes) {
				free(rows);
				return tsr_fail(report, TSR_ERR_CORRUPT, "'%s': message buffers overflow",
				                report->path);
			}
			rows[p].buffers += v[i].bytes;
		}
	} else {
		rc = tsr_prepare(report, &st,
		                 "SELECT l.program, v.bytes_by_tile FROM variable v "
		                 "JOIN liveness_step l ON l.id = v.live_from "
		                 "WHERE v.category IN ('message', 'hostMessage', 'globalMessage')");
	}
	while (!rc && st && next_row(report, st, &rc)) {
		int64_t p;
		uint64_t on;

		if ((rc = tsr_column_int(report, &p, st, 0, 0, (int64_t)n_programs - 1,
		                         "liveness_step.program")) ||
		    (rc = range_sum(report, &on, st, 1, first_tile, first_tile + n_tiles,
		                    "variable.bytes_by_tile")))
			break;
		if (rows[p].buffers > (uint64_t)INT64_MAX - on)
			rc = tsr_fail(report, TSR_ERR_CORRUPT, "'%s': message buffers overflow",
			              report->path);
		else
			rows[p].buffers += on;
	}
	sqlite3_finalize(st);
	if (rc) {
		free(rows);
		return rc;
	}
	for (size_t p = 0; p < n_programs; p++)
		if (rows[p].buffers || (whole && rows[p].code))
			rows[kept++] = rows[p];
	qsort(rows, kept, sizeof(*rows), exchange_desc);
	*out = rows;
	*n = kept;
	return TSR_OK;
}

static int variable_desc(const void *a, const void *b)
{
	const tsr_variable_bytes *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->variable < y->variable ? -1 : x->variable > y->variable;
}

/* The index of variable id `id` in the listed variables (by id), or n. */
static size_t variable_index(const tsr_variable *v, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((int64_t)v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && (int64_t)v[lo].id == id ? lo : n;
}

int tsr_report_list_variables_on_tiles(tsr_variable_bytes **out, size_t *n, tsr_report *report,
                                       size_t first_tile, size_t n_tiles, bool user_only)
{
	const tsr_variable *vars;
	tsr_variable_bytes *rows = NULL;
	sqlite3_stmt *st = NULL;
	size_t n_vars = 0, kept = 0;
	int rc;

	if (!report || !out || !n)
		return tsr_fail_null_argument(report, "tsr_report_list_variables_on_tiles");
	*out = NULL;
	*n = 0;
	if ((rc = check_range(report, first_tile, n_tiles, "variables on tiles")) ||
	    (rc = tsr_report_get_variables(&vars, &n_vars, report)))
		return rc;
	rows = tsb_calloc(n_vars ? n_vars : 1, sizeof(*rows));
	if (!rows)
		return tsr_fail(report, TSR_ERR_NO_MEMORY, "variables on tiles: out of host memory");
	if (n_tiles == report->target.num_tiles) {
		for (size_t i = 0; i < n_vars; i++)
			if (vars[i].bytes && (!user_only || vars[i].mem_category == TSR_MEM_VARIABLE ||
			                      vars[i].mem_category == TSR_MEM_CONSTANT))
				rows[kept++] = (tsr_variable_bytes){i, vars[i].bytes};
	} else {
		rc = tsr_prepare(report, &st,
		                 user_only ? "SELECT id, bytes_by_tile FROM variable "
		                             "WHERE category IN ('variable', 'constant')"
		                           : "SELECT id, bytes_by_tile FROM variable");
		while (!rc && next_row(report, st, &rc)) {
			int64_t id;
			uint64_t on;
			size_t i;

			if ((rc = tsr_column_int(report, &id, st, 0, 0, INT64_MAX, "variable.id")) ||
			    (rc = range_sum(report, &on, st, 1, first_tile, first_tile + n_tiles,
			                    "variable.bytes_by_tile")))
				break;
			if (on && (i = variable_index(vars, n_vars, id)) < n_vars && kept < n_vars)
				rows[kept++] = (tsr_variable_bytes){i, on};
		}
		sqlite3_finalize(st);
	}
	if (rc) {
		free(rows);
		return rc;
	}
	qsort(rows, kept, sizeof(*rows), variable_desc);
	*out = rows;
	*n = kept;
	return TSR_OK;
}
