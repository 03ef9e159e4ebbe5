/*
 * Guide-shaped exports (export.h): the graph profile and the execution
 * profile of a report as the runtime's serialiser writes them from a live
 * engine.
 *
 * Rather than write the guide's shape a second time, the file is turned
 * back into the runtime's published in-memory profile (tsi_graph_profile
 * and one tsi_run_profile per kept run: type definitions only, reportlib
 * links no runtime code) and handed to the format library's document
 * writer (db-schema/serialise.c), the one the runtime's own
 * tsi_graph_profile_serialise uses, so the two outputs agree by
 * construction and the tests can demand byte equality. Most of the
 * profile comes through report.h; what it does not expose (per-tile blobs
 * of compute sets, exchanges, categories and vertex memory, the vertex
 * types of each compute set, memoryByInstruction) is read here from the
 * tables with report-private.h's checked column helpers.
 *
 * Everything built lives in an arena charged to the report (tsr_alloc),
 * freed when the call returns; strings and id arrays the handle already
 * holds are borrowed. Per-tile arrays are decoded into one scratch row and
 * kept sparse (the tiles with a non-zero value, ascending), as the
 * runtime keeps them. Every id read here is checked against the list it
 * indexes before it is used, and enum tags against their vocabularies.
 *
 * What cannot be rebuilt: without autoReport.outputLoweredVars the file
 * lists only user variables, so "variables" and the liveness arrays built
 * from them (alwaysLive.bytesByTile, notAlwaysLive.maxBytesByTile) cover
 * those only; everything else is as the engine wrote it.
 */
#include "report-private.h"
#include "tilescope/export.h"

#include "serialise.h" /* db-schema/ */

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define EX_BLOCK_BYTES ((size_t)256 * 1024)

/* A block of the export's arena. */
typedef struct ex_block {
	struct ex_block *next;
	size_t size, used; /* bytes of data[] */
	max_align_t data[];
} ex_block;

/* One export: the report, the arena, a scratch row of num_tiles values. */
typedef struct ex_ctx {
	tsr_report *r;
	ex_block *blocks;
	size_t nt;         /* num_tiles */
	uint64_t *scratch; /* nt entries */
} ex_ctx;

/* Zeroed, aligned memory from the arena; NULL (recorded on the report by
 * tsr_alloc) past the cap. Large requests get a block of their own. */
static void *ex_alloc(ex_ctx *c, size_t n, size_t size)
{
	ex_block *b = c->blocks;
	size_t bytes, need;
	void *p;

	if (size && n > SIZE_MAX / size) {
		tsr_fail(c->r, TSR_ERR_TOO_LARGE, "exporting '%s': an array of %zu entries is too large",
		         tsr_report_get_path(c->r), n);
		return NULL;
	}
	bytes = n * size;
	if (bytes > SIZE_MAX - sizeof(*b) - 16) {
		tsr_fail(c->r, TSR_ERR_TOO_LARGE, "exporting '%s': an array is too large",
		         tsr_report_get_path(c->r));
		return NULL;
	}
	need = (bytes + 15) & ~(size_t)15;
	if (!b || b->size - b->used < need) {
		size_t size_b = need > EX_BLOCK_BYTES / 4 ? need : EX_BLOCK_BYTES;
		ex_block *nb = tsr_alloc(c->r, 1, sizeof(*nb) + size_b);

		if (!nb)
			return NULL;
		nb->size = size_b;
		nb->used = 0;
		if (b && need > EX_BLOCK_BYTES / 4) {
			/* Behind the current block, whose free space stays usable. */
			nb->next = b->next;
			b->next = nb;
		} else {
			nb->next = b;
			c->blocks = nb;
		}
		b = nb;
	}
	p = (char *)b->data + b->used;
	b->used += need;
	memset(p, 0, need);
	return p;
}

/* Frees the arena. */
static void ex_free(ex_ctx *c)
{
	while (c->blocks) {
		ex_block *next = c->blocks->next;

		tsr_free(c->r, c->blocks, sizeof(*c->blocks) + c->blocks->size);
		c->blocks = next;
	}
}

/* A checked narrowing of an id that may be -1 to int32_t. */
static int ex_int32(ex_ctx *c, int32_t *out, int64_t v, const char *what)
{
	if (v < -1 || v > INT32_MAX)
		return tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': %s %lld is out of range",
		                tsr_report_get_path(c->r), what, (long long)v);
	*out = (int32_t)v;
	return TSR_OK;
}

/* A debug context id (-1: none) as the runtime keeps it (0: none). */
static int ex_debug_id(ex_ctx *c, uint32_t *out, int64_t v, const char *what)
{
	if (v < -1 || v > UINT32_MAX)
		return tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': %s names debug context %lld",
		                tsr_report_get_path(c->r), what, (long long)v);
	*out = v < 0 ? 0 : (uint32_t)v;
	return TSR_OK;
}

/* dense[0..nt) as the runtime's sparse form: the non-zero tiles, ascending. */
static int ex_sparse(ex_ctx *c, tsi_tile_values *out, const uint64_t *dense)
{
	size_t n = 0, k = 0;
	uint32_t *tiles;
	uint64_t *values;

	memset(out, 0, sizeof(*out));
	for (size_t t = 0; t < c->nt; t++)
		n += dense[t] != 0;
	if (!n)
		return TSR_OK;
	tiles = ex_alloc(c, n, sizeof(*tiles));
	values = ex_alloc(c, n, sizeof(*values));
	if (!tiles || !values)
		return TSR_ERR_TOO_LARGE;
	for (size_t t = 0; t < c->nt; t++) {
		if (dense[t]) {
			tiles[k] = (uint32_t)t; /* nt <= UINT_MAX: checked at the start */
			values[k++] = dense[t];
		}
	}
	out->n = n;
	out->tiles = tiles;
	out->values = values;
	return TSR_OK;
}

