/*
 * The Memory view: memory per tile over every tile of every IPU, stacked
 * by region, by category or by liveness (always live or not), with
 * Include Gaps, the tile's capacity as a
 * limit line, an IPU filter and software or physical tile order; the
 * tile map of each IPU; tile selection by click, shift-click, rubber
 * band or a typed list ("0-15, 52"); and what the selected tiles hold.
 */
#pragma once

#include "ga-view.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_MEMORY_VIEW (ga_memory_view_get_type())
G_DECLARE_FINAL_TYPE(GaMemoryView, ga_memory_view, GA, MEMORY_VIEW, GaView)

GtkWidget *ga_memory_view_new(GaSession *session);

G_END_DECLS
