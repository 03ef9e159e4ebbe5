/*
 * Slicing views made of many regions (white-box, issue 27): the runtime
 * keeps the prefix sums of large views' region lengths between slices,
 * keyed by region list, so these tests cut many-region views again and
 * again, interleaved with scratch scopes (whose arena, and so whose
 * region-list addresses, are reused) and with enough other large views to
 * push entries out, and check every result's regions against a naive
 * element-by-element computation. A stale prefix sum shows as a wrong
 * region.
 */
#include "test-util.h"

#if __has_include("ipu-private.h")

#include "ipu-private.h"

#include <stdlib.h>
#include <string.h>

/* One element of a tensor: its variable and index there. */
typedef struct elem {
	uint32_t var;
	size_t index;
} elem;

/* The elements of `t` in row-major order, read from its regions
 * (malloc, t->numel entries). */
static elem *expand(const tsi_tensor *t)
{
	elem *e = malloc((t->numel ? t->numel : 1) * sizeof(*e));
	size_t n = 0;

	assert_non_null(e);
	for (uint32_t r = 0; r < t->n_regions; r++)
		for (size_t k = 0; k < t->regions[r].len; k++) {
			assert_true(n < t->numel);
			e[n].var = t->regions[r].var;
			e[n].index = t->regions[r].begin + k;
			n++;
		}
	assert_int_equal(n, t->numel);
	return e;
}

/* Fails unless `t`'s regions are exactly `want` (n elements) as merged
 * runs: each region a maximal run of consecutive elements of one variable. */
static void check_regions(const tsi_tensor *t, const elem *want, size_t n)
{
	size_t at = 0;

	assert_non_null(t);
	assert_int_equal(t->numel, n);
	for (uint32_t r = 0; r < t->n_regions; r++) {
		const tsi_region *reg = &t->regions[r];
		size_t len = 1;

		assert_true(at < n);
		while (at + len < n && want[at + len].var == want[at].var &&
		       want[at + len].index == want[at].index + len)
			len++;
		assert_int_equal(reg->var, want[at].var);
		assert_int_equal(reg->begin, want[at].index);
		assert_int_equal(reg->len, len);
		at += len;
	}
	assert_int_equal(at, n);
}

/* Cuts elements [b, e) of dimension `dim` out of `t` and checks the result
 * against the same cut made element by element. */
static void check_slice(const tsi_tensor *t, size_t b, size_t e, size_t dim)
{
	size_t stride[TSI_MAX_RANK], shape[TSI_MAX_RANK], idx[TSI_MAX_RANK] = {0};
	tsi_tensor *s = tsi_tensor_slice_dim(t, b, e, dim);
	elem *src = expand(t), *want;
	size_t n = 1;

	assert_non_null(s);
	for (size_t d = t->rank, k = 1; d-- > 0;) {
		stride[d] = k;
		k *= t->shape[d];
	}
	memcpy(shape, t->shape, t->rank * sizeof(*shape));
	shape[dim] = e - b;
	for (size_t d = 0; d < t->rank; d++)
		n *= shape[d];
	want = malloc((n ? n : 1) * sizeof(*want));
	assert_non_null(want);
	for (size_t i = 0; i < n; i++) {
		size_t at = 0;

		for (size_t d = 0; d < t->rank; d++)
			at += (idx[d] + (d == dim ? b : 0)) * stride[d];
		want[i] = src[at];
		for (size_t d = t->rank; d-- > 0;) {
			if (++idx[d] < shape[d])
				break;
			idx[d] = 0;
		}
	}
	check_regions(s, want, n);
	free(want);
	free(src);
}

/* A pseudo-random number below `n` (a fixed sequence: the test is
 * repeatable). */
static size_t below(uint64_t *seed, size_t n)
{
	*seed = *seed * 6364136223846793005u + 1442695040888963407u;
	return (size_t)(*seed >> 33) % n;
}

/* Random cuts of `t` along a random dimension. */
static void check_random_slices(uint64_t *seed, const tsi_tensor *t, int count)
{
	for (int i = 0; i < count; i++) {
		size_t dim = below(seed, t->rank);
		size_t b = below(seed, t->shape[dim] + 1);
		size_t e = b + below(seed, t->shape[dim] - b + 1);

		check_slice(t, b, e, dim);
	}
}

/*
 * A view of one region per element, kept in the graph's arena, cut again
 * and again while scratch scopes come and go. Each scope first makes a
 * view with as many regions as the last scope's but of other lengths
 * (`w` with its columns cut at `c`): the scratch arena is reused, so it
 * tends to sit at the same address, and prefix sums kept past the end of
 * the scope would be read for it. Between them, more large views than
 * the cache holds.
 */
