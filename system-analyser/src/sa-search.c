/*
 * The search bar (sa-search.h). One query runs at a time in a worker
 * (sa_document_run_async with sa-search-job.h's functions); a new search
 * cancels the one running, and a step asked for while one runs waits
 * for it (one step is remembered), so pressing F3 twice moves twice.
 *
 * What the bar knows: the pattern and mode of the last search, its hit
 * count, and the current hit with its ordinal (1-based), which steps
 * move by one (wrapping to 1 or to the count at the ends).
 */
#include "sa-search.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-cancel.h>

#include "sa-format.h"
#include "sa-search-job.h"

struct _SaSearchBar {
	SaView parent_instance;
	GtkSearchBar *bar;
	GtkSearchEntry *entry;
	GtkToggleButton *regex_toggle;
	GtkToggleButton *case_toggle;
	GtkLabel *status;
	GtkButton *prev_button;
	GtkButton *next_button;

	SaDocument *doc;
	GCancellable *cancellable;   /* the query running, or NULL */
	int queued;                  /* a step asked for while one ran: +1, -1, or 0 */

	/* The last search answered. */
	char *pattern;               /* NULL: none */
	tsr_trace_match mode;
	uint64_t total;
	uint64_t index;              /* the current hit's ordinal; 0: none */
	tsr_trace_found hit;
};

G_DEFINE_FINAL_TYPE(SaSearchBar, sa_search_bar, SA_TYPE_VIEW)


/* --- The job ------------------------------------------------------------------- */

typedef struct search_job {
	char *pattern;
	tsr_trace_match mode;
	gboolean count;              /* a new search: count, then the first hit */
	gboolean forward;
	gboolean has_from;
	tsr_trace_found from;
	uint64_t total;
} search_job;

typedef struct search_answer {
	gboolean count, forward;     /* the job's */
	uint64_t total;
	gboolean found, wrapped;
	tsr_trace_found hit;
} search_answer;

static void search_job_free(search_job *job)
{
	g_free(job->pattern);
	g_free(job);
}

/* On the worker: the count when asked, then the step (wrapping once). */
static gpointer run_search(tsr_trace *trace, gpointer data, GCancellable *cancellable,
                           GError **error)
{
	search_job *job = data;
	search_answer *a = g_new0(search_answer, 1);
	size_t names = 0;
	int rc = TSR_OK;

	a->count = job->count;
	a->forward = job->forward;
	a->total = job->total;
	if (job->count)
		rc = sa_search_count(&a->total, &names, trace, job->pattern, job->mode);
	if (rc == TSR_OK && a->total > 0)
		rc = sa_search_step(&a->hit, &a->found, trace, job->pattern, job->mode,
		                    job->has_from ? &job->from : NULL, job->forward, a->total);
	if (rc == TSR_OK && a->total > 0 && !a->found && job->has_from) {
		a->wrapped = TRUE;
		rc = sa_search_step(&a->hit, &a->found, trace, job->pattern, job->mode, NULL,
		                    job->forward, a->total);
	}
	if (rc != TSR_OK) {
		tsd_load_set_error(error, rc, tsr_trace_error(trace));
		g_free(a);
		return NULL;
	}
	return a;
}

/* --- Showing what was found ----------------------------------------------------- */

static void set_status(SaSearchBar *self, const char *text, gboolean error)
{
	gtk_label_set_text(self->status, text);
	gtk_widget_set_tooltip_text(GTK_WIDGET(self->status), error ? text : NULL);
	if (error)
		gtk_widget_add_css_class(GTK_WIDGET(self->status), "error");
	else
		gtk_widget_remove_css_class(GTK_WIDGET(self->status), "error");
	gtk_accessible_update_property(GTK_ACCESSIBLE(self->entry),
	                               GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, text, -1);
}

static void show_count(SaSearchBar *self)
{
	g_autofree char *i = sa_format_count(self->index);
	g_autofree char *n = sa_format_count(self->total);
	g_autofree char *text = NULL;

	if (!self->pattern)
		text = g_strdup("");
	else if (self->total == 0)
		text = g_strdup("No matches");
	else if (self->index == 0)
		text = g_strdup_printf("%s hits", n);
	else
		text = g_strdup_printf("%s of %s", i, n);
	set_status(self, text, FALSE);
	gtk_widget_set_sensitive(GTK_WIDGET(self->prev_button), self->total > 0);
	gtk_widget_set_sensitive(GTK_WIDGET(self->next_button), self->total > 0);
}

