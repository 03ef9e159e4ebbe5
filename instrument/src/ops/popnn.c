/*
 * popnn, in small: the neural-network operations of Graphcore's popnn
 * library on the IPU Model, built from the graph API as a model author
 * would build them.
 *
 * Elementwise non-linearities (ReLU, sigmoid, tanh) run one supervisor
 * vertex per tile on the elements that tile holds; like popnn, the
 * out-of-place form clones the input, copies it and runs the in-place
 * form on the clone. Everything that works on rows of the last dimension
 * (softmax, its gradient, the losses, accuracy) runs one worker vertex per
 * group of rows, each row on the tile holding most of it (the rest is read
 * through exchange), with up to one vertex per worker context per tile.
 * Losses and accuracy reduce in two compute sets: per-vertex partials on
 * the vertices' tiles, then one final vertex on the tile of the result.
 *
 * Mapping a result like its input, views over a tile's intervals and the
 * error conventions come from the helpers every ops file shares
 * (ops-private.h).
 */
#include "ops-private.h"
#include "tilescope/popnn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Short names for the public codes inside this file. */
#define NL_RELU TSI_POPNN_RELU
#define NL_SIGMOID TSI_POPNN_SIGMOID
#define NL_TANH TSI_POPNN_TANH
#define NL_SOFTMAX TSI_POPNN_SOFTMAX
#define NL_COUNT TSI_POPNN_NONLINEARITY_COUNT
#define NL_ELEMENTWISE 3 /* RELU, SIGMOID, TANH: the first three codes */
#define LOSS_SUM_SQUARED TSI_POPNN_SUM_SQUARED_LOSS
#define LOSS_CROSS_ENTROPY TSI_POPNN_CROSS_ENTROPY_LOSS
#define LOSS_COUNT TSI_POPNN_LOSS_COUNT

/* Data types of the non-linearity and accuracy codelets, in table order. */
enum { DT_FLOAT = 0, DT_HALF, DT_COUNT };
/* Label types of the loss and accuracy codelets, in table order. */
enum { LT_UNSIGNED = 0, LT_INT, LT_COUNT };

/* The smallest probability whose logarithm cross-entropy takes, so that a
 * zero probability gives a large finite loss instead of infinity. */
#define MIN_PROBABILITY 1e-30f

/* A row-wise vertex gets at least this many elements before a tile's rows
 * are split over more vertices: below it, the fixed cost of another vertex
 * outweighs running in parallel on another worker. */
#define ROW_GRAIN 256

/* --- Device code: elementwise non-linearities -------------------------------- */

static inline float sigmoid_f(float x)
{
	return 1.0f / (1.0f + expf(-x));
}

/*
 * The compute function of the float NonLinearitySupervisor vertices:
 * data = f(data) in place. The switch sits outside the loops so each loop
 * is a plain vector loop.
 */
static bool nl_float(const tsi_field *f, size_t n_fields, tsi_popnn_nonlinearity_type nl)
{
	float *x = f[0].data;
	size_t n = f[0].count;

	if (n_fields != 1)
		return false;
	switch (nl) {
	case NL_RELU:
		for (size_t i = 0; i < n; i++)
			x[i] = x[i] > 0.0f ? x[i] : 0.0f;
		break;
	case NL_SIGMOID:
		for (size_t i = 0; i < n; i++)
			x[i] = sigmoid_f(x[i]);
		break;
	case NL_TANH:
		for (size_t i = 0; i < n; i++)
			x[i] = tanhf(x[i]);
		break;
	default:
		return false;
	}
	return true;
}

/*
 * Half vertices: widened to float, computed and rounded back (as the
 * device's f16 transcendental instructions give about float accuracy
 * before rounding). ReLU works on the bit pattern: anything with the sign
 * bit set becomes +0.
 */
static bool nl_half(const tsi_field *f, size_t n_fields, tsi_popnn_nonlinearity_type nl)
{
	uint16_t *x = f[0].data;
	size_t n = f[0].count;

	if (n_fields != 1)
		return false;
	switch (nl) {
	case NL_RELU:
		for (size_t i = 0; i < n; i++)
			x[i] = (x[i] & 0x8000u) ? 0 : x[i];
		break;
	case NL_SIGMOID:
		for (size_t i = 0; i < n; i++)
			x[i] = tsi_half_from_float(sigmoid_f(tsi_half_to_float(x[i])));
		break;
	case NL_TANH:
		for (size_t i = 0; i < n; i++)
			x[i] = tsi_half_from_float(tanhf(tsi_half_to_float(x[i])));
		break;
	default:
		return false;
	}
	return true;
}

/* True when the three fields of a gradient vertex (outGrad, out, inGrad)
 * have one length. */
static bool grad_fields_agree(const tsi_field *f, size_t n_fields)
{
	return n_fields == 3 && f[0].count == f[2].count && f[1].count == f[2].count;
}

/*
 * NonLinearityGradSupervisor, float: inGrad = outGrad * f'(out), with f'
 * written in terms of the forward output (relu: out > 0, sigmoid:
 * out (1 - out), tanh: 1 - out^2).
 */
static bool nl_grad_float(const tsi_field *f, size_t n_fields, tsi_popnn_nonlinearity_type nl)
{
	const float *og = f[0].data;
	const float *y = f[1].data;
	float *ig = f[2].data;
	size_t n = f[2].count;

	if (!grad_fields_agree(f, n_fields))
		return false;
	switch (nl) {
	case NL_RELU:
		for (size_t i = 0; i < n; i++)
			ig[i] = y[i] > 0.0f ? og[i] : 0.0f;
		break;
	case NL_SIGMOID:
		for (size_t i = 0; i < n; i++)
			ig[i] = og[i] * y[i] * (1.0f - y[i]);
		break;
	case NL_TANH:
		for (size_t i = 0; i < n; i++)
			ig[i] = og[i] * (1.0f - y[i] * y[i]);
		break;
	default:
		return false;
	}
	return true;
}

/* The same for half: computed in float, rounded once. */
static bool nl_grad_half(const tsi_field *f, size_t n_fields, tsi_popnn_nonlinearity_type nl)
{
	const uint16_t *og = f[0].data;
	const uint16_t *y = f[1].data;
	uint16_t *ig = f[2].data;
	size_t n = f[2].count;

	if (!grad_fields_agree(f, n_fields))
		return false;
	switch (nl) {
	case NL_RELU:
		for (size_t i = 0; i < n; i++)
			ig[i] = tsi_half_to_float(y[i]) > 0.0f ? og[i] : 0;
		break;
	case NL_SIGMOID:
		for (size_t i = 0; i < n; i++) {
			float o = tsi_half_to_float(y[i]);
			ig[i] = tsi_half_from_float(tsi_half_to_float(og[i]) * o * (1.0f - o));
		}
		break;
	case NL_TANH:
		for (size_t i = 0; i < n; i++) {
			float o = tsi_half_to_float(y[i]);
			ig[i] = tsi_half_from_float(tsi_half_to_float(og[i]) * (1.0f - o * o));
		}
		break;
	default:
		return false;
	}
	return true;
}

/* One compute callback per (non-linearity, type): callbacks take no user
 * data, so the non-linearity is bound here. */
#define NL_CB(fn, impl, NL) \
	static bool fn(const tsi_field *f, size_t n) { return impl(f, n, NL); }
NL_CB(relu_float_cb, nl_float, NL_RELU)
NL_CB(sigmoid_float_cb, nl_float, NL_SIGMOID)
NL_CB(tanh_float_cb, nl_float, NL_TANH)
NL_CB(relu_half_cb, nl_half, NL_RELU)
NL_CB(sigmoid_half_cb, nl_half, NL_SIGMOID)
NL_CB(tanh_half_cb, nl_half, NL_TANH)
NL_CB(relu_grad_float_cb, nl_grad_float, NL_RELU)
NL_CB(sigmoid_grad_float_cb, nl_grad_float, NL_SIGMOID)
NL_CB(tanh_grad_float_cb, nl_grad_float, NL_TANH)
NL_CB(relu_grad_half_cb, nl_grad_half, NL_RELU)
NL_CB(sigmoid_grad_half_cb, nl_grad_half, NL_SIGMOID)
NL_CB(tanh_grad_half_cb, nl_grad_half, NL_TANH)
#undef NL_CB

/* --- Device code: softmax over rows --------------------------------------------- */

/* The length of sub-vector k of a field. */
static inline size_t sub_len(const tsi_field *f, size_t k)
{
	return f->offsets[k + 1] - f->offsets[k];
}

/* Stable softmax of one float row in place: subtract the row's maximum
 * so that exp never overflows, then scale by the reciprocal of the sum. */
static void softmax_row_float(float *x, size_t n)
{
	float m = x[0];
	float s = 0.0f;
	float r;

	for (size_t i = 1; i < n; i++)
		m = x[i] > m ? x[i] : m;
	for (size_t i = 0; i < n; i++) {
		x[i] = expf(x[i] - m);
		s += x[i];
	}
	r = 1.0f / s;
	for (size_t i = 0; i < n; i++)
		x[i] *= r;
}

/* The half row: exponentials are recomputed in the last pass instead of
 * stored, so the sum and the results see unrounded values. */
static void softmax_row_half(uint16_t *x, size_t n)
{
	float m = tsi_half_to_float(x[0]);
	float s = 0.0f;
	float r;

	for (size_t i = 1; i < n; i++) {
		float v = tsi_half_to_float(x[i]);
		m = v > m ? v : m;
	}
	for (size_t i = 0; i < n; i++)
		s += expf(tsi_half_to_float(x[i]) - m);
	r = 1.0f / s;
	for (size_t i = 0; i < n; i++)
		x[i] = tsi_half_from_float(expf(tsi_half_to_float(x[i]) - m) * r);
}

