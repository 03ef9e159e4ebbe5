/*
 * Tutorial 5, a basic machine learning example: logistic regression
 * trained by gradient descent, on the IPU Model, with the ops libraries
 * (poplin, popops, popnn, poprand). The Poplar tutorial trains on MNIST;
 * this one trains on Fashion-MNIST as Debian's dataset-fashion-mnist
 * package installs it (or on a synthetic set, for tests).
 *
 * The model: logits = x W + b with W [784, 10] and b [10], probabilities
 * by softmax, cross-entropy loss. Per batch of B images the device
 * computes deltas = p - onehot(labels), dW = x^T deltas, db = the sum of
 * deltas over the batch, and steps W -= (lr/B) dW, b -= (lr/B) db.
 * Images and labels arrive through host-to-device FIFOs connected to the
 * whole data set as circular buffers, so one run of the training program
 * (a Repeat over the batches) is one pass over the data; each batch sends
 * its loss and its number of correct answers back through device-to-host
 * FIFOs. A second program counts the correct answers on the test set.
 */
#include "example-util.h"
#include "idx-dataset.h"

#include <tilescope/ipu.h>
#include <tilescope/poplin.h>
#include <tilescope/popnn.h>
#include <tilescope/popops.h>
#include <tilescope/poprand.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defaults: batches of 100 make 600 steps per epoch of the full set; with
 * a learning rate of 0.1 one epoch reaches about 0.81 test accuracy (the
 * rate was chosen by sweeping 0.01 to 0.5 at batch sizes 10 to 200 on a
 * host-side reference: 0.08 to 0.12 all give 0.81). */
#define DEFAULT_BATCH 100u
#define DEFAULT_LEARNING_RATE 0.1
#define MAX_BATCH 10000u
#define MAX_EPOCHS 1000u
/* Sizes and seed of the synthetic problem (--synthetic). */
#define SYNTHETIC_TRAIN 2000u
#define SYNTHETIC_TEST 1000u
#define SYNTHETIC_SEED 5u
/* Seed of the weights' initial values. */
#define WEIGHT_SEED 1234u
#define WEIGHT_STDDEV 0.01

/* What the command line asked for. */
typedef struct options {
	const char *data_dir;  /* NULL: IDX_FASHION_MNIST_DIR */
	unsigned epochs;
	unsigned batch;        /* images per batch */
	double learning_rate;
	unsigned train_images; /* 0: all */
	bool synthetic;
} options;

/* The device side of one batch size: the tensors a program step reads
 * and writes, and the names of its streams. */
typedef struct batch_graph {
	size_t rows;          /* images per batch */
	tsi_tensor *x;        /* [rows, 784] FLOAT */
	tsi_tensor *labels;   /* [rows] UNSIGNED_INT */
	tsi_tensor *probs;    /* [rows, 10] FLOAT, the softmax */
	tsi_tensor *correct;  /* scalar UNSIGNED_INT */
	char images_stream[64];
	char labels_stream[64];
	char correct_stream[64];
} batch_graph;

/* Prints the usage on `out`. */
static void usage(FILE *out)
{
	fprintf(out,
	        "usage: tut5_ml [--data-dir DIR] [--epochs N] [--batch-size N] "
	        "[--learning-rate X] [--train-images N] [--synthetic] [--help]\n"
	        "Trains a logistic regression on Fashion-MNIST on the IPU Model and reports\n"
	        "the loss and accuracy per epoch, then the accuracy on the test set.\n"
	        "  --data-dir DIR       where the gzipped IDX files are (default %s)\n"
	        "  --epochs N           passes over the training set (default 1)\n"
	        "  --batch-size N       images per gradient step (default %u, at most %u)\n"
	        "  --learning-rate X    gradient descent step size (default %g)\n"
	        "  --train-images N     use only the first N training images\n"
	        "  --synthetic          train on a small synthetic 10-class problem instead\n",
	        IDX_FASHION_MNIST_DIR, DEFAULT_BATCH, MAX_BATCH, DEFAULT_LEARNING_RATE);
}

/* Refuses the command line: the house style's usage error, exit 2. */
__attribute__((format(printf, 1, 2)))
static noreturn void bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tut5_ml: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	usage(stderr);
	exit(2);
}

