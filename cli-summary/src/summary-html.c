/*
 * `tilescope summary --format=html` (summary-html.h): the summary as one
 * page for a CI artifact. The figures come from the document
 * --format=json prints, parsed back here and embedded in the page, so a
 * figure and its data-json pointer agree by construction; each is
 * captioned as the text summary (reportlib's summary-text.c) prints it.
 * Every table of names (the largest variables, the tips, the
 * out-of-memory tiles, cycles by step type, program and vertex type) is
 * drawn from that document, so its names reach the page only through
 * it. What it does not hold (memory per tile by category, liveness per
 * step, the runs' steps as lanes) is read from reportlib and shown as
 * charts without pointers.
 *
 * Integers are shown from the parsed document's doubles, exact below
 * 2^53 bytes or cycles, which no report comes near.
 */
#include "summary-html.h"

#include "html.h"

#include <tilescope/numfmt.h>

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Categories drawn as their own series in memory per tile; the rest are
 * one "Other categories" series (the palette has ten colours). */
#define TILE_CATEGORIES 7
/* Bars of cycles by program. */
#define TOP_PROGRAMS 20

typedef struct page {
	cli_html *h;
	tsr_report *report;
	const cJSON *doc;
	int rc;            /* the first failure: a reportlib code or TSR_ERR_NO_MEMORY */
	char ptr[256];     /* the pointer being written */
} page;

/* How a figure's number is written. */
typedef enum fig_kind {
	FIG_COUNT,         /* "1,472" */
	FIG_BYTES,         /* "638,976 B (624.0 KiB)" */
	FIG_HZ,            /* "1,330,000,000 Hz (1,330.0 MHz)" */
	FIG_PERCENT,       /* a fraction: "2.5%" */
	FIG_TENTHS,        /* "192.7" */
	FIG_TEXT           /* a string as it is */
} fig_kind;

/* A value and the index it had, for sorting largest first. */
typedef struct ranked {
	uint64_t value;
	size_t index;
} ranked;

