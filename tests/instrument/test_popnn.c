/*
 * Unit tests of popnn (tilescope/popnn.h): the non-linearities and their
 * gradients against host formulas, softmax (stable for large inputs, a
 * finite-difference check of its gradient), both losses, accuracy with
 * ties and out-of-range labels, tensors spread over several tiles and
 * split over several vertices, and the errors recorded for bad operands.
 */
#include "test-util.h"

#include <tilescope/ipu.h>
#include <tilescope/popnn.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N_TILES 16

/* A 16-tile IPU Model with a graph that has the popnn codelets. */
typedef tsi_test_model fixture;

/* Creates the fixture: device, graph with codelets, empty sequence. */
static int setup(void **state)
{
	fixture *f = tsi_test_model_new(N_TILES);

	assert_int_equal(tsi_popnn_add_codelets(f->graph), TSI_OK);
	assert_int_equal(tsi_popnn_add_codelets(f->graph), TSI_OK); /* twice is harmless */
	*state = f;
	return 0;
}

/* A variable with a host write handle of its own name, element i on tile
 * tiles[(i / block) % n_tiles]. */
static tsi_tensor *make_var(fixture *f, tsi_type type, size_t rank, const size_t *shape,
                            size_t block, const unsigned *tiles, size_t n_tiles, const char *name)
{
	tsi_tensor *v = tsi_graph_add_variable(f->graph, type, rank, shape, name);
	tsi_tensor *flat = tsi_tensor_flatten(v);
	size_t n = tsi_tensor_numel(v);

	assert_non_null(v);
	for (size_t b = 0; b * block < n; b++) {
		size_t end = (b + 1) * block < n ? (b + 1) * block : n;
		assert_int_equal(tsi_graph_set_tile_mapping(f->graph, tsi_tensor_slice(flat, b * block, end),
		                                            tiles[b % n_tiles]),
		                 TSI_OK);
	}
	assert_int_equal(tsi_graph_create_host_write(f->graph, name, v), TSI_OK);
	return v;
}

/* The host reference of the elementwise non-linearities. */
static double host_nl(tsi_popnn_nonlinearity_type nl, double x)
{
	switch (nl) {
	case TSI_POPNN_RELU:
		return x > 0 ? x : 0;
	case TSI_POPNN_SIGMOID:
		return 1 / (1 + exp(-x));
	case TSI_POPNN_TANH:
		return tanh(x);
	default:
		return NAN;
	}
}

/* The host reference of the elementwise gradients, from the output y. */
static double host_grad(tsi_popnn_nonlinearity_type nl, double y, double g)
{
	switch (nl) {
	case TSI_POPNN_RELU:
		return y > 0 ? g : 0;
	case TSI_POPNN_SIGMOID:
		return g * y * (1 - y);
	case TSI_POPNN_TANH:
		return g * (1 - y * y);
	default:
		return NAN;
	}
}

/* A stable host softmax of `n` values into out (double). */
static void host_softmax(const float *x, size_t n, double *out)
{
	double m = x[0], s = 0;

	for (size_t i = 1; i < n; i++)
		m = x[i] > m ? x[i] : m;
	for (size_t i = 0; i < n; i++)
		s += out[i] = exp(x[i] - m);
	for (size_t i = 0; i < n; i++)
		out[i] /= s;
}

static const unsigned four_tiles[] = {0, 1, 2, 3};
static const unsigned tiles_5_9[] = {5, 9};
static const unsigned tile_7[] = {7};

/* --- Elementwise ------------------------------------------------------------------ */

/* ReLU, sigmoid and tanh of 24 floats over 4 tiles match the host
 * formulas; results are "<name>/out", mapped like the input, and the
 * input is unchanged. */
