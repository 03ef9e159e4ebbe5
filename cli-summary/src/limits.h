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
 *   max-memory-increase, max-increase, max-category-increase:
 *     "N%" or "N" (percent of the base), or a byte size "64KiB" (bytes);
 *   max-cycles-increase: "N%" or "N" (percent), or "N cycles" / "Ncycles";
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

/*
 * Checks every limit against `cmp`. *out (n entries, in the order the
 * limits were added) is malloc'd; the caller frees it. A limit whose
 * metric is in neither report is an error (-1, err names it): a typo in a
 * CI configuration must not pass silently.
 */
int cli_limits_check(const cli_limits *limits, const tsr_comparison *cmp, cli_check **out,
                     size_t *n, char *err, size_t err_size);

/* Whether one check passes, from the two values (exposed for the tests). */
bool cli_limit_passes(const cli_limit *limit, bool in_base, uint64_t base, bool in_new,
                      uint64_t new_value);

void cli_limits_free(cli_limits *limits);
