/*
 * tsr_summary_print: the gathered figures (summary.h's
 * tsr_summary_figures, and nothing else) as text in the
 * layout of the Poplar user guide's "Profile summary output": Target,
 * Graph, Memory Usage (total, by region, by data type, vertex data, the
 * by-tile histogram), Variable Storage Liveness, Execution, Cycles by
 * vertex type and Steps, with the guide's labels, order, indentation,
 * columns and number formats (thousands separators, one decimal for
 * sizes, clock and percentages). One departure: sizes are binary, as the
 * guide's "256.0 kB" tile is, but named KiB / MiB, since `tilescope diff`'s
 * limits (and SI) read kB as 1,000 bytes; the same names as the apps.
 *
 * Columns. The guide right-aligns numbers to fixed columns in each part
 * (38 for totals and graph counts, 59 for data types, 47 for vertex
 * data) and, in lists of names, 14 characters past the longest name;
 * those widths are reproduced here. Names read from the file are cleaned
 * (tsr_summary_clean_dup) before they are printed.
 *
 * Colour (when tsr_colours_enabled says so) marks headings and
 * out-of-memory warnings only, with ANSI SGR codes.
 */
#include "summary-private.h"

#include <tilescope/numfmt.h>

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SGR_HEADING "\033[1;36m"
#define SGR_WARNING "\033[1;31m"
#define SGR_RESET "\033[0m"

/* Widest name column of a list; longer names push their number right. */
#define MAX_NAME_COLUMN 120
/* Deepest indentation of the liveness tree (deeper steps print there). */
#define MAX_TREE_INDENT 64
/* Width of the histogram's bars. */
#define BAR_WIDTH 40
/* Out-of-memory tile ranges listed before "and N more". */
#define MAX_OOM_RANGES 32

typedef struct text_ctx {
	FILE *out;
	bool colour;
	bool no_memory;        /* a name could not be cleaned */
	tsr_summary_figures *s;
} text_ctx;

/* --- Formatting ------------------------------------------------------------ */

/* The number formats are libtilescope-base's (tilescope/numfmt.h), the
 * ones the apps print with too; these keep the buffer sizes here. */

/* `v` with thousands separators ("1,216"). */
static const char *fmt_u64(char buf[32], uint64_t v)
{
	return tsb_format_u64(buf, 32, v);
}

/* `v` with one decimal and thousands separators ("1,600.0"); "n/a" when
 * not a finite non-negative number. */
static const char *fmt_1dp(char buf[40], double v)
{
	return tsb_format_tenths(buf, 40, v);
}

/* A fraction as a percentage with one decimal ("91.5%"), "n/a" when NaN. */
static const char *fmt_pct(char buf[48], double fraction)
{
	return tsb_format_percent(buf, 48, fraction);
}

/* A size in binary units with one decimal and their IEC names ("256.0 KiB",
 * "304.0 MiB"): the guide's layout prints "kB" for 1,024 bytes, which the
 * limits' parser (and everyone else) reads as 1,000. */
static const char *fmt_size(char buf[48], uint64_t bytes)
{
	return tsb_format_size(buf, 48, bytes);
}

/* --- Output ---------------------------------------------------------------- */

static void spaces(text_ctx *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc(' ', t->out);
}

/* Prints `fmt` at `indent`, coloured with `sgr` when colours are on. */
static void __attribute__((format(printf, 4, 5)))
coloured(text_ctx *t, const char *sgr, int indent, const char *fmt, ...)
{
	va_list ap;

	spaces(t, (size_t)indent);
	if (t->colour)
		fputs(sgr, t->out);
	va_start(ap, fmt);
	vfprintf(t->out, fmt, ap);
	va_end(ap);
	if (t->colour)
		fputs(SGR_RESET, t->out);
	fputc('\n', t->out);
}

#define heading(t, indent, ...) coloured(t, SGR_HEADING, indent, __VA_ARGS__)
#define warning(t, indent, ...) coloured(t, SGR_WARNING, indent, __VA_ARGS__)

