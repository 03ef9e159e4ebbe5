/*
 * `tilescope diff`'s limits file (limits.h); what each value means is
 * reportlib's (compare.h).
 */
#define _GNU_SOURCE
#include "limits.h"

#include "cli.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest limits file read: a hand-written CI configuration. */
#define MAX_LIMITS_FILE (1 << 20)

/* Writes one error line into err (size bytes; either may be 0/NULL) and
 * returns -1, so that callers can `return set_err(...)`. */
static int set_err(char *err, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_err(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	if (err && size) {
		va_start(ap, fmt);
		vsnprintf(err, size, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* tsr_compare_limits_set_option with its message copied into err. */
static int add_option(tsr_compare_limits *limits, const char *option, const char *value,
                      char *err, size_t err_size)
{
	if (tsr_compare_limits_set_option(limits, option, value) == TSR_OK)
		return 0;
	return set_err(err, err_size, "%s", tsr_compare_limits_get_error(limits));
}

/* A JSON value as the option text it stands for: a string as is, a
 * number printed without exponent. Writes into buf; NULL when neither. */
static const char *json_value_text(const cJSON *v, char *buf, size_t size)
{
	if (cJSON_IsString(v))
		return v->valuestring;
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e15) {
		snprintf(buf, size, "%.6f", v->valuedouble);
		/* Trim "2.500000" to "2.5", "1.000000" to "1". */
		char *end = buf + strlen(buf) - 1;
		while (end > buf && *end == '0')
			*end-- = '\0';
		if (*end == '.')
			*end = '\0';
		return buf;
	}
	return NULL;
}

/* Reads `path` whole (at most MAX_LIMITS_FILE bytes) into a malloc'd
 * NUL-terminated string. */
static char *read_text(const char *path, char *err, size_t err_size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len;

	if (!f) {
		set_err(err, err_size, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(MAX_LIMITS_FILE + 1);
	if (!buf) {
		set_err(err, err_size, "out of memory");
		fclose(f);
		return NULL;
	}
	len = fread(buf, 1, MAX_LIMITS_FILE + 1, f);
	if (ferror(f)) {
		set_err(err, err_size, "%s: cannot read: %s", path, strerror(errno));
		free(buf);
		buf = NULL;
	} else if (len > MAX_LIMITS_FILE) {
		set_err(err, err_size, "%s: larger than %d bytes: not a limits file", path,
		        MAX_LIMITS_FILE);
		free(buf);
		buf = NULL;
	} else {
		buf[len] = '\0';
	}
	fclose(f);
	return buf;
}

/* Adds the limits of one object member of the file ("categories" or
 * "metrics"): NAME: VALUE pairs. */
static int load_named(tsr_compare_limits *limits, const char *path, const cJSON *obj, const char *key,
                      const char *option, char *err, size_t err_size)
{
	const cJSON *m;
	char num[64], text[1024];

	if (!cJSON_IsObject(obj))
		return set_err(err, err_size, "%s: \"%s\" must be an object of NAME: VALUE", path, key);
	cJSON_ArrayForEach(m, obj) {
		const char *v = json_value_text(m, num, sizeof(num));
		if (!v)
			return set_err(err, err_size,
			               "%s: \"%s\".\"%s\" must be a string or a non-negative number",
			               path, key, m->string);
		if (strlen(m->string) > 400)
			return set_err(err, err_size, "%s: a name in \"%s\" is too long", path, key);
		snprintf(text, sizeof(text), "%s:%s", m->string, v);
		if (add_option(limits, option, text, err, err_size)) {
			char inner[512];
			snprintf(inner, sizeof(inner), "%s", err);
			return set_err(err, err_size, "%s: \"%s\".\"%s\": %s", path, key, m->string,
			               inner);
		}
	}
	return 0;
}

/* Reads the JSON limits file `path` into `limits` (limits.h): each key
 * goes through the option it stands for, so the file and the command line
 * accept the same values. */
int cli_limits_load(tsr_compare_limits *limits, const char *path, char *err, size_t err_size)
{
	static const struct {
		const char *key, *option;
	} scalars[] = {
		{"max_memory_increase", "max-memory-increase"},
		{"max_cycles_increase", "max-cycles-increase"},
		{"max_tile_memory", "max-tile-memory"},
	};
	char *text = read_text(path, err, err_size);
	cJSON *root, *item;
	int rc = 0;

	if (!text)
		return -1;
	root = cJSON_Parse(text);
	free(text);
	if (!root)
		return set_err(err, err_size, "%s: not valid JSON", path);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return set_err(err, err_size, "%s: the limits must be one JSON object", path);
	}
	cJSON_ArrayForEach(item, root) {
		const char *key = item->string;
		size_t i;
		char num[64];

		for (i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++)
			if (strcmp(key, scalars[i].key) == 0)
				break;
		if (i < sizeof(scalars) / sizeof(scalars[0])) {
			const char *v = json_value_text(item, num, sizeof(num));
			if (!v) {
				rc = set_err(err, err_size,
				             "%s: \"%s\" must be a string or a non-negative number", path,
				             key);
				break;
			}
			if (add_option(limits, scalars[i].option, v, err, err_size)) {
				char inner[512];
				snprintf(inner, sizeof(inner), "%s", err);
				rc = set_err(err, err_size, "%s: \"%s\": %s", path, key, inner);
				break;
			}
		} else if (strcmp(key, "fail_on_oom") == 0) {
			if (!cJSON_IsBool(item)) {
				rc = set_err(err, err_size, "%s: \"fail_on_oom\" must be true or false", path);
				break;
			}
			if (cJSON_IsTrue(item) &&
			    add_option(limits, "fail-on-oom", NULL, err, err_size)) {
				rc = -1;
				break;
			}
		} else if (strcmp(key, "categories") == 0) {
			if ((rc = load_named(limits, path, item, key, "max-category-increase", err,
			                     err_size)))
				break;
		} else if (strcmp(key, "metrics") == 0) {
			if ((rc = load_named(limits, path, item, key, "max-increase", err, err_size)))
				break;
		} else {
			rc = set_err(err, err_size,
			             "%s: unknown key \"%s\" (known: max_memory_increase, "
			             "max_cycles_increase, max_tile_memory, fail_on_oom, categories, "
			             "metrics)",
			             path, key);
			break;
		}
	}
	cJSON_Delete(root);
	return rc;
}