/* NonLinearity2D<T,SOFTMAX_STABLE>: field 0 "data" is a list of rows,
 * each replaced by its softmax. */
static bool softmax_float_cb(const tsi_field *f, size_t n_fields)
{
	if (n_fields != 1)
		return false;
	for (size_t k = 0; k < f[0].n_vectors; k++)
		if (sub_len(&f[0], k))
			softmax_row_float((float *)f[0].data + f[0].offsets[k], sub_len(&f[0], k));
	return true;
}

static bool softmax_half_cb(const tsi_field *f, size_t n_fields)
{
	if (n_fields != 1)
		return false;
	for (size_t k = 0; k < f[0].n_vectors; k++)
		if (sub_len(&f[0], k))
			softmax_row_half((uint16_t *)f[0].data + f[0].offsets[k], sub_len(&f[0], k));
	return true;
}

/* True when three row-list fields have the same rows of the same lengths. */
static bool rows_agree(const tsi_field *a, const tsi_field *b, const tsi_field *c)
{
	if (a->n_vectors != c->n_vectors || b->n_vectors != c->n_vectors)
		return false;
	for (size_t k = 0; k <= c->n_vectors; k++)
		if (a->offsets[k] != c->offsets[k] || b->offsets[k] != c->offsets[k])
			return false;
	return true;
}

/*
 * NonLinearityGrad2D<T,SOFTMAX_STABLE>: for each row, with y the forward
 * output and g the gradient with respect to it,
 * inGrad_i = y_i (g_i - sum_j g_j y_j) (the Jacobian-vector product).
 * Fields: 0 outGrad, 1 out, 2 inGrad (row lists).
 */
static bool softmax_grad_float_cb(const tsi_field *f, size_t n_fields)
{
	if (n_fields != 3 || !rows_agree(&f[0], &f[1], &f[2]))
		return false;
	for (size_t k = 0; k < f[2].n_vectors; k++) {
		const float *og = (const float *)f[0].data + f[0].offsets[k];
		const float *y = (const float *)f[1].data + f[1].offsets[k];
		float *ig = (float *)f[2].data + f[2].offsets[k];
		size_t n = sub_len(&f[2], k);
		float dot = 0.0f;

		for (size_t i = 0; i < n; i++)
			dot += og[i] * y[i];
		for (size_t i = 0; i < n; i++)
			ig[i] = y[i] * (og[i] - dot);
	}
	return true;
}

static bool softmax_grad_half_cb(const tsi_field *f, size_t n_fields)
{
	if (n_fields != 3 || !rows_agree(&f[0], &f[1], &f[2]))
		return false;
	for (size_t k = 0; k < f[2].n_vectors; k++) {
		const uint16_t *og = (const uint16_t *)f[0].data + f[0].offsets[k];
		const uint16_t *y = (const uint16_t *)f[1].data + f[1].offsets[k];
		uint16_t *ig = (uint16_t *)f[2].data + f[2].offsets[k];
		size_t n = sub_len(&f[2], k);
		float dot = 0.0f;

		for (size_t i = 0; i < n; i++)
			dot += tsi_half_to_float(og[i]) * tsi_half_to_float(y[i]);
		for (size_t i = 0; i < n; i++)
			ig[i] = tsi_half_from_float(tsi_half_to_float(y[i]) *
			                            (tsi_half_to_float(og[i]) - dot));
	}
	return true;
}

/* --- Device code: losses and accuracy ------------------------------------------- */

/* The class of a label, or SIZE_MAX for a negative INT label (which, like
 * a label >= the number of classes, selects no class). */
static inline size_t label_class(const void *labels, size_t k, bool is_signed)
{
	if (is_signed) {
		int32_t l = ((const int32_t *)labels)[k];
		return l < 0 ? SIZE_MAX : (size_t)l;
	}
	return ((const uint32_t *)labels)[k];
}

/*
 * Loss{SumSquared,CrossEntropy}Transform<float,L>: for each row of probs
 * writes deltas = p - onehot(label) and adds the row's loss to the
 * vertex's partial: 0.5 sum (p - onehot)^2, or -log(max(p_label, 1e-30)).
 * A label outside [0, C) selects no class: its onehot row is all zero, so
 * deltas = p and the cross-entropy contribution is 0.
 * Fields: 0 probs (rows), 1 labels (one per row), 2 deltas (rows),
 * 3 loss (scalar partial).
 */
static bool loss_transform(const tsi_field *f, size_t n_fields, tsi_popnn_loss type,
                           bool signed_labels)
{
	size_t rows = f[0].n_vectors;
	float total = 0.0f;

	if (n_fields != 4 || f[1].count != rows || !rows_agree(&f[0], &f[0], &f[2]) ||
	    f[3].count != 1)
		return false;
	for (size_t k = 0; k < rows; k++) {
		const float *p = (const float *)f[0].data + f[0].offsets[k];
		float *d = (float *)f[2].data + f[2].offsets[k];
		size_t n = sub_len(&f[0], k);
		size_t c = label_class(f[1].data, k, signed_labels);

		memcpy(d, p, n * sizeof(*d));
		if (type == LOSS_SUM_SQUARED) {
			float sq = 0.0f;

			for (size_t i = 0; i < n; i++)
				sq += p[i] * p[i];
			if (c < n) {
				/* (p - 1)^2 = p^2 - 2p + 1 for the label's class */
				sq += 1.0f - 2.0f * p[c];
				d[c] = p[c] - 1.0f;
			}
			total += 0.5f * sq;
		} else if (c < n) {
			total -= logf(p[c] > MIN_PROBABILITY ? p[c] : MIN_PROBABILITY);
			d[c] = p[c] - 1.0f;
		}
	}
	*(float *)f[3].data = total;
	return true;
}

#define LOSS_CB(fn, TYPE, SIGNED) \
	static bool fn(const tsi_field *f, size_t n) { return loss_transform(f, n, TYPE, SIGNED); }
LOSS_CB(sum_squared_uint_cb, LOSS_SUM_SQUARED, false)
LOSS_CB(sum_squared_int_cb, LOSS_SUM_SQUARED, true)
LOSS_CB(cross_entropy_uint_cb, LOSS_CROSS_ENTROPY, false)
LOSS_CB(cross_entropy_int_cb, LOSS_CROSS_ENTROPY, true)
#undef LOSS_CB

/* ReduceLossPartials<float>: loss = the sum of the partials. */
static bool reduce_loss_cb(const tsi_field *f, size_t n_fields)
{
	const float *p = f[0].data;
	float s = 0.0f;

	if (n_fields != 2 || f[1].count != 1)
		return false;
	for (size_t i = 0; i < f[0].count; i++)
		s += p[i];
	*(float *)f[1].data = s;
	return true;
}

/*
 * ReduceMaxClassGather<T,L>: for each row of activations, the arg-max
 * (the first maximum wins) compared with the row's label; the vertex
 * writes how many rows matched. An out-of-range label never matches.
 * Fields: 0 activations (rows), 1 labels, 2 numCorrect (scalar partial).
 */
static bool max_class(const tsi_field *f, size_t n_fields, bool half, bool signed_labels)
{
	size_t rows = f[0].n_vectors;
	uint32_t correct = 0;

	if (n_fields != 3 || f[1].count != rows || f[2].count != 1)
		return false;
	for (size_t k = 0; k < rows; k++) {
		size_t n = sub_len(&f[0], k);
		size_t best = 0;

		if (n == 0)
			continue;
		if (half) {
			const uint16_t *a = (const uint16_t *)f[0].data + f[0].offsets[k];
			float m = tsi_half_to_float(a[0]);
			for (size_t i = 1; i < n; i++) {
				float v = tsi_half_to_float(a[i]);
				if (v > m) {
					m = v;
					best = i;
				}
			}
		} else {
			const float *a = (const float *)f[0].data + f[0].offsets[k];
			float m = a[0];
			for (size_t i = 1; i < n; i++) {
				if (a[i] > m) {
					m = a[i];
					best = i;
				}
			}
		}
		correct += label_class(f[1].data, k, signed_labels) == best;
	}
	*(uint32_t *)f[2].data = correct;
	return true;
}

#define MAX_CLASS_CB(fn, HALF, SIGNED) \
	static bool fn(const tsi_field *f, size_t n) { return max_class(f, n, HALF, SIGNED); }
MAX_CLASS_CB(max_class_float_uint_cb, false, false)
MAX_CLASS_CB(max_class_float_int_cb, false, true)
MAX_CLASS_CB(max_class_half_uint_cb, true, false)
MAX_CLASS_CB(max_class_half_int_cb, true, true)
#undef MAX_CLASS_CB

/* CalcAccuracy<unsigned int>: numCorrect = the sum of the partial counts. */
static bool calc_accuracy_cb(const tsi_field *f, size_t n_fields)
{
	const uint32_t *p = f[0].data;
	uint32_t s = 0;

	if (n_fields != 2 || f[1].count != 1)
		return false;
	for (size_t i = 0; i < f[0].count; i++)
		s += p[i];
	*(uint32_t *)f[1].data = s;
	return true;
}

/* --- Cycle and flop models -------------------------------------------------------- */
/*
 * Conventions (assumptions, not measurements). A worker vertex's estimate
 * is in its own thread's cycles (instruction issues). A supervisor
 * vertex's estimate is what Poplar's supervisor estimators return: the
 * supervisor's own overhead plus num_workers times the cycles of the
 * busiest worker, since the six hardware threads issue in turn and the
 * vertex holds the tile until its last worker finishes. A 64-bit vector
 * holds 2 floats or 4 halves.
 */

/* Vertex entry, loading the state and launching the workers, then the
 * sync with them at the end. */
#define SUPERVISOR_OVERHEAD 30
/* A worker's entry, its share of the work (a divide by the worker id) and
 * its exit. */
#define WORKER_OVERHEAD 12

