/*
 * The printProfileSummary formatter: a report as text in the layout of the
 * Poplar user guide's "Profile summary output" (Target, Graph, Memory
 * Usage with its region / data type / vertex data / by-tile histogram
 * parts, Variable Storage Liveness, Execution, Cycles by vertex type,
 * Steps), and the same figures as JSON. The `tilescope summary` command,
 * the Graph Analyser's summary page and tut4_profiling print it.
 *
 * Threads (report.h's contract): the report is used by one thread at a
 * time, so two threads printing summaries need a handle each (they may
 * open the same file). tsr_colours_enabled reads the environment only.
 * These calls do not report progress (see tsr_progress_cb).
 */
#pragma once

#include "report.h"

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tsr_colours {
	TSR_COLOURS_AUTO = 0, /* when `out` is a terminal, honouring NO_COLOR, CLICOLOR,
	                         CLICOLOR_FORCE */
	TSR_COLOURS_ALWAYS,
	TSR_COLOURS_NEVER
} tsr_colours;

typedef struct tsr_summary_options {
	unsigned version;            /* TSR_SUMMARY_OPTIONS_VERSION */
	bool show_var_storage;       /* liveness per step with the call-stack tree */
	bool show_optimizations;     /* optimizationInfo */
	bool show_execution_steps;   /* every step of the run */
	bool show_per_ipu_memory;    /* memory usage per IPU */
	tsr_colours colours;
	int64_t run;                 /* which run's execution (-1: the last one kept) */
	bool show_operations;        /* version 2: the operations (debug contexts) with
	                                their memory, cycles, FLOPs and utilisation */
} tsr_summary_options;
#define TSR_SUMMARY_OPTIONS_VERSION 2
#define TSR_SUMMARY_OPTIONS_INIT {TSR_SUMMARY_OPTIONS_VERSION, false, false, false, false, \
                                  TSR_COLOURS_AUTO, -1, false}

/* --- The figures ------------------------------------------------------------ */

/*
 * Every figure the summary shows, gathered once from the report.h
 * queries: the text (tsr_summary_print) and the JSON (tsr_summary_dup_json)
 * are both written from these, and nothing else, so a program reading
 * them shows exactly what `tilescope summary` prints.
 *
 * Lifetime. tsr_summary_figures_new() makes the struct and everything it
 * points to; the caller frees it with tsr_summary_figures_free(), before
 * tsr_report_free() (the figures count against the report's memory
 * cap). Pointers into the report (the target, the counts, names, the
 * report's steps and vertex types) are borrowed: valid until the report
 * is freed. Names are as the file holds them, not cleaned for printing,
 * and may be NULL.
 */

/* One memory category of the "By Data Type" part. */
typedef struct tsr_summary_category {
	const char *label;             /* the guide's label ("Variables", "Control Code" ...);
	                                  a category it does not name has its camelCase name */
	tsr_category_memory memory;    /* its bytes; memory.category its category */
} tsr_summary_category;

/* A name and its bytes: a vertex type's memory, or variables merged by
 * name. In the always-live list, a numbered series of 16 or more names
 * ("initW/params0" ... "initW/params1471", a variable per tile) is one
 * entry named "initW/params*" with `count` the names it holds. */
typedef struct tsr_summary_named_bytes {
	const char *name;
	uint64_t bytes;
	size_t count;                  /* names of a series; 0 for one name */
} tsr_summary_named_bytes;

/* A tile and its memory including gaps, in bytes. */
typedef struct tsr_summary_tile_bytes {
	uint32_t tile;
	uint64_t bytes;
} tsr_summary_tile_bytes;

/* One "Memory on ..." part: all IPUs of one replica, or one IPU. Bytes
 * throughout. */
typedef struct tsr_summary_memory {
	int ipu;                       /* -1: all IPUs */
	tsr_memory_totals totals;      /* tsr_report_fill_memory_totals() of the part */
	/* By Data Type: every category in the guide's order (data first, then
	 * code; the ones it does not name last). */
	const tsr_summary_category *categories;
	size_t n_categories;
	uint64_t not_overlapped;       /* sum of the categories' non_overlapped */
	uint64_t overlapped;           /* sum of the categories' overlapped */
	uint64_t after_overlapping;    /* totals.total - not_overlapped (0 when less) */
	/* Vertex Data. */
	tsr_vertex_memory vertex;      /* summed over the vertex types */
	uint64_t vertex_data;          /* the guide's "Vertex Data": vertex memory but code */
	const tsr_summary_named_bytes *vertex_types; /* "By Type": types with bytes here (code
	                                                included), fullest first, then by name */
	size_t n_vertex_types;
	/* By Tile: the histogram of tiles by memory excluding gaps. */
	const uint64_t *histogram;     /* tiles per bucket: bucket b holds
	                                  [b * bucket_width, (b + 1) * bucket_width) */
	size_t n_buckets;
	uint64_t bucket_width;         /* a whole number of KiB, about 1/20 of the fullest tile */
	size_t first_bucket, end_bucket; /* the non-empty range [first, end); 0, 0 when none */
	uint64_t max_bucket;           /* tiles in the fullest bucket */
	const uint32_t *oom_tiles;     /* the part's tiles past bytes_per_tile, ascending */
	size_t n_oom_tiles;
	const tsr_summary_tile_bytes *largest_tiles; /* with out-of-memory tiles: up to 8 of the
	                                                fullest (including gaps), fullest first */
	size_t n_largest_tiles;
} tsr_summary_memory;

