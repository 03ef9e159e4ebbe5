/*
 * The level-of-detail index (libtilescope-base, prefix tsb_): a
 * min/max/argmax/sum pyramid over one series of values, built once when
 * the data is set, so that "what is under this pixel column" costs
 * O(log n) and a frame O(width log n), never O(items). The chart kit's
 * charts and the HTML pages' per-tile charts fold items with it.
 */
#pragma once

#include <tilescope/tsb-api.h>

#include <stddef.h>

TSB_BEGIN_DECLS

/* What a range of items holds. */
typedef struct tsb_span {
	double min, max, sum;
	size_t argmax; /* the first item holding max */
} tsb_span;

typedef struct tsb_pyramid tsb_pyramid;

/* Builds the pyramid over values[0..n) (read, not kept). NaN values
 * count as 0. Returns NULL for n == 0 or when out of memory. The caller
 * frees it with tsb_pyramid_free (NULL is fine). */
TSB_API tsb_pyramid *tsb_pyramid_new(const double *values, size_t n);
TSB_API void tsb_pyramid_free(tsb_pyramid *p);
/* Items [first, end) summarised into *out, for first < end <= n. Items
 * past n are left out; no item at all (or a NULL pyramid) gives min
 * +infinity, max -infinity, sum 0 and argmax `first`. */
TSB_API void tsb_pyramid_query(const tsb_pyramid *p, size_t first, size_t end, tsb_span *out);

TSB_END_DECLS
