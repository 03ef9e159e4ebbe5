/*
 * Unit tests of poplin (tilescope/poplin.h): matmul results against a
 * host matmul for float and half over several shapes, a transposed
 * operand, matmul_acc, inputs laid out by the planner, the planner's
 * properties, the AMP vertex's calibration against measured Bow IPU
 * throughput, and the errors recorded for bad operands.
 */
#include "test-util.h"

#include <tilescope/ipu.h>
#include <tilescope/poplin.h>
#include <tilescope/profile.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AMP_NAME "poplin::ConvPartial1x1Out<half,float,true,false>"

/* A device of `tiles` tiles with a graph that has the poplin codelets. */
typedef tsi_test_model fixture;

/* Sets up `f` on an IPU Model of one `version` IPU with `tiles` tiles. */
static void fx_init(fixture *f, tsi_ipu_version version, unsigned tiles)
{
	tsi_test_model_init_ipu(f, version, 1, tiles, 1);
	assert_int_equal(tsi_poplin_add_codelets(f->graph), TSI_OK);
	f->seq = tsi_prog_sequence(f->graph, "seq");
	assert_non_null(f->seq);
}

/* Deterministic values in [-1, 1). */
static void fill_random(float *v, size_t n, uint32_t seed)
{
	uint32_t s = seed * 2654435761u + 12345u;

	for (size_t i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		v[i] = (float)((s >> 8) & 0xffff) / 32768.0f - 1.0f;
	}
}

/* Host buffer of device type `type` holding `v` (half: rounded; `v` is
 * rounded in place too so the reference sees what the device sees). */
static void *to_device(tsi_type type, float *v, size_t n)
{
	void *buf = malloc(n * tsi_type_size(type));

	assert_non_null(buf);
	for (size_t i = 0; i < n; i++) {
		tsi_type_store(type, buf, i, v[i]);
		v[i] = (float)tsi_type_load(type, buf, i);
	}
	return buf;
}

/* Writes `v` (n values) through host write handle `handle` as `type`. */
static void write_values(fixture *f, const char *handle, tsi_type type, float *v, size_t n)
{
	void *buf = to_device(type, v, n);

	assert_int_equal(tsi_engine_write_tensor(f->engine, handle, buf, n * tsi_type_size(type)),
	                 TSI_OK);
	free(buf);
}

/* Reads n values of `type` through `handle` as floats. */
static void read_values(fixture *f, const char *handle, tsi_type type, float *out, size_t n)
{
	void *buf = malloc(n * tsi_type_size(type));

	assert_non_null(buf);
	assert_int_equal(tsi_engine_read_tensor(f->engine, handle, buf, n * tsi_type_size(type)),
	                 TSI_OK);
	for (size_t i = 0; i < n; i++)
		out[i] = (float)tsi_type_load(type, buf, i);
	free(buf);
}

/* ref[m, n] = a[m, k] x b[k, n] in double (a_t: a is stored [k, m]). */
static void host_matmul(double *ref, const float *a, const float *b, size_t m, size_t k,
                        size_t n, bool a_t)
{
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			double s = 0;
			for (size_t l = 0; l < k; l++)
				s += (double)(a_t ? a[l * m + i] : a[i * k + l]) * b[l * n + j];
			ref[i * n + j] = s;
		}
}

/* Checks got against ref: float to a relative 1e-5 of the sum of |terms|
 * scale, half to the rounding of the result (2^-11 relative) plus that. */
static void check_result(const float *got, const double *ref, size_t count, tsi_type type,
                         size_t k)
{
	for (size_t i = 0; i < count; i++) {
		double tol = 1e-5 * (double)k + (type == TSI_HALF ? 1e-3 * fabs(ref[i]) + 1e-4 : 0);

		assert_close(got[i], ref[i], tol);
	}
}

/* Multiplies random [m, k] x [k, n] matrices of `type` on `tiles` tiles,
 * the operands mapped linearly (or created by poplin when `planned`), and
 * checks the result. Returns the plan used. */
