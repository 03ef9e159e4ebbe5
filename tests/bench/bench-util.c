/*
 * Timing and clean-up helpers of the benchmarks (bench-util.h).
 */
#include "bench-util.h"

#include <ftw.h>
#include <stdio.h>
#include <time.h>

double bench_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int bench_compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int remove_cb(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void bench_remove_tree(const char *dir)
{
	nftw(dir, remove_cb, 16, FTW_DEPTH | FTW_PHYS);
}
