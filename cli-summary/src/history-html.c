/*
 * `tilescope history report STORE -o trends.html`: one page in the style
 * of the CI pages (html.h) with a line chart per chosen series of the
 * store (a metric's runs of one label, as `history changes` walks them)
 * over its commits, oldest left, its change points marked on it and
 * listed in a table under it; then a table of every series with its
 * latest value and number of changes.
 *
 * Which series: by default every one with a change point, the largest
 * relative change first (a change from 0 the largest of all); with
 * --metric, every series of the metrics matched, by name. At most
 * MAX_CHARTS either way, and the page says which. The store is read
 * once (tsr_history_query_series); a series is kept whole only while it
 * is among the charts (a few MB at most), the others leave a table row.
 *
 * The page embeds {store, branch, label, last, selection, series,
 * charts, changes}: "changes" holds the objects `history changes
 * --format json` prints for the charted series (chart by chart), so a
 * store whose every metric changed a hundred times does not embed them
 * all; "series" the table's rows. Every figure shown points into it.
 */
#define _GNU_SOURCE
#include "history-html.h"

#include "cmd-history-changes.h"
#include "html.h"

#include <tilescope/numfmt.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Charts on one page at most. */
#define MAX_CHARTS 24
#define MAX_CHARTS_TEXT "24"

/* One series of the store: a row of the table of all. */
typedef struct row {
	char *metric, *label;
	tsr_metric_unit unit;
	bool noisy;
	size_t commits, n_changes;
	double latest;             /* the newest commit's value (noisy: median) */
	double score;              /* the largest |relative| change; INFINITY
	                              from 0; -1 without a change */
	long chart;                /* its chart, -1 none */
} row;

/* A charted series, kept whole. */
typedef struct chart {
	size_t row;
	cli_history_series s;      /* s.commit points into `commits` */
	char **commits;            /* s.n, owned */
	tsr_change_point *changes;
	size_t n_changes;
} chart;

/* What the walk over the store keeps. */
typedef struct report {
	const cli_history_report_args *a;
	char **names;              /* the metrics --metric matched, sorted; NULL: all */
	size_t n_names;
	row *rows;
	size_t n_rows, cap_rows, n_changed;
	chart charts[MAX_CHARTS];
	size_t n_charts;
	bool failed;               /* said why */
} report;

static void chart_free(chart *c)
{
	for (size_t i = 0; c->commits && i < c->s.n; i++)
		free(c->commits[i]);
	free(c->commits);
	cli_history_series_free(&c->s);
	free(c->changes);
	memset(c, 0, sizeof(*c));
}

/* Whether row x comes before row y among the charts: by name with
 * --metric, else by the largest relative change, then by name. */
static bool row_before(const report *r, const row *x, const row *y)
{
	int by_name = strcmp(x->metric, y->metric);

	if (!r->names && x->score != y->score)
		return x->score > y->score;
	return by_name ? by_name < 0 : strcmp(x->label, y->label) < 0;
}

static int name_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The newest `last` runs of `label` among the points (newest first):
 * how many of the points hold them (0: all). */
static size_t cut_last(const tsr_history_point *p, size_t n, const char *label, size_t last)
{
	size_t runs = 0;
	int64_t run = 0;

	for (size_t k = 0; last && k < n; k++) {
		if (strcmp(p[k].run.label ? p[k].run.label : "", label))
			continue;
		if (runs == 0 || p[k].run.id != run)
			runs++, run = p[k].run.id;
		if (runs > last)
			return k;
	}
	return n;
}

static int double_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The median of v[0..n) into *out; false when out of memory. */
static bool median(double *out, const double *v, size_t n)
{
	double *w = malloc((n ? n : 1) * sizeof(*w));

	if (!w)
		return false;
	memcpy(w, v, n * sizeof(*w));
	qsort(w, n, sizeof(*w), double_cmp);
	*out = !n ? NAN : n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
	free(w);
	return true;
}

/* Makes `s` and its changes `c` chart `slot`, which owns them from now
 * on (*s is emptied), copying its commits (borrowed from the points);
 * false when out of memory. */
