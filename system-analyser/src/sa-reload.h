/*
 * Reload, for the System Analyser's window: a trace still being written
 * grows (its writer flushes into <name>.pvti-wal until it closes, then
 * checkpoints into the file), and a file can be replaced whole (copied
 * over, renamed onto). Every file and directory of the window's document,
 * and each file's -wal beside it, is watched with a GFileMonitor; changes
 * are debounced (a reload starts half a second after the last change, or
 * at most every two seconds while changes keep coming) and the files are
 * loaded again in a worker (sa_document_load_async) while the window goes
 * on showing the old document. The new one replaces it keeping the visible
 * window (or the whole trace, when the whole old trace was in view) and
 * the marked range (sa_window_replace_document). A failed reload (a file
 * gone or half replaced) keeps the old document.
 *
 * Manual reload: reload.now (Ctrl+R). The outcome is a small notice in
 * the header bar, a label whose text starts "Reloaded" or "Reload failed".
 */
#pragma once

#include "sa-document.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef struct _SaReload SaReload;
struct _SaWindow;

/* Installs reload.now, Ctrl+R and the notice (at the end of `header`) on
 * `win`, which must outlive the answer (free it from the window's
 * dispose). */
SaReload *sa_reload_new(struct _SaWindow *win, GtkHeaderBar *header);
/* NULL-safe; stops watching and cancels a reload in progress. */
void sa_reload_free(SaReload *self);
/* Watches the files of `doc`, the window's document now (NULL: none). */
void sa_reload_watch(SaReload *self, SaDocument *doc);

G_END_DECLS