static tsi_poplin_plan check_matmul(tsi_type type, size_t m, size_t k, size_t n, unsigned tiles,
                                   bool planned)
{
	fixture f;
	tsi_poplin_plan plan;
	float *av = malloc(m * k * sizeof(float));
	float *bv = malloc(k * n * sizeof(float));
	float *got = malloc(m * n * sizeof(float));
	double *ref = malloc(m * n * sizeof(double));
	tsi_tensor *a, *b, *c;

	assert_true(av && bv && got && ref);
	fx_init(&f, TSI_IPU_MK2, tiles);
	if (planned) {
		a = tsi_poplin_create_matmul_input_lhs(f.graph, type, m, k, n, "a");
		b = tsi_poplin_create_matmul_input_rhs(f.graph, type, m, k, n, "b");
	} else {
		a = tsi_graph_add_variable(f.graph, type, TSI_SHAPE(m, k), "a");
		b = tsi_graph_add_variable(f.graph, type, TSI_SHAPE(k, n), "b");
		assert_int_equal(tsi_graph_map_linearly(f.graph, a, 1), TSI_OK);
		assert_int_equal(tsi_graph_map_linearly(f.graph, b, 1), TSI_OK);
	}
	assert_non_null(a);
	assert_non_null(b);
	assert_true(tsi_graph_is_mapped(f.graph, a));
	assert_true(tsi_graph_is_mapped(f.graph, b));
	c = tsi_poplin_matmul(f.graph, a, b, f.seq, "mm");
	assert_non_null(c);
	assert_string_equal(tsi_tensor_name(c), "mm/out");
	assert_int_equal(tsi_tensor_type(c), type);
	assert_int_equal(tsi_tensor_dim(c, 0), m);
	assert_int_equal(tsi_tensor_dim(c, 1), n);
	assert_true(tsi_graph_is_mapped(f.graph, c));
	assert_int_equal(tsi_graph_create_host_write(f.graph, "a", a), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f.graph, "b", b), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f.graph, "c", c), TSI_OK);
	assert_int_equal(tsi_poplin_plan_matmul(&plan, f.graph, type, m, k, n), TSI_OK);
	tsi_test_model_load(&f, NULL, 0, NULL);

	fill_random(av, m * k, (uint32_t)(m * 31 + k));
	fill_random(bv, k * n, (uint32_t)(n * 17 + k + 1));
	write_values(&f, "a", type, av, m * k);
	write_values(&f, "b", type, bv, k * n);
	tsi_test_run(f.engine, 0);
	read_values(&f, "c", type, got, m * n);
	host_matmul(ref, av, bv, m, k, n, false);
	check_result(got, ref, m * n, type, k);

	tsi_test_model_free(&f);
	free(av);
	free(bv);
	free(got);
	free(ref);
	return plan;
}

/* Float results for 1x1x1, 3x5x2, 64x128x32 and 100x784x10. */
static void test_float_values(void **state)
{
	(void)state;
	check_matmul(TSI_FLOAT, 1, 1, 1, 16, false);
	check_matmul(TSI_FLOAT, 3, 5, 2, 16, false);
	check_matmul(TSI_FLOAT, 64, 128, 32, 16, false);
	check_matmul(TSI_FLOAT, 100, 784, 10, 16, false);
}

/* Half results (AMP vertex, float accumulation) for the same shapes. */
static void test_half_values(void **state)
{
	(void)state;
	check_matmul(TSI_HALF, 1, 1, 1, 16, false);
	check_matmul(TSI_HALF, 3, 5, 2, 16, false);
	check_matmul(TSI_HALF, 64, 128, 32, 16, false);
	check_matmul(TSI_HALF, 100, 784, 10, 16, false);
}

/* A long K with small M and N makes the planner split K, and the reduce
 * stage gives the right sums, for float and half. */
static void test_k_split(void **state)
{
	(void)state;
	tsi_poplin_plan p = check_matmul(TSI_FLOAT, 4, 4096, 4, 16, false);

	assert_true(p.k_split > 1);
	assert_true(p.est_reduce_cycles > 0);
	p = check_matmul(TSI_HALF, 4, 4096, 4, 16, false);
	assert_true(p.k_split > 1);
}

/* Operands from create_matmul_input_lhs/rhs: mapped over the plan's
 * tiles, and the matmul on them is right. */
