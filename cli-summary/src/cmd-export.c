/*
 * `tilescope export`: a report's graph or execution profile in the shape
 * of the Poplar user guide's profiling chapter (JSON or CBOR, reportlib's
 * export.h), or traces as Chrome trace-event JSON (trace.h) for Perfetto
 * and chrome://tracing.
 */
#include "cli.h"

#include "tilescope/export.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: tilescope export --graph-profile|--execution-profile [--json|--cbor]\n"
	"                        [-o FILE] REPORT\n"
	"       tilescope export --chrome-trace [OPTIONS] TRACE...\n";

static const char help[] =
	"usage: tilescope export --graph-profile|--execution-profile [--json|--cbor]\n"
	"                        [-o FILE] REPORT\n"
	"       tilescope export --chrome-trace [OPTIONS] TRACE...\n"
	"\n"
	"Writes what a report or a trace holds in a form other tools read.\n"
	"\n"
	"What (exactly one):\n"
	"  --graph-profile      REPORT's graph profile (target, graph, memory by tile\n"
	"                       and category, programs, compute sets, vertex types,\n"
	"                       liveness) in the shape of Poplar's getGraphProfile()\n"
	"  --execution-profile  REPORT's execution profile (every run kept, its steps\n"
	"                       and cycles) in the shape of getExecutionProfile()\n"
	"  --chrome-trace       TRACE (.pvti or Chrome JSON files, or directories of\n"
	"                       them as `tilescope trace` takes them, merged onto one\n"
	"                       time axis) as Chrome trace-event JSON, for\n"
	"                       Perfetto (ui.perfetto.dev) and chrome://tracing\n"
	"\n"
	"REPORT is a profile.pop or the autoReport directory holding it.\n"
	"\n"
	"Options:\n"
	"  --json               JSON (the default)\n"
	"  --cbor               CBOR (profiles only; never to a terminal)\n"
	"  --from MS, --to MS   chrome trace: only the window from MS milliseconds\n"
	"                       after the trace's first event to MS after it\n"
	"  --no-counters        chrome trace: without counter samples (\"C\" events)\n"
	"  --no-instants        chrome trace: without instant events (\"i\")\n"
	"  --no-args            chrome trace: without span metadata (\"args\")\n"
	"  -o, --output FILE    write to FILE instead of standard output (written\n"
	"                       whole or not at all)\n"
	"  -h, --help           this help\n"
	"\n"
	"Exit status: 0 written, 2 an error (bad arguments, an unreadable or damaged\n"
	"input, a failed write).\n";

enum {
	OPT_GRAPH = 256,
	OPT_EXECUTION,
	OPT_CHROME,
	OPT_JSON,
	OPT_CBOR,
	OPT_FROM,
	OPT_TO,
	OPT_NO_COUNTERS,
	OPT_NO_INSTANTS,
	OPT_NO_ARGS,
	OPT_OUTPUT /* not 'o': a missing value is then named --output */
};