/* Blob column `col` of the current row (tile runs, num_tiles entries),
 * decoded and checked, as sparse tile values. */
static int ex_column_tiles(ex_ctx *c, tsi_tile_values *out, sqlite3_stmt *st, int col,
                           const char *what)
{
	int rc = tsr_column_tiles(c->r, c->scratch, c->nt, st, col, what);

	return rc ? rc : ex_sparse(c, out, c->scratch);
}

/* ex_column_tiles with the values' sum checked against the row's column
 * `total_col` (the stored total of the blob). */
static int ex_column_tiles_total(ex_ctx *c, tsi_tile_values *out, sqlite3_stmt *st, int col,
                                 const char *what, int total_col, const char *total_what)
{
	int rc = tsr_column_tiles_total(c->r, c->scratch, c->nt, st, col, what, total_col, total_what);

	return rc ? rc : ex_sparse(c, out, c->scratch);
}

/* Steps a statement; 1 for a row, 0 at the end, or a negative code. */
static int ex_row(ex_ctx *c, sqlite3_stmt *st)
{
	int rc = tsr_step_row(c->r, st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return rc < 0 ? rc : TSR_ERR_CORRUPT;
}

/* --- Vocabularies ---------------------------------------------------------------- */

/* The index of `text` in names[0..n), or -1 (also for NULL text). */
static int ex_find(const char *text, const char *const *names, int n)
{
	for (int i = 0; text && i < n; i++)
		if (strcmp(names[i], text) == 0)
			return i;
	return -1;
}

/* The runtime's enums from their names, or -1 (also for NULL text): the
 * vocabulary's codes are the runtime's (db-schema/vocabulary.h). */
static int ex_category(const char *text)
{
	return tsf_vocab_lookup(TSF_VOCAB_MEM_CATEGORY, text);
}

/* A tag that is not in its vocabulary. */
static int ex_bad_tag(ex_ctx *c, const char *what, const char *text)
{
	return tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': unknown %s '%s'", tsr_report_get_path(c->r), what,
	                text ? text : "(null)");
}

/* A code reportlib handed out that is not in its vocabulary (it checked
 * the file's names when it read them, so only a damaged handle has one). */
static int ex_bad_code(ex_ctx *c, const char *what, int code)
{
	return tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': unknown %s %d", tsr_report_get_path(c->r), what,
	                code);
}

/* The runtime's sync type of reportlib's (none: Internal, the type's zero).
 * Both enumerations are expanded from vocabulary.def, so the codes agree. */
static int ex_sync_type(ex_ctx *c, tsi_sync_type *out, tsr_sync_type sync)
{
	if (sync == TSR_SYNC_NONE)
		sync = TSR_SYNC_INTERNAL;
	if ((unsigned)sync >= TSR_SYNC_TYPE_COUNT)
		return ex_bad_code(c, "sync type", (int)sync);
	*out = (tsi_sync_type)sync;
	return TSR_OK;
}

/* --- The graph profile ------------------------------------------------------------- */

/* target, profiler mode, replication, sync delays. */
static int ex_target(ex_ctx *c, tsi_graph_profile *gp)
{
	const tsr_target *tg = tsr_report_get_target(c->r);
	const tsr_report_info *info = tsr_report_get_info(c->r);
	tsi_target *t = &gp->target;
	uint64_t *delays;
	uint32_t *rel;
	size_t len;
	int mode, version, rc;

	t->kind = tg->type && strcmp(tg->type, "CPU") == 0 ? TSI_TARGET_CPU : TSI_TARGET_IPU_MODEL;
	/* Both enumerations are expanded from vocabulary.def; an unknown
	 * version reads as the default, Mk2. */
	version = (int)tg->version;
	t->version = version >= 0 && version < TSR_IPU_VERSION_COUNT ? (tsi_ipu_version)version
	                                                            : TSI_IPU_MK2;
	len = tg->name ? strlen(tg->name) : 0;
	memcpy(t->name, tg->name ? tg->name : "", len < sizeof(t->name) ? len : sizeof(t->name));
	t->num_ipus = tg->num_ipus;
	t->tiles_per_ipu = tg->tiles_per_ipu;
	t->num_tiles = tg->num_tiles;
	t->bytes_per_tile = tg->bytes_per_tile;
	t->clock_hz = tg->clock_frequency;
	t->num_worker_contexts = tg->num_worker_contexts;
	if (tg->fp16_amp_flops_per_cycle > UINT_MAX || tg->fp32_flops_per_cycle > UINT_MAX)
		return tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': the target's peak flops are out of range",
		                tsr_report_get_path(c->r));
	t->fp16_amp_flops_per_cycle = (unsigned)tg->fp16_amp_flops_per_cycle;
	t->fp32_flops_per_cycle = (unsigned)tg->fp32_flops_per_cycle;

	mode = (int)info->profiler;
	if (mode < 0 || mode >= TSR_PROFILER_MODE_COUNT)
		return ex_bad_tag(c, "profiler mode", info->profiler_name);
	gp->profiler_mode = (tsi_profiler_mode)mode;
	gp->replication_factor = tg->replication_factor;
	gp->min_sync_delay = tg->min_sync_delay;

	delays = ex_alloc(c, tg->tiles_per_ipu ? tg->tiles_per_ipu : 1, sizeof(*delays));
	rel = ex_alloc(c, tg->tiles_per_ipu ? tg->tiles_per_ipu : 1, sizeof(*rel));
	if (!delays || !rel)
		return TSR_ERR_TOO_LARGE;
	rc = tsr_report_fill_relative_sync_delays(delays, tg->tiles_per_ipu, c->r);
	if (rc)
		return rc;
	for (unsigned i = 0; i < tg->tiles_per_ipu; i++) {
		if (delays[i] > UINT32_MAX)
			return tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': tile %u's sync delay is out of range",
			                tsr_report_get_path(c->r), i);
		rel[i] = (uint32_t)delays[i];
	}
	gp->relative_sync_delay_by_tile = rel;
	return TSR_OK;
}

