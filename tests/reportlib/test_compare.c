/*
 * Comparing two reports (compare.h): a report against itself changes
 * nothing; the matmul fixture against a variant built here with a bigger
 * matmul and extra compute sets gives deltas equal to the differences of
 * the two reports' own report.h figures, the variant-only compute sets
 * and operations on one side only, and repeated names suffixed "#2".
 */
#include "report-fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include <tilescope/compare.h>
#include <tilescope/poplin.h>
#include <tilescope/popops.h>

/* The group of a metric, from its name (compare.c's order). */
static int group_of(const char *m)
{
	static const char *const prefixes[] = {
		"cycles.run.",        "steps.run.",
		"memory.category.",   "cycles.step_type.",   "cycles.vertex_type.",
		"memory.vertex_type.", "cycles.operation.",  "flops.operation.",
		"memory.operation.",  "cycles.compute_set.", "memory.compute_set.",
		"memory.variable.",   "cycles.program.",
	};
	static const int groups[] = {1, 1, 2, 3, 4, 4, 5, 5, 5, 6, 6, 7, 8};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(m, prefixes[i], strlen(prefixes[i])) == 0)
			return groups[i];
	return 0;
}

/* Checks the documented order: by group (tsr_metric_get_group's, which
 * `tilescope diff` searches by), then by name within a group; and that
 * the name index finds every delta, in one report or both. */
static void assert_ordered(const tsr_comparison *cmp)
{
	for (size_t i = 0; i < tsr_comparison_get_count(cmp); i++) {
		const tsr_delta *b = tsr_comparison_get_delta(cmp, i);

		assert_int_equal(tsr_metric_get_group(b->metric), group_of(b->metric));
		if (tsr_comparison_lookup_delta(cmp, b->metric) != b)
			fail_msg("'%s' is not found by its name", b->metric);
		if (i) {
			const tsr_delta *a = tsr_comparison_get_delta(cmp, i - 1);
			int ga = group_of(a->metric), gb = group_of(b->metric);

			if (ga > gb || (ga == gb && strcmp(a->metric, b->metric) >= 0))
				fail_msg("out of order: '%s' before '%s'", a->metric, b->metric);
		}
	}
}

/* The delta of `metric`, which must exist. */
static const tsr_delta *must(const tsr_comparison *cmp, const char *metric)
{
	const tsr_delta *d = tsr_comparison_lookup_delta(cmp, metric);

	if (!d)
		fail_msg("no metric '%s'", metric);
	return d;
}

/* Checks one delta's values, flags and arithmetic. */
static void assert_delta(const tsr_delta *d, bool in_base, bool in_new, uint64_t base,
                         uint64_t new_value)
{
	if (d->in_base != in_base || d->in_new != in_new || d->base != base ||
	    d->new_value != new_value)
		fail_msg("%s: got %d/%d %llu -> %llu, want %d/%d %llu -> %llu", d->metric, d->in_base,
		         d->in_new, (unsigned long long)d->base, (unsigned long long)d->new_value,
		         in_base, in_new, (unsigned long long)base, (unsigned long long)new_value);
	assert_true(d->change == (int64_t)new_value - (int64_t)base);
	if (base)
		assert_close(d->percent, ((double)new_value - (double)base) / (double)base * 100.0,
		             1e-9);
	else
		assert_close(d->percent, 0.0, 0.0);
}

