/*
 * Rows that are not one thread or one series (sa-timeline-series.h):
 *
 * - A heatmap (pvti_heatmap_new) under its file: a band per bucket,
 *   bucket 0 at the bottom, a cell per pixel column shaded by its count
 *   against the fullest cell in view, from reportlib's per-column counts
 *   (tsr_trace_list_heatmap_counts: about one query per pixel column,
 *   whatever the samples). A sample holds until the next one, as a
 *   counter's value does, so sparse samples read as a strip, not as
 *   hairlines; the values counted in view are those of the samples in it.
 * - A file's counters merged ("Merge All Charts"): every series of the
 *   file as the chart kit's step line on one value axis that fits them
 *   all, in one row that stands in for the file's counter rows.
 * - A file's IPU activity: per pixel column, the fraction of its time in
 *   which one of the runtime's "Run program N (name)" spans (the engine
 *   running a program on the IPU, instrument/src/runtime) is open, drawn
 *   as bars. Those spans are found once with reportlib's search, in a
 *   worker on the document's second handle (a scan of every chunk: seconds
 *   on millions of spans), and merged into disjoint intervals; until they
 *   land the row says "computing…", then the layer is drawn again. A new
 *   document cancels the scan; a zoom does not need to, as its answer is
 *   the whole trace's and each frame reads its columns from it.
 */
#include "sa-timeline-private.h"

#include "sa-format.h"

#include <tilescope/tsd-cancel.h>

#include <math.h>

#define BUCKET_H 5 /* px: a heatmap's band per bucket (at least) */
#define RUN_PATTERN "^Run program [0-9]+ \\("
/* Columns of the window before the view searched for the sample that
 * holds into it (the last one: exact while they are sparser than this). */
#define BEFORE_COLUMNS 256

typedef enum { SR_HEATMAP, SR_MERGED, SR_ACTIVITY } sr_kind;

/* One row's description and its answers of the last draw. */
typedef struct series_row {
	sr_kind kind;
	size_t index;          /* HEATMAP: the heatmap; else the file */
	uint64_t *counts;      /* HEATMAP: columns x buckets, held samples filled in */
	guint8 *sampled;       /* HEATMAP: the column holds a sample (not a held one) */
	size_t columns;
	double *busy;          /* ACTIVITY: fraction per column */
	double lo, hi;         /* MERGED: the shared axis */
	gboolean queried;
} series_row;

struct sa_series {
	series_row *rows;
	size_t n;
	const tsr_trace_heatmap *heatmaps;
	size_t n_heatmaps;
	gboolean has_runs;     /* some name is a run's */
	GCancellable *runs_cancel; /* the scan for them running, or NULL */
	GPtrArray *runs;       /* its answer (NULL until it lands): per file, a GArray of
	                          disjoint [from, to) pairs of int64_t, ascending */
};

static GPtrArray *runs_new(size_t n)
{
	GPtrArray *a = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);

	for (size_t p = 0; p < n; p++)
		g_ptr_array_add(a, g_array_new(FALSE, FALSE, 2 * sizeof(int64_t)));
	return a;
}

static struct sa_series *state(SaTimeline *self)
{
	if (!self->sseries) {
		uint32_t *ids = NULL;
		size_t n = 0;

		self->sseries = g_new0(struct sa_series, 1);
		if (tsr_trace_get_heatmaps(&self->sseries->heatmaps, &self->sseries->n_heatmaps,
		                           self->trace) != TSR_OK) {
			g_warning("timeline: %s", tsr_trace_error(self->trace));
			self->sseries->n_heatmaps = 0;
		}
		if (tsr_trace_list_matching_names(&ids, &n, self->trace, RUN_PATTERN,
		                                  TSR_TRACE_MATCH_REGEX) == TSR_OK)
			self->sseries->has_runs = n > 0;
		free(ids);
		self->sseries->rows = g_new0(series_row, self->sseries->n_heatmaps + 2 * self->n_procs + 1);
	}
	return self->sseries;
}

static series_row *row_of(SaTimeline *self, const sa_row *r)
{
	return &state(self)->rows[r->index];
}

