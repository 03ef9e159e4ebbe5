/*
 * Statistics by label and search (trace.h).
 *
 * Statistics come from the files' label_stats when that answers the
 * question (every thread, the whole trace, files closed cleanly, no
 * medians); otherwise from the chunks, with self time computed the way
 * the writer does it: spans arrive in the order they end, so when a span
 * of depth d ends, the time of the depth d + 1 spans that ended since the
 * previous depth d span is exactly its children's. Medians need every
 * duration; past a cap an even sample is kept (every 2^k-th span of each
 * label), so memory stays bounded and small labels keep all theirs.
 *
 * Search matches names first (substring or POSIX regular expression),
 * then decodes the window's chunks only if some name matched, keeping the
 * earliest matches in a bounded heap.
 */
#define _GNU_SOURCE 1

#include "trace-private.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_DURATIONS (4u << 20)
#define DEFAULT_SEARCH_LIMIT 1000u

/* The totals a walk for label statistics gathers on its way (trace.h's
 * tsr_trace_totals per thread and channel), kept on the handle for the
 * view it was taken over: the System Analyser asks for both over one
 * selection, and the second walk would decode every chunk again. One
 * block: the struct, then n_threads thread entries, then n_channels. */
struct trace_stats_totals {
	int64_t thread, from_ns, to_ns;     /* the view */
	size_t bytes;
	tsr_trace_span_totals *threads;
	tsr_trace_channel_totals *channels;
};

/* --- Per-label accumulation ------------------------------------------------- */

/* One label being accumulated. */
typedef struct label_acc {
	uint64_t key;              /* (channel << 32 | name) + 1; 0: empty slot */
	tsr_trace_label_stat s;
	uint64_t seen;             /* spans seen (for the sampling stride) */
	uint64_t *dur;             /* kept durations */
	size_t n_dur, cap_dur;
} label_acc;

typedef struct label_map {
	label_acc *slots;
	size_t cap, n;             /* cap a power of two */
	bool median;
	uint64_t stride;           /* every stride-th span of a label is kept */
	uint64_t kept, max_kept;   /* durations kept, and the cap */
} label_map;

/* The home slot of a key (Fibonacci hashing). */
static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
}

/* The accumulator of (channel, name), made when new. */
static int label_get(tsr_trace *tr, label_map *m, label_acc **out, uint32_t channel, uint32_t name)
{
	uint64_t key = (((uint64_t)channel << 32) | name) + 1;
	size_t s, i;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		label_acc *slots = trace_alloc(tr, cap, sizeof(*slots));

		if (!slots)
			return tr->code;
		for (i = 0; i < m->cap; i++) {
			if (!m->slots[i].key)
				continue;
			for (s = slot_of(m->slots[i].key, cap); slots[s].key; s = (s + 1) & (cap - 1))
				;
			slots[s] = m->slots[i];
		}
		trace_free_mem(tr, m->slots, m->cap * sizeof(*m->slots));
		m->slots = slots;
		m->cap = cap;
	}
	for (s = slot_of(key, m->cap); m->slots[s].key && m->slots[s].key != key;
	     s = (s + 1) & (m->cap - 1))
		;
	if (!m->slots[s].key) {
		m->slots[s].key = key;
		m->slots[s].s.channel = channel;
		m->slots[s].s.name = name;
		m->slots[s].s.min_ns = UINT64_MAX;
		m->n++;
	}
	*out = &m->slots[s];
	return TSR_OK;
}

/* a + b, saturating (a hostile file may sum past 64 bits). */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Halves every label's kept durations (keeps even positions) and doubles
 * the stride: what is kept stays every stride-th span of each label. */
static void thin_durations(tsr_trace *tr, label_map *m)
{
	size_t i, j;

	m->stride *= 2;
	m->kept = 0;
	for (i = 0; i < m->cap; i++) {
		label_acc *a = &m->slots[i];

		if (!a->key)
			continue;
		for (j = 0; 2 * j < a->n_dur; j++)
			a->dur[j] = a->dur[2 * j];
		a->n_dur = j;
		m->kept += j;
	}
	(void)tr;
}

