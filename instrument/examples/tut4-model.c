/*
 * The tutorial 4 model (see tut4-model.h).
 */
#include "tut4-model.h"

#include <tilescope/poplin.h>

#include <math.h>
#include <stdlib.h>

/*
 * Creates input `name` [rows, cols], maps it linearly over the graph's
 * tiles and adds its host-to-device stream of the same name with the
 * copy into it at the end of `seq`. NULL when the graph holds an error.
 */
static tsi_tensor *add_input(tsi_graph *graph, tsi_program *seq, const char *name, size_t rows,
                             size_t cols)
{
	tsi_tensor *t = tsi_graph_add_variable(graph, TSI_FLOAT, TSI_SHAPE(rows, cols), name);
	tsi_stream *s = tsi_graph_add_host_to_device_fifo(graph, name, TSI_FLOAT, rows * cols,
	                                                  TSI_REPLICATED_STREAM_BROADCAST);

	if (t)
		tsi_graph_map_linearly(graph, t, 1);
	tsi_sequence_add(seq, tsi_prog_copy_from_stream(graph, s, t));
	return t;
}

/*
 * Every call below returns NULL (or a code) quietly once the graph holds
 * an error, so the model is built straight through and the first error
 * is reported once at the end.
 */
int tut4_model_build(tut4_model *m, tsi_graph *graph, const tut4_sizes *sizes)
{
	tsi_stream *out;

	m->sizes = *sizes;
	tsi_poplin_add_codelets(graph);
	m->prog = tsi_prog_sequence(graph, "main");
	m->m1 = add_input(graph, m->prog, "m1", sizes->m, sizes->k);
	m->m2 = add_input(graph, m->prog, "m2", sizes->k, sizes->n);
	m->m3 = add_input(graph, m->prog, "m3", sizes->n, sizes->p);
	m->m4 = tsi_poplin_matmul(graph, m->m1, m->m2, m->prog, "m4");
	m->m5 = tsi_poplin_matmul(graph, m->m4, m->m3, m->prog, "m5");
	out = tsi_graph_add_device_to_host_fifo(graph, "result", TSI_FLOAT, sizes->m * sizes->p);
	tsi_sequence_add(m->prog, tsi_prog_copy_to_stream(graph, m->m5, out));
	return tsi_graph_error_code(graph);
}

/* Values (i*a + j*b) mod 9 - 4, in quarters: every product and sum of
 * the two multiplications is exact in float at the tutorial's sizes. */
static void fill(float *x, size_t rows, size_t cols, unsigned a, unsigned b)
{
	for (size_t i = 0; i < rows; i++)
		for (size_t j = 0; j < cols; j++)
			x[i * cols + j] = (float)((int)((i * a + j * b) % 9u) - 4) * 0.25f;
}

/* The three inputs from distinct patterns, so that a transposed or
 * swapped operand would give a wrong product. */
void tut4_fill_inputs(const tut4_sizes *s, float *m1, float *m2, float *m3)
{
	fill(m1, s->m, s->k, 7, 3);
	fill(m2, s->k, s->n, 5, 2);
	fill(m3, s->n, s->p, 1, 4);
}

/* The host product in double, one row of m1 at a time (so the host needs
 * only a row of m4 at a time). */
long tut4_check_result(const tut4_sizes *s, const float *m1, const float *m2, const float *m3,
                       const float *result, double *expected)
{
	double *row4 = malloc(s->n * sizeof(*row4));
	long bad = -1;

	if (!row4) {
		*expected = NAN;
		return 0;
	}
	for (size_t i = 0; i < s->m && bad < 0; i++) {
		for (size_t j = 0; j < s->n; j++)
			row4[j] = 0.0;
		for (size_t q = 0; q < s->k; q++) {
			double a = m1[i * s->k + q];
			const float *b = &m2[q * s->n];
			for (size_t j = 0; j < s->n; j++)
				row4[j] += a * b[j];
		}
		for (size_t j = 0; j < s->p && bad < 0; j++) {
			double want = 0.0, scale;
			for (size_t q = 0; q < s->n; q++)
				want += row4[q] * m3[q * s->p + j];
			scale = fabs(want) > 1.0 ? fabs(want) : 1.0;
			if (!(fabs(result[i * s->p + j] - want) <= 1e-5 * scale)) {
				bad = (long)(i * s->p + j);
				*expected = want;
			}
		}
	}
	free(row4);
	return bad;
}

/* Connects one stream to `n` floats at `buf`. */
static int connect_floats(tsi_engine *engine, const char *name, float *buf, size_t n)
{
	return tsi_engine_connect_stream(engine, name, buf, buf + n);
}

/* Stops at the first stream that fails; the engine keeps the message. */
int tut4_model_connect(tsi_engine *engine, const tut4_model *m, float *m1, float *m2, float *m3,
                       float *result)
{
	const tut4_sizes *s = &m->sizes;
	int rc = connect_floats(engine, "m1", m1, s->m * s->k);

	if (rc == TSI_OK)
		rc = connect_floats(engine, "m2", m2, s->k * s->n);
	if (rc == TSI_OK)
		rc = connect_floats(engine, "m3", m3, s->n * s->p);
	if (rc == TSI_OK)
		rc = connect_floats(engine, "result", result, s->m * s->p);
	return rc;
}