static void test_elementwise_float(void **state)
{
	fixture *f = *state;
	static const tsi_popnn_nonlinearity_type nls[] = {TSI_POPNN_RELU, TSI_POPNN_SIGMOID,
	                                                  TSI_POPNN_TANH};
	static const char *const names[] = {"relu", "sigmoid", "tanh"};
	float x[24], got[24];
	tsi_tensor *in = make_var(f, TSI_FLOAT, TSI_SHAPE(4, 6), 5, four_tiles, 4, "x");
	tsi_tensor *outs[3];

	for (size_t i = 0; i < 24; i++)
		x[i] = -6.0f + 0.5f * (float)i + (i % 3 == 0 ? 0.125f : 0.0f);
	x[7] = 0.0f;
	for (size_t k = 0; k < 3; k++) {
		outs[k] = tsi_popnn_nonlinearity(f->graph, nls[k], in, f->seq, names[k]);
		assert_non_null(outs[k]);
		assert_int_equal(tsi_tensor_type(outs[k]), TSI_FLOAT);
		assert_int_equal(tsi_tensor_rank(outs[k]), 2);
		assert_int_equal(tsi_tensor_dim(outs[k], 1), 6);
		for (size_t i = 0; i < 24; i++)
			assert_int_equal(tsi_graph_get_tile_of(f->graph, outs[k], i), four_tiles[(i / 5) % 4]);
		assert_int_equal(tsi_graph_create_host_read(f->graph, names[k], outs[k]), TSI_OK);
	}
	assert_string_equal(tsi_tensor_name(outs[0]), "relu/out");
	assert_string_equal(tsi_tensor_name(outs[2]), "tanh/out");
	assert_int_equal(tsi_graph_create_host_read(f->graph, "x_read", in), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_floats(f->engine, "x", x, 24);
	tsi_test_run(f->engine, 0);
	for (size_t k = 0; k < 3; k++) {
		tsi_test_read_floats(f->engine, names[k], got, 24);
		for (size_t i = 0; i < 24; i++)
			assert_close(got[i], host_nl(nls[k], x[i]), 1e-6);
	}
	tsi_test_read_floats(f->engine, "x_read", got, 24);
	for (size_t i = 0; i < 24; i++)
		assert_close(got[i], x[i], 0);
}

/* Half inputs: results within half precision of the host formulas,
 * including ReLU of negative zero and extreme inputs. */
static void test_elementwise_half(void **state)
{
	fixture *f = *state;
	static const tsi_popnn_nonlinearity_type nls[] = {TSI_POPNN_RELU, TSI_POPNN_SIGMOID,
	                                                  TSI_POPNN_TANH};
	static const char *const names[] = {"relu", "sigmoid", "tanh"};
	float x[12] = {-3, -1.5f, -0.0f, 0, 0.25f, 1, 2.5f, 4, -20, 20, 0.1f, -0.1f};
	float got[12];
	tsi_tensor *in = make_var(f, TSI_HALF, TSI_SHAPE(12), 4, tiles_5_9, 2, "x");

	for (size_t k = 0; k < 3; k++) {
		tsi_tensor *out = tsi_popnn_nonlinearity(f->graph, nls[k], in, f->seq, names[k]);
		assert_non_null(out);
		assert_int_equal(tsi_tensor_type(out), TSI_HALF);
		assert_int_equal(tsi_graph_create_host_read(f->graph, names[k], out), TSI_OK);
	}
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_halves(f->engine, "x", x, 12);
	tsi_test_run(f->engine, 0);
	for (size_t k = 0; k < 3; k++) {
		tsi_test_read_halves(f->engine, names[k], got, 12);
		for (size_t i = 0; i < 12; i++) {
			double want = host_nl(nls[k], tsi_half_to_float(tsi_half_from_float(x[i])));
			assert_close(got[i], want, 1e-3 * (1 + fabs(want)));
		}
	}
	tsi_test_read_halves(f->engine, "relu", got, 12);
	assert_false(signbit(got[2])); /* relu(-0) is +0 */
}

/* The in-place forms update the tensor itself, on a slice view too. */
static void test_in_place(void **state)
{
	fixture *f = *state;
	float x[8] = {-2, -1, 0.5f, 3, -0.5f, 1, 2, -4};
	float got[8];
	tsi_tensor *v = make_var(f, TSI_FLOAT, TSI_SHAPE(8), 3, four_tiles, 4, "v");

	assert_int_equal(tsi_graph_create_host_read(f->graph, "v_read", v), TSI_OK);
	assert_int_equal(tsi_popnn_nonlinearity_in_place(f->graph, TSI_POPNN_RELU,
	                                                 tsi_tensor_slice(v, 0, 4), f->seq, NULL),
	                 TSI_OK);
	assert_int_equal(tsi_popnn_nonlinearity_in_place(f->graph, TSI_POPNN_SIGMOID,
	                                                 tsi_tensor_slice(v, 4, 8), f->seq, NULL),
	                 TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_floats(f->engine, "v", x, 8);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "v_read", got, 8);
	for (size_t i = 0; i < 8; i++)
		assert_close(got[i], host_nl(i < 4 ? TSI_POPNN_RELU : TSI_POPNN_SIGMOID, x[i]), 1e-6);
}

/* The gradients of ReLU, sigmoid and tanh (float and half) from the
 * forward output and an upstream gradient. */
static void test_elementwise_grads(void **state)
{
	fixture *f = *state;
	static const tsi_popnn_nonlinearity_type nls[] = {TSI_POPNN_RELU, TSI_POPNN_SIGMOID,
	                                                  TSI_POPNN_TANH};
	static const char *const names[] = {"g_relu", "g_sigmoid", "g_tanh"};
	static const char *const half_names[] = {"h_relu", "h_sigmoid", "h_tanh"};
	float y[10] = {0, 0.5f, 0.9f, -0.3f, 0.01f, 2, 0.25f, -0.0f, 0.75f, 1};
	float g[10] = {1, -2, 0.5f, 3, 1.5f, -1, 0.25f, 7, -0.5f, 2};
	float got[10];
	tsi_tensor *out = make_var(f, TSI_FLOAT, TSI_SHAPE(2, 5), 3, four_tiles, 4, "y");
	tsi_tensor *og = make_var(f, TSI_FLOAT, TSI_SHAPE(2, 5), 10, tile_7, 1, "g");
	tsi_tensor *hout = make_var(f, TSI_HALF, TSI_SHAPE(10), 2, tiles_5_9, 2, "hy");
	tsi_tensor *hog = make_var(f, TSI_HALF, TSI_SHAPE(10), 10, tile_7, 1, "hg");

	for (size_t k = 0; k < 3; k++) {
		tsi_tensor *ig = tsi_popnn_nonlinearity_grad(f->graph, nls[k], out, og, f->seq, names[k]);
		tsi_tensor *hig = tsi_popnn_nonlinearity_grad(f->graph, nls[k], hout, hog, f->seq,
		                                              half_names[k]);
		assert_non_null(ig);
		assert_non_null(hig);
		/* mapped like out_grad */
		assert_int_equal(tsi_graph_get_tile_of(f->graph, ig, 3), 7);
		assert_int_equal(tsi_graph_create_host_read(f->graph, names[k], ig), TSI_OK);
		assert_int_equal(tsi_graph_create_host_read(f->graph, half_names[k], hig), TSI_OK);
	}
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_floats(f->engine, "y", y, 10);
	tsi_test_write_floats(f->engine, "g", g, 10);
	tsi_test_write_halves(f->engine, "hy", y, 10);
	tsi_test_write_halves(f->engine, "hg", g, 10);
	tsi_test_run(f->engine, 0);
	for (size_t k = 0; k < 3; k++) {
		tsi_test_read_floats(f->engine, names[k], got, 10);
		for (size_t i = 0; i < 10; i++)
			assert_close(got[i], host_grad(nls[k], y[i], g[i]), 1e-6);
		tsi_test_read_halves(f->engine, half_names[k], got, 10);
		for (size_t i = 0; i < 10; i++) {
			double want = host_grad(nls[k], tsi_half_to_float(tsi_half_from_float(y[i])), g[i]);
			assert_close(got[i], want, 2e-3 * (1 + fabs(want)));
		}
	}
}

/* --- Softmax ---------------------------------------------------------------------- */

/* Softmax of rows spread over tiles (one row split across two tiles),
 * including large inputs such as 1000 and 1001 that would overflow a
 * naive exp: every row sums to 1 and matches a host softmax. */
static void test_softmax(void **state)
{
	fixture *f = *state;
	enum { R = 4, C = 5 };
	float x[R * C] = {
		1, 2, 3, 4, 5,
		1000, 1001, 999, 1000.5f, 998,
		-1000, -1001, -999, -1002, -1000,
		0, 0, 0, 0, 0,
	};
	float got[R * C];
	double want[C];
	/* blocks of 3: row 0 on tiles 0/1, row 1 on tiles 1/2/3 ... */
	tsi_tensor *in = make_var(f, TSI_FLOAT, TSI_SHAPE(R, C), 3, four_tiles, 4, "x");
	tsi_tensor *out = tsi_popnn_nonlinearity(f->graph, TSI_POPNN_SOFTMAX, in, f->seq, NULL);

	assert_non_null(out);
	assert_string_equal(tsi_tensor_name(out), "SoftMax/out");
	assert_int_equal(tsi_graph_create_host_read(f->graph, "out", out), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_floats(f->engine, "x", x, R * C);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "out", got, R * C);
	for (size_t r = 0; r < R; r++) {
		double sum = 0;

		host_softmax(x + r * C, C, want);
		for (size_t c = 0; c < C; c++) {
			assert_true(isfinite(got[r * C + c]));
			assert_close(got[r * C + c], want[c], 1e-6);
			sum += got[r * C + c];
		}
		assert_close(sum, 1.0, 1e-5);
	}
	assert_close(got[5 + 1], 0.463063, 1e-5); /* 1 / (e^-1 + 1 + e^-2 + e^-.5 + e^-3) */
	assert_close(got[15], 0.2, 1e-6);
}

/* Softmax of half data, of a rank-3 tensor (over its last dimension), and
 * in place. */
static void test_softmax_half_rank3_in_place(void **state)
{
	fixture *f = *state;
	float x[2 * 3 * 4];
	float got[24];
	double want[4];
	tsi_tensor *h = make_var(f, TSI_HALF, TSI_SHAPE(2, 3, 4), 5, tiles_5_9, 2, "h");
	tsi_tensor *v = make_var(f, TSI_FLOAT, TSI_SHAPE(2, 3, 4), 7, four_tiles, 4, "v");
	tsi_tensor *hout = tsi_popnn_nonlinearity(f->graph, TSI_POPNN_SOFTMAX, h, f->seq, "hsm");

	for (size_t i = 0; i < 24; i++)
		x[i] = (float)((int)(i * 7 % 11) - 5) * 0.75f;
	assert_non_null(hout);
	assert_int_equal(tsi_tensor_rank(hout), 3);
	assert_int_equal(tsi_popnn_nonlinearity_in_place(f->graph, TSI_POPNN_SOFTMAX, v, f->seq,
	                                                 "sm"),
	                 TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "hout", hout), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "v_read", v), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_halves(f->engine, "h", x, 24);
	tsi_test_write_floats(f->engine, "v", x, 24);
	tsi_test_run(f->engine, 0);
	tsi_test_read_halves(f->engine, "hout", got, 24);
	for (size_t r = 0; r < 6; r++) {
		float xr[4];
		for (size_t c = 0; c < 4; c++)
			xr[c] = tsi_half_to_float(tsi_half_from_float(x[r * 4 + c]));
		host_softmax(xr, 4, want);
		for (size_t c = 0; c < 4; c++)
			assert_close(got[r * 4 + c], want[c], 1e-3);
	}
	tsi_test_read_floats(f->engine, "v_read", got, 24);
	for (size_t r = 0; r < 6; r++) {
		host_softmax(x + r * 4, 4, want);
		for (size_t c = 0; c < 4; c++)
			assert_close(got[r * 4 + c], want[c], 1e-6);
	}
}

