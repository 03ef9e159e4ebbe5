/*
 * The views of the Graph Analyser, in the sidebar's order. Each view is a
 * widget built on the window's session: it shows the session's document,
 * follows its changes (a reload, another report) and writes the
 * selections it makes back to the session. Views not built yet are not
 * listed.
 */
#pragma once

#include "ga-session.h"

#include <gtk/gtk.h>

typedef struct ga_view_info {
	const char *name;       /* the stack page's name: "summary" */
	const char *title;      /* the sidebar entry and its accessible name: "Summary" */
	GtkWidget *(*create)(GaSession *session);
} ga_view_info;

/* The views, and how many there are. */
const ga_view_info *ga_views(size_t *n);
