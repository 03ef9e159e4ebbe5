/*
 * A three-layer perceptron (256-128-64-10) whose layers are debug
 * contexts nested in "model" ("model/fc1", "model/fc2", "model/fc3"), as a
 * user structures a model with tsi_debug_push: the model of issue 17's
 * naming, diff and summary checks (check-diff-programs.sh). Three
 * programs: "init" fills the input and draws the weights (poprand), "train" repeats a step (the
 * forward pass and a gradient-like update of each layer's weights) over
 * 512 samples in batches of --batch, "test" runs the forward pass once.
 * It runs init, train twice and test, or with --test-first init, test and
 * train twice, so that the last run is another program. The report goes
 * where POPLAR_ENGINE_OPTIONS says.
 *
 * usage: layers_model [--batch N] [--test-first]
 */
#include <tilescope/ipu.h>
#include <tilescope/poplin.h>
#include <tilescope/popnn.h>
#include <tilescope/popops.h>
#include <tilescope/poprand.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 512

/* Exits with the graph's message when `ok` is false. */
static void must(tsi_graph *g, bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "layers_model: %s: %s\n", what, tsi_graph_get_error(g));
	exit(1);
}

/* One layer inside its own context: y = relu(x W), and in `update` W is
 * nudged by a scaled copy of itself (the place of an SGD step). */
static tsi_tensor *layer(tsi_graph *g, const char *name, tsi_tensor *x, size_t in, size_t out,
                         size_t batch, tsi_program *init, tsi_program *seq,
                         tsi_program *update)
{
	tsi_debug_id id = tsi_debug_push(g, name, NULL);
	tsi_tensor *w = tsi_poplin_create_matmul_input_rhs(g, TSI_FLOAT, batch, in, out, "W");
	tsi_tensor *y;

	must(g, w != NULL, "weights");
	/* Random weights: poprand makes a seed and parameter constant per
	 * tile, the series the summary folds into one line. */
	must(g, tsi_poprand_normal(g, w, 0.0, 0.01, 1234, init, "initW") == TSI_OK,
	     "initialising weights");
	y = tsi_poplin_matmul(g, x, w, seq, "matmul");
	must(g, y != NULL, "matmul");
	must(g, tsi_popnn_nonlinearity_in_place(g, TSI_POPNN_RELU, y, seq, "relu") == TSI_OK,
	     "relu");
	if (update)
		must(g, tsi_popops_scaled_add_to(g, w, w, -0.001f, update, "sgd") == TSI_OK, "update");
	tsi_debug_pop(g, id);
	return y;
}

/* The three layers on input x, inside "model". */
static void forward(tsi_graph *g, tsi_tensor *x, size_t batch, tsi_program *init,
                    tsi_program *seq, tsi_program *update)
{
	tsi_debug_id model = tsi_debug_push(g, "model", NULL);
	tsi_tensor *h = layer(g, "fc1", x, 256, 128, batch, init, seq, update);

	h = layer(g, "fc2", h, 128, 64, batch, init, seq, update);
	(void)layer(g, "fc3", h, 64, 10, batch, init, seq, update);
	tsi_debug_pop(g, model);
}

int main(int argc, char **argv)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	size_t batch = 64;
	bool test_first = false;
	tsi_device *dev;
	tsi_graph *g;
	tsi_engine *eng;
	tsi_program *progs[3], *step, *test_init;
	tsi_tensor *x, *xt;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc) {
			batch = strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--test-first") == 0) {
			test_first = true;
		} else {
			fprintf(stderr, "usage: layers_model [--batch N] [--test-first]\n");
			return 2;
		}
	}
	if (batch == 0 || SAMPLES % batch) {
		fprintf(stderr, "layers_model: --batch must divide %d\n", SAMPLES);
		return 2;
	}
	o.tiles_per_ipu = 64;
	if (tsi_device_new_ipu_model(&dev, &o) ||
	    tsi_graph_new(&g, tsi_device_get_target(dev), 1)) {
		fprintf(stderr, "layers_model: %s\n", tsi_error_last());
		return 1;
	}
	must(g, tsi_popops_add_codelets(g) == TSI_OK && tsi_poplin_add_codelets(g) == TSI_OK &&
	             tsi_popnn_add_codelets(g) == TSI_OK && tsi_poprand_add_codelets(g) == TSI_OK,
	     "codelets");
	progs[0] = tsi_prog_sequence(g, "init");
	step = tsi_prog_sequence(g, "trainStep");
	progs[2] = tsi_prog_sequence(g, "test");
	test_init = tsi_prog_sequence(g, "testInit");
	must(g, progs[0] && step && progs[2] && test_init, "programs");

	x = tsi_poplin_create_matmul_input_lhs(g, TSI_FLOAT, batch, 256, 128, "x");
	must(g, x != NULL, "input");
	must(g, tsi_popops_fill(g, x, 0.5, progs[0], "initX") == TSI_OK, "filling x");
	forward(g, x, batch, progs[0], step, step);
	progs[1] = tsi_prog_repeat(g, SAMPLES / batch, step);
	must(g, progs[1] != NULL, "repeat");
	tsi_program_set_name(progs[1], "train");

	xt = tsi_poplin_create_matmul_input_lhs(g, TSI_FLOAT, batch, 256, 128, "xTest");
	must(g, xt != NULL, "test input");
	must(g, tsi_popops_fill(g, xt, 0.25, progs[2], "initXTest") == TSI_OK, "filling test x");
	forward(g, xt, batch, test_init, progs[2], NULL);
	must(g, tsi_sequence_add(progs[0], test_init) == TSI_OK, "init");

	if (tsi_engine_new(&eng, g, progs, 3, NULL) || tsi_engine_load(eng, dev)) {
		fprintf(stderr, "layers_model: %s\n", tsi_error_last());
		return 1;
	}
	const size_t order[2][4] = {{0, 1, 1, 2}, {0, 2, 1, 1}};
	for (int i = 0; i < 4; i++)
		if (tsi_engine_run(eng, order[test_first][i])) {
			fprintf(stderr, "layers_model: %s\n", tsi_error_last());
			return 1;
		}
	tsi_engine_free(eng);
	tsi_graph_free(g);
	tsi_device_free(dev);
	printf("layers_model: batch %zu, %d train steps per run\n", batch, SAMPLES / (int)batch);
	return 0;
}
