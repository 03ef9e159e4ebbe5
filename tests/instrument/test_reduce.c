/*
 * Unit tests of tsi_popops_reduce (tilescope/popops.h): every operation
 * over one dimension, the other, and all of them; with a scale; float,
 * half, int and unsigned int; inputs on one tile (one stage) and spread over several
 * (two stages); a 1000x784 reduction; views as inputs; empty inputs; and
 * the errors recorded for bad arguments. Values are checked against
 * reductions computed on the host.
 */
#include "test-util.h"

#include <tilescope/ipu.h>
#include <tilescope/popops.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A 16-tile IPU Model with a graph that has the popops codelets. */
typedef tsi_test_model fixture;

static int setup(void **state)
{
	fixture *f = tsi_test_model_new(16);
	tsi_target t;

	assert_int_equal(tsi_target_ipu(&t, TSI_IPU_MK2, 1, 16), TSI_OK);
	assert_int_equal(tsi_device_get_target(f->device)->num_tiles, t.num_tiles);
	assert_int_equal(tsi_popops_add_codelets(f->graph), TSI_OK);
	*state = f;
	return 0;
}

/* A variable whose elements are cut into `n_tiles` equal contiguous
 * chunks (in row-major order, so rows may be split) on tiles
 * first_tile, first_tile + 1, ...; written through host handle `name`. */
static tsi_tensor *input(fixture *f, tsi_type type, size_t rank, const size_t *shape,
                         unsigned first_tile, unsigned n_tiles, const char *name)
{
	tsi_tensor *v = tsi_graph_add_variable(f->graph, type, rank, shape, name);
	tsi_tensor *flat = tsi_tensor_flatten(v);
	size_t n = tsi_tensor_numel(v);
	size_t chunk = (n + n_tiles - 1) / n_tiles;

	assert_non_null(flat);
	for (unsigned t = 0; t < n_tiles && t * chunk < n; t++) {
		size_t end = (t + 1) * chunk < n ? (t + 1) * chunk : n;

		assert_int_equal(tsi_graph_set_tile_mapping(f->graph, tsi_tensor_slice(flat, t * chunk, end),
		                                            first_tile + t),
		                 TSI_OK);
	}
	assert_int_equal(tsi_graph_create_host_write(f->graph, name, v), TSI_OK);
	return v;
}

/* How many compute sets the graph has: the next unnamed one is "cs<N>"
 * (the probe itself adds one, so callers compare two counts). */
static size_t cs_count(fixture *f)
{
	tsi_compute_set *probe = tsi_graph_add_compute_set(f->graph, NULL);

	assert_non_null(probe);
	return (size_t)strtoul(tsi_compute_set_name(probe) + 2, NULL, 10);
}

/* The host reference of a reduction of the [rows, cols] matrix x over
 * rows (over_rows) or columns, into out. */
static void host_reduce(const float *x, size_t rows, size_t cols, bool over_rows,
                        tsi_popops_reduce_op op, double scale, double *out)
{
	size_t n_out = over_rows ? cols : rows;
	size_t n_in = over_rows ? rows : cols;

	for (size_t o = 0; o < n_out; o++) {
		double acc = op == TSI_POPOPS_REDUCE_MUL ? 1 : op == TSI_POPOPS_REDUCE_MAX ? -INFINITY
		             : op == TSI_POPOPS_REDUCE_MIN ? INFINITY : 0;

		for (size_t i = 0; i < n_in; i++) {
			double v = over_rows ? x[i * cols + o] : x[o * cols + i];

			switch (op) {
			case TSI_POPOPS_REDUCE_ADD:
				acc += v;
				break;
			case TSI_POPOPS_REDUCE_MUL:
				acc *= v;
				break;
			case TSI_POPOPS_REDUCE_MAX:
				acc = v > acc ? v : acc;
				break;
			case TSI_POPOPS_REDUCE_MIN:
				acc = v < acc ? v : acc;
				break;
			default:
				acc += v * v;
				break;
			}
		}
		out[o] = acc * scale;
	}
}

/* 6x10 test values: halves between -3 and 3.5, exact in float and half. */
static void fill_values(float *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		x[i] = (float)((i * 7 + 3) % 13) * 0.5f - 3.0f;
}

/*
 * Every operation over dimension 0 and over dimension 1 of a [6, 10]
 * matrix spread over 4 tiles in chunks of 15 elements (rows split across
 * tiles), with and without a scale. Reductions whose outputs have inputs
 * on two tiles take two compute sets.
 */