/* memoryByInstruction of the exchange programs (not in report.h). */
static int ex_instructions(ex_ctx *c, tsi_lowered_program *progs, size_t n)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (!n)
		return TSR_OK;
	rc = tsr_prepare(c->r, &st,
	                 "SELECT id, IFNULL(instr_delay, 0), IFNULL(instr_exchange, 0), "
	                 "IFNULL(instr_other, 0), IFNULL(instr_receive_address, 0), "
	                 "IFNULL(instr_receive_format, 0), IFNULL(instr_receive_mux, 0), "
	                 "IFNULL(instr_send, 0), IFNULL(instr_send_with_put_address, 0), "
	                 "IFNULL(instr_send_with_put_format, 0), IFNULL(instr_send_with_put_mux, 0), "
	                 "instr_total FROM program WHERE instr_total IS NOT NULL");
	while (!rc && (rc = ex_row(c, st)) == 1) {
		int64_t id, v[11];
		tsi_exchange_instructions *x;

		rc = tsr_column_int(c->r, &id, st, 0, 0, (int64_t)n - 1, "program.id");
		for (int k = 0; !rc && k < 11; k++)
			rc = tsr_column_int(c->r, &v[k], st, 1 + k, 0, INT64_MAX, "program.instr_*");
		if (rc)
			break;
		x = &progs[id].memory_by_instruction;
		*x = (tsi_exchange_instructions){(uint64_t)v[0], (uint64_t)v[1], (uint64_t)v[2],
		                                 (uint64_t)v[3], (uint64_t)v[4], (uint64_t)v[5],
		                                 (uint64_t)v[6], (uint64_t)v[7], (uint64_t)v[8],
		                                 (uint64_t)v[9], (uint64_t)v[10]};
	}
	sqlite3_finalize(st);
	return rc;
}

/* programs, controlPrograms, functionPrograms. */
static int ex_programs(ex_ctx *c, tsi_graph_profile *gp)
{
	const tsr_program *p;
	tsi_lowered_program *lp;
	size_t n;
	int rc = tsr_report_get_programs(&p, &n, c->r);

	if (!rc)
		rc = tsr_report_get_control_programs(&gp->control_programs, &gp->n_control_programs, c->r);
	if (!rc)
		rc = tsr_report_get_function_programs(&gp->function_programs, &gp->n_function_programs, c->r);
	if (rc)
		return rc;
	lp = ex_alloc(c, n, sizeof(*lp));
	if (!lp && n)
		return TSR_ERR_TOO_LARGE;
	for (size_t i = 0; i < n; i++) {
		int type = (int)p[i].program_type;

		if (type < 0 || type >= TSI_LP_TYPE_COUNT)
			return ex_bad_code(c, "program type", type);
		if (p[i].n_children > UINT32_MAX || (p[i].n_children && !p[i].children))
			return tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': program %zu has %zu children",
			                tsr_report_get_path(c->r), i, p[i].n_children);
		lp[i].type = (tsi_lowered_type)type;
		lp[i].name = p[i].name;
		lp[i].children = p[i].children;
		lp[i].n_children = (uint32_t)p[i].n_children;
		lp[i].repeat_count = p[i].repeat_count;
		rc = ex_int32(c, &lp[i].compute_set, p[i].compute_set, "a program's compute set");
		if (!rc)
			rc = ex_int32(c, &lp[i].exchange, p[i].exchange, "a program's exchange");
		if (!rc)
			rc = ex_int32(c, &lp[i].function, p[i].function, "a program's function");
		if (!rc)
			rc = ex_sync_type(c, &lp[i].sync, p[i].sync);
		if (!rc)
			rc = ex_debug_id(c, &lp[i].debug_context, p[i].debug_context, "a program");
		if (rc)
			return rc;
	}
	gp->programs = lp;
	gp->n_programs = n;
	return ex_instructions(c, lp, n);
}

/* vertexTypes. */
static int ex_vertex_types(ex_ctx *c, tsi_graph_profile *gp)
{
	const tsr_vertex_type *vt;
	tsi_vertex_type_profile *out;
	size_t n;
	int rc = tsr_report_get_vertex_types(&vt, &n, c->r);

	if (rc)
		return rc;
	out = ex_alloc(c, n, sizeof(*out));
	if (!out && n)
		return TSR_ERR_TOO_LARGE;
	for (size_t i = 0; i < n; i++)
		out[i] = (tsi_vertex_type_profile){vt[i].name, vt[i].state_bytes, vt[i].code_bytes,
		                                   vt[i].instances, vt[i].flops};
	gp->vertex_types = out;
	gp->n_vertex_types = n;
	return TSR_OK;
}

/* Each compute set's vertex types, counts and active cycles by type
 * (compute_set_vertex_type, in (compute set, vertex type) order, as the
 * runtime lists them). */
