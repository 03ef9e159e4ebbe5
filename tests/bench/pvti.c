/*
 * Benchmark of system tracing (pvti.h): the cost of a begin/end pair with
 * tracing on and off, the sustained rate at which the writer commits
 * spans to the file, and how closely a trace's clock map (ticks to ns,
 * calibrated as a trace calibrates it; pvti-private.h) times a 50 ms
 * sleep against CLOCK_MONOTONIC. Prints one line per figure,
 *   NAME VALUE UNIT (target OP VALUE)
 * plus '#' lines of context. A benchmark reports; it never fails on a
 * timing (exit status is non-zero only when tracing itself fails).
 *
 * Times come from rdtsc on x86-64, calibrated once against
 * CLOCK_MONOTONIC, and from clock_gettime elsewhere.
 *
 * Usage: bench-pvti [seconds]   (length of the throughput run, default 2)
 */
#define _GNU_SOURCE 1

#include <tilescope/pvti.h>

#include "pvti-private.h" /* the clock map (pvti-clock.c, linked in alone) */

#include <ftw.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static double ns_per_tick = 1.0;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The benchmark's clock: TSC ticks on x86-64, else ns. */
static uint64_t ticks(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	return mono_ns();
#endif
}

/* Measures ns per tick over 200 ms, once. */
static void calibrate(void)
{
#if defined(__x86_64__)
	uint64_t m0 = mono_ns(), t0 = ticks(), m1, t1;

	do
		m1 = mono_ns();
	while (m1 - m0 < 200000000u);
	t1 = ticks();
	ns_per_tick = (double)(m1 - m0) / (double)(t1 - t0);
#endif
}

static double elapsed_ns(uint64_t t0, uint64_t t1)
{
	return (double)(t1 - t0) * ns_per_tick;
}

/* Keeps the compiler from merging or dropping loop iterations. */
#define BARRIER() __asm__ __volatile__("" ::: "memory")

/* ns per begin/end pair over `n` pairs on `ch`. */
static double pair_cost(pvti_channel *ch, long n)
{
	uint64_t t0 = ticks(), t1;
	long i;

	for (i = 0; i < n; i++) {
		pvti_begin(ch, "bench");
		pvti_end(ch);
		BARRIER();
	}
	t1 = ticks();
	return elapsed_ns(t0, t1) / (double)n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Relative error (ppm) of one 50 ms sleep timed through the clock map `c`
 * instead of CLOCK_MONOTONIC; *map_ns gets the map's measure of it.
 */
static double sleep_error_ppm(const pvti_clock *c, double *map_ns)
{
	struct timespec pause = {0, 50000000};
	uint64_t t1, t2, m1, m2;
	double ns, mono, err;

	t1 = pvti_ticks();
	m1 = pvti_mono_ns();
	nanosleep(&pause, NULL);
	t2 = pvti_ticks();
	m2 = pvti_mono_ns();
	ns = (double)(pvti_clock_ns(c, t2) - pvti_clock_ns(c, t1));
	mono = (double)(m2 - m1);
	err = (ns - mono) / mono * 1e6;
	*map_ns = ns;
	return err < 0 ? -err : err;
}

static int rm_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Spans stored in the file (sum of chunk counts), or -1. */
static long long spans_in_file(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long n = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT total(count) FROM event_chunk", -1, &st, NULL) ==
	        SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	pvti_options opts = PVTI_OPTIONS_INIT;
	pvti_channel *ch = pvti_channel_new("Bench");
	const char *tmp = getenv("TMPDIR");
	char dir[512], *file = NULL;
	double rounds[9], disabled, enabled, rate, sleep_err[5], sleep_sorted[5], sleep_ns[5];
	pvti_clock clock;
	uint64_t t0, t1, deadline;
	long long stored;
	long n = 0, i;
	struct stat sb;
	int r;

	if (seconds <= 0)
		seconds = 2.0;
	calibrate();
	pvti_close(); /* measure from a known state even if PVTI_OPTIONS is set */

	/* Disabled: the inline check of the global flag. */
	pair_cost(ch, 10000000);
	for (r = 0; r < 5; r++)
		rounds[r] = pair_cost(ch, 50000000);
	qsort(rounds, 5, sizeof(double), cmp_double);
	disabled = rounds[2];

	snprintf(dir, sizeof(dir), "%s/tilescope-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	opts.directory = dir;
	if (pvti_open(&opts) != 0) {
		fprintf(stderr, "bench-pvti: pvti_open failed\n");
		return 1;
	}
	file = pvti_dup_file_name();

	/* Enabled: rounds of 1 M pairs while the writer drains beside them. */
	pair_cost(ch, 1000000);
	pvti_flush();
	for (r = 0; r < 9; r++) {
		rounds[r] = pair_cost(ch, 1000000);
		pvti_flush();
	}
	qsort(rounds, 9, sizeof(double), cmp_double);
	enabled = rounds[4];
	pvti_flush();

	/* Throughput: spans made as fast as one thread can for `seconds`,
	 * counted once the writer has committed all of them. */
	stored = spans_in_file(file);
	t0 = ticks();
	deadline = t0 + (uint64_t)(seconds * 1e9 / ns_per_tick);
	do {
		for (i = 0; i < 4096; i++) {
			pvti_begin(ch, "throughput");
			pvti_end(ch);
		}
		n += 4096;
	} while (ticks() < deadline);
	pvti_flush();
	t1 = ticks();
	rate = (double)n / (elapsed_ns(t0, t1) * 1e-9);
	stored = spans_in_file(file) - stored;

	/* The clock map of a new trace, calibrated as the writer calibrates
	 * it, timing 50 ms sleeps: median of 5, target 0.2 %. */
	pvti_clock_init();
	pvti_clock_start(&clock);
	pvti_clock_calibrate(&clock);
	for (r = 0; r < 5; r++)
		sleep_err[r] = sleep_error_ppm(&clock, &sleep_ns[r]);
	memcpy(sleep_sorted, sleep_err, sizeof(sleep_err));
	qsort(sleep_sorted, 5, sizeof(double), cmp_double);

	printf("pvti_disabled_pair %.2f ns (target <= 2)\n", disabled);
	printf("pvti_enabled_pair %.1f ns (target <= 50)\n", enabled);
	printf("pvti_write_throughput %.0f events/s (target >= 10000000)\n", rate);
	printf("pvti_clock_sleep_error %.0f ppm (target <= 2000)\n", sleep_sorted[2]);
	printf("# 5 sleeps of 50 ms through the %s clock map: %.0f, %.0f, %.0f, %.0f, %.0f "
	       "ppm off CLOCK_MONOTONIC (map: %.3f ms for the first)\n",
	       clock.tsc ? "TSC" : "monotonic", sleep_err[0], sleep_err[1], sleep_err[2],
	       sleep_err[3], sleep_err[4], sleep_ns[0] / 1e6);
	printf("# an event is one span (a begin/end pair); %ld made, %lld found in the file\n", n,
	       stored);
	printf("# enabled pair over 9 rounds of 1 M: min %.1f, median %.1f, max %.1f ns\n",
	       rounds[0], rounds[4], rounds[8]);
	pvti_close();
	if (file && stat(file, &sb) == 0)
		printf("# file: %.1f MB, %.2f bytes per event\n", (double)sb.st_size / 1e6,
		       (double)sb.st_size / (double)(n + 10000000));
	free(file);
	nftw(dir, rm_cb, 8, FTW_DEPTH | FTW_PHYS);
	return stored == n ? 0 : 1;
}