/* Adds one span (duration, self time) to its label. */
static int label_add(tsr_trace *tr, label_map *m, uint32_t channel, uint32_t name, uint64_t dur,
                     uint64_t self)
{
	label_acc *a;
	int rc = label_get(tr, m, &a, channel, name);

	if (rc != TSR_OK)
		return rc;
	a->s.count++;
	a->s.total_ns = sat_add(a->s.total_ns, dur);
	a->s.self_ns = sat_add(a->s.self_ns, self);
	if (dur < a->s.min_ns)
		a->s.min_ns = dur;
	if (dur > a->s.max_ns)
		a->s.max_ns = dur;
	if (!m->median || a->seen++ % m->stride != 0)
		return TSR_OK;
	if (a->n_dur == a->cap_dur) {
		size_t grown = a->cap_dur ? a->cap_dur * 2 : 16;
		uint64_t *d = trace_realloc(tr, a->dur, a->cap_dur, grown, sizeof(*d));

		if (!d)
			return tr->code;
		a->dur = d;
		a->cap_dur = grown;
	}
	a->dur[a->n_dur++] = dur;
	if (++m->kept > m->max_kept)
		thin_durations(tr, m);
	return TSR_OK;
}

/* Frees the map and its durations. */
static void label_map_clear(tsr_trace *tr, label_map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		trace_free_mem(tr, m->slots[i].dur, m->slots[i].cap_dur * sizeof(uint64_t));
	trace_free_mem(tr, m->slots, m->cap * sizeof(*m->slots));
	memset(m, 0, sizeof(*m));
}

/* Ascending durations, for medians. */
static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Largest total first, then channel, then name. */
static int compare_stats(const void *a, const void *b)
{
	const tsr_trace_label_stat *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->channel != y->channel)
		return x->channel < y->channel ? -1 : 1;
	return (x->name > y->name) - (x->name < y->name);
}

/* --- Sources -------------------------------------------------------------------- */

/* Adds file `p`'s label_stats rows, checked for consistency. */
static int stats_from_table(tsr_trace *tr, label_map *m, size_t p)
{
	sqlite3_stmt *st = NULL;
	int rc = trace_prepare(tr, &st, p,
	                       "SELECT channel, name, count, total_ns, self_ns, min_ns, max_ns "
	                       "FROM label_stats");

	while (rc == TSR_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t v[7];
		uint32_t channel, name;
		label_acc *a;
		int i;

		for (i = 0; i < 7; i++)
			v[i] = sqlite3_column_int64(st, i);
		for (i = 0; i < 7; i++)
			if (sqlite3_column_type(st, i) != SQLITE_INTEGER || v[i] < 0)
				break;
		if (i < 7 || v[2] < 1 || v[4] > v[3] || v[5] > v[6] || v[6] > v[3]) {
			rc = trace_fail(tr, TSR_ERR_CORRUPT, "%s: a label_stats row is inconsistent",
			                tr->processes[p].path);
			break;
		}
		if ((rc = trace_map_channel(tr, &channel, p, v[0])) ||
		    (rc = trace_map_name(tr, &name, p, v[1])) ||
		    (rc = label_get(tr, m, &a, channel, name)))
			break;
		a->s.count = sat_add(a->s.count, (uint64_t)v[2]);
		a->s.total_ns = sat_add(a->s.total_ns, (uint64_t)v[3]);
		a->s.self_ns = sat_add(a->s.self_ns, (uint64_t)v[4]);
		if ((uint64_t)v[5] < a->s.min_ns)
			a->s.min_ns = (uint64_t)v[5];
		if ((uint64_t)v[6] > a->s.max_ns)
			a->s.max_ns = (uint64_t)v[6];
	}
	if (rc == SQLITE_DONE)
		rc = TSR_OK;
	else if (rc > 0)
		rc = trace_sql_fail(tr, tr->files[p].db, rc, tr->processes[p].path);
	sqlite3_finalize(st);
	return rc;
}

/* What walk_spans hands each span starting in the window: the span, its
 * duration and its self time (duration less its children's). */
typedef int (*span_visit_fn)(void *ctx, const trace_event *e, uint64_t dur, uint64_t self);

/*
 * Visits the spans of `thread` starting in [from, to) with their self
 * times, decoding its chunks in write order from the first that ends at
 * or after `from` (a span's children are never in an earlier one). Spans
 * arrive in the order they end, so the time of a depth's children is
 * summed until their parent arrives (see the top of this file). The
 * progress callback hears of each chunk.
 */
