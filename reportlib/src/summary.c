/*
 * The summary's figures: every number the printProfileSummary layout
 * shows, asked of the report.h queries once (tsr_summary_figures_new,
 * public in summary.h) and read by the text renderer (summary-text.c),
 * the JSON one (summary-json.c) and any program that shows a summary.
 * The few figures the guide prints that no query returns as such are
 * sums or differences of queried ones (the vertex data without code, the
 * overlapped bytes after overlapping, the peak live bytes, the balances
 * of the Execution part); they are made here and only here.
 *
 * Also here: whether to use colours (tsr_colours_enabled), and the
 * cleaning of names read from the file before they reach a terminal or a
 * JSON string: a report comes from someone else, and a name holding
 * escape sequences must not be able to drive the reader's terminal.
 */
#include <tilescope/alloc.h>
#include "summary-private.h"

#include <tilescope/utf8.h>

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Tiles the "largest tiles" list of an out-of-memory report shows. */
#define LARGEST_TILES 8
/* Rows of optimizationInfo read at most. */
#define MAX_OPTIMIZATIONS 10000
/* Longest optimizationInfo key accepted (bytes). */
#define MAX_OPTIMIZATION_KEY 4096
/* Buckets the memory histogram aims at. */
#define HISTOGRAM_BUCKETS 20

/* --- Small helpers -------------------------------------------------------- */

/* Variables merged by name (several "<anon>" make one line), by name. */
typedef struct tsr_sum_names {
	tsr_summary_named_bytes *v;  /* tsr_alloc'd, cap entries */
	size_t n, cap;
	char *labels;                /* tsr_alloc'd: the "stem*" labels of series */
	size_t labels_size;
} tsr_sum_names;

/* A numbered series of at least this many names ("params0" ...
 * "params1471": a variable per tile) is one line with its count. */
#define SERIES_MIN 16

/*
 * The public figures (summary.h) and what is kept behind them to free
 * them and to answer tsr_summary_figures_list_live_variables. `pub`
 * comes first: the tsr_summary_figures * handed out is this struct. It
 * stays in this file so that the renderers can read only `pub`.
 */
typedef struct tsr_summary {
	tsr_summary_figures pub;
	tsr_report *report;
	const tsr_tile_memory *tiles;  /* num_tiles */
	size_t n_tiles;

	/* Names. */
	const tsr_program *programs;
	size_t n_programs;
	const tsr_compute_set *compute_sets;
	size_t n_compute_sets;
	const tsr_exchange *exchanges[TSR_EXCHANGE_KIND_COUNT];
	size_t n_exchanges[TSR_EXCHANGE_KIND_COUNT];

	const tsr_variable *variables; /* read on first use */
	size_t n_variables;
	tsr_summary_memory *memory;    /* pub.memory (tsr_alloc) */
	tsr_sum_names always_live;     /* pub.always_live */
	tsr_summary_optimization *optimizations; /* pub.optimizations (tsr_alloc), keys too */
	size_t cap_optimizations;
	tsr_vertex_type_cycles *vt_cycles; /* pub.vertex_type_cycles (free) */
	tsr_summary_liveness_step *liveness_steps; /* pub.liveness_steps (tsr_alloc) */
	tsr_summary_step *steps;       /* pub.steps (tsr_alloc) */
	tsr_operation *ops;            /* the operations (free) */
	tsr_summary_operation *operations; /* pub.operations (tsr_alloc) */

	/* tsr_summary_figures_list_live_variables' sweep over the liveness
	 * steps: the not-always-live variables with an interval by first
	 * step, and those live at step `live_at` (SIZE_MAX: none yet). The
	 * printers ask for the steps in order, so each step costs what
	 * enters and leaves it, not a pass over every variable. */
	size_t *live_by_from;          /* n_live_by_from (tsr_alloc) */
	size_t n_live_by_from;
	size_t *live_active;           /* n_live_by_from capacity (tsr_alloc) */
	size_t n_live_active, live_next, live_at;
} tsr_summary;


/* a + b, saturating: sums of values read from a file must not wrap. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* tsr_alloc_rc on the summary's report. */
static void *summary_alloc(tsr_summary *s, int *rc, size_t n, size_t size)
{
	return tsr_alloc_rc(s->report, rc, n, size);
}

/* part / whole, NaN for an empty whole: a balance of nothing is undefined,
 * not 0 (the balances of the Execution part). */
static double ratio(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : NAN;
}

/*
 * Length of the valid UTF-8 sequence at `p` that is printable (not a C0
 * or C1 control or DEL), or 0 when the bytes there are not one. Overlong
 * forms, surrogates and code points past U+10FFFF are invalid.
 */
static size_t utf8_printable(const unsigned char *p)
{
	uint32_t cp;
	size_t len = tsb_utf8_decode(p, SIZE_MAX, &cp);

	if (len == 0 || cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return 0;
	return len;
}

/* How wide a name prints once cleaned: the column widths of the text
 * count characters, not bytes. */
size_t tsr_summary_clean_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = 0;

	while (*p) {
		size_t len = utf8_printable(p);

		p += len ? len : 1;
		n++;
	}
	return n;
}

/* The printable copy of a name read from the file: no escape sequence
 * reaches the terminal and no invalid UTF-8 reaches a JSON string. */
char *tsr_summary_clean_dup(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t total = strlen((const char *)p);
	char *out = tsb_malloc(total + 1), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t len = utf8_printable(p);

		if (len) {
			memcpy(o, p, len);
			o += len;
			p += len;
		} else {
			*o++ = '?';
			p++;
		}
	}
	*o = '\0';
	return out;
}

/*
 * Whether to colour: NO_COLOR (set, not empty) never; CLICOLOR_FORCE
 * (set, not "0") always; CLICOLOR=0 never; then the mode, AUTO meaning
 * when `out` is a terminal. The environment wins over the mode as the
 * guide says it does over the colours option, and NO_COLOR wins over all.
 */