static void test_planned_inputs(void **state)
{
	(void)state;
	fixture f;
	tsi_poplin_plan plan;
	tsi_mapping_interval *map = NULL;
	size_t n_map = 0;
	bool used[16] = {false};
	unsigned distinct = 0;
	tsi_tensor *a;

	check_matmul(TSI_FLOAT, 64, 128, 32, 16, true);
	check_matmul(TSI_HALF, 64, 128, 32, 16, true);

	fx_init(&f, TSI_IPU_MK2, 16);
	assert_int_equal(tsi_poplin_plan_matmul(&plan, f.graph, TSI_FLOAT, 64, 128, 32), TSI_OK);
	a = tsi_poplin_create_matmul_input_lhs(f.graph, TSI_FLOAT, 64, 128, 32, "lhs");
	assert_non_null(a);
	assert_int_equal(tsi_tensor_dim(a, 0), 64);
	assert_int_equal(tsi_tensor_dim(a, 1), 128);
	/* Each block of the plan is one contiguous run of the variable. */
	for (size_t i = 0; i < plan.m_split; i++)
		for (size_t j = 0; j < plan.k_split; j++) {
			const size_t begin[2] = {i * 64 / plan.m_split, j * 128 / plan.k_split};
			const size_t end[2] = {(i + 1) * 64 / plan.m_split, (j + 1) * 128 / plan.k_split};

			assert_true(tsi_tensor_is_contiguous(tsi_tensor_slice_md(a, begin, end, 2)));
		}
	assert_true(plan.m_split * plan.k_split > 1);
	assert_false(tsi_tensor_is_contiguous(a));
	assert_int_equal(tsi_graph_list_tile_mapping(&map, &n_map, f.graph, a), TSI_OK);
	for (size_t i = 0; i < n_map; i++) {
		assert_true(map[i].tile < plan.tiles_used);
		if (!used[map[i].tile])
			distinct++;
		used[map[i].tile] = true;
	}
	/* Every tile of the plan holds part of A (blocks are big enough). */
	assert_int_equal(distinct, plan.tiles_used);
	free(map);
	tsi_test_model_free(&f);
}

/* Logistic regression's gradient x^T @ delta: a [784, 100] transposed
 * view of a [100, 784] variable times [100, 10]. */
static void test_transposed_operand(void **state)
{
	(void)state;
	const size_t rows = 100, cols = 784, classes = 10;
	fixture f;
	float *xv = malloc(rows * cols * sizeof(float));
	float *dv = malloc(rows * classes * sizeof(float));
	float *got = malloc(cols * classes * sizeof(float));
	double *ref = malloc(cols * classes * sizeof(double));
	tsi_tensor *x, *delta, *grad;

	assert_true(xv && dv && got && ref);
	fx_init(&f, TSI_IPU_MK2, 16);
	x = tsi_poplin_create_matmul_input_lhs(f.graph, TSI_FLOAT, rows, cols, classes, "x");
	delta = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(rows, classes), "delta");
	assert_int_equal(tsi_graph_map_linearly(f.graph, delta, 1), TSI_OK);
	grad = tsi_poplin_matmul(f.graph, tsi_tensor_transpose(x), delta, f.seq, "grad");
	assert_non_null(grad);
	assert_int_equal(tsi_tensor_dim(grad, 0), cols);
	assert_int_equal(tsi_tensor_dim(grad, 1), classes);
	assert_int_equal(tsi_graph_create_host_write(f.graph, "x", x), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f.graph, "delta", delta), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f.graph, "grad", grad), TSI_OK);
	tsi_test_model_load(&f, NULL, 0, NULL);
	fill_random(xv, rows * cols, 7);
	fill_random(dv, rows * classes, 8);
	write_values(&f, "x", TSI_FLOAT, xv, rows * cols);
	write_values(&f, "delta", TSI_FLOAT, dv, rows * classes);
	tsi_test_run(f.engine, 0);
	read_values(&f, "grad", TSI_FLOAT, got, cols * classes);
	host_matmul(ref, xv, dv, cols, rows, classes, true);
	check_result(got, ref, cols * classes, TSI_FLOAT, rows);
	tsi_test_model_free(&f);
	free(xv);
	free(dv);
	free(got);
	free(ref);
}

