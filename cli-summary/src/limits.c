/*
 * `tilescope diff`'s limits (limits.h): parsing what the options and the
 * limits file say, and checking the comparison against them.
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
#include <strings.h>

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

/* Parses a cycle count written "N cycles" or "Ncycles". */
static bool parse_cycles(const char *s, uint64_t *out)
{
	const char *end = s;
	char digits[24];

	while (*end >= '0' && *end <= '9')
		end++;
	if (end == s || (size_t)(end - s) >= sizeof(digits))
		return false;
	memcpy(digits, s, (size_t)(end - s));
	digits[end - s] = '\0';
	if (*end == ' ')
		end++;
	return strcasecmp(end, "cycles") == 0 && cli_parse_u64(digits, out);
}

/*
 * Adds or replaces one limit (limits.h). Which absolute amounts a value
 * may give follows the unit of what is limited: bytes for memory, cycles
 * for cycles; anything else (FLOPs, counts) takes a percentage only, so
 * that "--max-increase=cycles.total:1MB" is an error, not a million cycles.
 */
int cli_limits_set(cli_limits *limits, const char *option, const char *metric,
                   const char *value, char *err, size_t err_size)
{
	cli_limit l = {0};
	bool generic = strcmp(option, "max-increase") == 0;
	bool bytes_ok = strcmp(option, "max-memory-increase") == 0 ||
	                strcmp(option, "max-category-increase") == 0 ||
	                (generic && strncmp(metric, "memory.", 7) == 0);
	bool cycles_ok = strcmp(option, "max-cycles-increase") == 0 ||
	                 (generic && strncmp(metric, "cycles.", 7) == 0);
	double pct;
	uint64_t amount;

	if (strcmp(option, "fail-on-oom") == 0) {
		l.kind = CLI_LIMIT_CEILING;
		l.amount = 0;
		value = ""; /* no threshold to show: "--fail-on-oom" */
	} else if (strcmp(option, "max-tile-memory") == 0) {
		if (!value || !cli_parse_bytes(value, &amount))
			return set_err(err, err_size,
			               "--%s wants a byte size (512, 600KB, 1.5MiB), not '%s'", option,
			               value ? value : "");
		l.kind = CLI_LIMIT_CEILING;
		l.amount = amount;
	} else if (value && cli_parse_percent(value, &pct)) {
		l.kind = CLI_LIMIT_PERCENT;
		l.percent = pct;
	} else if (value && bytes_ok && cli_parse_bytes(value, &amount)) {
		l.kind = CLI_LIMIT_INCREASE;
		l.amount = amount;
	} else if (value && cycles_ok && parse_cycles(value, &amount)) {
		l.kind = CLI_LIMIT_INCREASE;
		l.amount = amount;
	} else {
		return set_err(err, err_size, "--%s%s%s wants %s, not '%s'", option,
		               generic ? " on " : "", generic ? metric : "",
		               bytes_ok    ? "a percentage (2, 2.5%) or a byte size (64KiB, 1MB)"
		               : cycles_ok ? "a percentage (1, 2.5%) or a cycle count (500cycles)"
		                           : "a percentage (1, 2.5%)",
		               value ? value : "");
	}
	l.option = strdup(option);
	l.metric = strdup(metric);
	l.threshold = strdup(value);
	if (!l.option || !l.metric || !l.threshold)
		goto no_memory;
	/* The same option on the same metric again replaces it: the command
	 * line overrides the limits file. */
	for (size_t i = 0; i < limits->n; i++) {
		cli_limit *o = &limits->items[i];
		if (strcmp(o->option, l.option) == 0 && strcmp(o->metric, l.metric) == 0) {
			free(o->option);
			free(o->metric);
			free(o->threshold);
			*o = l;
			return 0;
		}
	}
	if (limits->n == limits->cap) {
		size_t cap = limits->cap ? limits->cap * 2 : 8;
		cli_limit *items = realloc(limits->items, cap * sizeof(*items));
		if (!items)
			goto no_memory;
		limits->items = items;
		limits->cap = cap;
	}
	limits->items[limits->n++] = l;
	return 0;
no_memory:
	free(l.option);
	free(l.metric);
	free(l.threshold);
	return set_err(err, err_size, "out of memory");
}

/* Whether `name` is a memory category of the report format. */
static bool is_category(const char *name)
{
	for (size_t i = 0; i < tsr_category_count(); i++)
		if (strcmp(name, tsr_category_name(i)) == 0)
			return true;
	return false;
}

