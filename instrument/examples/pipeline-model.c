/*
 * The multi-IPU pipeline model, its host data and host reference (see
 * pipeline-model.h).
 */
#include "pipeline-model.h"
#include "example-util.h"

#include <tilescope/gcl.h>
#include <tilescope/poplin.h>
#include <tilescope/popnn.h>
#include <tilescope/popops.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Seeds of the host data: the labelling map, the replicas' inputs
 * (PIPELINE_DATA_SEED + replica) and the initial parameters. */
#define PIPELINE_TEACHER_SEED 12345u
#define PIPELINE_DATA_SEED 777u
#define PIPELINE_PARAM_SEED 4242u

const char *const pipeline_param_names[PIPELINE_N_PARAMS] = {"W1", "b1", "W2", "b2"};
const size_t pipeline_param_sizes[PIPELINE_N_PARAMS] = {
	PIPELINE_IN * PIPELINE_HIDDEN, PIPELINE_HIDDEN, PIPELINE_HIDDEN * PIPELINE_CLASSES,
	PIPELINE_CLASSES,
};

/* --- Host data and the host reference ------------------------------------ */

/* A small linear congruential generator: the same data on every host. */
static double lcg_uniform(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*state >> 11) / 9007199254740992.0; /* [0, 1) */
}

/*
 * Fills the host data: for each replica `steps` batches of inputs in
 * [-1, 1) labelled by the arg-max of a fixed random linear map (a problem
 * the model can learn), and small initial parameters (biases zero).
 */
void pipeline_make_data(pipeline_data *h, unsigned steps)
{
	double teacher[PIPELINE_IN][PIPELINE_CLASSES];
	uint64_t st = PIPELINE_TEACHER_SEED;

	h->steps = steps;
	for (unsigned d = 0; d < PIPELINE_IN; d++)
		for (unsigned c = 0; c < PIPELINE_CLASSES; c++)
			teacher[d][c] = 2.0 * lcg_uniform(&st) - 1.0;
	for (unsigned r = 0; r < PIPELINE_REPLICAS; r++) {
		h->x[r] = malloc((size_t)steps * PIPELINE_BATCH * PIPELINE_IN * sizeof(float));
		h->labels[r] = malloc((size_t)steps * PIPELINE_BATCH * sizeof(uint32_t));
		h->loss[r] = calloc(steps, sizeof(float));
		if (!h->x[r] || !h->labels[r] || !h->loss[r])
			ex_fail("allocating host data", "out of memory");
		/* Each replica's own stream of data: the first steps are the
		 * same whatever the number of steps. */
		st = PIPELINE_DATA_SEED + r;
		for (size_t i = 0; i < (size_t)steps * PIPELINE_BATCH; i++) {
			float *x = &h->x[r][i * PIPELINE_IN];
			double best = -INFINITY;

			for (unsigned d = 0; d < PIPELINE_IN; d++)
				x[d] = (float)(2.0 * lcg_uniform(&st) - 1.0);
			for (unsigned c = 0; c < PIPELINE_CLASSES; c++) {
				double s = 0.0;
				for (unsigned d = 0; d < PIPELINE_IN; d++)
					s += x[d] * teacher[d][c];
				if (s > best) {
					best = s;
					h->labels[r][i] = c;
				}
			}
		}
	}
	for (int p = 0; p < PIPELINE_N_PARAMS; p++) {
		h->params[p] = calloc(pipeline_param_sizes[p], sizeof(float));
		if (!h->params[p])
			ex_fail("allocating host data", "out of memory");
	}
	st = PIPELINE_PARAM_SEED;
	for (size_t i = 0; i < pipeline_param_sizes[PIPELINE_W1]; i++)
		h->params[PIPELINE_W1][i] = (float)(0.2 * (lcg_uniform(&st) - 0.5));
	for (size_t i = 0; i < pipeline_param_sizes[PIPELINE_W2]; i++)
		h->params[PIPELINE_W2][i] = (float)(0.4 * (lcg_uniform(&st) - 0.5));
}

/* Frees what pipeline_make_data allocated; zeroes `h`. */
void pipeline_data_free(pipeline_data *h)
{
	for (unsigned r = 0; r < PIPELINE_REPLICAS; r++) {
		free(h->x[r]);
		free(h->labels[r]);
		free(h->loss[r]);
	}
	for (int p = 0; p < PIPELINE_N_PARAMS; p++)
		free(h->params[p]);
	memset(h, 0, sizeof(*h));
}

/*
 * One replica's gradients on batch `step` in double, added into g[]
 * (laid out as the parameters); returns the batch's summed
 * cross-entropy. The same formulas as the device: deltas = p - onehot,
 * dW2 = h^T deltas, dh = deltas W2^T, da = dh where h > 0, dW1 = x^T da.
 */
