/*
 * Writes the seed files make-corpus.sh starts from, into the directory
 * given as the only argument: matmul/ and oom/ (profile.pop and
 * debug.cbor of the two small models of reportlib's tests: two IPUs of
 * 16 tiles with three runs, and one IPU of 4 tiles out of memory) and
 * trace.pvti (a short trace with nested spans, instants, a counter
 * series, span and trace metadata, a user channel and two threads), and
 * engine-options.tsv (the engine option table: name, type, default and
 * accepted values, one option a line) for the option seeds and dictionary.
 */
#include "report-fixture.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tilescope/engine.h>
#include <tilescope/pvti.h>

/* Copies `src` to `dst`; exits on failure (a generator, not a library). */
static void copy_file(const char *src, const char *dst)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	char buf[65536];
	size_t n;

	if (!in || !out) {
		fprintf(stderr, "make-seeds: cannot copy %s to %s\n", src, dst);
		exit(1);
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			exit(1);
	fclose(in);
	if (fclose(out))
		exit(1);
}

/* One model's report into out/name/. */
static void write_report(const char *out, const char *name, tsr_fixture_model model)
{
	tsr_fixture f;
	char dir[1024], src[1200], dst[1200];

	memset(&f, 0, sizeof(f));
	tsr_fixture_setup(&f, model);
	snprintf(dir, sizeof(dir), "%s/%s", out, name);
	if (mkdir(dir, 0755) && errno != EEXIST)
		exit(1);
	for (int i = 0; i < 2; i++) {
		const char *file = i ? "debug.cbor" : "profile.pop";

		snprintf(src, sizeof(src), "%s/%s", f.report_dir, file);
		snprintf(dst, sizeof(dst), "%s/%s", dir, file);
		copy_file(src, dst);
	}
	tsr_fixture_teardown(&f);
}

/* A second thread's spans and instants. */
static void *worker(void *arg)
{
	pvti_channel *user = arg;

	pvti_thread_set_name("worker");
	for (int i = 0; i < 5; i++) {
		pvti_begin(user, "step");
		pvti_instant(user, "tick");
		pvti_end(user);
	}
	return NULL;
}

/* The trace into out/trace.pvti. */
static void write_trace(const char *out)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *fw = pvti_channel_framework();
	pvti_channel *user = pvti_channel_new("user");
	pvti_graph *graph = pvti_graph_new("loss", "");
	pvti_series *series = graph ? pvti_graph_add_series(graph, "train") : NULL;
	char *path, dst[1200];
	pthread_t t;

	opts.directory = out;
	if (!user || !series || pvti_open(&opts) != 0)
		exit(1);
	path = pvti_dup_file_name();
	pvti_thread_set_name("main");
	pvti_trace_metadata("model", "{\"name\":\"seed\",\"layers\":[1,2]}");
	for (int i = 0; i < 6; i++) {
		pvti_begin(fw, "epoch");
		pvti_event_metadata("{\"epoch\":1}");
		for (int j = 0; j < 3; j++) {
			pvti_begin(pvti_channel_poplar(), j == 1 ? "needle" : "inner");
			pvti_end(pvti_channel_poplar());
		}
		pvti_series_add(series, 1.0 / (i + 1));
		pvti_instant(fw, "mark");
		pvti_end(fw);
	}
	if (pthread_create(&t, NULL, worker, user) || pthread_join(t, NULL))
		exit(1);
	if (pvti_close() != 0 || !path)
		exit(1);
	snprintf(dst, sizeof(dst), "%s/trace.pvti", out);
	copy_file(path, dst);
	remove(path);
	free(path);
}

/* The engine option table into out/engine-options.tsv. */
static void write_option_table(const char *out)
{
	char path[1200];
	const tsi_option_info *o;
	FILE *f;

	snprintf(path, sizeof(path), "%s/engine-options.tsv", out);
	f = fopen(path, "w");
	if (!f)
		exit(1);
	for (size_t i = 0; (o = tsi_engine_option_info(i)); i++)
		fprintf(f, "%s\t%s\t%s\t%s\n", o->name, o->type, o->default_value, o->accepted);
	if (fclose(f))
		exit(1);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz-make-seeds OUT-DIR\n");
		return 2;
	}
	write_report(argv[1], "matmul", TSR_FIXTURE_MATMUL);
	write_report(argv[1], "oom", TSR_FIXTURE_OOM);
	write_trace(argv[1]);
	write_option_table(argv[1]);
	return 0;
}
