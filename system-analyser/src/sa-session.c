/*
 * The System Analyser's session (sa-session.h): plain state with GObject
 * properties. A setter notifies only what changed, and the derived window
 * ("window-from", "window-to") only when it moves, so that a view which
 * recomputes on it does so once per change the user makes.
 */
#include "sa-session.h"

#include <string.h>

G_DEFINE_BOXED_TYPE(sa_span_ref, sa_span_ref, sa_span_ref_copy, sa_span_ref_free)

sa_span_ref *sa_span_ref_copy(const sa_span_ref *ref)
{
	return g_memdup2(ref, sizeof(*ref));
}

void sa_span_ref_free(sa_span_ref *ref)
{
	g_free(ref);
}

struct _SaSession {
	GObject parent_instance;
	SaDocument *doc;
	SaDocument *compare_doc;
	int64_t view_from, view_to;     /* ns on the trace's axis */
	int64_t range_from, range_to;   /* 0, 0: nothing marked */
	gboolean has_selection;
	sa_span_ref selection;
	gboolean wall_clock;
	int64_t window_from, window_to; /* derived: see update_window */
};

G_DEFINE_FINAL_TYPE(SaSession, sa_session, G_TYPE_OBJECT)

enum {
	PROP_0,
	PROP_DOCUMENT,
	PROP_COMPARE_DOCUMENT,
	PROP_VIEW_FROM,
	PROP_VIEW_TO,
	PROP_RANGE_FROM,
	PROP_RANGE_TO,
	PROP_SELECTED_SPAN,
	PROP_WALL_CLOCK,
	PROP_WINDOW_FROM,
	PROP_WINDOW_TO,
	N_PROPS
};
static GParamSpec *props[N_PROPS];

/* The marked range, else the selected span's extent (at least 1 ns, as
 * the timeline takes it), else the whole trace. */
static void update_window(SaSession *self)
{
	int64_t from = INT64_MIN, to = INT64_MAX;

	if (self->range_from < self->range_to) {
		from = self->range_from;
		to = self->range_to;
	} else if (self->has_selection) {
		from = self->selection.item.start_ns;
		to = MAX(self->selection.item.end_ns, self->selection.item.start_ns + 1);
	}
	if (from != self->window_from) {
		self->window_from = from;
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_WINDOW_FROM]);
	}
	if (to != self->window_to) {
		self->window_to = to;
		g_object_notify_by_pspec(G_OBJECT(self), props[PROP_WINDOW_TO]);
	}
}

/* Sets *field to `value`, notifying `prop` when it changes. */
static void set_int64(SaSession *self, int64_t *field, int64_t value, int prop)
{
	if (*field == value)
		return;
	*field = value;
	g_object_notify_by_pspec(G_OBJECT(self), props[prop]);
}

static gboolean set_doc(SaSession *self, SaDocument **field, SaDocument *doc, int prop)
{
	if (*field == doc)
		return FALSE;
	g_clear_pointer(field, sa_document_unref);
	*field = doc ? sa_document_ref(doc) : NULL;
	g_object_notify_by_pspec(G_OBJECT(self), props[prop]);
	return TRUE;
}

SaSession *sa_session_new(void)
{
	return g_object_new(SA_TYPE_SESSION, NULL);
}

SaDocument *sa_session_get_document(SaSession *self)
{
	g_return_val_if_fail(SA_IS_SESSION(self), NULL);
	return self->doc;
}

void sa_session_set_document(SaSession *self, SaDocument *doc)
{
	g_return_if_fail(SA_IS_SESSION(self));
	g_object_freeze_notify(G_OBJECT(self));
	/* A new trace starts with nothing chosen in it. */
	sa_session_set_view(self, 0, 0);
	sa_session_set_range(self, 0, 0);
	sa_session_clear_selection(self);
	set_doc(self, &self->doc, doc, PROP_DOCUMENT);
	g_object_thaw_notify(G_OBJECT(self));
}

void sa_session_set_compare_document(SaSession *self, SaDocument *doc)
{
	g_return_if_fail(SA_IS_SESSION(self));
	set_doc(self, &self->compare_doc, doc, PROP_COMPARE_DOCUMENT);
}

void sa_session_get_view(SaSession *self, int64_t *from_ns, int64_t *to_ns)
{
	g_return_if_fail(SA_IS_SESSION(self));
	*from_ns = self->view_from;
	*to_ns = self->view_to;
}

