/*
 * The device side of the tutorial 5 model (see tut5-model.h and the
 * description of the model at the top of tut5_ml.c).
 */
#include "tut5-model.h"
#include "example-util.h"

#include <tilescope/poplin.h>
#include <tilescope/popnn.h>
#include <tilescope/popops.h>
#include <tilescope/poprand.h>

#include <stdio.h>
#include <stdlib.h>

/* Seed and spread of the weights' initial values. */
#define WEIGHT_SEED 1234u
#define WEIGHT_STDDEV 0.01

/* Appends `step` to `seq`, exiting with the graph's message on failure. */
static void add_step(tsi_graph *graph, tsi_program *seq, tsi_program *step, const char *what)
{
	ex_must(graph, step, what);
	ex_must_rc(graph, tsi_sequence_add(seq, step), what);
}

/*
 * Maps `dst` element for element like `src` (same element count): a
 * result the ops library created has the layout its vertices want, and a
 * tensor that will be read beside it (the loss gradient beside the
 * probabilities) should live on the same tiles, or every batch pays an
 * exchange for nothing.
 */
static void map_like(tsi_graph *graph, const tsi_tensor *dst, const tsi_tensor *src,
                     const char *what)
{
	tsi_mapping_interval *iv = NULL;
	tsi_tensor *flat = ex_must(graph, tsi_tensor_flatten(dst), what);
	size_t n = 0;

	ex_must_rc(graph, tsi_graph_list_tile_mapping(&iv, &n, graph, src), what);
	for (size_t i = 0; i < n; i++) {
		tsi_tensor *part = ex_must(graph, tsi_tensor_slice(flat, iv[i].begin, iv[i].end), what);

		if (iv[i].tile == TSI_NO_TILE)
			ex_must_rc(graph, tsi_graph_map_linearly(graph, part, 1), what);
		else
			ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, part, iv[i].tile), what);
	}
	free(iv);
}

/*
 * Builds, at the end of `seq`, the forward pass over one batch of `rows`
 * images: copy the images and labels in from their streams (named
 * "<prefix>_images", "<prefix>_labels"), logits = x W + b, softmax,
 * the count of correct answers, and its addition to the program's count
 * `total` (on the device: one transfer per program instead of one per
 * batch). The caller has opened the debug context `prefix`, which puts the
 * prefix in front of every name made here ("train/fc/logits").
 */
