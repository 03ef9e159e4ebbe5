/*
 * The call tree of a window (sa-calltree.h), on the document's second
 * handle through sa_document_run_async.
 */
#include "sa-calltree.h"

#include "sa-format.h"

static void clear_call_tree(sa_call_tree *ct)
{
	tsr_trace_call_tree_free(ct->tree);
	g_clear_pointer(&ct->doc, sa_document_unref);
}

G_DEFINE_BOXED_TYPE(sa_call_tree, sa_call_tree, sa_call_tree_ref, sa_call_tree_unref)

sa_call_tree *sa_call_tree_ref(sa_call_tree *ct)
{
	return g_atomic_rc_box_acquire(ct);
}

void sa_call_tree_unref(sa_call_tree *ct)
{
	if (ct)
		g_atomic_rc_box_release_full(ct, (GDestroyNotify)clear_call_tree);
}

typedef struct window {
	int64_t from_ns, to_ns;
	SaDocument *doc;
} window;

static gpointer run_call_tree(tsr_trace *trace, gpointer data, GCancellable *cancellable,
                              GError **error)
{
	const window *w = data;
	tsr_trace_call_tree_options o = TSR_TRACE_CALL_TREE_OPTIONS_INIT;
	sa_call_tree *ct = g_atomic_rc_box_new0(sa_call_tree);
	int rc;

	ct->doc = sa_document_ref(w->doc);
	ct->from_ns = o.from_ns = w->from_ns;
	ct->to_ns = o.to_ns = w->to_ns;
	rc = tsr_trace_call_tree_new(&ct->tree, trace, &o);
	if (rc != TSR_OK) {
		tsd_load_set_error(error, rc, tsr_trace_error(trace));
		sa_call_tree_unref(ct);
		return NULL;
	}
	return ct;
}

void sa_call_tree_async(SaDocument *doc, int64_t from_ns, int64_t to_ns,
                        GCancellable *cancellable, GAsyncReadyCallback callback,
                        gpointer user_data)
{
	window *w = g_new(window, 1);

	w->from_ns = from_ns;
	w->to_ns = to_ns;
	w->doc = doc;   /* the job holds the document until it is done */
	sa_document_run_async(doc, run_call_tree, w, g_free, (GDestroyNotify)sa_call_tree_unref,
	                      cancellable, callback, user_data);
}

sa_call_tree *sa_call_tree_finish(GAsyncResult *result, GError **error)
{
	return sa_document_run_finish(result, error);
}

char *sa_call_tree_describe_window(tsr_trace *trace, int64_t from_ns, int64_t to_ns)
{
	int64_t start = tsr_trace_get_info(trace)->start_ns;
	g_autofree char *a = NULL, *b = NULL;

	if (from_ns == INT64_MIN && to_ns == INT64_MAX)
		return g_strdup("Whole trace");
	a = sa_format_ms_exact(from_ns - start);
	b = sa_format_ms_exact(to_ns - start);
	return g_strdup_printf("Spans starting in %s – %s", a, b);
}
