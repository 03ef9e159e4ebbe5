/*
 * The outputs of `tilescope diff` (diff-render.h).
 *
 * Every output groups the deltas as compare.h orders them: the totals,
 * then memory by category, cycles by step type, vertex types, operations,
 * compute sets, variables and programs. The verdicts ("better",
 * "worse", "same", "changed") are reportlib's (tsr_delta_get_verdict),
 * one rule for every metric, which the Graph Analyser shows too.
 *
 * JSON keys (all integers exact; percent is a number, null when the base
 * is 0 or a side lacks the metric):
 *   base, new              the reports as named on the command line
 *   base_run, new_run      the runs compared (null: the report has none, or
 *                          runs are matched by program)
 *   programs               [{base, new, base_runs, new_runs}]: the programs
 *                          whose runs were compared (names equal when
 *                          matched by name) and the runs each side averaged
 *   notes                  [text]: the comparison fell back to the last runs;
 *                          total memory including and excluding gaps moved
 *                          apart (both are then "changed", not better/worse)
 *   regression             true when a limit is exceeded
 *   limits                 [{limit, metric, threshold, base, new, change,
 *                           percent, in_base, in_new, passed}]; limit is the
 *                           option without "--" ("max-cycles-increase"),
 *                           threshold its value as written ("" for
 *                           fail-on-oom)
 *   deltas                 [{metric, group, unit, in_base, in_new, base,
 *                           new, change, percent, verdict}] every metric,
 *                           unchanged ones included; verdict is "better",
 *                           "worse", "same" or "changed"
 */
#define _GNU_SOURCE
#include "diff-render.h"

#include "cli.h"
#include <tilescope/utf8.h>

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* --- Groups and verdicts ---------------------------------------------------------- */

/* The groups' names; the groups are compare.h's (tsr_metric_get_group). */
static const struct {
	const char *key;        /* JSON */
	const char *title;      /* text and Markdown */
} groups[TSR_N_GROUPS] = {
	{"total", "Totals"},
	{"run", "Per run of each program"},
	{"category", "Memory by category"},
	{"step_type", "Cycles by step type"},
	{"vertex_type", "By vertex type"},
	{"operation", "By operation"},
	{"compute_set", "By compute set"},
	{"variable", "By variable"},
	{"program", "By program"},
};

/* True when total memory including gaps and excluding gaps moved in
 * opposite directions (diff-render.h): reportlib's verdict rule then
 * calls the total neither better nor worse although it moved. */
bool cli_diff_memory_mixed(const tsr_comparison *cmp)
{
	const tsr_delta *in = tsr_comparison_lookup_delta(cmp, "memory.total_including_gaps");

	return in && in->in_base && in->in_new && in->change != 0 &&
	       in->verdict == TSR_VERDICT_CHANGED;
}

/* The note that says so, for every output (diff-render.h). */
const char *cli_diff_memory_mixed_note(const tsr_comparison *cmp)
{
	const tsr_delta *ex = tsr_comparison_lookup_delta(cmp, "memory.total");

	return ex->change < 0
	           ? "total memory excluding gaps went down but including gaps went up (the data "
	             "shrank, its layout grew): neither is better on its own"
	           : "total memory excluding gaps went up but including gaps went down (more data, "
	             "laid out more tightly): neither is better on its own";
}

/* A group's heading and JSON name (diff-render.h). */
const char *cli_diff_group_title(tsr_metric_group group)
{
	return groups[group].title;
}

const char *cli_diff_group_key(tsr_metric_group group)
{
	return groups[group].key;
}

/* Whether a delta is worth a row without --all. */
static bool changed(const tsr_delta *d)
{
	return d->verdict != TSR_VERDICT_SAME;
}

/* The unit as the text output prints it after a value. */
static const char *unit_name(tsr_metric_unit unit)
{
	switch (unit) {
	case TSR_UNIT_BYTES: return "B";
	case TSR_UNIT_CYCLES: return "cycles";
	case TSR_UNIT_TILES: return "tiles";
	case TSR_UNIT_FLOPS: return "flops";
	default: return "";
	}
}