/* An optimizationInfo metric. */
typedef struct tsr_summary_optimization {
	const char *key;
	double value;
} tsr_summary_optimization;

/* A liveness step as the tree shows it. */
typedef struct tsr_summary_liveness_step {
	const tsr_liveness_step *step; /* the report's (its depth, bytes, program) */
	tsr_program_type program_type; /* its program's (TSR_PROGRAM_NONE for an unknown
	                                  program); tsr_program_type_name() spells it */
	const char *name;              /* the program's name, else its compute set's or
	                                  exchange's, else NULL */
} tsr_summary_liveness_step;

/* One operation (debug context) of the "Operations" part. */
typedef struct tsr_summary_operation {
	const tsr_operation *op;       /* its figures, descendants included; cycles and
	                                  flops of the run shown (0 without runs) */
	size_t depth;                  /* 0 for a top-level context */
	uint64_t memory;               /* op->variable_bytes + op->vertex_bytes */
	double utilisation;            /* op->flops / the target's fp32 peak over
	                                  op->cycles (all tiles); NaN without cycles */
} tsr_summary_operation;

/* An execution step of the run shown. */
typedef struct tsr_summary_step {
	const tsr_step *step;          /* the report's */
	const char *name;              /* its compute set's or exchange's name, else its
	                                  program's, else NULL (always NULL for a Sync) */
	const tsr_vertex_type_cycles *vertex_types; /* OnTileExecute: the compute set's
	                                               vertex types, one execution, most
	                                               cycles first (borrowed); else none */
	size_t n_vertex_types;
} tsr_summary_step;

typedef struct tsr_summary_figures {
	tsr_summary_options opts;      /* the options gathered for (the defaults for NULL) */
	const tsr_target *target;
	const tsr_graph_counts *counts;
	/* The names of the vertex_type indexes below (an index past the end
	 * names nothing). */
	const tsr_vertex_type *vertex_types;
	size_t n_vertex_types;

	/* With show_optimizations: the optimizationInfo metrics, by key. */
	const tsr_summary_optimization *optimizations;
	size_t n_optimizations;

	/* Memory: [0] all IPUs, then each IPU with show_per_ipu_memory. */
	const tsr_summary_memory *memory;
	size_t n_memory;

	/* Variable Storage Liveness (bytes, all tiles of one replica). */
	uint64_t always_live_bytes;
	bool has_peak;                 /* the report has liveness steps */
	size_t peak_step;              /* the step with the most not-always-live bytes */
	uint64_t peak_bytes;           /* its not-always-live bytes */
	uint64_t max_live_bytes;       /* always_live_bytes + peak_bytes (without a peak, or
	                                  when the sum overflows: always_live_bytes) */
	/* With show_var_storage: the always-live variables merged by name, in
	 * name order, and every liveness step (the variables live at one:
	 * tsr_summary_figures_list_live_variables). */
	const tsr_summary_named_bytes *always_live;
	size_t n_always_live;
	const tsr_summary_liveness_step *liveness_steps;
	size_t n_liveness_steps;

	/* Execution of one run; nothing below is set without has_run (a
	 * report without runs). */
	bool has_run;
	size_t n_runs;                 /* runs the report keeps */
	size_t run;                    /* the run shown (0-based): opts.run, or the last */
	uint32_t program;              /* the engine program it ran (its name: program_name) */
	tsr_activity activity;         /* its length and tile cycles by activity */
	tsr_flops flops;               /* fp32; flops.seconds is its length in seconds */
	double tile_balance;           /* compute cycles / (cycles x tiles); NaN when
	                                  undefined */
	double thread_balance;         /* active compute cycles / compute cycles; NaN */
	const tsr_vertex_type_cycles *vertex_type_cycles; /* the types that ran, most cycles
	                                                     first */
	size_t n_vertex_type_cycles;
	const tsr_summary_step *steps; /* with show_execution_steps: every step of the run */
	size_t n_steps;

	/* With show_operations: every debug context in id order, which is tree
	 * order (a context's descendants follow it, before its next sibling). */
	const tsr_summary_operation *operations;
	size_t n_operations;

	/* With has_run: the name the model gave the run's engine program
	 * (tsr_report_lookup_engine_program_name), NULL when it gave none.
	 * Last, as fields added after 0.3.0 are. */
	const char *program_name;
} tsr_summary_figures;

