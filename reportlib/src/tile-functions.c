/*
 * SQL functions over "tile runs" blobs (the per-tile arrays of
 * profile.pop; the encoding is db-schema/profile.sql's): tile_value(blob,
 * tile), tile_sum(blob) and tile_max(blob), registered on every report
 * connection so that reportlib's queries and the caller's read-only SQL
 * (tsr_report_query, `tilescope sql`) can reach them. They walk the blob
 * with the format library's iterator, never a dense array.
 */
#include "report-private.h"

/* What a walk over a tile-runs blob computes. */
typedef struct runs_walk {
	uint64_t tile;     /* tile_value: the tile asked for */
	uint64_t value;    /* its value */
	uint64_t max;
	uint64_t sum;
	bool sum_overflow;
} runs_walk;

/*
 * Walks the runs of `blob` (num_tiles entries) with the format's
 * iterator, which checks each run as tsf_tile_runs_decode does, without a
 * dense array: one pass, O(len). Returns false on a malformed blob.
 */
static bool walk_runs(runs_walk *w, const void *blob, size_t len, uint64_t num_tiles)
{
	tsf_tile_runs_iter it;
	tsf_tile_run run;
	int rc;

	if (tsf_tile_runs_iter_init(&it, blob, len, num_tiles))
		return false;
	while ((rc = tsf_tile_runs_iter_next(&it, &run)) == 1) {
		if (w->tile >= run.first && w->tile < run.first + run.count)
			w->value = run.value;
		if (run.value > w->max)
			w->max = run.value;
		if (run.value && run.count > (UINT64_MAX - w->sum) / run.value)
			w->sum_overflow = true;
		else
			w->sum += run.count * run.value;
	}
	return rc == 0;
}

/* A value for SQL: SQLite's integers are signed 64-bit. */
static void result_u64(sqlite3_context *ctx, uint64_t v)
{
	if (v > (uint64_t)INT64_MAX)
		sqlite3_result_error(ctx, "tile value above 2^63", -1);
	else
		sqlite3_result_int64(ctx, (int64_t)v);
}

/* Walks argv[0] for the SQL functions; false after setting the error. */
static bool sql_walk(sqlite3_context *ctx, sqlite3_value *blob, runs_walk *w)
{
	tsr_report *r = sqlite3_user_data(ctx);
	int type = sqlite3_value_type(blob);

	if (type == SQLITE_NULL)
		return true;
	if (type != SQLITE_BLOB) {
		sqlite3_result_error(ctx, "not a tile-runs blob", -1);
		return false;
	}
	if (!walk_runs(w, sqlite3_value_blob(blob), (size_t)sqlite3_value_bytes(blob),
	               r->target.num_tiles)) {
		sqlite3_result_error(ctx, "malformed tile-runs blob", -1);
		return false;
	}
	return true;
}

/* tile_value(blob, tile): the value on one tile (0 when absent). */
static void sql_tile_value(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	runs_walk w = {0};
	int64_t tile;

	(void)argc;
	if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER) {
		sqlite3_result_error(ctx, "tile_value: the tile is not an integer", -1);
		return;
	}
	tile = sqlite3_value_int64(argv[1]);
	w.tile = tile < 0 ? UINT64_MAX : (uint64_t)tile;
	if (sql_walk(ctx, argv[0], &w))
		result_u64(ctx, w.value);
}

/* tile_sum(blob): the sum over tiles. */
static void sql_tile_sum(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	runs_walk w = {.tile = UINT64_MAX};

	(void)argc;
	if (!sql_walk(ctx, argv[0], &w))
		return;
	if (w.sum_overflow)
		sqlite3_result_error(ctx, "tile_sum: overflow", -1);
	else
		result_u64(ctx, w.sum);
}

/* tile_max(blob): the largest value. */
static void sql_tile_max(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	runs_walk w = {.tile = UINT64_MAX};

	(void)argc;
	if (sql_walk(ctx, argv[0], &w))
		result_u64(ctx, w.max);
}

/* Registers tile_value, tile_sum and tile_max on the handle's connection
 * (deterministic, callable only from the caller's SQL, not from a schema
 * object of the file). Returns an SQLite code. */
int tsr_register_tile_functions(tsr_report *r)
{
	const int fflags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY;
	int rc = sqlite3_create_function_v2(r->db, "tile_value", 2, fflags, r, sql_tile_value, NULL,
	                                    NULL, NULL);

	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(r->db, "tile_sum", 1, fflags, r, sql_tile_sum, NULL,
		                                NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function_v2(r->db, "tile_max", 1, fflags, r, sql_tile_max, NULL,
		                                NULL, NULL);
	return rc;
}