/* The unit as the JSON output names it. */
static const char *unit_key(tsr_metric_unit unit)
{
	switch (unit) {
	case TSR_UNIT_BYTES: return "bytes";
	case TSR_UNIT_CYCLES: return "cycles";
	case TSR_UNIT_TILES: return "tiles";
	case TSR_UNIT_FLOPS: return "flops";
	default: return "count";
	}
}

/* --- Numbers ---------------------------------------------------------------------- */

/* "+1,234", "-56", "0". */
static const char *fmt_change(char buf[40], int64_t v)
{
	char digits[32];
	uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	snprintf(buf, 40, "%s%s", v > 0 ? "+" : v < 0 ? "-" : "", cli_fmt_count(digits, mag));
	return buf;
}

/* "+36.7%", "-5.0%", "new" (from 0), "" (unchanged). */
static const char *fmt_percent(char buf[24], const tsr_delta *d)
{
	uint64_t b = d->in_base ? d->base : 0, n = d->in_new ? d->new_value : 0;

	if (n == b)
		snprintf(buf, 24, "%s", "");
	else if (b == 0)
		snprintf(buf, 24, "%s", "new");
	else
		snprintf(buf, 24, "%+.1f%%", ((double)n - (double)b) * 100.0 / (double)b);
	return buf;
}

/* A delta's change (new - base, saturated by compare.c). */
static int64_t change_of(const tsr_delta *d)
{
	return d->change;
}

/* A limit check's base or new value for text and Markdown: the number,
 * or "none" for a side without the item (a new or removed item). */
static const char *check_value(char buf[32], bool present, uint64_t v)
{
	if (!present) {
		snprintf(buf, 32, "%s", "none");
		return buf;
	}
	return cli_fmt_count(buf, v);
}

/* new - base of a limit check, saturated like compare.h's changes. */
int64_t cli_diff_check_change(const tsr_limit_check *k)
{
	if (k->new_value >= k->base)
		return k->new_value - k->base > (uint64_t)INT64_MAX ? INT64_MAX
		                                                    : (int64_t)(k->new_value - k->base);
	return k->base - k->new_value > (uint64_t)INT64_MAX ? INT64_MIN
	                                                    : -(int64_t)(k->base - k->new_value);
}