static double host_gradients(const pipeline_data *h, const double *const params[PIPELINE_N_PARAMS],
                             unsigned r, unsigned step, double *const g[PIPELINE_N_PARAMS])
{
	double loss = 0.0;

	for (unsigned i = 0; i < PIPELINE_BATCH; i++) {
		size_t item = (size_t)step * PIPELINE_BATCH + i;
		const float *x = &h->x[r][item * PIPELINE_IN];
		uint32_t label = h->labels[r][item];
		double hid[PIPELINE_HIDDEN], p[PIPELINE_CLASSES], dh[PIPELINE_HIDDEN];
		double max = -INFINITY, sum = 0.0;

		for (unsigned j = 0; j < PIPELINE_HIDDEN; j++) {
			double a = params[PIPELINE_B1][j];
			for (unsigned d = 0; d < PIPELINE_IN; d++)
				a += x[d] * params[PIPELINE_W1][d * PIPELINE_HIDDEN + j];
			hid[j] = a > 0.0 ? a : 0.0;
		}
		for (unsigned c = 0; c < PIPELINE_CLASSES; c++) {
			double z = params[PIPELINE_B2][c];
			for (unsigned j = 0; j < PIPELINE_HIDDEN; j++)
				z += hid[j] * params[PIPELINE_W2][j * PIPELINE_CLASSES + c];
			p[c] = z;
			if (z > max)
				max = z;
		}
		for (unsigned c = 0; c < PIPELINE_CLASSES; c++) {
			p[c] = exp(p[c] - max);
			sum += p[c];
		}
		for (unsigned c = 0; c < PIPELINE_CLASSES; c++)
			p[c] /= sum;
		loss -= log(p[label]);
		p[label] -= 1.0; /* now the deltas */
		for (unsigned j = 0; j < PIPELINE_HIDDEN; j++) {
			dh[j] = 0.0;
			for (unsigned c = 0; c < PIPELINE_CLASSES; c++) {
				g[PIPELINE_W2][j * PIPELINE_CLASSES + c] += hid[j] * p[c];
				dh[j] += p[c] * params[PIPELINE_W2][j * PIPELINE_CLASSES + c];
			}
			if (hid[j] <= 0.0)
				dh[j] = 0.0;
		}
		for (unsigned c = 0; c < PIPELINE_CLASSES; c++)
			g[PIPELINE_B2][c] += p[c];
		for (unsigned j = 0; j < PIPELINE_HIDDEN; j++) {
			g[PIPELINE_B1][j] += dh[j];
			for (unsigned d = 0; d < PIPELINE_IN; d++)
				g[PIPELINE_W1][d * PIPELINE_HIDDEN + j] += x[d] * dh[j];
		}
	}
	return loss;
}

/*
 * The host reference of the whole training: every step, both replicas'
 * gradients summed, then the update. Leaves the final parameters in
 * h->params (as floats) and each replica's loss per step in ref_loss
 * [steps * PIPELINE_REPLICAS].
 */
void pipeline_host_train(pipeline_data *h, double *ref_loss)
{
	double *params[PIPELINE_N_PARAMS], *g[PIPELINE_N_PARAMS];
	const double scale = PIPELINE_LEARNING_RATE / (double)(PIPELINE_BATCH * PIPELINE_REPLICAS);

	for (int p = 0; p < PIPELINE_N_PARAMS; p++) {
		params[p] = malloc(pipeline_param_sizes[p] * sizeof(double));
		g[p] = malloc(pipeline_param_sizes[p] * sizeof(double));
		if (!params[p] || !g[p])
			ex_fail("allocating the host reference", "out of memory");
		for (size_t i = 0; i < pipeline_param_sizes[p]; i++)
			params[p][i] = h->params[p][i];
	}
	for (unsigned s = 0; s < h->steps; s++) {
		for (int p = 0; p < PIPELINE_N_PARAMS; p++)
			memset(g[p], 0, pipeline_param_sizes[p] * sizeof(double));
		for (unsigned r = 0; r < PIPELINE_REPLICAS; r++)
			ref_loss[s * PIPELINE_REPLICAS + r] =
			    host_gradients(h, (const double *const *)params, r, s, g);
		for (int p = 0; p < PIPELINE_N_PARAMS; p++)
			for (size_t i = 0; i < pipeline_param_sizes[p]; i++)
				params[p][i] -= scale * g[p][i];
	}
	for (int p = 0; p < PIPELINE_N_PARAMS; p++) {
		for (size_t i = 0; i < pipeline_param_sizes[p]; i++)
			h->params[p][i] = (float)params[p][i];
		free(params[p]);
		free(g[p]);
	}
}

/* --- The device model ------------------------------------------------------- */

