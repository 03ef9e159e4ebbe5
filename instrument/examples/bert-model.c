/*
 * The BERT-shaped encoder (bert-model.h): the device graph, its host
 * data, and the same forward pass in plain C.
 *
 * Embeddings, on the first IPU, for the ids of all sequences:
 *   x = layernorm(onehot(ids) Ew + Ep[position]; eg, eb)      [B*S, H]
 * One layer, on its pipeline stage's IPU:
 *   for each sequence b and head h (width d = H / heads), on its own
 *   group of tiles:
 *     q, k, v = x_b Wq_h + bq_h, x_b Wk_h + bk_h, x_b Wv_h + bv_h
 *               (Wq_h: columns h*d.. of Wq; each bias folded into its
 *               matmul as an extra row of W against a column of ones)
 *     p = softmax(q k^T / sqrt(d))                            [S, S]
 *     attn_b += (p v) Wo_h                     (Wo_h: rows h*d.. of Wo)
 *   y = layernorm(x + attn + bo; g1, be1)
 *   x' = layernorm(y + gelu(y W1 + b1) W2 + b2; g2, be2)
 * where layernorm(z; g, be) = (z - mean) / sqrt(var + eps) * g + be over
 * each row and gelu(u) = u * sigmoid(1.702 u), the sigmoid form of BERT's
 * GELU (the ops library has no GELU, and no erf to build the exact one).
 *
 * Weight matrices are placed by hand: one variable per tile shard of
 * SHARD_GRAIN elements or more, spread over all the stage's tiles (Q, K
 * and V head by head) and joined into one tensor (tsi_tensor_concat), as
 * a model that lays its parameters out itself does. The ops library
 * creates one or two variables per operation, so without the shards the
 * large model would have about 19,000 variables for its 20,000 compute
 * sets, a fifth of issue 8's 100,000 (the graph profile counts graph
 * variables, not their per-tile pieces).
 */
#include "bert-model.h"

#include "example-util.h"

#include <tilescope/log.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LN_EPS 1e-5f
/* The sigmoid form of GELU: u * sigmoid(GELU_K * u). */
#define GELU_K 1.702f
/* Largest size of any one dimension. */
#define MAX_DIM (1u << 20)
/* Fewest elements in one shard of a weight matrix. */
#define SHARD_GRAIN 8
/* Longest parameter or variable name. */
#define NAME_LEN 64

/* The parameters of the embeddings, first in host order. */
enum { G_WORD, G_POS, G_GAMMA, G_BETA, G_COUNT };
static const char *const global_names[G_COUNT] = {"emb/word", "emb/pos", "emb/gamma",
                                                  "emb/beta"};
/* The parameters of one layer, in host order after the embeddings'. */
enum {
	P_WQ, P_WK, P_WV, P_BQ, P_BK, P_BV, P_WO, P_BO,
	P_G1, P_BE1, P_W1, P_B1, P_W2, P_B2, P_G2, P_BE2, P_COUNT
};
static const char *const param_names[P_COUNT] = {"wq", "wk", "wv", "bq",  "bk", "bv",
                                                 "wo", "bo", "g1", "be1", "w1", "b1",
                                                 "w2", "b2", "g2", "be2"};

/* How a parameter's initial values are drawn. */
typedef enum { INIT_MATRIX, INIT_EMBEDDING, INIT_GAIN, INIT_BIAS } init_kind;

/*
 * Parameter `i` in host order (the embeddings', then each layer's): its
 * handle name into name[NAME_LEN], its rows and columns (columns 0: a
 * vector) and how it is initialised. The device graph and the host data
 * both enumerate parameters through this, so their names always agree.
 */
