/*
 * Compare (sa-compare.h). A comparison is a job: two documents (or one
 * twice) and a window of each; both sides' statistics are asked of
 * sa-document in workers, and when both have come back reportlib pairs
 * them on the main thread. Each job has its own GCancellable; a newer job,
 * or freeing the controller, cancels it, and a callback of a cancelled
 * job touches nothing but its own data (the controller may be gone).
 */
#include "sa-compare.h"

#include <tilescope/tsd-cancel.h>
#include <tilescope/tsd-settings.h>

#include "sa-application.h"
#include "sa-compare-view.h"
#include "sa-format.h"
#include "sa-timeline.h"
#include "sa-window.h"

#include <string.h>

struct _SaCompare {
	SaWindow *win;             /* owns us */
	GtkNotebook *details;
	GtkWidget *page;           /* the Compare page: the timelines over the table */
	GtkWidget *view;           /* SaCompareView, the table */
	GtkWidget *timelines;      /* A's timeline and its label over B's; shown for two traces */
	SaTimeline *tl[2];
	GtkLabel *tl_label[2];
	gboolean syncing;          /* one timeline's view being copied to the other */
	GtkPaned *split;           /* the window's, over the details (NULL: none) */
	gboolean want_room;        /* the details to be given room for the pair (place()) */
	gboolean placed;           /* the split of the pair and the table made (then the user's) */
	GSimpleActionGroup *actions;
	GtkFileChooserNative *chooser;
	SaSession *session;        /* the window's: its window is the next range */

	GCancellable *cancel;      /* the job in progress (loading B, statistics) */
	/* Two traces: B loaded (or loading), waiting for the window's A. */
	gboolean wait_window;
	SaDocument *b_doc;
	/* Two windows of the trace shown: A is [mark_from, mark_to). */
	gboolean wait_mark;
	int64_t mark_from, mark_to;
	/* The job: its two sides, their windows, descriptions and statistics. */
	SaDocument *doc[2];
	int64_t from[2], to[2];
	char *what[2];
	sa_stats *stats[2];
	/* The row to select again when the job's rows come (a recomputation
	 * after a reload keeps the user's row); NULL: none. */
	char *keep_channel, *keep_name;
};

/* What a worker's callback needs: the job it belongs to. */
typedef struct job_ref {
	SaCompare *self;           /* valid while `cancel` is not cancelled */
	GCancellable *cancel;
	int side;
} job_ref;

static job_ref *job_ref_new(SaCompare *self, int side)
{
	job_ref *j = g_new0(job_ref, 1);

	j->self = self;
	j->cancel = g_object_ref(self->cancel);
	j->side = side;
	return j;
}

static void job_ref_free(job_ref *j)
{
	g_object_unref(j->cancel);
	g_free(j);
}

/* Cancels the job in progress and drops what it holds. */
static void clear_job(SaCompare *self)
{
	tsd_cancel_clear(&self->cancel);
	for (int i = 0; i < 2; i++) {
		g_clear_pointer(&self->doc[i], sa_document_unref);
		g_clear_pointer(&self->what[i], g_free);
		g_clear_pointer(&self->stats[i], sa_stats_free);
	}
	g_clear_pointer(&self->keep_channel, g_free);
	g_clear_pointer(&self->keep_name, g_free);
	g_clear_pointer(&self->b_doc, sa_document_unref);
}

/* Cancels the job in progress and starts a new cancellable. */
static void new_job(SaCompare *self)
{
	clear_job(self);
	self->cancel = g_cancellable_new();
	self->wait_window = FALSE;
	self->wait_mark = FALSE;
	sa_session_set_compare_document(self->session, NULL);
}

static void show_page(SaCompare *self)
{
	int page = gtk_notebook_page_num(self->details, self->page);

	if (page >= 0)
		gtk_notebook_set_current_page(self->details, page);
}

/* Empties the table and says `message` (a prompt, a failure), with a
 * spinner when `busy`. */
static void say(SaCompare *self, const char *message, gboolean busy)
{
	tsd_table_set_message(SA_TABLE(self->view), message, busy);
}

/* "tut5_ml.pvti, whole trace" or "tut5_ml.pvti, 1.000000 ms – 2.000000
 * ms" (after the trace's start, as the Statistics tab and `tilescope
 * trace --from --to` say it). */
