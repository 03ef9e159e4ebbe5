/*
 * Unit tests of poprand (tilescope/poprand.h): uniform numbers stay in
 * their range with the right mean and variance, normal numbers have the
 * right mean and standard deviation, a seed gives the same numbers in two
 * engines, each run draws new numbers, the numbers do not depend on the
 * tile mapping, and bad arguments are refused.
 */
#include "test-util.h"

#include <tilescope/ipu.h>
#include <tilescope/poprand.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N_TILES 16
#define N_SAMPLES 10000

/* A 16-tile IPU Model with a graph that has the poprand codelets. */
typedef tsi_test_model fixture;

/* Creates the fixture: device, graph with codelets, empty sequence. */
static int setup(void **state)
{
	fixture *f = tsi_test_model_new(N_TILES);

	assert_int_equal(tsi_poprand_add_codelets(f->graph), TSI_OK);
	*state = f;
	return 0;
}

/* A variable of `n` elements spread linearly over the graph's tiles, with
 * a host read handle of its own name. */
static tsi_tensor *make_out(fixture *f, tsi_type type, size_t n, const char *name)
{
	tsi_tensor *v = tsi_graph_add_variable(f->graph, type, TSI_SHAPE(n), name);

	assert_non_null(v);
	assert_int_equal(tsi_graph_map_linearly(f->graph, v, 1), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, name, v), TSI_OK);
	return v;
}

/* Sample mean and standard deviation. */
static void moments(const float *v, size_t n, double *mean, double *sd)
{
	double s = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - *mean) * (v[i] - *mean);
	*sd = sqrt(ss / (double)(n - 1));
}

/* How many of `n` values are equal in a and b. */
static size_t count_equal(const float *a, const float *b, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += a[i] == b[i];
	return k;
}

/* 10,000 uniform floats in [-2, 3): all in range, not all alike, mean
 * 0.5 and variance 25/12 within sampling tolerance (about 4 standard
 * errors), and both halves of the range hit. */
static void test_uniform_float(void **state)
{
	fixture *f = *state;
	float *v = malloc(N_SAMPLES * sizeof(*v));
	tsi_tensor *out = make_out(f, TSI_FLOAT, N_SAMPLES, "u");
	double mean, sd;
	size_t low = 0;

	assert_non_null(v);
	assert_int_equal(tsi_poprand_uniform(f->graph, out, -2.0, 3.0, 42, f->seq, NULL), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "u", v, N_SAMPLES);
	for (size_t i = 0; i < N_SAMPLES; i++) {
		assert_true(v[i] >= -2.0f && v[i] < 3.0f);
		low += v[i] < 0.5f;
	}
	moments(v, N_SAMPLES, &mean, &sd);
	assert_close(mean, 0.5, 0.06);
	assert_close(sd * sd, 25.0 / 12.0, 0.12);
	assert_true(low > 4700 && low < 5300);
	free(v);
}

/* A range one unit in the last place wide holds one representable value:
 * [2^20, 2^20 + 1/8) in float and [1, 1 + 2^-10) in half. Rounding would
 * give max for about half the draws; the interval must stay half-open.
 * min == max fills min. */
static void test_uniform_narrow_range(void **state)
{
	fixture *f = *state;
	float v[1000];
	tsi_tensor *a = make_out(f, TSI_FLOAT, 1000, "a");
	tsi_tensor *h = make_out(f, TSI_HALF, 1000, "h");
	tsi_tensor *e = make_out(f, TSI_FLOAT, 1000, "e");

	assert_int_equal(tsi_poprand_uniform(f->graph, a, 1048576.0, 1048576.125, 8, f->seq, NULL),
	                 TSI_OK);
	assert_int_equal(tsi_poprand_uniform(f->graph, h, 1.0, 1.0 + 1.0 / 1024, 8, f->seq, NULL),
	                 TSI_OK);
	assert_int_equal(tsi_poprand_uniform(f->graph, e, 4.0, 4.0, 8, f->seq, NULL), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "a", v, 1000);
	for (size_t i = 0; i < 1000; i++)
		assert_close(v[i], 1048576.0, 0);
	tsi_test_read_halves(f->engine, "h", v, 1000);
	for (size_t i = 0; i < 1000; i++)
		assert_close(v[i], 1.0, 0);
	tsi_test_read_floats(f->engine, "e", v, 1000);
	for (size_t i = 0; i < 1000; i++)
		assert_close(v[i], 4.0, 0);
}

/* 10,000 normal floats with mean 1 and stddev 2: sample mean and
 * standard deviation within tolerance, and about 68% within one sd. */
