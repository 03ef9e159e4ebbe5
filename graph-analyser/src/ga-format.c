/*
 * The summary's number formats for the views (ga-format.h): the rules of
 * libtilescope-base (tilescope/numfmt.h) that reportlib's text summary
 * prints with, so the two cannot drift; tests/gui/check-summary.py
 * compares the results with `tilescope summary --json`.
 */
#include "ga-format.h"

#include <tilescope/numfmt.h>
#include <tilescope/tsd-name.h>

char *ga_format_u64(uint64_t v)
{
	return ga_format_u64_with(v, "");
}

char *ga_format_u64_with(uint64_t v, const char *suffix)
{
	char buf[TSB_NUMBER_MAX];

	return g_strconcat(tsb_format_u64(buf, sizeof(buf), v), suffix, NULL);
}

char *ga_format_1dp(double v)
{
	char buf[TSB_NUMBER_MAX];

	return g_strdup(tsb_format_tenths(buf, sizeof(buf), v));
}

char *ga_format_pct(double fraction)
{
	return ga_format_pct_with(fraction, "");
}

char *ga_format_pct_with(double fraction, const char *suffix)
{
	char buf[TSB_NUMBER_MAX];

	return g_strconcat(tsb_format_percent(buf, sizeof(buf), fraction), suffix, NULL);
}

char *ga_format_size(uint64_t bytes)
{
	char buf[TSB_NUMBER_MAX];

	return g_strdup(tsb_format_size(buf, sizeof(buf), bytes));
}

char *ga_format_name(const char *name)
{
	return tsd_name_cut(name);
}

char *ga_format_run_name(tsr_report *report, size_t run)
{
	const tsr_run *runs;
	size_t n;
	const char *name;

	if (!report || tsr_report_get_runs(&runs, &n, report) || run >= n)
		return NULL;
	name = tsr_report_lookup_engine_program_name(report, runs[run].program);
	return name ? tsd_name_cut_to(name, GA_RUN_NAME_CHARS) : NULL;
}

char *ga_format_run_label(tsr_report *report, size_t run)
{
	g_autofree char *name = ga_format_run_name(report, run);

	return name ? g_strdup_printf("Run %zu: %s", run, name) : g_strdup_printf("Run %zu", run);
}
