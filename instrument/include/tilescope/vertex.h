/*
 * Codelets, compute sets and vertices: the device code of the IPU Model.
 *
 * A codelet is written in C: a table of fields (direction and shape), a
 * compute function that really computes on the host CPU, a cycle
 * estimator, and the state and code sizes a real tile would spend on it.
 * The engine gathers each vertex's fields into host buffers before the
 * compute set (so every vertex reads its inputs as they were before the
 * compute set) and writes outputs back after all vertices ran: the BSP
 * semantics of the IPU.
 */
#pragma once

#include "graph.h"

TSB_BEGIN_DECLS

typedef struct tsi_compute_set tsi_compute_set;
typedef struct tsi_vertex tsi_vertex;

typedef enum tsi_field_dir {
	TSI_FIELD_INPUT = 0, /* Input<...>: read only */
	TSI_FIELD_OUTPUT,    /* Output<...>: written; the old value is not read */
	TSI_FIELD_INOUT      /* InOut<...>: read and written */
} tsi_field_dir;

typedef enum tsi_field_shape {
	TSI_FIELD_SCALAR = 0, /* Input<float>: exactly one element */
	TSI_FIELD_VECTOR,     /* Input<Vector<float>>: one tensor of any size */
	TSI_FIELD_VECTOR_LIST /* Vector<Input<Vector<float>>>: a list of tensors */
} tsi_field_shape;

/* One field of a codelet. */
typedef struct tsi_field_def {
	const char *name;
	tsi_field_dir dir;
	tsi_field_shape shape;
	tsi_type type;
	size_t size; /* VECTOR: required element count, 0 for any */
} tsi_field_def;

/* A field as the compute function and the cycle estimator see it. The
 * elements of all sub-vectors lie back to back in `data`; sub-vector k is
 * data[offsets[k] .. offsets[k+1]) (SCALAR and VECTOR fields have one). For
 * the cycle estimator, data is NULL and only the sizes are valid.
 * INPUT fields are read-only: `data` may point at the variable itself.
 * OUTPUT fields start zeroed. Every vertex sees its inputs as they were
 * before the compute set (the BSP rule): a field that another field of
 * the set reads is written to a copy that reaches the variable after
 * every vertex has run; other outputs and in-outs may be written in
 * place. When a vertex fails, what the compute set's outputs hold is
 * undefined, as on the IPU, where the failure aborts the program. */
typedef struct tsi_field {
	void *data;
	size_t count;          /* elements in all */
	size_t n_vectors;      /* 1 unless VECTOR_LIST */
	const size_t *offsets; /* n_vectors + 1 element offsets */
} tsi_field;

/* Runs one vertex. fields[i] is the codelet's field i. Returns true on
 * success; false stops the run with TSI_ERR_VERTEX_FAILED. */
typedef bool (*tsi_compute_cb)(const tsi_field *fields, size_t n_fields);
/* Estimates one vertex's cycles on one worker thread from field sizes. */
typedef uint64_t (*tsi_cycles_cb)(const tsi_field *fields, size_t n_fields,
                                  const tsi_target *target);
/* Floating-point operations one execution performs (for FLOP estimates). */
typedef uint64_t (*tsi_flops_cb)(const tsi_field *fields, size_t n_fields);

/* A codelet: a vertex type. `name`, `fields` and the strings they point
 * to must outlive every graph the codelet is added to (use static data). */
typedef struct tsi_codelet {
	const char *name;        /* vertex type name, e.g. "SumVertex" */
	const tsi_field_def *fields;
	size_t n_fields;
	tsi_compute_cb compute;
	tsi_cycles_cb cycles;    /* NULL: a fixed estimate of 20 + elements */
	tsi_flops_cb flops;      /* NULL: no floating-point work */
	uint32_t state_bytes;    /* vertex state per instance, bytes */
	uint32_t code_bytes;     /* code per tile that runs this type, bytes */
	bool supervisor;         /* runs on the supervisor, splitting work over workers */
} tsi_codelet;

/* Adds a codelet to the graph (graph.addCodelets). Adding the same name
 * twice with the same table is harmless; a different table is an error. */
TSI_API int tsi_graph_add_codelet(tsi_graph *graph, const tsi_codelet *codelet);
/* Adds `n` codelets. */
TSI_API int tsi_graph_add_codelets(tsi_graph *graph, const tsi_codelet *codelets, size_t n);
/* The codelet registered under `name`, or NULL. */
TSI_API const tsi_codelet *tsi_graph_lookup_codelet(const tsi_graph *graph, const char *name);

/* Adds a compute set named `name` (NULL: "cs<N>"), prefixed with the path
 * of the model's open debug contexts ("fc1/matmul/Partials", debug.h). */
TSI_API tsi_compute_set *tsi_graph_add_compute_set(tsi_graph *graph, const char *name);
TSI_API const char *tsi_compute_set_name(const tsi_compute_set *cs);
TSI_API size_t tsi_compute_set_num_vertices(const tsi_compute_set *cs);

/* Adds a vertex of type `type_name` to `cs`. An unknown type is reported
 * when the engine compiles (TSI_ERR_UNKNOWN_VERTEX_TYPE). */
TSI_API tsi_vertex *tsi_graph_add_vertex(tsi_graph *graph, tsi_compute_set *cs,
                                         const char *type_name);
/* Connects field `field` of `v` to `tensor`. For a VECTOR_LIST field a
 * tensor of rank >= 2 connects one sub-vector per row. */
TSI_API int tsi_graph_connect(tsi_graph *graph, tsi_vertex *v, const char *field,
                              const tsi_tensor *tensor);
/* Connects a VECTOR_LIST field to `n` tensors, one sub-vector each. */
TSI_API int tsi_graph_connect_list(tsi_graph *graph, tsi_vertex *v, const char *field,
                                   tsi_tensor *const *tensors, size_t n);
/* Places `v` on `tile` of this graph. */
TSI_API int tsi_graph_set_vertex_tile(tsi_graph *graph, tsi_vertex *v, unsigned tile);
/* Overrides the codelet's estimator for this vertex (graph.setCycleEstimate). */
TSI_API int tsi_graph_set_cycle_estimate(tsi_graph *graph, tsi_vertex *v, uint64_t cycles);
TSI_API const char *tsi_vertex_type_name(const tsi_vertex *v);

TSB_END_DECLS
