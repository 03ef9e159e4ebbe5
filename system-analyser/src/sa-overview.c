/*
 * The overview strip (sa-overview.h). Its picture of the whole trace is
 * one viewport query per thread at one pixel of resolution (reportlib
 * answers from its level of detail), computed when the document or the
 * width changes and kept as a render node; the visible window is drawn
 * over it each frame. It aligns with the timeline's plot (the same
 * labels' column on the left).
 */
#include "sa-overview.h"

#include "sa-format.h"
#include "sa-timeline.h"

#include <math.h>
#include <tilescope/tsd-app.h>

#define LEFT 200      /* px: as the timeline's labels' column */
#define STRIP_H 34    /* px */

struct _SaOverview {
	SaView parent_instance;
	SaSession *session;             /* borrowed: SaView's, whose document and view it
	                                 * shows and moves */
	SaDocument *doc;                /* what the picture shows */
	GskRenderNode *picture;
	int picture_w;
	gboolean picture_dark;
	int64_t grab_offset;            /* ns: the pointer's offset into the window while dragging */
	char *text;                     /* the accessible value */
};

G_DEFINE_FINAL_TYPE(SaOverview, sa_overview, SA_TYPE_VIEW)


static const tsr_trace_info *info_of(SaOverview *self)
{
	return self->doc ? tsr_trace_get_info(sa_document_get_trace(self->doc)) : NULL;
}

static double x_of(SaOverview *self, int width, int64_t t)
{
	const tsr_trace_info *info = info_of(self);
	double len = (double)MAX(info->end_ns - info->start_ns, 1);

	return LEFT + (double)(t - info->start_ns) / len * MAX(width - LEFT, 1);
}

static int64_t t_of(SaOverview *self, int width, double x)
{
	const tsr_trace_info *info = info_of(self);
	double len = (double)MAX(info->end_ns - info->start_ns, 1);

	return info->start_ns + (int64_t)llround((x - LEFT) / MAX(width - LEFT, 1) * len);
}

/* The whole trace's busy fraction per column, all threads averaged: a
 * bar that high, in the colour of the name covering most of the column
 * (the timeline's colours), so the phases of a job read at a glance. */
static GskRenderNode *draw_picture(SaOverview *self, int width, gboolean dark)
{
	tsr_trace *trace = sa_document_get_trace(self->doc);
	const tsr_trace_info *info = info_of(self);
	const tsr_trace_thread *threads;
	size_t n_threads = 0;
	int pw = MAX(width - LEFT, 1);
	double len = (double)MAX(info->end_ns - info->start_ns + 1, 1), npp = len / pw;
	double *busy = g_new0(double, pw), *best = g_new0(double, pw);
	uint32_t *name = g_new(uint32_t, pw);
	GtkSnapshot *s = gtk_snapshot_new();

	for (int p = 0; p < pw; p++)
		name[p] = TSR_TRACE_NO_NAME;
	if (tsr_trace_get_threads(&threads, &n_threads, trace) != TSR_OK)
		n_threads = 0;
	for (size_t t = 0; t < n_threads; t++) {
		tsr_trace_item *items = NULL;
		size_t n = 0;

		if (tsr_trace_list_events(&items, &n, trace, t, info->start_ns, info->end_ns + 1,
		                          (uint64_t)MAX(ceil(npp), 1)) != TSR_OK)
			continue;
		for (size_t i = 0; i < n; i++) {
			const tsr_trace_item *it = &items[i];
			double a = (double)(it->start_ns - info->start_ns) / npp;
			double b = (double)(it->end_ns - info->start_ns) / npp;
			double span = (double)(it->end_ns - it->start_ns);

			if ((it->kind != TSR_TRACE_ITEM_SUMMARY && it->depth != 0) || it->busy_ns == 0 ||
			    span <= 0)
				continue;
			for (int p = (int)MAX(floor(a), 0); p < pw && p < b; p++) {
				double lo = MAX(a, p), hi = MIN(b, p + 1);
				double c = (hi - lo) * npp * (double)it->busy_ns / span;

				if (hi <= lo)
					continue;
				busy[p] += c;
				if (c > best[p]) {
					best[p] = c;
					name[p] = it->name;
				}
			}
		}
		free(items);
	}
	for (int p = 0; p < pw;) {
		double cap = npp * MAX(n_threads, 1);
		int level = sa_timeline_heat_level(busy[p], cap), q = p + 1;

		/* A run of columns of one height and one name: one node. */
		while (q < pw && name[q] == name[p] && sa_timeline_heat_level(busy[q], cap) == level)
			q++;
		if (level > 0) {
			GdkRGBA c = sa_timeline_name_colour(trace, name[p], dark);
			float hgt = (float)(STRIP_H - 6) * (float)level / 8;

			gtk_snapshot_append_color(s, &c, &GRAPHENE_RECT_INIT((float)(LEFT + p),
			                                                     (float)(STRIP_H - 3) - hgt,
			                                                     (float)(q - p), hgt));
		}
		p = q;
	}
	g_free(busy);
	g_free(best);
	g_free(name);
	return gtk_snapshot_free_to_node(s);
}

