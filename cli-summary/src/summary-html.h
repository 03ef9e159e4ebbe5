/*
 * `tilescope summary --format=html` (summary-html.c): the summary of a
 * report as one self-contained page (html.h).
 */
#pragma once

#include "tilescope/summary.h"

#include <stdio.h>

/*
 * Writes the page of `report` to `out`: the figures of `json` (the text
 * tsr_summary_dup_json gave for the same report and options, which the
 * page embeds), with charts and tables of what reportlib holds beside
 * them. `title` names the report in the page's title. Returns TSR_OK;
 * a reportlib failure's code (tsr_report_error says why);
 * TSR_ERR_NO_MEMORY when this file ran out of memory; TSR_ERR_IO when
 * writing the page failed.
 */
int cli_summary_write_html(FILE *out, tsr_report *report, const char *json, const char *title);
