/*
 * The System Analyser's session (sa-session.h) and the views bound to it
 * (issue 28 item 1), without a window.
 *
 * What is checked:
 *   - the window the details are about follows from the session: the
 *     marked range, else the selected span's extent (at least 1 ns), else
 *     the whole trace; each change notifies each of its ends once, and
 *     setting what is already there notifies nothing;
 *   - a new document clears the view, the range and the selection;
 *     "selected-span" reads and writes the selection as a property;
 *   - the Statistics tab (an SaView) on a session shows the whole trace's
 *     statistics, then those of a range marked in the session, as
 *     sa_document_stats computes them, without anyone calling it;
 *   - the Call Tree tab computes the tree of the session's window and the
 *     Flame Graph, bound to its "call-tree" as sa-window.ui binds them,
 *     draws that same tree;
 *   - the Span tab shows the session's selection, and its parent button
 *     selects the parent in the session.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sa-calltree-view.h"
#include "sa-resources.h"
#include "sa-flame-view.h"
#include "sa-session.h"
#include "sa-span-view.h"
#include "sa-stats-view.h"
#include "gtk-test-util.h"

#include <stdlib.h>
#include <string.h>

#define TRACE SAMPLE_REPORTS "/tut5_ml/tut5_ml.pvti"

/* --- Helpers ------------------------------------------------------------------------ */

typedef struct counts {
	int window_from, window_to, range_from, selected, document, view_from;
} counts;

static void on_notify(GObject *object, GParamSpec *pspec, gpointer data)
{
	counts *c = data;
	const char *name = g_param_spec_get_name(pspec);

	(void)object;
	c->window_from += strcmp(name, "window-from") == 0;
	c->window_to += strcmp(name, "window-to") == 0;
	c->range_from += strcmp(name, "range-from") == 0;
	c->selected += strcmp(name, "selected-span") == 0;
	c->document += strcmp(name, "document") == 0;
	c->view_from += strcmp(name, "view-from") == 0;
}

static tsr_trace_item span_at(int64_t start, int64_t end, int64_t seq)
{
	tsr_trace_item it;

	memset(&it, 0, sizeof(it));
	it.start_ns = start;
	it.end_ns = end;
	it.count = 1;
	it.seq = seq;
	it.parent = -1;
	it.kind = TSR_TRACE_ITEM_EVENT;
	return it;
}

static SaDocument *load_trace(void)
{
	g_autoptr(GFile) file = g_file_new_for_path(TRACE);
	g_autoptr(GError) error = NULL;
	SaDocument *doc = sa_document_load(&file, 1, &error);

	assert_non_null(doc);
	return doc;
}

/* The caption of an SaView: the column view's accessible description,
 * which the header label shows. */
static gboolean is_caption(GtkWidget *w, gconstpointer view)
{
	return GTK_IS_LABEL(w) && gtk_widget_get_parent(w) != view &&
	       gtk_label_get_xalign(GTK_LABEL(w)) == 0;
}

static const char *caption_of(GtkWidget *view)
{
	GtkWidget *label = gtu_find_if(view, is_caption, view);

	return label ? gtk_label_get_text(GTK_LABEL(label)) : "";
}

typedef struct caption_wait {
	GtkWidget *view;
	const char *prefix;
} caption_wait;

static gboolean caption_starts(gpointer data)
{
	caption_wait *c = data;

	return g_str_has_prefix(caption_of(c->view), c->prefix);
}

/* --- The session alone ------------------------------------------------------------------- */

static void test_window_follows(void **state)
{
	g_autoptr(SaSession) s = sa_session_new();
	tsr_trace_item span = span_at(100, 200, 7), zero = span_at(500, 500, 8), got;
	counts c = {0};
	int64_t from, to;
	size_t thread;

	(void)state;
	g_signal_connect(s, "notify", G_CALLBACK(on_notify), &c);
	assert_false(sa_session_get_window(s, &from, &to));
	assert_true(from == INT64_MIN && to == INT64_MAX);

	/* A selected span: its extent. */
	sa_session_set_selection(s, 3, &span);
	assert_true(sa_session_get_window(s, &from, &to));
	assert_true(from == 100 && to == 200);
	assert_int_equal(c.window_from, 1);
	assert_int_equal(c.window_to, 1);
	assert_int_equal(c.selected, 1);
	assert_true(sa_session_get_selection(s, &thread, &got));
	assert_int_equal(thread, 3);
	assert_true(got.seq == 7);
	/* The same again: nothing. */
	sa_session_set_selection(s, 3, &span);
	assert_int_equal(c.selected, 1);
	assert_int_equal(c.window_from, 1);

	/* A marked range wins over the selection, which stays. */
	sa_session_set_range(s, 150, 300);
	assert_true(sa_session_get_window(s, &from, &to));
	assert_true(from == 150 && to == 300);
	assert_int_equal(c.window_from, 2);
	assert_int_equal(c.window_to, 2);
	assert_int_equal(c.range_from, 1);
	assert_true(sa_session_get_selection(s, &thread, &got));
	/* Only one end moves: only it is notified. */
	sa_session_set_range(s, 150, 400);
	assert_int_equal(c.window_from, 2);
	assert_int_equal(c.window_to, 3);

	/* The range cleared: the selection's extent again; an empty range
	 * is none. */
	sa_session_set_range(s, 400, 400);
	assert_false(sa_session_get_range(s, &from, &to));
	assert_true(sa_session_get_window(s, &from, &to));
	assert_true(from == 100 && to == 200);

	/* A zero-length span is a window of 1 ns. */
	sa_session_set_selection(s, 0, &zero);
	assert_true(sa_session_get_window(s, &from, &to));
	assert_true(from == 500 && to == 501);

	/* Nothing marked or selected: the whole trace. */
	sa_session_clear_selection(s);
	assert_false(sa_session_get_window(s, &from, &to));
	assert_true(from == INT64_MIN && to == INT64_MAX);
}

