/*
 * Every query of an open trace (fuzz-trace-query.h), shared by the .pvti
 * and the Chrome JSON targets: the two formats open into the same
 * tsr_trace, so a file of either must survive the same questions.
 */
#include "fuzz-trace-query.h"
#include "fuzz-util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* At most this many threads, series and events are walked per input so
 * that one input stays fast whatever the file claims. */
#define LIMIT 8

/* Events of one thread over the whole trace at a resolution, and the
 * metadata of the first events found. */
static void query_thread(tsr_trace *t, size_t thread, const tsr_trace_info *info)
{
	static const uint64_t resolutions[] = {0, 1000, UINT64_MAX / 4};

	for (size_t r = 0; r < sizeof(resolutions) / sizeof(resolutions[0]); r++) {
		tsr_trace_item *items = NULL;
		size_t n = 0;

		if (tsr_trace_list_events(&items, &n, t, thread, info->start_ns, info->end_ns,
		                          resolutions[r]) != TSR_OK)
			continue;
		for (size_t i = 0; i < n && i < LIMIT; i++) {
			char *json = NULL;

			(void)tsr_trace_get_name(t, items[i].name);
			if (items[i].kind == TSR_TRACE_ITEM_EVENT &&
			    tsr_trace_dup_event_metadata(&json, t, thread, items[i].seq) == TSR_OK)
				free(json);
		}
		free(items);
	}
	tsr_trace_item *items = NULL;
	size_t n = 0;

	/* A window that starts before time 0 and ends past the end. */
	if (tsr_trace_list_events(&items, &n, t, thread, INT64_MIN, INT64_MAX, 1) == TSR_OK)
		free(items);
}

/* Statistics, totals, counters, instants, search and export. */
void fuzz_trace_query(tsr_trace *t)
{
	const tsr_trace_info *info = tsr_trace_get_info(t);
	const tsr_trace_process *procs;
	const tsr_trace_thread *threads;
	const tsr_trace_channel *channels;
	const tsr_trace_series *series;
	size_t n_procs = 0, n_threads = 0, n_channels = 0, n_series = 0, n;

	if (!info)
		return;
	if (tsr_trace_get_processes(&procs, &n_procs, t) == TSR_OK)
		for (size_t p = 0; p < n_procs; p++) {
			(void)tsr_trace_lookup_metadata(t, p, "poplar");
			for (size_t k = 0; k < procs[p].n_metadata && k < LIMIT; k++)
				(void)tsr_trace_lookup_metadata(t, p, procs[p].metadata_keys[k]);
		}
	{
		tsr_trace_skip *skips = NULL;
		size_t n_skips = 0;

		if (tsr_trace_list_skipped(&skips, &n_skips, t) == TSR_OK)
			for (size_t i = 0; i < n_skips; i++)
				if (skips[i].process >= n_procs || !skips[i].message[0])
					abort();
		free(skips);
	}
	(void)tsr_trace_get_channels(&channels, &n_channels, t);
	for (uint32_t id = 0; id < info->names && id < LIMIT; id++)
		(void)tsr_trace_get_name(t, id);
	(void)tsr_trace_get_name(t, TSR_TRACE_NO_NAME);
	if (tsr_trace_get_threads(&threads, &n_threads, t) == TSR_OK)
		for (size_t i = 0; i < n_threads && i < LIMIT; i++)
			query_thread(t, i, info);

	tsr_trace_stats_options so = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_label_stat *stats = NULL;

	if (tsr_trace_list_label_stats(&stats, &n, t, &so) == TSR_OK)
		free(stats);
	so.median = false;
	stats = NULL;
	if (tsr_trace_list_label_stats(&stats, &n, t, &so) == TSR_OK)
		free(stats);
	/* The middle third, as the System Analyser's window statistics. */
	so.median = true;
	so.from_ns = info->start_ns + (info->end_ns - info->start_ns) / 3;
	so.to_ns = so.from_ns + (info->end_ns - info->start_ns) / 3;
	stats = NULL;
	if (tsr_trace_list_label_stats(&stats, &n, t, &so) == TSR_OK)
		free(stats);
	so.thread = 0;
	so.max_durations = 3;
	so.from_ns = info->start_ns;
	so.to_ns = INT64_MAX;
	stats = NULL;
	if (tsr_trace_list_label_stats(&stats, &n, t, &so) == TSR_OK)
		free(stats);

	tsr_trace_totals_options to = TSR_TRACE_TOTALS_OPTIONS_INIT;
	tsr_trace_totals *totals = NULL;

	if (tsr_trace_totals_new(&totals, t, &to) == TSR_OK)
		tsr_trace_totals_free(totals);

	tsr_trace_call_tree_options co = TSR_TRACE_CALL_TREE_OPTIONS_INIT;
	tsr_trace_call_tree *tree = NULL;

	if (tsr_trace_call_tree_new(&tree, t, &co) == TSR_OK)
		tsr_trace_call_tree_free(tree);
	co.thread = 0;
	co.from_ns = info->start_ns;
	co.span = 0;
	tree = NULL;
	if (tsr_trace_call_tree_new(&tree, t, &co) == TSR_OK)
		tsr_trace_call_tree_free(tree);

	if (tsr_trace_get_series(&series, &n_series, t) == TSR_OK)
		for (size_t s = 0; s < n_series && s < LIMIT; s++) {
			tsr_trace_counter_bucket *b = NULL;
			double before;

			if (tsr_trace_list_counter_buckets(&b, &n, &before, t, s, info->start_ns,
			                                   info->end_ns + 1, 1000) == TSR_OK)
				free(b);
		}

	const tsr_trace_heatmap *heatmaps;
	size_t n_heatmaps = 0;

	if (tsr_trace_get_heatmaps(&heatmaps, &n_heatmaps, t) == TSR_OK)
		for (size_t h = 0; h < n_heatmaps && h < LIMIT; h++) {
			uint64_t *counts = NULL;

			if (tsr_trace_list_heatmap_counts(&counts, t, h, info->start_ns, info->end_ns + 1,
			                                  100) == TSR_OK)
				free(counts);
		}

	tsr_trace_instant *inst = NULL;

	if (tsr_trace_list_instants(&inst, &n, t, -1, INT64_MIN, INT64_MAX, 1000) == TSR_OK)
		free(inst);

	uint32_t *ids = NULL;

	if (tsr_trace_list_matching_names(&ids, &n, t, "a.*b", TSR_TRACE_MATCH_REGEX_ICASE) == TSR_OK)
		free(ids);

	tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;
	tsr_trace_found *found = NULL;
	uint64_t total;

	q.pattern = "e";
	if (tsr_trace_search(&found, &n, &total, t, &q) == TSR_OK)
		free(found);

	tsr_trace_export_options eo = TSR_TRACE_EXPORT_OPTIONS_INIT;
	FILE *null = fopen("/dev/null", "w");

	if (null) {
		(void)tsr_trace_export_chrome(null, t, &eo);
		fclose(null);
	}
	(void)tsr_trace_query(t, 0, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
}

void fuzz_trace_run(const char *file_name, const uint8_t *data, size_t size)
{
	tsr_trace_open_options opts = TSR_TRACE_OPEN_OPTIONS_INIT;
	tsr_trace *t = NULL;
	const char *path = fuzz_write_file(file_name, data, size);

	if (!path)
		return;
	opts.memory_cap = FUZZ_MEMORY_CAP;
	if (tsr_trace_open(&t, &path, 1, &opts) != TSR_OK)
		return;
	fuzz_trace_query(t);
	tsr_trace_free(t);
}