/* Maps `t` over the tiles of `graph` (a stage) and returns it. */
static tsi_tensor *mapped(tsi_graph *graph, tsi_tensor *t)
{
	tsi_graph_map_linearly(graph, t, 1);
	return t;
}

/* Appends `step` to `seq` (both may be NULL after an error: the graph
 * keeps the first one). */
static void add(tsi_program *seq, tsi_program *step)
{
	if (seq && step)
		tsi_sequence_add(seq, step);
}

/*
 * Builds the replicated, pipelined model in `graph` and returns the
 * training program: a Repeat of `steps` steps. Graph calls record their
 * first error and return NULL quietly after it; the caller checks once.
 */
tsi_program *pipeline_build(tsi_graph *graph, unsigned steps)
{
	const unsigned tpi = tsi_graph_get_target(graph)->tiles_per_ipu;
	const float scale =
	    (float)(-PIPELINE_LEARNING_RATE / (double)(PIPELINE_BATCH * PIPELINE_REPLICAS));
	const size_t batch_dim[1] = {0};
	tsi_graph *s0 = tsi_graph_create_virtual(graph, 0, tpi);
	tsi_graph *s1 = tsi_graph_create_virtual(graph, tpi, 2 * tpi);
	tsi_program *seq = tsi_prog_sequence(graph, "trainStep");
	tsi_tensor *w1, *b1, *w2, *b2, *x, *labels, *a1, *h, *h1, *logits, *probs, *loss, *deltas;
	tsi_tensor *dw2, *db2, *dh1, *dh, *da1, *dw1, *db1;
	tsi_tensor *grads[PIPELINE_N_PARAMS];
	tsi_stream *x_in, *labels_in, *loss_out;

	tsi_popops_add_codelets(graph);
	tsi_poplin_add_codelets(graph);
	tsi_popnn_add_codelets(graph);

	/* Parameters, each on the stage that uses it; host handles set the
	 * initial values and read the trained ones of each replica. */
	w1 = tsi_poplin_create_matmul_input_rhs(s0, TSI_FLOAT, PIPELINE_BATCH, PIPELINE_IN,
	                                        PIPELINE_HIDDEN, "W1");
	b1 = mapped(s0, tsi_graph_add_variable(s0, TSI_FLOAT, TSI_SHAPE(PIPELINE_HIDDEN), "b1"));
	w2 = tsi_poplin_create_matmul_input_rhs(s1, TSI_FLOAT, PIPELINE_BATCH, PIPELINE_HIDDEN,
	                                        PIPELINE_CLASSES, "W2");
	b2 = mapped(s1, tsi_graph_add_variable(s1, TSI_FLOAT, TSI_SHAPE(PIPELINE_CLASSES), "b2"));
	{
		tsi_tensor *params[PIPELINE_N_PARAMS] = {w1, b1, w2, b2};
		for (int p = 0; p < PIPELINE_N_PARAMS; p++) {
			tsi_graph_create_host_write(graph, pipeline_param_names[p], params[p]);
			tsi_graph_create_host_read(graph, pipeline_param_names[p], params[p]);
		}
	}

	/* Each replica's batch from its own host buffers. */
	x = tsi_poplin_create_matmul_input_lhs(s0, TSI_FLOAT, PIPELINE_BATCH, PIPELINE_IN,
	                                       PIPELINE_HIDDEN, "x");
	labels = mapped(s1, tsi_graph_add_variable(s1, TSI_UNSIGNED_INT, TSI_SHAPE(PIPELINE_BATCH),
	                                           "labels"));
	x_in = tsi_graph_add_host_to_device_fifo(graph, "x", TSI_FLOAT, PIPELINE_BATCH * PIPELINE_IN,
	                                         TSI_REPLICATED_STREAM_PER_REPLICA);
	labels_in = tsi_graph_add_host_to_device_fifo(graph, "labels", TSI_UNSIGNED_INT, PIPELINE_BATCH,
	                                              TSI_REPLICATED_STREAM_PER_REPLICA);
	loss_out = tsi_graph_add_device_to_host_fifo(graph, "loss", TSI_FLOAT, 1);
	add(seq, tsi_prog_copy_from_stream(graph, x_in, x));
	add(seq, tsi_prog_copy_from_stream(graph, labels_in, labels));

	/* Forward: stage 0, the activations to IPU 1, stage 1 and the loss. */
	a1 = tsi_poplin_matmul(s0, x, w1, seq, "stage0/fc");
	tsi_popops_map_binary_in_place(s0, TSI_POPOPS_ADD, a1, b1, seq, "stage0/bias");
	h = tsi_popnn_nonlinearity(s0, TSI_POPNN_RELU, a1, seq, "stage0/relu");
	h1 = tsi_poplin_create_matmul_input_lhs(s1, TSI_FLOAT, PIPELINE_BATCH, PIPELINE_HIDDEN,
	                                        PIPELINE_CLASSES, "h@stage1");
	add(seq, tsi_program_set_name(tsi_prog_copy(graph, h, h1), "activations to stage 1"));
	logits = tsi_poplin_matmul(s1, h1, w2, seq, "stage1/fc");
	tsi_popops_map_binary_in_place(s1, TSI_POPOPS_ADD, logits, b2, seq, "stage1/bias");
	probs = tsi_popnn_nonlinearity(s1, TSI_POPNN_SOFTMAX, logits, seq, "stage1/softmax");
	loss = tsi_graph_add_variable(s1, TSI_FLOAT, 0, NULL, "loss");
	tsi_graph_set_tile_mapping(s1, loss, 0);
	deltas = mapped(s1, tsi_graph_add_variable(s1, TSI_FLOAT,
	                                           TSI_SHAPE(PIPELINE_BATCH, PIPELINE_CLASSES),
	                                           "deltas"));
	tsi_popnn_calc_loss(s1, probs, labels, loss, deltas, TSI_POPNN_CROSS_ENTROPY_LOSS, seq,
	                    "stage1/loss");

	/* Backward: stage 1's gradients, dh back to IPU 0, stage 0's. */
	dw2 = tsi_poplin_matmul(s1, tsi_tensor_transpose(h1), deltas, seq, "stage1/dW");
	db2 = tsi_popops_reduce(s1, deltas, batch_dim, 1, TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT,
	                        seq, "stage1/db");
	dh1 = tsi_poplin_matmul(s1, deltas, tsi_tensor_transpose(w2), seq, "stage1/dX");
	dh = mapped(s0, tsi_graph_add_variable(s0, TSI_FLOAT,
	                                       TSI_SHAPE(PIPELINE_BATCH, PIPELINE_HIDDEN), "dh"));
	add(seq, tsi_program_set_name(tsi_prog_copy(graph, dh1, dh), "gradients to stage 0"));
	da1 = tsi_popnn_nonlinearity_grad(s0, TSI_POPNN_RELU, h, dh, seq, "stage0/relu/grad");
	dw1 = tsi_poplin_matmul(s0, tsi_tensor_transpose(x), da1, seq, "stage0/dW");
	db1 = tsi_popops_reduce(s0, da1, batch_dim, 1, TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT, seq,
	                        "stage0/db");

	/* Data parallelism: sum the gradients over the replicas, then every
	 * replica takes the same step. */
	grads[PIPELINE_W1] = dw1;
	grads[PIPELINE_B1] = db1;
	grads[PIPELINE_W2] = dw2;
	grads[PIPELINE_B2] = db2;
	for (int p = 0; p < PIPELINE_N_PARAMS; p++) {
		char name[32];
		snprintf(name, sizeof(name), "allReduce/d%s", pipeline_param_names[p]);
		tsi_gcl_all_reduce_in_place(graph, grads[p], TSI_COLLECTIVE_ADD, seq, TSI_COMM_GROUP_ALL,
		                            name);
	}
	tsi_popops_scaled_add_to(s0, w1, dw1, scale, seq, "stage0/update/W");
	tsi_popops_scaled_add_to(s0, b1, db1, scale, seq, "stage0/update/b");
	tsi_popops_scaled_add_to(s1, w2, dw2, scale, seq, "stage1/update/W");
	tsi_popops_scaled_add_to(s1, b2, db2, scale, seq, "stage1/update/b");
	add(seq, tsi_prog_copy_to_stream(graph, loss, loss_out));

	return tsi_program_set_name(tsi_prog_repeat(graph, steps, seq), "train");
}

/* Connects each replica's streams to its host data, then writes the
 * initial parameters (a write through a handle sets every replica). */
void pipeline_connect(tsi_engine *engine, const pipeline_data *h)
{
	for (unsigned r = 0; r < PIPELINE_REPLICAS; r++) {
		size_t items = (size_t)h->steps * PIPELINE_BATCH;

		ex_must_engine(engine, tsi_engine_connect_stream_replica(engine, "x", r, h->x[r],
		                                                         h->x[r] + items * PIPELINE_IN),
		               "connecting the input stream");
		ex_must_engine(engine,
		               tsi_engine_connect_stream_replica(engine, "labels", r, h->labels[r],
		                                                 h->labels[r] + items),
		               "connecting the label stream");
		ex_must_engine(engine, tsi_engine_connect_stream_replica(engine, "loss", r, h->loss[r],
		                                                         h->loss[r] + h->steps),
		               "connecting the loss stream");
	}
	for (int p = 0; p < PIPELINE_N_PARAMS; p++)
		ex_must_engine(engine,
		               tsi_engine_write_tensor(engine, pipeline_param_names[p], h->params[p],
		                                       pipeline_param_sizes[p] * sizeof(float)),
		               "writing the initial parameters");
}
