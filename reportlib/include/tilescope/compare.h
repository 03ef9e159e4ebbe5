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
	TSR_UNIT_FLOPS,
	TSR_UNIT_NS              /* wall-clock nanoseconds: a trace's figures in the history
	                            store (history.h); never in a comparison of reports */
} tsr_metric_unit;

/* One compared figure. Metric names are stable, dotted and documented in
 * the README ("memory.total_including_gaps", "memory.category.message",
 * "cycles.total", "cycles.step_type.DoExchange",
 * "cycles.vertex_type.<name>", "cycles.operation.<name>",
 * "cycles.compute_set.<name>" ...). */
/* What a change of a metric means: the verdict `tilescope diff` prints
 * and the Graph Analyser colours (green better, red worse). */
typedef enum tsr_verdict {
	TSR_VERDICT_SAME = 0,    /* equal, and in the same reports */
	TSR_VERDICT_BETTER,      /* a cost went down */
	TSR_VERDICT_WORSE,       /* a cost went up (or appeared) */
	TSR_VERDICT_CHANGED      /* moved, but neither better nor worse */
} tsr_verdict;

typedef struct tsr_delta {
	const char *metric;
	tsr_metric_unit unit;
	bool in_base, in_new;    /* false: the item exists in one report only */
	uint64_t base, new_value;
	int64_t change;          /* new - base (saturated) */
	double percent;          /* change / base * 100; 0 when base is 0 */
	tsr_verdict verdict;     /* tsr_delta_get_verdict of this delta and its
	                            gaps counterpart in the same comparison */
} tsr_delta;

/* Which way a metric is better, by its kind (its name's first part):
 * memory.*, cycles.* and steps.* are costs, better lower; flops.* and
 * graph.* measure the work itself and only change. */
typedef enum tsr_metric_direction {
	TSR_DIRECTION_UNKNOWN = 0,     /* not a metric tsr_compare emits */
	TSR_DIRECTION_LOWER_IS_BETTER,
	TSR_DIRECTION_NEITHER
} tsr_metric_direction;

/* The direction of `metric` (NULL: unknown). */
TSR_API tsr_metric_direction tsr_metric_get_direction(const char *metric);

/* The one verdict rule. Equal values in the same reports are the same;
 * a metric of direction NEITHER (or unknown) only changes; a cost is
 * better lower and worse higher (a side without the metric counts 0),
 * except that a memory figure with a gaps counterpart (the same figure
 * the other side of gaps: memory.total and memory.total_including_gaps,
 * memory.ipu<i>.total and memory.ipu<i>.total_including_gaps,
 * memory.max_tile_excluding_gaps and memory.max_tile) only changes when
 * the two moved in opposite directions (the data shrank but its layout
 * grew, or the reverse): neither is better on its own. `counterpart` is
 * that delta from the same comparison, or NULL. */
TSR_API tsr_verdict tsr_delta_get_verdict(const tsr_delta *d, const tsr_delta *counterpart);

/* "same", "better", "worse", "changed" (the diff's JSON words); "" for
 * a value outside the enum. Static storage. */
TSR_API const char *tsr_verdict_get_name(tsr_verdict verdict);

typedef struct tsr_comparison tsr_comparison;

/* Runs chosen by program (tsr_compare_options): the default. */
#define TSR_RUNS_BY_PROGRAM (-2)

/* How tsr_compare_programs chooses the runs whose execution figures it
 * compares. */
typedef struct tsr_compare_options {
	unsigned version;          /* TSR_COMPARE_OPTIONS_VERSION */
	/* Runs are matched by the name of the engine program that ran
	 * (unnamed: "program<i>", its engine index). NULL: every program
	 * with kept runs in both reports; a name: that program only (an
	 * error, TSR_ERR_OUT_OF_RANGE, when a report keeps no run of it). */
	const char *program;
	/* TSR_RUNS_BY_PROGRAM (both): every kept run of each compared
	 * program, averaged per program, so the execution figures are those
	 * of one average run of each compared program, summed over them;
	 * when no program has runs in both reports, the last run of each,
	 * as below. Otherwise one run of each report: N (0 is the first
	 * kept) or -1 (the last kept) among the report's runs, or among
	 * `program`'s runs when it is given; TSR_RUNS_BY_PROGRAM on one side
	 * only means -1 there. */
	int64_t base_run, new_run;
} tsr_compare_options;
#define TSR_COMPARE_OPTIONS_VERSION 1
#define TSR_COMPARE_OPTIONS_INIT \
	{TSR_COMPARE_OPTIONS_VERSION, NULL, TSR_RUNS_BY_PROGRAM, TSR_RUNS_BY_PROGRAM}

