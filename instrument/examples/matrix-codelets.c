/*
 * The device code of tutorials 6 and 7: a dot product and a sum, with a
 * cycle model of each (see matrix-codelets.h).
 */
#include "matrix-codelets.h"

/* Device code of DotProductVertex: *out = sum of a[i] * b[i]. */
static bool dot_product_compute(const tsi_field *fields, size_t n_fields)
{
	const float *a = fields[0].data;
	const float *b = fields[1].data;
	float *out = fields[2].data;
	float sum = 0;

	if (n_fields != 3 || fields[0].count != fields[1].count)
		return false;
	for (size_t i = 0; i < fields[0].count; i++)
		sum += a[i] * b[i];
	*out = sum;
	return true;
}

/* Device code of ReduceVertex: *out = sum of in. */
static bool reduce_compute(const tsi_field *fields, size_t n_fields)
{
	const float *in = fields[0].data;
	float *out = fields[1].data;
	float sum = 0;

	if (n_fields != 2)
		return false;
	for (size_t i = 0; i < fields[0].count; i++)
		sum += in[i];
	*out = sum;
	return true;
}

/*
 * Cycle model of DotProductVertex (an assumption): 8 cycles of fixed cost
 * (entry, loading the pointers and length from vertex state, loop set-up,
 * adding the two lanes of the accumulator, storing the result), then one
 * cycle per pair of elements, the float pipeline doing a 2-wide
 * multiply-accumulate per cycle fed by one 64-bit load from each vector.
 */
uint64_t matrix_dot_product_cycles(size_t n)
{
	return 8 + (uint64_t)(n + 1) / 2;
}

/* ReduceVertex: 6 cycles of fixed cost, then a 2-wide float add per cycle. */
uint64_t matrix_reduce_cycles(size_t n)
{
	return 6 + (uint64_t)(n + 1) / 2;
}

/* The codelets' estimators: the models above applied to field sizes. */
static uint64_t dot_product_cycles_cb(const tsi_field *fields, size_t n_fields,
                                      const tsi_target *target)
{
	(void)target;
	return matrix_dot_product_cycles(n_fields ? fields[0].count : 0);
}

static uint64_t reduce_cycles_cb(const tsi_field *fields, size_t n_fields,
                                 const tsi_target *target)
{
	(void)target;
	return matrix_reduce_cycles(n_fields ? fields[0].count : 0);
}

/* A multiply and an add per element pair. */
static uint64_t dot_product_flops_cb(const tsi_field *fields, size_t n_fields)
{
	return n_fields ? 2 * (uint64_t)fields[0].count : 0;
}

/* One add per element after the first. */
static uint64_t reduce_flops_cb(const tsi_field *fields, size_t n_fields)
{
	return n_fields && fields[0].count ? fields[0].count - 1 : 0;
}

static const tsi_field_def dot_product_fields[] = {
	{"a", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"b", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

static const tsi_field_def reduce_fields[] = {
	{"in", TSI_FIELD_INPUT, TSI_FIELD_VECTOR, TSI_FLOAT, 0},
	{"out", TSI_FIELD_OUTPUT, TSI_FIELD_SCALAR, TSI_FLOAT, 0},
};

/* Vertex state: a 32-bit pointer per field plus one 32-bit length per
 * vector. Code: a few dozen instructions of loop and epilogue. */
static const tsi_codelet matrix_codelets[] = {
	{
		.name = "DotProductVertex",
		.fields = dot_product_fields,
		.n_fields = sizeof(dot_product_fields) / sizeof(dot_product_fields[0]),
		.compute = dot_product_compute,
		.cycles = dot_product_cycles_cb,
		.flops = dot_product_flops_cb,
		.state_bytes = 16,
		.code_bytes = 96,
		.supervisor = false,
	},
	{
		.name = "ReduceVertex",
		.fields = reduce_fields,
		.n_fields = sizeof(reduce_fields) / sizeof(reduce_fields[0]),
		.compute = reduce_compute,
		.cycles = reduce_cycles_cb,
		.flops = reduce_flops_cb,
		.state_bytes = 12,
		.code_bytes = 64,
		.supervisor = false,
	},
};

/* Registers both codelets (graph.addCodelets("matrix-mul-codelets.cpp")). */
int matrix_add_codelets(tsi_graph *graph)
{
	return tsi_graph_add_codelets(graph, matrix_codelets,
	                              sizeof(matrix_codelets) / sizeof(matrix_codelets[0]));
}