static char *describe(SaDocument *doc, int64_t from, int64_t to)
{
	int64_t start;

	if (from == INT64_MIN && to == INT64_MAX)
		return g_strdup_printf("%s, whole trace", sa_document_get_title(doc));
	start = tsr_trace_get_info(sa_document_get_trace(doc))->start_ns;
	{
		g_autofree char *a = sa_format_ms_exact(from - start);
		g_autofree char *b = sa_format_ms_exact(to - start);

		return g_strdup_printf("%s, %s – %s", sa_document_get_title(doc), a, b);
	}
}

/* --- Running a comparison ------------------------------------------------------------ */

static void finish(SaCompare *self)
{
	tsr_trace *a = sa_document_get_trace(self->doc[0]), *b = sa_document_get_trace(self->doc[1]);
	tsr_trace_label_delta *rows = NULL;
	size_t n = 0;
	int rc = tsr_trace_list_label_deltas(&rows, &n, a, self->stats[0]->labels,
	                                     self->stats[0]->n_labels, b, self->stats[1]->labels,
	                                     self->stats[1]->n_labels);

	if (rc == TSR_OK) {
		sa_compare_view_set_rows(SA_COMPARE_VIEW(self->view), self->what[0], self->what[1],
		                         rows, n);
		if (self->keep_name)
			sa_compare_view_select(SA_COMPARE_VIEW(self->view), self->keep_channel,
			                       self->keep_name);
	} else
		say(self, tsr_trace_error(a), FALSE);
	free(rows);
}

static void on_side_done(GObject *source, GAsyncResult *result, gpointer data)
{
	job_ref *j = data;
	g_autoptr(GError) error = NULL;
	sa_stats *stats = sa_document_stats_finish(result, &error);
	SaCompare *self = j->self;

	if (g_cancellable_is_cancelled(j->cancel)) {
		sa_stats_free(stats);
		job_ref_free(j);
		return;
	}
	if (!stats) {
		g_autofree char *m = g_strdup_printf("Side %c: %s", j->side ? 'B' : 'A', error->message);

		/* One failure ends the job: the other side's answer is moot. */
		g_cancellable_cancel(self->cancel);
		say(self, m, FALSE);
	} else {
		self->stats[j->side] = stats;
		if (self->stats[0] && self->stats[1])
			finish(self);
	}
	job_ref_free(j);
}

/* --- The timelines -------------------------------------------------------------------- */

/* One timeline's view moved: the other shows the same window after its
 * own trace's start, so the two runs align. */
static void on_timeline_view(SaTimeline *tl, gpointer data)
{
	SaCompare *self = data;
	int i = tl == self->tl[1], j = !i;
	SaDocument *di = sa_timeline_get_document(tl), *dj = sa_timeline_get_document(self->tl[j]);
	int64_t from, to, shift;

	if (self->syncing || !di || !dj)
		return;
	shift = tsr_trace_get_info(sa_document_get_trace(dj))->start_ns -
	        tsr_trace_get_info(sa_document_get_trace(di))->start_ns;
	sa_timeline_get_view(tl, &from, &to);
	self->syncing = TRUE;
	sa_timeline_set_view(self->tl[j], from + shift, to + shift);
	self->syncing = FALSE;
}

/* What waits for an allocation, once it has one: with two traces
 * compared, the details under the window's timeline (A's again) get two
 * thirds of its height unless the user chose that split (tsd-settings.h),
 * and the pair two thirds of the page over the table (then the splits are
 * the user's). */
static void place(SaCompare *self)
{
	int max = 0, h = gtk_widget_get_height(self->page);

	if (self->want_room)
		g_object_get(self->split, "max-position", &max, NULL);
	if (max > 0 && max < G_MAXINT) {
		g_autoptr(GSettings) settings = tsd_settings_new(SA_SETTINGS_ID);

		self->want_room = FALSE;
		if (!tsd_settings_has_user_value(settings, "timeline-height") &&
		    gtk_paned_get_position(self->split) > max / 3)
			tsd_settings_set_paned_position(self->split, max / 3);
	}
	if (!self->placed && h > 0 && gtk_widget_get_visible(self->timelines)) {
		self->placed = TRUE;
		gtk_paned_set_position(GTK_PANED(self->page), h * 2 / 3);
	}
}