static bool keep_chart(chart *slot, size_t row_index, cli_history_series *s, tsr_change_point *c,
                       size_t n_changes)
{
	chart_free(slot);
	slot->row = row_index;
	slot->s = *s;
	*s = (cli_history_series){0};
	slot->changes = c;
	slot->n_changes = n_changes;
	slot->commits = calloc(slot->s.n ? slot->s.n : 1, sizeof(*slot->commits));
	if (!slot->commits)
		return false;
	for (size_t i = 0; i < slot->s.n; i++)
		if (!(slot->s.commit[i] = slot->commits[i] = strdup(slot->s.commit[i])))
			return false;
	return true;
}

/* One label's series of metric `m`: its row, and a chart while it is
 * among the first MAX_CHARTS. */
static int add_series(report *r, const tsr_history_metric *m, const tsr_history_point *p,
                      size_t n, const char *label)
{
	cli_history_series s = {0};
	tsr_change_point *c = NULL;
	size_t n_changes = 0, keep = cut_last(p, n, label, r->a->last);
	row *x;
	int rc = TSR_ERR_NO_MEMORY;

	if (!cli_history_series_fill(&s, p, keep, label))
		goto out;
	if (s.n == 0) {
		rc = TSR_OK;
		goto out;
	}
	tsr_series series = {s.n, s.offsets, s.values, !m->noisy};
	if ((rc = tsr_series_list_changes(&c, &n_changes, &series, NULL)) != TSR_OK)
		goto out;
	rc = TSR_ERR_NO_MEMORY;
	if (r->n_rows == r->cap_rows) {
		size_t cap = r->cap_rows ? 2 * r->cap_rows : 64;
		row *rows = realloc(r->rows, cap * sizeof(*rows));
		if (!rows)
			goto out;
		r->rows = rows;
		r->cap_rows = cap;
	}
	x = &r->rows[r->n_rows++];
	*x = (row){.unit = m->unit, .noisy = m->noisy, .commits = s.n, .n_changes = n_changes,
	           .score = n_changes ? 0 : -1, .chart = -1};
	x->metric = strdup(m->name);
	x->label = strdup(label);
	if (!x->metric || !x->label)
		goto out;
	x->latest = s.values[s.offsets[s.n - 1]];
	if (m->noisy && !median(&x->latest, s.values + s.offsets[s.n - 1],
	                        s.offsets[s.n] - s.offsets[s.n - 1]))
		goto out;
	for (size_t k = 0; k < n_changes; k++)
		x->score = fmax(x->score, isnan(c[k].relative) ? INFINITY : fabs(c[k].relative));
	r->n_changed += n_changes > 0;
	/* A chart: any series matched by --metric, else one that changed;
	 * when all are taken, in place of the last of them. */
	if (!r->names && !n_changes) {
		rc = TSR_OK;
		goto out;
	}
	size_t slot = r->n_charts, worst = 0;
	if (slot == MAX_CHARTS) {
		for (size_t k = 1; k < MAX_CHARTS; k++)
			if (row_before(r, &r->rows[r->charts[worst].row], &r->rows[r->charts[k].row]))
				worst = k;
		if (!row_before(r, x, &r->rows[r->charts[worst].row])) {
			rc = TSR_OK;
			goto out;
		}
		slot = worst;
	} else
		r->n_charts++;
	rc = keep_chart(&r->charts[slot], r->n_rows - 1, &s, c, n_changes) ? TSR_OK
	                                                                     : TSR_ERR_NO_MEMORY;
	c = NULL;
out:
	cli_history_series_free(&s);
	free(c);
	return rc;
}

/* The series of one metric (tsr_history_series_cb): each label's. */
static int metric_series(void *ctx, const tsr_history_metric *m, const tsr_history_point *p,
                         size_t n)
{
	report *r = ctx;
	const char *label = NULL;
	int rc = TSR_OK;

	if (r->names && !bsearch(&m->name, r->names, r->n_names, sizeof(*r->names), name_cmp))
		return TSR_OK;
	while (rc == TSR_OK && (label = cli_history_next_label(p, n, label)))
		rc = add_series(r, m, p, n, label);
	if (rc != TSR_OK) {
		cli_error("%s: %s", m->name, rc == TSR_ERR_NO_MEMORY ? "out of memory" : tsr_error_name(rc));
		r->failed = true;
	}
	return rc;
}

/* The diff's JSON word of a unit, and the page's. */
static const char *unit_key(tsr_metric_unit unit)
{
	static const char *const keys[] = {"bytes", "cycles", "tiles", "count", "flops"};

	return (unsigned)unit < sizeof(keys) / sizeof(keys[0]) ? keys[unit] : "count";
}

