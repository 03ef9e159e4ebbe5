/*
 * A model whose names are what a hostile or careless author could write
 * (issue 31, "Done means"): a debug context named
 *   </script><img src=x onerror=alert(1)>
 * and one holding quotes, U+2028 and a byte that is not UTF-8 (0xFF).
 * Each context prefixes the variable, compute set and program made inside
 * it (debug.h), so the names reach the summary's tables, the embedded
 * JSON and the charts' labels. The report goes where
 * POPLAR_ENGINE_OPTIONS says; check-hostile-names.sh reads it back.
 *
 * usage: hostile_names_model
 */
#include <tilescope/debug.h>
#include <tilescope/ipu.h>
#include <tilescope/popops.h>

#include <stdio.h>
#include <stdlib.h>

/* The two context names; the checks spell them out again. */
static const char *const names[2] = {
	"</script><img src=x onerror=alert(1)>",
	"\"quoted\" 'single' \xe2\x80\xa8line \xff end",
};

/* Exits with the graph's message when `ok` is false. */
static void must(tsi_graph *g, bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "hostile_names_model: %s: %s\n", what,
	        g ? tsi_graph_get_error(g) : tsi_error_last());
	exit(1);
}

int main(int argc, char **argv)
{
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_device *dev = NULL;
	tsi_graph *g = NULL;
	tsi_engine *eng = NULL;
	tsi_program *prog;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: hostile_names_model\n");
		return 2;
	}
	o.tiles_per_ipu = 4;
	must(NULL, tsi_device_new_ipu_model(&dev, &o) == TSI_OK, "device");
	must(NULL, tsi_graph_new(&g, tsi_device_get_target(dev), 1) == TSI_OK, "graph");
	must(g, tsi_popops_add_codelets(g) == TSI_OK, "codelets");
	prog = tsi_prog_sequence(g, "main");
	must(g, prog != NULL, "program");
	for (size_t n = 0; n < 2; n++) {
		tsi_debug_id ctx = tsi_debug_push(g, names[n], NULL);
		/* Sizes that differ, so each is a largest variable somewhere. */
		tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(4 * (n + 1)), "v");

		must(g, ctx != TSI_NO_DEBUG_CONTEXT && v != NULL, "variable");
		must(g, tsi_graph_set_tile_mapping(g, v, (unsigned)n) == TSI_OK, "mapping");
		must(g, tsi_popops_fill(g, v, 1.0, prog, "fill") == TSI_OK, "fill");
		tsi_debug_pop(g, ctx);
	}
	if (tsi_engine_new(&eng, g, &prog, 1, NULL) || tsi_engine_load(eng, dev) ||
	    tsi_engine_run(eng, 0)) {
		fprintf(stderr, "hostile_names_model: %s\n", tsi_error_last());
		return 1;
	}
	tsi_engine_free(eng);
	tsi_graph_free(g);
	tsi_device_free(dev);
	return 0;
}
