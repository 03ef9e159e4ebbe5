/*
 * Comparing two reports (compare.h): each report's figures are gathered
 * through report.h into a list of named metrics, the two lists are
 * matched by metric name, and a delta is made for each name found in
 * either. `tilescope diff` and the Graph Analyser's comparison page show
 * the result; CI gates on it, so the names below are a stable interface.
 *
 * Metrics. <name> is the object's name in the report; a name that repeats
 * within one report (two compute sets named alike) is suffixed "#2",
 * "#3" ... in order of appearance (ascending ids), and the reports are
 * matched on these suffixed names. Execution metrics (cycles.*, flops.*,
 * steps.*) come from the chosen runs and are absent from a report without
 * runs: one run of each report (tsr_compare, or tsr_compare_programs with
 * run numbers), or, by default in tsr_compare_programs, every kept run of
 * each program that ran in both reports, weighted 1 / its program's runs,
 * so that they are one average run of each such program, summed (each
 * figure rounded to the nearest integer after summing). Names of
 * variables, compute sets and programs carry the path of the model's
 * debug contexts ("fc1/matmul/Partials"). Units are those of
 * tsr_metric_unit.
 *
 *   Totals
 *   cycles.total                        cycles  the run's length
 *   flops.total                         flops   FLOPs of the run
 *   graph.compute_sets                  count   the guide's graph.numComputeSets
 *   graph.edges                         count   graph.numEdges
 *   graph.variables                     count   graph.numVars
 *   graph.vertices                      count   graph.numVertices
 *   memory.always_live                  bytes   bytes live throughout
 *   memory.ipu<i>.total                 bytes   IPU i's tiles, excluding gaps
 *   memory.ipu<i>.total_including_gaps  bytes   IPU i's tiles, including gaps
 *   memory.max_tile                     bytes   the fullest tile, including gaps
 *   memory.max_tile_excluding_gaps      bytes   the tile with the most data
 *   memory.oom_tiles                    tiles   tiles above bytes_per_tile
 *   memory.peak_live                    bytes   always-live bytes plus the
 *                                               not-always-live bytes of the
 *                                               peak liveness step
 *   memory.total                        bytes   all tiles, excluding gaps
 *   memory.total_including_gaps         bytes   all tiles, including gaps
 *   steps.total                         count   execution steps of the run
 *   Per compared program (the engine program that ran, by name; an
 *   unnamed one is "program<i>", i its engine index)
 *   cycles.run.<program>                cycles  its length, per run
 *   steps.run.<program>                 count   its execution steps, per run
 *   Per memory category (every category of the guide)
 *   memory.category.<category>          bytes   all regions, overlapped or not
 *   Per step type (OnTileExecute, DoExchange, GlobalExchange, StreamCopy,
 *   Sync, CopySharedStructure)
 *   cycles.step_type.<type>             cycles  the run's steps of the type
 *   Per vertex type
 *   cycles.vertex_type.<name>           cycles  active cycles summed over tiles,
 *                                               weighted by the run's executions
 *   memory.vertex_type.<name>           bytes   vertex memory of the type
 *   Per operation (debug context); <path> is the names from the top-level
 *   context down, joined by '/' ("layer1/fc"); figures include descendants
 *   cycles.operation.<path>             cycles  its steps in the run
 *   flops.operation.<path>              flops   its FLOPs in the run
 *   memory.operation.<path>             bytes   its variables and vertex memory
 *   Per compute set
 *   cycles.compute_set.<name>           cycles  its OnTileExecute steps in the run
 *   memory.compute_set.<name>           bytes   vertex memory of the set
 *   Per listed variable
 *   memory.variable.<name>              bytes   all tiles
 *   Per named program
 *   cycles.program.<name>               cycles  the run's steps of the program
 *                                               and of everything it contains
 *                                               (children, called functions)
 *
 * Verdicts (tsr_delta_get_verdict, one rule for every metric above):
 * memory.*, cycles.* and steps.* are costs, better lower; flops.* and
 * graph.* only change; the gaps pairs (memory.total and
 * memory.total_including_gaps, memory.ipu<i>.total and
 * memory.ipu<i>.total_including_gaps, memory.max_tile_excluding_gaps and
 * memory.max_tile) only change when the two moved apart.
 *
 * Order: totals, runs per program, categories, step types, vertex types,
 * operations, compute sets (compare.h's groups), then variables and
 * programs; within
 * a group by metric name (strcmp).
 *
 * Memory: the figures of each side are collected in arrays and a string
 * arena charged to that report (tsr_alloc), freed before returning; the
 * result is one malloc'd block of deltas and names whose size is bounded
 * by what the two handles already hold under their caps. Every loop is
 * bounded by counts the handles have checked; the program-tree walk is
 * iterative, marks what it visited (the tree may have cycles in a hostile
 * file) and gives up past a fixed amount of work.
 */
#include <tilescope/alloc.h>
#include "report-private.h"
#include "tilescope/compare.h"
#include "history-private.h"

#include <tilescope/hashmap.h>

#include <assert.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Groups in their output order. */
enum {
	G_TOTAL = 0,
	G_RUN,
	G_CATEGORY,
	G_STEP_TYPE,
	G_VERTEX_TYPE,
	G_OPERATION,
	G_COMPUTE_SET,
	G_VARIABLE,
	G_PROGRAM,
	G_COUNT
};

/* The longest operation path kept (bytes); a longer one is a hostile file. */
#define CMP_MAX_PATH 4096
/* Node visits allowed to the walk of named programs over the program tree. */
#define CMP_MAX_TREE_WORK ((uint64_t)1 << 26)
#define CMP_BLOCK_BYTES ((size_t)64 * 1024)

/* One figure of one report. A figure of several runs is their weighted
 * sum (acc); the side's items are merged by metric before matching. */
typedef struct cmp_item {
	const char *metric; /* in the side's arena */
	unsigned group;
	tsr_metric_unit unit;
	uint64_t value;     /* exact, when not weighted */
	double acc;         /* weighted: the sum of value x weight */
	bool weighted;
} cmp_item;

/* A block of a side's string arena. */
typedef struct cmp_block {
	struct cmp_block *next;
	size_t size, used; /* bytes of data[] */
	char data[];
} cmp_block;

/* One report's side: its figures and the memory they live in. */
typedef struct cmp_side {
	tsr_report *r;
	bool has_run;        /* execution figures come from run `run` */
	size_t run;
	bool want_memory;    /* this pass also gathers the memory figures */
	double weight;       /* of run `run`'s figures: 1 / runs of its program */
	size_t *runs;        /* the runs compared (tsr_alloc'd, cap n_runs) */
	double *weights;     /* and their weights */
	const char **run_labels; /* and their programs' labels */
	size_t n_runs;
	size_t run_index;    /* of `run` in runs[] */
	cmp_item *items;     /* tsr_alloc'd, cap_items entries */
	size_t n_items, cap_items;
	cmp_block *blocks;
} cmp_side;

/* A name -> value map (base's hash map, keys borrowed), sized once for
 * its most keys and charged to the report's memory cap while it lives. */
typedef struct cmp_map {
	tsb_hashmap *map;
	size_t charged; /* bytes counted against the cap */
} cmp_map;

/* A matched metric while the result is assembled. */
typedef struct cmp_entry {
	const char *metric;
	unsigned group;
	tsr_metric_unit unit;
	bool in_base, in_new;
	uint64_t base, new_value;
} cmp_entry;

struct tsr_comparison {
	tsr_delta *deltas;
	size_t n;
	size_t *by_name; /* indexes of deltas sorted by metric, for lookup */
	char *names;     /* the metric strings */
	tsr_compared_program *programs; /* names point into prog_names */
	size_t n_programs;
	char *prog_names;
};

/* a + b, stopping at UINT64_MAX. */
static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* new - base as a signed value, stopping at the ends of int64_t. */
static int64_t sat_diff(uint64_t new_value, uint64_t base)
{
	uint64_t d;

	if (new_value >= base) {
		d = new_value - base;
		return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
	}
	d = base - new_value;
	return d > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)d;
}