static int walk_spans(tsr_trace *tr, size_t thread, int64_t from, int64_t to,
                      trace_event **scratch, size_t *cap, span_visit_fn visit, void *ctx)
{
	const trace_thread_data *td = &tr->tdata[thread];
	uint64_t child[TRACE_MAX_DEPTH + 2];
	size_t i, k, end = td->n_chunks;
	int rc;

	/* Past the last chunk holding a span that starts before `to`, every
	 * span starts at or after it, and none of them is a child whose time
	 * an earlier span needs (children come first): those chunks are not
	 * decoded. A window over the first half of a trace decodes half. */
	while (end > 0 && td->chunks[end - 1].first_ns >= to)
		end--;
	memset(child, 0, sizeof(child));
	for (i = 0; i < end; i++) {
		const trace_chunk *c = &td->chunks[i];

		if (c->last_ns < from)
			continue;
		if (tsr_progress_at(&tr->progress, (double)i / (double)td->n_chunks))
			return trace_fail_cancelled(tr);
		if ((rc = trace_decode_chunk(tr, scratch, cap, thread, c)) != TSR_OK)
			return rc;
		for (k = 0; k < c->count; k++) {
			const trace_event *e = &(*scratch)[k];
			uint64_t dur = (uint64_t)(e->end_ns - e->start_ns), kids = child[e->depth + 1];

			child[e->depth + 1] = 0;
			child[e->depth] = sat_add(child[e->depth], dur);
			if (e->start_ns < from || e->start_ns >= to)
				continue;
			if ((rc = visit(ctx, e, dur, dur > kids ? dur - kids : 0)) != TSR_OK)
				return rc;
		}
	}
	return TSR_OK;
}

static void span_totals_add(tsr_trace_span_totals *t, const trace_event *e, uint64_t self);

/* walk_spans' visitor for the label statistics, which also gathers the
 * view's totals when `totals` is set. */
typedef struct stats_visit {
	tsr_trace *tr;
	label_map *m;
	struct trace_stats_totals *totals;
	size_t thread;
} stats_visit;

static int visit_label(void *ctx, const trace_event *e, uint64_t dur, uint64_t self)
{
	stats_visit *v = ctx;

	if (v->totals) {
		span_totals_add(&v->totals->threads[v->thread], e, self);
		if (e->channel < v->tr->n_channels) {
			v->totals->channels[e->channel].spans++;
			v->totals->channels[e->channel].self_ns =
			    sat_add(v->totals->channels[e->channel].self_ns, self);
		}
	}
	return label_add(v->tr, v->m, e->channel, e->name, dur, self);
}

/* Adds the spans of `thread` starting in [from, to) to the labels (and
 * to `totals` when not NULL). */
static int stats_from_chunks(tsr_trace *tr, label_map *m, struct trace_stats_totals *totals,
                             size_t thread, int64_t from, int64_t to, trace_event **scratch,
                             size_t *cap)
{
	stats_visit v = {tr, m, totals, thread};

	return walk_spans(tr, thread, from, to, scratch, cap, visit_label, &v);
}

/* A zeroed totals block for the view (o), counted against the cap. */
static struct trace_stats_totals *stats_totals_new(tsr_trace *tr, const tsr_trace_stats_options *o)
{
	size_t bytes = sizeof(struct trace_stats_totals) + tr->n_threads * sizeof(tsr_trace_span_totals) +
	               tr->n_channels * sizeof(tsr_trace_channel_totals);
	struct trace_stats_totals *t = trace_alloc(tr, 1, bytes);

	if (!t)
		return NULL;
	memset(t, 0, bytes);
	t->thread = o->thread;
	t->from_ns = o->from_ns;
	t->to_ns = o->to_ns;
	t->bytes = bytes;
	t->threads = (tsr_trace_span_totals *)(t + 1);
	t->channels = (tsr_trace_channel_totals *)(t->threads + tr->n_threads);
	return t;
}

static void stats_totals_free(tsr_trace *tr, struct trace_stats_totals *t)
{
	if (t)
		trace_free_mem(tr, t, t->bytes);
}

