/*
 * The layout of one compute set's run, as engine-plan.c builds it at load
 * and engine-compute-sets.c runs it: where each field of each vertex lives
 * (the shared scratch arena or variable memory), and the moves that fill
 * the arena before the vertices run and empty it after.
 *
 * A large model keeps a plan for each of its tens of thousands of compute
 * sets for as long as the engine lives (bert_synth --size large: 1.7 M
 * vertices, 4.4 M fields, 3.8 M moves), so the encoding is chosen for
 * size: 16 bytes per field and per move, one allocation per plan, and the
 * tsi_field a codelet sees made on the fly for each call. The common move
 * (one piece whose offsets fit 32 bits) is a `plan_move`; a strided run, a
 * block of rows or anything past 4 GiB escapes to a `plan_wide` entry.
 */
#pragma once

#include "engine-private.h"

/* Field data in the scratch arena starts on this boundary (bytes), so a
 * codelet may use vector loads on any field; scratch offsets of fields are
 * kept in these units. */
#define FIELD_ALIGN 16u

/* plan_move.var values that are not variables. */
#define ZERO_VAR UINT32_MAX        /* zero-fill scratch_off .. + bytes */
#define WIDE_VAR (UINT32_MAX - 1u) /* the move is wide[var_off] */

/* One contiguous move between a variable and the scratch arena, in the
 * order the plan lists them. */
typedef struct plan_move {
	uint32_t var;         /* variable id, ZERO_VAR or WIDE_VAR */
	uint32_t var_off;     /* bytes into one replica's copy; WIDE_VAR: index into wide */
	uint32_t scratch_off; /* bytes into the scratch arena */
	uint32_t bytes;
} plan_move;

/* A move that plan_move cannot hold: `count` pieces of `bytes`, piece i at
 * var_off + i * stride in the variable and scratch_off + i * bytes in
 * scratch (a strided view, such as a transpose, gathers element by
 * element); and `rows` such runs, row j starting at var_off + j *
 * row_step in the variable and right after row j - 1 in scratch (the rows
 * of a transposed view: a block transpose, see gather_rows). */
typedef struct plan_wide {
	uint32_t var;       /* variable id or ZERO_VAR */
	size_t var_off;     /* bytes into one replica's copy of the variable */
	size_t scratch_off; /* bytes into the scratch arena */
	size_t bytes;       /* of one piece */
	size_t count;       /* pieces, >= 1 */
	size_t stride;      /* bytes; 0 when count is 1 */
	size_t rows;        /* >= 1 */
	size_t row_step;    /* bytes; 0 when rows is 1 */
} plan_wide;

/* A field read or written in variable memory instead of the scratch
 * arena (its data pointer is worked out per replica). */
typedef struct plan_direct {
	size_t var_off;      /* bytes into one replica's copy of the variable */
	uint32_t var;
	uint32_t zero_bytes; /* an in-place output: bytes zero-filled before the
	                        vertices run; else 0 */
} plan_direct;

/* plan_field.at with this bit: an index into the plan's direct fields;
 * without: the scratch offset in FIELD_ALIGN units. */
#define AT_DIRECT UINT32_C(0x80000000)
/* plan_field.offs of a single-vector field: its offsets are {0, count}. */
#define OFFS_SINGLE UINT32_MAX

/* One field of one vertex, what tsi_field is made from at each call. */
typedef struct plan_field {
	uint32_t at;        /* AT_DIRECT | direct index, or scratch offset / FIELD_ALIGN */
	uint32_t count;     /* elements in all */
	uint32_t n_vectors; /* 1 unless VECTOR_LIST */
	uint32_t offs;      /* index of its n_vectors + 1 offsets in the plan's
	                       offsets, or OFFS_SINGLE */
} plan_field;

/* Consecutive vertices of one codelet: the run loop reads one of these
 * instead of chasing each vertex's and codelet's pointers (a cache miss per
 * vertex on large graphs). */
typedef struct plan_calls {
	tsi_compute_cb compute;
	uint32_t n_fields;   /* per vertex */
	uint32_t n_vertices;
} plan_calls;

/* The layout of one compute set: a header and its arrays, in one
 * allocation. Vertices are those that existed at compile time, in the
 * compute set's order. */
struct cs_plan {
	size_t n_vertices;
	size_t n_fields;           /* all fields of all vertices */
	size_t max_fields;         /* the most fields one vertex has */
	size_t scratch_bytes;
	plan_calls *calls;         /* n_calls runs covering the vertices in order */
	size_t n_calls;
	plan_field *fields;        /* vertex by vertex, codelet field order */
	size_t *offsets;           /* the list fields' sub-vector offsets */
	size_t n_offsets;
	plan_direct *direct;       /* fields in variable memory */
	size_t n_direct;
	plan_move *in;             /* gathers and zero-fills, before the vertices run */
	size_t n_in;
	plan_move *out;            /* write-backs of outputs and in-outs, after */
	size_t n_out;
	plan_wide *wide;           /* the moves of in and out that escape */
	size_t n_wide;
};

/* Makes the plan of compute set `cs` (engine-plan.c). Returns TSI_OK, or
 * a failure recorded in the engine (a vertex of unknown type, a field
 * connected to a variable made after compilation, out of host memory). */
int tsi_engine_plan_build(tsi_engine *e, tsi_compute_set *cs, cs_plan **out);

/* The vertex of `cs` that plan index `i` stands for (those made after
 * compilation are not in the plan), for messages. */
const tsi_vertex *tsi_engine_plan_vertex(const tsi_engine *e, const tsi_compute_set *cs, size_t i);
