/*
 * Comparing two reports: the base and the new one matched by the names of
 * programs, compute sets, variables, vertex types and operations; a delta
 * for every total of report.h, per category, per step kind, per vertex
 * type, per operation; and what exists in only one of them. The
 * `tilescope diff` command gates CI on it.
 *
 * Threads (report.h's contract). tsr_compare uses both reports: neither
 * may be used by another thread during the call (they may be the same
 * report). A tsr_comparison is not changed after tsr_compare returns, so
 * its getters may be called from several threads at once.
 */
#pragma once

#include "report.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsr_metric_unit {
	TSR_UNIT_BYTES = 0,
	TSR_UNIT_CYCLES,
	TSR_UNIT_TILES,
	TSR_UNIT_COUNT,          /* a plain count */
	TSR_UNIT_FLOPS
} tsr_metric_unit;

/* One compared figure. Metric names are stable, dotted and documented in
 * the README ("memory.total_including_gaps", "memory.category.message",
 * "cycles.total", "cycles.step_type.DoExchange",
 * "cycles.vertex_type.<name>", "cycles.operation.<name>",
 * "cycles.compute_set.<name>" ...). */
typedef struct tsr_delta {
	const char *metric;
	tsr_metric_unit unit;
	bool in_base, in_new;    /* false: the item exists in one report only */
	uint64_t base, new_value;
	int64_t change;          /* new - base (saturated) */
	double percent;          /* change / base * 100; 0 when base is 0 */
} tsr_delta;

typedef struct tsr_comparison tsr_comparison;

/* Compares `base` and `new_report`, using run `base_run` / `new_run` for
 * execution figures (-1: the last run kept; a report without runs has no
 * execution figures). The caller frees with tsr_comparison_free().
 * Progress of the whole call (reading both reports, which may load their
 * variables, steps and operations) goes to base's progress callback
 * (tsr_report_set_progress; new_report's is not called); a non-zero
 * return gives TSR_ERR_CANCELLED with *out NULL, the message on the
 * report being read then, both reports still usable. */
TSR_API int tsr_compare(tsr_comparison **out, tsr_report *base, tsr_report *new_report,
                        int64_t base_run, int64_t new_run);
TSR_API void tsr_comparison_free(tsr_comparison *cmp);
/* The deltas: totals first, then per category, step type, vertex type,
 * operation, compute set, variable, named program; within a group by
 * name (the full list of metrics is at the top of reportlib/src/compare.c). */
TSR_API size_t tsr_comparison_get_count(const tsr_comparison *cmp);
/* Delta `i` (below tsr_comparison_get_count()), or NULL past the end.
 * Borrowed, as everything here: valid until tsr_comparison_free(). */
TSR_API const tsr_delta *tsr_comparison_get_delta(const tsr_comparison *cmp, size_t i);
/* The delta of `metric`, or NULL when the comparison has none (not an
 * error). */
TSR_API const tsr_delta *tsr_comparison_lookup_delta(const tsr_comparison *cmp, const char *metric);

#ifdef __cplusplus
}
#endif
