/*
 * Fuzz smoke test: mutates a real report many times with a fixed seed
 * (bit flips, truncations, whole pages overwritten with random bytes,
 * random byte runs, and page-1 header damage), opens each mutant and
 * calls every query and export on what opens. Nothing is asserted about
 * the codes except that they are codes: the test passes when no mutant
 * crashes, hangs, leaks or trips ASan/UBSan. Prints how many mutants gave
 * each code.
 *
 * TSR_FUZZ_ITERATIONS overrides the number of mutants (default sized to
 * run in about ten seconds in a plain build); TSR_FUZZ_SEED the seed.
 */
#include "report-fixture.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_ITERATIONS 2000

/* xorshift64*: small, seedable, the same everywhere. */
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

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One mutant of orig[0..len) in buf; returns its length. */
static size_t mutate(uint8_t *buf, const uint8_t *orig, size_t len, size_t page)
{
	size_t out = len;

	memcpy(buf, orig, len);
	switch (rng_below(5)) {
	case 0: /* bit flips anywhere */
		for (size_t k = 1 + rng_below(16); k; k--) {
			size_t off = rng_below(len);

			buf[off] ^= (uint8_t)(1u << rng_below(8));
		}
		break;
	case 1: /* truncation */
		out = rng_below(len);
		break;
	case 2: /* whole pages of random bytes */
		for (size_t k = 1 + rng_below(3); k; k--) {
			size_t p = rng_below(len / page);

			for (size_t i = 0; i < page && p * page + i < len; i++)
				buf[p * page + i] = (uint8_t)rng();
		}
		break;
	case 3: /* random byte runs */
		for (size_t k = 1 + rng_below(8); k; k--) {
			size_t off = rng_below(len), n = 1 + rng_below(64);

			for (size_t i = 0; i < n && off + i < len; i++)
				buf[off + i] = (uint8_t)rng();
		}
		break;
	default: /* the database header and the schema page */
		for (size_t k = 1 + rng_below(4); k; k--)
			buf[rng_below(page < len ? page : len)] = (uint8_t)rng();
		break;
	}
	return out;
}

static void test_fuzz(void **state)
{
	tsr_fixture f;
	const char *env = getenv("TSR_FUZZ_ITERATIONS");
	const char *seed_env = getenv("TSR_FUZZ_SEED");
	size_t iterations = env ? strtoul(env, NULL, 10) : DEFAULT_ITERATIONS;
	size_t counts[16] = {0}, opened = 0, len, page = 4096;
	char path[700];
	uint8_t *orig, *buf;
	FILE *fp;
	double t0;

	(void)state;
	rng_state = seed_env ? strtoull(seed_env, NULL, 0) : 0x5eed5eedULL;
	if (!rng_state)
		rng_state = 1;
	tsr_fixture_setup(&f, TSR_FIXTURE_MATMUL);
	fp = fopen(f.profile_path, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	len = (size_t)ftell(fp);
	rewind(fp);
	orig = malloc(len);
	buf = malloc(len);
	assert_non_null(orig);
	assert_non_null(buf);
	assert_int_equal(fread(orig, 1, len, fp), len);
	fclose(fp);
	if (len > 17) {
		page = (size_t)orig[16] << 8 | orig[17];
		if (page == 1)
			page = 65536;
	}
	snprintf(path, sizeof(path), "%s/mutant.pop", f.dir);

	t0 = now_s();
	for (size_t it = 0; it < iterations; it++) {
		tsr_open_options o = TSR_OPEN_OPTIONS_INIT;
		tsr_report *r = NULL;
		size_t n = mutate(buf, orig, len, page);
		int rc;

		fp = fopen(path, "wb");
		assert_non_null(fp);
		assert_int_equal(fwrite(buf, 1, n, fp), n);
		assert_int_equal(fclose(fp), 0);
		o.memory_cap = (uint64_t)256 << 20;
		rc = tsr_report_open(&r, path, &o);
		assert_true(rc <= 0 && rc >= TSR_ERR_NO_DATA);
		assert_true((rc == TSR_OK) == (r != NULL));
		counts[-rc]++;
		if (r) {
			opened++;
			(void)tsr_fixture_query_all(r, 8, true);
			tsr_report_free(r);
		}
	}
	printf("  %zu mutants in %.1f s (%zu opened); open codes:\n", iterations, now_s() - t0,
	       opened);
	for (int c = 0; c < 16; c++)
		if (counts[c])
			printf("    %-26s %zu\n", tsr_error_name(-c), counts[c]);
	free(orig);
	free(buf);
	tsr_fixture_teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
