/*
 * A BERT-shaped encoder for the IPU Model, sized by its parameters: the
 * large synthetic model of issue 8 (4 IPUs x 1,472 tiles, tens of
 * thousands of compute sets, a million vertices) and a small one for the
 * tests. Layers are placed pipeline-style: layer l runs on IPU
 * l * ipus / layers, and activations are copied to the next IPU between
 * stages. Attention is computed per (sequence, head), as a model sharded
 * by head would, which is what makes the compute-set count grow with
 * batch x heads x layers.
 *
 * bert_synth.c runs it; the integration tests build the small size. The
 * host reference (bert_model_reference) computes the same forward pass in
 * plain C from the same parameters, so a run can be checked.
 */
#pragma once

#include <tilescope/ipu.h>
#include <tilescope/popnn.h>
#include <tilescope/poplin.h>
#include <tilescope/popops.h>

#include <stddef.h>
#include <stdint.h>

typedef struct bert_config {
	unsigned layers;
	unsigned hidden;   /* model width H */
	unsigned heads;    /* H / heads is the head width */
	unsigned ffn;      /* feed-forward width */
	unsigned seq;      /* tokens per sequence S */
	unsigned batch;    /* sequences B */
	unsigned ipus;     /* pipeline stages */
} bert_config;

/* Host memory of the model's inputs, parameters and output (float). */
typedef struct bert_host {
	size_t n_params;         /* parameter tensors */
	char **param_names;      /* their host handles */
	float **params;          /* their values */
	size_t *param_sizes;     /* elements */
	float *input;            /* [B*S, H] */
	size_t n_input;          /* elements of input and of output */
	float *output;           /* [B*S, H] */
} bert_host;

/*
 * Builds the encoder's forward pass into `graph` (whose target has at
 * least cfg->ipus IPUs) and returns its program. Every parameter gets a
 * host write handle (named as in host->param_names after bert_host_new),
 * the input the handle "input" and the output "output". Exits through
 * example-util's ex_fail on any failure.
 */
tsi_program *bert_model_build(tsi_graph *graph, const bert_config *cfg);

/* Deterministic input and parameters from `seed` (small values, so that
 * float sums in another order agree closely); the caller frees with
 * bert_host_free. */
int bert_host_new(bert_host *out, const bert_config *cfg, uint64_t seed);
void bert_host_free(bert_host *h);

/* Writes the input and every parameter through the engine's handles. */
void bert_host_write(const bert_host *h, tsi_engine *engine);

/* The same forward pass in plain C: the output of layer `layers` (all:
 * cfg->layers) for host->input and host->params into out [B*S, H]. */
int bert_model_reference(const bert_config *cfg, const bert_host *h, unsigned layers, float *out);

/* Checks a configuration: hidden divisible by heads, all sizes positive,
 * at most 1 << 20 each. Returns NULL, or a message saying what is wrong. */
const char *bert_config_check(const bert_config *cfg);