/* c += -0.1 * a x b, run twice, for float and half. */
static void check_acc(tsi_type type)
{
	const size_t m = 20, k = 50, n = 10;
	const float alpha = -0.1f;
	fixture f;
	float av[20 * 50], bv[50 * 10], cv[20 * 10], got[20 * 10];
	double ref[20 * 10];
	tsi_tensor *a, *b, *c;

	fx_init(&f, TSI_IPU_MK2, 16);
	a = tsi_graph_add_variable(f.graph, type, TSI_SHAPE(m, k), "a");
	b = tsi_graph_add_variable(f.graph, type, TSI_SHAPE(k, n), "b");
	c = tsi_graph_add_variable(f.graph, type, TSI_SHAPE(m, n), "c");
	assert_int_equal(tsi_graph_map_linearly(f.graph, a, 1), TSI_OK);
	assert_int_equal(tsi_graph_map_linearly(f.graph, b, 1), TSI_OK);
	assert_int_equal(tsi_graph_set_tile_mapping(f.graph, c, 3), TSI_OK);
	assert_int_equal(tsi_poplin_matmul_acc(f.graph, c, alpha, a, b, f.seq, "acc"), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f.graph, "a", a), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f.graph, "b", b), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f.graph, "c", c), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f.graph, "c_out", c), TSI_OK);
	tsi_test_model_load(&f, NULL, 0, NULL);
	fill_random(av, m * k, 3);
	fill_random(bv, k * n, 4);
	fill_random(cv, m * n, 5);
	write_values(&f, "a", type, av, m * k);
	write_values(&f, "b", type, bv, k * n);
	write_values(&f, "c", type, cv, m * n);
	tsi_test_run(f.engine, 0);
	tsi_test_run(f.engine, 0);
	read_values(&f, "c_out", type, got, m * n);
	host_matmul(ref, av, bv, m, k, n, false);
	for (size_t i = 0; i < m * n; i++)
		ref[i] = cv[i] + 2 * alpha * ref[i];
	/* Half: each run rounds c once more. */
	for (size_t i = 0; i < m * n; i++)
		assert_close(got[i], ref[i],
		             type == TSI_HALF ? 3e-3 * fabs(ref[i]) + 2e-3 : 1e-5 * (double)k);
	tsi_test_model_free(&f);
}

static void test_matmul_acc(void **state)
{
	(void)state;
	check_acc(TSI_FLOAT);
	check_acc(TSI_HALF);
}

/* The planner: split product within the tiles, consistent totals,
 * deterministic, 1x1x1 on one tile, more tiles for bigger problems, and
 * fast on a 4096^3 problem over a whole Bow IPU. */
static void test_plan_properties(void **state)
{
	(void)state;
	static const size_t shapes[][3] = {
		{1, 1, 1}, {3, 5, 2}, {64, 128, 32}, {100, 784, 10}, {784, 100, 10}, {512, 512, 512},
	};
	fixture f, one, bow;
	tsi_poplin_plan p, q, small, big;
	struct timespec t0, t1;
	double ms;

	fx_init(&f, TSI_IPU_MK2, 16);
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		for (int t = 0; t < 2; t++) {
			tsi_type type = t ? TSI_HALF : TSI_FLOAT;

			assert_int_equal(tsi_poplin_plan_matmul(&p, f.graph, type, shapes[i][0],
			                                        shapes[i][1], shapes[i][2]),
			                 TSI_OK);
			assert_true(p.m_split >= 1 && p.k_split >= 1 && p.n_split >= 1);
			assert_true(p.m_split <= shapes[i][0] && p.k_split <= shapes[i][1] &&
			            p.n_split <= shapes[i][2]);
			assert_true(p.m_split * p.k_split * p.n_split <= 16);
			assert_int_equal(p.tiles_used, p.m_split * p.k_split * p.n_split);
			assert_true(p.est_total_cycles ==
			            p.est_compute_cycles + p.est_exchange_cycles + p.est_reduce_cycles);
			assert_true(p.est_compute_cycles > 0);
			assert_int_equal(tsi_poplin_plan_matmul(&q, f.graph, type, shapes[i][0],
			                                        shapes[i][1], shapes[i][2]),
			                 TSI_OK);
			assert_true(p.m_split == q.m_split && p.k_split == q.k_split &&
			            p.n_split == q.n_split && p.est_total_cycles == q.est_total_cycles);
		}
	}
	assert_int_equal(tsi_poplin_plan_matmul(&small, f.graph, TSI_FLOAT, 1, 1, 1), TSI_OK);
	assert_int_equal(small.tiles_used, 1);
	assert_int_equal(tsi_poplin_plan_matmul(&big, f.graph, TSI_FLOAT, 512, 512, 512), TSI_OK);
	assert_true(big.tiles_used > 8);

	fx_init(&one, TSI_IPU_MK2, 1);
	assert_int_equal(tsi_poplin_plan_matmul(&p, one.graph, TSI_HALF, 300, 200, 100), TSI_OK);
	assert_int_equal(p.m_split, 1);
	assert_int_equal(p.k_split, 1);
	assert_int_equal(p.n_split, 1);
	assert_int_equal(p.tiles_used, 1);
	assert_int_equal(p.est_exchange_cycles, 0);

	fx_init(&bow, TSI_IPU_BOW, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(tsi_poplin_plan_matmul(&p, bow.graph, TSI_HALF, 4096, 4096, 4096), TSI_OK);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	assert_true(p.tiles_used <= 1472);
	assert_true(p.tiles_used > 1000);
	print_message("4096^3 half on Bow: %zu x %zu x %zu splits, %u tiles, %llu cycles "
	              "(compute %llu, exchange %llu, reduce %llu) = %.1f TFLOPS; planned in %.2f ms\n",
	              p.m_split, p.k_split, p.n_split, p.tiles_used,
	              (unsigned long long)p.est_total_cycles,
	              (unsigned long long)p.est_compute_cycles,
	              (unsigned long long)p.est_exchange_cycles,
	              (unsigned long long)p.est_reduce_cycles,
	              2.0 * 4096 * 4096 * 4096 / ((double)p.est_total_cycles / 1.85e9) / 1e12, ms);
	tsi_test_model_free(&bow);
	tsi_test_model_free(&one);
	tsi_test_model_free(&f);
}

