/*
 * The level-of-detail pyramid (tsc-lod-private.h). Level 0 holds the
 * items; node j of level L+1 merges nodes 2j and 2j+1 of level L. A range
 * query walks up from both ends taking the unpaired nodes, as in a
 * bottom-up segment tree: at most two nodes per level.
 */
#include "tsc-lod-private.h"

#include <math.h>

struct TscPyramid {
	guint n;
	guint n_levels;
	guint *level_len;    /* nodes per level */
	TscSpan **levels;
};

static void merge(TscSpan *acc, const TscSpan *s)
{
	if (s->min < acc->min)
		acc->min = s->min;
	if (s->max > acc->max || (s->max == acc->max && s->argmax < acc->argmax)) {
		acc->max = s->max;
		acc->argmax = s->argmax;
	}
	acc->sum += s->sum;
}

TscPyramid *tsc_pyramid_new(const double *values, guint n)
{
	TscPyramid *p;
	guint len, l, i;

	if (n == 0)
		return NULL;
	p = g_new0(TscPyramid, 1);
	p->n = n;
	for (len = n, p->n_levels = 1; len > 1; len = (len + 1) / 2)
		p->n_levels++;
	p->level_len = g_new(guint, p->n_levels);
	p->levels = g_new(TscSpan *, p->n_levels);
	p->level_len[0] = n;
	p->levels[0] = g_new(TscSpan, n);
	for (i = 0; i < n; i++) {
		double v = isnan(values[i]) ? 0 : values[i];

		p->levels[0][i] = (TscSpan){ v, v, v, i };
	}
	for (l = 1; l < p->n_levels; l++) {
		const TscSpan *below = p->levels[l - 1];
		guint below_len = p->level_len[l - 1];

		len = (below_len + 1) / 2;
		p->level_len[l] = len;
		p->levels[l] = g_new(TscSpan, len);
		for (i = 0; i < len; i++) {
			p->levels[l][i] = below[2 * i];
			if (2 * i + 1 < below_len)
				merge(&p->levels[l][i], &below[2 * i + 1]);
		}
	}
	return p;
}

void tsc_pyramid_free(TscPyramid *p)
{
	guint l;

	if (!p)
		return;
	for (l = 0; l < p->n_levels; l++)
		g_free(p->levels[l]);
	g_free(p->levels);
	g_free(p->level_len);
	g_free(p);
}

void tsc_pyramid_query(const TscPyramid *p, guint first, guint end, TscSpan *out)
{
	guint l = 0, a = first, b = end;

	g_assert(p && first < end && end <= p->n);
	*out = (TscSpan){ INFINITY, -INFINITY, 0, first };
	while (a < b) {
		if (a & 1)
			merge(out, &p->levels[l][a++]);
		if (b & 1)
			merge(out, &p->levels[l][--b]);
		a >>= 1;
		b >>= 1;
		l++;
	}
}
