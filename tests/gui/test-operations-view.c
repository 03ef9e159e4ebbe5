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
#include "gtk-test-util.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

/* `b` keeps its comparison with `a`, as the app's loader leaves it. */
static void compare(GaDocument *a, GaDocument *b)
{
	GError *error = NULL;
	tsr_comparison *cmp = ga_document_compare(a, b, &error);

	if (!cmp)
		fail_msg("comparing: %s", error->message);
	ga_document_set_comparison(b, cmp);
}

/* A search entry below `w` whose placeholder is `placeholder`, or NULL. */
static gboolean is_entry(GtkWidget *w, gconstpointer placeholder)
{
	g_autofree char *p = NULL;

	if (!GTK_IS_SEARCH_ENTRY(w))
		return FALSE;
	g_object_get(w, "placeholder-text", &p, NULL);
	return g_strcmp0(p, placeholder) == 0;
}

static GtkWidget *find_entry(GtkWidget *w, const char *placeholder)
{
	return gtu_find_if(w, is_entry, placeholder);
}

typedef struct shown {
	GtkWidget *view;
	const char *text;
	gboolean want;   /* shown (mapped), or not there / not shown */
} shown;

static gboolean label_shown(gpointer data)
{
	const shown *s = data;
	GtkWidget *l = gtu_find_label(s->view, s->text);

	return (l && gtk_widget_get_mapped(l)) == s->want;
}

/* Runs the main loop until a label reading `text` is shown (or, `want`
 * FALSE, is not), failing after a minute (never a fixed wait). */
static void wait_label(GtkWidget *view, const char *text, gboolean want)
{
	shown s = {view, text, want};

	if (!gtu_wait(label_shown, &s))
		fail_msg("waited a minute for \"%s\" %s", text, want ? "shown" : "gone");
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
	GaDocument *a = gtu_load("tut4_profiling"), *b = gtu_load("tut5_ml");
	GaSession *session = ga_session_new();
	GtkWidget *view = ga_operations_view_new(session), *window;
	g_autofree char *count = NULL, *title = NULL, *retitle = NULL;
	size_t n = 0;

	(void)state;
	assert_true(g_resources_get_info("/org/tilescope/GraphAnalyser/ga-operations-view.ui", 0,
	                                 NULL, NULL, NULL));
	window = gtu_window(view, 1200, 800);

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
