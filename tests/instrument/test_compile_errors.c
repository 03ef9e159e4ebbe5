/*
 * Compile-time checks of tsi_engine_new: each error code, and that the
 * message names the offending vertex type, field, compute set or
 * variable so the user can find it. Also: only executed compute sets are
 * checked, a graph with a building error is refused, and a program that
 * contains itself is refused.
 */
#include "test-util.h"

#include <tilescope/ipu.h>

#include <stdlib.h>
#include <string.h>

/* --- Small codelets ------------------------------------------------------ */

/* out = sum(in) */
static bool sum_compute(const tsi_field *f, size_t n)
{
	const float *in = f[0].data;
	float s = 0;

	(void)n;
	for (size_t i = 0; i < f[0].count; i++)
		s += in[i];
	*(float *)f[1].data = s;
	return true;
}

static const tsi_field_def sum_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

/* out = a . b, over fixed 4-element vectors for "Dot4Vertex". */
static bool dot_compute(const tsi_field *f, size_t n)
{
	const float *a = f[0].data, *b = f[1].data;
	float s = 0;

	(void)n;
	for (size_t i = 0; i < f[0].count; i++)
		s += a[i] * b[i];
	*(float *)f[2].data = s;
	return true;
}

static const tsi_field_def dot_fields[] = {
	{"a", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"b", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

static const tsi_field_def dot4_fields[] = {
	{"a", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 4},
	{"b", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 4},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

/* data *= 2 */
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

static const tsi_codelet codelets[] = {
	{"SumVertex", sum_fields, 2, sum_compute, NULL, NULL, 0, 0, false},
	{"DotProductVertex", dot_fields, 3, dot_compute, NULL, NULL, 0, 0, false},
	{"Dot4Vertex", dot4_fields, 3, dot_compute, NULL, NULL, 0, 0, false},
	{"DoubleVertex", double_fields, 1, double_compute, NULL, NULL, 0, 0, false},
};

/* --- Fixture ------------------------------------------------------------- */

typedef struct fixture {
	tsi_graph *graph;
} fixture;

static int setup(void **state)
{
	fixture *fx = calloc(1, sizeof(*fx));
	tsi_target target;

	assert_non_null(fx);
	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK2, 1, 4), TSI_OK);
	assert_int_equal(tsi_graph_new(&fx->graph, &target, 1), TSI_OK);
	assert_int_equal(tsi_graph_add_codelets(fx->graph, codelets,
	                                        sizeof(codelets) / sizeof(codelets[0])),
	                 TSI_OK);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	fixture *fx = *state;

	tsi_graph_free(fx->graph);
	free(fx);
	return 0;
}

/* A mapped float variable. */
static tsi_tensor *mapped_var(tsi_graph *g, size_t n, const char *name)
{
	tsi_tensor *t = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(n), name);

	assert_non_null(t);
	assert_int_equal(tsi_graph_set_tile_mapping(g, t, 0), TSI_OK);
	return t;
}

/* Asserts that compiling `prog` fails with `code` and that the message
 * contains each of the NULL-terminated strings. */
static void expect_failure(tsi_graph *g, tsi_program *prog, int code, ...)
{
	tsi_engine *engine = NULL;
	const char *msg;
	const char *want;
	va_list ap;

	assert_int_equal(tsi_engine_new(&engine, g, &prog, 1, NULL), code);
	assert_null(engine);
	msg = tsi_error_last();
	va_start(ap, code);
	while ((want = va_arg(ap, const char *)) != NULL) {
		if (!strstr(msg, want)) {
			print_error("message \"%s\" lacks \"%s\"\n", msg, want);
			fail();
		}
	}
	va_end(ap);
}

/* Asserts that compiling `prog` succeeds. */
static void expect_success(tsi_graph *g, tsi_program *prog)
{
	tsi_engine *engine = NULL;
	int rc = tsi_engine_new(&engine, g, &prog, 1, NULL);

	if (rc != TSI_OK) {
		print_error("tsi_engine_new: %d %s\n", rc, tsi_error_last());
		fail();
	}
	assert_non_null(engine);
	tsi_engine_free(engine);
}

