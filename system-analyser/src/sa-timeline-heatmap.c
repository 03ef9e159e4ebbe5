/*
 * A folded thread or file drawn as one row: a heatmap of its busy
 * fraction per pixel column. Each thread is asked for its items at one
 * pixel of resolution; the outermost ones (depth 0 EVENT and MERGED
 * items, and SUMMARY buckets, whose busy_ns is the time covered by
 * outermost spans) spread their busy time over the columns they cover.
 * A file's row averages its threads. Every span the queries stand for is
 * counted, as an expanded row's are; a column with any busy time is at
 * least the faintest shade, so a short span never vanishes. The heatmap
 * rows (sa-timeline-series.c) are painted with the same shades.
 */
#include "sa-timeline-private.h"

#include <math.h>

#define LEVELS 8

int sa_timeline_heat_level(double v, double max)
{
	return v > 0 ? CLAMP((int)ceil(v / max * LEVELS), 1, LEVELS) : 0;
}

guint sa_timeline_draw_heat_cells(GtkSnapshot *s, const int *level, size_t n, float y, float h,
                                  gboolean dark)
{
	GdkRGBA heat = dark ? (GdkRGBA){0.98f, 0.62f, 0.25f, 1} : (GdkRGBA){0.85f, 0.33f, 0.05f, 1};
	guint nodes = 0;

	for (size_t p = 0; p < n;) {
		size_t q = p + 1;

		/* A run of columns of one shade: one node. */
		while (q < n && level[q] == level[p])
			q++;
		if (level[p] > 0) {
			GdkRGBA c = heat;

			c.alpha = 0.12f + 0.88f * (float)level[p] / LEVELS;
			gtk_snapshot_append_color(s, &c, &GRAPHENE_RECT_INIT((float)(LABEL_W + p), y,
			                                                     (float)(q - p), h));
			nodes++;
		}
		p = q;
	}
	return nodes;
}

/* Adds item `it`'s busy time to busy[] (ns per pixel column). */
static void spread(SaTimeline *self, int width, const tsr_trace_item *it, double *busy, int pw)
{
	double npp = sa_timeline_ns_per_px(self, width);
	double a = (double)(it->start_ns - self->vp.from) / npp;
	double b = (double)(it->end_ns - self->vp.from) / npp;
	double len = (double)(it->end_ns - it->start_ns);
	double density = len > 0 ? (double)it->busy_ns / len : 0; /* busy ns per ns */

	if (it->busy_ns == 0 || b <= 0 || a >= pw)
		return;
	a = MAX(a, 0);
	b = MIN(b, pw);
	for (int p = (int)floor(a); p < pw && p < b; p++) {
		double lo = MAX(a, p), hi = MIN(b, p + 1);

		if (hi > lo)
			busy[p] += (hi - lo) * npp * density;
	}
}

void sa_timeline_draw_heatmap(SaTimeline *self, GtkSnapshot *s, const sa_row *row, int width,
                              int top, int h, gboolean dark)
{
	int pw = sa_timeline_plot_width(width);
	double *busy = g_new0(double, pw);
	int *level = g_new(int, pw);
	size_t first = row->index, n = 1;
	uint64_t res = (uint64_t)MAX(ceil(sa_timeline_ns_per_px(self, width)), 1);
	GdkRGBA ground = sa_timeline_foreground(self, dark ? 0.08 : 0.05);
	double cap;

	if (row->kind == SA_ROW_PROCESS) {
		first = self->procs[row->index].first_thread;
		n = self->procs[row->index].n_threads;
	}
	for (size_t t = first; t < first + n && t < self->n_threads; t++) {
		tsr_trace_item *items = NULL;
		size_t n_items = 0;

		if (tsr_trace_list_events(&items, &n_items, self->trace, t, self->vp.from,
		                          self->vp.to + 1, res) != TSR_OK) {
			g_warning("timeline: %s", tsr_trace_error(self->trace));
			continue;
		}
		for (size_t i = 0; i < n_items; i++) {
			self->spans_in_view += items[i].count;
			self->folded += items[i].kind != TSR_TRACE_ITEM_EVENT;
			if (items[i].kind == TSR_TRACE_ITEM_SUMMARY || items[i].depth == 0)
				spread(self, width, &items[i], busy, pw);
		}
		free(items);
	}
	gtk_snapshot_append_color(s, &ground, &GRAPHENE_RECT_INIT(LABEL_W, (float)top, (float)pw,
	                                                          (float)h));
	self->nodes++;
	cap = sa_timeline_ns_per_px(self, width) * (double)MAX(n, 1);
	for (int p = 0; p < pw; p++)
		level[p] = sa_timeline_heat_level(busy[p], cap);
	self->nodes += sa_timeline_draw_heat_cells(s, level, (size_t)pw, (float)top, (float)h, dark);
	g_free(busy);
	g_free(level);
}
