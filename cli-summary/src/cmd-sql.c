/*
 * `tilescope sql`: one read-only SQL statement over a report (profile.pop
 * or its autoReport directory) or a .pvti trace, through reportlib's
 * tsr_report_query / tsr_trace_query, which refuse anything but a read
 * and bound every statement in time, memory and the length of a value.
 * The answer is an aligned text table (its columns sized from the first
 * rows, then streamed), CSV (RFC 4180) or a JSON array of objects with
 * exact 64-bit integers; all three are written row by row, so memory
 * does not grow with the number of rows.
 */
#include "cli.h"
#include "cli-options.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The table's columns are sized from the rows kept until this many rows
 * or this many bytes of text, whichever comes first; later rows are
 * written at once with those widths (a longer value pushes the rest of
 * its row right). */
#define TABLE_SIZING_ROWS 1000
#define TABLE_SIZING_BYTES ((size_t)4 << 20)
/* The longest --timeout, seconds. */
#define MAX_TIMEOUT_S 86400.0

enum {
	OPT_FIRST_ = 255,
#define TS_OPT(id, long_name, short_name, kind, arg, choices, help) OPT_##id,
#include "cli-options-x.h"
#include "../options/sql.def"
};

static const cli_item items[] = {
#include "cli-options-items.h"
#include "../options/sql.def"
};

typedef enum { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON } sql_format;

/* A cell of the table, kept until the widths are known. */
typedef struct cell {
	char *text;                /* malloc'd */
	bool number;               /* aligned right */
} cell;

/* What the callbacks share. */
typedef struct sql_out {
	sql_format format;
	FILE *f;
	size_t n_columns;
	uint64_t rows;
	bool failed;               /* out of memory (printed) */
	/* table: the header then the first rows, n_columns cells each, kept
	 * until the widths are known (TABLE_SIZING_*) */
	cell *cells;
	size_t n_cells, cap_cells;
	size_t kept_bytes;         /* text in cells */
	size_t *width;             /* per column, once sized (then rows stream) */
} sql_out;

/* Display width of UTF-8 text: its code points. */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* `size` bytes as lowercase hex in a malloc'd string, at most `max`
 * bytes shown (then "..."); max 0: all. */
static char *hex_of(const void *data, size_t size, size_t max)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = data;
	size_t shown = max && size > max ? max : size;
	char *s = malloc(shown * 2 + 4);

	if (!s)
		return NULL;
	for (size_t i = 0; i < shown; i++) {
		s[2 * i] = digits[b[i] >> 4];
		s[2 * i + 1] = digits[b[i] & 15];
	}
	strcpy(s + shown * 2, shown < size ? "..." : "");
	return s;
}

/* A value as text for the table or CSV (malloc'd; NULL when out of
 * memory). `table`: short reals, NULL spelt out, long blobs cut and
 * line breaks and tabs shown as spaces. */
static char *value_text(const tsr_value *v, bool table)
{
	char buf[64], *s;

	switch (v->type) {
	case TSR_VALUE_INTEGER:
		snprintf(buf, sizeof(buf), "%" PRId64, v->integer);
		return strdup(buf);
	case TSR_VALUE_REAL:
		snprintf(buf, sizeof(buf), table ? "%.6g" : "%.17g", v->real);
		return strdup(buf);
	case TSR_VALUE_TEXT:
		s = strdup(v->data);
		if (s && table)
			for (char *p = s; *p; p++)
				if (*p == '\n' || *p == '\r' || *p == '\t')
					*p = ' ';
		return s;
	case TSR_VALUE_BLOB:
		return hex_of(v->data, v->size, table ? 16 : 0);
	default:
		return strdup(table ? "NULL" : "");
	}
}

/* Keeps one cell of the table. */
static bool add_cell(sql_out *o, char *text, bool number)
{
	if (!text)
		return false;
	if (o->n_cells == o->cap_cells) {
		size_t cap = o->cap_cells ? o->cap_cells * 2 : 256;
		cell *cells = realloc(o->cells, cap * sizeof(*cells));

		if (!cells) {
			free(text);
			return false;
		}
		o->cells = cells;
		o->cap_cells = cap;
	}
	o->cells[o->n_cells].text = text;
	o->cells[o->n_cells++].number = number;
	o->kept_bytes += strlen(text);
	return true;
}

/* One CSV field, quoted when it holds a comma, a quote or a line break
 * (quotes doubled), RFC 4180. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* The header: kept (table), written (CSV), or opens the array (JSON). */