/* |v| without the overflow of -INT64_MIN. */
static uint64_t magnitude(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* qsort order of delta pointers: larger absolute change first, then
 * compare.h's name order, which is the order of the deltas in memory
 * (tsr_comparison_get_delta points into one array). */
static int by_change_cb(const void *a, const void *b)
{
	const tsr_delta *x = *(const tsr_delta *const *)a, *y = *(const tsr_delta *const *)b;
	uint64_t mx = magnitude(change_of(x)), my = magnitude(change_of(y));

	if (mx != my)
		return mx > my ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The index of the first delta of `group` or of a later group. The
 * comparison lists its deltas group after group (compare.h), so a binary
 * search finds it: a large diff has 300,000 deltas and each output asks
 * for every group. */
static size_t group_start(const tsr_comparison *cmp, tsr_metric_group group)
{
	size_t lo = 0, hi = tsr_comparison_get_count(cmp);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tsr_metric_get_group(tsr_comparison_get_delta(cmp, mid)->metric) < group)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The deltas of one group to show (diff-render.h). */
const tsr_delta **cli_diff_select_group(const cli_diff *d, tsr_metric_group group, size_t *n,
                                        size_t *more, size_t *n_changed)
{
	size_t first = group_start(d->cmp, group), end = group_start(d->cmp, group + 1), k = 0;
	const tsr_delta **rows = malloc((end - first + 1) * sizeof(*rows));

	*n = *more = *n_changed = 0;
	if (!rows)
		return NULL;
	for (size_t i = first; i < end; i++) {
		const tsr_delta *x = tsr_comparison_get_delta(d->cmp, i);

		if (changed(x))
			(*n_changed)++;
		/* Totals and each program's run are shown whole: the cost of a
		 * run that did not change is part of the picture. */
		if (group == TSR_GROUP_TOTAL || group == TSR_GROUP_RUN || d->all || changed(x))
			rows[k++] = x;
	}
	if (group != TSR_GROUP_TOTAL && group != TSR_GROUP_RUN) {
		/* Largest absolute change first. A group may hold a large
		 * report's every variable, so not an insertion sort. */
		qsort(rows, k, sizeof(*rows), by_change_cb);
		if (d->top && k > d->top) {
			*more = k - d->top;
			k = d->top;
		}
	}
	*n = k;
	return rows;
}

/* "the limit met" / "all 3 limits met" (static storage). */
static const char *limits_met(size_t n)
{
	static char buf[48];

	if (n == 1)
		return "the limit is met";
	snprintf(buf, sizeof(buf), "all %zu limits met", n);
	return buf;
}

/* --- Text ----------------------------------------------------------------------------- */

#define GREEN "\033[32m"
#define RED "\033[31m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

/* The colour of a verdict in the text output: green better, red worse. */
static const char *colour_of(const cli_diff *d, tsr_verdict v)
{
	if (!d->colours)
		return "";
	return v == TSR_VERDICT_BETTER ? GREEN : v == TSR_VERDICT_WORSE ? RED : "";
}

/* Names from a report may hold anything; control characters must not
 * reach the terminal, so they are written as '?'. */
static void put_clean(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, out);
}

/* The header line of one report: its path and the run compared. */
static void describe_report(FILE *out, const cli_diff *d, const char *label, const char *path,
                            int64_t run, size_t runs, bool has_runs)
{
	fprintf(out, "  %s ", label);
	put_clean(out, path);
	if (d->by_program)
		fputc('\n', out);
	else if (d->program && has_runs) {
		fputs(" (program ", out);
		put_clean(out, d->program);
		if (run >= 0)
			fprintf(out, ", its run %" PRId64 ")\n", run);
		else
			fputs(", its last run)\n", out);
	} else if (run >= 0)
		fprintf(out, " (run %" PRId64 "; the report keeps %zu)\n", run, runs);
	else
		fputs(" (no runs: memory only)\n", out);
}

/* Whether a side compared any run (from the comparison's program list). */
static bool side_has_runs(const cli_diff *d, bool base)
{
	const tsr_compared_program *cp = tsr_comparison_get_program(d->cmp, 0);

	return cp && (base ? cp->base_runs : cp->new_runs) > 0;
}

/* The programs whose runs were compared, by name, with the runs each
 * side averaged; and the notes. */
static void describe_programs(FILE *out, const cli_diff *d)
{
	size_t n = tsr_comparison_get_program_count(d->cmp), width = 8;

	if (d->fell_back)
		fputs("  runs: no program has runs in both reports; the last run of each is "
		      "compared\n", out);
	if (d->by_program && n) {
		fputs("  runs matched by program (each program's kept runs averaged):\n", out);
		for (size_t i = 0; i < n; i++) {
			const tsr_compared_program *cp = tsr_comparison_get_program(d->cmp, i);
			if (strlen(cp->base_name) > width)
				width = strlen(cp->base_name) < 60 ? strlen(cp->base_name) : 60;
		}
		for (size_t i = 0; i < n; i++) {
			const tsr_compared_program *cp = tsr_comparison_get_program(d->cmp, i);
			fputs("    ", out);
			put_clean(out, cp->base_name);
			for (size_t k = strlen(cp->base_name); k < width; k++)
				fputc(' ', out);
			fprintf(out, "  base %zu run%s, new %zu run%s\n", cp->base_runs,
			        cp->base_runs == 1 ? "" : "s", cp->new_runs, cp->new_runs == 1 ? "" : "s");
		}
	}
	if (cli_diff_memory_mixed(d->cmp))
		fprintf(out, "  note: %s\n", cli_diff_memory_mixed_note(d->cmp));
}

/* One delta as a text row: metric, base, new, unit, change, percent, word;
 * a side without the item says "(only in ...)". */
static void text_row(FILE *out, const cli_diff *d, const tsr_delta *x, size_t width)
{
	char b[32], n[32], c[40], p[24];
	tsr_verdict v = x->verdict;
	size_t len = strlen(x->metric);

	fputs("  ", out);
	put_clean(out, x->metric);
	for (size_t i = len; i < width; i++)
		fputc(' ', out);
	if (!x->in_base)
		fprintf(out, " %15s", "(only in new)");
	else
		fprintf(out, " %15s", cli_fmt_count(b, x->base));
	if (!x->in_new)
		fprintf(out, " %15s", "(only in base)");
	else
		fprintf(out, " %15s", cli_fmt_count(n, x->new_value));
	fprintf(out, " %-6s %s%14s %8s%s  %s\n", unit_name(x->unit), colour_of(d, v),
	        fmt_change(c, change_of(x)), fmt_percent(p, x), d->colours ? RESET : "",
	        tsr_verdict_get_name(v));
}

/* The text output: the reports, the limit checks, then each group's
 * table. Returns 0, or -1 when memory ran out. */
static int render_text(FILE *out, const cli_diff *d)
{
	char b[32], n[32], c[40], lim[CLI_DIFF_LIMIT_TEXT];

	fputs("tilescope diff\n", out);
	describe_report(out, d, "base:", d->base_path, d->base_run, d->base_runs,
	                side_has_runs(d, true));
	describe_report(out, d, "new: ", d->new_path, d->new_run, d->new_runs,
	                side_has_runs(d, false));
	describe_programs(out, d);
	if (d->n_checks) {
		fputs("\nLimits:\n", out);
		for (size_t i = 0; i < d->n_checks; i++) {
			const tsr_limit_check *k = &d->checks[i];
			int64_t change = cli_diff_check_change(k);
			fprintf(out, "  %s%s%s  ", d->colours ? (k->passed ? GREEN : RED) : "",
			        k->passed ? "PASS" : "FAIL", d->colours ? RESET : "");
			put_clean(out, k->limit->metric);
			fprintf(out, ": %s -> %s (%s)  limit ", check_value(b, k->in_base, k->base),
			        check_value(n, k->in_new, k->new_value), fmt_change(c, change));
			put_clean(out, tsr_limit_fill_option(k->limit, lim, sizeof(lim)));
			fputc('\n', out);
		}
		if (d->failed)
			fprintf(out, "  %s%zu of %zu limit%s exceeded%s\n", d->colours ? BOLD RED : "",
			        d->failed, d->n_checks, d->n_checks == 1 ? "" : "s",
			        d->colours ? RESET : "");
		else
			fprintf(out, "  %s\n", limits_met(d->n_checks));
	}
	for (tsr_metric_group g = 0; g < TSR_N_GROUPS; g++) {
		size_t nrows, more, n_changed, width = 20;
		const tsr_delta **rows = cli_diff_select_group(d, g, &nrows, &more, &n_changed);

		if (!rows)
			return -1;
		if (nrows == 0) {
			free(rows);
			continue;
		}
		for (size_t i = 0; i < nrows; i++)
			if (strlen(rows[i]->metric) > width)
				width = strlen(rows[i]->metric) < 70 ? strlen(rows[i]->metric) : 70;
		if (g == TSR_GROUP_TOTAL)
			fprintf(out, "\n%s\n", groups[g].title);
		else
			fprintf(out, "\n%s: %zu changed\n", groups[g].title, n_changed);
		fprintf(out, "  %-*s %15s %15s %-6s %14s\n", (int)width, "metric", "base", "new", "",
		        "change");
		for (size_t i = 0; i < nrows; i++)
			text_row(out, d, rows[i], width);
		if (more)
			fprintf(out, "  ... and %zu more (--top 0 shows all)\n", more);
		free(rows);
	}
	return 0;
}

/* --- JSON ----------------------------------------------------------------------------- */

/* The percent change as a JSON number; null when it has none (a side
 * without the item, or a base of 0). */
static cJSON *json_percent(bool in_base, uint64_t base, bool in_new, uint64_t n)
{
	if (!in_base || !in_new || base == 0)
		return cJSON_CreateNull();
	return cJSON_CreateNumber(((double)n - (double)base) * 100.0 / (double)base);
}

/* A run number, or null for a report without runs. */
static cJSON *json_run(int64_t run)
{
	return run >= 0 ? cli_json_i64(run) : cJSON_CreateNull();
}

/* The JSON output's text (keys at the top of this file; diff-render.h):
 * every delta (or those `keep` marks), exact integers. */
char *cli_diff_json(const cli_diff *d, const bool *keep)
{
	cJSON *root = cJSON_CreateObject(), *limits, *deltas, *programs, *notes;
	bool ok = root != NULL, mixed = cli_diff_memory_mixed(d->cmp);
	char *text = NULL;

	ok = ok && cli_json_put(root, "base", cli_json_str(d->base_path)) &&
	     cli_json_put(root, "new", cli_json_str(d->new_path)) &&
	     cli_json_put(root, "base_run", json_run(d->by_program ? -1 : d->base_run)) &&
	     cli_json_put(root, "new_run", json_run(d->by_program ? -1 : d->new_run)) &&
	     cli_json_put(root, "programs", programs = cJSON_CreateArray()) &&
	     cli_json_put(root, "notes", notes = cJSON_CreateArray()) &&
	     cli_json_put(root, "regression", cJSON_CreateBool(d->failed > 0)) &&
	     cli_json_put(root, "limits", limits = cJSON_CreateArray()) &&
	     cli_json_put(root, "deltas", deltas = cJSON_CreateArray());
	for (size_t i = 0; ok && i < tsr_comparison_get_program_count(d->cmp); i++) {
		const tsr_compared_program *cp = tsr_comparison_get_program(d->cmp, i);
		cJSON *o = cJSON_CreateObject();
		ok = o && cJSON_AddItemToArray(programs, o);
		if (!ok) {
			cJSON_Delete(o);
			break;
		}
		ok = cli_json_put(o, "base", cp->base_name ? cJSON_CreateString(cp->base_name)
		                                           : cJSON_CreateNull()) &&
		     cli_json_put(o, "new", cp->new_name ? cJSON_CreateString(cp->new_name)
		                                         : cJSON_CreateNull()) &&
		     cli_json_put(o, "base_runs", cli_json_u64(cp->base_runs)) &&
		     cli_json_put(o, "new_runs", cli_json_u64(cp->new_runs));
	}
	if (ok && d->fell_back)
		ok = cJSON_AddItemToArray(notes, cJSON_CreateString(
		         "no program has runs in both reports; the last run of each is compared"));
	if (ok && mixed)
		ok = cJSON_AddItemToArray(notes, cJSON_CreateString(cli_diff_memory_mixed_note(d->cmp)));
	for (size_t i = 0; ok && i < d->n_checks; i++) {
		const tsr_limit_check *k = &d->checks[i];
		cJSON *o = cJSON_CreateObject();
		ok = o && cJSON_AddItemToArray(limits, o);
		if (!ok) {
			cJSON_Delete(o);
			break;
		}
		ok = cli_json_put(o, "limit", cJSON_CreateString(k->limit->option)) &&
		     cli_json_put(o, "metric", cJSON_CreateString(k->limit->metric)) &&
		     cli_json_put(o, "threshold", cJSON_CreateString(k->limit->threshold)) &&
		     cli_json_put(o, "base", cli_json_u64(k->base)) &&
		     cli_json_put(o, "new", cli_json_u64(k->new_value)) &&
		     cli_json_put(o, "change", cli_json_i64(cli_diff_check_change(k))) &&
		     cli_json_put(o, "percent", json_percent(k->in_base, k->base, k->in_new, k->new_value)) &&
		     cli_json_put(o, "in_base", cJSON_CreateBool(k->in_base)) &&
		     cli_json_put(o, "in_new", cJSON_CreateBool(k->in_new)) &&
		     cli_json_put(o, "passed", cJSON_CreateBool(k->passed));
	}
	for (size_t i = 0; ok && i < tsr_comparison_get_count(d->cmp); i++) {
		const tsr_delta *x = tsr_comparison_get_delta(d->cmp, i);
		cJSON *o;

		if (keep && !keep[i])
			continue;
		o = cJSON_CreateObject();
		ok = o && cJSON_AddItemToArray(deltas, o);
		if (!ok) {
			cJSON_Delete(o);
			break;
		}
		ok = cli_json_put(o, "metric", cli_json_str(x->metric)) &&
		     cli_json_put(o, "group",
		                  cJSON_CreateString(groups[tsr_metric_get_group(x->metric)].key)) &&
		     cli_json_put(o, "unit", cJSON_CreateString(unit_key(x->unit))) &&
		     cli_json_put(o, "in_base", cJSON_CreateBool(x->in_base)) &&
		     cli_json_put(o, "in_new", cJSON_CreateBool(x->in_new)) &&
		     cli_json_put(o, "base", cli_json_u64(x->in_base ? x->base : 0)) &&
		     cli_json_put(o, "new", cli_json_u64(x->in_new ? x->new_value : 0)) &&
		     cli_json_put(o, "change", cli_json_i64(x->change)) &&
		     cli_json_put(o, "percent", json_percent(x->in_base, x->base, x->in_new, x->new_value)) &&
		     cli_json_put(o, "verdict", cJSON_CreateString(tsr_verdict_get_name(x->verdict)));
	}
	if (ok)
		text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

/* The JSON output; 0, or -1 when memory ran out or a write failed. */
static int render_json(FILE *out, const cli_diff *d)
{
	char *text = cli_diff_json(d, NULL);
	int rc = text && fputs(text, out) >= 0 && fputc('\n', out) != EOF ? 0 : -1;

	cJSON_free(text);
	return rc;
}

/* --- Markdown ------------------------------------------------------------------------- */

/* Escapes a name for a Markdown table cell (diff-render.h): '|' would end
 * the cell, the other marks would format the name, '<' could open HTML. */
char *cli_markdown_escape(const char *s)
{
	size_t len = strlen(s);
	char *out = malloc(len * 5 + 1), *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		switch (*s) {
		case '|': case '\\': case '`': case '*': case '_': case '[': case ']':
			*p++ = '\\';
			*p++ = *s;
			break;
		case '<':
			memcpy(p, "&lt;", 4);
			p += 4;
			break;
		case '>':
			memcpy(p, "&gt;", 4);
			p += 4;
			break;
		case '\n': case '\r':
			*p++ = ' ';
			break;
		default:
			*p++ = (unsigned char)*s < 0x20 ? '?' : *s;
		}
	}
	*p = '\0';
	return out;
}

/* Writes `s` escaped for a table cell; false when out of memory. */
static bool md_cell(FILE *out, const char *s)
{
	char *e = cli_markdown_escape(s);

	if (!e)
		return false;
	fputs(e, out);
	free(e);
	return true;
}

/* The coloured mark after a verdict in Markdown. */
static const char *md_mark(tsr_verdict v)
{
	return v == TSR_VERDICT_BETTER ? " 🟢" : v == TSR_VERDICT_WORSE ? " 🔴" : "";
}

/* One group's rows as a Markdown table; false when out of memory. */
static bool md_delta_table(FILE *out, const tsr_delta **rows, size_t n)
{
	char b[32], nn[32], c[40], p[24];

	fputs("| Metric | Base | New | Change | |\n|---|---:|---:|---:|---|\n", out);
	for (size_t i = 0; i < n; i++) {
		const tsr_delta *x = rows[i];
		tsr_verdict v = x->verdict;
		fputs("| ", out);
		if (!md_cell(out, x->metric))
			return false;
		fprintf(out, " | %s | %s | %s %s | %s%s |\n",
		        x->in_base ? cli_fmt_count(b, x->base) : "—",
		        x->in_new ? cli_fmt_count(nn, x->new_value) : "—", fmt_change(c, change_of(x)),
		        fmt_percent(p, x), tsr_verdict_get_name(v), md_mark(v));
	}
	return true;
}

/* The Markdown output for a pull-request comment: a title with a mark,
 * the limit checks, the totals, then a collapsed section per group.
 * Returns 0, or -1 when memory ran out. */
static int render_markdown(FILE *out, const cli_diff *d)
{
	char b[32], n[32], c[40], lim[CLI_DIFF_LIMIT_TEXT];

	if (d->failed)
		fprintf(out, "## ❌ tilescope diff: %zu of %zu limit%s exceeded\n\n", d->failed,
		        d->n_checks, d->n_checks == 1 ? "" : "s");
	else if (d->n_checks)
		fprintf(out, "## ✅ tilescope diff: %s\n\n", limits_met(d->n_checks));
	else
		fputs("## tilescope diff\n\n", out);
	fputs("**Base:** ", out);
	if (!md_cell(out, d->base_path))
		return -1;
	fputs(" · **New:** ", out);
	if (!md_cell(out, d->new_path))
		return -1;
	fputs("\n\n", out);
	if (d->by_program) {
		fputs("**Runs matched by program** (kept runs averaged):", out);
		for (size_t i = 0; i < tsr_comparison_get_program_count(d->cmp); i++) {
			const tsr_compared_program *cp = tsr_comparison_get_program(d->cmp, i);
			fputs(i ? ", " : " ", out);
			if (!md_cell(out, cp->base_name))
				return -1;
			fprintf(out, " (%zu / %zu)", cp->base_runs, cp->new_runs);
		}
		fputs("\n\n", out);
	}
	if (d->fell_back)
		fputs("*No program has runs in both reports; the last run of each is "
		      "compared.*\n\n", out);
	if (cli_diff_memory_mixed(d->cmp))
		fprintf(out, "**Note:** %s\n\n", cli_diff_memory_mixed_note(d->cmp));
	if (d->n_checks) {
		fputs("| | Limit | Metric | Base | New | Change |\n|---|---|---|---:|---:|---:|\n", out);
		for (size_t i = 0; i < d->n_checks; i++) {
			const tsr_limit_check *k = &d->checks[i];
			/* Escaped text, not a code span: a backslash escape would show
			 * inside one. */
			fprintf(out, "| %s | ", k->passed ? "✅" : "❌");
			if (!md_cell(out, tsr_limit_fill_option(k->limit, lim, sizeof(lim))))
				return -1;
			fputs(" | ", out);
			if (!md_cell(out, k->limit->metric))
				return -1;
			fprintf(out, " | %s | %s | %s |\n", check_value(b, k->in_base, k->base),
			        check_value(n, k->in_new, k->new_value), fmt_change(c, cli_diff_check_change(k)));
		}
		fputc('\n', out);
	}
	for (tsr_metric_group g = 0; g < TSR_N_GROUPS; g++) {
		size_t nrows, more, n_changed;
		const tsr_delta **rows = cli_diff_select_group(d, g, &nrows, &more, &n_changed);
		bool ok;

		if (!rows)
			return -1;
		if (nrows == 0) {
			free(rows);
			continue;
		}
		if (g == TSR_GROUP_TOTAL)
			fprintf(out, "### %s\n\n", groups[g].title);
		else
			fprintf(out, "<details><summary>%s: %zu changed</summary>\n\n", groups[g].title,
			        n_changed);
		ok = md_delta_table(out, rows, nrows);
		free(rows);
		if (!ok)
			return -1;
		if (more)
			fprintf(out, "\n… and %zu more\n", more);
		fputs(g == TSR_GROUP_TOTAL ? "\n" : "\n</details>\n\n", out);
	}
	return 0;
}

/* --- JUnit XML ------------------------------------------------------------------------- */

/* The length of the well-formed UTF-8 sequence at `s` that XML 1.0
 * allows (no surrogates, no U+FFFE / U+FFFF, nothing above U+10FFFF),
 * or 0 when the bytes there are not one. */
static size_t xml_utf8_len(const unsigned char *s)
{
	uint32_t cp;
	size_t len = tsb_utf8_decode(s, SIZE_MAX, &cp);

	if (len == 0 || cp == 0xfffe || cp == 0xffff)
		return 0;
	return len;
}

/* Escapes text for XML content and attribute values (diff-render.h): the
 * five special characters as entities; control characters, which XML 1.0
 * does not allow even as references, and bytes that are not UTF-8 (a
 * name in a report or a path may be anything) as '?', so that the output
 * is always well-formed. */
char *cli_xml_escape(const char *s)
{
	size_t len = strlen(s);
	char *out = malloc(len * 6 + 1), *p = out;

	if (!out)
		return NULL;
	while (*s) {
		const char *rep = NULL;
		size_t n;

		switch (*s) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&apos;"; break;
		default: break;
		}
		if (rep) {
			memcpy(p, rep, strlen(rep));
			p += strlen(rep);
			s++;
		} else if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t' && *s != '\r') {
			*p++ = '?';
			s++;
		} else if ((n = xml_utf8_len((const unsigned char *)s)) == 0) {
			*p++ = '?';
			s++;
		} else {
			memcpy(p, s, n);
			p += n;
			s += n;
		}
	}
	*p = '\0';
	return out;
}

