/*
 * The Span tab: the session's selected span (clicked in the timeline,
 * found by search):
 * its name, channel, process, thread, start (after the trace's start,
 * and as a UTC date), duration, self time, depth, parent, children and
 * the JSON metadata attached to it. The parent and each child listed are
 * buttons that select that span in the session; children narrower
 * than a thousandth of the span are counted, not listed.
 *
 * Self time, parent, children and metadata are looked up in a worker on
 * the document's second handle (the self time is the span's own node of
 * tsr_trace_call_tree_new, so it is what the statistics count).
 *
 * Accessible: each value is a label right after its field's label
 * ("Name", "Duration", "Self time" ...) and labelled by it.
 */
#pragma once

#include "sa-session.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SA_TYPE_SPAN_VIEW (sa_span_view_get_type())
G_DECLARE_FINAL_TYPE(SaSpanView, sa_span_view, SA, SPAN_VIEW, GtkWidget)

GtkWidget *sa_span_view_new(void);
/* Shows the selected span of `session` (NULL: none) and selects there
 * the parent or child chosen. Property "session". */
void sa_span_view_set_session(SaSpanView *self, SaSession *session);

G_END_DECLS