void sa_session_set_view(SaSession *self, int64_t from_ns, int64_t to_ns)
{
	g_return_if_fail(SA_IS_SESSION(self));
	g_object_freeze_notify(G_OBJECT(self));
	set_int64(self, &self->view_from, from_ns, PROP_VIEW_FROM);
	set_int64(self, &self->view_to, to_ns, PROP_VIEW_TO);
	g_object_thaw_notify(G_OBJECT(self));
}

gboolean sa_session_get_range(SaSession *self, int64_t *from_ns, int64_t *to_ns)
{
	g_return_val_if_fail(SA_IS_SESSION(self), FALSE);
	*from_ns = self->range_from;
	*to_ns = self->range_to;
	return self->range_from < self->range_to;
}

void sa_session_set_range(SaSession *self, int64_t from_ns, int64_t to_ns)
{
	g_return_if_fail(SA_IS_SESSION(self));
	if (from_ns >= to_ns)
		from_ns = to_ns = 0;
	g_object_freeze_notify(G_OBJECT(self));
	set_int64(self, &self->range_from, from_ns, PROP_RANGE_FROM);
	set_int64(self, &self->range_to, to_ns, PROP_RANGE_TO);
	update_window(self);
	g_object_thaw_notify(G_OBJECT(self));
}

gboolean sa_session_get_selection(SaSession *self, size_t *thread, tsr_trace_item *span)
{
	g_return_val_if_fail(SA_IS_SESSION(self), FALSE);
	if (!self->has_selection)
		return FALSE;
	*thread = (size_t)self->selection.thread;
	*span = self->selection.item;
	return TRUE;
}

/* Whether two items are the same span (fields compared one by one: the
 * struct has padding). */
static gboolean same_item(const tsr_trace_item *a, const tsr_trace_item *b)
{
	return a->start_ns == b->start_ns && a->end_ns == b->end_ns && a->count == b->count &&
	       a->busy_ns == b->busy_ns && a->seq == b->seq && a->parent == b->parent &&
	       a->name == b->name && a->channel == b->channel && a->depth == b->depth &&
	       a->kind == b->kind;
}

void sa_session_set_selection(SaSession *self, size_t thread, const tsr_trace_item *span)
{
	g_return_if_fail(SA_IS_SESSION(self));
	if (!span) {
		sa_session_clear_selection(self);
		return;
	}
	if (self->has_selection && self->selection.thread == thread &&
	    same_item(&self->selection.item, span))
		return;
	g_object_freeze_notify(G_OBJECT(self));
	self->has_selection = TRUE;
	memset(&self->selection, 0, sizeof(self->selection));
	self->selection.thread = thread;
	self->selection.item = *span;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SELECTED_SPAN]);
	update_window(self);
	g_object_thaw_notify(G_OBJECT(self));
}

void sa_session_clear_selection(SaSession *self)
{
	g_return_if_fail(SA_IS_SESSION(self));
	if (!self->has_selection)
		return;
	g_object_freeze_notify(G_OBJECT(self));
	self->has_selection = FALSE;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_SELECTED_SPAN]);
	update_window(self);
	g_object_thaw_notify(G_OBJECT(self));
}

static void set_wall_clock(SaSession *self, gboolean wall_clock)
{
	if (self->wall_clock == !!wall_clock)
		return;
	self->wall_clock = !!wall_clock;
	g_object_notify_by_pspec(G_OBJECT(self), props[PROP_WALL_CLOCK]);
}

gboolean sa_session_get_window(SaSession *self, int64_t *from_ns, int64_t *to_ns)
{
	g_return_val_if_fail(SA_IS_SESSION(self), FALSE);
	*from_ns = self->window_from;
	*to_ns = self->window_to;
	return self->window_from != INT64_MIN || self->window_to != INT64_MAX;
}

/* --- GObject ------------------------------------------------------------------------ */

