/*
 * What popnn.c (the host-side builders) and popnn-codelets.c (the
 * vertices, their cycle and flop estimators, the codelet tables and
 * their registration) share: short names for the public codes, the
 * column order of the codelet tables, and the tables the builders pick
 * their codelets from. Nothing here is visible to models.
 */
#pragma once

#include "ops-private.h"
#include "tilescope/popnn.h"

/* Short names for the public codes inside popnn. */
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

/* The codelets popnn.c builds with, defined in popnn-codelets.c and
 * registered by tsi_popnn_add_codelets. Non-linearities, forward pass:
 * [non-linearity][data type]. */
extern const tsi_codelet tsi_popnn_nl_codelets[NL_COUNT][DT_COUNT];
/* Non-linearity gradients: [non-linearity][data type]. */
extern const tsi_codelet tsi_popnn_grad_codelets[NL_COUNT][DT_COUNT];
/* Per-row loss partials: [loss type][label type]. */
extern const tsi_codelet tsi_popnn_loss_codelets[LOSS_COUNT][LT_COUNT];
/* The final sum of the loss partials. */
extern const tsi_codelet tsi_popnn_reduce_loss_codelet;
/* Per-vertex counts of rows whose arg-max matches the label:
 * [data type][label type]. */
extern const tsi_codelet tsi_popnn_max_class_codelets[DT_COUNT][LT_COUNT];
/* The final sum of those counts. */
extern const tsi_codelet tsi_popnn_calc_accuracy_codelet;
