/*
 * The limits `tilescope diff` gates on (compare.h): what a limit option's
 * text means, and its check against a comparison. Here, not in the
 * command, so that the Python module's compare() checks the same limits
 * with the same messages.
 */
#define _GNU_SOURCE
#include "tilescope/compare.h"

#include <tilescope/alloc.h>
#include <tilescope/numfmt.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct tsr_compare_limits {
	tsr_limit *items;
	size_t n, cap;
	char error[1024];
};

/* Writes one error line into limits->error and returns
 * TSR_ERR_INVALID_ARGUMENT, so that callers can `return set_err(...)`. */
static int set_err(tsr_compare_limits *limits, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_err(tsr_compare_limits *limits, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(limits->error, sizeof(limits->error), fmt, ap);
	va_end(ap);
	return rc;
}

/* A byte size: "512", "600KB", "1.5 MiB" (decimal and binary units). */
static bool parse_bytes(const char *s, uint64_t *out)
{
	static const struct {
		const char *name;
		double factor;
	} units[] = {
		{"", 1}, {"b", 1},
		{"k", 1e3}, {"kb", 1e3}, {"m", 1e6}, {"mb", 1e6}, {"g", 1e9}, {"gb", 1e9},
		{"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0},
	};
	const char *end;
	double v;

	if (!s || !tsb_parse_decimal(s, &v, &end))
		return false;
	if (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].name) != 0)
			continue;
		/* A fraction of a byte is only meaningful with a unit. */
		if (units[i].factor == 1 && strchr(s, '.'))
			return false;
		double bytes = floor(v * units[i].factor);
		if (bytes >= 18446744073709551616.0)
			return false;
		*out = (uint64_t)bytes;
		return true;
	}
	return false;
}

/* A percentage: "2", "2.5%". */
static bool parse_percent(const char *s, double *out)
{
	const char *end;
	double v;

	if (!s || !tsb_parse_decimal(s, &v, &end))
		return false;
	if (*end == '%')
		end++;
	if (*end)
		return false;
	*out = v;
	return true;
}

/* A cycle count written "N cycles" or "Ncycles". */
static bool parse_cycles(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == s)
		return false;
	if (*p == ' ')
		p++;
	*out = v;
	return strcasecmp(p, "cycles") == 0;
}

/*
 * Adds or replaces one limit. Which absolute amounts a value may give
 * follows the unit of what is limited: bytes for memory, cycles for
 * cycles; anything else (FLOPs, counts) takes a percentage only, so that
 * "--max-increase=cycles.total:1MB" is an error, not a million cycles.
 */