static void build_forward(tsi_graph *graph, tsi_tensor *w, tsi_tensor *b, size_t rows,
                          const char *prefix, tsi_program *seq, const tsi_tensor *total,
                          tut5_batch_graph *bg)
{
	tsi_stream *images, *labels;
	tsi_tensor *logits;
	tsi_debug_id layer;

	bg->rows = rows;
	snprintf(bg->images_stream, sizeof(bg->images_stream), "%s_images", prefix);
	snprintf(bg->labels_stream, sizeof(bg->labels_stream), "%s_labels", prefix);

	/* The batch of images laid out as the matmul wants its left operand,
	 * so that the stream copy is the only data movement. */
	bg->x = ex_must(graph, tsi_poplin_create_matmul_input_lhs(graph, TSI_FLOAT, rows,
	                                                          IDX_PIXELS, IDX_CLASSES, "x"),
	                "creating the image batch");
	bg->labels = ex_must(graph, tsi_graph_add_variable(graph, TSI_UNSIGNED_INT, TSI_SHAPE(rows),
	                                                  "labels"),
	                     "creating the label batch");
	ex_must_rc(graph, tsi_graph_map_linearly(graph, bg->labels, 1), "mapping the labels");
	bg->correct = ex_must(graph, tsi_graph_add_variable(graph, TSI_UNSIGNED_INT, 0, NULL,
	                                                   "correct"),
	                      "creating the correct count");
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, bg->correct, 0),
	           "mapping the correct count");

	images = ex_must(graph, tsi_graph_add_host_to_device_fifo(graph, bg->images_stream,
	                                                          TSI_FLOAT, rows * IDX_PIXELS,
	                                                          TSI_REPLICATED_STREAM_BROADCAST),
	                 "creating the image stream");
	labels = ex_must(graph, tsi_graph_add_host_to_device_fifo(graph, bg->labels_stream,
	                                                          TSI_UNSIGNED_INT, rows,
	                                                          TSI_REPLICATED_STREAM_BROADCAST),
	                 "creating the label stream");

	add_step(graph, seq, tsi_prog_copy_from_stream(graph, images, bg->x), "reading images");
	add_step(graph, seq, tsi_prog_copy_from_stream(graph, labels, bg->labels),
	         "reading labels");

	/* The fully connected layer as one debug context (a "layer" in the
	 * reports' operations view); the ops inside become its children. */
	layer = tsi_debug_push(graph, "fc", NULL);
	logits = ex_must(graph, tsi_poplin_matmul(graph, bg->x, w, seq, "logits"), "computing x W");
	ex_must_rc(graph, tsi_popops_map_binary_in_place(graph, TSI_POPOPS_ADD, logits, b, seq,
	                                                 "bias"),
	           "adding the bias");
	tsi_debug_pop(graph, layer);
	bg->probs = ex_must(graph, tsi_popnn_nonlinearity(graph, TSI_POPNN_SOFTMAX, logits, seq,
	                                                  "softmax"),
	                    "computing the softmax");
	ex_must_rc(graph, tsi_popnn_calc_accuracy(graph, bg->probs, bg->labels, bg->correct, seq,
	                                          "accuracy"),
	           "counting correct answers");
	ex_must_rc(graph, tsi_popops_map_binary_in_place(graph, TSI_POPOPS_ADD, total, bg->correct,
	                                                 seq, "sumCorrect"),
	           "summing the correct answers");
}

/*
 * The count of correct answers of one program: a scalar UNSIGNED_INT
 * "correctTotal" on tile 0 (beside the batches' counts, so the additions
 * need no exchange), zeroed at the start of `seq`, made in the caller's
 * debug context (train/correctTotal). The caller sends it to the host at
 * the end with send_count.
 */
static tsi_tensor *make_count(tsi_graph *graph, tsi_program *seq)
{
	tsi_tensor *total;

	total = ex_must(graph, tsi_graph_add_variable(graph, TSI_UNSIGNED_INT, 0, NULL,
	                                              "correctTotal"),
	                "creating the correct-answer total");
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, total, 0),
	           "mapping the correct-answer total");
	ex_must_rc(graph, tsi_popops_fill(graph, total, 0.0, seq, "zeroCorrect"),
	           "zeroing the correct-answer total");
	return total;
}

/* Appends to `seq` the copy of `total` to a new stream "<prefix>_correct". */
static void send_count(tsi_graph *graph, const tsi_tensor *total, const char *prefix,
                       tsi_program *seq)
{
	char name[64];
	tsi_stream *stream;

	snprintf(name, sizeof(name), "%s_correct", prefix);
	stream = ex_must(graph, tsi_graph_add_device_to_host_fifo(graph, name, TSI_UNSIGNED_INT, 1),
	                 "creating the correct-answer stream");
	add_step(graph, seq, tsi_prog_copy_to_stream(graph, total, stream),
	         "sending the correct-answer total");
}

/*
 * Appends to `seq` (after build_forward) the loss, its gradient and the
 * gradient-descent step of W and b, and the copy of the batch's loss
 * (summed over the batch) to the stream "train_loss".
 */
