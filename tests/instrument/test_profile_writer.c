/*
 * White-box tests of the profile.pop writer (instrument/src/autoreport/
 * profile-writer.c): a small model with every kind of program, exchange
 * and memory is compiled and run, its graph and run profiles are written
 * with tsi_report_writer_new / _add_runs, and the file is read back with
 * plain SQLite and compared with the in-memory profile table by table,
 * blob by blob (decoded with the tile-runs codec), step by step. Also:
 * the queries the schema documents, the temporary file discipline, the
 * failures, lowered variables, moving, an out-of-memory model, and a
 * large synthetic profile whose write time and size are printed
 * (TSI_WRITER_BENCH=<compute sets>x<tiles per IPU>[x<% varied>] makes it
 * the issue 8 size on 4 IPUs: 20000x1472; 30% of compute sets have
 * different cycles on every tile unless said otherwise).
 */
#include "test-util.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "autoreport/autoreport-private.h"

#include <tilescope/ipu.h>
#include <tilescope/popops.h>
#include <tilescope/profile.h>

/* --- Reading the file back ------------------------------------------------ */

/* Opens `path` read-only (as reportlib will). */
static sqlite3 *open_db(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fail_msg("cannot open %s: %s", path, db ? sqlite3_errmsg(db) : "?");
	return db;
}

static sqlite3_stmt *query(sqlite3 *db, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int64_t q_int(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prepares a printf-formatted (libc printf) query; fails the test on an SQL error. */
static sqlite3_stmt *query(sqlite3 *db, const char *fmt, ...)
{
	sqlite3_stmt *st = NULL;
	va_list ap;
	char sql[4096];

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	return st;
}

/* The single integer a query returns (its first row, first column). */
static int64_t q_int(sqlite3 *db, const char *fmt, ...)
{
	sqlite3_stmt *st = NULL;
	va_list ap;
	char sql[4096];
	int64_t v;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) != SQLITE_ROW)
		fail_msg("%s: no row", sql);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int64_t count_rows(sqlite3 *db, const char *table)
{
	return q_int(db, "SELECT count(*) FROM %s", table);
}

/* The text of string `id` (a name column), or NULL for NULL. Caller frees. */
static char *name_of(sqlite3 *db, sqlite3_stmt *row, int col)
{
	sqlite3_stmt *st;
	char *text = NULL;

	if (sqlite3_column_type(row, col) == SQLITE_NULL)
		return NULL;
	st = query(db, "SELECT text FROM string WHERE id = %lld",
	           (long long)sqlite3_column_int64(row, col));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	text = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return text;
}

/* Checks that name column `col` of `row` holds `expect` (NULL: NULL). */
static void assert_name(sqlite3 *db, sqlite3_stmt *row, int col, const char *expect)
{
	char *got = name_of(db, row, col);

	if (!expect)
		assert_null(got);
	else
		assert_string_equal(got, expect);
	free(got);
}

/* Checks that blob column `col` of `row` decodes to dense[0..n). */
static void assert_blob_dense(sqlite3_stmt *row, int col, const uint64_t *dense, size_t n)
{
	uint64_t *got = calloc(n ? n : 1, sizeof(*got));

	assert_non_null(got);
	assert_int_equal(sqlite3_column_type(row, col), SQLITE_BLOB);
	assert_int_equal(tsf_tile_runs_decode(got, n, sqlite3_column_blob(row, col),
	                                      (size_t)sqlite3_column_bytes(row, col)),
	                 0);
	for (size_t i = 0; i < n; i++) {
		if (got[i] != (dense ? dense[i] : 0))
			fail_msg("blob column %d tile %zu: %" PRIu64 ", expected %" PRIu64, col, i,
			         got[i], dense ? dense[i] : 0);
	}
	free(got);
}

/* Checks that blob column `col` of `row` decodes to the sparse `tv`. */
static void assert_blob_tv(sqlite3_stmt *row, int col, const tsi_tile_values *tv, size_t n)
{
	uint64_t *dense = calloc(n ? n : 1, sizeof(*dense));

	assert_non_null(dense);
	for (size_t i = 0; i < tv->n; i++) {
		assert_true(tv->tiles[i] < n);
		dense[tv->tiles[i]] = tv->values[i];
	}
	assert_blob_dense(row, col, dense, n);
	free(dense);
}

/* Integer column, or -1 for NULL (ids are never negative). */
static int64_t col_or_null(sqlite3_stmt *row, int col)
{
	return sqlite3_column_type(row, col) == SQLITE_NULL ? -1 : sqlite3_column_int64(row, col);
}

/* Entries in directory `dir` other than . and .. */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static char *path_in(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = malloc(len);

	assert_non_null(p);
	snprintf(p, len, "%s/%s", dir, name);
	return p;
}

static bool file_exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

/* --- The model ------------------------------------------------------------ */

/* One small model for most tests: 2 IPUs of 4 tiles, popops arithmetic
 * with exchanges inside and across IPUs, host streams, a repeat, a called
 * function, a sync, two control programs; run as program 0, 0, 1. */
typedef struct fixture {
	tsi_test_model m;
	tsi_options *opts;
	float in_buf[16], out_buf[16];
	const tsi_graph_profile *gp;
	const tsi_run_profile *runs[8];
	size_t n_runs;
	char *dir;
} fixture;

static int fixture_setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	tsi_graph *g;
	tsi_tensor *a, *b, *c, *k, *sum, *prod;
	tsi_program *main_seq, *body, *fn_body, *second, *progs[2];
	tsi_stream *in, *out;
	tsi_function *fn;

	assert_non_null(f);
	tsi_test_model_init(&f->m, 2, 4, 1);
	g = f->m.graph;
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(16), "a");
	b = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 4), "b");
	c = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(16), "c");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_int_equal(tsi_graph_map_linearly(g, a, 2), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(g, b, 5), TSI_OK); /* IPU 1 */
	assert_int_equal(tsi_graph_set_tile_mapping(g, c, 1), TSI_OK);
	k = tsi_graph_add_constant_fill(g, TSI_FLOAT, TSI_SHAPE(16), 2.0, "two");
	assert_non_null(k);
	assert_int_equal(tsi_graph_set_tile_mapping(g, k, 2), TSI_OK);
	in = tsi_graph_add_host_to_device_fifo(g, "in", TSI_FLOAT, 16,
	                                       TSI_REPLICATED_STREAM_BROADCAST);
	out = tsi_graph_add_device_to_host_fifo(g, "out", TSI_FLOAT, 16);
	assert_non_null(in);
	assert_non_null(out);

	main_seq = tsi_prog_sequence(g, "main");
	body = tsi_prog_sequence(g, "body");
	fn_body = tsi_prog_sequence(g, "fn");
	second = tsi_prog_sequence(g, "second");
	assert_int_equal(tsi_sequence_add(main_seq, tsi_prog_copy_from_stream(g, in, a)), TSI_OK);
	assert_int_equal(tsi_sequence_add(main_seq, tsi_prog_copy(g, a, tsi_tensor_flatten(b))),
	                 TSI_OK);
	sum = tsi_popops_add(g, a, tsi_tensor_flatten(b), body, "sumAB");
	assert_non_null(sum);
	assert_int_equal(tsi_sequence_add(body, tsi_prog_copy(g, sum, c)), TSI_OK);
	assert_int_equal(tsi_sequence_add(main_seq, tsi_prog_repeat(g, 3, body)), TSI_OK);
	prod = tsi_popops_mul(g, c, k, fn_body, "scale");
	assert_non_null(prod);
	fn = tsi_graph_add_function(g, fn_body);
	assert_non_null(fn);
	assert_int_equal(tsi_sequence_add(main_seq, tsi_prog_call(g, fn)), TSI_OK);
	assert_int_equal(tsi_sequence_add(main_seq, tsi_prog_sync(g, TSI_SYNC_EXTERNAL)), TSI_OK);
	assert_int_equal(tsi_sequence_add(main_seq, tsi_prog_call(g, fn)), TSI_OK);
	assert_int_equal(tsi_sequence_add(main_seq, tsi_prog_copy_to_stream(g, prod, out)),
	                 TSI_OK);
	assert_int_equal(tsi_sequence_add(second, tsi_prog_call(g, fn)), TSI_OK);
	progs[0] = main_seq;
	progs[1] = second;

	f->opts = tsi_options_new();
	assert_non_null(f->opts);
	assert_int_equal(tsi_options_set(f->opts, "debug.instrument", "false"), TSI_OK);
	assert_int_equal(tsi_options_set(f->opts, "autoReport.executionProfileProgramRunCount",
	                                 "4"),
	                 TSI_OK);
	tsi_test_model_load(&f->m, progs, 2, f->opts);
	for (int i = 0; i < 16; i++)
		f->in_buf[i] = (float)i;
	assert_int_equal(tsi_engine_connect_stream(f->m.engine, "in", f->in_buf, f->in_buf + 16),
	                 TSI_OK);
	assert_int_equal(
	    tsi_engine_connect_stream(f->m.engine, "out", f->out_buf, f->out_buf + 16), TSI_OK);
	tsi_test_run(f->m.engine, 0);
	tsi_test_run(f->m.engine, 0);
	tsi_test_run(f->m.engine, 1);
	/* out = 2 * (in + in) */
	assert_close(f->out_buf[3], 12.0, 1e-6);
	f->gp = tsi_engine_get_graph_profile(f->m.engine);
	assert_non_null(f->gp);
	f->n_runs = tsi_engine_num_run_profiles(f->m.engine);
	assert_true(f->n_runs >= 2 && f->n_runs <= 8);
	for (size_t i = 0; i < f->n_runs; i++)
		f->runs[i] = tsi_engine_get_run_profile(f->m.engine, i);
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	fixture *f = *state;

	tsi_test_model_free(&f->m);
	tsi_options_free(f->opts);
	free(f);
	return 0;
}

/* Each test writes into a directory of its own. */
static int test_setup(void **state)
{
	fixture *f = *state;

	f->dir = tsi_test_mkdtemp();
	return 0;
}

static int test_teardown(void **state)
{
	fixture *f = *state;

	tsi_test_rmtree(f->dir);
	f->dir = NULL;
	return 0;
}