/*
 * Per 64-bit vector cycles of each non-linearity in its loop: ReLU is a
 * load, a max against zero and a store that pair into 2 cycles; sigmoid
 * and tanh use the hardware transcendental instructions, which are scalar
 * for float (2 cycles an element with the load/store) and 2-wide for half.
 * The gradients add the second load and one or two multiplies.
 */
static const unsigned nl_vector_cycles[NL_ELEMENTWISE][DT_COUNT] = {
	[NL_RELU] = {2, 2},
	[NL_SIGMOID] = {4, 4},
	[NL_TANH] = {4, 4},
};
static const unsigned nl_grad_vector_cycles[NL_ELEMENTWISE][DT_COUNT] = {
	[NL_RELU] = {3, 3},
	[NL_SIGMOID] = {4, 5},
	[NL_TANH] = {4, 5},
};

/* Supervisor cycles for `n` elements split evenly over the workers, each
 * doing `per_vector` cycles per vector of `width` elements. */
static uint64_t supervisor_cycles(size_t n, unsigned width, unsigned per_vector,
                                  const tsi_target *target)
{
	unsigned workers = tsi_ops_target_workers(target);
	size_t share = (n + workers - 1) / workers;
	uint64_t worker = WORKER_OVERHEAD + (uint64_t)per_vector * ((share + width - 1) / width);

	return SUPERVISOR_OVERHEAD + (uint64_t)workers * worker;
}

#define NL_CYCLES_CB(fn, table, NL, DT, WIDTH)                                           \
	static uint64_t fn(const tsi_field *f, size_t n, const tsi_target *t)                \
	{                                                                                    \
		return supervisor_cycles(n ? f[n - 1].count : 0, WIDTH, table[NL][DT], t);       \
	}
NL_CYCLES_CB(relu_float_cycles_cb, nl_vector_cycles, NL_RELU, DT_FLOAT, 2)
NL_CYCLES_CB(sigmoid_float_cycles_cb, nl_vector_cycles, NL_SIGMOID, DT_FLOAT, 2)
NL_CYCLES_CB(tanh_float_cycles_cb, nl_vector_cycles, NL_TANH, DT_FLOAT, 2)
NL_CYCLES_CB(relu_half_cycles_cb, nl_vector_cycles, NL_RELU, DT_HALF, 4)
NL_CYCLES_CB(sigmoid_half_cycles_cb, nl_vector_cycles, NL_SIGMOID, DT_HALF, 4)
NL_CYCLES_CB(tanh_half_cycles_cb, nl_vector_cycles, NL_TANH, DT_HALF, 4)
NL_CYCLES_CB(relu_grad_float_cycles_cb, nl_grad_vector_cycles, NL_RELU, DT_FLOAT, 2)
NL_CYCLES_CB(sigmoid_grad_float_cycles_cb, nl_grad_vector_cycles, NL_SIGMOID, DT_FLOAT, 2)
NL_CYCLES_CB(tanh_grad_float_cycles_cb, nl_grad_vector_cycles, NL_TANH, DT_FLOAT, 2)
NL_CYCLES_CB(relu_grad_half_cycles_cb, nl_grad_vector_cycles, NL_RELU, DT_HALF, 4)
NL_CYCLES_CB(sigmoid_grad_half_cycles_cb, nl_grad_vector_cycles, NL_SIGMOID, DT_HALF, 4)
NL_CYCLES_CB(tanh_grad_half_cycles_cb, nl_grad_vector_cycles, NL_TANH, DT_HALF, 4)
#undef NL_CYCLES_CB

/*
 * Flops per element: ReLU 1 (the max), sigmoid 3 (exp, add, divide), tanh
 * 3 (counted like sigmoid, which it is up to scaling); the gradients 1
 * (relu's select), 3 and 3 (two multiplies and a subtract).
 */
static uint64_t nl_flops(const tsi_field *f, size_t n, unsigned per_element)
{
	return n ? (uint64_t)per_element * f[n - 1].count : 0;
}

static uint64_t relu_flops_cb(const tsi_field *f, size_t n)
{
	return nl_flops(f, n, 1);
}

static uint64_t transcendental_flops_cb(const tsi_field *f, size_t n)
{
	return nl_flops(f, n, 3);
}

/* The length of sub-vector k for an estimator: exact when the offsets
 * are given, else the field's average sub-vector length (estimators are
 * promised sizes, so do not rely on more). */
static inline size_t est_len(const tsi_field *f, size_t k)
{
	if (f->offsets)
		return f->offsets[k + 1] - f->offsets[k];
	return f->n_vectors ? f->count / f->n_vectors : 0;
}

/* Worker cycles of a loop over `n` elements at `per_vector` cycles per
 * vector of `width`. */
static inline uint64_t vec_loop(size_t n, unsigned width, unsigned per_vector)
{
	return (uint64_t)per_vector * ((n + width - 1) / width);
}

/*
 * Softmax row vertex (worker cycles): 12 to enter and walk the row list,
 * then per row 24 (row set-up, the reciprocal of the sum, loop exits) and
 * three passes: the max (1 cycle a vector), exp of the difference plus
 * the running sum (scalar exp for float, 2-wide for half: 3 cycles per 2
 * elements) and the scale by the reciprocal (2 cycles a vector with the
 * store). The half form recomputes the exponentials in the last pass.
 */
static uint64_t softmax_cycles(const tsi_field *f, size_t n, unsigned width, bool half)
{
	uint64_t c = 12;

	if (n < 1)
		return c;
	for (size_t k = 0; k < f[0].n_vectors; k++) {
		size_t len = est_len(&f[0], k);
		c += 24 + vec_loop(len, width, 1) + vec_loop(len, 2, 3) + vec_loop(len, width, 2);
		if (half)
			c += vec_loop(len, 2, 3);
	}
	return c;
}

static uint64_t softmax_float_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	return softmax_cycles(f, n, 2, false);
}

static uint64_t softmax_half_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	return softmax_cycles(f, n, 4, true);
}

/* Softmax flops per element: compare for the max, subtract, exp, add to
 * the sum, scale: 5. */
static uint64_t softmax_flops_cb(const tsi_field *f, size_t n)
{
	return n ? 5 * (uint64_t)f[0].count : 0;
}

/*
 * Softmax gradient rows (worker cycles): 12 to enter, per row 16 of set-up
 * plus a dot product (2 loads and a multiply-accumulate, 2 cycles a
 * vector) and the update pass (3 cycles a vector: two loads, subtract and
 * multiply, store).
 */
static uint64_t softmax_grad_cycles(const tsi_field *f, size_t n, unsigned width)
{
	uint64_t c = 12;

	if (n < 3)
		return c;
	for (size_t k = 0; k < f[2].n_vectors; k++) {
		size_t len = est_len(&f[2], k);
		c += 16 + vec_loop(len, width, 2) + vec_loop(len, width, 3);
	}
	return c;
}

static uint64_t softmax_grad_float_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	return softmax_grad_cycles(f, n, 2);
}

static uint64_t softmax_grad_half_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	return softmax_grad_cycles(f, n, 4);
}

/* Softmax gradient flops per element: multiply-add of the dot product (2),
 * subtract and multiply (2). */
static uint64_t softmax_grad_flops_cb(const tsi_field *f, size_t n)
{
	return n >= 3 ? 4 * (uint64_t)f[2].count : 0;
}

/*
 * Loss transforms (worker cycles): 14 to enter, per row 20 (loading the
 * label, the bounds check, fixing the label's class, and for
 * cross-entropy the log) plus a copy of the row into deltas with, for
 * sum-squared, the square-accumulate folded in (2 cycles a float vector;
 * 3 with the square).
 */
static uint64_t loss_cycles(const tsi_field *f, size_t n, unsigned per_vector)
{
	uint64_t c = 14;

	if (n < 1)
		return c;
	for (size_t k = 0; k < f[0].n_vectors; k++)
		c += 20 + vec_loop(est_len(&f[0], k), 2, per_vector);
	return c;
}

static uint64_t sum_squared_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	return loss_cycles(f, n, 3);
}

static uint64_t cross_entropy_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	return loss_cycles(f, n, 2);
}

/* Sum-squared: square and add per element plus the row's fix-up (2);
 * cross-entropy: the subtract of the label's class and the log per row. */
static uint64_t sum_squared_flops_cb(const tsi_field *f, size_t n)
{
	return n ? 2 * (uint64_t)f[0].count + 4 * (uint64_t)f[0].n_vectors : 0;
}

static uint64_t cross_entropy_flops_cb(const tsi_field *f, size_t n)
{
	return n ? 3 * (uint64_t)f[0].n_vectors : 0;
}

/* The final sums (worker cycles): 10 to enter and exit, one cycle an
 * element (a load paired with an add). */
static uint64_t sum_partials_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	return 10 + (n ? (uint64_t)f[0].count : 0);
}

/* One add per partial. */
static uint64_t sum_partials_flops_cb(const tsi_field *f, size_t n)
{
	return n ? (uint64_t)f[0].count : 0;
}

/*
 * Arg-max rows (worker cycles): 12 to enter, per row 14 (the label load
 * and compare, the count) plus 2 cycles an element for the compare and
 * select of the running maximum and its index (the index keeps this loop
 * scalar even for half).
 */
static uint64_t max_class_cycles_cb(const tsi_field *f, size_t n, const tsi_target *t)
{
	uint64_t c = 12;

	if (n < 1)
		return c;
	for (size_t k = 0; k < f[0].n_vectors; k++)
		c += 14 + 2 * (uint64_t)est_len(&f[0], k);
	return c;
}

/* One compare per element. */
static uint64_t max_class_flops_cb(const tsi_field *f, size_t n)
{
	return n ? (uint64_t)f[0].count : 0;
}

/* --- Codelet tables ----------------------------------------------------------------- */

