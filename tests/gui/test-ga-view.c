/*
 * The views' base, GaView (issue 28 item 1): a subclass declared with a
 * template (parent="GaView") gets its <child> as content and its
 * <child type="details"> as the details pane; the base follows the
 * session's document and report B, hands each change to
 * document_changed with the pair and the "compare" flag already in
 * place, shows the empty page without a document and the content with
 * one, and the loading and empty pages on demand. The Summary and
 * Insights views, on the base, follow the session so.
 */
#include "ga-document.h"
#include "ga-history-view.h"
#include "ga-insights-view.h"
#include "ga-format.h"
#include "ga-liveness-view.h"
#include "ga-memory-selection.h"
#include "ga-program-view.h"
#include "ga-resources.h"
#include "ga-session.h"
#include "ga-summary-view.h"
#include "ga-var-row.h"
#include "ga-view.h"
#include "gtk-test-util.h"

#include <tilescope/tsc-chart.h>
#include <tilescope/tsd-table.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* A view of the test's own: counts document_changed and keeps what the
 * base had in place at each call. */
#define TEST_TYPE_VIEW (test_view_get_type())
G_DECLARE_FINAL_TYPE(TestView, test_view, TEST, VIEW, GaView)

struct _TestView {
	GaView parent_instance;
	GtkWidget *body, *side;        /* from the template */
	int changes;
	GaDocument *seen_doc, *seen_compare;
	gboolean seen_flag;
	char *seen_state;
};

G_DEFINE_FINAL_TYPE(TestView, test_view, GA_TYPE_VIEW)

static const char test_view_ui[] =
    "<interface>"
    "  <template class=\"TestView\" parent=\"GaView\">"
    "    <child><object class=\"GtkLabel\" id=\"body\"><property name=\"label\">body"
    "</property></object></child>"
    "    <child type=\"details\"><object class=\"GtkLabel\" id=\"side\">"
    "<property name=\"label\">side</property></object></child>"
    "  </template>"
    "</interface>";

static void test_view_document_changed(GaView *view)
{
	TestView *self = TEST_VIEW(view);

	self->changes++;
	self->seen_doc = ga_view_get_document(view);
	self->seen_compare = ga_view_get_compare_document(view);
	self->seen_flag = ga_view_get_compare(view);
	g_free(self->seen_state);
	self->seen_state = g_strdup(ga_view_get_state(view));
}

static void test_view_finalize(GObject *object)
{
	g_free(TEST_VIEW(object)->seen_state);
	G_OBJECT_CLASS(test_view_parent_class)->finalize(object);
}

static void test_view_dispose(GObject *object)
{
	gtk_widget_dispose_template(GTK_WIDGET(object), TEST_TYPE_VIEW);
	G_OBJECT_CLASS(test_view_parent_class)->dispose(object);
}

static void test_view_class_init(TestViewClass *klass)
{
	g_autoptr(GBytes) ui = g_bytes_new_static(test_view_ui, strlen(test_view_ui));

	G_OBJECT_CLASS(klass)->finalize = test_view_finalize;
	G_OBJECT_CLASS(klass)->dispose = test_view_dispose;
	GA_VIEW_CLASS(klass)->document_changed = test_view_document_changed;
	gtk_widget_class_set_template(GTK_WIDGET_CLASS(klass), ui);
	gtk_widget_class_bind_template_child(GTK_WIDGET_CLASS(klass), TestView, body);
	gtk_widget_class_bind_template_child(GTK_WIDGET_CLASS(klass), TestView, side);
}

static void test_view_init(TestView *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
}

static void count_notify(GObject *object, GParamSpec *pspec, gpointer data)
{
	(void)object;
	(void)pspec;
	(*(int *)data)++;
}

/* Whether every label below `w` that is not hidden has text: GTK 4.8
 * names an empty label "GtkLabel" for a screen reader. */
static gboolean labels_have_text(GtkWidget *w)
{
	if (GTK_IS_LABEL(w) && gtk_widget_get_visible(w) && !*gtk_label_get_text(GTK_LABEL(w)))
		return FALSE;
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
		if (!labels_have_text(c))
			return FALSE;
	return TRUE;
}