/* Writes `s` XML-escaped; false when out of memory. */
static bool xml_text(FILE *out, const char *s)
{
	char *e = cli_xml_escape(s);

	if (!e)
		return false;
	fputs(e, out);
	free(e);
	return true;
}

/* The JUnit XML output: one test case per limit check (a <failure> with
 * both values when exceeded), or one passing "compare" case when there
 * are no limits, so that a CI system never sees an empty report. Returns
 * 0, or -1 when memory ran out. */
static int render_junit(FILE *out, const cli_diff *d)
{
	char b[32], n[32], c[40], lim[CLI_DIFF_LIMIT_TEXT];
	size_t tests = d->n_checks ? d->n_checks : 1;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out,
	        "<testsuites name=\"tilescope diff\" tests=\"%zu\" failures=\"%zu\" errors=\"0\">\n"
	        "  <testsuite name=\"tilescope diff\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
	        "skipped=\"0\">\n    <properties>\n      <property name=\"base\" value=\"",
	        tests, d->failed, tests, d->failed);
	if (!xml_text(out, d->base_path))
		return -1;
	fputs("\"/>\n      <property name=\"new\" value=\"", out);
	if (!xml_text(out, d->new_path))
		return -1;
	fputs("\"/>\n    </properties>\n", out);
	if (d->n_checks == 0)
		fputs("    <testcase classname=\"tilescope.diff\" name=\"compare\"/>\n", out);
	for (size_t i = 0; i < d->n_checks; i++) {
		const tsr_limit_check *k = &d->checks[i];
		fputs("    <testcase classname=\"tilescope.diff\" name=\"", out);
		if (!xml_text(out, k->limit->metric))
			return -1;
		fputc(' ', out);
		if (!xml_text(out, tsr_limit_fill_option(k->limit, lim, sizeof(lim))))
			return -1;
		if (k->passed) {
			fputs("\"/>\n", out);
			continue;
		}
		fputs("\">\n      <failure type=\"regression\" message=\"", out);
		if (!xml_text(out, k->limit->metric))
			return -1;
		fprintf(out, " went from %s to %s (%s), over the limit ",
		        check_value(b, k->in_base, k->base), check_value(n, k->in_new, k->new_value),
		        fmt_change(c, cli_diff_check_change(k)));
		if (!xml_text(out, lim))
			return -1;
		fprintf(out, "\">base %s, new %s</failure>\n    </testcase>\n", b, n);
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
	return 0;
}

