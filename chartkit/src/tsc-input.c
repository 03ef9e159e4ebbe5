/*
 * Event controllers from a table of handlers (tsc-input.h).
 */
#include <tilescope/tsc-input.h>

/* Connects `handler` to `signal` of `controller` when it is set. */
static void connect_if(gpointer controller, const char *signal, GCallback handler, gpointer data)
{
	if (handler)
		g_signal_connect(controller, signal, handler, data);
}

void tsc_redraw_cb(GtkEventController *controller, GtkWidget *widget)
{
	(void)controller;
	gtk_widget_queue_draw(widget);
}

void tsc_widget_add_input(GtkWidget *widget, const TscInputHandlers *h)
{
	GtkEventController *c;
	GtkGesture *drag;
	gpointer data;

	g_return_if_fail(GTK_IS_WIDGET(widget) && h);
	data = h->user_data ? h->user_data : widget;
	if (h->enter || h->motion || h->leave) {
		c = gtk_event_controller_motion_new();
		connect_if(c, "enter", h->enter, data);
		connect_if(c, "motion", h->motion, data);
		connect_if(c, "leave", h->leave, data);
		gtk_widget_add_controller(widget, c);
	}
	if (h->scroll) {
		c = gtk_event_controller_scroll_new(h->scroll_flags);
		g_signal_connect(c, "scroll", h->scroll, data);
		gtk_widget_add_controller(widget, c);
	}
	if (h->drag_begin || h->drag_update || h->drag_end) {
		drag = gtk_gesture_drag_new();
		gtk_gesture_single_set_button(GTK_GESTURE_SINGLE(drag), h->drag_button);
		connect_if(drag, "drag-begin", h->drag_begin, data);
		connect_if(drag, "drag-update", h->drag_update, data);
		connect_if(drag, "drag-end", h->drag_end, data);
		gtk_widget_add_controller(widget, GTK_EVENT_CONTROLLER(drag));
	}
	if (h->key_pressed) {
		c = gtk_event_controller_key_new();
		g_signal_connect(c, "key-pressed", h->key_pressed, data);
		gtk_widget_add_controller(widget, c);
	}
	if (h->focus_change) {
		c = gtk_event_controller_focus_new();
		g_signal_connect(c, "enter", h->focus_change, data);
		g_signal_connect(c, "leave", h->focus_change, data);
		gtk_widget_add_controller(widget, c);
	}
}