static void test_every_op_each_dim(void **state)
{
	fixture *f = *state;
	static const tsi_popops_reduce_op ops[] = {
		TSI_POPOPS_REDUCE_ADD, TSI_POPOPS_REDUCE_MUL, TSI_POPOPS_REDUCE_MAX,
		TSI_POPOPS_REDUCE_MIN, TSI_POPOPS_REDUCE_SQUARE_ADD,
	};
	static const float scales[] = {1.0f, 0.25f};
	float x[60];
	tsi_tensor *in = input(f, TSI_FLOAT, TSI_SHAPE(6, 10), 0, 4, "x");
	char h[32];

	fill_values(x, 60);
	for (size_t o = 0; o < 5; o++) {
		for (size_t s = 0; s < 2; s++) {
			for (size_t dim = 0; dim < 2; dim++) {
				size_t before = cs_count(f);
				tsi_tensor *r = tsi_popops_reduce(f->graph, in, &dim, 1, ops[o], scales[s],
				                                  TSI_FLOAT, f->seq, "R");

				assert_non_null(r);
				assert_int_equal(tsi_tensor_rank(r), 1);
				assert_int_equal(tsi_tensor_dim(r, 0), dim == 0 ? 10 : 6);
				assert_true(tsi_graph_is_mapped(f->graph, r));
				/* both ways some output has inputs on two tiles */
				assert_int_equal(cs_count(f) - before - 1, 2);
				snprintf(h, sizeof(h), "r%zu_%zu_%zu", o, s, dim);
				assert_int_equal(tsi_graph_create_host_read(f->graph, h, r), TSI_OK);
			}
		}
	}
	tsi_test_model_load(f, NULL, 0, NULL);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "x", x, sizeof(x)), TSI_OK);
	tsi_test_run(f->engine, 0);
	for (size_t o = 0; o < 5; o++) {
		for (size_t s = 0; s < 2; s++) {
			for (size_t dim = 0; dim < 2; dim++) {
				double want[10];
				float got[10];
				size_t n = dim == 0 ? 10 : 6;

				host_reduce(x, 6, 10, dim == 0, ops[o], scales[s], want);
				snprintf(h, sizeof(h), "r%zu_%zu_%zu", o, s, dim);
				tsi_test_read_floats(f->engine, h, got, n);
				for (size_t i = 0; i < n; i++)
					assert_close(got[i], want[i], 1e-5 * (1 + fabs(want[i])));
			}
		}
	}
}

/* Reducing every dimension gives a rank-0 result, in either order of the
 * dimension list. */
static void test_all_dims(void **state)
{
	fixture *f = *state;
	static const size_t d01[] = {0, 1}, d10[] = {1, 0};
	float x[60], got;
	double want[10], sum = 0, max = -INFINITY;
	tsi_tensor *in = input(f, TSI_FLOAT, TSI_SHAPE(6, 10), 2, 4, "x");
	tsi_tensor *s = tsi_popops_reduce(f->graph, in, d01, 2, TSI_POPOPS_REDUCE_ADD, 1.0f,
	                                  TSI_FLOAT, f->seq, "Sum");
	tsi_tensor *m = tsi_popops_reduce(f->graph, in, d10, 2, TSI_POPOPS_REDUCE_MAX, 2.0f,
	                                  TSI_FLOAT, f->seq, "Max");

	assert_non_null(s);
	assert_non_null(m);
	assert_int_equal(tsi_tensor_rank(s), 0);
	assert_int_equal(tsi_tensor_numel(s), 1);
	assert_string_equal(tsi_tensor_name(s), "Sum/out");
	assert_int_equal(tsi_graph_create_host_read(f->graph, "s", s), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "m", m), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	fill_values(x, 60);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "x", x, sizeof(x)), TSI_OK);
	tsi_test_run(f->engine, 0);
	host_reduce(x, 6, 10, true, TSI_POPOPS_REDUCE_ADD, 1, want);
	for (size_t i = 0; i < 10; i++)
		sum += want[i];
	for (size_t i = 0; i < 60; i++)
		max = x[i] > max ? x[i] : max;
	tsi_test_read_floats(f->engine, "s", &got, 1);
	assert_close(got, sum, 0);
	tsi_test_read_floats(f->engine, "m", &got, 1);
	assert_close(got, 2 * max, 0);
}

/*
 * Where the inputs live decides the stages: data on one tile, or each
 * row on its own tile reduced along the row, needs one compute set (and
 * the output sits with its inputs); data on four tiles reduced across
 * them needs two. Results are exact either way.
 */
