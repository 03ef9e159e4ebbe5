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
 * with two reports of two IPUs each (written here by the multi-IPU
 * example, given as the first argument; without it this part is not
 * run), that report B's tile index arrives as A's does, so that in each
 * mode both lanes finish: per-IPU lanes in Flat (A's run once cancelled
 * B's index, and B kept its three lanes by kind), the call stacks in
 * Flame and the tiles in BSP (B said "following the call stacks" and
 * "reading the tiles" for ever);
 *
 * and, with one report, that the view follows the session: a step set
 * there (as the Liveness view or the Program Tree would) picks its run,
 * selects it and scrolls it into view; and that without a report the
 * view is its base's (GaView's) empty page.
 *
 * With TILESCOPE_SHOT=FILE.png the view is also rendered to that file.
 */
#include "ga-document.h"
#include "ga-resources.h"
#include "ga-session.h"
#include "ga-step-lanes.h"
#include "ga-trace-view.h"
#include "gtk-test-util.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glib/gstdio.h>
#include <string.h>

/* The multi-IPU example (argv[1]), or NULL. */
static const char *pipeline;

/* The length in cycles of run `run` of `doc`, as the file has it. */
static gint64 run_cycles(GaDocument *doc, size_t run)
{
	const tsr_run *runs;
	size_t n;

	assert_int_equal(tsr_report_get_runs(&runs, &n, ga_document_get_report(doc)), TSR_OK);
	assert_true(run < n);
	return (gint64)runs[run].cycles;
}

/* Set by drawn_cb: a frame of the widget began (its paint follows in the
 * same main loop iteration). */
static gboolean frame_seen;

static gboolean drawn_cb(GtkWidget *w, GdkFrameClock *clock, gpointer data)
{
	(void)w;
	(void)clock;
	(void)data;
	frame_seen = TRUE;
	return G_SOURCE_REMOVE;
}

static gboolean frame_was_seen(gpointer data)
{
	(void)data;
	return frame_seen;
}

/* Waits until `w` (mapped) has been drawn once more: what the lanes work
 * out from their size (zooming to a step, for one) follows. */
static void spin_until_drawn(GtkWidget *w)
{
	frame_seen = FALSE;
	gtk_widget_add_tick_callback(w, drawn_cb, NULL, NULL);
	gtk_widget_queue_draw(w);
	gtu_spin_until(frame_was_seen, NULL, "a frame");
}

/* The GaStepLanes below `w`, in order (A then B). */
static void collect(GtkWidget *w, GPtrArray *out)
{
	if (GA_IS_STEP_LANES(w))
		g_ptr_array_add(out, w);
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
		collect(c, out);
}

/* Lanes `n` - 1 of the view (A's: 1, B's: 2) are there and mapped or,
 * with `n` 0, B's are not mapped (B hidden). */
typedef struct lanes_state {
	GtkWidget *view;
	guint n;
} lanes_state;

static gboolean lanes_shown(gpointer data)
{
	lanes_state *st = data;
	g_autoptr(GPtrArray) lanes = g_ptr_array_new();

	collect(st->view, lanes);
	if (st->n == 0)
		return lanes->len < 2 || !gtk_widget_get_mapped(lanes->pdata[1]);
	return lanes->len >= st->n && gtk_widget_get_mapped(lanes->pdata[st->n - 1]);
}

static void wait_lanes(GtkWidget *view, guint n, const char *what)
{
	lanes_state st = {view, n};

	gtu_spin_until(lanes_shown, &st, what);
}

/* Whether a label below `w` reads `text` from its start. */
static gboolean is_mapped_label_from(GtkWidget *w, gconstpointer text)
{
	return GTK_IS_LABEL(w) && gtk_widget_get_mapped(w) &&
	       g_str_has_prefix(gtk_label_get_text(GTK_LABEL(w)), text);
}

static gboolean has_label(GtkWidget *w, const char *text)
{
	return gtu_find_if(w, is_mapped_label_from, text) != NULL;
}

