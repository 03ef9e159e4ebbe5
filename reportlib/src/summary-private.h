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
