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
#include "../ipu-private.h"

#include <tilescope/suggest.h>

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
TSI_API const char *tsi_options_lookup(const tsi_options *opts, const char *name)
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
TSI_API int tsi_options_at(const char **name, const char **value, const tsi_options *opts, size_t i)
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
	OPT_INT,      /* a non-negative integer, decimal or 0x-prefixed hex */
	OPT_DECIMAL,  /* a non-negative decimal number ("300", "0.5") */
	OPT_STRING,   /* anything (paths, formats) */
	OPT_ENUM      /* one of `words`, exactly */
} option_kind;

/* One row: the public description plus what check_value() needs. */
typedef struct option_def {
	tsi_option_info info;
	option_kind kind;
	const char *words; /* OPT_ENUM: the values; OPT_INT: words accepted besides
	                      numbers ("auto"); '|'-separated; else NULL */
} option_def;

/* Row builders, so that each option stays on one line of the table. */
#define BOOL_OPT(name, dflt, modelled, desc) \
	{{name, "bool", dflt, "true or false", modelled, desc}, OPT_BOOL, NULL}
#define INT_OPT(name, dflt, accepted, modelled, desc) \
	{{name, "integer", dflt, accepted, modelled, desc}, OPT_INT, NULL}
#define INT_OR_OPT(name, dflt, words, accepted, modelled, desc) \
	{{name, "integer", dflt, accepted, modelled, desc}, OPT_INT, words}
#define DECIMAL_OPT(name, dflt, accepted, modelled, desc) \
	{{name, "decimal", dflt, accepted, modelled, desc}, OPT_DECIMAL, NULL}
#define STRING_OPT(name, dflt, accepted, modelled, desc) \
	{{name, "string", dflt, accepted, modelled, desc}, OPT_STRING, NULL}
#define ENUM_OPT(name, values, dflt, modelled, desc) \
	{{name, "enum", dflt, values, modelled, desc}, OPT_ENUM, values}

#define UINT_TEXT "a non-negative integer"

/*
 * Every engine option Tilescope accepts, sorted by name (strcmp order; a
 * unit test keeps it so). Names, types, values and defaults follow the
 * "Engine creation options" of Poplar's Engine class and the run-time
 * options of poplar::RuntimeOptions (which Engine also accepts), as of
 * Poplar SDK 3.x; nothing here is invented. `modelled` marks what the IPU
 * Model acts on (engine-config.c, the compiler model, autoReport); the rest
 * are accepted so that scripts written for hardware run unchanged, and are
 * logged at INFO. To model an option, flip its column and read it where it
 * matters (through tsi_engine_config or the effective options).
 */
