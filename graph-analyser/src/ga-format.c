/*
 * The summary's number formats for the views (ga-format.h). The rules
 * are summary-text.c's, written again here because reportlib keeps its
 * formatters private; tests/gui/check-summary.py compares the results
 * with `tilescope summary --json`.
 */
#include "ga-format.h"

#include <tilescope/tsd-name.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

char *ga_format_u64(uint64_t v)
{
	char tmp[32], buf[40];
	int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), o = 0;

	for (int i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return g_strdup(buf);
}

char *ga_format_1dp(double v)
{
	g_autofree char *whole = NULL;
	uint64_t tenths;

	if (!isfinite(v) || v < 0 || v >= 1e18)
		return g_strdup("n/a");
	tenths = (uint64_t)llround(v * 10.0);
	whole = ga_format_u64(tenths / 10);
	return g_strdup_printf("%s.%u", whole, (unsigned)(tenths % 10));
}

char *ga_format_pct(double fraction)
{
	g_autofree char *num = NULL;

	if (!isfinite(fraction))
		return g_strdup("n/a");
	num = ga_format_1dp(fraction * 100.0);
	return g_strdup_printf("%s%%", num);
}

char *ga_format_size(uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	g_autofree char *num = NULL;
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024.0 && u + 1 < G_N_ELEMENTS(units)) {
		v /= 1024.0;
		u++;
	}
	num = ga_format_1dp(v);
	return g_strdup_printf("%s %s", num, units[u]);
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
