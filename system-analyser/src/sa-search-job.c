/*
 * The search bar's queries (sa-search-job.h): a count from the
 * statistics by label, and steps through tsr_trace_search over windows
 * that grow until they hold the hit wanted.
 */
#include "sa-search-job.h"

#include <stdlib.h>

/* The first window of a step expects about this many hits. */
#define HITS_PER_WINDOW 64
/* Hits one window query returns at first (the earliest of the window). */
#define FIRST_LIMIT 1024u
/* A window holding more hits than this is narrowed rather than listed. */
#define MAX_LIMIT (1u << 20)

int sa_search_count(uint64_t *total, size_t *names, tsr_trace *trace, const char *pattern,
                    tsr_trace_match mode)
{
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_trace_label_stat *labels = NULL;
	uint32_t *ids = NULL;
	size_t n_ids = 0, n_labels = 0;
	guint8 *match = NULL;
	int rc;

	*total = 0;
	*names = 0;
	rc = tsr_trace_list_matching_names(&ids, &n_ids, trace, pattern, mode);
	if (rc != TSR_OK || n_ids == 0)
		goto cleanup;
	/* Without medians over the whole trace, the stored label_stats answer. */
	o.median = false;
	rc = tsr_trace_list_label_stats(&labels, &n_labels, trace, &o);
	if (rc != TSR_OK)
		goto cleanup;
	match = g_malloc0(tsr_trace_get_info(trace)->names + 1);
	for (size_t i = 0; i < n_ids; i++)
		match[ids[i]] = 1;
	for (size_t i = 0; i < n_labels; i++)
		if (labels[i].name < tsr_trace_get_info(trace)->names && match[labels[i].name])
			*total += labels[i].count;
	*names = n_ids;
cleanup:
	g_free(match);
	free(labels);
	free(ids);
	return rc;
}

/* tsr_trace_search's order: start, thread, seq. */
static int compare_hits(const tsr_trace_found *a, const tsr_trace_found *b)
{
	if (a->event.start_ns != b->event.start_ns)
		return a->event.start_ns < b->event.start_ns ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	return a->event.seq < b->event.seq ? -1 : a->event.seq > b->event.seq;
}

/* a + b without passing INT64_MAX / INT64_MIN. */
static int64_t add_sat(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

/*
 * Forward: windows [at, at + w) from `from`'s start. The window's hits
 * after `from` start in it (a span starting earlier comes before `from`),
 * so the first of them listed is the next hit; a window without one
 * moves on past itself and doubles. A window whose listed earliest hits
 * are all at or before `from` (its enclosing spans, ties) is listed again
 * with a larger limit.
 */
static int step_forward(tsr_trace_found *hit, gboolean *found, tsr_trace *trace,
                        tsr_trace_search_query *q, const tsr_trace_found *from, int64_t lo,
                        int64_t hi, int64_t w)
{
	int64_t at = from ? from->event.start_ns : lo;
	size_t limit = FIRST_LIMIT;

	for (;;) {
		tsr_trace_found *hits = NULL;
		size_t n = 0;
		uint64_t t = 0;
		int rc;

		q->from_ns = at;
		q->to_ns = MIN(add_sat(at, w), hi);
		q->limit = limit;
		rc = tsr_trace_search(&hits, &n, &t, trace, q);
		if (rc != TSR_OK)
			return rc;
		for (size_t i = 0; i < n && !*found; i++) {
			if (!from || compare_hits(&hits[i], from) > 0) {
				*hit = hits[i];
				*found = TRUE;
			}
		}
		free(hits);
		if (*found)
			return TSR_OK;
		if (n == limit && t > n) {
			limit = (size_t)MIN(t, (uint64_t)limit * 8);
			continue;
		}
		if (q->to_ns >= hi)
			return TSR_OK;
		at = q->to_ns;
		w = w > INT64_MAX / 2 ? INT64_MAX : w * 2;
	}
}

/*
 * Backward: windows [at - w, at) ending just after `from`'s start. Only
 * hits starting in the window count (an earlier-starting span that
 * reaches into it may not be the latest one before `from`), the last of
 * them before `from` is the answer; a window listing only some of its
 * hits is listed whole, or narrowed when it holds very many.
 */
static int step_backward(tsr_trace_found *hit, gboolean *found, tsr_trace *trace,
                         tsr_trace_search_query *q, const tsr_trace_found *from, int64_t lo,
                         int64_t hi, int64_t w)
{
	int64_t at = from ? add_sat(from->event.start_ns, 1) : hi;
	size_t limit = FIRST_LIMIT;

	for (;;) {
		tsr_trace_found *hits = NULL;
		size_t n = 0;
		uint64_t t = 0;
		int rc;

		q->from_ns = MAX(add_sat(at, -w), lo);
		q->to_ns = at;
		q->limit = limit;
		rc = tsr_trace_search(&hits, &n, &t, trace, q);
		if (rc != TSR_OK)
			return rc;
		if (t > n) {
			free(hits);
			if (t <= MAX_LIMIT || w <= 1)
				limit = (size_t)MIN(t, (uint64_t)SIZE_MAX / 2);
			else
				w /= 4;
			continue;
		}
		for (size_t i = n; i-- > 0;) {
			if ((hits[i].event.start_ns >= q->from_ns || q->from_ns <= lo) &&
			    (!from || compare_hits(&hits[i], from) < 0)) {
				*hit = hits[i];
				*found = TRUE;
				break;
			}
		}
		free(hits);
		if (*found || q->from_ns <= lo)
			return TSR_OK;
		at = q->from_ns;
		w = w > INT64_MAX / 2 ? INT64_MAX : w * 2;
		limit = FIRST_LIMIT;
	}
}

int sa_search_step(tsr_trace_found *hit, gboolean *found, tsr_trace *trace, const char *pattern,
                   tsr_trace_match mode, const tsr_trace_found *from, gboolean forward,
                   uint64_t total)
{
	tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;
	const tsr_trace_info *info = tsr_trace_get_info(trace);
	int64_t lo = info->start_ns, hi = add_sat(info->end_ns, 1), len = MAX(hi - lo, 1), w;

	*found = FALSE;
	q.pattern = pattern;
	q.mode = mode;
	/* A first window expected to hold a few dozen hits, at least 1 µs. */
	w = total ? (int64_t)MIN((uint64_t)len / total * HITS_PER_WINDOW, (uint64_t)len) : len / 1024;
	w = MAX(w, 1000);
	return forward ? step_forward(hit, found, trace, &q, from, lo, hi, w)
	               : step_backward(hit, found, trace, &q, from, lo, hi, w);
}