/* The metadata the tests pass; 1700000000.123456789 s is a known date. */
static tsi_report_meta test_meta(const fixture *f, bool lowered)
{
	tsi_report_meta meta;

	memset(&meta, 0, sizeof(meta));
	meta.options = f->opts;
	meta.command_line = "./model --flag";
	meta.created_unix_ns = INT64_C(1700000000123456789);
	meta.tilescope_version = "0.4.0-test";
	meta.engine_name = "eng";
	meta.lowered_vars = lowered;
	meta.include_flops = true;
	meta.include_cycles = false;
	return meta;
}

/* Writes the fixture's graph profile and all its runs to <dir>/profile.pop. */
static char *write_report(fixture *f, bool lowered, bool with_runs)
{
	tsi_report_meta meta = test_meta(f, lowered);
	tsi_report_writer *w = NULL;
	char *path = path_in(f->dir, "profile.pop");
	int rc = tsi_report_writer_new(&w, path, f->gp, &meta);

	if (rc)
		fail_msg("tsi_report_writer_new: %d %s", rc, tsi_error_last());
	assert_string_equal(tsi_report_writer_path(w), path);
	if (with_runs) {
		rc = tsi_report_writer_add_runs(w, f->runs, f->n_runs);
		if (rc)
			fail_msg("tsi_report_writer_add_runs: %d %s", rc, tsi_error_last());
	}
	tsi_report_writer_free(w);
	return path;
}

/* --- Graph profile tables -------------------------------------------------- */

/* Identity, meta, options, target, graph counts. */
static void test_identity_and_target(void **state)
{
	fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	char *path = write_report(f, true, false);
	sqlite3 *db = open_db(path);
	sqlite3_stmt *st;

	assert_int_equal(q_int(db, "PRAGMA application_id"), TSF_PROFILE_APPLICATION_ID);
	assert_int_equal(q_int(db, "PRAGMA application_id"), 1414746182);
	assert_int_equal(q_int(db, "PRAGMA user_version"), TSF_PROFILE_SCHEMA_VERSION);
	/* meta */
	st = query(db, "SELECT value FROM meta WHERE key = 'created'");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal(sqlite3_column_text(st, 0), "2023-11-14T22:13:20.123456789Z");
	sqlite3_finalize(st);
	st = query(db, "SELECT value FROM meta WHERE key = 'tilescope_version'");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_type(st, 0), SQLITE_TEXT); /* not read as a number */
	assert_string_equal(sqlite3_column_text(st, 0), "0.4.0-test");
	sqlite3_finalize(st);
	st = query(db, "SELECT value FROM meta WHERE key = 'profiler_mode'");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal(sqlite3_column_text(st, 0), tsi_profiler_mode_name(gp->profiler_mode));
	sqlite3_finalize(st);
	assert_int_equal(q_int(db, "SELECT value FROM meta WHERE key = 'created_unix_ns'"),
	                 INT64_C(1700000000123456789));
	assert_int_equal(q_int(db, "SELECT value FROM meta WHERE key = 'always_live_bytes'"),
	                 gp->always_live_bytes);
	assert_int_equal(q_int(db, "SELECT value FROM meta WHERE key = 'replication_factor'"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM meta WHERE key = 'command_line' "
	                           "AND value = './model --flag'"),
	                 1);
	assert_int_equal(q_int(db, "SELECT value FROM meta WHERE key = 'lowered_vars'"), 1);
	/* options in order */
	assert_int_equal(count_rows(db, "option"), tsi_options_count(f->opts));
	st = query(db, "SELECT name, value FROM option ORDER BY position");
	for (size_t i = 0; i < tsi_options_count(f->opts); i++) {
		const char *name, *value;

		assert_int_equal(tsi_options_at(&name, &value, f->opts, i), TSI_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal(sqlite3_column_text(st, 0), name);
		assert_string_equal(sqlite3_column_text(st, 1), value);
	}
	sqlite3_finalize(st);
	/* target */
	st = query(db, "SELECT type, num_ipus, tiles_per_ipu, num_tiles, bytes_per_tile, "
	               "clock_frequency, min_sync_delay, relative_sync_delay_by_tile, total_memory, "
	               "bytes_per_ipu, num_worker_contexts, name, ipu_version FROM target");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal(sqlite3_column_text(st, 0), "IPU_MODEL");
	assert_int_equal(sqlite3_column_int64(st, 1), 2);
	assert_int_equal(sqlite3_column_int64(st, 2), 4);
	assert_int_equal(sqlite3_column_int64(st, 3), 8);
	assert_int_equal(sqlite3_column_int64(st, 4), gp->target.bytes_per_tile);
	assert_int_equal(sqlite3_column_int64(st, 5), gp->target.clock_hz);
	assert_int_equal(sqlite3_column_int64(st, 6), gp->min_sync_delay);
	{
		uint64_t sync[4];

		for (int i = 0; i < 4; i++)
			sync[i] = gp->relative_sync_delay_by_tile ? gp->relative_sync_delay_by_tile[i] : 0;
		assert_blob_dense(st, 7, sync, 4);
	}
	assert_int_equal(sqlite3_column_int64(st, 8), gp->target.bytes_per_tile * 8);
	assert_int_equal(sqlite3_column_int64(st, 9), gp->target.bytes_per_tile * 4);
	assert_int_equal(sqlite3_column_int64(st, 10), gp->target.num_worker_contexts);
	assert_string_equal(sqlite3_column_text(st, 11), gp->target.name);
	assert_string_equal(sqlite3_column_text(st, 12), "Mk2");
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	/* graph */
	st = query(db, "SELECT num_compute_sets, num_edges, num_vars, num_vertices FROM graph");
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), gp->num_compute_sets);
	assert_int_equal(sqlite3_column_int64(st, 1), gp->num_edges);
	assert_int_equal(sqlite3_column_int64(st, 2), gp->num_vars);
	assert_int_equal(sqlite3_column_int64(st, 3), gp->num_vertices);
	sqlite3_finalize(st);
	/* names are interned once */
	assert_int_equal(q_int(db, "SELECT count(*) - count(DISTINCT text) FROM string"), 0);
	sqlite3_close(db);
	free(path);
}

/* Every table that the model has data for is filled; run tables stay
 * empty until runs are added. */
static void test_tables_filled(void **state)
{
	fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	char *path = write_report(f, true, false);
	sqlite3 *db = open_db(path);
	static const char *const filled[] = {
	    "meta", "option", "string", "target", "graph", "vertex_type", "compute_set",
	    "compute_set_vertex_type", "exchange", "program", "program_child", "control_program",
	    "function_program", "tile_memory", "memory_category", "memory_by_compute_set",
	    "memory_by_vertex_type", "variable", "liveness_step",
	};

	for (size_t i = 0; i < sizeof(filled) / sizeof(filled[0]); i++) {
		if (count_rows(db, filled[i]) == 0)
			fail_msg("table %s is empty", filled[i]);
	}
	/* the model has the three kinds of exchange */
	for (int k = 0; k < TSI_EXCHANGE_KIND_COUNT; k++)
		assert_true(gp->n_exchanges[k] > 0);
	assert_int_equal(count_rows(db, "debug_context"), gp->n_debug_contexts);
	assert_int_equal(count_rows(db, "oom_tile"), 0);
	assert_int_equal(count_rows(db, "optimization_info"), 0);
	assert_int_equal(count_rows(db, "run"), 0);
	assert_int_equal(count_rows(db, "step"), 0);
	assert_int_equal(count_rows(db, "program_trace"), 0);
	/* the views work on a real file */
	assert_true(q_int(db, "SELECT count(*) FROM v_compute_set") == (int64_t)gp->n_compute_sets);
	assert_true(q_int(db, "SELECT count(*) FROM v_variable") > 0);
	assert_true(q_int(db, "SELECT count(*) FROM v_program") == (int64_t)gp->n_programs);
	sqlite3_close(db);
	free(path);
}

/* vertex_type, compute_set, compute_set_vertex_type, by compute set and
 * vertex type memory: every value and every decoded blob. */
