/*
 * PVTI_OPTIONS: a JSON object with enable, directory, channels and
 * duration. The rule, as in Poplar's libpvti, is that a user who set the
 * variable wants a trace: a value that cannot be read turns tracing on
 * with the defaults rather than off, and a key with a value of the wrong
 * kind keeps its default; a key it does not know (a typo such as "dir")
 * is ignored. All report why — where the JSON broke, which known key a
 * typo is nearest to — so the caller can warn. "true" and true (and
 * "false" and false) mean the same.
 */
#include <tilescope/alloc.h>
#include "pvti-private.h"

#include <cjson/cJSON.h>
#include <tilescope/suggest.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A parsed pvti_options and the strings it points to. */
typedef struct options_holder {
	pvti_options opts; /* first: the pointer handed out */
	char *directory;
	char **channels;
	size_t n_channels;
} options_holder;

/* Appends "; reason" (or "reason") to the message being built. */
static void add_reason(char *msg, size_t size, const char *reason)
{
	size_t len = strlen(msg);

	if (len + 3 >= size)
		return;
	snprintf(msg + len, size - len, "%s%s", len ? "; " : "", reason);
}

/* The keys PVTI_OPTIONS has. */
static const char *const known_keys[] = {"enable", "directory", "channels", "duration"};

/* Adds a reason for every key of `root` that is not a known one. */
static int check_keys(const cJSON *root, char *msg, size_t size)
{
	const cJSON *item;
	int bad = 0;

	cJSON_ArrayForEach(item, root) {
		const char *near;
		char reason[160];
		size_t i;
		int known = 0;

		for (i = 0; i < sizeof(known_keys) / sizeof(known_keys[0]); i++)
			known |= strcmp(item->string, known_keys[i]) == 0;
		if (known)
			continue;
		near = tsi_lookup_nearest_name(item->string, known_keys,
		                               sizeof(known_keys) / sizeof(known_keys[0]));
		if (near)
			snprintf(reason, sizeof(reason), "unknown key \"%.40s\" (did you mean \"%s\"?)",
			         item->string, near);
		else
			snprintf(reason, sizeof(reason),
			         "unknown key \"%.40s\" (known: enable, directory, channels, duration)",
			         item->string);
		add_reason(msg, size, reason);
		bad = 1;
	}
	return bad;
}

/* Reads `enable`: a boolean, "true"/"false" in any case, or a number. */
static int read_enable(const cJSON *item, bool *out)
{
	if (cJSON_IsBool(item)) {
		*out = cJSON_IsTrue(item);
		return 0;
	}
	if (cJSON_IsString(item)) {
		if (strcasecmp(item->valuestring, "true") == 0 || strcmp(item->valuestring, "1") == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(item->valuestring, "false") == 0 || strcmp(item->valuestring, "0") == 0) {
			*out = false;
			return 0;
		}
		return -1;
	}
	if (cJSON_IsNumber(item)) {
		*out = item->valuedouble != 0;
		return 0;
	}
	return -1;
}

/* Reads `duration`: a non-negative number of seconds, or such a number
 * written as a string. */
static int read_duration(const cJSON *item, double *out)
{
	double v;

	if (cJSON_IsNumber(item)) {
		v = item->valuedouble;
	} else if (cJSON_IsString(item)) {
		char *end;

		errno = 0;
		v = strtod(item->valuestring, &end);
		if (errno || end == item->valuestring || *end)
			return -1;
	} else {
		return -1;
	}
	if (!isfinite(v) || v < 0)
		return -1;
	*out = v;
	return 0;
}

/* Reads `channels`: an array of names (a single name is taken as a list
 * of one). Non-string items are skipped with a reason. */
static int read_channels(options_holder *h, const cJSON *item, char *msg, size_t size)
{
	const cJSON *it;
	size_t n = 0;

	if (cJSON_IsString(item)) {
		h->channels = tsb_calloc(1, sizeof(char *));
		if (!h->channels || !(h->channels[0] = tsb_strdup(item->valuestring)))
			return TSI_ERR_NO_MEMORY;
		h->n_channels = 1;
		return TSI_OK;
	}
	if (!cJSON_IsArray(item)) {
		add_reason(msg, size, "\"channels\" is not a list of names (recording all channels)");
		return TSI_ERR_BAD_OPTION;
	}
	h->channels = tsb_calloc((size_t)cJSON_GetArraySize(item) + 1, sizeof(char *));
	if (!h->channels)
		return TSI_ERR_NO_MEMORY;
	cJSON_ArrayForEach(it, item) {
		if (!cJSON_IsString(it)) {
			add_reason(msg, size, "a \"channels\" item is not a string (skipped)");
			continue;
		}
		if (!(h->channels[n] = tsb_strdup(it->valuestring)))
			return TSI_ERR_NO_MEMORY;
		h->n_channels = ++n;
	}
	return TSI_OK;
}

/*
 * Parses `text`. Each key is read on its own so one bad value does not
 * cost the others; the message collects every reason.
 */
