/* Scaffolding shared by the widget-level GTK tests: gtk-test-util.h. */
#include "gtk-test-util.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

GaDocument *gtu_load_path(const char *path)
{
	g_autoptr(GFile) file = g_file_new_for_path(path);
	GError *error = NULL;
	GaDocument *doc = ga_document_load(file, NULL, &error);

	if (!doc)
		fail_msg("%s: %s", path, error->message);
	return doc;
}

GaDocument *gtu_load(const char *name)
{
	g_autofree char *path = g_build_filename(SAMPLE_REPORTS, name, "profile.pop", NULL);

	return gtu_load_path(path);
}

static gboolean wake_cb(gpointer data)
{
	(void)data;
	return G_SOURCE_CONTINUE;
}

gboolean gtu_wait(gboolean (*done)(gpointer data), gpointer data)
{
	gint64 end = g_get_monotonic_time() + 60 * G_USEC_PER_SEC;
	guint wake = g_timeout_add(20, wake_cb, NULL); /* iterations block at most this long */
	gboolean held;

	while (!(held = done(data)) && g_get_monotonic_time() <= end)
		g_main_context_iteration(NULL, TRUE);
	g_source_remove(wake);
	return held;
}

void gtu_spin_until(gboolean (*done)(gpointer data), gpointer data, const char *what)
{
	if (!gtu_wait(done, data))
		fail_msg("waited a minute for %s", what);
}

GtkWidget *gtu_find_if(GtkWidget *w, gboolean (*match)(GtkWidget *w, gconstpointer data),
                       gconstpointer data)
{
	if (match(w, data))
		return w;
	for (GtkWidget *c = gtk_widget_get_first_child(w); c; c = gtk_widget_get_next_sibling(c)) {
		GtkWidget *found = gtu_find_if(c, match, data);

		if (found)
			return found;
	}
	return NULL;
}

typedef struct type_class {
	GType type;
	const char *css_class;
} type_class;

static gboolean is_type_class(GtkWidget *w, gconstpointer data)
{
	const type_class *t = data;

	return G_TYPE_CHECK_INSTANCE_TYPE(w, t->type) &&
	       (!t->css_class || gtk_widget_has_css_class(w, t->css_class));
}

GtkWidget *gtu_find(GtkWidget *w, GType type, const char *css_class)
{
	type_class t = {type, css_class};

	return gtu_find_if(w, is_type_class, &t);
}

static gboolean is_label(GtkWidget *w, gconstpointer text)
{
	return GTK_IS_LABEL(w) && g_strcmp0(gtk_label_get_text(GTK_LABEL(w)), text) == 0;
}

GtkWidget *gtu_find_label(GtkWidget *w, const char *text)
{
	return gtu_find_if(w, is_label, text);
}

GtkWidget *gtu_window(GtkWidget *child, int width, int height)
{
	GtkWidget *window = gtk_window_new();

	if (width > 0 && height > 0)
		gtk_window_set_default_size(GTK_WINDOW(window), width, height);
	gtk_window_set_child(GTK_WINDOW(window), child);
	gtk_window_present(GTK_WINDOW(window));
	return window;
}
