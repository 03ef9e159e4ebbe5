/*
 * Included before a .def file (cli-options.h) inside an array of
 * cli_item: every line of the file becomes one initialiser. Undefines
 * whatever an earlier expansion (the enum of ids) defined.
 */
#undef TS_COMMAND
#undef TS_USAGE
#undef TS_TEXT
#undef TS_HELP
#undef TS_MAN
#undef TS_OPT
#undef TS_ALIAS
#define TS_COMMAND(name_, summary) {.kind = CLI_ITEM_COMMAND, .name = name_, .text = summary},
#define TS_USAGE(line) {.kind = CLI_ITEM_USAGE, .text = line},
#define TS_TEXT(section_, text_) {.kind = CLI_ITEM_TEXT, .section = section_, .text = text_},
#define TS_HELP(text_) {.kind = CLI_ITEM_HELP, .text = text_},
#define TS_MAN(section_, text_) {.kind = CLI_ITEM_MAN, .section = section_, .text = text_},
#define TS_OPT(id_, long_, short_, kind_, arg_, choices_, help_)                                 \
	{.kind = CLI_ITEM_OPT, .id = OPT_##id_, .name = long_, .short_name = short_,             \
	 .arg = CLI_ARG_##kind_, .arg_name = arg_, .choices = choices_, .text = help_},
#define TS_ALIAS(id_, long_) {.kind = CLI_ITEM_ALIAS, .id = OPT_##id_, .name = long_},