bool tsr_colours_enabled(tsr_colours mode, FILE *out)
{
	const char *v = getenv("NO_COLOR");
	int fd;

	if (v && *v)
		return false;
	v = getenv("CLICOLOR_FORCE");
	if (v && *v && strcmp(v, "0") != 0)
		return true;
	v = getenv("CLICOLOR");
	if (v && strcmp(v, "0") == 0)
		return false;
	if (mode == TSR_COLOURS_ALWAYS)
		return true;
	if (mode != TSR_COLOURS_AUTO || !out)
		return false;
	fd = fileno(out);
	return fd >= 0 && isatty(fd);
}

/* The name of string `s` for sorting (NULL sorts as ""). */
static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* qsort: names by byte order, vertex types fullest first then by name. */
static int named_cmp(const void *a, const void *b)
{
	return strcmp(or_empty(((const tsr_summary_named_bytes *)a)->name),
	              or_empty(((const tsr_summary_named_bytes *)b)->name));
}

static int type_bytes_cmp(const void *a, const void *b)
{
	const tsr_summary_named_bytes *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return strcmp(or_empty(x->name), or_empty(y->name));
}

/* Frees a merged name list (NULL-safe) and counts it off the cap. */
static void names_free(tsr_summary *s, tsr_sum_names *names)
{
	if (names->v)
		tsr_free(s->report, names->v, names->cap * sizeof(*names->v));
	if (names->labels)
		tsr_free(s->report, names->labels, names->labels_size);
	memset(names, 0, sizeof(*names));
}

/*
 * Merges variables into one line per name, in name order: the variables
 * idx[0..n) (indexes into s->variables), or with idx NULL every variable
 * whose always_live flag equals `always_live`. Entries of `idx` that are
 * always live are skipped (the per-step lists exclude them).
 */
static int names_collect(tsr_summary *s, tsr_sum_names *out, const size_t *idx, size_t n,
                         bool always_live)
{
	size_t count = idx ? n : s->n_variables, k = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (count == 0)
		return TSR_OK;
	out->v = summary_alloc(s, &rc, count, sizeof(*out->v));
	if (rc)
		return rc;
	out->cap = count;
	for (size_t i = 0; i < count; i++) {
		size_t vi = idx ? idx[i] : i;
		const tsr_variable *v;

		if (vi >= s->n_variables) {
			names_free(s, out);
			return tsr_fail(s->report, TSR_ERR_CORRUPT,
			                "live variable %zu is past the %zu variables", vi, s->n_variables);
		}
		v = &s->variables[vi];
		if (idx ? v->always_live : v->always_live != always_live)
			continue;
		out->v[k].name = v->name;
		out->v[k].bytes = v->bytes;
		k++;
	}
	qsort(out->v, k, sizeof(*out->v), named_cmp);
	out->n = 0;
	for (size_t i = 0; i < k; i++) {
		if (out->n && strcmp(or_empty(out->v[out->n - 1].name), or_empty(out->v[i].name)) == 0)
			out->v[out->n - 1].bytes = sat_add(out->v[out->n - 1].bytes, out->v[i].bytes);
		else
			out->v[out->n++] = out->v[i];
	}
	return TSR_OK;
}

/* The length of `name` without its trailing digits, and whether it has
 * any (a member of a numbered series). */
static size_t series_stem(const char *name, bool *numbered)
{
	size_t len = strlen(or_empty(name)), stem = len;

	while (stem > 0 && name[stem - 1] >= '0' && name[stem - 1] <= '9')
		stem--;
	*numbered = stem < len && stem > 0;
	return stem;
}

/* Series order: by stem, then the rest; names of one series are adjacent. */
static int series_cmp(const void *a, const void *b)
{
	const char *x = or_empty(((const tsr_summary_named_bytes *)a)->name);
	const char *y = or_empty(((const tsr_summary_named_bytes *)b)->name);
	bool nx, ny;
	size_t sx = series_stem(x, &nx), sy = series_stem(y, &ny);
	int c = strncmp(x, y, sx < sy ? sx : sy);

	if (c)
		return c;
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return strcmp(x, y);
}

/* The end of the run of names that starts at `i` in a sorted list: past
 * the last name of the same numbered series (stem and `numbered` set
 * from names[i]), or i + 1 when names[i] is not numbered. */
static size_t series_end(const tsr_sum_names *names, size_t i, size_t *stem, bool *numbered)
{
	size_t j = i + 1;

	*stem = series_stem(names->v[i].name, numbered);
	while (*numbered && j < names->n) {
		bool nj;
		size_t sj = series_stem(names->v[j].name, &nj);

		if (!nj || sj != *stem || strncmp(names->v[i].name, names->v[j].name, *stem) != 0)
			break;
		j++;
	}
	return j;
}

/*
 * Folds every numbered series of at least SERIES_MIN names in a merged
 * list ("initW/params0" ... "initW/params1471", poprand's per-tile
 * constants) into one line "initW/params*" with their bytes summed and
 * their count, so a list of a large graph is not a screenful of one
 * operation. The list stays in name order.
 */