/* Prints a name from the file, cleaned; returns the characters printed. */
static size_t put_name(text_ctx *t, const char *name)
{
	char *clean = tsr_summary_clean_dup(name);

	if (!clean) {
		t->no_memory = true;
		return 0;
	}
	fputs(clean, t->out);
	free(clean);
	return tsr_summary_clean_width(name);
}

/* `label` at `indent`, then `value` right-aligned to end at column `end`
 * (at least one space between), then `suffix`. `name` says the label
 * comes from the file. */
static void row(text_ctx *t, int indent, const char *label, bool name, const char *value,
                size_t end, const char *suffix)
{
	size_t used = (size_t)indent, vlen = strlen(value);

	spaces(t, (size_t)indent);
	if (name) {
		used += put_name(t, label);
	} else {
		fputs(label, t->out);
		used += strlen(label);
	}
	spaces(t, used + vlen < end ? end - used - vlen : 1);
	fprintf(t->out, "%s%s\n", value, suffix);
}

/* A row of bytes: the number with separators, " B" after it. */
static void row_bytes(text_ctx *t, int indent, const char *label, uint64_t bytes, size_t end)
{
	char num[32];

	row(t, indent, label, false, fmt_u64(num, bytes), end, " B");
}

/* `label` at `indent` padded to `col` characters, then the value. */
static void __attribute__((format(printf, 4, 5)))
row_left(text_ctx *t, const char *label, size_t col, const char *fmt, ...)
{
	va_list ap;
	size_t len = strlen(label);

	fputs(label, t->out);
	spaces(t, len < col ? col - len : 1);
	va_start(ap, fmt);
	vfprintf(t->out, fmt, ap);
	va_end(ap);
	fputc('\n', t->out);
}

/* The name column of a list: its longest (cleaned) name, capped. */
static size_t name_column(const char *const *names, size_t n, size_t stride)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		const char *name = *(const char *const *)((const char *)names + i * stride);
		size_t len = tsr_summary_clean_width(name);

		if (len > w)
			w = len;
	}
	return w < MAX_NAME_COLUMN ? w : MAX_NAME_COLUMN;
}

/* A list of names and bytes at `indent`, numbers 14 past the names. */
static void name_list(text_ctx *t, int indent, const tsr_summary_named_bytes *v, size_t n)
{
	size_t end;

	if (n == 0)
		return;
	end = (size_t)indent + name_column(&v->name, n, sizeof(*v)) + 14;
	for (size_t i = 0; i < n; i++) {
		char num[32], count[32], suffix[64] = "";

		/* A series: its bytes, then how many variables it holds. */
		if (v[i].count)
			snprintf(suffix, sizeof(suffix), "  (%s variables)", fmt_u64(count, v[i].count));
		row(t, indent, v[i].name, true, fmt_u64(num, v[i].bytes), end, suffix);
	}
}

/* --- Parts ----------------------------------------------------------------- */

/* Target: the whole machine first (all replicas), then one replica, as
 * the guide lists it. */
static void print_target(text_ctx *t)
{
	const tsr_target *tg = t->s->target;
	unsigned rf = tg->replication_factor ? tg->replication_factor : 1;
	char a[48], b[48];

	heading(t, 0, "Target:");
	row_left(t, "  Number of IPUs:", 26, "%s", fmt_u64(a, (uint64_t)tg->num_ipus * rf));
	row_left(t, "  Tiles per IPU:", 26, "%s", fmt_u64(a, tg->tiles_per_ipu));
	row_left(t, "  Total Tiles:", 26, "%s", fmt_u64(a, (uint64_t)tg->num_tiles * rf));
	row_left(t, "  Memory Per-Tile:", 26, "%s", fmt_size(a, tg->bytes_per_tile));
	row_left(t, "  Total Memory:", 26, "%s",
	         fmt_size(a, tg->total_memory > UINT64_MAX / rf ? UINT64_MAX : tg->total_memory * rf));
	row_left(t, "  Clock Speed (approx):", 26, "%s MHz",
	         fmt_1dp(b, (double)tg->clock_frequency / 1e6));
	row_left(t, "  Number of Replicas:", 26, "%s", fmt_u64(a, rf));
	row_left(t, "  IPUs per Replica:", 26, "%s", fmt_u64(a, tg->num_ipus));
	row_left(t, "  Tiles per Replica:", 26, "%s", fmt_u64(a, tg->num_tiles));
	row_left(t, "  Memory per Replica:", 26, "%s", fmt_size(a, tg->total_memory));
	fputc('\n', t->out);
}

