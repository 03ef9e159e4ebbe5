/*
 * `tilescope history changes STORE [--metric GLOB]`: every change point of
 * the store's metrics (tilescope/history-changes.h) with the commits that
 * made it and its size. A metric's series is its runs of one label (what
 * ran: each label is a series of its own) oldest first, the runs of one
 * commit in a row taken as samples of that commit (a noisy figure's
 * repeats, or a job run twice); deterministic figures change at
 * one commit (or within the commits after a gap in the series), noisy ones
 * within a range, with the Mann–Whitney verdict "changed" or "unsure,
 * rerun". cmd-history.c parses the command line and calls this.
 */
#include "cmd-history-changes.h"

#include "tilescope/history-changes.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cli_history_series_free(cli_history_series *s)
{
	free(s->offsets);
	free(s->values);
	free(s->commit);
}

/* A point's label, "" for none. */
static const char *label_of(const tsr_history_point *q)
{
	return q->run.label ? q->run.label : "";
}

const char *cli_history_next_label(const tsr_history_point *p, size_t n, const char *after)
{
	const char *next = NULL;

	for (size_t k = 0; k < n; k++)
		if ((!after || strcmp(label_of(&p[k]), after) > 0) &&
		    (!next || strcmp(label_of(&p[k]), next) < 0))
			next = label_of(&p[k]);
	return next;
}

bool cli_history_series_fill(cli_history_series *s, const tsr_history_point *p, size_t n,
                             const char *label)
{
	size_t *first = malloc((n + 1) * sizeof(*first));

	s->n = 0;
	s->offsets = malloc((n + 1) * sizeof(*s->offsets));
	s->values = malloc((n + 1) * sizeof(*s->values));
	s->commit = malloc((n + 1) * sizeof(*s->commit));
	if (!first || !s->offsets || !s->values || !s->commit) {
		free(first);
		return false;
	}
	s->n = tsr_history_fill_series(s->offsets, s->values, first, p, n, label);
	for (size_t i = 0; i < s->n; i++)
		s->commit[i] = p[first[i]].run.commit;
	free(first);
	return true;
}

const char *cli_history_fmt_value(char buf[48], double v)
{
	if (!(v >= 0 && v < 0x1p63)) {
		snprintf(buf, 48, "%.6g", v);
		return buf;
	}
	char frac[16] = "";
	uint64_t whole = (uint64_t)v;
	int hundredths = (int)llround((v - (double)whole) * 100);

	if (hundredths == 100)
		whole++, hundredths = 0;
	if (hundredths % 10)
		snprintf(frac, sizeof(frac), ".%02d", hundredths);
	else if (hundredths)
		snprintf(frac, sizeof(frac), ".%d", hundredths / 10);
	cli_fmt_count(buf, whole);
	strcat(buf, frac);
	return buf;
}

/* The text of one change: where, the size, and for noisy figures the test. */
static void print_text(FILE *out, const char *metric, const char *label, bool noisy,
                       const cli_history_series *s, const tsr_change_point *c)
{
	char before[48], after[48], change[48], where[96];

	if (c->first == c->last)
		snprintf(where, sizeof(where), "%.12s", s->commit[c->commit]);
	else
		snprintf(where, sizeof(where), "%.12s..%.12s (%zu commits)", s->commit[c->first],
		         s->commit[c->last], c->last - c->first + 1);
	cli_history_fmt_value(change, fabs(c->change));
	fprintf(out, "%s%s%s%s  %s  %s -> %s  %s%s", metric, *label ? " [" : "", label,
	        *label ? "]" : "", where, cli_history_fmt_value(before, c->before),
	        cli_history_fmt_value(after, c->after), c->change < 0 ? "-" : "+", change);
	if (!isnan(c->relative))
		fprintf(out, " (%+.2f %%)", c->relative * 100);
	if (noisy)
		fprintf(out, "  p %.3g  %s", c->p_value, tsr_change_verdict_get_name(c->verdict));
	fputc('\n', out);
}