static int names_group_series(tsr_summary *s, tsr_sum_names *names)
{
	size_t out = 0, label_bytes = 0, at = 0;
	int rc = TSR_OK;

	if (names->n < SERIES_MIN)
		return TSR_OK;
	qsort(names->v, names->n, sizeof(*names->v), series_cmp);
	/* First pass: the room the labels need. */
	for (size_t i = 0; i < names->n;) {
		bool numbered;
		size_t stem, j = series_end(names, i, &stem, &numbered);

		if (numbered && j - i >= SERIES_MIN)
			label_bytes += stem + 2;
		i = numbered ? j : i + 1;
	}
	if (label_bytes) {
		names->labels = summary_alloc(s, &rc, label_bytes, 1);
		if (rc)
			return rc;
		names->labels_size = label_bytes;
	}
	for (size_t i = 0; i < names->n;) {
		bool numbered;
		size_t stem, j = series_end(names, i, &stem, &numbered);

		if (numbered && j - i >= SERIES_MIN) {
			tsr_summary_named_bytes g = {names->labels + at, 0, j - i};

			memcpy(names->labels + at, names->v[i].name, stem);
			names->labels[at + stem] = '*';
			names->labels[at + stem + 1] = 0;
			at += stem + 2;
			for (size_t k = i; k < j; k++)
				g.bytes = sat_add(g.bytes, names->v[k].bytes);
			names->v[out++] = g;
			i = j;
		} else {
			names->v[out++] = names->v[i++];
		}
	}
	names->n = out;
	qsort(names->v, names->n, sizeof(*names->v), named_cmp);
	return TSR_OK;
}

/* Loads the listed variables into the summary on first use. */
static int need_variables(tsr_summary *s)
{
	int rc;

	if (s->variables || s->n_variables)
		return TSR_OK;
	rc = tsr_report_get_variables(&s->variables, &s->n_variables, s->report);
	if (rc == TSR_ERR_NO_DATA) {
		s->variables = NULL;
		s->n_variables = 0;
		return TSR_OK;
	}
	return rc;
}

tsr_report *tsr_summary_get_report(const tsr_summary_figures *figures)
{
	return ((const tsr_summary *)figures)->report;
}

/* Orders variable indexes by the step they become live at. */
static _Thread_local const tsr_variable *from_vars;

static int live_from_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (from_vars[x].live_from != from_vars[y].live_from)
		return from_vars[x].live_from < from_vars[y].live_from ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Builds the sweep's list on first use: the not-always-live variables
 * that have a liveness interval, by the step they become live at. */
static int need_live_sweep(tsr_summary *s)
{
	size_t n = 0;
	int rc = TSR_OK;

	if (s->live_active)
		return TSR_OK;
	for (size_t i = 0; i < s->n_variables; i++)
		n += !s->variables[i].always_live && s->variables[i].live_from >= 0;
	s->n_live_by_from = n;
	s->live_by_from = summary_alloc(s, &rc, n ? n : 1, sizeof(*s->live_by_from));
	if (!rc)
		s->live_active = summary_alloc(s, &rc, n ? n : 1, sizeof(*s->live_active));
	if (rc) {
		tsr_free(s->report, s->live_by_from, (n ? n : 1) * sizeof(*s->live_by_from));
		s->live_by_from = NULL;
		return rc;
	}
	n = 0;
	for (size_t i = 0; i < s->n_variables; i++)
		if (!s->variables[i].always_live && s->variables[i].live_from >= 0)
			s->live_by_from[n++] = i;
	from_vars = s->variables;
	qsort(s->live_by_from, s->n_live_by_from, sizeof(*s->live_by_from), live_from_cmp);
	s->live_at = SIZE_MAX;
	return TSR_OK;
}

/* Moves the sweep to `step`: from the start when asked for an earlier
 * step, else admitting the variables that become live by `step` and
 * dropping the ones no longer live. */
static void live_sweep_to(tsr_summary *s, size_t step)
{
	size_t k = 0;

	if (s->live_at == SIZE_MAX || step < s->live_at) {
		s->n_live_active = 0;
		s->live_next = 0;
	}
	while (s->live_next < s->n_live_by_from &&
	       (size_t)s->variables[s->live_by_from[s->live_next]].live_from <= step)
		s->live_active[s->n_live_active++] = s->live_by_from[s->live_next++];
	for (size_t i = 0; i < s->n_live_active; i++)
		if ((size_t)s->variables[s->live_active[i]].live_to >= step)
			s->live_active[k++] = s->live_active[i];
	s->n_live_active = k;
	s->live_at = step;
}

/* The not-always-live variables of one liveness step, merged by name as
 * the guide lists them; asked per step so that the tree never holds more
 * than one step's list at a time. Copied out of the capped allocation
 * into one the caller frees with free(). A report's 45,582 steps over
 * 164,096 variables took hours as a scan and sort of every live one per
 * step; the sweep takes what enters and leaves each step. */
int tsr_summary_figures_list_live_variables(tsr_summary_named_bytes **out, size_t *n,
                                            tsr_summary_figures *figures, size_t step)
{
	tsr_summary *s = (tsr_summary *)figures;
	tsr_sum_names live = {0};
	const tsr_liveness_step *steps;
	size_t n_steps;
	int rc;

	if (!out || !n || !figures)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "live variables: no %s",
		                          figures ? "output pointer" : "figures");
	*out = NULL;
	*n = 0;
	rc = tsr_report_get_liveness_steps(&steps, &n_steps, s->report);
	if (!rc && step >= n_steps)
		rc = tsr_fail(s->report, TSR_ERR_OUT_OF_RANGE, "liveness step %zu of %zu", step,
		              n_steps);
	if (!rc)
		rc = need_variables(s);
	if (!rc)
		rc = need_live_sweep(s);
	if (rc)
		return rc;
	live_sweep_to(s, step);
	if (s->n_live_active)
		rc = names_collect(s, &live, s->live_active, s->n_live_active, false);
	if (rc == TSR_OK && live.n) {
		*out = tsb_malloc(live.n * sizeof(**out));
		if (*out) {
			memcpy(*out, live.v, live.n * sizeof(**out));
			*n = live.n;
		} else {
			rc = tsr_fail(s->report, TSR_ERR_NO_MEMORY, "live variables: out of memory");
		}
	}
	names_free(s, &live);
	return rc;
}

/* A non-empty name or NULL. */
static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