/* A mapped label below `view` reads `text` from its start. */
typedef struct label_state {
	GtkWidget *view;
	const char *text;
} label_state;

static gboolean label_shown(gpointer data)
{
	label_state *st = data;

	return has_label(st->view, st->text);
}

static void spin_until_label(GtkWidget *view, const char *text)
{
	label_state st = {view, text};

	gtu_spin_until(label_shown, &st, text);
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
	GaDocument *a = gtu_load("tut5_ml"), *b = gtu_load("tut7_mk1");
	GaSession *session = ga_session_new();
	GtkWidget *view = ga_trace_view_new(session), *window;
	g_autoptr(GPtrArray) lanes = g_ptr_array_new();
	GaStepLanes *la, *lb;
	double from, to, bfrom, bto;
	gint64 run, step;

	(void)state;
	window = gtu_window(view, 1200, 800);
	ga_session_set_documents(session, a, b);
	wait_lanes(view, 2, "report B's lanes");
	collect(view, lanes);
	spin_until_drawn(lanes->pdata[1]);
	assert_int_equal(lanes->len, 2);
	la = lanes->pdata[0];
	lb = lanes->pdata[1];
	assert_true(gtk_widget_get_mapped(GTK_WIDGET(lb)));
	/* A: tutorial 5's last run (run 2, the test set); B: tutorial 7's
	 * last run. */
	ga_session_get_step(session, &run, &step);
	assert_int_equal(run, 2);
	assert_int_equal((gint64)ga_step_lanes_get_total(la), run_cycles(a, 2));
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
	spin_until_label(view, "Step 1 of report B (tut7_mk1)");
	ga_session_get_step(session, &run, &step);
	assert_int_equal(step, -1);
	/* A step of A writes the session and shows as report A's. */
	ga_step_lanes_set_selected(la, 3);
	spin_until_label(view, "Step 3 of report A (tut5_ml)");
	ga_session_get_step(session, &run, &step);
	assert_int_equal(step, 3);
	if (g_getenv("TILESCOPE_SHOT")) {
		ga_step_lanes_set_visible(la, 0, 1e12);
		while (ga_step_lanes_is_busy(la) || ga_step_lanes_is_busy(lb))
			g_main_context_iteration(NULL, TRUE);
		shoot(view, g_getenv("TILESCOPE_SHOT"));
	}
	/* The comparison ends: B hides. */
	ga_session_set_documents(session, a, NULL);
	wait_lanes(view, 0, "report B's lanes to hide");
	assert_false(gtk_widget_get_mapped(GTK_WIDGET(lb)));
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(session);
	ga_document_unref(a);
	ga_document_unref(b);
}

/* Runs the multi-IPU example for `steps` steps with autoReport into
 * `dir`, and loads the report it wrote. */
static GaDocument *write_report(const char *dir, const char *steps)
{
	g_autofree char *options =
	    g_strdup_printf("{\"autoReport.all\": \"true\", \"autoReport.directory\": \"%s\"}", dir);
	g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "POPLAR_ENGINE_OPTIONS", options, TRUE);
	const char *argv[] = {pipeline, "--steps", steps, "--tiles-per-ipu", "16", NULL};
	g_autofree char *path = g_build_filename(dir, "profile.pop", NULL);
	GError *error = NULL;
	int status = 0;

	if (!g_spawn_sync(NULL, (char **)argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
	                  NULL, &status, &error))
		fail_msg("%s: %s", pipeline, error->message);
	if (!g_spawn_check_wait_status(status, &error))
		fail_msg("%s: %s", pipeline, error->message);
	return gtu_load_path(path);
}

/* The mode button of the view whose label reads `name` ("Flat", ...). */
static gboolean is_mode(GtkWidget *w, gconstpointer name)
{
	return GTK_IS_TOGGLE_BUTTON(w) && has_label(w, name);
}