static void test_base(void **state)
{
	GaDocument *a = gtu_load("tut5_ml"), *b = gtu_load("tut7_mk1");
	GaSession *session = ga_session_new();
	TestView *view;
	int compare_notes = 0, document_notes = 0;

	(void)state;
	view = g_object_ref_sink(g_object_new(TEST_TYPE_VIEW, "session", session, NULL));
	g_signal_connect(view, "notify::compare", G_CALLBACK(count_notify), &compare_notes);
	g_signal_connect(view, "notify::document", G_CALLBACK(count_notify), &document_notes);
	assert_ptr_equal(ga_view_get_session(GA_VIEW(view)), session);

	/* The template's children: the content and the details pane. */
	assert_non_null(view->body);
	assert_ptr_equal(ga_view_get_content(GA_VIEW(view)), view->body);
	assert_ptr_equal(ga_view_get_details(GA_VIEW(view)), view->side);
	assert_ptr_equal(gtk_paned_get_start_child(ga_view_get_paned(GA_VIEW(view))), view->body);
	assert_ptr_equal(gtk_paned_get_end_child(ga_view_get_paned(GA_VIEW(view))), view->side);

	/* Made without a document: told once, the empty page shown. */
	assert_int_equal(view->changes, 1);
	assert_null(view->seen_doc);
	assert_string_equal(view->seen_state, "empty");
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "empty");

	ga_session_set_document(session, a);
	assert_int_equal(view->changes, 2);
	assert_ptr_equal(view->seen_doc, a);
	assert_null(view->seen_compare);
	assert_false(view->seen_flag);
	assert_string_equal(view->seen_state, "content");
	assert_int_equal(document_notes, 1);
	assert_int_equal(compare_notes, 0);

	/* Comparing: report B and the flag are there when the view is told. */
	ga_session_set_documents(session, a, b);
	assert_int_equal(view->changes, 3);
	assert_ptr_equal(view->seen_doc, a);
	assert_ptr_equal(view->seen_compare, b);
	assert_true(view->seen_flag);
	assert_int_equal(compare_notes, 1);
	{
		gboolean flag = FALSE;
		GaDocument *got = NULL;

		g_object_get(view, "compare", &flag, "compare-document", &got, NULL);
		assert_true(flag);
		assert_ptr_equal(got, b);
		ga_document_unref(got);
	}
	ga_session_set_documents(session, a, NULL);
	assert_int_equal(view->changes, 4);
	assert_false(view->seen_flag);
	assert_null(ga_view_get_compare_document(GA_VIEW(view)));
	assert_int_equal(compare_notes, 2);

	/* The states on demand; a group, as the GtkBox views were, and no
	 * label without text, whatever the view says (a screen reader would
	 * hear type names). */
	assert_int_equal(gtk_accessible_get_accessible_role(GTK_ACCESSIBLE(view)),
	                 GTK_ACCESSIBLE_ROLE_GROUP);
	assert_true(labels_have_text(GTK_WIDGET(view)));
	ga_view_show_loading(GA_VIEW(view), "Summing");
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "loading");
	ga_view_show_loading(GA_VIEW(view), NULL);
	assert_true(labels_have_text(GTK_WIDGET(view)));
	ga_view_show_empty(GA_VIEW(view), NULL);
	assert_true(labels_have_text(GTK_WIDGET(view)));
	ga_view_show_empty(GA_VIEW(view), "Nothing here");
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "empty");
	ga_view_show_content(GA_VIEW(view));
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "content");

	/* The document closed: the empty page again. */
	ga_session_set_document(session, NULL);
	assert_int_equal(view->changes, 5);
	assert_null(view->seen_doc);
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "empty");

	/* The view lets go of the session's signals when it goes. */
	g_object_add_weak_pointer(G_OBJECT(view), (gpointer *)&view);
	g_object_unref(view);
	assert_null(view);
	ga_session_set_document(session, a);

	g_object_unref(session);
	ga_document_unref(a);
	ga_document_unref(b);
}

/* The app's views on the base follow the session: content with a
 * document, empty without. */
static void check_app_view(GtkWidget *(*make)(GaSession *))
{
	GaDocument *a = gtu_load("tut5_ml"), *b = gtu_load("tut7_mk1");
	GaSession *session = ga_session_new();
	GtkWidget *view = g_object_ref_sink(make(session));

	assert_true(GA_IS_VIEW(view));
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "empty");
	ga_session_set_document(session, a);
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "content");
	assert_ptr_equal(ga_view_get_document(GA_VIEW(view)), a);
	ga_session_set_documents(session, a, b);
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "content");
	assert_true(ga_view_get_compare(GA_VIEW(view)));
	ga_session_set_document(session, NULL);
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "empty");
	g_object_unref(view);
	g_object_unref(session);
	ga_document_unref(a);
	ga_document_unref(b);
}

/* Runs the main loop until a label below `w` reads `text`, failing after
 * a minute (never a fixed wait). */
typedef struct label_wait {
	GtkWidget *w;
	const char *text;
} label_wait;

static gboolean label_there(gpointer data)
{
	const label_wait *l = data;

	return gtu_find_label(l->w, l->text) != NULL;
}

static void wait_for_label(GtkWidget *w, const char *text)
{
	label_wait l = {w, text};

	if (!gtu_wait(label_there, &l))
		fail_msg("waited a minute for \"%s\"", text);
}

/* The Summary's template: the title bound to the documents ("A vs B"
 * comparing), the compare header shown only comparing, the filter
 * refilling the sections and cleared for a new pair. */