/*
 * Reorders v[0..n) so that v[k] is the value a sort would put there, the
 * ones before it no greater and the ones after it no smaller (C++'s
 * nth_element): Hoare partitions around a median of three, O(n) on
 * average instead of a sort's O(n log n). A hostile run of durations
 * that keeps the partitions lopsided past 2 log2(n) rounds gets the rest
 * of its range sorted, so the worst case stays O(n log n).
 */
static void select_nth(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1, rounds = 0, limit = 8;

	for (size_t m = n; m > 1; m >>= 1)
		limit += 2;
	while (hi > lo) {
		uint64_t a, b, c, pivot, t;
		size_t i, j;

		if (hi - lo < 16 || ++rounds > limit) {
			qsort(v + lo, hi - lo + 1, sizeof(*v), compare_u64);
			return;
		}
		a = v[lo];
		b = v[lo + (hi - lo) / 2];
		c = v[hi];
		pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		i = lo;
		j = hi;
		for (;;) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i >= j)
				break;
			t = v[i];
			v[i] = v[j];
			v[j] = t;
			i++;
			j--;
		}
		/* v[lo..j] <= pivot <= v[j+1..hi] */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
}

/* The median of v[0..n), reordering it: the middle value, or the mean of
 * the two middle values when n is even (without overflow). The same
 * answer as sorting and reading the middle, in linear time. */
static uint64_t median_of(uint64_t *v, size_t n)
{
	uint64_t a, b;

	if (!n)
		return 0;
	select_nth(v, n, n / 2);
	b = v[n / 2];
	if (n % 2)
		return b;
	/* The other middle value is the largest of those before it. */
	a = v[0];
	for (size_t i = 1; i < n / 2; i++)
		if (v[i] > a)
			a = v[i];
	return a / 2 + b / 2 + (a & b & 1);
}

/* See trace.h. */
int tsr_trace_list_label_stats(tsr_trace_label_stat **out, size_t *n, tsr_trace *tr,
                               const tsr_trace_stats_options *opts)
{
	tsr_trace_stats_options o = TSR_TRACE_STATS_OPTIONS_INIT;
	tsr_progress_frame frame;
	label_map m;
	tsr_trace_label_stat *res = NULL;
	trace_event *scratch = NULL;
	struct trace_stats_totals *totals = NULL;
	size_t cap = 0, i, k;
	bool whole;
	int rc = TSR_OK;

	if (!tr || !out || !n)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = NULL;
	*n = 0;
	if (opts) {
		if (opts->version != TSR_TRACE_STATS_OPTIONS_VERSION)
			return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT, "stats options version %u is not %u",
			                  opts->version, TSR_TRACE_STATS_OPTIONS_VERSION);
		o = *opts;
	}
	if ((rc = trace_check_window(tr, o.thread, o.from_ns, o.to_ns)))
		return rc;
	memset(&m, 0, sizeof(m));
	m.median = o.median;
	m.stride = 1;
	m.max_kept = o.max_durations ? o.max_durations : DEFAULT_MAX_DURATIONS;
	whole = o.thread < 0 && o.from_ns <= tr->info.start_ns && o.to_ns > tr->info.end_ns;
	/* Progress: the files or threads read are the parts (sorting after
	 * them is quick). */
	if (tsr_progress_push(&tr->progress, &frame, "computing statistics")) {
		rc = trace_fail_cancelled(tr);
	} else if (whole && !o.median && tr->info.complete) {
		for (i = 0; i < tr->n_processes && rc == TSR_OK; i++)
			if (tsr_progress_part(&tr->progress, (double)i / (double)tr->n_processes,
			                      (double)(i + 1) / (double)tr->n_processes,
			                      "reading label statistics"))
				rc = trace_fail_cancelled(tr);
			else
				rc = stats_from_table(tr, &m, i);
	} else {
		/* The totals of the view come along (see trace_stats_totals). */
		totals = stats_totals_new(tr, &o);
		if (!totals)
			rc = tr->code;
		for (i = 0; i < tr->n_threads && rc == TSR_OK; i++) {
			double nt = o.thread < 0 ? (double)tr->n_threads : 1.0, at = o.thread < 0 ? (double)i : 0.0;

			if (o.thread >= 0 && (size_t)o.thread != i)
				continue;
			if (tsr_progress_part(&tr->progress, at / nt, (at + 1.0) / nt,
			                      "computing statistics from the spans"))
				rc = trace_fail_cancelled(tr);
			else
				rc = stats_from_chunks(tr, &m, totals, i, o.from_ns, o.to_ns, &scratch, &cap);
		}
	}
	if (rc != TSR_OK)
		goto cleanup;
	res = trace_alloc(tr, m.n, sizeof(*res));
	if (!res) {
		rc = tr->code;
		goto cleanup;
	}
	for (i = 0, k = 0; i < m.cap; i++) {
		label_acc *a = &m.slots[i];

		if (!a->key)
			continue;
		a->s.mean_ns = (double)a->s.total_ns / (double)a->s.count;
		if (m.median) {
			a->s.median_ns = median_of(a->dur, a->n_dur);
			a->s.median_exact = m.stride == 1;
		}
		res[k++] = a->s;
	}
	if (k > 1)
		qsort(res, k, sizeof(*res), compare_stats);
	trace_release(tr, m.n * sizeof(*res));
	*out = res;
	*n = k;
	if (totals) {
		stats_totals_free(tr, tr->stats_totals);
		tr->stats_totals = totals;
		totals = NULL;
	}
