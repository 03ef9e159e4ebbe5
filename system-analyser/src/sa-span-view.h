/*
 * The Span tab (an SaView): the session's selected span (clicked in the
 * timeline, found by search): its name, channel, process, thread, start
 * (after the trace's start, and as a UTC date), duration, self time,
 * depth, parent, children and the JSON metadata attached to it. The
 * parent and each child listed are buttons that select that span in the
 * session; children narrower than a thousandth of the span are counted,
 * not listed.
 *
 * Self time, parent, children and metadata are looked up in a worker on
 * the document's second handle (the self time is the span's own node of
 * tsr_trace_call_tree_new, so it is what the statistics count).
 *
 * Accessible: each value is a label right after its field's label
 * ("Name", "Duration", "Self time" ...) and labelled by it.
 */
#pragma once

#include "sa-view.h"

G_BEGIN_DECLS

#define SA_TYPE_SPAN_VIEW (sa_span_view_get_type())
G_DECLARE_FINAL_TYPE(SaSpanView, sa_span_view, SA, SPAN_VIEW, SaView)

G_END_DECLS