static void param_info(const bert_config *c, size_t i, char *name, size_t *rows, size_t *cols,
                       init_kind *kind)
{
	if (i < G_COUNT) {
		snprintf(name, NAME_LEN, "%s", global_names[i]);
		*rows = i == G_WORD ? c->vocab : i == G_POS ? c->seq : c->hidden;
		*cols = i == G_WORD || i == G_POS ? c->hidden : 0;
		*kind = i == G_GAMMA ? INIT_GAIN : i == G_BETA ? INIT_BIAS : INIT_EMBEDDING;
		return;
	}
	size_t l = (i - G_COUNT) / P_COUNT;
	int p = (int)((i - G_COUNT) % P_COUNT);

	snprintf(name, NAME_LEN, "l%zu/%s", l, param_names[p]);
	switch (p) {
	case P_WQ: case P_WK: case P_WV: case P_WO:
		*rows = c->hidden; *cols = c->hidden; *kind = INIT_MATRIX; break;
	case P_W1: *rows = c->hidden; *cols = c->ffn; *kind = INIT_MATRIX; break;
	case P_W2: *rows = c->ffn; *cols = c->hidden; *kind = INIT_MATRIX; break;
	case P_B1: *rows = c->ffn; *cols = 0; *kind = INIT_BIAS; break;
	case P_G1: case P_G2: *rows = c->hidden; *cols = 0; *kind = INIT_GAIN; break;
	default: *rows = c->hidden; *cols = 0; *kind = INIT_BIAS; break;
	}
}

/* The number of parameter tensors of configuration `c`. */
static size_t param_count(const bert_config *c)
{
	return G_COUNT + (size_t)c->layers * P_COUNT;
}

/* Sizes come from the command line: reject what cannot be built before
 * anything is allocated, with a message fit for a usage error. */
const char *bert_config_check(const bert_config *c)
{
	const unsigned dims[] = {c->layers, c->hidden, c->heads, c->ffn,
	                         c->seq,    c->batch,  c->ipus,  c->vocab};

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

/* Constants every stage needs, on its own IPU (a broadcast from another
 * IPU's tile would cost an inter-IPU exchange per use). */
typedef struct stage_consts {
	const tsi_tensor *scale; /* 1 / sqrt(head width) */
	const tsi_tensor *eps;   /* LN_EPS */
	const tsi_tensor *gelu;  /* GELU_K */
} stage_consts;

/* A variable of `g` spread linearly over its tiles (rows whole when
 * `cols` > 0; columns 0: a vector), named `name`. */
static tsi_tensor *variable(tsi_graph *g, tsi_type type, size_t rows, size_t cols, size_t grain,
                            const char *name)
{
	tsi_tensor *t = cols ? tsi_graph_add_variable(g, type, TSI_SHAPE(rows, cols), name)
	                     : tsi_graph_add_variable(g, type, TSI_SHAPE(rows), name);

	ex_must(g, t, name);
	ex_must_rc(g, tsi_graph_map_linearly(g, t, grain), name);
	return t;
}

/*
 * A [rows, cols] weight matrix of `g` made of one variable per shard, in
 * `blocks` blocks of columns (blocks divides cols): block j is spread
 * over the j-th of `blocks` equal ranges of the tiles, in as many shards
 * as the range has tiles (fewer when the block has fewer than SHARD_GRAIN
 * elements a tile), each shard on its own tile and named "<name>/<i>".
 * A projection cut by head has one block per head so that each head's
 * columns sit on consecutive tiles: a head's matmul then gathers from one
 * run of tiles, not from every tile. The result is the blocks' row-major
 * view, so one host write handle on it fills every shard.
 */
static tsi_tensor *sharded(tsi_graph *g, size_t rows, size_t cols, size_t blocks,
                           const char *name)
{
	const unsigned tiles = tsi_graph_get_target(g)->num_tiles;
	const size_t width = cols / blocks, numel = rows * width;
	tsi_tensor **parts = NULL, **block = malloc(blocks * sizeof(*block)), *out;
	char part[NAME_LEN + 16];
	size_t index = 0;

	if (!block)
		ex_fail(name, "out of memory");
	for (size_t j = 0; j < blocks; j++) {
		const size_t t0 = j * tiles / blocks, span = (j + 1) * tiles / blocks - t0;
		size_t shards = (numel + SHARD_GRAIN - 1) / SHARD_GRAIN;

		if (shards > span)
			shards = span ? span : 1;
		parts = malloc(shards * sizeof(*parts));
		if (!parts)
			ex_fail(name, "out of memory");
		for (size_t i = 0; i < shards; i++) {
			size_t lo = numel * i / shards, hi = numel * (i + 1) / shards;
			snprintf(part, sizeof(part), "%s/%zu", name, index++);
			parts[i] = ex_must(g, tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(hi - lo), part),
			                   part);
			ex_must_rc(g, tsi_graph_set_tile_mapping(g, parts[i],
			                                         (unsigned)(t0 + i * span / shards)),
			           part);
		}
		block[j] = ex_must(g, tsi_tensor_reshape(ex_must(g, tsi_tensor_concat(parts, shards, 0),
		                                                 name),
		                                         TSI_SHAPE(rows, width)),
		                   name);
		free(parts);
	}
	out = ex_must(g, tsi_tensor_concat(block, blocks, 1), name);
	free(block);
	return out;
}

