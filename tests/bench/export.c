/*
 * Benchmark of the profile export (`tilescope export --graph-profile
 * --json`): the JSON a graph profile becomes is mostly numbers (one per
 * tile in every per-tile array, a million in tutorial 5's), written
 * through base's JSON writer (tilescope/json-writer.h) by the format
 * library's emitter. Two parts, each the median of RUNS runs:
 *
 *   1. the writer alone, on a synthetic document of that shape (objects
 *      of keys, short names, arrays of per-tile numbers), into a buffer
 *      and through a sink as the emitter uses it: ns per number, MB/s;
 *   2. each report given (an autoReport directory or a profile.pop):
 *      open, export the graph profile to /dev/null, free, as the command
 *      does; JSON, and CBOR (which does not use the writer) beside it.
 *
 * Prints one line per figure, NAME VALUE UNIT, and '#' lines of context.
 * A benchmark reports; it never fails on a timing (it fails only when an
 * export fails).
 *
 * Usage: bench-export [REPORT...]
 */
#define _GNU_SOURCE 1

#include "bench-util.h"

#include <tilescope/export.h>
#include <tilescope/json-writer.h>
#include <tilescope/report.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS 9
#define TILES 1472
#define ARRAYS 700 /* per-tile arrays in the synthetic document: ~1 M numbers */

/* What the sink is given, kept as the emitter keeps it (one growing
 * buffer), so that the copy it costs is in the figure. */
typedef struct sink_buf {
	char *p;
	size_t len, cap;
} sink_buf;

static int sink_append(void *user_data, const char *bytes, size_t n)
{
	sink_buf *b = user_data;

	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap - b->len < n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, bytes, n);
	b->len += n;
	return 0;
}

/* The synthetic document: per compute set an object with its name, a few
 * counts and the per-tile cycles. Returns the bytes written, 0 on
 * failure. */
static size_t write_document(tsb_json *j)
{
	char name[64];
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	tsb_json_begin_object(j);
	tsb_json_key(j, "computeSets");
	tsb_json_begin_array(j);
	for (unsigned c = 0; c < ARRAYS; c++) {
		snprintf(name, sizeof(name), "layer%u/MatMul/Conv_%u/Convolve", c / 7, c);
		tsb_json_begin_object(j);
		tsb_json_key(j, "name");
		tsb_json_string(j, name);
		tsb_json_key(j, "vertexType");
		tsb_json_string(j, "poplin::ConvPartial1x1Out<float,float,true,false>");
		tsb_json_key(j, "id");
		tsb_json_u64(j, c);
		tsb_json_key(j, "cyclesByTile");
		tsb_json_begin_array(j);
		for (unsigned t = 0; t < TILES; t++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* Mostly small counts, some zeros, as real arrays are. */
			tsb_json_u64(j, (x & 7) == 0 ? 0 : x % 5000);
		}
		tsb_json_end_array(j);
		tsb_json_end_object(j);
	}
	tsb_json_end_array(j);
	tsb_json_end_object(j);
	return tsb_json_finish(j) == TSB_JSON_OK ? 1 : 0;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), bench_compare_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Part 1: the writer on the synthetic document. Returns 0 or 1. */
