/*
 * Emptying a container: views refill their details, sections and menus
 * from scratch, and GTK 4.8 has no gtk_box_remove_all.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Removes every child of `parent`, a GtkBox or a GtkGrid (each takes a
 * child away by unparenting it, as gtk_box_remove and gtk_grid_remove do). */
static inline void tsd_widget_remove_children(GtkWidget *parent)
{
	GtkWidget *child;

	while ((child = gtk_widget_get_first_child(parent)))
		gtk_widget_unparent(child);
}

G_END_DECLS
