/*
 * The limits `tilescope diff` gates on: what the options and the JSON
 * limits file ask for, and their evaluation against a comparison of two
 * reports (compare.h). Kept apart from the command and from the output
 * formats so that the tests can drive it with deltas of their own.
 */
#pragma once

#include "tilescope/compare.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum cli_limit_kind {
	CLI_LIMIT_PERCENT = 0, /* new may exceed base by at most `percent` % of base */
	CLI_LIMIT_INCREASE,    /* new may exceed base by at most `amount` */
	CLI_LIMIT_CEILING      /* new may be at most `amount` */
} cli_limit_kind;

typedef struct cli_limit {
	char *option;          /* the option that set it ("max-cycles-increase") */
	char *metric;          /* the compare.c metric it checks */
	char *threshold;       /* as written, for messages ("1%", "64KiB") */
	cli_limit_kind kind;
	double percent;
	uint64_t amount;
} cli_limit;

typedef struct cli_limits {
	cli_limit *items;
	size_t n, cap;
} cli_limits;

/* The groups of compare.c's metrics, in its order: the totals, then the
 * per-item groups (a metric of an item that one report may lack). */
typedef enum cli_metric_group {
	CLI_GROUP_TOTAL = 0,
	CLI_GROUP_RUN,
	CLI_GROUP_CATEGORY,
	CLI_GROUP_STEP_TYPE,
	CLI_GROUP_VERTEX_TYPE,
	CLI_GROUP_OPERATION,
	CLI_GROUP_COMPUTE_SET,
	CLI_GROUP_VARIABLE,
	CLI_GROUP_PROGRAM,
	CLI_N_GROUPS
} cli_metric_group;

/* The group of a metric name, from its prefix ("cycles.vertex_type." ->
 * CLI_GROUP_VERTEX_TYPE); CLI_GROUP_TOTAL for any other name. */
cli_metric_group cli_metric_group_of(const char *metric);

/* The result of one limit against the two reports. */
typedef struct cli_check {
	const cli_limit *limit;
	uint64_t base, new_value;  /* 0 for a side without the metric */
	bool in_base, in_new;
	bool passed;
} cli_check;

/*
 * Adds (or replaces: the same option and metric again) a limit named by
 * option `option` on `metric` from the text `value`:
 *   max-memory-increase, max-category-increase: "N%" or "N" (percent of
 *     the base), or a byte size with a unit "64KiB" (an increase in bytes);
 *   max-cycles-increase: "N%" or "N" (percent), or "N cycles" / "Ncycles";
 *   max-increase: a percentage; an absolute increase as the metric's
 *     unit allows: a byte size for memory.*, "Ncycles" for cycles.*;
 *   max-tile-memory: a byte size (a ceiling on the new value);
 *   fail-on-oom: value ignored (a ceiling of 0 out-of-memory tiles).
 * On a bad value writes one line to err (err_size bytes) and returns -1.
 */
int cli_limits_set(cli_limits *limits, const char *option, const char *metric,
                   const char *value, char *err, size_t err_size);

/*
 * Adds what the command line option `option` (without "--") with `value`
 * means: --max-memory-increase is two limits (memory.total_including_gaps
 * and memory.total), --max-category-increase / --max-increase take
 * "NAME:VALUE" (NAME a memory category of tsr_category_name(), or a
 * metric). Errors as cli_limits_set.
 */
int cli_limits_option(cli_limits *limits, const char *option, const char *value, char *err,
                      size_t err_size);

/*
 * Reads a JSON limits file: {"max_memory_increase": "2%",
 * "max_cycles_increase": 1, "max_tile_memory": "600KB", "fail_on_oom":
 * true, "categories": {"vertexCode": "5%"}, "metrics":
 * {"cycles.vertex_type.Dot": "10%"}}. Numbers mean what they mean on the
 * command line (percent); unknown keys, wrong types and bad values are
 * errors naming the file and the key. Returns 0, or -1 with err set.
 */
int cli_limits_load(cli_limits *limits, const char *path, char *err, size_t err_size);

/* Finds the delta of `metric` in `ctx` (NULL: neither report has it). */
typedef const tsr_delta *(*cli_delta_lookup_cb)(const void *ctx, const char *metric);

/*
 * Checks every limit against the deltas `lookup` finds in `ctx`. *out (n
 * entries, in the order the limits were added) is malloc'd; the caller
 * frees it. Errors (-1, err names the option and the metric), because a
 * gate that cannot check must not pass silently:
 *   - a metric in neither report (a typo in a CI configuration);
 *   - a total (CLI_GROUP_TOTAL) that one report lacks, such as
 *     cycles.total of a report that keeps no runs.
 * A per-item metric in one report only is checked: an item gone from the
 * new report passes, a new item grew from 0.
 */
int cli_limits_evaluate(const cli_limits *limits, cli_delta_lookup_cb lookup, const void *ctx,
                        cli_check **out, size_t *n, char *err, size_t err_size);
/* cli_limits_evaluate over a comparison of two reports. */
int cli_limits_check(const cli_limits *limits, const tsr_comparison *cmp, cli_check **out,
                     size_t *n, char *err, size_t err_size);

/* The limit as an option would spell it, into buf (size bytes, cut to
 * fit): "--max-cycles-increase=1", "--fail-on-oom",
 * "--max-category-increase=vertexCode:5%",
 * "--max-increase=cycles.vertex_type.Dot:10". Returns buf. */
const char *cli_limit_format(const cli_limit *limit, char *buf, size_t size);

/* Whether one check passes, from the two values (exposed for the tests). */
bool cli_limit_passes(const cli_limit *limit, bool in_base, uint64_t base, bool in_new,
                      uint64_t new_value);

void cli_limits_free(cli_limits *limits);
