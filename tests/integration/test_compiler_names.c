/*
 * What the compiler model puts in profile.pop under the model's names
 * (issue 26 item 13): the on-tile copy compute set of a copy an operation
 * needs is named under that operation's layer ("train/loss/softmax/
 * OnTileCopy", as Poplar names it), not as a bare "Copy/OnTileCopy", and
 * the operands poplin creates for a matmul keep their 2-D shape in the
 * variable table. The model is compiled with autoReport into a temporary
 * directory and the report is read back with SQLite.
 */
#include "test-sqlite.h"
#include "test-util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <tilescope/ipu.h>
#include <tilescope/poplin.h>
#include <tilescope/popnn.h>
#include <tilescope/popops.h>

/* A graph on a 16-tile Mk2 IPU with the ops libraries' codelets. */
static tsi_graph *new_graph(void)
{
	tsi_target target;
	tsi_graph *g = NULL;

	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK2, 1, 16), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	assert_int_equal(tsi_popnn_add_codelets(g), TSI_OK);
	assert_int_equal(tsi_poplin_add_codelets(g), TSI_OK);
	return g;
}

/* Compiles `seq` with autoReport.all into `dir` and returns the path of
 * the profile.pop written there (the caller frees it). */
static char *compile_report(tsi_graph *g, tsi_program *seq, const char *dir)
{
	tsi_options *o = tsi_options_new();
	tsi_engine *e = NULL;
	char *path = malloc(strlen(dir) + 16);

	assert_non_null(o);
	assert_non_null(path);
	assert_int_equal(tsi_options_set(o, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(o, "autoReport.directory", dir), TSI_OK);
	if (tsi_engine_new(&e, g, &seq, 1, o) != TSI_OK)
		fail_msg("tsi_engine_new: %s", tsi_error_last());
	assert_int_equal(tsi_engine_wait_reports(e), TSI_OK);
	tsi_engine_free(e);
	tsi_options_free(o);
	sprintf(path, "%s/profile.pop", dir);
	return path;
}

/* The first column of the first row of `sql` with `arg` bound to ?1, as
 * a malloc'd string; NULL when there is no row. */
static char *sqlite_text(sqlite3 *db, const char *sql, const char *arg)
{
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);

		out = strdup(t ? (const char *)t : "");
		assert_non_null(out);
	}
	sqlite3_finalize(st);
	return out;
}

/*
 * A softmax inside the model's "train/loss" layer: popnn::nonLinearity
 * copies its input into its output before the in-place softmax, and the
 * copy's same-tile part is a compiler-made compute set. It must be named
 * under the softmax ("train/loss/softmax/OnTileCopy") and belong to the
 * softmax's debug context, so reports group it with the layer that made
 * it; no compute set may be left with the bare "Copy/..." name.
 */
static void test_on_tile_copy_named_under_layer(void **state)
{
	char *dir = tsi_test_mkdtemp();
	tsi_graph *g = new_graph();
	tsi_program *seq = tsi_prog_sequence(g, "main");
	tsi_tensor *logits, *probs;
	tsi_debug_id train, loss;
	char *path, *ctx, *bare;
	sqlite3 *db;
	(void)state;

	assert_non_null(seq);
	logits = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(8, 10), "logits");
	assert_non_null(logits);
	assert_int_equal(tsi_graph_map_linearly(g, logits, 1), TSI_OK);
	train = tsi_debug_push(g, "train", NULL);
	loss = tsi_debug_push(g, "loss", NULL);
	probs = tsi_popnn_nonlinearity(g, TSI_POPNN_SOFTMAX, logits, seq, "softmax");
	assert_non_null(probs);
	tsi_debug_pop(g, loss);
	tsi_debug_pop(g, train);
	path = compile_report(g, seq, dir);

	db = tsi_test_sqlite_open(path);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM compute_set cs JOIN string s "
	                                         "ON s.id = cs.name "
	                                         "WHERE s.text = 'train/loss/softmax/OnTileCopy'"),
	                 1);
	bare = sqlite_text(db,
	                   "SELECT s.text FROM compute_set cs JOIN string s ON s.id = cs.name "
	                   "WHERE s.text LIKE 'Copy/%' OR s.text = 'OnTileCopy'",
	                   NULL);
	if (bare)
		fail_msg("a compute set still has a bare copy name: '%s'", bare);
	/* The copy set belongs to the softmax's context, under "loss". */
	ctx = sqlite_text(db,
	                  "SELECT n.text || ' < ' || pn.text FROM compute_set cs "
	                  "JOIN string s ON s.id = cs.name "
	                  "JOIN debug_context d ON d.id = cs.debug_context "
	                  "JOIN string n ON n.id = d.name "
	                  "JOIN debug_context p ON p.id = d.parent "
	                  "JOIN string pn ON pn.id = p.name WHERE s.text = ?1",
	                  "train/loss/softmax/OnTileCopy");
	assert_non_null(ctx);
	assert_string_equal(ctx, "softmax < loss");
	/* The copy's exchange, when there is one, is named under it too. */
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM string "
	                                         "WHERE text LIKE 'Copy/%'"),
	                 0);
	sqlite3_close(db);
	free(ctx);
	free(path);
	tsi_graph_free(g);
	tsi_test_rmtree(dir);
}