/* tsr_free for memory that may not have been allocated (NULL: nothing). */
static void release(tsr_report *r, void *p, size_t bytes)
{
	if (p)
		tsr_free(r, p, bytes);
}

/* Zeroed memory charged to the report (tsr_alloc does not promise zeros). */
static void *zalloc(tsr_report *r, size_t n, size_t size)
{
	void *p = tsr_alloc(r, n ? n : 1, size);

	if (p)
		memset(p, 0, (n ? n : 1) * size);
	return p;
}

/* --- A side's string arena and item list ----------------------------------- */

/* A copy of a + b + c (any may be NULL: empty) in the side's arena; NULL
 * with the failure recorded on the report when the cap is reached. */
static const char *side_concat(cmp_side *s, const char *a, const char *b, const char *c)
{
	size_t la = a ? strlen(a) : 0, lb = b ? strlen(b) : 0, lc = c ? strlen(c) : 0;
	size_t need = la + lb + lc + 1;
	cmp_block *bl = s->blocks;
	char *p;

	if (need < la || need > SIZE_MAX / 2) {
		tsr_fail(s->r, TSR_ERR_TOO_LARGE, "comparing: a metric name is too long");
		return NULL;
	}
	if (!bl || bl->size - bl->used < need) {
		size_t size = need > CMP_BLOCK_BYTES ? need : CMP_BLOCK_BYTES;

		bl = tsr_alloc(s->r, 1, sizeof(*bl) + size);
		if (!bl)
			return NULL;
		bl->size = size;
		bl->used = 0;
		bl->next = s->blocks;
		s->blocks = bl;
	}
	p = bl->data + bl->used;
	bl->used += need;
	if (la)
		memcpy(p, a, la);
	if (lb)
		memcpy(p + la, b, lb);
	if (lc)
		memcpy(p + la + lb, c, lc);
	p[la + lb + lc] = 0;
	return p;
}

/* Appends the figure (prefix + name, value) to the side, growing its list
 * by doubling. */
static int side_add(cmp_side *s, unsigned group, tsr_metric_unit unit, const char *prefix,
                    const char *name, uint64_t value)
{
	const char *metric;

	if (s->n_items == s->cap_items) {
		size_t cap = s->cap_items ? s->cap_items * 2 : 64;
		cmp_item *items = tsr_alloc(s->r, cap, sizeof(*items));

		if (!items)
			return TSR_ERR_TOO_LARGE; /* recorded by tsr_alloc */
		if (s->n_items)
			memcpy(items, s->items, s->n_items * sizeof(*items));
		release(s->r, s->items, s->cap_items * sizeof(*items));
		s->items = items;
		s->cap_items = cap;
	}
	metric = side_concat(s, prefix, name, NULL);
	if (!metric)
		return TSR_ERR_TOO_LARGE;
	s->items[s->n_items++] = (cmp_item){metric, group, unit, value, 0.0, false};
	return TSR_OK;
}

/* An execution figure of the side's current run: weighted by the run's
 * share of its program's runs, exact when it is the only one. */
static int side_run(cmp_side *s, unsigned group, tsr_metric_unit unit, const char *prefix,
                    const char *name, uint64_t value)
{
	int rc = side_add(s, group, unit, prefix, name, value);

	if (!rc && s->weight != 1.0) {
		cmp_item *it = &s->items[s->n_items - 1];

		it->weighted = true;
		it->acc = (double)value * s->weight;
		it->value = 0;
	}
	return rc;
}

/* qsort order of items by metric, then order of addition (stable merge). */
static int cmp_items_by_metric(const void *a, const void *b)
{
	const cmp_item *x = a, *y = b;
	int c = strcmp(x->metric, y->metric);

	return c ? c : (x < y ? -1 : x > y);
}

/*
 * Merges the items of one metric (the same figure of several runs) into
 * one: the exact sum of the unweighted values plus the rounded weighted
 * sum, so a figure of one run stays exact.
 */
static void side_merge(cmp_side *s)
{
	size_t out = 0;

	if (s->n_items < 2)
		goto round;
	qsort(s->items, s->n_items, sizeof(*s->items), cmp_items_by_metric);
	for (size_t i = 0; i < s->n_items; i++) {
		cmp_item *last = out ? &s->items[out - 1] : NULL;

		if (last && strcmp(last->metric, s->items[i].metric) == 0) {
			last->value = sat_add(last->value, s->items[i].value);
			last->acc += s->items[i].acc;
			last->weighted = last->weighted || s->items[i].weighted;
			continue;
		}
		s->items[out++] = s->items[i];
	}
	s->n_items = out;
round:
	for (size_t i = 0; i < s->n_items; i++) {
		cmp_item *it = &s->items[i];

		if (it->weighted) {
			double r = it->acc + 0.5;

			it->value = sat_add(it->value, r >= 18446744073709551615.0 ? UINT64_MAX
			                                                           : (uint64_t)r);
		}
	}
}

/* Frees what a side holds (its figures die with it). */
static void side_free(cmp_side *s)
{
	release(s->r, s->runs, (s->n_runs ? s->n_runs : 1) * sizeof(*s->runs));
	release(s->r, s->weights, (s->n_runs ? s->n_runs : 1) * sizeof(*s->weights));
	release(s->r, s->run_labels, (s->n_runs ? s->n_runs : 1) * sizeof(*s->run_labels));
	s->runs = NULL;
	s->weights = NULL;
	s->run_labels = NULL;
	s->n_runs = 0;
	release(s->r, s->items, s->cap_items * sizeof(*s->items));
	while (s->blocks) {
		cmp_block *next = s->blocks->next;

		tsr_free(s->r, s->blocks, sizeof(*s->blocks) + s->blocks->size);
		s->blocks = next;
	}
	s->items = NULL;
	s->n_items = s->cap_items = 0;
}

/* --- Name map ----------------------------------------------------------------------- */

/* A map for up to `n` keys, its table charged to `r`. */
static int map_init(cmp_map *m, tsr_report *r, size_t n)
{
	size_t bytes;

	memset(m, 0, sizeof(*m));
	m->map = tsb_hashmap_new(TSB_HASHMAP_STRING_KEYS);
	if (!m->map || tsb_hashmap_reserve(m->map, n)) {
		tsb_hashmap_free(m->map);
		m->map = NULL;
		return tsr_fail(r, TSR_ERR_NO_MEMORY, "comparing: out of host memory for %zu names", n);
	}
	bytes = tsb_hashmap_get_memory(m->map);
	if (bytes > r->memory_cap || r->memory_used > r->memory_cap - bytes) {
		tsb_hashmap_free(m->map);
		m->map = NULL;
		return tsr_fail(r, TSR_ERR_TOO_LARGE, "comparing: %zu names are too many", n);
	}
	r->memory_used += bytes;
	m->charged = bytes;
	return TSR_OK;
}

/* Frees a map made by map_init (its keys are borrowed). */
static void map_free(cmp_map *m, tsr_report *r)
{
	if (m->map)
		r->memory_used -= m->charged < r->memory_used ? m->charged : r->memory_used;
	tsb_hashmap_free(m->map);
	memset(m, 0, sizeof(*m));
}

/* Whether `key` is in the map; its value in *value when not NULL. */
static bool map_find(const cmp_map *m, const char *key, size_t *value)
{
	uintptr_t v;

	if (!tsb_hashmap_lookup_str(m->map, key, &v))
		return false;
	if (value)
		*value = (size_t)v;
	return true;
}

/* Sets `key` (borrowed) to `value`. The caller keeps within the keys given
 * to map_init, so the reserved table never grows and this cannot fail. */
static void map_put(cmp_map *m, const char *key, size_t value)
{
	int rc = tsb_hashmap_put_str(m->map, key, value);

	(void)rc;
	assert(rc == 0);
}

/*
 * Labels for names[0..n): the name itself at its first appearance, then
 * "name#2", "name#3" ... (skipping labels another name already is, so a
 * compute set really called "a#2" keeps its name). NULL names get NULL
 * labels. Labels live in the side's arena.
 */