/*
 * Calibration of the AMP vertex against measured Bow IPU throughput (the
 * IPU peak-TFLOPS notebook): one vertex per tile computing [N,16] x
 * [16,16] in fp16 on all 1,472 tiles at 1.85 GHz. The estimator's implied
 * TFLOPS must be within 5% of the measurement at every N; the table is
 * printed.
 */
/* Simulated cycles of a compute set holding one AMP vertex that computes
 * [rows, 16] x [16, 16] on a one-tile target. */
static uint64_t amp_compute_set_cycles(const tsi_target *target, size_t rows)
{
	tsi_graph *g = NULL;
	tsi_engine *e = NULL;
	uint64_t cycles;

	assert_int_equal(tsi_graph_new(&g, target, 1), TSI_OK);
	assert_int_equal(tsi_poplin_add_codelets(g), TSI_OK);
	tsi_tensor *a = tsi_graph_add_variable(g, TSI_HALF, TSI_SHAPE(rows, 16), "a");
	tsi_tensor *w = tsi_graph_add_variable(g, TSI_HALF, TSI_SHAPE(16, 16), "w");
	tsi_tensor *o = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(rows, 16), "o");
	tsi_graph_set_tile_mapping(g, a, 0);
	tsi_graph_set_tile_mapping(g, w, 0);
	tsi_graph_set_tile_mapping(g, o, 0);
	tsi_compute_set *cs = tsi_graph_add_compute_set(g, "amp");
	tsi_vertex *v = tsi_graph_add_vertex(g, cs, AMP_NAME);
	tsi_graph_connect(g, v, "in", a);
	tsi_graph_connect(g, v, "weights", tsi_tensor_flatten(w));
	tsi_graph_connect(g, v, "out", tsi_tensor_flatten(o));
	tsi_graph_set_vertex_tile(g, v, 0);
	tsi_program *prog = tsi_prog_execute(g, cs);
	assert_int_equal(tsi_engine_new(&e, g, &prog, 1, NULL), TSI_OK);
	cycles = tsi_tile_values_max(&tsi_engine_get_graph_profile(e)->compute_sets[0].cycles_by_tile);
	tsi_engine_free(e);
	tsi_graph_free(g);
	return cycles;
}

