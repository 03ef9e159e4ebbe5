/*
 * Benchmark: building a matmul on a view made of many pieces against the
 * same matmul on a plain variable (issue 27). The left-hand side is
 * [676, N] (the 26 x 26 output positions of a convolution by N input
 * values, as im2col lays it out); the view is the transpose of an [N, 676]
 * variable, so each of its N * 676 elements is a run of its own, where the
 * plain variable is one run. The matmul cuts both into many slices (a
 * block per tile and per K split); each cut of the view must cost what it
 * cuts, not the whole view.
 *
 * For each N of 125, 250, 500 and 1000 it times graph construction (the
 * views, the matmul's planning, mapping and vertices) in CPU seconds, as
 * interleaved pairs (view, plain, view, plain ...), and prints
 *   view_slicing.N<n>.view_s / .plain_s   the medians
 *   view_slicing.N<n>.ratio               median view/plain (spread min-max)
 * Issue 27's aim: ratio within 1.5 at N = 1000. Never fails on time.
 * TSI_BENCH_PAIRS=K pairs per N (default 5). For a profiler:
 * TSI_BENCH_N=n times that size only, and TSI_BENCH_ONLY=view or plain
 * builds only that side (its median is printed, no ratio), e.g.
 *   TSI_BENCH_N=1000 TSI_BENCH_ONLY=view perf record -g bench-view-slicing
 */
#include <tilescope/ipu.h>
#include <tilescope/poplin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench-view-slicing: %s: %s\n", what, why);
	exit(1);
}

/* CPU seconds to build [676, n] x [n, 16] with the left-hand side a
 * transposed [n, 676] variable (`view`) or a plain [676, n] one. */
static double build_once(size_t n, int view)
{
	tsi_target target;
	tsi_graph *g = NULL;
	size_t m = 676, cols = 16;
	double t0;

	if (tsi_target_ipu(&target, TSI_IPU_MK2, 1, 0) != TSI_OK)
		die("target", tsi_error_last());
	if (tsi_graph_new(&g, &target, 1) != TSI_OK)
		die("graph", tsi_error_last());
	if (tsi_poplin_add_codelets(g) != TSI_OK)
		die("codelets", tsi_graph_get_error(g));
	t0 = cpu_s();
	size_t a_shape[2] = {view ? n : m, view ? m : n}, b_shape[2] = {n, cols};
	tsi_tensor *a = tsi_graph_add_variable(g, TSI_FLOAT, 2, a_shape, "in");
	tsi_tensor *b = tsi_graph_add_variable(g, TSI_FLOAT, 2, b_shape, "weights");
	tsi_program *seq = tsi_prog_sequence(g, "main");

	if (!a || !b || !seq || tsi_graph_map_linearly(g, a, 1) != TSI_OK ||
	    tsi_graph_map_linearly(g, b, 1) != TSI_OK)
		die("variables", tsi_graph_get_error(g));
	if (view)
		a = tsi_tensor_transpose(a);
	if (!a || !tsi_poplin_matmul(g, a, b, seq, "mm"))
		die("matmul", tsi_graph_get_error(g));
	double t = cpu_s() - t0;
	tsi_graph_free(g);
	return t;
}

int main(void)
{
	static const size_t sizes[] = {125, 250, 500, 1000};
	const char *env = getenv("TSI_BENCH_PAIRS");
	const char *only_n = getenv("TSI_BENCH_N"), *only = getenv("TSI_BENCH_ONLY");
	int pairs = env ? atoi(env) : 5;
	bool do_view = !only || strcmp(only, "view") == 0;
	bool do_plain = !only || strcmp(only, "plain") == 0;
	size_t n_sizes = sizeof(sizes) / sizeof(sizes[0]);

	if (pairs < 1 || pairs > 100)
		die("TSI_BENCH_PAIRS", "wants 1 to 100");
	if (!do_view && !do_plain)
		die("TSI_BENCH_ONLY", "wants view or plain");
	if (only_n) {
		size_t i = 0;

		while (i < n_sizes && strtoul(only_n, NULL, 10) != sizes[i])
			i++;
		if (i == n_sizes)
			die("TSI_BENCH_N", "wants 125, 250, 500 or 1000");
		n_sizes = i + 1;
	}
	for (size_t s = only_n ? n_sizes - 1 : 0; s < n_sizes; s++) {
		double *v = calloc((size_t)pairs, sizeof(double));
		double *p = calloc((size_t)pairs, sizeof(double));
		double *r = calloc((size_t)pairs, sizeof(double));

		if (!v || !p || !r)
			die("memory", "out of memory");
		for (int i = 0; i < pairs; i++) {
			v[i] = do_view ? build_once(sizes[s], 1) : 0;
			p[i] = do_plain ? build_once(sizes[s], 0) : 0;
			r[i] = v[i] / (p[i] > 0 ? p[i] : 1e-9);
		}
		qsort(v, (size_t)pairs, sizeof(double), cmp_double);
		qsort(p, (size_t)pairs, sizeof(double), cmp_double);
		qsort(r, (size_t)pairs, sizeof(double), cmp_double);
		if (do_view)
			printf("view_slicing.N%zu.view_s %.3f s\n", sizes[s], v[pairs / 2]);
		if (do_plain)
			printf("view_slicing.N%zu.plain_s %.3f s\n", sizes[s], p[pairs / 2]);
		if (do_view && do_plain)
			printf("view_slicing.N%zu.ratio %.2f (spread %.2f-%.2f over %d pairs)%s\n", sizes[s],
		       r[pairs / 2], r[0], r[pairs - 1], pairs,
		       sizes[s] == 1000 ? " (target <= 1.5)" : "");
		fflush(stdout);
		free(v);
		free(p);
		free(r);
	}
	return 0;
}