static void build_training_step(tsi_graph *graph, tsi_tensor *w, tsi_tensor *b,
                                const tut5_batch_graph *bg, double learning_rate, tsi_program *seq)
{
	const size_t batch_dim[1] = {0};
	const float scale = (float)(-learning_rate / (double)bg->rows);
	tsi_tensor *loss, *deltas, *dw, *db;
	tsi_stream *loss_stream;
	tsi_debug_id layer;

	loss = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT, 0, NULL, "loss"),
	               "creating the loss");
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, loss, 0), "mapping the loss");
	deltas = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT,
	                                               TSI_SHAPE(bg->rows, IDX_CLASSES), "deltas"),
	                 "creating the loss gradient");
	map_like(graph, deltas, bg->probs, "mapping the loss gradient");
	loss_stream = ex_must(graph, tsi_graph_add_device_to_host_fifo(graph, "train_loss",
	                                                               TSI_FLOAT, 1),
	                      "creating the loss stream");

	/* Cross-entropy of the softmax; deltas = p - onehot(labels). */
	ex_must_rc(graph, tsi_popnn_calc_loss(graph, bg->probs, bg->labels, loss, deltas,
	                                      TSI_POPNN_CROSS_ENTROPY_LOSS, seq, "loss"),
	           "computing the loss");
	/* dW = x^T deltas through a transposed view of the batch (no copy). */
	layer = tsi_debug_push(graph, "backward", NULL);
	dw = ex_must(graph, tsi_poplin_matmul(graph, tsi_tensor_transpose(bg->x), deltas, seq, "dW"),
	             "computing the weight gradient");
	db = ex_must(graph, tsi_popops_reduce(graph, deltas, batch_dim, 1, TSI_POPOPS_REDUCE_ADD,
	                                      1.0f, TSI_FLOAT, seq, "db"),
	             "computing the bias gradient");
	tsi_debug_pop(graph, layer);
	layer = tsi_debug_push(graph, "sgd", NULL);
	ex_must_rc(graph, tsi_popops_scaled_add_to(graph, w, dw, scale, seq, "updateW"),
	           "updating the weights");
	ex_must_rc(graph, tsi_popops_scaled_add_to(graph, b, db, scale, seq, "updateB"),
	           "updating the bias");
	tsi_debug_pop(graph, layer);
	add_step(graph, seq, tsi_prog_copy_to_stream(graph, loss, loss_stream), "sending the loss");
}

/* Connects a stream to host memory, exiting on failure. */
static void connect_stream(tsi_engine *engine, const char *name, void *begin, size_t bytes)
{
	ex_must_engine(engine, tsi_engine_connect_stream(engine, name, begin,
	                                                 (unsigned char *)begin + bytes),
	               "connecting a stream");
}

/*
 * Builds the model (see tut5-model.h). The order of the calls fixes the
 * names and layout of everything in the graph, and so the profile.
 */
