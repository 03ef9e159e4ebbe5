/*
 * `tilescope summary REPORT`: the printProfileSummary layout of the Poplar
 * user guide (reportlib's summary.h), or the same figures as JSON, or as
 * one HTML page (summary-html.c).
 */
#include "cli.h"
#include "cli-options.h"
#include "summary-html.h"

#include "tilescope/summary.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_FIRST_ = 255,
#define TS_OPT(id, long_name, short_name, kind, arg, choices, help) OPT_##id,
#include "cli-options-x.h"
#include "../options/summary.def"
};

static const cli_item items[] = {
#include "cli-options-items.h"
#include "../options/summary.def"
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
	enum { FORMAT_TEXT, FORMAT_JSON, FORMAT_HTML } format = FORMAT_TEXT;
	tsr_report *report = NULL;
	cli_output *out = NULL;
	char *text = NULL;
	int c, rc, status = CLI_EXIT_ERROR;
	cli_options o;
	char usage[256];

	cli_options_usage(items, CLI_ITEMS_COUNT(items), usage, sizeof(usage));
	cli_options_init(&o, items, CLI_ITEMS_COUNT(items));
	while ((c = cli_options_next(&o, argc, argv)) != -1) {
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
		case OPT_JSON: format = FORMAT_JSON; break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") == 0)
				format = FORMAT_TEXT;
			else if (strcmp(optarg, "json") == 0)
				format = FORMAT_JSON;
			else if (strcmp(optarg, "html") == 0)
				format = FORMAT_HTML;
			else
				return cli_usage_error("summary", usage,
				                       "--format wants text, json or html, not '%s'",
				                       optarg);
			break;
		case OPT_OUTPUT: output = optarg; break;
		case OPT_HELP:
			cli_options_print_help(items, CLI_ITEMS_COUNT(items), stdout);
			return CLI_EXIT_OK;
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
	if (format == FORMAT_TEXT && opts.colours == TSR_COLOURS_AUTO &&
	    !tsr_colours_enabled(TSR_COLOURS_AUTO, cli_output_stream(out)))
		opts.colours = TSR_COLOURS_NEVER;

	cli_progress_begin(format == FORMAT_HTML ? "Writing the summary page"
	                                         : "Summarising the report");
	if (format == FORMAT_JSON) {
		rc = tsr_summary_dup_json(&text, report, &opts);
		if (rc == TSR_OK && fputs(text, cli_output_stream(out)) < 0)
			rc = TSR_ERR_IO;
		if (rc == TSR_OK && fputc('\n', cli_output_stream(out)) == EOF)
			rc = TSR_ERR_IO;
	} else if (format == FORMAT_HTML) {
		rc = tsr_summary_dup_json(&text, report, &opts);
		if (rc == TSR_OK)
			rc = cli_summary_write_html(cli_output_stream(out), report, text, argv[optind]);
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
		cli_error("%s: %s", argv[optind],
		          rc == TSR_ERR_NO_MEMORY && !*tsr_report_error(report)
		              ? "out of memory" : tsr_report_error(report));
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