/* A scalar constant as a broadcastable [1], on the graph's first tile. */
static tsi_tensor *scalar(tsi_graph *g, float value, const char *name)
{
	tsi_tensor *t = ex_must(g, tsi_graph_add_constant_fill(g, TSI_FLOAT, TSI_SHAPE(1), value, name),
	                        name);

	ex_must_rc(g, tsi_graph_set_tile_mapping(g, t, 0), name);
	return t;
}

/* Appends `step` to `seq`, exiting on failure as every other call does. */
static void append(tsi_graph *g, tsi_program *seq, tsi_program *step, const char *what)
{
	ex_must(g, step, what);
	ex_must_rc(g, tsi_sequence_add(seq, step), what);
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

/* Columns [lo, hi) of weight w [H, H] with the same elements of bias
 * vector b [H] as an extra last row: [H + 1, hi - lo]. */
static tsi_tensor *with_bias(tsi_graph *g, const tsi_tensor *w, const tsi_tensor *b, size_t lo,
                             size_t hi)
{
	return ex_must(g, tsi_tensor_concat2(tsi_tensor_slice_dim(w, lo, hi, 1),
	                                     tsi_tensor_expand(tsi_tensor_slice(b, lo, hi), 0), 0),
	               "a projection with its bias");
}

/*
 * Attention of sequence b, head h, on its own tiles `pg`: accumulates the
 * head's share of the output projection into attn_b. The q, k and v
 * biases are folded into their projections, [x_b 1] [W_h; b_h], as
 * fused implementations do: a bias addition would cost each of the
 * batch x heads x layers pairs a compute set, its exchange and its sync,
 * and control code on every tile grows with each (8 bytes a program).
 */
static void attention_head(tsi_graph *pg, const bert_config *c, unsigned h, const tsi_tensor *xb,
                           const tsi_tensor *attn_b, tsi_tensor *const *p, const stage_consts *k,
                           tsi_program *seq)
{
	const size_t d = c->hidden / c->heads, lo = (size_t)h * d, hi = lo + d, S = c->seq;
	tsi_tensor *ones, *x1, *q, *kk, *v, *scores, *probs, *ctx;

	ones = ex_must(pg, tsi_graph_add_constant_fill(pg, TSI_FLOAT, TSI_SHAPE(S, 1), 1.0, "ones"),
	               "the bias column");
	ex_must_rc(pg, tsi_graph_map_linearly(pg, ones, 1), "the bias column");
	x1 = ex_must(pg, tsi_tensor_concat2(xb, ones, 1), "the input with its bias column");
	q = ex_must(pg, tsi_poplin_matmul(pg, x1, with_bias(pg, p[P_WQ], p[P_BQ], lo, hi), seq, "q"),
	            "q projection");
	kk = ex_must(pg, tsi_poplin_matmul(pg, x1, with_bias(pg, p[P_WK], p[P_BK], lo, hi), seq, "k"),
	             "k projection");
	v = ex_must(pg, tsi_poplin_matmul(pg, x1, with_bias(pg, p[P_WV], p[P_BV], lo, hi), seq, "v"),
	            "v projection");
	scores = ex_must(pg, tsi_poplin_matmul(pg, q, tsi_tensor_transpose(kk), seq, "qk"),
	                 "attention scores");
	ex_must_rc(pg, tsi_popops_map_binary_in_place(pg, TSI_POPOPS_MULTIPLY, scores, k->scale, seq,
	                                              "scale"),
	           "scaling the scores");
	probs = ex_must(pg, tsi_popnn_nonlinearity(pg, TSI_POPNN_SOFTMAX, scores, seq, "softmax"),
	                "attention softmax");
	ctx = ex_must(pg, tsi_poplin_matmul(pg, probs, v, seq, "context"), "attention context");
	ex_must_rc(pg, tsi_poplin_matmul_acc(pg, attn_b, 1.0f, ctx, tsi_tensor_slice(p[P_WO], lo, hi),
	                                     seq, "output"),
	           "attention output projection");
}

/* One encoder layer on stage graph `g`; returns its output [N, H]. */
static tsi_tensor *layer(tsi_graph *g, const bert_config *c, unsigned l, const tsi_tensor *x,
                         tsi_tensor *const *p, const stage_consts *k, tsi_program *seq)
{
	const size_t n = (size_t)c->batch * c->seq, hd = c->hidden;
	char name[NAME_LEN];
	tsi_tensor *attn, *h1, *y, *f, *gate, *f2, *h2;
	tsi_debug_id id;

	id = tsi_debug_push(g, "attention", NULL);
	/* Inside the layer's debug context: named "layer<l>/attention/attn". */
	attn = variable(g, TSI_FLOAT, n, hd, hd, "attn");
	ex_must_rc(g, tsi_popops_fill(g, attn, 0.0, seq, "zero"), "zeroing the attention output");
	/* Each (sequence, head) pair works on its own group of tiles, as a
	 * model sharded by head does: its projections, scores, softmax and
	 * context stay within the group. */
	const unsigned pairs = c->batch * c->heads, tiles = tsi_graph_get_target(g)->num_tiles;
	const unsigned group = tiles / pairs ? tiles / pairs : 1;
	for (unsigned b = 0; b < c->batch; b++) {
		const size_t r0 = (size_t)b * c->seq, r1 = r0 + c->seq;
		const tsi_tensor *xb = tsi_tensor_slice(x, r0, r1);
		const tsi_tensor *attn_b = tsi_tensor_slice(attn, r0, r1);
		for (unsigned h = 0; h < c->heads; h++) {
			unsigned u = b * c->heads + h, lo_tile = (u * group) % tiles;
			tsi_graph *pg = ex_must(g, tsi_graph_create_virtual(g, lo_tile, lo_tile + group),
			                        "a head's tiles");
			tsi_debug_id head;

			snprintf(name, sizeof(name), "seq%u/head%u", b, h);
			head = tsi_debug_push(pg, name, NULL);
			attention_head(pg, c, h, xb, attn_b, p, k, seq);
			tsi_debug_pop(pg, head);
		}
	}
	ex_must_rc(g, tsi_popops_map_binary_in_place(g, TSI_POPOPS_ADD, attn, p[P_BO], seq, "bias"),
	           "attention bias");
	tsi_debug_pop(g, id);
	h1 = ex_must(g, tsi_popops_add(g, x, attn, seq, "residual1"), "first residual");
	y = layer_norm(g, h1, p[P_G1], p[P_BE1], k->eps, n, hd, seq);

	id = tsi_debug_push(g, "ffn", NULL);
	f = ex_must(g, tsi_poplin_matmul(g, y, p[P_W1], seq, "up"), "feed-forward up");
	ex_must_rc(g, tsi_popops_map_binary_in_place(g, TSI_POPOPS_ADD, f, p[P_B1], seq, "bias1"),
	           "feed-forward bias");
	gate = ex_must(g, tsi_popops_map_binary(g, TSI_POPOPS_MULTIPLY, f, k->gelu, seq, "gelu_scale"),
	               "GELU scaling");
	ex_must_rc(g, tsi_popnn_nonlinearity_in_place(g, TSI_POPNN_SIGMOID, gate, seq, "gelu_sigmoid"),
	           "GELU sigmoid");
	ex_must_rc(g, tsi_popops_map_binary_in_place(g, TSI_POPOPS_MULTIPLY, f, gate, seq, "gelu"),
	           "GELU product");
	f2 = ex_must(g, tsi_poplin_matmul(g, f, p[P_W2], seq, "down"), "feed-forward down");
	ex_must_rc(g, tsi_popops_map_binary_in_place(g, TSI_POPOPS_ADD, f2, p[P_B2], seq, "bias2"),
	           "feed-forward bias");
	tsi_debug_pop(g, id);
	h2 = ex_must(g, tsi_popops_add(g, y, f2, seq, "residual2"), "second residual");
	return layer_norm(g, h2, p[P_G2], p[P_BE2], k->eps, n, hd, seq);
}

/*
 * Parameter `i` (host order) on graph `g` with its host write handle:
 * matrices sharded by tile, vectors spread linearly.
 */
static tsi_tensor *parameter(tsi_graph *root, tsi_graph *g, const bert_config *c, size_t i)
{
	char name[NAME_LEN];
	size_t rows, cols;
	init_kind kind;
	tsi_tensor *t;

	param_info(c, i, name, &rows, &cols, &kind);
	/* Q, K and V are cut by head (columns); Wo by head too, but in rows,
	 * which a row-major layout keeps together anyway. */
	int p = i < G_COUNT ? -1 : (int)((i - G_COUNT) % P_COUNT);
	size_t blocks = p == P_WQ || p == P_WK || p == P_WV ? c->heads : 1;
	t = cols ? sharded(g, rows, cols, blocks, name) : variable(g, TSI_FLOAT, rows, 0, 1, name);
	ex_must_rc(root, tsi_graph_create_host_write(root, name, t), name);
	return t;
}

/* The embeddings on stage graph `g` (the first IPU): returns x [N, H]. */
static tsi_tensor *embeddings(tsi_graph *root, tsi_graph *g, const bert_config *c,
                              const stage_consts *k, tsi_program *seq)
{
	const size_t n = (size_t)c->batch * c->seq;
	tsi_debug_id id = tsi_debug_push(g, "embeddings", "embeddings");
	tsi_tensor *p[G_COUNT], *ids, *onehot, *x;

	for (size_t i = 0; i < G_COUNT; i++)
		p[i] = parameter(root, g, c, i);
	ids = variable(g, TSI_INT, n, 0, 1, "ids");
	ex_must_rc(root, tsi_graph_create_host_write(root, "ids", ids), "the ids handle");
	/* Rows in pieces of 64 so that the encoding spreads over many tiles. */
	onehot = variable(g, TSI_FLOAT, n, c->vocab, 64, "onehot");
	ex_must_rc(g, tsi_popops_encode_one_hot(g, ids, onehot, seq, "onehot"), "one-hot encoding");
	x = ex_must(g, tsi_poplin_matmul(g, onehot, p[G_WORD], seq, "word"), "word embedding");
	ex_must_rc(g, tsi_popops_map_binary_in_place(
	                  g, TSI_POPOPS_ADD, tsi_tensor_reshape(x, TSI_SHAPE(c->batch, c->seq, c->hidden)),
	                  p[G_POS], seq, "position"),
	           "position embedding");
	x = layer_norm(g, x, p[G_GAMMA], p[G_BETA], k->eps, n, c->hidden, seq);
	tsi_debug_pop(g, id);
	return x;
}

/* Builds the pipeline: each stage's constants and input copy, then its
 * layers, logging progress (a large model takes tens of seconds). */
tsi_program *bert_model_build(tsi_graph *graph, const bert_config *c)
{
	const unsigned tpi = tsi_graph_get_target(graph)->tiles_per_ipu;
	const size_t n = (size_t)c->batch * c->seq;
	tsi_program *seq = ex_must(graph, tsi_prog_sequence(graph, "encoder"), "the program");
	tsi_graph *stage = NULL;
	tsi_tensor *x = NULL;
	stage_consts k = {0};
	unsigned current = UINT32_MAX;
	char name[NAME_LEN];

	ex_must_rc(graph, tsi_popops_add_codelets(graph), "adding the popops codelets");
	ex_must_rc(graph, tsi_poplin_add_codelets(graph), "adding the poplin codelets");
	ex_must_rc(graph, tsi_popnn_add_codelets(graph), "adding the popnn codelets");
	for (unsigned l = 0; l < c->layers; l++) {
		unsigned s = (unsigned)((uint64_t)l * c->ipus / c->layers);
		tsi_tensor *p[P_COUNT];
		tsi_debug_id id;

		if (s != current) {
			/* A new pipeline stage: its IPU's tiles, its constants, and
			 * its input (the embeddings, or the activations copied over
			 * from the previous stage). */
			stage = ex_must(graph, tsi_graph_create_virtual(graph, s * tpi, (s + 1) * tpi),
			                "a pipeline stage");
			snprintf(name, sizeof(name), "stage%u/scale", s);
			k.scale = scalar(stage, 1.0f / sqrtf((float)(c->hidden / c->heads)), name);
			snprintf(name, sizeof(name), "stage%u/eps", s);
			k.eps = scalar(stage, LN_EPS, name);
			snprintf(name, sizeof(name), "stage%u/gelu", s);
			k.gelu = scalar(stage, GELU_K, name);
			if (s == 0) {
				x = embeddings(graph, stage, c, &k, seq);
			} else {
				snprintf(name, sizeof(name), "stage%u/input", s);
				tsi_tensor *in = variable(stage, TSI_FLOAT, n, c->hidden, c->hidden, name);
				append(graph, seq, tsi_prog_copy(graph, x, in),
				       "copying activations between IPUs");
				x = in;
			}
			current = s;
		}
		snprintf(name, sizeof(name), "layer%u", l);
		id = tsi_debug_push(stage, name, name);
		for (int i = 0; i < P_COUNT; i++)
			p[i] = parameter(graph, stage, c, G_COUNT + (size_t)l * P_COUNT + (size_t)i);
		x = layer(stage, c, l, x, p, &k, seq);
		tsi_debug_pop(stage, id);
		tsi_log(TSI_LOG_INFO, "BERT", "Built layer %u of %u (IPU %u)", l + 1, c->layers, s);
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

/* Uniform in [-scale, scale), from the top 24 bits (exact in a float). */
static float uniform(uint64_t *s, float scale)
{
	return scale * (2.0f * (float)(next(s) >> 40) / (float)(1u << 24) - 1.0f);
}

/* Frees every array of `h` (entries may be NULL after a failed
 * bert_host_new) and zeroes it. */
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
	free(h->ids);
	free(h->output);
	memset(h, 0, sizeof(*h));
}

/* Draws the ids, then the parameters in host order, from one generator:
 * the same seed gives the same model whatever the machine. */
int bert_host_new(bert_host *h, const bert_config *c, uint64_t seed)
{
	const size_t n = (size_t)c->batch * c->seq;
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;

	memset(h, 0, sizeof(*h));
	h->n_params = param_count(c);
	h->param_names = calloc(h->n_params, sizeof(*h->param_names));
	h->params = calloc(h->n_params, sizeof(*h->params));
	h->param_sizes = calloc(h->n_params, sizeof(*h->param_sizes));
	h->n_ids = n;
	h->ids = malloc(n * sizeof(*h->ids));
	h->n_output = n * c->hidden;
	h->output = calloc(h->n_output, sizeof(float));
	if (!h->param_names || !h->params || !h->param_sizes || !h->ids || !h->output)
		goto fail;
	for (size_t i = 0; i < n; i++)
		h->ids[i] = (int32_t)(next(&s) % c->vocab);
	for (size_t i = 0; i < h->n_params; i++) {
		size_t rows, cols, count;
		init_kind kind;

		h->param_names[i] = malloc(NAME_LEN);
		if (!h->param_names[i])
			goto fail;
		param_info(c, i, h->param_names[i], &rows, &cols, &kind);
		count = rows * (cols ? cols : 1);
		h->param_sizes[i] = count;
		h->params[i] = malloc(count * sizeof(float));
		if (!h->params[i])
			goto fail;
		/* Weights scaled by 1/sqrt(fan-in); gains 1 +- a little. */
		float scale = kind == INIT_MATRIX ? 1.0f / sqrtf((float)rows)
		              : kind == INIT_EMBEDDING ? 1.0f : 0.1f;
		for (size_t e = 0; e < count; e++)
			h->params[i][e] = (kind == INIT_GAIN ? 1.0f : 0.0f) + uniform(&s, scale);
	}
	return 0;
fail:
	bert_host_free(h);
	return -1;
}

/* Exits through ex_must_engine when a write fails (a handle the graph
 * lacks, or a size that does not match). */
void bert_host_write(const bert_host *h, tsi_engine *engine)
{
	ex_must_engine(engine, tsi_engine_write_tensor(engine, "ids", h->ids,
	                                               h->n_ids * sizeof(*h->ids)),
	               "writing the ids");
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

/* z [rows, cols] = layernorm(z; g, be), row by row, in place. */
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

/* out [N, H] += the attention of every (sequence, head) of x, with q, k, v
 * [N, H] already projected and biased; p [S, S] and ctx [S, d] scratch. */
static void attention_host(const bert_config *c, float *const *w, const float *q, const float *k,
                           const float *v, float *p, float *ctx, float *out)
{
	const size_t hd = c->hidden, d = hd / c->heads, S = c->seq;
	const float scale = 1.0f / sqrtf((float)d);

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
			matmul(out + b * S * hd, hd, ctx, d, w[P_WO] + h * d * hd, hd, S, d, hd, true);
		}
	}
}

/* y [rows, cols] += the bias [cols]. */
static void add_bias(float *y, size_t rows, size_t cols, const float *bias)
{
	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			y[i * cols + j] += bias[j];
}

/* Straightforward loops in the order of the formulas at the top of this
 * file; sums run in another order than on the device, hence the
 * caller's tolerance. */
int bert_model_reference(const bert_config *c, const bert_host *hst, unsigned layers, float *out)
{
	const size_t n = (size_t)c->batch * c->seq, hd = c->hidden, d = hd / c->heads, S = c->seq;
	float *x = out, *q = malloc(n * hd * sizeof(float)), *k = malloc(n * hd * sizeof(float));
	float *v = malloc(n * hd * sizeof(float)), *attn = malloc(n * hd * sizeof(float));
	float *p = malloc(S * S * sizeof(float)), *ctx = malloc(S * d * sizeof(float));
	float *f = malloc(n * c->ffn * sizeof(float));
	float *const *g = hst->params;
	int rc = -1;

	if (!q || !k || !v || !attn || !p || !ctx || !f)
		goto out;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < hd; j++)
			x[i * hd + j] = g[G_WORD][(size_t)hst->ids[i] * hd + j] + g[G_POS][(i % S) * hd + j];
	layer_norm_host(x, n, hd, g[G_GAMMA], g[G_BETA]);
	for (unsigned l = 0; l < layers && l < c->layers; l++) {
		float *const *w = hst->params + G_COUNT + (size_t)l * P_COUNT;
		matmul(q, hd, x, hd, w[P_WQ], hd, n, hd, hd, false);
		matmul(k, hd, x, hd, w[P_WK], hd, n, hd, hd, false);
		matmul(v, hd, x, hd, w[P_WV], hd, n, hd, hd, false);
		add_bias(q, n, hd, w[P_BQ]);
		add_bias(k, n, hd, w[P_BK]);
		add_bias(v, n, hd, w[P_BV]);
		memset(attn, 0, n * hd * sizeof(float));
		attention_host(c, w, q, k, v, p, ctx, attn);
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < hd; j++)
				x[i * hd + j] += attn[i * hd + j] + w[P_BO][j];
		layer_norm_host(x, n, hd, w[P_G1], w[P_BE1]);
		matmul(f, c->ffn, x, hd, w[P_W1], c->ffn, n, hd, c->ffn, false);
		for (size_t i = 0; i < n * c->ffn; i++) {
			float u = f[i] + w[P_B1][i % c->ffn];
			f[i] = u / (1.0f + expf(-GELU_K * u));
		}
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