static int ranked_cmp(const void *a, const void *b)
{
	const ranked *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Records a reportlib failure (the first one counts). */
static bool failed(page *p, int rc)
{
	if (rc != TSR_OK && p->rc == TSR_OK)
		p->rc = rc;
	return rc != TSR_OK;
}

static void *alloc(page *p, size_t n, size_t size)
{
	void *v = calloc(n ? n : 1, size);

	if (!v)
		failed(p, TSR_ERR_NO_MEMORY);
	return v;
}

/* The pointer of printf-style `fmt` into p->ptr. */
static const char *ptr(page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *ptr(page *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->ptr, sizeof(p->ptr), fmt, ap);
	va_end(ap);
	return p->ptr;
}

/* The value at RFC 6901 `pointer` in `doc`, or NULL (the keys this page
 * asks for need no ~ escapes). */
static const cJSON *resolve(const cJSON *doc, const char *pointer)
{
	char key[128];
	const cJSON *v = doc;

	while (v && *pointer == '/') {
		size_t len = strcspn(pointer + 1, "/");

		if (len >= sizeof(key))
			return NULL;
		memcpy(key, pointer + 1, len);
		key[len] = '\0';
		pointer += 1 + len;
		if (cJSON_IsArray(v)) {
			char *end;
			unsigned long i = strtoul(key, &end, 10);

			v = *key && !*end ? cJSON_GetArrayItem(v, (int)i) : NULL;
		} else {
			v = cJSON_GetObjectItemCaseSensitive(v, key);
		}
	}
	return *pointer ? NULL : v;
}

static double num(const cJSON *v)
{
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* An integer with thousands separators. */
static const char *int_text(char buf[TSB_NUMBER_MAX], double v)
{
	char digits[TSB_NUMBER_MAX];

	snprintf(digits, sizeof(digits), "%.0f", v);
	return tsb_group_digits(buf, TSB_NUMBER_MAX, digits);
}

/* Writes the figure at the pointer of `fmt` as `kind`: "n/a" without a
 * pointer when the document holds null there. */
static void figure(page *p, const char *caption, fig_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void figure(page *p, const char *caption, fig_kind kind, const char *fmt, ...)
{
	char a[TSB_NUMBER_MAX], b[TSB_NUMBER_MAX], text[2 * TSB_NUMBER_MAX + 16];
	const cJSON *v;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->ptr, sizeof(p->ptr), fmt, ap);
	va_end(ap);
	v = resolve(p->doc, p->ptr);
	if (kind == FIG_TEXT ? !cJSON_IsString(v) : !cJSON_IsNumber(v)) {
		cli_html_figure(p->h, caption, "n/a", NULL);
		return;
	}
	switch (kind) {
	case FIG_COUNT:
		int_text(text, v->valuedouble);
		break;
	case FIG_BYTES:
		snprintf(text, sizeof(text), "%s B (%s)", int_text(a, v->valuedouble),
		         tsb_format_size(b, sizeof(b), (uint64_t)v->valuedouble));
		break;
	case FIG_HZ:
		snprintf(text, sizeof(text), "%s Hz (%s MHz)", int_text(a, v->valuedouble),
		         tsb_format_tenths(b, sizeof(b), v->valuedouble / 1e6));
		break;
	case FIG_PERCENT:
		tsb_format_percent(text, sizeof(text), v->valuedouble);
		break;
	case FIG_TENTHS:
		tsb_format_tenths(text, sizeof(text), v->valuedouble);
		break;
	case FIG_TEXT:
		cli_html_figure(p->h, caption, v->valuestring, p->ptr);
		return;
	}
	cli_html_figure(p->h, caption, text, p->ptr);
}

/* A number cell from the document (an empty cell when it holds none). */
static void cell(page *p, const char *pointer)
{
	const cJSON *v = resolve(p->doc, pointer);

	if (cJSON_IsNumber(v))
		cli_html_cell_u64(p->h, (uint64_t)v->valuedouble, pointer);
	else
		cli_html_cell(p->h, "", NULL);
}

/* A table of the objects of the document's array at `array` from index
 * `from` on: column k shows member keys[k] of each, as text where
 * numeric[k] is false, else as a count, each cell pointing into the
 * document. */
static void array_table(page *p, const char *caption, const char *array, int from, size_t n_cols,
                        const char *const *headers, const bool *numeric,
                        const char *const *keys)
{
	int n = cJSON_GetArraySize(resolve(p->doc, array));

	cli_html_table_begin(p->h, caption, n_cols, headers, numeric);
	for (int i = from; i < n; i++) {
		cli_html_row_begin(p->h);
		for (size_t k = 0; k < n_cols; k++) {
			const char *at = ptr(p, "%s/%d/%s", array, i, keys[k]);

			if (numeric[k])
				cell(p, at);
			else
				cli_html_cell(p->h, cJSON_GetStringValue(resolve(p->doc, at)), at);
		}
		cli_html_row_end(p->h);
	}
	cli_html_table_end(p->h);
}

/* The guide's label of the category the document names `name`. */
static const char *category_label(const char *name)
{
	for (size_t c = 0; c < tsr_category_count(); c++)
		if (strcmp(tsr_category_name((tsr_mem_category)c), name) == 0)
			return tsr_category_label((tsr_mem_category)c);
	return name;
}

/* --- Target and graph ------------------------------------------------------------ */

static void write_target(page *p)
{
	const cJSON *opt = resolve(p->doc, "/optimizations");

	cli_html_section_begin(p->h, "target", "Target and graph");
	cli_html_figures_begin(p->h, "Target:");
	figure(p, "Target type:", FIG_TEXT, "/target/type");
	figure(p, "IPU version:", FIG_TEXT, "/target/ipuVersion");
	figure(p, "Number of IPUs:", FIG_COUNT, "/target/numIpus");
	figure(p, "Tiles per IPU:", FIG_COUNT, "/target/tilesPerIpu");
	figure(p, "Total Tiles:", FIG_COUNT, "/target/totalTiles");
	figure(p, "Memory Per-Tile:", FIG_BYTES, "/target/memoryPerTile");
	figure(p, "Total Memory:", FIG_BYTES, "/target/totalMemory");
	figure(p, "Clock Speed (approx):", FIG_HZ, "/target/clockFrequency");
	figure(p, "Number of Replicas:", FIG_COUNT, "/target/numReplicas");
	figure(p, "IPUs per Replica:", FIG_COUNT, "/target/ipusPerReplica");
	figure(p, "Tiles per Replica:", FIG_COUNT, "/target/tilesPerReplica");
	figure(p, "Memory per Replica:", FIG_BYTES, "/target/memoryPerReplica");
	cli_html_figures_end(p->h);
	cli_html_figures_begin(p->h, "Graph:");
	figure(p, "Number of vertices:", FIG_COUNT, "/graph/numVertices");
	figure(p, "Number of edges:", FIG_COUNT, "/graph/numEdges");
	figure(p, "Number of variables:", FIG_COUNT, "/graph/numVariables");
	figure(p, "Number of compute sets:", FIG_COUNT, "/graph/numComputeSets");
	cli_html_figures_end(p->h);
	if (cJSON_IsObject(opt)) {
		const cJSON *m;

		cli_html_figures_begin(p->h, "Optimizations:");
		cJSON_ArrayForEach(m, opt) {
			char caption[160];

			if (strchr(m->string, '/') || strchr(m->string, '~'))
				continue;
			snprintf(caption, sizeof(caption), "%s:", m->string);
			figure(p, caption, FIG_TENTHS, "/optimizations/%s", m->string);
		}
		cli_html_figures_end(p->h);
	}
	cli_html_section_end(p->h);
}

/* --- Memory ------------------------------------------------------------------------ */

/* The By Data Type table and its bars: each category the document names,
 * not overlapped then overlapped, in its order. */
static void write_categories(page *p)
{
	static const char *const headers[] = {"Category", "Not Overlapped (B)", "Overlapped (B)"};
	static const bool numeric[] = {false, true, true};
	const cJSON *by = resolve(p->doc, "/memory/0/byDataType");
	const cJSON *parts[2] = {cJSON_GetObjectItemCaseSensitive(by, "notOverlapped"),
	                         cJSON_GetObjectItemCaseSensitive(by, "overlapped")};
	const char *labels[2 * TSR_MEM_CATEGORY_COUNT + 2];
	double values[2 * TSR_MEM_CATEGORY_COUNT + 2];
	const char *names[2 * TSR_MEM_CATEGORY_COUNT + 2];
	size_t n = 0;

	/* Every category named in either part, once, in the document's order. */
	for (int k = 0; k < 2; k++) {
		const cJSON *c;

		cJSON_ArrayForEach(c, parts[k]) {
			size_t i = 0;

			while (i < n && strcmp(names[i], c->string) != 0)
				i++;
			if (i == n) {
				if (n == sizeof(names) / sizeof(names[0]))
					break;
				names[n] = c->string;
				labels[n] = category_label(c->string);
				values[n++] = 0;
			}
			values[i] += num(c);
		}
	}
	cli_html_table_begin(p->h, "By Data Type:", 3, headers, numeric);
	for (size_t i = 0; i < n; i++) {
		cli_html_row_begin(p->h);
		cli_html_cell(p->h, labels[i], NULL);
		for (int k = 0; k < 2; k++) {
			if (cJSON_GetObjectItemCaseSensitive(parts[k], names[i]))
				cell(p, ptr(p, "/memory/0/byDataType/%s/%s",
				            k ? "overlapped" : "notOverlapped", names[i]));
			else
				cli_html_cell(p->h, "", NULL);
		}
		cli_html_row_end(p->h);
	}
	cli_html_row_begin(p->h);
	cli_html_cell(p->h, "Total:", NULL);
	cell(p, "/memory/0/byDataType/notOverlappedTotal");
	cell(p, "/memory/0/byDataType/overlappedTotal");
	cli_html_row_end(p->h);
	cli_html_table_end(p->h);
	cli_html_chart_bars(p->h, "memory-by-category", "Memory by category",
	                    "Bytes of each memory category on all tiles, overlapped and not "
	                    "(overlapped storage is counted once per variable, before sharing).",
	                    CLI_HTML_BYTES, labels, values, n);
}

/* Vertex Data: its categories and the bytes of each vertex type. */
static void write_vertex_data(page *p)
{
	static const char *const headers[] = {"Vertex type", "Bytes"};
	static const bool numeric[] = {false, true};
	static const char *const keys[] = {"name", "bytes"};
	const cJSON *types = resolve(p->doc, "/memory/0/vertexData/byType");
	int n = cJSON_GetArraySize(types);

	cli_html_figures_begin(p->h, "Vertex Data:");
	figure(p, "Vertex Data:", FIG_BYTES, "/memory/0/vertexData/total");
	figure(p, "Internal vertex state:", FIG_BYTES, "/memory/0/vertexData/internalVertexState");
	figure(p, "Edge pointers:", FIG_BYTES, "/memory/0/vertexData/edgePointers");
	figure(p, "Copy pointers:", FIG_BYTES, "/memory/0/vertexData/copyPointers");
	figure(p, "Padding:", FIG_BYTES, "/memory/0/vertexData/padding");
	figure(p, "Descriptors:", FIG_BYTES, "/memory/0/vertexData/descriptors");
	cli_html_figures_end(p->h);
	if (!n)
		return;
	array_table(p, "By Type:", "/memory/0/vertexData/byType", 0, 2, headers, numeric, keys);
}

/* The by-tile histogram (excluding gaps) as bars. */
static void write_histogram(page *p)
{
	const cJSON *by = resolve(p->doc, "/memory/0/byTile");
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(by, "counts");
	uint64_t width = (uint64_t)num(cJSON_GetObjectItemCaseSensitive(by, "bucketBytes"));
	uint64_t first = (uint64_t)num(cJSON_GetObjectItemCaseSensitive(by, "firstBucket"));
	size_t n = (size_t)cJSON_GetArraySize(counts);
	char (*names)[64] = alloc(p, n, sizeof(*names));
	const char **labels = alloc(p, n, sizeof(*labels));
	double *values = alloc(p, n, sizeof(*values));

	if (names && labels && values && n && width) {
		for (size_t i = 0; i < n; i++) {
			uint64_t lo = (first + i) * width / 1024;

			snprintf(names[i], sizeof(names[i]), "%" PRIu64 " - %" PRIu64 " KiB", lo,
			         lo + width / 1024);
			labels[i] = names[i];
			values[i] = num(cJSON_GetArrayItem(counts, (int)i));
		}
		cli_html_chart_bars(p->h, "tile-histogram", "By Tile (Excluding Gaps)",
		                    "Tiles by the bytes they hold, excluding gaps, in buckets of "
		                    "equal width.",
		                    CLI_HTML_COUNT, labels, values, n);
	}
	free(names);
	free(labels);
	free(values);
}

/*
 * Memory per tile, all tiles of all IPUs, stacked so that the parts add
 * up to each tile's total excluding gaps: the largest categories in
 * storage of their own, the rest of them as one series, and what the
 * overlapped storage holds after sharing (tsr_memory_sharing). Gaps are
 * left out: once anything sits in the interleaved region they are most of
 * a lightly used tile, and would flatten the categories to a line.
 */
static void write_tiles(page *p)
{
	const tsr_tile_memory *tiles;
	tsr_memory_sharing *sharing = NULL;
	size_t n_tiles, n_cat = tsr_category_count(), n_series = 0;
	uint64_t *bytes = NULL;
	double *values = NULL;
	ranked *order = NULL;
	cli_html_series series[TILE_CATEGORIES + 2];

	if (failed(p, tsr_report_get_tile_memory(&tiles, &n_tiles, p->report)) || !n_tiles)
		return;
	bytes = alloc(p, n_tiles, sizeof(*bytes));
	values = alloc(p, n_tiles * (TILE_CATEGORIES + 2), sizeof(*values));
	order = alloc(p, n_cat, sizeof(*order));
	sharing = alloc(p, n_tiles, sizeof(*sharing));
	if (!bytes || !values || !order || !sharing)
		goto out;
	for (size_t c = 0; c < n_cat; c++) {
		order[c].index = c;
		if (failed(p, tsr_report_fill_category_by_tile_overlap(bytes, n_tiles, p->report,
		                                                       (tsr_mem_category)c, false)))
			goto out;
		for (size_t t = 0; t < n_tiles; t++)
			order[c].value += bytes[t];
	}
	qsort(order, n_cat, sizeof(*order), ranked_cmp);
	for (size_t c = 0; c < n_cat && order[c].value; c++) {
		size_t s = c < TILE_CATEGORIES ? c : TILE_CATEGORIES;
		double *v = values + s * n_tiles;

		if (failed(p, tsr_report_fill_category_by_tile_overlap(
		                  bytes, n_tiles, p->report, (tsr_mem_category)order[c].index, false)))
			goto out;
		for (size_t t = 0; t < n_tiles; t++)
			v[t] += (double)bytes[t];
		series[s].name = c < TILE_CATEGORIES ? tsr_category_label((tsr_mem_category)order[c].index)
		                                     : "Other categories";
		series[s].values = v;
		n_series = s + 1;
	}
	if (failed(p, tsr_report_fill_sharing_by_tile(sharing, n_tiles, p->report)))
		goto out;
	for (size_t t = 0; t < n_tiles; t++)
		values[n_series * n_tiles + t] = (double)sharing[t].after_overlapping;
	series[n_series].name = "Overlapped storage (after sharing)";
	series[n_series].values = values + n_series * n_tiles;
	cli_html_chart_stacked(p->h, "memory-per-tile", "Memory per tile (Excluding Gaps)",
	                       "Bytes on each tile of all IPUs, by memory category in storage of "
	                       "its own, then what overlapped storage holds after sharing: the "
	                       "stack is the tile's total excluding gaps.",
	                       "Tile", CLI_HTML_BYTES, series, n_series + 1, n_tiles);
out:
	free(bytes);
	free(values);
	free(order);
	free(sharing);
}

/* Memory on each IPU, with --show-per-ipu-memory. */
static void write_per_ipu(page *p)
{
	static const char *const headers[] = {"IPU", "Including Gaps (B)", "Excluding Gaps (B)",
	                                      "Maximum tile (Including Gaps, B)"};
	static const bool numeric[] = {true, true, true, true};
	static const char *const keys[] = {"ipu", "includingGaps", "excludingGaps",
	                                   "maxTileIncludingGaps/bytes"};
	int n = cJSON_GetArraySize(resolve(p->doc, "/memory"));

	if (n < 2)
		return;
	array_table(p, "Memory on each IPU:", "/memory", 1, 4, headers, numeric, keys);
}

static void write_memory(page *p)
{
	cli_html_section_begin(p->h, "memory", "Memory Usage");
	cli_html_figures_begin(p->h, "Memory on all IPUs:");
	figure(p, "Including Gaps:", FIG_BYTES, "/memory/0/includingGaps");
	figure(p, "Excluding Gaps:", FIG_BYTES, "/memory/0/excludingGaps");
	figure(p, "Non-interleaved:", FIG_BYTES, "/memory/0/byRegion/nonInterleaved");
	figure(p, "Interleaved:", FIG_BYTES, "/memory/0/byRegion/interleaved");
	figure(p, "Overflowed:", FIG_BYTES, "/memory/0/byRegion/overflowed");
	figure(p, "Total After Overlapping:", FIG_BYTES, "/memory/0/byDataType/totalAfterOverlapping");
	figure(p, "Maximum (Including Gaps):", FIG_BYTES, "/memory/0/maxTileIncludingGaps/bytes");
	figure(p, "Maximum on tile (Including Gaps):", FIG_COUNT,
	       "/memory/0/maxTileIncludingGaps/tile");
	figure(p, "Maximum (Excluding Gaps):", FIG_BYTES, "/memory/0/maxTileExcludingGaps/bytes");
	figure(p, "Maximum on tile (Excluding Gaps):", FIG_COUNT,
	       "/memory/0/maxTileExcludingGaps/tile");
	cli_html_figures_end(p->h);
	write_tiles(p);
	write_categories(p);
	write_vertex_data(p);
	write_histogram(p);
	write_per_ipu(p);
	cli_html_section_end(p->h);
}

/* The out-of-memory tiles of all IPUs, with what each needs and its excess. */
static void write_oom(page *p)
{
	static const char *const headers[] = {"Tile", "Including Gaps (B)", "Over by (B)"};
	static const bool numeric[] = {true, true, true};
	static const char *const keys[] = {"tile", "bytes", "excess"};
	int n = cJSON_GetArraySize(resolve(p->doc, "/memory/0/outOfMemoryTileBytes"));
	char a[TSB_NUMBER_MAX], b[TSB_NUMBER_MAX], text[160];

	cli_html_section_begin(p->h, "out-of-memory", "Out-of-memory tiles");
	if (!n) {
		cli_html_para(p->h, "0 tile(s) out of memory: every tile fits its memory.");
	} else {
		snprintf(text, sizeof(text), "%s tile(s) out of memory (each has %s B).",
		         tsb_format_u64(a, sizeof(a), (uint64_t)n),
		         tsb_format_u64(b, sizeof(b),
		                        (uint64_t)num(resolve(p->doc, "/target/memoryPerTile"))));
		cli_html_para(p->h, text);
		array_table(p, "Out-of-memory tiles", "/memory/0/outOfMemoryTileBytes", 0, 3, headers,
		            numeric, keys);
	}
	cli_html_section_end(p->h);
}

/* --- Liveness and variables ----------------------------------------------------- */

static void write_liveness(page *p)
{
	const tsr_liveness_step *steps;
	size_t n;
	double *live;
	uint64_t always = tsr_report_get_always_live_bytes(p->report);
	cli_html_series s = {"Live bytes (including always-live)", NULL};

	cli_html_section_begin(p->h, "liveness", "Variable Storage Liveness: All tiles");
	cli_html_figures_begin(p->h, NULL);
	figure(p, "Always-live bytes:", FIG_BYTES, "/liveness/alwaysLiveBytes");
	figure(p, "Maximum live bytes (including always-live):", FIG_BYTES,
	       "/liveness/maxLiveBytes");
	figure(p, "Peak step:", FIG_COUNT, "/liveness/peakStep");
	cli_html_figures_end(p->h);
	if (failed(p, tsr_report_get_liveness_steps(&steps, &n, p->report)))
		goto out;
	if (!n) {
		cli_html_para(p->h, "The report has no liveness steps.");
		goto out;
	}
	live = alloc(p, n, sizeof(*live));
	if (!live)
		goto out;
	for (size_t i = 0; i < n; i++)
		live[i] = (double)always + (double)steps[i].not_always_live;
	s.values = live;
	cli_html_chart_lines(p->h, "liveness-chart", "Live bytes over the program steps",
	                     "Bytes live at each liveness step on all tiles, always-live "
	                     "included; the peak is marked.",
	                     "Step", CLI_HTML_BYTES, &s, 1, n);
	free(live);
out:
	cli_html_section_end(p->h);
}

/* The largest listed variables. */
static void write_variables(page *p)
{
	static const char *const headers[] = {"Variable", "Category", "Type", "Shape",
	                                      "Bytes",    "Tiles",    "Always live"};
	static const bool numeric[] = {false, false, false, false, true, true, false};
	static const char *const texts[] = {"name", "category", "dataType", "shape"};
	int n = cJSON_GetArraySize(resolve(p->doc, "/largestVariables"));
	double listed = num(resolve(p->doc, "/listedVariables"));

	cli_html_section_begin(p->h, "variables", "Largest variables");
	if (!n) {
		cli_html_para(p->h, "The report lists no variables.");
		goto out;
	}
	if (listed > n) {
		char a[TSB_NUMBER_MAX], text[160];

		snprintf(text, sizeof(text), "The %d largest of %s variables, all tiles of one replica.",
		         n, int_text(a, listed));
		cli_html_para(p->h, text);
	}
	cli_html_table_begin(p->h, "Largest variables", 7, headers, numeric);
	for (int i = 0; i < n; i++) {
		cli_html_row_begin(p->h);
		for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
			const char *v = cJSON_GetStringValue(
				resolve(p->doc, ptr(p, "/largestVariables/%d/%s", i, texts[k])));

			/* The category as the guide labels it, not as the document keys it. */
			if (k == 1)
				cli_html_cell(p->h, v ? category_label(v) : "", NULL);
			else
				cli_html_cell(p->h, v ? v : "", v ? p->ptr : NULL);
		}
		cell(p, ptr(p, "/largestVariables/%d/bytes", i));
		cell(p, ptr(p, "/largestVariables/%d/tiles", i));
		cli_html_cell(p->h, cJSON_IsTrue(resolve(p->doc, ptr(p, "/largestVariables/%d/alwaysLive",
		                                                      i))) ? "yes" : "no", NULL);
		cli_html_row_end(p->h);
	}
	cli_html_table_end(p->h);
out:
	cli_html_section_end(p->h);
}

/* --- Execution -------------------------------------------------------------------- */

/* A step's label on the lanes: its type and the name the summary's Steps
 * part gives it (a Sync: its sync type). */
static char *step_label(tsr_report *report, const tsr_step *st)
{
	const char *type = tsr_step_type_name(st->type), *name = tsr_report_lookup_step_name(report, st);
	char *out;
	size_t len;

	if (st->type == TSR_STEP_SYNC) {
		type = tsr_sync_type_name(st->sync) ? tsr_sync_type_name(st->sync) : "?";
		name = NULL;
	}
	if (!type)
		type = "Step";
	len = strlen(type) + (name ? strlen(name) + 2 : 0) + sizeof(" Sync");
	out = malloc(len);
	if (out)
		snprintf(out, len, "%s%s%s%s", type, st->type == TSR_STEP_SYNC ? " Sync" : "",
		         name ? ": " : "", name ? name : "");
	return out;
}

/* The run's wall-clock cycles by step type. */
static void write_step_types(page *p)
{
	static const char *const headers[] = {"Step type", "Steps", "Cycles", "Share of the run"};
	static const bool numeric[] = {false, true, true, true};
	const cJSON *types = resolve(p->doc, "/execution/cyclesByStepType");
	const char *labels[TSR_STEP_TYPE_COUNT];
	double values[TSR_STEP_TYPE_COUNT];
	char pct[TSB_NUMBER_MAX];
	int n = cJSON_GetArraySize(types);

	if (n > TSR_STEP_TYPE_COUNT)
		n = TSR_STEP_TYPE_COUNT;
	for (int t = 0; t < n; t++) {
		const char *type = cJSON_GetStringValue(
			resolve(p->doc, ptr(p, "/execution/cyclesByStepType/%d/type", t)));

		labels[t] = type ? type : "";
		values[t] = num(resolve(p->doc, ptr(p, "/execution/cyclesByStepType/%d/cycles", t)));
	}
	cli_html_chart_bars(p->h, "cycles-by-step-type", "Cycles by step type",
	                    "Cycles of the run's steps of each type (steps that overlap the one "
	                    "before count whole).",
	                    CLI_HTML_CYCLES, labels, values, (size_t)n);
	cli_html_table_begin(p->h, "Cycles by step type", 4, headers, numeric);
	for (int t = 0; t < n; t++) {
		const cJSON *share = resolve(p->doc, ptr(p, "/execution/cyclesByStepType/%d/share", t));

		cli_html_row_begin(p->h);
		cli_html_cell(p->h, labels[t], ptr(p, "/execution/cyclesByStepType/%d/type", t));
		cell(p, ptr(p, "/execution/cyclesByStepType/%d/steps", t));
		cell(p, ptr(p, "/execution/cyclesByStepType/%d/cycles", t));
		if (cJSON_IsNumber(share))
			cli_html_cell_num(p->h, tsb_format_percent(pct, sizeof(pct), share->valuedouble),
			                  share->valuedouble,
			                  ptr(p, "/execution/cyclesByStepType/%d/share", t));
		else
			cli_html_cell(p->h, "n/a", NULL);
		cli_html_row_end(p->h);
	}
	cli_html_table_end(p->h);
}

/* A program's name in the document into buf, else its type and id. */
static const char *program_label(page *p, char *buf, size_t size, int i)
{
	const char *name = cJSON_GetStringValue(
		resolve(p->doc, ptr(p, "/execution/cyclesByProgram/%d/name", i)));
	const char *type = cJSON_GetStringValue(
		resolve(p->doc, ptr(p, "/execution/cyclesByProgram/%d/type", i)));

	if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%s %.0f", type ? type : "program",
		         num(resolve(p->doc, ptr(p, "/execution/cyclesByProgram/%d/program", i))));
	return buf;
}

