/*
 * Debug contexts through the public API: ids and nesting, an unbalanced
 * pop ignored with a WARN line, the context every operation library opens
 * (layer, api, name), a model's own context as the parent of the
 * operations inside it (also through a virtual graph), and the graph
 * profile's compute sets, variables and lowered programs carrying the
 * ids of the contexts that made them.
 */
#include "test-util.h"

#include <stdlib.h>
#include <string.h>

#include <tilescope/gcl.h>
#include <tilescope/ipu.h>
#include <tilescope/popnn.h>
#include <tilescope/popops.h>
#include <tilescope/poplin.h>
#include <tilescope/profile.h>

/* --- Helpers ---------------------------------------------------------------- */

/* A model of one Mk2 IPU of `tiles` tiles with every library's codelets
 * and the sequence "seq". */
static void model_init(tsi_test_model *m, unsigned tiles)
{
	tsi_test_model_init(m, 1, tiles, 1);
	assert_int_equal(tsi_popops_add_codelets(m->graph), TSI_OK);
	assert_int_equal(tsi_popnn_add_codelets(m->graph), TSI_OK);
	assert_int_equal(tsi_poplin_add_codelets(m->graph), TSI_OK);
	m->seq = tsi_prog_sequence(m->graph, "seq");
	assert_non_null(m->seq);
}

/* A float variable of `n` elements spread over the graph's tiles. */
static tsi_tensor *spread_var(tsi_graph *g, size_t rank, const size_t *shape, const char *name)
{
	tsi_tensor *t = tsi_graph_add_variable(g, TSI_FLOAT, rank, shape, name);

	assert_non_null(t);
	assert_int_equal(tsi_graph_map_linearly(g, t, 1), TSI_OK);
	return t;
}

/* Compiles m->seq and returns the graph profile. */
static const tsi_graph_profile *compile(tsi_test_model *m)
{
	const tsi_graph_profile *gp;

	tsi_test_model_load(m, NULL, 0, NULL);
	gp = tsi_engine_get_graph_profile(m->engine);
	assert_non_null(gp);
	return gp;
}

/* The context `id` of the profile, checked to exist and to hold its id. */
static const tsi_debug_context_profile *ctx(const tsi_graph_profile *gp, uint32_t id)
{
	assert_true(id >= 1 && id <= gp->n_debug_contexts);
	assert_int_equal(gp->debug_contexts[id - 1].id, id);
	return &gp->debug_contexts[id - 1];
}

/* The id of the only context opened by `api` with `name`; fails unless
 * there is exactly one. */
static uint32_t find_ctx(const tsi_graph_profile *gp, const char *api, const char *name)
{
	uint32_t found = 0;

	for (size_t i = 0; i < gp->n_debug_contexts; i++) {
		const tsi_debug_context_profile *d = &gp->debug_contexts[i];
		if (d->api && strcmp(d->api, api) == 0 && strcmp(d->name, name) == 0) {
			assert_int_equal(found, 0);
			found = d->id;
		}
	}
	if (!found)
		fail_msg("no debug context %s '%s'", api, name);
	return found;
}

/* The number of contexts opened by `api`. */
static size_t count_api(const tsi_graph_profile *gp, const char *api)
{
	size_t n = 0;

	for (size_t i = 0; i < gp->n_debug_contexts; i++)
		n += gp->debug_contexts[i].api && strcmp(gp->debug_contexts[i].api, api) == 0;
	return n;
}

/* Profile index of the compute set named `name` (fails if absent). */
static size_t find_cs(const tsi_graph_profile *gp, const char *name)
{
	for (size_t i = 0; i < gp->n_compute_sets; i++)
		if (gp->compute_sets[i].name && strcmp(gp->compute_sets[i].name, name) == 0)
			return i;
	fail_msg("no compute set '%s'", name);
	return 0;
}

/* Profile index of the variable named `name` (fails if absent). */
static size_t find_var(const tsi_graph_profile *gp, const char *name)
{
	for (size_t i = 0; i < gp->n_variables; i++)
		if (strcmp(gp->variables[i].name, name) == 0)
			return i;
	fail_msg("no variable '%s'", name);
	return 0;
}