static void test_document_clears(void **state)
{
	g_autoptr(SaSession) s = sa_session_new();
	g_autoptr(SaDocument) doc = load_trace();
	tsr_trace_item span = span_at(100, 200, 1), got;
	counts c = {0};
	int64_t from, to;
	size_t thread;
	sa_span_ref ref, *read = NULL;

	(void)state;
	sa_session_set_view(s, 10, 20);
	sa_session_set_range(s, 30, 40);
	sa_session_set_selection(s, 1, &span);
	g_signal_connect(s, "notify", G_CALLBACK(on_notify), &c);
	sa_session_set_document(s, doc);
	assert_ptr_equal(sa_session_get_document(s), doc);
	assert_int_equal(c.document, 1);
	assert_int_equal(c.view_from, 1);
	sa_session_get_view(s, &from, &to);
	assert_true(from == 0 && to == 0);
	assert_false(sa_session_get_range(s, &from, &to));
	assert_false(sa_session_get_selection(s, &thread, &got));
	assert_false(sa_session_get_window(s, &from, &to));
	sa_session_set_document(s, doc);
	assert_int_equal(c.document, 1);

	/* The selection as a property, both ways. */
	memset(&ref, 0, sizeof(ref));
	ref.thread = 2;
	ref.item = span_at(5, 9, 4);
	g_object_set(s, "selected-span", &ref, NULL);
	assert_true(sa_session_get_selection(s, &thread, &got));
	assert_int_equal(thread, 2);
	assert_true(got.start_ns == 5 && got.end_ns == 9);
	g_object_get(s, "selected-span", &read, NULL);
	assert_non_null(read);
	assert_true(read->thread == 2 && read->item.seq == 4);
	sa_span_ref_free(read);
	g_object_set(s, "selected-span", NULL, NULL);
	assert_false(sa_session_get_selection(s, &thread, &got));
	g_object_set(s, "document", NULL, NULL);
	assert_null(sa_session_get_document(s));
}

/* --- Views on a session ------------------------------------------------------------------ */

static void test_stats_follow_session(void **state)
{
	g_autoptr(SaSession) s = sa_session_new();
	g_autoptr(SaDocument) doc = load_trace();
	const tsr_trace_info *info = tsr_trace_get_info(sa_document_get_trace(doc));
	GtkWidget *view = g_object_new(SA_TYPE_STATS_VIEW, "session", s, NULL);
	int64_t mid = info->start_ns + (info->end_ns - info->start_ns) / 2;
	g_autoptr(sa_stats) whole = sa_document_stats(doc, INT64_MIN, INT64_MAX, NULL);
	g_autoptr(sa_stats) half = sa_document_stats(doc, info->start_ns, mid, NULL);
	g_autofree char *spans = g_strdup_printf(": %" G_GUINT64_FORMAT " spans, %zu labels",
	                                         half->spans, half->n_labels);
	caption_wait c = {view, "Whole trace: "};

	(void)state;
	g_object_ref_sink(view);
	assert_non_null(whole);
	assert_non_null(half);
	assert_true(half->spans < whole->spans);
	sa_session_set_document(s, doc);
	assert_true(gtu_wait(caption_starts, &c));
	{
		g_autofree char *want = g_strdup_printf("Whole trace: %" G_GUINT64_FORMAT " spans",
		                                        whole->spans);

		assert_true(g_str_has_prefix(caption_of(view), want));
	}
	/* A range marked in the session: the view computes it by itself. */
	sa_session_set_range(s, info->start_ns, mid);
	c.prefix = "Spans starting in ";
	assert_true(gtu_wait(caption_starts, &c));
	assert_non_null(strstr(caption_of(view), spans));
	/* No document: empty. */
	sa_session_set_document(s, NULL);
	c.prefix = "";
	assert_true(gtu_wait(caption_starts, &c));
	g_object_unref(view);
}

typedef struct tree_wait {
	GtkWidget *calltree;
	int64_t from;
} tree_wait;

static gboolean tree_of(gpointer data)
{
	tree_wait *t = data;
	sa_call_tree *ct = sa_call_tree_view_get_tree(SA_CALL_TREE_VIEW(t->calltree));

	return ct && ct->from_ns == t->from;
}