static int ex_compute_set_types(ex_ctx *c, tsi_compute_set_profile *cs, size_t n_cs, size_t n_vt)
{
	sqlite3_stmt *st = NULL;
	int64_t rows = 0, prev_cs = -1, prev_vt = -1;
	/* At most one row per compute set and vertex type. */
	int64_t max_rows = n_vt && n_cs > (size_t)INT64_MAX / n_vt ? INT64_MAX
	                                                            : (int64_t)(n_cs * n_vt);
	uint32_t *types = NULL;
	uint64_t *counts = NULL, *cycles = NULL;
	size_t k = 0;
	int rc;

	rc = tsr_prepare(c->r, &st, "SELECT COUNT(*) FROM compute_set_vertex_type");
	if (!rc && (rc = ex_row(c, st)) == 1)
		rc = tsr_column_int(c->r, &rows, st, 0, 0, max_rows,
		                    "rows of compute_set_vertex_type");
	else if (rc == 0)
		rc = TSR_ERR_CORRUPT;
	sqlite3_finalize(st);
	st = NULL;
	if (rc || !rows)
		return rc;
	types = ex_alloc(c, (size_t)rows, sizeof(*types));
	counts = ex_alloc(c, (size_t)rows, sizeof(*counts));
	cycles = ex_alloc(c, (size_t)rows, sizeof(*cycles));
	if (!types || !counts || !cycles)
		return TSR_ERR_TOO_LARGE;
	rc = tsr_prepare(c->r, &st,
	                 "SELECT compute_set, vertex_type, vertex_count, active_cycles "
	                 "FROM compute_set_vertex_type ORDER BY compute_set, vertex_type");
	while (!rc && (rc = ex_row(c, st)) == 1) {
		int64_t set, type, count, active;

		rc = tsr_column_int(c->r, &set, st, 0, 0, (int64_t)n_cs - 1,
		                    "compute_set_vertex_type.compute_set");
		if (!rc)
			rc = tsr_column_int(c->r, &type, st, 1, 0, (int64_t)n_vt - 1,
			                    "compute_set_vertex_type.vertex_type");
		if (!rc)
			rc = tsr_column_int(c->r, &count, st, 2, 0, INT64_MAX,
			                    "compute_set_vertex_type.vertex_count");
		if (!rc)
			rc = tsr_column_int(c->r, &active, st, 3, 0, INT64_MAX,
			                    "compute_set_vertex_type.active_cycles");
		if (rc)
			break;
		if (k >= (size_t)rows || set < prev_cs || (set == prev_cs && type <= prev_vt)) {
			rc = tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': compute_set_vertex_type is not one row "
			              "per compute set and vertex type", tsr_report_get_path(c->r));
			break;
		}
		if (set != prev_cs) {
			cs[set].vertex_types = &types[k];
			cs[set].vertex_counts = &counts[k];
			cs[set].active_cycles_by_type = &cycles[k];
		}
		types[k] = (uint32_t)type;
		counts[k] = (uint64_t)count;
		cycles[k] = (uint64_t)active;
		cs[set].n_types++; /* at most n_vt < 2^32 per set: rows ascend */
		k++;
		prev_cs = set;
		prev_vt = type;
	}
	sqlite3_finalize(st);
	return rc;
}

/* computeSets with their per-tile cycles. */
static int ex_compute_sets(ex_ctx *c, tsi_graph_profile *gp, bool with_types)
{
	const tsr_compute_set *cs;
	tsi_compute_set_profile *out;
	sqlite3_stmt *st = NULL;
	size_t n;
	int rc = tsr_report_get_compute_sets(&cs, &n, c->r);

	if (rc)
		return rc;
	out = ex_alloc(c, n, sizeof(*out));
	if (!out && n)
		return TSR_ERR_TOO_LARGE;
	for (size_t i = 0; i < n && !rc; i++) {
		out[i].name = cs[i].name;
		out[i].flops = cs[i].flops;
		rc = ex_debug_id(c, &out[i].debug_context, cs[i].debug_context, "a compute set");
	}
	if (!rc && with_types)
		rc = ex_compute_set_types(c, out, n, gp->n_vertex_types);
	if (!rc && n)
		rc = tsr_prepare(c->r, &st, "SELECT id, cycles_by_tile, active_cycles_by_tile, "
		                            "cycles_sum, active_cycles_sum FROM compute_set");
	while (!rc && n && (rc = ex_row(c, st)) == 1) {
		int64_t id;

		rc = tsr_column_int(c->r, &id, st, 0, 0, (int64_t)n - 1, "compute_set.id");
		if (!rc)
			rc = ex_column_tiles_total(c, &out[id].cycles_by_tile, st, 1,
			                           "compute_set.cycles_by_tile", 3, "compute_set.cycles_sum");
		if (!rc)
			rc = ex_column_tiles_total(c, &out[id].active_cycles_by_tile, st, 2,
			                           "compute_set.active_cycles_by_tile", 4,
			                           "compute_set.active_cycles_sum");
	}
	sqlite3_finalize(st);
	gp->compute_sets = out;
	gp->n_compute_sets = n;
	return rc;
}

/* exchanges, externalExchanges, hostExchanges (only the kinds in
 * `kinds`, a bit mask by tsi_exchange_kind). */
static int ex_exchanges(ex_ctx *c, tsi_graph_profile *gp, unsigned kinds)
{
	static const char *const kind_names[TSI_EXCHANGE_KIND_COUNT] = {"internal", "external",
	                                                                "host"};
	tsi_exchange_profile *lists[TSI_EXCHANGE_KIND_COUNT] = {NULL};
	sqlite3_stmt *st = NULL;
	int rc = TSR_OK;

	for (int k = 0; k < TSI_EXCHANGE_KIND_COUNT && !rc; k++) {
		const tsr_exchange *ex;
		size_t n;

		if (!(kinds & (1u << k)))
			continue;
		rc = tsr_report_get_exchanges(&ex, &n, c->r, (tsr_exchange_kind)k);
		if (rc)
			break;
		lists[k] = ex_alloc(c, n, sizeof(*lists[k]));
		if (!lists[k] && n)
			return TSR_ERR_TOO_LARGE;
		for (size_t i = 0; i < n; i++)
			lists[k][i].name = ex[i].name;
		gp->exchanges[k] = lists[k];
		gp->n_exchanges[k] = n;
	}
	if (!rc)
		rc = tsr_prepare(c->r, &st, "SELECT kind, id, bytes_received_by_tile, "
		                            "bytes_sent_by_tile, cycles_by_tile, bytes_received, "
		                            "bytes_sent, cycles_sum FROM exchange");
	while (!rc && (rc = ex_row(c, st)) == 1) {
		const char *kind = (const char *)sqlite3_column_text(st, 0);
		tsi_exchange_profile *x;
		int64_t id;
		int k = ex_find(kind, kind_names, TSI_EXCHANGE_KIND_COUNT);

		if (k < 0) {
			rc = ex_bad_tag(c, "exchange kind", kind);
			break;
		}
		rc = TSR_OK;
		if (!(kinds & (1u << k)))
			continue;
		if (!gp->n_exchanges[k]) {
			rc = tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': an exchange of kind %s beyond its list",
			              tsr_report_get_path(c->r), kind_names[k]);
			break;
		}
		rc = tsr_column_int(c->r, &id, st, 1, 0, (int64_t)gp->n_exchanges[k] - 1, "exchange.id");
		if (rc)
			break;
		x = &lists[k][id];
		rc = ex_column_tiles_total(c, &x->bytes_received, st, 2,
		                           "exchange.bytes_received_by_tile", 5, "exchange.bytes_received");
		if (!rc)
			rc = ex_column_tiles_total(c, &x->bytes_sent, st, 3, "exchange.bytes_sent_by_tile", 6,
			                           "exchange.bytes_sent");
		if (!rc)
			rc = ex_column_tiles_total(c, &x->cycles, st, 4, "exchange.cycles_by_tile", 7,
			                           "exchange.cycles_sum");
	}
	sqlite3_finalize(st);
	return rc;
}