/* Index of the OnTileExecute program of profile compute set `cs`. */
static size_t find_ote(const tsi_graph_profile *gp, size_t cs)
{
	for (size_t i = 0; i < gp->n_programs; i++)
		if (gp->programs[i].type == TSI_LP_ON_TILE_EXECUTE &&
		    gp->programs[i].compute_set == (int32_t)cs)
			return i;
	fail_msg("no OnTileExecute for compute set %zu", cs);
	return 0;
}

/* --- Tests ----------------------------------------------------------------- */

/* Ids count from 1 in creation order; a push nests under the innermost
 * open context and a pop returns to its parent. */
static void test_nesting_and_ids(void **state)
{
	tsi_test_model m;
	const tsi_graph_profile *gp;
	tsi_debug_id a, b, c, d;
	(void)state;

	model_init(&m, 4);
	assert_int_equal(tsi_debug_current(m.graph), 0);
	assert_int_equal(tsi_debug_push(NULL, "x", NULL), 0);
	assert_int_equal(tsi_debug_current(NULL), 0);
	tsi_debug_pop(NULL, 1); /* harmless */

	a = tsi_debug_push(m.graph, "model", NULL);
	assert_int_equal(a, 1);
	assert_int_equal(tsi_debug_current(m.graph), a);
	b = tsi_debug_push(m.graph, "fc1", "user");
	assert_int_equal(b, 2);
	assert_int_equal(tsi_debug_current(m.graph), b);
	tsi_debug_pop(m.graph, b);
	assert_int_equal(tsi_debug_current(m.graph), a);
	c = tsi_debug_push(m.graph, NULL, "mylayer");
	assert_int_equal(c, 3);
	tsi_debug_pop(m.graph, c);
	tsi_debug_pop(m.graph, a);
	assert_int_equal(tsi_debug_current(m.graph), 0);
	d = tsi_debug_push(m.graph, "loss", NULL);
	assert_int_equal(d, 4);
	tsi_debug_pop(m.graph, d);

	gp = compile(&m);
	assert_int_equal(gp->n_debug_contexts, 4);
	assert_int_equal(ctx(gp, a)->parent, 0);
	assert_string_equal(ctx(gp, a)->name, "model");
	assert_string_equal(ctx(gp, a)->layer, "user");
	assert_null(ctx(gp, a)->api);
	assert_int_equal(ctx(gp, b)->parent, a);
	assert_string_equal(ctx(gp, b)->name, "fc1");
	assert_int_equal(ctx(gp, c)->parent, a);
	assert_string_equal(ctx(gp, c)->name, "unnamed");
	assert_string_equal(ctx(gp, c)->layer, "mylayer");
	assert_int_equal(ctx(gp, d)->parent, 0);
	tsi_test_model_free(&m);
}

/* Popping anything but the innermost context (or 0) changes nothing and
 * says so in the log at WARN. */
static void test_unbalanced_pop(void **state)
{
	tsi_test_model m;
	char *dir = tsi_test_mkdtemp();
	char log_path[4096];
	tsi_debug_id outer, inner;
	char *text;
	(void)state;

	snprintf(log_path, sizeof(log_path), "%s/poplar.log", dir);
	setenv("POPLAR_LOG_LEVEL", "WARN", 1);
	setenv("POPLAR_LOG_DEST", log_path, 1);
	tsi_log_reconfigure();

	model_init(&m, 4);
	outer = tsi_debug_push(m.graph, "outer", NULL);
	inner = tsi_debug_push(m.graph, "inner", NULL);
	tsi_debug_pop(m.graph, outer); /* not the innermost */
	assert_int_equal(tsi_debug_current(m.graph), inner);
	tsi_debug_pop(m.graph, 0);
	tsi_debug_pop(m.graph, 77); /* never existed */
	assert_int_equal(tsi_debug_current(m.graph), inner);
	tsi_debug_pop(m.graph, inner);
	assert_int_equal(tsi_debug_current(m.graph), outer);
	tsi_debug_pop(m.graph, outer);
	assert_int_equal(tsi_debug_current(m.graph), 0);
	tsi_debug_pop(m.graph, outer); /* already closed */
	tsi_test_model_free(&m);

	unsetenv("POPLAR_LOG_LEVEL");
	unsetenv("POPLAR_LOG_DEST");
	tsi_log_reconfigure();
	text = tsi_test_read_file(log_path);
	assert_non_null(strstr(text, "W: tsi_debug_pop: debug context 1 'outer' is not the "
	                             "innermost open one (2); ignored"));
	assert_non_null(strstr(text, "debug context 0 is not"));
	assert_non_null(strstr(text, "debug context 77 is not"));
	assert_non_null(strstr(text, "debug context 1 'outer' is not the innermost open one (0)"));
	/* The balanced pops logged nothing. */
	assert_null(strstr(text, "'inner' is not"));
	free(text);
	tsi_test_rmtree(dir);
}

