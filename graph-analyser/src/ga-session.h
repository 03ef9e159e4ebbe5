/*
 * What the user is looking at, shared by every view of a window (the
 * view-state object of ../shared/DESIGN.md): the open document (and the
 * one it is compared with), the selected tiles, the IPU filter, the
 * selected variable, program and execution step; and a history store. Views bind to its
 * properties, so a selection made in one view is the selection in every
 * other.
 */
#pragma once

#include "ga-document.h"
#include "ga-history.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_SESSION (ga_session_get_type())
G_DECLARE_FINAL_TYPE(GaSession, ga_session, GA, SESSION, GObject)

GaSession *ga_session_new(void);

/* The document (NULL before one is open). Setting it clears the
 * selections and ends a comparison. Property "document". */
GaDocument *ga_session_get_document(GaSession *self);
void ga_session_set_document(GaSession *self, GaDocument *doc);

/* Compare mode: `doc` is report A (the base, as `tilescope diff BASE NEW`
 * takes it) and `compare` report B; `compare` NULL ends a comparison.
 * "compare-document" is notified before "document", so a view that
 * rebuilds on "document" finds both. Selections (tiles, variable,
 * program, step) are indices into report A. */
void ga_session_set_documents(GaSession *self, GaDocument *doc, GaDocument *compare);
/* Report B of a comparison, or NULL. Property "compare-document". */
GaDocument *ga_session_get_compare_document(GaSession *self);

/* The history store open beside the document (NULL: none); a report
 * opened from it leaves it open. Property "history". */
GaHistory *ga_session_get_history(GaSession *self);
void ga_session_set_history(GaSession *self, GaHistory *history);

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

/* The selected program's id (tsr_report_get_programs index), -1: none.
 * Property "program". */
gint64 ga_session_get_program(GaSession *self);
void ga_session_set_program(GaSession *self, gint64 program);

/* The selected execution step: a run (tsr_report_get_runs index) and a
 * step of it (tsr_report_get_steps index), or -1 for either. The run
 * alone (step -1) is the run the Execution Trace shows. Set together;
 * property "step" is notified when either changes ("run" is readable). */
void ga_session_get_step(GaSession *self, gint64 *run, gint64 *step);
void ga_session_set_step(GaSession *self, gint64 run, gint64 step);

/* Parses a tile list such as "0-15, 52" against `num_tiles`: a new bitset,
 * or NULL with *error saying what is wrong ("tile 6000 is past the last
 * tile, 5887"). */
GtkBitset *ga_parse_tile_list(const char *text, guint num_tiles, GError **error);
/* The list form of `tiles` ("0-15, 52"), for an entry. */
char *ga_format_tile_list(GtkBitset *tiles);

G_END_DECLS