static const option_def known_options[] = {
	BOOL_OPT("autoReport.all", "false", true,
	         "Turn on every autoReport output; one set to false stays off"),
	STRING_OPT("autoReport.directory", "./", "a directory path", true,
	           "Directory the reports go to, made if missing"),
	INT_OPT("autoReport.executionProfileProgramRunCount", "2", UINT_TEXT, true,
	        "Runs of each program kept in the execution profile"),
	BOOL_OPT("autoReport.outputArchive", "false", true,
	         "Write archive.a, the compiled graph's archive"),
	BOOL_OPT("autoReport.outputDebugInfo", "false", true,
	         "Write debug.cbor: debug contexts and what each made"),
	BOOL_OPT("autoReport.outputExecutionProfile", "false", true,
	         "Record runs in the execution profile of profile.pop"),
	BOOL_OPT("autoReport.outputGraphProfile", "false", true,
	         "Write profile.pop with the graph (memory) profile"),
	BOOL_OPT("autoReport.outputLoweredVars", "false", true,
	         "Include the lowered variables in profile.pop"),
	BOOL_OPT("autoReport.outputSerializedGraph", "false", false,
	         "Write the serialized graph"),
	BOOL_OPT("autoReport.streamAtEachRun", "true", true,
	         "Write the execution profile after each run, not at the end"),
	BOOL_OPT("debug.allowOutOfMemory", "true", true,
	         "Compile a graph that does not fit, to profile it (never runnable); "
	         "Poplar's default is false"),
	INT_OPT("debug.branchRecordTile", "", "an integer tile index", false,
	        "Tile holding the branch record of control-flow instrumentation"),
	ENUM_OPT("debug.computeInstrumentationLevel", "tile|vertex|device|ipu", "tile", true,
	         "Granularity of compute cycle instrumentation"),
	BOOL_OPT("debug.floatPointOpException", "false", false,
	         "Trap on invalid, divide-by-zero and overflowing float operations"),
	STRING_OPT("debug.graphReportDestination", "", "stdout, stderr or a file name", true,
	           "Where the graph report (printProfileSummary) goes after compiling"),
	BOOL_OPT("debug.instrument", "false", true,
	         "Instrument compute, external exchange and control flow"),
	BOOL_OPT("debug.instrumentCompute", "false", true,
	         "Instrument compute cycles"),
	BOOL_OPT("debug.instrumentControlFlow", "false", true,
	         "Instrument control-flow cycles"),
	BOOL_OPT("debug.instrumentExternalExchange", "false", true,
	         "Instrument IPU-to-IPU and host exchange cycles"),
	BOOL_OPT("debug.nanOverflowException", "false", false,
	         "Trap when a float operation overflows to NaN"),
	BOOL_OPT("debug.outputAllSymbols", "false", false,
	         "Keep every symbol in the compiled ELF files"),
	BOOL_OPT("debug.retainDebugInformation", "true", true,
	         "Keep debug information (contexts) for the reports"),
	BOOL_OPT("debug.runtimeVerify", "false", false,
	         "Add run-time checks to the compiled programs"),
	BOOL_OPT("debug.verify", "false", false,
	         "Verify the compiled code at compile time"),
	BOOL_OPT("exchange.enablePrefetch", "true", false,
	         "Prefetch host stream data before it is asked for"),
	ENUM_OPT("exchange.streamBufferOverlap", "none|hostRearrangeOnly|any", "hostRearrangeOnly",
	         false, "Which stream buffers may share memory"),
	BOOL_OPT("opt.enableMultiAccessCopies", "true", false,
	         "Merge copies that read or write several regions"),
	ENUM_OPT("opt.internalExchangeOptimisationTarget", "cycles|memory|balanced", "cycles", false,
	         "Internal exchange code trade-off"),
	BOOL_OPT("opt.limitVertexStateToLower256K", "false", false,
	         "Keep vertex state in the lower 256 KiB of tile memory"),
	INT_OPT("opt.maxCompilationThreads", "0", UINT_TEXT, false,
	        "Compiler threads (0: as many as cores)"),
	INT_OPT("opt.maxCopyMergeSize", "", "an integer number of bytes", false,
	        "Largest copy made by merging stream copies"),
	BOOL_OPT("opt.useAutoloader", "true", false,
	         "Load code onto tiles on demand"),
	STRING_OPT("profiler.format", "", "a report format version such as v3", false,
	           "Report format version"),
	BOOL_OPT("profiler.includeCycleEstimates", "false", true,
	         "Estimated cycles in the profile"),
	BOOL_OPT("profiler.includeFlopEstimates", "false", true,
	         "Estimated floating-point operations in the profile"),
	BOOL_OPT("profiler.perExecutionStreamCopyCycles", "false", false,
	         "Stream copy cycles for each run"),
	INT_OPT("profiler.replicaToProfile", "0", "an integer replica index", true,
	        "Replica whose execution is profiled"),
	INT_OR_OPT("streamCallbacks.maxLookahead", "0", "unlimited",
	           UINT_TEXT " or unlimited", false,
	           "Stream callbacks run ahead of their copy"),
	ENUM_OPT("streamCallbacks.multiThreadMode", "singleThread|collaborative|dedicated",
	         "singleThread", false, "How stream callbacks are spread over threads"),
	INT_OR_OPT("streamCallbacks.numWorkerThreads", "0", "auto", UINT_TEXT " or auto", false,
	           "Threads running stream callbacks (0: the main thread)"),
	BOOL_OPT("streamCallbacks.numaAware", "false", false,
	         "One callback thread pool per NUMA node"),
	ENUM_OPT("target.deterministicWorkers", "true|false|portable", "true", false,
	         "Worker random-number determinism"),
	INT_OPT("target.exceptionPollPeriodUs", "250000", "an integer number of microseconds", false,
	        "Period of device exception polling, in microseconds"),
	BOOL_OPT("target.gatewayMode", "true", false,
	         "Host syncs through the IPU-Machine gateway"),
	DECIMAL_OPT("target.hostSyncTimeout", "300", "seconds, a non-negative number", false,
	            "Seconds to wait for the IPU after a run (0: no timeout)"),
	INT_OPT("target.supervisorStackSizeInBytes", "", "an integer number of bytes", false,
	        "Stack of each tile's supervisor thread"),
	ENUM_OPT("target.syncMethod", "polling|hybrid|default", "default", false,
	         "How the host learns that an IPU wants to sync"),
	INT_OPT("target.syncPollPeriodUs", "0", "an integer number of microseconds", false,
	        "Period of host sync polling, in microseconds"),
	BOOL_OPT("target.syncReplicasIndependently", "false", false,
	         "Host syncs per replica rather than for all"),
	INT_OPT("target.workerStackSizeInBytes", "", "an integer number of bytes", false,
	        "Stack of each tile's worker threads"),
};

#define N_KNOWN_OPTIONS (sizeof(known_options) / sizeof(known_options[0]))

/* How many rows the option table has (for tools and documentation). */
TSI_API size_t tsi_engine_option_count(void)
{
	return N_KNOWN_OPTIONS;
}