/* byTile from report.h. */
static int ex_by_tile(ex_ctx *c, tsi_graph_profile *gp)
{
	const tsr_tile_memory *tm;
	tsi_tile_memory *out;
	size_t n;
	int rc = tsr_report_get_tile_memory(&tm, &n, c->r);

	if (rc)
		return rc;
	if (n != c->nt)
		return tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': %zu tiles of memory for %zu tiles",
		                tsr_report_get_path(c->r), n, c->nt);
	out = ex_alloc(c, n, sizeof(*out));
	if (!out && n)
		return TSR_ERR_TOO_LARGE;
	for (size_t t = 0; t < n; t++) {
		for (int k = 0; k < TSR_REGION_COUNT; k++) {
			out[t].region[k] = tm[t].region[k];
			out[t].region_including_gaps[k] = tm[t].region_including_gaps[k];
		}
		out[t].total = tm[t].total;
		out[t].total_including_gaps = tm[t].total_including_gaps;
	}
	gp->by_tile = out;
	return TSR_OK;
}

/* byCategory: every (category, region, overlapped) row of memory_category
 * decoded into the runtime's dense layout. */
static int ex_by_category(ex_ctx *c, tsi_graph_profile *gp)
{
	static const char *const regions[TSI_REGION_COUNT] = {"interleaved", "nonInterleaved",
	                                                      "overflowed"};
	size_t rows = (size_t)TSI_MEM_CATEGORY_COUNT * TSI_REGION_COUNT * 2;
	uint64_t *cells = ex_alloc(c, rows, c->nt * sizeof(uint64_t)); /* nt <= UINT_MAX */
	sqlite3_stmt *st = NULL;
	int rc;

	if (!cells)
		return TSR_ERR_TOO_LARGE;
	rc = tsr_prepare(c->r, &st, "SELECT category, region, overlapped, by_tile FROM memory_category");
	while (!rc && (rc = ex_row(c, st)) == 1) {
		const char *cat_text = (const char *)sqlite3_column_text(st, 0);
		const char *region_text = (const char *)sqlite3_column_text(st, 1);
		int cat = ex_category(cat_text);
		int region = ex_find(region_text, regions, TSI_REGION_COUNT);
		int64_t ov;
		size_t row;

		if (cat < 0) {
			rc = ex_bad_tag(c, "memory category", cat_text);
			break;
		}
		if (region < 0) {
			rc = ex_bad_tag(c, "memory region", region_text);
			break;
		}
		rc = tsr_column_int(c->r, &ov, st, 2, 0, 1, "memory_category.overlapped");
		if (rc)
			break;
		row = ((size_t)cat * TSI_REGION_COUNT + (size_t)region) * 2 + (size_t)ov;
		rc = tsr_column_tiles(c->r, cells + row * c->nt, c->nt, st, 3, "memory_category.by_tile");
	}
	sqlite3_finalize(st);
	gp->by_category = cells;
	return rc;
}

/* byComputeSet or byVertexType: the seven blobs of each row of `table`
 * (keyed by `key`) into out[0..n) (rows missing stay zero). */
static int ex_vertex_memory(ex_ctx *c, tsi_vertex_memory **out_list, const char *table,
                            const char *key, size_t n)
{
	static const char *const cols[7] = {"code_bytes_by_tile",        "copy_ptr_bytes_by_tile",
	                                     "descriptor_bytes_by_tile",  "edge_ptr_bytes_by_tile",
	                                     "padding_bytes_by_tile",     "vertex_data_bytes_by_tile",
	                                     "total_bytes_by_tile"};
	tsi_vertex_memory *out = ex_alloc(c, n, sizeof(*out));
	sqlite3_stmt *st = NULL;
	char sql[512];
	int rc;

	if (!out && n)
		return TSR_ERR_TOO_LARGE;
	*out_list = out;
	if (!n)
		return TSR_OK;
	snprintf(sql, sizeof(sql), "SELECT %s, %s, %s, %s, %s, %s, %s, %s FROM %s", key, cols[0],
	         cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], table);
	rc = tsr_prepare(c->r, &st, sql);
	while (!rc && (rc = ex_row(c, st)) == 1) {
		tsi_vertex_memory *vm;
		tsi_tile_values *fields[7];
		int64_t id;

		rc = tsr_column_int(c->r, &id, st, 0, 0, (int64_t)n - 1, key);
		if (rc)
			break;
		vm = &out[id];
		fields[0] = &vm->code_bytes;
		fields[1] = &vm->copy_ptr_bytes;
		fields[2] = &vm->descriptor_bytes;
		fields[3] = &vm->edge_ptr_bytes;
		fields[4] = &vm->padding_bytes;
		fields[5] = &vm->vertex_data_bytes;
		fields[6] = &vm->total_bytes;
		for (int k = 0; k < 7 && !rc; k++)
			rc = ex_column_tiles(c, fields[k], st, 1 + k, cols[k]);
	}
	sqlite3_finalize(st);
	return rc;
}

