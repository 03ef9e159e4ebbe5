/*
 * The overview strip (an SaView): the whole trace at a glance (every thread's busy
 * fraction per pixel column) with the session's visible window drawn
 * over it. A click centres the window there, a drag moves it; with the
 * keyboard, Left/Right (or A/D) move it by a fifth, Page Up/Down by its
 * width, Home/End to the trace's ends.
 *
 * Accessible: a slider named "Overview" whose value text and description
 * are the visible window ("Window 1.000000 ms – 2.000000 ms of
 * 12.000000 ms").
 */
#pragma once

#include "sa-view.h"

G_BEGIN_DECLS

#define SA_TYPE_OVERVIEW (sa_overview_get_type())
G_DECLARE_FINAL_TYPE(SaOverview, sa_overview, SA, OVERVIEW, SaView)

GtkWidget *sa_overview_new(void);

G_END_DECLS
