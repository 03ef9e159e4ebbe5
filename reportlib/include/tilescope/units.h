/*
 * reportlib: durations as people read them (libtilescope-report, prefix
 * tsr_). The one formatter that `tilescope trace` and the System Analyser
 * both print with, so that a span reads "16.2 s" on either and never
 * "16,216,785.292 µs" on one of them.
 */
#pragma once

#include <tilescope/report.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A buffer this long holds any duration tsr_format_duration writes. */
#define TSR_DURATION_MAX 32

/* How the microsecond is written. */
typedef enum tsr_duration_style {
	TSR_DURATION_ASCII = 0, /* "us": a terminal, a file, a test's grep */
	TSR_DURATION_MICRO = 1, /* "µs" (U+00B5 in UTF-8): a window */
} tsr_duration_style;

/*
 * Writes `ns` nanoseconds into `buf` (`size` bytes, TSR_DURATION_MAX holds
 * any value) with about three significant digits in the largest of ns, us,
 * ms and s that it is at least one of once rounded: "812 ns", "3.41 ms",
 * "16.2 s", and 999.95 ms reads "1.00 s", never "1000 ms". Nanoseconds
 * have no decimals; seconds are the largest unit ("86400 s"). Fractions
 * (means) are allowed; a negative value keeps its sign; NaN and the
 * infinities are "-". Returns `buf` (cut to fit when `size` is smaller).
 */
TSR_API const char *tsr_format_duration(char *buf, size_t size, double ns,
                                        tsr_duration_style style);

#ifdef __cplusplus
}
#endif