/* Many rows on one tile are split over several vertices; every row is
 * still right (the split must not lose or repeat rows). */
static void test_softmax_many_rows(void **state)
{
	fixture *f = *state;
	enum { R = 70, C = 33 };
	float *x = malloc(R * C * sizeof(*x));
	float *got = malloc(R * C * sizeof(*got));
	double want[C];
	tsi_tensor *in, *out;

	assert_non_null(x);
	assert_non_null(got);
	for (size_t i = 0; i < R * C; i++)
		x[i] = (float)((i * 37) % 101) / 17.0f - 3.0f;
	/* rows 0..59 on tile 7, the rest on tiles 5/9 */
	in = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(R, C), "x");
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, tsi_tensor_slice(in, 0, 60), 7), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, tsi_tensor_slice(in, 60, 65), 5), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, tsi_tensor_slice(in, 65, 70), 9), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f->graph, "x", in), TSI_OK);
	out = tsi_popnn_nonlinearity(f->graph, TSI_POPNN_SOFTMAX, in, f->seq, "sm");
	assert_non_null(out);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "out", out), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_floats(f->engine, "x", x, R * C);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "out", got, R * C);
	for (size_t r = 0; r < R; r++) {
		host_softmax(x + r * C, C, want);
		for (size_t c = 0; c < C; c++)
			assert_close(got[r * C + c], want[c], 1e-6);
	}
	free(x);
	free(got);
}

