/*
 * Instant events as markers in a lane above their thread's spans. The
 * instants of the window are read in chunks (so a window holding millions
 * costs memory for its markers, not its instants) and folded as they
 * come by the chart kit's folding rule (tsc-timeline.h): instants closer
 * together than the fold width become one marker carrying their count, so
 * a dense run is one counted mark and none vanishes; a lone instant is a
 * tick in a colour spans do not use.
 */
#include "sa-timeline-private.h"

/* Instants read per query. */
#define CHUNK 65536

/* Instant `index` of the thread's window at x: the rule folds it into the
 * last marker or opens a new one. */
static void add_instant(SaTimeline *self, TscFold *fold, guint index, double x,
                        const tsr_trace_instant *in)
{
	TscFoldItem item = {.x0 = x, .x1 = x, .count = 1};
	TscFoldMark done[2];

	tsc_fold_push(fold, &item, index, done);
	if (fold->mark.first != index) {
		sa_instant_mark *m = &self->marks[self->n_marks - 1];

		m->m.to = in->t_ns;
		m->m.count++;
		return;
	}
	if (self->n_marks == self->cap_marks) {
		self->cap_marks = MAX(self->cap_marks * 2, 256);
		self->marks = g_renew(sa_instant_mark, self->marks, self->cap_marks);
	}
	self->marks[self->n_marks++] = (sa_instant_mark){
		.m = {.from = in->t_ns, .to = in->t_ns, .count = 1}, .name = in->name,
		.thread = in->thread};
}

void sa_timeline_query_instants(SaTimeline *self, size_t thread, int width)
{
	int64_t from = self->vp.from, to = self->vp.to + 1;
	size_t skip = 0;
	guint index = 0;
	TscFold fold;

	tsc_fold_init(&fold, SA_TIMELINE_FOLD_PX, 0);
	self->tdata[thread].first_mark = self->n_marks;
	self->tdata[thread].n_marks = 0;
	for (;;) {
		tsr_trace_instant *in = NULL;
		size_t n = 0, same = 0;

		if (tsr_trace_list_instants(&in, &n, self->trace, (int64_t)thread, from, to,
		                            skip + CHUNK) != TSR_OK) {
			g_warning("timeline: %s", tsr_trace_error(self->trace));
			free(in);
			break;
		}
		for (size_t i = skip; i < n; i++)
			add_instant(self, &fold, index++, sa_timeline_x_of(self, width, in[i].t_ns), &in[i]);
		self->instants_in_view += n > skip ? n - skip : 0;
		if (n < skip + CHUNK) {
			free(in);
			break;
		}
		/* The next chunk starts at the last instant's time, past the
		 * ones at that time already counted. */
		while (same < n && in[n - 1 - same].t_ns == in[n - 1].t_ns)
			same++;
		from = in[n - 1].t_ns;
		skip = same;
		free(in);
	}
	self->tdata[thread].n_marks = self->n_marks - self->tdata[thread].first_mark;
}

/* The thread's markers of the last rebuild (none before its query). */
static const sa_instant_mark *thread_marks(SaTimeline *self, size_t thread, size_t *n)
{
	const thread_rows *r = &self->tdata[thread];

	*n = r->queried && r->first_mark + r->n_marks <= self->n_marks ? r->n_marks : 0;
	return *n ? &self->marks[r->first_mark] : NULL;
}

void sa_timeline_draw_instants(SaTimeline *self, GtkSnapshot *s, PangoLayout *layout,
                               size_t thread, int width, int top, gboolean dark)
{
	GdkRGBA tick = dark ? (GdkRGBA){1.0f, 0.48f, 0.39f, 1} : (GdkRGBA){0.80f, 0.11f, 0.14f, 1};
	GdkRGBA band = tick, text = sa_timeline_foreground(self, 0.9);
	size_t n;
	const sa_instant_mark *marks = thread_marks(self, thread, &n);

	band.alpha = 0.35f;
	if (n > 0)
		self->nodes += tsc_timeline_draw_markers(s, layout, &self->vp, LABEL_W,
		                                         sa_timeline_plot_width(width), top, INSTANT_H,
		                                         &marks->m, n, sizeof(*marks), &tick, &band, &text);
}

const sa_instant_mark *sa_timeline_instant_at(SaTimeline *self, size_t thread, int width,
                                              double x)
{
	size_t n;
	const sa_instant_mark *marks = thread_marks(self, thread, &n);
	gssize i = n > 0 ? tsc_timeline_marker_at(&self->vp, LABEL_W, sa_timeline_plot_width(width),
	                                          &marks->m, n, sizeof(*marks), x)
	                 : -1;

	return i >= 0 ? &marks[i] : NULL;
}
