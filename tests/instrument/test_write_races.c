/*
 * Two vertices of one compute set writing the same elements (issue 26
 * item 14): a race on the IPU, which the compiler warns about on the
 * COMPILE log (POPLAR_LOG_LEVEL=WARN), naming both vertices with their
 * types and fields, the compute set, the variable and the elements. The
 * graph still compiles. Writes that only touch, writes in different
 * compute sets and a vertex reading what another writes get no warning.
 * A graph of 100,000 vertices is checked too, with its time printed.
 *
 * Each test sends the log to a file in its own temporary directory.
 */
#include "test-util.h"

#include <tilescope/ipu.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Codelets -------------------------------------------------------------- */

/* out[i] = 1 */
static bool fill_compute(const tsi_field *f, size_t n)
{
	float *out = f[0].data;

	(void)n;
	for (size_t i = 0; i < f[0].count; i++)
		out[i] = 1;
	return true;
}

static const tsi_field_def fill_fields[] = {
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};

/* data[i] *= 2 (an in/out field writes too) */
static bool double_compute(const tsi_field *f, size_t n)
{
	float *d = f[0].data;

	(void)n;
	for (size_t i = 0; i < f[0].count; i++)
		d[i] *= 2;
	return true;
}

static const tsi_field_def double_fields[] = {
	{"data", TSI_FIELD_INOUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};

/* out = in (reads `in`, writes `out`) */
static bool copy_compute(const tsi_field *f, size_t n)
{
	(void)n;
	memcpy(f[1].data, f[0].data, f[0].count * sizeof(float));
	return true;
}

static const tsi_field_def copy_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};

/* Every sub-vector of `rows` set to 3. */
static bool fill_rows_compute(const tsi_field *f, size_t n)
{
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < f[k].count; i++)
			((float *)f[k].data)[i] = 3;
	return true;
}

static const tsi_field_def fill_rows_fields[] = {
	{"rows", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},
};

static const tsi_codelet codelets[] = {
	{"FillVertex", fill_fields, 1, fill_compute, NULL, NULL, 0, 0, false},
	{"DoubleVertex", double_fields, 1, double_compute, NULL, NULL, 0, 0, false},
	{"CopyVertex", copy_fields, 2, copy_compute, NULL, NULL, 0, 0, false},
	{"FillRowsVertex", fill_rows_fields, 1, fill_rows_compute, NULL, NULL, 0, 0, false},
};

/* --- Fixture --------------------------------------------------------------- */

typedef struct fixture {
	char *dir;
	char log_path[512];
	tsi_graph *graph;
	tsi_program *seq;
	tsi_engine *engine;
} fixture;

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof(*fx));
	tsi_target target;

	assert_non_null(fx);
	fx->dir = tsi_test_mkdtemp();
	snprintf(fx->log_path, sizeof(fx->log_path), "%s/poplar.log", fx->dir);
	setenv("POPLAR_LOG_LEVEL", "WARN", 1);
	setenv("POPLAR_LOG_DEST", fx->log_path, 1);
	tsi_log_reconfigure();
	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK2, 1, 4), TSI_OK);
	assert_int_equal(tsi_graph_new(&fx->graph, &target, 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelets(fx->graph, codelets,
	                                        sizeof(codelets) / sizeof(codelets[0])),
	                 TSI_OK);
	fx->seq = tsi_prog_sequence(fx->graph, "main");
	assert_non_null(fx->seq);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;

	tsi_engine_free(fx->engine);
	tsi_graph_free(fx->graph);
	unsetenv("POPLAR_LOG_LEVEL");
	unsetenv("POPLAR_LOG_DEST");
	tsi_log_reconfigure(); /* closes the log file */
	tsi_test_rmtree(fx->dir);
	free(fx);
	return 0;
}

/* A float variable of `n` elements on tile 0. */
static tsi_tensor *var_on_tile0(fixture *fx, size_t n, const char *name)
{
	tsi_tensor *t = tsi_graph_add_variable(fx->graph, TSI_FLOAT, TSI_SHAPE(n), name);

	assert_non_null(t);
	assert_int_equal(tsi_graph_set_tile_mapping(fx->graph, t, 0), TSI_OK);
	return t;
}

/* A vertex of type `type` in `cs` on `tile` with field `field` connected to `t`. */
static tsi_vertex *vertex(fixture *fx, tsi_compute_set *cs, const char *type, unsigned tile,
                          const char *field, const tsi_tensor *t)
{
	tsi_vertex *v = tsi_graph_add_vertex(fx->graph, cs, type);

	assert_non_null(v);
	assert_int_equal(tsi_graph_set_vertex_tile(fx->graph, v, tile), TSI_OK);
	assert_int_equal(tsi_graph_connect(fx->graph, v, field, t), TSI_OK);
	return v;
}

/* Compiles fx->seq (which must succeed: a race is a warning) and
 * returns what the log says (the caller frees it). */
static char *compile_and_read_log(fixture *fx)
{
	if (tsi_engine_new(&fx->engine, fx->graph, &fx->seq, 1, NULL) != TSI_OK)
		fail_msg("tsi_engine_new: %s", tsi_error_last());
	return tsi_test_read_file(fx->log_path);
}