/*
 * Vertex state (bytes per instance): a supervisor vertex over one vector
 * holds a pointer and a count (8); the gradient three pointers and a
 * count (16). A row-list vertex holds a pointer to its list descriptor
 * and the number of rows per list field (8 each), plus 4 per plain vector
 * or scalar. Code sizes cover the unrolled loops and, for the supervisor
 * vertices, the worker entry and the work split.
 */
#define NL_STATE_BYTES 8
#define NL_GRAD_STATE_BYTES 16
#define ROW_LIST_STATE 8
#define PLAIN_FIELD_STATE 4

#define NL_NAME(T, NL) "popnn::NonLinearitySupervisor<" T ",popnn::NonLinearityType::" NL ">"
#define NL_GRAD_NAME(T, NL) \
	"popnn::NonLinearityGradSupervisor<" T ",popnn::NonLinearityType::" NL ">"

static const tsi_field_def nl_float_fields[] = {
	{"data", TSI_FIELD_INOUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
};
static const tsi_field_def nl_half_fields[] = {
	{"data", TSI_FIELD_INOUT, TSI_FIELD_VECTOR, TSI_HALF, 0},
};
#define GRAD_FIELDS(T, SHAPE)                                          \
	{                                                                  \
		{"outGrad", TSI_FIELD_INPUT, SHAPE, T, 0},                     \
		{"out", TSI_FIELD_INPUT, SHAPE, T, 0},                         \
		{"inGrad", TSI_FIELD_OUTPUT, SHAPE, T, 0},                     \
	}
static const tsi_field_def grad_float_fields[] = GRAD_FIELDS(TSI_FLOAT, TSI_FIELD_VECTOR);
static const tsi_field_def grad_half_fields[] = GRAD_FIELDS(TSI_HALF, TSI_FIELD_VECTOR);
static const tsi_field_def grad2d_float_fields[] = GRAD_FIELDS(TSI_FLOAT, TSI_FIELD_VECTOR_LIST);
static const tsi_field_def grad2d_half_fields[] = GRAD_FIELDS(TSI_HALF, TSI_FIELD_VECTOR_LIST);
#undef GRAD_FIELDS
static const tsi_field_def softmax_float_fields[] = {
	{"data", TSI_FIELD_INOUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},
};
static const tsi_field_def softmax_half_fields[] = {
	{"data", TSI_FIELD_INOUT, TSI_FIELD_VECTOR_LIST, TSI_HALF, 0},
};

/* codelets for the forward pass: nl_codelets[nl][type]. */
#define NL_CODELET(NAME, fields, compute, cycles, flops, code)                     \
	{NAME, fields, 1, compute, cycles, flops, NL_STATE_BYTES, code, true}
#define SOFTMAX_CODELET(T, fields, compute, cycles)                                \
	{"popnn::NonLinearity2D<" T ",popnn::NonLinearityType::SOFTMAX_STABLE>", fields, 1, \
	 compute, cycles, softmax_flops_cb, ROW_LIST_STATE, 384, false}
static const tsi_codelet nl_codelets[NL_COUNT][DT_COUNT] = {
	[NL_RELU] = {
		NL_CODELET(NL_NAME("float", "RELU"), nl_float_fields, relu_float_cb,
		           relu_float_cycles_cb, relu_flops_cb, 192),
		NL_CODELET(NL_NAME("half", "RELU"), nl_half_fields, relu_half_cb,
		           relu_half_cycles_cb, relu_flops_cb, 224),
	},
	[NL_SIGMOID] = {
		NL_CODELET(NL_NAME("float", "SIGMOID"), nl_float_fields, sigmoid_float_cb,
		           sigmoid_float_cycles_cb, transcendental_flops_cb, 192),
		NL_CODELET(NL_NAME("half", "SIGMOID"), nl_half_fields, sigmoid_half_cb,
		           sigmoid_half_cycles_cb, transcendental_flops_cb, 224),
	},
	[NL_TANH] = {
		NL_CODELET(NL_NAME("float", "TANH"), nl_float_fields, tanh_float_cb,
		           tanh_float_cycles_cb, transcendental_flops_cb, 192),
		NL_CODELET(NL_NAME("half", "TANH"), nl_half_fields, tanh_half_cb,
		           tanh_half_cycles_cb, transcendental_flops_cb, 224),
	},
	[NL_SOFTMAX] = {
		SOFTMAX_CODELET("float", softmax_float_fields, softmax_float_cb,
		                softmax_float_cycles_cb),
		SOFTMAX_CODELET("half", softmax_half_fields, softmax_half_cb,
		                softmax_half_cycles_cb),
	},
};
#undef NL_CODELET
#undef SOFTMAX_CODELET

/* codelets for the gradients: grad_codelets[nl][type]. */
#define GRAD_CODELET(NAME, fields, compute, cycles, flops, code)                   \
	{NAME, fields, 3, compute, cycles, flops, NL_GRAD_STATE_BYTES, code, true}
#define SOFTMAX_GRAD_CODELET(T, fields, compute, cycles)                                  \
	{"popnn::NonLinearityGrad2D<" T ",popnn::NonLinearityType::SOFTMAX_STABLE>", fields, \
	 3, compute, cycles, softmax_grad_flops_cb, 3 * ROW_LIST_STATE, 320, false}
static const tsi_codelet grad_codelets[NL_COUNT][DT_COUNT] = {
	[NL_RELU] = {
		GRAD_CODELET(NL_GRAD_NAME("float", "RELU"), grad_float_fields, relu_grad_float_cb,
		             relu_grad_float_cycles_cb, relu_flops_cb, 224),
		GRAD_CODELET(NL_GRAD_NAME("half", "RELU"), grad_half_fields, relu_grad_half_cb,
		             relu_grad_half_cycles_cb, relu_flops_cb, 256),
	},
	[NL_SIGMOID] = {
		GRAD_CODELET(NL_GRAD_NAME("float", "SIGMOID"), grad_float_fields,
		             sigmoid_grad_float_cb, sigmoid_grad_float_cycles_cb,
		             transcendental_flops_cb, 224),
		GRAD_CODELET(NL_GRAD_NAME("half", "SIGMOID"), grad_half_fields, sigmoid_grad_half_cb,
		             sigmoid_grad_half_cycles_cb, transcendental_flops_cb, 256),
	},
	[NL_TANH] = {
		GRAD_CODELET(NL_GRAD_NAME("float", "TANH"), grad_float_fields, tanh_grad_float_cb,
		             tanh_grad_float_cycles_cb, transcendental_flops_cb, 224),
		GRAD_CODELET(NL_GRAD_NAME("half", "TANH"), grad_half_fields, tanh_grad_half_cb,
		             tanh_grad_half_cycles_cb, transcendental_flops_cb, 256),
	},
	[NL_SOFTMAX] = {
		SOFTMAX_GRAD_CODELET("float", grad2d_float_fields, softmax_grad_float_cb,
		                     softmax_grad_float_cycles_cb),
		SOFTMAX_GRAD_CODELET("half", grad2d_half_fields, softmax_grad_half_cb,
		                     softmax_grad_half_cycles_cb),
	},
};
#undef GRAD_CODELET
#undef SOFTMAX_GRAD_CODELET

#define LOSS_FIELDS(L)                                                      \
	{                                                                       \
		{"probs", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},    \
		{"labels", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, L, 0},                \
		{"deltas", TSI_FIELD_OUTPUT, TSI_FIELD_VECTOR_LIST, TSI_FLOAT, 0},  \
		{"loss", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},         \
	}
static const tsi_field_def loss_uint_fields[] = LOSS_FIELDS(TSI_UNSIGNED_INT);
static const tsi_field_def loss_int_fields[] = LOSS_FIELDS(TSI_INT);
#undef LOSS_FIELDS

#define LOSS_STATE (2 * ROW_LIST_STATE + 2 * PLAIN_FIELD_STATE)
#define LOSS_CODELET(NAME, fields, compute, cycles, flops)                    \
	{NAME, fields, 4, compute, cycles, flops, LOSS_STATE, 288, false}
/* loss_codelets[loss type][label type]. */
static const tsi_codelet loss_codelets[LOSS_COUNT][LT_COUNT] = {
	[LOSS_SUM_SQUARED] = {
		LOSS_CODELET("popnn::LossSumSquaredTransform<float,unsigned int>", loss_uint_fields,
		             sum_squared_uint_cb, sum_squared_cycles_cb, sum_squared_flops_cb),
		LOSS_CODELET("popnn::LossSumSquaredTransform<float,int>", loss_int_fields,
		             sum_squared_int_cb, sum_squared_cycles_cb, sum_squared_flops_cb),
	},
	[LOSS_CROSS_ENTROPY] = {
		LOSS_CODELET("popnn::LossCrossEntropyTransform<float,unsigned int>",
		             loss_uint_fields, cross_entropy_uint_cb, cross_entropy_cycles_cb,
		             cross_entropy_flops_cb),
		LOSS_CODELET("popnn::LossCrossEntropyTransform<float,int>", loss_int_fields,
		             cross_entropy_int_cb, cross_entropy_cycles_cb, cross_entropy_flops_cb),
	},
};
#undef LOSS_CODELET

static const tsi_field_def reduce_loss_fields[] = {
	{"partials", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"loss", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};
static const tsi_codelet reduce_loss_codelet = {
	"popnn::ReduceLossPartials<float>", reduce_loss_fields, 2, reduce_loss_cb,
	sum_partials_cycles_cb, sum_partials_flops_cb, 3 * PLAIN_FIELD_STATE, 96, false,
};

#define MAX_CLASS_FIELDS(T, L)                                                   \
	{                                                                            \
		{"activations", TSI_FIELD_INPUT, TSI_FIELD_VECTOR_LIST, T, 0},           \
		{"labels", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, L, 0},                     \
		{"numCorrect", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_UNSIGNED_INT, 0}, \
	}
static const tsi_field_def max_class_float_uint_fields[] =
    MAX_CLASS_FIELDS(TSI_FLOAT, TSI_UNSIGNED_INT);
static const tsi_field_def max_class_float_int_fields[] = MAX_CLASS_FIELDS(TSI_FLOAT, TSI_INT);
static const tsi_field_def max_class_half_uint_fields[] =
    MAX_CLASS_FIELDS(TSI_HALF, TSI_UNSIGNED_INT);
static const tsi_field_def max_class_half_int_fields[] = MAX_CLASS_FIELDS(TSI_HALF, TSI_INT);
#undef MAX_CLASS_FIELDS

#define MAX_CLASS_STATE (ROW_LIST_STATE + 2 * PLAIN_FIELD_STATE)
#define MAX_CLASS_CODELET(T, L, fields, compute)                                            \
	{"popnn::ReduceMaxClassGather<" T "," L ">", fields, 3, compute, max_class_cycles_cb,   \
	 max_class_flops_cb, MAX_CLASS_STATE, 224, false}
/* max_class_codelets[activation type][label type]. */
static const tsi_codelet max_class_codelets[DT_COUNT][LT_COUNT] = {
	[DT_FLOAT] = {
		MAX_CLASS_CODELET("float", "unsigned int", max_class_float_uint_fields,
		                  max_class_float_uint_cb),
		MAX_CLASS_CODELET("float", "int", max_class_float_int_fields, max_class_float_int_cb),
	},
	[DT_HALF] = {
		MAX_CLASS_CODELET("half", "unsigned int", max_class_half_uint_fields,
		                  max_class_half_uint_cb),
		MAX_CLASS_CODELET("half", "int", max_class_half_int_fields, max_class_half_int_cb),
	},
};
#undef MAX_CLASS_CODELET

static const tsi_field_def calc_accuracy_fields[] = {
	{"partials", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_UNSIGNED_INT, 0},
	{"numCorrect", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_UNSIGNED_INT, 0},
};
/* Integer adds have no flops callback. */
static const tsi_codelet calc_accuracy_codelet = {
	"popnn::CalcAccuracy<unsigned int>", calc_accuracy_fields, 2, calc_accuracy_cb,
	sum_partials_cycles_cb, NULL, 3 * PLAIN_FIELD_STATE, 96, false,
};

/*
 * Registers every popnn codelet (popnn::addCodelets). Calling it twice is
 * harmless; the first failure is recorded in the graph.
 */
TSI_API int tsi_popnn_add_codelets(tsi_graph *graph)
{
	int rc;

	if (!graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_popnn_add_codelets: graph is NULL");
	if ((rc = tsi_graph_add_codelets(graph, &nl_codelets[0][0], (size_t)NL_COUNT * DT_COUNT)) ||
	    (rc = tsi_graph_add_codelets(graph, &grad_codelets[0][0],
	                                 (size_t)NL_COUNT * DT_COUNT)) ||
	    (rc = tsi_graph_add_codelets(graph, &loss_codelets[0][0],
	                                 (size_t)LOSS_COUNT * LT_COUNT)) ||
	    (rc = tsi_graph_add_codelets(graph, &max_class_codelets[0][0],
	                                 (size_t)DT_COUNT * LT_COUNT)) ||
	    (rc = tsi_graph_add_codelet(graph, &reduce_loss_codelet)) ||
	    (rc = tsi_graph_add_codelet(graph, &calc_accuracy_codelet)))
		return rc;
	return TSI_OK;
}

/* --- Host side: helpers ------------------------------------------------------------ */

/* What every public function knows about itself, for messages. */
typedef struct op_ctx {
	tsi_graph *graph;
	const char *api;  /* public function name */
	const char *name; /* debug name, never NULL */
} op_ctx;

/* Records running out of host memory. */
static int oom(const op_ctx *op)
{
	return tsi_ops_oom_in(op->graph, op->api, op->name);
}

/* "<prefix>/<suffix>" in the graph's arena, or NULL. */
static const char *sub_name(const op_ctx *op, const char *suffix)
{
	return tsi_arena_printf(&op->graph->core->arena, "%s/%s", op->name, suffix);
}

/* True when two tensors have the same shape. */
static bool same_shape(const tsi_tensor *a, const tsi_tensor *b)
{
	size_t sa[TSI_MAX_RANK], sb[TSI_MAX_RANK];
	size_t rank = tsi_tensor_shape(a, sa);

	return rank == tsi_tensor_shape(b, sb) && memcmp(sa, sb, rank * sizeof(*sa)) == 0;
}

/*
 * Common argument checks: the graph exists (else the thread-local error),
 * the operands and the sequence are not NULL. A NULL operand left by an
 * earlier failed call returns quietly (the graph already holds that
 * error). `labels` names the n operands for the message.
 */
static int check_present(const op_ctx *op, const void *const *args, const char *const *labels,
                         size_t n)
{
	if (!op->graph)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "%s: graph is NULL", op->api);
	for (size_t i = 0; i < n; i++)
		if (!args[i])
			return tsi_ops_null_arg_echo(op->graph, op->api, op->name, labels[i]);
	return TSI_OK;
}

/* Fails unless `codelet` was registered with tsi_popnn_add_codelets(). */
static int check_codelet(const op_ctx *op, const tsi_codelet *codelet)
{
	if (tsi_ops_require_codelet(op->graph, op->api, op->name, codelet->name,
	                            "tsi_popnn_add_codelets"))
		return TSI_OK;
	return TSI_ERR_UNKNOWN_VERTEX_TYPE;
}

/* The codelet-table column of a data type, or -1. */
static int data_type_index(tsi_type type)
{
	return type == TSI_FLOAT ? DT_FLOAT : type == TSI_HALF ? DT_HALF : -1;
}

/* The codelet-table column of a label type, or -1. */
static int label_type_index(tsi_type type)
{
	return type == TSI_UNSIGNED_INT ? LT_UNSIGNED : type == TSI_INT ? LT_INT : -1;
}

/* A new variable "<name>/out" of t's type and shape, mapped like `t`
 * (elements of t with no tile spread linearly over the graph). */
static tsi_tensor *clone_like(const op_ctx *op, const tsi_tensor *t)
{
	tsi_mapping_interval *iv = NULL;
	const tsi_tensor *flat;
	size_t n_iv = 0;
	tsi_tensor *out = tsi_ops_result_like(op->graph, t, tsi_tensor_type(t), op->name, &iv, &n_iv,
	                                      &flat);

	free(iv);
	return out;
}

/*
 * Adds to `cs` one vertex of `codelet` per tile of `by` (a flat tensor
 * that is fully mapped), with field i connected to the elements of
 * flats[i] on that tile. Used by the elementwise vertices.
 */
static int add_elementwise_vertices(const op_ctx *op, tsi_compute_set *cs,
                                    const tsi_codelet *codelet, const tsi_tensor *by,
                                    const tsi_tensor *const *flats)
{
	tsi_mapping_interval *map = NULL;
	tsi_ops_range *ranges = NULL;
	tsi_ops_viewer viewers[3];
	size_t n_map = 0;
	int rc;

	memset(viewers, 0, sizeof(viewers));
	rc = tsi_graph_get_tile_mapping(&map, &n_map, op->graph, by);
	if (rc)
		goto done;
	ranges = malloc((n_map ? n_map : 1) * sizeof(*ranges));
	if (!ranges) {
		rc = oom(op);
		goto done;
	}
	for (size_t f = 0; f < codelet->n_fields && !rc; f++)
		rc = tsi_ops_viewer_init(&viewers[f], op->graph, flats[f]);
	if (rc)
		goto done;
	qsort(map, n_map, sizeof(*map), tsi_ops_interval_cmp);
	for (size_t lo = 0, hi; lo < n_map; lo = hi) {
		tsi_vertex *v;

		for (hi = lo + 1; hi < n_map && map[hi].tile == map[lo].tile;)
			hi++;
		if (map[lo].tile == TSI_NO_TILE) {
			rc = tsi_graph_fail(op->graph, TSI_ERR_UNMAPPED_TENSOR,
			                    "%s '%s': %s has elements with no tile; map it first",
			                    op->api, op->name, tsi_tensor_describe(by));
			goto done;
		}
		v = tsi_graph_add_vertex(op->graph, cs, codelet->name);
		if (!v) {
			rc = tsi_ops_failed(op->graph);
			goto done;
		}
		for (size_t i = lo; i < hi; i++) {
			ranges[i - lo].begin = map[i].begin;
			ranges[i - lo].len = map[i].end - map[i].begin;
		}
		for (size_t f = 0; f < codelet->n_fields; f++) {
			tsi_tensor *view = tsi_ops_view(&viewers[f], ranges, hi - lo);

			if (!view) {
				rc = tsi_ops_failed(op->graph);
				goto done;
			}
			if ((rc = tsi_graph_connect(op->graph, v, codelet->fields[f].name, view)) != 0)
				goto done;
		}
		if ((rc = tsi_graph_set_vertex_tile(op->graph, v, map[lo].tile)) != 0)
			goto done;
	}
done:
	for (size_t f = 0; f < 3; f++)
		tsi_ops_viewer_free(&viewers[f]);
	free(ranges);
	free(map);
	return rc;
}

/* --- Host side: rows and their tiles ------------------------------------------------ */

/* One vertex's share of a row-wise operation: rows order[first .. first+count)
 * of the plan, on `tile`. */
typedef struct row_group {
	unsigned tile;
	size_t first;
	size_t count;
} row_group;

/* Where the rows of a [rows, cols] tensor are processed. */
typedef struct row_plan {
	size_t rows;
	size_t cols;
	size_t *order;      /* row numbers, grouped by tile, ascending within a tile */
	row_group *groups;  /* one per vertex */
	size_t n_groups;
	size_t max_count;   /* the most rows of any group */
} row_plan;

/* A piece of a row on one tile, for the majority count. */
typedef struct row_piece {
	size_t row;
	unsigned tile;
	size_t len;
} row_piece;

/* qsort order of row pieces: by row, then tile. */
static int piece_cmp(const void *pa, const void *pb)
{
	const row_piece *a = pa;
	const row_piece *b = pb;

	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	return a->tile < b->tile ? -1 : a->tile > b->tile;
}

/* A row and the tile that processes it, for grouping rows by tile. */
typedef struct row_owner {
	unsigned tile;
	size_t row;
} row_owner;

/* qsort order of row owners: by tile, then row. */
static int owner_cmp(const void *pa, const void *pb)
{
	const row_owner *a = pa;
	const row_owner *b = pb;

	if (a->tile != b->tile)
		return a->tile < b->tile ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/* Frees what plan_rows allocated. */
static void row_plan_clear(row_plan *p)
{
	free(p->order);
	free(p->groups);
	memset(p, 0, sizeof(*p));
}

/*
 * Decides which tile processes each row of the [rows, cols] tensor `m`:
 * the tile holding most of the row's elements (the lowest such tile on a
 * tie; rows with no mapped element go round-robin over the graph's tiles),
 * then splits each tile's rows into up to num_worker_contexts groups of
 * about equal size, each at least ROW_GRAIN elements, one vertex each.
 */
static int plan_rows(const op_ctx *op, row_plan *p, const tsi_tensor *m, size_t rows,
                     size_t cols)
{
	const tsi_target *target = tsi_graph_get_target(op->graph);
	unsigned workers = tsi_ops_target_workers(target);
	tsi_mapping_interval *map = NULL;
	row_piece *pieces = NULL;
	row_owner *owner = NULL;
	size_t n_map = 0, n_pieces = 0;
	int rc;

	memset(p, 0, sizeof(*p));
	p->rows = rows;
	p->cols = cols;
	rc = tsi_graph_get_tile_mapping(&map, &n_map, op->graph, m);
	if (rc)
		goto done;
	pieces = malloc((n_map + rows + 1) * sizeof(*pieces));
	owner = malloc((rows + 1) * sizeof(*owner));
	p->order = malloc((rows + 1) * sizeof(*p->order));
	p->groups = malloc((rows + 1) * sizeof(*p->groups));
	if (!pieces || !owner || !p->order || !p->groups) {
		rc = oom(op);
		goto done;
	}
	/* Each interval split at row boundaries. */
	for (size_t i = 0; i < n_map; i++) {
		if (map[i].tile == TSI_NO_TILE)
			continue;
		for (size_t b = map[i].begin; b < map[i].end;) {
			size_t row = b / cols;
			size_t e = (row + 1) * cols < map[i].end ? (row + 1) * cols : map[i].end;

			pieces[n_pieces++] = (row_piece){row, map[i].tile, e - b};
			b = e;
		}
	}
	qsort(pieces, n_pieces, sizeof(*pieces), piece_cmp);
	for (size_t r = 0; r < rows; r++)
		owner[r] = (row_owner){(unsigned)(r % target->num_tiles), r};
	for (size_t lo = 0, hi; lo < n_pieces; lo = hi) {
		size_t best_len = 0;

		for (hi = lo; hi < n_pieces && pieces[hi].row == pieces[lo].row;) {
			size_t len = 0;
			size_t t0 = hi;

			while (hi < n_pieces && pieces[hi].row == pieces[lo].row &&
			       pieces[hi].tile == pieces[t0].tile)
				len += pieces[hi++].len;
			if (len > best_len) {
				best_len = len;
				owner[pieces[lo].row].tile = pieces[t0].tile;
			}
		}
	}
	qsort(owner, rows, sizeof(*owner), owner_cmp);
	for (size_t r = 0; r < rows; r++)
		p->order[r] = owner[r].row;
	/* Split each tile's rows over its workers. */
	for (size_t lo = 0, hi; lo < rows; lo = hi) {
		size_t k, n_vertices, by_grain;

		for (hi = lo + 1; hi < rows && owner[hi].tile == owner[lo].tile;)
			hi++;
		k = hi - lo;
		by_grain = (k * cols + ROW_GRAIN - 1) / ROW_GRAIN;
		n_vertices = k < workers ? k : workers;
		if (by_grain < n_vertices)
			n_vertices = by_grain ? by_grain : 1;
		for (size_t g = 0; g < n_vertices; g++) {
			size_t first = lo + k * g / n_vertices;
			size_t last = lo + k * (g + 1) / n_vertices;
			row_group *grp = &p->groups[p->n_groups++];

			grp->tile = owner[lo].tile;
			grp->first = first;
			grp->count = last - first;
			if (grp->count > p->max_count)
				p->max_count = grp->count;
		}
	}
done:
	free(pieces);
	free(owner);
	free(map);
	if (rc)
		row_plan_clear(p);
	return rc;
}

/* Fills rows[0..g->count) with the rows of `m` (rank 2) in group `g`. */
static int group_rows(const op_ctx *op, const row_plan *p, const row_group *g,
                      const tsi_tensor *m, tsi_tensor **rows)
{
	for (size_t i = 0; i < g->count; i++)
		if (!(rows[i] = tsi_tensor_index(m, p->order[g->first + i])))
			return tsi_ops_failed(op->graph);
	return TSI_OK;
}

/* The elements of the rank-1 `v` for the rows of group `g`, one each. */
static tsi_tensor *group_elements(const row_plan *p, const row_group *g, const tsi_tensor *v,
                                  tsi_tensor **scratch)
{
	for (size_t i = 0; i < g->count; i++) {
		size_t r = p->order[g->first + i];

		if (!(scratch[i] = tsi_tensor_slice(v, r, r + 1)))
			return NULL;
	}
	return g->count == 1 ? scratch[0] : tsi_tensor_concat(scratch, g->count, 0);
}

/* --- Host side: non-linearities ---------------------------------------------------- */

static const char *const nl_default_names[NL_COUNT] = {"Relu", "Sigmoid", "Tanh", "SoftMax"};
static const char *const nl_grad_default_names[NL_COUNT] = {"ReluGrad", "SigmoidGrad",
                                                            "TanhGrad", "SoftMaxGrad"};

/*
 * Checks a non-linearity's code and operand; returns the codelet table
 * row entry for it (from `table`) or NULL with the error recorded.
 */
static const tsi_codelet *check_nl(const op_ctx *op, tsi_popnn_nonlinearity_type nl,
                                   const tsi_tensor *t, const char *t_label,
                                   const tsi_codelet (*table)[DT_COUNT])
{
	int dt;

	if ((unsigned)nl >= NL_COUNT) {
		tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': unknown non-linearity %d", op->api, op->name, (int)nl);
		return NULL;
	}
	dt = data_type_index(tsi_tensor_type(t));
	if (dt < 0) {
		tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': %s %s has type %s; non-linearities take float or half",
		               op->api, op->name, t_label, tsi_tensor_describe(t),
		               tsi_type_name(tsi_tensor_type(t)));
		return NULL;
	}
	if (nl == NL_SOFTMAX && tsi_tensor_rank(t) == 0) {
		tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': softmax works over the last dimension but %s %s is a scalar",
		               op->api, op->name, t_label, tsi_tensor_describe(t));
		return NULL;
	}
	if (check_codelet(op, &table[nl][dt]) != 0)
		return NULL;
	return &table[nl][dt];
}

/* The [rows, cols] view of `t` over its last dimension; *rows and *cols
 * receive the sizes (0 rows for an empty tensor). */
static tsi_tensor *as_rows(const tsi_tensor *t, size_t *rows, size_t *cols)
{
	size_t rank = tsi_tensor_rank(t);
	size_t c = tsi_tensor_dim(t, rank - 1);
	size_t numel = tsi_tensor_numel(t);
	size_t shape[2];

	*cols = c;
	*rows = c ? numel / c : 0;
	shape[0] = *rows;
	shape[1] = c;
	return tsi_tensor_reshape(t, 2, shape);
}

/*
 * Adds to `cs` one vertex of the row codelet `codelet` per row group of
 * the plan over the rank-2 tensors ms[0..codelet->n_fields) (each field a
 * row list of the same rows).
 */
static int add_row_vertices(const op_ctx *op, tsi_compute_set *cs, const tsi_codelet *codelet,
                            const row_plan *p, const tsi_tensor *const *ms)
{
	tsi_tensor **rows = malloc((p->max_count + 1) * sizeof(*rows));
	int rc = TSI_OK;

	if (!rows)
		return oom(op);
	for (size_t gi = 0; gi < p->n_groups && rc == 0; gi++) {
		const row_group *g = &p->groups[gi];
		tsi_vertex *v = tsi_graph_add_vertex(op->graph, cs, codelet->name);

		if (!v) {
			rc = tsi_ops_failed(op->graph);
			break;
		}
		for (size_t f = 0; f < codelet->n_fields && rc == 0; f++) {
			rc = group_rows(op, p, g, ms[f], rows);
			if (rc == 0)
				rc = tsi_graph_connect_list(op->graph, v, codelet->fields[f].name, rows,
				                            g->count);
		}
		if (rc == 0)
			rc = tsi_graph_set_vertex_tile(op->graph, v, g->tile);
	}
	free(rows);
	return rc;
}

/*
 * Builds f(t) in place into the new compute set named op->name: an
 * elementwise vertex per tile, or softmax row vertices.
 */
static int build_nl_in_place(const op_ctx *op, tsi_popnn_nonlinearity_type nl,
                             const tsi_codelet *codelet, const tsi_tensor *t, tsi_program *seq)
{
	tsi_compute_set *cs = tsi_graph_add_compute_set(op->graph, op->name);
	tsi_program *step;
	int rc;

	if (!cs)
		return tsi_ops_failed(op->graph);
	if (nl == NL_SOFTMAX) {
		size_t rows, cols;
		const tsi_tensor *m = as_rows(t, &rows, &cols);
		row_plan plan;

		if (!m)
			return tsi_ops_failed(op->graph);
		if (rows) {
			rc = plan_rows(op, &plan, m, rows, cols);
			if (rc)
				return rc;
			rc = add_row_vertices(op, cs, codelet, &plan, &m);
			row_plan_clear(&plan);
			if (rc)
				return rc;
		}
	} else {
		const tsi_tensor *flat = tsi_tensor_flatten(t);

		if (!flat)
			return tsi_ops_failed(op->graph);
		rc = add_elementwise_vertices(op, cs, codelet, flat, &flat);
		if (rc)
			return rc;
	}
	step = tsi_prog_execute(op->graph, cs);
	if (!step)
		return tsi_ops_failed(op->graph);
	return tsi_sequence_add(seq, step);
}

/*
 * popnn::nonLinearityInPlace: t = f(t). The tensor must be writable and
 * (for the elementwise forms) mapped.
 */
TSI_API int tsi_popnn_nonlinearity_in_place(tsi_graph *graph, tsi_popnn_nonlinearity_type nl,
                                            const tsi_tensor *t, tsi_program *seq,
                                            const char *debug_name)
{
	op_ctx op = {graph, "tsi_popnn_nonlinearity_in_place",
	             debug_name ? debug_name : (unsigned)nl < NL_COUNT ? nl_default_names[nl] : ""};
	TSI_OPS_DEBUG(graph, op.name, "popnn", "popnn::nonLinearityInPlace");
	const void *args[] = {t, seq};
	const char *labels[] = {"tensor t", "seq"};
	const tsi_codelet *codelet;
	int rc = check_present(&op, args, labels, 2);

	if (rc)
		return rc;
	codelet = check_nl(&op, nl, t, "tensor", nl_codelets);
	if (!codelet)
		return tsi_ops_failed(graph);
	if (tsi_tensor_is_constant(t))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': tensor %s is a constant and cannot be updated in place",
		                      op.api, op.name, tsi_tensor_describe(t));
	return build_nl_in_place(&op, nl, codelet, t, seq);
}