/*
 * The run's cycles by the program its steps belong to, most first: the
 * first TOP_PROGRAMS as bars and the document's programs in the table,
 * each with one more for the rest summed (a large model runs tens of
 * thousands of programs; their sum stays whole).
 */
static void write_programs(page *p)
{
	static const char *const headers[] = {"Program", "Type", "Steps", "Cycles"};
	static const bool numeric[] = {false, false, true, true};
	const cJSON *other = resolve(p->doc, "/execution/otherProgramCycles");
	int n = cJSON_GetArraySize(resolve(p->doc, "/execution/cyclesByProgram"));
	size_t n_bars;
	char bar_names[TOP_PROGRAMS + 1][96];
	const char *labels[TOP_PROGRAMS + 1];
	double values[TOP_PROGRAMS + 1], total;
	char a[TSB_NUMBER_MAX], rest[64];

	if (!n)
		return;
	total = n + num(cJSON_GetObjectItemCaseSensitive(other, "programs"));
	n_bars = total > TOP_PROGRAMS + 1 ? TOP_PROGRAMS : (size_t)n;
	for (size_t i = 0; i < n_bars; i++) {
		labels[i] = program_label(p, bar_names[i], sizeof(bar_names[i]), (int)i);
		values[i] = num(resolve(p->doc, ptr(p, "/execution/cyclesByProgram/%zu/cycles", i)));
	}
	if (n_bars < total) {
		values[n_bars] = num(cJSON_GetObjectItemCaseSensitive(other, "cycles"));
		for (int i = (int)n_bars; i < n; i++)
			values[n_bars] += num(resolve(p->doc, ptr(p, "/execution/cyclesByProgram/%d/cycles", i)));
		snprintf(bar_names[n_bars], sizeof(bar_names[n_bars]), "Other (%s programs)",
		         int_text(a, total - (double)n_bars));
		labels[n_bars] = bar_names[n_bars];
		n_bars++;
	}
	cli_html_chart_bars(p->h, "cycles-by-program", "Cycles by program",
	                    "Cycles of the run's steps by the program they belong to, most first.",
	                    CLI_HTML_CYCLES, labels, values, n_bars);
	cli_html_table_begin(p->h, "Cycles by program", 4, headers, numeric);
	for (int i = 0; i < n; i++) {
		char name[256];
		const char *type;

		cli_html_row_begin(p->h);
		program_label(p, name, sizeof(name), i);
		cli_html_cell(p->h, name,
		              cJSON_IsString(resolve(p->doc, ptr(p, "/execution/cyclesByProgram/%d/name",
		                                                 i))) ? p->ptr : NULL);
		type = cJSON_GetStringValue(resolve(p->doc,
		                                    ptr(p, "/execution/cyclesByProgram/%d/type", i)));
		cli_html_cell(p->h, type ? type : "", type ? p->ptr : NULL);
		cell(p, ptr(p, "/execution/cyclesByProgram/%d/steps", i));
		cell(p, ptr(p, "/execution/cyclesByProgram/%d/cycles", i));
		cli_html_row_end(p->h);
	}
	if (cJSON_IsObject(other)) {
		snprintf(rest, sizeof(rest), "Other (%s programs)",
		         int_text(a, num(cJSON_GetObjectItemCaseSensitive(other, "programs"))));
		cli_html_row_begin(p->h);
		cli_html_cell(p->h, rest, NULL);
		cli_html_cell(p->h, "", NULL);
		cell(p, "/execution/otherProgramCycles/steps");
		cell(p, "/execution/otherProgramCycles/cycles");
		cli_html_row_end(p->h);
	}
	cli_html_table_end(p->h);
}