/* Every library's operations open a context with their layer, Poplar's
 * function name and the debug name (or the default one); an operation
 * built on another public one (add on map) opens one context, not two. */
static void test_op_contexts(void **state)
{
	tsi_test_model m;
	const tsi_graph_profile *gp;
	tsi_tensor *a, *b, *mm_a, *mm_b;
	static const struct {
		const char *api, *name, *layer;
	} expected[] = {
		{"popops::add", "sum", "popops"},
		{"popops::add", "Add", "popops"},
		{"popops::mul", "Mul", "popops"},
		{"popops::max", "Max", "popops"},
		{"popops::subInPlace", "Sub", "popops"},
		{"popops::exp", "Exp", "popops"},
		{"popops::scaledAddTo", "sgd", "popops"},
		{"popops::fill", "Fill", "popops"},
		{"popops::reduce", "Reduce", "popops"},
		{"popnn::nonLinearity", "act", "popnn"},
		{"poplin::matMul", "fc", "poplin"},
	};
	const size_t n_expected = sizeof(expected) / sizeof(expected[0]);
	(void)state;

	model_init(&m, 8);
	a = spread_var(m.graph, TSI_SHAPE(64), "a");
	b = spread_var(m.graph, TSI_SHAPE(64), "b");
	mm_a = spread_var(m.graph, TSI_SHAPE(4, 16), "mmA");
	mm_b = spread_var(m.graph, TSI_SHAPE(16, 4), "mmB");
	assert_non_null(tsi_popops_add(m.graph, a, b, m.seq, "sum"));
	assert_non_null(tsi_popops_add(m.graph, a, b, m.seq, NULL));
	assert_non_null(tsi_popops_mul(m.graph, a, b, m.seq, NULL));
	assert_non_null(tsi_popops_map_binary(m.graph, TSI_POPOPS_MAXIMUM, a, b, m.seq, NULL));
	assert_int_equal(tsi_popops_map_binary_in_place(m.graph, TSI_POPOPS_SUBTRACT, a, b, m.seq,
	                                                NULL),
	                 TSI_OK);
	assert_non_null(tsi_popops_map_unary(m.graph, TSI_POPOPS_EXPONENT, a, m.seq, NULL));
	assert_int_equal(tsi_popops_scaled_add_to(m.graph, a, b, 0.5f, m.seq, "sgd"), TSI_OK);
	assert_int_equal(tsi_popops_fill(m.graph, b, 1.0, m.seq, NULL), TSI_OK);
	assert_non_null(tsi_popops_reduce(m.graph, a, (const size_t[]){0}, 1,
	                                  TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT, m.seq, NULL));
	assert_non_null(tsi_popnn_nonlinearity(m.graph, TSI_POPNN_RELU, a, m.seq, "act"));
	assert_non_null(tsi_poplin_matmul(m.graph, mm_a, mm_b, m.seq, "fc"));
	assert_int_equal(tsi_debug_current(m.graph), 0);

	gp = compile(&m);
	assert_int_equal(gp->n_debug_contexts, n_expected);
	for (size_t i = 0; i < n_expected; i++) {
		const tsi_debug_context_profile *d =
		    ctx(gp, find_ctx(gp, expected[i].api, expected[i].name));
		assert_string_equal(d->layer, expected[i].layer);
		assert_int_equal(d->parent, 0);
	}
	assert_int_equal(count_api(gp, "popops::map"), 0);
	tsi_test_model_free(&m);
}

