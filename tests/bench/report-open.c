/*
 * Benchmark: opening a large profile.pop with reportlib and reading the
 * memory summary (totals and categories, all tiles and one IPU), the
 * variables, the liveness steps, and what PRAGMA quick_check would cost
 * at open (the reason reportlib does not run it). The report is written
 * by the runtime's own writer from a synthetic graph profile in the shape
 * of a large model (compute sets over ranges of tiles, some with every
 * tile different; variables over ranges of tiles; a long liveness order;
 * one long run). Then the progress callback: how often it is called,
 * how long each part of the open takes (against the fractions reported),
 * and how soon tsr_report_open and tsr_compare return after the callback
 * cancels them half way.
 *
 * TSR_BENCH_SIZE=<compute sets>x<tiles per IPU>x<IPUs> (default
 * 20000x1472x4, the issue 8 scale). Prints figures; never fails on time.
 * `bench-report-open --write PATH` only writes the report to PATH (for
 * the Graph Analyser's benchmark, which opens the same large report).
 */
#include <math.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "autoreport/autoreport-private.h"

#include <tilescope/compare.h>
#include <tilescope/profile.h>
#include <tilescope/report.h>
#include <tilescope/summary.h>

#define FLAT 32

/* Every allocation of the synthetic profile, freed at the end. */
static void **keep;
static size_t n_keep, cap_keep;
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void *zalloc(size_t bytes)
{
	void *p = calloc(1, bytes ? bytes : 1);

	if (!p || (n_keep == cap_keep &&
	           !(keep = realloc(keep, (cap_keep = cap_keep ? 2 * cap_keep : 4096) *
	                                      sizeof(*keep))))) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	keep[n_keep++] = p;
	return p;
}