static const struct option options[] = {
	{"graph-profile", no_argument, NULL, OPT_GRAPH},
	{"execution-profile", no_argument, NULL, OPT_EXECUTION},
	{"chrome-trace", no_argument, NULL, OPT_CHROME},
	{"json", no_argument, NULL, OPT_JSON},
	{"cbor", no_argument, NULL, OPT_CBOR},
	{"from", required_argument, NULL, OPT_FROM},
	{"to", required_argument, NULL, OPT_TO},
	{"no-counters", no_argument, NULL, OPT_NO_COUNTERS},
	{"no-instants", no_argument, NULL, OPT_NO_INSTANTS},
	{"no-args", no_argument, NULL, OPT_NO_ARGS},
	{"output", required_argument, NULL, OPT_OUTPUT},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/*
 * Writes REPORT's graph or execution profile in `format` to `output`
 * (NULL or "-": standard output). The output is opened before the export
 * runs, so that an unwritable -o fails before that work; a file is
 * written whole or not at all (cli_output). JSON ends with a newline like
 * any text file.
 */
static int export_profile(const char *path, bool graph, tsr_export_format format,
                          const char *output)
{
	tsr_report *report = NULL;
	cli_output *out = NULL;
	int rc, status = CLI_EXIT_ERROR;
	bool ok = false;

	if (cli_open_report(&report, path) != CLI_EXIT_OK)
		return CLI_EXIT_ERROR;
	out = cli_output_open(output);
	if (!out)
		goto cleanup;
	cli_progress_begin(graph ? "Exporting the graph profile" : "Exporting the execution profile");
	/* Streamed: written as it is made, so a large document never sits
	 * whole in memory; on failure cli_output_close removes the partial
	 * file (or, for a device, what was written stays written). */
	rc = graph ? tsr_export_write_graph_profile(cli_output_stream(out), report, format)
	           : tsr_export_write_execution_profile(cli_output_stream(out), report, format);
	cli_progress_end();
	if (rc == TSR_ERR_IO && strstr(tsr_report_error(report), "write failed: ")) {
		/* The output failed, not the report: name the output. */
		cli_error("%s: %s", cli_output_name(output),
		          strstr(tsr_report_error(report), "write failed: "));
	} else if (rc != TSR_OK) {
		cli_error("%s: %s", path, tsr_report_error(report));
	} else {
		/* A short write leaves the stream's error flag set: closing reports it. */
		if (format == TSR_EXPORT_JSON)
			fputc('\n', cli_output_stream(out));
		ok = true;
	}
	status = cli_output_close(out, ok);
	if (!ok)
		status = CLI_EXIT_ERROR;
cleanup:
	tsr_report_free(report);
	return status;
}

/*
 * Streams the traces `paths` as Chrome trace-event JSON into `output`:
 * memory does not grow with the trace (tsr_trace_export_chrome). A write
 * that fails (TSR_ERR_IO) is reported by closing the output, which also
 * removes a half-written file.
 */
static int export_chrome(char **paths, size_t n, const char *from, const char *to,
                         tsr_trace_export_options *opts, const char *output)
{
	tsr_trace *trace = NULL;
	cli_output *out;
	int rc, status;

	if (cli_open_trace(&trace, (const char *const *)paths, n) != CLI_EXIT_OK)
		return CLI_EXIT_ERROR;
	/* The export holds only what the import kept: say what it did not. */
	cli_trace_print_skipped(trace);
	if (cli_trace_window("export", usage, trace, from, to, &opts->from_ns, &opts->to_ns)) {
		tsr_trace_free(trace);
		return CLI_EXIT_ERROR;
	}
	out = cli_output_open(output);
	if (!out) {
		tsr_trace_free(trace);
		return CLI_EXIT_ERROR;
	}
	cli_progress_begin("Exporting the trace");
	rc = tsr_trace_export_chrome(cli_output_stream(out), trace, opts);
	cli_progress_end();
	if (rc == TSR_ERR_IO) {
		status = cli_output_close(out, true);
		if (status == CLI_EXIT_OK)
			status = cli_error("%s: write failed", cli_output_name(output));
	} else if (rc != TSR_OK) {
		cli_trace_fail(trace);
		cli_output_close(out, false);
		status = CLI_EXIT_ERROR;
	} else {
		status = cli_output_close(out, true);
	}
	tsr_trace_free(trace);
	return status;
}

/* `tilescope export`: parses the options, checks that exactly one mode
 * is asked for and that the others' options are not, then exports
 * (cli.h). */
int cli_cmd_export(int argc, char **argv)
{
	tsr_trace_export_options topts = TSR_TRACE_EXPORT_OPTIONS_INIT;
	const char *output = NULL, *from = NULL, *to = NULL;
	int mode = 0, n_modes = 0, c;
	bool cbor = false, json = false, trace_opts = false;

	cli_getopt_reset();
	while ((c = getopt_long(argc, argv, ":ho:", options, NULL)) != -1) {
		switch (c) {
		case OPT_GRAPH:
		case OPT_EXECUTION:
		case OPT_CHROME:
			if (mode != c)
				n_modes++;
			mode = c;
			break;
		case OPT_JSON: json = true; break;
		case OPT_CBOR: cbor = true; break;
		case OPT_FROM: from = optarg; trace_opts = true; break;
		case OPT_TO: to = optarg; trace_opts = true; break;
		case OPT_NO_COUNTERS: topts.counters = false; trace_opts = true; break;
		case OPT_NO_INSTANTS: topts.instants = false; trace_opts = true; break;
		case OPT_NO_ARGS: topts.metadata = false; trace_opts = true; break;
		case 'o':
		case OPT_OUTPUT: output = optarg; break;
		case 'h': fputs(help, stdout); return CLI_EXIT_OK;
		default: return cli_option_error("export", usage, c, argv);
		}
	}
	if (n_modes != 1)
		return cli_usage_error("export", usage,
		                       n_modes ? "one of --graph-profile, --execution-profile and "
		                                 "--chrome-trace at a time"
		                               : "what to export? --graph-profile, --execution-profile "
		                                 "or --chrome-trace");
	if (json && cbor)
		return cli_usage_error("export", usage, "--json or --cbor, not both");
	if (optind == argc)
		return cli_usage_error("export", usage,
		                       mode == OPT_CHROME ? "no TRACE given" : "no REPORT given");
	if (mode == OPT_CHROME) {
		if (cbor)
			return cli_usage_error("export", usage,
			                       "--cbor is for profiles; a chrome trace is JSON");
		return export_chrome(argv + optind, (size_t)(argc - optind), from, to, &topts, output);
	}
	if (trace_opts)
		return cli_usage_error("export", usage,
		                       "--from, --to, --no-counters, --no-instants and --no-args are for "
		                       "--chrome-trace");
	if (argc - optind != 1)
		return cli_usage_error("export", usage, "one REPORT only");
	if (cbor && (!output || strcmp(output, "-") == 0) && isatty(STDOUT_FILENO))
		return cli_error("not writing CBOR (binary) to a terminal: use -o FILE or a pipe");
	return export_profile(argv[optind], mode == OPT_GRAPH, cbor ? TSR_EXPORT_CBOR : TSR_EXPORT_JSON,
	                      output);
}