/* The exchange of `kind` with id `id`'s name, or NULL. */
static const char *exchange_name(const tsr_summary *s, tsr_exchange_kind kind, int64_t id)
{
	if ((unsigned)kind >= TSR_EXCHANGE_KIND_COUNT || id < 0 ||
	    (uint64_t)id >= s->n_exchanges[kind])
		return NULL;
	return nonempty(s->exchanges[kind][id].name);
}

/* Compute set `cs`'s name, or NULL. */
static const char *compute_set_name(const tsr_summary *s, int64_t cs)
{
	if (cs < 0 || (uint64_t)cs >= s->n_compute_sets)
		return NULL;
	return nonempty(s->compute_sets[cs].name);
}

/* A program's type and most telling name; ids out of range give
 * TSR_PROGRAM_NONE rather than a read past an array. */
static void program_label(const tsr_summary *s, uint32_t program, tsr_program_type *type,
                          const char **name)
{
	const tsr_program *p;

	*type = TSR_PROGRAM_NONE;
	*name = NULL;
	if (program >= s->n_programs)
		return;
	p = &s->programs[program];
	*type = p->program_type;
	*name = nonempty(p->name);
	if (!*name)
		*name = compute_set_name(s, p->compute_set);
	if (!*name && p->exchange >= 0)
		*name = exchange_name(s, p->exchange_kind, p->exchange);
}

/* --- What only the JSON holds (summary-private.h) -------------------------- */

uint64_t tsr_summary_tile_bytes_with_gaps(const tsr_summary_figures *figures, uint32_t tile)
{
	const tsr_summary *s = (const tsr_summary *)figures;

	return tile < s->n_tiles ? tsr_tile_memory_get_bytes(&s->tiles[tile], true) : 0;
}

/* qsort: variables by bytes, most first, then by position (id order). */
static int variable_cmp(const void *a, const void *b)
{
	const tsr_variable *x = *(const tsr_variable *const *)a;
	const tsr_variable *y = *(const tsr_variable *const *)b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x < y ? -1 : x > y;
}

int tsr_summary_list_largest_variables(const tsr_variable ***out, size_t *n, size_t *n_listed,
                                       const tsr_summary_figures *figures, size_t max)
{
	const tsr_summary *s = (const tsr_summary *)figures;
	const tsr_variable *vars, **order;
	size_t n_vars;
	int rc = tsr_report_get_variables(&vars, &n_vars, s->report);

	*out = NULL;
	*n = *n_listed = 0;
	if (rc == TSR_ERR_NO_DATA || (!rc && !n_vars))
		return TSR_OK;
	if (rc)
		return rc;
	order = tsb_calloc(n_vars, sizeof(*order));
	if (!order)
		return tsr_fail(s->report, TSR_ERR_NO_MEMORY, "summary: out of memory");
	for (size_t i = 0; i < n_vars; i++)
		order[i] = &vars[i];
	qsort(order, n_vars, sizeof(*order), variable_cmp);
	*out = order;
	*n = n_vars < max ? n_vars : max;
	*n_listed = n_vars;
	return TSR_OK;
}

/* qsort: programs by cycles, most first, then by id. */
static int program_cycles_cmp(const void *a, const void *b)
{
	const tsr_summary_program_cycles *x = a, *y = b;

	if (x->cycles != y->cycles)
		return x->cycles > y->cycles ? -1 : 1;
	return x->program < y->program ? -1 : x->program > y->program;
}

int tsr_summary_list_program_cycles(tsr_summary_program_cycles **out, size_t *n,
                                    const tsr_summary_figures *figures)
{
	const tsr_summary *s = (const tsr_summary *)figures;
	tsr_summary_program_cycles *p;
	const tsr_step *steps;
	size_t n_steps, k = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!figures->has_run || !s->n_programs)
		return TSR_OK;
	rc = tsr_report_get_steps(&steps, &n_steps, s->report, figures->run);
	if (rc)
		return rc;
	p = tsb_calloc(s->n_programs, sizeof(*p));
	if (!p)
		return tsr_fail(s->report, TSR_ERR_NO_MEMORY, "summary: out of memory");
	for (size_t i = 0; i < n_steps; i++) {
		if (steps[i].program >= s->n_programs)
			continue;
		p[steps[i].program].steps++;
		p[steps[i].program].cycles = sat_add(p[steps[i].program].cycles, steps[i].cycles);
	}
	for (size_t i = 0; i < s->n_programs; i++) {
		if (!p[i].steps)
			continue;
		p[k] = p[i];
		p[k].program = (uint32_t)i;
		program_label(s, (uint32_t)i, &p[k].type, &p[k].name);
		k++;
	}
	qsort(p, k, sizeof(*p), program_cycles_cmp);
	*out = p;
	*n = k;
	return TSR_OK;
}

/*
 * optimizationInfo is a map of the compiler's metrics that report.h has
 * no query for (see the lead's notes); it is read here, bounded in rows
 * and key length, with each value's type checked, and the keys copied
 * (SQLite's text lives only until the next step).
 */