/* The number of lines of `log` that contain `needle`. */
static size_t count_lines_with(const char *log, const char *needle)
{
	size_t n = 0;

	for (const char *line = log; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *hit = strstr(line, needle);

		if (hit && hit < line + len)
			n++;
		line += len + (nl ? 1 : 0);
	}
	return n;
}

/* --- Tests ----------------------------------------------------------------- */

/*
 * Vertex 0 fills elements 0..7 of "acts", vertex 1 doubles elements
 * 4..11: both write 4..7. The warning names both vertices (ids, types and
 * fields), the compute set, the variable and the four elements, and the
 * engine is still made.
 */
static void test_overlap_warns(void **state)
{
	fixture *fx = *state;
	tsi_tensor *acts = var_on_tile0(fx, 16, "acts");
	tsi_compute_set *cs = tsi_graph_add_compute_set(fx->graph, "layer1/act");
	char want[400], *log;

	assert_non_null(cs);
	/* Vertex ids count the graph's vertices in the order they are added. */
	vertex(fx, cs, "FillVertex", 0, "out", tsi_tensor_slice(acts, 0, 8));
	vertex(fx, cs, "DoubleVertex", 1, "data", tsi_tensor_slice(acts, 4, 12));
	assert_int_equal(tsi_sequence_add(fx->seq, tsi_prog_execute(fx->graph, cs)), TSI_OK);
	log = compile_and_read_log(fx);
	snprintf(want, sizeof(want),
	         "W: vertices 0 (type 'FillVertex', field 'out') and 1 (type 'DoubleVertex', field "
	         "'data') in compute set 'layer1/act' both write elements 4 to 7 (4 elements) of "
	         "variable 'acts'");
	if (!strstr(log, want))
		fail_msg("no race warning in the log; want \"%s\", log:\n%s", want, log);
	assert_non_null(strstr(log, "PO:COMPILE"));
	assert_int_equal(count_lines_with(log, "both write"), 1);
	assert_non_null(fx->engine);
	free(log);
}

/*
 * No race, no warning: two vertices writing 0..7 and 8..15 (touching,
 * not overlapping), the same element written in two different compute
 * sets, and a vertex reading what another writes.
 */
static void test_no_overlap_no_warning(void **state)
{
	fixture *fx = *state;
	tsi_tensor *acts = var_on_tile0(fx, 16, "acts");
	tsi_tensor *other = var_on_tile0(fx, 8, "other");
	tsi_compute_set *cs1 = tsi_graph_add_compute_set(fx->graph, "first");
	tsi_compute_set *cs2 = tsi_graph_add_compute_set(fx->graph, "second");
	tsi_vertex *v;
	char *log;

	assert_non_null(cs1);
	assert_non_null(cs2);
	vertex(fx, cs1, "FillVertex", 0, "out", tsi_tensor_slice(acts, 0, 8));
	vertex(fx, cs1, "DoubleVertex", 1, "data", tsi_tensor_slice(acts, 8, 16));
	vertex(fx, cs2, "FillVertex", 2, "out", tsi_tensor_slice(acts, 0, 8));
	v = vertex(fx, cs2, "CopyVertex", 3, "in", tsi_tensor_slice(acts, 0, 8));
	assert_int_equal(tsi_graph_connect(fx->graph, v, "out", other), TSI_OK);
	assert_int_equal(tsi_sequence_add(fx->seq, tsi_prog_execute(fx->graph, cs1)), TSI_OK);
	assert_int_equal(tsi_sequence_add(fx->seq, tsi_prog_execute(fx->graph, cs2)), TSI_OK);
	log = compile_and_read_log(fx);
	if (strstr(log, "both write"))
		fail_msg("a warning for writes that do not overlap:\n%s", log);
	free(log);
}

/*
 * Overlaps found through views and sub-vectors: a vector-list vertex
 * writes row 1 of a [4, 4] variable and, through a transpose, column 2;
 * another writes element (1, 2), which both reach. One element, one
 * warning per pair of vertices (element 6 of the variable, row-major).
 */
static void test_overlap_through_views(void **state)
{
	fixture *fx = *state;
	tsi_tensor *m = tsi_graph_add_variable(fx->graph, TSI_FLOAT, TSI_SHAPE(4, 4), "m");
	tsi_compute_set *cs = tsi_graph_add_compute_set(fx->graph, "views");
	tsi_vertex *rows;
	tsi_tensor *parts[2];
	char want[400], *log;

	assert_non_null(m);
	assert_non_null(cs);
	assert_int_equal(tsi_graph_set_tile_mapping(fx->graph, m, 0), TSI_OK);
	parts[0] = tsi_tensor_index(m, 1);
	parts[1] = tsi_tensor_index(tsi_tensor_transpose(m), 2);
	assert_non_null(parts[0]);
	assert_non_null(parts[1]);
	rows = tsi_graph_add_vertex(fx->graph, cs, "FillRowsVertex");
	assert_non_null(rows);
	assert_int_equal(tsi_graph_set_vertex_tile(fx->graph, rows, 0), TSI_OK);
	assert_int_equal(tsi_graph_connect_list(fx->graph, rows, "rows", parts, 2), TSI_OK);
	vertex(fx, cs, "FillVertex", 1, "out", tsi_tensor_slice(tsi_tensor_flatten(m), 6, 7));
	assert_int_equal(tsi_sequence_add(fx->seq, tsi_prog_execute(fx->graph, cs)), TSI_OK);
	log = compile_and_read_log(fx);
	snprintf(want, sizeof(want),
	         "vertices 0 (type 'FillRowsVertex', field 'rows') and 1 (type 'FillVertex', field "
	         "'out') in compute set 'views' both write element 6 of variable 'm'");
	if (!strstr(log, want))
		fail_msg("want \"%s\", log:\n%s", want, log);
	assert_int_equal(count_lines_with(log, "both write"), 1);
	free(log);
}