static cli_html_unit html_unit(tsr_metric_unit unit)
{
	return unit == TSR_UNIT_BYTES ? CLI_HTML_BYTES : unit == TSR_UNIT_CYCLES ? CLI_HTML_CYCLES
	                                                                        : CLI_HTML_COUNT;
}

/* `pointer`, or NULL when `name` holds a control character: the page
 * writes those as U+FFFD (html.h), so the text is not the JSON's. */
static const char *name_pointer(const char *name, const char *pointer)
{
	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		if (*s < 0x20 || *s == 0x7f)
			return NULL;
	return pointer;
}

/* "metric" or "metric [label]", malloc'd. */
static char *series_title(const row *x)
{
	char *t = NULL;

	if (asprintf(&t, "%s%s%s%s", x->metric, *x->label ? " [" : "", x->label,
	             *x->label ? "]" : "") < 0)
		return NULL;
	return t;
}

/* A change's commits as the text output writes them: "abc123def456" or
 * "abc123def456..0123456789ab". */
static void change_where(char buf[64], const chart *ch, const tsr_change_point *c)
{
	if (c->first == c->last)
		snprintf(buf, 64, "%.12s", ch->s.commit[c->commit]);
	else
		snprintf(buf, 64, "%.12s..%.12s", ch->s.commit[c->first], ch->s.commit[c->last]);
}

/* A relative change as a percentage with two decimals ("-1.25%"). */
static const char *fmt_relative(char buf[32], double rel)
{
	snprintf(buf, 32, "%.2f%%", rel * 100);
	return buf;
}

/* The hover of a change on its chart. Malloc'd; NULL when out of memory. */
static char *change_hover(const chart *ch, bool noisy, const tsr_change_point *c)
{
	char where[64], b[48], a[48], d[48], rel[32] = "", p[48] = "", *t = NULL;

	change_where(where, ch, c);
	if (!isnan(c->relative))
		snprintf(rel, sizeof(rel), ", %+.2f%%", c->relative * 100);
	if (noisy)
		snprintf(p, sizeof(p), "\nMann\xE2\x80\x93Whitney p %.4f", c->p_value);
	if (asprintf(&t, "%s %s %s (%zu commit%s)\n%s \xE2\x86\x92 %s (%s%s%s)%s",
	             c->verdict == TSR_CHANGE_UNSURE ? "Unsure, rerun:" : "Changed",
	             c->first == c->last ? "at" : "within", where, c->last - c->first + 1,
	             c->first == c->last ? "" : "s", cli_history_fmt_value(b, c->before),
	             cli_history_fmt_value(a, c->after), c->change < 0 ? "-" : "+",
	             cli_history_fmt_value(d, fabs(c->change)), rel, p) < 0)
		return NULL;
	return t;
}

/* One chart and the table of its changes; `first` is the index of its
 * first change in the document's "changes". */