/* A report compared with itself: every figure in both, nothing changed. */
static void test_self(void **state)
{
	tsr_fixture f;
	tsr_comparison *cmp = NULL;
	size_t n;

	(void)state;
	tsr_fixture_setup(&f, TSR_FIXTURE_MATMUL);
	assert_int_equal(tsr_compare(&cmp, f.report, f.report, -1, -1), TSR_OK);
	n = tsr_comparison_get_count(cmp);
	assert_true(n > 40);
	for (size_t i = 0; i < n; i++) {
		const tsr_delta *d = tsr_comparison_get_delta(cmp, i);

		if (!d->in_base || !d->in_new || d->change != 0 || d->base != d->new_value ||
		    d->percent != 0.0)
			fail_msg("'%s' changed against itself", d->metric);
		assert_ptr_equal(tsr_comparison_lookup_delta(cmp, d->metric), d);
	}
	assert_null(tsr_comparison_get_delta(cmp, n));
	assert_null(tsr_comparison_lookup_delta(cmp, "no.such.metric"));
	assert_ordered(cmp);
	/* Every group is there. */
	assert_int_equal(must(cmp, "memory.category.message")->unit, TSR_UNIT_BYTES);
	assert_int_equal(must(cmp, "cycles.step_type.DoExchange")->unit, TSR_UNIT_CYCLES);
	assert_int_equal(must(cmp, "cycles.vertex_type.poplin::MatMulPartial<float,float>")->unit,
	                 TSR_UNIT_CYCLES);
	assert_int_equal(must(cmp, "cycles.operation.layer1/fc")->unit, TSR_UNIT_CYCLES);
	assert_int_equal(must(cmp, "memory.compute_set.layer1/double")->unit, TSR_UNIT_BYTES);
	assert_int_equal(must(cmp, "memory.variable.a")->unit, TSR_UNIT_BYTES);
	assert_int_equal(must(cmp, "cycles.program.main")->unit, TSR_UNIT_CYCLES);
	assert_int_equal(must(cmp, "memory.oom_tiles")->unit, TSR_UNIT_TILES);
	assert_int_equal(must(cmp, "flops.total")->unit, TSR_UNIT_FLOPS);
	assert_int_equal(must(cmp, "graph.vertices")->unit, TSR_UNIT_COUNT);
	tsr_comparison_free(cmp);

	/* The same file opened twice: the same figures. */
	{
		tsr_report *again = NULL;

		assert_int_equal(tsr_report_open(&again, f.report_dir, NULL), TSR_OK);
		assert_int_equal(tsr_compare(&cmp, f.report, again, 0, 0), TSR_OK);
		for (size_t i = 0; i < tsr_comparison_get_count(cmp); i++)
			assert_int_equal(tsr_comparison_get_delta(cmp, i)->change, 0);
		tsr_comparison_free(cmp);
		tsr_report_free(again);
	}
	tsr_fixture_teardown(&f);
}

/*
 * The variant of the fixture's matmul model: K = 64 instead of 32 (more
 * cycles and memory), and in layer1 two more adds both named "twice"
 * (compute sets and operations only in the variant, one name twice).
 * Runs as the fixture does: program 0 twice, program 1 once.
 */