static void test_amp_calibration(void **state)
{
	(void)state;
	static const double measured[8] = {55.49366766,  96.70991447,  127.72015878,
	                                   152.79763288, 170.72418021, 186.94235531,
	                                   201.23605773, 211.11875736};
	tsi_target target;
	tsi_graph *graph = NULL;
	const tsi_codelet *amp;

	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_BOW, 1, 1), TSI_OK);
	assert_int_equal(tsi_graph_new(&graph, &target, 1), TSI_OK);
	assert_int_equal(tsi_poplin_add_codelets(graph), TSI_OK);
	amp = tsi_graph_lookup_codelet(graph, AMP_NAME);
	assert_non_null(amp);
	assert_non_null(amp->cycles);
	assert_true(amp->supervisor);

	print_message("%5s %8s %9s %9s %7s\n", "N", "cycles", "TFLOPS", "measured", "error%");
	for (size_t i = 0; i < 8; i++) {
		const size_t n_rows = 16 * (i + 1);
		size_t in_off[129], w_off[2] = {0, 256}, out_off[2] = {0, 16 * n_rows};
		tsi_field fields[3];
		tsi_poplin_plan plan;
		uint64_t cycles;
		double tflops, err;

		/* "in": N rows of 16; "weights": [16,16]; "out": [N,16]. */
		for (size_t r = 0; r <= n_rows; r++)
			in_off[r] = 16 * r;
		fields[0] = (tsi_field){NULL, n_rows * 16, n_rows, in_off};
		fields[1] = (tsi_field){NULL, 256, 1, w_off};
		fields[2] = (tsi_field){NULL, n_rows * 16, 1, out_off};
		cycles = amp->cycles(fields, 3, &target);
		/* The planner uses the same model: one tile means one vertex. */
		assert_int_equal(tsi_poplin_plan_matmul(&plan, graph, TSI_HALF, n_rows, 16, 16), TSI_OK);
		assert_int_equal(plan.tiles_used, 1);
		assert_int_equal(plan.est_compute_cycles, cycles);
		assert_int_equal(amp->flops(fields, 3), 2 * n_rows * 16 * 16);

		/* The notebook times the whole compute set: compile one vertex on
		 * a tile and take the compute set's simulated cycles, which add
		 * the launch of the compute set to the vertex. */
		uint64_t cs_cycles = amp_compute_set_cycles(&target, n_rows);
		assert_true(cs_cycles > cycles);
		tflops = 2.0 * (double)n_rows * 256 * 1472 / ((double)cs_cycles / 1.85e9) / 1e12;
		err = 100.0 * (tflops - measured[i]) / measured[i];
		print_message("%5zu %8llu %9.1f %9.1f %+7.2f\n", n_rows, (unsigned long long)cs_cycles,
		              tflops, measured[i], err);
		assert_true(fabs(err) < 5.0);
	}
	/* Asymptotically the AMP's peak: 128 flops per tile-cycle. */
	{
		size_t rows = 1 << 16;
		uint64_t c = 0;
		tsi_poplin_plan plan;

		assert_int_equal(tsi_poplin_plan_matmul(&plan, graph, TSI_HALF, rows, 16, 16), TSI_OK);
		c = plan.est_compute_cycles;
		assert_true(2.0 * (double)rows * 256 / (double)c > 127.0);
		assert_true(2.0 * (double)rows * 256 / (double)c <= 128.0);
	}
	tsi_graph_free(graph);
}

/* Expects `graph` to hold an error containing `text`. */
static void expect_error(tsi_graph *graph, const char *text)
{
	const char *msg = tsi_graph_get_error(graph);

	assert_string_not_equal(msg, "");
	if (!strstr(msg, text))
		fail_msg("error '%s' does not contain '%s'", msg, text);
}

/* Rank, inner dimension, type and missing-codelet errors name the
 * operation and the tensors. */