static void test_one_tile_and_four(void **state)
{
	fixture *f = *state;
	size_t dim0 = 0, dim1 = 1, before;
	float x[32], got[8];
	double want[8];
	tsi_tensor *one = input(f, TSI_FLOAT, TSI_SHAPE(4, 8), 5, 1, "one");
	tsi_tensor *four = input(f, TSI_FLOAT, TSI_SHAPE(4, 8), 0, 4, "four");
	tsi_tensor *r1, *r4, *rows;

	before = cs_count(f);
	r1 = tsi_popops_reduce(f->graph, one, &dim0, 1, TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT,
	                       f->seq, "OnOne");
	assert_non_null(r1);
	assert_int_equal(cs_count(f) - before - 1, 1);
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(tsi_graph_get_tile_of(f->graph, r1, i), 5);

	before = cs_count(f);
	r4 = tsi_popops_reduce(f->graph, four, &dim0, 1, TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT,
	                       f->seq, "OnFour");
	assert_non_null(r4);
	assert_int_equal(cs_count(f) - before - 1, 2);

	/* four holds row i on tile i: reducing rows needs no exchange */
	before = cs_count(f);
	rows = tsi_popops_reduce(f->graph, four, &dim1, 1, TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT,
	                         f->seq, "Rows");
	assert_non_null(rows);
	assert_int_equal(cs_count(f) - before - 1, 1);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(tsi_graph_get_tile_of(f->graph, rows, i), i);

	assert_int_equal(tsi_graph_create_host_read(f->graph, "r1", r1), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "r4", r4), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "rows", rows), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	for (size_t i = 0; i < 32; i++)
		x[i] = (float)i * 0.5f - 4.0f;
	assert_int_equal(tsi_engine_write_tensor(f->engine, "one", x, sizeof(x)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "four", x, sizeof(x)), TSI_OK);
	tsi_test_run(f->engine, 0);
	host_reduce(x, 4, 8, true, TSI_POPOPS_REDUCE_ADD, 1, want);
	tsi_test_read_floats(f->engine, "r1", got, 8);
	for (size_t i = 0; i < 8; i++)
		assert_close(got[i], want[i], 0);
	tsi_test_read_floats(f->engine, "r4", got, 8);
	for (size_t i = 0; i < 8; i++)
		assert_close(got[i], want[i], 0);
	host_reduce(x, 4, 8, false, TSI_POPOPS_REDUCE_ADD, 1, want);
	tsi_test_read_floats(f->engine, "rows", got, 4);
	for (size_t i = 0; i < 4; i++)
		assert_close(got[i], want[i], 0);
}

/*
 * A 1000x784 matrix (MNIST-sized) mapped linearly over the 16 tiles:
 * the column sums (over dimension 0), the row maxima (over dimension 1),
 * checked exactly (the values are small integers, so float sums are
 * exact), and the sum of squares of everything (to float precision). The result of the column sum
 * is mapped linearly. Running twice gives the same answer (the partials
 * are rewritten, not accumulated).
 */
