/*
 * What the user is looking at in one System Analyser window (the
 * view-state object of ../shared/DESIGN.md): the trace shown and the one
 * it is compared with, the visible time window, the marked range, the
 * selected span and whether the ruler says wall-clock time. The window
 * keeps the timeline and the session in step; every other view reads and
 * writes the session through its properties, so a span found by search,
 * chosen in the Span tab or clicked in the timeline is the one selection
 * all of them show.
 *
 * The window the details are about ("window-from", "window-to") follows
 * from the rest: the marked range, else the selected span's extent, else
 * the whole trace (INT64_MIN, INT64_MAX), as sa_timeline_get_range says.
 */
#pragma once

#include "sa-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* A selected span: span `item` (an EVENT) of thread `thread`. */
typedef struct sa_span_ref {
	guint64 thread;
	tsr_trace_item item;
} sa_span_ref;

#define SA_TYPE_SPAN_REF (sa_span_ref_get_type())
GType sa_span_ref_get_type(void) G_GNUC_CONST;
sa_span_ref *sa_span_ref_copy(const sa_span_ref *ref);
void sa_span_ref_free(sa_span_ref *ref);

#define SA_TYPE_SESSION (sa_session_get_type())
G_DECLARE_FINAL_TYPE(SaSession, sa_session, SA, SESSION, GObject)

SaSession *sa_session_new(void);

/* The trace shown (NULL before one is open); setting it clears the view,
 * the marked range and the selection. Property "document". */
SaDocument *sa_session_get_document(SaSession *self);
void sa_session_set_document(SaSession *self, SaDocument *doc);

/* Trace B of a two-trace comparison (NULL: none). Property
 * "compare-document". */
void sa_session_set_compare_document(SaSession *self, SaDocument *doc);

/* The visible window [from_ns, to_ns] on the trace's axis. Properties
 * "view-from" and "view-to", notified together. */
void sa_session_get_view(SaSession *self, int64_t *from_ns, int64_t *to_ns);
void sa_session_set_view(SaSession *self, int64_t from_ns, int64_t to_ns);

/* The marked range [from_ns, to_ns) (from_ns >= to_ns: none, stored as
 * 0, 0); FALSE when nothing is marked. Properties "range-from" and
 * "range-to". */
gboolean sa_session_get_range(SaSession *self, int64_t *from_ns, int64_t *to_ns);
void sa_session_set_range(SaSession *self, int64_t from_ns, int64_t to_ns);

/* The selected span; FALSE (and *span untouched) when none. Setting NULL
 * clears it. Property "selected-span" (an sa_span_ref). */
gboolean sa_session_get_selection(SaSession *self, size_t *thread, tsr_trace_item *span);
void sa_session_set_selection(SaSession *self, size_t thread, const tsr_trace_item *span);
void sa_session_clear_selection(SaSession *self);

/* Property "wall-clock": the ruler in wall-clock time, else relative to
 * the trace's start. */

/* The window the details are about (read-only properties "window-from",
 * "window-to"); FALSE (and the whole trace) when nothing is marked or
 * selected. */
gboolean sa_session_get_window(SaSession *self, int64_t *from_ns, int64_t *to_ns);

G_END_DECLS