static void test_compute_sets(void **state)
{
	fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	size_t nt = gp->target.num_tiles;
	char *path = write_report(f, true, false);
	sqlite3 *db = open_db(path);
	sqlite3_stmt *st;

	assert_int_equal(count_rows(db, "vertex_type"), gp->n_vertex_types);
	st = query(db, "SELECT id, name, state_bytes, code_bytes, instances, flops FROM vertex_type "
	               "ORDER BY id");
	for (size_t i = 0; i < gp->n_vertex_types; i++) {
		const tsi_vertex_type_profile *vt = &gp->vertex_types[i];

		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), i);
		assert_name(db, st, 1, vt->name);
		assert_int_equal(sqlite3_column_int64(st, 2), vt->state_bytes);
		assert_int_equal(sqlite3_column_int64(st, 3), vt->code_bytes);
		assert_int_equal(sqlite3_column_int64(st, 4), vt->instances);
		assert_int_equal(sqlite3_column_int64(st, 5), vt->flops);
	}
	sqlite3_finalize(st);

	assert_int_equal(count_rows(db, "compute_set"), gp->n_compute_sets);
	st = query(db, "SELECT id, name, flops, debug_context, tiles, cycles, cycles_sum, "
	               "active_cycles, active_cycles_sum, cycles_by_tile, active_cycles_by_tile "
	               "FROM compute_set ORDER BY id");
	for (size_t i = 0; i < gp->n_compute_sets; i++) {
		const tsi_compute_set_profile *cs = &gp->compute_sets[i];
		uint64_t tiles = 0;

		for (size_t t = 0; t < cs->cycles_by_tile.n; t++)
			tiles += cs->cycles_by_tile.values[t] != 0;
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), i);
		assert_name(db, st, 1, cs->name);
		assert_int_equal(sqlite3_column_int64(st, 2), cs->flops);
		assert_int_equal(col_or_null(st, 3), cs->debug_context ? (int64_t)cs->debug_context : -1);
		assert_int_equal(sqlite3_column_int64(st, 4), tiles);
		assert_int_equal(sqlite3_column_int64(st, 5), tsi_tile_values_max(&cs->cycles_by_tile));
		assert_int_equal(sqlite3_column_int64(st, 6), tsi_tile_values_sum(&cs->cycles_by_tile));
		assert_int_equal(sqlite3_column_int64(st, 7),
		                 tsi_tile_values_max(&cs->active_cycles_by_tile));
		assert_int_equal(sqlite3_column_int64(st, 8),
		                 tsi_tile_values_sum(&cs->active_cycles_by_tile));
		assert_blob_tv(st, 9, &cs->cycles_by_tile, nt);
		assert_blob_tv(st, 10, &cs->active_cycles_by_tile, nt);
	}
	sqlite3_finalize(st);

	st = query(db, "SELECT compute_set, vertex_type, vertex_count, active_cycles "
	               "FROM compute_set_vertex_type ORDER BY compute_set, vertex_type");
	{
		size_t rows = 0;

		while (sqlite3_step(st) == SQLITE_ROW) {
			const tsi_compute_set_profile *cs;
			uint32_t k;

			rows++;
			assert_true(sqlite3_column_int64(st, 0) < (int64_t)gp->n_compute_sets);
			cs = &gp->compute_sets[sqlite3_column_int64(st, 0)];
			for (k = 0; k < cs->n_types; k++) {
				if (cs->vertex_types[k] == sqlite3_column_int64(st, 1))
					break;
			}
			assert_true(k < cs->n_types);
			assert_int_equal(sqlite3_column_int64(st, 2), cs->vertex_counts[k]);
			assert_int_equal(sqlite3_column_int64(st, 3), cs->active_cycles_by_type[k]);
		}
		for (size_t i = 0; i < gp->n_compute_sets; i++)
			rows -= gp->compute_sets[i].n_types;
		assert_int_equal(rows, 0);
	}
	sqlite3_finalize(st);

	/* memory by compute set / by vertex type: seven blobs and their sums */
	for (int which = 0; which < 2; which++) {
		size_t n = which ? gp->n_vertex_types : gp->n_compute_sets;
		const tsi_vertex_memory *vm = which ? gp->by_vertex_type : gp->by_compute_set;

		assert_int_equal(count_rows(db, which ? "memory_by_vertex_type"
		                                      : "memory_by_compute_set"),
		                 n);
		st = query(db,
		           "SELECT code_bytes, copy_ptr_bytes, descriptor_bytes, edge_ptr_bytes, "
		           "padding_bytes, vertex_data_bytes, total_bytes, code_bytes_by_tile, "
		           "copy_ptr_bytes_by_tile, descriptor_bytes_by_tile, edge_ptr_bytes_by_tile, "
		           "padding_bytes_by_tile, vertex_data_bytes_by_tile, total_bytes_by_tile "
		           "FROM %s ORDER BY %s",
		           which ? "memory_by_vertex_type" : "memory_by_compute_set",
		           which ? "vertex_type" : "compute_set");
		for (size_t i = 0; i < n; i++) {
			const tsi_tile_values *arr[7] = {
			    &vm[i].code_bytes,    &vm[i].copy_ptr_bytes,    &vm[i].descriptor_bytes,
			    &vm[i].edge_ptr_bytes, &vm[i].padding_bytes,    &vm[i].vertex_data_bytes,
			    &vm[i].total_bytes};

			assert_int_equal(sqlite3_step(st), SQLITE_ROW);
			for (int k = 0; k < 7; k++) {
				assert_int_equal(sqlite3_column_int64(st, k), tsi_tile_values_sum(arr[k]));
				assert_blob_tv(st, 7 + k, arr[k], nt);
			}
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	free(path);
}

/* The three exchange lists. */
static void test_exchanges(void **state)
{
	fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	static const char *const kinds[] = {"internal", "external", "host"};
	size_t nt = gp->target.num_tiles;
	char *path = write_report(f, true, false);
	sqlite3 *db = open_db(path);

	for (int k = 0; k < TSI_EXCHANGE_KIND_COUNT; k++) {
		sqlite3_stmt *st = query(db,
		                         "SELECT id, name, bytes_received, bytes_sent, cycles, "
		                         "cycles_sum, bytes_received_by_tile, bytes_sent_by_tile, "
		                         "cycles_by_tile, tiles FROM exchange WHERE kind = '%s' "
		                         "ORDER BY id",
		                         kinds[k]);

		for (size_t i = 0; i < gp->n_exchanges[k]; i++) {
			const tsi_exchange_profile *x = &gp->exchanges[k][i];

			assert_int_equal(sqlite3_step(st), SQLITE_ROW);
			assert_int_equal(sqlite3_column_int64(st, 0), i);
			assert_name(db, st, 1, x->name ? x->name : "");
			assert_int_equal(sqlite3_column_int64(st, 2), tsi_tile_values_sum(&x->bytes_received));
			assert_int_equal(sqlite3_column_int64(st, 3), tsi_tile_values_sum(&x->bytes_sent));
			assert_int_equal(sqlite3_column_int64(st, 4), tsi_tile_values_max(&x->cycles));
			assert_int_equal(sqlite3_column_int64(st, 5), tsi_tile_values_sum(&x->cycles));
			assert_blob_tv(st, 6, &x->bytes_received, nt);
			assert_blob_tv(st, 7, &x->bytes_sent, nt);
			assert_blob_tv(st, 8, &x->cycles, nt);
			if (tsi_tile_values_sum(&x->bytes_sent) > 0)
				assert_true(sqlite3_column_int64(st, 9) > 0);
			assert_true(sqlite3_column_int64(st, 9) <= (int64_t)nt);
		}
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	free(path);
}

/* Programs with their children, control and function programs. */
static void test_programs(void **state)
{
	fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	char *path = write_report(f, true, false);
	sqlite3 *db = open_db(path);
	sqlite3_stmt *st, *ch;
	int seen_types = 0;

	assert_int_equal(count_rows(db, "program"), gp->n_programs);
	st = query(db, "SELECT id, type, name, compute_set, exchange, function, sync_type, "
	               "repeat_count, instr_total, instr_delay FROM program ORDER BY id");
	ch = query(db, "SELECT parent, position, child FROM program_child ORDER BY parent, position");
	for (size_t i = 0; i < gp->n_programs; i++) {
		const tsi_lowered_program *p = &gp->programs[i];
		bool xchg = p->type == TSI_LP_DO_EXCHANGE || p->type == TSI_LP_GLOBAL_EXCHANGE ||
		            p->type == TSI_LP_STREAM_COPY;

		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), i);
		assert_string_equal(sqlite3_column_text(st, 1), tsi_lowered_type_name(p->type));
		assert_name(db, st, 2, p->name);
		assert_int_equal(col_or_null(st, 3),
		                 p->type == TSI_LP_ON_TILE_EXECUTE ? p->compute_set : -1);
		assert_int_equal(col_or_null(st, 4), xchg ? p->exchange : -1);
		assert_int_equal(col_or_null(st, 5), p->type == TSI_LP_CALL ? p->function : -1);
		if (p->type == TSI_LP_SYNC)
			assert_string_equal(sqlite3_column_text(st, 6),
			                    p->sync == TSI_SYNC_EXTERNAL ? "External"
			                    : p->sync == TSI_SYNC_INTERNAL ? "Internal" : "Global");
		else
			assert_int_equal(sqlite3_column_type(st, 6), SQLITE_NULL);
		assert_int_equal(col_or_null(st, 7),
		                 p->type == TSI_LP_REPEAT ? (int64_t)p->repeat_count : -1);
		assert_int_equal(col_or_null(st, 8), xchg ? (int64_t)p->memory_by_instruction.total : -1);
		assert_int_equal(col_or_null(st, 9), xchg ? (int64_t)p->memory_by_instruction.delay : -1);
		seen_types |= 1 << p->type;
		for (uint32_t k = 0; k < p->n_children; k++) {
			assert_int_equal(sqlite3_step(ch), SQLITE_ROW);
			assert_int_equal(sqlite3_column_int64(ch, 0), i);
			assert_int_equal(sqlite3_column_int64(ch, 1), k);
			assert_int_equal(sqlite3_column_int64(ch, 2), p->children[k]);
		}
	}
	assert_int_equal(sqlite3_step(ch), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_finalize(ch);
	/* the model has every kind this test checks specially */
	assert_true(seen_types & (1 << TSI_LP_REPEAT));
	assert_true(seen_types & (1 << TSI_LP_CALL));
	assert_true(seen_types & (1 << TSI_LP_SYNC));
	assert_true(seen_types & (1 << TSI_LP_STREAM_COPY));
	assert_true(seen_types & (1 << TSI_LP_GLOBAL_EXCHANGE));
	assert_true(seen_types & (1 << TSI_LP_ON_TILE_EXECUTE));

	assert_int_equal(count_rows(db, "control_program"), gp->n_control_programs);
	assert_int_equal(gp->n_control_programs, 2);
	for (size_t i = 0; i < gp->n_control_programs; i++)
		assert_int_equal(q_int(db, "SELECT program FROM control_program WHERE position = %zu", i),
		                 gp->control_programs[i]);
	assert_int_equal(count_rows(db, "function_program"), gp->n_function_programs);
	for (size_t i = 0; i < gp->n_function_programs; i++)
		assert_int_equal(q_int(db, "SELECT program FROM function_program WHERE position = %zu",
		                       i),
		                 gp->function_programs[i]);
	sqlite3_close(db);
	free(path);
}

/* tile_memory equals by_tile on every tile; memory_category equals the
 * dense by_category rows. */
static void test_memory(void **state)
{
	fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	uint32_t nt = gp->target.num_tiles;
	char *path = write_report(f, true, false);
	sqlite3 *db = open_db(path);
	sqlite3_stmt *st;

	assert_int_equal(count_rows(db, "tile_memory"), nt);
	st = query(db, "SELECT tile, ipu, interleaved, interleaved_including_gaps, non_interleaved, "
	               "non_interleaved_including_gaps, overflowed, overflowed_including_gaps, total, "
	               "total_including_gaps FROM tile_memory ORDER BY tile");
	for (uint32_t t = 0; t < nt; t++) {
		const tsi_tile_memory *m = &gp->by_tile[t];

		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), t);
		assert_int_equal(sqlite3_column_int64(st, 1), t / 4);
		assert_int_equal(sqlite3_column_int64(st, 2), m->region[TSI_REGION_INTERLEAVED]);
		assert_int_equal(sqlite3_column_int64(st, 3),
		                 m->region_including_gaps[TSI_REGION_INTERLEAVED]);
		assert_int_equal(sqlite3_column_int64(st, 4), m->region[TSI_REGION_NON_INTERLEAVED]);
		assert_int_equal(sqlite3_column_int64(st, 5),
		                 m->region_including_gaps[TSI_REGION_NON_INTERLEAVED]);
		assert_int_equal(sqlite3_column_int64(st, 6), m->region[TSI_REGION_OVERFLOWED]);
		assert_int_equal(sqlite3_column_int64(st, 7),
		                 m->region_including_gaps[TSI_REGION_OVERFLOWED]);
		assert_int_equal(sqlite3_column_int64(st, 8), m->total);
		assert_int_equal(sqlite3_column_int64(st, 9), m->total_including_gaps);
		assert_true(m->total > 0);
	}
	sqlite3_finalize(st);

	assert_int_equal(count_rows(db, "memory_category"),
	                 TSI_MEM_CATEGORY_COUNT * TSI_REGION_COUNT * 2);
	for (int c = 0; c < TSI_MEM_CATEGORY_COUNT; c++) {
		for (int r = 0; r < TSI_REGION_COUNT; r++) {
			for (int ov = 0; ov < 2; ov++) {
				static const char *const regions[] = {"interleaved", "nonInterleaved",
				                                      "overflowed"};
				uint64_t *dense = malloc(nt * sizeof(*dense));
				uint64_t sum = 0, tiles = 0;

				assert_non_null(dense);
				for (uint32_t t = 0; t < nt; t++) {
					dense[t] = tsi_graph_profile_category(gp, (tsi_mem_category)c,
					                                      (tsi_mem_region)r, ov, t);
					sum += dense[t];
					tiles += dense[t] != 0;
				}
				st = query(db,
				           "SELECT total, tiles, by_tile FROM memory_category WHERE category = "
				           "'%s' AND region = '%s' AND overlapped = %d",
				           tsi_mem_category_name((tsi_mem_category)c), regions[r], ov);
				assert_int_equal(sqlite3_step(st), SQLITE_ROW);
				assert_int_equal(sqlite3_column_int64(st, 0), sum);
				assert_int_equal(sqlite3_column_int64(st, 1), tiles);
				assert_blob_dense(st, 2, dense, nt);
				sqlite3_finalize(st);
				free(dense);
			}
		}
	}
	/* "Memory by category" adds up: the non-overlapped column holds data
	 * that is never shared, so it cannot exceed the tiles' data. */
	assert_true(q_int(db, "SELECT SUM(total) FROM memory_category WHERE overlapped = 0") <=
	            q_int(db, "SELECT SUM(total) FROM tile_memory"));
	sqlite3_close(db);
	free(path);
}