/* An operation that fails, on any of its return paths, closes its
 * context: the model's own context is innermost again afterwards. */
static void test_failed_op_closes(void **state)
{
	tsi_test_model m;
	tsi_tensor *a, *c;
	tsi_debug_id layer;
	(void)state;

	model_init(&m, 4);
	a = spread_var(m.graph, TSI_SHAPE(8), "a");
	c = spread_var(m.graph, TSI_SHAPE(5), "c");
	layer = tsi_debug_push(m.graph, "layer", NULL);
	assert_null(tsi_popops_add(m.graph, a, c, m.seq, "shapes"));     /* bad broadcast */
	assert_int_equal(tsi_debug_current(m.graph), layer);
	assert_null(tsi_popops_add(m.graph, a, NULL, m.seq, "null"));    /* NULL operand */
	assert_int_equal(tsi_debug_current(m.graph), layer);
	assert_null(tsi_poplin_matmul(m.graph, a, c, m.seq, "mm"));      /* rank 1 */
	assert_int_equal(tsi_debug_current(m.graph), layer);
	assert_int_not_equal(tsi_popnn_calc_loss(m.graph, a, NULL, NULL, NULL,
	                                         TSI_POPNN_SUM_SQUARED_LOSS, m.seq, NULL),
	                     TSI_OK);
	assert_int_equal(tsi_debug_current(m.graph), layer);
	assert_null(tsi_popops_add(NULL, a, a, m.seq, NULL));            /* no graph */
	assert_int_equal(tsi_debug_current(m.graph), layer);
	tsi_debug_pop(m.graph, layer);
	assert_int_equal(tsi_debug_current(m.graph), 0);
	tsi_test_model_free(&m);
}

/*
 * A model's own context is the parent of the operations opened inside
 * it, and what each operation makes carries the operation's id in the
 * graph profile: its compute set, its output variable, its OnTileExecute
 * and the exchange inserted before it (with that exchange's message
 * buffer). What the model makes itself inside the context carries the
 * model's id; what is made outside any carries 0.
 */
static void test_profile_ids(void **state)
{
	tsi_test_model m;
	const tsi_graph_profile *gp;
	tsi_tensor *a, *b, *w;
	tsi_debug_id layer;
	uint32_t sum, act, relu_cs;
	size_t cs;
	bool found_exchange = false, found_message = false;
	(void)state;

	model_init(&m, 4);
	a = spread_var(m.graph, TSI_SHAPE(64), "a");
	b = tsi_graph_add_variable(m.graph, TSI_FLOAT, TSI_SHAPE(64), "b");
	assert_non_null(b);
	assert_int_equal(tsi_graph_set_tile_mapping(m.graph, b, 3), TSI_OK); /* tiles 0-2 fetch */
	layer = tsi_debug_push(m.graph, "layer1", NULL);
	w = spread_var(m.graph, TSI_SHAPE(64), "w");
	tsi_tensor *s = tsi_popops_add(m.graph, a, b, m.seq, "sum");
	assert_non_null(s);
	assert_non_null(tsi_popops_mul(m.graph, s, w, m.seq, "scale"));
	tsi_debug_pop(m.graph, layer);
	assert_non_null(tsi_popnn_nonlinearity(m.graph, TSI_POPNN_RELU, a, m.seq, "act"));

	gp = compile(&m);
	sum = find_ctx(gp, "popops::add", "sum");
	act = find_ctx(gp, "popnn::nonLinearity", "act");
	assert_int_equal(ctx(gp, sum)->parent, layer);
	assert_int_equal(ctx(gp, find_ctx(gp, "popops::mul", "scale"))->parent, layer);
	assert_int_equal(ctx(gp, act)->parent, 0);

	cs = find_cs(gp, "layer1/sum");
	assert_int_equal(gp->compute_sets[cs].debug_context, sum);
	assert_int_equal(gp->variables[find_var(gp, "layer1/sum/out")].debug_context, sum);
	assert_int_equal(gp->programs[find_ote(gp, cs)].debug_context, sum);
	for (size_t i = 0; i < gp->n_programs; i++) {
		if (gp->programs[i].type == TSI_LP_DO_EXCHANGE && gp->programs[i].name &&
		    strcmp(gp->programs[i].name, "layer1/sum/ExchangePre") == 0) {
			assert_int_equal(gp->programs[i].debug_context, sum);
			found_exchange = true;
		}
	}
	assert_true(found_exchange);
	for (size_t i = 0; i < gp->n_variables; i++) {
		if (strstr(gp->variables[i].name, "<message:layer1/sum/")) {
			assert_int_equal(gp->variables[i].debug_context, sum);
			found_message = true;
		}
	}
	assert_true(found_message);

	relu_cs = (uint32_t)find_cs(gp, "act");
	assert_int_equal(gp->compute_sets[relu_cs].debug_context, act);
	assert_int_equal(gp->variables[find_var(gp, "act/out")].debug_context, act);
	assert_int_equal(gp->variables[find_var(gp, "layer1/w")].debug_context, layer);
	assert_int_equal(gp->variables[find_var(gp, "a")].debug_context, 0);
	assert_int_equal(gp->variables[find_var(gp, "b")].debug_context, 0);
	tsi_test_model_free(&m);
}