static void test_summary(void **state)
{
	GaDocument *a = gtu_load("tut5_ml"), *b = gtu_load("tut7_mk1");
	GaSession *session = ga_session_new();
	GtkWidget *view, *title, *filter, *window;
	g_autofree char *versus = NULL;

	(void)state;
	check_app_view(ga_summary_view_new);
	assert_true(g_resources_get_info("/org/tilescope/GraphAnalyser/ga-summary-view.ui", 0, NULL,
	                                 NULL, NULL));
	/* In a window, as the app shows it: the filter's delayed
	 * "search-changed" comes only to a realized entry. */
	view = g_object_ref(ga_summary_view_new(session));
	window = gtu_window(view, 0, 0);
	title = gtu_find(view, GTK_TYPE_LABEL, "title-2");
	filter = gtu_find(view, GTK_TYPE_SEARCH_ENTRY, NULL);
	assert_non_null(title);
	assert_non_null(filter);
	ga_session_set_document(session, a);
	assert_string_equal(gtk_label_get_text(GTK_LABEL(title)), ga_document_get_title(a));
	assert_false(gtk_widget_is_visible(filter));
	assert_non_null(gtu_find_label(view, "Memory"));

	ga_document_set_comparison(b, ga_document_compare(a, b, NULL));
	ga_document_set_comparison(a, ga_document_compare(b, a, NULL));
	ga_session_set_documents(session, a, b);
	assert_null(gtu_find_label(view, "The reports were not compared."));
	versus = g_strdup_printf("%s vs %s", ga_document_get_title(a), ga_document_get_title(b));
	assert_string_equal(gtk_label_get_text(GTK_LABEL(title)), versus);
	assert_true(gtk_widget_get_visible(gtk_widget_get_parent(gtk_widget_get_parent(filter))));
	assert_null(gtu_find_label(view, "No metric matches the filter."));
	gtk_editable_set_text(GTK_EDITABLE(filter), "no-such-metric-anywhere");
	wait_for_label(view, "No metric matches the filter.");
	/* Another pair: unfiltered again. */
	ga_session_set_documents(session, b, a);
	assert_string_equal(gtk_editable_get_text(GTK_EDITABLE(filter)), "");
	assert_null(gtu_find_label(view, "No metric matches the filter."));

	ga_session_set_document(session, a);
	assert_string_equal(gtk_label_get_text(GTK_LABEL(title)), ga_document_get_title(a));
	assert_false(gtk_widget_get_visible(gtk_widget_get_parent(gtk_widget_get_parent(filter))));
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(view);
	g_object_unref(session);
	ga_document_unref(a);
	ga_document_unref(b);
}

/* The Insights view on its template: the title bound to the document. */
static void test_insights(void **state)
{
	GaDocument *a = gtu_load("tut7_mk1");
	GaSession *session = ga_session_new();
	GtkWidget *view, *title;

	(void)state;
	check_app_view(ga_insights_view_new);
	assert_true(g_resources_get_info("/org/tilescope/GraphAnalyser/ga-insights-view.ui", 0,
	                                 NULL, NULL, NULL));
	view = g_object_ref_sink(ga_insights_view_new(session));
	title = gtu_find(view, GTK_TYPE_LABEL, "title-2");
	assert_non_null(title);
	ga_session_set_document(session, a);
	assert_string_equal(gtk_label_get_text(GTK_LABEL(title)), ga_document_get_title(a));
	assert_non_null(gtu_find_label(view, "Does it fit?"));
	/* An IPU that fits: its level bar in the theme's own colour. */
	assert_non_null(gtu_find(view, GTK_TYPE_LEVEL_BAR, NULL));
	assert_null(gtu_find(view, GTK_TYPE_LEVEL_BAR, "out-of-memory"));
	g_object_unref(view);
	g_object_unref(session);
	ga_document_unref(a);
}

/* An IPU with tiles out of memory: its level bar (clamped at the IPU's
 * memory, so full) is styled out-of-memory, in the error colour of the
 * figures beside it, not a plain full bar. */
static void test_insights_out_of_memory(void **state)
{
	GaDocument *a = gtu_load_path(SAMPLE_REPORTS "/../tests/fuzz/corpus/report/oom.pop");
	GaSession *session = ga_session_new();
	GtkWidget *view = g_object_ref_sink(ga_insights_view_new(session));

	(void)state;
	ga_session_set_document(session, a);
	assert_non_null(gtu_find(view, GTK_TYPE_LEVEL_BAR, "out-of-memory"));
	g_object_unref(view);
	g_object_unref(session);
	ga_document_unref(a);
}

/* Runs the main loop until `w` is on screen (a search entry's delayed
 * "search-changed" comes only to a realized one), failing after a
 * minute. */
static gboolean is_mapped(gpointer w)
{
	return gtk_widget_get_mapped(w);
}

static void wait_for_mapped(GtkWidget *w)
{
	if (!gtu_wait(is_mapped, w))
		fail_msg("waited a minute for a %s on screen", G_OBJECT_TYPE_NAME(w));
}

/* Runs the main loop until column view `table` shows `n` rows (its
 * search is delayed), failing after a minute. */
typedef struct items_wait {
	GListModel *rows;
	guint n;
} items_wait;

static gboolean has_items(gpointer data)
{
	const items_wait *i = data;

	return g_list_model_get_n_items(i->rows) == i->n;
}

static void wait_for_items(GtkWidget *table, guint n)
{
	items_wait i = {G_LIST_MODEL(gtk_column_view_get_model(GTK_COLUMN_VIEW(table))), n};

	if (!gtu_wait(has_items, &i))
		fail_msg("waited a minute for %u rows (%u)", n, g_list_model_get_n_items(i.rows));
}

/* Runs the main loop until `label` reads `prefix`..., failing after a
 * minute. */
typedef struct prefix_wait {
	GtkWidget *label;
	const char *prefix;
} prefix_wait;

static gboolean has_prefix(gpointer data)
{
	const prefix_wait *p = data;

	return g_str_has_prefix(gtk_label_get_text(GTK_LABEL(p->label)), p->prefix);
}

static void wait_for_text_prefix(GtkWidget *label, const char *prefix)
{
	prefix_wait p = {label, prefix};

	if (!gtu_wait(has_prefix, &p))
		fail_msg("waited a minute for \"%s…\" (\"%s\")", prefix,
		         gtk_label_get_text(GTK_LABEL(label)));
}

/* A visible label below `w` whose text holds `text`, or NULL. */
static gboolean is_visible_label_with(GtkWidget *w, gconstpointer text)
{
	return GTK_IS_LABEL(w) && gtk_widget_is_visible(w) &&
	       strstr(gtk_label_get_text(GTK_LABEL(w)), text);
}

