/*
 * Collectives over the replicas of a replicated graph, in the style of
 * Graphcore's GCL (gcl/Collectives.hpp): allReduce (and its in-place and
 * to-destination forms), reduceScatter, allGather and allToAll, over all
 * replicas or over groups of them. Each appends one step to a sequence;
 * the engine moves the data between replicas and the compiler model
 * accounts it as a GlobalExchange after an external sync.
 */
#pragma once

#include "program.h"

TSB_BEGIN_DECLS

/* popops::CollectiveOperator */
typedef enum tsi_collective_op {
	TSI_COLLECTIVE_ADD = 0,
	TSI_COLLECTIVE_MUL,
	TSI_COLLECTIVE_MIN,
	TSI_COLLECTIVE_MAX,
	TSI_COLLECTIVE_LOGICAL_AND, /* nonzero when every value is nonzero */
	TSI_COLLECTIVE_LOGICAL_OR,
	TSI_COLLECTIVE_SQUARE_ADD,  /* sum of squares */
	TSI_COLLECTIVE_LOCAL,       /* no reduction: each replica keeps its own value */
	TSI_COLLECTIVE_OP_COUNT
} tsi_collective_op;

typedef enum tsi_comm_group_type {
	TSI_COMM_ALL = 0,    /* every replica in one group; size ignored */
	TSI_COMM_CONSECUTIVE,/* {0..k-1}, {k..2k-1}, ... */
	TSI_COMM_ORTHOGONAL  /* m = N/k groups: {0, m, 2m, ...}, {1, m+1, ...}, ... */
} tsi_comm_group_type;

typedef struct tsi_comm_group {
	tsi_comm_group_type type;
	unsigned size; /* replicas per group (CONSECUTIVE, ORTHOGONAL); divides the replication factor */
} tsi_comm_group;

#define TSI_COMM_GROUP_ALL ((tsi_comm_group){TSI_COMM_ALL, 0})

/* Reduces `data` across the replicas of each group with `op`; returns a
 * new tensor mapped like `data` holding the result on every replica. */
TSI_API tsi_tensor *tsi_gcl_all_reduce(tsi_graph *graph, const tsi_tensor *data,
                                       tsi_collective_op op, tsi_program *seq,
                                       tsi_comm_group group, const char *debug_name);
/* As tsi_gcl_all_reduce, writing the result back into `data`. */
TSI_API int tsi_gcl_all_reduce_in_place(tsi_graph *graph, const tsi_tensor *data,
                                        tsi_collective_op op, tsi_program *seq,
                                        tsi_comm_group group, const char *debug_name);
/* As tsi_gcl_all_reduce, writing the result into `destination` (same
 * type and number of elements). */
TSI_API int tsi_gcl_all_reduce_to_destination(tsi_graph *graph, const tsi_tensor *data,
                                              const tsi_tensor *destination,
                                              tsi_collective_op op, tsi_program *seq,
                                              tsi_comm_group group, const char *debug_name);
/* Reduces the rank-1 `data` and scatters the result: for input elements
 * on IPU i (n_i of them), the output has ceil(n_i / k) elements for that
 * IPU (k = group size), and the replica of rank j in its group receives
 * the reduction of elements [j*L, (j+1)*L) of that IPU's part, zero-padded
 * past the end. */
TSI_API tsi_tensor *tsi_gcl_reduce_scatter(tsi_graph *graph, const tsi_tensor *data,
                                           tsi_collective_op op, tsi_program *seq,
                                           tsi_comm_group group, const char *debug_name);
/* Every replica receives [k][shape of data]: the data of each replica of
 * its group, in rank order. */
TSI_API tsi_tensor *tsi_gcl_all_gather(tsi_graph *graph, const tsi_tensor *data,
                                       tsi_program *seq, tsi_comm_group group,
                                       const char *debug_name);
/* `data`'s first dimension is the group size k: slice j goes to the
 * replica of rank j, which stores it at index (sender's rank). */
TSI_API tsi_tensor *tsi_gcl_all_to_all(tsi_graph *graph, const tsi_tensor *data,
                                       tsi_program *seq, tsi_comm_group group,
                                       const char *debug_name);

/* The group of `replica` under `group` for `replication` replicas: fills
 * the caller's members[0..k) with the replicas in rank order and returns k,
 * or 0 when the group does not divide the replicas. `members` holds
 * `replication` entries. */
TSI_API unsigned tsi_comm_group_fill_members(unsigned *members, tsi_comm_group group,
                                             unsigned replication, unsigned replica);

TSB_END_DECLS