/* Two traces: each side's timeline with its file's name, on its own whole
 * trace; else (two windows of one trace) none. */
static void show_timelines(SaCompare *self, gboolean two_traces)
{
	gtk_widget_set_visible(self->timelines, two_traces);
	self->want_room = two_traces && self->split;
	place(self);
	self->syncing = TRUE;
	for (int i = 0; i < 2; i++) {
		g_autofree char *name = g_strdup_printf("%c: %s", "AB"[i],
		                                        sa_document_get_title(self->doc[i]));
		g_autofree char *acc = g_strdup_printf("Timeline %s", name);

		sa_timeline_set_document(self->tl[i], two_traces ? self->doc[i] : NULL);
		gtk_label_set_text(self->tl_label[i], name);
		gtk_accessible_update_property(GTK_ACCESSIBLE(self->tl[i]),
		                               GTK_ACCESSIBLE_PROPERTY_LABEL, acc, -1);
	}
	self->syncing = FALSE;
}

/* Starts the job comparing [from_a, to_a) of `a` with [from_b, to_b) of
 * `b` (the current job's state is kept: call new_job first). A new
 * comparison empties the table and shows its tab; a `recompute` (after a
 * reload) keeps the rows on screen until the new ones come, and the tab
 * the user is on. */
static void run(SaCompare *self, SaDocument *a, int64_t from_a, int64_t to_a, SaDocument *b,
                int64_t from_b, int64_t to_b, gboolean recompute)
{
	g_autofree char *m = NULL;

	self->doc[0] = sa_document_ref(a);
	self->doc[1] = sa_document_ref(b);
	self->from[0] = from_a;
	self->to[0] = to_a;
	self->from[1] = from_b;
	self->to[1] = to_b;
	self->what[0] = describe(a, from_a, to_a);
	self->what[1] = describe(b, from_b, to_b);
	show_timelines(self, a != b);
	if (recompute) {
		m = g_strdup_printf("Reloaded: comparing A: %s with B: %s again…", self->what[0],
		                    self->what[1]);
		/* The rows stay on screen until the new ones come. */
		tsd_table_set_busy(SA_TABLE(self->view), TRUE, m);
	} else {
		m = g_strdup_printf("Comparing A: %s with B: %s…", self->what[0], self->what[1]);
		say(self, m, TRUE);
		show_page(self);
	}
	sa_document_stats_async(a, from_a, to_a, self->cancel, on_side_done, job_ref_new(self, 0));
	sa_document_stats_async(b, from_b, to_b, self->cancel, on_side_done, job_ref_new(self, 1));
}

/* Both documents of a two-trace comparison are there: go. */
static void maybe_run_traces(SaCompare *self)
{
	SaDocument *a = sa_window_get_document(self->win);

	if (self->wait_window || !self->b_doc || !a)
		return;
	{
		g_autoptr(SaDocument) b = g_steal_pointer(&self->b_doc);

		run(self, a, INT64_MIN, INT64_MAX, b, INT64_MIN, INT64_MAX, FALSE);
	}
}

static void on_b_loaded(GObject *source, GAsyncResult *result, gpointer data)
{
	job_ref *j = data;
	g_autoptr(GError) error = NULL;
	SaDocument *doc = sa_document_load_finish(result, &error);
	SaCompare *self = j->self;

	if (g_cancellable_is_cancelled(j->cancel)) {
		g_clear_pointer(&doc, sa_document_unref);
		job_ref_free(j);
		return;
	}
	job_ref_free(j);
	if (!doc) {
		g_autofree char *m = g_strdup_printf("Trace B could not be opened: %s", error->message);

		say(self, m, FALSE);
		show_page(self);
		return;
	}
	/* B was opened too: it belongs in the recent files. */
	tsd_window_remember(TSD_WINDOW(self->win), sa_document_get_paths(doc));
	self->b_doc = doc;
	sa_session_set_compare_document(self->session, doc);
	maybe_run_traces(self);
}

void sa_compare_with_file(SaCompare *self, GFile *b)
{
	g_autofree char *base = g_file_get_basename(b);
	g_autofree char *m = g_strdup_printf("Opening trace B, %s…", base);

	new_job(self);
	self->wait_window = TRUE;
	say(self, m, TRUE);
	show_page(self);
	sa_document_load_async(&b, 1, self->cancel, NULL, NULL, NULL, on_b_loaded,
	                       job_ref_new(self, 1));
}

