/*
 * Engine option flags (Poplar's OptionFlags): a small ordered store of
 * name/value strings, and the check that every option given to an engine
 * is one Poplar documents, with a value of the right kind.
 *
 * The table below is the single list of options Tilescope knows. Poplar
 * rejects names it does not know, and a misspelt "autoReport.al" that
 * silently produced no profile would cost a user an afternoon, so an
 * unknown name is an error that suggests the nearest known one. Options
 * that are valid in Poplar but not yet modelled by the simulator are
 * accepted and logged at INFO so that scripts written for real hardware
 * keep working.
 */
#include "ipu-private.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* --- The store ----------------------------------------------------------- */

typedef struct option_entry {
	char *name;  /* malloc */
	char *value; /* malloc */
} option_entry;

struct tsi_options {
	option_entry *items; /* insertion order */
	size_t len;
	size_t cap;
};

/* Makes an empty set of options; NULL when out of memory. */
TSI_API tsi_options *tsi_options_new(void)
{
	return calloc(1, sizeof(tsi_options));
}

/* Frees the options and every string they hold. NULL is ignored. */
TSI_API void tsi_options_free(tsi_options *opts)
{
	size_t i;

	if (!opts)
		return;
	for (i = 0; i < opts->len; i++) {
		free(opts->items[i].name);
		free(opts->items[i].value);
	}
	free(opts->items);
	free(opts);
}

/* Index of `name` in `opts`, or -1. Names compare exactly, as in Poplar. */
static ptrdiff_t options_find(const tsi_options *opts, const char *name)
{
	size_t i;

	for (i = 0; i < opts->len; i++)
		if (strcmp(opts->items[i].name, name) == 0)
			return (ptrdiff_t)i;
	return -1;
}

/*
 * Sets `name` to `value`. An existing name keeps its position and gets the
 * new value, so the order of tsi_options_at() is the order of first
 * setting, as when Poplar reads a JSON object of options.
 */
TSI_API int tsi_options_set(tsi_options *opts, const char *name, const char *value)
{
	char *name_copy = NULL;
	char *value_copy = NULL;
	ptrdiff_t found;
	int rc = TSI_OK;

	if (!opts || !name || !value)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_options_set: NULL argument");
	value_copy = strdup(value);
	if (!value_copy) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of memory setting option '%s'", name);
		goto out;
	}
	found = options_find(opts, name);
	if (found >= 0) {
		free(opts->items[found].value);
		opts->items[found].value = value_copy;
		value_copy = NULL;
		goto out;
	}
	if (opts->len == opts->cap) {
		size_t cap = opts->cap ? opts->cap * 2 : 8;
		option_entry *items = realloc(opts->items, cap * sizeof(*items));

		if (!items) {
			rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of memory setting option '%s'", name);
			goto out;
		}
		opts->items = items;
		opts->cap = cap;
	}
	name_copy = strdup(name);
	if (!name_copy) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of memory setting option '%s'", name);
		goto out;
	}
	opts->items[opts->len].name = name_copy;
	opts->items[opts->len].value = value_copy;
	opts->len++;
	name_copy = NULL;
	value_copy = NULL;
out:
	free(name_copy);
	free(value_copy);
	return rc;
}

/* The value of `name`, or NULL when unset (or when opts or name is NULL). */
TSI_API const char *tsi_options_get(const tsi_options *opts, const char *name)
{
	ptrdiff_t found;

	if (!opts || !name)
		return NULL;
	found = options_find(opts, name);
	return found >= 0 ? opts->items[found].value : NULL;
}

/* How many options are set; 0 for NULL. */
TSI_API size_t tsi_options_count(const tsi_options *opts)
{
	return opts ? opts->len : 0;
}

/*
 * The i-th option in insertion order. `name` and `value` may be NULL when
 * the caller wants only one of them; both are borrowed.
 */
TSI_API int tsi_options_at(const tsi_options *opts, size_t i, const char **name,
                           const char **value)
{
	if (!opts)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_options_at: NULL options");
	if (i >= opts->len)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT,
		                     "tsi_options_at: index %zu is past the %zu options set", i,
		                     opts->len);
	if (name)
		*name = opts->items[i].name;
	if (value)
		*value = opts->items[i].value;
	return TSI_OK;
}

/* --- The table of known engine options ----------------------------------- */

typedef enum option_kind {
	OPT_BOOL = 0, /* "true" or "false", any case */
	OPT_INT,      /* a non-negative decimal integer */
	OPT_STRING,   /* anything (paths, formats) */
	OPT_ENUM      /* one of `values`, exactly */
} option_kind;

typedef struct option_def {
	const char *name;
	option_kind kind;
	const char *values; /* OPT_ENUM: accepted values separated by '|' */
	bool modelled;      /* true when the IPU Model acts on it */
} option_def;