/* A shape "[10,20]" ("[]": a scalar) into shape[0..*rank). */
static int ex_shape(ex_ctx *c, size_t **shape, size_t *rank, const char *text)
{
	size_t dims[TSI_MAX_RANK], n = 0;
	const char *p = text;

	if (!p || *p++ != '[')
		goto bad;
	if (*p == ']') {
		p++;
	} else {
		for (;;) {
			uint64_t v = 0;

			if (*p < '0' || *p > '9' || n == TSI_MAX_RANK)
				goto bad;
			for (; *p >= '0' && *p <= '9'; p++) {
				if (v > (SIZE_MAX - 9) / 10)
					goto bad;
				v = v * 10 + (uint64_t)(*p - '0');
			}
			dims[n++] = (size_t)v;
			if (*p == ']') {
				p++;
				break;
			}
			if (*p++ != ',')
				goto bad;
		}
	}
	if (*p)
		goto bad;
	*rank = n;
	*shape = NULL;
	if (n) {
		*shape = ex_alloc(c, n, sizeof(**shape));
		if (!*shape)
			return TSR_ERR_TOO_LARGE;
		memcpy(*shape, dims, n * sizeof(**shape));
	}
	return TSR_OK;
bad:
	return ex_bad_tag(c, "variable shape", text);
}

/* The listed variables, with their bytes on each tile. */
static int ex_variables(ex_ctx *c, tsi_graph_profile *gp)
{
	const tsr_variable *v;
	tsi_variable_profile *out;
	size_t n;
	int rc = tsr_report_get_variables(&v, &n, c->r);

	if (rc)
		return rc;
	out = ex_alloc(c, n, sizeof(*out));
	if (!out && n)
		return TSR_ERR_TOO_LARGE;
	for (size_t i = 0; i < n && !rc; i++) {
		tsi_variable_profile *o = &out[i];
		size_t *shape = NULL;
		int cat = (int)v[i].mem_category;
		int type = (int)v[i].data_type;

		if (cat < 0 || cat >= TSI_MEM_CATEGORY_COUNT)
			return ex_bad_code(c, "variable category", cat);
		/* Both enumerations are expanded from vocabulary.def. */
		if (type < 0 || type >= TSI_TYPE_COUNT)
			return ex_bad_tag(c, "element type", v[i].data_type_name);
		o->name = v[i].name;
		o->category = (tsi_mem_category)cat;
		o->type = (tsi_type)type;
		o->bytes = v[i].bytes;
		o->always_live = v[i].always_live;
		/* The runtime's conventions: 0..0 when always live, UINT32_MAX
		 * when live nowhere. */
		if (v[i].always_live) {
			o->live_from = o->live_to = 0;
		} else if (v[i].live_from < 0 || v[i].live_to < 0) {
			o->live_from = o->live_to = UINT32_MAX;
		} else if (v[i].live_from >= UINT32_MAX || v[i].live_to >= UINT32_MAX) {
			return tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': variable %u's liveness is out of range",
			                tsr_report_get_path(c->r), v[i].id);
		} else {
			o->live_from = (uint32_t)v[i].live_from;
			o->live_to = (uint32_t)v[i].live_to;
		}
		rc = ex_debug_id(c, &o->debug_context, v[i].debug_context, "a variable");
		if (!rc)
			rc = ex_shape(c, &shape, &o->rank, v[i].shape);
		o->shape = shape;
		if (!rc)
			rc = tsr_report_fill_variable_by_tile(c->scratch, c->nt, c->r, i);
		if (!rc)
			rc = ex_sparse(c, &o->bytes_by_tile, c->scratch);
	}
	gp->variables = out;
	gp->n_variables = n;
	return rc;
}

/* Liveness steps and the always-live total. */
static int ex_liveness(ex_ctx *c, tsi_graph_profile *gp)
{
	const tsr_liveness_step *ls;
	tsi_liveness_step *out;
	size_t n;
	int rc = tsr_report_get_liveness_steps(&ls, &n, c->r);

	if (rc)
		return rc;
	out = ex_alloc(c, n, sizeof(*out));
	if (!out && n)
		return TSR_ERR_TOO_LARGE;
	for (size_t i = 0; i < n && !rc; i++) {
		out[i].program = ls[i].program;
		out[i].depth = ls[i].depth;
		out[i].not_always_live_bytes = ls[i].not_always_live;
		rc = ex_int32(c, &out[i].parent, ls[i].parent, "a liveness step's parent");
	}
	gp->liveness = out;
	gp->n_liveness = n;
	gp->always_live_bytes = tsr_report_get_always_live_bytes(c->r);
	return rc;
}

