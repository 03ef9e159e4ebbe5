/*
 * `tilescope`: git-style subcommands over reportlib. This file only
 * dispatches; each subcommand lives in its own file (cmd-summary.c,
 * cmd-diff.c, cmd-trace.c, cmd-export.c, cmd-sql.c; cli.h).
 */
#include "cli.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#ifndef TILESCOPE_VERSION
#define TILESCOPE_VERSION "unknown"
#endif

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{"summary", cli_cmd_summary, "print a report's profile summary (printProfileSummary)"},
	{"diff", cli_cmd_diff, "compare two reports; exit 1 when a limit is exceeded"},
	{"trace", cli_cmd_trace, "statistics of .pvti and Chrome JSON traces"},
	{"export", cli_cmd_export, "write a report's profiles as JSON or CBOR, a trace as Chrome JSON"},
	{"sql", cli_cmd_sql, "run one read-only SQL statement over a report or a trace"},
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_help(FILE *out)
{
	fputs("usage: tilescope COMMAND [OPTIONS] ARGS...\n"
	      "       tilescope --version | --help\n"
	      "\n"
	      "Reads the profile.pop reports and .pvti traces that POPLAR_ENGINE_OPTIONS'\n"
	      "autoReport and PVTI_OPTIONS write.\n"
	      "\n"
	      "Commands:\n",
	      out);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fputs("\n"
	      "'tilescope COMMAND --help' describes a command.\n"
	      "Exit status: 0 success, 1 a regression found by diff, 2 an error.\n",
	      out);
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
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		print_help(stdout);
		return CLI_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("tilescope %s\n", TILESCOPE_VERSION);
		return CLI_EXIT_OK;
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
