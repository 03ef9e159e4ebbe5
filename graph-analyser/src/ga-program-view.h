/*
 * The Program Tree view: the engine's control programs ("Program 0" ...)
 * and the functions as a collapsible tree (children made when a row is
 * expanded; a Call's function body below the Call), with each program's
 * type, compute set or exchange and its cycles in the latest run that ran
 * it. A regular-expression search over names, types, compute sets and exchanges finds programs
 * in collapsed rows, expands the path to them and selects them; beside
 * the tree, the selected program's details (compute set with its vertices
 * by type, exchange bytes and cycles, repeat count, code bytes, cycles in
 * each run, children).
 */
#pragma once

#include "ga-view.h"

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define GA_TYPE_PROGRAM_VIEW (ga_program_view_get_type())
G_DECLARE_FINAL_TYPE(GaProgramView, ga_program_view, GA, PROGRAM_VIEW, GaView)

/* A view following `session`'s document. */
GtkWidget *ga_program_view_new(GaSession *session);

G_END_DECLS