cleanup:
	stats_totals_free(tr, totals);
	tsr_progress_pop(&tr->progress, &frame, rc == TSR_OK);
	trace_free_mem(tr, scratch, cap * sizeof(*scratch));
	label_map_clear(tr, &m);
	return rc;
}

/* --- Search ------------------------------------------------------------------------ */

/*
 * Marks the names matching `pattern` in match[0..n_names) and counts
 * them. Substrings use strstr / strcasestr; expressions regcomp with
 * REG_EXTENDED | REG_NOSUB (and REG_ICASE).
 */
static int match_names(tsr_trace *tr, uint8_t *match, size_t *count, const char *pattern,
                       tsr_trace_match mode)
{
	regex_t re;
	bool regex = mode == TSR_TRACE_MATCH_REGEX || mode == TSR_TRACE_MATCH_REGEX_ICASE;
	bool icase = mode == TSR_TRACE_MATCH_SUBSTRING_ICASE || mode == TSR_TRACE_MATCH_REGEX_ICASE;
	size_t i;
	int err;

	*count = 0;
	if (mode < TSR_TRACE_MATCH_SUBSTRING || mode > TSR_TRACE_MATCH_REGEX_ICASE)
		return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT, "unknown match mode %d", (int)mode);
	if (regex) {
		err = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0));
		if (err) {
			char msg[256];

			regerror(err, &re, msg, sizeof(msg));
			return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT, "bad regular expression '%s': %s",
			                  pattern, msg);
		}
	}
	for (i = 0; i < tr->n_names; i++) {
		const char *name = tr->names[i];
		bool hit;

		if (regex)
			hit = regexec(&re, name, 0, NULL, 0) == 0;
		else
			hit = icase ? strcasestr(name, pattern) != NULL : strstr(name, pattern) != NULL;
		match[i] = hit;
		*count += hit;
	}
	if (regex)
		regfree(&re);
	return TSR_OK;
}

/* See trace.h. */
int tsr_trace_list_matching_names(uint32_t **out, size_t *n, tsr_trace *tr, const char *pattern,
                                  tsr_trace_match mode)
{
	uint8_t *match = NULL;
	uint32_t *ids = NULL;
	size_t count = 0, i, k;
	int rc;

	if (!tr || !out || !n || !pattern)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = NULL;
	*n = 0;
	match = trace_alloc(tr, tr->n_names, 1);
	if (!match)
		return tr->code;
	rc = match_names(tr, match, &count, pattern, mode);
	if (rc == TSR_OK && !(ids = trace_alloc(tr, count, sizeof(*ids))))
		rc = tr->code;
	if (rc == TSR_OK) {
		for (i = 0, k = 0; i < tr->n_names; i++)
			if (match[i])
				ids[k++] = (uint32_t)i;
		trace_release(tr, count * sizeof(*ids));
		*out = ids;
		*n = count;
	}
	trace_free_mem(tr, match, tr->n_names);
	return rc;
}