static void test_mnist_sized(void **state)
{
	fixture *f = *state;
	const size_t rows = 1000, cols = 784;
	size_t dim0 = 0, dim1 = 1;
	static const size_t all[] = {0, 1};
	float *x = malloc(rows * cols * sizeof(*x));
	float *got = malloc(cols * sizeof(*got));
	double *want = malloc(cols * sizeof(*want));
	tsi_tensor *in = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(1000, 784), "images");
	tsi_tensor *colsum, *rowmax, *sq;
	double total = 0;
	float got_sq;

	assert_non_null(x);
	assert_non_null(got);
	assert_non_null(want);
	assert_int_equal(tsi_graph_map_linearly(f->graph, in, 1), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f->graph, "images", in), TSI_OK);
	colsum = tsi_popops_reduce(f->graph, in, &dim0, 1, TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT,
	                           f->seq, "ColSum");
	rowmax = tsi_popops_reduce(f->graph, in, &dim1, 1, TSI_POPOPS_REDUCE_MAX, 1.0f, TSI_FLOAT,
	                           f->seq, "RowMax");
	sq = tsi_popops_reduce(f->graph, in, all, 2, TSI_POPOPS_REDUCE_SQUARE_ADD, 1.0f, TSI_FLOAT,
	                       f->seq, "SumSq");
	assert_non_null(colsum);
	assert_non_null(rowmax);
	assert_non_null(sq);
	assert_int_equal(tsi_tensor_dim(colsum, 0), cols);
	assert_int_equal(tsi_tensor_dim(rowmax, 0), rows);
	/* linear over the tiles: the first output on tile 0, the last further on */
	assert_int_equal(tsi_graph_get_tile_of(f->graph, colsum, 0), 0);
	assert_true(tsi_graph_get_tile_of(f->graph, colsum, cols - 1) > 8);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "colsum", colsum), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "rowmax", rowmax), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "sq", sq), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	for (size_t i = 0; i < rows * cols; i++)
		x[i] = (float)((i * 31 + i / cols) % 17) - 8.0f;
	assert_int_equal(tsi_engine_write_tensor(f->engine, "images", x, rows * cols * sizeof(*x)),
	                 TSI_OK);
	for (int pass = 0; pass < 2; pass++) {
		tsi_test_run(f->engine, 0);
		host_reduce(x, rows, cols, true, TSI_POPOPS_REDUCE_ADD, 1, want);
		tsi_test_read_floats(f->engine, "colsum", got, cols);
		for (size_t j = 0; j < cols; j++)
			assert_close(got[j], want[j], 0);
	}
	{
		float *rm = malloc(rows * sizeof(*rm));
		double *wm = malloc(rows * sizeof(*wm));

		assert_non_null(rm);
		assert_non_null(wm);
		host_reduce(x, rows, cols, false, TSI_POPOPS_REDUCE_MAX, 1, wm);
		tsi_test_read_floats(f->engine, "rowmax", rm, rows);
		for (size_t i = 0; i < rows; i++)
			assert_close(rm[i], wm[i], 0);
		free(rm);
		free(wm);
	}
	for (size_t i = 0; i < rows * cols; i++)
		total += (double)x[i] * x[i];
	tsi_test_read_floats(f->engine, "sq", &got_sq, 1);
	/* about 1.9e7 is past 2^24: float keeps it to a few units */
	assert_close(got_sq, total, 1e-6 * total);
	free(x);
	free(got);
	free(want);
}

/*
 * Types: half in, float out (sums beyond half's range of exact integers
 * stay exact in the float partials) and half out; int in, int out; float
 * in, int out (truncated toward zero).
 */
static void test_types(void **state)
{
	fixture *f = *state;
	size_t dim0 = 0;
	uint16_t hx[64], hgot[4];
	int32_t ix[64], igot[4];
	float fx[64], fgot[4];
	tsi_tensor *h = input(f, TSI_HALF, TSI_SHAPE(16, 4), 0, 3, "h");
	tsi_tensor *i = input(f, TSI_INT, TSI_SHAPE(16, 4), 1, 3, "i");
	tsi_tensor *fl = input(f, TSI_FLOAT, TSI_SHAPE(16, 4), 2, 3, "f");
	tsi_tensor *h2f = tsi_popops_reduce(f->graph, h, &dim0, 1, TSI_POPOPS_REDUCE_ADD, 1.0f,
	                                    TSI_FLOAT, f->seq, "HalfToFloat");
	tsi_tensor *h2h = tsi_popops_reduce(f->graph, h, &dim0, 1, TSI_POPOPS_REDUCE_ADD, 0.5f,
	                                    TSI_HALF, f->seq, "HalfToHalf");
	tsi_tensor *i2i = tsi_popops_reduce(f->graph, i, &dim0, 1, TSI_POPOPS_REDUCE_SQUARE_ADD, 1.0f,
	                                    TSI_INT, f->seq, "IntSq");
	tsi_tensor *f2i = tsi_popops_reduce(f->graph, fl, &dim0, 1, TSI_POPOPS_REDUCE_ADD, 1.0f,
	                                    TSI_INT, f->seq, "FloatToInt");

	assert_non_null(h2f);
	assert_non_null(h2h);
	assert_non_null(i2i);
	assert_non_null(f2i);
	assert_int_equal(tsi_tensor_type(h2h), TSI_HALF);
	assert_int_equal(tsi_tensor_type(i2i), TSI_INT);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "h2f", h2f), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "h2h", h2h), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "i2i", i2i), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "f2i", f2i), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	for (size_t k = 0; k < 64; k++) {
		hx[k] = tsi_half_from_float(1000.0f + (float)k); /* exact in half */
		ix[k] = (int32_t)k - 20;
		fx[k] = (k % 4 == 3) ? -0.375f : 0.75f;
	}
	assert_int_equal(tsi_engine_write_tensor(f->engine, "h", hx, sizeof(hx)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "i", ix, sizeof(ix)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "f", fx, sizeof(fx)), TSI_OK);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "h2f", fgot, 4);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "h2h", hgot, sizeof(hgot)), TSI_OK);
	for (size_t c = 0; c < 4; c++) {
		double sum = 0;

		for (size_t r = 0; r < 16; r++)
			sum += 1000.0 + (double)(r * 4 + c);
		assert_close(fgot[c], sum, 0);
		assert_int_equal(hgot[c], tsi_half_from_float((float)(sum * 0.5)));
	}
	assert_int_equal(tsi_engine_read_tensor(f->engine, "i2i", igot, sizeof(igot)), TSI_OK);
	for (size_t c = 0; c < 4; c++) {
		int32_t sum = 0;

		for (size_t r = 0; r < 16; r++)
			sum += ix[r * 4 + c] * ix[r * 4 + c];
		assert_int_equal(igot[c], sum);
	}
	assert_int_equal(tsi_engine_read_tensor(f->engine, "f2i", igot, sizeof(igot)), TSI_OK);
	assert_int_equal(igot[0], 12); /* 16 * 0.75 */
	assert_int_equal(igot[3], -6); /* 16 * -0.375 */
}

