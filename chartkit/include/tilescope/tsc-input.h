/*
 * The event controllers a chart-like widget wires up: pointer motion,
 * scrolling, a drag gesture, keys and focus. The chart, the heat map and
 * the apps' own timelines all take their input through the same five
 * controllers, added in the same order; this adds them from a table of
 * handlers so each widget lists only what it handles.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/*
 * The handlers of one widget, each connected with `user_data` (else the
 * widget) as its user data; a NULL handler is not connected, and a
 * controller none of whose handlers is set is not added.
 */
typedef struct TscInputHandlers {
	GCallback enter;        /* GtkEventControllerMotion::enter */
	GCallback motion;       /* GtkEventControllerMotion::motion */
	GCallback leave;        /* GtkEventControllerMotion::leave */
	GCallback scroll;       /* GtkEventControllerScroll::scroll */
	GtkEventControllerScrollFlags scroll_flags;
	GCallback drag_begin;   /* GtkGestureDrag::drag-begin */
	GCallback drag_update;  /* GtkGestureDrag::drag-update */
	GCallback drag_end;     /* GtkGestureDrag::drag-end */
	guint drag_button;      /* 0: any button */
	GCallback key_pressed;  /* GtkEventControllerKey::key-pressed */
	GCallback focus_change; /* GtkEventControllerFocus::enter and ::leave */
	gpointer user_data;     /* what the handlers get (NULL: the widget) */
} TscInputHandlers;

/* Adds to `widget` the motion, scroll, drag, key and focus controllers
 * (in that order) that `handlers` names. */
void tsc_widget_add_input(GtkWidget *widget, const TscInputHandlers *handlers);

/* A handler that only redraws `widget`: for focus_change when the widget
 * draws its own focus mark. */
void tsc_redraw_cb(GtkEventController *controller, GtkWidget *widget);

G_END_DECLS