/*
 * popnn::nonLinearity: as popnn does, clones `t` into "<name>/out" (mapped
 * like t), copies t into it and applies the in-place form to the clone.
 */
TSI_API tsi_tensor *tsi_popnn_nonlinearity(tsi_graph *graph, tsi_popnn_nonlinearity_type nl,
                                           const tsi_tensor *t, tsi_program *seq,
                                           const char *debug_name)
{
	op_ctx op = {graph, "tsi_popnn_nonlinearity",
	             debug_name ? debug_name : (unsigned)nl < NL_COUNT ? nl_default_names[nl] : ""};
	TSI_OPS_DEBUG(graph, op.name, "popnn", "popnn::nonLinearity");
	const void *args[] = {t, seq};
	const char *labels[] = {"tensor t", "seq"};
	const tsi_codelet *codelet;
	tsi_tensor *out;
	tsi_program *copy;

	if (check_present(&op, args, labels, 2) != 0)
		return NULL;
	codelet = check_nl(&op, nl, t, "tensor", nl_codelets);
	out = codelet ? clone_like(&op, t) : NULL;
	copy = out ? tsi_prog_copy(graph, t, out) : NULL;
	if (!copy || tsi_sequence_add(seq, copy) != 0)
		return NULL;
	if (build_nl_in_place(&op, nl, codelet, out, seq) != 0)
		return NULL;
	return out;
}