PVTI_API int pvti_options_parse(pvti_options **out, const char *text)
{
	options_holder *h = NULL;
	cJSON *root = NULL;
	const cJSON *item;
	char msg[512] = "";
	int rc = TSI_OK, bad = 0;

	if (!out)
		return tsi_set_error(TSI_ERR_INVALID_ARGUMENT, "pvti_options_parse: NULL argument");
	*out = NULL;
	h = tsb_calloc(1, sizeof(*h));
	if (!h) {
		rc = tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_options_parse: out of memory");
		goto cleanup;
	}
	h->opts = (pvti_options)PVTI_OPTIONS_INIT;
	if (text) {
		const char *end = NULL;

		root = cJSON_ParseWithOpts(text, &end, 1);
		if (!root) {
			char reason[128], near[16];
			size_t at = end && end >= text ? (size_t)(end - text) : 0, i;

			/* cJSON leaves `end` where it gave up; show a few bytes
			 * from there, printable ones only (the value is the user's
			 * but reaches a terminal). */
			for (i = 0; i + 1 < sizeof(near) && text[at + i]; i++)
				near[i] = text[at + i] >= 0x20 && text[at + i] < 0x7f ? text[at + i] : '?';
			near[i] = '\0';
			if (near[0])
				snprintf(reason, sizeof(reason),
				         "not valid JSON: it breaks at byte %zu (\"%s\"; tracing with the "
				         "defaults)",
				         at, near);
			else
				snprintf(reason, sizeof(reason),
				         "not valid JSON: it ends at byte %zu before it is complete (tracing "
				         "with the defaults)",
				         at);
			add_reason(msg, sizeof(msg), reason);
			bad = 1;
			goto done;
		}
	}
	if (!cJSON_IsObject(root)) {
		add_reason(msg, sizeof(msg), "not a JSON object (tracing with the defaults)");
		bad = 1;
		goto done;
	}
	bad |= check_keys(root, msg, sizeof(msg));
	item = cJSON_GetObjectItemCaseSensitive(root, "enable");
	if (item && read_enable(item, &h->opts.enable)) {
		add_reason(msg, sizeof(msg), "\"enable\" is not true or false (tracing)");
		bad = 1;
	}
	item = cJSON_GetObjectItemCaseSensitive(root, "directory");
	if (item) {
		if (cJSON_IsString(item) && item->valuestring[0]) {
			h->directory = tsb_strdup(item->valuestring);
			if (!h->directory) {
				rc = tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_options_parse: out of memory");
				goto cleanup;
			}
			h->opts.directory = h->directory;
		} else {
			add_reason(msg, sizeof(msg), "\"directory\" is not a non-empty string (using \".\")");
			bad = 1;
		}
	}
	item = cJSON_GetObjectItemCaseSensitive(root, "channels");
	if (item) {
		int crc = read_channels(h, item, msg, sizeof(msg));

		if (crc == TSI_ERR_NO_MEMORY) {
			rc = tsi_set_error(TSI_ERR_NO_MEMORY, "pvti_options_parse: out of memory");
			goto cleanup;
		}
		if (crc != TSI_OK ||
		    (cJSON_IsArray(item) && h->n_channels < (size_t)cJSON_GetArraySize(item)))
			bad = 1;
		h->opts.channels = (const char *const *)h->channels;
		h->opts.n_channels = h->n_channels;
	}
	item = cJSON_GetObjectItemCaseSensitive(root, "duration");
	if (item && read_duration(item, &h->opts.duration)) {
		add_reason(msg, sizeof(msg), "\"duration\" is not a number of seconds >= 0 (no limit)");
		bad = 1;
	}
done:
	*out = &h->opts;
	h = NULL;
	if (bad)
		rc = tsi_set_error(TSI_ERR_BAD_OPTION, "PVTI_OPTIONS: %s", msg);
cleanup:
	if (h)
		pvti_options_free(&h->opts);
	cJSON_Delete(root);
	return rc;
}

/* Frees options from pvti_options_parse (their strings with them). */
PVTI_API void pvti_options_free(pvti_options *opts)
{
	options_holder *h = (options_holder *)opts;
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->n_channels; i++)
		free(h->channels[i]);
	free(h->channels);
	free(h->directory);
	free(h);
}

/*
 * The options as a JSON object for the trace's metadata, so a reader can
 * tell what was asked for. Returns malloc'd text or NULL.
 */
char *pvti_options_to_json(const pvti_options *opts)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *list = NULL;
	char *printed = NULL, *copy = NULL;
	size_t i;

	if (!root)
		goto cleanup;
	if (!cJSON_AddBoolToObject(root, "enable", opts->enable) ||
	    !cJSON_AddStringToObject(root, "directory", opts->directory ? opts->directory : ".") ||
	    !(list = cJSON_AddArrayToObject(root, "channels")) ||
	    !cJSON_AddNumberToObject(root, "duration", opts->duration))
		goto cleanup;
	for (i = 0; i < opts->n_channels && opts->channels; i++) {
		cJSON *name = cJSON_CreateString(opts->channels[i] ? opts->channels[i] : "");

		if (!name)
			goto cleanup;
		cJSON_AddItemToArray(list, name);
	}
	printed = cJSON_PrintUnformatted(root);
	if (printed)
		copy = tsb_strdup(printed);
cleanup:
	cJSON_free(printed);
	cJSON_Delete(root);
	return copy;
}