void sa_compare_document_changed(SaCompare *self, SaDocument *doc)
{
	if (!self || !self->wait_window)
		return;
	self->wait_window = FALSE;
	maybe_run_traces(self);
}

/*
 * The window's document `old` was reloaded as `doc`: a comparison of it
 * (shown or still computing) is computed again, in workers as any, with
 * the same windows against the same other side: B's document as it was
 * loaded for two traces, the reloaded document for two windows of it.
 * The selected row is selected again when its label is still there.
 */
void sa_compare_document_reloaded(SaCompare *self, SaDocument *old, SaDocument *doc)
{
	g_autoptr(SaDocument) a = NULL;
	g_autoptr(SaDocument) b = NULL;
	g_autofree char *channel = NULL, *name = NULL;
	int64_t from[2], to[2];

	if (!self || !old || !doc || self->doc[0] != old)
		return;
	a = sa_document_ref(doc);
	b = sa_document_ref(self->doc[1] == old ? doc : self->doc[1]);
	memcpy(from, self->from, sizeof(from));
	memcpy(to, self->to, sizeof(to));
	/* The row on screen, else the one a recomputation still running was
	 * to select. */
	if (!sa_compare_view_dup_selected(SA_COMPARE_VIEW(self->view), &channel, &name)) {
		channel = g_steal_pointer(&self->keep_channel);
		name = g_steal_pointer(&self->keep_name);
	}
	new_job(self);
	self->keep_channel = g_steal_pointer(&channel);
	self->keep_name = g_steal_pointer(&name);
	run(self, a, from[0], to[0], b, from[1], to[1], TRUE);
}

/* --- Two windows of one trace ------------------------------------------------------------- */

/* The session's window moved (either end): while waiting for B's
 * range, it is B. */
static void on_window_changed(SaSession *session, GParamSpec *pspec, gpointer data)
{
	SaCompare *self = data;
	SaDocument *doc = sa_session_get_document(session);
	int64_t from, to, a_from = self->mark_from, a_to = self->mark_to;

	if (!self->wait_mark || !doc || !sa_session_get_window(session, &from, &to))
		return;
	if (from == a_from && to == a_to)
		return;
	new_job(self);
	run(self, doc, a_from, a_to, doc, from, to, FALSE);
}

static void marked_action(GSimpleAction *action, GVariant *param, gpointer data)
{
	SaCompare *self = data;
	SaDocument *doc = sa_window_get_document(self->win);
	int64_t from, to;
	g_autofree char *what = NULL, *m = NULL;

	if (!doc) {
		say(self, "Open a trace first: Compare with Marked Range compares two windows of it.",
		    FALSE);
		return;
	}
	new_job(self);
	sa_session_get_window(self->session, &from, &to);
	self->wait_mark = TRUE;
	self->mark_from = from;
	self->mark_to = to;
	what = describe(doc, from, to);
	m = g_strdup_printf("A: %s. Now mark the window to compare it with: Shift+drag on the "
	                    "timeline, or M to mark the visible window.", what);
	say(self, m, FALSE);
	show_page(self);
}

/* --- Two traces from the file chooser ----------------------------------------------------- */

static void on_chooser_response(GtkNativeDialog *dialog, int response, gpointer data)
{
	SaCompare *self = data;

	if (response == GTK_RESPONSE_ACCEPT) {
		g_autoptr(GListModel) files = gtk_file_chooser_get_files(GTK_FILE_CHOOSER(dialog));
		guint n = g_list_model_get_n_items(files);

		if (n == 2) {
			g_autoptr(GFile) a = g_list_model_get_item(files, 0);
			g_autoptr(GFile) b = g_list_model_get_item(files, 1);

			sa_window_open(self->win, &a, 1);
			sa_compare_with_file(self, b);
		} else {
			g_autofree char *m = g_strdup_printf(
			    "Compare Traces takes two traces (A, then B); %u were chosen.", n);

			say(self, m, FALSE);
			show_page(self);
		}
	}
	gtk_native_dialog_destroy(GTK_NATIVE_DIALOG(self->chooser));
	g_clear_object(&self->chooser);
}

