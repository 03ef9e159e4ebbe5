/*
 * tsc_widget_add_input (tsc-input.h): the controllers a table of handlers
 * names are added (motion, scroll, drag, key, focus), with the scroll
 * flags and drag button asked for, each handler reaching the widget; a
 * controller with no handler set is left out.
 */
#include "ck-test.h"

#include <tilescope/tsc-input.h>

/* What the handlers saw. */
static GtkWidget *seen_widget;
static int n_motion, n_key;

static void on_motion(GtkEventControllerMotion *c, double x, double y, GtkWidget *w)
{
	(void)c;
	(void)x;
	(void)y;
	seen_widget = w;
	n_motion++;
}

static gboolean on_key(GtkEventControllerKey *c, guint keyval, guint keycode, GdkModifierType mods,
                       GtkWidget *w)
{
	(void)c;
	(void)keyval;
	(void)keycode;
	(void)mods;
	seen_widget = w;
	n_key++;
	return TRUE;
}

static gboolean on_scroll(GtkEventControllerScroll *c, double dx, double dy, GtkWidget *w)
{
	(void)c;
	(void)dx;
	(void)dy;
	(void)w;
	return TRUE;
}

static void on_drag(GtkGestureDrag *g, double x, double y, GtkWidget *w)
{
	(void)g;
	(void)x;
	(void)y;
	(void)w;
}

/* The controllers of `w`. */
static GPtrArray *controllers(GtkWidget *w)
{
	GListModel *list = gtk_widget_observe_controllers(w);
	GPtrArray *out = g_ptr_array_new_with_free_func(g_object_unref);

	for (guint i = 0; i < g_list_model_get_n_items(list); i++)
		g_ptr_array_add(out, g_list_model_get_item(list, i));
	g_object_unref(list);
	return out;
}

/* The one controller of `type` in `all` (fails the test when there is
 * not exactly one). */
static gpointer only(GPtrArray *all, GType type)
{
	gpointer found = NULL;
	guint n = 0;

	for (guint i = 0; i < all->len; i++)
		if (G_TYPE_CHECK_INSTANCE_TYPE(all->pdata[i], type)) {
			found = all->pdata[i];
			n++;
		}
	assert_int_equal(n, 1);
	return found;
}

static void test_all(void **state)
{
	static const TscInputHandlers input = {
		.enter = G_CALLBACK(on_motion),
		.motion = G_CALLBACK(on_motion),
		.scroll = G_CALLBACK(on_scroll),
		.scroll_flags = GTK_EVENT_CONTROLLER_SCROLL_VERTICAL | GTK_EVENT_CONTROLLER_SCROLL_DISCRETE,
		.drag_begin = G_CALLBACK(on_drag),
		.drag_button = GDK_BUTTON_SECONDARY,
		.key_pressed = G_CALLBACK(on_key),
		.focus_change = G_CALLBACK(tsc_redraw_cb),
	};
	GtkWidget *w = g_object_ref_sink(gtk_drawing_area_new());
	GPtrArray *before = controllers(w), *after;
	gpointer motion, scroll, drag, key;
	gboolean handled = FALSE;

	(void)state;
	assert_int_equal(before->len, 0);
	tsc_widget_add_input(w, &input);
	after = controllers(w);
	assert_int_equal(after->len, 5);
	motion = only(after, GTK_TYPE_EVENT_CONTROLLER_MOTION);
	scroll = only(after, GTK_TYPE_EVENT_CONTROLLER_SCROLL);
	drag = only(after, GTK_TYPE_GESTURE_DRAG);
	key = only(after, GTK_TYPE_EVENT_CONTROLLER_KEY);
	only(after, GTK_TYPE_EVENT_CONTROLLER_FOCUS);
	assert_int_equal(gtk_event_controller_scroll_get_flags(scroll),
	                 GTK_EVENT_CONTROLLER_SCROLL_VERTICAL | GTK_EVENT_CONTROLLER_SCROLL_DISCRETE);
	assert_int_equal(gtk_gesture_single_get_button(drag), GDK_BUTTON_SECONDARY);

	/* The handlers get the widget as their data; enter and motion both. */
	g_signal_emit_by_name(motion, "enter", 1.0, 2.0);
	g_signal_emit_by_name(motion, "motion", 3.0, 4.0);
	assert_int_equal(n_motion, 2);
	assert_ptr_equal(seen_widget, w);
	seen_widget = NULL;
	g_signal_emit_by_name(key, "key-pressed", GDK_KEY_a, 0u, (GdkModifierType)0, &handled);
	assert_int_equal(n_key, 1);
	assert_true(handled);
	assert_ptr_equal(seen_widget, w);
	/* leave was not given: nothing connected to it. */
	assert_false(g_signal_has_handler_pending(
	    motion, g_signal_lookup("leave", GTK_TYPE_EVENT_CONTROLLER_MOTION), 0, FALSE));
	g_ptr_array_unref(before);
	g_ptr_array_unref(after);
	g_object_unref(w);
}

static void test_only_some(void **state)
{
	static const TscInputHandlers input = {
		.drag_begin = G_CALLBACK(on_drag),
		.key_pressed = G_CALLBACK(on_key),
	};
	GtkWidget *w = g_object_ref_sink(gtk_drawing_area_new());
	GPtrArray *after;

	(void)state;
	tsc_widget_add_input(w, &input);
	after = controllers(w);
	/* No motion, scroll or focus handler: only the drag and the keys. */
	assert_int_equal(after->len, 2);
	assert_int_equal(gtk_gesture_single_get_button(only(after, GTK_TYPE_GESTURE_DRAG)), 0);
	only(after, GTK_TYPE_EVENT_CONTROLLER_KEY);
	g_ptr_array_unref(after);
	g_object_unref(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_only_some),
	};

	ck_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