/*
 * Every engine option Tilescope accepts, one per row. Names come from
 * Poplar's documentation (the user guide's profiling section and the
 * PopVision/ALCF profiling guides). To model an option, flip its
 * `modelled` column and read it with tsi_options_get() where it matters.
 */
static const option_def known_options[] = {
	/* name                                        kind        values                         modelled */
	{"autoReport.all",                             OPT_BOOL,   NULL,                          false}, /* every report below */
	{"autoReport.directory",                       OPT_STRING, NULL,                          false}, /* where reports go */
	{"autoReport.executionProfileProgramRunCount", OPT_INT,    NULL,                          false}, /* runs kept in the execution profile */
	{"autoReport.outputArchive",                   OPT_BOOL,   NULL,                          false}, /* write profile.pop */
	{"autoReport.outputDebugInfo",                 OPT_BOOL,   NULL,                          false}, /* write debug.cbor */
	{"autoReport.outputExecutionProfile",          OPT_BOOL,   NULL,                          false}, /* execution profile */
	{"autoReport.outputGraphProfile",              OPT_BOOL,   NULL,                          false}, /* graph (memory) profile */
	{"autoReport.outputLoweredVars",               OPT_BOOL,   NULL,                          false}, /* lowered variables in the report */
	{"autoReport.outputSerializedGraph",           OPT_BOOL,   NULL,                          false}, /* serialized graph */
	{"autoReport.streamAtEachRun",                 OPT_BOOL,   NULL,                          false}, /* write the profile after each run */
	{"debug.allowOutOfMemory",                     OPT_BOOL,   NULL,                          true}, /* compile even if tiles overflow */
	{"debug.computeInstrumentationLevel",          OPT_ENUM,   "tile|vertex|device|ipu",      true}, /* granularity of compute cycles */
	{"debug.floatPointOpException",                OPT_BOOL,   NULL,                          false}, /* trap on FP exceptions */
	{"debug.graphReportDestination",               OPT_STRING, NULL,                          false}, /* stdout, stderr or a file */
	{"debug.instrument",                           OPT_BOOL,   NULL,                          true}, /* all instrumentation */
	{"debug.instrumentCompute",                    OPT_BOOL,   NULL,                          true}, /* compute cycles */
	{"debug.instrumentControlFlow",                OPT_BOOL,   NULL,                          true}, /* control-flow cycles */
	{"debug.instrumentExternalExchange",           OPT_BOOL,   NULL,                          true}, /* IPU-IPU and host exchange cycles */
	{"debug.outputAllSymbols",                     OPT_BOOL,   NULL,                          false}, /* keep every symbol */
	{"debug.retainDebugInformation",               OPT_BOOL,   NULL,                          false}, /* keep debug info for reports */
	{"debug.runtimeVerify",                        OPT_BOOL,   NULL,                          false}, /* run-time checks */
	{"debug.verify",                               OPT_BOOL,   NULL,                          false}, /* compile-time verification */
	{"exchange.enablePrefetch",                    OPT_BOOL,   NULL,                          false}, /* prefetch host streams */
	{"exchange.streamBufferOverlap",               OPT_ENUM,   "none|hostRearrangeOnly|any",  false}, /* stream buffer sharing */
	{"opt.enableMultiAccessCopies",                OPT_BOOL,   NULL,                          false}, /* multi-access copy merging */
	{"opt.internalExchangeOptimisationTarget",     OPT_ENUM,   "cycles|memory|balanced",      false}, /* exchange code trade-off */
	{"opt.maxCompilationThreads",                  OPT_INT,    NULL,                          false}, /* compiler threads */
	{"opt.maxCopyMergeSize",                       OPT_INT,    NULL,                          false}, /* bytes per merged copy */
	{"opt.useAutoloader",                          OPT_BOOL,   NULL,                          false}, /* load code on demand */
	{"profiler.format",                            OPT_STRING, NULL,                          false}, /* report format version ("v3") */
	{"profiler.includeCycleEstimates",             OPT_BOOL,   NULL,                          false}, /* estimated cycles in the profile */
	{"profiler.includeFlopEstimates",              OPT_BOOL,   NULL,                          false}, /* estimated flops in the profile */
	{"profiler.perExecutionStreamCopyCycles",      OPT_BOOL,   NULL,                          false}, /* stream copy cycles per run */
	{"profiler.replicaToProfile",                  OPT_INT,    NULL,                          false}, /* which replica to profile */
	{"target.deterministicWorkers",                OPT_ENUM,   "true|false|portable",         false}, /* worker RNG determinism */
	{"target.hostSyncTimeout",                     OPT_INT,    NULL,                          false}, /* seconds */
	{"target.syncReplicasIndependently",           OPT_BOOL,   NULL,                          false}, /* per-replica host syncs */
};

#define N_KNOWN_OPTIONS (sizeof(known_options) / sizeof(known_options[0]))