/* Debug contexts from the operations (the same ids, names, layers, APIs). */
static int ex_debug_contexts(ex_ctx *c, tsi_graph_profile *gp)
{
	tsr_operation *ops = NULL;
	tsi_debug_context_profile *out;
	size_t n = 0;
	int rc = tsr_report_list_operations(&ops, &n, c->r, -1);

	if (rc)
		return rc;
	out = ex_alloc(c, n, sizeof(*out));
	if (!out && n) {
		free(ops);
		return TSR_ERR_TOO_LARGE;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = (tsi_debug_context_profile){ops[i].id, ops[i].parent, ops[i].name, ops[i].layer,
		                                     ops[i].api};
	free(ops);
	gp->debug_contexts = out;
	gp->n_debug_contexts = n;
	return TSR_OK;
}

/* Parts of the profile an export needs. */
enum { EX_GRAPH = 1, EX_EXECUTION = 2 };

/*
 * The tsi_graph_profile of the report: every part for the graph export;
 * for the execution export only what tsi_execution_profile_serialise
 * reads (target, profiler mode, programs, compute sets' cycles, external
 * exchanges), the other lists left empty.
 */
static int ex_graph_profile(ex_ctx *c, tsi_graph_profile *gp, int parts)
{
	const tsr_graph_counts *gc = tsr_report_get_counts(c->r);
	const tsr_target *tg = tsr_report_get_target(c->r);
	tsi_vertex_memory *by_cs = NULL, *by_vt = NULL;
	int rc;

	memset(gp, 0, sizeof(*gp));
	if (tg->num_tiles > UINT_MAX / sizeof(uint64_t))
		return tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': %u tiles", tsr_report_get_path(c->r),
		                tg->num_tiles);
	c->nt = tg->num_tiles;
	c->scratch = ex_alloc(c, c->nt ? c->nt : 1, sizeof(*c->scratch));
	if (!c->scratch)
		return TSR_ERR_TOO_LARGE;
	gp->num_compute_sets = gc->compute_sets;
	gp->num_edges = gc->edges;
	gp->num_vars = gc->variables;
	gp->num_vertices = gc->vertices;
	rc = ex_target(c, gp);
	if (!rc)
		rc = ex_programs(c, gp);
	if (!rc && parts == EX_GRAPH)
		rc = ex_vertex_types(c, gp);
	if (!rc)
		rc = ex_compute_sets(c, gp, parts == EX_GRAPH);
	if (!rc)
		rc = ex_exchanges(c, gp, parts == EX_GRAPH ? 7u : 1u << TSI_EXCHANGE_EXTERNAL);
	if (rc || parts != EX_GRAPH)
		return rc;
	rc = ex_by_tile(c, gp);
	if (!rc)
		rc = ex_by_category(c, gp);
	if (!rc)
		rc = ex_vertex_memory(c, &by_cs, "memory_by_compute_set", "compute_set",
		                      gp->n_compute_sets);
	gp->by_compute_set = by_cs;
	if (!rc)
		rc = ex_vertex_memory(c, &by_vt, "memory_by_vertex_type", "vertex_type",
		                      gp->n_vertex_types);
	gp->by_vertex_type = by_vt;
	if (!rc)
		rc = ex_variables(c, gp);
	if (!rc)
		rc = ex_liveness(c, gp);
	if (!rc)
		rc = ex_debug_contexts(c, gp);
	if (!rc)
		rc = tsr_report_get_oom_tiles(&gp->oom_tiles, &gp->n_oom_tiles, c->r);
	return rc;
}

/* --- The execution profile ---------------------------------------------------------- */

/* One kept run as the runtime's run profile. */
static int ex_run(ex_ctx *c, tsi_run_profile *out, const tsr_run *run, size_t index)
{
	const tsr_step *steps;
	tsi_step *ts;
	size_t n;
	int rc = tsr_report_get_steps(&steps, &n, c->r, index);

	if (!rc)
		rc = tsr_report_get_program_trace(&out->program_trace, &out->n_trace, c->r, index);
	if (rc)
		return rc;
	ts = ex_alloc(c, n, sizeof(*ts));
	if (!ts && n)
		return TSR_ERR_TOO_LARGE;
	for (size_t i = 0; i < n && !rc; i++) {
		const tsr_step *s = &steps[i];

		if ((unsigned)s->type >= TSR_STEP_TYPE_COUNT)
			return tsr_fail(c->r, TSR_ERR_CORRUPT, "'%s': step %zu of run %zu has type %d",
			                tsr_report_get_path(c->r), i, index, (int)s->type);
		/* The two enums list the guide's step types in the same order. */
		ts[i].type = (tsi_step_type)s->type;
		ts[i].program = s->program;
		ts[i].cycles_from = s->cycles_from;
		ts[i].cycles_to = s->cycles_to;
		ts[i].cycles = s->cycles;
		ts[i].cycles_overlapped = s->cycles_overlapped;
		ts[i].active_tiles = s->active_tiles;
		ts[i].tile_balance = s->tile_balance;
		ts[i].active_tile_balance = s->active_tile_balance;
		ts[i].thread_balance = s->thread_balance;
		ts[i].total_data = s->total_data;
		ts[i].data_balance = s->data_balance;
		rc = ex_int32(c, &ts[i].compute_set, s->compute_set, "a step's compute set");
		if (!rc)
			rc = ex_int32(c, &ts[i].exchange, s->exchange, "a step's exchange");
		if (!rc)
			rc = ex_sync_type(c, &ts[i].sync_type, s->sync);
	}
	out->program_index = run->program;
	out->steps = ts;
	out->n_steps = n;
	out->cycles = run->cycles;
	out->tile_cycles = (tsi_tile_cycles){run->tile_cycles.active_compute,
	                                     run->tile_cycles.compute,
	                                     run->tile_cycles.do_exchange,
	                                     run->tile_cycles.global_exchange,
	                                     run->tile_cycles.stream_copy,
	                                     run->tile_cycles.sync,
	                                     run->tile_cycles.copy_shared_structure};
	return rc;
}

/* --- Public functions ------------------------------------------------------------------ */

/* The document writer's failure as the report's: the profile came from
 * the file, so anything but memory means the file contradicts itself. */
static int ex_serialise_failed(ex_ctx *c, int rc, const char *msg)
{
	return tsr_fail(c->r,
	                rc == TSF_ERR_NO_MEMORY ? TSR_ERR_NO_MEMORY
	                : rc == TSF_ERR_IO      ? TSR_ERR_IO
	                                        : TSR_ERR_CORRUPT,
	                "exporting '%s': %s", tsr_report_get_path(c->r), msg);
}