static GtkWidget *visible_label_with(GtkWidget *w, const char *text)
{
	return gtu_find_if(w, is_visible_label_with, text);
}

/* The Liveness view on its template: the tables are the base's details
 * pane, below the chart; report B's caption shows only comparing, the
 * variable's only when the session has one; the search entry filters the
 * live variables through its binding. */
static void test_liveness(void **state)
{
	GaDocument *a = gtu_load("tut5_ml"), *b = gtu_load("tut7_mk1");
	GaSession *session = ga_session_new();
	GtkWidget *view, *window, *chart, *table, *search, *always;
	GListModel *always_rows;
	const tsr_variable *vars;
	size_t n_vars, var = 0;
	guint n_live, n_always = 0;
	guint64 most = 0;
	g_autoptr(GtkBitset) step = gtk_bitset_new_empty();
	g_autofree char *b_caption = NULL;
	g_autoptr(GaVarRow) first = NULL;

	(void)state;
	check_app_view(ga_liveness_view_new);
	assert_true(g_resources_get_info("/org/tilescope/GraphAnalyser/ga-liveness-view.ui", 0, NULL,
	                                 NULL, NULL));
	view = g_object_ref(ga_liveness_view_new(session));
	window = gtu_window(view, 0, 0);
	assert_true(GTK_IS_NOTEBOOK(ga_view_get_details(GA_VIEW(view))));
	assert_int_equal(gtk_orientable_get_orientation(GTK_ORIENTABLE(ga_view_get_paned(GA_VIEW(view)))),
	                 GTK_ORIENTATION_VERTICAL);
	ga_session_set_document(session, a);
	assert_non_null(visible_label_with(view, "Peak at step"));
	assert_null(visible_label_with(view, "B — "));

	/* The always-live table's rows come from a worker: none yet as the
	 * view is first drawn, then every always-live variable, largest first. */
	assert_int_equal(tsr_report_get_variables(&vars, &n_vars, ga_document_get_report(a)), 0);
	always = gtu_find(gtk_notebook_get_nth_page(GTK_NOTEBOOK(ga_view_get_details(GA_VIEW(view))), 1),
	                  GTK_TYPE_COLUMN_VIEW, NULL);
	always_rows = G_LIST_MODEL(gtk_column_view_get_model(GTK_COLUMN_VIEW(always)));
	assert_int_equal(g_list_model_get_n_items(always_rows), 0);
	for (size_t i = 0; i < n_vars; i++)
		if (vars[i].always_live)
			n_always++, most = MAX(most, vars[i].bytes);
	assert_true(n_always > 1);
	wait_for_items(always, n_always);
	first = g_list_model_get_item(always_rows, 0);
	assert_int_equal(first->bytes[0], most);

	/* A variable with a lifetime: its caption, then none. */
	while (var < n_vars && (vars[var].always_live || vars[var].live_from < 0))
		var++;
	assert_true(var < n_vars);
	assert_null(visible_label_with(view, " is live from step "));
	ga_session_set_variable(session, (gint64)var);
	assert_non_null(visible_label_with(view, " is live from step "));
	ga_session_set_variable(session, -1);
	assert_null(visible_label_with(view, " is live from step "));

	/* The live variables at the peak step, then filtered by name. */
	chart = gtu_find(view, TSC_TYPE_CHART, NULL);
	/* In the details (the scope's drop-down has a search entry too). */
	table = gtu_find(ga_view_get_details(GA_VIEW(view)), GTK_TYPE_COLUMN_VIEW, NULL);
	search = gtu_find(ga_view_get_details(GA_VIEW(view)), GTK_TYPE_SEARCH_ENTRY, NULL);
	assert_non_null(chart);
	assert_non_null(table);
	assert_non_null(search);
	gtk_bitset_add(step, 13);
	tsc_chart_set_selection(TSC_CHART(chart), step);
	n_live = g_list_model_get_n_items(G_LIST_MODEL(gtk_column_view_get_model(GTK_COLUMN_VIEW(table))));
	assert_true(n_live > 0);
	wait_for_mapped(search);
	gtk_editable_set_text(GTK_EDITABLE(search), "no-such-variable-anywhere");
	wait_for_items(table, 0);
	gtk_editable_set_text(GTK_EDITABLE(search), "");
	wait_for_items(table, n_live);

	/* Comparing: report B's caption, gone again with B. */
	ga_session_set_documents(session, a, b);
	b_caption = g_strdup_printf("B — %s", ga_document_get_title(b));
	assert_non_null(visible_label_with(view, b_caption));
	/* What step 11 runs in B (a compute set there, a Sync in A) beside
	 * A's, under their titles: B's cycle estimate as reportlib has it. */
	gtk_bitset_remove_all(step);
	gtk_bitset_add(step, 11);
	tsc_chart_set_selection(TSC_CHART(chart), step);
	{
		GtkWidget *page = gtk_notebook_get_nth_page(GTK_NOTEBOOK(ga_view_get_details(GA_VIEW(view))), 3);
		GtkWidget *b_col = gtk_widget_get_parent(gtu_find_label(page, b_caption));
		const tsr_liveness_step *b_steps;
		size_t n_b;
		tsr_cycle_estimate e;
		g_autofree char *cycles = NULL;

		assert_int_equal(tsr_report_get_liveness_steps(&b_steps, &n_b, ga_document_get_report(b)), 0);
		assert_int_equal(tsr_report_fill_program_cycle_estimate(&e, ga_document_get_report(b),
		                                                        b_steps[11].program), 0);
		cycles = ga_format_u64(e.cycles);
		assert_non_null(visible_label_with(gtk_widget_get_prev_sibling(b_col), "Step 11: Sync"));
		assert_non_null(gtu_find_label(b_col, cycles));
	}
	/* And the variables live at it in B beside A's, by name: each of B's
	 * once in the B column. */
	{
		GListModel *live = G_LIST_MODEL(gtk_column_view_get_model(GTK_COLUMN_VIEW(table)));
		size_t *list = NULL, n_b_live = 0;
		guint with_b = 0;

		assert_int_equal(tsr_report_list_live_variables(&list, &n_b_live, ga_document_get_report(b),
		                                                11), 0);
		free(list);
		for (guint i = 0; i < g_list_model_get_n_items(live); i++) {
			g_autoptr(GaVarRow) row = g_list_model_get_item(live, i);

			with_b += (row->has_bytes & 2) != 0;
		}
		assert_true(n_b_live > 0);
		assert_int_equal(with_b, n_b_live);
		assert_string_equal(gtk_column_view_column_get_title(
		                        tsd_table_get_column(TSD_TABLE(gtk_widget_get_ancestor(table, TSD_TYPE_TABLE)), 2)),
		                    "B: Bytes (all tiles)");
	}
	ga_session_set_documents(session, a, NULL);
	assert_null(visible_label_with(view, "B — "));
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(view);
	g_object_unref(session);
	ga_document_unref(a);
	ga_document_unref(b);
}

