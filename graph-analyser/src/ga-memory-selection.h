/*
 * What the selected tiles hold (the lower half of the Memory view):
 * Details (bytes by region and category, and gaps; several tiles side by
 * side with their total) and Variables (every variable with bytes on the
 * selection, sortable and searchable: bytes there and in all, category,
 * always live or not, lifetime in liveness steps), Vertices (vertex and
 * code bytes by vertex type and compute set) and Exchanges (bytes received
 * and sent by each exchange). The variables are
 * found in a worker on a handle of its own, so a large selection never
 * blocks the window; a new selection cancels the search before it.
 */
#pragma once

#include "ga-session.h"
#include "ga-tile-layout.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_MEMORY_SELECTION (ga_memory_selection_get_type())
G_DECLARE_FINAL_TYPE(GaMemorySelection, ga_memory_selection, GA, MEMORY_SELECTION, GtkWidget)

GaMemorySelection *ga_memory_selection_new(GaSession *session);
void ga_memory_selection_set_document(GaMemorySelection *self, GaDocument *doc,
                                      const ga_tile_layout *layout);
void ga_memory_selection_set_tiles(GaMemorySelection *self, GtkBitset *tiles);

G_END_DECLS
