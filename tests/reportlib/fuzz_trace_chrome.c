/*
 * Fuzz smoke test of the Chrome trace-event JSON import: the seeds of the
 * libFuzzer target (tests/fuzz/corpus/chrome_json) are mutated many times
 * with a fixed seed (bit flips, truncations, structural characters
 * inserted, runs deleted or repeated, digits and escapes spliced in),
 * each mutant is opened and what opens is queried (events, statistics
 * with medians, instants, counters, export). Nothing is asserted about
 * the codes except that they are codes and agree with the handle: the
 * test passes when no mutant crashes, hangs, leaks or trips ASan/UBSan.
 * Prints how many mutants gave each code.
 *
 * TSR_FUZZ_ITERATIONS overrides the number of mutants; TSR_FUZZ_SEED the
 * seed.
 */
#include "test-util.h"

#include <tilescope/trace.h>

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_ITERATIONS 8000
#define MAX_SEEDS 32

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static size_t rng_below(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

/* One mutant of orig[0..len) into buf (of at least 2 len + 64 bytes). */
static size_t mutate(uint8_t *buf, const uint8_t *orig, size_t len)
{
	static const char *const splices[] = {"[", "]", "{", "}", "\"", ",", ":", "\\", "\\u",
	                                      "\\ud800", "1e999", "-", ".", "0", "99999999999999999999",
	                                      "\"ph\":\"B\"", "\"ph\":\"E\"", "\"ts\":", "null",
	                                      "\xff", "\xc3", "\n", "\"args\":{\"name\":"};
	size_t out = len, off = rng_below(len + 1), n;
	const char *s;

	if (len == 0 || len > SIZE_MAX / 4)
		return 0;
	memcpy(buf, orig, len);
	switch (rng_below(5)) {
	case 0:
		for (size_t k = 1 + rng_below(8); k && len; k--)
			buf[rng_below(len)] ^= (uint8_t)(1u << rng_below(8));
		break;
	case 1:
		out = rng_below(len + 1);
		break;
	case 2: /* a splice inserted */
		s = splices[rng_below(sizeof(splices) / sizeof(splices[0]))];
		n = strlen(s);
		memmove(buf + off + n, buf + off, len - off);
		memcpy(buf + off, s, n);
		out = len + n;
		break;
	case 3: /* a run deleted */
		n = rng_below(len - off + 1);
		memmove(buf + off, buf + off + n, len - off - n);
		out = len - n;
		break;
	default: /* a run repeated */
		n = rng_below(len - off + 1);
		memmove(buf + off + n, buf + off, len - off);
		out = len + n;
		break;
	}
	return out;
}

static void query(tsr_trace *t)
{
	const tsr_trace_info *info = tsr_trace_get_info(t);
	tsr_trace_item *items = NULL;
	tsr_trace_label_stat *st = NULL;
	tsr_trace_instant *in = NULL;
	const tsr_trace_series *se;
	size_t n = 0, ns = 0;
	FILE *null;

	for (size_t th = 0; th < info->threads && th < 4; th++)
		for (uint64_t r = 0; r < 2; r++)
			if (tsr_trace_list_events(&items, &n, t, th, info->start_ns, info->end_ns + 1,
			                          r * 1000) == TSR_OK)
				free(items);
	if (tsr_trace_list_label_stats(&st, &n, t, NULL) == TSR_OK)
		free(st);
	if (tsr_trace_list_instants(&in, &n, t, -1, INT64_MIN, INT64_MAX, 0) == TSR_OK)
		free(in);
	if (tsr_trace_get_series(&se, &ns, t) == TSR_OK)
		for (size_t s = 0; s < ns && s < 4; s++) {
			tsr_trace_counter_bucket *b = NULL;
			double before;

			if (tsr_trace_list_counter_buckets(&b, &n, &before, t, s, info->start_ns,
			                                   info->end_ns + 1, 1000) == TSR_OK)
				free(b);
		}
	null = fopen("/dev/null", "w");
	if (null) {
		(void)tsr_trace_export_chrome(null, t, NULL);
		fclose(null);
	}
}

static void test_fuzz(void **state)
{
	const char *env = getenv("TSR_FUZZ_ITERATIONS"), *seed_env = getenv("TSR_FUZZ_SEED");
	size_t iterations = env ? strtoul(env, NULL, 10) : DEFAULT_ITERATIONS;
	size_t counts[32] = {0}, opened = 0, n_seeds = 0, lens[MAX_SEEDS];
	uint8_t *seeds[MAX_SEEDS], *buf = NULL;
	char *dir = tsi_test_mkdtemp(), *path = NULL;
	DIR *d = opendir(CORPUS);
	struct dirent *e;
	struct timespec t0, t1;

	(void)state;
	rng_state = seed_env ? strtoull(seed_env, NULL, 0) : 0x7ace5eedULL;
	if (!rng_state)
		rng_state = 1;
	assert_non_null(d);
	while ((e = readdir(d)) && n_seeds < MAX_SEEDS) {
		char *p = NULL, *text;

		if (e->d_name[0] == '.')
			continue;
		assert_true(asprintf(&p, "%s/%s", CORPUS, e->d_name) > 0);
		text = tsi_test_read_file(p);
		lens[n_seeds] = strlen(text);
		seeds[n_seeds++] = (uint8_t *)text;
		free(p);
	}
	closedir(d);
	assert_true(n_seeds >= 3);
	assert_true(asprintf(&path, "%s/mutant.json", dir) > 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t it = 0; it < iterations; it++) {
		size_t s = rng_below(n_seeds), len;
		tsr_trace_open_options o = TSR_TRACE_OPEN_OPTIONS_INIT;
		const char *p = path;
		tsr_trace *tr = NULL;
		FILE *f;
		int rc;

		buf = realloc(buf, 2 * lens[s] + 64);
		assert_non_null(buf);
		len = mutate(buf, seeds[s], lens[s]);
		f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(buf, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
		o.memory_cap = 64u << 20;
		rc = tsr_trace_open(&tr, &p, 1, &o);
		assert_true(rc <= 0 && rc > -32);
		assert_true((rc == TSR_OK) == (tr != NULL));
		if (rc != TSR_OK)
			assert_true(strlen(tsr_last_error()) > 0);
		counts[-rc]++;
		if (tr) {
			opened++;
			query(tr);
			tsr_trace_free(tr);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("  %zu mutants in %.1f s (%zu opened); open codes:\n", iterations,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, opened);
	for (int c = 0; c < 32; c++)
		if (counts[c])
			printf("    %-26s %zu\n", tsr_error_name(-c), counts[c]);
	for (size_t s = 0; s < n_seeds; s++)
		free(seeds[s]);
	free(buf);
	free(path);
	tsi_test_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
