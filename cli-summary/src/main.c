/*
 * `tilescope`: git-style subcommands over reportlib. This file only
 * dispatches; each subcommand lives in its own file (cmd-summary.c,
 * cmd-diff.c, cmd-trace.c, cmd-export.c, cmd-sql.c, cmd-history.c; cli.h).
 */
#include "cli.h"
#include "cli-options.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#ifndef TILESCOPE_VERSION
#define TILESCOPE_VERSION "unknown"
#endif

enum {
	OPT_FIRST_ = 255,
#define TS_OPT(id, long_name, short_name, kind, arg, choices, help) OPT_##id,
#include "cli-options-x.h"
#include "../options/tilescope.def"
};

static const cli_item items[] = {
#include "cli-options-items.h"
#include "../options/tilescope.def"
};

/* Each command's one-line summary is the TS_COMMAND line of its .def. */
#undef TS_COMMAND
#define TS_COMMAND(name, summary) summary
#undef TS_USAGE
#undef TS_TEXT
#undef TS_HELP
#undef TS_MAN
#undef TS_OPT
#undef TS_ALIAS
#include "cli-options-x.h"
static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{"summary", cli_cmd_summary,
#include "../options/summary.def"
	},
	{"diff", cli_cmd_diff,
#include "../options/diff.def"
	},
	{"trace", cli_cmd_trace,
#include "../options/trace.def"
	},
	{"export", cli_cmd_export,
#include "../options/export.def"
	},
	{"sql", cli_cmd_sql,
#include "../options/sql.def"
	},
	{"history", cli_cmd_history,
#include "../options/history.def"
	},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* After the "Commands:" heading of the help: one line per command. */
static void list_commands(const cli_item *item, FILE *out)
{
	if (strcmp(item->text, "Commands:\n") != 0)
		return;
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
}

static void print_help(FILE *out)
{
	cli_options_print_help_with(items, CLI_ITEMS_COUNT(items), out, list_commands);
}

int main(int argc, char **argv)
{
	/* Past `ulimit -f` a write fails with EFBIG, which the output code
	 * reports in one line and cleans up after; SIGXFSZ's default would
	 * kill the command first, leaving its temporary file behind. */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		fputs("usage: tilescope COMMAND [OPTIONS] ARGS...\n"
		      "Try 'tilescope --help'.\n",
		      stderr);
		return CLI_EXIT_ERROR;
	}
	switch (cli_options_lookup(items, CLI_ITEMS_COUNT(items), argv[1])) {
	case OPT_HELP: print_help(stdout); return CLI_EXIT_OK;
	case OPT_VERSION: printf("tilescope %s\n", TILESCOPE_VERSION); return CLI_EXIT_OK;
	default: break;
	}
	/* `tilescope help CMD` is `tilescope CMD --help`. */
	if (strcmp(argv[1], "help") == 0) {
		if (argc == 2) {
			print_help(stdout);
			return CLI_EXIT_OK;
		}
		for (size_t i = 0; i < N_COMMANDS; i++) {
			if (strcmp(argv[2], commands[i].name) == 0) {
				char *help_argv[] = {argv[2], (char *)"--help", NULL};
				return commands[i].run(2, help_argv);
			}
		}
		return cli_error("'%s' is not a tilescope command; see 'tilescope --help'", argv[2]);
	}
	for (size_t i = 0; i < N_COMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			/* A file named on the command line is one the command reads
			 * (a report, a trace, a limits file): -o never replaces it. */
			cli_note_input_args(argc - 1, argv + 1);
			return commands[i].run(argc - 1, argv + 1);
		}
	}
	if (argv[1][0] == '-')
		return cli_usage_error("", "usage: tilescope COMMAND [OPTIONS] ARGS...\n",
		                       "unknown option '%s'", argv[1]);
	return cli_error("'%s' is not a tilescope command; see 'tilescope --help'", argv[1]);
}