/* The softmax gradient matches a central finite difference of
 * L(x) = sum_i g_i softmax(x)_i, given the device's own forward output. */
static void test_softmax_grad_finite_difference(void **state)
{
	fixture *f = *state;
	enum { R = 3, C = 6 };
	float x[R * C], g[R * C], y[R * C], got[R * C];
	tsi_tensor *in = make_var(f, TSI_FLOAT, TSI_SHAPE(R, C), 4, four_tiles, 4, "x");
	tsi_tensor *og = make_var(f, TSI_FLOAT, TSI_SHAPE(R, C), 5, tiles_5_9, 2, "g");
	tsi_tensor *out = tsi_popnn_nonlinearity(f->graph, TSI_POPNN_SOFTMAX, in, f->seq, "sm");
	tsi_tensor *ig = tsi_popnn_nonlinearity_grad(f->graph, TSI_POPNN_SOFTMAX, out, og, f->seq,
	                                             NULL);

	for (size_t i = 0; i < R * C; i++) {
		x[i] = (float)((int)(i * 5 % 13) - 6) * 0.4f;
		g[i] = (float)((int)(i * 3 % 7) - 3) * 0.5f;
	}
	assert_non_null(ig);
	assert_string_equal(tsi_tensor_name(ig), "SoftMaxGrad/out");
	assert_int_equal(tsi_graph_create_host_read(f->graph, "y", out), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "ig", ig), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_floats(f->engine, "x", x, R * C);
	tsi_test_write_floats(f->engine, "g", g, R * C);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "y", y, R * C);
	tsi_test_read_floats(f->engine, "ig", got, R * C);
	for (size_t r = 0; r < R; r++) {
		for (size_t c = 0; c < C; c++) {
			const double h = 1e-3;
			float xp[C], xm[C];
			double sp[C], sm[C], lp = 0, lm = 0;

			memcpy(xp, x + r * C, sizeof(xp));
			memcpy(xm, x + r * C, sizeof(xm));
			xp[c] += (float)h;
			xm[c] -= (float)h;
			host_softmax(xp, C, sp);
			host_softmax(xm, C, sm);
			for (size_t j = 0; j < C; j++) {
				lp += g[r * C + j] * sp[j];
				lm += g[r * C + j] * sm[j];
			}
			/* (float)h may differ from h: divide by the real step */
			assert_close(got[r * C + c], (lp - lm) / ((double)xp[c] - (double)xm[c]), 1e-4);
		}
	}
}

