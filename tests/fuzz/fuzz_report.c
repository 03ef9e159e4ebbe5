/*
 * libFuzzer target: a profile.pop. The input is written to a file and
 * opened with tsr_report_open (memory capped), then every query reportlib
 * offers is called on it (tsr_fixture_query_all: memory, liveness,
 * programs, runs, steps, operations, the summary as text and JSON, both
 * exports in both formats), plus the summary figures, read-only SQL over
 * the per-tile functions, and tsr_compare of the report with itself (the
 * `diff` command's path). A refused file is an answer; a crash, leak,
 * sanitizer report, hang or allocation past the limits is a finding.
 */
#include "fuzz-util.h"
#include "report-fixture.h"

#include <stdlib.h>

#include <tilescope/compare.h>
#include <tilescope/report.h>
#include <tilescope/summary.h>

/* Statements a user of `tilescope sql` would run, over the tables and the
 * per-tile functions, that read every blob column the queries decode. */
static const char *const queries[] = {
	"SELECT name, type FROM sqlite_schema",
	("SELECT tile_sum(bytes_by_tile), tile_max(bytes_by_tile), tile_value(bytes_by_tile, 1) "
	 "FROM variable"),
	"SELECT v.id, t.tile, t.value FROM variable v, tile_runs(v.bytes_by_tile) t LIMIT 5000",
	"SELECT * FROM tile_memory LIMIT 2000",
	"SELECT * FROM step LIMIT 2000",
	"SELECT count(*) FROM program_child",
	"PRAGMA table_info(step)",
};

/* Reads every value of a result row (tsr_row_cb), summing its bytes. */
static int count_row(void *user_data, size_t n_columns, const char *const *names,
                     const tsr_value *values)
{
	size_t *sum = user_data;

	/* Touching every byte lets ASan check each value's stated size. */
	for (size_t i = 0; i < n_columns; i++)
		if (values[i].type == TSR_VALUE_TEXT || values[i].type == TSR_VALUE_BLOB)
			for (size_t k = 0; k < values[i].size; k++)
				*sum += ((const unsigned char *)values[i].data)[k];
	(void)names;
	return 0;
}

/* Summary figures, the live variables of the peak, and a comparison of
 * the report with itself, each only as far as the report allows. */
static void query_more(tsr_report *r)
{
	tsr_summary_options so = TSR_SUMMARY_OPTIONS_INIT;
	tsr_summary_figures *fig = NULL;
	tsr_comparison *cmp = NULL;
	size_t sum = 0;

	so.show_var_storage = so.show_execution_steps = so.show_per_ipu_memory = true;
	so.show_optimizations = true;
	so.colours = TSR_COLOURS_NEVER;
	if (tsr_summary_figures_new(&fig, r, &so) == TSR_OK && fig->has_peak) {
		tsr_summary_named_bytes *live = NULL;
		size_t n = 0;

		if (tsr_summary_figures_list_live_variables(&live, &n, fig, fig->peak_step) == TSR_OK)
			free(live);
	}
	tsr_summary_figures_free(fig);
	for (size_t i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
		(void)tsr_report_query(r, queries[i], NULL, count_row, &sum);
	if (tsr_compare(&cmp, r, r, -1, -1) == TSR_OK) {
		for (size_t i = 0; i < tsr_comparison_get_count(cmp); i++)
			(void)tsr_comparison_get_delta(cmp, i);
		(void)tsr_comparison_lookup_delta(cmp, "cycles");
	}
	tsr_comparison_free(cmp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tsr_open_options opts = TSR_OPEN_OPTIONS_INIT;
	tsr_report *r = NULL;
	const char *path = fuzz_write_file("profile.pop", data, size);

	if (!path)
		return 0;
	opts.memory_cap = FUZZ_MEMORY_CAP;
	if (tsr_report_open(&r, path, &opts) != TSR_OK)
		return 0;
	(void)tsr_fixture_query_all(r, 16, true);
	query_more(r);
	tsr_report_free(r);
	return 0;
}
