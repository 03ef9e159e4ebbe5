/*
 * popnn: neural-network operations on the IPU Model (non-linearities and
 * their gradients, softmax, losses with their gradients, accuracy), in the
 * style of Graphcore's popnn library. Register the vertex types with
 * tsi_popnn_add_codelets() first. Errors are recorded in the graph as
 * everywhere else (NULL or a negative code is returned).
 */
#pragma once

#include "program.h"

TSB_BEGIN_DECLS

TSI_API int tsi_popnn_add_codelets(tsi_graph *graph);

typedef enum tsi_popnn_nonlinearity_type {
	TSI_POPNN_RELU = 0,
	TSI_POPNN_SIGMOID,
	TSI_POPNN_TANH,
	TSI_POPNN_SOFTMAX, /* over the last dimension, numerically stable */
	TSI_POPNN_NONLINEARITY_COUNT
} tsi_popnn_nonlinearity_type;

/* f(t) into a new tensor mapped like `t` (FLOAT or HALF). Vertex types
 * popnn::NonLinearitySupervisor<float,popnn::NonLinearityType::SIGMOID> ... */
TSI_API tsi_tensor *tsi_popnn_nonlinearity(tsi_graph *graph, tsi_popnn_nonlinearity_type nl,
                                           const tsi_tensor *t, tsi_program *seq,
                                           const char *debug_name);
TSI_API int tsi_popnn_nonlinearity_in_place(tsi_graph *graph, tsi_popnn_nonlinearity_type nl,
                                            const tsi_tensor *t, tsi_program *seq,
                                            const char *debug_name);
/* The gradient with respect to the input given the forward output `out`
 * and the gradient with respect to it `out_grad` (same shape). For
 * SOFTMAX the full Jacobian product over the last dimension. Vertex types
 * popnn::NonLinearityGradSupervisor<float,...>. */
TSI_API tsi_tensor *tsi_popnn_nonlinearity_grad(tsi_graph *graph, tsi_popnn_nonlinearity_type nl,
                                                const tsi_tensor *out, const tsi_tensor *out_grad,
                                                tsi_program *seq, const char *debug_name);

typedef enum tsi_popnn_loss {
	TSI_POPNN_SUM_SQUARED_LOSS = 0, /* 0.5 * sum((p - onehot)^2) per sample */
	TSI_POPNN_CROSS_ENTROPY_LOSS,   /* -sum(onehot * log(p)) per sample; p are probabilities */
	TSI_POPNN_LOSS_COUNT
} tsi_popnn_loss;

/* popnn::calcLoss: for `probs` [N, C] (FLOAT, the output of a softmax for
 * cross-entropy) and integer `labels` [N] (UNSIGNED_INT or INT), writes
 * the loss summed over the batch into the scalar FLOAT `loss` and the
 * gradient with respect to the pre-softmax activations (cross-entropy:
 * p - onehot; sum-squared: p - onehot) into `deltas` [N, C]. Vertex types
 * popnn::LossSumSquaredTransform<float>, popnn::LossCrossEntropyTransform<float>
 * and a reduction. */
TSI_API int tsi_popnn_calc_loss(tsi_graph *graph, const tsi_tensor *probs,
                                const tsi_tensor *labels, const tsi_tensor *loss,
                                const tsi_tensor *deltas, tsi_popnn_loss loss_type,
                                tsi_program *seq, const char *debug_name);

/* popnn::calcAccuracy: counts the samples whose arg-max of `activations`
 * [N, C] equals `labels` [N] into the scalar UNSIGNED_INT `num_correct`.
 * Vertex types popnn::ReduceMaxClassGather<float,unsigned int> and
 * popnn::CalcAccuracy<unsigned int>. */
TSI_API int tsi_popnn_calc_accuracy(tsi_graph *graph, const tsi_tensor *activations,
                                    const tsi_tensor *labels, const tsi_tensor *num_correct,
                                    tsi_program *seq, const char *debug_name);

TSB_END_DECLS