static void sa_session_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
	SaSession *self = SA_SESSION(object);

	switch (id) {
	case PROP_DOCUMENT: g_value_set_boxed(value, self->doc); break;
	case PROP_COMPARE_DOCUMENT: g_value_set_boxed(value, self->compare_doc); break;
	case PROP_VIEW_FROM: g_value_set_int64(value, self->view_from); break;
	case PROP_VIEW_TO: g_value_set_int64(value, self->view_to); break;
	case PROP_RANGE_FROM: g_value_set_int64(value, self->range_from); break;
	case PROP_RANGE_TO: g_value_set_int64(value, self->range_to); break;
	case PROP_SELECTED_SPAN:
		g_value_set_boxed(value, self->has_selection ? &self->selection : NULL);
		break;
	case PROP_WALL_CLOCK: g_value_set_boolean(value, self->wall_clock); break;
	case PROP_WINDOW_FROM: g_value_set_int64(value, self->window_from); break;
	case PROP_WINDOW_TO: g_value_set_int64(value, self->window_to); break;
	default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void sa_session_set_property(GObject *object, guint id, const GValue *value,
                                    GParamSpec *pspec)
{
	SaSession *self = SA_SESSION(object);

	switch (id) {
	case PROP_DOCUMENT: sa_session_set_document(self, g_value_get_boxed(value)); break;
	case PROP_COMPARE_DOCUMENT:
		sa_session_set_compare_document(self, g_value_get_boxed(value));
		break;
	case PROP_VIEW_FROM: sa_session_set_view(self, g_value_get_int64(value), self->view_to); break;
	case PROP_VIEW_TO: sa_session_set_view(self, self->view_from, g_value_get_int64(value)); break;
	case PROP_RANGE_FROM:
		sa_session_set_range(self, g_value_get_int64(value), self->range_to);
		break;
	case PROP_RANGE_TO:
		sa_session_set_range(self, self->range_from, g_value_get_int64(value));
		break;
	case PROP_SELECTED_SPAN: {
		const sa_span_ref *ref = g_value_get_boxed(value);

		/* NULL clears it. */
		sa_session_set_selection(self, ref ? (size_t)ref->thread : 0, ref ? &ref->item : NULL);
		break;
	}
	case PROP_WALL_CLOCK: set_wall_clock(self, g_value_get_boolean(value)); break;
	default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
	}
}

static void sa_session_finalize(GObject *object)
{
	SaSession *self = SA_SESSION(object);

	g_clear_pointer(&self->doc, sa_document_unref);
	g_clear_pointer(&self->compare_doc, sa_document_unref);
	G_OBJECT_CLASS(sa_session_parent_class)->finalize(object);
}

static void sa_session_class_init(SaSessionClass *klass)
{
	GObjectClass *object_class = G_OBJECT_CLASS(klass);
	const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;
	const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

	object_class->get_property = sa_session_get_property;
	object_class->set_property = sa_session_set_property;
	object_class->finalize = sa_session_finalize;
	props[PROP_DOCUMENT] = g_param_spec_boxed("document", NULL, NULL, SA_TYPE_DOCUMENT, rw);
	props[PROP_COMPARE_DOCUMENT] =
	    g_param_spec_boxed("compare-document", NULL, NULL, SA_TYPE_DOCUMENT, rw);
	props[PROP_VIEW_FROM] =
	    g_param_spec_int64("view-from", NULL, NULL, INT64_MIN, INT64_MAX, 0, rw);
	props[PROP_VIEW_TO] = g_param_spec_int64("view-to", NULL, NULL, INT64_MIN, INT64_MAX, 0, rw);
	props[PROP_RANGE_FROM] =
	    g_param_spec_int64("range-from", NULL, NULL, INT64_MIN, INT64_MAX, 0, rw);
	props[PROP_RANGE_TO] =
	    g_param_spec_int64("range-to", NULL, NULL, INT64_MIN, INT64_MAX, 0, rw);
	props[PROP_SELECTED_SPAN] =
	    g_param_spec_boxed("selected-span", NULL, NULL, SA_TYPE_SPAN_REF, rw);
	props[PROP_WALL_CLOCK] = g_param_spec_boolean("wall-clock", NULL, NULL, FALSE, rw);
	props[PROP_WINDOW_FROM] =
	    g_param_spec_int64("window-from", NULL, NULL, INT64_MIN, INT64_MAX, INT64_MIN, ro);
	props[PROP_WINDOW_TO] =
	    g_param_spec_int64("window-to", NULL, NULL, INT64_MIN, INT64_MAX, INT64_MAX, ro);
	g_object_class_install_properties(object_class, N_PROPS, props);
}

static void sa_session_init(SaSession *self)
{
	self->window_from = INT64_MIN;
	self->window_to = INT64_MAX;
}
