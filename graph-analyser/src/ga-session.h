/*
 * What the user is looking at, shared by every view of a window (the
 * view-state object of ../shared/DESIGN.md): the open document, the
 * selected tiles, the IPU filter and the selected variable. Views bind to
 * its properties, so a selection made in one view is the selection in
 * every other.
 */
#pragma once

#include "ga-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_SESSION (ga_session_get_type())
G_DECLARE_FINAL_TYPE(GaSession, ga_session, GA, SESSION, GObject)

GaSession *ga_session_new(void);

/* The document (NULL before one is open). Setting it clears the
 * selections. Properties: "document". */
GaDocument *ga_session_get_document(GaSession *self);
void ga_session_set_document(GaSession *self, GaDocument *doc);

/* The selected tiles (tile numbers of one replica), never NULL; borrowed.
 * Setting takes a copy; "selected-tiles" is notified when it changes. */
GtkBitset *ga_session_get_selected_tiles(GaSession *self);
void ga_session_set_selected_tiles(GaSession *self, GtkBitset *tiles);

/* The IPU the views show (-1: all). Property "ipu". */
int ga_session_get_ipu(GaSession *self);
void ga_session_set_ipu(GaSession *self, int ipu);

/* The selected variable's index (tsr_report_get_variables), -1: none.
 * Property "variable". */
gint64 ga_session_get_variable(GaSession *self);
void ga_session_set_variable(GaSession *self, gint64 variable);

/* Parses a tile list such as "0-15, 52" against `num_tiles`: a new bitset,
 * or NULL with *error saying what is wrong ("tile 6000 is past the last
 * tile, 5887"). */
GtkBitset *ga_parse_tile_list(const char *text, guint num_tiles, GError **error);
/* The list form of `tiles` ("0-15, 52"), for an entry. */
char *ga_format_tile_list(GtkBitset *tiles);

G_END_DECLS