/* A complete SumVertex on tile `tile` reading `in`, writing `out`. */
static tsi_vertex *sum_vertex(tsi_graph *g, tsi_compute_set *cs, const tsi_tensor *in,
                              const tsi_tensor *out)
{
	tsi_vertex *v = tsi_graph_add_vertex(g, cs, "SumVertex");

	assert_non_null(v);
	if (in)
		assert_int_equal(tsi_graph_connect(g, v, "in", in), TSI_OK);
	if (out)
		assert_int_equal(tsi_graph_connect(g, v, "out", out), TSI_OK);
	return v;
}

/* --- Tests --------------------------------------------------------------- */

/* A correct graph compiles: the baseline for every failure below. */
static void test_valid_graph_compiles(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *in = mapped_var(g, 8, "in");
	tsi_tensor *out = mapped_var(g, 1, "out");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "sumCS");
	tsi_vertex *v = sum_vertex(g, cs, in, tsi_tensor_index(out, 0));

	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 0), TSI_OK);
	expect_success(g, tsi_prog_execute(g, cs));
}

/* Unknown vertex type: names the type, the compute set and known types. */
static void test_unknown_vertex_type(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "mulCS");
	tsi_vertex *v = tsi_graph_add_vertex(g, cs, "MatMulVertex");

	assert_non_null(v);
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_UNKNOWN_VERTEX_TYPE, "'MatMulVertex'",
	               "'mulCS'", "tsi_graph_add_codelet", "SumVertex", NULL);
	assert_null(strstr(tsi_error_last(), "did you mean"));
}

/* A misspelt type suggests the nearest known one. */
static void test_unknown_vertex_type_suggestion(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "mulCS");

	assert_non_null(tsi_graph_add_vertex(g, cs, "DotProductVertx"));
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_UNKNOWN_VERTEX_TYPE, "'DotProductVertx'",
	               "'mulCS'", "did you mean 'DotProductVertex'?", NULL);
}

/* A codelet body that does nothing (the tests below never run it). */
static bool do_nothing(const tsi_field *fields, size_t n)
{
	(void)fields;
	(void)n;
	return true;
}

/* Long type names: the message lists whole names only (a cut one would
 * read as another type) and counts the rest; the unknown name is whole. */
static void test_unknown_vertex_type_long_names(void **state)
{
	tsi_graph *g = NULL;
	tsi_target target;
	tsi_compute_set *cs;
	static char names[8][200];
	char unknown[300];
	const char *msg;

	(void)state;
	/* A graph of these codelets only, so they are the ones listed. */
	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK2, 1, 4), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	cs = tsi_graph_add_compute_set(g, "cs");
	for (int i = 0; i < 8; i++) {
		tsi_codelet c = {0};

		snprintf(names[i], sizeof(names[i]), "popops::VeryLongVertex%d<%0150d>", i, i);
		c.name = names[i];
		c.compute = do_nothing;
		assert_int_equal(tsi_graph_add_codelet(g, &c), TSI_OK);
	}
	snprintf(unknown, sizeof(unknown), "user::Unknown<%0250d>", 7);
	assert_non_null(tsi_graph_add_vertex(g, cs, unknown));
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_UNKNOWN_VERTEX_TYPE, unknown, " more)",
	               NULL);
	msg = tsi_error_last();
	for (int i = 0; i < 8; i++) {
		char prefix[32];

		snprintf(prefix, sizeof(prefix), "VeryLongVertex%d<", i);
		if (strstr(msg, prefix) && !strstr(msg, names[i]))
			fail_msg("type %d is cut in: %s", i, msg);
	}
	tsi_graph_free(g);
}

/* The unknown type is reported before the (also) unmapped vertex. */
static void test_checks_run_in_order(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "cs");

	sum_vertex(g, cs, NULL, NULL); /* unmapped, unconnected */
	assert_non_null(tsi_graph_add_vertex(g, cs, "NoSuchVertex"));
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_UNKNOWN_VERTEX_TYPE, "NoSuchVertex", NULL);
}

/* Unmapped vertex: names vertex type and compute set, suggests the fix. */
static void test_unmapped_vertex(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *in = mapped_var(g, 8, "in");
	tsi_tensor *out = mapped_var(g, 1, "out");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "sumCS");

	sum_vertex(g, cs, in, out);
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_UNMAPPED_VERTEX, "'SumVertex'", "'sumCS'",
	               "tsi_graph_set_vertex_tile", NULL);
}