/* True for user variables and constants. */
static bool is_user(const tsi_variable_profile *v)
{
	return v->category == TSI_MEM_VARIABLE || v->category == TSI_MEM_CONSTANT;
}

/* Variables with their liveness intervals; liveness steps; debug contexts. */
static void test_variables_and_liveness(void **state)
{
	fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	size_t nt = gp->target.num_tiles;
	char *path = write_report(f, true, false);
	sqlite3 *db = open_db(path);
	sqlite3_stmt *st;
	bool saw_interval = false, saw_always = false;

	assert_int_equal(count_rows(db, "variable"), gp->n_variables);
	st = query(db, "SELECT id, name, category, type, bytes, shape, tiles, bytes_by_tile, "
	               "always_live, live_from, live_to FROM variable ORDER BY id");
	for (size_t i = 0; i < gp->n_variables; i++) {
		const tsi_variable_profile *v = &gp->variables[i];
		bool live = !v->always_live && v->live_from != UINT32_MAX;

		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), i);
		assert_name(db, st, 1, v->name);
		assert_string_equal(sqlite3_column_text(st, 2), tsi_mem_category_name(v->category));
		assert_string_equal(sqlite3_column_text(st, 3), tsi_type_name(v->type));
		assert_int_equal(sqlite3_column_int64(st, 4), v->bytes);
		assert_blob_tv(st, 7, &v->bytes_by_tile, nt);
		assert_int_equal(sqlite3_column_int64(st, 8), v->always_live);
		assert_int_equal(col_or_null(st, 9), live ? (int64_t)v->live_from : -1);
		assert_int_equal(col_or_null(st, 10), live ? (int64_t)v->live_to : -1);
		saw_interval |= live && v->live_to >= v->live_from;
		saw_always |= v->always_live;
		if (v->name && strcmp(v->name, "b") == 0) {
			assert_string_equal(sqlite3_column_text(st, 5), "[4,4]");
			assert_int_equal(sqlite3_column_int64(st, 6), 1); /* all on tile 5 */
		}
		if (v->name && strcmp(v->name, "a") == 0) {
			assert_string_equal(sqlite3_column_text(st, 5), "[16]");
			assert_int_equal(sqlite3_column_int64(st, 6), 8); /* linearly, grain 2 */
		}
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_true(saw_interval);
	assert_true(saw_always);
	/* the interval query the schema documents, against the profile */
	for (size_t s = 0; s < gp->n_liveness; s++) {
		int64_t expect = 0;

		for (size_t i = 0; i < gp->n_variables; i++) {
			const tsi_variable_profile *v = &gp->variables[i];

			expect += !v->always_live && v->live_from != UINT32_MAX && v->live_from <= s &&
			          v->live_to >= s;
		}
		assert_int_equal(q_int(db, "SELECT count(*) FROM variable WHERE live_from <= %zu "
		                           "AND live_to >= %zu",
		                       s, s),
		                 expect);
	}

	assert_int_equal(count_rows(db, "liveness_step"), gp->n_liveness);
	st = query(db, "SELECT id, program, parent, depth, not_always_live_bytes FROM liveness_step "
	               "ORDER BY id");
	for (size_t i = 0; i < gp->n_liveness; i++) {
		const tsi_liveness_step *l = &gp->liveness[i];

		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), i);
		assert_int_equal(sqlite3_column_int64(st, 1), l->program);
		assert_int_equal(col_or_null(st, 2), l->parent);
		assert_int_equal(sqlite3_column_int64(st, 3), l->depth);
		assert_int_equal(sqlite3_column_int64(st, 4), l->not_always_live_bytes);
	}
	sqlite3_finalize(st);

	st = query(db, "SELECT id, parent, name, layer, api FROM debug_context ORDER BY id");
	for (size_t i = 0; i < gp->n_debug_contexts; i++) {
		const tsi_debug_context_profile *d = &gp->debug_contexts[i];

		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), d->id);
		assert_int_equal(col_or_null(st, 1), d->parent ? (int64_t)d->parent : -1);
		assert_name(db, st, 2, d->name ? d->name : "");
		assert_name(db, st, 3, d->layer ? d->layer : "");
		assert_name(db, st, 4, d->api);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);
}

/* Without outputLoweredVars only user variables are listed, with the
 * compiler's ids; the memory tables do not change. */
static void test_lowered_vars(void **state)
{
	fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	char *path = write_report(f, false, false);
	sqlite3 *db = open_db(path);
	size_t users = 0, compiler = 0;

	for (size_t i = 0; i < gp->n_variables; i++) {
		if (is_user(&gp->variables[i])) {
			users++;
			assert_int_equal(q_int(db, "SELECT count(*) FROM variable WHERE id = %zu", i), 1);
		} else {
			compiler++;
		}
	}
	assert_true(users > 0);
	assert_true(compiler > 0); /* message buffers and always-live aggregates */
	assert_int_equal(count_rows(db, "variable"), users);
	assert_int_equal(q_int(db, "SELECT count(*) FROM variable WHERE category NOT IN "
	                           "('variable', 'constant')"),
	                 0);
	assert_int_equal(q_int(db, "SELECT value FROM meta WHERE key = 'lowered_vars'"), 0);
	/* message bytes are still in the memory tables */
	assert_true(q_int(db, "SELECT SUM(total) FROM memory_category WHERE category = 'message'") >
	            0);
	sqlite3_close(db);
	free(path);
}

/* --- Runs -------------------------------------------------------------------- */

/* Checks that run `r` of the file equals `rp` field by field. */
static void assert_run(sqlite3 *db, size_t r, const tsi_run_profile *rp)
{
	sqlite3_stmt *st = query(db,
	                         "SELECT program, cycles, num_steps, trace_length, "
	                         "active_compute_cycles, compute_cycles, do_exchange_cycles, "
	                         "global_exchange_cycles, stream_copy_cycles, sync_cycles, "
	                         "copy_shared_structure_cycles FROM run WHERE id = %zu",
	                         r);

	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int64(st, 0), rp->program_index);
	assert_int_equal(sqlite3_column_int64(st, 1), rp->cycles);
	assert_int_equal(sqlite3_column_int64(st, 2), rp->n_steps);
	assert_int_equal(sqlite3_column_int64(st, 3), rp->n_trace);
	assert_int_equal(sqlite3_column_int64(st, 4), rp->tile_cycles.active_compute);
	assert_int_equal(sqlite3_column_int64(st, 5), rp->tile_cycles.compute);
	assert_int_equal(sqlite3_column_int64(st, 6), rp->tile_cycles.do_exchange);
	assert_int_equal(sqlite3_column_int64(st, 7), rp->tile_cycles.global_exchange);
	assert_int_equal(sqlite3_column_int64(st, 8), rp->tile_cycles.stream_copy);
	assert_int_equal(sqlite3_column_int64(st, 9), rp->tile_cycles.sync);
	assert_int_equal(sqlite3_column_int64(st, 10), rp->tile_cycles.copy_shared_structure);
	sqlite3_finalize(st);

	st = query(db, "SELECT position, program FROM program_trace WHERE run = %zu ORDER BY position",
	           r);
	for (size_t i = 0; i < rp->n_trace; i++) {
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), i);
		assert_int_equal(sqlite3_column_int64(st, 1), rp->program_trace[i]);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);

	st = query(db,
	           "SELECT id, type, program, compute_set, exchange, sync_type, cycles_from, "
	           "cycles_to, cycles, cycles_overlapped, active_tiles, tile_balance, "
	           "active_tile_balance, thread_balance, total_data, data_balance FROM step "
	           "WHERE run = %zu ORDER BY id",
	           r);
	for (size_t i = 0; i < rp->n_steps; i++) {
		const tsi_step *s = &rp->steps[i];

		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int64(st, 0), i);
		assert_string_equal(sqlite3_column_text(st, 1), tsi_step_type_name(s->type));
		assert_int_equal(sqlite3_column_int64(st, 2), s->program);
		assert_int_equal(col_or_null(st, 3), s->compute_set);
		assert_int_equal(col_or_null(st, 4), s->exchange);
		if (s->type == TSI_STEP_SYNC)
			assert_string_equal(sqlite3_column_text(st, 5),
			                    s->sync_type == TSI_SYNC_EXTERNAL ? "External"
			                    : s->sync_type == TSI_SYNC_INTERNAL ? "Internal" : "Global");
		else
			assert_int_equal(sqlite3_column_type(st, 5), SQLITE_NULL);
		assert_int_equal(sqlite3_column_int64(st, 6), s->cycles_from);
		assert_int_equal(sqlite3_column_int64(st, 7), s->cycles_to);
		assert_int_equal(sqlite3_column_int64(st, 8), s->cycles);
		assert_int_equal(sqlite3_column_int64(st, 9), s->cycles_overlapped);
		assert_int_equal(sqlite3_column_int64(st, 10), s->active_tiles);
		assert_true(sqlite3_column_double(st, 11) == s->tile_balance);
		assert_true(sqlite3_column_double(st, 12) == s->active_tile_balance);
		assert_true(sqlite3_column_double(st, 13) == s->thread_balance);
		assert_int_equal(sqlite3_column_int64(st, 14), s->total_data);
		assert_true(sqlite3_column_double(st, 15) == s->data_balance);
	}
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