/*
 * popnn::nonLinearityInputGradient: the gradient with respect to the
 * input into "<name>/out", mapped like `out_grad`; one supervisor vertex
 * per tile for the elementwise forms, row vertices for softmax.
 */
TSI_API tsi_tensor *tsi_popnn_nonlinearity_grad(tsi_graph *graph, tsi_popnn_nonlinearity_type nl,
                                                const tsi_tensor *out, const tsi_tensor *out_grad,
                                                tsi_program *seq, const char *debug_name)
{
	op_ctx op = {graph, "tsi_popnn_nonlinearity_grad",
	             debug_name ? debug_name
	             : (unsigned)nl < NL_COUNT ? nl_grad_default_names[nl] : ""};
	TSI_OPS_DEBUG(graph, op.name, "popnn", "popnn::nonLinearityInputGradient");
	const void *args[] = {out, out_grad, seq};
	const char *labels[] = {"out", "out_grad", "seq"};
	const tsi_codelet *codelet;
	tsi_compute_set *cs;
	tsi_tensor *in_grad;
	tsi_program *step;
	char sa[96], sb[96];
	int rc;

	if (check_present(&op, args, labels, 3) != 0)
		return NULL;
	codelet = check_nl(&op, nl, out, "out", grad_codelets);
	if (!codelet)
		return NULL;
	if (tsi_tensor_type(out) != tsi_tensor_type(out_grad)) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': out %s is %s but out_grad %s is %s", op.api, op.name,
		               tsi_tensor_describe(out), tsi_type_name(tsi_tensor_type(out)),
		               tsi_tensor_describe(out_grad), tsi_type_name(tsi_tensor_type(out_grad)));
		return NULL;
	}
	if (!same_shape(out, out_grad)) {
		tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		               "%s '%s': out %s has shape %s but out_grad %s has shape %s", op.api,
		               op.name, tsi_tensor_describe(out), tsi_ops_format_shape(sa, sizeof(sa), out),
		               tsi_tensor_describe(out_grad), tsi_ops_format_shape(sb, sizeof(sb), out_grad));
		return NULL;
	}
	in_grad = clone_like(&op, out_grad);
	cs = in_grad ? tsi_graph_add_compute_set(graph, op.name) : NULL;
	if (!cs)
		return NULL;
	if (nl == NL_SOFTMAX) {
		size_t rows, cols;
		const tsi_tensor *ms[3] = {as_rows(out_grad, &rows, &cols), as_rows(out, &rows, &cols),
		                           as_rows(in_grad, &rows, &cols)};
		row_plan plan;

		if (!ms[0] || !ms[1] || !ms[2])
			return NULL;
		if (rows) {
			if (plan_rows(&op, &plan, ms[2], rows, cols) != 0)
				return NULL;
			rc = add_row_vertices(&op, cs, codelet, &plan, ms);
			row_plan_clear(&plan);
			if (rc)
				return NULL;
		}
	} else {
		const tsi_tensor *flats[3] = {tsi_tensor_flatten(out_grad), tsi_tensor_flatten(out),
		                              tsi_tensor_flatten(in_grad)};

		if (!flats[0] || !flats[1] || !flats[2] ||
		    add_elementwise_vertices(&op, cs, codelet, flats[2], flats) != 0)
			return NULL;
	}
	step = tsi_prog_execute(graph, cs);
	if (!step || tsi_sequence_add(seq, step) != 0)
		return NULL;
	return in_grad;
}