/* The longest name compared by the edit distance; longer ones never match. */
#define MAX_DISTANCE_LEN 128

/*
 * Levenshtein distance between `a` and `b`, ignoring case, or SIZE_MAX
 * when either is longer than MAX_DISTANCE_LEN (no useful suggestion then).
 */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[MAX_DISTANCE_LEN + 1];
	size_t i, j;

	if (la > MAX_DISTANCE_LEN || lb > MAX_DISTANCE_LEN)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0]; /* row[i-1][j-1] */
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
			size_t best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/*
 * The known option nearest to `name`, or NULL when none is close enough to
 * be a plausible typo: distance <= max(2, strlen(name) / 3).
 */
static const char *nearest_option(const char *name)
{
	size_t limit = strlen(name) / 3;
	size_t best = SIZE_MAX;
	const char *best_name = NULL;
	size_t i;

	if (limit < 2)
		limit = 2;
	for (i = 0; i < N_KNOWN_OPTIONS; i++) {
		size_t d = edit_distance(name, known_options[i].name);

		if (d < best) {
			best = d;
			best_name = known_options[i].name;
		}
	}
	return best <= limit ? best_name : NULL;
}

/* The table row of `name`, or NULL. */
static const option_def *lookup_option(const char *name)
{
	size_t i;

	for (i = 0; i < N_KNOWN_OPTIONS; i++)
		if (strcmp(known_options[i].name, name) == 0)
			return &known_options[i];
	return NULL;
}

/* True when `value` is one of the '|'-separated `values`. */
static bool enum_accepts(const char *values, const char *value)
{
	size_t n = strlen(value);
	const char *p = values;

	while (*p) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);

		if (len == n && strncmp(p, value, n) == 0)
			return true;
		if (!bar)
			break;
		p = bar + 1;
	}
	return false;
}

/* True when `value` is a non-negative decimal integer that fits 63 bits. */
static bool is_uint_text(const char *value)
{
	const char *p = value;
	unsigned long long v = 0;

	if (!*p)
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		if (v > (unsigned long long)INT64_MAX / 10)
			return false;
		v = v * 10 + (unsigned)(*p - '0');
		if (v > (unsigned long long)INT64_MAX)
			return false;
	}
	return true;
}

/*
 * Checks the value of one known option. Returns TSI_OK or
 * TSI_ERR_BAD_OPTION with a message naming the option, the value and what
 * would have been accepted.
 */
static int check_value(const option_def *def, const char *value)
{
	switch (def->kind) {
	case OPT_BOOL:
		if (strcasecmp(value, "true") == 0 || strcasecmp(value, "false") == 0)
			return TSI_OK;
		return tsi_set_error(TSI_ERR_BAD_OPTION,
		                     "engine option '%s' has value '%s'; accepted values are true or false",
		                     def->name, value);
	case OPT_INT:
		if (is_uint_text(value))
			return TSI_OK;
		return tsi_set_error(TSI_ERR_BAD_OPTION,
		                     "engine option '%s' has value '%s'; it accepts a non-negative integer",
		                     def->name, value);
	case OPT_ENUM:
		if (enum_accepts(def->values, value))
			return TSI_OK;
		return tsi_set_error(TSI_ERR_BAD_OPTION,
		                     "engine option '%s' has value '%s'; accepted values are %s",
		                     def->name, value, def->values);
	case OPT_STRING:
		break;
	}
	return TSI_OK;
}

/*
 * Validates every option in `opts` (NULL is an empty set) against the
 * table. Fails on the first unknown name or bad value; an option that is
 * valid but not modelled is logged at INFO, once per name.
 */
int tsi_options_validate(const tsi_options *opts)
{
	size_t i, j;

	if (!opts)
		return TSI_OK;
	for (i = 0; i < opts->len; i++) {
		const char *name = opts->items[i].name;
		const char *value = opts->items[i].value;
		const option_def *def = lookup_option(name);
		bool seen = false;
		int rc;

		if (!def) {
			const char *near = nearest_option(name);

			if (near)
				return tsi_set_error(TSI_ERR_BAD_OPTION,
				                     "unknown engine option '%s'; did you mean '%s'?", name,
				                     near);
			return tsi_set_error(TSI_ERR_BAD_OPTION,
			                     "unknown engine option '%s' (options start with autoReport., "
			                     "debug., exchange., opt., profiler. or target.)",
			                     name);
		}
		rc = check_value(def, value);
		if (rc != TSI_OK)
			return rc;
		if (def->modelled)
			continue;
		for (j = 0; j < i && !seen; j++)
			seen = strcmp(opts->items[j].name, name) == 0;
		if (!seen)
			tsi_log(TSI_LOG_INFO, "ENGINE",
			        "option '%s' is accepted but not modelled by the IPU Model", name);
	}
	return TSI_OK;
}
