/*
 * The BERT-shaped encoder (bert-model.h): the device graph, its host
 * data, and the same forward pass in plain C.
 *
 * One layer, on the rows x [B*S, H] of all sequences:
 *   for each sequence b and head h (width d = H / heads), on its own
 *   group of tiles:
 *     q_bh, k_bh, v_bh = x_b Wq_h, x_b Wk_h, x_b Wv_h  (Wq_h: columns h*d..)
 *     p = softmax(q_bh k_bh^T / sqrt(d))            [S, S]
 *     attn_b += (p v_bh) Wo_h                       (Wo_h: rows h*d.. of Wo)
 *   y = layernorm(x + attn + bo; g1, be1)
 *   x' = layernorm(y + relu(y W1 + b1) W2 + b2; g2, be2)
 * where layernorm(z; g, be) = (z - mean) / sqrt(var + eps) * g + be over
 * each row. ReLU stands in for BERT's GELU (the ops library has no GELU).
 */
#include "bert-model.h"

#include "example-util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LN_EPS 1e-5f
/* Largest size of any one dimension. */
#define MAX_DIM (1u << 20)

/* The parameters of one layer, in host order. */
enum { P_WQ, P_WK, P_WV, P_WO, P_BO, P_G1, P_BE1, P_W1, P_B1, P_W2, P_B2, P_G2, P_BE2, P_COUNT };
static const char *const param_names[P_COUNT] = {"wq", "wk", "wv", "wo",  "bo",  "g1", "be1",
                                                 "w1", "b1", "w2", "b2", "g2", "be2"};

/* Rows and columns of parameter `p` (columns 0: a vector). */
static void param_shape(const bert_config *c, int p, size_t *rows, size_t *cols)
{
	switch (p) {
	case P_WQ: case P_WK: case P_WV: case P_WO: *rows = c->hidden; *cols = c->hidden; break;
	case P_W1: *rows = c->hidden; *cols = c->ffn; break;
	case P_W2: *rows = c->ffn; *cols = c->hidden; break;
	case P_B1: *rows = c->ffn; *cols = 0; break;
	default: *rows = c->hidden; *cols = 0; break;
	}
}

const char *bert_config_check(const bert_config *c)
{
	const unsigned dims[] = {c->layers, c->hidden, c->heads, c->ffn, c->seq, c->batch, c->ipus};

	for (size_t i = 0; i < sizeof(dims) / sizeof(dims[0]); i++)
		if (dims[i] == 0 || dims[i] > MAX_DIM)
			return "every size must be between 1 and 1048576";
	if (c->hidden % c->heads)
		return "--hidden must be a multiple of --heads";
	if ((uint64_t)c->seq * c->batch > MAX_DIM)
		return "--seq x --batch must be at most 1048576";
	if (c->ipus > c->layers)
		return "--ipus must be at most --layers (one layer or more per IPU)";
	return NULL;
}

/* --- The device graph --------------------------------------------------------------- */

/* A variable of `g` spread over its tiles, for `what` in error messages. */
static tsi_tensor *variable(tsi_graph *g, size_t rows, size_t cols, const char *name)
{
	tsi_tensor *t = cols ? tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(rows, cols), name)
	                     : tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(rows), name);

	ex_must(g, t, name);
	ex_must_rc(g, tsi_graph_map_linearly(g, t, cols ? cols : 1), name);
	return t;
}

/* A scalar constant as a broadcastable [1], on the graph's first tile. */
static tsi_tensor *scalar(tsi_graph *g, float value, const char *name)
{
	tsi_tensor *t = ex_must(g, tsi_graph_add_constant_fill(g, TSI_FLOAT, TSI_SHAPE(1), value, name),
	                        name);

	ex_must_rc(g, tsi_graph_set_tile_mapping(g, t, 0), name);
	return t;
}