static char *name(const char *pre, size_t i, const char *post)
{
	char *p = zalloc(72);

	snprintf(p, 72, "%s%zu%s", pre, i, post);
	return p;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Shared per-tile pools: tile numbers, varied values, flat values. */
static uint32_t *tiles_pool;
static uint64_t *varied_pool, *flat_pool[FLAT];
static uint32_t num_tiles;

/* Values over tiles [lo, lo + n), all equal or all different. */
static tsi_tile_values span(uint32_t lo, uint32_t n, bool varied)
{
	tsi_tile_values tv = {n, tiles_pool + lo,
	                      varied ? varied_pool + rnd() % num_tiles : flat_pool[rnd() % FLAT]};

	return tv;
}

/* A random range of tiles: *lo, and the count. */
static uint32_t range(uint32_t *lo, uint32_t max)
{
	uint32_t n = 1 + (uint32_t)(rnd() % max);

	*lo = (uint32_t)(rnd() % (num_tiles - n + 1));
	return n;
}

/* The synthetic graph profile and its run. */
static void build(tsi_graph_profile *gp, tsi_run_profile *run, size_t n_cs, unsigned tpi,
                  unsigned ipus)
{
	size_t n_vt = 300, n_ex = n_cs / 2, n_vars = 5 * n_cs, n_live = 10 * n_cs,
	       n_steps = 3 * n_cs, n_prog = n_cs + n_ex + 1;
	tsi_compute_set_profile *cs;
	tsi_vertex_type_profile *vt;
	tsi_vertex_memory *bycs, *byvt;
	tsi_exchange_profile *ex;
	tsi_lowered_program *progs;
	tsi_variable_profile *vars;
	tsi_liveness_step *live;
	tsi_tile_memory *bt;
	tsi_step *steps;
	uint32_t *trace, *children, *sync;
	uint64_t *bycat;
	size_t rows = (size_t)TSI_MEM_CATEGORY_COUNT * TSI_REGION_COUNT * 2;

	if (tsi_target_ipu(&gp->target, TSI_IPU_MK2, ipus, tpi) != TSI_OK) {
		fprintf(stderr, "bad target size\n");
		exit(1);
	}
	num_tiles = gp->target.num_tiles;
	tiles_pool = zalloc(num_tiles * sizeof(*tiles_pool));
	varied_pool = zalloc(2 * (size_t)num_tiles * sizeof(*varied_pool));
	for (uint32_t t = 0; t < num_tiles; t++)
		tiles_pool[t] = t;
	for (size_t i = 0; i < 2 * (size_t)num_tiles; i++)
		varied_pool[i] = 1000 + rnd() % 4000;
	for (int k = 0; k < FLAT; k++) {
		flat_pool[k] = zalloc(num_tiles * sizeof(*flat_pool[k]));
		for (uint32_t t = 0; t < num_tiles; t++)
			flat_pool[k][t] = 32 + (uint64_t)k * 61;
	}
	gp->replication_factor = 1;
	gp->min_sync_delay = 36;
	sync = zalloc(tpi * sizeof(*sync));
	for (unsigned t = 0; t < tpi; t++)
		sync[t] = t / 46;
	gp->relative_sync_delay_by_tile = sync;
	gp->num_compute_sets = n_cs;
	gp->num_vars = n_vars;

	vt = zalloc(n_vt * sizeof(*vt));
	byvt = zalloc(n_vt * sizeof(*byvt));
	for (size_t i = 0; i < n_vt; i++) {
		vt[i].name = name("poplin::ConvPartial1x1Out<half,float,true,false>#", i, "");
		vt[i].state_bytes = 16;
		vt[i].code_bytes = 700;
		vt[i].instances = 5000;
		byvt[i].code_bytes = span(0, num_tiles, false);
		byvt[i].vertex_data_bytes = span(0, num_tiles, false);
		byvt[i].total_bytes = span(0, num_tiles, false);
	}
	gp->vertex_types = vt;
	gp->by_vertex_type = byvt;
	gp->n_vertex_types = n_vt;

	cs = zalloc(n_cs * sizeof(*cs));
	bycs = zalloc(n_cs * sizeof(*bycs));
	for (size_t i = 0; i < n_cs; i++) {
		uint32_t lo, n = range(&lo, num_tiles);
		bool varied = rnd() % 100 < 30;
		uint32_t *types = zalloc(2 * sizeof(*types));
		uint64_t *counts = zalloc(2 * sizeof(*counts)), *active = zalloc(2 * sizeof(*active));

		types[0] = (uint32_t)(i % n_vt);
		types[1] = (uint32_t)((i + 7) % n_vt);
		counts[0] = counts[1] = n;
		active[0] = active[1] = 2000ull * n;
		cs[i].name = name("model/block", i, "/conv/Conv_1/Convolve");
		cs[i].n_types = 2;
		cs[i].vertex_types = types;
		cs[i].vertex_counts = counts;
		cs[i].active_cycles_by_type = active;
		cs[i].cycles_by_tile = span(lo, n, varied);
		cs[i].active_cycles_by_tile = span(lo, n, varied);
		cs[i].flops = 4000ull * n;
		bycs[i].code_bytes = span(lo, n, false);
		bycs[i].vertex_data_bytes = span(lo, n, false);
		bycs[i].total_bytes = span(lo, n, false);
	}
	gp->compute_sets = cs;
	gp->by_compute_set = bycs;
	gp->n_compute_sets = n_cs;

	ex = zalloc(n_ex * sizeof(*ex));
	for (size_t i = 0; i < n_ex; i++) {
		uint32_t lo, n = range(&lo, num_tiles);

		ex[i].name = name("model/block", i, "/conv/ExchangePre");
		ex[i].bytes_received = span(lo, n, false);
		ex[i].bytes_sent = span(lo, n, false);
		ex[i].cycles = span(lo, n, false);
	}
	gp->exchanges[TSI_EXCHANGE_INTERNAL] = ex;
	gp->n_exchanges[TSI_EXCHANGE_INTERNAL] = n_ex;

	progs = zalloc(n_prog * sizeof(*progs));
	children = zalloc((n_prog - 1) * sizeof(*children));
	/* The trace below runs every program twice, so the control program
	 * is a Repeat of 2 over them all (a Sequence would contradict the
	 * trace, and the Execution Trace's flame view would refuse it). */
	progs[0].type = TSI_LP_REPEAT;
	progs[0].repeat_count = n_steps / (n_prog - 1);
	progs[0].children = children;
	progs[0].n_children = (uint32_t)(n_prog - 1);
	progs[0].compute_set = progs[0].exchange = progs[0].function = -1;
	for (size_t i = 1; i < n_prog; i++) {
		tsi_lowered_program *p = &progs[i];

		children[i - 1] = (uint32_t)i;
		p->compute_set = p->exchange = p->function = -1;
		if (i <= n_cs) {
			p->type = TSI_LP_ON_TILE_EXECUTE;
			p->compute_set = (int32_t)(i - 1);
		} else {
			p->type = TSI_LP_DO_EXCHANGE;
			p->exchange = (int32_t)(i - 1 - n_cs);
			p->memory_by_instruction.total = 96;
		}
	}
	gp->programs = progs;
	gp->n_programs = n_prog;
	gp->control_programs = zalloc(sizeof(uint32_t));
	gp->n_control_programs = 1;

	bt = zalloc(num_tiles * sizeof(*bt));
	for (uint32_t t = 0; t < num_tiles; t++) {
		bt[t].region[TSI_REGION_INTERLEAVED] = 100000 + rnd() % 1000;
		bt[t].region[TSI_REGION_NON_INTERLEAVED] = 300000 + rnd() % 1000;
		for (int k = 0; k < TSI_REGION_COUNT; k++)
			bt[t].region_including_gaps[k] = bt[t].region[k] + (bt[t].region[k] ? 512 : 0);
		bt[t].total = bt[t].region[0] + bt[t].region[1];
		bt[t].total_including_gaps = bt[t].total + 4096;
	}
	gp->by_tile = bt;
	bycat = zalloc(rows * num_tiles * sizeof(*bycat));
	for (size_t row = 0; row < rows; row += 2)
		for (uint32_t t = 0; t < num_tiles; t++)
			bycat[row * num_tiles + t] = 500 + (row % 4 ? rnd() % 2000 : 0);
	gp->by_category = bycat;

	vars = zalloc(n_vars * sizeof(*vars));
	for (size_t i = 0; i < n_vars; i++) {
		uint32_t lo, n = range(&lo, rnd() % 4 ? 16 : num_tiles);
		size_t *shape = zalloc(2 * sizeof(*shape));

		shape[0] = n;
		shape[1] = 128;
		vars[i].name = name("model/block", i, "/conv/weights");
		vars[i].category = i % 8 ? TSI_MEM_VARIABLE : TSI_MEM_MESSAGE;
		vars[i].type = TSI_HALF;
		vars[i].rank = 2;
		vars[i].shape = shape;
		vars[i].bytes = (uint64_t)n * 256;
		vars[i].bytes_by_tile = span(lo, n, false);
		vars[i].always_live = i % 4 == 0;
		if (!vars[i].always_live) {
			vars[i].live_from = (uint32_t)(rnd() % n_live);
			vars[i].live_to = vars[i].live_from + (uint32_t)(rnd() % 64);
			if (vars[i].live_to >= n_live)
				vars[i].live_to = (uint32_t)n_live - 1;
		}
	}
	gp->variables = vars;
	gp->n_variables = n_vars;
	live = zalloc(n_live * sizeof(*live));
	for (size_t i = 0; i < n_live; i++) {
		live[i].program = (uint32_t)(1 + i % (n_prog - 1));
		live[i].parent = -1;
		live[i].not_always_live_bytes = rnd() % 500000000;
	}
	gp->liveness = live;
	gp->n_liveness = n_live;

	steps = zalloc(n_steps * sizeof(*steps));
	trace = zalloc(n_steps * sizeof(*trace));
	for (size_t i = 0; i < n_steps; i++) {
		size_t p = i % (n_prog - 1);

		trace[i] = (uint32_t)(1 + p);
		steps[i].program = (uint32_t)(1 + p);
		steps[i].type = p < n_cs ? TSI_STEP_ON_TILE_EXECUTE : TSI_STEP_DO_EXCHANGE;
		steps[i].compute_set = p < n_cs ? (int32_t)p : -1;
		steps[i].exchange = p < n_cs ? -1 : (int32_t)(p - n_cs);
		steps[i].cycles_from = i * 2000;
		steps[i].cycles = 100 + rnd() % 2000;
		steps[i].cycles_to = steps[i].cycles_from + steps[i].cycles;
		steps[i].active_tiles = num_tiles;
		steps[i].tile_balance = steps[i].active_tile_balance = steps[i].thread_balance = 0.5;
		steps[i].data_balance = NAN;
	}
	run->steps = steps;
	run->n_steps = n_steps;
	run->program_trace = trace;
	run->n_trace = n_steps;
	run->cycles = n_steps * 2000;
}

/* What the progress callback saw. */
#define MAX_PARTS 64
typedef struct bench_progress {
	double cancel_at;          /* ask to stop at the first fraction >= this (> 1: never) */
	double asked;              /* now() when it asked */
	double fraction;           /* the last fraction */
	double last, max_gap;      /* now() of the last call; the longest time between two */
	size_t calls;
	size_t n_parts;            /* parts seen: message, first fraction, now() */
	const char *part[MAX_PARTS];
	double part_fraction[MAX_PARTS], part_t[MAX_PARTS];
} bench_progress;

static void progress_init(bench_progress *bp, double cancel_at)
{
	memset(bp, 0, sizeof(*bp));
	bp->cancel_at = cancel_at;
	bp->last = now();
}

static int progress_cb(double fraction, const char *message, void *data)
{
	bench_progress *bp = data;
	double t = now();

	if (t - bp->last > bp->max_gap)
		bp->max_gap = t - bp->last;
	bp->last = t;
	bp->calls++;
	bp->fraction = fraction;
	if (bp->n_parts < MAX_PARTS &&
	    (!bp->n_parts || strcmp(bp->part[bp->n_parts - 1], message) != 0)) {
		/* Messages are static strings of the library: keep the pointer. */
		bp->part[bp->n_parts] = message;
		bp->part_fraction[bp->n_parts] = fraction;
		bp->part_t[bp->n_parts++] = t;
	}
	if (fraction >= bp->cancel_at) {
		bp->asked = now();
		return 1;
	}
	return 0;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Each part's share of the time, against the fraction it starts at. */
static void print_parts(const bench_progress *bp)
{
	for (size_t i = 0; i < bp->n_parts; i++)
		printf("  part from %.2f (%5.1f %% of the time): %s\n", bp->part_fraction[i],
		       100.0 * ((i + 1 < bp->n_parts ? bp->part_t[i + 1] : bp->last) - bp->part_t[i]) /
		           (bp->last - bp->part_t[0]),
		       bp->part[i]);
}

/*
 * The progress figures: an open reporting progress (its parts' times
 * against their fractions), then `rounds` opens and comparisons cancelled
 * half way, printing the time from the callback asking to stop to the
 * call returning (min / median / max, ms).
 */
static int progress_figures(const char *path, int rounds)
{
	tsr_open_options o = TSR_OPEN_OPTIONS_INIT;
	bench_progress bp;
	tsr_report *r = NULL, *other = NULL;
	tsr_comparison *cmp = NULL;
	double t0, t_open, lat_open[16], lat_cmp[16], at_open = 0, at_cmp = 0, t_cmp;
	int rc;

	if (rounds > 16)
		rounds = 16;
	o.progress = progress_cb;
	o.progress_data = &bp;
	progress_init(&bp, 2.0);
	t0 = now();
	rc = tsr_report_open(&r, path, &o);
	t_open = now() - t0;
	if (rc) {
		fprintf(stderr, "open with progress: %s\n", tsr_last_error());
		return 1;
	}
	tsr_report_free(r);
	r = NULL;
	printf("tsr_report_open with progress:          %8.1f ms (%zu calls, longest gap %.1f ms)\n",
	       t_open * 1e3, bp.calls, bp.max_gap * 1e3);
	print_parts(&bp);

	for (int k = 0; k < rounds; k++) {
		progress_init(&bp, 0.5);
		rc = tsr_report_open(&r, path, &o);
		lat_open[k] = now() - bp.asked;
		at_open = bp.fraction;
		if (rc != TSR_ERR_CANCELLED || r) {
			fprintf(stderr, "cancelled open: %s (%s)\n", tsr_error_name(rc), tsr_last_error());
			return 1;
		}
	}
	qsort(lat_open, (size_t)rounds, sizeof(double), compare_doubles);
	printf("open cancelled at %.2f, returned after:  %8.3f ms (min %.3f, max %.3f, %d runs)\n",
	       at_open, lat_open[rounds / 2] * 1e3, lat_open[0] * 1e3, lat_open[rounds - 1] * 1e3,
	       rounds);

	/* tsr_compare of the report with a second handle on it. */
	if (tsr_report_open(&r, path, NULL) || tsr_report_open(&other, path, NULL)) {
		fprintf(stderr, "open: %s\n", tsr_last_error());
		return 1;
	}
	tsr_report_set_progress(r, progress_cb, &bp);
	progress_init(&bp, 2.0);
	t0 = now();
	rc = tsr_compare(&cmp, r, other, -1, -1);
	t_cmp = now() - t0;
	tsr_comparison_free(cmp);
	cmp = NULL;
	if (rc) {
		fprintf(stderr, "compare: %s\n", tsr_report_error(r));
		return 1;
	}
	printf("tsr_compare with progress (lazy loads): %8.1f ms (%zu calls, longest gap %.1f ms)\n",
	       t_cmp * 1e3, bp.calls, bp.max_gap * 1e3);
	print_parts(&bp);
	for (int k = 0; k < rounds; k++) {
		/* Fresh handles each time: the lazily read parts are read again. */
		tsr_report_free(r);
		tsr_report_free(other);
		r = other = NULL;
		if (tsr_report_open(&r, path, NULL) || tsr_report_open(&other, path, NULL))
			return 1;
		tsr_report_set_progress(r, progress_cb, &bp);
		progress_init(&bp, 0.5);
		rc = tsr_compare(&cmp, r, other, -1, -1);
		lat_cmp[k] = now() - bp.asked;
		at_cmp = bp.fraction;
		if (rc != TSR_ERR_CANCELLED || cmp) {
			fprintf(stderr, "cancelled compare: %s\n", tsr_error_name(rc));
			return 1;
		}
	}
	tsr_report_free(r);
	tsr_report_free(other);
	qsort(lat_cmp, (size_t)rounds, sizeof(double), compare_doubles);
	printf("compare cancelled at %.2f, returned after:%7.3f ms (min %.3f, max %.3f, %d runs)\n",
	       at_cmp, lat_cmp[rounds / 2] * 1e3, lat_cmp[0] * 1e3, lat_cmp[rounds - 1] * 1e3,
	       rounds);
	return 0;
}

/* Runs PRAGMA quick_check on a plain read-only connection: its seconds. */
static double quick_check_seconds(const char *path)
{
	sqlite3 *db = NULL;
	double t0 = now();

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
		sqlite3_exec(db, "PRAGMA quick_check", NULL, NULL, NULL);
	sqlite3_close(db);
	return now() - t0;
}

int main(int argc, char **argv)
{
	const char *size = getenv("TSR_BENCH_SIZE");
	size_t n_cs = 20000;
	unsigned tpi = 1472, ipus = 4;
	tsi_graph_profile gp;
	tsi_run_profile run;
	const tsi_run_profile *runs[1] = {&run};
	tsi_report_meta meta;
	tsi_report_writer *w = NULL;
	char dir[] = "/tmp/tilescope-bench-XXXXXX", path[64];
	tsr_report *r = NULL;
	tsr_memory_totals totals;
	tsr_category_memory *cats = NULL;
	const tsr_variable *vars;
	const tsr_liveness_step *steps;
	struct stat sb;
	size_t n, peak;
	uint64_t peak_bytes;
	double t0, t_write, t_open, t_totals, t_cats, t_cats_ipu, t_vars, t_live, t_open2;
	double t_summary, t_summary_steps;
	int rc;

	if (size && sscanf(size, "%zux%ux%u", &n_cs, &tpi, &ipus) < 1)
		return 2;
	if (argc == 3 && strcmp(argv[1], "--write") == 0) {
		/* Only the report, where the caller wants it. */
		memset(&gp, 0, sizeof(gp));
		memset(&run, 0, sizeof(run));
		memset(&meta, 0, sizeof(meta));
		meta.lowered_vars = true;
		meta.tilescope_version = "bench";
		build(&gp, &run, n_cs, tpi, ipus);
		rc = tsi_report_writer_new(&w, argv[2], &gp, &meta);
		if (rc == TSI_OK)
			rc = tsi_report_writer_add_runs(w, runs, 1);
		tsi_report_writer_free(w);
		if (rc != TSI_OK) {
			fprintf(stderr, "bench-report-open: writing %s failed: %s\n", argv[2],
			        tsi_error_last());
			return 1;
		}
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: bench-report-open [--write PATH]\n");
		return 2;
	}
	memset(&gp, 0, sizeof(gp));
	memset(&run, 0, sizeof(run));
	memset(&meta, 0, sizeof(meta));
	meta.lowered_vars = true;
	meta.tilescope_version = "bench";
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/profile.pop", dir);
	build(&gp, &run, n_cs, tpi, ipus);

	t0 = now();
	rc = tsi_report_writer_new(&w, path, &gp, &meta);
	if (rc == TSI_OK)
		rc = tsi_report_writer_add_runs(w, runs, 1);
	tsi_report_writer_free(w);
	t_write = now() - t0;
	if (rc != TSI_OK || stat(path, &sb) != 0) {
		fprintf(stderr, "writing the report failed\n");
		return 1;
	}

	t0 = now();
	rc = tsr_report_open(&r, path, NULL);
	t_open = now() - t0;
	if (rc != TSR_OK) {
		fprintf(stderr, "open: %s\n", tsr_last_error());
		return 1;
	}
	t0 = now();
	rc = tsr_report_fill_memory_totals(&totals, r, -1);
	t_totals = now() - t0;
	t0 = now();
	if (!rc)
		rc = tsr_report_list_memory_by_category(&cats, &n, r, -1);
	t_cats = now() - t0;
	free(cats);
	cats = NULL;
	t0 = now();
	if (!rc)
		rc = tsr_report_list_memory_by_category(&cats, &n, r, 0);
	t_cats_ipu = now() - t0;
	free(cats);
	t0 = now();
	if (!rc)
		rc = tsr_report_get_variables(&vars, &n, r);
	t_vars = now() - t0;
	t0 = now();
	if (!rc)
		rc = tsr_report_get_liveness_steps(&steps, &n, r);
	if (!rc)
		rc = tsr_report_get_peak_liveness(&peak, &peak_bytes, r);
	t_live = now() - t0;
	if (rc) {
		fprintf(stderr, "query: %s\n", tsr_report_error(r));
		return 1;
	}
	tsr_report_free(r);
	/* Open + totals + categories together, a second time (warm). */
	t0 = now();
	rc = tsr_report_open(&r, path, NULL);
	if (!rc)
		rc = tsr_report_fill_memory_totals(&totals, r, -1);
	if (!rc)
		rc = tsr_report_list_memory_by_category(&cats, &n, r, -1);
	t_open2 = now() - t0;
	free(cats);
	tsr_report_free(r);
	/* What `tilescope summary` does: open and print the default summary
	 * (to /dev/null), and the same with every execution step. */
	{
		tsr_summary_options so = TSR_SUMMARY_OPTIONS_INIT;
		FILE *devnull = fopen("/dev/null", "w");

		if (!devnull)
			return 1;
		so.colours = TSR_COLOURS_NEVER;
		t0 = now();
		rc = tsr_report_open(&r, path, NULL);
		if (!rc)
			rc = tsr_summary_print(devnull, r, &so);
		t_summary = now() - t0;
		so.show_execution_steps = true;
		t0 = now();
		if (!rc)
			rc = tsr_summary_print(devnull, r, &so);
		t_summary_steps = now() - t0;
		if (rc) {
			fprintf(stderr, "summary: %s\n", r ? tsr_report_error(r) : tsr_last_error());
			return 1;
		}
		tsr_report_free(r);
		fclose(devnull);
	}

	printf("report: %zu compute sets, %u tiles (%u IPUs x %u), %zu variables, %zu liveness "
	       "steps, %zu execution steps\n",
	       n_cs, num_tiles, ipus, tpi, gp.n_variables, gp.n_liveness, run.n_steps);
	printf("file: %.1f MB, written in %.2f s\n", (double)sb.st_size / 1e6, t_write);
	printf("tsr_report_open:                        %8.1f ms\n", t_open * 1e3);
	printf("tsr_report_fill_memory_totals (all tiles):   %8.3f ms\n", t_totals * 1e3);
	printf("tsr_report_list_memory_by_category (all):    %8.1f ms\n", t_cats * 1e3);
	printf("tsr_report_list_memory_by_category (IPU 0):  %8.1f ms\n", t_cats_ipu * 1e3);
	printf("tsr_report_get_variables (first use):       %8.1f ms\n", t_vars * 1e3);
	printf("liveness steps + peak (first use):      %8.1f ms\n", t_live * 1e3);
	printf("open + totals + categories (again):     %8.1f ms\n", t_open2 * 1e3);
	printf("open + summary (default options):       %8.1f ms\n", t_summary * 1e3);
	printf("summary with every execution step:      %8.1f ms\n", t_summary_steps * 1e3);
	printf("PRAGMA quick_check (not run at open):   %8.1f ms\n", quick_check_seconds(path) * 1e3);
	if (progress_figures(path, 7))
		return 1;

	unlink(path);
	rmdir(dir);
	for (size_t i = 0; i < n_keep; i++)
		free(keep[i]);
	free(keep);
	return 0;
}
