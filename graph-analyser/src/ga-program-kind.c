/*
 * Program kinds and their colours (ga-program-kind.h). A kind's colour is
 * its name's by the chart kit's one rule (tsc-palette.h): GNOME's palette
 * at a middle lightness (blue 3, orange 3, purple 2, dark 1), saturated
 * enough to tell apart, not so light that they vanish on Adwaita's light
 * background nor so dark on its dark one, the same in both.
 */
#include "ga-program-kind.h"

#include <string.h>
#include <tilescope/tsc-palette.h>

static const char *const names[GA_PROGRAM_KIND_COUNT] = {"Compute", "Exchange", "Sync",
                                                         "Control"};

ga_program_kind ga_program_kind_of_type(tsr_program_type type)
{
	switch (type) {
	case TSR_PROGRAM_ON_TILE_EXECUTE:
		return GA_PROGRAM_COMPUTE;
	case TSR_PROGRAM_DO_EXCHANGE:
	case TSR_PROGRAM_GLOBAL_EXCHANGE:
	case TSR_PROGRAM_STREAM_COPY:
		return GA_PROGRAM_EXCHANGE;
	case TSR_PROGRAM_SYNC:
		return GA_PROGRAM_SYNC;
	default:
		return GA_PROGRAM_CONTROL;
	}
}

const char *ga_program_type_tag(tsr_program_type type)
{
	const char *tag = tsr_program_type_name(type);

	return tag ? tag : "?";
}

ga_program_kind ga_program_kind_of_step(tsr_step_type type)
{
	switch (type) {
	case TSR_STEP_ON_TILE_EXECUTE:
	case TSR_STEP_COPY_SHARED_STRUCTURE:
		return GA_PROGRAM_COMPUTE;
	case TSR_STEP_DO_EXCHANGE:
	case TSR_STEP_GLOBAL_EXCHANGE:
	case TSR_STEP_STREAM_COPY:
		return GA_PROGRAM_EXCHANGE;
	case TSR_STEP_SYNC:
		return GA_PROGRAM_SYNC;
	default:
		return GA_PROGRAM_CONTROL;
	}
}

const GdkRGBA *ga_program_kind_colour(ga_program_kind kind)
{
	return tsc_palette_colour(ga_program_kind_name(kind), FALSE);
}

const char *ga_program_kind_name(ga_program_kind kind)
{
	return names[kind < GA_PROGRAM_KIND_COUNT ? kind : GA_PROGRAM_CONTROL];
}

/* --- The mark ---------------------------------------------------------------------- */

static void draw_mark(GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer data)
{
	ga_program_kind kind =
	    (ga_program_kind)GPOINTER_TO_INT(g_object_get_data(G_OBJECT(area), "ga-kind"));
	double side = MIN(width, height) * 0.8;
	const GdkRGBA *c = ga_program_kind_colour(kind);

	(void)data;
	gdk_cairo_set_source_rgba(cr, c);
	cairo_rectangle(cr, (width - side) / 2, (height - side) / 2, side, side);
	cairo_fill_preserve(cr);
	/* A darker edge keeps the mark visible on a selected row, whose accent
	 * colour compute shares. */
	cairo_set_source_rgba(cr, c->red * 0.6, c->green * 0.6, c->blue * 0.6, 1);
	cairo_set_line_width(cr, 1.5);
	cairo_stroke(cr);
}

GtkWidget *ga_program_mark_new(void)
{
	GtkWidget *mark = gtk_drawing_area_new();

	gtk_drawing_area_set_content_width(GTK_DRAWING_AREA(mark), 10);
	gtk_drawing_area_set_content_height(GTK_DRAWING_AREA(mark), 10);
	gtk_widget_set_valign(mark, GTK_ALIGN_CENTER);
	gtk_drawing_area_set_draw_func(GTK_DRAWING_AREA(mark), draw_mark, NULL, NULL);
	/* The type's name follows as text: the mark is decoration. */
	gtk_accessible_update_state(GTK_ACCESSIBLE(mark), GTK_ACCESSIBLE_STATE_HIDDEN, TRUE, -1);
	return mark;
}

void ga_program_mark_set_kind(GtkWidget *mark, ga_program_kind kind)
{
	g_object_set_data(G_OBJECT(mark), "ga-kind", GINT_TO_POINTER((int)kind));
	gtk_widget_queue_draw(mark);
}