static int limits_set(tsr_compare_limits *limits, const char *option, const char *metric,
                      const char *value)
{
	tsr_limit l = {0};
	bool generic = strcmp(option, "max-increase") == 0;
	bool bytes_ok = strcmp(option, "max-memory-increase") == 0 ||
	                strcmp(option, "max-category-increase") == 0 ||
	                (generic && strncmp(metric, "memory.", 7) == 0);
	bool cycles_ok = strcmp(option, "max-cycles-increase") == 0 ||
	                 (generic && strncmp(metric, "cycles.", 7) == 0);
	double pct;
	uint64_t amount;

	if (strcmp(option, "fail-on-oom") == 0) {
		l.kind = TSR_LIMIT_CEILING;
		l.amount = 0;
		value = ""; /* no threshold to show: "--fail-on-oom" */
	} else if (strcmp(option, "max-tile-memory") == 0) {
		if (!value || !parse_bytes(value, &amount))
			return set_err(limits, TSR_ERR_INVALID_ARGUMENT,
			               "--%s wants a byte size (512, 600KB, 1.5MiB), not '%s'", option,
			               value ? value : "");
		l.kind = TSR_LIMIT_CEILING;
		l.amount = amount;
	} else if (value && parse_percent(value, &pct)) {
		l.kind = TSR_LIMIT_PERCENT;
		l.percent = pct;
	} else if (value && bytes_ok && parse_bytes(value, &amount)) {
		l.kind = TSR_LIMIT_INCREASE;
		l.amount = amount;
	} else if (value && cycles_ok && parse_cycles(value, &amount)) {
		l.kind = TSR_LIMIT_INCREASE;
		l.amount = amount;
	} else {
		return set_err(limits, TSR_ERR_INVALID_ARGUMENT, "--%s%s%s wants %s, not '%s'", option,
		               generic ? " on " : "", generic ? metric : "",
		               bytes_ok    ? "a percentage (2, 2.5%) or a byte size (64KiB, 1MB)"
		               : cycles_ok ? "a percentage (1, 2.5%) or a cycle count (500cycles)"
		                           : "a percentage (1, 2.5%)",
		               value ? value : "");
	}
	char *opt = tsb_strdup(option), *met = tsb_strdup(metric), *thr = tsb_strdup(value);
	l.option = opt;
	l.metric = met;
	l.threshold = thr;
	if (!opt || !met || !thr)
		goto no_memory;
	/* The same option on the same metric again replaces it: the command
	 * line overrides the limits file. */
	for (size_t i = 0; i < limits->n; i++) {
		tsr_limit *o = &limits->items[i];
		if (strcmp(o->option, l.option) == 0 && strcmp(o->metric, l.metric) == 0) {
			tsb_free((char *)o->option);
			tsb_free((char *)o->metric);
			tsb_free((char *)o->threshold);
			*o = l;
			return TSR_OK;
		}
	}
	if (limits->n == limits->cap) {
		size_t cap = limits->cap ? limits->cap * 2 : 8;
		tsr_limit *items = tsb_reallocarray(limits->items, cap, sizeof(*items));
		if (!items)
			goto no_memory;
		limits->items = items;
		limits->cap = cap;
	}
	limits->items[limits->n++] = l;
	return TSR_OK;
no_memory:
	tsb_free(opt);
	tsb_free(met);
	tsb_free(thr);
	return set_err(limits, TSR_ERR_NO_MEMORY, "out of memory");
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

TSR_API int tsr_compare_limits_new(tsr_compare_limits **out)
{
	*out = tsb_calloc(1, sizeof(**out));
	return *out ? TSR_OK : TSR_ERR_NO_MEMORY;
}

/* Adds what one option means (compare.h): the metrics it checks, and for
 * the NAME:VALUE options the name checked first. */
TSR_API int tsr_compare_limits_set_option(tsr_compare_limits *limits, const char *option,
                                  const char *value)
{
	char metric[512];

	limits->error[0] = '\0';
	if (!option)
		return set_err(limits, TSR_ERR_INVALID_ARGUMENT, "no limit option given");
	if (strcmp(option, "max-memory-increase") == 0) {
		int rc = limits_set(limits, option, "memory.total_including_gaps", value);
		return rc ? rc : limits_set(limits, option, "memory.total", value);
	}
	if (strcmp(option, "max-cycles-increase") == 0)
		return limits_set(limits, option, "cycles.total", value);
	if (strcmp(option, "max-tile-memory") == 0)
		return limits_set(limits, option, "memory.max_tile", value);
	if (strcmp(option, "fail-on-oom") == 0)
		return limits_set(limits, option, "memory.oom_tiles", NULL);
	if (strcmp(option, "max-category-increase") == 0 || strcmp(option, "max-increase") == 0) {
		const char *colon = value ? strrchr(value, ':') : NULL;
		bool category = option[4] == 'c';
		size_t len = colon ? (size_t)(colon - value) : 0;

		if (!colon || len == 0 || len >= 400)
			return set_err(limits, TSR_ERR_INVALID_ARGUMENT, "--%s wants %s:VALUE, not '%s'",
			               option, category ? "CATEGORY" : "METRIC", value ? value : "");
		if (category) {
			snprintf(metric, sizeof(metric), "memory.category.%.*s", (int)len, value);
			if (!is_category(metric + strlen("memory.category."))) {
				char names[2048];
				list_categories(names, sizeof(names));
				return set_err(limits, TSR_ERR_INVALID_ARGUMENT,
				               "--%s: '%.*s' is not a memory category (they are: %s)",
				               option, (int)len, value, names);
			}
		} else {
			snprintf(metric, sizeof(metric), "%.*s", (int)len, value);
		}
		return limits_set(limits, option, metric, colon + 1);
	}
	return set_err(limits, TSR_ERR_INVALID_ARGUMENT, "unknown limit --%s", option);
}

TSR_API const char *tsr_compare_limits_get_error(const tsr_compare_limits *limits)
{
	return limits ? limits->error : "";
}

TSR_API size_t tsr_compare_limits_get_count(const tsr_compare_limits *limits)
{
	return limits ? limits->n : 0;
}

TSR_API const tsr_limit *tsr_compare_limits_get_limit(const tsr_compare_limits *limits, size_t i)
{
	return limits && i < limits->n ? &limits->items[i] : NULL;
}

/* The limit spelt as its option (compare.h): the options that take
 * NAME:VALUE show the name again, so that a message alone says which
 * limit it was. */
TSR_API const char *tsr_limit_fill_option(const tsr_limit *limit, char *buf, size_t size)
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

/* The pass/fail rule (compare.h). A percentage is compared in doubles:
 * the rounding of values above 2^53 is far below any percentage a limit
 * can state. */
TSR_API bool tsr_limit_get_passed(const tsr_limit *limit, bool in_base, uint64_t base, bool in_new,
                          uint64_t new_value)
{
	if (!in_new)
		return true; /* gone from the new report: nothing grew */
	if (!in_base)
		base = 0;
	switch (limit->kind) {
	case TSR_LIMIT_CEILING:
		return new_value <= limit->amount;
	case TSR_LIMIT_INCREASE:
		return new_value <= base || new_value - base <= limit->amount;
	case TSR_LIMIT_PERCENT:
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
	tsr_metric_group group;
} group_prefixes[] = {
	{"cycles.run.", TSR_GROUP_RUN},
	{"steps.run.", TSR_GROUP_RUN},
	{"memory.category.", TSR_GROUP_CATEGORY},
	{"cycles.step_type.", TSR_GROUP_STEP_TYPE},
	{"cycles.vertex_type.", TSR_GROUP_VERTEX_TYPE},
	{"memory.vertex_type.", TSR_GROUP_VERTEX_TYPE},
	{"cycles.operation.", TSR_GROUP_OPERATION},
	{"flops.operation.", TSR_GROUP_OPERATION},
	{"memory.operation.", TSR_GROUP_OPERATION},
	{"cycles.compute_set.", TSR_GROUP_COMPUTE_SET},
	{"memory.compute_set.", TSR_GROUP_COMPUTE_SET},
	{"memory.variable.", TSR_GROUP_VARIABLE},
	{"cycles.program.", TSR_GROUP_PROGRAM},
};

TSR_API tsr_metric_group tsr_metric_get_group(const char *metric)
{
	for (size_t i = 0; metric && i < sizeof(group_prefixes) / sizeof(group_prefixes[0]); i++)
		if (strncmp(metric, group_prefixes[i].prefix, strlen(group_prefixes[i].prefix)) == 0)
			return group_prefixes[i].group;
	return TSR_GROUP_TOTAL;
}

/* Checks every limit against the deltas found through `lookup`
 * (compare.h); the error cases are there. */
TSR_API int tsr_compare_limits_list_checks_from(tsr_limit_check **out, size_t *n,
                                        tsr_compare_limits *limits, tsr_delta_lookup_cb lookup,
                                        const void *ctx)
{
	tsr_limit_check *checks = tsb_calloc(limits->n + 1, sizeof(*checks));
	int rc = TSR_ERR_INVALID_ARGUMENT;

	*out = NULL;
	*n = 0;
	limits->error[0] = '\0';
	if (!checks)
		return set_err(limits, TSR_ERR_NO_MEMORY, "out of memory");
	for (size_t i = 0; i < limits->n; i++) {
		const tsr_limit *l = &limits->items[i];
		const tsr_delta *d = lookup(ctx, l->metric);

		if (!d || (!d->in_base && !d->in_new)) {
			set_err(limits, rc,
			        "--%s: metric '%s' is in neither report (the metrics are listed by "
			        "'tilescope diff --format=json')",
			        l->option, l->metric);
			goto cleanup;
		}
		if ((!d->in_base || !d->in_new) && tsr_metric_get_group(l->metric) == TSR_GROUP_TOTAL) {
			/* A total one side lacks is not a change but a report
			 * without runs (execution figures) or an IPU fewer. */
			bool execution = strncmp(l->metric, "cycles.", 7) == 0 ||
			                 strncmp(l->metric, "flops.", 6) == 0 ||
			                 strncmp(l->metric, "steps.", 6) == 0;
			set_err(limits, rc,
			        "--%s: metric '%s' is only in the %s report, so it cannot be compared%s%s%s",
			        l->option, l->metric, d->in_base ? "base" : "new",
			        execution ? " (does the " : "", execution ? (d->in_base ? "new" : "base") : "",
			        execution ? " report keep no runs?)" : "");
			goto cleanup;
		}
		checks[i] = (tsr_limit_check){l, d->in_base ? d->base : 0, d->in_new ? d->new_value : 0,
		                              d->in_base, d->in_new, false};
		checks[i].passed = tsr_limit_get_passed(l, d->in_base, d->base, d->in_new, d->new_value);
	}
	*out = checks;
	*n = limits->n;
	checks = NULL;
	rc = TSR_OK;
cleanup:
	tsb_free(checks);
	return rc;
}

/* tsr_comparison_lookup_delta as a tsr_delta_lookup_cb. */
static const tsr_delta *comparison_lookup_cb(const void *ctx, const char *metric)
{
	return tsr_comparison_lookup_delta(ctx, metric);
}

TSR_API int tsr_compare_limits_list_checks(tsr_limit_check **out, size_t *n, tsr_compare_limits *limits,
                                   const tsr_comparison *cmp)
{
	return tsr_compare_limits_list_checks_from(out, n, limits, comparison_lookup_cb, cmp);
}

/* Frees the limits; NULL is accepted. */
TSR_API void tsr_compare_limits_free(tsr_compare_limits *limits)
{
	if (!limits)
		return;
	for (size_t i = 0; i < limits->n; i++) {
		tsb_free((char *)limits->items[i].option);
		tsb_free((char *)limits->items[i].metric);
		tsb_free((char *)limits->items[i].threshold);
	}
	tsb_free(limits->items);
	tsb_free(limits);
}