static gboolean no_tree(gpointer data)
{
	return sa_call_tree_view_get_tree(data) == NULL;
}

static void test_call_tree_and_flame(void **state)
{
	g_autoptr(SaSession) s = sa_session_new();
	g_autoptr(SaDocument) doc = load_trace();
	const tsr_trace_info *info = tsr_trace_get_info(sa_document_get_trace(doc));
	GtkWidget *calltree = g_object_new(SA_TYPE_CALL_TREE_VIEW, "session", s, NULL);
	GtkWidget *flame = g_object_ref_sink(sa_flame_view_new());
	tree_wait t = {calltree, INT64_MIN};
	sa_call_tree *drawn = NULL;
	int64_t from = info->start_ns + 1000;

	(void)state;
	g_object_ref_sink(calltree);
	g_object_bind_property(calltree, "call-tree", flame, "call-tree", G_BINDING_SYNC_CREATE);
	sa_session_set_document(s, doc);
	assert_true(gtu_wait(tree_of, &t));
	g_object_get(flame, "call-tree", &drawn, NULL);
	assert_ptr_equal(drawn, sa_call_tree_view_get_tree(SA_CALL_TREE_VIEW(calltree)));
	assert_true(drawn->doc == doc && drawn->to_ns == INT64_MAX);
	sa_call_tree_unref(drawn);
	/* The window moves: a new tree, the flame graph's too. */
	sa_session_set_range(s, from, info->end_ns);
	t.from = from;
	assert_true(gtu_wait(tree_of, &t));
	g_object_get(flame, "call-tree", &drawn, NULL);
	assert_non_null(drawn);
	assert_true(drawn->from_ns == from && drawn->to_ns == info->end_ns);
	sa_call_tree_unref(drawn);
	/* No document: no tree, in either view. */
	sa_session_set_document(s, NULL);
	assert_true(gtu_wait(no_tree, calltree));
	g_object_get(flame, "call-tree", &drawn, NULL);
	assert_null(drawn);
	g_object_unref(calltree);
	g_object_unref(flame);
}

/* A child span with a parent, found in the trace. */
static gboolean find_child(tsr_trace *trace, size_t *thread, tsr_trace_item *child)
{
	const tsr_trace_thread *threads = NULL;
	size_t n_threads = 0;

	if (tsr_trace_get_threads(&threads, &n_threads, trace) != TSR_OK)
		return FALSE;
	for (size_t t = 0; t < n_threads; t++) {
		tsr_trace_item *items = NULL;
		size_t n = 0;
		gboolean found = FALSE;

		if (tsr_trace_list_events(&items, &n, trace, t, INT64_MIN, INT64_MAX, 0) != TSR_OK)
			continue;
		for (size_t i = 0; i < n && !found; i++)
			if (items[i].kind == TSR_TRACE_ITEM_EVENT && items[i].parent >= 0) {
				*thread = t;
				*child = items[i];
				found = TRUE;
			}
		free(items);
		if (found)
			return TRUE;
	}
	return FALSE;
}

/* The Span tab's parent button ("Parent NAME"), once the worker has
 * filled it. */
static gboolean is_parent_button(GtkWidget *w, gconstpointer data)
{
	(void)data;
	return GTK_IS_BUTTON(w) && gtk_widget_has_css_class(w, "span-link") &&
	       GTK_IS_BOX(gtk_widget_get_parent(w)) &&
	       gtk_orientable_get_orientation(GTK_ORIENTABLE(gtk_widget_get_parent(w))) ==
	           GTK_ORIENTATION_HORIZONTAL;
}

static GtkWidget *parent_button(GtkWidget *root)
{
	return gtu_find_if(root, is_parent_button, NULL);
}

static gboolean has_parent_button(gpointer data)
{
	return parent_button(data) != NULL;
}

static void test_span_view_selects(void **state)
{
	g_autoptr(SaSession) s = sa_session_new();
	g_autoptr(SaDocument) doc = load_trace();
	GtkWidget *span_view = g_object_ref_sink(g_object_new(SA_TYPE_SPAN_VIEW, "session", s, NULL));
	tsr_trace_item child, got;
	size_t thread, got_thread;

	(void)state;
	sa_session_set_document(s, doc);
	assert_true(find_child(sa_document_get_trace(doc), &thread, &child));
	sa_session_set_selection(s, thread, &child);
	assert_true(gtu_wait(has_parent_button, span_view));
	/* The parent chosen in the tab is the session's selection. */
	g_signal_emit_by_name(parent_button(span_view), "clicked");
	assert_true(sa_session_get_selection(s, &got_thread, &got));
	assert_int_equal(got_thread, thread);
	assert_true(got.seq == child.parent);
	g_object_unref(span_view);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_follows),
		cmocka_unit_test(test_document_clears),
		cmocka_unit_test(test_stats_follow_session),
		cmocka_unit_test(test_call_tree_and_flame),
		cmocka_unit_test(test_span_view_selects),
	};

	gtk_init();
	sa_register_resource();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
