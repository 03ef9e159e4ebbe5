/*
 * The Operations view on the views' base (issue 28 item 1), at widget
 * level with the real sample reports: without a report the base's empty
 * page stands in for the bar and table; with one the bar counts the
 * report's operations; comparing, the compare page (its title bound to
 * both documents) stands in for the bar, table and details, its filter
 * narrows the sections and a new pair clears it; back to one report the
 * table shows again; the view and its template's widgets go with the
 * window.
 */
#include "ga-document.h"
#include "ga-operations-view.h"
#include "ga-resources.h"
#include "ga-session.h"

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

/* `b` keeps its comparison with `a`, as the app's loader leaves it. */
static void compare(GaDocument *a, GaDocument *b)
{
	GError *error = NULL;
	tsr_comparison *cmp = ga_document_compare(a, b, &error);

	if (!cmp)
		fail_msg("comparing: %s", error->message);
	ga_document_set_comparison(b, cmp);
}

static gboolean wake_cb(gpointer data)
{
	(void)data;
	return G_SOURCE_CONTINUE;
}

/* A label below `w` reading `text`, or NULL. */
static GtkWidget *find_label(GtkWidget *w, const char *text)
{
	if (GTK_IS_LABEL(w) && g_strcmp0(gtk_label_get_text(GTK_LABEL(w)), text) == 0)
		return w;
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		GtkWidget *found = find_label(c, text);

		if (found)
			return found;
	}
	return NULL;
}

/* A search entry below `w` whose placeholder is `placeholder`, or NULL. */
static GtkWidget *find_entry(GtkWidget *w, const char *placeholder)
{
	if (GTK_IS_SEARCH_ENTRY(w)) {
		g_autofree char *p = NULL;

		g_object_get(w, "placeholder-text", &p, NULL);
		if (g_strcmp0(p, placeholder) == 0)
			return w;
	}
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		GtkWidget *found = find_entry(c, placeholder);

		if (found)
			return found;
	}
	return NULL;
}

typedef struct shown {
	GtkWidget *view;
	const char *text;
	gboolean want;   /* shown (mapped), or not there / not shown */
} shown;

static gboolean label_shown(gpointer data)
{
	const shown *s = data;
	GtkWidget *l = find_label(s->view, s->text);

	return (l && gtk_widget_get_mapped(l)) == s->want;
}

/* Runs the main loop until a label reading `text` is shown (or, `want`
 * FALSE, is not), failing after a minute (never a fixed wait). */
static void wait_label(GtkWidget *view, const char *text, gboolean want)
{
	shown s = {view, text, want};
	gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
	guint wake = g_timeout_add(20, wake_cb, NULL);

	while (!label_shown(&s)) {
		if (g_get_monotonic_time() > end)
			fail_msg("waited a minute for \"%s\" %s", text, want ? "shown" : "gone");
		g_main_context_iteration(NULL, TRUE);
	}
	g_source_remove(wake);
}

/* Whether the entry with `placeholder` is shown. */
static gboolean entry_shown(GtkWidget *view, const char *placeholder)
{
	GtkWidget *e = find_entry(view, placeholder);

	return e && gtk_widget_get_mapped(e);
}

#define BAR_FILTER "Filter by name or path (test/fc)"
#define COMPARE_FILTER "Filter operations"

static void test_view(void **state)
{
	GaDocument *a = load("tut4_profiling"), *b = load("tut5_ml");
	GaSession *session = ga_session_new();
	GtkWidget *window = gtk_window_new();
	GtkWidget *view = ga_operations_view_new(session);
	g_autofree char *count = NULL, *title = NULL, *retitle = NULL;
	size_t n = 0;

	(void)state;
	assert_true(g_resources_get_info("/org/tilescope/GraphAnalyser/ga-operations-view.ui", 0,
	                                 NULL, NULL, NULL));
	gtk_window_set_default_size(GTK_WINDOW(window), 1200, 800);
	gtk_window_set_child(GTK_WINDOW(window), view);
	gtk_window_present(GTK_WINDOW(window));

	/* No report: the empty page, not an empty table under its bar. */
	wait_label(view, "No report open", TRUE);
	assert_false(entry_shown(view, BAR_FILTER));

	/* One report: the bar counts its operations. */
	ga_session_set_document(session, b);
	assert_non_null(ga_document_get_operations(b, -1, &n));
	assert_true(n > 0);
	count = g_strdup_printf("%zu operations", n);
	wait_label(view, count, TRUE);
	assert_true(entry_shown(view, BAR_FILTER));
	assert_false(entry_shown(view, COMPARE_FILTER));

	/* Comparing: the compare page instead of bar, table and details. */
	compare(a, b);
	ga_session_set_documents(session, a, b);
	title = g_strdup_printf("Operations: %s vs %s", ga_document_get_title(a),
	                        ga_document_get_title(b));
	wait_label(view, title, TRUE);
	wait_label(view, count, FALSE);
	assert_false(entry_shown(view, BAR_FILTER));
	assert_true(entry_shown(view, COMPARE_FILTER));
	wait_label(view, "Only in A (2)", TRUE);
	gtk_editable_set_text(GTK_EDITABLE(find_entry(view, COMPARE_FILTER)), "m4");
	wait_label(view, "Only in A (1)", TRUE);
	wait_label(view, "Only in B (28)", FALSE);

	/* Another pair: the title follows, the filter is cleared. */
	compare(b, a);
	ga_session_set_documents(session, b, a);
	retitle = g_strdup_printf("Operations: %s vs %s", ga_document_get_title(b),
	                          ga_document_get_title(a));
	wait_label(view, retitle, TRUE);
	assert_string_equal(gtk_editable_get_text(GTK_EDITABLE(find_entry(view, COMPARE_FILTER))),
	                    "");
	wait_label(view, "Only in B (2)", TRUE);

	/* One report again: the table and its bar. */
	ga_session_set_document(session, b);
	wait_label(view, count, TRUE);
	wait_label(view, retitle, FALSE);
	assert_true(entry_shown(view, BAR_FILTER));

	/* The view and its template's widgets go with the window. */
	{
		GtkWidget *entry = find_entry(view, BAR_FILTER);

		g_object_add_weak_pointer(G_OBJECT(view), (gpointer *)&view);
		g_object_add_weak_pointer(G_OBJECT(entry), (gpointer *)&entry);
		gtk_window_destroy(GTK_WINDOW(window));
		assert_null(view);
		assert_null(entry);
	}
	g_object_unref(session);
	ga_document_unref(a);
	ga_document_unref(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view),
	};

	gtk_init();
	ga_register_resource();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