/* The first label's text below `w`, or NULL. */
static const char *first_label_text(GtkWidget *w)
{
	GtkWidget *label = gtu_find(w, GTK_TYPE_LABEL, NULL);

	return label ? gtk_label_get_text(GTK_LABEL(label)) : NULL;
}

/* Appends to `out` the texts of the widgets of type name `type` below
 * `w`, in order (a table's column titles, or a row's cells). */
static void texts_of(GtkWidget *w, const char *type, GPtrArray *out)
{
	if (!gtk_widget_get_visible(w))
		return; /* a column the view hides: no title, no cells */
	if (!strcmp(G_OBJECT_TYPE_NAME(w), type)) {
		const char *t = first_label_text(w);

		g_ptr_array_add(out, g_strdup(t ? t : ""));
		return;
	}
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c))
		texts_of(c, type, out);
}

/* The row of column view `table` on screen whose first cell reads
 * `name`, as its words by column title (title -> text), or NULL. */
static GHashTable *row_words(GtkWidget *w, GPtrArray *titles, const char *name)
{
	GtkWidget *first = gtk_widget_get_first_child(w);

	if (first && !strcmp(G_OBJECT_TYPE_NAME(first), "GtkColumnViewCell")) {
		g_autoptr(GPtrArray) cells = g_ptr_array_new_with_free_func(g_free);
		GHashTable *words;

		texts_of(w, "GtkColumnViewCell", cells);
		if (cells->len == 0 || strcmp(cells->pdata[0], name) || cells->len != titles->len)
			return NULL;
		words = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
		for (guint i = 0; i < cells->len; i++)
			g_hash_table_insert(words, g_strdup(titles->pdata[i]), g_strdup(cells->pdata[i]));
		return words;
	}
	for (GtkWidget *c = first; c; c = gtk_widget_get_next_sibling(c)) {
		GHashTable *found = row_words(c, titles, name);

		if (found)
			return found;
	}
	return NULL;
}

/* Runs the main loop until `table` shows a row named `name`, failing
 * after a minute; its words by column title. */
typedef struct row_wait {
	GtkWidget *table;
	const char *name;
	GHashTable *words;
} row_wait;

static gboolean has_row(gpointer data)
{
	row_wait *r = data;
	g_autoptr(GPtrArray) titles = g_ptr_array_new_with_free_func(g_free);

	texts_of(r->table, "GtkColumnViewTitle", titles);
	r->words = row_words(r->table, titles, r->name);
	return r->words != NULL;
}

static GHashTable *wait_for_row(GtkWidget *table, const char *name)
{
	row_wait r = {table, name, NULL};

	if (!gtu_wait(has_row, &r))
		fail_msg("waited a minute for a row \"%s\" in a %s", name, G_OBJECT_TYPE_NAME(table));
	return r.words;
}

/* Whether no name of `folded` (n names, case-folded) but the i-th
 * contains the i-th. */
static gboolean alone_in(char *const *folded, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && strstr(folded[j], folded[i]))
			return FALSE;
	return TRUE;
}

/* One truth on both screens: a variable's row in the Liveness view's
 * live variables and in the Memory view's Variables tab (all tiles
 * selected) says the same words for the same figures: its name, bytes on
 * all tiles, category, always-live and lifetime. */