/*
 * Operations nest: a matmul's partial products and their reduction stage
 * (compute sets, partials variable) are the matmul's, and a reduction over
 * an empty dimension fills its output through popops::fill, whose context
 * is a child of the reduce's.
 */
static void test_nested_ops(void **state)
{
	tsi_test_model m;
	const tsi_graph_profile *gp;
	tsi_tensor *x, *y, *e;
	uint32_t fc, red, fill;
	(void)state;

	model_init(&m, 16);
	x = spread_var(m.graph, TSI_SHAPE(4, 4096), "x");
	y = spread_var(m.graph, TSI_SHAPE(4096, 4), "y");
	assert_non_null(tsi_poplin_matmul(m.graph, x, y, m.seq, "fc"));
	e = tsi_graph_add_variable(m.graph, TSI_FLOAT, TSI_SHAPE(0, 4), "empty");
	assert_non_null(e);
	assert_non_null(tsi_popops_reduce(m.graph, e, (const size_t[]){0}, 1,
	                                  TSI_POPOPS_REDUCE_ADD, 1.0f, TSI_FLOAT, m.seq, "red"));

	gp = compile(&m);
	fc = find_ctx(gp, "poplin::matMul", "fc");
	assert_int_equal(gp->compute_sets[find_cs(gp, "fc/Partials")].debug_context, fc);
	assert_int_equal(gp->compute_sets[find_cs(gp, "fc/Reduce")].debug_context, fc);
	assert_int_equal(gp->variables[find_var(gp, "fc/partials")].debug_context, fc);
	assert_int_equal(gp->variables[find_var(gp, "fc/out")].debug_context, fc);

	red = find_ctx(gp, "popops::reduce", "red");
	fill = find_ctx(gp, "popops::fill", "red/Fill");
	assert_int_equal(ctx(gp, fill)->parent, red);
	assert_true(fill > red);
	assert_int_equal(gp->variables[find_var(gp, "red/out")].debug_context, red);
	assert_int_equal(gp->compute_sets[find_cs(gp, "red/Fill")].debug_context, fill);
	tsi_test_model_free(&m);
}

/* A virtual graph shares its parent's contexts: an operation on it opens
 * its context under the layer open on the top-level graph, and a context
 * opened through it is the top-level graph's innermost. */
