/*
 * The Execution Trace in compare mode, at widget level (the app's own
 * way into compare mode, `tilescope-graph-analyser A B`, is being built
 * on another branch; this drives the view through the session API it is
 * written against): with tutorial 5 as report A and tutorial 7 as report
 * B set through ga_session_set_documents,
 *
 *   - B's lanes show B's last run, A's lanes A's (the session's run);
 *   - zooming A's lanes zooms B's to the same cycles, and B's axis
 *     reaches the longer run;
 *   - a step selected in B shows in the details as report B's, and the
 *     session's step (an index into report A) does not move;
 *   - ending the comparison hides B again;
 *
 * and, with one report, that the view follows the session: a step set
 * there (as the Liveness view or the Program Tree would) picks its run,
 * selects it and scrolls it into view.
 *
 * With TILESCOPE_SHOT=FILE.png the view is also rendered to that file.
 */
#include "ga-document.h"
#include "ga-session.h"
#include "ga-step-lanes.h"
#include "ga-trace-view.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

static GaDocument *load(const char *name)
{
	g_autofree char *path = g_build_filename(SAMPLE_REPORTS, name, "profile.pop", NULL);
	g_autoptr(GFile) file = g_file_new_for_path(path);
	GError *error = NULL;
	GaDocument *doc = ga_document_load(file, NULL, &error);

	if (!doc)
		fail_msg("%s: %s", path, error->message);
	return doc;
}

/* Runs the main loop for `ms` milliseconds (the tile indexes are built
 * in worker threads). */
static void spin(int ms)
{
	gint64 end = g_get_monotonic_time() + ms * 1000;

	while (g_get_monotonic_time() < end)
		g_main_context_iteration(NULL, FALSE);
}

/* The GaStepLanes below `w`, in order (A then B). */
static void collect(GtkWidget *w, GPtrArray *out)
{
	if (GA_IS_STEP_LANES(w))
		g_ptr_array_add(out, w);
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
		collect(c, out);
}

/* Whether a label below `w` reads `text` from its start. */
static gboolean has_label(GtkWidget *w, const char *text)
{
	if (GTK_IS_LABEL(w) && gtk_widget_get_mapped(w) &&
	    g_str_has_prefix(gtk_label_get_text(GTK_LABEL(w)), text))
		return TRUE;
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
		if (has_label(c, text))
			return TRUE;
	return FALSE;
}

static void shoot(GtkWidget *w, const char *path)
{
	GdkPaintable *p = gtk_widget_paintable_new(w);
	GtkSnapshot *s = gtk_snapshot_new();
	GskRenderer *r = gsk_cairo_renderer_new();
	GskRenderNode *node;
	GdkTexture *tex;

	gdk_paintable_snapshot(p, s, gtk_widget_get_width(w), gtk_widget_get_height(w));
	node = gtk_snapshot_free_to_node(s);
	gsk_renderer_realize(r, NULL, NULL);
	tex = gsk_renderer_render_texture(r, node, NULL);
	gdk_texture_save_to_png(tex, path);
	g_object_unref(tex);
	gsk_render_node_unref(node);
	gsk_renderer_unrealize(r);
	g_object_unref(r);
	g_object_unref(p);
}

