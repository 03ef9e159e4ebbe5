/*
 * The timeline's input controller (tsc-timeline.h): one mapping of wheel,
 * drags and keys onto a TscViewport, with hooks for what is the app's
 * (clicks, hover, rows that scroll, its own keys). Its controllers are
 * added through tsc_widget_add_input, as every chart's are.
 */
#include <tilescope/tsc-timeline.h>
#include <tilescope/tsc-input.h>

#include <math.h>

/* One widget's controller state, owned by the widget. */
typedef struct TimelineInput {
	const TscTimelineInputHooks *hooks;
	gpointer data;
	GtkWidget *widget;
	double pointer_x;           /* px; where the wheel zooms about */
	gboolean have_pointer;
	gboolean dragging, marking; /* a drag: panning, or (Shift) marking */
	double drag_x, drag_y;      /* px: where it began */
	int64_t drag_from, drag_to; /* the window when it began */
} TimelineInput;

TscTimelineKey tsc_timeline_key_lookup(guint keyval, GdkModifierType state)
{
	if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK))
		return TSC_TIMELINE_KEY_NONE;
	switch (keyval) {
	case GDK_KEY_w: case GDK_KEY_W: case GDK_KEY_plus: case GDK_KEY_equal: case GDK_KEY_KP_Add:
		return TSC_TIMELINE_KEY_ZOOM_IN;
	case GDK_KEY_s: case GDK_KEY_S: case GDK_KEY_minus: case GDK_KEY_KP_Subtract:
		return TSC_TIMELINE_KEY_ZOOM_OUT;
	case GDK_KEY_a: case GDK_KEY_A: case GDK_KEY_Left: case GDK_KEY_KP_Left:
		return TSC_TIMELINE_KEY_LEFT;
	case GDK_KEY_d: case GDK_KEY_D: case GDK_KEY_Right: case GDK_KEY_KP_Right:
		return TSC_TIMELINE_KEY_RIGHT;
	case GDK_KEY_Home: case GDK_KEY_KP_Home:
		return TSC_TIMELINE_KEY_HOME;
	default:
		return TSC_TIMELINE_KEY_NONE;
	}
}

gboolean tsc_timeline_key_apply(TscViewport *vp, TscTimelineKey key)
{
	switch (key) {
	case TSC_TIMELINE_KEY_ZOOM_IN:
		return tsc_viewport_zoom(vp, TSC_TIMELINE_KEY_ZOOM, 0.5);
	case TSC_TIMELINE_KEY_ZOOM_OUT:
		return tsc_viewport_zoom(vp, 1 / TSC_TIMELINE_KEY_ZOOM, 0.5);
	case TSC_TIMELINE_KEY_LEFT:
		return tsc_viewport_pan(vp, -TSC_TIMELINE_KEY_PAN);
	case TSC_TIMELINE_KEY_RIGHT:
		return tsc_viewport_pan(vp, TSC_TIMELINE_KEY_PAN);
	case TSC_TIMELINE_KEY_HOME:
		return tsc_viewport_show_all(vp);
	case TSC_TIMELINE_KEY_NONE:
	default:
		return FALSE;
	}
}

gboolean tsc_timeline_wheel_apply(TscViewport *vp, double dx, double dy, double at)
{
	gboolean changed = FALSE;

	if (dx != 0)
		changed |= tsc_viewport_pan(vp, dx * TSC_TIMELINE_WHEEL_PAN);
	if (dy != 0)
		changed |= tsc_viewport_zoom(vp, pow(TSC_TIMELINE_WHEEL_ZOOM, -dy), at);
	return changed;
}

static void plot_of(TimelineInput *in, double *x0, double *w)
{
	in->hooks->plot(in->data, x0, w);
}

static gboolean on_scroll(GtkEventControllerScroll *ctl, double dx, double dy, gpointer data)
{
	TimelineInput *in = data;
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(ctl));
	TscViewport *vp = in->hooks->viewport(in->data);
	double x0, w, x;

	if (!vp)
		return FALSE;
	/* Shift: the rows scroll (or, with none, the wheel pans). */
	if (mods & GDK_SHIFT_MASK) {
		if (in->hooks->scroll_rows && in->hooks->scroll_rows(in->data, dy))
			return TRUE;
		dx += dy;
		dy = 0;
	}
	plot_of(in, &x0, &w);
	x = in->have_pointer ? in->pointer_x : x0 + w / 2;
	if (tsc_timeline_wheel_apply(vp, dx, dy, tsc_viewport_fraction_at(x0, w, x)))
		in->hooks->view_changed(in->data);
	return TRUE;
}

