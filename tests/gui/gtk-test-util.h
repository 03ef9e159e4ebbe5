/*
 * Scaffolding shared by the widget-level GTK tests (test-*.c here): a
 * sample report opened into a GaDocument, the main loop run until a state
 * holds with a generous deadline (never a fixed wait), a label found in a
 * widget tree, a window presenting a view. Failures are cmocka's
 * (fail_msg), from the test that called.
 */
#pragma once

#include "ga-document.h"

#include <gtk/gtk.h>

/* The report at `path`, or the test fails with the load error. */
GaDocument *gtu_load_path(const char *path);
/* SAMPLE_REPORTS/`name`/profile.pop, as gtu_load_path. */
GaDocument *gtu_load(const char *name);

/* Runs the main loop until done(data) holds: TRUE, or FALSE after a
 * minute (far beyond what an idle machine needs). */
gboolean gtu_wait(gboolean (*done)(gpointer data), gpointer data);
/* gtu_wait, the test failing with "waited a minute for `what`". */
void gtu_spin_until(gboolean (*done)(gpointer data), gpointer data, const char *what);

/* The first widget below `w` (itself too, depth first) that match(w,
 * data) holds for, or NULL. */
GtkWidget *gtu_find_if(GtkWidget *w, gboolean (*match)(GtkWidget *w, gconstpointer data),
                       gconstpointer data);
/* The first widget below `w` of type `type` (and CSS class `css_class`
 * when not NULL), or NULL. */
GtkWidget *gtu_find(GtkWidget *w, GType type, const char *css_class);
/* A label below `w` reading `text`, or NULL. */
GtkWidget *gtu_find_label(GtkWidget *w, const char *text);

/* A new window holding `child`, presented; of `width` x `height` where
 * those are positive. */
GtkWidget *gtu_window(GtkWidget *child, int width, int height);
