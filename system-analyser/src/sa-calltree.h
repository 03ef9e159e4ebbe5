/*
 * The call tree of a window of the trace, for the Call Tree and Flame
 * Graph tabs: reportlib's tsr_trace_call_tree_new (what `tilescope trace
 * --call-tree --from --to` prints) computed in a worker on the
 * document's second handle, shared by both views (reference counted).
 */
#pragma once

#include "sa-document.h"

G_BEGIN_DECLS

typedef struct sa_call_tree {
	int64_t from_ns, to_ns;       /* spans starting in [from_ns, to_ns); INT64_MIN /
	                                 INT64_MAX: the whole trace */
	tsr_trace_call_tree *tree;
	SaDocument *doc;              /* whose trace names the nodes (a reference) */
} sa_call_tree;

/* A boxed type (reference counted), for the Call Tree tab's "call-tree"
 * property that the Flame Graph binds to. */
#define SA_TYPE_CALL_TREE (sa_call_tree_get_type())
GType sa_call_tree_get_type(void) G_GNUC_CONST;
sa_call_tree *sa_call_tree_ref(sa_call_tree *ct);
void sa_call_tree_unref(sa_call_tree *ct);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(sa_call_tree, sa_call_tree_unref)

/* Computes the call tree of [from_ns, to_ns) over all threads in a
 * worker; completes with sa_call_tree_finish() (a reference the caller
 * releases). */
void sa_call_tree_async(SaDocument *doc, int64_t from_ns, int64_t to_ns,
                        GCancellable *cancellable, GAsyncReadyCallback callback,
                        gpointer user_data);
sa_call_tree *sa_call_tree_finish(GAsyncResult *result, GError **error);

/* "Whole trace" or "Spans starting in 1.000000 ms – 2.000000 ms" (times
 * after the trace's start): the Statistics, Call Tree and Flame Graph
 * tabs' words for a window. */
char *sa_call_tree_describe_window(tsr_trace *trace, int64_t from_ns, int64_t to_ns);

G_END_DECLS
