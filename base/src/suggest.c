/*
 * The nearest known name to a misspelt one (suggest.h): a Levenshtein
 * distance over one row, case-insensitive because option names are
 * typed by people who may not remember the camel case.
 */
#define TSI_BUILDING_LIBRARY 1
#include "tilescope/suggest.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* The longest name compared; longer ones never match. */
#define MAX_DISTANCE_LEN 128

TSI_API size_t tsi_name_distance(const char *a, const char *b)
{
	size_t la, lb;
	size_t row[MAX_DISTANCE_LEN + 1];
	size_t i, j;

	if (!a || !b)
		return SIZE_MAX;
	la = strlen(a);
	lb = strlen(b);
	if (la > MAX_DISTANCE_LEN || lb > MAX_DISTANCE_LEN)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0]; /* row[i-1][j-1] */

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t cost =
			    tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]) ? 0 : 1;
			size_t best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/*
 * A suggestion is offered only when it is a plausible typo: a third of the
 * name's letters (at least two) may differ; the first of equals wins, so
 * the caller's order breaks ties. Failing that, an abbreviation ("dir")
 * of exactly one known name is taken as meaning it.
 */
TSI_API const char *tsi_lookup_nearest_name(const char *name, const char *const *names, size_t n)
{
	size_t limit, best = SIZE_MAX, i;
	const char *best_name = NULL;

	if (!name || !names)
		return NULL;
	limit = strlen(name) / 3;
	if (limit < 2)
		limit = 2;
	for (i = 0; i < n; i++) {
		size_t d = tsi_name_distance(name, names[i]);

		if (d < best) {
			best = d;
			best_name = names[i];
		}
	}
	if (best <= limit)
		return best_name;
	best_name = NULL;
	for (i = 0; i < n && strlen(name) >= 2; i++) {
		if (names[i] && strncasecmp(names[i], name, strlen(name)) == 0) {
			if (best_name)
				return NULL; /* abbreviates several */
			best_name = names[i];
		}
	}
	return best_name;
}
