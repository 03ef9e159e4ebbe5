/*
 * Statistics by label over windows (reportlib/src/trace-stats.c) against
 * a brute-force computation from every span (tsr_trace_list_events at
 * resolution 0): count, total, self, min, max and the exact median (odd
 * and even counts, many equal durations), over windows that cut long
 * spans whose children lie in earlier chunks (the walk stops at the last
 * chunk holding a span that starts in the window); and the totals of a
 * view are the same whether or not label statistics of that view were
 * asked for first (they are then taken from that walk).
 */
#include "test-util.h"

#include <tilescope/pvti.h>
#include <tilescope/trace.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Epochs of STEPS steps, each holding an op (and every third a leaf):
 * well over one chunk (65,536 spans) per epoch. */
#define EPOCHS 3
#define STEPS 40000

static void *worker(void *arg)
{
	pvti_channel *ch = pvti_channel_new("Side");

	(void)arg;
	pvti_thread_set_name("side");
	for (int i = 0; i < 20001; i++) {
		pvti_begin(ch, i % 2 ? "odd" : "even");
		pvti_end(ch);
	}
	return NULL;
}

static char *make_trace(const char *dir)
{
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *fw = pvti_channel_framework();
	pthread_t t;
	char *path;

	opts.directory = dir;
	assert_int_equal(pvti_open(&opts), 0);
	path = pvti_dup_file_name();
	pthread_create(&t, NULL, worker, NULL);
	for (int e = 0; e < EPOCHS; e++) {
		pvti_begin(fw, "epoch");
		for (int s = 0; s < STEPS; s++) {
			pvti_begin(fw, "step");
			pvti_begin(fw, "op");
			if (s % 3 == 0) {
				pvti_begin(fw, "leaf");
				pvti_end(fw);
			}
			pvti_end(fw);
			pvti_end(fw);
		}
		pvti_end(fw);
	}
	pthread_join(t, NULL);
	assert_int_equal(pvti_close(), 0);
	return path;
}

typedef struct brute {
	uint32_t channel, name;
	uint64_t count, total, self, min, max;
	uint64_t *dur;
	size_t n;
} brute;

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The statistics of spans starting in [from, to) of every thread. */
static brute *brute_stats(tsr_trace *tr, int64_t from, int64_t to, size_t *n_out)
{
	const tsr_trace_thread *th;
	size_t n_th, n_b = 0;
	brute *b = calloc(64, sizeof(*b));

	assert_int_equal(tsr_trace_get_threads(&th, &n_th, tr), TSR_OK);
	for (size_t t = 0; t < n_th; t++) {
		tsr_trace_item *it = NULL;
		size_t n = 0;
		uint64_t *kids;
		int64_t max_seq = -1;

		assert_int_equal(tsr_trace_list_events(&it, &n, tr, t, INT64_MIN, INT64_MAX, 0), TSR_OK);
		for (size_t i = 0; i < n; i++)
			if (it[i].seq > max_seq)
				max_seq = it[i].seq;
		kids = calloc((size_t)max_seq + 2, sizeof(*kids));
		for (size_t i = 0; i < n; i++)
			if (it[i].parent >= 0)
				kids[it[i].parent] += it[i].busy_ns;
		for (size_t i = 0; i < n; i++) {
			const tsr_trace_item *e = &it[i];
			uint64_t d = (uint64_t)(e->end_ns - e->start_ns), k = kids[e->seq];
			size_t j;

			if (e->start_ns < from || e->start_ns >= to)
				continue;
			for (j = 0; j < n_b; j++)
				if (b[j].channel == e->channel && b[j].name == e->name)
					break;
			if (j == n_b) {
				assert_true(n_b < 64);
				b[n_b].channel = e->channel;
				b[n_b].name = e->name;
				b[n_b].min = UINT64_MAX;
				b[n_b].dur = malloc(n * sizeof(uint64_t));
				n_b++;
			}
			b[j].count++;
			b[j].total += d;
			b[j].self += d > k ? d - k : 0;
			b[j].min = d < b[j].min ? d : b[j].min;
			b[j].max = d > b[j].max ? d : b[j].max;
			b[j].dur[b[j].n++] = d;
		}
		free(kids);
		free(it);
	}
	*n_out = n_b;
	return b;
}

