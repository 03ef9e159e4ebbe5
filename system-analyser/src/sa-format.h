/*
 * How the System Analyser writes times and counts: one place, so the
 * timeline, the statistics and the tests read the same text.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

G_BEGIN_DECLS

/* "1,234,567". */
char *sa_format_count(uint64_t n);
/* A duration for people, three significant figures in the best unit:
 * "812 ns", "12.5 µs", "1.23 ms", "16.2 s" (tsr_format_duration, what
 * `tilescope trace` prints, with "µs"). */
char *sa_format_duration(double ns);
/* Exact nanoseconds with thousands separators: "16,216,785,292 ns" (the
 * tooltips of shortened durations). */
char *sa_format_ns_exact(uint64_t ns);
/* A mean in nanoseconds to the thousandth: "1,234.500 ns", or
 * "1,234 ns" when whole. */
char *sa_format_ns_mean(double ns);
/* Exact nanoseconds as milliseconds with six decimals: "12.345678 ms"
 * (what `tilescope trace --from/--to` takes back without loss). */
char *sa_format_ms_exact(int64_t ns);
/* Exact nanoseconds as microseconds with three decimals and thousands
 * separators: "1,234.567 µs" (the Compare tab's cells). */
char *sa_format_us_exact(uint64_t ns);

G_END_DECLS
