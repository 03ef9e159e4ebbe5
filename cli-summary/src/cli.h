/*
 * What the subcommands of the `tilescope` command share: exit codes, the
 * one-line error convention, opening reports and traces with an error that
 * names the file, number parsing for option values, writing results, and
 * the progress line shown on a terminal while a step takes more than a
 * second.
 *
 * Each subcommand is one function `int cli_cmd_NAME(int argc, char **argv)`
 * (argv[0] is the subcommand's name) returning an exit code; main.c
 * dispatches to it. Subcommands parse their options with cli_options
 * (cli-options.h), made from the command's table in options/NAME.def,
 * which resets getopt first.
 */
#pragma once

#include "tilescope/report.h"
#include "tilescope/summary.h"
#include "tilescope/trace.h"

#include <cjson/cJSON.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes (STYLE.md): 0 success, 1 a regression was found, 2 an error
 * (bad arguments, unreadable file, failed write). */
enum {
	CLI_EXIT_OK = 0,
	CLI_EXIT_REGRESSION = 1,
	CLI_EXIT_ERROR = 2
};

/* Prints "tilescope: MESSAGE" and a newline to stderr; always returns
 * CLI_EXIT_ERROR so callers can `return cli_error(...)`. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "usage: tilescope CMD ..." (the given usage text, one or more
 * lines), then "Try 'tilescope CMD --help'." to stderr; returns
 * CLI_EXIT_ERROR. For bad arguments: unknown options, missing operands. */
