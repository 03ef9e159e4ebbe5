/*
 * Included inside an initializer of TsdCmdlineLine, right before an app's
 * options .def (tsd-cmdline.h shows how): each TS_ line of the table
 * becomes one row; what only the man page or the CLI use becomes nothing.
 * The macros are undefined again by the next inclusion's first lines, so
 * this file has no include guard of the usual kind.
 */
#undef TS_COMMAND
#undef TS_USAGE
#undef TS_TEXT
#undef TS_HELP
#undef TS_MAN
#undef TS_OPT
#undef TS_ALIAS
#define TS_COMMAND(name, summary) {'c', NULL, name, NULL, NULL, summary},
#define TS_USAGE(line) {'u', NULL, NULL, NULL, NULL, line},
#define TS_TEXT(section, text) {'t', section, NULL, NULL, NULL, text},
#define TS_HELP(text)
#define TS_MAN(section, text)
#define TS_OPT(id, long_name, short_name, kind, arg, choices, help) \
	{'o', NULL, long_name, #kind, arg, help},
#define TS_ALIAS(id, long_name)
