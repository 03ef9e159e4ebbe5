/*
 * Helpers of the chart kit's widget tests: a window holding the widget
 * under test, its render node as its parent draws it, colour-node counts,
 * an offscreen render with the cairo renderer, and a temporary directory
 * per test. The tests need a display (meson runs them under xvfb-run).
 */
#pragma once

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <gtk/gtk.h>

/* Fails the test unless |a - b| <= tol (cmocka 1.1.5 has no double compare). */
#define ck_assert_close(a, b, tol) ck_assert_close_impl((double)(a), (double)(b), (double)(tol), \
                                                        #a, __FILE__, __LINE__)
void ck_assert_close_impl(double a, double b, double tol, const char *expr, const char *file, int line);

/* Initialises GTK or exits 1 with a message (no display). */
void ck_init(void);
/* A new window of width × height holding `child`, shown and allocated. */
GtkWidget *ck_window_new(GtkWidget *child, int width, int height);
/* Runs the main loop until pending work is done. */
void ck_iterate(void);
/* `w`'s render node as its parent draws it (the caller unrefs). */
GskRenderNode *ck_snapshot(GtkWidget *w);
/* Colour nodes in `node`'s tree, of colour `colour` (NULL: all). */
guint ck_count_colour_nodes(GskRenderNode *node, const GdkRGBA *colour);
/* Textures in `node`'s tree; the first one's size in *w, *h (may be NULL). */
guint ck_count_textures(GskRenderNode *node, int *w, int *h);
/* Renders `node` with the cairo renderer at `scale`, from its bounds. */
GdkTexture *ck_render(GskRenderNode *node, int scale);
/* The variance of the texture's pixel luminance (0 for a blank image). */
double ck_pixel_variance(GdkTexture *t);
/* A new temporary directory (g_free the path after ck_rmtree). */
char *ck_mkdtemp(void);
void ck_rmtree(const char *path);