static void test_compare(void **state)
{
	GaDocument *a = load("tut5_ml"), *b = load("tut7_mk1");
	GaSession *session = ga_session_new();
	GtkWidget *window = gtk_window_new();
	GtkWidget *view = ga_trace_view_new(session);
	g_autoptr(GPtrArray) lanes = g_ptr_array_new();
	GaStepLanes *la, *lb;
	double from, to, bfrom, bto;
	gint64 run, step;

	(void)state;
	gtk_window_set_default_size(GTK_WINDOW(window), 1200, 800);
	gtk_window_set_child(GTK_WINDOW(window), view);
	gtk_window_present(GTK_WINDOW(window));
	ga_session_set_documents(session, a, b);
	spin(1500);
	collect(view, lanes);
	assert_int_equal(lanes->len, 2);
	la = lanes->pdata[0];
	lb = lanes->pdata[1];
	assert_true(gtk_widget_get_mapped(GTK_WIDGET(lb)));
	/* A: tutorial 5's last run (672,100 cycles is run 1; run 2 has
	 * 265,740); B: tutorial 7's last run. */
	ga_session_get_step(session, &run, &step);
	assert_int_equal(run, 2);
	assert_int_equal((gint64)ga_step_lanes_get_total(la), 265740);
	{
		const tsr_run *runs;
		size_t n;

		assert_int_equal(tsr_report_get_runs(&runs, &n, ga_document_get_report(b)), TSR_OK);
		assert_true(ga_step_lanes_get_total(lb) > 0);
		assert_int_equal((gint64)ga_step_lanes_get_total(lb),
		                 (gint64)MAX(runs[n - 1].cycles, (uint64_t)ga_step_lanes_get_total(lb)));
	}
	/* One axis, one zoom. */
	ga_step_lanes_set_visible(la, 1000, 5000);
	ga_step_lanes_get_visible(la, &from, &to);
	ga_step_lanes_get_visible(lb, &bfrom, &bto);
	assert_true(from == 1000 && to == 5000);
	assert_true(bfrom == from && bto == to);
	ga_step_lanes_set_visible(lb, 0, 1e12);
	ga_step_lanes_get_visible(la, &from, &to);
	assert_true(to >= MAX(ga_step_lanes_get_total(la), ga_step_lanes_get_total(lb)));
	/* A step of B: its details say report B; the session does not move. */
	ga_step_lanes_set_selected(lb, 1);
	spin(100);
	assert_true(has_label(view, "Step 1 of report B (tut7_mk1)"));
	ga_session_get_step(session, &run, &step);
	assert_int_equal(step, -1);
	/* A step of A writes the session and shows as report A's. */
	ga_step_lanes_set_selected(la, 3);
	spin(100);
	assert_true(has_label(view, "Step 3 of report A (tut5_ml)"));
	ga_session_get_step(session, &run, &step);
	assert_int_equal(step, 3);
	if (g_getenv("TILESCOPE_SHOT")) {
		ga_step_lanes_set_visible(la, 0, 1e12);
		spin(300);
		shoot(view, g_getenv("TILESCOPE_SHOT"));
	}
	/* The comparison ends: B hides. */
	ga_session_set_documents(session, a, NULL);
	spin(200);
	assert_false(gtk_widget_get_mapped(GTK_WIDGET(lb)));
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(session);
	ga_document_unref(a);
	ga_document_unref(b);
}

static void test_follow_session(void **state)
{
	GaDocument *a = load("tut5_ml");
	GaSession *session = ga_session_new();
	GtkWidget *window = gtk_window_new();
	GtkWidget *view = ga_trace_view_new(session);
	g_autoptr(GPtrArray) lanes = g_ptr_array_new();
	const tsr_step *steps;
	size_t n;
	GaStepLanes *la;
	double from, to;

	(void)state;
	gtk_window_set_default_size(GTK_WINDOW(window), 1200, 800);
	gtk_window_set_child(GTK_WINDOW(window), view);
	gtk_window_present(GTK_WINDOW(window));
	ga_session_set_document(session, a);
	spin(500);
	collect(view, lanes);
	la = lanes->pdata[0];
	assert_int_equal((gint64)ga_step_lanes_get_total(la), 265740); /* the last run */
	ga_session_set_step(session, 1, 500);
	spin(300);
	assert_int_equal((gint64)ga_step_lanes_get_total(la), 672100); /* run 1 */
	assert_int_equal(ga_step_lanes_get_selected(la), 500);
	assert_int_equal(tsr_report_get_steps(&steps, &n, ga_document_get_report(a), 1), TSR_OK);
	ga_step_lanes_get_visible(la, &from, &to);
	assert_true(from <= (double)steps[500].cycles_from && to >= (double)steps[500].cycles_to);
	assert_true(to - from < 672100); /* zoomed in on it */
	assert_true(has_label(view, "Step 500"));
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(session);
	ga_document_unref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_compare),
	    cmocka_unit_test(test_follow_session),
	};

	gtk_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