/* z's rows normalised, scaled by g and shifted by be: a new tensor. */
static tsi_tensor *layer_norm(tsi_graph *g, const tsi_tensor *z, const tsi_tensor *gamma,
                              const tsi_tensor *beta, const tsi_tensor *eps, size_t rows,
                              size_t cols, tsi_program *seq)
{
	const size_t row_dim[1] = {1};
	const float inv = 1.0f / (float)cols;
	tsi_debug_id id = tsi_debug_push(g, "layernorm", NULL);
	tsi_tensor *mean, *centred, *var, *y;

	mean = ex_must(g, tsi_popops_reduce(g, z, row_dim, 1, TSI_POPOPS_REDUCE_ADD, inv, TSI_FLOAT,
	                                    seq, "mean"),
	               "layer norm mean");
	centred = ex_must(g, tsi_popops_sub(g, z, tsi_tensor_reshape(mean, TSI_SHAPE(rows, 1)), seq,
	                                    "centre"),
	                  "layer norm centring");
	var = ex_must(g, tsi_popops_reduce(g, centred, row_dim, 1, TSI_POPOPS_REDUCE_SQUARE_ADD, inv,
	                                   TSI_FLOAT, seq, "variance"),
	              "layer norm variance");
	ex_must_rc(g, tsi_popops_map_binary_in_place(g, TSI_POPOPS_ADD, var, eps, seq, "epsilon"),
	           "layer norm epsilon");
	ex_must_rc(g, tsi_popops_map_unary_in_place(g, TSI_POPOPS_SQRT, var, seq, "stddev"),
	           "layer norm stddev");
	y = ex_must(g, tsi_popops_map_binary(g, TSI_POPOPS_DIVIDE, centred,
	                                     tsi_tensor_reshape(var, TSI_SHAPE(rows, 1)), seq,
	                                     "normalise"),
	            "layer norm division");
	ex_must_rc(g, tsi_popops_map_binary_in_place(g, TSI_POPOPS_MULTIPLY, y, gamma, seq, "gamma"),
	           "layer norm gamma");
	ex_must_rc(g, tsi_popops_map_binary_in_place(g, TSI_POPOPS_ADD, y, beta, seq, "beta"),
	           "layer norm beta");
	tsi_debug_pop(g, id);
	return y;
}

