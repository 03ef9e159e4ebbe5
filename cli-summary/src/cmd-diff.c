/*
 * `tilescope diff BASE NEW`: compares two reports (reportlib's
 * compare.h), checks the limits the options and a limits file set
 * (limits.h) and prints the result in one of its formats
 * (diff-render.h). Exit 0 within the limits, 1 when one is exceeded, 2 on
 * an error.
 */
#include "cli.h"
#include "cli-options.h"
#include "diff-render.h"
#include "limits.h"

#include "tilescope/summary.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_FIRST_ = 255,
#define TS_OPT(id, long_name, short_name, kind, arg, choices, help) OPT_##id,
#include "cli-options-x.h"
#include "../options/diff.def"
};

static const cli_item items[] = {
#include "cli-options-items.h"
#include "../options/diff.def"
};

/* The limit options in the order they were given, applied after the
 * limits file so that they override it. */
typedef struct pending {
	const char *option, *value;
} pending;

/* Parses a run number option value into *out; false when it is not one. */
static bool parse_run(const char *s, int64_t *out)
{
	uint64_t v;

	if (!cli_parse_u64(s, &v) || v > INT64_MAX)
		return false;
	*out = (int64_t)v;
	return true;
}

/* The run a report's side of the comparison uses (-1: it keeps none), and
 * how many it keeps; an error when the asked run is not kept. */
static int resolve_run(tsr_report *r, const char *path, int64_t asked, int64_t *run,
                       size_t *n_runs)
{
	const tsr_run *runs;
	int rc = tsr_report_get_runs(&runs, n_runs, r);

	if (rc == TSR_ERR_NO_DATA || (rc == TSR_OK && *n_runs == 0)) {
		*n_runs = 0;
		*run = -1;
		if (asked >= 0)
			return cli_error("%s: run %lld asked for; the report keeps no runs", path,
			                 (long long)asked);
		return CLI_EXIT_OK;
	}
	if (rc != TSR_OK)
		return cli_error("%s: %s", path, tsr_report_error(r));
	if (asked >= 0 && (uint64_t)asked >= *n_runs)
		return cli_error("%s: run %lld asked for; the report keeps %zu run(s)", path,
		                 (long long)asked, *n_runs);
	*run = asked >= 0 ? asked : (int64_t)*n_runs - 1;
	return CLI_EXIT_OK;
}

/* `tilescope diff` (cli.h): parses the options (a bad limit value is a
 * usage error at once), reads the limits file and applies the options
 * over it, opens both reports, compares them, checks the limits and
 * renders; the exit code says whether a limit was exceeded. */