/* Whether found span a comes before b: start, then thread, then seq. */
static bool found_before(const tsr_trace_found *a, const tsr_trace_found *b)
{
	if (a->event.start_ns != b->event.start_ns)
		return a->event.start_ns < b->event.start_ns;
	if (a->thread != b->thread)
		return a->thread < b->thread;
	return a->event.seq < b->event.seq;
}

/* A max-heap (by found_before) of the `limit` earliest matches. */
static void heap_offer(tsr_trace_found *h, size_t *n, size_t limit, const tsr_trace_found *f)
{
	size_t i;

	if (*n < limit) {
		for (i = (*n)++; i && found_before(&h[(i - 1) / 2], f); i = (i - 1) / 2)
			h[i] = h[(i - 1) / 2];
		h[i] = *f;
		return;
	}
	if (!found_before(f, &h[0]))
		return;
	for (i = 0;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && found_before(&h[c], &h[c + 1]))
			c++;
		if (!found_before(f, &h[c]))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = *f;
}

/* found_before as a qsort order. */
static int compare_found(const void *a, const void *b)
{
	const tsr_trace_found *x = a, *y = b;

	return found_before(x, y) ? -1 : found_before(y, x) ? 1 : 0;
}

/* See trace.h. */
int tsr_trace_search(tsr_trace_found **out, size_t *n, uint64_t *total, tsr_trace *tr,
                     const tsr_trace_search_query *q)
{
	uint8_t *match = NULL;
	tsr_trace_found *heap = NULL;
	tsr_progress_frame frame;
	trace_event *scratch = NULL;
	size_t count = 0, n_heap = 0, limit, cap = 0, t, i, k, *idx = NULL, n_idx = 0;
	uint64_t found = 0;
	int rc;

	if (!tr || !out || !n || !total || !q || !q->pattern)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = NULL;
	*n = 0;
	*total = 0;
	if (q->version != TSR_TRACE_SEARCH_QUERY_VERSION)
		return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT, "search query version %u is not %u",
		                  q->version, TSR_TRACE_SEARCH_QUERY_VERSION);
	if ((rc = trace_check_window(tr, q->thread, q->from_ns, q->to_ns)))
		return rc;
	limit = q->limit ? q->limit : DEFAULT_SEARCH_LIMIT;
	match = trace_alloc(tr, tr->n_names, 1);
	if (!match)
		return tr->code;
	/* Progress: the threads searched are the parts. */
	if (tsr_progress_push(&tr->progress, &frame, "searching")) {
		rc = trace_fail_cancelled(tr);
		goto cleanup;
	}
	rc = match_names(tr, match, &count, q->pattern, q->mode);
	if (rc != TSR_OK || !count)
		goto cleanup;
	heap = trace_alloc(tr, limit, sizeof(*heap));
	if (!heap) {
		rc = tr->code;
		goto cleanup;
	}
	for (t = 0; t < tr->n_threads && rc == TSR_OK; t++) {
		double nt = q->thread < 0 ? (double)tr->n_threads : 1.0, at = q->thread < 0 ? (double)t : 0.0;

		if (q->thread >= 0 && (size_t)q->thread != t)
			continue;
		if (tsr_progress_part(&tr->progress, at / nt, (at + 1.0) / nt, "searching the spans")) {
			rc = trace_fail_cancelled(tr);
			break;
		}
		rc = trace_find_chunks(tr, &idx, &n_idx, t, q->from_ns, q->to_ns);
		for (i = 0; i < n_idx && rc == TSR_OK; i++) {
			const trace_chunk *c = &tr->tdata[t].chunks[idx[i]];

			if (tsr_progress_at(&tr->progress, (double)i / (double)n_idx)) {
				rc = trace_fail_cancelled(tr);
				break;
			}
			if ((rc = trace_decode_chunk(tr, &scratch, &cap, t, c)) != TSR_OK)
				break;
			for (k = 0; k < c->count; k++) {
				const trace_event *e = &scratch[k];
				tsr_trace_found f;

				if (!match[e->name] || !trace_event_in(e, q->from_ns, q->to_ns))
					continue;
				found++;
				f.thread = t;
				f.event.start_ns = e->start_ns;
				f.event.end_ns = e->end_ns;
				f.event.count = 1;
				f.event.busy_ns = (uint64_t)(e->end_ns - e->start_ns);
				f.event.seq = e->seq;
				f.event.parent = e->parent;
				f.event.name = e->name;
				f.event.channel = e->channel;
				f.event.depth = e->depth;
				f.event.kind = TSR_TRACE_ITEM_EVENT;
				heap_offer(heap, &n_heap, limit, &f);
			}
		}
		trace_free_mem(tr, idx, n_idx * sizeof(*idx));
		idx = NULL;
	}
	if (rc != TSR_OK)
		goto cleanup;
	if (n_heap > 1)
		qsort(heap, n_heap, sizeof(*heap), compare_found);
	trace_release(tr, limit * sizeof(*heap));
	*out = heap;
	*n = n_heap;
	*total = found;
	heap = NULL;
