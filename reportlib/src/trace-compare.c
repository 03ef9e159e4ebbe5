/*
 * Comparing the statistics by label of two traces, or of two windows of
 * one trace (trace.h, tsr_trace_list_label_deltas). The two sides have their
 * own name and channel ids, so labels meet by text: both sides' labels
 * are sorted together by (channel, name, side) and walked once, which
 * pairs them and finds a label listed twice on one side in O(n log n).
 * The answer is ordered by how much a label's total time moved, the
 * question a comparison is asked for.
 */
#define _GNU_SOURCE 1

#include <tilescope/alloc.h>
#include "trace-private.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A label of one side, with its texts, while pairing. */
typedef struct side_label {
	const char *channel, *name;
	const tsr_trace_label_stat *s;
	int side;                  /* 0: A, 1: B */
} side_label;

static int cmp_side_label(const void *pa, const void *pb)
{
	const side_label *x = pa, *y = pb;
	int r = strcmp(x->channel, y->channel);

	if (r == 0)
		r = strcmp(x->name, y->name);
	return r ? r : x->side - y->side;
}

static uint64_t magnitude(int64_t d)
{
	return d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
}

/* The larger |delta total| first, then the larger total of either side,
 * then channel and name (a total order: the answer does not depend on
 * qsort). */
static int cmp_delta(const void *pa, const void *pb)
{
	const tsr_trace_label_delta *x = pa, *y = pb;
	uint64_t dx = magnitude(x->delta_total_ns), dy = magnitude(y->delta_total_ns);
	uint64_t tx = x->a.total_ns > x->b.total_ns ? x->a.total_ns : x->b.total_ns;
	uint64_t ty = y->a.total_ns > y->b.total_ns ? y->a.total_ns : y->b.total_ns;
	int r;

	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (tx != ty)
		return tx > ty ? -1 : 1;
	r = strcmp(x->channel, y->channel);
	return r ? r : strcmp(x->name, y->name);
}

/* A difference of two unsigned figures as int64_t, saturated (totals
 * past 2^63 ns are three centuries; saturate rather than wrap). */
static int64_t diff_u64(uint64_t b, uint64_t a)
{
	if (b >= a)
		return b - a > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(b - a);
	return a - b > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)(a - b);
}

/* Looks up the texts of side `side`'s labels into out[0..n), checked
 * against the handle that owns their ids. Failures are kept on `report`. */
static int label_texts(side_label *out, tsr_trace *report, tsr_trace *tr,
                       const tsr_trace_label_stat *labels, size_t n, int side)
{
	const tsr_trace_channel *channels;
	size_t n_channels;
	int rc = tsr_trace_get_channels(&channels, &n_channels, tr);

	if (rc)
		return trace_fail(report, rc, "%s", tsr_trace_error(tr));
	for (size_t i = 0; i < n; i++) {
		const char *name = tsr_trace_get_name(tr, labels[i].name);

		if (labels[i].channel >= n_channels || !name)
			return trace_fail(report, TSR_ERR_OUT_OF_RANGE,
			                  "trace %c, label %zu: channel %u or name %u is not the trace's",
			                  side ? 'B' : 'A', i, labels[i].channel, labels[i].name);
		out[i] = (side_label){channels[labels[i].channel].name, name, &labels[i], side};
	}
	return TSR_OK;
}

/* The deltas of a paired (or one-sided) label. */
static void fill_deltas(tsr_trace_label_delta *d)
{
	d->delta_count = diff_u64(d->b.count, d->a.count);
	d->delta_total_ns = diff_u64(d->b.total_ns, d->a.total_ns);
	d->delta_self_ns = diff_u64(d->b.self_ns, d->a.self_ns);
	d->delta_mean_ns = d->b.mean_ns - d->a.mean_ns;
	d->delta_median_ns = diff_u64(d->b.median_ns, d->a.median_ns);
	d->delta_total_pct = d->a.total_ns ? 100.0 * (double)d->delta_total_ns / (double)d->a.total_ns
	                                   : NAN;
}

int tsr_trace_list_label_deltas(tsr_trace_label_delta **out, size_t *n, tsr_trace *a,
                                const tsr_trace_label_stat *a_labels, size_t n_a, tsr_trace *b,
                                const tsr_trace_label_stat *b_labels, size_t n_b)
{
	side_label *all = NULL;
	tsr_trace_label_delta *rows = NULL;
	size_t n_all, n_rows = 0;
	int rc;

	if (out)
		*out = NULL;
	if (n)
		*n = 0;
	if (!out || !n || !a || !b || (n_a && !a_labels) || (n_b && !b_labels)) {
		if (a)
			return trace_fail(a, TSR_ERR_INVALID_ARGUMENT,
			                  "compare: a NULL argument (out, n, a trace or its labels)");
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT,
		                          "compare: a NULL argument (out, n, a trace or its labels)");
	}
	if (n_a > SIZE_MAX / 2 - n_b)
		return trace_fail(a, TSR_ERR_INVALID_ARGUMENT, "compare: too many labels");
	n_all = n_a + n_b;
	/* Plain malloc: the arrays are the caller's answer and its scratch,
	 * as long as the label lists the caller already holds. */
	all = tsb_calloc(n_all ? n_all : 1, sizeof(*all));
	rows = tsb_calloc(n_all ? n_all : 1, sizeof(*rows));
	if (!all || !rows) {
		rc = trace_fail(a, TSR_ERR_NO_MEMORY, "compare: out of memory for %zu labels", n_all);
		goto fail;
	}
	if ((rc = label_texts(all, a, a, a_labels, n_a, 0)) ||
	    (rc = label_texts(all + n_a, a, b, b_labels, n_b, 1)))
		goto fail;
	qsort(all, n_all, sizeof(*all), cmp_side_label);
	for (size_t i = 0; i < n_all; i++) {
		tsr_trace_label_delta *d;

		if (i > 0 && cmp_side_label(&all[i - 1], &all[i]) == 0) {
			rc = trace_fail(a, TSR_ERR_INVALID_ARGUMENT,
			                "compare: trace %c lists label %s / %s twice",
			                all[i].side ? 'B' : 'A', all[i].channel, all[i].name);
			goto fail;
		}
		/* B's half of a pair already taken with its A. */
		if (all[i].side == 1 && i > 0 && all[i - 1].side == 0 &&
		    strcmp(all[i - 1].channel, all[i].channel) == 0 &&
		    strcmp(all[i - 1].name, all[i].name) == 0)
			continue;
		d = &rows[n_rows++];
		d->channel = all[i].channel;
		d->name = all[i].name;
		if (all[i].side == 0) {
			d->in_a = true;
			d->a = *all[i].s;
			if (i + 1 < n_all && all[i + 1].side == 1 &&
			    strcmp(all[i + 1].channel, all[i].channel) == 0 &&
			    strcmp(all[i + 1].name, all[i].name) == 0) {
				d->in_b = true;
				d->b = *all[i + 1].s;
			}
		} else {
			d->in_b = true;
			d->b = *all[i].s;
		}
		fill_deltas(d);
	}
	qsort(rows, n_rows, sizeof(*rows), cmp_delta);
	free(all);
	*out = rows;
	*n = n_rows;
	return TSR_OK;
fail:
	free(all);
	free(rows);
	return rc;
}