static void test_slices_across_scratch_scopes(void **state)
{
	(void)state;
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *v = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(40, 37), "v");
	tsi_tensor *w = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(90, 12), "w");
	tsi_tensor *u = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(6, 50, 7), "u");
	tsi_tensor *vt = tsi_tensor_transpose(v);
	uint64_t seed = 27;

	assert_non_null(vt);
	assert_false(vt->scratch);
	assert_int_equal(vt->n_regions, 40 * 37);
	/* A row slab of it is a stretch of its list, shared, not copied. */
	tsi_tensor *slab = tsi_tensor_slice(vt, 3, 5);
	assert_true(slab->regions == vt->regions + 3 * 40);
	assert_int_equal(slab->n_regions, 2 * 40);
	check_slice(vt, 3, 5, 0);
	for (int round = 0; round < 60; round++) {
		size_t c = 1 + (size_t)round % 11;

		tsi_graph_scratch_begin(g);
		/* 90 regions of c elements each. */
		tsi_tensor *cols = tsi_tensor_slice_dim(w, 0, c, 1);
		assert_true(cols->scratch);
		assert_int_equal(cols->n_regions, 90);
		check_random_slices(&seed, cols, 4);
		check_random_slices(&seed, vt, 2);
		if (round % 3 == 0) {
			/* A nested scope whose views go with the outer one. */
			tsi_graph_scratch_begin(g);
			size_t perm[3] = {2, 0, 1};
			tsi_tensor *shuffled = tsi_tensor_dim_shuffle(u, perm);
			check_random_slices(&seed, shuffled, 3);
			tsi_graph_scratch_end(g);
			check_random_slices(&seed, shuffled, 2);
		}
		/* Other large views, one per row band of vt, push entries out. */
		for (size_t k = 0; k < 12; k++) {
			tsi_tensor *band = tsi_tensor_slice(vt, k * 3, k * 3 + 3);
			check_random_slices(&seed, band, 1);
		}
		check_random_slices(&seed, cols, 4);
		tsi_graph_scratch_end(g);
		check_random_slices(&seed, vt, 2);
		/* Outside any scope: views in the graph's arena. */
		tsi_tensor *kept = tsi_tensor_slice_dim(w, 12 - c, 12, 1);
		assert_false(kept->scratch);
		check_random_slices(&seed, kept, 2);
	}
	assert_int_equal(tsi_graph_get_error(g) ? strlen(tsi_graph_get_error(g)) : 0, 0);
	tsi_graph_free(g);
}

/*
 * Views that share a region list (reshape, flatten) share prefix sums; a
 * concatenation of more large views than the cache holds keeps them all
 * in use at once. Both against the naive walk.
 */
static void test_shared_lists_and_wide_concat(void **state)
{
	(void)state;
	tsi_graph *g = tsi_test_graph_mk2();
	tsi_tensor *x = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(24, 20), "x");
	tsi_tensor *y = tsi_graph_add_variable(g, TSI_FLOAT, TSI_SHAPE(48, 40), "y");
	tsi_tensor *yt = tsi_tensor_transpose(y); /* [40, 48], 1920 regions */
	tsi_tensor *parts[12];
	uint64_t seed = 7;

	tsi_tensor *xt = tsi_tensor_transpose(x); /* [20, 24], 480 regions */
	tsi_tensor *flat = tsi_tensor_flatten(xt);
	tsi_tensor *re = tsi_tensor_reshape(xt, TSI_SHAPE(4, 5, 24));
	assert_true(flat->regions == xt->regions && re->regions == xt->regions);
	for (int i = 0; i < 20; i++) {
		check_random_slices(&seed, xt, 1);
		check_random_slices(&seed, flat, 1);
		check_random_slices(&seed, re, 1);
	}
	tsi_graph_scratch_begin(g);
	/* Twelve column bands of y, 48 regions each of the band's width. */
	static const size_t widths[12] = {1, 2, 3, 4, 5, 6, 7, 8, 1, 1, 1, 1};
	for (size_t k = 0, c0 = 0; k < 12; c0 += widths[k], k++) {
		parts[k] = tsi_tensor_slice_dim(y, c0, c0 + widths[k], 1);
		assert_int_equal(parts[k]->n_regions, 48);
		check_random_slices(&seed, parts[k], 1);
	}
	/* Joined again they are y, row by row: one run. */
	tsi_tensor *joined = tsi_tensor_concat(parts, 12, 1);
	assert_non_null(joined);
	elem *want = expand(y);
	check_regions(joined, want, 48 * 40);
	free(want);
	/* Bands of the transpose, joined out of order. */
	for (size_t k = 0, r0 = 0; k < 12; r0 += widths[k], k++)
		parts[11 - k] = tsi_tensor_slice(yt, r0, r0 + widths[k]);
	joined = tsi_tensor_concat(parts, 12, 0);
	assert_non_null(joined);
	want = expand(yt);
	elem *order = malloc(48 * 40 * sizeof(*order));
	assert_non_null(order);
	size_t n = 0;
	for (size_t k = 12; k-- > 0;) {
		size_t r0 = 0;
		for (size_t j = 0; j < k; j++)
			r0 += widths[j];
		for (size_t i = r0 * 48; i < (r0 + widths[k]) * 48; i++)
			order[n++] = want[i];
	}
	assert_int_equal(n, 48 * 40);
	check_regions(joined, order, n);
	check_random_slices(&seed, joined, 20);
	free(order);
	free(want);
	tsi_graph_scratch_end(g);
	check_random_slices(&seed, xt, 10);
	tsi_graph_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_slices_across_scratch_scopes),
	    cmocka_unit_test(test_shared_lists_and_wide_concat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* built as a public-API test: the private header is out of reach */

#include <stdio.h>

int main(void)
{
	fprintf(stderr, "test_view_slicing is a white-box test: list it under internal_tests "
	                "in tests/instrument/meson.build\n");
	return 77;
}

#endif