/* Row `i` of the option table, static; NULL past the end. */
TSI_API const tsi_option_info *tsi_engine_option_info(size_t i)
{
	return i < N_KNOWN_OPTIONS ? &known_options[i].info : NULL;
}

/*
 * The known option nearest to `name` (suggest.h's rule, shared with
 * PVTI_OPTIONS), or NULL when none is a plausible typo.
 */
static const char *nearest_option(const char *name)
{
	const char *names[N_KNOWN_OPTIONS];
	size_t i;

	for (i = 0; i < N_KNOWN_OPTIONS; i++)
		names[i] = known_options[i].info.name;
	return tsi_lookup_nearest_name(name, names, N_KNOWN_OPTIONS);
}

/* The table row of `name`, or NULL. */
static const option_def *lookup_option(const char *name)
{
	size_t i;

	for (i = 0; i < N_KNOWN_OPTIONS; i++)
		if (strcmp(known_options[i].info.name, name) == 0)
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

/*
 * True when `value` is a non-negative integer that fits 63 bits: decimal
 * digits, or "0x" and hex digits (Poplar accepts both, and scripts use hex
 * for sizes such as target.workerStackSizeInBytes = "0x200").
 */
static bool is_uint_text(const char *value)
{
	const char *p = value;
	unsigned base = 10;
	uint64_t v = 0;

	if ((p[0] == '0') && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!*p)
		return false;
	for (; *p; p++) {
		unsigned digit;

		if (*p >= '0' && *p <= '9')
			digit = (unsigned)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			digit = (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
		else
			return false;
		if (v > ((uint64_t)INT64_MAX - digit) / base)
			return false;
		v = v * base + digit;
	}
	return true;
}

/* True when `value` is digits with at most one '.' and at least one digit. */
static bool is_decimal_text(const char *value)
{
	bool digit = false, dot = false;
	const char *p;

	for (p = value; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digit = true;
		else if (*p == '.' && !dot)
			dot = true;
		else
			return false;
	}
	return digit;
}

/*
 * Checks the value of one known option. Returns TSI_OK or
 * TSI_ERR_BAD_OPTION with a message naming the option, the value and what
 * would have been accepted.
 */
static int check_value(const option_def *def, const char *value)
{
	const char *name = def->info.name;

	switch (def->kind) {
	case OPT_BOOL:
		if (strcasecmp(value, "true") == 0 || strcasecmp(value, "false") == 0)
			return TSI_OK;
		return tsi_set_error(TSI_ERR_BAD_OPTION,
		                     "engine option '%s' has value '%s'; accepted values are true or false",
		                     name, value);
	case OPT_INT:
		if (is_uint_text(value) || (def->words && enum_accepts(def->words, value)))
			return TSI_OK;
		return tsi_set_error(TSI_ERR_BAD_OPTION,
		                     "engine option '%s' has value '%s'; it accepts %s", name, value,
		                     def->info.accepted);
	case OPT_DECIMAL:
		if (is_decimal_text(value))
			return TSI_OK;
		return tsi_set_error(TSI_ERR_BAD_OPTION,
		                     "engine option '%s' has value '%s'; it accepts %s", name, value,
		                     def->info.accepted);
	case OPT_ENUM:
		if (enum_accepts(def->words, value))
			return TSI_OK;
		return tsi_set_error(TSI_ERR_BAD_OPTION,
		                     "engine option '%s' has value '%s'; accepted values are %s", name,
		                     value, def->words);
	case OPT_STRING:
		break;
	}
	return TSI_OK;
}

/*
 * Validates every option in `opts` (NULL is an empty set) against the
 * table. Fails on the first unknown name or bad value; an option that is
 * valid but not modelled is logged at INFO, once per name and call (names
 * are unique in a set, so once per engine when the engine validates once).
 */
int tsi_options_validate(const tsi_options *opts)
{
	size_t i;

	if (!opts)
		return TSI_OK;
	for (i = 0; i < opts->len; i++) {
		const char *name = opts->items[i].name;
		const char *value = opts->items[i].value;
		const option_def *def = lookup_option(name);
		int rc;

		if (!def) {
			const char *near = nearest_option(name);

			if (near)
				return tsi_set_error(TSI_ERR_BAD_OPTION,
				                     "unknown engine option '%s'; did you mean '%s'?", name,
				                     near);
			return tsi_set_error(TSI_ERR_BAD_OPTION,
			                     "unknown engine option '%s' (options start with autoReport., "
			                     "debug., exchange., opt., profiler., streamCallbacks. or "
			                     "target.)",
			                     name);
		}
		rc = check_value(def, value);
		if (rc != TSI_OK)
			return rc;
		if (!def->info.modelled)
			tsi_log(TSI_LOG_INFO, "ENGINE",
			        "option '%s' is accepted but not modelled by the IPU Model", name);
	}
	return TSI_OK;
}