/* The cycles by vertex type of the document. */
static void write_vertex_cycles(page *p)
{
	static const char *const headers[] = {"Vertex type", "Instances", "Cycles"};
	static const bool numeric[] = {false, true, true};
	static const char *const keys[] = {"name", "instances", "cycles"};
	int n = cJSON_GetArraySize(resolve(p->doc, "/execution/cyclesByVertexType"));

	if (!n)
		return;
	array_table(p, "Cycles by vertex type:", "/execution/cyclesByVertexType", 0, 3, headers,
	            numeric, keys);
}

/*
 * The last run the report keeps of each engine program, one lane each,
 * its steps as spans from the run's first cycle: what each program does
 * in time, side by side.
 */
static void write_lanes(page *p)
{
	const tsr_run *runs;
	const uint32_t *control;
	size_t n_runs, n_control, n_lanes = 0, n_spans = 0, k = 0;
	size_t *last = NULL;
	char **lane_names = NULL;
	cli_html_span *spans = NULL;

	if (failed(p, tsr_report_get_runs(&runs, &n_runs, p->report)) ||
	    failed(p, tsr_report_get_control_programs(&control, &n_control, p->report)) ||
	    !n_control)
		return;
	last = alloc(p, n_control, sizeof(*last));
	lane_names = alloc(p, n_control, sizeof(*lane_names));
	if (!last || !lane_names)
		goto out;
	for (size_t c = 0; c < n_control; c++)
		last[c] = SIZE_MAX;
	for (size_t r = 0; r < n_runs; r++)
		if (runs[r].program < n_control)
			last[runs[r].program] = r;
	for (size_t c = 0; c < n_control; c++) {
		const tsr_step *steps;
		size_t n;

		if (last[c] == SIZE_MAX)
			continue;
		if (failed(p, tsr_report_get_steps(&steps, &n, p->report, last[c])))
			goto out;
		n_spans += n;
	}
	spans = alloc(p, n_spans, sizeof(*spans));
	if (!spans)
		goto out;
	for (size_t c = 0; c < n_control; c++) {
		const char *given = tsr_report_lookup_engine_program_name(p->report, c);
		const tsr_step *steps;
		uint64_t start = UINT64_MAX;
		size_t n;
		char name[320];

		if (last[c] == SIZE_MAX)
			continue;
		if (failed(p, tsr_report_get_steps(&steps, &n, p->report, last[c])))
			goto out;
		if (given)
			snprintf(name, sizeof(name), "%s (run %zu)", given, last[c]);
		else
			snprintf(name, sizeof(name), "Program %zu (run %zu)", c, last[c]);
		lane_names[n_lanes] = strdup(name);
		if (!lane_names[n_lanes]) {
			failed(p, TSR_ERR_NO_MEMORY);
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			if (steps[i].cycles_from < start)
				start = steps[i].cycles_from;
		for (size_t i = 0; i < n; i++) {
			char *label = step_label(p->report, &steps[i]);
			const char *type = tsr_step_type_name(steps[i].type);

			if (!label) {
				failed(p, TSR_ERR_NO_MEMORY);
				goto out;
			}
			spans[k++] = (cli_html_span){(double)(steps[i].cycles_from - start),
			                             (double)(steps[i].cycles_to - start), label,
			                             (uint32_t)n_lanes, type ? type : "Step"};
		}
		n_lanes++;
	}
	if (n_lanes)
		cli_html_chart_lanes(p->h, "execution-lanes", "Execution of each program's last run",
		                     "The steps of the last run the report keeps of each engine "
		                     "program, from the run's first cycle.",
		                     CLI_HTML_CYCLES, (const char *const *)lane_names, n_lanes, spans,
		                     k);
out:
	for (size_t i = 0; i < k; i++)
		free((char *)spans[i].label);
	for (size_t i = 0; lane_names && i < n_lanes; i++)
		free(lane_names[i]);
	free(spans);
	free(lane_names);
	free(last);
}

static void write_execution(page *p)
{
	const cJSON *ex = resolve(p->doc, "/execution");

	cli_html_section_begin(p->h, "execution", "Execution");
	if (!cJSON_IsObject(ex)) {
		cli_html_para(p->h, "No execution profile: the report holds no runs.");
		cli_html_section_end(p->h);
		return;
	}
	cli_html_figures_begin(p->h, NULL);
	figure(p, "Run:", FIG_COUNT, "/execution/run");
	figure(p, "Runs kept:", FIG_COUNT, "/execution/runs");
	figure(p, "Engine program:", FIG_COUNT, "/execution/program");
	figure(p, "Program name:", FIG_TEXT, "/execution/programName");
	figure(p, "Total cycles:", FIG_COUNT, "/execution/totalCycles");
	figure(p, "Microseconds (approx):", FIG_TENTHS, "/execution/microseconds");
	figure(p, "Total compute cycles (including idle threads):", FIG_COUNT,
	       "/execution/computeCycles");
	figure(p, "Total compute cycles (excluding idle threads):", FIG_COUNT,
	       "/execution/activeComputeCycles");
	figure(p, "Total IPU exchange cycles:", FIG_COUNT, "/execution/ipuExchangeCycles");
	figure(p, "Total global exchange cycles:", FIG_COUNT, "/execution/globalExchangeCycles");
	figure(p, "Total host exchange cycles:", FIG_COUNT, "/execution/hostExchangeCycles");
	figure(p, "Total shared structure copy cycles:", FIG_COUNT,
	       "/execution/sharedStructureCopyCycles");
	figure(p, "Total sync cycles:", FIG_COUNT, "/execution/syncCycles");
	figure(p, "Total tile balance:", FIG_PERCENT, "/execution/tileBalance");
	figure(p, "Total thread balance:", FIG_PERCENT, "/execution/threadBalance");
	cli_html_figures_end(p->h);
	write_step_types(p);
	write_programs(p);
	write_vertex_cycles(p);
	write_lanes(p);
	cli_html_section_end(p->h);
}

/* The Insights' tips of the document. */
static void write_tips(page *p)
{
	int n = cJSON_GetArraySize(resolve(p->doc, "/tips"));

	cli_html_section_begin(p->h, "tips", "Insights: tips");
	for (int i = 0; i < n; i++) {
		const char *text = cJSON_GetStringValue(resolve(p->doc, ptr(p, "/tips/%d/text", i)));

		if (!text)
			continue;
		/* cli_html_para with the text's pointer. */
		cli_html_raw(p->h, "<p data-json=\"");
		cli_html_raw(p->h, p->ptr);
		cli_html_raw(p->h, "\">");
		cli_html_textf(p->h, "%s", text);
		cli_html_raw(p->h, "</p>\n");
	}
	if (!n)
		cli_html_para(p->h, TSR_SUMMARY_NO_TIPS);
	cli_html_section_end(p->h);
}

int cli_summary_write_html(FILE *out, tsr_report *report, const char *json, const char *title)
{
	page p = {.report = report};
	cJSON *doc = cJSON_Parse(json);
	char heading[1024], subtitle[512], tiles[TSB_NUMBER_MAX];
	const tsr_target *t = tsr_report_get_target(report);
	int rc;

	if (!doc)
		return TSR_ERR_NO_MEMORY;
	p.doc = doc;
	snprintf(subtitle, sizeof(subtitle), "%s %s, %u IPU(s) of %s tiles each",
	         t->type ? t->type : "", t->version_name ? t->version_name : "", t->num_ipus,
	         tsb_format_u64(tiles, sizeof(tiles), t->tiles_per_ipu));
	snprintf(heading, sizeof(heading), "Profile summary of %s", title);
	p.h = cli_html_begin(out, heading, subtitle);
	if (!p.h) {
		cJSON_Delete(doc);
		return TSR_ERR_NO_MEMORY;
	}
	write_target(&p);
	write_tips(&p);
	write_memory(&p);
	write_oom(&p);
	write_liveness(&p);
	write_variables(&p);
	write_execution(&p);
	rc = cli_html_end(p.h, json);
	cJSON_Delete(doc);
	if (p.rc != TSR_OK)
		return p.rc;
	return rc ? TSR_ERR_IO : TSR_OK;
}