/* Graph: the guide's four counts. */
static void print_graph(text_ctx *t)
{
	const tsr_graph_counts *c = t->s->counts;
	char num[32];

	heading(t, 0, "Graph:");
	row(t, 2, "Number of vertices:", false, fmt_u64(num, c->vertices), 38, "");
	row(t, 2, "Number of edges:", false, fmt_u64(num, c->edges), 38, "");
	row(t, 2, "Number of variables:", false, fmt_u64(num, c->variables), 38, "");
	row(t, 2, "Number of compute sets:", false, fmt_u64(num, c->compute_sets), 38, "");
	fputc('\n', t->out);
}

/* Optimizations (showOptimizations): the optimizationInfo metrics. */
static void print_optimizations(text_ctx *t)
{
	const tsr_summary_figures *s = t->s;

	heading(t, 0, "Optimizations:");
	for (size_t i = 0; i < s->n_optimizations; i++) {
		size_t used = 2;

		spaces(t, 2);
		used += put_name(t, s->optimizations[i].key);
		fputc(':', t->out);
		spaces(t, used + 1 < 40 ? 40 - used - 1 : 1);
		fprintf(t->out, "%g\n", s->optimizations[i].value);
	}
	if (s->n_optimizations == 0)
		fputs("  (none recorded)\n", t->out);
	fputc('\n', t->out);
}

/* "By Data Type": the categories with bytes of one kind (overlapped or
 * not), then their total. */
static void print_data_type(text_ctx *t, const tsr_summary_memory *m, bool overlapped)
{
	fprintf(t->out, "        %s\n", overlapped ? "Overlapped" : "Not Overlapped");
	for (size_t i = 0; i < m->n_categories; i++) {
		const tsr_category_memory *c = &m->categories[i].memory;
		uint64_t bytes = overlapped ? c->overlapped : c->non_overlapped;
		char label[64];

		if (!bytes)
			continue;
		snprintf(label, sizeof(label), "%s:", m->categories[i].label);
		row_bytes(t, 12, label, bytes, 59);
	}
	row_bytes(t, 10, "Total:", overlapped ? m->overlapped : m->not_overlapped, 59);
	if (overlapped)
		row_bytes(t, 10, "Total After Overlapping:", m->after_overlapping, 59);
}

/* The histogram of tiles by memory excluding gaps, in KB buckets. */
static void print_histogram(text_ctx *t, const tsr_summary_memory *m)
{
	uint64_t wk = m->bucket_width / 1024;
	char hi_text[32];
	int hi_width;

	heading(t, 2, "By Tile (Excluding Gaps):");
	fputs("    Range (KiB) Histogram (Excluding Gaps)              Count (tiles)\n", t->out);
	if (m->end_bucket == 0 || wk == 0)
		return;
	hi_width = snprintf(hi_text, sizeof(hi_text), "%" PRIu64, (uint64_t)m->end_bucket * wk);
	if (hi_width < 2)
		hi_width = 2;
	for (size_t b = m->first_bucket; b < m->end_bucket; b++) {
		uint64_t count = m->histogram[b];
		size_t stars = 0;

		if (count && m->max_bucket)
			stars = (size_t)(((long double)count * BAR_WIDTH + m->max_bucket / 2) /
			                 m->max_bucket);
		if (count && stars == 0)
			stars = 1;
		if (stars > BAR_WIDTH)
			stars = BAR_WIDTH;
		fprintf(t->out, "    %5" PRIu64 " - %*" PRIu64 " ", (uint64_t)b * wk, hi_width,
		        (uint64_t)(b + 1) * wk);
		for (size_t i = 0; i < BAR_WIDTH; i++)
			fputc(i < stars ? '*' : ' ', t->out);
		fprintf(t->out, "%7" PRIu64 "\n", count);
	}
}