void sa_timeline_series_clear(SaTimeline *self)
{
	struct sa_series *st = self->sseries;

	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++) {
		g_free(st->rows[i].counts);
		g_free(st->rows[i].sampled);
		g_free(st->rows[i].busy);
	}
	tsd_cancel_clear(&st->runs_cancel);
	g_clear_pointer(&st->runs, g_ptr_array_unref);
	g_free(st->rows);
	g_clear_pointer(&self->sseries, g_free);
}

size_t sa_timeline_series_count(SaTimeline *self)
{
	return state(self)->n_heatmaps + 2 * self->n_procs;
}

/* Appends a row of kind `kind` for `index` under header row `head`. */
static void add_row(SaTimeline *self, sr_kind kind, size_t index, size_t head, sa_row *rows,
                    size_t *k)
{
	struct sa_series *st = state(self);

	st->rows[st->n] = (series_row){.kind = kind, .index = index};
	rows[(*k)++] = (sa_row){.kind = SA_ROW_SERIES, .index = st->n++, .process = rows[head].index,
	                        .parent = head};
}

void sa_timeline_series_add_rows(SaTimeline *self, size_t head, sa_row *rows, size_t *k)
{
	struct sa_series *st = state(self);
	size_t p = rows[head].index;
	gboolean counters = FALSE;

	for (size_t c = 0; c < self->n_series; c++)
		counters |= self->series[c].process == p;
	if (st->has_runs)
		add_row(self, SR_ACTIVITY, p, head, rows, k);
	if (counters)
		add_row(self, SR_MERGED, p, head, rows, k);
	for (size_t h = 0; h < st->n_heatmaps; h++)
		if (st->heatmaps[h].process == p)
			add_row(self, SR_HEATMAP, h, head, rows, k);
}

gboolean sa_timeline_series_shown(SaTimeline *self, const sa_row *r)
{
	if (r->kind == SA_ROW_COUNTER)
		return !self->merge_charts;
	return r->kind != SA_ROW_SERIES || row_of(self, r)->kind != SR_MERGED || self->merge_charts;
}

/* A heatmap's plot: a band of BUCKET_H per bucket, at least the labels'
 * two lines. */
static int plot_h(SaTimeline *self, const series_row *sr)
{
	return MAX((int)(state(self)->heatmaps[sr->index].n_edges + 1) * BUCKET_H, 2 * ROW_H - 4);
}

int sa_timeline_series_height(SaTimeline *self, const sa_row *r)
{
	const series_row *sr = row_of(self, r);

	if (sr->kind == SR_ACTIVITY)
		return PROC_H + THREAD_GAP;
	if (sr->kind == SR_HEATMAP)
		return plot_h(self, sr) + 4 + THREAD_GAP;
	return COUNTER_H + THREAD_GAP;
}

const char *sa_timeline_series_kind(SaTimeline *self, const sa_row *r)
{
	static const char *const kinds[] = {"heatmap", "counters", "activity"};

	return kinds[row_of(self, r)->kind];
}

char *sa_timeline_series_label(SaTimeline *self, const sa_row *r)
{
	const series_row *sr = row_of(self, r);

	switch (sr->kind) {
	case SR_HEATMAP:
		return tsd_name_cut(state(self)->heatmaps[sr->index].name);
	case SR_MERGED:
		return g_strdup("All counters");
	case SR_ACTIVITY:
	default:
		return g_strdup("IPU activity");
	}
}

/* The text of bucket b of heatmap `hm`: "10 – 100 cycles". */
static char *bucket_text(const tsr_trace_heatmap *hm, size_t b)
{
	const char *sp = *hm->unit ? " " : "";

	if (b == 0)
		return g_strdup_printf("below %g%s%s", hm->edges[0], sp, hm->unit);
	if (b == hm->n_edges)
		return g_strdup_printf("%g%s%s and up", hm->edges[b - 1], sp, hm->unit);
	return g_strdup_printf("%g – %g%s%s", hm->edges[b - 1], hm->edges[b], sp, hm->unit);
}

