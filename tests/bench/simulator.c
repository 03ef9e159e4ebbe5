/*
 * Benchmark: the simulator against a plain C loop doing the same
 * arithmetic (issue 8). Both train tutorial 5's logistic regression for
 * one epoch of batches of 100 images: logits = x W + b, softmax, the
 * correct count, the cross-entropy gradient, dW = x^T deltas, db, and the
 * scaled updates of W and b. The simulator runs tut5-model.c's epoch
 * program on the IPU Model (one Repeat of the training step); the loop
 * is the textbook C of the same steps, compiled with the same flags.
 *
 * Both start from the weights the model's init program draws, so their
 * results can be compared: the bench prints the largest difference of
 * the trained weights and of the per-batch losses, which shows the two
 * really did the same work (float sums in another order differ in the
 * last bits).
 *
 * TSI_BENCH_IMAGES=N (default 60000, Fashion-MNIST's training set size;
 * the images are the synthetic problem's, so no data set is needed).
 * Prints `NAME VALUE UNIT (target OP VALUE)` lines; simulator.ratio is the
 * median of five alternating pairs' ratios (simulator.ratio_worst the
 * largest), epoch_s and c_loop_epoch_s the best of each side. Never fails
 * on time.
 */
#include "idx-dataset.h"
#include "tut5-model.h"

#include <tilescope/ipu.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BATCH 100u
#define LEARNING_RATE 0.1

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* qsort order of doubles, ascending. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench-simulator: %s: %s\n", what, why);
	exit(1);
}

/*
 * One epoch of the model in plain C over `batches` batches of `set`:
 * updates w [784][10] and b [10] in place, writes each batch's summed
 * loss to losses[] and its correct count to correct[].
 */
static void c_epoch(float *w, float *b, const idx_dataset *set, size_t batches, float *losses,
                    uint32_t *correct)
{
	static float logits[BATCH][IDX_CLASSES], deltas[BATCH][IDX_CLASSES];
	static float dw[IDX_PIXELS][IDX_CLASSES];
	const float scale = (float)(-LEARNING_RATE / (double)BATCH);

	for (size_t batch = 0; batch < batches; batch++) {
		const float *x = set->pixels + batch * BATCH * IDX_PIXELS;
		const uint32_t *labels = set->labels + batch * BATCH;
		float loss = 0.0f;
		uint32_t right = 0;
		float db[IDX_CLASSES] = {0};

		/* Forward: x W + b, softmax, accuracy. */
		for (size_t r = 0; r < BATCH; r++) {
			for (size_t c = 0; c < IDX_CLASSES; c++) {
				float sum = 0.0f;
				for (size_t k = 0; k < IDX_PIXELS; k++)
					sum += x[r * IDX_PIXELS + k] * w[k * IDX_CLASSES + c];
				logits[r][c] = sum + b[c];
			}
			float max = logits[r][0], total = 0.0f;
			size_t best = 0;
			for (size_t c = 1; c < IDX_CLASSES; c++) {
				if (logits[r][c] > max) {
					max = logits[r][c];
					best = c;
				}
			}
			for (size_t c = 0; c < IDX_CLASSES; c++) {
				logits[r][c] = expf(logits[r][c] - max);
				total += logits[r][c];
			}
			for (size_t c = 0; c < IDX_CLASSES; c++)
				logits[r][c] /= total;
			right += best == labels[r];
			/* Cross-entropy and its gradient p - onehot. */
			loss -= logf(logits[r][labels[r]]);
			for (size_t c = 0; c < IDX_CLASSES; c++)
				deltas[r][c] = logits[r][c] - (c == labels[r] ? 1.0f : 0.0f);
		}
		/* Backward: dW = x^T deltas, db = column sums, then the step. */
		for (size_t k = 0; k < IDX_PIXELS; k++) {
			for (size_t c = 0; c < IDX_CLASSES; c++) {
				float sum = 0.0f;
				for (size_t r = 0; r < BATCH; r++)
					sum += x[r * IDX_PIXELS + k] * deltas[r][c];
				dw[k][c] = sum;
			}
		}
		for (size_t r = 0; r < BATCH; r++)
			for (size_t c = 0; c < IDX_CLASSES; c++)
				db[c] += deltas[r][c];
		for (size_t k = 0; k < IDX_PIXELS; k++)
			for (size_t c = 0; c < IDX_CLASSES; c++)
				w[k * IDX_CLASSES + c] += scale * dw[k][c];
		for (size_t c = 0; c < IDX_CLASSES; c++)
			b[c] += scale * db[c];
		losses[batch] = loss;
		correct[batch] = right;
	}
}