/* Unconnected field: names the field, vertex type and compute set. */
static void test_unconnected_field(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *in = mapped_var(g, 8, "in");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "sumCS");
	tsi_vertex *v = sum_vertex(g, cs, in, NULL);

	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 1), TSI_OK);
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_UNCONNECTED_FIELD, "field 'out'",
	               "'SumVertex'", "'sumCS'", NULL);
}

/* A scalar field connected to several elements. */
static void test_scalar_field_size_mismatch(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *in = mapped_var(g, 8, "in");
	tsi_tensor *out = mapped_var(g, 4, "results");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "sumCS");
	tsi_vertex *v = sum_vertex(g, cs, in, out);

	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 0), TSI_OK);
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_FIELD_SIZE_MISMATCH, "field 'out'",
	               "'SumVertex'", "'sumCS'", "results", "4 elements", NULL);
}

/* A fixed-size vector field connected to the wrong number of elements. */
static void test_fixed_vector_size_mismatch(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *a = mapped_var(g, 4, "lhs");
	tsi_tensor *b = mapped_var(g, 3, "rhs");
	tsi_tensor *out = mapped_var(g, 1, "dot");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "dotCS");
	tsi_vertex *v = tsi_graph_add_vertex(g, cs, "Dot4Vertex");

	assert_int_equal(tsi_graph_connect(g, v, "a", a), TSI_OK);
	assert_int_equal(tsi_graph_connect(g, v, "b", b), TSI_OK);
	assert_int_equal(tsi_graph_connect(g, v, "out", out), TSI_OK);
	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 0), TSI_OK);
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_FIELD_SIZE_MISMATCH, "field 'b'",
	               "'Dot4Vertex'", "'dotCS'", "rhs", "exactly 4", "3 elements", NULL);
}

/* A field whose tensor has another element type; both types are named. */
static void test_field_type_mismatch(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *in = tsi_graph_add_variable(g, TSI_HALF, TSI_SHAPE(8), "activations");
	tsi_tensor *out = mapped_var(g, 1, "out");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "sumCS");
	tsi_vertex *v;

	assert_int_equal(tsi_graph_set_tile_mapping(g, in, 0), TSI_OK);
	v = sum_vertex(g, cs, in, out);
	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 0), TSI_OK);
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_FIELD_SIZE_MISMATCH, "field 'in'",
	               "'SumVertex'", "'sumCS'", "activations", "float", "half", NULL);
}

/* An output field connected to a constant. */
static void test_output_connected_to_constant(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *in = mapped_var(g, 8, "in");
	tsi_tensor *c = tsi_graph_add_constant_fill(g, TSI_FLOAT, TSI_SHAPE(1), 3.0, "three");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "sumCS");
	tsi_vertex *v;

	assert_non_null(c);
	assert_int_equal(tsi_graph_set_tile_mapping(g, c, 0), TSI_OK);
	v = sum_vertex(g, cs, in, c);
	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 0), TSI_OK);
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_FIELD_SIZE_MISMATCH, "field 'out'",
	               "'SumVertex'", "three", "constant", NULL);
}

/* An in/out field connected to a constant is refused too. */
static void test_inout_connected_to_constant(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *c = tsi_graph_add_constant_fill(g, TSI_FLOAT, TSI_SHAPE(4), 1.0, "ones");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "dblCS");
	tsi_vertex *v = tsi_graph_add_vertex(g, cs, "DoubleVertex");

	assert_int_equal(tsi_graph_set_tile_mapping(g, c, 0), TSI_OK);
	assert_int_equal(tsi_graph_connect(g, v, "data", c), TSI_OK);
	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 0), TSI_OK);
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_FIELD_SIZE_MISMATCH, "field 'data'",
	               "'DoubleVertex'", "'dblCS'", "ones", NULL);
}

/* A vertex input whose variable is only partly mapped: names the
 * variable, the first unmapped element and how many are unmapped. */