static void on_motion(GtkEventControllerMotion *ctl, double x, double y, gpointer data)
{
	TimelineInput *in = data;

	(void)ctl;
	in->pointer_x = x;
	in->have_pointer = TRUE;
	if (in->hooks->motion)
		in->hooks->motion(in->data, x, y);
}

static void on_leave(GtkEventControllerMotion *ctl, gpointer data)
{
	TimelineInput *in = data;

	(void)ctl;
	in->have_pointer = FALSE;
	if (in->hooks->leave)
		in->hooks->leave(in->data);
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, gpointer data)
{
	TimelineInput *in = data;
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(g));
	TscViewport *vp = in->hooks->viewport(in->data);

	gtk_widget_grab_focus(in->widget);
	in->dragging = TRUE;
	in->marking = (mods & GDK_SHIFT_MASK) != 0;
	in->drag_x = x;
	in->drag_y = y;
	if (vp) {
		in->drag_from = vp->from;
		in->drag_to = vp->to;
	}
	if (in->hooks->drag_begin)
		in->hooks->drag_begin(in->data, x, y);
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, gpointer data)
{
	TimelineInput *in = data;
	TscViewport *vp = in->hooks->viewport(in->data);
	double x0, w;

	(void)g;
	if (!vp || !in->dragging)
		return;
	plot_of(in, &x0, &w);
	if (in->marking) {
		int64_t a = tsc_viewport_t_of(vp, x0, w, MAX(in->drag_x, x0));
		int64_t b = tsc_viewport_t_of(vp, x0, w, MAX(in->drag_x + dx, x0));

		if (fabs(dx) >= 2 && in->hooks->mark)
			in->hooks->mark(in->data, MIN(a, b), MAX(a, b));
		return;
	}
	{
		/* From the window the drag began with, so the unit under the
		 * pointer stays under it. */
		int64_t shift = (int64_t)llround(-dx * (double)(in->drag_to - in->drag_from + 1) /
		                                 MAX(w, 1));

		if (tsc_viewport_set(vp, in->drag_from + shift, in->drag_to + shift))
			in->hooks->view_changed(in->data);
		if (in->hooks->drag_rows)
			in->hooks->drag_rows(in->data, dy);
	}
}

static void on_drag_end(GtkGestureDrag *g, double dx, double dy, gpointer data)
{
	TimelineInput *in = data;
	GdkModifierType mods = gtk_event_controller_get_current_event_state(GTK_EVENT_CONTROLLER(g));

	if (!in->dragging)
		return;
	in->dragging = FALSE;
	/* No movement: a click. */
	if (fabs(dx) < 2 && fabs(dy) < 2 && !in->marking && in->hooks->click)
		in->hooks->click(in->data, in->drag_x, in->drag_y, mods);
}

static gboolean on_key(GtkEventControllerKey *ctl, guint keyval, guint keycode,
                       GdkModifierType state, gpointer data)
{
	TimelineInput *in = data;
	TscViewport *vp = in->hooks->viewport(in->data);
	TscTimelineKey key;

	(void)ctl;
	(void)keycode;
	if (!vp)
		return FALSE;
	if (in->hooks->key && in->hooks->key(in->data, keyval, state))
		return TRUE;
	key = tsc_timeline_key_lookup(keyval, state);
	if (key == TSC_TIMELINE_KEY_NONE)
		return FALSE;
	if (tsc_timeline_key_apply(vp, key))
		in->hooks->view_changed(in->data);
	return TRUE;
}

void tsc_timeline_input_install(GtkWidget *widget, const TscTimelineInputHooks *hooks,
                                gpointer data)
{
	TimelineInput *in;
	TscInputHandlers handlers = {
		.motion = G_CALLBACK(on_motion),
		.leave = G_CALLBACK(on_leave),
		.scroll = G_CALLBACK(on_scroll),
		.scroll_flags = GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES | GTK_EVENT_CONTROLLER_SCROLL_DISCRETE,
		.drag_begin = G_CALLBACK(on_drag_begin),
		.drag_update = G_CALLBACK(on_drag_update),
		.drag_end = G_CALLBACK(on_drag_end),
		.drag_button = GDK_BUTTON_PRIMARY,
		.key_pressed = G_CALLBACK(on_key),
	};

	g_return_if_fail(GTK_IS_WIDGET(widget) && hooks && hooks->viewport && hooks->plot &&
	                 hooks->view_changed);
	in = g_new0(TimelineInput, 1);
	in->hooks = hooks;
	in->data = data;
	in->widget = widget;
	/* Freed with the widget, after its controllers (which hold it). */
	g_object_set_data_full(G_OBJECT(widget), "tsc-timeline-input", in, g_free);
	handlers.user_data = in;
	tsc_widget_add_input(widget, &handlers);
}