void tut5_model_build(tut5_model *m, tsi_graph *graph, size_t batch, double learning_rate,
                      size_t train_batches, size_t test_images)
{
	tsi_program *train_body, *test_body, *epoch_prog, *test_prog;
	tsi_debug_id layer;

	m->batch = batch;
	m->train_batches = train_batches;
	m->test_batches = test_images / batch;
	m->tail = test_images % batch;

	ex_must_rc(graph, tsi_popops_add_codelets(graph), "adding the popops codelets");
	ex_must_rc(graph, tsi_poplin_add_codelets(graph), "adding the poplin codelets");
	ex_must_rc(graph, tsi_popnn_add_codelets(graph), "adding the popnn codelets");
	ex_must_rc(graph, tsi_poprand_add_codelets(graph), "adding the poprand codelets");

	/* The parameters: W laid out as the matmul's right operand, b on one
	 * tile (ten numbers). */
	m->w = ex_must(graph, tsi_poplin_create_matmul_input_rhs(graph, TSI_FLOAT, batch, IDX_PIXELS,
	                                                         IDX_CLASSES, "W"),
	               "creating the weights");
	m->b = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(IDX_CLASSES), "b"),
	               "creating the bias");
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, m->b, 0), "mapping the bias");

	/* Program 0: small random weights, zero bias. */
	m->progs[TUT5_PROG_INIT] = ex_must(graph, tsi_prog_sequence(graph, "init"),
	                                   "creating the init program");
	ex_must_rc(graph, tsi_poprand_normal(graph, m->w, 0.0, WEIGHT_STDDEV, WEIGHT_SEED,
	                                     m->progs[TUT5_PROG_INIT], "initW"),
	           "initialising the weights");
	ex_must_rc(graph, tsi_popops_fill(graph, m->b, 0.0, m->progs[TUT5_PROG_INIT], "initB"),
	           "initialising the bias");

	/* Program 1: one epoch, a Repeat of the training step over the
	 * batches between zeroing the count of correct answers and sending it. */
	epoch_prog = ex_must(graph, tsi_prog_sequence(graph, "epoch"), "creating the epoch program");
	/* One debug context for all the training program makes. */
	layer = tsi_debug_push(graph, "train", NULL);
	m->train_correct = make_count(graph, epoch_prog);
	train_body = ex_must(graph, tsi_prog_sequence(graph, "trainBatch"),
	                     "creating the training step");
	build_forward(graph, m->w, m->b, batch, "train", train_body, m->train_correct, &m->train);
	build_training_step(graph, m->w, m->b, &m->train, learning_rate, train_body);
	tsi_debug_pop(graph, layer);
	add_step(graph, epoch_prog, tsi_prog_repeat(graph, train_batches, train_body),
	         "repeating the training step");
	send_count(graph, m->train_correct, "train", epoch_prog);
	m->progs[TUT5_PROG_EPOCH] = epoch_prog;

	/* Program 2: the test set, in batches of the same size, with a smaller
	 * last batch when the size does not divide the test set. */
	test_prog = ex_must(graph, tsi_prog_sequence(graph, "test"), "creating the test program");
	layer = tsi_debug_push(graph, "test", NULL);
	m->test_correct = make_count(graph, test_prog);
	if (m->test_batches) {
		test_body = ex_must(graph, tsi_prog_sequence(graph, "testBatch"),
		                    "creating the test step");
		build_forward(graph, m->w, m->b, batch, "test", test_body, m->test_correct, &m->test);
		add_step(graph, test_prog, tsi_prog_repeat(graph, m->test_batches, test_body),
		         "repeating the test step");
	}
	tsi_debug_pop(graph, layer);
	if (m->tail) {
		tsi_program *tail_body = ex_must(graph, tsi_prog_sequence(graph, "testTail"),
		                                 "creating the last test step");
		layer = tsi_debug_push(graph, "test_tail", NULL);
		build_forward(graph, m->w, m->b, m->tail, "test_tail", tail_body, m->test_correct,
		              &m->test_tail);
		tsi_debug_pop(graph, layer);
		add_step(graph, test_prog, tail_body, "adding the last test step");
	}
	send_count(graph, m->test_correct, "test", test_prog);
	m->progs[TUT5_PROG_TEST] = test_prog;
}

/* Each stream reads (or fills) its whole host array once per program run. */
void tut5_model_connect(const tut5_model *m, tsi_engine *engine, const tut5_host *host)
{
	const size_t batch = m->batch;

	connect_stream(engine, m->train.images_stream, host->train->pixels,
	        m->train_batches * batch * IDX_PIXELS * sizeof(float));
	connect_stream(engine, m->train.labels_stream, host->train->labels,
	        m->train_batches * batch * sizeof(uint32_t));
	connect_stream(engine, "train_loss", host->losses, m->train_batches * sizeof(*host->losses));
	connect_stream(engine, "train_correct", host->train_correct, sizeof(*host->train_correct));
	connect_stream(engine, "test_correct", host->test_correct, sizeof(*host->test_correct));
	if (m->test_batches) {
		connect_stream(engine, m->test.images_stream, host->test->pixels,
		        m->test_batches * batch * IDX_PIXELS * sizeof(float));
		connect_stream(engine, m->test.labels_stream, host->test->labels,
		        m->test_batches * batch * sizeof(uint32_t));
	}
	if (m->tail) {
		size_t first = m->test_batches * batch;
		connect_stream(engine, m->test_tail.images_stream, host->test->pixels + first * IDX_PIXELS,
		        m->tail * IDX_PIXELS * sizeof(float));
		connect_stream(engine, m->test_tail.labels_stream, host->test->labels + first,
		        m->tail * sizeof(uint32_t));
	}
}