static int gather_optimizations(tsr_summary *s)
{
	tsr_report *report = s->report;
	sqlite3_stmt *st = NULL;
	int rc;

	rc = tsr_prepare(report, &st,
	                 "SELECT key, value FROM optimization_info ORDER BY key LIMIT "
	                 "10000");
	if (rc)
		goto out;
	for (size_t rows = 0; rows < MAX_OPTIMIZATIONS; rows++) {
		tsr_summary_optimization *o;
		const char *key;
		size_t len;
		char *copy;
		int type;

		rc = tsr_step_row(report, st);
		if (rc != SQLITE_ROW)
			break;
		type = sqlite3_column_type(st, 1);
		if (sqlite3_column_type(st, 0) != SQLITE_TEXT ||
		    sqlite3_column_bytes(st, 0) > MAX_OPTIMIZATION_KEY ||
		    (type != SQLITE_INTEGER && type != SQLITE_FLOAT)) {
			rc = tsr_fail(report, TSR_ERR_CORRUPT,
			              "optimization_info: a key that is not text of at most %d bytes "
			              "or a value that is not a number",
			              MAX_OPTIMIZATION_KEY);
			goto out;
		}
		key = (const char *)sqlite3_column_text(st, 0);
		if (!key) {
			rc = tsr_fail(report, TSR_ERR_NO_MEMORY, "optimization_info: out of memory");
			goto out;
		}
		if (s->pub.n_optimizations == s->cap_optimizations) {
			size_t cap = s->cap_optimizations ? 2 * s->cap_optimizations : 16;
			tsr_summary_optimization *grown = summary_alloc(s, &rc, cap, sizeof(*grown));

			if (rc)
				goto out;
			if (s->optimizations) {
				memcpy(grown, s->optimizations,
				       s->pub.n_optimizations * sizeof(*s->optimizations));
				tsr_free(report, s->optimizations,
				         s->cap_optimizations * sizeof(*s->optimizations));
			}
			s->optimizations = grown;
			s->cap_optimizations = cap;
			s->pub.optimizations = grown;
		}
		len = strlen(key);
		copy = summary_alloc(s, &rc, len + 1, 1);
		if (rc)
			goto out;
		memcpy(copy, key, len + 1);
		o = &s->optimizations[s->pub.n_optimizations++];
		o->key = copy;
		o->value = sqlite3_column_double(st, 1);
	}
	rc = (rc == SQLITE_DONE || rc == SQLITE_ROW) ? TSR_OK : rc;
out:
	sqlite3_finalize(st);
	return rc;
}

/* --- Gathering ------------------------------------------------------------ */

/* Frees what one memory part holds. */
static void memory_clear(tsr_summary *s, tsr_summary_memory *m)
{
	if (m->categories)
		tsr_free(s->report, (void *)m->categories, m->n_categories * sizeof(*m->categories));
	if (m->vertex_types)
		tsr_free(s->report, (void *)m->vertex_types,
		         s->pub.n_vertex_types * sizeof(*m->vertex_types));
	free((void *)m->histogram);
	if (m->oom_tiles)
		tsr_free(s->report, (void *)m->oom_tiles, m->n_oom_tiles * sizeof(*m->oom_tiles));
	if (m->largest_tiles)
		tsr_free(s->report, (void *)m->largest_tiles,
		         m->n_largest_tiles * sizeof(*m->largest_tiles));
	memset(m, 0, sizeof(*m));
}

/* The categories of `m` in display order, with their non-overlapped and
 * overlapped sums. */
static int memory_categories(tsr_summary *s, tsr_summary_memory *m)
{
	tsr_category_memory *cats = NULL;
	tsr_summary_category *order;
	size_t n_cats = 0, n_order = 0;
	bool *used = NULL;
	int rc = tsr_report_list_memory_by_category(&cats, &n_cats, s->report, m->ipu);

	if (rc)
		goto out;
	if (n_cats == 0)
		goto out;
	order = summary_alloc(s, &rc, n_cats, sizeof(*order));
	if (rc)
		goto out;
	/* Every category gets one place in the order (memory_clear frees
	 * n_categories entries). */
	m->categories = order;
	m->n_categories = n_cats;
	used = tsb_calloc(n_cats, 1);
	if (!used) {
		rc = tsr_fail(s->report, TSR_ERR_NO_MEMORY, "summary: out of memory");
		goto out;
	}
	/* The guide's "By Data Type" order and labels are the vocabulary's:
	 * what holds data first, then code. */
	size_t n_labels;
	const int *label_order = tsf_mem_category_summary_order(&n_labels);

	for (size_t l = 0; l < n_labels; l++) {
		for (size_t c = 0; c < n_cats; c++) {
			if (!used[c] && (int)cats[c].category == label_order[l]) {
				used[c] = true;
				order[n_order].label = tsf_mem_category_label(label_order[l]);
				order[n_order++].memory = cats[c];
				break;
			}
		}
	}
	for (size_t c = 0; c < n_cats; c++) {
		if (!used[c]) {
			order[n_order].label = or_empty(tsr_category_name(cats[c].category));
			order[n_order++].memory = cats[c];
		}
	}
	for (size_t c = 0; c < n_cats; c++) {
		m->not_overlapped = sat_add(m->not_overlapped, cats[c].non_overlapped);
		m->overlapped = sat_add(m->overlapped, cats[c].overlapped);
	}
	{
		tsr_memory_sharing sh;

		tsr_memory_fill_sharing(&sh, m->totals.total, m->not_overlapped, m->overlapped);
		m->after_overlapping = sh.after_overlapping;
	}
out:
	free(used);
	free(cats);
	return rc;
}

/* Vertex memory: the totals, the guide's "Vertex Data" (all but code) and
 * the vertex types with any bytes in the part, fullest first. */
static int memory_vertices(tsr_summary *s, tsr_summary_memory *m)
{
	const tsr_vertex_memory *v = &m->vertex;
	tsr_summary_named_bytes *by_type;
	size_t n = 0;
	int rc = tsr_report_fill_vertex_memory_totals(&m->vertex, s->report, m->ipu);

	if (rc)
		return rc;
	m->vertex_data = sat_add(sat_add(sat_add(v->vertex_data, v->edge_ptr), v->copy_ptr),
	                         sat_add(v->padding, v->descriptor));
	if (s->pub.n_vertex_types == 0)
		return TSR_OK;
	by_type = summary_alloc(s, &rc, s->pub.n_vertex_types, sizeof(*by_type));
	if (rc)
		return rc;
	m->vertex_types = by_type;
	for (size_t t = 0; t < s->pub.n_vertex_types; t++) {
		tsr_vertex_memory vm;

		rc = tsr_report_fill_vertex_type_memory(&vm, s->report, t, m->ipu);
		if (rc)
			return rc;
		if (vm.total == 0)
			continue;
		by_type[n].name = s->pub.vertex_types[t].name;
		by_type[n++].bytes = vm.total;
	}
	qsort(by_type, n, sizeof(*by_type), type_bytes_cmp);
	m->n_vertex_types = n;
	return TSR_OK;
}