/* The out-of-memory tiles as ranges ("0-3, 7"), at most MAX_OOM_RANGES. */
static void print_oom_ranges(text_ctx *t, const uint32_t *tiles, size_t n)
{
	size_t ranges = 0, i = 0;

	fputs("    ", t->out);
	if (t->colour)
		fputs(SGR_WARNING, t->out);
	fputs("Out of memory on tile(s): ", t->out);
	while (i < n && ranges < MAX_OOM_RANGES) {
		size_t j = i;

		while (j + 1 < n && tiles[j + 1] == tiles[j] + 1)
			j++;
		fprintf(t->out, "%s%" PRIu32, ranges ? ", " : "", tiles[i]);
		if (j > i)
			fprintf(t->out, "-%" PRIu32, tiles[j]);
		ranges++;
		i = j + 1;
	}
	if (i < n)
		fprintf(t->out, " and %zu more", n - i);
	if (t->colour)
		fputs(SGR_RESET, t->out);
	fputc('\n', t->out);
}

/* The end of the by-tile part: the fullest tiles and what does not fit. */
static void print_tile_extremes(text_ctx *t, const tsr_summary_memory *m)
{
	const tsr_summary_figures *s = t->s;
	char a[32], b[40];

	fputc('\n', t->out);
	fprintf(t->out, "    Maximum (Including Gaps): %s (%s KiB) on tile %" PRIu32 "\n",
	        fmt_u64(a, m->totals.max_tile_bytes),
	        fmt_1dp(b, (double)m->totals.max_tile_bytes / 1024.0), m->totals.max_tile);
	fprintf(t->out, "    Maximum (Excluding Gaps): %s (%s KiB) on tile %" PRIu32 "\n",
	        fmt_u64(a, m->totals.max_tile_excluding_gaps_bytes),
	        fmt_1dp(b, (double)m->totals.max_tile_excluding_gaps_bytes / 1024.0),
	        m->totals.max_tile_excluding_gaps);
	if (m->n_oom_tiles == 0) {
		fprintf(t->out, "    0 tile(s) out of memory\n");
		return;
	}
	warning(t, 4, "%s tile(s) out of memory", fmt_u64(a, m->n_oom_tiles));
	print_oom_ranges(t, m->oom_tiles, m->n_oom_tiles);
	fprintf(t->out, "    Largest tiles (including gaps, of %s B per tile):\n",
	        fmt_u64(b, s->target->bytes_per_tile));
	for (size_t i = 0; i < m->n_largest_tiles; i++) {
		uint32_t tile = m->largest_tiles[i].tile;
		uint64_t bytes = m->largest_tiles[i].bytes;
		char label[48];

		snprintf(label, sizeof(label), "Tile %" PRIu32 ":", tile);
		fputs("      ", t->out);
		if (bytes > s->target->bytes_per_tile && t->colour)
			fputs(SGR_WARNING, t->out);
		fprintf(t->out, "%-14s%14s B (%s KiB)", label, fmt_u64(a, bytes),
		        fmt_1dp(b, (double)bytes / 1024.0));
		if (bytes > s->target->bytes_per_tile && t->colour)
			fputs(SGR_RESET, t->out);
		fputc('\n', t->out);
	}
}