/* One encoder layer on stage graph `g`; returns its output [N, H]. */
static tsi_tensor *layer(tsi_graph *g, const bert_config *c, unsigned l, const tsi_tensor *x,
                         tsi_tensor *const *p, const tsi_tensor *scale, const tsi_tensor *eps,
                         tsi_program *seq)
{
	const size_t n = (size_t)c->batch * c->seq, hd = c->hidden, d = c->hidden / c->heads;
	char name[96];
	tsi_tensor *attn, *h1, *y, *f, *f2, *h2;
	tsi_debug_id id;

	id = tsi_debug_push(g, "attention", NULL);
	snprintf(name, sizeof(name), "layer%u/attn", l);
	attn = variable(g, n, hd, name);
	ex_must_rc(g, tsi_popops_fill(g, attn, 0.0, seq, "zero"), "zeroing the attention output");
	/* Each (sequence, head) pair works on its own group of tiles, as a
	 * model sharded by head does: its projections, scores, softmax and
	 * context stay within the group. */
	const unsigned pairs = c->batch * c->heads, tiles = tsi_graph_get_target(g)->num_tiles;
	const unsigned group = tiles / pairs ? tiles / pairs : 1;
	for (unsigned b = 0; b < c->batch; b++) {
		const tsi_tensor *xb = tsi_tensor_slice(x, (size_t)b * c->seq, (size_t)(b + 1) * c->seq);
		for (unsigned h = 0; h < c->heads; h++) {
			unsigned u = b * c->heads + h, lo_tile = (u * group) % tiles;
			tsi_graph *pg = ex_must(g, tsi_graph_create_virtual(g, lo_tile, lo_tile + group),
			                        "a head's tiles");
			const size_t cols[2] = {(size_t)h * d, (size_t)(h + 1) * d};
			tsi_tensor *qb, *kb, *vb, *scores, *probs, *ctx;
			tsi_debug_id head;

			snprintf(name, sizeof(name), "seq%u/head%u", b, h);
			head = tsi_debug_push(pg, name, NULL);
			qb = ex_must(pg, tsi_poplin_matmul(pg, xb, tsi_tensor_slice_dim(p[P_WQ], cols[0],
			                                                                cols[1], 1),
			                                   seq, "q"),
			             "q projection");
			kb = ex_must(pg, tsi_poplin_matmul(pg, xb, tsi_tensor_slice_dim(p[P_WK], cols[0],
			                                                                cols[1], 1),
			                                   seq, "k"),
			             "k projection");
			vb = ex_must(pg, tsi_poplin_matmul(pg, xb, tsi_tensor_slice_dim(p[P_WV], cols[0],
			                                                                cols[1], 1),
			                                   seq, "v"),
			             "v projection");
			scores = ex_must(pg, tsi_poplin_matmul(pg, qb, tsi_tensor_transpose(kb), seq, "qk"),
			                 "attention scores");
			ex_must_rc(pg, tsi_popops_map_binary_in_place(pg, TSI_POPOPS_MULTIPLY, scores, scale,
			                                              seq, "scale"),
			           "scaling the scores");
			probs = ex_must(pg, tsi_popnn_nonlinearity(pg, TSI_POPNN_SOFTMAX, scores, seq,
			                                           "softmax"),
			                "attention softmax");
			ctx = ex_must(pg, tsi_poplin_matmul(pg, probs, vb, seq, "context"),
			              "attention context");
			ex_must_rc(pg, tsi_poplin_matmul_acc(pg, tsi_tensor_slice(attn, (size_t)b * c->seq,
			                                                          (size_t)(b + 1) * c->seq),
			                                     1.0f, ctx,
			                                     tsi_tensor_slice(p[P_WO], cols[0], cols[1]), seq,
			                                     "output"),
			           "attention output projection");
			tsi_debug_pop(pg, head);
		}
	}
	ex_must_rc(g, tsi_popops_map_binary_in_place(g, TSI_POPOPS_ADD, attn, p[P_BO], seq, "bias"),
	           "attention bias");
	tsi_debug_pop(g, id);
	h1 = ex_must(g, tsi_popops_add(g, x, attn, seq, "residual1"), "first residual");
	y = layer_norm(g, h1, p[P_G1], p[P_BE1], eps, n, hd, seq);

	id = tsi_debug_push(g, "ffn", NULL);
	f = ex_must(g, tsi_poplin_matmul(g, y, p[P_W1], seq, "up"), "feed-forward up");
	ex_must_rc(g, tsi_popops_map_binary_in_place(g, TSI_POPOPS_ADD, f, p[P_B1], seq, "bias1"),
	           "feed-forward bias");
	ex_must_rc(g, tsi_popnn_nonlinearity_in_place(g, TSI_POPNN_RELU, f, seq, "relu"),
	           "feed-forward activation");
	f2 = ex_must(g, tsi_poplin_matmul(g, f, p[P_W2], seq, "down"), "feed-forward down");
	ex_must_rc(g, tsi_popops_map_binary_in_place(g, TSI_POPOPS_ADD, f2, p[P_B2], seq, "bias2"),
	           "feed-forward bias");
	tsi_debug_pop(g, id);
	h2 = ex_must(g, tsi_popops_add(g, y, f2, seq, "residual2"), "second residual");
	return layer_norm(g, h2, p[P_G2], p[P_BE2], eps, n, hd, seq);
}

tsi_program *bert_model_build(tsi_graph *graph, const bert_config *c)
{
	const unsigned tpi = tsi_graph_get_target(graph)->tiles_per_ipu;
	const size_t n = (size_t)c->batch * c->seq;
	tsi_program *seq = ex_must(graph, tsi_prog_sequence(graph, "encoder"), "the program");
	tsi_graph *stage = NULL;
	tsi_tensor *x = NULL, *scale = NULL, *eps = NULL;
	unsigned current = UINT32_MAX;
	char name[96];

	ex_must_rc(graph, tsi_popops_add_codelets(graph), "adding the popops codelets");
	ex_must_rc(graph, tsi_poplin_add_codelets(graph), "adding the poplin codelets");
	ex_must_rc(graph, tsi_popnn_add_codelets(graph), "adding the popnn codelets");
	for (unsigned l = 0; l < c->layers; l++) {
		unsigned s = (unsigned)((uint64_t)l * c->ipus / c->layers);
		tsi_tensor *p[P_COUNT];
		tsi_debug_id id;

		if (s != current) {
			/* A new pipeline stage: its IPU's tiles, its constants, and
			 * the activations copied over from the previous stage. */
			stage = ex_must(graph, tsi_graph_create_virtual(graph, s * tpi, (s + 1) * tpi),
			                "a pipeline stage");
			snprintf(name, sizeof(name), "stage%u/scale", s);
			scale = scalar(stage, 1.0f / sqrtf((float)(c->hidden / c->heads)), name);
			snprintf(name, sizeof(name), "stage%u/eps", s);
			eps = scalar(stage, LN_EPS, name);
			snprintf(name, sizeof(name), s == 0 ? "input" : "stage%u/input", s);
			tsi_tensor *in = variable(stage, n, c->hidden, name);
			if (s == 0)
				ex_must_rc(graph, tsi_graph_create_host_write(graph, "input", in), "input handle");
			else
				tsi_sequence_add(seq, ex_must(graph, tsi_prog_copy(graph, x, in),
				                              "copying activations between IPUs"));
			x = in;
			current = s;
		}
		snprintf(name, sizeof(name), "layer%u", l);
		id = tsi_debug_push(stage, name, name);
		for (int k = 0; k < P_COUNT; k++) {
			size_t rows, cols;
			param_shape(c, k, &rows, &cols);
			snprintf(name, sizeof(name), "l%u/%s", l, param_names[k]);
			p[k] = variable(stage, rows, cols, name);
			ex_must_rc(graph, tsi_graph_create_host_write(graph, name, p[k]), name);
		}
		x = layer(stage, c, l, x, p, scale, eps, seq);
		tsi_debug_pop(stage, id);
	}
	ex_must_rc(graph, tsi_graph_create_host_read(graph, "output", x), "output handle");
	return seq;
}

