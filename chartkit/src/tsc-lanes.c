/*
 * Span lanes (tsc-timeline.h): what both apps' timelines draw of spans,
 * the Execution Trace's steps and frames and the System Analyser's spans
 * of a thread alike. A frame walks only the spans in the window: per row,
 * the first span reaching into it is a binary search over the running
 * maximum of the spans' ends (spans of a row may overlap), and the walk
 * stops at the first that starts after it. What is drawn goes through
 * the one folding rule (TscFold) and is kept for hit-testing.
 */
#include <tilescope/tsc-timeline.h>
#include <tilescope/tsc-palette.h>

#include <math.h>

void tsc_lane_init(TscLane *lane, const TscLaneFuncs *funcs, gpointer data)
{
	*lane = (TscLane){.funcs = funcs, .data = data, .row_h = 1};
	lane->spans = g_array_new(FALSE, FALSE, sizeof(TscSpan));
	lane->marks = g_array_new(FALSE, FALSE, sizeof(TscFoldMark));
	lane->max_to = g_array_new(FALSE, FALSE, sizeof(int64_t));
}

void tsc_lane_clear(TscLane *lane)
{
	g_clear_pointer(&lane->spans, g_array_unref);
	g_clear_pointer(&lane->marks, g_array_unref);
	g_clear_pointer(&lane->max_to, g_array_unref);
}