static void setup_variant(tsr_fixture *f)
{
	enum { M = 24, K = 64, N = 16 };
	tsi_ipu_model_options o = TSI_IPU_MODEL_OPTIONS_INIT;
	tsi_options *opts = tsi_options_new();
	tsi_program *progs[2], *body;
	tsi_tensor *a, *b, *c, *d, *remote;
	tsi_stream *in, *out;
	tsi_debug_id layer;
	tsi_graph *g;
	static float a_in[M * K], b_host[K * N], d_out[M * N];

	memset(f, 0, sizeof(*f));
	f->dir = tsi_test_mkdtemp();
	snprintf(f->report_dir, sizeof(f->report_dir), "%s/report", f->dir);
	snprintf(f->profile_path, sizeof(f->profile_path), "%s/profile.pop", f->report_dir);
	o.num_ipus = 2;
	o.tiles_per_ipu = 16;
	assert_int_equal(tsi_device_new_ipu_model(&f->device, &o), TSR_OK);
	assert_int_equal(tsi_graph_new(&f->graph, tsi_device_get_target(f->device), 1), TSI_OK);
	g = f->graph;
	assert_int_equal(tsi_popops_add_codelets(g), TSI_OK);
	assert_int_equal(tsi_poplin_add_codelets(g), TSI_OK);
	progs[0] = tsi_prog_sequence(g, "main");
	progs[1] = tsi_prog_sequence(g, "other");
	a = tsi_poplin_create_matmul_input_lhs(g, TSI_FLOAT, M, K, N, "a");
	b = tsi_poplin_create_matmul_input_rhs(g, TSI_FLOAT, M, K, N, "b");
	assert_non_null(a);
	assert_non_null(b);
	in = tsi_graph_add_host_to_device_fifo(g, "a_in", TSI_FLOAT, M * K,
	                                       TSI_REPLICATED_STREAM_BROADCAST);
	out = tsi_graph_add_device_to_host_fifo(g, "d_out", TSI_FLOAT, M * N);
	assert_non_null(in);
	assert_non_null(out);
	assert_int_equal(tsi_graph_create_host_write(g, "b", b), TSI_OK);
	assert_int_equal(tsi_sequence_add(progs[0], tsi_prog_copy_from_stream(g, in, a)), TSI_OK);
	layer = tsi_debug_push(g, "layer1", NULL);
	c = tsi_poplin_matmul(g, a, b, progs[0], "fc");
	assert_non_null(c);
	d = tsi_popops_add(g, c, c, progs[0], "double");
	assert_non_null(d);
	assert_non_null(tsi_popops_add(g, d, d, progs[0], "twice"));
	assert_non_null(tsi_popops_add(g, d, d, progs[0], "twice"));
	tsi_debug_pop(g, layer);
	body = tsi_prog_sequence(g, "body");
	assert_non_null(tsi_popops_mul(g, d, d, body, "square"));
	assert_int_equal(tsi_sequence_add(progs[0], tsi_prog_repeat(g, 3, body)), TSI_OK);
	remote = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(M, N), "on_ipu1");
	assert_non_null(remote);
	assert_int_equal(tsi_graph_map_linearly(tsi_graph_create_virtual(g, 16, 32), remote, 1),
	                 TSI_OK);
	assert_int_equal(tsi_sequence_add(progs[0], tsi_prog_copy(g, d, remote)), TSI_OK);
	assert_int_equal(tsi_sequence_add(progs[0], tsi_prog_copy_to_stream(g, remote, out)),
	                 TSI_OK);
	assert_non_null(tsi_popops_sub(g, b, b, progs[1], "zero"));

	assert_non_null(opts);
	assert_int_equal(tsi_options_set(opts, "autoReport.all", "true"), TSI_OK);
	assert_int_equal(tsi_options_set(opts, "autoReport.directory", f->report_dir), TSI_OK);
	assert_int_equal(tsi_engine_new(&f->engine, g, progs, 2, opts), TSI_OK);
	tsi_options_free(opts);
	f->gp = tsi_engine_get_graph_profile(f->engine);
	for (size_t i = 0; i < M * K; i++)
		a_in[i] = (float)(i % 7) * 0.25f;
	for (size_t i = 0; i < K * N; i++)
		b_host[i] = (float)(i % 5) * 0.5f;
	assert_int_equal(tsi_engine_load(f->engine, f->device), TSI_OK);
	assert_int_equal(tsi_engine_connect_stream(f->engine, "a_in", a_in, a_in + M * K), TSI_OK);
	assert_int_equal(tsi_engine_connect_stream(f->engine, "d_out", d_out, d_out + M * N),
	                 TSI_OK);
	assert_int_equal(tsi_engine_write_tensor(f->engine, "b", b_host, sizeof(b_host)), TSI_OK);
	assert_int_equal(tsi_engine_run(f->engine, 0), TSI_OK);
	assert_int_equal(tsi_engine_run(f->engine, 0), TSI_OK);
	assert_int_equal(tsi_engine_run(f->engine, 1), TSI_OK);
	/* autoReport streams each run into the report as it ends. */
	if (tsr_report_open(&f->report, f->report_dir, NULL) != TSR_OK)
		fail_msg("opening the variant's report: %s", tsr_last_error());
}

/* The summed cycles of compute set `cs`'s steps in `run`. */
static uint64_t compute_set_cycles(tsr_report *r, size_t run, size_t cs)
{
	const tsr_step *steps;
	size_t n;
	uint64_t sum = 0;

	assert_int_equal(tsr_report_get_steps(&steps, &n, r, run), TSR_OK);
	for (size_t i = 0; i < n; i++)
		if (steps[i].type == TSR_STEP_ON_TILE_EXECUTE && steps[i].compute_set == (int64_t)cs)
			sum += steps[i].cycles;
	return sum;
}

/* The id of the nth (1-based) compute set named `name` in `r`. */
static size_t nth_compute_set(tsr_report *r, const char *name, int nth)
{
	const tsr_compute_set *cs;
	size_t n;

	assert_int_equal(tsr_report_get_compute_sets(&cs, &n, r), TSR_OK);
	for (size_t i = 0; i < n; i++)
		if (strcmp(cs[i].name, name) == 0 && --nth == 0)
			return i;
	fail_msg("no compute set '%s'", name);
	return 0;
}