/* The host's reduction of column c of the unsigned [rows, 4] matrix x:
 * C's unsigned arithmetic. */
static uint32_t host_reduce_u(const uint32_t *x, size_t rows, size_t c, tsi_popops_reduce_op op)
{
	uint32_t acc = op == TSI_POPOPS_REDUCE_MUL ? 1u : op == TSI_POPOPS_REDUCE_MIN ? UINT32_MAX : 0u;

	for (size_t r = 0; r < rows; r++) {
		uint32_t v = x[r * 4 + c];

		switch (op) {
		case TSI_POPOPS_REDUCE_ADD:
			acc += v;
			break;
		case TSI_POPOPS_REDUCE_MUL:
			acc *= v;
			break;
		case TSI_POPOPS_REDUCE_MAX:
			acc = v > acc ? v : acc;
			break;
		case TSI_POPOPS_REDUCE_MIN:
			acc = v < acc ? v : acc;
			break;
		default:
			acc += v * v;
			break;
		}
	}
	return acc;
}

/*
 * Unsigned int: every operation over the rows of a [16, 4] matrix whose
 * values lie above INT32_MAX, on one tile (one stage) and over three
 * (two stages, unsigned partials): sums above INT32_MAX stay exact, sums
 * past 2^32 wrap, max and min compare as unsigned. An unsigned input
 * also reduces into a float output, and everything into a single
 * unsigned count (the sum of calc_accuracy's counts).
 */