/* --- Host side: losses and accuracy ------------------------------------------------- */

/*
 * Checks a [N, C] tensor `m` and its labels [N]: rank, non-empty, label
 * type. `what` names m in messages. Returns the label-type index or a
 * negative code (recorded).
 */
static int check_rows_and_labels(const op_ctx *op, const tsi_tensor *m, const char *what,
                                 const tsi_tensor *labels)
{
	char sa[96], sb[96];
	int lt;

	if (tsi_tensor_rank(m) != 2 || tsi_tensor_numel(m) == 0)
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': %s %s must be a non-empty [N, C] tensor but has shape %s",
		                      op->api, op->name, what, tsi_tensor_describe(m),
		                      tsi_ops_format_shape(sa, sizeof(sa), m));
	lt = label_type_index(tsi_tensor_type(labels));
	if (lt < 0)
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': labels %s have type %s; use unsigned int or int",
		                      op->api, op->name, tsi_tensor_describe(labels),
		                      tsi_type_name(tsi_tensor_type(labels)));
	if (tsi_tensor_rank(labels) != 1 || tsi_tensor_dim(labels, 0) != tsi_tensor_dim(m, 0))
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': labels %s must have shape {%zu} (one per row of %s %s) "
		                      "but have shape %s",
		                      op->api, op->name, tsi_tensor_describe(labels),
		                      tsi_tensor_dim(m, 0), what, tsi_ops_format_shape(sa, sizeof(sa), m),
		                      tsi_ops_format_shape(sb, sizeof(sb), labels));
	return lt;
}

/* Fails unless `t` is a writable single element of `type`; `what` names it. */
static int check_scalar_result(const op_ctx *op, const tsi_tensor *t, tsi_type type,
                               const char *what)
{
	char s[96];

	if (tsi_tensor_type(t) != type || tsi_tensor_numel(t) != 1)
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': %s %s must be a scalar %s but is %s of shape %s", op->api,
		                      op->name, what, tsi_tensor_describe(t), tsi_type_name(type),
		                      tsi_type_name(tsi_tensor_type(t)), tsi_ops_format_shape(s, sizeof(s), t));
	if (tsi_tensor_is_constant(t))
		return tsi_graph_fail(op->graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': %s %s is a constant", op->api, op->name, what,
		                      tsi_tensor_describe(t));
	return TSI_OK;
}

/*
 * The two-stage shape shared by calc_loss and calc_accuracy: compute set
 * `cs1` gets one `row_codelet` vertex per row group of `m` (fields: the
 * row list of ms[0], the group's labels, then for the loss the row list
 * of ms[1]) writing one partial each into "<name>/partials" (a variable on
 * the vertices' tiles); compute set `cs2` gets one `final_codelet` vertex,
 * on the tile of `result`, summing the partials into `result`.
 */