/* Whether compute set `name` is in `r`. */
static bool has_compute_set(tsr_report *r, const char *name)
{
	const tsr_compute_set *cs;
	size_t n;

	assert_int_equal(tsr_report_get_compute_sets(&cs, &n, r), TSR_OK);
	for (size_t i = 0; i < n; i++)
		if (strcmp(cs[i].name, name) == 0)
			return true;
	return false;
}

/* The fixture against the bigger variant: every checked delta is the
 * difference of the two reports' own figures. */
static void test_variant(void **state)
{
	tsr_fixture f, v;
	tsr_comparison *cmp = NULL;
	tsr_memory_totals mb, mv;
	tsr_activity ab, av;
	tsr_flops fb, fv;
	tsr_category_memory *cb, *cv;
	tsr_vertex_type_cycles *vb, *vv;
	const tsr_vertex_type *tb, *tv;
	const tsr_compute_set *csv;
	size_t n_cb, n_cv, n_vb, n_vv, n_tb, n_tv, n_csv;
	const tsr_delta *d;
	bool base_only_seen = false;

	(void)state;
	tsr_fixture_setup(&f, TSR_FIXTURE_MATMUL);
	setup_variant(&v);
	assert_int_equal(tsr_compare(&cmp, f.report, v.report, 0, 0), TSR_OK);
	assert_ordered(cmp);

	/* Totals. */
	assert_int_equal(tsr_report_fill_memory_totals(&mb, f.report, -1), TSR_OK);
	assert_int_equal(tsr_report_fill_memory_totals(&mv, v.report, -1), TSR_OK);
	d = must(cmp, "memory.total_including_gaps");
	assert_delta(d, true, true, mb.total_including_gaps, mv.total_including_gaps);
	assert_true(d->change > 0);
	assert_delta(must(cmp, "memory.total"), true, true, mb.total, mv.total);
	assert_delta(must(cmp, "memory.max_tile"), true, true, mb.max_tile_bytes,
	             mv.max_tile_bytes);
	assert_delta(must(cmp, "memory.oom_tiles"), true, true, mb.oom_tiles, mv.oom_tiles);
	assert_delta(must(cmp, "memory.always_live"), true, true,
	             tsr_report_get_always_live_bytes(f.report),
	             tsr_report_get_always_live_bytes(v.report));
	assert_int_equal(tsr_report_fill_run_activity(&ab, f.report, 0), TSR_OK);
	assert_int_equal(tsr_report_fill_run_activity(&av, v.report, 0), TSR_OK);
	d = must(cmp, "cycles.total");
	assert_delta(d, true, true, ab.cycles, av.cycles);
	assert_true(d->change > 0);
	for (int t = 0; t < TSR_STEP_TYPE_COUNT; t++) {
		char name[64];

		snprintf(name, sizeof(name), "cycles.step_type.%s", tsr_step_type_name(t));
		assert_delta(must(cmp, name), true, true, ab.step_cycles[t], av.step_cycles[t]);
	}
	assert_int_equal(tsr_report_fill_run_flops(&fb, f.report, 0, false), TSR_OK);
	assert_int_equal(tsr_report_fill_run_flops(&fv, v.report, 0, false), TSR_OK);
	d = must(cmp, "flops.total");
	assert_delta(d, true, true, fb.flops, fv.flops);
	assert_true(d->change > 0);

	/* Categories. */
	assert_int_equal(tsr_report_list_memory_by_category(&cb, &n_cb, f.report, -1), TSR_OK);
	assert_int_equal(tsr_report_list_memory_by_category(&cv, &n_cv, v.report, -1), TSR_OK);
	assert_int_equal(n_cb, n_cv);
	for (size_t i = 0; i < n_cb; i++) {
		char name[96];

		snprintf(name, sizeof(name), "memory.category.%s", tsr_category_name(cb[i].category));
		assert_delta(must(cmp, name), true, true, cb[i].total, cv[i].total);
	}
	d = must(cmp, "memory.category.variable");
	assert_true(d->change > 0);
	free(cb);
	free(cv);

	/* Vertex types: cycles in run 0, by name. */
	assert_int_equal(tsr_report_get_vertex_types(&tb, &n_tb, f.report), TSR_OK);
	assert_int_equal(tsr_report_get_vertex_types(&tv, &n_tv, v.report), TSR_OK);
	assert_int_equal(tsr_report_list_cycles_by_vertex_type(&vb, &n_vb, f.report, 0), TSR_OK);
	assert_int_equal(tsr_report_list_cycles_by_vertex_type(&vv, &n_vv, v.report, 0), TSR_OK);
	for (size_t i = 0; i < n_vb; i++) {
		char name[256];
		uint64_t other = 0;

		for (size_t j = 0; j < n_vv; j++)
			if (strcmp(tv[vv[j].vertex_type].name, tb[vb[i].vertex_type].name) == 0)
				other = vv[j].cycles;
		snprintf(name, sizeof(name), "cycles.vertex_type.%s", tb[vb[i].vertex_type].name);
		assert_delta(must(cmp, name), true, true, vb[i].cycles, other);
	}
	d = must(cmp, "cycles.vertex_type.poplin::MatMulPartial<float,float>");
	assert_true(d->change > 0);
	free(vb);
	free(vv);

	/* Compute sets: "twice" exists only in the variant, twice over. */
	assert_false(has_compute_set(f.report, "layer1/twice"));
	assert_int_equal(tsr_report_get_compute_sets(&csv, &n_csv, v.report), TSR_OK);
	{
		size_t first = n_csv, second = n_csv;

		for (size_t i = 0; i < n_csv; i++) {
			if (strcmp(csv[i].name, "layer1/twice") != 0)
				continue;
			if (first == n_csv)
				first = i;
			else
				second = i;
		}
		assert_true(second < n_csv);
		assert_delta(must(cmp, "cycles.compute_set.layer1/twice"), false, true, 0,
		             compute_set_cycles(v.report, 0, first));
		assert_delta(must(cmp, "cycles.compute_set.layer1/twice#2"), false, true, 0,
		             compute_set_cycles(v.report, 0, second));
		assert_true(must(cmp, "cycles.compute_set.layer1/twice")->new_value > 0);
		assert_null(tsr_comparison_lookup_delta(cmp, "cycles.compute_set.layer1/twice#3"));
	}
	d = must(cmp, "cycles.compute_set.layer1/double");
	assert_true(d->in_base && d->in_new);
	assert_true(must(cmp, "cycles.compute_set.layer1/fc/Partials")->change > 0);
	/* Operations by path; the new ones only in the variant. */
	d = must(cmp, "cycles.operation.layer1/twice#2");
	assert_false(d->in_base);
	assert_true(d->in_new);
	assert_true(must(cmp, "cycles.operation.layer1/fc")->change > 0);
	assert_true(must(cmp, "memory.variable.a")->change > 0);
	/* The variant only adds: nothing is in the base alone. */
	for (size_t i = 0; i < tsr_comparison_get_count(cmp); i++)
		base_only_seen |= !tsr_comparison_get_delta(cmp, i)->in_new;
	assert_false(base_only_seen);

	tsr_comparison_free(cmp);

	/* The other way round: the variant's extras are in the base only. */
	assert_int_equal(tsr_compare(&cmp, v.report, f.report, 0, 0), TSR_OK);
	assert_ordered(cmp);
	d = must(cmp, "cycles.compute_set.layer1/twice#2");
	assert_true(d->in_base && !d->in_new);
	assert_true(d->change < 0);
	assert_close(d->percent, -100.0, 1e-9);
	tsr_comparison_free(cmp);
	tsr_fixture_teardown(&v);
	tsr_fixture_teardown(&f);
}

