/*
 * A BERT-shaped encoder for the IPU Model, sized by its parameters: the
 * large synthetic model of issue 8 (4 IPUs x 1,472 tiles, tens of
 * thousands of compute sets, a million vertices, a hundred thousand
 * variables) and a small one for the tests.
 *
 * Token ids go through a word embedding (one-hot x table, the ops library
 * having no gather), a position embedding and a layer norm, then through
 * `layers` encoder layers. Layers are placed pipeline-style: layer l runs
 * on IPU l * ipus / layers, and activations are copied to the next IPU
 * between stages. Attention is computed per (sequence, head), each pair on
 * its own group of tiles as a model sharded by head would, which is what
 * makes compute sets and steps grow with batch x heads x layers. Weight
 * matrices are placed by hand, one variable per tile shard (see
 * bert-model.c), which is what makes the variable count grow with tiles x
 * layers.
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
	unsigned vocab;    /* word embedding rows V */
} bert_config;

/* Host memory of the model's inputs, parameters and output. */
typedef struct bert_host {
	size_t n_params;         /* parameter tensors */
	char **param_names;      /* their host write handles */
	float **params;          /* their values, row-major */
	size_t *param_sizes;     /* their elements */
	int32_t *ids;            /* [B*S] token ids in [0, V): handle "ids" */
	size_t n_ids;
	float *output;           /* [B*S, H]: handle "output" */
	size_t n_output;         /* elements of output */
} bert_host;

/*
 * Builds the encoder's forward pass into `graph` (whose target has at
 * least cfg->ipus IPUs) and returns its program. Every parameter gets a
 * host write handle named as in bert_host's param_names, the token ids the
 * handle "ids" and the output the read handle "output". Logs each layer at
 * INFO level (POPLAR_LOG_LEVEL=INFO), building a large model taking a
 * while. Exits through example-util's ex_fail on any failure.
 */
tsi_program *bert_model_build(tsi_graph *graph, const bert_config *cfg);

/* Deterministic token ids and parameters from `seed` (small values, so
 * that float sums in another order agree closely); the caller frees with
 * bert_host_free. Returns 0, or -1 when out of memory. */
int bert_host_new(bert_host *out, const bert_config *cfg, uint64_t seed);
/* Frees what bert_host_new allocated; accepts NULL and a zeroed struct. */
void bert_host_free(bert_host *h);

/* Writes the ids and every parameter through the engine's handles. */
void bert_host_write(const bert_host *h, tsi_engine *engine);

/* The same forward pass in plain C: the output of the first `layers`
 * layers (cfg->layers: all; 0: the embeddings) for h's ids and parameters
 * into out [B*S, H]. Returns 0, or -1 when out of memory. */
int bert_model_reference(const bert_config *cfg, const bert_host *h, unsigned layers, float *out);

/* Checks a configuration: every size between 1 and 1 << 20, hidden
 * divisible by heads, at most one IPU per layer. Returns NULL, or a
 * message saying what is wrong. */
const char *bert_config_check(const bert_config *cfg);
