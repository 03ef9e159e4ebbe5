/*
 * `tilescope diff --format=openmetrics` (diff-render.h): the new
 * report's figures as OpenMetrics text, for GitLab's metrics report.
 * GitLab keeps each line's name (labels included) and value from the
 * merge request's pipeline and compares them with the same file from the
 * target branch's pipeline, so the file holds one sample per metric of
 * the NEW report; the base report's values are the target branch's own
 * file. A metric only in the base report has no sample (GitLab shows it
 * as removed).
 *
 * Names: a total is one gauge, "tilescope_" and its metric name with '.'
 * as '_' and its unit after ("memory.total" is tilescope_memory_total_bytes);
 * a metric of a group (compare.h's groups) is a sample of its group's
 * gauge with the item in a label ("memory.category.vertexCode" is
 * tilescope_memory_category_bytes{category="vertexCode"}). A leading
 * word equal to the unit is not said twice ("cycles.total" is
 * tilescope_total_cycles), so no name ends in a suffix OpenMetrics
 * keeps for counters (_total). Families are in name order, samples in
 * compare.h's order within them: the same input gives the same bytes.
 */
#define _GNU_SOURCE
#include "diff-render.h"

#include <tilescope/utf8.h>

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The label that holds a group's item, by tsr_metric_group (NULL for the
 * totals, which have none). */
static const char *const label_names[TSR_N_GROUPS] = {
	NULL, "program", "category", "step_type", "vertex_type", "operation", "compute_set",
	"variable", "program",
};

/* One sample: the delta and the part of its metric name that names its
 * family ("memory.category" of "memory.category.vertexCode"). */
typedef struct om_sample {
	const tsr_delta *delta;
	size_t base_len;
} om_sample;

/* The OpenMetrics unit of a metric (NULL: a plain count). The steps of
 * steps.* are counted in steps. */
static const char *unit_of(const tsr_delta *x)
{
	switch (x->unit) {
	case TSR_UNIT_BYTES: return "bytes";
	case TSR_UNIT_CYCLES: return "cycles";
	case TSR_UNIT_TILES: return "tiles";
	case TSR_UNIT_FLOPS: return "flops";
	default: return strncmp(x->metric, "steps.", 6) == 0 ? "steps" : NULL;
	}
}

/* qsort order: by family (the base of the name), then compare.h's order,
 * which is the deltas' order in memory. */
static int by_family_cb(const void *a, const void *b)
{
	const om_sample *x = a, *y = b;
	size_t n = x->base_len < y->base_len ? x->base_len : y->base_len;
	int c = memcmp(x->delta->metric, y->delta->metric, n);

	if (c)
		return c;
	if (x->base_len != y->base_len)
		return x->base_len < y->base_len ? -1 : 1;
	return x->delta < y->delta ? -1 : x->delta > y->delta;
}

/* Writes the family name of sample `s` into `buf` (room for its base
 * and a unit): "tilescope_", the base with every character outside
 * [a-zA-Z0-9_] as '_' and without a first word equal to the unit, then
 * "_" and the unit unless the name ends so already. */
static void family_name(char *buf, const om_sample *s)
{
	const char *m = s->delta->metric, *unit = unit_of(s->delta);
	size_t len = s->base_len, ulen = unit ? strlen(unit) : 0, k;
	char *p = buf + strlen(strcpy(buf, "tilescope_"));

	if (unit && len > ulen && strncmp(m, unit, ulen) == 0 && m[ulen] == '.') {
		m += ulen + 1;
		len -= ulen + 1;
	}
	for (k = 0; k < len; k++) {
		char c = m[k];
		*p++ = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c
		                                                                                  : '_';
	}
	*p = '\0';
	if (unit && !(k > ulen && p[-(ptrdiff_t)ulen - 1] == '_' && strcmp(p - ulen, unit) == 0))
		sprintf(p, "_%s", unit);
}

/* Writes a label value as OpenMetrics escapes it: '\\', '"' and newline
 * with a backslash; bytes that are not UTF-8 (a name from a report may
 * hold anything) as U+FFFD, since the text must be UTF-8. */
static void put_label_value(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		uint32_t cp;
		size_t len = tsb_utf8_decode(p, SIZE_MAX, &cp);

		if (*p == '\\' || *p == '"')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (len == 0)
			fputs("\xef\xbf\xbd", out);
		else
			fwrite(p, 1, len, out);
		p += len ? len : 1;
	}
}

/* The OpenMetrics text (the top of this file): per family its TYPE,
 * UNIT and HELP lines, then its samples; "# EOF" at the end. */
int cli_diff_render_openmetrics(FILE *out, const cli_diff *d)
{
	size_t total = tsr_comparison_get_count(d->cmp), n = 0;
	om_sample *samples = malloc((total + 1) * sizeof(*samples));
	char *family = NULL, *prev = NULL;
	size_t longest = 0;

	if (!samples)
		return -1;
	for (size_t i = 0; i < total; i++) {
		const tsr_delta *x = tsr_comparison_get_delta(d->cmp, i);
		tsr_metric_group g = tsr_metric_get_group(x->metric);
		size_t len = strlen(x->metric);

		if (!x->in_new)
			continue;
		if (g != TSR_GROUP_TOTAL)
			/* The group's prefix, without its final dot. */
			len = (size_t)(strchr(strchr(x->metric, '.') + 1, '.') - x->metric);
		samples[n++] = (om_sample){x, len};
		if (len > longest)
			longest = len;
	}
	qsort(samples, n, sizeof(*samples), by_family_cb);
	/* "tilescope_", the base, "_", a unit (the longest is "cycles"). */
	family = malloc(longest + 24);
	prev = malloc(longest + 24);
	if (!family || !prev) {
		free(samples);
		free(family);
		free(prev);
		return -1;
	}
	prev[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const om_sample *s = &samples[i];
		const tsr_delta *x = s->delta;
		const char *unit = unit_of(x), *label = label_names[tsr_metric_get_group(x->metric)];

		family_name(family, s);
		if (strcmp(family, prev) != 0) {
			fprintf(out, "# TYPE %s gauge\n", family);
			if (unit)
				fprintf(out, "# UNIT %s %s\n", family, unit);
			fprintf(out, "# HELP %s %.*s%s in the new report (tilescope diff)\n", family,
			        (int)s->base_len, x->metric, label ? ".*" : "");
			strcpy(prev, family);
		}
		fputs(family, out);
		if (label) {
			fprintf(out, "{%s=\"", label);
			put_label_value(out, x->metric + s->base_len + 1);
			fputs("\"}", out);
		}
		fprintf(out, " %" PRIu64 "\n", x->new_value);
	}
	fputs("# EOF\n", out);
	free(samples);
	free(family);
	free(prev);
	return 0;
}
