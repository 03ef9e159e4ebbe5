/*
 * The System Analyser's search bar (an SaView on the session's document):
 * a search entry (accessible name "Search") over the names of the trace's
 * spans, by substring or POSIX regular expression, with or without case,
 * the count of hits ("12 of 3,456"), and Previous / Next. Typing counts
 * the hits and finds the first; Next and Previous (the buttons, Enter /
 * Shift+Enter in the entry, sa_search_bar_step for F3 / Shift+F3) find
 * the following or preceding hit in time order, wrapping at the ends. All
 * queries run in a worker on the document's second handle
 * (sa-search-job.h); a bad expression is a message in the bar. Each hit
 * found becomes the session's selected span; the window zooms the
 * timeline to it.
 *
 * The entry's accessible description is the count shown ("12 of 3,456",
 * "No matches", or the error), so assistive technology and the tests
 * read it where they type.
 */
#pragma once

#include "sa-view.h"

G_BEGIN_DECLS

#define SA_TYPE_SEARCH_BAR (sa_search_bar_get_type())
G_DECLARE_FINAL_TYPE(SaSearchBar, sa_search_bar, SA, SEARCH_BAR, SaView)

/* Shows the bar and puts the focus in its entry (Ctrl+F). */
void sa_search_bar_start(SaSearchBar *self);
/* Hides the bar (Escape in the entry). */
void sa_search_bar_stop(SaSearchBar *self);
/* Finds the next (`forward`) or previous hit; starts the bar when hidden
 * or empty. */
void sa_search_bar_step(SaSearchBar *self, gboolean forward);

G_END_DECLS