static void test_virtual_graph(void **state)
{
	tsi_test_model m;
	const tsi_graph_profile *gp;
	tsi_graph *v;
	tsi_tensor *a;
	tsi_debug_id stage, inner;
	(void)state;

	model_init(&m, 8);
	v = tsi_graph_create_virtual(m.graph, 4, 8);
	assert_non_null(v);
	a = spread_var(v, TSI_SHAPE(32), "a");
	stage = tsi_debug_push(m.graph, "stage1", NULL);
	assert_int_equal(tsi_debug_current(v), stage);
	assert_non_null(tsi_popops_add(v, a, a, m.seq, "double"));
	inner = tsi_debug_push(v, "inner", NULL);
	assert_int_equal(tsi_debug_current(m.graph), inner);
	tsi_debug_pop(m.graph, inner);
	tsi_debug_pop(v, stage);
	assert_int_equal(tsi_debug_current(m.graph), 0);

	gp = compile(&m);
	assert_int_equal(ctx(gp, find_ctx(gp, "popops::add", "double"))->parent, stage);
	assert_int_equal(ctx(gp, inner)->parent, stage);
	tsi_test_model_free(&m);
}

/* A model's compute set built inside its context belongs to it, with its
 * OnTileExecute; one built and run outside any belongs to none. */
static void test_user_compute_set(void **state)
{
	tsi_test_model m;
	const tsi_graph_profile *gp;
	tsi_compute_set *mine, *other;
	tsi_debug_id layer;
	size_t cs;
	(void)state;

	model_init(&m, 4);
	other = tsi_graph_add_compute_set(m.graph, "other");
	layer = tsi_debug_push(m.graph, "custom", NULL);
	mine = tsi_graph_add_compute_set(m.graph, "mine");
	assert_int_equal(tsi_sequence_add(m.seq, tsi_prog_execute(m.graph, mine)), TSI_OK);
	tsi_debug_pop(m.graph, layer);
	assert_int_equal(tsi_sequence_add(m.seq, tsi_prog_execute(m.graph, other)), TSI_OK);

	gp = compile(&m);
	cs = find_cs(gp, "custom/mine");
	assert_int_equal(gp->compute_sets[cs].debug_context, layer);
	assert_int_equal(gp->programs[find_ote(gp, cs)].debug_context, layer);
	cs = find_cs(gp, "other");
	assert_int_equal(gp->compute_sets[cs].debug_context, 0);
	assert_int_equal(gp->programs[find_ote(gp, cs)].debug_context, 0);
	tsi_test_model_free(&m);
}

/* gcl: allReduce opens one context (its building block allReduceTo-
 * Destination opens none inside it) and the collective's lowered program
 * carries it. */
static void test_gcl_context(void **state)
{
	tsi_test_model m;
	const tsi_graph_profile *gp;
	tsi_tensor *data;
	uint32_t id;
	bool found = false;
	(void)state;

	tsi_test_model_init(&m, 2, 4, 2);
	m.seq = tsi_prog_sequence(m.graph, "seq");
	data = spread_var(m.graph, TSI_SHAPE(16), "grads");
	assert_non_null(tsi_gcl_all_reduce(m.graph, data, TSI_COLLECTIVE_ADD, m.seq,
	                                   TSI_COMM_GROUP_ALL, "sync"));
	gp = compile(&m);
	id = find_ctx(gp, "gcl::allReduce", "sync");
	assert_string_equal(ctx(gp, id)->layer, "gcl");
	assert_int_equal(gp->n_debug_contexts, 1);
	assert_int_equal(gp->variables[find_var(gp, "sync/out")].debug_context, id);
	for (size_t i = 0; i < gp->n_programs; i++)
		if (gp->programs[i].type == TSI_LP_GLOBAL_EXCHANGE)
			found = found || gp->programs[i].debug_context == id;
	assert_true(found);
	tsi_test_model_free(&m);
}

/* The issue 17 naming rule: a model's contexts prefix the names of what is
 * made inside them, nested contexts nest ("model/fc1/..."), the contexts
 * the operations open add nothing (the operation already names its
 * compute sets after the name it was given), and names made outside every
 * context, stream names and host handles are left as given. */
