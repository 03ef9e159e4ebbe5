/*
 * Stopping background work: every view that restarts a search, a load or
 * an index cancels the one in flight and forgets it the same way.
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Cancels *cancellable when it is set and drops the reference, leaving
 * NULL: the work it watched finishes as cancelled. */
static inline void tsd_cancel_clear(GCancellable **cancellable)
{
	if (*cancellable)
		g_cancellable_cancel(*cancellable);
	g_clear_object(cancellable);
}

G_END_DECLS
