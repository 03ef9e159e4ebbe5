/*
 * The level-of-detail index of the chart kit: a min/max/argmax/sum
 * pyramid over one series of values, built once when data is set, so
 * that "what is under this pixel column" costs O(log n) and a frame
 * O(width log n), never O(items).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* What a range of items holds. */
typedef struct {
	double min;
	double max;
	double sum;
	guint argmax;   /* the first item holding max */
} TscSpan;

typedef struct TscPyramid TscPyramid;

/* Builds the pyramid over values[0..n) (read, not kept). NaN values
 * count as 0. Returns NULL for n == 0. Free with tsc_pyramid_free. */
TscPyramid *tsc_pyramid_new(const double *values, guint n);
void tsc_pyramid_free(TscPyramid *p);
/* Items [first, end) summarised into *out; first < end <= n. */
void tsc_pyramid_query(const TscPyramid *p, guint first, guint end, TscSpan *out);

G_END_DECLS