/* A double for JSON: null when it is not finite (a relative size from 0). */
static cJSON *json_number(double v)
{
	return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

bool cli_history_change_json(cJSON *list, const tsr_history_metric *m, const char *label,
                             const cli_history_series *s, const tsr_change_point *c)
{
	cJSON *o = cJSON_CreateObject();

	return o && cli_json_put(list, NULL, o) && cli_json_put(o, "metric", cli_json_str(m->name)) &&
	       cli_json_put(o, "label", cli_json_str(label)) &&
	       cli_json_put(o, "noisy", cJSON_CreateBool(m->noisy)) &&
	       cli_json_put(o, "commit", cli_json_str(s->commit[c->commit])) &&
	       cli_json_put(o, "firstCommit", cli_json_str(s->commit[c->first])) &&
	       cli_json_put(o, "lastCommit", cli_json_str(s->commit[c->last])) &&
	       cli_json_put(o, "commitsInRange", cli_json_u64(c->last - c->first + 1)) &&
	       cli_json_put(o, "before", json_number(c->before)) &&
	       cli_json_put(o, "after", json_number(c->after)) &&
	       cli_json_put(o, "change", json_number(c->change)) &&
	       cli_json_put(o, "relative", json_number(c->relative)) &&
	       (!m->noisy || (cli_json_put(o, "pValue", json_number(c->p_value)) &&
	                      cli_json_put(o, "permutationP", json_number(c->permutation_p)))) &&
	       cli_json_put(o, "verdict", cJSON_CreateString(tsr_change_verdict_get_name(c->verdict)));
}

/* What the walk over the store's series carries from metric to metric. */
typedef struct changes_walk {
	bool json;
	cJSON *list;
	FILE *out;
	size_t found;
	bool failed;               /* a metric's search failed (and said so) */
} changes_walk;

/* The change points of one metric's series (tsr_history_series_cb). */
static int metric_changes(void *ctx, const tsr_history_metric *m, const tsr_history_point *p,
                          size_t n)
{
	changes_walk *w = ctx;
	int rc = TSR_OK;

	/* Each label once, by name: the first point of a label not seen
	 * before starts its series. */
	const char *this_label = NULL;
	while (rc == TSR_OK && (this_label = cli_history_next_label(p, n, this_label))) {
		tsr_change_point *c = NULL;
		cli_history_series s = {0};
		size_t n_changes = 0;
		bool ok = cli_history_series_fill(&s, p, n, this_label);
		tsr_series series = {s.n, s.offsets, s.values, !m->noisy};
		rc = ok ? tsr_series_list_changes(&c, &n_changes, &series, NULL) : TSR_ERR_NO_MEMORY;
		for (size_t k = 0; rc == TSR_OK && k < n_changes; k++) {
			if (w->json && !cli_history_change_json(w->list, m, this_label, &s, &c[k]))
				rc = TSR_ERR_NO_MEMORY;
			else if (!w->json)
				print_text(w->out, m->name, this_label, m->noisy, &s, &c[k]);
		}
		w->found += n_changes;
		free(c);
		cli_history_series_free(&s);
	}
	if (rc != TSR_OK) {
		cli_error("%s: %s", m->name,
		          rc == TSR_ERR_NO_MEMORY ? "out of memory" : tsr_error_name(rc));
		w->failed = true;
	}
	return rc;
}

int cli_history_changes(const char *store, const char *metric, const char *branch,
                        const char *label, bool json, const char *output)
{
	tsr_history *h = NULL;
	tsr_history_metric *metrics = NULL;
	size_t n_metrics = 0;
	cJSON *root = NULL;
	changes_walk w = {.json = json};
	cli_output *out = NULL;
	int status = CLI_EXIT_ERROR, rc;

	if (tsr_history_open(&h, store, 0) != TSR_OK)
		return cli_error("%s", tsr_last_error());
	if (tsr_history_list_metrics(&metrics, &n_metrics, h, metric)) {
		cli_error("%s", tsr_history_error(h));
		goto out;
	}
	if (metric && n_metrics == 0) {
		cli_error("%s: no metric matches '%s'", store, metric);
		goto out;
	}
	if (json && (!(root = cJSON_CreateObject()) || !cli_json_put(root, "store", cli_json_str(store)) ||
	             !cli_json_put(root, "changes", w.list = cJSON_CreateArray()))) {
		cli_error("out of memory");
		goto out;
	}
	if (!(out = cli_output_open(output)))
		goto out;
	w.out = cli_output_stream(out);
	rc = tsr_history_query_series(h, metric, branch, label, metric_changes, &w);
	if (rc != TSR_OK) {
		if (!w.failed)
			cli_error("%s", tsr_history_error(h));
		goto out;
	}
	if (json) {
		char *text = cJSON_Print(root);

		if (!text) {
			cli_error("out of memory");
			goto out;
		}
		fprintf(w.out, "%s\n", text);
		cJSON_free(text);
	} else if (!w.found)
		fputs("no changes\n", w.out);
	status = cli_output_close(out, true);
	out = NULL;
out:
	if (out)
		cli_output_close(out, false);
	cJSON_Delete(root);
	free(metrics);
	tsr_history_free(h);
	return status;
}