/* A report without runs has no execution figures: they are in one side
 * only. Bad arguments and runs are refused. */
static void test_no_runs_and_errors(void **state)
{
	tsr_fixture f, oom;
	tsr_comparison *cmp = NULL;
	const tsr_delta *d;

	(void)state;
	tsr_fixture_setup(&f, TSR_FIXTURE_MATMUL);
	tsr_fixture_setup(&oom, TSR_FIXTURE_OOM);
	assert_int_equal(tsr_compare(&cmp, oom.report, f.report, -1, -1), TSR_OK);
	d = must(cmp, "cycles.total");
	assert_false(d->in_base);
	assert_true(d->in_new);
	assert_true(d->new_value > 0);
	d = must(cmp, "memory.oom_tiles");
	assert_true(d->in_base && d->in_new);
	assert_true(d->base > 0);
	assert_int_equal(d->new_value, 0);
	assert_int_equal(d->change, -(int64_t)d->base);
	d = must(cmp, "cycles.program.main");
	assert_true(!d->in_base && d->in_new);
	d = must(cmp, "memory.variable.big");
	assert_true(d->in_base && !d->in_new);
	assert_ordered(cmp);
	tsr_comparison_free(cmp);

	assert_int_equal(tsr_compare(&cmp, f.report, f.report, 3, 0), TSR_ERR_OUT_OF_RANGE);
	assert_null(cmp);
	assert_int_equal(tsr_compare(&cmp, f.report, oom.report, -1, 0), TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_compare(&cmp, f.report, f.report, -2, 0), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_compare(&cmp, NULL, f.report, -1, -1), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_compare(NULL, f.report, f.report, -1, -1), TSR_ERR_INVALID_ARGUMENT);
	assert_int_equal(tsr_comparison_get_count(NULL), 0);
	assert_null(tsr_comparison_get_delta(NULL, 0));
	assert_null(tsr_comparison_lookup_delta(NULL, "cycles.total"));
	tsr_comparison_free(NULL);
	tsr_fixture_teardown(&oom);
	tsr_fixture_teardown(&f);
}