static void test_unmapped_tensor_at_vertex(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *w = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(10), "weights");
	tsi_tensor *out = mapped_var(g, 1, "out");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "sumCS");
	tsi_vertex *v;

	assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_slice(w, 0, 6), 2), TSI_OK);
	v = sum_vertex(g, cs, w, out);
	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 2), TSI_OK);
	expect_failure(g, tsi_prog_execute(g, cs), TSI_ERR_UNMAPPED_TENSOR, "'weights'",
	               "4 of its 10 elements", "element 6", "field 'in'", "'sumCS'",
	               "tsi_graph_set_tile_mapping", NULL);
}

/* Using only the mapped part of a partly mapped variable is fine. */
static void test_mapped_part_of_variable_compiles(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *w = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(10), "weights");
	tsi_tensor *out = mapped_var(g, 1, "out");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "sumCS");
	tsi_tensor *head = tsi_tensor_slice(w, 0, 6);
	tsi_vertex *v;

	assert_int_equal(tsi_graph_set_tile_mapping(g, head, 2), TSI_OK);
	v = sum_vertex(g, cs, head, out);
	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 2), TSI_OK);
	expect_success(g, tsi_prog_execute(g, cs));
}

/* The destination of a copy must be mapped. */
static void test_unmapped_copy_destination(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *src = mapped_var(g, 4, "src");
	tsi_tensor *dst = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "scratch");
	tsi_program *copy = tsi_prog_copy(g, src, dst);

	assert_non_null(copy);
	expect_failure(g, copy, TSI_ERR_UNMAPPED_TENSOR, "'scratch'", "destination", "Copy",
	               "element 0", NULL);
}

/* A variable used only by a host read handle must be mapped. */
static void test_unmapped_tensor_host_read_only(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *t = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3), "result");

	assert_int_equal(tsi_graph_create_host_read(g, "result-read", t), TSI_OK);
	expect_failure(g, tsi_prog_sequence(g, "main"), TSI_ERR_UNMAPPED_TENSOR, "'result'",
	               "host read handle 'result-read'", "3 of its 3 elements", NULL);
}

/* A compute set no program executes is not checked, as in Poplar. */
static void test_unexecuted_compute_set_not_checked(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *in = mapped_var(g, 8, "in");
	tsi_tensor *out = mapped_var(g, 1, "out");
	tsi_compute_set *used = tsi_graph_add_compute_set(g, "used");
	tsi_compute_set *unused = tsi_graph_add_compute_set(g, "unused");
	tsi_tensor *unmapped = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(8), "unmapped");
	tsi_vertex *v = sum_vertex(g, used, in, out);

	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 0), TSI_OK);
	sum_vertex(g, unused, unmapped, NULL); /* unmapped, half connected */
	assert_non_null(tsi_graph_add_vertex(g, unused, "NoSuchVertex"));
	expect_success(g, tsi_prog_execute(g, used));

	/* Executing it does check it. */
	tsi_program *seq = tsi_prog_sequence(g, "both");
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, used)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_execute(g, unused)), TSI_OK);
	expect_failure(g, seq, TSI_ERR_UNKNOWN_VERTEX_TYPE, "'unused'", NULL);
}

/* Compute sets reached through control flow and functions are checked. */
static void test_nested_compute_set_checked(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *in = mapped_var(g, 8, "in");
	tsi_tensor *out = mapped_var(g, 1, "out");
	tsi_tensor *pred = tsi_graph_add_variable(g, TSI_BOOL, TSI_SHAPE(1), "flag");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "deepCS");
	tsi_function *fn;
	tsi_program *body, *prog;

	assert_int_equal(tsi_graph_set_tile_mapping(g, pred, 0), TSI_OK);
	sum_vertex(g, cs, in, out); /* unmapped vertex */
	fn = tsi_graph_add_function(g, tsi_prog_execute(g, cs));
	assert_non_null(fn);
	body = tsi_prog_repeat(g, 3, tsi_prog_call(g, fn));
	prog = tsi_prog_if(g, tsi_tensor_index(pred, 0), tsi_prog_sequence(g, NULL), body);
	assert_non_null(prog);
	expect_failure(g, prog, TSI_ERR_UNMAPPED_VERTEX, "'deepCS'", NULL);
}