int cli_usage_error(const char *cmd, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Resets getopt for a subcommand's own parsing (glibc: optind = 0).
 * Subcommands pass an optstring starting with ":" so that a missing
 * value comes back as ':' and an unknown option as '?'; options may come
 * after the operands, as with git ("tilescope diff A B --format=json"). */
void cli_getopt_reset(void);
/* The usage error for getopt_long's ':' (missing value) or '?' (unknown
 * option) result `c`, naming the option; returns CLI_EXIT_ERROR. */
int cli_option_error(const char *cmd, const char *usage, int c, char **argv);

/* Opens a profile.pop or an autoReport directory. On failure prints one
 * line naming the file and the problem ("tilescope: PATH: not an SQLite
 * database") and returns CLI_EXIT_ERROR; *out is NULL. Shows a progress
 * line when opening takes longer than a second. */
int cli_open_report(tsr_report **out, const char *path);
/* The same for one or more .pvti files or directories of them. Files that
 * are byte for byte copies of another are read once, with a line on
 * stderr naming both (reportlib reads one file named twice once). */
int cli_open_trace(tsr_trace **out, const char *const *paths, size_t n_paths);
/* One line on stderr per file and kind of event a Chrome JSON import
 * skipped ("tilescope: t.json: 9,750 events skipped: nested past 250
 * levels"; tsr_trace_list_skipped); nothing for a complete import. */
void cli_trace_print_skipped(tsr_trace *trace);
/* Prints the trace's last error and returns CLI_EXIT_ERROR. reportlib
 * names the file in what a file caused; a failure of the handle itself
 * (its memory cap, out of memory) names none, so the file (or the first
 * and how many more) is put before it: every error line names a file. */
int cli_trace_fail(tsr_trace *trace);

/* Parses a non-negative decimal integer (no sign, no junk, no overflow). */
bool cli_parse_u64(const char *s, uint64_t *out);
/* `v` with thousands separators ("1,234,567") in buf; returns buf. */
const char *cli_fmt_count(char buf[32], uint64_t v);

/* Parses a --colours value: auto, always or never. */
bool cli_parse_colours(const char *s, tsr_colours *out);

/* JSON for the --json outputs: 64-bit integers as exact number text (a
 * double would round them), and adding an item to an object (under `key`)
 * or an array (key NULL), freeing it when that fails. */
cJSON *cli_json_u64(uint64_t v);
cJSON *cli_json_i64(int64_t v);
bool cli_json_put(cJSON *parent, const char *key, cJSON *item);
/* A JSON string of `s` with bytes that are not UTF-8 made U+FFFD (so the
 * document stays valid whatever a path holds); null for NULL. */
cJSON *cli_json_str(const char *s);

/* Parses a time in milliseconds (a non-negative decimal, "12.5") into
 * nanoseconds. */
bool cli_parse_ms(const char *s, int64_t *ns);
/* The window [from, to) in a trace's nanoseconds for --from / --to given
 * in milliseconds after the trace's first event (NULL: its start / end).
 * Prints a usage error for `cmd` and returns CLI_EXIT_ERROR when a value
 * is bad or from is not before to. */
int cli_trace_window(const char *cmd, const char *usage, const tsr_trace *trace,
                     const char *from, const char *to, int64_t *from_ns, int64_t *to_ns);

/* Writes `len` bytes to the file `path`, or to stdout when path is NULL
 * or "-". On failure prints one line naming the file and returns
 * CLI_EXIT_ERROR; else CLI_EXIT_OK. The rules of -o (cli-output.c): a
 * regular file is written to a temporary beside it (mkostemp) and renamed
 * over it, keeping its mode, owner and group, so a failed write leaves no
 * half file; when a new file cannot keep what the old one is (other hard
 * links, an owner only root may give) the complete output is copied into
 * it instead; a file the user may not write (0444) is refused, as by
 * `>`; a symlink is written through; /dev/stdout, /dev/fd/N and
 * /proc/self/fd/N are this process's descriptors, duplicated; a device,
 * a FIFO or another process's descriptor is written in place, never
 * replaced, and a FIFO nobody reads is refused after two seconds; a file
 * the command reads (cli_note_input) is refused. */
int cli_write_output(const char *path, const void *data, size_t len);
/* Opens `path` for writing (stdout for NULL or "-") the same way: write
 * to the returned stream, then cli_output_close() renames or copies it
 * into place (or removes it when `ok` is false). Errors are printed; NULL
 * on failure. */
typedef struct cli_output cli_output;
cli_output *cli_output_open(const char *path);
FILE *cli_output_stream(cli_output *o);
/* -o's value as messages name it: "standard output" for NULL or "-". */
const char *cli_output_name(const char *path);
/* Returns CLI_EXIT_OK, or CLI_EXIT_ERROR (printed) when a write failed. */
int cli_output_close(cli_output *o, bool ok);

/* Records `path` as read by this command, so that -o (and a redirected
 * standard output) never overwrites it under any name: a regular file,
 * or for a directory its profile.pop and debug.cbor. cli_open_report and
 * cli_open_trace note what they open; main() notes every operand. */
void cli_note_input(const char *path);
/* cli_note_input of every word of a subcommand's argv (argv[0] is its
 * name) that is not an option or the value of -o / --output. */
void cli_note_input_args(int argc, char **argv);

/*
 * The progress line. cli_progress_begin("Reading profile.pop") starts a
 * timer; if the step is still running after one second and stderr is a
 * terminal, "tilescope: Reading profile.pop… 1.2 s" is drawn on stderr
 * and refreshed a few times a second until cli_progress_end(), which
 * erases it. Steps do not nest; begin while one runs ends the previous.
 * TILESCOPE_PROGRESS=always draws it even when stderr is not a terminal
 * (for the tests), =never never draws it.
 */
void cli_progress_begin(const char *what);
void cli_progress_end(void);

/* The subcommands. */
int cli_cmd_summary(int argc, char **argv);
int cli_cmd_diff(int argc, char **argv);
int cli_cmd_trace(int argc, char **argv);
int cli_cmd_export(int argc, char **argv);
int cli_cmd_sql(int argc, char **argv);
int cli_cmd_history(int argc, char **argv);

/* Writes a name read from a trace as `tilescope trace` does (cmd-trace.c):
 * control characters as '?', cut with "…" or padded to `width` columns
 * (-1: whole). */
void cli_trace_put_name(FILE *out, const char *s, int width);

/* `tilescope trace --compare A B` (cmd-trace-compare.c): the two traces'
 * statistics by label side by side, in the window of `from` / `to` (ms
 * after each side's first event, NULL: open) with or without medians,
 * the first `top` (0: all) labels by |change of total|, as text or JSON,
 * to `output` (NULL: stdout). Returns the exit code (errors printed). */
int cli_trace_compare(const char *path_a, const char *path_b, const char *usage, const char *from,
                      const char *to, bool median, size_t top, bool json, tsr_colours colours,
                      const char *output);