static int on_columns(void *user_data, size_t n, const char *const *names)
{
	sql_out *o = user_data;

	o->n_columns = n;
	if (o->format == FORMAT_JSON) {
		fputc('[', o->f);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (o->format == FORMAT_TABLE) {
			if (!add_cell(o, strdup(names[i]), false)) {
				o->failed = true;
				return 1;
			}
		} else {
			if (i)
				fputc(',', o->f);
			csv_field(o->f, names[i]);
		}
	}
	if (o->format == FORMAT_CSV)
		fputs("\r\n", o->f);
	return 0;
}

/* One row as a JSON object, integers as exact number text. */
static cJSON *json_row(size_t n, const char *const *names, const tsr_value *values)
{
	cJSON *obj = cJSON_CreateObject();

	for (size_t i = 0; obj && i < n; i++) {
		const tsr_value *v = &values[i];
		cJSON *item = NULL;
		char *hex;

		switch (v->type) {
		case TSR_VALUE_INTEGER: item = cli_json_i64(v->integer); break;
		case TSR_VALUE_REAL: item = cJSON_CreateNumber(v->real); break;
		case TSR_VALUE_TEXT: item = cli_json_str(v->data); break;
		case TSR_VALUE_BLOB:
			hex = hex_of(v->data, v->size, 0);
			item = hex ? cJSON_CreateString(hex) : NULL;
			free(hex);
			break;
		default: item = cJSON_CreateNull(); break;
		}
		if (!cli_json_put(obj, names[i], item)) {
			cJSON_Delete(obj);
			obj = NULL;
		}
	}
	return obj;
}

/* Writes one row of cells with the table's widths: numbers right, the
 * rest left, two spaces between columns, no trailing blanks. */
static void write_cells(sql_out *o, const cell *row)
{
	size_t n = o->n_columns;

	for (size_t col = 0; col < n; col++) {
		const cell *c = &row[col];
		size_t w = text_width(c->text), pad = o->width[col] > w ? o->width[col] - w : 0;

		if (col)
			fputs("  ", o->f);
		if (c->number)
			fprintf(o->f, "%*s", (int)pad, "");
		fputs(c->text, o->f);
		if (!c->number && col != n - 1)
			fprintf(o->f, "%*s", (int)pad, "");
	}
	fputc('\n', o->f);
}

/* Sizes the columns from the kept cells and writes them: the header, a
 * rule, the rows kept so far. Later rows are written as they come
 * (table_row). */
static bool write_table(sql_out *o)
{
	size_t n = o->n_columns;

	if (n == 0 || o->width)
		return true;
	o->width = calloc(n, sizeof(*o->width));
	if (!o->width)
		return false;
	for (size_t i = 0; i < o->n_cells; i++) {
		size_t w = text_width(o->cells[i].text);

		if (w > o->width[i % n])
			o->width[i % n] = w;
	}
	for (size_t i = 0; i + n <= o->n_cells; i += n) {
		write_cells(o, &o->cells[i]);
		if (i == 0) /* the rule under the header */
			for (size_t k = 0; k < n; k++) {
				if (k)
					fputs("  ", o->f);
				for (size_t d = 0; d < o->width[k]; d++)
					fputc('-', o->f);
				if (k == n - 1)
					fputc('\n', o->f);
			}
	}
	for (size_t i = 0; i < o->n_cells; i++)
		free(o->cells[i].text);
	o->n_cells = 0;
	o->kept_bytes = 0;
	return true;
}

/* One row of the table: kept while the columns are being sized, then
 * written at once. Returns non-zero to stop (out of memory). */
static int table_row(sql_out *o, size_t n, const tsr_value *values)
{
	size_t first = o->n_cells;

	for (size_t i = 0; i < n; i++) {
		bool number = values[i].type == TSR_VALUE_INTEGER || values[i].type == TSR_VALUE_REAL;

		if (!add_cell(o, value_text(&values[i], true), number)) {
			o->failed = true;
			return 1;
		}
	}
	if (o->width) {
		write_cells(o, &o->cells[first]);
		for (size_t i = first; i < o->n_cells; i++)
			free(o->cells[i].text);
		o->n_cells = first;
		o->kept_bytes = 0;
	} else if (o->rows >= TABLE_SIZING_ROWS || o->kept_bytes >= TABLE_SIZING_BYTES) {
		if (!write_table(o)) {
			o->failed = true;
			return 1;
		}
	}
	return 0;
}

