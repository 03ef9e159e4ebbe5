/*
 * What one program step runs (report.h): the vertices of an OnTileExecute
 * step's compute set by vertex type, and the cycle estimate over tiles of
 * a compute-set or exchange step. The Graph Analyser's Liveness view
 * shows them for the step picked on its chart.
 */
#include <tilescope/alloc.h>
#include "report-private.h"

#include <stdlib.h>
#include <string.h>

/* cycles_by_tile of compute set `cs`, or of exchange `id` of `kind`
 * (kind -1: the compute set), into out[0..num_tiles). */
static int fill_cycles(uint64_t *out, tsr_report *r, int kind, size_t id)
{
	size_t nt = r->target.num_tiles;

	return kind < 0 ? tsr_report_fill_compute_set_cycles_by_tile(out, nt, r, id, false)
	                : tsr_report_fill_exchange_cycles_by_tile(out, nt, r, (tsr_exchange_kind)kind, id);
}

/* Tiles where both `a` and the code of vertex type `vt` are non-zero:
 * memory_by_vertex_type.code_bytes_by_tile decoded into `code`. A type
 * without a row holds code nowhere. */
static int count_code_tiles(uint32_t *out, tsr_report *r, const uint64_t *a, uint64_t *code,
                            size_t vt)
{
	sqlite3_stmt *st = NULL;
	size_t nt = r->target.num_tiles;
	int rc = tsr_prepare(r, &st,
	                     "SELECT code_bytes_by_tile FROM memory_by_vertex_type WHERE vertex_type = ?");

	*out = 0;
	memset(code, 0, nt * sizeof(*code));
	if (!rc) {
		sqlite3_bind_int64(st, 1, (int64_t)vt);
		rc = tsr_step_row(r, st);
		if (rc == SQLITE_ROW)
			rc = tsr_column_tiles(r, code, nt, st, 0, "memory_by_vertex_type.code_bytes_by_tile");
		else if (rc == SQLITE_DONE)
			rc = TSR_OK;
	}
	sqlite3_finalize(st);
	for (size_t t = 0; !rc && t < nt; t++)
		*out += a[t] && code[t];
	return rc;
}

int tsr_report_list_compute_set_vertices(tsr_cs_vertices **out, size_t *n, tsr_report *report,
                                         size_t cs)
{
	const tsr_vertex_type_cycles *by;
	size_t n_by = 0, nt;
	uint64_t *cycles = NULL, *code = NULL;
	tsr_cs_vertices *list = NULL;
	int rc;

	if (!report || !out || !n)
		return tsr_fail_null_argument(report, "tsr_report_list_compute_set_vertices");
	*out = NULL;
	*n = 0;
	if ((rc = tsr_report_get_compute_set_vertex_types(&by, &n_by, report, cs)))
		return rc;
	nt = report->target.num_tiles;
	cycles = tsr_alloc_rc(report, &rc, nt ? nt : 1, sizeof(*cycles));
	if (!rc)
		code = tsr_alloc_rc(report, &rc, nt ? nt : 1, sizeof(*code));
	if (!rc && !(list = tsb_calloc(n_by ? n_by : 1, sizeof(*list))))
		rc = tsr_fail(report, TSR_ERR_NO_MEMORY, "compute set vertices: out of host memory");
	if (!rc)
		rc = fill_cycles(cycles, report, -1, cs);
	for (size_t i = 0; !rc && i < n_by; i++) {
		uint64_t per = by[i].vertex_type < report->counts.vertex_types
		                   ? report->vertex_types[by[i].vertex_type].state_bytes
		                   : 0;

		list[i].vertex_type = by[i].vertex_type;
		list[i].count = by[i].instances;
		list[i].active_cycles = by[i].cycles;
		list[i].state_bytes = per && by[i].instances > UINT64_MAX / per ? UINT64_MAX
		                                                                : per * by[i].instances;
		rc = count_code_tiles(&list[i].tiles, report, cycles, code, by[i].vertex_type);
	}
	if (code)
		tsr_free(report, code, (nt ? nt : 1) * sizeof(*code));
	if (cycles)
		tsr_free(report, cycles, (nt ? nt : 1) * sizeof(*cycles));
	if (rc) {
		free(list);
		return rc;
	}
	*out = list;
	*n = n_by;
	return TSR_OK;
}

int tsr_report_fill_program_cycle_estimate(tsr_cycle_estimate *out, tsr_report *report,
                                           size_t program)
{
	const tsr_program *p;
	uint64_t *cycles;
	size_t nt;
	int rc;

	if (!report || !out)
		return tsr_fail_null_argument(report, "tsr_report_fill_program_cycle_estimate");
	memset(out, 0, sizeof(*out));
	if (program >= report->counts.programs)
		return tsr_fail(report, TSR_ERR_OUT_OF_RANGE, "program %zu of %zu", program,
		                report->counts.programs);
	p = &report->programs[program];
	if (p->compute_set < 0 && p->exchange < 0)
		return tsr_fail(report, TSR_ERR_NO_DATA,
		                "a %s program has no cycle estimate by tile: only compute sets "
		                "(OnTileExecute) and exchanges have one",
		                tsr_program_type_name(p->program_type) ? tsr_program_type_name(p->program_type)
		                                                       : "?");
	nt = report->target.num_tiles;
	if (!(cycles = tsr_alloc_rc(report, &rc, nt ? nt : 1, sizeof(*cycles))))
		return rc;
	rc = p->compute_set >= 0 ? fill_cycles(cycles, report, -1, (size_t)p->compute_set)
	                         : fill_cycles(cycles, report, (int)p->exchange_kind, (size_t)p->exchange);
	for (size_t t = 0; !rc && t < nt; t++) {
		uint64_t c = cycles[t];
		size_t k;

		if (!c)
			continue;
		out->sum = out->sum > UINT64_MAX - c ? UINT64_MAX : out->sum + c;
		out->min = out->tiles == 0 || c < out->min ? c : out->min;
		out->cycles = c > out->cycles ? c : out->cycles;
		out->tiles++;
		/* Insertion into the short list of the busiest: most first, the
		 * lower tile first among equals (tiles come in order). */
		for (k = out->n_busiest; k > 0 && out->busiest_cycles[k - 1] < c; k--)
			if (k < TSR_BUSIEST_TILES) {
				out->busiest[k] = out->busiest[k - 1];
				out->busiest_cycles[k] = out->busiest_cycles[k - 1];
			}
		if (k < TSR_BUSIEST_TILES) {
			out->busiest[k] = (uint32_t)t;
			out->busiest_cycles[k] = c;
			if (out->n_busiest < TSR_BUSIEST_TILES)
				out->n_busiest++;
		}
	}
	out->mean = out->tiles ? (double)out->sum / out->tiles : 0;
	tsr_free(report, cycles, (nt ? nt : 1) * sizeof(*cycles));
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}
