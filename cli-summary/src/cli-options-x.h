/*
 * Included before a .def file (cli-options.h): every TS_* macro the
 * includer has not defined expands to nothing, so that one expansion
 * picks one kind of line (the option ids of an enum, say).
 */
#ifndef TS_COMMAND
#define TS_COMMAND(name, summary)
#endif
#ifndef TS_USAGE
#define TS_USAGE(line)
#endif
#ifndef TS_TEXT
#define TS_TEXT(section, text)
#endif
#ifndef TS_HELP
#define TS_HELP(text)
#endif
#ifndef TS_MAN
#define TS_MAN(section, text)
#endif
#ifndef TS_OPT
#define TS_OPT(id, long_name, short_name, kind, arg, choices, help)
#endif
#ifndef TS_ALIAS
#define TS_ALIAS(id, long_name)
#endif