/* The by-tile histogram excluding gaps, in buckets of a whole number of
 * KiB (about HISTOGRAM_BUCKETS up to the fullest tile), and the
 * non-empty range of buckets to print. */
static int memory_histogram(tsr_summary *s, tsr_summary_memory *m)
{
	uint64_t kib = m->totals.max_tile_excluding_gaps_bytes / 1024 +
	               (m->totals.max_tile_excluding_gaps_bytes % 1024 != 0);
	uint64_t width_kib = kib / HISTOGRAM_BUCKETS + (kib % HISTOGRAM_BUCKETS != 0);
	uint64_t *histogram = NULL;
	int rc;

	if (width_kib == 0)
		width_kib = 1;
	rc = tsr_report_list_tile_histogram(&histogram, &m->n_buckets, &m->bucket_width, s->report, m->ipu,
	                                    false, width_kib * 1024);
	if (rc == TSR_ERR_NO_DATA) {
		m->histogram = NULL;
		m->n_buckets = 0;
		return TSR_OK;
	}
	if (rc)
		return rc;
	m->histogram = histogram;
	m->first_bucket = m->n_buckets;
	m->end_bucket = 0;
	for (size_t b = 0; b < m->n_buckets; b++) {
		if (!histogram[b])
			continue;
		if (m->first_bucket == m->n_buckets)
			m->first_bucket = b;
		m->end_bucket = b + 1;
		if (histogram[b] > m->max_bucket)
			m->max_bucket = histogram[b];
	}
	if (m->end_bucket == 0)
		m->first_bucket = 0;
	return TSR_OK;
}

/* The part's out-of-memory tiles and, when there are any, the fullest
 * with their bytes including gaps. */
static int memory_oom(tsr_summary *s, tsr_summary_memory *m)
{
	const uint32_t *all;
	uint32_t *oom, *largest = NULL;
	tsr_summary_tile_bytes *tb;
	size_t n_all, lo = 0, hi = s->pub.target->num_tiles, k = 0, n_oom = 0, n_largest = 0;
	int rc = tsr_report_get_oom_tiles(&all, &n_all, s->report);

	if (rc == TSR_ERR_NO_DATA)
		return TSR_OK;
	if (rc)
		return rc;
	if (m->ipu >= 0) {
		lo = (size_t)m->ipu * s->pub.target->tiles_per_ipu;
		hi = lo + s->pub.target->tiles_per_ipu;
	}
	for (size_t i = 0; i < n_all; i++)
		n_oom += all[i] >= lo && all[i] < hi;
	if (n_oom == 0)
		return TSR_OK;
	oom = summary_alloc(s, &rc, n_oom, sizeof(*oom));
	if (rc)
		return rc;
	m->oom_tiles = oom;
	m->n_oom_tiles = n_oom;
	for (size_t i = 0; i < n_all && k < n_oom; i++)
		if (all[i] >= lo && all[i] < hi)
			oom[k++] = all[i];
	rc = tsr_report_list_largest_tiles(&largest, &n_largest, s->report, m->ipu, true,
	                                   n_oom < LARGEST_TILES ? n_oom : LARGEST_TILES);
	if (rc == TSR_OK && n_largest) {
		tb = summary_alloc(s, &rc, n_largest, sizeof(*tb));
		if (rc == TSR_OK) {
			for (size_t i = 0; i < n_largest; i++) {
				tb[i].tile = largest[i];
				tb[i].bytes = largest[i] < s->n_tiles
				                  ? tsr_tile_memory_get_bytes(&s->tiles[largest[i]], true)
				                  : 0;
			}
			m->largest_tiles = tb;
			m->n_largest_tiles = n_largest;
		}
	}
	free(largest);
	return rc;
}

/* One "Memory on ..." part. */
static int gather_memory(tsr_summary *s, tsr_summary_memory *m, int ipu)
{
	int rc;

	m->ipu = ipu;
	rc = tsr_report_fill_memory_totals(&m->totals, s->report, ipu);
	if (!rc)
		rc = memory_categories(s, m);
	if (!rc)
		rc = memory_vertices(s, m);
	if (!rc)
		rc = memory_histogram(s, m);
	if (!rc)
		rc = memory_oom(s, m);
	return rc;
}

/* The graph's names: programs, compute sets, vertex types, exchanges. */
static int gather_names(tsr_summary *s)
{
	int rc = tsr_report_get_programs(&s->programs, &s->n_programs, s->report);

	if (!rc)
		rc = tsr_report_get_compute_sets(&s->compute_sets, &s->n_compute_sets, s->report);
	if (!rc)
		rc = tsr_report_get_vertex_types(&s->pub.vertex_types, &s->pub.n_vertex_types, s->report);
	for (int k = 0; !rc && k < TSR_EXCHANGE_KIND_COUNT; k++)
		rc = tsr_report_get_exchanges(&s->exchanges[k], &s->n_exchanges[k], s->report,
		                              (tsr_exchange_kind)k);
	return rc;
}

/* Variable Storage Liveness: always-live bytes, the peak, and with
 * show_var_storage the steps with their labels and the always-live list. */