/* One "Memory on ..." part. */
static void print_memory(text_ctx *t, const tsr_summary_memory *m)
{
	const tsr_memory_totals *tot = &m->totals;
	const tsr_vertex_memory *v = &m->vertex;
	char num[32];

	if (m->ipu < 0)
		heading(t, 0, "Memory on all IPUs:");
	else
		heading(t, 0, "Memory on IPU %d:", m->ipu);
	heading(t, 0, "Memory Usage:");
	fputs("  Total:\n", t->out);
	row_bytes(t, 4, "Including Gaps:", tot->total_including_gaps, 38);
	fputs("    Excluding Gaps:\n", t->out);
	fputs("      By Memory Region:\n", t->out);
	row_bytes(t, 8, "Non-interleaved:", tot->region[TSR_REGION_NON_INTERLEAVED], 38);
	row_bytes(t, 8, "Interleaved:", tot->region[TSR_REGION_INTERLEAVED], 38);
	row_bytes(t, 8, "Overflowed:", tot->region[TSR_REGION_OVERFLOWED], 38);
	row_bytes(t, 6, "Total:", tot->total, 38);
	fputs("      By Data Type:\n", t->out);
	print_data_type(t, m, false);
	print_data_type(t, m, true);
	fprintf(t->out, "      Vertex Data (%sB):\n", fmt_u64(num, m->vertex_data));
	fputs("        By Category:\n", t->out);
	row_bytes(t, 10, "Internal vertex state:", v->vertex_data, 47);
	row_bytes(t, 10, "Edge pointers:", v->edge_ptr, 47);
	row_bytes(t, 10, "Copy pointers:", v->copy_ptr, 47);
	row_bytes(t, 10, "Padding:", v->padding, 47);
	row_bytes(t, 10, "Descriptors:", v->descriptor, 47);
	fputs("        By Type:\n", t->out);
	if (m->n_vertex_types) {
		size_t end = 10 +
		             name_column(&m->vertex_types->name, m->n_vertex_types, sizeof(*m->vertex_types)) +
		             14;

		for (size_t i = 0; i < m->n_vertex_types; i++)
			row(t, 10, m->vertex_types[i].name, true, fmt_u64(num, m->vertex_types[i].bytes), end,
			    " B");
	}
	fputs("\n\n", t->out);
	print_histogram(t, m);
	print_tile_extremes(t, m);
	fputs("\n\n\n", t->out);
}

/* The liveness tree: every liveness step at its depth, with the bytes
 * and variables live there besides the always-live ones. */
static int print_liveness_tree(text_ctx *t)
{
	tsr_summary_figures *s = t->s;
	int rc = TSR_OK;

	for (size_t i = 0; i < s->n_liveness_steps; i++) {
		const tsr_liveness_step *st = s->liveness_steps[i].step;
		uint32_t depth = st->depth < MAX_TREE_INDENT ? st->depth : MAX_TREE_INDENT;
		int indent = 4 + 2 * (int)depth;
		tsr_summary_named_bytes *live;
		size_t n_live;
		char num[32];
		const char *type;

		spaces(t, (size_t)indent);
		type = tsr_program_type_name(s->liveness_steps[i].program_type);
		fputs(type ? type : "?", t->out);
		if (s->liveness_steps[i].name) {
			fputs(": ", t->out);
			put_name(t, s->liveness_steps[i].name);
		}
		fputc('\n', t->out);
		spaces(t, (size_t)indent + 2);
		fprintf(t->out, "Live Bytes (excluding always-live): %s\n",
		        fmt_u64(num, st->not_always_live));
		rc = tsr_summary_figures_list_live_variables(&live, &n_live, s, i);
		if (rc)
			return rc;
		if (n_live) {
			spaces(t, (size_t)indent + 2);
			fputs("Live Vars (excluding always-live):\n", t->out);
			name_list(t, indent + 4, live, n_live);
		}
		free(live);
	}
	return rc;
}

/* Variable Storage Liveness: always-live bytes and the peak; the
 * always-live variables and the tree with showVarStorage. */
static int print_liveness(text_ctx *t)
{
	const tsr_summary_figures *s = t->s;
	char num[32];

	heading(t, 2, "Variable Storage Liveness: All tiles");
	fputc('\n', t->out);
	fprintf(t->out, "    Always-live bytes: %s\n", fmt_u64(num, s->always_live_bytes));
	if (s->opts.show_var_storage) {
		fputs("    Always-live variables:\n", t->out);
		name_list(t, 6, s->always_live, s->n_always_live);
	}
	fputc('\n', t->out);
	fprintf(t->out, "    Maximum live bytes (including always-live): %s\n",
	        fmt_u64(num, s->max_live_bytes));
	if (!s->opts.show_var_storage)
		return TSR_OK;
	fputc('\n', t->out);
	return print_liveness_tree(t);
}

