/*
 * The benchmarks' synthetic trace (bench-trace.h).
 */
#include "bench-trace.h"

#include <tilescope/pvti.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct writer {
	long steps;
	int index;
	bool checkpoints;
	pvti_series *series; /* NULL: no counter */
} writer;

/* One thread's steps. */
static void write_steps(const writer *w)
{
	pvti_channel *fw = pvti_channel_framework();

	for (long i = 0; i < w->steps; i++) {
		if (w->checkpoints && i % 10000 == 5000) {
			pvti_begin(fw, "checkpoint");
			pvti_end(fw);
		}
		pvti_begin(fw, "step");
		if (w->series)
			pvti_series_add(w->series, (double)((i * 37 + w->index * 11) % 100));
		if (w->series && i % 1000 == 0)
			pvti_instant(fw, "checkpoint");
		for (int j = 0; j < 9; j++) {
			pvti_begin(fw, "op");
			if (j % 3 == 1) {
				pvti_begin(fw, "kernel");
				pvti_end(fw);
				j++;
			}
			pvti_end(fw);
		}
		pvti_end(fw);
	}
}

static void *worker_cb(void *data)
{
	const writer *w = data;
	char name[32];

	snprintf(name, sizeof(name), "worker %d", w->index);
	pvti_thread_set_name(name);
	write_steps(w);
	return NULL;
}

char *bench_write_trace(const char *dir, const bench_trace_options *opts)
{
	pvti_options po = PVTI_OPTIONS_INIT;
	pthread_t tids[256];
	writer ws[256];
	int threads = opts->threads;
	char *path;

	po.directory = dir;
	if (threads < 0 || threads > 256 || pvti_open(&po) != 0)
		return NULL;
	path = pvti_dup_file_name();
	for (int t = 0; t < (threads ? threads : 1); t++) {
		ws[t].steps = opts->spans / (threads ? threads : 1) / 10;
		ws[t].index = t;
		ws[t].checkpoints = opts->checkpoints;
		ws[t].series = NULL;
		if (t < opts->counter_threads) {
			char name[32];

			snprintf(name, sizeof(name), "worker %d", t);
			ws[t].series = pvti_graph_add_series(pvti_graph_new("Load", "%"), name);
		}
	}
	if (!threads) {
		pvti_thread_set_name("main");
		write_steps(&ws[0]);
	}
	for (int t = 0; t < threads; t++)
		pthread_create(&tids[t], NULL, worker_cb, &ws[t]);
	for (int t = 0; t < threads; t++)
		pthread_join(tids[t], NULL);
	if (pvti_close() != 0) {
		free(path);
		return NULL;
	}
	return path;
}