/* add_runs twice: runs keep their order and numbers; a call with nothing
 * new does nothing; no temporary file is left behind. */
static void test_runs(void **state)
{
	fixture *f = *state;
	tsi_report_meta meta = test_meta(f, true);
	tsi_report_writer *w = NULL;
	char *path = path_in(f->dir, "profile.pop");
	sqlite3 *db;
	struct stat before, after;

	assert_int_equal(tsi_report_writer_new(&w, path, f->gp, &meta), TSI_OK);
	assert_int_equal(dir_entries(f->dir), 1);
	assert_int_equal(tsi_report_writer_add_runs(w, f->runs, 1), TSI_OK);
	assert_int_equal(dir_entries(f->dir), 1);
	db = open_db(path);
	assert_int_equal(count_rows(db, "run"), 1);
	assert_run(db, 0, f->runs[0]);
	sqlite3_close(db);
	assert_int_equal(tsi_report_writer_add_runs(w, f->runs, f->n_runs), TSI_OK);
	assert_int_equal(dir_entries(f->dir), 1);
	/* nothing new: the file is not rewritten */
	assert_int_equal(stat(path, &before), 0);
	assert_int_equal(tsi_report_writer_add_runs(w, f->runs, f->n_runs), TSI_OK);
	assert_int_equal(tsi_report_writer_add_runs(w, f->runs, 1), TSI_OK);
	assert_int_equal(stat(path, &after), 0);
	assert_true(before.st_ino == after.st_ino);
	tsi_report_writer_free(w);

	db = open_db(path);
	assert_int_equal(count_rows(db, "run"), f->n_runs);
	for (size_t r = 0; r < f->n_runs; r++)
		assert_run(db, r, f->runs[r]);
	/* runs were 0, 0, 1 */
	assert_int_equal(q_int(db, "SELECT program FROM run WHERE id = 0"), 0);
	assert_int_equal(q_int(db, "SELECT program FROM run WHERE id = 1"), 0);
	if (f->n_runs > 2)
		assert_int_equal(q_int(db, "SELECT program FROM run WHERE id = 2"), 1);
	/* the graph profile is untouched */
	assert_int_equal(count_rows(db, "compute_set"), f->gp->n_compute_sets);
	assert_int_equal(q_int(db, "PRAGMA application_id"), TSF_PROFILE_APPLICATION_ID);
	/* the v_step view names steps */
	assert_true(q_int(db, "SELECT count(*) FROM v_step WHERE compute_set_name IS NOT NULL") > 0);
	assert_true(q_int(db, "SELECT count(*) FROM v_step WHERE exchange_name IS NOT NULL") > 0);
	sqlite3_close(db);
	free(path);
}

/* The schema's CREATE INDEX statements in a report, in name order, as
 * one string (caller frees). */
static char *index_sql(const char *path)
{
	sqlite3 *db = open_db(path);
	sqlite3_stmt *st = query(db, "SELECT group_concat(sql, ';') FROM (SELECT sql FROM "
	                             "sqlite_schema WHERE type = 'index' AND sql IS NOT NULL "
	                             "ORDER BY name)");
	char *sql;

	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	sql = strdup((const char *)sqlite3_column_text(st, 0));
	assert_non_null(sql);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return sql;
}

/*
 * Issue 19: the graph profile stays open and unpublished after
 * _write_graph; the first runs go into that same file, which is then
 * published with every index of the schema (made after their tables
 * filled), and later runs go in as before. A report published without
 * runs has the same indexes, and _publish twice is harmless.
 */
static void test_first_runs_join_the_graph(void **state)
{
	fixture *f = *state;
	tsi_report_meta meta = test_meta(f, true);
	tsi_report_writer *w = NULL;
	char *path = path_in(f->dir, "profile.pop");
	char *dir2 = path_in(f->dir, "graph-only");
	char *path2 = path_in(dir2, "profile.pop");
	char *want, *got;
	int found = 0;
	sqlite3 *db;

	assert_int_equal(tsi_report_writer_create(&w, path, f->gp, &meta), TSI_OK);
	assert_int_equal(tsi_report_writer_write_graph(w), TSI_OK);
	assert_false(tsi_report_writer_is_published(w));
	assert_false(file_exists(path)); /* only the temporary so far */
	assert_int_equal(dir_entries(f->dir), 1);
	assert_int_equal(tsi_report_writer_add_runs(w, f->runs, 1), TSI_OK);
	assert_true(tsi_report_writer_is_published(w));
	assert_int_equal(dir_entries(f->dir), 1); /* the temporary became the report */
	db = open_db(path);
	assert_int_equal(count_rows(db, "run"), 1);
	assert_run(db, 0, f->runs[0]);
	assert_int_equal(count_rows(db, "compute_set"), f->gp->n_compute_sets);
	{
		sqlite3_stmt *st = query(db, "PRAGMA integrity_check");

		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	assert_int_equal(tsi_report_writer_add_runs(w, f->runs, f->n_runs), TSI_OK);
	assert_int_equal(tsi_report_writer_publish(w), TSI_OK);
	tsi_report_writer_free(w);
	db = open_db(path);
	assert_int_equal(count_rows(db, "run"), f->n_runs);
	for (size_t r = 0; r < f->n_runs; r++)
		assert_run(db, r, f->runs[r]);
	sqlite3_close(db);

	/* Published without runs: the same indexes, empty run tables. */
	assert_int_equal(mkdir(dir2, 0700), 0);
	w = NULL;
	assert_int_equal(tsi_report_writer_create(&w, path2, f->gp, &meta), TSI_OK);
	assert_int_equal(tsi_report_writer_publish(w), TSI_ERR_INVALID_ARGUMENT); /* no graph yet */
	assert_int_equal(tsi_report_writer_write_graph(w), TSI_OK);
	assert_int_equal(tsi_report_writer_publish(w), TSI_OK);
	assert_int_equal(tsi_report_writer_publish(w), TSI_OK);
	tsi_report_writer_free(w);
	want = index_sql(path);
	got = index_sql(path2);
	assert_string_equal(got, want);
	/* every CREATE INDEX statement of the schema (at a line's start, not
	 * in a comment) is in the file */
	for (const char *p = tsf_profile_schema_sql; (p = strstr(p, "\nCREATE INDEX ")); p++) {
		char name[128];

		assert_int_equal(sscanf(p + 1, "CREATE INDEX %127s", name), 1);
		assert_non_null(strstr(want, name));
		found++;
	}
	assert_true(found >= 2); /* the graph's and the runs' (step_by_cycles) */
	assert_non_null(strstr(want, "step_by_cycles"));
	db = open_db(path2);
	assert_int_equal(count_rows(db, "run"), 0);
	assert_int_equal(count_rows(db, "variable"), f->gp->n_variables);
	sqlite3_close(db);
	free(want);
	free(got);

	/* Freed unpublished: no file. */
	assert_int_equal(unlink(path2), 0);
	w = NULL;
	assert_int_equal(tsi_report_writer_create(&w, path2, f->gp, &meta), TSI_OK);
	assert_int_equal(tsi_report_writer_write_graph(w), TSI_OK);
	tsi_report_writer_free(w);
	assert_int_equal(dir_entries(dir2), 0);
	free(path);
	free(path2);
	free(dir2);
}

/* Sorts descending (for the top-10 comparisons). */
static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The questions profile.sql says the shell answers, against the profile,
 * and that the first three are answered through the shipped indexes. */
static void test_documented_queries(void **state)
{
	fixture *f = *state;
	const tsi_graph_profile *gp = f->gp;
	uint32_t nt = gp->target.num_tiles;
	char *path = write_report(f, true, true);
	sqlite3 *db = open_db(path);
	sqlite3_stmt *st;
	uint64_t *vals;
	size_t n = 0, total_steps = 0;

	/* 1. the 10 largest tiles including gaps */
	vals = calloc(nt, sizeof(*vals));
	assert_non_null(vals);
	for (uint32_t t = 0; t < nt; t++)
		vals[t] = gp->by_tile[t].total_including_gaps;
	qsort(vals, nt, sizeof(*vals), cmp_desc);
	st = query(db, "SELECT tile, total_including_gaps FROM tile_memory "
	               "ORDER BY total_including_gaps DESC LIMIT 10");
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_int_equal(sqlite3_column_int64(st, 1), vals[n]);
		assert_int_equal(gp->by_tile[sqlite3_column_int64(st, 0)].total_including_gaps, vals[n]);
		n++;
	}
	assert_int_equal(n, nt < 10 ? nt : 10);
	sqlite3_finalize(st);
	free(vals);

	/* 2. memory by category */
	st = query(db, "SELECT category, SUM(total) AS bytes FROM memory_category "
	               "GROUP BY category ORDER BY bytes DESC");
	n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		uint64_t expect = 0;
		int c;

		for (c = 0; c < TSI_MEM_CATEGORY_COUNT; c++) {
			if (strcmp(name, tsi_mem_category_name((tsi_mem_category)c)) == 0)
				break;
		}
		assert_true(c < TSI_MEM_CATEGORY_COUNT);
		for (int r = 0; r < TSI_REGION_COUNT; r++)
			for (int ov = 0; ov < 2; ov++)
				for (uint32_t t = 0; t < nt; t++)
					expect += tsi_graph_profile_category(gp, (tsi_mem_category)c,
					                                     (tsi_mem_region)r, ov, t);
		assert_int_equal(sqlite3_column_int64(st, 1), expect);
		n++;
	}
	assert_int_equal(n, TSI_MEM_CATEGORY_COUNT);
	sqlite3_finalize(st);

	/* 3. the 10 longest steps of all runs */
	for (size_t r = 0; r < f->n_runs; r++)
		total_steps += f->runs[r]->n_steps;
	vals = calloc(total_steps, sizeof(*vals));
	assert_non_null(vals);
	n = 0;
	for (size_t r = 0; r < f->n_runs; r++)
		for (size_t i = 0; i < f->runs[r]->n_steps; i++)
			vals[n++] = f->runs[r]->steps[i].cycles;
	qsort(vals, total_steps, sizeof(*vals), cmp_desc);
	st = query(db, "SELECT run, id, type, program, cycles FROM step ORDER BY cycles DESC LIMIT 10");
	n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const tsi_run_profile *rp = f->runs[sqlite3_column_int64(st, 0)];
		const tsi_step *s = &rp->steps[sqlite3_column_int64(st, 1)];

		assert_int_equal(sqlite3_column_int64(st, 4), vals[n]);
		assert_int_equal(s->cycles, vals[n]);
		assert_int_equal(sqlite3_column_int64(st, 3), s->program);
		n++;
	}
	assert_int_equal(n, total_steps < 10 ? total_steps : 10);
	sqlite3_finalize(st);
	free(vals);

	/* 4. active cycles by vertex type */
	st = query(db, "SELECT c.vertex_type, s.text, SUM(c.active_cycles) AS cycles "
	               "FROM compute_set_vertex_type c JOIN vertex_type v ON v.id = c.vertex_type "
	               "JOIN string s ON s.id = v.name GROUP BY c.vertex_type ORDER BY cycles DESC");
	n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t vt = sqlite3_column_int64(st, 0);
		uint64_t expect = 0;

		assert_string_equal(sqlite3_column_text(st, 1), gp->vertex_types[vt].name);
		for (size_t i = 0; i < gp->n_compute_sets; i++)
			for (uint32_t k = 0; k < gp->compute_sets[i].n_types; k++)
				if (gp->compute_sets[i].vertex_types[k] == vt)
					expect += gp->compute_sets[i].active_cycles_by_type[k];
		assert_int_equal(sqlite3_column_int64(st, 2), expect);
		n++;
	}
	assert_int_equal(n, gp->n_vertex_types);
	sqlite3_finalize(st);

	/* the indexes answer the top-N questions without a sort */
	{
		static const char *const plans[][2] = {
		    {"SELECT tile FROM tile_memory ORDER BY total_including_gaps DESC LIMIT 10",
		     "tile_memory_by_total_including_gaps"},
		    {"SELECT run, id FROM step ORDER BY cycles DESC LIMIT 10", "step_by_cycles"},
		    {"SELECT id FROM variable ORDER BY bytes DESC LIMIT 10", "variable_by_bytes"},
		};

		for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++) {
			bool used = false;

			st = query(db, "EXPLAIN QUERY PLAN %s", plans[i][0]);
			while (sqlite3_step(st) == SQLITE_ROW)
				used |= strstr((const char *)sqlite3_column_text(st, 3), plans[i][1]) != NULL;
			sqlite3_finalize(st);
			if (!used)
				fail_msg("%s does not use %s", plans[i][0], plans[i][1]);
		}
	}
	sqlite3_close(db);
	free(path);
}