char *sa_timeline_series_axis(SaTimeline *self, const sa_row *r)
{
	const series_row *sr = row_of(self, r);
	const tsr_trace_heatmap *hm;

	switch (sr->kind) {
	case SR_HEATMAP:
		hm = &state(self)->heatmaps[sr->index];
		return g_strdup_printf("%zu buckets%s%s", hm->n_edges + 1, *hm->unit ? ", " : "",
		                       hm->unit);
	case SR_MERGED:
		return sr->queried && sr->lo <= sr->hi ? g_strdup_printf("%.4g – %.4g", sr->lo, sr->hi)
		                                       : g_strdup("no samples in view");
	case SR_ACTIVITY:
	default: /* the tooltip and the description say the share */
		return g_strdup(state(self)->runs ? "" : "computing…");
	}
}

/* --- Heatmaps --------------------------------------------------------------------- */

/* Counts per column of the view, a sample holding until the next one. */
static void query_heatmap(SaTimeline *self, series_row *sr, int width)
{
	const tsr_trace_heatmap *hm = &state(self)->heatmaps[sr->index];
	size_t pw = (size_t)sa_timeline_plot_width(width), nb = hm->n_edges + 1;
	uint64_t *counts = NULL, *before = NULL;
	const uint64_t *hold = NULL;

	g_clear_pointer(&sr->counts, g_free);
	g_clear_pointer(&sr->sampled, g_free);
	sr->columns = 0;
	sr->queried = TRUE;
	if (tsr_trace_list_heatmap_counts(&counts, self->trace, sr->index, self->vp.from,
	                                  self->vp.to + 1, pw) != TSR_OK) {
		g_warning("timeline: %s", tsr_trace_error(self->trace));
		return;
	}
	/* The last sample before the view holds into it. */
	if (hm->samples > 0 && hm->first_ns < self->vp.from &&
	    tsr_trace_list_heatmap_counts(&before, self->trace, sr->index, hm->first_ns, self->vp.from,
	                                  BEFORE_COLUMNS) == TSR_OK)
		for (size_t c = BEFORE_COLUMNS; c-- > 0 && !hold;)
			for (size_t b = 0; b < nb && !hold; b++)
				hold = before[c * nb + b] ? before + c * nb : NULL;
	sr->counts = g_new0(uint64_t, pw * nb);
	sr->sampled = g_new0(guint8, pw);
	for (size_t c = 0; c < pw; c++) {
		int64_t at = self->vp.from + (int64_t)((double)c * sa_timeline_ns_per_px(self, width));

		for (size_t b = 0; b < nb; b++)
			sr->sampled[c] |= counts[c * nb + b] > 0;
		if (sr->sampled[c])
			hold = counts + c * nb;
		else if (at > hm->last_ns)
			hold = NULL;
		if (hold)
			memcpy(sr->counts + c * nb, hold, nb * sizeof(*hold));
	}
	sr->columns = pw;
	free(counts);
	free(before);
}

static void draw_heatmap(SaTimeline *self, GtkSnapshot *s, series_row *sr, int width, int top,
                         gboolean dark)
{
	const tsr_trace_heatmap *hm = &state(self)->heatmaps[sr->index];
	size_t nb = hm->n_edges + 1;
	float band = (float)plot_h(self, sr) / (float)nb;
	GdkRGBA ground = sa_timeline_foreground(self, dark ? 0.08 : 0.05);
	uint64_t max = 1;
	int *level;

	query_heatmap(self, sr, width);
	gtk_snapshot_append_color(s, &ground, &GRAPHENE_RECT_INIT(LABEL_W, (float)top + 2,
	                                                          (float)sr->columns,
	                                                          (float)plot_h(self, sr)));
	self->nodes++;
	for (size_t i = 0; i < sr->columns * nb; i++)
		max = MAX(max, sr->counts[i]);
	level = g_new(int, MAX(sr->columns, 1));
	for (size_t b = 0; b < nb; b++) {
		for (size_t p = 0; p < sr->columns; p++)
			level[p] = sa_timeline_heat_level((double)sr->counts[p * nb + b], (double)max);
		self->nodes += sa_timeline_draw_heat_cells(
		    s, level, sr->columns, (float)top + 2 + (float)(nb - 1 - b) * band, band - 1, dark);
	}
	g_free(level);
}