static void test_unsigned(void **state)
{
	fixture *f = *state;
	static const tsi_popops_reduce_op ops[] = {TSI_POPOPS_REDUCE_ADD, TSI_POPOPS_REDUCE_MUL,
	                                           TSI_POPOPS_REDUCE_MAX, TSI_POPOPS_REDUCE_MIN,
	                                           TSI_POPOPS_REDUCE_SQUARE_ADD};
	size_t dim0 = 0;
	const size_t all[] = {0, 1};
	uint32_t x[64], got[4], total;
	float fgot[4];
	char h[16];
	tsi_tensor *one = input(f, TSI_UNSIGNED_INT, TSI_SHAPE(16, 4), 4, 1, "one");
	tsi_tensor *three = input(f, TSI_UNSIGNED_INT, TSI_SHAPE(16, 4), 5, 3, "three");
	tsi_tensor *tof, *sum;

	for (size_t k = 0; k < 5; k++) {
		tsi_tensor *r1 = tsi_popops_reduce(f->graph, one, &dim0, 1, ops[k], 1.0f,
		                                   TSI_UNSIGNED_INT, f->seq, NULL);
		tsi_tensor *r3 = tsi_popops_reduce(f->graph, three, &dim0, 1, ops[k], 1.0f,
		                                   TSI_UNSIGNED_INT, f->seq, NULL);

		assert_non_null(r1);
		assert_non_null(r3);
		assert_int_equal(tsi_tensor_type(r3), TSI_UNSIGNED_INT);
		snprintf(h, sizeof(h), "one%zu", k);
		assert_int_equal(tsi_graph_create_host_read(f->graph, h, r1), TSI_OK);
		snprintf(h, sizeof(h), "three%zu", k);
		assert_int_equal(tsi_graph_create_host_read(f->graph, h, r3), TSI_OK);
	}
	tof = tsi_popops_reduce(f->graph, three, &dim0, 1, TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT,
	                        f->seq, "UToFloat");
	sum = tsi_popops_reduce(f->graph, three, all, 2, TSI_POPOPS_REDUCE_ADD, 1.0f,
	                        TSI_UNSIGNED_INT, f->seq, "Total");
	assert_non_null(tof);
	assert_non_null(sum);
	assert_int_equal(tsi_tensor_rank(sum), 0);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "tof", tof), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "sum", sum), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	/* Column 0: 16 x 200000000 = 3.2e9, above INT32_MAX and below 2^32;
	 * column 1: 16 x 3e9, which wraps; column 2 mixes values above and
	 * below INT32_MAX (max and min differ from a signed comparison);
	 * column 3: small values whose product is exact. */
	for (size_t r = 0; r < 16; r++) {
		x[r * 4 + 0] = 200000000u;
		x[r * 4 + 1] = 3000000000u;
		x[r * 4 + 2] = r % 2 ? 4000000000u - (uint32_t)r : 1000u + (uint32_t)r;
		x[r * 4 + 3] = 1u + (uint32_t)(r % 3 == 0);
	}
	assert_int_equal(tsi_engine_write_tensor(f->engine, "one", x, sizeof(x)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "three", x, sizeof(x)), TSI_OK);
	tsi_test_run(f->engine, 0);
	for (size_t k = 0; k < 5; k++) {
		for (int t = 0; t < 2; t++) {
			snprintf(h, sizeof(h), "%s%zu", t ? "three" : "one", k);
			assert_int_equal(tsi_engine_read_tensor(f->engine, h, got, sizeof(got)), TSI_OK);
			for (size_t c = 0; c < 4; c++)
				assert_int_equal(got[c], host_reduce_u(x, 16, c, ops[k]));
		}
	}
	assert_int_equal(tsi_engine_read_tensor(f->engine, "three0", got, sizeof(got)), TSI_OK);
	assert_int_equal(got[0], 3200000000u);
	assert_int_equal(got[1], (uint32_t)(48000000000ull & 0xffffffffu));
	assert_int_equal(tsi_engine_read_tensor(f->engine, "three2", got, sizeof(got)), TSI_OK);
	assert_int_equal(got[2], 3999999999u);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "three3", got, sizeof(got)), TSI_OK);
	assert_int_equal(got[2], 1000u);
	tsi_test_read_floats(f->engine, "tof", fgot, 4);
	assert_close(fgot[0], 3200000000.0, 0);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "sum", &total, sizeof(total)), TSI_OK);
	{
		uint32_t want = 0;

		for (size_t k = 0; k < 64; k++)
			want += x[k];
		assert_int_equal(total, want);
	}
}

/* Views as inputs: a transposed matrix, and a slice of columns. */
static void test_view_inputs(void **state)
{
	fixture *f = *state;
	size_t dim0 = 0, dim1 = 1;
	float x[60], got[10];
	double want[10];
	tsi_tensor *in = input(f, TSI_FLOAT, TSI_SHAPE(6, 10), 0, 5, "x");
	tsi_tensor *t = tsi_tensor_transpose(in);                 /* [10, 6] */
	tsi_tensor *cols = tsi_tensor_slice_dim(in, 2, 7, 1);     /* [6, 5] */
	tsi_tensor *rt = tsi_popops_reduce(f->graph, t, &dim1, 1, TSI_POPOPS_REDUCE_ADD, 1.0f,
	                                   TSI_FLOAT, f->seq, "T");
	tsi_tensor *rc = tsi_popops_reduce(f->graph, cols, &dim0, 1, TSI_POPOPS_REDUCE_MIN, 1.0f,
	                                   TSI_FLOAT, f->seq, "Cols");

	assert_non_null(rt);
	assert_non_null(rc);
	assert_int_equal(tsi_tensor_dim(rt, 0), 10);
	assert_int_equal(tsi_tensor_dim(rc, 0), 5);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "rt", rt), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "rc", rc), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	fill_values(x, 60);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "x", x, sizeof(x)), TSI_OK);
	tsi_test_run(f->engine, 0);
	host_reduce(x, 6, 10, true, TSI_POPOPS_REDUCE_ADD, 1, want);
	tsi_test_read_floats(f->engine, "rt", got, 10);
	for (size_t i = 0; i < 10; i++)
		assert_close(got[i], want[i], 0);
	host_reduce(x, 6, 10, true, TSI_POPOPS_REDUCE_MIN, 1, want);
	tsi_test_read_floats(f->engine, "rc", got, 5);
	for (size_t i = 0; i < 5; i++)
		assert_close(got[i], want[i + 2], 0);
}

