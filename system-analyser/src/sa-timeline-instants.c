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

#include <math.h>
#include <string.h>

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

		m->to_ns = in->t_ns;
		m->count++;
		return;
	}
	if (self->n_marks == self->cap_marks) {
		self->cap_marks = MAX(self->cap_marks * 2, 256);
		self->marks = g_renew(sa_instant_mark, self->marks, self->cap_marks);
	}
	self->marks[self->n_marks++] = (sa_instant_mark){
		.from_ns = in->t_ns, .to_ns = in->t_ns, .count = 1, .name = in->name, .thread = in->thread};
}

void sa_timeline_query_instants(SaTimeline *self, size_t thread, int width)
{
	int64_t from = self->vp.from, to = self->vp.to + 1;
	size_t skip = 0;
	guint index = 0;
	TscFold fold;

	tsc_fold_init(&fold, SA_TIMELINE_FOLD_PX, 0);

	for (;;) {
		tsr_trace_instant *in = NULL;
		size_t n = 0, same = 0;

		if (tsr_trace_list_instants(&in, &n, self->trace, (int64_t)thread, from, to,
		                            skip + CHUNK) != TSR_OK) {
			g_warning("timeline: %s", tsr_trace_error(self->trace));
			free(in);
			return;
		}
		for (size_t i = skip; i < n; i++)
			add_instant(self, &fold, index++, sa_timeline_x_of(self, width, in[i].t_ns), &in[i]);
		self->instants_in_view += n > skip ? n - skip : 0;
		if (n < skip + CHUNK) {
			free(in);
			return;
		}
		/* The next chunk starts at the last instant's time, past the
		 * ones at that time already counted. */
		while (same < n && in[n - 1 - same].t_ns == in[n - 1].t_ns)
			same++;
		from = in[n - 1].t_ns;
		skip = same;
		free(in);
	}
}

void sa_timeline_draw_instants(SaTimeline *self, GtkSnapshot *s, PangoLayout *layout,
                               size_t thread, int width, int top, gboolean dark)
{
	GdkRGBA tick = dark ? (GdkRGBA){1.0f, 0.48f, 0.39f, 1} : (GdkRGBA){0.80f, 0.11f, 0.14f, 1};
	GdkRGBA band = tick, text = sa_timeline_foreground(self, 0.9);
	char buf[48];

	band.alpha = 0.35f;
	for (size_t i = 0; i < self->n_marks; i++) {
		const sa_instant_mark *m = &self->marks[i];
		double x0, x1;

		if (m->thread != thread)
			continue;
		x0 = sa_timeline_x_of(self, width, m->from_ns);
		x1 = sa_timeline_x_of(self, width, m->to_ns);
		if (m->count == 1) {
			gtk_snapshot_append_color(s, &tick, &GRAPHENE_RECT_INIT((float)x0 - 1, (float)top + 2,
			                                                        2, INSTANT_H - 4));
			self->nodes++;
			continue;
		}
		/* A folded run: a band over it (at least the fold width), its
		 * count when it fits. */
		x0 = floor(x0) - 1;
		x1 = MAX(ceil(x1) + 1, x0 + SA_TIMELINE_FOLD_PX);
		gtk_snapshot_append_color(s, &band, &GRAPHENE_RECT_INIT((float)x0, (float)top + 2,
		                                                        (float)(x1 - x0), INSTANT_H - 4));
		self->nodes++;
		if (x1 - x0 >= 24 && tsc_fold_count_label(layout, m->count, x1 - x0 - 4, buf,
		                                             sizeof(buf)))
			sa_timeline_draw_text(s, layout, buf, x0 + 2, top, x1 - x0 - 4, &text);
	}
}

const sa_instant_mark *sa_timeline_instant_at(SaTimeline *self, size_t thread, int width,
                                              double x)
{
	const sa_instant_mark *best = NULL;
	double best_d = 4;

	for (size_t i = 0; i < self->n_marks; i++) {
		const sa_instant_mark *m = &self->marks[i];
		double x0, x1, d;

		if (m->thread != thread)
			continue;
		x0 = sa_timeline_x_of(self, width, m->from_ns) - 1;
		x1 = sa_timeline_x_of(self, width, m->to_ns) + 1;
		d = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
		if (d < best_d) {
			best_d = d;
			best = m;
		}
	}
	return best;
}