/* --- Losses ------------------------------------------------------------------------ */

/* Host loss and deltas with out-of-range labels selecting no class. */
static double host_loss(tsi_popnn_loss type, const float *p, const long *labels, size_t n,
                        size_t c, float *deltas)
{
	double loss = 0;

	for (size_t r = 0; r < n; r++) {
		for (size_t j = 0; j < c; j++) {
			double one = labels[r] >= 0 && (size_t)labels[r] == j;
			double d = p[r * c + j] - one;

			deltas[r * c + j] = (float)d;
			if (type == TSI_POPNN_SUM_SQUARED_LOSS)
				loss += 0.5 * d * d;
			else if (one)
				loss -= log(fmax(p[r * c + j], 1e-30));
		}
	}
	return loss;
}

/* Normalised pseudo-random probabilities (rows sum to 1). */
static void make_probs(float *p, size_t n, size_t c)
{
	for (size_t r = 0; r < n; r++) {
		float s = 0;
		for (size_t j = 0; j < c; j++)
			s += p[r * c + j] = 0.05f + (float)((r * 7 + j * 3) % 11);
		for (size_t j = 0; j < c; j++)
			p[r * c + j] /= s;
	}
}

/* Both losses with UNSIGNED_INT and INT labels for a batch of 6 spread
 * over tiles (one row split across tiles), with out-of-range labels (7
 * and -1) and a zero probability at a label for cross-entropy. */
static void test_calc_loss(void **state)
{
	fixture *f = *state;
	enum { N = 6, C = 5 };
	static const char *const loss_names[2][2] = {{"l_ss_u", "l_ss_i"}, {"l_ce_u", "l_ce_i"}};
	static const char *const delta_names[2][2] = {{"d_ss_u", "d_ss_i"}, {"d_ce_u", "d_ce_i"}};
	const uint32_t ulab[N] = {0, 4, 2, 7, 1, 3};
	const int32_t ilab[N] = {0, 4, -1, 2, 1, 3};
	const long ulab_l[N] = {0, 4, 2, 7, 1, 3};
	const long ilab_l[N] = {0, 4, -1, 2, 1, 3};
	float p[N * C], want_d[N * C], got_d[N * C], got;
	tsi_tensor *probs = make_var(f, TSI_FLOAT, TSI_SHAPE(N, C), 7, four_tiles, 4, "p");
	tsi_tensor *ul = make_var(f, TSI_UNSIGNED_INT, TSI_SHAPE(N), 2, tiles_5_9, 2, "ul");
	tsi_tensor *il = make_var(f, TSI_INT, TSI_SHAPE(N), 6, tile_7, 1, "il");

	make_probs(p, N, C);
	p[4 * C + 1] = 0.0f; /* row 4, label 1: log(0) clamps to log(1e-30) */
	for (int t = 0; t < 2; t++) {
		for (int l = 0; l < 2; l++) {
			tsi_tensor *loss = tsi_graph_add_variable(f->graph, TSI_FLOAT, 0, NULL,
			                                          loss_names[t][l]);
			tsi_tensor *deltas = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(N, C),
			                                            delta_names[t][l]);
			assert_int_equal(tsi_graph_set_tile_mapping(f->graph, loss, 11), TSI_OK);
			assert_int_equal(tsi_graph_map_linearly(f->graph, deltas, 4), TSI_OK);
			assert_int_equal(tsi_popnn_calc_loss(f->graph, probs, l ? il : ul, loss, deltas,
			                                     (tsi_popnn_loss)t, f->seq, loss_names[t][l]),
			                 TSI_OK);
			assert_int_equal(tsi_graph_create_host_read(f->graph, loss_names[t][l], loss),
			                 TSI_OK);
			assert_int_equal(tsi_graph_create_host_read(f->graph, delta_names[t][l], deltas),
			                 TSI_OK);
		}
	}
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_floats(f->engine, "p", p, N * C);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "ul", ulab, sizeof(ulab)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "il", ilab, sizeof(ilab)), TSI_OK);
	tsi_test_run(f->engine, 0);
	for (int t = 0; t < 2; t++) {
		for (int l = 0; l < 2; l++) {
			double want = host_loss((tsi_popnn_loss)t, p, l ? ilab_l : ulab_l, N, C, want_d);

			tsi_test_read_floats(f->engine, loss_names[t][l], &got, 1);
			assert_close(got, want, 1e-4 * (1 + fabs(want)));
			tsi_test_read_floats(f->engine, delta_names[t][l], got_d, N * C);
			for (size_t i = 0; i < N * C; i++)
				assert_close(got_d[i], want_d[i], 1e-6);
		}
	}
	/* the clamped log(1e-30) dominates the cross-entropy loss */
	tsi_test_read_floats(f->engine, "l_ce_u", &got, 1);
	assert_true(got > 69.0f);
}

