/*
 * The level-of-detail pyramid (tilescope/lod.h), moved from the chart kit
 * so that the HTML writer folds items as the apps do. Level 0 holds the
 * items; node j of level L+1 merges nodes 2j and 2j+1 of level L; all
 * levels lie in one array, level L from offset[L]. A range query walks up
 * from both ends taking the unpaired nodes, as in a bottom-up segment
 * tree: at most two nodes per level.
 */
#define TSB_BUILDING_LIBRARY 1
#include "tilescope/lod.h"
#include "tilescope/alloc.h"

#include <math.h>

struct tsb_pyramid {
	size_t n;
	size_t n_levels;
	tsb_span *nodes;
	size_t offset[]; /* n_levels + 1: level L is nodes[offset[L] .. offset[L + 1]) */
};

static void merge(tsb_span *acc, const tsb_span *s)
{
	if (s->min < acc->min)
		acc->min = s->min;
	if (s->max > acc->max || (s->max == acc->max && s->argmax < acc->argmax)) {
		acc->max = s->max;
		acc->argmax = s->argmax;
	}
	acc->sum += s->sum;
}

TSB_API tsb_pyramid *tsb_pyramid_new(const double *values, size_t n)
{
	tsb_pyramid *p;
	size_t len, n_levels = 1, total = n;

	if (n == 0 || !values)
		return NULL;
	for (len = n; len > 1; n_levels++) {
		len = (len + 1) / 2;
		total += len;
	}
	p = tsb_malloc(sizeof(*p) + (n_levels + 1) * sizeof(p->offset[0]));
	if (!p)
		return NULL;
	p->nodes = tsb_calloc(total, sizeof(tsb_span));
	if (!p->nodes) {
		tsb_free(p);
		return NULL;
	}
	p->n = n;
	p->n_levels = n_levels;
	p->offset[0] = 0;
	p->offset[1] = n;
	for (size_t i = 0; i < n; i++) {
		double v = isnan(values[i]) ? 0 : values[i];

		p->nodes[i] = (tsb_span){ v, v, v, i };
	}
	for (size_t l = 1; l < n_levels; l++) {
		const tsb_span *below = p->nodes + p->offset[l - 1];
		size_t below_len = p->offset[l] - p->offset[l - 1];
		tsb_span *level = p->nodes + p->offset[l];

		len = (below_len + 1) / 2;
		p->offset[l + 1] = p->offset[l] + len;
		for (size_t i = 0; i < len; i++) {
			level[i] = below[2 * i];
			if (2 * i + 1 < below_len)
				merge(&level[i], &below[2 * i + 1]);
		}
	}
	return p;
}

TSB_API void tsb_pyramid_free(tsb_pyramid *p)
{
	if (!p)
		return;
	tsb_free(p->nodes);
	tsb_free(p);
}

TSB_API void tsb_pyramid_query(const tsb_pyramid *p, size_t first, size_t end, tsb_span *out)
{
	size_t l = 0, a = first, b;

	*out = (tsb_span){ INFINITY, -INFINITY, 0, first };
	if (!p)
		return;
	b = end < p->n ? end : p->n;
	while (a < b) {
		if (a & 1)
			merge(out, &p->nodes[p->offset[l] + a++]);
		if (b & 1)
			merge(out, &p->nodes[p->offset[l] + --b]);
		a >>= 1;
		b >>= 1;
		l++;
	}
}
