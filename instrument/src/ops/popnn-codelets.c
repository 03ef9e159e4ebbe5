/*
 * popnn's codelets: the vertices' compute functions (the device code of
 * the non-linearities, softmax, the losses and accuracy), their cycle and
 * flop estimators, and the codelet tables that tsi_popnn_add_codelets
 * registers. The host-side builders that put these vertices in compute
 * sets are in popnn.c; popnn-private.h is what the two share.
 */
#include "popnn-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The smallest probability whose logarithm cross-entropy takes, so that a
 * zero probability gives a large finite loss instead of infinity. */
#define MIN_PROBABILITY 1e-30f

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

/* A vertex that sums its partials (field 0, type T) into one scalar
 * (field 1), in order. */
#define SUM_PARTIALS_CB(fn, T)                                                            \
	static bool fn(const tsi_field *f, size_t n_fields)                                   \
	{                                                                                     \
		const T *p = f[0].data;                                                           \
		T s = 0;                                                                          \
                                                                                          \
		if (n_fields != 2 || f[1].count != 1)                                             \
			return false;                                                                 \
		for (size_t i = 0; i < f[0].count; i++)                                           \
			s += p[i];                                                                    \
		*(T *)f[1].data = s;                                                              \
		return true;                                                                      \
	}

/* ReduceLossPartials<float>: loss = the sum of the partials. */
SUM_PARTIALS_CB(reduce_loss_cb, float)

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
SUM_PARTIALS_CB(calc_accuracy_cb, uint32_t)
#undef SUM_PARTIALS_CB

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

/* codelets for the forward pass: tsi_popnn_nl_codelets[nl][type]. */
#define NL_CODELET(NAME, fields, compute, cycles, flops, code)                     \
	{NAME, fields, 1, compute, cycles, flops, NL_STATE_BYTES, code, true}
#define SOFTMAX_CODELET(T, fields, compute, cycles)                                \
	{"popnn::NonLinearity2D<" T ",popnn::NonLinearityType::SOFTMAX_STABLE>", fields, 1, \
	 compute, cycles, softmax_flops_cb, ROW_LIST_STATE, 384, false}
const tsi_codelet tsi_popnn_nl_codelets[NL_COUNT][DT_COUNT] = {
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

/* codelets for the gradients: tsi_popnn_grad_codelets[nl][type]. */
#define GRAD_CODELET(NAME, fields, compute, cycles, flops, code)                   \
	{NAME, fields, 3, compute, cycles, flops, NL_GRAD_STATE_BYTES, code, true}
#define SOFTMAX_GRAD_CODELET(T, fields, compute, cycles)                                  \
	{"popnn::NonLinearityGrad2D<" T ",popnn::NonLinearityType::SOFTMAX_STABLE>", fields, \
	 3, compute, cycles, softmax_grad_flops_cb, 3 * ROW_LIST_STATE, 320, false}
const tsi_codelet tsi_popnn_grad_codelets[NL_COUNT][DT_COUNT] = {
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
/* tsi_popnn_loss_codelets[loss type][label type]. */
const tsi_codelet tsi_popnn_loss_codelets[LOSS_COUNT][LT_COUNT] = {
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
const tsi_codelet tsi_popnn_reduce_loss_codelet = {
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
/* tsi_popnn_max_class_codelets[activation type][label type]. */
const tsi_codelet tsi_popnn_max_class_codelets[DT_COUNT][LT_COUNT] = {
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
const tsi_codelet tsi_popnn_calc_accuracy_codelet = {
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
	if ((rc = tsi_graph_add_codelets(graph, &tsi_popnn_nl_codelets[0][0],
	                                 (size_t)NL_COUNT * DT_COUNT)) ||
	    (rc = tsi_graph_add_codelets(graph, &tsi_popnn_grad_codelets[0][0],
	                                 (size_t)NL_COUNT * DT_COUNT)) ||
	    (rc = tsi_graph_add_codelets(graph, &tsi_popnn_loss_codelets[0][0],
	                                 (size_t)LOSS_COUNT * LT_COUNT)) ||
	    (rc = tsi_graph_add_codelets(graph, &tsi_popnn_max_class_codelets[0][0],
	                                 (size_t)DT_COUNT * LT_COUNT)) ||
	    (rc = tsi_graph_add_codelet(graph, &tsi_popnn_reduce_loss_codelet)) ||
	    (rc = tsi_graph_add_codelet(graph, &tsi_popnn_calc_accuracy_codelet)))
		return rc;
	return TSI_OK;
}
