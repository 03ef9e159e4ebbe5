/*
 * A command's parser and --help made from its option table
 * (cli-options.h): the getopt_long table, the optstring, the usage lines
 * and the help text, so that none of them is written twice.
 */
#include "cli-options.h"

#include "cli.h"

#include <string.h>

void cli_options_init(cli_options *o, const cli_item *items, size_t n_items)
{
	size_t n = 0, k = 0;

	memset(o, 0, sizeof(*o));
	o->items = items;
	o->n_items = n_items;
	o->optstring[k++] = ':';
	for (size_t i = 0; i < n_items && n < CLI_OPTIONS_MAX; i++) {
		const cli_item *it = &items[i];
		const cli_item *opt = it;

		if (it->kind == CLI_ITEM_ALIAS) {
			/* An alias takes a value when the option it names does. */
			for (size_t j = 0; j < n_items; j++)
				if (items[j].kind == CLI_ITEM_OPT && items[j].id == it->id)
					opt = &items[j];
		} else if (it->kind != CLI_ITEM_OPT) {
			continue;
		}
		o->longopts[n++] = (struct option){it->name,
		                                   opt->arg == CLI_ARG_NONE ? no_argument
		                                                            : required_argument,
		                                   NULL, it->id};
		if (it->kind == CLI_ITEM_OPT && it->short_name[0]) {
			unsigned char letter = (unsigned char)it->short_name[0];

			o->optstring[k++] = (char)letter;
			if (it->arg != CLI_ARG_NONE)
				o->optstring[k++] = ':';
			if (letter < 128)
				o->short_id[letter] = it->id;
		}
	}
	o->optstring[k] = '\0';
	cli_getopt_reset();
}

int cli_options_next(cli_options *o, int argc, char **argv)
{
	int c = getopt_long(argc, argv, o->optstring, o->longopts, NULL);

	if (c > 0 && c < 128 && o->short_id[c])
		return o->short_id[c];
	return c;
}

const char *cli_options_name(const cli_options *o, int id)
{
	for (size_t i = 0; i < o->n_items; i++)
		if (o->items[i].kind == CLI_ITEM_OPT && o->items[i].id == id)
			return o->items[i].name;
	return "";
}

const char *cli_options_usage(const cli_item *items, size_t n_items, char *buf, size_t size)
{
	size_t len = 0;
	bool first = true;

	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < n_items; i++) {
		if (items[i].kind != CLI_ITEM_USAGE)
			continue;
		int n = snprintf(buf + len, size - len, "%s%s\n", first ? "usage: " : "       ",
		                 items[i].text);
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
		first = false;
	}
	return buf;
}

const char *cli_options_usage_line(const cli_item *items, size_t n_items, size_t k, char *buf,
                                   size_t size)
{
	if (size == 0)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < n_items; i++)
		if (items[i].kind == CLI_ITEM_USAGE && k-- == 0) {
			snprintf(buf, size, "usage: %s\n", items[i].text);
			break;
		}
	return buf;
}

/* Columns taken by UTF-8 text: its code points. */
static size_t text_columns(const char *s, size_t len)
{
	size_t w = 0;

	for (size_t i = 0; i < len; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* The left column of an option: "-o, --output=FILE", with its aliases
 * ("--colours, --colors=WHEN"). */
static void option_label(const cli_item *items, size_t n_items, const cli_item *opt, char *buf,
                         size_t size)
{
	size_t len = 0;
	int n;

	n = snprintf(buf, size, "%s%s%s--%s", opt->short_name[0] ? "-" : "", opt->short_name,
	             opt->short_name[0] ? ", " : "", opt->name);
	len = n > 0 && (size_t)n < size ? (size_t)n : size - 1;
	for (size_t i = 0; i < n_items; i++) {
		if (items[i].kind != CLI_ITEM_ALIAS || items[i].id != opt->id)
			continue;
		n = snprintf(buf + len, size - len, ", --%s", items[i].name);
		len = n > 0 && (size_t)n < size - len ? len + (size_t)n : size - 1;
	}
	if (opt->arg != CLI_ARG_NONE)
		snprintf(buf + len, size - len, "=%s", opt->arg_name);
}

/* The widest label wanted in the left column; a wider one puts its help
 * on the next line. */
#define LABEL_MAX 26
#define HELP_WIDTH 79

void cli_options_print_help(const cli_item *items, size_t n_items, FILE *out)
{
	cli_options_print_help_with(items, n_items, out, NULL);
}

int cli_options_lookup(const cli_item *items, size_t n_items, const char *word)
{
	for (size_t i = 0; i < n_items; i++) {
		const cli_item *it = &items[i];

		if (it->kind != CLI_ITEM_OPT && it->kind != CLI_ITEM_ALIAS)
			continue;
		if (strncmp(word, "--", 2) == 0 && strcmp(word + 2, it->name) == 0)
			return it->id;
		if (it->kind == CLI_ITEM_OPT && it->short_name[0] && word[0] == '-' &&
		    strcmp(word + 1, it->short_name) == 0)
			return it->id;
	}
	return 0;
}

void cli_options_print_help_with(const cli_item *items, size_t n_items, FILE *out,
                                 void (*after_help)(const cli_item *item, FILE *out))
{
	char usage[1024], label[128];
	size_t col = 0;

	fputs(cli_options_usage(items, n_items, usage, sizeof(usage)), out);
	for (size_t i = 0; i < n_items; i++) {
		if (items[i].kind != CLI_ITEM_OPT)
			continue;
		option_label(items, n_items, &items[i], label, sizeof(label));
		size_t w = text_columns(label, strlen(label));
		if (w <= LABEL_MAX && w > col)
			col = w;
	}
	col += 4; /* two spaces before the label, two after */
	for (size_t i = 0; i < n_items; i++) {
		const cli_item *it = &items[i];

		if (it->kind == CLI_ITEM_TEXT || it->kind == CLI_ITEM_HELP) {
			fputs(it->text, out);
			if (it->kind == CLI_ITEM_HELP && after_help)
				after_help(it, out);
			continue;
		}
		if (it->kind != CLI_ITEM_OPT)
			continue;
		option_label(items, n_items, it, label, sizeof(label));
		size_t at = 2 + text_columns(label, strlen(label));
		fprintf(out, "  %s", label);
		if (at + 2 > col) {
			fputc('\n', out);
			at = 0;
		}
		/* The help, word by word, wrapped at HELP_WIDTH from column col. */
		const char *p = it->text;
		bool line_start = true;
		while (*p) {
			size_t word = strcspn(p, " ");
			size_t ww = text_columns(p, word);

			if (!line_start && at + 1 + ww > HELP_WIDTH) {
				fputc('\n', out);
				at = 0;
				line_start = true;
			}
			if (line_start) {
				fprintf(out, "%*s", (int)(col - at), "");
				at = col;
			} else {
				fputc(' ', out);
				at++;
			}
			fwrite(p, 1, word, out);
			at += ww;
			line_start = false;
			p += word;
			while (*p == ' ')
				p++;
		}
		fputc('\n', out);
	}
}