/* --- Host data ------------------------------------------------------------------------- */

/* xorshift64*: the same numbers on every machine. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [-scale, scale). */
static float uniform(uint64_t *s, float scale)
{
	return scale * (2.0f * (float)(next(s) >> 40) / (float)(1u << 24) - 1.0f);
}

void bert_host_free(bert_host *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n_params; i++) {
		free(h->param_names ? h->param_names[i] : NULL);
		free(h->params ? h->params[i] : NULL);
	}
	free(h->param_names);
	free(h->params);
	free(h->param_sizes);
	free(h->input);
	free(h->output);
	memset(h, 0, sizeof(*h));
}

int bert_host_new(bert_host *h, const bert_config *c, uint64_t seed)
{
	const size_t n = (size_t)c->batch * c->seq;
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;

	memset(h, 0, sizeof(*h));
	h->n_params = (size_t)c->layers * P_COUNT;
	h->param_names = calloc(h->n_params, sizeof(*h->param_names));
	h->params = calloc(h->n_params, sizeof(*h->params));
	h->param_sizes = calloc(h->n_params, sizeof(*h->param_sizes));
	h->n_input = n * c->hidden;
	h->input = malloc(n * c->hidden * sizeof(float));
	h->output = calloc(n * c->hidden, sizeof(float));
	if (!h->param_names || !h->params || !h->param_sizes || !h->input || !h->output)
		goto fail;
	for (size_t i = 0; i < n * c->hidden; i++)
		h->input[i] = uniform(&s, 1.0f);
	for (unsigned l = 0; l < c->layers; l++) {
		for (int k = 0; k < P_COUNT; k++) {
			size_t i = (size_t)l * P_COUNT + (size_t)k, rows, cols, count;
			param_shape(c, k, &rows, &cols);
			count = rows * (cols ? cols : 1);
			h->param_sizes[i] = count;
			h->params[i] = malloc(count * sizeof(float));
			h->param_names[i] = malloc(32);
			if (!h->params[i] || !h->param_names[i])
				goto fail;
			snprintf(h->param_names[i], 32, "l%u/%s", l, param_names[k]);
			/* Weights scaled by 1/sqrt(fan-in); gains 1 +- a little. */
			float sc = cols ? 1.0f / sqrtf((float)rows) : 0.1f;
			for (size_t e = 0; e < count; e++)
				h->params[i][e] = (k == P_G1 || k == P_G2 ? 1.0f : 0.0f) + uniform(&s, sc);
		}
	}
	return 0;
fail:
	bert_host_free(h);
	return -1;
}

void bert_host_write(const bert_host *h, tsi_engine *engine)
{
	ex_must_engine(engine, tsi_engine_write_tensor(engine, "input", h->input,
	                                               h->n_input * sizeof(float)),
	               "writing the input");
	for (size_t i = 0; i < h->n_params; i++)
		ex_must_engine(engine, tsi_engine_write_tensor(engine, h->param_names[i], h->params[i],
		                                               h->param_sizes[i] * sizeof(float)),
		               h->param_names[i]);
}

/* --- The host reference -------------------------------------------------------------- */

