/*
 * What the benchmarks of tests/bench/ share to time and clean up: a
 * monotonic clock, a comparison for qsort-ing timings before taking their
 * median, and removing a temporary directory with what is in it.
 */
#pragma once

/* Milliseconds of CLOCK_MONOTONIC (only differences mean anything). */
double bench_now_ms(void);
/* qsort comparison of two doubles, ascending. */
int bench_compare_double(const void *a, const void *b);
/* Removes `dir` and everything below it (best effort: a benchmark's
 * temporary directory). */
void bench_remove_tree(const char *dir);