/* --- IPU activity ------------------------------------------------------------------ */

static int compare_pairs(gconstpointer a, gconstpointer b)
{
	const int64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* The runtime's run spans of every file (data: how many files), merged
 * into disjoint intervals, on the worker (SaDocumentJobFunc). */
static gpointer read_runs(tsr_trace *trace, gpointer data, GCancellable *cancellable,
                          GError **error)
{
	tsr_trace_search_query q = TSR_TRACE_SEARCH_QUERY_INIT;
	const tsr_trace_thread *threads;
	tsr_trace_found *found = NULL;
	size_t n = 0, n_threads;
	uint64_t total = 0;
	GPtrArray *a = runs_new(GPOINTER_TO_SIZE(data));
	int rc;

	(void)cancellable; /* reportlib's progress callback stops the search */
	q.pattern = RUN_PATTERN;
	q.mode = TSR_TRACE_MATCH_REGEX;
	q.limit = 1u << 20;
	if ((rc = tsr_trace_get_threads(&threads, &n_threads, trace)) != TSR_OK ||
	    (rc = tsr_trace_search(&found, &n, &total, trace, &q)) != TSR_OK) {
		tsd_load_set_error(error, rc, tsr_trace_error(trace));
		g_ptr_array_unref(a);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t pair[2] = {found[i].event.start_ns, found[i].event.end_ns};

		if (found[i].thread < n_threads && threads[found[i].thread].process < a->len)
			g_array_append_val(g_ptr_array_index(a, threads[found[i].thread].process), pair);
	}
	free(found);
	for (size_t p = 0; p < a->len; p++) {
		GArray *r = g_ptr_array_index(a, p);
		size_t k = 0;

		g_array_sort(r, compare_pairs);
		for (size_t i = 0; i < r->len; i++) {
			int64_t *cur = &g_array_index(r, int64_t, 2 * i), *last;

			last = k > 0 ? &g_array_index(r, int64_t, 2 * (k - 1)) : NULL;
			if (last && cur[0] <= last[1])
				last[1] = MAX(last[1], cur[1]);
			else
				memmove(&g_array_index(r, int64_t, 2 * k++), cur, 2 * sizeof(int64_t));
		}
		g_array_set_size(r, (guint)k);
	}
	return a;
}

/* The scan came back: its runs drawn (none after a failure, said once),
 * unless a new document cancelled it. */
static void on_runs_read(GObject *source, GAsyncResult *result, gpointer data)
{
	SaTimeline *self = data;
	g_autoptr(GError) error = NULL;
	GPtrArray *a = sa_document_run_finish(result, &error);
	struct sa_series *st = self->sseries;

	if (st && g_task_get_cancellable(G_TASK(result)) == st->runs_cancel) {
		g_clear_object(&st->runs_cancel);
		if (!a)
			g_warning("timeline: %s", error->message);
		st->runs = a ? g_steal_pointer(&a) : runs_new(self->n_procs);
		sa_timeline_invalidate(self);
	}
	g_clear_pointer(&a, g_ptr_array_unref);
	g_object_unref(self);
}

/* The fraction of each column of the view covered by file `p`'s runs. */
static void query_activity(SaTimeline *self, series_row *sr, int width)
{
	struct sa_series *st = state(self);
	GArray *a;
	size_t pw = (size_t)sa_timeline_plot_width(width), i = 0, lo = 0, hi;
	double npp = sa_timeline_ns_per_px(self, width);

	g_free(sr->busy);
	sr->busy = g_new0(double, pw);
	sr->columns = pw;
	sr->queried = st->runs != NULL;
	if (!st->runs) {
		if (!st->runs_cancel) {
			st->runs_cancel = g_cancellable_new();
			sa_document_run_async(self->doc, read_runs, GSIZE_TO_POINTER(self->n_procs), NULL,
			                      (GDestroyNotify)g_ptr_array_unref, st->runs_cancel,
			                      on_runs_read, g_object_ref(self));
		}
		return;
	}
	a = g_ptr_array_index(st->runs, sr->index);
	/* The first run ending after the view starts. */
	hi = a->len;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g_array_index(a, int64_t, 2 * mid + 1) <= self->vp.from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < a->len; i++) {
		double x0 = ((double)g_array_index(a, int64_t, 2 * i) - (double)self->vp.from) / npp;
		double x1 = ((double)g_array_index(a, int64_t, 2 * i + 1) - (double)self->vp.from) / npp;

		if (x0 >= (double)pw)
			break;
		for (size_t c = (size_t)MAX(floor(x0), 0); c < pw && c < x1; c++)
			sr->busy[c] += MIN(x1, c + 1.0) - MAX(x0, (double)c);
	}
}