static void test_normal_float(void **state)
{
	fixture *f = *state;
	float *v = malloc(N_SAMPLES * sizeof(*v));
	tsi_tensor *out = make_out(f, TSI_FLOAT, N_SAMPLES, "n");
	double mean, sd;
	size_t inside = 0;

	assert_non_null(v);
	assert_int_equal(tsi_poprand_normal(f->graph, out, 1.0, 2.0, 7, f->seq, "noise"), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "n", v, N_SAMPLES);
	for (size_t i = 0; i < N_SAMPLES; i++)
		inside += fabsf(v[i] - 1.0f) < 2.0f;
	moments(v, N_SAMPLES, &mean, &sd);
	assert_close(mean, 1.0, 0.08);
	assert_close(sd, 2.0, 0.06);
	assert_true(inside > 6500 && inside < 7150);
	free(v);
}

/* Half outputs: uniform halves in [0, 1) (the top of the range must not
 * round up to 1) and normal halves with the right moments. */
static void test_half(void **state)
{
	fixture *f = *state;
	float *u = malloc(N_SAMPLES * sizeof(*u));
	float *n = malloc(N_SAMPLES * sizeof(*n));
	tsi_tensor *hu = make_out(f, TSI_HALF, N_SAMPLES, "hu");
	tsi_tensor *hn = make_out(f, TSI_HALF, N_SAMPLES, "hn");
	double mean, sd;

	assert_non_null(u);
	assert_non_null(n);
	assert_int_equal(tsi_poprand_uniform(f->graph, hu, 0.0, 1.0, 3, f->seq, NULL), TSI_OK);
	assert_int_equal(tsi_poprand_normal(f->graph, hn, -1.0, 0.5, 3, f->seq, NULL), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	for (int r = 0; r < 3; r++) {
		tsi_test_run(f->engine, 0);
		tsi_test_read_halves(f->engine, "hu", u, N_SAMPLES);
		for (size_t i = 0; i < N_SAMPLES; i++)
			assert_true(u[i] >= 0.0f && u[i] < 1.0f);
	}
	moments(u, N_SAMPLES, &mean, &sd);
	assert_close(mean, 0.5, 0.02);
	tsi_test_read_halves(f->engine, "hn", n, N_SAMPLES);
	moments(n, N_SAMPLES, &mean, &sd);
	assert_close(mean, -1.0, 0.02);
	assert_close(sd, 0.5, 0.02);
	free(u);
	free(n);
}

/* Builds the same graph (a uniform and a normal output, seed 99) on
 * `device` and returns its loaded engine; *graph receives the graph. */
static tsi_engine *build_seeded(tsi_device *device, tsi_graph **graph)
{
	tsi_program *seq;
	tsi_tensor *u, *n;
	tsi_engine *engine = NULL;

	assert_int_equal(tsi_graph_new(graph, tsi_device_get_target(device), 1), TSI_OK);
	assert_int_equal(tsi_poprand_add_codelets(*graph), TSI_OK);
	seq = tsi_prog_sequence(*graph, NULL);
	u = tsi_graph_add_variable(*graph, TSI_FLOAT, TSI_SHAPE(500), "u");
	n = tsi_graph_add_variable(*graph, TSI_FLOAT, TSI_SHAPE(20, 25), "n");
	assert_int_equal(tsi_graph_map_linearly(*graph, u, 32), TSI_OK);
	assert_int_equal(tsi_graph_map_linearly(*graph, n, 50), TSI_OK);
	assert_int_equal(tsi_poprand_uniform(*graph, u, 0, 1, 99, seq, NULL), TSI_OK);
	assert_int_equal(tsi_poprand_normal(*graph, n, 0, 1, 99, seq, NULL), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(*graph, "u", u), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(*graph, "n", n), TSI_OK);
	if (tsi_engine_new(&engine, *graph, &seq, 1, NULL) != TSI_OK)
		fail_msg("tsi_engine_new: %s", tsi_error_last());
	assert_int_equal(tsi_engine_load(engine, device), TSI_OK);
	return engine;
}

/* Two engines built alike draw the same numbers run after run; within
 * one engine each run draws new numbers. */
static void test_same_seed_two_engines(void **state)
{
	fixture *f = *state;
	tsi_graph *g1, *g2;
	tsi_engine *e1 = build_seeded(f->device, &g1);
	tsi_engine *e2 = build_seeded(f->device, &g2);
	float a[500], b[500], first[500];

	for (int r = 0; r < 3; r++) {
		tsi_test_run(e1, 0);
		tsi_test_run(e2, 0);
		tsi_test_read_floats(e1, "u", a, 500);
		tsi_test_read_floats(e2, "u", b, 500);
		assert_int_equal(count_equal(a, b, 500), 500);
		if (r == 0)
			memcpy(first, a, sizeof(first));
		else
			assert_true(count_equal(a, first, 500) < 5);
		tsi_test_read_floats(e1, "n", a, 500);
		tsi_test_read_floats(e2, "n", b, 500);
		assert_int_equal(count_equal(a, b, 500), 500);
	}
	tsi_engine_free(e1);
	tsi_engine_free(e2);
	tsi_graph_free(g1);
	tsi_graph_free(g2);
}

/* Two runs of one program give different numbers; different seeds give
 * different numbers; a reloaded engine starts the sequence again. */
static void test_runs_and_seeds_differ(void **state)
{
	fixture *f = *state;
	float a[1000], b[1000], c[1000];
	tsi_tensor *x = make_out(f, TSI_FLOAT, 1000, "x");
	tsi_tensor *y = make_out(f, TSI_FLOAT, 1000, "y");

	assert_int_equal(tsi_poprand_uniform(f->graph, x, 0, 1, 1, f->seq, NULL), TSI_OK);
	assert_int_equal(tsi_poprand_uniform(f->graph, y, 0, 1, 2, f->seq, NULL), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "x", a, 1000);
	tsi_test_read_floats(f->engine, "y", c, 1000);
	assert_true(count_equal(a, c, 1000) < 5);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "x", b, 1000);
	assert_true(count_equal(a, b, 1000) < 5);
	/* loading again zeroes the run counters */
	assert_int_equal(tsi_engine_load(f->engine, f->device), TSI_OK);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "x", b, 1000);
	assert_int_equal(count_equal(a, b, 1000), 1000);
}

