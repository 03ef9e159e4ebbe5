/*
 * Fault test of `tilescope diff` (two reports opened, compared, the
 * comparison rendered as text and as JSON) over two small sample reports:
 * each allocation of the path fails in turn (fault-harness.h).
 * usage: fault-diff SAMPLE_REPORTS_DIR
 */
#include "fault-harness.h"

#include <stdio.h>

static const char *samples;

static int diff(const char *dir, void *ctx)
{
	const char *format = ctx;
	char out[4096], base[4096], new_report[4096], fmt[64];

	snprintf(out, sizeof(out), "%s/diff.%s", dir, format);
	snprintf(base, sizeof(base), "%s/tut7_mk1_small", samples);
	snprintf(new_report, sizeof(new_report), "%s/tut7_mk1", samples);
	snprintf(fmt, sizeof(fmt), "--format=%s", format);
	char *argv[] = {"diff", fmt, "-o", out, base, new_report, NULL};
	return fault_run_cli(argv);
}

int main(int argc, char **argv)
{
	const fault_path paths[] = {
		{"diff (text)", diff, "text", NULL},
		{"diff --format=json", diff, "json", NULL},
	};

	if (argc != 2) {
		fprintf(stderr, "usage: fault-diff SAMPLE_REPORTS_DIR\n");
		return 2;
	}
	samples = argv[1];
	return fault_run_paths(paths, sizeof(paths) / sizeof(paths[0]));
}
