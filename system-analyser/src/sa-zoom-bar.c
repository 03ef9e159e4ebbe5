/*
 * The bar above the timeline (sa-zoom-bar.h). The entry shows the visible
 * width while it does not have the keyboard; Enter applies what was
 * typed, or marks the entry as an error with the reason in its tooltip
 * and accessible description (the view is left as it was).
 */
#include "sa-zoom-bar.h"

#include "sa-format.h"

#include <math.h>
#include <string.h>

#define HINT "Type a width such as 10 ms, 250 us or 2 s"

struct _SaZoomBar {
	GtkWidget parent_instance;
	SaTimeline *timeline;     /* weak */
	/* From the template (sa-zoom-bar.ui). */
	GtkWidget *entry, *wall_toggle, *hidden_button;
};

G_DEFINE_FINAL_TYPE(SaZoomBar, sa_zoom_bar, GTK_TYPE_WIDGET)

gboolean sa_zoom_parse_width(const char *text, int64_t *ns)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"µs", 1e3}, {"ns", 1}};
	g_autofree char *unit = NULL;
	const char *p = text;
	char *end;
	double v;

	if (!text)
		return FALSE;
	while (g_ascii_isspace(*p))
		p++;
	v = g_ascii_strtod(p, &end);
	if (end == p || !isfinite(v) || v <= 0)
		return FALSE;
	p = end;
	while (g_ascii_isspace(*p))
		p++;
	unit = g_utf8_strdown(p, -1);
	g_strchomp(unit);
	for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
		if (strcmp(unit, units[i].unit) == 0) {
			double n = v * units[i].scale;

			if (n < 0.5 || n > 9e18)
				return FALSE;
			*ns = MAX((int64_t)llround(n), 1);
			return TRUE;
		}
	}
	return FALSE;
}

static void show_error(SaZoomBar *self, gboolean error)
{
	if (error)
		gtk_widget_add_css_class(self->entry, "error");
	else
		gtk_widget_remove_css_class(self->entry, "error");
	gtk_widget_set_tooltip_text(self->entry,
	                            error ? HINT : "The visible width: type one and press Enter");
	gtk_accessible_update_property(GTK_ACCESSIBLE(self->entry), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
	                               error ? HINT : "The visible width", -1);
}

static void on_activate(GtkEntry *entry, gpointer data)
{
	SaZoomBar *self = data;
	int64_t ns;

	if (!self->timeline || !sa_timeline_get_document(self->timeline))
		return;
	if (!sa_zoom_parse_width(gtk_editable_get_text(GTK_EDITABLE(entry)), &ns)) {
		show_error(self, TRUE);
		return;
	}
	show_error(self, FALSE);
	sa_timeline_set_visible_width(self->timeline, ns);
}

static void on_view_changed(SaTimeline *timeline, gpointer data)
{
	SaZoomBar *self = data;
	int64_t from, to;
	g_autofree char *text = NULL;

	/* Not while someone types in it. */
	if (gtk_widget_get_state_flags(self->entry) & GTK_STATE_FLAG_FOCUS_WITHIN)
		return;
	if (!sa_timeline_get_document(timeline)) {
		gtk_editable_set_text(GTK_EDITABLE(self->entry), "");
		return;
	}
	sa_timeline_get_view(timeline, &from, &to);
	text = sa_format_duration((double)(to - from));
	gtk_editable_set_text(GTK_EDITABLE(self->entry), text);
	show_error(self, FALSE);
}

static void on_hidden_changed(GObject *object, GParamSpec *pspec, gpointer data)
{
	SaZoomBar *self = data;
	guint n = sa_timeline_get_hidden_rows(SA_TIMELINE(object));
	g_autofree char *label = n == 0 ? g_strdup("Show Hidden Rows")
	                                : g_strdup_printf("Show %u Hidden Row%s", n, n == 1 ? "" : "s");

	gtk_button_set_label(GTK_BUTTON(self->hidden_button), label);
	gtk_widget_set_sensitive(self->hidden_button, n > 0);
}

/* The buttons' "clicked", connected swapped by the template. */
static void on_range_clicked(SaZoomBar *self)
{
	if (self->timeline)
		sa_timeline_zoom_to_range(self->timeline);
}

static void on_hidden_clicked(SaZoomBar *self)
{
	if (self->timeline)
		sa_timeline_show_hidden_rows(self->timeline);
}

void sa_zoom_bar_set_timeline(SaZoomBar *self, SaTimeline *timeline)
{
	g_return_if_fail(SA_IS_ZOOM_BAR(self) && SA_IS_TIMELINE(timeline) && !self->timeline);
	g_set_weak_pointer(&self->timeline, timeline);
	/* Each goes with the first of the two to go. */
	g_signal_connect_object(timeline, "view-changed", G_CALLBACK(on_view_changed), self, 0);
	g_signal_connect_object(timeline, "notify::hidden-rows", G_CALLBACK(on_hidden_changed), self,
	                        0);
	g_object_bind_property(timeline, "wall-clock", self->wall_toggle, "active",
	                       G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
	on_view_changed(timeline, self);
	on_hidden_changed(G_OBJECT(timeline), NULL, self);
}

static void sa_zoom_bar_dispose(GObject *object)
{
	g_clear_weak_pointer(&SA_ZOOM_BAR(object)->timeline);
	gtk_widget_dispose_template(GTK_WIDGET(object), SA_TYPE_ZOOM_BAR);
	G_OBJECT_CLASS(sa_zoom_bar_parent_class)->dispose(object);
}

static void sa_zoom_bar_class_init(SaZoomBarClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = sa_zoom_bar_dispose;
	gtk_widget_class_set_css_name(widget_class, "zoombar");
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_TOOLBAR);
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/SystemAnalyser/sa-zoom-bar.ui");
	gtk_widget_class_bind_template_child(widget_class, SaZoomBar, entry);
	gtk_widget_class_bind_template_child(widget_class, SaZoomBar, wall_toggle);
	gtk_widget_class_bind_template_child(widget_class, SaZoomBar, hidden_button);
	gtk_widget_class_bind_template_callback(widget_class, on_activate);
	gtk_widget_class_bind_template_callback(widget_class, on_range_clicked);
	gtk_widget_class_bind_template_callback(widget_class, on_hidden_clicked);
}

static void sa_zoom_bar_init(SaZoomBar *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	show_error(self, FALSE);
}