static int build_two_stage(const op_ctx *op, const tsi_codelet *row_codelet,
                           const tsi_codelet *final_codelet, const char *const *cs_names,
                           const tsi_tensor *const *ms, size_t n_row_lists,
                           const tsi_tensor *labels, const tsi_tensor *result,
                           tsi_type partial_type, tsi_program *seq)
{
	size_t rows = tsi_tensor_dim(ms[0], 0);
	size_t cols = tsi_tensor_dim(ms[0], 1);
	const char *pname = sub_name(op, "partials");
	const char *cs1_name = sub_name(op, cs_names[0]);
	const char *cs2_name = sub_name(op, cs_names[1]);
	tsi_compute_set *cs1, *cs2;
	tsi_tensor **rows_buf = NULL;
	tsi_tensor *partials;
	tsi_vertex *v;
	row_plan plan;
	unsigned final_tile;
	int rc;

	if (!pname || !cs1_name || !cs2_name)
		return oom(op);
	rc = plan_rows(op, &plan, ms[0], rows, cols);
	if (rc)
		return rc;
	rows_buf = malloc((plan.max_count + 1) * sizeof(*rows_buf));
	if (!rows_buf) {
		rc = oom(op);
		goto done;
	}
	cs1 = tsi_graph_add_compute_set(op->graph, cs1_name);
	cs2 = tsi_graph_add_compute_set(op->graph, cs2_name);
	partials = tsi_graph_add_variable(op->graph, partial_type, TSI_SHAPE(plan.n_groups), pname);
	if (!cs1 || !cs2 || !partials) {
		rc = tsi_ops_failed(op->graph);
		goto done;
	}
	for (size_t gi = 0; gi < plan.n_groups; gi++) {
		const row_group *g = &plan.groups[gi];
		tsi_tensor *mine = tsi_tensor_slice(partials, gi, gi + 1);
		const char *partial_field = row_codelet->fields[row_codelet->n_fields - 1].name;
		tsi_tensor *lab;

		v = tsi_graph_add_vertex(op->graph, cs1, row_codelet->name);
		if (!v || !mine) {
			rc = tsi_ops_failed(op->graph);
			goto done;
		}
		/* Fields: row list 0, labels, [row list 1], partial. */
		rc = group_rows(op, &plan, g, ms[0], rows_buf);
		if (rc || (rc = tsi_graph_connect_list(op->graph, v, row_codelet->fields[0].name,
		                                       rows_buf, g->count)) != 0)
			goto done;
		lab = group_elements(&plan, g, labels, rows_buf);
		if (!lab) {
			rc = tsi_ops_failed(op->graph);
			goto done;
		}
		if ((rc = tsi_graph_connect(op->graph, v, row_codelet->fields[1].name, lab)) != 0)
			goto done;
		if (n_row_lists > 1) {
			rc = group_rows(op, &plan, g, ms[1], rows_buf);
			if (rc || (rc = tsi_graph_connect_list(op->graph, v, row_codelet->fields[2].name,
			                                       rows_buf, g->count)) != 0)
				goto done;
		}
		if ((rc = tsi_graph_connect(op->graph, v, partial_field, mine)) != 0 ||
		    (rc = tsi_graph_set_tile_mapping(op->graph, mine, g->tile)) != 0 ||
		    (rc = tsi_graph_set_vertex_tile(op->graph, v, g->tile)) != 0)
			goto done;
	}
	/* The final sum sits with the result (or the first partial when the
	 * result has no tile yet; compilation then reports the result). */
	final_tile = tsi_graph_get_tile_of(op->graph, result, 0);
	if (final_tile == TSI_NO_TILE)
		final_tile = plan.groups[0].tile;
	v = tsi_graph_add_vertex(op->graph, cs2, final_codelet->name);
	if (!v) {
		rc = tsi_ops_failed(op->graph);
		goto done;
	}
	if ((rc = tsi_graph_connect(op->graph, v, final_codelet->fields[0].name, partials)) != 0 ||
	    (rc = tsi_graph_connect(op->graph, v, final_codelet->fields[1].name, result)) != 0 ||
	    (rc = tsi_graph_set_vertex_tile(op->graph, v, final_tile)) != 0)
		goto done;
	{
		tsi_program *s1 = tsi_prog_execute(op->graph, cs1);
		tsi_program *s2 = tsi_prog_execute(op->graph, cs2);

		if (!s1 || !s2) {
			rc = tsi_ops_failed(op->graph);
			goto done;
		}
		if ((rc = tsi_sequence_add(seq, s1)) != 0 || (rc = tsi_sequence_add(seq, s2)) != 0)
			goto done;
	}
done:
	free(rows_buf);
	row_plan_clear(&plan);
	return rc;
}

/*
 * popnn::calcLoss with integer labels: the loss summed over the batch
 * into `loss` and p - onehot into `deltas`. A label outside [0, C)
 * (including a negative INT label) selects no class: its one-hot row is
 * all zero, so its deltas are p, its sum-squared loss 0.5 sum p^2, and its
 * cross-entropy loss 0.
 */
TSI_API int tsi_popnn_calc_loss(tsi_graph *graph, const tsi_tensor *probs,
                                const tsi_tensor *labels, const tsi_tensor *loss,
                                const tsi_tensor *deltas, tsi_popnn_loss loss_type,
                                tsi_program *seq, const char *debug_name)
{
	op_ctx op = {graph, "tsi_popnn_calc_loss", debug_name ? debug_name : "CalcLoss"};
	TSI_OPS_DEBUG(graph, op.name, "popnn", "popnn::calcLoss");
	const void *args[] = {probs, labels, loss, deltas, seq};
	const char *arg_labels[] = {"probs", "labels", "loss", "deltas", "seq"};
	static const char *const cs_names[] = {"LossTransform", "ReduceLoss"};
	const tsi_tensor *ms[2];
	const tsi_codelet *codelet;
	char sa[96], sb[96];
	int rc = check_present(&op, args, arg_labels, 5);
	int lt;

	if (rc)
		return rc;
	if ((unsigned)loss_type >= LOSS_COUNT)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': unknown loss type %d",
		                      op.api, op.name, (int)loss_type);
	if (tsi_tensor_type(probs) != TSI_FLOAT)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': probs %s have type %s; calc_loss takes float", op.api,
		                      op.name, tsi_tensor_describe(probs),
		                      tsi_type_name(tsi_tensor_type(probs)));
	lt = check_rows_and_labels(&op, probs, "probs", labels);
	if (lt < 0)
		return lt;
	if (tsi_tensor_type(deltas) != TSI_FLOAT || !same_shape(probs, deltas))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': deltas %s (%s, shape %s) must be float with the shape "
		                      "of probs %s",
		                      op.api, op.name, tsi_tensor_describe(deltas),
		                      tsi_type_name(tsi_tensor_type(deltas)),
		                      tsi_ops_format_shape(sa, sizeof(sa), deltas), tsi_ops_format_shape(sb, sizeof(sb), probs));
	if (tsi_tensor_is_constant(deltas))
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT, "%s '%s': deltas %s is a constant",
		                      op.api, op.name, tsi_tensor_describe(deltas));
	rc = check_scalar_result(&op, loss, TSI_FLOAT, "loss");
	if (rc)
		return rc;
	codelet = &loss_codelets[loss_type][lt];
	if ((rc = check_codelet(&op, codelet)) != 0 ||
	    (rc = check_codelet(&op, &reduce_loss_codelet)) != 0)
		return rc;
	ms[0] = probs;
	ms[1] = deltas;
	return build_two_stage(&op, codelet, &reduce_loss_codelet, cs_names, ms, 2, labels, loss,
	                       TSI_FLOAT, seq);
}

/*
 * popnn::calcAccuracy: the number of rows whose arg-max (the first
 * maximum on ties) equals the label, into `num_correct` (overwritten).
 * Labels outside [0, C) never count as correct.
 */
TSI_API int tsi_popnn_calc_accuracy(tsi_graph *graph, const tsi_tensor *activations,
                                    const tsi_tensor *labels, const tsi_tensor *num_correct,
                                    tsi_program *seq, const char *debug_name)
{
	op_ctx op = {graph, "tsi_popnn_calc_accuracy", debug_name ? debug_name : "CalcAccuracy"};
	TSI_OPS_DEBUG(graph, op.name, "popnn", "popnn::calcAccuracy");
	const void *args[] = {activations, labels, num_correct, seq};
	const char *arg_labels[] = {"activations", "labels", "num_correct", "seq"};
	static const char *const cs_names[] = {"MaxClassGather", "CalcAccuracy"};
	const tsi_codelet *codelet;
	int rc = check_present(&op, args, arg_labels, 4);
	int dt, lt;

	if (rc)
		return rc;
	dt = data_type_index(tsi_tensor_type(activations));
	if (dt < 0)
		return tsi_graph_fail(graph, TSI_ERR_INVALID_ARGUMENT,
		                      "%s '%s': activations %s have type %s; use float or half", op.api,
		                      op.name, tsi_tensor_describe(activations),
		                      tsi_type_name(tsi_tensor_type(activations)));
	lt = check_rows_and_labels(&op, activations, "activations", labels);
	if (lt < 0)
		return lt;
	rc = check_scalar_result(&op, num_correct, TSI_UNSIGNED_INT, "num_correct");
	if (rc)
		return rc;
	codelet = &max_class_codelets[dt][lt];
	if ((rc = check_codelet(&op, codelet)) != 0 ||
	    (rc = check_codelet(&op, &calc_accuracy_codelet)) != 0)
		return rc;
	return build_two_stage(&op, codelet, &calc_accuracy_codelet, cs_names, &activations, 1,
	                       labels, num_correct, TSI_UNSIGNED_INT, seq);
}