/* Checks the arguments both exports share and clears the outputs. */
static int ex_check_args(void **out, size_t *out_len, tsr_report *report, tsr_export_format format)
{
	if (out)
		*out = NULL;
	if (out_len)
		*out_len = 0;
	if (!out || !out_len || !report)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "exporting: NULL output")
		              : tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "exporting: NULL report");
	if (format != TSR_EXPORT_JSON && format != TSR_EXPORT_CBOR)
		return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "exporting: unknown format %d",
		                (int)format);
	return TSR_OK;
}

/* strlen, 0 for NULL. */
static uint64_t len0(const char *s)
{
	return s ? strlen(s) : 0;
}

/*
 * The bytes of names the graph profile's document will copy, checked
 * against the room the memory cap leaves: a report can name one long
 * string from every row (a 2.9 MB file made a 2.86 GB export), and the
 * document is built whole in memory, so a report whose names alone would
 * not fit is refused before a byte is written.
 */
static int ex_check_names(ex_ctx *c, const tsi_graph_profile *gp)
{
	uint64_t bytes = 0, cap = c->r->memory_cap;
	uint64_t room = cap > c->r->memory_used ? cap - c->r->memory_used : 0;

	for (size_t i = 0; i < gp->n_variables; i++)
		bytes += len0(gp->variables[i].name);
	for (size_t i = 0; i < gp->n_compute_sets; i++)
		bytes += len0(gp->compute_sets[i].name);
	for (size_t i = 0; i < gp->n_programs; i++)
		bytes += len0(gp->programs[i].name);
	for (size_t i = 0; i < gp->n_vertex_types; i++)
		bytes += len0(gp->vertex_types[i].name);
	for (int k = 0; k < TSI_EXCHANGE_KIND_COUNT; k++)
		for (size_t i = 0; i < gp->n_exchanges[k]; i++)
			bytes += len0(gp->exchanges[k][i].name);
	for (size_t i = 0; i < gp->n_debug_contexts; i++)
		bytes += len0(gp->debug_contexts[i].name) + len0(gp->debug_contexts[i].api);
	if (bytes > room)
		return tsr_fail(c->r, TSR_ERR_TOO_LARGE,
		                "'%s': its graph profile would copy %" PRIu64 " bytes of names, more "
		                "than the %" PRIu64 " bytes the memory cap leaves (tsr_open_options."
		                "memory_cap)",
		                tsr_report_get_path(c->r), bytes, room);
	return TSR_OK;
}

/*
 * Both exports, to a buffer (sink NULL: *out, *out_len) or to `sink`:
 * the profile is rebuilt from the report, then serialised. The buffer
 * holds the whole document, so its names must fit the memory cap
 * (ex_check_names); a stream gets it as it is made and needs no such
 * bound.
 */
static int export_any(void **out, size_t *out_len, FILE *sink, tsr_report *report,
                      tsr_export_format format, bool execution)
{
	ex_ctx c = {report, NULL, 0, NULL};
	tsi_graph_profile gp;
	const tsr_run *runs;
	tsi_run_profile *rp = NULL;
	const tsi_run_profile **rpp = NULL;
	size_t n = 0;
	tsf_doc_format doc = format == TSR_EXPORT_CBOR ? TSF_DOC_CBOR : TSF_DOC_JSON;
	char msg[256];
	int rc;

	if (sink) {
		rc = !report ? tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "exporting: NULL report")
		     : format != TSR_EXPORT_JSON && format != TSR_EXPORT_CBOR
		         ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "exporting: unknown format %d",
		                    (int)format)
		         : TSR_OK;
	} else {
		rc = ex_check_args(out, out_len, report, format);
	}
	if (rc)
		return rc;
	rc = ex_graph_profile(&c, &gp, execution ? EX_EXECUTION : EX_GRAPH);
	if (!rc && !execution && !sink)
		rc = ex_check_names(&c, &gp);
	if (!rc && execution)
		rc = tsr_report_get_runs(&runs, &n, report);
	if (!rc && execution) {
		rp = ex_alloc(&c, n, sizeof(*rp));
		rpp = ex_alloc(&c, n, sizeof(*rpp));
		if ((!rp || !rpp) && n)
			rc = TSR_ERR_TOO_LARGE;
	}
	for (size_t i = 0; execution && i < n && !rc; i++) {
		rc = ex_run(&c, &rp[i], &runs[i], i);
		rpp[i] = &rp[i];
	}
	if (!rc) {
		if (execution)
			rc = sink ? tsf_execution_profile_write(sink, &gp, rpp, n, doc, msg, sizeof(msg))
			          : tsf_execution_profile_serialise(out, out_len, &gp, rpp, n, doc, msg,
			                                            sizeof(msg));
		else
			rc = sink ? tsf_graph_profile_write(sink, &gp, doc, msg, sizeof(msg))
			          : tsf_graph_profile_serialise(out, out_len, &gp, doc, msg, sizeof(msg));
		if (rc)
			rc = ex_serialise_failed(&c, rc, msg);
	}
	ex_free(&c);
	return rc;
}

TSR_API int tsr_export_graph_profile(void **out, size_t *out_len, tsr_report *report,
                                     tsr_export_format format)
{
	return export_any(out, out_len, NULL, report, format, false);
}

TSR_API int tsr_export_execution_profile(void **out, size_t *out_len, tsr_report *report,
                                         tsr_export_format format)
{
	return export_any(out, out_len, NULL, report, format, true);
}

TSR_API int tsr_export_write_graph_profile(FILE *out, tsr_report *report,
                                           tsr_export_format format)
{
	if (!out)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "exporting: NULL stream")
		              : tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "exporting: NULL stream");
	return export_any(NULL, NULL, out, report, format, false);
}

TSR_API int tsr_export_write_execution_profile(FILE *out, tsr_report *report,
                                               tsr_export_format format)
{
	if (!out)
		return report ? tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "exporting: NULL stream")
		              : tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "exporting: NULL stream");
	return export_any(NULL, NULL, out, report, format, true);
}