/* Rows of vertex types with their instances and cycles, indented by
 * `indent`, names padded to the longest (the guide's "Cycles by vertex
 * type" and a step's "By vertex type"). */
static void print_vertex_type_rows(text_ctx *t, const tsr_vertex_type_cycles *rows, size_t n,
                                   size_t indent)
{
	const tsr_summary_figures *s = t->s;
	size_t w = 0, group_end, num_w = 13;

	/* The columns: names, "(N instances):" right-aligned at group_end,
	 * the cycles right-aligned in num_w, at least one space between any
	 * two whatever the width of the numbers (the guide's widths when the
	 * numbers fit them). */
	for (size_t i = 0; i < n; i++) {
		size_t vt = rows[i].vertex_type;
		size_t len = vt < s->n_vertex_types ? tsr_summary_clean_width(s->vertex_types[vt].name)
		                                    : 1;

		if (len > w)
			w = len < MAX_NAME_COLUMN ? len : MAX_NAME_COLUMN;
	}
	group_end = indent + w + 23;
	for (size_t i = 0; i < n; i++) {
		char group[48], num[32];
		size_t len = (size_t)snprintf(group, sizeof(group), "(%" PRIu64 " instances):",
		                              rows[i].instances);

		if (indent + w + 1 + len > group_end)
			group_end = indent + w + 1 + len;
		if (strlen(fmt_u64(num, rows[i].cycles)) + 1 > num_w)
			num_w = strlen(num) + 1;
	}
	for (size_t i = 0; i < n; i++) {
		const tsr_vertex_type_cycles *c = &rows[i];
		char group[48], num[32];
		size_t used = indent;

		spaces(t, indent);
		used += put_name(t, c->vertex_type < s->n_vertex_types ? s->vertex_types[c->vertex_type].name
		                                                       : "?");
		snprintf(group, sizeof(group), "(%" PRIu64 " instances):", c->instances);
		spaces(t, used + strlen(group) < group_end ? group_end - used - strlen(group) : 1);
		fprintf(t->out, "%s%*s\n", group, (int)num_w, fmt_u64(num, c->cycles));
	}
}

/* Cycles by vertex type: name, instances and cycles in the run. */
static void print_vertex_type_cycles(text_ctx *t)
{
	heading(t, 2, "Cycles by vertex type:");
	print_vertex_type_rows(t, t->s->vertex_type_cycles, t->s->n_vertex_type_cycles, 4);
}