/* The same seed gives the same numbers whether the output is on one
 * tile, in blocks over four tiles, or element by element over three
 * tiles (several runs per tile), also on the second run. */
static void test_independent_of_mapping(void **state)
{
	fixture *f = *state;
	enum { N = 600 };
	static const char *const names[] = {"one", "four", "strided"};
	float v[3][N];
	tsi_tensor *t[3];

	for (int k = 0; k < 3; k++) {
		t[k] = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(N), names[k]);
		assert_int_equal(tsi_graph_create_host_read(f->graph, names[k], t[k]), TSI_OK);
	}
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, t[0], 3), TSI_OK);
	for (unsigned q = 0; q < 4; q++)
		assert_int_equal(tsi_graph_set_tile_mapping(f->graph,
		                                            tsi_tensor_slice(t[1], q * N / 4,
		                                                             (q + 1) * N / 4),
		                                            q),
		                 TSI_OK);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(tsi_graph_set_tile_mapping(f->graph, tsi_tensor_slice(t[2], i, i + 1),
		                                            (unsigned)(10 + i % 3)),
		                 TSI_OK);
	for (int k = 0; k < 3; k++)
		assert_int_equal(tsi_poprand_normal(f->graph, t[k], 0.5, 3, 1234, f->seq, NULL), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	for (int r = 0; r < 2; r++) {
		tsi_test_run(f->engine, 0);
		for (int k = 0; k < 3; k++)
			tsi_test_read_floats(f->engine, names[k], v[k], N);
		assert_int_equal(count_equal(v[0], v[1], N), N);
		assert_int_equal(count_equal(v[0], v[2], N), N);
	}
}

/* Filling a view (every other element of a row-major [10, 10]) writes
 * exactly those elements. */
static void test_view_output(void **state)
{
	fixture *f = *state;
	float v[100];
	tsi_tensor *m = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(10, 10), "m");
	tsi_tensor *cols = tsi_tensor_slice_dim(m, 0, 5, 1);

	assert_int_equal(tsi_graph_map_linearly(f->graph, m, 10), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "m", m), TSI_OK);
	assert_int_equal(tsi_poprand_uniform(f->graph, cols, 10, 20, 5, f->seq, NULL), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "m", v, 100);
	for (size_t i = 0; i < 100; i++) {
		if (i % 10 < 5)
			assert_true(v[i] >= 10.0f && v[i] < 20.0f);
		else
			assert_close(v[i], 0, 0); /* zeroed at load, untouched */
	}
}

/* Asserts that the graph's first error contains `text`. */
static void assert_error_has(tsi_graph *graph, const char *text)
{
	const char *msg = tsi_graph_get_error(graph);

	assert_string_not_equal(msg, "");
	if (!strstr(msg, text))
		fail_msg("error '%s' does not contain '%s'", msg, text);
}

