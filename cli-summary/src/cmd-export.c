/*
 * `tilescope export`: a report's graph or execution profile in the shape
 * of the Poplar user guide's profiling chapter (JSON or CBOR, reportlib's
 * export.h), or traces as Chrome trace-event JSON (trace.h) for Perfetto
 * and chrome://tracing.
 */
#include "cli.h"
#include "cli-options.h"

#include "tilescope/export.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	OPT_FIRST_ = 255,
#define TS_OPT(id, long_name, short_name, kind, arg, choices, help) OPT_##id,
#include "cli-options-x.h"
#include "../options/export.def"
};

/* The usage lines, for the errors; made from items by cli_cmd_export. */
static char usage[512];

static const cli_item items[] = {
#include "cli-options-items.h"
#include "../options/export.def"
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
	cli_options o;

	cli_options_usage(items, CLI_ITEMS_COUNT(items), usage, sizeof(usage));
	cli_options_init(&o, items, CLI_ITEMS_COUNT(items));
	while ((c = cli_options_next(&o, argc, argv)) != -1) {
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
		case OPT_OUTPUT: output = optarg; break;
		case OPT_HELP:
			cli_options_print_help(items, CLI_ITEMS_COUNT(items), stdout);
			return CLI_EXIT_OK;
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