/* --- Files and failures ------------------------------------------------------ */

/* move renames the file, creates nothing else, and later runs go there. */
static void test_move(void **state)
{
	fixture *f = *state;
	tsi_report_meta meta = test_meta(f, true);
	tsi_report_writer *w = NULL;
	char *path = path_in(f->dir, "profile.pop");
	char *sub = path_in(f->dir, "engine1");
	char *moved = path_in(sub, "profile.pop");
	sqlite3 *db;

	assert_int_equal(mkdir(sub, 0777), 0);
	assert_int_equal(tsi_report_writer_new(&w, path, f->gp, &meta), TSI_OK);
	assert_int_equal(tsi_report_writer_move(w, moved), TSI_OK);
	assert_false(file_exists(path));
	assert_true(file_exists(moved));
	assert_string_equal(tsi_report_writer_path(w), moved);
	assert_int_equal(tsi_report_writer_add_runs(w, f->runs, f->n_runs), TSI_OK);
	assert_int_equal(dir_entries(f->dir), 1); /* only engine1/ */
	assert_int_equal(dir_entries(sub), 1);
	/* a move into a missing directory fails and keeps the file */
	{
		char *bad = path_in(f->dir, "missing/profile.pop");

		assert_int_equal(tsi_report_writer_move(w, bad), TSI_ERR_IO);
		assert_non_null(strstr(tsi_error_last(), "missing"));
		assert_string_equal(tsi_report_writer_path(w), moved);
		assert_true(file_exists(moved));
		free(bad);
	}
	tsi_report_writer_free(w);
	db = open_db(moved);
	assert_int_equal(count_rows(db, "run"), f->n_runs);
	sqlite3_close(db);
	tsi_report_writer_free(NULL);
	free(path);
	free(moved);
	free(sub);
}

/* An existing report is replaced whole, never opened and appended to. */
static void test_replaces_existing(void **state)
{
	fixture *f = *state;
	char *path = path_in(f->dir, "profile.pop");
	FILE *junk = fopen(path, "w");
	sqlite3 *db;

	assert_non_null(junk);
	fputs("not a database", junk);
	fclose(junk);
	free(write_report(f, true, true));
	db = open_db(path);
	assert_int_equal(count_rows(db, "run"), f->n_runs);
	sqlite3_close(db);
	assert_int_equal(dir_entries(f->dir), 1);
	free(path);
}

/* Failures return an I/O error naming the path and leave nothing. */
static void test_failures(void **state)
{
	fixture *f = *state;
	tsi_report_meta meta = test_meta(f, true);
	tsi_report_writer *w = (tsi_report_writer *)1;
	char *missing = path_in(f->dir, "no/such/dir/profile.pop");
	char *blocker = path_in(f->dir, "profile.pop");
	char *inside = path_in(blocker, "keep");
	FILE *file;

	/* a directory that does not exist */
	assert_int_equal(tsi_report_writer_new(&w, missing, f->gp, &meta), TSI_ERR_IO);
	assert_null(w);
	assert_non_null(strstr(tsi_error_last(), missing));
	assert_int_equal(dir_entries(f->dir), 0);

	/* the final rename fails: profile.pop is a non-empty directory */
	assert_int_equal(mkdir(blocker, 0777), 0);
	file = fopen(inside, "w");
	assert_non_null(file);
	fclose(file);
	assert_int_equal(tsi_report_writer_new(&w, blocker, f->gp, &meta), TSI_ERR_IO);
	assert_null(w);
	assert_non_null(strstr(tsi_error_last(), blocker));
	assert_int_equal(dir_entries(f->dir), 1); /* the blocking directory alone */
	assert_int_equal(dir_entries(blocker), 1);

	/* a parent path that is a file */
	{
		char *under_file = path_in(inside, "profile.pop");

		assert_int_equal(tsi_report_writer_new(&w, under_file, f->gp, &meta), TSI_ERR_IO);
		free(under_file);
	}
	/* bad arguments */
	assert_int_equal(tsi_report_writer_new(&w, NULL, f->gp, &meta), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_report_writer_new(&w, missing, NULL, &meta), TSI_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsi_report_writer_add_runs(NULL, f->runs, 1), TSI_ERR_INVALID_ARGUMENT);
	free(missing);
	free(inside);
	free(blocker);
}

/* A profile with per-tile values out of order, or on a tile the target
 * does not have, fails mid-write (a reader would refuse those blobs): the
 * error says where and the temporary file is removed. */
static void test_failure_mid_write(void **state)
{
	fixture *f = *state;
	tsi_report_meta meta = test_meta(f, true);
	tsi_graph_profile bad = *f->gp;
	tsi_compute_set_profile *cs = malloc(bad.n_compute_sets * sizeof(*cs));
	const uint32_t tiles[2] = {3, 1};
	const uint64_t values[2] = {10, 20};
	tsi_report_writer *w = NULL;
	char *path = path_in(f->dir, "profile.pop");

	assert_non_null(cs);
	assert_true(bad.n_compute_sets > 0);
	memcpy(cs, bad.compute_sets, bad.n_compute_sets * sizeof(*cs));
	cs[bad.n_compute_sets - 1].cycles_by_tile.n = 2;
	cs[bad.n_compute_sets - 1].cycles_by_tile.tiles = tiles;
	cs[bad.n_compute_sets - 1].cycles_by_tile.values = values;
	bad.compute_sets = cs;
	assert_int_equal(tsi_report_writer_new(&w, path, &bad, &meta), TSI_ERR_INVALID_ARGUMENT);
	assert_null(w);
	assert_non_null(strstr(tsi_error_last(), "compute_set"));
	assert_non_null(strstr(tsi_error_last(), path));
	assert_int_equal(dir_entries(f->dir), 0);
	/* a variable on a tile past the last one */
	{
		tsi_variable_profile *vars = malloc(bad.n_variables * sizeof(*vars));
		const uint32_t past[1] = {f->gp->target.num_tiles};

		assert_non_null(vars);
		memcpy(vars, f->gp->variables, bad.n_variables * sizeof(*vars));
		vars[0].bytes_by_tile.n = 1;
		vars[0].bytes_by_tile.tiles = past;
		vars[0].bytes_by_tile.values = values;
		bad = *f->gp;
		bad.variables = vars;
		assert_int_equal(tsi_report_writer_new(&w, path, &bad, &meta),
		                 TSI_ERR_INVALID_ARGUMENT);
		assert_non_null(strstr(tsi_error_last(), "variable"));
		assert_int_equal(dir_entries(f->dir), 0);
		free(vars);
	}

	/* add_runs to a report that vanished fails and leaves nothing */
	assert_int_equal(tsi_report_writer_new(&w, path, f->gp, &meta), TSI_OK);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(tsi_report_writer_add_runs(w, f->runs, f->n_runs), TSI_ERR_IO);
	assert_int_equal(dir_entries(f->dir), 0);
	/* a report replaced by another file is refused, not overwritten */
	{
		FILE *junk = fopen(path, "w");

		assert_non_null(junk);
		fclose(junk);
		assert_int_equal(tsi_report_writer_add_runs(w, f->runs, f->n_runs), TSI_ERR_IO);
		assert_int_equal(dir_entries(f->dir), 1);
	}
	tsi_report_writer_free(w);
	free(cs);
	free(path);
}