/* A learning rate: a finite positive decimal number of at most 100. */
static int parse_rate(const char *text, double *out)
{
	char *end;
	double v;

	if (!text || !*text)
		return -1;
	errno = 0;
	v = strtod(text, &end);
	if (errno || *end || !isfinite(v) || v <= 0.0 || v > 100.0)
		return -1;
	*out = v;
	return 0;
}

/*
 * Parses the command line into `opt`. Options take their value as the
 * next argument or after '='. Anything wrong ends the program through
 * bad_usage (status 2); --help prints the usage on stdout and exits 0.
 */
static void parse_args(int argc, char **argv, options *opt)
{
	opt->data_dir = NULL;
	opt->epochs = 1;
	opt->batch = DEFAULT_BATCH;
	opt->learning_rate = DEFAULT_LEARNING_RATE;
	opt->train_images = 0;
	opt->synthetic = false;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *value = NULL;
		const char *eq = strchr(arg, '=');
		char name[32];
		size_t len = eq ? (size_t)(eq - arg) : strlen(arg);

		if (len >= sizeof(name))
			bad_usage("unknown argument '%s'", arg);
		memcpy(name, arg, len);
		name[len] = '\0';
		if (!strcmp(name, "--help") && !eq) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(name, "--synthetic") && !eq) {
			opt->synthetic = true;
			continue;
		}
		if (strcmp(name, "--data-dir") && strcmp(name, "--epochs") &&
		    strcmp(name, "--batch-size") && strcmp(name, "--learning-rate") &&
		    strcmp(name, "--train-images"))
			bad_usage("unknown argument '%s'", arg);
		if (eq)
			value = eq + 1;
		else if (i + 1 < argc)
			value = argv[++i];
		else
			bad_usage("%s needs a value", name);

		if (!strcmp(name, "--data-dir")) {
			if (!*value)
				bad_usage("%s needs a directory", name);
			opt->data_dir = value;
		} else if (!strcmp(name, "--epochs")) {
			if (ex_parse_dim(value, MAX_EPOCHS, &opt->epochs))
				bad_usage("--epochs wants a whole number from 1 to 1000, not '%s'", value);
		} else if (!strcmp(name, "--batch-size")) {
			if (ex_parse_dim(value, MAX_BATCH, &opt->batch))
				bad_usage("--batch-size wants a whole number from 1 to 10000, not '%s'",
				          value);
		} else if (!strcmp(name, "--learning-rate")) {
			if (parse_rate(value, &opt->learning_rate))
				bad_usage("--learning-rate wants a number above 0, at most 100, not '%s'",
				          value);
		} else {
			if (ex_parse_dim(value, IDX_MAX_ITEMS, &opt->train_images))
				bad_usage("--train-images wants a whole number from 1 to 10000000, not '%s'",
				          value);
		}
	}
}

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

	ex_must_rc(graph, tsi_graph_get_tile_mapping(&iv, &n, graph, src), what);
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
 * the count of correct answers, and its copy to "<prefix>_correct".
 */
