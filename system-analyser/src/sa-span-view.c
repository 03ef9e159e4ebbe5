/*
 * The Span tab (sa-span-view.h): a grid of fields (declared in
 * sa-span-view.ui), filled at once with what the selection carries and
 * then with what a worker looks up.
 */
#include "sa-span-view.h"

#include <tilescope/tsd-a11y.h>
#include <tilescope/tsd-cancel.h>
#include <tilescope/tsd-name.h>
#include <tilescope/tsd-widget.h>

#include "sa-format.h"

#include <stdlib.h>

/* Children listed as buttons at most. */
#define MAX_CHILD_BUTTONS 50

/* The value labels, in the grid's order (sa-span-view.ui). */
typedef enum {
	F_NAME, F_CHANNEL, F_PROCESS, F_THREAD, F_START, F_START_UTC, F_DURATION, F_SELF, F_DEPTH,
	F_METADATA, N_FIELDS
} field;

struct _SaSpanView {
	SaView parent_instance;
	/* From the template. */
	GtkWidget *stack;        /* "empty" or "span" */
	GtkGrid *grid;           /* rows "key | value" */
	GtkWidget *parent_box;   /* the parent's button, or "none" */
	GtkWidget *children_box; /* buttons for the children, and a count */
	GtkLabel *values[N_FIELDS];

