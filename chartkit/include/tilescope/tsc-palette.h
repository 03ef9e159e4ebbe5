/*
 * The one rule that gives a name its colour, in every view of both apps:
 * a span or label of a trace, a program kind ("Compute"), a memory
 * category ("vertexCode"), a region or a liveness class. It depends on the
 * name's text only, never on an id, an order or what else is drawn, so a
 * span keeps its colour between a .pvti and its own Chrome export, and a
 * category keeps its colour in every chart and in compare mode.
 *
 * The names the apps draw side by side from a fixed vocabulary (program
 * kinds, memory categories, regions, liveness) have colours of their own,
 * distinct from each other and the same in light and dark themes. Every
 * other name is hashed (FNV-1a of its text) into a palette of pale
 * colours for a light theme and deep ones for a dark theme, each carrying
 * text in the theme's own text colour.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* How many colours hashed names share. */
#define TSC_PALETTE_HASHED 10

/* The colour of `name` (NULL: the colour of ""), for a dark theme when
 * `dark`. Borrowed, static: valid for the program's life. */
const GdkRGBA *tsc_palette_colour(const char *name, gboolean dark);
/* Which colour `name` gets: 0 .. TSC_PALETTE_HASHED - 1 for a hashed name
 * (its FNV-1a hash, of at most the first 256 bytes, modulo the palette),
 * TSC_PALETTE_HASHED + i for the i-th name of the fixed vocabulary. */
guint tsc_palette_slot(const char *name);
/* Black or white text, whichever reads on `bg`. */
GdkRGBA tsc_palette_ink(const GdkRGBA *bg);

G_END_DECLS
