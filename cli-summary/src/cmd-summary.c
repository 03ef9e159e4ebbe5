/*
 * `tilescope summary REPORT`: the printProfileSummary layout of the Poplar
 * user guide (reportlib's summary.h), or the same figures as JSON.
 */
#include "cli.h"

#include "tilescope/summary.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: tilescope summary [OPTIONS] REPORT\n";

static const char help[] =
	"usage: tilescope summary [OPTIONS] REPORT\n"
	"\n"
	"Prints the profile summary of REPORT (a profile.pop, or the autoReport\n"
	"directory holding it) in the layout of Poplar's printProfileSummary: Target,\n"
	"Graph, Memory Usage (by region, by data type, vertex data, the by-tile\n"
	"histogram), Variable Storage Liveness, Execution, Cycles by vertex type and\n"
	"Steps. A debug.cbor beside the report is checked against it whenever\n"
	"operations are read (--show-operations): one from another run, or one that\n"
	"disagrees, is an error. It adds no figure: profile.pop names what each debug\n"
	"context made.\n"
	"\n"
	"Memory \"including gaps\" is each tile's highest address used + 1: alignment\n"
	"padding and, once anything sits in the interleaved region (from 256 KiB on\n"
	"Mk2 and Bow, 128 KiB on Mk1), the unused part of the non-interleaved region\n"
	"below it. So a lightly used tile shows about 256 KiB including gaps while\n"
	"holding a few KiB of data (\"excluding gaps\"); the room is free, not lost.\n"
	"\n"
	"Options:\n"
	"  --show-var-storage       liveness of every program step, with the call-stack\n"
	"                           tree (showVarStorage)\n"
	"  --show-optimizations     the compiler's optimisation notes (showOptimizations)\n"
	"  --show-execution-steps   every execution step of the run (showExecutionSteps)\n"
	"  --show-per-ipu-memory    memory usage per IPU (showPerIpuMemoryUsage)\n"
	"  --all                    all four of the above\n"
	"  --show-operations        every operation (debug context, the model's layers\n"
	"                           and the ops inside them) with its memory, and the\n"
	"                           run's cycles, FLOPs and utilisation of the fp32 peak\n"
	"                           (also in --json: \"operations\")\n"
	"  --run N                  the execution figures of run N (0 is the first run the\n"
	"                           report keeps; default: the last one)\n"
	"  --colours=WHEN           auto (default: on a terminal), always or never; NO_COLOR,\n"
	"                           CLICOLOR and CLICOLOR_FORCE are honoured with auto\n"
	"  --json                   the same figures as one JSON object; integers are exact\n"
	"                           (keys and units: the comment at the top of\n"
	"                           reportlib/src/summary-json.c)\n"
	"  -o, --output FILE        write to FILE instead of standard output\n"
	"  -h, --help               this help\n"
	"\n"
	"Exit status: 0 printed, 2 an error (bad arguments, unreadable or damaged\n"
	"report, a run the report does not keep).\n";

enum {
	OPT_VAR_STORAGE = 256,
	OPT_OPTIMIZATIONS,
	OPT_STEPS,
	OPT_PER_IPU,
	OPT_ALL,
	OPT_OPERATIONS,
	OPT_RUN,
	OPT_COLOURS,
	OPT_JSON
};