/* The category names, comma separated, for an error message. */
static void list_categories(char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < tsr_category_count() && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "",
		                         tsr_category_name(i));
}

/* Adds what one command line option means (limits.h): the metrics it
 * checks, and for the NAME:VALUE options the name checked first. */
int cli_limits_option(cli_limits *limits, const char *option, const char *value, char *err,
                      size_t err_size)
{
	char metric[512];

	if (strcmp(option, "max-memory-increase") == 0)
		return cli_limits_set(limits, option, "memory.total_including_gaps", value, err,
		                      err_size) ||
		               cli_limits_set(limits, option, "memory.total", value, err, err_size)
		           ? -1
		           : 0;
	if (strcmp(option, "max-cycles-increase") == 0)
		return cli_limits_set(limits, option, "cycles.total", value, err, err_size);
	if (strcmp(option, "max-tile-memory") == 0)
		return cli_limits_set(limits, option, "memory.max_tile", value, err, err_size);
	if (strcmp(option, "fail-on-oom") == 0)
		return cli_limits_set(limits, option, "memory.oom_tiles", NULL, err, err_size);
	if (strcmp(option, "max-category-increase") == 0 || strcmp(option, "max-increase") == 0) {
		const char *colon = value ? strrchr(value, ':') : NULL;
		bool category = option[4] == 'c';
		size_t len = colon ? (size_t)(colon - value) : 0;

		if (!colon || len == 0 || len >= 400)
			return set_err(err, err_size, "--%s wants %s:VALUE, not '%s'", option,
			               category ? "CATEGORY" : "METRIC", value ? value : "");
		if (category) {
			snprintf(metric, sizeof(metric), "memory.category.%.*s", (int)len, value);
			if (!is_category(metric + strlen("memory.category."))) {
				char names[2048];
				list_categories(names, sizeof(names));
				return set_err(err, err_size,
				               "--%s: '%.*s' is not a memory category (they are: %s)",
				               option, (int)len, value, names);
			}
		} else {
			snprintf(metric, sizeof(metric), "%.*s", (int)len, value);
		}
		return cli_limits_set(limits, option, metric, colon + 1, err, err_size);
	}
	return set_err(err, err_size, "unknown limit --%s", option);
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
static int load_named(cli_limits *limits, const char *path, const cJSON *obj, const char *key,
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
		if (cli_limits_option(limits, option, text, err, err_size)) {
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
int cli_limits_load(cli_limits *limits, const char *path, char *err, size_t err_size)
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
			if (cli_limits_option(limits, scalars[i].option, v, err, err_size)) {
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
			    cli_limits_option(limits, "fail-on-oom", NULL, err, err_size)) {
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

/* The limit spelt as its option (limits.h): the options that take
 * NAME:VALUE show the name again, so that a message alone says which
 * limit it was. */
const char *cli_limit_format(const cli_limit *limit, char *buf, size_t size)
{
	const char *name = NULL;

	if (strcmp(limit->option, "max-category-increase") == 0)
		name = limit->metric + (strncmp(limit->metric, "memory.category.", 16) == 0 ? 16 : 0);
	else if (strcmp(limit->option, "max-increase") == 0)
		name = limit->metric;
	snprintf(buf, size, "--%s%s%s%s%s", limit->option,
	         *limit->threshold || name ? "=" : "", name ? name : "", name ? ":" : "",
	         limit->threshold);
	return buf;
}

/* The pass/fail rule (limits.h). A percentage is compared in doubles:
 * the rounding of values above 2^53 is far below any percentage a limit
 * can state. */
bool cli_limit_passes(const cli_limit *limit, bool in_base, uint64_t base, bool in_new,
                      uint64_t new_value)
{
	if (!in_new)
		return true; /* gone from the new report: nothing grew */
	if (!in_base)
		base = 0;
	switch (limit->kind) {
	case CLI_LIMIT_CEILING:
		return new_value <= limit->amount;
	case CLI_LIMIT_INCREASE:
		return new_value <= base || new_value - base <= limit->amount;
	case CLI_LIMIT_PERCENT:
	default:
		if (new_value <= base)
			return true;
		if (base == 0)
			return false; /* from nothing: an unbounded increase */
		return (double)(new_value - base) * 100.0 / (double)base <= limit->percent;
	}
}

/* Metric name prefixes of the per-item groups (compare.c's list). */
static const struct {
	const char *prefix;
	cli_metric_group group;
} group_prefixes[] = {
	{"cycles.run.", CLI_GROUP_RUN},
	{"steps.run.", CLI_GROUP_RUN},
	{"memory.category.", CLI_GROUP_CATEGORY},
	{"cycles.step_type.", CLI_GROUP_STEP_TYPE},
	{"cycles.vertex_type.", CLI_GROUP_VERTEX_TYPE},
	{"memory.vertex_type.", CLI_GROUP_VERTEX_TYPE},
	{"cycles.operation.", CLI_GROUP_OPERATION},
	{"flops.operation.", CLI_GROUP_OPERATION},
	{"memory.operation.", CLI_GROUP_OPERATION},
	{"cycles.compute_set.", CLI_GROUP_COMPUTE_SET},
	{"memory.compute_set.", CLI_GROUP_COMPUTE_SET},
	{"memory.variable.", CLI_GROUP_VARIABLE},
	{"cycles.program.", CLI_GROUP_PROGRAM},
};

/* The group of a metric from its name's prefix (limits.h). */
cli_metric_group cli_metric_group_of(const char *metric)
{
	for (size_t i = 0; i < sizeof(group_prefixes) / sizeof(group_prefixes[0]); i++)
		if (strncmp(metric, group_prefixes[i].prefix, strlen(group_prefixes[i].prefix)) == 0)
			return group_prefixes[i].group;
	return CLI_GROUP_TOTAL;
}

/* Checks every limit against the deltas found through `lookup`
 * (limits.h); the error cases are there. */
int cli_limits_evaluate(const cli_limits *limits, cli_delta_lookup_cb lookup, const void *ctx,
                        cli_check **out, size_t *n, char *err, size_t err_size)
{
	cli_check *checks = calloc(limits->n + 1, sizeof(*checks));
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (!checks)
		return set_err(err, err_size, "out of memory");
	for (size_t i = 0; i < limits->n; i++) {
		const cli_limit *l = &limits->items[i];
		const tsr_delta *d = lookup(ctx, l->metric);

		if (!d || (!d->in_base && !d->in_new)) {
			set_err(err, err_size,
			        "--%s: metric '%s' is in neither report (the metrics are listed by "
			        "'tilescope diff --format=json')",
			        l->option, l->metric);
			goto cleanup;
		}
		if ((!d->in_base || !d->in_new) && cli_metric_group_of(l->metric) == CLI_GROUP_TOTAL) {
			/* A total one side lacks is not a change but a report
			 * without runs (execution figures) or an IPU fewer. */
			bool execution = strncmp(l->metric, "cycles.", 7) == 0 ||
			                 strncmp(l->metric, "flops.", 6) == 0 ||
			                 strncmp(l->metric, "steps.", 6) == 0;
			set_err(err, err_size,
			        "--%s: metric '%s' is only in the %s report, so it cannot be compared%s%s%s",
			        l->option, l->metric, d->in_base ? "base" : "new",
			        execution ? " (does the " : "", execution ? (d->in_base ? "new" : "base") : "",
			        execution ? " report keep no runs?)" : "");
			goto cleanup;
		}
		checks[i] = (cli_check){l, d->in_base ? d->base : 0, d->in_new ? d->new_value : 0,
		                        d->in_base, d->in_new, false};
		checks[i].passed = cli_limit_passes(l, d->in_base, d->base, d->in_new, d->new_value);
	}
	*out = checks;
	*n = limits->n;
	checks = NULL;
	rc = 0;
cleanup:
	free(checks);
	return rc;
}

/* tsr_comparison_lookup_delta as a cli_delta_lookup_cb. */
static const tsr_delta *comparison_lookup_cb(const void *ctx, const char *metric)
{
	return tsr_comparison_lookup_delta(ctx, metric);
}

/* cli_limits_evaluate over a comparison (limits.h). */
int cli_limits_check(const cli_limits *limits, const tsr_comparison *cmp, cli_check **out,
                     size_t *n, char *err, size_t err_size)
{
	return cli_limits_evaluate(limits, comparison_lookup_cb, cmp, out, n, err, err_size);
}

/* Frees what the limits hold and empties them; NULL is accepted. */
void cli_limits_free(cli_limits *limits)
{
	if (!limits)
		return;
	for (size_t i = 0; i < limits->n; i++) {
		free(limits->items[i].option);
		free(limits->items[i].metric);
		free(limits->items[i].threshold);
	}
	free(limits->items);
	memset(limits, 0, sizeof(*limits));
}