static void traces_action(GSimpleAction *action, GVariant *param, gpointer data)
{
	SaCompare *self = data;

	if (self->chooser)
		return;
	self->chooser = gtk_file_chooser_native_new("Compare Two Traces", GTK_WINDOW(self->win),
	                                            GTK_FILE_CHOOSER_ACTION_OPEN, "_Compare",
	                                            "_Cancel");
	gtk_file_chooser_set_select_multiple(GTK_FILE_CHOOSER(self->chooser), TRUE);
	tsd_window_add_filters(TSD_WINDOW(self->win), GTK_FILE_CHOOSER(self->chooser));
	g_signal_connect(self->chooser, "response", G_CALLBACK(on_chooser_response), self);
	gtk_native_dialog_show(GTK_NATIVE_DIALOG(self->chooser));
}

/* --- Set-up ---------------------------------------------------------------------------------- */

/* The Compare page's widgets in the window's template (sa-window.ui). */
static const char *const template_children[] = {
	"compare_page", "compare_view", "compare_timelines", "compare_timeline_a",
	"compare_timeline_b", "compare_label_a", "compare_label_b",
};

void sa_compare_bind_template(GtkWidgetClass *window_class)
{
	for (size_t i = 0; i < G_N_ELEMENTS(template_children); i++)
		gtk_widget_class_bind_template_child_full(window_class, template_children[i], FALSE, 0);
}

static GtkWidget *template_child(SaCompare *self, const char *name)
{
	return GTK_WIDGET(gtk_widget_get_template_child(GTK_WIDGET(self->win), SA_TYPE_WINDOW, name));
}

SaCompare *sa_compare_new(SaWindow *win, GtkNotebook *details)
{
	static const GActionEntry entries[] = {
		{"traces", traces_action, NULL, NULL, NULL, {0}},
		{"marked", marked_action, NULL, NULL, NULL, {0}},
	};
	SaCompare *self = g_new0(SaCompare, 1);

	self->win = win;
	self->session = g_object_ref(sa_window_get_session(win));
	self->details = details;
	self->page = template_child(self, "compare_page");
	self->view = template_child(self, "compare_view");
	self->timelines = template_child(self, "compare_timelines");
	for (int i = 0; i < 2; i++) {
		self->tl[i] = SA_TIMELINE(template_child(self, i ? "compare_timeline_b"
		                                                  : "compare_timeline_a"));
		self->tl_label[i] = GTK_LABEL(template_child(self, i ? "compare_label_b"
		                                                      : "compare_label_a"));
		g_signal_connect(self->tl[i], "view-changed", G_CALLBACK(on_timeline_view), self);
	}
	/* The page is allocated when its tab first shows. */
	g_signal_connect_swapped(self->page, "notify::max-position", G_CALLBACK(place), self);
	if (GTK_IS_PANED(gtk_widget_get_parent(GTK_WIDGET(details)))) {
		self->split = GTK_PANED(gtk_widget_get_parent(GTK_WIDGET(details)));
		g_signal_connect_swapped(self->split, "notify::max-position", G_CALLBACK(place), self);
	}
	self->actions = g_simple_action_group_new();
	g_action_map_add_action_entries(G_ACTION_MAP(self->actions), entries,
	                                G_N_ELEMENTS(entries), self);
	gtk_widget_insert_action_group(GTK_WIDGET(win), "compare", G_ACTION_GROUP(self->actions));
	/* Ctrl+M is in the app's key table (sa-keys.c). */
	g_signal_connect(self->session, "notify::window-from", G_CALLBACK(on_window_changed), self);
	g_signal_connect(self->session, "notify::window-to", G_CALLBACK(on_window_changed), self);
	return self;
}

void sa_compare_free(SaCompare *self)
{
	if (!self)
		return;
	clear_job(self);
	if (self->chooser)
		gtk_native_dialog_destroy(GTK_NATIVE_DIALOG(self->chooser));
	g_clear_object(&self->chooser);
	g_clear_object(&self->actions);
	g_signal_handlers_disconnect_by_data(self->session, self);
	g_signal_handlers_disconnect_by_data(self->page, self);
	if (self->split)
		g_signal_handlers_disconnect_by_data(self->split, self);
	for (int i = 0; i < 2; i++)
		g_signal_handlers_disconnect_by_data(self->tl[i], self);
	g_clear_object(&self->session);
	g_free(self);
}
