/*
 * The timeline's viewport, tick labels and folding rule (tsc-timeline.h):
 * plain arithmetic, no widget, so the apps and the unit tests share the
 * one convention for zoom and pan and the one rule for folding.
 */
#include <tilescope/tsc-timeline.h>
#include <tilescope/numfmt.h>

#include <math.h>

/* --- The viewport ------------------------------------------------------------------ */

/* The last unit a window may reach: the axis, or min_width past lo when
 * the axis is narrower than the narrowest window. */
static int64_t axis_end(const TscViewport *vp)
{
	return MAX(vp->hi, vp->lo + vp->min_width);
}

void tsc_viewport_init(TscViewport *vp, TscTimelineUnit unit, int64_t lo, int64_t hi,
                       int64_t min_width)
{
	g_return_if_fail(vp != NULL);
	vp->unit = unit;
	vp->lo = lo;
	vp->hi = MAX(hi, lo);
	vp->min_width = MAX(min_width, 1);
	vp->from = vp->lo;
	vp->to = axis_end(vp);
}

gboolean tsc_viewport_set(TscViewport *vp, int64_t from, int64_t to)
{
	int64_t end, w;
	uint64_t span;

	g_return_val_if_fail(vp != NULL, FALSE);
	end = axis_end(vp);
	/* In unsigned arithmetic: [INT64_MIN, INT64_MAX] ("everything") is a
	 * width too. */
	span = to > from ? (uint64_t)to - (uint64_t)from : 0;
	w = span >= (uint64_t)(end - vp->lo) ? end - vp->lo : MAX((int64_t)span, vp->min_width);
	from = CLAMP(from, vp->lo, end - w);
	if (from == vp->from && from + w == vp->to)
		return FALSE;
	vp->from = from;
	vp->to = from + w;
	return TRUE;
}

gboolean tsc_viewport_zoom(TscViewport *vp, double factor, double at)
{
	double w, pivot, nw, left;

	g_return_val_if_fail(vp != NULL, FALSE);
	if (!(factor > 0) || !isfinite(factor) || !isfinite(at))
		return FALSE;
	at = CLAMP(at, 0, 1);
	w = (double)(vp->to - vp->from);
	pivot = (double)vp->from + w * at;
	nw = w / factor;
	left = pivot - nw * at;
	/* Far past the axis either way: the clamp decides, not an overflow. */
	if (!(fabs(left) < 9e18 && fabs(left + nw) < 9e18))
		return tsc_viewport_set(vp, vp->lo, axis_end(vp));
	return tsc_viewport_set(vp, (int64_t)llround(left), (int64_t)llround(left + nw));
}

gboolean tsc_viewport_pan(TscViewport *vp, double fraction)
{
	double d;

	g_return_val_if_fail(vp != NULL, FALSE);
	d = (double)(vp->to - vp->from) * fraction;
	if (!isfinite(d))
		return FALSE;
	d = CLAMP(d, -(double)(axis_end(vp) - vp->lo), (double)(axis_end(vp) - vp->lo));
	return tsc_viewport_set(vp, vp->from + (int64_t)llround(d), vp->to + (int64_t)llround(d));
}

gboolean tsc_viewport_show_all(TscViewport *vp)
{
	g_return_val_if_fail(vp != NULL, FALSE);
	return tsc_viewport_set(vp, vp->lo, vp->hi);
}

gboolean tsc_viewport_set_width(TscViewport *vp, int64_t width)
{
	int64_t centre;

	g_return_val_if_fail(vp != NULL, FALSE);
	centre = vp->from + (vp->to - vp->from) / 2;
	width = CLAMP(width, vp->min_width, axis_end(vp) - vp->lo);
	return tsc_viewport_set(vp, centre - width / 2, centre - width / 2 + width);
}

double tsc_viewport_per_px(const TscViewport *vp, double plot_w)
{
	return (double)(vp->to - vp->from + 1) / MAX(plot_w, 1);
}

double tsc_viewport_x_of(const TscViewport *vp, double plot_x, double plot_w, int64_t t)
{
	return plot_x + (double)(t - vp->from) / tsc_viewport_per_px(vp, plot_w);
}

int64_t tsc_viewport_t_of(const TscViewport *vp, double plot_x, double plot_w, double x)
{
	return vp->from + (int64_t)llround((x - plot_x) * tsc_viewport_per_px(vp, plot_w));
}