/* No dimensions: the operation applies to each element alone (square
 * and scale); a reduced dimension of size 0 gives the identity. */
static void test_degenerate(void **state)
{
	fixture *f = *state;
	size_t dim0 = 0;
	float x[6] = {1, -2, 3, -4, 5, -6}, got[6];
	tsi_tensor *in = input(f, TSI_FLOAT, TSI_SHAPE(2, 3), 3, 2, "x");
	tsi_tensor *empty = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(0, 3), "empty");
	tsi_tensor *sq = tsi_popops_reduce(f->graph, in, NULL, 0, TSI_POPOPS_REDUCE_SQUARE_ADD, 2.0f,
	                                   TSI_FLOAT, f->seq, "Sq");
	tsi_tensor *emax = tsi_popops_reduce(f->graph, empty, &dim0, 1, TSI_POPOPS_REDUCE_MAX, 1.0f,
	                                     TSI_FLOAT, f->seq, "EmptyMax");
	tsi_tensor *emul = tsi_popops_reduce(f->graph, empty, &dim0, 1, TSI_POPOPS_REDUCE_MUL, 3.0f,
	                                     TSI_FLOAT, f->seq, "EmptyMul");

	assert_non_null(sq);
	assert_non_null(emax);
	assert_non_null(emul);
	assert_int_equal(tsi_tensor_rank(sq), 2);
	assert_int_equal(tsi_tensor_numel(emax), 3);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "sq", sq), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "emax", emax), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "emul", emul), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "x", x, sizeof(x)), TSI_OK);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "sq", got, 6);
	for (size_t i = 0; i < 6; i++)
		assert_close(got[i], 2 * x[i] * x[i], 0);
	tsi_test_read_floats(f->engine, "emax", got, 3);
	for (size_t i = 0; i < 3; i++)
		assert_true(isinf(got[i]) && got[i] < 0);
	tsi_test_read_floats(f->engine, "emul", got, 3);
	for (size_t i = 0; i < 3; i++)
		assert_close(got[i], 3, 0);
}

/* Bad dimensions and types are recorded with the operation's name and
 * the input's; a NULL input after that passes quietly. */
static void test_errors(void **state)
{
	fixture *f = *state;
	tsi_tensor *in = input(f, TSI_FLOAT, TSI_SHAPE(2, 3), 0, 1, "x");
	tsi_tensor *b = tsi_graph_add_variable(f->graph, TSI_BOOL, TSI_SHAPE(2), "flags");
	size_t bad = 2;
	static const size_t twice[] = {1, 1};
	char first[512];
	tsi_graph *g = NULL;

	assert_null(tsi_popops_reduce(f->graph, in, &bad, 1, TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT,
	                              f->seq, "BadDim"));
	assert_int_equal(tsi_graph_error_code(f->graph), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "'BadDim'"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "dimension 2 is out of range"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "'x'"));
	assert_non_null(strstr(tsi_graph_get_error(f->graph), "{2,3}"));
	snprintf(first, sizeof(first), "%s", tsi_graph_get_error(f->graph));
	assert_null(tsi_popops_reduce(f->graph, NULL, &bad, 1, TSI_POPOPS_REDUCE_ADD, 1.0f,
	                              TSI_FLOAT, f->seq, "Quiet"));
	assert_string_equal(tsi_graph_get_error(f->graph), first);
	assert_null(tsi_popops_reduce(NULL, in, &bad, 1, TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT,
	                              f->seq, NULL));

	/* fresh graphs for the other messages */
	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	in = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 3), "y");
	assert_null(tsi_popops_reduce(g, in, twice, 2, TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT,
	                              tsi_prog_sequence(g, NULL), NULL));
	assert_non_null(strstr(tsi_graph_get_error(g), "'Reduce'"));
	assert_non_null(strstr(tsi_graph_get_error(g), "dimension 1 of input 'y'"));
	assert_non_null(strstr(tsi_graph_get_error(g), "listed twice"));
	tsi_graph_free(g);

	g = NULL;
	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK);
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	b = tsi_graph_add_variable(g, TSI_BOOL, TSI_SHAPE(2), "flags");
	assert_null(tsi_popops_reduce(g, b, twice, 1, TSI_POPOPS_REDUCE_MAX, 1.0f, TSI_FLOAT,
	                              tsi_prog_sequence(g, NULL), "B"));
	assert_non_null(strstr(tsi_graph_get_error(g), "'flags' has type bool"));
	assert_non_null(strstr(tsi_graph_get_error(g), "(float, half, int or unsigned int only)"));
	tsi_graph_free(g);

	g = NULL;
	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK);
	b = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2), "nocodelets");
	assert_int_equal(tsi_graph_set_tile_mapping(g, b, 0), TSI_OK);
	assert_null(tsi_popops_reduce(g, b, twice, 0, TSI_POPOPS_REDUCE_MAX, 1.0f, TSI_FLOAT,
	                              tsi_prog_sequence(g, NULL), "NC"));
	assert_int_equal(tsi_graph_error_code(g), TSI_ERR_UNKNOWN_VERTEX_TYPE);
	assert_non_null(strstr(tsi_graph_get_error(g), "tsi_popops_add_codelets"));
	tsi_graph_free(g);
}