static void update_value(SaOverview *self)
{
	const tsr_trace_info *info = info_of(self);
	g_autofree char *text = NULL;
	int64_t from = 0, to = 0;

	if (!info) {
		text = g_strdup("No trace");
	} else {
		g_autofree char *a = NULL, *b = NULL, *all = NULL;

		sa_session_get_view(self->session, &from, &to);
		a = sa_format_ms_exact(from - info->start_ns);
		b = sa_format_ms_exact(to - info->start_ns);
		all = sa_format_ms_exact(info->end_ns - info->start_ns);
		text = g_strdup_printf("Window %s – %s of %s", a, b, all);
	}
	if (g_strcmp0(text, self->text) == 0)
		return;
	g_free(self->text);
	self->text = g_steal_pointer(&text);
	gtk_accessible_update_property(
		GTK_ACCESSIBLE(self), GTK_ACCESSIBLE_PROPERTY_VALUE_TEXT, self->text,
		GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, self->text, GTK_ACCESSIBLE_PROPERTY_VALUE_MIN, 0.0,
		GTK_ACCESSIBLE_PROPERTY_VALUE_MAX,
		info ? (double)(info->end_ns - info->start_ns) / 1e6 : 0.0,
		GTK_ACCESSIBLE_PROPERTY_VALUE_NOW, info ? (double)(from - info->start_ns) / 1e6 : 0.0, -1);
}

/* The session's document or view changed. */
static void update(SaView *view, SaSession *session)
{
	SaOverview *self = SA_OVERVIEW(view);
	SaDocument *doc = session ? sa_session_get_document(session) : NULL;

	self->session = session;
	if (doc != self->doc) {
		g_clear_pointer(&self->picture, gsk_render_node_unref);
		g_clear_pointer(&self->doc, sa_document_unref);
		self->doc = doc ? sa_document_ref(doc) : NULL;
	}
	update_value(self);
	gtk_widget_queue_draw(GTK_WIDGET(self));
}

static void sa_overview_snapshot(GtkWidget *widget, GtkSnapshot *s)
{
	SaOverview *self = SA_OVERVIEW(widget);
	int width = gtk_widget_get_width(widget), height = gtk_widget_get_height(widget);
	GdkRGBA fg, shade, edge = {0.2f, 0.45f, 0.9f, 1};
	gboolean dark;
	int64_t from, to;
	double x0, x1;
	PangoLayout *layout;

	if (!self->doc || !self->session || width <= LEFT)
		return;
	gtk_style_context_get_color(gtk_widget_get_style_context(widget), &fg);
	dark = tsd_widget_is_dark(widget);
	if (!self->picture || self->picture_w != width || self->picture_dark != dark) {
		g_clear_pointer(&self->picture, gsk_render_node_unref);
		self->picture = draw_picture(self, width, dark);
		self->picture_w = width;
		self->picture_dark = dark;
	}
	layout = gtk_widget_create_pango_layout(widget, "Overview");
	gtk_snapshot_save(s);
	gtk_snapshot_translate(s, &GRAPHENE_POINT_INIT(4, (float)(height - 18) / 2));
	gtk_snapshot_append_layout(s, layout, &fg);
	gtk_snapshot_restore(s);
	g_object_unref(layout);
	shade = fg;
	shade.alpha = 0.06f;
	gtk_snapshot_append_color(s, &shade, &GRAPHENE_RECT_INIT(LEFT, 0, (float)(width - LEFT),
	                                                         (float)height));
	if (self->picture)
		gtk_snapshot_append_node(s, self->picture);
	/* Outside the window: dimmed; the window: framed, at least 3 px. */
	sa_session_get_view(self->session, &from, &to);
	x0 = x_of(self, width, from);
	x1 = MAX(x_of(self, width, to), x0 + 3);
	shade.alpha = dark ? 0.35f : 0.18f;
	shade.red = shade.green = shade.blue = dark ? 0 : 0.2f;
	gtk_snapshot_append_color(s, &shade, &GRAPHENE_RECT_INIT(LEFT, 0, (float)(x0 - LEFT),
	                                                         (float)height));
	gtk_snapshot_append_color(s, &shade, &GRAPHENE_RECT_INIT((float)x1, 0, (float)(width - x1),
	                                                         (float)height));
	sa_timeline_draw_frame(s, &GRAPHENE_RECT_INIT((float)x0 - 1, 1, (float)(x1 - x0 + 2),
	                                              (float)height - 2), 2, 2, &edge);
	if (gtk_widget_has_visible_focus(widget))
		sa_timeline_draw_frame(s, &GRAPHENE_RECT_INIT(1, 1, LEFT - 4, (float)height - 2), 3, 1,
		                       &edge);
}

/* Moves the window so that it starts at `from` (its width kept; the
 * timeline keeps it within the trace). */
static void move_to(SaOverview *self, int64_t from)
{
	int64_t f, t;

	sa_session_get_view(self->session, &f, &t);
	sa_session_set_view(self->session, from, from + (t - f));
}