static int gather_liveness(tsr_summary *s)
{
	tsr_summary_figures *f = &s->pub;
	const tsr_liveness_step *steps = NULL;
	size_t n_steps = 0;
	int rc;

	f->always_live_bytes = tsr_report_get_always_live_bytes(s->report);
	if (f->counts->liveness_steps) {
		rc = tsr_report_get_peak_liveness(&f->peak_step, &f->peak_bytes, s->report);
		if (rc && rc != TSR_ERR_NO_DATA)
			return rc;
		f->has_peak = rc == TSR_OK;
	}
	f->max_live_bytes = f->has_peak && f->peak_bytes <= UINT64_MAX - f->always_live_bytes
	                        ? f->always_live_bytes + f->peak_bytes
	                        : f->always_live_bytes;
	if (!f->opts.show_var_storage)
		return TSR_OK;
	rc = tsr_report_get_liveness_steps(&steps, &n_steps, s->report);
	if (rc == TSR_ERR_NO_DATA) {
		steps = NULL;
		n_steps = 0;
	} else if (rc) {
		return rc;
	}
	if (n_steps) {
		s->liveness_steps = summary_alloc(s, &rc, n_steps, sizeof(*s->liveness_steps));
		if (rc)
			return rc;
		for (size_t i = 0; i < n_steps; i++) {
			s->liveness_steps[i].step = &steps[i];
			program_label(s, steps[i].program, &s->liveness_steps[i].program_type,
			              &s->liveness_steps[i].name);
		}
		f->liveness_steps = s->liveness_steps;
		f->n_liveness_steps = n_steps;
	}
	rc = need_variables(s);
	if (rc)
		return rc;
	rc = names_collect(s, &s->always_live, NULL, 0, true);
	if (!rc)
		rc = names_group_series(s, &s->always_live);
	f->always_live = s->always_live.v;
	f->n_always_live = s->always_live.n;
	return rc;
}

/* The steps of the run with their names and, for OnTileExecute, their
 * compute set's vertex types (the table is read before the first, so
 * that a damaged one fails here and not half way through printing). */
static int gather_steps(tsr_summary *s)
{
	tsr_summary_figures *f = &s->pub;
	const tsr_step *steps;
	size_t n;
	int rc = tsr_report_get_steps(&steps, &n, s->report, f->run);

	if (rc)
		return rc;
	if (s->n_compute_sets) {
		const tsr_vertex_type_cycles *vt;
		size_t n_vt;

		rc = tsr_report_get_compute_set_vertex_types(&vt, &n_vt, s->report, 0);
		if (rc)
			return rc;
	}
	if (n == 0)
		return TSR_OK;
	s->steps = summary_alloc(s, &rc, n, sizeof(*s->steps));
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		const tsr_step *st = &steps[i];
		tsr_summary_step *out = &s->steps[i];

		out->step = st;
		out->name = tsr_report_lookup_step_name(s->report, st);
		if (st->type == TSR_STEP_ON_TILE_EXECUTE && st->compute_set >= 0 &&
		    (uint64_t)st->compute_set < s->n_compute_sets &&
		    tsr_report_get_compute_set_vertex_types(&out->vertex_types, &out->n_vertex_types, s->report,
		                                            (size_t)st->compute_set) != TSR_OK) {
			out->vertex_types = NULL;
			out->n_vertex_types = 0;
		}
	}
	f->steps = s->steps;
	f->n_steps = n;
	return TSR_OK;
}

/* The Execution part: the chosen run's activity, length, balances, cycles
 * by vertex type and, with show_execution_steps, its steps. */
static int gather_execution(tsr_summary *s)
{
	tsr_summary_figures *f = &s->pub;
	const tsr_run *runs;
	uint64_t tiles = f->target->num_tiles ? f->target->num_tiles : 1;
	const tsr_tile_cycles *tc = &f->activity.tile_cycles;
	int rc = tsr_report_get_runs(&runs, &f->n_runs, s->report);

	if (rc == TSR_ERR_NO_DATA) {
		f->n_runs = 0;
		return TSR_OK;
	}
	if (rc || f->n_runs == 0)
		return rc;
	if (f->opts.run >= 0 && (uint64_t)f->opts.run >= f->n_runs)
		return tsr_fail(s->report, TSR_ERR_OUT_OF_RANGE,
		                "run %" PRId64 " asked for; the report keeps %zu run(s)", f->opts.run,
		                f->n_runs);
	f->run = f->opts.run >= 0 ? (size_t)f->opts.run : f->n_runs - 1;
	f->program = runs[f->run].program;
	f->program_name = tsr_report_lookup_engine_program_name(s->report, f->program);
	f->has_run = true;
	rc = tsr_report_fill_run_activity(&f->activity, s->report, f->run);
	if (!rc)
		rc = tsr_report_fill_run_flops(&f->flops, s->report, f->run, false);
	if (!rc)
		rc = tsr_report_list_cycles_by_vertex_type(&s->vt_cycles, &f->n_vertex_type_cycles, s->report,
		                                           (int64_t)f->run);
	if (!rc) {
		/* Only the types that ran: the others would list every vertex
		 * type of the graph at 0 cycles. */
		size_t k = 0;

		for (size_t i = 0; i < f->n_vertex_type_cycles; i++)
			if (s->vt_cycles[i].executions)
				s->vt_cycles[k++] = s->vt_cycles[i];
		f->n_vertex_type_cycles = k;
		f->vertex_type_cycles = s->vt_cycles;
	}
	f->tile_balance = ratio(tc->compute, f->activity.cycles > UINT64_MAX / tiles
	                                                     ? UINT64_MAX
	                                                     : f->activity.cycles * tiles);
	f->thread_balance = ratio(tc->active_compute, tc->compute);
	if (!rc && f->opts.show_execution_steps)
		rc = gather_steps(s);
	return rc;
}

/*
 * The operations with their depth and utilisation: the run's costs when
 * the report has runs, memory only otherwise. Utilisation is against the
 * fp32 peak of all tiles over the operation's own cycles, as the run's
 * FLOPs utilisation is over the run's.
 */
