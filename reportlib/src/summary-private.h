/*
 * What the summary's files share besides the public figures (summary.h's
 * tsr_summary_figures, gathered once by summary.c and read by its two
 * renderers: summary-text.c, the guide's printProfileSummary layout, and
 * summary-json.c, the same figures as one JSON object): the cleaning of
 * names for printing. Gathering in one place is what keeps the text and
 * the JSON equal: neither renderer asks the report for a figure, so
 * neither can compute one differently. Nothing here is public.
 */
#pragma once

#include "report-private.h"
#include "tilescope/summary.h"

/* A copy of `s` (NULL: "") safe to print or put in JSON: control bytes
 * and invalid UTF-8 become '?'. The caller frees it with free(). */
char *tsr_summary_clean_dup(const char *s);
/* Characters (code points) that tsr_summary_clean_dup(s) holds. */
size_t tsr_summary_clean_width(const char *s);
/* The report the figures were gathered from (summary-tips.c). */
tsr_report *tsr_summary_get_report(const tsr_summary_figures *figures);

/*
 * What the JSON holds beyond the text's parts, for the summary page
 * (`tilescope summary --format=html` draws every table from the JSON):
 * asked here, beside the figures, so that the page's names are the
 * summary's (program_label's) and pass through the JSON's cleaning.
 */

/* Tile `tile`'s bytes including gaps (0 past the end). */
uint64_t tsr_summary_tile_bytes_with_gaps(const tsr_summary_figures *figures, uint32_t tile);

/* The `max` largest listed variables into *out (pointers into the
 * report's, borrowed; the caller frees the array with free(), NULL when
 * *n is 0), most bytes first, then by id; *n_listed is how many the
 * report lists. */
int tsr_summary_list_largest_variables(const tsr_variable ***out, size_t *n, size_t *n_listed,
                                       const tsr_summary_figures *figures, size_t max);

/* One engine program's part of the run shown. */
typedef struct tsr_summary_program_cycles {
	uint32_t program;
	tsr_program_type type;         /* TSR_PROGRAM_NONE for an unknown program */
	const char *name;              /* its own, its compute set's or exchange's, or NULL */
	size_t steps;                  /* the run's steps of the program */
	uint64_t cycles;               /* their cycles, summed */
} tsr_summary_program_cycles;

/* The programs with steps in the run shown (none without a run), most
 * cycles first, then by id. The caller frees *out with free(). */
int tsr_summary_list_program_cycles(tsr_summary_program_cycles **out, size_t *n,
                                    const tsr_summary_figures *figures);