	SaDocument *doc;
	size_t thread;
	tsr_trace_item span;
	GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE(SaSpanView, sa_span_view, SA_TYPE_VIEW)


/* --- The worker ------------------------------------------------------------------ */

typedef struct span_query {
	size_t thread;
	tsr_trace_item span;
} span_query;

typedef struct span_details {
	gboolean self_known;
	uint64_t self_ns;
	gboolean has_parent;
	tsr_trace_item parent;
	tsr_trace_item *children;  /* wide enough to list (malloc'd) */
	size_t n_children;
	uint64_t folded;           /* children in narrow runs, not listed */
	gboolean children_known;   /* FALSE: too many spans below it to list them */
	char *metadata;            /* malloc'd JSON, or NULL */
} span_details;

static void span_details_free(span_details *d)
{
	free(d->children);
	free(d->metadata);
	g_free(d);
}

static gpointer run_details(tsr_trace *trace, gpointer data, GCancellable *cancellable,
                            GError **error)
{
	const span_query *q = data;
	span_details *d = g_new0(span_details, 1);
	tsr_trace_call_tree_options o = TSR_TRACE_CALL_TREE_OPTIONS_INIT;
	tsr_trace_call_tree *tree = NULL;
	tsr_trace_item *items = NULL;
	size_t n = 0;
	int64_t end = MAX(q->span.end_ns, q->span.start_ns) + 1;
	uint64_t res = (uint64_t)(end - q->span.start_ns) / 1000;
	int rc;

	/* Self time: the span's own node in the tree of it and what it holds. */
	o.thread = (int64_t)q->thread;
	o.from_ns = q->span.start_ns;
	o.to_ns = end;
	o.span = q->span.seq;
	rc = tsr_trace_call_tree_new(&tree, trace, &o);
	if (rc == TSR_OK && tree->n_roots == 1) {
		d->self_known = TRUE;
		d->self_ns = tree->nodes[0].exclusive_ns;
	}
	tsr_trace_call_tree_free(tree);
	/* The parent: among the spans open at its start. */
	if (rc == TSR_OK && q->span.parent >= 0) {
		rc = tsr_trace_list_events(&items, &n, trace, q->thread, q->span.start_ns,
		                           q->span.start_ns + 1, 0);
		for (size_t i = 0; rc == TSR_OK && i < n; i++) {
			if (items[i].kind == TSR_TRACE_ITEM_EVENT && items[i].seq == q->span.parent) {
				d->parent = items[i];
				d->has_parent = TRUE;
			}
		}
		g_clear_pointer(&items, free);
	}
	/* The children: at a thousandth of its width, the wide ones one by
	 * one and the narrow ones counted in runs. */
	if (rc == TSR_OK) {
		rc = tsr_trace_list_events(&items, &n, trace, q->thread, q->span.start_ns, end,
		                           MAX(res, 1));
		d->children_known = TRUE;
		d->children = calloc(MIN(n, MAX_CHILD_BUTTONS) + 1, sizeof(*d->children));
		for (size_t i = 0; rc == TSR_OK && i < n; i++) {
			const tsr_trace_item *it = &items[i];

			if (it->kind == TSR_TRACE_ITEM_SUMMARY)
				d->children_known = FALSE;
			else if (it->depth != q->span.depth + 1 || it->start_ns < q->span.start_ns ||
			         it->end_ns > end)
				continue;
			else if (it->kind == TSR_TRACE_ITEM_EVENT && it->parent == q->span.seq &&
			         d->n_children < MAX_CHILD_BUTTONS)
				d->children[d->n_children++] = *it;
			else if (it->kind == TSR_TRACE_ITEM_EVENT && it->parent == q->span.seq)
				d->folded++;
			else if (it->kind == TSR_TRACE_ITEM_MERGED)
				d->folded += it->count;
		}
		free(items);
	}
	if (rc == TSR_OK)
		rc = tsr_trace_dup_event_metadata(&d->metadata, trace, q->thread, q->span.seq);
	if (rc != TSR_OK) {
		tsd_load_set_error(error, rc, tsr_trace_error(trace));
		span_details_free(d);
		return NULL;
	}
	return d;
}

/* --- Showing ------------------------------------------------------------------------ */

static void on_span_button(GtkButton *button, gpointer data)
{
	SaSpanView *self = data;
	const tsr_trace_item *it = g_object_get_data(G_OBJECT(button), "span");

	if (it && sa_view_get_session(SA_VIEW(self)))
		sa_session_set_selection(sa_view_get_session(SA_VIEW(self)), self->thread, it);
}

/* A flat button "NAME  1.23 ms" that selects `it`, named `a11y` (with the
 * span's name after it). */
static GtkWidget *span_button(SaSpanView *self, const tsr_trace_item *it, const char *a11y)
{
	/* Cut (tsd_name_cut): a span may have many children, each named with
	 * up to 16 KiB; the whole name is in the tooltip, and in Name once
	 * the button selects the span. */
	const char *full = tsr_trace_get_name(sa_document_get_trace(self->doc), it->name);
	g_autofree char *name = tsd_name_cut(full);
	g_autofree char *dur = sa_format_duration((double)(it->end_ns - it->start_ns));
	g_autofree char *text = g_strdup_printf("%s  (%s)", name, dur);
	g_autofree char *label = g_strdup_printf("%s %s", a11y, name);
	GtkWidget *b = gtk_button_new_with_label(text);

	tsd_widget_set_name_tooltip(b, full);

	gtk_widget_add_css_class(b, "flat");
	gtk_widget_add_css_class(b, "span-link");
	gtk_widget_set_halign(b, GTK_ALIGN_START);
	g_object_set_data_full(G_OBJECT(b), "span", g_memdup2(it, sizeof(*it)), g_free);
	g_signal_connect(b, "clicked", G_CALLBACK(on_span_button), self);
	gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
	return b;
}

static void show_details(SaSpanView *self, const span_details *d)
{
	g_autofree char *self_text = NULL;

	if (d->self_known) {
		g_autofree char *exact = sa_format_ns_exact(d->self_ns);
		g_autofree char *human = sa_format_duration((double)d->self_ns);

		self_text = g_strdup_printf("%s (%s)", human, exact);
	}
	gtk_label_set_text(self->values[F_SELF], self_text ? self_text : "—");
	tsd_widget_remove_children(self->parent_box);
	if (d->has_parent)
		gtk_box_append(GTK_BOX(self->parent_box), span_button(self, &d->parent, "Parent"));
	else
		gtk_box_append(GTK_BOX(self->parent_box),
		               gtk_label_new(self->span.parent >= 0 ? "not found" : "none (outermost)"));
	tsd_widget_remove_children(self->children_box);
	for (size_t i = 0; i < d->n_children; i++)
		gtk_box_append(GTK_BOX(self->children_box),
		               span_button(self, &d->children[i], "Child"));
	if (!d->children_known || d->folded || d->n_children == 0) {
		g_autofree char *n = sa_format_count(d->folded);
		g_autofree char *text =
		    !d->children_known ? g_strdup("too many spans below it to list")
		    : d->folded        ? g_strdup_printf("%s%s narrow or further spans not listed",
		                                         d->n_children ? "and " : "", n)
		                       : g_strdup("none");
		GtkWidget *l = gtk_label_new(text);

		gtk_label_set_xalign(GTK_LABEL(l), 0);
		gtk_widget_add_css_class(l, "dim-label");
		gtk_box_append(GTK_BOX(self->children_box), l);
	}
	gtk_label_set_text(self->values[F_METADATA], d->metadata ? d->metadata : "none");
}

static void on_details_done(GObject *source, GAsyncResult *result, gpointer data)
{
	SaSpanView *self = data;
	g_autoptr(GError) error = NULL;
	span_details *d = sa_document_run_finish(result, &error);

	if (g_task_get_cancellable(G_TASK(result)) != self->cancellable) {
		if (d)
			span_details_free(d);
		g_object_unref(self);
		return;
	}
	g_clear_object(&self->cancellable);
	if (d) {
		show_details(self, d);
		span_details_free(d);
	} else {
		gtk_label_set_text(self->values[F_SELF], error->message);
	}
	g_object_unref(self);
}

/* "2026-11-26 06:12:22.123456789 UTC". */
static char *utc_text(int64_t wall_ns)
{
	int64_t s = wall_ns >= 0 ? wall_ns / 1000000000 : (wall_ns - 999999999) / 1000000000;
	int64_t ns = wall_ns - s * 1000000000;
	g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc(s);
	g_autofree char *day = dt ? g_date_time_format(dt, "%Y-%m-%d %H:%M:%S") : NULL;

	return day ? g_strdup_printf("%s.%09" G_GINT64_FORMAT " UTC", day, ns) : g_strdup("—");
}

/* Shows span `span` (an EVENT; NULL: none) of thread `thread` of `doc`. */
static void show_span(SaSpanView *self, SaDocument *doc, size_t thread,
                      const tsr_trace_item *span)
{
	tsr_trace *trace = doc ? sa_document_get_trace(doc) : NULL;
	const tsr_trace_thread *threads = NULL;
	const tsr_trace_process *procs = NULL;
	const tsr_trace_channel *channels = NULL;
	size_t n_threads = 0, n_procs = 0, n_channels = 0;
	const tsr_trace_info *info;
	const char *name;
	span_query *q;

	tsd_cancel_clear(&self->cancellable);
	g_clear_pointer(&self->doc, sa_document_unref);
	if (!trace || !span || span->kind != TSR_TRACE_ITEM_EVENT ||
	    tsr_trace_get_threads(&threads, &n_threads, trace) != TSR_OK || thread >= n_threads ||
	    tsr_trace_get_processes(&procs, &n_procs, trace) != TSR_OK ||
	    tsr_trace_get_channels(&channels, &n_channels, trace) != TSR_OK) {
		gtk_stack_set_visible_child_name(GTK_STACK(self->stack), "empty");
		return;
	}
	self->doc = sa_document_ref(doc);
	self->thread = thread;
	self->span = *span;
	info = tsr_trace_get_info(trace);
	name = tsr_trace_get_name(trace, span->name);
	gtk_label_set_text(self->values[F_NAME], name ? name : "?");
	gtk_label_set_text(self->values[F_CHANNEL],
	                   span->channel < n_channels ? channels[span->channel].name : "?");
	{
		const tsr_trace_thread *th = &threads[thread];
		const tsr_trace_process *p = th->process < n_procs ? &procs[th->process] : NULL;
		g_autofree char *proc = g_strdup_printf("%s (pid %" G_GINT64_FORMAT ")",
		                                        p && p->name ? p->name : "?", p ? p->pid : 0);
		g_autofree char *tname = g_strdup_printf("%s (tid %" G_GINT64_FORMAT ", thread %zu)",
		                                         th->name ? th->name : "?", th->tid, thread);
		g_autofree char *start = sa_format_ms_exact(span->start_ns - info->start_ns);
		g_autofree char *utc = utc_text(info->origin_wall_ns + span->start_ns);
		g_autofree char *exact = sa_format_ns_exact((uint64_t)(span->end_ns - span->start_ns));
		g_autofree char *human = sa_format_duration((double)(span->end_ns - span->start_ns));
		g_autofree char *dur = g_strdup_printf("%s (%s)", human, exact);
		g_autofree char *depth = g_strdup_printf("%u", span->depth);
		g_autofree char *start_text = g_strdup_printf("%s after the trace's start", start);

		gtk_label_set_text(self->values[F_PROCESS], proc);
		gtk_label_set_text(self->values[F_THREAD], tname);
		gtk_label_set_text(self->values[F_START], start_text);
		gtk_label_set_text(self->values[F_START_UTC], utc);
		gtk_label_set_text(self->values[F_DURATION], dur);
		gtk_label_set_text(self->values[F_DEPTH], depth);
	}
	gtk_label_set_text(self->values[F_SELF], "…");
	gtk_label_set_text(self->values[F_METADATA], "…");
	tsd_widget_remove_children(self->parent_box);
	tsd_widget_remove_children(self->children_box);
	gtk_stack_set_visible_child_name(GTK_STACK(self->stack), "span");
	q = g_new(span_query, 1);
	q->thread = thread;
	q->span = *span;
	self->cancellable = g_cancellable_new();
	sa_document_run_async(doc, run_details, q, g_free, (GDestroyNotify)span_details_free,
	                      self->cancellable, on_details_done, g_object_ref(self));
}

/* The session's selection (or document) changed. */
static void update(SaView *view, SaSession *session)
{
	tsr_trace_item span;
	size_t thread;

	if (session && sa_session_get_selection(session, &thread, &span))
		show_span(SA_SPAN_VIEW(view), sa_session_get_document(session), thread, &span);
	else
		show_span(SA_SPAN_VIEW(view), NULL, 0, NULL);
}

/* --- GObject ------------------------------------------------------------------------ */

static void sa_span_view_dispose(GObject *object)
{
	SaSpanView *self = SA_SPAN_VIEW(object);

	tsd_cancel_clear(&self->cancellable);
	g_clear_pointer(&self->doc, sa_document_unref);
	gtk_widget_dispose_template(GTK_WIDGET(self), SA_TYPE_SPAN_VIEW);
	G_OBJECT_CLASS(sa_span_view_parent_class)->dispose(object);
}

static void sa_span_view_class_init(SaSpanViewClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = sa_span_view_dispose;
	SA_VIEW_CLASS(klass)->watch = SA_VIEW_WATCH_DOCUMENT | SA_VIEW_WATCH_SELECTION;
	SA_VIEW_CLASS(klass)->update = update;
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/SystemAnalyser/sa-span-view.ui");
	gtk_widget_class_bind_template_child(widget_class, SaSpanView, stack);
	gtk_widget_class_bind_template_child(widget_class, SaSpanView, grid);
	gtk_widget_class_bind_template_child(widget_class, SaSpanView, parent_box);
	gtk_widget_class_bind_template_child(widget_class, SaSpanView, children_box);
}

static void sa_span_view_init(SaSpanView *self)
{
	int f = 0;

	gtk_widget_init_template(GTK_WIDGET(self));
	/* Each value named by its key, its value in its text and description:
	 * GTK 4.8 would name it "VALUE KEY" through a LABELLED_BY relation. */
	for (int row = 0; row < N_FIELDS + 2; row++) {
		GtkWidget *key = gtk_grid_get_child_at(self->grid, 0, row);
		GtkWidget *value = gtk_grid_get_child_at(self->grid, 1, row);

		tsd_a11y_name_value(value, gtk_label_get_text(GTK_LABEL(key)));
		if (GTK_IS_LABEL(value))
			self->values[f++] = GTK_LABEL(value);
	}
}