cleanup:
	tsr_progress_pop(&tr->progress, &frame, rc == TSR_OK);
	trace_free_mem(tr, heap, limit * sizeof(*heap));
	trace_free_mem(tr, scratch, cap * sizeof(*scratch));
	trace_free_mem(tr, match, tr->n_names);
	return rc;
}

/* --- Totals per process, thread and channel ------------------------------------------ */

/* Adds one span to a thread's totals. */
static void span_totals_add(tsr_trace_span_totals *t, const trace_event *e, uint64_t self)
{
	if (!t->spans || e->start_ns < t->first_ns)
		t->first_ns = e->start_ns;
	if (!t->spans || e->end_ns > t->last_ns)
		t->last_ns = e->end_ns;
	t->spans++;
	t->busy_ns = sat_add(t->busy_ns, self);
}

/* walk_spans' visitor for the totals of one thread and the channels. */
typedef struct totals_visit {
	tsr_trace_totals *t;
	size_t thread;
} totals_visit;

static int visit_totals(void *ctx, const trace_event *e, uint64_t dur, uint64_t self)
{
	totals_visit *v = ctx;
	tsr_trace_totals *t = v->t;

	(void)dur;
	span_totals_add(&t->threads[v->thread], e, self);
	if (e->channel < t->n_channels) {
		t->channels[e->channel].spans++;
		t->channels[e->channel].self_ns = sat_add(t->channels[e->channel].self_ns, self);
	}
	return TSR_OK;
}

/* Adds the spans of `thread` starting in [from, to) to its totals and to
 * the channels', with self times as the label statistics have them. */
static int totals_from_chunks(tsr_trace *tr, tsr_trace_totals *t, size_t thread, int64_t from,
                              int64_t to, trace_event **scratch, size_t *cap)
{
	totals_visit v = {t, thread};

	return walk_spans(tr, thread, from, to, scratch, cap, visit_totals, &v);
}

/*
 * The totals of thread `thread`, the only one of its file, over the
 * whole trace from the file's label_stats (read through stats_from_table,
 * so checked the same way): its spans and busy time are the file's sums,
 * its first and last those of the thread list.
 */
static int totals_from_table(tsr_trace *tr, tsr_trace_totals *t, size_t thread)
{
	const tsr_trace_thread *th = &tr->threads[thread];
	tsr_trace_span_totals *tt = &t->threads[thread];
	label_map m;
	size_t i;
	int rc;

	memset(&m, 0, sizeof(m));
	m.stride = 1;
	rc = stats_from_table(tr, &m, th->process);
	for (i = 0; rc == TSR_OK && i < m.cap; i++) {
		const tsr_trace_label_stat *s = &m.slots[i].s;

		if (!m.slots[i].key)
			continue;
		tt->spans = sat_add(tt->spans, s->count);
		tt->busy_ns = sat_add(tt->busy_ns, s->self_ns);
		if (s->channel < t->n_channels) {
			t->channels[s->channel].spans = sat_add(t->channels[s->channel].spans, s->count);
			t->channels[s->channel].self_ns =
			    sat_add(t->channels[s->channel].self_ns, s->self_ns);
		}
	}
	if (rc == TSR_OK && tt->spans) {
		tt->first_ns = th->first_ns;
		tt->last_ns = th->last_ns;
	}
	label_map_clear(tr, &m);
	return rc;
}

/* See trace.h. One block holds the struct and its three arrays, so that
 * one free() releases it. */