/* A batch large enough to need several vertices (and partials) on one
 * tile: the loss is still the sum over all rows. */
static void test_calc_loss_many_rows(void **state)
{
	fixture *f = *state;
	enum { N = 64, C = 10 };
	float *p = malloc(N * C * sizeof(*p));
	float *want_d = malloc(N * C * sizeof(*want_d));
	uint32_t lab[N];
	long lab_l[N];
	float got;
	tsi_tensor *probs = make_var(f, TSI_FLOAT, TSI_SHAPE(N, C), N * C, tile_7, 1, "p");
	tsi_tensor *labels = make_var(f, TSI_UNSIGNED_INT, TSI_SHAPE(N), N, tile_7, 1, "lab");
	tsi_tensor *loss = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(1), "loss");
	tsi_tensor *deltas = tsi_graph_add_variable(f->graph, TSI_FLOAT, TSI_SHAPE(N, C), "deltas");

	assert_non_null(p);
	assert_non_null(want_d);
	make_probs(p, N, C);
	for (size_t r = 0; r < N; r++)
		lab_l[r] = lab[r] = (uint32_t)((r * 3) % C);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, loss, 0), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, deltas, 7), TSI_OK);
	assert_int_equal(tsi_popnn_calc_loss(f->graph, probs, labels, loss, deltas,
	                                     TSI_POPNN_CROSS_ENTROPY_LOSS, f->seq, NULL),
	                 TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "loss", loss), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_floats(f->engine, "p", p, N * C);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "lab", lab, sizeof(lab)), TSI_OK);
	tsi_test_run(f->engine, 0);
	tsi_test_read_floats(f->engine, "loss", &got, 1);
	assert_close(got, host_loss(TSI_POPNN_CROSS_ENTROPY_LOSS, p, lab_l, N, C, want_d), 1e-3);
	free(p);
	free(want_d);
}

/* --- Accuracy ------------------------------------------------------------------------ */

/* Arg-max with ties (the first maximum wins) against UNSIGNED_INT and INT
 * labels, with out-of-range labels never counting; float and half. */
static void test_calc_accuracy(void **state)
{
	fixture *f = *state;
	enum { N = 7, C = 4 };
	const float a[N * C] = {
		0.1f, 0.7f, 0.1f, 0.1f, /* max 1 */
		0.5f, 0.2f, 0.5f, 0.1f, /* tie 0 and 2: 0 wins */
		-3, -1, -2, -1,         /* tie 1 and 3: 1 wins */
		2, 2, 2, 2,             /* all tie: 0 */
		0, 0, 0, 9,             /* max 3 */
		1, 5, 3, 4,             /* max 1 */
		8, 1, 1, 1,             /* max 0 */
	};
	/* correct: 1 yes, 0 vs 2 no, 1 yes, 0 yes, 3 yes, label 9 out of range, -1/huge */
	const uint32_t ul[N] = {1, 2, 1, 0, 3, 9, 0xffffffffu};
	const int32_t il[N] = {1, 0, 3, 0, 3, 1, -1}; /* yes, yes, no, yes, yes, yes, no */
	uint32_t got;
	tsi_tensor *act = make_var(f, TSI_FLOAT, TSI_SHAPE(N, C), 3, four_tiles, 4, "a");
	tsi_tensor *hact = make_var(f, TSI_HALF, TSI_SHAPE(N, C), 8, tiles_5_9, 2, "ha");
	tsi_tensor *ulab = make_var(f, TSI_UNSIGNED_INT, TSI_SHAPE(N), 3, tiles_5_9, 2, "ul");
	tsi_tensor *ilab = make_var(f, TSI_INT, TSI_SHAPE(N), N, tile_7, 1, "il");
	tsi_tensor *c1 = tsi_graph_add_variable(f->graph, TSI_UNSIGNED_INT, 0, NULL, "c1");
	tsi_tensor *c2 = tsi_graph_add_variable(f->graph, TSI_UNSIGNED_INT, 0, NULL, "c2");
	tsi_tensor *c3 = tsi_graph_add_variable(f->graph, TSI_UNSIGNED_INT, 0, NULL, "c3");

	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, c1, 2), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, c2, 3), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f->graph, c3, 15), TSI_OK);
	assert_int_equal(tsi_popnn_calc_accuracy(f->graph, act, ulab, c1, f->seq, "acc1"), TSI_OK);
	assert_int_equal(tsi_popnn_calc_accuracy(f->graph, act, ilab, c2, f->seq, "acc2"), TSI_OK);
	assert_int_equal(tsi_popnn_calc_accuracy(f->graph, hact, ulab, c3, f->seq, NULL), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "c1", c1), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "c2", c2), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f->graph, "c3", c3), TSI_OK);
	tsi_test_model_load(f, NULL, 0, NULL);
	tsi_test_write_floats(f->engine, "a", a, N * C);
	tsi_test_write_halves(f->engine, "ha", a, N * C);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "ul", ul, sizeof(ul)), TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "il", il, sizeof(il)), TSI_OK);
	tsi_test_run(f->engine, 0);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "c1", &got, sizeof(got)), TSI_OK);
	assert_int_equal(got, 4);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "c2", &got, sizeof(got)), TSI_OK);
	assert_int_equal(got, 5);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "c3", &got, sizeof(got)), TSI_OK);
	assert_int_equal(got, 4);
	/* a second run overwrites the count instead of adding to it */
	tsi_test_run(f->engine, 0);
	assert_int_equal(tsi_engine_read_tensor(f->engine, "c1", &got, sizeof(got)), TSI_OK);
	assert_int_equal(got, 4);
}