static void check_window(tsr_trace *tr, int64_t from, int64_t to)
{
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_label_stat *st = NULL;
	size_t n = 0, n_b = 0;
	brute *b = brute_stats(tr, from, to, &n_b);

	o.from_ns = from;
	o.to_ns = to;
	assert_int_equal(tsr_trace_list_label_stats(&st, &n, tr, &o), TSR_OK);
	assert_int_equal(n, n_b);
	for (size_t i = 0; i < n; i++) {
		size_t j;
		uint64_t median;

		for (j = 0; j < n_b; j++)
			if (b[j].channel == st[i].channel && b[j].name == st[i].name)
				break;
		assert_true(j < n_b);
		assert_int_equal(st[i].count, b[j].count);
		assert_int_equal(st[i].total_ns, b[j].total);
		assert_int_equal(st[i].self_ns, b[j].self);
		assert_int_equal(st[i].min_ns, b[j].min);
		assert_int_equal(st[i].max_ns, b[j].max);
		assert_true(st[i].median_exact);
		qsort(b[j].dur, b[j].n, sizeof(uint64_t), compare_u64);
		median = b[j].n % 2 ? b[j].dur[b[j].n / 2]
		                    : b[j].dur[b[j].n / 2 - 1] / 2 + b[j].dur[b[j].n / 2] / 2 +
		                          (b[j].dur[b[j].n / 2 - 1] & b[j].dur[b[j].n / 2] & 1);
		assert_int_equal(st[i].median_ns, median);
	}
	for (size_t j = 0; j < n_b; j++)
		free(b[j].dur);
	free(b);
	free(st);
}

static void test_windows(void **state)
{
	char *dir = tsi_test_mkdtemp(), *path = make_trace(dir);
	const char *p = path;
	tsr_trace *tr = NULL;
	const tsr_trace_info *info;
	int64_t span;

	(void)state;
	assert_int_equal(tsr_trace_open(&tr, &p, 1, NULL), TSR_OK);
	info = tsr_trace_get_info(tr);
	assert_true(info->events > 3 * 65536);
	span = info->end_ns - info->start_ns;
	check_window(tr, INT64_MIN, INT64_MAX);
	check_window(tr, info->start_ns, info->start_ns + span / 2);
	check_window(tr, info->start_ns + span / 5, info->start_ns + span / 5 + span / 7);
	check_window(tr, info->start_ns + span / 3 - 1, info->start_ns + span / 3 + 1);
	check_window(tr, info->start_ns + span / 2, info->end_ns + 1);
	check_window(tr, info->end_ns + 1, INT64_MAX);
	tsr_trace_free(tr);
	free(path);
	tsi_test_rmtree(dir);
}

static void assert_same_totals(const tsr_trace_totals *a, const tsr_trace_totals *b)
{
	assert_int_equal(a->spans, b->spans);
	assert_int_equal(a->self_ns, b->self_ns);
	assert_int_equal(a->n_threads, b->n_threads);
	assert_int_equal(a->n_channels, b->n_channels);
	assert_int_equal(a->n_processes, b->n_processes);
	assert_memory_equal(a->threads, b->threads, a->n_threads * sizeof(*a->threads));
	assert_memory_equal(a->channels, b->channels, a->n_channels * sizeof(*a->channels));
	assert_memory_equal(a->processes, b->processes, a->n_processes * sizeof(*a->processes));
}

/* Totals straight from the chunks on a fresh handle, and on a handle that
 * has just computed the label statistics of the same view. */
static void test_totals_after_stats(void **state)
{
	char *dir = tsi_test_mkdtemp(), *path = make_trace(dir);
	const char *p = path;
	tsr_trace *fresh = NULL, *warm = NULL;
	const tsr_trace_info *info;
	int64_t threads[] = {-1, 0, 1};

	(void)state;
	assert_int_equal(tsr_trace_open(&fresh, &p, 1, NULL), TSR_OK);
	assert_int_equal(tsr_trace_open(&warm, &p, 1, NULL), TSR_OK);
	info = tsr_trace_get_info(fresh);
	for (size_t k = 0; k < 3; k++)
		for (int w = 0; w < 3; w++) {
			tsr_trace_stats_options so = TSR_TRACE_STATS_OPTIONS_INIT;
			tsr_trace_totals_options to = TSR_TRACE_TOTALS_OPTIONS_INIT;
			tsr_trace_totals *a = NULL, *b = NULL;
			tsr_trace_label_stat *st = NULL;
			size_t n;

			so.thread = to.thread = threads[k];
			if (w > 0) {
				so.from_ns = to.from_ns = info->start_ns + (info->end_ns - info->start_ns) / (w + 2);
				so.to_ns = to.to_ns = so.from_ns + (info->end_ns - info->start_ns) / 4;
			}
			assert_int_equal(tsr_trace_totals_new(&a, fresh, &to), TSR_OK);
			assert_int_equal(tsr_trace_list_label_stats(&st, &n, warm, &so), TSR_OK);
			free(st);
			assert_int_equal(tsr_trace_totals_new(&b, warm, &to), TSR_OK);
			assert_same_totals(a, b);
			tsr_trace_totals_free(b);
			/* Another view after it: not taken from the walk. */
			to.from_ns = INT64_MIN;
			b = NULL;
			tsr_trace_totals_free(a);
			a = NULL;
			assert_int_equal(tsr_trace_totals_new(&a, fresh, &to), TSR_OK);
			assert_int_equal(tsr_trace_totals_new(&b, warm, &to), TSR_OK);
			assert_same_totals(a, b);
			tsr_trace_totals_free(a);
			tsr_trace_totals_free(b);
		}
	tsr_trace_free(fresh);
	tsr_trace_free(warm);
	free(path);
	tsi_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_totals_after_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