/* c [m, n] (+)= a [m, k] x b [k, n], with row strides. */
static void matmul(float *c, size_t ldc, const float *a, size_t lda, const float *b, size_t ldb,
                   size_t m, size_t k, size_t n, bool accumulate)
{
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			float sum = 0.0f;
			for (size_t t = 0; t < k; t++)
				sum += a[i * lda + t] * b[t * ldb + j];
			c[i * ldc + j] = accumulate ? c[i * ldc + j] + sum : sum;
		}
}

static void layer_norm_host(float *z, size_t rows, size_t cols, const float *g, const float *be)
{
	for (size_t r = 0; r < rows; r++) {
		float *row = z + r * cols, mean = 0.0f, var = 0.0f;
		for (size_t i = 0; i < cols; i++)
			mean += row[i];
		mean /= (float)cols;
		for (size_t i = 0; i < cols; i++) {
			row[i] -= mean;
			var += row[i] * row[i];
		}
		float sd = sqrtf(var / (float)cols + LN_EPS);
		for (size_t i = 0; i < cols; i++)
			row[i] = row[i] / sd * g[i] + be[i];
	}
}

int bert_model_reference(const bert_config *c, const bert_host *hst, unsigned layers, float *out)
{
	const size_t n = (size_t)c->batch * c->seq, hd = c->hidden, d = hd / c->heads, S = c->seq;
	const float scale = 1.0f / sqrtf((float)d);
	float *x = out, *q = malloc(n * hd * sizeof(float)), *k = malloc(n * hd * sizeof(float));
	float *v = malloc(n * hd * sizeof(float)), *attn = malloc(n * hd * sizeof(float));
	float *p = malloc(S * S * sizeof(float)), *ctx = malloc(S * d * sizeof(float));
	float *f = malloc(n * c->ffn * sizeof(float));
	int rc = -1;

	if (!q || !k || !v || !attn || !p || !ctx || !f)
		goto out;
	memcpy(x, hst->input, n * hd * sizeof(float));
	for (unsigned l = 0; l < layers && l < c->layers; l++) {
		float *const *w = hst->params + (size_t)l * P_COUNT;
		matmul(q, hd, x, hd, w[P_WQ], hd, n, hd, hd, false);
		matmul(k, hd, x, hd, w[P_WK], hd, n, hd, hd, false);
		matmul(v, hd, x, hd, w[P_WV], hd, n, hd, hd, false);
		memset(attn, 0, n * hd * sizeof(float));
		for (unsigned b = 0; b < c->batch; b++) {
			for (unsigned h = 0; h < c->heads; h++) {
				const float *qb = q + b * S * hd + h * d, *kb = k + b * S * hd + h * d;
				const float *vb = v + b * S * hd + h * d;
				for (size_t i = 0; i < S; i++) {
					float mx = -INFINITY, total = 0.0f;
					for (size_t j = 0; j < S; j++) {
						float sum = 0.0f;
						for (size_t t = 0; t < d; t++)
							sum += qb[i * hd + t] * kb[j * hd + t];
						p[i * S + j] = sum * scale;
						mx = fmaxf(mx, p[i * S + j]);
					}
					for (size_t j = 0; j < S; j++) {
						p[i * S + j] = expf(p[i * S + j] - mx);
						total += p[i * S + j];
					}
					for (size_t j = 0; j < S; j++)
						p[i * S + j] /= total;
				}
				matmul(ctx, d, p, S, vb, hd, S, S, d, false);
				matmul(attn + b * S * hd, hd, ctx, d, w[P_WO] + h * d * hd, hd, S, d, hd, true);
			}
		}
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < hd; j++)
				x[i * hd + j] += attn[i * hd + j] + w[P_BO][j];
		layer_norm_host(x, n, hd, w[P_G1], w[P_BE1]);
		matmul(f, c->ffn, x, hd, w[P_W1], c->ffn, n, hd, c->ffn, false);
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < c->ffn; j++)
				f[i * c->ffn + j] = fmaxf(0.0f, f[i * c->ffn + j] + w[P_B1][j]);
		matmul(attn, hd, f, c->ffn, w[P_W2], hd, n, c->ffn, hd, false);
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < hd; j++)
				x[i * hd + j] += attn[i * hd + j] + w[P_B2][j];
		layer_norm_host(x, n, hd, w[P_G2], w[P_BE2]);
	}
	rc = 0;
out:
	free(q);
	free(k);
	free(v);
	free(attn);
	free(p);
	free(ctx);
	free(f);
	return rc;
}