static void test_variable_tables(void **state)
{
	GaDocument *a = gtu_load("tut5_ml");
	GaSession *session = ga_session_new();
	GtkWidget *view, *window, *window2;
	GtkWidget *chart, *live_table, *live_search, *mem_table, *mem_search, *notebook;
	GaMemorySelection *mem;
	const tsr_variable *vars;
	const tsr_target *target;
	size_t n_vars, picked[2] = {SIZE_MAX, SIZE_MAX};
	ga_tile_layout layout;
	g_autoptr(GtkBitset) step = gtk_bitset_new_empty();
	g_autoptr(GtkBitset) tiles = NULL;
	g_auto(GStrv) folded = NULL;
	/* Liveness' title, Memory's title of the same figure. */
	static const char *const same[][2] = {{"Variable", "Variable"},
	                                      {"Bytes (all tiles)", "All tiles"},
	                                      {"Category", "Category"},
	                                      {"Always live", "Always live"},
	                                      {"Lifetime (steps)", "Lifetime (steps)"}};

	(void)state;
	assert_int_equal(tsr_report_get_variables(&vars, &n_vars, ga_document_get_report(a)), 0);
	folded = g_new0(char *, n_vars + 1);
	for (size_t i = 0; i < n_vars; i++)
		folded[i] = g_utf8_casefold(vars[i].name ? vars[i].name : "", -1);
	/* An always-live variable and one live at some step, each with a
	 * name no other name contains: the search shows its row alone, so
	 * it is on screen however the table sorts ("W" is in 2,811 names). */
	for (size_t i = 0; i < n_vars; i++) {
		if (!vars[i].name || !vars[i].bytes || !alone_in(folded, n_vars, i))
			continue;
		if (vars[i].always_live && picked[0] == SIZE_MAX)
			picked[0] = i;
		else if (!vars[i].always_live && vars[i].live_from >= 0 &&
		         vars[i].live_to >= vars[i].live_from && picked[1] == SIZE_MAX)
			picked[1] = i;
	}
	assert_true(picked[0] != SIZE_MAX && picked[1] != SIZE_MAX);

	view = g_object_ref(ga_liveness_view_new(session));
	window = gtu_window(view, 0, 0);
	ga_session_set_document(session, a);
	chart = gtu_find(view, TSC_TYPE_CHART, NULL);
	live_table = gtu_find(ga_view_get_details(GA_VIEW(view)), GTK_TYPE_COLUMN_VIEW, NULL);
	live_search = gtu_find(ga_view_get_details(GA_VIEW(view)), GTK_TYPE_SEARCH_ENTRY, NULL);
	/* Both are live at the second's first step (the first at every step). */
	gtk_bitset_add(step, (guint)vars[picked[1]].live_from);
	tsc_chart_set_selection(TSC_CHART(chart), step);

	mem = ga_memory_selection_new(session);
	window2 = gtu_window(GTK_WIDGET(mem), 0, 0);
	target = tsr_report_get_target(ga_document_get_report(a));
	ga_tile_layout_init(&layout, target->num_ipus ? target->num_ipus : 1, target->tiles_per_ipu);
	ga_memory_selection_set_document(mem, a, &layout);
	tiles = gtk_bitset_new_range(0, (guint)target->num_tiles);
	ga_memory_selection_set_tiles(mem, tiles);
	mem_table = gtu_find(GTK_WIDGET(mem), GTK_TYPE_COLUMN_VIEW, NULL);
	mem_search = gtu_find(GTK_WIDGET(mem), GTK_TYPE_SEARCH_ENTRY, NULL);
	assert_non_null(mem_table);
	assert_non_null(mem_search);
	/* The Variables tab in front. */
	notebook = gtk_widget_get_ancestor(mem_table, GTK_TYPE_NOTEBOOK);
	assert_non_null(notebook);
	for (int i = 0; i < gtk_notebook_get_n_pages(GTK_NOTEBOOK(notebook)); i++)
		if (gtk_widget_is_ancestor(mem_table, gtk_notebook_get_nth_page(GTK_NOTEBOOK(notebook), i)))
			gtk_notebook_set_current_page(GTK_NOTEBOOK(notebook), i);
	wait_for_mapped(live_search);
	wait_for_mapped(mem_search);

	for (guint k = 0; k < 2; k++) {
		g_autofree char *name = ga_format_name(vars[picked[k]].name);
		g_autoptr(GHashTable) live_words = NULL;
		g_autoptr(GHashTable) mem_words = NULL;

		/* Each table filtered down to the variable, so its row is on screen. */
		gtk_editable_set_text(GTK_EDITABLE(live_search), name);
		gtk_editable_set_text(GTK_EDITABLE(mem_search), name);
		live_words = wait_for_row(live_table, name);
		mem_words = wait_for_row(mem_table, name);
		for (guint c = 0; c < G_N_ELEMENTS(same); c++) {
			const char *l = g_hash_table_lookup(live_words, same[c][0]);
			const char *m = g_hash_table_lookup(mem_words, same[c][1]);

			if (!l || !m)
				fail_msg("%s: no \"%s\" in Liveness (%s) or \"%s\" in Memory (%s)", name,
				         same[c][0], l ? l : "missing", same[c][1], m ? m : "missing");
			if (strcmp(l, m))
				fail_msg("%s: Liveness' %s says \"%s\", Memory's %s \"%s\"", name, same[c][0],
				         l, same[c][1], m);
		}
		assert_string_equal(g_hash_table_lookup(live_words, "Always live"), k == 0 ? "Yes" : "No");
	}
	gtk_window_destroy(GTK_WINDOW(window));
	gtk_window_destroy(GTK_WINDOW(window2));
	g_object_unref(view);
	g_object_unref(session);
	ga_document_unref(a);
}

/* The Program Tree on its template: the search bar across the view, the
 * details as the base's pane; the search's next and previous match
 * (the entry's own signals, Ctrl+G and Shift+Ctrl+G, and the buttons)
 * step through the matches; a program chosen elsewhere is shown. */