static int unique_labels(cmp_side *s, const char **labels, const char *const *names, size_t n)
{
	cmp_map seen;
	int rc = map_init(&seen, s->r, n);

	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		size_t count;

		labels[i] = NULL;
		if (!names[i])
			continue;
		if (!map_find(&seen, names[i], &count)) {
			labels[i] = names[i];
			map_put(&seen, names[i], 1);
			continue;
		}
		/* At most n labels exist, so at most n tries. */
		for (size_t k = count + 1;; k++) {
			char suffix[24];
			const char *label;

			snprintf(suffix, sizeof(suffix), "#%zu", k);
			label = side_concat(s, names[i], suffix, NULL);
			if (!label) {
				rc = TSR_ERR_TOO_LARGE;
				goto out;
			}
			if (!map_find(&seen, label, NULL)) {
				map_put(&seen, names[i], k);
				map_put(&seen, label, 1);
				labels[i] = label;
				break;
			}
		}
	}
out:
	map_free(&seen, s->r);
	return rc;
}

/* --- Gathering one report's figures ------------------------------------------- */

/* The totals of memory and the graph, and per IPU. */
static int collect_totals(cmp_side *s)
{
	const tsr_target *tg = tsr_report_get_target(s->r);
	const tsr_graph_counts *gc = tsr_report_get_counts(s->r);
	const tsr_liveness_step *ls;
	tsr_memory_totals mt;
	uint64_t always = tsr_report_get_always_live_bytes(s->r), peak = 0;
	size_t n_ls, peak_step;
	int rc;

	rc = tsr_report_fill_memory_totals(&mt, s->r, -1);
	if (!rc)
		rc = tsr_report_get_liveness_steps(&ls, &n_ls, s->r);
	if (!rc && n_ls)
		rc = tsr_report_get_peak_liveness(&peak_step, &peak, s->r);
	if (rc)
		return rc;
	const struct {
		const char *name;
		tsr_metric_unit unit;
		uint64_t value;
	} totals[] = {
		{"graph.compute_sets", TSR_UNIT_COUNT, gc->compute_sets},
		{"graph.edges", TSR_UNIT_COUNT, gc->edges},
		{"graph.variables", TSR_UNIT_COUNT, gc->variables},
		{"graph.vertices", TSR_UNIT_COUNT, gc->vertices},
		{"memory.always_live", TSR_UNIT_BYTES, always},
		{"memory.max_tile", TSR_UNIT_BYTES, mt.max_tile_bytes},
		{"memory.max_tile_excluding_gaps", TSR_UNIT_BYTES, mt.max_tile_excluding_gaps_bytes},
		{"memory.oom_tiles", TSR_UNIT_TILES, mt.oom_tiles},
		{"memory.peak_live", TSR_UNIT_BYTES, sat_add(always, peak)},
		{"memory.total", TSR_UNIT_BYTES, mt.total},
		{"memory.total_including_gaps", TSR_UNIT_BYTES, mt.total_including_gaps},
	};
	for (size_t i = 0; !rc && i < sizeof(totals) / sizeof(totals[0]); i++)
		rc = side_add(s, G_TOTAL, totals[i].unit, totals[i].name, NULL, totals[i].value);
	for (unsigned ipu = 0; !rc && ipu < tg->num_ipus; ipu++) {
		char name[64];

		rc = tsr_report_fill_memory_totals(&mt, s->r, (int)ipu);
		if (rc)
			break;
		snprintf(name, sizeof(name), "memory.ipu%u.total", ipu);
		rc = side_add(s, G_TOTAL, TSR_UNIT_BYTES, name, NULL, mt.total);
		snprintf(name, sizeof(name), "memory.ipu%u.total_including_gaps", ipu);
		if (!rc)
			rc = side_add(s, G_TOTAL, TSR_UNIT_BYTES, name, NULL, mt.total_including_gaps);
	}
	return rc;
}

/* Memory per category. */
static int collect_categories(cmp_side *s)
{
	tsr_category_memory *cats = NULL;
	size_t n = 0;
	int rc = tsr_report_list_memory_by_category(&cats, &n, s->r, -1);

	for (size_t i = 0; !rc && i < n; i++)
		rc = side_add(s, G_CATEGORY, TSR_UNIT_BYTES, "memory.category.",
		              tsr_category_name(cats[i].category), cats[i].total);
	free(cats);
	return rc;
}

/* The run's totals: cycles, FLOPs, steps and cycles by step type. */
static int collect_run_totals(cmp_side *s)
{
	tsr_activity act;
	tsr_flops fl;
	size_t n_steps = 0;
	int rc = tsr_report_fill_run_activity(&act, s->r, s->run);

	if (!rc)
		rc = tsr_report_fill_run_flops(&fl, s->r, s->run, false);
	if (rc)
		return rc;
	for (int t = 0; t < TSR_STEP_TYPE_COUNT; t++)
		n_steps += act.steps[t];
	rc = side_run(s, G_TOTAL, TSR_UNIT_CYCLES, "cycles.total", NULL, act.cycles);
	if (!rc)
		rc = side_run(s, G_TOTAL, TSR_UNIT_FLOPS, "flops.total", NULL, fl.flops);
	if (!rc)
		rc = side_run(s, G_TOTAL, TSR_UNIT_COUNT, "steps.total", NULL, n_steps);
	for (int t = 0; !rc && t < TSR_STEP_TYPE_COUNT; t++)
		rc = side_run(s, G_STEP_TYPE, TSR_UNIT_CYCLES, "cycles.step_type.",
		              tsr_step_type_name((tsr_step_type)t), act.step_cycles[t]);
	/* The run's own program: its cycles and steps per run. */
	if (!rc && s->run_labels && s->run_labels[s->run_index]) {
		rc = side_run(s, G_RUN, TSR_UNIT_CYCLES, "cycles.run.", s->run_labels[s->run_index],
		              act.cycles);
		if (!rc)
			rc = side_run(s, G_RUN, TSR_UNIT_COUNT, "steps.run.", s->run_labels[s->run_index],
			              n_steps);
	}
	return rc;
}

/* An array of n pointers from the report's budget (freed by the caller
 * with tsr_free(r, p, n * sizeof(void *))). */
static const char **alloc_names(tsr_report *r, size_t n)
{
	return tsr_alloc(r, n ? n : 1, sizeof(const char *));
}