static bool write_chart(cli_html *h, const report *r, size_t k, size_t first)
{
	const chart *ch = &r->charts[k];
	const row *x = &r->rows[ch->row];
	static const char *const heads[] = {"Commit", "Commits", "Before", "After", "Change",
	                                    "Relative", "p", "Verdict"};
	static const bool numeric[] = {false, true, true, true, true, true, true, false};
	char id[32], ptr[64], buf[48], nb[32], cb[32], *title = series_title(x), *chart_title = NULL, *desc = NULL;
	const char **names = calloc(ch->s.n ? ch->s.n : 1, sizeof(*names));
	char **owned = calloc(ch->s.n ? ch->s.n : 1, sizeof(*owned));
	cli_html_mark *marks = calloc(ch->n_changes ? ch->n_changes : 1, sizeof(*marks));
	size_t i;
	bool ok = false;

	if (!title || !names || !owned || !marks ||
	    asprintf(&chart_title, "%zu. %s", k + 1, title) < 0 ||
	    asprintf(&desc, "%s over %s commit%s, oldest left: %s change%s marked", title,
	             tsb_format_u64(nb, sizeof(nb), ch->s.n), ch->s.n == 1 ? "" : "s",
	             tsb_format_u64(cb, sizeof(cb), ch->n_changes), ch->n_changes == 1 ? "" : "s") < 0)
		goto out;
	for (i = 0; i < ch->s.n; i++) {
		if (asprintf(&owned[i], "Commit %.12s%s%s%s", ch->s.commit[i], *x->label ? " [" : "",
		             x->label, *x->label ? "]" : "") < 0) {
			owned[i] = NULL;
			goto out;
		}
		names[i] = owned[i];
	}
	for (i = 0; i < ch->n_changes; i++) {
		const tsr_change_point *c = &ch->changes[i];

		marks[i] = (cli_html_mark){c->commit, c->first, c->last, c->verdict == TSR_CHANGE_UNSURE,
		                           change_hover(ch, x->noisy, c)};
		if (!marks[i].text)
			goto out;
	}
	snprintf(id, sizeof(id), "chart-%zu", k + 1);
	cli_html_chart_trend(h, id, chart_title, desc, "Commit", html_unit(x->unit), ch->s.values,
	                     ch->s.offsets, ch->s.n, names, marks, ch->n_changes);
	free(chart_title);
	if (asprintf(&chart_title, "Changes of %s", title) < 0)
		goto out;
	cli_html_table_begin(h, chart_title, x->noisy ? 8 : 6, heads, numeric);
	for (i = 0; i < ch->n_changes; i++) {
		const tsr_change_point *c = &ch->changes[i];
		size_t j = first + i;
		char where[64], change[56];

		change_where(where, ch, c);
		cli_html_row_begin(h);
		cli_html_cell(h, where, NULL);
		snprintf(ptr, sizeof(ptr), "/changes/%zu/commitsInRange", j);
		cli_html_cell_u64(h, c->last - c->first + 1, ptr);
		snprintf(ptr, sizeof(ptr), "/changes/%zu/before", j);
		cli_html_cell_num(h, cli_history_fmt_value(buf, c->before), c->before, ptr);
		snprintf(ptr, sizeof(ptr), "/changes/%zu/after", j);
		cli_html_cell_num(h, cli_history_fmt_value(buf, c->after), c->after, ptr);
		snprintf(ptr, sizeof(ptr), "/changes/%zu/change", j);
		cli_history_fmt_value(buf, fabs(c->change));
		snprintf(change, sizeof(change), "%s%s", c->change < 0 ? "-" : "", buf);
		cli_html_cell_num(h, change, c->change, ptr);
		if (isnan(c->relative))
			cli_html_cell_num(h, "from 0", INFINITY, NULL);
		else {
			snprintf(ptr, sizeof(ptr), "/changes/%zu/relative", j);
			cli_html_cell_num(h, fmt_relative(buf, c->relative), c->relative, ptr);
		}
		if (x->noisy) {
			snprintf(ptr, sizeof(ptr), "/changes/%zu/pValue", j);
			snprintf(buf, sizeof(buf), "%.4f", c->p_value);
			cli_html_cell_num(h, buf, c->p_value, ptr);
			snprintf(ptr, sizeof(ptr), "/changes/%zu/verdict", j);
			cli_html_cell(h, tsr_change_verdict_get_name(c->verdict), ptr);
		}
		cli_html_row_end(h);
	}
	cli_html_table_end(h);
	ok = true;
out:
	for (i = 0; owned && i < ch->s.n; i++)
		free(owned[i]);
	for (i = 0; marks && i < ch->n_changes; i++)
		free((char *)marks[i].text);
	free(owned);
	free(names);
	free(marks);
	free(title);
	free(chart_title);
	free(desc);
	return ok;
}

/* The unit's word after a value in the table ("B", "cycles"). */
static const char *unit_text(tsr_metric_unit unit)
{
	static const char *const names[] = {" B", " cycles", " tiles", "", " flops"};

	return (unsigned)unit < sizeof(names) / sizeof(names[0]) ? names[unit] : "";
}

/* The table of every series (a column of labels when one has a label):
 * a row of a few cells each, as a store may hold thousands of metrics. */