/* An unmapped predicate is an unmapped tensor. */
static void test_unmapped_predicate(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *pred = tsi_graph_add_variable(g, TSI_BOOL, TSI_SHAPE(1), "keepGoing");
	tsi_program *prog = tsi_prog_if(g, tsi_tensor_index(pred, 0), tsi_prog_sequence(g, NULL), NULL);

	assert_non_null(prog);
	expect_failure(g, prog, TSI_ERR_UNMAPPED_TENSOR, "'keepGoing'", "predicate", NULL);
}

/* A graph with a recorded building error is refused as a whole. */
static void test_graph_with_building_error(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *t = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "t");

	/* Tile 99 does not exist on a 4-tile target. */
	assert_int_not_equal(tsi_graph_set_tile_mapping(g, t, 99), TSI_OK);
	assert_string_not_equal(tsi_graph_get_error(g), "");
	expect_failure(g, tsi_prog_sequence(g, "main"), TSI_ERR_INVALID_GRAPH, NULL);
}

/* A sequence added to itself is refused, naming it. */
static void test_program_containing_itself(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_program *outer = tsi_prog_sequence(g, "outer");
	tsi_program *loop = tsi_prog_sequence(g, "loopy");

	assert_int_equal(tsi_sequence_add(outer, loop), TSI_OK);
	assert_int_equal(tsi_sequence_add(loop, tsi_prog_sync(g, TSI_SYNC_INTERNAL)), TSI_OK);
	assert_int_equal(tsi_sequence_add(loop, loop), TSI_OK);
	expect_failure(g, outer, TSI_ERR_INVALID_ARGUMENT, "'loopy'", NULL);
}

/* A program shared by several parents (a DAG, not a cycle) compiles. */
static void test_shared_program_compiles(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	tsi_tensor *in = mapped_var(g, 8, "in");
	tsi_tensor *out = mapped_var(g, 1, "out");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "sumCS");
	tsi_vertex *v = sum_vertex(g, cs, in, out);
	tsi_program *exec = tsi_prog_execute(g, cs);
	tsi_program *seq = tsi_prog_sequence(g, "main");

	assert_int_equal(tsi_graph_set_vertex_tile(g, v, 3), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, exec), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, tsi_prog_repeat(g, 2, exec)), TSI_OK);
	assert_int_equal(tsi_sequence_add(seq, exec), TSI_OK);
	expect_success(g, seq);
}

/* Many vertices over rows of one big variable compile (and quickly: the
 * variable's mapping is scanned once, not once per vertex). */
static void test_many_vertices_compile(void **state)
{
	fixture *fx = *state;
	tsi_graph *g = fx->graph;
	const size_t rows = 2000, cols = 100;
	tsi_tensor *x = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(rows, cols), "x");
	tsi_tensor *y = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(rows), "y");
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "rowsCS");

	assert_int_equal(tsi_graph_map_linearly(g, x, cols), TSI_OK);
	assert_int_equal(tsi_graph_map_linearly(g, y, 1), TSI_OK);
	for (size_t r = 0; r < rows; r++) {
		tsi_vertex *v = sum_vertex(g, cs, tsi_tensor_index(x, r), tsi_tensor_index(y, r));
		assert_int_equal(tsi_graph_set_vertex_tile(g, v, (unsigned)(r % 4)), TSI_OK);
	}
	expect_success(g, tsi_prog_execute(g, cs));
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_valid_graph_compiles),
		T(test_unknown_vertex_type),
		T(test_unknown_vertex_type_suggestion),
		T(test_unknown_vertex_type_long_names),
		T(test_checks_run_in_order),
		T(test_unmapped_vertex),
		T(test_unconnected_field),
		T(test_scalar_field_size_mismatch),
		T(test_fixed_vector_size_mismatch),
		T(test_field_type_mismatch),
		T(test_output_connected_to_constant),
		T(test_inout_connected_to_constant),
		T(test_unmapped_tensor_at_vertex),
		T(test_mapped_part_of_variable_compiles),
		T(test_unmapped_copy_destination),
		T(test_unmapped_tensor_host_read_only),
		T(test_unexecuted_compute_set_not_checked),
		T(test_nested_compute_set_checked),
		T(test_unmapped_predicate),
		T(test_graph_with_building_error),
		T(test_program_containing_itself),
		T(test_shared_program_compiles),
		T(test_many_vertices_compile),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
