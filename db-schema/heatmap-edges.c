/*
 * The heatmap edges codec (heatmap-edges.h). One function holds the
 * rules, which pvti_heatmap_new, the encoder and the decoder all apply,
 * so the tracer never takes what a reader refuses. The decoder's input
 * comes from files people send each other: the count is bounded before
 * anything is allocated for it.
 */
#include <tilescope/alloc.h>
#include <tilescope/json-writer.h>
#include "heatmap-edges.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>

_Static_assert(TSF_HEATMAP_MAX_EDGES == 4096, "the check's message names the bound");

/* See heatmap-edges.h. */
const char *tsf_heatmap_edges_check(const double *edges, size_t n)
{
	if (n == 0)
		return "no edges";
	if (n > TSF_HEATMAP_MAX_EDGES)
		return "more than 4096 edges";
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(edges[i]))
			return "an edge is not a finite number";
		if (i > 0 && !(edges[i] > edges[i - 1]))
			return "the edges are not strictly ascending";
	}
	return NULL;
}

/* See heatmap-edges.h. base's writer prints 17 digits whatever the
 * locale, so every edge reads back bit for bit (cJSON's printer may
 * round one by an ulp, moving a value from one bucket to the next). */
int tsf_heatmap_edges_encode(char **out, const double *edges, size_t n)
{
	tsb_json *j;

	*out = NULL;
	if (!edges || tsf_heatmap_edges_check(edges, n))
		return -1;
	if (!(j = tsb_json_new_buffer(TSB_JSON_COMPACT)))
		return -2;
	tsb_json_begin_array(j);
	for (size_t i = 0; i < n; i++)
		tsb_json_double(j, edges[i]);
	tsb_json_end_array(j);
	*out = tsb_json_finish(j) == TSB_JSON_OK ? tsb_json_steal(j, NULL) : NULL;
	tsb_json_free(j);
	return *out ? 0 : -2;
}

/* See heatmap-edges.h. */
int tsf_heatmap_edges_decode(double **out, size_t *n, const char **why, const char *json)
{
	cJSON *a = json ? cJSON_ParseWithOpts(json, NULL, 1) : NULL, *e;
	size_t k = 0, count = cJSON_IsArray(a) ? (size_t)cJSON_GetArraySize(a) : 0;
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (!a)
		*why = "not JSON, or bytes after the array";
	else if (!cJSON_IsArray(a))
		*why = "not a JSON array";
	else if (count == 0 || count > TSF_HEATMAP_MAX_EDGES)
		*why = tsf_heatmap_edges_check(NULL, count);
	else if (!(*out = tsb_malloc(count * sizeof(double)))) {
		*why = "out of memory";
		rc = -2;
	} else {
		cJSON_ArrayForEach(e, a) {
			if (!cJSON_IsNumber(e))
				break;
			(*out)[k++] = e->valuedouble;
		}
		*why = k < count ? "an edge is not a number" : tsf_heatmap_edges_check(*out, count);
		rc = *why ? -1 : 0;
	}
	cJSON_Delete(a);
	if (rc) {
		free(*out);
		*out = NULL;
	} else {
		*n = count;
	}
	return rc;
}