static void write_series_table(cli_html *h, const report *r)
{
	static const char *const heads[] = {"Label", "Metric", "Commits", "Latest", "Changes",
	                                    "Largest change", "Chart"};
	static const bool numeric[] = {false, false, true, true, true, true, true};
	bool labels = false;
	char ptr[64], buf[48], text[64];

	for (size_t i = 0; i < r->n_rows; i++)
		labels |= *r->rows[i].label != 0;
	cli_html_table_begin(h, "Every series: its latest value and number of changes", 7 - !labels,
	                     heads + !labels, numeric + !labels);
	for (size_t i = 0; i < r->n_rows; i++) {
		const row *x = &r->rows[i];

		cli_html_row_begin(h);
		if (labels) {
			snprintf(ptr, sizeof(ptr), "/series/%zu/label", i);
			cli_html_cell(h, x->label, name_pointer(x->label, ptr));
		}
		snprintf(ptr, sizeof(ptr), "/series/%zu/metric", i);
		cli_html_cell(h, x->metric, name_pointer(x->metric, ptr));
		snprintf(ptr, sizeof(ptr), "/series/%zu/commits", i);
		cli_html_cell_u64(h, x->commits, ptr);
		snprintf(ptr, sizeof(ptr), "/series/%zu/latest", i);
		snprintf(text, sizeof(text), "%s%s", cli_history_fmt_value(buf, x->latest),
		         unit_text(x->unit));
		cli_html_cell_num(h, text, x->latest, ptr);
		snprintf(ptr, sizeof(ptr), "/series/%zu/changes", i);
		cli_html_cell_u64(h, x->n_changes, ptr);
		snprintf(ptr, sizeof(ptr), "/series/%zu/largestRelative", i);
		if (x->score < 0)
			cli_html_cell_num(h, "", -1, NULL);
		else if (isinf(x->score))
			cli_html_cell_num(h, "from 0", INFINITY, NULL);
		else
			cli_html_cell_num(h, fmt_relative(buf, x->score), x->score, ptr);
		snprintf(ptr, sizeof(ptr), "/series/%zu/chart", i);
		if (x->chart < 0)
			cli_html_cell_num(h, "", 0, NULL);
		else {
			snprintf(buf, sizeof(buf), "%ld", x->chart + 1);
			cli_html_cell_num(h, buf, (double)x->chart + 1, ptr);
		}
		cli_html_row_end(h);
	}
	cli_html_table_end(h);
}

