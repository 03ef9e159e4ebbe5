/*
 * The summary's figures, gathered once from the report.h queries and
 * shared by its two renderers: summary-text.c (the guide's
 * printProfileSummary layout) and summary-json.c (the same figures as one
 * JSON object). Gathering in one place is what keeps the text and the
 * JSON equal: neither renderer asks the report for a figure the other
 * could compute differently. Nothing here is public.
 */
#pragma once

#include "report-private.h"
#include "tilescope/summary.h"

/* The category labels of the guide's "By Data Type" part, in its order
 * (data first, then code); a category reportlib knows and this list does
 * not comes after them under its camelCase name. */
typedef struct tsr_sum_category {
	const char *label;           /* "Variables", "Control Code" ... */
	const tsr_category_memory *mem;
} tsr_sum_category;

/* A vertex type's memory (the "By Type" list), fullest first. */
typedef struct tsr_sum_type_bytes {
	const char *name;
	uint64_t bytes;              /* its total vertex memory (code included) */
} tsr_sum_type_bytes;

/* Variables merged by name (several "<anon>" make one line), by name. */
typedef struct tsr_sum_named {
	const char *name;
	uint64_t bytes;
} tsr_sum_named;
typedef struct tsr_sum_names {
	tsr_sum_named *v;            /* tsr_alloc'd, cap entries */
	size_t n, cap;
} tsr_sum_names;

/* One "Memory on ..." part: all IPUs (ipu -1) or one IPU. */
typedef struct tsr_sum_memory {
	int ipu;
	tsr_memory_totals totals;
	tsr_category_memory *categories; /* tsr_report_memory_by_category (free) */
	size_t n_categories;
	tsr_sum_category *order;     /* the categories in display order (tsr_alloc) */
	size_t n_order;
	uint64_t not_overlapped;     /* bytes: sum of the categories' non-overlapped */
	uint64_t overlapped;         /* bytes: sum of the categories' overlapped */
	uint64_t after_overlapping;  /* bytes: excluding-gaps total - not_overlapped */
	tsr_vertex_memory vertex;    /* summed over vertex types */
	uint64_t vertex_data;        /* vertex memory without code (the guide's "Vertex Data") */
	tsr_sum_type_bytes *by_type; /* non-zero vertex types (tsr_alloc, cap_by_type) */
	size_t n_by_type, cap_by_type;
	uint64_t *histogram;         /* tiles per bucket (free), excluding gaps */
	size_t n_buckets;
	size_t first_bucket, end_bucket; /* the non-empty range printed [first, end) */
	uint64_t bucket_width;       /* bytes, a whole number of KiB */
	uint64_t max_bucket;         /* the largest count */
	uint32_t *oom;               /* this part's out-of-memory tiles, ascending (tsr_alloc) */
	size_t n_oom;
	uint32_t *largest;           /* a few fullest tiles when some do not fit (free) */
	size_t n_largest;
} tsr_sum_memory;

typedef struct tsr_summary {
	tsr_report *report;
	tsr_summary_options opts;
	const tsr_target *target;
	const tsr_graph_counts *counts;
	const tsr_tile_memory *tiles;  /* num_tiles */
	size_t n_tiles;

	tsr_sum_memory *memory;        /* [0] all IPUs, then one per IPU when asked */
	size_t n_memory;

	/* Names. */
	const tsr_program *programs;
	size_t n_programs;
	const tsr_compute_set *compute_sets;
	size_t n_compute_sets;
	const tsr_vertex_type *vertex_types;
	size_t n_vertex_types;
	const tsr_exchange *exchanges[TSR_EXCHANGE_KIND_COUNT];
	size_t n_exchanges[TSR_EXCHANGE_KIND_COUNT];

	/* Liveness. */
	uint64_t always_live_bytes;
	bool has_peak;
	size_t peak_step;
	uint64_t peak_bytes;           /* not-always-live bytes at peak_step */
	const tsr_liveness_step *steps; /* with show_var_storage */
	size_t n_steps;
	const tsr_variable *variables; /* with show_var_storage */
	size_t n_variables;
	tsr_sum_names always_live;     /* with show_var_storage */

	/* Execution of one run. */
	size_t n_runs;
	bool has_run;
	size_t run;
	const tsr_run *run_info;
	tsr_activity activity;
	tsr_flops flops;               /* for the run's length in seconds */
	tsr_vertex_type_cycles *vt_cycles; /* the types that ran (free) */
	size_t n_vt_cycles;
	const tsr_step *run_steps;     /* with show_execution_steps */
	size_t n_run_steps;
} tsr_summary;

/* Gathers every figure `opts` asks for (NULL: the defaults). On failure
 * the report's error says why and *s is cleared. */
int tsr_summary_gather(tsr_summary *s, tsr_report *report, const tsr_summary_options *opts);
void tsr_summary_clear(tsr_summary *s);

/* The variables live at liveness step `step` that are not always live,
 * merged by name; free with tsr_summary_names_free(). */
int tsr_summary_live_at(tsr_summary *s, tsr_sum_names *out, size_t step);
void tsr_summary_names_free(tsr_summary *s, tsr_sum_names *names);

/* A program's tag and name as the liveness tree prints it: the name is
 * the program's, else its compute set's or exchange's, else NULL. */
void tsr_summary_program_label(const tsr_summary *s, uint32_t program, const char **type,
                               const char **name);
/* An execution step's name: its compute set's or exchange's, else its
 * program's, else NULL. */
const char *tsr_summary_step_name(const tsr_summary *s, const tsr_step *st);
/* The vertex types of an OnTileExecute step's compute set (borrowed;
 * none for other steps). Read by tsr_summary_gather, so this cannot fail. */
void tsr_summary_step_vertex_types(const tsr_summary *s, const tsr_step *st,
                                   const tsr_vertex_type_cycles **out, size_t *n);

/* Visits the optimizationInfo metrics (key order); a callback returning
 * non-zero stops the walk and is returned. */
typedef int (*tsr_summary_optimization_cb)(void *ctx, const char *key, double value);
int tsr_summary_optimizations(tsr_report *report, tsr_summary_optimization_cb cb, void *ctx);

/* `part` / `whole`, NaN when whole is 0 (the balances of the Execution part). */
double tsr_summary_ratio(uint64_t part, uint64_t whole);

/* A copy of `s` (NULL: "") safe to print or put in JSON: control bytes
 * and invalid UTF-8 become '?'. The caller frees it with free(). */
char *tsr_summary_clean_dup(const char *s);
/* Characters (code points) that tsr_summary_clean_dup(s) holds. */
size_t tsr_summary_clean_width(const char *s);
