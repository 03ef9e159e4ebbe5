/*
 * An app's command line from its option table (ga-options.def,
 * sa-options.def: the one table that --help, the man page and the shell
 * completions are made from; cli-summary/src/cli-options.h says what each
 * TS_ macro holds). An app expands its table into TsdCmdlineLine rows:
 *
 *     static const TsdCmdlineLine cmdline[] = {
 *     #include "tilescope/tsd-cmdline-rows.h"
 *     #include "ga-options.def"
 *     };
 *
 * and gives them to GApplication with tsd_app_add_options().
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct TsdCmdlineLine {
	char what;           /* 'c' the command, 'u' usage, 't' text, 'o' option */
	const char *section; /* 't': "DESCRIPTION", "EXIT STATUS" ... */
	const char *name;    /* 'o': the long name; 'c': the program's */
	const char *kind;    /* 'o': "NONE" for a flag, else what its value is */
	const char *arg;     /* 'o': the value's name */
	const char *text;    /* the usage line, the text, the option's help */
} TsdCmdlineLine;

/* Gives `app` the options of lines[0..n) (all but --help, which is
 * GLib's; a value is a string for the app to parse), the operands of the
 * usage line after "[OPTION...] ", the DESCRIPTION text before the
 * options and the other texts after them. `lines` must outlive the
 * application (a static table). */
void tsd_app_add_options(GApplication *app, const TsdCmdlineLine *lines, size_t n);

/* Whether argv (NULL-terminated) names an option that is neither in
 * lines[0..n) nor GLib's own (--help, -h, --help-all,
 * --help-gapplication, --gapplication-service): then it prints
 * "PROG: unknown option 'OPT' (see --help)" and sets *exit_status to 2,
 * the status the apps' EXIT STATUS gives a bad option (GApplication's
 * parser would say 1, the status of a missing display); the same for an
 * option that wants a value and ends the line. Call first in
 * local_command_line. Operands after "--" are not looked at. */
gboolean tsd_app_refuse_unknown_options(const TsdCmdlineLine *lines, size_t n, char **argv,
                                        const char *prog, int *exit_status);

G_END_DECLS
