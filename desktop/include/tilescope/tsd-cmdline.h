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
	char what;           /* 'u' usage, 't' text, 'o' option */
	const char *section; /* 't': "DESCRIPTION", "EXIT STATUS" ... */
	const char *name;    /* 'o': the long name */
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

G_END_DECLS
