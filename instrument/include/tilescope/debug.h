/*
 * Debug contexts (Poplar's DebugContext / DebugInfo): named scopes that
 * say which operation or model layer created each variable, compute set
 * and program. The ops library opens one per operation; a model opens its
 * own around a layer so that reports can group memory, cycles and FLOPs
 * by layer. They nest: a context opened while another is open on the same
 * graph is its child. The graph profile lists them
 * (tsi_graph_profile.debug_contexts) and autoReport.outputDebugInfo
 * writes them to debug.cbor.
 *
 * Names. As in Poplar's debug names, a model's context (one opened with
 * tsi_debug_push) prefixes the names of the variables, compute sets and
 * programs made while it is open: inside "model" and then "fc1", a
 * matmul named "matmul" makes the compute set "model/fc1/matmul/Partials"
 * and a variable named "W" is "model/fc1/W". The contexts the operations
 * open themselves add nothing, as an operation already puts the name it
 * was given in what it makes. Stream and host handle names are not
 * prefixed (the host looks them up by the name it gave).
 */
#pragma once

#include "graph.h"

TSB_BEGIN_DECLS

/* A debug context id: 1-based, TSI_NO_DEBUG_CONTEXT (0) means none. */
typedef uint32_t tsi_debug_id;
#define TSI_NO_DEBUG_CONTEXT 0u

/* Opens a context named `name` (copied; NULL is "unnamed") of `layer`
 * (copied; NULL is "user") as a child of the innermost open context of
 * `graph`. Everything the graph creates until the matching
 * tsi_debug_pop() belongs to it. Returns its id, or 0 when `graph` is
 * NULL or out of memory (the error is recorded in the graph). */
TSI_API tsi_debug_id tsi_debug_push(tsi_graph *graph, const char *name, const char *layer);
/* Closes context `id`, which must be the innermost open one; closing
 * anything else (or 0) is ignored apart from a WARN log line, so that an
 * unbalanced pop never corrupts the tree. */
TSI_API void tsi_debug_pop(tsi_graph *graph, tsi_debug_id id);
/* The innermost open context of `graph`, 0 when none. */
TSI_API tsi_debug_id tsi_debug_current(const tsi_graph *graph);

TSB_END_DECLS