static void test_program(void **state)
{
	GaDocument *a = gtu_load("tut5_ml");
	GaSession *session = ga_session_new();
	GtkWidget *view, *window, *search, *status;
	const tsr_program *progs;
	size_t n_progs;

	(void)state;
	check_app_view(ga_program_view_new);
	assert_true(g_resources_get_info("/org/tilescope/GraphAnalyser/ga-program-view.ui", 0, NULL,
	                                 NULL, NULL));
	view = g_object_ref(ga_program_view_new(session));
	window = gtu_window(view, 0, 0);
	assert_non_null(ga_view_get_details(GA_VIEW(view)));
	search = gtu_find(ga_view_get_bar(GA_VIEW(view)), GTK_TYPE_SEARCH_ENTRY, NULL);
	assert_non_null(search);
	ga_session_set_document(session, a);
	assert_non_null(gtu_find_label(ga_view_get_details(GA_VIEW(view)),
	                      "Select a program to see its details, or search for one."));

	gtk_editable_set_text(GTK_EDITABLE(search), "Sequence");
	/* The status, after the entry and its two buttons. */
	status = gtk_widget_get_next_sibling(gtk_widget_get_next_sibling(gtk_widget_get_next_sibling(search)));
	assert_true(GTK_IS_LABEL(status));
	wait_for_text_prefix(status, "1 of ");
	g_signal_emit_by_name(search, "next-match");
	assert_true(g_str_has_prefix(gtk_label_get_text(GTK_LABEL(status)), "2 of "));
	g_signal_emit_by_name(search, "previous-match");
	assert_true(g_str_has_prefix(gtk_label_get_text(GTK_LABEL(status)), "1 of "));

	/* A program chosen elsewhere: selected, its details shown. */
	assert_int_equal(tsr_report_get_programs(&progs, &n_progs, ga_document_get_report(a)), 0);
	assert_true(n_progs > 1);
	ga_session_set_program(session, (gint64)n_progs - 1);
	assert_non_null(gtu_find_label(ga_view_get_details(GA_VIEW(view)), "Program id"));
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(view);
	g_object_unref(session);
	ga_document_unref(a);
}

/* A page its stack hides is told of a document when shown, not before:
 * opening a report costs the shown view's work only. */
static void test_hidden_page(void **state)
{
	GaDocument *a = gtu_load("tut5_ml");
	GaSession *session = ga_session_new();
	GtkWidget *stack = gtk_stack_new(), *window;
	TestView *shown = g_object_new(TEST_TYPE_VIEW, "session", session, NULL);
	TestView *hidden = g_object_new(TEST_TYPE_VIEW, "session", session, NULL);

	(void)state;
	gtk_stack_add_named(GTK_STACK(stack), GTK_WIDGET(shown), "shown");
	gtk_stack_add_named(GTK_STACK(stack), GTK_WIDGET(hidden), "hidden");
	window = gtu_window(stack, 0, 0);
	ga_session_set_document(session, a);
	assert_int_equal(shown->changes, 2);
	assert_ptr_equal(shown->seen_doc, a);
	assert_int_equal(hidden->changes, 1);
	assert_null(hidden->seen_doc);
	assert_null(ga_view_get_document(GA_VIEW(hidden)));
	gtk_stack_set_visible_child(GTK_STACK(stack), GTK_WIDGET(hidden));
	gtu_spin_until(is_mapped, hidden, "the hidden page shown");
	assert_int_equal(hidden->changes, 2);
	assert_ptr_equal(hidden->seen_doc, a);
	assert_string_equal(ga_view_get_state(GA_VIEW(hidden)), "content");
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(session);
	ga_document_unref(a);
}

/* How many descriptors of this process are open on `path` (one per
 * SQLite connection on a report). */
static unsigned open_count(const char *path)
{
	g_autoptr(GDir) dir = g_dir_open("/proc/self/fd", 0, NULL);
	const char *fd;
	unsigned n = 0;

	while (dir && (fd = g_dir_read_name(dir))) {
		g_autofree char *link = g_build_filename("/proc/self/fd", fd, NULL);
		g_autofree char *target = g_file_read_link(link, NULL);

		n += !g_strcmp0(target, path);
	}
	return n;
}

/* Whether no descriptor of this process is open on `path`. */
static gboolean file_closed(gpointer path)
{
	return open_count(path) == 0;
}

/* Whether only the document's own connection is open on `path`. */
static gboolean one_connection(gpointer path)
{
	return open_count(path) == 1;
}

/* A hidden page lets go of the report it showed when another is opened,
 * not when it is next shown: the file closes once the session has the
 * next (the Insights view, hidden, kept it and its worker's handle). */
static void test_hidden_release(void **state)
{
	g_autofree char *path = realpath(SAMPLE_REPORTS "/tut7_mk1_small/profile.pop", NULL);
	GaDocument *a = gtu_load_path(path), *b = gtu_load("tut7_mk1");
	GaSession *session = ga_session_new();
	GtkWidget *stack = gtk_stack_new(), *window, *insights = ga_insights_view_new(session);
	TestView *other = g_object_new(TEST_TYPE_VIEW, "session", session, NULL);

	(void)state;
	gtk_stack_add_named(GTK_STACK(stack), insights, "insights");
	gtk_stack_add_named(GTK_STACK(stack), GTK_WIDGET(other), "other");
	window = gtu_window(stack, 0, 0);
	ga_session_set_document(session, a);
	wait_for_label(insights, "Vertex and exchange memory on the model (1,216 tiles), in bytes.");
	gtk_stack_set_visible_child(GTK_STACK(stack), GTK_WIDGET(other));
	gtu_spin_until(is_mapped, other, "the other page shown");
	ga_session_set_document(session, b);
	ga_document_unref(a);
	gtu_spin_until(file_closed, path, "the first report closed");
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(session);
	ga_document_unref(b);
}