/* The codelets are registered under Poplar's names with their fields. */
static void test_codelet_names(void **state)
{
	fixture *f = *state;
	const tsi_codelet *c =
	    tsi_graph_lookup_codelet(f->graph, "popops::Reduce<popops::ReduceAdd,float,float,false,0>");
	const tsi_codelet *s = tsi_graph_lookup_codelet(
	    f->graph, "popops::ScaledReduce<popops::ReduceSquareAdd,half,float,false,0>");

	assert_non_null(c);
	assert_non_null(s);
	assert_int_equal(c->n_fields, 2);
	assert_int_equal(s->n_fields, 3);
	assert_string_equal(c->fields[0].name, "out");
	assert_string_equal(c->fields[1].name, "partials");
	assert_string_equal(s->fields[2].name, "k");
	assert_int_equal(s->fields[1].type, TSI_HALF);
	assert_int_equal(c->fields[1].shape, TSI_FIELD_VECTOR_LIST);
	assert_non_null(
	    tsi_graph_lookup_codelet(f->graph, "popops::Reduce<popops::ReduceMax,int,int,false,0>"));
	assert_non_null(c->flops);
	/* Unsigned int: every operation, to itself and to float, with int's
	 * state, code size and cycles, and no FLOPs. */
	{
		static const char *const ops[] = {"ReduceAdd", "ReduceMul", "ReduceMax", "ReduceMin",
		                                  "ReduceSquareAdd"};
		static const size_t offsets[] = {0, 4}, in_offsets[] = {0, 400};
		uint32_t out[4] = {0}, in[400] = {0};
		float k = 1.0f;
		tsi_field fields[3] = {{out, 4, 1, offsets}, {in, 400, 1, in_offsets}, {&k, 1, 1, NULL}};
		char iname[128], uname[128];

		for (size_t o = 0; o < 5; o++) {
			for (int scaled = 0; scaled < 2; scaled++) {
				const char *kind = scaled ? "ScaledReduce" : "Reduce";
				const tsi_codelet *ci, *cu;

				snprintf(iname, sizeof(iname), "popops::%s<popops::%s,int,int,false,0>", kind,
				         ops[o]);
				snprintf(uname, sizeof(uname),
				         "popops::%s<popops::%s,unsigned int,unsigned int,false,0>", kind, ops[o]);
				ci = tsi_graph_lookup_codelet(f->graph, iname);
				cu = tsi_graph_lookup_codelet(f->graph, uname);
				if (!cu)
					fail_msg("missing codelet %s", uname);
				assert_non_null(ci);
				assert_int_equal(cu->fields[0].type, TSI_UNSIGNED_INT);
				assert_int_equal(cu->fields[1].type, TSI_UNSIGNED_INT);
				assert_int_equal(cu->state_bytes, ci->state_bytes);
				assert_int_equal(cu->code_bytes, ci->code_bytes);
				assert_null(cu->flops);
				assert_int_equal(cu->cycles(fields, cu->n_fields, NULL),
				                 ci->cycles(fields, ci->n_fields, NULL));
				snprintf(uname, sizeof(uname), "popops::%s<popops::%s,unsigned int,float,false,0>",
				         kind, ops[o]);
				if (!tsi_graph_lookup_codelet(f->graph, uname))
					fail_msg("missing codelet %s", uname);
			}
		}
	}
	assert_non_null(c->cycles);
	assert_true(c->state_bytes > 0 && c->code_bytes > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_op_each_dim, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_all_dims, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_one_tile_and_four, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_mnist_sized, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_types, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_unsigned, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_view_inputs, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_degenerate, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_errors, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_codelet_names, setup, tsi_test_model_delete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
