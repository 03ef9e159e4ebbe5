/*
 * Memory on a range of tiles (report-scope.c) on the tut5_ml sample
 * report: every tile's figures add up to the whole replica's, the whole
 * replica's match the figures reportlib already gives (vertex memory
 * totals, the exchange code and message categories, each variable's
 * bytes), and one tile's variables match tsr_report_fill_variable_by_tile.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <tilescope/report.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int setup(void **state)
{
	tsr_report *r = NULL;

	if (tsr_report_open(&r, SAMPLE_REPORTS "/tut5_ml/profile.pop", NULL) != TSR_OK)
		return -1;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	tsr_report_free(*state);
	return 0;
}

static size_t num_tiles(tsr_report *r)
{
	const tsr_target *t = tsr_report_get_target(r);

	return t->num_tiles;
}

/* A category's bytes on all tiles. */
static uint64_t category_total(tsr_report *r, tsr_mem_category c)
{
	tsr_category_memory *m = NULL;
	size_t n;
	uint64_t total;

	assert_int_equal(tsr_report_list_memory_by_category(&m, &n, r, -1), TSR_OK);
	total = m[c].total;
	free(m);
	return total;
}

/* Vertex memory: the whole replica is tsr_report_fill_vertex_memory_totals,
 * and each type's bytes summed over the tiles one by one are its whole. */
static void test_vertex(void **state)
{
	tsr_report *r = *state;
	size_t nt = num_tiles(r), n, n_types;
	tsr_vertex_type_memory *all = NULL;
	tsr_vertex_memory totals;
	const tsr_vertex_type *types;
	uint64_t sum = 0, *by_type, *vertices;

	assert_int_equal(tsr_report_list_vertex_memory_on_tiles(&all, &n, r, 0, nt), TSR_OK);
	assert_int_equal(tsr_report_fill_vertex_memory_totals(&totals, r, -1), TSR_OK);
	assert_int_equal(tsr_report_get_vertex_types(&types, &n_types, r), TSR_OK);
	assert_true(n > 1 && n <= n_types);
	for (size_t i = 0; i < n; i++) {
		sum += all[i].memory.total;
		assert_int_equal(all[i].vertices, types[all[i].vertex_type].instances);
		if (i)
			assert_true(all[i - 1].memory.total >= all[i].memory.total);
	}
	assert_int_equal(sum, totals.total);
	by_type = calloc(n_types, sizeof(*by_type));
	vertices = calloc(n_types, sizeof(*vertices));
	for (size_t t = 0; t < nt; t++) {
		tsr_vertex_type_memory *one = NULL;
		size_t k;

		assert_int_equal(tsr_report_list_vertex_memory_on_tiles(&one, &k, r, t, 1), TSR_OK);
		for (size_t i = 0; i < k; i++) {
			by_type[one[i].vertex_type] += one[i].memory.total;
			vertices[one[i].vertex_type] += one[i].vertices;
		}
		free(one);
	}
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(by_type[all[i].vertex_type], all[i].memory.total);
		assert_int_equal(vertices[all[i].vertex_type], all[i].vertices);
	}
	free(by_type);
	free(vertices);
	free(all);
}

/* Exchange memory: code adds up to the exchange code categories, buffers
 * to the message categories, and the tiles' buffers to the whole's. */