static void test_errors(void **state)
{
	(void)state;
	fixture f;
	tsi_tensor *a, *b, *c;
	tsi_graph *g = NULL;
	tsi_target target;

	fx_init(&f, TSI_IPU_MK2, 4);
	a = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(3, 4), "x");
	b = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(5, 2), "w");
	assert_null(tsi_poplin_matmul(f.graph, a, b, f.seq, "bad"));
	expect_error(f.graph, "tsi_poplin_matmul 'bad'");
	expect_error(f.graph, "[3,4] x [5,2]");
	expect_error(f.graph, "'x'");
	expect_error(f.graph, "'w'");
	assert_int_equal(tsi_graph_error_code(f.graph), TSI_ERR_INVALID_ARGUMENT);
	tsi_test_model_free(&f);

	fx_init(&f, TSI_IPU_MK2, 4);
	a = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(2, 3, 4), "cube");
	b = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(4, 2), "w");
	assert_null(tsi_poplin_matmul(f.graph, a, b, f.seq, NULL));
	expect_error(f.graph, "tsi_poplin_matmul 'MatMul'");
	expect_error(f.graph, "rank 2");
	expect_error(f.graph, "[2,3,4]");
	tsi_test_model_free(&f);

	fx_init(&f, TSI_IPU_MK2, 4);
	a = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(3, 4), "x");
	b = tsi_graph_add_variable(f.graph, TSI_HALF, TSI_SHAPE(4, 2), "w");
	assert_null(tsi_poplin_matmul(f.graph, a, b, f.seq, "mixed"));
	expect_error(f.graph, "different types");
	expect_error(f.graph, "float");
	expect_error(f.graph, "half");
	tsi_test_model_free(&f);

	fx_init(&f, TSI_IPU_MK2, 4);
	a = tsi_graph_add_variable(f.graph, TSI_INT, TSI_SHAPE(3, 4), "xi");
	b = tsi_graph_add_variable(f.graph, TSI_INT, TSI_SHAPE(4, 2), "wi");
	assert_null(tsi_poplin_matmul(f.graph, a, b, f.seq, "ints"));
	expect_error(f.graph, "type int");
	expect_error(f.graph, "not supported");
	tsi_test_model_free(&f);

	/* matmul_acc: c of the wrong shape. */
	fx_init(&f, TSI_IPU_MK2, 4);
	a = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(3, 4), "x");
	b = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(4, 2), "w");
	c = tsi_graph_add_variable(f.graph, TSI_FLOAT, TSI_SHAPE(2, 3), "acc");
	assert_int_equal(tsi_poplin_matmul_acc(f.graph, c, 1.0f, a, b, f.seq, "acc"),
	                 TSI_ERR_INVALID_ARGUMENT);
	expect_error(f.graph, "tsi_poplin_matmul_acc 'acc'");
	expect_error(f.graph, "[2,3]");
	tsi_test_model_free(&f);

	/* Without the codelets. */
	assert_int_equal(tsi_target_ipu(&target, TSI_IPU_MK2, 1, 4), TSI_OK);
	assert_int_equal(tsi_graph_new(&g, &target, 1), TSI_OK);
	a = tsi_graph_add_variable(g, TSI_HALF, TSI_SHAPE(3, 4), "x");
	b = tsi_graph_add_variable(g, TSI_HALF, TSI_SHAPE(4, 2), "w");
	assert_null(tsi_poplin_matmul(g, a, b, tsi_prog_sequence(g, "s"), "nocodelets"));
	expect_error(g, "tsi_poplin_add_codelets");
	assert_int_equal(tsi_graph_error_code(g), TSI_ERR_UNKNOWN_VERTEX_TYPE);
	tsi_graph_free(g);

	/* The planner refuses what it cannot plan. */
	{
		tsi_poplin_plan p;
		fx_init(&f, TSI_IPU_MK2, 4);
		assert_int_equal(tsi_poplin_plan_matmul(&p, f.graph, TSI_INT, 2, 2, 2),
		                 TSI_ERR_INVALID_ARGUMENT);
		assert_int_equal(tsi_poplin_plan_matmul(&p, f.graph, TSI_FLOAT, 0, 2, 2),
		                 TSI_ERR_INVALID_ARGUMENT);
		assert_string_equal(tsi_graph_get_error(f.graph), "");
		tsi_test_model_free(&f);
	}
}

/* Issue 17: the tensors the input helpers make go by the caller's name, in
 * the API, in error messages and in the profile (with the layer's path),
 * not as an anonymous view or "var<N>"; without a name, the operation's. */