static void draw_activity(SaTimeline *self, GtkSnapshot *s, series_row *sr, int width, int top,
                          gboolean dark)
{
	GdkRGBA ground = sa_timeline_foreground(self, dark ? 0.08 : 0.05);
	GdkRGBA bar = dark ? (GdkRGBA){0.38f, 0.63f, 0.92f, 1} : (GdkRGBA){0.11f, 0.44f, 0.85f, 1};
	float h = PROC_H - 4;

	query_activity(self, sr, width);
	gtk_snapshot_append_color(s, &ground, &GRAPHENE_RECT_INIT(LABEL_W, (float)top + 2,
	                                                          (float)sr->columns, h));
	self->nodes++;
	for (size_t p = 0; p < sr->columns;) {
		/* Heights to the pixel: a run of equal columns is one node. */
		int px = (int)ceil(MIN(sr->busy[p], 1) * h);
		size_t q = p + 1;

		while (q < sr->columns && (int)ceil(MIN(sr->busy[q], 1) * h) == px)
			q++;
		if (px > 0) {
			gtk_snapshot_append_color(s, &bar, &GRAPHENE_RECT_INIT((float)(LABEL_W + p),
			                                                       (float)top + 2 + h - (float)px,
			                                                       (float)(q - p), (float)px));
			self->nodes++;
		}
		p = q;
	}
}

/* --- Merged counters --------------------------------------------------------------- */

static void draw_merged(SaTimeline *self, GtkSnapshot *s, series_row *sr, int width, int top,
                        gboolean dark)
{
	sr->lo = INFINITY;
	sr->hi = -INFINITY;
	sr->queried = TRUE;
	for (size_t c = 0; c < self->n_series; c++) {
		if (self->series[c].process != sr->index)
			continue;
		sa_timeline_query_counter(self, c, width);
		if (self->cdata[c].n_buckets > 0 || isfinite(self->cdata[c].before)) {
			sr->lo = MIN(sr->lo, self->cdata[c].lo);
			sr->hi = MAX(sr->hi, self->cdata[c].hi);
		}
	}
	for (size_t c = 0; sr->lo <= sr->hi && c < self->n_series; c++)
		if (self->series[c].process == sr->index)
			sa_timeline_draw_counter_on(self, s, c, width, top, sr->lo, sr->hi, FALSE, dark);
}

void sa_timeline_draw_series(SaTimeline *self, GtkSnapshot *s, const sa_row *r, int width,
                             gboolean dark)
{
	series_row *sr = row_of(self, r);
	int top = sa_timeline_row_top(self, r);

	if (sr->kind == SR_HEATMAP)
		draw_heatmap(self, s, sr, width, top, dark);
	else if (sr->kind == SR_ACTIVITY)
		draw_activity(self, s, sr, width, top, dark);
	else
		draw_merged(self, s, sr, width, top, dark);
}

/* --- What the rows say ------------------------------------------------------------- */

/* Heatmap `sr`'s values in view (the samples in it, not the held ones)
 * per bucket into sums[]; returns their total. */
static uint64_t heatmap_sums(SaTimeline *self, const series_row *sr, uint64_t *sums)
{
	size_t nb = state(self)->heatmaps[sr->index].n_edges + 1;
	uint64_t total = 0;

	memset(sums, 0, nb * sizeof(*sums));
	for (size_t c = 0; c < sr->columns; c++)
		for (size_t b = 0; sr->sampled[c] && b < nb; b++) {
			sums[b] += sr->counts[c * nb + b];
			total += sr->counts[c * nb + b];
		}
	return total;
}

