/*
 * Fault test of `tilescope export`: a report's graph profile as JSON, its
 * execution profile as CBOR, and a .pvti trace as Chrome trace-event
 * JSON, each written with -o (whole or not at all): each allocation of
 * the path fails in turn (fault-harness.h).
 * usage: fault-export SAMPLE_REPORTS_DIR
 */
#include "fault-harness.h"

#include <stdio.h>

static const char *samples;

static int export_graph(const char *dir, void *ctx)
{
	char out[4096], report[4096];

	(void)ctx;
	snprintf(out, sizeof(out), "%s/graph.json", dir);
	snprintf(report, sizeof(report), "%s/tut4_profiling", samples);
	char *argv[] = {"export", "--graph-profile", "-o", out, report, NULL};
	return fault_run_cli(argv);
}

static int export_execution(const char *dir, void *ctx)
{
	char out[4096], report[4096];

	(void)ctx;
	snprintf(out, sizeof(out), "%s/execution.cbor", dir);
	snprintf(report, sizeof(report), "%s/tut4_profiling", samples);
	char *argv[] = {"export", "--execution-profile", "--cbor", "-o", out, report, NULL};
	return fault_run_cli(argv);
}

static int export_chrome(const char *dir, void *ctx)
{
	char out[4096], trace[4096];

	(void)ctx;
	snprintf(out, sizeof(out), "%s/trace.json", dir);
	snprintf(trace, sizeof(trace), "%s/tut5_ml/tut5_ml.pvti", samples);
	char *argv[] = {"export", "--chrome-trace", "-o", out, trace, NULL};
	return fault_run_cli(argv);
}

int main(int argc, char **argv)
{
	const fault_path paths[] = {
		{"export --graph-profile", export_graph, NULL, NULL},
		{"export --execution-profile --cbor", export_execution, NULL, NULL},
		{"export --chrome-trace", export_chrome, NULL, NULL},
	};

	if (argc != 2) {
		fprintf(stderr, "usage: fault-export SAMPLE_REPORTS_DIR\n");
		return 2;
	}
	samples = argv[1];
	return fault_run_paths(paths, sizeof(paths) / sizeof(paths[0]));
}
