/*
 * The heatmap edges codec (db-schema/heatmap-edges.c), heatmap.edges of
 * .pvti files: what the tracer encodes decodes to the same doubles, bit
 * for bit; the encoder refuses what the reader would; and each hostile
 * column is refused with the reason the reader's message carries.
 */
#include "test-util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heatmap-edges.h"

/* Encodes edges[0..n), decodes the text and checks the same doubles come back. */
static void round_trip(const double *edges, size_t n)
{
	char *json = NULL;
	double *back = NULL;
	const char *why = "unset";
	size_t m = 0;

	assert_int_equal(tsf_heatmap_edges_encode(&json, edges, n), 0);
	assert_int_equal(tsf_heatmap_edges_decode(&back, &m, &why, json), 0);
	assert_null(why);
	assert_int_equal(m, n);
	assert_memory_equal(back, edges, n * sizeof(double));
	free(json);
	free(back);
}

static void test_round_trip(void **state)
{
	static const double guide[] = {1, 10, 100};
	static const double awkward[] = {-1e300, -0.5, 2.5e-310, 0.1, 1.0 / 3.0, 1e15 + 1, 1.7e308};
	static const double one[] = {0};
	double *many = malloc(TSF_HEATMAP_MAX_EDGES * sizeof(double));
	char *json = NULL;

	(void)state;
	round_trip(guide, 3);
	round_trip(awkward, sizeof(awkward) / sizeof(awkward[0]));
	round_trip(one, 1);
	assert_non_null(many);
	for (size_t i = 0; i < TSF_HEATMAP_MAX_EDGES; i++)
		many[i] = (double)i * 0.7 - 1000.0 + 1.0 / (double)(i + 3);
	round_trip(many, TSF_HEATMAP_MAX_EDGES);
	/* The column stays readable in the sqlite3 shell. */
	assert_int_equal(tsf_heatmap_edges_encode(&json, guide, 3), 0);
	assert_string_equal(json, "[1.0,10.0,100.0]");
	free(json);
	free(many);
}

/* The encoder stores nothing the reader would refuse. */
static void test_encode_refuses(void **state)
{
	static const double down[] = {10, 1}, same[] = {1, 1}, nan_[] = {1, NAN},
	                    inf[] = {-INFINITY, 1};
	double *many = calloc(TSF_HEATMAP_MAX_EDGES + 1, sizeof(double));
	char *json = (char *)"unset";

	(void)state;
	assert_non_null(many);
	for (size_t i = 0; i <= TSF_HEATMAP_MAX_EDGES; i++)
		many[i] = (double)i;
	assert_int_equal(tsf_heatmap_edges_encode(&json, down, 2), -1);
	assert_null(json);
	assert_int_equal(tsf_heatmap_edges_encode(&json, same, 2), -1);
	assert_int_equal(tsf_heatmap_edges_encode(&json, nan_, 2), -1);
	assert_int_equal(tsf_heatmap_edges_encode(&json, inf, 2), -1);
	assert_int_equal(tsf_heatmap_edges_encode(&json, down, 0), -1);
	assert_int_equal(tsf_heatmap_edges_encode(&json, NULL, 2), -1);
	assert_int_equal(tsf_heatmap_edges_encode(&json, many, TSF_HEATMAP_MAX_EDGES + 1), -1);
	assert_null(json);
	free(many);
}

/* Hostile columns, each with the reason the decoder gives. */
static void test_decode_hostile(void **state)
{
	static const struct {
		const char *json, *why;
	} cases[] = {
		{"[10, 1, 100]", "the edges are not strictly ascending"},
		{"[1, 1]", "the edges are not strictly ascending"},
		{"[]", "no edges"},
		{"{}", "not a JSON array"},
		{"1", "not a JSON array"},
		{"not json", "not JSON, or bytes after the array"},
		{"[1, 2", "not JSON, or bytes after the array"},
		{"[1, 2] x", "not JSON, or bytes after the array"},
		{"[1, 2][3]", "not JSON, or bytes after the array"},
		{"", "not JSON, or bytes after the array"},
		{"NaN", "not JSON, or bytes after the array"},
		{"[1, \"x\"]", "an edge is not a number"},
		{"[1, null]", "an edge is not a number"},
		{"[1, [2]]", "an edge is not a number"},
		{"[1e999]", "an edge is not a finite number"},
		{"[-1e999, 0]", "an edge is not a finite number"},
	};
	double *out = (double *)&out;
	const char *why = NULL;
	size_t n = 99;
	char *big;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(tsf_heatmap_edges_decode(&out, &n, &why, cases[i].json), -1);
		assert_null(out);
		assert_int_equal(n, 0);
		assert_non_null(why);
		if (strcmp(why, cases[i].why) != 0)
			fail_msg("%s: \"%s\", want \"%s\"", cases[i].json, why, cases[i].why);
	}
	assert_int_equal(tsf_heatmap_edges_decode(&out, &n, &why, NULL), -1);
	/* One edge past the bound, refused before anything is allocated for it. */
	big = malloc((TSF_HEATMAP_MAX_EDGES + 1) * 6 + 2);
	assert_non_null(big);
	n = 0;
	big[n++] = '[';
	for (unsigned i = 0; i <= TSF_HEATMAP_MAX_EDGES; i++)
		n += (size_t)sprintf(big + n, "%u,", i);
	big[n - 1] = ']';
	big[n] = '\0';
	assert_int_equal(tsf_heatmap_edges_decode(&out, &n, &why, big), -1);
	assert_string_equal(why, "more than 4096 edges");
	/* Whitespace around the array is JSON, not garbage. */
	assert_int_equal(tsf_heatmap_edges_decode(&out, &n, &why, " [ 1 , 2.5 ]\n"), 0);
	assert_int_equal(n, 2);
	assert_true(out[0] == 1 && out[1] == 2.5);
	free(out);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_encode_refuses),
		cmocka_unit_test(test_decode_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
