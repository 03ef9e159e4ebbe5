/*
 * The layout of one compute set's run, as engine-plan.c builds it at load
 * and engine-compute-sets.c runs it: where each field of each vertex lives
 * (the shared scratch arena or variable memory), and the moves that fill
 * the arena before the vertices run and empty it after.
 *
 * A large model keeps a plan for each of its tens of thousands of compute
 * sets for as long as the engine lives (bert_synth --size large: 1.7 M
 * vertices, 4.3 M fields, 5.7 M moves), so the encoding is chosen for
 * size: 8 bytes per field, 16 per move (32 for a strided one), equal
 * sub-vector offsets stored once, one allocation per plan, and the
 * tsi_field a codelet sees made on the fly for each call. A move past
 * 4 GiB escapes to a `plan_wide` entry.
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
/* plan_move.bytes with this bit: a strided move, whose plan_run is the
 * next entry of the list. */
#define MOVE_RUN UINT32_C(0x80000000)

/* One contiguous move between a variable and the scratch arena, in the
 * order the plan lists them. */
typedef struct plan_move {
	uint32_t var;         /* variable id, ZERO_VAR or WIDE_VAR */
	uint32_t var_off;     /* bytes into one replica's copy; WIDE_VAR: index into wide */
	uint32_t scratch_off; /* bytes into the scratch arena */
	uint32_t bytes;       /* of one piece; | MOVE_RUN when a plan_run follows */
} plan_move;

/* The second half of a strided move (see plan_wide for the meaning). */
typedef struct plan_run {
	uint32_t count, stride, rows, row_step;
} plan_run;

/* An entry of a move list: a plan_move, or the plan_run after one. */
typedef union plan_entry {
	plan_move move;
	plan_run run;
} plan_entry;

/* A move as plan building sees it, and as a plan keeps one that the
 * 32-bit entries cannot hold (past 4 GiB): `count` pieces of `bytes`,
 * piece i at var_off + i * stride in the variable and scratch_off + i *
 * bytes in scratch (a strided view, such as a transpose, gathers element
 * by element); and `rows` such runs, row j starting at var_off + j *
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

/* Flags of plan_field.at. AT_DIRECT: the rest is an index into the plan's
 * direct fields; without it, the scratch offset in FIELD_ALIGN units.
 * AT_LIST: a list field, whose `size` indexes its offsets. */
#define AT_DIRECT UINT32_C(0x80000000)
#define AT_LIST UINT32_C(0x40000000)
#define AT_INDEX (AT_LIST - 1u)

/* One field of one vertex, what tsi_field is made from at each call. */
typedef struct plan_field {
	uint32_t at;   /* AT_ flags | direct index or scratch offset / FIELD_ALIGN */
	uint32_t size; /* elements; AT_LIST: k such that offsets[k - 1] is the
	                  number of sub-vectors n and offsets[k .. k + n] their
	                  offsets (so the elements are offsets[k + n]) */
} plan_field;

/* The tsi_fields a hot plan keeps made (engine-compute-sets.c). */
typedef struct plan_made plan_made;

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
	size_t *offsets;           /* the list fields' sub-vector counts and offsets
	                              (see plan_field; equal lists share them) */
	size_t n_offsets;
	plan_direct *direct;       /* fields in variable memory */
	size_t n_direct;
	plan_entry *in;            /* gathers and zero-fills, before the vertices run */
	size_t n_in;               /* entries */
	plan_entry *out;           /* write-backs of outputs and in-outs, after */
	size_t n_out;
	plan_wide *wide;           /* the moves of in and out that escape */
	size_t n_wide;

	/* A plan executed more than once in one run (a loop body's) keeps the
	 * tsi_fields its vertices are called with, made once, since making
	 * them per call costs more than a small vertex's work; the others
	 * make them call by call (engine-compute-sets.c). */
	uint64_t last_run;         /* e->run_serial of its last execution, 0: none */
	plan_made *made;           /* NULL, or the made fields (malloc) */
};

/* --- Fields without a scratch copy (engine-plan-fields.c) ------------------ */

/* Marks in `in_place` (one flag per field of `vertices[0..n_vertices)`,
 * in order, zeroed by the caller) the output and in-out fields that can
 * be written in variable memory. Returns TSI_OK or TSI_ERR_NO_MEMORY. */
int tsi_engine_plan_mark_in_place(const tsi_vertex *const *vertices, size_t n_vertices,
                                  bool *in_place);

/* True when the tensors of a list field are one contiguous run of one
 * variable, each sub-vector starting where the one before ended (and
 * none empty), so the field can point into the variable. */
bool tsi_engine_plan_contiguous_list(const tsi_field_conn *c);

/* One entry of the table of gathered input fields: the connection and
 * the plan field that gathered it. */
typedef struct plan_shared_slot {
	const tsi_field_conn *conn; /* NULL: empty slot */
	uint64_t hash;
	size_t field;
} plan_shared_slot;

/* The field that first gathered what `c` reads into scratch, found in or
 * added to `table` (`mask` + 1 slots, a power of two at least twice the
 * fields, zeroed before the first call): `field` itself when it is the
 * first. */
size_t tsi_engine_plan_shared_lookup(plan_shared_slot *table, size_t mask, const tsi_field_conn *c,
                                     size_t field);

/* --- Plans (engine-plan.c) --------------------------------------------------- */

/* Makes the plan of compute set `cs` (engine-plan.c). Returns TSI_OK, or
 * a failure recorded in the engine (a vertex of unknown type, a field
 * connected to a variable made after compilation, out of host memory). */
int tsi_engine_plan_build(tsi_engine *e, tsi_compute_set *cs, cs_plan **out);

/* The vertex of `cs` that plan index `i` stands for (those made after
 * compilation are not in the plan), for messages. */
const tsi_vertex *tsi_engine_plan_vertex(const tsi_engine *e, const tsi_compute_set *cs, size_t i);