/* Vertex types: vertex memory, and cycles in the run. */
static int collect_vertex_types(cmp_side *s)
{
	const tsr_vertex_type *vt;
	tsr_vertex_type_cycles *vtc = NULL;
	size_t n, n_vtc = 0;
	const char **names = NULL, **labels = NULL;
	uint64_t *cycles = NULL;
	int rc = tsr_report_get_vertex_types(&vt, &n, s->r);

	if (rc)
		return rc;
	names = alloc_names(s->r, n);
	labels = alloc_names(s->r, n);
	cycles = zalloc(s->r, n, sizeof(*cycles));
	if (!names || !labels || !cycles) {
		rc = TSR_ERR_TOO_LARGE;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = vt[i].name ? vt[i].name : "";
	rc = unique_labels(s, labels, names, n);
	if (!rc && s->has_run)
		rc = tsr_report_list_cycles_by_vertex_type(&vtc, &n_vtc, s->r, (int64_t)s->run);
	for (size_t i = 0; !rc && i < n_vtc; i++)
		if (vtc[i].vertex_type < n)
			cycles[vtc[i].vertex_type] = sat_add(cycles[vtc[i].vertex_type], vtc[i].cycles);
	for (size_t i = 0; !rc && i < n; i++) {
		tsr_vertex_memory vm;

		if (s->want_memory) {
			rc = tsr_report_fill_vertex_type_memory(&vm, s->r, i, -1);
			if (!rc)
				rc = side_add(s, G_VERTEX_TYPE, TSR_UNIT_BYTES, "memory.vertex_type.",
				              labels[i], vm.total);
		}
		if (!rc && s->has_run)
			rc = side_run(s, G_VERTEX_TYPE, TSR_UNIT_CYCLES, "cycles.vertex_type.", labels[i],
			              cycles[i]);
	}
out:
	free(vtc);
	release(s->r, names, (n ? n : 1) * sizeof(*names));
	release(s->r, labels, (n ? n : 1) * sizeof(*labels));
	release(s->r, cycles, (n ? n : 1) * sizeof(*cycles));
	return rc;
}

/* The index of operation `id` in ops[0..n) (ids ascending), or n. */
static size_t find_operation(const tsr_operation *ops, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ops[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ops[lo].id == id ? lo : n;
}

/*
 * Operations by name path. A parent must come before its child (lower id,
 * as the format says), which also rules out cycles; paths are built from
 * the parent's, so each costs its own length.
 */
static int collect_operations(cmp_side *s)
{
	tsr_operation *ops = NULL;
	size_t n = 0;
	const char **paths = NULL, **labels = NULL;
	int rc = tsr_report_list_operations(&ops, &n, s->r, s->has_run ? (int64_t)s->run : -1);

	if (rc)
		return rc;
	paths = alloc_names(s->r, n);
	labels = alloc_names(s->r, n);
	if (!paths || !labels) {
		rc = TSR_ERR_TOO_LARGE;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = ops[i].name ? ops[i].name : "unnamed";
		size_t p = ops[i].parent ? find_operation(ops, i, ops[i].parent) : n;

		if (i && ops[i].id <= ops[i - 1].id) {
			rc = tsr_fail(s->r, TSR_ERR_CORRUPT, "comparing '%s': operation ids are not "
			              "ascending at %u", tsr_report_get_path(s->r), ops[i].id);
			goto out;
		}
		if (ops[i].parent && p == n) {
			rc = tsr_fail(s->r, TSR_ERR_CORRUPT, "comparing '%s': operation %u names parent %u, "
			              "which does not come before it", tsr_report_get_path(s->r), ops[i].id,
			              ops[i].parent);
			goto out;
		}
		if (p < n && strlen(paths[p]) + strlen(name) + 1 > CMP_MAX_PATH) {
			rc = tsr_fail(s->r, TSR_ERR_TOO_LARGE, "comparing '%s': the name path of operation "
			              "%u is longer than %d bytes", tsr_report_get_path(s->r), ops[i].id,
			              CMP_MAX_PATH);
			goto out;
		}
		paths[i] = p < n ? side_concat(s, paths[p], "/", name) : name;
		if (!paths[i]) {
			rc = TSR_ERR_TOO_LARGE;
			goto out;
		}
	}
	rc = unique_labels(s, labels, paths, n);
	for (size_t i = 0; !rc && i < n; i++) {
		if (s->has_run) {
			rc = side_run(s, G_OPERATION, TSR_UNIT_CYCLES, "cycles.operation.", labels[i],
			              ops[i].cycles);
			if (!rc)
				rc = side_run(s, G_OPERATION, TSR_UNIT_FLOPS, "flops.operation.", labels[i],
				              ops[i].flops);
		}
		if (!rc && s->want_memory)
			rc = side_add(s, G_OPERATION, TSR_UNIT_BYTES, "memory.operation.", labels[i],
			              sat_add(ops[i].variable_bytes, ops[i].vertex_bytes));
	}
out:
	free(ops);
	release(s->r, paths, (n ? n : 1) * sizeof(*paths));
	release(s->r, labels, (n ? n : 1) * sizeof(*labels));
	return rc;
}

/* Compute sets: vertex memory, and the cycles of their steps in the run. */
static int collect_compute_sets(cmp_side *s)
{
	const tsr_compute_set *cs;
	const tsr_step *steps = NULL;
	size_t n, n_steps = 0;
	const char **names = NULL, **labels = NULL;
	uint64_t *cycles = NULL;
	int rc = tsr_report_get_compute_sets(&cs, &n, s->r);

	if (!rc && s->has_run)
		rc = tsr_report_get_steps(&steps, &n_steps, s->r, s->run);
	if (rc)
		return rc;
	names = alloc_names(s->r, n);
	labels = alloc_names(s->r, n);
	cycles = zalloc(s->r, n, sizeof(*cycles));
	if (!names || !labels || !cycles) {
		rc = TSR_ERR_TOO_LARGE;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = cs[i].name ? cs[i].name : "";
	for (size_t i = 0; i < n_steps; i++) {
		const tsr_step *st = &steps[i];

		if (st->type == TSR_STEP_ON_TILE_EXECUTE && st->compute_set >= 0 &&
		    (uint64_t)st->compute_set < n)
			cycles[st->compute_set] = sat_add(cycles[st->compute_set], st->cycles);
	}
	rc = unique_labels(s, labels, names, n);
	for (size_t i = 0; !rc && i < n; i++) {
		tsr_vertex_memory vm;

		if (s->has_run)
			rc = side_run(s, G_COMPUTE_SET, TSR_UNIT_CYCLES, "cycles.compute_set.", labels[i],
			              cycles[i]);
		if (!rc && s->want_memory)
			rc = tsr_report_fill_compute_set_memory(&vm, s->r, i, -1);
		if (!rc && s->want_memory)
			rc = side_add(s, G_COMPUTE_SET, TSR_UNIT_BYTES, "memory.compute_set.", labels[i],
			              vm.total);
	}
out:
	release(s->r, names, (n ? n : 1) * sizeof(*names));
	release(s->r, labels, (n ? n : 1) * sizeof(*labels));
	release(s->r, cycles, (n ? n : 1) * sizeof(*cycles));
	return rc;
}

/* Listed variables' bytes. */
static int collect_variables(cmp_side *s)
{
	const tsr_variable *vars;
	const char **names = NULL, **labels = NULL;
	size_t n;
	int rc = tsr_report_get_variables(&vars, &n, s->r);

	if (rc)
		return rc;
	names = alloc_names(s->r, n);
	labels = alloc_names(s->r, n);
	if (!names || !labels) {
		rc = TSR_ERR_TOO_LARGE;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = vars[i].name ? vars[i].name : "";
	rc = unique_labels(s, labels, names, n);
	for (size_t i = 0; !rc && i < n; i++)
		rc = side_add(s, G_VARIABLE, TSR_UNIT_BYTES, "memory.variable.", labels[i],
		              vars[i].bytes);
out:
	release(s->r, names, (n ? n : 1) * sizeof(*names));
	release(s->r, labels, (n ? n : 1) * sizeof(*labels));
	return rc;
}

/* Pushes program `c` unless it is past the end or already marked by this
 * walk: each program is pushed at most once per walk, so the stack never
 * holds more than n entries. */
static void push_once(uint32_t *stack, size_t *depth, uint32_t *mark, uint32_t walk, uint64_t c,
                      size_t n)
{
	if (c >= n || mark[c] == walk)
		return;
	mark[c] = walk;
	stack[(*depth)++] = (uint32_t)c;
}

/*
 * Named programs: the cycles of the run's steps whose program is the
 * named one or anything under it (children, and the body of a Call's
 * function). Each named program's subtree is walked once with an
 * explicit stack, marking nodes with the walk's number so that a node
 * reached twice (a function called twice, or a cycle in a hostile file)
 * counts once; the total work is bounded.
 */
static int collect_programs(cmp_side *s)
{
	const tsr_program *progs;
	const uint32_t *funcs;
	const tsr_step *steps;
	size_t n, n_funcs, n_steps;
	const char **names = NULL, **labels = NULL;
	uint64_t *self = NULL, work = 0;
	uint32_t *mark = NULL, *stack = NULL;
	int rc = tsr_report_get_programs(&progs, &n, s->r);

	if (!rc)
		rc = tsr_report_get_function_programs(&funcs, &n_funcs, s->r);
	if (!rc)
		rc = tsr_report_get_steps(&steps, &n_steps, s->r, s->run);
	if (rc)
		return rc;
	if (n >= UINT32_MAX)
		return tsr_fail(s->r, TSR_ERR_TOO_LARGE, "comparing: %zu programs are too many", n);
	names = alloc_names(s->r, n);
	labels = alloc_names(s->r, n);
	self = zalloc(s->r, n, sizeof(*self));
	mark = zalloc(s->r, n, sizeof(*mark));
	stack = tsr_alloc(s->r, n ? n : 1, sizeof(*stack));
	if (!names || !labels || !self || !mark || !stack) {
		rc = TSR_ERR_TOO_LARGE;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		names[i] = progs[i].name;
	for (size_t i = 0; i < n_steps; i++)
		if (steps[i].program < n)
			self[steps[i].program] = sat_add(self[steps[i].program], steps[i].cycles);
	rc = unique_labels(s, labels, names, n);
	for (size_t p = 0, walk = 0; !rc && p < n; p++) {
		uint64_t total = 0;
		size_t depth = 0;

		if (!labels[p])
			continue;
		walk++; /* < n <= UINT32_MAX - 1: marks never wrap */
		mark[p] = (uint32_t)walk;
		stack[depth++] = (uint32_t)p;
		while (depth) {
			const tsr_program *q = &progs[stack[--depth]];

			total = sat_add(total, self[q - progs]);
			if (++work > CMP_MAX_TREE_WORK) {
				rc = tsr_fail(s->r, TSR_ERR_TOO_LARGE, "comparing '%s': the program tree is "
				              "too large to total by program", tsr_report_get_path(s->r));
				goto out;
			}
			/* Children, then the called function's body. */
			for (size_t k = 0; q->children && k < q->n_children; k++)
				push_once(stack, &depth, mark, (uint32_t)walk, q->children[k], n);
			if (q->function >= 0 && (uint64_t)q->function < n_funcs)
				push_once(stack, &depth, mark, (uint32_t)walk, funcs[q->function], n);
		}
		rc = side_run(s, G_PROGRAM, TSR_UNIT_CYCLES, "cycles.program.", labels[p], total);
	}
out:
	release(s->r, names, (n ? n : 1) * sizeof(*names));
	release(s->r, labels, (n ? n : 1) * sizeof(*labels));
	release(s->r, self, (n ? n : 1) * sizeof(*self));
	release(s->r, mark, (n ? n : 1) * sizeof(*mark));
	release(s->r, stack, (n ? n : 1) * sizeof(*stack));
	return rc;
}

/* --- Choosing the runs ---------------------------------------------------------- */

/*
 * Labels of the side's engine programs (control programs), in engine
 * order: the program's name, "program<i>" when it has none, suffixed as
 * unique_labels does when two share a name. *out is tsr_alloc'd (n
 * entries), the strings in the side's arena.
 */
static int engine_labels(cmp_side *s, const char ***out, size_t *n)
{
	const uint32_t *ctrl;
	const char **names = NULL, **labels = NULL;
	size_t n_ctrl;
	int rc = tsr_report_get_control_programs(&ctrl, &n_ctrl, s->r);

	*out = NULL;
	*n = 0;
	if (rc)
		return rc;
	names = alloc_names(s->r, n_ctrl);
	labels = alloc_names(s->r, n_ctrl);
	if (!names || !labels) {
		rc = TSR_ERR_TOO_LARGE;
		goto out;
	}
	for (size_t i = 0; !rc && i < n_ctrl; i++) {
		char buf[32];

		/* The name the other views show (the model's program's). */
		names[i] = tsr_report_lookup_engine_program_name(s->r, i);
		if (names[i])
			continue;
		snprintf(buf, sizeof(buf), "program%zu", i);
		names[i] = side_concat(s, buf, NULL, NULL);
		if (!names[i])
			rc = TSR_ERR_TOO_LARGE;
	}
	if (!rc)
		rc = unique_labels(s, labels, names, n_ctrl);
	if (!rc) {
		*out = labels;
		*n = n_ctrl;
		labels = NULL;
	}
out:
	release(s->r, names, (n_ctrl ? n_ctrl : 1) * sizeof(*names));
	release(s->r, labels, (n_ctrl ? n_ctrl : 1) * sizeof(*labels));
	return rc;
}

/* Makes room for `n` compared runs on the side. */
static int side_alloc_runs(cmp_side *s, size_t n)
{
	s->runs = tsr_alloc(s->r, n ? n : 1, sizeof(*s->runs));
	s->weights = tsr_alloc(s->r, n ? n : 1, sizeof(*s->weights));
	s->run_labels = alloc_names(s->r, n);
	s->n_runs = n;
	if (!s->runs || !s->weights || !s->run_labels)
		return TSR_ERR_TOO_LARGE;
	return TSR_OK;
}

/* One side's view of the runs: each kept run's program label. */
typedef struct cmp_runs {
	const tsr_run *runs;
	size_t n;
	const char **labels; /* of the engine programs (engine_labels) */
	size_t n_labels;
} cmp_runs;

/* The label of run i's program, or NULL for a program the report does
 * not list (a damaged file). */
static const char *run_label(const cmp_runs *cr, size_t i)
{
	return cr->runs[i].program < cr->n_labels ? cr->labels[cr->runs[i].program] : NULL;
}

/* How many of the side's runs are of the program labelled `label`. */
static size_t count_runs_of(const cmp_runs *cr, const char *label)
{
	size_t k = 0;

	for (size_t i = 0; i < cr->n; i++)
		if (run_label(cr, i) && strcmp(run_label(cr, i), label) == 0)
			k++;
	return k;
}

/* Whether the other side has a run of the program labelled `label`. */
static bool has_program(const cmp_runs *cr, const char *label)
{
	return count_runs_of(cr, label) > 0;
}

/*
 * Chooses one side's runs. By program (run == TSR_RUNS_BY_PROGRAM):
 * every kept run of each program in `wanted` (labels), each weighted by
 * 1 / its program's runs, so the execution figures are those of one
 * average run of each program. Otherwise run `run` (-1: the last kept)
 * among the report's runs, or with `program` among that program's runs.
 */
static int side_pick_runs(cmp_side *s, const cmp_runs *cr, int64_t run, const char *program,
                          const char *const *wanted, size_t n_wanted)
{
	size_t k = 0, n = 0;
	int rc;

	if (run < TSR_RUNS_BY_PROGRAM)
		return tsr_fail(s->r, TSR_ERR_INVALID_ARGUMENT, "comparing: run %lld is not a run",
		                (long long)run);
	if (run == TSR_RUNS_BY_PROGRAM) {
		for (size_t w = 0; w < n_wanted; w++)
			n += count_runs_of(cr, wanted[w]);
		rc = side_alloc_runs(s, n);
		for (size_t w = 0; !rc && w < n_wanted; w++) {
			size_t of = count_runs_of(cr, wanted[w]);

			for (size_t i = 0; i < cr->n; i++) {
				if (!run_label(cr, i) || strcmp(run_label(cr, i), wanted[w]) != 0)
					continue;
				s->runs[k] = i;
				s->weights[k] = of > 1 ? 1.0 / (double)of : 1.0;
				s->run_labels[k++] = wanted[w];
			}
		}
		return rc;
	}
	if (program) {
		size_t of = count_runs_of(cr, program), want;

		if (of == 0)
			return tsr_fail(s->r, TSR_ERR_OUT_OF_RANGE,
			                "comparing '%s': no run of a program named '%s' is kept",
			                tsr_report_get_path(s->r), program);
		if (run >= 0 && (uint64_t)run >= of)
			return tsr_fail(s->r, TSR_ERR_OUT_OF_RANGE,
			                "comparing '%s': run %lld of program '%s', which has %zu",
			                tsr_report_get_path(s->r), (long long)run, program, of);
		want = run < 0 ? of - 1 : (size_t)run;
		rc = side_alloc_runs(s, 1);
		for (size_t i = 0; !rc && i < cr->n; i++) {
			if (!run_label(cr, i) || strcmp(run_label(cr, i), program) != 0)
				continue;
			if (k++ == want) {
				s->runs[0] = i;
				break;
			}
		}
	} else {
		if (run >= 0 && (uint64_t)run >= cr->n)
			return tsr_fail(s->r, TSR_ERR_OUT_OF_RANGE, "comparing '%s': run %lld of %zu",
			                tsr_report_get_path(s->r), (long long)run, cr->n);
		if (cr->n == 0)
			return side_alloc_runs(s, 0);
		rc = side_alloc_runs(s, 1);
		if (!rc)
			s->runs[0] = run < 0 ? cr->n - 1 : (size_t)run;
	}
	if (!rc) {
		s->weights[0] = 1.0;
		s->run_labels[0] = run_label(cr, s->runs[0]);
	}
	return rc;
}

/* Every figure of one report (see the list at the top): the memory
 * figures once, the execution figures of each chosen run, merged. */
static int side_collect(cmp_side *s)
{
	/* In order, each with the fraction of a pass done when it ends
	 * (from the times on a large report, tests/bench/report-open.c) and
	 * what the progress callback is told; `run`: only with a run;
	 * `memory`: only in the first pass (nothing of a run). */
	static const struct {
		int (*collect)(cmp_side *s);
		bool run, memory;
		double end;
		const char *message;
	} parts[] = {
		{collect_totals, false, true, 0.22, "comparing memory and liveness totals"},
		{collect_run_totals, true, false, 0.47, "comparing execution totals"},
		{collect_categories, false, true, 0.472, "comparing memory categories"},
		{collect_vertex_types, false, false, 0.51, "comparing vertex types"},
		{collect_operations, false, false, 0.86, "comparing operations"},
		{collect_compute_sets, false, false, 0.92, "comparing compute sets"},
		{collect_variables, false, true, 0.995, "comparing variables"},
		{collect_programs, true, false, 1.00, "comparing programs"},
	};
	tsr_progress_frame frame;
	size_t passes = s->n_runs ? s->n_runs : 1;
	int rc = TSR_OK;

	/* A frame of its own: its parts share the caller's part for this side. */
	if (tsr_progress_push(s->r->ps, &frame, "comparing reports"))
		return tsr_fail_cancelled(s->r);
	for (size_t pass = 0; !rc && pass < passes; pass++) {
		double at = 0.0;

		s->want_memory = pass == 0;
		s->has_run = s->n_runs > 0;
		s->run_index = pass;
		s->run = s->n_runs ? s->runs[pass] : 0;
		s->weight = s->n_runs ? s->weights[pass] : 1.0;
		for (size_t i = 0; !rc && i < sizeof(parts) / sizeof(parts[0]); i++) {
			double from = ((double)pass + at) / (double)passes;
			double to = ((double)pass + parts[i].end) / (double)passes;

			at = parts[i].end;
			if ((parts[i].run && !s->has_run) || (parts[i].memory && !s->want_memory))
				continue;
			if (tsr_progress_step(s->r->ps, from, to, parts[i].message))
				rc = tsr_fail_cancelled(s->r);
			else
				rc = parts[i].collect(s);
		}
	}
	if (!rc)
		side_merge(s);
	tsr_progress_pop(s->r->ps, &frame, !rc);
	return rc;
}

/* A side's runs and the labels of its engine programs (a report without
 * runs has none). */
static int side_runs(cmp_side *s, cmp_runs *cr)
{
	int rc = tsr_report_get_runs(&cr->runs, &cr->n, s->r);

	cr->labels = NULL;
	cr->n_labels = 0;
	if (rc == TSR_ERR_NO_DATA) {
		cr->runs = NULL;
		cr->n = 0;
		return TSR_OK;
	}
	if (!rc && cr->n)
		rc = engine_labels(s, &cr->labels, &cr->n_labels);
	return rc;
}

/* --- Matching and the result ----------------------------------------------------- */

/* --- Verdicts ----------------------------------------------------------------------- */

/* Room for a gaps counterpart's name: "memory.ipu<u32>.total_including_gaps". */
#define CMP_COUNTERPART_MAX 64

/* The direction of each kind of metric, by the first part of its name. */
static const struct {
	const char *prefix;
	tsr_metric_direction direction;
} directions[] = {
	{"memory.", TSR_DIRECTION_LOWER_IS_BETTER},
	{"cycles.", TSR_DIRECTION_LOWER_IS_BETTER},
	{"steps.", TSR_DIRECTION_LOWER_IS_BETTER},
	{"flops.", TSR_DIRECTION_NEITHER},
	{"graph.", TSR_DIRECTION_NEITHER},
};

/* Which way `metric` is better (compare.h). */
TSR_API tsr_metric_direction tsr_metric_get_direction(const char *metric)
{
	if (!metric)
		return TSR_DIRECTION_UNKNOWN;
	for (size_t i = 0; i < sizeof(directions) / sizeof(directions[0]); i++) {
		size_t len = strlen(directions[i].prefix);

		/* The kind and a name after it. */
		if (strncmp(metric, directions[i].prefix, len) == 0 && metric[len])
			return directions[i].direction;
	}
	return TSR_DIRECTION_UNKNOWN;
}

/* Writes into out[size] the name of the figure on the other side of gaps
 * from `metric` (compare.h's pairs); false when it has none. */
static bool gaps_counterpart(char *out, size_t size, const char *metric)
{
	static const char *const pairs[][2] = {
		{"memory.total", "memory.total_including_gaps"},
		{"memory.max_tile_excluding_gaps", "memory.max_tile"},
	};
	const char *p;
	unsigned long ipu;
	char *end;

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++)
		for (int k = 0; k < 2; k++)
			if (strcmp(metric, pairs[i][k]) == 0)
				return snprintf(out, size, "%s", pairs[i][!k]) < (int)size;
	/* memory.ipu<i>.total and memory.ipu<i>.total_including_gaps, <i>
	 * as collect_totals writes it (decimal, no sign or leading zero). */
	if (strncmp(metric, "memory.ipu", 10) != 0)
		return false;
	p = metric + 10;
	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return false;
	ipu = strtoul(p, &end, 10);
	if (ipu > UINT32_MAX)
		return false;
	if (strcmp(end, ".total") == 0)
		return snprintf(out, size, "memory.ipu%lu.total_including_gaps", ipu) < (int)size;
	if (strcmp(end, ".total_including_gaps") == 0)
		return snprintf(out, size, "memory.ipu%lu.total", ipu) < (int)size;
	return false;
}

/* The sign of a delta's move: -1 down, 0 none, 1 up (a missing side
 * counting 0). */
static int move_of(const tsr_delta *d)
{
	uint64_t b = d->in_base ? d->base : 0, n = d->in_new ? d->new_value : 0;

	return n < b ? -1 : n > b ? 1 : 0;
}

/* The one verdict rule (compare.h). */
TSR_API tsr_verdict tsr_delta_get_verdict(const tsr_delta *d, const tsr_delta *counterpart)
{
	int move;

	if (!d || !d->metric)
		return TSR_VERDICT_CHANGED;
	move = move_of(d);
	if (move == 0 && d->in_base == d->in_new)
		return TSR_VERDICT_SAME;
	if (tsr_metric_get_direction(d->metric) != TSR_DIRECTION_LOWER_IS_BETTER || move == 0)
		return TSR_VERDICT_CHANGED;
	if (counterpart && counterpart->in_base && counterpart->in_new && d->in_base && d->in_new &&
	    move_of(counterpart) == -move)
		return TSR_VERDICT_CHANGED;
	return move < 0 ? TSR_VERDICT_BETTER : TSR_VERDICT_WORSE;
}

/* The diff's word for a verdict. */
TSR_API const char *tsr_verdict_get_name(tsr_verdict verdict)
{
	static const char *const names[] = {"same", "better", "worse", "changed"};

	return (unsigned)verdict < sizeof(names) / sizeof(names[0]) ? names[verdict] : "";
}

/*
 * The result from the matched entries, given in name order (strcmp): one
 * block of deltas, one of names and the lookup index. Names were unique
 * per side, and a metric in both sides is one entry, so names are unique
 * here too. The output order (group, then name) is a stable counting
 * sort of the entries by group; the lookup index is the name order, so
 * neither needs a sort of its own.
 */
static int build_result(tsr_comparison **out, tsr_report *r, const cmp_entry *e, size_t n)
{
	tsr_comparison *cmp = tsb_calloc(1, sizeof(*cmp));
	size_t bytes = 0, next[G_COUNT] = {0};
	char *p;

	for (size_t i = 0; i < n; i++)
		bytes += strlen(e[i].metric) + 1; /* each below the cap: no overflow */
	if (!cmp)
		goto nomem;
	cmp->deltas = tsb_calloc(n ? n : 1, sizeof(*cmp->deltas));
	cmp->by_name = tsb_calloc(n ? n : 1, sizeof(*cmp->by_name));
	cmp->names = tsb_malloc(bytes ? bytes : 1);
	if (!cmp->deltas || !cmp->by_name || !cmp->names)
		goto nomem;
	/* next[g]: where group g's first delta goes, then its next one. */
	for (size_t i = 0; i < n; i++) {
		assert(e[i].group < G_COUNT);
		if (e[i].group + 1 < G_COUNT)
			next[e[i].group + 1]++;
	}
	for (unsigned g = 1; g < G_COUNT; g++)
		next[g] += next[g - 1];
	p = cmp->names;
	for (size_t i = 0; i < n; i++) {
		size_t at = next[e[i].group]++;
		tsr_delta *d = &cmp->deltas[at];
		size_t len = strlen(e[i].metric) + 1;

		memcpy(p, e[i].metric, len);
		d->metric = p;
		p += len;
		d->unit = e[i].unit;
		d->in_base = e[i].in_base;
		d->in_new = e[i].in_new;
		d->base = e[i].base;
		d->new_value = e[i].new_value;
		d->change = sat_diff(d->new_value, d->base);
		d->percent = d->base ? (double)d->change / (double)d->base * 100.0 : 0.0;
		cmp->by_name[i] = at;
	}
	cmp->n = n;
	for (size_t i = 0; i < n; i++) {
		char other[CMP_COUNTERPART_MAX];
		const tsr_delta *c = NULL;

		if (gaps_counterpart(other, sizeof(other), cmp->deltas[i].metric))
			c = tsr_comparison_lookup_delta(cmp, other);
		cmp->deltas[i].verdict = tsr_delta_get_verdict(&cmp->deltas[i], c);
	}
	*out = cmp;
	return TSR_OK;
nomem:
	tsr_comparison_free(cmp);
	return tsr_fail(r, TSR_ERR_NO_MEMORY, "comparing: out of host memory");
}

/*
 * Matches the two sides' figures by metric name and builds the result.
 * side_merge left each side's items sorted by metric (strcmp) and unique,
 * so one walk along both lists pairs them, as in a merge, and meets the
 * metrics in name order. A metric in both takes its group and unit from
 * the base.
 */
static int match(tsr_comparison **out, cmp_side *base, cmp_side *nw)
{
	size_t cap = base->n_items + nw->n_items, n = 0, i = 0, j = 0;
	cmp_entry *e = tsr_alloc(base->r, cap ? cap : 1, sizeof(*e));
	int rc;

	if (!e)
		return TSR_ERR_TOO_LARGE; /* recorded by tsr_alloc */
	while (i < base->n_items || j < nw->n_items) {
		const cmp_item *b = i < base->n_items ? &base->items[i] : NULL;
		const cmp_item *x = j < nw->n_items ? &nw->items[j] : NULL;
		int c = !b ? 1 : !x ? -1 : strcmp(b->metric, x->metric);

		if (c < 0)
			e[n++] = (cmp_entry){b->metric, b->group, b->unit, true, false, b->value, 0};
		else if (c > 0)
			e[n++] = (cmp_entry){x->metric, x->group, x->unit, false, true, 0, x->value};
		else
			e[n++] = (cmp_entry){b->metric, b->group, b->unit, true, true, b->value, x->value};
		i += c <= 0;
		j += c >= 0;
	}
	rc = build_result(out, base->r, e, n);
	tsr_free(base->r, e, (cap ? cap : 1) * sizeof(*e));
	return rc;
}

/* --- Public functions ---------------------------------------------------------------- */

/* The program list of the result: `n` entries of names (copied) and run
 * counts. */
static int attach_programs(tsr_comparison *cmp, tsr_report *r, const char *const *base_names,
                           const char *const *new_names, const size_t *base_runs,
                           const size_t *new_runs, size_t n)
{
	size_t bytes = 0;
	char *p;

	for (size_t i = 0; i < n; i++)
		bytes += (base_names[i] ? strlen(base_names[i]) + 1 : 0) +
		         (new_names[i] ? strlen(new_names[i]) + 1 : 0);
	cmp->programs = tsb_calloc(n ? n : 1, sizeof(*cmp->programs));
	cmp->prog_names = tsb_malloc(bytes ? bytes : 1);
	if (!cmp->programs || !cmp->prog_names)
		return tsr_fail(r, TSR_ERR_NO_MEMORY, "comparing: out of host memory");
	p = cmp->prog_names;
	for (size_t i = 0; i < n; i++) {
		tsr_compared_program *cp = &cmp->programs[i];
		const char *names[2] = {base_names[i], new_names[i]};
		const char **slots[2] = {&cp->base_name, &cp->new_name};

		for (int k = 0; k < 2; k++) {
			size_t len;

			*slots[k] = NULL;
			if (!names[k])
				continue;
			len = strlen(names[k]) + 1;
			memcpy(p, names[k], len);
			*slots[k] = p;
			p += len;
		}
		cp->base_runs = base_runs[i];
		cp->new_runs = new_runs[i];
	}
	cmp->n_programs = n;
	return TSR_OK;
}

/* A list of the programs with kept runs, for a message: "a, b" in the
 * side's arena (NULL when out of memory). */
static const char *list_programs(cmp_side *s, const cmp_runs *cr)
{
	const char *list = "";

	for (size_t i = 0; list && i < cr->n_labels; i++)
		if (count_runs_of(cr, cr->labels[i]))
			list = side_concat(s, list, *list ? ", " : "", cr->labels[i]);
	return list && *list ? list : "none";
}

/*
 * Compares two reports (see compare.h): chooses each side's runs (by
 * program, or positionally as tsr_compare always did), collects both
 * sides' figures and matches them.
 */
TSR_API int tsr_compare_programs(tsr_comparison **out, tsr_report *base, tsr_report *new_report,
                                 const tsr_compare_options *options)
{
	const tsr_compare_options defaults = TSR_COMPARE_OPTIONS_INIT;
	const tsr_compare_options *o = options ? options : &defaults;
	cmp_side b = {0}, nw = {0};
	cmp_runs crb = {0}, crn = {0};
	tsr_progress_state *new_ps;
	tsr_progress_frame frame;
	const char **wanted = NULL, **bn = NULL, **nn = NULL;
	size_t n_wanted = 0, cap_wanted = 0, *bc = NULL, *nc = NULL, n_rec = 0;
	int64_t br, nr;
	bool by_program;
	int rc = TSR_OK;

	if (out)
		*out = NULL;
	if (!out || !base || !new_report)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT,
		                          "tsr_compare_programs: NULL output or report");
	if (o->version < 1)
		return tsr_set_last_error(TSR_ERR_INVALID_ARGUMENT,
		                          "tsr_compare_programs: options version %u (use "
		                          "TSR_COMPARE_OPTIONS_INIT)", o->version);
	br = o->base_run;
	nr = o->new_run;
	by_program = br == TSR_RUNS_BY_PROGRAM && nr == TSR_RUNS_BY_PROGRAM;
	if (!by_program) {
		br = br == TSR_RUNS_BY_PROGRAM ? -1 : br;
		nr = nr == TSR_RUNS_BY_PROGRAM ? -1 : nr;
	}
	b.r = base;
	nw.r = new_report;
	/* Both reports' progress goes to the base's callback for this call
	 * (compare.h); so does a cancel heard on either connection. */
	new_ps = new_report->ps;
	new_report->ps = base->ps;
	if (tsr_progress_push(base->ps, &frame, "comparing reports") ||
	    tsr_progress_step(base->ps, 0.0, 0.42, "reading the base report"))
		rc = tsr_fail_cancelled(base);
	if (!rc)
		rc = side_runs(&b, &crb);
	if (!rc)
		rc = side_runs(&nw, &crn);
	/* The programs compared by name: the one asked for, or every one
	 * with runs in both reports, in the base's engine order. */
	if (!rc && by_program && crb.n && crn.n) {
		cap_wanted = crb.n_labels + 1;
		wanted = alloc_names(base, cap_wanted);
		if (!wanted)
			rc = TSR_ERR_TOO_LARGE;
		else if (o->program) {
			cmp_side *lacking = !has_program(&crb, o->program) ? &b
			                    : !has_program(&crn, o->program) ? &nw : NULL;

			if (lacking)
				rc = tsr_fail(lacking->r, TSR_ERR_OUT_OF_RANGE,
				              "comparing '%s': no run of a program named '%s' is kept (programs "
				              "with runs: %s)", tsr_report_get_path(lacking->r), o->program,
				              list_programs(lacking, lacking == &b ? &crb : &crn));
			else
				wanted[n_wanted++] = o->program;
		} else {
			for (size_t i = 0; i < crb.n_labels; i++)
				if (count_runs_of(&crb, crb.labels[i]) && has_program(&crn, crb.labels[i]))
					wanted[n_wanted++] = crb.labels[i];
		}
	}
	/* Nothing in common (or a report without runs): the last runs, as a
	 * positional comparison, so the report that has runs still shows its
	 * execution figures. */
	if (!rc && by_program && !o->program && n_wanted == 0) {
		by_program = false;
		br = nr = -1;
	}
	if (!rc && by_program && o->program && (!crb.n || !crn.n))
		rc = tsr_fail(!crb.n ? base : new_report, TSR_ERR_OUT_OF_RANGE,
		              "comparing '%s': program '%s' asked for; the report keeps no runs",
		              tsr_report_get_path(!crb.n ? base : new_report), o->program);
	if (!rc)
		rc = side_pick_runs(&b, &crb, by_program ? TSR_RUNS_BY_PROGRAM : br,
		                    by_program ? NULL : o->program, wanted, n_wanted);
	if (!rc)
		rc = side_pick_runs(&nw, &crn, by_program ? TSR_RUNS_BY_PROGRAM : nr,
		                    by_program ? NULL : o->program, wanted, n_wanted);
	if (!rc)
		rc = side_collect(&b);
	if (!rc && tsr_progress_step(base->ps, 0.42, 0.83, "reading the new report"))
		rc = tsr_fail_cancelled(new_report);
	if (!rc)
		rc = side_collect(&nw);
	if (!rc && tsr_progress_step(base->ps, 0.83, 1.0, "matching the figures"))
		rc = tsr_fail_cancelled(base);
	if (!rc)
		rc = match(out, &b, &nw);
	/* What was compared with what. */
	if (!rc) {
		size_t cap = n_wanted + 1;

		bn = alloc_names(base, cap);
		nn = alloc_names(base, cap);
		bc = zalloc(base, cap, sizeof(*bc));
		nc = zalloc(base, cap, sizeof(*nc));
		if (!bn || !nn || !bc || !nc) {
			rc = TSR_ERR_TOO_LARGE;
		} else if (by_program) {
			for (size_t i = 0; i < n_wanted; i++) {
				bn[i] = nn[i] = wanted[i];
				bc[i] = count_runs_of(&crb, wanted[i]);
				nc[i] = count_runs_of(&crn, wanted[i]);
			}
			n_rec = n_wanted;
		} else if (b.n_runs || nw.n_runs) {
			bn[0] = b.n_runs ? b.run_labels[0] : NULL;
			nn[0] = nw.n_runs ? nw.run_labels[0] : NULL;
			bc[0] = b.n_runs;
			nc[0] = nw.n_runs;
			n_rec = 1;
		}
		if (!rc)
			rc = attach_programs(*out, base, bn, nn, bc, nc, n_rec);
		if (rc) {
			tsr_comparison_free(*out);
			*out = NULL;
		}
		release(base, bn, cap * sizeof(*bn));
		release(base, nn, cap * sizeof(*nn));
		release(base, bc, cap * sizeof(*bc));
		release(base, nc, cap * sizeof(*nc));
	}
	tsr_progress_pop(base->ps, &frame, !rc);
	new_report->ps = new_ps;
	release(base, wanted, (cap_wanted ? cap_wanted : 1) * sizeof(*wanted));
	release(base, crb.labels, (crb.n_labels ? crb.n_labels : 1) * sizeof(*crb.labels));
	release(new_report, crn.labels, (crn.n_labels ? crn.n_labels : 1) * sizeof(*crn.labels));
	side_free(&b);
	side_free(&nw);
	return rc;
}

/* The positional form (compare.h): run `base_run` / `new_run` of each
 * report, -1 the last. */
TSR_API int tsr_compare(tsr_comparison **out, tsr_report *base, tsr_report *new_report,
                        int64_t base_run, int64_t new_run)
{
	tsr_compare_options o = TSR_COMPARE_OPTIONS_INIT;

	if (base_run < -1 || new_run < -1) {
		if (out)
			*out = NULL;
		if (base && base_run < -1)
			return tsr_fail(base, TSR_ERR_INVALID_ARGUMENT, "comparing: run %lld is not a run",
			                (long long)base_run);
		if (new_report && new_run < -1)
			return tsr_fail(new_report, TSR_ERR_INVALID_ARGUMENT,
			                "comparing: run %lld is not a run", (long long)new_run);
	}
	o.base_run = base_run;
	o.new_run = new_run;
	return tsr_compare_programs(out, base, new_report, &o);
}

/* Frees a comparison (NULL is fine). */
TSR_API void tsr_comparison_free(tsr_comparison *cmp)
{
	if (!cmp)
		return;
	free(cmp->programs);
	free(cmp->prog_names);
	free(cmp->deltas);
	free(cmp->by_name);
	free(cmp->names);
	free(cmp);
}

/* How many deltas (0 for NULL). */
TSR_API size_t tsr_comparison_get_count(const tsr_comparison *cmp)
{
	return cmp ? cmp->n : 0;
}

/* Delta i in output order, or NULL past the end. */
TSR_API const tsr_delta *tsr_comparison_get_delta(const tsr_comparison *cmp, size_t i)
{
	return cmp && i < cmp->n ? &cmp->deltas[i] : NULL;
}

/* The delta of `metric` by binary search over the name index, or NULL. */
TSR_API const tsr_delta *tsr_comparison_lookup_delta(const tsr_comparison *cmp, const char *metric)
{
	size_t lo = 0, hi;

	if (!cmp || !metric)
		return NULL;
	hi = cmp->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(cmp->deltas[cmp->by_name[mid]].metric, metric);

		if (c == 0)
			return &cmp->deltas[cmp->by_name[mid]];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* How many programs were compared (0 for NULL). */
TSR_API size_t tsr_comparison_get_program_count(const tsr_comparison *cmp)
{
	return cmp ? cmp->n_programs : 0;
}

/* Compared program i, or NULL past the end. */
TSR_API const tsr_compared_program *tsr_comparison_get_program(const tsr_comparison *cmp,
                                                               size_t i)
{
	return cmp && i < cmp->n_programs ? &cmp->programs[i] : NULL;
}

/* qsort order of entries by metric name, build_result's order. */
static int cmp_entries_by_metric(const void *a, const void *b)
{
	return strcmp(((const cmp_entry *)a)->metric, ((const cmp_entry *)b)->metric);
}

/*
 * A comparison of figures gathered elsewhere (history-private.h): the
 * history store's run against a report. Only metric, unit, in_base,
 * in_new, base and new_value of `figures` are read (metrics unique); the
 * result is made, ordered and judged as tsr_compare's.
 */
int tsr_comparison_new_from_figures(tsr_comparison **out, const tsr_delta *figures, size_t n)
{
	cmp_entry *e = tsb_calloc(n ? n : 1, sizeof(*e));
	int rc;

	*out = NULL;
	if (!e)
		return tsr_set_last_error(TSR_ERR_NO_MEMORY, "comparing: out of host memory");
	for (size_t i = 0; i < n; i++)
		e[i] = (cmp_entry){figures[i].metric, (unsigned)tsr_metric_get_group(figures[i].metric),
		                   figures[i].unit,  figures[i].in_base,
		                   figures[i].in_new, figures[i].base,
		                   figures[i].new_value};
	qsort(e, n, sizeof(*e), cmp_entries_by_metric);
	rc = build_result(out, NULL, e, n);
	free(e);
	return rc;
}
