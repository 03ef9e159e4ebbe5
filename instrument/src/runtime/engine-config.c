/*
 * The engine configuration: options given in code merged with
 * POPLAR_ENGINE_OPTIONS (the environment wins, as in Poplar), validated
 * against the option table in options.c, and resolved once per engine into
 * a tsi_engine_config that autoReport and the engine read.
 *
 * POPLAR_ENGINE_OPTIONS is a JSON object of option names and values. Users
 * write values as strings ("true", "10") or as plain JSON (true, 10), so
 * both are accepted; a number is kept as the text the user wrote, because
 * going through a double would turn a 64-bit count into something else.
 * A value that is null, an array or an object is an error naming the
 * option, and malformed JSON is an error that quotes where it broke: a
 * misread option would silently produce no profile, which costs more than
 * a refusal.
 */
#include "../autoreport/autoreport-private.h"

#include <tilescope/utf8.h>

#include <cjson/cJSON.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ENV_OPTIONS "POPLAR_ENGINE_OPTIONS"
#define ENV_REPORT_DEST "POPLAR_GRAPH_REPORT_DEST"

/* Bytes quoted on each side of the place where JSON parsing broke. */
#define QUOTE_CONTEXT 24

/* Default of autoReport.executionProfileProgramRunCount, as in Poplar. */
#define DEFAULT_RUN_COUNT 2