/* One execution step in the guide's layout. */
static void print_step(text_ctx *t, const tsr_summary_step *ss)
{
	const tsr_summary_figures *s = t->s;
	const tsr_step *st = ss->step;
	const char *name;
	char a[32], b[32], p[48];
	bool overlap = st->type == TSR_STEP_ON_TILE_EXECUTE || st->type == TSR_STEP_DO_EXCHANGE ||
	               st->type == TSR_STEP_COPY_SHARED_STRUCTURE;
	bool data = st->type == TSR_STEP_DO_EXCHANGE || st->type == TSR_STEP_GLOBAL_EXCHANGE ||
	            st->type == TSR_STEP_STREAM_COPY;

	if (st->type == TSR_STEP_SYNC) {
		const char *sync = tsr_sync_type_name(st->sync);

		fprintf(t->out, "  --- %s Sync ---\n", sync ? sync : "?");
		return;
	}
	fprintf(t->out, "  %s (cycles %s - %s)", tsr_step_type_name(st->type),
	        fmt_u64(a, st->cycles_from), fmt_u64(b, st->cycles_to));
	name = ss->name;
	if (name) {
		fputs(": ", t->out);
		put_name(t, name);
	}
	fputc('\n', t->out);
	if (overlap)
		row_left(t, "    Cycles:", 40, "%s (%s overlapped with previous)",
		         fmt_u64(a, st->cycles), fmt_u64(b, st->cycles_overlapped));
	else
		row_left(t, "    Cycles:", 40, "%s", fmt_u64(a, st->cycles));
	row_left(t, "    Active Tiles:", 40, "%s / %s", fmt_u64(a, st->active_tiles),
	         fmt_u64(b, s->target->num_tiles));
	if (st->type == TSR_STEP_ON_TILE_EXECUTE)
		row_left(t, "    Thread Balance:", 40, "%s", fmt_pct(p, st->thread_balance));
	row_left(t, "    Tile Balance:", 40, "%s", fmt_pct(p, st->tile_balance));
	row_left(t, "    Active Tile Balance:", 40, "%s", fmt_pct(p, st->active_tile_balance));
	if (data) {
		row_left(t, "    Total Data:", 40, "%s", fmt_u64(a, st->total_data));
		row_left(t, "    Data Balance (mean / max data per tile):", 40, "%s",
		         fmt_pct(p, st->data_balance));
	}
	if (st->type == TSR_STEP_ON_TILE_EXECUTE && ss->n_vertex_types) {
		fputs("    By vertex type:\n", t->out);
		print_vertex_type_rows(t, ss->vertex_types, ss->n_vertex_types, 6);
	}
}

/* Execution of the chosen run: its length, tile cycles by activity, the
 * balances, cycles by vertex type, and the steps when asked. */
static void print_execution(text_ctx *t)
{
	const tsr_summary_figures *s = t->s;
	const tsr_tile_cycles *tc = &s->activity.tile_cycles;
	char a[32], b[40], c[32], p[48];

	heading(t, 0, "Execution:");
	fputc('\n', t->out);
	if (!s->has_run) {
		fputs("  No execution profile: the report holds no runs.\n", t->out);
		return;
	}
	/* The run by its number, as --run, the JSON and the Graph Analyser's
	 * run pickers count (from 0), and the program by the name the model
	 * gave it, when it gave one ("1 of runs 0-2 (epoch, engine program 1)"). */
	if (s->n_runs > 1) {
		fputs("  Run:", t->out);
		spaces(t, 49 - strlen("  Run:"));
		fprintf(t->out, "%s of runs 0-%s (", fmt_u64(a, s->run), fmt_u64(c, s->n_runs - 1));
		if (s->program_name) {
			put_name(t, s->program_name);
			fputs(", ", t->out);
		}
		fprintf(t->out, "engine program %s)\n", fmt_u64(b, s->program));
	}
	row_left(t, "  Total cycles:", 49, "%s (approx %s microseconds)",
	         fmt_u64(a, s->activity.cycles), fmt_1dp(b, s->flops.seconds * 1e6));
	row_left(t, "  Total compute cycles (including idle threads):", 49, "%s",
	         fmt_u64(a, tc->compute));
	row_left(t, "  Total compute cycles (excluding idle threads):", 49, "%s",
	         fmt_u64(a, tc->active_compute));
	row_left(t, "  Total IPU exchange cycles:", 49, "%s", fmt_u64(a, tc->do_exchange));
	row_left(t, "  Total global exchange cycles:", 49, "%s", fmt_u64(a, tc->global_exchange));
	row_left(t, "  Total host exchange cycles:", 49, "%s", fmt_u64(a, tc->stream_copy));
	row_left(t, "  Total shared structure copy cycles:", 49, "%s",
	         fmt_u64(a, tc->copy_shared_structure));
	row_left(t, "  Total sync cycles:", 49, "%s", fmt_u64(a, tc->sync));
	row_left(t, "  Total tile balance:", 49, "%s", fmt_pct(p, s->tile_balance));
	row_left(t, "  Total thread balance:", 49, "%s", fmt_pct(p, s->thread_balance));
	fputc('\n', t->out);
	print_vertex_type_cycles(t);
	if (!s->opts.show_execution_steps)
		return;
	heading(t, 0, "Steps");
	for (size_t i = 0; i < s->n_steps; i++)
		print_step(t, &s->steps[i]);
}