static void build_forward(tsi_graph *graph, tsi_tensor *w, tsi_tensor *b, size_t rows,
                          const char *prefix, tsi_program *seq, batch_graph *bg)
{
	char name[96];
	tsi_stream *images, *labels, *correct;
	tsi_tensor *logits;

	bg->rows = rows;
	snprintf(bg->images_stream, sizeof(bg->images_stream), "%s_images", prefix);
	snprintf(bg->labels_stream, sizeof(bg->labels_stream), "%s_labels", prefix);
	snprintf(bg->correct_stream, sizeof(bg->correct_stream), "%s_correct", prefix);

	/* The batch of images laid out as the matmul wants its left operand,
	 * so that the stream copy is the only data movement. */
	snprintf(name, sizeof(name), "%s/x", prefix);
	bg->x = ex_must(graph, tsi_poplin_create_matmul_input_lhs(graph, TSI_FLOAT, rows,
	                                                          IDX_PIXELS, IDX_CLASSES, name),
	                "creating the image batch");
	snprintf(name, sizeof(name), "%s/labels", prefix);
	bg->labels = ex_must(graph, tsi_graph_add_variable(graph, TSI_UNSIGNED_INT, TSI_SHAPE(rows),
	                                                  name),
	                     "creating the label batch");
	ex_must_rc(graph, tsi_graph_map_linearly(graph, bg->labels, 1), "mapping the labels");
	snprintf(name, sizeof(name), "%s/correct", prefix);
	bg->correct = ex_must(graph, tsi_graph_add_variable(graph, TSI_UNSIGNED_INT, 0, NULL, name),
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
	correct = ex_must(graph, tsi_graph_add_device_to_host_fifo(graph, bg->correct_stream,
	                                                           TSI_UNSIGNED_INT, 1),
	                  "creating the correct-count stream");

	add_step(graph, seq, tsi_prog_copy_from_stream(graph, images, bg->x), "reading images");
	add_step(graph, seq, tsi_prog_copy_from_stream(graph, labels, bg->labels),
	         "reading labels");

	snprintf(name, sizeof(name), "%s/logits", prefix);
	logits = ex_must(graph, tsi_poplin_matmul(graph, bg->x, w, seq, name), "computing x W");
	snprintf(name, sizeof(name), "%s/bias", prefix);
	ex_must_rc(graph, tsi_popops_map_binary_in_place(graph, TSI_POPOPS_ADD, logits, b, seq, name),
	           "adding the bias");
	snprintf(name, sizeof(name), "%s/softmax", prefix);
	bg->probs = ex_must(graph, tsi_popnn_nonlinearity(graph, TSI_POPNN_SOFTMAX, logits, seq,
	                                                  name),
	                    "computing the softmax");
	snprintf(name, sizeof(name), "%s/accuracy", prefix);
	ex_must_rc(graph, tsi_popnn_calc_accuracy(graph, bg->probs, bg->labels, bg->correct, seq,
	                                          name),
	           "counting correct answers");
	add_step(graph, seq, tsi_prog_copy_to_stream(graph, bg->correct, correct),
	         "sending the correct count");
}

/*
 * Appends to `seq` (after build_forward) the loss, its gradient and the
 * gradient-descent step of W and b, and the copy of the batch's loss
 * (summed over the batch) to the stream "train_loss".
 */
static void build_training_step(tsi_graph *graph, tsi_tensor *w, tsi_tensor *b,
                                const batch_graph *bg, double learning_rate, tsi_program *seq)
{
	const size_t batch_dim[1] = {0};
	const float scale = (float)(-learning_rate / (double)bg->rows);
	tsi_tensor *loss, *deltas, *dw, *db;
	tsi_stream *loss_stream;

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
	dw = ex_must(graph, tsi_poplin_matmul(graph, tsi_tensor_transpose(bg->x), deltas, seq, "dW"),
	             "computing the weight gradient");
	db = ex_must(graph, tsi_popops_reduce(graph, deltas, batch_dim, 1, TSI_POPOPS_REDUCE_ADD,
	                                      1.0f, TSI_FLOAT, seq, "db"),
	             "computing the bias gradient");
	ex_must_rc(graph, tsi_popops_scaled_add_to(graph, w, dw, scale, seq, "updateW"),
	           "updating the weights");
	ex_must_rc(graph, tsi_popops_scaled_add_to(graph, b, db, scale, seq, "updateB"),
	           "updating the bias");
	add_step(graph, seq, tsi_prog_copy_to_stream(graph, loss, loss_stream), "sending the loss");
}

/* Connects a stream to host memory, exiting on failure. */
static void connect_stream(tsi_engine *engine, const char *name, void *begin, size_t bytes)
{
	ex_must_engine(engine, tsi_engine_connect_stream(engine, name, begin,
	                                                 (unsigned char *)begin + bytes),
	               "connecting a stream");
}

/* Loads the training and test sets the options ask for; a data error
 * ends the program with the loader's message and status 1. */
static void load_data(const options *opt, idx_dataset *train, idx_dataset *test)
{
	char err[1024];
	int rc;

	if (opt->synthetic) {
		rc = idx_dataset_synthetic(train, opt->train_images ? opt->train_images : SYNTHETIC_TRAIN,
		                           SYNTHETIC_SEED, 0, err, sizeof(err));
		if (rc == IDX_OK)
			rc = idx_dataset_synthetic(test, SYNTHETIC_TEST, SYNTHETIC_SEED, 1, err,
			                           sizeof(err));
	} else {
		rc = idx_dataset_load_dir(train, opt->data_dir, true, opt->train_images, err,
		                          sizeof(err));
		if (rc == IDX_OK)
			rc = idx_dataset_load_dir(test, opt->data_dir, false, 0, err, sizeof(err));
	}
	if (rc != IDX_OK) {
		fprintf(stderr, "tut5_ml: %s\n", err);
		exit(1);
	}
}

/* Trains and tests the model; exits 2 on bad arguments, 1 on any other
 * failure. */
int main(int argc, char **argv)
{
	tsi_ipu_model_options model = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *device = NULL;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	tsi_program *progs[3], *train_body, *test_body, *test_prog;
	tsi_tensor *w, *b;
	batch_graph train_bg, test_bg, tail_bg;
	idx_dataset train, test;
	options opt;
	size_t train_batches, test_batches, tail;
	float *losses = NULL;
	uint32_t *train_correct = NULL, *test_correct = NULL, tail_correct = 0;

	ex_init("tut5_ml");
	parse_args(argc, argv, &opt);
	load_data(&opt, &train, &test);
	if (opt.batch > train.count)
		bad_usage("--batch-size %u is larger than the %zu training images", opt.batch,
		          train.count);
	train_batches = train.count / opt.batch;
	test_batches = test.count / opt.batch;
	tail = test.count % opt.batch;
	printf("%s: %zu training images in %zu batches of %u, %zu test images\n",
	       opt.synthetic ? "Synthetic data" : "Fashion-MNIST", train_batches * opt.batch,
	       train_batches, opt.batch, test.count);
	if (train.count % opt.batch)
		printf("(the last %zu training images do not fill a batch and are not used)\n",
		       train.count % opt.batch);

	if (tsi_device_new_ipu_model(&device, &model) != TSI_OK)
		ex_fail("creating the IPU Model device", tsi_error_last());
	if (tsi_graph_new(&graph, tsi_device_get_target(device), 1) != TSI_OK)
		ex_fail("creating the graph", tsi_error_last());
	ex_must_rc(graph, tsi_popops_add_codelets(graph), "adding the popops codelets");
	ex_must_rc(graph, tsi_poplin_add_codelets(graph), "adding the poplin codelets");
	ex_must_rc(graph, tsi_popnn_add_codelets(graph), "adding the popnn codelets");
	ex_must_rc(graph, tsi_poprand_add_codelets(graph), "adding the poprand codelets");

	/* The parameters: W laid out as the matmul's right operand, b on one
	 * tile (ten numbers). */
	w = ex_must(graph, tsi_poplin_create_matmul_input_rhs(graph, TSI_FLOAT, opt.batch,
	                                                      IDX_PIXELS, IDX_CLASSES, "W"),
	            "creating the weights");
	b = ex_must(graph, tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(IDX_CLASSES), "b"),
	            "creating the bias");
	ex_must_rc(graph, tsi_graph_set_tile_mapping(graph, b, 0), "mapping the bias");

	/* Program 0: small random weights, zero bias. */
	progs[0] = ex_must(graph, tsi_prog_sequence(graph, "init"), "creating the init program");
	ex_must_rc(graph, tsi_poprand_normal(graph, w, 0.0, WEIGHT_STDDEV, WEIGHT_SEED, progs[0],
	                                     "initW"),
	           "initialising the weights");
	ex_must_rc(graph, tsi_popops_fill(graph, b, 0.0, progs[0], "initB"),
	           "initialising the bias");

	/* Program 1: one epoch, a Repeat of the training step over the batches. */
	train_body = ex_must(graph, tsi_prog_sequence(graph, "trainBatch"),
	                     "creating the training step");
	build_forward(graph, w, b, opt.batch, "train", train_body, &train_bg);
	build_training_step(graph, w, b, &train_bg, opt.learning_rate, train_body);
	progs[1] = ex_must(graph, tsi_prog_repeat(graph, train_batches, train_body),
	                   "creating the epoch program");
	tsi_program_set_name(progs[1], "epoch");

	/* Program 2: the test set, in batches of the same size, with a smaller
	 * last batch when the size does not divide the test set. */
	test_prog = ex_must(graph, tsi_prog_sequence(graph, "test"), "creating the test program");
	if (test_batches) {
		test_body = ex_must(graph, tsi_prog_sequence(graph, "testBatch"),
		                    "creating the test step");
		build_forward(graph, w, b, opt.batch, "test", test_body, &test_bg);
		add_step(graph, test_prog, tsi_prog_repeat(graph, test_batches, test_body),
		         "repeating the test step");
	}
	if (tail) {
		tsi_program *tail_body = ex_must(graph, tsi_prog_sequence(graph, "testTail"),
		                                 "creating the last test step");
		build_forward(graph, w, b, tail, "test_tail", tail_body, &tail_bg);
		add_step(graph, test_prog, tail_body, "adding the last test step");
	}
	progs[2] = test_prog;

	if (tsi_engine_new(&engine, graph, progs, 3, NULL) != TSI_OK)
		ex_fail("creating the engine", tsi_error_last());
	ex_must_engine(engine, tsi_engine_load(engine, device), "loading the engine");

	/* Each stream reads (or fills) the whole set once per program run. */
	losses = calloc(train_batches, sizeof(*losses));
	train_correct = calloc(train_batches, sizeof(*train_correct));
	test_correct = calloc(test_batches + 1, sizeof(*test_correct));
	if (!losses || !train_correct || !test_correct)
		ex_fail("allocating result buffers", "out of memory");
	connect_stream(engine, train_bg.images_stream, train.pixels,
	        train_batches * opt.batch * IDX_PIXELS * sizeof(float));
	connect_stream(engine, train_bg.labels_stream, train.labels,
	        train_batches * opt.batch * sizeof(uint32_t));
	connect_stream(engine, "train_loss", losses, train_batches * sizeof(*losses));
	connect_stream(engine, train_bg.correct_stream, train_correct,
	        train_batches * sizeof(*train_correct));
	if (test_batches) {
		connect_stream(engine, test_bg.images_stream, test.pixels,
		        test_batches * opt.batch * IDX_PIXELS * sizeof(float));
		connect_stream(engine, test_bg.labels_stream, test.labels,
		        test_batches * opt.batch * sizeof(uint32_t));
		connect_stream(engine, test_bg.correct_stream, test_correct,
		        test_batches * sizeof(*test_correct));
	}
	if (tail) {
		size_t first = test_batches * opt.batch;
		connect_stream(engine, tail_bg.images_stream, test.pixels + first * IDX_PIXELS,
		        tail * IDX_PIXELS * sizeof(float));
		connect_stream(engine, tail_bg.labels_stream, test.labels + first, tail * sizeof(uint32_t));
		connect_stream(engine, tail_bg.correct_stream, &tail_correct, sizeof(tail_correct));
	}

	ex_must_engine(engine, tsi_engine_run(engine, 0), "initialising the parameters");
	for (unsigned epoch = 1; epoch <= opt.epochs; epoch++) {
		double loss = 0.0, correct = 0.0, seen = (double)(train_batches * opt.batch);

		ex_must_engine(engine, tsi_engine_run(engine, 1), "training");
		for (size_t i = 0; i < train_batches; i++) {
			loss += losses[i];
			correct += train_correct[i];
		}
		printf("Epoch %u: loss %.4f (mean per sample), train accuracy %.4f\n", epoch,
		       loss / seen, correct / seen);
		fflush(stdout);
	}

	ex_must_engine(engine, tsi_engine_run(engine, 2), "testing");
	{
		double correct = tail_correct;

		for (size_t i = 0; i < test_batches; i++)
			correct += test_correct[i];
		printf("Test accuracy: %.4f\n", correct / (double)test.count);
	}

	free(losses);
	free(train_correct);
	free(test_correct);
	tsi_engine_free(engine);
	tsi_graph_free(graph);
	tsi_device_free(device);
	idx_dataset_free(&train);
	idx_dataset_free(&test);
	return 0;
}