static const struct option options[] = {
	{"show-var-storage", no_argument, NULL, OPT_VAR_STORAGE},
	{"show-optimizations", no_argument, NULL, OPT_OPTIMIZATIONS},
	{"show-execution-steps", no_argument, NULL, OPT_STEPS},
	{"show-per-ipu-memory", no_argument, NULL, OPT_PER_IPU},
	{"all", no_argument, NULL, OPT_ALL},
	{"show-operations", no_argument, NULL, OPT_OPERATIONS},
	{"run", required_argument, NULL, OPT_RUN},
	{"colours", required_argument, NULL, OPT_COLOURS},
	{"colors", required_argument, NULL, OPT_COLOURS},
	{"json", no_argument, NULL, OPT_JSON},
	{"output", required_argument, NULL, 'o'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/*
 * Parses the options, opens the report and prints it. The text goes
 * through cli_output so that -o FILE never leaves half a summary behind;
 * colours are decided on the real destination, so a file gets none under
 * --colours=auto.
 */
int cli_cmd_summary(int argc, char **argv)
{
	tsr_summary_options opts = TSR_SUMMARY_OPTIONS_INIT;
	const char *output = NULL;
	bool json = false;
	tsr_report *report = NULL;
	cli_output *out = NULL;
	char *text = NULL;
	int c, rc, status = CLI_EXIT_ERROR;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, ":ho:", options, NULL)) != -1) {
		switch (c) {
		case OPT_VAR_STORAGE: opts.show_var_storage = true; break;
		case OPT_OPTIMIZATIONS: opts.show_optimizations = true; break;
		case OPT_STEPS: opts.show_execution_steps = true; break;
		case OPT_PER_IPU: opts.show_per_ipu_memory = true; break;
		case OPT_OPERATIONS: opts.show_operations = true; break;
		case OPT_ALL:
			opts.show_var_storage = opts.show_optimizations = true;
			opts.show_execution_steps = opts.show_per_ipu_memory = true;
			break;
		case OPT_RUN: {
			uint64_t run;
			if (!cli_parse_u64(optarg, &run) || run > INT64_MAX)
				return cli_usage_error("summary", usage,
				                       "--run wants a run number (0, 1, ...), not '%s'",
				                       optarg);
			opts.run = (int64_t)run;
			break;
		}
		case OPT_COLOURS:
			if (!cli_parse_colours(optarg, &opts.colours))
				return cli_usage_error("summary", usage,
				                       "--colours wants auto, always or never, not '%s'",
				                       optarg);
			break;
		case OPT_JSON: json = true; break;
		case 'o': output = optarg; break;
		case 'h': fputs(help, stdout); return CLI_EXIT_OK;
		default:
			return cli_option_error("summary", usage, c, argv);
		}
	}
	if (argc - optind != 1)
		return cli_usage_error("summary", usage, argc == optind ? "no REPORT given"
		                                                         : "one REPORT only");
	if (cli_open_report(&report, argv[optind]) != CLI_EXIT_OK)
		return CLI_EXIT_ERROR;

	out = cli_output_open(output);
	if (!out)
		goto cleanup;
	if (!json && opts.colours == TSR_COLOURS_AUTO &&
	    !tsr_colours_enabled(TSR_COLOURS_AUTO, cli_output_stream(out)))
		opts.colours = TSR_COLOURS_NEVER;

	cli_progress_begin("Summarising the report");
	if (json) {
		rc = tsr_summary_dup_json(&text, report, &opts);
		if (rc == TSR_OK && fputs(text, cli_output_stream(out)) < 0)
			rc = TSR_ERR_IO;
		if (rc == TSR_OK && fputc('\n', cli_output_stream(out)) == EOF)
			rc = TSR_ERR_IO;
	} else {
		rc = tsr_summary_print(cli_output_stream(out), report, &opts);
	}
	cli_progress_end();
	if (rc == TSR_ERR_IO) {
		/* cli_output_close names the destination and the cause. */
		status = cli_output_close(out, true);
		if (status == CLI_EXIT_OK)
			status = cli_error("%s: write failed", cli_output_name(output));
		out = NULL;
		goto cleanup;
	}
	if (rc != TSR_OK) {
		cli_error("%s: %s", argv[optind], tsr_report_error(report));
		cli_output_close(out, false);
		out = NULL;
		goto cleanup;
	}
	status = cli_output_close(out, true);
	out = NULL;
cleanup:
	if (out)
		cli_output_close(out, false);
	free(text);
	tsr_report_free(report);
	return status;
}
