/*
 * Fault test of the writers: the runtime's autoReport (profile.pop and
 * debug.cbor of a small matmul model, compiled, run and freed) and the
 * tracer (a .pvti with spans, an instant, a counter series). Each
 * allocation of the writers (and of SQLite under them) fails in turn
 * (fault-harness.h); the runtime's own graph building does not allocate
 * through the hook. Their outputs hold time stamps and process ids, so a
 * run that recovers is checked by reading its files back with reportlib
 * rather than byte for byte.
 * usage: fault-writers
 */
#include "fault-harness.h"

#include "tut4-model.h"

#include <tilescope/ipu.h>
#include <tilescope/pvti.h>
#include <tilescope/report.h>
#include <tilescope/summary.h>
#include <tilescope/trace.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints the one line of a failure, the library's message (which names
 * the call), or `what` when it gave none; returns 1. */
static int failed(const char *what, const char *why)
{
	fprintf(stderr, "fault-writers: %s\n", why && *why ? why : what);
	return 1;
}

static int autoreport(const char *dir, void *ctx)
{
	tsi_ipu_model_options model = TSI_IPU_MODEL_OPTIONS_INIT;
	const tut4_sizes sizes = {8, 6, 4, 2};
	float m1[8 * 6], m2[6 * 4], m3[4 * 2], result[8 * 2];
	tsi_device *device = NULL;
	tsi_graph *graph = NULL;
	tsi_engine *engine = NULL;
	tsi_options *opts = tsi_options_new();
	tut4_model m;
	int rc = 1;

	(void)ctx;
	tut4_fill_inputs(&sizes, m1, m2, m3);
	if (!opts) {
		rc = failed("tsi_options_new: no message", "out of memory");
	} else if (tsi_device_new_ipu_model(&device, &model) != TSI_OK) {
		rc = failed("device: no message", tsi_error_last());
	} else if (tsi_graph_new(&graph, tsi_device_get_target(device), 1) != TSI_OK) {
		rc = failed("graph: no message", tsi_error_last());
	} else if (tut4_model_build(&m, graph, &sizes) != TSI_OK) {
		rc = failed("model: no message", tsi_graph_get_error(graph));
	} else if (tsi_options_set(opts, "autoReport.all", "true") != TSI_OK ||
	           tsi_options_set(opts, "autoReport.directory", dir) != TSI_OK) {
		rc = failed("options: no message", tsi_error_last());
	} else if (tsi_engine_new(&engine, graph, &m.prog, 1, opts) != TSI_OK) {
		rc = failed("engine: no message", tsi_error_last());
	} else if (tsi_engine_load(engine, device) != TSI_OK ||
	           tut4_model_connect(engine, &m, m1, m2, m3, result) != TSI_OK ||
	           tsi_engine_run(engine, 0) != TSI_OK) {
		rc = failed("running: no message", tsi_engine_error(engine));
	} else if (tsi_engine_wait_reports(engine) != TSI_OK) {
		rc = failed("autoReport: no message", tsi_error_last());
	} else {
		rc = 0;
	}
	tsi_engine_free(engine);
	tsi_graph_free(graph);
	tsi_device_free(device);
	tsi_options_free(opts);
	return rc;
}

/* The report a run wrote opens and gives its summary. */
static int check_report(const char *dir)
{
	tsr_report *r = NULL;
	FILE *null = fopen("/dev/null", "w");
	int rc = tsr_report_open(&r, dir, NULL);

	if (rc == TSR_OK)
		rc = tsr_summary_print(null, r, NULL);
	if (rc != TSR_OK)
		printf("  the report in %s does not read back: %s\n", dir,
		       r ? tsr_report_error(r) : tsr_last_error());
	tsr_report_free(r);
	if (null)
		fclose(null);
	return rc;
}

static int trace(const char *dir, void *ctx)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	int rc;

	(void)ctx;
	opts.directory = dir;
	rc = pvti_open(&opts);
	if (rc != TSI_OK)
		return failed("pvti_open: no message", tsi_error_last());
	pvti_graph *g = pvti_graph_new("loss", "");
	pvti_series *s = g ? pvti_graph_add_series(g, "train") : NULL;
	pvti_channel *ch = pvti_channel_new("fault");
	for (int i = 0; i < 50; i++) {
		pvti_begin(pvti_channel_framework(), "epoch");
		pvti_begin(ch, i % 2 ? "forward" : "backward");
		pvti_instant(ch, "step");
		pvti_end(ch);
		if (s)
			pvti_series_add(s, 1.0 / (i + 1));
		pvti_end(pvti_channel_framework());
	}
	rc = pvti_close();
	if (rc != TSI_OK)
		return failed("pvti_close: no message", tsi_error_last());
	return 0;
}

/* The trace a run wrote (whole, or up to its last flush) opens. */
static int check_trace(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	while (d && (e = readdir(d))) {
		char path[4096];
		const char *paths[1] = {path};
		tsr_trace *tr = NULL;

		if (!strstr(e->d_name, ".pvti") || strstr(e->d_name, ".pvti-"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (tsr_trace_open(&tr, paths, 1, NULL) != TSR_OK) {
			printf("  the trace %s does not read back: %s\n", path,
			       tr ? tsr_trace_error(tr) : tsr_last_error());
			rc = 1;
		}
		tsr_trace_free(tr);
	}
	if (d)
		closedir(d);
	return rc;
}

int main(void)
{
	const fault_path paths[] = {
		{"autoReport (profile.pop, debug.cbor)", autoreport, NULL, check_report},
		{"pvti writer (.pvti)", trace, NULL, check_trace},
	};

	return fault_run_paths(paths, sizeof(paths) / sizeof(paths[0]));
}