static GtkWidget *find_mode(GtkWidget *w, const char *name)
{
	return gtu_find_if(w, is_mode, name);
}

/* Both lanes (A's and B's, or A's alone with b NULL) say `text` in their
 * description and are not making a BSP picture. */
typedef struct described_state {
	GaStepLanes *a, *b;
	const char *text;
} described_state;

static gboolean lanes_say(GaStepLanes *lanes, const char *text)
{
	const char *d = ga_step_lanes_get_description(lanes);

	return d && strstr(d, text) && !ga_step_lanes_is_busy(lanes);
}

static gboolean described(gpointer data)
{
	described_state *st = data;

	return lanes_say(st->a, st->text) && (!st->b || lanes_say(st->b, st->text));
}

/* Clicks mode `name` and waits until the lanes (b may be NULL) say
 * `text`; a failure names what each said instead. */
static void check_mode(GtkWidget *view, const char *name, GaStepLanes *a, GaStepLanes *b,
                       const char *text)
{
	GtkWidget *button = find_mode(view, name);
	described_state st = {a, b, text};

	assert_non_null(button);
	gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(button), TRUE);
	/* gtu_spin_until, with what the lanes said when it fails. */
	if (!gtu_wait(described, &st))
		fail_msg("%s: waited a minute for \"%s\"; A says \"%s\"%s%s%s", name, text,
		         ga_step_lanes_get_description(a), b ? ", B says \"" : "",
		         b ? ga_step_lanes_get_description(b) : "", b ? "\"" : "");
}

/* Two reports of two IPUs: with one, then compared, each lane of A and
 * B gets its run's tile index in every mode. */
static void test_compare_multi_ipu(void **state)
{
	g_autofree char *tmp = g_dir_make_tmp("trace-compare-XXXXXX", NULL);
	g_autofree char *dir_a = g_build_filename(tmp, "a", NULL);
	g_autofree char *dir_b = g_build_filename(tmp, "b", NULL);
	GaDocument *a, *b;
	GaSession *session = ga_session_new();
	GtkWidget *view = ga_trace_view_new(session), *window;
	g_autoptr(GPtrArray) lanes = g_ptr_array_new();
	GaStepLanes *la, *lb;

	(void)state;
	assert_non_null(tmp);
	a = write_report(dir_a, "1");
	b = write_report(dir_b, "2");
	assert_int_equal(tsr_report_get_target(ga_document_get_report(a))->num_ipus, 2);
	assert_int_equal(tsr_report_get_target(ga_document_get_report(b))->num_ipus, 2);
	window = gtu_window(view, 1200, 800);
	/* One report: its index arrives. */
	ga_session_set_document(session, a);
	wait_lanes(view, 1, "the lanes");
	collect(view, lanes);
	la = lanes->pdata[0];
	check_mode(view, "Flat", la, NULL, " Lanes per IPU (2 IPUs)");
	/* Compared: B's too, in every mode, and A's again. */
	ga_session_set_documents(session, a, b);
	wait_lanes(view, 2, "report B's lanes");
	g_ptr_array_set_size(lanes, 0);
	collect(view, lanes);
	assert_int_equal(lanes->len, 2);
	assert_ptr_equal(lanes->pdata[0], la);
	lb = lanes->pdata[1];
	check_mode(view, "Flat", la, lb, " Lanes per IPU (2 IPUs)");
	check_mode(view, "Flame", la, lb, " Flame: depth ");
	check_mode(view, "BSP", la, lb, " BSP: 32 tiles, ");
	/* B's run is B's: the two reports' runs differ in length. */
	assert_true(ga_step_lanes_get_total(la) != ga_step_lanes_get_total(lb));
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(session);
	ga_document_unref(a);
	ga_document_unref(b);
	for (const char *const *d = (const char *const[]){dir_a, dir_b, NULL}; *d; d++) {
		g_autofree char *pop = g_build_filename(*d, "profile.pop", NULL);
		g_autofree char *cbor = g_build_filename(*d, "debug.cbor", NULL);

		g_remove(pop);
		g_remove(cbor);
		g_rmdir(*d);
	}
	g_rmdir(tmp);
}