/* Compares `base` and `new_report` (options NULL: TSR_COMPARE_OPTIONS_INIT,
 * every program in both, runs averaged). The caller frees with
 * tsr_comparison_free(). Progress and cancel as tsr_compare. */
TSR_API int tsr_compare_programs(tsr_comparison **out, tsr_report *base, tsr_report *new_report,
                                 const tsr_compare_options *options);

/* Compares `base` and `new_report`, using run `base_run` / `new_run` for
 * execution figures (-1: the last run kept; a report without runs has no
 * execution figures), whatever programs they ran: tsr_compare_programs
 * with those runs and no program. The caller frees with tsr_comparison_free().
 * Progress of the whole call (reading both reports, which may load their
 * variables, steps and operations) goes to base's progress callback
 * (tsr_report_set_progress; new_report's is not called); a non-zero
 * return gives TSR_ERR_CANCELLED with *out NULL, the message on the
 * report being read then, both reports still usable. */
TSR_API int tsr_compare(tsr_comparison **out, tsr_report *base, tsr_report *new_report,
                        int64_t base_run, int64_t new_run);
TSR_API void tsr_comparison_free(tsr_comparison *cmp);
/* The deltas: totals first, then per compared program's run, per
 * category, step type, vertex type,
 * operation, compute set, variable, named program; within a group by
 * name (the full list of metrics is at the top of reportlib/src/compare.c). */
TSR_API size_t tsr_comparison_get_count(const tsr_comparison *cmp);
/* Delta `i` (below tsr_comparison_get_count()), or NULL past the end.
 * Borrowed, as everything here: valid until tsr_comparison_free(). */
TSR_API const tsr_delta *tsr_comparison_get_delta(const tsr_comparison *cmp, size_t i);
/* The delta of `metric`, or NULL when the comparison has none (not an
 * error). */
TSR_API const tsr_delta *tsr_comparison_lookup_delta(const tsr_comparison *cmp, const char *metric);

/* One compared program: its name in each report (the same when runs were
 * matched by name; NULL for a report without runs) and how many of its
 * runs each side averaged (0: none). */
typedef struct tsr_compared_program {
	const char *base_name, *new_name;
	size_t base_runs, new_runs;
} tsr_compared_program;
/* The programs whose runs gave the execution figures, in the base's
 * engine order (none when neither report keeps runs). Borrowed, valid
 * until tsr_comparison_free(). */
TSR_API size_t tsr_comparison_get_program_count(const tsr_comparison *cmp);
TSR_API const tsr_compared_program *tsr_comparison_get_program(const tsr_comparison *cmp,
                                                               size_t i);

/* --- Limits: what `tilescope diff` gates on ------------------------------- */

/* The groups of the metrics, in tsr_comparison_get_delta's order: the
 * totals, then the per-item groups (a metric of an item that one report
 * may lack). */
typedef enum tsr_metric_group {
	TSR_GROUP_TOTAL = 0,
	TSR_GROUP_RUN,
	TSR_GROUP_CATEGORY,
	TSR_GROUP_STEP_TYPE,
	TSR_GROUP_VERTEX_TYPE,
	TSR_GROUP_OPERATION,
	TSR_GROUP_COMPUTE_SET,
	TSR_GROUP_VARIABLE,
	TSR_GROUP_PROGRAM,
	TSR_N_GROUPS
} tsr_metric_group;

/* The group of a metric from its name's prefix ("cycles.vertex_type." ->
 * TSR_GROUP_VERTEX_TYPE); TSR_GROUP_TOTAL for any other name. */
TSR_API tsr_metric_group tsr_metric_get_group(const char *metric);

typedef enum tsr_limit_kind {
	TSR_LIMIT_PERCENT = 0, /* new may exceed base by at most `percent` % of base */
	TSR_LIMIT_INCREASE,    /* new may exceed base by at most `amount` */
	TSR_LIMIT_CEILING      /* new may be at most `amount` */
} tsr_limit_kind;