/* One row: the table's (table_row), or written (CSV, JSON). */
static int on_row(void *user_data, size_t n, const char *const *names, const tsr_value *values)
{
	sql_out *o = user_data;

	o->rows++;
	if (o->format == FORMAT_JSON) {
		cJSON *obj = json_row(n, names, values);
		char *text = obj ? cJSON_PrintUnformatted(obj) : NULL;

		cJSON_Delete(obj);
		if (!text) {
			o->failed = true;
			return 1;
		}
		fprintf(o->f, "%s\n%s", o->rows > 1 ? "," : "", text);
		cJSON_free(text);
		return 0;
	}
	if (o->format == FORMAT_TABLE)
		return table_row(o, n, values);
	for (size_t i = 0; i < n; i++) {
		char *s = value_text(&values[i], false);

		if (!s) {
			o->failed = true;
			return 1;
		}
		if (i)
			fputc(',', o->f);
		csv_field(o->f, s);
		free(s);
	}
	fputs("\r\n", o->f);
	return 0;
}

/* Whether a directory holds a profile.pop (else it is taken as traces). */
static bool dir_has_report(const char *path)
{
	struct stat sb;
	char *p = malloc(strlen(path) + 16);
	bool yes;

	if (!p)
		return true;
	sprintf(p, "%s/profile.pop", path);
	yes = stat(p, &sb) == 0;
	free(p);
	return yes;
}

/*
 * Opens FILE as what reportlib recognises it to be: a report (a
 * profile.pop or a directory holding one) or else a .pvti trace of one
 * file (or a Chrome JSON trace, which the trace reader takes). Exactly one of *report and *trace is set on success; errors are
 * printed.
 */
static int open_file(tsr_report **report, tsr_trace **trace, const char *path)
{
	const tsr_trace_info *info;
	struct stat sb;
	bool dir = stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
	int rc;

	*report = NULL;
	*trace = NULL;
	if (!dir || dir_has_report(path)) {
		cli_progress_begin("Reading the report");
		rc = tsr_report_open(report, path, NULL);
		cli_progress_end();
		if (rc == TSR_OK)
			return CLI_EXIT_OK;
		/* Anything but "this is a .pvti" (or not SQLite at all: a Chrome
		 * JSON trace, or what the trace reader will name) is the answer. */
		if (rc != TSR_ERR_NOT_SQLITE &&
		    (rc != TSR_ERR_NOT_REPORT || !strstr(tsr_last_error(), ".pvti")))
			return cli_error("%s", tsr_last_error());
	}
	if (cli_open_trace(trace, &path, 1) != CLI_EXIT_OK)
		return CLI_EXIT_ERROR;
	info = tsr_trace_get_info(*trace);
	if (info->processes != 1) {
		cli_error("%s: holds %zu traces: give one .pvti file", path, info->processes);
		tsr_trace_free(*trace);
		*trace = NULL;
		return CLI_EXIT_ERROR;
	}
	return CLI_EXIT_OK;
}

/* Opens FILE, runs SQL into the output and closes it (cli.h's
 * temporary-file rule for -o). `limits` bounds the statement. */
static int run_sql(const char *path, const char *sql, sql_format format, const char *output,
                   const tsr_query_limits *limits)
{
	tsr_report *report = NULL;
	tsr_trace *trace = NULL;
	cli_output *out = NULL;
	sql_out o = {.format = format};
	int rc, status = CLI_EXIT_ERROR;
	bool ok = false;

	if (open_file(&report, &trace, path) != CLI_EXIT_OK)
		return CLI_EXIT_ERROR;
	rc = report ? tsr_report_set_query_limits(report, limits)
	            : tsr_trace_set_query_limits(trace, limits);
	if (rc != TSR_OK) {
		cli_error("%s", report ? tsr_report_error(report) : tsr_trace_error(trace));
		goto cleanup;
	}
	out = cli_output_open(output);
	if (!out)
		goto cleanup;
	o.f = cli_output_stream(out);
	cli_progress_begin("Running the query");
	rc = report ? tsr_report_query(report, sql, on_columns, on_row, &o)
	            : tsr_trace_query(trace, 0, sql, on_columns, on_row, &o);
	cli_progress_end();
	if (o.failed) {
		cli_error("out of memory");
	} else if (rc != TSR_OK) {
		cli_error("%s", report ? tsr_report_error(report) : tsr_trace_error(trace));
	} else if (format == FORMAT_TABLE && !write_table(&o)) {
		cli_error("out of memory");
	} else {
		if (format == FORMAT_JSON)
			fputs(o.rows ? "\n]\n" : "]\n", o.f);
		ok = true;
	}
	status = cli_output_close(out, ok);
	if (!ok)
		status = CLI_EXIT_ERROR;
cleanup:
	for (size_t i = 0; i < o.n_cells; i++)
		free(o.cells[i].text);
	free(o.cells);
	free(o.width);
	tsr_report_free(report);
	tsr_trace_free(trace);
	return status;
}