/* The Insights scope button "IPU". */
static gboolean is_ipu_scope(GtkWidget *w, gconstpointer data)
{
	(void)data;
	return GTK_IS_TOGGLE_BUTTON(w) && !g_strcmp0(gtk_button_get_label(GTK_BUTTON(w)), "IPU");
}

/* Hidden, Insights closes its workers' handle on the report (what it
 * loaded is ~45 MB on the large model's report), and opens it again
 * for the next scope it is shown with. */
#ifdef __GLIBC__
/* The malloc arenas the process has (malloc_info's heaps). */
static int arena_count(void)
{
	char *xml = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&xml, &n);
	int count = 0;

	malloc_info(0, f);
	fclose(f);
	for (const char *p = xml; (p = strstr(p, "<heap nr=")); p++)
		count++;
	free(xml);
	return count;
}
#endif

static void test_hidden_insights_handle(void **state)
{
	g_autofree char *path = realpath(SAMPLE_REPORTS "/tut7_mk1_small/profile.pop", NULL);
	GaDocument *a = gtu_load_path(path);
	GaSession *session = ga_session_new();
	GtkWidget *stack = gtk_stack_new(), *window, *insights = ga_insights_view_new(session);
	TestView *other = g_object_new(TEST_TYPE_VIEW, "session", session, NULL);
	const char *model = "Vertex and exchange memory on the model (1,216 tiles), in bytes.";
	GtkWidget *ipu;

	(void)state;
	gtk_stack_add_named(GTK_STACK(stack), insights, "insights");
	gtk_stack_add_named(GTK_STACK(stack), GTK_WIDGET(other), "other");
	window = gtu_window(stack, 0, 0);
	ga_session_set_document(session, a);
	wait_for_label(insights, model);
	assert_int_equal(open_count(path), 2);
#ifdef __GLIBC__
	/* Its worker allocated in the one arena (ga-document.c). */
	assert_int_equal(arena_count(), 1);
#endif
	gtk_stack_set_visible_child(GTK_STACK(stack), GTK_WIDGET(other));
	gtu_spin_until(one_connection, path, "the workers' handle closed");
	gtk_stack_set_visible_child(GTK_STACK(stack), insights);
	gtu_spin_until(is_mapped, insights, "Insights shown again");
	ipu = gtu_find_if(insights, is_ipu_scope, NULL);
	assert_non_null(ipu);
	gtk_toggle_button_set_active(GTK_TOGGLE_BUTTON(ipu), TRUE);
	wait_for_label(insights, "Vertex and exchange memory on IPU 0 (tiles 0 to 1215), in bytes.");
	assert_int_equal(open_count(path), 2);
	gtk_window_destroy(GTK_WINDOW(window));
	g_object_unref(session);
	ga_document_unref(a);
}

/* The History view (issue 32 item 3) follows the session's history store,
 * not its report: empty (titled for the store) without one, its content
 * with one whatever report is open, and says what the store holds. */
static void test_history_view(void **state)
{
	g_autofree char *dir = g_dir_make_tmp("ga-view-history-XXXXXX", NULL);
	g_autofree char *path = g_build_filename(dir, "h", NULL);
	g_autoptr(GFile) file = g_file_new_for_path(path);
	GaDocument *doc = gtu_load("tut4_profiling");
	GaSession *session = ga_session_new();
	GaHistory *history;
	tsr_history *h = NULL;
	GtkWidget *view;

	(void)state;
	assert_int_equal(tsr_history_open(&h, path, TSR_HISTORY_CREATE), TSR_OK);
	for (uint64_t i = 0; i < 2; i++) {
		tsr_history_run run = {0, i ? "c2" : "c1", NULL, "main", (int64_t)i + 1, NULL, "host",
		                       "profile.pop", "0123456789abcdef0123456789abcdef"
		                                      "0123456789abcdef0123456789abcdef"};
		tsr_history_figure fig = {"cycles.total", TSR_UNIT_CYCLES, false, 0, 10 + i};

		assert_int_equal(tsr_history_add(NULL, NULL, h, &run, &fig, 1), TSR_OK);
	}
	tsr_history_free(h);
	history = ga_history_load(file, NULL, NULL, NULL);
	assert_non_null(history);
	view = g_object_ref_sink(ga_history_view_new(session));
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "empty");
	assert_non_null(gtu_find_label(view, "No history store open"));
	ga_session_set_history(session, history);
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "content");
	assert_non_null(gtu_find_label(view, "2 runs, 1 metric, 1 change point"));
	ga_session_set_document(session, doc);
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "content");
	ga_session_set_history(session, NULL);
	assert_string_equal(ga_view_get_state(GA_VIEW(view)), "empty");
	g_object_unref(view);
	g_object_unref(session);
	ga_history_unref(history);
	ga_document_unref(doc);
	g_unlink(path);
	g_rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_insights),
		cmocka_unit_test(test_insights_out_of_memory),
		cmocka_unit_test(test_liveness),
		cmocka_unit_test(test_variable_tables),
		cmocka_unit_test(test_program),
		cmocka_unit_test(test_base),
		cmocka_unit_test(test_history_view),
		cmocka_unit_test(test_hidden_page),
		cmocka_unit_test(test_hidden_release),
		cmocka_unit_test(test_hidden_insights_handle),
	};

	gtk_init();
	ga_register_resource();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