static void test_exchange(void **state)
{
	tsr_report *r = *state;
	size_t nt = num_tiles(r), n, n_programs;
	tsr_exchange_memory *all = NULL;
	const tsr_program *programs;
	uint64_t code = 0, buffers = 0, *by_program;

	assert_int_equal(tsr_report_list_exchange_memory_on_tiles(&all, &n, r, 0, nt), TSR_OK);
	assert_int_equal(tsr_report_get_programs(&programs, &n_programs, r), TSR_OK);
	assert_true(n > 10);
	for (size_t i = 0; i < n; i++) {
		assert_true(programs[all[i].program].exchange >= 0);
		code += all[i].code;
		buffers += all[i].buffers;
	}
	assert_int_equal(code, category_total(r, TSR_MEM_INTERNAL_EXCHANGE_CODE) +
	                           category_total(r, TSR_MEM_HOST_EXCHANGE_CODE) +
	                           category_total(r, TSR_MEM_GLOBAL_EXCHANGE_CODE));
	assert_int_equal(buffers, category_total(r, TSR_MEM_MESSAGE) +
	                              category_total(r, TSR_MEM_HOST_MESSAGE) +
	                              category_total(r, TSR_MEM_GLOBAL_MESSAGE));
	assert_true(buffers > 0);
	by_program = calloc(n_programs, sizeof(*by_program));
	for (size_t t = 0; t < nt; t++) {
		tsr_exchange_memory *one = NULL;
		size_t k;

		assert_int_equal(tsr_report_list_exchange_memory_on_tiles(&one, &k, r, t, 1), TSR_OK);
		for (size_t i = 0; i < k; i++) {
			assert_true(one[i].buffers > 0);
			by_program[one[i].program] += one[i].buffers;
		}
		free(one);
	}
	for (size_t i = 0; i < n; i++)
		assert_int_equal(by_program[all[i].program], all[i].buffers);
	free(by_program);
	free(all);
}

/* Variables: the whole replica's bytes are each variable's; on one tile
 * and on half the tiles, what its bytes by tile say. */
static void test_variables(void **state)
{
	tsr_report *r = *state;
	size_t nt = num_tiles(r), n, n_vars;
	tsr_variable_bytes *all = NULL, *half = NULL, *user = NULL;
	const tsr_variable *vars;
	uint64_t *by_tile = calloc(nt, sizeof(*by_tile));
	size_t n_half, n_user;

	assert_int_equal(tsr_report_get_variables(&vars, &n_vars, r), TSR_OK);
	assert_int_equal(tsr_report_list_variables_on_tiles(&all, &n, r, 0, nt, false), TSR_OK);
	assert_true(n > 0 && n <= n_vars);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(all[i].bytes, vars[all[i].variable].bytes);
		if (i)
			assert_true(all[i - 1].bytes >= all[i].bytes);
	}
	assert_int_equal(tsr_report_list_variables_on_tiles(&user, &n_user, r, 0, nt, true), TSR_OK);
	assert_true(n_user > 0 && n_user < n);
	for (size_t i = 0; i < n_user; i++)
		assert_true(vars[user[i].variable].mem_category == TSR_MEM_VARIABLE ||
		            vars[user[i].variable].mem_category == TSR_MEM_CONSTANT);
	assert_int_equal(tsr_report_list_variables_on_tiles(&half, &n_half, r, 0, nt / 2, false),
	                 TSR_OK);
	assert_true(n_half > 0);
	for (size_t i = 0; i < n_half && i < 20; i++) {
		uint64_t want = 0;

		assert_int_equal(tsr_report_fill_variable_by_tile(by_tile, nt, r, half[i].variable),
		                 TSR_OK);
		for (size_t t = 0; t < nt / 2; t++)
			want += by_tile[t];
		assert_int_equal(half[i].bytes, want);
	}
	free(by_tile);
	free(all);
	free(half);
	free(user);
}

/* Ranges outside the tiles are one error, never a read past the end. */
static void test_bad_range(void **state)
{
	tsr_report *r = *state;
	size_t nt = num_tiles(r), n = 7;
	tsr_variable_bytes *v = (void *)1;
	tsr_exchange_memory *x = NULL;
	tsr_vertex_type_memory *m = NULL;

	assert_int_equal(tsr_report_list_variables_on_tiles(&v, &n, r, nt, 1, false),
	                 TSR_ERR_OUT_OF_RANGE);
	assert_null(v);
	assert_int_equal(n, 0);
	assert_int_equal(tsr_report_list_exchange_memory_on_tiles(&x, &n, r, 1, nt), TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_report_list_vertex_memory_on_tiles(&m, &n, r, 0, 0), TSR_ERR_OUT_OF_RANGE);
	assert_int_equal(tsr_report_list_vertex_memory_on_tiles(NULL, &n, r, 0, 1),
	                 TSR_ERR_INVALID_ARGUMENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_vertex),
	    cmocka_unit_test(test_exchange),
	    cmocka_unit_test(test_variables),
	    cmocka_unit_test(test_bad_range),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