/* The lanes show run 1 with step 500 selected and in view, zoomed in. */
typedef struct follow_state {
	GaStepLanes *lanes;
	GaDocument *doc;
} follow_state;

static gboolean followed(gpointer data)
{
	follow_state *st = data;
	const tsr_step *steps;
	size_t n;
	double from, to;

	if ((gint64)ga_step_lanes_get_total(st->lanes) != run_cycles(st->doc, 1) ||
	    ga_step_lanes_get_selected(st->lanes) != 500 ||
	    tsr_report_get_steps(&steps, &n, ga_document_get_report(st->doc), 1) != TSR_OK || n <= 500)
		return FALSE;
	ga_step_lanes_get_visible(st->lanes, &from, &to);
	return from <= (double)steps[500].cycles_from && to >= (double)steps[500].cycles_to &&
	       to - from < (double)run_cycles(st->doc, 1);
}

static void test_follow_session(void **state)
{
	GaDocument *a = gtu_load("tut5_ml");
	GaSession *session = ga_session_new();
	GtkWidget *view = ga_trace_view_new(session), *window;
	g_autoptr(GPtrArray) lanes = g_ptr_array_new();
	const tsr_step *steps;
	size_t n;
	GaStepLanes *la;
	double from, to;

	(void)state;
	window = gtu_window(view, 1200, 800);
	ga_session_set_document(session, a);
	wait_lanes(view, 1, "the lanes");
	collect(view, lanes);
	la = lanes->pdata[0];
	/* Zooming to a step needs the lanes' width: drawn once. */
	spin_until_drawn(GTK_WIDGET(la));
	assert_int_equal((gint64)ga_step_lanes_get_total(la), run_cycles(a, 2)); /* the last run */
	ga_session_set_step(session, 1, 500);
	{
		follow_state st = {la, a};

		gtu_spin_until(followed, &st, "run 1's step 500 shown");
	}
	spin_until_label(view, "Step 500");
	assert_int_equal((gint64)ga_step_lanes_get_total(la), run_cycles(a, 1)); /* run 1 */
	assert_int_equal(ga_step_lanes_get_selected(la), 500);
	assert_int_equal(tsr_report_get_steps(&steps, &n, ga_document_get_report(a), 1), TSR_OK);
	ga_step_lanes_get_visible(la, &from, &to);
	assert_true(from <= (double)steps[500].cycles_from && to >= (double)steps[500].cycles_to);
	assert_true(to - from < (double)run_cycles(a, 1)); /* zoomed in on it */
	assert_true(has_label(view, "Step 500"));
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(session);
	ga_document_unref(a);
}

/* With no report the view is GaView's empty page, not lanes with nothing
 * in them; a report opened shows the lanes instead. */
static void test_empty_page(void **state)
{
	GaSession *session = ga_session_new();
	GtkWidget *view = ga_trace_view_new(session), *window;
	GaDocument *a;

	(void)state;
	window = gtu_window(view, 1200, 800);
	spin_until_label(view, "No report open");
	a = gtu_load("tut5_ml");
	ga_session_set_document(session, a);
	wait_lanes(view, 1, "the lanes");
	assert_false(has_label(view, "No report open"));
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(session);
	ga_document_unref(a);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_compare),
	    cmocka_unit_test(test_follow_session),
	    cmocka_unit_test(test_empty_page),
	    /* Last: only with the multi-IPU example (built with the examples). */
	    cmocka_unit_test(test_compare_multi_ipu),
	};

	pipeline = argc > 1 ? argv[1] : NULL;
	gtk_init();
	/* The views' templates (the app registers them at startup). */
	ga_register_resource();
	return _cmocka_run_group_tests("test-trace-compare", tests,
	                               G_N_ELEMENTS(tests) - (pipeline ? 0 : 1), NULL, NULL);
}
