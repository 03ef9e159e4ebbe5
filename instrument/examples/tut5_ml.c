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
 * its loss back through a device-to-host FIFO, and adds its number of
 * correct answers to a count on the device that the epoch sends once at
 * its end. A second program counts the correct answers on the test set
 * the same way.
 */
#include "example-util.h"
#include "idx-dataset.h"
#include "tut5-model.h"

#include <tilescope/ipu.h>
#include <tilescope/profile.h>

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

/* What the command line asked for. */
typedef struct options {
	const char *data_dir;  /* NULL: IDX_FASHION_MNIST_DIR */
	unsigned epochs;
	unsigned batch;        /* images per batch */
	double learning_rate;
	unsigned train_images; /* 0: all */
	bool synthetic;
} options;

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
/* What the training loop traces (PVTI_OPTIONS; nothing when unset): the
 * loss of each batch as it arrives from the device, plotted as a graph. */
typedef struct loss_sink {
	float *losses;       /* the epoch's losses, one per batch (summed over images) */
	size_t n_batches;
	size_t next;         /* the batch whose loss comes next */
	unsigned batch;      /* images per batch, for the mean */
	pvti_series *series; /* "Loss" / "train" */
} loss_sink;

/* The "train_loss" stream's callback: keeps the batch's loss for the
 * epoch's printout and adds it to the loss graph, with a batch marker on
 * the Framework channel. */
static void on_batch_loss(void *buf, size_t bytes, void *user_data)
{
	loss_sink *sink = user_data;
	float loss;

	if (bytes != sizeof(loss))
		return;
	memcpy(&loss, buf, sizeof(loss));
	sink->losses[sink->next] = loss;
	sink->next = (sink->next + 1) % sink->n_batches;
	pvti_instant(pvti_channel_framework(), "batch");
	pvti_series_add(sink->series, (double)loss / sink->batch);
}

/* With PVTI_OPTIONS and a profiled run: how the cycles of the execution
 * steps of the engine's newest run (its run profile) spread over decades,
 * one heatmap sample per run, so the trace shows where a run's time goes
 * (a few long compute sets or many short exchanges). Runs that are not
 * profiled (past autoReport.executionProfileProgramRunCount) add none. */
static void add_step_cycles(pvti_heatmap *heatmap, const tsi_engine *engine, size_t *runs)
{
	size_t n = tsi_engine_num_run_profiles(engine);
	const tsi_run_profile *run = n > *runs ? tsi_engine_get_run_profile(engine, n - 1) : NULL;
	double *cycles = run ? malloc((run->n_steps + 1) * sizeof(*cycles)) : NULL;

	*runs = n;
	if (!cycles)
		return;
	for (size_t i = 0; i < run->n_steps; i++)
		cycles[i] = (double)run->steps[i].cycles;
	pvti_heatmap_add(heatmap, cycles, run->n_steps);
	free(cycles);
}

int main(int argc, char **argv)
{
	static const double decades[] = {10, 100, 1000, 10000, 100000};
	tsi_ipu_model_options model = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *device = NULL;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	tut5_model m;
	tut5_host host;
	idx_dataset train, test;
	options opt;
	size_t train_batches;
	float *losses = NULL;
	uint32_t train_correct = 0, test_correct = 0;
	pvti_graph *loss_graph, *accuracy_graph;
	pvti_series *train_accuracy, *test_accuracy;
	loss_sink sink;
	pvti_heatmap *step_cycles;
	size_t profiled = 0;

	ex_init("tut5_ml");
	parse_args(argc, argv, &opt);
	load_data(&opt, &train, &test);
	if (opt.batch > train.count)
		bad_usage("--batch-size %u is larger than the %zu training images", opt.batch,
		          train.count);
	train_batches = train.count / opt.batch;
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
	tut5_model_build(&m, graph, opt.batch, opt.learning_rate, train_batches, test.count);

	if (tsi_engine_new(&engine, graph, m.progs, TUT5_N_PROGS, NULL) != TSI_OK)
		ex_fail("creating the engine", tsi_error_last());
	ex_must_engine(engine, tsi_engine_load(engine, device), "loading the engine");

	/* Each stream reads (or fills) the whole set once per program run. */
	losses = calloc(train_batches, sizeof(*losses));
	if (!losses)
		ex_fail("allocating result buffers", "out of memory");
	host = (tut5_host){&train, &test, losses, &train_correct, &test_correct};
	tut5_model_connect(&m, engine, &host);

	/* With PVTI_OPTIONS the loop is traced on the Framework channel: a span
	 * per epoch, a marker and a loss sample per batch, accuracy per epoch. */
	loss_graph = pvti_graph_new("Loss", "per sample");
	accuracy_graph = pvti_graph_new("Accuracy", "fraction");
	sink = (loss_sink){losses, train_batches, 0, opt.batch,
	                   pvti_graph_add_series(loss_graph, "train")};
	train_accuracy = pvti_graph_add_series(accuracy_graph, "train");
	test_accuracy = pvti_graph_add_series(accuracy_graph, "test");
	step_cycles = pvti_heatmap_new("Step cycles", "cycles", decades, 5);
	ex_must_engine(engine, tsi_engine_connect_stream_cb(engine, "train_loss", on_batch_loss, &sink),
	               "connecting the loss stream");

	ex_must_engine(engine, tsi_engine_run(engine, TUT5_PROG_INIT), "initialising the parameters");
	add_step_cycles(step_cycles, engine, &profiled);
	for (unsigned epoch = 1; epoch <= opt.epochs; epoch++) {
		double loss = 0.0, seen = (double)(train_batches * opt.batch);

		char span[32];

		snprintf(span, sizeof(span), "Epoch %u", epoch);
		pvti_begin(pvti_channel_framework(), span);
		ex_must_engine(engine, tsi_engine_run(engine, TUT5_PROG_EPOCH), "training");
		pvti_end(pvti_channel_framework());
		add_step_cycles(step_cycles, engine, &profiled);
		for (size_t i = 0; i < train_batches; i++)
			loss += losses[i];
		pvti_series_add(train_accuracy, train_correct / seen);
		printf("Epoch %u: loss %.4f (mean per sample), train accuracy %.4f\n", epoch,
		       loss / seen, train_correct / seen);
		fflush(stdout);
	}

	pvti_begin(pvti_channel_framework(), "Testing");
	ex_must_engine(engine, tsi_engine_run(engine, TUT5_PROG_TEST), "testing");
	pvti_end(pvti_channel_framework());
	add_step_cycles(step_cycles, engine, &profiled);
	printf("Test accuracy: %.4f\n", test_correct / (double)test.count);
	pvti_series_add(test_accuracy, test_correct / (double)test.count);

	free(losses);
	tsi_engine_free(engine);
	tsi_graph_free(graph);
	tsi_device_free(device);
	idx_dataset_free(&train);
	idx_dataset_free(&test);
	return 0;
}