/* Copies `f`'s profile.pop to dir/name, runs `sql` on the copy and
 * opens it (NULL when the opening refuses it, which must be as corrupt). */
static tsr_report *open_tampered(const tsr_fixture *f, const char *name, const char *sql)
{
	char path[700];
	sqlite3 *db;
	char *err = NULL;
	tsr_report *r = NULL;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	tsi_test_copy_file(f->profile_path, path);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("tampering: %s", err);
	assert_true(sqlite3_changes(db) > 0);
	sqlite3_close(db);
	rc = tsr_report_open(&r, path, NULL);
	if (rc != TSR_OK) {
		print_message("%s: refused when opening\n", name);
		assert_int_equal(rc, TSR_ERR_CORRUPT);
	}
	return r;
}

/*
 * Names that collide with a suffix ("double" renamed "twice#2" before the
 * two compute sets named "twice": labels twice#2, twice, twice#3), and a
 * program tree with a cycle (main made its own first child): the
 * comparison ends and labels stay unique.
 */
static void test_hostile_names_and_tree(void **state)
{
	tsr_fixture v;
	tsr_report *r;
	tsr_comparison *cmp = NULL;

	(void)state;
	setup_variant(&v);
	r = open_tampered(&v, "names.pop",
	                  "INSERT INTO string (text) VALUES ('layer1/twice#2');"
	                  "UPDATE compute_set SET name = (SELECT id FROM string WHERE text = 'layer1/twice#2')"
	                  " WHERE name = (SELECT id FROM string WHERE text = 'layer1/double');");
	if (r) {
		assert_int_equal(tsr_compare(&cmp, r, r, 0, 0), TSR_OK);
		assert_null(tsr_comparison_lookup_delta(cmp, "cycles.compute_set.layer1/double"));
		assert_non_null(tsr_comparison_lookup_delta(cmp, "cycles.compute_set.layer1/twice"));
		assert_non_null(tsr_comparison_lookup_delta(cmp, "cycles.compute_set.layer1/twice#2"));
		assert_non_null(tsr_comparison_lookup_delta(cmp, "cycles.compute_set.layer1/twice#3"));
		assert_null(tsr_comparison_lookup_delta(cmp, "cycles.compute_set.layer1/twice#4"));
		assert_ordered(cmp);
		tsr_comparison_free(cmp);
		/* Against the untouched report: "double" only there, a third
		 * "twice" only here. */
		assert_int_equal(tsr_compare(&cmp, v.report, r, 0, 0), TSR_OK);
		assert_false(must(cmp, "cycles.compute_set.layer1/double")->in_new);
		assert_false(must(cmp, "cycles.compute_set.layer1/twice#3")->in_base);
		/* twice#2 is the second "twice" in the base, the renamed
		 * "double" in the new one. */
		assert_delta(must(cmp, "cycles.compute_set.layer1/twice#2"), true, true,
		             compute_set_cycles(v.report, 0, nth_compute_set(v.report, "layer1/twice", 2)),
		             compute_set_cycles(r, 0, nth_compute_set(v.report, "layer1/double", 1)));
		tsr_comparison_free(cmp);
		tsr_report_free(r);
	}
	r = open_tampered(&v, "cycle.pop",
	                  "UPDATE program_child SET child = parent WHERE position = 0 AND parent = "
	                  "(SELECT p.id FROM program p JOIN string s ON s.id = p.name "
	                  " WHERE s.text = 'main' AND p.type = 'Sequence');");
	if (r) {
		const tsr_delta *d;

		assert_int_equal(tsr_compare(&cmp, r, v.report, 0, 0), TSR_OK);
		d = must(cmp, "cycles.program.main");
		assert_true(d->in_base && d->in_new);
		/* One child fewer reached: never more than before. */
		assert_true(d->base <= d->new_value);
		tsr_comparison_free(cmp);
		tsr_report_free(r);
	}
	tsr_fixture_teardown(&v);
}