static int gather_operations(tsr_summary *s)
{
	tsr_summary_figures *f = &s->pub;
	size_t n = 0;
	double per_cycle = (double)f->target->fp32_flops_per_cycle * (double)f->target->num_tiles;
	int rc = tsr_report_list_operations(&s->ops, &n, s->report,
	                                    f->has_run ? (int64_t)f->run : -1);

	if (rc == TSR_ERR_NO_DATA)
		return TSR_OK;
	if (rc || n == 0)
		return rc;
	s->operations = summary_alloc(s, &rc, n, sizeof(*s->operations));
	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		tsr_summary_operation *o = &s->operations[i];
		const tsr_operation *op = &s->ops[i];

		o->op = op;
		o->memory = sat_add(op->variable_bytes, op->vertex_bytes);
		o->utilisation = op->cycles && per_cycle > 0
		                     ? (double)op->flops / (per_cycle * (double)op->cycles)
		                     : NAN;
		/* Parents come first (lower ids): their depth is known. */
		for (size_t k = i; k-- > 0;)
			if (s->ops[k].id == op->parent) {
				o->depth = s->operations[k].depth + 1;
				break;
			}
	}
	f->operations = s->operations;
	f->n_operations = n;
	return TSR_OK;
}

/* Frees the figures and everything tsr_summary_figures_new took. */
void tsr_summary_figures_free(tsr_summary_figures *figures)
{
	tsr_summary *s = (tsr_summary *)figures;

	if (!s)
		return;
	for (size_t i = 0; s->memory && i < s->pub.n_memory; i++)
		memory_clear(s, &s->memory[i]);
	if (s->memory)
		tsr_free(s->report, s->memory, s->pub.n_memory * sizeof(*s->memory));
	for (size_t i = 0; i < s->pub.n_optimizations; i++)
		tsr_free(s->report, (void *)s->optimizations[i].key,
		         strlen(s->optimizations[i].key) + 1);
	if (s->optimizations)
		tsr_free(s->report, s->optimizations, s->cap_optimizations * sizeof(*s->optimizations));
	names_free(s, &s->always_live);
	{
		size_t cap = s->n_live_by_from ? s->n_live_by_from : 1;

		tsr_free(s->report, s->live_by_from, cap * sizeof(*s->live_by_from));
		tsr_free(s->report, s->live_active, cap * sizeof(*s->live_active));
	}
	if (s->liveness_steps)
		tsr_free(s->report, s->liveness_steps,
		         s->pub.n_liveness_steps * sizeof(*s->liveness_steps));
	if (s->steps)
		tsr_free(s->report, s->steps, s->pub.n_steps * sizeof(*s->steps));
	if (s->operations)
		tsr_free(s->report, s->operations, s->pub.n_operations * sizeof(*s->operations));
	free(s->ops);
	free(s->vt_cycles);
	tsr_free(s->report, s, sizeof(*s));
}

/* Checks the options and asks the report for every figure they call for,
 * before anything is printed, so a failure prints nothing. */
int tsr_summary_figures_new(tsr_summary_figures **out, tsr_report *report,
                            const tsr_summary_options *opts)
{
	const tsr_summary_options defaults = TSR_SUMMARY_OPTIONS_INIT;
	tsr_summary *s;
	tsr_summary_figures *f;
	size_t n_memory;
	int rc;

	if (!out) {
		if (report)
			return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "summary: no output pointer");
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "summary: no output pointer");
	}
	*out = NULL;
	if (!report)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "summary: no report");
	s = tsr_alloc(report, 1, sizeof(*s));
	if (!s)
		return report->memory_used > report->memory_cap ||
		               sizeof(*s) > report->memory_cap - report->memory_used
		           ? TSR_ERR_TOO_LARGE
		           : TSR_ERR_NO_MEMORY;
	memset(s, 0, sizeof(*s));
	f = &s->pub;
	s->report = report;
	/* A version 1 struct ends before show_operations. */
	f->opts = defaults;
	if (opts && opts->version == 1)
		memcpy(&f->opts, opts, offsetof(tsr_summary_options, show_operations));
	else if (opts)
		f->opts = *opts;
	if (f->opts.version == 1)
		f->opts.version = TSR_SUMMARY_OPTIONS_VERSION;
	if (f->opts.version != TSR_SUMMARY_OPTIONS_VERSION) {
		rc = tsr_fail(report, TSR_ERR_INVALID_ARGUMENT,
		              "summary options version %u; this library knows %u", f->opts.version,
		              TSR_SUMMARY_OPTIONS_VERSION);
		goto out;
	}
	if (f->opts.run < -1) {
		rc = tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "summary: run %" PRId64, f->opts.run);
		goto out;
	}
	f->target = tsr_report_get_target(report);
	f->counts = tsr_report_get_counts(report);
	if (!f->target || !f->counts) {
		rc = tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "summary: the report is not open");
		goto out;
	}
	rc = tsr_report_get_tile_memory(&s->tiles, &s->n_tiles, report);
	if (!rc)
		rc = gather_names(s);
	if (!rc && f->opts.show_optimizations)
		rc = gather_optimizations(s);
	if (rc)
		goto out;

	n_memory = 1 + (f->opts.show_per_ipu_memory ? f->target->num_ipus : 0);
	s->memory = summary_alloc(s, &rc, n_memory, sizeof(*s->memory));
	if (rc)
		goto out;
	f->memory = s->memory;
	f->n_memory = n_memory;
	for (size_t i = 0; !rc && i < n_memory; i++)
		rc = gather_memory(s, &s->memory[i], (int)i - 1);
	if (!rc)
		rc = gather_liveness(s);
	if (!rc)
		rc = gather_execution(s);
	if (!rc && f->opts.show_operations)
		rc = gather_operations(s);
out:
	if (rc)
		tsr_summary_figures_free(f);
	else
		*out = f;
	return rc;
}