static int by_row_from(gconstpointer a, gconstpointer b)
{
	const TscSpan *x = a, *y = b;

	if (x->row != y->row)
		return x->row < y->row ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void tsc_lane_finish(TscLane *lane)
{
	const TscSpan *sp = (const TscSpan *)(void *)lane->spans->data;
	guint n = lane->spans->len;
	gboolean sorted = TRUE;

	for (guint i = 1; i < n && sorted; i++)
		sorted = by_row_from(&sp[i - 1], &sp[i]) <= 0;
	if (!sorted)
		g_array_sort(lane->spans, by_row_from);
	g_array_set_size(lane->max_to, n);
	for (guint i = 0; i < n; i++)
		g_array_index(lane->max_to, int64_t, i) =
		    i && sp[i - 1].row == sp[i].row ? MAX(g_array_index(lane->max_to, int64_t, i - 1), sp[i].to)
		                                    : sp[i].to;
}

/* The end of span i's row: the first span of a later row. */
static guint row_end(const TscSpan *sp, guint i, guint n)
{
	guint lo = i, hi = n;

	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (sp[mid].row <= sp[i].row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first span of [lo, hi) (one row) that reaches `from`. */
static guint first_reaching(const TscLane *lane, guint lo, guint hi, int64_t from)
{
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (g_array_index(lane->max_to, int64_t, mid) < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static guint rect(GtkSnapshot *s, const GdkRGBA *c, double x, double y, double w, double h)
{
	if (w <= 0 || h <= 0)
		return 0;
	gtk_snapshot_append_color(s, c, &GRAPHENE_RECT_INIT((float)x, (float)y, (float)w, (float)h));
	return 1;
}

static void text_at(GtkSnapshot *s, PangoLayout *layout, double x, double y, const GdkRGBA *c)
{
	gtk_snapshot_save(s);
	gtk_snapshot_translate(s, &GRAPHENE_POINT_INIT((float)x, (float)y));
	gtk_snapshot_append_layout(s, layout, c);
	gtk_snapshot_restore(s);
}

/* What the open fold holds, gathered as its spans are fed: the units of
 * each kind (a fold is drawn in the kind that takes most of them) and
 * whether it holds an outlined span. */
typedef struct FoldAcc {
	double units[TSC_LANE_KINDS];
	gboolean outlined;
} FoldAcc;

typedef struct Draw {
	GtkSnapshot *s;
	PangoLayout *layout;
	TscLane *lane;
	const GdkRGBA *fg;
	guint nodes;
} Draw;

static void outline_mark(Draw *d, const TscFoldMark *m, double y)
{
	GdkRGBA c = *d->fg;

	/* Lighter than a selection's outline, which must stand out among
	 * the other outlined spans. */
	c.alpha *= 0.7f;
	tsc_timeline_draw_outline(d->s, m->x0 - 1, m->x1 + 1, y + 1, d->lane->row_h - 2, &c, 1.5f);
}

/* A span as itself: at least a pixel wide, named where the name fits
 * (ellipsized only where a few characters still show). */
static void draw_span(Draw *d, const TscFoldMark *m, gboolean outlined)
{
	const TscLane *l = d->lane;
	const TscSpan *sp = &g_array_index(l->spans, TscSpan, m->first);
	GdkRGBA c = l->funcs->colour(sp, l->data), ink = tsc_palette_ink(&c);
	GdkRGBA edge = {c.red * 0.6f, c.green * 0.6f, c.blue * 0.6f, 1};
	double x0 = m->x0, w = MAX(m->x1, m->x0 + 1) - x0, y = l->y + m->row * l->row_h;
	double h = l->row_h - 2 * l->inset;

	d->nodes += rect(d->s, &c, x0, y + l->inset, w, h);
	if (w >= 2)
		d->nodes += rect(d->s, &edge, x0, y + l->inset, 1, h);
	if (w >= 20) {
		g_autofree char *name = l->funcs->dup_name(sp, l->data);
		int tw, th;

		if (name) {
			pango_layout_set_width(d->layout, -1);
			pango_layout_set_text(d->layout, name, -1);
			pango_layout_get_pixel_size(d->layout, &tw, &th);
			if (w >= 56 || tw <= w - 8) {
				pango_layout_set_width(d->layout, (int)(w - 8) * PANGO_SCALE);
				text_at(d->s, d->layout, x0 + 4, y + (l->row_h - th) / 2, &ink);
			}
		}
	}
	if (outlined)
		outline_mark(d, m, y);
}

/* A fold of several spans: lighter than a span, a solid foot, its count
 * where it fits. */
static void draw_fold(Draw *d, const TscFoldMark *m, const FoldAcc *acc)
{
	const TscLane *l = d->lane;
	double y = l->y + m->row * l->row_h, w = m->x1 - m->x0, best = 0;
	int kind = m->kind;
	GdkRGBA c, fill;
	char num[48];

	for (int k = 0; k < TSC_LANE_KINDS; k++)
		if (acc->units[k] > best) {
			best = acc->units[k];
			kind = k;
		}
	c = l->funcs->kind_colour(kind, l->data);
	fill = c;
	fill.alpha *= 0.6f;
	d->nodes += rect(d->s, &fill, m->x0, y + l->inset, w, l->row_h - 2 * l->inset);
	d->nodes += rect(d->s, &c, m->x0, y + l->row_h - l->inset - 3, w, 3);
	if (w >= 24 && tsc_fold_count_label(d->layout, m->count, w - 6, num, sizeof(num))) {
		GdkRGBA ink = *d->fg;
		int tw, th;

		ink.alpha *= 0.9f;
		pango_layout_get_pixel_size(d->layout, &tw, &th);
		text_at(d->s, d->layout, (m->x0 + m->x1 - tw) / 2, y + (l->row_h - 3 - th) / 2, &ink);
	}
	if (acc->outlined)
		outline_mark(d, m, y);
}

/* Draws the marks the folding rule completed and keeps them. A mark that
 * is not span `current` standing alone was the open fold (several spans,
 * or a lone sliver): it is drawn with what `acc` gathered, which then
 * starts over. */
static void draw_marks(Draw *d, const TscFoldMark *m, guint n, guint current, FoldAcc *acc)
{
	const TscLane *l = d->lane;

	for (guint j = 0; j < n; j++) {
		if (m[j].first == current)
			draw_span(d, &m[j],
			          l->funcs->outlined &&
			              l->funcs->outlined(&g_array_index(l->spans, TscSpan, current), l->data));
		else if (m[j].folded)
			draw_fold(d, &m[j], acc);
		else
			draw_span(d, &m[j], acc->outlined);
		if (m[j].first != current)
			*acc = (FoldAcc){0};
		g_array_append_val(l->marks, m[j]);
	}
}

guint tsc_lane_draw(GtkSnapshot *s, PangoLayout *layout, TscLane *lane, const TscViewport *vp,
                    double plot_x, double plot_w, const GdkRGBA *fg)
{
	const TscSpan *sp = (const TscSpan *)(void *)lane->spans->data;
	guint n = lane->spans->len;
	Draw d = {.s = s, .layout = layout, .lane = lane, .fg = fg};
	TscFold fold;
	TscFoldMark out[2];
	FoldAcc acc = {0};

	g_array_set_size(lane->marks, 0);
	pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
	tsc_fold_init(&fold, TSC_TIMELINE_FOLD_PX, lane->mix_px);
	for (guint r = 0, end; r < n; r = end) {
		end = row_end(sp, r, n);
		for (guint i = first_reaching(lane, r, end, vp->from); i < end && sp[i].from <= vp->to;
		     i++) {
			TscFoldItem item = {.count = sp[i].count, .row = sp[i].row,
			                    .kind = CLAMP(sp[i].kind, 0, TSC_LANE_KINDS - 1),
			                    .folded = sp[i].folded};

			item.x0 = MAX(tsc_viewport_x_of(vp, plot_x, plot_w, sp[i].from), plot_x - 1);
			item.x1 = MIN(tsc_viewport_x_of(vp, plot_x, plot_w, sp[i].to), plot_x + plot_w + 1);
			if (item.x1 < plot_x)
				continue; /* ended before the view (an earlier span reaches in) */
			draw_marks(&d, out, tsc_fold_push(&fold, &item, i, out), i, &acc);
			if (fold.open && fold.mark.last == i) {
				/* Zero-length spans still count, a little. */
				acc.units[item.kind] += (double)(sp[i].to - sp[i].from) + 0.5;
				acc.outlined |= lane->funcs->outlined && lane->funcs->outlined(&sp[i], lane->data);
			}
		}
	}
	draw_marks(&d, out, tsc_fold_finish(&fold, out), G_MAXUINT, &acc);
	return d.nodes;
}

gboolean tsc_lane_mark_at(const TscLane *lane, guint row, double x, guint *mark)
{
	const TscFoldMark *m = (const TscFoldMark *)(void *)lane->marks->data;
	guint lo = 0, hi = lane->marks->len;

	/* Marks are by row, then x. */
	while (lo < hi) {
		guint mid = lo + (hi - lo) / 2;

		if (m[mid].row < row || (m[mid].row == row && m[mid].x1 <= x - 1))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < lane->marks->len && m[lo].row == row && m[lo].x0 <= x + 1) {
		*mark = lo;
		return TRUE;
	}
	return FALSE;
}

void tsc_lane_mark_extent(const TscLane *lane, const TscFoldMark *mark, int64_t *from,
                          int64_t *to)
{
	*from = g_array_index(lane->spans, TscSpan, mark->first).from;
	*to = *from;
	for (guint i = mark->first; i <= mark->last && i < lane->spans->len; i++)
		*to = MAX(*to, g_array_index(lane->spans, TscSpan, i).to);
}

void tsc_lane_draw_outline(GtkSnapshot *s, const TscLane *lane, const TscViewport *vp,
                           double plot_x, double plot_w, int64_t from, int64_t to, guint row,
                           double pad, const GdkRGBA *colour, float w)
{
	double x0 = tsc_viewport_x_of(vp, plot_x, plot_w, from);
	double x1 = tsc_viewport_x_of(vp, plot_x, plot_w, to);
	double y = lane->y + row * lane->row_h + lane->inset;

	if (x1 - x0 < 3) {
		x0 = floor((x0 + x1) / 2) - 1;
		x1 = x0 + 3;
	}
	tsc_timeline_draw_outline(s, x0 - pad, x1 + pad, y - pad, lane->row_h - 2 * lane->inset + 2 * pad,
	                          colour, w);
}