/* One limit. Borrowed from its tsr_compare_limits. */
typedef struct tsr_limit {
	const char *option;    /* the option that set it, without "--" ("max-cycles-increase") */
	const char *metric;    /* the metric it checks */
	const char *threshold; /* the value as written ("1%", "64KiB"; "" for fail-on-oom) */
	tsr_limit_kind kind;
	double percent;        /* TSR_LIMIT_PERCENT */
	uint64_t amount;       /* TSR_LIMIT_INCREASE, TSR_LIMIT_CEILING: bytes or cycles */
} tsr_limit;

/* A set of limits, as `tilescope diff`'s options name them. */
typedef struct tsr_compare_limits tsr_compare_limits;

/* An empty set; the caller frees with tsr_compare_limits_free(). */
TSR_API int tsr_compare_limits_new(tsr_compare_limits **out);
TSR_API void tsr_compare_limits_free(tsr_compare_limits *limits);

/*
 * Adds what `tilescope diff --OPTION=VALUE` means (`option` without
 * "--"); the same option on the same metric again replaces it:
 *   max-memory-increase: "N%" or "N" (percent of the base) or a byte size
 *     "64KiB" (an increase), on memory.total_including_gaps and memory.total;
 *   max-cycles-increase: "N%", "N" or "N cycles" / "Ncycles", on cycles.total;
 *   max-tile-memory: a byte size, a ceiling on memory.max_tile;
 *   fail-on-oom: value ignored (NULL), a ceiling of 0 on memory.oom_tiles;
 *   max-category-increase: "CATEGORY:VALUE" (a tsr_category_name()), as
 *     max-memory-increase on memory.category.CATEGORY;
 *   max-increase: "METRIC:VALUE", a percentage, or a byte size for
 *     memory.*, a cycle count for cycles.*.
 * A bad option or value: TSR_ERR_INVALID_ARGUMENT and one line naming it
 * (tsr_compare_limits_get_error), the set unchanged.
 */
TSR_API int tsr_compare_limits_set_option(tsr_compare_limits *limits, const char *option,
                                          const char *value);
/* The message of the last failed call on `limits` ("" when none). Valid
 * until the next call on it. */
TSR_API const char *tsr_compare_limits_get_error(const tsr_compare_limits *limits);
/* The limits in the order they were first added; borrowed, valid until
 * the next tsr_compare_limits_set_option or _free. */
TSR_API size_t tsr_compare_limits_get_count(const tsr_compare_limits *limits);
TSR_API const tsr_limit *tsr_compare_limits_get_limit(const tsr_compare_limits *limits, size_t i);

/* The result of one limit against the two reports. */
typedef struct tsr_limit_check {
	const tsr_limit *limit;    /* borrowed from the tsr_compare_limits */
	uint64_t base, new_value;  /* 0 for a side without the metric */
	bool in_base, in_new;
	bool passed;
} tsr_limit_check;

/*
 * Checks every limit against `cmp`: *out (*n entries, in the limits'
 * order) is malloc'd, the caller frees it. A gate that cannot check must
 * not pass silently, so these are TSR_ERR_INVALID_ARGUMENT with a message
 * naming the option and the metric: a metric in neither report (a typo
 * in a CI configuration); a total (TSR_GROUP_TOTAL) that one report
 * lacks, such as cycles.total of a report that keeps no runs. A per-item
 * metric in one report only is checked: an item gone from the new report
 * passes, a new item grew from 0.
 */
TSR_API int tsr_compare_limits_list_checks(tsr_limit_check **out, size_t *n,
                                           tsr_compare_limits *limits, const tsr_comparison *cmp);
/* Finds the delta of `metric` in `ctx` (NULL: neither report has it). */
typedef const tsr_delta *(*tsr_delta_lookup_cb)(const void *ctx, const char *metric);
/* tsr_compare_limits_list_checks over deltas that `lookup` finds in `ctx`
 * (deltas of the caller's own, such as a test's). */
TSR_API int tsr_compare_limits_list_checks_from(tsr_limit_check **out, size_t *n,
                                                tsr_compare_limits *limits,
                                                tsr_delta_lookup_cb lookup, const void *ctx);
/* Whether `limit` passes for these two values (the rule of the checks). */
TSR_API bool tsr_limit_get_passed(const tsr_limit *limit, bool in_base, uint64_t base,
                                  bool in_new, uint64_t new_value);
/* Fills buf (size bytes, cut to fit) with the limit as its option:
 * "--max-cycles-increase=1", "--fail-on-oom",
 * "--max-category-increase=vertexCode:5%",
 * "--max-increase=cycles.vertex_type.Dot:10". Returns buf. */
TSR_API const char *tsr_limit_fill_option(const tsr_limit *limit, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
