/*
 * The engine's device memory: one malloc'd block per variable that
 * existed at compile time holding every replica's copy back to back
 * (replica r at r * numel * element size), one per remote buffer, and the
 * staging buffer that copies and prints go through. A tensor view is read
 * or written by walking its region list.
 */
#include "engine-private.h"

#include <stdlib.h>
#include <string.h>

/* --- Device memory access ------------------------------------------------ */

/* Makes the staging buffer at least `bytes` long; NULL when out of memory. */
unsigned char *tsi_engine_tmp_reserve(tsi_engine *e, size_t bytes)
{
	if (bytes > e->tmp_cap || !e->tmp) {
		size_t cap = e->tmp_cap ? e->tmp_cap : 256;
		while (cap < bytes)
			cap *= 2;
		unsigned char *p = realloc(e->tmp, cap);
		if (!p)
			return NULL;
		e->tmp = p;
		e->tmp_cap = cap;
	}
	return e->tmp;
}

/* Copies replica r's elements of `t` into `dst` in row-major order. */
void tsi_engine_tensor_gather(const tsi_engine *e, const tsi_tensor *t, unsigned r, void *dst)
{
	size_t size = tsi_type_size(t->type);
	unsigned char *out = dst;

	for (size_t i = 0; i < t->n_regions; i++) {
		const tsi_region *reg = &t->regions[i];
		memcpy(out, var_base(e, reg->var, r) + reg->begin * size, reg->len * size);
		out += reg->len * size;
	}
}

/* Writes `src` (row-major elements of `t`) into replica r's memory. */
void tsi_engine_tensor_scatter(tsi_engine *e, const tsi_tensor *t, unsigned r, const void *src)
{
	size_t size = tsi_type_size(t->type);
	const unsigned char *in = src;

	for (size_t i = 0; i < t->n_regions; i++) {
		const tsi_region *reg = &t->regions[i];
		memcpy(var_base(e, reg->var, r) + reg->begin * size, in, reg->len * size);
		in += reg->len * size;
	}
}

/* The value of the one-element tensor `t` on replica r, as a double. */
double tsi_engine_scalar_value(const tsi_engine *e, const tsi_tensor *t, unsigned r)
{
	const tsi_region *reg = &t->regions[0];

	return tsi_type_load(t->type, var_base(e, reg->var, r), reg->begin);
}

/* --- Allocation ------------------------------------------------------------ */

/*
 * Allocates zeroed device memory for every replica of every variable and
 * remote buffer, and writes the constants' values into every replica.
 */
int tsi_engine_alloc_device_memory(tsi_engine *e)
{
	e->var_bytes = calloc(e->n_vars + 1, sizeof(*e->var_bytes));
	e->data = calloc(e->n_vars + 1, sizeof(*e->data));
	e->remote = calloc(e->n_remote + 1, sizeof(*e->remote));
	if (!e->var_bytes || !e->data || !e->remote)
		goto oom;
	for (uint32_t i = 0; i < e->n_vars; i++) {
		const tsi_var *v = tsi_graph_var(e->graph, i);
		size_t bytes = v->numel * tsi_type_size(v->type);
		size_t total;

		e->var_bytes[i] = bytes;
		if (!bytes)
			continue;
		if (__builtin_mul_overflow(bytes, (size_t)e->replicas, &total))
			goto oom;
		e->data[i] = calloc(1, total);
		if (!e->data[i])
			goto oom;
		if (v->is_constant && v->init)
			for (unsigned r = 0; r < e->replicas; r++)
				memcpy(e->data[i] + (size_t)r * bytes, v->init, bytes);
	}
	for (size_t i = 0; i < e->n_remote; i++) {
		const tsi_remote_buffer *rb = e->core->remote_buffers.items[i];
		size_t bytes;

		if (__builtin_mul_overflow(rb->numel * tsi_type_size(rb->type), rb->repeats, &bytes) ||
		    __builtin_mul_overflow(bytes, (size_t)e->replicas, &bytes))
			goto oom;
		e->remote[i] = calloc(1, bytes ? bytes : 1);
		if (!e->remote[i])
			goto oom;
	}
	return TSI_OK;
oom:
	tsi_engine_free_device_memory(e);
	return tsi_engine_fail(e, TSI_ERR_NO_MEMORY, "out of host memory allocating device memory");
}

/* Releases device memory (variables and remote buffers). */
void tsi_engine_free_device_memory(tsi_engine *e)
{
	if (e->data)
		for (uint32_t v = 0; v < e->n_vars; v++)
			free(e->data[v]);
	free(e->data);
	free(e->var_bytes);
	e->data = NULL;
	e->var_bytes = NULL;
	if (e->remote)
		for (size_t i = 0; i < e->n_remote; i++)
			free(e->remote[i]);
	free(e->remote);
	e->remote = NULL;
}