char *sa_timeline_series_tooltip(SaTimeline *self, const sa_row *r, int width, double x,
                                 double y)
{
	const series_row *sr = row_of(self, r);
	size_t c = (size_t)MAX(x - LABEL_W, 0);
	int top = sa_timeline_row_top(self, r);

	if (!sr->queried || (sr->kind != SR_MERGED && c >= sr->columns))
		return NULL;
	if (sr->kind == SR_HEATMAP) {
		const tsr_trace_heatmap *hm = &state(self)->heatmaps[sr->index];
		size_t nb = hm->n_edges + 1;
		double band = (double)plot_h(self, sr) / (double)nb;
		int b = (int)nb - 1 - (int)floor((y - top - 2) / band);
		g_autofree char *name = tsd_name_cut(hm->name), *bucket = NULL, *n = NULL;

		if (b < 0 || b >= (int)nb || !sr->counts)
			return NULL;
		bucket = bucket_text(hm, (size_t)b);
		n = sa_format_count(sr->counts[c * nb + (size_t)b]);
		return g_markup_printf_escaped("<b>%s</b>\n%s: %s values%s", name, bucket, n,
		                               sr->sampled[c] ? "" : " (the sample before)");
	}
	if (sr->kind == SR_ACTIVITY)
		return g_markup_printf_escaped("<b>IPU activity</b>\n%.0f %% of this column's time in "
		                               "program runs", 100 * MIN(sr->busy[c], 1));
	{
		GString *t = g_string_new("<b>All counters</b>");

		for (size_t k = 0; k < self->n_series; k++) {
			const counter_rows *cr = &self->cdata[k];
			double v = cr->before;
			g_autofree char *name = NULL, *text = NULL;

			if (self->series[k].process != sr->index)
				continue;
			/* The value holding at x: the last bucket starting before it. */
			for (size_t i = 0; i < cr->n_buckets; i++)
				if (sa_timeline_x_of(self, width, cr->buckets[i].from) <= x)
					v = cr->buckets[i].last;
			name = g_strdup_printf("%s: %s", self->series[k].graph, self->series[k].name);
			text = g_markup_printf_escaped("\n%s %.6g %s", name, v, self->series[k].unit);
			g_string_append(t, text);
		}
		return g_string_free(t, FALSE);
	}
}

void sa_timeline_series_describe(SaTimeline *self, const sa_row *r, GString *d)
{
	const series_row *sr = row_of(self, r);
	g_autofree char *axis = sa_timeline_series_axis(self, r);

	if (sr->kind == SR_HEATMAP) {
		const tsr_trace_heatmap *hm = &state(self)->heatmaps[sr->index];
		g_autofree uint64_t *sums = g_new0(uint64_t, hm->n_edges + 1);
		uint64_t total = sr->queried ? heatmap_sums(self, sr, sums) : 0;
		size_t top = 0;
		g_autofree char *n = sa_format_count(total), *bucket = NULL, *nt = NULL;

		for (size_t b = 1; b <= hm->n_edges; b++)
			top = sums[b] > sums[top] ? b : top;
		bucket = bucket_text(hm, top);
		nt = sa_format_count(sums[top]);
		g_string_append_printf(d, ", heatmap, %s values in view", n);
		if (total > 0)
			g_string_append_printf(d, ", most in %s (%s)", bucket, nt);
	} else if (sr->kind == SR_ACTIVITY && !sr->queried) {
		g_string_append(d, ", activity, computing");
	} else if (sr->kind == SR_ACTIVITY) {
		double sum = 0;

		for (size_t c = 0; c < sr->columns; c++)
			sum += MIN(sr->busy[c], 1);
		g_string_append_printf(d, ", activity, IPU running %.1f %% of the view",
		                       sr->columns ? 100 * sum / (double)sr->columns : 0.0);
	} else {
		size_t k = 0;

		for (size_t c = 0; c < self->n_series; c++)
			k += self->series[c].process == sr->index;
		g_string_append_printf(d, ", merged, %zu series on one axis, %s", k, axis);
	}
}