/* The embedded document (the file comment says what it holds). */
static cJSON *build_json(const report *r, const char *selection)
{
	const cli_history_report_args *a = r->a;
	cJSON *root = cJSON_CreateObject(), *series, *charts, *changes;
	bool ok = root && cli_json_put(root, "store", cli_json_str(a->store)) &&
	          cli_json_put(root, "branch", cli_json_str(a->branch)) &&
	          cli_json_put(root, "label", cli_json_str(a->label)) &&
	          cli_json_put(root, "last", a->last ? cli_json_u64(a->last) : cJSON_CreateNull()) &&
	          cli_json_put(root, "selection", cli_json_str(selection)) &&
	          cli_json_put(root, "series", series = cJSON_CreateArray()) &&
	          cli_json_put(root, "charts", charts = cJSON_CreateArray()) &&
	          cli_json_put(root, "changes", changes = cJSON_CreateArray());

	for (size_t i = 0; ok && i < r->n_rows; i++) {
		const row *x = &r->rows[i];
		cJSON *o = cJSON_CreateObject();

		ok = o && cli_json_put(series, NULL, o) &&
		     cli_json_put(o, "metric", cli_json_str(x->metric)) &&
		     cli_json_put(o, "label", cli_json_str(x->label)) &&
		     cli_json_put(o, "unit", cJSON_CreateString(unit_key(x->unit))) &&
		     cli_json_put(o, "noisy", cJSON_CreateBool(x->noisy)) &&
		     cli_json_put(o, "commits", cli_json_u64(x->commits)) &&
		     cli_json_put(o, "latest", cJSON_CreateNumber(x->latest)) &&
		     cli_json_put(o, "changes", cli_json_u64(x->n_changes)) &&
		     cli_json_put(o, "largestRelative", x->score >= 0 && isfinite(x->score)
		                                            ? cJSON_CreateNumber(x->score)
		                                            : cJSON_CreateNull()) &&
		     cli_json_put(o, "chart", x->chart < 0 ? cJSON_CreateNull()
		                                           : cli_json_u64((uint64_t)x->chart + 1));
	}
	for (size_t k = 0, first = 0; ok && k < r->n_charts; k++) {
		const chart *ch = &r->charts[k];
		const row *x = &r->rows[ch->row];
		tsr_history_metric m = {x->metric, x->unit, x->noisy};
		cJSON *o = cJSON_CreateObject();

		ok = o && cli_json_put(charts, NULL, o) &&
		     cli_json_put(o, "series", cli_json_u64(ch->row)) &&
		     cli_json_put(o, "firstChange", cli_json_u64(first)) &&
		     cli_json_put(o, "changes", cli_json_u64(ch->n_changes));
		for (size_t i = 0; ok && i < ch->n_changes; i++)
			ok = cli_history_change_json(changes, &m, x->label, &ch->s, &ch->changes[i]);
		first += ch->n_changes;
	}
	if (!ok) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

/* Orders the charts (row_before) and tells each row its chart. */
static void order_charts(report *r)
{
	for (size_t i = 1; i < r->n_charts; i++)
		for (size_t j = i; j > 0 && row_before(r, &r->rows[r->charts[j].row],
		                                       &r->rows[r->charts[j - 1].row]); j--) {
			chart t = r->charts[j];
			r->charts[j] = r->charts[j - 1];
			r->charts[j - 1] = t;
		}
	for (size_t k = 0; k < r->n_charts; k++)
		r->rows[r->charts[k].row].chart = (long)k;
}

/* What the page charts, in words (the page and its document say it). */
static char *selection_text(const report *r)
{
	const cli_history_report_args *a = r->a;
	char *t = NULL, *globs = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&globs, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < a->n_globs; i++)
		fprintf(f, "%s'%s'", i == 0 ? "" : i + 1 == a->n_globs ? " and " : ", ", a->globs[i]);
	if (fclose(f) != 0) {
		free(globs);
		return NULL;
	}
	size_t candidates = r->names ? r->n_rows : r->n_changed;
	char rows[32], changed[32];
	int n = r->names
	            ? asprintf(&t, "The series of the metrics matching %s, by name: %zu chart%s of "
	                           "%s series%s.",
	                       globs, r->n_charts, r->n_charts == 1 ? "" : "s",
	                       tsb_format_u64(rows, sizeof(rows), r->n_rows),
	                       r->n_charts < candidates ? " (the first ones: at most " MAX_CHARTS_TEXT
	                                                  " charts)" : "")
	            : asprintf(&t, "Every series with a change point, the largest relative change "
	                           "first: %zu chart%s of the %s series that changed, of %s series "
	                           "in all%s.",
	                       r->n_charts, r->n_charts == 1 ? "" : "s",
	                       tsb_format_u64(changed, sizeof(changed), r->n_changed),
	                       tsb_format_u64(rows, sizeof(rows), r->n_rows),
	                       r->n_charts < candidates ? " (at most " MAX_CHARTS_TEXT " charts)" : "");
	free(globs);
	return n < 0 ? NULL : t;
}

/* The page of r's charts and rows to `out`. */
static int write_page(FILE *out, const report *r, const char *json, const char *selection)
{
	const cli_history_report_args *a = r->a;
	char subtitle[512], buf[32];
	cli_html *h;
	bool ok = true;

	snprintf(subtitle, sizeof(subtitle), "%s%s%s%s%s%s%s%s", a->store,
	         a->branch ? ", branch " : "", a->branch ? a->branch : "",
	         a->label ? ", label " : "", a->label ? a->label : "",
	         a->last ? ", the last " : "", a->last ? tsb_format_u64(buf, sizeof(buf), a->last) : "",
	         a->last ? " runs of each series" : "");
	h = cli_html_begin(out, "tilescope history", subtitle);
	if (!h)
		return -1;
	cli_html_section_begin(h, "overview", "Overview");
	cli_html_figures_begin(h, NULL);
	cli_html_figure(h, "Store", a->store, name_pointer(a->store, "/store"));
	cli_html_figure(h, "Branch", a->branch ? a->branch : "every branch",
	                a->branch ? name_pointer(a->branch, "/branch") : NULL);
	cli_html_figure(h, "Label", a->label ? a->label : "each label its own series",
	                a->label ? name_pointer(a->label, "/label") : NULL);
	cli_html_figure(h, "Series", tsb_format_u64(buf, sizeof(buf), r->n_rows), NULL);
	cli_html_figure(h, "Charts", tsb_format_u64(buf, sizeof(buf), r->n_charts), NULL);
	cli_html_figures_end(h);
	cli_html_raw(h, name_pointer(selection, "") ? "<p data-json=\"/selection\">" : "<p>");
	cli_html_textf(h, "%s", selection);
	cli_html_raw(h, "</p>\n");
	cli_html_para(h, "A deterministic figure changes exactly at one commit (or within the "
	                 "commits after a gap in its series); a noisy one within a range of commits, "
	                 "with the verdict of a Mann-Whitney test: \"changed\" or \"unsure, rerun\". "
	                 "The x axis is each commit's place in the series, oldest left.");
	cli_html_section_end(h);
	cli_html_section_begin(h, "charts", "Charts");
	if (!r->n_charts)
		cli_html_para(h, "No series changed: nothing to chart.");
	for (size_t k = 0, first = 0; ok && k < r->n_charts; k++) {
		ok = write_chart(h, r, k, first);
		first += r->charts[k].n_changes;
	}
	cli_html_section_end(h);
	cli_html_section_begin(h, "series", "Series");
	write_series_table(h, r);
	cli_html_section_end(h);
	return cli_html_end(h, json) == 0 && ok ? 0 : -1;
}