/* Under a memory cap, a comparison either fails with TSR_ERR_TOO_LARGE
 * and no result, or is the whole comparison. */
static void test_memory_cap(void **state)
{
	tsr_fixture f;
	tsr_comparison *full = NULL;
	bool refused = false, compared = false;

	(void)state;
	tsr_fixture_setup(&f, TSR_FIXTURE_MATMUL);
	assert_int_equal(tsr_compare(&full, f.report, f.report, -1, -1), TSR_OK);
	for (uint64_t cap = 16384; !compared && cap < ((uint64_t)1 << 32); cap += cap / 4) {
		tsr_open_options o = TSR_OPEN_OPTIONS_INIT;
		tsr_report *r = NULL;
		tsr_comparison *cmp = NULL;
		int rc;

		o.memory_cap = cap;
		rc = tsr_report_open(&r, f.report_dir, &o);
		if (rc != TSR_OK) {
			assert_int_equal(rc, TSR_ERR_TOO_LARGE);
			continue;
		}
		rc = tsr_compare(&cmp, r, f.report, -1, -1);
		if (rc == TSR_OK) {
			assert_int_equal(tsr_comparison_get_count(cmp), tsr_comparison_get_count(full));
			for (size_t i = 0; i < tsr_comparison_get_count(cmp); i++)
				assert_int_equal(tsr_comparison_get_delta(cmp, i)->change, 0);
			compared = true;
		} else {
			assert_int_equal(rc, TSR_ERR_TOO_LARGE);
			assert_null(cmp);
			refused = true;
		}
		tsr_comparison_free(cmp);
		tsr_report_free(r);
	}
	assert_true(refused);
	assert_true(compared);
	tsr_comparison_free(full);
	tsr_fixture_teardown(&f);
}

/* The fixture's runs of the engine program labelled `name` (0 "main", 1
 * "other"): how many, and their mean cycles and steps, rounded. */
static size_t runs_of(tsr_report *r, uint32_t program, uint64_t *cycles, uint64_t *steps)
{
	const tsr_run *runs;
	size_t n, k = 0;
	uint64_t c = 0, st = 0;

	assert_int_equal(tsr_report_get_runs(&runs, &n, r), TSR_OK);
	for (size_t i = 0; i < n; i++)
		if (runs[i].program == program) {
			c += runs[i].cycles;
			st += runs[i].n_steps;
			k++;
		}
	assert_true(k > 0);
	*cycles = (c * 2 + k) / (2 * k);
	*steps = (st * 2 + k) / (2 * k);
	return k;
}

/* Issue 17: runs matched by the program that ran. By default every
 * program with runs in both reports, each one's runs averaged, with its
 * cycles and steps per run; --program narrows to one; the positional
 * tsr_compare is unchanged; a program a report lacks is an error that
 * lists the ones it has. */