/* Writes the comparison in `format` (diff-render.h). */
int cli_diff_render(FILE *out, const cli_diff *d, cli_diff_format format)
{
	int rc;

	switch (format) {
	case CLI_DIFF_JSON:
		return render_json(out, d);
	case CLI_DIFF_MARKDOWN:
		rc = render_markdown(out, d);
		break;
	case CLI_DIFF_JUNIT:
		rc = render_junit(out, d);
		break;
	case CLI_DIFF_HTML:
		rc = cli_diff_render_html(out, d);
		break;
	case CLI_DIFF_OPENMETRICS:
		rc = cli_diff_render_openmetrics(out, d);
		break;
	case CLI_DIFF_TEXT:
	default:
		rc = render_text(out, d);
		break;
	}
	return rc == 0 && !ferror(out) ? 0 : -1;
}

/* The exceeded limits, one line each with both values (diff-render.h). */
void cli_diff_print_regressions(FILE *out, const cli_diff *d)
{
	for (size_t i = 0; i < d->n_checks; i++) {
		const tsr_limit_check *k = &d->checks[i];
		char b[32] = "none", n[32] = "none", lim[CLI_DIFF_LIMIT_TEXT];

		if (k->passed)
			continue;
		if (k->in_base)
			snprintf(b, sizeof(b), "%" PRIu64, k->base);
		if (k->in_new)
			snprintf(n, sizeof(n), "%" PRIu64, k->new_value);
		fprintf(out, "tilescope: regression: %s went from %s to %s, over the limit %s\n",
		        k->limit->metric, b, n, tsr_limit_fill_option(k->limit, lim, sizeof(lim)));
	}
}
