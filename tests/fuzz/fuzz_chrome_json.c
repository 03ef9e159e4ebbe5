/*
 * libFuzzer target: a Chrome trace-event JSON file (reportlib's streaming
 * import, trace-chrome.c). The input is written to a .json file and
 * opened with tsr_trace_open (memory capped); what opens is queried the
 * way the System Analyser and `tilescope trace` do: events of the first
 * threads at three resolutions with their metadata, label statistics
 * with medians (whole trace and a window), totals, counters, instants,
 * search and the export back to JSON.
 */
#include "fuzz-util.h"

#include <stdio.h>
#include <stdlib.h>

#include <tilescope/trace.h>

/* Threads and series walked per input at most. */
#define LIMIT 4

static void query(tsr_trace *t)
{
	static const uint64_t resolutions[] = {0, 1000, UINT64_MAX / 4};
	const tsr_trace_info *info = tsr_trace_get_info(t);
	const tsr_trace_thread *threads;
	const tsr_trace_series *series;
	size_t n_threads = 0, n_series = 0, n;

	if (tsr_trace_get_threads(&threads, &n_threads, t) == TSR_OK)
		for (size_t i = 0; i < n_threads && i < LIMIT; i++)
			for (size_t r = 0; r < 3; r++) {
				tsr_trace_item *items = NULL;

				if (tsr_trace_list_events(&items, &n, t, i, info->start_ns, info->end_ns + 1,
				                          resolutions[r]) != TSR_OK)
					continue;
				for (size_t k = 0; k < n && k < LIMIT; k++) {
					char *json = NULL;

					if (items[k].kind == TSR_TRACE_ITEM_EVENT &&
					    tsr_trace_dup_event_metadata(&json, t, i, items[k].seq) == TSR_OK)
						free(json);
				}
				free(items);
			}

	tsr_trace_stats_options so = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_label_stat *stats = NULL;

	if (tsr_trace_list_label_stats(&stats, &n, t, &so) == TSR_OK)
		free(stats);
	so.median = false;
	if (tsr_trace_list_label_stats(&stats, &n, t, &so) == TSR_OK)
		free(stats);
	so.median = true;
	so.from_ns = info->start_ns + (info->end_ns - info->start_ns) / 3;
	so.to_ns = so.from_ns + (info->end_ns - info->start_ns) / 3;
	if (tsr_trace_list_label_stats(&stats, &n, t, &so) == TSR_OK)
		free(stats);

	tsr_trace_totals_options to = TSR_TRACE_TOTALS_OPTIONS_INIT;
	tsr_trace_totals *totals = NULL;

	if (tsr_trace_totals_new(&totals, t, &to) == TSR_OK)
		tsr_trace_totals_free(totals);
	if (tsr_trace_get_series(&series, &n_series, t) == TSR_OK)
		for (size_t s = 0; s < n_series && s < LIMIT; s++) {
			tsr_trace_counter_bucket *b = NULL;
			double before;

			if (tsr_trace_list_counter_buckets(&b, &n, &before, t, s, info->start_ns,
			                                   info->end_ns + 1, 1000) == TSR_OK)
				free(b);
		}

	tsr_trace_instant *inst = NULL;

	if (tsr_trace_list_instants(&inst, &n, t, -1, INT64_MIN, INT64_MAX, 100) == TSR_OK)
		free(inst);

	tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;
	tsr_trace_found *found = NULL;
	uint64_t total;

	q.pattern = "a";
	if (tsr_trace_search(&found, &n, &total, t, &q) == TSR_OK)
		free(found);

	FILE *null = fopen("/dev/null", "w");

	if (null) {
		(void)tsr_trace_export_chrome(null, t, NULL);
		fclose(null);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tsr_trace_open_options opts = TSR_TRACE_OPEN_OPTIONS_INIT;
	tsr_trace *t = NULL;
	const char *path = fuzz_write_file("fuzz.json", data, size);

	if (!path)
		return 0;
	opts.memory_cap = FUZZ_MEMORY_CAP;
	if (tsr_trace_open(&t, &path, 1, &opts) != TSR_OK)
		return 0;
	query(t);
	tsr_trace_free(t);
	return 0;
}