static void test_by_program(void **state)
{
	tsr_fixture f;
	tsr_comparison *cmp = NULL;
	tsr_compare_options o = TSR_COMPARE_OPTIONS_INIT;
	const tsr_compared_program *cp;
	const tsr_run *runs;
	uint64_t main_cycles, main_steps, other_cycles, other_steps;
	size_t n_main, n_other, n_runs;

	(void)state;
	tsr_fixture_setup(&f, TSR_FIXTURE_MATMUL);
	n_main = runs_of(f.report, 0, &main_cycles, &main_steps);
	n_other = runs_of(f.report, 1, &other_cycles, &other_steps);
	assert_int_equal(n_main, 2);
	assert_int_equal(n_other, 1);

	assert_int_equal(tsr_compare_programs(&cmp, f.report, f.report, NULL), TSR_OK);
	assert_ordered(cmp);
	assert_int_equal(tsr_comparison_get_program_count(cmp), 2);
	cp = tsr_comparison_get_program(cmp, 0);
	assert_string_equal(cp->base_name, "main");
	assert_string_equal(cp->new_name, "main");
	assert_int_equal(cp->base_runs, 2);
	assert_int_equal(cp->new_runs, 2);
	cp = tsr_comparison_get_program(cmp, 1);
	assert_string_equal(cp->base_name, "other");
	assert_int_equal(cp->base_runs, 1);
	assert_null(tsr_comparison_get_program(cmp, 2));
	assert_delta(must(cmp, "cycles.run.main"), true, true, main_cycles, main_cycles);
	assert_int_equal(must(cmp, "cycles.run.main")->unit, TSR_UNIT_CYCLES);
	assert_delta(must(cmp, "steps.run.main"), true, true, main_steps, main_steps);
	assert_delta(must(cmp, "cycles.run.other"), true, true, other_cycles, other_cycles);
	/* One average run of each program, summed (rounded per figure). */
	{
		uint64_t total = must(cmp, "cycles.total")->base;

		assert_true(total + 1 >= main_cycles + other_cycles &&
		            total <= main_cycles + other_cycles + 1);
	}
	tsr_comparison_free(cmp);

	/* One program: its runs only. */
	o.program = "other";
	assert_int_equal(tsr_compare_programs(&cmp, f.report, f.report, &o), TSR_OK);
	assert_int_equal(tsr_comparison_get_program_count(cmp), 1);
	assert_int_equal(must(cmp, "cycles.total")->base, other_cycles);
	assert_null(tsr_comparison_lookup_delta(cmp, "cycles.run.main"));
	tsr_comparison_free(cmp);
	/* Its run N (main's first run). */
	o.program = "main";
	o.base_run = o.new_run = 0;
	assert_int_equal(tsr_compare_programs(&cmp, f.report, f.report, &o), TSR_OK);
	assert_int_equal(tsr_report_get_runs(&runs, &n_runs, f.report), TSR_OK);
	for (size_t i = 0; i < n_runs; i++)
		if (runs[i].program == 0) {
			assert_int_equal(must(cmp, "cycles.total")->base, runs[i].cycles);
			break;
		}
	tsr_comparison_free(cmp);
	o.base_run = o.new_run = 2;
	assert_int_equal(tsr_compare_programs(&cmp, f.report, f.report, &o), TSR_ERR_OUT_OF_RANGE);
	assert_null(cmp);
	/* A program neither report ran: the message lists those they did. */
	o = (tsr_compare_options)TSR_COMPARE_OPTIONS_INIT;
	o.program = "nope";
	assert_int_equal(tsr_compare_programs(&cmp, f.report, f.report, &o), TSR_ERR_OUT_OF_RANGE);
	assert_null(cmp);
	assert_non_null(strstr(tsr_report_error(f.report), "'nope'"));
	assert_non_null(strstr(tsr_report_error(f.report), "main, other"));

	/* The positional form keeps its meaning: the last run of each. */
	assert_int_equal(tsr_compare(&cmp, f.report, f.report, -1, -1), TSR_OK);
	assert_int_equal(must(cmp, "cycles.total")->base, runs[n_runs - 1].cycles);
	assert_int_equal(tsr_comparison_get_program_count(cmp), 1);
	tsr_comparison_free(cmp);
	tsr_fixture_teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_variant),
		cmocka_unit_test(test_no_runs_and_errors),
		cmocka_unit_test(test_hostile_names_and_tree),
		cmocka_unit_test(test_memory_cap),
		cmocka_unit_test(test_by_program),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