static int bench_writer(void)
{
	double buf_ms[RUNS], sink_ms[RUNS];
	size_t bytes = 0;
	const double numbers = (double)ARRAYS * (TILES + 1);

	for (int r = 0; r < RUNS; r++) {
		tsb_json *j = tsb_json_new_buffer(TSB_JSON_SHORT_NEWLINE_TAB);
		sink_buf sb = {0};
		tsb_json *s = tsb_json_new_sink(sink_append, &sb, TSB_JSON_SHORT_NEWLINE_TAB);
		double t0, t1, t2;
		int ok;

		if (!j || !s) {
			fprintf(stderr, "bench-export: out of memory\n");
			return 1;
		}
		t0 = bench_now_ms();
		ok = write_document(j) != 0;
		t1 = bench_now_ms();
		ok = ok && write_document(s) != 0;
		t2 = bench_now_ms();
		tsb_json_get_buffer(j, &bytes);
		if (!ok || sb.len != bytes || memcmp(sb.p, tsb_json_get_buffer(j, NULL), bytes) != 0) {
			fprintf(stderr, "bench-export: the writer failed, or its sink and buffer differ\n");
			return 1;
		}
		buf_ms[r] = t1 - t0;
		sink_ms[r] = t2 - t1;
		tsb_json_free(j);
		tsb_json_free(s);
		free(sb.p);
	}
	printf("# the writer alone: %.0f numbers in %u per-tile arrays, %zu bytes, median of %d\n",
	       numbers, ARRAYS, bytes, RUNS);
	{
		double b = median(buf_ms, RUNS), s = median(sink_ms, RUNS);

		printf("export.writer.buffer_ms %.2f ms\n", b);
		printf("export.writer.buffer_ns_per_number %.2f ns\n", b * 1e6 / numbers);
		printf("export.writer.buffer_mb_s %.0f MB/s\n", (double)bytes / 1e6 / (b / 1e3));
		printf("export.writer.sink_ms %.2f ms\n", s);
		printf("export.writer.sink_ns_per_number %.2f ns\n", s * 1e6 / numbers);
		printf("export.writer.sink_mb_s %.0f MB/s\n", (double)bytes / 1e6 / (s / 1e3));
	}
	return 0;
}

/* One open, export to `out` and free of `path`; the milliseconds it took
 * in *ms. Returns 0, or 1 after a message. */
static int export_once(const char *path, tsr_export_format format, FILE *out, double *ms)
{
	tsr_report *report = NULL;
	double t0 = bench_now_ms();
	int rc = tsr_report_open(&report, path, NULL);

	if (rc) {
		fprintf(stderr, "bench-export: %s\n", tsr_last_error());
		return 1;
	}
	rc = tsr_export_write_graph_profile(out, report, format);
	*ms = bench_now_ms() - t0;
	if (rc) {
		fprintf(stderr, "bench-export: exporting %s failed (%s)\n", path, tsr_error_name(rc));
		tsr_report_free(report);
		return 1;
	}
	tsr_report_free(report);
	return 0;
}

/* Part 2: one report, JSON and CBOR, alternating. Returns 0 or 1. */
static int bench_report(const char *path, FILE *devnull)
{
	double json_ms[RUNS], cbor_ms[RUNS];
	const char *base = strrchr(path, '/');
	tsr_report *report = NULL;
	void *doc = NULL;
	size_t len = 0;

	base = base && base[1] ? base + 1 : path;
	if (tsr_report_open(&report, path, NULL) != 0) {
		fprintf(stderr, "bench-export: %s\n", tsr_last_error());
		return 1;
	}
	if (tsr_export_graph_profile(&doc, &len, report, TSR_EXPORT_JSON) != 0) {
		fprintf(stderr, "bench-export: exporting %s failed\n", path);
		tsr_report_free(report);
		return 1;
	}
	free(doc);
	tsr_report_free(report);
	for (int r = 0; r < RUNS; r++) {
		if (export_once(path, TSR_EXPORT_JSON, devnull, &json_ms[r]) ||
		    export_once(path, TSR_EXPORT_CBOR, devnull, &cbor_ms[r]))
			return 1;
	}
	printf("# %s: open + graph profile export to /dev/null, %zu bytes of JSON, median of %d\n",
	       path, len, RUNS);
	printf("export.%s.json_ms %.2f ms\n", base, median(json_ms, RUNS));
	printf("export.%s.cbor_ms %.2f ms\n", base, median(cbor_ms, RUNS));
	return 0;
}

int main(int argc, char **argv)
{
	FILE *devnull;
	int status;

	if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		printf("usage: bench-export [REPORT...]\n");
		return 0;
	}
	status = bench_writer();
	devnull = fopen("/dev/null", "w");
	if (!devnull) {
		fprintf(stderr, "bench-export: cannot open /dev/null\n");
		return 1;
	}
	for (int i = 1; i < argc && !status; i++)
		status = bench_report(argv[i], devnull);
	fclose(devnull);
	return status;
}