int tsr_trace_totals_new(tsr_trace_totals **out, tsr_trace *tr,
                         const tsr_trace_totals_options *opts)
{
	tsr_trace_totals_options o = TSR_TRACE_TOTALS_OPTIONS_INIT;
	tsr_trace_totals *t;
	trace_event *scratch = NULL;
	size_t cap = 0, bytes, i;
	bool whole, cached;
	int rc = TSR_OK;

	if (!out || !tr)
		return TSR_ERR_INVALID_ARGUMENT;
	*out = NULL;
	if (opts) {
		if (opts->version != TSR_TRACE_TOTALS_OPTIONS_VERSION)
			return trace_fail(tr, TSR_ERR_INVALID_ARGUMENT,
			                  "totals options version %u is not %u", opts->version,
			                  TSR_TRACE_TOTALS_OPTIONS_VERSION);
		o = *opts;
	}
	if ((rc = trace_check_window(tr, o.thread, o.from_ns, o.to_ns)))
		return rc;
	/* Every size comes from the handle's own lists, so these cannot overflow. */
	bytes = sizeof(*t) + tr->n_processes * sizeof(*t->processes) +
	        tr->n_threads * sizeof(*t->threads) + tr->n_channels * sizeof(*t->channels);
	t = trace_alloc(tr, 1, bytes);
	if (!t)
		return tr->code;
	memset(t, 0, bytes);
	t->n_processes = tr->n_processes;
	t->n_threads = tr->n_threads;
	t->n_channels = tr->n_channels;
	t->processes = (tsr_trace_span_totals *)(t + 1);
	t->threads = t->processes + tr->n_processes;
	t->channels = (tsr_trace_channel_totals *)(t->threads + tr->n_threads);

	whole = o.from_ns <= tr->info.start_ns && o.to_ns > tr->info.end_ns;
	/* The last label statistics' walk over this view gathered what the
	 * chunks would give: taken when no thread would be read from a table. */
	cached = tr->stats_totals && tr->stats_totals->thread == o.thread &&
	         tr->stats_totals->from_ns == o.from_ns && tr->stats_totals->to_ns == o.to_ns;
	for (i = 0; cached && i < tr->n_threads; i++) {
		const tsr_trace_process *p = &tr->processes[tr->threads[i].process];

		if ((o.thread < 0 || (size_t)o.thread == i) && whole && p->complete &&
		    p->n_threads == 1)
			cached = false;
	}
	if (cached) {
		memcpy(t->threads, tr->stats_totals->threads, tr->n_threads * sizeof(*t->threads));
		memcpy(t->channels, tr->stats_totals->channels, tr->n_channels * sizeof(*t->channels));
	}
	for (i = 0; !cached && i < tr->n_threads && rc == TSR_OK; i++) {
		const tsr_trace_process *p = &tr->processes[tr->threads[i].process];

		if (o.thread >= 0 && (size_t)o.thread != i)
			continue;
		if (whole && p->complete && p->n_threads == 1)
			rc = totals_from_table(tr, t, i);
		else
			rc = totals_from_chunks(tr, t, i, o.from_ns, o.to_ns, &scratch, &cap);
	}
	trace_free_mem(tr, scratch, cap * sizeof(*scratch));
	if (rc != TSR_OK) {
		trace_free_mem(tr, t, bytes);
		return rc;
	}
	for (i = 0; i < tr->n_threads; i++) {
		const tsr_trace_span_totals *th = &t->threads[i];
		tsr_trace_span_totals *p = &t->processes[tr->threads[i].process];

		if (!th->spans)
			continue;
		if (!p->spans || th->first_ns < p->first_ns)
			p->first_ns = th->first_ns;
		if (!p->spans || th->last_ns > p->last_ns)
			p->last_ns = th->last_ns;
		p->spans = sat_add(p->spans, th->spans);
		p->busy_ns = sat_add(p->busy_ns, th->busy_ns);
		t->spans = sat_add(t->spans, th->spans);
		t->self_ns = sat_add(t->self_ns, th->busy_ns);
	}
	trace_release(tr, bytes);
	*out = t;
	return TSR_OK;
}

/* See trace.h: the arrays live in the struct's block. */
void tsr_trace_totals_free(tsr_trace_totals *totals)
{
	free(totals);
}