static void test_helper_names(void **state)
{
	(void)state;
	fixture f;
	const tsi_graph_profile *gp;
	tsi_tensor *x, *w1, *anon, *bad;
	tsi_debug_id layer;
	bool found_w1 = false, found_rhs = false;

	fx_init(&f, TSI_IPU_MK2, 16);
	layer = tsi_debug_push(f.graph, "fc1", NULL);
	x = tsi_poplin_create_matmul_input_lhs(f.graph, TSI_FLOAT, 64, 128, 32, "x");
	w1 = tsi_poplin_create_matmul_input_rhs(f.graph, TSI_FLOAT, 64, 128, 32, "W1");
	anon = tsi_poplin_create_matmul_input_rhs(f.graph, TSI_FLOAT, 64, 128, 32, NULL);
	tsi_debug_pop(f.graph, layer);
	assert_non_null(x);
	assert_non_null(w1);
	assert_non_null(anon);
	assert_false(tsi_tensor_is_contiguous(w1) && tsi_tensor_is_contiguous(x));
	assert_non_null(tsi_tensor_name(w1));
	assert_string_equal(tsi_tensor_name(w1), "fc1/W1");
	assert_string_equal(tsi_tensor_name(x), "fc1/x");
	assert_string_equal(tsi_tensor_name(anon), "fc1/rhs");
	/* A part of it is a view, not the variable. */
	assert_null(tsi_tensor_name(tsi_tensor_slice(w1, 0, 1)));
	/* An error about the helper's tensor names it plainly. */
	bad = tsi_tensor_transpose(w1);
	assert_null(tsi_poplin_matmul(f.graph, bad, bad, f.seq, "bad"));
	expect_error(f.graph, "'fc1/W1'");
	tsi_test_model_free(&f);

	/* The profile lists it by name. */
	fx_init(&f, TSI_IPU_MK2, 16);
	x = tsi_poplin_create_matmul_input_lhs(f.graph, TSI_FLOAT, 64, 128, 32, "x");
	w1 = tsi_poplin_create_matmul_input_rhs(f.graph, TSI_FLOAT, 64, 128, 32, "W1");
	anon = tsi_poplin_create_matmul_input_rhs(f.graph, TSI_FLOAT, 64, 128, 32, NULL);
	assert_non_null(tsi_poplin_matmul(f.graph, x, w1, f.seq, "mm"));
	assert_non_null(tsi_poplin_matmul(f.graph, x, anon, f.seq, "mm2"));
	tsi_test_model_load(&f, NULL, 0, NULL);
	gp = tsi_engine_get_graph_profile(f.engine);
	assert_non_null(gp);
	for (size_t i = 0; i < gp->n_variables; i++) {
		found_w1 = found_w1 || strcmp(gp->variables[i].name, "W1") == 0;
		found_rhs = found_rhs || strcmp(gp->variables[i].name, "rhs") == 0;
	}
	assert_true(found_w1);
	assert_true(found_rhs);
	tsi_test_model_free(&f);
}

/* A matmul on a virtual graph uses only that graph's tiles. */
static void test_virtual_graph(void **state)
{
	(void)state;
	fixture f;
	tsi_graph *vg;
	tsi_tensor *a, *b, *c;
	tsi_mapping_interval *map = NULL;
	size_t n_map = 0;
	float av[8 * 16], bv[16 * 8], got[8 * 8];
	double ref[8 * 8];

	fx_init(&f, TSI_IPU_MK2, 16);
	vg = tsi_graph_create_virtual(f.graph, 8, 12);
	assert_non_null(vg);
	a = tsi_poplin_create_matmul_input_lhs(vg, TSI_FLOAT, 8, 16, 8, "a");
	b = tsi_poplin_create_matmul_input_rhs(vg, TSI_FLOAT, 8, 16, 8, "b");
	c = tsi_poplin_matmul(vg, a, b, f.seq, "vmm");
	assert_non_null(c);
	assert_int_equal(tsi_graph_list_tile_mapping(&map, &n_map, f.graph, c), TSI_OK);
	for (size_t i = 0; i < n_map; i++)
		assert_true(map[i].tile >= 8 && map[i].tile < 12);
	free(map);
	assert_int_equal(tsi_graph_create_host_write(f.graph, "a", a), TSI_OK);
	assert_int_equal(tsi_graph_create_host_write(f.graph, "b", b), TSI_OK);
	assert_int_equal(tsi_graph_create_host_read(f.graph, "c", c), TSI_OK);
	tsi_test_model_load(&f, NULL, 0, NULL);
	fill_random(av, 8 * 16, 11);
	fill_random(bv, 16 * 8, 12);
	write_values(&f, "a", TSI_FLOAT, av, 8 * 16);
	write_values(&f, "b", TSI_FLOAT, bv, 16 * 8);
	tsi_test_run(f.engine, 0);
	read_values(&f, "c", TSI_FLOAT, got, 8 * 8);
	host_matmul(ref, av, bv, 8, 16, 8, false);
	check_result(got, ref, 8 * 8, TSI_FLOAT, 16);
	tsi_test_model_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_float_values),
		cmocka_unit_test(test_half_values),
		cmocka_unit_test(test_k_split),
		cmocka_unit_test(test_planned_inputs),
		cmocka_unit_test(test_transposed_operand),
		cmocka_unit_test(test_matmul_acc),
		cmocka_unit_test(test_plan_properties),
		cmocka_unit_test(test_amp_calibration),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_virtual_graph),
		cmocka_unit_test(test_helper_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