/* --- Errors -------------------------------------------------------------------------- */

/* Asserts that the graph's first error contains `text`. */
static void assert_error_has(tsi_graph *graph, const char *text)
{
	const char *msg = tsi_graph_get_error(graph);

	assert_string_not_equal(msg, "");
	if (!strstr(msg, text))
		fail_msg("error '%s' does not contain '%s'", msg, text);
}

/* A fresh graph for one error (the graph keeps only the first). */
static tsi_graph *fresh_graph(fixture *f, bool codelets)
{
	tsi_graph *g = NULL;

	assert_int_equal(tsi_graph_new(&g, tsi_device_get_target(f->device), 1), TSI_OK);
	if (codelets)
		assert_int_equal(tsi_popnn_add_codelets(g), TSI_OK);
	return g;
}

/* Bad operands are refused with messages naming the operation and the
 * tensor; a NULL from an earlier failure passes quietly. */
static void test_errors(void **state)
{
	fixture *f = *state;
	tsi_graph *g;
	tsi_program *seq;
	tsi_tensor *a, *b, *lab, *loss, *d;

	/* wrong type */
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_INT, TSI_SHAPE(4), "ints");
	assert_null(tsi_popnn_nonlinearity(g, TSI_POPNN_RELU, a, seq, "r"));
	assert_error_has(g, "tsi_popnn_nonlinearity 'r'");
	assert_error_has(g, "'ints'");
	assert_error_has(g, "float or half");
	/* a NULL operand now passes quietly, keeping the first message */
	assert_null(tsi_popnn_nonlinearity(g, TSI_POPNN_RELU, NULL, seq, "r2"));
	assert_int_not_equal(tsi_popnn_calc_loss(g, NULL, NULL, NULL, NULL,
	                                         TSI_POPNN_SUM_SQUARED_LOSS, seq, NULL),
	                     TSI_OK);
	assert_error_has(g, "'ints'");
	tsi_graph_free(g);

	/* a NULL operand on a healthy graph is an error */
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	assert_null(tsi_popnn_nonlinearity(g, TSI_POPNN_TANH, NULL, seq, NULL));
	assert_error_has(g, "tsi_popnn_nonlinearity 'Tanh': tensor t is NULL");
	tsi_graph_free(g);

	/* gradient shapes differ */
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(2, 3), "out");
	b = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 2), "og");
	assert_null(tsi_popnn_nonlinearity_grad(g, TSI_POPNN_SIGMOID, a, b, seq, "sg"));
	assert_error_has(g, "tsi_popnn_nonlinearity_grad 'sg'");
	assert_error_has(g, "{2,3}");
	assert_error_has(g, "{3,2}");
	tsi_graph_free(g);

	/* gradient types differ */
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "out");
	b = tsi_graph_add_variable(g, TSI_HALF, TSI_SHAPE(4), "og");
	assert_null(tsi_popnn_nonlinearity_grad(g, TSI_POPNN_RELU, a, b, seq, NULL));
	assert_error_has(g, "'og' is half");
	tsi_graph_free(g);

	/* unknown non-linearity, softmax of a scalar, in place on a constant */
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "x");
	assert_int_not_equal(tsi_popnn_nonlinearity_in_place(g, TSI_POPNN_NONLINEARITY_COUNT, a, seq,
	                                                     "nl"),
	                     TSI_OK);
	assert_error_has(g, "unknown non-linearity");
	tsi_graph_free(g);
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, 0, NULL, "scalar");
	assert_null(tsi_popnn_nonlinearity(g, TSI_POPNN_SOFTMAX, a, seq, NULL));
	assert_error_has(g, "'scalar' is a scalar");
	tsi_graph_free(g);
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_constant_fill(g, TSI_FLOAT, TSI_SHAPE(4), 1.0, "k");
	assert_int_not_equal(tsi_popnn_nonlinearity_in_place(g, TSI_POPNN_RELU, a, seq, NULL),
	                     TSI_OK);
	assert_error_has(g, "'k' is a constant");
	tsi_graph_free(g);

	/* codelets not added */
	g = fresh_graph(f, false);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "x");
	assert_null(tsi_popnn_nonlinearity(g, TSI_POPNN_RELU, a, seq, NULL));
	assert_error_has(g, "tsi_popnn_add_codelets");
	tsi_graph_free(g);

	/* labels of the wrong length; labels of the wrong type */
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "probs");
	lab = tsi_graph_add_variable(g, TSI_UNSIGNED_INT, TSI_SHAPE(4), "labels");
	loss = tsi_graph_add_variable(g, TSI_FLOAT, 0, NULL, "loss");
	d = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "deltas");
	assert_int_not_equal(tsi_popnn_calc_loss(g, a, lab, loss, d, TSI_POPNN_CROSS_ENTROPY_LOSS,
	                                         seq, "ce"),
	                     TSI_OK);
	assert_error_has(g, "tsi_popnn_calc_loss 'ce': labels 'labels' must have shape {3}");
	tsi_graph_free(g);
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "probs");
	lab = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3), "labels");
	loss = tsi_graph_add_variable(g, TSI_FLOAT, 0, NULL, "loss");
	d = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "deltas");
	assert_int_not_equal(tsi_popnn_calc_loss(g, a, lab, loss, d, TSI_POPNN_SUM_SQUARED_LOSS, seq,
	                                         NULL),
	                     TSI_OK);
	assert_error_has(g, "labels 'labels' have type float");
	tsi_graph_free(g);

	/* loss not a scalar; deltas of another shape; probs not rank 2 */
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "probs");
	lab = tsi_graph_add_variable(g, TSI_INT, TSI_SHAPE(3), "labels");
	loss = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3), "loss");
	d = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "deltas");
	assert_int_not_equal(tsi_popnn_calc_loss(g, a, lab, loss, d, TSI_POPNN_SUM_SQUARED_LOSS, seq,
	                                         NULL),
	                     TSI_OK);
	assert_error_has(g, "loss 'loss' must be a scalar float");
	tsi_graph_free(g);
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "probs");
	lab = tsi_graph_add_variable(g, TSI_INT, TSI_SHAPE(3), "labels");
	loss = tsi_graph_add_variable(g, TSI_FLOAT, 0, NULL, "loss");
	d = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4, 3), "deltas");
	assert_int_not_equal(tsi_popnn_calc_loss(g, a, lab, loss, d, TSI_POPNN_SUM_SQUARED_LOSS, seq,
	                                         NULL),
	                     TSI_OK);
	assert_error_has(g, "deltas 'deltas'");
	tsi_graph_free(g);
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(12), "flatprobs");
	lab = tsi_graph_add_variable(g, TSI_INT, TSI_SHAPE(3), "labels");
	loss = tsi_graph_add_variable(g, TSI_UNSIGNED_INT, 0, NULL, "count");
	assert_int_not_equal(tsi_popnn_calc_accuracy(g, a, lab, loss, seq, "acc"), TSI_OK);
	assert_error_has(g, "tsi_popnn_calc_accuracy 'acc': activations 'flatprobs' must be a "
	                    "non-empty [N, C] tensor");
	tsi_graph_free(g);

	/* num_correct of the wrong type */
	g = fresh_graph(f, true);
	seq = tsi_prog_sequence(g, NULL);
	a = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(3, 4), "act");
	lab = tsi_graph_add_variable(g, TSI_UNSIGNED_INT, TSI_SHAPE(3), "labels");
	loss = tsi_graph_add_variable(g, TSI_FLOAT, 0, NULL, "count");
	assert_int_not_equal(tsi_popnn_calc_accuracy(g, a, lab, loss, seq, NULL), TSI_OK);
	assert_error_has(g, "num_correct 'count' must be a scalar unsigned int");
	tsi_graph_free(g);

	/* no graph */
	assert_null(tsi_popnn_nonlinearity(NULL, TSI_POPNN_RELU, NULL, NULL, NULL));
	assert_int_equal(tsi_popnn_add_codelets(NULL), TSI_ERR_INVALID_ARGUMENT);
	assert_non_null(strstr(tsi_error_last(), "graph is NULL"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_elementwise_float, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_elementwise_half, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_in_place, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_elementwise_grads, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_softmax, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_softmax_half_rank3_in_place, setup,
		                                tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_softmax_many_rows, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_softmax_grad_finite_difference, setup,
		                                tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_calc_loss, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_calc_loss_many_rows, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_calc_accuracy, setup, tsi_test_model_delete),
		cmocka_unit_test_setup_teardown(test_errors, setup, tsi_test_model_delete),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