/*
 * Many racing vertices: 40 vertices each writing all of one variable
 * get a few warnings and one line counting the rest, not a line per
 * pair.
 */
static void test_many_races_are_counted(void **state)
{
	fixture *fx = *state;
	tsi_tensor *acts = var_on_tile0(fx, 8, "acts");
	tsi_compute_set *cs = tsi_graph_add_compute_set(fx->graph, "crowd");
	char *log;

	assert_non_null(cs);
	for (unsigned i = 0; i < 40; i++)
		vertex(fx, cs, "FillVertex", i % 4, "out", acts);
	assert_int_equal(tsi_sequence_add(fx->seq, tsi_prog_execute(fx->graph, cs)), TSI_OK);
	log = compile_and_read_log(fx);
	assert_true(count_lines_with(log, "both write") >= 1);
	assert_true(count_lines_with(log, "both write") <= 10);
	if (!strstr(log, "compute set 'crowd': 34 more overlapping writes by two vertices not listed"))
		fail_msg("no count of the races not listed:\n%s", log);
	free(log);
}

/*
 * A large graph: 100,000 vertices each writing its own element of one
 * variable over 1,472 tiles, in a scattered order (vertex i writes
 * element i * 7919 mod 100,000, so the check must sort), and one more
 * writing element 0 again. Exactly that pair is reported. The compile
 * time is printed, never asserted (a pairwise check would take minutes
 * here).
 */
static void test_large_graph(void **state)
{
	enum { N = 100000 };
	fixture *fx = *state;
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *big;
	tsi_compute_set *cs;
	tsi_program *seq;
	tsi_vertex *v;
	char want[300], *log;
	double t0;

	/* This test's own graph: the fixture's has 4 tiles. */
	tsi_engine_free(fx->engine);
	fx->engine = NULL;
	assert_int_equal(tsi_graph_add_codelets(g, codelets, sizeof(codelets) / sizeof(codelets[0])),
	                 TSI_OK);
	big = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(N), "big");
	cs = tsi_graph_add_compute_set(g, "wide");
	seq = tsi_prog_sequence(g, "main");
	assert_non_null(big);
	assert_non_null(cs);
	assert_non_null(seq);
	assert_int_equal(tsi_graph_map_linearly(g, big, 1), TSI_OK);
	for (size_t i = 0; i < N; i++) {
		size_t tile = i * 1472 / N;

		v = tsi_graph_add_vertex(g, cs, "FillVertex");
		assert_non_null(v);
		assert_int_equal(tsi_graph_set_vertex_tile(g, v, (unsigned)tile), TSI_OK);
		size_t e = i * 7919 % N;

		assert_int_equal(tsi_graph_connect(g, v, "out", tsi_tensor_slice(big, e, e + 1)),
		                 TSI_OK);
	}
	v = tsi_graph_add_vertex(g, cs, "DoubleVertex");
	assert_non_null(v);
	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 1471), TSI_OK);
	assert_int_equal(tsi_graph_connect(g, v, "data", tsi_tensor_slice(big, 0, 1)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, cs)), TSI_OK);

	t0 = tsi_test_now_s();
	if (tsi_engine_new(&fx->engine, g, &seq, 1, NULL) != TSI_OK)
		fail_msg("tsi_engine_new: %s", tsi_error_last());
	printf("# compiling %d vertices (write-race check included) took %.3f s\n", N + 1,
	       tsi_test_now_s() - t0);
	log = tsi_test_read_file(fx->log_path);
	/* Element 0 is the first FillVertex's (vertex 0); the DoubleVertex is N. */
	snprintf(want, sizeof(want),
	         "vertices 0 (type 'FillVertex', field 'out') and %d (type 'DoubleVertex', field "
	         "'data') in compute set 'wide' both write element 0 of variable 'big'",
	         N);
	if (!strstr(log, want))
		fail_msg("want \"%s\", log:\n%.2000s", want, log);
	assert_int_equal(count_lines_with(log, "both write"), 1);
	free(log);
	tsi_engine_free(fx->engine);
	fx->engine = NULL;
	tsi_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_overlap_warns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_overlap_no_warning, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlap_through_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_many_races_are_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_large_graph, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
