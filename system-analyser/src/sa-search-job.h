/*
 * What the search bar asks of a trace, on a worker's handle: how many
 * spans have a name matching a pattern, and the hit after or before a
 * given one in time order. Plain functions over a tsr_trace (no widgets),
 * so the benchmark and the tests time and check exactly what the app runs.
 *
 * Order. Hits are ordered as tsr_trace_search orders them: start, then
 * thread, then seq. The count comes from the statistics by label (the
 * files' stored label_stats when they were closed cleanly), so it costs
 * no decoding; a step searches a window around the current hit that
 * doubles until it holds the next (or previous) one, so it decodes about
 * as many chunks as lie between two hits.
 */
#pragma once

#include <glib.h>
#include <tilescope/trace.h>

G_BEGIN_DECLS

/* The spans whose names match `pattern` (`mode` as tsr_trace_search takes
 * it) in the whole trace, in *total, and how many names match in *names.
 * TSR_OK, or reportlib's code with its message in tsr_trace_error(trace)
 * (a bad expression: TSR_ERR_INVALID_ARGUMENT). */
int sa_search_count(uint64_t *total, size_t *names, tsr_trace *trace, const char *pattern,
                    tsr_trace_match mode);

/*
 * The first hit after `from` (`forward`) or the last before it, in
 * *hit; *found FALSE when there is none in that direction (no wrapping:
 * the caller wraps by passing NULL). `from` NULL: from the start
 * (forward) or the end (backward), so the first or the last hit.
 * `total` (from sa_search_count; 0 when unknown) sizes the first window.
 */
int sa_search_step(tsr_trace_found *hit, gboolean *found, tsr_trace *trace, const char *pattern,
                   tsr_trace_match mode, const tsr_trace_found *from, gboolean forward,
                   uint64_t total);

G_END_DECLS