/* Parses --timeout's SECONDS: a decimal number in (0, MAX_TIMEOUT_S],
 * into milliseconds (at least 1). */
static bool parse_timeout(const char *s, uint32_t *ms)
{
	char *end;
	double v;

	if (!s || !*s || strchr(" \t\n+-", *s))
		return false;
	v = strtod(s, &end);
	if (*end || !isfinite(v) || v <= 0 || v > MAX_TIMEOUT_S)
		return false;
	*ms = (uint32_t)(v * 1000.0 + 0.5);
	if (*ms == 0)
		*ms = 1;
	return true;
}

/*
 * Whether `arg` can only be SQL, not an option: it starts with "--" (a
 * comment, to getopt a long option) and its name holds a character no
 * option name has, as SQL with a comment on its first line does
 * ("-- top steps\nSELECT ..."). A lone "--" ends the options as usual.
 */
static bool cannot_be_option(const char *arg)
{
	size_t name = strcspn(arg + 2, "=");

	if (strncmp(arg, "--", 2) != 0 || !arg[2])
		return false;
	for (size_t i = 0; i < name; i++) {
		char ch = arg[2 + i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '-' || ch == '_'))
			return true;
	}
	return false;
}

/* `tilescope sql`: parses the options (before or after the operands),
 * then answers (cli.h). */
int cli_cmd_sql(int argc, char **argv)
{
	tsr_query_limits limits = TSR_QUERY_LIMITS_INIT;
	const char *output = NULL;
	bool csv = false, json = false;
	/* Arguments that can only be SQL stand in for getopt as one of these
	 * one-letter words, and are put back among the operands after. */
	char **sql_args = calloc((size_t)argc + 1, sizeof(*sql_args));
	char *marks = calloc((size_t)argc + 1, 2);
	int c, status;
	cli_options o;
	char usage[256];

	if (!sql_args || !marks) {
		free(sql_args);
		free(marks);
		return cli_error("out of memory");
	}
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (cannot_be_option(argv[i])) {
			sql_args[i] = argv[i];
			marks[2 * i] = 'S';
			argv[i] = &marks[2 * i];
		}
	}
	cli_options_usage(items, CLI_ITEMS_COUNT(items), usage, sizeof(usage));
	cli_options_init(&o, items, CLI_ITEMS_COUNT(items));
	while ((c = cli_options_next(&o, argc, argv)) != -1) {
		switch (c) {
		case OPT_CSV: csv = true; break;
		case OPT_JSON: json = true; break;
		case OPT_OUTPUT: output = optarg; break;
		case OPT_TIMEOUT:
			if (!parse_timeout(optarg, &limits.time_ms)) {
				status = cli_usage_error("sql", usage,
				                         "--timeout takes seconds, more than 0 and at most "
				                         "86400: '%s'", optarg);
				goto done;
			}
			break;
		case OPT_HELP:
			cli_options_print_help(items, CLI_ITEMS_COUNT(items), stdout);
			status = CLI_EXIT_OK;
			goto done;
		default:
			status = cli_option_error("sql", usage, c, argv);
			goto done;
		}
	}
	/* getopt moved the words around: put each SQL argument back. */
	for (int i = 1; i < argc; i++) {
		uintptr_t at = (uintptr_t)argv[i], lo = (uintptr_t)marks;

		if (at >= lo && at < lo + 2 * ((uintptr_t)argc + 1))
			argv[i] = sql_args[(at - lo) / 2];
	}
	if (csv && json)
		status = cli_usage_error("sql", usage, "--csv or --json, not both");
	else if (optind == argc)
		status = cli_usage_error("sql", usage, "no FILE given");
	else if (argc - optind == 1)
		status = cli_usage_error("sql", usage, "no SQL given");
	else if (argc - optind > 2)
		status = cli_usage_error("sql", usage,
		                         "one FILE and one SQL statement (quote the statement)");
	else
		status = run_sql(argv[optind], argv[optind + 1],
		                 csv ? FORMAT_CSV : json ? FORMAT_JSON : FORMAT_TABLE, output, &limits);
done:
	/* argv as it came, whatever getopt left (an error names a word). */
	for (int i = 1; i < argc; i++) {
		uintptr_t at = (uintptr_t)argv[i], lo = (uintptr_t)marks;

		if (at >= lo && at < lo + 2 * ((uintptr_t)argc + 1))
			argv[i] = sql_args[(at - lo) / 2];
	}
	free(sql_args);
	free(marks);
	return status;
}
