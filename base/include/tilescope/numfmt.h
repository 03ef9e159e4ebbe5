/*
 * Numbers and units as Tilescope prints them (libtilescope-base, prefix
 * tsb_): the one copy of the rules that the summary, the tilescope
 * command, the chart kit and both apps write with, so that a figure reads
 * the same everywhere ("1,216", "1,600.0", "91.5%", "256.0 KiB",
 * "3.41 ms"). Every call writes into the caller's buffer (`size` bytes;
 * TSB_NUMBER_MAX hold anything they write) and returns it, cut to fit
 * and terminated when `size` is smaller; none allocates. The grouping separator is always ','; the decimal point
 * of the durations and of tsb_format_axis's small values is printf's, as
 * it always was (the apps run in the user's locale).
 */
#pragma once

#include <tilescope/tsb-api.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

TSB_BEGIN_DECLS

/* A buffer this long holds anything the calls below write. */
#define TSB_NUMBER_MAX 48

/* `v` with a comma every three digits: "0", "1,216", "18,446,744,073,709,551,615". */
TSB_API const char *tsb_format_u64(char *buf, size_t size, uint64_t v);
/* The same for a signed value: "-1,234" (INT64_MIN included). */
TSB_API const char *tsb_format_i64(char *buf, size_t size, int64_t v);
/*
 * Groups a decimal integer written as text (an optional '-' then digits,
 * as "%.0f" prints a double past 2^64) with a comma every three digits
 * into out[0..size). Returns `out`, cut to fit (always terminated) when
 * `size` is too small.
 */
TSB_API const char *tsb_group_digits(char *out, size_t size, const char *digits);
/* `v` with one decimal and thousands separators ("1,600.0"); "n/a" when
 * `v` is not finite, negative, or 1e18 or more. */
TSB_API const char *tsb_format_tenths(char *buf, size_t size, double v);
/* A fraction as a percentage with one decimal ("91.5%"), "n/a" when not
 * finite (or as tsb_format_tenths says, for a negative one). */
TSB_API const char *tsb_format_percent(char *buf, size_t size, double fraction);
/* A size in binary units with one decimal and their IEC names:
 * "512.0 B", "256.0 KiB", "304.0 MiB", up to PiB. */
TSB_API const char *tsb_format_size(char *buf, size_t size, uint64_t bytes);
/*
 * A chart's value: rounded to an integer with thousands separators
 * ("638,976", "-12"), except below 10 in magnitude with a fraction, which
 * keeps three significant digits ("2.5", "0.125"); NaN is "–" (an en
 * dash) and the infinities "∞" and "-∞". A value that rounds to 0 has no
 * sign. From 1e30 in magnitude (no chart's) it is "%.3g", so that the
 * result always fits.
 */
TSB_API const char *tsb_format_axis(char *buf, size_t size, double value);

/* How tsb_format_duration writes the microsecond. */
typedef enum tsb_duration_style {
	TSB_DURATION_ASCII = 0, /* "us": a terminal, a file, a test's grep */
	TSB_DURATION_MICRO = 1, /* "µs" (U+00B5 in UTF-8): a window */
} tsb_duration_style;

/*
 * Writes `ns` nanoseconds into `buf` (`size` bytes; 32 hold any value)
 * with about three significant digits in the largest of ns, us, ms and s
 * that it is at least one of once rounded: "812 ns", "3.41 ms", "16.2 s",
 * and 999.95 ms reads "1.00 s", never "1000 ms". Nanoseconds have no
 * decimals; seconds are the largest unit ("86400 s"). A negative value
 * keeps its sign; NaN and the infinities are "-". Returns `buf` (cut to
 * fit when `size` is smaller). reportlib's tsr_format_duration is this.
 */
TSB_API const char *tsb_format_duration(char *buf, size_t size, double ns,
                                        tsb_duration_style style);

/*
 * Reads a non-negative decimal number at the start of `s` into *out and
 * sets *end past it: digits with at most one '.', at least one digit, at
 * most 40 characters, whatever the locale. Signs, spaces, "inf" and
 * "nan" are refused (false; *out and *end untouched); "1e9" and "0x10"
 * read 1 and 0 and leave *end on the 'e' or 'x' for the caller, which
 * decides what may follow (a unit, '%', nothing). The one reader of the
 * numbers users type in limits and durations.
 */
TSB_API bool tsb_parse_decimal(const char *s, double *out, const char **end);

TSB_END_DECLS