double tsc_viewport_fraction_at(double plot_x, double plot_w, double x)
{
	return (x - plot_x) / MAX(plot_w, 1);
}

/* --- Tick labels ------------------------------------------------------------------- */

int tsc_timeline_tick_decimals(double step)
{
	int d = step >= 1 || !(step > 0) ? 0 : (int)ceil(-log10(step) - 1e-9);

	return CLAMP(d, 0, 9);
}

char *tsc_timeline_format_tick(TscTimelineUnit unit, double value, double step, double magnitude)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}};
	char buf[TSB_NUMBER_MAX];
	size_t i = 0;

	if (unit == TSC_TIMELINE_CYCLES)
		return g_strdup(tsb_format_axis(buf, sizeof(buf), round(value)));
	while (i + 1 < G_N_ELEMENTS(units) && magnitude < units[i].scale)
		i++;
	return g_strdup_printf("%.*f %s", tsc_timeline_tick_decimals(step / units[i].scale), value / units[i].scale,
	                       units[i].unit);
}

/* --- The folding rule -------------------------------------------------------------- */

/* Widths within this of min_px stand alone: an item exactly as wide as the
 * resolution must not fold for a rounding error. */
#define WIDTH_SLACK 1e-6

void tsc_fold_init(TscFold *fold, double min_px, double mix_px)
{
	g_return_if_fail(fold != NULL);
	*fold = (TscFold){.min_px = min_px, .mix_px = mix_px};
}

/* Closes the open fold into *out: whole pixels, at least one wide (a
 * lone item: itself). */
static guint close_fold(TscFold *fold, TscFoldMark *out)
{
	if (!fold->open)
		return 0;
	fold->open = FALSE;
	*out = fold->mark;
	if (fold->lone) {
		out->folded = FALSE;
		return 1;
	}
	out->x0 = floor(out->x0);
	out->x1 = MAX(ceil(fold->raw_x1), out->x0 + 1);
	return 1;
}

guint tsc_fold_push(TscFold *fold, const TscFoldItem *item, guint index, TscFoldMark out[2])
{
	guint n = 0;
	double x1;

	g_return_val_if_fail(fold != NULL && item != NULL && out != NULL, 0);
	x1 = MAX(item->x1, item->x0);
	if (!item->folded && x1 - item->x0 + WIDTH_SLACK >= fold->min_px) {
		n = close_fold(fold, &out[0]);
		out[n] = (TscFoldMark){.x0 = item->x0, .x1 = x1, .count = item->count, .first = index,
		                       .last = index, .row = item->row, .kind = item->kind};
		return n + 1;
	}
	if (fold->open && item->row == fold->mark.row && item->x0 - fold->raw_x1 < fold->min_px &&
	    (item->kind == fold->mark.kind || fold->raw_x1 - fold->mark.x0 < fold->mix_px)) {
		fold->mark.count += item->count;
		fold->mark.last = index;
		fold->lone = FALSE;
		fold->mark.mixed |= item->kind != fold->mark.kind;
		fold->raw_x1 = MAX(fold->raw_x1, x1);
		return 0;
	}
	n = close_fold(fold, &out[0]);
	fold->open = TRUE;
	fold->lone = !item->folded;
	fold->raw_x1 = x1;
	fold->mark = (TscFoldMark){.x0 = item->x0, .x1 = x1, .count = item->count, .first = index,
	                           .last = index, .row = item->row, .kind = item->kind,
	                           .folded = TRUE};
	return n;
}

guint tsc_fold_finish(TscFold *fold, TscFoldMark *out)
{
	g_return_val_if_fail(fold != NULL && out != NULL, 0);
	return close_fold(fold, out);
}

guint tsc_fold_items(const TscFoldItem *items, guint n, double min_px, double mix_px,
                     GArray *marks)
{
	TscFold fold;
	TscFoldMark out[2];
	guint made = 0, k;

	g_return_val_if_fail(marks != NULL && (items != NULL || n == 0), 0);
	tsc_fold_init(&fold, min_px, mix_px);
	for (guint i = 0; i < n; i++) {
		k = tsc_fold_push(&fold, &items[i], i, out);
		g_array_append_vals(marks, out, k);
		made += k;
	}
	k = tsc_fold_finish(&fold, out);
	g_array_append_vals(marks, out, k);
	return made + k;
}
