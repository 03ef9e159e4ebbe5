/*
 * Numbers as `tilescope summary` prints them (reportlib/src/summary-text.c),
 * so that a figure in the Graph Analyser reads exactly as in the text
 * summary: thousands separators ("1,216"), one decimal ("1,600.0"),
 * percentages ("91.5%", "n/a" when undefined) and binary sizes
 * ("256.0 kB"). Each returns a newly allocated string (g_free).
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include <tilescope/report.h>

G_BEGIN_DECLS

/* `v` with thousands separators: "1,234,567". */
char *ga_format_u64(uint64_t v);
/* The same followed by `suffix`: "1,234 B" for " B". */
char *ga_format_u64_with(uint64_t v, const char *suffix);
/* One decimal with separators ("1,600.0"); "n/a" unless finite and >= 0. */
char *ga_format_1dp(double v);
/* A fraction as a percentage with one decimal ("91.5%"); "n/a" for NaN. */
char *ga_format_pct(double fraction);
/* The same followed by `suffix`: "91.5% balance" for " balance". */
char *ga_format_pct_with(double fraction, const char *suffix);
/* A size in binary units with one decimal: "256.0 kB", "304.0 MB". */
char *ga_format_size(uint64_t bytes);
/* A name read from the file, fit for a label: valid UTF-8 with control
 * characters as '?' (as the text summary cleans them), cut in the middle
 * when long (tsd_name_cut: a file may hold 16 KiB names, which GTK would
 * measure whole); "?" for NULL. The whole name, for a tooltip, a details
 * pane or a copy: tsd_name_clean. */
char *ga_format_name(const char *name);

/* The most characters of a program's name a run's label shows (a run
 * picker's item sets the picker's width, which a 160-character name would
 * take past the screen). */
#define GA_RUN_NAME_CHARS 40
/* The name the model gave the program run `run` of `report` ran
 * (tsr_report_lookup_engine_program_name, the name the summary and diff
 * use), cleaned and cut to GA_RUN_NAME_CHARS, for the run pickers and the
 * run rows ("Run 1: epoch"); NULL when it gave none (or there is no such
 * run), where the caller says "program 1" or nothing. */
char *ga_format_run_name(tsr_report *report, size_t run);
/* Run `run` as the run pickers and the details name it: "Run 1: epoch"
 * when its program has a name (ga_format_run_name), else "Run 1". */
char *ga_format_run_label(tsr_report *report, size_t run);

G_END_DECLS