static tsr_trace_match current_mode(SaSearchBar *self)
{
	gboolean regex = gtk_toggle_button_get_active(self->regex_toggle);
	gboolean icase = !gtk_toggle_button_get_active(self->case_toggle);

	return regex ? (icase ? TSR_TRACE_MATCH_REGEX_ICASE : TSR_TRACE_MATCH_REGEX)
	             : (icase ? TSR_TRACE_MATCH_SUBSTRING_ICASE : TSR_TRACE_MATCH_SUBSTRING);
}

static void run_step(SaSearchBar *self, gboolean forward);

static void on_search_done(GObject *source, GAsyncResult *result, gpointer data)
{
	SaSearchBar *self = data;
	g_autoptr(GError) error = NULL;
	search_answer *a = sa_document_run_finish(result, &error);
	int queued;

	if (g_task_get_cancellable(G_TASK(result)) != self->cancellable) {
		g_free(a);
		g_object_unref(self);
		return;
	}
	g_clear_object(&self->cancellable);
	if (!a) {
		self->total = self->index = 0;
		self->queued = 0;
		if (g_error_matches(error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
			show_count(self);
		else
			set_status(self, error->message, TRUE);
		gtk_widget_set_sensitive(GTK_WIDGET(self->prev_button), FALSE);
		gtk_widget_set_sensitive(GTK_WIDGET(self->next_button), FALSE);
		g_object_unref(self);
		return;
	}
	self->total = a->total;
	if (!a->found)
		self->index = 0;
	else if (a->count || (a->wrapped && a->forward))
		self->index = a->forward ? 1 : a->total;
	else if (a->wrapped)
		self->index = a->total;
	else if (a->forward)
		self->index = self->index ? MIN(self->index + 1, a->total) : 1;
	else
		self->index = self->index > 1 ? self->index - 1 : 1;
	if (a->found)
		self->hit = a->hit;
	show_count(self);
	queued = self->queued;
	self->queued = 0;
	/* The hit selected: the timeline zooms to it (sa-window.c). */
	if (a->found && sa_view_get_session(SA_VIEW(self)))
		sa_session_set_selection(sa_view_get_session(SA_VIEW(self)), a->hit.thread,
		                         &a->hit.event);
	g_free(a);
	if (queued && self->index)
		run_step(self, queued > 0);
	g_object_unref(self);
}

/* Starts a job for the last search's pattern and mode in a worker,
 * cancelling the query running: a new search (`count`), or a step. */
static void start_job(SaSearchBar *self, gboolean count, gboolean forward)
{
	search_job *job = g_new0(search_job, 1);

	job->pattern = g_strdup(self->pattern);
	job->mode = self->mode;
	job->count = count;
	job->forward = forward;
	job->total = self->total;
	job->has_from = self->index > 0;
	job->from = self->hit;
	tsd_cancel_clear(&self->cancellable);
	self->cancellable = g_cancellable_new();
	sa_document_run_async(self->doc, run_search, job, (GDestroyNotify)search_job_free, g_free,
	                      self->cancellable, on_search_done, g_object_ref(self));
}

/* A new search of the entry's text (typing, a toggle). */
static void run_search_of_entry(SaSearchBar *self)
{
	const char *text = gtk_editable_get_text(GTK_EDITABLE(self->entry));

	tsd_cancel_clear(&self->cancellable);
	g_clear_pointer(&self->pattern, g_free);
	self->total = self->index = 0;
	self->queued = 0;
	if (!self->doc || !*text) {
		show_count(self);
		return;
	}
	self->pattern = g_strdup(text);
	self->mode = current_mode(self);
	set_status(self, "Searching…", FALSE);
	start_job(self, TRUE, TRUE);
}

/* The hit after or before the current one. */
static void run_step(SaSearchBar *self, gboolean forward)
{
	if (!self->doc || !self->pattern)
		return;
	if (self->cancellable) {
		/* Wait for the query running; remember one step. */
		self->queued = forward ? 1 : -1;
		return;
	}
	if (self->total == 0)
		return;
	start_job(self, FALSE, forward);
}

/* --- Public ---------------------------------------------------------------------- */

/* The session's document changed: the search runs again on it. */
static void update(SaView *view, SaSession *session)
{
	SaSearchBar *self = SA_SEARCH_BAR(view);
	SaDocument *doc = session ? sa_session_get_document(session) : NULL;

	tsd_cancel_clear(&self->cancellable);
	g_clear_pointer(&self->doc, sa_document_unref);
	if (doc)
		self->doc = sa_document_ref(doc);
	run_search_of_entry(self);
}

void sa_search_bar_start(SaSearchBar *self)
{
	g_return_if_fail(SA_IS_SEARCH_BAR(self));
	gtk_search_bar_set_search_mode(self->bar, TRUE);
	gtk_widget_grab_focus(GTK_WIDGET(self->entry));
	gtk_editable_select_region(GTK_EDITABLE(self->entry), 0, -1);
}

void sa_search_bar_stop(SaSearchBar *self)
{
	g_return_if_fail(SA_IS_SEARCH_BAR(self));
	gtk_search_bar_set_search_mode(self->bar, FALSE);
}

void sa_search_bar_step(SaSearchBar *self, gboolean forward)
{
	g_return_if_fail(SA_IS_SEARCH_BAR(self));
	if (!gtk_search_bar_get_search_mode(self->bar) || !self->pattern) {
		sa_search_bar_start(self);
		return;
	}
	run_step(self, forward);
}

/* --- Signals from the template --------------------------------------------------- */

/* The template connects these swapped: the bar first, the emitter's
 * arguments after it unread. */
static void step_next(SaSearchBar *self)
{
	run_step(self, TRUE);
}

static void step_previous(SaSearchBar *self)
{
	run_step(self, FALSE);
}

/* Shift+Enter in the entry: the previous hit (Enter is "activate"). */
static gboolean on_entry_key(GtkEventControllerKey *ctl, guint keyval, guint keycode,
                             GdkModifierType state, gpointer data)
{
	if ((keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter) &&
	    (state & GDK_SHIFT_MASK)) {
		run_step(SA_SEARCH_BAR(data), FALSE);
		return TRUE;
	}
	return FALSE;
}

/* --- GObject --------------------------------------------------------------------- */

static void sa_search_bar_dispose(GObject *object)
{
	SaSearchBar *self = SA_SEARCH_BAR(object);

	tsd_cancel_clear(&self->cancellable);
	g_clear_pointer(&self->doc, sa_document_unref);
	gtk_widget_dispose_template(GTK_WIDGET(self), SA_TYPE_SEARCH_BAR);
	G_OBJECT_CLASS(sa_search_bar_parent_class)->dispose(object);
}

static void sa_search_bar_finalize(GObject *object)
{
	SaSearchBar *self = SA_SEARCH_BAR(object);

	g_free(self->pattern);
	G_OBJECT_CLASS(sa_search_bar_parent_class)->finalize(object);
}

static void sa_search_bar_class_init(SaSearchBarClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = sa_search_bar_dispose;
	G_OBJECT_CLASS(klass)->finalize = sa_search_bar_finalize;
	SA_VIEW_CLASS(klass)->watch = SA_VIEW_WATCH_DOCUMENT;
	SA_VIEW_CLASS(klass)->update = update;
	gtk_widget_class_set_layout_manager_type(widget_class, GTK_TYPE_BIN_LAYOUT);
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/SystemAnalyser/sa-search.ui");
	gtk_widget_class_bind_template_child(widget_class, SaSearchBar, bar);
	gtk_widget_class_bind_template_child(widget_class, SaSearchBar, entry);
	gtk_widget_class_bind_template_child(widget_class, SaSearchBar, regex_toggle);
	gtk_widget_class_bind_template_child(widget_class, SaSearchBar, case_toggle);
	gtk_widget_class_bind_template_child(widget_class, SaSearchBar, status);
	gtk_widget_class_bind_template_child(widget_class, SaSearchBar, prev_button);
	gtk_widget_class_bind_template_child(widget_class, SaSearchBar, next_button);
	gtk_widget_class_bind_template_callback(widget_class, run_search_of_entry);
	gtk_widget_class_bind_template_callback(widget_class, step_next);
	gtk_widget_class_bind_template_callback(widget_class, step_previous);
	gtk_widget_class_bind_template_callback(widget_class, sa_search_bar_stop);
	gtk_widget_class_bind_template_callback(widget_class, on_entry_key);
}

static void sa_search_bar_init(SaSearchBar *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	gtk_search_bar_connect_entry(self->bar, GTK_EDITABLE(self->entry));
	tsd_a11y_name_close_button(GTK_WIDGET(self->bar));
	tsd_a11y_quiet_when_empty(self->status);
	show_count(self);
}