/* A model that does not fit: its tiles are listed in oom_tile. */
static void test_out_of_memory(void **state)
{
	char *dir = tsi_test_mkdtemp();
	char *path = path_in(dir, "profile.pop");
	tsi_test_model m;
	tsi_tensor *big;
	tsi_report_writer *w = NULL;
	const tsi_graph_profile *gp;
	tsi_program *seq;
	sqlite3 *db;

	(void)state;
	tsi_test_model_init_ipu(&m, TSI_IPU_MK1, 1, 4, 1);
	big = tsi_graph_add_variable(m.graph, TSI_FLOAT, TSI_SHAPE(100000), "big");
	assert_non_null(big);
	assert_int_equal(tsi_graph_set_tile_mapping(m.graph, big, 2), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(m.graph, "big", big), TSI_OK);
	seq = tsi_prog_sequence(m.graph, "seq");
	assert_int_equal(tsi_engine_new(&m.engine, m.graph, &seq, 1, NULL), TSI_OK);
	gp = tsi_engine_get_graph_profile(m.engine);
	assert_non_null(gp);
	assert_true(gp->n_oom_tiles >= 1);
	assert_int_equal(tsi_report_writer_new(&w, path, gp, NULL), TSI_OK);
	db = open_db(path);
	assert_int_equal(count_rows(db, "oom_tile"), gp->n_oom_tiles);
	assert_int_equal(q_int(db, "SELECT count(*) FROM oom_tile WHERE tile = 2"), 1);
	assert_int_equal(q_int(db, "SELECT count(*) FROM tile_memory t JOIN target g "
	                           "WHERE t.total_including_gaps > g.bytes_per_tile"),
	                 gp->n_oom_tiles);
	assert_true(q_int(db, "SELECT overflowed FROM tile_memory WHERE tile = 2") > 0);
	/* no meta given: only the profile's own keys */
	assert_int_equal(count_rows(db, "option"), 0);
	assert_int_equal(q_int(db, "SELECT count(*) FROM meta WHERE key = 'created'"), 0);
	sqlite3_close(db);
	tsi_report_writer_free(w);
	tsi_test_model_free(&m);
	free(path);
	tsi_test_rmtree(dir);
}

/* --- A large synthetic profile ------------------------------------------------ */

/* A graph profile made by hand in the shape of a large model: compute sets
 * over ranges of tiles, mostly balanced (every tile the same), some varied
 * (every tile different); variables spread over ranges of tiles; a long
 * run. Per-tile arrays point into shared pools so that the issue 8 size
 * fits in memory; everything else is malloc'd into `keep`. */
#define SYNTH_FLAT 64
typedef struct synth {
	tsi_graph_profile gp;
	tsi_run_profile run;
	unsigned varied_percent;   /* share of varied compute sets */
	uint32_t *tile_pool;       /* 0 .. num_tiles - 1 */
	uint64_t *varied_pool;     /* 2 * num_tiles values, all different */
	uint64_t *flat_pool[SYNTH_FLAT]; /* num_tiles equal values each */
	void **keep;
	size_t n_keep, cap_keep;
} synth;

static uint64_t synth_rng = 88172645463325252u;

static uint64_t srng(void)
{
	synth_rng ^= synth_rng << 13;
	synth_rng ^= synth_rng >> 7;
	synth_rng ^= synth_rng << 17;
	return synth_rng;
}

static void *synth_alloc(synth *s, size_t bytes)
{
	void *p = calloc(1, bytes ? bytes : 1);

	assert_non_null(p);
	if (s->n_keep == s->cap_keep) {
		s->cap_keep = s->cap_keep ? 2 * s->cap_keep : 1024;
		s->keep = realloc(s->keep, s->cap_keep * sizeof(*s->keep));
		assert_non_null(s->keep);
	}
	s->keep[s->n_keep++] = p;
	return p;
}

/* Makes the shared pools for `nt` tiles. */
static void synth_pools(synth *s, uint32_t nt)
{
	s->tile_pool = synth_alloc(s, nt * sizeof(*s->tile_pool));
	s->varied_pool = synth_alloc(s, 2 * (size_t)nt * sizeof(*s->varied_pool));
	for (uint32_t t = 0; t < nt; t++)
		s->tile_pool[t] = t;
	for (size_t i = 0; i < 2 * (size_t)nt; i++)
		s->varied_pool[i] = 3000 + srng() % 3000;
	for (int k = 0; k < SYNTH_FLAT; k++) {
		s->flat_pool[k] = synth_alloc(s, nt * sizeof(*s->flat_pool[k]));
		for (uint32_t t = 0; t < nt; t++)
			s->flat_pool[k][t] = 64 + (uint64_t)k * 97;
	}
}

/* Per-tile values over tiles [lo, lo + n): all equal, or all different. */
static tsi_tile_values synth_tiles(synth *s, uint32_t lo, uint32_t n, bool varied)
{
	tsi_tile_values tv;

	tv.n = n;
	tv.tiles = s->tile_pool + lo;
	tv.values = varied ? s->varied_pool + srng() % s->gp.target.num_tiles
	                   : s->flat_pool[srng() % SYNTH_FLAT];
	return tv;
}

static char *synth_name(synth *s, const char *pre, size_t i, const char *post)
{
	char *p = synth_alloc(s, 64);

	snprintf(p, 64, "%s%zu%s", pre, i, post);
	return p;
}