/* A copy the user makes outside any layer keeps the plain "Copy" name. */
static void test_top_level_copy_keeps_copy_name(void **state)
{
	char *dir = tsi_test_mkdtemp();
	tsi_graph *g = new_graph();
	tsi_program *seq = tsi_prog_sequence(g, "main");
	tsi_tensor *a, *b;
	char *path;
	sqlite3 *db;
	(void)state;

	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(64), "a");
	b = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(64), "b");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(tsi_graph_map_linearly(g, a, 1), TSI_OK);
	assert_int_equal(tsi_graph_map_linearly(g, b, 1), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_copy(g, a, b)), TSI_OK);
	path = compile_report(g, seq, dir);
	db = tsi_test_sqlite_open(path);
	assert_int_equal(tsi_test_sqlite_int(db, "SELECT count(*) FROM compute_set cs JOIN string s "
	                                         "ON s.id = cs.name WHERE s.text = 'Copy/OnTileCopy'"),
	                 1);
	sqlite3_close(db);
	free(path);
	tsi_graph_free(g);
	tsi_test_rmtree(dir);
}

/*
 * poplin's operands keep their shape: the right-hand side [k, n] and the
 * left-hand side [m, k] are listed as 2-D variables, on a size the planner
 * splits along both dimensions of the weights (so they are stored block
 * by block), and the matmul on them still computes the right product.
 */
static void test_matmul_operands_keep_shape(void **state)
{
	enum { M = 4, K = 48, N = 40 };
	char *dir = tsi_test_mkdtemp();
	tsi_graph *g = new_graph();
	tsi_program *seq = tsi_prog_sequence(g, "main");
	tsi_poplin_plan plan;
	tsi_tensor *lhs, *rhs, *out;
	char *path, *shape;
	sqlite3 *db;
	(void)state;

	assert_int_equal(tsi_poplin_plan_matmul(&plan, g, TSI_FLOAT, M, K, N), TSI_OK);
	/* [K, N] is cut along N, so its blocks are not stored row after row. */
	assert_true(plan.n_split > 1);
	lhs = tsi_poplin_create_matmul_input_lhs(g, TSI_FLOAT, M, K, N, "x");
	rhs = tsi_poplin_create_matmul_input_rhs(g, TSI_FLOAT, M, K, N, "w");
	assert_non_null(lhs);
	assert_non_null(rhs);
	assert_int_equal(tsi_tensor_rank(rhs), 2);
	assert_int_equal(tsi_tensor_dim(rhs, 0), K);
	assert_int_equal(tsi_tensor_dim(rhs, 1), N);
	out = tsi_poplin_matmul(g, lhs, rhs, seq, "fc");
	assert_non_null(out);
	path = compile_report(g, seq, dir);

	db = tsi_test_sqlite_open(path);
	shape = sqlite_text(db,
	                    "SELECT shape FROM variable v JOIN string s ON s.id = v.name "
	                    "WHERE s.text = ?1",
	                    "w");
	assert_non_null(shape);
	assert_string_equal(shape, "[48,40]");
	free(shape);
	shape = sqlite_text(db,
	                    "SELECT shape FROM variable v JOIN string s ON s.id = v.name "
	                    "WHERE s.text = ?1",
	                    "x");
	assert_non_null(shape);
	assert_string_equal(shape, "[4,48]");
	free(shape);
	sqlite3_close(db);
	free(path);
	tsi_graph_free(g);
	tsi_test_rmtree(dir);
}

/*
 * The product over the blocked operands is still right: x and w filled
 * through host handles, x·w read back and checked against the host's sum.
 */
static void test_matmul_on_blocked_operands_is_right(void **state)
{
	enum { M = 4, K = 48, N = 40 };
	tsi_test_model m;
	tsi_tensor *lhs, *rhs, *out;
	static float x[M * K], w[K * N], got[M * N];
	(void)state;

	tsi_test_model_init(&m, 1, 16, 1);
	m.seq = tsi_prog_sequence(m.graph, "seq");
	assert_non_null(m.seq);
	assert_int_equal(tsi_poplin_add_codelets(m.graph), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(m.graph), TSI_OK);
	lhs = tsi_poplin_create_matmul_input_lhs(m.graph, TSI_FLOAT, M, K, N, "x");
	rhs = tsi_poplin_create_matmul_input_rhs(m.graph, TSI_FLOAT, M, K, N, "w");
	assert_non_null(lhs);
	assert_non_null(rhs);
	out = tsi_poplin_matmul(m.graph, lhs, rhs, m.seq, "fc");
	assert_non_null(out);
	assert_int_equal(tsi_graph_create_host_write(m.graph, "x", lhs), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(m.graph, "w", rhs), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(m.graph, "out", out), TSI_OK);
	tsi_test_model_load(&m, NULL, 0, NULL);
	for (size_t i = 0; i < M * K; i++)
		x[i] = (float)(i % 7) - 3.0f;
	for (size_t i = 0; i < K * N; i++)
		w[i] = (float)(i % 5) * 0.5f - 1.0f;
	tsi_test_write_floats(m.engine, "x", x, M * K);
	tsi_test_write_floats(m.engine, "w", w, K * N);
	tsi_test_run(m.engine, 0);
	tsi_test_read_floats(m.engine, "out", got, M * N);
	for (size_t r = 0; r < M; r++)
		for (size_t c = 0; c < N; c++) {
			double want = 0;

			for (size_t k = 0; k < K; k++)
				want += (double)x[r * K + k] * w[k * N + c];
			assert_close(got[r * N + c], want, 1e-3);
		}
	tsi_test_model_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_on_tile_copy_named_under_layer),
		cmocka_unit_test(test_top_level_copy_keeps_copy_name),
		cmocka_unit_test(test_matmul_operands_keep_shape),
		cmocka_unit_test(test_matmul_on_blocked_operands_is_right),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
