/*
 * The model of multi_ipu_pipeline (see the top of multi_ipu_pipeline.c):
 * a two-layer perceptron whose two stages live on two IPUs, replicated
 * twice over four IPUs for data parallelism, its host data and a host
 * reference of its training. The integration tests build the same model
 * to check its profile. Building records errors in the graph (check
 * tsi_graph_get_error() once afterwards); the host-side helpers end the
 * program through example-util's ex_fail on failure.
 */
#pragma once

#include <tilescope/ipu.h>

#include <stdint.h>

#define PIPELINE_NUM_IPUS 4u
#define PIPELINE_REPLICAS 2u
/* Layer sizes and the batch each replica takes per step. */
#define PIPELINE_IN 64u /* input features */
#define PIPELINE_HIDDEN 32u
#define PIPELINE_CLASSES 10u
#define PIPELINE_BATCH 16u
/* Each step: W -= PIPELINE_LEARNING_RATE / (BATCH * REPLICAS) * sum of dW. */
#define PIPELINE_LEARNING_RATE 1.0

/* The parameters, in the order of pipeline_param_names (also the names
 * of their host read and write handles). */
enum { PIPELINE_W1 = 0, PIPELINE_B1, PIPELINE_W2, PIPELINE_B2, PIPELINE_N_PARAMS };
extern const char *const pipeline_param_names[PIPELINE_N_PARAMS];
extern const size_t pipeline_param_sizes[PIPELINE_N_PARAMS]; /* elements (FLOAT) */

/* The host side: the data of each replica and the losses it gets back. */
typedef struct pipeline_data {
	unsigned steps;
	float *x[PIPELINE_REPLICAS];         /* steps * BATCH * IN inputs */
	uint32_t *labels[PIPELINE_REPLICAS]; /* steps * BATCH labels */
	float *loss[PIPELINE_REPLICAS];      /* steps: each step's loss summed over the batch */
	float *params[PIPELINE_N_PARAMS];    /* initial values, then the host reference */
} pipeline_data;

/* Fills `h` with `steps` batches per replica (each replica's own data;
 * the first batches do not depend on `steps`) and the initial
 * parameters. Free with pipeline_data_free(). */
void pipeline_make_data(pipeline_data *h, unsigned steps);
void pipeline_data_free(pipeline_data *h);

/* Trains on the host in double exactly as the device does (both
 * replicas' gradients summed each step), leaving the final parameters
 * in h->params and each replica's summed loss per step in
 * ref_loss[step * PIPELINE_REPLICAS + replica]. */
void pipeline_host_train(pipeline_data *h, double *ref_loss);

/* Builds the model in `graph` (made with PIPELINE_REPLICAS replicas on
 * PIPELINE_NUM_IPUS IPUs) and returns its training program, a Repeat of
 * `steps` steps; NULL when the graph holds an error. */
tsi_program *pipeline_build(tsi_graph *graph, unsigned steps);

/* Connects each replica's streams of the loaded `engine` to `h` and
 * writes the initial parameters. */
void pipeline_connect(tsi_engine *engine, const pipeline_data *h);