/* True when `s` is NULL, empty or only whitespace: such a variable is unset. */
static bool is_blank(const char *s)
{
	if (!s)
		return true;
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

/* --- Error messages --------------------------------------------------------- */

/*
 * Appends text[from, to) to `out` (of `size` bytes, holding `*len`), with
 * control characters shown as spaces so that the message stays one line.
 */
static void quote_append(char *out, size_t size, size_t *len, const char *text, size_t from,
                         size_t to)
{
	for (size_t i = from; i < to && *len + 1 < size; i++) {
		unsigned char c = (unsigned char)text[i];

		out[(*len)++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	out[*len] = '\0';
}

/*
 * Sets TSI_ERR_BAD_OPTION for JSON that does not parse, quoting up to
 * QUOTE_CONTEXT bytes each side of byte `offset` (0-based) of `text`, with
 * "<here>" where parsing stopped and "..." where the quote is cut.
 */
static int json_error(const char *text, size_t offset)
{
	size_t n = strlen(text);
	size_t from, to, len = 0;
	char quote[4 * QUOTE_CONTEXT + 32];

	if (offset > n)
		offset = n;
	from = offset > QUOTE_CONTEXT ? tsb_utf8_start(text, offset - QUOTE_CONTEXT, 0) : 0;
	to = n - offset > QUOTE_CONTEXT ? tsb_utf8_start(text, offset + QUOTE_CONTEXT, offset) : n;
	quote[0] = '\0';
	if (from > 0)
		quote_append(quote, sizeof(quote), &len, "...", 0, 3);
	quote_append(quote, sizeof(quote), &len, text, from, offset);
	quote_append(quote, sizeof(quote), &len, "<here>", 0, 6);
	quote_append(quote, sizeof(quote), &len, text, offset, to);
	if (to < n)
		quote_append(quote, sizeof(quote), &len, "...", 0, 3);
	return tsi_set_error(TSI_ERR_BAD_OPTION, ENV_OPTIONS " is not valid JSON at byte %zu: %s",
	                     offset, quote);
}

/* Puts ENV_OPTIONS in front of the current error message; returns `rc`. */
static int blame_environment(int rc)
{
	char message[1024];

	snprintf(message, sizeof(message), "%s", tsi_error_last());
	return tsi_set_error(rc, ENV_OPTIONS ": %s", message);
}

/* --- Number text from the JSON source ------------------------------------- */

/*
 * cJSON keeps numbers only as doubles, so the text of each number is taken
 * from the source instead. The scanner below walks JSON that cJSON has
 * already accepted; it still checks bounds so that a disagreement between
 * the two can only produce a missing span, never a bad read.
 */

/* Skips whitespace as cJSON does: every byte up to and including space. */
static const char *scan_ws(const char *p, const char *end)
{
	while (p < end && (unsigned char)*p <= ' ')
		p++;
	return p;
}

/* Skips a string that starts at its opening quote; returns past the close. */
static const char *scan_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return end;
}

/* Skips one value of any kind (nested objects and arrays included). */
static const char *scan_value(const char *p, const char *end)
{
	size_t depth = 0;

	do {
		if (p >= end)
			return end;
		if (*p == '"') {
			p = scan_string(p, end);
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		else if (depth == 0) {
			/* a number or a literal: runs to a delimiter or whitespace */
			while (p < end && (unsigned char)*p > ' ' && !strchr(",}]", *p))
				p++;
			return p;
		}
		p++;
	} while (depth > 0);
	return p;
}

/*
 * Fills spans[k] (start, length) with the source text of the value of the
 * k-th member of the top-level object in `text`, for k < n. Members are in
 * source order, which is cJSON's child order (duplicates included).
 */
static void scan_member_values(const char *text, const char **starts, size_t *lens, size_t n)
{
	const char *end = text + strlen(text);
	const char *p = text;
	size_t k;

	if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3; /* cJSON skips a UTF-8 byte-order mark too */
	p = scan_ws(p, end);
	if (p >= end || *p != '{')
		return;
	p++;
	for (k = 0; k < n; k++) {
		const char *start;

		p = scan_ws(p, end);
		if (p >= end || *p != '"')
			return;
		p = scan_ws(scan_string(p, end), end);
		if (p >= end || *p != ':')
			return;
		start = scan_ws(p + 1, end);
		p = scan_value(start, end);
		starts[k] = start;
		lens[k] = (size_t)(p - start);
		p = scan_ws(p, end);
		if (p < end && *p == ',')
			p++;
	}
}

/* --- POPLAR_ENGINE_OPTIONS ------------------------------------------------ */

/* A JSON type for messages ("null", "an array", ...). */
static const char *json_kind(const cJSON *item)
{
	if (cJSON_IsNull(item))
		return "null";
	if (cJSON_IsArray(item))
		return "an array";
	if (cJSON_IsObject(item))
		return "an object";
	if (cJSON_IsString(item))
		return "a string";
	if (cJSON_IsNumber(item))
		return "a number";
	if (cJSON_IsBool(item))
		return "true or false";
	return "not a JSON value";
}

/*
 * Parses `text` (the value of POPLAR_ENGINE_OPTIONS) into `out`, in source
 * order; a name given twice keeps its last value. Strings are taken as
 * they are, true/false become "true"/"false" and numbers their source text.
 * Fails with TSI_ERR_BAD_OPTION on invalid JSON, a top level that is not
 * an object, or a value that is null, an array or an object.
 */
static int parse_env_options(tsi_options *out, const char *text)
{
	const char *parse_end = NULL;
	cJSON *root = cJSON_ParseWithOpts(text, &parse_end, true);
	const char **starts = NULL;
	size_t *lens = NULL;
	size_t n, k = 0;
	char *number = NULL;
	const cJSON *item;
	int rc = TSI_OK;

	if (!root) {
		rc = json_error(text, parse_end ? (size_t)(parse_end - text) : 0);
		goto out;
	}
	if (!cJSON_IsObject(root)) {
		rc = tsi_set_error(TSI_ERR_BAD_OPTION,
		                   ENV_OPTIONS " must be a JSON object of option names and values, "
		                               "such as {\"autoReport.all\":\"true\"}; it is %s",
		                   json_kind(root));
		goto out;
	}
	n = (size_t)cJSON_GetArraySize(root);
	starts = calloc(n ? n : 1, sizeof(*starts));
	lens = calloc(n ? n : 1, sizeof(*lens));
	if (!starts || !lens) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of memory reading " ENV_OPTIONS);
		goto out;
	}
	scan_member_values(text, starts, lens, n);
	cJSON_ArrayForEach(item, root) {
		const char *name = item->string ? item->string : "";
		const char *value;

		if (cJSON_IsString(item)) {
			value = item->valuestring;
		} else if (cJSON_IsBool(item)) {
			value = cJSON_IsTrue(item) ? "true" : "false";
		} else if (cJSON_IsNumber(item)) {
			free(number);
			if (k < n && starts[k]) {
				number = strndup(starts[k], lens[k]);
			} else { /* the scanner disagreed with cJSON: never seen */
				char buf[32];

				snprintf(buf, sizeof(buf), "%.17g", item->valuedouble);
				number = strdup(buf);
			}
			if (!number) {
				rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of memory reading " ENV_OPTIONS);
				goto out;
			}
			value = number;
		} else {
			rc = tsi_set_error(TSI_ERR_BAD_OPTION,
			                   ENV_OPTIONS ": option '%s' is %s; give a string, a number or "
			                               "true/false",
			                   name, json_kind(item));
			goto out;
		}
		rc = tsi_options_set(out, name, value);
		if (rc)
			goto out;
		k++;
	}
out:
	free(number);
	free(starts);
	free(lens);
	cJSON_Delete(root);
	return rc;
}

/* --- Resolution ------------------------------------------------------------- */

/* A boolean option of the merged set; `dflt` when unset (values validated). */
static bool get_bool(const tsi_options *opts, const char *name, bool dflt)
{
	const char *v = tsi_options_lookup(opts, name);

	return v ? strcasecmp(v, "true") == 0 : dflt;
}

/*
 * An integer option of the merged set, `dflt` when unset. The value was
 * validated: decimal or 0x hex, fitting 63 bits.
 */
static uint64_t get_uint(const tsi_options *opts, const char *name, uint64_t dflt)
{
	const char *v = tsi_options_lookup(opts, name);

	if (!v)
		return dflt;
	return strtoull(v, NULL, v[0] == '0' && (v[1] == 'x' || v[1] == 'X') ? 16 : 10);
}

/* A copy of a string option, NULL when unset or empty. */
static int dup_string(char **out, const char *value)
{
	*out = NULL;
	if (!value || !*value)
		return TSI_OK;
	*out = strdup(value);
	return *out ? TSI_OK
	            : tsi_set_error(TSI_ERR_NO_MEMORY, "out of memory copying option value '%s'",
	                            value);
}

/*
 * Fills `cfg` from the validated, merged options. autoReport.all turns
 * every output on and an output set explicitly stays as set, whatever the
 * order the two were given in (Poplar's rule): each output reads its own
 * option first and falls back to autoReport.all.
 */
static int fill_config(tsi_engine_config *cfg, const tsi_options *merged)
{
	bool all = get_bool(merged, "autoReport.all", false);
	uint64_t replica;
	const char *dest;
	int rc;

	cfg->report_graph = get_bool(merged, "autoReport.outputGraphProfile", all);
	cfg->report_execution = get_bool(merged, "autoReport.outputExecutionProfile", all);
	cfg->report_debug_info = get_bool(merged, "autoReport.outputDebugInfo", all);
	cfg->report_lowered_vars = get_bool(merged, "autoReport.outputLoweredVars", all);
	cfg->report_archive = get_bool(merged, "autoReport.outputArchive", all);
	cfg->stream_at_each_run = get_bool(merged, "autoReport.streamAtEachRun", true);
	cfg->include_flops = get_bool(merged, "profiler.includeFlopEstimates", false);
	cfg->include_cycles = get_bool(merged, "profiler.includeCycleEstimates", false);
	cfg->retain_debug_info = get_bool(merged, "debug.retainDebugInformation", true);
	cfg->run_count = get_uint(merged, "autoReport.executionProfileProgramRunCount",
	                          DEFAULT_RUN_COUNT);
	replica = get_uint(merged, "profiler.replicaToProfile", 0);
	if (replica > UINT_MAX)
		return tsi_set_error(TSI_ERR_BAD_OPTION,
		                     "engine option 'profiler.replicaToProfile' is %llu, past any "
		                     "replica",
		                     (unsigned long long)replica);
	cfg->replica_to_profile = (unsigned)replica;
	rc = dup_string(&cfg->report_directory, tsi_options_lookup(merged, "autoReport.directory"));
	if (rc)
		return rc;
	/* The variable wins over the option, as POPLAR_ENGINE_OPTIONS does. */
	dest = getenv(ENV_REPORT_DEST);
	if (is_blank(dest))
		dest = tsi_options_lookup(merged, "debug.graphReportDestination");
	return dup_string(&cfg->graph_report_dest, dest);
}

/*
 * Fills `merged` with `code_opts` in their order, then `env_opts` on top
 * (the environment wins, keeping a replaced name's position). Code options
 * the environment replaces are never used, so only the others are validated
 * here (`env_opts` already was): each name is validated and logged once.
 */
static int merge_options(tsi_options *merged, const tsi_options *code_opts,
                         const tsi_options *env_opts)
{
	tsi_options *code_only = NULL;
	size_t i;
	int rc = TSI_OK;

	code_only = tsi_options_new();
	if (!code_only) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of memory merging engine options");
		goto out;
	}
	for (i = 0; i < tsi_options_count(code_opts); i++) {
		const char *name, *value;

		tsi_options_at(&name, &value, code_opts, i);
		if (!tsi_options_lookup(env_opts, name)) {
			rc = tsi_options_set(code_only, name, value);
			if (rc)
				goto out;
		}
		rc = tsi_options_set(merged, name, value);
		if (rc)
			goto out;
	}
	rc = tsi_options_validate(code_only);
	if (rc)
		goto out;
	for (i = 0; i < tsi_options_count(env_opts); i++) {
		const char *name, *value;

		tsi_options_at(&name, &value, env_opts, i);
		if (tsi_log_enabled(TSI_LOG_DEBUG) && tsi_options_lookup(code_opts, name))
			tsi_log(TSI_LOG_DEBUG, "ENGINE",
			        "option '%s' = '%s' from " ENV_OPTIONS " replaces '%s' given in code",
			        name, value, tsi_options_lookup(code_opts, name));
		rc = tsi_options_set(merged, name, value);
		if (rc)
			goto out;
	}
out:
	tsi_options_free(code_only);
	return rc;
}

/*
 * Resolves the options of one engine: parses POPLAR_ENGINE_OPTIONS (empty
 * or blank is unset), validates it and `code_opts` (which may be NULL),
 * merges them with the environment winning, and fills `cfg` with defaults
 * where unset. On success *effective holds the merged options, code ones
 * first in their order then new ones from the environment (the caller
 * frees it); on failure it is NULL, `cfg` is zeroed and the error message
 * names the option.
 */
int tsi_engine_config_resolve(tsi_engine_config *cfg, tsi_options **effective,
                              const tsi_options *code_opts)
{
	tsi_options *env_opts = NULL;
	tsi_options *merged = NULL;
	const char *env;
	int rc;

	if (effective)
		*effective = NULL;
	if (!cfg || !effective)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "tsi_engine_config_resolve: NULL argument");
	memset(cfg, 0, sizeof(*cfg));
	env_opts = tsi_options_new();
	merged = tsi_options_new();
	if (!env_opts || !merged) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "out of memory resolving engine options");
		goto fail;
	}
	env = getenv(ENV_OPTIONS);
	if (!is_blank(env)) {
		rc = parse_env_options(env_opts, env);
		if (rc)
			goto fail;
		rc = tsi_options_validate(env_opts);
		if (rc) {
			rc = blame_environment(rc);
			goto fail;
		}
	}
	rc = merge_options(merged, code_opts, env_opts);
	if (rc)
		goto fail;
	rc = fill_config(cfg, merged);
	if (rc)
		goto fail;
	tsi_options_free(env_opts);
	*effective = merged;
	return TSI_OK;
fail:
	tsi_engine_config_clear(cfg);
	tsi_options_free(env_opts);
	tsi_options_free(merged);
	return rc;
}

/* Frees the strings of `cfg` and zeroes it. NULL is ignored. */
void tsi_engine_config_clear(tsi_engine_config *cfg)
{
	if (!cfg)
		return;
	free(cfg->report_directory);
	free(cfg->graph_report_dest);
	memset(cfg, 0, sizeof(*cfg));
}