/* The Operations part: each debug context indented under its parent,
 * with its memory and, for the run shown, its cycles, FLOPs and the
 * utilisation of the fp32 peak over its cycles (descendants included). */
static void print_operations(text_ctx *t)
{
	const tsr_summary_figures *s = t->s;
	size_t w = 9, wl = 5, wm = 6, wc = 6, wf = 5;
	char a[32], b[32], c[32], p[48];

	fputc('\n', t->out);
	heading(t, 0, s->has_run ? "Operations (run shown; descendants included):"
	                         : "Operations (descendants included; no runs):");
	if (s->n_operations == 0) {
		fputs("  (no debug contexts)\n", t->out);
		return;
	}
	for (size_t i = 0; i < s->n_operations; i++) {
		const tsr_summary_operation *o = &s->operations[i];
		size_t len = 2 * o->depth + tsr_summary_clean_width(o->op->name);
		size_t ll = tsr_summary_clean_width(o->op->layer);

		if (len > w)
			w = len < MAX_NAME_COLUMN ? len : MAX_NAME_COLUMN;
		if (ll > wl)
			wl = ll < 24 ? ll : 24;
		if (strlen(fmt_u64(a, o->memory)) > wm)
			wm = strlen(a);
		if (strlen(fmt_u64(a, o->op->cycles)) > wc)
			wc = strlen(a);
		if (strlen(fmt_u64(a, o->op->flops)) > wf)
			wf = strlen(a);
	}
	fprintf(t->out, "  %-*s  %-*s  %*s  %*s  %*s  %11s\n", (int)w, "operation", (int)wl, "layer",
	        (int)wm, "memory", (int)wc, "cycles", (int)wf, "FLOPs", "utilisation");
	for (size_t i = 0; i < s->n_operations; i++) {
		const tsr_summary_operation *o = &s->operations[i];
		size_t used = 2 + 2 * o->depth;

		spaces(t, used);
		used += put_name(t, o->op->name);
		spaces(t, used < 2 + w ? 2 + w - used + 2 : 2);
		used = put_name(t, o->op->layer);
		spaces(t, used < wl ? wl - used + 2 : 2);
		fprintf(t->out, "%*s  %*s  %*s  %11s\n", (int)wm, fmt_u64(a, o->memory), (int)wc,
		        s->has_run ? fmt_u64(b, o->op->cycles) : "-", (int)wf,
		        s->has_run ? fmt_u64(c, o->op->flops) : "-",
		        isnan(o->utilisation) ? "-" : fmt_pct(p, o->utilisation));
	}
}

/* --- Entry ------------------------------------------------------------------ */

int tsr_summary_print(FILE *out, tsr_report *report, const tsr_summary_options *opts)
{
	tsr_summary_figures *s = NULL;
	text_ctx t = {0};
	int rc;

	if (!out) {
		if (report)
			return tsr_fail(report, TSR_ERR_INVALID_ARGUMENT, "summary: no output stream");
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT, "summary: no output stream");
	}
	rc = tsr_summary_figures_new(&s, report, opts);
	if (rc)
		return rc;
	t.out = out;
	t.s = s;
	t.colour = tsr_colours_enabled(s->opts.colours, out);

	print_target(&t);
	print_graph(&t);
	if (s->opts.show_optimizations)
		print_optimizations(&t);
	for (size_t i = 0; i < s->n_memory; i++)
		print_memory(&t, &s->memory[i]);
	rc = print_liveness(&t);
	if (rc)
		goto out;
	fputc('\n', out);
	print_execution(&t);
	if (s->opts.show_operations)
		print_operations(&t);
	if (t.no_memory)
		rc = tsr_fail(report, TSR_ERR_NO_MEMORY, "summary: out of memory");
	else if (fflush(out) != 0 || ferror(out))
		rc = tsr_fail(report, TSR_ERR_IO, "summary: writing the output failed");
out:
	tsr_summary_figures_free(s);
	return rc;
}