static void test_layer_prefixes(void **state)
{
	tsi_test_model m;
	const tsi_graph_profile *gp;
	tsi_tensor *x, *w1, *w2, *h, *y;
	tsi_program *inner;
	tsi_compute_set *mine;
	tsi_debug_id model, fc1, fc2, act;
	bool found_prog = false;
	(void)state;

	model_init(&m, 8);
	x = spread_var(m.graph, TSI_SHAPE(4, 16), "x");
	model = tsi_debug_push(m.graph, "model", NULL);
	fc1 = tsi_debug_push(m.graph, "fc1", NULL);
	w1 = tsi_poplin_create_matmul_input_rhs(m.graph, TSI_FLOAT, 4, 16, 8, "W");
	assert_non_null(w1);
	h = tsi_poplin_matmul(m.graph, x, w1, m.seq, "matmul");
	assert_non_null(h);
	act = tsi_debug_push(m.graph, "act", NULL);
	assert_non_null(tsi_popnn_nonlinearity(m.graph, TSI_POPNN_RELU, h, m.seq, "relu"));
	tsi_debug_pop(m.graph, act);
	tsi_debug_pop(m.graph, fc1);
	fc2 = tsi_debug_push(m.graph, "fc2", NULL);
	w2 = tsi_poplin_create_matmul_input_rhs(m.graph, TSI_FLOAT, 4, 8, 4, "W");
	assert_non_null(w2);
	y = tsi_poplin_matmul(m.graph, h, w2, m.seq, "matmul");
	assert_non_null(y);
	mine = tsi_graph_add_compute_set(m.graph, "mine");
	assert_non_null(mine);
	inner = tsi_prog_sequence(m.graph, "step");
	assert_non_null(inner);
	assert_int_equal(tsi_sequence_add(inner, tsi_prog_execute(m.graph, mine)), TSI_OK);
	assert_int_equal(tsi_sequence_add(m.seq, inner), TSI_OK);
	tsi_debug_pop(m.graph, fc2);
	tsi_debug_pop(m.graph, model);
	/* The name the caller gave, with its path, in the API too. */
	assert_string_equal(tsi_compute_set_name(mine), "model/fc2/mine");
	assert_string_equal(tsi_program_name(inner), "model/fc2/step");

	gp = compile(&m);
	/* Every compute set of each layer's matmul carries the layer. */
	(void)find_cs(gp, "model/fc1/matmul/Partials");
	(void)find_cs(gp, "model/fc2/matmul/Partials");
	(void)find_cs(gp, "model/fc1/act/relu");
	(void)find_var(gp, "model/fc1/W");
	(void)find_var(gp, "model/fc2/W");
	(void)find_var(gp, "model/fc1/matmul/out");
	(void)find_var(gp, "x");
	assert_int_equal(gp->compute_sets[find_cs(gp, "model/fc2/mine")].debug_context, fc2);
	for (size_t i = 0; i < gp->n_compute_sets; i++) {
		const char *name = gp->compute_sets[i].name;

		/* No bare op name, and no op context doubled into the path. */
		assert_true(strncmp(name, "matmul", 6) != 0);
		assert_null(strstr(name, "matmul/matmul"));
	}
	for (size_t i = 0; i < gp->n_programs; i++)
		if (gp->programs[i].name && strcmp(gp->programs[i].name, "model/fc2/step") == 0)
			found_prog = true;
	assert_true(found_prog);
	/* The contexts keep their own names; the path is only in the names. */
	assert_string_equal(ctx(gp, fc1)->name, "fc1");
	assert_int_equal(ctx(gp, fc1)->parent, model);
	tsi_test_model_free(&m);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(test_nesting_and_ids),
	cmocka_unit_test(test_unbalanced_pop),
	cmocka_unit_test(test_op_contexts),
	cmocka_unit_test(test_failed_op_closes),
	cmocka_unit_test(test_profile_ids),
	cmocka_unit_test(test_nested_ops),
	cmocka_unit_test(test_virtual_graph),
	cmocka_unit_test(test_user_compute_set),
	cmocka_unit_test(test_gcl_context),
	cmocka_unit_test(test_layer_prefixes),
};

int main(void)
{
	return cmocka_run_group_tests(tests, NULL, NULL);
}