int main(void)
{
	const char *env = getenv("TSI_BENCH_IMAGES");
	size_t images = env ? strtoul(env, NULL, 10) : 60000;
	tsi_ipu_model_options model_opts = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *device = NULL;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	tut5_model m;
	idx_dataset train, test;
	char err[256];

	if (images < BATCH)
		die("TSI_BENCH_IMAGES", "fewer images than one batch");
	size_t batches = images / BATCH;
	if (idx_dataset_synthetic(&train, batches * BATCH, 5, 0, err, sizeof(err)) != IDX_OK ||
	    idx_dataset_synthetic(&test, BATCH, 5, 1, err, sizeof(err)) != IDX_OK)
		die("making the data", err);

	float *losses = calloc(batches, sizeof(float)), *c_losses = calloc(batches, sizeof(float));
	uint32_t correct = 0, test_correct = 0;
	uint32_t *c_correct = calloc(batches, sizeof(uint32_t));
	float *w = malloc(IDX_PIXELS * IDX_CLASSES * sizeof(float));
	float *w_sim = malloc(IDX_PIXELS * IDX_CLASSES * sizeof(float));
	float b[IDX_CLASSES], b_sim[IDX_CLASSES];
	if (!losses || !c_losses || !c_correct || !w || !w_sim)
		die("allocating", "out of memory");

	double t0 = now();
	if (tsi_device_new_ipu_model(&device, &model_opts) != TSI_OK ||
	    tsi_graph_new(&graph, tsi_device_get_target(device), 1) != TSI_OK)
		die("creating the device and graph", tsi_error_last());
	tut5_model_build(&m, graph, BATCH, LEARNING_RATE, batches, test.count);
	if (tsi_graph_create_host_read(graph, "W", m.w) != TSI_OK ||
	    tsi_graph_create_host_read(graph, "b", m.b) != TSI_OK)
		die("creating the host read handles", tsi_error_last());
	if (tsi_engine_new(&engine, graph, m.progs, TUT5_N_PROGS, NULL) != TSI_OK)
		die("compiling", tsi_error_last());
	if (tsi_engine_load(engine, device) != TSI_OK)
		die("loading", tsi_engine_error(engine));
	double t_compile = now() - t0;
	tut5_host host = {&train, &test, losses, &correct, &test_correct};
	tut5_model_connect(&m, engine, &host);

	if (tsi_engine_run(engine, TUT5_PROG_INIT) != TSI_OK ||
	    tsi_engine_read_tensor(engine, "W", w, IDX_PIXELS * IDX_CLASSES * sizeof(float)) !=
	        TSI_OK ||
	    tsi_engine_read_tensor(engine, "b", b, sizeof(b)) != TSI_OK)
		die("initialising", tsi_engine_error(engine));

	/* Five alternating pairs from the same start: the best time of each
	 * side, and each pair's ratio (the median is the steady figure, the
	 * worst shows the spread on a noisy machine). */
	double best_sim = INFINITY, best_c = INFINITY, ratios[5];
	float *w0 = malloc(IDX_PIXELS * IDX_CLASSES * sizeof(float)), b0[IDX_CLASSES];
	if (!w0)
		die("allocating", "out of memory");
	memcpy(w0, w, IDX_PIXELS * IDX_CLASSES * sizeof(float));
	memcpy(b0, b, sizeof(b));
	for (int rep = 0; rep < 5; rep++) {
		/* Each init draws new weights; the loop starts from the same. */
		if (rep > 0 &&
		    (tsi_engine_run(engine, TUT5_PROG_INIT) != TSI_OK ||
		     tsi_engine_read_tensor(engine, "W", w0,
		                            IDX_PIXELS * IDX_CLASSES * sizeof(float)) != TSI_OK ||
		     tsi_engine_read_tensor(engine, "b", b0, sizeof(b0)) != TSI_OK))
			die("initialising", tsi_engine_error(engine));
		double t = now();
		if (tsi_engine_run(engine, TUT5_PROG_EPOCH) != TSI_OK)
			die("training on the simulator", tsi_engine_error(engine));
		t = now() - t;
		best_sim = t < best_sim ? t : best_sim;
		double t_sim = t;

		memcpy(w, w0, IDX_PIXELS * IDX_CLASSES * sizeof(float));
		memcpy(b, b0, sizeof(b));
		t = now();
		c_epoch(w, b, &train, batches, c_losses, c_correct);
		t = now() - t;
		best_c = t < best_c ? t : best_c;
		ratios[rep] = t_sim / t;
	}
	qsort(ratios, 5, sizeof(*ratios), cmp_double);
	if (tsi_engine_read_tensor(engine, "W", w_sim, IDX_PIXELS * IDX_CLASSES * sizeof(float)) !=
	        TSI_OK ||
	    tsi_engine_read_tensor(engine, "b", b_sim, sizeof(b_sim)) != TSI_OK)
		die("reading the weights", tsi_engine_error(engine));

	double max_dw = 0, max_w = 0, max_dloss = 0;
	for (size_t i = 0; i < IDX_PIXELS * IDX_CLASSES; i++) {
		max_dw = fmax(max_dw, fabs((double)w[i] - (double)w_sim[i]));
		max_w = fmax(max_w, fabs((double)w[i]));
	}
	for (size_t c = 0; c < IDX_CLASSES; c++)
		max_dw = fmax(max_dw, fabs((double)b[c] - (double)b_sim[c]));
	uint64_t sim_right = correct, c_right = 0;
	for (size_t i = 0; i < batches; i++) {
		max_dloss = fmax(max_dloss, fabs((double)losses[i] - (double)c_losses[i]) /
		                                fmax(1.0, fabs((double)c_losses[i])));
		c_right += c_correct[i];
	}

	printf("# one epoch of tut5_ml: %zu batches of %u images (synthetic data)\n", batches,
	       BATCH);
	printf("# agreement: max |W_sim - W_c| = %.3g (max |W| %.3g), max relative batch-loss "
	       "difference %.3g, correct answers %llu vs %llu\n",
	       max_dw, max_w, max_dloss, (unsigned long long)sim_right,
	       (unsigned long long)c_right);
	/* The trained weights' bits: equal across builds when a change to the
	 * simulator kept its arithmetic bit for bit. */
	uint64_t bits = 0xcbf29ce484222325u;
	const unsigned char *wb = (const unsigned char *)w_sim;
	for (size_t i = 0; i < IDX_PIXELS * IDX_CLASSES * sizeof(float); i++)
		bits = (bits ^ wb[i]) * 0x100000001b3u;
	printf("# simulator weights checksum %016llx (FNV-1a of W's bytes)\n",
	       (unsigned long long)bits);
	printf("simulator.compile_s %.3f s\n", t_compile);
	printf("simulator.epoch_s %.3f s\n", best_sim);
	printf("simulator.c_loop_epoch_s %.3f s\n", best_c);
	printf("simulator.ratio %.2f x (target <= 2)\n", ratios[2]);
	printf("simulator.ratio_worst %.2f x\n", ratios[4]);

	tsi_engine_free(engine);
	tsi_graph_free(graph);
	tsi_device_free(device);
	idx_dataset_free(&train);
	idx_dataset_free(&test);
	free(losses);
	free(c_losses);
	free(c_correct);
	free(w);
	free(w0);
	free(w_sim);
	return max_dw > 1e-2 * fmax(max_w, 1e-3) ? 1 : 0;
}
