/*
 * Fault test of `tilescope summary` (report open, the summary's figures,
 * its text and its JSON) over a small sample report: each allocation of
 * the path fails in turn (fault-harness.h).
 * usage: fault-summary SAMPLE_REPORTS_DIR
 */
#include "fault-harness.h"

#include <stdio.h>

static const char *samples;

static int summary_text(const char *dir, void *ctx)
{
	char out[4096], report[4096];

	(void)ctx;
	snprintf(out, sizeof(out), "%s/summary.txt", dir);
	snprintf(report, sizeof(report), "%s/tut4_profiling", samples);
	char *argv[] = {"summary", "--show-execution-steps", "-o", out, report, NULL};
	return fault_run_cli(argv);
}

static int summary_json(const char *dir, void *ctx)
{
	char out[4096], report[4096];

	(void)ctx;
	snprintf(out, sizeof(out), "%s/summary.json", dir);
	snprintf(report, sizeof(report), "%s/tut4_profiling/profile.pop", samples);
	char *argv[] = {"summary", "--json", "--show-operations", "-o", out, report, NULL};
	return fault_run_cli(argv);
}

int main(int argc, char **argv)
{
	const fault_path paths[] = {
		{"summary (text)", summary_text, NULL, NULL},
		{"summary --json", summary_json, NULL, NULL},
	};

	if (argc != 2) {
		fprintf(stderr, "usage: fault-summary SAMPLE_REPORTS_DIR\n");
		return 2;
	}
	samples = argv[1];
	return fault_run_paths(paths, sizeof(paths) / sizeof(paths[0]));
}
