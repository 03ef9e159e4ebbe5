/*
 * One option table per command. Each command's options, synopsis and
 * help text live in one X-macro file (cli-summary/options/NAME.def); the
 * command's C file expands it into an enum of option ids and an array of
 * cli_item, from which this file makes the getopt_long table, the
 * optstring and the --help text; man/gen-docs.py reads the same file to
 * write the man page and the bash and zsh completions. So a flag exists
 * in all of them or in none.
 *
 * The macros a .def file uses (all arguments are literals):
 *   TS_COMMAND(NAME, SUMMARY)   the command as typed ("tilescope diff") and
 *                               its one-line description (man page NAME)
 *   TS_USAGE(LINE)              one synopsis line, without "usage: " (one
 *                               that starts with a space goes on with the
 *                               line before)
 *   TS_TEXT(SECTION, TEXT)      prose printed by --help as it is written
 *                               (wrapped, with its own newlines) and put in
 *                               the man page under SECTION ("DESCRIPTION",
 *                               "OPTIONS", "EXIT STATUS", ...)
 *   TS_HELP(TEXT)               --help only (headings such as "Options:")
 *   TS_MAN(SECTION, TEXT)       the man page only
 *   TS_OPT(ID, LONG, SHORT, KIND, ARG, CHOICES, HELP)
 *                               an option: OPT_ID in the command's enum,
 *                               --LONG, SHORT "o" or "", KIND one of
 *                               NONE FILE DIR INT NUMBER BYTES CHOICE TEXT
 *                               (what the value is, for the completions),
 *                               ARG the value's name ("FILE", "" for NONE),
 *                               CHOICES the values of a CHOICE separated by
 *                               spaces, HELP one line, unwrapped
 *   TS_ALIAS(ID, LONG)          --LONG is another name of option ID
 * Usage in a command's file:
 *   enum { OPT_FIRST_ = 255,
 *   #define TS_OPT(id, l, s, k, a, c, h) OPT_##id,
 *   #include "cli-options-x.h"
 *   #include "summary.def"
 *   };
 *   static const cli_item items[] = {
 *   #include "cli-options-items.h"
 *   #include "summary.def"
 *   };
 * (cli-options-x.h defines every macro not yet defined as empty, and
 * cli-options-items.h defines them all as cli_item initialisers; both
 * #undef them again at the end of the .def's expansion by being included
 * before it and undone by the next include of either.)
 */
#pragma once

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* What an option's value is. */
typedef enum {
	CLI_ARG_NONE,   /* a flag without a value */
	CLI_ARG_FILE,   /* a file name */
	CLI_ARG_DIR,    /* a directory name */
	CLI_ARG_INT,    /* a non-negative integer */
	CLI_ARG_NUMBER, /* a decimal number (milliseconds, seconds, a percentage) */
	CLI_ARG_BYTES,  /* a size with a unit */
	CLI_ARG_CHOICE, /* one of `choices` */
	CLI_ARG_TEXT    /* anything else (a name, a metric:value pair) */
} cli_arg_kind;

typedef enum {
	CLI_ITEM_COMMAND,
	CLI_ITEM_USAGE,
	CLI_ITEM_TEXT,
	CLI_ITEM_HELP,
	CLI_ITEM_MAN,
	CLI_ITEM_OPT,
	CLI_ITEM_ALIAS
} cli_item_kind;

/* One line of a .def file. */
typedef struct cli_item {
	cli_item_kind kind;
	int id;                   /* OPT, ALIAS: what cli_options_next returns */
	const char *name;         /* OPT, ALIAS: the long name; COMMAND: the command */
	const char *short_name;   /* OPT: "o" or "" */
	cli_arg_kind arg;         /* OPT */
	const char *arg_name;     /* OPT: "FILE", "" for none */
	const char *choices;      /* OPT of CLI_ARG_CHOICE: "auto always never" */
	const char *section;      /* TEXT, MAN */
	const char *text;         /* OPT: help; USAGE: the line; TEXT, HELP: prose */
} cli_item;

#define CLI_ITEMS_COUNT(items) (sizeof(items) / sizeof((items)[0]))

/* A command's parser: the getopt_long table and optstring made from its
 * items. Fixed sizes: no command has more options than this. */
#define CLI_OPTIONS_MAX 48
typedef struct cli_options {
	const cli_item *items;
	size_t n_items;
	struct option longopts[CLI_OPTIONS_MAX + 1];
	char optstring[2 * CLI_OPTIONS_MAX + 2];
	/* The id of each short letter, by letter. */
	int short_id[128];
} cli_options;

/* Builds o's tables from `items` and resets getopt (cli_getopt_reset).
 * The optstring starts with ':' (a missing value is ':', an unknown
 * option '?', cli_option_error). */
void cli_options_init(cli_options *o, const cli_item *items, size_t n_items);
/* getopt_long over o's table: the option's id (a short letter comes back
 * as its long option's id), ':' or '?' as getopt_long, -1 at the end. */
int cli_options_next(cli_options *o, int argc, char **argv);
/* The long name of option `id` ("output"), or "" when there is none. */
const char *cli_options_name(const cli_options *o, int id);

/* Writes the usage lines ("usage: ...", then "       ..." ) into buf,
 * whole or cut at `size`; returns buf. */
const char *cli_options_usage(const cli_item *items, size_t n_items, char *buf, size_t size);
/* The k-th usage line alone (0 is the first) as "usage: LINE\n" in buf;
 * "" when there is none. For a command whose forms take different
 * operands (trace and trace --compare). */
const char *cli_options_usage_line(const cli_item *items, size_t n_items, size_t k, char *buf,
                                   size_t size);
/* Prints --help: usage, then the prose and the options in the order of
 * the .def file, each option as "  -o, --output=FILE  help" with the
 * help wrapped at 79 columns. */
void cli_options_print_help(const cli_item *items, size_t n_items, FILE *out);
/* The same, calling after_help(item, out) after each TS_HELP text is
 * printed (`tilescope --help` lists its commands there). */
void cli_options_print_help_with(const cli_item *items, size_t n_items, FILE *out,
                                 void (*after_help)(const cli_item *item, FILE *out));
/* The id of the option `word` names ("--help", "-h"), or 0. For a
 * command that looks at one word instead of parsing (tilescope itself). */
int cli_options_lookup(const cli_item *items, size_t n_items, const char *word);