/* Bad arguments are refused naming the operation and the tensor; a NULL
 * from an earlier failure passes quietly. */
static void test_errors(void **state)
{
	fixture *f = *state;
	tsi_graph *g;
	tsi_program *seq;
	tsi_tensor *t;

#define FRESH(codelets)                                                               \
	do {                                                                              \
		assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK); \
		if (codelets)                                                                 \
			assert_int_equal(tsi_poprand_add_codelets(g), TSI_OK);                    \
		seq = tsi_prog_sequence(g, NULL);                                             \
	} while (0)

	FRESH(true);
	t = tsi_graph_add_variable(g, TSI_INT, TSI_SHAPE(4), "ints");
	assert_int_equal(tsi_graph_set_tile_mapping(g, t, 0), TSI_OK);
	assert_int_not_equal(tsi_poprand_uniform(g, t, 0, 1, 0, seq, "r"), TSI_OK);
	assert_error_has(g, "tsi_poprand_uniform 'r': out 'ints' has type int");
	/* NULL after an error: quiet, the first message stays */
	assert_int_not_equal(tsi_poprand_normal(g, NULL, 0, 1, 0, seq, NULL), TSI_OK);
	assert_error_has(g, "'ints'");
	tsi_graph_free(g);

	FRESH(true);
	assert_int_not_equal(tsi_poprand_normal(g, NULL, 0, 1, 0, seq, NULL), TSI_OK);
	assert_error_has(g, "tsi_poprand_normal 'Normal': out is NULL");
	tsi_graph_free(g);

	FRESH(true);
	t = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "x");
	assert_int_equal(tsi_graph_set_tile_mapping(g, t, 0), TSI_OK);
	assert_int_not_equal(tsi_poprand_uniform(g, t, 2, 1, 0, seq, NULL), TSI_OK);
	assert_error_has(g, "min <= max");
	tsi_graph_free(g);

	FRESH(true);
	t = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "x");
	assert_int_equal(tsi_graph_set_tile_mapping(g, t, 0), TSI_OK);
	assert_int_not_equal(tsi_poprand_normal(g, t, 0, -1, 0, seq, NULL), TSI_OK);
	assert_error_has(g, "stddev >= 0");
	tsi_graph_free(g);

	FRESH(true);
	t = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "x");
	assert_int_equal(tsi_graph_set_tile_mapping(g, t, 0), TSI_OK);
	assert_int_not_equal(tsi_poprand_normal(g, t, NAN, 1, 0, seq, NULL), TSI_OK);
	assert_error_has(g, "must be finite");
	tsi_graph_free(g);

	FRESH(true);
	t = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(6), "half_mapped");
	assert_int_equal(tsi_graph_set_tile_mapping(g, tsi_tensor_slice(t, 0, 3), 1), TSI_OK);
	assert_int_equal(tsi_poprand_uniform(g, t, 0, 1, 0, seq, NULL), TSI_ERR_UNMAPPED_TENSOR);
	assert_error_has(g, "out 'half_mapped' has elements with no tile (the first is element 3)");
	tsi_graph_free(g);

	FRESH(true);
	t = tsi_graph_add_constant_fill(g, TSI_FLOAT, TSI_SHAPE(4), 0, "k");
	assert_int_equal(tsi_graph_set_tile_mapping(g, t, 0), TSI_OK);
	assert_int_not_equal(tsi_poprand_uniform(g, t, 0, 1, 0, seq, NULL), TSI_OK);
	assert_error_has(g, "out 'k' is a constant");
	tsi_graph_free(g);

	FRESH(false);
	t = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "x");
	assert_int_equal(tsi_graph_set_tile_mapping(g, t, 0), TSI_OK);
	assert_int_equal(tsi_poprand_uniform(g, t, 0, 1, 0, seq, NULL), TSI_ERR_UNKNOWN_VERTEX_TYPE);
	assert_error_has(g, "tsi_poprand_add_codelets");
	tsi_graph_free(g);
#undef FRESH

	assert_int_equal(tsi_poprand_uniform(NULL, NULL, 0, 1, 0, NULL, NULL),
	                 TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_error_last(), "graph is NULL"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_uniform_float, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_uniform_narrow_range, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_normal_float, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_half, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_same_seed_two_engines, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_runs_and_seeds_differ, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_independent_of_mapping, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_view_output, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_errors, setup, tsi_test_model_delete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