/* Moves the window by `fraction` of its width (> 0: later). */
static void pan(SaOverview *self, double fraction)
{
	int64_t f, t;

	sa_session_get_view(self->session, &f, &t);
	move_to(self, f + (int64_t)llround((double)(t - f) * fraction));
}

static void on_drag_begin(GtkGestureDrag *g, double x, double y, gpointer data)
{
	SaOverview *self = data;
	int width = gtk_widget_get_width(GTK_WIDGET(self));
	int64_t f, t, at;

	gtk_widget_grab_focus(GTK_WIDGET(self));
	if (!self->doc || !self->session || x < LEFT)
		return;
	sa_session_get_view(self->session, &f, &t);
	at = t_of(self, width, x);
	/* Inside the window: drag it from where it was grabbed; outside:
	 * centre it on the pointer first. */
	if (at < f || at > t) {
		move_to(self, at - (t - f) / 2);
		sa_session_get_view(self->session, &f, &t);
	}
	self->grab_offset = at - f;
}

static void on_drag_update(GtkGestureDrag *g, double dx, double dy, gpointer data)
{
	SaOverview *self = data;
	double x, y;

	if (!self->doc || !self->session || !gtk_gesture_drag_get_start_point(g, &x, &y) || x < LEFT)
		return;
	move_to(self, t_of(self, gtk_widget_get_width(GTK_WIDGET(self)), x + dx) - self->grab_offset);
}

static gboolean on_key(GtkEventControllerKey *ctl, guint keyval, guint keycode,
                       GdkModifierType state, gpointer data)
{
	SaOverview *self = data;
	const tsr_trace_info *info = info_of(self);
	int64_t f, t;

	if (!info || !self->session || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)))
		return FALSE;
	sa_session_get_view(self->session, &f, &t);
	switch (keyval) {
	case GDK_KEY_Left: case GDK_KEY_a: case GDK_KEY_A:
		pan(self, -0.2);
		return TRUE;
	case GDK_KEY_Right: case GDK_KEY_d: case GDK_KEY_D:
		pan(self, 0.2);
		return TRUE;
	case GDK_KEY_Page_Up:
		pan(self, -1);
		return TRUE;
	case GDK_KEY_Page_Down:
		pan(self, 1);
		return TRUE;
	case GDK_KEY_Home:
		move_to(self, info->start_ns);
		return TRUE;
	case GDK_KEY_End:
		move_to(self, info->end_ns - (t - f));
		return TRUE;
	default:
		return FALSE;
	}
}

static void sa_overview_measure(GtkWidget *widget, GtkOrientation orientation, int for_size,
                                int *minimum, int *natural, int *min_baseline,
                                int *nat_baseline)
{
	if (orientation == GTK_ORIENTATION_HORIZONTAL)
		*minimum = *natural = LEFT + 100;
	else
		*minimum = *natural = STRIP_H;
	*min_baseline = *nat_baseline = -1;
}

static void sa_overview_dispose(GObject *object)
{
	SaOverview *self = SA_OVERVIEW(object);

	self->session = NULL;
	g_clear_pointer(&self->picture, gsk_render_node_unref);
	g_clear_pointer(&self->doc, sa_document_unref);
	G_OBJECT_CLASS(sa_overview_parent_class)->dispose(object);
}

static void sa_overview_finalize(GObject *object)
{
	g_free(SA_OVERVIEW(object)->text);
	G_OBJECT_CLASS(sa_overview_parent_class)->finalize(object);
}

static void sa_overview_class_init(SaOverviewClass *klass)
{
	GtkWidgetClass *widget_class = GTK_WIDGET_CLASS(klass);

	G_OBJECT_CLASS(klass)->dispose = sa_overview_dispose;
	G_OBJECT_CLASS(klass)->finalize = sa_overview_finalize;
	SA_VIEW_CLASS(klass)->watch = SA_VIEW_WATCH_DOCUMENT | SA_VIEW_WATCH_VIEW;
	SA_VIEW_CLASS(klass)->update = update;
	widget_class->snapshot = sa_overview_snapshot;
	widget_class->measure = sa_overview_measure;
	gtk_widget_class_set_css_name(widget_class, "overview");
	gtk_widget_class_set_accessible_role(widget_class, GTK_ACCESSIBLE_ROLE_SLIDER);
	gtk_widget_class_set_template_from_resource(widget_class,
	                                            "/org/tilescope/SystemAnalyser/sa-overview.ui");
	gtk_widget_class_bind_template_callback(widget_class, on_drag_begin);
	gtk_widget_class_bind_template_callback(widget_class, on_drag_update);
	gtk_widget_class_bind_template_callback(widget_class, on_key);
}

static void sa_overview_init(SaOverview *self)
{
	gtk_widget_init_template(GTK_WIDGET(self));
	update_value(self);
}

GtkWidget *sa_overview_new(void)
{
	return g_object_new(SA_TYPE_OVERVIEW, NULL);
}
