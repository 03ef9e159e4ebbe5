/*
 * The bucket edges of a .pvti heatmap (heatmap.edges, documented in
 * pvti.sql): a JSON array of 1 to TSF_HEATMAP_MAX_EDGES finite, strictly
 * ascending numbers. The tracer encodes; reportlib decodes. This is the
 * only coder of the column, so both sides agree on what a file may hold.
 */
#pragma once

#include <stddef.h>

/* The most edges a heatmap may have (a reader's allocation bound). */
#define TSF_HEATMAP_MAX_EDGES 4096u

/* What is wrong with edges[0..n) (a static string, e.g. "no edges"), or
 * NULL when they follow the rules above. */
const char *tsf_heatmap_edges_check(const double *edges, size_t n);

/* Encodes edges[0..n) into *out, a malloc'd JSON array the caller frees.
 * Returns 0, -1 when the edges break the rules above (*out NULL), -2 when
 * out of memory. */
int tsf_heatmap_edges_encode(char **out, const double *edges, size_t n);

/* Decodes `json` into *out, a malloc'd array of *n edges the caller frees.
 * Returns 0; -1 when `json` is anything but the array above (trailing
 * bytes included), -2 when out of memory: *out is then NULL, *n 0 and
 * *why says what is wrong, for a message (a static string). */
int tsf_heatmap_edges_decode(double **out, size_t *n, const char **why, const char *json);