int cli_cmd_diff(int argc, char **argv)
{
	tsr_compare_limits *limits = NULL;
	pending *pend = calloc((size_t)argc + 1, sizeof(*pend));
	size_t n_pend = 0, n_checks = 0, failed = 0, top = 10;
	const char *limits_file = NULL, *output = NULL, *program = NULL;
	int64_t base_run = TSR_RUNS_BY_PROGRAM, new_run = TSR_RUNS_BY_PROGRAM;
	cli_diff_format format = CLI_DIFF_TEXT;
	tsr_colours colours = TSR_COLOURS_AUTO;
	bool all = false;
	tsr_report *base = NULL, *newr = NULL;
	tsr_comparison *cmp = NULL;
	tsr_limit_check *checks = NULL;
	cli_output *out = NULL;
	char err[1024];
	int c, status = CLI_EXIT_ERROR;
	cli_options o;
	char usage[256];

	if (!pend)
		return cli_error("out of memory");
	cli_options_usage(items, CLI_ITEMS_COUNT(items), usage, sizeof(usage));
	cli_options_init(&o, items, CLI_ITEMS_COUNT(items));
	while ((c = cli_options_next(&o, argc, argv)) != -1) {
		switch (c) {
		case OPT_MAX_MEMORY:
		case OPT_MAX_CYCLES:
		case OPT_MAX_TILE:
		case OPT_FAIL_OOM:
		case OPT_MAX_CATEGORY:
		case OPT_MAX_INCREASE: {
			tsr_compare_limits *probe = NULL;
			pend[n_pend] = (pending){cli_options_name(&o, c), optarg};
			/* Check the value now, so a bad one is a usage error. */
			int bad = tsr_compare_limits_new(&probe) ||
			          tsr_compare_limits_set_option(probe, pend[n_pend].option, optarg);
			snprintf(err, sizeof(err), "%s",
			         probe ? tsr_compare_limits_get_error(probe) : "out of memory");
			tsr_compare_limits_free(probe);
			if (bad) {
				free(pend);
				return cli_usage_error("diff", usage, "%s", err);
			}
			n_pend++;
			break;
		}
		case OPT_LIMITS: limits_file = optarg; break;
		case OPT_RUN:
		case OPT_BASE_RUN:
		case OPT_NEW_RUN: {
			int64_t run;
			if (!parse_run(optarg, &run)) {
				free(pend);
				return cli_usage_error("diff", usage,
				                       "--%s wants a run number (0, 1, ...), not '%s'",
				                       c == OPT_RUN ? "run" : c == OPT_BASE_RUN ? "base-run"
				                                                              : "new-run",
				                       optarg);
			}
			if (c != OPT_NEW_RUN)
				base_run = run;
			if (c != OPT_BASE_RUN)
				new_run = run;
			break;
		}
		case OPT_PROGRAM:
			if (!*optarg) {
				free(pend);
				return cli_usage_error("diff", usage, "--program wants a program name");
			}
			program = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "text") == 0)
				format = CLI_DIFF_TEXT;
			else if (strcmp(optarg, "json") == 0)
				format = CLI_DIFF_JSON;
			else if (strcmp(optarg, "markdown") == 0)
				format = CLI_DIFF_MARKDOWN;
			else if (strcmp(optarg, "junit") == 0)
				format = CLI_DIFF_JUNIT;
			else if (strcmp(optarg, "html") == 0)
				format = CLI_DIFF_HTML;
			else if (strcmp(optarg, "openmetrics") == 0)
				format = CLI_DIFF_OPENMETRICS;
			else {
				free(pend);
				return cli_usage_error("diff", usage,
				                       "--format wants text, json, markdown, junit, html or "
				                       "openmetrics, not '%s'",
				                       optarg);
			}
			break;
		case OPT_TOP: {
			uint64_t v;
			if (!cli_parse_u64(optarg, &v) || v > 1000000000) {
				free(pend);
				return cli_usage_error("diff", usage, "--top wants a count (0: all), not '%s'",
				                       optarg);
			}
			top = (size_t)v;
			break;
		}
		case OPT_ALL: all = true; break;
		case OPT_COLOURS:
			if (!cli_parse_colours(optarg, &colours)) {
				free(pend);
				return cli_usage_error("diff", usage,
				                       "--colours wants auto, always or never, not '%s'", optarg);
			}
			break;
		case OPT_OUTPUT: output = optarg; break;
		case OPT_HELP:
			free(pend);
			cli_options_print_help(items, CLI_ITEMS_COUNT(items), stdout);
			return CLI_EXIT_OK;
		default:
			free(pend);
			return cli_option_error("diff", usage, c, argv);
		}
	}
	if (argc - optind != 2) {
		free(pend);
		return cli_usage_error("diff", usage,
		                       argc - optind < 2 ? "BASE and NEW reports needed"
		                                         : "two reports only: BASE and NEW");
	}
	/* The file first, then the options over it. */
	if (tsr_compare_limits_new(&limits)) {
		cli_error("out of memory");
		goto cleanup;
	}
	if (limits_file && cli_limits_load(limits, limits_file, err, sizeof(err))) {
		cli_error("%s", err);
		goto cleanup;
	}
	for (size_t i = 0; i < n_pend; i++)
		if (tsr_compare_limits_set_option(limits, pend[i].option, pend[i].value)) {
			cli_error("%s", tsr_compare_limits_get_error(limits));
			goto cleanup;
		}

	if (cli_open_report(&base, argv[optind]) || cli_open_report(&newr, argv[optind + 1]))
		goto cleanup;
	cli_diff d = {.base_path = argv[optind], .new_path = argv[optind + 1], .base_run = -1,
	              .new_run = -1, .all = all, .top = top, .base_report = base, .new_report = newr};
	tsr_compare_options copts = TSR_COMPARE_OPTIONS_INIT;
	bool by_program = base_run == TSR_RUNS_BY_PROGRAM && new_run == TSR_RUNS_BY_PROGRAM;
	/* A run given for one side only: the other side's last, as before. */
	if (!by_program) {
		base_run = base_run == TSR_RUNS_BY_PROGRAM ? -1 : base_run;
		new_run = new_run == TSR_RUNS_BY_PROGRAM ? -1 : new_run;
	}
	/* Positional runs are checked here, so the message names the file. */
	if (!program &&
	    (resolve_run(base, argv[optind], by_program ? -1 : base_run, &d.base_run, &d.base_runs) ||
	     resolve_run(newr, argv[optind + 1], by_program ? -1 : new_run, &d.new_run,
	                 &d.new_runs)))
		goto cleanup;
	copts.program = program;
	copts.base_run = by_program ? TSR_RUNS_BY_PROGRAM : base_run;
	copts.new_run = by_program ? TSR_RUNS_BY_PROGRAM : new_run;
	cli_progress_begin("Comparing the reports");
	int rc = tsr_compare_programs(&cmp, base, newr, &copts);
	cli_progress_end();
	if (rc != TSR_OK) {
		/* The failure is recorded on the handle whose file is at fault. */
		const char *be = tsr_report_error(base), *ne = tsr_report_error(newr);
		if (*ne)
			cli_error("%s: %s", argv[optind + 1], ne);
		else if (*be)
			cli_error("%s: %s", argv[optind], be);
		else
			cli_error("comparing the reports failed: %s", tsr_error_name(rc));
		goto cleanup;
	}
	if (tsr_compare_limits_list_checks(&checks, &n_checks, limits, cmp)) {
		cli_error("%s", tsr_compare_limits_get_error(limits));
		goto cleanup;
	}
	for (size_t i = 0; i < n_checks; i++)
		failed += !checks[i].passed;
	d.cmp = cmp;
	/* Runs matched by program unless the comparison fell back to the
	 * last runs (no program with runs in both: the names differ). */
	{
		const tsr_compared_program *cp = tsr_comparison_get_program(cmp, 0);
		d.by_program = by_program && cp && cp->base_name && cp->new_name &&
		               strcmp(cp->base_name, cp->new_name) == 0;
		d.fell_back = by_program && !program && !d.by_program && cp;
	}
	d.program = program;
	if (program && !by_program) {
		d.base_run = base_run;
		d.new_run = new_run;
	}
	d.checks = checks;
	d.n_checks = n_checks;
	d.failed = failed;

	out = cli_output_open(output);
	if (!out)
		goto cleanup;
	d.colours = format == CLI_DIFF_TEXT && tsr_colours_enabled(colours, cli_output_stream(out));
	if (cli_diff_render(cli_output_stream(out), &d, format) != 0) {
		/* A failed write is reported by closing (which names the file and
		 * removes the half-written one); anything else ran out of memory. */
		bool write_failed = ferror(cli_output_stream(out)) != 0;
		cli_output_close(out, write_failed);
		out = NULL;
		if (!write_failed)
			cli_error("%s: out of memory", output ? output : "standard output");
		status = CLI_EXIT_ERROR;
		goto cleanup;
	}
	status = cli_output_close(out, true);
	out = NULL;
	if (status == CLI_EXIT_OK && failed) {
		cli_diff_print_regressions(stderr, &d);
		status = CLI_EXIT_REGRESSION;
	}
cleanup:
	if (out)
		cli_output_close(out, false);
	free(checks);
	tsr_comparison_free(cmp);
	tsr_report_free(base);
	tsr_report_free(newr);
	tsr_compare_limits_free(limits);
	free(pend);
	return status;
}
