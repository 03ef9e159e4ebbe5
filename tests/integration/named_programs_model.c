/*
 * The smallest model whose engine programs are named as users name them
 * (issue 26 item 7), for check-program-names.sh: program 0 is a Sequence
 * named "epoch" (tsi_prog_sequence's name), program 1 an unnamed
 * Sequence, program 2 a Repeat named "train" (tsi_program_set_name on a
 * program that is not a Sequence). Each fills a small variable on a few
 * tiles. It runs 0, 1, 2, so that run N ran engine program N. The report
 * goes where POPLAR_ENGINE_OPTIONS says.
 *
 * usage: named_programs_model
 */
#include <tilescope/ipu.h>
#include <tilescope/popops.h>

#include <stdio.h>
#include <stdlib.h>

/* Exits with the graph's message when `ok` is false. */
static void must(tsi_graph *g, bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "named_programs_model: %s: %s\n", what,
	        g ? tsi_graph_get_error(g) : tsi_error_last());
	exit(1);
}

int main(int argc, char **argv)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *dev = NULL;
	tsi_graph *g = NULL;
	tsi_engine *eng = NULL;
	tsi_program *progs[3], *body;
	tsi_tensor *v;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: named_programs_model\n");
		return 2;
	}
	o.tiles_per_ipu = 4;
	must(NULL, tsi_device_new_ipu_model(&dev, &o) == TSI_OK, "device");
	must(NULL, tsi_graph_new(&g, tsi_device_get_target(dev), 1) == TSI_OK, "graph");
	must(g, tsi_popops_add_codelets(g) == TSI_OK, "codelets");
	v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4), "v");
	must(g, v != NULL, "variable");
	for (size_t i = 0; i < 4; i++)
		must(g, tsi_graph_set_tile_mapping(g, tsi_tensor_index(v, i), (unsigned)i) == TSI_OK,
		     "mapping");

	progs[0] = tsi_prog_sequence(g, "epoch");
	progs[1] = tsi_prog_sequence(g, NULL);
	body = tsi_prog_sequence(g, NULL);
	must(g, progs[0] && progs[1] && body, "programs");
	must(g, tsi_popops_fill(g, v, 1.0, progs[0], "fillOne") == TSI_OK, "fill 1");
	must(g, tsi_popops_fill(g, v, 2.0, progs[1], "fillTwo") == TSI_OK, "fill 2");
	must(g, tsi_popops_fill(g, v, 3.0, body, "fillThree") == TSI_OK, "fill 3");
	progs[2] = tsi_prog_repeat(g, 2, body);
	must(g, progs[2] != NULL, "repeat");
	tsi_program_set_name(progs[2], "train");

	if (tsi_engine_new(&eng, g, progs, 3, NULL) || tsi_engine_load(eng, dev)) {
		fprintf(stderr, "named_programs_model: %s\n", tsi_error_last());
		return 1;
	}
	for (size_t i = 0; i < 3; i++)
		if (tsi_engine_run(eng, i)) {
			fprintf(stderr, "named_programs_model: %s\n", tsi_error_last());
			return 1;
		}
	tsi_engine_free(eng);
	tsi_graph_free(g);
	tsi_device_free(dev);
	return 0;
}