static void synth_build(synth *s, size_t n_cs, unsigned ipus, unsigned tiles_per_ipu,
                        size_t n_vars, size_t n_live, size_t n_steps)
{
	tsi_graph_profile *gp = &s->gp;
	size_t n_vt = 200, n_ex = n_cs / 2;
	uint32_t nt;
	tsi_compute_set_profile *cs;
	tsi_vertex_type_profile *vt;
	tsi_vertex_memory *bycs, *byvt;
	tsi_exchange_profile *ex;
	tsi_lowered_program *progs;
	tsi_variable_profile *vars;
	tsi_liveness_step *live;
	tsi_tile_memory *bt;
	tsi_step *steps;
	uint32_t *trace, *ctrl, *sync;
	uint64_t *bycat;

	assert_int_equal(tsi_target_ipu(&gp->target, TSI_IPU_MK2, ipus, tiles_per_ipu), TSI_OK);
	nt = gp->target.num_tiles;
	synth_pools(s, nt);
	gp->replication_factor = 1;
	gp->min_sync_delay = 40;
	sync = synth_alloc(s, tiles_per_ipu * sizeof(*sync));
	for (unsigned t = 0; t < tiles_per_ipu; t++)
		sync[t] = t / 64;
	gp->relative_sync_delay_by_tile = sync;
	gp->num_compute_sets = n_cs;
	gp->num_vars = n_vars;

	vt = synth_alloc(s, n_vt * sizeof(*vt));
	byvt = synth_alloc(s, n_vt * sizeof(*byvt));
	for (size_t i = 0; i < n_vt; i++) {
		vt[i].name = synth_name(s, "popops::ScaledAdd2D<float,true,", i, ">");
		vt[i].state_bytes = 12;
		vt[i].code_bytes = 500;
		vt[i].instances = 1000;
		byvt[i].code_bytes = synth_tiles(s, 0, nt, false);
		byvt[i].vertex_data_bytes = synth_tiles(s, 0, nt, false);
		byvt[i].total_bytes = synth_tiles(s, 0, nt, false);
	}
	gp->vertex_types = vt;
	gp->by_vertex_type = byvt;
	gp->n_vertex_types = n_vt;

	cs = synth_alloc(s, n_cs * sizeof(*cs));
	bycs = synth_alloc(s, n_cs * sizeof(*bycs));
	for (size_t i = 0; i < n_cs; i++) {
		uint32_t n = 1 + (uint32_t)(srng() % nt), lo = (uint32_t)(srng() % (nt - n + 1));
		bool varied = srng() % 100 < s->varied_percent;
		uint64_t base = 100 + srng() % 5000;
		uint32_t *types = synth_alloc(s, 2 * sizeof(*types));
		uint64_t *counts = synth_alloc(s, 2 * sizeof(*counts));
		uint64_t *active = synth_alloc(s, 2 * sizeof(*active));

		types[0] = (uint32_t)(i % n_vt);
		types[1] = (uint32_t)((i + 1) % n_vt);
		counts[0] = counts[1] = n;
		active[0] = active[1] = base * n / 2;
		cs[i].name = synth_name(s, "layer", i, "/MatMul/Conv_1/Convolve");
		cs[i].n_types = 2;
		cs[i].vertex_types = types;
		cs[i].vertex_counts = counts;
		cs[i].active_cycles_by_type = active;
		cs[i].cycles_by_tile = synth_tiles(s, lo, n, varied);
		cs[i].active_cycles_by_tile = synth_tiles(s, lo, n, varied);
		cs[i].flops = base * n;
		bycs[i].code_bytes = synth_tiles(s, lo, n, false);
		bycs[i].vertex_data_bytes = synth_tiles(s, lo, n, false);
		bycs[i].edge_ptr_bytes = synth_tiles(s, lo, n, false);
		bycs[i].total_bytes = synth_tiles(s, lo, n, false);
	}
	gp->compute_sets = cs;
	gp->by_compute_set = bycs;
	gp->n_compute_sets = n_cs;

	ex = synth_alloc(s, n_ex * sizeof(*ex));
	for (size_t i = 0; i < n_ex; i++) {
		uint32_t n = 1 + (uint32_t)(srng() % nt), lo = (uint32_t)(srng() % (nt - n + 1));

		ex[i].name = synth_name(s, "layer", i, "/ExchangePre");
		ex[i].bytes_received = synth_tiles(s, lo, n, false);
		ex[i].bytes_sent = synth_tiles(s, lo, n, false);
		ex[i].cycles = synth_tiles(s, lo, n, false);
	}
	gp->exchanges[TSI_EXCHANGE_INTERNAL] = ex;
	gp->n_exchanges[TSI_EXCHANGE_INTERNAL] = n_ex;

	progs = synth_alloc(s, (n_cs + n_ex + 1) * sizeof(*progs));
	{
		uint32_t *children = synth_alloc(s, (n_cs + n_ex) * sizeof(*children));

		progs[0].type = TSI_LP_SEQUENCE;
		progs[0].children = children;
		progs[0].n_children = (uint32_t)(n_cs + n_ex);
		progs[0].compute_set = progs[0].exchange = progs[0].function = -1;
		for (size_t i = 0; i < n_cs + n_ex; i++) {
			tsi_lowered_program *p = &progs[1 + i];

			children[i] = (uint32_t)(1 + i);
			p->compute_set = p->exchange = p->function = -1;
			if (i < n_cs) {
				p->type = TSI_LP_ON_TILE_EXECUTE;
				p->compute_set = (int32_t)i;
			} else {
				p->type = TSI_LP_DO_EXCHANGE;
				p->exchange = (int32_t)(i - n_cs);
				p->name = ex[i - n_cs].name;
				p->memory_by_instruction.total = 80;
			}
		}
	}
	gp->programs = progs;
	gp->n_programs = n_cs + n_ex + 1;
	ctrl = synth_alloc(s, sizeof(*ctrl));
	gp->control_programs = ctrl;
	gp->n_control_programs = 1;

	bt = synth_alloc(s, nt * sizeof(*bt));
	for (uint32_t t = 0; t < nt; t++) {
		bt[t].region[TSI_REGION_NON_INTERLEAVED] = 300000 + srng() % 1000;
		bt[t].region_including_gaps[TSI_REGION_NON_INTERLEAVED] = 310000 + srng() % 1000;
		bt[t].total = bt[t].region[TSI_REGION_NON_INTERLEAVED];
		bt[t].total_including_gaps = bt[t].region_including_gaps[TSI_REGION_NON_INTERLEAVED];
	}
	gp->by_tile = bt;
	bycat = synth_alloc(s, (size_t)TSI_MEM_CATEGORY_COUNT * TSI_REGION_COUNT * 2 * nt *
	                           sizeof(*bycat));
	for (size_t row = 0; row < (size_t)TSI_MEM_CATEGORY_COUNT * TSI_REGION_COUNT * 2; row += 3)
		for (uint32_t t = 0; t < nt; t++)
			bycat[row * nt + t] = 1000 + (row % 2 ? srng() % 3000 : 0);
	gp->by_category = bycat;

	vars = synth_alloc(s, n_vars * sizeof(*vars));
	for (size_t i = 0; i < n_vars; i++) {
		uint32_t n = 1 + (uint32_t)(srng() % (srng() % 4 ? 8 : nt));
		uint32_t lo = (uint32_t)(srng() % (nt - n + 1));
		size_t *shape = synth_alloc(s, 2 * sizeof(*shape));

		shape[0] = n;
		shape[1] = 64;
		vars[i].name = synth_name(s, "layer", i, "/weights");
		vars[i].category = i % 10 ? TSI_MEM_VARIABLE : TSI_MEM_MESSAGE;
		vars[i].type = TSI_FLOAT;
		vars[i].rank = 2;
		vars[i].shape = shape;
		vars[i].bytes = (uint64_t)n * 256;
		vars[i].bytes_by_tile = synth_tiles(s, lo, n, false);
		vars[i].always_live = i % 3 == 0;
		if (!vars[i].always_live) {
			vars[i].live_from = (uint32_t)(srng() % n_live);
			vars[i].live_to = vars[i].live_from + (uint32_t)(srng() % (n_live - vars[i].live_from));
		}
	}
	gp->variables = vars;
	gp->n_variables = n_vars;
	live = synth_alloc(s, n_live * sizeof(*live));
	for (size_t i = 0; i < n_live; i++) {
		live[i].program = (uint32_t)(1 + i % (n_cs + n_ex));
		live[i].parent = -1;
		live[i].not_always_live_bytes = srng() % 100000000;
	}
	gp->liveness = live;
	gp->n_liveness = n_live;

	steps = synth_alloc(s, n_steps * sizeof(*steps));
	trace = synth_alloc(s, n_steps * sizeof(*trace));
	for (size_t i = 0; i < n_steps; i++) {
		size_t p = i % (n_cs + n_ex);

		trace[i] = (uint32_t)(1 + p);
		steps[i].program = (uint32_t)(1 + p);
		steps[i].type = p < n_cs ? TSI_STEP_ON_TILE_EXECUTE : TSI_STEP_DO_EXCHANGE;
		steps[i].compute_set = p < n_cs ? (int32_t)p : -1;
		steps[i].exchange = p < n_cs ? -1 : (int32_t)(p - n_cs);
		steps[i].cycles_from = i * 1000;
		steps[i].cycles = 100 + srng() % 100000;
		steps[i].cycles_to = steps[i].cycles_from + steps[i].cycles;
		steps[i].active_tiles = nt;
		steps[i].tile_balance = 0.5;
		steps[i].active_tile_balance = 0.75;
		steps[i].thread_balance = 1.0;
	}
	steps[0].data_balance = NAN; /* undefined: written as NULL */
	s->run.steps = steps;
	s->run.n_steps = n_steps;
	s->run.program_trace = trace;
	s->run.n_trace = n_steps;
	s->run.cycles = n_steps * 1000;
}

static void synth_free(synth *s)
{
	for (size_t i = 0; i < s->n_keep; i++)
		free(s->keep[i]);
	free(s->keep);
}

/* Writes a large synthetic profile, checks samples of it, prints the write
 * time and the file size. Default: a size that stays quick under ASan. */
static void test_large_synthetic(void **state)
{
	char *dir = tsi_test_mkdtemp();
	char *path = path_in(dir, "profile.pop");
	const char *bench = getenv("TSI_WRITER_BENCH");
	size_t n_cs = 1000, n_vars = 5000, n_live = 10000, n_steps = 5000;
	unsigned ipus = 1, tpi = 1472, varied = 30;
	synth s;
	tsi_report_meta meta;
	tsi_report_writer *w = NULL;
	const tsi_run_profile *runs[2];
	struct stat sb;
	double t0, t1, t2;
	sqlite3 *db;
	sqlite3_stmt *st;

	(void)state;
	memset(&s, 0, sizeof(s));
	memset(&meta, 0, sizeof(meta));
	meta.lowered_vars = true;
	if (bench && sscanf(bench, "%zux%ux%u", &n_cs, &tpi, &varied) >= 2) {
		ipus = 4;
		n_vars = 100000;
		n_live = 200000;
		n_steps = 50000;
	}
	s.varied_percent = varied;
	synth_build(&s, n_cs, ipus, tpi, n_vars, n_live, n_steps);
	runs[0] = runs[1] = &s.run;
	t0 = tsi_test_now_s();
	assert_int_equal(tsi_report_writer_new(&w, path, &s.gp, &meta), TSI_OK);
	t1 = tsi_test_now_s();
	assert_int_equal(tsi_report_writer_add_runs(w, runs, 2), TSI_OK);
	t2 = tsi_test_now_s();
	assert_int_equal(stat(path, &sb), 0);
	print_message("synthetic report: %zu compute sets (%u%% varied) x %u tiles, %zu variables, "
	              "%zu liveness steps, 2 runs x %zu steps: graph profile %.2f s, runs %.2f s, "
	              "%.1f MB\n",
	              n_cs, varied, s.gp.target.num_tiles, n_vars, n_live, n_steps, t1 - t0, t2 - t1,
	              (double)sb.st_size / 1e6);
	tsi_report_writer_free(w);

	db = open_db(path);
	assert_int_equal(count_rows(db, "compute_set"), n_cs);
	assert_int_equal(count_rows(db, "variable"), n_vars);
	assert_int_equal(count_rows(db, "step"), 2 * n_steps);
	st = query(db, "SELECT id, cycles_by_tile, active_cycles_by_tile, cycles FROM compute_set "
	               "WHERE id %% 97 = 0 ORDER BY id");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const tsi_compute_set_profile *cs = &s.gp.compute_sets[sqlite3_column_int64(st, 0)];

		assert_blob_tv(st, 1, &cs->cycles_by_tile, s.gp.target.num_tiles);
		assert_blob_tv(st, 2, &cs->active_cycles_by_tile, s.gp.target.num_tiles);
		assert_int_equal(sqlite3_column_int64(st, 3), tsi_tile_values_max(&cs->cycles_by_tile));
	}
	sqlite3_finalize(st);
	st = query(db, "SELECT id, bytes_by_tile, live_from, live_to FROM variable "
	               "WHERE id %% 101 = 0 ORDER BY id");
	while (sqlite3_step(st) == SQLITE_ROW) {
		const tsi_variable_profile *v = &s.gp.variables[sqlite3_column_int64(st, 0)];

		assert_blob_tv(st, 1, &v->bytes_by_tile, s.gp.target.num_tiles);
		assert_int_equal(col_or_null(st, 2), v->always_live ? -1 : (int64_t)v->live_from);
		assert_int_equal(col_or_null(st, 3), v->always_live ? -1 : (int64_t)v->live_to);
	}
	sqlite3_finalize(st);
	assert_int_equal(q_int(db, "SELECT count(*) FROM step WHERE data_balance IS NULL"), 2);
	assert_int_equal(q_int(db, "SELECT count(*) FROM step WHERE tile_balance IS NULL"), 0);
	assert_int_equal(q_int(db, "SELECT max(cycles) FROM step"),
	                 q_int(db, "SELECT cycles FROM step ORDER BY cycles DESC LIMIT 1"));
	sqlite3_close(db);
	synth_free(&s);
	free(path);
	tsi_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest model_tests[] = {
		cmocka_unit_test_setup_teardown(test_identity_and_target, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_tables_filled, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_compute_sets, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_exchanges, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_programs, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_memory, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_variables_and_liveness, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_lowered_vars, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_runs, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_first_runs_join_the_graph, test_setup,
		                                test_teardown),
		cmocka_unit_test_setup_teardown(test_documented_queries, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_move, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_replaces_existing, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_failures, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_failure_mid_write, test_setup, test_teardown),
	};
	const struct CMUnitTest other_tests[] = {
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_large_synthetic),
	};
	int failed;

	/* The writer is called directly; the engine must not write reports. */
	unsetenv("POPLAR_ENGINE_OPTIONS");
	failed = cmocka_run_group_tests_name("model", model_tests, fixture_setup, fixture_teardown);
	failed += cmocka_run_group_tests_name("other", other_tests, NULL, NULL);
	return failed;
}