/*
 * Gathers every figure `opts` asks for (NULL: TSR_SUMMARY_OPTIONS_INIT)
 * into *out; the caller frees it with tsr_summary_figures_free(). On
 * failure *out is NULL and tsr_report_error() says why:
 * TSR_ERR_INVALID_ARGUMENT (an unknown options version, a run below -1),
 * TSR_ERR_OUT_OF_RANGE (a run the report does not keep), and the codes of
 * the report.h queries.
 */
TSR_API int tsr_summary_figures_new(tsr_summary_figures **out, tsr_report *report,
                                    const tsr_summary_options *opts);
/* NULL-safe; before tsr_report_free() of the report it was gathered from. */
TSR_API void tsr_summary_figures_free(tsr_summary_figures *figures);

/*
 * The variables live at liveness step `step` that are not always live,
 * merged by name (their bytes summed), in name order: the "Live Vars" of
 * one step of the tree. Asked per step because all steps' lists together
 * can be large. Works without show_var_storage. The caller frees *out
 * with free() (NULL when *n is 0). Failures are the report's
 * (tsr_report_error()); TSR_ERR_OUT_OF_RANGE for a step past the end.
 */
TSR_API int tsr_summary_figures_list_live_variables(tsr_summary_named_bytes **out, size_t *n,
                                                    tsr_summary_figures *figures, size_t step);

/* --- Tips (the Insights) ------------------------------------------------------ */

/* What a tip is about, and the unit of its saving. */
typedef enum tsr_tip_kind {
	TSR_TIP_OUT_OF_MEMORY = 0, /* bytes: what the out-of-memory tiles need past their
	                              memory, including gaps, summed */
	TSR_TIP_ALWAYS_LIVE,       /* bytes: an always-live variable holding 5% or more of
	                              the always-live bytes */
	TSR_TIP_EXCHANGE_CODE,     /* bytes: internal exchange code on the fullest tile by
	                              bytes in use, when 20% or more of them */
	TSR_TIP_IMBALANCE          /* cycles: what the compute set whose tile imbalance
	                              costs most would save balanced, when 5% or more of the
	                              run */
} tsr_tip_kind;

/* One tip. */
typedef struct tsr_summary_tip {
	tsr_tip_kind kind;
	uint64_t saving;               /* bytes or cycles, as `kind` says: an upper bound */
	const char *text;              /* what to do, with the figures it rests on: one
	                                  sentence, names cleaned as in the text summary */
} tsr_summary_tip;

/* What to show when there is no tip. */
#define TSR_SUMMARY_NO_TIPS                                                                  \
	"Nothing in this report points to an obvious saving: no out-of-memory tiles, no "   \
	"always-live variable above 5% of the always-live bytes, exchange code under 20% of " \
	"the fullest tile's data, and no compute set whose imbalance costs 5% of the run."

/*
 * The Insights' tips (the Graph Analyser's Insights view and the summary
 * page show them): what the report suggests doing, each only where the
 * report supports it and with the saving estimated from it, in the order
 * of tsr_tip_kind (up to three always-live variables, the largest first).
 * The always-live tips need figures gathered with show_var_storage, the
 * imbalance tip with show_execution_steps (of the run gathered). The
 * caller frees *out with free(), texts included (one block; NULL when *n
 * is 0). Failures are the report's (tsr_report_error()).
 */
TSR_API int tsr_summary_figures_list_tips(tsr_summary_tip **out, size_t *n,
                                          const tsr_summary_figures *figures);

/* Whether colours are used for `out` under `mode` and the environment
 * (NO_COLOR set: never; CLICOLOR_FORCE non-zero: always; CLICOLOR=0:
 * never; else when `out` is a terminal). */
TSR_API bool tsr_colours_enabled(tsr_colours mode, FILE *out);

/* Prints the summary of `report` to `out`. `opts` may be NULL. A report
 * without runs prints the graph parts and says there is no execution. */
TSR_API int tsr_summary_print(FILE *out, tsr_report *report, const tsr_summary_options *opts);

/* The summary as one JSON object (keys documented in the README's
 * "tilescope summary --json" section; every integer exact). *out is
 * malloc'd, NUL-terminated; the caller frees it with free(). */
TSR_API int tsr_summary_dup_json(char **out, tsr_report *report, const tsr_summary_options *opts);

#ifdef __cplusplus
}
#endif