int cli_history_report(const cli_history_report_args *a)
{
	report r = {.a = a};
	tsr_history *h = NULL;
	cli_output *out = NULL;
	cJSON *doc = NULL;
	char *json = NULL, *selection = NULL;
	int status = CLI_EXIT_ERROR;

	if (tsr_history_open(&h, a->store, 0) != TSR_OK)
		return cli_error("%s", tsr_last_error());
	/* --metric: the names each pattern matches, none matching an error. */
	for (size_t g = 0; g < a->n_globs; g++) {
		tsr_history_metric *m = NULL;
		size_t n = 0;
		char **names;

		if (tsr_history_list_metrics(&m, &n, h, a->globs[g])) {
			cli_error("%s", tsr_history_error(h));
			goto out;
		}
		if (n == 0) {
			free(m);
			cli_error("%s: no metric matches '%s'", a->store, a->globs[g]);
			goto out;
		}
		names = realloc(r.names, (r.n_names + n) * sizeof(*names));
		if (!names) {
			free(m);
			cli_error("out of memory");
			goto out;
		}
		r.names = names;
		for (size_t i = 0; i < n; i++)
			r.names[r.n_names++] = strdup(m[i].name);
		free(m);
		for (size_t i = 0; i < r.n_names; i++)
			if (!r.names[i]) {
				cli_error("out of memory");
				goto out;
			}
	}
	if (r.names)
		qsort(r.names, r.n_names, sizeof(*r.names), name_cmp);
	cli_progress_begin("Reading the store");
	int rc = tsr_history_query_series(h, a->n_globs == 1 ? a->globs[0] : NULL, a->branch,
	                                  a->label, metric_series, &r);
	cli_progress_end();
	if (rc != TSR_OK) {
		if (!r.failed)
			cli_error("%s", tsr_history_error(h));
		goto out;
	}
	if (!r.n_rows) {
		cli_error("%s: no runs%s%s%s%s", a->store, a->branch ? " on branch " : "",
		          a->branch ? a->branch : "", a->label ? " labelled " : "", a->label ? a->label : "");
		goto out;
	}
	order_charts(&r);
	if (!(selection = selection_text(&r)) || !(doc = build_json(&r, selection)) ||
	    !(json = cJSON_PrintUnformatted(doc))) {
		cli_error("out of memory");
		goto out;
	}
	if (!(out = cli_output_open(a->output)))
		goto out;
	if (write_page(cli_output_stream(out), &r, json, selection) != 0) {
		bool write_failed = ferror(cli_output_stream(out)) != 0;

		cli_output_close(out, false);
		out = NULL;
		if (!write_failed)
			cli_error("%s: out of memory", cli_output_name(a->output));
		else
			cli_error("%s: cannot write", cli_output_name(a->output));
		goto out;
	}
	status = cli_output_close(out, true);
	out = NULL;
out:
	if (out)
		cli_output_close(out, false);
	for (size_t i = 0; i < r.n_rows; i++) {
		free(r.rows[i].metric);
		free(r.rows[i].label);
	}
	for (size_t k = 0; k < r.n_charts; k++)
		chart_free(&r.charts[k]);
	for (size_t i = 0; i < r.n_names; i++)
		free(r.names[i]);
	free(r.names);
	free(r.rows);
	free(selection);
	cJSON_free(json);
	cJSON_Delete(doc);
	tsr_history_free(h);
	return status;
}
